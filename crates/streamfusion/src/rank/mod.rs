//! Top-N: Flink's `StreamExecRank`, the plan of
//! `ROW_NUMBER() OVER (PARTITION BY k ORDER BY s) ... WHERE rn <= N` (or `BETWEEN a AND b`),
//! over insert-only input (the `AppendFast` strategy; released Flink 2.3.0's
//! `AppendOnlyTopNFunction`, `FastTop1Function` and `AppendOnlyFirstNFunction`, with their
//! helpers `AppendOnlyTopNHelper`, `FastTop1Helper` and `TopNBuffer`), the Top-1 over an
//! updating input that Flink also runs with `FastTop1Function` (`UpdateFast`, range 1..1),
//! the Top-N over any updating input (`Retract`, `RetractableTopNFunction`, see
//! [`retract`]), and the Top-N over an upsert input with a monotonic sort key (`UpdateFast`,
//! `UpdatableTopNFunction`, see [`update`]).
//!
//! | function | when Flink picks it | state per partition |
//! |---|---|---|
//! | First-N | one ascending sort field, a processing-time attribute | the count of rows taken |
//! | Top-1 | rank range 1..1 | the winning row |
//! | Top-N | otherwise | the buffer: sort keys in order, each with its rows in arrival order |
//! | retracting Top-N | an updating input (`Retract`) | each sort key's count, and its rows in arrival order |
//! | updatable Top-N | an upsert input, monotonic sort key (`UpdateFast`) | the buffer: sort keys in order, each with its unique keys and rows in arrival order |
//!
//! Only `ROW_NUMBER` with a constant rank range exists for streams in Flink (`RANK`,
//! `DENSE_RANK` and a rank end read from a column are refused, as Flink's translator and
//! `AbstractTopNFunction` refuse them). Ranks are 1-based; with `rank_name` the rank is a
//! trailing BIGINT column.
//!
//! # Emission (exactly as Flink's functions)
//!
//! - First-N: a partition's first `rank_end` rows are taken; with the rank column or an
//!   offset, a taken row is `+I` only when its rank is in `[rank_start, rank_end]`.
//! - Top-1: a partition's first row is `+I`; a later row whose sort key is strictly smaller
//!   (ties keep the winner) is `-U(winner)` (when `-U` is generated) then `+U(row)`.
//! - Top-N: a row enters the buffer when the buffer is empty, its sort key is strictly
//!   before the worst key, or the buffer holds fewer than `rank_end` rows
//!   (`TopNBuffer.checkSortKeyInBufferRange`: a tie with the worst key of a full buffer is
//!   rejected); it goes after the rows of an equal key. Then:
//!   - without the rank column and without an offset: when the buffer holds more than
//!     `rank_end` rows its last row leaves, `-D` unless it is the row that just came (by
//!     `BinaryRowData.equals`: the bytes); then the row is `+I`;
//!   - otherwise the buffer is walked in order: ranks up to the row's own key are counted;
//!     each later row in range is `-U(it, r)` then `+U(the row before it, r)`, shifting
//!     down; the row left over is `+I` at the next rank when that is within `rank_end`; the
//!     keys after the last visited one leave the buffer. Emission of a rank outside
//!     `[rank_start, rank_end]` is suppressed.
//!
//! Sort keys compare as Flink's generated comparator compares them: field by field, NULLs
//! first or last as the field says (not reversed by `DESC`), strings and binaries by their
//! bytes, numbers, decimals and times by value, FLOAT/DOUBLE with `<` and `>`: `-0.0` ties
//! with `0.0`, and a NaN ties with every value (so the next field decides). A Top-1 compares
//! its winner that way. A Top-N refuses a FLOAT/DOUBLE sort field: where a NaN row lands
//! in Flink's tree depends on the tree's shape, and its with-rank walk fails the job on a
//! `-0.0` beside a `0.0` (decision 0028). First-N never compares sort keys.
//!
//! # State
//!
//! `[key group][partition key row]` -> the partition's count, winner, or buffer (see
//! [`Buffer`]); rows are BinaryRowData with header `+I`, as Flink's state holds the copies
//! of the input rows. Without state TTL the partitions a batch touches stay decoded in a
//! bounded cache ([`PartitionCache`], decision 0034) and are written when they leave it and before
//! each checkpoint; with state TTL each is rewritten when it changes, its value carrying the
//! expiry header, and expires a TTL after its last change (decision 0028 says how that
//! relates to Flink's heap caches). Checkpointed and rescaled with its key groups.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use arrow::array::{ArrayRef, Int64Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::row::{RowConverter, Rows, SortField};

use crate::aggregate::group::{access_order, check_columns};
use crate::binary_row::{BinaryRows, RowReader, RowWriter, null_bits_width};
use crate::changelog::{ChangelogBatch, RowKind};
use crate::emissions::Emissions;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::ops::keyed::{Keyed, KeyedOperator};
use crate::ops::partition_cache::{CAPACITY_BYTES, CachedPartition, PartitionCache};
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::state::rows::Groups;
use crate::state::ttl::{StateTtl, TTL_TABLE_PREFIX};
use crate::state::{TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;

#[cfg(test)]
mod cache_tests;
mod retract;
mod update;
mod walk;
pub mod window;

/// The version of the rank state layout, stored with its checkpoints.
pub const STATE_VERSION: u32 = 1;
const STATE_TABLE: &str = "rank.state";

/// Which of Flink's functions a Top-N plan is (`StreamExecRank` picks it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankFunction {
    /// `AppendOnlyFirstNFunction`: the first rows by processing time.
    FirstN,
    /// `FastTop1Function`: rank range 1..1.
    Top1,
    /// `AppendOnlyTopNFunction`.
    TopN,
    /// `RetractableTopNFunction`: any updating input.
    Retract,
    /// `UpdatableTopNFunction`: an upsert input with a unique key and a monotonic sort key.
    Update,
}

