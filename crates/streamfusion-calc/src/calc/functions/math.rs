//! Math functions (opcodes 400–499) with Java's `Math` and Flink's `SqlFunctionUtils`
//! semantics.
//!
//! - DOUBLE functions (SQRT, LN, SIN, POWER, ...) take any number, widened to DOUBLE (a
//!   DECIMAL as `DecimalDataUtils.doubleValue`), and follow Java's `Math`: domain errors give
//!   NaN or ±Infinity, never an error.
//! - ROUND and TRUNCATE go through `BigDecimal` as `SqlFunctionUtils.sround`/`struncate` do:
//!   a DOUBLE is first `BigDecimal.valueOf(x)` (its `Double.toString`), so `ROUND(0.285, 2)`
//!   is 0.29 and NaN or Infinity fail the evaluation with BigDecimal's message.
//! - RAND/RAND_INTEGER replay `java.util.Random` exactly; a seeded call keeps one generator
//!   per compiled program, as Flink keeps one per operator instance.

use std::sync::{Arc, Mutex};

use arrow::array::{
    Array, ArrayRef, AsArray, Decimal128Array, Float32Array, Float64Array, Int32Array,
    PrimitiveArray,
};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type,
};
use datafusion::common::ScalarValue;
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;

use crate::calc::FloatText;
use crate::calc::cast::decimal_to_f64;
use crate::calc::coercion::{is_approximate, is_integer, is_numeric};
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::java_format;
use super::util::{arrays, fail, result};

/// `ABS(x)`: Java's `Math.abs`, so `ABS(MIN)` is `MIN` for integers.
pub const ABS: u16 = 400;
/// `ROUND(x[, n])`: HALF_UP at `n` decimal places.
pub const ROUND: u16 = 401;
/// `TRUNCATE(x[, n])`: toward zero at `n` decimal places.
pub const TRUNCATE: u16 = 402;
/// `POWER(x, y)`.
pub const POWER: u16 = 403;
/// `SQRT(x)`.
pub const SQRT: u16 = 404;
/// `LN(x)`.
pub const LN: u16 = 405;
/// `LOG10(x)`.
pub const LOG10: u16 = 406;
/// `LOG(x)` (natural) or `LOG(base, x)`.
pub const LOG: u16 = 407;
/// `LOG2(x)`.
pub const LOG2: u16 = 408;
/// `EXP(x)`.
pub const EXP: u16 = 409;
/// `SIN(x)`.
pub const SIN: u16 = 410;
/// `COS(x)`.
pub const COS: u16 = 411;
/// `TAN(x)`.
pub const TAN: u16 = 412;
/// `SINH(x)`.
pub const SINH: u16 = 413;
/// `COSH(x)`.
pub const COSH: u16 = 414;
/// `TANH(x)`.
pub const TANH: u16 = 415;
/// `FLOOR(x)` of a number.
pub const FLOOR: u16 = 416;
/// `CEIL(x)` of a number.
pub const CEIL: u16 = 417;
/// `SIGN(x)`.
pub const SIGN: u16 = 418;
/// `PI()`.
pub const PI: u16 = 419;
/// `E()`.
pub const E: u16 = 420;
/// `DEGREES(x)`.
pub const DEGREES: u16 = 421;
/// `RADIANS(x)`.
pub const RADIANS: u16 = 422;
/// `RAND([seed])`.
pub const RAND: u16 = 423;
/// `RAND_INTEGER([seed, ] bound)`.
pub const RAND_INTEGER: u16 = 424;
/// `ASIN(x)`.
pub const ASIN: u16 = 425;
/// `ACOS(x)`.
pub const ACOS: u16 = 426;
/// `ATAN(x)`.
pub const ATAN: u16 = 427;
/// `ATAN2(y, x)`.
pub const ATAN2: u16 = 428;
/// `COT(x)`.
pub const COT: u16 = 429;

macro_rules! unary {
    ($opcode:expr, $name:literal, $f:expr) => {
        FunctionDef {
            opcode: $opcode,
            name: $name,
            arity: Arity::Exact(1),
            bind: |a| bind_doubles(a, $name, |x: &[f64]| ($f)(x[0])),
        }
    };
}

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: ABS,
        name: "ABS",
        arity: Arity::Exact(1),
        bind: bind_abs,
    },
    FunctionDef {
        opcode: ROUND,
        name: "ROUND",
        arity: Arity::Range(1, 2),
        bind: |a| bind_round(a, Mode::Round),
    },
    FunctionDef {
        opcode: TRUNCATE,
        name: "TRUNCATE",
        arity: Arity::Range(1, 2),
        bind: |a| bind_round(a, Mode::Truncate),
    },
    FunctionDef {
        opcode: POWER,
        name: "POWER",
        arity: Arity::Exact(2),
        bind: |a| bind_doubles(a, "POWER", |x: &[f64]| java_pow(x[0], x[1])),
    },
    // Flink's planner rewrites SQRT(x) as POWER(x, 0.5) (`SqrtConverter`): SQRT(-0.0) is 0.0.
    unary!(SQRT, "SQRT", |x| java_pow(x, 0.5)),
    unary!(LN, "LN", f64::ln),
    unary!(LOG10, "LOG10", f64::log10),
    FunctionDef {
        opcode: LOG,
        name: "LOG",
        arity: Arity::Range(1, 2),
        // `Math.log(x) / Math.log(base)`.
        bind: |a| {
            bind_doubles(a, "LOG", |x: &[f64]| match x {
                [v] => v.ln(),
                [base, v, ..] => v.ln() / base.ln(),
                [] => f64::NAN,
            })
        },
    },
    unary!(LOG2, "LOG2", |x: f64| x.ln() / 2f64.ln()),
    unary!(EXP, "EXP", f64::exp),
    unary!(SIN, "SIN", f64::sin),
    unary!(COS, "COS", f64::cos),
    unary!(TAN, "TAN", f64::tan),
    unary!(SINH, "SINH", super::math_fdlibm::sinh),
    unary!(COSH, "COSH", super::math_fdlibm::cosh),
    unary!(TANH, "TANH", super::math_fdlibm::tanh),
    FunctionDef {
        opcode: FLOOR,
        name: "FLOOR",
        arity: Arity::Exact(1),
        bind: |a| bind_floor_ceil(a, false),
    },
    FunctionDef {
        opcode: CEIL,
        name: "CEIL",
        arity: Arity::Exact(1),
        bind: |a| bind_floor_ceil(a, true),
    },
    FunctionDef {
        opcode: SIGN,
        name: "SIGN",
        arity: Arity::Exact(1),
        bind: bind_sign,
    },
    FunctionDef {
        opcode: PI,
        name: "PI",
        arity: Arity::Exact(0),
        bind: |a| bind_doubles(a, "PI", |_: &[f64]| std::f64::consts::PI),
    },
    FunctionDef {
        opcode: E,
        name: "E",
        arity: Arity::Exact(0),
        bind: |a| bind_doubles(a, "E", |_: &[f64]| std::f64::consts::E),
    },
    // `Math.toDegrees`/`toRadians` multiply by a constant (JDK 9+).
    unary!(DEGREES, "DEGREES", |x: f64| x * 57.295_779_513_082_32),
    unary!(RADIANS, "RADIANS", |x: f64| x * 0.017_453_292_519_943_295),
    FunctionDef {
        opcode: RAND,
        name: "RAND",
        arity: Arity::Range(0, 1),
        bind: |a| bind_rand(a, false),
    },
    FunctionDef {
        opcode: RAND_INTEGER,
        name: "RAND_INTEGER",
        arity: Arity::Range(1, 2),
        bind: |a| bind_rand(a, true),
    },
    unary!(ASIN, "ASIN", super::math_fdlibm::asin),
    unary!(ACOS, "ACOS", super::math_fdlibm::acos),
    unary!(ATAN, "ATAN", super::math_fdlibm::atan),
    FunctionDef {
        opcode: ATAN2,
        name: "ATAN2",
        arity: Arity::Exact(2),
        bind: |a| {
            bind_doubles(a, "ATAN2", |x: &[f64]| {
                super::math_fdlibm::atan2(x[0], x[1])
            })
        },
    },
    unary!(COT, "COT", |x: f64| 1.0 / x.tan()),
];

