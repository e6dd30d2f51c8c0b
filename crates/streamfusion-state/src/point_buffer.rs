//! A write-back buffer in front of RocksDB for point and queue tables (decisions 0043 and
//! 0046).
//!
//! A point table's values are read and rewritten by key every bundle (a GROUP BY's
//! accumulators, a session's state, a join's rows). Written straight to RocksDB, every
//! rewrite adds a version to the memtable's skip list, and every read then walks a list of
//! up to a million versions, far larger than the CPU's caches (decision 0025). The buffer
//! keeps only the newest value or deletion of each written key, in a hash table; RocksDB
//! sees each key once per flush, in key order.
//!
//! A queue table's entries (timers) are written once, found by a scan from the front and
//! deleted soon after. The buffer keeps them in key order, and scans of the table read it
//! merged with RocksDB ([`PointBuffer::range`]) instead of flushing it.
//!
//! Each entry knows whether RocksDB may hold an older version of its key: not when the table
//! held nothing in RocksDB when it was written, or when a read had just found the key absent
//! there ([`PointBuffer::note_absent`]). Deleting such an entry forgets it, so a slice or
//! timer that lives and dies between two flushes never reaches RocksDB, not even as a
//! tombstone.
//!
//! [`RocksBackend`](crate::rocks::RocksBackend) flushes the buffer in one atomic RocksDB
//! write when a batch would outgrow it, before every checkpoint, and before every scan of a
//! point table or range operation, so a checkpoint holds exactly what a write-through
//! store's would. Like the memtable it stands in front of, it is not durable: with the
//! write-ahead log off, only checkpoints are.

use std::collections::BTreeMap;
use std::ops::Bound;

use hashbrown::HashMap;

/// Bytes an entry costs beyond its key and value: its table slot and its two allocations.
pub(crate) const ENTRY_OVERHEAD: usize = 64;

/// A buffered key's newest write.
#[derive(Debug)]
struct Slot {
    /// The value; `None` deletes.
    value: Option<Vec<u8>>,
    /// Whether RocksDB may hold the key, so that deleting it must reach RocksDB. A slot
    /// with neither a value nor this is only a known absence, which a flush skips.
    below: bool,
}

/// How a buffered table keeps its writes.
#[derive(Debug)]
enum Writes {
    /// By hash: point reads only; scans flush first.
    Point(HashMap<Vec<u8>, Slot>),
    /// In key order: scans merge it with RocksDB.
    Queue(BTreeMap<Vec<u8>, Slot>),
}

/// A buffered table.
#[derive(Debug)]
struct Table {
    writes: Writes,
    /// Whether RocksDB may hold any key of the table: `false` for a table that held none
    /// when it was opened, until a value of it reaches RocksDB.
    in_rocks: bool,
}

/// Which structure a buffered table's writes wait in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Point reads and writes ([`crate::TableAccess::Point`]).
    Point,
    /// Short-lived entries scanned from the front ([`crate::TableAccess::Queue`]).
    Queue,
}

/// A waiting write: table index, key, and value (`None` deletes).
pub(crate) type Entry<'a> = (usize, &'a [u8], Option<&'a [u8]>);

/// The newest write of each buffered key, per table.
#[derive(Debug, Default)]
pub(crate) struct PointBuffer {
    /// By table index: `None` for a table that is not buffered.
    tables: Vec<Option<Table>>,
    /// The entries' estimated bytes ([`entry_bytes`]).
    bytes: usize,
    /// The part of `bytes` that is known absences, at most [`PointBuffer::absences_cap`].
    absent_bytes: usize,
    capacity: usize,
}

/// What the buffer knows of a key.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lookup<'a> {
    /// Written with this value.
    Value(&'a [u8]),
    /// Deleted, or known to be absent.
    Deleted,
    /// Not written since the last flush: RocksDB has its value.
    Miss,
}

/// The estimated bytes of one entry.
pub(crate) fn entry_bytes(key: &[u8], value: Option<&[u8]>) -> usize {
    key.len() + value.map_or(0, <[u8]>::len) + ENTRY_OVERHEAD
}

