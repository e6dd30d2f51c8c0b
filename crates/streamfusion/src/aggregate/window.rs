//! Window aggregation over the window TVFs: Flink's `WindowAggOperator` with
//! `SliceUnsharedSyncStateWindowAggProcessor` (TUMBLE) and
//! `SliceSharedSyncStateWindowAggProcessor` (HOP, CUMULATE), the one-phase plan of
//! `GROUP BY window_start, window_end, k` over `TABLE(TUMBLE|HOP|CUMULATE(...))`, in event
//! time.
//!
//! # State
//!
//! One accumulator row per key and slice ([`SliceAssigner`]), keyed
//! `[key group][key row][slice end]` (the slice end a sign-flipped big-endian `i64`, so a
//! key's slices are in time order), in the GROUP BY's typed table; DISTINCT maps and the
//! other views live inside the accumulator (the local accumulators of two-phase GROUP BY),
//! as Flink keeps one state entry per key and window namespace. One event-time timer per key
//! and window end, `[key row][window end]`, in the keyed driver's timer table; all of it is
//! checkpointed and rescaled with its key groups.
//!
//! # Rows
//!
//! Each row's slice is its time column's; a row whose slice has fired (`end - 1 <=
//! watermark`) is late: dropped when the last window of its slice has fired too, else
//! bound for `sliceStateMergeTarget` with a timer on the first window not yet fired, exactly
//! as `AbstractSliceSyncStateWindowAggProcessor.processElement`. A NULL row time fails, as
//! Flink fails the job.
//!
//! Kept rows are buffered as Flink's `RecordsWindowBuffer` buffers them, and applied to
//! state (one read and write per key and slice) when a watermark reaches Flink's next
//! trigger (`getNextTriggerWatermarkWithOffset`: the next slice end, offset included, minus
//! one) while a buffered slice has fired, before a checkpoint, at the end of input, or when
//! the buffer is full. A slice new in state gets its window's timer unless that window had
//! fired at the timer service's watermark (`AggCombiner`). Rows thus reach state before any
//! window that needs them fires, exactly when Flink's do (decision 0026).
//!
//! # Firing
//!
//! A watermark fires every timer at or before it, in timestamp order, timers registered
//! while firing included (a HOP or CUMULATE key's next window), as Flink's timer service
//! does. TUMBLE emits its slice's results; HOP merges the window's slices into a fresh
//! accumulator and CUMULATE merges the window's last slice into its first (which keeps the
//! running result), each emitting only when the window is not empty (its `COUNT(*)`, hidden
//! when the query has none, is not zero) and registering the next window; then the slices
//! no later window needs are dropped. Output rows are `+I`: grouping columns, results, then
//! the window properties the plan names (`window_start`, `window_end`, `window_time` =
//! `window_end - 1`).
//!
//! Time zones: over a TIMESTAMP_LTZ(3) time column in a session time zone other than UTC
//! (`time_zone`), slices are cut on the rows' local times and `window_start`/`window_end`
//! are local, while timers, lateness and buffer triggers are instants of the
//! [`WindowClock`] (`TimeWindowUtil`, daylight saving days included) and `window_time` is
//! the instant of `window_end - 1`.

use std::collections::BTreeSet;
use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, TimestampMillisecondArray};
use arrow::datatypes::{Field, Int64Type, Schema, SchemaRef, TimestampMillisecondType};
use hashbrown::HashMap;

use super::acc_codec::AccCodec;
use super::function::{Acc, AggCall, AggFunction, BoundCall};
use super::group::{
    AccTable, Bound, CallInputs, GroupAggSpec, Groups, access_order, bind, check_columns,
    check_input, check_max_parallelism, concat, rows_by_slot,
};
use super::local_global::PartialLayout;
use super::typed_bundle::TypedCalls;
use super::value::{Value, build_array};
use crate::binary_row::{BinaryRows, RowReader};
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::keys::layout::KEY_GROUP_BYTES;
use crate::ops::keyed::Keyed;
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port, StateConfig};
use crate::state::checkpoint::Checkpoint;
use crate::state::rows::{GroupRows, RowTable, hash_of};
use crate::state::{StateBackend, WriteBatch};
use crate::types::LogicalType;
use crate::window::TimeWindow;
use crate::window::slices::SliceAssigner;
use crate::window_clock::WindowClock;

/// The version of the window aggregate's state layout, stored with its checkpoints.
pub const STATE_VERSION: u32 = 1;
const ACC_TABLE: &str = "window_agg.acc";
pub(crate) const NAMESPACE_BYTES: usize = 8;

/// A window property appended to each output row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowProperty {
    /// `window_start`, TIMESTAMP(3).
    Start,
    /// `window_end`, TIMESTAMP(3).
    End,
    /// `window_time` (`window_end - 1`), the time column's type: a row time again.
    Time,
    /// A legacy group window's `w$proctime` over an event-time window: NULL, TIMESTAMP_LTZ(3)
    /// (Flink's generated `getValue` leaves it unset).
    Proctime,
}

