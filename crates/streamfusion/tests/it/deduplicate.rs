//! Deduplication against a row-at-a-time model of Flink's deduplicate functions (a hash map
//! per key, the rules of `DeduplicateFunctionHelper`, `RowTimeDeduplicateFunctionHelper` and
//! `RowTimeDeduplicateKeepFirstRowFunction` written out for one row at a time, mini-batch
//! bundles cut every `size` rows and at watermarks), over every plan shape: proctime and
//! rowtime, keep first and last, with and without `-U` and `+I`, immediate and mini-batch,
//! on both backends, in chunks, and across aligned and rescaled (1 -> 2 -> 1) restores.
//! Streams have NULL keys, repeated identical rows, rowtime ties, out-of-order and late rows.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array, StringArray, TimestampMillisecondArray};
use arrow::datatypes::{Int32Type, TimestampMillisecondType};
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::deduplicate::DedupSpec;
use streamfusion::ops::{OperatorPlan, Output, StateConfig};
use streamfusion::state::ttl::ManualClock;
use streamfusion::types::LogicalType;

use super::common::subtasks::Subtasks;
use super::common::{Backend, SplitMix};

const MAX_PARALLELISM: u32 = 128;

type Row = (Option<i32>, Option<String>, i64);

#[derive(Debug, Clone)]
enum Event {
    Row(Row),
    Watermark(i64),
}

/// One output row: kind, key, value, rowtime.
type Out = (RowKind, Option<i32>, Option<String>, i64);

#[derive(Debug, Clone, Copy)]
struct Shape {
    rowtime: bool,
    keep_last: bool,
    update_before: bool,
    insert: bool,
    insert_only: bool,
    mini_batch: Option<usize>,
}

fn spec(shape: Shape) -> DedupSpec {
    DedupSpec {
        input_names: vec!["k".into(), "v".into(), "rt".into()],
        input_types: vec![
            LogicalType::Int,
            LogicalType::VarChar(i32::MAX as u32),
            LogicalType::Timestamp(3),
        ],
        keys: vec![0],
        rowtime_column: shape.rowtime.then_some(2),
        keep_last: shape.keep_last,
        generate_update_before: shape.update_before,
        generate_insert: shape.insert,
        output_insert_only: shape.insert_only,
        mini_batch_rows: shape.mini_batch,
        state_ttl: None,
        max_parallelism: MAX_PARALLELISM,
    }
}

/// Every plan Flink 2.3.0 builds: proctime and rowtime, first and last, `-U` and `+I`
/// generated or not, immediate and mini-batch, and rowtime keep-first on timers.
fn shapes() -> Vec<Shape> {
    let mut shapes = Vec::new();
    for rowtime in [false, true] {
        for keep_last in [false, true] {
            for (update_before, insert) in [(true, true), (false, true), (false, false)] {
                for mini_batch in [None, Some(5)] {
                    let insert_only = rowtime && !keep_last && mini_batch.is_none();
                    shapes.push(Shape {
                        rowtime,
                        keep_last,
                        update_before,
                        insert,
                        insert_only,
                        mini_batch,
                    });
                }
            }
        }
    }
    shapes
}

/// Flink's functions, one row at a time.
#[derive(Default)]
struct Model {
    /// The kept (or waiting) row per key, with the kind Flink's state holds it with.
    kept: HashMap<Option<i32>, (Row, RowKind)>,
    emitted: std::collections::HashSet<Option<i32>>,
    watermark: Option<i64>,
    bundle: Vec<Row>,
}

