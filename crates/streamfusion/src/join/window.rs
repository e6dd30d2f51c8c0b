//! Window join: Flink's `WindowJoinOperator` (with `WindowJoinHelper`'s processors), the plan
//! of `L [LEFT|RIGHT|FULL] JOIN R ON L.k = R.k AND L.window_start = R.window_start AND
//! L.window_end = R.window_end` (and the SEMI/ANTI forms of `IN`/`EXISTS`) over two inputs
//! whose windows are attached upstream, in event time.
//!
//! # Rows
//!
//! A row whose window has fired (`window_end - 1 <= watermark`) is late and dropped
//! (`isWindowFired`); the others join their key's and window's list on their side, in
//! arrival order, and the window gets its event-time timer at `window_end - 1`. Input must
//! be insert-only (Flink fails on a retraction).
//!
//! # Firing
//!
//! When the watermark reaches a window's timer, its two lists are joined exactly as the
//! processors do and both leave state: INNER emits every (left, right) pair the condition
//! accepts, left rows outer, right rows inner; LEFT adds each left row no right row
//! matched, padded with NULLs; RIGHT walks the right rows, each with the left rows it
//! matches, or padded; FULL is LEFT followed by the right rows no left row matched; SEMI
//! and ANTI emit the left rows with (without) a match. A window one side never saw joins
//! nothing (its outer side is all padded). The condition is `JoinConditionWithNullFilters`:
//! no pair matches when a join key column that filters NULLs is NULL (an `IS NOT DISTINCT
//! FROM` key does not), else the non-equi condition must be TRUE. Every output row is `+I`.
//!
//! # State
//!
//! Per side `[key group][key row][window end]` (the end a sign-flipped big-endian `i64`) ->
//! the side's rows, each `[u32 length][BinaryRowData]`; timers in the keyed driver's timer
//! table. Checkpointed and rescaled with its key groups. `WindowJoinOperator` keeps no
//! watermark in its checkpoints, so a restored operator starts without one (decision 0030).
//!
//! Over a TIMESTAMP_LTZ time attribute the window ends are local times of the session time
//! zone, fired at their instants ([`WindowClock`]).

use std::path::Path;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::{Field, Schema, SchemaRef};

use super::pairs::{filtered_null_key, joined_rows, verdicts};
use super::{Condition, JoinColumns, JoinType, check_join};
use crate::aggregate::group::{access_order, check_columns};
use crate::attached_windows::{WindowedRows, group_by_window, key_row, window_timers};
use crate::binary_row::{RowReader, RowWriter};
use crate::calc::CalcProgram;
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::ops::keyed::{Keyed, KeyedOperator};
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::state::timers::Timer;
use crate::state::{TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;
use crate::window_clock::WindowClock;

/// The version of the window join's state layout, stored with its checkpoints.
pub const STATE_VERSION: u32 = 1;
const TABLES: [&str; 2] = ["window_join.left", "window_join.right"];

/// One input of a window join.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowJoinInput {
    /// Column names (the output's, for this input's part).
    pub names: Vec<String>,
    /// Column types.
    pub types: Vec<LogicalType>,
    /// The join key columns, pairwise with the other input's.
    pub keys: Vec<usize>,
    /// The column holding each row's `window_end` (TIMESTAMP(3)).
    pub window_end_column: usize,
}