/// A window aggregation, as JSON: `{"aggregate": <GroupAggSpec, insert-only, without
/// mini-batch or TTL>, "window": {"kind": "tumble", "size": 10000, "offset": 0},
/// "time_column": 2, "properties": [["window_start", "start"], ["window_end", "end"]]}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowAggSpec {
    /// The grouping columns and calls over the input (the `GROUP BY` without its window
    /// columns).
    pub aggregate: GroupAggSpec,
    /// How windows are sliced.
    pub window: SliceAssigner,
    /// The input column holding the row time: TIMESTAMP(3) or TIMESTAMP_LTZ(3).
    pub time_column: usize,
    /// The window properties after the calls, with their output names.
    pub properties: Vec<(String, WindowProperty)>,
    /// The session time zone of windows over a TIMESTAMP_LTZ time column
    /// ([`WindowClock`]); `None` is UTC (and TIMESTAMP(3)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// The legacy `GROUP BY k, TUMBLE(ts, size)` or `HOP(ts, slide, size)` group window
    /// (Flink's `WindowOperator`) rather than the window TVF (`WindowAggOperator`): the same
    /// windows and results in UTC, but its timer service keeps no watermark, so a restored
    /// operator starts without one (decision 0030). TUMBLE and HOP only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub legacy: bool,
}

impl WindowAggSpec {
    /// What of the plan decides the state: the aggregate's semantics, the slicing and the
    /// time column (output names and properties are left out).
    pub fn semantics(&self) -> serde_json::Value {
        let mut semantics = serde_json::json!({
            "aggregate": self.aggregate.semantics(),
            "window": self.window,
            "time_column": self.time_column,
        });
        // UTC plans keep the identity they had before zones were supported, and window
        // TVF plans the one they had before legacy windows were.
        if let Some(zone) = &self.time_zone {
            semantics["time_zone"] = zone.as_str().into();
        }
        if self.legacy {
            semantics["legacy"] = true.into();
        }
        semantics
    }

    /// The clock of the plan's session time zone.
    pub fn clock(&self) -> Result<WindowClock> {
        WindowClock::new(self.time_zone.as_deref())
    }
}

/// The window aggregate over one task's keyed state.
pub struct WindowAggregate {
    spec: WindowAggSpec,
    /// The user's calls, then the hidden `COUNT(*)` of shared windows when the query has
    /// none.
    calls: Vec<BoundCall>,
    /// The `COUNT(*)` that says whether a shared window is empty.
    count_star: Option<usize>,
    /// The calls' typed kernels, when every call has one (one phase only).
    typed: Option<TypedCalls>,
    key_types: Vec<LogicalType>,
    hasher: KeyHasher,
    schema: SchemaRef,
    output_types: Vec<LogicalType>,
    identity: PlanIdentity,
    keyed: Keyed,
    accs: AccTable,
    /// The global phase's partial input; `None` for one phase.
    partials: Option<Partials>,
    /// Rows not yet in state, and the watermark at which they are applied next.
    pending: Pending,
    next_trigger: i64,
    clock: WindowClock,
    late_rows_dropped: u64,
}

/// Rows taken but not yet in state (Flink's `RecordsWindowBuffer`): the batches, and each
/// kept row's index in them (concatenated) with its state key `[key group][key][slice]` and
/// grouping hash ([`grouping_hash`]).
struct Pending {
    batches: Vec<ChangelogBatch>,
    /// Rows of `batches` together, kept or not.
    held: usize,
    rows: Vec<u32>,
    data: Vec<u8>,
    offsets: Vec<usize>,
    hashes: Vec<i32>,
    /// The lowest slice a kept row goes to (`i64::MAX` without any).
    min_slice: i64,
}

impl Default for Pending {
    fn default() -> Self {
        Self {
            batches: Vec::new(),
            held: 0,
            rows: Vec::new(),
            data: Vec::new(),
            offsets: vec![0],
            hashes: Vec::new(),
            min_slice: i64::MAX,
        }
    }
}

/// The buffer holds at most about this many rows before it is applied, as Flink's buffer
/// is applied when its managed memory is full.
const BUFFER_ROWS: usize = 1 << 16;

impl std::fmt::Debug for WindowAggregate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowAggregate")
            .field("window", &self.spec.window)
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

/// Each row's slice, by its row time ([`row_times`]) on `clock`'s local time.
pub(super) fn row_slices(
    spec: &WindowAggSpec,
    clock: &WindowClock,
    batch: &RecordBatch,
) -> Result<Vec<i64>> {
    Ok(row_times(&spec.aggregate, spec.time_column, batch)?
        .iter()
        .map(|&t| spec.window.slice_end(clock.local(t)))
        .collect())
}

/// Each row's row time (column `time_column`); a NULL row time fails, as Flink fails the
/// job.
pub(super) fn row_times<'a>(
    aggregate: &GroupAggSpec,
    time_column: usize,
    batch: &'a RecordBatch,
) -> Result<&'a [i64]> {
    let times = batch
        .column(time_column)
        .as_primitive::<TimestampMillisecondType>();
    if let Some(row) = (0..times.len()).find(|&r| times.is_null(r)) {
        return Err(Error::InvalidShape(format!(
            "row {row}: the row time ({}) is NULL, which Flink's window aggregation rejects \
             (\"RowTime field should not be null\")",
            aggregate.input_names[time_column]
        )));
    }
    Ok(times.values())
}

/// A window plan's calls bound to its input: the user's, then the hidden `COUNT(*)` of
/// shared windows when the query has none (Flink's `count1$`), which also travels in the
/// two-phase partials.
pub(super) struct WindowCalls {
    pub(super) calls: Vec<BoundCall>,
    /// The `COUNT(*)` that says whether a shared window is empty.
    pub(super) count_star: Option<usize>,
    pub(super) key_types: Vec<LogicalType>,
    /// Grouping columns, then the visible calls' results.
    pub(super) schema: SchemaRef,
    pub(super) output_types: Vec<LogicalType>,
}

impl WindowCalls {
    /// Checks `spec` and binds its calls; `merging` for the two-phase operators.
    pub(super) fn bind(spec: &WindowAggSpec, merging: bool) -> Result<Self> {
        spec.window.validate()?;
        let shared = spec.window.is_shared();
        let merges = shared.then_some("the slices of HOP and CUMULATE windows");
        Self::bind_calls(&spec.aggregate, spec.time_column, merges, shared, merging)
    }

