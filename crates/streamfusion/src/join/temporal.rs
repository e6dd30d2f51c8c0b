//! Temporal join in event time: Flink's `TemporalRowTimeJoinOperator`, the plan of `L [LEFT]
//! JOIN R FOR SYSTEM_TIME AS OF L.t ON L.k = R.k` over a versioned table `R` (a primary key
//! and a row time), and of the temporal table function join `LATERAL TABLE(F(L.t))`.
//!
//! # Rows
//!
//! Rows of both inputs are only stored when they arrive; a key's results come when the
//! watermark reaches its timer. A left row is kept under its arrival; a right row (a version
//! of the key's right row, of any kind) under its time, replacing the version stored at that
//! time. A key has one timer, at the smallest time stored since it last fired: a row earlier
//! than the registered timer moves it. When the timer fires at watermark `w`, the key's left
//! rows at or before `w` leave the state and are emitted in arrival order, each with the
//! version of the largest time at or before its own: `[left, version]` when that version is
//! `+I` or `+U` and the non-equi condition is TRUE, otherwise (LEFT) `[left, NULL..]`, in the
//! left row's kind. The key has no NULL filter (Flink's condition is the non-equi one alone):
//! rows of the same key bytes meet, NULLs included, as Flink's keyed state has them. Then the
//! versions before the latest one at or before `w` leave the state (that one always stays),
//! and the timer is registered again at the earliest left row still waiting, if any. A row
//! at or before the watermark is not dropped: its timer fires at the next watermark.
//!
//! # State
//!
//! `temporal_join.left`: `[key group][key row][time][arrival]` -> `[kind][BinaryRowData]`;
//! `temporal_join.right`: `[key group][key row][time]` -> `[kind][BinaryRowData]`; times
//! big-endian with the sign bit flipped, so that a scan walks them in ascending order, and the
//! arrival a big-endian `u64`. `temporal_join.key`: `[key group][key row]` -> the registered
//! timer, the next arrival number, the time of the earliest version and the cleanup timer,
//! while the key has any. Flink keeps the left rows by arrival alone and reads them all at each timer; kept by
//! time first, a timer reads only the rows it emits and the first one still waiting, and its
//! scans start at the timer and the earliest version (decision 0049). Timers live in the
//! keyed driver's timer table. Checkpointed and rescaled with its key groups.
//!
//! # State retention
//!
//! With [`TemporalJoinSpec::state_retention`] (`table.exec.state.ttl`) a key's whole state is
//! cleared once it has been idle that long in processing time ([`super::retention`]): every
//! row renews the key's cleanup timer, and so does a firing that leaves rows waiting or a
//! version stored; a firing that leaves nothing deletes it. The timer's time is kept in the
//! key's entry and the timer in the keyed driver's processing-time timers. A cleanup clears
//! the key's rows, versions and entry, but not its event-time timer (Flink's `cleanupState`
//! clears only the timer's value): that timer fires later and finds nothing to emit, but it
//! renews the cleanup timer of rows that came since, as Flink's does.

use std::path::Path;

use hashbrown::HashSet;

use arrow::array::{Array, AsArray, Int8Array, RecordBatch};
use arrow::datatypes::{SchemaRef, TimestampMillisecondType};

use super::pairs::{RowBuffer, TimedJoinIo, joined_rows, verdicts};
use super::retention::{self, CleanupTimers, StateRetention, split_state_key};
use super::{Condition, JoinType, TimedJoinInput, check_join};
use crate::aggregate::group::check_columns;
use crate::calc::CalcProgram;
use crate::changelog::{ChangelogBatch, RowKind};
use crate::error::{Error, Result};
use crate::keys::layout::prefix_successor;
use crate::ops::keyed::{Keyed, KeyedOperator};
use crate::ops::{Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::state::timers::Timer;
use crate::state::{ScanRange, TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;

/// The version of the state layout described above.
pub const STATE_VERSION: u32 = 2;
const ROWS: [&str; 2] = ["temporal_join.left", "temporal_join.right"];
const KEYS: &str = "temporal_join.key";
const NO_NAMESPACE: [u8; 0] = [];

/// A temporal join plan, as JSON: `{"join_type": "left", "left": {"names": ["k", "ts"],
/// "types": ["INT", "TIMESTAMP(3)"], "keys": [0], "time_column": 1}, "right": {...},
/// "condition": null, "max_parallelism": 128}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemporalJoinSpec {
    /// INNER or LEFT.
    pub join_type: JoinType,
    /// The left (probe) input.
    pub left: TimedJoinInput,
    /// The right input: the versioned table's changelog.
    pub right: TimedJoinInput,
    /// The non-equi condition: a program over the joined row (left columns, then right)
    /// projecting one BOOLEAN; a left row joins its version when it is TRUE.
    pub condition: Option<CalcProgram>,
    /// The job's max parallelism (number of key groups).
    pub max_parallelism: u32,
    /// Flink's state retention (`table.exec.state.ttl`): a key idle that long in processing
    /// time is cleared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_retention: Option<StateRetention>,
}

impl TemporalJoinSpec {
    /// What a checkpoint must agree on to be restored: the inputs' types, keys and times.
    pub fn semantics(&self) -> serde_json::Value {
        let input = |i: &TimedJoinInput| {
            serde_json::json!({
                "types": i.types.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "keys": i.keys,
                "time_column": i.time_column,
            })
        };
        serde_json::json!({"left": input(&self.left), "right": input(&self.right)})
    }

    fn input(&self, port: Port) -> &TimedJoinInput {
        if port == 0 { &self.left } else { &self.right }
    }
}

/// A stored time as its entry key has it: big-endian with the sign bit flipped, so that the
/// bytes sort as the times do.
fn time_bytes(time: i64) -> [u8; 8] {
    ((time as u64) ^ (1 << 63)).to_be_bytes()
}

fn time_of(bytes: &[u8]) -> Result<i64> {
    let bytes: [u8; 8] = bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| {
            Error::State(format!(
                "a temporal join row entry's time has {} bytes, not 8",
                bytes.len()
            ))
        })?;
    Ok((u64::from_be_bytes(bytes) ^ (1 << 63)) as i64)
}