/// One sort field (Flink's `SortSpec.SortFieldSpec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SortKey {
    /// The input column.
    pub column: usize,
    /// Ascending (else descending).
    pub ascending: bool,
    /// NULLs after every value (else before), whatever the direction.
    pub nulls_last: bool,
}

/// A Top-N plan, as JSON: `{"input_names": ["k", "v"], "input_types": ["BIGINT", "INT"],
/// "partition_keys": [0], "sort": [{"column": 1, "ascending": false, "nulls_last": true}],
/// "function": "top_n", "rank_start": 1, "rank_end": 3, "rank_name": "rn",
/// "generate_update_before": true, "input_updates": false, "state_ttl_ms": null,
/// "max_parallelism": 128}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankSpec {
    /// Input column names (the output's, then the rank column's).
    pub input_names: Vec<String>,
    /// Input column types.
    pub input_types: Vec<LogicalType>,
    /// The partition key columns (`PARTITION BY`; empty for a global Top-N).
    pub partition_keys: Vec<usize>,
    /// The sort fields (`ORDER BY`).
    pub sort: Vec<SortKey>,
    /// The function Flink runs.
    pub function: RankFunction,
    /// The first rank emitted (1-based).
    pub rank_start: i64,
    /// The last rank emitted.
    pub rank_end: i64,
    /// The rank number's output column (BIGINT NOT NULL, after the input's), if output.
    pub rank_name: Option<String>,
    /// Emit `-U` before `+U`.
    pub generate_update_before: bool,
    /// The input updates (Flink's `UpdateFastStrategy`: its upsert key holds the partition
    /// key and the sort key moves one way). Only a Top-1 takes it: `FastTop1Function` treats
    /// every row alike, whatever its kind.
    #[serde(default)]
    pub input_updates: bool,
    /// The input's unique key columns (Flink's `UpdateFastStrategy.primaryKeys`), which
    /// an updatable Top-N keys its rows by; empty otherwise.
    #[serde(default)]
    pub unique_key: Vec<usize>,
    /// `table.exec.state.ttl`; `None` (or zero) disables it.
    #[serde(rename = "state_ttl_ms", with = "crate::ops::plan::millis")]
    pub state_ttl: Option<Duration>,
    /// The job's max parallelism (number of key groups).
    pub max_parallelism: u32,
}

impl RankSpec {
    /// What of the plan decides the state: types, keys, sort, function, rank end, which
    /// Top-N algorithm keeps the buffer (the walk with ranks keeps ties past the end, the
    /// one without assumes at most one row past it) and whether TTL is on. Names and `-U`
    /// are left out.
    pub fn semantics(&self) -> serde_json::Value {
        serde_json::json!({
            "input_types": self.input_types.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "partition_keys": self.partition_keys,
            "sort": self.sort,
            "function": self.function,
            "unique_key": self.unique_key,
            "rank_end": self.rank_end,
            "with_rank_walk": self.with_rank_walk(),
            "state_ttl": self.ttl().is_some(),
        })
    }

    /// Whether a Top-N walks its buffer with ranks (`processElementWithRowNumber`): with
    /// the rank column or an offset.
    fn with_rank_walk(&self) -> bool {
        self.rank_name.is_some() || self.has_offset()
    }

    fn ttl(&self) -> Option<Duration> {
        self.state_ttl.filter(|d| !d.is_zero())
    }

    fn has_offset(&self) -> bool {
        self.rank_start > 1
    }

    fn in_range(&self, rank: i64) -> bool {
        self.rank_start <= rank && rank <= self.rank_end
    }

    /// The output types: the input's, then the rank (BIGINT) when output.
    fn output_types(&self) -> Vec<LogicalType> {
        let mut types = self.input_types.clone();
        if self.rank_name.is_some() {
            types.push(LogicalType::BigInt);
        }
        types
    }
}

/// An emitted row with its rank (0 when no rank column is output).
#[derive(Debug, Default)]
struct Ranked {
    emits: Emissions,
    ranks: Vec<i64>,
}

/// A batch's rows as the functions read them, made before any state is taken: sort keys
/// and BinaryRowData (every function but First-N), unique keys (an updatable Top-N).
#[derive(Default)]
struct Prepared {
    keys: Option<Rows>,
    rows: Option<BinaryRows>,
    uniques: Option<Rows>,
}

impl Prepared {
    /// The sort keys and rows, which [`Rank::prepare`] makes for every function that sorts.
    fn sorted(&self) -> (&Rows, &BinaryRows) {
        match (&self.keys, &self.rows) {
            (Some(keys), Some(rows)) => (keys, rows),
            _ => unreachable!("a sorting Top-N's rows are prepared"),
        }
    }
}

/// The row a with-rank walk carries down: the input row, or a buffer row (entry, row).
#[derive(Debug, Clone, Copy)]
enum Carried {
    Input(usize),
    Stored(usize, usize),
}

impl Ranked {
    fn input(&mut self, kind: RowKind, row: usize, rank: i64) {
        self.emits.input(kind, row);
        self.ranks.push(rank);
    }

    fn stored(&mut self, kind: RowKind, row: &[u8], rank: i64) {
        self.emits.stored(kind, row);
        self.ranks.push(rank);
    }

    fn carried(&mut self, kind: RowKind, row: Carried, buffer: &Buffer, rank: i64) {
        match row {
            Carried::Input(r) => self.input(kind, r, rank),
            Carried::Stored(e, r) => self.stored(kind, &buffer.entries[e].rows[r], rank),
        }
    }
}

/// One sort key of a buffer: its encoded key and its rows in arrival order.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    key: Vec<u8>,
    rows: Vec<Vec<u8>>,
}

/// A partition's Top-N buffer (Flink's `TopNBuffer`): entries in sort-key order.
///
/// Stored as `[u32 entries]` then per entry `[u32 key length][key][u32 rows]` and per row
/// `[u32 length][BinaryRowData]`, little-endian.
#[derive(Debug, Clone, Default, PartialEq)]
struct Buffer {
    entries: Vec<Entry>,
    rows: usize,
}

