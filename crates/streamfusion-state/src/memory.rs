//! The memory (heap) backend: one map per table, ordered or (for
//! [`TableAccess::Point`] tables) hashed; see [`super::memory_table`].
//!
//! Checkpoint file `memory.state` (all integers little-endian):
//!
//! ```text
//! "SFMEM001" | tables: u32 | per table: name_len: u32, name, entries: u64,
//!                              per entry: key_len: u32, key, value_len: u32, value
//! ```
//!
//! Integrity (sizes and CRC32 of every file) is the checkpoint manifest's job; parsing
//! still checks every length so a damaged file is an error, never a partial restore.

use std::io::Write;
use std::path::Path;

use super::budget::{MemoryBudget, Reservation};
use super::memory_table::Table;
use super::objects::ObjectTable;
use super::{
    BackendKind, BulkLoader, ScanRange, StateBackend, TableAccess, TableId, ValueVisitor,
    WriteBatch,
};
use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"SFMEM001";
/// The checkpoint file's name inside the data directory.
pub const SNAPSHOT_FILE: &str = "memory.state";

/// Estimated heap bytes of one entry beyond its key and value (map node and vectors).
pub const ENTRY_OVERHEAD: u64 = 64;

/// Keyed state on the heap.
#[derive(Debug, Default)]
pub struct MemoryBackend {
    names: Vec<String>,
    tables: Vec<Table>,
    reservation: Option<Reservation>,
}

/// The estimated heap bytes of one entry, as a budgeted store reserves them.
pub fn entry_bytes(key: &[u8], value: &[u8]) -> u64 {
    (key.len() + value.len()) as u64 + ENTRY_OVERHEAD
}

impl MemoryBackend {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store that reserves its entries' estimated bytes
    /// (`key + value + ENTRY_OVERHEAD`) from `budget` as `holder`. A write first reserves
    /// its puts as if every key were new, so one that could exceed the budget fails with
    /// [`Error::BudgetExceeded`] and changes nothing; applied, it gives back what the keys
    /// it replaced or removed held.
    pub fn with_budget(budget: &MemoryBudget, holder: &str) -> Result<Self> {
        Ok(Self {
            reservation: Some(budget.reservation(holder, 0)?),
            ..Self::default()
        })
    }

    /// Restores a store from the data directory of a memory checkpoint.
    pub fn restore(data_dir: &Path) -> Result<Self> {
        let (names, tables) = read_snapshot(&data_dir.join(SNAPSHOT_FILE))?
            .into_iter()
            .unzip();
        Ok(Self {
            names,
            tables,
            ..Self::default()
        })
    }

    /// The store, its entries' estimated bytes now reserved from `budget` as `holder` (a
    /// restored store joining its task's budget), or [`Error::BudgetExceeded`].
    pub fn within_budget(self, budget: &MemoryBudget, holder: &str) -> Result<Self> {
        let reservation = budget.reservation(holder, self.estimated_bytes())?;
        Ok(Self {
            reservation: Some(reservation),
            ..self
        })
    }

    /// Estimated bytes of all entries (what a budgeted store holds in its budget).
    pub fn estimated_bytes(&self) -> u64 {
        let mut bytes = 0;
        for table in &self.tables {
            table.for_each(&mut |k, v| bytes += entry_bytes(k, v));
        }
        bytes
    }

