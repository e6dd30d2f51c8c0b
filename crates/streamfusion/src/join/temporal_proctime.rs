//! Temporal join in processing time: Flink's `TemporalProcessTimeJoinOperator`, the plan of a
//! temporal table function join `L, LATERAL TABLE(F(L.pt)) AS R WHERE L.k = R.k`, `F` a
//! temporal table function over `R` keyed by `k` with a processing-time attribute.
//!
//! # Rows
//!
//! Each key keeps its latest right row: an accumulating row (`+I`, `+U`) replaces it, a
//! retraction (`-U`, `-D`) clears it. A left row is joined as it arrives with its key's right
//! row, if any: `[left, right]` in the left row's kind when the non-equi condition is TRUE;
//! otherwise nothing, or for a LEFT join `[left, NULL..]` (Flink plans these joins INNER only;
//! the operator pads as Flink's would). Left rows are not kept. There is no NULL filter: rows
//! of the same key bytes meet, NULLs included, as Flink's keyed state has them. Watermarks
//! fire nothing; the time columns are not read (the inputs' rows are processed at one
//! instant per call, decision 0051).
//!
//! # State retention
//!
//! With [`ProcTimeTemporalJoinSpec::state_retention`] (`table.exec.state.ttl`) each key's
//! right row has a cleanup timer ([`super::retention`]): a right row stored renews it, a
//! retraction deletes it with the row (`cleanupLastTimer`), and a left row that found a right
//! row renews it, whether or not the condition held (one that found none does not). When it
//! fires, the key's right row is cleared.
//!
//! # State
//!
//! `temporal_join_proctime.right`: `[key group][key row]` -> the cleanup timer (a flag and a
//! little-endian `i64`) and the right row's `BinaryRowData`, while the key has one: the
//! timer exists exactly while the row does. Timers live in the keyed driver's processing-time
//! timer table. Checkpointed and rescaled with its key groups.

use std::path::Path;

use arrow::array::{Int8Array, RecordBatch};
use arrow::datatypes::SchemaRef;
use serde::{Deserialize, Serialize};

use super::pairs::{RowBuffer, TimedJoinIo, joined_rows, verdicts};
use super::retention::{self, CleanupTimers, StateRetention};
use super::{Condition, JoinColumns, JoinType, check_join};
use crate::aggregate::group::check_columns;
use crate::calc::CalcProgram;
use crate::changelog::{ChangelogBatch, RowKind};
use crate::error::{Error, Result};
use crate::ops::keyed::{Keyed, KeyedOperator};
use crate::ops::{Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::state::timers::Timer;
use crate::state::{TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;

/// The version of the state layout described above.
pub const STATE_VERSION: u32 = 1;
const RIGHT: &str = "temporal_join_proctime.right";
/// The bytes of a stored value before the row: the cleanup timer's flag and time.
const VALUE_HEADER: usize = 9;

/// One input of a processing-time temporal join: its columns and join keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyedInput {
    /// Column names (the output's, for this input's part).
    pub names: Vec<String>,
    /// Column types.
    pub types: Vec<LogicalType>,
    /// The join key columns, pairwise with the other input's.
    pub keys: Vec<usize>,
}

impl KeyedInput {
    fn columns(&self) -> JoinColumns<'_> {
        JoinColumns {
            names: &self.names,
            types: &self.types,
            keys: &self.keys,
            more: &[],
        }
    }
}

/// A processing-time temporal join plan, as JSON: `{"join_type": "inner", "left": {"names":
/// ["k", "v", "pt"], "types": [...], "keys": [0]}, "right": {...}, "condition": null,
/// "max_parallelism": 128, "state_retention": {"min_ms": 1000, "max_ms": 1500}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcTimeTemporalJoinSpec {
    /// INNER or LEFT.
    pub join_type: JoinType,
    /// The left (probe) input.
    pub left: KeyedInput,
    /// The right input: the temporal table's changelog.
    pub right: KeyedInput,
    /// The non-equi condition: a program over the joined row (left columns, then right)
    /// projecting one BOOLEAN; a left row joins the right row when it is TRUE.
    pub condition: Option<CalcProgram>,
    /// The job's max parallelism (number of key groups).
    pub max_parallelism: u32,
    /// Flink's state retention (`table.exec.state.ttl`): a key idle that long in processing
    /// time loses its right row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_retention: Option<StateRetention>,
}

