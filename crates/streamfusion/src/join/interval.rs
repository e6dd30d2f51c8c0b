//! Interval join: Flink's `RowTimeIntervalJoin` (its `TimeIntervalJoin` base), run by
//! `KeyedCoProcessOperatorWithWatermarkDelay`, the plan of `L [LEFT|RIGHT|FULL] JOIN R ON
//! L.k = R.k AND L.t BETWEEN R.t + lower AND R.t + upper` over insert-only inputs; and in
//! processing time its `ProcTimeIntervalJoin` sibling, run by `KeyedCoProcessOperator`.
//!
//! # Time
//!
//! In event time a row's time is its time column and the operator time of both inputs is
//! the watermark, or 0 before a positive one; cleanup timers are event-time timers. In
//! processing time (`processing_time`) both are the current processing time, read from the
//! state's clock once per call (a batch's rows are processed at one instant), the time
//! columns are not read, cleanup timers are processing-time timers fired by
//! [`Operator::on_processing_time`], and watermarks change nothing.
//!
//! # Rows
//!
//! With `left_size = -lower` and `right_size = upper`, a left row at `t` matches the right
//! rows at `[t - right_size, t + left_size]` and a right row at `t` the left rows at
//! `[t - left_size, t + right_size]`, both bounds inclusive. A row first probes the other
//! input's cached rows of its key, in ascending time, unless that input is known expired up
//! to its upper bound: each cached row in its range that the pair condition accepts is joined (`+I[left,
//! right]`, and an outer cached row remembers that it was), and each cached row at or before
//! the other input's expiration time (`operator time - size - 1`) leaves the cache, padded
//! with NULLs first when its input is outer and it never joined. Then the row is cached at
//! its time while the other input's operator time is before its upper bound; otherwise an
//! outer row that joined nothing is emitted padded. The pair condition is
//! `JoinConditionWithNullFilters`: nothing matches while the key has a NULL in a column that
//! filters NULLs, else the non-equi condition must be TRUE. Every output row is `+I`.
//!
//! # Cleanup timers
//!
//! The first row a key caches on an input, when the input has no cleanup timer, registers
//! one at `t + its size + min cleanup interval + 1`. When it fires (the timer cleaning the
//! right cache first), the expired rows of that cache leave it, outer ones padded as above,
//! and the timer moves to the earliest remaining row's time plus the same; a cache whose
//! earliest remaining time is not positive is cleared whole, as Flink's `earliestTimestamp >
//! 0` test has it. A timer the cleanup time has moved past fires without effect.
//!
//! The expiration times are the operator's, shared by all keys and not checkpointed, as
//! Flink's fields: a restored operator starts from 0 again, and before its first watermark
//! from operator time 0.
//!
//! # Order
//!
//! Output follows the input rows, and the timers in firing order. A probe or cleanup walks a
//! key's times in the order Flink's RocksDB map state iterates them: ascending, with times
//! before 1970 after the others (the bytes of a big-endian `long`). On its heap backend
//! Flink walks them in hash-map order, so there the rows one probe or timer emits for several
//! times of a key may come in another order (the same rows).
//!
//! # State
//!
//! Per input `[key group][key row][time]` (the time a big-endian `i64`) -> the
//! rows cached at that time, in arrival order, each `[u32 length][u8 joined][BinaryRowData]`;
//! `[key group][key row][input]` -> the cache's cleanup time, and in another table its floor
//! (each an `i64`, little-endian); timers in the keyed driver's timer table. Checkpointed and
//! rescaled with its key groups.
//!
//! A walk (a probe or a cleanup) removes every cached time up to the input's expiration
//! time, and while the operator runs no row at or before it is cached afterwards (a row is
//! cached only while it is later than that), so the walk raises the key's floor past it and
//! later scans of the key start there: on RocksDB they would otherwise step over the
//! deletions of every time the key ever cached. A restored operator's time starts over, so
//! it may cache an older row: caching a row below its key's floor lowers the floor to it.

use std::path::Path;

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{SchemaRef, TimestampMillisecondType};
use hashbrown::HashMap;

use super::pairs::{RowBuffer, TimedJoinIo, filtered_null_key, joined_rows, verdicts};
use super::{Condition, JoinType, TimedJoinInput, check_join};
use crate::aggregate::group::check_columns;
use crate::calc::CalcProgram;
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::keys::layout::prefix_successor;
use crate::ops::keyed::{Keyed, KeyedOperator};
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::state::{ScanRange, TableAccess, TableId, WriteBatch};
use crate::types::LogicalType;

/// The version of the interval join's state layout, stored with its checkpoints.
pub const STATE_VERSION: u32 = 1;
const ROWS: [&str; 2] = ["interval_join.left", "interval_join.right"];
const CLEANUP: &str = "interval_join.cleanup";
const FLOORS: &str = "interval_join.floor";
const KEY_GROUP_BYTES: usize = 2;

/// An interval join plan, as JSON: `{"join_type": "left", "left": {"names": ["k", "ts"],
/// "types": ["INT", "TIMESTAMP(3)"], "keys": [0], "time_column": 1}, "right": {...},
/// "filter_nulls": [true], "condition": null, "lower_bound": -1000, "upper_bound": 2000,
/// "min_cleanup_interval": 0, "max_parallelism": 128}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntervalJoinSpec {
    /// INNER, LEFT, RIGHT or FULL.
    pub join_type: JoinType,
    /// The left input.
    pub left: TimedJoinInput,
    /// The right input.
    pub right: TimedJoinInput,
    /// Per key column: whether a NULL there stops the key from matching (`false` for
    /// `IS NOT DISTINCT FROM` keys).
    pub filter_nulls: Vec<bool>,
    /// The non-equi condition besides the time bounds: a program over the joined row (left
    /// columns, then right) projecting one BOOLEAN; a row pair matches when it is TRUE.
    pub condition: Option<CalcProgram>,
    /// `L.t >= R.t + lower_bound`, in milliseconds (Flink's `leftLowerBound`).
    pub lower_bound: i64,
    /// `L.t <= R.t + upper_bound`, in milliseconds (Flink's `leftUpperBound`).
    pub upper_bound: i64,
    /// `table.exec.interval-join.min-cleanup-interval` in milliseconds: how much later than
    /// needed a cleanup timer fires.
    #[serde(default)]
    pub min_cleanup_interval: i64,
    /// The job's max parallelism (number of key groups).
    pub max_parallelism: u32,
    /// Whether the join runs in processing time (`ProcTimeIntervalJoin`) rather than on the
    /// time columns and watermarks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub processing_time: bool,
}

