//! Java's number texts as Flink's JSON trees meet them: `new BigDecimal(String)` kept whole
//! (a JSON tree prints its numbers), `BigDecimal.toString`/`toPlainString`, and Jackson's
//! Base64 as its JSON parser reads it (`getBinaryValue`; CSV reads `TextNode.binaryValue`,
//! another Jackson path with other messages; writing is Calc's `base64_bytes`). The column conversions (integers, DECIMAL) are the crate's `java_text`.

/// Why a number text was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NumberError {
    /// Java throws `NumberFormatException`.
    Format,
    /// Java would read digits of another script (`Character.digit`), which this
    /// implementation does not.
    UnicodeDigits,
}

fn unicode_digits(s: &str) -> NumberError {
    if s.chars().any(|c| !c.is_ascii() && c.is_numeric()) {
        NumberError::UnicodeDigits
    } else {
        NumberError::Format
    }
}

/// A `BigDecimal`: `±digits × 10^-scale`, `digits` ASCII without leading zeros (empty for 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BigDec {
    pub negative: bool,
    pub digits: Vec<u8>,
    pub scale: i64,
}

/// `new BigDecimal(s)`: `[+-]digits[.digits][(e|E)[+-]digits]`, at least one digit.
pub(crate) fn parse_big_decimal(s: &str) -> Result<BigDec, NumberError> {
    let b = s.as_bytes();
    let mut p = 0;
    let negative = match b.first() {
        Some(b'-') => {
            p = 1;
            true
        }
        Some(b'+') => {
            p = 1;
            false
        }
        _ => false,
    };
    let mut digits = Vec::new();
    let mut any = false;
    let mut frac = 0i64;
    let mut seen_point = false;
    while p < b.len() {
        match b[p] {
            d @ b'0'..=b'9' => {
                any = true;
                if !(digits.is_empty() && d == b'0') {
                    digits.push(d);
                }
                if seen_point {
                    frac += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            b'e' | b'E' => break,
            _ => return Err(unicode_digits(s)),
        }
        p += 1;
    }
    if !any {
        return Err(unicode_digits(s));
    }
    let mut exp = 0i64;
    if p < b.len() {
        p += 1;
        let eneg = match b.get(p) {
            Some(b'-') => {
                p += 1;
                true
            }
            Some(b'+') => {
                p += 1;
                false
            }
            _ => false,
        };
        let e = &b[p..];
        if e.is_empty() || !e.iter().all(u8::is_ascii_digit) {
            return Err(unicode_digits(s));
        }
        let mut v: i64 = 0;
        for d in e {
            v = v * 10 + (d - b'0') as i64;
            if v > i32::MAX as i64 + 1 {
                return Err(NumberError::Format);
            }
        }
        exp = if eneg { -v } else { v };
        if exp > i32::MAX as i64 || exp < i32::MIN as i64 {
            return Err(NumberError::Format);
        }
    }
    let scale = frac - exp;
    if scale > i32::MAX as i64 || scale < i32::MIN as i64 {
        return Err(NumberError::Format);
    }
    Ok(BigDec {
        negative: negative && !digits.is_empty(),
        digits,
        scale,
    })
}

/// `BigDecimal.stripTrailingZeros()` (zero becomes `0` with scale 0).
pub(crate) fn strip_trailing_zeros(bd: &mut BigDec) {
    if bd.digits.is_empty() {
        bd.scale = 0;
        return;
    }
    while bd.digits.len() > 1 && bd.digits.last() == Some(&b'0') {
        bd.digits.pop();
        bd.scale -= 1;
    }
}

/// `BigDecimal.toString()`: plain when the scale is not negative and the adjusted exponent
/// is at least -6, scientific (`1.5E+7`, `1E-8`) otherwise.
pub(crate) fn big_decimal_to_string(bd: &BigDec, out: &mut Vec<u8>) {
    use std::io::Write;
    let digits: &[u8] = if bd.digits.is_empty() {
        b"0"
    } else {
        &bd.digits
    };
    if bd.negative {
        out.push(b'-');
    }
    let adjusted = -bd.scale + (digits.len() as i64 - 1);
    if bd.scale >= 0 && adjusted >= -6 {
        plain(digits, bd.scale, out);
    } else {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'E');
        if adjusted >= 0 {
            out.push(b'+');
        }
        let _ = write!(out, "{adjusted}");
    }
}

/// `digits × 10^-scale` (scale not negative) without an exponent: `0.00123`, `12.3`, `123`.
fn plain(digits: &[u8], scale: i64, out: &mut Vec<u8>) {
    let scale = scale as usize;
    if scale == 0 {
        out.extend_from_slice(digits);
    } else if digits.len() > scale {
        out.extend_from_slice(&digits[..digits.len() - scale]);
        out.push(b'.');
        out.extend_from_slice(&digits[digits.len() - scale..]);
    } else {
        out.extend_from_slice(b"0.");
        out.resize(out.len() + scale - digits.len(), b'0');
        out.extend_from_slice(digits);
    }
}

fn b64_value(c: char) -> Option<u32> {
    match c {
        'A'..='Z' => Some(c as u32 - 'A' as u32),
        'a'..='z' => Some(c as u32 - 'a' as u32 + 26),
        '0'..='9' => Some(c as u32 - '0' as u32 + 52),
        '+' => Some(62),
        '/' => Some(63),
        _ => None,
    }
}

/// Jackson's `getBinaryValue` on a string token's text: quads of the standard alphabet,
/// whitespace (any char up to U+0020) allowed only before a quad, `=` padding required.
pub(crate) fn jackson_base64_decode(text: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let mut chars = text.chars();
    let bad = |c: char, i: usize| {
        format!(
            "Illegal character '{c}' (code 0x{:x}) in base64 content (index {i})",
            c as u32
        )
    };
    loop {
        let c0 = loop {
            match chars.next() {
                None => return Ok(()),
                Some(c) if c <= ' ' => continue,
                Some(c) => break c,
            }
        };
        let b0 = b64_value(c0).ok_or_else(|| bad(c0, 0))?;
        let c1 = chars.next().ok_or("Unexpected end of base64-encoded String: base64 variant 'MIME-NO-LINEFEEDS' expects padding (one or more '=' characters) at the end")?;
        let b1 = b64_value(c1).ok_or_else(|| bad(c1, 1))?;
        let c2 = chars.next().ok_or("Unexpected end of base64-encoded String: base64 variant 'MIME-NO-LINEFEEDS' expects padding (one or more '=' characters) at the end")?;
        if c2 == '=' {
            match chars.next() {
                Some('=') => {
                    out.push(((b0 << 2) | (b1 >> 4)) as u8);
                    continue;
                }
                Some(c) => return Err(bad(c, 3)),
                None => {
                    return Err(
                        "Unexpected end of base64-encoded String: expected padding character '='"
                            .into(),
                    );
                }
            }
        }
        let b2 = b64_value(c2).ok_or_else(|| bad(c2, 2))?;
        let c3 = chars.next().ok_or("Unexpected end of base64-encoded String: base64 variant 'MIME-NO-LINEFEEDS' expects padding (one or more '=' characters) at the end")?;
        if c3 == '=' {
            let v = (b0 << 12) | (b1 << 6) | b2;
            out.push((v >> 10) as u8);
            out.push((v >> 2) as u8);
            continue;
        }
        let b3 = b64_value(c3).ok_or_else(|| bad(c3, 3))?;
        let v = (b0 << 18) | (b1 << 12) | (b2 << 6) | b3;
        out.extend_from_slice(&[(v >> 16) as u8, (v >> 8) as u8, v as u8]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON decimal column's conversion (shared with CSV).
    fn dec(s: &str, p: u8, sc: u8) -> Option<i128> {
        crate::java_text::java_decimal(s, p, sc).unwrap()
    }

    #[test]
    fn big_decimal_rounds_half_up_and_overflows_to_null() {
        assert_eq!(dec("1.235", 10, 2), Some(124));
        assert_eq!(dec("-1.235", 10, 2), Some(-124));
        assert_eq!(dec("0.0049", 10, 2), Some(0));
        assert_eq!(dec("99999999.995", 10, 2), None);
        assert_eq!(dec("1e2", 10, 2), Some(10000));
        assert_eq!(dec("1e400", 10, 2), None);
        assert_eq!(dec("1e-400", 10, 2), Some(0));
        assert_eq!(parse_big_decimal("."), Err(NumberError::Format));
    }

    #[test]
    fn big_decimal_prints_as_java() {
        let s = |u: i128, sc: u8, strip: bool| {
            let mut bd = BigDec {
                negative: u < 0,
                digits: if u == 0 {
                    Vec::new()
                } else {
                    u.unsigned_abs().to_string().into_bytes()
                },
                scale: i64::from(sc),
            };
            if strip {
                strip_trailing_zeros(&mut bd);
            }
            let mut out = Vec::new();
            big_decimal_to_string(&bd, &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(s(1230, 2, true), "12.3");
        assert_eq!(s(10_000_000_000, 18, true), "1E-8");
        assert_eq!(s(10_000_000_000, 18, false), "1.0000000000E-8");
        assert_eq!(s(0, 2, true), "0");
        assert_eq!(s(10i128.pow(37), 18, true), "1E+19");
    }
}
