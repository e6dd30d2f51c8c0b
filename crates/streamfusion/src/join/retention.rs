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
use crate::ops::keyed::Keyed;

const KEY_GROUP_BYTES: usize = 2;

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

/// The processing time a call renews cleanup timers at: the state's clock, read once per
/// call (decision 0051); 0 without retention, which reads none.
pub(super) fn now(retention: Option<StateRetention>, keyed: &Keyed) -> i64 {
    if retention.is_some() {
        keyed.clock().now_millis()
    } else {
        0
    }
}

/// A state key's key group and key row.
pub(super) fn split_state_key(state_key: &[u8]) -> (u16, &[u8]) {
    let key_group = u16::from_be_bytes([state_key[0], state_key[1]]);
    (key_group, &state_key[KEY_GROUP_BYTES..])
}

/// A timer as the keyed driver registers it: key group, time, key row, namespace.
type KeyTimer<'k> = (u16, i64, &'k [u8], [u8; 0]);

/// The cleanup timers a call deletes and registers, applied together at its end.
#[derive(Default)]
pub(super) struct CleanupTimers<'k> {
    deleted: Vec<KeyTimer<'k>>,
    registered: Vec<KeyTimer<'k>>,
}

impl<'k> CleanupTimers<'k> {
    /// `state_key`'s cleanup timer moves from `before` to `after`.
    pub(super) fn change(&mut self, state_key: &'k [u8], before: Option<i64>, after: Option<i64>) {
        if before == after {
            return;
        }
        let (key_group, key) = split_state_key(state_key);
        if let Some(t) = before {
            self.deleted.push((key_group, t, key, []));
        }
        if let Some(t) = after {
            self.registered.push((key_group, t, key, []));
        }
    }

    pub(super) fn apply(self, keyed: &mut Keyed) -> Result<()> {
        keyed.delete_processing_timers(self.deleted)?;
        keyed.register_processing_timers(self.registered)
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
