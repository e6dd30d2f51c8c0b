//! OVER aggregation in event time: Flink's `StreamExecOverAggregate` over a rowtime
//! attribute, `agg OVER (PARTITION BY k ORDER BY rowtime ROWS|RANGE BETWEEN ... AND CURRENT
//! ROW)`, as released Flink 2.3.0's functions compute it:
//!
//! | frame | Flink's function |
//! |---|---|
//! | `ROWS\|RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW` | `RowTimeUnboundedPrecedingOverFunctionV2` (`unboundedOverVersion` 2, the default) |
//! | `ROWS BETWEEN n PRECEDING AND CURRENT ROW` | `RowTimeRowsBoundedPrecedingFunction` |
//! | `RANGE BETWEEN t PRECEDING AND CURRENT ROW` | `RowTimeRangeBoundedPrecedingFunction` |
//!
//! Ordered by a processing-time attribute ([`OverSpec::processing_time`]), ROWS frames run as
//! `ProcTimeRowsBoundedPrecedingFunction` and `ProcTimeUnboundedPrecedingFunction` (which
//! Flink also runs for an unbounded RANGE): each row is aggregated and emitted as it arrives,
//! a bounded frame being the queue of the key's last n + 1 rows.
//!
//! Every output row is an input row followed by the calls' values, `+I`. Input must be
//! insert-only (Flink plans OVER over append-only input only).
//!
//! # Rows and timers
//!
//! A row waits in state under its row time (`inputState`, rows of a time in arrival order)
//! with an event-time timer at that time, and is aggregated when the watermark passes it.
//! A key keeps the times of its timers that have not fired in its state, and the keyed
//! driver holds one timer per key, at the earliest of them: a watermark runs each key's due
//! timers in time order, as Flink's timer service does per key, without a driver timer per
//! row time. Which rows are kept differs, and is Flink's exactly:
//!
//! - Unbounded frames keep a row whose time is after the current watermark, and drop the rows
//!   of a time once its timer has fired. ROWS accumulates and emits row by row (rows of one
//!   time get running values); RANGE accumulates all rows of the time, then emits them all
//!   with the same value.
//! - Bounded frames keep a row whose time is after the key's last fired timer
//!   (`lastTriggeringTsState`, which starts at 0, so a row time <= 0 is dropped), whatever
//!   the watermark: a row behind the watermark but after that timer is aggregated at the next
//!   watermark. Every timer that fires (with rows or not) becomes the last fired one.
//!   - ROWS with `n` preceding (Flink's `precedingOffset` = n + 1): the frame is a queue of
//!     n + 1 rows in (time, arrival) order; once `processedCountState` reaches n + 1, each
//!     new row first retracts the oldest row still stored.
//!   - RANGE with `t` ms preceding: at a timer for `T` every stored time `s` with `T - s >
//!     t` is retracted, then the rows of `T` are accumulated and emitted with one value.
//!     Each kept row also (re)arms a cleanup timer at `s + (long) (t * 1.5) + 1` unless the
//!     stored one is at least `s + t + 1`; when a cleanup timer finds the stored cleanup time
//!     at or before it, the key's state (rows, accumulators, last fired timer) is cleared.
//!     Flink retracts the expired times in its map state's iteration order, which on the heap
//!     backend is a hash order; the native side retracts in ascending time, so a frame whose
//!     result depends on that order (a FLOAT/DOUBLE sum) is refused by the planner.
//!
//! # State
//!
//! One value per key, `[key group][key row]`: the last fired timer, the processed count, the
//! cleanup time, the accumulators (maps held inline, as Flink's heap data views) and the
//! waiting and in-frame rows by time, each row as BinaryRowData bytes with its calls'
//! argument values; timers in the keyed driver's timer table. The values a batch or
//! watermark touches stay decoded in a bounded cache ([`PartitionCache`], decision 0034) and
//! are written when they leave it and before each checkpoint. Everything is checkpointed and
//! rescaled with its key groups. A NULL row time fails, as Flink's timer service cannot hold
//! one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{Field, Schema, SchemaRef, TimestampMillisecondType};
use serde::{Deserialize, Serialize};

use super::function::{Acc, AggCall, BoundCall};
use super::group::{access_order, calls_semantics, check_columns};
use super::value::{self, ColumnReader, Value, build_array};
use crate::binary_row::{BinaryRows, RowReader, RowWriter};
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::keys::layout::KEY_GROUP_BYTES;
use crate::ops::keyed::{Keyed, KeyedOperator};
use crate::ops::partition_cache::{CAPACITY_BYTES, CachedPartition, PartitionCache};
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::state::rows::Groups;
use crate::state::timers::Timer;
use crate::state::{TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;

/// The version of the OVER state layout, stored with its checkpoints.
pub const STATE_VERSION: u32 = 1;
const KEY_TABLE: &str = "over.key";

/// The frame of an OVER window, ending at the current row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum OverFrame {
    /// `ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`.
    RowsUnbounded,
    /// `RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`.
    RangeUnbounded,
    /// `ROWS BETWEEN n PRECEDING AND CURRENT ROW`; `rows` is n + 1 (Flink's
    /// `precedingOffset`).
    RowsBounded {
        /// The rows in a full frame, the current one included.
        rows: i64,
    },
    /// `RANGE BETWEEN t PRECEDING AND CURRENT ROW`; `millis` is t (Flink's
    /// `precedingOffset`).
    RangeBounded {
        /// How far back the frame reaches, in milliseconds.
        millis: i64,
    },
}

impl OverFrame {
    fn is_bounded(self) -> bool {
        matches!(
            self,
            OverFrame::RowsBounded { .. } | OverFrame::RangeBounded { .. }
        )
    }
}

