//! Window joins against a model that knows only the definitions: a row whose window fired
//! before it arrived is dropped; when the watermark reaches a window's `end - 1`, its left
//! and right rows of each key are joined once (NULL keys never match, the condition
//! `l.v > r.v` must be TRUE) and emitted by the join type: INNER the matching pairs; LEFT,
//! RIGHT and FULL also the unmatched rows of their outer sides, padded; SEMI and ANTI the
//! left rows with and without a match. Checked for every join type with and without the
//! condition, over NULL keys and values, out-of-order and late rows on both inputs, 17-row
//! chunks and restores (aligned, 1 -> 3, 3 -> 1), on both backends.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    Array, AsArray, Int32Array, Int64Array, RecordBatch, TimestampMillisecondArray,
};
use arrow::datatypes::{Int32Type, Int64Type};
use streamfusion::calc::functions::comparison::GREATER_THAN;
use streamfusion::calc::{CalcProgram, Expr};
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::join::JoinType;
use streamfusion::join::window::{WindowJoinInput, WindowJoinSpec};
use streamfusion::ops::{Operator, OperatorPlan, Output, StateConfig};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::types::LogicalType;

use super::common::{Backend, SplitMix, key_group_ranges, route};

const MAX_PARALLELISM: u32 = 128;
const SIZE: i64 = 1_000;

/// One input row: key, value, arrival number, window end.
#[derive(Debug, Clone, Copy)]
struct Row {
    key: Option<i32>,
    v: Option<i64>,
    seq: i32,
    end: i64,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    Row(usize, Row),
    Watermark(i64),
}

/// An output row: the left and the right row's arrival numbers (`None`: padded).
type Out = (Option<i32>, Option<i32>);

fn events(seed: u64, rows: usize) -> Vec<Event> {
    let mut rng = SplitMix::new(seed);
    let mut out = Vec::new();
    let mut clock = 0i64;
    for seq in 0..rows as i32 {
        clock += rng.below(60) as i64;
        let ts = clock - rng.below(2_000) as i64;
        let key = match rng.below(7) {
            0 => None,
            k => Some(k as i32),
        };
        let v = (rng.below(6) != 0).then(|| rng.below(10) as i64);
        let end = ts.div_euclid(SIZE) * SIZE + SIZE;
        let side = rng.below(2) as usize;
        out.push(Event::Row(side, Row { key, v, seq, end }));
        if seq % 19 == 18 {
            out.push(Event::Watermark(clock - 1_200));
        }
    }
    out.push(Event::Watermark(i64::MAX - 1));
    out
}

fn input(name: &str) -> WindowJoinInput {
    WindowJoinInput {
        names: vec![
            format!("{name}k"),
            format!("{name}v"),
            format!("{name}seq"),
            format!("{name}end"),
        ],
        types: vec![
            LogicalType::Int,
            LogicalType::BigInt,
            LogicalType::Int,
            LogicalType::Timestamp(3),
        ],
        keys: vec![0],
        window_end_column: 3,
    }
}

/// `l.v > r.v` over the joined row (left columns 0..4, right 4..8).
fn condition() -> CalcProgram {
    CalcProgram::project(vec![Expr::call(
        GREATER_THAN,
        vec![Expr::input(1), Expr::input(5)],
    )])
}

fn plan(join_type: JoinType, with_condition: bool) -> OperatorPlan {
    OperatorPlan::WindowJoin(WindowJoinSpec {
        join_type,
        left: input("l"),
        right: input("r"),
        filter_nulls: vec![true],
        condition: with_condition.then(condition),
        time_zone: None,
        max_parallelism: MAX_PARALLELISM,
    })
}