fn bind_abs(args: &Args<'_>) -> Result<Bound, String> {
    let ty = &args.types[0];
    if !is_numeric(ty) {
        return Err("the argument must be numeric".into());
    }
    Ok(Bound {
        args: vec![ty.clone()],
        result: ty.clone(),
        kernel: Kernel::function("ABS", ty, |args, rows| {
            let a = arrays(args, rows)?;
            result(args, abs(&a[0])?)
        }),
    })
}

/// Wrapping absolute value, as Java's `Math.abs` (MIN stays MIN; -0.0 becomes 0.0).
fn abs(a: &ArrayRef) -> datafusion::error::Result<ArrayRef> {
    Ok(match a.data_type() {
        DataType::Int8 => Arc::new(
            a.as_primitive::<Int8Type>()
                .unary::<_, Int8Type>(i8::wrapping_abs),
        ),
        DataType::Int16 => Arc::new(
            a.as_primitive::<Int16Type>()
                .unary::<_, Int16Type>(i16::wrapping_abs),
        ),
        DataType::Int32 => Arc::new(
            a.as_primitive::<Int32Type>()
                .unary::<_, Int32Type>(i32::wrapping_abs),
        ),
        DataType::Int64 => Arc::new(
            a.as_primitive::<Int64Type>()
                .unary::<_, Int64Type>(i64::wrapping_abs),
        ),
        DataType::Float32 => Arc::new(
            a.as_primitive::<Float32Type>()
                .unary::<_, Float32Type>(f32::abs),
        ),
        DataType::Float64 => Arc::new(
            a.as_primitive::<Float64Type>()
                .unary::<_, Float64Type>(f64::abs),
        ),
        DataType::Decimal128(p, s) => Arc::new(
            a.as_primitive::<Decimal128Type>()
                .unary::<_, Decimal128Type>(i128::wrapping_abs)
                .with_precision_and_scale(*p, *s)?,
        ),
        other => return Err(fail(format!("ABS of {other}"))),
    })
}

/// Each argument as DOUBLE (`DecimalDataUtils.doubleValue` for a DECIMAL).
fn doubles(a: &ArrayRef) -> DfResult<Float64Array> {
    fn widen<T: ArrowPrimitiveType>(a: &ArrayRef, f: impl Fn(T::Native) -> f64) -> Float64Array {
        a.as_primitive::<T>().unary::<_, Float64Type>(f)
    }
    Ok(match a.data_type() {
        DataType::Int8 => widen::<Int8Type>(a, f64::from),
        DataType::Int16 => widen::<Int16Type>(a, f64::from),
        DataType::Int32 => widen::<Int32Type>(a, f64::from),
        DataType::Int64 => widen::<Int64Type>(a, |v| v as f64),
        DataType::Float32 => widen::<Float32Type>(a, f64::from),
        DataType::Float64 => a.as_primitive::<Float64Type>().clone(),
        DataType::Decimal128(p, s) => {
            let (p, s) = (*p, *s as u8);
            widen::<Decimal128Type>(a, move |v| decimal_to_f64(v, p, s))
        }
        other => return Err(fail(format!("expected a number, found {other}"))),
    })
}

/// A DOUBLE function of numeric arguments: NULL if any argument is NULL.
fn bind_doubles(
    args: &Args<'_>,
    name: &'static str,
    f: fn(&[f64]) -> f64,
) -> Result<Bound, String> {
    if let Some(t) = args.types.iter().find(|t| !is_numeric(t)) {
        return Err(format!("{t} is not numeric"));
    }
    Ok(Bound {
        args: args.types.to_vec(),
        result: LogicalType::Double,
        kernel: Kernel::function(name, &LogicalType::Double, move |cols, rows| {
            let a = arrays(cols, rows)?
                .iter()
                .map(doubles)
                .collect::<DfResult<Vec<_>>>()?;
            let mut x = vec![0.0; a.len()];
            let out: Float64Array = (0..rows)
                .map(|i| {
                    if a.iter().any(|c| c.is_null(i)) {
                        return None;
                    }
                    for (slot, c) in x.iter_mut().zip(&a) {
                        *slot = c.value(i);
                    }
                    Some(f(&x))
                })
                .collect();
            result(cols, Arc::new(out))
        }),
    })
}

