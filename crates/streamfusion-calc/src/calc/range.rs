//! The ranges of DATE, TIME and TIMESTAMP values Calc writes, and the checked conversions into
//! their Arrow carriers (decision 0023).
//!
//! Flink documents DATE as 0000-01-01 to 9999-12-31, TIME as 00:00:00 to
//! 23:59:59.999999999 and TIMESTAMP (and TIMESTAMP_LTZ, in UTC) as 0000-01-01 00:00:00 to
//! 9999-12-31 23:59:59.999999999, but its runtime computes past them without failing:
//! TIMESTAMPADD wraps Java `int`s, CEIL reaches year 10000, a TIME taken from a pre-1970
//! TIMESTAMP is negative. Calc computes Flink's value operation for operation and then writes it
//! only if it lies in the type's documented range and in its carrier: TIMESTAMP(7..9) is a
//! 64-bit count of nanoseconds (1677-09-21 00:12:43.145224192 to 2262-04-11
//! 23:47:16.854775807). Anything else is an [`OutOfRange`] error, which
//! [`CalcError::is_out_of_range`](crate::calc::CalcError::is_out_of_range) reports: Calc fails
//! rather than write a value other than Flink's.
//!
//! Values a kernel passes through untouched (a column, CASE, COALESCE) are not checked here.

use datafusion::error::DataFusionError;

/// Milliseconds in a day.
const MILLIS_PER_DAY: i64 = 86_400_000;

/// 0000-01-01, in days since 1970-01-01.
pub const MIN_DATE: i32 = -719_528;
/// 9999-12-31, in days since 1970-01-01.
pub const MAX_DATE: i32 = 2_932_896;
/// 0000-01-01 00:00:00 in epoch milliseconds (Flink's `DateTimeUtils.MIN_EPOCH_MILLS`).
pub const MIN_EPOCH_MILLIS: i64 = MIN_DATE as i64 * MILLIS_PER_DAY;
/// 9999-12-31 23:59:59.999 in epoch milliseconds (Flink's `DateTimeUtils.MAX_EPOCH_MILLS`).
pub const MAX_EPOCH_MILLIS: i64 = (MAX_DATE as i64 + 1) * MILLIS_PER_DAY - 1;

/// A DATE, TIME or TIMESTAMP value Calc does not write: outside the type's documented range or
/// its carrier, or (where Flink fails the same way) an overflowing step of the computation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OutOfRange(String);

impl OutOfRange {
    /// A failure described by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        OutOfRange(message.into())
    }
}

impl From<OutOfRange> for DataFusionError {
    fn from(e: OutOfRange) -> Self {
        DataFusionError::External(Box::new(e))
    }
}

/// The [`OutOfRange`] that `e` is or wraps.
pub fn out_of_range<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a OutOfRange> {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(found) = e.downcast_ref::<OutOfRange>() {
            return Some(found);
        }
        next = e.source();
    }
    None
}

/// A DATE (days since 1970-01-01), if it lies in 0000-01-01 ..= 9999-12-31.
pub fn date(days: i64) -> Result<i32, OutOfRange> {
    i32::try_from(days)
        .ok()
        .filter(|d| (MIN_DATE..=MAX_DATE).contains(d))
        .ok_or_else(|| OutOfRange(format!("DATE {} is out of range", show_days(days))))
}

/// A TIME (milliseconds of the day), if it lies in `[0, 86400000)`.
pub fn time(millis: i64) -> Result<i32, OutOfRange> {
    if (0..MILLIS_PER_DAY).contains(&millis) {
        Ok(millis as i32)
    } else {
        Err(OutOfRange(format!(
            "TIME of {millis} milliseconds is out of the day's range [0, {MILLIS_PER_DAY})"
        )))
    }
}

/// A TIMESTAMP as epoch milliseconds, if it lies in Flink's range (the nanoseconds of the
/// millisecond do not move it past 9999-12-31 23:59:59.999999999).
pub fn millis(ms: i64, nanos: i32) -> Result<i64, OutOfRange> {
    if (MIN_EPOCH_MILLIS..=MAX_EPOCH_MILLIS).contains(&ms) {
        Ok(ms)
    } else {
        Err(OutOfRange(format!(
            "TIMESTAMP {} is out of range",
            show_timestamp(ms, nanos)
        )))
    }
}

/// A TIMESTAMP(4..6) as epoch microseconds, if it lies in Flink's range.
pub fn micros(ms: i64, nanos: i32) -> Result<i64, OutOfRange> {
    // Inside Flink's range the microseconds cannot overflow.
    Ok(millis(ms, nanos)? * 1000 + i64::from(nanos / 1000))
}

/// A TIMESTAMP(7..9) as epoch nanoseconds, if it lies in Flink's range and in 64 bits.
pub fn nanos(ms: i64, nanos: i32) -> Result<i64, OutOfRange> {
    // In i128: the millisecond of the carrier's first nanosecond is itself below 64 bits.
    let n = i128::from(millis(ms, nanos)?) * 1_000_000 + i128::from(nanos);
    i64::try_from(n).map_err(|_| {
        OutOfRange(format!(
            "TIMESTAMP {} is outside 1677-09-21 00:12:43.145224192 ..= 2262-04-11 \
             23:47:16.854775807, which 64-bit nanoseconds hold",
            show_timestamp(ms, nanos)
        ))
    })
}

/// A day count as `[+-]yyyy-MM-dd` where chrono can show it, else the count.
fn show_days(days: i64) -> String {
    i32::try_from(days)
        .ok()
        .and_then(|d| d.checked_add(719_163))
        .and_then(chrono::NaiveDate::from_num_days_from_ce_opt)
        .map_or_else(
            || format!("of {days} days since 1970-01-01"),
            |d| d.format("%Y-%m-%d").to_string(),
        )
}

/// Epoch milliseconds and nanoseconds of the millisecond as ISO text where chrono can show
/// them, else the numbers.
fn show_timestamp(ms: i64, nanos: i32) -> String {
    let secs = ms.div_euclid(1000);
    let nano_of_second = ms.rem_euclid(1000) as u32 * 1_000_000 + nanos.clamp(0, 999_999) as u32;
    chrono::DateTime::from_timestamp(secs, nano_of_second).map_or_else(
        || format!("of {ms} ms + {nanos} ns since 1970-01-01"),
        |t| t.naive_utc().format("%Y-%m-%d %H:%M:%S%.9f").to_string(),
    )
}

#[cfg(test)]
#[path = "range_tests.rs"]
mod tests;