impl ProcTimeTemporalJoinSpec {
    /// What a checkpoint must agree on to be restored: the inputs' types and keys.
    pub fn semantics(&self) -> serde_json::Value {
        let input = |i: &KeyedInput| {
            serde_json::json!({
                "types": i.types.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "keys": i.keys,
            })
        };
        serde_json::json!({"left": input(&self.left), "right": input(&self.right)})
    }

    fn input(&self, port: Port) -> &KeyedInput {
        if port == 0 { &self.left } else { &self.right }
    }
}

/// A key's stored right row and its cleanup timer.
#[derive(Debug, Clone, PartialEq)]
struct Stored {
    cleanup: Option<i64>,
    row: Vec<u8>,
}

impl Stored {
    fn decode(value: &[u8]) -> Result<Self> {
        if value.len() < VALUE_HEADER {
            return Err(Error::State(format!(
                "a processing-time temporal join entry of {} bytes, under its \
                 {VALUE_HEADER}-byte header",
                value.len()
            )));
        }
        let time = i64::from_le_bytes(value[1..VALUE_HEADER].try_into().expect("8 bytes"));
        Ok(Self {
            cleanup: (value[0] != 0).then_some(time),
            row: value[VALUE_HEADER..].to_vec(),
        })
    }

    fn encode(&self) -> Vec<u8> {
        let mut value = Vec::with_capacity(VALUE_HEADER + self.row.len());
        value.push(u8::from(self.cleanup.is_some()));
        value.extend_from_slice(&self.cleanup.unwrap_or(0).to_le_bytes());
        value.extend_from_slice(&self.row);
        value
    }
}

/// The processing-time temporal join over one task's keyed state.
pub struct ProcTimeTemporalJoin {
    spec: ProcTimeTemporalJoinSpec,
    identity: PlanIdentity,
    keyed: Keyed,
    io: TimedJoinIo,
    right: TableId,
    condition: Option<Condition>,
}

impl std::fmt::Debug for ProcTimeTemporalJoin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcTimeTemporalJoin")
            .field("join_type", &self.spec.join_type)
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

