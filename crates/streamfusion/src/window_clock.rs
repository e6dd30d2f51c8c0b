//! The clock of windows over a TIMESTAMP_LTZ time attribute in a session time zone other
//! than UTC (Flink's `shiftTimeZone` and `TimeWindowUtil`): windows are computed on local
//! wall-clock milliseconds, so `window_start` and `window_end` are local times, while the
//! watermark and timers are instants. A timer for a window's local end fires at its instant;
//! a local time that occurs twice (daylight saving ends) fires at the later one, one that
//! does not occur (daylight saving starts) at the gap's end floored to the hour. Over
//! TIMESTAMP(3), or in UTC, local time is the instant.

use crate::calc::Zone;
use crate::error::{Error, Result};
use crate::window::window_start_with_offset;

/// Local window time and instants, in one session time zone.
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowClock(Option<Zone>);

impl WindowClock {
    /// The clock of `time_zone` (a `table.local-time-zone` id); `None` is UTC.
    pub fn new(time_zone: Option<&str>) -> Result<Self> {
        match time_zone {
            None => Ok(Self(None)),
            Some(id) => Zone::parse(id)
                .map(|zone| Self(Some(zone)))
                .map_err(|why| Error::Plan(format!("window time zone: {why}"))),
        }
    }

    /// The local wall-clock time of an instant (`toUtcTimestampMills`).
    pub fn local(&self, epoch_millis: i64) -> i64 {
        self.0
            .map_or(epoch_millis, |z| z.window_local(epoch_millis))
    }

    /// The instant of a local time (`toEpochMills`): a TIMESTAMP_LTZ `window_time`.
    pub fn instant(&self, local_millis: i64) -> i64 {
        self.0
            .map_or(local_millis, |z| z.window_instant(local_millis))
    }

    /// When a timer for a local time fires (`toEpochMillsForTimer`).
    pub fn timer(&self, local_millis: i64) -> i64 {
        self.0
            .map_or(local_millis, |z| z.window_timer(local_millis))
    }

    /// When the window ending at the local time `window_end` fires: the timer of its last
    /// millisecond (`registerEventTimeWindowTimer`).
    pub fn window_timer(&self, window_end: i64) -> i64 {
        self.timer(window_end.wrapping_sub(1))
    }

    /// The watermark at which a sliced window operator next applies its buffer
    /// (`getNextTriggerWatermarkWithOffset`): the end of the slice interval after
    /// `watermark`, minus one. In a zone with daylight saving the interval is aligned on
    /// local time and its end is a timer's instant; otherwise (UTC included) it is aligned
    /// on the instant, as Flink's is.
    pub fn next_trigger(&self, watermark: i64, interval: i64, offset: i64) -> i64 {
        if watermark == i64::MAX {
            return watermark;
        }
        let trigger = match self.0 {
            Some(zone) if zone.uses_daylight_time() => {
                let start = window_start_with_offset(self.local(watermark), offset, interval);
                self.timer(start.wrapping_add(interval).wrapping_sub(1))
            }
            _ => window_start_with_offset(watermark, offset, interval)
                .wrapping_add(interval)
                .wrapping_sub(1),
        };
        if trigger > watermark {
            trigger
        } else {
            trigger.wrapping_add(interval)
        }
    }

