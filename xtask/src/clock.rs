//! UTC timestamps without a date-time dependency: run directory names (`20261130T201500Z`)
//! and RFC 3339 times for `metadata.json`.

use std::time::{SystemTime, UNIX_EPOCH};

/// A UTC civil time, to the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Utc {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

impl Utc {
    pub fn now() -> Utc {
        Utc::from_system_time(SystemTime::now())
    }

    pub fn from_system_time(time: SystemTime) -> Utc {
        let seconds = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
            Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
        };
        Utc::from_unix_seconds(seconds)
    }

    pub fn from_unix_seconds(seconds: i64) -> Utc {
        let days = seconds.div_euclid(86_400);
        let second_of_day = seconds.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        // `second_of_day` is in 0..86_400, so these fit in u32.
        let second_of_day = second_of_day as u32;
        Utc {
            year,
            month,
            day,
            hour: second_of_day / 3600,
            minute: second_of_day % 3600 / 60,
            second: second_of_day % 60,
        }
    }

    /// `20261130T201500Z`: sorts by time and is safe in a path.
    pub fn compact(&self) -> String {
        format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// `2026-11-30T20:15:00Z`
    pub fn rfc3339(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097); // [0, 146096]
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153; // March-based month, [0, 11]
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_epoch_is_midnight_on_the_first_of_january_1970() {
        assert_eq!(Utc::from_unix_seconds(0).rfc3339(), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn a_known_instant_formats_in_both_styles() {
        // `date -u -d @1764533700` prints Sun Nov 30 20:15:00 UTC 2025.
        let time = Utc::from_unix_seconds(1_764_533_700);
        assert_eq!(time.compact(), "20251130T201500Z");
        assert_eq!(time.rfc3339(), "2025-11-30T20:15:00Z");
    }

    #[test]
    fn leap_days_and_year_ends_are_right() {
        assert_eq!(
            Utc::from_unix_seconds(951_782_400).rfc3339(),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            Utc::from_unix_seconds(951_868_799).rfc3339(),
            "2000-02-29T23:59:59Z"
        );
        assert_eq!(
            Utc::from_unix_seconds(1_767_225_599).rfc3339(),
            "2025-12-31T23:59:59Z"
        );
        assert_eq!(Utc::from_unix_seconds(-1).rfc3339(), "1969-12-31T23:59:59Z");
    }
}
