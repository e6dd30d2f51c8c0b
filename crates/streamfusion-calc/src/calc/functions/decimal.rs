//! DECIMAL arithmetic exactly as `DecimalDataUtils`: the exact result (or, for division, the
//! quotient rounded to 38 significant digits HALF_UP, `MathContext(38, HALF_UP)`), then
//! `fromBigDecimal(bd, p, s)`: rounded HALF_UP to the result scale, NULL when it needs more
//! than `p` digits.

use arrow::datatypes::i256;
use num_bigint::{BigInt, Sign};
use num_traits::{Signed, Zero};

use crate::calc::coercion::DecimalOp;

/// `10^n` for `n <= 76`.
fn pow10(n: u32) -> i256 {
    i256::from_i128(10).wrapping_pow(n)
}

/// `v` at scale `from` rounded HALF_UP (ties away from zero) to scale `to`.
fn rescale(v: i256, from: i32, to: i32) -> Option<i256> {
    if to >= from {
        v.checked_mul(pow10((to - from) as u32))
    } else {
        let d = pow10((from - to) as u32);
        let q = v.checked_div(d)?;
        let r = v.checked_rem(d)?.wrapping_abs();
        let twice = r.checked_mul(i256::from_i128(2))?;
        Some(if twice >= d {
            if v.is_negative() {
                q - i256::ONE
            } else {
                q + i256::ONE
            }
        } else {
            q
        })
    }
}

/// `v` if it has at most `precision` digits.
fn within(v: i256, precision: u8) -> Option<i128> {
    let limit = pow10(u32::from(precision));
    (v.wrapping_abs() < limit).then(|| v.as_i128())
}

/// A DECIMAL operand: unscaled value and scale.
#[derive(Debug, Clone, Copy)]
pub struct Dec {
    /// The unscaled value.
    pub value: i128,
    /// Digits after the point.
    pub scale: u8,
}

/// Why a DECIMAL operation fails (Flink's job fails with BigDecimal's ArithmeticException).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecimalFailure {
    /// `x / 0` or `x % 0` with `x != 0`: "Division by zero".
    ByZero,
    /// `0 / 0` or `0 % 0`: "Division undefined".
    Undefined,
    /// The integer part of a remainder's quotient needs more than 38 digits: "Division
    /// impossible".
    Impossible,
}

impl DecimalFailure {
    /// BigDecimal's message.
    pub fn message(&self) -> &'static str {
        match self {
            DecimalFailure::ByZero => "java.lang.ArithmeticException: Division by zero",
            DecimalFailure::Undefined => "java.lang.ArithmeticException: Division undefined",
            DecimalFailure::Impossible => "java.lang.ArithmeticException: Division impossible",
        }
    }
}

/// `a op b` as `DECIMAL(precision, scale)`: `Ok(None)` is Flink's NULL on overflow.
pub fn apply(
    op: DecimalOp,
    subtract: bool,
    a: Dec,
    b: Dec,
    precision: u8,
    scale: u8,
) -> Result<Option<i128>, DecimalFailure> {
    let (s1, s2, out) = (i32::from(a.scale), i32::from(b.scale), i32::from(scale));
    let (x, y) = (i256::from_i128(a.value), i256::from_i128(b.value));
    Ok(match op {
        DecimalOp::Add => {
            let common = s1.max(s2);
            let x = x.wrapping_mul(pow10((common - s1) as u32));
            let y = y.wrapping_mul(pow10((common - s2) as u32));
            let sum = if subtract { x - y } else { x + y };
            rescale(sum, common, out).and_then(|v| within(v, precision))
        }
        DecimalOp::Multiply => {
            rescale(x.wrapping_mul(y), s1 + s2, out).and_then(|v| within(v, precision))
        }
        DecimalOp::Modulo => {
            if b.value == 0 {
                return Err(if a.value == 0 {
                    DecimalFailure::Undefined
                } else {
                    DecimalFailure::ByZero
                });
            }
            let common = s1.max(s2);
            let x = x.wrapping_mul(pow10((common - s1) as u32));
            let y = y.wrapping_mul(pow10((common - s2) as u32));
            let quotient = x.wrapping_div(y);
            if quotient.wrapping_abs() >= pow10(38) {
                return Err(DecimalFailure::Impossible);
            }
            rescale(x.wrapping_rem(y), common, out).and_then(|v| within(v, precision))
        }
        DecimalOp::Divide => divide(a, b, precision, scale)?,
    })
}

/// Decimal digits of `|v|` (1 for zero).
fn digits(v: &BigInt) -> u32 {
    if v.is_zero() {
        1
    } else {
        v.abs().to_string().len() as u32
    }
}

fn big_pow10(n: u32) -> BigInt {
    BigInt::from(10u8).pow(n)
}

