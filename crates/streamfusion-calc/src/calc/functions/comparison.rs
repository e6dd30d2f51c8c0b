//! Comparisons and predicates (opcodes 200–299).
//!
//! Operands are cast to their common type first. Integers, DECIMALs, strings (UTF-8 byte
//! order, as `BinaryStringData.compareTo`), binaries, booleans and temporal values compare
//! with Arrow's kernels. FLOAT/DOUBLE compare as Java primitives do, not by Arrow's total
//! order: NaN is unequal to everything (itself included) and `-0.0 = 0.0`. TIMESTAMPs of
//! different precisions, one of them above 6, compare uncast as exact nanoseconds (the
//! nanosecond carrier would not hold the other's years before 1677 or after 2262).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray};
use arrow::compute::interleave;
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Float32Type, Float64Type, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use arrow::row::{RowConverter, Rows, SortField};
use datafusion::logical_expr::{ColumnarValue, Operator};
use datafusion::physical_expr::expressions::{IsNotNullExpr, IsNullExpr};

use datafusion::error::Result as DfResult;

use streamfusion_core::float_order::{
    f32_order_key, f32_order_keys, f64_order_key, f64_order_keys,
};

use crate::calc::coercion::{
    common_numeric, common_type, is_approximate, is_binary, is_string, operand_type,
};
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::util::{arrays, fail, result};

/// `a = b`.
pub const EQUALS: u16 = 200;
/// `a <> b`.
pub const NOT_EQUALS: u16 = 201;
/// `a < b`.
pub const LESS_THAN: u16 = 202;
/// `a <= b`.
pub const LESS_THAN_OR_EQUAL: u16 = 203;
/// `a > b`.
pub const GREATER_THAN: u16 = 204;
/// `a >= b`.
pub const GREATER_THAN_OR_EQUAL: u16 = 205;
/// `a IS NULL`.
pub const IS_NULL: u16 = 206;
/// `a IS NOT NULL`.
pub const IS_NOT_NULL: u16 = 207;
/// `a IS TRUE`.
pub const IS_TRUE: u16 = 208;
/// `a IS FALSE`.
pub const IS_FALSE: u16 = 209;
/// `a IS NOT TRUE`.
pub const IS_NOT_TRUE: u16 = 210;
/// `a IS NOT FALSE`.
pub const IS_NOT_FALSE: u16 = 211;
/// `a = b` as a member test of Flink's IN-list hash sets (a Sarg of points): FLOAT/DOUBLE
/// compare by `floatToIntBits`/`doubleToLongBits` (`NaN` equals `NaN`, `-0.0` is not `0.0`),
/// other types as `=`.
pub const IN_SET_EQUALS: u16 = 212;
/// `GREATEST(a, b, ...)`: NULL if any argument is NULL, else the greatest by the common
/// type's `compareTo` (FLOAT/DOUBLE by `Double.compare`: NaN greatest, `-0.0 < 0.0`), the
/// first of equals (`ScalarOperatorGens.generateGreatestLeast`). The common type.
pub const GREATEST: u16 = 213;
/// `LEAST(a, b, ...)`, as [`GREATEST`] for the least.
pub const LEAST: u16 = 214;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: EQUALS,
        name: "=",
        arity: Arity::Exact(2),
        bind: |a| bind_compare(a, Cmp::Eq),
    },
    FunctionDef {
        opcode: IN_SET_EQUALS,
        name: "= (IN set)",
        arity: Arity::Exact(2),
        bind: |a| bind_compare_as(a, Cmp::Eq, true),
    },
    FunctionDef {
        opcode: NOT_EQUALS,
        name: "<>",
        arity: Arity::Exact(2),
        bind: |a| bind_compare(a, Cmp::NotEq),
    },
    FunctionDef {
        opcode: LESS_THAN,
        name: "<",
        arity: Arity::Exact(2),
        bind: |a| bind_compare(a, Cmp::Lt),
    },
    FunctionDef {
        opcode: LESS_THAN_OR_EQUAL,
        name: "<=",
        arity: Arity::Exact(2),
        bind: |a| bind_compare(a, Cmp::LtEq),
    },
    FunctionDef {
        opcode: GREATER_THAN,
        name: ">",
        arity: Arity::Exact(2),
        bind: |a| bind_compare(a, Cmp::Gt),
    },
    FunctionDef {
        opcode: GREATER_THAN_OR_EQUAL,
        name: ">=",
        arity: Arity::Exact(2),
        bind: |a| bind_compare(a, Cmp::GtEq),
    },
    FunctionDef {
        opcode: IS_NULL,
        name: "IS NULL",
        arity: Arity::Exact(1),
        bind: |a| {
            Ok(Bound {
                args: a.types.to_vec(),
                result: LogicalType::Boolean,
                kernel: Kernel::Physical(|mut args| Ok(Arc::new(IsNullExpr::new(args.remove(0))))),
            })
        },
    },
    FunctionDef {
        opcode: IS_NOT_NULL,
        name: "IS NOT NULL",
        arity: Arity::Exact(1),
        bind: |a| {
            Ok(Bound {
                args: a.types.to_vec(),
                result: LogicalType::Boolean,
                kernel: Kernel::Physical(|mut args| {
                    Ok(Arc::new(IsNotNullExpr::new(args.remove(0))))
                }),
            })
        },
    },
    FunctionDef {
        opcode: GREATEST,
        name: "GREATEST",
        arity: Arity::AtLeast(1),
        bind: |a| bind_extreme(a, true),
    },
    FunctionDef {
        opcode: LEAST,
        name: "LEAST",
        arity: Arity::AtLeast(1),
        bind: |a| bind_extreme(a, false),
    },
    FunctionDef {
        opcode: IS_TRUE,
        name: "IS TRUE",
        arity: Arity::Exact(1),
        bind: |a| bind_truth(a, Some(true), false),
    },
    FunctionDef {
        opcode: IS_FALSE,
        name: "IS FALSE",
        arity: Arity::Exact(1),
        bind: |a| bind_truth(a, Some(false), false),
    },
    FunctionDef {
        opcode: IS_NOT_TRUE,
        name: "IS NOT TRUE",
        arity: Arity::Exact(1),
        bind: |a| bind_truth(a, Some(true), true),
    },
    FunctionDef {
        opcode: IS_NOT_FALSE,
        name: "IS NOT FALSE",
        arity: Arity::Exact(1),
        bind: |a| bind_truth(a, Some(false), true),
    },
];

