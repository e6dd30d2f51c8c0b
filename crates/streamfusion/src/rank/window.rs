//! Window Top-N and window deduplication: Flink's `WindowAggOperator` with
//! `SyncStateWindowRankProcessor` (`TopNRecordsCombiner`) and with
//! `RowTimeSyncStateWindowDeduplicateProcessor` (`RowTimeDeduplicateRecordsCombiner`), the
//! plans of `ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ..) <= N`
//! and of its `= 1` over a row time, over rows whose window is attached upstream (a window
//! TVF or a window aggregate: `window_end` is an input column), in event time.
//!
//! # Rows
//!
//! A row whose window has fired (`window_end - 1 <= watermark`) is late and dropped
//! (`isWindowFired`, `numLateRecordsDropped`). The others are applied to their key's and
//! window's state in arrival order. Flink buffers them (`RecordsWindowBuffer`) and combines a
//! buffer before any window it holds can fire; both combiners only ever keep rows in arrival
//! order within a tie, so applying rows as they come leaves the same rows to emit.
//!
//! - Top-N: Flink appends every row that passes its buffer's `checkSortKeyInBufferRange`
//!   to the window's state and, on firing, loads the state into a `TopNBuffer` and emits its
//!   first `rank_end` rows: the rows first by sort key, then by arrival. That is exactly
//!   the window's first `rank_end` rows in that order, which is all that is kept here (a
//!   row tying the worst of `rank_end` kept rows came later, so it can never be emitted).
//! - Deduplication: one row per key and window, replaced by a later row whose row time is
//!   at or after it (keep last) or strictly before it (keep first), as
//!   `DeduplicateFunctionHelper.isDuplicate`.
//!
//! # Firing
//!
//! One event-time timer per key and window at `window_end - 1`. A watermark fires the due
//! timers in timestamp order; each emits its window's rows, ranks `rank_start..=rank_end`
//! for a Top-N (with the BIGINT rank after the input's columns when the plan outputs it),
//! the kept row for a deduplication, all `+I`; the window leaves state.
//!
//! # State
//!
//! `[key group][key row][window end]` (the end a sign-flipped big-endian `i64`, as the
//! window aggregates keep it) -> the Top-N's kept rows ([`Buffer`]'s encoding), or the
//! kept BinaryRowData row; timers in the keyed driver's timer table. Checkpointed and
//! rescaled with its key groups; a restored operator starts at the lowest watermark its
//! old subtasks had, as `WindowAggOperator` restores it (decision 0030).
//!
//! Sort keys compare as the non-window Top-N's ([`super::Rank`]); FLOAT/DOUBLE sort fields
//! are refused for the same reason (decision 0028). The window end is a TIMESTAMP(3): over
//! a TIMESTAMP_LTZ time attribute, a local time of the session time zone, fired at its
//! instant ([`WindowClock`]).

use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::row::{RowConverter, Rows};

