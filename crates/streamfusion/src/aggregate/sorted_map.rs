//! The sorted map state of retracting MIN/MAX and of DISTINCT, read and written a bundle at
//! a time.
//!
//! Flink's `MinWithRetractAggFunction`/`MaxWithRetractAggFunction` keep a `MapView` from
//! value to count per group, and so does the planner's distinct code for `f(DISTINCT x)`
//! (which only looks values up, never seeks). Here the map is a state table whose keys are
//! `[group prefix][order bytes of the value]`, so a group's entries are one contiguous range
//! sorted like `compareTo`: the largest entry is the last key of the range and the smallest
//! the first, and Flink's "iterate every key to find the new extremum" becomes a seek.
//! A retracting MIN/MAX keeps its map inside the accumulator until it outgrows a few values
//! (see [`super::function`]); only then do its entries come here.
//!
//! A bundle first preloads every entry it will touch with one batched read
//! ([`SortedMaps::preload`]); updates then go to a small in-memory overlay per (group, call),
//! addressed by index rather than hashed, and [`SortedMaps::finish`] turns the overlays into
//! one write batch in key order. Entry keys live in one arena per bundle (the preload's key
//! buffer, extended by keys first set during the bundle), so a bundle allocates nothing per
//! entry. Finding a new extremum after the old one was retracted reads state again (one
//! seek per group) only when the overlay does not already hold every stored entry.

use crate::error::Result;
use crate::state::ttl::StateTtl;
use crate::state::{ScanRange, StateBackend, TableId, WriteBatch};

/// One map entry as the bundle sees it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Where the full state key is in the arena.
    start: usize,
    end: usize,
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
    /// The preloaded entries: `SortedMaps::entries[start..end]`, sorted by key. Preloading
    /// reads keys in ascending order and a map's keys share its prefix, so each map's
    /// entries are one run of the bundle's single entry vector.
    start: usize,
    end: usize,
    /// Entries first set during the bundle without having been preloaded, sorted by key.
    extra: Vec<Entry>,
    /// Physical entries the map had when the bundle started (from the accumulator), or
    /// `None` when unknown.
    loaded: Option<i64>,
    /// Preloaded entries that were physically stored.
    known: i64,
    /// Whether every stored entry was removed during the bundle (`function.cleanup()`).
    cleared: bool,
}

/// The position of `key` in `entries` (sorted by key), or where it would go.
fn find(entries: &[Entry], arena: &[u8], key: &[u8]) -> Result<usize, usize> {
    entries.binary_search_by(|e| arena[e.start..e.end].cmp(key))
}

impl Overlay {
    /// Whether every entry stored for this map is in the overlay, so the store has nothing
    /// more to say about it.
    fn holds_all_stored(&self) -> bool {
        self.cleared || self.preloaded_all()
    }

    /// Whether the preload read every entry stored for this map (the accumulator's entry
    /// count says there are no others).
    fn preloaded_all(&self) -> bool {
        self.loaded.is_some_and(|loaded| self.known >= loaded)
    }
}

/// Every sorted map of one state table, with the current bundle's overlays.
#[derive(Debug)]
pub(crate) struct SortedMaps {
    table: TableId,
    ttl: Option<StateTtl>,
    overlays: Vec<Overlay>,
    /// Every overlay's preloaded entries.
    entries: Vec<Entry>,
    /// The bundle's entry keys.
    arena: Vec<u8>,
}

/// The entry keys a bundle will touch, in one buffer: build with [`MapKeys::push`], pass to
/// [`SortedMaps::preload`].
#[derive(Debug, Default)]
pub(crate) struct MapKeys {
    data: Vec<u8>,
    /// Each key's end in `data` (it starts where the previous one ended) and its map.
    keys: Vec<(usize, usize)>,
}

impl MapKeys {
    /// The buffer to append the next key's bytes to; [`MapKeys::push`] then ends it.
    pub(crate) fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.data
    }

    /// Ends the key appended since the previous one, for map `map`.
    pub(crate) fn push(&mut self, map: usize) {
        self.keys.push((self.data.len(), map));
    }

    /// The key bytes of key `i`.
    fn key(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.keys[i - 1].0 };
        &self.data[start..self.keys[i].0]
    }
}

