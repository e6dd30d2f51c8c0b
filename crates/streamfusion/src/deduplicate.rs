//! Deduplication: Flink's `StreamExecDeduplicate`, the plan of
//! `ROW_NUMBER() OVER (PARTITION BY k ORDER BY <time attribute> [DESC]) = 1` (released Flink
//! 2.3.0's `StreamExecDeduplicate` translators and `deduplicate` functions).
//!
//! | plan | Flink's function | emits |
//! |---|---|---|
//! | proctime, first | `ProcTimeDeduplicateKeepFirstRowFunction` (mini-batch: `ProcTimeMiniBatch...KeepFirstRowFunction`) | `+I` of a key's first row |
//! | proctime, last | `ProcTimeDeduplicateKeepLastRowFunction` (and its mini-batch form) | `+I`, then `-U`/`+U` per change |
//! | rowtime, last; rowtime, first with mini-batch | `RowTimeDeduplicateFunction`, `RowTimeMiniBatchDeduplicateFunction` | `+I`, then `-U`/`+U` when a row wins |
//! | rowtime, first, insert-only output | `RowTimeDeduplicateKeepFirstRowFunction` | `+I` on the winner's timer |
//!
//! Input must be insert-only, as Flink's `checkInsertOnly` requires.
//!
//! # Emission
//!
//! - Proctime keep-last (`processLastRowOnProcTime`): without `-U` and without
//!   `table.exec.deduplicate.insert-update-after-sensitive-enabled` every row is `+U` and
//!   there is no state. Otherwise a key's first row is `+I`; a later row is `-U` (of the
//!   previous row, when `-U` is generated) then `+U`, except that a row equal to the
//!   previous one emits nothing while state TTL is off. "Equal" is Flink's
//!   `BinaryRowData.equals`: the bytes, header (row kind) included. Flink's heap backend
//!   keeps the row object that was stored, whose kind is then set to `+U` when it is
//!   emitted as an update, so on the memory backend a row stored by an update never equals
//!   the next one; RocksDB serializes the row as it arrived (`+I`). The stored rows here
//!   carry the header byte each backend's Flink state holds, so both behave as Flink's.
//! - Rowtime (`shouldKeepCurrentRow`): keep-last keeps a row whose rowtime is at or after
//!   the kept one's (a tie goes to the later row), keep-first one strictly before it; a kept
//!   row emits as `updateDeduplicateResult` says (`+I` first, then `-U`/`+U`, no equality
//!   check). Rowtime is read as Flink reads it, `getLong` of the field: epoch milliseconds,
//!   0 for NULL.
//! - Rowtime keep-first with insert-only output: a row earlier than the watermark is
//!   dropped, so is every row of a key already emitted; otherwise the earliest row waits
//!   with an event-time timer at its rowtime and is emitted (`+I`) when the watermark passes
//!   it. A replaced row's timer is not deleted: it finds no waiting row of its time and
//!   does nothing, which is what Flink's deleted timer does.
//!
//! Mini-batch plans buffer rows into bundles of exactly `table.exec.mini-batch.size` rows,
//! as Flink's `CountBundleTrigger` counts them one by one, and apply a bundle when it is
//! full, on a watermark, before a checkpoint and at the end of input. A bundle applies per
//! key: its first row (proctime keep-first), its last row (proctime keep-last), or all its
//! rows in order (rowtime), each key's emissions together.
//!
//! # State
//!
//! `[key group][key row]` -> a BinaryRowData row (the kept or waiting row) or a one-byte
//! marker (proctime keep-first, and the keep-first-on-timers "emitted" flag); TTL tables
//! (`table.exec.state.ttl`, processing time) carry the expiry header. The waiting rows of
//! keep-first-on-timers never expire (Flink does not put TTL on them: a row must not vanish
//! before its timer). Timers live in the keyed driver's timer table, `[key row]` at the
//! rowtime. Everything is checkpointed and rescaled with its key groups.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use arrow::array::RecordBatch;
use arrow::datatypes::{Field, Schema, SchemaRef};

