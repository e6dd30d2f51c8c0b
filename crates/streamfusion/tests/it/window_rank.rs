//! Window Top-N and window deduplication against a model that knows only the definitions:
//! a row whose window fired before it arrived is dropped; when the watermark reaches a
//! window's `end - 1` the window emits once: its rows sorted by value (descending, NULLs
//! last, ties by arrival), ranks `start..=end`; or its earliest (keep first, ties: the
//! first to arrive) or latest (keep last, ties: the last to arrive) row by time. Checked
//! over NULL keys and values, many ties, out-of-order and late rows, HOP rows (one per
//! window), 17-row chunks and restores (aligned, 1 -> 3, 3 -> 1) at any point, on both
//! backends.

use std::sync::Arc;

use arrow::array::{Array, AsArray, Int32Array, Int64Array, TimestampMillisecondArray};
use arrow::datatypes::{Int32Type, Int64Type, TimestampMillisecondType};
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::ops::{Operator, OperatorPlan, Output, StateConfig};
use streamfusion::rank::SortKey;
use streamfusion::rank::window::{WindowKeep, WindowRankSpec};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::types::LogicalType;

use super::common::{Backend, SplitMix, key_group_ranges, route};

const MAX_PARALLELISM: u32 = 128;
const SLIDE: i64 = 1_000;

/// One input row as a window TVF emits it: key, value, arrival number, time, window end.
#[derive(Debug, Clone, Copy)]
struct Row {
    key: Option<i32>,
    v: Option<i64>,
    seq: i32,
    ts: i64,
    end: i64,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    Row(Row),
    Watermark(i64),
}

/// A key's window: key, window end.
type Window = (Option<i32>, i64);

/// One emitted row: key, window end, arrival number, rank (0 without a rank column).
type Out = (Option<i32>, i64, i32, i64);

/// Rows over `keys` keys (NULL among them) with values from a small range (ties), times
/// that run ahead with jitter (out of order, some late), HOP windows of `windows` slides.
fn events(seed: u64, rows: usize, keys: u64, windows: i64) -> Vec<Event> {
    let mut rng = SplitMix::new(seed);
    let mut out = Vec::new();
    let mut clock = 0i64;
    let mut seq = 0;
    for i in 0..rows {
        clock += rng.below(120) as i64;
        // On a 100 ms grid: rows of a key often tie on time.
        let ts = (clock - rng.below(2_500) as i64).div_euclid(100) * 100;
        let key = match rng.below(keys + 1) {
            0 => None,
            k => Some(k as i32),
        };
        let v = match rng.below(9) {
            0 => None,
            n => Some(n as i64 % 5),
        };
        // The window TVF's rows: one per window holding `ts`, latest start first.
        let last_start = ts.div_euclid(SLIDE) * SLIDE;
        for w in 0..windows {
            let start = last_start - w * SLIDE;
            out.push(Event::Row(Row {
                key,
                v,
                seq,
                ts,
                end: start + windows * SLIDE,
            }));
            seq += 1;
        }
        if i % 23 == 22 {
            out.push(Event::Watermark(clock - 1_500));
        }
    }
    out.push(Event::Watermark(i64::MAX - 1));
    out
}

fn spec(keep: WindowKeep) -> WindowRankSpec {
    WindowRankSpec {
        input_names: ["k", "v", "seq", "ts", "window_end"]
            .map(String::from)
            .to_vec(),
        input_types: vec![
            LogicalType::Int,
            LogicalType::BigInt,
            LogicalType::Int,
            LogicalType::Timestamp(3),
            LogicalType::Timestamp(3),
        ],
        partition_keys: vec![0],
        window_end_column: 4,
        keep,
        time_zone: None,
        max_parallelism: MAX_PARALLELISM,
    }
}

fn top_n(rank_start: i64, rank_end: i64, with_rank: bool) -> WindowKeep {
    WindowKeep::TopN {
        sort: vec![SortKey {
            column: 1,
            ascending: false,
            nulls_last: true,
        }],
        rank_start,
        rank_end,
        rank_name: with_rank.then(|| "rn".to_string()),
    }
}

fn dedup(keep_last: bool) -> WindowKeep {
    WindowKeep::Deduplicate {
        rowtime_column: 3,
        keep_last,
    }
}