impl SortedMaps {
    pub(crate) fn new(table: TableId, ttl: Option<StateTtl>) -> Self {
        Self {
            table,
            ttl,
            overlays: Vec::new(),
            entries: Vec::new(),
            arena: Vec::new(),
        }
    }

    /// The state table the maps live in.
    pub(crate) fn table(&self) -> TableId {
        self.table
    }

    /// An empty key buffer with room for `keys` keys of `bytes` bytes, reusing the previous
    /// bundle's arena.
    pub(crate) fn key_buffer(&mut self, keys: usize, bytes: usize) -> MapKeys {
        let mut data = std::mem::take(&mut self.arena);
        data.clear();
        data.reserve(bytes);
        MapKeys {
            data,
            keys: Vec::with_capacity(keys),
        }
    }

    /// Starts a bundle with `maps` (group, call) maps, numbered by the caller.
    pub(crate) fn begin(&mut self, maps: usize) {
        self.overlays.clear();
        self.overlays.resize_with(maps, Overlay::default);
        self.entries.clear();
    }

    /// Reads every key of `keys` with one batched read, in key order. Keys in ascending
    /// order (the caller's usual case) are read as they are; others are sorted first.
    pub(crate) fn preload(&mut self, store: &dyn StateBackend, keys: MapKeys) -> Result<()> {
        let mut index: Vec<usize> = (0..keys.keys.len()).collect();
        if !(1..index.len()).all(|i| keys.key(i - 1) <= keys.key(i)) {
            index.sort_by(|&a, &b| keys.key(a).cmp(keys.key(b)));
        }
        // Equal keys name the same entry of the same map: read it once.
        index.dedup_by(|b, a| keys.key(*a) == keys.key(*b));
        let refs: Vec<&[u8]> = index.iter().map(|&i| keys.key(i)).collect();
        let mut counts = Vec::with_capacity(refs.len());
        store.multi_get_each(self.table, &refs, &mut |_, stored| {
            let count = match stored {
                None => None,
                Some(raw) => self.unwrap(raw)?,
            };
            counts.push((stored.is_some(), count));
            Ok(())
        })?;
        drop(refs);
        let (data, spans) = (keys.data, keys.keys);
        self.arena = data;
        self.entries.reserve(index.len());
        for (&i, (persisted, count)) in index.iter().zip(counts) {
            let entry = Entry {
                start: if i == 0 { 0 } else { spans[i - 1].0 },
                end: spans[i].0,
                persisted,
                count,
                dirty: false,
            };
            let at = self.entries.len();
            let overlay = &mut self.overlays[spans[i].1];
            overlay.known += i64::from(persisted);
            if overlay.start == overlay.end {
                (overlay.start, overlay.end) = (at, at + 1);
                self.entries.push(entry);
            } else if overlay.end == at {
                overlay.end += 1;
                self.entries.push(entry);
            } else {
                // Keys of one map not next to each other: only if the caller's keys of
                // different maps share prefixes. Still correct, kept aside.
                let key = &self.arena[entry.start..entry.end];
                let i = find(&overlay.extra, &self.arena, key).unwrap_or_else(|i| i);
                overlay.extra.insert(i, entry);
            }
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
        let preloaded = &self.entries[overlay.start..overlay.end];
        find(preloaded, &self.arena, key)
            .ok()
            .map(|i| preloaded[i])
            .or_else(|| {
                find(&overlay.extra, &self.arena, key)
                    .ok()
                    .map(|i| overlay.extra[i])
            })
            .and_then(|e| e.count)
            .unwrap_or(0)
    }

    /// Sets `key`'s count, or removes it with `None`. Returns the change in the number of
    /// present entries (-1, 0 or 1).
    pub(crate) fn set(&mut self, map: usize, key: &[u8], count: Option<i64>) -> i64 {
        let overlay = &mut self.overlays[map];
        let preloaded = &mut self.entries[overlay.start..overlay.end];
        // Preloaded keys are present already; only new ones go to the arena.
        let entry = match find(preloaded, &self.arena, key) {
            Ok(i) => &mut preloaded[i],
            Err(_) => {
                let i = find(&overlay.extra, &self.arena, key).unwrap_or_else(|i| {
                    let start = self.arena.len();
                    self.arena.extend_from_slice(key);
                    let fresh = Entry {
                        start,
                        end: self.arena.len(),
                        persisted: false,
                        count: None,
                        dirty: false,
                    };
                    overlay.extra.insert(i, fresh);
                    i
                });
                &mut overlay.extra[i]
            }
        };
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
        let arena = self.arena.as_slice();
        let preloaded = &self.entries[overlay.start..overlay.end];
        let extreme_of = |entries: &[Entry]| {
            let mut present = entries
                .iter()
                .filter(|e| e.count.is_some())
                .map(|e| &arena[e.start..e.end]);
            if last {
                present.next_back()
            } else {
                present.next()
            }
        };
        let from_overlay = match (extreme_of(preloaded), extreme_of(&overlay.extra)) {
            (Some(a), Some(b)) => Some(if (a > b) == last { a } else { b }),
            (a, b) => a.or(b),
        };
        let held =
            |k: &[u8]| find(preloaded, arena, k).is_ok() || find(&overlay.extra, arena, k).is_ok();

        let mut from_store: Option<Vec<u8>> = None;
        if !overlay.holds_all_stored() {
            let mut failure = None;
            let mut visit = |k: &[u8], v: &[u8]| {
                // The overlay is authoritative for the keys it holds.
                if held(k) {
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
        let best = match (from_overlay, from_store.as_deref()) {
            (Some(a), Some(b)) => Some(if (a > b) == last { a } else { b }),
            (a, b) => a.or(b),
        };
        Ok(best.map(|k| k[prefix.len()..].to_vec()))
    }

    /// Removes every entry of map `map` (Flink's `function.cleanup()`).
    pub(crate) fn clear(&mut self, map: usize) {
        let overlay = &mut self.overlays[map];
        let preloaded = &mut self.entries[overlay.start..overlay.end];
        for entry in preloaded.iter_mut().chain(overlay.extra.iter_mut()) {
            entry.count = None;
            entry.dirty = true;
        }
        overlay.cleared = true;
    }

    /// Adds the bundle's changes to `batch`, visiting maps in `order` as `(map, group key,
    /// call)`: a map's key prefix is `[group key][call]` (the caller passes them in key
    /// order, so the batch is sorted).
    pub(crate) fn finish<'p>(
        &mut self,
        store: &dyn StateBackend,
        batch: &mut WriteBatch,
        order: impl Iterator<Item = (usize, &'p [u8], u8)>,
    ) -> Result<()> {
        let mut value = Vec::new();
        let mut prefix = Vec::new();
        for (map, group_key, call) in order {
            let overlay = std::mem::take(&mut self.overlays[map]);
            let arena = self.arena.as_slice();
            let preloaded = &self.entries[overlay.start..overlay.end];
            // Stored entries the bundle never touched must be found to be deleted; when the
            // accumulator's entry count says there are none, skip the seek.
            if overlay.cleared && !overlay.preloaded_all() {
                prefix.clear();
                prefix.extend_from_slice(group_key);
                prefix.push(call);
                store.scan(self.table, ScanRange::Prefix(&prefix), &mut |k, _| {
                    let held =
                        find(preloaded, arena, k).is_ok() || find(&overlay.extra, arena, k).is_ok();
                    if !held {
                        batch.delete(self.table, k);
                    }
                    true
                })?;
            }
            for entry in preloaded.iter().chain(&overlay.extra) {
                if !entry.dirty {
                    continue;
                }
                let key = &arena[entry.start..entry.end];
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
        self.arena.clear();
        Ok(())
    }
}