impl ProcTimeTemporalJoin {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &ProcTimeTemporalJoinSpec) -> PlanIdentity {
        PlanIdentity::new(
            OperatorKind::ProcTimeTemporalJoin,
            STATE_VERSION,
            &spec.semantics(),
        )
    }

    /// An operator for `spec` over the keyed driver `keyed` (fresh or restored); a plan it
    /// cannot run as Flink would is an error.
    pub fn open(spec: ProcTimeTemporalJoinSpec, mut keyed: Keyed) -> Result<Self> {
        let condition = check_spec(&spec)?;
        if keyed.max_parallelism() != spec.max_parallelism {
            return Err(Error::OutOfRange(format!(
                "the plan's max parallelism is {} but its state has {} key groups",
                spec.max_parallelism,
                keyed.max_parallelism()
            )));
        }
        let right = keyed
            .store_mut()
            .open_table_with(RIGHT, TableAccess::Point)?;
        Ok(Self {
            identity: Self::identity_of(&spec),
            io: TimedJoinIo::of(spec.left.columns(), spec.right.columns()),
            right,
            condition,
            keyed,
            spec,
        })
    }

    /// The plan.
    pub fn spec(&self) -> &ProcTimeTemporalJoinSpec {
        &self.spec
    }

    /// The stored right rows of `state_keys`, with one batched read.
    fn read(&self, state_keys: &[&[u8]]) -> Result<Vec<Option<Stored>>> {
        let mut stored = vec![None; state_keys.len()];
        self.keyed
            .store()
            .multi_get_each(self.right, state_keys, &mut |i, value| {
                if let Some(value) = value {
                    stored[i] = Some(Stored::decode(value)?);
                }
                Ok(())
            })?;
        Ok(stored)
    }

    /// Writes each key's right row where it changed (from `before` to `after`), and moves
    /// its cleanup timer with it.
    fn write(
        &mut self,
        state_keys: &[&[u8]],
        before: &[Option<Stored>],
        after: &[Option<Stored>],
    ) -> Result<()> {
        let mut write = WriteBatch::new();
        let mut cleanups = CleanupTimers::default();
        for ((state_key, before), after) in state_keys.iter().zip(before).zip(after) {
            if before == after {
                continue;
            }
            match after {
                Some(stored) => write.put(self.right, state_key, stored.encode()),
                None => write.delete(self.right, state_key),
            }
            let cleanup = |s: &Option<Stored>| s.as_ref().and_then(|s| s.cleanup);
            cleanups.change(state_key, cleanup(before), cleanup(after));
        }
        self.keyed.store_mut().write(&write)?;
        cleanups.apply(&mut self.keyed)
    }

    /// A batch of the right input: each key's row replaced or cleared, in row order.
    fn store_right(&mut self, input: &ChangelogBatch) -> Result<()> {
        let batch = input.batch();
        let (groups, row_group) =
            self.keyed
                .groups(&self.io.hasher, batch, &self.spec.right.keys)?;
        let state_keys: Vec<&[u8]> = (0..groups.len()).map(|g| groups.key(g)).collect();
        let before = self.read(&state_keys)?;
        let mut after = before.clone();
        let rows = self.io.writers[1].write(batch.columns())?;
        let retention = self.spec.state_retention;
        let now = retention::now(retention, &self.keyed);
        for (r, &g) in row_group.iter().enumerate() {
            let stored = &mut after[g as usize];
            if input.kind(r).is_accumulate() {
                let current = stored.as_ref().and_then(|s| s.cleanup);
                let cleanup = retention.and_then(|ret| ret.renewed(now, current).or(current));
                *stored = Some(Stored {
                    cleanup,
                    row: rows.row(r).to_vec(),
                });
            } else {
                *stored = None;
            }
        }
        self.write(&state_keys, &before, &after)
    }

    /// A batch of the left input: each row joined with its key's right row as it stands.
    fn probe(&mut self, input: &ChangelogBatch) -> Result<ChangelogBatch> {
        let batch = input.batch();
        let (groups, row_group) =
            self.keyed
                .groups(&self.io.hasher, batch, &self.spec.left.keys)?;
        let state_keys: Vec<&[u8]> = (0..groups.len()).map(|g| groups.key(g)).collect();
        let before = self.read(&state_keys)?;
        // Each key's right row, decoded once.
        let mut decoded = RowBuffer::new();
        let index: Vec<Option<u32>> = before
            .iter()
            .map(|s| s.as_ref().map(|s| decoded.push(&s.row)))
            .collect();
        let right = self.io.readers[1].read(&decoded.data, &decoded.offsets)?;
        let met: Vec<(u32, u32)> = row_group
            .iter()
            .enumerate()
            .filter_map(|(r, &g)| Some((r as u32, index[g as usize]?)))
            .collect();
        let accepted = match &self.condition {
            None => None,
            Some(condition) => {
                let (lefts, rights): (Vec<u32>, Vec<u32>) = met.iter().copied().unzip();
                Some(verdicts(condition, batch, right.batch(), &lefts, &rights)?)
            }
        };
        let mut matched: Vec<Option<u32>> = vec![None; row_group.len()];
        for (m, &(r, i)) in met.iter().enumerate() {
            if accepted.as_ref().is_none_or(|a| a[m]) {
                matched[r as usize] = Some(i);
            }
        }
        let left_outer = self.spec.join_type == JoinType::Left;
        let (mut lefts, mut rights, mut kinds) = (Vec::new(), Vec::new(), Vec::new());
        for (r, matched) in matched.into_iter().enumerate() {
            if matched.is_some() || left_outer {
                lefts.push(Some(r as u32));
                rights.push(matched);
                kinds.push(input.kind(r).to_byte());
            }
        }
        // A left row that found a right row renews its key's cleanup timer: only the keys
        // whose timer moves are written.
        if let Some(retention) = self.spec.state_retention {
            let now = retention::now(self.spec.state_retention, &self.keyed);
            let (mut keys, mut was, mut is) = (Vec::new(), Vec::new(), Vec::new());
            for (&state_key, stored) in state_keys.iter().zip(&before) {
                let Some(stored) = stored else { continue };
                if let Some(at) = retention.renewed(now, stored.cleanup) {
                    keys.push(state_key);
                    was.push(Some(stored.clone()));
                    is.push(Some(Stored {
                        cleanup: Some(at),
                        row: stored.row.clone(),
                    }));
                }
            }
            self.write(&keys, &was, &is)?;
        }
        if lefts.is_empty() {
            return Ok(self.empty());
        }
        let joined = joined_rows(&self.io.schema, batch, Some(right.batch()), lefts, rights)?;
        if kinds.iter().all(|&k| k == RowKind::Insert.to_byte()) {
            return Ok(joined);
        }
        let (batch, _) = joined.into_parts();
        ChangelogBatch::try_new(batch, Some(Int8Array::from(kinds)))
    }

    /// Clears the right row of every key whose cleanup timer is among `due`.
    fn clean(&mut self, due: &[Timer]) -> Result<()> {
        let owned: Vec<Vec<u8>> = due.iter().map(Timer::state_key).collect();
        let state_keys: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let before = self.read(&state_keys)?;
        let mut write = WriteBatch::new();
        for ((state_key, stored), timer) in state_keys.iter().zip(&before).zip(due) {
            if stored.as_ref().and_then(|s| s.cleanup) == Some(timer.timestamp) {
                write.delete(self.right, state_key);
            }
        }
        self.keyed.store_mut().write(&write)
    }

    fn empty(&self) -> ChangelogBatch {
        ChangelogBatch::insert_only(RecordBatch::new_empty(self.io.schema.clone()))
    }
}