    /// Checks a window aggregate's input and binds its calls. `merges` names what merges
    /// accumulators (shared slices, sessions), which refuses the calls that cannot merge;
    /// `count_star` adds the hidden `COUNT(*)` that tells empty windows.
    pub(super) fn bind_calls(
        aggregate: &GroupAggSpec,
        time_column: usize,
        merges: Option<&str>,
        count_star: bool,
        merging: bool,
    ) -> Result<Self> {
        if aggregate.input_retracts {
            return Err(Error::Plan(
                "window aggregation over a retracting input is not supported".into(),
            ));
        }
        if aggregate.mini_batch_rows.is_some() || aggregate.state_ttl.is_some() {
            return Err(Error::Plan(
                "window aggregation takes neither mini-batch nor state TTL".into(),
            ));
        }
        match aggregate.input_types.get(time_column) {
            Some(LogicalType::Timestamp(3) | LogicalType::TimestampLtz(3)) => {}
            other => {
                return Err(Error::Plan(format!(
                    "the time column {} must be TIMESTAMP(3) or TIMESTAMP_LTZ(3), not {}",
                    time_column,
                    other.map_or("missing".to_string(), ToString::to_string)
                )));
            }
        }
        let Bound {
            mut calls,
            key_types,
            schema,
            output_types,
            ..
        } = bind(aggregate)?;
        if let Some(what) = merges
            && let Some(call) = calls.iter().find(|c| {
                matches!(
                    c.function,
                    AggFunction::FirstValue
                        | AggFunction::LastValue
                        | AggFunction::ListAgg
                        | AggFunction::ArrayAgg
                        | AggFunction::Percentile
                        | AggFunction::JsonArrayAggAbsentOnNull
                        | AggFunction::JsonArrayAggNullOnNull
                )
            })
        {
            return Err(Error::Plan(format!(
                "{} cannot merge {what}",
                call.function.sql_name()
            )));
        }
        let count_star = if count_star {
            Some(
                match calls.iter().position(|c| {
                    c.function == AggFunction::CountStar && !c.distinct && c.filter.is_none()
                }) {
                    Some(i) => i,
                    None => {
                        let hidden = AggCall::new(AggFunction::CountStar, None, "$count1");
                        calls.push(BoundCall::bind(&hidden, &aggregate.input_types, false)?);
                        calls.len() - 1
                    }
                },
            )
        } else {
            None
        };
        for call in &mut calls {
            call.merging = merging;
        }
        Ok(Self {
            calls,
            count_star,
            key_types,
            schema,
            output_types,
        })
    }
}

/// `schema` and `output_types` (grouping columns and results) with the window `properties`
/// appended, over a time column of `time_type`.
pub(super) fn with_properties(
    schema: &SchemaRef,
    output_types: &mut Vec<LogicalType>,
    properties: &[(String, WindowProperty)],
    time_type: &LogicalType,
) -> SchemaRef {
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    for (name, property) in properties {
        let ty = match property {
            WindowProperty::Start | WindowProperty::End => LogicalType::Timestamp(3),
            WindowProperty::Time => time_type.clone(),
            WindowProperty::Proctime => LogicalType::TimestampLtz(3),
        };
        let nullable = *property == WindowProperty::Proctime;
        fields.push(Field::new(name, ty.to_arrow(), nullable));
        output_types.push(ty);
    }
    Arc::new(Schema::new(fields))
}

/// The partial rows the global phase reads: grouping columns, each call's partial fields
/// ([`PartialLayout`]), then the slice end (`$slice_end`, BIGINT).
struct Partials {
    layout: PartialLayout,
    types: Vec<LogicalType>,
}

impl Partials {
    fn new(spec: &WindowAggSpec, calls: &[BoundCall], key_types: &[LogicalType]) -> Result<Self> {
        let names: Vec<&str> = spec
            .aggregate
            .calls
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        let layout = PartialLayout::new(calls, &names)?;
        let mut types = key_types.to_vec();
        types.extend(layout.fields.iter().flatten().cloned());
        types.push(LogicalType::BigInt);
        Ok(Self { layout, types })
    }

    /// A batch must be partial rows of this layout, all `+I`.
    fn check(&self, input: &ChangelogBatch) -> Result<()> {
        check_columns(
            "global window aggregate partials",
            &self.types,
            input.batch(),
        )?;
        if !input.is_insert_only()
            && let Some(row) = (0..input.num_rows()).find(|&r| !input.kind(r).is_accumulate())
        {
            return Err(Error::InvalidShape(format!(
                "partial row {row} is {}; partials are inserts",
                input.kind(row)
            )));
        }
        Ok(())
    }
}

pub(crate) fn namespace(end: i64) -> [u8; NAMESPACE_BYTES] {
    ((end as u64) ^ (1 << 63)).to_be_bytes()
}

pub(crate) fn end_of(namespace: &[u8]) -> Result<i64> {
    let bytes: [u8; NAMESPACE_BYTES] = namespace.try_into().map_err(|_| {
        Error::State(format!(
            "a window namespace is {NAMESPACE_BYTES} bytes, not {}",
            namespace.len()
        ))
    })?;
    Ok((u64::from_be_bytes(bytes) ^ (1 << 63)) as i64)
}

pub(super) fn key_group_of(state_key: &[u8]) -> u16 {
    u16::from_be_bytes([state_key[0], state_key[1]])
}

