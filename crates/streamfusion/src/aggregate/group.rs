//! The streaming GROUP BY operator: Flink's `GroupAggFunction` (immediate) and
//! `MiniBatchGroupAggFunction` (bundles), over keyed state.
//!
//! A batch is processed a bundle at a time, never a state round trip per row:
//! 1. key columns are written once as Flink's key rows (`BinaryRowData`), which are hashed
//!    for the key groups and, behind their key group, are the state keys; rows are assigned
//!    to distinct groups;
//! 2. every group's accumulator is read with one batched read, and so is every sorted-map
//!    entry that retracting MIN/MAX and DISTINCT calls will touch;
//! 3. rows are applied in memory with Flink's exact emission rules;
//! 4. all changed state goes back in one write batch, and the output changelog is built
//!    with one `take` per key column.
//!
//! Emission (`GroupAggFunction.processElement`): a retraction for a group without state is
//! ignored; a group's first row emits `+I`; later changes emit `-U` (with
//! `generate_update_before`) and `+U`, except that an unchanged result emits nothing when
//! state TTL is off; when the record counter reaches zero the group emits `-D` and its
//! state is cleared. Immediate mode emits per input row, in input order. Mini-batch mode
//! applies all of a group's buffered rows first and emits once per group, dropping
//! retractions that lead a group without state (`MiniBatchGroupAggFunction.finishBundle`).

use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, BooleanBufferBuilder, GenericByteArray, Int8Array,
    RecordBatch, UInt32Array,
};
use arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::compute::FilterBuilder;
use arrow::datatypes::ByteArrayType;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use super::acc_codec::AccCodec;
use super::function::{Acc, AggCall, AggFunction, BoundCall, MapCtx};
use super::sorted_map::SortedMaps;
use super::typed_bundle::TypedCalls;
use super::value::{ColumnReader, Value, build_array, order_bytes, results_equal};
use crate::changelog::{ChangelogBatch, RowKind};
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::ops::keyed::{Keyed, MiniBatch};
use crate::ops::{OperatorKind, PlanIdentity, StateConfig};
use crate::state::checkpoint::Checkpoint;
use crate::state::rows::heap::HeapBundle;
use crate::state::rows::{GroupRows, RowTable};
use crate::state::ttl::{Clock, StateTtl, SystemClock, TTL_TABLE_PREFIX};
use crate::state::{StateBackend, TableId, WriteBatch};
use crate::types::LogicalType;

/// What a GROUP BY computes and how it emits: the operator's plan. Its JSON (as
/// [`crate::ops::OperatorPlan`] carries it) spells types in Flink's SQL and the TTL in
/// milliseconds: `{"input_names": ["k", "v"], "input_types": ["BIGINT", "INT"],
/// "grouping": [0], "calls": [{"function": "SUM", "arg": 1, "name": "s"}],
/// "input_retracts": false, "generate_update_before": true, "mini_batch_rows": null,
/// "state_ttl_ms": null, "max_parallelism": 128}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupAggSpec {
    /// Input column names.
    pub input_names: Vec<String>,
    /// Input column types.
    pub input_types: Vec<LogicalType>,
    /// The grouping columns, in output order.
    pub grouping: Vec<usize>,
    /// The aggregate calls, in output order after the grouping columns.
    pub calls: Vec<AggCall>,
    /// Whether the input carries retractions (`-U`/`-D`). The planner then adds a hidden
    /// `COUNT(*)` record counter (unless the query has one) and picks retracting
    /// accumulators.
    pub input_retracts: bool,
    /// Whether updates are emitted as `-U`/`+U` pairs (retract sinks) or `+U` only.
    pub generate_update_before: bool,
    /// Mini-batch: buffer this many input rows before applying them; `None` is immediate.
    pub mini_batch_rows: Option<usize>,
    /// `table.exec.state.ttl`; `None` (or zero) disables it.
    #[serde(rename = "state_ttl_ms", with = "crate::ops::plan::millis")]
    pub state_ttl: Option<Duration>,
    /// The job's max parallelism (number of key groups).
    pub max_parallelism: u32,
}

impl GroupAggSpec {
    /// What of the plan decides how state is written and read: the types, grouping,
    /// calls (without their output names), retraction and whether state TTL is on (a TTL
    /// table stores timestamps). Names, emission and mini-batch settings are left out, so
    /// a plan differing only in them restores the checkpoint.
    pub fn semantics(&self) -> serde_json::Value {
        serde_json::json!({
            "input_types": self.input_types.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "grouping": self.grouping,
            "calls": calls_semantics(&self.calls),
            "input_retracts": self.input_retracts,
            "state_ttl": self.state_ttl.is_some_and(|d| !d.is_zero()),
        })
    }
}

/// What of `calls` decides state: each call without its output name.
pub(crate) fn calls_semantics(calls: &[AggCall]) -> Vec<serde_json::Value> {
    calls
        .iter()
        .map(|c| {
            let mut v = serde_json::to_value(c).expect("an aggregate call serializes");
            if let Some(map) = v.as_object_mut() {
                map.remove("name");
            }
            v
        })
        .collect()
}

/// The GROUP BY operator over one task's keyed state.
pub struct GroupAggregate {
    spec: GroupAggSpec,
    /// The user's calls, then the hidden record counter if one was added.
    calls: Vec<BoundCall>,
    /// The call whose count decides whether a group still exists (`RecordCounter`).
    counter: Option<usize>,
    /// The calls' typed kernels, when they all have one (decision 0021).
    typed: Option<TypedCalls>,
    hasher: KeyHasher,
    schema: SchemaRef,
    result_types: Vec<DataType>,
    output_types: Vec<LogicalType>,
    identity: PlanIdentity,
    keyed: Keyed,
    accs: AccTable,
    maps: Option<SortedMaps>,
    mini_batch: MiniBatch<ChangelogBatch>,
    /// The last bundle's write batch, emptied and kept for the next one.
    writes: WriteBatch,
}

impl std::fmt::Debug for GroupAggregate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupAggregate")
            .field("spec", &self.spec)
            .field("keyed", &self.keyed)
            .field("pending_rows", &self.mini_batch.rows())
            .finish_non_exhaustive()
    }
}

/// The version of the GROUP BY's state layout, stored with its checkpoints.
pub const STATE_VERSION: u32 = 1;

const ACC_TABLE: &str = "group_agg.acc";
/// The largest write batch (key and value bytes) kept between bundles: bigger ones are
/// freed rather than held by an idle operator.
const RETAINED_WRITE_BYTES: usize = 32 << 20;
const MAP_TABLE: &str = "group_agg.sorted_map";

impl GroupAggregate {
    /// An operator for `spec` over `store` (every key group), with TTL (if any) on the
    /// system clock.
    pub fn new(spec: GroupAggSpec, store: Box<dyn StateBackend>) -> Result<Self> {
        Self::with_clock(spec, store, Arc::new(SystemClock))
    }