/// An OVER aggregation, as JSON: `{"input_names": ["k", "v", "ts"], "input_types": ["INT",
/// "BIGINT", "TIMESTAMP(3)"], "partition_keys": [0], "time_column": 2, "frame": {"kind":
/// "rows_bounded", "rows": 3}, "calls": [{"function": "SUM", "arg": 1, "name": "s"}],
/// "max_parallelism": 128}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OverSpec {
    /// Input column names.
    pub input_names: Vec<String>,
    /// Input column types.
    pub input_types: Vec<LogicalType>,
    /// The `PARTITION BY` columns (none: one partition).
    pub partition_keys: Vec<usize>,
    /// The rowtime column the window is ordered by: TIMESTAMP(3) or TIMESTAMP_LTZ(3).
    pub time_column: usize,
    /// The frame.
    pub frame: OverFrame,
    /// The aggregate calls, output after the input columns.
    pub calls: Vec<AggCall>,
    /// The job's max parallelism (number of key groups).
    pub max_parallelism: u32,
    /// Ordered by a processing-time attribute (`time_column`, which the rows then carry as
    /// NULL): ROWS frames only, every row aggregated and emitted as it arrives.
    #[serde(default)]
    pub processing_time: bool,
}

impl OverSpec {
    /// What of the plan decides the state: types, keys, time column, frame and calls
    /// (without output names).
    pub fn semantics(&self) -> serde_json::Value {
        serde_json::json!({
            "input_types": self.input_types.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "partition_keys": self.partition_keys,
            "time_column": self.time_column,
            "frame": self.frame,
            "processing_time": self.processing_time,
            "calls": calls_semantics(&self.calls),
        })
    }
}

/// One stored input row: its BinaryRowData bytes, then the state encoding of its
/// argument columns' values (one allocation per row).
#[derive(Debug, Clone, PartialEq)]
struct StoredRow {
    data: Vec<u8>,
    /// Where the BinaryRowData bytes end.
    row_len: usize,
}

impl StoredRow {
    fn row(&self) -> &[u8] {
        &self.data[..self.row_len]
    }

    /// Decodes the argument values into `args`.
    fn args_into(&self, count: usize, args: &mut Vec<Value>) -> Result<()> {
        args.clear();
        let mut input = &self.data[self.row_len..];
        for _ in 0..count {
            args.push(value::decode(&mut input)?);
        }
        if !input.is_empty() {
            return Err(Error::State(format!(
                "{} bytes left over after a stored OVER row's arguments",
                input.len()
            )));
        }
        Ok(())
    }
}

/// One key's state (Flink's value and map states of the OVER functions).
#[derive(Debug, Default)]
struct KeyState {
    /// `lastTriggeringTsState` of the bounded frames; `None` reads as 0.
    last_triggering: Option<i64>,
    /// `processedCountState` of ROWS bounded frames.
    processed: i64,
    /// `cleanupTsState` of RANGE bounded frames.
    cleanup: Option<i64>,
    /// `accState`, once a timer created it.
    accs: Option<Vec<Acc>>,
    /// `inputState`: rows by row time, each time's rows in arrival order.
    rows: BTreeMap<i64, Vec<StoredRow>>,
    /// The times of the key's event-time timers that have not fired (Flink's timer
    /// service holds them; the keyed driver holds one timer per key, at the earliest).
    timers: BTreeSet<i64>,
}

const HAS_LAST: u8 = 1;
const HAS_CLEANUP: u8 = 2;
const HAS_ACCS: u8 = 4;

impl CachedPartition for KeyState {
    fn estimated_bytes(&self) -> usize {
        let rows: usize = self
            .rows
            .values()
            .map(|list| 12 + list.iter().map(|r| 8 + r.data.len()).sum::<usize>())
            .sum();
        32 + rows + 8 * self.timers.len() + 16 * self.accs.as_ref().map_or(0, Vec::len)
    }
}

impl KeyState {
    fn is_empty(&self) -> bool {
        self.last_triggering.is_none()
            && self.processed == 0
            && self.cleanup.is_none()
            && self.accs.is_none()
            && self.rows.is_empty()
            && self.timers.is_empty()
    }

    /// Registers a timer at `time`; whether it is now the key's earliest (the one the keyed
    /// driver must hold).
    fn register(&mut self, time: i64) -> bool {
        let earliest = self.timers.first().is_none_or(|&first| time < first);
        self.timers.insert(time);
        earliest
    }

    fn encode(&self, out: &mut Vec<u8>) {
        let mut flags = 0;
        for (present, flag) in [
            (self.last_triggering.is_some(), HAS_LAST),
            (self.cleanup.is_some(), HAS_CLEANUP),
            (self.accs.is_some(), HAS_ACCS),
        ] {
            if present {
                flags |= flag;
            }
        }
        out.push(flags);
        for v in [self.last_triggering, self.cleanup].into_iter().flatten() {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.processed.to_le_bytes());
        for acc in self.accs.iter().flatten() {
            acc.encode(out);
        }
        out.extend_from_slice(&(self.timers.len() as u32).to_le_bytes());
        for time in &self.timers {
            out.extend_from_slice(&time.to_le_bytes());
        }
        out.extend_from_slice(&(self.rows.len() as u32).to_le_bytes());
        for (time, rows) in &self.rows {
            out.extend_from_slice(&time.to_le_bytes());
            out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
            for row in rows {
                out.extend_from_slice(&(row.data.len() as u32).to_le_bytes());
                out.extend_from_slice(&(row.row_len as u32).to_le_bytes());
                out.extend_from_slice(&row.data);
            }
        }
    }

