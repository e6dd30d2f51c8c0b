//! SESSION window aggregation: Flink's `WindowAggOperator` with
//! `UnsliceSyncStateWindowAggProcessor`, the one-phase plan of `GROUP BY window_start,
//! window_end, k` over `TABLE(SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap))`, in
//! event time; and the legacy `GROUP BY k, SESSION(ts, gap)` group window (Flink's
//! `WindowOperator` with `MergingWindowProcessFunction`, early and late firing off), whose
//! sessions and results are the same.
//!
//! # State
//!
//! - Each key's in-flight sessions, `[key group][key row]` → `(start, end)` pairs
//!   ([`Sessions`]; Flink's `session-window-mapping`).
//! - One accumulator row per key and session, `[key group][key row][session end]`, in the
//!   GROUP BY's typed table (a key's sessions are disjoint, so the end names one). Flink
//!   keeps a merged session's accumulators under the window they started in and maps to
//!   it; here they move to the merged session's end, which reads the same.
//! - One event-time timer per session at `end - 1`, namespace its end, in the keyed
//!   driver's timer table. All of it is checkpointed and rescaled with its key groups.
//!
//! # Rows
//!
//! Unsliced windows have no buffer: each row is applied when it arrives, as
//! `processElement` applies it. Its window `[t, t + gap)` joins the key's sessions
//! ([`Sessions::add`]): sessions it touches merge, the accumulators of the one Flink keeps
//! taking the others' (`merge`, in Flink's order), and the row is accumulated into the
//! result. A row whose window is late and touches no session is dropped
//! (`numLateRecordsDropped`); a late row touching a live session extends it, as in Flink.
//! A NULL row time fails, as Flink fails the job.
//!
//! # Firing
//!
//! A watermark fires every session whose last timestamp (`end - 1`) it reached, in timer
//! order, emitting `+I` rows: grouping columns, results, then the window properties the plan
//! names (`window_start`, `window_end`, `window_time` = `window_end - 1`); the session
//! leaves state.
//!
//! Time zones as for the sliced windows ([`super::window`]): over TIMESTAMP_LTZ(3) in a
//! session time zone other than UTC, sessions are cut on the rows' local times, fire (and
//! are late) at [`WindowClock::window_timer`] of their end, and `window_time` is the
//! instant of `window_end - 1`, as Flink's `shiftTimeZone` does.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::Path;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::SchemaRef;

use super::acc_codec::AccCodec;
use super::function::BoundCall;
use super::group::{
    AccTable, CallInputs, GroupAggSpec, Groups, access_order, check_input, check_max_parallelism,
    rows_by_slot,
};
use super::window::{
    AccCache, Fired, NAMESPACE_BYTES, WindowCalls, WindowProperty, end_of, fresh_accs, groups_of,
    key_group_of, namespace, row_times, with_properties,
};
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::keys::layout::KEY_GROUP_BYTES;
use crate::ops::keyed::{Keyed, RestoredWatermark};
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port, StateConfig};
use crate::state::checkpoint::Checkpoint;
use crate::state::rows::RowTable;
use crate::state::{TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;
use crate::window::TimeWindow;
use crate::window::session::{Assigned, Sessions};
use crate::window_clock::WindowClock;

/// The version of the session aggregate's state layout, stored with its checkpoints.
pub const STATE_VERSION: u32 = 1;
const ACC_TABLE: &str = "session_agg.acc";
const SESSION_TABLE: &str = "session_agg.sessions";
/// A session in the session table: start and end, big-endian.
const SESSION_BYTES: usize = 16;

/// A SESSION window aggregation, as JSON: `{"aggregate": <GroupAggSpec, insert-only,
/// without mini-batch or TTL>, "gap": 2000, "time_column": 2, "properties":
/// [["window_start", "start"], ["window_end", "end"]], "legacy": false}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionWindowAggSpec {
    /// The grouping columns and calls over the input (the `GROUP BY` without its window
    /// columns).
    pub aggregate: GroupAggSpec,
    /// The session gap in milliseconds: a row at `t` keeps its session open until `t + gap`.
    pub gap: i64,
    /// The input column holding the row time: TIMESTAMP(3) or TIMESTAMP_LTZ(3).
    pub time_column: usize,
    /// The window properties after the calls, with their output names.
    pub properties: Vec<(String, WindowProperty)>,
    /// The legacy `GROUP BY SESSION(...)` group window (Flink's `WindowOperator`) rather than
    /// the SESSION window TVF (`WindowAggOperator`): the same sessions and results, but its
    /// timer service keeps no watermark, so a restored operator starts without one.
    #[serde(default)]
    pub legacy: bool,
    /// The session time zone of windows over a TIMESTAMP_LTZ time column
    /// ([`WindowClock`]); `None` is UTC (and TIMESTAMP(3)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
}