    /// [`GroupAggregate::new`] with the processing-time clock TTL reads.
    pub fn with_clock(
        spec: GroupAggSpec,
        store: Box<dyn StateBackend>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        let keyed = Keyed::new(store, spec.max_parallelism, clock)?;
        Self::open(spec, keyed)
    }

    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &GroupAggSpec) -> PlanIdentity {
        PlanIdentity::new(
            OperatorKind::GroupAggregate,
            STATE_VERSION,
            &spec.semantics(),
        )
    }

    /// An operator for `spec` over the keyed driver `keyed` (fresh or restored).
    pub fn open(spec: GroupAggSpec, mut keyed: Keyed) -> Result<Self> {
        check_max_parallelism(&spec, &keyed)?;
        let mini_batch = MiniBatch::new(spec.mini_batch_rows)?;
        let Bound {
            calls,
            counter,
            key_types,
            schema,
            result_types,
            output_types,
        } = bind(&spec)?;

        let ttl = state_ttl(&spec, keyed.clock().clone())?;
        let (accs, maps) = open_tables(
            keyed.store_mut(),
            (ACC_TABLE, MAP_TABLE),
            ttl.as_ref(),
            &calls,
        )?;
        Ok(Self {
            hasher: KeyHasher::new(key_types),
            schema,
            result_types,
            output_types,
            typed: TypedCalls::of(&calls),
            calls,
            counter,
            identity: Self::identity_of(&spec),
            spec,
            keyed,
            accs,
            maps,
            mini_batch,
            writes: WriteBatch::new(),
        })
    }

    /// An operator owning `key_groups`, its state restored from `checkpoints` (aligned,
    /// clipped or rebuilt, see [`crate::ops::restore`]) into a store of `config`. Every
    /// checkpoint must have been written for a plan with the same semantics
    /// ([`GroupAggSpec::semantics`]): anything else is
    /// [`Error::IncompatibleCheckpoint`] naming what differs.
    pub fn restore(
        spec: GroupAggSpec,
        config: &StateConfig,
        key_groups: RangeInclusive<u16>,
        checkpoints: &[Checkpoint],
    ) -> Result<Self> {
        let keyed = Keyed::restore(
            config,
            "group-agg",
            &Self::identity_of(&spec),
            spec.max_parallelism,
            key_groups,
            checkpoints,
            crate::ops::keyed::RestoredWatermark::Unset,
        )?;
        Self::open(spec, keyed)
    }

    /// The output schema: grouping columns, then one column per call.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The plan.
    pub fn spec(&self) -> &GroupAggSpec {
        &self.spec
    }

    /// The state store.
    pub fn store(&self) -> &dyn StateBackend {
        self.keyed.store()
    }

    /// The keyed driver (store, key groups, watermark).
    pub fn keyed(&self) -> &Keyed {
        &self.keyed
    }

    pub(super) fn keyed_mut(&mut self) -> &mut Keyed {
        &mut self.keyed
    }

    /// The plan's identity, as checkpoints record it.
    pub fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    /// The output's Flink types: grouping columns, then one per call.
    pub fn output_types(&self) -> &[LogicalType] {
        &self.output_types
    }

    /// Processes a batch. Immediate mode returns its changelog; mini-batch mode buffers it
    /// and returns the bundle's changelog once `mini_batch_rows` rows are buffered (an empty
    /// batch until then).
    pub fn process(&mut self, input: &ChangelogBatch) -> Result<ChangelogBatch> {
        check_input(&self.spec, input)?;
        if !self.mini_batch.is_mini_batch() {
            return self.run(input, true);
        }
        if self.mini_batch.push(input.clone(), input.num_rows()) {
            self.flush()
        } else {
            Ok(self.empty())
        }
    }

    /// Applies buffered mini-batch input now (Flink's bundle trigger, and what
    /// `prepareSnapshotPreBarrier` does before a checkpoint).
    pub fn flush(&mut self) -> Result<ChangelogBatch> {
        if self.mini_batch.is_empty() {
            return Ok(self.empty());
        }
        let bundle = concat(&self.mini_batch.take())?;
        self.run(&bundle, false)
    }

    /// Publishes a checkpoint of the operator's state at `target`. Buffered mini-batch input
    /// must be flushed first, as Flink flushes a bundle before the barrier.
    pub fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        self.mini_batch.expect_empty("mini-batch")?;
        self.keyed.checkpoint(target, &self.identity)
    }

    fn empty(&self) -> ChangelogBatch {
        ChangelogBatch::insert_only(RecordBatch::new_empty(self.schema.clone()))
    }

    /// Applies one bundle: per row (`per_row`, immediate mode) or per group (mini-batch).
    fn run(&mut self, input: &ChangelogBatch, per_row: bool) -> Result<ChangelogBatch> {
        let n = input.num_rows();
        if n == 0 {
            return Ok(self.empty());
        }
        let batch = input.batch();
        let key_columns: Vec<ArrayRef> = self
            .spec
            .grouping
            .iter()
            .map(|&g| batch.column(g).clone())
            .collect();
        let (keys, hashes) = self.keyed.state_keys(&self.hasher, &key_columns, n)?;
        // What a typed bundle emits: the visible calls, the record counter, the rules.
        let plan = (
            self.spec.calls.len(),
            self.counter,
            EmitRules::of(&self.spec),
        );

        // Typed kernels over heap accumulators: rows are grouped through the heap table
        // itself, and its accumulators change in place.
        if !per_row
            && let Some(typed) = &self.typed
            && let Some((heap, reservation)) = self.accs.in_place(self.keyed.store_mut())?
        {
            let (groups, row_slot, found) = heap.group(keys, hashes, |c| typed.fresh(c));
            let (starts, grouped) = rows_by_slot(&row_slot, groups.len());
            let mut accs = HeapBundle::new(&mut *heap, &groups, found);
            let out = typed.apply_bundle(input, &groups, (&starts, &grouped), &mut accs, plan);
            let out = match out {
                Ok(out) => out,
                Err(e) => {
                    accs.rollback();
                    return Err(e);
                }
            };
            accs.commit(reservation)?;
            heap.settle(groups.into_key_data());
            return out.finish(&self.schema, &key_columns, &self.result_types);
        }

        let (groups, row_slot) = Groups::of(keys, hashes);
        let slots = groups.len();
        // Rows grouped by slot with a counting sort: two passes, no per-group vectors.
        let (starts, grouped) = rows_by_slot(&row_slot, slots);

        // One batched read of every group's accumulators, in the order the tables prefer.
        let mut tables = vec![self.accs.id()];
        tables.extend(self.maps.as_ref().map(SortedMaps::table));
        let order = access_order(self.keyed.store(), &tables, &groups);
        let (mut accs, persisted) = self.accs.read(self.keyed.store_mut(), &groups, &order)?;

        if let (false, Some(typed)) = (per_row, &self.typed) {
            let out = typed.apply_bundle(input, &groups, (&starts, &grouped), &mut accs, plan)?;
            self.write_state(&groups, &order, &mut accs, &persisted, &[])?;
            return out.finish(&self.schema, &key_columns, &self.result_types);
        }

        let inputs = CallInputs::new(&self.calls, batch, &self.spec.input_types)?;

        // Sorted maps: one batched read of every entry the bundle will touch.
        let map_calls = map_calls(&self.calls);
        if let Some(maps) = &mut self.maps {
            // At most every row's value for every map call, each behind its group key.
            let entries = n * map_calls.len();
            let per_value = groups.key_bytes() / slots.max(1) + 17;
            preload_maps(
                maps,
                self.keyed.store(),
                &groups,
                &order,
                &accs,
                &map_calls,
                (entries, entries * per_value),
                |slot, c, values| {
                    let call = &self.calls[c];
                    let reader = inputs.arg(c).expect("MIN/MAX/DISTINCT has an argument");
                    let rows = &grouped[starts[slot] as usize..starts[slot + 1] as usize];
                    for &row in rows {
                        let row = row as usize;
                        if !inputs.admits(c, row) {
                            continue;
                        }
                        let x = reader.value(row);
                        if call.distinct {
                            if !x.is_null() || call.distinct_null() {
                                values.push_with(|out| call.distinct_key(&x, out));
                            }
                        } else if !x.is_null() {
                            values.push_with(|out| order_bytes(&x, out));
                        }
                    }
                },
            )?;
        }

        let rows = Rows {
            input,
            inputs: &inputs,
        };
        let mut bundle = Bundle::new(
            &self.calls,
            self.spec.calls.len(),
            self.counter,
            self.keyed.store(),
            self.maps.as_mut(),
            &map_calls,
            &groups,
            EmitRules::of(&self.spec),
            n,
        );
        if per_row {
            for (row, &slot) in row_slot.iter().enumerate() {
                bundle.apply(&rows, slot as usize, &[row as u32], &mut accs)?;
            }
        } else {
            for slot in 0..slots {
                let range = starts[slot] as usize..starts[slot + 1] as usize;
                bundle.apply(&rows, slot, &grouped[range], &mut accs)?;
            }
        }
        let out = bundle.out;
        self.write_state(&groups, &order, &mut accs, &persisted, &map_calls)?;
        out.finish(&self.schema, &key_columns, &self.result_types)
    }

    /// Writes a bundle's state: every group's accumulators and every changed entry of the
    /// sorted maps of `map_calls`.
    fn write_state(
        &mut self,
        groups: &Groups,
        order: &[u32],
        accs: &mut GroupAccs,
        persisted: &[bool],
        map_calls: &[usize],
    ) -> Result<()> {
        let slots = groups.len();
        // One write batch with every changed accumulator and map entry: the previous
        // bundle's, so a steady stream of bundles reuses its buffers. The map entries are
        // sized here (each repeats its group key), the accumulators by their table.
        let mut writes = std::mem::take(&mut self.writes);
        writes.clear();
        let map_entries = self.maps.as_ref().map_or(0, |_| slots * map_calls.len());
        writes.reserve(
            map_entries,
            groups.key_bytes() * map_calls.len() + map_entries * 48,
        );
        write_bundle(
            self.keyed.store_mut(),
            &mut writes,
            &self.accs,
            groups,
            order,
            (accs, persisted),
            self.maps.as_mut().map(|maps| (maps, map_calls)),
        )?;
        if writes.data_len() <= RETAINED_WRITE_BYTES {
            self.writes = writes;
        }
        Ok(())
    }
}

