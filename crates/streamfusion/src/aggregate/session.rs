//! SESSION window aggregation: Flink's `WindowAggOperator` with
//! `UnsliceSyncStateWindowAggProcessor`, the one-phase plan of `GROUP BY window_start,
//! window_end, k` over `TABLE(SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap))`, in
//! event time; and the legacy `GROUP BY k, SESSION(ts, gap)` group window (Flink's
//! `WindowOperator` with `MergingWindowProcessFunction`, early and late firing off), whose
//! sessions and results are the same.
//!
//! # State
//!
//! - Each key's in-flight sessions with their accumulators, one value per key,
//!   `[key group][key row]` → `(start, end, accumulators)` in session order
//!   ([`KeySessions`]). Flink keeps the sessions (`session-window-mapping`) and each
//!   session's accumulators (under the window it started in) apart; one value per key makes
//!   a row one read and one write, and a merge of two sessions no more.
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

use std::collections::{BTreeMap, BTreeSet};
use std::ops::RangeInclusive;
use std::path::Path;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::SchemaRef;

use super::acc_codec::AccCodec;
use super::function::{Acc, BoundCall};
use super::group::{
    CallInputs, GroupAggSpec, Groups, access_order, check_input, check_max_parallelism,
    rows_by_slot,
};
use super::window::{
    Fired, NAMESPACE_BYTES, WindowCalls, WindowProperty, end_of, groups_of, key_group_of,
    namespace, row_times, with_properties,
};
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::keys::KeyHasher;
use crate::keys::layout::KEY_GROUP_BYTES;
use crate::ops::keyed::{Keyed, RestoredWatermark};
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port, StateConfig};
use crate::state::checkpoint::Checkpoint;
use crate::state::rows::RowCodec;
use crate::state::{TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;
use crate::window::TimeWindow;
use crate::window::session::{Assigned, Sessions};
use crate::window_clock::WindowClock;

/// The version of the session aggregate's state layout, stored with its checkpoints
/// (2: sessions and their accumulators in one value per key).
pub const STATE_VERSION: u32 = 2;
const SESSION_TABLE: &str = "session_agg.sessions";
/// A session's head in its key's value: start and end (big-endian), then the length of its
/// accumulators' encoding (`u32`, big-endian).
const SESSION_HEAD_BYTES: usize = 20;

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
    codec: AccCodec,
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

/// One key's in-flight sessions and each one's accumulators, as its state value holds them.
struct KeySessions {
    sessions: Sessions,
    /// Each session's accumulators, by the session's end.
    accs: Vec<(i64, Vec<Acc>)>,
}

impl KeySessions {
    /// The sessions of a stored value (none without one).
    fn decode(value: Option<&[u8]>, codec: &AccCodec) -> Result<Self> {
        let mut windows = Vec::new();
        let mut accs = Vec::new();
        let mut rest = value.unwrap_or_default();
        while !rest.is_empty() {
            let Some((head, tail)) = rest.split_first_chunk::<SESSION_HEAD_BYTES>() else {
                return Err(Error::State(format!(
                    "a key's sessions end in {} bytes, short of a session's \
                     {SESSION_HEAD_BYTES}-byte head",
                    rest.len()
                )));
            };
            let long = |b: &[u8]| i64::from_be_bytes(b.try_into().expect("8 bytes"));
            let window = TimeWindow {
                start: long(&head[..8]),
                end: long(&head[8..16]),
            };
            let len = u32::from_be_bytes(head[16..].try_into().expect("4 bytes")) as usize;
            if tail.len() < len {
                return Err(Error::State(format!(
                    "the session [{}, {}) has {len} bytes of accumulators, {} are stored",
                    window.start,
                    window.end,
                    tail.len()
                )));
            }
            let (encoded, tail) = tail.split_at(len);
            let mut row = codec.fresh().to_vec();
            codec.decode_into(encoded, &mut row)?;
            windows.push(window);
            accs.push((window.end, row));
            rest = tail;
        }
        Ok(Self {
            sessions: Sessions::from_windows(windows)?,
            accs,
        })
    }

    /// The value of the sessions: each one's head and accumulators, in session order.
    fn encode(&self, codec: &AccCodec) -> Result<Vec<u8>> {
        // A head and a few words of accumulators per session, grown only by wide ones.
        let mut out = Vec::with_capacity(self.accs.len() * (SESSION_HEAD_BYTES + 48));
        for w in self.sessions.windows() {
            let Some((_, row)) = self.accs.iter().find(|(end, _)| *end == w.end) else {
                return Err(Error::State(format!(
                    "the session [{}, {}) has no accumulators",
                    w.start, w.end
                )));
            };
            out.extend_from_slice(&w.start.to_be_bytes());
            out.extend_from_slice(&w.end.to_be_bytes());
            let at = out.len();
            out.extend_from_slice(&[0; 4]);
            codec.encode(row, &mut out);
            let len = u32::try_from(out.len() - at - 4).map_err(|_| {
                Error::State(format!(
                    "the accumulators of the session [{}, {}) exceed 4 GiB",
                    w.start, w.end
                ))
            })?;
            out[at..at + 4].copy_from_slice(&len.to_be_bytes());
        }
        Ok(out)
    }

    /// The ends of the sessions, ascending.
    fn ends(&self) -> impl Iterator<Item = i64> + '_ {
        self.sessions.windows().iter().map(|w| w.end)
    }

    /// Removes and returns the accumulators of the session ending at `end`.
    fn take(&mut self, end: i64) -> Option<Vec<Acc>> {
        let at = self.accs.iter().position(|(e, _)| *e == end)?;
        Some(self.accs.swap_remove(at).1)
    }

    /// The accumulators of the session ending at `end`: `fresh` when it has none yet.
    fn accs_of(&mut self, end: i64, fresh: &[Acc]) -> &mut Vec<Acc> {
        let at = match self.accs.iter().position(|(e, _)| *e == end) {
            Some(at) => at,
            None => {
                self.accs.push((end, fresh.to_vec()));
                self.accs.len() - 1
            }
        };
        &mut self.accs[at].1
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
            codec,
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
        let mut keys = stored
            .iter()
            .map(|v| KeySessions::decode(v.as_deref(), &self.codec))
            .collect::<Result<Vec<_>>>()?;
        let old_ends: Vec<Vec<i64>> = keys.iter().map(|k| k.ends().collect()).collect();

        let fresh = self.codec.fresh().to_vec();
        let inputs = CallInputs::new(&self.calls, batch, &aggregate.input_types)?;
        let (starts, grouped) = rows_by_slot(&row_group, groups.len());
        let watermark = self.keyed.watermark();
        let gap = self.spec.gap;
        let clock = self.clock;
        // Whether a key took a row (a key whose rows were all late is left as it is).
        let mut touched = vec![false; keys.len()];
        for (group, key) in keys.iter_mut().enumerate() {
            for &row in &grouped[starts[group] as usize..starts[group + 1] as usize] {
                let row = row as usize;
                let t = clock.local(times[row]);
                let window = TimeWindow {
                    start: t,
                    end: t.wrapping_add(gap),
                };
                let target = match key.sessions.add(window, watermark, |t| clock.timer(t))? {
                    Assigned::Late => {
                        self.late_rows_dropped += 1;
                        continue;
                    }
                    Assigned::New(w) | Assigned::Existing(w) => w,
                    Assigned::Merged { result, merged } => {
                        // `DefaultAccMergingConsumer`: the first session's accumulators
                        // take the others'.
                        let mut kept = key.take(merged[0].end).unwrap_or_else(|| fresh.clone());
                        for other in &merged[1..] {
                            if let Some(other) = key.take(other.end) {
                                for ((call, acc), other) in
                                    self.calls.iter().zip(&mut kept).zip(&other)
                                {
                                    call.merge(acc, other, None)?;
                                }
                            }
                        }
                        key.accs.push((result.end, kept));
                        result
                    }
                };
                touched[group] = true;
                let accs = key.accs_of(target.end, &fresh);
                inputs.accumulate(&self.calls, accs, row)?;
            }
        }

        // Keys written back, in the order they were read (key order where the store prefers
        // it: sequential memtable inserts); a session's timer follows its end.
        let mut batch = WriteBatch::new();
        let mut gone = Vec::new();
        let mut added = Vec::new();
        for &group in &order {
            let group = group as usize;
            if !touched[group] {
                continue;
            }
            let key = &keys[group];
            let state_key = groups.key(group);
            batch.put(self.sessions, state_key, key.encode(&self.codec)?);
            for change in sorted_difference(old_ends[group].iter().copied(), key.ends()) {
                let (list, end) = match change {
                    Ok(end) => (&mut gone, end),
                    Err(end) => (&mut added, end),
                };
                list.push((key_group_of(state_key), clock.window_timer(end), group, end));
            }
        }
        self.keyed.store_mut().write(&batch)?;
        // In timer order (key group, time, then key, as the groups' order already is).
        gone.sort_by_key(|&(kg, at, ..)| (kg, at));
        added.sort_by_key(|&(kg, at, ..)| (kg, at));
        let timer = |&(kg, at, group, end): &(u16, i64, usize, i64)| {
            (
                kg,
                at,
                &groups.key(group)[KEY_GROUP_BYTES..],
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
        let due_keys: BTreeSet<Vec<u8>> = due
            .iter()
            .map(|t| state_key(t.key_group, &t.key_and_namespace))
            .collect();
        let refs: Vec<&[u8]> = due_keys.iter().map(Vec::as_slice).collect();
        let groups = groups_of(&refs);
        let order: Vec<u32> = (0..refs.len() as u32).collect();
        let stored = self
            .keyed
            .read_groups(self.sessions, &groups, &order, None)?;
        let mut keys = due_keys
            .into_iter()
            .zip(&stored)
            .map(|(key, value)| Ok((key, KeySessions::decode(value.as_deref(), &self.codec)?)))
            .collect::<Result<BTreeMap<Vec<u8>, KeySessions>>>()?;

        let fresh = self.codec.fresh();
        let visible = &self.calls[..self.spec.aggregate.calls.len()];
        let mut fired = Fired::default();
        for t in &due {
            let (key_row, ns) = t
                .key_and_namespace
                .split_at(t.key_and_namespace.len() - NAMESPACE_BYTES);
            let end = end_of(ns)?;
            let key = state_key(t.key_group, &t.key_and_namespace);
            let sessions = keys.get_mut(&key).expect("every due key was read");
            let Some(window) = sessions.sessions.ending_at(end) else {
                return Err(Error::State(format!(
                    "a timer at {} of key group {} names a session ending at {end} that is not \
                     in state",
                    t.timestamp, t.key_group
                )));
            };
            sessions.sessions.remove(&window);
            let mut acc = sessions.take(end).unwrap_or_else(|| fresh.to_vec());
            fired.push(key_row, window, visible, &mut acc)?;
        }
        let mut batch = WriteBatch::new();
        for (key, sessions) in &keys {
            if sessions.sessions.is_empty() {
                batch.delete(self.sessions, key);
            } else {
                batch.put(self.sessions, key, sessions.encode(&self.codec)?);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::value::Value;

    fn codec() -> AccCodec {
        super::super::acc_codec::count_and_sum()
    }

    fn two_sessions() -> KeySessions {
        let windows = vec![
            TimeWindow { start: -5, end: 10 },
            TimeWindow { start: 20, end: 31 },
        ];
        KeySessions {
            sessions: Sessions::from_windows(windows).unwrap(),
            // Out of session order, as merges leave them.
            accs: vec![
                (
                    31,
                    vec![
                        Acc::Count(2),
                        Acc::Sum {
                            sum: Value::Int(-4),
                            count: 2,
                        },
                    ],
                ),
                (10, vec![Acc::Count(1), codec().fresh()[1].clone()]),
            ],
        }
    }

    #[test]
    fn a_keys_sessions_round_trip_in_session_order() {
        let codec = codec();
        let bytes = two_sessions().encode(&codec).unwrap();
        // Heads in session order: the first session starts at -5.
        assert_eq!(&bytes[..8], &(-5i64).to_be_bytes());
        let back = KeySessions::decode(Some(&bytes), &codec).unwrap();
        assert_eq!(back.sessions.windows(), two_sessions().sessions.windows());
        assert_eq!(back.ends().collect::<Vec<_>>(), [10, 31]);
        let mut back = back;
        assert_eq!(back.take(31), Some(two_sessions().accs[0].1.clone()));
        assert_eq!(back.take(10), Some(two_sessions().accs[1].1.clone()));
        let none = KeySessions::decode(None, &codec).unwrap();
        assert!(none.sessions.is_empty());
        assert!(none.encode(&codec).unwrap().is_empty());
    }

    #[test]
    fn damaged_values_and_sessions_without_accumulators_are_refused() {
        let codec = codec();
        let bytes = two_sessions().encode(&codec).unwrap();
        // A cut head, cut accumulators, and bytes past the last session.
        for bad in [
            &bytes[..SESSION_HEAD_BYTES - 1],
            &bytes[..bytes.len() - 1],
            &[bytes.as_slice(), &[0; 3]].concat()[..],
        ] {
            let err = KeySessions::decode(Some(bad), &codec)
                .map(|_| ())
                .expect_err("refused");
            assert!(matches!(err, Error::State(_)), "{err}");
        }
        // Sessions out of order.
        let len = u32::from_be_bytes(bytes[16..SESSION_HEAD_BYTES].try_into().unwrap());
        let first = SESSION_HEAD_BYTES + len as usize;
        let swapped = [&bytes[first..], &bytes[..first]].concat();
        let err = KeySessions::decode(Some(&swapped), &codec)
            .map(|_| ())
            .expect_err("refused");
        assert!(err.to_string().contains("out of order"), "{err}");
        let mut lone = two_sessions();
        lone.accs.pop();
        let err = lone.encode(&codec).unwrap_err();
        assert!(
            err.to_string().contains("[-5, 10) has no accumulators"),
            "{err}"
        );
    }
}