    /// Whether the window ending at the local time `window_end` has fired at `watermark`
    /// (`isWindowFired`; `None` is no watermark yet).
    pub fn is_fired(&self, window_end: i64, watermark: Option<i64>) -> bool {
        window_end != i64::MAX && watermark.is_some_and(|w| w >= self.window_timer(window_end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Midnight UTC of 2021-11-07, and an hour.
    const NOV_7_2021: i64 = 1_636_243_200_000;
    const HOUR: i64 = 3_600_000;

    #[test]
    fn a_repeated_local_hour_fires_after_its_second_occurrence() {
        // The example of Flink's `TimeWindowUtil.toEpochMillsForTimer`: Los Angeles leaves
        // daylight saving at 2021-11-07 02:00 PDT; 01:00 local is 1636272000000 (PDT) and
        // again 1636275600000 (PST).
        let la = WindowClock::new(Some("America/Los_Angeles")).unwrap();
        assert_eq!(la.timer(NOV_7_2021), 1_636_268_400_000);
        assert_eq!(la.timer(NOV_7_2021 + HOUR), 1_636_275_600_000);
        assert_eq!(la.instant(NOV_7_2021 + HOUR), 1_636_272_000_000);
        assert_eq!(la.timer(NOV_7_2021 + 2 * HOUR), 1_636_279_200_000);
        // Within the repeated hour, its second occurrence (released Flink's vectors).
        assert_eq!(la.timer(NOV_7_2021 + HOUR + HOUR / 2), 1_636_277_400_000);
        assert_eq!(la.timer(NOV_7_2021 + 2 * HOUR - 1), 1_636_279_199_999);
        // Both instants of 01:00 are that local time.
        assert_eq!(la.local(1_636_272_000_000), NOV_7_2021 + HOUR);
        assert_eq!(la.local(1_636_275_600_000), NOV_7_2021 + HOUR);
        // A window ending at 02:00 local has fired only once both 01:59s have passed.
        let end = NOV_7_2021 + 2 * HOUR;
        assert!(!la.is_fired(end, Some(1_636_275_599_999)));
        assert!(la.is_fired(end, Some(1_636_279_199_999)));
    }

    #[test]
    fn a_local_time_in_the_gap_fires_at_the_gap_end_floored_to_the_hour() {
        // 2021-03-14 02:00 to 03:00 local does not exist in Los Angeles (02:00 PST -> 03:00
        // PDT at 10:00Z). Vectors from released Flink 2.3.0's `TimeWindowUtil`: every local
        // time of the gap fires at 10:00Z, while `toEpochMills` shifts it past the gap.
        let march_14 = 1_615_680_000_000;
        let la = WindowClock::new(Some("America/Los_Angeles")).unwrap();
        let gap = march_14 + 2 * HOUR + HOUR / 2;
        assert_eq!(la.instant(gap), 1_615_717_800_000);
        assert_eq!(la.timer(gap), 1_615_716_000_000);
        assert_eq!(la.timer(march_14 + 2 * HOUR), 1_615_716_000_000);
        assert_eq!(la.instant(march_14 + 3 * HOUR - 1), 1_615_719_599_999);
        assert_eq!(la.timer(march_14 + 3 * HOUR - 1), 1_615_716_000_000);
        assert_eq!(la.timer(march_14 + 3 * HOUR), 1_615_716_000_000);
        // An hour before the gap: the instant.
        assert_eq!(la.timer(march_14 + HOUR + HOUR / 2), 1_615_714_200_000);
    }

    #[test]
    fn the_next_trigger_follows_local_time_only_where_daylight_saving_is_kept() {
        // Released Flink 2.3.0's `getNextTriggerWatermarkWithOffset`: after 01:00 PST on
        // 2021-11-07 (the repeated hour's second start), Los Angeles's next hourly trigger is
        // 01:59:59.999 PST; Shanghai's daily one is aligned on UTC days.
        let la = WindowClock::new(Some("America/Los_Angeles")).unwrap();
        assert_eq!(
            la.next_trigger(1_636_275_600_000, HOUR, 0),
            1_636_279_199_999
        );
        let shanghai = WindowClock::new(Some("Asia/Shanghai")).unwrap();
        assert_eq!(
            shanghai.next_trigger(1_636_275_600_000, 24 * HOUR, 0),
            1_636_329_599_999
        );
        let utc = WindowClock::new(None).unwrap();
        assert_eq!(utc.next_trigger(25, 10, 3), 32);
        assert_eq!(utc.next_trigger(32, 10, 3), 42);
        assert_eq!(utc.next_trigger(i64::MAX, 10, 0), i64::MAX);
    }

    #[test]
    fn zones_without_daylight_saving_and_utc_shift_by_their_offset() {
        let shanghai = WindowClock::new(Some("Asia/Shanghai")).unwrap();
        assert_eq!(shanghai.local(NOV_7_2021), NOV_7_2021 + 8 * HOUR);
        assert_eq!(shanghai.timer(NOV_7_2021), NOV_7_2021 - 8 * HOUR);
        let utc = WindowClock::new(None).unwrap();
        assert_eq!((utc.local(7), utc.timer(7), utc.instant(7)), (7, 7, 7));
        // The last watermark's flag and an open-ended window stay as they are.
        assert_eq!(shanghai.local(i64::MAX), i64::MAX);
        assert!(!shanghai.is_fired(i64::MAX, Some(i64::MAX)));
        let err = WindowClock::new(Some("Mars/Olympus")).unwrap_err();
        assert!(err.to_string().contains("Mars/Olympus"), "{err}");
    }
}
