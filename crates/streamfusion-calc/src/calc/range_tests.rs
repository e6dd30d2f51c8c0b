//! Decision 0023: what Calc writes as DATE, TIME and TIMESTAMP. The bounds here are restated
//! from the calendar (chrono) and from Flink's documentation, not taken from the module.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, Date32Array, Date32Builder,
    Decimal128Array, DurationMillisecondArray, Float32Array, Float64Array, Int8Array, Int16Array,
    Int32Array, Int32Builder, Int64Array, IntervalYearMonthArray, ListBuilder, RecordBatch,
    StringArray, StringBuilder, Time32MillisecondArray, TimestampMicrosecondArray,
    TimestampMillisecondArray, TimestampNanosecondArray, TimestampNanosecondBuilder,
};
use arrow::datatypes::{
    DataType, Date32Type, Field, Schema, Time32MillisecondType, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType,
};
use bench_support::fixtures::splitmix64;
use chrono::{NaiveDate, NaiveDateTime};

use crate::calc::functions::temporal;
use crate::calc::registry::{Arity, registry};
use crate::calc::{CalcError, CalcProgram, CompiledCalc, Expr, compile};
use crate::changelog::ChangelogBatch;
use crate::types::LogicalType as T;

fn days(y: i32, m: u32, d: u32) -> i64 {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
    (NaiveDate::from_ymd_opt(y, m, d).unwrap() - epoch).num_days()
}

fn epoch_nanos(text: &str) -> i128 {
    let t = NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f").unwrap();
    let d = t.and_utc();
    i128::from(d.timestamp()) * 1_000_000_000 + i128::from(d.timestamp_subsec_nanos())
}

/// Flink's documented DATE range, in days since 1970-01-01.
fn date_range() -> (i64, i64) {
    (days(0, 1, 1), days(9999, 12, 31))
}

/// Flink's documented TIMESTAMP range, in epoch nanoseconds.
fn timestamp_range() -> (i128, i128) {
    (
        epoch_nanos("0000-01-01 00:00:00"),
        epoch_nanos("9999-12-31 23:59:59.999999999"),
    )
}

const MILLIS_PER_DAY: i64 = 86_400_000;

// ---------------------------------------------------------------------------------------------
// The checked conversions.

#[test]
fn the_bounds_are_flinks_documented_ranges() {
    let (lo, hi) = date_range();
    assert_eq!(super::date(lo), Ok(lo as i32));
    assert_eq!(super::date(hi), Ok(hi as i32));
    assert!(super::date(lo - 1).is_err());
    assert!(super::date(hi + 1).is_err());
    assert!(super::date(i64::from(i32::MIN)).is_err());
    assert!(super::date(i64::MAX).is_err());
    let (lo, hi) = timestamp_range();
    let (lo_ms, hi_ms) = ((lo / 1_000_000) as i64, (hi / 1_000_000) as i64);
    assert_eq!(super::millis(lo_ms, 0), Ok(lo_ms));
    assert_eq!(super::millis(hi_ms, 999_999), Ok(hi_ms));
    assert!(super::millis(lo_ms - 1, 999_999).is_err());
    assert!(super::millis(hi_ms + 1, 0).is_err());
    assert_eq!(super::micros(hi_ms, 999_999), Ok(hi_ms * 1000 + 999));
    assert_eq!(super::time(0), Ok(0));
    assert_eq!(super::time(MILLIS_PER_DAY - 1), Ok(86_399_999));
    assert!(super::time(-1).is_err());
    assert!(super::time(MILLIS_PER_DAY).is_err());
}

