//! The memory backend's tables: an ordered map, or a hash table for point-access tables.
//!
//! A table opened with [`TableAccess::Point`] (a GROUP BY's accumulators: read and written by
//! key, scanned only by checkpoints and rescaling) is a hash table of single allocations
//! holding key and value together: a put of a new key costs one allocation and no key
//! comparisons along a tree path. Its scans sort the matching keys first, which is fine for
//! checkpoints and rescaling and the reason hot-path scans (sorted maps, timers) stay on
//! [`TableAccess::Ordered`] tables. A table of objects ([`ObjectTable`]) is its operator's,
//! which keeps the values decoded; the table encodes them for everyone else.

use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::ops::Bound;

use hashbrown::{DefaultHashBuilder, HashTable};

use super::TableAccess;
use super::objects::{EntryWriter, ObjectTable};
use crate::error::Result;

/// One table.
#[derive(Debug)]
pub(super) enum Table {
    Ordered(BTreeMap<Vec<u8>, Vec<u8>>),
    Point(PointTable),
    Objects(Box<dyn ObjectTable>),
}

impl Table {
    pub(super) fn new(access: TableAccess) -> Self {
        match access {
            TableAccess::Ordered | TableAccess::Queue => Table::Ordered(BTreeMap::new()),
            TableAccess::Point => Table::Point(PointTable::default()),
        }
    }

    /// This table's contents in a table of `access` (the same table when it already is).
    pub(super) fn into_access(self, access: TableAccess) -> Self {
        match (self, access) {
            (Table::Ordered(map), TableAccess::Point) => {
                let mut table = PointTable::default();
                for (k, v) in map {
                    table.put(&k, &v);
                }
                Table::Point(table)
            }
            (Table::Point(table), TableAccess::Ordered | TableAccess::Queue) => Table::Ordered(
                table
                    .entries
                    .into_iter()
                    .map(|e| (e.key().to_vec(), e.value().to_vec()))
                    .collect(),
            ),
            // Objects belong to their operator, whatever a reader asks.
            (table, _) => table,
        }
    }

    /// The value of `key`; an object table encodes it into `scratch` (emptied first).
    pub(super) fn get<'a>(&'a self, key: &[u8], scratch: &'a mut Vec<u8>) -> Option<&'a [u8]> {
        match self {
            Table::Ordered(map) => map.get(key).map(Vec::as_slice),
            Table::Point(table) => table.get(key),
            Table::Objects(table) => {
                scratch.clear();
                table
                    .get_encoded(key, scratch)
                    .then_some(scratch.as_slice())
            }
        }
    }

    /// Checks that `value` could be put: only an object table refuses values (ones that do
    /// not decode).
    pub(super) fn check(&self, value: &[u8]) -> Result<()> {
        match self {
            Table::Objects(table) => table.check_encoded(value),
            _ => Ok(()),
        }
    }

    /// Puts (`Some`) or deletes (`None`); the length of the value it replaced or removed, if
    /// there was one (of an object, its encoding). Only an object table can fail, on a value
    /// that [`Table::check`] refuses.
    pub(super) fn apply(&mut self, key: &[u8], value: Option<&[u8]>) -> Result<Option<usize>> {
        Ok(match (self, value) {
            (Table::Ordered(map), Some(v)) => map.insert(key.to_vec(), v.to_vec()).map(|v| v.len()),
            (Table::Ordered(map), None) => map.remove(key).map(|v| v.len()),
            (Table::Point(table), Some(v)) => table.put(key, v),
            (Table::Point(table), None) => table.remove(key),
            (Table::Objects(table), value) => {
                let mut old = Vec::new();
                let replaced = table.get_encoded(key, &mut old).then_some(old.len());
                match value {
                    Some(v) => table.put_encoded(key, v)?,
                    None => table.remove(key),
                }
                replaced
            }
        })
    }