/// A bundle's input rows, as [`Bundle::apply`] reads them.
struct Rows<'a> {
    input: &'a ChangelogBatch,
    inputs: &'a CallInputs<'a>,
}

/// The state of one bundle being applied: its groups' sorted maps and the changelog being
/// emitted. Shared with the two-phase global operator, which merges partials where this
/// operator applies rows.
pub(super) struct Bundle<'a> {
    calls: &'a [BoundCall],
    visible: usize,
    counter: Option<usize>,
    store: &'a dyn StateBackend,
    maps: Option<&'a mut SortedMaps>,
    map_calls: &'a [usize],
    /// Each call's position in `map_calls`, looked up once rather than per row.
    map_of: Vec<Option<usize>>,
    groups: &'a Groups,
    /// Pending extremum searches, per (group, retracting MIN/MAX call).
    dirty: Vec<bool>,
    /// Scratch for sorted-map prefixes and keys; `prefix` is map `prefix_of`'s.
    prefix: Vec<u8>,
    prefix_of: Option<usize>,
    key: Vec<u8>,
    /// Scratch for a group's results before and after its rows.
    prev: Vec<Value>,
    new: Vec<Value>,
    rules: EmitRules,
    pub(super) out: Changes,
}

impl<'a> Bundle<'a> {
    /// A bundle of `groups` over `calls` (the first `visible` are output) emitting with
    /// `rules`; `maps` (with `map_calls`, the calls keeping one) preloaded; room for
    /// `capacity` changes.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        calls: &'a [BoundCall],
        visible: usize,
        counter: Option<usize>,
        store: &'a dyn StateBackend,
        maps: Option<&'a mut SortedMaps>,
        map_calls: &'a [usize],
        groups: &'a Groups,
        rules: EmitRules,
        capacity: usize,
    ) -> Self {
        Self {
            calls,
            visible,
            counter,
            store,
            maps,
            map_calls,
            map_of: (0..calls.len())
                .map(|c| map_calls.iter().position(|&mc| mc == c))
                .collect(),
            groups,
            dirty: vec![false; groups.len() * map_calls.len()],
            prefix: Vec::new(),
            prefix_of: None,
            key: Vec::new(),
            prev: Vec::with_capacity(visible),
            new: Vec::with_capacity(visible),
            rules,
            out: Changes::new(capacity, visible),
        }
    }

    /// Applies `rows` (all of group `slot`) to its accumulators and emits.
    fn apply(
        &mut self,
        input: &Rows<'_>,
        slot: usize,
        rows: &[u32],
        accs: &mut GroupAccs,
    ) -> Result<()> {
        let mut rows = rows;
        let first = accs.get(slot).is_none();
        if first {
            // No state: leading retractions are ignored.
            match rows
                .iter()
                .position(|&r| input.input.kind(r as usize).is_accumulate())
            {
                Some(start) => rows = &rows[start..],
                None => return Ok(()),
            }
        }
        let (values, _) = accs.get_or_create(slot);
        let mut prev = std::mem::take(&mut self.prev);
        prev.clear();
        if !first {
            self.results(slot, values, &mut prev)?;
        }
        for &row in rows {
            let row = row as usize;
            let negate = !input.input.kind(row).is_accumulate();
            for (c, (call, value)) in self.calls.iter().zip(values.iter_mut()).enumerate() {
                if let Some((x, y)) = input.inputs.read(c, row) {
                    let weight = input.inputs.weight(c, row);
                    self.with_map(slot, c, |ctx| {
                        call.update_weighted(value, &x, &y, negate, weight, ctx)
                    })?;
                }
            }
        }
        self.emit(slot, first, prev, accs)
    }

    /// Merges `buffer` (group `slot`'s partials, merged) into its accumulators and emits
    /// (`MiniBatchGlobalGroupAggFunction.finishBundle`).
    pub(super) fn merge(
        &mut self,
        slot: usize,
        buffer: &[Acc],
        accs: &mut GroupAccs,
    ) -> Result<()> {
        let (values, had_state) = accs.get_or_create(slot);
        let first = !had_state;
        let mut prev = std::mem::take(&mut self.prev);
        prev.clear();
        if !first {
            self.results(slot, values, &mut prev)?;
        }
        for (c, ((call, value), partial)) in self
            .calls
            .iter()
            .zip(values.iter_mut())
            .zip(buffer)
            .enumerate()
        {
            self.with_map(slot, c, |ctx| call.merge(value, partial, ctx))?;
        }
        self.emit(slot, first, prev, accs)
    }

    /// Emits group `slot`'s change from `prev` (its results before, empty when `first`)
    /// and clears its state when its record count reached zero.
    fn emit(
        &mut self,
        slot: usize,
        first: bool,
        mut prev: Vec<Value>,
        accs: &mut GroupAccs,
    ) -> Result<()> {
        let (values, _) = accs.get_or_create(slot);
        let alive = is_alive(self.counter, values);
        let mut new = std::mem::take(&mut self.new);
        new.clear();
        if alive {
            self.results(slot, values, &mut new)?;
        }
        self.out.emit(
            self.rules,
            self.groups.first_rows()[slot],
            first,
            &mut prev,
            alive.then_some(&mut new),
        );
        (self.prev, self.new) = (prev, new);
        if !alive {
            accs.remove(slot);
            if let Some(maps) = self.maps.as_deref_mut() {
                for m in 0..self.map_calls.len() {
                    let i = slot * self.map_calls.len() + m;
                    maps.clear(i);
                    self.dirty[i] = false;
                }
            }
        }
        Ok(())
    }

    /// Runs `f` with call `c`'s sorted-map context for group `slot` (`None` for calls
    /// without one).
    fn with_map<T>(
        &mut self,
        slot: usize,
        c: usize,
        f: impl FnOnce(Option<&mut MapCtx<'_>>) -> Result<T>,
    ) -> Result<T> {
        let Some(m) = self.map_of[c] else {
            return f(None);
        };
        let maps = self
            .maps
            .as_deref_mut()
            .expect("sorted-map calls come with their maps");
        let i = slot * self.map_calls.len() + m;
        if self.prefix_of != Some(i) {
            self.prefix.clear();
            self.prefix.extend_from_slice(self.groups.key(slot));
            self.prefix.push(c as u8);
            self.prefix_of = Some(i);
        }
        let mut ctx = MapCtx {
            maps,
            map: i,
            store: self.store,
            prefix: &self.prefix,
            key: &mut self.key,
            dirty: &mut self.dirty[i],
        };
        f(Some(&mut ctx))
    }

    /// `getValue` of the visible calls, appended to `out`.
    fn results(&mut self, slot: usize, values: &mut [Acc], out: &mut Vec<Value>) -> Result<()> {
        let calls = self.calls;
        for (c, (call, value)) in calls.iter().zip(values.iter_mut()).enumerate() {
            if c == self.visible {
                break;
            }
            out.push(self.with_map(slot, c, |ctx| call.value(value, ctx))?);
        }
        Ok(())
    }
}

