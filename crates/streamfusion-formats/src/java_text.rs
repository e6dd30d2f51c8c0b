//! Java's number texts where Flink's format converters meet them: `String.trim`,
//! `Long.parseLong` and its narrower forms (Unicode decimal digits included, as
//! `Character.digit` reads them), `new BigDecimal(String)` with `DecimalData.fromBigDecimal`
//! (HALF_UP to the scale, NULL past the precision), and `BigDecimal.toPlainString` /
//! `stripTrailingZeros().toString()` of a DECIMAL. Shared by the JSON and CSV formats.

use std::fmt::Write as _;

use streamfusion_calc::calc::cast_decimal::unicode_digit;

/// `String.trim`: strips chars `<= ' '` at both ends.
pub(crate) fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// `Long.parseLong(s)` restricted to `[min, max]` (as `Byte/Short/Integer.parseX`): an
/// optional sign, then Unicode decimal digits. `None` is Java's `NumberFormatException`.
pub(crate) fn java_parse_long(s: &str, min: i64, max: i64) -> Option<i64> {
    let bytes = s.as_bytes();
    let (negative, digits) = match bytes.first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    // Up to 19 ASCII digits fit a u64.
    if digits.len() <= 19 && digits.bytes().all(|b| b.is_ascii_digit()) {
        let magnitude = digits
            .bytes()
            .fold(0u64, |v, b| v * 10 + u64::from(b - b'0'));
        let value = if negative {
            -i128::from(magnitude)
        } else {
            i128::from(magnitude)
        };
        let value = i64::try_from(value).ok()?;
        return (min..=max).contains(&value).then_some(value);
    }
    // Accumulate negatively, as Java does, so that MIN_VALUE fits.
    let mut value: i64 = 0;
    for c in digits.chars() {
        let d = if c.is_ascii_digit() {
            i64::from(c as u8 - b'0')
        } else {
            i64::from(unicode_digit(c)?)
        };
        value = value.checked_mul(10)?.checked_sub(d)?;
    }
    let value = if negative {
        value
    } else {
        value.checked_neg()?
    };
    (min..=max).contains(&value).then_some(value)
}

