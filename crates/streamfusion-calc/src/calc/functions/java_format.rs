//! Java's number formatting and parsing, where Flink's results are defined by it:
//! `Double.toString`/`Float.toString` (the shortest-repr algorithm of JDK 19+),
//! `BigDecimal.valueOf(double)` and `Double.parseDouble`.

/// The decimal digits (no leading zeros, at least one) and exponent of a finite, non-zero
/// `|v|` as Java's `toString` chooses them: `v = d1.d2...dn × 10^exp`.
///
/// Java picks the shortest decimal that rounds back to `v` (Rust's `{:e}`); when that has one
/// digit it takes the closest among those of one or two digits (`{:.1e}`, when it rounds
/// back), so `4.9E-324`, not `5E-324`. Nothing is allocated: every text is on the stack.
fn java_digits(
    shortest: Text,
    two: impl FnOnce() -> Text,
    roundtrips: impl Fn(&str) -> bool,
) -> (Text, i32) {
    let (digits, exp) = scientific(shortest.as_str());
    if digits.len() == 1 {
        let two = two();
        let (d2, e2) = scientific(two.as_str());
        if !d2.as_str().ends_with('0') && roundtrips(two.as_str()) {
            return (d2, e2);
        }
    }
    (digits, exp)
}

/// Short text on the stack: a float's formatting, or its digits.
struct Text {
    bytes: [u8; 64],
    len: usize,
}

impl Text {
    fn new() -> Self {
        Self {
            bytes: [0; 64],
            len: 0,
        }
    }

    /// `args` formatted: a float's `{:e}` (at most 24 bytes), or an i128 with an exponent.
    fn of(args: std::fmt::Arguments<'_>) -> Self {
        let mut text = Self::new();
        // Only a text past 64 bytes fails, which neither reaches.
        let _ = std::fmt::write(&mut text, args);
        text
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }

    fn len(&self) -> usize {
        self.len
    }
}

