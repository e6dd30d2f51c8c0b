//! The window TVFs' rows against the definitions: a row at `ts` is repeated for every window
//! `[start, end)` of the TVF's grid that holds `ts` (HOP: starts on the slide grid, latest
//! first; CUMULATE: ends on the step grid within the row's `max_size` window, smallest
//! first), with its kind kept; a NULL time drops the row.

use std::sync::Arc;

use arrow::array::{Array, AsArray, Int8Array, Int32Array, RecordBatch, TimestampMillisecondArray};
use arrow::datatypes::{DataType, Int32Type, TimeUnit, TimestampMillisecondType};
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::ops::{OperatorPlan, Output, StateConfig};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::types::LogicalType;
use streamfusion::window::slices::SliceAssigner;
use streamfusion::window_table::WindowTableSpec;

use super::common::SplitMix;

fn plan(window: SliceAssigner, ltz: bool) -> OperatorPlan {
    let time = if ltz {
        LogicalType::TimestampLtz(3)
    } else {
        LogicalType::Timestamp(3)
    };
    OperatorPlan::WindowTableFunction(WindowTableSpec {
        input_names: vec!["id".into(), "ts".into()],
        input_types: vec![LogicalType::Int, time],
        time_column: 1,
        window,
        time_zone: None,
    })
}

/// The windows holding `ts`, by enumerating the grid around it, in Flink's order.
fn windows_of(window: SliceAssigner, ts: i64) -> Vec<(i64, i64)> {
    let on_grid = |start: i64, offset: i64, step: i64| (start - offset).rem_euclid(step) == 0;
    match window {
        SliceAssigner::Tumble { size, offset } => (ts - size + 1..=ts)
            .filter(|&s| on_grid(s, offset, size))
            .map(|s| (s, s + size))
            .collect(),
        SliceAssigner::Hop {
            size,
            slide,
            offset,
        } => (ts - size + 1..=ts)
            .rev()
            .filter(|&s| on_grid(s, offset, slide))
            .map(|s| (s, s + size))
            .collect(),
        SliceAssigner::Cumulate {
            max_size,
            step,
            offset,
        } => {
            let start = (ts - max_size + 1..=ts)
                .find(|&s| on_grid(s, offset, max_size))
                .unwrap();
            (1..=max_size / step)
                .map(|j| start + j * step)
                .filter(|&end| ts < end)
                .map(|end| (start, end))
                .collect()
        }
    }
}

fn windows() -> Vec<SliceAssigner> {
    vec![
        SliceAssigner::Tumble {
            size: 1_000,
            offset: 0,
        },
        SliceAssigner::Tumble {
            size: 700,
            offset: -300,
        },
        SliceAssigner::Hop {
            size: 900,
            slide: 300,
            offset: 100,
        },
        SliceAssigner::Hop {
            size: 1_200,
            slide: 400,
            offset: 0,
        },
        SliceAssigner::Cumulate {
            max_size: 1_200,
            step: 400,
            offset: 500,
        },
    ]
}

#[test]
fn every_row_is_repeated_for_its_windows_in_flinks_order() {
    let mut rng = SplitMix::new(0x7AB1E);
    let n = 500;
    let times: Vec<Option<i64>> = (0..n)
        .map(|_| (rng.below(10) != 0).then(|| rng.below(20_000) as i64 - 10_000))
        .collect();
    let kinds: Vec<i8> = (0..n)
        .map(|i| [RowKind::Insert, RowKind::UpdateAfter, RowKind::Delete][i % 3].to_byte())
        .collect();
    for ltz in [false, true] {
        for window in windows() {
            let mut ts = TimestampMillisecondArray::from(times.clone());
            if ltz {
                ts = ts.with_timezone("UTC");
            }
            let batch = RecordBatch::try_from_iter(vec![
                (
                    "id",
                    Arc::new(Int32Array::from_iter_values(0..n as i32)) as _,
                ),
                ("ts", Arc::new(ts) as _),
            ])
            .unwrap();
            let input =
                ChangelogBatch::try_new(batch, Some(Int8Array::from(kinds.clone()))).unwrap();
            let mut op = plan(window, ltz)
                .build(&StateConfig::memory(), None)
                .unwrap();
            let mut out = Output::new();
            op.process(0, &input, &mut out).unwrap();
            let mut got = Vec::new();
            for b in out.take() {
                let batch = b.batch();
                let time_type =
                    DataType::Timestamp(TimeUnit::Millisecond, ltz.then(|| Arc::from("UTC")));
                assert_eq!(batch.column(4).data_type(), &time_type, "window_time");
                let id = batch.column(0).as_primitive::<Int32Type>();
                let col = |c: usize| batch.column(c).as_primitive::<TimestampMillisecondType>();
                for r in 0..b.num_rows() {
                    assert_eq!(col(4).value(r), col(3).value(r) - 1, "window_time");
                    got.push((
                        id.value(r),
                        b.kind(r),
                        col(1).value(r),
                        col(2).value(r),
                        col(3).value(r),
                    ));
                }
            }
            let expected: Vec<_> = (0..n)
                .filter_map(|i| times[i].map(|t| (i, t)))
                .flat_map(|(i, t)| {
                    let kind = RowKind::from_byte(kinds[i]).unwrap();
                    windows_of(window, t)
                        .into_iter()
                        .map(move |(s, e)| (i as i32, kind, t, s, e))
                })
                .collect();
            assert!(expected.len() >= 400, "{window:?}");
            assert_eq!(got, expected, "{window:?}, ltz {ltz}");
        }
    }
}

