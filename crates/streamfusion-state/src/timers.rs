//! Event-time and processing-time timers kept in keyed state.
//!
//! Timers live in their own table, keyed `[key group][timestamp][key][namespace]`, with the
//! timestamp as a sign-flipped big-endian `i64` so byte order is time order. Being ordinary
//! keyed state, they are checkpointed with everything else and follow their key groups when
//! a job is rescaled. [`Timers::fire`] removes and returns every timer at or before a time,
//! in timestamp order (then key group, then key), as Flink's timer service fires them.

use std::ops::RangeInclusive;

use super::layout::state_key;
use super::{ScanRange, StateBackend, TableId, WriteBatch};
use crate::error::Result;

/// One registered timer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timer {
    /// When it fires (epoch milliseconds).
    pub timestamp: i64,
    /// The key group of its key.
    pub key_group: u16,
    /// The encoded key followed by the encoded namespace, as registered.
    pub key_and_namespace: Vec<u8>,
}

/// The timers of one operator.
#[derive(Debug, Clone, Copy)]
pub struct Timers {
    table: TableId,
}

fn timestamp_bytes(ts: i64) -> [u8; 8] {
    ((ts as u64) ^ (1 << 63)).to_be_bytes()
}

fn timestamp_of(bytes: &[u8]) -> i64 {
    (u64::from_be_bytes(bytes.try_into().expect("8 bytes")) ^ (1 << 63)) as i64
}

impl Timers {
    /// Opens the timer table `name` (one per operator and time domain, e.g. `timers:event`).
    pub fn open(store: &mut dyn StateBackend, name: &str) -> Result<Self> {
        Ok(Self {
            table: store.open_table(name)?,
        })
    }

    fn key(key_group: u16, timestamp: i64, key: &[u8], namespace: &[u8]) -> Vec<u8> {
        state_key(key_group, &timestamp_bytes(timestamp), key, namespace)
    }

    /// Adds registering a timer to `batch` (registering twice is idempotent).
    pub fn register(
        &self,
        batch: &mut WriteBatch,
        key_group: u16,
        timestamp: i64,
        key: &[u8],
        namespace: &[u8],
    ) {
        batch.put(
            self.table,
            Self::key(key_group, timestamp, key, namespace),
            Vec::new(),
        );
    }

    /// Adds deleting a timer to `batch`.
    pub fn delete(
        &self,
        batch: &mut WriteBatch,
        key_group: u16,
        timestamp: i64,
        key: &[u8],
        namespace: &[u8],
    ) {
        batch.delete(self.table, Self::key(key_group, timestamp, key, namespace));
    }

    /// Every timer of `key_groups` at or before `time`, in firing order, without removing.
    pub fn due(
        &self,
        store: &dyn StateBackend,
        key_groups: &RangeInclusive<u16>,
        time: i64,
    ) -> Result<Vec<Timer>> {
        let mut due = Vec::new();
        for key_group in key_groups.clone() {
            let prefix = key_group.to_be_bytes();
            store.scan(self.table, ScanRange::Prefix(&prefix), &mut |k, _| {
                let timestamp = timestamp_of(&k[2..10]);
                if timestamp > time {
                    return false;
                }
                due.push(Timer {
                    timestamp,
                    key_group,
                    key_and_namespace: k[10..].to_vec(),
                });
                true
            })?;
        }
        due.sort();
        Ok(due)
    }

    /// Removes and returns every timer of `key_groups` at or before `time`, in firing order.
    pub fn fire(
        &self,
        store: &mut dyn StateBackend,
        key_groups: &RangeInclusive<u16>,
        time: i64,
    ) -> Result<Vec<Timer>> {
        let due = self.due(store, key_groups, time)?;
        let mut batch = WriteBatch::with_capacity(due.len());
        for t in &due {
            batch.delete(
                self.table,
                Self::key(t.key_group, t.timestamp, &t.key_and_namespace, &[]),
            );
        }
        store.write(&batch)?;
        Ok(due)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryBackend;

    #[test]
    fn timers_fire_once_in_time_order_across_key_groups() {
        let mut store = MemoryBackend::new();
        let timers = Timers::open(&mut store, "timers:event").unwrap();
        let mut batch = WriteBatch::new();
        for (kg, ts, key) in [
            (5u16, 300i64, b"a"),
            (1, -20, b"b"),
            (9, 100, b"c"),
            (1, 100, b"d"),
            (5, 301, b"e"),
        ] {
            timers.register(&mut batch, kg, ts, key, b"");
        }
        timers.register(&mut batch, 1, -20, b"b", b""); // idempotent
        store.write(&batch).unwrap();
        let fired = timers.fire(&mut store, &(0..=127), 300).unwrap();
        let order: Vec<(i64, u16, &[u8])> = fired
            .iter()
            .map(|t| (t.timestamp, t.key_group, t.key_and_namespace.as_slice()))
            .collect();
        assert_eq!(
            order,
            vec![
                (-20, 1, &b"b"[..]),
                (100, 1, b"d"),
                (100, 9, b"c"),
                (300, 5, b"a")
            ]
        );
        assert!(timers.fire(&mut store, &(0..=127), 300).unwrap().is_empty());
        assert_eq!(timers.due(&store, &(0..=127), i64::MAX).unwrap().len(), 1);
    }
}