/// `[key group][key row][slice end]`.
fn slice_key(key_group: u16, key_row: &[u8], end: i64) -> Vec<u8> {
    let mut key = Vec::with_capacity(KEY_GROUP_BYTES + key_row.len() + NAMESPACE_BYTES);
    key.extend_from_slice(&key_group.to_be_bytes());
    key.extend_from_slice(key_row);
    key.extend_from_slice(&namespace(end));
    key
}

/// The hash a buffered row is grouped by: its key's (`BinaryRowData.hashCode`, computed for
/// its key group anyway) mixed with its slice, instead of hashing the whole state key per
/// row; each group gets the table's hash once ([`Groups::of_rehashed`]).
fn grouping_hash(key_hash: i32, slice_end: i64) -> i32 {
    let slice = (slice_end as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (key_hash as u32 ^ (slice >> 32) as u32) as i32
}

/// [`slice_key`] written into `buf` (its previous bytes dropped), without allocating once
/// `buf` is large enough.
fn slice_key_into<'b>(buf: &'b mut Vec<u8>, key_group: u16, key_row: &[u8], end: i64) -> &'b [u8] {
    buf.clear();
    buf.extend_from_slice(&key_group.to_be_bytes());
    buf.extend_from_slice(key_row);
    buf.extend_from_slice(&namespace(end));
    buf
}

/// State keys as the groups of a table read or write, one group each.
pub(super) fn groups_of(keys: &[&[u8]]) -> Groups {
    let mut data = Vec::with_capacity(keys.iter().map(|k| k.len()).sum());
    let mut offsets = Vec::with_capacity(keys.len() + 1);
    offsets.push(0);
    let mut hashes = Vec::with_capacity(keys.len());
    for key in keys {
        data.extend_from_slice(key);
        offsets.push(data.len());
        hashes.push(hash_of(key));
    }
    Groups::new(
        BinaryRows::from_parts(data, offsets),
        hashes,
        (0..keys.len() as u32).collect(),
        keys.iter().map(|k| k.len()).sum(),
    )
}