fn model(join_type: JoinType, with_condition: bool, events: &[Event]) -> Vec<Vec<Out>> {
    let mut watermark = i64::MIN;
    // (end, key) -> the two sides' rows, in arrival order.
    let mut open: BTreeMap<(i64, Option<i32>), [Vec<Row>; 2]> = BTreeMap::new();
    let mut out = Vec::new();
    for event in events {
        match *event {
            Event::Row(side, row) => {
                if row.end - 1 > watermark {
                    open.entry((row.end, row.key)).or_default()[side].push(row);
                }
            }
            Event::Watermark(w) => {
                watermark = watermark.max(w);
                let due: Vec<_> = open
                    .keys()
                    .filter(|(end, _)| end - 1 <= watermark)
                    .copied()
                    .collect();
                let mut emitted = Vec::new();
                for id in due {
                    let [lefts, rights] = open.remove(&id).unwrap();
                    let matches = |l: &Row, r: &Row| {
                        l.key.is_some()
                            && (!with_condition
                                || matches!((l.v, r.v), (Some(a), Some(b)) if a > b))
                    };
                    let outer_left = matches!(join_type, JoinType::Left | JoinType::Full);
                    let outer_right = matches!(join_type, JoinType::Right | JoinType::Full);
                    for l in &lefts {
                        let any = rights.iter().any(|r| matches(l, r));
                        match join_type {
                            JoinType::Semi if any => emitted.push((Some(l.seq), None)),
                            JoinType::Anti if !any => emitted.push((Some(l.seq), None)),
                            JoinType::Semi | JoinType::Anti => {}
                            _ => {
                                for r in rights.iter().filter(|r| matches(l, r)) {
                                    emitted.push((Some(l.seq), Some(r.seq)));
                                }
                                if !any && outer_left {
                                    emitted.push((Some(l.seq), None));
                                }
                            }
                        }
                    }
                    if outer_right {
                        for r in rights
                            .iter()
                            .filter(|r| !lefts.iter().any(|l| matches(l, r)))
                        {
                            emitted.push((None, Some(r.seq)));
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
    ChangelogBatch::insert_only(
        RecordBatch::try_from_iter(vec![
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
            (
                "end",
                Arc::new(TimestampMillisecondArray::from_iter_values(
                    rows.iter().map(|r| r.end),
                )) as _,
            ),
        ])
        .unwrap(),
    )
}

fn rows_of(out: &mut Output, semi_anti: bool) -> Vec<Out> {
    let mut rows = Vec::new();
    for b in out.take() {
        let batch = b.batch();
        let seq = |c: usize, r: usize| {
            let col = batch.column(c).as_primitive::<Int32Type>();
            (!col.is_null(r)).then(|| col.value(r))
        };
        for r in 0..b.num_rows() {
            assert_eq!(b.kind(r), RowKind::Insert);
            let right = if semi_anti { None } else { seq(6, r) };
            rows.push((seq(2, r), right));
        }
        // A padded side is NULL in every column.
        if !semi_anti {
            let v = batch.column(5).as_primitive::<Int64Type>();
            for r in 0..b.num_rows() {
                if seq(6, r).is_none() {
                    assert!(v.is_null(r) && batch.column(7).is_null(r));
                }
            }
        }
    }
    rows.sort();
    rows
}

fn run(
    plan: &OperatorPlan,
    backend: Backend,
    events: &[Event],
    restores: &[(usize, u32)],
    chunk: usize,
) -> Vec<Vec<Out>> {
    let semi_anti = matches!(
        plan,
        OperatorPlan::WindowJoin(WindowJoinSpec {
            join_type: JoinType::Semi | JoinType::Anti,
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
    let mut pending: Vec<(usize, Row)> = Vec::new();
    let flush = |subtasks: &mut Vec<Box<dyn Operator>>, pending: &mut Vec<(usize, Row)>| {
        // Rows go in runs of one side, as two channels deliver them.
        let mut at = 0;
        while at < pending.len() {
            let side = pending[at].0;
            let run: Vec<Row> = pending[at..]
                .iter()
                .take_while(|(s, _)| *s == side)
                .map(|(_, r)| *r)
                .collect();
            at += run.len();
            for rows in run.chunks(chunk) {
                let n = subtasks.len();
                for (op, part) in subtasks
                    .iter_mut()
                    .zip(route(&batch(rows), n, MAX_PARALLELISM))
                {
                    if let Some(part) = part {
                        op.process(side, &part, &mut Output::new()).unwrap();
                    }
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
                    let published = op
                        .checkpoint(&dir.path().join(format!("ckpt-{index}-{i}")))
                        .unwrap();
                    Checkpoint::open(published.path()).unwrap()
                })
                .collect();
            let watermark = subtasks.iter().filter_map(|op| op.watermark()).min();
            subtasks = ranges(next)
                .into_iter()
                .map(|r| plan.restore(&state(), Some(r), &checkpoints).unwrap())
                .collect();
            // No watermark after a restore (decision 0030); the last one is replayed, as
            // the sources re-emit it, before any row.
            for op in &mut subtasks {
                assert_eq!(op.watermark(), None);
                if let Some(w) = watermark {
                    let mut nothing = Output::new();
                    op.advance_watermark(w, &mut nothing).unwrap();
                    assert_eq!(nothing.num_rows(), 0, "nothing is due again");
                }
            }
        }
        match *event {
            Event::Row(side, row) => pending.push((side, row)),
            Event::Watermark(w) => {
                flush(&mut subtasks, &mut pending);
                let mut emitted = Output::new();
                for op in &mut subtasks {
                    op.advance_watermark(w, &mut emitted).unwrap();
                }
                out.push(rows_of(&mut emitted, semi_anti));
            }
        }
    }
    out
}

const TYPES: [JoinType; 6] = [
    JoinType::Inner,
    JoinType::Left,
    JoinType::Right,
    JoinType::Full,
    JoinType::Semi,
    JoinType::Anti,
];

#[test]
fn every_join_type_matches_the_model_on_both_backends() {
    for (n, join_type) in TYPES.into_iter().enumerate() {
        for with_condition in [false, true] {
            let events = events(0x301 + n as u64, 1_500);
            let expected = model(join_type, with_condition, &events);
            assert!(
                expected.iter().map(Vec::len).sum::<usize>() > 50,
                "{join_type:?}"
            );
            let plan = plan(join_type, with_condition);
            for backend in [Backend::Memory, Backend::Rocks] {
                for chunk in [17, 1_000] {
                    let got = run(&plan, backend, &events, &[], chunk);
                    assert_eq!(
                        got, expected,
                        "{join_type:?}, condition {with_condition}, {backend:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn restores_aligned_and_rescaled_join_every_window_once() {
    for (n, join_type) in TYPES.into_iter().enumerate() {
        let events = events(0x5E5 + n as u64, 900);
        let expected = model(join_type, true, &events);
        let plan = plan(join_type, true);
        let third = events.len() / 3;
        for backend in [Backend::Memory, Backend::Rocks] {
            let got = run(
                &plan,
                backend,
                &events,
                &[(third / 2, 1), (third, 3), (2 * third + 5, 1)],
                17,
            );
            assert_eq!(got, expected, "{join_type:?} on {backend:?}");
        }
    }
}

#[test]
fn retractions_and_impossible_plans_are_refused_with_a_reason() {
    let mut op = plan(JoinType::Inner, false)
        .build(&StateConfig::memory(), None)
        .unwrap();
    let rows = batch(&[Row {
        key: Some(1),
        v: Some(1),
        seq: 0,
        end: 1_000,
    }]);
    let retract = ChangelogBatch::try_new(
        rows.batch().clone(),
        Some(arrow::array::Int8Array::from(vec![
            RowKind::UpdateBefore.to_byte(),
        ])),
    )
    .unwrap();
    let err = op.process(1, &retract, &mut Output::new()).unwrap_err();
    assert!(err.to_string().contains("insert-only"), "{err}");
    let mut bad = WindowJoinSpec {
        join_type: JoinType::Inner,
        left: input("l"),
        right: input("r"),
        filter_nulls: vec![true],
        condition: None,
        time_zone: None,
        max_parallelism: MAX_PARALLELISM,
    };
    bad.right.window_end_column = 1;
    let err = OperatorPlan::WindowJoin(bad.clone())
        .build(&StateConfig::memory(), None)
        .unwrap_err();
    assert!(
        err.to_string().contains("window end column 1 is BIGINT"),
        "{err}"
    );
    bad.right.window_end_column = 3;
    bad.right.types[0] = LogicalType::BigInt;
    let err = OperatorPlan::WindowJoin(bad)
        .build(&StateConfig::memory(), None)
        .unwrap_err();
    assert!(err.to_string().contains("differ in type"), "{err}");
}
