//! Slices of TUMBLE, HOP and CUMULATE windows, as Flink's window aggregation keeps its state
//! (`SliceAssigners.TumblingSliceAssigner`, `HoppingSliceAssigner`,
//! `CumulativeSliceAssigner`).
//!
//! A row is accumulated into one slice, named by its end: the window itself for TUMBLE,
//! `gcd(size, slide)` for HOP, `step` for CUMULATE. A window fires at `end - 1` and is the
//! merge of its slices: HOP merges its `size / slice` slices afresh each time; CUMULATE
//! merges each step's slice into the window's first slice, which holds the running result.
//! Which slices are dropped after a window fires, and which window fires next for a key,
//! follow the Flink classes exactly; arithmetic is Java's wrapping `long` arithmetic.

use super::window_start_with_offset;
use crate::error::{Error, Result};

/// The slicing of one window TVF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SliceAssigner {
    /// `TUMBLE(size, offset)`: a slice is a window.
    Tumble {
        /// Window length (ms).
        size: i64,
        /// Shift of the window grid (ms).
        offset: i64,
    },
    /// `HOP(slide, size, offset)`: slices of `gcd(size, slide)`, `size / slice` per window.
    Hop {
        /// Window length (ms).
        size: i64,
        /// Distance between window starts (ms).
        slide: i64,
        /// Shift of the window grid (ms).
        offset: i64,
    },
    /// `CUMULATE(step, max_size, offset)`: slices of `step`, windows growing by one slice.
    Cumulate {
        /// The largest window (ms).
        max_size: i64,
        /// Growth per window (ms).
        step: i64,
        /// Shift of the window grid (ms).
        offset: i64,
    },
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

