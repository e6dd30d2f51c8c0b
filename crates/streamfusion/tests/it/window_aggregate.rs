//! Window aggregation against a model that knows only what a window is: a row counts in
//! every window holding its time that has not fired when it arrives, a window fires once
//! when the watermark reaches `end - 1`, and only non-empty windows are emitted. The model
//! assigns windows by their definition, not through the operator's slices (nor its buffer,
//! which applies rows when Flink's does: before any window needing them fires), and checks
//! TUMBLE, HOP and CUMULATE (offsets included) over NULL keys and values, out-of-order and
//! late rows, chunked input, and restores (aligned and rescaled 1 -> 2 -> 1) on both
//! backends, one-phase and as a local phase feeding global subtasks.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array, Int64Array, TimestampMillisecondArray};
use arrow::datatypes::{Int32Type, Int64Type, TimestampMillisecondType};
use streamfusion::aggregate::window::{WindowAggSpec, WindowProperty};
use streamfusion::aggregate::{AggCall, AggFunction, GroupAggSpec};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::{Operator, OperatorPlan, Output, StateConfig};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::types::LogicalType;
use streamfusion::window::slices::SliceAssigner;

use super::common::{Backend, SplitMix, config, key_group_ranges, route};

pub(super) const MAX_PARALLELISM: u32 = 128;

#[derive(Debug, Clone, Copy)]
pub(super) enum Event {
    Row {
        key: Option<i32>,
        ts: i64,
        v: Option<i64>,
    },
    Watermark(i64),
}

/// One emitted window: key, start, end, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), time.
pub(super) type Out = (
    Option<i32>,
    i64,
    i64,
    i64,
    i64,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    i64,
);

fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

/// The windows `[start, end)` holding `ts`, by definition.
fn windows_of(window: SliceAssigner, ts: i64) -> Vec<(i64, i64)> {
    match window {
        SliceAssigner::Tumble { size, offset } => {
            let start = offset + floor_div(ts - offset, size) * size;
            vec![(start, start + size)]
        }
        SliceAssigner::Hop {
            size,
            slide,
            offset,
        } => {
            let last = offset + floor_div(ts - offset, slide) * slide;
            (0..size / slide)
                .map(|k| last - k * slide)
                .filter(|&s| s <= ts && ts < s + size)
                .map(|s| (s, s + size))
                .collect()
        }
        SliceAssigner::Cumulate {
            max_size,
            step,
            offset,
        } => {
            let start = offset + floor_div(ts - offset, max_size) * max_size;
            (1..=max_size / step)
                .map(|j| start + j * step)
                .filter(|&end| ts < end)
                .map(|end| (start, end))
                .collect()
        }
    }
}

/// The model: each watermark's emissions, as a sorted multiset.
fn model(window: SliceAssigner, events: &[Event]) -> Vec<Vec<Out>> {
    model_at_offset(window, events, 0)
}

/// The model in a session time zone a fixed `offset` ahead of UTC: windows hold local
/// times (`ts + offset`) and fire, and are late, when the watermark reaches the instant of
/// their last local millisecond (`end - 1 - offset`), which is also `window_time`.
fn model_at_offset(window: SliceAssigner, events: &[Event], offset: i64) -> Vec<Vec<Out>> {
    let mut watermark = i64::MIN;
    let mut open: BTreeMap<(Option<i32>, i64, i64), Vec<Option<i64>>> = BTreeMap::new();
    let mut fired: BTreeSet<(Option<i32>, i64, i64)> = BTreeSet::new();
    let mut out = Vec::new();
    for event in events {
        match *event {
            Event::Row { key, ts, v } => {
                for (start, end) in windows_of(window, ts + offset) {
                    if end - 1 - offset > watermark {
                        open.entry((key, start, end)).or_default().push(v);
                    }
                }
            }
            Event::Watermark(w) => {
                if w <= watermark {
                    out.push(Vec::new());
                    continue;
                }
                watermark = w;
                let due: Vec<_> = open
                    .keys()
                    .filter(|(_, _, end)| end - 1 - offset <= w)
                    .copied()
                    .collect();
                let mut emitted = Vec::new();
                for id in due {
                    let values = open.remove(&id).unwrap();
                    assert!(fired.insert(id), "a window fires once");
                    let present: Vec<i64> = values.iter().flatten().copied().collect();
                    let sum = present.iter().copied().reduce(i64::wrapping_add);
                    emitted.push((
                        id.0,
                        id.1,
                        id.2,
                        values.len() as i64,
                        present.len() as i64,
                        sum,
                        present.iter().copied().min(),
                        present.iter().copied().max(),
                        id.2 - 1 - offset,
                    ));
                }
                emitted.sort();
                out.push(emitted);
            }
        }
    }
    out
}

