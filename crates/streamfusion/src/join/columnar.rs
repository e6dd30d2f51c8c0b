//! An inner join's state while both its inputs are insert-only, on the memory backend: each
//! input's batches kept whole as Arrow, a hash index from join key to rows, and the keyed
//! state's entries written only when a checkpoint (or the first retraction) needs them.
//!
//! # Why
//!
//! An insert-only inner join never retracts a row, counts associations or expires one, so
//! what the row-state join keeps per record (an entry per row, decoded sides in a partition
//! cache, changed records written after every batch: [`super::side`]) buys nothing on the
//! memory backend, which spills nothing. Here a batch costs a key row and a hash per row, a
//! probe of the other input's index and a gather of the joined columns, as a batch engine's
//! hash join does. A batch's rows are indexed when the other input next probes them.
//!
//! # Same output, same checkpoints
//!
//! A row joins the other input's rows of its key in the order the row-state join walks them:
//! ascending `BinaryRowData` bytes, the copies of a row next to each other. A checkpoint
//! first writes the rows kept since the last one as the row-state join keeps them (`[state
//! key][row]` -> count, layout `NoUniqueKey`), so the store mirrors the kept rows and the
//! checkpoint is the row-state join's. A restored operator loads both tables back with one
//! scan each. The first batch holding a row that is not `+I` writes the rows not yet written
//! and hands the operator over to the row-state join for good.

use std::hash::BuildHasher;
use std::ops::Range;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow::compute::{concat_batches, filter_record_batch, interleave, take};
use arrow::datatypes::SchemaRef;
use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use super::side::{counted_value, stored_count};
use super::{Condition, InputState, JoinSpec, JoinType, null_keys};
use crate::binary_row::{RowReader, RowWriter};
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::keys::layout::KEY_GROUP_BYTES;
use crate::ops::Port;
use crate::ops::keyed::Keyed;
use crate::state::{BackendKind, ScanRange, TableId, WriteBatch};
use crate::types::LogicalType;

/// The end of a key's chain of rows.
const END: u32 = u32::MAX;
/// Kept batches under this many rows are merged with their neighbours, so a stream of small
/// batches keeps few (each row is copied at most about log2 of this many times).
const MERGE_BELOW: usize = 4_096;

/// Whether `spec` on `backend` keeps its rows here: an inner join of two inputs without a
/// unique key (rows counted), without a state TTL or mini-batch, on the memory backend.
pub(super) fn applies(spec: &JoinSpec, backend: BackendKind) -> bool {
    let counted = |i: &super::JoinInput| {
        i.state == InputState::NoUniqueKey && i.state_ttl.is_none_or(|t| t.is_zero())
    };
    backend == BackendKind::Memory
        && spec.join_type == JoinType::Inner
        && spec.mini_batch_rows.is_none()
        && counted(&spec.left)
        && counted(&spec.right)
}

/// What of the join's plan a batch needs.
pub(super) struct Plan<'a> {
    /// Each input's join key columns.
    pub keys: [&'a [usize]; 2],
    pub filter_nulls: &'a [bool],
    /// Each input's row writer: the bytes that order a key's rows.
    pub writers: &'a [RowWriter; 2],
    pub condition: Option<&'a Condition>,
    /// The output's schema (left columns, then right).
    pub schema: &'a SchemaRef,
}

/// What the store side of the state needs: the keyed driver, its key hasher and tables.
pub(super) struct Store<'a> {
    pub keyed: &'a mut Keyed,
    pub hasher: &'a KeyHasher,
    pub tables: &'a [TableId; 2],
}

/// Key rows (join key columns as `BinaryRowData`) back to back: all `width` bytes when no
/// key column has a variable part, else bounded by `offsets`.
#[derive(Debug)]
struct KeyRows {
    data: Vec<u8>,
    /// Every row's width, or 0.
    width: usize,
    /// Where each row starts, and the end (none when `width` is set).
    offsets: Vec<usize>,
}

impl KeyRows {
    fn empty(width: usize) -> Self {
        Self {
            data: Vec::new(),
            width,
            offsets: if width > 0 { Vec::new() } else { vec![0] },
        }
    }

    #[inline]
    fn row(&self, row: usize) -> &[u8] {
        if self.width > 0 {
            &self.data[row * self.width..(row + 1) * self.width]
        } else {
            &self.data[self.offsets[row]..self.offsets[row + 1]]
        }
    }

