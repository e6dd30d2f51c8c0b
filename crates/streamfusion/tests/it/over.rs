//! OVER aggregation against a model that computes every frame from scratch: per partition,
//! the rows in processing order (row time, then arrival), and for each row the frame its
//! kind defines (all rows so far, rows of times up to its own, the last n + 1 rows, rows
//! within t ms before it), aggregated directly (COUNT(*), COUNT, SUM, MIN, MAX, COUNT
//! DISTINCT, FIRST_VALUE, LAST_VALUE). The operator computes the same incrementally, with
//! retraction for bounded frames. Inputs arrive out of order between watermarks, with ties
//! and NULLs but no late rows; the late-row and cleanup rules, which the model does not
//! cover, are checked on small traced inputs, and everything against released Flink in
//! `over_flink`.
//!
//! Both backends, batches of 1, 17 and 500 rows, restores aligned and rescaled (1 -> 2 ->
//! 1) at watermark boundaries.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray,
};
use arrow::datatypes::{Field, Int32Type, Int64Type, Schema};
use streamfusion::aggregate::{AggCall, AggFunction, OverFrame, OverSpec};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::{OperatorPlan, Output, StateConfig};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::types::LogicalType;

use super::common::subtasks::Subtasks;
use super::common::{Backend, SplitMix};

const MAX_PARALLELISM: u32 = 128;

#[derive(Debug, Clone)]
struct Row {
    k: i32,
    v: Option<i64>,
    s: Option<String>,
    ts: i64,
    id: i64,
}

/// One input segment: rows, then a watermark.
struct Segment {
    rows: Vec<Row>,
    watermark: i64,
}

fn spec(frame: OverFrame, global: bool) -> OverSpec {
    OverSpec {
        input_names: ["k", "v", "s", "ts", "id"].map(String::from).to_vec(),
        input_types: vec![
            LogicalType::Int,
            LogicalType::BigInt,
            LogicalType::VarChar(i32::MAX as u32),
            LogicalType::Timestamp(3),
            LogicalType::BigInt,
        ],
        partition_keys: if global { vec![] } else { vec![0] },
        time_column: 3,
        frame,
        calls: vec![
            AggCall::new(AggFunction::CountStar, None, "c"),
            AggCall::new(AggFunction::Count, Some(1), "cv"),
            AggCall::new(AggFunction::Sum, Some(1), "sum"),
            AggCall::new(AggFunction::Min, Some(1), "min"),
            AggCall::new(AggFunction::Max, Some(1), "max"),
            AggCall::new(AggFunction::Count, Some(1), "cd").distinct(),
            AggCall::new(AggFunction::FirstValue, Some(2), "first"),
            AggCall::new(AggFunction::LastValue, Some(2), "last"),
        ],
        max_parallelism: MAX_PARALLELISM,
        processing_time: false,
    }
}

/// The values of one output row: COUNT(*), COUNT(v), SUM, MIN, MAX, COUNT(DISTINCT v) as
/// numbers (None for NULL), FIRST_VALUE and LAST_VALUE of s.
type Values = (Vec<Option<i64>>, Option<String>, Option<String>);

/// Segments of rows whose times lie after the previous watermark (none is late), up to
/// `ahead` ms past the next one, arriving in shuffled order.
fn segments(seed: u64, count: usize, keys: i32) -> Vec<Segment> {
    let mut random = SplitMix::new(seed);
    let mut next = |m: u64| random.below(m);
    let mut watermark = 0;
    let mut id = 0;
    (0..count)
        .map(|_| {
            let step = 5 + next(40) as i64;
            let rows = (0..next(30))
                .map(|_| {
                    id += 1;
                    Row {
                        k: next(keys as u64) as i32,
                        v: (next(6) != 0).then(|| next(9) as i64 - 3),
                        s: (next(5) != 0).then(|| format!("s{}", next(4))),
                        // Ties: times on a 5 ms grid.
                        ts: watermark + 1 + 5 * next((step + 30) as u64 / 5) as i64,
                        id,
                    }
                })
                .collect();
            watermark += step;
            Segment { rows, watermark }
        })
        .collect()
}

fn batch(rows: &[Row]) -> ChangelogBatch {
    let schema = Schema::new(vec![
        Field::new("k", arrow::datatypes::DataType::Int32, true),
        Field::new("v", arrow::datatypes::DataType::Int64, true),
        Field::new("s", arrow::datatypes::DataType::Utf8, true),
        Field::new("ts", LogicalType::Timestamp(3).to_arrow(), true),
        Field::new("id", arrow::datatypes::DataType::Int64, true),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(rows.iter().map(|r| Some(r.k)).collect::<Int32Array>()),
        Arc::new(rows.iter().map(|r| r.v).collect::<Int64Array>()),
        Arc::new(rows.iter().map(|r| r.s.clone()).collect::<StringArray>()),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.ts))
                .collect::<TimestampMillisecondArray>(),
        ),
        Arc::new(rows.iter().map(|r| Some(r.id)).collect::<Int64Array>()),
    ];
    ChangelogBatch::insert_only(RecordBatch::try_new(Arc::new(schema), columns).unwrap())
}