    /// Opens (creating if needed) the table called `name` as a table of objects held by
    /// `objects`, which receives its stored entries first (a restored checkpoint's).
    /// Reopening an object table returns it as it is.
    pub fn open_objects(
        &mut self,
        name: &str,
        mut objects: Box<dyn ObjectTable>,
    ) -> Result<TableId> {
        let Some(i) = self.names.iter().position(|n| n == name) else {
            self.names.push(name.to_string());
            self.tables.push(Table::Objects(objects));
            return Ok(TableId(self.tables.len() - 1));
        };
        if matches!(self.tables[i], Table::Objects(_)) {
            return Ok(TableId(i));
        }
        // The same encoded entries, so the budget's estimate does not change.
        let mut failed = None;
        self.tables[i].for_each(&mut |k, v| {
            if failed.is_none() {
                failed = objects.put_encoded(k, v).err();
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        self.tables[i] = Table::Objects(objects);
        Ok(TableId(i))
    }

    /// The store's budget reservation, when it has one.
    pub fn reservation_mut(&mut self) -> Option<&mut Reservation> {
        self.reservation.as_mut()
    }

    /// The object table `table` as its owner's type `T`, with the store's budget
    /// reservation (when it has one), which the owner grows and shrinks by the estimated
    /// bytes (`key + encoded value +` [`ENTRY_OVERHEAD`]) of the entries it changes.
    pub fn objects_mut<T: ObjectTable>(
        &mut self,
        table: TableId,
    ) -> Result<(&mut T, Option<&mut Reservation>)> {
        let Some(Table::Objects(objects)) = self.tables.get_mut(table.0) else {
            return Err(Error::State(format!(
                "table {} is not a table of objects",
                table.0
            )));
        };
        let objects: &mut dyn std::any::Any = objects.as_mut();
        let objects = objects.downcast_mut::<T>().ok_or_else(|| {
            Error::State(format!(
                "table {} holds objects of another type than {}",
                table.0,
                std::any::type_name::<T>()
            ))
        })?;
        Ok((objects, self.reservation.as_mut()))
    }

    /// [`StateBackend::scan`] (`reverse` false) and [`StateBackend::scan_rev`].
    fn scan_in(
        &self,
        table: TableId,
        range: ScanRange<'_>,
        reverse: bool,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        let table = self.table(table)?;
        let (start, end) = range.bounds();
        table.scan(&start, end.as_deref(), reverse, visit);
        Ok(())
    }

    /// The number of entries in `table`.
    pub fn len(&self, table: TableId) -> usize {
        self.tables.get(table.0).map_or(0, Table::len)
    }

    fn table(&self, table: TableId) -> Result<&Table> {
        self.tables
            .get(table.0)
            .ok_or_else(|| Error::State(format!("unknown table id {}", table.0)))
    }
}

impl StateBackend for MemoryBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Memory
    }

    fn memory_bytes(&self) -> u64 {
        // A budgeted store keeps its count; otherwise count the entries.
        match &self.reservation {
            Some(r) => r.bytes(),
            None => self.estimated_bytes(),
        }
    }

    fn open_table(&mut self, name: &str) -> Result<TableId> {
        self.open_table_with(name, TableAccess::Ordered)
    }

    fn memory_mut(&mut self) -> Option<&mut MemoryBackend> {
        Some(self)
    }

    fn open_table_with(&mut self, name: &str, access: TableAccess) -> Result<TableId> {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            // A restored table is ordered until its operator says how it reads it.
            if access == TableAccess::Point {
                let table = std::mem::replace(&mut self.tables[i], Table::new(access));
                self.tables[i] = table.into_access(access);
            }
            return Ok(TableId(i));
        }
        self.names.push(name.to_string());
        self.tables.push(Table::new(access));
        Ok(TableId(self.tables.len() - 1))
    }

    fn table_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn prefers_key_order(&self, table: TableId) -> bool {
        !matches!(
            self.tables.get(table.0),
            Some(Table::Point(_) | Table::Objects(_))
        )
    }

    fn multi_get(&self, table: TableId, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        let table = self.table(table)?;
        let mut scratch = Vec::new();
        Ok(keys
            .iter()
            .map(|k| table.get(k, &mut scratch).map(<[u8]>::to_vec))
            .collect())
    }

