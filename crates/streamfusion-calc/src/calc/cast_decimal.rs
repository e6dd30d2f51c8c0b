//! `CAST(string AS DECIMAL(p, s))` exactly as `BinaryStringDataUtil.toDecimal`, including its
//! two different parsers:
//!
//! - precision <= 18 and at most 18 UTF-8 bytes: `toDecimalFromBytes`, a hand-written parser
//!   that skips ASCII space, `\n` and `\t` around the number, stops the digits at the first
//!   other character and skips that character (so `'12a'` is 12 but `'12ab'` fails), reads
//!   an exponent after `e`/`E`, rounds HALF_UP to the scale, and fails when the digits do
//!   not fit the precision;
//! - otherwise `toBigPrecisionDecimal`: the same trim, then `new BigDecimal(chars)` (which
//!   accepts any Unicode decimal digit and rejects trailing garbage) and
//!   `DecimalData.fromBigDecimal` (HALF_UP, NULL beyond the precision).
//!
//! Every failure is `NumberFormatException` in Flink: the message of a value that does not
//! parse or fit is `For input string: '<s>'. Overflow.`.

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

/// The unscaled value of `s` as `DECIMAL(precision, scale)`, or Flink's error message.
pub fn parse(s: &str, precision: u8, scale: u8) -> Result<i128, String> {
    let overflow =
        || format!("java.lang.NumberFormatException: For input string: '{s}'. Overflow.");
    let parsed = if precision > 18 || s.len() > 18 {
        big_precision(s, precision, scale)
    } else {
        from_bytes(s.as_bytes(), precision, scale)
    };
    parsed.ok_or_else(overflow)
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\t')
}

/// `POW10[n]` of `DecimalData`; Flink's table stops at 10^18 (a larger index throws).
fn pow10(n: i32) -> Option<i64> {
    (0..=18).contains(&n).then(|| 10i64.pow(n as u32))
}

/// `toDecimalFromBytes`, step for step.
fn from_bytes(bytes: &[u8], precision: u8, scale: u8) -> Option<i128> {
    let len = bytes.len();
    let mut i = 0;
    let mut b = 0u8;
    while i < len {
        b = bytes[i];
        if is_blank(b) {
            i += 1;
        } else {
            break;
        }
    }
    if i == len {
        return None;
    }
    let negative = b == b'-';
    if negative || b == b'+' {
        i += 1;
        if i == len {
            return None;
        }
    }
    let mut significand: i64 = 0;
    let mut exp: i32 = 0;
    let mut digits: i32 = 0;
    let mut dot: i32 = -1;
    while i < len {
        b = bytes[i];
        i += 1;
        if b.is_ascii_digit() {
            significand = significand * 10 + i64::from(b - b'0');
            digits += 1;
        } else if b == b'.' {
            if dot >= 0 {
                return None;
            }
            dot = digits;
        } else {
            break;
        }
    }
    if dot < 0 {
        dot = digits;
    }
    if negative {
        significand = -significand;
    }
    if (b == b'e' || b == b'E') && i < len {
        b = bytes[i];
        let exp_negative = b == b'-';
        if exp_negative || b == b'+' {
            i += 1;
            if i == len {
                return None;
            }
        }
        let mut value: i32 = 0;
        while i < len {
            b = bytes[i];
            i += 1;
            if !b.is_ascii_digit() {
                break;
            }
            if value < 40 {
                value = value * 10 + i32::from(b - b'0');
            }
        }
        exp += if exp_negative { -value } else { value };
    }
    exp -= digits - dot;
    while i < len {
        b = bytes[i];
        i += 1;
        if !is_blank(b) {
            return None;
        }
    }
    let change = exp + i32::from(scale);
    if digits + change > i32::from(precision) {
        return None;
    }
    let unscaled = if change >= 0 {
        significand * pow10(change)?
    } else {
        let delta = if negative { -5 } else { 5 };
        (significand + delta * pow10(-change - 1)?) / pow10(-change)?
    };
    Some(i128::from(unscaled))
}

/// `toBigPrecisionDecimal`: trim, `new BigDecimal(chars)`, `fromBigDecimal(bd, p, s)`.
fn big_precision(s: &str, precision: u8, scale: u8) -> Option<i128> {
    let trimmed = s.trim_matches(|c| matches!(c, ' ' | '\n' | '\t'));
    let (unscaled, exponent_scale) = java_big_decimal(trimmed)?;
    // The value is unscaled × 10^-exponent_scale; rescale HALF_UP to `scale`.
    let shift = i64::from(scale) - exponent_scale;
    let value = if shift >= 0 {
        unscaled * BigInt::from(10u8).pow(u32::try_from(shift).ok()?)
    } else {
        let unit = BigInt::from(10u8).pow(u32::try_from(-shift).ok()?);
        let (q, r) = (&unscaled / &unit, &unscaled % &unit);
        if r.abs() * 2u8 >= unit {
            if unscaled.is_negative() { q - 1 } else { q + 1 }
        } else {
            q
        }
    };
    let limit = BigInt::from(10u8).pow(u32::from(precision));
    if value.abs() >= limit {
        return None;
    }
    value.to_i128()
}

