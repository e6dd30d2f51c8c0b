//! The operator run behind a handle: any native operator, built from its plan and driven
//! through the engine's [`Operator`] interface.
//!
//! # Plan
//!
//! An [`OperatorPlan`] as JSON, its kind in `"operator"` and its own fields beside it:
//!
//! ```json
//! {"operator": "calc", "input": ["BIGINT", "VARCHAR(2147483647)", "INT"],
//!  "calc": {"projection": [{"input": 2}, {"input": 0}],
//!           "filter": {"call": {"op": 207, "args": [{"input": 1}]}}}}
//! {"operator": "group_aggregate", "input_names": ["k", "v"], "input_types": ["BIGINT", "INT"],
//!  "grouping": [0], "calls": [{"function": "SUM", "arg": 1, "name": "s"}],
//!  "input_retracts": false, "generate_update_before": true, "mini_batch_rows": null,
//!  "state_ttl_ms": null, "max_parallelism": 128}
//! ```
//!
//! `local_group_aggregate` and `global_group_aggregate` take the GROUP BY's fields too
//! (`streamfusion::ops::plan` documents every kind).
//!
//! # Runtime settings
//!
//! Where the operator keeps its state is not part of the plan but of the task running it: a
//! second JSON document ([`Runtime`]),
//!
//! ```json
//! {"backend": "rocksdb", "working_dir": "/tmp/flink-task-3/op-7", "key_groups": [0, 63],
//!  "max_parallelism": 128}
//! ```
//!
//! - `backend`: `"memory"` (the default) or `"rocksdb"`;
//! - `working_dir`: the directory the operator's store and restore scratch space live in (a
//!   RocksDB store in `<working_dir>/db`, which must not exist yet); the caller owns it.
//!   Without one, a RocksDB operator makes a fresh temporary directory that it owns and
//!   removes when it is closed;
//! - `key_groups`: `[first, last]`, the key groups the subtask owns (Flink's
//!   `KeyGroupRange`); every key group of the plan's max parallelism by default. Operators
//!   without keyed state ignore it;
//! - `restored_watermark`: on a restore, the lowest watermark of every old subtask, which
//!   the Java operator keeps in union list state as Flink's `WindowAggOperator` does
//!   (`Long.MIN_VALUE` for a subtask that saw none); an operator that restores its watermark
//!   (window aggregation, decision 0030) takes it instead of its own sections' lowest;
//! - `max_parallelism`: the job's number of key groups as the task runs it, which replaces
//!   the plan's (a plan is made before Flink settles it: a keyless aggregate runs at max
//!   parallelism 1, a job may set its own); the plan's by default;
//! - `memory_budget_bytes`: the managed memory Flink gave the operator (reserved in the
//!   task's `MemoryManager` by the Java operator). A memory store counts its entries against
//!   it and a write past it fails with a resource error; a RocksDB store caps its block
//!   cache, memtables and point buffer at it. Without one, a memory store is unbounded and a
//!   RocksDB store takes the checked-in sizes.
//!
//! A null, empty or `null` document means the defaults: memory, every key group.
//!
//! # Rows
//!
//! Rows pushed on input `port` are decoded with the operator's `input_types(port)`; what it
//! emits during one call (any number of batches, in emission order) comes back as one
//! [`Rows`], encoded with its `output_types()`. Each call crosses the boundary once, whatever
//! the number of rows.
//!
//! # Checkpoints
//!
//! Flink's `prepareSnapshotPreBarrier` is [`HostedOperator::prepare_snapshot`]: a
//! mini-batch bundle is applied and its output returned, so no input is left buffered.
//! [`HostedOperator::snapshot`] then publishes the operator's checkpoint at a directory that
//! must not exist yet (`streamfusion::state::checkpoint`: a manifest, the operator metadata
//! naming its plan, and the store's files). [`HostedOperator::restore`] opens such
//! directories (one per old subtask whose key groups overlap) and refuses a checkpoint
//! written for another operator kind, state version or plan semantics with a state error
//! naming what differs.
//!
//! Inside a Flink job the checkpoint travels as raw keyed state instead:
//! [`HostedOperator::snapshot_sections`] cuts it into one section per key group and
//! [`HostedOperator::restore_sections`] builds the operator back from the sections Flink
//! hands a (possibly rescaled) subtask.

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use streamfusion::calc::UpcallHost;
use streamfusion::ops::restore::StateBudget;
use streamfusion::ops::{Operator, OperatorPlan, Output, Port, StateConfig, sections};
use streamfusion::state::BackendKind;
use streamfusion::state::budget::MemoryBudget;
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion_bridge::BridgeError;
use streamfusion_bridge::transpose::{changelog_to_rows, rows_to_changelog};

use crate::error::{NativeError, Result};

/// Rows as they cross the boundary: `BinaryRowData` bytes and `rows + 1` offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rows {
    /// The rows back to back.
    pub data: Vec<u8>,
    /// Row `i` is `data[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<i32>,
}

impl Rows {
    /// No rows.
    pub fn empty() -> Self {
        Self {
            data: Vec::new(),
            offsets: vec![0],
        }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `data` and its `offsets` (which start at 0) after the rows already held.
    fn append(&mut self, data: &[u8], offsets: &[i32]) -> Result<()> {
        let base = self.data.len();
        if i32::try_from(base + data.len()).is_err() {
            return Err(NativeError::Internal(BridgeError::InvalidValue(format!(
                "{} output rows take {} bytes, more than int offsets address",
                self.len() + offsets.len() - 1,
                base + data.len()
            ))));
        }
        let base = base as i32;
        self.data.extend_from_slice(data);
        self.offsets.extend(offsets[1..].iter().map(|o| o + base));
        Ok(())
    }
}

/// Key-group sections (`snapshot_sections`): section `i` is `rows` row `i`, of key group
/// `key_groups[i]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sections {
    /// The sections back to back, with their offsets.
    pub rows: Rows,
    /// Each section's key group.
    pub key_groups: Vec<i32>,
}