fn bind_extreme(args: &Args<'_>, greatest: bool) -> Result<Bound, String> {
    let mut common = args.types[0].clone();
    for t in &args.types[1..] {
        common = common_type(&common, t)
            .ok_or_else(|| format!("{common} and {t} have no common type"))?;
    }
    if matches!(
        common,
        LogicalType::Row(_)
            | LogicalType::Array(_)
            | LogicalType::Map(..)
            | LogicalType::IntervalYearMonth
            | LogicalType::IntervalDayTime
    ) {
        return Err(format!("{common} values are not compared natively"));
    }
    // Flink casts each argument to the common type before testing it for NULL: a NULL
    // DECIMAL that needs a cast is dereferenced (`NullPointerException`), the job fails.
    let dereferenced: Vec<bool> = args
        .types
        .iter()
        .map(|t| matches!(t, LogicalType::Decimal { .. }) && *t != common)
        .collect();
    let name = if greatest { "GREATEST" } else { "LEAST" };
    let kernel = Kernel::function(name, &common, move |args, rows| {
        let arrays = arrays(args, rows)?;
        let field = SortField::new(order_key(&arrays[0])?.data_type().clone());
        let converter = RowConverter::new(vec![field])?;
        let rows_of = arrays
            .iter()
            .map(|a| Ok(converter.convert_columns(&[order_key(a)?])?))
            .collect::<DfResult<Vec<Rows>>>()?;
        let n = arrays[0].len();
        let mut picks = Vec::with_capacity(n);
        for i in 0..n {
            // A NULL argument makes the result NULL: pick that NULL.
            if let Some(k) = arrays.iter().position(|a| a.is_null(i)) {
                if dereferenced[k] {
                    return Err(fail(format!(
                        "java.lang.NullPointerException: {name} casts its NULL DECIMAL \
                         argument {} (Flink's generated code dereferences it)",
                        k + 1
                    )));
                }
                picks.push((k, i));
                continue;
            }
            let mut best = 0;
            for k in 1..arrays.len() {
                let order = rows_of[best].row(i).cmp(&rows_of[k].row(i));
                if (greatest && order.is_lt()) || (!greatest && order.is_gt()) {
                    best = k;
                }
            }
            picks.push((best, i));
        }
        let sources: Vec<&dyn Array> = arrays.iter().map(|a| a.as_ref()).collect();
        result(args, interleave(&sources, &picks)?)
    });
    Ok(Bound {
        args: vec![common.clone(); args.types.len()],
        result: common,
        kernel,
    })
}