/// Visits a scanned entry (key, value): whether to go on, or what was wrong with it.
type EntryVisitor<'a> = dyn FnMut(&[u8], &[u8]) -> Result<bool> + 'a;

/// A stored row: `[kind][BinaryRowData]`.
fn split_row(value: &[u8]) -> Result<(RowKind, &[u8])> {
    value
        .split_first()
        .and_then(|(&kind, row)| Some((RowKind::from_byte(kind as i8)?, row)))
        .ok_or_else(|| {
            Error::State(format!(
                "a temporal join row entry of {} bytes without a row kind",
                value.len()
            ))
        })
}

/// A key's timer and arrival counter (Flink's `registeredTimer` and `nextLeftIndex`), the
/// time of its earliest version, and its cleanup timer (Flink's `cleanup-timestamp`).
///
/// Every left row of the key is at or after its timer (a row earlier than the timer moves
/// it; a timer leaves only later rows), and no version lies before `versions_from`, so a
/// timer's scans start there: on RocksDB they would otherwise step over the deletion of every
/// row and version the key ever had.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct KeyEntry {
    timer: Option<i64>,
    next_arrival: u64,
    versions_from: Option<i64>,
    cleanup: Option<i64>,
}

impl KeyEntry {
    const BYTES: usize = 35;

    fn decode(value: Option<Vec<u8>>) -> Result<Self> {
        let Some(value) = value else {
            return Ok(Self::default());
        };
        if value.len() != Self::BYTES {
            return Err(Error::State(format!(
                "a temporal join key entry of {} bytes, not {}",
                value.len(),
                Self::BYTES
            )));
        }
        let long = |at: usize| <[u8; 8]>::try_from(&value[at..at + 8]).expect("8 bytes");
        Ok(Self {
            timer: (value[0] != 0).then(|| i64::from_le_bytes(long(1))),
            next_arrival: u64::from_le_bytes(long(9)),
            versions_from: (value[17] != 0).then(|| i64::from_le_bytes(long(18))),
            cleanup: (value[26] != 0).then(|| i64::from_le_bytes(long(27))),
        })
    }

    fn encode(&self) -> [u8; Self::BYTES] {
        let mut value = [0u8; Self::BYTES];
        value[0] = u8::from(self.timer.is_some());
        value[1..9].copy_from_slice(&self.timer.unwrap_or(0).to_le_bytes());
        value[9..17].copy_from_slice(&self.next_arrival.to_le_bytes());
        value[17] = u8::from(self.versions_from.is_some());
        value[18..26].copy_from_slice(&self.versions_from.unwrap_or(0).to_le_bytes());
        value[26] = u8::from(self.cleanup.is_some());
        value[27..].copy_from_slice(&self.cleanup.unwrap_or(0).to_le_bytes());
        value
    }
}

/// A right version of a key read at a timer.
struct Version {
    time: i64,
    kind: RowKind,
    row: Vec<u8>,
    /// Its index among the decoded right rows, once a left row meets it.
    decoded: Option<u32>,
}

/// A left row a timer emits.
struct Due {
    arrival: u64,
    time: i64,
    kind: RowKind,
    /// Its index among the decoded left rows.
    decoded: u32,
}

/// The temporal join over one task's keyed state.
pub struct TemporalJoin {
    spec: TemporalJoinSpec,
    identity: PlanIdentity,
    keyed: Keyed,
    io: TimedJoinIo,
    rows: [TableId; 2],
    keys: TableId,
    condition: Option<Condition>,
}

impl std::fmt::Debug for TemporalJoin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TemporalJoin")
            .field("join_type", &self.spec.join_type)
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

