//! Time windows: Flink's assignment of a timestamp to TUMBLE, HOP and CUMULATE windows
//! (`TimeWindow.getWindowStartWithOffset` and the assigners of
//! `org.apache.flink.table.runtime.operators.window.groupwindow.assigners`).
//!
//! Arithmetic is Java's `long` arithmetic, wrapping, so extreme timestamps and offsets give
//! exactly Flink's windows. [`slices`] is how window aggregation splits these windows into
//! the slices its state keeps; [`session`] is how SESSION windows merge per key.

pub mod session;
pub mod slices;

use crate::error::{Error, Result};

/// A window `[start, end)` in epoch milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimeWindow {
    /// Inclusive start.
    pub start: i64,
    /// Exclusive end.
    pub end: i64,
}

impl TimeWindow {
    /// The largest timestamp in the window (`end - 1`), when it fires.
    pub fn max_timestamp(&self) -> i64 {
        self.end.wrapping_sub(1)
    }
}

/// The start of the window of `size` (shifted by `offset`) that holds `ts`:
/// `TimeWindow.getWindowStartWithOffset`.
pub fn window_start_with_offset(ts: i64, offset: i64, size: i64) -> i64 {
    let remainder = ts.wrapping_sub(offset).wrapping_rem(size);
    if remainder < 0 {
        ts.wrapping_sub(remainder.wrapping_add(size))
    } else {
        ts.wrapping_sub(remainder)
    }
}

/// A window assigner of the TUMBLE, HOP or CUMULATE table-valued functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowAssigner {
    /// `TUMBLE(size, offset)`: one window per timestamp.
    Tumble {
        /// Window length.
        size: i64,
        /// Shift of the window grid.
        offset: i64,
    },
    /// `HOP(slide, size, offset)`: `size / slide` overlapping windows per timestamp.
    Hop {
        /// Window length.
        size: i64,
        /// Distance between window starts.
        slide: i64,
        /// Shift of the window grid.
        offset: i64,
    },
    /// `CUMULATE(step, max_size, offset)`: windows of one start growing by `step`.
    Cumulate {
        /// The largest window.
        max_size: i64,
        /// Growth per window.
        step: i64,
        /// Shift of the window grid.
        offset: i64,
    },
}

impl WindowAssigner {
    /// A TUMBLE assigner; `size` must be positive.
    pub fn tumble(size: i64, offset: i64) -> Result<Self> {
        positive("TUMBLE size", size)?;
        Ok(WindowAssigner::Tumble { size, offset })
    }

    /// A HOP assigner; `size` and `slide` must be positive.
    pub fn hop(size: i64, slide: i64, offset: i64) -> Result<Self> {
        positive("HOP size", size)?;
        positive("HOP slide", slide)?;
        Ok(WindowAssigner::Hop {
            size,
            slide,
            offset,
        })
    }

    /// A CUMULATE assigner; `step` and `max_size` must be positive and `max_size` a multiple
    /// of `step` (as `CumulativeWindowAssigner.of` requires).
    pub fn cumulate(max_size: i64, step: i64, offset: i64) -> Result<Self> {
        positive("CUMULATE max size", max_size)?;
        positive("CUMULATE step", step)?;
        if max_size % step != 0 {
            return Err(Error::OutOfRange(format!(
                "CUMULATE max size {max_size} is not a multiple of its step {step}"
            )));
        }
        Ok(WindowAssigner::Cumulate {
            max_size,
            step,
            offset,
        })
    }

    /// Appends the windows `ts` belongs to, in Flink's order.
    pub fn assign(&self, ts: i64, out: &mut Vec<TimeWindow>) {
        match *self {
            WindowAssigner::Tumble { size, offset } => {
                let start = window_start_with_offset(ts, offset, size);
                out.push(TimeWindow {
                    start,
                    end: start.wrapping_add(size),
                });
            }
            WindowAssigner::Hop {
                size,
                slide,
                offset,
            } => {
                let lowest = ts.wrapping_sub(size);
                let mut start = window_start_with_offset(ts, offset, slide);
                while start > lowest {
                    out.push(TimeWindow {
                        start,
                        end: start.wrapping_add(size),
                    });
                    start = start.wrapping_sub(slide);
                }
            }
            WindowAssigner::Cumulate {
                max_size,
                step,
                offset,
            } => {
                let start = window_start_with_offset(ts, offset, max_size);
                let last_end = start.wrapping_add(max_size);
                let mut end = window_start_with_offset(ts, offset, step).wrapping_add(step);
                while end <= last_end {
                    out.push(TimeWindow { start, end });
                    end = end.wrapping_add(step);
                }
            }
        }
    }
}

fn positive(what: &str, v: i64) -> Result<()> {
    if v > 0 {
        Ok(())
    } else {
        Err(Error::OutOfRange(format!(
            "{what} must be positive, not {v}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_of_worked_examples() {
        let w = |start, end| TimeWindow { start, end };
        let assign = |a: WindowAssigner, ts| {
            let mut out = Vec::new();
            a.assign(ts, &mut out);
            out
        };
        // Negative timestamps round down, not toward zero.
        assert_eq!(window_start_with_offset(-1, 0, 10), -10);
        assert_eq!(window_start_with_offset(25, 3, 10), 23);
        assert_eq!(
            assign(WindowAssigner::tumble(10, 0).unwrap(), 19),
            [w(10, 20)]
        );
        assert_eq!(
            assign(WindowAssigner::hop(10, 5, 0).unwrap(), 12),
            [w(10, 20), w(5, 15)]
        );
        assert_eq!(
            assign(WindowAssigner::cumulate(10, 5, 0).unwrap(), 12),
            [w(10, 15), w(10, 20)]
        );
        assert!(WindowAssigner::cumulate(10, 3, 0).is_err());
        assert!(WindowAssigner::hop(10, 0, 0).is_err());
    }
}