    /// Appends `rows` (a first batch's are taken over, not copied).
    fn append(&mut self, rows: KeyRows) {
        if self.data.is_empty() && self.offsets.len() <= 1 {
            *self = rows;
            return;
        }
        let base = self.data.len();
        self.data.extend_from_slice(&rows.data);
        if self.width == 0 {
            self.offsets
                .extend(rows.offsets[1..].iter().map(|&o| base + o));
        }
    }

    fn bytes(&self) -> usize {
        self.data.len() + 8 * self.offsets.len()
    }
}

/// Whether two key rows are equal: word by word (rows are 8-byte aligned in length), which
/// beats a call to `memcmp` for keys of a few words.
#[inline]
fn same_row(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (a_words, a_tail) = a.as_chunks::<8>();
    let (b_words, b_tail) = b.as_chunks::<8>();
    a_words
        .iter()
        .zip(b_words)
        .all(|(x, y)| u64::from_ne_bytes(*x) == u64::from_ne_bytes(*y))
        && a_tail == b_tail
}

/// The rows of one key hash in an input's index: a chain through them in arrival order.
/// Keys are told apart at the probe (64-bit hashes of different keys almost never meet).
#[derive(Debug)]
struct Chain {
    head: u32,
    tail: u32,
}

/// The rows of some chains, each chain's in the order a probe walks them.
#[derive(Debug, Default)]
struct Ordered {
    ranges: HashMap<u32, Range<usize>>,
    rows: Vec<u32>,
}

impl Ordered {
    fn chain(&self, chain: u32) -> &[u32] {
        &self.rows[self.ranges[&chain].clone()]
    }
}

/// One input's kept rows, numbered from 0 in arrival order.
#[derive(Debug)]
struct Rows {
    /// The input's columns, every one nullable: each kept batch is under it, whatever the
    /// schema it came with.
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    /// Each batch's first row.
    starts: Vec<usize>,
    rows: usize,
    /// Every row's key row and its hash.
    key_rows: KeyRows,
    hashes: Vec<u64>,
    /// The index covers rows `..indexed`; the store holds rows `..written`.
    indexed: usize,
    written: usize,
    /// Each key hash, its first row, and its chain once it has more (else [`END`]): a
    /// hash of one row, the common case, is probed without a look at the chains.
    table: HashTable<(u64, u32, u32)>,
    chains: Vec<Chain>,
    /// Each indexed row's successor in its chain.
    next: Vec<u32>,
    batch_bytes: usize,
}

impl Rows {
    fn new(schema: SchemaRef, key_width: usize) -> Self {
        Self {
            schema,
            batches: Vec::new(),
            starts: Vec::new(),
            rows: 0,
            key_rows: KeyRows::empty(key_width),
            hashes: Vec::new(),
            indexed: 0,
            written: 0,
            table: HashTable::new(),
            chains: Vec::new(),
            next: Vec::new(),
            batch_bytes: 0,
        }
    }

    /// The kept batch holding `row`, and the row's position in it.
    fn locate(&self, row: usize) -> (usize, usize) {
        let b = self.starts.partition_point(|&s| s <= row) - 1;
        (b, row - self.starts[b])
    }

    /// The first row under `hash` and the chain of all of them, if more.
    fn find(&self, hash: u64) -> Option<(u32, u32)> {
        self.table
            .find(hash, |&(h, ..)| h == hash)
            .map(|&(_, head, chain)| (head, chain))
    }

    /// Keeps `batch`, whose rows' key rows are `keys` (back to back, `offsets` from 0).
    fn keep(&mut self, batch: RecordBatch, keys: KeyRows, hashes: Vec<u64>) -> Result<()> {
        let n = batch.num_rows();
        if self.rows + n >= END as usize {
            return Err(Error::State(format!(
                "an insert-only join input keeps at most {} rows in memory",
                END - 1
            )));
        }
        let batch = RecordBatch::try_new(self.schema.clone(), batch.columns().to_vec())?;
        self.key_rows.append(keys);
        if self.hashes.is_empty() {
            self.hashes = hashes;
        } else {
            self.hashes.extend(hashes);
        }
        self.batch_bytes += batch.get_array_memory_size();
        self.starts.push(self.rows);
        self.batches.push(batch);
        self.rows += n;
        self.merge_small()
    }