impl TemporalJoin {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &TemporalJoinSpec) -> PlanIdentity {
        PlanIdentity::new(OperatorKind::TemporalJoin, STATE_VERSION, &spec.semantics())
    }

    /// An operator for `spec` over the keyed driver `keyed` (fresh or restored); a plan it
    /// cannot run as Flink would is an error.
    pub fn open(spec: TemporalJoinSpec, mut keyed: Keyed) -> Result<Self> {
        let condition = check_spec(&spec)?;
        if keyed.max_parallelism() != spec.max_parallelism {
            return Err(Error::OutOfRange(format!(
                "the plan's max parallelism is {} but its state has {} key groups",
                spec.max_parallelism,
                keyed.max_parallelism()
            )));
        }
        let store = keyed.store_mut();
        let rows = [
            store.open_table_with(ROWS[0], TableAccess::Ordered)?,
            store.open_table_with(ROWS[1], TableAccess::Ordered)?,
        ];
        let keys = store.open_table_with(KEYS, TableAccess::Point)?;
        Ok(Self {
            identity: Self::identity_of(&spec),
            io: TimedJoinIo::new(&spec.left, &spec.right),
            rows,
            keys,
            condition,
            keyed,
            spec,
        })
    }

    /// The plan.
    pub fn spec(&self) -> &TemporalJoinSpec {
        &self.spec
    }

    fn read_entries<'k>(
        &self,
        state_keys: impl Iterator<Item = &'k [u8]>,
    ) -> Result<Vec<KeyEntry>> {
        let refs: Vec<&[u8]> = state_keys.collect();
        self.keyed
            .store()
            .multi_get(self.keys, &refs)?
            .into_iter()
            .map(KeyEntry::decode)
            .collect()
    }

    /// Stores a batch of input `port` (left rows under their arrival, right versions under
    /// their time) and moves each key's timer to its smallest time (Flink's
    /// `registerSmallestTimer`).
    fn store_rows(&mut self, port: Port, input: &ChangelogBatch) -> Result<()> {
        let spec = self.spec.input(port);
        check_columns(
            if port == 0 {
                "temporal join left batch"
            } else {
                "temporal join right batch"
            },
            &spec.types,
            input.batch(),
        )?;
        let n = input.num_rows();
        if n == 0 {
            return Ok(());
        }
        let batch = input.batch();
        let times = row_times(batch, spec.time_column);
        let (groups, row_group) = self.keyed.groups(&self.io.hasher, batch, &spec.keys)?;
        let mut entries = self.read_entries((0..groups.len()).map(|g| groups.key(g)))?;
        let before = entries.clone();
        let rows = self.io.writers[port].write(batch.columns())?;
        let retention = self.spec.state_retention;
        let now = retention::now(retention, &self.keyed);
        let mut write = WriteBatch::new();
        let mut key = Vec::new();
        let mut value = Vec::new();
        for r in 0..n {
            let g = row_group[r] as usize;
            let entry = &mut entries[g];
            key.clear();
            key.extend_from_slice(groups.key(g));
            key.extend_from_slice(&time_bytes(times[r]));
            if port == 0 {
                key.extend_from_slice(&entry.next_arrival.to_be_bytes());
                entry.next_arrival += 1;
            } else if entry.versions_from.is_none_or(|t| t > times[r]) {
                entry.versions_from = Some(times[r]);
            }
            value.clear();
            value.push(input.kind(r).to_byte() as u8);
            value.extend_from_slice(rows.row(r));
            // A later version of the same time replaces the earlier (the writes apply in
            // order), as Flink's `rightState.put(rowTime, row)`.
            write.put(self.rows[port], &key, &value);
            if entry.timer.is_none_or(|t| t > times[r]) {
                entry.timer = Some(times[r]);
            }
            if let Some(at) = retention.and_then(|r| r.renewed(now, entry.cleanup)) {
                entry.cleanup = Some(at);
            }
        }
        let (mut deleted, mut registered) = (Vec::new(), Vec::new());
        let mut cleanups = CleanupTimers::default();
        for (g, (entry, before)) in entries.iter().zip(&before).enumerate() {
            if entry == before {
                continue;
            }
            let state_key = groups.key(g);
            write.put(self.keys, state_key, entry.encode());
            if entry.timer != before.timer {
                let (key_group, key) = split_state_key(state_key);
                if let Some(t) = before.timer {
                    deleted.push((key_group, t, key, NO_NAMESPACE));
                }
                registered.push((key_group, entry.timer.expect("just set"), key, NO_NAMESPACE));
            }
            cleanups.change(state_key, before.cleanup, entry.cleanup);
        }
        self.keyed.store_mut().write(&write)?;
        self.keyed.delete_event_timers(deleted)?;
        self.keyed.register_event_timers(registered)?;
        cleanups.apply(&mut self.keyed)
    }

    /// Clears the state of every key whose cleanup timer is among `due` (Flink's
    /// `onProcessingTime` and `cleanupState`): its rows, versions and entry. Its event-time
    /// timer stays registered, as Flink's does.
    fn clean(&mut self, due: &[Timer]) -> Result<()> {
        if due.is_empty() {
            return Ok(());
        }
        let state_keys: Vec<Vec<u8>> = due.iter().map(Timer::state_key).collect();
        let entries = self.read_entries(state_keys.iter().map(Vec::as_slice))?;
        let mut cleaned: Vec<(&[u8], KeyEntry)> = state_keys
            .iter()
            .zip(entries)
            .zip(due)
            .filter(|((_, entry), timer)| entry.cleanup == Some(timer.timestamp))
            .map(|((state_key, entry), _)| (state_key.as_slice(), entry))
            .collect();
        // In key order: one walk of each table reads them all (decision 0047).
        cleaned.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut write = WriteBatch::new();
        // Every left row is at or after the key's timer, and none without one; no version
        // is before `versions_from`.
        for port in [0, 1] {
            let table = self.rows[port];
            let bounds: Vec<(Vec<u8>, Option<Vec<u8>>)> = cleaned
                .iter()
                .filter_map(|(state_key, entry)| {
                    let from = if port == 0 {
                        entry.timer
                    } else {
                        entry.versions_from
                    };
                    let start = [state_key, &time_bytes(from?)[..]].concat();
                    Some((start, prefix_successor(state_key)))
                })
                .collect();
            let ranges: Vec<ScanRange<'_>> = bounds
                .iter()
                .map(|(start, end)| match end {
                    Some(end) => ScanRange::Between(start, end),
                    // A key of only 0xff bytes has no successor: the scan is its prefix's.
                    None => ScanRange::Prefix(&start[..start.len() - 8]),
                })
                .collect();
            self.keyed
                .store()
                .scan_ranges(table, &ranges, &mut |_, k, _| {
                    write.delete(table, k);
                    true
                })?;
        }
        for (state_key, _) in &cleaned {
            write.delete(self.keys, state_key);
        }
        self.keyed.store_mut().write(&write)
    }

    /// The left rows of `state_key` (none before `from`) at or before `watermark`, in stored
    /// order (by time, then arrival), appended to `decoded`, with the entry keys they leave,
    /// and the time of the first row still waiting.
    fn due_rows(
        &self,
        state_key: &[u8],
        from: i64,
        watermark: i64,
        decoded: &mut RowBuffer,
        removed: &mut Vec<Vec<u8>>,
    ) -> Result<(Vec<Due>, Option<i64>)> {
        let mut due = Vec::new();
        let mut waiting = None;
        self.scan_key(self.rows[0], state_key, from, &mut |k, v| {
            let rest = &k[state_key.len()..];
            let time = time_of(rest)?;
            if time > watermark {
                waiting = Some(time);
                return Ok(false);
            }
            let arrival = rest
                .get(8..16)
                .map(|b| u64::from_be_bytes(b.try_into().expect("8 bytes")))
                .ok_or_else(|| {
                    Error::State("a temporal join left entry without its arrival".into())
                })?;
            let (kind, row) = split_row(v)?;
            due.push(Due {
                arrival,
                time,
                kind,
                decoded: decoded.push(row),
            });
            removed.push(k.to_vec());
            Ok(true)
        })?;
        Ok((due, waiting))
    }

    /// Every right version of `state_key` (none before `from`), in ascending time.
    fn versions(&self, state_key: &[u8], from: i64) -> Result<Vec<Version>> {
        let mut versions = Vec::new();
        self.scan_key(self.rows[1], state_key, from, &mut |k, v| {
            let time = time_of(&k[state_key.len()..])?;
            let (kind, row) = split_row(v)?;
            versions.push(Version {
                time,
                kind,
                row: row.to_vec(),
                decoded: None,
            });
            Ok(true)
        })?;
        Ok(versions)
    }

    /// Scans the entries of `state_key` in `table` from time `from` until `each` returns
    /// false or fails (its error is the scan's).
    fn scan_key(
        &self,
        table: TableId,
        state_key: &[u8],
        from: i64,
        each: &mut EntryVisitor<'_>,
    ) -> Result<()> {
        let start = [state_key, &time_bytes(from)].concat();
        let end = prefix_successor(state_key);
        let range = match &end {
            Some(end) => ScanRange::Between(&start, end),
            // A key of only 0xff bytes has no successor: the scan is its prefix's.
            None => ScanRange::Prefix(state_key),
        };
        let mut failed = None;
        self.keyed
            .store()
            .scan(table, range, &mut |k, v| match each(k, v) {
                Ok(more) => more,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            })?;
        failed.map_or(Ok(()), Err)
    }

    /// Runs every timer the watermark reached, in firing order (Flink's
    /// `emitResultAndCleanUpState`).
    fn fire(&mut self) -> Result<ChangelogBatch> {
        let due_timers = self.keyed.fire_event_timers()?;
        if due_timers.is_empty() {
            return Ok(self.empty());
        }
        let watermark = self
            .keyed
            .watermark()
            .ok_or_else(|| Error::State("temporal join timers fired without a watermark".into()))?;
        // A key fires once: a second timer of it at this watermark (one a cleanup left, see
        // the module's docs) would find nothing left to emit.
        let mut state_keys: Vec<Vec<u8>> = Vec::with_capacity(due_timers.len());
        let mut firing: Vec<Timer> = Vec::with_capacity(due_timers.len());
        {
            let keys: Vec<Vec<u8>> = due_timers.iter().map(Timer::state_key).collect();
            let mut seen = HashSet::with_capacity(keys.len());
            let first: Vec<bool> = keys.iter().map(|k| seen.insert(k.as_slice())).collect();
            drop(seen);
            for ((timer, key), first) in due_timers.into_iter().zip(keys).zip(first) {
                if first {
                    firing.push(timer);
                    state_keys.push(key);
                }
            }
        }
        let due_timers = firing;
        let entries = self.read_entries(state_keys.iter().map(Vec::as_slice))?;
        let retention = self.spec.state_retention;
        let now = retention::now(retention, &self.keyed);
        let mut cleanups = CleanupTimers::default();
        let mut decoded = [RowBuffer::new(), RowBuffer::new()];
        let mut write = WriteBatch::new();
        let mut removed = Vec::new();
        let mut registered = Vec::new();
        // Per left row emitted: the row, the version it meets (`None`: padding) and its kind.
        let mut met: Vec<(u32, Option<u32>, i8)> = Vec::new();
        let left_outer = self.spec.join_type == JoinType::Left;
        for ((state_key, entry), timer) in state_keys.iter().zip(entries).zip(&due_timers) {
            let left_from = entry.timer.map_or(i64::MIN, |t| t.min(timer.timestamp));
            let (mut due, waiting) = self.due_rows(
                state_key,
                left_from,
                watermark,
                &mut decoded[0],
                &mut removed,
            )?;
            let mut versions = self.versions(state_key, entry.versions_from.unwrap_or(i64::MIN))?;
            due.sort_unstable_by_key(|d| d.arrival);
            for d in &due {
                let at = versions.partition_point(|v| v.time <= d.time);
                let version = at
                    .checked_sub(1)
                    .map(|v| &mut versions[v])
                    .filter(|v| v.kind.is_accumulate())
                    .map(|v| *v.decoded.get_or_insert_with(|| decoded[1].push(&v.row)));
                if version.is_some() || left_outer {
                    met.push((d.decoded, version, d.kind.to_byte()));
                }
            }
            // Flink's `firstIndexToKeep`: the latest version at or before the watermark, or
            // the last one when none is later.
            let keep = match versions.iter().position(|v| v.time > watermark) {
                Some(first_later) => first_later.saturating_sub(1),
                None => versions.len().saturating_sub(1),
            };
            for v in &versions[..keep] {
                let mut key = state_key.clone();
                key.extend_from_slice(&time_bytes(v.time));
                write.delete(self.rows[1], key);
            }
            // The timer moves to the first row still waiting. A key with none starts its
            // arrivals over (no left row is left to order), and keeps no entry once it has
            // no version either.
            let versions_from = versions.get(keep).map(|v| v.time);
            // With retention, a key left with rows waiting or a version renews its cleanup
            // timer; one left with neither deletes it.
            let cleanup = match retention {
                Some(r) if waiting.is_some() || versions_from.is_some() => {
                    r.renewed(now, entry.cleanup).or(entry.cleanup)
                }
                _ => None,
            };
            cleanups.change(state_key, entry.cleanup, cleanup);
            let entry = KeyEntry {
                timer: waiting,
                next_arrival: if waiting.is_some() {
                    entry.next_arrival
                } else {
                    0
                },
                versions_from,
                cleanup,
            };
            if entry == KeyEntry::default() {
                write.delete(self.keys, state_key);
            } else {
                write.put(self.keys, state_key, entry.encode());
            }
            if let Some(t) = waiting {
                let (key_group, key) = split_state_key(state_key);
                registered.push((key_group, t, key, NO_NAMESPACE));
            }
        }
        for key in removed {
            write.delete(self.rows[0], key);
        }
        self.keyed.store_mut().write(&write)?;
        self.keyed.register_event_timers(registered)?;
        cleanups.apply(&mut self.keyed)?;
        if met.is_empty() {
            return Ok(self.empty());
        }
        let left = self.io.readers[0].read(&decoded[0].data, &decoded[0].offsets)?;
        let right = self.io.readers[1].read(&decoded[1].data, &decoded[1].offsets)?;
        // A version the condition rejects is no match: the left row is padded (LEFT) or
        // dropped (INNER).
        let accepted = match &self.condition {
            None => None,
            Some(condition) => {
                let (lefts, rights): (Vec<u32>, Vec<u32>) =
                    met.iter().filter_map(|&(l, r, _)| Some((l, r?))).unzip();
                Some(verdicts(
                    condition,
                    left.batch(),
                    right.batch(),
                    &lefts,
                    &rights,
                )?)
            }
        };
        let (mut lefts, mut rights, mut kinds) = (Vec::new(), Vec::new(), Vec::new());
        let mut verdict = accepted.iter().flatten();
        for (l, r, kind) in met {
            let r = r.filter(|_| verdict.next().is_none_or(|&accepted| accepted));
            if r.is_some() || left_outer {
                lefts.push(Some(l));
                rights.push(r);
                kinds.push(kind);
            }
        }
        if lefts.is_empty() {
            return Ok(self.empty());
        }
        let joined = joined_rows(
            &self.io.schema,
            left.batch(),
            Some(right.batch()),
            lefts,
            rights,
        )?;
        if kinds.iter().all(|&k| k == RowKind::Insert.to_byte()) {
            return Ok(joined);
        }
        let (batch, _) = joined.into_parts();
        ChangelogBatch::try_new(batch, Some(Int8Array::from(kinds)))
    }

    fn empty(&self) -> ChangelogBatch {
        ChangelogBatch::insert_only(RecordBatch::new_empty(self.io.schema.clone()))
    }
}

