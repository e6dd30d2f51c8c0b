//! Flink's calendar arithmetic (`org.apache.flink.table.utils.DateTimeUtils`), reproduced
//! operation for operation: Java's truncating `/` and `%` where Flink uses them (so a
//! pre-1970 TIMESTAMP with a time of day extracts the day after, as Flink does), the Julian
//! day algorithms Flink copied from Calcite, and Java `int` overflow (wrapping).

/// Milliseconds in a day.
pub(super) const MILLIS_PER_DAY: i64 = 86_400_000;
/// The Julian day of 1970-01-01.
pub(super) const EPOCH_JULIAN: i32 = 2_440_588;

/// A time unit, as `DateTimeUtils.TimeUnit` (the start unit of a `TimeUnitRange`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// `YEAR`
    Year,
    /// `MONTH`
    Month,
    /// `DAY`
    Day,
    /// `HOUR`
    Hour,
    /// `MINUTE`
    Minute,
    /// `SECOND`
    Second,
    /// `QUARTER`
    Quarter,
    /// `ISOYEAR`
    IsoYear,
    /// `WEEK`
    Week,
    /// `MILLISECOND`
    Millisecond,
    /// `MICROSECOND`
    Microsecond,
    /// `NANOSECOND`
    Nanosecond,
    /// `DOW`: day of week, Sunday 1 .. Saturday 7.
    Dow,
    /// `ISODOW`: Monday 1 .. Sunday 7.
    IsoDow,
    /// `DOY`: day of year.
    Doy,
    /// `EPOCH`: seconds since 1970-01-01.
    Epoch,
    /// `DECADE`
    Decade,
    /// `CENTURY`
    Century,
    /// `MILLENNIUM`
    Millennium,
}

impl Unit {
    /// The unit Flink's SQL spells `name` (case-insensitive; `DAYOFWEEK`-style names are not
    /// units). Also accepts the `SQL_TSI_*` spellings TIMESTAMPADD/TIMESTAMPDIFF allow.
    pub fn parse(name: &str) -> Option<Unit> {
        let upper = name.trim().to_ascii_uppercase();
        let bare = upper.strip_prefix("SQL_TSI_").unwrap_or(&upper);
        Some(match bare {
            "YEAR" => Unit::Year,
            "MONTH" => Unit::Month,
            "DAY" => Unit::Day,
            "HOUR" => Unit::Hour,
            "MINUTE" => Unit::Minute,
            "SECOND" => Unit::Second,
            "QUARTER" => Unit::Quarter,
            "ISOYEAR" => Unit::IsoYear,
            "WEEK" => Unit::Week,
            "MILLISECOND" => Unit::Millisecond,
            "MICROSECOND" => Unit::Microsecond,
            "NANOSECOND" => Unit::Nanosecond,
            "DOW" => Unit::Dow,
            "ISODOW" => Unit::IsoDow,
            "DOY" => Unit::Doy,
            "EPOCH" => Unit::Epoch,
            "DECADE" => Unit::Decade,
            "CENTURY" => Unit::Century,
            "MILLENNIUM" => Unit::Millennium,
            _ => return None,
        })
    }

    /// `TimeUnit.multiplier.longValue()` for the units that have an integral one (months for
    /// the year-month units, milliseconds for the day-time ones).
    pub fn multiplier(self) -> Option<i64> {
        Some(match self {
            Unit::Year | Unit::IsoYear => 12,
            Unit::Month => 1,
            Unit::Day => MILLIS_PER_DAY,
            Unit::Hour => 3_600_000,
            Unit::Minute => 60_000,
            Unit::Second => 1_000,
            Unit::Quarter => 3,
            Unit::Week => 7 * MILLIS_PER_DAY,
            Unit::Millisecond => 1,
            Unit::Decade => 120,
            Unit::Century => 1_200,
            Unit::Millennium => 12_000,
            Unit::Microsecond | Unit::Nanosecond | Unit::Dow | Unit::IsoDow | Unit::Doy => {
                return None;
            }
            Unit::Epoch => return None,
        })
    }

