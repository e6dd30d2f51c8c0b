//! One input's rows under one join key: Flink's `JoinRecordStateView`s and their outer
//! forms (`OuterJoinRecordStateViews`), kept as Flink's RocksDB backend keeps a map state:
//! one store entry per record, under the key's state key (decision 0047).
//!
//! | [`Layout`] | Flink's view | a record's lookup | a row added | a row retracted |
//! |---|---|---|---|---|
//! | `JoinKey` | `JoinKeyContainsUniqueKey`: `ValueState` | none | replaces the row | clears the key |
//! | `UniqueKey` | `InputSideHasUniqueKey`: `MapState<uk, row>` | the unique key | put by its unique key | removed by its unique key |
//! | `NoUniqueKey` | `InputSideHasNoUniqueKey`: `MapState<row, count>` | the row | counted | one copy less; an unknown row changes nothing |
//!
//! A record's entry is `[state key][lookup]` -> its count, association count, write time
//! and (unless the lookup is the row) its row. An outer input's records carry
//! `numOfAssociations` ([`Record::assoc`]): how many rows of the other input match, which
//! decides when its NULL-padded row is emitted or retracted. Adding a `NoUniqueKey` row that
//! is already there sets the association count of all its copies, as Flink's
//! `addRecord(record, n)` does.
//!
//! A [`Side`] holds either every record of its key (read by a prefix scan, or cached: what a
//! probe walks) or only the records a batch's own rows look up (read by point reads: what
//! adding and retracting them needs, as Flink's views `get` and `put` one entry). It knows
//! which records changed since the store had them, so writing it back costs its changes,
//! not its size.
//!
//! Rows are compared as Flink's state compares them: their `BinaryRowData` bytes with the
//! `+I` header (the operator erases the kind before it touches state). A probe walks the
//! records in ascending lookup order, the store's order, whether they were scanned or
//! cached; Flink's order is the heap map's or RocksDB's key order, which differ from each
//! other, so no consumer can depend on the order of the rows one input row joins.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashSet, HashTable};

use crate::error::{Error, Result};
use crate::ops::partition_cache::CachedPartition;

/// How an input keeps its rows, as Flink's `JoinInputSideSpec` decides from the input's
/// unique keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// The join key contains a unique key: one row per join key.
    JoinKey,
    /// The input has a unique key the join key does not contain: rows by unique key.
    UniqueKey,
    /// No unique key: rows with their number of copies.
    NoUniqueKey,
}

/// The bytes of a record's entry value before its row: count, association count, write
/// time.
const VALUE_HEADER: usize = 16;

/// One stored row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The row, `BinaryRowData` bytes with the `+I` header.
    pub row: Vec<u8>,
    /// Its unique key's row (layout `UniqueKey`), else empty.
    pub unique: Vec<u8>,
    /// How many copies of the row there are (layout `NoUniqueKey`), else 1.
    pub count: u32,
    /// Flink's `numOfAssociations` (outer inputs; 0 elsewhere).
    pub assoc: i32,
    /// When the record was last written (processing time, epoch milliseconds): what state
    /// TTL counts from (Flink's `OnCreateAndWrite`).
    pub written: i64,
    /// Changed since the store had it.
    changed: bool,
}

impl Record {
    /// What identifies the record's entry under its key.
    fn lookup(&self, layout: Layout) -> &[u8] {
        match layout {
            Layout::JoinKey => &[],
            Layout::UniqueKey => &self.unique,
            Layout::NoUniqueKey => &self.row,
        }
    }

    fn into_lookup(self, layout: Layout) -> Vec<u8> {
        match layout {
            Layout::JoinKey => Vec::new(),
            Layout::UniqueKey => self.unique,
            Layout::NoUniqueKey => self.row,
        }
    }

    fn bytes(&self) -> usize {
        24 + self.row.len() + self.unique.len()
    }

    /// The entry's value: count, association count and write time (little-endian), then
    /// the row unless the lookup is the row.
    fn value(&self, layout: Layout) -> Vec<u8> {
        let row: &[u8] = if layout == Layout::NoUniqueKey {
            &[]
        } else {
            &self.row
        };
        let mut out = Vec::with_capacity(VALUE_HEADER + row.len());
        out.extend_from_slice(&self.count.to_le_bytes());
        out.extend_from_slice(&self.assoc.to_le_bytes());
        out.extend_from_slice(&self.written.to_le_bytes());
        out.extend_from_slice(row);
        out
    }

