//! Interval arithmetic (opcodes 640–699): Flink's `INTERVAL YEAR TO MONTH` (months in an
//! `int`) and `INTERVAL DAY TO SECOND` (milliseconds in a `long`), and the datetime arithmetic
//! Calcite expands `x ± INTERVAL ...`, `TIMESTAMPADD` and `TIMESTAMPDIFF` into.
//!
//! The kernels follow Flink's code generator operation for operation
//! (`ScalarOperatorGens.generateTemporalPlusMinus` and `generateBinaryArithmeticOperator`):
//! Java's wrapping `int`/`long` arithmetic, `Math.toIntExact` where it narrows (which fails
//! with `integer overflow`), and `DateTimeUtils.addMonths`/`subtractMonths` for months. What
//! the generator cannot compile (a TIME minus a TIMESTAMP as milliseconds, TIMESTAMP_LTZ
//! against another type) does not bind.
//!
//! A difference of two datetimes is an interval whose family only the plan's result type
//! tells (`TIMESTAMPDIFF(MONTH, ...)` against `TIMESTAMPDIFF(DAY, ...)`), so it is two
//! functions, [`MINUS_MONTHS`] and [`MINUS_MILLIS`].

use datafusion::error::Result as DfResult;

use crate::calc::coercion::is_integer;
use crate::calc::range::OutOfRange;
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::temporal_calendar::{
    MILLIS_PER_DAY, add_months_date, add_months_millis, subtract_months_date,
    subtract_months_millis,
};
use super::temporal_values::{In, Out, rowwise};

/// `x + interval` for a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ `x`: `x`'s type.
pub const DATETIME_PLUS: u16 = 640;
/// `x - interval`, as [`DATETIME_PLUS`].
pub const DATETIME_MINUS: u16 = 641;
/// `a + b` of two intervals of one family: that family.
pub const INTERVAL_PLUS: u16 = 642;
/// `a - b` as INTERVAL YEAR TO MONTH: two such intervals, or two datetimes (the whole months
/// from `b` to `a`, `DateTimeUtils.subtractMonths`).
pub const MINUS_MONTHS: u16 = 643;
/// `a - b` as INTERVAL DAY TO SECOND: two such intervals, or two datetimes (the milliseconds
/// from `b` to `a`; a TIMESTAMP's nanoseconds of the millisecond are dropped).
pub const MINUS_MILLIS: u16 = 644;
/// `interval * n` or `n * interval` for an integer `n`: the interval's family.
pub const INTERVAL_TIMES: u16 = 645;
/// An interval's carrier value as BIGINT (Calcite's `REINTERPRET`): months or milliseconds.
pub const INTERVAL_VALUE: u16 = 646;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: DATETIME_PLUS,
        name: "DATETIME_PLUS",
        arity: Arity::Exact(2),
        bind: |a| bind_shift(a, false),
    },
    FunctionDef {
        opcode: DATETIME_MINUS,
        name: "DATETIME_MINUS",
        arity: Arity::Exact(2),
        bind: |a| bind_shift(a, true),
    },
    FunctionDef {
        opcode: INTERVAL_PLUS,
        name: "INTERVAL_PLUS",
        arity: Arity::Exact(2),
        bind: bind_interval_plus,
    },
    FunctionDef {
        opcode: MINUS_MONTHS,
        name: "MINUS_MONTHS",
        arity: Arity::Exact(2),
        bind: bind_minus_months,
    },
    FunctionDef {
        opcode: MINUS_MILLIS,
        name: "MINUS_MILLIS",
        arity: Arity::Exact(2),
        bind: bind_minus_millis,
    },
    FunctionDef {
        opcode: INTERVAL_TIMES,
        name: "INTERVAL_TIMES",
        arity: Arity::Exact(2),
        bind: bind_interval_times,
    },
    FunctionDef {
        opcode: INTERVAL_VALUE,
        name: "INTERVAL_VALUE",
        arity: Arity::Exact(1),
        bind: bind_interval_value,
    },
];

fn is_interval(ty: &LogicalType) -> bool {
    matches!(
        ty,
        LogicalType::IntervalYearMonth | LogicalType::IntervalDayTime
    )
}

fn bound(args: &Args<'_>, result: LogicalType, kernel: Kernel) -> Bound {
    Bound {
        args: args.types.to_vec(),
        result,
        kernel,
    }
}

/// Java's `Math.toIntExact`.
fn to_int_exact(v: i64) -> DfResult<i32> {
    i32::try_from(v).map_err(|_| OutOfRange::new("integer overflow").into())
}