/// The runtime settings documented at the top of this module.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Runtime {
    /// The state backend of keyed operators.
    #[serde(default = "memory")]
    pub backend: BackendKind,
    /// The directory the store lives in; `None` for a temporary one (RocksDB) or none at all
    /// (memory).
    #[serde(default)]
    pub working_dir: Option<PathBuf>,
    /// The key groups the subtask owns, `[first, last]`; `None` for every key group.
    #[serde(default)]
    pub key_groups: Option<[u16; 2]>,
    /// The job's max parallelism at run time; `None` keeps the plan's.
    #[serde(default)]
    pub max_parallelism: Option<u32>,
    /// On a restore, the lowest watermark of every old subtask; `None` when not kept.
    #[serde(default)]
    pub restored_watermark: Option<i64>,
    /// The operator's managed memory in bytes; `None` for no budget.
    #[serde(default)]
    pub memory_budget_bytes: Option<u64>,
}

fn memory() -> BackendKind {
    BackendKind::Memory
}

impl Default for Runtime {
    fn default() -> Self {
        Self {
            backend: BackendKind::Memory,
            working_dir: None,
            key_groups: None,
            max_parallelism: None,
            restored_watermark: None,
            memory_budget_bytes: None,
        }
    }
}

impl Runtime {
    /// Parses runtime settings; `None`, a blank string or JSON `null` are the defaults.
    pub fn parse(json: Option<&str>) -> Result<Self> {
        let Some(json) = json.filter(|j| !j.trim().is_empty()) else {
            return Ok(Self::default());
        };
        let runtime: Option<Self> =
            serde_json::from_str(json).map_err(|e| NativeError::InvalidRuntime(e.to_string()))?;
        let runtime = runtime.unwrap_or_default();
        if let Some([first, last]) = runtime.key_groups
            && first > last
        {
            return Err(NativeError::InvalidRuntime(format!(
                "key_groups [{first}, {last}] is not a range: the first is after the last"
            )));
        }
        if runtime
            .working_dir
            .as_ref()
            .is_some_and(|d| d.as_os_str().is_empty())
        {
            return Err(NativeError::InvalidRuntime(
                "working_dir is empty; leave it out for a temporary directory".into(),
            ));
        }
        if runtime.memory_budget_bytes == Some(0) {
            return Err(NativeError::InvalidRuntime(
                "memory_budget_bytes is 0; leave it out for no budget".into(),
            ));
        }
        Ok(runtime)
    }

    /// The JSON `plan` as this task runs it: with the runtime max parallelism.
    fn plan(&self, plan: &str) -> Result<OperatorPlan> {
        let plan = OperatorPlan::from_json(plan)?;
        Ok(match self.max_parallelism {
            Some(max) => plan.with_max_parallelism(max),
            None => plan,
        })
    }

    /// The key groups as a range; `None` for every key group.
    pub fn key_group_range(&self) -> Option<RangeInclusive<u16>> {
        self.key_groups.map(|[first, last]| first..=last)
    }

    /// The state configuration, and the working directory it uses if any.
    fn state_config(&self) -> Result<(StateConfig, Option<WorkingDir>)> {
        let working_dir = match (&self.working_dir, self.backend) {
            (Some(dir), BackendKind::Rocksdb) => {
                // RocksDB creates only the last level of `<working_dir>/db`.
                std::fs::create_dir_all(dir).map_err(|source| streamfusion::Error::Io {
                    operation: "create the working directory",
                    path: dir.clone(),
                    source,
                })?;
                Some(WorkingDir::Given(dir.clone()))
            }
            (Some(dir), BackendKind::Memory) => Some(WorkingDir::Given(dir.clone())),
            (None, BackendKind::Rocksdb) => {
                let temp = tempfile::Builder::new()
                    .prefix("streamfusion-operator-")
                    .tempdir()
                    .map_err(|source| streamfusion::Error::Io {
                        operation: "create a working directory in",
                        path: std::env::temp_dir(),
                        source,
                    })?;
                Some(WorkingDir::Owned(temp))
            }
            (None, BackendKind::Memory) => None,
        };
        let mut config = match &working_dir {
            Some(dir) if self.backend == BackendKind::Rocksdb => StateConfig::rocksdb(dir.path()),
            Some(dir) => StateConfig {
                working_dir: dir.path().to_path_buf(),
                ..StateConfig::memory()
            },
            None => StateConfig::memory(),
        };
        if let Some(bytes) = self.memory_budget_bytes {
            // Flink's MemoryManager holds the reservation; natively the budget is a cap.
            match self.backend {
                BackendKind::Rocksdb => {
                    let limit = usize::try_from(bytes).unwrap_or(usize::MAX);
                    config.rocks = config.rocks.with_memory_limit(limit);
                }
                BackendKind::Memory => {
                    config.budget = Some(StateBudget {
                        budget: MemoryBudget::new(bytes),
                        rocks_bytes: 0,
                    });
                }
            }
        }
        Ok((config, working_dir))
    }
}

