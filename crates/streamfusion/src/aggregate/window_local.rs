//! The local phase of two-phase window aggregation: Flink's `LocalSlicingWindowAggOperator`
//! with `LocalAggCombiner` (the plan `table.optimizer.agg-phase-strategy` AUTO or TWO_PHASE
//! gives a window aggregation whose calls all merge).
//!
//! It keeps no keyed state. Rows are buffered with their slices (a row's own, late or not:
//! the global phase decides lateness); when a watermark reaches the next trigger
//! (`getNextTriggerWatermarkWithOffset`) while a buffered slice has fired, before a
//! checkpoint, at the end of input, or when the buffer is full, each key's rows of each slice
//! are accumulated into fresh accumulators and emitted as one partial row: grouping columns,
//! each call's partial fields ([`super::local_global::PartialLayout`], with the hidden
//! `COUNT(*)` of HOP and CUMULATE last), then `$slice_end` (BIGINT). Its watermark starts at
//! 0, as the operator's `currentWatermark` field does, so watermarks at or before the epoch
//! apply nothing; it is not checkpointed.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, RecordBatch, UInt32Array};
use arrow::datatypes::{Field, Schema, SchemaRef};

use super::function::{Acc, BoundCall};
use super::group::{CallInputs, Groups, check_input, concat, rows_by_slot};
use super::local_global::PartialLayout;
use super::window::{WindowAggSpec, WindowCalls, row_slices};
use crate::binary_row::BinaryRows;
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::ops::keyed::all_key_groups;
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::state::rows::hash_of;
use crate::types::LogicalType;
use crate::window_clock::WindowClock;

/// The version of the local phase's checkpoints (metadata only).
pub const LOCAL_VERSION: u32 = 1;
/// The buffer is applied once it holds this many rows, as Flink's full buffer is.
const BUFFER_ROWS: usize = 1 << 16;

/// The local phase of a window aggregation.
pub struct LocalWindowAggregate {
    spec: WindowAggSpec,
    calls: Vec<BoundCall>,
    layout: PartialLayout,
    hasher: KeyHasher,
    schema: SchemaRef,
    output_types: Vec<LogicalType>,
    identity: PlanIdentity,
    watermark: i64,
    next_trigger: i64,
    clock: WindowClock,
    batches: Vec<ChangelogBatch>,
    /// Each buffered row's slice end, the batches' rows together.
    slices: Vec<i64>,
    min_slice: i64,
}

impl std::fmt::Debug for LocalWindowAggregate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalWindowAggregate")
            .field("window", &self.spec.window)
            .field("buffered_rows", &self.slices.len())
            .finish_non_exhaustive()
    }
}

impl LocalWindowAggregate {
    /// The local phase of `spec`; fails for calls Flink does not split.
    pub fn new(spec: WindowAggSpec) -> Result<Self> {
        let WindowCalls {
            calls, key_types, ..
        } = WindowCalls::bind(&spec, true)?;
        let names: Vec<&str> = spec
            .aggregate
            .calls
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        let layout = PartialLayout::new(&calls, &names)?;
        let aggregate = &spec.aggregate;
        let mut fields: Vec<Field> = aggregate
            .grouping
            .iter()
            .map(|&g| {
                Field::new(
                    &aggregate.input_names[g],
                    aggregate.input_types[g].to_arrow(),
                    true,
                )
            })
            .collect();
        fields.extend(layout.arrow_fields());
        fields.push(Field::new(
            "$slice_end",
            LogicalType::BigInt.to_arrow(),
            true,
        ));
        let mut output_types = key_types.clone();
        output_types.extend(layout.fields.iter().flatten().cloned());
        output_types.push(LogicalType::BigInt);
        let clock = spec.clock()?;
        Ok(Self {
            hasher: KeyHasher::new(key_types),
            calls,
            layout,
            schema: Arc::new(Schema::new(fields)),
            output_types,
            identity: Self::identity_of(&spec),
            spec,
            watermark: 0,
            next_trigger: 0,
            clock,
            batches: Vec::new(),
            slices: Vec::new(),
            min_slice: i64::MAX,
        })
    }

    /// The plan's identity, as checkpoints record it.
    pub fn identity_of(spec: &WindowAggSpec) -> PlanIdentity {
        PlanIdentity::new(
            OperatorKind::LocalWindowAggregate,
            LOCAL_VERSION,
            &spec.semantics(),
        )
    }

    /// A local phase resuming after `checkpoints` (checked to be written for this plan; the
    /// phase keeps nothing, and its watermark starts afresh as Flink's does).
    pub fn restore(spec: WindowAggSpec, checkpoints: &[Checkpoint]) -> Result<Self> {
        let op = Self::new(spec)?;
        ops::restore_stateless(&op.identity, checkpoints)?;
        Ok(op)
    }

    /// The partial rows' Flink types: grouping columns, each call's fields, the slice end.
    pub fn partial_types(&self) -> &[LogicalType] {
        &self.output_types
    }

