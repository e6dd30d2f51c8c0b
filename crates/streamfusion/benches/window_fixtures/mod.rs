//! Shared by the window aggregate suites (`window_string_extrema`, `window_scalar_extrema`,
//! `window_temporal_extrema`, `window_basic_distinct`, and the `operators` suite's
//! `window_count_validity`): the window shapes and their production plans, fixture rows
//! and their batches, an independent model of the windows each row falls into and of each
//! window's results, and the case that times update and watermark flush.
//!
//! The model assigns windows by plain arithmetic over each row's time (TUMBLE, HOP and
//! CUMULATE by their definitions, SESSION by merging each key's `[t, t + gap)` intervals
//! that touch or overlap, as Flink's `TimeWindow.intersects` merges them), never through the
//! production slice assigner.
//!
//! Lives in a nested directory so Cargo discovers only the suites that include it; a suite
//! declares `mod group_fixtures;` too (values, columns and reading output back).

#![allow(dead_code)]

use std::collections::BTreeMap;

use arrow::array::{ArrayData, ArrayRef, RecordBatch, TimestampMillisecondArray};
use bench_support::buffers::ArrowBuffers;
use bench_support::{Suite, Verdict};
use streamfusion::aggregate::session::SessionWindowAggSpec;
use streamfusion::aggregate::window::{WindowAggSpec, WindowProperty};
use streamfusion::aggregate::{AggCall, AggFunction, GroupAggSpec};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::{Operator, OperatorPlan, Output, StateConfig};
use streamfusion::types::LogicalType;
use streamfusion::window::slices::SliceAssigner;

use crate::group_fixtures::{V, column, read};

/// TUMBLE size, HOP size and CUMULATE max size (ms).
pub const SIZE: i64 = 10_000;
/// HOP slide (ms): every row is in two windows.
pub const SLIDE: i64 = 5_000;
/// CUMULATE step (ms): a row is in one to four windows of its period.
pub const STEP: i64 = 2_500;
/// SESSION gap (ms).
pub const GAP: i64 = 1_000;
/// Row times lie in `[0, SPAN)`: four TUMBLE windows.
pub const SPAN: i64 = 40_000;

/// A window shape of the suites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Tumble,
    Hop,
    Cumulate,
    Session,
}

impl Shape {
    /// The sliced shapes (one operator, `WindowAggregate`).
    pub const SLICED: [Shape; 3] = [Shape::Tumble, Shape::Hop, Shape::Cumulate];
    /// Every shape, SESSION (`SessionWindowAggregate`) last.
    pub const ALL: [Shape; 4] = [Shape::Tumble, Shape::Hop, Shape::Cumulate, Shape::Session];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Tumble => "tumble",
            Shape::Hop => "hop",
            Shape::Cumulate => "cumulate",
            Shape::Session => "session",
        }
    }

    /// The production plan of `aggregate` (over `k, v, ts`) in this shape, one phase, on
    /// TIMESTAMP(3) row time in UTC, with `window_start` and `window_end`.
    pub fn plan(self, aggregate: GroupAggSpec) -> OperatorPlan {
        let properties = vec![
            ("window_start".into(), WindowProperty::Start),
            ("window_end".into(), WindowProperty::End),
        ];
        let window = match self {
            Shape::Tumble => SliceAssigner::Tumble {
                size: SIZE,
                offset: 0,
            },
            Shape::Hop => SliceAssigner::Hop {
                size: SIZE,
                slide: SLIDE,
                offset: 0,
            },
            Shape::Cumulate => SliceAssigner::Cumulate {
                max_size: SIZE,
                step: STEP,
                offset: 0,
            },
            Shape::Session => {
                return OperatorPlan::SessionWindowAggregate(SessionWindowAggSpec {
                    aggregate,
                    gap: GAP,
                    time_column: 2,
                    properties,
                    legacy: false,
                    time_zone: None,
                });
            }
        };
        OperatorPlan::WindowAggregate(WindowAggSpec {
            aggregate,
            window,
            time_column: 2,
            properties,
            time_zone: None,
            legacy: false,
        })
    }

    /// The windows `[start, end)` of a sliced shape holding a row at `ts`.
    fn windows_of(self, ts: i64) -> Vec<(i64, i64)> {
        let floor = |t: i64, unit: i64| t.div_euclid(unit) * unit;
        match self {
            Shape::Tumble => vec![(floor(ts, SIZE), floor(ts, SIZE) + SIZE)],
            Shape::Hop => {
                let mut out = Vec::new();
                let mut start = floor(ts, SLIDE);
                while start + SIZE > ts {
                    out.push((start, start + SIZE));
                    start -= SLIDE;
                }
                out
            }
            Shape::Cumulate => {
                let start = floor(ts, SIZE);
                (1..=SIZE / STEP)
                    .map(|j| (start, start + j * STEP))
                    .filter(|&(_, end)| end > ts)
                    .collect()
            }
            Shape::Session => unreachable!("sessions are merged per key"),
        }
    }
}