impl Model {
    fn row(&mut self, shape: Shape, heap: bool, row: Row, out: &mut Vec<Out>) {
        let emit = |out: &mut Vec<Out>, kind, r: &Row| out.push((kind, r.0, r.1.clone(), r.2));
        let stateful = shape.update_before || shape.insert;
        if shape.insert_only {
            // `RowTimeDeduplicateKeepFirstRowFunction.processElement`.
            if self.watermark.is_some_and(|w| row.2 < w) || self.emitted.contains(&row.0) {
                return;
            }
            if self.kept.get(&row.0).is_none_or(|(w, _)| row.2 < w.2) {
                self.kept.insert(row.0, (row, RowKind::Insert));
            }
            return;
        }
        if !shape.rowtime && !shape.keep_last {
            if self.kept.contains_key(&row.0) {
                return;
            }
            self.kept.insert(row.0, (row.clone(), RowKind::Insert));
            emit(out, RowKind::Insert, &row);
            return;
        }
        if !shape.rowtime {
            // `processLastRowOnProcTime`.
            if !stateful {
                emit(out, RowKind::UpdateAfter, &row);
                return;
            }
            match self.kept.get(&row.0).cloned() {
                None => {
                    emit(out, RowKind::Insert, &row);
                    self.kept.insert(row.0, (row, RowKind::Insert));
                }
                // BinaryRowData.equals: the same fields and the same header kind.
                Some((prev, RowKind::Insert)) if prev == row => {}
                Some((prev, _)) => {
                    if shape.update_before {
                        emit(out, RowKind::UpdateBefore, &prev);
                    }
                    emit(out, RowKind::UpdateAfter, &row);
                    let kind = if heap {
                        RowKind::UpdateAfter
                    } else {
                        RowKind::Insert
                    };
                    self.kept.insert(row.0, (row, kind));
                }
            }
            return;
        }
        // `deduplicateOnRowTime`.
        let prev = self.kept.get(&row.0).map(|(r, _)| r.clone());
        let keep = match &prev {
            None => true,
            Some(p) if shape.keep_last => p.2 <= row.2,
            Some(p) => row.2 < p.2,
        };
        if !keep {
            return;
        }
        match prev {
            _ if !stateful => emit(out, RowKind::UpdateAfter, &row),
            None => emit(out, RowKind::Insert, &row),
            Some(p) => {
                if shape.update_before {
                    emit(out, RowKind::UpdateBefore, &p);
                }
                emit(out, RowKind::UpdateAfter, &row);
            }
        }
        self.kept.insert(row.0, (row, RowKind::Insert));
    }

    /// A mini-batch bundle: per key in order of first appearance, its first row, its last
    /// row, or all its rows (rowtime).
    fn finish(&mut self, shape: Shape, heap: bool, out: &mut Vec<Out>) {
        let bundle = std::mem::take(&mut self.bundle);
        let mut keys: Vec<Option<i32>> = Vec::new();
        let mut rows: HashMap<Option<i32>, Vec<Row>> = HashMap::new();
        for r in bundle {
            if !rows.contains_key(&r.0) {
                keys.push(r.0);
            }
            rows.entry(r.0).or_default().push(r);
        }
        for k in keys {
            let mut rows = rows.remove(&k).unwrap();
            if !shape.rowtime {
                let one = if shape.keep_last {
                    rows.pop()
                } else {
                    rows.into_iter().next()
                };
                rows = one.into_iter().collect();
            }
            for r in rows {
                self.row(shape, heap, r, out);
            }
        }
    }

    fn event(&mut self, shape: Shape, heap: bool, event: &Event, out: &mut Vec<Out>) {
        match event {
            Event::Row(r) => match shape.mini_batch {
                None => self.row(shape, heap, r.clone(), out),
                Some(size) => {
                    self.bundle.push(r.clone());
                    if self.bundle.len() == size {
                        self.finish(shape, heap, out);
                    }
                }
            },
            Event::Watermark(w) => {
                self.finish(shape, heap, out);
                if self.watermark.is_some_and(|m| m >= *w) {
                    return;
                }
                self.watermark = Some(*w);
                if shape.insert_only {
                    let mut due: Vec<Row> = self
                        .kept
                        .values()
                        .filter(|(r, _)| r.2 <= *w)
                        .map(|(r, _)| r.clone())
                        .collect();
                    due.sort_by_key(|r| r.2);
                    for r in due {
                        self.kept.remove(&r.0);
                        self.emitted.insert(r.0);
                        out.push((RowKind::Insert, r.0, r.1, r.2));
                    }
                }
            }
        }
    }
}

