//! The RocksDB backend: one column family per table.
//!
//! Options come from one checked-in JSON file, `config/rocksdb.json` ([`RocksOptions`]),
//! which benchmarks use too. The write-ahead log is off: like Flink's RocksDB backend, a
//! store is made durable by checkpoints, never by the log. Whole-key bloom filters in SST
//! files and in the memtable keep the point lookups of `multi_get` cheap.
//!
//! Checkpoints are RocksDB checkpoints (hard links to the immutable SST files plus copies of
//! the small metadata files). An aligned restore links the SST files into a fresh working
//! directory and copies the rest, so the published checkpoint is never modified.
//!
//! Writes of point tables ([`TableAccess::Point`]) and queue tables ([`TableAccess::Queue`])
//! wait in a write-back buffer in front of the memtable ([`crate::point_buffer`], decisions
//! 0043 and 0046) until it fills, a checkpoint, or a scan of a point table; scans of a queue
//! table merge it with RocksDB.

use std::cell::RefCell;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamilyDescriptor, DB, DBCompressionType, Options, ReadOptions,
    WriteBufferManager, WriteOptions,
};
use serde::Deserialize;

use super::budget::{MemoryBudget, Reservation};
use super::point_buffer::{Kind, Lookup, PointBuffer, entry_bytes};
use super::ttl::{Clock, SystemClock, TTL_TABLE_PREFIX, is_expired};
use super::{
    BackendKind, BulkLoader, RangeVisitor, ScanRange, StateBackend, TableAccess, TableId,
    ValueVisitor, WriteBatch,
};
use crate::error::{Error, Result};
use std::sync::Arc;

/// The checked-in options every store and benchmark uses by default.
pub const DEFAULT_OPTIONS_JSON: &str = include_str!("../config/rocksdb.json");

/// Block compression of SST files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// No compression.
    None,
    /// LZ4.
    Lz4,
    /// Zstandard.
    Zstd,
}

/// RocksDB settings, read from JSON.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RocksOptions {
    /// Shared LRU block cache.
    pub block_cache_bytes: usize,
    /// Size of one memtable.
    pub write_buffer_bytes: usize,
    /// Memtables per column family.
    pub max_write_buffer_number: i32,
    /// SST block compression.
    pub compression: Compression,
    /// Bloom filter bits per key in SST files (whole-key).
    pub bloom_bits_per_key: f64,
    /// Memtable bloom filter size as a fraction of the write buffer.
    pub memtable_prefix_bloom_ratio: f64,
    /// Whether the memtable bloom filter covers whole keys.
    pub memtable_whole_key_filtering: bool,
    /// The write-back buffer of point tables (decision 0043); 0 writes them through. A
    /// store with a memory limit takes it from the limit (at most a quarter of it).
    pub point_buffer_bytes: usize,
    /// A cap on all of the store's memory, replacing the fixed sizes above: the point
    /// tables' buffer takes up to a quarter of it, RocksDB's block cache and memtables
    /// together the rest, memtables charged to the cache up to
    /// [`RocksOptions::WRITE_BUFFER_RATIO`] (as Flink's managed memory does). `None` (the
    /// default): the fixed sizes.
    #[serde(default)]
    pub memory_limit_bytes: Option<usize>,
}

impl RocksOptions {
    /// Parses options from JSON, naming what is wrong.
    pub fn from_json(json: &str) -> Result<Self> {
        let options: Self = serde_json::from_str(json)
            .map_err(|e| Error::State(format!("RocksDB options: {e}")))?;
        if options.max_write_buffer_number < 1 || options.write_buffer_bytes == 0 {
            return Err(Error::State(
                "RocksDB options: write_buffer_bytes and max_write_buffer_number must be positive"
                    .into(),
            ));
        }
        Ok(options)
    }

    /// The checked-in defaults (`config/rocksdb.json`).
    pub fn checked_in() -> Self {
        Self::from_json(DEFAULT_OPTIONS_JSON).expect("config/rocksdb.json is valid")
    }