/// The directory an operator's store lives in.
#[derive(Debug)]
enum WorkingDir {
    /// Named by the runtime settings: the caller's, left in place on close.
    Given(PathBuf),
    /// Made for the operator: removed when it is dropped.
    Owned(tempfile::TempDir),
}

impl WorkingDir {
    fn path(&self) -> &Path {
        match self {
            WorkingDir::Given(path) => path,
            WorkingDir::Owned(temp) => temp.path(),
        }
    }
}

/// A native operator behind a handle: the engine's operator, the plan it was built from and
/// the working directory its store lives in.
#[derive(Debug)]
pub struct HostedOperator {
    /// Declared first, so dropped first: its store closes before the directory is removed.
    operator: Box<dyn Operator>,
    plan: OperatorPlan,
    working_dir: Option<WorkingDir>,
}

impl HostedOperator {
    /// A fresh operator for the JSON `plan` under the JSON `runtime` settings.
    pub fn create(plan: &str, runtime: Option<&str>) -> Result<Self> {
        let runtime = Runtime::parse(runtime)?;
        let plan = runtime.plan(plan)?;
        let (config, working_dir) = runtime.state_config()?;
        let operator = plan.build(&config, runtime.key_group_range())?;
        Ok(Self {
            operator,
            plan,
            working_dir,
        })
    }

    /// An operator for the JSON `plan` under the JSON `runtime` settings, restored from the
    /// published checkpoint directories `checkpoints` (each verified, and checked to be
    /// written for a plan of the same kind, state version and semantics).
    pub fn restore<P: AsRef<Path>>(
        plan: &str,
        runtime: Option<&str>,
        checkpoints: &[P],
    ) -> Result<Self> {
        let runtime = Runtime::parse(runtime)?;
        let plan = runtime.plan(plan)?;
        let checkpoints = checkpoints
            .iter()
            .map(|dir| Checkpoint::open(dir.as_ref()))
            .collect::<streamfusion::Result<Vec<_>>>()?;
        let (config, working_dir) = runtime.state_config()?;
        let operator = plan.restore(&config, runtime.key_group_range(), &checkpoints)?;
        Ok(Self {
            operator,
            plan,
            working_dir,
        })
    }

    /// The plan.
    pub fn plan(&self) -> &OperatorPlan {
        &self.plan
    }

    /// The engine's operator.
    pub fn operator(&self) -> &dyn Operator {
        self.operator.as_ref()
    }

    /// The directory the store lives in, if the operator has one.
    pub fn working_dir(&self) -> Option<&Path> {
        self.working_dir.as_ref().map(WorkingDir::path)
    }

    /// The current watermark; `None` before the first.
    pub fn watermark(&self) -> Option<i64> {
        self.operator.watermark()
    }

    /// Processes rows arriving on input `port`; returns what the operator emitted.
    pub fn push(&mut self, port: Port, data: &[u8], offsets: &[i32]) -> Result<Rows> {
        let inputs = self.operator.inputs();
        if port >= inputs {
            return Err(NativeError::InvalidArgument(format!(
                "input {port} does not exist: a {} operator has {inputs} input(s)",
                self.plan.kind()
            )));
        }
        let input = rows_to_changelog(data, offsets, self.operator.input_types(port))
            .map_err(NativeError::InvalidInput)?;
        let mut out = Output::new();
        if input.num_rows() > 0 {
            self.operator.process(port, &input, &mut out)?;
        }
        self.encode(out)
    }

    /// Binds the host that evaluates the operator's upcalls (an operator without any ignores
    /// it).
    pub fn bind_upcalls(&mut self, host: Arc<dyn UpcallHost>) -> Result<()> {
        Ok(self.operator.bind_upcalls(host)?)
    }

    /// Moves event time forward (a watermark at or below the current one is ignored); a
    /// mini-batch operator applies its bundle first, so this can emit.
    pub fn advance_watermark(&mut self, watermark: i64) -> Result<Rows> {
        let mut out = Output::new();
        self.operator.advance_watermark(watermark, &mut out)?;
        self.encode(out)
    }

    /// Processing time reached `time`: fires the processing-time timers at or before it.
    pub fn on_processing_time(&mut self, time: i64) -> Result<Rows> {
        let mut out = Output::new();
        self.operator.on_processing_time(time, &mut out)?;
        self.encode(out)
    }

    /// When the operator's earliest processing-time timer is due; `None` without any.
    pub fn next_processing_timer(&mut self) -> Result<Option<i64>> {
        Ok(self.operator.next_processing_timer()?)
    }

    /// Applies and emits whatever is buffered; at end of input too.
    pub fn flush(&mut self) -> Result<Rows> {
        let mut out = Output::new();
        self.operator.flush(&mut out)?;
        self.encode(out)
    }

    /// Flink's `prepareSnapshotPreBarrier`: applies and emits the buffered bundle, so that the
    /// checkpoint [`HostedOperator::snapshot`] takes next holds every input pushed.
    pub fn prepare_snapshot(&mut self) -> Result<Rows> {
        let mut out = Output::new();
        self.operator.prepare_checkpoint(&mut out)?;
        self.encode(out)
    }

    /// Publishes the operator's checkpoint at `dir`, which must not exist yet. Fails while
    /// input is buffered: call [`HostedOperator::prepare_snapshot`] first.
    pub fn snapshot(&mut self, dir: &Path) -> Result<()> {
        self.operator.checkpoint(dir)?;
        Ok(())
    }

