//! CAST and TRY_CAST with Flink's rules (`*CastRule` in flink-table-planner, helpers in
//! `BinaryStringDataUtil`, `DecimalDataUtils` and `DateTimeUtils`), and the implicit casts of
//! call coercion.
//!
//! Arrow's `cast` kernel is used only where its result equals Flink's for every input (exact
//! widening); everything else is a row-wise Flink-semantics kernel. A value Flink's cast
//! rejects (a bad string, NaN to DECIMAL, ...) fails the evaluation under [`OnError::Fail`]
//! with Java's message and gives NULL under [`OnError::Null`]; DECIMAL overflow is NULL
//! either way, as in Flink. A DATE, TIME or TIMESTAMP result outside its type's range or
//! carrier ([`super::range`]) fails the evaluation under every [`OnError`]: Flink computes a
//! value there, so NULL would be a wrong value.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder,
    Float32Builder, Float64Builder, Int8Builder, Int16Builder, Int32Builder, Int64Builder,
    StringBuilder, Time32MillisecondBuilder, TimestampMicrosecondBuilder,
    TimestampMillisecondBuilder, TimestampNanosecondBuilder,
};
use arrow::datatypes::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use chrono::{NaiveDate, NaiveTime, Timelike};
use datafusion::common::config::ConfigOptions;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::logical_expr::ColumnarValue;
use datafusion::physical_expr::expressions::CastExpr;
use datafusion::physical_expr::{PhysicalExpr, ScalarFunctionExpr};

use crate::types::LogicalType;

use super::coercion::{integer_as_decimal, is_integer, is_string};
use super::functions::java_format;
use super::functions::temporal::parse_default_timestamp;
use super::functions::temporal_calendar::{parse_date, parse_time};
use super::functions::temporal_values::Zone;
use super::range;
use super::registry::Kernel;

/// What a failing cast does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    /// Fail the evaluation (`CAST` with `table.exec.legacy-cast-behaviour` disabled).
    Fail,
    /// Give NULL (`TRY_CAST`).
    Null,
    /// `CAST` under `table.exec.legacy-cast-behaviour`: NULL where a string does not parse
    /// (the rules Flink wraps in a try/catch), but other failures, such as NaN to DECIMAL,
    /// still fail the job as they do in Flink.
    Legacy,
}

/// `input` (of type `from`) cast to `to`, or why Flink does not support that cast.
pub fn cast(
    input: Arc<dyn PhysicalExpr>,
    from: &LogicalType,
    to: &LogicalType,
    on_error: OnError,
    time_zone: &str,
) -> Result<Arc<dyn PhysicalExpr>, String> {
    if from == to || (is_string(from) && matches!(to, LogicalType::VarChar(_)) && fits(from, to)) {
        return Ok(input);
    }
    if binary_fits(from, to) {
        return Ok(input);
    }
    if is_exact_widening(from, to) || integer_text_fits(from, to) {
        return Ok(Arc::new(CastExpr::new(input, to.to_arrow(), None)));
    }
    if !supported(from, to) {
        return Err(format!("CAST from {from} to {to} is not supported"));
    }
    let ltz = |t: &LogicalType| matches!(t, LogicalType::TimestampLtz(_));
    let zone = if ltz(from) || ltz(to) {
        Zone::parse(time_zone)?
    } else {
        Zone::utc()
    };
    let (f, t) = (from.clone(), to.clone());
    let kernel = Kernel::function(format!("CAST_{to}"), to, move |args, rows| {
        let array = args
            .first()
            .ok_or_else(|| DataFusionError::Execution("CAST takes one argument".into()))?
            .to_array(rows)?;
        let out = cast_array(&array, &f, &t, on_error, zone)?;
        Ok(match &args[0] {
            ColumnarValue::Scalar(_) if out.len() == 1 => {
                ColumnarValue::Scalar(datafusion::common::ScalarValue::try_from_array(&out, 0)?)
            }
            _ => ColumnarValue::Array(out),
        })
    });
    let Kernel::Function(udf) = kernel else {
        return Err("internal: CAST kernel is not a function".into());
    };
    let name = udf.name().to_owned();
    Ok(Arc::new(ScalarFunctionExpr::new(
        &name,
        udf,
        vec![input],
        Arc::new(arrow::datatypes::Field::new("cast", to.to_arrow(), true)),
        Arc::new(ConfigOptions::default()),
    )))
}

/// Whether a string of type `from` always fits `to` without truncation or padding.
fn fits(from: &LogicalType, to: &LogicalType) -> bool {
    match (from, to) {
        (LogicalType::Char(n) | LogicalType::VarChar(n), LogicalType::VarChar(m)) => n <= m,
        _ => false,
    }
}

/// Casts whose Arrow result is exactly Flink's: integer to a wider integer, FLOAT or DOUBLE,
/// or a DECIMAL holding all its digits; FLOAT to DOUBLE; DECIMAL to a DECIMAL with at least
/// as many integer and fractional digits.
fn is_exact_widening(from: &LogicalType, to: &LogicalType) -> bool {
    use LogicalType::*;
    let rank = |t: &LogicalType| match t {
        TinyInt => 1,
        SmallInt => 2,
        Int => 3,
        BigInt => 4,
        _ => 0,
    };
    match (from, to) {
        (f, t) if is_integer(f) && is_integer(t) => rank(f) <= rank(t),
        (f, Float | Double) if is_integer(f) => true,
        (Float, Double) => true,
        (f, Decimal { precision, scale }) if is_integer(f) || matches!(f, Decimal { .. }) => {
            integer_as_decimal(f).is_some_and(|(p, s)| s <= *scale && p - s <= precision - scale)
        }
        _ => false,
    }
}

/// Whether every value of integer type `from` prints whole into `to`, a VARCHAR (a CHAR
/// pads): then Arrow's cast kernel is Flink's cast, since Arrow prints an integer as Java's
/// `Long.toString` does (decimal digits, `-` before a negative one).
fn integer_text_fits(from: &LogicalType, to: &LogicalType) -> bool {
    use LogicalType::*;
    // The longest text of each type's values, sign included.
    let longest = match from {
        TinyInt => 4,
        SmallInt => 6,
        Int => 11,
        BigInt => 20,
        _ => return false,
    };
    matches!(to, VarChar(n) if *n >= longest)
}

/// Whether Flink coerces `from` to `to` implicitly in a call (a lossless widening).
pub fn is_implicit(from: &LogicalType, to: &LogicalType) -> bool {
    use LogicalType::{Decimal, Double, Float};
    from == to
        || timestamp_widening(from, to).is_some_and(|q| q <= 6)
        || is_exact_widening(from, to)
        || (is_string(from) && fits(from, to))
        || binary_fits(from, to)
        // Arithmetic and comparisons of a DECIMAL with an approximate number compute in it,
        // and FLOAT with DOUBLE in the first operand's type (Calcite's leastRestrictive).
        || matches!((from, to), (Decimal { .. }, Float | Double) | (Double, Float))
}

/// The precision a TIMESTAMP (or TIMESTAMP_LTZ) of `from` widens to in `to`, if `to` is the
/// same kind with at least its precision. Up to 6 the carrier (milliseconds or microseconds)
/// holds every value; a widening to 7..=9 (nanoseconds) is exact but not always in range.
pub fn timestamp_widening(from: &LogicalType, to: &LogicalType) -> Option<u8> {
    use LogicalType::{Timestamp, TimestampLtz};
    match (from, to) {
        (Timestamp(p), Timestamp(q)) | (TimestampLtz(p), TimestampLtz(q)) if p <= q => Some(*q),
        _ => None,
    }
}

/// The families a cast kernel distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Boolean,
    Integer,
    Approximate,
    Decimal,
    String,
    Binary,
    Date,
    Time,
    Timestamp,
    TimestampLtz,
    Other,
}

fn family(t: &LogicalType) -> Family {
    use LogicalType::*;
    match t {
        Boolean => Family::Boolean,
        TinyInt | SmallInt | Int | BigInt => Family::Integer,
        Float | Double => Family::Approximate,
        Decimal { .. } => Family::Decimal,
        Char(_) | VarChar(_) => Family::String,
        Binary(_) | VarBinary(_) => Family::Binary,
        Date => Family::Date,
        Time(_) => Family::Time,
        Timestamp(_) => Family::Timestamp,
        TimestampLtz(_) => Family::TimestampLtz,
        _ => Family::Other,
    }
}