/// What the model emits for `events`, with a bundle closed at each of `cuts` (restores).
fn model(shape: Shape, heap: bool, events: &[Event], cuts: &[usize]) -> Vec<Out> {
    let mut m = Model::default();
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if cuts.contains(&i) {
            m.finish(shape, heap, &mut out);
            // A restore: Flink's timer service restarts without a watermark (decision 0030).
            m.watermark = None;
        }
        m.event(shape, heap, e, &mut out);
    }
    m.finish(shape, heap, &mut out);
    out
}

fn batch(rows: &[Row]) -> ChangelogBatch {
    let k: ArrayRef = Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.0)));
    let v: ArrayRef = Arc::new(StringArray::from_iter(rows.iter().map(|r| r.1.clone())));
    let rt: ArrayRef = Arc::new(TimestampMillisecondArray::from_iter_values(
        rows.iter().map(|r| r.2),
    ));
    let schema = Arc::new(arrow::datatypes::Schema::new(vec![
        arrow::datatypes::Field::new("k", k.data_type().clone(), true),
        arrow::datatypes::Field::new("v", v.data_type().clone(), true),
        arrow::datatypes::Field::new("rt", rt.data_type().clone(), true),
    ]));
    ChangelogBatch::insert_only(arrow::array::RecordBatch::try_new(schema, vec![k, v, rt]).unwrap())
}

fn rows_of(out: &mut Output) -> Vec<Out> {
    let mut rows = Vec::new();
    for b in out.take() {
        let batch = b.batch();
        let k = batch.column(0).as_primitive::<Int32Type>();
        let v = batch.column(1).as_string::<i32>();
        let rt = batch.column(2).as_primitive::<TimestampMillisecondType>();
        for r in 0..b.num_rows() {
            rows.push((
                b.kind(r),
                (!k.is_null(r)).then(|| k.value(r)),
                (!v.is_null(r)).then(|| v.value(r).to_string()),
                rt.value(r),
            ));
        }
    }
    rows
}

/// Each key's emissions in order: what must hold however subtasks interleave.
fn per_key(out: &[Out]) -> BTreeMap<Option<i32>, Vec<Out>> {
    let mut keys: BTreeMap<Option<i32>, Vec<Out>> = BTreeMap::new();
    for o in out {
        keys.entry(o.1).or_default().push(o.clone());
    }
    keys
}

/// A stream with NULL keys, values repeating so that consecutive rows of a key are often
/// identical, rowtime ties, out-of-order and late rows, and a watermark every few rows.
fn events(seed: u64, rows: usize, keys: i32) -> Vec<Event> {
    let mut random = SplitMix::new(seed);
    let mut next = |m: u64| random.below(m);
    let mut events = Vec::new();
    let mut max_rt = 0i64;
    for i in 0..rows {
        let key = match next(keys as u64 + 1) as i32 {
            0 => None,
            k => Some(k),
        };
        let v = match next(4) {
            0 => None,
            1 => Some("a long value that lives in the variable part".to_string()),
            n => Some(format!("v{n}")),
        };
        // Ties on purpose: times are coarse, some far behind.
        let rt = if next(8) == 0 {
            (i as i64) * 10 - next(3_000) as i64
        } else {
            (i as i64) * 10 + 10 * next(20) as i64
        };
        max_rt = max_rt.max(rt);
        events.push(Event::Row((key, v, rt)));
        if next(6) == 0 {
            events.push(Event::Watermark(max_rt - next(200) as i64));
        }
    }
    events.push(Event::Watermark(i64::MAX));
    events
}

