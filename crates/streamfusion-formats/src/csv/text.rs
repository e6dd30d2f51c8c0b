//! Field text as `CsvToRowDataConverters` reads it (Java's `Integer.parseInt`,
//! `new BigDecimal`, `java.sql.Date.valueOf`, `LocalTime.parse`, Flink's SQL timestamp
//! format, Jackson's Base64) and as `RowDataToCsvConverters` writes it (ISO dates and times,
//! `BigDecimal.toPlainString`/`toString`).

use std::fmt::Write as _;

pub(crate) use crate::java_text::{
    java_decimal, java_parse_long, java_trim, write_plain_decimal, write_scientific_decimal,
};
use chrono::{Datelike, NaiveDate};
use streamfusion_calc::calc::functions::temporal_calendar::{
    GREGORIAN_CUTOVER_DAY, hybrid_calendar_day, julian_calendar_fields,
};

/// The Unix epoch as a day count of chrono's calendar.
const EPOCH_DAYS_FROM_CE: i32 = 719_163;

/// The decimal text `[+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?` (ASCII, after Java's trim) that
/// Rust's float parsing reads exactly as `Double.parseDouble`/`Float.parseFloat` do (both
/// round once, to nearest even); `None` for anything else (the Java-grammar parser decides).
pub(crate) fn plain_float_text(s: &str) -> Option<&str> {
    let t = java_trim(s);
    let b = t.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let int = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    i += int;
    let mut frac = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac;
    }
    if int + frac == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        i += usize::from(matches!(b.get(i), Some(b'+' | b'-')));
        let exp = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp == 0 {
            return None;
        }
        i += exp;
    }
    (i == b.len()).then_some(t)
}

/// `java.sql.Date.valueOf(s).toLocalDate().toEpochDay()`: `yyyy-[m]m-[d]d` with a four-char
/// year, month 1..=12 and day 1..=31.
///
/// `Date.valueOf` normalises the day leniently in `GregorianCalendar`'s hybrid calendar (a day
/// past the month's end rolls into the next month, Julian before 1582-10-15); `toLocalDate`
/// then reads that date's year, month and day as a proleptic Gregorian `LocalDate`. So a
/// pre-reform date keeps its fields, `1000-02-30` is March 1 (1000 is a Julian leap year),
/// `1582-10-10` (a removed day) is October 20, and `1000-02-29` fails as `LocalDate.of` does.
/// Years before 1 (eras Java reads differently) are refused too.
pub(crate) fn java_sql_date(s: &str) -> Option<i32> {
    let first = s.find('-')?;
    let second = first + 1 + s[first + 1..].find('-')?;
    let len = s.len();
    if first == 0 || second >= len - 1 {
        return None;
    }
    if first != 4 || !(2..=3).contains(&(second - first)) || !(2..=3).contains(&(len - second)) {
        return None;
    }
    let year = java_parse_long(&s[..first], i64::from(i32::MIN), i64::from(i32::MAX))?;
    let month = java_parse_long(
        &s[first + 1..second],
        i64::from(i32::MIN),
        i64::from(i32::MAX),
    )?;
    let day = java_parse_long(&s[second + 1..], i64::from(i32::MIN), i64::from(i32::MAX))?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || year < 1 {
        return None;
    }
    let year = i32::try_from(year).ok()?;
    NaiveDate::from_ymd_opt(year, month as u32, 1)?;
    let normalized = hybrid_calendar_day(year, month as i32, day);
    if normalized >= GREGORIAN_CUTOVER_DAY {
        return i32::try_from(normalized).ok();
    }
    // Before the reform the calendar's fields are Julian; LocalDate reads them as Gregorian.
    let (y, m, d) = julian_calendar_fields(normalized);
    let date = NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m as u32, d as u32)?;
    Some(date.num_days_from_ce() - EPOCH_DAYS_FROM_CE)
}

/// Two ASCII digits at `s[at..at + 2]`.
fn two_digits(s: &[u8], at: usize) -> Option<u32> {
    let (a, b) = (*s.get(at)?, *s.get(at + 1)?);
    (a.is_ascii_digit() && b.is_ascii_digit())
        .then(|| u32::from(a - b'0') * 10 + u32::from(b - b'0'))
}