/// The casts implemented here (a subset of Flink's `CastRuleProvider`). Intervals and ROW are
/// not (yet) supported. TIMESTAMP_LTZ converts in the session time zone by `java.time`'s rules
/// (`DateTimeUtils.timestampToTimestampWithLocalZone` and its siblings).
fn supported(from: &LogicalType, to: &LogicalType) -> bool {
    use Family::*;
    let numeric = |f| matches!(f, Integer | Approximate | Decimal);
    let (f, t) = (family(from), family(to));
    match (f, t) {
        (a, b) if (numeric(a) || a == Boolean) && (numeric(b) || b == Boolean) => true,
        (Boolean | Integer | Approximate | Decimal | Date | Time | Timestamp, String) => true,
        (
            String,
            Boolean | Integer | Approximate | Decimal | Date | Time | Timestamp | String | Binary,
        ) => true,
        (Binary, Binary | String) => true,
        (Date | Time, Timestamp) | (Timestamp, Date | Time | Timestamp) | (Time, Time) => true,
        (TimestampLtz, String | Date | Time | Timestamp | TimestampLtz)
        | (String | Date | Time | Timestamp, TimestampLtz) => true,
        _ => false,
    }
}

/// One value on its way through a cast.
#[derive(Debug, Clone, PartialEq)]
enum Val {
    Bool(bool),
    Int(i64),
    F32(f32),
    F64(f64),
    /// Unscaled value at the source or target type's scale.
    Dec(i128),
    Str(String),
    Bin(Vec<u8>),
    /// Days since the epoch.
    Date(i32),
    /// Milliseconds of the day.
    Time(i32),
    /// Flink's `TimestampData`: epoch milliseconds (floor) and nanoseconds of that millisecond.
    Ts(i64, i32),
}

fn cast_array(
    array: &ArrayRef,
    from: &LogicalType,
    to: &LogicalType,
    on_error: OnError,
    zone: Zone,
) -> DfResult<ArrayRef> {
    if family(from) == Family::Binary && family(to) == Family::Binary {
        return cast_binary_array(array, to);
    }
    let mut out = Vec::with_capacity(array.len());
    for i in 0..array.len() {
        if array.is_null(i) {
            out.push(None);
            continue;
        }
        let v = read(array, from, i)?;
        match convert(v, from, to, zone) {
            Ok(v) => out.push(v),
            Err(message) => match on_error {
                OnError::Null => out.push(None),
                OnError::Legacy if is_string(from) => out.push(None),
                OnError::Fail | OnError::Legacy => {
                    return Err(DataFusionError::Execution(message));
                }
            },
        }
    }
    write(out, to)
}

fn internal(what: &str) -> DataFusionError {
    DataFusionError::Internal(format!("CAST: unexpected {what}"))
}

fn read(a: &ArrayRef, ty: &LogicalType, i: usize) -> DfResult<Val> {
    use LogicalType as T;
    Ok(match ty {
        T::Boolean => Val::Bool(
            a.as_boolean_opt()
                .ok_or_else(|| internal("array"))?
                .value(i),
        ),
        T::TinyInt => Val::Int(
            a.as_primitive_opt::<Int8Type>()
                .ok_or_else(|| internal("array"))?
                .value(i)
                .into(),
        ),
        T::SmallInt => Val::Int(
            a.as_primitive_opt::<Int16Type>()
                .ok_or_else(|| internal("array"))?
                .value(i)
                .into(),
        ),
        T::Int => Val::Int(
            a.as_primitive_opt::<Int32Type>()
                .ok_or_else(|| internal("array"))?
                .value(i)
                .into(),
        ),
        T::BigInt => Val::Int(
            a.as_primitive_opt::<Int64Type>()
                .ok_or_else(|| internal("array"))?
                .value(i),
        ),
        T::Float => Val::F32(
            a.as_primitive_opt::<Float32Type>()
                .ok_or_else(|| internal("array"))?
                .value(i),
        ),
        T::Double => Val::F64(
            a.as_primitive_opt::<Float64Type>()
                .ok_or_else(|| internal("array"))?
                .value(i),
        ),
        T::Decimal { .. } => Val::Dec(
            a.as_primitive_opt::<Decimal128Type>()
                .ok_or_else(|| internal("array"))?
                .value(i),
        ),
        T::Char(_) | T::VarChar(_) => Val::Str(
            a.as_string_opt::<i32>()
                .ok_or_else(|| internal("array"))?
                .value(i)
                .to_owned(),
        ),
        T::Binary(_) | T::VarBinary(_) => Val::Bin(
            a.as_binary_opt::<i32>()
                .ok_or_else(|| internal("array"))?
                .value(i)
                .to_vec(),
        ),
        T::Date => Val::Date(
            a.as_primitive_opt::<Date32Type>()
                .ok_or_else(|| internal("array"))?
                .value(i),
        ),
        T::Time(_) => Val::Time(
            a.as_primitive_opt::<Time32MillisecondType>()
                .ok_or_else(|| internal("array"))?
                .value(i),
        ),
        T::Timestamp(p) | T::TimestampLtz(p) => match p {
            0..=3 => Val::Ts(
                a.as_primitive_opt::<TimestampMillisecondType>()
                    .ok_or_else(|| internal("array"))?
                    .value(i),
                0,
            ),
            4..=6 => {
                let us = a
                    .as_primitive_opt::<TimestampMicrosecondType>()
                    .ok_or_else(|| internal("array"))?
                    .value(i);
                Val::Ts(us.div_euclid(1000), (us.rem_euclid(1000) * 1000) as i32)
            }
            _ => {
                let ns = a
                    .as_primitive_opt::<TimestampNanosecondType>()
                    .ok_or_else(|| internal("array"))?
                    .value(i);
                Val::Ts(ns.div_euclid(1_000_000), ns.rem_euclid(1_000_000) as i32)
            }
        },
        other => return Err(internal(&format!("source type {other}"))),
    })
}

/// The values as an array of `ty`; a temporal value outside its range or carrier is an
/// [`range::OutOfRange`] error.
fn write(values: Vec<Option<Val>>, ty: &LogicalType) -> DfResult<ArrayRef> {
    use LogicalType as T;
    let n = values.len();
    macro_rules! build {
        ($builder:expr, $pat:pat => $v:expr) => {{
            let mut b = $builder;
            for v in values {
                match v {
                    None => b.append_null(),
                    Some($pat) => b.append_value($v),
                    Some(_) => return Err(internal("value")),
                }
            }
            Arc::new(b.finish()) as ArrayRef
        }};
    }
    Ok(match ty {
        T::Boolean => build!(BooleanBuilder::with_capacity(n), Val::Bool(x) => x),
        T::TinyInt => build!(Int8Builder::with_capacity(n), Val::Int(x) => x as i8),
        T::SmallInt => build!(Int16Builder::with_capacity(n), Val::Int(x) => x as i16),
        T::Int => build!(Int32Builder::with_capacity(n), Val::Int(x) => x as i32),
        T::BigInt => build!(Int64Builder::with_capacity(n), Val::Int(x) => x),
        T::Float => build!(Float32Builder::with_capacity(n), Val::F32(x) => x),
        T::Double => build!(Float64Builder::with_capacity(n), Val::F64(x) => x),
        T::Decimal { precision, scale } => {
            let a = build!(Decimal128Builder::with_capacity(n), Val::Dec(x) => x);
            Arc::new(
                a.as_primitive::<Decimal128Type>()
                    .clone()
                    .with_precision_and_scale(*precision, *scale as i8)?,
            )
        }
        T::Char(_) | T::VarChar(_) => {
            build!(StringBuilder::with_capacity(n, n * 8), Val::Str(x) => x)
        }
        T::Binary(_) | T::VarBinary(_) => {
            build!(BinaryBuilder::with_capacity(n, n * 8), Val::Bin(x) => x)
        }
        T::Date => build!(Date32Builder::with_capacity(n), Val::Date(x) => range::date(x.into())?),
        T::Time(_) => {
            build!(Time32MillisecondBuilder::with_capacity(n), Val::Time(x) => range::time(x.into())?)
        }
        T::Timestamp(p) => match p {
            0..=3 => {
                build!(TimestampMillisecondBuilder::with_capacity(n), Val::Ts(ms, ns) => range::millis(ms, ns)?)
            }
            4..=6 => {
                build!(TimestampMicrosecondBuilder::with_capacity(n), Val::Ts(ms, ns) => range::micros(ms, ns)?)
            }
            _ => {
                build!(TimestampNanosecondBuilder::with_capacity(n), Val::Ts(ms, ns) => range::nanos(ms, ns)?)
            }
        },
        T::TimestampLtz(p) => {
            // The instants as TIMESTAMP(p), then marked UTC as the type's Arrow carrier is.
            let local = write(values, &T::Timestamp(*p))?;
            arrow::compute::cast(&local, &ty.to_arrow())?
        }
        other => return Err(internal(&format!("target type {other}"))),
    })
}