impl WindowAggregate {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &WindowAggSpec) -> PlanIdentity {
        PlanIdentity::new(
            OperatorKind::WindowAggregate,
            STATE_VERSION,
            &spec.semantics(),
        )
    }

    /// The global phase's identity, as its checkpoints record it.
    pub fn global_identity_of(spec: &WindowAggSpec) -> PlanIdentity {
        PlanIdentity::new(
            OperatorKind::GlobalWindowAggregate,
            STATE_VERSION,
            &spec.semantics(),
        )
    }

    /// An operator for `spec` over the keyed driver `keyed` (fresh or restored).
    pub fn open(spec: WindowAggSpec, keyed: Keyed) -> Result<Self> {
        Self::open_phase(spec, keyed, false)
    }

    /// The global phase of a two-phase plan: its input is the local phase's partial rows
    /// (`super::window_local`), each merged into its slice's accumulators.
    pub fn open_global(spec: WindowAggSpec, keyed: Keyed) -> Result<Self> {
        Self::open_phase(spec, keyed, true)
    }

    fn open_phase(spec: WindowAggSpec, mut keyed: Keyed, global: bool) -> Result<Self> {
        check_max_parallelism(&spec.aggregate, &keyed)?;
        if spec.legacy && (global || matches!(spec.window, SliceAssigner::Cumulate { .. })) {
            return Err(Error::Plan(format!(
                "a legacy group window is one phase of TUMBLE or HOP, not {:?}{}",
                spec.window,
                if global { " in a global phase" } else { "" }
            )));
        }
        let WindowCalls {
            calls,
            count_star,
            key_types,
            schema,
            mut output_types,
        } = WindowCalls::bind(&spec, global)?;
        let schema = with_properties(
            &schema,
            &mut output_types,
            &spec.properties,
            &spec.aggregate.input_types[spec.time_column],
        );
        let partials = global
            .then(|| Partials::new(&spec, &calls, &key_types))
            .transpose()?;
        let clock = spec.clock()?;
        let codec = AccCodec::new(calls.iter().map(BoundCall::create_local).collect());
        let accs = RowTable::open(keyed.store_mut(), ACC_TABLE, codec, None)?;
        Ok(Self {
            hasher: KeyHasher::new(key_types.clone()),
            key_types,
            typed: (!global).then(|| TypedCalls::of(&calls)).flatten(),
            calls,
            count_star,
            schema,
            output_types,
            identity: if global {
                Self::global_identity_of(&spec)
            } else {
                Self::identity_of(&spec)
            },
            partials,
            spec,
            keyed,
            accs,
            pending: Pending::default(),
            next_trigger: i64::MIN,
            clock,
            late_rows_dropped: 0,
        })
    }

    /// An operator (the global phase when `global`) owning `key_groups`, its state (and
    /// watermark) restored from `checkpoints` into a store of `config`.
    pub fn restore(
        spec: WindowAggSpec,
        global: bool,
        config: &StateConfig,
        key_groups: RangeInclusive<u16>,
        checkpoints: &[Checkpoint],
    ) -> Result<Self> {
        let identity = if global {
            Self::global_identity_of(&spec)
        } else {
            Self::identity_of(&spec)
        };
        let keyed = Keyed::restore(
            config,
            "window-agg",
            &identity,
            spec.aggregate.max_parallelism,
            key_groups,
            checkpoints,
            if spec.legacy {
                crate::ops::keyed::RestoredWatermark::Unset
            } else {
                crate::ops::keyed::RestoredWatermark::Lowest
            },
        )?;
        Self::open_phase(spec, keyed, global)
    }

    /// The plan.
    pub fn spec(&self) -> &WindowAggSpec {
        &self.spec
    }

    /// The keyed driver (state, key groups, watermark).
    pub fn keyed(&self) -> &Keyed {
        &self.keyed
    }

    /// Rows dropped as late since the operator opened (Flink's `numLateRecordsDropped`).
    pub fn late_rows_dropped(&self) -> u64 {
        self.late_rows_dropped
    }

    /// Takes a batch of insert-only rows: drops the late ones, registers the timers of late
    /// rows that still count, and buffers the rest until the next flush.
    pub fn accumulate(&mut self, input: &ChangelogBatch) -> Result<()> {
        let aggregate = &self.spec.aggregate;
        match &self.partials {
            None => check_input(aggregate, input)?,
            Some(partials) => partials.check(input)?,
        }
        let n = input.num_rows();
        if n == 0 {
            return Ok(());
        }
        let batch = input.batch();
        // A row's slice: its row time's, or the slice end a partial row carries.
        let slices = match &self.partials {
            None => row_slices(&self.spec, &self.clock, batch)?,
            Some(_) => {
                let ends = batch
                    .column(batch.num_columns() - 1)
                    .as_primitive::<Int64Type>();
                if let Some(row) = (0..n).find(|&r| ends.is_null(r)) {
                    return Err(Error::InvalidShape(format!(
                        "partial row {row} has a NULL slice end"
                    )));
                }
                ends.values().to_vec()
            }
        };
        let key_columns: Vec<ArrayRef> = match &self.partials {
            None => aggregate
                .grouping
                .iter()
                .map(|&g| batch.column(g).clone())
                .collect(),
            Some(_) => batch.columns()[..aggregate.grouping.len()].to_vec(),
        };
        let (keys, key_hashes) = self.keyed.state_keys(&self.hasher, &key_columns, n)?;
        let window = self.spec.window;
        let watermark = self.keyed.watermark();
        let clock = self.clock;
        let is_fired = |end: i64| clock.is_fired(end, watermark);
        let pending = &mut self.pending;
        pending
            .data
            .reserve(keys.data().len() + n * NAMESPACE_BYTES);
        pending.offsets.reserve(n);
        pending.hashes.reserve(n);
        pending.rows.reserve(n);
        let mut late_timers: Vec<(u16, i64, Vec<u8>)> = Vec::new();
        for (row, &slice) in slices.iter().enumerate() {
            let target = if is_fired(slice) {
                if is_fired(window.last_window_end(slice)) {
                    self.late_rows_dropped += 1;
                    continue;
                }
                let mut unfired = slice;
                while is_fired(unfired) {
                    unfired = unfired.wrapping_add(window.slice_interval());
                }
                let state_key = keys.prefixed_row(row);
                late_timers.push((key_group_of(state_key), unfired, keys.row(row).to_vec()));
                window.late_slice_target(slice)
            } else {
                slice
            };
            pending.data.extend_from_slice(keys.prefixed_row(row));
            pending.data.extend_from_slice(&namespace(target));
            pending.offsets.push(pending.data.len());
            pending.hashes.push(grouping_hash(key_hashes[row], target));
            pending.rows.push((pending.held + row) as u32);
            pending.min_slice = pending.min_slice.min(target);
        }
        pending.batches.push(input.clone());
        pending.held += n;
        // Late rows' first unfired windows are registered at once, as `processElement` does.
        self.keyed
            .register_event_timers(late_timers.iter().map(|(kg, end, key)| {
                (
                    *kg,
                    clock.window_timer(*end),
                    key.as_slice(),
                    namespace(*end),
                )
            }))?;
        if self.pending.held >= BUFFER_ROWS {
            self.apply_pending(self.keyed.watermark())?;
        }
        Ok(())
    }

    /// Applies the buffered rows to their slices' state (`RecordsWindowBuffer.flush` with
    /// `AggCombiner`): a slice's timer is registered unless its window had fired at
    /// `timer_watermark`, the timer service's watermark.
    fn apply_pending(&mut self, timer_watermark: Option<i64>) -> Result<()> {
        let pending = std::mem::take(&mut self.pending);
        if pending.rows.is_empty() {
            return Ok(());
        }
        let input = concat(&pending.batches)?;
        let batch = input.batch();
        let aggregate = &self.spec.aggregate;
        let (groups, row_group) = Groups::of_rehashed(
            BinaryRows::from_parts(pending.data, pending.offsets),
            pending.hashes,
        );
        let kept = pending.rows;
        let order = access_order(self.keyed.store(), &[self.accs.id()], &groups);
        let (mut accs, persisted) = self.accs.read(self.keyed.store_mut(), &groups, &order)?;

        let (starts, grouped) = rows_by_slot(&row_group, groups.len());
        let rows_of = |group: usize| {
            grouped[starts[group] as usize..starts[group + 1] as usize]
                .iter()
                .map(|&i| kept[i as usize] as usize)
        };
        match &self.partials {
            // `AggCombiner` with typed kernels (integer COUNT/SUM/SUM0): column by column.
            None if let Some(typed) = &self.typed => {
                typed.accumulate(
                    batch,
                    groups.len(),
                    |group, rows| rows.extend(rows_of(group).map(|r| r as u32)),
                    &mut accs,
                )?;
            }
            // `AggCombiner`: rows accumulated into the stored (or a fresh) accumulator.
            None => {
                let types = &aggregate.input_types;
                let inputs = CallInputs::new(&self.calls, batch, types)?;
                for group in 0..groups.len() {
                    let (row_accs, _) = accs.get_or_create(group);
                    for row in rows_of(group) {
                        inputs.accumulate(&self.calls, row_accs, row)?;
                    }
                }
            }
            // `GlobalAggCombiner`: a slice's partials merged, in order, into a fresh
            // accumulator, which is then merged into the stored (or a fresh) one.
            Some(partials) => {
                let readers = partials.layout.readers(batch, aggregate.grouping.len())?;
                let fresh = fresh_accs(&self.accs);
                for group in 0..groups.len() {
                    let mut combined = fresh.clone();
                    for row in rows_of(group) {
                        for (c, call) in self.calls.iter().enumerate() {
                            let partial = readers.acc(c, &fresh[c], row)?;
                            call.merge(&mut combined[c], &partial, None)?;
                        }
                    }
                    let (row_accs, _) = accs.get_or_create(group);
                    for ((call, acc), other) in self.calls.iter().zip(row_accs).zip(&combined) {
                        call.merge(acc, other, None)?;
                    }
                }
            }
        }
        self.accs.write(
            self.keyed.store_mut(),
            &mut WriteBatch::new(),
            &groups,
            &order,
            (&mut accs, &persisted),
        )?;

        // A slice's window timer, unless that window has fired. A slice stored before has
        // its timer already, or its window fired when it was stored.
        let mut timers = Vec::new();
        for (group, &had) in persisted.iter().enumerate() {
            let key = groups.key(group);
            let (front, ns) = key.split_at(key.len() - NAMESPACE_BYTES);
            let end = end_of(ns)?;
            if !had && !self.clock.is_fired(end, timer_watermark) {
                timers.push((key_group_of(front), end, front[KEY_GROUP_BYTES..].to_vec()));
            }
        }
        let clock = self.clock;
        self.keyed
            .register_event_timers(timers.iter().map(|(kg, end, key)| {
                (
                    *kg,
                    clock.window_timer(*end),
                    key.as_slice(),
                    namespace(*end),
                )
            }))
    }

    /// Moves event time to `watermark`: first applies the buffered rows when the watermark
    /// reaches Flink's next trigger and a buffered slice has fired
    /// (`AbstractSliceSyncStateWindowAggProcessor.advanceProgress`), then fires every window
    /// due, emitting their results.
    pub fn fire(&mut self, watermark: i64) -> Result<ChangelogBatch> {
        let before = self.keyed.watermark();
        if !self.keyed.advance_watermark(watermark) {
            return self.empty();
        }
        if watermark >= self.next_trigger {
            if !self.pending.rows.is_empty()
                && self.clock.is_fired(self.pending.min_slice, Some(watermark))
            {
                self.apply_pending(before)?;
            }
            let window = self.spec.window;
            self.next_trigger =
                self.clock
                    .next_trigger(watermark, window.slice_interval(), window.offset());
        }
        self.fire_timers(watermark)
    }

    /// Fires every window whose timer is at or before `watermark` (already the keyed
    /// driver's), in timestamp order, with the timers registered while firing.
    fn fire_timers(&mut self, watermark: i64) -> Result<ChangelogBatch> {
        // In firing order (timestamp, key group, key and namespace), each once.
        let mut due = self.keyed.fire_event_timers()?;
        if due.is_empty() {
            return self.empty();
        }
        let window = self.spec.window;
        // Timers registered while firing that are due too: they fire in order among `due`,
        // their slices read when they do.
        let mut registered: BTreeSet<(i64, u16, Vec<u8>)> = BTreeSet::new();
        let mut cache = AccCache::default();
        // One read of every slice the due windows merge.
        let mut wanted = Vec::new();
        for t in &due {
            self.slices_of(t.key_group, &t.key_and_namespace, &mut wanted)?;
        }
        cache.load(&self.accs, self.keyed.store_mut(), wanted)?;

        let fresh = fresh_accs(&self.accs);
        let mut fired = Fired::default();
        let mut later_timers = Vec::new();
        let mut slices = Vec::new();
        let mut key = Vec::new();
        let mut next_due = 0;
        loop {
            let take_due = match (due.get(next_due), registered.first()) {
                (Some(t), Some((ts, kg, key_ns))) => {
                    (t.timestamp, t.key_group, t.key_and_namespace.as_slice())
                        < (*ts, *kg, key_ns.as_slice())
                }
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let (kg, key_ns) = if take_due {
                let t = &mut due[next_due];
                next_due += 1;
                (t.key_group, std::mem::take(&mut t.key_and_namespace))
            } else {
                let (_, kg, key_ns) = registered.pop_first().expect("a registered timer");
                let mut wanted = Vec::new();
                self.slices_of(kg, &key_ns, &mut wanted)?;
                cache.load(&self.accs, self.keyed.store_mut(), wanted)?;
                (kg, key_ns)
            };
            let (key_row, ns) = key_ns.split_at(key_ns.len() - NAMESPACE_BYTES);
            let end = end_of(ns)?;

            let target = window.merge_target(end);
            let mut acc = match (window, target) {
                // The slice is the window, and expires with it: its accumulators move out.
                (SliceAssigner::Tumble { .. }, _) => cache
                    .take(slice_key_into(&mut key, kg, key_row, end))
                    .unwrap_or_else(|| fresh.clone()),
                (_, Some(first)) => cache
                    .get(slice_key_into(&mut key, kg, key_row, first))
                    .map_or_else(|| fresh.clone(), <[Acc]>::to_vec),
                (_, None) => fresh.clone(),
            };
            if window.is_shared() {
                window.slices_to_merge(end, &mut slices);
                // A legacy HOP merges its panes from the window's start
                // (`PanedWindowProcessFunction`), the TVF's slices from its end.
                if self.spec.legacy {
                    slices.reverse();
                }
                for &slice in &slices {
                    if let Some(slice_accs) =
                        cache.get(slice_key_into(&mut key, kg, key_row, slice))
                    {
                        for ((call, acc), other) in self.calls.iter().zip(&mut acc).zip(slice_accs)
                        {
                            call.merge(acc, other, None)?;
                        }
                    }
                }
            }
            if let Some(first) = target {
                cache.put(
                    slice_key_into(&mut key, kg, key_row, first),
                    Some(acc.clone()),
                );
            }
            let empty = self
                .count_star
                .is_some_and(|c| matches!(acc[c], Acc::Count(0)));
            if !empty {
                let bounds = TimeWindow {
                    start: window.window_start(end),
                    end,
                };
                fired.push(
                    key_row,
                    bounds,
                    &self.calls[..self.spec.aggregate.calls.len()],
                    &mut acc,
                )?;
            }
            if let Some(next) = window.next_window(end, empty) {
                let timestamp = self.clock.window_timer(next);
                let mut next_key = key_row.to_vec();
                next_key.extend_from_slice(&namespace(next));
                if timestamp <= watermark {
                    // A timer already due for that window fires once.
                    let unfired = &due[next_due..];
                    let in_due = unfired
                        .binary_search_by(|t| {
                            (t.timestamp, t.key_group, t.key_and_namespace.as_slice()).cmp(&(
                                timestamp,
                                kg,
                                next_key.as_slice(),
                            ))
                        })
                        .is_ok();
                    if !in_due {
                        registered.insert((timestamp, kg, next_key));
                    }
                } else {
                    later_timers.push((kg, timestamp, next_key));
                }
            }
            window.expired_slices(end, &mut slices);
            for &slice in &slices {
                cache.put(slice_key_into(&mut key, kg, key_row, slice), None);
            }
        }
        cache.write(&self.accs, self.keyed.store_mut())?;
        self.keyed
            .register_event_timers(later_timers.iter().map(|(kg, ts, key_ns)| {
                let (key, ns) = key_ns.split_at(key_ns.len() - NAMESPACE_BYTES);
                (
                    *kg,
                    *ts,
                    key,
                    <[u8; NAMESPACE_BYTES]>::try_from(ns).expect("8 bytes"),
                )
            }))?;
        fired.finish(
            &self.schema,
            &self.key_types,
            &self.calls[..self.spec.aggregate.calls.len()],
            &self.spec.properties,
            &self.spec.aggregate.input_types[self.spec.time_column],
            &self.clock,
        )
    }

    /// The state keys of the slices the window `key_ns` (a timer's key and namespace) of
    /// key group `kg` reads when it fires.
    fn slices_of(&self, kg: u16, key_ns: &[u8], out: &mut Vec<Vec<u8>>) -> Result<()> {
        let (key_row, ns) = key_ns.split_at(key_ns.len() - NAMESPACE_BYTES);
        let end = end_of(ns)?;
        let window = self.spec.window;
        let mut slices = Vec::new();
        window.slices_to_merge(end, &mut slices);
        slices.extend(window.merge_target(end));
        out.extend(slices.into_iter().map(|s| slice_key(kg, key_row, s)));
        Ok(())
    }

    /// Applies the buffered rows (before a checkpoint barrier, and at the end of input).
    pub fn flush(&mut self) -> Result<()> {
        self.apply_pending(self.keyed.watermark())
    }

    /// Publishes a checkpoint of the state, timers and watermark at `target`; buffered rows
    /// must have been applied ([`WindowAggregate::flush`]).
    pub fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        if self.pending.held > 0 {
            return Err(Error::State(format!(
                "{} buffered rows are not in state yet: flush before a checkpoint",
                self.pending.held
            )));
        }
        self.keyed.checkpoint(target, &self.identity)
    }

    fn empty(&self) -> Result<ChangelogBatch> {
        Ok(ChangelogBatch::insert_only(RecordBatch::new_empty(
            self.schema.clone(),
        )))
    }
}

