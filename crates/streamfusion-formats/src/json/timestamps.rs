//! Dates, times and timestamps as text, as Flink's `TimeFormats` (and `java.time`'s
//! `ISO_LOCAL_DATE`, `ISO_LOCAL_TIME`, `ISO_LOCAL_DATE_TIME`) parse and print them.
//!
//! | formatter | text | resolver |
//! |---|---|---|
//! | `ISO_LOCAL_DATE` (DATE) | `yyyy-MM-dd` | STRICT: `2023-02-29` fails |
//! | `SQL_TIME_FORMAT` (TIME) | `HH:mm:ss[.f{0,9}]` | SMART: `24:00:00` is midnight |
//! | `SQL_TIMESTAMP_FORMAT` | date ` ` SQL time | SMART: day clamped to the month, `24:00:00` the next day |
//! | `ISO_LOCAL_DATE_TIME` | date `T`/`t` `HH:mm[:ss[.f{0,9}]]` | STRICT |
//! | `SQL_TIMESTAMP_WITH_LOCAL_TIMEZONE_FORMAT` | SQL timestamp then `Z` | SMART |
//! | `ISO8601_TIMESTAMP_WITH_LOCAL_TIMEZONE_FORMAT` | date `T` ISO time then `Z` | SMART |
//!
//! The year is `ISO_LOCAL_DATE`'s: four digits, or a sign and more (`+10000`, `-0001`; a `+`
//! needs more than four digits, `-0000` is refused), within ±999,999,999.

/// A parsed local date-time: days since 1970-01-01 and nanoseconds of the day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LocalDateTime {
    pub epoch_day: i64,
    pub nano_of_day: i64,
}

struct Cursor<'a> {
    s: &'a [u8],
    p: usize,
}

impl Cursor<'_> {
    fn lit(&mut self, c: u8) -> Option<()> {
        (self.s.get(self.p) == Some(&c)).then(|| self.p += 1)
    }

    fn lit_ci(&mut self, c: u8) -> Option<()> {
        self.s
            .get(self.p)
            .is_some_and(|b| b.eq_ignore_ascii_case(&c))
            .then(|| self.p += 1)
    }

    fn fixed(&mut self, n: usize) -> Option<i64> {
        let digits = self.s.get(self.p..self.p + n)?;
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.p += n;
        Some(digits.iter().fold(0, |v, d| v * 10 + (d - b'0') as i64))
    }

    fn done(&self) -> bool {
        self.p == self.s.len()
    }
}

/// Strict (`ISO_LOCAL_DATE`) or smart (inside Flink's SQL formatters) date resolution.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Resolve {
    Strict,
    Smart,
}

fn parse_year(c: &mut Cursor<'_>) -> Option<i64> {
    let sign = match c.s.get(c.p) {
        Some(b'+') => {
            c.p += 1;
            1
        }
        Some(b'-') => {
            c.p += 1;
            -1
        }
        _ => 0,
    };
    let start = c.p;
    while c.p < c.s.len() && c.p - start < 10 && c.s[c.p].is_ascii_digit() {
        c.p += 1;
    }
    let n = c.p - start;
    if n < 4 {
        return None;
    }
    let v = c.s[start..c.p]
        .iter()
        .fold(0i64, |v, d| v * 10 + (d - b'0') as i64);
    match sign {
        1 if n <= 4 => None,
        0 if n > 4 => None,
        -1 if v == 0 => None,
        _ => {
            let year = if sign < 0 { -v } else { v };
            (-999_999_999..=999_999_999).contains(&year).then_some(year)
        }
    }
}

fn is_leap(y: i64) -> bool {
    y.rem_euclid(4) == 0 && (y.rem_euclid(100) != 0 || y.rem_euclid(400) == 0)
}