    /// Share of a budgeted store's memory that memtables may use; the rest is block cache.
    /// Flink's `state.backend.rocksdb.memory.write-buffer-ratio` default.
    pub const WRITE_BUFFER_RATIO: f64 = 0.5;

    /// The same options with all of the store's memory capped at `bytes`.
    pub fn with_memory_limit(&self, bytes: usize) -> Self {
        Self {
            memory_limit_bytes: Some(bytes),
            ..self.clone()
        }
    }

    /// RocksDB's options and the point tables' buffer, sized as documented on
    /// [`RocksOptions::memory_limit_bytes`].
    fn sized(&self) -> (Options, PointBuffer) {
        let Some(limit) = self.memory_limit_bytes else {
            let cache = Cache::new_lru_cache(self.block_cache_bytes);
            return (
                self.to_rocksdb(&cache),
                PointBuffer::new(self.point_buffer_bytes),
            );
        };
        let buffer = PointBuffer::new(self.point_buffer_bytes.min(limit / 4));
        let rocks_bytes = limit - buffer.capacity();
        let cache = Cache::new_lru_cache(rocks_bytes);
        let memtables = (rocks_bytes as f64 * Self::WRITE_BUFFER_RATIO) as usize;
        let manager = WriteBufferManager::new_write_buffer_manager_with_cache(
            memtables,
            false,
            cache.clone(),
        );
        let mut opts = self.to_rocksdb(&cache);
        opts.set_write_buffer_manager(&manager);
        (opts, buffer)
    }

    fn to_rocksdb(&self, cache: &Cache) -> Options {
        let mut table = BlockBasedOptions::default();
        table.set_block_cache(cache);
        table.set_bloom_filter(self.bloom_bits_per_key, false);
        table.set_whole_key_filtering(true);
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.create_missing_column_families(true);
        opts.set_block_based_table_factory(&table);
        opts.set_write_buffer_size(self.write_buffer_bytes);
        opts.set_max_write_buffer_number(self.max_write_buffer_number);
        opts.set_compression_type(match self.compression {
            Compression::None => DBCompressionType::None,
            Compression::Lz4 => DBCompressionType::Lz4,
            Compression::Zstd => DBCompressionType::Zstd,
        });
        opts.set_memtable_prefix_bloom_ratio(self.memtable_prefix_bloom_ratio);
        opts.set_memtable_whole_key_filtering(self.memtable_whole_key_filtering);
        opts
    }
}

/// Keyed state in RocksDB.
pub struct RocksBackend {
    db: DB,
    path: PathBuf,
    names: Vec<String>,
    options: Options,
    write_options: WriteOptions,
    clock: Arc<dyn Clock>,
    /// Options of tables created after opening. RocksDB keeps only a raw pointer to their
    /// compaction filter, so they must outlive `db` (fields drop in declaration order).
    created_table_options: Vec<Options>,
    /// Released after `db` closes (fields drop in declaration order).
    reservation: Option<Reservation>,
    /// Point tables' writes not yet in RocksDB. A cell because scans (`&self`) flush it.
    buffer: RefCell<PointBuffer>,
}

impl std::fmt::Debug for RocksBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksBackend")
            .field("path", &self.path)
            .field("tables", &self.names)
            .finish_non_exhaustive()
    }
}

const DEFAULT_CF: &str = "default";

impl RocksBackend {
    /// Opens the store in `path`, creating it if needed, with its existing tables; TTL
    /// tables expire on the system clock.
    pub fn open(path: &Path, options: &RocksOptions) -> Result<Self> {
        Self::open_with_clock(path, options, Arc::new(SystemClock))
    }

    /// [`RocksBackend::open`] with the clock that TTL compaction reads.
    pub fn open_with_clock(
        path: &Path,
        options: &RocksOptions,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        let (opts, buffer) = options.sized();
        Self::open_inner(path, opts, clock, None, buffer)
    }