    /// The record of an entry [`Record::value`] wrote under `lookup`.
    fn stored(layout: Layout, lookup: &[u8], value: &[u8]) -> Result<Self> {
        if value.len() < VALUE_HEADER {
            return Err(Error::State(format!(
                "a join record's value is {} bytes, under its {VALUE_HEADER}-byte header",
                value.len()
            )));
        }
        let (header, rest) = value.split_at(VALUE_HEADER);
        let word =
            |at: usize| -> [u8; 4] { [header[at], header[at + 1], header[at + 2], header[at + 3]] };
        let count = u32::from_le_bytes(word(0));
        if count == 0 {
            return Err(Error::State("a join record with no copies".into()));
        }
        let mut written = [0; 8];
        written.copy_from_slice(&header[8..16]);
        let (row, unique) = match layout {
            Layout::JoinKey if lookup.is_empty() => (rest.to_vec(), Vec::new()),
            Layout::UniqueKey => (rest.to_vec(), lookup.to_vec()),
            Layout::NoUniqueKey if rest.is_empty() => (lookup.to_vec(), Vec::new()),
            _ => {
                return Err(Error::State(format!(
                    "a join record's entry does not fit layout {layout:?}: lookup of {} bytes, \
                     {} bytes after the header",
                    lookup.len(),
                    rest.len()
                )));
            }
        };
        Ok(Record {
            row,
            unique,
            count,
            assoc: i32::from_le_bytes(word(4)),
            written: i64::from_le_bytes(written),
            changed: false,
        })
    }
}

/// The entry value of a counted (`NoUniqueKey`) row with `count` copies, no associations and
/// no write time: what an inner input without a state TTL stores ([`super::columnar`]).
pub(super) fn counted_value(count: u32) -> Vec<u8> {
    let record = Record {
        row: Vec::new(),
        unique: Vec::new(),
        count,
        assoc: 0,
        written: 0,
        changed: false,
    };
    record.value(Layout::NoUniqueKey)
}

/// The copies of the counted row `row` its entry value `value` holds.
pub(super) fn stored_count(row: &[u8], value: &[u8]) -> Result<u32> {
    Ok(Record::stored(Layout::NoUniqueKey, row, value)?.count)
}

/// Up to this many records a lookup scans them: cheaper than building an index.
const SCANNED: usize = 8;

/// The position of each record by its lookup bytes, built on the first lookup among more
/// than [`SCANNED`] records.
#[derive(Debug)]
struct Index {
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

/// The rows of one input under one join key: all of them, or the ones a batch looks up.
#[derive(Debug)]
pub struct Side {
    records: Vec<Record>,
    index: Option<Index>,
    /// About the bytes of the records.
    bytes: usize,
    /// Whether `records` are in ascending lookup order.
    sorted: bool,
    /// The lookups of records removed since the store had them and not added again.
    removed: HashSet<Vec<u8>>,
    /// Whether anything changed since the store had it.
    dirty: bool,
}

impl Default for Side {
    fn default() -> Self {
        Self {
            records: Vec::new(),
            index: None,
            bytes: 0,
            sorted: true,
            removed: HashSet::new(),
            dirty: false,
        }
    }
}

impl Side {
    /// The records: in ascending lookup order after [`Side::settle`].
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Whether the store has not seen every change yet.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// Adds a record the store holds under `lookup` (`value` its entry's value), as a scan
    /// or a point read returns it.
    pub fn push_stored(&mut self, layout: Layout, lookup: &[u8], value: &[u8]) -> Result<()> {
        let record = Record::stored(layout, lookup, value)?;
        self.push(layout, record);
        Ok(())
    }