/// Each row's time; a NULL reads as 0, as `getLong` of a NULL BinaryRowData field does.
fn row_times(batch: &RecordBatch, column: usize) -> Vec<i64> {
    let times = batch
        .column(column)
        .as_primitive::<TimestampMillisecondType>();
    (0..batch.num_rows())
        .map(|r| if times.is_null(r) { 0 } else { times.value(r) })
        .collect()
}

/// Checks the plan; returns its compiled condition.
fn check_spec(spec: &TemporalJoinSpec) -> Result<Option<Condition>> {
    if !matches!(spec.join_type, JoinType::Inner | JoinType::Left) {
        return Err(Error::Plan(format!(
            "a temporal join is INNER or LEFT, not {:?}",
            spec.join_type
        )));
    }
    if let Some(retention) = &spec.state_retention {
        retention.check()?;
    }
    let (left, right) = (&spec.left, &spec.right);
    for (side, input) in [("left", left), ("right", right)] {
        match input.types.get(input.time_column) {
            Some(LogicalType::Timestamp(3) | LogicalType::TimestampLtz(3)) => {}
            other => {
                return Err(Error::Plan(format!(
                    "the {side} input's time column {} is {}, not TIMESTAMP(3) or \
                     TIMESTAMP_LTZ(3)",
                    input.time_column,
                    other.map_or("out of range".to_string(), ToString::to_string)
                )));
            }
        }
    }
    // No NULL filter: the key's rows meet by their bytes.
    check_join(
        left.columns(),
        right.columns(),
        &vec![false; left.keys.len()],
        spec.condition.as_ref(),
    )
}