impl Buffer {
    fn decode(bytes: &[u8]) -> Result<Self> {
        let mut at = 0;
        let mut next = |n: usize| -> Result<&[u8]> {
            let part = bytes.get(at..at + n).ok_or_else(|| {
                Error::State(format!("a Top-N buffer ends after {} bytes", bytes.len()))
            })?;
            at += n;
            Ok(part)
        };
        let u32_at = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize;
        let entries = u32_at(next(4)?);
        let mut buffer = Buffer::default();
        for _ in 0..entries {
            let key_len = u32_at(next(4)?);
            let key = next(key_len)?.to_vec();
            let count = u32_at(next(4)?);
            let mut rows = Vec::with_capacity(count);
            for _ in 0..count {
                let len = u32_at(next(4)?);
                rows.push(next(len)?.to_vec());
            }
            buffer.rows += rows.len();
            buffer.entries.push(Entry { key, rows });
        }
        if at != bytes.len() {
            return Err(Error::State(format!(
                "a Top-N buffer of {} bytes has {} bytes after its entries",
                bytes.len(),
                bytes.len() - at
            )));
        }
        Ok(buffer)
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let u32_of = |n: usize| (n as u32).to_le_bytes();
        out.extend_from_slice(&u32_of(self.entries.len()));
        for e in &self.entries {
            out.extend_from_slice(&u32_of(e.key.len()));
            out.extend_from_slice(&e.key);
            out.extend_from_slice(&u32_of(e.rows.len()));
            for row in &e.rows {
                out.extend_from_slice(&u32_of(row.len()));
                out.extend_from_slice(row);
            }
        }
        out
    }

    /// `TopNBuffer.checkSortKeyInBufferRange`.
    fn accepts(&self, key: &[u8], top_n: i64) -> bool {
        match self.entries.last() {
            None => true,
            Some(worst) => key < worst.key.as_slice() || (self.rows as i64) < top_n,
        }
    }

    /// `TopNBuffer.put`: after the rows of an equal key.
    fn put(&mut self, key: &[u8], row: Vec<u8>) {
        match self.entries.binary_search_by(|e| e.key.as_slice().cmp(key)) {
            Ok(i) => self.entries[i].rows.push(row),
            Err(i) => self.entries.insert(
                i,
                Entry {
                    key: key.to_vec(),
                    rows: vec![row],
                },
            ),
        }
        self.rows += 1;
    }

    /// Keeps the first `rows` rows, in order.
    fn keep_first(&mut self, rows: usize) {
        while self.rows > rows {
            let last = self.entries.last_mut().expect("rows lie in entries");
            last.rows.pop();
            if last.rows.is_empty() {
                self.entries.pop();
            }
            self.rows -= 1;
        }
    }

    /// Removes the entries from `from` on.
    fn truncate(&mut self, from: usize) {
        for e in self.entries.drain(from..) {
            self.rows -= e.rows.len();
        }
    }
}

/// One partition's state during a batch.
#[derive(Debug)]
enum PartitionState {
    /// First-N: rows taken.
    Count(i64),
    /// Top-1: the winner's sort key and row, if any.
    Winner(Option<(Vec<u8>, Vec<u8>)>),
    /// Top-N.
    Buffer(Buffer),
    /// Retracting Top-N.
    Retracting(retract::Retracting),
    /// Updatable Top-N.
    Updating(update::Updating),
}

/// The Top-N operator over one task's keyed state.
pub struct Rank {
    spec: RankSpec,
    identity: PlanIdentity,
    keyed: Keyed,
    hasher: KeyHasher,
    writer: RowWriter,
    reader: RowReader,
    /// Sort keys as bytes that order as Flink's comparator (see [`Rank::sort_keys`]).
    sort_keys: RowConverter,
    /// Unique keys as bytes equal where Flink's key rows are (an updatable Top-N only).
    unique_keys: Option<RowConverter>,
    schema: SchemaRef,
    output_types: Vec<LogicalType>,
    table: TableId,
    ttl: Option<StateTtl>,
    /// Decoded partitions between batches; `None` with state TTL (values expire).
    cache: Option<PartitionCache<PartitionState>>,
    /// Why a batch failed after it took partitions out of the cache: the operator then
    /// holds no consistent state and refuses everything (its job restores a checkpoint).
    failed: Option<String>,
}

impl std::fmt::Debug for Rank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rank")
            .field("function", &self.spec.function)
            .field("partition_keys", &self.spec.partition_keys)
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