use crate::aggregate::group::{access_order, check_columns, concat};
use crate::binary_row::{RowReader, RowWriter, null_bits_width};
use crate::changelog::{ChangelogBatch, RowKind};
use crate::emissions::Emissions;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::keys::layout::KEY_GROUP_BYTES;
use crate::ops::keyed::{Keyed, KeyedOperator, MiniBatch};
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::state::rows::Groups;
use crate::state::timers::Timer;
use crate::state::ttl::{StateTtl, TTL_TABLE_PREFIX};
use crate::state::{BackendKind, TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;

/// The version of the deduplication state layout, stored with its checkpoints.
pub const STATE_VERSION: u32 = 1;
const ROW_TABLE: &str = "dedup.row";
const EMITTED_TABLE: &str = "dedup.emitted";
/// A proctime keep-first key's state, and the "emitted" flag (Flink stores `true`).
const MARKER: &[u8] = &[1];

/// A deduplication plan, as JSON: `{"input_names": ["k", "v", "rt"], "input_types":
/// ["BIGINT", "INT", "TIMESTAMP(3)"], "keys": [0], "rowtime_column": 2, "keep_last": true,
/// "generate_update_before": true, "generate_insert": true, "output_insert_only": false,
/// "mini_batch_rows": null, "state_ttl_ms": null, "max_parallelism": 128}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DedupSpec {
    /// Input (and output) column names.
    pub input_names: Vec<String>,
    /// Input (and output) column types.
    pub input_types: Vec<LogicalType>,
    /// The partition key columns (Flink's `uniqueKeys`).
    pub keys: Vec<usize>,
    /// The rowtime column ordering the rows; `None` orders by processing time (arrival).
    pub rowtime_column: Option<usize>,
    /// Keep the last row (`ORDER BY ... DESC`) rather than the first.
    pub keep_last: bool,
    /// Emit `-U` before `+U`.
    pub generate_update_before: bool,
    /// `table.exec.deduplicate.insert-update-after-sensitive-enabled`: a key's first row is
    /// `+I` (else proctime keep-last without `-U` emits only `+U`).
    pub generate_insert: bool,
    /// Flink's `outputInsertOnly`: rowtime keep-first emits once, on timers.
    pub output_insert_only: bool,
    /// Mini-batch: bundles of this many rows; `None` is immediate.
    pub mini_batch_rows: Option<usize>,
    /// `table.exec.state.ttl`; `None` (or zero) disables it.
    #[serde(rename = "state_ttl_ms", with = "crate::ops::plan::millis")]
    pub state_ttl: Option<Duration>,
    /// The job's max parallelism (number of key groups).
    pub max_parallelism: u32,
}

impl DedupSpec {
    /// What of the plan decides the state: types, keys, ordering, which row is kept, the
    /// insert-only (timer) form and whether TTL is on. Names, emission flags and mini-batch
    /// are left out.
    pub fn semantics(&self) -> serde_json::Value {
        serde_json::json!({
            "input_types": self.input_types.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "keys": self.keys,
            "rowtime_column": self.rowtime_column,
            "keep_last": self.keep_last,
            "on_timers": self.on_timers(),
            "state_ttl": self.ttl().is_some(),
        })
    }

    fn ttl(&self) -> Option<Duration> {
        self.state_ttl.filter(|d| !d.is_zero())
    }

    /// Rowtime keep-first with insert-only output: Flink's
    /// `RowTimeDeduplicateKeepFirstRowFunction`.
    fn on_timers(&self) -> bool {
        self.rowtime_column.is_some() && !self.keep_last && self.output_insert_only
    }
}

/// Which of Flink's functions the plan is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Proctime keep-first: a marker per key.
    ProcFirst,
    /// Proctime keep-last; without state when neither `-U` nor `+I` is generated.
    ProcLast { stateful: bool },
    /// Rowtime, emitting on every kept row.
    RowTime { column: usize },
    /// Rowtime keep-first, emitting on timers.
    FirstOnTimers { column: usize },
}