    /// Buffers `input`; returns the partials when the buffer is full, else nothing.
    pub fn buffer(&mut self, input: &ChangelogBatch) -> Result<Option<ChangelogBatch>> {
        check_input(&self.spec.aggregate, input)?;
        let n = input.num_rows();
        if n == 0 {
            return Ok(None);
        }
        for slice in row_slices(&self.spec, &self.clock, input.batch())? {
            self.min_slice = self.min_slice.min(slice);
            self.slices.push(slice);
        }
        self.batches.push(input.clone());
        if self.slices.len() >= BUFFER_ROWS {
            return self.partials().map(Some);
        }
        Ok(None)
    }

    /// Moves the watermark: the partials when it applies the buffer, else nothing.
    pub fn advance(&mut self, watermark: i64) -> Result<Option<ChangelogBatch>> {
        if watermark <= self.watermark {
            return Ok(None);
        }
        self.watermark = watermark;
        if watermark < self.next_trigger {
            return Ok(None);
        }
        let window = self.spec.window;
        self.next_trigger =
            self.clock
                .next_trigger(watermark, window.slice_interval(), window.offset());
        if !self.slices.is_empty() && self.clock.is_fired(self.min_slice, Some(watermark)) {
            return self.partials().map(Some);
        }
        Ok(None)
    }

    /// The buffer's partial rows (`LocalAggCombiner`), one per key and slice; the buffer is
    /// emptied.
    pub fn partials(&mut self) -> Result<ChangelogBatch> {
        let batches = std::mem::take(&mut self.batches);
        let slices = std::mem::take(&mut self.slices);
        self.min_slice = i64::MAX;
        if slices.is_empty() {
            return Ok(ChangelogBatch::insert_only(RecordBatch::new_empty(
                self.schema.clone(),
            )));
        }
        let input = concat(&batches)?;
        let batch = input.batch();
        let n = batch.num_rows();
        let aggregate = &self.spec.aggregate;
        let key_columns: Vec<ArrayRef> = aggregate
            .grouping
            .iter()
            .map(|&g| batch.column(g).clone())
            .collect();
        let (keys, _) = crate::keys::state_keys(
            &self.hasher,
            &key_columns,
            n,
            aggregate.max_parallelism,
            &all_key_groups(aggregate.max_parallelism)?,
        )?;
        // Rows grouped by key and slice.
        let mut data = Vec::with_capacity(keys.data().len() + n * 8);
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        let mut hashes = Vec::with_capacity(n);
        for (row, slice) in slices.iter().enumerate() {
            let start = data.len();
            data.extend_from_slice(keys.prefixed_row(row));
            data.extend_from_slice(&slice.to_be_bytes());
            offsets.push(data.len());
            hashes.push(hash_of(&data[start..]));
        }
        let (groups, row_group) = Groups::of(BinaryRows::from_parts(data, offsets), hashes);
        let (starts, grouped) = rows_by_slot(&row_group, groups.len());

        let types = &aggregate.input_types;
        let inputs = CallInputs::new(&self.calls, batch, types)?;
        let templates: Vec<Acc> = self.calls.iter().map(BoundCall::create_local).collect();
        let mut accs: Vec<Acc> = Vec::with_capacity(groups.len() * templates.len());
        for group in 0..groups.len() {
            let start = accs.len();
            accs.extend_from_slice(&templates);
            let group_accs = &mut accs[start..];
            for &row in &grouped[starts[group] as usize..starts[group + 1] as usize] {
                let row = row as usize;
                inputs.accumulate(&self.calls, group_accs, row)?;
            }
        }

        let first_rows = UInt32Array::from(groups.first_rows().to_vec());
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.schema.fields().len());
        for key in &key_columns {
            columns.push(arrow::compute::take(key.as_ref(), &first_rows, None)?);
        }
        columns.extend(self.layout.columns(&self.calls, &accs)?);
        columns.push(Arc::new(Int64Array::from_iter_values(
            groups.first_rows().iter().map(|&r| slices[r as usize]),
        )));
        let out = RecordBatch::try_new(self.schema.clone(), columns)?;
        Ok(ChangelogBatch::insert_only(out))
    }
}

impl Operator for LocalWindowAggregate {
    fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    fn input_types(&self, _port: Port) -> &[LogicalType] {
        &self.spec.aggregate.input_types
    }

    fn output_types(&self) -> &[LogicalType] {
        &self.output_types
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        ops::expect_one_input(self.identity.kind, port)?;
        if let Some(partials) = self.buffer(input)? {
            out.emit(partials);
        }
        Ok(())
    }

    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        if let Some(partials) = self.advance(watermark)? {
            out.emit(partials);
        }
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        Some(self.watermark)
    }

    fn flush(&mut self, out: &mut Output) -> Result<()> {
        out.emit(self.partials()?);
        Ok(())
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        if !self.slices.is_empty() {
            return Err(Error::State(format!(
                "{} buffered rows are not emitted yet: flush before a checkpoint",
                self.slices.len()
            )));
        }
        ops::checkpoint_stateless(target, &self.identity, None)
    }

    fn memory_bytes(&self) -> u64 {
        self.batches
            .iter()
            .map(|b| b.batch().get_array_memory_size() as u64)
            .sum()
    }
}
