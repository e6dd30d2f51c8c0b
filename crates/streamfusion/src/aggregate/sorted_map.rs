//! The sorted map state of retracting MIN/MAX and of DISTINCT, read and written a bundle at
//! a time.
//!
//! Flink's `MinWithRetractAggFunction`/`MaxWithRetractAggFunction` keep a `MapView` from
//! value to count per group, and so does the planner's distinct code for `f(DISTINCT x)`
//! (which only looks values up, never seeks). Here the map is a state table whose keys are
//! `[group prefix][order bytes of the value]`, so a group's entries are one contiguous range
//! sorted like `compareTo`: the largest entry is the last key of the range and the smallest
//! the first, and Flink's "iterate every key to find the new extremum" becomes a seek.
//!
//! A bundle first preloads every entry it will touch with one batched read
//! ([`SortedMaps::preload`]); updates then go to a small in-memory overlay per (group, call),
//! addressed by index rather than hashed, and [`SortedMaps::finish`] turns the overlays into
//! one write batch in key order. Only finding a new extremum after the old one was retracted
//! reads state again (one seek per group).

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

/// The overlay of one (group, call) map during a bundle.
#[derive(Debug, Default)]
struct Overlay {
    /// The entries the bundle touched, by full state key, sorted. Most maps touch one or two
    /// values per bundle, and preloading fills them in order, so a sorted vector beats a tree.
    entries: Vec<(Vec<u8>, Entry)>,
    /// Physical entries the map had when the bundle started (from the accumulator), or
    /// `None` when unknown.
    loaded: Option<i64>,
    /// Whether every stored entry was removed during the bundle (`function.cleanup()`).
    cleared: bool,
}

impl Overlay {
    /// The position of `key`, or where it would go.
    fn find(&self, key: &[u8]) -> Result<usize, usize> {
        self.entries
            .binary_search_by(|(k, _)| k.as_slice().cmp(key))
    }
}

/// Every sorted map of one state table, with the current bundle's overlays.
#[derive(Debug)]
pub(crate) struct SortedMaps {
    table: TableId,
    ttl: Option<StateTtl>,
    overlays: Vec<Overlay>,
}

impl SortedMaps {
    pub(crate) fn new(table: TableId, ttl: Option<StateTtl>) -> Self {
        Self {
            table,
            ttl,
            overlays: Vec::new(),
        }
    }

    /// Starts a bundle with `maps` (group, call) maps, numbered by the caller.
    pub(crate) fn begin(&mut self, maps: usize) {
        self.overlays.clear();
        self.overlays.resize_with(maps, Overlay::default);
    }

    /// Reads every `(map, full state key)` in `keys` with one batched read, in key order.
    pub(crate) fn preload(
        &mut self,
        store: &dyn StateBackend,
        mut keys: Vec<(Vec<u8>, usize)>,
    ) -> Result<()> {
        keys.sort_unstable();
        keys.dedup();
        let refs: Vec<&[u8]> = keys.iter().map(|(k, _)| k.as_slice()).collect();
        let stored = store.multi_get(self.table, &refs)?;
        drop(refs);
        for ((key, map), stored) in keys.into_iter().zip(stored) {
            let count = match &stored {
                None => None,
                Some(raw) => self.unwrap(raw)?,
            };
            // Keys arrive sorted, so each overlay's vector is filled in order.
            self.overlays[map].entries.push((
                key,
                Entry {
                    persisted: stored.is_some(),
                    count,
                    dirty: false,
                },
            ));
        }
        Ok(())
    }

    /// Notes how many physical entries map `map` had when the bundle started (from its
    /// accumulator), so clearing it can skip the seek when every entry is known.
    pub(crate) fn note_loaded(&mut self, map: usize, entries: i64) {
        self.overlays[map].loaded = Some(entries);
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

    /// The count of `key` in map `map` (0 when absent). The key must have been preloaded.
    pub(crate) fn get(&self, map: usize, key: &[u8]) -> i64 {
        let overlay = &self.overlays[map];
        overlay
            .find(key)
            .ok()
            .and_then(|i| overlay.entries[i].1.count)
            .unwrap_or(0)
    }

    /// Sets `key`'s count, or removes it with `None`. Returns the change in the number of
    /// present entries (-1, 0 or 1).
    pub(crate) fn set(&mut self, map: usize, key: &[u8], count: Option<i64>) -> i64 {
        let overlay = &mut self.overlays[map];
        // Preloaded keys are present already; only new ones allocate.
        let i = overlay.find(key).unwrap_or_else(|i| {
            let fresh = Entry {
                persisted: false,
                count: None,
                dirty: false,
            };
            overlay.entries.insert(i, (key.to_vec(), fresh));
            i
        });
        let entry = &mut overlay.entries[i].1;
        let delta = i64::from(count.is_some()) - i64::from(entry.count.is_some());
        entry.count = count;
        entry.dirty = true;
        delta
    }

    /// The largest (`last`) or smallest present key of map `map`, whose keys start with
    /// `prefix`; returned without the prefix.
    pub(crate) fn extreme(
        &self,
        store: &dyn StateBackend,
        map: usize,
        prefix: &[u8],
        last: bool,
    ) -> Result<Option<Vec<u8>>> {
        let overlay = &self.overlays[map];
        let mut present = overlay
            .entries
            .iter()
            .filter(|(_, e)| e.count.is_some())
            .map(|(k, _)| k);
        let from_overlay = if last {
            present.next_back()
        } else {
            present.next()
        }
        .cloned();

        let mut from_store = None;
        if !overlay.cleared {
            let mut failure = None;
            let mut visit = |k: &[u8], v: &[u8]| {
                // The overlay is authoritative for the keys it holds.
                if overlay.find(k).is_ok() {
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

    /// Removes every entry of map `map` (Flink's `function.cleanup()`).
    pub(crate) fn clear(&mut self, map: usize) {
        let overlay = &mut self.overlays[map];
        for (_, entry) in &mut overlay.entries {
            entry.count = None;
            entry.dirty = true;
        }
        overlay.cleared = true;
    }

    /// Adds the bundle's changes to `batch`, visiting maps in `order` with their key
    /// prefixes (the caller passes them in key order, so the batch is sorted).
    pub(crate) fn finish<'p>(
        &mut self,
        store: &dyn StateBackend,
        batch: &mut WriteBatch,
        order: impl Iterator<Item = (usize, &'p [u8])>,
    ) -> Result<()> {
        let mut value = Vec::new();
        for (map, prefix) in order {
            let overlay = std::mem::take(&mut self.overlays[map]);
            if overlay.cleared {
                // Stored entries the bundle never touched must be found to be deleted; when
                // the accumulator's entry count says there are none, skip the seek.
                let known = overlay.entries.iter().filter(|(_, e)| e.persisted).count() as i64;
                if overlay.loaded.is_none_or(|loaded| known < loaded) {
                    store.scan(self.table, ScanRange::Prefix(prefix), &mut |k, _| {
                        if overlay.find(k).is_err() {
                            batch.delete(self.table, k);
                        }
                        true
                    })?;
                }
            }
            for (key, entry) in overlay.entries {
                if !entry.dirty {
                    continue;
                }
                match entry.count {
                    Some(count) => {
                        let bytes = count.to_le_bytes();
                        match &self.ttl {
                            None => batch.put(self.table, key, bytes),
                            Some(ttl) => {
                                ttl.wrap_into(&bytes, &mut value);
                                batch.put(self.table, key, &value);
                            }
                        }
                    }
                    None if entry.persisted => batch.delete(self.table, key),
                    None => {}
                }
            }
        }
        self.overlays.clear();
        Ok(())
    }
}
