//! Flink's timestamp encodings in Parquet, as pure functions over numbers.
//!
//! A Flink `TimestampData` is epoch milliseconds (floored) plus nanoseconds of the
//! millisecond (`0..=999_999`); [`FlinkTimestamp`] is that pair. A `TIMESTAMP(p)` value is
//! its wall clock read as if it were UTC; a `TIMESTAMP_LTZ(p)` value is the instant itself.
//! Both are written alike (Flink's `ParquetRowDataWriter` does not distinguish them).
//!
//! Writing INT96 (`ParquetRowDataWriter.timestampToInt96`), with Java's truncating `/` and `%`:
//!
//! ```text
//! utc-timezone = true:   ms = millisecond
//!                        julianDay  = (int) (ms / 86_400_000 + 2_440_588)
//!                        nanosOfDay = (ms % 86_400_000) * 1_000_000 + nanoOfMillisecond
//! utc-timezone = false:  t = Timestamp.valueOf(wall clock)     (the JVM zone)
//!                        ms = t.getTime()
//!                        julianDay  = (int) (ms / 86_400_000 + 2_440_588)
//!                        nanosOfDay = ((ms % 86_400_000) / 1000) * 1_000_000_000 + t.getNanos()
//! ```
//!
//! Reading INT96 (`TimestampColumnReader.int96ToTimestamp`):
//!
//! ```text
//! millisecond = (julianDay - 2_440_588) * 86_400_000 + nanosOfDay / 1_000_000
//! utc-timezone = true:   TimestampData.fromEpochMillis(millisecond, nanosOfDay % 1_000_000)
//!                        (a negative remainder is an IllegalArgumentException)
//! utc-timezone = false:  t = new Timestamp(millisecond); t.setNanos(nanosOfDay % 1e9)
//!                        TimestampData.fromTimestamp(t)    (wall clock in the JVM zone)
//! ```
//!
//! INT64 timestamps hold the instant in the column's unit (floored); with
//! `utc-timezone = false` the instant is the wall clock in the zone.

use arrow::datatypes::TimeUnit;
use chrono::{Datelike, FixedOffset, NaiveDateTime};

/// The Julian day of 1970-01-01.
pub const JULIAN_EPOCH_OFFSET_DAYS: i32 = 2_440_588;
const MILLIS_IN_DAY: i64 = 86_400_000;
const NANOS_PER_MILLISECOND: i64 = 1_000_000;
const NANOS_PER_SECOND: i64 = 1_000_000_000;
/// The years a non-UTC conversion reproduces exactly (see the module docs of `parquet`).
const LOCAL_YEARS: std::ops::RangeInclusive<i32> = 1583..=9999;

/// The unit of INT64 timestamps (`timestamp.time.unit`; Flink's default is `micros`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimestampUnit {
    /// `millis`
    Millis,
    /// `micros`
    #[default]
    Micros,
    /// `nanos`
    Nanos,
}

impl TimestampUnit {
    /// Parses the option value (case-insensitive, as Flink's `TimeUnit.valueOf(upper)`).
    pub fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "millis" => Some(Self::Millis),
            "micros" => Some(Self::Micros),
            "nanos" => Some(Self::Nanos),
            _ => None,
        }
    }

    /// The Arrow unit of the same resolution.
    pub fn arrow(self) -> TimeUnit {
        match self {
            Self::Millis => TimeUnit::Millisecond,
            Self::Micros => TimeUnit::Microsecond,
            Self::Nanos => TimeUnit::Nanosecond,
        }
    }
}

/// How a timestamp's wall clock relates to the stored instant (`parquet.utc-timezone`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampZone {
    /// `utc-timezone = true`: the wall clock is the instant in UTC.
    Utc,
    /// `utc-timezone = false` with the JVM default zone being this fixed offset.
    Fixed(FixedOffset),
}

/// Flink's `TimestampData`: floored epoch milliseconds and the nanoseconds of the
/// millisecond (`0..=999_999`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct FlinkTimestamp {
    /// Epoch milliseconds, floored.
    pub millisecond: i64,
    /// Nanoseconds within the millisecond, `0..=999_999`.
    pub nano_of_millisecond: i32,
}

impl FlinkTimestamp {
    /// The value of an Arrow timestamp carrier in `unit`.
    pub fn from_carrier(value: i64, unit: TimeUnit) -> Self {
        let (millisecond, nanos) = match unit {
            TimeUnit::Second => (value.saturating_mul(1000), 0),
            TimeUnit::Millisecond => (value, 0),
            TimeUnit::Microsecond => (value.div_euclid(1000), value.rem_euclid(1000) * 1000),
            TimeUnit::Nanosecond => (
                value.div_euclid(NANOS_PER_MILLISECOND),
                value.rem_euclid(NANOS_PER_MILLISECOND),
            ),
        };
        Self {
            millisecond,
            nano_of_millisecond: nanos as i32,
        }
    }