/// An aggregate call of the suites, over the value column `v`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Min,
    Max,
    Count,
    CountDistinct,
}

impl Call {
    fn agg_call(self) -> AggCall {
        let (function, name) = match self {
            Call::Min => (AggFunction::Min, "min_v"),
            Call::Max => (AggFunction::Max, "max_v"),
            Call::Count | Call::CountDistinct => (AggFunction::Count, "cnt_v"),
        };
        AggCall {
            distinct: self == Call::CountDistinct,
            ..AggCall::new(function, Some(1), name)
        }
    }

    /// The call's result over a window's values: the least or greatest non-NULL value (NULL
    /// when there is none), or the number of non-NULL (or distinct non-NULL) values.
    fn eval(self, values: &[V]) -> V {
        let present = values.iter().filter(|v| !v.is_null());
        match self {
            Call::Min => present.min().cloned().unwrap_or(V::Null),
            Call::Max => present.max().cloned().unwrap_or(V::Null),
            Call::Count => V::Int(present.count() as i64),
            Call::CountDistinct => {
                V::Int(present.collect::<std::collections::BTreeSet<_>>().len() as i64)
            }
        }
    }
}

/// One input row: key (of the fixture's key type, NULL allowed), value, row time (ms).
#[derive(Debug, Clone)]
pub struct Row {
    pub key: V,
    pub value: V,
    pub ts: i64,
}

/// Row `row`'s key id among `keys` (scattered, not sorted).
pub fn key_of(row: usize, keys: usize) -> i64 {
    (row.wrapping_mul(2_654_435_761) % keys) as i64
}

/// Whether row `row` of key `key` has a NULL value: every 5th row, and every row of key 0
/// when there are several keys (a NULL-only group).
pub fn null_value(row: usize, key: i64, keys: usize) -> bool {
    row % 5 == 4 || (keys > 1 && key == 0)
}

/// `n` rows over `keys` keys, out of time order across `[0, SPAN)`; `value(row, key)` gives
/// the value of a row whose value is not NULL ([`null_value`]).
pub fn rows(n: usize, keys: usize, value: impl Fn(usize, i64) -> V) -> Vec<Row> {
    keyed_rows(n, keys, V::Int, value)
}

/// [`rows`] with each key id turned into a key by `key` (which may give NULL).
pub fn keyed_rows(
    n: usize,
    keys: usize,
    key_value: impl Fn(i64) -> V,
    value: impl Fn(usize, i64) -> V,
) -> Vec<Row> {
    (0..n)
        .map(|row| {
            let key = key_of(row, keys);
            Row {
                key: key_value(key),
                value: if null_value(row, key, keys) {
                    V::Null
                } else {
                    value(row, key)
                },
                ts: (row as i64 * 7_919 + key * 13) % SPAN,
            }
        })
        .collect()
}