/// Runs `events` through the plan's subtasks in `chunk`-row batches, checkpointing every
/// subtask and restoring at the parallelism given at each event index in `restores`.
fn run(
    shape: Shape,
    backend: Backend,
    events: &[Event],
    restores: &[(usize, u32)],
    chunk: usize,
) -> Vec<Out> {
    let mut subtasks = Subtasks::new(
        OperatorPlan::Deduplicate(spec(shape)),
        backend,
        MAX_PARALLELISM,
    );
    let mut out = Output::new();
    let mut pending: Vec<Row> = Vec::new();
    let flush = |subtasks: &mut Subtasks, pending: &mut Vec<Row>, out: &mut Output| {
        for rows in pending.chunks(chunk) {
            subtasks.process(&batch(rows), out);
        }
        pending.clear();
    };
    for (index, event) in events.iter().enumerate() {
        if let Some(&(_, next)) = restores.iter().find(|(at, _)| *at == index) {
            flush(&mut subtasks, &mut pending, &mut out);
            subtasks.restore(next, &mut out);
        }
        match event {
            Event::Row(r) => pending.push(r.clone()),
            Event::Watermark(w) => {
                flush(&mut subtasks, &mut pending, &mut out);
                subtasks.advance_watermark(*w, &mut out);
            }
        }
    }
    flush(&mut subtasks, &mut pending, &mut out);
    subtasks.flush(&mut out);
    rows_of(&mut out)
}

fn heap(backend: Backend) -> bool {
    matches!(backend, Backend::Memory)
}

#[test]
fn every_plan_shape_matches_the_model_on_both_backends() {
    for (n, shape) in shapes().into_iter().enumerate() {
        let events = events(0xDED0 + n as u64, 1_200, 30);
        for backend in [Backend::Memory, Backend::Rocks] {
            let expected = model(shape, heap(backend), &events, &[]);
            assert!(expected.len() > 30, "{shape:?}: {} rows", expected.len());
            // One subtask in 17-row chunks: immediate plans emit in the model's order, bundles
            // emit per key (the order across keys is Flink's hash map's, not specified).
            let got = run(shape, backend, &events, &[], 17);
            if shape.mini_batch.is_none() && !shape.insert_only {
                assert_eq!(got, expected, "{shape:?} on {backend:?}");
            }
            assert_eq!(
                per_key(&got),
                per_key(&expected),
                "{shape:?} on {backend:?}"
            );
            let mut sorted = (got, expected);
            sorted.0.sort();
            sorted.1.sort();
            assert_eq!(sorted.0, sorted.1, "{shape:?} on {backend:?}");
        }
    }
}

#[test]
fn restores_aligned_and_rescaled_emit_nothing_twice_and_lose_nothing() {
    for (n, shape) in shapes().into_iter().enumerate() {
        let events = events(0xC0DE + n as u64, 700, 20);
        let third = events.len() / 3;
        let aligned = [(third / 2, 1), (third, 1), (2 * third, 1)];
        let rescaled = [(third / 2, 1), (third, 2), (2 * third, 1)];
        let cuts: Vec<usize> = aligned.iter().map(|r| r.0).collect();
        for backend in [Backend::Memory, Backend::Rocks] {
            let expected = model(shape, heap(backend), &events, &cuts);
            let got = run(shape, backend, &events, &aligned, 29);
            assert_eq!(
                per_key(&got),
                per_key(&expected),
                "{shape:?} on {backend:?}"
            );
            let got = run(shape, backend, &events, &rescaled, 29);
            if shape.mini_batch.is_none() {
                assert_eq!(
                    per_key(&got),
                    per_key(&expected),
                    "{shape:?} on {backend:?}"
                );
            } else {
                // Two subtasks cut their own bundles, so only the result is the model's.
                assert_eq!(
                    final_rows(&got),
                    final_rows(&expected),
                    "{shape:?} on {backend:?}"
                );
            }
        }
    }
}