    fn multi_get_each(
        &self,
        table: TableId,
        keys: &[&[u8]],
        visit: &mut ValueVisitor<'_>,
    ) -> Result<()> {
        let table = self.table(table)?;
        let mut scratch = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            visit(i, table.get(key, &mut scratch))?;
        }
        Ok(())
    }

    fn write(&mut self, batch: &WriteBatch) -> Result<()> {
        // Validate every table first so a bad batch changes nothing.
        if let Some((t, ..)) = batch.ops().find(|(t, ..)| t.0 >= self.tables.len()) {
            return Err(Error::State(format!("unknown table id {}", t.0)));
        }
        for (table, _, value) in batch.ops() {
            if let Some(value) = value {
                self.tables[table.0].check(value)?;
            }
        }
        // The most the batch can add: its puts, as if every key were new. Looking up what
        // each key holds first would cost a second lookup per entry.
        let bound: i128 = match self.reservation {
            Some(_) => batch
                .ops()
                .filter_map(|(_, key, value)| Some(i128::from(entry_bytes(key, value?))))
                .sum(),
            None => 0,
        };
        if let Some(reservation) = &mut self.reservation {
            reservation.resize_by(bound)?;
        }
        let mut puts = vec![0usize; self.tables.len()];
        for (table, _, value) in batch.ops() {
            puts[table.0] += usize::from(value.is_some());
        }
        for (table, puts) in self.tables.iter_mut().zip(puts) {
            table.reserve(puts);
        }
        let mut delta = 0i128;
        for (table, key, value) in batch.ops() {
            // Checked above: cannot fail.
            let replaced = self.tables[table.0].apply(key, value)?;
            delta += value.map_or(0, |v| i128::from(entry_bytes(key, v)));
            delta -= replaced.map_or(0, |len| {
                (key.len() + len) as i128 + i128::from(ENTRY_OVERHEAD)
            });
        }
        if let Some(reservation) = &mut self.reservation {
            // A release: what the replaced and removed entries held is at least 0.
            reservation.resize_by(delta - bound)?;
        }
        Ok(())
    }

    fn scan(
        &self,
        table: TableId,
        range: ScanRange<'_>,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        self.scan_in(table, range, false, visit)
    }

    fn scan_rev(
        &self,
        table: TableId,
        range: ScanRange<'_>,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        self.scan_in(table, range, true, visit)
    }

    fn bulk_loader(&mut self, table: TableId) -> Result<Box<dyn BulkLoader + '_>> {
        self.table(table)?;
        Ok(Box::new(MemoryLoader {
            store: self,
            table,
            batch: WriteBatch::with_capacity(LOAD_BATCH),
            added: 0,
        }))
    }

    fn write_checkpoint(&mut self, dir: &Path) -> Result<()> {
        std::fs::create_dir(dir).map_err(Error::io("create", dir))?;
        let path = dir.join(SNAPSHOT_FILE);
        let file = std::fs::File::create(&path).map_err(Error::io("create", &path))?;
        let mut out = std::io::BufWriter::new(file);
        let io = Error::io("write", &path);
        let mut write = || -> std::io::Result<()> {
            out.write_all(MAGIC)?;
            out.write_all(&(self.tables.len() as u32).to_le_bytes())?;
            for (name, table) in self.names.iter().zip(&self.tables) {
                out.write_all(&(name.len() as u32).to_le_bytes())?;
                out.write_all(name.as_bytes())?;
                out.write_all(&(table.len() as u64).to_le_bytes())?;
                // In key order whatever the table's structure, so equal state writes equal
                // files.
                table.try_for_each_sorted(&mut |k, v| {
                    out.write_all(&(k.len() as u32).to_le_bytes())?;
                    out.write_all(k)?;
                    out.write_all(&(v.len() as u32).to_le_bytes())?;
                    out.write_all(v)
                })?;
            }
            out.flush()
        };
        write().map_err(io)
    }
}

/// Entries per write while bulk loading (so budget checks stay per chunk).
const LOAD_BATCH: usize = 4096;

/// Bulk loading into memory: ordinary writes in chunks, so the budget still applies.
struct MemoryLoader<'a> {
    store: &'a mut MemoryBackend,
    table: TableId,
    batch: WriteBatch,
    added: u64,
}

