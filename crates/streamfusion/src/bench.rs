//! bench-support integration for the engine's operators (feature `bench`).

use std::ops::RangeInclusive;

use arrow::array::ArrayData;
use bench_support::adapters::{RestoreMode, StoreLifecycle};
use bench_support::buffers::ArrowBuffers;

use crate::aggregate::{GroupAggSpec, GroupAggregate};
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::ops::keyed::{Keyed, all_key_groups};
use crate::ops::{Operator, OperatorPlan, Output, StateConfig};
use crate::state::checkpoint::Checkpoint;
use crate::state::layout::key_group;
use crate::state::memory::MemoryBackend;

/// Which backend a [`GroupAggLifecycle`] keeps its state in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// [`crate::state::memory::MemoryBackend`].
    Memory,
    /// [`crate::state::rocks::RocksBackend`] with the checked-in options.
    Rocksdb,
}

/// The GROUP BY operator through bench-support's [`StoreLifecycle`]: thin calls into
/// [`GroupAggregate`], the state backends and [`checkpoint`].
///
/// RocksDB stores and checkpoints live in fresh temporary directories, removed when the
/// store or checkpoint is dropped (outside any timed region when suites use
/// `iter_batched_ref`).
#[derive(Debug, Clone)]
pub struct GroupAggLifecycle {
    /// The plan.
    pub spec: GroupAggSpec,
    /// Where state lives.
    pub backend: Backend,
}

/// A [`GroupAggregate`] with the directory holding its RocksDB store.
#[derive(Debug)]
pub struct GroupAggStore {
    /// The operator.
    pub operator: GroupAggregate,
    _dir: tempfile::TempDir,
}

/// A published checkpoint with the directory holding it.
#[derive(Debug)]
pub struct GroupAggCheckpoint {
    /// The checkpoint.
    pub checkpoint: Checkpoint,
    _dir: tempfile::TempDir,
}

impl ArrowBuffers for GroupAggStore {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

impl ArrowBuffers for GroupAggCheckpoint {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

impl Backend {
    /// The state configuration of this backend in `dir`.
    fn config(self, dir: &tempfile::TempDir) -> StateConfig {
        match self {
            Backend::Memory => StateConfig::memory(),
            Backend::Rocksdb => StateConfig::rocksdb(dir.path()),
        }
    }

    /// The configuration and key groups of a restore in `mode` from `sources` checkpoints:
    /// `Aligned` owns every key group (`None`), `Rebuilt` the given ones, always scanned
    /// into a fresh store ([`StateConfig::always_rebuild`]).
    fn restore_config(
        self,
        dir: &tempfile::TempDir,
        mode: &RestoreMode,
        sources: usize,
    ) -> Result<(StateConfig, Option<RangeInclusive<u16>>)> {
        let mut config = self.config(dir);
        let key_groups = match mode {
            RestoreMode::Aligned if sources > 1 => {
                return Err(Error::State(
                    "an aligned restore adopts exactly one checkpoint".into(),
                ));
            }
            RestoreMode::Aligned => None,
            RestoreMode::Rebuilt {
                first_key_group,
                last_key_group,
            } => {
                config.always_rebuild = true;
                Some(key_group(*first_key_group)?..=key_group(*last_key_group)?)
            }
        };
        Ok((config, key_groups))
    }
}

/// A checkpoint that `take` publishes at the path it is given, in a fresh temporary
/// directory removed with it.
fn publish(
    take: impl FnOnce(&std::path::Path) -> Result<Checkpoint>,
) -> Result<GroupAggCheckpoint> {
    let dir = temp_dir()?;
    Ok(GroupAggCheckpoint {
        checkpoint: take(&dir.path().join("checkpoint"))?,
        _dir: dir,
    })
}

fn temp_dir() -> Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix("sf-group-agg-")
        .tempdir()
        .map_err(Error::io(
            "create a temporary directory in",
            std::env::temp_dir(),
        ))
}

impl StoreLifecycle for GroupAggLifecycle {
    type Store = GroupAggStore;
    type Input = ChangelogBatch;
    type Output = ChangelogBatch;
    type Checkpoint = GroupAggCheckpoint;
    type Error = Error;