const POW10: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

fn scale_of(t: &LogicalType) -> u8 {
    match t {
        LogicalType::Decimal { scale, .. } => *scale,
        _ => 0,
    }
}

/// `v × 10^shift` rounded HALF_UP (ties away from zero); `None` past i128.
fn shift_half_up(v: i128, shift: i32) -> Option<i128> {
    if shift >= 0 {
        POW10.get(shift as usize).and_then(|p| v.checked_mul(*p))
    } else {
        let Some(&d) = POW10.get((-shift) as usize) else {
            return Some(0); // |v| < 10^39 / 2: rounds to zero
        };
        let (q, r) = (v / d, (v % d).unsigned_abs());
        Some(if r * 2 >= d.unsigned_abs() {
            q + v.signum()
        } else {
            q
        })
    }
}

/// `v` if it has at most `precision` digits (`DecimalData.fromBigDecimal`'s check).
fn within(v: i128, to: &LogicalType) -> Option<i128> {
    match to {
        LogicalType::Decimal { precision, .. } => {
            (v.unsigned_abs() < POW10[usize::from(*precision).min(38)].unsigned_abs()).then_some(v)
        }
        _ => None,
    }
}

/// The plain decimal text of `v` at `scale` (`BigDecimal.toPlainString`).
pub(crate) fn decimal_string(v: i128, scale: u8) -> String {
    let digits = v.unsigned_abs().to_string();
    let scale = usize::from(scale);
    let mut out = String::with_capacity(digits.len() + 3);
    if v < 0 {
        out.push('-');
    }
    if scale == 0 {
        out.push_str(&digits);
    } else if digits.len() > scale {
        out.push_str(&digits[..digits.len() - scale]);
        out.push('.');
        out.push_str(&digits[digits.len() - scale..]);
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', scale - digits.len()));
        out.push_str(&digits);
    }
    out
}

pub(crate) use streamfusion_core::decimal::decimal_to_f64;

/// Java's narrowing `(int)`, `(short)`, `(byte)` of a long.
fn narrow(v: i64, to: &LogicalType) -> i64 {
    match to {
        LogicalType::TinyInt => i64::from(v as i8),
        LogicalType::SmallInt => i64::from(v as i16),
        LogicalType::Int => i64::from(v as i32),
        _ => v,
    }
}

/// Java's `(long) d`, `(int) d`, `(short) d` = `(short) (int) d`, `(byte) d`: saturating, NaN
/// to 0 (Rust's `as` is the same), then wrapping.
fn float_to_integer(d: f64, to: &LogicalType) -> i64 {
    match to {
        LogicalType::BigInt => d as i64,
        _ => narrow(i64::from(d as i32), to),
    }
}

/// A string cast to `CHAR(n)` (padded with spaces) or `VARCHAR(n)` (truncated).
fn fit_string(s: String, to: &LogicalType) -> String {
    let (n, pad) = match to {
        LogicalType::Char(n) => (*n as usize, true),
        LogicalType::VarChar(n) => (*n as usize, false),
        _ => return s,
    };
    match s.char_indices().nth(n) {
        Some((cut, _)) => s[..cut].to_owned(),
        None if pad => {
            let len = s.chars().count();
            let mut s = s;
            s.extend(std::iter::repeat_n(' ', n - len));
            s
        }
        None => s,
    }
}

/// Whether every value of binary type `from` is a value of `to` as it is: a `VARBINARY(m)`
/// holds any `BINARY(n)` or `VARBINARY(n)` with `n <= m` (Flink's `BinaryToBinaryCastRule`
/// neither pads nor truncates then), so the cast is the input itself and shares its buffers.
fn binary_fits(from: &LogicalType, to: &LogicalType) -> bool {
    match (from, to) {
        (LogicalType::Binary(n) | LogicalType::VarBinary(n), LogicalType::VarBinary(m)) => n <= m,
        _ => false,
    }
}

/// A binary array cast to `BINARY(n)` (zero-padded or truncated to `n`) or `VARBINARY(n)`
/// (truncated): the input itself, buffers shared, when every value already has the target's
/// length; else one pass into exactly sized buffers.
fn cast_binary_array(array: &ArrayRef, to: &LogicalType) -> DfResult<ArrayRef> {
    let binary = array
        .as_binary_opt::<i32>()
        .ok_or_else(|| internal("binary array"))?;
    let (target, pad) = match to {
        LogicalType::Binary(n) => (*n as usize, true),
        LogicalType::VarBinary(n) => (*n as usize, false),
        _ => return Err(internal("binary cast target")),
    };
    let fits = |len: usize| if pad { len == target } else { len <= target };
    let lengths = binary.offsets().windows(2).map(|w| (w[1] - w[0]) as usize);
    let all_fit = match binary.nulls() {
        None => lengths.clone().all(fits),
        Some(nulls) => lengths
            .zip(nulls.iter())
            .all(|(len, valid)| !valid || fits(len)),
    };
    if all_fit {
        return Ok(Arc::clone(array));
    }
    let data: usize = (0..binary.len())
        .filter(|&i| binary.is_valid(i))
        .map(|i| {
            if pad {
                target
            } else {
                binary.value(i).len().min(target)
            }
        })
        .sum();
    let mut out = BinaryBuilder::with_capacity(binary.len(), data);
    let zeros = vec![0u8; if pad { target } else { 0 }];
    let mut padded = Vec::with_capacity(if pad { target } else { 0 });
    for v in binary.iter() {
        match v {
            None => out.append_null(),
            Some(v) if v.len() >= target => out.append_value(&v[..target]),
            Some(v) if pad => {
                padded.clear();
                padded.extend_from_slice(v);
                padded.extend_from_slice(&zeros[v.len()..]);
                out.append_value(&padded);
            }
            Some(v) => out.append_value(v),
        }
    }
    Ok(Arc::new(out.finish()))
}

fn fit_binary(mut b: Vec<u8>, to: &LogicalType) -> Vec<u8> {
    match to {
        LogicalType::Binary(n) => b.resize(*n as usize, 0),
        LogicalType::VarBinary(n) => b.truncate(*n as usize),
        _ => {}
    }
    b
}

/// Flink's `BinaryStringData.trim()`: only U+0020.
fn trim_spaces(s: &str) -> &str {
    s.trim_matches(' ')
}

/// `BinaryStringDataUtil.toLong`/`toInt` (then `toShort`/`toByte`'s range check) of a
/// trimmed string: sign, digits, and an optional `.` followed only by digits (truncated).
fn parse_integer(s: &str, to: &LogicalType) -> Result<i64, String> {
    let error = |reason: &str| {
        format!("java.lang.NumberFormatException: For input string: '{s}'. {reason}")
    };
    let b = s.as_bytes();
    if b.is_empty() {
        return Err(error("Input is empty."));
    }
    let (negative, mut i) = match b[0] {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    if i == b.len() {
        return Err(error("Input has only positive or negative symbol."));
    }
    // toLong accumulates in a long, toInt (used by SMALLINT and TINYINT too) in an int.
    let limit: i128 = if matches!(to, LogicalType::BigInt) {
        1 << 63
    } else {
        1 << 31
    };
    let mut magnitude: i128 = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c == b'.' {
            if b[i..].iter().any(|c| !c.is_ascii_digit()) {
                return Err(error("Invalid character found."));
            }
            break;
        }
        if !c.is_ascii_digit() {
            return Err(error("Invalid character found."));
        }
        magnitude = magnitude * 10 + i128::from(c - b'0');
        if magnitude > limit {
            return Err(error("Overflow."));
        }
    }
    if !negative && magnitude == limit {
        return Err(error("Overflow."));
    }
    let v = if negative { -magnitude } else { magnitude } as i64;
    if narrow(v, to) != v {
        return Err(error("Overflow."));
    }
    Ok(v)
}

/// `BinaryStringDataUtil.toBoolean`: lower-cased, not trimmed.
fn parse_boolean(s: &str) -> Result<bool, String> {
    match s.to_lowercase().as_str() {
        "t" | "true" | "y" | "yes" | "1" => Ok(true),
        "f" | "false" | "n" | "no" | "0" => Ok(false),
        _ => Err(format!("Cannot parse '{s}' as BOOLEAN.")),
    }
}