impl std::fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        self.bytes
            .get_mut(self.len..end)
            .ok_or(std::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `d.ddde±x` as its digits (the point dropped) and exponent.
fn scientific(s: &str) -> (Text, i32) {
    let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
    let mut digits = Text::new();
    for b in mantissa.bytes().filter(|&b| b != b'.') {
        if let Some(slot) = digits.bytes.get_mut(digits.len) {
            *slot = b;
            digits.len += 1;
        }
    }
    (digits, exp.parse().unwrap_or(0))
}

fn layout(negative: bool, digits: &str, exp: i32) -> String {
    let mut out = String::with_capacity(digits.len() + 8);
    if negative {
        out.push('-');
    }
    if (-3..7).contains(&exp) {
        // Plain notation: `exp + 1` integer digits, at least one fractional digit.
        let point = exp + 1;
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(digits);
        } else {
            let point = point as usize;
            if point >= digits.len() {
                out.push_str(digits);
                out.extend(std::iter::repeat_n('0', point - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        out.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
        out.push('E');
        out.push_str(&exp.to_string());
    }
    out
}

/// Java's `Double.toString(v)`.
pub fn double_to_string(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let a = v.abs();
    let (digits, exp) = java_digits(
        Text::of(format_args!("{a:e}")),
        || Text::of(format_args!("{a:.1e}")),
        |s| s.parse::<f64>() == Ok(a),
    );
    layout(v < 0.0, digits.as_str(), exp)
}

/// Java's `Float.toString(v)`.
pub fn float_to_string(v: f32) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let a = v.abs();
    let (digits, exp) = java_digits(
        Text::of(format_args!("{a:e}")),
        || Text::of(format_args!("{a:.1e}")),
        |s| s.parse::<f32>() == Ok(a),
    );
    layout(v < 0.0, digits.as_str(), exp)
}

/// `BigDecimal.valueOf(v)` (the exact value of `Double.toString(v)`) as `(unscaled digits,
/// exponent)`: `v = unscaled × 10^exponent`; `Err` with BigDecimal's message for NaN and
/// the infinities.
pub fn double_decimal(v: f64) -> Result<(i128, i32), String> {
    if !v.is_finite() {
        let c = if v.is_nan() { 'N' } else { 'I' };
        return Err(format!(
            "java.lang.NumberFormatException: Character {c} is neither a decimal digit number, \
             decimal point, nor \"e\" notation exponential mark."
        ));
    }
    if v == 0.0 {
        return Ok((0, 0));
    }
    let a = v.abs();
    let (digits, exp) = java_digits(
        Text::of(format_args!("{a:e}")),
        || Text::of(format_args!("{a:.1e}")),
        |s| s.parse::<f64>() == Ok(a),
    );
    // At most 17 digits: fits an i128.
    let unscaled: i128 = digits.as_str().parse().unwrap_or(0);
    let unscaled = if v < 0.0 { -unscaled } else { unscaled };
    Ok((unscaled, exp - (digits.len() as i32 - 1)))
}

/// `unscaled × 10^exp` as the nearest double, parsed from its text on the stack.
pub fn parse_decimal(unscaled: i128, exp: i64) -> f64 {
    Text::of(format_args!("{unscaled}e{exp}"))
        .as_str()
        .parse()
        .unwrap_or(f64::NAN)
}

/// Java's `Double.parseDouble` (after Flink's trim), or its `NumberFormatException` message.
/// Hexadecimal floating-point literals (`0x1p3`) are not supported and fail.
pub fn parse_double(s: &str) -> Result<f64, String> {
    if let Some(v) = parse_hex_double(s) {
        return Ok(v);
    }
    let body = validate_java_float(s)?;
    body.parse::<f64>()
        .map_err(|_| format!("java.lang.NumberFormatException: For input string: \"{s}\""))
}

/// Java's hexadecimal floating-point form (`0x1.8p3`, `-0X.8P-1d`): hex digits with an
/// optional point, a binary exponent, an optional `f`/`d` suffix; `None` if `s` is not one.
/// Exact while the significant digits fit 113 bits and the result is a normal number (the
/// mantissa is rounded once, then scaled by a power of two).
fn parse_hex_double(s: &str) -> Option<f64> {
    let t = s.trim_matches(|c: char| c <= ' ');
    let (negative, rest) = match t.as_bytes().first()? {
        b'+' => (false, &t[1..]),
        b'-' => (true, &t[1..]),
        _ => (false, t),
    };
    let body = rest
        .strip_prefix("0x")
        .or_else(|| rest.strip_prefix("0X"))?;
    let body = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
    let (mantissa, exponent) = body.split_once(['p', 'P'])?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if (int.is_empty() && frac.is_empty())
        || !int
            .chars()
            .chain(frac.chars())
            .all(|c| c.is_ascii_hexdigit())
        || exponent.is_empty()
        || !exponent
            .trim_start_matches(['+', '-'])
            .chars()
            .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let digits: String = int.chars().chain(frac.chars()).collect();
    let significant = digits.trim_start_matches('0');
    if significant.len() > 28 {
        return None;
    }
    let m = if significant.is_empty() {
        0
    } else {
        u128::from_str_radix(significant, 16).ok()?
    };
    let e: i64 = exponent.parse().unwrap_or(if exponent.starts_with('-') {
        i64::MIN / 2
    } else {
        i64::MAX / 2
    });
    let shift = e.saturating_sub(4 * frac.len() as i64).clamp(-2200, 2200) as i32;
    // Scale in steps so no intermediate power of two overflows or underflows on its own.
    let mut v = m as f64;
    let mut left = shift;
    while left != 0 {
        let step = left.clamp(-1000, 1000);
        v *= 2f64.powi(step);
        left -= step;
    }
    Some(if negative { -v } else { v })
}

/// Java's `Float.parseFloat` (rounded once, straight to FLOAT).
pub fn parse_float(s: &str) -> Result<f32, String> {
    let body = validate_java_float(s)?;
    body.parse::<f32>()
        .map_err(|_| format!("java.lang.NumberFormatException: For input string: \"{s}\""))
}

/// `s` checked against Java's floating-point grammar (whitespace up to U+0020 trimmed, sign,
/// `NaN`, `Infinity`, digits with an optional point and exponent, an `f`/`d` suffix), returned
/// in a form Rust parses to the same value.
fn validate_java_float(s: &str) -> Result<String, String> {
    let bad = || format!("java.lang.NumberFormatException: For input string: \"{s}\"");
    let t = s.trim_matches(|c: char| c <= ' ');
    if t.is_empty() {
        return Err("java.lang.NumberFormatException: empty String".into());
    }
    let (sign, rest) = match t.as_bytes()[0] {
        b'+' => ("", &t[1..]),
        b'-' => ("-", &t[1..]),
        _ => ("", t),
    };
    if rest == "NaN" {
        return Ok("NaN".into());
    }
    if rest == "Infinity" {
        return Ok(format!("{sign}inf"));
    }
    let b = rest.as_bytes();
    let mut i = 0;
    let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return Err(bad());
    }
    let mantissa_end = i;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp_digits == 0 {
            return Err(bad());
        }
        i += exp_digits;
    }
    let number_end = i;
    if matches!(b.get(i), Some(b'f' | b'F' | b'd' | b'D')) {
        i += 1;
    }
    if i != b.len() {
        return Err(bad());
    }
    let _ = mantissa_end;
    Ok(format!("{sign}{}", &rest[..number_end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_to_string_matches_java() {
        // Expected values printed by Java's Double.toString / Float.toString.
        for (v, s) in [
            (1.0e-5, "1.0E-5"),
            (100.0, "100.0"),
            (1e7, "1.0E7"),
            (123456789.0, "1.23456789E8"),
            (0.001, "0.001"),
            (9.999999e-4, "9.999999E-4"),
            (9999999.0, "9999999.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1.5, "1.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (2e-323, "2.0E-323"),
            (f64::MIN_POSITIVE * f64::EPSILON, "4.9E-324"),
            (f64::MAX, "1.7976931348623157E308"),
            (1.2345678901234568e16, "1.2345678901234568E16"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
            (-1234.5, "-1234.5"),
        ] {
            assert_eq!(double_to_string(v), s, "{v:e}");
        }
        for (v, s) in [
            (0.1f32, "0.1"),
            (1.4e-45f32, "1.4E-45"),
            (3.402_823_5e38_f32, "3.4028235E38"),
            (1.0e7f32, "1.0E7"),
            (123456.7f32, "123456.7"),
            (2.0e-3f32, "0.002"),
            (1.005f32, "1.005"),
        ] {
            assert_eq!(float_to_string(v), s, "{v:e}");
        }
    }

    #[test]
    fn value_of_double_is_the_decimal_of_its_string() {
        assert_eq!(double_decimal(0.1), Ok((1, -1)));
        assert_eq!(double_decimal(1.005), Ok((1005, -3)));
        assert_eq!(double_decimal(-2.5e20), Ok((-25, 19)));
        assert!(
            double_decimal(f64::NAN)
                .unwrap_err()
                .contains("Character N")
        );
        assert!(
            double_decimal(f64::NEG_INFINITY)
                .unwrap_err()
                .contains("Character I")
        );
    }

    /// Java's digits by the specification's own steps, on heap strings: the shortest decimal
    /// that reads back (`{:e}`); one digit gives way to the closest of two when that reads
    /// back and does not end in 0. The model [`java_digits`] must equal.
    fn model_digits(shortest: String, two: String, roundtrips: bool) -> (String, i32) {
        let split = |s: &str| -> (String, i32) {
            let (m, e) = s.split_once('e').unwrap_or((s, "0"));
            (m.replace('.', ""), e.parse().unwrap())
        };
        let (digits, exp) = split(&shortest);
        if digits.len() == 1 {
            let (d2, e2) = split(&two);
            if !d2.ends_with('0') && roundtrips {
                return (d2, e2);
            }
        }
        (digits, exp)
    }

    #[test]
    fn stack_digits_equal_the_models_on_random_and_edge_values() {
        // SplitMix64 bit patterns, plus the values a one-digit shortest form is common for.
        let mut state = 0x5EED_u64;
        let mut next = || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut doubles: Vec<f64> = (0..200_000).map(|_| f64::from_bits(next())).collect();
        doubles.extend((1..2_000).map(|k| f64::from(k) / 64.0));
        doubles.extend((-330..310).map(|e| 10f64.powi(e)));
        doubles.extend([f64::MIN_POSITIVE, 5e-324, 1e23, 2e23, f64::MAX, 0.5]);
        for v in doubles.into_iter().filter(|v| v.is_finite() && *v != 0.0) {
            let a = v.abs();
            let two = format!("{a:.1e}");
            let (digits, exp) =
                model_digits(format!("{a:e}"), two.clone(), two.parse::<f64>() == Ok(a));
            let (got, got_exp) = java_digits(
                Text::of(format_args!("{a:e}")),
                || Text::of(format_args!("{a:.1e}")),
                |s| s.parse::<f64>() == Ok(a),
            );
            assert_eq!((got.as_str(), got_exp), (digits.as_str(), exp), "{v:e}");
            let unscaled: i128 = digits.parse().unwrap();
            let unscaled = if v < 0.0 { -unscaled } else { unscaled };
            let scale = exp - (digits.len() as i32 - 1);
            assert_eq!(double_decimal(v), Ok((unscaled, scale)), "{v:e}");
            assert_eq!(double_to_string(v).parse::<f64>(), Ok(v), "{v:e}");
        }
        for bits in (0..100_000).map(|_| next() as u32) {
            let v = f32::from_bits(bits);
            if v.is_finite() && v != 0.0 {
                assert_eq!(float_to_string(v).parse::<f32>(), Ok(v), "{v:e}");
            }
        }
    }

    #[test]
    fn parse_double_follows_javas_grammar() {
        assert_eq!(parse_double(" 1.5 "), Ok(1.5));
        assert_eq!(parse_double("\t1.5d"), Ok(1.5));
        assert_eq!(parse_double("1."), Ok(1.0));
        assert_eq!(parse_double(".5e1"), Ok(5.0));
        assert_eq!(parse_double("-Infinity"), Ok(f64::NEG_INFINITY));
        assert!(parse_double("-NaN").unwrap().is_nan());
        assert_eq!(parse_double("1e400"), Ok(f64::INFINITY));
        assert_eq!(parse_float("1.5f"), Ok(1.5));
        for bad in ["inf", "1e", ".e1", "1,5", "abc", "1.5x", "."] {
            assert_eq!(
                parse_double(bad),
                Err(format!(
                    "java.lang.NumberFormatException: For input string: \"{bad}\""
                ))
            );
        }
        assert_eq!(
            parse_double(""),
            Err("java.lang.NumberFormatException: empty String".into())
        );
    }
}