/// The calls that keep a sorted map (retracting MIN/MAX, DISTINCT), by index.
pub(super) fn map_calls(calls: &[BoundCall]) -> Vec<usize> {
    (0..calls.len())
        .filter(|&c| calls[c].uses_sorted_map())
        .collect()
}

/// The order bytes of the values a bundle touches in one (group, call) map, in any order
/// and with repeats.
pub(super) struct TouchedValues {
    bytes: Vec<u8>,
    spans: Vec<(usize, usize)>,
}

impl TouchedValues {
    /// Adds the value `write` appends.
    pub(super) fn push_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let start = self.bytes.len();
        write(&mut self.bytes);
        self.spans.push((start, self.bytes.len()));
    }
}

/// Preloads every sorted-map entry a bundle will touch with one batched read: for each group
/// with stored maps, the values `touched(slot, call, values)` adds. `hint` is the expected
/// number of entry keys, over all calls, and their bytes.
#[allow(clippy::too_many_arguments)]
pub(super) fn preload_maps(
    maps: &mut SortedMaps,
    store: &dyn StateBackend,
    groups: &Groups,
    order: &[u32],
    accs: &GroupAccs,
    map_calls: &[usize],
    hint: (usize, usize),
    mut touched: impl FnMut(usize, usize, &mut TouchedValues),
) -> Result<()> {
    let slots = groups.len();
    let per_group = map_calls.len();
    maps.begin(slots * per_group);
    // Entry keys are `[group key][call][value]` and group keys are prefix-free, so visiting
    // groups in key order, calls in order and each group's values sorted gives the keys in
    // ascending order without sorting them all.
    let mut keys = maps.key_buffer(hint.0, hint.1);
    let mut values = TouchedValues {
        bytes: Vec::new(),
        spans: Vec::new(),
    };
    for &slot in order {
        let slot = slot as usize;
        for (m, &c) in map_calls.iter().enumerate() {
            // A map held in its accumulator (or a new group's) has nothing stored.
            if accs.get(slot).is_none_or(|acc| acc[c].map_is_inline()) {
                continue;
            }
            values.bytes.clear();
            values.spans.clear();
            touched(slot, c, &mut values);
            let TouchedValues { bytes, spans } = &mut values;
            if spans.len() > 1 {
                spans.sort_unstable_by(|a, b| bytes[a.0..a.1].cmp(&bytes[b.0..b.1]));
                spans.dedup_by(|b, a| bytes[a.0..a.1] == bytes[b.0..b.1]);
            }
            for &(start, end) in spans.iter() {
                let key = keys.buffer();
                key.extend_from_slice(groups.key(slot));
                key.push(c as u8);
                key.extend_from_slice(&bytes[start..end]);
                keys.push(slot * per_group + m);
            }
        }
    }
    maps.preload(store, keys)?;
    for slot in 0..slots {
        let acc = accs.get(slot);
        for (m, &c) in map_calls.iter().enumerate() {
            // A group without state has no entries stored either.
            let entries = acc.map_or(Some(0), |acc| acc[c].map_entries());
            if let Some(entries) = entries {
                maps.note_loaded(slot * per_group + m, entries);
            }
        }
    }
    Ok(())
}

/// Writes a bundle's state (`writes`, emptied before, is its one write batch): every
/// changed entry of the sorted maps of `maps`' calls, then every group's accumulators
/// (`accs` and whether each was `persisted`) in `order`. Either all of it is written or, on
/// an error, none.
pub(super) fn write_bundle(
    store: &mut dyn StateBackend,
    writes: &mut WriteBatch,
    table: &AccTable,
    groups: &Groups,
    order: &[u32],
    accs: (&mut GroupAccs, &[bool]),
    maps: Option<(&mut SortedMaps, &[usize])>,
) -> Result<()> {
    if let Some((maps, map_calls)) = maps {
        finish_maps(maps, store, writes, groups, order, map_calls)?;
    }
    table.write(store, writes, groups, order, accs)
}