fn month_len(y: i64, m: i64) -> i64 {
    match m {
        2 => {
            if is_leap(y) {
                29
            } else {
                28
            }
        }
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (`LocalDate.toEpochDay`).
pub(crate) fn epoch_day(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `(year, month, day)` of days since 1970-01-01.
pub(crate) fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn parse_date(c: &mut Cursor<'_>, resolve: Resolve) -> Option<i64> {
    let y = parse_year(c)?;
    c.lit(b'-')?;
    let m = c.fixed(2)?;
    c.lit(b'-')?;
    let d = c.fixed(2)?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let len = month_len(y, m);
    let d = match resolve {
        Resolve::Strict if d > len => return None,
        _ => d.min(len),
    };
    Some(epoch_day(y, m, d))
}

/// `.` and 0..=9 digits (appendFraction(NANO_OF_SECOND, 0, 9, true)), as nanoseconds.
fn parse_fraction(c: &mut Cursor<'_>) -> i64 {
    if c.lit(b'.').is_none() {
        return 0;
    }
    let mut nanos = 0;
    let mut n = 0;
    while n < 9 && c.p < c.s.len() && c.s[c.p].is_ascii_digit() {
        nanos = nanos * 10 + (c.s[c.p] - b'0') as i64;
        c.p += 1;
        n += 1;
    }
    nanos * 10i64.pow(9 - n)
}

/// Resolves hour/minute/second/nano: `(nano_of_day, extra_days)`.
fn resolve_time(h: i64, mi: i64, s: i64, n: i64, resolve: Resolve) -> Option<(i64, i64)> {
    if !(0..60).contains(&mi) {
        return None;
    }
    if resolve == Resolve::Smart && h == 24 && mi == 0 && s == 0 && n == 0 {
        return Some((0, 1));
    }
    if !(0..24).contains(&h) || !(0..60).contains(&s) {
        return None;
    }
    Some((((h * 60 + mi) * 60 + s) * 1_000_000_000 + n, 0))
}

/// `HH:mm:ss[.f]` (SQL_TIME_FORMAT).
fn parse_sql_time(c: &mut Cursor<'_>, resolve: Resolve) -> Option<(i64, i64)> {
    let h = c.fixed(2)?;
    c.lit(b':')?;
    let mi = c.fixed(2)?;
    c.lit(b':')?;
    let s = c.fixed(2)?;
    let n = parse_fraction(c);
    resolve_time(h, mi, s, n, resolve)
}

/// `HH:mm[:ss[.f]]` (ISO_LOCAL_TIME).
fn parse_iso_time(c: &mut Cursor<'_>, resolve: Resolve) -> Option<(i64, i64)> {
    let h = c.fixed(2)?;
    c.lit(b':')?;
    let mi = c.fixed(2)?;
    let mut s = 0;
    let mut n = 0;
    if c.s.get(c.p) == Some(&b':') {
        let save = c.p;
        c.p += 1;
        match c.fixed(2) {
            Some(v) => {
                s = v;
                n = parse_fraction(c);
            }
            None => c.p = save,
        }
    }
    resolve_time(h, mi, s, n, resolve)
}

/// The text of a DATE (`ISO_LOCAL_DATE.parse`): days since epoch.
pub(crate) fn parse_date_text(s: &str) -> Option<i64> {
    let mut c = Cursor {
        s: s.as_bytes(),
        p: 0,
    };
    let d = parse_date(&mut c, Resolve::Strict)?;
    c.done().then_some(d)
}

/// The text of a TIME (`SQL_TIME_FORMAT.parse`): milliseconds of the day.
pub(crate) fn parse_time_text(s: &str) -> Option<i32> {
    let mut c = Cursor {
        s: s.as_bytes(),
        p: 0,
    };
    let (nanos, _) = parse_sql_time(&mut c, Resolve::Smart)?;
    c.done().then_some((nanos / 1_000_000) as i32)
}

/// Which timestamp text: `'json.timestamp-format.standard'` and whether a trailing `Z` is
/// part of it (TIMESTAMP_LTZ).
pub(crate) fn parse_timestamp_text(s: &str, iso: bool, ltz: bool) -> Option<LocalDateTime> {
    let mut c = Cursor {
        s: s.as_bytes(),
        p: 0,
    };
    // ISO_LOCAL_DATE_TIME (TIMESTAMP, ISO-8601) is STRICT and case-insensitive; the others
    // are Flink's builders: SMART and case-sensitive.
    let resolve = if iso && !ltz {
        Resolve::Strict
    } else {
        Resolve::Smart
    };
    let day = parse_date(&mut c, resolve)?;
    let (nanos, extra) = if iso {
        if ltz {
            c.lit(b'T')?;
        } else {
            c.lit_ci(b'T')?;
        }
        parse_iso_time(&mut c, resolve)?
    } else {
        c.lit(b' ')?;
        parse_sql_time(&mut c, resolve)?
    };
    if ltz {
        c.lit(b'Z')?;
    }
    c.done().then_some(LocalDateTime {
        epoch_day: day + extra,
        nano_of_day: nanos,
    })
}

/// Java's `TimestampData.fromLocalDateTime`: `(millisecond, nanoOfMillisecond)`; `None` when
/// the milliseconds overflow a long.
pub(crate) fn timestamp_parts(t: LocalDateTime) -> Option<(i64, i64)> {
    let millis = t
        .epoch_day
        .checked_mul(86_400_000)?
        .checked_add(t.nano_of_day / 1_000_000)?;
    Some((millis, t.nano_of_day % 1_000_000))
}

// ---------------------------------------------------------------------------- printing

/// `ISO_LOCAL_DATE.format` of days since epoch.
pub(crate) fn write_date(out: &mut Vec<u8>, days: i64) {
    let (y, m, d) = civil(days);
    write_year(out, y);
    push2(out, b'-', m);
    push2(out, b'-', d);
}

fn write_year(out: &mut Vec<u8>, y: i64) {
    use std::io::Write;
    if y > 9999 {
        let _ = write!(out, "+{y}");
    } else if y < 0 {
        let _ = write!(out, "-{:04}", -y);
    } else {
        let _ = write!(out, "{y:04}");
    }
}

fn push2(out: &mut Vec<u8>, sep: u8, v: i64) {
    out.push(sep);
    out.push(b'0' + (v / 10) as u8);
    out.push(b'0' + (v % 10) as u8);
}

/// `HH:mm:ss[.fraction]` of nanoseconds of the day, the fraction without trailing zeros (and
/// absent when zero), as `appendFraction(NANO_OF_SECOND, 0, 9, true)` prints.
pub(crate) fn write_time(out: &mut Vec<u8>, nano_of_day: i64) {
    let secs = nano_of_day / 1_000_000_000;
    let nanos = nano_of_day % 1_000_000_000;
    let h = secs / 3600;
    out.push(b'0' + (h / 10) as u8);
    out.push(b'0' + (h % 10) as u8);
    push2(out, b':', secs / 60 % 60);
    push2(out, b':', secs % 60);
    if nanos != 0 {
        out.push(b'.');
        let mut digits = [0u8; 9];
        let mut v = nanos;
        for d in digits.iter_mut().rev() {
            *d = b'0' + (v % 10) as u8;
            v /= 10;
        }
        let mut len = 9;
        while digits[len - 1] == b'0' {
            len -= 1;
        }
        out.extend_from_slice(&digits[..len]);
    }
}

/// A timestamp `(millis, nano_of_milli)` as `date SEP time`.
pub(crate) fn write_timestamp(out: &mut Vec<u8>, millis: i64, nano_of_milli: i64, sep: u8) {
    let day = millis.div_euclid(86_400_000);
    let ms_of_day = millis.rem_euclid(86_400_000);
    write_date(out, day);
    out.push(sep);
    write_time(out, ms_of_day * 1_000_000 + nano_of_milli);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_and_epoch_day_round_trip_over_wide_years() {
        for days in [
            -719_528i64,
            -1,
            0,
            1,
            19_723,
            2_932_896,
            365_000_000,
            -365_000_000,
        ] {
            let (y, m, d) = civil(days);
            assert_eq!(epoch_day(y, m, d), days);
        }
        assert_eq!(epoch_day(1970, 1, 1), 0);
        assert_eq!(epoch_day(2024, 1, 1), 19_723);
    }
}