impl Rank {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &RankSpec) -> PlanIdentity {
        PlanIdentity::new(OperatorKind::Rank, STATE_VERSION, &spec.semantics())
    }

    /// An operator for `spec` over the keyed driver `keyed` (fresh or restored). A plan
    /// Flink would refuse (a column out of range, a sort key that cannot be compared, a
    /// Top-1 whose range is not 1..1) is an error.
    pub fn open(spec: RankSpec, mut keyed: Keyed) -> Result<Self> {
        check_spec(&spec)?;
        if keyed.max_parallelism() != spec.max_parallelism {
            return Err(Error::OutOfRange(format!(
                "the plan's max parallelism is {} but its state has {} key groups",
                spec.max_parallelism,
                keyed.max_parallelism()
            )));
        }
        let ttl = spec
            .ttl()
            .map(|d| StateTtl::new(d, keyed.clock().clone()))
            .transpose()?;
        let name = match ttl {
            Some(_) => format!("{TTL_TABLE_PREFIX}{STATE_TABLE}"),
            None => STATE_TABLE.to_string(),
        };
        let table = keyed
            .store_mut()
            .open_table_with(&name, TableAccess::Point)?;
        let mut fields: Vec<Field> = spec
            .input_names
            .iter()
            .zip(&spec.input_types)
            .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
            .collect();
        if let Some(name) = &spec.rank_name {
            fields.push(Field::new(name, DataType::Int64, false));
        }
        let unique_keys = match spec.function {
            RankFunction::Update => Some(RowConverter::new(
                spec.unique_key
                    .iter()
                    .map(|&c| SortField::new(spec.input_types[c].to_arrow()))
                    .collect(),
            )?),
            _ => None,
        };
        let key_types = spec
            .partition_keys
            .iter()
            .map(|&k| spec.input_types[k].clone())
            .collect();
        Ok(Self {
            identity: Self::identity_of(&spec),
            hasher: KeyHasher::new(key_types),
            writer: RowWriter::new(spec.input_types.clone()),
            reader: RowReader::new(spec.input_types.clone()),
            sort_keys: sort_converter(&spec.sort, &spec.input_types)?,
            unique_keys,
            schema: Arc::new(Schema::new(fields)),
            output_types: spec.output_types(),
            table,
            cache: ttl.is_none().then(|| PartitionCache::new(CAPACITY_BYTES)),
            ttl,
            failed: None,
            keyed,
            spec,
        })
    }

    /// The plan.
    pub fn spec(&self) -> &RankSpec {
        &self.spec
    }

    /// The keyed driver (store, key groups, watermark).
    pub fn keyed(&self) -> &Keyed {
        &self.keyed
    }

    fn check_input(&self, input: &ChangelogBatch) -> Result<()> {
        check_columns("rank input batch", &self.spec.input_types, input.batch())?;
        if self.spec.input_updates
            || matches!(
                self.spec.function,
                RankFunction::Retract | RankFunction::Update
            )
        {
            // An updatable Top-N, as Flink's, takes every row as an upsert of its key.
            return Ok(());
        }
        // The append-only strategy is planned for insert-only input only.
        ops::expect_insert_only(input, "an append-only Top-N")
    }

    /// An error when an earlier batch failed half way (see [`Rank::failed`]).
    fn check_usable(&self) -> Result<()> {
        match &self.failed {
            None => Ok(()),
            Some(why) => Err(Error::State(format!(
                "the Top-N failed in an earlier batch and holds no consistent state: {why}"
            ))),
        }
    }

    /// Applies one batch, row by row in input order; returns its changelog.
    fn apply(&mut self, input: &ChangelogBatch) -> Result<ChangelogBatch> {
        self.check_usable()?;
        self.check_input(input)?;
        let n = input.num_rows();
        if n == 0 {
            return self.output(input, &Ranked::default());
        }
        // What left the cache after the last batch is written first: a failure here
        // changes nothing.
        self.write_evicted()?;
        let (groups, row_group) = self.groups(input)?;
        let order = access_order(self.keyed.store(), &[self.table], &groups);
        // Everything that reads the input comes before the states are taken.
        let prepared = self.prepare(input)?;
        let (mut states, dirty) = self.read(&groups, &order)?;
        let mut changed = vec![false; groups.len()];
        let mut out = Ranked::default();
        if let Err(e) = self.rank_rows(
            input,
            &prepared,
            &row_group,
            &mut states,
            &mut changed,
            &mut out,
        ) {
            if self.cache.is_some() {
                self.failed = Some(e.to_string());
            }
            return Err(e);
        }
        self.put_back(&groups, &order, states, &changed, &dirty)?;
        self.output(input, &out)
    }

    /// The input's sort keys, rows and unique keys, as the function reads them.
    fn prepare(&self, input: &ChangelogBatch) -> Result<Prepared> {
        if self.spec.function == RankFunction::FirstN {
            return Ok(Prepared::default());
        }
        let uniques = match &self.unique_keys {
            Some(converter) => {
                let columns: Vec<ArrayRef> = self
                    .spec
                    .unique_key
                    .iter()
                    .map(|&c| input.batch().column(c).clone())
                    .collect();
                Some(converter.convert_columns(&columns)?)
            }
            None => None,
        };
        Ok(Prepared {
            keys: Some(self.sort_keys(input)?),
            rows: Some(self.writer.write(input.batch().columns())?),
            uniques,
        })
    }

    /// Ranks every input row (`row_group`: its partition) into `out`, changing `states`
    /// and marking them `changed`.
    fn rank_rows(
        &self,
        input: &ChangelogBatch,
        prepared: &Prepared,
        row_group: &[u32],
        states: &mut [PartitionState],
        changed: &mut [bool],
        out: &mut Ranked,
    ) -> Result<()> {
        match self.spec.function {
            RankFunction::FirstN => {
                for (row, &slot) in row_group.iter().enumerate() {
                    let PartitionState::Count(count) = &mut states[slot as usize] else {
                        unreachable!("First-N state")
                    };
                    if *count >= self.spec.rank_end {
                        continue;
                    }
                    *count += 1;
                    changed[slot as usize] = true;
                    if self.spec.rank_name.is_some() || self.spec.has_offset() {
                        if self.spec.in_range(*count) {
                            out.input(RowKind::Insert, row, *count);
                        }
                    } else {
                        out.input(RowKind::Insert, row, 0);
                    }
                }
            }
            RankFunction::Top1 => {
                let (keys, rows) = prepared.sorted();
                for (row, &slot) in row_group.iter().enumerate() {
                    let PartitionState::Winner(winner) = &mut states[slot as usize] else {
                        unreachable!("Top-1 state")
                    };
                    let key = keys.row(row);
                    match winner {
                        None => {
                            out.input(RowKind::Insert, row, 1);
                        }
                        Some((best, previous)) => {
                            if !self.beats(
                                key.as_ref(),
                                rows.row(row),
                                best,
                                previous,
                                input,
                                row,
                            )? {
                                continue;
                            }
                            // The partition key is unique in a Top-1: `-U`/`+U`, not `-D`/`+I`.
                            if self.spec.generate_update_before {
                                out.stored(RowKind::UpdateBefore, previous, 1);
                            }
                            out.input(RowKind::UpdateAfter, row, 1);
                        }
                    }
                    *winner = Some((key.as_ref().to_vec(), rows.row(row).to_vec()));
                    changed[slot as usize] = true;
                }
            }
            RankFunction::TopN => {
                let (keys, rows) = prepared.sorted();
                let with_number = self.spec.with_rank_walk();
                for (row, &slot) in row_group.iter().enumerate() {
                    let PartitionState::Buffer(buffer) = &mut states[slot as usize] else {
                        unreachable!("Top-N state")
                    };
                    let key = keys.row(row);
                    if !buffer.accepts(key.as_ref(), self.spec.rank_end) {
                        continue;
                    }
                    let bytes = rows.row(row);
                    buffer.put(key.as_ref(), bytes.to_vec());
                    changed[slot as usize] = true;
                    if with_number {
                        self.with_row_number(buffer, key.as_ref(), row, out);
                    } else {
                        self.without_row_number(buffer, bytes, row, out);
                    }
                }
            }
            RankFunction::Retract => {
                let (keys, rows) = prepared.sorted();
                for (row, &slot) in row_group.iter().enumerate() {
                    let PartitionState::Retracting(state) = &mut states[slot as usize] else {
                        unreachable!("retracting Top-N state")
                    };
                    let accumulate =
                        matches!(input.kind(row), RowKind::Insert | RowKind::UpdateAfter);
                    state.apply(
                        &self.spec,
                        keys.row(row).as_ref(),
                        rows.row(row),
                        accumulate,
                        row,
                        out,
                    )?;
                    changed[slot as usize] = true;
                }
            }
            RankFunction::Update => {
                let (keys, rows) = prepared.sorted();
                let uniques = prepared
                    .uniques
                    .as_ref()
                    .expect("an updatable Top-N's unique keys");
                for (row, &slot) in row_group.iter().enumerate() {
                    let PartitionState::Updating(state) = &mut states[slot as usize] else {
                        unreachable!("updatable Top-N state")
                    };
                    state.apply(
                        &self.spec,
                        keys.row(row).as_ref(),
                        uniques.row(row).as_ref(),
                        rows.row(row),
                        row,
                        out,
                    )?;
                    changed[slot as usize] = true;
                }
            }
        }
        Ok(())
    }

    /// After a batch: its partitions go back into the cache (changed ones marked so), or
    /// without one the changed ones are written.
    fn put_back(
        &mut self,
        groups: &Groups,
        order: &[u32],
        states: Vec<PartitionState>,
        changed: &[bool],
        dirty: &[bool],
    ) -> Result<()> {
        if let Some(cache) = &mut self.cache {
            for (group, state) in states.into_iter().enumerate() {
                cache.put(groups.key(group), state, dirty[group] || changed[group]);
            }
            return Ok(());
        }
        let mut batch = WriteBatch::new();
        for &slot in order {
            if changed[slot as usize] {
                self.write_state(
                    &mut batch,
                    groups.key(slot as usize),
                    &states[slot as usize],
                );
            }
        }
        self.keyed.store_mut().write(&batch)
    }

    /// Puts `state` for `key` into `batch` (an empty partition as a delete).
    fn write_state(&self, batch: &mut WriteBatch, key: &[u8], state: &PartitionState) {
        if state.is_empty() {
            batch.delete(self.table, key);
            return;
        }
        let value = encode_state(state);
        match &self.ttl {
            Some(ttl) => batch.put(self.table, key, ttl.wrap(&value)),
            None => batch.put(self.table, key, &value),
        }
    }

    /// Writes the changed partitions that leave the cache (it holds more than its
    /// capacity). On an error they stay cached, and nothing is written.
    fn write_evicted(&mut self) -> Result<()> {
        let Some(cache) = &mut self.cache else {
            return Ok(());
        };
        let evicted = cache.evict();
        if evicted.is_empty() {
            return Ok(());
        }
        let mut batch = WriteBatch::new();
        for (key, state) in &evicted {
            self.write_state(&mut batch, key, state);
        }
        let written = self.keyed.store_mut().write(&batch);
        if written.is_err() {
            let cache = self.cache.as_mut().expect("the cache evicted");
            for (key, state) in evicted {
                cache.put(&key, state, true);
            }
        }
        written
    }

    /// Writes every changed cached partition, as a checkpoint must hold them.
    fn write_cached(&mut self) -> Result<()> {
        let Some(cache) = &self.cache else {
            return Ok(());
        };
        let mut batch = WriteBatch::new();
        for (key, state) in cache.dirty() {
            self.write_state(&mut batch, key, state);
        }
        if batch.is_empty() {
            return Ok(());
        }
        self.keyed.store_mut().write(&batch)?;
        self.cache.as_mut().expect("a cache").mark_clean();
        Ok(())
    }

    /// `AppendOnlyTopNHelper.processElementWithoutRowNumber`, after the row was put.
    fn without_row_number(&self, buffer: &mut Buffer, row: &[u8], input: usize, out: &mut Ranked) {
        if buffer.rows as i64 > self.spec.rank_end {
            let last = buffer
                .entries
                .last_mut()
                .expect("a buffer over its end has rows");
            let leaving = last.rows.pop().expect("an entry has rows");
            if last.rows.is_empty() {
                buffer.entries.pop();
            }
            buffer.rows -= 1;
            if leaving == row {
                // The row itself left: nothing changes downstream.
                return;
            }
            out.stored(RowKind::Delete, &leaving, 0);
        }
        out.input(RowKind::Insert, input, 0);
    }

    /// `AppendOnlyTopNHelper.processElementWithRowNumber`, after the row was put.
    fn with_row_number(&self, buffer: &mut Buffer, key: &[u8], input: usize, out: &mut Ranked) {
        let spec = &self.spec;
        let emit = |out: &mut Ranked, kind: RowKind, row: Carried, rank: i64| {
            let collect = spec.in_range(rank)
                && (kind != RowKind::UpdateBefore || spec.generate_update_before);
            if collect {
                out.carried(kind, row, buffer, rank);
            }
        };
        let mut rank = 0i64;
        let mut current: Option<Carried> = None;
        let mut visited = 0;
        while visited < buffer.entries.len() && rank <= spec.rank_end {
            let entry = &buffer.entries[visited];
            if current.is_none() && entry.key == key {
                rank += entry.rows.len() as i64;
                current = Some(Carried::Input(input));
            } else if let Some(mut carried) = current {
                for r in 0..entry.rows.len() {
                    if rank > spec.rank_end {
                        break;
                    }
                    let previous = Carried::Stored(visited, r);
                    emit(out, RowKind::UpdateBefore, previous, rank);
                    emit(out, RowKind::UpdateAfter, carried, rank);
                    carried = previous;
                    rank += 1;
                }
                current = Some(carried);
            } else {
                rank += entry.rows.len() as i64;
            }
            visited += 1;
        }
        if rank <= spec.rank_end && spec.in_range(rank) {
            // The row's own key is always visited first: it was put, and in range.
            let current = current.expect("the walk found the row's sort key");
            out.carried(RowKind::Insert, current, buffer, rank);
        }
        buffer.truncate(visited);
    }

    /// Every row's sort key, as bytes that order as Flink's comparator where no NaN is
    /// involved (`-0.0` is written as `0.0`).
    fn sort_keys(&self, input: &ChangelogBatch) -> Result<Rows> {
        let batch = input.batch();
        let columns: Vec<ArrayRef> = self
            .spec
            .sort
            .iter()
            .map(|s| positive_zeros(batch.column(s.column)))
            .collect();
        Ok(self.sort_keys.convert_columns(&columns)?)
    }

    /// `FastTop1Function`'s `compare(row, winner) < 0`: a row beats the winner when its sort
    /// key is strictly before. By the key bytes, unless a FLOAT/DOUBLE sort field of either
    /// row is NaN: then field by field as Flink's comparator, a NaN tying with any value.
    fn beats(
        &self,
        key: &[u8],
        row: &[u8],
        best: &[u8],
        winner: &[u8],
        input: &ChangelogBatch,
        input_row: usize,
    ) -> Result<bool> {
        let arity = self.spec.input_types.len();
        let nan = |r: &[u8]| {
            self.spec
                .sort
                .iter()
                .any(|s| float_is_nan(r, s.column, &self.spec.input_types[s.column], arity))
        };
        if !nan(row) && !nan(winner) {
            return Ok(key < best);
        }
        let winner = self.reader.read(winner, &[0, winner.len()])?;
        for s in &self.spec.sort {
            let (a, b) = (
                input.batch().column(s.column),
                winner.batch().column(s.column),
            );
            let order = compare_field(a, input_row, b, 0, s)?;
            if order != std::cmp::Ordering::Equal {
                return Ok(order == std::cmp::Ordering::Less);
            }
        }
        Ok(false)
    }

    fn groups(&self, input: &ChangelogBatch) -> Result<(Groups, Vec<u32>)> {
        self.keyed
            .groups(&self.hasher, input.batch(), &self.spec.partition_keys)
    }

    /// Every partition's state, the cached ones taken from the cache and the others read
    /// in `order` with one batched read; and whether each is changed since the store had
    /// it. On an error the cache is as it was.
    fn read(&mut self, groups: &Groups, order: &[u32]) -> Result<(Vec<PartitionState>, Vec<bool>)> {
        let function = self.spec.function;
        let Some(cache) = &self.cache else {
            let states = self
                .keyed
                .read_groups(self.table, groups, order, self.ttl.as_ref())?
                .into_iter()
                .map(|v| decode_state(function, v))
                .collect::<Result<Vec<_>>>()?;
            return Ok((states, vec![false; groups.len()]));
        };
        let missing: Vec<u32> = order
            .iter()
            .copied()
            .filter(|&g| !cache.contains(groups.key(g as usize)))
            .collect();
        let mut values = self
            .keyed
            .read_groups(self.table, groups, &missing, self.ttl.as_ref())?;
        let mut states: Vec<Option<PartitionState>> = (0..groups.len()).map(|_| None).collect();
        for &g in &missing {
            states[g as usize] = Some(decode_state(function, values[g as usize].take())?);
        }
        let cache = self.cache.as_mut().expect("a cache");
        cache.start_batch();
        let mut dirty = vec![false; groups.len()];
        let states = states
            .into_iter()
            .enumerate()
            .map(|(g, state)| match state {
                Some(state) => state,
                None => {
                    let (state, was_dirty) = cache.take(groups.key(g)).expect("a cached partition");
                    dirty[g] = was_dirty;
                    state
                }
            })
            .collect();
        Ok((states, dirty))
    }

    /// The changelog of `out`, with the rank column when output.
    fn output(&self, input: &ChangelogBatch, out: &Ranked) -> Result<ChangelogBatch> {
        if out.emits.is_empty() {
            return Ok(ChangelogBatch::insert_only(RecordBatch::new_empty(
                self.schema.clone(),
            )));
        }
        let mut columns = out.emits.columns(input.batch(), &self.reader)?;
        if self.spec.rank_name.is_some() {
            columns.push(Arc::new(Int64Array::from(out.ranks.clone())));
        }
        debug_assert_eq!(out.emits.len(), out.ranks.len());
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        ChangelogBatch::try_new(batch, Some(out.emits.kinds()))
    }
}