/// Java's `Math.pow`, where it differs from C's `pow`: a NaN exponent (other than after a
/// zero exponent) gives NaN even for base 1, and `(±1)^±Infinity` is NaN.
fn java_pow(x: f64, y: f64) -> f64 {
    if y == 0.0 {
        1.0
    } else if y.is_nan() || (x.abs() == 1.0 && y.is_infinite()) {
        f64::NAN
    } else {
        x.powf(y)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `RoundingMode.HALF_UP`.
    Round,
    /// `RoundingMode.DOWN`.
    Truncate,
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

/// `v × 10^shift`, rounded by `mode` when `shift < 0`; `None` past i128.
fn shift(v: i128, shift: i64, mode: Mode) -> Option<i128> {
    if shift >= 0 {
        POW10.get(shift as usize).and_then(|p| v.checked_mul(*p))
    } else {
        let Some(&d) = POW10.get(shift.unsigned_abs() as usize) else {
            return Some(0);
        };
        let (q, r) = (v / d, (v % d).unsigned_abs());
        Some(match mode {
            Mode::Round if r * 2 >= d.unsigned_abs() => q + v.signum(),
            _ => q,
        })
    }
}

/// `LogicalTypeMerging.findRoundDecimalType`: ROUND/TRUNCATE of `DECIMAL(p, s)` to `n` places.
fn round_decimal_type(p: u8, s: u8, n: i32) -> LogicalType {
    let (p, s) = (i32::from(p), i32::from(s));
    let (precision, scale) = if n >= s {
        (p, s)
    } else if n < 0 {
        ((1 + p - s).min(38), 0)
    } else {
        ((1 + p - s + n).min(38), n)
    };
    LogicalType::Decimal {
        precision: precision.max(1) as u8,
        scale: scale as u8,
    }
}

/// `x` (the exact decimal `unscaled × 10^exp`) at `n` places, as a DOUBLE (BigDecimal's
/// correctly rounded `doubleValue`).
fn round_exact(unscaled: i128, exp: i32, n: i64, mode: Mode) -> f64 {
    // Digits already at or above 10^-n need no rounding.
    if i64::from(exp) >= -n {
        return decimal_to_double(unscaled, i64::from(exp));
    }
    let r = shift(unscaled, i64::from(exp) + n, mode).unwrap_or(0);
    decimal_to_double(r, -n)
}

/// The powers of ten a double holds exactly.
const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `unscaled × 10^exp` rounded to the nearest double (`BigDecimal.doubleValue`). With both
/// factors exact in a double (`|unscaled| <= 2^53`, `|exp| <= 22`), one IEEE multiplication
/// or division rounds the exact value once, correctly (Clinger's fast path); otherwise the
/// decimal is parsed.
fn decimal_to_double(unscaled: i128, exp: i64) -> f64 {
    if unscaled.unsigned_abs() <= 1 << 53 {
        let m = unscaled as f64;
        match usize::try_from(exp.unsigned_abs())
            .ok()
            .and_then(|e| EXACT_POW10.get(e))
        {
            Some(p) if exp >= 0 => return m * p,
            Some(p) => return m / p,
            None => {}
        }
    }
    java_format::parse_decimal(unscaled, exp)
}

fn bind_round(args: &Args<'_>, mode: Mode) -> Result<Bound, String> {
    let ty = args.types[0].clone();
    if !is_numeric(&ty) {
        return Err("the first argument must be numeric".into());
    }
    // A FLOAT/DOUBLE is rounded as `BigDecimal.valueOf(x)`: the JVM's `Double.toString`.
    if is_approximate(&ty) && args.float_text == FloatText::FloatingDecimal {
        return Err(crate::calc::compile::FLOATING_DECIMAL.into());
    }
    if let Some(t) = args.types.get(1)
        && !is_integer(t)
    {
        return Err(format!("the number of places must be an integer, not {t}"));
    }
    let literal_n = match args.types.len() {
        1 => Some(0),
        _ => match args.literal(1) {
            Some(
                ScalarValue::Int8(Some(_))
                | ScalarValue::Int16(Some(_))
                | ScalarValue::Int32(Some(_))
                | ScalarValue::Int64(Some(_)),
            ) => args
                .literal(1)
                .and_then(|v| v.cast_to(&DataType::Int64).ok())
                .and_then(|v| match v {
                    ScalarValue::Int64(Some(n)) => Some(n.clamp(-1000, 1000) as i32),
                    _ => None,
                }),
            _ => None,
        },
    };
    let result_type = match &ty {
        LogicalType::Decimal { precision, scale } => {
            let n = literal_n.ok_or("a DECIMAL's number of places must be a literal")?;
            round_decimal_type(*precision, *scale, n)
        }
        other => other.clone(),
    };
    let name = if mode == Mode::Round {
        "ROUND"
    } else {
        "TRUNCATE"
    };
    let (from, to) = (ty.clone(), result_type.clone());
    Ok(Bound {
        args: args.types.to_vec(),
        result: result_type.clone(),
        kernel: Kernel::function(name, &result_type, move |cols, rows| {
            let a = arrays(cols, rows)?;
            let places: Vec<Option<i64>> = match a.get(1) {
                None => vec![Some(0); rows],
                Some(n) => {
                    let n = arrow::compute::cast(n, &DataType::Int64)?;
                    n.as_primitive::<Int64Type>().iter().collect()
                }
            };
            result(cols, round_array(&a[0], &places, &from, &to, mode)?)
        }),
    })
}

fn round_array(
    x: &ArrayRef,
    places: &[Option<i64>],
    from: &LogicalType,
    to: &LogicalType,
    mode: Mode,
) -> DfResult<ArrayRef> {
    fn ints<T: ArrowPrimitiveType>(
        x: &ArrayRef,
        places: &[Option<i64>],
        mode: Mode,
        narrow: impl Fn(i64) -> T::Native,
        widen: impl Fn(T::Native) -> i64,
    ) -> ArrayRef {
        let x = x.as_primitive::<T>();
        let out: PrimitiveArray<T> = (0..x.len())
            .map(|i| {
                let n = places[i]?;
                if x.is_null(i) {
                    return None;
                }
                let v = i128::from(widen(x.value(i)));
                // `sround(BigDecimal.valueOf(x), n).longValue()`, then Java's narrowing.
                let r = if n >= 0 {
                    v
                } else {
                    shift(v, n, mode)
                        .and_then(|q| shift(q, -n, mode))
                        .unwrap_or(0)
                };
                Some(narrow(r as i64))
            })
            .collect();
        Arc::new(out)
    }
    Ok(match from {
        LogicalType::TinyInt => ints::<Int8Type>(x, places, mode, |v| v as i8, i64::from),
        LogicalType::SmallInt => ints::<Int16Type>(x, places, mode, |v| v as i16, i64::from),
        LogicalType::Int => ints::<Int32Type>(x, places, mode, |v| v as i32, i64::from),
        LogicalType::BigInt => ints::<Int64Type>(x, places, mode, |v| v, |v| v),
        LogicalType::Double | LogicalType::Float => {
            let float = matches!(from, LogicalType::Float);
            let d = doubles(x)?;
            let mut out = Vec::with_capacity(d.len());
            for (i, n) in places.iter().enumerate().take(d.len()) {
                let (Some(n), false) = (*n, d.is_null(i)) else {
                    out.push(None);
                    continue;
                };
                let v = d.value(i);
                let (unscaled, exp) = if mode == Mode::Truncate {
                    // `struncate(double)` goes through `castFrom(x, 38, 18)`, whose NULL on
                    // overflow (|x| >= 10^20) Flink then dereferences.
                    let (u, e) = java_format::double_decimal(v).map_err(fail)?;
                    let u = shift(u, i64::from(e) + 18, Mode::Round)
                        .filter(|u| u.unsigned_abs() < POW10[38].unsigned_abs())
                        .ok_or_else(|| {
                            fail(
                                "java.lang.NullPointerException: Cannot invoke \"org.apache.\
                                 flink.table.data.DecimalData.scale()\" because \"b0\" is null",
                            )
                        })?;
                    (u, -18)
                } else {
                    java_format::double_decimal(v).map_err(fail)?
                };
                out.push(Some(round_exact(unscaled, exp, n, mode)));
            }
            if float {
                Arc::new(
                    out.into_iter()
                        .map(|v| v.map(|v| v as f32))
                        .collect::<Float32Array>(),
                ) as ArrayRef
            } else {
                Arc::new(Float64Array::from(out))
            }
        }
        LogicalType::Decimal { scale, .. } => {
            let LogicalType::Decimal {
                precision: rp,
                scale: rs,
            } = *to
            else {
                return Err(fail(format!("ROUND of {from} to {to}")));
            };
            let x = x.as_primitive::<Decimal128Type>();
            let s = i64::from(*scale);
            let out: Decimal128Array = (0..x.len())
                .map(|i| {
                    let n = places[i]?;
                    if x.is_null(i) {
                        return None;
                    }
                    let v = x.value(i);
                    // Round at 10^-n, then express at the result scale.
                    let rounded = if n >= s { v } else { shift(v, n - s, mode)? };
                    let at = if n >= s { s } else { n };
                    let r = shift(rounded, i64::from(rs) - at, mode)?;
                    (r.unsigned_abs() < POW10[usize::from(rp)].unsigned_abs()).then_some(r)
                })
                .collect();
            Arc::new(out.with_precision_and_scale(rp, rs as i8)?)
        }
        other => return Err(fail(format!("ROUND of {other}"))),
    })
}

fn bind_floor_ceil(args: &Args<'_>, ceil: bool) -> Result<Bound, String> {
    let ty = args.types[0].clone();
    let name = if ceil { "CEIL" } else { "FLOOR" };
    let result_type = match &ty {
        t if is_integer(t) => t.clone(),
        LogicalType::Float | LogicalType::Double => ty.clone(),
        // `DECIMAL(p, 0)`: Flink keeps the precision (a carry still fits, as s > 0).
        LogicalType::Decimal { precision, scale } if *scale > 0 => LogicalType::Decimal {
            precision: *precision,
            scale: 0,
        },
        LogicalType::Decimal { .. } => ty.clone(),
        other => return Err(format!("{other} is not numeric")),
    };
    let (from, to) = (ty.clone(), result_type.clone());
    Ok(Bound {
        args: vec![ty],
        result: result_type.clone(),
        kernel: Kernel::function(name, &result_type, move |cols, rows| {
            let a = arrays(cols, rows)?;
            let x = &a[0];
            let out: ArrayRef = match (&from, &to) {
                (LogicalType::Double, _) => Arc::new(
                    x.as_primitive::<Float64Type>()
                        .unary::<_, Float64Type>(|v| if ceil { v.ceil() } else { v.floor() }),
                ),
                (LogicalType::Float, _) => Arc::new(
                    x.as_primitive::<Float32Type>()
                        .unary::<_, Float32Type>(|v| if ceil { v.ceil() } else { v.floor() }),
                ),
                (
                    LogicalType::Decimal { scale, .. },
                    LogicalType::Decimal {
                        precision: rp,
                        scale: 0,
                    },
                ) if *scale > 0 => {
                    let d = POW10[usize::from(*scale)];
                    let limit = POW10[usize::from(*rp)];
                    let out: Decimal128Array = x
                        .as_primitive::<Decimal128Type>()
                        .iter()
                        .map(|v| {
                            let v = v?;
                            let (q, r) = (v.div_euclid(d), v.rem_euclid(d));
                            let r = if ceil && r != 0 { q + 1 } else { q };
                            (r.abs() < limit).then_some(r)
                        })
                        .collect();
                    Arc::new(out.with_precision_and_scale(*rp, 0)?)
                }
                _ => Arc::clone(x),
            };
            result(cols, out)
        }),
    })
}

fn bind_sign(args: &Args<'_>) -> Result<Bound, String> {
    let ty = args.types[0].clone();
    if !is_numeric(&ty) {
        return Err(format!("{ty} is not numeric"));
    }
    let t = ty.clone();
    Ok(Bound {
        args: vec![ty.clone()],
        result: ty.clone(),
        kernel: Kernel::function("SIGN", &ty, move |cols, rows| {
            let a = arrays(cols, rows)?;
            let x = &a[0];
            // `Math.signum`: NaN and ±0.0 are returned unchanged.
            let out: ArrayRef = match &t {
                LogicalType::TinyInt => Arc::new(
                    x.as_primitive::<Int8Type>()
                        .unary::<_, Int8Type>(i8::signum),
                ),
                LogicalType::SmallInt => Arc::new(
                    x.as_primitive::<Int16Type>()
                        .unary::<_, Int16Type>(i16::signum),
                ),
                LogicalType::Int => Arc::new(
                    x.as_primitive::<Int32Type>()
                        .unary::<_, Int32Type>(i32::signum),
                ),
                LogicalType::BigInt => Arc::new(
                    x.as_primitive::<Int64Type>()
                        .unary::<_, Int64Type>(i64::signum),
                ),
                LogicalType::Float => Arc::new(
                    x.as_primitive::<Float32Type>()
                        .unary::<_, Float32Type>(|v| {
                            if v == 0.0 || v.is_nan() {
                                v
                            } else {
                                v.signum()
                            }
                        }),
                ),
                LogicalType::Double => Arc::new(
                    x.as_primitive::<Float64Type>()
                        .unary::<_, Float64Type>(|v| {
                            if v == 0.0 || v.is_nan() {
                                v
                            } else {
                                v.signum()
                            }
                        }),
                ),
                LogicalType::Decimal { precision, scale } => {
                    // `fromBigDecimal(signum, p, s)`: NULL when 1 does not fit (p == s).
                    let one = POW10[usize::from(*scale)];
                    let limit = POW10[usize::from(*precision)];
                    let out: Decimal128Array = x
                        .as_primitive::<Decimal128Type>()
                        .iter()
                        .map(|v| {
                            let r = v?.signum() * one;
                            (r.abs() < limit).then_some(r)
                        })
                        .collect();
                    Arc::new(out.with_precision_and_scale(*precision, *scale as i8)?)
                }
                other => return Err(fail(format!("SIGN of {other}"))),
            };
            result(cols, out)
        }),
    })
}

/// `java.util.Random`: a 48-bit linear congruential generator.
#[derive(Debug, Clone)]
pub struct JavaRandom {
    seed: i64,
}

impl JavaRandom {
    const MULTIPLIER: i64 = 0x5_DEEC_E66D;
    const MASK: i64 = (1 << 48) - 1;

    /// `new Random(seed)`.
    pub fn new(seed: i64) -> Self {
        Self {
            seed: (seed ^ Self::MULTIPLIER) & Self::MASK,
        }
    }

    fn next(&mut self, bits: u32) -> i32 {
        self.seed = (self.seed.wrapping_mul(Self::MULTIPLIER).wrapping_add(0xB)) & Self::MASK;
        (self.seed >> (48 - bits)) as i32
    }

    /// `nextDouble()`.
    pub fn next_double(&mut self) -> f64 {
        let hi = i64::from(self.next(26)) << 27;
        (hi + i64::from(self.next(27))) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `nextInt(bound)` for `bound > 0`.
    pub fn next_int(&mut self, bound: i32) -> i32 {
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
        }
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }
}

fn literal_i64(v: Option<&ScalarValue>) -> Option<i64> {
    match v?.cast_to(&DataType::Int64).ok()? {
        ScalarValue::Int64(v) => v,
        _ => None,
    }
}

/// RAND([seed]) and RAND_INTEGER([seed, ] bound). A seed must be a literal (Flink keeps one
/// seeded generator per operator); without one the generator is seeded from the clock, as
/// Java's `new Random()` is.
fn bind_rand(args: &Args<'_>, integer: bool) -> Result<Bound, String> {
    if let Some(t) = args.types.iter().find(|t| !is_integer(t)) {
        return Err(format!("{t} is not an integer"));
    }
    let seeded = args.types.len() == if integer { 2 } else { 1 };
    let seed = if seeded {
        Some(literal_i64(args.literal(0)).ok_or("the seed must be a non-NULL integer literal")?)
    } else {
        None
    };
    let rng = Arc::new(Mutex::new(JavaRandom::new(seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i64)
    }))));
    let result_type = if integer {
        LogicalType::Int
    } else {
        LogicalType::Double
    };
    let name = if integer { "RAND_INTEGER" } else { "RAND" };
    Ok(Bound {
        args: args.types.to_vec(),
        result: result_type.clone(),
        kernel: Kernel::function(name, &result_type, move |cols, rows| {
            let a = arrays(cols, rows)?;
            let mut rng = rng.lock().map_err(|_| fail("RAND: generator poisoned"))?;
            let out: ArrayRef = if integer {
                let bound = arrow::compute::cast(&a[a.len() - 1], &DataType::Int32)?;
                let bound = bound.as_primitive::<Int32Type>();
                let mut out = Vec::with_capacity(rows);
                for b in bound.iter() {
                    out.push(match b {
                        None => None,
                        Some(b) if b <= 0 => {
                            return Err(fail(
                                "java.lang.IllegalArgumentException: bound must be positive",
                            ));
                        }
                        Some(b) => Some(rng.next_int(b)),
                    });
                }
                Arc::new(Int32Array::from(out))
            } else {
                Arc::new(
                    (0..rows)
                        .map(|_| Some(rng.next_double()))
                        .collect::<Float64Array>(),
                )
            };
            // Even for scalar arguments the values differ per row.
            Ok(ColumnarValue::Array(out))
        }),
    })
}