    fn decode(mut input: &[u8], templates: &[Acc]) -> Result<Self> {
        let input = &mut input;
        let flags = take(input, 1)?[0];
        let mut state = KeyState {
            last_triggering: (flags & HAS_LAST != 0)
                .then(|| take_i64(input))
                .transpose()?,
            cleanup: (flags & HAS_CLEANUP != 0)
                .then(|| take_i64(input))
                .transpose()?,
            processed: take_i64(input)?,
            ..KeyState::default()
        };
        if flags & HAS_ACCS != 0 {
            state.accs = Some(
                templates
                    .iter()
                    .map(|t| Acc::decode(t, input))
                    .collect::<Result<_>>()?,
            );
        }
        for _ in 0..take_u32(input)? {
            state.timers.insert(take_i64(input)?);
        }
        for _ in 0..take_u32(input)? {
            let time = take_i64(input)?;
            let count = take_u32(input)? as usize;
            let mut rows = Vec::with_capacity(count);
            for _ in 0..count {
                let len = take_u32(input)? as usize;
                let row_len = take_u32(input)? as usize;
                if row_len > len {
                    return Err(Error::State(format!(
                        "a stored OVER row of {len} bytes whose row part is {row_len}"
                    )));
                }
                let data = take(input, len)?.to_vec();
                rows.push(StoredRow { data, row_len });
            }
            state.rows.insert(time, rows);
        }
        if !input.is_empty() {
            return Err(Error::State(format!(
                "{} bytes left over after an OVER key's state",
                input.len()
            )));
        }
        Ok(state)
    }
}

fn take<'a>(input: &mut &'a [u8], n: usize) -> Result<&'a [u8]> {
    if input.len() < n {
        return Err(Error::State(format!(
            "corrupt OVER state: {n} bytes expected, {} left",
            input.len()
        )));
    }
    let (head, tail) = input.split_at(n);
    *input = tail;
    Ok(head)
}

fn take_i64(input: &mut &[u8]) -> Result<i64> {
    Ok(i64::from_le_bytes(
        take(input, 8)?.try_into().expect("8 bytes"),
    ))
}

fn take_u32(input: &mut &[u8]) -> Result<u32> {
    Ok(u32::from_le_bytes(
        take(input, 4)?.try_into().expect("4 bytes"),
    ))
}

/// A batch's keys and their states, and its rows ready to be stored.
struct Loaded<'a> {
    groups: Groups,
    /// Each row's group.
    row_group: Vec<u32>,
    states: Vec<KeyState>,
    /// Whether each group's state was changed since the store had it.
    dirty: Vec<bool>,
    rows: BatchRows<'a>,
}

/// A batch's rows as BinaryRowData and its argument columns.
struct BatchRows<'a> {
    encoded: BinaryRows,
    readers: Vec<ColumnReader<'a>>,
}

impl BatchRows<'_> {
    /// Row `row` as state stores it: its bytes, then its argument values.
    fn stored(&self, row: usize) -> StoredRow {
        let bytes = self.encoded.row(row);
        let mut data = Vec::with_capacity(bytes.len() + 9 * self.readers.len());
        data.extend_from_slice(bytes);
        for reader in &self.readers {
            value::encode(&reader.value(row), &mut data);
        }
        StoredRow {
            data,
            row_len: bytes.len(),
        }
    }
}

/// The rows a firing emits and their calls' values.
#[derive(Default)]
struct Fired {
    data: Vec<u8>,
    offsets: Vec<usize>,
    /// Per call, the value of each emitted row.
    values: Vec<Vec<Value>>,
    /// Scratch: the argument values of the row being aggregated.
    args: Vec<Value>,
}

impl Fired {
    fn new(calls: usize) -> Self {
        Self {
            data: Vec::new(),
            offsets: vec![0],
            values: vec![Vec::new(); calls],
            args: Vec::new(),
        }
    }

    fn push(&mut self, row: &StoredRow, values: &[Value]) {
        self.push_row(row);
        for (column, v) in self.values.iter_mut().zip(values) {
            column.push(v.clone());
        }
    }

    fn push_row(&mut self, row: &StoredRow) {
        self.data.extend_from_slice(row.row());
        self.offsets.push(self.data.len());
    }
}

/// The OVER aggregate over one task's keyed state.
pub struct OverAggregate {
    spec: OverSpec,
    calls: Vec<BoundCall>,
    /// Fresh accumulators (`createAccumulators`), the decoding templates too.
    fresh: Vec<Acc>,
    /// The input columns whose values stored rows keep (every call's arguments).
    arg_columns: Vec<usize>,
    /// Per call, the positions of its argument and second argument in `arg_columns`.
    call_args: Vec<(Option<usize>, Option<usize>)>,
    hasher: KeyHasher,
    writer: RowWriter,
    reader: RowReader,
    schema: SchemaRef,
    output_types: Vec<LogicalType>,
    identity: PlanIdentity,
    keyed: Keyed,
    table: TableId,
    late_rows: u64,
    /// Decoded partitions between batches (decision 0034).
    cache: PartitionCache<KeyState>,
    /// Whether a batch or watermark has taken partitions out of the cache and not yet put
    /// them back.
    taken: bool,
    /// Why a batch or watermark failed with partitions out of the cache: the operator then
    /// holds no consistent state and refuses everything (its job restores a checkpoint).
    failed: Option<String>,
}

impl std::fmt::Debug for OverAggregate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OverAggregate")
            .field("frame", &self.spec.frame)
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