/// `HH:mm[:ss[.f{0,9}]]` at the start of `s`, as `ISO_LOCAL_TIME` parses; returns
/// (hour, minute, second, nanos, bytes used). With `seconds_required`, the SQL time format
/// `HH:mm:ss[.f{0,9}]`.
fn clock(s: &[u8], seconds_required: bool) -> Option<(u32, u32, u32, u32, usize)> {
    let hour = two_digits(s, 0)?;
    if s.get(2) != Some(&b':') {
        return None;
    }
    let minute = two_digits(s, 3)?;
    let mut at = 5;
    let (mut second, mut nanos) = (0, 0);
    if s.get(at) == Some(&b':') {
        second = two_digits(s, at + 1)?;
        at += 3;
        if s.get(at) == Some(&b'.') {
            at += 1;
            let mut n = 0;
            while n < 9 && s.get(at).is_some_and(u8::is_ascii_digit) {
                nanos = nanos * 10 + u32::from(s[at] - b'0');
                n += 1;
                at += 1;
            }
            nanos *= 10u32.pow(9 - n);
        }
    } else if seconds_required {
        return None;
    }
    (minute < 60 && second < 60).then_some((hour, minute, second, nanos, at))
}

/// `LocalTime.parse(s)` (ISO, strict) as milliseconds of the day.
pub(crate) fn java_local_time_millis(s: &str) -> Option<i32> {
    let (hour, minute, second, nanos, used) = clock(s.as_bytes(), false)?;
    if used != s.len() || hour > 23 {
        return None;
    }
    Some(((hour * 3600 + minute * 60 + second) * 1000 + nanos / 1_000_000) as i32)
}

/// A timestamp as Flink's `TimestampData`: milliseconds since the epoch and nanos of the
/// millisecond.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Timestamp {
    pub millis: i64,
    pub nanos_of_milli: u32,
}

/// Flink's `SQL_TIMESTAMP_FORMAT` (`yyyy-MM-dd HH:mm:ss[.f{0,9}]`, SMART resolution: a day
/// past the month's end is the month's last day, `24:00:00` is the next midnight), followed
/// by a literal `Z` when `zulu`; `s` already trimmed.
pub(crate) fn sql_timestamp(s: &str, zulu: bool) -> Option<Timestamp> {
    let b = s.as_bytes();
    // ISO_LOCAL_DATE's year: four digits, or a sign and 4..=10 digits.
    let (sign, mut at) = match b.first()? {
        b'+' => (1i64, 1),
        b'-' => (-1i64, 1),
        _ => (1i64, 0),
    };
    let start = at;
    while at < b.len() && b[at].is_ascii_digit() && at - start < 10 {
        at += 1;
    }
    let width = at - start;
    if width < 4 || (start == 0 && width != 4) {
        return None;
    }
    let year: i64 = sign * s[start..at].parse::<i64>().ok()?;
    if b.get(at) != Some(&b'-') {
        return None;
    }
    let month = two_digits(b, at + 1)?;
    if b.get(at + 3) != Some(&b'-') {
        return None;
    }
    let day = two_digits(b, at + 4)?;
    if b.get(at + 6) != Some(&b' ') {
        return None;
    }
    let (hour, minute, second, nanos, used) = clock(&b[at + 7..], true)?;
    let mut end = at + 7 + used;
    if zulu {
        if b.get(end) != Some(&b'Z') {
            return None;
        }
        end += 1;
    }
    if end != b.len() || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let year = i32::try_from(year).ok()?;
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    let month_len = {
        let next = if month == 12 {
            NaiveDate::from_ymd_opt(year.checked_add(1)?, 1, 1)?
        } else {
            NaiveDate::from_ymd_opt(year, month + 1, 1)?
        };
        (next - first).num_days() as u32
    };
    let mut days = i64::from(first.num_days_from_ce() - EPOCH_DAYS_FROM_CE)
        + i64::from(day.min(month_len))
        - 1;
    let seconds_of_day = if hour == 24 {
        if minute != 0 || second != 0 || nanos != 0 {
            return None;
        }
        days += 1;
        0
    } else if hour > 24 {
        return None;
    } else {
        i64::from(hour * 3600 + minute * 60 + second)
    };
    let millis = (days * 86_400 + seconds_of_day)
        .checked_mul(1000)?
        .checked_add(i64::from(nanos / 1_000_000))?;
    Some(Timestamp {
        millis,
        nanos_of_milli: nanos % 1_000_000,
    })
}

