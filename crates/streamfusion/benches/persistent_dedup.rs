//! The `persistent_dedup` suite: the production deduplication operator
//! ([`OperatorPlan::Deduplicate`], built, driven, checkpointed and restored through
//! `streamfusion::bench::OperatorLifecycle`) on RocksDB and the memory backend.
//!
//! Measured boundaries (operator and store creation outside timing; a fresh one per
//! iteration):
//! - `keep_first/pending_fire/<backend>/<shape>`: rowtime keep-first with insert-only output
//!   (Flink's `RowTimeDeduplicateKeepFirstRowFunction`): one batch of candidates, then the
//!   watermark that fires them: key rows and key groups, state reads and writes, timers,
//!   firing, output decoding.
//! - `keep_first/emitted/<backend>/<shape>`: the same plan after the first batch has fired
//!   (outside timing), then a second batch of later rows for the same keys: every row is
//!   suppressed by its key's emitted marker, nothing is emitted.
//! - `proctime/{first,last}/<backend>/<shape>`: proctime keep-first (`+I` of first rows) and
//!   keep-last (`+I`, `-U`/`+U`) over one batch.
//! - `checkpoint/<backend>/<shape>` and `restore/<backend>/{aligned,rebuilt}/<shape>`:
//!   publishing a checkpoint of keep-first state with pending and emitted keys, and opening it
//!   again (rebuilt: key groups 0..=63 of 128 scanned into a fresh store).
//!
//! Shapes: 16, 1,024 and 16,384 rows; eight keys or one per row; nullable 8- or 264-byte
//! UTF-8 payloads (embedded NUL, multi-byte characters; NULL every 13th row); rowtimes out
//! of order with ties. Oracles are the generator's own arithmetic: each key's earliest row
//! (ties to the first arrival), first row, or last row.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Int64Array, RecordBatch, TimestampMillisecondArray,
};
use arrow::datatypes::{Field, Int64Type, Schema, TimestampMillisecondType};
use bench_support::adapters::{RestoreMode, StoreLifecycle};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{NullPattern, utf8};
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion::bench::{Backend, OperatorLifecycle, OperatorStore};
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::deduplicate::DedupSpec;
use streamfusion::ops::OperatorPlan;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const MAX_PARALLELISM: u32 = 128;

fn main() {
    let mut suite = Suite::new("persistent_dedup");
    for (backend, name) in [(Backend::Rocksdb, "rocksdb"), (Backend::Memory, "memory")] {
        for shape in Shape::all() {
            pending_fire(&mut suite, backend, name, shape);
            emitted(&mut suite, backend, name, shape);
            for keep_last in [false, true] {
                proctime(&mut suite, backend, name, shape, keep_last);
            }
            if shape.rows == 16_384 {
                checkpoint_restore(&mut suite, backend, name, shape);
            }
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy)]
struct Shape {
    rows: usize,
    /// `None`: one key per row.
    keys: Option<usize>,
    width: usize,
}

impl Shape {
    fn all() -> Vec<Shape> {
        let mut shapes = Vec::new();
        for rows in [16, 1_024, 16_384] {
            for keys in [Some(8), None] {
                for width in [8, 264] {
                    shapes.push(Shape { rows, keys, width });
                }
            }
        }
        shapes
    }

    fn id(self) -> String {
        let keys = self.keys.map_or("unique".to_string(), |k| k.to_string());
        format!(
            "rows={}/keys={keys}/width={}/nulls=true",
            self.rows, self.width
        )
    }

    fn key(self, row: usize) -> i64 {
        match self.keys {
            Some(k) => (row.wrapping_mul(2_654_435_761) % k) as i64,
            None => row as i64,
        }
    }

    /// Row `row`'s rowtime: out of order, with ties (`start` shifts a later batch).
    fn time(self, row: usize, start: i64) -> i64 {
        start + ((row * 7_919) % (self.rows / 2 + 1)) as i64
    }
}

fn input(shape: Shape, start: i64) -> ChangelogBatch {
    let k: ArrayRef = Arc::new(Int64Array::from_iter_values(
        (0..shape.rows).map(|r| shape.key(r)),
    ));
    let v: ArrayRef = Arc::new(utf8(shape.rows, shape.width, NullPattern::EveryNth(13)));
    let rt: ArrayRef = Arc::new(TimestampMillisecondArray::from_iter_values(
        (0..shape.rows).map(|r| shape.time(r, start)),
    ));
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", k.data_type().clone(), false),
        Field::new("v", v.data_type().clone(), true),
        Field::new("rt", rt.data_type().clone(), false),
    ]));
    ChangelogBatch::insert_only(RecordBatch::try_new(schema, vec![k, v, rt]).expect("batch"))
}