/// `column` with FLOAT/DOUBLE `-0.0` as `0.0` (Flink's `<`/`>` tie them); other types as
/// they are.
fn positive_zeros(column: &ArrayRef) -> ArrayRef {
    use arrow::array::AsArray;
    use arrow::datatypes::{Float32Type, Float64Type};
    // `-0.0 == 0.0`, so both zeros become `0.0`; NULLs stay NULL.
    match column.data_type() {
        DataType::Float64 => Arc::new(
            column
                .as_primitive::<Float64Type>()
                .unary::<_, Float64Type>(|v| if v == 0.0 { 0.0 } else { v }),
        ),
        DataType::Float32 => Arc::new(
            column
                .as_primitive::<Float32Type>()
                .unary::<_, Float32Type>(|v| if v == 0.0 { 0.0 } else { v }),
        ),
        _ => column.clone(),
    }
}

/// Whether field `column` (of type `ty`) of the BinaryRowData `row` of `arity` fields is a
/// non-NULL FLOAT/DOUBLE NaN.
fn float_is_nan(row: &[u8], column: usize, ty: &LogicalType, arity: usize) -> bool {
    // Null bits follow the 8 header bits; a fixed-length slot holds the value.
    let null_bit = column + 8;
    if row[null_bit / 8] & (1 << (null_bit % 8)) != 0 {
        return false;
    }
    let at = null_bits_width(arity) + 8 * column;
    match ty {
        LogicalType::Double => {
            f64::from_le_bytes(row[at..at + 8].try_into().expect("a fixed-length slot")).is_nan()
        }
        LogicalType::Float => {
            f32::from_le_bytes(row[at..at + 4].try_into().expect("a fixed-length slot")).is_nan()
        }
        _ => false,
    }
}