#[test]
fn nanoseconds_hold_exactly_the_64_bit_range() {
    // The carrier's ends, as chrono writes them.
    let first = epoch_nanos("1677-09-21 00:12:43.145224192");
    let last = epoch_nanos("2262-04-11 23:47:16.854775807");
    assert_eq!((first, last), (i128::from(i64::MIN), i128::from(i64::MAX)));
    let split = |n: i128| {
        (
            (n.div_euclid(1_000_000)) as i64,
            n.rem_euclid(1_000_000) as i32,
        )
    };
    let (ms, ns) = split(first);
    assert_eq!(super::nanos(ms, ns), Ok(i64::MIN));
    assert!(super::nanos(ms, ns - 1).is_err());
    let (ms, ns) = split(last);
    assert_eq!(super::nanos(ms, ns), Ok(i64::MAX));
    assert!(super::nanos(ms, ns + 1).is_err());
    let (ms, ns) = split(epoch_nanos("0001-01-01 00:00:00"));
    let err = super::nanos(ms, ns).unwrap_err();
    assert!(err.to_string().contains("0001-01-01 00:00:00"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Through a compiled program.

fn evaluate(
    exprs: Vec<Expr>,
    input: &[T],
    columns: Vec<ArrayRef>,
) -> Result<RecordBatch, CalcError> {
    let compiled = compile(&CalcProgram::project(exprs), input).expect("compiles");
    let fields: Vec<Field> = input
        .iter()
        .enumerate()
        .map(|(i, t)| Field::new(format!("f{i}"), t.to_arrow(), true))
        .collect();
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
    compiled
        .evaluate(&ChangelogBatch::insert_only(batch))
        .map(|out| out.batch().clone())
}

fn unit_literal(name: &str) -> Expr {
    Expr::lit(T::VarChar(i32::MAX as u32), name)
}

fn assert_out_of_range(result: Result<RecordBatch, CalcError>, what: &str) {
    match result {
        Err(e) => assert!(e.is_out_of_range(), "{what}: {e:?}"),
        Ok(b) => panic!("{what}: expected an out-of-range error, got {b:?}"),
    }
}

#[test]
fn a_cast_into_nanoseconds_fails_out_of_range_even_as_try_cast() {
    let date: ArrayRef = Arc::new(Date32Array::from(vec![days(1, 1, 1) as i32]));
    for e in [
        Expr::input(0).cast(T::Timestamp(9)),
        Expr::input(0).try_cast(T::Timestamp(9)),
    ] {
        assert_out_of_range(
            evaluate(vec![e], &[T::Date], vec![date.clone()]),
            "DATE 0001",
        );
    }
    let ok = evaluate(
        vec![Expr::input(0).cast(T::Timestamp(6))],
        &[T::Date],
        vec![date],
    )
    .unwrap();
    assert_eq!(
        ok.column(0)
            .as_primitive::<TimestampMicrosecondType>()
            .value(0),
        days(1, 1, 1) * MILLIS_PER_DAY * 1000
    );
    let text: ArrayRef = Arc::new(StringArray::from(vec!["0001-01-01 00:00:00.000000001"]));
    let string = T::VarChar(40);
    let mut program = CalcProgram::project(vec![Expr::input(0).cast(T::Timestamp(9))]);
    program.legacy_cast_behaviour = true;
    let compiled = compile(&program, std::slice::from_ref(&string)).unwrap();
    let schema = Schema::new(vec![Field::new("f0", string.to_arrow(), true)]);
    let batch = RecordBatch::try_new(Arc::new(schema), vec![text]).unwrap();
    let err = compiled
        .evaluate(&ChangelogBatch::insert_only(batch))
        .unwrap_err();
    assert!(
        err.is_out_of_range(),
        "a legacy cast does not hide it: {err}"
    );
}

#[test]
fn a_time_from_a_pre_1970_timestamp_fails_unless_it_truncates_to_midnight() {
    // 1969-12-31 12:30:45.123: Java's `%` gives -11:29:14.877, which Flink cannot convert.
    let ts: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![-41_354_877]));
    assert_out_of_range(
        evaluate(
            vec![Expr::input(0).cast(T::Time(0))],
            &[T::Timestamp(3)],
            vec![ts],
        ),
        "TIME of 1969-12-31 12:30:45.123",
    );
    // 1969-12-31 23:59:59.999 truncates to 00:00:00 at TIME(0), as in Flink.
    let ts: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![-1, -MILLIS_PER_DAY]));
    let out = evaluate(
        vec![Expr::input(0).cast(T::Time(0))],
        &[T::Timestamp(3)],
        vec![ts],
    )
    .unwrap();
    assert_eq!(
        out.column(0)
            .as_primitive::<Time32MillisecondType>()
            .values()
            .to_vec(),
        vec![0, 0]
    );
}

#[test]
fn timestampadd_fails_where_flink_overflows_and_keeps_flinks_wrapped_values() {
    let input = [T::Int, T::Date];
    let add = |u: &str| {
        Expr::call(
            temporal::TIMESTAMPADD,
            vec![unit_literal(u), Expr::input(0), Expr::input(1)],
        )
    };
    let jan31 = days(2024, 1, 31) as i32;
    let run = |u: &str, n: i32| {
        evaluate(
            vec![add(u)],
            &input,
            vec![
                Arc::new(Int32Array::from(vec![n])) as ArrayRef,
                Arc::new(Date32Array::from(vec![jan31])),
            ],
        )
    };
    // 613566757 weeks are 4294967299 days: truncated to an int they were 3 days; Flink's
    // `Math.toIntExact` fails.
    assert_out_of_range(run("WEEK", 613_566_757), "WEEK 613566757");
    assert_out_of_range(run("MONTH", i32::MAX), "MONTH 2147483647");
    assert_out_of_range(run("YEAR", 8000), "YEAR 8000 (year 10024)");
    // Flink multiplies the years by 12 in an int: 2147483647 years are -12 months.
    let wrapped = run("YEAR", i32::MAX).unwrap();
    assert_eq!(
        wrapped.column(0).as_primitive::<Date32Type>().value(0),
        days(2023, 1, 31) as i32
    );
}