/// `new BigDecimal(s)` then `DecimalData.fromBigDecimal(bd, precision, scale)`: the unscaled
/// value rounded HALF_UP to `scale`, `Ok(None)` when it needs more than `precision` digits
/// (Flink's NULL), `Err(())` when the text is not a BigDecimal (`NumberFormatException`).
#[allow(clippy::result_unit_err)]
pub(crate) fn java_decimal(s: &str, precision: u8, scale: u8) -> Result<Option<i128>, ()> {
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
    // Significant digits (leading zeros dropped) and the number of fraction digits.
    let mut digits: Vec<u8> = Vec::new();
    let (mut any, mut fraction, mut seen_dot) = (false, 0i64, false);
    while let Some(&c) = chars.peek() {
        if let Some(d) = unicode_digit(c) {
            any = true;
            if !(digits.is_empty() && d == 0) {
                digits.push(d);
            }
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
    if !any {
        return Err(());
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
        let mut exp_any = false;
        for c in chars.by_ref() {
            let d = unicode_digit(c).ok_or(())?;
            exp_any = true;
            exponent = exponent * 10 + i64::from(d);
            if exponent > i64::from(i32::MAX) {
                return Err(());
            }
        }
        if !exp_any {
            return Err(());
        }
        if exp_negative {
            exponent = -exponent;
        }
    }
    if chars.next().is_some() {
        return Err(());
    }
    // value = digits × 10^(exponent - fraction); rescale to `scale`.
    let shift = i64::from(scale) + exponent - fraction;
    let precision = usize::from(precision);
    let mut kept: &[u8] = &digits;
    let mut round_up = false;
    let mut zeros = 0usize;
    if shift >= 0 {
        if digits.is_empty() {
            return Ok(Some(0));
        }
        if digits.len() as i64 + shift > precision as i64 {
            return Ok(None);
        }
        zeros = shift as usize;
    } else {
        let drop = (-shift) as u64;
        if drop > digits.len() as u64 {
            kept = &[];
        } else {
            let keep = digits.len() - drop as usize;
            round_up = digits[keep] >= 5;
            kept = &digits[..keep];
        }
    }
    let mut value: i128 = 0;
    let mut count = 0usize;
    for &d in kept.iter().chain(std::iter::repeat_n(&0u8, zeros)) {
        count += 1;
        if count > precision {
            return Ok(None);
        }
        value = value * 10 + i128::from(d);
    }
    if round_up {
        value += 1;
    }
    if value >= 10i128.pow(precision as u32) {
        return Ok(None);
    }
    Ok(Some(if negative { -value } else { value }))
}

/// `BigDecimal.toPlainString()` of `unscaled × 10^-scale`.
pub(crate) fn write_plain_decimal(unscaled: i128, scale: u8, out: &mut String) {
    let digits = unscaled.unsigned_abs().to_string();
    if unscaled < 0 {
        out.push('-');
    }
    push_plain(&digits, usize::from(scale), out);
}

/// `digits × 10^-scale` without an exponent: `123`, `12.3`, `0.0123`.
fn push_plain(digits: &str, scale: usize, out: &mut String) {
    if scale == 0 {
        out.push_str(digits);
    } else if digits.len() > scale {
        out.push_str(&digits[..digits.len() - scale]);
        out.push('.');
        out.push_str(&digits[digits.len() - scale..]);
    } else {
        out.push_str("0.");
        for _ in digits.len()..scale {
            out.push('0');
        }
        out.push_str(digits);
    }
}

/// Jackson's default node factory strips trailing zeros of a BigDecimal (zero becomes `0`),
/// then `BigDecimal.toString()` prints it (scientific notation when the exponent calls for it).
pub(crate) fn write_scientific_decimal(unscaled: i128, scale: u8, out: &mut String) {
    if unscaled == 0 {
        out.push('0');
        return;
    }
    let mut value = unscaled.unsigned_abs();
    let mut scale = i64::from(scale);
    while value.is_multiple_of(10) {
        value /= 10;
        scale -= 1;
    }
    let digits = value.to_string();
    if unscaled < 0 {
        out.push('-');
    }
    let adjusted = -scale + digits.len() as i64 - 1;
    if scale >= 0 && adjusted >= -6 {
        push_plain(&digits, scale as usize, out);
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('E');
        if adjusted >= 0 {
            out.push('+');
        }
        let _ = write!(out, "{adjusted}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_numbers() {
        assert_eq!(java_parse_long("+5", -128, 127), Some(5));
        assert_eq!(java_parse_long("128", -128, 127), None);
        assert_eq!(java_parse_long("-128", -128, 127), Some(-128));
        assert_eq!(java_parse_long("٣", 0, 9), Some(3));
        assert_eq!(java_parse_long("-", 0, 9), None);
        assert_eq!(
            java_parse_long("-9223372036854775808", i64::MIN, i64::MAX),
            Some(i64::MIN)
        );
        assert_eq!(java_decimal("123.455", 5, 2), Ok(Some(12346)));
        assert_eq!(java_decimal("-123.455", 5, 2), Ok(Some(-12346)));
        assert_eq!(java_decimal("999.995", 5, 2), Ok(None));
        assert_eq!(java_decimal("1E-3", 5, 2), Ok(Some(0)));
        assert_eq!(java_decimal("1e2", 5, 2), Ok(Some(10000)));
        assert_eq!(java_decimal(" 1", 5, 2), Err(()));
        assert_eq!(java_decimal("0.5", 38, 0), Ok(Some(1)));
        assert_eq!(java_decimal("1e999999999", 5, 2), Ok(None));
        assert_eq!(java_decimal("1e-999999999", 5, 2), Ok(Some(0)));
    }

    #[test]
    fn decimals_print_as_java() {
        let plain = |u, s| {
            let mut o = String::new();
            write_plain_decimal(u, s, &mut o);
            o
        };
        let sci = |u, s| {
            let mut o = String::new();
            write_scientific_decimal(u, s, &mut o);
            o
        };
        assert_eq!(plain(-1, 2), "-0.01");
        assert_eq!(plain(0, 10), "0.0000000000");
        assert_eq!(sci(1_000_000_000_000, 10), "1E+2");
        assert_eq!(sci(1000, 10), "1E-7");
        assert_eq!(sci(5 * 10i128.pow(37), 38), "0.5");
        assert_eq!(sci(12345, 0), "12345");
    }
}