const MILLIS_PER_DAY: i64 = 86_400_000;

/// Java's `l / 10^n * 10^n` (`DateTimeUtils.zeroLastDigits`: toward zero).
fn zero_last_digits(v: i64, n: u8) -> i64 {
    let p = 10i64.pow(u32::from(n));
    v / p * p
}

/// `DateTimeUtils.truncate(ts, precision)`.
fn truncate_ts(millis: i64, nanos: i32, precision: u8) -> (i64, i32) {
    if precision <= 3 {
        (zero_last_digits(millis, 3 - precision), 0)
    } else {
        (
            millis,
            zero_last_digits(i64::from(nanos), 9 - precision.min(9)) as i32,
        )
    }
}

fn date_string(days: i32) -> String {
    let date = NaiveDate::from_num_days_from_ce_opt(days.saturating_add(719_163));
    date.map_or_else(|| format!("{days}"), |d| d.format("%Y-%m-%d").to_string())
}

fn timestamp_string(millis: i64, nanos: i32, precision: u8) -> String {
    let secs = millis.div_euclid(1000);
    let nano_of_second = (millis.rem_euclid(1000) * 1_000_000) as u32 + nanos as u32;
    let Some(dt) = chrono::DateTime::from_timestamp(secs, nano_of_second) else {
        return format!("{millis}");
    };
    let mut s = dt.naive_utc().format("%Y-%m-%d %H:%M:%S").to_string();
    if precision > 0 {
        let fraction = format!("{:09}", dt.nanosecond());
        s.push('.');
        s.push_str(&fraction[..usize::from(precision.min(9))]);
    }
    s
}

/// TIME as `HH:mm:ss[.fff]` with the fraction's trailing zeros dropped.
fn time_string(millis: i32, precision: u8) -> String {
    let m = millis.rem_euclid(MILLIS_PER_DAY as i32) as u32;
    let t = NaiveTime::from_num_seconds_from_midnight_opt(m / 1000, (m % 1000) * 1_000_000)
        .unwrap_or_default();
    let mut s = t.format("%H:%M:%S").to_string();
    let ms = m % 1000;
    if precision > 0 && ms != 0 {
        let fraction = format!("{ms:03}");
        let fraction = &fraction[..usize::from(precision.min(3))];
        let fraction = fraction.trim_end_matches('0');
        if !fraction.is_empty() {
            s.push('.');
            s.push_str(fraction);
        }
    }
    s
}

/// One non-NULL value cast: `Ok(None)` is a NULL result (DECIMAL overflow), `Err` is Flink's
/// failure message.
fn convert(
    v: Val,
    from: &LogicalType,
    to: &LogicalType,
    zone: Zone,
) -> Result<Option<Val>, String> {
    use LogicalType as T;
    // TIMESTAMP_LTZ: to it, the value as a local TIMESTAMP(p) in the session zone, then that
    // wall-clock time's instant (`LocalDateTime.atZone`); from it, the instant's wall-clock
    // time (`LocalDateTime.ofInstant`), whose DATE and TIME are floored, not truncated.
    match (from, to) {
        (T::TimestampLtz(p), T::TimestampLtz(_)) => {
            return convert(
                v,
                &T::Timestamp(*p),
                &T::Timestamp(time_precision_of(to)),
                zone,
            );
        }
        (_, T::TimestampLtz(p)) => {
            return Ok(match convert(v, from, &T::Timestamp(*p), zone)? {
                Some(Val::Ts(m, n)) => Some(Val::Ts(zone.to_instant_java_time(m), n)),
                other => other,
            });
        }
        (T::TimestampLtz(p), _) => {
            let Val::Ts(m, n) = v else {
                return Err(format!("internal: {v:?} is not a TIMESTAMP_LTZ"));
            };
            let local = zone.to_local_java_time(m);
            return match to {
                T::Date => Ok(Some(Val::Date(local.div_euclid(MILLIS_PER_DAY) as i32))),
                T::Time(q) => Ok(Some(Val::Time(zero_last_digits(
                    local.rem_euclid(MILLIS_PER_DAY),
                    3 - (*q).min(3),
                ) as i32))),
                _ => convert(Val::Ts(local, n), &T::Timestamp(*p), to, zone),
            };
        }
        _ => {}
    }
    let to_string = |s: String| Ok(Some(Val::Str(fit_string(s, to))));
    let out = match (v, to) {
        // Numbers and BOOLEAN.
        (Val::Bool(b), T::TinyInt | T::SmallInt | T::Int | T::BigInt) => Val::Int(i64::from(b)),
        (Val::Bool(b), T::Float) => Val::F32(if b { 1.0 } else { 0.0 }),
        (Val::Bool(b), T::Double) => Val::F64(if b { 1.0 } else { 0.0 }),
        (Val::Bool(b), T::Decimal { .. }) => {
            return Ok(within(
                if b {
                    POW10[usize::from(scale_of(to))]
                } else {
                    0
                },
                to,
            )
            .map(Val::Dec));
        }
        (Val::Bool(b), T::Char(_) | T::VarChar(_)) => {
            return to_string(if b { "TRUE" } else { "FALSE" }.into());
        }
        (Val::Int(i), T::Boolean) => Val::Bool(i != 0),
        (Val::Int(i), T::TinyInt | T::SmallInt | T::Int | T::BigInt) => Val::Int(narrow(i, to)),
        (Val::Int(i), T::Float) => Val::F32(i as f32),
        (Val::Int(i), T::Double) => Val::F64(i as f64),
        (Val::Int(i), T::Decimal { .. }) => {
            return Ok(shift_half_up(i128::from(i), i32::from(scale_of(to)))
                .and_then(|v| within(v, to))
                .map(Val::Dec));
        }
        (Val::Int(i), T::Char(_) | T::VarChar(_)) => return to_string(i.to_string()),
        (Val::F32(f), T::Boolean) => Val::Bool(f != 0.0),
        (Val::F64(f), T::Boolean) => Val::Bool(f != 0.0),
        (Val::F32(f), T::TinyInt | T::SmallInt | T::Int | T::BigInt) => {
            Val::Int(float_to_integer(f64::from(f), to))
        }
        (Val::F64(f), T::TinyInt | T::SmallInt | T::Int | T::BigInt) => {
            Val::Int(float_to_integer(f, to))
        }
        (Val::F64(f), T::Float) => Val::F32(f as f32),
        (Val::F32(f), T::Double) => Val::F64(f64::from(f)),
        // `DecimalDataUtils.castFrom(double, p, s)`: `BigDecimal.valueOf((double) x)`.
        (Val::F32(f), T::Decimal { .. }) => return float_to_decimal(f64::from(f), to),
        (Val::F64(f), T::Decimal { .. }) => return float_to_decimal(f, to),
        (Val::F32(f), T::Char(_) | T::VarChar(_)) => {
            return to_string(java_format::float_to_string(f));
        }
        (Val::F64(f), T::Char(_) | T::VarChar(_)) => {
            return to_string(java_format::double_to_string(f));
        }
        (Val::Dec(d), T::Boolean) => Val::Bool(d != 0),
        // `castToIntegral`: truncate toward zero, BigInteger's low 64 bits, then narrowed.
        (Val::Dec(d), T::TinyInt | T::SmallInt | T::Int | T::BigInt) => {
            let whole = d / POW10[usize::from(scale_of(from))];
            Val::Int(narrow(whole as i64, to))
        }
        (Val::Dec(d), T::Double | T::Float) => {
            let T::Decimal { precision, scale } = from else {
                return Err(format!("internal: {from} is not DECIMAL"));
            };
            let x = decimal_to_f64(d, *precision, *scale);
            if matches!(to, T::Float) {
                Val::F32(x as f32)
            } else {
                Val::F64(x)
            }
        }
        (Val::Dec(d), T::Decimal { scale, .. }) => {
            let shift = i32::from(*scale) - i32::from(scale_of(from));
            return Ok(shift_half_up(d, shift)
                .and_then(|v| within(v, to))
                .map(Val::Dec));
        }
        (Val::Dec(d), T::Char(_) | T::VarChar(_)) => {
            return to_string(decimal_string(d, scale_of(from)));
        }
        // Strings.
        (Val::Str(s), T::Char(_) | T::VarChar(_)) => return to_string(s),
        (Val::Str(s), T::Boolean) => Val::Bool(parse_boolean(&s)?),
        (Val::Str(s), T::TinyInt | T::SmallInt | T::Int | T::BigInt) => {
            Val::Int(parse_integer(trim_spaces(&s), to)?)
        }
        (Val::Str(s), T::Decimal { precision, scale }) => {
            Val::Dec(super::cast_decimal::parse(&s, *precision, *scale)?)
        }
        (Val::Str(s), T::Double) => Val::F64(java_format::parse_double(trim_spaces(&s))?),
        (Val::Str(s), T::Float) => Val::F32(java_format::parse_float(trim_spaces(&s))?),
        (Val::Str(s), T::Binary(_) | T::VarBinary(_)) => Val::Bin(fit_binary(s.into_bytes(), to)),
        (Val::Str(s), T::Date) => {
            // `BinaryStringDataUtil.toDate`: `DateTimeUtils.parseDate`, lenient (short years,
            // single digits, spaces around parts; a time after a space is ignored).
            Val::Date(
                parse_date(&s)?.ok_or_else(|| {
                    format!("java.time.DateTimeException: For input string: '{s}'.")
                })?,
            )
        }
        (Val::Str(s), T::Time(p)) => {
            // `BinaryStringDataUtil.toTime`: `DateTimeUtils.parseTime`, lenient (single
            // digits, an hour alone, spaces around parts, an offset).
            let millis = parse_time(&s)?
                .ok_or_else(|| format!("java.time.DateTimeException: For input string: '{s}'."))?;
            Val::Time(zero_last_digits(i64::from(millis), 3 - (*p).min(3)) as i32)
        }
        (Val::Str(s), T::Timestamp(p)) => {
            // `BinaryStringDataUtil.toTimestamp`: `DateTimeUtils.parseTimestampData`, its
            // formatter resolved SMART (a day past the month's end clamped, 24:00:00 the next
            // midnight).
            let bad = || {
                format!("java.time.format.DateTimeParseException: Text '{s}' could not be parsed")
            };
            let (millis, nanos) =
                parse_default_timestamp(&s, u32::from((*p).min(9))).ok_or_else(bad)?;
            Val::Ts(millis, nanos)
        }
        // Binary.
        (Val::Bin(b), T::Binary(_) | T::VarBinary(_)) => Val::Bin(fit_binary(b, to)),
        (Val::Bin(b), T::Char(_) | T::VarChar(_)) => {
            return to_string(String::from_utf8_lossy(&b).into_owned());
        }
        // Date and time.
        (Val::Date(d), T::Timestamp(_)) => Val::Ts(i64::from(d) * MILLIS_PER_DAY, 0),
        // `TimestampData.fromEpochMillis(time)`: that time of 1970-01-01.
        (Val::Time(t), T::Timestamp(_)) => Val::Ts(i64::from(t), 0),
        (Val::Date(d), T::Char(_) | T::VarChar(_)) => return to_string(date_string(d)),
        (Val::Time(t), T::Time(p)) => {
            Val::Time(zero_last_digits(i64::from(t), 3 - (*p).min(3)) as i32)
        }
        (Val::Time(t), T::Char(_) | T::VarChar(_)) => {
            return to_string(time_string(t, time_precision_of(from)));
        }
        // Java's truncating `/` and `%`, as Flink's generated code: before 1970 a timestamp's
        // DATE and TIME are those of its distance from the epoch. Such a TIME is negative
        // (unless it truncates to midnight), which `write` refuses: Flink's job fails on it.
        (Val::Ts(m, _), T::Date) => Val::Date((m / MILLIS_PER_DAY) as i32),
        (Val::Ts(m, _), T::Time(p)) => {
            Val::Time(zero_last_digits(m % MILLIS_PER_DAY, 3 - (*p).min(3)) as i32)
        }
        (Val::Ts(m, n), T::Timestamp(p)) => {
            let (m, n) = truncate_ts(m, n, *p);
            Val::Ts(m, n)
        }
        (Val::Ts(m, n), T::Char(_) | T::VarChar(_)) => {
            return to_string(timestamp_string(m, n, time_precision_of(from)));
        }
        (v, _) => return Err(format!("internal: cannot cast {v:?} from {from} to {to}")),
    };
    Ok(Some(out))
}