#[test]
fn ceil_past_the_last_year_fails_out_of_range() {
    let ts: ArrayRef = Arc::new(TimestampNanosecondArray::from(vec![i64::MAX]));
    let ceil = Expr::call(
        temporal::CEIL_TO,
        vec![Expr::input(0), unit_literal("YEAR")],
    );
    assert_out_of_range(
        evaluate(vec![ceil], &[T::Timestamp(9)], vec![ts.clone()]),
        "CEIL(2262-04-11 TO YEAR) in nanoseconds",
    );
    let floor = Expr::call(
        temporal::FLOOR_TO,
        vec![Expr::input(0), unit_literal("YEAR")],
    );
    let out = evaluate(vec![floor], &[T::Timestamp(9)], vec![ts]).unwrap();
    assert_eq!(
        i128::from(
            out.column(0)
                .as_primitive::<TimestampNanosecondType>()
                .value(0)
        ),
        epoch_nanos("2262-01-01 00:00:00")
    );
    let date: ArrayRef = Arc::new(Date32Array::from(vec![date_range().1 as i32]));
    let ceil = Expr::call(
        temporal::CEIL_TO,
        vec![Expr::input(0), unit_literal("YEAR")],
    );
    assert_out_of_range(
        evaluate(vec![ceil], &[T::Date], vec![date]),
        "CEIL(9999-12-31 TO YEAR)",
    );
}

/// A timestamp column of precision `p` holding `nanos` (which the unit must hold exactly).
fn timestamp_column(p: u8, nanos: i128) -> ArrayRef {
    match p {
        0..=3 => Arc::new(TimestampMillisecondArray::from(vec![
            (nanos / 1_000_000) as i64,
        ])),
        4..=6 => Arc::new(TimestampMicrosecondArray::from(vec![
            (nanos / 1_000) as i64,
        ])),
        _ => Arc::new(TimestampNanosecondArray::from(vec![nanos as i64])),
    }
}

/// The instant a timestamp column's first value holds, in epoch nanoseconds.
fn timestamp_value(a: &ArrayRef) -> i128 {
    match a.data_type() {
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            i128::from(a.as_primitive::<TimestampMillisecondType>().value(0)) * 1_000_000
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            i128::from(a.as_primitive::<TimestampMicrosecondType>().value(0)) * 1_000
        }
        other => {
            assert_eq!(other, &DataType::Timestamp(TimeUnit::Nanosecond, None));
            i128::from(a.as_primitive::<TimestampNanosecondType>().value(0))
        }
    }
}