    /// Merges the last two batches while both are small and the earlier one is no larger:
    /// row numbers are unchanged, so the index and the written mark stay valid.
    fn merge_small(&mut self) -> Result<()> {
        while let [.., a, b] = &self.batches[..] {
            let (a_rows, b_rows) = (a.num_rows(), b.num_rows());
            if a_rows >= MERGE_BELOW || b_rows >= MERGE_BELOW || a_rows > b_rows {
                break;
            }
            let merged = concat_batches(&self.schema, [a, b])?;
            self.batch_bytes -= a.get_array_memory_size() + b.get_array_memory_size();
            self.batch_bytes += merged.get_array_memory_size();
            self.batches.truncate(self.batches.len() - 2);
            self.starts.pop();
            self.batches.push(merged);
        }
        Ok(())
    }

    /// Indexes the rows kept since the last probe.
    fn index(&mut self) {
        let new = self.rows - self.indexed;
        self.next.reserve(new);
        self.table.reserve(new, |&(h, ..)| h);
        for row in self.indexed..self.rows {
            let hash = self.hashes[row];
            let entry = row as u32;
            self.next.push(END);
            match self.table.entry(hash, |&(h, ..)| h == hash, |&(h, ..)| h) {
                Entry::Occupied(mut found) => {
                    let (_, head, chain) = found.get_mut();
                    if *chain == END {
                        *chain = self.chains.len() as u32;
                        self.chains.push(Chain {
                            head: *head,
                            tail: *head,
                        });
                    }
                    let chain = &mut self.chains[*chain as usize];
                    self.next[chain.tail as usize] = entry;
                    chain.tail = entry;
                }
                Entry::Vacant(vacant) => {
                    vacant.insert((hash, entry, END));
                }
            }
        }
        self.indexed = self.rows;
    }

    /// The columns of rows `rows`, in that order.
    fn gather(&self, rows: Vec<u32>) -> Result<Vec<ArrayRef>> {
        let columns = self.schema.fields().len();
        if let [batch] = &self.batches[..] {
            let indices = UInt32Array::from(rows);
            return Ok(batch
                .columns()
                .iter()
                .map(|c| take(c.as_ref(), &indices, None))
                .collect::<std::result::Result<_, _>>()?);
        }
        let at: Vec<(usize, usize)> = rows.iter().map(|&r| self.locate(r as usize)).collect();
        (0..columns)
            .map(|c| {
                let arrays: Vec<&dyn Array> =
                    self.batches.iter().map(|b| b.column(c).as_ref()).collect();
                Ok(interleave(&arrays, &at)?)
            })
            .collect()
    }

    /// The rows of each chain of `multi` (chains of more than one row) in the order the
    /// row-state join walks a key's rows: ascending row bytes (`writer`'s), equal rows
    /// adjacent. Keys sharing a chain keep their rows in that order too.
    fn ordered(&self, multi: &[u32], writer: &RowWriter) -> Result<Ordered> {
        if multi.is_empty() {
            return Ok(Ordered::default());
        }
        let mut rows = Vec::new();
        let mut ranges = HashMap::with_capacity(multi.len());
        for &c in multi {
            let start = rows.len();
            let mut row = self.chains[c as usize].head;
            while row != END {
                rows.push(row);
                row = self.next[row as usize];
            }
            ranges.insert(c, start..rows.len());
        }
        let bytes = writer.write_prefixed(&self.gather(rows.clone())?, rows.len(), 0)?;
        let mut order: Vec<usize> = (0..rows.len()).collect();
        for range in ranges.values() {
            order[range.clone()].sort_by(|&a, &b| bytes.row(a).cmp(bytes.row(b)));
        }
        Ok(Ordered {
            ranges,
            rows: order.into_iter().map(|i| rows[i]).collect(),
        })
    }

    /// About the bytes the rows and their index hold.
    fn bytes(&self) -> usize {
        self.batch_bytes
            + self.key_rows.bytes()
            + 8 * self.hashes.len()
            + 4 * self.next.len()
            + std::mem::size_of::<Chain>() * self.chains.len()
            + 17 * self.table.capacity()
    }
}

/// Both inputs' kept rows.
#[derive(Debug)]
pub(super) struct Columnar {
    sides: [Rows; 2],
    key_writer: RowWriter,
    hasher: DefaultHashBuilder,
    /// What the kept rows hold in the memory store's budget.
    reserved: u64,
}