/// Flink's generated comparator on one sort field: NULLs first or last whatever the
/// direction; FLOAT/DOUBLE by `<`/`>` (NaN and `-0.0` tie), other types by value.
fn compare_field(
    a: &ArrayRef,
    i: usize,
    b: &ArrayRef,
    j: usize,
    sort: &SortKey,
) -> Result<std::cmp::Ordering> {
    use arrow::array::AsArray;
    use arrow::datatypes::{Float32Type, Float64Type};
    use std::cmp::Ordering;
    let (a_null, b_null) = (a.is_null(i), b.is_null(j));
    let nulls = |null_first: bool| match (null_first, sort.nulls_last) {
        (true, false) | (false, true) => Ordering::Less,
        _ => Ordering::Greater,
    };
    if a_null || b_null {
        return Ok(match (a_null, b_null) {
            (true, true) => Ordering::Equal,
            (true, false) => nulls(true),
            _ => nulls(false),
        });
    }
    let order = match a.data_type() {
        DataType::Float64 => a
            .as_primitive::<Float64Type>()
            .value(i)
            .partial_cmp(&b.as_primitive::<Float64Type>().value(j)),
        DataType::Float32 => a
            .as_primitive::<Float32Type>()
            .value(i)
            .partial_cmp(&b.as_primitive::<Float32Type>().value(j)),
        _ => Some(arrow::array::make_comparator(
            a.as_ref(),
            b.as_ref(),
            arrow::compute::SortOptions::default(),
        )?(i, j)),
    }
    .unwrap_or(Ordering::Equal);
    Ok(if sort.ascending {
        order
    } else {
        order.reverse()
    })
}