/// `new BigDecimal(String)`'s grammar: an optional sign, digits with at most one `.` (at least
/// one digit), then optionally `e`/`E`, an optional sign and digits. Digits are any Unicode
/// decimal digit (`Character.digit(c, 10)`). Returns the unscaled value and the scale.
fn java_big_decimal(s: &str) -> Option<(BigInt, i64)> {
    let mut chars = s.chars().peekable();
    let negative = match chars.peek() {
        Some('-') => {
            chars.next();
            true
        }
        Some('+') => {
            chars.next();
            false
        }
        _ => false,
    };
    let mut unscaled = BigInt::zero();
    let (mut digits, mut fraction, mut seen_dot) = (0u32, 0i64, false);
    while let Some(&c) = chars.peek() {
        if let Some(d) = unicode_digit(c) {
            unscaled = unscaled * 10u8 + d;
            digits += 1;
            if seen_dot {
                fraction += 1;
            }
        } else if c == '.' && !seen_dot {
            seen_dot = true;
        } else {
            break;
        }
        chars.next();
    }
    if digits == 0 {
        return None;
    }
    let mut exponent: i64 = 0;
    if let Some('e' | 'E') = chars.peek() {
        chars.next();
        let exp_negative = match chars.peek() {
            Some('-') => {
                chars.next();
                true
            }
            Some('+') => {
                chars.next();
                false
            }
            _ => false,
        };
        let mut any = false;
        for c in chars.by_ref() {
            let d = unicode_digit(c)?;
            any = true;
            exponent = exponent.checked_mul(10)?.checked_add(i64::from(d))?;
            if exponent > i64::from(i32::MAX) {
                return None;
            }
        }
        if !any {
            return None;
        }
        if exp_negative {
            exponent = -exponent;
        }
    }
    if chars.next().is_some() {
        return None;
    }
    let unscaled = if negative { -unscaled } else { unscaled };
    Some((unscaled, fraction - exponent))
}

/// The value of a Unicode decimal digit (general category Nd), as `Character.digit(c, 10)`.
/// Every Nd block is ten consecutive code points starting at its zero.
pub fn unicode_digit(c: char) -> Option<u8> {
    const ZEROS: &[u32] = &[
        0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66,
        0x0CE6, 0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946,
        0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0,
        0xA9F0, 0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0,
        0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50,
        0x11DA0, 0x16A60, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0,
        0x1E950, 0x1FBF0,
    ];
    let c = u32::from(c);
    ZEROS
        .iter()
        .find(|&&zero| (zero..zero + 10).contains(&c))
        .map(|&zero| (c - zero) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compact_parser_matches_flinks_quirks() {
        // (input, DECIMAL(5, 2) unscaled or None): values printed by released Flink 2.3.0.
        let cases: &[(&str, Option<i128>)] = &[
            ("12", Some(1200)),
            (" 12 ", Some(1200)),
            ("+7", Some(700)),
            ("-1.9", Some(-190)),
            ("2147483647", None),
            ("abc", None),
            ("", None),
            ("1e3", None),
            ("\t5", Some(500)),
            ("0x10", None),
            (" - 5", None),
            ("12a", Some(1200)),
            ("1.", Some(100)),
            (".5", Some(50)),
            ("+", None),
            ("  -0  ", Some(0)),
            ("1.2.3", None),
            ("1.005", Some(101)),
            ("-1.005", Some(-101)),
            ("123.454", Some(12345)),
            ("1.0E-5", Some(0)),
            ("1e2", Some(10000)),
        ];
        for &(s, expected) in cases {
            assert_eq!(parse(s, 5, 2).ok(), expected, "{s:?}");
        }
        assert_eq!(
            parse("abc", 5, 2).unwrap_err(),
            "java.lang.NumberFormatException: For input string: 'abc'. Overflow."
        );
    }

    #[test]
    fn the_big_decimal_parser_accepts_unicode_digits_and_rejects_garbage() {
        // DECIMAL(38, 0), released Flink 2.3.0.
        let cases: &[(&str, Option<i128>)] = &[
            ("12", Some(12)),
            ("1.9", Some(2)),
            ("-1.9", Some(-2)),
            ("12a", None),
            ("1e3", Some(1000)),
            (".5", Some(1)),
            ("١٢", Some(12)),
            ("0x10", None),
            ("NaN", None),
            ("00012", Some(12)),
        ];
        for &(s, expected) in cases {
            assert_eq!(parse(s, 38, 0).ok(), expected, "{s:?}");
        }
        // DECIMAL(38, 18) of '1.005' keeps every digit.
        assert_eq!(parse("1.005", 38, 18), Ok(1_005_000_000_000_000_000));
    }
}