    /// The operator's state as Flink raw keyed state: one section per key group it owns
    /// (`streamfusion::ops::sections`), back to back, with the key groups in order. An
    /// operator without keyed state has none. Fails while input is buffered, as
    /// [`HostedOperator::snapshot`] does.
    pub fn snapshot_sections(&mut self) -> Result<Sections> {
        let scratch = self
            .working_dir()
            .map_or_else(std::env::temp_dir, Path::to_path_buf);
        let mut out = Sections {
            rows: Rows::empty(),
            key_groups: Vec::new(),
        };
        sections::snapshot_sections(self.operator.as_mut(), &scratch, &mut |kg, bytes| {
            out.rows
                .append(&bytes, &[0, bytes.len() as i32])
                .map_err(|_| {
                    streamfusion::Error::State(format!(
                        "the subtask's key-group sections pass 2 GiB at key group {kg}, more \
                         than one Java array holds; run the operator at a higher parallelism"
                    ))
                })?;
            out.key_groups.push(i32::from(kg));
            Ok(())
        })?;
        Ok(out)
    }

    /// An operator for the JSON `plan` under the JSON `runtime` settings, restored from the
    /// key-group sections a subtask received (`streamfusion::ops::sections`): they must be
    /// StreamFusion's, written for this plan, and cover the subtask's key groups once each.
    pub fn restore_sections(plan: &str, runtime: Option<&str>, sections: &[&[u8]]) -> Result<Self> {
        let runtime = Runtime::parse(runtime)?;
        let plan = runtime.plan(plan)?;
        let (config, working_dir) = runtime.state_config()?;
        let operator = sections::restore_from_sections(
            &plan,
            &config,
            runtime.key_group_range(),
            sections,
            runtime.restored_watermark,
        )?;
        Ok(Self {
            operator,
            plan,
            working_dir,
        })
    }