/// One key's state during a bundle: what was read, and whether it changed.
#[derive(Debug, Default)]
struct KeyState {
    value: Option<Vec<u8>>,
    changed: bool,
}

impl KeyState {
    fn set(&mut self, value: Option<Vec<u8>>) {
        self.value = value;
        self.changed = true;
    }
}

/// The deduplication operator over one task's keyed state.
pub struct Deduplicate {
    spec: DedupSpec,
    mode: Mode,
    identity: PlanIdentity,
    keyed: Keyed,
    hasher: KeyHasher,
    writer: RowWriter,
    reader: RowReader,
    schema: SchemaRef,
    /// Kept rows, waiting rows, or proctime keep-first markers.
    rows: TableId,
    /// The "emitted" flags of keep-first on timers.
    emitted: Option<TableId>,
    /// The TTL of `rows`, or of `emitted` on timers.
    ttl: Option<StateTtl>,
    /// Whether kept rows carry the kind Flink's heap object ends with (memory backend).
    heap_kinds: bool,
    mini_batch: MiniBatch<ChangelogBatch>,
}

impl std::fmt::Debug for Deduplicate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deduplicate")
            .field("mode", &self.mode)
            .field("keys", &self.spec.keys)
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

impl Deduplicate {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &DedupSpec) -> PlanIdentity {
        PlanIdentity::new(OperatorKind::Deduplicate, STATE_VERSION, &spec.semantics())
    }

    /// An operator for `spec` over the keyed driver `keyed` (fresh or restored). A plan
    /// Flink itself would refuse (a key or rowtime column out of range, a rowtime that is
    /// not a TIMESTAMP(p <= 3), insert-only output where Flink does not build it) is an
    /// error.
    pub fn open(spec: DedupSpec, mut keyed: Keyed) -> Result<Self> {
        let mode = check_spec(&spec)?;
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
        // On timers only the "emitted" flags expire; the waiting rows must outlive them.
        let (rows_ttl, emitted_ttl) = match mode {
            Mode::FirstOnTimers { .. } => (false, ttl.is_some()),
            _ => (ttl.is_some(), false),
        };
        let store = keyed.store_mut();
        let rows = store.open_table_with(&table_name(rows_ttl, ROW_TABLE), TableAccess::Point)?;
        let emitted = match mode {
            Mode::FirstOnTimers { .. } => Some(
                store
                    .open_table_with(&table_name(emitted_ttl, EMITTED_TABLE), TableAccess::Point)?,
            ),
            _ => None,
        };
        let fields: Vec<Field> = spec
            .input_names
            .iter()
            .zip(&spec.input_types)
            .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
            .collect();
        let key_types = spec
            .keys
            .iter()
            .map(|&k| spec.input_types[k].clone())
            .collect();
        Ok(Self {
            mode,
            identity: Self::identity_of(&spec),
            hasher: KeyHasher::new(key_types),
            writer: RowWriter::new(spec.input_types.clone()),
            reader: RowReader::new(spec.input_types.clone()),
            schema: Arc::new(Schema::new(fields)),
            rows,
            emitted,
            ttl,
            heap_kinds: keyed.backend() == BackendKind::Memory,
            mini_batch: MiniBatch::new(spec.mini_batch_rows)?,
            keyed,
            spec,
        })
    }

    /// The plan.
    pub fn spec(&self) -> &DedupSpec {
        &self.spec
    }

    /// The keyed driver (store, key groups, watermark).
    pub fn keyed(&self) -> &Keyed {
        &self.keyed
    }

    fn check_input(&self, input: &ChangelogBatch) -> Result<()> {
        check_columns(
            "deduplicate input batch",
            &self.spec.input_types,
            input.batch(),
        )?;
        // Flink's `checkInsertOnly` fails the job.
        ops::expect_insert_only(input, "deduplication")
    }

    fn process_batch(&mut self, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        self.check_input(input)?;
        let Some(size) = self.spec.mini_batch_rows else {
            out.emit(self.apply(input, true)?);
            return Ok(());
        };
        // Bundles close at exactly `size` rows, wherever that falls in a batch.
        let mut offset = 0;
        while offset < input.num_rows() {
            let take = (size - self.mini_batch.rows()).min(input.num_rows() - offset);
            if self.mini_batch.push(input.slice(offset, take), take) {
                self.finish_bundle(out)?;
            }
            offset += take;
        }
        Ok(())
    }

    /// Applies the buffered mini-batch bundle (Flink's `finishBundle`).
    fn finish_bundle(&mut self, out: &mut Output) -> Result<()> {
        if self.mini_batch.is_empty() {
            return Ok(());
        }
        let bundle = concat(&self.mini_batch.take())?;
        out.emit(self.apply(&bundle, false)?);
        Ok(())
    }

    /// Applies one bundle: every row in order (`per_row`, immediate mode), or per key as
    /// Flink's mini-batch functions do; returns its changelog.
    fn apply(&mut self, input: &ChangelogBatch, per_row: bool) -> Result<ChangelogBatch> {
        let n = input.num_rows();
        if n == 0 {
            return Ok(self.empty());
        }
        if self.mode == (Mode::ProcLast { stateful: false }) {
            // Every row (a bundle's last per key) is `+U`; nothing is stored.
            let rows: Vec<usize> = if per_row {
                (0..n).collect()
            } else {
                let (groups, row_group) = self.groups(input)?;
                last_rows(&row_group, groups.len())
            };
            let mut emits = Emissions::default();
            rows.into_iter()
                .for_each(|r| emits.input(RowKind::UpdateAfter, r));
            return self.output(input, &emits);
        }
        let (groups, row_group) = self.groups(input)?;
        let order = access_order(self.keyed.store(), &[self.rows], &groups);
        let mut states = self.read(self.rows, &groups, &order, self.rows_ttl())?;
        let encoded = match self.mode {
            Mode::ProcFirst => None,
            _ => Some(self.writer.write(input.batch().columns())?),
        };
        let mut emits = Emissions::default();
        let mut timers = Vec::new();
        let mode = self.mode;
        let apply_row =
            |this: &Self, row: usize, state: &mut KeyState, emits: &mut Emissions| match mode {
                Mode::ProcFirst => {
                    if state.value.is_none() {
                        state.set(Some(MARKER.to_vec()));
                        emits.input(RowKind::Insert, row);
                    }
                }
                Mode::ProcLast { .. } => {
                    let current = encoded.as_ref().expect("encoded").row(row);
                    this.keep_last_on_proctime(row, current, state, emits);
                }
                Mode::RowTime { column } => {
                    let current = encoded.as_ref().expect("encoded").row(row);
                    this.keep_on_rowtime(column, row, current, state, emits);
                }
                Mode::FirstOnTimers { .. } => unreachable!("applied by apply_waiting"),
            };
        if let Mode::FirstOnTimers { column } = self.mode {
            let emitted_table = self.emitted.expect("on timers");
            let emitted = self.read(emitted_table, &groups, &order, self.ttl.as_ref())?;
            let encoded = encoded.as_ref().expect("encoded");
            let watermark = self.keyed.watermark().unwrap_or(i64::MIN);
            for (row, &slot) in row_group.iter().enumerate() {
                let slot = slot as usize;
                let current = encoded.row(row);
                let time = row_time(current, column, self.spec.input_types.len());
                if time < watermark || emitted[slot].value.is_some() {
                    continue;
                }
                let state = &mut states[slot];
                let wins = state
                    .value
                    .as_deref()
                    .is_none_or(|w| time < row_time(w, column, self.spec.input_types.len()));
                if wins {
                    state.set(Some(current.to_vec()));
                    timers.push((slot, time));
                }
            }
        } else if per_row {
            for (row, &slot) in row_group.iter().enumerate() {
                apply_row(self, row, &mut states[slot as usize], &mut emits);
            }
        } else {
            let per_key: Vec<Vec<usize>> = match self.mode {
                Mode::ProcFirst => first_rows(&groups).into_iter().map(|r| vec![r]).collect(),
                Mode::ProcLast { .. } => last_rows(&row_group, groups.len())
                    .into_iter()
                    .map(|r| vec![r])
                    .collect(),
                _ => rows_of_groups(&row_group, groups.len()),
            };
            for (slot, rows) in per_key.iter().enumerate() {
                for &row in rows {
                    apply_row(self, row, &mut states[slot], &mut emits);
                }
            }
        }
        let mut batch = WriteBatch::new();
        self.write(
            &mut batch,
            self.rows,
            &groups,
            &order,
            &states,
            self.rows_ttl(),
        );
        self.keyed.store_mut().write(&batch)?;
        if !timers.is_empty() {
            self.keyed
                .register_event_timers(timers.iter().map(|&(slot, time)| {
                    let key = groups.key(slot);
                    let kg = u16::from_be_bytes([key[0], key[1]]);
                    (kg, time, &key[KEY_GROUP_BYTES..], [])
                }))?;
        }
        self.output(input, &emits)
    }

    /// `processLastRowOnProcTime` with state.
    fn keep_last_on_proctime(
        &self,
        row: usize,
        current: &[u8],
        state: &mut KeyState,
        emits: &mut Emissions,
    ) {
        match state.value.take() {
            None => {
                state.set(Some(current.to_vec()));
                emits.input(RowKind::Insert, row);
            }
            Some(previous) => {
                if self.ttl.is_none() && previous == current {
                    // Flink stores the current row (the same bytes) and emits nothing.
                    state.value = Some(previous);
                    return;
                }
                if self.spec.generate_update_before {
                    emits.stored(RowKind::UpdateBefore, &previous);
                }
                emits.input(RowKind::UpdateAfter, row);
                let kind = if self.heap_kinds {
                    RowKind::UpdateAfter
                } else {
                    RowKind::Insert
                };
                state.set(Some(with_kind(current, kind)));
            }
        }
    }

    /// `RowTimeDeduplicateFunctionHelper.deduplicateOnRowTime` (and the mini-batch loop).
    fn keep_on_rowtime(
        &self,
        column: usize,
        row: usize,
        current: &[u8],
        state: &mut KeyState,
        emits: &mut Emissions,
    ) {
        let arity = self.spec.input_types.len();
        let time = row_time(current, column, arity);
        let keep = match state.value.as_deref() {
            None => true,
            Some(kept) if self.spec.keep_last => row_time(kept, column, arity) <= time,
            Some(kept) => time < row_time(kept, column, arity),
        };
        if !keep {
            return;
        }
        // `updateDeduplicateResult`; the stored row keeps the kind it was emitted with.
        let kind = match state.value.take() {
            _ if !(self.spec.generate_update_before || self.spec.generate_insert) => {
                RowKind::UpdateAfter
            }
            None => RowKind::Insert,
            Some(previous) => {
                if self.spec.generate_update_before {
                    emits.stored(RowKind::UpdateBefore, &previous);
                }
                RowKind::UpdateAfter
            }
        };
        emits.input(kind, row);
        state.set(Some(with_kind(current, kind)));
    }

    /// Fires the keep-first rows whose timers the watermark passed (`onTimer`).
    fn fire(&mut self) -> Result<ChangelogBatch> {
        let Mode::FirstOnTimers { column } = self.mode else {
            return Ok(self.empty());
        };
        let due = self.keyed.fire_event_timers()?;
        if due.is_empty() {
            return Ok(self.empty());
        }
        let keys: Vec<Vec<u8>> = due.iter().map(Timer::state_key).collect();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let waiting = self.keyed.store().multi_get(self.rows, &refs)?;
        let emitted_table = self.emitted.expect("on timers");
        let arity = self.spec.input_types.len();
        let mut emits = Emissions::default();
        let mut batch = WriteBatch::new();
        for ((timer, key), row) in due.iter().zip(&keys).zip(&waiting) {
            // A replaced row's timer finds a later waiting row, or none once emitted.
            let Some(row) = row
                .as_deref()
                .filter(|r| row_time(r, column, arity) == timer.timestamp)
            else {
                continue;
            };
            emits.stored(RowKind::Insert, row);
            batch.delete(self.rows, key);
            match &self.ttl {
                Some(ttl) => batch.put(emitted_table, key, ttl.wrap(MARKER)),
                None => batch.put(emitted_table, key, MARKER),
            }
        }
        self.keyed.store_mut().write(&batch)?;
        let empty = ChangelogBatch::insert_only(RecordBatch::new_empty(self.schema.clone()));
        self.output(&empty, &emits)
    }

    fn rows_ttl(&self) -> Option<&StateTtl> {
        match self.mode {
            Mode::FirstOnTimers { .. } => None,
            _ => self.ttl.as_ref(),
        }
    }

    fn groups(&self, input: &ChangelogBatch) -> Result<(Groups, Vec<u32>)> {
        self.keyed
            .groups(&self.hasher, input.batch(), &self.spec.keys)
    }

    /// Every group's state in `table` (TTL-checked), read in `order`.
    fn read(
        &self,
        table: TableId,
        groups: &Groups,
        order: &[u32],
        ttl: Option<&StateTtl>,
    ) -> Result<Vec<KeyState>> {
        Ok(self
            .keyed
            .read_groups(table, groups, order, ttl)?
            .into_iter()
            .map(|value| KeyState {
                value,
                changed: false,
            })
            .collect())
    }

    /// Adds every changed group's value (or its deletion) to `batch`, in `order`.
    fn write(
        &self,
        batch: &mut WriteBatch,
        table: TableId,
        groups: &Groups,
        order: &[u32],
        states: &[KeyState],
        ttl: Option<&StateTtl>,
    ) {
        for &slot in order {
            let state = &states[slot as usize];
            if !state.changed {
                continue;
            }
            let key = groups.key(slot as usize);
            match (&state.value, ttl) {
                (None, _) => batch.delete(table, key),
                (Some(v), Some(ttl)) => batch.put(table, key, ttl.wrap(v)),
                (Some(v), None) => batch.put(table, key, v),
            }
        }
    }

    /// The changelog of `emits`: rows of `input` taken, rows from state decoded.
    fn output(&self, input: &ChangelogBatch, emits: &Emissions) -> Result<ChangelogBatch> {
        if emits.is_empty() {
            return Ok(self.empty());
        }
        let columns = emits.columns(input.batch(), &self.reader)?;
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        ChangelogBatch::try_new(batch, Some(emits.kinds()))
    }

    fn empty(&self) -> ChangelogBatch {
        ChangelogBatch::insert_only(RecordBatch::new_empty(self.schema.clone()))
    }
}