    /// Whether EXTRACT reads this unit from the date part (`ExtractCallGen`'s first list).
    pub fn is_date_part(self) -> bool {
        matches!(
            self,
            Unit::Year
                | Unit::Month
                | Unit::Day
                | Unit::Quarter
                | Unit::Doy
                | Unit::IsoYear
                | Unit::Dow
                | Unit::IsoDow
                | Unit::Week
                | Unit::Decade
                | Unit::Century
                | Unit::Millennium
        )
    }

    /// `ExtractCallGen.getFactor`: the modulus applied before dividing by the multiplier.
    pub fn extract_factor(self) -> Option<i64> {
        Some(match self {
            Unit::Day | Unit::Year | Unit::Century | Unit::Millennium => 1,
            Unit::Hour => MILLIS_PER_DAY,
            Unit::Minute => 3_600_000,
            Unit::Second => 60_000,
            Unit::Millisecond | Unit::Microsecond | Unit::Nanosecond => 1_000,
            Unit::Month | Unit::Quarter => 12,
            _ => return None,
        })
    }
}

/// Java's `Math.floorDiv` for longs.
pub(super) fn floor_div(x: i64, y: i64) -> i64 {
    let r = x.wrapping_div(y);
    if (x ^ y) < 0 && r.wrapping_mul(y) != x {
        r - 1
    } else {
        r
    }
}

/// Java's `Math.floorMod` for longs.
pub(super) fn floor_mod(x: i64, y: i64) -> i64 {
    x.wrapping_sub(floor_div(x, y).wrapping_mul(y))
}

/// `DateTimeUtils.ymdToJulian` (Java `int` arithmetic).
pub(super) fn ymd_to_julian(year: i32, month: i32, day: i32) -> i32 {
    let a = (14 - month) / 12;
    let y = year.wrapping_add(4800).wrapping_sub(a);
    let m = month + 12 * a - 3;
    day.wrapping_add((153 * m + 2) / 5)
        .wrapping_add(y.wrapping_mul(365))
        .wrapping_add(y / 4)
        .wrapping_sub(y / 100)
        .wrapping_add(y / 400)
        .wrapping_sub(32045)
}

/// `DateTimeUtils.ymdToUnixDate`: days since 1970-01-01.
pub(super) fn ymd_to_unix_date(year: i32, month: i32, day: i32) -> i32 {
    ymd_to_julian(year, month, day).wrapping_sub(EPOCH_JULIAN)
}

/// The proleptic Gregorian (year, month, day) of a Julian day (`julianToLocalDate`).
pub(super) fn julian_to_ymd(julian: i32) -> (i32, i32, i32) {
    let j = julian.wrapping_add(32044);
    let g = j / 146_097;
    let dg = j % 146_097;
    let c = (dg / 36_524 + 1) * 3 / 4;
    let dc = dg - c * 36_524;
    let b = dc / 1461;
    let db = dc % 1461;
    let a = (db / 365 + 1) * 3 / 4;
    let da = db - a * 365;
    let y = g
        .wrapping_mul(400)
        .wrapping_add(c * 100)
        .wrapping_add(b * 4)
        .wrapping_add(a);
    let m = (da * 5 + 308) / 153 - 2;
    let d = da - (m + 4) * 153 / 5 + 122;
    (
        y.wrapping_sub(4800).wrapping_add((m + 2) / 12),
        (m + 2) % 12 + 1,
        d + 1,
    )
}

/// The (year, month, day) of a DATE (days since 1970-01-01).
pub(super) fn date_to_ymd(date: i32) -> (i32, i32, i32) {
    julian_to_ymd(date.wrapping_add(EPOCH_JULIAN))
}