    /// Flink's `addRecord(record, assoc)` (`addRecord(record)` on an inner input, `assoc`
    /// then unused) at processing time `now`.
    pub fn add(&mut self, layout: Layout, row: &[u8], unique: &[u8], assoc: i32, now: i64) {
        let fresh = || Record {
            row: row.to_vec(),
            unique: unique.to_vec(),
            count: 1,
            assoc,
            written: now,
            changed: true,
        };
        self.dirty = true;
        match layout {
            Layout::JoinKey => {
                self.clear(layout);
                self.push(layout, fresh());
            }
            Layout::UniqueKey => match self.find(layout, unique) {
                Some(at) => {
                    let old = std::mem::replace(&mut self.records[at], fresh());
                    self.bytes = self.bytes + self.records[at].bytes() - old.bytes();
                }
                None => self.push(layout, fresh()),
            },
            Layout::NoUniqueKey => match self.find(layout, row) {
                Some(at) => {
                    let record = &mut self.records[at];
                    record.count += 1;
                    record.assoc = assoc;
                    record.written = now;
                    record.changed = true;
                }
                None => self.push(layout, fresh()),
            },
        }
    }

    /// Flink's `retractRecord(record)` at processing time `now`.
    pub fn retract(&mut self, layout: Layout, row: &[u8], unique: &[u8], now: i64) {
        match layout {
            Layout::JoinKey => self.clear(layout),
            Layout::UniqueKey => {
                if let Some(at) = self.find(layout, unique) {
                    self.remove(layout, at);
                }
            }
            Layout::NoUniqueKey => {
                if let Some(at) = self.find(layout, row) {
                    let record = &mut self.records[at];
                    if record.count > 1 {
                        record.count -= 1;
                        record.written = now;
                        record.changed = true;
                        self.dirty = true;
                    } else {
                        self.remove(layout, at);
                    }
                }
            }
        }
    }

    /// Flink's `updateNumOfAssociations` of the record at `at`, at processing time `now`.
    pub fn set_assoc(&mut self, at: usize, assoc: i32, now: i64) {
        let record = &mut self.records[at];
        record.assoc = assoc;
        record.written = now;
        record.changed = true;
        self.dirty = true;
    }

    /// Drops the records whose state TTL of `ttl_ms` expired at `now`, as Flink's state,
    /// which never returns an expired value, has them gone (an expired record's timestamp
    /// plus the TTL is at or before `now`).
    pub fn expire(&mut self, layout: Layout, ttl_ms: i64, now: i64) {
        let live = |r: &Record| r.written.saturating_add(ttl_ms) > now;
        if self.records.iter().all(live) {
            return;
        }
        let (kept, expired): (Vec<Record>, Vec<Record>) = std::mem::take(&mut self.records)
            .into_iter()
            .partition(live);
        self.records = kept;
        self.removed
            .extend(expired.into_iter().map(|r| r.into_lookup(layout)));
        self.index = None;
        self.bytes = self.records.iter().map(Record::bytes).sum();
        self.dirty = true;
    }

    /// Puts the records in ascending lookup order, the order a probe walks them.
    pub fn settle(&mut self, layout: Layout) {
        if !self.sorted {
            self.records
                .sort_unstable_by(|a, b| a.lookup(layout).cmp(b.lookup(layout)));
            self.index = None;
            self.sorted = true;
        }
    }

    /// Passes every change since the store had the side to `op`, as (lookup, new value) or
    /// (lookup, `None`) for a removed record.
    pub fn changes(&self, layout: Layout, mut op: impl FnMut(&[u8], Option<&[u8]>)) {
        for lookup in &self.removed {
            op(lookup, None);
        }
        for record in self.records.iter().filter(|r| r.changed) {
            op(record.lookup(layout), Some(&record.value(layout)));
        }
    }

    /// Marks the side as the store has it, once its [`Side::changes`] are written.
    pub fn mark_written(&mut self) {
        self.removed.clear();
        for record in &mut self.records {
            record.changed = false;
        }
        self.dirty = false;
    }

    fn clear(&mut self, layout: Layout) {
        let records = std::mem::take(&mut self.records);
        self.removed
            .extend(records.into_iter().map(|r| r.into_lookup(layout)));
        self.index = None;
        self.bytes = 0;
        self.sorted = true;
        self.dirty = true;
    }

    fn hash(index: &Index, bytes: &[u8]) -> u64 {
        index.hasher.hash_one(bytes)
    }