impl SliceAssigner {
    /// Checks the parameters as the Flink assigners' constructors do.
    pub fn validate(&self) -> Result<()> {
        let bad = |why: String| Err(Error::OutOfRange(why));
        match *self {
            SliceAssigner::Tumble { size, offset } => {
                if size <= 0 {
                    return bad(format!("TUMBLE size must be positive, not {size} ms"));
                }
                if offset.unsigned_abs() >= size as u64 {
                    return bad(format!(
                        "TUMBLE offset {offset} ms must be smaller than its size {size} ms"
                    ));
                }
            }
            SliceAssigner::Hop { size, slide, .. } => {
                if size <= 0 || slide <= 0 {
                    return bad(format!(
                        "HOP size and slide must be positive, not {size} ms and {slide} ms"
                    ));
                }
                if size % slide != 0 {
                    return bad(format!(
                        "HOP size {size} ms must be a multiple of its slide {slide} ms"
                    ));
                }
            }
            SliceAssigner::Cumulate { max_size, step, .. } => {
                if max_size <= 0 || step <= 0 {
                    return bad(format!(
                        "CUMULATE max size and step must be positive, not {max_size} ms and \
                         {step} ms"
                    ));
                }
                if max_size % step != 0 {
                    return bad(format!(
                        "CUMULATE max size {max_size} ms must be a multiple of its step {step} ms"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Whether windows share slices (HOP, CUMULATE): a window is then merged from several.
    pub fn is_shared(&self) -> bool {
        !matches!(self, SliceAssigner::Tumble { .. })
    }

    /// The slice length: the distance between consecutive slice (and window) ends.
    pub fn slice_interval(&self) -> i64 {
        match *self {
            SliceAssigner::Tumble { size, .. } => size,
            SliceAssigner::Hop { size, slide, .. } => gcd(size, slide),
            SliceAssigner::Cumulate { step, .. } => step,
        }
    }

    /// The shift of the window grid (`getWindowOffset`).
    pub fn offset(&self) -> i64 {
        match *self {
            SliceAssigner::Tumble { offset, .. }
            | SliceAssigner::Hop { offset, .. }
            | SliceAssigner::Cumulate { offset, .. } => offset,
        }
    }

    /// The end of the slice holding `ts` (`assignSliceEnd`).
    pub fn slice_end(&self, ts: i64) -> i64 {
        let interval = self.slice_interval();
        window_start_with_offset(ts, self.offset(), interval).wrapping_add(interval)
    }

    /// The start of the window ending at `window_end` (`getWindowStart`).
    pub fn window_start(&self, window_end: i64) -> i64 {
        match *self {
            SliceAssigner::Tumble { size, .. } | SliceAssigner::Hop { size, .. } => {
                window_end.wrapping_sub(size)
            }
            SliceAssigner::Cumulate {
                max_size, offset, ..
            } => window_start_with_offset(window_end.wrapping_sub(1), offset, max_size),
        }
    }

    /// The end of the last window the slice ending at `slice_end` belongs to
    /// (`getLastWindowEnd`): a row of a fired slice still counts while it has not fired.
    pub fn last_window_end(&self, slice_end: i64) -> i64 {
        match *self {
            SliceAssigner::Tumble { .. } => slice_end,
            SliceAssigner::Hop { size, .. } => slice_end
                .wrapping_sub(self.slice_interval())
                .wrapping_add(size),
            SliceAssigner::Cumulate { max_size, .. } => {
                self.window_start(slice_end).wrapping_add(max_size)
            }
        }
    }

    /// CUMULATE's first slice of the window ending at `window_end`, which holds the merged
    /// state of the window so far; `None` for the others, whose windows are merged afresh.
    pub fn merge_target(&self, window_end: i64) -> Option<i64> {
        match *self {
            SliceAssigner::Cumulate { step, .. } => {
                Some(self.window_start(window_end).wrapping_add(step))
            }
            _ => None,
        }
    }

    /// The slice state a row of the (already fired) slice `slice_end` goes to
    /// (`sliceStateMergeTarget`): CUMULATE's merge target, else the slice itself.
    pub fn late_slice_target(&self, slice_end: i64) -> i64 {
        self.merge_target(slice_end).unwrap_or(slice_end)
    }

    /// The slices merged when the window ending at `window_end` fires, newest first
    /// (`mergeSlices`): TUMBLE its one slice, HOP every slice of the window, CUMULATE the
    /// window's last slice unless that is the first (merged into [`Self::merge_target`]).
    pub fn slices_to_merge(&self, window_end: i64, out: &mut Vec<i64>) {
        out.clear();
        match *self {
            SliceAssigner::Tumble { .. } => out.push(window_end),
            SliceAssigner::Hop { size, .. } => {
                let slice = self.slice_interval();
                let mut end = window_end;
                for _ in 0..size / slice {
                    out.push(end);
                    end = end.wrapping_sub(slice);
                }
            }
            SliceAssigner::Cumulate { .. } => {
                if self.merge_target(window_end) != Some(window_end) {
                    out.push(window_end);
                }
            }
        }
    }

    /// The slices no later window needs once the window ending at `window_end` has fired
    /// (`expiredSlices`).
    pub fn expired_slices(&self, window_end: i64, out: &mut Vec<i64>) {
        out.clear();
        match *self {
            SliceAssigner::Tumble { .. } => out.push(window_end),
            SliceAssigner::Hop { .. } => out.push(
                self.window_start(window_end)
                    .wrapping_add(self.slice_interval()),
            ),
            SliceAssigner::Cumulate { max_size, step, .. } => {
                let start = self.window_start(window_end);
                let first = start.wrapping_add(step);
                if window_end == first {
                } else if window_end == start.wrapping_add(max_size) {
                    out.extend([window_end, first]);
                } else {
                    out.push(window_end);
                }
            }
        }
    }

    /// The window of the same key to fire after the one ending at `window_end`
    /// (`nextTriggerWindow`): HOP's next window unless this one was empty, CUMULATE's next
    /// step while within its largest window, none for TUMBLE.
    pub fn next_window(&self, window_end: i64, empty: bool) -> Option<i64> {
        match *self {
            SliceAssigner::Tumble { .. } => None,
            SliceAssigner::Hop { .. } => {
                (!empty).then(|| window_end.wrapping_add(self.slice_interval()))
            }
            SliceAssigner::Cumulate { max_size, step, .. } => {
                let next = window_end.wrapping_add(step);
                let last = self.window_start(window_end).wrapping_add(max_size);
                (next <= last).then_some(next)
            }
        }
    }
}

/// Whether the window (or slice) ending at `window_end` has fired at watermark `watermark`
/// (`TimeWindowUtil.isWindowFired` in UTC): it fires at `end - 1`. Nothing has fired before
/// the first watermark.
pub fn is_fired(window_end: i64, watermark: Option<i64>) -> bool {
    window_end != i64::MAX && watermark.is_some_and(|w| w >= window_end.wrapping_sub(1))
}

#[cfg(test)]
mod tests {
    use super::super::{TimeWindow, WindowAssigner};
    use super::*;

    fn assigners() -> Vec<(SliceAssigner, WindowAssigner)> {
        vec![
            (
                SliceAssigner::Tumble {
                    size: 10,
                    offset: 3,
                },
                WindowAssigner::tumble(10, 3).unwrap(),
            ),
            (
                SliceAssigner::Hop {
                    size: 12,
                    slide: 4,
                    offset: 0,
                },
                WindowAssigner::hop(12, 4, 0).unwrap(),
            ),
            (
                SliceAssigner::Hop {
                    size: 10,
                    slide: 5,
                    offset: -2,
                },
                WindowAssigner::hop(10, 5, -2).unwrap(),
            ),
            (
                SliceAssigner::Cumulate {
                    max_size: 12,
                    step: 4,
                    offset: 1,
                },
                WindowAssigner::cumulate(12, 4, 1).unwrap(),
            ),
        ]
    }

    /// The slices tile the windows the TVF assigns: a timestamp's slice is merged into
    /// exactly the windows holding it, and the last of them is `last_window_end`.
    #[test]
    fn slices_merge_into_exactly_the_windows_holding_a_timestamp() {
        let mut slices = Vec::new();
        for (slicing, windows) in assigners() {
            slicing.validate().unwrap();
            for ts in -40..40 {
                let mut holding = Vec::new();
                windows.assign(ts, &mut holding);
                let slice = slicing.slice_end(ts);
                // Every window ending at or after the slice, up to the slice's last window,
                // on the slice grid.
                let mut merged = Vec::new();
                let mut end = slice;
                while end <= slicing.last_window_end(slice) {
                    slicing.slices_to_merge(end, &mut slices);
                    // CUMULATE merges each slice into the window's first one, so a window
                    // holds every slice from its first to its end.
                    let holds = match slicing.merge_target(end) {
                        Some(first) => first <= slice,
                        None => slices.contains(&slice),
                    };
                    if holds {
                        merged.push(TimeWindow {
                            start: slicing.window_start(end),
                            end,
                        });
                    }
                    end += slicing.slice_interval();
                }
                holding.sort();
                merged.sort();
                assert_eq!(merged, holding, "{slicing:?} at {ts}");
                assert_eq!(
                    holding.iter().map(|w| w.end).max(),
                    Some(slicing.last_window_end(slice)),
                    "{slicing:?} at {ts}"
                );
            }
        }
    }

    #[test]
    fn worked_examples_of_flinks_assigners() {
        let hop = SliceAssigner::Hop {
            size: 10,
            slide: 5,
            offset: 0,
        };
        let mut out = Vec::new();
        assert_eq!(hop.slice_end(7), 10);
        hop.slices_to_merge(15, &mut out);
        assert_eq!(out, [15, 10]);
        hop.expired_slices(15, &mut out);
        assert_eq!(out, [10]);
        assert_eq!(hop.next_window(15, false), Some(20));
        assert_eq!(hop.next_window(15, true), None);

        let cumulate = SliceAssigner::Cumulate {
            max_size: 20,
            step: 5,
            offset: 0,
        };
        assert_eq!(cumulate.window_start(15), 0);
        assert_eq!(cumulate.merge_target(15), Some(5));
        cumulate.slices_to_merge(5, &mut out);
        assert!(out.is_empty());
        cumulate.expired_slices(5, &mut out);
        assert!(out.is_empty());
        cumulate.expired_slices(10, &mut out);
        assert_eq!(out, [10]);
        cumulate.expired_slices(20, &mut out);
        assert_eq!(out, [20, 5]);
        assert_eq!(cumulate.next_window(15, true), Some(20));
        assert_eq!(cumulate.next_window(20, false), None);
        assert_eq!(cumulate.last_window_end(10), 20);

        assert!(!is_fired(10, None));
        assert!(!is_fired(10, Some(8)));
        assert!(is_fired(10, Some(9)));
        assert!(!is_fired(i64::MAX, Some(i64::MAX)));
        assert!(
            SliceAssigner::Tumble {
                size: 10,
                offset: 10
            }
            .validate()
            .is_err()
        );
        assert!(
            SliceAssigner::Hop {
                size: 10,
                slide: 4,
                offset: 0
            }
            .validate()
            .is_err()
        );
    }
}