/// A window join plan, as JSON: `{"join_type": "left", "left": {"names": ["k", "v", "we"],
/// "types": ["INT", "BIGINT", "TIMESTAMP(3)"], "keys": [0], "window_end_column": 2},
/// "right": {...}, "filter_nulls": [true], "condition": null, "max_parallelism": 128}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowJoinSpec {
    /// INNER, LEFT, RIGHT, FULL, SEMI or ANTI.
    pub join_type: JoinType,
    /// The left input.
    pub left: WindowJoinInput,
    /// The right input.
    pub right: WindowJoinInput,
    /// Per key column: whether a NULL there stops the key from matching (`false` for
    /// `IS NOT DISTINCT FROM` keys).
    pub filter_nulls: Vec<bool>,
    /// The non-equi condition: a program over the joined row (left columns, then right)
    /// projecting one BOOLEAN; a row pair matches when it is TRUE.
    pub condition: Option<CalcProgram>,
    /// The session time zone of windows over a TIMESTAMP_LTZ time attribute
    /// ([`WindowClock`]); `None` is UTC.
    #[serde(default)]
    pub time_zone: Option<String>,
    /// The job's max parallelism (number of key groups).
    pub max_parallelism: u32,
}

impl WindowJoinSpec {
    /// What of the plan decides the state: both inputs' types, keys and window columns (the
    /// join type, condition and names only decide what is emitted).
    pub fn semantics(&self) -> serde_json::Value {
        let input = |i: &WindowJoinInput| {
            serde_json::json!({
                "types": i.types.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "keys": i.keys,
                "window_end_column": i.window_end_column,
            })
        };
        serde_json::json!({
            "left": input(&self.left),
            "right": input(&self.right),
            "time_zone": self.time_zone,
        })
    }

    fn input(&self, port: Port) -> &WindowJoinInput {
        if port == 0 { &self.left } else { &self.right }
    }

    /// The output's columns: the left input's, then the right's (not for SEMI/ANTI).
    fn output_fields(&self) -> Vec<(String, LogicalType)> {
        let mut fields: Vec<(String, LogicalType)> = self
            .left
            .names
            .iter()
            .cloned()
            .zip(self.left.types.iter().cloned())
            .collect();
        if !self.join_type.semi_anti() {
            fields.extend((self.right.names.iter().cloned()).zip(self.right.types.iter().cloned()));
        }
        fields
    }
}

/// The window join over one task's keyed state.
pub struct WindowJoin {
    spec: WindowJoinSpec,
    identity: PlanIdentity,
    keyed: Keyed,
    hasher: KeyHasher,
    writers: [RowWriter; 2],
    readers: [RowReader; 2],
    tables: [TableId; 2],
    /// The non-equi condition, and the schema of the (left, right) pairs it evaluates.
    condition: Option<Condition>,
    schema: SchemaRef,
    output_types: Vec<LogicalType>,
    clock: WindowClock,
    late_rows_dropped: [u64; 2],
}

impl std::fmt::Debug for WindowJoin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowJoin")
            .field("join_type", &self.spec.join_type)
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

/// One fired window's rows: ranges into the decoded left and right rows, and whether its
/// key can match at all.
struct FiredWindow {
    left: std::ops::Range<u32>,
    right: std::ops::Range<u32>,
    null_key: bool,
}