impl Columnar {
    /// Empty sides for inputs of `schemas` joined on keys of `key_types`.
    pub(super) fn new(key_types: Vec<LogicalType>, schemas: [SchemaRef; 2]) -> Self {
        let key_writer = RowWriter::new(key_types);
        let width = if key_writer.is_fixed_width() {
            key_writer.fixed_len()
        } else {
            0
        };
        let [left, right] = schemas;
        Self {
            sides: [Rows::new(left, width), Rows::new(right, width)],
            key_writer,
            hasher: DefaultHashBuilder::default(),
            reserved: 0,
        }
    }

    /// About the bytes the kept rows and their indexes take.
    pub(super) fn bytes(&self) -> usize {
        self.sides.iter().map(Rows::bytes).sum()
    }

    /// About the bytes joining `batch` on `port` adds at most: the batch kept, its key rows
    /// and hashes, and every row of it and of the other input's unindexed ones a new key.
    pub(super) fn estimate(&self, port: Port, batch: &RecordBatch) -> usize {
        let width = self
            .key_writer
            .fixed_len()
            .max(self.sides[port].key_rows.width);
        let other = &self.sides[1 - port];
        batch.get_array_memory_size()
            + batch.num_rows() * (width + 8 + 8 + 4 + 2 * 17)
            + (other.rows - other.indexed) * (4 + 2 * 17)
    }

    /// Sets what the kept rows hold in the memory store's budget (when it has one) to
    /// `bytes`: [`crate::Error::BudgetExceeded`] past the budget, and nothing changes.
    pub(super) fn reserve(&mut self, keyed: &mut Keyed, bytes: usize) -> Result<()> {
        let bytes = bytes as u64;
        if let Some(reservation) = keyed
            .store_mut()
            .memory_mut()
            .and_then(|m| m.reservation_mut())
        {
            reservation.resize_by(i128::from(bytes) - i128::from(self.reserved))?;
        }
        self.reserved = bytes;
        Ok(())
    }

    /// Each row's key row, and their hashes.
    fn key_rows(&self, batch: &RecordBatch, keys: &[usize]) -> Result<(KeyRows, Vec<u64>)> {
        let columns: Vec<ArrayRef> = keys.iter().map(|&k| batch.column(k).clone()).collect();
        let width = self.sides[0].key_rows.width;
        let rows = if width > 0 {
            let data = self.key_writer.write_fixed(&columns, batch.num_rows())?;
            KeyRows {
                data,
                width,
                offsets: Vec::new(),
            }
        } else {
            let (data, offsets) = self
                .key_writer
                .write_prefixed(&columns, batch.num_rows(), 0)?
                .into_parts();
            KeyRows {
                data,
                width,
                offsets,
            }
        };
        let hashes = (0..batch.num_rows())
            .map(|r| self.hasher.hash_one(rows.row(r)))
            .collect();
        Ok((rows, hashes))
    }

    /// Loads the rows a restored store holds (both tables, one scan each), as kept and
    /// written. `readers` decode each input's rows.
    pub(super) fn load(
        &mut self,
        keyed: &Keyed,
        tables: &[TableId; 2],
        readers: &[RowReader; 2],
        keys: [&[usize]; 2],
    ) -> Result<()> {
        for input in 0..2 {
            let (mut data, mut offsets, mut counts) = (Vec::new(), vec![0], Vec::new());
            let mut stored_keys: Vec<Vec<u8>> = Vec::new();
            let mut failed = None;
            keyed
                .store()
                .scan(tables[input], ScanRange::All, &mut |k, v| {
                    let read = (|| {
                        let state_key = k.get(KEY_GROUP_BYTES..).ok_or_else(|| {
                            Error::State(format!("a join entry's key is {} bytes", k.len()))
                        })?;
                        let len = self.key_writer.row_len(state_key)?;
                        let (key, row) = state_key.split_at(len);
                        counts.push(stored_count(row, v)?);
                        stored_keys.push(key.to_vec());
                        data.extend_from_slice(row);
                        offsets.push(data.len());
                        Ok(())
                    })();
                    match read {
                        Ok(()) => true,
                        Err(e) => {
                            failed = Some(e);
                            false
                        }
                    }
                })?;
            if let Some(e) = failed {
                return Err(e);
            }
            if counts.is_empty() {
                continue;
            }
            let batch = readers[input].read(&data, &offsets)?.batch().clone();
            let (key_rows, hashes) = self.key_rows(&batch, keys[input])?;
            for (r, stored) in stored_keys.iter().enumerate() {
                if key_rows.row(r) != stored.as_slice() {
                    return Err(Error::State(format!(
                        "join entry {r} of input {input} is stored under a key that is not \
                         its row's join key"
                    )));
                }
            }
            // Each copy of a counted row is a row of its own here.
            let (batch, key_rows, hashes) = if counts.iter().all(|&c| c == 1) {
                (batch, key_rows, hashes)
            } else {
                let copies: UInt32Array = counts
                    .iter()
                    .enumerate()
                    .flat_map(|(r, &c)| std::iter::repeat_n(r as u32, c as usize))
                    .collect();
                let columns = batch
                    .columns()
                    .iter()
                    .map(|c| take(c.as_ref(), &copies, None))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                let batch = RecordBatch::try_new(batch.schema(), columns)?;
                let (key_rows, hashes) = self.key_rows(&batch, keys[input])?;
                (batch, key_rows, hashes)
            };
            let side = &mut self.sides[input];
            side.keep(batch, key_rows, hashes)?;
            side.written = side.rows;
        }
        Ok(())
    }