    fn create(&self) -> Result<GroupAggStore> {
        let dir = temp_dir()?;
        let config = self.backend.config(&dir);
        let keyed = Keyed::open(
            &config,
            "group-agg",
            self.spec.max_parallelism,
            all_key_groups(self.spec.max_parallelism)?,
        )?;
        Ok(GroupAggStore {
            operator: GroupAggregate::open(self.spec.clone(), keyed)?,
            _dir: dir,
        })
    }

    /// Processes the batch; a mini-batch plan buffers it until [`StoreLifecycle::fire`].
    fn push(&self, store: &mut GroupAggStore, input: &ChangelogBatch) -> Result<ChangelogBatch> {
        store.operator.process(input)
    }

    /// Flushes the mini-batch bundle: in Flink the mini-batch assigner's watermarks are
    /// what trigger a bundle.
    fn fire(&self, store: &mut GroupAggStore, _watermark: i64) -> Result<ChangelogBatch> {
        store.operator.flush()
    }

    fn checkpoint(&self, store: &mut GroupAggStore) -> Result<GroupAggCheckpoint> {
        publish(|target| store.operator.checkpoint(target))
    }

    /// The production restore ([`GroupAggregate::restore`]), as
    /// [`Backend::restore_config`] sets it up.
    fn restore(
        &self,
        checkpoints: &[GroupAggCheckpoint],
        mode: &RestoreMode,
    ) -> Result<GroupAggStore> {
        let dir = temp_dir()?;
        let (config, key_groups) = self.backend.restore_config(&dir, mode, checkpoints.len())?;
        let key_groups = match key_groups {
            Some(range) => range,
            None => all_key_groups(self.spec.max_parallelism)?,
        };
        let sources: Vec<Checkpoint> = checkpoints.iter().map(|c| c.checkpoint.clone()).collect();
        Ok(GroupAggStore {
            operator: GroupAggregate::restore(self.spec.clone(), &config, key_groups, &sources)?,
            _dir: dir,
        })
    }

    fn close(&self, store: GroupAggStore) -> Result<()> {
        drop(store);
        Ok(())
    }
}

/// Any operator through bench-support's [`StoreLifecycle`], built and restored from its
/// plan by the production path ([`OperatorPlan::build`], [`OperatorPlan::restore`]) and
/// driven through [`Operator`]: what a new operator's suite uses as it is. `fire` is a
/// watermark; a checkpoint needs the operator flushed first.
#[derive(Debug, Clone)]
pub struct OperatorLifecycle {
    /// The plan.
    pub plan: OperatorPlan,
    /// Where state lives.
    pub backend: Backend,
}

/// An operator with the directory holding its RocksDB store.
#[derive(Debug)]
pub struct OperatorStore {
    /// The operator.
    pub operator: Box<dyn Operator>,
    _dir: tempfile::TempDir,
}

impl ArrowBuffers for OperatorStore {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

impl StoreLifecycle for OperatorLifecycle {
    type Store = OperatorStore;
    type Input = ChangelogBatch;
    type Output = Vec<ChangelogBatch>;
    type Checkpoint = GroupAggCheckpoint;
    type Error = Error;

    fn create(&self) -> Result<OperatorStore> {
        let dir = temp_dir()?;
        Ok(OperatorStore {
            operator: self.plan.build(&self.backend.config(&dir), None)?,
            _dir: dir,
        })
    }

    fn push(&self, store: &mut OperatorStore, input: &ChangelogBatch) -> Result<Self::Output> {
        let mut out = Output::new();
        store.operator.process(0, input, &mut out)?;
        Ok(out.take())
    }

    fn fire(&self, store: &mut OperatorStore, watermark: i64) -> Result<Self::Output> {
        let mut out = Output::new();
        store.operator.advance_watermark(watermark, &mut out)?;
        Ok(out.take())
    }

    fn checkpoint(&self, store: &mut OperatorStore) -> Result<GroupAggCheckpoint> {
        publish(|target| store.operator.checkpoint(target))
    }