/// The conversions that wrapped before decision 0023, against exact arithmetic (`i128`): a
/// DATE or TIMESTAMP widened to a finer TIMESTAMP, and TIMESTAMPADD by fixed-length units
/// (where Flink's arithmetic is exact: `long` milliseconds, or an `int` day count checked by
/// `Math.toIntExact`). Each result must be the exact value where its type's range and carrier
/// hold it, and an out-of-range error where not.
#[test]
fn widened_and_shifted_values_are_exact_or_out_of_range() {
    let mut rng = Rng(0x0023_0000_0000_0001);
    let (date_lo, date_hi) = date_range();
    let (ts_lo, ts_hi) = timestamp_range();
    const NANOS_PER_DAY: i128 = 86_400_000_000_000;
    let writable =
        |n: i128, p: u8| (ts_lo..=ts_hi).contains(&n) && (p <= 6 || i64::try_from(n).is_ok());
    // Values at and around every edge, and anywhere between.
    let date = |rng: &mut Rng| -> i64 {
        let edges = [date_lo, date_hi, 0, -106_752, -106_751, 106_750, 106_751];
        if rng.chance(2) {
            *rng.pick(&edges)
        } else {
            rng.within(date_lo, date_hi)
        }
    };
    let count = |rng: &mut Rng| -> i64 {
        let edges = [
            i32::MIN.into(),
            i32::MAX.into(),
            0,
            1,
            -1,
            306_783_378,
            306_783_379,
            613_566_757,
            -106_751,
        ];
        if rng.chance(2) {
            *rng.pick(&edges)
        } else {
            rng.within(i32::MIN.into(), i32::MAX.into())
        }
    };
    let (mut exact, mut refused) = (0, 0);
    let mut judge = |what: String,
                     result: Result<RecordBatch, CalcError>,
                     expected: Option<i128>| match (result, expected) {
        (Ok(out), Some(want)) => {
            let column = out.column(0);
            let got = if column.data_type() == &DataType::Date32 {
                i128::from(column.as_primitive::<Date32Type>().value(0))
            } else {
                timestamp_value(column)
            };
            assert_eq!(got, want, "{what}");
            exact += 1;
        }
        (Err(e), None) => {
            assert!(e.is_out_of_range(), "{what}: {e}");
            refused += 1;
        }
        (Ok(out), None) => panic!("{what}: expected out of range, wrote {:?}", out.column(0)),
        (Err(e), Some(want)) => panic!("{what}: expected {want}, failed: {e}"),
    };
    for _ in 0..3000 {
        let p = *rng.pick(&[0u8, 3, 6, 7, 9]);
        match rng.below(4) {
            0 => {
                let d = date(&mut rng);
                let want = i128::from(d) * NANOS_PER_DAY;
                let column: ArrayRef = Arc::new(Date32Array::from(vec![d as i32]));
                let result = evaluate(
                    vec![Expr::input(0).cast(T::Timestamp(p))],
                    &[T::Date],
                    vec![column],
                );
                judge(
                    format!("CAST(DATE {d} AS TIMESTAMP({p}))"),
                    result,
                    writable(want, p).then_some(want),
                );
            }
            1 => {
                // Widening only: a finer precision keeps the instant.
                let q = *rng.pick(&[0u8, 3, 6]);
                let p = p.max(q);
                let unit = match q {
                    0 => 1_000_000_000,
                    3 => 1_000_000,
                    _ => 1_000,
                };
                let n = i128::from(date(&mut rng)) * NANOS_PER_DAY
                    + i128::from(rng.within(0, 86_399_999_999_999));
                let n = n - n.rem_euclid(unit);
                let result = evaluate(
                    vec![Expr::input(0).cast(T::Timestamp(p))],
                    &[T::Timestamp(q)],
                    vec![timestamp_column(q, n)],
                );
                judge(
                    format!("CAST(TIMESTAMP({q}) {n} ns AS TIMESTAMP({p}))"),
                    result,
                    writable(n, p).then_some(n),
                );
            }
            2 => {
                let (unit, per) = *rng.pick(&[
                    ("SECOND", 1_000_000_000i128),
                    ("MINUTE", 60_000_000_000),
                    ("HOUR", 3_600_000_000_000),
                    ("DAY", NANOS_PER_DAY),
                    ("WEEK", 7 * NANOS_PER_DAY),
                ]);
                let q = *rng.pick(&[3u8, 9]);
                let x = if q == 9 {
                    if rng.chance(2) {
                        i128::from(*rng.pick(&[i64::MIN, i64::MAX, 0, -1]))
                    } else {
                        i128::from(rng.next() as i64)
                    }
                } else {
                    i128::from(date(&mut rng)) * NANOS_PER_DAY
                        + i128::from(rng.within(0, 86_399_999)) * 1_000_000
                };
                let k = count(&mut rng);
                let want = x + i128::from(k) * per;
                let result = evaluate(
                    vec![Expr::call(
                        temporal::TIMESTAMPADD,
                        vec![unit_literal(unit), Expr::input(0), Expr::input(1)],
                    )],
                    &[T::Int, T::Timestamp(q)],
                    vec![
                        Arc::new(Int32Array::from(vec![k as i32])),
                        timestamp_column(q, x),
                    ],
                );
                judge(
                    format!("TIMESTAMPADD({unit}, {k}, TIMESTAMP({q}) {x} ns)"),
                    result,
                    writable(want, q).then_some(want),
                );
            }
            _ => {
                let (unit, days) = *rng.pick(&[("DAY", 1i128), ("WEEK", 7)]);
                let d = date(&mut rng);
                let k = count(&mut rng);
                let want = i128::from(d) + i128::from(k) * days;
                let result = evaluate(
                    vec![Expr::call(
                        temporal::TIMESTAMPADD,
                        vec![unit_literal(unit), Expr::input(0), Expr::input(1)],
                    )],
                    &[T::Int, T::Date],
                    vec![
                        Arc::new(Int32Array::from(vec![k as i32])),
                        Arc::new(Date32Array::from(vec![d as i32])),
                    ],
                );
                let ok = (i128::from(date_lo)..=i128::from(date_hi)).contains(&want);
                judge(
                    format!("TIMESTAMPADD({unit}, {k}, DATE {d})"),
                    result,
                    ok.then_some(want),
                );
            }
        }
    }
    assert!(
        exact > 500 && refused > 500,
        "{exact} exact, {refused} refused"
    );
}

// ---------------------------------------------------------------------------------------------
// The property: no registered function (nor a cast) writes a DATE, TIME or TIMESTAMP outside
// its range, whatever its arguments.

/// A seeded SplitMix64 stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        splitmix64(self.0)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    fn pick<'a, V>(&mut self, values: &'a [V]) -> &'a V {
        &values[self.below(values.len())]
    }

    /// A value in `lo..=hi`.
    fn within(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (i128::from(hi) - i128::from(lo) + 1) as u128;
        (i128::from(lo) + (u128::from(self.next()) % span) as i128) as i64
    }
}

fn string() -> T {
    T::VarChar(i32::MAX as u32)
}

/// The argument types tried: every scalar family, and arrays of temporal values.
fn types() -> Vec<T> {
    vec![
        T::Boolean,
        T::TinyInt,
        T::SmallInt,
        T::Int,
        T::BigInt,
        T::Float,
        T::Double,
        T::Decimal {
            precision: 10,
            scale: 2,
        },
        T::Decimal {
            precision: 38,
            scale: 0,
        },
        string(),
        T::Char(4),
        T::VarBinary(i32::MAX as u32),
        T::Date,
        T::Time(0),
        T::Time(3),
        T::Timestamp(0),
        T::Timestamp(3),
        T::Timestamp(6),
        T::Timestamp(9),
        T::TimestampLtz(3),
        T::TimestampLtz(9),
        T::IntervalYearMonth,
        T::IntervalDayTime,
        T::Array(Box::new(T::Int)),
        T::Array(Box::new(string())),
        T::Array(Box::new(T::Date)),
        T::Array(Box::new(T::Timestamp(9))),
    ]
}

const UNITS: &[&str] = &[
    "YEAR",
    "QUARTER",
    "MONTH",
    "WEEK",
    "DAY",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MILLISECOND",
    "MICROSECOND",
    "NANOSECOND",
    "DECADE",
    "CENTURY",
    "MILLENNIUM",
    "EPOCH",
    "DOW",
    "DOY",
    "ISODOW",
    "ISOYEAR",
];