/// The plain text of a DECIMAL result (used by tests).
#[cfg(test)]
fn dec_text(a: &ArrayRef, i: usize) -> Option<String> {
    let d = a.as_primitive::<Decimal128Type>();
    (!d.is_null(i)).then(|| crate::calc::cast::decimal_string(d.value(i), d.scale() as u8))
}

#[cfg(test)]
#[allow(clippy::approx_constant)] // expected values are Java's printed digits
mod tests {
    use super::*;
    use LogicalType as T;
    use arrow::array::{Int8Array, Int64Array};

    fn bind(opcode: u16, types: &[LogicalType], literals: &[Option<ScalarValue>]) -> Bound {
        let def = FUNCTIONS.iter().find(|d| d.opcode == opcode).unwrap();
        (def.bind)(&Args::utc(types, literals)).unwrap()
    }

    fn call(b: &Bound, cols: Vec<ArrayRef>) -> ArrayRef {
        let Kernel::Function(udf) = &b.kernel else {
            panic!("not a function")
        };
        let rows = cols.first().map_or(1, |c| c.len());
        let args: Vec<ColumnarValue> = cols.into_iter().map(ColumnarValue::Array).collect();
        let arg_fields = args
            .iter()
            .map(|a| Arc::new(arrow::datatypes::Field::new("a", a.data_type(), true)))
            .collect();
        udf.invoke_with_args(datafusion::logical_expr::ScalarFunctionArgs {
            args,
            arg_fields,
            number_rows: rows,
            return_field: Arc::new(arrow::datatypes::Field::new("r", b.result.to_arrow(), true)),
            config_options: Arc::new(datafusion::common::config::ConfigOptions::default()),
        })
        .unwrap()
        .to_array(rows)
        .unwrap()
    }