    /// Opens the store with its memory taken from `budget`: `bytes` are reserved for
    /// `holder` (or the open fails with [`Error::BudgetExceeded`]) and the store's memory is
    /// capped at them ([`RocksOptions::memory_limit_bytes`]). The reservation is released
    /// when the store is dropped.
    pub fn open_in_budget(
        path: &Path,
        options: &RocksOptions,
        budget: &MemoryBudget,
        holder: &str,
        bytes: u64,
    ) -> Result<Self> {
        let reservation = budget.reservation(holder, bytes)?;
        let (opts, buffer) = options.with_memory_limit(bytes as usize).sized();
        Self::open_inner(path, opts, Arc::new(SystemClock), Some(reservation), buffer)
    }

    fn open_inner(
        path: &Path,
        opts: Options,
        clock: Arc<dyn Clock>,
        reservation: Option<Reservation>,
        buffer: PointBuffer,
    ) -> Result<Self> {
        let names: Vec<String> = if path.join("CURRENT").exists() {
            DB::list_cf(&opts, path)
                .rocks()?
                .into_iter()
                .filter(|n| n != DEFAULT_CF)
                .collect()
        } else {
            Vec::new()
        };
        let descriptors = names
            .iter()
            .map(|n| ColumnFamilyDescriptor::new(n, table_options(&opts, n, &clock)));
        let db = DB::open_cf_descriptors(&opts, path, descriptors).rocks()?;
        let mut write_options = WriteOptions::default();
        write_options.disable_wal(true);
        Ok(Self {
            db,
            path: path.to_path_buf(),
            names,
            options: opts,
            write_options,
            clock,
            created_table_options: Vec::new(),
            reservation,
            buffer: RefCell::new(buffer),
        })
    }

    /// Bytes this store holds in its memory budget, if it was opened in one.
    pub fn budgeted_bytes(&self) -> Option<u64> {
        self.reservation.as_ref().map(Reservation::bytes)
    }

    /// Deletes every key outside `key_groups` from every table with range deletions: what a
    /// subtask does after adopting a checkpoint that also holds other subtasks' key groups.
    /// Costs O(tables), not O(entries); compaction reclaims the space later.
    pub fn delete_key_groups_outside(&mut self, key_groups: &RangeInclusive<u16>) -> Result<()> {
        self.flush_points()?;
        // Key groups are below 32,768, so every state key starts with a byte below 0x80.
        const END_OF_KEYS: [u8; 2] = [0x80, 0x00];
        let below = (*key_groups.start() > 0)
            .then(|| ([0u8, 0].to_vec(), key_groups.start().to_be_bytes().to_vec()));
        let above = key_groups
            .end()
            .checked_add(1)
            .filter(|&first| first < 0x8000)
            .map(|first| (first.to_be_bytes().to_vec(), END_OF_KEYS.to_vec()));
        for index in 0..self.names.len() {
            let cf = self.cf(TableId(index))?;
            for (from, to) in below.iter().chain(above.iter()) {
                self.db
                    .delete_range_cf_opt(cf, from, to, &self.write_options)
                    .rocks()?;
            }
        }
        Ok(())
    }

    /// Compacts `table` fully (dropping expired TTL entries on the way).
    pub fn compact(&self, table: TableId) -> Result<()> {
        self.flush_points()?;
        self.db
            .compact_range_cf(self.cf(table)?, None::<&[u8]>, None::<&[u8]>);
        Ok(())
    }

    /// Restores a checkpoint's data directory into `working` (which must not exist yet) by
    /// linking its SST files and copying the rest, then opens it with TTL compaction on
    /// `clock` (the clock the restored operator's TTL reads, so both agree on what expired).
    pub fn restore_aligned(
        data_dir: &Path,
        working: &Path,
        options: &RocksOptions,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        std::fs::create_dir(working).map_err(Error::io("create", working))?;
        let entries = std::fs::read_dir(data_dir).map_err(Error::io("list", data_dir))?;
        for entry in entries {
            let entry = entry.map_err(Error::io("list", data_dir))?;
            let (from, to) = (entry.path(), working.join(entry.file_name()));
            let is_sst = from.extension().is_some_and(|e| e == "sst");
            // SST files are immutable: share them. MANIFEST and the others are appended to
            // by an open DB: copy them so the checkpoint never changes.
            if !(is_sst && std::fs::hard_link(&from, &to).is_ok()) {
                std::fs::copy(&from, &to).map_err(Error::io("copy", &from))?;
            }
        }
        Self::open_with_clock(working, options, clock)
    }

