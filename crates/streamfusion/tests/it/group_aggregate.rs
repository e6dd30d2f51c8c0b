//! The GROUP BY operator against the row-at-a-time model of Flink's `GroupAggFunction`
//! (`bench_support::group_model`), on both backends, immediate and mini-batch, whole or
//! chunked input, with a checkpoint and restore in the middle; and focused cases for
//! Java arithmetic, floating-point rules, DECIMAL overflow, TTL and bad input.

use std::sync::Arc;
use std::time::Duration;

use arrow::array::{
    Array, ArrayRef, AsArray, Decimal128Array, Float32Array, Float64Array, Int8Array, Int32Array,
    Int64Array, RecordBatch, StringArray,
};
use arrow::datatypes::{Float32Type, Float64Type, Int32Type, Int64Type};
use bench_support::fixtures::splitmix64;
use bench_support::group_model::{Aggregates, Emission, GroupModel, OutputRow, arrow_input};
use streamfusion::aggregate::{
    AggCall, AggFunction, GlobalGroupAggregate, GroupAggSpec, GroupAggregate,
};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::error::Incompatibility;
use streamfusion::ops::StateConfig;
use streamfusion::ops::keyed::all_key_groups;
use streamfusion::state::StateBackend;
use streamfusion::state::checkpoint::{self, Checkpoint};
use streamfusion::state::memory::MemoryBackend;
use streamfusion::state::rocks::{RocksBackend, RocksOptions};
use streamfusion::state::ttl::{Clock, ManualClock};
use streamfusion::types::LogicalType;

use streamfusion::{Error, ErrorKind};

use super::common::{Backend, config, open};

/// The SplitMix64 sequence from the project's published seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        let out = splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        out % n
    }
}

const SEED: u64 = 0x5EED_F11C;
const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);

type Key = Option<String>;
type Row = (i8, Key, Option<i64>);

fn spec(
    input_retracts: bool,
    generate_update_before: bool,
    mini_batch_rows: Option<usize>,
) -> GroupAggSpec {
    GroupAggSpec {
        input_names: vec!["k".into(), "v".into()],
        input_types: vec![STRING, LogicalType::BigInt],
        grouping: vec![0],
        calls: vec![
            AggCall::new(AggFunction::CountStar, None, "cnt"),
            AggCall::new(AggFunction::Count, Some(1), "cnt_v"),
            AggCall::new(AggFunction::Sum, Some(1), "sum_v"),
            AggCall::new(AggFunction::Min, Some(1), "min_v"),
            AggCall::new(AggFunction::Max, Some(1), "max_v"),
            AggCall::new(AggFunction::Avg, Some(1), "avg_v"),
        ],
        input_retracts,
        generate_update_before,
        mini_batch_rows,
        state_ttl: None,
        max_parallelism: 128,
    }
}

/// Keys of the matrix: NULL, empty, short, Unicode, an embedded NUL, 7/8-byte boundaries and
/// a 264-byte suffix.
fn key_domain() -> Vec<Key> {
    let mut keys: Vec<Key> = vec![
        None,
        Some(String::new()),
        Some("a".into()),
        Some("1234567".into()),
        Some("12345678".into()),
        Some("größer 🦀".into()),
        Some("nul\0byte".into()),
    ];
    for i in 0..9 {
        keys.push(Some(format!("wide-{i}-{}", "ü".repeat(132))));
    }
    keys
}

/// A consistent changelog: retractions take back live rows; "ghost" keys that never get
/// an insertion are retracted now and then (Flink ignores those).
fn changelog(rng: &mut Rng, rows: usize) -> Vec<Row> {
    changelog_over(rng, rows, 40)
}

/// [`changelog`] with small values drawn from `values` distinct ones.
fn changelog_over(rng: &mut Rng, rows: usize, values: u64) -> Vec<Row> {
    let keys = key_domain();
    let mut live: Vec<(Key, Option<i64>)> = Vec::new();
    let mut out = Vec::with_capacity(rows);
    while out.len() < rows {
        match rng.below(10) {
            0..=5 => {
                let key = keys[rng.below(keys.len() as u64) as usize].clone();
                let value = match rng.below(8) {
                    0 => None,
                    1 => Some(i64::MAX - rng.below(3) as i64),
                    2 => Some(i64::MIN + rng.below(3) as i64),
                    _ => Some(rng.below(values) as i64 - (values / 2) as i64),
                };
                live.push((key.clone(), value));
                out.push((if rng.below(4) == 0 { 2 } else { 0 }, key, value));
            }
            6..=8 if !live.is_empty() => {
                let (key, value) = live.swap_remove(rng.below(live.len() as u64) as usize);
                out.push((if rng.below(2) == 0 { 1 } else { 3 }, key, value));
            }
            _ => out.push((3, Some(format!("ghost-{}", rng.below(5))), Some(1))),
        }
    }
    out
}

fn batch(rows: &[Row]) -> ChangelogBatch {
    let (batch, kinds) = arrow_input(rows);
    ChangelogBatch::try_new(batch, Some(kinds)).unwrap()
}

fn rows_of(out: &ChangelogBatch) -> Vec<OutputRow<Key>> {
    let b = out.batch();
    let key = b.column(0).as_string::<i32>();
    let int = |c: usize| b.column(c).as_primitive::<Int64Type>().clone();
    let (cnt, cnt_v, sum, min, max, avg) = (int(1), int(2), int(3), int(4), int(5), int(6));
    let opt = |a: &Int64Array, i: usize| (!a.is_null(i)).then(|| a.value(i));
    (0..out.num_rows())
        .map(|i| {
            (
                out.kind(i).to_byte(),
                (!key.is_null(i)).then(|| key.value(i).to_string()),
                Aggregates {
                    count_star: cnt.value(i),
                    count: cnt_v.value(i),
                    sum: opt(&sum, i),
                    min: opt(&min, i),
                    max: opt(&max, i),
                    avg: opt(&avg, i),
                },
            )
        })
        .collect()
}

/// Runs `input` through the operator in `chunk`-row batches, checkpointing and restoring
/// after the first half when `restore_midway`.
fn run(
    backend: Backend,
    spec: &GroupAggSpec,
    input: &[Row],
    chunk: usize,
    restore_midway: bool,
) -> Vec<OutputRow<Key>> {
    let dir = tempfile::tempdir().unwrap();
    let mut op = GroupAggregate::new(spec.clone(), open(backend, dir.path())).unwrap();
    let mut out = Vec::new();
    let chunks: Vec<&[Row]> = input.chunks(chunk).collect();
    for (i, rows) in chunks.iter().enumerate() {
        out.extend(rows_of(&op.process(&batch(rows)).unwrap()));
        if restore_midway && i == chunks.len() / 2 {
            out.extend(rows_of(&op.flush().unwrap()));
            let published = op.checkpoint(&dir.path().join("ckpt")).unwrap();
            drop(op);
            let opened = Checkpoint::open(published.path()).unwrap();
            op = GroupAggregate::restore(
                spec.clone(),
                &config(backend, dir.path()),
                all_key_groups(128).unwrap(),
                &[opened],
            )
            .unwrap();
        }
    }
    out.extend(rows_of(&op.flush().unwrap()));
    out
}

/// The model's changelog for the same input, bundled as the operator bundles it (a restore
/// midway flushes the bundle before the checkpoint).
fn expected(
    spec: &GroupAggSpec,
    input: &[Row],
    chunk: usize,
    restore_midway: bool,
) -> Vec<OutputRow<Key>> {
    let mut model = GroupModel::new(Emission {
        input_retracts: spec.input_retracts,
        generate_update_before: spec.generate_update_before,
        ttl: false,
    });
    match spec.mini_batch_rows {
        None => model.immediate(input),
        Some(size) => {
            // The operator flushes once `size` rows are buffered, so bundles are the
            // smallest runs of whole chunks reaching `size` rows, plus the final remainder.
            let mut out = Vec::new();
            let mut bundle: Vec<Row> = Vec::new();
            let chunks: Vec<&[Row]> = input.chunks(chunk).collect();
            for (i, rows) in chunks.iter().enumerate() {
                bundle.extend_from_slice(rows);
                let flush_midway = restore_midway && i == chunks.len() / 2;
                if bundle.len() >= size || flush_midway {
                    out.extend(model.bundle(&bundle));
                    bundle.clear();
                }
            }
            out.extend(model.bundle(&bundle));
            out
        }
    }
}