/// A fresh accumulator row of `table`.
pub(super) fn fresh_accs(table: &AccTable) -> Vec<Acc> {
    use crate::state::rows::RowCodec;
    table.codec().fresh().to_vec()
}

/// The accumulator rows (slices, sessions) a batch or a watermark reads and changes: loaded
/// with batched reads, changed in memory (in firing order, so a CUMULATE key's windows see
/// each other's merges), and written back with one write.
#[derive(Default)]
pub(super) struct AccCache {
    slots: HashMap<Vec<u8>, Slot>,
}

/// One state key's accumulators in an [`AccCache`].
struct Slot {
    /// `None`: absent, or dropped.
    row: Option<Vec<Acc>>,
    /// Whether the store held the slice when it was loaded.
    stored: bool,
    changed: bool,
}

impl AccCache {
    pub(super) fn load(
        &mut self,
        table: &AccTable,
        store: &mut dyn StateBackend,
        mut keys: Vec<Vec<u8>>,
    ) -> Result<()> {
        keys.retain(|k| !self.slots.contains_key(k));
        keys.sort_unstable();
        keys.dedup();
        if keys.is_empty() {
            return Ok(());
        }
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let groups = groups_of(&refs);
        let order: Vec<u32> = (0..keys.len() as u32).collect();
        let (rows, stored) = table.read(store, &groups, &order)?;
        for (group, key) in keys.into_iter().enumerate() {
            let slot = Slot {
                row: rows.get(group).map(<[Acc]>::to_vec),
                stored: stored[group],
                changed: false,
            };
            self.slots.insert(key, slot);
        }
        Ok(())
    }