impl Slot {
    fn lookup(&self) -> Lookup<'_> {
        match &self.value {
            Some(value) => Lookup::Value(value),
            None => Lookup::Deleted,
        }
    }

    /// Whether a flush must write this slot: a value, or a deletion RocksDB may need.
    fn is_write(&self) -> bool {
        self.value.is_some() || self.below
    }
}

impl Writes {
    fn get(&self, key: &[u8]) -> Option<&Slot> {
        match self {
            Writes::Point(map) => map.get(key),
            Writes::Queue(map) => map.get(key),
        }
    }

    fn get_mut(&mut self, key: &[u8]) -> Option<&mut Slot> {
        match self {
            Writes::Point(map) => map.get_mut(key),
            Writes::Queue(map) => map.get_mut(key),
        }
    }

    fn insert(&mut self, key: &[u8], slot: Slot) {
        match self {
            Writes::Point(map) => map.insert(key.to_vec(), slot),
            Writes::Queue(map) => map.insert(key.to_vec(), slot),
        };
    }

    fn remove(&mut self, key: &[u8]) {
        match self {
            Writes::Point(map) => map.remove(key),
            Writes::Queue(map) => map.remove(key),
        };
    }

    fn len(&self) -> usize {
        match self {
            Writes::Point(map) => map.len(),
            Writes::Queue(map) => map.len(),
        }
    }

    fn slots(&self) -> Box<dyn Iterator<Item = (&Vec<u8>, &Slot)> + '_> {
        match self {
            Writes::Point(map) => Box::new(map.iter()),
            Writes::Queue(map) => Box::new(map.iter()),
        }
    }

    fn clear(&mut self) {
        match self {
            // Keep the table's room only while it is modest: a buffer that filled with a
            // one-off burst gives its memory back.
            Writes::Point(map) if map.capacity() > 1 << 16 => *map = HashMap::new(),
            Writes::Point(map) => map.clear(),
            Writes::Queue(map) => map.clear(),
        }
    }
}