    fn dbl(v: &[f64]) -> ArrayRef {
        Arc::new(Float64Array::from(v.to_vec()))
    }

    fn decimal(v: &[i128], p: u8, s: u8) -> ArrayRef {
        Arc::new(
            Decimal128Array::from(v.to_vec())
                .with_precision_and_scale(p, s as i8)
                .unwrap(),
        )
    }

    fn int_lit(n: i32) -> Option<ScalarValue> {
        Some(ScalarValue::Int32(Some(n)))
    }

    fn f64s(a: &ArrayRef) -> Vec<f64> {
        a.as_primitive::<Float64Type>().values().to_vec()
    }

    // Expected values were printed by Flink 2.3.0 or Java 17 (`Math`, `java.util.Random`).

    #[test]
    fn round_doubles_through_their_decimal_string() {
        let b = bind(ROUND, &[T::Double, T::Int], &[None, int_lit(2)]);
        assert_eq!(b.result, T::Double);
        let out = call(
            &b,
            vec![
                dbl(&[0.285, 2.675, 1.005, 1e300]),
                Arc::new(Int32Array::from(vec![2; 4])),
            ],
        );
        assert_eq!(f64s(&out), vec![0.29, 2.68, 1.01, 1e300]);
        let b = bind(ROUND, &[T::Double], &[None]);
        let out = call(&b, vec![dbl(&[2.5, -2.5, -0.4])]);
        let v = f64s(&out);
        assert_eq!(v, vec![3.0, -3.0, 0.0]);
        assert!(v[2].is_sign_positive()); // BigDecimal has no -0
        let b = bind(ROUND, &[T::Double, T::Int], &[None, int_lit(-2)]);
        let out = call(
            &b,
            vec![dbl(&[1234.5]), Arc::new(Int32Array::from(vec![-2]))],
        );
        assert_eq!(f64s(&out), vec![1200.0]);
        // NaN fails as BigDecimal.valueOf does.
        let def = FUNCTIONS.iter().find(|d| d.opcode == ROUND).unwrap();
        let b = (def.bind)(&Args::utc(&[T::Double], &[None])).unwrap();
        let Kernel::Function(udf) = &b.kernel else {
            panic!()
        };
        let err = udf
            .invoke_with_args(datafusion::logical_expr::ScalarFunctionArgs {
                args: vec![ColumnarValue::Array(dbl(&[f64::NAN]))],
                arg_fields: vec![Arc::new(arrow::datatypes::Field::new(
                    "a",
                    DataType::Float64,
                    true,
                ))],
                number_rows: 1,
                return_field: Arc::new(arrow::datatypes::Field::new("r", DataType::Float64, true)),
                config_options: Arc::new(datafusion::common::config::ConfigOptions::default()),
            })
            .unwrap_err();
        assert!(err.to_string().contains("Character N is neither"), "{err}");
        // FLOAT: 1.5f -> 2.0, 2.5f -> 3.0, 0.1f -> 0.0.
        let b = bind(ROUND, &[T::Float], &[None]);
        let out = call(
            &b,
            vec![Arc::new(Float32Array::from(vec![1.5f32, 2.5, 0.1]))],
        );
        assert_eq!(
            out.as_primitive::<Float32Type>().values().to_vec(),
            vec![2.0, 3.0, 0.0]
        );
    }