    pub(super) fn get(&self, key: &[u8]) -> Option<&[Acc]> {
        self.slots.get(key).and_then(|slot| slot.row.as_deref())
    }

    /// Sets `key`'s accumulators (`None`: drops the row).
    pub(super) fn put(&mut self, key: &[u8], row: Option<Vec<Acc>>) {
        let slot = match self.slots.get_mut(key) {
            Some(slot) => slot,
            None => self.slots.entry(key.to_vec()).or_insert(Slot {
                row: None,
                stored: false,
                changed: false,
            }),
        };
        slot.row = row;
        slot.changed = true;
    }

    /// Moves `key`'s accumulators out of a loaded row, which is dropped.
    pub(super) fn take(&mut self, key: &[u8]) -> Option<Vec<Acc>> {
        let slot = self.slots.get_mut(key)?;
        slot.changed = true;
        slot.row.take()
    }

    pub(super) fn write(self, table: &AccTable, store: &mut dyn StateBackend) -> Result<()> {
        let mut changed: Vec<(Vec<u8>, Slot)> = self
            .slots
            .into_iter()
            .filter(|(_, slot)| slot.changed)
            .collect();
        if changed.is_empty() {
            return Ok(());
        }
        changed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let refs: Vec<&[u8]> = changed.iter().map(|(k, _)| k.as_slice()).collect();
        let groups = groups_of(&refs);
        let mut rows = GroupRows::fresh(changed.len(), &fresh_accs(table));
        let mut stored = Vec::with_capacity(changed.len());
        for (group, (_, slot)) in changed.iter().enumerate() {
            if let Some(row) = &slot.row {
                rows.get_or_create(group).0.clone_from_slice(row);
            }
            stored.push(slot.stored);
        }
        let order: Vec<u32> = (0..changed.len() as u32).collect();
        table.write(
            store,
            &mut WriteBatch::new(),
            &groups,
            &order,
            (&mut rows, &stored),
        )
    }
}