/// `x ± interval` (`generateTemporalPlusMinus`).
fn bind_shift(args: &Args<'_>, minus: bool) -> Result<Bound, String> {
    let (x, interval) = (&args.types[0], &args.types[1]);
    let months = match interval {
        LogicalType::IntervalYearMonth => true,
        LogicalType::IntervalDayTime => false,
        other => {
            return Err(format!(
                "the second argument must be an interval, not {other}"
            ));
        }
    };
    if !matches!(
        x,
        LogicalType::Date
            | LogicalType::Time(_)
            | LogicalType::Timestamp(_)
            | LogicalType::TimestampLtz(_)
    ) {
        return Err(format!("the first argument must be a datetime, not {x}"));
    }
    let name = if minus {
        "DATETIME_MINUS"
    } else {
        "DATETIME_PLUS"
    };
    let kernel = rowwise(name, x, true, move |row| {
        let (Some(x), Some(In::Int(v))) = (row[0], row[1]) else {
            return Ok(None);
        };
        Ok(Some(match (x, months) {
            (In::Date(d), true) => {
                // `addMonths(d, -(m))`: Java's negation wraps.
                let m = v as i32;
                Out::Date(add_months_date(d, if minus { m.wrapping_neg() } else { m }))
            }
            (In::Date(d), false) => {
                let days = to_int_exact(v / MILLIS_PER_DAY)?;
                Out::Date(if minus {
                    d.wrapping_sub(days)
                } else {
                    d.wrapping_add(days)
                })
            }
            // A TIME moves by the interval's time of day, wrapping around midnight.
            (In::Time(t), false) => {
                let step = i64::from(to_int_exact(v % MILLIS_PER_DAY)?);
                let shifted = i64::from(t) + MILLIS_PER_DAY;
                let shifted = if minus {
                    shifted - step
                } else {
                    shifted + step
                };
                Out::Time(to_int_exact(shifted % MILLIS_PER_DAY)?)
            }
            (In::Time(t), true) => Out::Time(t),
            (In::Ts(ms, ns), true) => {
                let m = v as i32;
                Out::Ts(
                    add_months_millis(ms, if minus { m.wrapping_neg() } else { m }),
                    ns,
                )
            }
            (In::Ts(ms, ns), false) => Out::Ts(
                if minus {
                    ms.wrapping_sub(v)
                } else {
                    ms.wrapping_add(v)
                },
                ns,
            ),
            _ => return Ok(None),
        }))
    });
    Ok(bound(args, x.clone(), kernel))
}

/// `a + b` of two intervals: Java's wrapping `int` or `long` addition.
fn bind_interval_plus(args: &Args<'_>) -> Result<Bound, String> {
    let (a, b) = (&args.types[0], &args.types[1]);
    if a != b || !is_interval(a) {
        return Err(format!(
            "needs two intervals of one family, not {a} and {b}"
        ));
    }
    let months = *a == LogicalType::IntervalYearMonth;
    let kernel = rowwise("INTERVAL_PLUS", a, true, move |row| {
        let (Some(In::Int(a)), Some(In::Int(b))) = (row[0], row[1]) else {
            return Ok(None);
        };
        Ok(Some(Out::Int(if months {
            i64::from((a as i32).wrapping_add(b as i32))
        } else {
            a.wrapping_add(b)
        })))
    });
    Ok(bound(args, a.clone(), kernel))
}

/// Which datetime difference Flink generates for two operand types.
#[derive(Clone, Copy)]
enum Points {
    /// Both as epoch milliseconds (a DATE's days times a day, a TIME's milliseconds as is).
    Millis,
    /// Both as `int`s (DATE days, TIME milliseconds): `subtractMonths(int, int)`.
    Ints,
}

fn is_datetime(ty: &LogicalType) -> bool {
    matches!(
        ty,
        LogicalType::Date
            | LogicalType::Time(_)
            | LogicalType::Timestamp(_)
            | LogicalType::TimestampLtz(_)
    )
}

/// TIMESTAMP_LTZ differences only between two TIMESTAMP_LTZs (`generateTimestampLtzMinus`).
fn check_ltz(a: &LogicalType, b: &LogicalType) -> Result<(), String> {
    let ltz = |t: &LogicalType| matches!(t, LogicalType::TimestampLtz(_));
    if ltz(a) != ltz(b) {
        return Err("TIMESTAMP_LTZ only supports diff between the same type.".into());
    }
    Ok(())
}

