//! The sorted map state of retracting MIN/MAX, read and written a bundle at a time.
//!
//! Flink's `MinWithRetractAggFunction`/`MaxWithRetractAggFunction` keep a `MapView` from
//! value to count per group. Here the map is a state table whose keys are
//! `[group prefix][order bytes of the value]`, so a group's entries are one contiguous range
//! sorted like `compareTo`: the largest entry is the last key of the range and the smallest
//! the first, and Flink's "iterate every key to find the new extremum" becomes a seek.
//!
//! A bundle first preloads every entry it will touch with one batched read
//! ([`SortedMaps::preload`]); updates then go to an in-memory overlay, and
//! [`SortedMaps::finish`] turns the overlay into one write batch. Only finding a new
//! extremum after the old one was retracted reads state again (one seek per group).

use std::collections::{BTreeMap, HashMap};

use crate::error::Result;
use crate::state::ttl::StateTtl;
use crate::state::{ScanRange, StateBackend, TableId, WriteBatch};

/// One map entry as the bundle sees it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Whether the key was physically in the store when the bundle started.
    persisted: bool,
    /// The current count; `None` when the entry is absent.
    count: Option<i64>,
    /// Whether the bundle changed it: only changes are written (and refresh a TTL).
    dirty: bool,
}

/// Every sorted map of one state table, with the current bundle's overlay.
#[derive(Debug)]
pub(crate) struct SortedMaps {
    table: TableId,
    ttl: Option<StateTtl>,
    overlay: BTreeMap<Vec<u8>, Entry>,
    /// Groups whose stored entries were all removed during this bundle, with how many
    /// physical entries the group had when the bundle started.
    cleared: HashMap<Vec<u8>, i64>,
    /// Physical entry counts at bundle start, by group prefix.
    loaded_entries: HashMap<Vec<u8>, i64>,
}

impl SortedMaps {
    pub(crate) fn new(table: TableId, ttl: Option<StateTtl>) -> Self {
        Self {
            table,
            ttl,
            overlay: BTreeMap::new(),
            cleared: HashMap::new(),
            loaded_entries: HashMap::new(),
        }
    }

    /// Reads every key in `keys` (full state keys) into the overlay with one batched read.
    pub(crate) fn preload(&mut self, store: &dyn StateBackend, keys: Vec<Vec<u8>>) -> Result<()> {
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let stored = store.multi_get(self.table, &refs)?;
        for (key, stored) in keys.into_iter().zip(stored) {
            let count = match &stored {
                None => None,
                Some(raw) => self.unwrap(raw)?,
            };
            self.overlay.insert(
                key,
                Entry {
                    persisted: stored.is_some(),
                    count,
                    dirty: false,
                },
            );
        }
        Ok(())
    }

    /// Notes how many physical entries a group had when the bundle started (from its
    /// accumulator), so clearing it can skip the scan when every entry is known.
    pub(crate) fn note_group(&mut self, prefix: Vec<u8>, entries: i64) {
        self.loaded_entries.insert(prefix, entries);
    }

    fn unwrap(&self, raw: &[u8]) -> Result<Option<i64>> {
        let value = match &self.ttl {
            None => Some(raw),
            Some(ttl) => ttl.unwrap(raw)?,
        };
        value
            .map(|v| {
                v.try_into().map(i64::from_le_bytes).map_err(|_| {
                    crate::Error::State(format!("corrupt sorted-map count of {} bytes", v.len()))
                })
            })
            .transpose()
    }

    /// The count of `key` (0 when absent). The key must have been preloaded.
    pub(crate) fn get(&self, key: &[u8]) -> i64 {
        self.overlay.get(key).and_then(|e| e.count).unwrap_or(0)
    }

    /// Sets `key`'s count, or removes it with `None`. Returns the change in the number of
    /// present entries (-1, 0 or 1).
    pub(crate) fn set(&mut self, key: &[u8], count: Option<i64>) -> i64 {
        // Preloaded keys are present already; only new ones allocate.
        if !self.overlay.contains_key(key) {
            self.overlay.insert(
                key.to_vec(),
                Entry {
                    persisted: false,
                    count: None,
                    dirty: false,
                },
            );
        }
        let entry = self.overlay.get_mut(key).expect("inserted above");
        let delta = i64::from(count.is_some()) - i64::from(entry.count.is_some());
        entry.count = count;
        entry.dirty = true;
        delta
    }