const TEXTS: &[&str] = &[
    "0000-01-01",
    "0001-01-01 00:00:00.000000001",
    "9999-12-31",
    "9999-12-31 23:59:59.999999999",
    "1969-12-31 12:30:45.123",
    "1677-09-21 00:12:43.145224191",
    "2262-04-11 23:47:16.854775808",
    "2024-02-29 12:34:56.123456789",
    "12:34:56",
    "23:59:59.999",
    "abc",
    "",
    "yyyy-MM-dd",
    "yyyy-MM-dd HH:mm:ss",
    "UTF-8",
    "1",
    "-2147483648",
    "{\"a\":1}",
    // JSON_OBJECT/JSON_ARRAY layouts (the NULL clause, then one letter per value).
    "N",
    "Av",
    "Nvv",
];

/// A literal of some type, as program text: unit names (a quarter of the draws, since the
/// temporal functions need one), strings, and extremes of the other types.
fn literal(rng: &mut Rng) -> Expr {
    if rng.chance(4) {
        return Expr::lit(string(), *rng.pick(UNITS));
    }
    let (ty, texts): (T, &[&str]) = match rng.below(12) {
        0..=2 => (string(), TEXTS),
        3 => (
            T::Int,
            &[
                "0",
                "1",
                "-1",
                "3",
                "8000",
                "256",
                "2147483647",
                "-2147483648",
                "306783379",
                "613566757",
            ],
        ),
        4 => (
            T::BigInt,
            &[
                "0",
                "-1",
                "9223372036854775807",
                "-9223372036854775808",
                "253402300800",
                "-62167219201",
            ],
        ),
        5 => (T::Double, &["0.0", "-1.5", "1.0E300", "-1.0E300"]),
        6 => (
            T::Decimal {
                precision: 10,
                scale: 2,
            },
            &["0.00", "1.50", "-99999999.99"],
        ),
        7 => (T::Boolean, &["true", "false"]),
        8 => (
            T::Date,
            &["0000-01-01", "9999-12-31", "1970-01-01", "1677-09-21"],
        ),
        9 => (T::Time(0), &["00:00:00", "23:59:59"]),
        10 => (
            T::Timestamp(3),
            &[
                "0000-01-01 00:00:00",
                "9999-12-31 23:59:59.999",
                "1969-12-31 12:30:45",
            ],
        ),
        _ => (
            T::Timestamp(9),
            &[
                "1677-09-21 00:12:43.145224192",
                "2262-04-11 23:47:16.854775807",
                "1969-12-31 23:59:59.999999999",
            ],
        ),
    };
    Expr::lit(ty, *rng.pick(texts))
}

