//! Session windows of one key: Flink's `SessionWindowAssigner.mergeWindows` and
//! `MergingWindowSet.addWindow` over the key's in-flight sessions, in event time without
//! allowed lateness (what the SESSION window TVF plans).
//!
//! A row at `t` brings the window `[t, t + gap)`; it merges with the in-flight sessions it
//! touches (`TimeWindow.intersects` counts touching ends), found as the set's ceiling and
//! floor of the new window in `(start, end)` order, exactly as the assigner looks them up.
//! When two sessions merge, Flink keeps the state of the first of them in a
//! `java.util.HashSet`'s iteration order and merges the other's into it; accumulators whose
//! merge is not symmetric (`$WELFORD_M2`'s floating point, for one) give that order's
//! result, so [`Sessions::add`] reports the merged sessions in that order
//! ([`java_hash_set_order`]).

use super::TimeWindow;
use crate::error::{Error, Result};

/// Where a row went ([`Sessions::add`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assigned {
    /// Its window is late (its last timestamp at or before the watermark) and merged with
    /// nothing: the row is dropped.
    Late,
    /// It starts a new session of its own window.
    New(TimeWindow),
    /// It falls inside this in-flight session, which is unchanged.
    Existing(TimeWindow),
    /// Its window merged the in-flight sessions `merged` into `result`: the state of
    /// `merged[0]` is kept and the others' are merged into it, in this order.
    Merged {
        /// The session the row belongs to now.
        result: TimeWindow,
        /// The sessions it replaces (one or two), in Flink's merge order.
        merged: Vec<TimeWindow>,
    },
}

/// One key's in-flight sessions, disjoint and not touching, in `(start, end)` order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sessions {
    windows: Vec<TimeWindow>,
}

impl Sessions {
    /// The sessions `windows`, which must be sorted, disjoint and not touching.
    pub fn from_windows(windows: Vec<TimeWindow>) -> Result<Self> {
        if let Some(pair) = windows.windows(2).find(|p| p[0].end >= p[1].start) {
            return Err(Error::State(format!(
                "sessions [{}, {}) and [{}, {}) are out of order or touch",
                pair[0].start, pair[0].end, pair[1].start, pair[1].end
            )));
        }
        Ok(Self { windows })
    }

    /// The in-flight sessions, in order.
    pub fn windows(&self) -> &[TimeWindow] {
        &self.windows
    }