#[test]
fn ltz_windows_in_a_session_time_zone_are_local_times() {
    // Asia/Shanghai keeps UTC+8 all year: a row at instant t is in the windows of the local
    // time t + 8h, and window_time is the instant of the local end - 1.
    const EIGHT_HOURS: i64 = 8 * 3_600_000;
    let window = SliceAssigner::Tumble {
        size: 3_600_000,
        offset: 0,
    };
    let times: Vec<i64> = (0..200).map(|i| i * 1_234_567 - 50_000_000).collect();
    let mut spec = WindowTableSpec {
        input_names: vec!["id".into(), "ts".into()],
        input_types: vec![LogicalType::Int, LogicalType::TimestampLtz(3)],
        time_column: 1,
        window,
        time_zone: Some("Asia/Shanghai".into()),
    };
    let batch = RecordBatch::try_from_iter(vec![
        ("id", Arc::new(Int32Array::from_iter_values(0..200)) as _),
        (
            "ts",
            Arc::new(TimestampMillisecondArray::from(times.clone()).with_timezone("UTC")) as _,
        ),
    ])
    .unwrap();
    let mut op = OperatorPlan::WindowTableFunction(spec.clone())
        .build(&StateConfig::memory(), None)
        .unwrap();
    let mut out = Output::new();
    op.process(0, &ChangelogBatch::insert_only(batch), &mut out)
        .unwrap();
    let mut got = Vec::new();
    for b in out.take() {
        let col = |c: usize| {
            b.batch()
                .column(c)
                .as_primitive::<TimestampMillisecondType>()
                .clone()
        };
        for r in 0..b.num_rows() {
            got.push((
                col(1).value(r),
                col(2).value(r),
                col(3).value(r),
                col(4).value(r),
            ));
        }
    }
    let expected: Vec<_> = times
        .iter()
        .flat_map(|&t| {
            windows_of(window, t + EIGHT_HOURS)
                .into_iter()
                .map(move |(s, e)| (t, s, e, e - 1 - EIGHT_HOURS))
        })
        .collect();
    assert_eq!(got, expected);
    spec.time_zone = Some("Mars/Olympus".into());
    let err = OperatorPlan::WindowTableFunction(spec)
        .build(&StateConfig::memory(), None)
        .unwrap_err();
    assert!(err.to_string().contains("Mars/Olympus"), "{err}");
}

#[test]
fn the_watermark_is_restored_and_bad_plans_are_refused() {
    let window = windows()[2];
    let mut op = plan(window, false)
        .build(&StateConfig::memory(), None)
        .unwrap();
    op.advance_watermark(4_200, &mut Output::new()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let published = op.checkpoint(&dir.path().join("ckpt")).unwrap();
    let restored = plan(window, false)
        .restore(
            &StateConfig::memory(),
            None,
            &[Checkpoint::open(published.path()).unwrap()],
        )
        .unwrap();
    assert_eq!(restored.watermark(), Some(4_200));

    let mut bad = WindowTableSpec {
        input_names: vec!["id".into(), "ts".into()],
        input_types: vec![LogicalType::Int, LogicalType::Timestamp(6)],
        time_column: 1,
        window,
        time_zone: None,
    };
    let err = OperatorPlan::WindowTableFunction(bad.clone())
        .build(&StateConfig::memory(), None)
        .unwrap_err();
    assert!(err.to_string().contains("TIMESTAMP(6)"), "{err}");
    bad.input_types[1] = LogicalType::Timestamp(3);
    bad.window = SliceAssigner::Hop {
        size: 0,
        slide: 300,
        offset: 0,
    };
    let err = OperatorPlan::WindowTableFunction(bad)
        .build(&StateConfig::memory(), None)
        .unwrap_err();
    assert!(err.to_string().contains("must be positive"), "{err}");
}