    #[test]
    fn round_integers_wraps_at_their_width() {
        let b = bind(ROUND, &[T::TinyInt, T::Int], &[None, int_lit(-1)]);
        assert_eq!(b.result, T::TinyInt);
        let out = call(
            &b,
            vec![
                Arc::new(Int8Array::from(vec![127, -15, 14])),
                Arc::new(Int32Array::from(vec![-1; 3])),
            ],
        );
        assert_eq!(
            out.as_primitive::<Int8Type>().values().to_vec(),
            vec![-126, -20, 10]
        );
        let b = bind(ROUND, &[T::BigInt, T::Int], &[None, int_lit(-20)]);
        let out = call(
            &b,
            vec![
                Arc::new(Int64Array::from(vec![5])),
                Arc::new(Int32Array::from(vec![-20])),
            ],
        );
        assert_eq!(out.as_primitive::<Int64Type>().value(0), 0);
        let b = bind(ROUND, &[T::Int, T::Int], &[None, int_lit(-3)]);
        let out = call(
            &b,
            vec![
                Arc::new(Int32Array::from(vec![1_234_567])),
                Arc::new(Int32Array::from(vec![-3])),
            ],
        );
        assert_eq!(out.as_primitive::<Int32Type>().value(0), 1_235_000);
        let b = bind(TRUNCATE, &[T::Int, T::Int], &[None, int_lit(-1)]);
        let out = call(
            &b,
            vec![
                Arc::new(Int32Array::from(vec![159, -15])),
                Arc::new(Int32Array::from(vec![-1; 2])),
            ],
        );
        assert_eq!(
            out.as_primitive::<Int32Type>().values().to_vec(),
            vec![150, -10]
        );
    }