    /// The position of the record identified by `key`: a few records are scanned, more are
    /// indexed (the index built on the first such lookup).
    fn find(&mut self, layout: Layout, key: &[u8]) -> Option<usize> {
        let records = &self.records;
        if self.index.is_none() && records.len() <= SCANNED {
            return records.iter().position(|r| r.lookup(layout) == key);
        }
        let index = self.index.get_or_insert_with(|| {
            let mut index = Index {
                table: HashTable::with_capacity(records.len()),
                hasher: DefaultHashBuilder::default(),
            };
            for (at, r) in records.iter().enumerate() {
                let hash = Self::hash(&index, r.lookup(layout));
                index.table.insert_unique(hash, at as u32, |&p| {
                    index.hasher.hash_one(records[p as usize].lookup(layout))
                });
            }
            index
        });
        let hash = Self::hash(index, key);
        index
            .table
            .find(hash, |&p| records[p as usize].lookup(layout) == key)
            .map(|&p| p as usize)
    }

    fn push(&mut self, layout: Layout, record: Record) {
        let at = self.records.len() as u32;
        self.bytes += record.bytes();
        if let Some(last) = self.records.last() {
            self.sorted &= last.lookup(layout) < record.lookup(layout);
        }
        // A lookup removed and added again is written, not deleted.
        if !self.removed.is_empty() {
            self.removed.remove(record.lookup(layout));
        }
        if let Some(index) = &mut self.index {
            let hash = index.hasher.hash_one(record.lookup(layout));
            let records = &self.records;
            let hasher = &index.hasher;
            index.table.insert_unique(hash, at, |&p| {
                hasher.hash_one(records[p as usize].lookup(layout))
            });
        }
        self.records.push(record);
    }