/// The model: each watermark's emissions, sorted.
fn model(keep: &WindowKeep, events: &[Event]) -> Vec<Vec<Out>> {
    let mut watermark = i64::MIN;
    let mut open: Vec<(Window, Vec<Row>)> = Vec::new();
    let mut out = Vec::new();
    for event in events {
        match *event {
            Event::Row(row) => {
                if row.end - 1 <= watermark {
                    continue;
                }
                match open.iter_mut().find(|(id, _)| *id == (row.key, row.end)) {
                    Some((_, rows)) => rows.push(row),
                    None => open.push(((row.key, row.end), vec![row])),
                }
            }
            Event::Watermark(w) => {
                watermark = watermark.max(w);
                let mut emitted = Vec::new();
                let (due, rest): (Vec<_>, Vec<_>) = open
                    .drain(..)
                    .partition(|((_, end), _)| end - 1 <= watermark);
                open = rest;
                for ((key, end), mut rows) in due {
                    match keep {
                        WindowKeep::TopN {
                            rank_start,
                            rank_end,
                            rank_name,
                            ..
                        } => {
                            // Stable: ties stay in arrival order.
                            rows.sort_by_key(|r| match r.v {
                                Some(v) => (0, -v),
                                None => (1, 0),
                            });
                            for (rank, r) in (1..).zip(&rows) {
                                if (*rank_start..=*rank_end).contains(&rank) {
                                    let shown = if rank_name.is_some() { rank } else { 0 };
                                    emitted.push((key, end, r.seq, shown));
                                }
                            }
                        }
                        WindowKeep::Deduplicate { keep_last, .. } => {
                            let pick = if *keep_last {
                                rows.iter().max_by_key(|r| r.ts)
                            } else {
                                rows.iter().min_by_key(|r| r.ts)
                            };
                            let r = pick.expect("a window has rows");
                            emitted.push((key, end, r.seq, 0));
                        }
                    }
                }
                emitted.sort();
                out.push(emitted);
            }
        }
    }
    out
}

fn batch(rows: &[Row]) -> ChangelogBatch {
    let ts = |f: fn(&Row) -> i64| TimestampMillisecondArray::from_iter_values(rows.iter().map(f));
    ChangelogBatch::insert_only(
        arrow::array::RecordBatch::try_from_iter(vec![
            (
                "k",
                Arc::new(rows.iter().map(|r| r.key).collect::<Int32Array>()) as _,
            ),
            (
                "v",
                Arc::new(rows.iter().map(|r| r.v).collect::<Int64Array>()) as _,
            ),
            (
                "seq",
                Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.seq))) as _,
            ),
            ("ts", Arc::new(ts(|r| r.ts)) as _),
            ("window_end", Arc::new(ts(|r| r.end)) as _),
        ])
        .unwrap(),
    )
}

fn rows_of(out: &mut Output, with_rank: bool) -> Vec<Out> {
    let mut rows = Vec::new();
    for b in out.take() {
        let batch = b.batch();
        let keys = batch.column(0).as_primitive::<Int32Type>();
        let seqs = batch.column(2).as_primitive::<Int32Type>();
        let ends = batch.column(4).as_primitive::<TimestampMillisecondType>();
        for r in 0..b.num_rows() {
            assert_eq!(b.kind(r), RowKind::Insert);
            let rank = if with_rank {
                batch.column(5).as_primitive::<Int64Type>().value(r)
            } else {
                0
            };
            rows.push((
                (!keys.is_null(r)).then(|| keys.value(r)),
                ends.value(r),
                seqs.value(r),
                rank,
            ));
        }
    }
    rows.sort();
    rows
}

/// Runs `plan` over `events` in `chunk`-row batches on one subtask, restoring every
/// subtask from the previous ones' checkpoints at each event index in `restores` (with the
/// parallelism given there); each watermark's output, sorted.
fn run(
    plan: &OperatorPlan,
    backend: Backend,
    events: &[Event],
    restores: &[(usize, u32)],
    chunk: usize,
) -> Vec<Vec<Out>> {
    let with_rank = matches!(
        plan,
        OperatorPlan::WindowRank(WindowRankSpec {
            keep: WindowKeep::TopN {
                rank_name: Some(_),
                ..
            },
            ..
        })
    );
    let dir = tempfile::tempdir().unwrap();
    let mut opened = 0;
    let mut state = || -> StateConfig {
        opened += 1;
        match backend {
            Backend::Memory => StateConfig::memory(),
            Backend::Rocks => StateConfig::rocksdb(dir.path().join(format!("db{opened}"))),
        }
    };
    let ranges = |p: u32| key_group_ranges(MAX_PARALLELISM, p);
    let mut subtasks: Vec<Box<dyn Operator>> = ranges(1)
        .into_iter()
        .map(|r| plan.build(&state(), Some(r)).unwrap())
        .collect();
    let mut pending: Vec<Row> = Vec::new();
    let flush = |subtasks: &mut Vec<Box<dyn Operator>>, pending: &mut Vec<Row>| {
        for rows in pending.chunks(chunk) {
            let n = subtasks.len();
            for (op, part) in subtasks
                .iter_mut()
                .zip(route(&batch(rows), n, MAX_PARALLELISM))
            {
                if let Some(part) = part {
                    let mut nothing = Output::new();
                    op.process(0, &part, &mut nothing).unwrap();
                    assert_eq!(nothing.num_rows(), 0, "rows are emitted on firing only");
                }
            }
        }
        pending.clear();
    };
    let mut out = Vec::new();
    for (index, event) in events.iter().enumerate() {
        if let Some(&(_, next)) = restores.iter().find(|(at, _)| *at == index) {
            flush(&mut subtasks, &mut pending);
            let checkpoints: Vec<Checkpoint> = subtasks
                .iter_mut()
                .enumerate()
                .map(|(i, op)| {
                    let target = dir.path().join(format!("ckpt-{index}-{i}"));
                    let published = op.checkpoint(&target).unwrap();
                    Checkpoint::open(published.path()).unwrap()
                })
                .collect();
            subtasks = ranges(next)
                .into_iter()
                .map(|r| plan.restore(&state(), Some(r), &checkpoints).unwrap())
                .collect();
        }
        match *event {
            Event::Row(row) => pending.push(row),
            Event::Watermark(w) => {
                flush(&mut subtasks, &mut pending);
                let mut emitted = Output::new();
                for op in &mut subtasks {
                    op.advance_watermark(w, &mut emitted).unwrap();
                }
                out.push(rows_of(&mut emitted, with_rank));
            }
        }
    }
    out
}