    /// Joins an insert-only batch arriving on `port` (its columns checked): each row with
    /// the other input's rows of its key that pass the condition, left columns then right,
    /// all `+I`. The batch's rows are kept.
    pub(super) fn join(
        &mut self,
        port: Port,
        input: &ChangelogBatch,
        plan: &Plan<'_>,
    ) -> Result<ChangelogBatch> {
        let batch = input.batch();
        if batch.num_rows() == 0 {
            return Ok(ChangelogBatch::insert_only(RecordBatch::new_empty(
                plan.schema.clone(),
            )));
        }
        let (key_rows, hashes) = self.key_rows(batch, plan.keys[port])?;
        let other = &mut self.sides[1 - port];
        other.index();
        let output = if other.table.is_empty() {
            RecordBatch::new_empty(plan.schema.clone())
        } else {
            let nulls = null_keys(plan.keys[port], plan.filter_nulls, batch);
            let null = |r: usize| nulls.as_ref().is_some_and(|n| n[r]);
            let other = &self.sides[1 - port];
            // Each row's first stored row of its hash and chain (END: none).
            let mut found = vec![(END, END); batch.num_rows()];
            let mut multi = Vec::new();
            for (r, hash) in hashes.iter().enumerate() {
                if null(r) {
                    continue;
                }
                if let Some((head, chain)) = other.find(*hash) {
                    found[r] = (head, chain);
                    if chain != END {
                        multi.push(chain);
                    }
                }
            }
            multi.sort_unstable();
            multi.dedup();
            let ordered = other.ordered(&multi, &plan.writers[1 - port])?;
            let rows = batch.num_rows();
            let (mut probe_rows, mut stored_rows) =
                (Vec::with_capacity(rows), Vec::with_capacity(rows));
            for (r, &(head, chain)) in found.iter().enumerate() {
                if head == END {
                    continue;
                }
                let key = key_rows.row(r);
                if chain == END {
                    if same_row(other.key_rows.row(head as usize), key) {
                        probe_rows.push(r as u32);
                        stored_rows.push(head);
                    }
                    continue;
                }
                for &row in ordered.chain(chain) {
                    if same_row(other.key_rows.row(row as usize), key) {
                        probe_rows.push(r as u32);
                        stored_rows.push(row);
                    }
                }
            }
            joined(batch, probe_rows, &other.gather(stored_rows)?, port, plan)?
        };
        self.sides[port].keep(batch.clone(), key_rows, hashes)?;
        Ok(ChangelogBatch::insert_only(output))
    }