impl SessionWindowAggSpec {
    /// What of the plan decides the state: the aggregate's semantics, the gap and the time
    /// column (output names and properties are left out).
    pub fn semantics(&self) -> serde_json::Value {
        let mut semantics = serde_json::json!({
            "aggregate": self.aggregate.semantics(),
            "gap": self.gap,
            "time_column": self.time_column,
            "legacy": self.legacy,
        });
        // UTC plans keep the identity they had before zones were supported.
        if let Some(zone) = &self.time_zone {
            semantics["time_zone"] = zone.as_str().into();
        }
        semantics
    }
}

/// The SESSION window aggregate over one task's keyed state.
pub struct SessionWindowAggregate {
    spec: SessionWindowAggSpec,
    calls: Vec<BoundCall>,
    key_types: Vec<LogicalType>,
    hasher: KeyHasher,
    schema: SchemaRef,
    output_types: Vec<LogicalType>,
    identity: PlanIdentity,
    keyed: Keyed,
    accs: AccTable,
    sessions: TableId,
    clock: WindowClock,
    late_rows_dropped: u64,
}

impl std::fmt::Debug for SessionWindowAggregate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionWindowAggregate")
            .field("gap", &self.spec.gap)
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

/// `[key group][key row][session end]`, from a state key `[key group][key row]`.
fn acc_key(state_key: &[u8], end: i64) -> Vec<u8> {
    let mut key = Vec::with_capacity(state_key.len() + NAMESPACE_BYTES);
    key.extend_from_slice(state_key);
    key.extend_from_slice(&namespace(end));
    key
}

/// The ends only in `old` (`Ok`) and only in `new` (`Err`), both ascending.
fn sorted_difference(
    old: impl Iterator<Item = i64>,
    new: impl Iterator<Item = i64>,
) -> Vec<std::result::Result<i64, i64>> {
    let (mut old, mut new) = (old.peekable(), new.peekable());
    let mut out = Vec::new();
    loop {
        match (old.peek().copied(), new.peek().copied()) {
            (Some(a), Some(b)) if a == b => {
                old.next();
                new.next();
            }
            (Some(a), Some(b)) if a < b => {
                out.push(Ok(a));
                old.next();
            }
            (Some(_), Some(b)) => {
                out.push(Err(b));
                new.next();
            }
            (Some(a), None) => {
                out.push(Ok(a));
                old.next();
            }
            (None, Some(b)) => {
                out.push(Err(b));
                new.next();
            }
            (None, None) => return out,
        }
    }
}

fn encode_sessions(sessions: &Sessions) -> Vec<u8> {
    let mut out = Vec::with_capacity(sessions.windows().len() * SESSION_BYTES);
    for w in sessions.windows() {
        out.extend_from_slice(&w.start.to_be_bytes());
        out.extend_from_slice(&w.end.to_be_bytes());
    }
    out
}

fn decode_sessions(bytes: Option<&[u8]>) -> Result<Sessions> {
    let Some(bytes) = bytes else {
        return Ok(Sessions::default());
    };
    if bytes.len() % SESSION_BYTES != 0 {
        return Err(Error::State(format!(
            "a key's sessions are {SESSION_BYTES}-byte pairs, not {} bytes",
            bytes.len()
        )));
    }
    Sessions::from_windows(bytes.chunks_exact(SESSION_BYTES).map(session_of).collect())
}