use super::{Buffer, SortKey, check_sort, sort_converter};
use crate::aggregate::group::{access_order, check_columns};
use crate::attached_windows::{WindowedRows, group_by_window, window_timers};
use crate::binary_row::{BinaryRows, RowReader, RowWriter};
use crate::changelog::{ChangelogBatch, RowKind};
use crate::deduplicate::row_time;
use crate::emissions::Emissions;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::ops::keyed::{Keyed, KeyedOperator, RestoredWatermark};
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::state::timers::Timer;
use crate::state::{TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;
use crate::window_clock::WindowClock;

/// The version of the window rank state layout, stored with its checkpoints.
pub const STATE_VERSION: u32 = 1;
const STATE_TABLE: &str = "window_rank.rows";

/// What a window keeps of each key's rows.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "keep", rename_all = "snake_case", deny_unknown_fields)]
pub enum WindowKeep {
    /// Window Top-N: ranks `rank_start..=rank_end` by the sort key, ties in arrival order.
    TopN {
        /// The sort fields (`ORDER BY`).
        sort: Vec<SortKey>,
        /// The first rank emitted (1-based).
        rank_start: i64,
        /// The last rank emitted.
        rank_end: i64,
        /// The rank's output column (BIGINT NOT NULL, after the input's), if output.
        rank_name: Option<String>,
    },
    /// Window deduplication: the first or last row by row time.
    Deduplicate {
        /// The row time column (TIMESTAMP(3) or TIMESTAMP_LTZ(3)).
        rowtime_column: usize,
        /// Keep the last row (`ORDER BY rowtime DESC`) rather than the first.
        keep_last: bool,
    },
}

/// A window Top-N or deduplication plan, as JSON: `{"input_names": ["k", "v", "we"],
/// "input_types": ["INT", "BIGINT", "TIMESTAMP(3)"], "partition_keys": [0],
/// "window_end_column": 2, "keep": {"keep": "top_n", "sort": [{"column": 1, "ascending":
/// false, "nulls_last": true}], "rank_start": 1, "rank_end": 3, "rank_name": null},
/// "max_parallelism": 128}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowRankSpec {
    /// Input column names (the output's, then the rank column's).
    pub input_names: Vec<String>,
    /// Input column types.
    pub input_types: Vec<LogicalType>,
    /// The partition key columns besides the window (empty for one partition per window).
    pub partition_keys: Vec<usize>,
    /// The input column holding each row's `window_end` (TIMESTAMP(3)).
    pub window_end_column: usize,
    /// What is kept and emitted.
    pub keep: WindowKeep,
    /// The session time zone of windows over a TIMESTAMP_LTZ time attribute
    /// ([`WindowClock`]); `None` is UTC.
    #[serde(default)]
    pub time_zone: Option<String>,
    /// The job's max parallelism (number of key groups).
    pub max_parallelism: u32,
}

impl WindowRankSpec {
    /// What of the plan decides the state: types, keys, window column and what is kept
    /// (the rank end bounds the kept rows; names and the rank start are left out).
    pub fn semantics(&self) -> serde_json::Value {
        let keep = match &self.keep {
            WindowKeep::TopN { sort, rank_end, .. } => {
                serde_json::json!({"sort": sort, "rank_end": rank_end})
            }
            WindowKeep::Deduplicate {
                rowtime_column,
                keep_last,
            } => serde_json::json!({"rowtime_column": rowtime_column, "keep_last": keep_last}),
        };
        serde_json::json!({
            "input_types": self.input_types.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "partition_keys": self.partition_keys,
            "window_end_column": self.window_end_column,
            "keep": keep,
            "time_zone": self.time_zone,
        })
    }

    fn rank_name(&self) -> Option<&str> {
        match &self.keep {
            WindowKeep::TopN { rank_name, .. } => rank_name.as_deref(),
            WindowKeep::Deduplicate { .. } => None,
        }
    }

    /// The output types: the input's, then the rank (BIGINT) when output.
    fn output_types(&self) -> Vec<LogicalType> {
        let mut types = self.input_types.clone();
        if self.rank_name().is_some() {
            types.push(LogicalType::BigInt);
        }
        types
    }
}

/// The window Top-N and deduplication operator over one task's keyed state.
pub struct WindowRank {
    spec: WindowRankSpec,
    identity: PlanIdentity,
    keyed: Keyed,
    hasher: KeyHasher,
    writer: RowWriter,
    reader: RowReader,
    /// A Top-N's sort keys as bytes that order as Flink's comparator.
    sort_keys: Option<RowConverter>,
    schema: SchemaRef,
    output_types: Vec<LogicalType>,
    table: TableId,
    clock: WindowClock,
    late_rows_dropped: u64,
}

impl std::fmt::Debug for WindowRank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowRank")
            .field("keep", &self.spec.keep)
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

/// One key's and window's state during a batch.
enum Kept {
    TopN(Buffer),
    Row(Option<Vec<u8>>),
}

