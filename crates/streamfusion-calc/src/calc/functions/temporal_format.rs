//! Java date-time patterns as Flink uses them: `java.time.format.DateTimeFormatter.ofPattern`
//! (DATE_FORMAT of a TIMESTAMP, TO_TIMESTAMP with a format) and `java.text.SimpleDateFormat`
//! (DATE_FORMAT of a string, FROM_UNIXTIME, UNIX_TIMESTAMP, TO_DATE with a format), in the
//! English locale with the ISO (proleptic Gregorian) calendar.
//!
//! Supported letters: `G y u M L d D E a H k K h m s S n Q q` and quoted text; a pattern
//! with any other letter is rejected (`Err`) so that the call is not run natively, except
//! where Flink itself rejects it.

use super::temporal_calendar::{
    GREGORIAN_CUTOVER_DAY, civil_from_days, days_from_civil, floor_div, floor_mod,
    hybrid_calendar_day, julian_calendar_day, julian_calendar_fields, last_day, ymd_to_unix_date,
};

/// Which Java formatter's pattern rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `java.time.format.DateTimeFormatter`.
    DateTimeFormatter,
    /// `java.text.SimpleDateFormat` (lenient).
    SimpleDateFormat,
}

/// One piece of a compiled pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Field(char, usize),
    Literal(String),
}

/// A compiled pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    dialect: Dialect,
    tokens: Vec<Token>,
}

/// Why a pattern cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternError {
    /// Java rejects the pattern too (the Flink job fails).
    Invalid(String),
    /// Valid in Java, but uses a letter not implemented natively.
    Unsupported(char),
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