    /// Writes the rows kept since the last write as the row-state join keeps them (each
    /// row's entry counts its copies), with one write batch.
    pub(super) fn write(
        &mut self,
        store: Store<'_>,
        writers: &[RowWriter; 2],
        keys: [&[usize]; 2],
    ) -> Result<()> {
        let mut added: [HashMap<Vec<u8>, u32>; 2] = Default::default();
        for input in 0..2 {
            let side = &self.sides[input];
            for (b, batch) in side.batches.iter().enumerate() {
                let start = side.starts[b];
                let end = start + batch.num_rows();
                if end <= side.written {
                    continue;
                }
                let from = side.written.max(start) - start;
                let batch = batch.slice(from, end - start - from);
                let (groups, row_group) = store.keyed.groups(store.hasher, &batch, keys[input])?;
                let rows = writers[input].write_prefixed(batch.columns(), batch.num_rows(), 0)?;
                for (r, &g) in row_group.iter().enumerate() {
                    let mut entry = groups.key(g as usize).to_vec();
                    entry.extend_from_slice(rows.row(r));
                    *added[input].entry(entry).or_insert(0) += 1;
                }
            }
        }
        let mut batch = WriteBatch::new();
        for (input, added) in added.iter().enumerate() {
            let mut added: Vec<(&[u8], u32)> =
                added.iter().map(|(e, &c)| (e.as_slice(), c)).collect();
            added.sort_unstable();
            let (entries, mut counts): (Vec<&[u8]>, Vec<u32>) = added.into_iter().unzip();
            store.keyed.store().multi_get_each(
                store.tables[input],
                &entries,
                &mut |i, value| {
                    if let Some(value) = value {
                        let state_key = &entries[i][KEY_GROUP_BYTES..];
                        let row = &state_key[self.key_writer.row_len(state_key)?..];
                        counts[i] += stored_count(row, value)?;
                    }
                    Ok(())
                },
            )?;
            for (entry, count) in entries.iter().zip(counts) {
                batch.put(store.tables[input], entry, counted_value(count));
            }
        }
        if !batch.is_empty() {
            store.keyed.store_mut().write(&batch)?;
        }
        for side in &mut self.sides {
            side.written = side.rows;
        }
        Ok(())
    }
}

