//! Arithmetic (opcodes 100–199) with Java's and `DecimalDataUtils`' semantics.
//!
//! - Integers: operands are cast to their common type and the result wraps at its width,
//!   as Java's `(int) (a + b)` does; `/` and `%` by zero fail (`/ by zero`), and
//!   `MIN / -1` wraps to `MIN` (`MIN % -1` is 0).
//! - FLOAT/DOUBLE: IEEE arithmetic; `/ 0` gives ±Infinity or NaN.
//! - DECIMAL: exact, rounded HALF_UP to Flink's result type, NULL when it overflows its
//!   precision (see [`super::decimal`]). An integer operand counts as `DECIMAL(digits, 0)`; a
//!   DECIMAL with a FLOAT/DOUBLE operand computes in DOUBLE.
//! - `%` (MOD) returns the type of its second operand, computing in the common type first
//!   (Calcite's `NULLABLE_MOD`); a DECIMAL of scale 0 MOD an integer computes in a `long`, as
//!   Flink's generated code does.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Decimal128Array, PrimitiveArray};
use arrow::compute::kernels::arity::try_binary;
use arrow::datatypes::{
    ArrowNativeTypeOp, ArrowPrimitiveType, Decimal128Type, Int8Type, Int16Type, Int32Type,
    Int64Type,
};
use arrow::error::ArrowError;
use datafusion::logical_expr::{ColumnarValue, Operator};
use datafusion::physical_expr::expressions::NegativeExpr;

use crate::calc::coercion::{
    DecimalOp, decimal_result, integer_as_decimal, is_integer, operand_type,
};
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::decimal::{self, Dec};
use super::util::{arrays, fail, result};

/// `a + b`.
pub const PLUS: u16 = 100;
/// `a - b`.
pub const MINUS: u16 = 101;
/// `a * b`.
pub const TIMES: u16 = 102;
/// `a / b`.
pub const DIVIDE: u16 = 103;
/// `a % b`, `MOD(a, b)`.
pub const MOD: u16 = 104;
/// `-a`.
pub const UNARY_MINUS: u16 = 105;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: PLUS,
        name: "+",
        arity: Arity::Exact(2),
        bind: |a| bind_binary(a, BinaryOp::Plus),
    },
    FunctionDef {
        opcode: MINUS,
        name: "-",
        arity: Arity::Exact(2),
        bind: |a| bind_binary(a, BinaryOp::Minus),
    },
    FunctionDef {
        opcode: TIMES,
        name: "*",
        arity: Arity::Exact(2),
        bind: |a| bind_binary(a, BinaryOp::Times),
    },
    FunctionDef {
        opcode: DIVIDE,
        name: "/",
        arity: Arity::Exact(2),
        bind: |a| bind_binary(a, BinaryOp::Divide),
    },
    FunctionDef {
        opcode: MOD,
        name: "MOD",
        arity: Arity::Exact(2),
        bind: |a| bind_binary(a, BinaryOp::Mod),
    },
    FunctionDef {
        opcode: UNARY_MINUS,
        name: "-",
        arity: Arity::Exact(1),
        bind: bind_negate,
    },
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BinaryOp {
    Plus,
    Minus,
    Times,
    Divide,
    Mod,
}

fn bind_binary(args: &Args<'_>, op: BinaryOp) -> Result<Bound, String> {
    let [a, b] = args.types else {
        unreachable!("arity checked")
    };
    let common = operand_type(a, b).ok_or("both operands must be numeric")?;
    if let LogicalType::Decimal { .. } = common {
        let (pa, pb) = (
            integer_as_decimal(a).expect("exact"),
            integer_as_decimal(b).expect("exact"),
        );
        if op == BinaryOp::Mod && pa.1 == 0 && pb.1 == 0 && is_integer(b) {
            return Ok(integral_decimal_mod(a, b));
        }
        let dop = match op {
            BinaryOp::Plus | BinaryOp::Minus => DecimalOp::Add,
            BinaryOp::Times => DecimalOp::Multiply,
            BinaryOp::Divide => DecimalOp::Divide,
            BinaryOp::Mod => DecimalOp::Modulo,
        };
        let result = decimal_result(dop, pa, pb);
        let LogicalType::Decimal { precision, scale } = result else {
            unreachable!("a DECIMAL result")
        };
        let dec = |(precision, scale)| LogicalType::Decimal { precision, scale };
        let subtract = op == BinaryOp::Minus;
        return Ok(Bound {
            args: vec![dec(pa), dec(pb)],
            result: result.clone(),
            kernel: Kernel::function(format!("decimal {dop:?}"), &result, move |args, rows| {
                decimal_kernel(args, rows, dop, subtract, precision, scale)
            }),
        });
    }
    let integer = is_integer(&common);
    let kernel = match op {
        BinaryOp::Plus => Kernel::Binary(Operator::Plus),
        BinaryOp::Minus => Kernel::Binary(Operator::Minus),
        BinaryOp::Times => Kernel::Binary(Operator::Multiply),
        BinaryOp::Divide if !integer => Kernel::Binary(Operator::Divide),
        BinaryOp::Divide => Kernel::function("integer /", &common, |args, rows| {
            integer_kernel(args, rows, false)
        }),
        BinaryOp::Mod => {
            let result_type = b.clone();
            let computed = common.clone();
            let kernel = Kernel::function("MOD", &result_type.clone(), move |args, rows| {
                let out = if is_integer(&computed) {
                    integer_kernel(args, rows, true)?
                } else {
                    let a = arrays(args, rows)?;
                    ColumnarValue::Array(arrow::compute::kernels::numeric::rem(&a[0], &a[1])?)
                };
                if computed == result_type {
                    return Ok(out);
                }
                // The remainder's magnitude is below the divisor's, so it fits the narrower
                // type exactly.
                let array = out.to_array(rows)?;
                Ok(ColumnarValue::Array(arrow::compute::cast(
                    &array,
                    &result_type.to_arrow(),
                )?))
            });
            return Ok(Bound {
                args: vec![common.clone(), common],
                result: b.clone(),
                kernel,
            });
        }
    };
    Ok(Bound {
        args: vec![common.clone(), common.clone()],
        result: common,
        kernel,
    })
}