impl BulkLoader for MemoryLoader<'_> {
    fn add(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.batch.put(self.table, key, value);
        self.added += 1;
        if self.batch.len() == LOAD_BATCH {
            self.store.write(&self.batch)?;
            self.batch = WriteBatch::with_capacity(LOAD_BATCH);
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<u64> {
        self.store.write(&self.batch)?;
        Ok(self.added)
    }
}

/// Reads a memory snapshot: every table's name and entries.
fn read_snapshot(path: &Path) -> Result<Vec<(String, Table)>> {
    let bytes = std::fs::read(path).map_err(Error::io("read", path))?;
    let bad = |problem: String| Error::Checkpoint {
        path: path.to_path_buf(),
        problem,
    };
    let mut r = Reader {
        bytes: &bytes,
        at: 0,
    };
    if r.take(MAGIC.len()).map_err(&bad)? != MAGIC {
        return Err(bad("not a StreamFusion memory snapshot (bad magic)".into()));
    }
    let count = r.u32().map_err(&bad)?;
    let mut tables = Vec::new();
    for _ in 0..count {
        let name_len = r.u32().map_err(&bad)? as usize;
        let name = std::str::from_utf8(r.take(name_len).map_err(&bad)?)
            .map_err(|_| bad("a table name is not UTF-8".into()))?
            .to_string();
        let entries = r.u64().map_err(&bad)?;
        let mut table = Table::new(TableAccess::Ordered);
        for _ in 0..entries {
            let k = r.take_prefixed().map_err(&bad)?;
            let v = r.take_prefixed().map_err(&bad)?;
            table.apply(k, Some(v))?;
        }
        tables.push((name, table));
    }
    if r.at != bytes.len() {
        return Err(bad(format!(
            "{} unexpected bytes after the last table",
            bytes.len() - r.at
        )));
    }
    Ok(tables)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "truncated: needs {n} bytes at offset {} of {}",
                    self.at,
                    self.bytes.len()
                )
            })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    fn take_prefixed(&mut self) -> Result<&'a [u8], String> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Every entry of `table`, by scanning.
    fn contents(store: &MemoryBackend, table: TableId) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut out = Vec::new();
        store
            .scan(table, ScanRange::All, &mut |k, v| {
                out.push((k.to_vec(), v.to_vec()));
                true
            })
            .unwrap();
        out
    }

    #[test]
    fn sorted_and_unsorted_writes_match_a_map_model_and_reserve_their_bytes() {
        let budget = MemoryBudget::new(1 << 30);
        let mut store = MemoryBackend::with_budget(&budget, "model").unwrap();
        let a = store.open_table("a").unwrap();
        let b = store.open_table_with("b", TableAccess::Point).unwrap();
        let mut model: [BTreeMap<Vec<u8>, Vec<u8>>; 2] = Default::default();
        // A small linear congruential sequence: deterministic keys with repeats.
        let mut seed = 7u64;
        let mut next = move |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % m
        };
        for round in 0..12 {
            let ops = [10, 300, 1000][round % 3];
            let sorted = round % 2 == 0;
            let mut keys: Vec<u64> = (0..ops).map(|_| next(2000)).collect();
            if sorted {
                keys.sort_unstable();
                keys.dedup();
            }
            let mut batch = WriteBatch::new();
            for (i, k) in keys.iter().enumerate() {
                let key = k.to_be_bytes();
                let t = if k % 3 == 0 { b } else { a };
                let value = (next(5) > 0).then(|| format!("v{round}-{i}").into_bytes());
                match &value {
                    Some(v) => batch.put(t, key, v),
                    None => batch.delete(t, key),
                }
            }
            // The model applies in batch order, one operation at a time.
            for (t, key, value) in batch.ops() {
                let m = &mut model[t.index()];
                match value {
                    Some(v) => m.insert(key.to_vec(), v.to_vec()),
                    None => m.remove(key),
                };
            }
            store.write(&batch).unwrap();
            for (t, m) in [a, b].into_iter().zip(&model) {
                let expected: Vec<_> = m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                assert_eq!(contents(&store, t), expected, "round {round}");
            }
            // Replaced, removed and repeated keys give back exactly what they held.
            let model_bytes: u64 = model
                .iter()
                .flat_map(|m| m.iter().map(|(k, v)| entry_bytes(k, v)))
                .sum();
            assert_eq!(budget.reserved(), model_bytes, "round {round}");
        }
    }

    #[test]
    fn a_write_whose_puts_could_exceed_the_budget_changes_nothing() {
        let budget = MemoryBudget::new(1_000);
        let mut store = MemoryBackend::with_budget(&budget, "small").unwrap();
        let t = store.open_table_with("t", TableAccess::Point).unwrap();
        let mut batch = WriteBatch::new();
        batch.put(t, b"k", [0u8; 600]);
        store.write(&batch).unwrap();
        // Rewriting the key would fit, but the write is reserved as if it were new.
        assert!(matches!(
            store.write(&batch),
            Err(Error::BudgetExceeded { .. })
        ));
        assert_eq!(contents(&store, t), vec![(b"k".to_vec(), vec![0u8; 600])]);
        assert_eq!(budget.reserved(), entry_bytes(b"k", &[0u8; 600]));
    }
}