/// A second batch for SESSION: for each key, one row at its last time plus the gap, so its
/// session touches (and merges with) the key's last session; `value(key)` gives its value
/// (NULL for a NULL-only key).
pub fn touching(first: &[Row], value: impl Fn(&V) -> V) -> Vec<Row> {
    let mut last: BTreeMap<&V, i64> = BTreeMap::new();
    for r in first {
        let t = last.entry(&r.key).or_insert(r.ts);
        *t = (*t).max(r.ts);
    }
    last.into_iter()
        .map(|(key, ts)| Row {
            key: key.clone(),
            value: value(key),
            ts: ts + GAP,
        })
        .collect()
}

/// The model's windows: `(key, start, end)` to the values of its rows.
fn windows(shape: Shape, rows: &[Row]) -> BTreeMap<(V, i64, i64), Vec<V>> {
    let mut out: BTreeMap<(V, i64, i64), Vec<V>> = BTreeMap::new();
    if shape != Shape::Session {
        for r in rows {
            for (start, end) in shape.windows_of(r.ts) {
                out.entry((r.key.clone(), start, end))
                    .or_default()
                    .push(r.value.clone());
            }
        }
        return out;
    }
    let mut by_key: BTreeMap<&V, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by_key.entry(&r.key).or_default().push(r);
    }
    for (key, mut rows) in by_key {
        rows.sort_by_key(|r| r.ts);
        let mut current: Option<(i64, i64, Vec<V>)> = None;
        for r in rows {
            match &mut current {
                Some((_, end, values)) if r.ts <= *end => {
                    *end = (*end).max(r.ts + GAP);
                    values.push(r.value.clone());
                }
                _ => {
                    if let Some((start, end, values)) = current.take() {
                        out.insert((key.clone(), start, end), values);
                    }
                    current = Some((r.ts, r.ts + GAP, vec![r.value.clone()]));
                }
            }
        }
        if let Some((start, end, values)) = current {
            out.insert((key.clone(), start, end), values);
        }
    }
    out
}

/// A window's results by the model: `(key, start, end)` to each call's value.
pub type Results = BTreeMap<(V, i64, i64), Vec<V>>;

/// One phase, or the local phase's partials into the global phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phases {
    One,
    Two,
}

impl Phases {
    pub fn name(self) -> &'static str {
        match self {
            Phases::One => "one_phase",
            Phases::Two => "two_phase",
        }
    }
}

/// Where a case's keyed state lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    Memory,
    /// A fresh RocksDB store in a temporary directory (created outside timing).
    Rocksdb,
}

/// A case: the plan (the global phase of two), the local phase's plan of two, its input
/// batches with the watermarks between them, where state lives, and the model's results.
pub struct Fixture {
    pub local: Option<OperatorPlan>,
    pub plan: OperatorPlan,
    pub batches: Vec<ChangelogBatch>,
    /// The watermark after each batch (`None`: none); the final one is `i64::MAX`.
    pub watermarks: Vec<Option<i64>>,
    pub store: Store,
    pub expected: Results,
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        for b in &self.batches {
            b.collect_arrays(out);
        }
    }
}

/// The one-phase case of `calls` over values of `value_type` in `shape` on BIGINT keys,
/// its input in `batches`, on the memory backend.
pub fn fixture(
    shape: Shape,
    value_type: &LogicalType,
    calls: &[Call],
    batches: &[Vec<Row>],
) -> Fixture {
    phased(shape, Phases::One, value_type, calls, batches)
}

/// [`fixture`] in `phases` (a sliced shape for two).
pub fn phased(
    shape: Shape,
    phases: Phases,
    value_type: &LogicalType,
    calls: &[Call],
    batches: &[Vec<Row>],
) -> Fixture {
    keyed(
        shape,
        phases,
        &LogicalType::BigInt,
        value_type,
        calls,
        batches,
    )
}