fn decode_state(function: RankFunction, value: Option<Vec<u8>>) -> Result<PartitionState> {
    Ok(match function {
        // Its keys and rows stay slices of the value read.
        RankFunction::Retract => PartitionState::Retracting(match value {
            None => retract::Retracting::default(),
            Some(v) => retract::Retracting::decode(v)?,
        }),
        RankFunction::Update => PartitionState::Updating(match value {
            None => update::Updating::default(),
            Some(v) => update::Updating::decode(v)?,
        }),
        RankFunction::FirstN => PartitionState::Count(match value.as_deref() {
            None => 0,
            Some(v) => i64::from_le_bytes(
                v.try_into()
                    .map_err(|_| Error::State(format!("a First-N count of {} bytes", v.len())))?,
            ),
        }),
        RankFunction::Top1 => PartitionState::Winner(match value.as_deref() {
            None => None,
            Some(v) => {
                let len = v
                    .get(..4)
                    .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
                    .filter(|&len| 4 + len <= v.len())
                    .ok_or_else(|| Error::State("a Top-1 winner is cut short".into()))?;
                Some((v[4..4 + len].to_vec(), v[4 + len..].to_vec()))
            }
        }),
        RankFunction::TopN => PartitionState::Buffer(match value.as_deref() {
            None => Buffer::default(),
            Some(v) => Buffer::decode(v)?,
        }),
    })
}

impl PartitionState {
    /// Whether the partition holds nothing (its state is deleted).
    fn is_empty(&self) -> bool {
        match self {
            PartitionState::Winner(None) => true,
            PartitionState::Retracting(state) => state.is_empty(),
            PartitionState::Updating(state) => state.is_empty(),
            _ => false,
        }
    }
}

impl CachedPartition for PartitionState {
    fn estimated_bytes(&self) -> usize {
        match self {
            PartitionState::Count(_) => 8,
            PartitionState::Winner(None) => 0,
            PartitionState::Winner(Some((key, row))) => key.len() + row.len(),
            PartitionState::Buffer(buffer) => buffer
                .entries
                .iter()
                .map(|e| 8 + e.key.len() + e.rows.iter().map(|r| 4 + r.len()).sum::<usize>())
                .sum(),
            PartitionState::Retracting(state) => state.estimated_bytes(),
            PartitionState::Updating(state) => state.estimated_bytes(),
        }
    }
}

fn encode_state(state: &PartitionState) -> Vec<u8> {
    match state {
        PartitionState::Count(count) => count.to_le_bytes().to_vec(),
        PartitionState::Winner(None) => unreachable!("an empty partition is deleted"),
        PartitionState::Winner(Some((key, row))) => {
            let mut out = Vec::with_capacity(4 + key.len() + row.len());
            out.extend_from_slice(&(key.len() as u32).to_le_bytes());
            out.extend_from_slice(key);
            out.extend_from_slice(row);
            out
        }
        PartitionState::Buffer(buffer) => buffer.encode(),
        PartitionState::Retracting(state) => state.encode(),
        PartitionState::Updating(state) => state.encode(),
    }
}

