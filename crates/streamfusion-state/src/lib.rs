//! StreamFusion's keyed state: one abstraction, two backends (memory and RocksDB),
//! checkpoints. Re-exported by `streamfusion` as `streamfusion::state`.
//!
//! Operators are written once against [`StateBackend`]; the memory and RocksDB backends
//! differ only behind it. Work is batched: [`StateBackend::multi_get`] reads the keys of a
//! whole batch and [`StateBackend::write`] applies one [`WriteBatch`].
//!
//! # Key layout
//!
//! Every state key is
//!
//! ```text
//! +------------------+-----------+----------------+------------------+
//! | key group (u16,  | key       | namespace      | user key         |
//! | big-endian)      | (encoded) | (encoded)      | (map/list state) |
//! +------------------+-----------+----------------+------------------+
//! ```
//!
//! so all state of a key group, and of a key within it, is one contiguous range in byte
//! order: rescaling scans a key-group range, and map/list state scans a key's prefix. The
//! key, namespace and user key encodings must be prefix-free (no encoding is a proper
//! prefix of another of the same kind), which Flink key rows of one row type (the fixed
//! part fixes the row's length), arrow-row encodings and fixed-width encodings are; see
//! [`layout`].
//!
//! A table is a named key space (a RocksDB column family). Value state is one entry per
//! (key, namespace); map and list state use the user key. Timers live in a table too
//! ([`timers`]), so they are checkpointed and rescaled with everything else; operator-wide metadata such as
//! the watermark travels in the checkpoint's metadata bytes ([`checkpoint`]).
//!
//! [`ttl`] gives tables Flink SQL's state time-to-live, and [`budget`] the memory budget
//! that a task's holders (operators, the memory backend, RocksDB) reserve against.
//!
//! Operators keep their per-key rows in typed tables ([`rows::RowTable`]): a codec
//! describes the rows, and the table keeps them decoded on the heap of the memory backend
//! ([`objects`]) or encoded elsewhere, so no operator branches on the backend.

pub mod budget;
pub mod checkpoint;
pub mod memory;
mod memory_table;
pub mod objects;
mod point_buffer;
pub mod rocks;
pub mod rows;
pub mod sections;
pub mod timers;
pub mod ttl;

pub(crate) use streamfusion_core::error;
/// The state-key layout lives with the keys it lays out; here for its old path.
pub use streamfusion_core::keys::layout;

use std::ops::RangeInclusive;
use std::path::Path;

use crate::error::Result;

/// A table of a store, as returned by [`StateBackend::open_table`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableId(pub(crate) usize);

impl TableId {
    /// The table at position `index` of [`StateBackend::table_names`].
    pub fn from_index(index: usize) -> Self {
        Self(index)
    }

    /// This table's position in [`StateBackend::table_names`].
    pub fn index(self) -> usize {
        self.0
    }
}

/// Puts and deletes applied together by [`StateBackend::write`], in order.
///
/// Keys and values are copied into one buffer, so filling a batch of thousands of entries
/// costs no allocation per entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteBatch {
    data: Vec<u8>,
    /// Table, key end and value end (`None` deletes) in `data`; each key starts where the
    /// previous operation ended.
    ops: Vec<(TableId, usize, Option<usize>)>,
}