/// Puts every changed sorted-map entry of the bundle into `writes`: maps in key order, each
/// with its group key and call (`[group key][call]` is its prefix).
fn finish_maps(
    maps: &mut SortedMaps,
    store: &dyn StateBackend,
    writes: &mut WriteBatch,
    groups: &Groups,
    order: &[u32],
    map_calls: &[usize],
) -> Result<()> {
    let per_group = map_calls.len();
    maps.finish(
        store,
        writes,
        order.iter().flat_map(|&slot| {
            let slot = slot as usize;
            map_calls
                .iter()
                .enumerate()
                .map(move |(m, &c)| (slot * per_group + m, groups.key(slot), c as u8))
        }),
    )
}

// Shared with the two-phase global operator (`super::local_global`), which differs only in
// how a group's accumulators change within a bundle.

/// A GROUP BY's accumulators between bundles: one row of accumulators per group, on the
/// heap or encoded as the store decides ([`RowTable`]).
pub(super) type AccTable = RowTable<AccCodec>;

/// A bundle's copies of its groups' accumulators.
pub(super) type GroupAccs = GroupRows<Acc>;

pub(super) use crate::state::rows::Groups;

/// A GROUP BY's tables `names` (accumulators, sorted maps; behind the TTL prefix when TTL
/// is on): the accumulators of `calls`, and the sorted maps when a call keeps one.
pub(super) fn open_tables(
    store: &mut dyn StateBackend,
    names: (&str, &str),
    ttl: Option<&StateTtl>,
    calls: &[BoundCall],
) -> Result<(AccTable, Option<SortedMaps>)> {
    let codec = AccCodec::new(calls.iter().map(BoundCall::create).collect());
    let accs = AccTable::open(store, &table_name(ttl, names.0), codec, ttl.cloned())?;
    let maps = if calls.iter().any(BoundCall::uses_sorted_map) {
        let table = store.open_table(&table_name(ttl, names.1))?;
        Some(SortedMaps::new(table, ttl.cloned()))
    } else {
        None
    };
    Ok((accs, maps))
}

/// A plan's calls bound to its input, the hidden record counter, and the output schema.
pub(super) struct Bound {
    /// The user's calls, then the hidden `COUNT(*)` if one was added.
    pub(super) calls: Vec<BoundCall>,
    /// The call whose count decides whether a group still exists (`RecordCounter`).
    pub(super) counter: Option<usize>,
    pub(super) key_types: Vec<LogicalType>,
    /// Grouping columns, then one column per visible call.
    pub(super) schema: SchemaRef,
    pub(super) result_types: Vec<DataType>,
    /// The output's Flink types: grouping columns, then the visible calls' results.
    pub(super) output_types: Vec<LogicalType>,
}

/// Binds `spec`'s calls; with retracting input, adds the planner's hidden `COUNT(*)` unless
/// the query has one.
pub(super) fn bind(spec: &GroupAggSpec) -> Result<Bound> {
    if spec.input_names.len() != spec.input_types.len() {
        return Err(Error::LengthMismatch {
            context: "group aggregate input".into(),
            left_name: "the names",
            left: spec.input_names.len(),
            right_name: "the types",
            right: spec.input_types.len(),
        });
    }
    let mut key_types = Vec::with_capacity(spec.grouping.len());
    for &g in &spec.grouping {
        key_types.push(spec.input_types.get(g).cloned().ok_or_else(|| {
            Error::OutOfRange(format!(
                "grouping column {g} is out of range for {} input columns",
                spec.input_types.len()
            ))
        })?);
    }
    let mut calls = spec
        .calls
        .iter()
        .map(|c| BoundCall::bind(c, &spec.input_types, spec.input_retracts))
        .collect::<Result<Vec<_>>>()?;
    let counter = if spec.input_retracts {
        Some(
            match calls
                .iter()
                // `insertCountStarAggCall`: a COUNT(*) with a FILTER does not count rows.
                .position(|c| c.function == AggFunction::CountStar && c.filter.is_none())
            {
                Some(i) => i,
                None => {
                    let hidden = AggCall::new(AggFunction::CountStar, None, "$count");
                    calls.push(BoundCall::bind(&hidden, &spec.input_types, true)?);
                    calls.len() - 1
                }
            },
        )
    } else {
        None
    };
    if calls.len() > usize::from(u8::MAX) {
        return Err(Error::OutOfRange(format!(
            "{} aggregate calls; at most 255 are supported",
            calls.len()
        )));
    }
    let mut fields: Vec<Field> = spec
        .grouping
        .iter()
        .map(|&g| Field::new(&spec.input_names[g], spec.input_types[g].to_arrow(), true))
        .collect();
    let result_types: Vec<DataType> = calls[..spec.calls.len()]
        .iter()
        .map(|c| c.result.to_arrow())
        .collect();
    for (call, ty) in spec.calls.iter().zip(&result_types) {
        let nullable = !matches!(call.function, AggFunction::CountStar | AggFunction::Count);
        fields.push(Field::new(&call.name, ty.clone(), nullable));
    }
    let mut output_types = key_types.clone();
    output_types.extend(calls[..spec.calls.len()].iter().map(|c| c.result.clone()));
    Ok(Bound {
        calls,
        counter,
        key_types,
        schema: Arc::new(Schema::new(fields)),
        result_types,
        output_types,
    })
}

/// Checks a batch against the plan: column count and types, and no retraction when the plan
/// declares an insert-only input.
pub(super) fn check_input(spec: &GroupAggSpec, input: &ChangelogBatch) -> Result<()> {
    check_columns(
        "group aggregate input batch",
        &spec.input_types,
        input.batch(),
    )?;
    let retraction = (!spec.input_retracts && !input.is_insert_only())
        .then(|| (0..input.num_rows()).find(|&r| !input.kind(r).is_accumulate()))
        .flatten();
    if let Some(row) = retraction {
        return Err(Error::InvalidShape(format!(
            "row {row} is {} but the plan declares an insert-only input",
            input.kind(row)
        )));
    }
    Ok(())
}

/// A batch must have exactly the columns of `types` (`context` names the batch in errors).
pub(crate) fn check_columns(
    context: &str,
    types: &[LogicalType],
    batch: &RecordBatch,
) -> Result<()> {
    if batch.num_columns() != types.len() {
        return Err(Error::LengthMismatch {
            context: context.into(),
            left_name: "the plan's columns",
            left: types.len(),
            right_name: "the batch",
            right: batch.num_columns(),
        });
    }
    for (i, ty) in types.iter().enumerate() {
        let expected = ty.to_arrow();
        let found = batch.column(i).data_type();
        if found != &expected {
            return Err(Error::ColumnType {
                column: i,
                logical: ty.to_string(),
                expected: expected.to_string(),
                found: found.to_string(),
            });
        }
    }
    Ok(())
}

/// Each call's input columns in a batch: its argument, a two-argument call's second
/// (JSON_OBJECTAGG's value), PERCENTILE's frequency and its `FILTER` column.
pub(super) struct CallInputs<'a> {
    args: Vec<Option<ColumnReader<'a>>>,
    values: Vec<Option<ColumnReader<'a>>>,
    frequencies: Vec<Option<ColumnReader<'a>>>,
    filters: Vec<Option<&'a BooleanArray>>,
}