/// [`phased`] with keys of `key_type`.
pub fn keyed(
    shape: Shape,
    phases: Phases,
    key_type: &LogicalType,
    value_type: &LogicalType,
    calls: &[Call],
    batches: &[Vec<Row>],
) -> Fixture {
    let aggregate = GroupAggSpec {
        input_names: vec!["k".into(), "v".into(), "ts".into()],
        input_types: vec![
            key_type.clone(),
            value_type.clone(),
            LogicalType::Timestamp(3),
        ],
        grouping: vec![0],
        calls: calls.iter().map(|c| c.agg_call()).collect(),
        input_retracts: false,
        generate_update_before: false,
        mini_batch_rows: None,
        state_ttl: None,
        max_parallelism: 128,
    };
    let all: Vec<Row> = batches.iter().flatten().cloned().collect();
    let expected = windows(shape, &all)
        .into_iter()
        .map(|(window, values)| (window, calls.iter().map(|c| c.eval(&values)).collect()))
        .collect();
    let (local, plan) = match (phases, shape.plan(aggregate)) {
        (Phases::One, plan) => (None, plan),
        (Phases::Two, OperatorPlan::WindowAggregate(spec)) => (
            Some(OperatorPlan::LocalWindowAggregate(spec.clone())),
            OperatorPlan::GlobalWindowAggregate(spec),
        ),
        (Phases::Two, _) => panic!("{shape:?} has no two-phase plan"),
    };
    Fixture {
        local,
        plan,
        batches: batches
            .iter()
            .map(|b| batch(key_type, value_type, b))
            .collect(),
        watermarks: Vec::new(),
        store: Store::Memory,
        expected,
    }
}

fn batch(key_type: &LogicalType, value_type: &LogicalType, rows: &[Row]) -> ChangelogBatch {
    let keys: Vec<V> = rows.iter().map(|r| r.key.clone()).collect();
    let values: Vec<V> = rows.iter().map(|r| r.value.clone()).collect();
    let ts: ArrayRef = std::sync::Arc::new(TimestampMillisecondArray::from_iter_values(
        rows.iter().map(|r| r.ts),
    ));
    let batch = RecordBatch::try_from_iter_with_nullable([
        ("k", column(key_type, &keys), true),
        ("v", column(value_type, &values), true),
        ("ts", ts, false),
    ])
    .expect("fixture batch");
    ChangelogBatch::insert_only(batch)
}

/// The production output as `(key, start, end)` to the calls' values; a window emitted
/// twice, or a row that is not an insert, fails.
fn results(out: &[ChangelogBatch], calls: usize) -> Result<Results, String> {
    let mut got = Results::new();
    for b in out {
        let batch = b.batch();
        if batch.num_columns() != calls + 3 {
            return Err(format!(
                "{} output columns, expected key, {calls} calls, start and end",
                batch.num_columns()
            ));
        }
        let bound = |c: usize, r: usize| match read(batch.column(c).as_ref(), r)? {
            V::Int(i) => Ok(i),
            other => Err(format!(
                "column {c} row {r}: {other:?} is not a window bound"
            )),
        };
        for r in 0..b.num_rows() {
            if !b.kind(r).is_accumulate() {
                return Err(format!("row {r} is {}, not an insert", b.kind(r)));
            }
            let window = (
                read(batch.column(0).as_ref(), r)?,
                bound(calls + 1, r)?,
                bound(calls + 2, r)?,
            );
            let values = (1..=calls)
                .map(|c| read(batch.column(c).as_ref(), r))
                .collect::<Result<Vec<_>, _>>()?;
            if let Some(window) = got.insert(window.clone(), values).map(|_| window) {
                return Err(format!("window {window:?} emitted twice"));
            }
        }
    }
    Ok(got)
}