/// Which of Flink's functions `spec` is, refusing what Flink would refuse.
fn check_spec(spec: &DedupSpec) -> Result<Mode> {
    let columns = spec.input_types.len();
    if spec.input_names.len() != columns {
        return Err(Error::Plan(format!(
            "{} input names for {columns} input types",
            spec.input_names.len()
        )));
    }
    if let Some(&k) = spec.keys.iter().find(|&&k| k >= columns) {
        return Err(Error::Plan(format!(
            "key column {k} is out of range for {columns} input columns"
        )));
    }
    let Some(column) = spec.rowtime_column else {
        return Ok(match spec.keep_last {
            false => Mode::ProcFirst,
            true => Mode::ProcLast {
                stateful: spec.generate_update_before || spec.generate_insert,
            },
        });
    };
    match spec.input_types.get(column) {
        Some(LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p)) if *p <= 3 => {}
        Some(other) => {
            return Err(Error::Plan(format!(
                "the rowtime column {column} is {other}, not a TIMESTAMP(p <= 3)"
            )));
        }
        None => {
            return Err(Error::Plan(format!(
                "rowtime column {column} is out of range for {columns} input columns"
            )));
        }
    }
    if spec.output_insert_only && (spec.keep_last || spec.mini_batch_rows.is_some()) {
        // Flink's translator fails its `checkState` on these.
        return Err(Error::Plan(
            "insert-only output is rowtime keep-first without mini-batch only".into(),
        ));
    }
    Ok(if spec.on_timers() {
        Mode::FirstOnTimers { column }
    } else {
        Mode::RowTime { column }
    })
}