impl WindowRank {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &WindowRankSpec) -> PlanIdentity {
        PlanIdentity::new(OperatorKind::WindowRank, STATE_VERSION, &spec.semantics())
    }

    /// An operator for `spec` over the keyed driver `keyed` (fresh or restored). A plan
    /// Flink would refuse, or one whose order this operator cannot reproduce (see the
    /// module), is an error.
    pub fn open(spec: WindowRankSpec, mut keyed: Keyed) -> Result<Self> {
        check_spec(&spec)?;
        if keyed.max_parallelism() != spec.max_parallelism {
            return Err(Error::OutOfRange(format!(
                "the plan's max parallelism is {} but its state has {} key groups",
                spec.max_parallelism,
                keyed.max_parallelism()
            )));
        }
        let table = keyed
            .store_mut()
            .open_table_with(STATE_TABLE, TableAccess::Point)?;
        let mut fields: Vec<Field> = spec
            .input_names
            .iter()
            .zip(&spec.input_types)
            .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
            .collect();
        if let Some(name) = spec.rank_name() {
            fields.push(Field::new(name, DataType::Int64, false));
        }
        let sort_keys = match &spec.keep {
            WindowKeep::TopN { sort, .. } => Some(sort_converter(sort, &spec.input_types)?),
            WindowKeep::Deduplicate { .. } => None,
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
            sort_keys,
            schema: Arc::new(Schema::new(fields)),
            output_types: spec.output_types(),
            table,
            clock: WindowClock::new(spec.time_zone.as_deref())?,
            late_rows_dropped: 0,
            keyed,
            spec,
        })
    }

    /// The plan.
    pub fn spec(&self) -> &WindowRankSpec {
        &self.spec
    }

    /// The keyed driver (store, key groups, watermark).
    pub fn keyed(&self) -> &Keyed {
        &self.keyed
    }

    /// Rows dropped as late since the operator opened (Flink's `numLateRecordsDropped`).
    pub fn late_rows_dropped(&self) -> u64 {
        self.late_rows_dropped
    }

    /// Applies a batch's rows to their windows' state; a window new in state gets its timer.
    fn apply(&mut self, input: &ChangelogBatch) -> Result<()> {
        check_columns(
            "window rank input batch",
            &self.spec.input_types,
            input.batch(),
        )?;
        // Both combiners fail the job on a retraction.
        ops::expect_insert_only(input, "a window Top-N or deduplication")?;
        let n = input.num_rows();
        if n == 0 {
            return Ok(());
        }
        let batch = input.batch();
        let WindowedRows {
            groups,
            row_group,
            kept,
            late,
        } = group_by_window(
            &self.keyed,
            &self.hasher,
            batch,
            &self.spec.partition_keys,
            self.spec.window_end_column,
            &self.clock,
        )?;
        self.late_rows_dropped += late;
        if kept.is_empty() {
            return Ok(());
        }
        let order = access_order(self.keyed.store(), &[self.table], &groups);
        let rows = self.writer.write(batch.columns())?;
        let sort_keys = self.sort_keys(input)?;
        let values = self.keyed.read_groups(self.table, &groups, &order, None)?;
        let fresh: Vec<bool> = values.iter().map(Option::is_none).collect();
        let mut states = values
            .into_iter()
            .map(|v| self.decode(v))
            .collect::<Result<Vec<_>>>()?;
        let mut changed = vec![false; groups.len()];
        for (&row, &slot) in kept.iter().zip(&row_group) {
            let slot = slot as usize;
            changed[slot] |= self.keep_row(&mut states[slot], &rows, sort_keys.as_ref(), row);
        }
        let mut write = WriteBatch::new();
        for &slot in &order {
            let slot = slot as usize;
            if changed[slot] {
                write.put(self.table, groups.key(slot), encode(&states[slot]));
            }
        }
        self.keyed.store_mut().write(&write)?;
        // `registerEventTimeWindowTimer` on each combine; a registered timer is one timer.
        let fresh_windows = order
            .iter()
            .map(|&s| s as usize)
            .filter(|&s| fresh[s] && changed[s]);
        let timers = window_timers(&groups, fresh_windows, &self.clock)?;
        self.keyed.register_event_timers(timers)
    }

    /// Applies input row `row` to its window's state; whether the state changed.
    fn keep_row(
        &self,
        state: &mut Kept,
        rows: &BinaryRows,
        sort_keys: Option<&Rows>,
        row: usize,
    ) -> bool {
        match (state, &self.spec.keep) {
            (Kept::TopN(buffer), WindowKeep::TopN { rank_end, .. }) => {
                let key = sort_keys.expect("a Top-N's sort keys").row(row);
                if !buffer.accepts(key.as_ref(), *rank_end) {
                    return false;
                }
                buffer.put(key.as_ref(), rows.row(row).to_vec());
                buffer.keep_first(*rank_end as usize);
                true
            }
            (
                Kept::Row(kept),
                WindowKeep::Deduplicate {
                    rowtime_column,
                    keep_last,
                },
            ) => {
                let arity = self.spec.input_types.len();
                let current = rows.row(row);
                let time = row_time(current, *rowtime_column, arity);
                let replace = match kept.as_deref() {
                    None => true,
                    Some(k) if *keep_last => row_time(k, *rowtime_column, arity) <= time,
                    Some(k) => time < row_time(k, *rowtime_column, arity),
                };
                if replace {
                    *kept = Some(current.to_vec());
                }
                replace
            }
            _ => unreachable!("a state decoded for the plan's keep"),
        }
    }

    fn sort_keys(&self, input: &ChangelogBatch) -> Result<Option<Rows>> {
        let (Some(converter), WindowKeep::TopN { sort, .. }) = (&self.sort_keys, &self.spec.keep)
        else {
            return Ok(None);
        };
        let columns: Vec<ArrayRef> = sort
            .iter()
            .map(|s| input.batch().column(s.column).clone())
            .collect();
        Ok(Some(converter.convert_columns(&columns)?))
    }

    fn decode(&self, value: Option<Vec<u8>>) -> Result<Kept> {
        Ok(match &self.spec.keep {
            WindowKeep::TopN { .. } => Kept::TopN(match value.as_deref() {
                None => Buffer::default(),
                Some(v) => Buffer::decode(v)?,
            }),
            WindowKeep::Deduplicate { .. } => Kept::Row(value),
        })
    }

    /// Fires the windows whose timers the watermark reached: their rows are emitted and
    /// leave state.
    fn fire(&mut self) -> Result<ChangelogBatch> {
        let due = self.keyed.fire_event_timers()?;
        if due.is_empty() {
            return self.output(&Emissions::default(), Vec::new());
        }
        let keys: Vec<Vec<u8>> = due.iter().map(Timer::state_key).collect();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let values = self.keyed.store().multi_get(self.table, &refs)?;
        let mut emits = Emissions::default();
        let mut ranks = Vec::new();
        let mut write = WriteBatch::new();
        for (key, value) in keys.iter().zip(values) {
            let Some(value) = value else { continue };
            match (self.decode(Some(value))?, &self.spec.keep) {
                (
                    Kept::TopN(buffer),
                    WindowKeep::TopN {
                        rank_start,
                        rank_end,
                        ..
                    },
                ) => {
                    let all = buffer.entries.iter().flat_map(|e| &e.rows);
                    for (rank, row) in (1..).zip(all) {
                        if rank > *rank_end {
                            break;
                        }
                        if rank >= *rank_start {
                            emits.stored(RowKind::Insert, row);
                            ranks.push(rank);
                        }
                    }
                }
                (Kept::Row(Some(row)), _) => emits.stored(RowKind::Insert, &row),
                _ => {}
            }
            write.delete(self.table, key);
        }
        self.keyed.store_mut().write(&write)?;
        self.output(&emits, ranks)
    }

    /// The changelog of `emits` (all rows from state), with the rank column when output.
    fn output(&self, emits: &Emissions, ranks: Vec<i64>) -> Result<ChangelogBatch> {
        if emits.is_empty() {
            return Ok(ChangelogBatch::insert_only(RecordBatch::new_empty(
                self.schema.clone(),
            )));
        }
        let empty = RecordBatch::new_empty(Arc::new(Schema::new(
            self.schema.fields()[..self.spec.input_types.len()].to_vec(),
        )));
        let mut columns = emits.columns(&empty, &self.reader)?;
        if self.spec.rank_name().is_some() {
            columns.push(Arc::new(Int64Array::from(ranks)));
        }
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        ChangelogBatch::try_new(batch, Some(emits.kinds()))
    }
}