fn first_monday_of_first_week(year: i32) -> i64 {
    let jan_first = i64::from(ymd_to_julian(year, 1, 1));
    let jan_first_dow = floor_mod(jan_first + 1, 7);
    jan_first + (11 - jan_first_dow) % 7 - 3
}

fn iso_week(julian: i32, year: i32, month: i32, day: i32) -> i32 {
    let j = i64::from(julian);
    let isodow = floor_mod(j, 7) as i32 + 1;
    let fmofw = first_monday_of_first_week(year);
    if month == 12 && day > 28 {
        if 31 - day + 4 > 7 - isodow && 31 - day + isodow >= 4 {
            ((j - fmofw) as i32) / 7 + 1
        } else {
            1
        }
    } else if month == 1 && day < 5 {
        if 4 - day <= 7 - isodow && day - isodow >= -3 {
            1
        } else {
            ((j - first_monday_of_first_week(year - 1)) as i32) / 7 + 1
        }
    } else {
        ((j - fmofw) as i32) / 7 + 1
    }
}

/// `DateTimeUtils.extractFromDate(range, date)`: a date-part unit of a DATE. `None` for the
/// units that are not date parts (Flink throws an `AssertionError`).
pub(super) fn extract_from_date(unit: Unit, date: i32) -> Option<i64> {
    if unit == Unit::Epoch {
        return Some(i64::from(date) * 86_400);
    }
    let julian = date.wrapping_add(EPOCH_JULIAN);
    let (year, month, day) = julian_to_ymd(julian);
    let j = i64::from(julian);
    Some(i64::from(match unit {
        Unit::Year => year,
        Unit::Month => month,
        Unit::Day => day,
        Unit::IsoYear => {
            let week = iso_week(julian, year, month, day);
            if week == 1 && month == 12 {
                year + 1
            } else if month == 1 && week > 50 {
                year - 1
            } else {
                year
            }
        }
        Unit::Quarter => (month + 2) / 3,
        Unit::Dow => floor_mod(j + 1, 7) as i32 + 1,
        Unit::IsoDow => floor_mod(j, 7) as i32 + 1,
        Unit::Week => iso_week(julian, year, month, day),
        Unit::Doy => (j - i64::from(ymd_to_julian(year, 1, 1))) as i32 + 1,
        Unit::Decade => year / 10,
        Unit::Century => {
            if year > 0 {
                (year + 99) / 100
            } else {
                (year - 99) / 100
            }
        }
        Unit::Millennium => {
            if year > 0 {
                (year + 999) / 1000
            } else {
                (year - 999) / 1000
            }
        }
        _ => return None,
    }))
}