fn spec(window: SliceAssigner) -> WindowAggSpec {
    WindowAggSpec {
        aggregate: aggregate(),
        window,
        time_column: 2,
        properties: properties(),
        time_zone: None,
        legacy: false,
    }
}

/// `spec(window)` over a TIMESTAMP_LTZ(3) row time windowed in the session time zone `zone`.
fn zoned_spec(window: SliceAssigner, zone: &str) -> WindowAggSpec {
    let mut spec = spec(window);
    spec.aggregate.input_types[2] = LogicalType::TimestampLtz(3);
    spec.time_zone = Some(zone.to_owned());
    spec
}

/// `COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v)` grouped by `k` over `(k INT, v BIGINT, ts
/// TIMESTAMP(3))`.
pub(super) fn aggregate() -> GroupAggSpec {
    let v = Some(1);
    GroupAggSpec {
        input_names: vec!["k".into(), "v".into(), "ts".into()],
        input_types: vec![
            LogicalType::Int,
            LogicalType::BigInt,
            LogicalType::Timestamp(3),
        ],
        grouping: vec![0],
        calls: vec![
            AggCall::new(AggFunction::CountStar, None, "cnt"),
            AggCall::new(AggFunction::Count, v, "cnt_v"),
            AggCall::new(AggFunction::Sum, v, "sum_v"),
            AggCall::new(AggFunction::Min, v, "min_v"),
            AggCall::new(AggFunction::Max, v, "max_v"),
        ],
        input_retracts: false,
        generate_update_before: false,
        mini_batch_rows: None,
        state_ttl: None,
        max_parallelism: MAX_PARALLELISM,
    }
}

/// `window_start`, `window_end`, `window_time`.
pub(super) fn properties() -> Vec<(String, WindowProperty)> {
    vec![
        ("window_start".into(), WindowProperty::Start),
        ("window_end".into(), WindowProperty::End),
        ("window_time".into(), WindowProperty::Time),
    ]
}

fn batch(rows: &[(Option<i32>, i64, Option<i64>)]) -> ChangelogBatch {
    typed_batch(rows, &LogicalType::Timestamp(3))
}

/// `rows` as `(k, v, ts)`, `ts` of `time_type` (TIMESTAMP(3) or TIMESTAMP_LTZ(3)).
fn typed_batch(
    rows: &[(Option<i32>, i64, Option<i64>)],
    time_type: &LogicalType,
) -> ChangelogBatch {
    let k: ArrayRef = Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.0)));
    let v: ArrayRef = Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.2)));
    let ts: ArrayRef = Arc::new(
        TimestampMillisecondArray::from_iter_values(rows.iter().map(|r| r.1))
            .with_data_type(time_type.to_arrow()),
    );
    let schema = Arc::new(arrow::datatypes::Schema::new(vec![
        arrow::datatypes::Field::new("k", k.data_type().clone(), true),
        arrow::datatypes::Field::new("v", v.data_type().clone(), true),
        arrow::datatypes::Field::new("ts", ts.data_type().clone(), true),
    ]));
    ChangelogBatch::insert_only(arrow::array::RecordBatch::try_new(schema, vec![k, v, ts]).unwrap())
}

fn rows_of(out: &mut Output) -> Vec<Out> {
    let mut rows = Vec::new();
    for b in out.take() {
        assert!(b.is_insert_only());
        let b = b.batch();
        let col = |i: usize| b.column(i).as_primitive::<Int64Type>();
        let time = |i: usize| b.column(i).as_primitive::<TimestampMillisecondType>();
        let opt = |a: &arrow::array::Int64Array, r: usize| (!a.is_null(r)).then(|| a.value(r));
        let k = b.column(0).as_primitive::<Int32Type>();
        for r in 0..b.num_rows() {
            rows.push((
                (!k.is_null(r)).then(|| k.value(r)),
                time(6).value(r),
                time(7).value(r),
                col(1).value(r),
                col(2).value(r),
                opt(col(3), r),
                opt(col(4), r),
                opt(col(5), r),
                time(8).value(r),
            ));
        }
    }
    rows.sort();
    rows
}