/// The joined rows: probe row `probe_rows[i]` of `batch` (arriving on `port`) with stored
/// row `i` of `stored`, left columns then right, kept where the condition holds.
fn joined(
    batch: &RecordBatch,
    probe_rows: Vec<u32>,
    stored: &[ArrayRef],
    port: Port,
    plan: &Plan<'_>,
) -> Result<RecordBatch> {
    let rows = probe_rows.len();
    // Every row matched once, in order: the batch's own columns.
    let probe: Vec<ArrayRef> = if probe_rows.len() == batch.num_rows()
        && probe_rows.iter().enumerate().all(|(i, &r)| r as usize == i)
    {
        batch.columns().to_vec()
    } else {
        let indices = UInt32Array::from(probe_rows);
        batch
            .columns()
            .iter()
            .map(|c| take(c.as_ref(), &indices, None))
            .collect::<std::result::Result<_, _>>()?
    };
    let columns: Vec<ArrayRef> = if port == 0 {
        probe.into_iter().chain(stored.iter().cloned()).collect()
    } else {
        stored.iter().cloned().chain(probe).collect()
    };
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    let Some((condition, pair_schema)) = plan.condition else {
        return Ok(RecordBatch::try_new_with_options(
            plan.schema.clone(),
            columns,
            &options,
        )?);
    };
    let pairs = RecordBatch::try_new_with_options(pair_schema.clone(), columns.clone(), &options)?;
    let verdict = condition.evaluate(&ChangelogBatch::insert_only(pairs))?;
    let verdict = verdict.batch().column(0).as_boolean();
    let output = RecordBatch::try_new_with_options(plan.schema.clone(), columns, &options)?;
    // A NULL verdict is not TRUE: the filter drops the pair.
    Ok(filter_record_batch(&output, verdict)?)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Int64Type, Schema};
    use tempfile::tempdir;

    use super::super::{Join, JoinInput};
    use super::*;
    use crate::ops::keyed::KeyedOperator;
    use crate::ops::{Operator, Output, StateConfig};
    use crate::state::checkpoint::Checkpoint;
    use crate::types::LogicalType;

    /// `(k, v)`: a string join key (inline, long or NULL) and a number.
    type Row = (Option<&'static str>, i64);

    const KEYS: [Option<&str>; 6] = [
        Some(""),
        Some("a"),
        Some("seven b"),
        Some("a key longer than a slot"),
        Some("another key, many more bytes than a slot holds"),
        None,
    ];

    fn spec(condition: bool) -> JoinSpec {
        let input = |prefix: &str| JoinInput {
            names: vec![format!("{prefix}k"), format!("{prefix}v")],
            types: vec![LogicalType::VarChar(i32::MAX as u32), LogicalType::BigInt],
            keys: vec![0],
            state: InputState::NoUniqueKey,
            state_ttl: None,
        };
        JoinSpec {
            join_type: JoinType::Inner,
            left: input("l"),
            right: input("r"),
            filter_nulls: vec![true],
            condition: condition.then(super::super::tests::left_v_above_right_v),
            max_parallelism: 128,
            mini_batch_rows: None,
        }
    }

    fn batch(rows: &[Row]) -> ChangelogBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Utf8, true),
            Field::new("v", DataType::Int64, false),
        ]));
        let k: StringArray = rows.iter().map(|r| r.0).collect();
        let v: Int64Array = rows.iter().map(|r| Some(r.1)).collect();
        ChangelogBatch::insert_only(
            RecordBatch::try_new(schema, vec![Arc::new(k), Arc::new(v)]).unwrap(),
        )
    }

    /// The joined rows, `(left, right)`, in order.
    fn pairs(out: &[ChangelogBatch]) -> Vec<(Row, Row)> {
        let mut pairs = Vec::new();
        for b in out {
            assert!(b.is_insert_only());
            let b = b.batch();
            let s = |c: usize, r: usize| {
                let a = b.column(c).as_string::<i32>();
                a.is_valid(r)
                    .then(|| *KEYS.iter().flatten().find(|k| **k == a.value(r)).unwrap())
            };
            let v = |c: usize, r: usize| b.column(c).as_primitive::<Int64Type>().value(r);
            pairs.extend((0..b.num_rows()).map(|r| ((s(0, r), v(1, r)), (s(2, r), v(3, r)))));
        }
        pairs
    }

    /// Every entry of both tables.
    fn entries(join: &Join) -> Vec<(usize, Vec<u8>, Vec<u8>)> {
        let mut out = Vec::new();
        for (input, table) in join.tables.iter().enumerate() {
            join.keyed
                .store()
                .scan(*table, ScanRange::All, &mut |k, v| {
                    out.push((input, k.to_vec(), v.to_vec()));
                    true
                })
                .unwrap();
        }
        out
    }

    fn open(spec: &JoinSpec, columnar: bool) -> Join {
        let config = StateConfig::memory();
        let keyed = Keyed::new(config.open("join").unwrap(), 128, config.clock.clone()).unwrap();
        let mut join = Join::open(spec.clone(), keyed).unwrap();
        assert!(join.columnar.is_some());
        if !columnar {
            join.columnar = None;
        }
        join
    }

    #[test]
    fn kept_rows_join_as_a_nested_loop_and_checkpoint_as_the_row_state_join_does() {
        let mut seed = 0x5eed_0c01_u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for condition in [false, true] {
            let spec = spec(condition);
            let (mut kept, mut rows) = (open(&spec, true), open(&spec, false));
            let (mut kept_out, mut rows_out) = (Output::new(), Output::new());
            let mut seen: [Vec<Row>; 2] = [Vec::new(), Vec::new()];
            let mut expected = Vec::new();
            let dir = tempdir().unwrap();
            for step in 0..60 {
                let port = next(2) as usize;
                let input: Vec<Row> = (0..1 + next(40))
                    .map(|_| (KEYS[next(6) as usize], next(4) as i64))
                    .collect();
                // The oracle: each row joins every earlier row of the other input with its
                // (non-NULL) key that the condition accepts.
                for row in &input {
                    for other in &seen[1 - port] {
                        let (l, r) = if port == 0 {
                            (*row, *other)
                        } else {
                            (*other, *row)
                        };
                        if l.0.is_some() && l.0 == r.0 && (!condition || l.1 > r.1) {
                            expected.push((l, r));
                        }
                    }
                }
                seen[port].extend(input.iter().copied());
                kept.process(port, &batch(&input), &mut kept_out).unwrap();
                rows.process(port, &batch(&input), &mut rows_out).unwrap();
                if step % 20 == 19 {
                    // Restored from a checkpoint: the kept rows are loaded from the store.
                    let c = kept
                        .checkpoint(&dir.path().join(format!("c{step}")))
                        .unwrap();
                    kept = <Join as KeyedOperator>::restore(
                        spec.clone(),
                        &StateConfig::memory(),
                        0..=127,
                        &[Checkpoint::open(c.path()).unwrap()],
                    )
                    .unwrap();
                    assert!(kept.columnar.is_some());
                }
            }
            let (kept_pairs, rows_pairs) = (pairs(&kept_out.take()), pairs(&rows_out.take()));
            assert_eq!(
                kept_pairs, rows_pairs,
                "condition {condition}: the row-state join's order"
            );
            let sorted = |mut v: Vec<(Row, Row)>| {
                v.sort();
                v
            };
            assert!(expected.len() > 1_000, "only {} pairs", expected.len());
            assert_eq!(
                sorted(kept_pairs),
                sorted(expected),
                "condition {condition}"
            );
            kept.checkpoint(&dir.path().join("kept")).unwrap();
            rows.checkpoint(&dir.path().join("rows")).unwrap();
            assert_eq!(
                entries(&kept),
                entries(&rows),
                "condition {condition}: the state"
            );
        }
    }

    #[test]
    fn a_retraction_hands_the_kept_rows_to_the_row_state_join() {
        let spec = spec(false);
        let (mut kept, mut rows) = (open(&spec, true), open(&spec, false));
        let (mut kept_out, mut rows_out) = (Output::new(), Output::new());
        let left: Vec<Row> = (0..30).map(|i| (KEYS[i % 6], i as i64 % 3)).collect();
        let right: Vec<Row> = (0..20).map(|i| (KEYS[i % 5], i as i64)).collect();
        for (port, input) in [(0, &left), (1, &right)] {
            kept.process(port, &batch(input), &mut kept_out).unwrap();
            rows.process(port, &batch(input), &mut rows_out).unwrap();
        }
        assert!(kept.columnar.is_some());
        let mut retraction = batch(&left[..10]);
        retraction = ChangelogBatch::try_new(
            retraction.batch().clone(),
            Some(arrow::array::Int8Array::from(vec![RowKindByte::DELETE; 10])),
        )
        .unwrap();
        kept.process(0, &retraction, &mut kept_out).unwrap();
        rows.process(0, &retraction, &mut rows_out).unwrap();
        assert!(kept.columnar.is_none(), "the row-state join took over");
        let tail = batch(&right[..7]);
        kept.process(1, &tail, &mut kept_out).unwrap();
        rows.process(1, &tail, &mut rows_out).unwrap();
        let (kept_out, rows_out) = (kept_out.take(), rows_out.take());
        assert_eq!(kept_out.len(), rows_out.len());
        for (a, b) in kept_out.iter().zip(&rows_out) {
            assert_eq!(a.batch().columns(), b.batch().columns());
            assert_eq!(
                (0..a.num_rows()).map(|r| a.kind(r)).collect::<Vec<_>>(),
                (0..b.num_rows()).map(|r| b.kind(r)).collect::<Vec<_>>()
            );
        }
        let dir = tempdir().unwrap();
        kept.checkpoint(&dir.path().join("kept")).unwrap();
        rows.checkpoint(&dir.path().join("rows")).unwrap();
        assert_eq!(entries(&kept), entries(&rows));
    }

    #[test]
    fn kept_rows_are_held_in_the_memory_budget_and_a_refused_batch_changes_nothing() {
        use crate::ops::restore::StateBudget;
        use crate::state::budget::MemoryBudget;

        let budget = MemoryBudget::new(200_000);
        let config = StateConfig {
            budget: Some(StateBudget {
                budget: budget.clone(),
                rocks_bytes: 0,
            }),
            ..StateConfig::memory()
        };
        let keyed = Keyed::new(config.open("join").unwrap(), 128, config.clock.clone()).unwrap();
        let mut join = Join::open(spec(false), keyed).unwrap();
        let rows = |n: usize, v: i64| -> Vec<Row> { (0..n).map(|i| (KEYS[i % 5], v)).collect() };
        let mut out = Output::new();
        join.process(0, &batch(&rows(100, 1)), &mut out).unwrap();
        let held = budget.reserved();
        assert!(held >= join.columnar.as_ref().unwrap().bytes() as u64);
        // 5,000 rows do not fit what is left: refused, and nothing is kept or emitted.
        let refused = join.process(1, &batch(&rows(5_000, 2)), &mut out);
        assert!(
            matches!(refused, Err(Error::BudgetExceeded { .. })),
            "{refused:?}"
        );
        assert_eq!(budget.reserved(), held);
        assert!(out.take().is_empty());
        // The join goes on: one right row joins the 20 left rows of its key.
        join.process(1, &batch(&rows(1, 2)), &mut out).unwrap();
        assert_eq!(pairs(&out.take()).len(), 20);
        // Handing over to the row-state join releases what the kept rows held.
        let mut retraction = batch(&rows(1, 2));
        retraction = ChangelogBatch::try_new(
            retraction.batch().clone(),
            Some(arrow::array::Int8Array::from(vec![RowKindByte::DELETE])),
        )
        .unwrap();
        join.process(1, &retraction, &mut out).unwrap();
        assert!(join.columnar.is_none());
        assert_eq!(budget.reserved(), join.keyed.store().memory_bytes());
    }

    struct RowKindByte;
    impl RowKindByte {
        const DELETE: i8 = crate::changelog::RowKind::Delete as i8;
    }
}
