//! Flink's type rules for calls: common types of operands and DECIMAL result types
//! (`LogicalTypeMerging` in flink-table-common).

use crate::types::LogicalType;

/// The largest DECIMAL precision.
pub const MAX_DECIMAL_PRECISION: u8 = 38;
/// The smallest scale a DECIMAL result keeps when its precision is capped at 38.
const MINIMUM_ADJUSTED_SCALE: u8 = 6;

/// Whether `ty` is TINYINT, SMALLINT, INT or BIGINT.
pub fn is_integer(ty: &LogicalType) -> bool {
    matches!(
        ty,
        LogicalType::TinyInt | LogicalType::SmallInt | LogicalType::Int | LogicalType::BigInt
    )
}

/// Whether `ty` is FLOAT or DOUBLE.
pub fn is_approximate(ty: &LogicalType) -> bool {
    matches!(ty, LogicalType::Float | LogicalType::Double)
}

/// Whether `ty` is an exact or approximate number.
pub fn is_numeric(ty: &LogicalType) -> bool {
    is_integer(ty) || is_approximate(ty) || matches!(ty, LogicalType::Decimal { .. })
}

/// Whether `ty` is CHAR or VARCHAR.
pub fn is_string(ty: &LogicalType) -> bool {
    matches!(ty, LogicalType::Char(_) | LogicalType::VarChar(_))
}

/// Whether `ty` is BINARY or VARBINARY.
pub fn is_binary(ty: &LogicalType) -> bool {
    matches!(ty, LogicalType::Binary(_) | LogicalType::VarBinary(_))
}

/// The DECIMAL an integer type widens to without loss (`DecimalType` of its digits).
pub fn integer_as_decimal(ty: &LogicalType) -> Option<(u8, u8)> {
    match ty {
        LogicalType::TinyInt => Some((3, 0)),
        LogicalType::SmallInt => Some((5, 0)),
        LogicalType::Int => Some((10, 0)),
        LogicalType::BigInt => Some((19, 0)),
        LogicalType::Decimal { precision, scale } => Some((*precision, *scale)),
        _ => None,
    }
}

fn integer_rank(ty: &LogicalType) -> u8 {
    match ty {
        LogicalType::TinyInt => 1,
        LogicalType::SmallInt => 2,
        LogicalType::Int => 3,
        LogicalType::BigInt => 4,
        _ => 0,
    }
}

/// The common type two numeric operands are cast to before arithmetic or comparison:
/// DOUBLE if either is DOUBLE, else FLOAT if either is FLOAT (a DECIMAL with an approximate
/// number gives DOUBLE), else the wider integer, else DECIMAL
/// (`LogicalTypeMerging.findCommonType`).
pub fn common_numeric(a: &LogicalType, b: &LogicalType) -> Option<LogicalType> {
    if !is_numeric(a) || !is_numeric(b) {
        return None;
    }
    let decimal = |t: &LogicalType| matches!(t, LogicalType::Decimal { .. });
    Some(
        if matches!(a, LogicalType::Double) || matches!(b, LogicalType::Double) {
            LogicalType::Double
        } else if is_approximate(a) || is_approximate(b) {
            if decimal(a) || decimal(b) {
                LogicalType::Double
            } else {
                LogicalType::Float
            }
        } else if decimal(a) || decimal(b) {
            let (p1, s1) = integer_as_decimal(a)?;
            let (p2, s2) = integer_as_decimal(b)?;
            let scale = s1.max(s2);
            let digits = (p1 - s1).max(p2 - s2);
            let precision = (digits + scale).min(MAX_DECIMAL_PRECISION);
            LogicalType::Decimal { precision, scale }
        } else if integer_rank(a) >= integer_rank(b) {
            a.clone()
        } else {
            b.clone()
        },
    )
}

/// The type both operands of an arithmetic operator or comparison are cast to: as
/// [`common_numeric`], except that of FLOAT and DOUBLE the first operand's type wins
/// (Calcite's `leastRestrictive` treats them as one precision and keeps the first), so
/// `FLOAT + DOUBLE` is FLOAT and `DOUBLE + FLOAT` is DOUBLE.
pub fn operand_type(a: &LogicalType, b: &LogicalType) -> Option<LogicalType> {
    if is_approximate(a) && is_approximate(b) {
        return Some(a.clone());
    }
    common_numeric(a, b)
}

/// Caps a DECIMAL result at precision 38, keeping at least six digits of scale
/// (`LogicalTypeMerging.adjustPrecisionScale`).
pub fn adjust_precision_scale(precision: u32, scale: u32) -> LogicalType {
    let (precision, scale) = if precision <= u32::from(MAX_DECIMAL_PRECISION) {
        (precision, scale)
    } else {
        let digits = precision - scale;
        let min_scale = scale.min(u32::from(MINIMUM_ADJUSTED_SCALE));
        let scale = u32::from(MAX_DECIMAL_PRECISION)
            .saturating_sub(digits)
            .max(min_scale);
        (u32::from(MAX_DECIMAL_PRECISION), scale)
    };
    LogicalType::Decimal {
        precision: precision as u8,
        scale: scale as u8,
    }
}