/// `n` values of `ty`, NULLs and extremes included, inside Flink's ranges.
fn column(rng: &mut Rng, ty: &T, n: usize) -> ArrayRef {
    let (date_lo, date_hi) = date_range();
    let (ts_lo, ts_hi) = timestamp_range();
    let (ms_lo, ms_hi) = ((ts_lo / 1_000_000) as i64, (ts_hi / 1_000_000) as i64);
    let null = |rng: &mut Rng| rng.chance(8);
    // `n` values of `$gen` (about one in eight NULL) as `$array`, finished by `$finish`.
    macro_rules! values {
        ($array:ty, $gen:expr) => {
            values!($array, $gen, |v: $array| v)
        };
        ($array:ty, $gen:expr, $finish:expr) => {{
            let v: $array = (0..n)
                .map(|_| {
                    if null(rng) {
                        None
                    } else {
                        Some(($gen)(&mut *rng))
                    }
                })
                .collect();
            Arc::new(($finish)(v)) as ArrayRef
        }};
    }
    let ints = |rng: &mut Rng, lo: i64, hi: i64| {
        let v = if rng.chance(2) {
            *rng.pick(&[lo, hi, 0, 1, -1, 7, 8000, -3000, 1_000_000, 306_783_379])
        } else {
            rng.within(lo, hi)
        };
        v.clamp(lo, hi)
    };
    // A precision's unit in the array's own unit.
    let truncate = |v: i64, step: i64| v - v.rem_euclid(step);
    match ty {
        T::Boolean => values!(BooleanArray, |r: &mut Rng| r.chance(2)),
        T::TinyInt => values!(Int8Array, |r: &mut Rng| ints(r, -128, 127) as i8),
        T::SmallInt => values!(Int16Array, |r: &mut Rng| ints(r, -32768, 32767) as i16),
        T::Int => values!(
            Int32Array,
            |r: &mut Rng| ints(r, i32::MIN.into(), i32::MAX.into()) as i32
        ),
        T::BigInt => values!(Int64Array, |r: &mut Rng| if r.chance(3) {
            *r.pick(&[253_402_300_799, -62_167_219_200, 253_402_300_799_999])
        } else {
            ints(r, i64::MIN, i64::MAX)
        }),
        T::Float => values!(Float32Array, |r: &mut Rng| *r.pick(&[
            f32::NAN,
            f32::INFINITY,
            -0.0,
            1.5,
            -3.4e38,
            1e10
        ])),
        T::Double => values!(Float64Array, |r: &mut Rng| *r.pick(&[
            f64::NAN,
            f64::NEG_INFINITY,
            -0.0,
            1.5,
            1e300,
            -1.7e9,
            2.534e11
        ])),
        T::Decimal { precision, scale } => {
            let max = 10i128.pow(u32::from(*precision)) - 1;
            let v: Decimal128Array = (0..n)
                .map(|_| {
                    (!null(rng)).then(|| {
                        if rng.chance(2) {
                            *rng.pick(&[max, -max, 0, 150])
                        } else {
                            i128::from(rng.next() as i64) % max
                        }
                    })
                })
                .collect();
            Arc::new(
                v.with_precision_and_scale(*precision, *scale as i8)
                    .unwrap(),
            )
        }
        T::VarChar(_) | T::Char(_) => {
            let v: StringArray = (0..n)
                .map(|_| {
                    (!null(rng)).then(|| {
                        let s = if rng.chance(3) {
                            rng.pick(UNITS)
                        } else {
                            rng.pick(TEXTS)
                        };
                        match ty {
                            T::Char(k) => format!("{s:<w$.w$}", w = *k as usize),
                            _ => s.to_string(),
                        }
                    })
                })
                .collect();
            Arc::new(v)
        }
        T::VarBinary(_) => {
            let v: BinaryArray = (0..n)
                .map(|_| (!null(rng)).then(|| rng.next().to_le_bytes()[..rng.below(9)].to_vec()))
                .collect();
            Arc::new(v)
        }
        T::Date => values!(Date32Array, |r: &mut Rng| ints(r, date_lo, date_hi) as i32),
        T::IntervalYearMonth => values!(IntervalYearMonthArray, |r: &mut Rng| ints(
            r,
            i32::MIN.into(),
            i32::MAX.into()
        ) as i32),
        T::IntervalDayTime => values!(DurationMillisecondArray, |r: &mut Rng| if r.chance(3) {
            *r.pick(&[MILLIS_PER_DAY, -MILLIS_PER_DAY, 604_800_000, 1])
        } else {
            ints(r, i64::MIN, i64::MAX)
        }),
        T::Time(p) => {
            let step = 10i64.pow(3 - u32::from((*p).min(3)));
            values!(Time32MillisecondArray, |r: &mut Rng| truncate(
                ints(r, 0, MILLIS_PER_DAY - 1),
                step
            ) as i32)
        }
        T::Timestamp(p) | T::TimestampLtz(p) => {
            let tz = matches!(ty, T::TimestampLtz(_)).then_some("UTC");
            macro_rules! timestamps {
                ($array:ty, $gen:expr) => {
                    values!($array, $gen, |v: $array| v.with_timezone_opt(tz))
                };
            }
            match p {
                0..=3 => {
                    let step = 10i64.pow(3 - u32::from(*p));
                    timestamps!(TimestampMillisecondArray, |r: &mut Rng| truncate(
                        ints(r, ms_lo, ms_hi),
                        step
                    ))
                }
                4..=6 => timestamps!(TimestampMicrosecondArray, |r: &mut Rng| ints(
                    r,
                    ms_lo * 1000,
                    ms_hi * 1000 + 999
                )),
                _ => timestamps!(TimestampNanosecondArray, |r: &mut Rng| ints(
                    r,
                    i64::MIN,
                    i64::MAX
                )),
            }
        }
        T::Array(element) => {
            let field = Arc::new(Field::new("element", element.to_arrow(), true));
            match element.as_ref() {
                T::Int => list(rng, n, Int32Builder::new(), field, |r, b| {
                    let v = (!r.chance(6)).then(|| ints(r, i32::MIN.into(), i32::MAX.into()));
                    b.append_option(v.map(|v| v as i32))
                }),
                T::VarChar(_) => list(rng, n, StringBuilder::new(), field, |r, b| {
                    let v = (!r.chance(6)).then(|| *r.pick(TEXTS));
                    b.append_option(v)
                }),
                T::Date => list(rng, n, Date32Builder::new(), field, |r, b| {
                    let v = (!r.chance(6)).then(|| ints(r, date_lo, date_hi));
                    b.append_option(v.map(|v| v as i32))
                }),
                _ => list(rng, n, TimestampNanosecondBuilder::new(), field, |r, b| {
                    let v = (!r.chance(6)).then(|| ints(r, i64::MIN, i64::MAX));
                    b.append_option(v)
                }),
            }
        }
        other => panic!("no generator for {other}"),
    }
}