    /// Removes the record at `at`; the last record takes its place.
    fn remove(&mut self, layout: Layout, at: usize) {
        let last = self.records.len() - 1;
        if let Some(index) = &mut self.index {
            let records = &self.records;
            let hash = index.hasher.hash_one(records[at].lookup(layout));
            if let Ok(entry) = index.table.find_entry(hash, |&p| p as usize == at) {
                entry.remove();
            }
            if at != last {
                let hash = index.hasher.hash_one(records[last].lookup(layout));
                if let Some(p) = index.table.find_mut(hash, |&p| p as usize == last) {
                    *p = at as u32;
                }
            }
        }
        self.sorted &= at == last;
        let removed = self.records.swap_remove(at);
        self.bytes -= removed.bytes();
        self.removed.insert(removed.into_lookup(layout));
        self.dirty = true;
    }
}

impl CachedPartition for Side {
    fn estimated_bytes(&self) -> usize {
        // The index is about one word per record.
        let removed: usize = self.removed.iter().map(|l| 24 + l.len()).sum();
        self.bytes + 8 * self.records.len() * usize::from(self.index.is_some()) + removed
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A model of Flink's views: a list of (lookup, row, count, assoc), searched linearly.
    #[derive(Default)]
    struct Model(Vec<(Vec<u8>, Vec<u8>, u32, i32)>);

    const NOW: i64 = 7;

    fn lookup_of<'a>(layout: Layout, row: &'a [u8], unique: &'a [u8]) -> &'a [u8] {
        match layout {
            Layout::JoinKey => &[],
            Layout::UniqueKey => unique,
            Layout::NoUniqueKey => row,
        }
    }

    impl Model {
        fn add(&mut self, layout: Layout, row: &[u8], unique: &[u8], assoc: i32) {
            let key = lookup_of(layout, row, unique);
            match layout {
                Layout::JoinKey => self.0 = vec![(key.to_vec(), row.to_vec(), 1, assoc)],
                Layout::UniqueKey => match self.0.iter_mut().find(|e| e.0 == key) {
                    Some(e) => *e = (key.to_vec(), row.to_vec(), 1, assoc),
                    None => self.0.push((key.to_vec(), row.to_vec(), 1, assoc)),
                },
                Layout::NoUniqueKey => match self.0.iter_mut().find(|e| e.0 == key) {
                    Some(e) => {
                        e.2 += 1;
                        e.3 = assoc;
                    }
                    None => self.0.push((key.to_vec(), row.to_vec(), 1, assoc)),
                },
            }
        }

        fn retract(&mut self, layout: Layout, row: &[u8], unique: &[u8]) {
            let key = lookup_of(layout, row, unique);
            match layout {
                Layout::JoinKey => self.0.clear(),
                _ => {
                    if let Some(at) = self.0.iter().position(|e| e.0 == key) {
                        if layout == Layout::NoUniqueKey && self.0[at].2 > 1 {
                            self.0[at].2 -= 1;
                        } else {
                            self.0.remove(at);
                        }
                    }
                }
            }
        }

        /// The records in lookup order, as a settled side walks them.
        fn walked(&self) -> Vec<(Vec<u8>, u32, i32)> {
            let mut v: Vec<_> = self.0.iter().collect();
            v.sort_by(|a, b| a.0.cmp(&b.0));
            v.into_iter().map(|e| (e.1.clone(), e.2, e.3)).collect()
        }
    }

    /// The records in lookup order; a settled side's [`Side::records`] must be that order.
    fn walked(side: &Side, layout: Layout) -> Vec<(Vec<u8>, u32, i32)> {
        let mut v: Vec<&Record> = side.records().iter().collect();
        v.sort_by(|a, b| a.lookup(layout).cmp(b.lookup(layout)));
        v.into_iter()
            .map(|r| (r.row.clone(), r.count, r.assoc))
            .collect()
    }

    fn as_stored(side: &Side) -> Vec<(Vec<u8>, u32, i32)> {
        side.records()
            .iter()
            .map(|r| (r.row.clone(), r.count, r.assoc))
            .collect()
    }

    /// One key's entries, by lookup, as a store holds them.
    type Store = BTreeMap<Vec<u8>, Vec<u8>>;

    fn write(side: &mut Side, layout: Layout, store: &mut Store) {
        side.changes(layout, |lookup, value| match value {
            Some(value) => {
                store.insert(lookup.to_vec(), value.to_vec());
            }
            None => {
                store.remove(lookup);
            }
        });
        side.mark_written();
        assert!(!side.is_dirty());
    }

    /// Every record of the key, as a prefix scan reads them.
    fn scanned(layout: Layout, store: &Store) -> Side {
        let mut side = Side::default();
        for (lookup, value) in store {
            side.push_stored(layout, lookup, value).unwrap();
        }
        side
    }

    /// The records `lookup` finds, as a point read reads them.
    fn looked_up(layout: Layout, store: &Store, lookup: &[u8]) -> Side {
        let mut side = Side::default();
        if let Some(value) = store.get(lookup) {
            side.push_stored(layout, lookup, value).unwrap();
        }
        side
    }

    #[test]
    fn every_layout_keeps_what_flinks_view_keeps_whole_cached_or_looked_up() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for layout in [Layout::JoinKey, Layout::UniqueKey, Layout::NoUniqueKey] {
            // The cached side is written back every few steps; in between, the store is
            // only what was last written, and only the cached side is changed.
            let mut cached = Side::default();
            let mut store = Store::new();
            let mut model = Model::default();
            for step in 0..3_000 {
                let unique = [next(12) as u8];
                let row = [unique[0], next(3) as u8];
                let assoc = next(4) as i32;
                // Steps 0..1000 change the cached side; 1000..2000 sides of the rows'
                // own lookups, read from the store and written back at once; then both.
                let partial = step >= 1_000 && (step < 2_000 || next(2) == 0);
                if partial {
                    write(&mut cached, layout, &mut store);
                    let mut side = looked_up(layout, &store, lookup_of(layout, &row, &unique));
                    if next(10) < 6 {
                        side.add(layout, &row, &unique, assoc, NOW);
                        model.add(layout, &row, &unique, assoc);
                    } else {
                        side.retract(layout, &row, &unique, NOW);
                        model.retract(layout, &row, &unique);
                    }
                    write(&mut side, layout, &mut store);
                    cached = scanned(layout, &store);
                } else {
                    match next(10) {
                        0..=5 => {
                            cached.add(layout, &row, &unique, assoc, NOW);
                            model.add(layout, &row, &unique, assoc);
                        }
                        6..=8 => {
                            cached.retract(layout, &row, &unique, NOW);
                            model.retract(layout, &row, &unique);
                        }
                        _ => {
                            if !cached.is_empty() {
                                let at = next(cached.records().len() as u64) as usize;
                                cached.set_assoc(at, assoc, NOW);
                                let r = &cached.records()[at];
                                let key = lookup_of(layout, &r.row, &r.unique).to_vec();
                                model.0.iter_mut().find(|e| e.0 == key).unwrap().3 = assoc;
                            }
                        }
                    }
                    if step % 7 == 0 {
                        write(&mut cached, layout, &mut store);
                    }
                }
                assert_eq!(
                    walked(&cached, layout),
                    model.walked(),
                    "{layout:?} step {step}"
                );
                if step % 13 == 0 {
                    cached.settle(layout);
                    assert_eq!(as_stored(&cached), model.walked(), "{layout:?} step {step}");
                }
                // A scan reads the store in lookup order.
                let written = cached_copy(&cached, layout, &store);
                assert_eq!(
                    as_stored(&written),
                    model.walked(),
                    "{layout:?} step {step}: the store"
                );
            }
        }
    }