fn plan(rowtime: bool, keep_last: bool) -> OperatorPlan {
    OperatorPlan::Deduplicate(DedupSpec {
        input_names: vec!["k".into(), "v".into(), "rt".into()],
        input_types: vec![
            LogicalType::BigInt,
            LogicalType::VarChar(i32::MAX as u32),
            LogicalType::Timestamp(3),
        ],
        keys: vec![0],
        rowtime_column: rowtime.then_some(2),
        keep_last,
        generate_update_before: true,
        generate_insert: true,
        output_insert_only: rowtime && !keep_last,
        mini_batch_rows: None,
        state_ttl: None,
        max_parallelism: MAX_PARALLELISM,
    })
}

/// Which row of each key the plan keeps, by the generator: the earliest (the first arrival
/// among ties), the first or the last.
fn kept_rows(shape: Shape, which: Which) -> BTreeMap<i64, usize> {
    let mut kept: BTreeMap<i64, usize> = BTreeMap::new();
    for row in 0..shape.rows {
        let k = shape.key(row);
        match (which, kept.get(&k)) {
            (_, None) | (Which::Last, Some(_)) => {
                kept.insert(k, row);
            }
            (Which::Earliest, Some(&r)) if shape.time(row, 0) < shape.time(r, 0) => {
                kept.insert(k, row);
            }
            _ => {}
        }
    }
    kept
}

#[derive(Debug, Clone, Copy)]
enum Which {
    Earliest,
    First,
    Last,
}

struct Fixture {
    lifecycle: OperatorLifecycle,
    input: ChangelogBatch,
    later: ChangelogBatch,
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
        self.later.collect_arrays(out);
    }
}

impl Fixture {
    fn new(backend: Backend, shape: Shape, plan: OperatorPlan) -> Self {
        Self {
            lifecycle: OperatorLifecycle { plan, backend },
            input: input(shape, 0),
            later: input(shape, 1_000_000),
        }
    }

    fn fresh(&self) -> OperatorStore {
        self.lifecycle.create().expect("operator")
    }

    /// An operator whose every key of the first batch has fired.
    fn fired(&self) -> OperatorStore {
        let mut store = self.fresh();
        self.lifecycle.push(&mut store, &self.input).expect("push");
        self.lifecycle
            .fire(&mut store, 500_000)
            .expect("fire the first batch");
        store
    }
}

/// The `(kind, key, rowtime, value)` rows of `out`.
fn rows_of(out: &[ChangelogBatch]) -> Vec<(RowKind, i64, i64, Option<String>)> {
    let mut rows = Vec::new();
    for b in out {
        let batch = b.batch();
        let k = batch.column(0).as_primitive::<Int64Type>();
        let v = batch.column(1).as_string::<i32>();
        let rt = batch.column(2).as_primitive::<TimestampMillisecondType>();
        for r in 0..b.num_rows() {
            let value = (!v.is_null(r)).then(|| v.value(r).to_string());
            rows.push((b.kind(r), k.value(r), rt.value(r), value));
        }
    }
    rows
}

/// `out` holds exactly one `+I` of each kept row.
fn check_kept(f: &Fixture, shape: Shape, which: Which, out: &[ChangelogBatch]) -> Verdict {
    let values = f.input.batch().column(1).as_string::<i32>();
    let expected: BTreeMap<i64, (RowKind, i64, Option<String>)> = kept_rows(shape, which)
        .into_iter()
        .map(|(k, row)| {
            let value = (!values.is_null(row)).then(|| values.value(row).to_string());
            (k, (RowKind::Insert, shape.time(row, 0), value))
        })
        .collect();
    let rows = rows_of(out);
    expect_eq("rows emitted", &rows.len(), &expected.len())?;
    let got: BTreeMap<i64, (RowKind, i64, Option<String>)> = rows
        .into_iter()
        .map(|(kind, k, rt, v)| (k, (kind, rt, v)))
        .collect();
    expect_eq("kept rows", &got, &expected)
}

fn pending_fire(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    suite.stateful(
        &format!("keep_first/pending_fire/{name}/{}", shape.id()),
        || Fixture::new(backend, shape, plan(true, false)),
        Fixture::fresh,
        |store, f| {
            let mut out = f.lifecycle.push(store, &f.input).expect("push");
            out.extend(f.lifecycle.fire(store, i64::MAX).expect("fire"));
            out
        },
        |f, out| check_kept(f, shape, Which::Earliest, out),
    );
}

fn emitted(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    suite.stateful(
        &format!("keep_first/emitted/{name}/{}", shape.id()),
        || Fixture::new(backend, shape, plan(true, false)),
        Fixture::fired,
        |store, f| {
            let mut out = f.lifecycle.push(store, &f.later).expect("push");
            out.extend(f.lifecycle.fire(store, i64::MAX).expect("fire"));
            out
        },
        |_, out| expect_eq("rows emitted after the markers", &rows_of(out).len(), &0),
    );
}