/// `n` lists of up to three elements each, `push` writing one element.
fn list<B: arrow::array::ArrayBuilder>(
    rng: &mut Rng,
    n: usize,
    values: B,
    field: Arc<Field>,
    mut push: impl FnMut(&mut Rng, &mut B),
) -> ArrayRef {
    let mut b = ListBuilder::new(values).with_field(field);
    for _ in 0..n {
        if rng.chance(8) {
            b.append_null();
            continue;
        }
        for _ in 0..rng.below(4) {
            push(rng, b.values());
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

/// Where `array` (and any array nested in it) holds a DATE, TIME or TIMESTAMP outside its
/// range: the first such value, described.
fn out_of_range_value(array: &dyn Array) -> Option<String> {
    let (date_lo, date_hi) = date_range();
    let (ts_lo, ts_hi) = timestamp_range();
    let check = |n: i128, unit: i128| (ts_lo..=ts_hi).contains(&(n * unit));
    let first = |bad: &mut dyn Iterator<Item = Option<String>>| bad.flatten().next();
    match array.data_type() {
        DataType::Date32 => first(&mut array.as_primitive::<Date32Type>().iter().map(|v| {
            v.filter(|d| !(date_lo..=date_hi).contains(&i64::from(*d)))
                .map(|d| format!("DATE of {d} days"))
        })),
        DataType::Time32(TimeUnit::Millisecond) => first(
            &mut array
                .as_primitive::<Time32MillisecondType>()
                .iter()
                .map(|v| {
                    v.filter(|t| !(0..86_400_000).contains(t))
                        .map(|t| format!("TIME of {t} ms"))
                }),
        ),
        DataType::Timestamp(unit, _) => {
            let (values, per): (Vec<Option<i64>>, i128) = match unit {
                TimeUnit::Millisecond => (
                    array
                        .as_primitive::<TimestampMillisecondType>()
                        .iter()
                        .collect(),
                    1_000_000,
                ),
                TimeUnit::Microsecond => (
                    array
                        .as_primitive::<TimestampMicrosecondType>()
                        .iter()
                        .collect(),
                    1_000,
                ),
                TimeUnit::Nanosecond => (
                    array
                        .as_primitive::<TimestampNanosecondType>()
                        .iter()
                        .collect(),
                    1,
                ),
                TimeUnit::Second => return Some("a second-unit timestamp".into()),
            };
            first(&mut values.into_iter().map(|v| {
                v.filter(|n| !check(i128::from(*n), per))
                    .map(|n| format!("TIMESTAMP of {n} ({unit:?})"))
            }))
        }
        DataType::List(_) => {
            let list = array.as_list::<i32>();
            (0..list.len())
                .filter(|&i| list.is_valid(i))
                .find_map(|i| out_of_range_value(list.value(i).as_ref()))
        }
        DataType::Struct(_) => array
            .as_struct()
            .columns()
            .iter()
            .find_map(|c| out_of_range_value(c.as_ref())),
        DataType::Map(_, _) => out_of_range_value(array.as_map().entries()),
        _ => None,
    }
}

/// Whether values of `ty` are or contain DATE, TIME or TIMESTAMP values.
fn holds_temporal(ty: &T) -> bool {
    match ty {
        T::Date | T::Time(_) | T::Timestamp(_) | T::TimestampLtz(_) => true,
        T::Array(e) => holds_temporal(e),
        T::Map(k, v) => holds_temporal(k) || holds_temporal(v),
        T::Row(fields) => fields.iter().any(|f| holds_temporal(&f.ty)),
        _ => false,
    }
}

/// What the property saw of one callee.
#[derive(Debug, Default)]
struct Seen {
    compiled: usize,
    evaluated_rows: usize,
    temporal_values: usize,
    out_of_range_errors: usize,
}

/// The constructors a nested argument calls half the time (the other functions' containers
/// come from them); the other half calls a temporal function.
const CONSTRUCTORS: &[&str] = &["ARRAY", "MAP", "ROW"];

/// A call of `op` with random arguments, `depth` levels of nested calls at most.
fn call(rng: &mut Rng, op: u16, types: &[T], input: &mut Vec<T>, depth: usize) -> Expr {
    let def = registry().get(op).expect("a registered opcode");
    let n = match def.arity {
        Arity::Exact(k) => k,
        Arity::Range(lo, hi) => lo + rng.below(hi - lo + 1),
        Arity::AtLeast(lo) => lo + rng.below(3),
    };
    let args = (0..n).map(|_| argument(rng, types, input, depth)).collect();
    Expr::call(op, args)
}

/// One argument: a column (of a fresh type), a literal, a cast of a column, or (while `depth`
/// allows) a nested call.
fn argument(rng: &mut Rng, types: &[T], input: &mut Vec<T>, depth: usize) -> Expr {
    if depth > 0 && rng.chance(6) {
        let op = if rng.chance(2) {
            let constructor: &&str = rng.pick(CONSTRUCTORS);
            registry().by_name(constructor).expect("registered").opcode
        } else {
            let temporal: Vec<u16> = registry()
                .functions()
                .iter()
                .map(|d| d.opcode)
                .filter(|op| (600..700).contains(op))
                .collect();
            *rng.pick(&temporal)
        };
        return call(rng, op, types, input, depth - 1);
    }
    if rng.chance(2) {
        return literal(rng);
    }
    input.push(rng.pick(types).clone());
    let column = Expr::input(input.len() - 1);
    if rng.chance(8) {
        let to = rng.pick(types).clone();
        if rng.chance(2) {
            column.cast(to)
        } else {
            column.try_cast(to)
        }
    } else {
        column
    }
}

/// Evaluates `program` (compiled as `compiled`) over 8 random rows of `input`, then row by row
/// if the batch fails (one row's error fails the batch): every value written must be in range,
/// every failure a typed evaluation error. Problems are pushed to `problems`.
fn check(
    rng: &mut Rng,
    program: &CalcProgram,
    compiled: &CompiledCalc,
    input: &[T],
    seen: &mut Seen,
    problems: &mut Vec<String>,
) {
    let rows = 8;
    let columns: Vec<ArrayRef> = input.iter().map(|t| column(rng, t, rows)).collect();
    let fields: Vec<Field> = input
        .iter()
        .zip(&columns)
        .enumerate()
        .map(|(i, (_, c))| Field::new(format!("f{i}"), c.data_type().clone(), true))
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new_with_options(
        Arc::clone(&schema),
        columns,
        &arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .unwrap();
    let mut judge = |batch: &RecordBatch, problems: &mut Vec<String>| -> bool {
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            compiled.evaluate(&ChangelogBatch::insert_only(batch.clone()))
        }));
        match run {
            Err(_) => {
                problems.push(format!("{}: panicked on {batch:?}", program.to_json()));
                true
            }
            Ok(Ok(out)) => {
                seen.evaluated_rows += batch.num_rows();
                let column = out.batch().column(0);
                if matches!(
                    column.data_type(),
                    DataType::Date32 | DataType::Time32(_) | DataType::Timestamp(..)
                ) {
                    seen.temporal_values += column.len() - column.null_count();
                }
                if let Some(bad) = out_of_range_value(column.as_ref()) {
                    problems.push(format!("{}: wrote {bad} from {batch:?}", program.to_json()));
                }
                true
            }
            Ok(Err(e)) => {
                if e.is_out_of_range() {
                    seen.out_of_range_errors += 1;
                } else if !matches!(e, CalcError::Evaluation { .. }) {
                    problems.push(format!("{}: untyped failure {e:?}", program.to_json()));
                }
                false
            }
        }
    };
    if !judge(&batch, problems) && rows > 1 {
        for r in 0..rows {
            judge(&batch.slice(r, 1), problems);
        }
    }
}

#[test]
fn no_registered_function_or_cast_writes_a_temporal_value_out_of_range() {
    let types = types();
    let mut rng = Rng(0x0023_7E3F_0A11_0023);
    let mut problems = Vec::new();
    let mut by_function = std::collections::BTreeMap::new();
    // Calls that compile are rare among random ones (a unit literal here, an INT there), so
    // each function's calls are searched for first, then each found one evaluated many times.
    for def in registry().functions() {
        let seen: &mut Seen = by_function.entry(def.name).or_default();
        let mut found = 0;
        for _ in 0..30_000 {
            let mut input = Vec::new();
            let program =
                CalcProgram::project(vec![call(&mut rng, def.opcode, &types, &mut input, 1)]);
            let Ok(compiled) = compile(&program, &input) else {
                continue;
            };
            seen.compiled += 1;
            found += 1;
            // Only results that hold temporal values are the property's (and other functions
            // at their extremes, such as LPAD to 2147483647 characters, take gigabytes).
            if holds_temporal(&compiled.output_types()[0]) {
                for _ in 0..12 {
                    check(&mut rng, &program, &compiled, &input, seen, &mut problems);
                }
            }
            if found == 24 {
                break;
            }
        }
    }
    let casts: &mut Seen = by_function.entry("CAST").or_default();
    for from in &types {
        for to in &types {
            for try_cast in [false, true] {
                let e = Expr::input(0);
                let e = if try_cast {
                    e.try_cast(to.clone())
                } else {
                    e.cast(to.clone())
                };
                let program = CalcProgram::project(vec![e]);
                let input = std::slice::from_ref(from);
                let Ok(compiled) = compile(&program, input) else {
                    continue;
                };
                casts.compiled += 1;
                if !holds_temporal(to) {
                    continue;
                }
                for _ in 0..8 {
                    check(&mut rng, &program, &compiled, input, casts, &mut problems);
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems, first 20:\n{}",
        problems.len(),
        problems[..problems.len().min(20)].join("\n")
    );
    // The search reached the functions that compute temporal values, and their edges.
    for name in [
        "TIMESTAMPADD",
        "FLOOR_TO",
        "CEIL_TO",
        "TO_DATE",
        "TO_TIMESTAMP",
        "TO_TIMESTAMP_LTZ",
        "CAST",
    ] {
        let seen = &by_function[name];
        assert!(
            seen.temporal_values > 0,
            "{name} wrote no temporal value: {seen:?}"
        );
    }
    for name in ["TIMESTAMPADD", "CEIL_TO", "FLOOR_TO", "CAST"] {
        let seen = &by_function[name];
        assert!(
            seen.out_of_range_errors > 0,
            "{name} never reached its range's edge: {seen:?}"
        );
    }
    let never: Vec<&str> = by_function
        .iter()
        .filter(|(_, s)| s.compiled == 0)
        .map(|(n, _)| *n)
        .collect();
    assert!(
        never.is_empty(),
        "never compiled with random arguments: {never:?}"
    );
}