    /// The value in an Arrow carrier of `unit` (floored), `None` if it does not fit.
    pub fn to_carrier(self, unit: TimeUnit) -> Option<i64> {
        let nano = i64::from(self.nano_of_millisecond);
        match unit {
            TimeUnit::Second => Some(self.millisecond.div_euclid(1000)),
            TimeUnit::Millisecond => Some(self.millisecond),
            TimeUnit::Microsecond => self.millisecond.checked_mul(1000)?.checked_add(nano / 1000),
            TimeUnit::Nanosecond => self
                .millisecond
                .checked_mul(NANOS_PER_MILLISECOND)?
                .checked_add(nano),
        }
    }

    fn from_seconds_nanos(seconds: i64, nano_of_second: i64) -> Option<Self> {
        Some(Self {
            millisecond: seconds
                .checked_mul(1000)?
                .checked_add(nano_of_second / NANOS_PER_MILLISECOND)?,
            nano_of_millisecond: (nano_of_second % NANOS_PER_MILLISECOND) as i32,
        })
    }

    fn shifted_seconds(self, seconds: i64) -> Option<Self> {
        Some(Self {
            millisecond: self.millisecond.checked_add(seconds.checked_mul(1000)?)?,
            ..self
        })
    }

    /// The wall clock's year (proleptic Gregorian), `None` outside chrono's range.
    fn year(self) -> Option<i32> {
        let seconds = self.millisecond.div_euclid(1000);
        chrono::DateTime::from_timestamp(seconds, 0).map(|t| t.naive_utc().year())
    }
}

/// An INT96 value: nanoseconds of the day and the Julian day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Int96 {
    /// Nanoseconds of the day (may be negative or past a day in files Flink wrote).
    pub nanos_of_day: i64,
    /// The Julian day (2,440,588 is 1970-01-01).
    pub julian_day: i32,
}

impl Int96 {
    /// The twelve bytes as stored.
    pub fn to_bytes(self) -> [u8; 12] {
        let mut out = [0; 12];
        out[..8].copy_from_slice(&self.nanos_of_day.to_le_bytes());
        out[8..].copy_from_slice(&self.julian_day.to_le_bytes());
        out
    }

    /// From the twelve stored bytes.
    pub fn from_bytes(bytes: [u8; 12]) -> Self {
        let mut nanos = [0; 8];
        nanos.copy_from_slice(&bytes[..8]);
        let mut day = [0; 4];
        day.copy_from_slice(&bytes[8..]);
        Self {
            nanos_of_day: i64::from_le_bytes(nanos),
            julian_day: i32::from_le_bytes(day),
        }
    }

    /// parquet-rs's representation (three little-endian `u32` words).
    pub fn to_parquet(self) -> parquet::data_type::Int96 {
        let nanos = self.nanos_of_day as u64;
        let mut out = parquet::data_type::Int96::new();
        out.set_data(nanos as u32, (nanos >> 32) as u32, self.julian_day as u32);
        out
    }

    /// From parquet-rs's representation.
    pub fn from_parquet(value: &parquet::data_type::Int96) -> Self {
        let data = value.data();
        Self {
            nanos_of_day: (i64::from(data[1]) << 32) | i64::from(data[0]),
            julian_day: data[2] as i32,
        }
    }
}

/// Why a timestamp cannot be converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimestampError(pub String);

fn local_years_check(wall: FlinkTimestamp) -> Result<(), TimestampError> {
    match wall.year() {
        Some(year) if LOCAL_YEARS.contains(&year) => Ok(()),
        _ => Err(TimestampError(format!(
            "a local-time-zone timestamp must be in years {}..={} to be converted exactly \
             (epoch millisecond {})",
            LOCAL_YEARS.start(),
            LOCAL_YEARS.end(),
            wall.millisecond
        ))),
    }
}

/// The instant Flink stores for a wall clock (`TIMESTAMP`) under `zone`.
fn wall_to_instant(
    wall: FlinkTimestamp,
    zone: TimestampZone,
) -> Result<FlinkTimestamp, TimestampError> {
    match zone {
        TimestampZone::Utc => Ok(wall),
        TimestampZone::Fixed(offset) => {
            local_years_check(wall)?;
            wall.shifted_seconds(-i64::from(offset.local_minus_utc()))
                .ok_or_else(|| TimestampError("timestamp out of range".into()))
        }
    }
}

/// The wall clock Flink reads for a stored instant under `zone`.
fn instant_to_wall(
    instant: FlinkTimestamp,
    zone: TimestampZone,
) -> Result<FlinkTimestamp, TimestampError> {
    match zone {
        TimestampZone::Utc => Ok(instant),
        TimestampZone::Fixed(offset) => {
            let wall = instant
                .shifted_seconds(i64::from(offset.local_minus_utc()))
                .ok_or_else(|| TimestampError("timestamp out of range".into()))?;
            local_years_check(wall)?;
            Ok(wall)
        }
    }
}