    /// The store's directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the point tables' waiting writes to RocksDB, in one atomic write: all of them
    /// or, on an error, none (they stay buffered).
    pub fn flush_points(&self) -> Result<()> {
        let mut buffer = self.buffer.try_borrow_mut().map_err(|_| {
            Error::State("a scan of a point table inside a read of it (not supported)".into())
        })?;
        if buffer.is_empty() {
            return Ok(());
        }
        let mut rocks = rocksdb::WriteBatch::with_capacity_bytes(buffer.bytes());
        self.add_buffered(&buffer, &mut rocks)?;
        self.db.write_opt(rocks, &self.write_options).rocks()?;
        buffer.clear();
        Ok(())
    }

    /// Flushes the buffer when `table` has writes in it: such scans read RocksDB alone.
    /// Scans of tables not buffered (sorted maps) leave it be, and forward scans of queue
    /// tables merge it ([`RocksBackend::scan_queue`]).
    fn flush_before_scan(&self, table: TableId) -> Result<()> {
        let waiting = self
            .buffer
            .try_borrow()
            .map_or(true, |buffer| !buffer.is_empty_table(table.0));
        if waiting {
            self.flush_points()?;
        }
        Ok(())
    }

    /// Writes the point tables' waiting writes as one SST file per table and ingests them:
    /// how a checkpoint takes the buffer. Its keys then skip the memtable (the insert, and
    /// the flush that the checkpoint would make of it), where [`RocksBackend::flush_points`]
    /// puts them. The buffer is cleared only once every file is in; a failure part-way
    /// leaves it whole, and ingesting it again writes the same newest values.
    fn ingest_points(&self) -> Result<()> {
        let mut buffer = self.buffer.try_borrow_mut().map_err(|_| {
            Error::State("a checkpoint inside a read of a point table (not supported)".into())
        })?;
        if buffer.is_empty() {
            return Ok(());
        }
        let parent = self.path.parent().unwrap_or(Path::new("."));
        let dir = tempfile::Builder::new()
            .prefix(".sf-points-")
            .tempdir_in(parent)
            .map_err(Error::io("create a temporary directory in", parent))?;
        let entries = buffer.sorted_entries();
        let mut ingest = rocksdb::IngestExternalFileOptions::default();
        ingest.set_move_files(true);
        for table in entries.chunk_by(|a, b| a.0 == b.0) {
            let index = table[0].0;
            let file = dir.path().join(format!("table-{index}.sst"));
            let mut writer = rocksdb::SstFileWriter::create(&self.options);
            writer.open(&file).rocks()?;
            for &(_, key, value) in table {
                match value {
                    Some(v) => writer.put(key, v).rocks()?,
                    None => writer.delete(key).rocks()?,
                }
            }
            writer.finish().rocks()?;
            self.db
                .ingest_external_file_cf_opts(self.cf(TableId(index))?, &ingest, vec![&file])
                .rocks()?;
        }
        drop(entries);
        buffer.clear();
        Ok(())
    }

    /// Adds the buffer's writes to `rocks`.
    fn add_buffered(&self, buffer: &PointBuffer, rocks: &mut rocksdb::WriteBatch) -> Result<()> {
        for (index, key, value) in buffer.sorted_entries() {
            let cf = self.cf(TableId(index))?;
            match value {
                Some(v) => rocks.put_cf(cf, key, v),
                None => rocks.delete_cf(cf, key),
            }
        }
        Ok(())
    }

    /// The bytes of point-table writes waiting in the buffer.
    pub fn buffered_bytes(&self) -> usize {
        self.buffer.borrow().bytes()
    }

    /// Whether RocksDB holds any live key of `table`.
    fn holds_keys(&self, table: TableId) -> Result<bool> {
        let mut it = self.db.raw_iterator_cf(self.cf(table)?);
        it.seek_to_first();
        let valid = it.valid();
        it.status().rocks()?;
        Ok(valid)
    }

