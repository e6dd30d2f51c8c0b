//! Event-time and processing-time timers kept in keyed state.
//!
//! Timers live in their own table, keyed `[key group][timestamp][key][namespace]`, with the
//! timestamp as a sign-flipped big-endian `i64` so byte order is time order. Being ordinary
//! keyed state, they are checkpointed with everything else and follow their key groups when
//! a job is rescaled. [`Timers::fire`] removes and returns every timer at or before a time,
//! in timestamp order (then key group, then key), as Flink's timer service fires them.
//!
//! A caller that knows no timer lies before some time (`from`: everything earlier has fired)
//! scans each key group from there: on RocksDB the fired timers' tombstones stay in front
//! of the live ones until a compaction, and a scan from the key group's start would step
//! over all of them at every watermark.

use std::ops::RangeInclusive;

use super::layout::{prefix_successor, state_key};
use super::{ScanRange, StateBackend, TableAccess, TableId, WriteBatch};
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

impl Timer {
    /// The state key the timer was registered for: `[key group][key][namespace]`.
    pub fn state_key(&self) -> Vec<u8> {
        let mut key = Vec::with_capacity(2 + self.key_and_namespace.len());
        key.extend_from_slice(&self.key_group.to_be_bytes());
        key.extend_from_slice(&self.key_and_namespace);
        key
    }
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
            table: store.open_table_with(name, TableAccess::Queue)?,
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

    /// Every timer of `key_groups` at or before `time` (and not before `from`, when no timer
    /// is), in firing order, without removing.
    pub fn due(
        &self,
        store: &dyn StateBackend,
        key_groups: &RangeInclusive<u16>,
        from: Option<i64>,
        time: i64,
    ) -> Result<Vec<Timer>> {
        let mut due = Vec::new();
        if from.is_some_and(|from| from > time) {
            return Ok(due);
        }
        for key_group in key_groups.clone() {
            self.scan_key_group(store, key_group, from, time, &mut |timestamp, rest| {
                due.push(Timer {
                    timestamp,
                    key_group,
                    key_and_namespace: rest.to_vec(),
                });
                true
            })?;
        }
        due.sort();
        Ok(due)
    }

    /// The earliest timer of `key_groups` (none lies before `from`), without removing it.
    pub fn earliest(
        &self,
        store: &dyn StateBackend,
        key_groups: &RangeInclusive<u16>,
        from: Option<i64>,
    ) -> Result<Option<i64>> {
        let mut earliest: Option<i64> = None;
        for key_group in key_groups.clone() {
            self.scan_key_group(store, key_group, from, i64::MAX, &mut |timestamp, _| {
                earliest = Some(earliest.map_or(timestamp, |e| e.min(timestamp)));
                false
            })?;
        }
        Ok(earliest)
    }

    /// Visits `key_group`'s timers from `from` (its start without) to `time`, in time order,
    /// each as its timestamp and its key and namespace, until `visit` returns `false`.
    fn scan_key_group(
        &self,
        store: &dyn StateBackend,
        key_group: u16,
        from: Option<i64>,
        time: i64,
        visit: &mut dyn FnMut(i64, &[u8]) -> bool,
    ) -> Result<()> {
        let start = state_key(
            key_group,
            &timestamp_bytes(from.unwrap_or(i64::MIN)),
            &[],
            &[],
        );
        // Every timer of the key group at or before `time` sorts before `[kg][time + 1]`; at
        // the end of time, before the next key group (key groups stay below 32,768, so the
        // successor exists).
        let end = match time.checked_add(1) {
            Some(next) => state_key(key_group, &timestamp_bytes(next), &[], &[]),
            None => prefix_successor(&key_group.to_be_bytes()).unwrap_or_else(|| vec![0xff; 3]),
        };
        store.scan(self.table, ScanRange::Between(&start, &end), &mut |k, _| {
            let timestamp = timestamp_of(&k[2..10]);
            timestamp <= time && visit(timestamp, &k[10..])
        })
    }

    /// Removes and returns every timer of `key_groups` at or before `time` (none lies before
    /// `from`), in firing order.
    pub fn fire(
        &self,
        store: &mut dyn StateBackend,
        key_groups: &RangeInclusive<u16>,
        from: Option<i64>,
        time: i64,
    ) -> Result<Vec<Timer>> {
        let due = self.due(store, key_groups, from, time)?;
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
        let fired = timers.fire(&mut store, &(0..=127), None, 300).unwrap();
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
        assert!(
            timers
                .fire(&mut store, &(0..=127), None, 300)
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            timers
                .due(&store, &(0..=127), None, i64::MAX)
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn the_earliest_timer_is_the_lowest_of_every_key_groups_first() {
        let mut store = MemoryBackend::new();
        let timers = Timers::open(&mut store, "timers:processing").unwrap();
        assert_eq!(timers.earliest(&store, &(0..=127), None).unwrap(), None);
        let mut batch = WriteBatch::new();
        for (kg, ts) in [(3u16, 500i64), (90, 450), (90, i64::MAX), (7, -5)] {
            timers.register(&mut batch, kg, ts, b"k", b"");
        }
        store.write(&batch).unwrap();
        assert_eq!(timers.earliest(&store, &(0..=127), None).unwrap(), Some(-5));
        assert_eq!(
            timers.earliest(&store, &(8..=127), None).unwrap(),
            Some(450)
        );
        assert_eq!(
            timers.earliest(&store, &(0..=127), Some(460)).unwrap(),
            Some(500)
        );
        timers.fire(&mut store, &(0..=127), None, 500).unwrap();
        assert_eq!(
            timers.earliest(&store, &(0..=127), None).unwrap(),
            Some(i64::MAX)
        );
    }

    /// With `from`, each key group is scanned from there: what lies before is not seen (the
    /// caller's promise that it has fired), what lies after still fires in order.
    #[test]
    fn a_scan_from_a_time_sees_the_timers_from_there() {
        let mut store = MemoryBackend::new();
        let timers = Timers::open(&mut store, "timers:event").unwrap();
        let mut batch = WriteBatch::new();
        for (kg, ts) in [(3, 100), (3, 500), (90, 450), (90, i64::MAX)] {
            timers.register(&mut batch, kg, ts, b"k", b"n");
        }
        store.write(&batch).unwrap();
        let stamps = |t: Vec<Timer>| t.iter().map(|t| t.timestamp).collect::<Vec<_>>();
        let all = 0..=127;
        assert_eq!(
            stamps(timers.due(&store, &all, Some(101), 499).unwrap()),
            [450]
        );
        assert!(timers.due(&store, &all, Some(600), 599).unwrap().is_empty());
        assert_eq!(
            stamps(timers.fire(&mut store, &all, None, 300).unwrap()),
            [100]
        );
        assert_eq!(
            stamps(timers.fire(&mut store, &all, Some(301), i64::MAX).unwrap()),
            [450, 500, i64::MAX]
        );
    }
}