fn proctime(suite: &mut Suite, backend: Backend, name: &str, shape: Shape, keep_last: bool) {
    let which = if keep_last { "last" } else { "first" };
    suite.stateful(
        &format!("proctime/{which}/{name}/{}", shape.id()),
        || Fixture::new(backend, shape, plan(false, keep_last)),
        Fixture::fresh,
        |store, f| f.lifecycle.push(store, &f.input).expect("push"),
        move |f, out| {
            if !keep_last {
                return check_kept(f, shape, Which::First, out);
            }
            // Keep-last: the upsert result is each key's last row, and every update comes
            // as a -U/+U pair after the key's one +I.
            let rows = rows_of(out);
            let inserts = rows.iter().filter(|r| r.0 == RowKind::Insert).count();
            let befores = rows.iter().filter(|r| r.0 == RowKind::UpdateBefore).count();
            let afters = rows.iter().filter(|r| r.0 == RowKind::UpdateAfter).count();
            let kept = kept_rows(shape, Which::Last);
            expect_eq("+I rows", &inserts, &kept.len())?;
            expect_eq("-U and +U rows", &befores, &afters)?;
            let mut last: BTreeMap<i64, i64> = BTreeMap::new();
            for (kind, k, rt, _) in rows {
                if kind.is_accumulate() {
                    last.insert(k, rt);
                }
            }
            let expected: BTreeMap<i64, i64> = kept
                .into_iter()
                .map(|(k, r)| (k, shape.time(r, 0)))
                .collect();
            expect_eq("last rows", &last, &expected)
        },
    );
}

/// Keep-first state with emitted keys (the first batch fired) and pending ones (the later
/// batch's rows are suppressed; a third set of keys waits).
struct Prepared {
    fixture: Fixture,
    checkpoint: <OperatorLifecycle as StoreLifecycle>::Checkpoint,
}

impl ArrowBuffers for Prepared {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.fixture.collect_arrays(out);
    }
}

fn checkpoint_restore(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    suite.stateful(
        &format!("checkpoint/{name}/{}", shape.id()),
        || Fixture::new(backend, shape, plan(true, false)),
        Fixture::fired,
        |store, f| f.lifecycle.checkpoint(store).expect("checkpoint"),
        |_, c| expect_eq("published", &c.checkpoint.path().exists(), &true),
    );
    let modes = [
        ("aligned", RestoreMode::Aligned),
        (
            "rebuilt",
            RestoreMode::Rebuilt {
                first_key_group: 0,
                last_key_group: 63,
            },
        ),
    ];
    for (mode_name, mode) in modes {
        let check_mode = mode.clone();
        suite.stateless(
            &format!("restore/{name}/{mode_name}/{}", shape.id()),
            || {
                let fixture = Fixture::new(backend, shape, plan(true, false));
                let mut store = fixture.fired();
                let checkpoint = fixture
                    .lifecycle
                    .checkpoint(&mut store)
                    .expect("checkpoint");
                Prepared {
                    fixture,
                    checkpoint,
                }
            },
            |p| {
                p.fixture
                    .lifecycle
                    .restore(std::slice::from_ref(&p.checkpoint), &mode)
                    .expect("restore")
            },
            move |p, store| {
                // Flink's timer service restarts without a watermark (decision 0030).
                expect_eq("restored watermark", &store.operator.watermark(), &None)?;
                // The restored keys are emitted: their later rows emit nothing.
                let mut store = p
                    .fixture
                    .lifecycle
                    .restore(std::slice::from_ref(&p.checkpoint), &check_mode)
                    .map_err(|e| e.to_string())?;
                let later = owned_rows(&p.fixture.later, &check_mode);
                let out = p
                    .fixture
                    .lifecycle
                    .push(&mut store, &later)
                    .map_err(|e| e.to_string())?;
                expect_eq("later rows", &(later.num_rows() > 0), &true)?;
                expect_eq("rows emitted after restore", &rows_of(&out).len(), &0)
            },
        );
    }
}

/// The rows of `batch` whose keys a subtask restored in `mode` owns.
fn owned_rows(batch: &ChangelogBatch, mode: &RestoreMode) -> ChangelogBatch {
    let RestoreMode::Rebuilt {
        first_key_group,
        last_key_group,
    } = *mode
    else {
        return batch.clone();
    };
    let groups = streamfusion::keys::KeyHasher::new(vec![LogicalType::BigInt])
        .key_groups(&[batch.batch().column(0).clone()], MAX_PARALLELISM)
        .expect("key groups");
    let keep: arrow::array::BooleanArray = groups
        .iter()
        .map(|&g| Some((first_key_group..=last_key_group).contains(&g)))
        .collect();
    let rows = arrow::compute::filter_record_batch(batch.batch(), &keep).expect("filter");
    ChangelogBatch::insert_only(rows)
}