/// A random event stream: keys (NULL among them) over a slowly rising time with jitter, a
/// watermark after every few rows lagging the largest time, and some rows far behind it.
pub(super) fn events(seed: u64, rows: usize, keys: i32, start: i64) -> Vec<Event> {
    let mut random = SplitMix::new(seed);
    let mut next = |m: u64| random.below(m);
    let mut events = Vec::new();
    let mut max_ts = start;
    for i in 0..rows {
        let key = match next(keys as u64 + 1) as i32 {
            0 => None,
            k => Some(k),
        };
        let base = start + (i as i64) * 37;
        let ts = if next(10) == 0 {
            base - next(6_000) as i64 // late, sometimes dropped
        } else {
            base + next(400) as i64 - 200
        };
        max_ts = max_ts.max(ts);
        let v = (next(5) != 0).then(|| next(1_000) as i64 - 500);
        events.push(Event::Row { key, ts, v });
        if next(7) == 0 {
            events.push(Event::Watermark(max_ts - next(300) as i64));
        }
    }
    events.push(Event::Watermark(i64::MAX));
    events
}

fn windows() -> Vec<SliceAssigner> {
    vec![
        SliceAssigner::Tumble {
            size: 1_000,
            offset: 0,
        },
        SliceAssigner::Tumble {
            size: 1_000,
            offset: -300,
        },
        SliceAssigner::Hop {
            size: 2_000,
            slide: 500,
            offset: 0,
        },
        SliceAssigner::Hop {
            size: 1_500,
            slide: 500,
            offset: 200,
        },
        SliceAssigner::Cumulate {
            max_size: 2_000,
            step: 500,
            offset: 0,
        },
        SliceAssigner::Cumulate {
            max_size: 3_000,
            step: 1_000,
            offset: 700,
        },
    ]
}

/// Which plan runs: one window aggregate, or a local phase (one subtask, as it sits before
/// the exchange) whose partials are routed by key group to global subtasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phases {
    One,
    Two,
}

impl Phases {
    /// Where the generated event times start: one phase from before the epoch; two phases
    /// after it, since Flink's local phase starts at watermark 0 and applies nothing on
    /// watermarks at or before it (`local_phase_holds_rows_until_a_watermark_after_the_epoch`).
    fn start(self) -> i64 {
        match self {
            Phases::One => -5_000,
            Phases::Two => 9_000,
        }
    }
}

/// Runs `events` through the plan of `phases` ([`run_plan`]).
fn run_phases(
    phases: Phases,
    backend: Backend,
    window: SliceAssigner,
    events: &[Event],
    restores: &[(usize, u32)],
    chunk: usize,
) -> Vec<Vec<Out>> {
    run_spec(phases, backend, spec(window), events, restores, chunk)
}

/// Runs `events` through `spec` in the plan of `phases` ([`run_plan`]).
fn run_spec(
    phases: Phases,
    backend: Backend,
    spec: WindowAggSpec,
    events: &[Event],
    restores: &[(usize, u32)],
    chunk: usize,
) -> Vec<Vec<Out>> {
    let (local, plan) = match phases {
        Phases::One => (None, OperatorPlan::WindowAggregate(spec)),
        Phases::Two => (
            Some(OperatorPlan::LocalWindowAggregate(spec.clone())),
            OperatorPlan::GlobalWindowAggregate(spec),
        ),
    };
    run_plan(local, &plan, backend, events, restores, chunk)
}

