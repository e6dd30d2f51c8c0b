//! State retention of the temporal joins: Flink's `BaseTwoInputStreamOperatorWithStateRetention`,
//! which clears a key's whole state once it has been idle for a while in processing time
//! (`table.exec.state.ttl`).
//!
//! Each key keeps the time of its cleanup timer (Flink's `cleanup-timestamp`). A row, or a
//! firing that leaves the key something to do, renews it
//! (`registerProcessingCleanupTimer`): when the key has none, or when the processing time
//! plus the minimum retention is past it, the timer moves to the processing time plus the
//! maximum retention (the old one is deleted). So a key busy within the minimum retention
//! moves its timer at most once per `max - min`. When the timer fires and is still the
//! key's, the operator clears the key's state.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A join's state retention, in milliseconds of processing time: Flink's
/// `minRetentionTime` (`table.exec.state.ttl`) and `maxRetentionTime` (3/2 of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateRetention {
    pub min_ms: i64,
    pub max_ms: i64,
}

impl StateRetention {
    /// The retention Flink derives from `table.exec.state.ttl` (`ttl_ms`): none at 1 ms or
    /// less (`stateCleaningEnabled` is `minRetentionTime > 1`), else `[ttl, ttl * 3 / 2]`.
    pub fn from_ttl(ttl_ms: i64) -> Option<Self> {
        (ttl_ms > 1).then(|| Self {
            min_ms: ttl_ms,
            max_ms: ttl_ms.saturating_mul(3) / 2,
        })
    }

    /// Checks the plan's retention: cleaning on (`min_ms` over 1) and `max_ms` not below it.
    pub fn check(&self) -> Result<()> {
        if self.min_ms <= 1 || self.max_ms < self.min_ms {
            return Err(Error::Plan(format!(
                "a state retention of [{}, {}] ms: the minimum must be over 1 ms and the \
                 maximum at least the minimum",
                self.min_ms, self.max_ms
            )));
        }
        Ok(())
    }

    /// The key's cleanup timer after a renewal at processing time `now`, given its timer
    /// `current`: `Some` of the new time when the timer moves, `None` when it stays.
    pub fn renewed(&self, now: i64, current: Option<i64>) -> Option<i64> {
        match current {
            Some(at) if now.saturating_add(self.min_ms) <= at => None,
            _ => Some(now.saturating_add(self.max_ms)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timer_moves_only_once_the_minimum_retention_reaches_past_it() {
        let r = StateRetention::from_ttl(1_000).unwrap();
        assert_eq!((r.min_ms, r.max_ms), (1_000, 1_500));
        // No timer: one at now + max.
        assert_eq!(r.renewed(10, None), Some(1_510));
        // now + min = 1_509 <= 1_510: it stays; 1_510 too; at 511 it moves.
        assert_eq!(r.renewed(509, Some(1_510)), None);
        assert_eq!(r.renewed(510, Some(1_510)), None);
        assert_eq!(r.renewed(511, Some(1_510)), Some(2_011));
        // Integer division as Flink's `* 3 / 2`; 1 ms and less is off.
        assert_eq!(StateRetention::from_ttl(333).unwrap().max_ms, 499);
        assert_eq!(StateRetention::from_ttl(1), None);
        assert!(
            StateRetention {
                min_ms: 10,
                max_ms: 5
            }
            .check()
            .is_err()
        );
        assert!(
            StateRetention {
                min_ms: 1,
                max_ms: 5
            }
            .check()
            .is_err()
        );
        assert!(r.check().is_ok());
    }
}