/// One stored session: start and end, big-endian (`chunk` is [`SESSION_BYTES`] long).
fn session_of(chunk: &[u8]) -> TimeWindow {
    let long = |b: &[u8]| i64::from_be_bytes(b.try_into().expect("8 bytes"));
    TimeWindow {
        start: long(&chunk[..8]),
        end: long(&chunk[8..SESSION_BYTES]),
    }
}

impl SessionWindowAggregate {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &SessionWindowAggSpec) -> PlanIdentity {
        PlanIdentity::new(
            OperatorKind::SessionWindowAggregate,
            STATE_VERSION,
            &spec.semantics(),
        )
    }

    /// An operator for `spec` over the keyed driver `keyed` (fresh or restored).
    pub fn open(spec: SessionWindowAggSpec, mut keyed: Keyed) -> Result<Self> {
        check_max_parallelism(&spec.aggregate, &keyed)?;
        if spec.gap <= 0 {
            return Err(Error::Plan(format!(
                "a session gap must be positive, not {} ms",
                spec.gap
            )));
        }
        let WindowCalls {
            calls,
            key_types,
            schema,
            mut output_types,
            ..
        } = WindowCalls::bind_calls(
            &spec.aggregate,
            spec.time_column,
            Some("sessions"),
            false,
            false,
        )?;
        let schema = with_properties(
            &schema,
            &mut output_types,
            &spec.properties,
            &spec.aggregate.input_types[spec.time_column],
        );
        let codec = AccCodec::new(calls.iter().map(BoundCall::create_local).collect());
        let accs = RowTable::open(keyed.store_mut(), ACC_TABLE, codec, None)?;
        let sessions = keyed
            .store_mut()
            .open_table_with(SESSION_TABLE, TableAccess::Point)?;
        let clock = WindowClock::new(spec.time_zone.as_deref())?;
        Ok(Self {
            hasher: KeyHasher::new(key_types.clone()),
            key_types,
            calls,
            schema,
            output_types,
            identity: Self::identity_of(&spec),
            spec,
            keyed,
            accs,
            sessions,
            clock,
            late_rows_dropped: 0,
        })
    }

    /// An operator owning `key_groups`, its state (and watermark: the lowest, as
    /// `WindowAggOperator` restores it; none for the legacy group window, decision 0030)
    /// restored from `checkpoints` into a store of `config`.
    pub fn restore(
        spec: SessionWindowAggSpec,
        config: &StateConfig,
        key_groups: RangeInclusive<u16>,
        checkpoints: &[Checkpoint],
    ) -> Result<Self> {
        let keyed = Keyed::restore(
            config,
            "session-window-agg",
            &Self::identity_of(&spec),
            spec.aggregate.max_parallelism,
            key_groups,
            checkpoints,
            if spec.legacy {
                RestoredWatermark::Unset
            } else {
                RestoredWatermark::Lowest
            },
        )?;
        Self::open(spec, keyed)
    }

    /// The plan.
    pub fn spec(&self) -> &SessionWindowAggSpec {
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

    /// Takes a batch of insert-only rows: each joins (or starts, or merges) its key's
    /// sessions and is accumulated, in arrival order per key; late rows that touch no
    /// session are dropped.
    pub fn accumulate(&mut self, input: &ChangelogBatch) -> Result<()> {
        let aggregate = &self.spec.aggregate;
        check_input(aggregate, input)?;
        let n = input.num_rows();
        if n == 0 {
            return Ok(());
        }
        let batch = input.batch();
        let times = row_times(aggregate, self.spec.time_column, batch)?;
        let key_columns: Vec<ArrayRef> = aggregate
            .grouping
            .iter()
            .map(|&g| batch.column(g).clone())
            .collect();
        let (keys, hashes) = self.keyed.state_keys(&self.hasher, &key_columns, n)?;
        let (groups, row_group) = Groups::of(keys, hashes);
        let order = access_order(self.keyed.store(), &[self.sessions], &groups);
        let stored = self
            .keyed
            .read_groups(self.sessions, &groups, &order, None)?;
        let mut sessions = stored
            .iter()
            .map(|v| decode_sessions(v.as_deref()))
            .collect::<Result<Vec<_>>>()?;

        let mut wanted = Vec::new();
        for (group, key_sessions) in sessions.iter().enumerate() {
            let state_key = groups.key(group);
            wanted.extend(
                key_sessions
                    .windows()
                    .iter()
                    .map(|w| acc_key(state_key, w.end)),
            );
        }
        let mut cache = AccCache::default();
        cache.load(&self.accs, self.keyed.store_mut(), wanted)?;

        let fresh = fresh_accs(&self.accs);
        let inputs = CallInputs::new(&self.calls, batch, &aggregate.input_types)?;
        let (starts, grouped) = rows_by_slot(&row_group, groups.len());
        let watermark = self.keyed.watermark();
        let gap = self.spec.gap;
        let clock = self.clock;
        for (group, key_sessions) in sessions.iter_mut().enumerate() {
            let state_key = groups.key(group);
            for &row in &grouped[starts[group] as usize..starts[group + 1] as usize] {
                let row = row as usize;
                let t = clock.local(times[row]);
                let window = TimeWindow {
                    start: t,
                    end: t.wrapping_add(gap),
                };
                let target = match key_sessions.add(window, watermark, |t| clock.timer(t))? {
                    Assigned::Late => {
                        self.late_rows_dropped += 1;
                        continue;
                    }
                    Assigned::New(w) | Assigned::Existing(w) => w,
                    Assigned::Merged { result, merged } => {
                        // `DefaultAccMergingConsumer`: the first session's accumulators
                        // take the others'.
                        let mut kept = cache
                            .take(&acc_key(state_key, merged[0].end))
                            .unwrap_or_else(|| fresh.clone());
                        for other in &merged[1..] {
                            if let Some(other) = cache.take(&acc_key(state_key, other.end)) {
                                for ((call, acc), other) in
                                    self.calls.iter().zip(&mut kept).zip(&other)
                                {
                                    call.merge(acc, other, None)?;
                                }
                            }
                        }
                        cache.put(acc_key(state_key, result.end), Some(kept));
                        result
                    }
                };
                let accs = cache.row_or(acc_key(state_key, target.end), &fresh);
                for (c, call) in self.calls.iter().enumerate() {
                    if let Some((x, y)) = inputs.read(c, row) {
                        call.update(&mut accs[c], &x, &y, false, None)?;
                    }
                }
            }
        }
        cache.write(&self.accs, self.keyed.store_mut())?;

        // Sessions written back; a session's timer follows its end.
        let mut batch = WriteBatch::new();
        let mut gone = Vec::new();
        let mut added = Vec::new();
        for (group, (after, before)) in sessions.iter().zip(&stored).enumerate() {
            let before_bytes = before.as_deref().unwrap_or_default();
            // Most keys' sessions are unchanged (a row inside a session): compared in place.
            let unchanged = before_bytes.len() == after.windows().len() * SESSION_BYTES
                && before_bytes
                    .chunks_exact(SESSION_BYTES)
                    .zip(after.windows())
                    .all(|(c, w)| session_of(c) == *w);
            if unchanged {
                continue;
            }
            let state_key = groups.key(group);
            if after.is_empty() {
                batch.delete(self.sessions, state_key);
            } else {
                batch.put(self.sessions, state_key, encode_sessions(after));
            }
            // Both lists are sorted and disjoint, so their ends are sorted too.
            let old = before_bytes
                .chunks_exact(SESSION_BYTES)
                .map(|c| session_of(c).end);
            let new = after.windows().iter().map(|w| w.end);
            for change in sorted_difference(old, new) {
                match change {
                    Ok(end) => gone.push((group, end)),
                    Err(end) => added.push((group, end)),
                }
            }
        }
        self.keyed.store_mut().write(&batch)?;
        let timer = |&(group, end): &(usize, i64)| {
            let state_key = groups.key(group);
            (
                key_group_of(state_key),
                clock.window_timer(end),
                &state_key[KEY_GROUP_BYTES..],
                namespace(end),
            )
        };
        self.keyed.delete_event_timers(gone.iter().map(timer))?;
        self.keyed.register_event_timers(added.iter().map(timer))
    }

    /// Moves event time to `watermark` and fires every session due, emitting its results.
    pub fn fire(&mut self, watermark: i64) -> Result<ChangelogBatch> {
        if !self.keyed.advance_watermark(watermark) {
            return self.empty();
        }
        let due = self.keyed.fire_event_timers()?;
        if due.is_empty() {
            return self.empty();
        }
        // Each due key's sessions, read once.
        let state_key = |kg: u16, key_ns: &[u8]| {
            let mut key = kg.to_be_bytes().to_vec();
            key.extend_from_slice(&key_ns[..key_ns.len() - NAMESPACE_BYTES]);
            key
        };
        let mut keys: BTreeMap<Vec<u8>, Sessions> = due
            .iter()
            .map(|t| {
                (
                    state_key(t.key_group, &t.key_and_namespace),
                    Sessions::default(),
                )
            })
            .collect();
        let refs: Vec<&[u8]> = keys.keys().map(Vec::as_slice).collect();
        let groups = groups_of(&refs);
        let order: Vec<u32> = (0..refs.len() as u32).collect();
        let stored = self
            .keyed
            .read_groups(self.sessions, &groups, &order, None)?;
        for ((_, sessions), value) in keys.iter_mut().zip(&stored) {
            *sessions = decode_sessions(value.as_deref())?;
        }
        let mut wanted = Vec::with_capacity(due.len());
        for t in &due {
            let end = end_of(&t.key_and_namespace[t.key_and_namespace.len() - NAMESPACE_BYTES..])?;
            wanted.push(acc_key(&state_key(t.key_group, &t.key_and_namespace), end));
        }
        let mut cache = AccCache::default();
        cache.load(&self.accs, self.keyed.store_mut(), wanted)?;

        let fresh = fresh_accs(&self.accs);
        let visible = &self.calls[..self.spec.aggregate.calls.len()];
        let mut fired = Fired::default();
        for t in &due {
            let (key_row, ns) = t
                .key_and_namespace
                .split_at(t.key_and_namespace.len() - NAMESPACE_BYTES);
            let end = end_of(ns)?;
            let key = state_key(t.key_group, &t.key_and_namespace);
            let sessions = keys.get_mut(&key).expect("every due key was read");
            let Some(window) = sessions.ending_at(end) else {
                return Err(Error::State(format!(
                    "a timer at {} of key group {} names a session ending at {end} that is not \
                     in state",
                    t.timestamp, t.key_group
                )));
            };
            sessions.remove(&window);
            let mut acc = cache
                .take(&acc_key(&key, end))
                .unwrap_or_else(|| fresh.clone());
            fired.push(key_row, window, visible, &mut acc)?;
        }
        cache.write(&self.accs, self.keyed.store_mut())?;
        let mut batch = WriteBatch::new();
        for (key, sessions) in &keys {
            if sessions.is_empty() {
                batch.delete(self.sessions, key);
            } else {
                batch.put(self.sessions, key, encode_sessions(sessions));
            }
        }
        self.keyed.store_mut().write(&batch)?;
        fired.finish(
            &self.schema,
            &self.key_types,
            visible,
            &self.spec.properties,
            &self.spec.aggregate.input_types[self.spec.time_column],
            &self.clock,
        )
    }

    /// Publishes a checkpoint of the state, timers and watermark at `target`.
    pub fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        self.keyed.checkpoint(target, &self.identity)
    }

    fn empty(&self) -> Result<ChangelogBatch> {
        Ok(ChangelogBatch::insert_only(RecordBatch::new_empty(
            self.schema.clone(),
        )))
    }
}

impl Operator for SessionWindowAggregate {
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

    /// Nothing is buffered (rows reach state as they arrive); sessions fire on watermarks
    /// only.
    fn flush(&mut self, _out: &mut Output) -> Result<()> {
        Ok(())
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        SessionWindowAggregate::checkpoint(self, target)
    }

    fn memory_bytes(&self) -> u64 {
        self.keyed.memory_bytes()
    }
}