impl<'a> CallInputs<'a> {
    /// The columns of `calls` in `batch` (columns of `types`, checked by the caller).
    pub(super) fn new(
        calls: &[BoundCall],
        batch: &'a RecordBatch,
        types: &[LogicalType],
    ) -> Result<Self> {
        let readers = |pick: fn(&BoundCall) -> Option<usize>| {
            calls
                .iter()
                .map(|c| {
                    pick(c)
                        .map(|a| ColumnReader::new(batch.column(a), &types[a], a))
                        .transpose()
                })
                .collect::<Result<Vec<_>>>()
        };
        let filters = calls
            .iter()
            .map(|c| {
                c.filter
                    .map(|f| {
                        batch.column(f).as_boolean_opt().ok_or_else(|| {
                            Error::InvalidShape(format!("FILTER column {f} is not BOOLEAN"))
                        })
                    })
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            args: readers(|c| c.arg)?,
            values: readers(|c| c.value_arg)?,
            frequencies: readers(|c| c.frequency)?,
            filters,
        })
    }

    /// Whether call `c`'s `FILTER` admits `row`: its column is TRUE there (not FALSE or
    /// NULL), or it has none.
    pub(super) fn admits(&self, c: usize, row: usize) -> bool {
        self.filters[c].is_none_or(|f| f.is_valid(row) && f.value(row))
    }

    /// Call `c`'s argument reader, if it has an argument.
    pub(super) fn arg(&self, c: usize) -> Option<&ColumnReader<'a>> {
        self.args[c].as_ref()
    }

    /// Call `c`'s argument and second argument at `row` (NULL where it has none), or `None`
    /// when its `FILTER` does not admit the row.
    pub(super) fn read(&self, c: usize, row: usize) -> Option<(Value, Value)> {
        if !self.admits(c, row) {
            return None;
        }
        let read = |r: &Option<ColumnReader<'_>>| r.as_ref().map_or(Value::Null, |r| r.value(row));
        Some((read(&self.args[c]), read(&self.values[c])))
    }

    /// Accumulates `row` into `accs` (call `c`'s accumulator at `c`), with no retraction and
    /// no map state: the window and session paths' fold of one row.
    pub(super) fn accumulate(
        &self,
        calls: &[BoundCall],
        accs: &mut [Acc],
        row: usize,
    ) -> Result<()> {
        for (c, call) in calls.iter().enumerate() {
            if let Some((x, y)) = self.read(c, row) {
                call.update_weighted(&mut accs[c], &x, &y, false, self.weight(c, row), None)?;
            }
        }
        Ok(())
    }

    /// Call `c`'s weight at `row` ([`BoundCall::update_weighted`]): `None` without a
    /// frequency column, else PERCENTILE's frequency there, 0 when it is NULL or not positive
    /// (`frequency.longValue() <= 0`).
    pub(super) fn weight(&self, c: usize, row: usize) -> Option<i64> {
        self.frequencies[c].as_ref().map(|r| match r.value(row) {
            Value::Int(f) if f > 0 => f,
            _ => 0,
        })
    }
}

/// Rows grouped by slot with a counting sort: `rows[starts[s]..starts[s + 1]]` are slot
/// `s`'s rows in input order.
pub(super) fn rows_by_slot(row_slot: &[u32], slots: usize) -> (Vec<u32>, Vec<u32>) {
    let mut starts = vec![0u32; slots + 1];
    for &slot in row_slot {
        starts[slot as usize + 1] += 1;
    }
    for s in 0..slots {
        starts[s + 1] += starts[s];
    }
    let mut next = starts.clone();
    let mut rows = vec![0u32; row_slot.len()];
    for (row, &slot) in row_slot.iter().enumerate() {
        rows[next[slot as usize] as usize] = row as u32;
        next[slot as usize] += 1;
    }
    (starts, rows)
}

/// The order in which a bundle reads and writes its groups' state in `tables`: key order
/// when any of them prefers it ([`StateBackend::prefers_key_order`]), else the groups' own
/// order (first appearance), which walks the bundle's buffers front to back.
pub(crate) fn access_order(
    store: &dyn StateBackend,
    tables: &[TableId],
    groups: &Groups,
) -> Vec<u32> {
    if tables.iter().any(|&t| store.prefers_key_order(t)) {
        key_order(groups)
    } else {
        (0..groups.len() as u32).collect()
    }
}

/// The groups' slots in state-key order.
///
/// State read and written in key order costs RocksDB less: it neither sorts the read batch
/// nor inserts into its memtable at random places (a sequential skip-list insert reuses the
/// previous position), and an ordered table's tree path stays cache-warm.
fn key_order(groups: &Groups) -> Vec<u32> {
    let mut keyed: Vec<(u64, u32)> = (0..groups.len())
        .map(|s| (key_word(groups.key(s), 0), s as u32))
        .collect();
    keyed.sort_unstable_by_key(|&(word, _)| word);
    refine_key_order(groups, &mut keyed, 8);
    keyed.into_iter().map(|(_, s)| s).collect()
}

/// Eight bytes of `key` from `at` as one big-endian integer, zero-padded past its end: keys
/// that order by these words order the same as by their bytes from `at`, up to ties.
fn key_word(key: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    let rest = key.get(at..).unwrap_or_default();
    let n = rest.len().min(8);
    word[..n].copy_from_slice(&rest[..n]);
    u64::from_be_bytes(word)
}

/// Orders each run of `keyed` whose keys agree on their first `at` bytes (equal words) by
/// the next eight bytes in which the run's keys differ, recursively (a radix sort by
/// words from the most significant). Key rows share their header and often their slots,
/// so comparing whole keys on ties would compare those bytes again and again.
fn refine_key_order(groups: &Groups, keyed: &mut [(u64, u32)], at: usize) {
    let key = |e: &(u64, u32)| groups.key(e.1 as usize);
    let mut start = 0;
    while start < keyed.len() {
        let word = keyed[start].0;
        let end = start
            + keyed[start..]
                .iter()
                .position(|e| e.0 != word)
                .unwrap_or(keyed.len() - start);
        let run = &mut keyed[start..end];
        start = end;
        if run.len() < 2 {
            continue;
        }
        let longest = run.iter().map(|e| key(e).len()).max().unwrap_or(0);
        if at >= longest {
            // Only zero padding is left to compare: the bytes decide (a key that is a
            // prefix of another comes first).
            run.sort_unstable_by(|a, b| key(a).cmp(key(b)));
            continue;
        }
        // Skip what every key of the run shares from `at`.
        let first = key(&run[0]).get(at..).unwrap_or_default();
        let shared = run[1..].iter().fold(first.len(), |shared, e| {
            let other = key(e).get(at..).unwrap_or_default();
            let limit = shared.min(other.len());
            first[..limit]
                .iter()
                .zip(&other[..limit])
                .position(|(a, b)| a != b)
                .unwrap_or(limit)
        });
        let next = at + shared;
        for e in run.iter_mut() {
            e.0 = key_word(groups.key(e.1 as usize), next);
        }
        run.sort_unstable_by_key(|&(word, _)| word);
        refine_key_order(groups, run, next + 8);
    }
}