/// Runs `events` through subtasks of `plan` (rows routed by key group, behind one subtask of
/// the stateless `local` plan when there is one), restoring every subtask from the
/// checkpoints of the previous ones at each event index in `restores` (with the parallelism
/// given there), in `chunk`-row batches; each watermark's output, sorted.
pub(super) fn run_plan(
    local: Option<OperatorPlan>,
    plan: &OperatorPlan,
    backend: Backend,
    events: &[Event],
    restores: &[(usize, u32)],
    chunk: usize,
) -> Vec<Vec<Out>> {
    let dir = tempfile::tempdir().unwrap();
    let mut local = local.map(|l| l.build(&StateConfig::memory(), None).unwrap());
    // The row time's type, as the plan reads it.
    let time_type = match (&local, plan) {
        (Some(local), _) => local.input_types(0)[2].clone(),
        (None, plan) => plan
            .build(&StateConfig::memory(), None)
            .unwrap()
            .input_types(0)[2]
            .clone(),
    };
    let state = |i: usize| -> StateConfig {
        match backend {
            Backend::Memory => StateConfig::memory(),
            Backend::Rocks => StateConfig::rocksdb(dir.path().join(format!("db{i}"))),
        }
    };
    let ranges = |p: u32| key_group_ranges(MAX_PARALLELISM, p);
    let mut opened = 0;
    let mut subtasks: Vec<Box<dyn Operator>> = ranges(1)
        .into_iter()
        .map(|r| {
            opened += 1;
            plan.build(&state(opened), Some(r)).unwrap()
        })
        .collect();
    // Whatever the local phase emitted goes to the global subtasks.
    let deliver = |subtasks: &mut Vec<Box<dyn Operator>>, batches: Vec<ChangelogBatch>| {
        for b in batches {
            let n = subtasks.len();
            for (op, part) in subtasks.iter_mut().zip(route(&b, n, MAX_PARALLELISM)) {
                if let Some(part) = part {
                    op.process(0, &part, &mut Output::new()).unwrap();
                }
            }
        }
    };
    let mut out = Vec::new();
    let mut pending: Vec<(Option<i32>, i64, Option<i64>)> = Vec::new();
    let flush_rows = |subtasks: &mut Vec<Box<dyn Operator>>,
                      local: &mut Option<Box<dyn Operator>>,
                      pending: &mut Vec<(Option<i32>, i64, Option<i64>)>| {
        for rows in pending.chunks(chunk) {
            let rows = typed_batch(rows, &time_type);
            match local {
                Some(local) => {
                    let mut partials = Output::new();
                    local.process(0, &rows, &mut partials).unwrap();
                    deliver(subtasks, partials.take());
                }
                None => deliver(subtasks, vec![rows]),
            }
        }
        pending.clear();
    };
    for (index, event) in events.iter().enumerate() {
        if let Some(&(_, next)) = restores.iter().find(|(at, _)| *at == index) {
            flush_rows(&mut subtasks, &mut local, &mut pending);
            // As Flink's `prepareSnapshotPreBarrier`, upstream first: the local phase emits
            // its buffer, then each subtask puts its buffered rows into state.
            if let Some(local) = &mut local {
                let mut partials = Output::new();
                local.prepare_checkpoint(&mut partials).unwrap();
                deliver(&mut subtasks, partials.take());
            }
            let mut checkpoints = Vec::new();
            for (i, op) in subtasks.iter_mut().enumerate() {
                let mut nothing = Output::new();
                op.prepare_checkpoint(&mut nothing).unwrap();
                assert_eq!(nothing.num_rows(), 0);
                let target = dir.path().join(format!("ckpt-{index}-{i}"));
                let published = op.checkpoint(&target).unwrap();
                checkpoints.push(Checkpoint::open(published.path()).unwrap());
            }
            subtasks = ranges(next)
                .into_iter()
                .map(|r| {
                    opened += 1;
                    plan.restore(&state(opened), Some(r), &checkpoints).unwrap()
                })
                .collect();
        }
        match *event {
            Event::Row { key, ts, v } => pending.push((key, ts, v)),
            Event::Watermark(w) => {
                flush_rows(&mut subtasks, &mut local, &mut pending);
                if let Some(local) = &mut local {
                    let mut partials = Output::new();
                    local.advance_watermark(w, &mut partials).unwrap();
                    deliver(&mut subtasks, partials.take());
                }
                let mut emitted = Output::new();
                for op in &mut subtasks {
                    op.advance_watermark(w, &mut emitted).unwrap();
                }
                out.push(rows_of(&mut emitted));
            }
        }
    }
    out
}

fn run(
    backend: Backend,
    window: SliceAssigner,
    events: &[Event],
    restores: &[(usize, u32)],
    chunk: usize,
) -> Vec<Vec<Out>> {
    run_phases(Phases::One, backend, window, events, restores, chunk)
}