fn bind_negate(args: &Args<'_>) -> Result<Bound, String> {
    let ty = &args.types[0];
    if !crate::calc::coercion::is_numeric(ty) {
        return Err("the operand must be numeric".into());
    }
    Ok(Bound {
        args: vec![ty.clone()],
        result: ty.clone(),
        // Arrow's wrapping negation: -MIN is MIN, as in Java; DECIMAL negation is exact.
        kernel: Kernel::Physical(|mut args| Ok(Arc::new(NegativeExpr::new(args.remove(0))))),
    })
}

/// Java's integer `/` or `%` on two arrays of one integer type.
fn integer_kernel(
    args: &[ColumnarValue],
    rows: usize,
    modulo: bool,
) -> datafusion::error::Result<ColumnarValue> {
    let a = arrays(args, rows)?;
    let out: ArrayRef = match a[0].data_type() {
        arrow::datatypes::DataType::Int8 => integer_op::<Int8Type>(&a[0], &a[1], modulo)?,
        arrow::datatypes::DataType::Int16 => integer_op::<Int16Type>(&a[0], &a[1], modulo)?,
        arrow::datatypes::DataType::Int32 => integer_op::<Int32Type>(&a[0], &a[1], modulo)?,
        arrow::datatypes::DataType::Int64 => integer_op::<Int64Type>(&a[0], &a[1], modulo)?,
        other => return Err(fail(format!("integer division of {other}"))),
    };
    result(args, out)
}

/// `MOD(a, b)` of a DECIMAL with scale 0 and an integer: Flink types it as `b`
/// (`FlinkTypeSystem.deriveDecimalModType` when both scales are 0) and computes it as
/// `(b) (DecimalDataUtils.castToLong(a) % b)`, so a DECIMAL beyond a `long` wraps to its low 64
/// bits (`BigDecimal.longValue`) before the remainder.
fn integral_decimal_mod(a: &LogicalType, b: &LogicalType) -> Bound {
    let out_type = b.to_arrow();
    Bound {
        args: vec![a.clone(), LogicalType::BigInt],
        result: b.clone(),
        kernel: Kernel::function("MOD of an integral DECIMAL", b, move |args, rows| {
            let a = arrays(args, rows)?;
            let (x, y) = (
                a[0].as_primitive::<Decimal128Type>(),
                a[1].as_primitive::<Int64Type>(),
            );
            let remainders: PrimitiveArray<Int64Type> = try_binary(x, y, |x, y| {
                if y == 0 {
                    Err(ArrowError::DivideByZero)
                } else {
                    Ok((x as i64).wrapping_rem(y))
                }
            })
            .map_err(|_| fail("java.lang.ArithmeticException: / by zero"))?;
            // The remainder's magnitude is below the divisor's, so it fits `b`'s type.
            let out = arrow::compute::cast(&remainders, &out_type)?;
            result(args, out)
        }),
    }
}

fn integer_op<T: ArrowPrimitiveType>(
    a: &dyn Array,
    b: &dyn Array,
    modulo: bool,
) -> datafusion::error::Result<ArrayRef> {
    let out: PrimitiveArray<T> =
        try_binary(a.as_primitive::<T>(), b.as_primitive::<T>(), |x, y| {
            if y.is_zero() {
                Err(ArrowError::DivideByZero)
            } else if modulo {
                Ok(x.mod_wrapping(y))
            } else {
                Ok(x.div_wrapping(y))
            }
        })
        .map_err(|_| fail("java.lang.ArithmeticException: / by zero"))?;
    Ok(Arc::new(out))
}

fn decimal_kernel(
    args: &[ColumnarValue],
    rows: usize,
    op: DecimalOp,
    subtract: bool,
    precision: u8,
    scale: u8,
) -> datafusion::error::Result<ColumnarValue> {
    let a = arrays(args, rows)?;
    let (x, y) = (
        a[0].as_primitive::<Decimal128Type>(),
        a[1].as_primitive::<Decimal128Type>(),
    );
    let (s1, s2) = (x.scale() as u8, y.scale() as u8);
    let mut out = Vec::with_capacity(rows);
    for i in 0..x.len() {
        if x.is_null(i) || y.is_null(i) {
            out.push(None);
            continue;
        }
        let v = decimal::apply(
            op,
            subtract,
            Dec {
                value: x.value(i),
                scale: s1,
            },
            Dec {
                value: y.value(i),
                scale: s2,
            },
            precision,
            scale,
        )
        .map_err(|f| fail(f.message()))?;
        out.push(v);
    }
    let array = Decimal128Array::from(out).with_precision_and_scale(precision, scale as i8)?;
    result(args, Arc::new(array))
}