impl Operator for TemporalJoin {
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

    fn process(&mut self, port: Port, input: &ChangelogBatch, _out: &mut Output) -> Result<()> {
        if port > 1 {
            return Err(Error::OutOfRange(format!(
                "a temporal join has two inputs; a batch arrived on input {port}"
            )));
        }
        self.store_rows(port, input)
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

impl KeyedOperator for TemporalJoin {
    type Spec = TemporalJoinSpec;
    const HOLDER: &'static str = "temporal-join";

    fn identity_of(spec: &TemporalJoinSpec) -> PlanIdentity {
        Self::identity_of(spec)
    }

    fn max_parallelism(spec: &TemporalJoinSpec) -> u32 {
        spec.max_parallelism
    }

    fn open(spec: TemporalJoinSpec, keyed: Keyed) -> Result<Self> {
        Self::open(spec, keyed)
    }
}

#[cfg(test)]
mod tests {
    //! Cases worked out by hand from `TemporalRowTimeJoinOperator`'s source; the golden
    //! changelogs of released Flink (`tests/it/temporal_join_flink.rs`) cover the rest.

    use std::sync::Arc;

    use arrow::array::{Int32Array, TimestampMillisecondArray};
    use arrow::datatypes::{DataType, Field, Int32Type, Schema, TimeUnit};
    use tempfile::tempdir;

    use super::*;
    use crate::ops::StateConfig;

    /// `k INT, v INT, t TIMESTAMP(3)` on both inputs, keyed by `k`.
    fn input() -> TimedJoinInput {
        TimedJoinInput {
            names: vec!["k".into(), "v".into(), "t".into()],
            types: vec![
                LogicalType::Int,
                LogicalType::Int,
                LogicalType::Timestamp(3),
            ],
            keys: vec![0],
            time_column: 2,
        }
    }

    fn spec(join_type: JoinType) -> TemporalJoinSpec {
        TemporalJoinSpec {
            join_type,
            left: input(),
            right: input(),
            condition: None,
            max_parallelism: 128,
            state_retention: None,
        }
    }

    /// Rows `(kind, k, v, t)`.
    fn rows(rows: &[(RowKind, i32, i32, i64)]) -> ChangelogBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int32, true),
            Field::new("v", DataType::Int32, true),
            Field::new("t", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.1))),
                Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.2))),
                Arc::new(TimestampMillisecondArray::from_iter_values(
                    rows.iter().map(|r| r.3),
                )),
            ],
        )
        .unwrap();
        let kinds = Int8Array::from_iter_values(rows.iter().map(|r| r.0.to_byte()));
        ChangelogBatch::try_new(batch, Some(kinds)).unwrap()
    }

    use RowKind::{Delete as D, Insert as I, UpdateAfter as UA, UpdateBefore as UB};

    /// The emitted rows as `(kind, left v, left t, right v)`, a padded right as `None`.
    fn emitted(out: &mut Output) -> Vec<(RowKind, i32, i64, Option<i32>)> {
        let mut rows = Vec::new();
        for b in out.take() {
            let c = b.batch().columns();
            let (lv, lt, rv) = (
                c[1].as_primitive::<Int32Type>(),
                c[2].as_primitive::<TimestampMillisecondType>(),
                c[4].as_primitive::<Int32Type>(),
            );
            for r in 0..b.num_rows() {
                rows.push((
                    b.kind(r),
                    lv.value(r),
                    lt.value(r),
                    rv.is_valid(r).then(|| rv.value(r)),
                ));
            }
        }
        rows
    }

    fn configs() -> [StateConfig; 2] {
        [
            StateConfig::memory(),
            StateConfig::rocksdb(tempdir().unwrap().keep()),
        ]
    }

    #[test]
    fn left_rows_meet_the_version_of_their_time_when_the_watermark_passes_them() {
        for config in configs() {
            let mut op = TemporalJoin::build(spec(JoinType::Left), &config, 0..=127).unwrap();
            let mut out = Output::new();
            // Versions of key 1: v=1 from 10, v=2 from 20, deleted at 30.
            op.process(
                1,
                &rows(&[(I, 1, 1, 10), (UA, 1, 2, 20), (D, 1, 2, 30)]),
                &mut out,
            )
            .unwrap();
            // Left rows arrive out of time order; 50 waits for a later watermark.
            op.process(
                0,
                &rows(&[
                    (I, 1, 100, 25),
                    (I, 1, 101, 5),
                    (UB, 1, 102, 15),
                    (I, 1, 103, 35),
                ]),
                &mut out,
            )
            .unwrap();
            op.process(0, &rows(&[(I, 1, 104, 50)]), &mut out).unwrap();
            assert!(emitted(&mut out).is_empty(), "nothing before a watermark");
            op.advance_watermark(40, &mut out).unwrap();
            // In arrival order: 25 meets v=2; 5 precedes every version (padded); 15 meets
            // v=1 in its own kind; 35's version is the deletion (padded).
            assert_eq!(
                emitted(&mut out),
                vec![
                    (I, 100, 25, Some(2)),
                    (I, 101, 5, None),
                    (UB, 102, 15, Some(1)),
                    (I, 103, 35, None),
                ]
            );
            // The watermark at 40 kept the deletion at 30 (the latest at or before it) and
            // removed the versions before it: a late row at 12 finds none.
            op.process(0, &rows(&[(I, 1, 105, 12)]), &mut out).unwrap();
            op.process(1, &rows(&[(I, 1, 3, 45)]), &mut out).unwrap();
            op.advance_watermark(41, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![(I, 105, 12, None)]);
            op.advance_watermark(60, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![(I, 104, 50, Some(3))]);
        }
    }

    #[test]
    fn under_retention_an_idle_key_is_cleared_and_its_left_event_timer_fires_harmlessly() {
        use crate::state::ttl::ManualClock;
        let clock = Arc::new(ManualClock::new(1_000));
        for config in configs() {
            let config = config.with_clock(clock.clone());
            clock.set(1_000);
            let mut spec = spec(JoinType::Left);
            // `table.exec.state.ttl` = 100 ms: cleanup timers 150 ms after a renewal.
            spec.state_retention = StateRetention::from_ttl(100);
            let mut op = TemporalJoin::build(spec, &config, 0..=127).unwrap();
            let mut out = Output::new();
            // At 1,000: key 1's version (cleanup at 1,150) and key 2's left row at 100.
            op.process(1, &rows(&[(I, 1, 10, 5)]), &mut out).unwrap();
            op.process(0, &rows(&[(I, 2, 200, 100)]), &mut out).unwrap();
            assert_eq!(op.next_processing_timer().unwrap(), Some(1_150));
            // At 1,040 + 100 <= 1,150 a row does not move the timer, nor does the firing.
            clock.set(1_040);
            op.process(0, &rows(&[(I, 1, 1, 6)]), &mut out).unwrap();
            op.advance_watermark(10, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![(I, 1, 6, Some(10))]);
            // At 1,100 + 100 > 1,150 it does: key 1 is cleaned at 1,250, not 1,150.
            clock.set(1_100);
            op.process(0, &rows(&[(I, 1, 2, 7)]), &mut out).unwrap();
            clock.set(1_150);
            op.on_processing_time(1_150, &mut out).unwrap();
            op.advance_watermark(20, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![(I, 2, 7, Some(10))]);
            // Key 2 was cleared at 1,150 (its left row too, unemitted); at 1,250 key 1 is.
            clock.set(1_250);
            op.on_processing_time(1_250, &mut out).unwrap();
            assert_eq!(op.next_processing_timer().unwrap(), None);
            clock.set(1_260);
            op.process(0, &rows(&[(I, 1, 3, 8)]), &mut out).unwrap();
            op.process(1, &rows(&[(I, 2, 20, 50)]), &mut out).unwrap();
            assert_eq!(op.next_processing_timer().unwrap(), Some(1_410));
            // Key 1's row finds no version. Key 2's cleared row left its timer at 100,
            // which fires with the new version's at 50, once, emitting nothing; key 1,
            // left with nothing, deletes its cleanup timer, key 2 keeps its own.
            op.advance_watermark(200, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![(I, 3, 8, None)]);
            clock.set(1_410);
            op.on_processing_time(1_410, &mut out).unwrap();
            assert_eq!(op.next_processing_timer().unwrap(), None);
            // Key 2's version is gone with it.
            op.process(0, &rows(&[(I, 2, 201, 300)]), &mut out).unwrap();
            op.advance_watermark(400, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![(I, 201, 300, None)]);
        }
    }

    #[test]
    fn rows_and_versions_arriving_behind_what_a_timer_removed_are_still_met() {
        for config in configs() {
            let mut op = TemporalJoin::build(spec(JoinType::Left), &config, 0..=127).unwrap();
            let mut out = Output::new();
            op.process(1, &rows(&[(I, 1, 1, 10), (I, 1, 2, 20)]), &mut out)
                .unwrap();
            op.process(0, &rows(&[(I, 1, 100, 30)]), &mut out).unwrap();
            op.advance_watermark(40, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![(I, 100, 30, Some(2))]);
            // The version at 10 is gone, the one at 20 kept. A version at 5 and left rows at
            // 6 and 15 arrive late: 6 meets 5, 15 meets 5 too (10 was removed).
            op.process(1, &rows(&[(I, 1, 3, 5)]), &mut out).unwrap();
            op.process(0, &rows(&[(I, 1, 101, 6), (I, 1, 102, 15)]), &mut out)
                .unwrap();
            op.advance_watermark(41, &mut out).unwrap();
            assert_eq!(
                emitted(&mut out),
                vec![(I, 101, 6, Some(3)), (I, 102, 15, Some(3))]
            );
        }
    }

    #[test]
    fn a_later_version_of_the_same_time_replaces_the_earlier_and_inner_drops_misses() {
        for config in configs() {
            let mut op = TemporalJoin::build(spec(JoinType::Inner), &config, 0..=127).unwrap();
            let mut out = Output::new();
            op.process(1, &rows(&[(I, 1, 1, 10), (I, 2, 7, 10)]), &mut out)
                .unwrap();
            op.process(0, &rows(&[(I, 1, 100, 10), (I, 2, 200, 9)]), &mut out)
                .unwrap();
            op.process(1, &rows(&[(UA, 1, 2, 10)]), &mut out).unwrap();
            op.advance_watermark(10, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![(I, 100, 10, Some(2))]);
        }
    }

    #[test]
    fn a_restored_join_emits_what_the_running_one_would() {
        let dir = tempdir().unwrap();
        let run = |restore: bool| {
            let config = StateConfig::rocksdb(dir.path().join(format!("state-{restore}")));
            let mut op = TemporalJoin::build(spec(JoinType::Left), &config, 0..=127).unwrap();
            let mut out = Output::new();
            op.process(1, &rows(&[(I, 1, 1, 10), (I, 2, 5, 10)]), &mut out)
                .unwrap();
            op.process(0, &rows(&[(I, 1, 100, 20), (I, 2, 200, 30)]), &mut out)
                .unwrap();
            op.advance_watermark(25, &mut out).unwrap();
            if restore {
                let checkpoint = op.checkpoint(&dir.path().join("checkpoint")).unwrap();
                let checkpoint = Checkpoint::open(checkpoint.path()).unwrap();
                let config = StateConfig::rocksdb(dir.path().join("restored"));
                op = TemporalJoin::restore(spec(JoinType::Left), &config, 0..=127, &[checkpoint])
                    .unwrap();
            }
            op.process(1, &rows(&[(UA, 2, 6, 28)]), &mut out).unwrap();
            op.process(0, &rows(&[(I, 2, 201, 29)]), &mut out).unwrap();
            op.advance_watermark(40, &mut out).unwrap();
            emitted(&mut out)
        };
        let expected = vec![
            (I, 100, 20, Some(1)),
            (I, 200, 30, Some(6)),
            (I, 201, 29, Some(6)),
        ];
        assert_eq!(run(false), expected);
        assert_eq!(run(true), expected);
    }
}