/// The frame's values, computed directly from its rows (in processing order).
fn aggregate(frame: &[&Row]) -> Values {
    let values: Vec<i64> = frame.iter().filter_map(|r| r.v).collect();
    let strings: Vec<&String> = frame.iter().filter_map(|r| r.s.as_ref()).collect();
    let distinct: BTreeSet<i64> = values.iter().copied().collect();
    (
        vec![
            Some(frame.len() as i64),
            Some(values.len() as i64),
            (!values.is_empty()).then(|| values.iter().sum()),
            values.iter().min().copied(),
            values.iter().max().copied(),
            Some(distinct.len() as i64),
        ],
        strings.first().map(|s| s.to_string()),
        strings.last().map(|s| s.to_string()),
    )
}

/// Per partition, each row's id and values, in processing order: by row time then arrival,
/// or by arrival alone on processing time.
fn expected(frame: OverFrame, global: bool, segments: &[Segment]) -> Model {
    expected_in(frame, global, segments, false)
}

fn expected_in(frame: OverFrame, global: bool, segments: &[Segment], arrival: bool) -> Model {
    let mut partitions: BTreeMap<i32, Vec<&Row>> = BTreeMap::new();
    for row in segments.iter().flat_map(|s| &s.rows) {
        partitions
            .entry(if global { 0 } else { row.k })
            .or_default()
            .push(row);
    }
    partitions
        .into_iter()
        .map(|(k, mut rows)| {
            if !arrival {
                rows.sort_by_key(|r| (r.ts, r.id));
            }
            let out = (0..rows.len())
                .map(|i| {
                    let t = rows[i].ts;
                    let frame_rows: Vec<&Row> = match frame {
                        OverFrame::RowsUnbounded => rows[..=i].to_vec(),
                        OverFrame::RangeUnbounded => {
                            rows.iter().copied().filter(|r| r.ts <= t).collect()
                        }
                        OverFrame::RowsBounded { rows: n } => {
                            rows[(i + 1).saturating_sub(n as usize)..=i].to_vec()
                        }
                        OverFrame::RangeBounded { millis } => rows
                            .iter()
                            .copied()
                            .filter(|r| r.ts <= t && t - r.ts <= millis)
                            .collect(),
                    };
                    (rows[i].id, aggregate(&frame_rows))
                })
                .collect();
            (k, out)
        })
        .collect()
}

type Model = BTreeMap<i32, Vec<(i64, Values)>>;

fn collect(out: &mut Output, global: bool, into: &mut Model) {
    for b in out.take() {
        assert!(b.is_insert_only());
        let batch = b.batch();
        let k = batch.column(0).as_primitive::<Int32Type>();
        let id = batch.column(4).as_primitive::<Int64Type>();
        let string = |c: usize, r: usize| {
            let a = batch.column(c).as_string::<i32>();
            (!a.is_null(r)).then(|| a.value(r).to_string())
        };
        for r in 0..b.num_rows() {
            let numbers = (5..11)
                .map(|c| {
                    let a = batch.column(c).as_primitive::<Int64Type>();
                    (!a.is_null(r)).then(|| a.value(r))
                })
                .collect();
            into.entry(if global { 0 } else { k.value(r) })
                .or_default()
                .push((id.value(r), (numbers, string(11, r), string(12, r))));
        }
    }
}

/// Runs `segments` through the plan's subtasks in `chunk`-row batches, restoring at the
/// parallelism given before each segment index of `restores`.
fn run(
    frame: OverFrame,
    global: bool,
    backend: Backend,
    segments: &[Segment],
    chunk: usize,
    restores: &[(usize, u32)],
) -> Model {
    let plan = OperatorPlan::OverAggregate(spec(frame, global));
    let mut subtasks = Subtasks::new(plan, backend, MAX_PARALLELISM);
    let mut model = Model::new();
    let mut out = Output::new();
    for (i, segment) in segments.iter().enumerate() {
        if let Some(&(_, parallelism)) = restores.iter().find(|(at, _)| *at == i) {
            subtasks.restore(if global { 1 } else { parallelism }, &mut out);
            assert!(out.take().is_empty(), "a restore emits nothing");
        }
        for rows in segment.rows.chunks(chunk) {
            if global {
                subtasks.ops[0].process(0, &batch(rows), &mut out).unwrap();
            } else {
                subtasks.process(&batch(rows), &mut out);
            }
            assert!(out.take().is_empty(), "rows wait for the watermark");
        }
        subtasks.advance_watermark(segment.watermark, &mut out);
        collect(&mut out, global, &mut model);
    }
    subtasks.advance_watermark(i64::MAX, &mut out);
    subtasks.flush(&mut out);
    collect(&mut out, global, &mut model);
    model
}