impl OverAggregate {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &OverSpec) -> PlanIdentity {
        PlanIdentity::new(
            OperatorKind::OverAggregate,
            STATE_VERSION,
            &spec.semantics(),
        )
    }

    /// An operator for `spec` over `keyed` (fresh or restored). A plan Flink would refuse
    /// (a column out of range, a time column that is not a TIMESTAMP(p <= 3), a frame
    /// without a positive size) is an error.
    pub fn open(spec: OverSpec, mut keyed: Keyed) -> Result<Self> {
        let columns = spec.input_types.len();
        if spec.input_names.len() != columns {
            return Err(Error::Plan(format!(
                "{} input names for {columns} input types",
                spec.input_names.len()
            )));
        }
        if let Some(&k) = spec.partition_keys.iter().find(|&&k| k >= columns) {
            return Err(Error::Plan(format!(
                "partition key column {k} is out of range for {columns} input columns"
            )));
        }
        match spec.input_types.get(spec.time_column) {
            Some(LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p)) if *p <= 3 => {}
            Some(_) if spec.processing_time => {}
            other => {
                return Err(Error::Plan(format!(
                    "the OVER time column {} is {}, not a TIMESTAMP(p <= 3) row time",
                    spec.time_column,
                    other.map_or("out of range".to_string(), ToString::to_string)
                )));
            }
        }
        match spec.frame {
            OverFrame::RangeUnbounded | OverFrame::RangeBounded { .. } if spec.processing_time => {
                return Err(Error::Plan(
                    "a RANGE frame over processing time (Flink groups its rows by the \
                     millisecond they arrive in) is not native"
                        .into(),
                ));
            }
            OverFrame::RowsBounded { rows } if rows < 1 => {
                return Err(Error::Plan(format!(
                    "a ROWS frame of {rows} rows (at least the current row)"
                )));
            }
            OverFrame::RangeBounded { millis } if millis < 0 => {
                return Err(Error::Plan(format!(
                    "a RANGE frame reaching {millis} ms back"
                )));
            }
            _ => {}
        }
        if keyed.max_parallelism() != spec.max_parallelism {
            return Err(Error::OutOfRange(format!(
                "the plan's max parallelism is {} but its state has {} key groups",
                spec.max_parallelism,
                keyed.max_parallelism()
            )));
        }
        if let Some(call) = spec.calls.iter().find(|c| c.filter.is_some()) {
            return Err(Error::Plan(format!(
                "OVER aggregate {} has a FILTER (an OVER window has none in Flink's plans)",
                call.name
            )));
        }
        if let Some(call) = spec.calls.iter().find(|c| c.frequency.is_some()) {
            return Err(Error::Plan(format!(
                "OVER aggregate {} has a PERCENTILE frequency, which is not supported natively",
                call.name
            )));
        }
        // Bounded frames retract rows leaving the frame: Flink's retracting functions.
        let retracting = spec.frame.is_bounded();
        let calls = spec
            .calls
            .iter()
            .map(|c| BoundCall::bind(c, &spec.input_types, retracting))
            .collect::<Result<Vec<_>>>()?;
        let fresh: Vec<Acc> = calls.iter().map(BoundCall::create_local).collect();
        let mut arg_columns: Vec<usize> = calls
            .iter()
            .flat_map(|c| [c.arg, c.value_arg])
            .flatten()
            .collect();
        arg_columns.sort_unstable();
        arg_columns.dedup();
        let position = |column: Option<usize>| {
            column.map(|c| arg_columns.binary_search(&c).expect("collected above"))
        };
        let call_args = calls
            .iter()
            .map(|c| (position(c.arg), position(c.value_arg)))
            .collect();
        let mut fields: Vec<Field> = spec
            .input_names
            .iter()
            .zip(&spec.input_types)
            .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
            .collect();
        let mut output_types = spec.input_types.clone();
        for (call, bound) in spec.calls.iter().zip(&calls) {
            fields.push(Field::new(&call.name, bound.result.to_arrow(), true));
            output_types.push(bound.result.clone());
        }
        let key_types = spec
            .partition_keys
            .iter()
            .map(|&k| spec.input_types[k].clone())
            .collect();
        let table = keyed
            .store_mut()
            .open_table_with(KEY_TABLE, TableAccess::Point)?;
        Ok(Self {
            identity: Self::identity_of(&spec),
            calls,
            fresh,
            arg_columns,
            call_args,
            hasher: KeyHasher::new(key_types),
            writer: RowWriter::new(spec.input_types.clone()),
            reader: RowReader::new(spec.input_types.clone()),
            schema: Arc::new(Schema::new(fields)),
            output_types,
            keyed,
            table,
            late_rows: 0,
            cache: PartitionCache::new(CAPACITY_BYTES),
            taken: false,
            failed: None,
            spec,
        })
    }

    /// The plan.
    pub fn spec(&self) -> &OverSpec {
        &self.spec
    }

    /// The keyed driver (store, key groups, watermark).
    pub fn keyed(&self) -> &Keyed {
        &self.keyed
    }

    /// Rows dropped as late since the operator was opened (Flink's
    /// `numLateRecordsDropped`).
    pub fn late_rows_dropped(&self) -> u64 {
        self.late_rows
    }

    fn decode(&self, value: Option<Vec<u8>>) -> Result<KeyState> {
        value.map_or_else(
            || Ok(KeyState::default()),
            |v| KeyState::decode(&v, &self.fresh),
        )
    }

    /// An error when an earlier batch or watermark failed half way (see
    /// [`OverAggregate::failed`]).
    fn check_usable(&self) -> Result<()> {
        match &self.failed {
            None => Ok(()),
            Some(why) => Err(Error::State(format!(
                "the OVER aggregation failed earlier and holds no consistent state: {why}"
            ))),
        }
    }

    /// The states of `keys`: cached ones taken out of the cache, the others read in the
    /// order given with one batched read; and whether each is changed since the store had
    /// it. On an error the cache is as it was.
    fn take_states(&mut self, keys: &[&[u8]]) -> Result<(Vec<KeyState>, Vec<bool>)> {
        let missing: Vec<&[u8]> = keys
            .iter()
            .copied()
            .filter(|k| !self.cache.contains(k))
            .collect();
        let mut read = self
            .keyed
            .store()
            .multi_get(self.table, &missing)?
            .into_iter()
            .map(|v| self.decode(v))
            .collect::<Result<Vec<_>>>()?
            .into_iter();
        self.cache.start_batch();
        self.taken = true;
        let mut dirty = vec![false; keys.len()];
        let states = keys
            .iter()
            .enumerate()
            .map(|(i, key)| match self.cache.take(key) {
                Some((state, was_dirty)) => {
                    dirty[i] = was_dirty;
                    state
                }
                None => read.next().expect("a state read for each missing key"),
            })
            .collect();
        Ok((states, dirty))
    }

    /// Puts states back into the cache: `keys[i]`'s state, changed when `changed[i]`.
    fn put_states(&mut self, keys: &[&[u8]], states: Vec<KeyState>, changed: &[bool]) {
        for ((key, state), &changed) in keys.iter().zip(states).zip(changed) {
            self.cache.put(key, state, changed);
        }
        self.taken = false;
    }

    /// Puts `state` for `key` into `write` (an empty state as a delete).
    fn write_state(&self, write: &mut WriteBatch, key: &[u8], state: &KeyState) {
        if state.is_empty() {
            write.delete(self.table, key);
        } else {
            let mut bytes = Vec::new();
            state.encode(&mut bytes);
            write.put(self.table, key, &bytes);
        }
    }

    /// Writes the changed states that leave the cache (it holds more than its capacity).
    /// On an error they stay cached, and nothing is written.
    fn write_evicted(&mut self) -> Result<()> {
        let evicted = self.cache.evict();
        if evicted.is_empty() {
            return Ok(());
        }
        let mut write = WriteBatch::new();
        for (key, state) in &evicted {
            self.write_state(&mut write, key, state);
        }
        let written = self.keyed.store_mut().write(&write);
        if written.is_err() {
            for (key, state) in evicted {
                self.cache.put(&key, state, true);
            }
        }
        written
    }

    /// Writes every changed cached state, as a checkpoint must hold them.
    fn write_cached(&mut self) -> Result<()> {
        let mut write = WriteBatch::new();
        for (key, state) in self.cache.dirty() {
            self.write_state(&mut write, key, state);
        }
        if write.is_empty() {
            return Ok(());
        }
        self.keyed.store_mut().write(&write)?;
        self.cache.mark_clean();
        Ok(())
    }

    /// The keys of `batch`'s rows, their states (one batched read of those not cached) and
    /// its rows. The states are taken last: an error before leaves the cache as it was.
    fn load<'a>(&mut self, batch: &'a RecordBatch) -> Result<Loaded<'a>> {
        let (groups, row_group) =
            self.keyed
                .groups(&self.hasher, batch, &self.spec.partition_keys)?;
        let order = access_order(self.keyed.store(), &[self.table], &groups);
        let readers = self
            .arg_columns
            .iter()
            .map(|&c| ColumnReader::new(batch.column(c), &self.spec.input_types[c], c))
            .collect::<Result<Vec<_>>>()?;
        let encoded = self.writer.write(batch.columns())?;
        let keys: Vec<&[u8]> = order.iter().map(|&g| groups.key(g as usize)).collect();
        let (taken, was_dirty) = self.take_states(&keys)?;
        let mut states: Vec<KeyState> = (0..groups.len()).map(|_| KeyState::default()).collect();
        let mut dirty = vec![false; groups.len()];
        for ((&g, state), was_dirty) in order.iter().zip(taken).zip(was_dirty) {
            states[g as usize] = state;
            dirty[g as usize] = was_dirty;
        }
        Ok(Loaded {
            groups,
            row_group,
            states,
            dirty,
            rows: BatchRows { encoded, readers },
        })
    }

    /// Puts a batch's states back into the cache, changed where `changed` or already so.
    fn put_loaded(
        &mut self,
        groups: &Groups,
        states: Vec<KeyState>,
        dirty: &[bool],
        changed: &[bool],
    ) {
        let keys: Vec<&[u8]> = (0..groups.len()).map(|g| groups.key(g)).collect();
        let changed: Vec<bool> = dirty.iter().zip(changed).map(|(&d, &c)| d || c).collect();
        self.put_states(&keys, states, &changed);
    }

    /// Puts each row into its key's state (or drops it as late) and registers its timers.
    fn ingest(&mut self, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        check_columns(
            "OVER aggregate input batch",
            &self.spec.input_types,
            input.batch(),
        )?;
        ops::expect_insert_only(input, "OVER aggregation")?;
        let batch = input.batch();
        let n = batch.num_rows();
        if n == 0 {
            return Ok(());
        }
        if self.spec.processing_time {
            return self.on_arrival(input, out);
        }
        let times = batch
            .column(self.spec.time_column)
            .as_primitive::<TimestampMillisecondType>();
        if let Some(row) = (0..n).find(|&r| times.is_null(r)) {
            return Err(Error::InvalidShape(format!(
                "row {row}: the row time ({}) of an OVER aggregation is NULL",
                self.spec.input_names[self.spec.time_column]
            )));
        }
        let Loaded {
            groups,
            row_group,
            mut states,
            dirty,
            rows,
        } = self.load(batch)?;
        let watermark = self.keyed.watermark();
        let mut changed = vec![false; groups.len()];
        let mut timers: Vec<(usize, i64)> = Vec::new();
        for (row, &slot) in row_group.iter().enumerate() {
            let slot = slot as usize;
            let time = times.value(row);
            let state = &mut states[slot];
            let kept = if self.spec.frame.is_bounded() {
                time > state.last_triggering.unwrap_or(0)
            } else {
                watermark.is_none_or(|w| time > w)
            };
            if !kept {
                self.late_rows += 1;
                continue;
            }
            let stored = rows.stored(row);
            let list = state.rows.entry(time).or_default();
            let first_of_time = list.is_empty();
            list.push(stored);
            if first_of_time && state.register(time) {
                timers.push((slot, time));
            }
            if let OverFrame::RangeBounded { millis } = self.spec.frame {
                // `registerCleanupTimer`.
                let min = time.wrapping_add(millis).wrapping_add(1);
                let max = time
                    .wrapping_add((millis as f64 * 1.5) as i64)
                    .wrapping_add(1);
                if state.cleanup.is_none_or(|c| c < min) {
                    if state.register(max) {
                        timers.push((slot, max));
                    }
                    state.cleanup = Some(max);
                }
            }
            changed[slot] = true;
        }
        self.put_loaded(&groups, states, &dirty, &changed);
        self.keyed
            .register_event_timers(timers.into_iter().map(|(slot, time)| {
                let key = groups.key(slot);
                let key_group = u16::from_be_bytes([key[0], key[1]]);
                (key_group, time, &key[KEY_GROUP_BYTES..], [])
            }))
    }

    /// Processing time (`ProcTimeRowsBoundedPrecedingFunction`,
    /// `ProcTimeUnboundedPrecedingFunction`): each row in arrival order is aggregated into
    /// its key's frame and emitted at once. A bounded frame is the queue of the last n + 1
    /// rows, stored under arrival numbers (Flink stores them under their arrival millisecond,
    /// which orders them the same way).
    fn on_arrival(&mut self, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        let batch = input.batch();
        let Loaded {
            groups,
            row_group,
            mut states,
            dirty,
            rows,
        } = self.load(batch)?;
        let mut fired = Fired::new(self.calls.len());
        for (row, &slot) in row_group.iter().enumerate() {
            let state = &mut states[slot as usize];
            let stored = rows.stored(row);
            match self.spec.frame {
                OverFrame::RowsBounded { rows: frame } => {
                    let arrival = state.rows.last_key_value().map_or(0, |(&n, _)| n + 1);
                    state.rows.insert(arrival, vec![stored]);
                    self.rows_bounded(frame, arrival, state, &mut fired)?;
                }
                _ => {
                    let mut accs = state.accs.take().unwrap_or_else(|| self.fresh.clone());
                    self.update(&mut accs, &stored, false, &mut fired.args)?;
                    self.emit(&mut accs, &stored, &mut fired)?;
                    state.accs = Some(accs);
                }
            }
        }
        let changed = vec![true; groups.len()];
        self.put_loaded(&groups, states, &dirty, &changed);
        out.emit(self.output(fired)?);
        Ok(())
    }

    /// Fires the timers the watermark passed and returns what they emit: each key with a
    /// due timer runs its own due timers in time order (Flink interleaves keys by time; a
    /// key's rows and order are the same).
    fn fire(&mut self) -> Result<ChangelogBatch> {
        let due = self.keyed.fire_event_timers()?;
        let mut fired = Fired::new(self.calls.len());
        let Some(watermark) = self.keyed.watermark().filter(|_| !due.is_empty()) else {
            return self.output(fired);
        };
        let mut seen = hashbrown::HashSet::with_capacity(due.len());
        let keys: Vec<Vec<u8>> = due
            .iter()
            .map(Timer::state_key)
            .filter(|key| seen.insert(key.clone()))
            .collect();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let (mut states, _) = self.take_states(&refs)?;
        let mut next = Vec::new();
        for (key, state) in keys.iter().zip(&mut states) {
            while let Some(time) = state.timers.first().copied().filter(|&t| t <= watermark) {
                state.timers.pop_first();
                self.on_timer(time, state, &mut fired)?;
            }
            if let Some(&time) = state.timers.first() {
                next.push((key, time));
            }
        }
        // Every fired key's state changed (its timers at least).
        self.put_states(&refs, states, &vec![true; refs.len()]);
        self.keyed
            .register_event_timers(next.into_iter().map(|(key, time)| {
                let key_group = u16::from_be_bytes([key[0], key[1]]);
                (key_group, time, &key[KEY_GROUP_BYTES..], [])
            }))?;
        self.output(fired)
    }

    /// Flink's `onTimer` at `time` for one key.
    fn on_timer(&self, time: i64, state: &mut KeyState, fired: &mut Fired) -> Result<()> {
        match self.spec.frame {
            OverFrame::RowsUnbounded | OverFrame::RangeUnbounded => {
                let Some(rows) = state.rows.remove(&time) else {
                    return Ok(());
                };
                let mut accs = state.accs.take().unwrap_or_else(|| self.fresh.clone());
                if self.spec.frame == OverFrame::RowsUnbounded {
                    for row in &rows {
                        self.update(&mut accs, row, false, &mut fired.args)?;
                        self.emit(&mut accs, row, fired)?;
                    }
                } else {
                    for row in &rows {
                        self.update(&mut accs, row, false, &mut fired.args)?;
                    }
                    let values = self.values(&mut accs)?;
                    rows.iter().for_each(|row| fired.push(row, &values));
                }
                state.accs = Some(accs);
            }
            OverFrame::RowsBounded { rows: frame } => {
                if state.rows.contains_key(&time) {
                    self.rows_bounded(frame, time, state, fired)?;
                }
                state.last_triggering = Some(time);
            }
            OverFrame::RangeBounded { millis } => {
                if state.cleanup.is_some_and(|c| c <= time) {
                    // The cleanup timer: the key's state starts over (its timers stay).
                    let timers = std::mem::take(&mut state.timers);
                    *state = KeyState {
                        timers,
                        ..KeyState::default()
                    };
                    return Ok(());
                }
                if let Some(inputs) = state.rows.get(&time) {
                    let mut accs = state.accs.take().unwrap_or_else(|| self.fresh.clone());
                    // Flink tests every stored time; times are positive here (a kept row's
                    // is after a last fired time >= 0), so `time - s` cannot overflow and
                    // the expired times are a prefix of the ascending map.
                    let mut expired = Vec::new();
                    for (&s, rows) in state.rows.iter().take_while(|(s, _)| time - **s > millis) {
                        expired.push(s);
                        for row in rows {
                            self.update(&mut accs, row, true, &mut fired.args)?;
                        }
                    }
                    for row in inputs {
                        self.update(&mut accs, row, false, &mut fired.args)?;
                    }
                    let values = self.values(&mut accs)?;
                    inputs.iter().for_each(|row| fired.push(row, &values));
                    for s in expired {
                        state.rows.remove(&s);
                    }
                    state.accs = Some(accs);
                }
                state.last_triggering = Some(time);
            }
        }
        Ok(())
    }

    /// `RowTimeRowsBoundedPrecedingFunction.onTimer` for the rows of `time`: a queue of
    /// `frame` rows, the oldest stored row retracted once it is full. A retracted row has
    /// always been accumulated (it is at most the current one's predecessor), so the rows
    /// of `time` are never all retracted while they are walked.
    fn rows_bounded(
        &self,
        frame: i64,
        time: i64,
        state: &mut KeyState,
        fired: &mut Fired,
    ) -> Result<()> {
        let mut count = state.processed;
        let mut accs = state.accs.take().unwrap_or_else(|| self.fresh.clone());
        // The time whose rows are being retracted, and how many of them were.
        let mut retracting: Option<(i64, usize)> = None;
        let inputs = state.rows[&time].len();
        for i in 0..inputs {
            if count >= frame {
                if retracting.is_none() {
                    retracting = state.rows.keys().next().map(|&oldest| (oldest, 0));
                }
                if let Some((oldest, taken)) = &mut retracting {
                    let list = &state.rows[oldest];
                    self.update(&mut accs, &list[*taken], true, &mut fired.args)?;
                    *taken += 1;
                    if *taken == list.len() {
                        state.rows.remove(oldest);
                        retracting = None;
                    }
                }
            } else {
                count += 1;
            }
            let input = &state.rows[&time][i];
            self.update(&mut accs, input, false, &mut fired.args)?;
            self.emit(&mut accs, input, fired)?;
        }
        if let Some((oldest, taken)) = retracting
            && let Some(list) = state.rows.get_mut(&oldest)
        {
            list.drain(..taken);
        }
        state.processed = count;
        state.accs = Some(accs);
        Ok(())
    }

    /// Accumulates (`retract` false) or retracts `row` into `accs`; `args` is scratch.
    fn update(
        &self,
        accs: &mut [Acc],
        row: &StoredRow,
        retract: bool,
        args: &mut Vec<Value>,
    ) -> Result<()> {
        row.args_into(self.arg_columns.len(), args)?;
        for ((call, acc), &(x, y)) in self.calls.iter().zip(accs).zip(&self.call_args) {
            let arg = |p: Option<usize>| p.map_or(&Value::Null, |p| &args[p]);
            call.update(acc, arg(x), arg(y), retract, None)?;
        }
        Ok(())
    }

    /// `getValue` of every call.
    fn values(&self, accs: &mut [Acc]) -> Result<Vec<Value>> {
        self.calls
            .iter()
            .zip(accs)
            .map(|(call, acc)| call.value(acc, None))
            .collect()
    }

    /// Emits `row` with the calls' current values.
    fn emit(&self, accs: &mut [Acc], row: &StoredRow, fired: &mut Fired) -> Result<()> {
        fired.push_row(row);
        for ((call, acc), column) in self.calls.iter().zip(accs).zip(&mut fired.values) {
            column.push(call.value(acc, None)?);
        }
        Ok(())
    }

    fn output(&self, fired: Fired) -> Result<ChangelogBatch> {
        let rows = self.reader.read(&fired.data, &fired.offsets)?;
        let mut columns = rows.batch().columns().to_vec();
        for (values, ty) in fired.values.iter().zip(&self.output_types[columns.len()..]) {
            columns.push(build_array(&ty.to_arrow(), values.iter())?);
        }
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        Ok(ChangelogBatch::insert_only(batch))
    }
}