fn time_precision_of(t: &LogicalType) -> u8 {
    match t {
        LogicalType::Time(p) | LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => *p,
        _ => 0,
    }
}

fn float_to_decimal(d: f64, to: &LogicalType) -> Result<Option<Val>, String> {
    let (unscaled, exp) = java_format::double_decimal(d)?;
    Ok(shift_half_up(unscaled, exp + i32::from(scale_of(to)))
        .and_then(|v| within(v, to))
        .map(Val::Dec))
}

#[cfg(test)]
mod tests {
    use super::*;
    use LogicalType as T;
    use arrow::array::{
        BinaryArray, BooleanArray, Decimal128Array, Float32Array, Float64Array, Int8Array,
        Int16Array, Int32Array, Int64Array, StringArray, TimestampMillisecondArray,
    };

    fn dec(precision: u8, scale: u8) -> LogicalType {
        T::Decimal { precision, scale }
    }

    fn run(a: ArrayRef, from: &LogicalType, to: &LogicalType, on: OnError) -> DfResult<ArrayRef> {
        assert!(supported(from, to), "{from} -> {to}");
        cast_array(&a, from, to, on, Zone::utc())
    }

    fn strings(a: &ArrayRef) -> Vec<Option<String>> {
        a.as_string::<i32>()
            .iter()
            .map(|s| s.map(str::to_owned))
            .collect()
    }

    fn s(v: &[Option<&str>]) -> Vec<Option<String>> {
        v.iter().map(|x| x.map(str::to_owned)).collect()
    }

    fn str_array(v: &[&str]) -> ArrayRef {
        Arc::new(StringArray::from(v.to_vec()))
    }

    // Expected values below were printed by Flink 2.3.0 (`SELECT CAST(...)` over a
    // non-constant column) or are Java's documented results.

    #[test]
    fn integers_cast_to_a_varchar_that_holds_them_print_as_java_does() {
        use datafusion::physical_expr::expressions::Column;
        let cases = [
            (T::TinyInt, i8::MIN.into(), i8::MAX.into(), 4),
            (T::SmallInt, i16::MIN.into(), i16::MAX.into(), 6),
            (T::Int, i32::MIN.into(), i32::MAX.into(), 11),
            (T::BigInt, i64::MIN, i64::MAX, 20),
        ];
        for (from, min, max, longest) in cases {
            let values = [Some(min), Some(-1), Some(0), None, Some(max)];
            let wide: ArrayRef = Arc::new(Int64Array::from(values.to_vec()));
            let array = arrow::compute::cast(&wide, &from.to_arrow()).unwrap();
            // Java's Long.toString of each value: the independent oracle.
            let expected: Vec<Option<String>> =
                values.iter().map(|v| v.map(java_long_to_string)).collect();
            let batch = arrow::record_batch::RecordBatch::try_from_iter([("a", array)]).unwrap();
            for to in [T::VarChar(longest), T::VarChar(i32::MAX as u32)] {
                assert!(integer_text_fits(&from, &to), "{from} -> {to}");
                let expr = cast(
                    Arc::new(Column::new("a", 0)),
                    &from,
                    &to,
                    OnError::Fail,
                    "UTC",
                )
                .unwrap();
                let out = expr.evaluate(&batch).unwrap().into_array(5).unwrap();
                assert_eq!(strings(&out), expected, "{from} -> {to}");
            }
            // One character short, or a CHAR (which pads), takes the general path.
            assert!(!integer_text_fits(&from, &T::VarChar(longest - 1)));
            assert!(!integer_text_fits(&from, &T::Char(longest)));
        }
    }

    /// `Long.toString`: the digits of the magnitude, `-` first for a negative value.
    fn java_long_to_string(value: i64) -> String {
        let mut digits = Vec::new();
        let mut magnitude = value.unsigned_abs();
        loop {
            digits.push(b'0' + (magnitude % 10) as u8);
            magnitude /= 10;
            if magnitude == 0 {
                break;
            }
        }
        if value < 0 {
            digits.push(b'-');
        }
        digits.reverse();
        String::from_utf8(digits).unwrap()
    }