/// Compares the production windows with the model's; names the first difference.
fn check(got: &Results, expected: &Results) -> Verdict {
    if got == expected {
        return Ok(());
    }
    if let Some((w, v)) = expected.iter().find(|(w, v)| got.get(*w) != Some(*v)) {
        return Err(format!(
            "window {w:?}: got {:?}, expected {v:?} ({} windows, expected {})",
            got.get(w),
            got.len(),
            expected.len()
        ));
    }
    let extra = got.keys().find(|w| !expected.contains_key(*w));
    Err(format!(
        "window {extra:?} emitted but holds no row ({} windows, expected {})",
        got.len(),
        expected.len()
    ))
}

/// The operators of a case: the local phase of two, the (global) window operator, and the
/// directory of its RocksDB store.
pub struct Operators {
    local: Option<Box<dyn Operator>>,
    op: Box<dyn Operator>,
    _dir: Option<tempfile::TempDir>,
}

impl Operators {
    fn new(f: &Fixture, store: Store) -> Self {
        let (config, dir) = match store {
            Store::Memory => (StateConfig::memory(), None),
            Store::Rocksdb => {
                let dir = tempfile::tempdir().expect("temporary directory");
                (StateConfig::rocksdb(dir.path().join("db")), Some(dir))
            }
        };
        Self {
            local: f.local.as_ref().map(|plan| {
                plan.build(&StateConfig::memory(), None)
                    .expect("local window operator")
            }),
            op: f.plan.build(&config, None).expect("window operator"),
            _dir: dir,
        }
    }

    /// Whatever the local phase emits goes on to the global phase.
    fn forward(&mut self, mut partials: Output, out: &mut Output) {
        for p in partials.take() {
            self.op.process(0, &p, out).expect("global merge");
        }
    }

    fn push(&mut self, batch: &ChangelogBatch, out: &mut Output) {
        match &mut self.local {
            None => self.op.process(0, batch, out).expect("update"),
            Some(local) => {
                let mut partials = Output::new();
                local
                    .process(0, batch, &mut partials)
                    .expect("local update");
                self.forward(partials, out);
            }
        }
    }

    fn watermark(&mut self, watermark: i64, out: &mut Output) {
        if let Some(local) = &mut self.local {
            let mut partials = Output::new();
            local
                .advance_watermark(watermark, &mut partials)
                .expect("local drain");
            self.forward(partials, out);
        }
        self.op
            .advance_watermark(watermark, out)
            .expect("watermark");
    }

    /// The fixture's batches and watermarks, the watermark that fires every window, and the
    /// end of input (which must emit nothing more).
    fn run(&mut self, f: &Fixture) -> Vec<ChangelogBatch> {
        let mut out = Output::new();
        for (i, b) in f.batches.iter().enumerate() {
            self.push(b, &mut out);
            if let Some(w) = f.watermarks.get(i).copied().flatten() {
                self.watermark(w, &mut out);
            }
        }
        self.watermark(i64::MAX, &mut out);
        self.op.flush(&mut out).expect("end of input");
        out.take()
    }
}

/// Registers case `id`: the batches (with their watermarks) into fresh operators on the
/// fixture's store (created outside timing), then the watermark that fires every window;
/// grouping, accumulation, state, session merges, firing, output construction and disposal
/// are timed, and in two phases the local phase's accumulation and partial drain and the
/// global phase's merge too. Every window's results are checked against the model first,
/// and on RocksDB against the same operators on the memory backend as well.
pub fn window_case(suite: &mut Suite, id: &str, calls: usize, setup: impl FnOnce() -> Fixture) {
    suite.stateful(
        id,
        setup,
        |f| Operators::new(f, f.store),
        |ops: &mut Operators, f| ops.run(f),
        |f, out| {
            let got = results(out, calls)?;
            check(&got, &f.expected)?;
            if f.store != Store::Memory {
                let memory = results(&Operators::new(f, Store::Memory).run(f), calls)?;
                check(&got, &memory).map_err(|e| format!("against the memory backend: {e}"))?;
            }
            Ok(())
        },
    );
}