    #[test]
    fn round_and_truncate_decimals() {
        let cases = [
            (
                ROUND,
                125,
                5,
                2,
                1,
                T::Decimal {
                    precision: 5,
                    scale: 1,
                },
                "1.3",
            ),
            (
                ROUND,
                -125,
                5,
                2,
                1,
                T::Decimal {
                    precision: 5,
                    scale: 1,
                },
                "-1.3",
            ),
            (
                ROUND,
                9995,
                4,
                2,
                1,
                T::Decimal {
                    precision: 4,
                    scale: 1,
                },
                "100.0",
            ),
            (
                ROUND,
                9995,
                4,
                3,
                2,
                T::Decimal {
                    precision: 4,
                    scale: 2,
                },
                "10.00",
            ),
            (
                ROUND,
                12345,
                5,
                1,
                -2,
                T::Decimal {
                    precision: 5,
                    scale: 0,
                },
                "1200",
            ),
            (
                ROUND,
                125,
                5,
                2,
                3,
                T::Decimal {
                    precision: 5,
                    scale: 2,
                },
                "1.25",
            ),
            (
                TRUNCATE,
                12345,
                5,
                1,
                -2,
                T::Decimal {
                    precision: 5,
                    scale: 0,
                },
                "1200",
            ),
            (
                TRUNCATE,
                1999,
                5,
                3,
                1,
                T::Decimal {
                    precision: 4,
                    scale: 1,
                },
                "1.9",
            ),
            (
                TRUNCATE,
                -1999,
                4,
                3,
                2,
                T::Decimal {
                    precision: 4,
                    scale: 2,
                },
                "-1.99",
            ),
        ];
        for (op, v, p, s, n, ty, text) in cases {
            let b = bind(
                op,
                &[
                    T::Decimal {
                        precision: p,
                        scale: s,
                    },
                    T::Int,
                ],
                &[None, int_lit(n)],
            );
            assert_eq!(b.result, ty, "{v} {n}");
            let out = call(
                &b,
                vec![decimal(&[v], p, s), Arc::new(Int32Array::from(vec![n]))],
            );
            assert_eq!(dec_text(&out, 0).as_deref(), Some(text), "{v} {n}");
        }
    }