#[test]
fn a_restored_keep_first_takes_rows_behind_the_old_watermark_until_the_next() {
    // `RowTimeDeduplicateKeepFirstRowFunction` drops a row at or before the timer service's
    // watermark, which a restore resets (decision 0030): key 2's row at 60, behind the
    // watermark 100 of the run before the restore, is kept after it; key 3's at 150 is late
    // again once watermark 200 has passed.
    let shape = Shape {
        rowtime: true,
        keep_last: false,
        update_before: false,
        insert: false,
        insert_only: true,
        mini_batch: None,
    };
    let row = |k: i32, v: &str, ts: i64| Event::Row((Some(k), Some(v.into()), ts));
    let events = [
        row(1, "a", 50),
        Event::Watermark(100),
        row(2, "b", 60),
        Event::Watermark(200),
        row(3, "c", 150),
        Event::Watermark(300),
    ];
    let first = (RowKind::Insert, Some(1), Some("a".to_string()), 50);
    let second = (RowKind::Insert, Some(2), Some("b".to_string()), 60);
    for backend in [Backend::Memory, Backend::Rocks] {
        assert_eq!(
            run(shape, backend, &events, &[], 1),
            std::slice::from_ref(&first)
        );
        for parallelism in [1, 2] {
            let restored = run(shape, backend, &events, &[(2, parallelism)], 1);
            assert_eq!(
                per_key(&restored),
                per_key(&[first.clone(), second.clone()]),
                "{backend:?} restored at parallelism {parallelism}"
            );
            assert_eq!(restored, model(shape, heap(backend), &events, &[2]));
        }
    }
}

/// The row each key holds once `out` is applied to an upsert table.
fn final_rows(out: &[Out]) -> BTreeMap<Option<i32>, (Option<String>, i64)> {
    let mut rows = BTreeMap::new();
    for (kind, k, v, rt) in out {
        if kind.is_accumulate() {
            rows.insert(*k, (v.clone(), *rt));
        } else {
            rows.remove(k);
        }
    }
    rows
}

#[test]
fn keep_last_suppresses_an_unchanged_row_as_each_backend_stores_it() {
    // A key's rows: a, a, b, b. On both backends the second `a` is suppressed; the second
    // `b` is suppressed on RocksDB (Flink serialized `b` as +I) but not on the heap, where
    // Flink's stored `b` became +U when it was emitted as an update.
    let shape = Shape {
        rowtime: false,
        keep_last: true,
        update_before: true,
        insert: true,
        insert_only: false,
        mini_batch: None,
    };
    let row = |v: &str| Event::Row((Some(1), Some(v.to_string()), 0));
    let events = vec![row("a"), row("a"), row("b"), row("b")];
    let kinds = |backend| -> Vec<RowKind> {
        run(shape, backend, &events, &[], 1)
            .into_iter()
            .map(|o| o.0)
            .collect()
    };
    use RowKind::{Insert, UpdateAfter, UpdateBefore};
    assert_eq!(kinds(Backend::Rocks), [Insert, UpdateBefore, UpdateAfter]);
    assert_eq!(
        kinds(Backend::Memory),
        [Insert, UpdateBefore, UpdateAfter, UpdateBefore, UpdateAfter]
    );
}