fn table_name(ttl: bool, name: &str) -> String {
    if ttl {
        format!("{TTL_TABLE_PREFIX}{name}")
    } else {
        name.to_string()
    }
}

/// `row` with header byte `kind`.
fn with_kind(row: &[u8], kind: RowKind) -> Vec<u8> {
    let mut row = row.to_vec();
    row[0] = kind.to_byte() as u8;
    row
}

/// `getLong(column)` of a BinaryRowData row of `arity` fields: a compact TIMESTAMP's epoch
/// milliseconds, 0 when NULL (`setNullAt` zeroes the slot).
pub(crate) fn row_time(row: &[u8], column: usize, arity: usize) -> i64 {
    let at = null_bits_width(arity) + 8 * column;
    i64::from_le_bytes(row[at..at + 8].try_into().expect("a fixed-length slot"))
}

/// Each group's first row (a bundle's first per key).
fn first_rows(groups: &Groups) -> Vec<usize> {
    groups.first_rows().iter().map(|&r| r as usize).collect()
}

/// Each group's last row, in group order.
fn last_rows(row_group: &[u32], groups: usize) -> Vec<usize> {
    let mut last = vec![0usize; groups];
    for (row, &g) in row_group.iter().enumerate() {
        last[g as usize] = row;
    }
    last
}