impl IntervalJoinSpec {
    /// What of the plan decides the state: both inputs' types, keys and time columns (the
    /// join type, condition, bounds and names only decide what is emitted and when).
    pub fn semantics(&self) -> serde_json::Value {
        let input = |i: &TimedJoinInput| {
            serde_json::json!({
                "types": i.types.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "keys": i.keys,
                "time_column": i.time_column,
            })
        };
        let mut semantics =
            serde_json::json!({"left": input(&self.left), "right": input(&self.right)});
        if self.processing_time {
            // Its timers are in the other domain: an event-time join's state is not its.
            semantics["processing_time"] = true.into();
        }
        semantics
    }

    fn input(&self, port: Port) -> &TimedJoinInput {
        if port == 0 { &self.left } else { &self.right }
    }

    /// Each input's relative size: how far before its rows' times the other input's rows
    /// may lie and still match (Flink's `leftRelativeSize`, `rightRelativeSize`).
    fn relative_sizes(&self) -> [i64; 2] {
        [self.lower_bound.wrapping_neg(), self.upper_bound]
    }

    /// How far the output watermark trails the input's: Flink's `getMaxOutputDelay` in
    /// event time; none in processing time, whose `KeyedCoProcessOperator` forwards
    /// watermarks as they come.
    pub fn watermark_delay(&self) -> i64 {
        if self.processing_time {
            return 0;
        }
        let [left, right] = self.relative_sizes();
        left.max(right)
    }
}

/// A cached row: whether it has joined, and its BinaryRowData.
#[derive(Debug, Clone, PartialEq)]
struct CachedRow {
    joined: bool,
    row: Vec<u8>,
}

/// The rows one key cached at one time on one input, and whether they changed.
#[derive(Debug)]
struct CachedTime {
    time: i64,
    rows: Vec<CachedRow>,
    /// The index of the first row in the batch's decoded rows of this input.
    decoded: u32,
    changed: bool,
    removed: bool,
}

/// The interval join over one task's keyed state.
pub struct IntervalJoin {
    spec: IntervalJoinSpec,
    identity: PlanIdentity,
    keyed: Keyed,
    io: TimedJoinIo,
    rows: [TableId; 2],
    cleanup: TableId,
    floors: TableId,
    condition: Option<Condition>,
    relative: [i64; 2],
    /// Per input, up to which time its cached rows are known expired (Flink's
    /// `leftExpirationTime`, `rightExpirationTime`): operator fields, not state.
    expiration: [i64; 2],
}

impl std::fmt::Debug for IntervalJoin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntervalJoin")
            .field("join_type", &self.spec.join_type)
            .field("keyed", &self.keyed)
            .finish_non_exhaustive()
    }
}

/// Flink's `calExpirationTime`: cached rows at or before it have expired.
fn expiration_time(operator_time: i64, relative_size: i64) -> i64 {
    if operator_time < i64::MAX {
        operator_time.wrapping_sub(relative_size).wrapping_sub(1)
    } else {
        i64::MAX
    }
}

/// A cached time as its entry key ends: big-endian two's complement, as Flink's
/// `LongSerializer` writes a map key, so a prefix scan walks a key's times in the order
/// Flink's RocksDB map state does (ascending, negative times after the others).
fn time_bytes(time: i64) -> [u8; 8] {
    time.to_be_bytes()
}

fn time_of(bytes: &[u8]) -> Result<i64> {
    let bytes: [u8; 8] = bytes.try_into().map_err(|_| {
        Error::State(format!(
            "an interval join row entry's time has {} bytes, not 8",
            bytes.len()
        ))
    })?;
    Ok(i64::from_be_bytes(bytes))
}

/// Decodes a stored list of cached rows.
fn decode_rows(list: &[u8]) -> Result<Vec<CachedRow>> {
    let mut rows = Vec::new();
    let mut at = 0;
    while at < list.len() {
        let len = list
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
            .filter(|&len| at + 5 + len <= list.len())
            .ok_or_else(|| {
                Error::State(format!(
                    "an interval join's row list of {} bytes is cut short at {at}",
                    list.len()
                ))
            })?;
        rows.push(CachedRow {
            joined: list[at + 4] != 0,
            row: list[at + 5..at + 5 + len].to_vec(),
        });
        at += 5 + len;
    }
    Ok(rows)
}

fn encode_row(list: &mut Vec<u8>, joined: bool, row: &[u8]) {
    list.extend_from_slice(&(row.len() as u32).to_le_bytes());
    list.push(u8::from(joined));
    list.extend_from_slice(row);
}

/// A key's entry of input `side` in a per-input point table: `[key group][key row][side]`.
fn side_key(state_key: &[u8], side: Port) -> Vec<u8> {
    let mut key = Vec::with_capacity(state_key.len() + 1);
    key.extend_from_slice(state_key);
    key.push(side as u8);
    key
}

/// A stored cleanup time or floor (`what`): a little-endian `i64`.
fn decode_time_value(value: &[u8], what: &str) -> Result<i64> {
    let bytes: [u8; 8] = value.try_into().map_err(|_| {
        Error::State(format!(
            "an interval join {what} of {} bytes, not 8",
            value.len()
        ))
    })?;
    Ok(i64::from_le_bytes(bytes))
}

/// Output rows: the left and the right source row of each (`None`: padding).
#[derive(Debug, Default)]
struct Joined {
    left: Vec<Option<u32>>,
    right: Vec<Option<u32>>,
}

impl Joined {
    fn push(&mut self, left: Option<u32>, right: Option<u32>) {
        self.left.push(left);
        self.right.push(right);
    }
}