impl Operator for OverAggregate {
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

    /// Event-time rows wait in state for the watermark; processing-time rows are emitted
    /// here.
    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        self.check_usable()?;
        // What left the cache after the last batch is written first: a failure here
        // changes nothing.
        self.write_evicted()?;
        let result = self.process_batch(port, input, out);
        self.note_failure(&result);
        result
    }

    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        self.check_usable()?;
        self.write_evicted()?;
        let result = self.on_watermark(watermark, out);
        self.note_failure(&result);
        result
    }

    fn watermark(&self) -> Option<i64> {
        self.keyed.watermark()
    }

    /// Nothing is buffered outside state.
    fn flush(&mut self, _out: &mut Output) -> Result<()> {
        Ok(())
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        self.check_usable()?;
        self.write_cached()?;
        self.keyed.checkpoint(target, &self.identity)
    }

    fn memory_bytes(&self) -> u64 {
        self.keyed.memory_bytes() + self.cache.bytes() as u64
    }
}

impl OverAggregate {
    /// Marks the operator failed when `result` is an error raised with states out of the
    /// cache.
    fn note_failure(&mut self, result: &Result<()>) {
        if let Err(e) = result
            && self.taken
        {
            self.failed = Some(e.to_string());
        }
    }

    fn process_batch(
        &mut self,
        port: Port,
        input: &ChangelogBatch,
        out: &mut Output,
    ) -> Result<()> {
        ops::expect_one_input(self.identity.kind, port)?;
        self.ingest(input, out)
    }

