//! The event-time sort against a model: rows kept unless their time is at or before the last
//! emitted time, and at each watermark every kept row of a time at or before it, ordered by
//! time, then by `v DESC NULLS LAST, s ASC NULLS FIRST` (Flink's defaults for the
//! directions), then by arrival. Both backends, batches of 1, 17 and 500 rows, restores
//! between watermarks, and the FLOAT sort field Flink's comparator cannot order refused.

use std::sync::Arc;

use arrow::array::{
    ArrayRef, AsArray, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray,
};
use arrow::datatypes::{DataType, Field, Int64Type, Schema};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::{OperatorPlan, Output, StateConfig};
use streamfusion::rank::SortKey;
use streamfusion::sort::TemporalSortSpec;
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::types::LogicalType;

use super::common::{Backend, SplitMix, config};

const MAX_PARALLELISM: u32 = 128;

#[derive(Debug, Clone, PartialEq)]
struct Row {
    v: Option<i64>,
    s: Option<String>,
    ts: i64,
    id: i64,
}

fn spec() -> TemporalSortSpec {
    TemporalSortSpec {
        input_names: ["v", "s", "ts", "id"].map(String::from).to_vec(),
        input_types: vec![
            LogicalType::BigInt,
            LogicalType::VarChar(i32::MAX as u32),
            LogicalType::Timestamp(3),
            LogicalType::BigInt,
        ],
        time_column: 2,
        sort: vec![
            SortKey {
                column: 0,
                ascending: false,
                nulls_last: true,
            },
            SortKey {
                column: 1,
                ascending: true,
                nulls_last: false,
            },
        ],
        max_parallelism: MAX_PARALLELISM,
    }
}

fn batch(rows: &[Row]) -> ChangelogBatch {
    let schema = Schema::new(vec![
        Field::new("v", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("ts", LogicalType::Timestamp(3).to_arrow(), true),
        Field::new("id", DataType::Int64, true),
    ]);
    let columns: Vec<ArrayRef> = vec![
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

/// Segments of rows, each followed by a watermark; some rows are late.
fn segments(seed: u64) -> Vec<(Vec<Row>, i64)> {
    let mut random = SplitMix::new(seed);
    let mut next = |m: u64| random.below(m);
    let mut watermark = -50;
    let mut id = 0;
    (0..40)
        .map(|_| {
            let rows = (0..next(25))
                .map(|_| {
                    id += 1;
                    Row {
                        v: (next(5) != 0).then(|| next(4) as i64),
                        s: (next(4) != 0).then(|| format!("s{}", next(3))),
                        // Up to 30 ms behind the watermark (late once a later time fired).
                        ts: watermark - 30 + 4 * next(20) as i64,
                        id,
                    }
                })
                .collect();
            watermark += 5 + next(30) as i64;
            (rows, watermark)
        })
        .collect()
}

/// What the sort emits for `segments`, row ids in order.
fn expected(segments: &[(Vec<Row>, i64)]) -> Vec<i64> {
    let mut pending: Vec<Row> = Vec::new();
    let mut last: Option<i64> = None;
    let mut out = Vec::new();
    let order = |r: &Row| {
        (
            r.ts,
            r.v.is_none(),
            std::cmp::Reverse(r.v),
            r.s.is_some(),
            r.s.clone(),
            r.id,
        )
    };
    for (rows, watermark) in segments {
        pending.extend(
            rows.iter()
                .filter(|r| last.is_none_or(|l| r.ts > l))
                .cloned(),
        );
        let (mut due, rest): (Vec<Row>, Vec<Row>) =
            pending.drain(..).partition(|r| r.ts <= *watermark);
        pending = rest;
        due.sort_by_key(order);
        if let Some(r) = due.last() {
            last = Some(r.ts);
        }
        out.extend(due.iter().map(|r| r.id));
    }
    out
}

fn ids(out: &mut Output) -> Vec<i64> {
    out.take()
        .iter()
        .flat_map(|b| {
            assert!(b.is_insert_only());
            let id = b.batch().column(3).as_primitive::<Int64Type>();
            (0..b.num_rows()).map(|r| id.value(r)).collect::<Vec<_>>()
        })
        .collect()
}

fn run(
    backend: Backend,
    segments: &[(Vec<Row>, i64)],
    chunk: usize,
    restore_every: usize,
) -> Vec<i64> {
    let dir = tempfile::tempdir().unwrap();
    let plan = OperatorPlan::TemporalSort(spec());
    let mut op = plan
        .build(&config(backend, &dir.path().join("0")), None)
        .unwrap();
    let mut out = Output::new();
    let mut emitted = Vec::new();
    for (i, (rows, watermark)) in segments.iter().enumerate() {
        for part in rows.chunks(chunk) {
            op.process(0, &batch(part), &mut out).unwrap();
        }
        if restore_every > 0 && i % restore_every == restore_every - 1 {
            let target = dir.path().join(format!("ckpt-{i}"));
            let published = op.checkpoint(&target).unwrap();
            let checkpoint = Checkpoint::open(published.path()).unwrap();
            op = plan
                .restore(
                    &config(backend, &dir.path().join(format!("r{i}"))),
                    None,
                    &[checkpoint],
                )
                .unwrap();
        }
        op.advance_watermark(*watermark, &mut out).unwrap();
        emitted.extend(ids(&mut out));
    }
    emitted
}

#[test]
fn rows_come_out_in_time_then_field_order_and_late_ones_are_dropped() {
    for seed in 0..4 {
        let input = segments(0x5027 + seed);
        let want = expected(&input);
        assert!(want.len() > 200, "{} rows", want.len());
        let all: usize = input.iter().map(|s| s.0.len()).sum();
        assert!(want.len() < all, "some rows must be late");
        for backend in [Backend::Memory, Backend::Rocks] {
            for chunk in [1, 17, 500] {
                assert_eq!(
                    run(backend, &input, chunk, 0),
                    want,
                    "{backend:?} in {chunk}s"
                );
            }
            assert_eq!(run(backend, &input, 17, 3), want, "{backend:?} restored");
        }
    }
}

#[test]
fn a_float_sort_field_is_refused() {
    let mut spec = spec();
    spec.input_types[0] = LogicalType::Double;
    let err = OperatorPlan::TemporalSort(spec)
        .build(&StateConfig::memory(), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("NaN"), "{err}");
}