    /// Every batch in `out`, encoded as one run of rows in emission order.
    fn encode(&self, mut out: Output) -> Result<Rows> {
        let types = self.operator.output_types();
        let mut rows = Rows::empty();
        for batch in out.take() {
            let (data, offsets) =
                changelog_to_rows(&batch, types).map_err(NativeError::Internal)?;
            if rows.is_empty() {
                rows = Rows { data, offsets };
            } else {
                rows.append(&data, &offsets)?;
            }
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use arrow::array::{
        Array, AsArray, Int32Array, Int64Array, RecordBatch, TimestampMillisecondArray,
    };
    use arrow::datatypes::{Int32Type, Int64Type};
    use streamfusion::ErrorKind;
    use streamfusion::changelog::ChangelogBatch;
    use streamfusion::types::LogicalType;

    use super::*;

    const CALC: &str = r#"{"operator": "calc", "input": ["INT", "INT"],
        "calc": {"projection": [{"call": {"op": 103, "args": [{"input": 0}, {"input": 1}]}},
                                {"input": 1}]}}"#;

    #[test]
    fn a_restored_watermark_is_read_from_the_runtime_settings() {
        let runtime = Runtime::parse(Some(r#"{"restored_watermark": -9223372036854775808}"#))
            .expect("runtime");
        assert_eq!(runtime.restored_watermark, Some(i64::MIN));
        assert_eq!(Runtime::default().restored_watermark, None);
    }

    /// The runtime max parallelism replaces the plan's: a keyless aggregate's task runs with
    /// one key group, and its plan (made before Flink settled that) says 128.
    #[test]
    fn the_runtime_max_parallelism_replaces_the_plans() {
        let plan = group_plan("SUM", None);
        let runtime = Runtime::parse(Some(r#"{"key_groups": [0, 0], "max_parallelism": 1}"#))
            .expect("runtime");
        assert_eq!(runtime.max_parallelism, Some(1));
        let OperatorPlan::GroupAggregate(spec) = runtime.plan(&plan).expect("plan") else {
            panic!("a group aggregate");
        };
        assert_eq!(spec.max_parallelism, 1);
        let OperatorPlan::GroupAggregate(spec) = Runtime::default().plan(&plan).expect("plan")
        else {
            panic!("a group aggregate");
        };
        assert_eq!(spec.max_parallelism, 128);
        // Every key lands in key group 0 of 1, which the subtask owns.
        let mut op = HostedOperator::create(
            &plan,
            Some(r#"{"key_groups": [0, 0], "max_parallelism": 1}"#),
        )
        .expect("operator");
        let keys: Arc<dyn Array> = Arc::new(Int64Array::from(vec![1, 2, 3]));
        let values: Arc<dyn Array> = Arc::new(Int32Array::from(vec![4, 5, 6]));
        let schema = Arc::new(arrow::datatypes::Schema::new(vec![
            arrow::datatypes::Field::new("k", keys.data_type().clone(), true),
            arrow::datatypes::Field::new("v", values.data_type().clone(), true),
        ]));
        let batch = ChangelogBatch::insert_only(
            RecordBatch::try_new(schema, vec![keys, values]).expect("batch"),
        );
        let mut out = streamfusion::ops::Output::new();
        op.operator
            .process(0, &batch, &mut out)
            .expect("every key group is owned");
        op.operator.flush(&mut out).expect("flush");
        assert_eq!(out.num_rows(), 3);
    }

    /// `SELECT k, SUM(v), COUNT(*) GROUP BY k` over insert-only `(k BIGINT, v INT)` rows.
    fn group_plan(function: &str, mini_batch_rows: Option<usize>) -> String {
        let mini_batch = mini_batch_rows.map_or("null".to_string(), |n| n.to_string());
        format!(
            r#"{{"operator": "group_aggregate", "input_names": ["k", "v"],
                "input_types": ["BIGINT", "INT"], "grouping": [0],
                "calls": [{{"function": "{function}", "arg": 1, "name": "s"}},
                          {{"function": "COUNT_STAR", "name": "c"}}],
                "input_retracts": false, "generate_update_before": true,
                "mini_batch_rows": {mini_batch}, "state_ttl_ms": null,
                "max_parallelism": 128}}"#
        )
    }

    fn err_of<T: std::fmt::Debug>(result: Result<T>) -> NativeError {
        result.unwrap_err()
    }

    fn engine_kind(error: &NativeError) -> Option<ErrorKind> {
        match error {
            NativeError::Engine(e) => Some(e.kind()),
            _ => None,
        }
    }

    /// Insert-only rows of two INT columns, as Flink would hand them over.
    fn int_rows(pairs: &[(i32, i32)]) -> (Vec<u8>, Vec<i32>) {
        let batch = RecordBatch::try_from_iter([
            (
                "a",
                Arc::new(Int32Array::from_iter_values(pairs.iter().map(|p| p.0))) as _,
            ),
            (
                "b",
                Arc::new(Int32Array::from_iter_values(pairs.iter().map(|p| p.1))) as _,
            ),
        ])
        .unwrap();
        changelog_to_rows(
            &ChangelogBatch::insert_only(batch),
            &[LogicalType::Int, LogicalType::Int],
        )
        .unwrap()
    }

    /// Insert-only `(k BIGINT, v INT)` rows.
    fn key_value_rows(rows: &[(i64, i32)]) -> (Vec<u8>, Vec<i32>) {
        let batch = RecordBatch::try_from_iter([
            (
                "k",
                Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0))) as _,
            ),
            (
                "v",
                Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.1))) as _,
            ),
        ])
        .unwrap();
        changelog_to_rows(
            &ChangelogBatch::insert_only(batch),
            &[LogicalType::BigInt, LogicalType::Int],
        )
        .unwrap()
    }

    /// Output rows of `(k BIGINT, s INT, c BIGINT)` as `kind|k|s|c`.
    fn group_output(op: &HostedOperator, rows: &Rows) -> Vec<String> {
        let decoded =
            rows_to_changelog(&rows.data, &rows.offsets, op.operator().output_types()).unwrap();
        let batch = decoded.batch();
        let (k, s, c) = (
            batch.column(0).as_primitive::<Int64Type>(),
            batch.column(1).as_primitive::<Int32Type>(),
            batch.column(2).as_primitive::<Int64Type>(),
        );
        (0..decoded.num_rows())
            .map(|i| {
                let kind = ["+I", "-U", "+U", "-D"][decoded.kind(i).to_byte() as usize];
                format!("{kind}|{}|{}|{}", k.value(i), s.value(i), c.value(i))
            })
            .collect()
    }

    /// What immediate-mode `SELECT k, SUM(v), COUNT(*)` with update-before emits for `rows`
    /// after `seen` (rows pushed earlier): `+I` for a new group, else `-U` old and `+U` new.
    fn model(seen: &[(i64, i32)], rows: &[(i64, i32)]) -> Vec<String> {
        let mut groups = BTreeMap::<i64, (i32, i64)>::new();
        for &(k, v) in seen {
            let g = groups.entry(k).or_default();
            *g = (g.0 + v, g.1 + 1);
        }
        let mut out = Vec::new();
        for &(k, v) in rows {
            match groups.get(&k).copied() {
                None => out.push(format!("+I|{k}|{v}|1")),
                Some((s, c)) => {
                    out.push(format!("-U|{k}|{s}|{c}"));
                    out.push(format!("+U|{k}|{}|{}", s + v, c + 1));
                }
            }
            let g = groups.entry(k).or_default();
            *g = (g.0 + v, g.1 + 1);
        }
        out
    }

    fn input(range: std::ops::Range<i64>) -> Vec<(i64, i32)> {
        range.map(|i| (i % 7, (i * 13 % 50) as i32 - 20)).collect()
    }

    #[test]
    fn plan_and_runtime_errors_name_the_problem_and_are_plan_errors() {
        let create =
            |plan: &str, runtime: Option<&str>| err_of(HostedOperator::create(plan, runtime));
        let unknown = create(r#"{"operator": "nope"}"#, None);
        assert_eq!(engine_kind(&unknown), Some(ErrorKind::Plan));
        assert!(
            unknown.to_string().contains("unknown variant `nope`"),
            "{unknown}"
        );
        let untagged = create(r#"{"input": ["INT"]}"#, None).to_string();
        assert!(untagged.contains("operator"), "{untagged}");
        let bad_type = create(
            &group_plan("SUM", None).replace("BIGINT", "BIGGERINT"),
            None,
        );
        assert_eq!(engine_kind(&bad_type), Some(ErrorKind::Plan));
        assert!(bad_type.to_string().contains("BIGGERINT"), "{bad_type}");
        let bad_field = create(
            r#"{"operator": "calc", "input": ["INT"], "calc": {"projection": [{"input": 1}]}}"#,
            None,
        );
        assert_eq!(engine_kind(&bad_field), Some(ErrorKind::Plan));
        assert!(
            bad_field
                .to_string()
                .contains("projection[0]: input field 1 does not exist"),
            "{bad_field}"
        );

        let runtime = |json: &str| create(CALC, Some(json));
        for (json, says) in [
            (r#"{"backend": "tape"}"#, "unknown variant `tape`"),
            (
                r#"{"key_groups": [9, 3]}"#,
                "key_groups [9, 3] is not a range",
            ),
            (r#"{"key_groups": [1]}"#, "expected an array of length 2"),
            (
                r#"{"backend": "memory", "spill": true}"#,
                "unknown field `spill`",
            ),
            (r#"{"working_dir": ""}"#, "working_dir is empty"),
            (r#"{"memory_budget_bytes": 0}"#, "memory_budget_bytes is 0"),
            (r#"{"memory_budget_bytes": -1}"#, "invalid value"),
        ] {
            let err = runtime(json);
            assert!(
                matches!(err, NativeError::InvalidRuntime(_)),
                "{json}: {err:?}"
            );
            assert!(err.to_string().contains(says), "{json}: {err}");
        }
        for defaults in [None, Some(""), Some("  "), Some("null"), Some("{}")] {
            assert_eq!(Runtime::parse(defaults).unwrap(), Runtime::default());
        }
    }

    #[test]
    fn calc_rows_round_trip_and_a_failing_expression_is_a_data_error() {
        let mut op = HostedOperator::create(CALC, None).unwrap();
        assert!(op.working_dir().is_none(), "memory needs no directory");
        let (data, offsets) = int_rows(&[(7, 2), (-9, 4)]);
        let out = op.push(0, &data, &offsets).unwrap();
        assert_eq!(out.len(), 2);
        let decoded =
            rows_to_changelog(&out.data, &out.offsets, op.operator().output_types()).unwrap();
        assert_eq!(
            decoded.batch().column(0).as_ref(),
            &Int32Array::from(vec![3, -2]) as &dyn Array
        );
        assert_eq!(
            decoded.batch().column(1).as_ref(),
            &Int32Array::from(vec![2, 4]) as &dyn Array
        );
        assert!(op.push(0, &[], &[0]).unwrap().is_empty());
        assert!(op.flush().unwrap().is_empty(), "Calc buffers nothing");

        let (data, offsets) = int_rows(&[(1, 0)]);
        let err = op.push(0, &data, &offsets).unwrap_err();
        assert_eq!(engine_kind(&err), Some(ErrorKind::Data), "{err:?}");
        assert!(err.to_string().contains("/ by zero"), "{err}");

        let err = op.push(0, &data, &[0, data.len() as i32 + 8]).unwrap_err();
        assert!(matches!(err, NativeError::InvalidInput(_)), "{err:?}");
        let err = op.push(1, &data, &offsets).unwrap_err();
        assert!(matches!(err, NativeError::InvalidArgument(_)), "{err:?}");
        assert!(
            err.to_string().contains("calc operator has 1 input"),
            "{err}"
        );
    }

    #[test]
    fn batches_emitted_in_one_call_come_back_as_one_run_of_rows_in_order() {
        let (first, first_offsets) = int_rows(&[(1, 2), (3, 4)]);
        let (second, second_offsets) = int_rows(&[(5, 6)]);
        let mut rows = Rows {
            data: first,
            offsets: first_offsets,
        };
        rows.append(&second, &second_offsets).unwrap();
        assert_eq!(rows.len(), 3);
        let decoded = rows_to_changelog(
            &rows.data,
            &rows.offsets,
            &[LogicalType::Int, LogicalType::Int],
        )
        .unwrap();
        assert_eq!(
            decoded.batch().column(0).as_ref(),
            &Int32Array::from(vec![1, 3, 5]) as &dyn Array
        );
    }

    #[test]
    fn a_group_by_continues_from_its_checkpoint_on_either_backend() {
        let plan = group_plan("SUM", None);
        let all = input(0..300);
        let (first, second) = all.split_at(120);
        let dir = tempfile::tempdir().unwrap();

        let mut op = HostedOperator::create(&plan, Some(r#"{"backend": "rocksdb"}"#)).unwrap();
        let owned = op.working_dir().unwrap().to_path_buf();
        assert!(
            owned.join("db").is_dir(),
            "the store lives in the working directory"
        );
        let (data, offsets) = key_value_rows(first);
        let out = op.push(0, &data, &offsets).unwrap();
        assert_eq!(group_output(&op, &out), model(&[], first));
        assert!(op.advance_watermark(1_000).unwrap().is_empty());
        assert!(op.prepare_snapshot().unwrap().is_empty(), "immediate mode");
        let checkpoint = dir.path().join("checkpoint-1");
        op.snapshot(&checkpoint).unwrap();
        let err = op.snapshot(&checkpoint).unwrap_err();
        assert_eq!(engine_kind(&err), Some(ErrorKind::State), "{err:?}");
        drop(op);
        assert!(
            !owned.exists(),
            "an owned working directory is removed on close"
        );

        let given = dir.path().join("given/working");
        for runtime in [
            None,
            Some(r#"{"backend": "rocksdb"}"#.to_string()),
            Some(format!(
                r#"{{"backend": "rocksdb", "working_dir": "{}", "key_groups": [0, 127]}}"#,
                given.display()
            )),
        ] {
            let mut restored =
                HostedOperator::restore(&plan, runtime.as_deref(), &[&checkpoint]).unwrap();
            // A GROUP BY's timer service restarts without a watermark (decision 0030).
            assert_eq!(restored.watermark(), None, "{runtime:?}");
            let (data, offsets) = key_value_rows(second);
            let out = restored.push(0, &data, &offsets).unwrap();
            assert_eq!(
                group_output(&restored, &out),
                model(first, second),
                "{runtime:?}"
            );
        }
        assert!(
            given.join("db").is_dir(),
            "a given working directory is kept"
        );
    }

    #[test]
    fn a_memory_budget_caps_a_memory_store_and_holds_a_restored_one() {
        let plan = group_plan("SUM", None);
        let rows: Vec<(i64, i32)> = (0..300).map(|k| (k, 1)).collect();
        let (data, offsets) = key_value_rows(&rows);
        // 300 groups take well over 4 KiB (key, accumulators and 64 bytes an entry).
        let small = Some(r#"{"memory_budget_bytes": 4096}"#);
        let mut op = HostedOperator::create(&plan, small).unwrap();
        let err = op.push(0, &data, &offsets).unwrap_err();
        assert_eq!(
            engine_kind(&err),
            Some(ErrorKind::ResourceExhausted),
            "{err:?}"
        );
        assert!(err.to_string().contains("of 4096 reserved"), "{err}");
        // Within a budget that fits, the rows give the model's result, on either backend.
        for runtime in [
            r#"{"memory_budget_bytes": 1048576}"#,
            r#"{"backend": "rocksdb", "memory_budget_bytes": 8388608}"#,
        ] {
            let mut op = HostedOperator::create(&plan, Some(runtime)).unwrap();
            let out = op.push(0, &data, &offsets).unwrap();
            assert_eq!(group_output(&op, &out), model(&[], &rows), "{runtime}");
        }
        // A restored memory store holds its entries in its new budget.
        let dir = tempfile::tempdir().unwrap();
        let mut op = HostedOperator::create(&plan, None).unwrap();
        op.push(0, &data, &offsets).unwrap();
        assert!(op.prepare_snapshot().unwrap().is_empty());
        let checkpoint = dir.path().join("checkpoint");
        op.snapshot(&checkpoint).unwrap();
        let err = HostedOperator::restore(&plan, small, &[&checkpoint]).unwrap_err();
        assert_eq!(
            engine_kind(&err),
            Some(ErrorKind::ResourceExhausted),
            "{err:?}"
        );
        let fits = Some(r#"{"memory_budget_bytes": 1048576}"#);
        let mut restored = HostedOperator::restore(&plan, fits, &[&checkpoint]).unwrap();
        let (more, more_offsets) = key_value_rows(&rows[..10]);
        let out = restored.push(0, &more, &more_offsets).unwrap();
        assert_eq!(group_output(&restored, &out), model(&rows, &rows[..10]));
    }

    /// A processing-time LEFT interval join of `(k BIGINT, t TIMESTAMP(3))` rows, within
    /// 10 ms either side.
    const PROCTIME_JOIN: &str = r#"{"operator": "interval_join", "join_type": "left",
        "left": {"names": ["k", "t"], "types": ["BIGINT", "TIMESTAMP(3)"], "keys": [0],
                 "time_column": 1},
        "right": {"names": ["k2", "t2"], "types": ["BIGINT", "TIMESTAMP(3)"], "keys": [0],
                  "time_column": 1},
        "filter_nulls": [true], "condition": null, "lower_bound": -10, "upper_bound": 10,
        "max_parallelism": 128, "processing_time": true}"#;

    fn timed_rows(rows: &[(i64, i64)]) -> (Vec<u8>, Vec<i32>) {
        let batch = RecordBatch::try_from_iter([
            (
                "k",
                Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0))) as _,
            ),
            (
                "t",
                Arc::new(TimestampMillisecondArray::from_iter_values(
                    rows.iter().map(|r| r.1),
                )) as _,
            ),
        ])
        .unwrap();
        changelog_to_rows(
            &ChangelogBatch::insert_only(batch),
            &[LogicalType::BigInt, LogicalType::Timestamp(3)],
        )
        .unwrap()
    }

    fn now_millis() -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64
    }

    #[test]
    fn a_processing_time_join_reads_the_system_clock_and_fires_its_timers_when_called() {
        for backend in ["memory", "rocksdb"] {
            let runtime = format!(r#"{{"backend": "{backend}"}}"#);
            let mut op = HostedOperator::create(PROCTIME_JOIN, Some(&runtime)).unwrap();
            assert_eq!(op.next_processing_timer().unwrap(), None);
            let (data, offsets) = timed_rows(&[(1, 0)]);
            let before = now_millis();
            assert!(op.push(0, &data, &offsets).unwrap().is_empty());
            let after = now_millis();
            // The row is cached at the processing time it was pushed at; its cleanup timer is
            // 10 + 1 ms later.
            let timer = op
                .next_processing_timer()
                .unwrap()
                .expect("a cleanup timer");
            assert!(
                (before + 11..=after + 11).contains(&timer),
                "{before} <= {timer} - 11 <= {after}"
            );
            // A call before the timer fires nothing; at it, the unmatched left row is padded
            // (its time column as it came: 0), once the clock has passed it as well.
            assert!(op.on_processing_time(timer - 1).unwrap().is_empty());
            while now_millis() <= timer {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let padded = op.on_processing_time(timer).unwrap();
            let decoded =
                rows_to_changelog(&padded.data, &padded.offsets, op.operator().output_types())
                    .unwrap();
            assert_eq!(decoded.num_rows(), 1);
            let batch = decoded.batch();
            assert_eq!(batch.column(0).as_primitive::<Int64Type>().value(0), 1);
            assert!(batch.column(2).is_null(0) && batch.column(3).is_null(0));
            assert_eq!(op.next_processing_timer().unwrap(), None);
        }
    }

    #[test]
    fn a_mini_batch_group_by_emits_on_a_watermark_and_before_a_snapshot() {
        let plan = group_plan("SUM", Some(10_000));
        let mut op = HostedOperator::create(&plan, None).unwrap();
        let rows = input(0..50);
        let (data, offsets) = key_value_rows(&rows);
        assert!(op.push(0, &data, &offsets).unwrap().is_empty(), "buffered");
        let mut sums = BTreeMap::<i64, (i32, i64)>::new();
        for &(k, v) in &rows {
            let g = sums.entry(k).or_default();
            *g = (g.0 + v, g.1 + 1);
        }
        let on_watermark = op.advance_watermark(5).unwrap();
        let mut emitted = group_output(&op, &on_watermark);
        emitted.sort();
        let expected: Vec<String> = sums
            .iter()
            .map(|(k, (s, c))| format!("+I|{k}|{s}|{c}"))
            .collect();
        assert_eq!(emitted, expected);

        assert!(op.push(0, &data, &offsets).unwrap().is_empty());
        let dir = tempfile::tempdir().unwrap();
        let err = op.snapshot(&dir.path().join("early")).unwrap_err();
        assert_eq!(engine_kind(&err), Some(ErrorKind::State), "{err:?}");
        let prepared = op.prepare_snapshot().unwrap();
        assert_eq!(prepared.len(), 2 * sums.len(), "-U and +U per group");
        op.snapshot(&dir.path().join("prepared")).unwrap();
    }

    #[test]
    fn a_checkpoint_restored_under_another_plan_is_a_state_error_naming_the_difference() {
        let dir = tempfile::tempdir().unwrap();
        let sum = dir.path().join("sum");
        let mut op = HostedOperator::create(&group_plan("SUM", None), None).unwrap();
        let (data, offsets) = key_value_rows(&input(0..20));
        op.push(0, &data, &offsets).unwrap();
        op.snapshot(&sum).unwrap();

        let err = HostedOperator::restore(&group_plan("MAX", None), None, &[&sum]).unwrap_err();
        assert_eq!(engine_kind(&err), Some(ErrorKind::State), "{err:?}");
        assert!(
            err.to_string()
                .contains(r#"calls[0].function: checkpoint "SUM", plan "MAX""#),
            "{err}"
        );
        let err = HostedOperator::restore(CALC, None, &[&sum]).unwrap_err();
        assert_eq!(engine_kind(&err), Some(ErrorKind::State), "{err:?}");
        assert!(err.to_string().contains("group_aggregate"), "{err}");

        // A renamed output column is not a different plan.
        let renamed = group_plan("SUM", None).replace(r#""name": "s""#, r#""name": "total""#);
        HostedOperator::restore(&renamed, None, &[&sum]).unwrap();

        let err = HostedOperator::restore(CALC, None, &[dir.path().join("missing")]).unwrap_err();
        assert_eq!(engine_kind(&err), Some(ErrorKind::State), "{err:?}");
        assert!(
            err.to_string().contains("MANIFEST.json is missing"),
            "{err}"
        );
    }

    /// Raw keyed state as a Flink task keeps it: one subtask's sections, regrouped for two
    /// subtasks by key group, continue every key (the model of the whole input is the
    /// oracle); a plan without keyed state has no sections.
    #[test]
    fn key_group_sections_restore_a_group_by_into_two_subtasks() {
        let plan = group_plan("SUM", None);
        let all = input(0..300);
        let (first, second) = all.split_at(120);
        let mut op = HostedOperator::create(&plan, Some(r#"{"backend": "rocksdb"}"#)).unwrap();
        let (data, offsets) = key_value_rows(first);
        op.push(0, &data, &offsets).unwrap();
        let sections = op.snapshot_sections().unwrap();
        assert_eq!(sections.key_groups, (0..128).collect::<Vec<i32>>());
        assert_eq!(sections.rows.len(), 128);

        let mut got = BTreeMap::<i64, String>::new();
        for (first_kg, last_kg) in [(0, 63), (64, 127)] {
            let mine: Vec<&[u8]> = (first_kg..=last_kg)
                .map(|kg| {
                    let o = &sections.rows.offsets;
                    &sections.rows.data[o[kg] as usize..o[kg + 1] as usize]
                })
                .collect();
            let runtime = format!(r#"{{"key_groups": [{first_kg}, {last_kg}]}}"#);
            let mut restored =
                HostedOperator::restore_sections(&plan, Some(&runtime), &mine).unwrap();
            let groups = streamfusion::keys::KeyHasher::new(vec![LogicalType::BigInt])
                .key_groups(
                    &[Arc::new(Int64Array::from_iter_values(second.iter().map(|r| r.0))) as _],
                    128,
                )
                .unwrap();
            let routed: Vec<(i64, i32)> = second
                .iter()
                .zip(groups)
                .filter(|(_, g)| (first_kg..=last_kg).contains(&(*g as usize)))
                .map(|(r, _)| *r)
                .collect();
            let (data, offsets) = key_value_rows(&routed);
            let out = restored.push(0, &data, &offsets).unwrap();
            for line in group_output(&restored, &out) {
                let key: i64 = line.split('|').nth(1).unwrap().parse().unwrap();
                got.insert(key, line);
            }
        }
        // The last row per key the model emits for the second half.
        let mut want = BTreeMap::<i64, String>::new();
        for line in model(first, second) {
            let key: i64 = line.split('|').nth(1).unwrap().parse().unwrap();
            want.insert(key, line);
        }
        assert_eq!(got, want);

        let mut calc = HostedOperator::create(CALC, None).unwrap();
        assert!(calc.snapshot_sections().unwrap().key_groups.is_empty());
        let err = HostedOperator::restore_sections(&plan, None, &[b"not a section"]).unwrap_err();
        assert_eq!(engine_kind(&err), Some(ErrorKind::State), "{err:?}");
    }
}