/// Refuses a driver whose max parallelism is not the plan's.
pub(super) fn check_max_parallelism(spec: &GroupAggSpec, keyed: &Keyed) -> Result<()> {
    if keyed.max_parallelism() != spec.max_parallelism {
        return Err(Error::OutOfRange(format!(
            "the plan's max parallelism is {} but its state has {} key groups",
            spec.max_parallelism,
            keyed.max_parallelism()
        )));
    }
    Ok(())
}

/// The plan's state TTL on `clock`; `None` when off.
pub(super) fn state_ttl(spec: &GroupAggSpec, clock: Arc<dyn Clock>) -> Result<Option<StateTtl>> {
    match spec.state_ttl {
        Some(d) if !d.is_zero() => Ok(Some(StateTtl::new(d, clock)?)),
        _ => Ok(None),
    }
}

/// A state table's name: TTL tables carry a prefix, so a restore with TTL switched on or
/// off never misreads the other's values.
pub(super) fn table_name(ttl: Option<&StateTtl>, name: &str) -> String {
    match ttl {
        Some(_) => format!("{TTL_TABLE_PREFIX}{name}"),
        None => name.to_string(),
    }
}

/// `RecordCounter.recordCountIsZero`, negated: without a counter (insert-only input) a
/// group with state always exists.
pub(super) fn is_alive(counter: Option<usize>, accs: &[Acc]) -> bool {
    match counter {
        Some(c) => !matches!(accs[c], Acc::Count(0)),
        None => true,
    }
}

/// How changes are emitted.
#[derive(Debug, Clone, Copy)]
pub(super) struct EmitRules {
    /// An unchanged result emits nothing (state TTL off).
    pub(super) suppress_equal: bool,
    /// `-U` before every `+U`.
    pub(super) generate_update_before: bool,
}

impl EmitRules {
    /// The rules of `spec`: equal results are suppressed only without state TTL.
    pub(super) fn of(spec: &GroupAggSpec) -> Self {
        Self {
            suppress_equal: !matches!(spec.state_ttl, Some(d) if !d.is_zero()),
            generate_update_before: spec.generate_update_before,
        }
    }

    /// What a group emits after a change (`GroupAggFunction`'s rules): `first` when it had
    /// no state, `alive` unless its record count reached zero, `equal` whether its results
    /// before and after are equal (asked only when it matters).
    pub(super) fn decide(self, first: bool, alive: bool, equal: impl FnOnce() -> bool) -> Emit {
        match (first, alive) {
            (true, true) => Emit::Insert,
            (true, false) => Emit::Nothing,
            (false, true) if self.suppress_equal && equal() => Emit::Nothing,
            (false, true) => Emit::Update {
                before: self.generate_update_before,
            },
            (false, false) => Emit::Delete,
        }
    }
}

/// A group's emission: nothing, `+I` of its new results, `-U` of its results before (when
/// `before`) then `+U` of its new ones, or `-D` of its results before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Emit {
    Nothing,
    Insert,
    Update { before: bool },
    Delete,
}

/// The output changelog being built: kinds, the input row each key is taken from, and the
/// results per visible call.
pub(super) struct Changes {
    kinds: Vec<i8>,
    key_rows: Vec<u32>,
    values: Vec<Vec<Value>>,
}

impl Changes {
    pub(super) fn new(capacity: usize, calls: usize) -> Self {
        Self {
            kinds: Vec::with_capacity(capacity),
            key_rows: Vec::with_capacity(capacity),
            values: vec![Vec::with_capacity(capacity); calls],
        }
    }

    /// Emits one group's change with `GroupAggFunction`'s rules: `new` is `None` when the
    /// record count reached zero; `first` when the group had no state. The results are
    /// taken out of reusable buffers (left empty when emitted).
    pub(super) fn emit(
        &mut self,
        rules: EmitRules,
        key_row: u32,
        first: bool,
        prev: &mut Vec<Value>,
        new: Option<&mut Vec<Value>>,
    ) {
        let emit = rules.decide(first, new.is_some(), || {
            new.as_deref().is_some_and(|new| results_equal(prev, new))
        });
        match (emit, new) {
            (Emit::Insert, Some(new)) => self.push(RowKind::Insert, key_row, new),
            (Emit::Update { before }, Some(new)) => {
                if before {
                    self.push(RowKind::UpdateBefore, key_row, prev);
                }
                self.push(RowKind::UpdateAfter, key_row, new);
            }
            (Emit::Delete, _) => self.push(RowKind::Delete, key_row, prev),
            _ => {}
        }
    }

    fn push(&mut self, kind: RowKind, key_row: u32, values: &mut Vec<Value>) {
        self.kinds.push(kind.to_byte());
        self.key_rows.push(key_row);
        for (column, value) in self.values.iter_mut().zip(values.drain(..)) {
            column.push(value);
        }
    }

    /// The changelog: key columns taken from `key_columns`, results built from values.
    pub(super) fn finish(
        self,
        schema: &SchemaRef,
        key_columns: &[ArrayRef],
        result_types: &[DataType],
    ) -> Result<ChangelogBatch> {
        let mut columns = output_keys(&self.key_rows, key_columns, schema.fields().len())?;
        for (values, ty) in self.values.iter().zip(result_types) {
            columns.push(build_array(ty, values.iter())?);
        }
        let batch = RecordBatch::try_new(schema.clone(), columns)?;
        ChangelogBatch::try_new(batch, Some(Int8Array::from(self.kinds)))
    }
}

/// The key columns of an output changelog whose rows take their keys from input rows
/// `key_rows` of `key_columns`, with room for `width` columns in all.
pub(super) fn output_keys(
    key_rows: &[u32],
    key_columns: &[ArrayRef],
    width: usize,
) -> Result<Vec<ArrayRef>> {
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(width);
    match contiguous_run(key_rows) {
        // Each of a run of input rows emitted once, in order (keys unique within the
        // bundle, each a first insertion or one update): the keys are a slice of the
        // input's columns, shared rather than copied.
        Some(start) => {
            for key in key_columns {
                columns.push(key.slice(start, key_rows.len()));
            }
        }
        // Each of some input rows emitted once, in order (the NULL group leaves gaps in
        // a run of unique keys): a filter copies the runs between the gaps whole,
        // where a `take` copies value by value.
        None if strictly_ascending(key_rows) => {
            let n = key_columns.first().map_or(0, |c| c.len());
            let mut mask = BooleanBufferBuilder::new(n);
            mask.append_n(n, false);
            for &row in key_rows {
                mask.set_bit(row as usize, true);
            }
            let mask = BooleanArray::new(mask.finish(), None);
            let filter = FilterBuilder::new(&mask).optimize().build();
            for key in key_columns {
                let shared = match key.data_type() {
                    DataType::Utf8 => share_bytes(key.as_string::<i32>(), key_rows),
                    DataType::Binary => share_bytes(key.as_binary::<i32>(), key_rows),
                    _ => None,
                };
                match shared {
                    Some(shared) => columns.push(shared),
                    None => columns.push(filter.filter(key.as_ref())?),
                }
            }
        }
        None => {
            let take_rows = UInt32Array::from(key_rows.to_vec());
            for key in key_columns {
                columns.push(arrow::compute::take(key.as_ref(), &take_rows, None)?);
            }
        }
    }
    Ok(columns)
}

