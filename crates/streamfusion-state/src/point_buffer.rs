//! A write-back buffer in front of RocksDB for point tables (decision 0043).
//!
//! A point table's values are read and rewritten by key every bundle (a GROUP BY's
//! accumulators, a session's state, a join's rows). Written straight to RocksDB, every
//! rewrite adds a version to the memtable's skip list, and every read then walks a list of
//! up to a million versions, far larger than the CPU's caches (decision 0025). The buffer
//! keeps only the newest value or deletion of each written key, in a hash table; RocksDB
//! sees each key once per flush, in key order.
//!
//! [`RocksBackend`](crate::rocks::RocksBackend) flushes it in one atomic RocksDB write when a
//! batch would outgrow it, before every checkpoint, and before every scan or range
//! operation, so everything but point reads sees RocksDB alone and a checkpoint holds exactly
//! what a write-through store's would. Like the memtable it stands in front of, it is not
//! durable: with the write-ahead log off, only checkpoints are.

use hashbrown::HashMap;

/// Bytes an entry costs beyond its key and value: its table slot and its two allocations.
pub(crate) const ENTRY_OVERHEAD: usize = 64;

/// One table's newest writes by key: `None` deletes.
type TableWrites = HashMap<Vec<u8>, Option<Vec<u8>>>;

/// A waiting write: table index, key, and value (`None` deletes).
pub(crate) type Entry<'a> = (usize, &'a [u8], Option<&'a [u8]>);

/// The newest write of each buffered key, per table.
#[derive(Debug, Default)]
pub(crate) struct PointBuffer {
    /// By table index: `None` for a table that is not buffered.
    tables: Vec<Option<TableWrites>>,
    /// The entries' estimated bytes ([`entry_bytes`]).
    bytes: usize,
    capacity: usize,
}

/// What the buffer knows of a key.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lookup<'a> {
    /// Written with this value.
    Value(&'a [u8]),
    /// Deleted.
    Deleted,
    /// Not written since the last flush: RocksDB has its value.
    Miss,
}

/// The estimated bytes of one entry.
pub(crate) fn entry_bytes(key: &[u8], value: Option<&[u8]>) -> usize {
    key.len() + value.map_or(0, <[u8]>::len) + ENTRY_OVERHEAD
}