    /// Visits `range` of queue table `table` in ascending order, the buffer's writes merged
    /// over RocksDB's keys (a buffered deletion hides the key), until `visit` returns
    /// `false`; a table RocksDB holds nothing of is read from the buffer alone.
    fn scan_queue(
        &self,
        table: TableId,
        range: ScanRange<'_>,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        let buffer = self.buffer.borrow();
        let (start, end) = range.bounds();
        let mut waiting = buffer.range(table.0, &start, end.as_deref()).peekable();
        if !buffer.in_rocks(table.0) {
            for (key, value) in waiting {
                if let Some(value) = value
                    && !visit(key, value)
                {
                    break;
                }
            }
            return Ok(());
        }
        let mut read = ReadOptions::default();
        if let Some(end) = &end {
            read.set_iterate_upper_bound(end.clone());
        }
        let mut it = self.db.raw_iterator_cf_opt(self.cf(table)?, read);
        it.seek(&start);
        loop {
            // Which comes next: RocksDB's key, the buffer's, or both (the buffer's wins).
            let order = match (it.valid().then(|| it.key()).flatten(), waiting.peek()) {
                (None, None) => break,
                (Some(stored), Some((buffered, _))) => (*buffered).cmp(stored),
                (None, Some(_)) => std::cmp::Ordering::Less,
                (Some(_), None) => std::cmp::Ordering::Greater,
            };
            if order == std::cmp::Ordering::Greater {
                let (Some(key), Some(value)) = (it.key(), it.value()) else {
                    break;
                };
                if !visit(key, value) {
                    return Ok(());
                }
                it.next();
                continue;
            }
            if order == std::cmp::Ordering::Equal {
                it.next();
            }
            let Some((key, value)) = waiting.next() else {
                break;
            };
            if let Some(value) = value
                && !visit(key, value)
            {
                return Ok(());
            }
        }
        it.status().rocks()
    }

    fn cf(&self, table: TableId) -> Result<&rocksdb::ColumnFamily> {
        let name = self
            .names
            .get(table.0)
            .ok_or_else(|| Error::State(format!("unknown table id {}", table.0)))?;
        self.db
            .cf_handle(name)
            .ok_or_else(|| Error::State(format!("column family {name} is missing")))
    }
}

/// Column-family options: TTL tables drop expired entries when compacted.
fn table_options(base: &Options, name: &str, clock: &Arc<dyn Clock>) -> Options {
    let mut opts = base.clone();
    if name.starts_with(TTL_TABLE_PREFIX) {
        let clock = clock.clone();
        opts.set_compaction_filter(
            "streamfusion-ttl",
            move |_level: u32, _key: &[u8], value: &[u8]| {
                if is_expired(value, clock.now_millis()) {
                    rocksdb::CompactionDecision::Remove
                } else {
                    rocksdb::CompactionDecision::Keep
                }
            },
        );
    }
    opts
}

/// Visits `range` of a column family in ascending order, or descending with `reverse`,
/// until `visit` returns `false`.
fn scan_cf(
    db: &DB,
    cf: &rocksdb::ColumnFamily,
    range: ScanRange<'_>,
    reverse: bool,
    visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
) -> Result<()> {
    let (start, end) = range.bounds();
    let mut read = ReadOptions::default();
    if let Some(end) = end {
        read.set_iterate_upper_bound(end);
    }
    if reverse {
        read.set_iterate_lower_bound(start.clone());
    }
    let mut it = db.raw_iterator_cf_opt(cf, read);
    if reverse {
        // With an upper bound set, seek_to_last lands on the last key below it.
        it.seek_to_last();
    } else {
        it.seek(&start);
    }
    while it.valid() {
        let (Some(k), Some(v)) = (it.key(), it.value()) else {
            break;
        };
        if !visit(k, v) {
            return Ok(());
        }
        if reverse {
            it.prev();
        } else {
            it.next();
        }
    }
    it.status().rocks()
}