#[test]
fn windows_match_the_model_on_both_backends() {
    for (n, window) in windows().into_iter().enumerate() {
        for backend in [Backend::Memory, Backend::Rocks] {
            for phases in [Phases::One, Phases::Two] {
                let events = events(0x5EED + n as u64, 1_500, 40, phases.start());
                let expected = model(window, &events);
                assert!(
                    expected.iter().map(Vec::len).sum::<usize>() > 100,
                    "{window:?}"
                );
                let got = run_phases(phases, backend, window, &events, &[], 17);
                assert_eq!(got, expected, "{window:?} on {backend:?}, {phases:?}");
            }
        }
    }
}

/// In Asia/Shanghai (UTC+8 throughout, whose offset the windows here divide, so Flink's
/// buffer triggers stay on slice ends), windows hold local times and fire, and judge rows
/// late, at the instant of their last local millisecond; `window_time` is that instant.
#[test]
fn windows_in_a_session_time_zone_are_local_and_fire_at_their_instants() {
    const SHANGHAI: i64 = 8 * 3_600_000;
    for (n, window) in windows().into_iter().enumerate() {
        for (phases, backend) in [
            (Phases::One, Backend::Rocks),
            (Phases::Two, Backend::Memory),
        ] {
            let events = events(0x5A_0800 + n as u64, 900, 25, phases.start());
            let expected = model_at_offset(window, &events, SHANGHAI);
            assert_ne!(expected, model(window, &events), "{window:?}");
            let spec = zoned_spec(window, "Asia/Shanghai");
            let restores = [(events.len() / 2, 2)];
            let got = run_spec(phases, backend, spec, &events, &restores, 17);
            assert_eq!(got, expected, "{window:?} on {backend:?}, {phases:?}");
        }
    }
}

#[test]
fn restores_aligned_and_rescaled_fire_every_window_once() {
    for (n, window) in windows().into_iter().enumerate() {
        for backend in [Backend::Memory, Backend::Rocks] {
            for phases in [Phases::One, Phases::Two] {
                let events = events(0xC0DE + n as u64, 900, 25, phases.start());
                let expected = model(window, &events);
                let third = events.len() / 3;
                // Aligned at one point, then 1 -> 2 and 2 -> 1 at others.
                let got = run_phases(
                    phases,
                    backend,
                    window,
                    &events,
                    &[(third / 2, 1), (third, 2), (2 * third, 1)],
                    29,
                );
                assert_eq!(got, expected, "{window:?} on {backend:?}, {phases:?}");
            }
        }
    }
}

#[test]
fn late_rows_are_dropped_only_when_their_last_window_fired() {
    let hop = SliceAssigner::Hop {
        size: 2_000,
        slide: 1_000,
        offset: 0,
    };
    let events = [
        Event::Row {
            key: Some(1),
            ts: 1_500,
            v: Some(1),
        },
        Event::Watermark(1_999),
        // Slice [1000, 2000) fired with window [0, 2000); window [1000, 3000) still open.
        Event::Row {
            key: Some(1),
            ts: 1_200,
            v: Some(10),
        },
        Event::Row {
            key: Some(2),
            ts: 1_700,
            v: Some(5),
        },
        Event::Watermark(2_999),
        // Every window of [1000, 2000) has fired now: dropped.
        Event::Row {
            key: Some(1),
            ts: 1_100,
            v: Some(100),
        },
        Event::Watermark(i64::MAX),
    ];
    let expected = model(hop, &events);
    assert_eq!(expected[0].len(), 1);
    assert_eq!(expected[1].len(), 2);
    assert_eq!(expected[1][0].5, Some(11));
    assert_eq!(run(Backend::Memory, hop, &events, &[], 3), expected);
}

#[test]
fn a_null_row_time_fails_the_batch() {
    let plan = OperatorPlan::WindowAggregate(spec(SliceAssigner::Tumble {
        size: 10,
        offset: 0,
    }));
    let mut op = plan
        .build(&config(Backend::Memory, std::path::Path::new("/")), None)
        .unwrap();
    let good = batch(&[(Some(1), 5, Some(1))]);
    let b = good.batch();
    let ts: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![None::<i64>]));
    let bad = ChangelogBatch::insert_only(
        arrow::array::RecordBatch::try_new(
            b.schema(),
            vec![b.column(0).clone(), b.column(1).clone(), ts],
        )
        .unwrap(),
    );
    let err = op.process(0, &bad, &mut Output::new()).unwrap_err();
    assert!(err.to_string().contains("NULL"), "{err}");
}