impl WriteBatch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty batch with room for `ops` operations.
    pub fn with_capacity(ops: usize) -> Self {
        Self {
            data: Vec::new(),
            ops: Vec::with_capacity(ops),
        }
    }

    /// Makes room for `ops` more operations with `bytes` more key and value bytes.
    pub fn reserve(&mut self, ops: usize, bytes: usize) {
        self.ops.reserve(ops);
        self.data.reserve(bytes);
    }

    /// Sets `key` to `value` in `table`.
    pub fn put(&mut self, table: TableId, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) {
        self.data.extend_from_slice(key.as_ref());
        let key_end = self.data.len();
        self.data.extend_from_slice(value.as_ref());
        self.ops.push((table, key_end, Some(self.data.len())));
    }

    /// Removes `key` from `table`.
    pub fn delete(&mut self, table: TableId, key: impl AsRef<[u8]>) {
        self.data.extend_from_slice(key.as_ref());
        self.ops.push((table, self.data.len(), None));
    }

    /// Removes every operation, keeping the allocated room for the next batch.
    pub fn clear(&mut self) {
        self.data.clear();
        self.ops.clear();
    }

    /// The number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The bytes of every key and value together.
    pub fn data_len(&self) -> usize {
        self.data.len()
    }

    /// The operations in order: `None` deletes.
    pub fn ops(&self) -> impl Iterator<Item = (TableId, &[u8], Option<&[u8]>)> {
        let mut start = 0;
        self.ops.iter().map(move |&(table, key_end, value_end)| {
            let key = &self.data[start..key_end];
            let value = value_end.map(|end| &self.data[key_end..end]);
            start = value_end.unwrap_or(key_end);
            (table, key, value)
        })
    }
}

/// Which keys of a table a scan visits, in ascending byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanRange<'a> {
    /// Every key.
    All,
    /// Keys starting with these bytes.
    Prefix(&'a [u8]),
    /// Keys of these key groups.
    KeyGroups(&'a RangeInclusive<u16>),
    /// Keys from `start` (inclusive) to `end` (exclusive).
    Between(&'a [u8], &'a [u8]),
}

impl ScanRange<'_> {
    /// The byte bounds `[start, end)` of the range; `end` is `None` when unbounded.
    pub fn bounds(&self) -> (Vec<u8>, Option<Vec<u8>>) {
        match self {
            ScanRange::All => (Vec::new(), None),
            ScanRange::Prefix(p) => (p.to_vec(), layout::prefix_successor(p)),
            ScanRange::KeyGroups(r) => layout::key_group_bounds(r),
            ScanRange::Between(start, end) => (start.to_vec(), Some(end.to_vec())),
        }
    }
}

/// What a backend kind is called in checkpoint manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// [`memory::MemoryBackend`].
    Memory,
    /// [`rocks::RocksBackend`].
    Rocksdb,
}

/// How an operator reads a table: a hint that lets a backend pick the structure it keeps
/// the table in. Every table supports every operation either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableAccess {
    /// Point reads and writes, and ordered scans on the hot path (sorted maps, timers).
    Ordered,
    /// Point reads and writes; scans only for checkpoints and rescaling, where a backend
    /// may answer them more slowly (the memory backend hashes such tables and sorts on
    /// scan).
    Point,
    /// Ordered, with short-lived entries: each written once, found by a scan from the front
    /// and deleted soon after (timers). RocksDB keeps their writes in its write-back buffer
    /// (decision 0046).
    Queue,
}