fn frames() -> Vec<(OverFrame, bool)> {
    vec![
        (OverFrame::RowsUnbounded, false),
        (OverFrame::RangeUnbounded, false),
        (OverFrame::RowsBounded { rows: 1 }, false),
        (OverFrame::RowsBounded { rows: 3 }, false),
        (OverFrame::RangeBounded { millis: 0 }, false),
        (OverFrame::RangeBounded { millis: 20 }, false),
        (OverFrame::RowsBounded { rows: 6 }, true),
        (OverFrame::RangeBounded { millis: 12 }, true),
    ]
}

#[test]
fn every_frame_equals_its_direct_computation_on_both_backends_in_any_chunking() {
    for (n, (frame, global)) in frames().into_iter().enumerate() {
        let input = segments(0x0BE5 + n as u64, 30, 9);
        let want = expected(frame, global, &input);
        assert!(want.values().map(Vec::len).sum::<usize>() > 200);
        for backend in [Backend::Memory, Backend::Rocks] {
            for chunk in [1, 17, 500] {
                assert_eq!(
                    run(frame, global, backend, &input, chunk, &[]),
                    want,
                    "{frame:?} global={global} on {backend:?} in {chunk}-row batches"
                );
            }
        }
    }
}

#[test]
fn restores_aligned_and_rescaled_emit_nothing_twice_and_lose_nothing() {
    for (n, (frame, global)) in frames().into_iter().enumerate() {
        let input = segments(0xC0DE + n as u64, 24, 7);
        let want = expected(frame, global, &input);
        for backend in [Backend::Memory, Backend::Rocks] {
            for restores in [&[(5, 1), (11, 1)][..], &[(4, 2), (9, 1), (15, 2)]] {
                assert_eq!(
                    run(frame, global, backend, &input, 17, restores),
                    want,
                    "{frame:?} global={global} on {backend:?} restored {restores:?}"
                );
            }
        }
    }
}

/// One key's rows `(ts, v)` and watermarks, traced: the ids and `COUNT(*)`, `SUM(v)` emitted.
fn trace(frame: OverFrame, events: &[Result<(i64, i64), i64>]) -> Vec<(i64, i64, i64)> {
    trace_restored(frame, events, None)
}