/// Refuses what Flink would refuse, or cannot compare.
/// Refuses sort fields out of range or of a type a Top-N does not order by, and with
/// `no_floats` FLOAT/DOUBLE ones: Flink's comparator holds NaN equal to every value, so a
/// Top-N's order then depends on the shape of its tree (decision 0028).
fn check_sort(sort: &[SortKey], types: &[LogicalType], no_floats: bool) -> Result<()> {
    if sort.is_empty() || sort.len() > 64 {
        return Err(Error::Plan(format!(
            "a Top-N sorts by 1 to 64 fields, not {}",
            sort.len()
        )));
    }
    for s in sort {
        let ty = types.get(s.column).ok_or_else(|| {
            Error::Plan(format!(
                "sort column {} is out of range for {} input columns",
                s.column,
                types.len()
            ))
        })?;
        if matches!(
            ty,
            LogicalType::Row(_) | LogicalType::Array(_) | LogicalType::Map(..)
        ) {
            return Err(Error::Plan(format!(
                "sort column {} is {ty}, which a Top-N does not order by",
                s.column
            )));
        }
        if no_floats && matches!(ty, LogicalType::Float | LogicalType::Double) {
            return Err(Error::Plan(format!(
                "sort column {} is {ty}: Flink's comparator holds NaN equal to every value, \
                 so its Top-N order depends on the shape of its tree (decision 0028)",
                s.column
            )));
        }
    }
    Ok(())
}

/// Sort keys as bytes that order as Flink's comparator orders `sort` over `types` (NaN and
/// `-0.0` aside: see [`Rank::sort_keys`]).
fn sort_converter(sort: &[SortKey], types: &[LogicalType]) -> Result<RowConverter> {
    let fields = sort
        .iter()
        .map(|s| {
            SortField::new_with_options(
                types[s.column].to_arrow(),
                arrow::compute::SortOptions {
                    descending: !s.ascending,
                    nulls_first: !s.nulls_last,
                },
            )
        })
        .collect();
    Ok(RowConverter::new(fields)?)
}

fn check_spec(spec: &RankSpec) -> Result<()> {
    let columns = spec.input_types.len();
    if spec.input_names.len() != columns {
        return Err(Error::Plan(format!(
            "{} input names for {columns} input types",
            spec.input_names.len()
        )));
    }
    let in_range = |c: usize, what: &str| {
        if c < columns {
            Ok(())
        } else {
            Err(Error::Plan(format!(
                "{what} column {c} is out of range for {columns} input columns"
            )))
        }
    };
    for &k in &spec.partition_keys {
        in_range(k, "partition key")?;
    }
    check_sort(
        &spec.sort,
        &spec.input_types,
        matches!(
            spec.function,
            RankFunction::TopN | RankFunction::Retract | RankFunction::Update
        ),
    )?;
    if spec.rank_start < 1 {
        return Err(Error::Plan(format!(
            "rank start {} is before the first rank",
            spec.rank_start
        )));
    }
    if spec.input_updates && !matches!(spec.function, RankFunction::Top1 | RankFunction::Update) {
        return Err(Error::Plan(
            "only a Top-1 and an updatable Top-N take an upsert input as upserts".into(),
        ));
    }
    for &k in &spec.unique_key {
        in_range(k, "unique key")?;
    }
    if (spec.function == RankFunction::Update) == spec.unique_key.is_empty() {
        return Err(Error::Plan(
            "an updatable Top-N, and only it, keys its rows by the input's unique key".into(),
        ));
    }
    if spec.function == RankFunction::Update && spec.ttl().is_some() {
        return Err(Error::Plan(
            "state TTL on an updatable Top-N: Flink's heap cache of partitions expires \
             rows it has not yet written to state, so its result depends on that timing"
                .into(),
        ));
    }
    if spec.function == RankFunction::Retract && spec.rank_name.is_none() && spec.has_offset() {
        return Err(Error::Plan(
            "a retracting Top-N with an offset and no rank column: Flink's walk rewrites the \
             kinds of the rows its state holds, which then no longer match their retractions"
                .into(),
        ));
    }
    if spec.function == RankFunction::Retract && spec.ttl().is_some() {
        return Err(Error::Plan(
            "state TTL on a retracting Top-N: Flink expires each sort key's rows apart from \
             their counts"
                .into(),
        ));
    }
    if spec.function == RankFunction::Top1 && (spec.rank_start, spec.rank_end) != (1, 1) {
        return Err(Error::Plan(format!(
            "a Top-1 has rank range 1..1, not {}..{}",
            spec.rank_start, spec.rank_end
        )));
    }
    Ok(())
}

impl Operator for Rank {
    fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    fn input_types(&self, _port: Port) -> &[LogicalType] {
        &self.spec.input_types
    }

    fn output_types(&self) -> &[LogicalType] {
        &self.output_types
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        ops::expect_one_input(self.identity.kind, port)?;
        out.emit(self.apply(input)?);
        Ok(())
    }

    fn advance_watermark(&mut self, watermark: i64, _out: &mut Output) -> Result<()> {
        self.keyed.advance_watermark(watermark);
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.keyed.watermark()
    }

    fn flush(&mut self, _out: &mut Output) -> Result<()> {
        Ok(())
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        self.check_usable()?;
        self.write_cached()?;
        self.keyed.checkpoint(target, &self.identity)
    }

    fn memory_bytes(&self) -> u64 {
        let cached = self.cache.as_ref().map_or(0, |c| c.bytes());
        self.keyed.memory_bytes() + cached as u64
    }
}

impl KeyedOperator for Rank {
    type Spec = RankSpec;
    const HOLDER: &'static str = "rank";

    fn identity_of(spec: &RankSpec) -> PlanIdentity {
        Self::identity_of(spec)
    }

    fn max_parallelism(spec: &RankSpec) -> u32 {
        spec.max_parallelism
    }

    fn open(spec: RankSpec, keyed: Keyed) -> Result<Self> {
        Self::open(spec, keyed)
    }
}