/// [`StateBackend::scan_ranges`] as one [`StateBackend::scan`] per range.
pub fn scan_each_range<S: StateBackend + ?Sized>(
    store: &S,
    table: TableId,
    ranges: &[ScanRange<'_>],
    visit: &mut RangeVisitor<'_>,
) -> Result<()> {
    for (i, range) in ranges.iter().enumerate() {
        let mut go = true;
        store.scan(table, *range, &mut |k, v| {
            go = visit(i, k, v);
            go
        })?;
        if !go {
            break;
        }
    }
    Ok(())
}

/// What [`StateBackend::scan_ranges`] calls with each entry: the index of its range, the
/// key and the value; `false` ends the walk.
pub type RangeVisitor<'a> = dyn FnMut(usize, &[u8], &[u8]) -> bool + 'a;

/// Receives [`StateBackend::multi_get_each`]'s values: a key's index and its value (`None`
/// where absent).
pub type ValueVisitor<'v> = dyn FnMut(usize, Option<&[u8]>) -> Result<()> + 'v;

/// A keyed-state store. `Send`, so an operator (and its store) can move between the
/// threads of a task.
pub trait StateBackend: Send {
    /// Which kind of backend this is.
    fn kind(&self) -> BackendKind;

    /// Opens (creating if needed) the table called `name`, for ordered access.
    fn open_table(&mut self, name: &str) -> Result<TableId>;

    /// Opens (creating if needed) the table called `name`, read as `access` says. Backends
    /// without a choice of structure open it as [`StateBackend::open_table`] does.
    fn open_table_with(&mut self, name: &str, access: TableAccess) -> Result<TableId> {
        let _ = access;
        self.open_table(name)
    }

    /// This store as the memory backend, where operators may keep a table's values as
    /// objects ([`memory::MemoryBackend::open_objects`]); `None` for other backends.
    fn memory_mut(&mut self) -> Option<&mut memory::MemoryBackend> {
        None
    }

    /// The bytes of state held in memory: entries of a memory store, the reserved caches of
    /// a budgeted RocksDB store.
    fn memory_bytes(&self) -> u64;

    /// The names of all tables, in [`TableId`] order.
    fn table_names(&self) -> Vec<String>;

    /// Whether a batch of reads or writes of `table` costs less in ascending key order, so
    /// an operator should sort a batch's keys first. RocksDB and ordered tables do (sorted
    /// `MultiGet`, sequential memtable inserts, a warm tree path); the memory backend's
    /// point tables do not: sorting only scatters the batch's accesses.
    fn prefers_key_order(&self, table: TableId) -> bool {
        let _ = table;
        true
    }

    /// The value of each key (`None` where absent), in the order of `keys`.
    fn multi_get(&self, table: TableId, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>>;

    /// Reads each key of `keys` and passes its index and value (`None` where absent) to
    /// `visit`, in the order of `keys`, stopping at the first error `visit` returns: the
    /// batched read without a copy of every value.
    fn multi_get_each(
        &self,
        table: TableId,
        keys: &[&[u8]],
        visit: &mut ValueVisitor<'_>,
    ) -> Result<()> {
        for (i, value) in self.multi_get(table, keys)?.iter().enumerate() {
            visit(i, value.as_deref())?;
        }
        Ok(())
    }

    /// Applies a batch of puts and deletes.
    fn write(&mut self, batch: &WriteBatch) -> Result<()>;

    /// Visits the keys of `range` in ascending order until `visit` returns `false`.
    fn scan(
        &self,
        table: TableId,
        range: ScanRange<'_>,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()>;

    /// Visits the keys of each of `ranges` in turn, passing the range's index, until `visit`
    /// returns `false`: how a batch reads many keys' entries (a prefix each, or from a
    /// floor). Ranges in ascending order cost a backend least (RocksDB walks them with one
    /// iterator, where a scan opens one each); by default, one [`StateBackend::scan`] per
    /// range.
    fn scan_ranges(
        &self,
        table: TableId,
        ranges: &[ScanRange<'_>],
        visit: &mut RangeVisitor<'_>,
    ) -> Result<()> {
        scan_each_range(self, table, ranges, visit)
    }

    /// Visits the keys of `range` in descending order until `visit` returns `false`: how
    /// operators find the largest entry of a sorted map state (MAX with retraction).
    fn scan_rev(
        &self,
        table: TableId,
        range: ScanRange<'_>,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()>;

    /// Writes this store's complete contents as files under `dir`, which does not exist
    /// yet. Called by [`checkpoint::publish`], which makes the result atomic and verifiable.
    fn write_checkpoint(&mut self, dir: &Path) -> Result<()>;

    /// A loader for entries in strictly ascending key order into `table`, none of which
    /// exists yet: how a rebuild fills a fresh store. Backends load in bulk where they can
    /// (RocksDB writes an SST file and ingests it instead of filling memtables).
    fn bulk_loader(&mut self, table: TableId) -> Result<Box<dyn BulkLoader + '_>>;
}

/// Receives sorted entries for [`StateBackend::bulk_loader`].
pub trait BulkLoader {
    /// Adds one entry; keys must be strictly ascending.
    fn add(&mut self, key: &[u8], value: &[u8]) -> Result<()>;

    /// Makes every added entry visible and returns how many there were.
    fn finish(self: Box<Self>) -> Result<u64>;
}