/// A TUMBLE(10 s, offset 3 s) scenario whose watermarks pass window ends between Flink's
/// aligned-without-offset triggers (FLINK-36664, fixed in 2.3.0): released Flink 2.3.0 emits
/// every window (stock output of this event sequence, one key per row, one-phase plan).
#[test]
fn offset_windows_fire_as_released_flink_fires_them() {
    let tumble = SliceAssigner::Tumble {
        size: 10_000,
        offset: 3_000,
    };
    let row = |key, ts| Event::Row {
        key: Some(key),
        ts,
        v: None,
    };
    let events = [
        row(1, 4_000),
        Event::Watermark(10_000),
        row(2, 5_000),
        Event::Watermark(15_000),
        row(9, 1_000_000),
        Event::Watermark(25_000),
        row(3, 27_000),
        Event::Watermark(40_000),
        Event::Watermark(i64::MAX),
    ];
    let got: Vec<(Option<i32>, i64, i64, i64)> = run(Backend::Memory, tumble, &events, &[], 1)
        .concat()
        .into_iter()
        .map(|r| (r.0, r.1, r.2, r.3))
        .collect();
    let flink = vec![
        (Some(1), 3_000, 13_000, 1),
        (Some(2), 3_000, 13_000, 1),
        (Some(3), 23_000, 33_000, 1),
        (Some(9), 993_000, 1_003_000, 1),
    ];
    assert_eq!(got, flink);
}

/// Released Flink 2.3.0's `LocalSlicingWindowAggOperator` starts its `currentWatermark` at 0
/// (an uninitialised field, checked with `javap`), so a watermark at or before the epoch
/// neither advances it nor applies the buffer: the local phase's rows wait for the first
/// later watermark (or a checkpoint), and windows that fired at the global phase meanwhile
/// never see them.
#[test]
fn local_phase_holds_rows_until_a_watermark_after_the_epoch() {
    let tumble = SliceAssigner::Tumble {
        size: 1_000,
        offset: 0,
    };
    let row = |key, ts| Event::Row {
        key: Some(key),
        ts,
        v: Some(1),
    };
    let events = [
        row(1, -2_500),
        // Window [-3000, -2000) fires at the global phase without the row, still buffered
        // at the local phase: no output.
        Event::Watermark(-1_500),
        row(2, 500),
        // Both rows reach the global phase: the first is late there and dropped, the
        // second fires with its window.
        Event::Watermark(1_500),
        Event::Watermark(i64::MAX),
    ];
    let got = run_phases(Phases::Two, Backend::Memory, tumble, &events, &[], 1);
    let windows: Vec<Vec<(Option<i32>, i64, i64)>> = got
        .iter()
        .map(|w| w.iter().map(|r| (r.0, r.1, r.2)).collect())
        .collect();
    assert_eq!(windows, vec![vec![], vec![(Some(2), 0, 1_000)], vec![]]);
    // One phase has no such local buffer: both windows fire.
    let one = run_phases(Phases::One, Backend::Memory, tumble, &events, &[], 1);
    assert_eq!(one, model(tumble, &events));
    assert_eq!(one[0].len(), 1);
}