/// Rows `rows` (strictly ascending) of a string or binary column, sharing its value bytes,
/// when the rows between them hold none (NULLs, empty values): then the kept values are
/// contiguous in the input's buffer and only offsets and validity are new. `None` when
/// some row left out holds bytes.
fn share_bytes<T: ByteArrayType<Offset = i32>>(
    column: &GenericByteArray<T>,
    rows: &[u32],
) -> Option<ArrayRef> {
    let offsets = column.value_offsets();
    let mut kept = Vec::with_capacity(rows.len() + 1);
    let mut end = offsets[*rows.first()? as usize];
    kept.push(end);
    for &row in rows {
        let row = row as usize;
        if offsets[row] != end {
            return None;
        }
        end = offsets[row + 1];
        kept.push(end);
    }
    let nulls = column
        .nulls()
        .map(|n| NullBuffer::from_iter(rows.iter().map(|&r| n.is_valid(r as usize))));
    let offsets = OffsetBuffer::new(ScalarBuffer::from(kept));
    // SAFETY: output value `j` spans exactly input value `rows[j]`'s bytes (each starts
    // where the previous ended, checked above), so the offsets lie in the shared buffer and
    // on the input's value boundaries, and a valid string array's values are UTF-8; `nulls`
    // has one bit per row. (`try_new` would re-validate all the bytes.)
    let shared =
        unsafe { GenericByteArray::<T>::new_unchecked(offsets, column.values().clone(), nulls) };
    Some(Arc::new(shared))
}

/// Whether every row of `rows` is greater than the one before.
fn strictly_ascending(rows: &[u32]) -> bool {
    rows.windows(2).all(|w| w[0] < w[1])
}

/// The first of `rows` when they are consecutive ascending row numbers (and not empty).
fn contiguous_run(rows: &[u32]) -> Option<usize> {
    let &start = rows.first()?;
    rows.iter()
        .enumerate()
        .all(|(i, &row)| u64::from(row) == u64::from(start) + i as u64)
        .then_some(start as usize)
}

/// One batch of several, kinds included.
pub(crate) fn concat(batches: &[ChangelogBatch]) -> Result<ChangelogBatch> {
    if let [only] = batches {
        return Ok(only.clone());
    }
    // Batches of one plan may differ in field nullability (only the types are checked), so
    // the bundle's schema declares every field nullable.
    let first = batches[0].batch().schema();
    let schema = Arc::new(Schema::new(
        first
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect::<Vec<_>>(),
    ));
    let columns = (0..schema.fields().len())
        .map(|c| {
            let parts: Vec<&dyn arrow::array::Array> = batches
                .iter()
                .map(|b| b.batch().column(c).as_ref())
                .collect();
            arrow::compute::concat(&parts)
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let rows = RecordBatch::try_new(schema, columns)?;
    let kinds: Int8Array = batches
        .iter()
        .flat_map(|b| (0..b.num_rows()).map(move |r| b.kind(r).to_byte()))
        .collect();
    ChangelogBatch::try_new(rows, Some(kinds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binary_row::BinaryRows;

    /// Keys built to stress the word-by-word order: shared headers, equal words, NUL and
    /// 0xFF bytes, prefixes of one another, and lengths around word boundaries.
    fn keys(seed: u64) -> Vec<Vec<u8>> {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        };
        let alphabet = [0u8, 1, 0x7f, 0x80, 0xff];
        let mut keys: Vec<Vec<u8>> = (0..300)
            .map(|_| {
                let shared = [7u8; 19];
                let mut key = vec![(next() % 3) as u8, (next() % 2) as u8];
                key.extend_from_slice(&shared[..next() % 20]);
                for _ in 0..next() % 12 {
                    key.push(alphabet[next() % alphabet.len()]);
                }
                key
            })
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    #[test]
    fn shared_keys_are_the_rows_when_the_rows_between_hold_no_bytes() {
        use arrow::array::StringArray;
        let column = StringArray::from(vec![
            Some("ab"),
            None,
            Some("é漢"),
            Some(""),
            None,
            Some("z\0"),
            Some("q"),
        ]);
        // Rows 1, 3 and 4 hold no bytes: leaving them out shares the buffer.
        for rows in [
            vec![0, 2, 5, 6],
            vec![2, 5],
            vec![1, 2],
            vec![5],
            vec![0, 1, 2, 3, 5],
        ] {
            let shared = share_bytes(&column, &rows).expect("shareable");
            let want: StringArray = rows
                .iter()
                .map(|&r| column.iter().nth(r as usize).unwrap())
                .collect();
            assert_eq!(shared.as_string::<i32>(), &want, "rows {rows:?}");
            assert_eq!(
                shared.as_string::<i32>().values().as_ptr(),
                column.values().as_ptr(),
                "rows {rows:?} share the bytes"
            );
        }
        // Row 6 holds bytes; leaving it out of [5, 7) is fine, out of [0, 2] is not.
        assert!(share_bytes(&column, &[0, 2]).is_some());
        assert!(share_bytes(&column, &[0, 6]).is_none());
        assert!(share_bytes(&column, &[2, 6]).is_none());
        assert!(share_bytes(&column, &[]).is_none());
    }

    #[test]
    fn only_increasing_rows_are_strictly_ascending() {
        assert!(strictly_ascending(&[]));
        assert!(strictly_ascending(&[4]));
        assert!(strictly_ascending(&[0, 2, 3, 9]));
        assert!(!strictly_ascending(&[0, 2, 2]));
        assert!(!strictly_ascending(&[3, 1]));
    }

    #[test]
    fn only_consecutive_ascending_rows_are_a_run() {
        assert_eq!(contiguous_run(&[]), None);
        assert_eq!(contiguous_run(&[7]), Some(7));
        assert_eq!(contiguous_run(&[3, 4, 5]), Some(3));
        assert_eq!(contiguous_run(&[3, 3, 4]), None);
        assert_eq!(contiguous_run(&[0, 2]), None);
        assert_eq!(contiguous_run(&[1, 0]), None);
        // Counting past u32::MAX is not a run.
        assert_eq!(contiguous_run(&[u32::MAX, 0]), None);
    }

    #[test]
    fn key_order_is_the_byte_order_of_the_state_keys() {
        for seed in 0..20 {
            let mut keys = keys(seed);
            // Present them in a scrambled order.
            keys.sort_by_key(|k| k.iter().rev().copied().collect::<Vec<u8>>());
            let mut offsets = vec![0];
            for key in &keys {
                offsets.push(offsets.last().unwrap() + key.len());
            }
            let groups = Groups::new(
                BinaryRows::from_parts(keys.concat(), offsets),
                vec![0; keys.len()],
                (0..keys.len() as u32).collect(),
                keys.iter().map(Vec::len).sum(),
            );
            let ordered: Vec<&[u8]> = key_order(&groups)
                .into_iter()
                .map(|s| groups.key(s as usize))
                .collect();
            let mut expected: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
            expected.sort();
            assert_eq!(ordered, expected, "seed {seed}");
        }
    }
}