impl PointBuffer {
    /// A buffer of about `capacity` bytes; 0 writes every batch through.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            tables: Vec::new(),
            bytes: 0,
            capacity,
        }
    }

    /// Buffers writes of table `index` from now on.
    pub(crate) fn buffer_table(&mut self, index: usize) {
        if self.tables.len() <= index {
            self.tables.resize_with(index + 1, || None);
        }
        self.tables[index].get_or_insert_with(HashMap::new);
    }

    /// Whether writes of table `index` are buffered.
    pub(crate) fn is_buffered(&self, index: usize) -> bool {
        matches!(self.tables.get(index), Some(Some(_)))
    }

    /// Whether no write waits for a flush.
    pub(crate) fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// Whether table `index` has no write waiting for a flush.
    pub(crate) fn is_empty_table(&self, index: usize) -> bool {
        match self.tables.get(index) {
            Some(Some(map)) => map.is_empty(),
            _ => true,
        }
    }

    /// The estimated bytes of the waiting writes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The capacity in bytes.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether `extra` more bytes of entries still fit.
    pub(crate) fn fits(&self, extra: usize) -> bool {
        self.bytes.saturating_add(extra) <= self.capacity
    }

    /// What the buffer knows of `key` in table `index`.
    pub(crate) fn get(&self, index: usize, key: &[u8]) -> Lookup<'_> {
        match self.tables.get(index) {
            Some(Some(map)) => match map.get(key) {
                Some(Some(value)) => Lookup::Value(value),
                Some(None) => Lookup::Deleted,
                None => Lookup::Miss,
            },
            _ => Lookup::Miss,
        }
    }

    /// Records a put (`Some`) or delete (`None`) of `key` in buffered table `index`, reusing
    /// the entry's allocations where the key was written before.
    pub(crate) fn apply(&mut self, index: usize, key: &[u8], value: Option<&[u8]>) {
        let Some(Some(map)) = self.tables.get_mut(index) else {
            debug_assert!(false, "table {index} is not buffered");
            return;
        };
        match map.get_mut(key) {
            Some(old) => {
                self.bytes -= entry_bytes(key, old.as_deref());
                match (old.as_mut(), value) {
                    (Some(old), Some(value)) => {
                        old.clear();
                        old.extend_from_slice(value);
                    }
                    (_, value) => *old = value.map(<[u8]>::to_vec),
                }
            }
            None => {
                map.insert(key.to_vec(), value.map(<[u8]>::to_vec));
            }
        }
        self.bytes += entry_bytes(key, value);
    }

    /// Every waiting write as (table index, key, value), each table's in ascending key order:
    /// the order RocksDB's memtable inserts fastest.
    pub(crate) fn sorted_entries(&self) -> Vec<Entry<'_>> {
        let mut out = Vec::new();
        for (index, map) in self.tables.iter().enumerate() {
            let Some(map) = map else { continue };
            let start = out.len();
            out.extend(map.iter().map(|(k, v)| (index, k.as_slice(), v.as_deref())));
            out[start..].sort_unstable_by(|a, b| a.1.cmp(b.1));
        }
        out
    }

    /// Forgets every waiting write (after RocksDB took them), keeping which tables are
    /// buffered.
    pub(crate) fn clear(&mut self) {
        for map in self.tables.iter_mut().flatten() {
            // Keep the table's room only while it is modest: a buffer that filled with a
            // one-off burst gives its memory back.
            if map.capacity() > 1 << 16 {
                *map = HashMap::new();
            } else {
                map.clear();
            }
        }
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_write_of_a_key_wins_and_bytes_follow_it() {
        let mut buffer = PointBuffer::new(1 << 20);
        buffer.buffer_table(1);
        assert!(!buffer.is_buffered(0) && buffer.is_buffered(1));
        assert_eq!(buffer.get(1, b"k"), Lookup::Miss);
        buffer.apply(1, b"k", Some(b"first"));
        buffer.apply(1, b"k", Some(b"2nd"));
        assert_eq!(buffer.get(1, b"k"), Lookup::Value(b"2nd"));
        assert_eq!(buffer.bytes(), 1 + 3 + ENTRY_OVERHEAD);
        buffer.apply(1, b"k", None);
        assert_eq!(buffer.get(1, b"k"), Lookup::Deleted);
        assert_eq!(buffer.bytes(), 1 + ENTRY_OVERHEAD);
        buffer.apply(1, b"k", Some(b"back"));
        assert_eq!(buffer.get(1, b"k"), Lookup::Value(b"back"));
        assert_eq!(buffer.bytes(), 1 + 4 + ENTRY_OVERHEAD);
    }

    #[test]
    fn entries_come_out_sorted_per_table_and_clear_empties_the_buffer() {
        let mut buffer = PointBuffer::new(1 << 20);
        buffer.buffer_table(0);
        buffer.buffer_table(2);
        for key in [b"c", b"a", b"b"] {
            buffer.apply(2, key, Some(key));
            buffer.apply(0, key, None);
        }
        let entries: Vec<(usize, Vec<u8>, bool)> = buffer
            .sorted_entries()
            .into_iter()
            .map(|(t, k, v)| (t, k.to_vec(), v.is_some()))
            .collect();
        let expected: Vec<(usize, Vec<u8>, bool)> = [0, 2]
            .into_iter()
            .flat_map(|t| [b"a", b"b", b"c"].map(|k| (t, k.to_vec(), t == 2)))
            .collect();
        assert_eq!(entries, expected);
        assert!(!buffer.fits(buffer.capacity()));
        buffer.clear();
        assert!(buffer.is_empty() && buffer.is_empty_table(2) && buffer.is_buffered(2));
        assert_eq!(buffer.get(2, b"a"), Lookup::Miss);
    }
}