#[test]
fn a_restore_from_sections_starts_at_the_watermark_flink_keeps_for_windows() {
    // Flink's WindowAggOperator restores the lowest watermark of every old subtask (union
    // list state, decision 0030): the task hands it over, else the sections' own count.
    use streamfusion::ops::sections::{restore_from_sections, snapshot_sections};
    let plan = OperatorPlan::WindowAggregate(spec(windows()[0]));
    let mut op = plan.build(&StateConfig::memory(), None).unwrap();
    let mut out = Output::new();
    op.process(0, &batch(&[(Some(1), 1_500, Some(1))]), &mut out)
        .unwrap();
    op.advance_watermark(1_000, &mut out).unwrap();
    op.prepare_checkpoint(&mut out).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut sections: Vec<Vec<u8>> = Vec::new();
    snapshot_sections(op.as_mut(), dir.path(), &mut |_, bytes| {
        sections.push(bytes);
        Ok(())
    })
    .unwrap();
    let all: Vec<&[u8]> = sections.iter().map(Vec::as_slice).collect();
    let restored = |union: Option<i64>| {
        restore_from_sections(&plan, &StateConfig::memory(), None, &all, union)
            .unwrap()
            .watermark()
    };
    assert_eq!(restored(None), Some(1_000));
    assert_eq!(restored(Some(400)), Some(400));
    assert_eq!(restored(Some(i64::MIN)), Some(i64::MIN));
    // A row behind the sections' watermark but after the union one is not late.
    let mut op =
        restore_from_sections(&plan, &StateConfig::memory(), None, &all, Some(400)).unwrap();
    op.process(0, &batch(&[(Some(2), 500, Some(7))]), &mut out)
        .unwrap();
    op.advance_watermark(3_000, &mut out).unwrap();
    let keys: Vec<Option<i32>> = rows_of(&mut out).iter().map(|o| o.0).collect();
    assert!(keys.contains(&Some(2)), "{keys:?}");
}

/// One key's rows at 5 s and 6 s around a watermark at 4 s, then a row at 0.1 s behind it
/// (event 3), and the same events without that watermark: what an operator restored without
/// a watermark just before the row sees.
pub(super) fn behind_the_old_watermark() -> (Vec<Event>, Vec<Event>) {
    let row = |ts, v| Event::Row {
        key: Some(1),
        ts,
        v: Some(v),
    };
    let events = vec![
        row(5_000, 1),
        Event::Watermark(4_000),
        row(6_000, 2),
        row(100, 10),
        Event::Watermark(i64::MAX),
    ];
    let without = events
        .iter()
        .copied()
        .filter(|e| !matches!(e, Event::Watermark(4_000)))
        .collect();
    (events, without)
}

/// `events` ([`behind_the_old_watermark`]) through `plan` on the memory backend, restored
/// just before the late row; everything emitted.
pub(super) fn restored_before_the_late_row(plan: &OperatorPlan, events: &[Event]) -> Vec<Out> {
    run_plan(None, plan, Backend::Memory, events, &[(3, 1)], 1).concat()
}

/// Flink's legacy `GROUP BY k, TUMBLE(ts, size)` runs in `WindowOperator`, which keeps no
/// watermark across a restore (decision 0030), while the TVF's `WindowAggOperator` restores
/// the lowest: after a restore, a row behind the old watermark is late for the TVF only.
/// Otherwise the two emit the same windows.
#[test]
fn a_restored_legacy_tumble_starts_without_a_watermark() {
    let tumble = SliceAssigner::Tumble {
        size: 1_000,
        offset: 0,
    };
    let legacy_or_not = |legacy| {
        let mut spec = spec(tumble);
        spec.legacy = legacy;
        OperatorPlan::WindowAggregate(spec)
    };
    let events = events(0x1E6AC7, 600, 9, 0);
    for legacy in [false, true] {
        let got = run_plan(
            None,
            &legacy_or_not(legacy),
            Backend::Rocks,
            &events,
            &[],
            17,
        );
        assert_eq!(got, model(tumble, &events), "legacy {legacy}");
    }
    let (events, without_old_watermark) = behind_the_old_watermark();
    let restored = |legacy| restored_before_the_late_row(&legacy_or_not(legacy), &events);
    assert_eq!(restored(false), model(tumble, &events).concat());
    let legacy = restored(true);
    assert_eq!(legacy, model(tumble, &without_old_watermark).concat());
    assert_eq!(legacy.len(), 3, "the row at 100 opens its own window");
    // Legacy windows are one phase of TUMBLE or HOP.
    let mut cumulate = spec(SliceAssigner::Cumulate {
        max_size: 2_000,
        step: 1_000,
        offset: 0,
    });
    cumulate.legacy = true;
    let err = OperatorPlan::WindowAggregate(cumulate)
        .build(&StateConfig::memory(), None)
        .map(|_| ())
        .expect_err("refused");
    assert!(
        err.to_string().contains("one phase of TUMBLE or HOP"),
        "{err}"
    );
}