    #[test]
    fn integer_narrowing_wraps_like_java() {
        let a: ArrayRef = Arc::new(Int32Array::from(vec![
            Some(300),
            Some(70000),
            None,
            Some(-129),
        ]));
        let out = run(a.clone(), &T::Int, &T::TinyInt, OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<Int8Type>().iter().collect::<Vec<_>>(),
            vec![Some(44), Some(112), None, Some(127)]
        );
        let out = run(a, &T::Int, &T::SmallInt, OnError::Fail).unwrap();
        assert_eq!(out.as_primitive::<Int16Type>().value(1), 4464);
        let a: ArrayRef = Arc::new(Int64Array::from(vec![5_000_000_000i64]));
        let out = run(a, &T::BigInt, &T::Int, OnError::Fail).unwrap();
        assert_eq!(out.as_primitive::<Int32Type>().value(0), 705_032_704);
    }

    #[test]
    fn floats_to_integers_saturate_then_narrow() {
        let a: ArrayRef = Arc::new(Float64Array::from(vec![
            1e20,
            -1e20,
            300.7,
            f64::NAN,
            -2.9,
            1e10,
        ]));
        let int = run(a.clone(), &T::Double, &T::Int, OnError::Fail).unwrap();
        assert_eq!(
            int.as_primitive::<Int32Type>().values().to_vec(),
            vec![i32::MAX, i32::MIN, 300, 0, -2, i32::MAX]
        );
        let tiny = run(a.clone(), &T::Double, &T::TinyInt, OnError::Fail).unwrap();
        assert_eq!(
            tiny.as_primitive::<Int8Type>().values().to_vec(),
            vec![-1, 0, 44, 0, -2, -1]
        );
        let small = run(a.clone(), &T::Double, &T::SmallInt, OnError::Fail).unwrap();
        assert_eq!(small.as_primitive::<Int16Type>().value(5), -1);
        let big = run(a, &T::Double, &T::BigInt, OnError::Fail).unwrap();
        assert_eq!(big.as_primitive::<Int64Type>().value(0), i64::MAX);
        assert_eq!(big.as_primitive::<Int64Type>().value(5), 10_000_000_000);
    }

    #[test]
    fn decimal_casts_round_half_up_truncate_and_overflow_to_null() {
        let a: ArrayRef = Arc::new(
            Decimal128Array::from(vec![125, -125, 12345, -1299])
                .with_precision_and_scale(5, 2)
                .unwrap(),
        );
        let out = run(a.clone(), &dec(5, 2), &dec(3, 1), OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<Decimal128Type>()
                .iter()
                .collect::<Vec<_>>(),
            vec![Some(13), Some(-13), None, Some(-130)]
        );
        let out = run(a.clone(), &dec(5, 2), &T::Int, OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<Int32Type>().values().to_vec(),
            vec![1, -1, 123, -12]
        );
        let out = run(a, &dec(5, 2), &T::VarChar(10), OnError::Fail).unwrap();
        assert_eq!(
            strings(&out),
            s(&[Some("1.25"), Some("-1.25"), Some("123.45"), Some("-12.99")])
        );
        // 99999999999999999999.5 -> BIGINT keeps the low 64 bits; 9999999999.5 -> INT wraps.
        let a: ArrayRef = Arc::new(
            Decimal128Array::from(vec![999_999_999_999_999_999_995i128, 99_999_999_995])
                .with_precision_and_scale(21, 1)
                .unwrap(),
        );
        let out = run(a.clone(), &dec(21, 1), &T::BigInt, OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<Int64Type>().value(0),
            7_766_279_631_452_241_919
        );
        let out = run(a, &dec(21, 1), &T::Int, OnError::Fail).unwrap();
        assert_eq!(out.as_primitive::<Int32Type>().value(1), 1_410_065_407);
        // Scale 10 prints plainly: 0.0000001000.
        assert_eq!(decimal_string(1000, 10), "0.0000001000");
        assert_eq!(decimal_string(0, 2), "0.00");
        assert_eq!(decimal_string(-50, 3), "-0.050");
    }

    #[test]
    fn doubles_to_decimal_go_through_double_to_string() {
        let a: ArrayRef = Arc::new(Float64Array::from(vec![
            0.1, 2.5, -2.5, 1.005, 1e30, 1e-300,
        ]));
        let out = run(a, &T::Double, &dec(38, 20), OnError::Fail).unwrap();
        let d = out.as_primitive::<Decimal128Type>();
        assert_eq!(d.value(0), 10i128.pow(19)); // 0.1, not 0.1000000000000000055511
        assert_eq!(d.value(3), 100_500_000_000_000_000_000);
        assert!(d.is_null(4));
        let a: ArrayRef = Arc::new(Float64Array::from(vec![2.5, -2.5, 1.005, 1e30, 1e-300]));
        let out = run(a, &T::Double, &dec(5, 2), OnError::Fail).unwrap();
        let d = out.as_primitive::<Decimal128Type>();
        assert_eq!((d.value(0), d.value(1), d.value(2)), (250, -250, 101));
        assert!(d.is_null(3));
        assert_eq!(d.value(4), 0);
        // FLOAT widens to DOUBLE first: 1.005f is 1.00499999523..., so 1.00.
        let a: ArrayRef = Arc::new(Float32Array::from(vec![1.005f32]));
        let out = run(a, &T::Float, &dec(5, 2), OnError::Fail).unwrap();
        assert_eq!(out.as_primitive::<Decimal128Type>().value(0), 100);
        let a: ArrayRef = Arc::new(Float64Array::from(vec![f64::INFINITY]));
        let err = run(a.clone(), &T::Double, &dec(5, 2), OnError::Fail).unwrap_err();
        assert!(
            err.to_string()
                .contains("Character I is neither a decimal digit"),
            "{err}"
        );
        let out = run(a, &T::Double, &dec(5, 2), OnError::Null).unwrap();
        assert!(out.is_null(0));
        // Integers: 123456789 does not fit DECIMAL(5, 2).
        let a: ArrayRef = Arc::new(Int32Array::from(vec![123_456_789, 7]));
        let out = run(a, &T::Int, &dec(5, 2), OnError::Fail).unwrap();
        assert!(out.is_null(0));
        assert_eq!(out.as_primitive::<Decimal128Type>().value(1), 700);
    }

    #[test]
    fn strings_to_integers_follow_binary_string_data_util() {
        let a = str_array(&[" 12 ", "+7", "12.9", "-12.9", ".5", "5.", "-128"]);
        let out = run(a, &T::VarChar(10), &T::Int, OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<Int32Type>().values().to_vec(),
            vec![12, 7, 12, -12, 0, 5, -128]
        );
        for (input, to, message) in [
            (
                "2147483648",
                T::Int,
                "For input string: '2147483648'. Overflow.",
            ),
            (
                "12a",
                T::Int,
                "For input string: '12a'. Invalid character found.",
            ),
            ("300", T::TinyInt, "For input string: '300'. Overflow."),
            (
                "12.x",
                T::Int,
                "For input string: '12.x'. Invalid character found.",
            ),
            ("", T::Int, "For input string: ''. Input is empty."),
            (
                "-",
                T::Int,
                "For input string: '-'. Input has only positive or negative symbol.",
            ),
        ] {
            let err = run(str_array(&[input]), &T::VarChar(20), &to, OnError::Fail).unwrap_err();
            assert!(err.to_string().ends_with(message), "{input}: {err}");
        }
        let a = str_array(&[
            "1e3",
            " ",
            "-",
            "\t5",
            "9223372036854775808",
            "-9223372036854775808",
        ]);
        let out = run(a, &T::VarChar(30), &T::BigInt, OnError::Null).unwrap();
        assert_eq!(
            out.as_primitive::<Int64Type>().iter().collect::<Vec<_>>(),
            vec![None, None, None, None, None, Some(i64::MIN)]
        );
    }