/// A column whose Arrow order is Java's `compareTo` order: FLOAT/DOUBLE as their
/// `Float.compare`/`Double.compare` keys, anything else as is.
fn order_key(a: &ArrayRef) -> DfResult<ArrayRef> {
    Ok(match a.data_type() {
        DataType::Float64 => Arc::new(f64_order_keys(a.as_primitive::<Float64Type>())),
        DataType::Float32 => Arc::new(f32_order_keys(a.as_primitive::<Float32Type>())),
        _ => a.clone(),
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl Cmp {
    fn operator(self) -> Operator {
        match self {
            Cmp::Eq => Operator::Eq,
            Cmp::NotEq => Operator::NotEq,
            Cmp::Lt => Operator::Lt,
            Cmp::LtEq => Operator::LtEq,
            Cmp::Gt => Operator::Gt,
            Cmp::GtEq => Operator::GtEq,
        }
    }

    fn test<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::NotEq => a != b,
            Cmp::Lt => a < b,
            Cmp::LtEq => a <= b,
            Cmp::Gt => a > b,
            Cmp::GtEq => a >= b,
        }
    }
}

/// The type two comparison operands are cast to. Calcite casts the operands of `=` and
/// `<>` to their least restrictive type (of FLOAT and DOUBLE, the first's), but leaves those
/// of `<`, `<=`, `>`, `>=` alone (`Consistency.COMPARE`): Flink's generated code then
/// compares them as Java primitives, FLOAT widened to DOUBLE.
fn comparable(a: &LogicalType, b: &LogicalType, cmp: Cmp) -> Option<LogicalType> {
    use LogicalType::*;
    if is_approximate(a) && is_approximate(b) && !matches!(cmp, Cmp::Eq | Cmp::NotEq) {
        return common_numeric(a, b);
    }
    if let Some(t) = operand_type(a, b) {
        return Some(t);
    }
    match (a, b) {
        _ if is_string(a) && is_string(b) => Some(VarChar(i32::MAX as u32)),
        _ if is_binary(a) && is_binary(b) => Some(VarBinary(i32::MAX as u32)),
        _ if a == b && !matches!(a, Row(_)) => Some(a.clone()),
        (Timestamp(p), Timestamp(q)) => Some(Timestamp(*p.max(q))),
        (TimestampLtz(p), TimestampLtz(q)) => Some(TimestampLtz(*p.max(q))),
        _ => None,
    }
}

fn bind_compare(args: &Args<'_>, cmp: Cmp) -> Result<Bound, String> {
    bind_compare_as(args, cmp, false)
}

/// A comparison; `bits` compares two approximate numbers by their Java bits (a hash set's
/// equality) instead of as primitives.
fn bind_compare_as(args: &Args<'_>, cmp: Cmp, bits: bool) -> Result<Bound, String> {
    let [a, b] = args.types else {
        unreachable!("arity checked")
    };
    let common = comparable(a, b, cmp).ok_or("the operands are not comparable")?;
    // Strings of different lengths compare as they are: no cast needed for VARCHAR bytes.
    let operand = |t: &LogicalType| {
        if is_string(t) || is_binary(t) {
            t.clone()
        } else {
            common.clone()
        }
    };
    // DECIMAL against FLOAT or DOUBLE is `DecimalDataUtils.compare(DecimalData, double)`:
    // `Double.compare` of the decimal's `doubleValue`, a total order (NaN above everything,
    // -0.0 below 0.0), where two approximate numbers compare as primitives.
    let decimal = |t: &LogicalType| matches!(t, LogicalType::Decimal { .. });
    let total_order = (decimal(a) && is_approximate(b))
        || (is_approximate(a) && decimal(b))
        || (bits && is_approximate(&common));
    // TIMESTAMP(p) against TIMESTAMP(q), q > 6: `TimestampData.compareTo` on each value as it
    // is, since widening to nanoseconds would fail before 1677 and after 2262.
    if mixed_timestamps(a, b) {
        return Ok(Bound {
            args: vec![a.clone(), b.clone()],
            result: LogicalType::Boolean,
            kernel: Kernel::function(
                format!("timestamp {cmp:?}"),
                &LogicalType::Boolean,
                move |args, rows| timestamp_compare(args, rows, cmp),
            ),
        });
    }
    let kernel = if total_order {
        Kernel::function(
            format!("Double.compare {cmp:?}"),
            &LogicalType::Boolean,
            move |args, rows| total_order_compare(args, rows, cmp),
        )
    } else if is_approximate(&common) {
        Kernel::function(
            format!("float {cmp:?}"),
            &LogicalType::Boolean,
            move |args, rows| float_compare(args, rows, cmp),
        )
    } else {
        Kernel::Binary(cmp.operator())
    };
    Ok(Bound {
        args: vec![operand(a), operand(b)],
        result: LogicalType::Boolean,
        kernel,
    })
}

/// Two TIMESTAMPs (or two TIMESTAMP_LTZs) of different precisions, one of them carried in
/// nanoseconds.
fn mixed_timestamps(a: &LogicalType, b: &LogicalType) -> bool {
    use LogicalType::{Timestamp, TimestampLtz};
    match (a, b) {
        (Timestamp(p), Timestamp(q)) | (TimestampLtz(p), TimestampLtz(q)) => {
            p != q && *p.max(q) > 6
        }
        _ => false,
    }
}

/// Two timestamp arrays of any units compared as exact nanoseconds since the epoch.
fn timestamp_compare(
    args: &[ColumnarValue],
    rows: usize,
    cmp: Cmp,
) -> datafusion::error::Result<ColumnarValue> {
    let a = arrays(args, rows)?;
    let (x, y) = (timestamp_nanos(&a[0])?, timestamp_nanos(&a[1])?);
    let out: BooleanArray = x
        .iter()
        .zip(y.iter())
        .map(|(x, y)| Some(cmp.test((*x)?, (*y)?)))
        .collect();
    result(args, Arc::new(out))
}

/// A timestamp array's values as nanoseconds since the epoch (exact in an `i128`).
fn timestamp_nanos(a: &ArrayRef) -> DfResult<Vec<Option<i128>>> {
    fn scaled<T: ArrowPrimitiveType<Native = i64>>(a: &ArrayRef, nanos: i128) -> Vec<Option<i128>> {
        a.as_primitive::<T>()
            .iter()
            .map(|v| v.map(|v| i128::from(v) * nanos))
            .collect()
    }
    Ok(match a.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => scaled::<TimestampSecondType>(a, 1_000_000_000),
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            scaled::<TimestampMillisecondType>(a, 1_000_000)
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            scaled::<TimestampMicrosecondType>(a, 1_000)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => scaled::<TimestampNanosecondType>(a, 1),
        other => return Err(fail(format!("timestamp comparison of {other}"))),
    })
}