impl StateBackend for RocksBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Rocksdb
    }

    fn memory_bytes(&self) -> u64 {
        // A budgeted store's buffer is inside its reservation.
        self.budgeted_bytes()
            .unwrap_or(self.buffered_bytes() as u64)
    }

    fn open_table(&mut self, name: &str) -> Result<TableId> {
        if name == DEFAULT_CF {
            return Err(Error::State("`default` is reserved by RocksDB".into()));
        }
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return Ok(TableId(i));
        }
        let options = table_options(&self.options, name, &self.clock);
        self.db.create_cf(name, &options).rocks()?;
        self.created_table_options.push(options);
        self.names.push(name.to_string());
        Ok(TableId(self.names.len() - 1))
    }

    fn open_table_with(&mut self, name: &str, access: TableAccess) -> Result<TableId> {
        let table = self.open_table(name)?;
        let kind = match access {
            TableAccess::Ordered => return Ok(table),
            TableAccess::Point => Kind::Point,
            TableAccess::Queue => Kind::Queue,
        };
        if !self.buffer.get_mut().is_buffered(table.0) {
            let in_rocks = self.holds_keys(table)?;
            self.buffer.get_mut().buffer_table(table.0, kind, in_rocks);
        }
        Ok(table)
    }

    fn table_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn multi_get(&self, table: TableId, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        let mut out = Vec::with_capacity(keys.len());
        self.multi_get_each(table, keys, &mut |_, value| {
            out.push(value.map(<[u8]>::to_vec));
            Ok(())
        })?;
        Ok(out)
    }

    fn multi_get_each(
        &self,
        table: TableId,
        keys: &[&[u8]],
        visit: &mut ValueVisitor<'_>,
    ) -> Result<()> {
        let cf = self.cf(table)?;
        let buffer = self.buffer.borrow();
        // Only the keys the buffer has not seen go to RocksDB.
        let lookups: Vec<Lookup<'_>> = if buffer.is_empty_table(table.0) {
            Vec::new()
        } else {
            keys.iter().map(|k| buffer.get(table.0, k)).collect()
        };
        // A buffered table RocksDB holds nothing of answers every miss itself.
        if !buffer.in_rocks(table.0) {
            for i in 0..keys.len() {
                match lookups.get(i) {
                    Some(Lookup::Value(value)) => visit(i, Some(value))?,
                    _ => visit(i, None)?,
                }
            }
            return Ok(());
        }
        let misses: Vec<&[u8]> = if lookups.is_empty() {
            keys.to_vec()
        } else {
            keys.iter()
                .zip(&lookups)
                .filter(|(_, l)| **l == Lookup::Miss)
                .map(|(k, _)| *k)
                .collect()
        };
        // Operators often ask in key order; RocksDB then skips sorting the batch.
        let sorted = misses.windows(2).all(|w| w[0] <= w[1]);
        // Values stay pinned in RocksDB's blocks or memtable while they are visited.
        let mut fetched = self
            .db
            .batched_multi_get_cf(cf, misses.iter().copied(), sorted)
            .into_iter();
        // Keys of a buffered table RocksDB does not hold: the buffer notes them afterwards.
        let mut absent = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            match lookups.get(i) {
                Some(Lookup::Value(value)) => visit(i, Some(value))?,
                Some(Lookup::Deleted) => visit(i, None)?,
                Some(Lookup::Miss) | None => {
                    let value = fetched.next().ok_or_else(|| {
                        Error::RocksDb("MultiGet returned fewer values than asked".into())
                    })?;
                    let value = value.rocks()?;
                    if value.is_none() && buffer.is_buffered(table.0) {
                        absent.push(*key);
                    }
                    visit(i, value.as_deref())?;
                }
            }
        }
        drop(lookups);
        drop(buffer);
        // Only a hint: a read nested in another read leaves it out.
        if let Ok(mut buffer) = self.buffer.try_borrow_mut() {
            for key in absent {
                buffer.note_absent(table.0, key);
            }
        }
        Ok(())
    }

    fn write(&mut self, batch: &WriteBatch) -> Result<()> {
        let buffer = self.buffer.get_mut();
        let growth: usize = batch
            .ops()
            .filter(|(table, _, _)| buffer.is_buffered(table.0))
            .map(|(_, key, value)| entry_bytes(key, value))
            .sum();
        // When the batch would overfill the buffer, the buffer's writes and the batch go to
        // RocksDB together.
        let through_buffer = buffer.fits(growth);
        let flushed = if through_buffer { 0 } else { buffer.bytes() };
        // Sized up front: RocksDB's batch is one buffer that would otherwise be regrown
        // (and copied) many times for a large batch. 16 bytes covers each record's header.
        let mut rocks = rocksdb::WriteBatch::with_capacity_bytes(
            batch.data_len() + 16 * batch.len() + 12 + flushed,
        );
        let buffer = self.buffer.borrow();
        if !through_buffer {
            self.add_buffered(&buffer, &mut rocks)?;
        }
        for (table, key, value) in batch.ops() {
            if through_buffer && buffer.is_buffered(table.0) {
                continue;
            }
            let cf = self.cf(table)?;
            match value {
                Some(v) => rocks.put_cf(cf, key, v),
                None => rocks.delete_cf(cf, key),
            }
        }
        drop(buffer);
        if !rocks.is_empty() {
            self.db.write_opt(rocks, &self.write_options).rocks()?;
        }
        // RocksDB took its part; the buffer's cannot fail.
        let buffer = self.buffer.get_mut();
        if through_buffer {
            for (table, key, value) in batch.ops() {
                if buffer.is_buffered(table.0) {
                    buffer.apply(table.0, key, value);
                }
            }
        } else {
            buffer.clear();
            for (table, _, value) in batch.ops() {
                if value.is_some() {
                    buffer.wrote_through(table.0);
                }
            }
        }
        Ok(())
    }

    fn scan(
        &self,
        table: TableId,
        range: ScanRange<'_>,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        if self.buffer.borrow().is_queue(table.0) {
            return self.scan_queue(table, range, visit);
        }
        self.flush_before_scan(table)?;
        scan_cf(&self.db, self.cf(table)?, range, false, visit)
    }

    /// One iterator for every range, bounded above by the last range's end: an iterator
    /// costs RocksDB a superversion reference and a merging iterator over every memtable
    /// and level, a seek only a descent. Where the iterator already stands at or past the
    /// next range's start (the first live key after the previous range, which ends at or
    /// before that start), there is nothing before it to seek to.
    fn scan_ranges(
        &self,
        table: TableId,
        ranges: &[ScanRange<'_>],
        visit: &mut RangeVisitor<'_>,
    ) -> Result<()> {
        let bounds: Vec<(Vec<u8>, Option<Vec<u8>>)> = ranges.iter().map(|r| r.bounds()).collect();
        let upper = bounds.iter().map(|(_, end)| end.as_ref()).max();
        let (Some(Some(upper)), false) = (upper, bounds.iter().any(|(_, end)| end.is_none()))
        else {
            // No range, or one running to the end of the table.
            return super::scan_each_range(self, table, ranges, visit);
        };
        if ranges.len() == 1 || self.buffer.borrow().is_queue(table.0) {
            return super::scan_each_range(self, table, ranges, visit);
        }
        self.flush_before_scan(table)?;
        let mut read = ReadOptions::default();
        read.set_iterate_upper_bound(upper.clone());
        let mut it = self.db.raw_iterator_cf_opt(self.cf(table)?, read);
        let mut previous_end: Option<&[u8]> = None;
        for (i, (start, end)) in bounds.iter().enumerate() {
            let end = end.as_deref().expect("every range is bounded");
            // Whether every key of this range sorts after every key of the previous.
            let after = previous_end.is_some_and(|e| e <= start.as_slice());
            if after && !it.valid() {
                // Nothing is left after the previous range (or the walk failed).
                it.status().rocks()?;
                return Ok(());
            }
            if !(after && it.key().is_some_and(|k| k >= start.as_slice())) {
                it.seek(start);
            }
            previous_end = Some(end);
            while let (Some(k), Some(v)) = (it.key(), it.value()) {
                if k >= end {
                    break;
                }
                if !visit(i, k, v) {
                    return Ok(());
                }
                it.next();
            }
            it.status().rocks()?;
        }
        Ok(())
    }

    fn scan_rev(
        &self,
        table: TableId,
        range: ScanRange<'_>,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        self.flush_before_scan(table)?;
        scan_cf(&self.db, self.cf(table)?, range, true, visit)
    }

    fn bulk_loader(&mut self, table: TableId) -> Result<Box<dyn BulkLoader + '_>> {
        self.cf(table)?;
        self.flush_points()?;
        self.buffer.get_mut().wrote_through(table.0);
        // Next to the store, on the same file system, so ingestion moves the file.
        let parent = self.path.parent().unwrap_or(Path::new("."));
        let dir = tempfile::Builder::new()
            .prefix(".sf-ingest-")
            .tempdir_in(parent)
            .map_err(Error::io("create a temporary directory in", parent))?;
        let file = dir.path().join("load.sst");
        let writer = rocksdb::SstFileWriter::create(&self.options);
        writer.open(&file).rocks()?;
        Ok(Box::new(RocksLoader {
            store: self,
            table,
            writer,
            file,
            _dir: dir,
            added: 0,
        }))
    }

    fn write_checkpoint(&mut self, dir: &Path) -> Result<()> {
        self.ingest_points()?;
        // With the WAL off, RocksDB flushes the memtables into the checkpoint.
        rocksdb::checkpoint::Checkpoint::new(&self.db)
            .rocks()?
            .create_checkpoint(dir)
            .rocks()?;
        Ok(())
    }
}