/// The windows fired by one watermark, as output columns are built from them.
#[derive(Default)]
pub(super) struct Fired {
    key_data: Vec<u8>,
    key_offsets: Vec<usize>,
    starts: Vec<i64>,
    ends: Vec<i64>,
    /// Per visible call, its results.
    values: Vec<Vec<Value>>,
}

impl Fired {
    pub(super) fn push(
        &mut self,
        key_row: &[u8],
        window: TimeWindow,
        calls: &[BoundCall],
        acc: &mut [Acc],
    ) -> Result<()> {
        if self.key_offsets.is_empty() {
            self.key_offsets.push(0);
            self.values = vec![Vec::new(); calls.len()];
        }
        for ((call, acc), out) in calls.iter().zip(acc).zip(&mut self.values) {
            out.push(call.value(acc, None)?);
        }
        self.key_data.extend_from_slice(key_row);
        self.key_offsets.push(self.key_data.len());
        self.starts.push(window.start);
        self.ends.push(window.end);
        Ok(())
    }

    /// The output rows: grouping columns (`key_types`), the results of `calls`, then the
    /// window `properties` over a time column of `time_type`.
    pub(super) fn finish(
        self,
        schema: &SchemaRef,
        key_types: &[LogicalType],
        calls: &[BoundCall],
        properties: &[(String, WindowProperty)],
        time_type: &LogicalType,
        clock: &WindowClock,
    ) -> Result<ChangelogBatch> {
        if self.ends.is_empty() {
            return Ok(ChangelogBatch::insert_only(RecordBatch::new_empty(
                schema.clone(),
            )));
        }
        let n = self.ends.len();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
        if !key_types.is_empty() {
            let keys =
                RowReader::new(key_types.to_vec()).read(&self.key_data, &self.key_offsets)?;
            columns.extend(keys.batch().columns().iter().cloned());
        }
        for (values, call) in self.values.iter().zip(calls) {
            columns.push(build_array(&call.result.to_arrow(), values.iter())?);
        }
        for (_, property) in properties {
            let array = match property {
                WindowProperty::Start => TimestampMillisecondArray::from(self.starts.clone()),
                WindowProperty::End => TimestampMillisecondArray::from(self.ends.clone()),
                WindowProperty::Time => TimestampMillisecondArray::from_iter_values(
                    self.ends.iter().map(|e| clock.instant(e.wrapping_sub(1))),
                ),
                WindowProperty::Proctime => TimestampMillisecondArray::new_null(n),
            };
            let array = match (property, time_type) {
                (WindowProperty::Time, LogicalType::TimestampLtz(_))
                | (WindowProperty::Proctime, _) => array.with_timezone("UTC"),
                _ => array,
            };
            columns.push(Arc::new(array));
        }
        debug_assert!(columns.iter().all(|c| c.len() == n));
        let batch = RecordBatch::try_new(schema.clone(), columns)?;
        Ok(ChangelogBatch::insert_only(batch))
    }
}

impl Operator for WindowAggregate {
    fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    fn input_types(&self, _port: Port) -> &[LogicalType] {
        match &self.partials {
            None => &self.spec.aggregate.input_types,
            Some(partials) => &partials.types,
        }
    }

    fn output_types(&self) -> &[LogicalType] {
        &self.output_types
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, _out: &mut Output) -> Result<()> {
        ops::expect_one_input(self.identity.kind, port)?;
        self.accumulate(input)
    }

    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        out.emit(self.fire(watermark)?);
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.keyed.watermark()
    }

    /// Applies the buffered rows; windows fire on watermarks only.
    fn flush(&mut self, _out: &mut Output) -> Result<()> {
        WindowAggregate::flush(self)
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        WindowAggregate::checkpoint(self, target)
    }

    fn memory_bytes(&self) -> u64 {
        self.keyed.memory_bytes()
    }
}