/// `DateTimeUtils.julianDateFloor`: the first day (floor) or the day after the last (ceil) of
/// the unit containing a Julian day, as days since 1970-01-01. Before the Gregorian reform
/// (Julian day 2299161) Flink's algorithm reads the day in the Julian calendar, as here.
pub(super) fn julian_date_floor(unit: Unit, julian: i32, floor: bool) -> Option<i64> {
    let (b, c) = if julian > 2_299_160 {
        let a = julian.wrapping_add(32044);
        let b = (a.wrapping_mul(4).wrapping_add(3)) / 146_097;
        (b, a.wrapping_sub(b.wrapping_mul(146_097) / 4))
    } else {
        (0, julian.wrapping_add(32082))
    };
    let d = (c.wrapping_mul(4).wrapping_add(3)) / 1461;
    let e = c.wrapping_sub(1461i32.wrapping_mul(d) / 4);
    let m = (5 * e + 2) / 153;
    let day = e - (153 * m + 2) / 5 + 1;
    let mut month = m + 3 - 12 * (m / 10);
    let mut quarter = (month + 2) / 3;
    let mut year = b.wrapping_mul(100).wrapping_add(d).wrapping_sub(4800) + m / 10;
    let date = match unit {
        Unit::Millennium => {
            let base = 1000 * ((year + 999) / 1000);
            ymd_to_unix_date(if floor { base - 999 } else { base + 1 }, 1, 1)
        }
        Unit::Century => {
            let base = 100 * ((year + 99) / 100);
            ymd_to_unix_date(if floor { base - 99 } else { base + 1 }, 1, 1)
        }
        Unit::Decade => ymd_to_unix_date(
            if floor {
                10 * (year / 10)
            } else {
                10 * (1 + year / 10)
            },
            1,
            1,
        ),
        Unit::Year => {
            if !floor && (month > 1 || day > 1) {
                year += 1;
            }
            ymd_to_unix_date(year, 1, 1)
        }
        Unit::Month => {
            if !floor && day > 1 {
                month += 1;
            }
            ymd_to_unix_date(year, month, 1)
        }
        Unit::Quarter => {
            if !floor && (month > 1 || day > 1) {
                quarter += 1;
            }
            ymd_to_unix_date(year, quarter * 3 - 2, 1)
        }
        Unit::Week => {
            let dow = floor_mod(i64::from(julian) + 1, 7) as i32;
            let offset = if !floor && dow > 0 { dow - 7 } else { dow };
            ymd_to_unix_date(year, month, day).wrapping_sub(offset)
        }
        Unit::Day => {
            let res = ymd_to_unix_date(year, month, day);
            if floor { res } else { res.wrapping_add(1) }
        }
        _ => return None,
    };
    Some(i64::from(date))
}

/// `DateTimeUtils.addMonths(int date, int m)`: the day clamped to the target month's length.
pub(super) fn add_months_date(date: i32, m: i32) -> i32 {
    let (mut y0, m0, mut d0) = date_to_ymd(date);
    let mut m0 = m0.wrapping_add(m);
    y0 = y0.wrapping_add(floor_div(i64::from(m0), 12) as i32);
    m0 = floor_mod(i64::from(m0), 12) as i32;
    if m0 == 0 {
        y0 -= 1;
        m0 += 12;
    }
    let last = last_day(y0, m0);
    if d0 > last {
        d0 = last;
    }
    ymd_to_unix_date(y0, m0, d0)
}