impl IntervalJoin {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &IntervalJoinSpec) -> PlanIdentity {
        PlanIdentity::new(OperatorKind::IntervalJoin, STATE_VERSION, &spec.semantics())
    }

    /// An operator for `spec` over the keyed driver `keyed` (fresh or restored); a plan it
    /// cannot run as Flink would is an error.
    pub fn open(spec: IntervalJoinSpec, mut keyed: Keyed) -> Result<Self> {
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
        let cleanup = store.open_table_with(CLEANUP, TableAccess::Point)?;
        let floors = store.open_table_with(FLOORS, TableAccess::Point)?;
        Ok(Self {
            identity: Self::identity_of(&spec),
            io: TimedJoinIo::new(&spec.left, &spec.right),
            rows,
            cleanup,
            floors,
            condition,
            relative: spec.relative_sizes(),
            expiration: [0, 0],
            keyed,
            spec,
        })
    }

    /// The plan.
    pub fn spec(&self) -> &IntervalJoinSpec {
        &self.spec
    }

    /// Both inputs' operator time: the current processing time, or in event time the
    /// watermark once it is positive, else 0.
    fn operator_time(&self) -> i64 {
        if self.spec.processing_time {
            self.keyed.clock().now_millis()
        } else {
            self.keyed.watermark().filter(|&w| w > 0).unwrap_or(0)
        }
    }

    /// When a cache that holds a row at `time` of input `side` is next cleaned.
    fn cleanup_time(&self, time: i64, side: Port) -> i64 {
        time.wrapping_add(self.relative[side])
            .wrapping_add(self.spec.min_cleanup_interval)
            .wrapping_add(1)
    }

    /// Every cached time of `state_key` on input `side`, in walking order, its rows appended
    /// to `decoded` if given. The scan starts at the key's `floor`: no time in `0..floor` is
    /// cached any more, and on RocksDB their deletions would be stepped over one by one.
    fn read_cache(
        &self,
        side: Port,
        state_key: &[u8],
        floor: i64,
        decoded: Option<&mut RowBuffer>,
    ) -> Result<Vec<CachedTime>> {
        let mut caches = self.read_caches(side, &[(state_key, floor)], decoded)?;
        Ok(caches.pop().expect("one cache read"))
    }

    /// [`IntervalJoin::read_cache`] of several keys `(state key, floor)` with one walk of the
    /// store (in ascending key order it seeks no more than it must).
    fn read_caches(
        &self,
        side: Port,
        keys: &[(&[u8], i64)],
        mut decoded: Option<&mut RowBuffer>,
    ) -> Result<Vec<Vec<CachedTime>>> {
        let starts: Vec<Vec<u8>> = keys
            .iter()
            .map(|&(key, floor)| [key, &time_bytes(floor.max(0))].concat())
            .collect();
        let ends: Vec<Option<Vec<u8>>> =
            keys.iter().map(|(key, _)| prefix_successor(key)).collect();
        let ranges: Vec<ScanRange<'_>> = keys
            .iter()
            .zip(starts.iter().zip(&ends))
            .map(|(&(key, _), (start, end))| match end {
                Some(end) => ScanRange::Between(start, end),
                None => ScanRange::Prefix(key),
            })
            .collect();
        let mut caches: Vec<Vec<CachedTime>> = keys.iter().map(|_| Vec::new()).collect();
        let mut failed = None;
        self.keyed
            .store()
            .scan_ranges(self.rows[side], &ranges, &mut |i, k, v| {
                let entry = time_of(&k[keys[i].0.len()..]).and_then(|time| {
                    let rows = decode_rows(v)?;
                    let mut first = 0;
                    if let Some(decoded) = decoded.as_deref_mut() {
                        first = decoded.offsets.len() as u32 - 1;
                        for r in &rows {
                            decoded.push(&r.row);
                        }
                    }
                    Ok(CachedTime {
                        time,
                        rows,
                        decoded: first,
                        changed: false,
                        removed: false,
                    })
                });
                match entry {
                    Ok(entry) => {
                        caches[i].push(entry);
                        true
                    }
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                }
            })?;
        match failed {
            Some(e) => Err(e),
            None => Ok(caches),
        }
    }

    /// The writes that bring a key's cache on input `side` in line with `times`.
    fn write_cache(
        &self,
        write: &mut WriteBatch,
        side: Port,
        state_key: &[u8],
        times: &[CachedTime],
    ) {
        for t in times {
            let mut key = state_key.to_vec();
            key.extend_from_slice(&time_bytes(t.time));
            if t.removed {
                write.delete(self.rows[side], key);
            } else if t.changed {
                let mut list = Vec::new();
                for r in &t.rows {
                    encode_row(&mut list, r.joined, &r.row);
                }
                write.put(self.rows[side], key, &list);
            }
        }
    }

    /// The floors of input `side`'s caches of `state_keys` (0 where none was kept).
    fn read_floors<'k>(
        &self,
        side: Port,
        state_keys: impl Iterator<Item = &'k [u8]>,
    ) -> Result<Vec<i64>> {
        let keys: Vec<Vec<u8>> = state_keys.map(|k| side_key(k, side)).collect();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        self.keyed
            .store()
            .multi_get(self.floors, &refs)?
            .into_iter()
            .map(|v| v.map_or(Ok(0), |v| decode_time_value(&v, "floor")))
            .collect()
    }

    /// After a walk of input `side`'s cache of `state_key` removed every time up to
    /// `expired`: no time in `0..=expired` is cached, nor will be (a row is cached only
    /// while it is later than its input's expiration time), so the key's scans may start
    /// past it.
    fn raise_floor(
        &self,
        write: &mut WriteBatch,
        side: Port,
        state_key: &[u8],
        floor: i64,
        expired: i64,
    ) {
        let raised = expired.saturating_add(1);
        if raised > floor {
            write.put(self.floors, side_key(state_key, side), raised.to_le_bytes());
        }
    }

    /// Joins a batch of input `port` with the other input's cached rows and caches its rows.
    fn apply(&mut self, port: Port, input: &ChangelogBatch) -> Result<ChangelogBatch> {
        let spec = self.spec.input(port);
        check_columns(
            if port == 0 {
                "interval join left batch"
            } else {
                "interval join right batch"
            },
            &spec.types,
            input.batch(),
        )?;
        ops::expect_insert_only(input, "an interval join")?;
        let n = input.num_rows();
        if n == 0 {
            return Ok(self.empty());
        }
        let other = 1 - port;
        let batch = input.batch();
        let operator_time = self.operator_time();
        let times: Vec<i64> = if self.spec.processing_time {
            vec![operator_time; n]
        } else {
            // A NULL time reads as 0, as `getLong` of a NULL BinaryRowData field does.
            let time_column = batch
                .column(spec.time_column)
                .as_primitive::<TimestampMillisecondType>();
            (0..n)
                .map(|r| {
                    if time_column.is_null(r) {
                        0
                    } else {
                        time_column.value(r)
                    }
                })
                .collect()
        };
        // What Flink decides per row on operator fields, in row order: whether the row
        // probes the other cache (not when that cache is known expired up to the row's
        // upper bound), and whether it is cached.
        let (mut probes, mut cached) = (vec![false; n], vec![false; n]);
        for r in 0..n {
            let upper = times[r].wrapping_add(self.relative[port]);
            if self.expiration[other] < upper {
                self.expiration[other] = expiration_time(operator_time, self.relative[other]);
                probes[r] = true;
            }
            cached[r] = operator_time < upper;
        }
        let expired = self.expiration[other];
        let (groups, row_group) = self.keyed.groups(&self.io.hasher, batch, &spec.keys)?;
        let null_keys: Vec<bool> = (0..groups.len())
            .map(|g| filtered_null_key(&self.spec.filter_nulls, &groups.key(g)[KEY_GROUP_BYTES..]))
            .collect();
        // The other input's cache of every key a row probes, read whole once.
        let mut probed: Vec<usize> = Vec::new();
        let mut caches: Vec<Option<Vec<CachedTime>>> = (0..groups.len()).map(|_| None).collect();
        for r in (0..n).filter(|&r| probes[r]) {
            let g = row_group[r] as usize;
            if caches[g].is_none() {
                caches[g] = Some(Vec::new());
                probed.push(g);
            }
        }
        // In key order: one walk of the store reads them all.
        probed.sort_unstable_by(|&a, &b| groups.key(a).cmp(groups.key(b)));
        let floors = self.read_floors(other, probed.iter().map(|&g| groups.key(g)))?;
        let mut decoded = RowBuffer::new();
        let keys: Vec<(&[u8], i64)> = probed
            .iter()
            .zip(&floors)
            .map(|(&g, &floor)| (groups.key(g), floor))
            .collect();
        let read = self.read_caches(other, &keys, Some(&mut decoded))?;
        for (&g, cache) in probed.iter().zip(read) {
            caches[g] = Some(cache);
        }
        let decoded = self.io.readers[other].read(&decoded.data, &decoded.offsets)?;
        // The rows each probe meets in its range, in walking order (the cache as the batch
        // found it: a probe skips the times an earlier one removed).
        let range = |r: usize| {
            let t = times[r];
            (
                t.wrapping_sub(self.relative[other]),
                t.wrapping_add(self.relative[port]),
            )
        };
        let accepted = match &self.condition {
            None => None,
            Some(condition) => {
                let (mut input_rows, mut cached_rows) = (Vec::new(), Vec::new());
                for r in (0..n).filter(|&r| probes[r]) {
                    let g = row_group[r] as usize;
                    if null_keys[g] {
                        continue;
                    }
                    let (lower, upper) = range(r);
                    for t in caches[g].iter().flatten() {
                        if t.time >= lower && t.time <= upper {
                            for i in 0..t.rows.len() as u32 {
                                input_rows.push(r as u32);
                                cached_rows.push(t.decoded + i);
                            }
                        }
                    }
                }
                Some(if port == 0 {
                    verdicts(condition, batch, decoded.batch(), &input_rows, &cached_rows)?
                } else {
                    verdicts(condition, decoded.batch(), batch, &cached_rows, &input_rows)?
                })
            }
        };
        let mut verdict = 0;
        let mut joined_any = vec![false; n];
        let mut out = Joined::default();
        let mut emit = |own: Option<u32>, cached: Option<u32>| {
            if port == 0 {
                out.push(own, cached);
            } else {
                out.push(cached, own);
            }
        };
        let (own_outer, other_outer) = (
            self.spec.join_type.outer(port),
            self.spec.join_type.outer(other),
        );
        for r in 0..n {
            let g = row_group[r] as usize;
            let mut joined = false;
            if probes[r] {
                let (lower, upper) = range(r);
                for t in caches[g].iter_mut().flatten() {
                    let in_range = t.time >= lower && t.time <= upper;
                    if t.removed {
                        if in_range && accepted.is_some() && !null_keys[g] {
                            verdict += t.rows.len();
                        }
                        continue;
                    }
                    if in_range {
                        for (i, c) in t.rows.iter_mut().enumerate() {
                            let matched = !null_keys[g]
                                && accepted.as_ref().is_none_or(|a| {
                                    verdict += 1;
                                    a[verdict - 1]
                                });
                            if matched {
                                emit(Some(r as u32), Some(t.decoded + i as u32));
                                joined = true;
                                if other_outer && !c.joined {
                                    c.joined = true;
                                    t.changed = true;
                                }
                            }
                        }
                    }
                    if t.time <= expired {
                        if other_outer {
                            for (i, c) in t.rows.iter().enumerate() {
                                if !c.joined {
                                    emit(None, Some(t.decoded + i as u32));
                                }
                            }
                        }
                        t.removed = true;
                    }
                }
            }
            if !cached[r] && !joined && own_outer {
                emit(Some(r as u32), None);
            }
            joined_any[r] = joined;
        }
        let mut write = WriteBatch::new();
        for (g, times) in caches.iter().enumerate() {
            if let Some(times) = times {
                self.write_cache(&mut write, other, groups.key(g), times);
            }
        }
        // Every probe walked its key's whole cache and removed what had expired.
        for (&g, &floor) in probed.iter().zip(&floors) {
            self.raise_floor(&mut write, other, groups.key(g), floor, expired);
        }
        self.cache_rows(
            port,
            batch,
            &times,
            &cached,
            &joined_any,
            &groups,
            &row_group,
            &mut write,
        )?;
        self.keyed.store_mut().write(&write)?;
        let (left, right) = if port == 0 {
            (batch, decoded.batch())
        } else {
            (decoded.batch(), batch)
        };
        if out.left.is_empty() {
            return Ok(self.empty());
        }
        joined_rows(&self.io.schema, left, Some(right), out.left, out.right)
    }

    /// Adds the `cached` rows of the batch to their keys' caches on input `port` (each with
    /// whether it `joined`), and gives a key whose cache has no cleanup timer one at its
    /// first cached row.
    #[allow(clippy::too_many_arguments)]
    fn cache_rows(
        &mut self,
        port: Port,
        batch: &RecordBatch,
        times: &[i64],
        cached: &[bool],
        joined: &[bool],
        groups: &crate::state::rows::Groups,
        row_group: &[u32],
        write: &mut WriteBatch,
    ) -> Result<()> {
        if !cached.contains(&true) {
            return Ok(());
        }
        let rows = self.io.writers[port].write(batch.columns())?;
        // The lists of the (key, time) entries the rows join, in first-row order.
        let mut entries: Vec<(usize, i64)> = Vec::new();
        let mut entry_of: HashMap<(usize, i64), usize> = HashMap::new();
        let mut first_row: Vec<Option<i64>> = vec![None; groups.len()];
        // Per key, its earliest time at or after 0 cached here.
        let mut oldest: Vec<Option<i64>> = vec![None; groups.len()];
        for r in (0..times.len()).filter(|&r| cached[r]) {
            let g = row_group[r] as usize;
            entry_of.entry((g, times[r])).or_insert_with(|| {
                entries.push((g, times[r]));
                entries.len() - 1
            });
            first_row[g].get_or_insert(times[r]);
            if times[r] >= 0 {
                oldest[g] = Some(oldest[g].map_or(times[r], |o| o.min(times[r])));
            }
        }
        let keys: Vec<Vec<u8>> = entries
            .iter()
            .map(|&(g, t)| {
                let mut key = groups.key(g).to_vec();
                key.extend_from_slice(&time_bytes(t));
                key
            })
            .collect();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let mut lists: Vec<Vec<u8>> = self
            .keyed
            .store()
            .multi_get(self.rows[port], &refs)?
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect();
        for r in (0..times.len()).filter(|&r| cached[r]) {
            let e = entry_of[&(row_group[r] as usize, times[r])];
            encode_row(&mut lists[e], joined[r], rows.row(r));
        }
        for (key, list) in keys.into_iter().zip(&lists) {
            write.put(self.rows[port], key, list);
        }
        // Cleanup timers of keys whose cache on this input has none.
        let keyed_groups: Vec<usize> = (0..groups.len())
            .filter(|&g| first_row[g].is_some())
            .collect();
        let cleanup_keys: Vec<Vec<u8>> = keyed_groups
            .iter()
            .map(|&g| side_key(groups.key(g), port))
            .collect();
        let refs: Vec<&[u8]> = cleanup_keys.iter().map(Vec::as_slice).collect();
        let present = self.keyed.store().multi_get(self.cleanup, &refs)?;
        let mut timers = Vec::new();
        for ((&g, key), present) in keyed_groups.iter().zip(cleanup_keys).zip(present) {
            if present.is_some() {
                continue;
            }
            let at = self.cleanup_time(first_row[g].expect("a cached row"), port);
            write.put(self.cleanup, key, at.to_le_bytes());
            let state_key = groups.key(g);
            let key_group = u16::from_be_bytes([state_key[0], state_key[1]]);
            timers.push((key_group, at, &state_key[KEY_GROUP_BYTES..], [0u8; 0]));
        }
        self.register_timers(timers)?;
        // A restored operator's time starts over (Flink's fields), so it may cache a row
        // below the floor an earlier walk left: the floor comes down to it.
        let floors = self.read_floors(port, keyed_groups.iter().map(|&g| groups.key(g)))?;
        for (&g, floor) in keyed_groups.iter().zip(floors) {
            if let Some(oldest) = oldest[g].filter(|&t| t < floor) {
                write.put(
                    self.floors,
                    side_key(groups.key(g), port),
                    oldest.to_le_bytes(),
                );
            }
        }
        Ok(())
    }

    /// Registers cleanup timers in the join's time domain.
    fn register_timers<'k>(
        &mut self,
        timers: impl IntoIterator<Item = (u16, i64, &'k [u8], [u8; 0])>,
    ) -> Result<()> {
        if self.spec.processing_time {
            self.keyed.register_processing_timers(timers)
        } else {
            self.keyed.register_event_timers(timers)
        }
    }

    /// Runs the cleanup timers `due`, in firing order.
    fn fire(&mut self, due: Vec<crate::state::timers::Timer>) -> Result<ChangelogBatch> {
        if due.is_empty() {
            return Ok(self.empty());
        }
        let operator_time = self.operator_time();
        // Per key, its cleanup times and caches as the timers so far left them.
        struct KeyState {
            state_key: Vec<u8>,
            cleanup: [Option<i64>; 2],
            cleanup_changed: [bool; 2],
            caches: [Option<Vec<CachedTime>>; 2],
            /// Per input, the floor read, and the expiration time its walk removed up to.
            floors: [i64; 2],
            walked: [Option<i64>; 2],
        }
        let mut keys: Vec<KeyState> = Vec::new();
        // Each timer's key's slot in `keys`.
        let mut slot_of: HashMap<&[u8], usize> = HashMap::new();
        let mut slots = Vec::with_capacity(due.len());
        for timer in &due {
            let next = keys.len();
            let slot = *slot_of
                .entry(timer.key_and_namespace.as_slice())
                .or_insert(next);
            slots.push(slot);
            if slot == next {
                keys.push(KeyState {
                    state_key: timer.state_key(),
                    cleanup: [None, None],
                    cleanup_changed: [false, false],
                    caches: [None, None],
                    floors: [0, 0],
                    walked: [None, None],
                });
            }
        }
        let cleanup_keys: Vec<Vec<u8>> = keys
            .iter()
            .flat_map(|k| [side_key(&k.state_key, 0), side_key(&k.state_key, 1)])
            .collect();
        let refs: Vec<&[u8]> = cleanup_keys.iter().map(Vec::as_slice).collect();
        for (i, value) in self
            .keyed
            .store()
            .multi_get(self.cleanup, &refs)?
            .into_iter()
            .enumerate()
        {
            if let Some(value) = value {
                keys[i / 2].cleanup[i % 2] = Some(decode_time_value(&value, "cleanup time")?);
            }
        }
        for side in 0..2 {
            let floors = self.read_floors(side, keys.iter().map(|k| k.state_key.as_slice()))?;
            for (k, floor) in keys.iter_mut().zip(floors) {
                k.floors[side] = floor;
            }
        }
        let mut decoded = [RowBuffer::new(), RowBuffer::new()];
        let mut padded = Joined::default();
        let mut timers = Vec::new();
        for (timer, &slot) in due.iter().zip(&slots) {
            let k = &mut keys[slot];
            // The timer cleaning the right cache (Flink's `leftTimerState`) first.
            for side in [1, 0] {
                if k.cleanup[side] != Some(timer.timestamp) {
                    continue;
                }
                let expired = expiration_time(operator_time, self.relative[side]);
                self.expiration[side] = expired;
                if k.caches[side].is_none() {
                    let floor = k.floors[side];
                    k.caches[side] = Some(self.read_cache(side, &k.state_key, floor, None)?);
                }
                k.walked[side] = Some(expired);
                let times = k.caches[side].as_mut().expect("read above");
                let outer = self.spec.join_type.outer(side);
                // Flink's `earliestTimestamp`, as its loop computes it.
                let mut earliest = -1i64;
                for t in times.iter_mut().filter(|t| !t.removed) {
                    if t.time <= expired {
                        if outer {
                            for c in t.rows.iter().filter(|c| !c.joined) {
                                let row = Some(decoded[side].push(&c.row));
                                if side == 0 {
                                    padded.push(row, None);
                                } else {
                                    padded.push(None, row);
                                }
                            }
                        }
                        t.removed = true;
                    } else if t.time < earliest || earliest < 0 {
                        earliest = t.time;
                    }
                }
                k.cleanup_changed[side] = true;
                if earliest > 0 {
                    let at = self.cleanup_time(earliest, side);
                    k.cleanup[side] = Some(at);
                    let key_group = u16::from_be_bytes([k.state_key[0], k.state_key[1]]);
                    timers.push((key_group, at, k.state_key[KEY_GROUP_BYTES..].to_vec()));
                } else {
                    k.cleanup[side] = None;
                    for t in times.iter_mut() {
                        t.removed = true;
                    }
                }
            }
        }
        let mut write = WriteBatch::new();
        for k in &keys {
            for side in 0..2 {
                if let Some(times) = &k.caches[side] {
                    self.write_cache(&mut write, side, &k.state_key, times);
                }
                if let Some(expired) = k.walked[side] {
                    self.raise_floor(&mut write, side, &k.state_key, k.floors[side], expired);
                }
                if k.cleanup_changed[side] {
                    let key = side_key(&k.state_key, side);
                    match k.cleanup[side] {
                        Some(at) => write.put(self.cleanup, key, at.to_le_bytes()),
                        None => write.delete(self.cleanup, key),
                    }
                }
            }
        }
        self.keyed.store_mut().write(&write)?;
        self.register_timers(
            timers
                .iter()
                .map(|(g, at, key)| (*g, *at, key.as_slice(), [0u8; 0])),
        )?;
        if padded.left.is_empty() {
            return Ok(self.empty());
        }
        let left = self.io.readers[0].read(&decoded[0].data, &decoded[0].offsets)?;
        let right = self.io.readers[1].read(&decoded[1].data, &decoded[1].offsets)?;
        joined_rows(
            &self.io.schema,
            left.batch(),
            Some(right.batch()),
            padded.left,
            padded.right,
        )
    }

    fn empty(&self) -> ChangelogBatch {
        ChangelogBatch::insert_only(RecordBatch::new_empty(self.io.schema.clone()))
    }
}