#[test]
fn random_changelogs_match_the_model_on_both_backends() {
    let mut rng = Rng(SEED);
    let input = changelog(&mut rng, 600);
    for backend in [Backend::Memory, Backend::Rocks] {
        for gub in [true, false] {
            for mini_batch in [None, Some(50)] {
                let spec = spec(true, gub, mini_batch);
                for (chunk, restore_midway) in [(input.len(), false), (17, false), (17, true)] {
                    let got = run(backend, &spec, &input, chunk, restore_midway);
                    let want = expected(&spec, &input, chunk, restore_midway);
                    assert_eq!(
                        got.len(),
                        want.len(),
                        "gub={gub} mini_batch={mini_batch:?} chunk={chunk} restore={restore_midway}"
                    );
                    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert_eq!(
                            g, w,
                            "row {i}, gub={gub} mini_batch={mini_batch:?} chunk={chunk}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn wide_extremum_maps_move_to_state_and_still_match_the_model() {
    // Hundreds of distinct values per group: retracting MIN/MAX outgrow the map kept in the
    // accumulator and continue in the sorted-map table, across chunking and a restore.
    let mut rng = Rng(SEED ^ 0x51);
    let input = changelog_over(&mut rng, 2400, 600);
    for backend in [Backend::Memory, Backend::Rocks] {
        for mini_batch in [None, Some(200)] {
            let spec = spec(true, true, mini_batch);
            for (chunk, restore_midway) in [(input.len(), false), (17, true)] {
                let got = run(backend, &spec, &input, chunk, restore_midway);
                let want = expected(&spec, &input, chunk, restore_midway);
                assert_eq!(got, want, "mini_batch={mini_batch:?} chunk={chunk}");
            }
        }
    }

    // Where the maps live: in the table for these wide groups, nowhere else for narrow ones.
    let map_entries = |input: &[Row]| {
        let mut op =
            GroupAggregate::new(spec(true, true, Some(64)), Box::new(MemoryBackend::new()))
                .unwrap();
        op.process(&batch(input)).unwrap();
        op.flush().unwrap();
        let store = op.store();
        let table = store
            .table_names()
            .iter()
            .position(|n| n.ends_with("sorted_map"))
            .map(streamfusion::state::TableId::from_index);
        let mut entries = 0;
        if let Some(table) = table {
            store
                .scan(table, streamfusion::state::ScanRange::All, &mut |_, _| {
                    entries += 1;
                    true
                })
                .unwrap();
        }
        entries
    };
    assert!(map_entries(&input) > 100);
    let narrow: Vec<Row> = (0..50)
        .map(|i| (0, Some(format!("k{}", i % 5)), Some(i % 7)))
        .collect();
    assert_eq!(map_entries(&narrow), 0);
}

#[test]
fn immediate_results_do_not_depend_on_chunking() {
    let mut rng = Rng(SEED ^ 7);
    let input = changelog(&mut rng, 400);
    let spec = spec(true, true, None);
    let whole = run(Backend::Memory, &spec, &input, input.len(), false);
    for chunk in [1, 17, 64] {
        assert_eq!(run(Backend::Memory, &spec, &input, chunk, true), whole);
    }
}

#[test]
fn insert_only_input_has_no_record_counter() {
    let rows: Vec<Row> = vec![(0, Some("a".into()), Some(1)), (0, Some("a".into()), None)];
    let spec = spec(false, true, None);
    let got = run(Backend::Memory, &spec, &rows, 2, false);
    assert_eq!(got, expected(&spec, &rows, 2, false));
    // A retraction on a plan that declared insert-only input is refused.
    let mut op = GroupAggregate::new(spec, Box::new(MemoryBackend::new())).unwrap();
    let err = op
        .process(&batch(&[(3, Some("a".into()), Some(1))]))
        .unwrap_err();
    assert!(err.to_string().contains("insert-only"), "{err}");
}

/// One aggregate over one column of `ty`, keyed by a constant INT column.
fn single(function: AggFunction, ty: LogicalType, retracts: bool) -> GroupAggSpec {
    GroupAggSpec {
        input_names: vec!["g".into(), "x".into()],
        input_types: vec![LogicalType::Int, ty],
        grouping: vec![0],
        calls: vec![AggCall::new(function, Some(1), "r")],
        input_retracts: retracts,
        generate_update_before: true,
        mini_batch_rows: None,
        state_ttl: None,
        max_parallelism: 128,
    }
}

/// The final result column after feeding `values` (all `+I`) one batch at a time.
fn final_value(spec: GroupAggSpec, values: ArrayRef) -> ArrayRef {
    let mut op = GroupAggregate::new(spec, Box::new(MemoryBackend::new())).unwrap();
    let mut last = None;
    for i in 0..values.len() {
        let b = RecordBatch::try_from_iter(vec![
            ("g", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
            ("x", values.slice(i, 1)),
        ])
        .unwrap();
        let out = op.process(&ChangelogBatch::insert_only(b)).unwrap();
        if out.num_rows() > 0 {
            last = Some(out.batch().column(1).slice(out.num_rows() - 1, 1));
        }
    }
    last.unwrap()
}

#[test]
fn integer_sums_wrap_at_the_argument_width_and_avg_truncates() {
    let sum = final_value(
        single(AggFunction::Sum, LogicalType::Int, false),
        Arc::new(Int32Array::from(vec![i32::MAX, 2])),
    );
    assert_eq!(sum.as_primitive::<Int32Type>().value(0), i32::MIN + 1);
    let avg = final_value(
        single(AggFunction::Avg, LogicalType::Int, false),
        Arc::new(Int32Array::from(vec![-1, -2])),
    );
    // (-3) / 2 in Java is -1; AVG of an INT is an INT.
    assert_eq!(avg.as_primitive::<Int32Type>().value(0), -1);
    // AVG sums in BIGINT: no INT overflow on the way.
    let avg = final_value(
        single(AggFunction::Avg, LogicalType::Int, false),
        Arc::new(Int32Array::from(vec![i32::MAX, i32::MAX])),
    );
    assert_eq!(avg.as_primitive::<Int32Type>().value(0), i32::MAX);
}

#[test]
fn float_sums_round_to_float_each_step() {
    let sum = final_value(
        single(AggFunction::Sum, LogicalType::Float, false),
        Arc::new(Float32Array::from(vec![16_777_216.0, 1.0, 1.0])),
    );
    // 2^24 + 1 rounds back to 2^24 in float arithmetic, every time.
    assert_eq!(sum.as_primitive::<Float32Type>().value(0), 16_777_216.0);
}

#[test]
fn non_retracting_max_uses_javas_primitive_comparison() {
    // `NaN > 1.0` and `1.0 > NaN` are both false: the first value stays.
    let max = final_value(
        single(AggFunction::Max, LogicalType::Double, false),
        Arc::new(Float64Array::from(vec![1.0, f64::NAN, 0.5])),
    );
    assert_eq!(max.as_primitive::<Float64Type>().value(0), 1.0);
    let max = final_value(
        single(AggFunction::Max, LogicalType::Double, false),
        Arc::new(Float64Array::from(vec![f64::NAN, 2.0])),
    );
    assert!(max.as_primitive::<Float64Type>().value(0).is_nan());
}

#[test]
fn retracting_max_orders_like_double_compare() {
    // With retraction, MaxWithRetractAggFunction compares boxed Doubles: NaN is largest and
    // -0.0 < 0.0. COUNT(*) makes every row emit, so each step's MAX is visible.
    let mut spec = single(AggFunction::Max, LogicalType::Double, true);
    spec.calls
        .insert(0, AggCall::new(AggFunction::CountStar, None, "n"));
    let mut op = GroupAggregate::new(spec, Box::new(MemoryBackend::new())).unwrap();
    let mut feed = |kind: i8, x: f64| {
        let b = RecordBatch::try_from_iter(vec![
            ("g", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
            ("x", Arc::new(Float64Array::from(vec![x])) as ArrayRef),
        ])
        .unwrap();
        let out = op
            .process(&ChangelogBatch::try_new(b, Some(Int8Array::from(vec![kind]))).unwrap())
            .unwrap();
        let col = out.batch().column(2).as_primitive::<Float64Type>().clone();
        (0..out.num_rows())
            .map(|i| {
                (
                    out.kind(i).to_byte(),
                    (!col.is_null(i)).then(|| col.value(i).to_bits()),
                )
            })
            .collect::<Vec<_>>()
    };
    let (zero, neg_zero, nan) = (0.0f64.to_bits(), (-0.0f64).to_bits(), f64::NAN.to_bits());
    assert_eq!(feed(0, -0.0), [(0, Some(neg_zero))]);
    assert_eq!(feed(0, 0.0)[1], (2, Some(zero)));
    assert_eq!(feed(0, f64::NAN)[1], (2, Some(nan)));
    // Retracting NaN finds the next largest in the sorted map: 0.0, then -0.0.
    assert_eq!(feed(3, f64::NAN)[1], (2, Some(zero)));
    assert_eq!(feed(3, 0.0)[1], (2, Some(neg_zero)));
    assert_eq!(feed(3, -0.0), [(3, Some(neg_zero))]);
}

#[test]
fn decimal_sums_are_decimal_38_and_null_on_overflow() {
    let ty = LogicalType::Decimal {
        precision: 38,
        scale: 2,
    };
    let big = 10i128.pow(38) - 1;
    let values = Decimal128Array::from(vec![big, 1, 5])
        .with_precision_and_scale(38, 2)
        .unwrap();
    let mut op = GroupAggregate::new(
        single(AggFunction::Sum, ty, false),
        Box::new(MemoryBackend::new()),
    )
    .unwrap();
    let mut seen = Vec::new();
    for i in 0..3 {
        let b = RecordBatch::try_from_iter(vec![
            ("g", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
            ("x", Arc::new(values.slice(i, 1)) as ArrayRef),
        ])
        .unwrap();
        let out = op.process(&ChangelogBatch::insert_only(b)).unwrap();
        let col = out
            .batch()
            .column(1)
            .as_primitive::<arrow::datatypes::Decimal128Type>();
        assert_eq!(
            col.data_type(),
            &arrow::datatypes::DataType::Decimal128(38, 2)
        );
        let last = out.num_rows() - 1;
        seen.push((!col.is_null(last)).then(|| col.value(last)));
    }
    // Overflow gives NULL; SumAggFunction then restarts from the next value
    // (`if (isNull(sum)) sum = x`), exactly as Flink's expression does.
    assert_eq!(seen, vec![Some(big), None, Some(5)]);
}

fn ttl_spec(ttl_ms: u64) -> GroupAggSpec {
    let mut s = spec(true, true, None);
    s.state_ttl = Some(Duration::from_millis(ttl_ms));
    s
}

#[test]
fn ttl_expires_groups_and_disables_equal_suppression() {
    let clock = Arc::new(ManualClock::new(0));
    let dir = tempfile::tempdir().unwrap();
    for store in [
        Box::new(MemoryBackend::new()) as Box<dyn StateBackend>,
        Box::new(
            RocksBackend::open_with_clock(
                &dir.path().join("db"),
                &RocksOptions::checked_in(),
                clock.clone() as Arc<dyn Clock>,
            )
            .unwrap(),
        ),
    ] {
        clock.set(0);
        let mut op =
            GroupAggregate::with_clock(ttl_spec(1_000), store, clock.clone() as Arc<dyn Clock>)
                .unwrap();
        let a = || Some("a".to_string());
        let kinds = |out: &ChangelogBatch| -> Vec<i8> {
            (0..out.num_rows()).map(|i| out.kind(i).to_byte()).collect()
        };
        assert_eq!(kinds(&op.process(&batch(&[(0, a(), None)])).unwrap()), [0]);
        clock.set(999);
        let out = op
            .process(&batch(&[(0, a(), None), (3, a(), None)]))
            .unwrap();
        assert_eq!(kinds(&out), [1, 2, 1, 2]);
        // Written at 999: alive at 1998, expired at 1999. Reads do not refresh.
        clock.set(1_998);
        assert_eq!(
            kinds(&op.process(&batch(&[(0, a(), Some(1))])).unwrap()),
            [1, 2]
        );
        clock.set(1_998 + 1_000);
        // Expired: a retraction is ignored, an insertion starts the group afresh.
        assert_eq!(
            kinds(&op.process(&batch(&[(3, a(), Some(1))])).unwrap()),
            Vec::<i8>::new()
        );
        let out = op.process(&batch(&[(0, a(), Some(7))])).unwrap();
        assert_eq!(kinds(&out), [0]);
        assert_eq!(rows_of(&out)[0].2.count_star, 1);
    }
}

#[test]
fn equal_results_are_suppressed_only_without_ttl() {
    // In one bundle, +I then -D of the same row leaves the group's result as it was.
    let a = || Some("a".to_string());
    for (ttl, want) in [(None, vec![]), (Some(60_000), vec![1i8, 2])] {
        let mut s = spec(true, true, Some(2));
        s.state_ttl = ttl.map(Duration::from_millis);
        let mut op = GroupAggregate::new(s, Box::new(MemoryBackend::new())).unwrap();
        op.process(&batch(&[(0, a(), Some(4))])).unwrap();
        op.flush().unwrap();
        let out = op
            .process(&batch(&[(0, a(), Some(5)), (3, a(), Some(5))]))
            .unwrap();
        let kinds: Vec<i8> = (0..out.num_rows()).map(|i| out.kind(i).to_byte()).collect();
        assert_eq!(kinds, want, "ttl={ttl:?}");
    }
}

#[test]
fn checkpoints_refuse_pending_input_and_foreign_plans() {
    let dir = tempfile::tempdir().unwrap();
    let mut op = GroupAggregate::new(
        spec(true, true, Some(1_000)),
        Box::new(MemoryBackend::new()),
    )
    .unwrap();
    op.process(&batch(&[(0, Some("a".into()), Some(1))]))
        .unwrap();
    let err = op.checkpoint(&dir.path().join("c1")).unwrap_err();
    assert!(err.to_string().contains("flush"), "{err}");
    assert_eq!(op.flush().unwrap().num_rows(), 1);
    let published = op.checkpoint(&dir.path().join("c1")).unwrap();

    let mut other = spec(true, true, Some(1_000));
    other.calls.pop();
    let config = StateConfig::memory();
    let err = GroupAggregate::restore(
        other,
        &config,
        all_key_groups(128).unwrap(),
        std::slice::from_ref(&published),
    )
    .unwrap_err();
    // The error names what differs: the sixth call's function and the number of calls.
    let Error::IncompatibleCheckpoint {
        problem: Incompatibility::Plan { differences },
        ..
    } = &err
    else {
        panic!("{err}");
    };
    assert!(
        differences.contains(&"calls.len: checkpoint 6, plan 5".to_string()),
        "{differences:?}"
    );
    assert!(
        differences
            .iter()
            .any(|d| d.starts_with(r#"calls[5].function: checkpoint "AVG", plan absent"#)),
        "{differences:?}"
    );
    // Another operator kind is refused by kind.
    let err = GlobalGroupAggregate::restore(
        spec(true, true, Some(1_000)),
        &config,
        all_key_groups(128).unwrap(),
        std::slice::from_ref(&published),
    )
    .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::IncompatibleCheckpoint {
                problem: Incompatibility::Kind { .. },
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::State);
}

#[test]
fn a_checkpoint_restores_after_output_columns_are_renamed_and_emission_settings_change() {
    // Names and emission settings are not the state's business: the restored operator
    // continues exactly as the original would have.
    let dir = tempfile::tempdir().unwrap();
    let input: Vec<Row> = (0..40)
        .map(|i| (0, Some(format!("k{}", i % 7)), Some(i)))
        .collect();
    let mut op =
        GroupAggregate::new(spec(true, true, None), Box::new(MemoryBackend::new())).unwrap();
    op.process(&batch(&input[..20])).unwrap();
    let published = op.checkpoint(&dir.path().join("c")).unwrap();
    let want = rows_of(&op.process(&batch(&input[20..])).unwrap());

    let mut renamed = spec(true, true, None);
    renamed.input_names = vec!["key".into(), "value".into()];
    for call in &mut renamed.calls {
        call.name = format!("{}_renamed", call.name);
    }
    let mut restored = GroupAggregate::restore(
        renamed,
        &StateConfig::memory(),
        all_key_groups(128).unwrap(),
        std::slice::from_ref(&published),
    )
    .unwrap();
    assert_eq!(restored.schema().field(1).name(), "cnt_renamed");
    assert_eq!(
        rows_of(&restored.process(&batch(&input[20..])).unwrap()),
        want
    );

    // A mini-batch plan reads the same state too.
    let mut bundled = GroupAggregate::restore(
        spec(true, true, Some(1_000)),
        &StateConfig::memory(),
        all_key_groups(128).unwrap(),
        &[published],
    )
    .unwrap();
    bundled.process(&batch(&input[20..])).unwrap();
    let bundle = rows_of(&bundled.flush().unwrap());
    // Once per key: its restored result retracted (-U), its final one emitted (+U).
    let last = by_key(want);
    assert_eq!(bundle.len(), 2 * last.len());
    for pair in bundle.chunks(2) {
        let final_row = last[&pair[1].1].last().unwrap();
        assert_eq!((pair[0].0, pair[1].0), (1, 2));
        assert_eq!(&pair[1], final_row);
    }
}

#[test]
fn plans_with_bad_calls_get_typed_errors() {
    let mut bad = spec(true, true, None);
    bad.calls.push(AggCall::new(AggFunction::Sum, Some(0), "s"));
    let err = GroupAggregate::new(bad, Box::new(MemoryBackend::new())).unwrap_err();
    assert!(err.to_string().contains("not a numeric type"), "{err}");
    let mut bad = spec(true, true, None);
    bad.calls.push(AggCall::new(AggFunction::Max, Some(9), "m"));
    let err = GroupAggregate::new(bad, Box::new(MemoryBackend::new())).unwrap_err();
    assert!(err.to_string().contains("out of range"), "{err}");
    // Calls Flink has but the operator does not take: typed errors that name them.
    for (call, why) in [
        (
            AggCall::new(AggFunction::Max, Some(1), "m").distinct(),
            "DISTINCT is not supported for retracting MAX",
        ),
        (
            AggCall::new(AggFunction::ListAgg, Some(1), "l"),
            "LISTAGG takes a character string",
        ),
        (
            AggCall::new(AggFunction::Sum, Some(1), "s").with_separator(";"),
            "only LISTAGG takes a separator",
        ),
    ] {
        let mut bad = spec(true, true, None);
        bad.calls.push(call);
        let err = GroupAggregate::new(bad, Box::new(MemoryBackend::new())).unwrap_err();
        assert!(matches!(err, Error::InvalidShape(_)), "{err}");
        assert!(err.to_string().contains(why), "{err}");
    }
    // A batch whose column types differ from the plan.
    let mut op =
        GroupAggregate::new(spec(true, true, None), Box::new(MemoryBackend::new())).unwrap();
    let b = RecordBatch::try_from_iter(vec![
        ("k", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
        ("v", Arc::new(Int64Array::from(vec![1])) as ArrayRef),
    ])
    .unwrap();
    let err = op.process(&ChangelogBatch::insert_only(b)).unwrap_err();
    assert!(matches!(err, Error::ColumnType { column: 0, .. }), "{err}");
}

// ---- COUNT/SUM(DISTINCT), FIRST/LAST_VALUE with retraction, LISTAGG, SINGLE_VALUE ----

/// `(kind, k, v BIGINT, s STRING)`.
type Row3 = (i8, Key, Option<i64>, Option<String>);
/// `COUNT(DISTINCT v), SUM(DISTINCT v), FIRST_VALUE(v), LAST_VALUE(v), LISTAGG(s, '/')`.
type Results3 = (i64, Option<i64>, Option<i64>, Option<i64>, Option<String>);
type Out3 = (i8, Key, Results3);

fn spec3(generate_update_before: bool, mini_batch_rows: Option<usize>) -> GroupAggSpec {
    GroupAggSpec {
        input_names: vec!["k".into(), "v".into(), "s".into()],
        input_types: vec![STRING, LogicalType::BigInt, STRING],
        grouping: vec![0],
        calls: vec![
            AggCall::new(AggFunction::Count, Some(1), "cnt_d").distinct(),
            AggCall::new(AggFunction::Sum, Some(1), "sum_d").distinct(),
            AggCall::new(AggFunction::FirstValue, Some(1), "first_v"),
            AggCall::new(AggFunction::LastValue, Some(1), "last_v"),
            AggCall::new(AggFunction::ListAgg, Some(2), "list_s").with_separator("/"),
        ],
        input_retracts: true,
        generate_update_before,
        mini_batch_rows,
        state_ttl: None,
        max_parallelism: 128,
    }
}

/// A changelog over few keys and values: retractions of live rows, and retractions of rows a
/// live group never had (they drive distinct counts negative and miss in the lists).
fn changelog3(rng: &mut Rng, rows: usize) -> Vec<Row3> {
    let keys: [Key; 4] = [None, Some("a".into()), Some("b".into()), Some("ü".into())];
    let strings = [None, Some(""), Some("x"), Some("y"), Some("x/y")];
    let mut live: Vec<Row3> = Vec::new();
    let mut out = Vec::with_capacity(rows);
    while out.len() < rows {
        let v = match rng.below(6) {
            0 => None,
            1 => Some(i64::MAX),
            d => Some(d as i64 - 3),
        };
        let s = strings[rng.below(strings.len() as u64) as usize].map(str::to_string);
        match rng.below(10) {
            0..=5 => {
                let key = keys[rng.below(keys.len() as u64) as usize].clone();
                let kind = if rng.below(4) == 0 { 2 } else { 0 };
                live.push((kind, key.clone(), v, s.clone()));
                out.push((kind, key, v, s));
            }
            6..=8 if !live.is_empty() => {
                let (_, key, v, s) = live.swap_remove(rng.below(live.len() as u64) as usize);
                out.push((if rng.below(2) == 0 { 1 } else { 3 }, key, v, s));
            }
            _ => {
                let key = keys[rng.below(keys.len() as u64) as usize].clone();
                out.push((3, key, v, s));
            }
        }
    }
    out
}

fn batch3(rows: &[Row3]) -> ChangelogBatch {
    let b = RecordBatch::try_from_iter(vec![
        (
            "k",
            Arc::new(StringArray::from_iter(rows.iter().map(|r| r.1.as_deref()))) as ArrayRef,
        ),
        (
            "v",
            Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.2))) as ArrayRef,
        ),
        (
            "s",
            Arc::new(StringArray::from_iter(rows.iter().map(|r| r.3.as_deref()))) as ArrayRef,
        ),
    ])
    .unwrap();
    let kinds = Int8Array::from_iter_values(rows.iter().map(|r| r.0));
    ChangelogBatch::try_new(b, Some(kinds)).unwrap()
}

fn rows_of3(out: &ChangelogBatch) -> Vec<Out3> {
    let b = out.batch();
    let key = b.column(0).as_string::<i32>();
    let int = |c: usize| b.column(c).as_primitive::<Int64Type>().clone();
    let (cnt, sum, first, last) = (int(1), int(2), int(3), int(4));
    let list = b.column(5).as_string::<i32>();
    let opt = |a: &Int64Array, i: usize| (!a.is_null(i)).then(|| a.value(i));
    (0..out.num_rows())
        .map(|i| {
            (
                out.kind(i).to_byte(),
                (!key.is_null(i)).then(|| key.value(i).to_string()),
                (
                    cnt.value(i),
                    opt(&sum, i),
                    opt(&first, i),
                    opt(&last, i),
                    (!list.is_null(i)).then(|| list.value(i).to_string()),
                ),
            )
        })
        .collect()
}

/// One group of the model: Flink's accumulators written out directly.
#[derive(Debug, Clone, Default)]
struct Group3 {
    /// The hidden COUNT(*).
    rows: i64,
    /// DistinctAggCodeGen's value -> count map (zero counts removed).
    distinct: std::collections::HashMap<i64, i64>,
    count: i64,
    sum: i64,
    /// The non-NULL values in arrival order (First/LastValueWithRetractAggFunction).
    values: Vec<i64>,
    /// ListAggWsWithRetractAggFunction's list.
    strings: Vec<String>,
}

impl Group3 {
    fn apply(&mut self, kind: i8, v: Option<i64>, s: &Option<String>) {
        let retract = kind == 1 || kind == 3;
        self.rows += if retract { -1 } else { 1 };
        if let Some(v) = v {
            let c = self.distinct.entry(v).or_insert(0);
            *c += if retract { -1 } else { 1 };
            let c = *c;
            if c == 0 {
                self.distinct.remove(&v);
            }
            if !retract && c == 1 {
                self.count += 1;
                self.sum = self.sum.wrapping_add(v);
            } else if retract && c == 0 {
                self.count -= 1;
                self.sum = self.sum.wrapping_sub(v);
            }
            if !retract {
                self.values.push(v);
            } else if let Some(i) = self.values.iter().position(|x| *x == v) {
                self.values.remove(i);
            }
        }
        if let Some(s) = s {
            if !retract {
                self.strings.push(s.clone());
            } else if let Some(i) = self.strings.iter().position(|x| x == s) {
                self.strings.remove(i);
            }
        }
    }

    fn results(&self) -> Results3 {
        (
            self.count,
            (self.count != 0).then_some(self.sum),
            self.values.first().copied(),
            self.values.last().copied(),
            (!self.strings.is_empty()).then(|| self.strings.join("/")),
        )
    }
}

/// The model's changelog: each bundle's groups in order of first appearance, emitted as
/// `GroupAggFunction` (one-row bundles) and `MiniBatchGroupAggFunction` do.
fn model3(input: &[Row3], bundles: &[std::ops::Range<usize>], gub: bool) -> Vec<Out3> {
    let mut state: std::collections::HashMap<Key, Group3> = Default::default();
    let mut out = Vec::new();
    for range in bundles {
        let rows = &input[range.clone()];
        let mut keys: Vec<&Key> = Vec::new();
        for r in rows {
            if !keys.contains(&&r.1) {
                keys.push(&r.1);
            }
        }
        for key in keys {
            let mut mine = rows.iter().filter(|r| &r.1 == key).peekable();
            let (mut g, first) = match state.get(key) {
                Some(g) => (g.clone(), false),
                None => {
                    while mine.next_if(|r| r.0 == 1 || r.0 == 3).is_some() {}
                    if mine.peek().is_none() {
                        continue;
                    }
                    (Group3::default(), true)
                }
            };
            let prev = g.results();
            for r in mine {
                g.apply(r.0, r.2, &r.3);
            }
            if g.rows == 0 {
                if !first {
                    out.push((3, key.clone(), prev));
                }
                state.remove(key);
                continue;
            }
            let new = g.results();
            if first {
                out.push((0, key.clone(), new));
            } else if new != prev {
                if gub {
                    out.push((1, key.clone(), prev));
                }
                out.push((2, key.clone(), new));
            }
            state.insert(key.clone(), g);
        }
    }
    out
}

/// The operator's bundles for `chunk`-row batches (see [`expected`]).
fn bundles3(
    len: usize,
    chunk: usize,
    mini_batch: Option<usize>,
    restore_midway: bool,
) -> Vec<std::ops::Range<usize>> {
    let Some(size) = mini_batch else {
        return (0..len).map(|i| i..i + 1).collect();
    };
    let mut out = Vec::new();
    let mut start = 0;
    let chunks = len.div_ceil(chunk);
    for i in 0..chunks {
        let end = ((i + 1) * chunk).min(len);
        if end - start >= size || (restore_midway && i == chunks / 2) {
            out.push(start..end);
            start = end;
        }
    }
    out.push(start..len);
    out
}

fn run3(
    backend: Backend,
    spec: &GroupAggSpec,
    input: &[Row3],
    chunk: usize,
    restore_midway: bool,
) -> Vec<Out3> {
    let dir = tempfile::tempdir().unwrap();
    let mut op = GroupAggregate::new(spec.clone(), open(backend, dir.path())).unwrap();
    let mut out = Vec::new();
    let chunks: Vec<&[Row3]> = input.chunks(chunk).collect();
    for (i, rows) in chunks.iter().enumerate() {
        out.extend(rows_of3(&op.process(&batch3(rows)).unwrap()));
        if restore_midway && i == chunks.len() / 2 {
            out.extend(rows_of3(&op.flush().unwrap()));
            let published = op.checkpoint(&dir.path().join("ckpt")).unwrap();
            drop(op);
            let opened = Checkpoint::open(published.path()).unwrap();
            op = GroupAggregate::restore(
                spec.clone(),
                &config(backend, dir.path()),
                all_key_groups(128).unwrap(),
                &[opened],
            )
            .unwrap();
        }
    }
    out.extend(rows_of3(&op.flush().unwrap()));
    out
}

#[test]
fn distinct_first_last_and_listagg_under_retraction_match_the_model() {
    let mut rng = Rng(SEED ^ 0x5);
    let input = changelog3(&mut rng, 700);
    for backend in [Backend::Memory, Backend::Rocks] {
        for gub in [true, false] {
            for mini_batch in [None, Some(40)] {
                let spec = spec3(gub, mini_batch);
                for (chunk, restore_midway) in [(input.len(), false), (13, false), (13, true)] {
                    let got = run3(backend, &spec, &input, chunk, restore_midway);
                    let bundles = bundles3(input.len(), chunk, mini_batch, restore_midway);
                    let want = model3(&input, &bundles, gub);
                    let context = format!(
                        "gub={gub} mini_batch={mini_batch:?} chunk={chunk} restore={restore_midway}"
                    );
                    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert_eq!(g, w, "row {i}, {context}");
                    }
                    assert_eq!(got.len(), want.len(), "{context}");
                }
            }
        }
    }
}

#[test]
fn single_value_fails_on_a_second_row_with_a_typed_error() {
    let feed = |op: &mut GroupAggregate, kind: i8, x: Option<i64>| {
        let b = RecordBatch::try_from_iter(vec![
            ("g", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
            ("x", Arc::new(Int64Array::from(vec![x])) as ArrayRef),
        ])
        .unwrap();
        op.process(&ChangelogBatch::try_new(b, Some(Int8Array::from(vec![kind]))).unwrap())
            .map(|out| {
                let col = out.batch().column(1).as_primitive::<Int64Type>().clone();
                (0..out.num_rows())
                    .map(|i| {
                        (
                            out.kind(i).to_byte(),
                            (!col.is_null(i)).then(|| col.value(i)),
                        )
                    })
                    .collect::<Vec<_>>()
            })
    };
    // Insert-only: a NULL is a row too, so a value after it is a second element.
    let spec = single(AggFunction::SingleValue, LogicalType::BigInt, false);
    let mut op = GroupAggregate::new(spec, Box::new(MemoryBackend::new())).unwrap();
    assert_eq!(feed(&mut op, 0, None).unwrap(), [(0, None)]);
    let err = feed(&mut op, 0, Some(1)).unwrap_err();
    assert!(matches!(err, Error::SingleValue { .. }), "{err}");
    assert_eq!(err.kind(), ErrorKind::Data);
    assert!(err.to_string().contains("more than one"), "{err}");
    // With retraction, a retracted row makes room for the next (the group is deleted and
    // inserted again), and any retraction resets the value to NULL.
    let spec = single(AggFunction::SingleValue, LogicalType::BigInt, true);
    let mut op = GroupAggregate::new(spec, Box::new(MemoryBackend::new())).unwrap();
    assert_eq!(feed(&mut op, 0, Some(4)).unwrap(), [(0, Some(4))]);
    assert_eq!(feed(&mut op, 3, Some(9)).unwrap(), [(3, Some(4))]);
    assert_eq!(feed(&mut op, 2, Some(5)).unwrap(), [(0, Some(5))]);
    assert!(feed(&mut op, 0, Some(6)).is_err());
}

#[test]
fn plan_semantics_leave_out_names_and_unset_call_options() {
    // What a checkpoint records of the plan: calls without their names, and without the
    // options they do not use, so plans keep their semantics as options are added.
    let semantics = spec(false, true, None).semantics();
    assert_eq!(
        semantics["calls"][2],
        serde_json::json!({"function": "SUM", "arg": 1})
    );
    assert_eq!(semantics["input_types"][0], "VARCHAR(2147483647)");
    assert_eq!(semantics["state_ttl"], false);
    let mut distinct = spec(false, true, None);
    distinct.calls[2] = distinct.calls[2].clone().distinct();
    assert_eq!(
        distinct.semantics()["calls"][2],
        serde_json::json!({"function": "SUM", "arg": 1, "distinct": true})
    );
    // And serialized calls stay as the golden files and plans wrote them.
    let json = serde_json::to_string(&AggCall::new(AggFunction::ListAgg, Some(2), "l")).unwrap();
    assert_eq!(json, r#"{"function":"LISTAGG","arg":2,"name":"l"}"#);
}

#[test]
fn heap_accumulators_reserve_against_the_budget_and_a_refused_bundle_changes_nothing() {
    use streamfusion::state::budget::MemoryBudget;

    // The memory backend keeps accumulators decoded (decision 0020); the budget still
    // counts every group as its encoded entry, and a bundle that does not fit fails whole.
    let spec = spec(true, true, Some(usize::MAX));
    let mut rng = Rng(SEED ^ 0xB0D6);
    let first = changelog(&mut rng, 300);
    let budget = MemoryBudget::new(16_000);
    let store = MemoryBackend::with_budget(&budget, "group-agg").unwrap();
    let mut op = GroupAggregate::new(spec.clone(), Box::new(store)).unwrap();
    let mut model = GroupModel::new(Emission {
        input_retracts: true,
        generate_update_before: true,
        ttl: false,
    });
    op.process(&batch(&first)).unwrap();
    assert_eq!(rows_of(&op.flush().unwrap()), model.bundle(&first));
    let reserved = budget.reserved();
    assert!(reserved > 0);

    // A restore of a checkpoint sees the same bytes the budget counted.
    let dir = tempfile::tempdir().unwrap();
    let published = op.checkpoint(&dir.path().join("ckpt")).unwrap();
    let restored =
        checkpoint::restore_memory(&Checkpoint::open(published.path()).unwrap()).unwrap();
    assert_eq!(restored.estimated_bytes(), reserved);

    // Many new wide keys: more than the budget holds.
    let wide: Vec<Row> = (0..200)
        .map(|i| (0, Some(format!("{i}-{}", "w".repeat(100))), Some(i)))
        .collect();
    op.process(&batch(&wide)).unwrap();
    let err = op.flush().unwrap_err();
    assert!(matches!(err, Error::BudgetExceeded { .. }), "{err}");
    assert_eq!(budget.reserved(), reserved);

    // Nothing of the refused bundle is left: the next bundle continues from the first.
    let next = changelog(&mut rng, 200);
    op.process(&batch(&next)).unwrap();
    assert_eq!(rows_of(&op.flush().unwrap()), model.bundle(&next));
}

/// Kind, key, then `COUNT(*)`, `COUNT(v)`, `SUM(v)`, `SUM0(v)`.
type IntSums = (i64, i64, Option<i64>, i64);

/// `COUNT(*), COUNT(v), SUM(v), SUM0(v)` of a group's live values, the sums wrapping at
/// TINYINT as Java's `byte` arithmetic does.
fn tinyint_sums(values: &[Option<i64>]) -> IntSums {
    let present: Vec<i64> = values.iter().flatten().copied().collect();
    let wrap = |s: i64| i64::from(s as i8);
    let total = present.iter().fold(0i64, |a, b| wrap(a.wrapping_add(*b)));
    (
        values.len() as i64,
        present.len() as i64,
        (!present.is_empty()).then_some(total),
        total,
    )
}

/// `COUNT(*), COUNT(v), SUM(v), SUM0(v)` over a TINYINT `v`, with retraction.
fn tinyint_spec(generate_update_before: bool, mini_batch_rows: usize) -> GroupAggSpec {
    GroupAggSpec {
        input_names: vec!["k".into(), "v".into()],
        input_types: vec![STRING, LogicalType::TinyInt],
        grouping: vec![0],
        calls: vec![
            AggCall::new(AggFunction::CountStar, None, "cnt"),
            AggCall::new(AggFunction::Count, Some(1), "cnt_v"),
            AggCall::new(AggFunction::Sum, Some(1), "sum_v"),
            AggCall::new(AggFunction::Sum0, Some(1), "sum0_v"),
        ],
        input_retracts: true,
        generate_update_before,
        mini_batch_rows: Some(mini_batch_rows),
        state_ttl: None,
        max_parallelism: 128,
    }
}

/// Rows with TINYINT values (each `Row` value narrowed) as [`tinyint_spec`]'s input.
fn tinyint_batch(rows: &[Row]) -> ChangelogBatch {
    let keys: StringArray = rows.iter().map(|r| r.1.as_deref()).collect();
    let values: Int8Array = rows.iter().map(|r| r.2.map(|v| v as i8)).collect();
    let batch = RecordBatch::try_from_iter_with_nullable(vec![
        ("k", Arc::new(keys) as ArrayRef, true),
        ("v", Arc::new(values) as ArrayRef, true),
    ])
    .unwrap();
    let kinds: Int8Array = rows.iter().map(|r| r.0).collect();
    ChangelogBatch::try_new(batch, Some(kinds)).unwrap()
}

/// [`tinyint_spec`]'s output rows.
fn tinyint_rows(out: &ChangelogBatch) -> Vec<(i8, Key, IntSums)> {
    let b = out.batch();
    let key = b.column(0).as_string::<i32>();
    let int = |c: usize| b.column(c).as_primitive::<Int64Type>().clone();
    let sum = b.column(3).as_primitive::<arrow::datatypes::Int8Type>();
    let sum0 = b.column(4).as_primitive::<arrow::datatypes::Int8Type>();
    let (cnt, cnt_v) = (int(1), int(2));
    (0..out.num_rows())
        .map(|i| {
            (
                out.kind(i).to_byte(),
                (!key.is_null(i)).then(|| key.value(i).to_string()),
                (
                    cnt.value(i),
                    cnt_v.value(i),
                    (!sum.is_null(i)).then(|| i64::from(sum.value(i))),
                    i64::from(sum0.value(i)),
                ),
            )
        })
        .collect()
}

/// A changelog of TINYINT values (as `Row`s).
fn tinyint_changelog(rng: &mut Rng, rows: usize) -> Vec<Row> {
    changelog_over(rng, rows, 256)
        .into_iter()
        .map(|(kind, key, v)| (kind, key, v.map(|x| i64::from(x as i8))))
        .collect()
}

#[test]
fn typed_heap_bundles_reserve_against_the_budget_and_a_refused_bundle_changes_nothing() {
    use bench_support::group_model::ValueModel;
    use streamfusion::state::budget::MemoryBudget;

    // The typed kernels edit heap accumulators in place (decision 0021): a refused bundle
    // must put back every group it touched and drop every group it added.
    let mut rng = Rng(SEED ^ 0x7B0D);
    let first = tinyint_changelog(&mut rng, 300);
    let budget = MemoryBudget::new(12_000);
    let store = MemoryBackend::with_budget(&budget, "group-agg").unwrap();
    let mut op = GroupAggregate::new(tinyint_spec(true, usize::MAX), Box::new(store)).unwrap();
    let mut model = ValueModel::new(
        Emission {
            input_retracts: true,
            generate_update_before: true,
            ttl: false,
        },
        tinyint_sums,
    );
    op.process(&tinyint_batch(&first)).unwrap();
    assert_eq!(tinyint_rows(&op.flush().unwrap()), model.bundle(&first));
    let reserved = budget.reserved();
    let dir = tempfile::tempdir().unwrap();
    let checkpoint_bytes = |op: &mut GroupAggregate, name: &str| {
        let published = op.checkpoint(&dir.path().join(name)).unwrap();
        checkpoint::restore_memory(&Checkpoint::open(published.path()).unwrap())
            .unwrap()
            .estimated_bytes()
    };
    assert_eq!(checkpoint_bytes(&mut op, "a"), reserved);

    // Changes to existing groups (retractions of all their rows, deleting some) and many new
    // wide keys: more than the budget holds.
    let mut refused: Vec<Row> = first
        .iter()
        .filter(|r| r.0 == 0 || r.0 == 2)
        .take(40)
        .map(|(_, k, v)| (3, k.clone(), *v))
        .collect();
    refused.extend((0..200).map(|i| (0, Some(format!("{i}-{}", "w".repeat(100))), Some(i % 100))));
    op.process(&tinyint_batch(&refused)).unwrap();
    let err = op.flush().unwrap_err();
    assert!(matches!(err, Error::BudgetExceeded { .. }), "{err}");
    assert_eq!(budget.reserved(), reserved);
    assert_eq!(checkpoint_bytes(&mut op, "b"), reserved);

    // The next bundle continues from the first.
    let next = tinyint_changelog(&mut rng, 200);
    op.process(&tinyint_batch(&next)).unwrap();
    assert_eq!(tinyint_rows(&op.flush().unwrap()), model.bundle(&next));
    assert_eq!(checkpoint_bytes(&mut op, "c"), budget.reserved());
}

#[test]
fn integer_count_and_sum_kernels_match_the_model_with_wrapping_tinyint_sums() {
    use bench_support::group_model::ValueModel;

    // The typed kernels (decision 0021) over TINYINT, so sums wrap often, with retractions,
    // unknown keys, NULLs, both backends, chunking and a restore in the middle.
    let mut rng = Rng(SEED ^ 0x71);
    let input = tinyint_changelog(&mut rng, 900);
    let (to_batch, rows_of) = (tinyint_batch, tinyint_rows);
    for backend in [Backend::Memory, Backend::Rocks] {
        for gub in [true, false] {
            for (mini_batch, chunk, restore_midway) in
                [(64, input.len(), false), (100, 17, true), (1, 1, false)]
            {
                let spec = tinyint_spec(gub, mini_batch);
                let dir = tempfile::tempdir().unwrap();
                let mut op = GroupAggregate::new(spec.clone(), open(backend, dir.path())).unwrap();
                let mut model = ValueModel::new(
                    Emission {
                        input_retracts: true,
                        generate_update_before: gub,
                        ttl: false,
                    },
                    tinyint_sums,
                );
                let (mut got, mut want) = (Vec::new(), Vec::new());
                let mut bundle: Vec<Row> = Vec::new();
                let chunks: Vec<&[Row]> = input.chunks(chunk).collect();
                for (i, rows) in chunks.iter().enumerate() {
                    got.extend(rows_of(&op.process(&to_batch(rows)).unwrap()));
                    bundle.extend_from_slice(rows);
                    if bundle.len() >= mini_batch {
                        want.extend(model.bundle(&bundle));
                        bundle.clear();
                    }
                    if restore_midway && i == chunks.len() / 2 {
                        got.extend(rows_of(&op.flush().unwrap()));
                        want.extend(model.bundle(&bundle));
                        bundle.clear();
                        let published = op.checkpoint(&dir.path().join("ckpt")).unwrap();
                        drop(op);
                        let opened = Checkpoint::open(published.path()).unwrap();
                        op = GroupAggregate::restore(
                            spec.clone(),
                            &config(backend, dir.path()),
                            all_key_groups(128).unwrap(),
                            &[opened],
                        )
                        .unwrap();
                    }
                }
                got.extend(rows_of(&op.flush().unwrap()));
                want.extend(model.bundle(&bundle));
                assert_eq!(got, want, "gub={gub} mini_batch={mini_batch} chunk={chunk}");
            }
        }
    }
}

#[test]
fn typed_count_of_a_non_integer_column_counts_its_non_null_values() {
    use bench_support::group_model::ValueModel;

    // COUNT(x) needs only x's validity, so a plan counting a STRING column takes the
    // typed kernels too: COUNT(k) is COUNT(*) for a key and 0 for the NULL key's group.
    let mut rng = Rng(SEED ^ 0xC0);
    let input = changelog(&mut rng, 500);
    for backend in [Backend::Memory, Backend::Rocks] {
        let spec = GroupAggSpec {
            calls: vec![
                AggCall::new(AggFunction::CountStar, None, "cnt"),
                AggCall::new(AggFunction::Count, Some(0), "cnt_k"),
                AggCall::new(AggFunction::Sum, Some(1), "sum_v"),
            ],
            ..spec(true, true, Some(64))
        };
        let dir = tempfile::tempdir().unwrap();
        let mut op = GroupAggregate::new(spec, open(backend, dir.path())).unwrap();
        let (mut got, mut want) = (Vec::new(), Vec::new());
        let mut model = ValueModel::new(
            Emission {
                input_retracts: true,
                generate_update_before: true,
                ttl: false,
            },
            |values: &[Option<i64>]| {
                let present: Vec<i64> = values.iter().flatten().copied().collect();
                let sum = (!present.is_empty())
                    .then(|| present.iter().fold(0i64, |a, b| a.wrapping_add(*b)));
                (values.len() as i64, sum)
            },
        );
        let rows_of = |out: &ChangelogBatch| {
            let b = out.batch();
            let key = b.column(0).as_string::<i32>();
            let int = |c: usize| b.column(c).as_primitive::<Int64Type>().clone();
            let (cnt, cnt_k, sum) = (int(1), int(2), int(3));
            (0..out.num_rows())
                .map(|i| {
                    (
                        out.kind(i).to_byte(),
                        (!key.is_null(i)).then(|| key.value(i).to_string()),
                        (
                            cnt.value(i),
                            cnt_k.value(i),
                            (!sum.is_null(i)).then(|| sum.value(i)),
                        ),
                    )
                })
                .collect::<Vec<_>>()
        };
        // Chunks of the bundle size: each `process` flushes its own bundle.
        for rows in input.chunks(64) {
            got.extend(rows_of(&op.process(&batch(rows)).unwrap()));
            want.extend(model.bundle(rows).into_iter().map(|(kind, k, (n, sum))| {
                let counted = if k.is_some() { n } else { 0 };
                (kind, k, (n, counted, sum))
            }));
        }
        got.extend(rows_of(&op.flush().unwrap()));
        assert_eq!(got, want);
    }
}

/// The input rows whose key falls in `key_groups` (of 128), as Flink's keyed exchange
/// routes them to the subtask owning those key groups.
fn routed(rows: &[Row], key_groups: &std::ops::RangeInclusive<u16>) -> Vec<Row> {
    let keys: arrow::array::StringArray = rows.iter().map(|r| r.1.as_deref()).collect();
    let groups = streamfusion::keys::KeyHasher::new(vec![STRING])
        .key_groups(&[Arc::new(keys) as arrow::array::ArrayRef], 128)
        .unwrap();
    rows.iter()
        .zip(groups)
        .filter(|(_, g)| key_groups.contains(&(*g as u16)))
        .map(|(r, _)| r.clone())
        .collect()
}

/// Each key's changelog in order: subtasks interleave keys differently, but every key's own
/// changelog is fixed.
fn by_key(rows: Vec<OutputRow<Key>>) -> std::collections::BTreeMap<Key, Vec<OutputRow<Key>>> {
    let mut out = std::collections::BTreeMap::<Key, Vec<_>>::new();
    for row in rows {
        out.entry(row.1.clone()).or_default().push(row);
    }
    out
}

#[test]
fn rescaling_two_to_one_and_one_to_three_continues_every_key_once() {
    use streamfusion::ops::{OperatorPlan, Output};

    let spec = spec(true, true, None);
    let plan = OperatorPlan::GroupAggregate(spec.clone());
    let mut rng = Rng(SEED ^ 0x5CA1E);
    let input = changelog(&mut rng, 900);
    let (first, second) = input.split_at(450);
    let want = by_key(expected(&spec, &input, input.len(), false));
    // Each scaling: the key groups of the old subtasks, then of the new ones.
    type Layout<'a> = &'a [std::ops::RangeInclusive<u16>];
    let scalings: [(Layout, Layout); 2] = [
        (&[0..=63, 64..=127], &[0..=127]),
        (&[0..=127], &[0..=42, 43..=85, 86..=127]),
    ];
    for backend in [Backend::Memory, Backend::Rocks] {
        for (before, after) in scalings {
            let dir = tempfile::tempdir().unwrap();
            let mut got = Vec::new();
            let mut checkpoints = Vec::new();
            for (i, range) in before.iter().enumerate() {
                let config = config(backend, &dir.path().join(format!("before-{i}")));
                let mut op = plan.build(&config, Some(range.clone())).unwrap();
                let mut out = Output::new();
                op.process(0, &batch(&routed(first, range)), &mut out)
                    .unwrap();
                op.advance_watermark(1_000 + i as i64, &mut out).unwrap();
                op.prepare_checkpoint(&mut out).unwrap();
                got.extend(out.take().iter().flat_map(rows_of));
                let target = dir.path().join(format!("checkpoint-{i}"));
                checkpoints.push(op.checkpoint(&target).unwrap());
            }
            for (j, range) in after.iter().enumerate() {
                let config = config(backend, &dir.path().join(format!("after-{j}")));
                let mut op = plan
                    .restore(&config, Some(range.clone()), &checkpoints)
                    .unwrap();
                // Flink's timer service restarts without a watermark (decision 0030).
                assert_eq!(op.watermark(), None, "{before:?} -> {range:?}");
                let mut out = Output::new();
                op.process(0, &batch(&routed(second, range)), &mut out)
                    .unwrap();
                op.flush(&mut out).unwrap();
                got.extend(out.take().iter().flat_map(rows_of));
                // A row of a key group the subtask does not own is refused.
                let foreign: Vec<Row> = routed(&input, &(0..=127))
                    .into_iter()
                    .filter(|r| routed(std::slice::from_ref(r), range).is_empty())
                    .take(1)
                    .collect();
                if !foreign.is_empty() {
                    let err = op.process(0, &batch(&foreign), &mut out).unwrap_err();
                    assert!(err.to_string().contains("does not own"), "{err}");
                }
            }
            assert_eq!(by_key(got), want, "{before:?} -> {after:?}");
        }
    }
}

/// A GROUP BY without grouping columns (Flink's global aggregate, keyed by the empty row):
/// every row updates the one group, in immediate and mini-batch mode, against a running
/// total as the model. It once emitted nothing at all, as no key column counted the rows.
#[test]
fn a_group_by_without_grouping_columns_aggregates_every_row_into_one_group() {
    use streamfusion::ops::{OperatorPlan, Output};

    let rows: Vec<Row> = (0..50i64)
        .map(|i| {
            (
                0,
                Some(format!("k{}", i % 3)),
                (i % 5 != 0).then_some(i * 3 - 40),
            )
        })
        .collect();
    for mini_batch in [None, Some(16)] {
        let mut spec = spec(false, true, mini_batch);
        spec.grouping = vec![];
        spec.calls = vec![
            AggCall::new(AggFunction::CountStar, None, "cnt"),
            AggCall::new(AggFunction::Sum, Some(1), "sum_v"),
        ];
        // Flink runs it at parallelism 1 and max parallelism 1.
        spec.max_parallelism = 1;
        let mut op = OperatorPlan::GroupAggregate(spec)
            .build(&StateConfig::memory(), None)
            .unwrap();
        let mut out = Output::new();
        for chunk in rows.chunks(16) {
            op.process(0, &batch(chunk), &mut out).unwrap();
        }
        op.flush(&mut out).unwrap();
        let mut got = Vec::new();
        for b in out.take() {
            let cnt = b.batch().column(0).as_primitive::<Int64Type>().clone();
            let sum = b.batch().column(1).as_primitive::<Int64Type>().clone();
            for i in 0..b.num_rows() {
                got.push((
                    b.kind(i).to_byte(),
                    cnt.value(i),
                    (!sum.is_null(i)).then(|| sum.value(i)),
                ));
            }
        }
        // The model: the group's running count and sum after each row (or each bundle).
        let mut want = Vec::new();
        let mut state: Option<(i64, Option<i64>)> = None;
        let step = mini_batch.unwrap_or(1);
        for chunk in rows.chunks(step) {
            let before = state;
            for (_, _, v) in chunk {
                let (c, s) = state.unwrap_or((0, None));
                let s = match (s, v) {
                    (s, None) => s,
                    (None, Some(v)) => Some(*v),
                    (Some(s), Some(v)) => Some(s + v),
                };
                state = Some((c + 1, s));
            }
            let (c, s) = state.unwrap();
            match before {
                None => want.push((0, c, s)),
                Some((bc, bs)) => {
                    want.push((1, bc, bs));
                    want.push((2, c, s));
                }
            }
        }
        assert_eq!(got, want, "mini-batch {mini_batch:?}");
    }
}

/// Flink's raw keyed state: every old subtask writes one section per key group it owns,
/// Flink hands each new subtask the sections of its key groups, and the operator restored
/// from them continues every key once (the model of the whole input is the oracle).
#[test]
fn rescaling_through_key_group_sections_continues_every_key_once() {
    use streamfusion::ops::sections::{restore_from_sections, snapshot_sections};
    use streamfusion::ops::{OperatorPlan, Output};

    let spec = spec(true, true, None);
    let plan = OperatorPlan::GroupAggregate(spec.clone());
    let mut rng = Rng(SEED ^ 0x5EC7);
    let input = changelog(&mut rng, 900);
    let (first, second) = input.split_at(450);
    let want = by_key(expected(&spec, &input, input.len(), false));
    type Layout<'a> = &'a [std::ops::RangeInclusive<u16>];
    let scalings: [(Layout, Layout); 3] = [
        (&[0..=63, 64..=127], &[0..=127]),
        (&[0..=127], &[0..=42, 43..=85, 86..=127]),
        (&[0..=127], &[0..=127]),
    ];
    for (before_backend, after_backend) in [
        (Backend::Memory, Backend::Memory),
        (Backend::Rocks, Backend::Rocks),
        (Backend::Memory, Backend::Rocks),
    ] {
        for (before, after) in scalings {
            let dir = tempfile::tempdir().unwrap();
            let mut got = Vec::new();
            let mut sections: Vec<(u16, Vec<u8>)> = Vec::new();
            for (i, range) in before.iter().enumerate() {
                let config = config(before_backend, &dir.path().join(format!("before-{i}")));
                let mut op = plan.build(&config, Some(range.clone())).unwrap();
                let mut out = Output::new();
                op.process(0, &batch(&routed(first, range)), &mut out)
                    .unwrap();
                op.advance_watermark(1_000 + i as i64, &mut out).unwrap();
                op.prepare_checkpoint(&mut out).unwrap();
                got.extend(out.take().iter().flat_map(rows_of));
                let written = snapshot_sections(op.as_mut(), dir.path(), &mut |kg, bytes| {
                    sections.push((kg, bytes));
                    Ok(())
                })
                .unwrap();
                assert_eq!(written, range.len());
            }
            for (j, range) in after.iter().enumerate() {
                let config = config(after_backend, &dir.path().join(format!("after-{j}")));
                let mine: Vec<&[u8]> = sections
                    .iter()
                    .filter(|(kg, _)| range.contains(kg))
                    .map(|(_, b)| b.as_slice())
                    .collect();
                let mut op =
                    restore_from_sections(&plan, &config, Some(range.clone()), &mine, None)
                        .unwrap();
                assert_eq!(op.watermark(), None, "{before:?} -> {range:?}");
                let mut out = Output::new();
                op.process(0, &batch(&routed(second, range)), &mut out)
                    .unwrap();
                op.flush(&mut out).unwrap();
                got.extend(out.take().iter().flat_map(rows_of));
            }
            assert_eq!(
                by_key(got),
                want,
                "{before_backend:?} -> {after_backend:?}, {before:?} -> {after:?}"
            );
        }
    }
}

#[test]
fn sections_of_another_plan_or_missing_key_groups_are_refused() {
    use streamfusion::ops::OperatorPlan;
    use streamfusion::ops::sections::{restore_from_sections, snapshot_sections};

    let dir = tempfile::tempdir().unwrap();
    let plan = OperatorPlan::GroupAggregate(spec(true, true, None));
    let mut op = plan.build(&StateConfig::memory(), Some(0..=127)).unwrap();
    let mut sections = Vec::new();
    snapshot_sections(op.as_mut(), dir.path(), &mut |_, b| {
        sections.push(b);
        Ok(())
    })
    .unwrap();
    let all: Vec<&[u8]> = sections.iter().map(Vec::as_slice).collect();
    // Another plan: different retraction semantics.
    let other = OperatorPlan::GroupAggregate(spec(false, true, None));
    let err = restore_from_sections(&other, &StateConfig::memory(), None, &all, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("written for a different plan"), "{err}");
    // Key groups 0..=63 restored by a subtask that owns 0..=127.
    let err = restore_from_sections(
        &plan,
        &StateConfig::memory(),
        Some(0..=127),
        &all[..64],
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("key group 64 "), "{err}");
    // No sections at all: a stock savepoint, or state lost.
    let err = restore_from_sections(&plan, &StateConfig::memory(), None, &[], None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no key-group sections"), "{err}");
}

#[test]
fn checkpoints_of_overlapping_or_missing_key_groups_are_refused() {
    use streamfusion::ops::OperatorPlan;

    let plan = OperatorPlan::GroupAggregate(spec(true, true, None));
    let dir = tempfile::tempdir().unwrap();
    let mut checkpoints = Vec::new();
    for (i, range) in [0..=70u16, 64..=127].into_iter().enumerate() {
        let mut op = plan.build(&StateConfig::memory(), Some(range)).unwrap();
        checkpoints.push(op.checkpoint(&dir.path().join(format!("c{i}"))).unwrap());
    }
    let err = plan
        .restore(&StateConfig::memory(), None, &checkpoints)
        .unwrap_err()
        .to_string();
    assert!(err.contains("both hold key groups 64..=70"), "{err}");
    let err = plan
        .restore(&StateConfig::memory(), None, &checkpoints[..1])
        .unwrap_err()
        .to_string();
    assert!(err.contains("key group 71 "), "{err}");
}

#[cfg(feature = "bench")]
#[test]
fn the_generic_operator_adapter_restores_through_the_production_path() {
    use bench_support::adapters::{RestoreMode, StoreLifecycle};
    use streamfusion::bench::{Backend as Store, OperatorLifecycle};
    use streamfusion::ops::OperatorPlan;

    let spec = spec(true, true, None);
    let mut rng = Rng(SEED ^ 0xADA9);
    let input = changelog(&mut rng, 400);
    let (first, second) = input.split_at(200);
    let want = by_key(expected(&spec, &input, input.len(), false));
    for backend in [Store::Memory, Store::Rocksdb] {
        let lifecycle = OperatorLifecycle {
            plan: OperatorPlan::GroupAggregate(spec.clone()),
            backend,
        };
        for mode in [
            RestoreMode::Aligned,
            RestoreMode::Rebuilt {
                first_key_group: 0,
                last_key_group: 127,
            },
        ] {
            let mut store = lifecycle.create().unwrap();
            let mut got: Vec<OutputRow<Key>> = lifecycle
                .push(&mut store, &batch(first))
                .unwrap()
                .iter()
                .flat_map(rows_of)
                .collect();
            let published = lifecycle.checkpoint(&mut store).unwrap();
            lifecycle.close(store).unwrap();
            let mut restored = lifecycle.restore(&[published], &mode).unwrap();
            for out in lifecycle.push(&mut restored, &batch(second)).unwrap() {
                got.extend(rows_of(&out));
            }
            assert_eq!(by_key(got), want, "{backend:?} {mode:?}");
        }
    }
}