    /// Makes room for `additional` more entries where that saves regrowing.
    pub(super) fn reserve(&mut self, additional: usize) {
        if let Table::Point(table) = self {
            table.reserve(additional);
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Table::Ordered(map) => map.len(),
            Table::Point(table) => table.entries.len(),
            Table::Objects(table) => table.len(),
        }
    }

    /// Visits every entry, in no particular order.
    pub(super) fn for_each(&self, visit: &mut dyn FnMut(&[u8], &[u8])) {
        match self {
            Table::Ordered(map) => map.iter().for_each(|(k, v)| visit(k, v)),
            Table::Point(table) => table.entries.iter().for_each(|e| visit(e.key(), e.value())),
            Table::Objects(table) => table.for_each_encoded(visit),
        }
    }

    /// Every entry in key order, passed to `visit` until it fails: what a checkpoint
    /// writes. Stored bytes are borrowed; an object table encodes each value as it goes.
    pub(super) fn try_for_each_sorted(&self, visit: &mut EntryWriter<'_>) -> std::io::Result<()> {
        let mut borrowed: Vec<(&[u8], &[u8])> = match self {
            Table::Ordered(map) => map
                .iter()
                .map(|(k, v)| (k.as_slice(), v.as_slice()))
                .collect(),
            Table::Point(table) => table.entries.iter().map(|e| (e.key(), e.value())).collect(),
            Table::Objects(table) => return table.try_for_each_encoded_sorted(visit),
        };
        borrowed.sort_unstable_by(|a, b| a.0.cmp(b.0));
        borrowed.into_iter().try_for_each(|(k, v)| visit(k, v))
    }

    /// Visits the entries with keys in `[start, end)` (`end` `None`: unbounded) in ascending
    /// (or, with `reverse`, descending) key order until `visit` returns `false`.
    pub(super) fn scan(
        &self,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) {
        let in_range = |k: &[u8]| k >= start && end.is_none_or(|e| k < e);
        match self {
            Table::Ordered(map) => {
                let upper = end.map_or(Bound::Unbounded, Bound::Excluded);
                let mut entries = map.range::<[u8], _>((Bound::Included(start), upper));
                loop {
                    let next = if reverse {
                        entries.next_back()
                    } else {
                        entries.next()
                    };
                    match next {
                        Some((k, v)) if visit(k, v) => {}
                        _ => return,
                    }
                }
            }
            Table::Objects(table) => {
                let mut matching: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
                table.for_each_encoded(&mut |k, v| {
                    if in_range(k) {
                        matching.push((k.to_vec(), v.to_vec()));
                    }
                });
                matching.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                if reverse {
                    matching.reverse();
                }
                for (k, v) in &matching {
                    if !visit(k, v) {
                        return;
                    }
                }
            }
            Table::Point(table) => {
                let mut matching: Vec<&Entry> =
                    table.entries.iter().filter(|e| in_range(e.key())).collect();
                matching.sort_unstable_by(|a, b| a.key().cmp(b.key()));
                if reverse {
                    matching.reverse();
                }
                for e in matching {
                    if !visit(e.key(), e.value()) {
                        return;
                    }
                }
            }
        }
    }
}

/// A hash table of entries, each one allocation: `[key][value]`. A key is hashed once
/// (state keys run to hundreds of bytes): entries keep their hash for growing.
#[derive(Default)]
pub(super) struct PointTable {
    entries: HashTable<Entry>,
    hasher: DefaultHashBuilder,
}

impl std::fmt::Debug for PointTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PointTable")
            .field("entries", &self.entries.len())
            .finish_non_exhaustive()
    }
}

struct Entry {
    hash: u64,
    data: Box<[u8]>,
    key_len: usize,
}

impl Entry {
    fn new(hash: u64, key: &[u8], value: &[u8]) -> Self {
        let mut data = Vec::with_capacity(key.len() + value.len());
        data.extend_from_slice(key);
        data.extend_from_slice(value);
        Self {
            hash,
            data: data.into_boxed_slice(),
            key_len: key.len(),
        }
    }