#[test]
fn mini_batch_bundles_close_at_exactly_their_size_whatever_the_batches() {
    // Keep-last proctime over one key: each bundle of 3 emits its last row, so the output
    // says where bundles closed. Batches of 2 and 4 rows must close them after rows 3, 6, 9.
    let shape = Shape {
        rowtime: false,
        keep_last: true,
        update_before: false,
        insert: true,
        insert_only: false,
        mini_batch: Some(3),
    };
    let plan = OperatorPlan::Deduplicate(spec(shape));
    let rows: Vec<Row> = (0..9)
        .map(|i| (Some(7), Some(format!("r{i}")), 0))
        .collect();
    for sizes in [[2, 4, 3], [4, 4, 1], [9, 0, 0]] {
        let mut op = plan.build(&StateConfig::memory(), None).unwrap();
        let mut out = Output::new();
        let mut at = 0;
        for n in sizes {
            op.process(0, &batch(&rows[at..at + n]), &mut out).unwrap();
            at += n;
        }
        let values: Vec<String> = rows_of(&mut out)
            .into_iter()
            .map(|o| o.2.unwrap())
            .collect();
        assert_eq!(values, ["r2", "r5", "r8"], "batches of {sizes:?}");
    }
}

#[test]
fn state_ttl_forgets_a_key_and_turns_equality_suppression_off() {
    let clock = Arc::new(ManualClock::new(1_000));
    let config = StateConfig::memory().with_clock(clock.clone());
    let first = DedupSpec {
        state_ttl: Some(std::time::Duration::from_millis(100)),
        ..spec(shapes()[0])
    };
    let mut op = OperatorPlan::Deduplicate(first)
        .build(&config, None)
        .unwrap();
    let a = |v: &str| batch(&[(Some(1), Some(v.to_string()), 0)]);
    let mut out = Output::new();
    op.process(0, &a("x"), &mut out).unwrap();
    clock.set(1_099);
    op.process(0, &a("y"), &mut out).unwrap();
    clock.set(1_100);
    op.process(0, &a("z"), &mut out).unwrap();
    let values: Vec<String> = rows_of(&mut out)
        .into_iter()
        .map(|o| o.2.unwrap())
        .collect();
    // Keep-first: "y" came while "x" was remembered; "z" after it expired.
    assert_eq!(values, ["x", "z"]);

    let last = DedupSpec {
        keep_last: true,
        state_ttl: Some(std::time::Duration::from_secs(60)),
        ..spec(shapes()[0])
    };
    let mut op = OperatorPlan::Deduplicate(last)
        .build(&config, None)
        .unwrap();
    op.process(0, &a("x"), &mut out).unwrap();
    op.process(0, &a("x"), &mut out).unwrap();
    let kinds: Vec<RowKind> = rows_of(&mut out).into_iter().map(|o| o.0).collect();
    assert_eq!(
        kinds,
        [RowKind::Insert, RowKind::UpdateBefore, RowKind::UpdateAfter]
    );
}

#[test]
fn retractions_and_impossible_plans_are_refused_with_a_reason() {
    let plan = OperatorPlan::Deduplicate(spec(shapes()[0]));
    let mut op = plan.build(&StateConfig::memory(), None).unwrap();
    let rows = batch(&[(Some(1), None, 0), (Some(1), None, 0)]);
    let kinds = arrow::array::Int8Array::from(vec![0, RowKind::Delete.to_byte()]);
    let input = ChangelogBatch::try_new(rows.batch().clone(), Some(kinds)).unwrap();
    let err = op.process(0, &input, &mut Output::new()).unwrap_err();
    assert!(err.to_string().contains("row 1 is -D"), "{err}");

    let refused = |spec: DedupSpec| {
        OperatorPlan::Deduplicate(spec)
            .build(&StateConfig::memory(), None)
            .unwrap_err()
            .to_string()
    };
    let base = spec(shapes()[0]);
    let msg = refused(DedupSpec {
        rowtime_column: Some(1),
        ..base.clone()
    });
    assert!(msg.contains("not a TIMESTAMP"), "{msg}");
    let msg = refused(DedupSpec {
        keys: vec![3],
        ..base.clone()
    });
    assert!(msg.contains("key column 3"), "{msg}");
    let msg = refused(DedupSpec {
        rowtime_column: Some(2),
        keep_last: true,
        output_insert_only: true,
        ..base
    });
    assert!(msg.contains("insert-only output"), "{msg}");
}