/// Jackson's `Base64Variants.MIME_NO_LINEFEEDS` decoding (`TextNode.binaryValue`): standard
/// alphabet, padding required, white space (`<= ' '`) allowed only between 4-char groups.
pub(crate) fn jackson_base64(s: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    fn value(b: u8) -> Option<u32> {
        Some(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let illegal = |b: u8, at: usize| {
        format!("Illegal character (code 0x{b:x}) in base64 content at index {at}")
    };
    let mut i = 0;
    loop {
        while i < s.len() && s[i] <= b' ' {
            i += 1;
        }
        if i >= s.len() {
            return Ok(());
        }
        let b0 = value(s[i]).ok_or_else(|| illegal(s[i], i))?;
        let b1 = match s.get(i + 1) {
            None => return Err("Unexpected end of base64-encoded String".into()),
            Some(&b) => value(b).ok_or_else(|| illegal(b, i + 1))?,
        };
        let mut bits = (b0 << 18) | (b1 << 12);
        match s.get(i + 2) {
            None => return Err("Unexpected end of base64-encoded String: missing padding".into()),
            Some(b'=') => {
                if s.get(i + 3) != Some(&b'=') {
                    return Err(
                        "Unexpected end of base64-encoded String: expected padding character '='"
                            .into(),
                    );
                }
                out.push((bits >> 16) as u8);
                i += 4;
                continue;
            }
            Some(&b) => bits |= value(b).ok_or_else(|| illegal(b, i + 2))? << 6,
        }
        match s.get(i + 3) {
            None => return Err("Unexpected end of base64-encoded String: missing padding".into()),
            Some(b'=') => {
                out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8]);
                i += 4;
                continue;
            }
            Some(&b) => bits |= value(b).ok_or_else(|| illegal(b, i + 3))?,
        }
        out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8, bits as u8]);
        i += 4;
    }
}

/// `ISO_LOCAL_DATE.format(LocalDate.ofEpochDay(days))`; false (nothing written) for a day
/// beyond chrono's calendar (years past ±262,143).
pub(crate) fn write_iso_date(days: i64, out: &mut String) -> bool {
    let Some(date) = i32::try_from(days)
        .ok()
        .and_then(|d| d.checked_add(EPOCH_DAYS_FROM_CE))
        .and_then(NaiveDate::from_num_days_from_ce_opt)
    else {
        return false;
    };
    let (year, month, day) = (date.year(), date.month(), date.day());
    if year > 9999 {
        let _ = write!(out, "+{year}");
    } else if year < 0 {
        let _ = write!(out, "-{:04}", -i64::from(year));
    } else {
        let _ = write!(out, "{year:04}");
    }
    let _ = write!(out, "-{month:02}-{day:02}");
    true
}

/// `ISO_LOCAL_TIME` of nanoseconds of the day: `HH:mm:ss` and the fraction without trailing
/// zeros (nothing when it is zero).
pub(crate) fn write_iso_time(nanos_of_day: i64, out: &mut String) {
    let seconds = nanos_of_day / 1_000_000_000;
    let nanos = nanos_of_day % 1_000_000_000;
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    );
    if nanos != 0 {
        let mut digits = format!("{nanos:09}");
        while digits.ends_with('0') {
            digits.pop();
        }
        out.push('.');
        out.push_str(&digits);
    }
}

/// `yyyy-MM-dd HH:mm:ss[.fraction]` of a timestamp (`RowDataToCsvConverters`' formatter);
/// false when the date is beyond chrono's calendar.
pub(crate) fn write_timestamp(ts: Timestamp, out: &mut String) -> bool {
    let days = ts.millis.div_euclid(86_400_000);
    let millis_of_day = ts.millis.rem_euclid(86_400_000);
    if !write_iso_date(days, out) {
        return false;
    }
    out.push(' ');
    write_iso_time(
        millis_of_day * 1_000_000 + i64::from(ts.nanos_of_milli),
        out,
    );
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `java.sql.Date.valueOf(s).toLocalDate().toEpochDay()` as JDK 17 printed it (errors are
    /// `DateTimeException`s from `LocalDate.of`).
    #[test]
    fn java_sql_dates_in_the_hybrid_calendar() {
        for (text, want) in [
            ("1000-02-30", Some(-354_226)),
            ("1582-10-10", Some(-141_422)),
            ("1000-02-29", None),
            ("1500-01-01", Some(-171_664)),
            ("0001-01-01", Some(-719_162)),
            ("1582-10-04", Some(-141_438)),
            ("1582-10-15", Some(-141_427)),
            ("1700-02-29", Some(-98_556)),
            ("1500-02-29", None),
            ("1582-10-31", Some(-141_411)),
            ("1000-12-31", Some(-353_921)),
            ("0100-03-01", Some(-682_944)),
            ("2024-02-30", Some(19_783)),
        ] {
            assert_eq!(java_sql_date(text), want, "{text}");
        }
    }
}