/// Each group's rows in input order.
fn rows_of_groups(row_group: &[u32], groups: usize) -> Vec<Vec<usize>> {
    let mut rows = vec![Vec::new(); groups];
    for (row, &g) in row_group.iter().enumerate() {
        rows[g as usize].push(row);
    }
    rows
}

impl Operator for Deduplicate {
    fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    fn input_types(&self, _port: Port) -> &[LogicalType] {
        &self.spec.input_types
    }

    fn output_types(&self) -> &[LogicalType] {
        &self.spec.input_types
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        ops::expect_one_input(self.identity.kind, port)?;
        self.process_batch(input, out)
    }

    /// A mini-batch bundle is applied first (Flink's bundle operators finish a bundle on a
    /// watermark); keep-first on timers then emits the rows whose time has come.
    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        self.finish_bundle(out)?;
        if self.keyed.advance_watermark(watermark) {
            out.emit(self.fire()?);
        }
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.keyed.watermark()
    }

    fn flush(&mut self, out: &mut Output) -> Result<()> {
        self.finish_bundle(out)
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        self.mini_batch.expect_empty("deduplicate")?;
        self.keyed.checkpoint(target, &self.identity)
    }

    fn memory_bytes(&self) -> u64 {
        self.keyed.memory_bytes()
    }
}

impl KeyedOperator for Deduplicate {
    type Spec = DedupSpec;
    const HOLDER: &'static str = "dedup";

    fn identity_of(spec: &DedupSpec) -> PlanIdentity {
        Self::identity_of(spec)
    }

    fn max_parallelism(spec: &DedupSpec) -> u32 {
        spec.max_parallelism
    }

    fn open(spec: DedupSpec, keyed: Keyed) -> Result<Self> {
        Self::open(spec, keyed)
    }
}