/// A datetime as the epoch milliseconds Flink's generated difference reads.
fn point_millis(v: In<'_>) -> i64 {
    match v {
        In::Date(d) => i64::from(d).wrapping_mul(MILLIS_PER_DAY),
        In::Time(t) => i64::from(t),
        In::Ts(ms, _) => ms,
        _ => 0,
    }
}

/// A DATE or TIME as the `int` Flink's generated difference reads.
fn point_int(v: In<'_>) -> i32 {
    match v {
        In::Date(d) | In::Time(d) => d,
        _ => 0,
    }
}

fn bind_minus_months(args: &Args<'_>) -> Result<Bound, String> {
    let (a, b) = (&args.types[0], &args.types[1]);
    let result = LogicalType::IntervalYearMonth;
    if *a == result && *b == result {
        let kernel = rowwise("MINUS_MONTHS", &result, true, |row| {
            let (Some(In::Int(a)), Some(In::Int(b))) = (row[0], row[1]) else {
                return Ok(None);
            };
            Ok(Some(Out::Int(i64::from((a as i32).wrapping_sub(b as i32)))))
        });
        return Ok(bound(args, result, kernel));
    }
    if !is_datetime(a) || !is_datetime(b) {
        return Err(format!(
            "needs two datetimes or two INTERVAL YEAR TO MONTHs, not {a} and {b}"
        ));
    }
    check_ltz(a, b)?;
    let timestamp =
        |t: &LogicalType| matches!(t, LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_));
    let points = if timestamp(a) || timestamp(b) {
        Points::Millis
    } else {
        Points::Ints
    };
    let kernel = rowwise("MINUS_MONTHS", &result, true, move |row| {
        let (Some(a), Some(b)) = (row[0], row[1]) else {
            return Ok(None);
        };
        let months = match points {
            Points::Millis => subtract_months_millis(point_millis(a), point_millis(b)),
            Points::Ints => subtract_months_date(point_int(a), point_int(b)),
        };
        Ok(Some(Out::Int(months.into())))
    });
    Ok(bound(args, result, kernel))
}

fn bind_minus_millis(args: &Args<'_>) -> Result<Bound, String> {
    let (a, b) = (&args.types[0], &args.types[1]);
    let result = LogicalType::IntervalDayTime;
    let interval = *a == result && *b == result;
    if !interval {
        let point = |t: &LogicalType| {
            matches!(
                t,
                LogicalType::Date | LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_)
            )
        };
        // Flink's generator has no millisecond difference involving a TIME.
        if !point(a) || !point(b) {
            return Err(format!(
                "needs two DATEs or TIMESTAMPs, or two INTERVAL DAY TO SECONDs, not {a} and {b}"
            ));
        }
        check_ltz(a, b)?;
    }
    let kernel = rowwise("MINUS_MILLIS", &result, true, move |row| {
        let (Some(a), Some(b)) = (row[0], row[1]) else {
            return Ok(None);
        };
        let millis = |v: In<'_>| match v {
            In::Int(ms) => ms,
            other => point_millis(other),
        };
        Ok(Some(Out::Int(millis(a).wrapping_sub(millis(b)))))
    });
    Ok(bound(args, result, kernel))
}

/// `interval * n`: the integer is cast to the interval's carrier (`(int)` or `(long)`, as
/// the generator's `numericCasting` does), then Java's wrapping multiplication.
fn bind_interval_times(args: &Args<'_>) -> Result<Bound, String> {
    let (a, b) = (&args.types[0], &args.types[1]);
    let (interval, at) = match (is_interval(a), is_interval(b)) {
        (true, false) if is_integer(b) => (a, 0),
        (false, true) if is_integer(a) => (b, 1),
        _ => {
            return Err(format!("needs an interval and an integer, not {a} and {b}"));
        }
    };
    let months = *interval == LogicalType::IntervalYearMonth;
    let kernel = rowwise("INTERVAL_TIMES", interval, true, move |row| {
        let (Some(In::Int(v)), Some(In::Int(n))) = (row[at], row[1 - at]) else {
            return Ok(None);
        };
        Ok(Some(Out::Int(if months {
            i64::from((v as i32).wrapping_mul(n as i32))
        } else {
            v.wrapping_mul(n)
        })))
    });
    Ok(bound(args, interval.clone(), kernel))
}