/// [`trace`], with a checkpoint and a restore from it after event `restore_after`.
fn trace_restored(
    frame: OverFrame,
    events: &[Result<(i64, i64), i64>],
    restore_after: Option<usize>,
) -> Vec<(i64, i64, i64)> {
    let spec = OverSpec {
        calls: vec![
            AggCall::new(AggFunction::CountStar, None, "c"),
            AggCall::new(AggFunction::Sum, Some(1), "sum"),
        ],
        ..spec(frame, false)
    };
    let plan = OperatorPlan::OverAggregate(spec);
    let mut op = plan.build(&StateConfig::memory(), None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut out = Output::new();
    let mut emitted = Vec::new();
    for (id, event) in events.iter().enumerate() {
        match *event {
            Ok((ts, v)) => {
                let row = Row {
                    k: 1,
                    v: Some(v),
                    s: None,
                    ts,
                    id: id as i64,
                };
                op.process(0, &batch(&[row]), &mut out).unwrap();
            }
            Err(watermark) => op.advance_watermark(watermark, &mut out).unwrap(),
        }
        if restore_after == Some(id) {
            op.prepare_checkpoint(&mut out).unwrap();
            let published = op.checkpoint(&dir.path().join("c")).unwrap();
            let checkpoint = Checkpoint::open(published.path()).unwrap();
            op = plan
                .restore(&StateConfig::memory(), None, &[checkpoint])
                .unwrap();
        }
        for b in out.take() {
            let batch = b.batch();
            for r in 0..b.num_rows() {
                let long = |c: usize| batch.column(c).as_primitive::<Int64Type>().value(r);
                emitted.push((long(4), long(5), long(6)));
            }
        }
    }
    emitted
}

#[test]
fn processing_time_rows_frames_emit_each_row_as_it_arrives() {
    for (n, frame) in [
        OverFrame::RowsUnbounded,
        OverFrame::RowsBounded { rows: 1 },
        OverFrame::RowsBounded { rows: 4 },
    ]
    .into_iter()
    .enumerate()
    {
        let input = segments(0x9A0C + n as u64, 20, 7);
        let want = expected_in(frame, false, &input, true);
        for backend in [Backend::Memory, Backend::Rocks] {
            for (chunk, restores) in [(1, &[][..]), (500, &[]), (17, &[(6, 2), (13, 1)])] {
                let spec = OverSpec {
                    processing_time: true,
                    ..spec(frame, false)
                };
                let plan = OperatorPlan::OverAggregate(spec);
                let mut subtasks = Subtasks::new(plan, backend, MAX_PARALLELISM);
                let mut got = Model::new();
                let mut out = Output::new();
                for (i, segment) in input.iter().enumerate() {
                    if let Some(&(_, parallelism)) = restores.iter().find(|(at, _)| *at == i) {
                        subtasks.restore(parallelism, &mut out);
                    }
                    for rows in segment.rows.chunks(chunk) {
                        subtasks.process(&batch(rows), &mut out);
                        collect(&mut out, false, &mut got);
                    }
                    // Watermarks change nothing on processing time.
                    subtasks.advance_watermark(segment.watermark, &mut out);
                    assert!(out.take().is_empty());
                }
                assert_eq!(
                    got, want,
                    "{frame:?} on {backend:?} in {chunk}s {restores:?}"
                );
            }
        }
    }
    // A RANGE frame over processing time is refused.
    let range = OverSpec {
        processing_time: true,
        ..spec(OverFrame::RangeUnbounded, false)
    };
    let err = OperatorPlan::OverAggregate(range)
        .build(&StateConfig::memory(), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("processing time"), "{err}");
}

#[test]
fn late_rows_are_dropped_as_flink_drops_them() {
    // Unbounded: a row at or before the watermark is late.
    let unbounded = trace(
        OverFrame::RowsUnbounded,
        &[Err(100), Ok((100, 1)), Ok((101, 2)), Err(200)],
    );
    assert_eq!(unbounded, [(2, 1, 2)]);
    // Bounded: only the key's last fired timer counts (it starts at 0): a row behind the
    // watermark is still aggregated at the next one; one at or before the last fired time,
    // or at a time <= 0, is dropped.
    let bounded = trace(
        OverFrame::RowsBounded { rows: 2 },
        &[
            Ok((50, 1)),
            Ok((0, 7)),
            Err(100),
            Ok((60, 2)),
            Ok((50, 9)),
            Ok((40, 9)),
            Err(101),
        ],
    );
    assert_eq!(bounded, [(0, 1, 1), (3, 2, 3)]);
}

#[test]
fn a_restored_operator_takes_rows_behind_the_old_watermark_until_the_next() {
    // Flink's timer service restarts without a watermark (decision 0030): after a restore,
    // a row at or before the old watermark is not late for an unbounded frame until a new
    // watermark passes it; without the restore it is dropped.
    let events = [
        Ok((50, 1)),
        Err(100),
        Ok((60, 2)),
        Ok((150, 4)),
        Err(200),
        Ok((190, 8)),
        Err(300),
    ];
    for frame in [OverFrame::RowsUnbounded, OverFrame::RangeUnbounded] {
        assert_eq!(trace(frame, &events), [(0, 1, 1), (3, 2, 5)], "{frame:?}");
        assert_eq!(
            trace_restored(frame, &events, Some(1)),
            [(0, 1, 1), (2, 2, 3), (3, 3, 7)],
            "{frame:?} restored after watermark 100"
        );
        // The new watermark makes rows behind it late again.
        assert_eq!(
            trace_restored(frame, &events, Some(3)),
            [(0, 1, 1), (3, 2, 5)],
            "{frame:?} restored before watermark 200"
        );
    }
    // Bounded frames keep their last fired time in state: a restore changes nothing.
    let bounded = [Ok((50, 1)), Err(100), Ok((40, 2)), Ok((60, 4)), Err(200)];
    for restore in [None, Some(1)] {
        assert_eq!(
            trace_restored(OverFrame::RowsBounded { rows: 2 }, &bounded, restore),
            [(0, 1, 1), (3, 2, 5)],
            "restored after {restore:?}"
        );
    }
}

#[test]
fn a_range_frames_cleanup_timer_clears_the_key_and_its_last_fired_time() {
    // RANGE 10 ms: the row at 5 arms the cleanup timer at 5 + 15 + 1 = 21. At watermark 30
    // it fires after the row's timer and clears the key, so a row at 3 (behind the
    // watermark, but after the cleared last fired time) is aggregated afresh.
    let traced = trace(
        OverFrame::RangeBounded { millis: 10 },
        &[Ok((5, 1)), Err(30), Ok((3, 4)), Ok((2, 8)), Err(31)],
    );
    assert_eq!(traced, [(0, 1, 1), (3, 1, 8), (2, 2, 12)]);
    // Without the gap the row at 3 is late: the last fired time is 5.
    let traced = trace(
        OverFrame::RangeBounded { millis: 10 },
        &[Ok((5, 1)), Err(20), Ok((3, 4)), Ok((12, 2)), Err(31)],
    );
    assert_eq!(traced, [(0, 1, 1), (3, 2, 3)]);
}