fn encode(state: &Kept) -> Vec<u8> {
    match state {
        Kept::TopN(buffer) => buffer.encode(),
        Kept::Row(row) => row.clone().unwrap_or_default(),
    }
}

/// Refuses what Flink would refuse, and sort fields whose order is not reproduced.
fn check_spec(spec: &WindowRankSpec) -> Result<()> {
    let columns = spec.input_types.len();
    if spec.input_names.len() != columns {
        return Err(Error::Plan(format!(
            "{} input names for {columns} input types",
            spec.input_names.len()
        )));
    }
    let column = |c: usize, what: &str| {
        spec.input_types.get(c).ok_or_else(|| {
            Error::Plan(format!(
                "{what} column {c} is out of range for {columns} input columns"
            ))
        })
    };
    for &k in &spec.partition_keys {
        column(k, "partition key")?;
    }
    match column(spec.window_end_column, "window end")? {
        LogicalType::Timestamp(3) => {}
        other => {
            return Err(Error::Plan(format!(
                "the window end column {} is {other}, not TIMESTAMP(3)",
                spec.window_end_column
            )));
        }
    }
    match &spec.keep {
        WindowKeep::TopN {
            sort,
            rank_start,
            rank_end,
            ..
        } => {
            check_sort(sort, &spec.input_types, true)?;
            if *rank_start < 1 || rank_end < rank_start {
                return Err(Error::Plan(format!(
                    "rank range {rank_start}..={rank_end} is not a range of ranks from 1"
                )));
            }
        }
        WindowKeep::Deduplicate { rowtime_column, .. } => {
            match column(*rowtime_column, "row time")? {
                LogicalType::Timestamp(3) | LogicalType::TimestampLtz(3) => {}
                other => {
                    return Err(Error::Plan(format!(
                        "the row time column {rowtime_column} is {other}, not a \
                         TIMESTAMP(3) or TIMESTAMP_LTZ(3)"
                    )));
                }
            }
        }
    }
    Ok(())
}

impl Operator for WindowRank {
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

    fn process(&mut self, port: Port, input: &ChangelogBatch, _out: &mut Output) -> Result<()> {
        ops::expect_one_input(self.identity.kind, port)?;
        self.apply(input)
    }

    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        if self.keyed.advance_watermark(watermark) {
            out.emit(self.fire()?);
        }
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.keyed.watermark()
    }

    fn flush(&mut self, _out: &mut Output) -> Result<()> {
        Ok(())
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        self.keyed.checkpoint(target, &self.identity)
    }

    fn memory_bytes(&self) -> u64 {
        self.keyed.memory_bytes()
    }
}

impl KeyedOperator for WindowRank {
    type Spec = WindowRankSpec;
    const HOLDER: &'static str = "window-rank";
    const RESTORED_WATERMARK: RestoredWatermark = RestoredWatermark::Lowest;

    fn identity_of(spec: &WindowRankSpec) -> PlanIdentity {
        Self::identity_of(spec)
    }

    fn max_parallelism(spec: &WindowRankSpec) -> u32 {
        spec.max_parallelism
    }

    fn open(spec: WindowRankSpec, keyed: Keyed) -> Result<Self> {
        Self::open(spec, keyed)
    }
}