    fn key(&self) -> &[u8] {
        &self.data[..self.key_len]
    }

    fn value(&self) -> &[u8] {
        &self.data[self.key_len..]
    }
}

impl PointTable {
    fn hash(&self, key: &[u8]) -> u64 {
        self.hasher.hash_one(key)
    }

    /// Makes room for `additional` more entries, so a batch grows the table once.
    pub(super) fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional, |e| e.hash);
    }

    fn get(&self, key: &[u8]) -> Option<&[u8]> {
        self.entries
            .find(self.hash(key), |e| e.key() == key)
            .map(Entry::value)
    }

    /// Puts `value` at `key`; the length of the value it replaced, if any.
    fn put(&mut self, key: &[u8], value: &[u8]) -> Option<usize> {
        let hash = self.hash(key);
        match self
            .entries
            .entry(hash, |e| e.key() == key, |e: &Entry| e.hash)
        {
            hashbrown::hash_table::Entry::Occupied(mut found) => {
                let entry = found.get_mut();
                let replaced = entry.value().len();
                // Same length (an accumulator rewritten in place): no allocation.
                if replaced == value.len() {
                    entry.data[entry.key_len..].copy_from_slice(value);
                } else {
                    *entry = Entry::new(hash, key, value);
                }
                Some(replaced)
            }
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(Entry::new(hash, key, value));
                None
            }
        }
    }

    /// Removes `key`; the length of its value, if it was there.
    fn remove(&mut self, key: &[u8]) -> Option<usize> {
        let found = self
            .entries
            .find_entry(self.hash(key), |e| e.key() == key)
            .ok()?;
        Some(found.remove().0.value().len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry of `table` in key order, by scanning.
    fn scanned(table: &Table, reverse: bool) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut out = Vec::new();
        table.scan(&[], None, reverse, &mut |k, v| {
            out.push((k.to_vec(), v.to_vec()));
            true
        });
        out
    }

    #[test]
    fn point_tables_behave_like_an_ordered_map() {
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut table = Table::new(TableAccess::Point);
        let mut seed = 11u64;
        let mut next = move |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % m
        };
        for step in 0..5000 {
            let key = next(300).to_be_bytes()[5..].to_vec();
            match next(4) {
                // Values of varying length: rewritten in place or reallocated.
                0..=2 => {
                    let value = vec![step as u8; next(6) as usize];
                    table.apply(&key, Some(&value)).unwrap();
                    model.insert(key, value);
                }
                _ => {
                    table.apply(&key, None).unwrap();
                    model.remove(&key);
                }
            }
            let probe = next(300).to_be_bytes()[5..].to_vec();
            assert_eq!(
                table.get(&probe, &mut Vec::new()),
                model.get(&probe).map(Vec::as_slice)
            );
        }
        assert_eq!(table.len(), model.len());
        let expected: Vec<_> = model.clone().into_iter().collect();
        assert_eq!(scanned(&table, false), expected);
        let mut reversed = expected.clone();
        reversed.reverse();
        assert_eq!(scanned(&table, true), reversed);

        // A bounded scan sees exactly the keys in `[start, end)`, and stops when asked.
        let (start, end) = ([0u8, 0, 100], [0u8, 0, 200]);
        let mut seen = Vec::new();
        table.scan(&start, Some(&end), false, &mut |k, _| {
            seen.push(k.to_vec());
            seen.len() < 5
        });
        let want: Vec<Vec<u8>> = model
            .range(start.to_vec()..end.to_vec())
            .take(5)
            .map(|(k, _)| k.clone())
            .collect();
        assert_eq!(seen, want);

        // Converting keeps every entry.
        let ordered = table.into_access(TableAccess::Ordered);
        assert!(matches!(ordered, Table::Ordered(_)));
        assert_eq!(scanned(&ordered, false), expected);
        let point = ordered.into_access(TableAccess::Point);
        assert_eq!(scanned(&point, false), expected);
    }
}