impl Pattern {
    /// Compiles `pattern` under `dialect`'s rules.
    pub fn compile(pattern: &str, dialect: Dialect) -> Result<Pattern, PatternError> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut tokens = Vec::new();
        let mut literal = String::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '\'' {
                // '' is a quote; 'text' is literal text.
                if chars.get(i + 1) == Some(&'\'') {
                    literal.push('\'');
                    i += 2;
                    continue;
                }
                let mut j = i + 1;
                loop {
                    match chars.get(j) {
                        None => {
                            return Err(PatternError::Invalid(format!(
                                "unterminated quote in pattern {pattern:?}"
                            )));
                        }
                        Some('\'') if chars.get(j + 1) == Some(&'\'') => {
                            literal.push('\'');
                            j += 2;
                        }
                        Some('\'') => break,
                        Some(&ch) => {
                            literal.push(ch);
                            j += 1;
                        }
                    }
                }
                i = j + 1;
                continue;
            }
            if c.is_ascii_alphabetic() {
                let mut n = 1;
                while chars.get(i + n) == Some(&c) {
                    n += 1;
                }
                check_letter(c, n, dialect)?;
                if !literal.is_empty() {
                    tokens.push(Token::Literal(std::mem::take(&mut literal)));
                }
                tokens.push(Token::Field(c, n));
                i += n;
                continue;
            }
            if dialect == Dialect::DateTimeFormatter {
                match c {
                    // Optional sections always print when formatting a full date-time.
                    '[' | ']' => {
                        i += 1;
                        continue;
                    }
                    '{' | '}' | '#' => {
                        return Err(PatternError::Invalid(format!(
                            "pattern {pattern:?}: reserved character {c:?}"
                        )));
                    }
                    _ => {}
                }
            }
            literal.push(c);
            i += 1;
        }
        if !literal.is_empty() {
            tokens.push(Token::Literal(literal));
        }
        Ok(Pattern { dialect, tokens })
    }

    /// Formats a local date-time: `millis` local epoch milliseconds, `nanos` nanoseconds of
    /// that millisecond.
    pub fn format(&self, millis: i64, nanos: i32) -> String {
        let days = floor_div(millis, 86_400_000);
        let ms_of_day = floor_mod(millis, 86_400_000);
        // SimpleDateFormat's GregorianCalendar reads Julian fields before the reform; both
        // dialects reach years far past 9999 (64-bit day arithmetic).
        let (year, month, day, doy) =
            if self.dialect == Dialect::SimpleDateFormat && days < GREGORIAN_CUTOVER_DAY {
                let (y, m, d) = julian_calendar_fields(days);
                (
                    y,
                    m as i32,
                    d as i32,
                    days - julian_calendar_day(y, 1, 1) + 1,
                )
            } else {
                let (y, m, d) = civil_from_days(days);
                // The reform's year began on the Julian January 1.
                let start = if self.dialect == Dialect::SimpleDateFormat && y == 1582 {
                    julian_calendar_day(y, 1, 1)
                } else {
                    days_from_civil(y, 1, 1)
                };
                (y, m as i32, d as i32, days - start + 1)
            };
        let hour = (ms_of_day / 3_600_000) as i32;
        let minute = (ms_of_day / 60_000 % 60) as i32;
        let second = (ms_of_day / 1000 % 60) as i32;
        let nano = (ms_of_day % 1000) as i32 * 1_000_000 + nanos;
        let dow = floor_mod(days + 3, 7) as usize; // 0 = Monday
        let mut out = String::new();
        let dtf = self.dialect == Dialect::DateTimeFormatter;
        for t in &self.tokens {
            let (c, n) = match t {
                Token::Literal(s) => {
                    out.push_str(s);
                    continue;
                }
                Token::Field(c, n) => (*c, *n),
            };
            let year_of_era = if year > 0 { year } else { 1 - year };
            match c {
                'G' => out.push_str(if year > 0 { "AD" } else { "BC" }),
                'y' | 'u' if c == 'y' || dtf => {
                    let v = if c == 'y' { year_of_era } else { year };
                    if n == 2 {
                        pad(&mut out, v.rem_euclid(100), 2);
                    } else if dtf && n == 4 && v > 9999 {
                        out.push('+');
                        pad(&mut out, v, n);
                    } else {
                        pad(&mut out, v, n);
                    }
                }
                'u' => pad(&mut out, dow as i64 + 1, n),
                'M' | 'L' => match n {
                    1 | 2 => pad(&mut out, i64::from(month), n),
                    3 => out.push_str(month_name(month).get(..3).unwrap_or("")),
                    5 if dtf => out.push_str(month_name(month).get(..1).unwrap_or("")),
                    _ => out.push_str(month_name(month)),
                },
                'd' => pad(&mut out, i64::from(day), n),
                'D' => pad(&mut out, doy, n),
                'E' => match n {
                    1..=3 => out.push_str(&DAYS[dow][..3]),
                    5 if dtf => out.push_str(&DAYS[dow][..1]),
                    _ => out.push_str(DAYS[dow]),
                },
                'a' => out.push_str(if hour < 12 { "AM" } else { "PM" }),
                'H' => pad(&mut out, i64::from(hour), n),
                'k' => pad(&mut out, i64::from(if hour == 0 { 24 } else { hour }), n),
                'K' => pad(&mut out, i64::from(hour % 12), n),
                'h' => pad(
                    &mut out,
                    i64::from(if hour % 12 == 0 { 12 } else { hour % 12 }),
                    n,
                ),
                'm' => pad(&mut out, i64::from(minute), n),
                's' => pad(&mut out, i64::from(second), n),
                'S' if dtf => {
                    let digits = format!("{nano:09}");
                    out.push_str(&digits[..n.min(9)]);
                }
                'S' => pad(&mut out, i64::from(nano / 1_000_000), n),
                'n' => pad(&mut out, i64::from(nano), n),
                'Q' | 'q' => {
                    let q = (month - 1) / 3 + 1;
                    match n {
                        1 | 2 => pad(&mut out, i64::from(q), n),
                        3 => out.push_str(&format!("Q{q}")),
                        5 => out.push_str(&q.to_string()),
                        _ => out.push_str(
                            usize::try_from(q - 1)
                                .ok()
                                .and_then(|i| {
                                    ["1st quarter", "2nd quarter", "3rd quarter", "4th quarter"]
                                        .get(i)
                                })
                                .copied()
                                .unwrap_or(""),
                        ),
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// Parses `text` to local epoch milliseconds and nanoseconds of the millisecond, as the
    /// dialect does: `SimpleDateFormat.parse` (lenient: out-of-range fields roll over, trailing
    /// text ignored) or `DateTimeFormatter.parse` (exact widths, whole text, the day clamped
    /// to the month's end as the SMART resolver does); missing fields default to 1970-01-01
    /// 00:00:00. `None` when the text does not match.
    pub fn parse(&self, text: &str) -> Option<(i64, i32)> {
        let dtf = self.dialect == Dialect::DateTimeFormatter;
        let bytes: Vec<char> = text.chars().collect();
        let mut pos = 0;
        let (mut year, mut month, mut day) = (1970i64, 1i64, 1i64);
        let (mut hour, mut minute, mut second, mut nano) = (0i64, 0i64, 0i64, 0i64);
        let mut pm: Option<bool> = None;
        let mut hour12: Option<i64> = None;
        let mut era_bc = false;
        for (k, t) in self.tokens.iter().enumerate() {
            let (c, n) = match t {
                Token::Literal(s) => {
                    for ch in s.chars() {
                        if bytes.get(pos) != Some(&ch) {
                            return None;
                        }
                        pos += 1;
                    }
                    continue;
                }
                Token::Field(c, n) => (*c, *n),
            };
            // A numeric field followed directly by another numeric field takes exactly its
            // width (abutting fields), else as many digits as there are.
            let abutting = matches!(
                self.tokens.get(k + 1),
                Some(Token::Field(next, m)) if is_numeric(*next, *m)
            );
            let text_field = matches!(c, 'M' | 'L') && n >= 3 || matches!(c, 'E' | 'a' | 'G');
            if text_field {
                let rest: String = bytes[pos..].iter().collect();
                let (value, len) = match c {
                    'M' | 'L' => match_name(&rest, &MONTHS, n, dtf)?,
                    'E' => match_name(&rest, &DAYS, n, dtf)?,
                    'a' => match_name(&rest, &["AM", "PM"], 4, false)?,
                    _ => match_name(&rest, &["BC", "AD"], 4, false)?,
                };
                pos += len;
                match c {
                    'M' | 'L' => month = value as i64 + 1,
                    'a' => pm = Some(value == 1),
                    'G' => era_bc = value == 0,
                    _ => {}
                }
                continue;
            }
            let (min, max) = if dtf {
                dtf_width(c, n)
            } else if abutting {
                (n, n)
            } else {
                (1, usize::MAX)
            };
            if !dtf {
                // SimpleDateFormat skips blanks before a number.
                while matches!(bytes.get(pos), Some(' ' | '\t')) {
                    pos += 1;
                }
            }
            let mut sign = 1;
            let mut max = max;
            if !dtf || matches!(c, 'y' | 'u') {
                match bytes.get(pos) {
                    Some('-') if !dtf || c == 'u' => {
                        sign = -1;
                        pos += 1;
                        // An abutting field's width counts its sign.
                        if abutting && !dtf {
                            max = max.saturating_sub(1);
                        }
                    }
                    Some('+') if dtf && n >= 4 => pos += 1,
                    _ => {}
                }
            }
            let start = pos;
            while pos < bytes.len() && pos - start < max && bytes[pos].is_ascii_digit() {
                pos += 1;
            }
            let len = pos - start;
            if len < min.max(1) {
                return None;
            }
            let digits: String = bytes[start..pos].iter().collect();
            let v: i64 = sign * digits.parse::<i64>().ok()?;
            match c {
                // DateTimeFormatter's `y` is the year of the era, 1 or more: year 0 does not
                // resolve (Flink's TO_TIMESTAMP gives NULL).
                'y' if dtf && v == 0 => return None,
                'y' | 'u' => year = v,
                'M' | 'L' => month = v,
                'd' => day = v,
                'H' => hour = v,
                'k' => hour = if v == 24 && dtf { 0 } else { v },
                'h' | 'K' => hour12 = Some(if c == 'h' && v == 12 { 0 } else { v }),
                'm' => minute = v,
                's' => second = v,
                'S' if dtf => nano = v * 10i64.pow(9 - len as u32),
                'S' => nano = v * 1_000_000,
                'n' => nano = v,
                _ => return None,
            }
        }
        if dtf && pos != bytes.len() {
            return None;
        }
        // The AM/PM marker only moves 12-hour fields.
        if let Some(h) = hour12 {
            hour = h + if pm == Some(true) { 12 } else { 0 };
        }
        if era_bc {
            year = 1 - year;
        }
        // The SMART resolver reads 24:00:00 (nothing finer) as midnight of the next day.
        let mut excess_days = 0;
        if dtf && hour == 24 && minute == 0 && second == 0 && nano == 0 {
            hour = 0;
            excess_days = 1;
        }
        if dtf {
            if !(1..=12).contains(&month)
                || !(1..=31).contains(&day)
                || !(0..=23).contains(&hour)
                || !(0..=59).contains(&minute)
                || !(0..=59).contains(&second)
            {
                return None;
            }
            day = day.min(i64::from(last_day(i32::try_from(year).ok()?, month as i32)));
        }
        // Lenient rollover: months beyond 12 add years, days add to the month's first day.
        // SimpleDateFormat's GregorianCalendar reads fields before the reform as Julian ones.
        let y = year + floor_div(month - 1, 12);
        let m = floor_mod(month - 1, 12) as i32 + 1;
        let y = i32::try_from(y).ok()?;
        let days = if dtf {
            i64::from(ymd_to_unix_date(y, m, 1)) + day - 1 + excess_days
        } else {
            hybrid_calendar_day(y, m, day)
        };
        let millis = days
            .checked_mul(86_400_000)?
            .checked_add(hour.checked_mul(3_600_000)?)?
            .checked_add(minute.checked_mul(60_000)?)?
            .checked_add(second.checked_mul(1000)?)?
            .checked_add(nano / 1_000_000)?;
        Some((millis, (nano % 1_000_000) as i32))
    }
}

/// The English name of month 1..=12 (empty for the impossible others, never a panic).
fn month_name(month: i32) -> &'static str {
    usize::try_from(month - 1)
        .ok()
        .and_then(|i| MONTHS.get(i))
        .copied()
        .unwrap_or("")
}

fn pad(out: &mut String, v: i64, width: usize) {
    if v < 0 {
        out.push('-');
    }
    let digits = v.unsigned_abs().to_string();
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(&digits);
}

/// Whether a letter with this count reads digits.
fn is_numeric(c: char, n: usize) -> bool {
    match c {
        'M' | 'L' => n <= 2,
        'y' | 'u' | 'd' | 'D' | 'H' | 'k' | 'K' | 'h' | 'm' | 's' | 'S' | 'n' => true,
        _ => false,
    }
}

/// `DateTimeFormatter` parse widths (min, max digits) of a numeric letter.
fn dtf_width(c: char, n: usize) -> (usize, usize) {
    match (c, n) {
        ('y' | 'u', 2) => (2, 2),
        ('y' | 'u', 4) => (4, 4),
        ('y' | 'u', _) => (n, 19),
        ('S', _) => (n, n),
        (_, 1) => (1, 19),
        (_, _) => (n, n),
    }
}

/// The index and length of the name in `names` that `text` starts with (case-insensitive):
/// full names, or their 3-letter (`n` ≤ 3) forms. `SimpleDateFormat` accepts either.
fn match_name(text: &str, names: &[&str], n: usize, dtf: bool) -> Option<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    let mut best: Option<(usize, usize)> = None;
    for (i, name) in names.iter().enumerate() {
        let full = name.to_ascii_lowercase();
        let short: String = full.chars().take(3).collect();
        let candidates: Vec<&str> = if dtf {
            if n >= 4 { vec![&full] } else { vec![&short] }
        } else {
            vec![&full, &short]
        };
        for cand in candidates {
            if lower.starts_with(cand) && best.is_none_or(|(_, l)| cand.len() > l) {
                best = Some((i, cand.len()));
            }
        }
    }
    best
}

/// Checks a letter run: Java's errors for invalid letters and counts, [`PatternError::
/// Unsupported`] for valid letters not implemented here.
fn check_letter(c: char, n: usize, dialect: Dialect) -> Result<(), PatternError> {
    let too_many = || {
        Err(PatternError::Invalid(format!(
            "Too many pattern letters: {c}"
        )))
    };
    match dialect {
        Dialect::DateTimeFormatter => match c {
            'G' | 'y' | 'u' | 'M' | 'L' | 'd' | 'D' | 'E' | 'a' | 'H' | 'k' | 'K' | 'h' | 'm'
            | 's' | 'S' | 'n' | 'Q' | 'q' => {
                let max = match c {
                    'd' | 'H' | 'k' | 'K' | 'h' | 'm' | 's' => 2,
                    'D' => 3,
                    'a' => 1,
                    'G' | 'M' | 'L' | 'E' | 'Q' | 'q' => 5,
                    'S' => 9,
                    _ => 19,
                };
                if n > max {
                    return too_many();
                }
                if matches!(c, 'G') || matches!(c, 'L' | 'q') && n >= 3 {
                    return Err(PatternError::Unsupported(c));
                }
                Ok(())
            }
            'A' | 'N' | 'e' | 'c' | 'w' | 'W' | 'Y' | 'F' | 'V' | 'v' | 'z' | 'O' | 'X' | 'x'
            | 'Z' | 'B' | 'g' => Err(PatternError::Unsupported(c)),
            _ => Err(PatternError::Invalid(format!(
                "Unknown pattern letter: {c}"
            ))),
        },
        Dialect::SimpleDateFormat => match c {
            'G' | 'y' | 'M' | 'L' | 'd' | 'D' | 'E' | 'a' | 'H' | 'k' | 'K' | 'h' | 'm' | 's'
            | 'S' | 'u' => {
                if c == 'G' || c == 'L' {
                    return Err(PatternError::Unsupported(c));
                }
                Ok(())
            }
            'F' | 'w' | 'W' | 'Y' | 'z' | 'Z' | 'X' => Err(PatternError::Unsupported(c)),
            _ => Err(PatternError::Invalid(format!(
                "Illegal pattern character '{c}'"
            ))),
        },
    }
}
