//! One input's rows under one join key: Flink's `JoinRecordStateView`s and their outer
//! forms (`OuterJoinRecordStateViews`), kept as one value per key and input (decision 0035).
//!
//! | [`Layout`] | Flink's view | a row added | a row retracted |
//! |---|---|---|---|
//! | `JoinKey` | `JoinKeyContainsUniqueKey`: `ValueState` | replaces the row | clears the key |
//! | `UniqueKey` | `InputSideHasUniqueKey`: `MapState<uk, row>` | put by its unique key | removed by its unique key |
//! | `NoUniqueKey` | `InputSideHasNoUniqueKey`: `MapState<row, count>` | counted | one copy less; an unknown row changes nothing |
//!
//! An outer input's records also carry `numOfAssociations` ([`Record::assoc`]): how many
//! rows of the other input match, which decides when its NULL-padded row is emitted or
//! retracted. Adding a `NoUniqueKey` row that is already there sets the association count
//! of all its copies, as Flink's `addRecord(record, n)` does.
//!
//! Rows are compared as Flink's state compares them: their `BinaryRowData` bytes with the
//! `+I` header (the operator erases the kind before it touches state). Records iterate in
//! the order they were first added, a removed record's place taken by the last one; Flink's
//! order is the heap map's or RocksDB's key order, which differ from each other, so no
//! consumer can depend on the order of the rows one input row joins.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

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
}

impl Record {
    /// What identifies the record under `layout`.
    fn lookup(&self, layout: Layout) -> &[u8] {
        match layout {
            Layout::UniqueKey => &self.unique,
            Layout::JoinKey | Layout::NoUniqueKey => &self.row,
        }
    }

    fn bytes(&self) -> usize {
        24 + self.row.len() + self.unique.len()
    }
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

/// The rows of one input under one join key.
#[derive(Debug, Default)]
pub struct Side {
    records: Vec<Record>,
    index: Option<Index>,
    /// About the bytes of the encoding.
    bytes: usize,
}

impl Side {
    /// The records, in iteration order.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
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
        };
        match layout {
            Layout::JoinKey => {
                self.clear();
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
                }
                None => self.push(layout, fresh()),
            },
        }
    }

    /// Flink's `retractRecord(record)` at processing time `now`.
    pub fn retract(&mut self, layout: Layout, row: &[u8], unique: &[u8], now: i64) {
        match layout {
            Layout::JoinKey => self.clear(),
            Layout::UniqueKey => {
                if let Some(at) = self.find(layout, unique) {
                    self.remove(layout, at);
                }
            }
            Layout::NoUniqueKey => {
                if let Some(at) = self.find(layout, row) {
                    if self.records[at].count > 1 {
                        self.records[at].count -= 1;
                        self.records[at].written = now;
                    } else {
                        self.remove(layout, at);
                    }
                }
            }
        }
    }

    /// Flink's `updateNumOfAssociations` of the record at `at`, at processing time `now`.
    pub fn set_assoc(&mut self, at: usize, assoc: i32, now: i64) {
        self.records[at].assoc = assoc;
        self.records[at].written = now;
    }

    /// Drops the records whose state TTL of `ttl_ms` expired at `now`, as Flink's state,
    /// which never returns an expired value, has them gone (an expired record's timestamp
    /// plus the TTL is at or before `now`). Returns whether any was dropped.
    pub fn expire(&mut self, ttl_ms: i64, now: i64) -> bool {
        let before = self.records.len();
        self.records
            .retain(|r| r.written.saturating_add(ttl_ms) > now);
        if self.records.len() == before {
            return false;
        }
        self.index = None;
        self.bytes = self.records.iter().map(Record::bytes).sum();
        true
    }

    fn clear(&mut self) {
        self.records.clear();
        self.index = None;
        self.bytes = 0;
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
        let removed = self.records.swap_remove(at);
        self.bytes -= removed.bytes();
    }

    /// The side as stored: the record count, then per record its count, association count,
    /// write time, row and unique key (lengths before bytes), little-endian.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.bytes);
        out.extend_from_slice(&(self.records.len() as u32).to_le_bytes());
        for r in &self.records {
            out.extend_from_slice(&r.count.to_le_bytes());
            out.extend_from_slice(&r.assoc.to_le_bytes());
            out.extend_from_slice(&r.written.to_le_bytes());
            out.extend_from_slice(&(r.row.len() as u32).to_le_bytes());
            out.extend_from_slice(&r.row);
            out.extend_from_slice(&(r.unique.len() as u32).to_le_bytes());
            out.extend_from_slice(&r.unique);
        }
        out
    }

    /// A side [`Side::encode`] wrote.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut reader = Reader { bytes, at: 0 };
        let n = reader.u32()? as usize;
        let mut side = Side {
            records: Vec::with_capacity(n.min(bytes.len() / 16)),
            index: None,
            bytes: 0,
        };
        for _ in 0..n {
            let count = reader.u32()?;
            let assoc = reader.u32()? as i32;
            let written = i64::from_le_bytes(reader.take(8)?.try_into().expect("8 bytes"));
            let row = reader.bytes()?.to_vec();
            let unique = reader.bytes()?.to_vec();
            if count == 0 {
                return Err(Error::State("a join record with no copies".into()));
            }
            let record = Record {
                row,
                unique,
                count,
                assoc,
                written,
            };
            side.bytes += record.bytes();
            side.records.push(record);
        }
        if reader.at != bytes.len() {
            return Err(Error::State(format!(
                "{} bytes after a join side's records",
                bytes.len() - reader.at
            )));
        }
        Ok(side)
    }
}