/// Bulk loading into RocksDB: one SST file, ingested when finished.
struct RocksLoader<'a> {
    store: &'a RocksBackend,
    table: TableId,
    writer: rocksdb::SstFileWriter<'a>,
    file: PathBuf,
    _dir: tempfile::TempDir,
    added: u64,
}

impl BulkLoader for RocksLoader<'_> {
    fn add(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        // The SST writer itself refuses keys out of order.
        self.writer.put(key, value).rocks()?;
        self.added += 1;
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<u64> {
        if self.added == 0 {
            return Ok(0);
        }
        self.writer.finish().rocks()?;
        let mut ingest = rocksdb::IngestExternalFileOptions::default();
        ingest.set_move_files(true);
        let cf = self.store.cf(self.table)?;
        self.store
            .db
            .ingest_external_file_cf_opts(cf, &ingest, vec![&self.file])
            .rocks()?;
        Ok(self.added)
    }
}

/// A published RocksDB checkpoint opened read-only, to scan it without copying or changing
/// it: RocksDB writes nothing into a read-only database's directory except its info log,
/// which goes to `log_dir` instead.
pub(crate) struct RocksReader {
    db: DB,
    names: Vec<String>,
}

impl RocksReader {
    pub(crate) fn open(data_dir: &Path, options: &RocksOptions, log_dir: &Path) -> Result<Self> {
        let cache = Cache::new_lru_cache(options.block_cache_bytes);
        let mut opts = options.to_rocksdb(&cache);
        opts.set_db_log_dir(log_dir);
        let names: Vec<String> = DB::list_cf(&opts, data_dir)
            .rocks()?
            .into_iter()
            .filter(|n| n != DEFAULT_CF)
            .collect();
        let db = DB::open_cf_for_read_only(&opts, data_dir, &names, false).rocks()?;
        Ok(Self { db, names })
    }

    pub(crate) fn table_names(&self) -> &[String] {
        &self.names
    }

    pub(crate) fn scan(
        &self,
        table: TableId,
        range: ScanRange<'_>,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        let name = &self.names[table.0];
        let cf = self
            .db
            .cf_handle(name)
            .ok_or_else(|| Error::State(format!("column family {name} is missing")))?;
        scan_cf(&self.db, cf, range, false, visit)
    }
}

/// RocksDB's errors as the engine's: a RocksDB call's result goes through `.rocks()?`.
pub(crate) trait RocksResult<T> {
    /// The result with a RocksDB error turned into [`Error::RocksDb`].
    fn rocks(self) -> Result<T>;
}

impl<T> RocksResult<T> for std::result::Result<T, rocksdb::Error> {
    fn rocks(self) -> Result<T> {
        self.map_err(|e| Error::RocksDb(e.into_string()))
    }
}