impl PointBuffer {
    /// A buffer of about `capacity` bytes; 0 writes every batch through.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            tables: Vec::new(),
            bytes: 0,
            absent_bytes: 0,
            capacity,
        }
    }

    /// The most bytes known absences may take: a quarter of the buffer, so that reads that
    /// find nothing (a join probing keys the other side never had) cannot crowd out writes.
    fn absences_cap(&self) -> usize {
        self.capacity / 4
    }

    /// Buffers writes of table `index` from now on, as `kind` says; `in_rocks`: whether
    /// RocksDB holds any of its keys now. A table already buffered keeps its writes.
    pub(crate) fn buffer_table(&mut self, index: usize, kind: Kind, in_rocks: bool) {
        if self.tables.len() <= index {
            self.tables.resize_with(index + 1, || None);
        }
        self.tables[index].get_or_insert_with(|| Table {
            writes: match kind {
                Kind::Point => Writes::Point(HashMap::new()),
                Kind::Queue => Writes::Queue(BTreeMap::new()),
            },
            in_rocks,
        });
    }

    fn table(&self, index: usize) -> Option<&Table> {
        self.tables.get(index).and_then(Option::as_ref)
    }

    /// Whether writes of table `index` are buffered.
    pub(crate) fn is_buffered(&self, index: usize) -> bool {
        self.table(index).is_some()
    }

    /// Whether table `index` is a buffered queue table, whose scans merge the buffer.
    pub(crate) fn is_queue(&self, index: usize) -> bool {
        self.table(index)
            .is_some_and(|t| matches!(t.writes, Writes::Queue(_)))
    }

    /// Whether RocksDB may hold keys of table `index` (always, for a table not buffered).
    pub(crate) fn in_rocks(&self, index: usize) -> bool {
        self.table(index).is_none_or(|t| t.in_rocks)
    }

    /// Values of table `index` reached RocksDB other than through a flush of the buffer.
    pub(crate) fn wrote_through(&mut self, index: usize) {
        if let Some(Some(table)) = self.tables.get_mut(index) {
            table.in_rocks = true;
        }
    }

    /// Whether no write waits for a flush.
    pub(crate) fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// Whether table `index` has nothing in the buffer.
    pub(crate) fn is_empty_table(&self, index: usize) -> bool {
        self.table(index).is_none_or(|t| t.writes.len() == 0)
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
        match self.table(index).and_then(|t| t.writes.get(key)) {
            Some(slot) => slot.lookup(),
            None => Lookup::Miss,
        }
    }

    /// Records that RocksDB does not hold `key` of buffered table `index` (a read just
    /// found it absent), so that the key, once written, can be forgotten when deleted.
    /// Only while the entry fits in its share ([`PointBuffer::absences_cap`]): a known
    /// absence is a hint, not a write.
    pub(crate) fn note_absent(&mut self, index: usize, key: &[u8]) {
        let bytes = entry_bytes(key, None);
        if !self.fits(bytes) || self.absent_bytes + bytes > self.absences_cap() {
            return;
        }
        let Some(Some(table)) = self.tables.get_mut(index) else {
            return;
        };
        if table.writes.get(key).is_none() {
            table.writes.insert(
                key,
                Slot {
                    value: None,
                    below: false,
                },
            );
            self.bytes += bytes;
            self.absent_bytes += bytes;
        }
    }

    /// Records a put (`Some`) or delete (`None`) of `key` in buffered table `index`, reusing
    /// the entry's allocations where the key was written before. Deleting a key RocksDB
    /// does not hold forgets it.
    pub(crate) fn apply(&mut self, index: usize, key: &[u8], value: Option<&[u8]>) {
        let Some(Some(table)) = self.tables.get_mut(index) else {
            debug_assert!(false, "table {index} is not buffered");
            return;
        };
        if let Some(slot) = table.writes.get_mut(key) {
            self.bytes -= entry_bytes(key, slot.value.as_deref());
            if !slot.is_write() {
                self.absent_bytes -= entry_bytes(key, None);
            }
            if value.is_none() && !slot.below {
                table.writes.remove(key);
                return;
            }
            match (slot.value.as_mut(), value) {
                (Some(old), Some(value)) => {
                    old.clear();
                    old.extend_from_slice(value);
                }
                (_, value) => slot.value = value.map(<[u8]>::to_vec),
            }
        } else {
            let below = table.in_rocks;
            if value.is_none() && !below {
                return;
            }
            table.writes.insert(
                key,
                Slot {
                    value: value.map(<[u8]>::to_vec),
                    below,
                },
            );
        }
        self.bytes += entry_bytes(key, value);
    }

    /// The entries of queue table `index` in `[start, end)` (`end` `None`: to the table's
    /// end) in key order, each with its value or `None` where deleted or absent.
    pub(crate) fn range<'a>(
        &'a self,
        index: usize,
        start: &'a [u8],
        end: Option<&'a [u8]>,
    ) -> impl Iterator<Item = (&'a [u8], Option<&'a [u8]>)> + 'a {
        let map = match self.table(index).map(|t| &t.writes) {
            Some(Writes::Queue(map)) => Some(map),
            _ => None,
        };
        let end = end.map_or(Bound::Unbounded, Bound::Excluded);
        map.into_iter().flat_map(move |map| {
            map.range::<[u8], _>((Bound::Included(start), end))
                .map(|(k, slot)| (k.as_slice(), slot.value.as_deref()))
        })
    }

    /// Every waiting write as (table index, key, value), each table's in ascending key order:
    /// the order RocksDB's memtable inserts fastest. Known absences are not writes.
    pub(crate) fn sorted_entries(&self) -> Vec<Entry<'_>> {
        let mut out = Vec::new();
        for (index, table) in self.tables.iter().enumerate() {
            let Some(table) = table else { continue };
            let start = out.len();
            out.extend(
                table
                    .writes
                    .slots()
                    .filter(|(_, slot)| slot.is_write())
                    .map(|(k, slot)| (index, k.as_slice(), slot.value.as_deref())),
            );
            if matches!(table.writes, Writes::Point(_)) {
                out[start..].sort_unstable_by(|a, b| a.1.cmp(b.1));
            }
        }
        out
    }

    /// Forgets every waiting write (after RocksDB took them), keeping which tables are
    /// buffered; a table whose values RocksDB took may now hold keys there.
    pub(crate) fn clear(&mut self) {
        for table in self.tables.iter_mut().flatten() {
            if !table.in_rocks {
                table.in_rocks = table.writes.slots().any(|(_, slot)| slot.value.is_some());
            }
            table.writes.clear();
        }
        self.bytes = 0;
        self.absent_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_write_of_a_key_wins_and_bytes_follow_it() {
        let mut buffer = PointBuffer::new(1 << 20);
        buffer.buffer_table(1, Kind::Point, true);
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
        buffer.buffer_table(0, Kind::Point, true);
        buffer.buffer_table(2, Kind::Queue, true);
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

    #[test]
    fn a_key_rocksdb_does_not_hold_is_forgotten_when_deleted() {
        let mut buffer = PointBuffer::new(1 << 20);
        // Table 0 held nothing in RocksDB; table 1 did.
        buffer.buffer_table(0, Kind::Queue, false);
        buffer.buffer_table(1, Kind::Point, true);
        for t in [0, 1] {
            buffer.apply(t, b"k", Some(b"v"));
            buffer.apply(t, b"k", None);
            buffer.apply(t, b"never", None);
        }
        // Table 0 forgot both keys; table 1 must delete both in RocksDB.
        let writes: Vec<(usize, &[u8], bool)> = buffer
            .sorted_entries()
            .into_iter()
            .map(|(t, k, v)| (t, k, v.is_some()))
            .collect();
        assert_eq!(writes, vec![(1, &b"k"[..], false), (1, b"never", false)]);
        assert_eq!(buffer.get(0, b"k"), Lookup::Miss);
        assert_eq!(buffer.bytes(), 2 * ENTRY_OVERHEAD + 1 + 5);

        // A read that found a key absent makes it forgettable in table 1 too, and the
        // absence itself reads as deleted but is no write.
        buffer.note_absent(1, b"fresh");
        assert_eq!(buffer.get(1, b"fresh"), Lookup::Deleted);
        assert_eq!(buffer.sorted_entries().len(), 2);
        buffer.apply(1, b"fresh", Some(b"x"));
        buffer.apply(1, b"fresh", None);
        assert_eq!(buffer.get(1, b"fresh"), Lookup::Miss);
        // Absences take at most a quarter of the buffer.
        let mut small = PointBuffer::new(4 * entry_bytes(b"a", None));
        small.buffer_table(0, Kind::Point, true);
        small.note_absent(0, b"a");
        small.note_absent(0, b"b");
        assert_eq!(small.get(0, b"a"), Lookup::Deleted);
        assert_eq!(small.get(0, b"b"), Lookup::Miss);
        small.apply(0, b"a", Some(b""));
        small.note_absent(0, b"b");
        assert_eq!(small.get(0, b"b"), Lookup::Deleted);

        // Once a value of table 0 reached RocksDB, its deletions must reach it too.
        buffer.apply(0, b"kept", Some(b"v"));
        buffer.clear();
        assert!(buffer.in_rocks(0));
        buffer.apply(0, b"kept", None);
        assert_eq!(buffer.sorted_entries(), vec![(0, &b"kept"[..], None)]);
    }

    #[test]
    fn a_queue_table_reads_a_key_range_in_order_with_its_deletions() {
        let mut buffer = PointBuffer::new(1 << 20);
        buffer.buffer_table(3, Kind::Queue, true);
        for key in [b"d", b"b", b"a", b"c"] {
            buffer.apply(3, key, Some(key));
        }
        buffer.apply(3, b"c", None);
        let range: Vec<(&[u8], Option<&[u8]>)> = buffer.range(3, b"b", Some(b"d")).collect();
        assert_eq!(range, vec![(&b"b"[..], Some(&b"b"[..])), (b"c", None)]);
        assert_eq!(buffer.range(3, b"a", None).count(), 4);
        assert!(buffer.is_queue(3) && !buffer.is_queue(0));
    }
}