    #[test]
    fn strings_to_floats_booleans_and_back() {
        let a = str_array(&[" 1.5 ", "1.5d", "Infinity", "-NaN", "1e400", "abc"]);
        let out = run(a, &T::VarChar(10), &T::Double, OnError::Null).unwrap();
        let d = out.as_primitive::<Float64Type>();
        assert_eq!(
            (d.value(0), d.value(1), d.value(2), d.value(4)),
            (1.5, 1.5, f64::INFINITY, f64::INFINITY)
        );
        assert!(d.value(3).is_nan() && d.is_null(5));
        let a = str_array(&["t", "yes", "1", "No", "0", "F", "TRUE", "y", " TRUE ", "2"]);
        let out = run(a, &T::VarChar(10), &T::Boolean, OnError::Null).unwrap();
        let expected: BooleanArray = vec![
            Some(true),
            Some(true),
            Some(true),
            Some(false),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            None,
            None,
        ]
        .into();
        assert_eq!(out.as_boolean(), &expected);
        let err = run(
            str_array(&["maybe"]),
            &T::VarChar(10),
            &T::Boolean,
            OnError::Fail,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .ends_with("Cannot parse 'maybe' as BOOLEAN."),
            "{err}"
        );
        let a: ArrayRef = Arc::new(BooleanArray::from(vec![true, false]));
        let out = run(a.clone(), &T::Boolean, &T::VarChar(2), OnError::Fail).unwrap();
        assert_eq!(strings(&out), s(&[Some("TR"), Some("FA")]));
        let out = run(a, &T::Boolean, &T::Char(7), OnError::Fail).unwrap();
        assert_eq!(strings(&out), s(&[Some("TRUE   "), Some("FALSE  ")]));
        let a: ArrayRef = Arc::new(Float64Array::from(vec![
            1e-5,
            100.0,
            1e7,
            123_456_789.0,
            -0.0,
            1.5,
        ]));
        let out = run(a, &T::Double, &T::Char(5), OnError::Fail).unwrap();
        assert_eq!(
            strings(&out),
            s(&[
                Some("1.0E-"),
                Some("100.0"),
                Some("1.0E7"),
                Some("1.234"),
                Some("-0.0 "),
                Some("1.5  ")
            ])
        );
        let a: ArrayRef = Arc::new(Int32Array::from(vec![12345]));
        let out = run(a, &T::Int, &T::Char(3), OnError::Fail).unwrap();
        assert_eq!(strings(&out), s(&[Some("123")]));
        let a = str_array(&["ab", "abcdef", "çéx"]);
        let out = run(a.clone(), &T::VarChar(10), &T::Char(4), OnError::Fail).unwrap();
        assert_eq!(
            strings(&out),
            s(&[Some("ab  "), Some("abcd"), Some("çéx ")])
        );
        let out = run(a, &T::VarChar(10), &T::VarChar(2), OnError::Fail).unwrap();
        assert_eq!(strings(&out), s(&[Some("ab"), Some("ab"), Some("çé")]));
    }

    #[test]
    fn binary_casts_pad_with_zeros_and_truncate() {
        let a = str_array(&["ab", "abc"]);
        let out = run(a, &T::VarChar(5), &T::Binary(3), OnError::Fail).unwrap();
        let b: &BinaryArray = out.as_binary();
        assert_eq!((b.value(0), b.value(1)), (&b"ab\0"[..], &b"abc"[..]));
        let out = run(out.clone(), &T::Binary(3), &T::VarBinary(2), OnError::Fail).unwrap();
        assert_eq!(out.as_binary::<i32>().value(1), b"ab");
        let a: ArrayRef = Arc::new(BinaryArray::from(vec![&b"a\0\0"[..], &[0xff][..]]));
        let out = run(a, &T::Binary(3), &T::VarChar(10), OnError::Fail).unwrap();
        assert_eq!(strings(&out), s(&[Some("a\0\0"), Some("\u{fffd}")]));
    }