/// Checks the plan; returns its compiled condition.
fn check_spec(spec: &IntervalJoinSpec) -> Result<Option<Condition>> {
    if spec.join_type.semi_anti() {
        return Err(Error::Plan(format!(
            "an interval join is INNER, LEFT, RIGHT or FULL, not {:?}",
            spec.join_type
        )));
    }
    if spec.lower_bound > spec.upper_bound {
        return Err(Error::Plan(format!(
            "an interval join's lower bound {} ms lies after its upper bound {} ms",
            spec.lower_bound, spec.upper_bound
        )));
    }
    if spec.min_cleanup_interval < 0 {
        return Err(Error::Plan(format!(
            "a negative minimum cleanup interval, {} ms",
            spec.min_cleanup_interval
        )));
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
    check_join(
        left.columns(),
        right.columns(),
        &spec.filter_nulls,
        spec.condition.as_ref(),
    )
}

impl Operator for IntervalJoin {
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
        if port > 1 {
            return Err(Error::OutOfRange(format!(
                "an interval join has two inputs; a batch arrived on input {port}"
            )));
        }
        let joined = self.apply(port, input)?;
        out.emit(joined);
        Ok(())
    }

    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        if self.keyed.advance_watermark(watermark) && !self.spec.processing_time {
            let due = self.keyed.fire_event_timers()?;
            out.emit(self.fire(due)?);
        }
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.keyed.watermark()
    }

    fn on_processing_time(&mut self, time: i64, out: &mut Output) -> Result<()> {
        if self.spec.processing_time {
            let due = self.keyed.fire_processing_timers(time)?;
            out.emit(self.fire(due)?);
        }
        Ok(())
    }

    fn next_processing_timer(&mut self) -> Result<Option<i64>> {
        if self.spec.processing_time {
            self.keyed.next_processing_timer()
        } else {
            Ok(None)
        }
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

impl KeyedOperator for IntervalJoin {
    type Spec = IntervalJoinSpec;
    const HOLDER: &'static str = "interval-join";

    fn identity_of(spec: &IntervalJoinSpec) -> PlanIdentity {
        Self::identity_of(spec)
    }

    fn max_parallelism(spec: &IntervalJoinSpec) -> u32 {
        spec.max_parallelism
    }

    fn open(spec: IntervalJoinSpec, keyed: Keyed) -> Result<Self> {
        Self::open(spec, keyed)
    }
}

#[cfg(test)]
mod tests {
    //! Cases worked out by hand from `TimeIntervalJoin`'s source; the golden changelogs of
    //! released Flink (`tests/it/interval_join_flink.rs`) cover the rest.

    use std::sync::Arc;

    use arrow::array::{Array, AsArray, Int32Array, RecordBatch, TimestampMillisecondArray};
    use arrow::datatypes::{
        DataType, Field, Int32Type, Schema, TimeUnit, TimestampMillisecondType,
    };
    use tempfile::tempdir;

    use super::*;
    use crate::ops::StateConfig;

    fn input() -> TimedJoinInput {
        TimedJoinInput {
            names: vec!["k".into(), "t".into()],
            types: vec![LogicalType::Int, LogicalType::Timestamp(3)],
            keys: vec![0],
            time_column: 1,
        }
    }

    /// `L.t BETWEEN R.t - 10 AND R.t + 10` on `k`.
    fn spec(join_type: JoinType) -> IntervalJoinSpec {
        IntervalJoinSpec {
            join_type,
            left: input(),
            right: input(),
            filter_nulls: vec![true],
            condition: None,
            lower_bound: -10,
            upper_bound: 10,
            min_cleanup_interval: 0,
            max_parallelism: 128,
            processing_time: false,
        }
    }

    fn rows(rows: &[(i32, i64)]) -> ChangelogBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int32, true),
            Field::new("t", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        ]));
        ChangelogBatch::insert_only(
            RecordBatch::try_new(
                schema,
                vec![
                    Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.0))),
                    Arc::new(TimestampMillisecondArray::from_iter_values(
                        rows.iter().map(|r| r.1),
                    )),
                ],
            )
            .unwrap(),
        )
    }

    /// The emitted rows as `(left k, left t, right k, right t)`, NULL as `None`.
    type Out = (Option<i32>, Option<i64>, Option<i32>, Option<i64>);

    fn emitted(out: &mut Output) -> Vec<Out> {
        let mut rows = Vec::new();
        for b in out.take() {
            let c = b.batch().columns();
            let k = |i: usize| c[i].as_primitive::<Int32Type>().clone();
            let t = |i: usize| c[i].as_primitive::<TimestampMillisecondType>().clone();
            let (lk, lt, rk, rt) = (k(0), t(1), k(2), t(3));
            for r in 0..b.num_rows() {
                let get = |a: &dyn Array| a.is_valid(r);
                rows.push((
                    get(&lk).then(|| lk.value(r)),
                    get(&lt).then(|| lt.value(r)),
                    get(&rk).then(|| rk.value(r)),
                    get(&rt).then(|| rt.value(r)),
                ));
            }
        }
        rows
    }

    fn open(join_type: JoinType, config: &StateConfig) -> IntervalJoin {
        IntervalJoin::build(spec(join_type), config, 0..=127).unwrap()
    }

    #[test]
    fn rows_join_in_their_interval_and_outer_rows_are_padded_when_cleaned_up() {
        for config in [
            StateConfig::memory(),
            StateConfig::rocksdb(tempdir().unwrap().keep()),
        ] {
            let mut op = open(JoinType::Left, &config);
            let mut out = Output::new();
            // Before any watermark the operator time is 0: every row is cached, and the
            // left rows at 100 get cleanup timers at 100 + 10 + 0 + 1.
            op.process(0, &rows(&[(1, 100), (2, 100)]), &mut out)
                .unwrap();
            assert_eq!(emitted(&mut out), vec![]);
            // 105 is within 10 ms of key 1's left row, 111 is not.
            op.process(1, &rows(&[(1, 105), (1, 111)]), &mut out)
                .unwrap();
            assert_eq!(
                emitted(&mut out),
                vec![(Some(1), Some(100), Some(1), Some(105))]
            );
            // At 111 both left rows expire (100 <= 111 - 10 - 1): key 2's never joined.
            op.advance_watermark(111, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![(Some(2), Some(100), None, None)]);
            // Behind the watermark: a left row joins what is cached, and is not cached
            // (111 <= 101 + 10 is false) but padded right away when nothing matched.
            op.process(0, &rows(&[(1, 101), (3, 101)]), &mut out)
                .unwrap();
            assert_eq!(
                emitted(&mut out),
                vec![
                    (Some(1), Some(101), Some(1), Some(105)),
                    (Some(1), Some(101), Some(1), Some(111)),
                    (Some(3), Some(101), None, None),
                ]
            );
        }
    }

    #[test]
    fn in_processing_time_rows_take_the_clocks_time_and_timers_fire_when_it_passes_them() {
        use crate::state::ttl::ManualClock;
        let clock = Arc::new(ManualClock::new(1_000));
        for config in [
            StateConfig::memory(),
            StateConfig::rocksdb(tempdir().unwrap().keep()),
        ] {
            let config = config.with_clock(clock.clone());
            clock.set(1_000);
            let mut spec = spec(JoinType::Left);
            spec.processing_time = true;
            let mut op = IntervalJoin::build(spec, &config, 0..=127).unwrap();
            let mut out = Output::new();
            assert_eq!(op.next_processing_timer().unwrap(), None);
            // The time column is not read: both rows are at 1,000, cached with a cleanup
            // timer at 1,000 + 10 + 1.
            op.process(0, &rows(&[(1, 5), (2, 7)]), &mut out).unwrap();
            assert_eq!(op.next_processing_timer().unwrap(), Some(1_011));
            // A watermark fires nothing in processing time.
            op.advance_watermark(i64::MAX, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![]);
            // At 1,005 a right row (time 1,005) meets key 1's left row at 1,000.
            clock.set(1_005);
            op.process(1, &rows(&[(1, -1)]), &mut out).unwrap();
            assert_eq!(
                emitted(&mut out),
                vec![(Some(1), Some(5), Some(1), Some(-1))]
            );
            // The timer for 1,011 is not due at 1,010; at 1,011 key 2's left row, which never
            // joined, is padded; key 1's left row and right row leave without output.
            clock.set(1_010);
            op.on_processing_time(1_010, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![]);
            clock.set(1_011);
            op.on_processing_time(1_011, &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![(Some(2), Some(7), None, None)]);
            // Key 1's right row's timer (1,005 + 11) is still to come.
            assert_eq!(op.next_processing_timer().unwrap(), Some(1_016));
            clock.set(1_100);
            op.on_processing_time(1_100, &mut out).unwrap();
            assert_eq!(op.next_processing_timer().unwrap(), None);
            op.process(1, &rows(&[(1, 0)]), &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![]);
        }
    }

    #[test]
    fn a_restore_forgets_how_far_each_input_is_known_expired_as_flinks_fields_do() {
        let dir = tempdir().unwrap();
        let run = |restore: bool| {
            let config = StateConfig::rocksdb(dir.path().join(format!("state-{restore}")));
            let mut op = open(JoinType::Inner, &config);
            let mut out = Output::new();
            // Key 1's right cache gets its cleanup timer at 200 + 11 = 211; the row at 150,
            // cached later, expires before that timer fires.
            op.process(1, &rows(&[(1, 200), (1, 150)]), &mut out)
                .unwrap();
            op.advance_watermark(170, &mut out).unwrap();
            // Probing (key 2 has no right rows) moves the right input's expiration to
            // 170 - 10 - 1 = 159.
            op.process(0, &rows(&[(2, 300)]), &mut out).unwrap();
            if restore {
                let checkpoint = op.checkpoint(&dir.path().join("checkpoint")).unwrap();
                let checkpoint = Checkpoint::open(checkpoint.path()).unwrap();
                let config = StateConfig::rocksdb(dir.path().join("restored"));
                op = IntervalJoin::restore(spec(JoinType::Inner), &config, 0..=127, &[checkpoint])
                    .unwrap();
            }
            // A left row at 145 reaches up to 155: known expired, it probes nothing in
            // Flink's running operator; restored, the expiration is 0 again, so it probes and
            // meets the row at 150 that no timer cleaned yet.
            op.process(0, &rows(&[(1, 145)]), &mut out).unwrap();
            emitted(&mut out)
        };
        assert_eq!(run(false), vec![]);
        assert_eq!(run(true), vec![(Some(1), Some(145), Some(1), Some(150))]);
    }

    #[test]
    fn a_row_cached_after_a_restore_below_a_cleaned_keys_floor_is_still_met() {
        // Key 1's left row at 100 is cleaned up at watermark 150 (its walk removed up to 139,
        // raising the floor past it). Restored, the operator time is 0 again, so a left row
        // at 120 is cached (0 < 120 + 10), and a right row at 125 meets it, as in Flink.
        let dir = tempdir().unwrap();
        let config = StateConfig::rocksdb(dir.path().join("state"));
        let mut op = open(JoinType::Inner, &config);
        let mut out = Output::new();
        op.process(0, &rows(&[(1, 100)]), &mut out).unwrap();
        op.process(1, &rows(&[(1, 200)]), &mut out).unwrap();
        op.advance_watermark(150, &mut out).unwrap();
        assert_eq!(emitted(&mut out), vec![]);
        let checkpoint = op.checkpoint(&dir.path().join("checkpoint")).unwrap();
        let checkpoint = Checkpoint::open(checkpoint.path()).unwrap();
        for config in [
            StateConfig::memory(),
            StateConfig::rocksdb(dir.path().join("restored")),
        ] {
            let mut op = IntervalJoin::restore(
                spec(JoinType::Inner),
                &config,
                0..=127,
                std::slice::from_ref(&checkpoint),
            )
            .unwrap();
            op.process(0, &rows(&[(1, 120)]), &mut out).unwrap();
            op.process(1, &rows(&[(1, 125)]), &mut out).unwrap();
            assert_eq!(
                emitted(&mut out),
                vec![(Some(1), Some(120), Some(1), Some(125))]
            );
        }
    }

    #[test]
    fn a_cache_whose_earliest_time_is_not_positive_is_cleared_whole() {
        // The left cache of key 1 holds 5 and -5 (walked as 5, then -5: big-endian bytes);
        // the timer set for 5 fires at 16 with the operator time 16: 5 expires (<= 5), and
        // Flink's `earliestTimestamp` ends at -5, so the whole cache goes, -5 with it, and a
        // right row at -4 finds nothing.
        let configs = || {
            [
                StateConfig::memory(),
                StateConfig::rocksdb(tempdir().unwrap().keep()),
            ]
        };
        for config in configs() {
            let mut op = open(JoinType::Inner, &config);
            let mut out = Output::new();
            op.process(0, &rows(&[(1, 5), (1, -5)]), &mut out).unwrap();
            op.advance_watermark(16, &mut out).unwrap();
            op.process(1, &rows(&[(1, -4)]), &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![]);
        }
        for config in configs() {
            // An earliest remaining time of exactly 0 clears the cache too: the timer set for
            // -5 fires at 6, -5 expires (<= 6 - 10 - 1), 0 remains and goes with the cache.
            let mut op = open(JoinType::Inner, &config);
            let mut out = Output::new();
            op.process(0, &rows(&[(2, -5), (2, 0)]), &mut out).unwrap();
            op.advance_watermark(6, &mut out).unwrap();
            op.process(1, &rows(&[(2, 1)]), &mut out).unwrap();
            assert_eq!(emitted(&mut out), vec![]);
        }
    }
}