/// Checks the plan; returns its compiled condition.
fn check_spec(spec: &ProcTimeTemporalJoinSpec) -> Result<Option<Condition>> {
    if !matches!(spec.join_type, JoinType::Inner | JoinType::Left) {
        return Err(Error::Plan(format!(
            "a temporal join is INNER or LEFT, not {:?}",
            spec.join_type
        )));
    }
    if let Some(retention) = &spec.state_retention {
        retention.check()?;
    }
    // No NULL filter: the key's rows meet by their bytes.
    check_join(
        spec.left.columns(),
        spec.right.columns(),
        &vec![false; spec.left.keys.len()],
        spec.condition.as_ref(),
    )
}

impl Operator for ProcTimeTemporalJoin {
    fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    fn inputs(&self) -> usize {
        2
    }

    fn input_types(&self, port: Port) -> &[LogicalType] {
        &self.spec.input(port).types
    }

    fn output_types(&self) -> &[LogicalType] {
        &self.io.output_types
    }

    fn output_schema(&self) -> SchemaRef {
        self.io.schema.clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        let context = match port {
            0 => "temporal join left batch",
            1 => "temporal join right batch",
            _ => {
                return Err(Error::OutOfRange(format!(
                    "a temporal join has two inputs; a batch arrived on input {port}"
                )));
            }
        };
        check_columns(context, &self.spec.input(port).types, input.batch())?;
        if input.num_rows() == 0 {
            return Ok(());
        }
        if port == 0 {
            out.emit(self.probe(input)?);
            Ok(())
        } else {
            self.store_right(input)
        }
    }

    fn advance_watermark(&mut self, watermark: i64, _out: &mut Output) -> Result<()> {
        self.keyed.advance_watermark(watermark);
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.keyed.watermark()
    }

    fn on_processing_time(&mut self, time: i64, _out: &mut Output) -> Result<()> {
        if self.spec.state_retention.is_none() {
            return Ok(());
        }
        let due = self.keyed.fire_processing_timers(time)?;
        self.clean(&due)
    }

    fn next_processing_timer(&mut self) -> Result<Option<i64>> {
        if self.spec.state_retention.is_none() {
            return Ok(None);
        }
        self.keyed.next_processing_timer()
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

impl KeyedOperator for ProcTimeTemporalJoin {
    type Spec = ProcTimeTemporalJoinSpec;
    const HOLDER: &'static str = "proctime-temporal-join";

    fn identity_of(spec: &ProcTimeTemporalJoinSpec) -> PlanIdentity {
        Self::identity_of(spec)
    }

    fn max_parallelism(spec: &ProcTimeTemporalJoinSpec) -> u32 {
        spec.max_parallelism
    }

    fn open(spec: ProcTimeTemporalJoinSpec, keyed: Keyed) -> Result<Self> {
        Self::open(spec, keyed)
    }
}