    /// Whether no session is in flight.
    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }

    /// Adds a row's window `new` (`[t, t + gap)`) at event time `watermark`, merging the
    /// sessions it touches. A session's last timestamp fires at `fires_at` of it (the
    /// identity but for windows on local time, `toEpochMillsForTimer`). A merge whose result
    /// would already have fired is an error, as Flink fails the job on it (it cannot happen
    /// while every session due has fired).
    pub fn add(
        &mut self,
        new: TimeWindow,
        watermark: Option<i64>,
        fires_at: impl Fn(i64) -> i64,
    ) -> Result<Assigned> {
        let at = self.windows.partition_point(|w| *w < new);
        let ceiling = self.windows.get(at).copied();
        let floor = match ceiling {
            Some(c) if c == new => Some(c),
            _ => at.checked_sub(1).map(|i| self.windows[i]),
        };
        // `mergeWindows`: the ceiling, then the floor, against the growing result.
        let mut result = new;
        let mut merged: Vec<TimeWindow> = Vec::with_capacity(2);
        for other in [ceiling, floor].into_iter().flatten() {
            if intersects(&result, &other) && !merged.contains(&other) {
                merged.push(other);
                result = cover(&result, &other);
            }
        }
        let late = |w: &TimeWindow| watermark.is_some_and(|wm| fires_at(w.max_timestamp()) <= wm);
        if merged.is_empty() {
            if late(&new) {
                return Ok(Assigned::Late);
            }
            self.windows.insert(at, new);
            return Ok(Assigned::New(new));
        }
        if merged == [result] {
            // Inside a session: `addWindow` skips the merge function.
            return Ok(Assigned::Existing(result));
        }
        if late(&result) {
            return Err(Error::InvalidShape(format!(
                "The end timestamp of an event-time window cannot become earlier than the \
                 current watermark by merging. Current watermark: {} window: TimeWindow{{start={}, \
                 end={}}}",
                watermark.unwrap_or(i64::MIN),
                result.start,
                result.end
            )));
        }
        // The new window was added to the set last; it left it before the merge.
        let mut members = merged.clone();
        members.push(new);
        let order = java_hash_set_order(&members);
        let merged: Vec<TimeWindow> = order.into_iter().filter(|w| *w != new).collect();
        self.windows.retain(|w| !merged.contains(w));
        let at = self.windows.partition_point(|w| *w < result);
        self.windows.insert(at, result);
        Ok(Assigned::Merged { result, merged })
    }

    /// Removes the session `window` (fired); `false` when it is not in flight.
    pub fn remove(&mut self, window: &TimeWindow) -> bool {
        match self.windows.binary_search(window) {
            Ok(i) => {
                self.windows.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    /// The in-flight session ending at `end` (sessions are disjoint, so at most one).
    pub fn ending_at(&self, end: i64) -> Option<TimeWindow> {
        self.windows.iter().copied().find(|w| w.end == end)
    }
}

/// `TimeWindow.intersects`: the windows overlap or touch.
fn intersects(a: &TimeWindow, b: &TimeWindow) -> bool {
    a.start <= b.end && a.end >= b.start
}

/// `TimeWindow.cover`.
fn cover(a: &TimeWindow, b: &TimeWindow) -> TimeWindow {
    TimeWindow {
        start: a.start.min(b.start),
        end: a.end.max(b.end),
    }
}

/// `TimeWindow.hashCode` of Flink's table runtime: `(int) (start + modInverse((int) (end
/// << 1) + 1))`.
pub fn java_hash(window: &TimeWindow) -> i32 {
    let x = (window.end.wrapping_shl(1) as i32).wrapping_add(1);
    let mut inverse = x.wrapping_mul(x).wrapping_mul(x);
    for _ in 0..3 {
        inverse = inverse.wrapping_mul(2i32.wrapping_sub(x.wrapping_mul(inverse)));
    }
    window.start.wrapping_add(i64::from(inverse)) as i32
}

/// The iteration order of a fresh `java.util.HashSet` (16 buckets, fewer than 13 elements)
/// after `windows` were added in this order: by bucket (`h ^ (h >>> 16)` masked), then by
/// insertion within a bucket. Equal windows count once.
pub fn java_hash_set_order(windows: &[TimeWindow]) -> Vec<TimeWindow> {
    let mut distinct: Vec<TimeWindow> = Vec::with_capacity(windows.len());
    for w in windows {
        if !distinct.contains(w) {
            distinct.push(*w);
        }
    }
    debug_assert!(
        distinct.len() <= 12,
        "a HashSet of 16 buckets resizes past 12"
    );
    let bucket = |w: &TimeWindow| {
        let h = java_hash(w);
        (h ^ ((h as u32) >> 16) as i32) & 15
    };
    // A stable sort keeps insertion order within a bucket.
    distinct.sort_by_key(bucket);
    distinct
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(start: i64, end: i64) -> TimeWindow {
        TimeWindow { start, end }
    }

    /// Windows on the watermark's own time.
    fn same(t: i64) -> i64 {
        t
    }

    /// `new TimeWindow(start, end).hashCode()` printed by released Flink 2.3.0's
    /// `flink-table-runtime` jar (JDK 17).
    const JAVA_HASHES: &[(i64, i64, i32)] = &[
        (0, 2000, -447_638_431),
        (1_772_323_200_000, 1_772_323_202_000, -982_140_831),
        (-5, 5, -1_171_354_722),
        (i64::MAX - 10, i64::MAX, -12),
        (i64::MIN, i64::MIN + 7, -286_331_153),
        (1000, 3500, 988_315_857),
    ];

    /// Bridges `[s1, e1)` and `[s2, e2)` by `[e1, s2)`, added to a `HashSet` after the later
    /// (the ceiling) and the earlier (the floor) and then removed, as `addWindow` does; whether
    /// the earlier session comes first, printed by JDK 17 over Flink 2.3.0's `TimeWindow`.
    const JAVA_FIRST: &[(i64, i64, i64, i64, bool)] = &[
        (15, 25, 0, 10, false),
        (
            1_772_323_205_000,
            1_772_323_207_000,
            1_772_323_200_000,
            1_772_323_203_000,
            true,
        ),
        (172_887, 175_932, 164_236, 168_401, false),
        (993_604, 995_254, 989_380, 990_635, false),
        (804_586, 808_299, 798_850, 803_385, true),
        (287_116, 291_779, 278_708, 282_620, true),
        (715_008, 718_288, 712_961, 713_700, false),
        (865_651, 867_703, 857_842, 861_767, false),
        (800_963, 803_364, 798_718, 800_723, false),
        (371_512, 374_586, 366_576, 371_388, true),
    ];

    #[test]
    fn hash_set_order_is_javas() {
        for &(s2, e2, s1, e1, earlier_first) in JAVA_FIRST {
            let (later, earlier, bridge) = (w(s2, e2), w(s1, e1), w(e1, s2));
            let mut order = java_hash_set_order(&[later, earlier, bridge]);
            order.retain(|x| *x != bridge);
            let expected = if earlier_first {
                [earlier, later]
            } else {
                [later, earlier]
            };
            assert_eq!(order, expected, "[{s1}, {e1}) and [{s2}, {e2})");
        }
    }

    #[test]
    fn hashes_are_flinks() {
        for &(start, end, hash) in JAVA_HASHES {
            assert_eq!(java_hash(&w(start, end)), hash, "[{start}, {end})");
        }
    }

    /// The sessions a batch of rows forms, by brute force: each row's closed interval
    /// `[t, t + gap]`, joined while any two touch.
    fn model(times: &[i64], gap: i64) -> Vec<TimeWindow> {
        let mut out: Vec<TimeWindow> = Vec::new();
        for &t in times {
            let mut cur = w(t, t + gap);
            while let Some(i) = out
                .iter()
                .position(|o| o.start <= cur.end && cur.start <= o.end)
            {
                let o = out.remove(i);
                cur = w(cur.start.min(o.start), cur.end.max(o.end));
            }
            out.push(cur);
        }
        out.sort();
        out
    }

    #[test]
    fn sessions_match_a_brute_force_union_in_any_arrival_order() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for case in 0..500 {
            let gap = 1 + (case % 7) as i64;
            let n = 1 + case % 40;
            let times: Vec<i64> = (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed % 120) as i64 - 60
                })
                .collect();
            let mut sessions = Sessions::default();
            for &t in &times {
                let assigned = sessions.add(w(t, t + gap), None, same).unwrap();
                let holds = |s: &TimeWindow| s.start <= t && t + gap <= s.end;
                match assigned {
                    Assigned::New(s) | Assigned::Existing(s) => assert!(holds(&s)),
                    Assigned::Merged { result, merged } => {
                        assert!(holds(&result));
                        assert!((1..=2).contains(&merged.len()));
                        assert!(
                            merged
                                .iter()
                                .all(|m| result.start <= m.start && m.end <= result.end)
                        );
                    }
                    Assigned::Late => panic!("no watermark, nothing is late"),
                }
            }
            assert_eq!(
                sessions.windows(),
                model(&times, gap),
                "times {times:?} gap {gap}"
            );
        }
    }

    #[test]
    fn late_windows_drop_unless_they_join_a_live_session() {
        let mut sessions = Sessions::default();
        assert_eq!(
            sessions.add(w(10, 15), Some(5), same).unwrap(),
            Assigned::New(w(10, 15))
        );
        // [0, 5) ends at or before the watermark 4 (max timestamp 4): late, alone.
        assert_eq!(
            sessions.add(w(0, 5), Some(4), same).unwrap(),
            Assigned::Late
        );
        // Lateness compares the watermark with when the window fires: on local time eight
        // hours ahead of UTC, [0, 5) fires at 4 - 8h (late there); eight hours behind, at
        // 4 + 8h (not late at 4).
        const EIGHT_HOURS: i64 = 8 * 3_600_000;
        let mut local = Sessions::default();
        let late = local.add(w(0, 5), Some(4 - EIGHT_HOURS), |t| t - EIGHT_HOURS);
        assert_eq!(late.unwrap(), Assigned::Late);
        let kept = local.add(w(0, 5), Some(4), |t| t + EIGHT_HOURS).unwrap();
        assert_eq!(kept, Assigned::New(w(0, 5)));
        // [6, 11) is late too, but touches the live session and extends it backwards.
        assert_eq!(
            sessions.add(w(6, 11), Some(11), same).unwrap(),
            Assigned::Merged {
                result: w(6, 15),
                merged: vec![w(10, 15)]
            }
        );
        assert_eq!(
            sessions.add(w(8, 13), Some(11), same).unwrap(),
            Assigned::Existing(w(6, 15))
        );
        assert!(sessions.remove(&w(6, 15)));
        assert!(sessions.is_empty());
    }

    #[test]
    fn a_bridging_row_merges_in_java_hash_set_order() {
        // Sessions [0, 10) and [15, 25); a row at 10 with gap 5 touches both.
        let (a, b, new) = (w(0, 10), w(15, 25), w(10, 15));
        let mut sessions = Sessions::from_windows(vec![a, b]).unwrap();
        let Assigned::Merged { result, merged } = sessions.add(new, None, same).unwrap() else {
            panic!("a bridge merges");
        };
        assert_eq!(result, w(0, 25));
        assert_eq!(merged, {
            let mut order = java_hash_set_order(&[b, a, new]);
            order.retain(|x| *x != new);
            order
        });
        assert_eq!(sessions.windows(), [w(0, 25)]);
    }

    #[test]
    fn equal_windows_count_once() {
        assert_eq!(java_hash_set_order(&[w(1, 2), w(1, 2)]), [w(1, 2)]);
    }

    #[test]
    fn unsorted_or_touching_sessions_are_refused() {
        assert!(Sessions::from_windows(vec![w(0, 5), w(5, 9)]).is_err());
        assert!(Sessions::from_windows(vec![w(6, 9), w(0, 5)]).is_err());
        assert!(Sessions::from_windows(vec![w(0, 5), w(6, 9)]).is_ok());
    }
}