impl WindowJoin {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &WindowJoinSpec) -> PlanIdentity {
        PlanIdentity::new(OperatorKind::WindowJoin, STATE_VERSION, &spec.semantics())
    }

    /// An operator for `spec` over the keyed driver `keyed` (fresh or restored); a plan it
    /// cannot run as Flink would is an error.
    pub fn open(spec: WindowJoinSpec, mut keyed: Keyed) -> Result<Self> {
        let condition = check_spec(&spec)?;
        if keyed.max_parallelism() != spec.max_parallelism {
            return Err(Error::OutOfRange(format!(
                "the plan's max parallelism is {} but its state has {} key groups",
                spec.max_parallelism,
                keyed.max_parallelism()
            )));
        }
        let tables = [
            keyed
                .store_mut()
                .open_table_with(TABLES[0], TableAccess::Point)?,
            keyed
                .store_mut()
                .open_table_with(TABLES[1], TableAccess::Point)?,
        ];
        let key_types = spec
            .left
            .keys
            .iter()
            .map(|&k| spec.left.types[k].clone())
            .collect();
        let output = spec.output_fields();
        let fields: Vec<Field> = output
            .iter()
            .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
            .collect();
        Ok(Self {
            identity: Self::identity_of(&spec),
            hasher: KeyHasher::new(key_types),
            writers: [
                RowWriter::new(spec.left.types.clone()),
                RowWriter::new(spec.right.types.clone()),
            ],
            readers: [
                RowReader::new(spec.left.types.clone()),
                RowReader::new(spec.right.types.clone()),
            ],
            tables,
            condition,
            schema: Arc::new(Schema::new(fields)),
            output_types: output.into_iter().map(|(_, ty)| ty).collect(),
            clock: WindowClock::new(spec.time_zone.as_deref())?,
            late_rows_dropped: [0, 0],
            keyed,
            spec,
        })
    }

    /// The plan.
    pub fn spec(&self) -> &WindowJoinSpec {
        &self.spec
    }

    /// Rows of each input dropped as late since the operator opened (Flink's
    /// `leftNumLateRecordsDropped`, `rightNumLateRecordsDropped`).
    pub fn late_rows_dropped(&self) -> [u64; 2] {
        self.late_rows_dropped
    }

    /// Appends a batch of input `port` to its windows' lists; a window new on this side
    /// gets its timer (registering it again is one timer).
    fn apply(&mut self, port: Port, input: &ChangelogBatch) -> Result<()> {
        let side = self.spec.input(port);
        check_columns(
            if port == 0 {
                "window join left batch"
            } else {
                "window join right batch"
            },
            &side.types,
            input.batch(),
        )?;
        ops::expect_insert_only(input, "a window join")?;
        let n = input.num_rows();
        if n == 0 {
            return Ok(());
        }
        let WindowedRows {
            groups,
            row_group,
            kept,
            late,
        } = group_by_window(
            &self.keyed,
            &self.hasher,
            input.batch(),
            &side.keys,
            side.window_end_column,
            &self.clock,
        )?;
        self.late_rows_dropped[port] += late;
        if kept.is_empty() {
            return Ok(());
        }
        let table = self.tables[port];
        let order = access_order(self.keyed.store(), &[table], &groups);
        let rows = self.writers[port].write(input.batch().columns())?;
        let mut values = self.keyed.read_groups(table, &groups, &order, None)?;
        let fresh: Vec<bool> = values.iter().map(Option::is_none).collect();
        for (&row, &slot) in kept.iter().zip(&row_group) {
            let list = values[slot as usize].get_or_insert_with(Vec::new);
            let bytes = rows.row(row);
            list.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            list.extend_from_slice(bytes);
        }
        let mut write = WriteBatch::new();
        for &slot in &order {
            if let Some(list) = &values[slot as usize] {
                write.put(table, groups.key(slot as usize), list);
            }
        }
        self.keyed.store_mut().write(&write)?;
        let fresh_windows = order.iter().map(|&s| s as usize).filter(|&s| fresh[s]);
        let timers = window_timers(&groups, fresh_windows, &self.clock)?;
        self.keyed.register_event_timers(timers)
    }

    /// Joins and clears every window whose timer the watermark reached.
    fn fire(&mut self) -> Result<ChangelogBatch> {
        let due = self.keyed.fire_event_timers()?;
        if due.is_empty() {
            return Ok(self.empty());
        }
        let keys: Vec<Vec<u8>> = due.iter().map(Timer::state_key).collect();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let lists = [
            self.keyed.store().multi_get(self.tables[0], &refs)?,
            self.keyed.store().multi_get(self.tables[1], &refs)?,
        ];
        // Every fired window's rows, decoded once per side.
        let mut rows: [(Vec<u8>, Vec<usize>); 2] = [(Vec::new(), vec![0]), (Vec::new(), vec![0])];
        let mut windows = Vec::with_capacity(keys.len());
        for (w, key) in keys.iter().enumerate() {
            let mut ranges = [0..0, 0..0];
            for side in 0..2 {
                let (data, offsets) = &mut rows[side];
                let start = offsets.len() as u32 - 1;
                if let Some(list) = &lists[side][w] {
                    append_rows(list, data, offsets)?;
                }
                ranges[side] = start..offsets.len() as u32 - 1;
            }
            let [left, right] = ranges;
            windows.push(FiredWindow {
                left,
                right,
                null_key: filtered_null_key(&self.spec.filter_nulls, key_row(key)),
            });
        }
        let decoded = [
            self.readers[0].read(&rows[0].0, &rows[0].1)?,
            self.readers[1].read(&rows[1].0, &rows[1].1)?,
        ];
        let accepted = self.accepted(&windows, &decoded)?;
        let (mut out_left, mut out_right) = (Vec::new(), Vec::new());
        let mut verdicts = accepted.iter().copied();
        for w in &windows {
            self.join_window(w, &mut verdicts, &mut out_left, &mut out_right);
        }
        let mut write = WriteBatch::new();
        for (side, lists) in lists.iter().enumerate() {
            for (key, list) in keys.iter().zip(lists) {
                if list.is_some() {
                    write.delete(self.tables[side], key);
                }
            }
        }
        self.keyed.store_mut().write(&write)?;
        self.output(&decoded, out_left, out_right)
    }

    /// The condition's verdict on every (left, right) pair of every window whose key can
    /// match, in window order, left rows outer; empty without a condition.
    fn accepted(
        &self,
        windows: &[FiredWindow],
        decoded: &[ChangelogBatch; 2],
    ) -> Result<Vec<bool>> {
        let Some(condition) = &self.condition else {
            return Ok(Vec::new());
        };
        let (mut lefts, mut rights) = (Vec::new(), Vec::new());
        for w in windows.iter().filter(|w| !w.null_key) {
            for l in w.left.clone() {
                for r in w.right.clone() {
                    lefts.push(l);
                    rights.push(r);
                }
            }
        }
        verdicts(
            condition,
            decoded[0].batch(),
            decoded[1].batch(),
            &lefts,
            &rights,
        )
    }

    /// One window's output rows (left and right row indices, `None` for padding), in the
    /// order Flink's processor for the join type emits them; `verdicts` yields the
    /// condition's verdicts of this window's pairs (none without a condition).
    fn join_window(
        &self,
        w: &FiredWindow,
        verdicts: &mut impl Iterator<Item = bool>,
        out_left: &mut Vec<Option<u32>>,
        out_right: &mut Vec<Option<u32>>,
    ) {
        let (lefts, rights) = (w.left.clone(), w.right.clone());
        // matches[l][r], left rows outer, as the pairs were evaluated.
        let with_condition = self.condition.is_some();
        let matches: Vec<Vec<bool>> = lefts
            .clone()
            .map(|_| {
                rights
                    .clone()
                    .map(|_| match (w.null_key, with_condition) {
                        (true, _) => false,
                        (false, true) => verdicts.next().expect("a verdict per pair"),
                        (false, false) => true,
                    })
                    .collect()
            })
            .collect();
        let matched =
            |l: u32, r: u32| matches[(l - lefts.start) as usize][(r - rights.start) as usize];
        let mut emit = |l: Option<u32>, r: Option<u32>| {
            out_left.push(l);
            out_right.push(r);
        };
        match self.spec.join_type {
            JoinType::Inner => {
                for l in lefts.clone() {
                    for r in rights.clone().filter(|&r| matched(l, r)) {
                        emit(Some(l), Some(r));
                    }
                }
            }
            JoinType::Semi | JoinType::Anti => {
                let anti = self.spec.join_type == JoinType::Anti;
                for l in lefts.clone() {
                    if rights.clone().any(|r| matched(l, r)) != anti {
                        emit(Some(l), None);
                    }
                }
            }
            JoinType::Left | JoinType::Full => {
                let mut right_matched = vec![false; rights.len()];
                for l in lefts.clone() {
                    let mut any = false;
                    for r in rights.clone().filter(|&r| matched(l, r)) {
                        emit(Some(l), Some(r));
                        right_matched[(r - rights.start) as usize] = true;
                        any = true;
                    }
                    if !any {
                        emit(Some(l), None);
                    }
                }
                if self.spec.join_type == JoinType::Full {
                    for r in rights.clone() {
                        if !right_matched[(r - rights.start) as usize] {
                            emit(None, Some(r));
                        }
                    }
                }
            }
            JoinType::Right => {
                for r in rights.clone() {
                    let mut any = false;
                    for l in lefts.clone().filter(|&l| matched(l, r)) {
                        emit(Some(l), Some(r));
                        any = true;
                    }
                    if !any {
                        emit(None, Some(r));
                    }
                }
            }
        }
    }

    fn output(
        &self,
        decoded: &[ChangelogBatch; 2],
        out_left: Vec<Option<u32>>,
        out_right: Vec<Option<u32>>,
    ) -> Result<ChangelogBatch> {
        if out_left.is_empty() {
            return Ok(self.empty());
        }
        joined_rows(
            &self.schema,
            decoded[0].batch(),
            (!self.spec.join_type.semi_anti()).then(|| decoded[1].batch()),
            out_left,
            out_right,
        )
    }

    fn empty(&self) -> ChangelogBatch {
        ChangelogBatch::insert_only(RecordBatch::new_empty(self.schema.clone()))
    }
}