    fn on_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        if self.keyed.advance_watermark(watermark) {
            out.emit(self.fire()?);
        }
        Ok(())
    }
}

impl KeyedOperator for OverAggregate {
    type Spec = OverSpec;
    const HOLDER: &'static str = "over-agg";

    fn identity_of(spec: &OverSpec) -> PlanIdentity {
        Self::identity_of(spec)
    }

    fn max_parallelism(spec: &OverSpec) -> u32 {
        spec.max_parallelism
    }

    fn open(spec: OverSpec, keyed: Keyed) -> Result<Self> {
        Self::open(spec, keyed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_state_round_trips_and_truncation_is_refused() {
        let fresh = vec![Acc::Count(0)];
        let mut state = KeyState {
            last_triggering: Some(-5),
            processed: 3,
            cleanup: None,
            accs: Some(vec![Acc::Count(7)]),
            rows: BTreeMap::new(),
            timers: BTreeSet::from([21, 9]),
        };
        let row = |b: u8| StoredRow {
            data: [vec![b; 16], vec![9]].concat(),
            row_len: 16,
        };
        state.rows.insert(10, vec![row(1), row(2)]);
        state.rows.insert(-3, vec![row(3)]);
        let mut bytes = Vec::new();
        state.encode(&mut bytes);
        let back = KeyState::decode(&bytes, &fresh).unwrap();
        assert_eq!(back.last_triggering, Some(-5));
        assert_eq!((back.processed, back.cleanup), (3, None));
        assert_eq!(back.accs, Some(vec![Acc::Count(7)]));
        assert_eq!(back.rows, state.rows);
        assert_eq!(back.timers, state.timers);
        assert!(KeyState::decode(&bytes[..bytes.len() - 1], &fresh).is_err());
        let padded = [bytes.as_slice(), &[0]].concat();
        assert!(KeyState::decode(&padded, &fresh).is_err());
        assert!(KeyState::default().is_empty());
    }
}

#[cfg(test)]
mod cache_tests {
    //! The partition cache (decision 0034) against an operator that writes every state.

    use arrow::array::{Int32Array, Int64Array, TimestampMillisecondArray};
    use arrow::datatypes::DataType;

    use super::*;
    use crate::aggregate::function::AggFunction;
    use crate::ops::StateConfig;

    fn spec(frame: OverFrame) -> OverSpec {
        OverSpec {
            input_names: vec!["k".into(), "v".into(), "ts".into()],
            input_types: vec![
                LogicalType::Int,
                LogicalType::BigInt,
                LogicalType::Timestamp(3),
            ],
            partition_keys: vec![0],
            time_column: 2,
            frame,
            calls: vec![
                AggCall::new(AggFunction::CountStar, None, "c"),
                AggCall::new(AggFunction::Sum, Some(1), "sum"),
                AggCall::new(AggFunction::Max, Some(1), "max"),
            ],
            max_parallelism: 128,
            processing_time: false,
        }
    }

    /// Rows `(k, v, ts)` with 29 keys and times running ahead of the watermark.
    fn batch(rows: std::ops::Range<i32>) -> ChangelogBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int32, true),
            Field::new("v", DataType::Int64, true),
            Field::new(
                "ts",
                DataType::Timestamp(arrow::datatypes::TimeUnit::Millisecond, None),
                true,
            ),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int32Array::from_iter_values(
                    rows.clone().map(|i| i * 11 % 29),
                )),
                Arc::new(Int64Array::from_iter_values(
                    rows.clone().map(|i| i64::from(i % 17)),
                )),
                Arc::new(TimestampMillisecondArray::from_iter_values(
                    rows.map(|i| i64::from(i * 3 + i % 7)),
                )),
            ],
        )
        .unwrap();
        ChangelogBatch::insert_only(batch)
    }

    /// 600 rows in batches of 23, each followed by a watermark, checkpointed and restored
    /// after the 10th, by an operator whose cache holds `capacity` bytes.
    fn run(frame: OverFrame, capacity: usize) -> Vec<ChangelogBatch> {
        let config = StateConfig::memory();
        let open = |keyed| {
            let mut over = OverAggregate::open(spec(frame), keyed).unwrap();
            over.cache = PartitionCache::new(capacity);
            over
        };
        let store = config.open("over").unwrap();
        let mut over = open(Keyed::new(store, 128, config.clock.clone()).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let mut out = Output::new();
        for (n, start) in (0..600).step_by(23).enumerate() {
            if n == 10 {
                let c = over.checkpoint(&dir.path().join("c")).unwrap();
                let restored = <OverAggregate as KeyedOperator>::restore(
                    spec(frame),
                    &config,
                    0..=127,
                    &[Checkpoint::open(c.path()).unwrap()],
                )
                .unwrap();
                over = open(restored.keyed);
            }
            over.process(0, &batch(start..(start + 23).min(600)), &mut out)
                .unwrap();
            over.advance_watermark(i64::from(start * 3 - 40), &mut out)
                .unwrap();
        }
        over.advance_watermark(i64::MAX, &mut out).unwrap();
        out.take()
    }

    #[test]
    fn evicting_and_checkpointing_states_changes_no_output() {
        for frame in [
            OverFrame::RowsUnbounded,
            OverFrame::RowsBounded { rows: 4 },
            OverFrame::RangeBounded { millis: 20 },
        ] {
            // No capacity: every state is written before the next batch or watermark.
            let through = run(frame, 0);
            // Every row but the few a bounded frame drops as late.
            let rows: usize = through.iter().map(ChangelogBatch::num_rows).sum();
            assert!((590..=600).contains(&rows), "{frame:?}: {rows} rows");
            for capacity in [400, CAPACITY_BYTES] {
                assert_eq!(run(frame, capacity), through, "{frame:?}, {capacity}");
            }
        }
    }
}