fn bind_interval_value(args: &Args<'_>) -> Result<Bound, String> {
    let ty = &args.types[0];
    if !is_interval(ty) {
        return Err(format!("needs an interval, not {ty}"));
    }
    let kernel = rowwise("INTERVAL_VALUE", &LogicalType::BigInt, true, |row| {
        Ok(match row[0] {
            Some(In::Int(v)) => Some(Out::Int(v)),
            _ => None,
        })
    });
    Ok(bound(args, LogicalType::BigInt, kernel))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{
        Array, ArrayRef, AsArray, Date32Array, DurationMillisecondArray, Int32Array,
        IntervalYearMonthArray, Time32MillisecondArray, TimestampMillisecondArray,
    };
    use arrow::datatypes::{Field, Int64Type};
    use chrono::NaiveDate;
    use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs};

    use super::*;
    use crate::calc::registry::{Kernel, registry};

    fn bind(op: u16, types: &[LogicalType]) -> Result<Bound, String> {
        let literals = vec![None; types.len()];
        (registry().get(op).unwrap().bind)(&Args::utc(types, &literals))
    }

    /// Calls `op` on columns of `types`.
    fn call(op: u16, types: &[LogicalType], args: Vec<ArrayRef>) -> Result<ArrayRef, String> {
        let bound = bind(op, types)?;
        let Kernel::Function(udf) = bound.kernel else {
            panic!("a function kernel")
        };
        let rows = args[0].len();
        udf.invoke_with_args(ScalarFunctionArgs {
            arg_fields: args
                .iter()
                .map(|a| Arc::new(Field::new("a", a.data_type().clone(), true)))
                .collect(),
            args: args.into_iter().map(ColumnarValue::Array).collect(),
            number_rows: rows,
            return_field: Arc::new(Field::new("r", bound.result.to_arrow(), true)),
            config_options: Arc::new(Default::default()),
        })
        .and_then(|v| v.to_array(rows))
        .map_err(|e| e.to_string())
    }

    /// A DATE result's days since the epoch.
    fn days_of(array: &ArrayRef) -> Vec<i32> {
        array
            .as_any()
            .downcast_ref::<Date32Array>()
            .unwrap()
            .values()
            .to_vec()
    }

    fn day(y: i32, m: u32, d: u32) -> i32 {
        (NaiveDate::from_ymd_opt(y, m, d).unwrap() - NaiveDate::from_ymd_opt(1970, 1, 1).unwrap())
            .num_days() as i32
    }

    fn millis(values: &[i64]) -> ArrayRef {
        Arc::new(DurationMillisecondArray::from(values.to_vec()))
    }

    fn months(values: &[i32]) -> ArrayRef {
        Arc::new(IntervalYearMonthArray::from(values.to_vec()))
    }

    const HOUR: i64 = 3_600_000;

    #[test]
    fn a_date_moves_by_whole_days_and_clamped_months() {
        let dates: ArrayRef = Arc::new(Date32Array::from(vec![day(2024, 1, 31), day(2024, 3, 31)]));
        let shifted = call(
            DATETIME_PLUS,
            &[LogicalType::Date, LogicalType::IntervalDayTime],
            vec![dates.clone(), millis(&[36 * HOUR, -HOUR])],
        )
        .unwrap();
        // 36 hours is one whole day; -1 hour truncates to zero days (Java's division).
        assert_eq!(days_of(&shifted), vec![day(2024, 2, 1), day(2024, 3, 31)]);
        let shifted = call(
            DATETIME_MINUS,
            &[LogicalType::Date, LogicalType::IntervalYearMonth],
            vec![dates, months(&[-1, 1])],
        )
        .unwrap();
        assert_eq!(days_of(&shifted), vec![day(2024, 2, 29), day(2024, 2, 29)]);
    }

    #[test]
    fn whole_days_past_an_int_fail_as_math_to_int_exact() {
        let dates: ArrayRef = Arc::new(Date32Array::from(vec![0]));
        let err = call(
            DATETIME_PLUS,
            &[LogicalType::Date, LogicalType::IntervalDayTime],
            vec![dates, millis(&[(i64::from(i32::MAX) + 1) * 86_400_000])],
        )
        .unwrap_err();
        assert!(err.contains("integer overflow"), "{err}");
    }

    #[test]
    fn a_time_wraps_around_midnight_and_ignores_months() {
        let times: ArrayRef = Arc::new(Time32MillisecondArray::from(vec![
            23 * 3_600_000 + 30 * 60_000,
            0,
        ]));
        let ty = [LogicalType::Time(0), LogicalType::IntervalDayTime];
        let plus = call(
            DATETIME_PLUS,
            &ty,
            vec![times.clone(), millis(&[HOUR, -3 * 86_400_000 - 1000])],
        )
        .unwrap();
        assert_eq!(
            plus.as_any()
                .downcast_ref::<Time32MillisecondArray>()
                .unwrap()
                .values()
                .to_vec(),
            vec![30 * 60_000, 86_400_000 - 1000]
        );
        let same = call(
            DATETIME_MINUS,
            &[LogicalType::Time(0), LogicalType::IntervalYearMonth],
            vec![times.clone(), months(&[5, -7])],
        )
        .unwrap();
        assert_eq!(same.as_ref(), times.as_ref());
    }

    #[test]
    fn differences_are_months_or_milliseconds_as_the_plan_types_them() {
        let a: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![
            86_400_000 * i64::from(day(2024, 3, 31)) + 5,
        ]));
        let b: ArrayRef = Arc::new(Date32Array::from(vec![day(2024, 2, 29)]));
        let ty = [LogicalType::Timestamp(3), LogicalType::Date];
        let m = call(MINUS_MONTHS, &ty, vec![a.clone(), b.clone()]).unwrap();
        assert_eq!(
            m.as_any()
                .downcast_ref::<IntervalYearMonthArray>()
                .unwrap()
                .value(0),
            1
        );
        let ms = call(MINUS_MILLIS, &ty, vec![a, b]).unwrap();
        assert_eq!(
            ms.as_any()
                .downcast_ref::<DurationMillisecondArray>()
                .unwrap()
                .value(0),
            31 * 86_400_000 + 5
        );
        let value = call(INTERVAL_VALUE, &[LogicalType::IntervalDayTime], vec![ms]).unwrap();
        assert_eq!(
            value.as_primitive::<Int64Type>().value(0),
            31 * 86_400_000 + 5
        );
    }

    #[test]
    fn interval_products_wrap_in_the_carrier() {
        let n: ArrayRef = Arc::new(Int32Array::from(vec![i32::MAX, 357_913_942]));
        let m = call(
            INTERVAL_TIMES,
            &[LogicalType::IntervalYearMonth, LogicalType::Int],
            vec![months(&[12, 12]), n.clone()],
        )
        .unwrap();
        // Java int multiplication: 12 * (2^31 - 1) is -12; 12 * 357913942 is 2^32 + 8.
        assert_eq!(
            m.as_any()
                .downcast_ref::<IntervalYearMonthArray>()
                .unwrap()
                .values()
                .to_vec(),
            vec![-12, 8]
        );
        let d = call(
            INTERVAL_TIMES,
            &[LogicalType::Int, LogicalType::IntervalDayTime],
            vec![n, millis(&[604_800_000, 1])],
        )
        .unwrap();
        assert_eq!(
            d.as_any()
                .downcast_ref::<DurationMillisecondArray>()
                .unwrap()
                .values()
                .to_vec(),
            vec![i64::from(i32::MAX) * 604_800_000, 357_913_942]
        );
    }

    #[test]
    fn what_flinks_generator_cannot_compile_does_not_bind() {
        let ltz = LogicalType::TimestampLtz(3);
        let ts = LogicalType::Timestamp(3);
        let time = LogicalType::Time(0);
        assert!(bind(MINUS_MILLIS, &[ltz.clone(), ts.clone()]).is_err());
        assert!(bind(MINUS_MONTHS, &[ts.clone(), ltz.clone()]).is_err());
        assert!(bind(MINUS_MILLIS, &[ltz.clone(), ltz]).is_ok());
        assert!(bind(MINUS_MILLIS, &[time.clone(), ts.clone()]).is_err());
        assert!(bind(MINUS_MONTHS, &[time, ts.clone()]).is_ok());
        assert!(
            bind(
                INTERVAL_TIMES,
                &[LogicalType::IntervalDayTime, LogicalType::Double]
            )
            .is_err()
        );
        assert!(
            bind(
                INTERVAL_PLUS,
                &[LogicalType::IntervalDayTime, LogicalType::IntervalYearMonth]
            )
            .is_err()
        );
        assert!(
            bind(
                DATETIME_PLUS,
                &[LogicalType::Int, LogicalType::IntervalDayTime]
            )
            .is_err()
        );
        assert!(bind(DATETIME_PLUS, &[ts, LogicalType::BigInt]).is_err());
    }
}