impl CachedPartition for Side {
    fn estimated_bytes(&self) -> usize {
        // The index is about one word per record.
        self.bytes + 8 * self.records.len() * usize::from(self.index.is_some())
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| Error::State("a join side's records are cut short".into()))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model of Flink's views: a list of (lookup, row, count, assoc), searched linearly.
    #[derive(Default)]
    struct Model(Vec<(Vec<u8>, Vec<u8>, u32, i32)>);

    const NOW: i64 = 7;

    impl Model {
        fn add(&mut self, layout: Layout, row: &[u8], unique: &[u8], assoc: i32) {
            let key = if layout == Layout::UniqueKey {
                unique
            } else {
                row
            };
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
            let key = if layout == Layout::UniqueKey {
                unique
            } else {
                row
            };
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

        fn sorted(&self) -> Vec<(Vec<u8>, u32, i32)> {
            let mut v: Vec<_> = self.0.iter().map(|e| (e.1.clone(), e.2, e.3)).collect();
            v.sort();
            v
        }
    }

    fn sorted(side: &Side) -> Vec<(Vec<u8>, u32, i32)> {
        let mut v: Vec<_> = side
            .records()
            .iter()
            .map(|r| (r.row.clone(), r.count, r.assoc))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn every_layout_keeps_what_flinks_view_keeps_across_encodings() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for layout in [Layout::JoinKey, Layout::UniqueKey, Layout::NoUniqueKey] {
            let mut side = Side::default();
            let mut model = Model::default();
            for step in 0..2_000 {
                let unique = [next(6) as u8];
                let row = [unique[0], next(3) as u8];
                let assoc = next(4) as i32;
                match next(10) {
                    0..=5 => {
                        side.add(layout, &row, &unique, assoc, NOW);
                        model.add(layout, &row, &unique, assoc);
                    }
                    6..=8 => {
                        side.retract(layout, &row, &unique, NOW);
                        model.retract(layout, &row, &unique);
                    }
                    _ => {
                        if !side.is_empty() {
                            let at = next(side.records().len() as u64) as usize;
                            side.set_assoc(at, assoc, NOW);
                            let r = &side.records()[at];
                            let key = if layout == Layout::UniqueKey {
                                &r.unique
                            } else {
                                &r.row
                            };
                            model.0.iter_mut().find(|e| &e.0 == key).unwrap().3 = assoc;
                        }
                    }
                }
                assert_eq!(sorted(&side), model.sorted(), "{layout:?} step {step}");
                if step % 7 == 0 {
                    // A decoded side has no index until its first lookup.
                    side = Side::decode(&side.encode()).unwrap();
                }
            }
        }
    }

    #[test]
    fn records_expire_a_ttl_after_their_last_write() {
        let mut side = Side::default();
        let layout = Layout::NoUniqueKey;
        side.add(layout, &[1], &[], 0, 100);
        side.add(layout, &[2], &[], 0, 100);
        side.add(layout, &[3], &[], 0, 150);
        // A second copy is a write: [2] counts from 140.
        side.add(layout, &[2], &[], 0, 140);
        assert!(!side.expire(50, 149));
        assert!(side.expire(50, 150), "[1] expires at 100 + 50");
        let rows: Vec<&[u8]> = side.records().iter().map(|r| &r.row[..]).collect();
        assert_eq!(rows, [&[2][..], &[3][..]]);
        // The index is rebuilt after expiry.
        side.retract(layout, &[3], &[], 190);
        assert_eq!(side.records().len(), 1);
        assert!(side.expire(50, 190));
        assert!(side.is_empty());
    }

    #[test]
    fn a_cut_or_padded_encoding_is_a_state_error() {
        let mut side = Side::default();
        side.add(Layout::NoUniqueKey, &[1, 2, 3], &[], 0, NOW);
        let bytes = side.encode();
        for cut in 0..bytes.len() {
            assert!(Side::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut padded = bytes.clone();
        padded.push(0);
        assert!(Side::decode(&padded).is_err());
        assert_eq!(Side::decode(&bytes).unwrap().records(), side.records());
    }
}
