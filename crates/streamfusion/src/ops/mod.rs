//! One operator interface for every native operator, the keyed driver they share, and the
//! production restore path.
//!
//! - [`Operator`]: what a Flink task (through JNI) or a test drives: changelog batches in
//!   from input 0 or 1, watermarks, processing time, bundle flushes, checkpoints, memory.
//!   Calc, GROUP BY (one- and two-phase), window aggregation, OVER aggregation,
//!   deduplication, Top-N, the event-time sort and the regular join (two inputs) implement
//!   it.
//! - [`keyed`]: [`keyed::Keyed`], what every keyed operator shares: the state store, the
//!   subtask's key groups, the watermark (checkpointed and restored), timers in state, the
//!   processing-time clock, and [`keyed::MiniBatch`], mini-batch buffering. Per-key state
//!   lives in typed tables ([`crate::state::rows::RowTable`]), which keep rows decoded on
//!   the memory backend and encoded elsewhere, so an operator never names a backend.
//! - [`metadata`]: the versioned operator metadata stored with every checkpoint: operator
//!   kind and version, a fingerprint of the plan's semantics (names left out, so a renamed
//!   output column still restores), watermark, key groups.
//! - [`restore`]: how a subtask's state is rebuilt from checkpoints: the aligned, clipped or
//!   rebuilt choice as a pure function, and [`restore::StateConfig`], the backend to open.
//! - [`plan`]: [`plan::OperatorPlan`], the serializable description of any operator, and the
//!   one place that builds or restores an operator from it (what JNI hosts).
//! - [`sections`]: a checkpoint as Flink raw keyed state, one section per key group, and the
//!   operator restored from the sections a subtask receives (how a Flink task checkpoints
//!   a native operator).
//!
//! # Adding an operator
//!
//! An operator is its own module implementing [`Operator`] (a keyed one implements
//! [`keyed::KeyedOperator`], which builds and restores it over a [`keyed::Keyed`] driver,
//! opens its tables through the driver's store or `RowTable`, and checkpoints through
//! `Keyed::checkpoint`), a variant of [`OperatorKind`] for its
//! checkpoints' metadata, and its plan as a variant of [`OperatorPlan`] with one arm in
//! `build` and `restore`. That is all: JNI hosts every `OperatorPlan`, and
//! `crate::bench::OperatorLifecycle` gives a suite its checkpoint and restore cases.

pub mod calc;
pub mod keyed;
pub mod metadata;
pub mod partition_cache;
pub mod plan;
pub mod restore;
pub mod sections;

use std::path::Path;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;

use crate::calc::UpcallHost;
use crate::changelog::{ChangelogBatch, RowKind};
use crate::error::Result;
use crate::state::checkpoint::{self, Checkpoint};
use crate::state::memory::MemoryBackend;
use crate::types::LogicalType;

pub use metadata::{OperatorKind, PlanIdentity};
pub use plan::OperatorPlan;
pub use restore::{RestoreStrategy, StateConfig};

/// Which input of an operator a batch arrives on: 0 for one-input operators and a join's
/// left side, 1 for a join's right side.
pub type Port = usize;

/// Where an operator puts its output: changelog batches in emission order. Empty batches
/// are dropped, so an operator may emit whatever a bundle produced.
#[derive(Debug, Default)]
pub struct Output {
    batches: Vec<ChangelogBatch>,
}

impl Output {
    /// No output yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `batch` unless it has no rows.
    pub fn emit(&mut self, batch: ChangelogBatch) {
        if batch.num_rows() > 0 {
            self.batches.push(batch);
        }
    }

    /// The batches emitted so far.
    pub fn batches(&self) -> &[ChangelogBatch] {
        &self.batches
    }

    /// The rows emitted so far.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(ChangelogBatch::num_rows).sum()
    }

    /// Takes the batches emitted so far, leaving none.
    pub fn take(&mut self) -> Vec<ChangelogBatch> {
        std::mem::take(&mut self.batches)
    }
}

/// A native operator, as a Flink task drives it.
///
/// The call order follows Flink's `StreamOperator` life cycle: any number of
/// [`Operator::process`], [`Operator::advance_watermark`] and
/// [`Operator::on_processing_time`] calls; before a checkpoint barrier
/// [`Operator::prepare_checkpoint`] (Flink's `prepareSnapshotPreBarrier`: a mini-batch bundle
/// is applied and emitted), then [`Operator::checkpoint`]; at end of input
/// [`Operator::flush`]. Restoring is [`plan::OperatorPlan::restore`].
pub trait Operator: Send + std::fmt::Debug {
    /// Which operator this is, with its plan's semantic identity (what checkpoints record).
    fn identity(&self) -> &PlanIdentity;

    /// How many inputs it has (1, or 2 for joins).
    fn inputs(&self) -> usize {
        1
    }

    /// The Flink types of the rows arriving on `port`.
    fn input_types(&self, port: Port) -> &[LogicalType];