/// The days in month `m` of proleptic Gregorian year `y`.
pub(super) fn last_day(y: i32, m: i32) -> i32 {
    match m {
        2 => {
            if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) {
                29
            } else {
                28
            }
        }
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `DateTimeUtils.addMonths(long timestamp, int m)`: the time of day kept.
pub(super) fn add_months_millis(timestamp: i64, m: i32) -> i64 {
    let millis = floor_mod(timestamp, MILLIS_PER_DAY);
    let days = (timestamp - millis) / MILLIS_PER_DAY;
    i64::from(add_months_date(days as i32, m))
        .wrapping_mul(MILLIS_PER_DAY)
        .wrapping_add(millis)
}

/// `DateTimeUtils.subtractMonths(int, int)`: whole months from `date1` to `date0`.
pub(super) fn subtract_months_date(date0: i32, date1: i32) -> i32 {
    if date0 < date1 {
        return subtract_months_date(date1, date0).wrapping_neg();
    }
    let mut m = ((i64::from(date0) - i64::from(date1)) / 31) as i32;
    loop {
        if add_months_date(date1, m) >= date0 {
            return m;
        }
        if add_months_date(date1, m.wrapping_add(1)) > date0 {
            return m;
        }
        m = m.wrapping_add(1);
    }
}

/// `DateTimeUtils.subtractMonths(long, long)`: whole months between two timestamps.
pub(super) fn subtract_months_millis(t0: i64, t1: i64) -> i32 {
    let millis0 = floor_mod(t0, MILLIS_PER_DAY);
    let d0 = floor_div(t0 - millis0, MILLIS_PER_DAY) as i32;
    let millis1 = floor_mod(t1, MILLIS_PER_DAY);
    let d1 = floor_div(t1 - millis1, MILLIS_PER_DAY) as i32;
    let mut x = subtract_months_date(d0, d1);
    let d2 = add_months_date(d1, x);
    if d2 == d0 && millis0 < millis1 {
        x -= 1;
    }
    x
}

/// Days since 1970-01-01 of a date in the Julian calendar (any day of the month).
pub(super) fn julian_calendar_day(year: i64, month: i64, day: i64) -> i64 {
    let a = (14 - month) / 12;
    let y = year + 4800 - a;
    let m = month + 12 * a - 3;
    day + (153 * m + 2) / 5 + 365 * y + floor_div(y, 4) - 32083 - 2_440_588
}

/// The day since 1970-01-01 that lenient `GregorianCalendar.computeTime` gives year, month
/// 1..=12 and a day of the month that may roll over: the Gregorian reading when it falls on
/// or after the reform (1582-10-15), else the Julian one (the ten removed days too).
pub fn hybrid_calendar_day(year: i32, month: i32, day: i64) -> i64 {
    let gregorian = i64::from(ymd_to_unix_date(year, month, 1)) + day - 1;
    if gregorian >= GREGORIAN_CUTOVER_DAY {
        gregorian
    } else {
        julian_calendar_day(i64::from(year), i64::from(month), 1) + day - 1
    }
}

/// The Julian-calendar (year, month, day) of a day since 1970-01-01.
pub fn julian_calendar_fields(epoch_day: i64) -> (i64, i64, i64) {
    let c = epoch_day + 2_440_588 + 32082;
    let d = floor_div(4 * c + 3, 1461);
    let e = c - floor_div(1461 * d, 4);
    let m = (5 * e + 2) / 153;
    (
        d - 4800 + m / 10,
        m + 3 - 12 * (m / 10),
        e - (153 * m + 2) / 5 + 1,
    )
}

/// 1582-10-15, the first day of the Gregorian calendar, in days since 1970-01-01: before it
/// `java.util.GregorianCalendar` (behind `java.util.Date` and `SimpleDateFormat`) reads
/// Julian fields.
pub const GREGORIAN_CUTOVER_DAY: i64 = -141_427;

/// The proleptic Gregorian (year, month, day) of a day since 1970-01-01, in 64 bits (years
/// far past 9999 included).
pub(super) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = floor_div(z, 146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Days since 1970-01-01 of a proleptic Gregorian date, in 64 bits.
pub(super) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = floor_div(y, 400);
    let yoe = y - era * 400;
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `Integer.parseInt` of a trimmed, all-ASCII-digit part (`isInteger`), as Flink's
/// `DateTimeUtils` parsers read each part: `Ok(None)` when it is not digits; an overflow
/// throws there, uncaught, so the row fails.
fn java_part(t: &str) -> Result<Option<i32>, String> {
    let t = t.trim_matches(|c: char| c <= ' ');
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    t.parse()
        .map(Some)
        .map_err(|_| format!("NumberFormatException: For input string: \"{t}\""))
}

/// The value of a [`java_part`], or `Ok(None)` from the enclosing parser when the part is
/// not digits.
macro_rules! java_part {
    ($t:expr) => {
        match java_part($t)? {
            Some(v) => v,
            None => return Ok(None),
        }
    };
}

/// `DateTimeUtils.parseFraction`: milliseconds from the first three characters (a non-digit
/// counts 0), rounded up when the fourth is `'5'` or above (any character, as Java compares).
fn parse_fraction(v: &str) -> i32 {
    let chars: Vec<char> = v.chars().collect();
    let (mut multiplier, mut r) = (100, 0);
    for (i, &c) in chars.iter().enumerate() {
        let digit = if c.is_ascii_digit() {
            c as i32 - '0' as i32
        } else {
            0
        };
        r += multiplier * digit;
        if multiplier < 10 {
            if chars.get(i + 1).is_some_and(|&n| n >= '5') {
                r += 1;
            }
            break;
        }
        multiplier /= 10;
    }
    r
}

/// `DateTimeUtils.parseTime` (CAST to TIME): `h[:m[:s[.fraction]]]`, then an optional offset
/// `(+|-)h[:m]` added to the fields; each part trimmed ASCII digits, else NULL; hour 0..23
/// and minute and second 0..59 before the offset, else NULL. Milliseconds of the day in Java
/// `int` arithmetic (an offset can take it outside the day).
pub(crate) fn parse_time(v: &str) -> Result<Option<i32>, String> {
    let colon1 = v.find(':');
    let (mut operator, mut timezone) = (-1i32, v.find('-'));
    if timezone.is_none() {
        timezone = v.find('+');
        operator = 1;
    }
    let mut end = v.len();
    let (tz_hour, tz_minute) = match timezone {
        None => (0, 0),
        Some(tz) => {
            end = tz;
            match v[tz..].find(':').map(|c| c + tz) {
                None => (java_part!(&v[tz + 1..]), 0),
                Some(c3) => (java_part!(&v[tz + 1..c3]), java_part!(&v[c3 + 1..])),
            }
        }
    };
    let (hour, minute, second, milli) = match colon1 {
        None => (java_part!(&v[..end]), 0, 0, 0),
        Some(c1) => {
            let hour = java_part!(&v[..c1]);
            match v[c1 + 1..].find(':').map(|c| c + c1 + 1) {
                None => (hour, java_part!(&v[c1 + 1..end]), 0, 0),
                Some(c2) => {
                    let minute = java_part!(&v[c1 + 1..c2]);
                    match v[c2..].find('.').map(|d| d + c2) {
                        None => (hour, minute, java_part!(&v[c2 + 1..end]), 0),
                        Some(dot) => {
                            let second = java_part!(&v[c2 + 1..dot]);
                            let fraction = v[dot + 1..end].trim_matches(|c: char| c <= ' ');
                            (hour, minute, second, parse_fraction(fraction))
                        }
                    }
                }
            }
        }
    };
    if !(0..=23).contains(&hour) || !(0..=59).contains(&minute) || !(0..=59).contains(&second) {
        return Ok(None);
    }
    let hour = hour.wrapping_add(operator.wrapping_mul(tz_hour));
    let minute = minute.wrapping_add(operator.wrapping_mul(tz_minute));
    Ok(Some(
        hour.wrapping_mul(3_600_000)
            .wrapping_add(minute.wrapping_mul(60_000))
            .wrapping_add(second * 1000)
            .wrapping_add(milli),
    ))
}

/// `DateTimeUtils.parseDate(String)` (TO_DATE and the string-to-DATE rules): `[y[-m[-d]]]`
/// before the first space, each part trimmed digits; NULL when malformed or out of range.
pub(crate) fn parse_date(s: &str) -> Result<Option<i32>, String> {
    let s = match s.find(' ') {
        Some(ws) if ws > 0 => &s[..ws],
        _ => s,
    };
    let (y, m, d) = match s.find('-') {
        None => (java_part!(s), 1, 1),
        Some(h1) => {
            let y = java_part!(&s[..h1]);
            match s[h1 + 1..].find('-').map(|i| i + h1 + 1) {
                None => (y, java_part!(&s[h1 + 1..]), 1),
                Some(h2) => (y, java_part!(&s[h1 + 1..h2]), java_part!(&s[h2 + 1..])),
            }
        }
    };
    if !(0..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Ok(None);
    }
    let leap = y % 400 == 0 || (y % 4 == 0 && y % 100 != 0);
    if m == 2 && d > 28 && !(leap && d == 29) {
        return Ok(None);
    }
    if d == 31 && ![1, 3, 5, 7, 8, 10, 12].contains(&m) {
        return Ok(None);
    }
    Ok(Some(ymd_to_unix_date(y, m, d)))
}