/// `ParquetRowDataWriter.timestampToInt96` for a value whose wall clock (or instant, for
/// `TIMESTAMP_LTZ`) is `value`.
pub fn to_int96(value: FlinkTimestamp, zone: TimestampZone) -> Result<Int96, TimestampError> {
    let (day, nanos_of_day) = match zone {
        TimestampZone::Utc => {
            let ms = value.millisecond;
            (
                ms / MILLIS_IN_DAY,
                (ms % MILLIS_IN_DAY) * NANOS_PER_MILLISECOND + i64::from(value.nano_of_millisecond),
            )
        }
        TimestampZone::Fixed(_) => {
            let instant = wall_to_instant(value, zone)?;
            // Timestamp.getTime() is the floored instant millisecond; getNanos() the
            // nanoseconds of the second (never negative).
            let ms = instant.millisecond;
            let nanos = ms.rem_euclid(1000) * NANOS_PER_MILLISECOND
                + i64::from(instant.nano_of_millisecond);
            (
                ms / MILLIS_IN_DAY,
                ((ms % MILLIS_IN_DAY) / 1000) * NANOS_PER_SECOND + nanos,
            )
        }
    };
    let julian_day = day
        .checked_add(i64::from(JULIAN_EPOCH_OFFSET_DAYS))
        .and_then(|d| i32::try_from(d).ok())
        .ok_or_else(|| {
            TimestampError(format!(
                "timestamp at epoch millisecond {} has no INT96 Julian day in an int",
                value.millisecond
            ))
        })?;
    Ok(Int96 {
        nanos_of_day,
        julian_day,
    })
}

/// `TimestampColumnReader.int96ToTimestamp`: the wall clock (or `TIMESTAMP_LTZ` instant).
pub fn from_int96(value: Int96, zone: TimestampZone) -> Result<FlinkTimestamp, TimestampError> {
    // (julianDay - JULIAN_EPOCH_OFFSET_DAYS) is int arithmetic in Java, then widened.
    let days = i64::from(value.julian_day.wrapping_sub(JULIAN_EPOCH_OFFSET_DAYS));
    let millisecond = days * MILLIS_IN_DAY + value.nanos_of_day / NANOS_PER_MILLISECOND;
    match zone {
        TimestampZone::Utc => {
            let nano = value.nanos_of_day % NANOS_PER_MILLISECOND;
            if nano < 0 {
                return Err(TimestampError(format!(
                    "INT96 timestamp (julian day {}, nanos of day {}) has a negative \
                     nanosecond of millisecond {nano} (Flink: IllegalArgumentException)",
                    value.julian_day, value.nanos_of_day
                )));
            }
            Ok(FlinkTimestamp {
                millisecond,
                nano_of_millisecond: nano as i32,
            })
        }
        TimestampZone::Fixed(_) => {
            let nano_of_second = value.nanos_of_day % NANOS_PER_SECOND;
            if nano_of_second < 0 {
                return Err(TimestampError(format!(
                    "INT96 timestamp (julian day {}, nanos of day {}) has a negative \
                     nanosecond of second {nano_of_second} (Flink: Timestamp.setNanos throws \
                     IllegalArgumentException)",
                    value.julian_day, value.nanos_of_day
                )));
            }
            let instant =
                FlinkTimestamp::from_seconds_nanos(millisecond.div_euclid(1000), nano_of_second)
                    .ok_or_else(|| TimestampError("timestamp out of range".into()))?;
            instant_to_wall(instant, zone)
        }
    }
}

/// The INT64 value Flink writes in `unit`.
pub fn to_int64(
    value: FlinkTimestamp,
    unit: TimestampUnit,
    zone: TimestampZone,
) -> Result<i64, TimestampError> {
    let instant = wall_to_instant(value, zone)?;
    instant.to_carrier(unit.arrow()).ok_or_else(|| {
        TimestampError(format!(
            "timestamp at epoch millisecond {} does not fit an INT64 in {unit:?}",
            value.millisecond
        ))
    })
}

/// The wall clock (or `TIMESTAMP_LTZ` instant) of an INT64 timestamp in `unit`.
pub fn from_int64(
    value: i64,
    unit: TimeUnit,
    zone: TimestampZone,
) -> Result<FlinkTimestamp, TimestampError> {
    instant_to_wall(FlinkTimestamp::from_carrier(value, unit), zone)
}

/// The wall clock of a `NaiveDateTime` (tests and fixtures).
pub fn from_naive(value: NaiveDateTime) -> FlinkTimestamp {
    let utc = value.and_utc();
    let nanos = i64::from(utc.timestamp_subsec_nanos());
    FlinkTimestamp {
        millisecond: utc.timestamp() * 1000 + nanos / NANOS_PER_MILLISECOND,
        nano_of_millisecond: (nanos % NANOS_PER_MILLISECOND) as i32,
    }
}