/// `BigDecimal.divide(b, MathContext(38, HALF_UP))` then `fromBigDecimal(q, p, s)`.
fn divide(a: Dec, b: Dec, precision: u8, scale: u8) -> Result<Option<i128>, DecimalFailure> {
    if b.value == 0 {
        return Err(if a.value == 0 {
            DecimalFailure::Undefined
        } else {
            DecimalFailure::ByZero
        });
    }
    if a.value == 0 {
        return Ok(Some(0));
    }
    let negative = (a.value < 0) != (b.value < 0);
    // |a| / |b| = n / d exactly.
    let n = BigInt::from(a.value.unsigned_abs()) * big_pow10(u32::from(b.scale));
    let d = BigInt::from(b.value.unsigned_abs()) * big_pow10(u32::from(a.scale));
    // Enough extra digits that the integer quotient has at least 39 significant digits.
    let k = (40 + digits(&d)).saturating_sub(digits(&n));
    let scaled = &n * big_pow10(k);
    let (q, r) = (&scaled / &d, &scaled % &d);
    // Keep 38 significant digits, rounding HALF_UP with the remainder as a sticky tail.
    let drop = digits(&q).saturating_sub(38);
    let unit = big_pow10(drop);
    let (mut kept, tail) = (&q / &unit, &q % &unit);
    if (tail * &d + r) * 2u8 >= unit * &d {
        kept += 1u8;
    }
    // The 38-digit quotient is `kept` at scale `k - drop`; round it to the result scale.
    let at = i64::from(k) - i64::from(drop);
    let target = i64::from(scale);
    let value = if target >= at {
        kept * big_pow10((target - at) as u32)
    } else {
        let unit = big_pow10((at - target) as u32);
        let (q, r) = (&kept / &unit, &kept % &unit);
        if r * 2u8 >= unit { q + 1u8 } else { q }
    };
    if digits(&value) > u32::from(precision) && !value.is_zero() {
        return Ok(None);
    }
    let (_, magnitude) = value.into_parts();
    let magnitude =
        i128::try_from(BigInt::from_biguint(Sign::Plus, magnitude)).expect("at most 38 digits");
    Ok(Some(if negative { -magnitude } else { magnitude }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(value: i128, scale: u8) -> Dec {
        Dec { value, scale }
    }

    #[test]
    fn add_multiply_round_half_up_and_overflow_to_null() {
        // 1.25 + 0.005 at scale 2: 1.255 -> 1.26 (HALF_UP), and -1.255 -> -1.26.
        assert_eq!(
            apply(DecimalOp::Add, false, d(125, 2), d(5, 3), 5, 2),
            Ok(Some(126))
        );
        assert_eq!(
            apply(DecimalOp::Add, true, d(-125, 2), d(5, 3), 5, 2),
            Ok(Some(-126))
        );
        // 99.9 * 99.9 = 9980.01 does not fit DECIMAL(5, 2).
        assert_eq!(
            apply(DecimalOp::Multiply, false, d(999, 1), d(999, 1), 5, 2),
            Ok(None)
        );
        assert_eq!(
            apply(DecimalOp::Multiply, false, d(999, 1), d(999, 1), 6, 2),
            Ok(Some(998_001))
        );
    }

    #[test]
    fn division_keeps_38_significant_digits_then_rounds_to_the_scale() {
        // 1 / 3 as DECIMAL(38, 6): 0.333333.
        assert_eq!(
            apply(DecimalOp::Divide, false, d(1, 0), d(3, 0), 38, 6),
            Ok(Some(333_333))
        );
        // 2 / 3 -> 0.666667; -2 / 3 -> -0.666667.
        assert_eq!(
            apply(DecimalOp::Divide, false, d(2, 0), d(3, 0), 38, 6),
            Ok(Some(666_667))
        );
        assert_eq!(
            apply(DecimalOp::Divide, false, d(-2, 0), d(3, 0), 38, 6),
            Ok(Some(-666_667))
        );
        // 10^37 / 3 = 3333...3.33..: 38 significant digits keep one fractional digit (3),
        // which then rounds away at scale 0.
        let tenth = 10i128.pow(37);
        assert_eq!(
            apply(DecimalOp::Divide, false, d(tenth, 0), d(3, 0), 38, 0),
            Ok(Some(tenth / 3))
        );
        assert_eq!(
            apply(DecimalOp::Divide, false, d(1, 0), d(0, 0), 38, 6),
            Err(DecimalFailure::ByZero)
        );
    }

    #[test]
    fn remainder_takes_the_dividends_sign() {
        assert_eq!(
            apply(DecimalOp::Modulo, false, d(-75, 1), d(2, 0), 2, 1),
            Ok(Some(-15))
        );
        assert_eq!(
            apply(DecimalOp::Modulo, false, d(0, 0), d(0, 0), 2, 1),
            Err(DecimalFailure::Undefined)
        );
    }
}