    /// The Flink types of the rows it emits.
    fn output_types(&self) -> &[LogicalType];

    /// The schema of every batch it emits.
    fn output_schema(&self) -> SchemaRef;

    /// Processes a batch arriving on `port`.
    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()>;

    /// Moves event time forward to `watermark` (a watermark at or below the current one is
    /// ignored, as Flink's are monotonic): fires event-time timers, and a mini-batch
    /// operator applies its bundle first, as Flink's bundle operators do on a watermark.
    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()>;

    /// The current watermark; `None` before the first.
    fn watermark(&self) -> Option<i64>;

    /// Processing time reached `time` (epoch milliseconds): fires the processing-time timers
    /// at or before it, as Flink's timer service does when its callback for `time` runs.
    fn on_processing_time(&mut self, time: i64, out: &mut Output) -> Result<()> {
        let _ = (time, out);
        Ok(())
    }

    /// When the operator's earliest processing-time timer is due (`None`: it has none), so
    /// the host can call [`Operator::on_processing_time`] then. An operator in processing
    /// time reads the time itself from its state's clock (the system clock in a task, the
    /// same `System.currentTimeMillis` Flink's processing time is).
    fn next_processing_timer(&mut self) -> Result<Option<i64>> {
        Ok(None)
    }

    /// The calls the operator's plan hands to the host ([`crate::calc::upcall`]), if any: a
    /// host must be bound to them ([`Operator::bind_upcalls`]) before the first batch.
    fn has_upcalls(&self) -> bool {
        false
    }

    /// Binds the host that evaluates the plan's upcalls; an operator without upcalls ignores
    /// it.
    fn bind_upcalls(&mut self, host: Arc<dyn UpcallHost>) -> Result<()> {
        let _ = host;
        Ok(())
    }

    /// Applies and emits whatever is buffered (a mini-batch bundle); at end of input too.
    fn flush(&mut self, out: &mut Output) -> Result<()>;

    /// What must happen before a checkpoint barrier passes: the buffered bundle is applied
    /// and emitted, so the checkpoint holds no input that was not yet applied.
    fn prepare_checkpoint(&mut self, out: &mut Output) -> Result<()> {
        self.flush(out)
    }

    /// Publishes a checkpoint of the operator's state and metadata at `target` (which must
    /// not exist). Fails if input is still buffered: call
    /// [`Operator::prepare_checkpoint`] first.
    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint>;

    /// The bytes of state the operator holds in memory (what its budget counts).
    fn memory_bytes(&self) -> u64;
}

/// Publishes the checkpoint of an operator without keyed state at `target`: its metadata
/// (identity and watermark) over an empty store, so every operator's checkpoint is the same
/// kind of directory.
pub fn checkpoint_stateless(
    target: &Path,
    identity: &PlanIdentity,
    watermark: Option<i64>,
) -> Result<Checkpoint> {
    let meta = metadata::OperatorMetadata::stateless(identity.clone(), watermark);
    checkpoint::publish(&mut MemoryBackend::new(), target, &meta.to_bytes())
}

/// The watermark an operator without keyed state resumes from: the lowest of
/// `checkpoints`' (`None` without any), each checked to be written for `identity`.
pub fn restore_stateless(
    identity: &PlanIdentity,
    checkpoints: &[Checkpoint],
) -> Result<Option<i64>> {
    let mut watermark: Option<i64> = None;
    for c in checkpoints {
        let meta = metadata::OperatorMetadata::read_for(c, identity)?;
        if let Some(w) = meta.watermark {
            watermark = Some(watermark.map_or(w, |m| m.min(w)));
        }
    }
    Ok(watermark)
}

/// An error unless `port` is 0: what a one-input operator answers for a second input.
pub fn expect_one_input(kind: OperatorKind, port: Port) -> Result<()> {
    if port != 0 {
        return Err(crate::error::Error::OutOfRange(format!(
            "{kind} has one input; a batch arrived on input {port}"
        )));
    }
    Ok(())
}

/// An error naming the first row of `input` that is not `+I`: for an operator Flink plans
/// only over insert-only input (`what` takes insert-only input).
pub fn expect_insert_only(input: &ChangelogBatch, what: &str) -> Result<()> {
    if input.is_insert_only() {
        return Ok(());
    }
    match (0..input.num_rows()).find(|&r| input.kind(r) != RowKind::Insert) {
        Some(row) => Err(crate::error::Error::InvalidShape(format!(
            "row {row} is {}, but {what} takes insert-only input",
            input.kind(row)
        ))),
        None => Ok(()),
    }
}

/// Runs `op` over `inputs` on port 0, then flushes: every batch it emitted, in order. A
/// convenience for tests and adapters.
pub fn run_to_end(op: &mut dyn Operator, inputs: &[ChangelogBatch]) -> Result<Vec<ChangelogBatch>> {
    let mut out = Output::new();
    for input in inputs {
        op.process(0, input, &mut out)?;
    }
    op.flush(&mut out)?;
    Ok(out.take())
}