/// Java's primitive comparison of two FLOAT or two DOUBLE arrays.
fn float_compare(
    args: &[ColumnarValue],
    rows: usize,
    cmp: Cmp,
) -> datafusion::error::Result<ColumnarValue> {
    let a = arrays(args, rows)?;
    let out = match a[0].data_type() {
        DataType::Float32 => compare_floats::<Float32Type>(&a[0], &a[1], cmp),
        DataType::Float64 => compare_floats::<Float64Type>(&a[0], &a[1], cmp),
        other => return Err(fail(format!("float comparison of {other}"))),
    };
    result(args, Arc::new(out))
}

/// `Double.compare`/`Float.compare` of two FLOAT or two DOUBLE arrays: `-0.0 < 0.0`, every
/// NaN equal and above everything.
fn total_order_compare(
    args: &[ColumnarValue],
    rows: usize,
    cmp: Cmp,
) -> datafusion::error::Result<ColumnarValue> {
    let a = arrays(args, rows)?;
    let out: BooleanArray = match a[0].data_type() {
        DataType::Float32 => {
            let (x, y) = (
                a[0].as_primitive::<Float32Type>(),
                a[1].as_primitive::<Float32Type>(),
            );
            x.iter()
                .zip(y.iter())
                .map(|(x, y)| Some(cmp.test(f32_order_key(x?), f32_order_key(y?))))
                .collect()
        }
        DataType::Float64 => {
            let (x, y) = (
                a[0].as_primitive::<Float64Type>(),
                a[1].as_primitive::<Float64Type>(),
            );
            x.iter()
                .zip(y.iter())
                .map(|(x, y)| Some(cmp.test(f64_order_key(x?), f64_order_key(y?))))
                .collect()
        }
        other => return Err(fail(format!("total-order comparison of {other}"))),
    };
    result(args, Arc::new(out))
}

fn compare_floats<T: ArrowPrimitiveType>(a: &dyn Array, b: &dyn Array, cmp: Cmp) -> BooleanArray
where
    T::Native: PartialOrd,
{
    let (a, b) = (a.as_primitive::<T>(), b.as_primitive::<T>());
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| Some(cmp.test(x?, y?)))
        .collect()
}

fn bind_truth(args: &Args<'_>, value: Option<bool>, negated: bool) -> Result<Bound, String> {
    if args.types[0] != LogicalType::Boolean {
        return Err("the operand must be BOOLEAN".into());
    }
    Ok(Bound {
        args: vec![LogicalType::Boolean],
        result: LogicalType::Boolean,
        kernel: Kernel::function("IS TRUE/FALSE", &LogicalType::Boolean, move |args, rows| {
            let a = arrays(args, rows)?;
            let a = a[0]
                .as_any()
                .downcast_ref::<BooleanArray>()
                .expect("BOOLEAN");
            // Never NULL: a NULL operand is neither TRUE nor FALSE.
            let out: BooleanArray = a.iter().map(|v| Some((v == value) != negated)).collect();
            result(args, Arc::new(out))
        }),
    })
}