/// Appends the rows of a stored list (`[u32 length][row]`...) to `data`/`offsets`.
fn append_rows(list: &[u8], data: &mut Vec<u8>, offsets: &mut Vec<usize>) -> Result<()> {
    let mut at = 0;
    while at < list.len() {
        let len = list
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
            .filter(|&len| at + 4 + len <= list.len())
            .ok_or_else(|| {
                Error::State(format!(
                    "a window join's row list of {} bytes is cut short at {at}",
                    list.len()
                ))
            })?;
        data.extend_from_slice(&list[at + 4..at + 4 + len]);
        offsets.push(data.len());
        at += 4 + len;
    }
    Ok(())
}

/// Checks the plan; returns its compiled condition.
fn check_spec(spec: &WindowJoinSpec) -> Result<Option<Condition>> {
    let (left, right) = (&spec.left, &spec.right);
    for (side, input) in [("left", left), ("right", right)] {
        match input.types.get(input.window_end_column) {
            Some(LogicalType::Timestamp(3)) => {}
            other => {
                return Err(Error::Plan(format!(
                    "the {side} input's window end column {} is {}, not TIMESTAMP(3)",
                    input.window_end_column,
                    other.map_or("out of range".to_string(), ToString::to_string)
                )));
            }
        }
    }
    fn columns(input: &WindowJoinInput) -> JoinColumns<'_> {
        JoinColumns {
            names: &input.names,
            types: &input.types,
            keys: &input.keys,
            more: &[],
        }
    }
    check_join(
        columns(left),
        columns(right),
        &spec.filter_nulls,
        spec.condition.as_ref(),
    )
}

impl Operator for WindowJoin {
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
        &self.output_types
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, _out: &mut Output) -> Result<()> {
        if port > 1 {
            return Err(Error::OutOfRange(format!(
                "a window join has two inputs; a batch arrived on input {port}"
            )));
        }
        self.apply(port, input)
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

impl KeyedOperator for WindowJoin {
    type Spec = WindowJoinSpec;
    const HOLDER: &'static str = "window-join";

    fn identity_of(spec: &WindowJoinSpec) -> PlanIdentity {
        Self::identity_of(spec)
    }

    fn max_parallelism(spec: &WindowJoinSpec) -> u32 {
        spec.max_parallelism
    }

    fn open(spec: WindowJoinSpec, keyed: Keyed) -> Result<Self> {
        Self::open(spec, keyed)
    }
}