    #[test]
    fn dates_times_and_timestamps() {
        let a = str_array(&[
            " 2024-2-3 ",
            "2024-02-03 10:00",
            "2024-02-30",
            "20240203",
            "+2024-02-03",
        ]);
        let out = run(a, &T::VarChar(20), &T::Date, OnError::Null).unwrap();
        let days = out.as_primitive::<Date32Type>();
        assert_eq!(days.value(0), 19756); // 2024-02-03
        assert_eq!(days.value(1), 19756);
        assert_eq!(days.null_count(), 3);
        let err = run(
            str_array(&["2024-13-03"]),
            &T::VarChar(20),
            &T::Date,
            OnError::Fail,
        )
        .unwrap_err();
        assert!(
            err.to_string().ends_with("For input string: '2024-13-03'."),
            "{err}"
        );
        let a = str_array(&["4:5:6", "04:05", "04:05:06.789", " 04:05:06 ", "25:00:00"]);
        let out = run(a, &T::VarChar(20), &T::Time(0), OnError::Null).unwrap();
        let t = out.as_primitive::<Time32MillisecondType>();
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            vec![
                Some(14_706_000),
                Some(14_700_000),
                Some(14_706_000),
                Some(14_706_000),
                None
            ]
        );
        let a = str_array(&[
            "2024-02-03",
            "2024-02-03 04:05:06.1234",
            "2024-2-3 04:05:06",
            "2024-02-03 04:05",
            "2024-02-03T04:05:06",
            " 2024-02-03 04:05:06",
            "1969-12-31 23:59:59.999",
        ]);
        let out = run(a, &T::VarChar(30), &T::Timestamp(2), OnError::Null).unwrap();
        let ts = out.as_primitive::<TimestampMillisecondType>();
        let base = 19756 * MILLIS_PER_DAY;
        assert_eq!(
            ts.iter().collect::<Vec<_>>(),
            vec![
                Some(base),
                Some(base + 14_706_120),
                Some(base + 14_706_000),
                None,
                None,
                None,
                // `fromTemporalAccessor` floors the nano-of-second: .999 at precision 2 is .99.
                Some(-10)
            ]
        );
        // Precision changes truncate toward zero: 1969-12-31 23:59:59.999 -> 1970-01-01 00:00:00.
        let a: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![-1, base + 14_706_789]));
        let out = run(a.clone(), &T::Timestamp(3), &T::Timestamp(0), OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<TimestampMillisecondType>()
                .values()
                .to_vec(),
            vec![0, base + 14_706_000]
        );
        let out = run(a.clone(), &T::Timestamp(3), &T::Date, OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<Date32Type>().values().to_vec(),
            vec![0, 19756]
        );
        let out = run(a.clone(), &T::Timestamp(3), &T::Time(0), OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<Time32MillisecondType>()
                .values()
                .to_vec(),
            vec![0, 14_706_000]
        );
        let out = run(a, &T::Timestamp(3), &T::VarChar(30), OnError::Fail).unwrap();
        assert_eq!(
            strings(&out),
            s(&[
                Some("1969-12-31 23:59:59.999"),
                Some("2024-02-03 04:05:06.789")
            ])
        );
        assert_eq!(
            timestamp_string(base + 14_706_100, 0, 3),
            "2024-02-03 04:05:06.100"
        );
        assert_eq!(
            timestamp_string(base + 14_706_100, 0, 0),
            "2024-02-03 04:05:06"
        );
        assert_eq!(
            timestamp_string(base + 14_706_123, 456_000, 6),
            "2024-02-03 04:05:06.123456"
        );
        assert_eq!(time_string(14_706_100, 3), "04:05:06.1");
        assert_eq!(time_string(14_706_123, 3), "04:05:06.123");
        assert_eq!(time_string(14_706_000, 0), "04:05:06");
        assert_eq!(date_string(19756), "2024-02-03");
        // Microsecond and nanosecond timestamps keep the sub-millisecond part.
        let a = str_array(&["2024-02-03 04:05:06.123456789"]);
        let out = run(a.clone(), &T::VarChar(30), &T::Timestamp(9), OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<TimestampNanosecondType>().value(0),
            (base + 14_706_123) * 1_000_000 + 456_789
        );
        let out = run(out, &T::Timestamp(9), &T::Timestamp(6), OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<TimestampMicrosecondType>().value(0),
            (base + 14_706_123) * 1000 + 456
        );
        let a: ArrayRef = Arc::new(arrow::array::Date32Array::from(vec![19756]));
        let out = run(a, &T::Date, &T::Timestamp(3), OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<TimestampMillisecondType>().value(0),
            base
        );
    }

    #[test]
    fn year_zero_strings_fail_as_timestamps_but_not_as_dates() {
        // Flink's string-to-timestamp formatter resolves a year of the era, 1 or more.
        let a = str_array(&["0000-01-01 00:00:00", "0001-01-01 00:00:00"]);
        let err = run(a.clone(), &T::VarChar(30), &T::Timestamp(3), OnError::Fail).unwrap_err();
        assert!(err.to_string().contains("0000-01-01"), "{err}");
        for on in [OnError::Null, OnError::Legacy] {
            let out = run(a.clone(), &T::VarChar(30), &T::Timestamp(3), on).unwrap();
            let ts = out.as_primitive::<TimestampMillisecondType>();
            assert!(ts.is_null(0) && ts.is_valid(1), "{on:?}");
        }
        let out = run(a, &T::VarChar(30), &T::Date, OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<Date32Type>().values().to_vec(),
            vec![-719_528, -719_162]
        );
    }

    #[test]
    fn booleans_and_numbers() {
        let a: ArrayRef = Arc::new(BooleanArray::from(vec![true, false]));
        let out = run(a, &T::Boolean, &dec(5, 2), OnError::Fail).unwrap();
        assert_eq!(
            out.as_primitive::<Decimal128Type>().values().to_vec(),
            vec![100, 0]
        );
        let a: ArrayRef = Arc::new(Float64Array::from(vec![1.5, 0.0, f64::NAN]));
        let out = run(a, &T::Double, &T::Boolean, OnError::Fail).unwrap();
        assert_eq!(
            out.as_boolean(),
            &BooleanArray::from(vec![true, false, true])
        );
        let a: ArrayRef = Arc::new(Int8Array::from(vec![1]));
        let out = run(a, &T::TinyInt, &T::VarChar(5), OnError::Fail).unwrap();
        assert_eq!(strings(&out), s(&[Some("1")]));
        let a: ArrayRef = Arc::new(Int16Array::from(vec![3]));
        let out = run(a, &T::SmallInt, &T::Float, OnError::Fail).unwrap();
        assert_eq!(out.as_primitive::<Float32Type>().value(0), 3.0);
    }

    #[test]
    fn unsupported_pairs_are_rejected_at_compile_time() {
        use datafusion::physical_expr::expressions::Column;
        let col: Arc<dyn PhysicalExpr> = Arc::new(Column::new("a", 0));
        for (from, to) in [
            (T::Date, T::Int),
            (T::Binary(3), T::Int),
            (T::IntervalDayTime, T::VarChar(10)),
            (T::Time(0), T::Date),
        ] {
            let err = cast(Arc::clone(&col), &from, &to, OnError::Fail, "UTC").unwrap_err();
            assert!(err.contains("not supported"), "{err}");
        }
        assert!(is_implicit(&T::Int, &T::BigInt));
        assert!(is_implicit(&T::Timestamp(0), &T::Timestamp(3)));
        assert!(is_implicit(&T::TimestampLtz(3), &T::TimestampLtz(6)));
        assert!(!is_implicit(&T::Timestamp(3), &T::Timestamp(9)));
        assert!(!is_implicit(&T::Timestamp(6), &T::Timestamp(3)));
        assert!(!is_implicit(&T::Timestamp(3), &T::TimestampLtz(3)));
        assert!(!is_implicit(&T::BigInt, &T::Int));
        assert!(!is_implicit(&T::Double, &dec(38, 10)));
    }

    mod through_compile {
        use super::*;
        use crate::calc::functions::math;
        use crate::calc::{CalcError, CalcProgram, Expr, compile};
        use crate::changelog::ChangelogBatch;
        use arrow::array::RecordBatch;
        use arrow::datatypes::{Field, Schema};

        fn batch(ty: &LogicalType, column: ArrayRef) -> ChangelogBatch {
            let schema = Arc::new(Schema::new(vec![Field::new("a", ty.to_arrow(), true)]));
            ChangelogBatch::insert_only(RecordBatch::try_new(schema, vec![column]).unwrap())
        }

        #[test]
        fn cast_and_try_cast_of_a_string_column() {
            let input = [T::VarChar(20)];
            let program = CalcProgram::project(vec![
                Expr::input(0).try_cast(T::Int),
                Expr::input(0).try_cast(T::Double).cast(T::VarChar(30)),
                Expr::call(
                    math::ROUND,
                    vec![Expr::input(0).try_cast(T::Double), Expr::lit(T::Int, "1")],
                ),
            ]);
            let compiled = compile(&program, &input).unwrap();
            assert_eq!(
                compiled.output_types(),
                &[T::Int, T::VarChar(30), T::Double]
            );
            let out = compiled
                .evaluate(&batch(&input[0], str_array(&[" 12 ", "1e7", "x", "0.25"])))
                .unwrap();
            let b = out.batch();
            assert_eq!(
                b.column(0)
                    .as_primitive::<Int32Type>()
                    .iter()
                    .collect::<Vec<_>>(),
                vec![Some(12), None, None, Some(0)]
            );
            assert_eq!(
                strings(b.column(1)),
                s(&[Some("12.0"), Some("1.0E7"), None, Some("0.25")])
            );
            let r = b.column(2).as_primitive::<Float64Type>();
            assert_eq!((r.value(0), r.value(1), r.value(3)), (12.0, 1e7, 0.3));
            assert!(r.is_null(2));
        }

        #[test]
        fn a_failing_cast_fails_the_evaluation_unless_legacy() {
            let input = [T::VarChar(20)];
            let mut program = CalcProgram::project(vec![Expr::input(0).cast(T::Int)]);
            let compiled = compile(&program, &input).unwrap();
            let err = compiled
                .evaluate(&batch(&input[0], str_array(&["1", "12a"])))
                .unwrap_err();
            match err {
                CalcError::Evaluation { message, .. } => assert_eq!(
                    message,
                    "java.lang.NumberFormatException: For input string: '12a'. Invalid character found."
                ),
                other => panic!("{other}"),
            }
            program.legacy_cast_behaviour = true;
            let compiled = compile(&program, &input).unwrap();
            let out = compiled
                .evaluate(&batch(&input[0], str_array(&["1", "12a"])))
                .unwrap();
            assert_eq!(
                out.batch()
                    .column(0)
                    .as_primitive::<Int32Type>()
                    .iter()
                    .collect::<Vec<_>>(),
                vec![Some(1), None]
            );
        }

        #[test]
        fn ltz_casts_take_java_time_offsets_in_the_session_zone() {
            // New York (tzdb): 2024-03-10 02:00 EST jumps to 03:00 EDT, 2024-11-03 02:00 EDT
            // falls back to 01:00 EST, and before 1883-11-18 local mean time is -04:56:02.
            let ny = Zone::parse("America/New_York").unwrap();
            let at = |text: &str| {
                chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
                    .unwrap()
                    .and_utc()
                    .timestamp_millis()
            };
            let ltz = T::TimestampLtz(3);
            let to_ltz = |local: &str| {
                convert(Val::Ts(at(local), 0), &T::Timestamp(3), &ltz, ny)
                    .unwrap()
                    .unwrap()
            };
            // A gap moves later by its length; an overlap takes the earlier offset (EDT).
            assert_eq!(
                to_ltz("2024-03-10 02:30:00"),
                Val::Ts(at("2024-03-10 07:30:00"), 0)
            );
            assert_eq!(
                to_ltz("2024-11-03 01:30:00"),
                Val::Ts(at("2024-11-03 05:30:00"), 0)
            );
            assert_eq!(
                to_ltz("1850-06-01 12:00:00"),
                Val::Ts(at("1850-06-01 16:56:02"), 0)
            );
            // From an instant: the wall clock there, its DATE and TIME floored.
            let from_ltz = |instant: &str, to: &LogicalType| {
                convert(Val::Ts(at(instant), 7), &ltz, to, ny)
                    .unwrap()
                    .unwrap()
            };
            assert_eq!(
                from_ltz("1970-01-01 02:00:00", &T::Timestamp(9)),
                Val::Ts(at("1969-12-31 21:00:00"), 7)
            );
            assert_eq!(from_ltz("1970-01-01 02:00:00", &T::Date), Val::Date(-1));
            assert_eq!(
                from_ltz("1970-01-01 02:00:00", &T::Time(0)),
                Val::Time(21 * 3_600_000)
            );
            assert_eq!(
                from_ltz("2024-11-03 06:30:00", &T::VarChar(30)),
                Val::Str("2024-11-03 01:30:00.000".into())
            );
            // A DATE is its midnight, a TIME its time on 1970-01-01, a string as TIMESTAMP's.
            assert_eq!(
                convert(Val::Date(0), &T::Date, &ltz, ny).unwrap(),
                Some(Val::Ts(at("1970-01-01 05:00:00"), 0))
            );
            assert_eq!(
                convert(Val::Time(3_600_000), &T::Time(0), &ltz, ny).unwrap(),
                Some(Val::Ts(at("1970-01-01 06:00:00"), 0))
            );
            assert_eq!(
                convert(
                    Val::Str("2024-1-2 3:04:05".into()),
                    &T::VarChar(20),
                    &ltz,
                    ny
                )
                .unwrap(),
                Some(Val::Ts(at("2024-01-02 08:04:05"), 0))
            );
        }

        #[test]
        fn unsupported_casts_fail_to_compile() {
            let program = CalcProgram::project(vec![Expr::input(0).cast(T::Int)]);
            let err = compile(&program, &[T::Date]).unwrap_err();
            assert!(matches!(err, CalcError::Cast { .. }), "{err}");
        }
    }
}