    /// What the store would hold once `cached`'s changes are written, read back whole.
    fn cached_copy(cached: &Side, layout: Layout, store: &Store) -> Side {
        let mut store = store.clone();
        cached.changes(layout, |lookup, value| match value {
            Some(value) => {
                store.insert(lookup.to_vec(), value.to_vec());
            }
            None => {
                store.remove(lookup);
            }
        });
        scanned(layout, &store)
    }

    #[test]
    fn records_expire_a_ttl_after_their_last_write_and_leave_the_store() {
        let layout = Layout::NoUniqueKey;
        let mut side = Side::default();
        let mut store = Store::new();
        side.add(layout, &[1], &[], 0, 100);
        side.add(layout, &[2], &[], 0, 100);
        side.add(layout, &[3], &[], 0, 150);
        // A second copy is a write: [2] counts from 140.
        side.add(layout, &[2], &[], 0, 140);
        write(&mut side, layout, &mut store);
        side.expire(layout, 50, 149);
        assert!(!side.is_dirty());
        side.expire(layout, 50, 150);
        assert!(side.is_dirty(), "[1] expires at 100 + 50");
        write(&mut side, layout, &mut store);
        assert_eq!(store.keys().collect::<Vec<_>>(), [&vec![2], &vec![3]]);
        let rows: Vec<&[u8]> = side.records().iter().map(|r| &r.row[..]).collect();
        assert_eq!(rows, [&[2][..], &[3][..]]);
        side.retract(layout, &[3], &[], 190);
        assert_eq!(side.records().len(), 1);
        side.expire(layout, 50, 190);
        assert!(side.is_empty());
        write(&mut side, layout, &mut store);
        assert!(store.is_empty());
    }

    #[test]
    fn an_entry_that_does_not_fit_its_layout_is_a_state_error() {
        let mut side = Side::default();
        side.add(Layout::UniqueKey, &[1, 2, 3], &[9], 0, NOW);
        let mut entries = Vec::new();
        side.changes(Layout::UniqueKey, |lookup, value| {
            entries.push((lookup.to_vec(), value.unwrap().to_vec()))
        });
        let (lookup, value) = &entries[0];
        for cut in 0..VALUE_HEADER {
            assert!(
                Side::default()
                    .push_stored(Layout::UniqueKey, lookup, &value[..cut])
                    .is_err()
            );
        }
        // A counted row's value holds no row; a JoinKey entry has no lookup.
        assert!(
            Side::default()
                .push_stored(Layout::NoUniqueKey, lookup, value)
                .is_err()
        );
        assert!(
            Side::default()
                .push_stored(Layout::JoinKey, lookup, value)
                .is_err()
        );
        let mut zero = value.clone();
        zero[..4].copy_from_slice(&0u32.to_le_bytes());
        assert!(
            Side::default()
                .push_stored(Layout::UniqueKey, lookup, &zero)
                .is_err()
        );
        let mut read = Side::default();
        read.push_stored(Layout::UniqueKey, lookup, value).unwrap();
        assert_eq!(read.records()[0].row, [1, 2, 3]);
        assert_eq!(read.records()[0].unique, [9]);
    }
}