fn keeps() -> Vec<WindowKeep> {
    vec![
        top_n(1, 3, false),
        top_n(1, 3, true),
        top_n(2, 4, true),
        top_n(1, 1, false),
        dedup(false),
        dedup(true),
    ]
}

#[test]
fn window_top_n_and_deduplication_match_the_model_on_both_backends() {
    for (n, keep) in keeps().into_iter().enumerate() {
        for (keys, windows) in [(12, 1), (3, 3)] {
            let events = events(0x7A11 + n as u64, 1_200, keys, windows);
            let expected = model(&keep, &events);
            assert!(
                expected.iter().map(Vec::len).sum::<usize>() > 300,
                "{keep:?}"
            );
            let plan = OperatorPlan::WindowRank(spec(keep.clone()));
            for backend in [Backend::Memory, Backend::Rocks] {
                for chunk in [17, 1_000] {
                    let got = run(&plan, backend, &events, &[], chunk);
                    assert_eq!(got, expected, "{keep:?}, {windows} windows, {backend:?}");
                }
            }
        }
    }
}

#[test]
fn restores_aligned_and_rescaled_fire_every_window_once() {
    for (n, keep) in keeps().into_iter().enumerate() {
        let events = events(0xBEE5 + n as u64, 700, 9, 3);
        let expected = model(&keep, &events);
        let plan = OperatorPlan::WindowRank(spec(keep.clone()));
        let third = events.len() / 3;
        for backend in [Backend::Memory, Backend::Rocks] {
            let got = run(
                &plan,
                backend,
                &events,
                &[(third / 2, 1), (third, 3), (2 * third + 7, 1)],
                17,
            );
            assert_eq!(got, expected, "{keep:?} on {backend:?}");
        }
    }
}

#[test]
fn a_restored_operator_drops_rows_of_windows_fired_before_the_checkpoint() {
    // The restored watermark is the lowest of the old subtasks' (`WindowAggOperator`): a
    // row of a window that fired before the checkpoint is late after the restore too.
    let plan = OperatorPlan::WindowRank(spec(dedup(true)));
    let row = |seq, ts, end| {
        Event::Row(Row {
            key: Some(1),
            v: Some(1),
            seq,
            ts,
            end,
        })
    };
    let events = [
        row(0, 500, 1_000),
        Event::Watermark(1_500),
        row(1, 700, 1_000),
        row(2, 1_700, 2_000),
        Event::Watermark(3_000),
    ];
    let expected = vec![vec![(Some(1), 1_000, 0, 0)], vec![(Some(1), 2_000, 2, 0)]];
    assert_eq!(model(&dedup(true), &events), expected);
    for backend in [Backend::Memory, Backend::Rocks] {
        let got = run(&plan, backend, &events, &[(2, 3)], 17);
        assert_eq!(got, expected, "{backend:?}");
    }
}

#[test]
fn retractions_and_impossible_plans_are_refused_with_a_reason() {
    let plan = OperatorPlan::WindowRank(spec(top_n(1, 3, false)));
    let mut op = plan.build(&StateConfig::memory(), None).unwrap();
    let input = batch(&[Row {
        key: Some(1),
        v: Some(1),
        seq: 0,
        ts: 0,
        end: 1_000,
    }]);
    let retract = ChangelogBatch::try_new(
        input.batch().clone(),
        Some(arrow::array::Int8Array::from(vec![
            RowKind::Delete.to_byte(),
        ])),
    )
    .unwrap();
    let err = op.process(0, &retract, &mut Output::new()).unwrap_err();
    assert!(err.to_string().contains("insert-only"), "{err}");

    let refused = |keep: WindowKeep, end: usize| {
        let mut spec = spec(keep);
        spec.window_end_column = end;
        OperatorPlan::WindowRank(spec)
            .build(&StateConfig::memory(), None)
            .unwrap_err()
            .to_string()
    };
    assert!(refused(top_n(1, 3, false), 1).contains("not TIMESTAMP(3)"));
    assert!(refused(top_n(0, 3, false), 4).contains("rank range 0..=3"));
    assert!(refused(dedup(true), 9).contains("out of range"));
    let mut floats = spec(top_n(1, 3, false));
    floats.input_types[1] = LogicalType::Double;
    let err = OperatorPlan::WindowRank(floats)
        .build(&StateConfig::memory(), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("decision 0028"), "{err}");
}