    /// The largest (`last`) or smallest present key of the group `prefix`, without the
    /// prefix.
    pub(crate) fn extreme(
        &self,
        store: &dyn StateBackend,
        prefix: &[u8],
        last: bool,
    ) -> Result<Option<Vec<u8>>> {
        let end = crate::state::layout::prefix_successor(prefix);
        let range = self.overlay.range::<[u8], _>((
            std::ops::Bound::Included(prefix),
            end.as_deref()
                .map_or(std::ops::Bound::Unbounded, std::ops::Bound::Excluded),
        ));
        let mut present = range.filter(|(_, e)| e.count.is_some()).map(|(k, _)| k);
        let from_overlay = if last {
            present.next_back()
        } else {
            present.next()
        }
        .cloned();

        let mut from_store = None;
        if !self.cleared.contains_key(prefix) {
            let mut failure = None;
            let mut visit = |k: &[u8], v: &[u8]| {
                // The overlay is authoritative for the keys it holds.
                if self.overlay.contains_key(k) {
                    return true;
                }
                match self.unwrap(v) {
                    Ok(Some(_)) => {
                        from_store = Some(k.to_vec());
                        false
                    }
                    Ok(None) => true,
                    Err(e) => {
                        failure = Some(e);
                        false
                    }
                }
            };
            if last {
                store.scan_rev(self.table, ScanRange::Prefix(prefix), &mut visit)?;
            } else {
                store.scan(self.table, ScanRange::Prefix(prefix), &mut visit)?;
            }
            if let Some(e) = failure {
                return Err(e);
            }
        }
        let best = match (from_overlay, from_store) {
            (Some(a), Some(b)) => Some(if (a > b) == last { a } else { b }),
            (a, b) => a.or(b),
        };
        Ok(best.map(|k| k[prefix.len()..].to_vec()))
    }

    /// Removes every entry of the group `prefix` (Flink's `function.cleanup()`).
    pub(crate) fn clear(&mut self, prefix: &[u8]) {
        let end = crate::state::layout::prefix_successor(prefix);
        let range = self.overlay.range_mut::<[u8], _>((
            std::ops::Bound::Included(prefix),
            end.as_deref()
                .map_or(std::ops::Bound::Unbounded, std::ops::Bound::Excluded),
        ));
        for (_, entry) in range {
            entry.count = None;
            entry.dirty = true;
        }
        let loaded = self.loaded_entries.get(prefix).copied().unwrap_or(i64::MAX);
        self.cleared.insert(prefix.to_vec(), loaded);
    }

    /// Adds the bundle's changes to `batch` and resets the overlay.
    pub(crate) fn finish(
        &mut self,
        store: &dyn StateBackend,
        batch: &mut WriteBatch,
    ) -> Result<()> {
        for (prefix, loaded) in std::mem::take(&mut self.cleared) {
            let end = crate::state::layout::prefix_successor(&prefix);
            let known = self
                .overlay
                .range::<[u8], _>((
                    std::ops::Bound::Included(prefix.as_slice()),
                    end.as_deref()
                        .map_or(std::ops::Bound::Unbounded, std::ops::Bound::Excluded),
                ))
                .filter(|(_, e)| e.persisted)
                .count() as i64;
            // Stored entries the bundle never touched must be found to be deleted; when
            // the accumulator's entry count says there are none, skip the seek.
            if known < loaded {
                store.scan(self.table, ScanRange::Prefix(&prefix), &mut |k, _| {
                    if !self.overlay.contains_key(k) {
                        batch.delete(self.table, k);
                    }
                    true
                })?;
            }
        }
        for (key, entry) in std::mem::take(&mut self.overlay) {
            if !entry.dirty {
                continue;
            }
            match entry.count {
                Some(count) => {
                    let bytes = count.to_le_bytes();
                    let value = match &self.ttl {
                        None => bytes.to_vec(),
                        Some(ttl) => ttl.wrap(&bytes),
                    };
                    batch.put(self.table, key, value);
                }
                None if entry.persisted => batch.delete(self.table, key),
                None => {}
            }
        }
        self.loaded_entries.clear();
        Ok(())
    }
}