    fn restore(
        &self,
        checkpoints: &[GroupAggCheckpoint],
        mode: &RestoreMode,
    ) -> Result<OperatorStore> {
        let dir = temp_dir()?;
        let (config, key_groups) = self.backend.restore_config(&dir, mode, checkpoints.len())?;
        let sources: Vec<Checkpoint> = checkpoints.iter().map(|c| c.checkpoint.clone()).collect();
        Ok(OperatorStore {
            operator: self.plan.restore(&config, key_groups, &sources)?,
            _dir: dir,
        })
    }

    fn close(&self, store: OperatorStore) -> Result<()> {
        drop(store);
        Ok(())
    }
}

/// Calc through bench-support's [`CalcEvaluation`]: thin calls into [`crate::calc::compile`]
/// and [`crate::calc::CompiledCalc::evaluate`].
#[derive(Debug, Clone)]
pub struct CalcAdapter {
    /// The Flink types of the input fields (Arrow types alone do not carry them).
    pub input: Vec<crate::types::LogicalType>,
}

impl bench_support::adapters::CalcEvaluation for CalcAdapter {
    type Program = crate::calc::CalcProgram;
    type Compiled = crate::calc::CompiledCalc;
    type Input = ChangelogBatch;
    type Output = ChangelogBatch;
    type Error = crate::calc::CalcError;

    fn compile(
        &self,
        program: &Self::Program,
        input_schema: &arrow::datatypes::SchemaRef,
    ) -> std::result::Result<Self::Compiled, Self::Error> {
        let compiled = crate::calc::compile(program, &self.input)?;
        let expected: Vec<_> = self.input.iter().map(|t| t.to_arrow()).collect();
        let found: Vec<_> = input_schema
            .fields()
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        if expected != found {
            return Err(crate::calc::CalcError::InputSchema {
                expected: self.input.iter().map(ToString::to_string).collect(),
                found: found.iter().map(ToString::to_string).collect(),
            });
        }
        Ok(compiled)
    }

    fn evaluate(
        &self,
        compiled: &mut Self::Compiled,
        input: &Self::Input,
    ) -> std::result::Result<Self::Output, Self::Error> {
        compiled.evaluate(input)
    }
}

/// The two-phase GROUP BY for suites: thin calls into [`crate::aggregate::LocalGroupAggregate`]
/// and [`crate::aggregate::GlobalGroupAggregate`] (memory state). With a mini-batch plan,
/// every batch of one call joins a single bundle that one flush applies.
#[derive(Debug, Clone)]
pub struct TwoPhaseAdapter {
    /// The plan both phases share.
    pub spec: GroupAggSpec,
}

impl TwoPhaseAdapter {
    /// A fresh local phase.
    pub fn local(&self) -> Result<crate::aggregate::LocalGroupAggregate> {
        crate::aggregate::LocalGroupAggregate::new(self.spec.clone())
    }

    /// A fresh global phase on an empty memory backend.
    pub fn global(&self) -> Result<crate::aggregate::GlobalGroupAggregate> {
        crate::aggregate::GlobalGroupAggregate::new(
            self.spec.clone(),
            Box::new(MemoryBackend::new()),
        )
    }

    /// Local update and flush: `inputs` processed, then the bundle flushed; the partial
    /// batches produced, in order.
    pub fn local_update(
        &self,
        local: &mut crate::aggregate::LocalGroupAggregate,
        inputs: &[ChangelogBatch],
    ) -> Result<Vec<arrow::array::RecordBatch>> {
        let mut out = Vec::with_capacity(1);
        for input in inputs {
            let partials = local.process(input)?;
            if partials.num_rows() > 0 {
                out.push(partials);
            }
        }
        out.push(local.flush()?);
        Ok(out)
    }

    /// Global merge and flush: `partials` processed, then the bundle flushed; the changelog
    /// batches produced, in order.
    pub fn global_update(
        &self,
        global: &mut crate::aggregate::GlobalGroupAggregate,
        partials: &[arrow::array::RecordBatch],
    ) -> Result<Vec<ChangelogBatch>> {
        let mut out = Vec::with_capacity(1);
        for batch in partials {
            let changes = global.process(batch)?;
            if changes.num_rows() > 0 {
                out.push(changes);
            }
        }
        out.push(global.flush()?);
        Ok(out)
    }
}