    #[test]
    fn decimals_become_the_nearest_double_on_the_fast_path_too() {
        // The model: the decimal's text parsed (correctly rounded by Rust's parser).
        let model = |u: i128, e: i64| format!("{u}e{e}").parse::<f64>().unwrap();
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            state >> 11
        };
        for _ in 0..200_000 {
            let digits = next() % 19;
            let u = (next() % 10u64.pow(digits as u32 + 1)) as i128;
            let u = if next() % 2 == 0 { -u } else { u };
            let e = (next() % 61) as i64 - 30;
            assert_eq!(
                decimal_to_double(u, e).to_bits(),
                model(u, e).to_bits(),
                "{u}e{e}"
            );
        }
        for (u, e) in [
            (1i128 << 53, -22),
            ((1 << 53) + 1, 3),
            (i128::MAX, -5),
            (-1, 22),
        ] {
            assert_eq!(decimal_to_double(u, e).to_bits(), model(u, e).to_bits());
        }
    }

    #[test]
    fn truncate_doubles() {
        let b = bind(TRUNCATE, &[T::Double, T::Int], &[None, int_lit(1)]);
        let out = call(
            &b,
            vec![
                dbl(&[1.99, -1.99, 0.285]),
                Arc::new(Int32Array::from(vec![1; 3])),
            ],
        );
        assert_eq!(f64s(&out), vec![1.9, -1.9, 0.2]);
        let b = bind(TRUNCATE, &[T::Float, T::Int], &[None, int_lit(8)]);
        let out = call(
            &b,
            vec![
                Arc::new(Float32Array::from(vec![0.123_456_79_f32])),
                Arc::new(Int32Array::from(vec![8])),
            ],
        );
        assert_eq!(out.as_primitive::<Float32Type>().value(0), 0.123_456_79);
        let b = bind(ROUND, &[T::Float, T::Int], &[None, int_lit(2)]);
        let out = call(
            &b,
            vec![
                Arc::new(Float32Array::from(vec![123.456f32])),
                Arc::new(Int32Array::from(vec![2])),
            ],
        );
        assert_eq!(out.as_primitive::<Float32Type>().value(0), 123.46);
        let b = bind(TRUNCATE, &[T::Float, T::Int], &[None, int_lit(3)]);
        let out = call(
            &b,
            vec![
                Arc::new(Float32Array::from(vec![0.1f32, 1.7])),
                Arc::new(Int32Array::from(vec![3; 2])),
            ],
        );
        assert_eq!(
            out.as_primitive::<Float32Type>().values().to_vec(),
            vec![0.1, 1.7]
        );
    }

    #[test]
    fn double_functions_follow_java_math() {
        let unary =
            |op: u16, x: f64| f64s(&call(&bind(op, &[T::Double], &[None]), vec![dbl(&[x])]))[0];
        assert_eq!(unary(TAN, 1.0), 1.557_407_724_654_902_3);
        assert_eq!(unary(COSH, 1.0), 1.543_080_634_815_244);
        assert_eq!(unary(SINH, 1.0), 1.175_201_193_643_801_4);
        assert_eq!(unary(TANH, 1.0), 0.761_594_155_955_764_9);
        // Math.sinh/cosh/tanh delegate to StrictMath (fdlibm), unlike the C library.
        for (x, sinh, cosh, tanh) in [
            (0.2, None, Some(1.020_066_755_619_076), None),
            (
                0.3,
                Some(0.304_520_293_447_142_6),
                None,
                Some(0.291_312_612_451_590_9),
            ),
            (
                3.0,
                Some(10.017_874_927_409_903),
                Some(10.067_661_995_777_765),
                Some(0.995_054_753_686_730_5),
            ),
            (30.0, None, Some(5.343_237_290_762_231e12), None),
        ] {
            if let Some(v) = sinh {
                assert_eq!(unary(SINH, x), v, "sinh {x}");
            }
            if let Some(v) = cosh {
                assert_eq!(unary(COSH, x), v, "cosh {x}");
            }
            if let Some(v) = tanh {
                assert_eq!(unary(TANH, x), v, "tanh {x}");
            }
        }
        assert_eq!(unary(EXP, 1.0), 2.718_281_828_459_045);
        assert_eq!(unary(LOG10, 1000.0), 3.0);
        assert_eq!(unary(LOG2, 8.0), 3.0);
        assert_eq!(unary(LN, 8.0), 2.079_441_541_679_835_7);
        assert_eq!(unary(LN, 0.0), f64::NEG_INFINITY);
        assert!(
            unary(LN, -1.0).is_nan() && unary(SQRT, -1.0).is_nan() && unary(ASIN, 2.0).is_nan()
        );
        assert_eq!(unary(DEGREES, std::f64::consts::PI), 180.0);
        assert_eq!(unary(DEGREES, 1.0), 57.295_779_513_082_32);
        assert_eq!(unary(RADIANS, 180.0), std::f64::consts::PI);
        assert_eq!(unary(RADIANS, 1.5), 0.026_179_938_779_914_945);
        assert_eq!(unary(ACOS, 0.5), 1.047_197_551_196_597_9);
        assert_eq!(unary(COT, 1.0), 0.642_092_615_934_330_6);
        let binary = |op: u16, x: f64, y: f64| {
            f64s(&call(
                &bind(op, &[T::Double, T::Double], &[None, None]),
                vec![dbl(&[x]), dbl(&[y])],
            ))[0]
        };
        assert_eq!(binary(LOG, 2.0, 1024.0), 10.0);
        assert_eq!(binary(LOG, 0.0, 8.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(binary(LOG, 1.0, 8.0), f64::INFINITY);
        assert_eq!(binary(POWER, 2.0, 10.0), 1024.0);
        assert!(binary(POWER, -8.0, 0.5).is_nan());
        assert!(binary(POWER, 1.0, f64::NAN).is_nan());
        assert_eq!(binary(POWER, f64::NAN, 0.0), 1.0);
        assert_eq!(binary(POWER, 0.0, -1.0), f64::INFINITY);
        assert_eq!(binary(ATAN2, 1.0, 1.0), 0.785_398_163_397_448_3);
        // A DECIMAL argument is widened as DecimalDataUtils.doubleValue; NULL stays NULL.
        let b = bind(
            SQRT,
            &[T::Decimal {
                precision: 3,
                scale: 1,
            }],
            &[None],
        );
        let out = call(
            &b,
            vec![Arc::new(
                Decimal128Array::from(vec![Some(20), None])
                    .with_precision_and_scale(3, 1)
                    .unwrap(),
            )],
        );
        let out = out.as_primitive::<Float64Type>();
        assert_eq!(out.value(0), 1.414_213_562_373_095_1);
        assert!(out.is_null(1));
    }

    #[test]
    fn floor_ceil_and_sign() {
        let b = bind(
            CEIL,
            &[T::Decimal {
                precision: 3,
                scale: 1,
            }],
            &[None],
        );
        assert_eq!(
            b.result,
            T::Decimal {
                precision: 3,
                scale: 0
            }
        );
        let out = call(&b, vec![decimal(&[995, -15, 15], 3, 1)]);
        assert_eq!(
            out.as_primitive::<Decimal128Type>().values().to_vec(),
            vec![100, -1, 2]
        );
        let b = bind(
            FLOOR,
            &[T::Decimal {
                precision: 5,
                scale: 2,
            }],
            &[None],
        );
        assert_eq!(
            b.result,
            // Flink keeps the precision: DECIMAL(5, 0), not DECIMAL(4, 0) (golden
            // `floor_ceil_sign`).
            T::Decimal {
                precision: 5,
                scale: 0
            }
        );
        let out = call(&b, vec![decimal(&[150, -150], 5, 2)]);
        assert_eq!(
            out.as_primitive::<Decimal128Type>().values().to_vec(),
            vec![1, -2]
        );
        let b = bind(FLOOR, &[T::Double], &[None]);
        assert_eq!(f64s(&call(&b, vec![dbl(&[-1.5, -0.5])])), vec![-2.0, -1.0]);
        let b = bind(CEIL, &[T::Double], &[None]);
        assert_eq!(
            f64s(&call(&b, vec![dbl(&[-0.5])]))[0].to_bits(),
            (-0.0f64).to_bits()
        );
        let b = bind(SIGN, &[T::Double], &[None]);
        let v = f64s(&call(&b, vec![dbl(&[-2.5, 0.0, -0.0, f64::NAN])]));
        assert_eq!(
            (v[0], v[1].to_bits(), v[2].to_bits()),
            (-1.0, 0, (-0.0f64).to_bits())
        );
        assert!(v[3].is_nan());
        let b = bind(
            SIGN,
            &[T::Decimal {
                precision: 5,
                scale: 2,
            }],
            &[None],
        );
        let out = call(&b, vec![decimal(&[-250], 5, 2)]);
        assert_eq!(dec_text(&out, 0).as_deref(), Some("-1.00"));
        let b = bind(SIGN, &[T::Int], &[None]);
        let out = call(&b, vec![Arc::new(Int32Array::from(vec![-3, 0, 9]))]);
        assert_eq!(
            out.as_primitive::<Int32Type>().values().to_vec(),
            vec![-1, 0, 1]
        );
    }

    #[test]
    fn java_random_sequences() {
        // new Random(42).nextDouble() etc., as Flink's RAND(42) and RAND_INTEGER(42, 100).
        assert_eq!(JavaRandom::new(42).next_double(), 0.727_563_680_032_868_1);
        assert_eq!(JavaRandom::new(0).next_double(), 0.730_967_787_376_657);
        assert_eq!(JavaRandom::new(-5).next_double(), 0.269_300_957_969_324_85);
        assert_eq!(JavaRandom::new(42).next_int(100), 30);
        assert_eq!(JavaRandom::new(7).next_int(10), 6);
        assert_eq!(JavaRandom::new(1).next_int(1 << 30), 784_774_492);
        assert_eq!(JavaRandom::new(1).next_int(1_000_000_007), 569_548_978);
        // The generator carries over from row to row and batch to batch.
        let b = bind(RAND, &[T::Int], &[int_lit(42)]);
        let first = call(&b, vec![Arc::new(Int32Array::from(vec![42, 42]))]);
        let second = call(&b, vec![Arc::new(Int32Array::from(vec![42]))]);
        let mut r = JavaRandom::new(42);
        let expected = [r.next_double(), r.next_double(), r.next_double()];
        assert_eq!([f64s(&first), f64s(&second)].concat(), expected.to_vec());
    }
}