/// A DECIMAL arithmetic operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalOp {
    /// `+` and `-`.
    Add,
    /// `*`.
    Multiply,
    /// `/`.
    Divide,
    /// `%` / `MOD`.
    Modulo,
}

/// The result type of `(p1, s1) op (p2, s2)` (`LogicalTypeMerging.find*DecimalType`).
pub fn decimal_result(op: DecimalOp, (p1, s1): (u8, u8), (p2, s2): (u8, u8)) -> LogicalType {
    let (p1, s1, p2, s2) = (u32::from(p1), u32::from(s1), u32::from(p2), u32::from(s2));
    match op {
        DecimalOp::Add => {
            let scale = s1.max(s2);
            adjust_precision_scale((p1 - s1).max(p2 - s2) + scale + 1, scale)
        }
        DecimalOp::Multiply => adjust_precision_scale(p1 + p2 + 1, s1 + s2),
        DecimalOp::Divide => {
            let scale = 6.max(s1 + p2 + 1);
            adjust_precision_scale(p1 - s1 + s2 + scale, scale)
        }
        DecimalOp::Modulo => {
            let scale = s1.max(s2);
            adjust_precision_scale((p1 - s1).min(p2 - s2) + scale, scale)
        }
    }
}

/// The common type of two operands (`LogicalTypeMerging.findCommonType` for the types Calc
/// has), for CASE/COALESCE results and collection constructors and set functions: numbers
/// widen, strings and binaries take the longest length (CHARs of different lengths give
/// VARCHAR, unpadded, as `FlinkTypeSystem.shouldConvertRaggedUnionTypesToVarying` says; of
/// one length, that CHAR), ARRAY and MAP by their element types, anything else must be
/// equal.
pub fn common_type(a: &LogicalType, b: &LogicalType) -> Option<LogicalType> {
    use LogicalType::*;
    if a == b {
        return Some(a.clone());
    }
    if let Some(t) = common_numeric(a, b) {
        return Some(t);
    }
    let len = |t: &LogicalType| match t {
        Char(n) | VarChar(n) | Binary(n) | VarBinary(n) => *n,
        _ => 0,
    };
    match (a, b) {
        _ if is_string(a) && is_string(b) => Some(VarChar(len(a).max(len(b)))),
        (Binary(_), Binary(_)) => Some(Binary(len(a).max(len(b)))),
        _ if is_binary(a) && is_binary(b) => Some(VarBinary(len(a).max(len(b)))),
        (Array(x), Array(y)) => Some(Array(Box::new(common_type(x, y)?))),
        (Map(k1, v1), Map(k2, v2)) => Some(Map(
            Box::new(common_type(k1, k2)?),
            Box::new(common_type(v1, v2)?),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(precision: u8, scale: u8) -> LogicalType {
        LogicalType::Decimal { precision, scale }
    }

    #[test]
    fn decimal_result_types_follow_flinks_table() {
        // Worked by hand from LogicalTypeMerging's formulas.
        assert_eq!(decimal_result(DecimalOp::Add, (10, 2), (5, 3)), dec(12, 3));
        assert_eq!(
            decimal_result(DecimalOp::Multiply, (10, 2), (5, 3)),
            dec(16, 5)
        );
        assert_eq!(
            decimal_result(DecimalOp::Divide, (10, 2), (5, 3)),
            dec(19, 8)
        );
        assert_eq!(
            decimal_result(DecimalOp::Modulo, (10, 2), (5, 3)),
            dec(5, 3)
        );
        // Capped: digits before the point win over scale, down to six digits of scale.
        assert_eq!(
            decimal_result(DecimalOp::Add, (38, 10), (38, 10)),
            dec(38, 9)
        );
        assert_eq!(
            decimal_result(DecimalOp::Multiply, (38, 10), (38, 10)),
            dec(38, 6)
        );
        assert_eq!(
            decimal_result(DecimalOp::Divide, (38, 0), (38, 0)),
            dec(38, 6)
        );
        assert_eq!(
            decimal_result(DecimalOp::Multiply, (20, 2), (10, 1)),
            dec(31, 3)
        );
    }

    #[test]
    fn common_numeric_types() {
        use LogicalType::*;
        assert_eq!(common_numeric(&TinyInt, &Int), Some(Int));
        assert_eq!(common_numeric(&BigInt, &SmallInt), Some(BigInt));
        assert_eq!(common_numeric(&Int, &Float), Some(Float));
        assert_eq!(common_numeric(&Float, &Double), Some(Double));
        assert_eq!(common_numeric(&dec(5, 2), &Float), Some(Double));
        assert_eq!(common_numeric(&Int, &dec(5, 2)), Some(dec(12, 2)));
        assert_eq!(common_numeric(&Int, &VarChar(3)), None);
    }
}
