//! The `persistent_interval_join` suite: the production event-time interval join,
//! [`OperatorPlan::IntervalJoin`] (`L.ts BETWEEN R.ts - 100 ms AND R.ts + 100 ms` on a
//! BIGINT key), built, driven, checkpointed and restored through
//! `streamfusion::bench::OperatorLifecycle`, on RocksDB and the memory backend.
//!
//! Each input is `(k BIGINT, ts TIMESTAMP(3), id INT, s STRING)`, sliced at a nonzero offset;
//! `s` is a UTF-8 payload of 8 or 264 bytes, NULL every 7th row. The left input has `rows`
//! rows over 8 keys or one key a row, at times `1,000 + id % 100` ms; the right input one row
//! per even key at 1,050 ms, so every left row of an even key matches once and the output is
//! bounded by the left rows (half of them match). Joins are INNER and LEFT OUTER.
//!
//! Measured boundaries (creation and earlier batches outside timing; a fresh operator per
//! iteration):
//! - `left/<backend>/<shape>`: the left batch into empty state: row and key encoding, the
//!   cache writes and each key's first cleanup timer.
//! - `right/<backend>/<shape>`: the right batch probing the left cache: scans, the matches,
//!   the outer rows' joined flags written back, and its own rows cached.
//! - `expire/<backend>/<shape>`: the end-of-input watermark over both caches: timers, scans,
//!   deletes and (LEFT) the unmatched left rows padded.
//! - `checkpoint/...` and `restore/<backend>/{aligned,rebuilt}/...` (16,384 rows): a
//!   checkpoint of both caches before any watermark, and opening it again (rebuilt: key groups
//!   0..=63 of 128 scanned into a fresh store).
//!
//! The oracle, checked before timing, is the generator's arithmetic: the right batch emits
//! `(left id, right id)` for every left row of an even key; expiry pads exactly the left rows
//! of odd keys (LEFT) or emits nothing (INNER). A restore is checked to keep both caches and
//! the joined flags: the right rows replayed match again, and the end of input pads only
//! the left rows that never matched, once.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Int32Array, Int64Array, RecordBatch,
    TimestampMillisecondArray, UInt32Array,
};
use arrow::datatypes::{Field, Int32Type, Schema};
use bench_support::adapters::{RestoreMode, StoreLifecycle};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{NullPattern, utf8};
use bench_support::{Suite, expect_eq};
use streamfusion::bench::{Backend, OperatorLifecycle, OperatorStore};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::join::JoinType;
use streamfusion::join::TimedJoinInput;
use streamfusion::join::interval::IntervalJoinSpec;
use streamfusion::ops::{OperatorPlan, Output};
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const MAX_PARALLELISM: u32 = 128;
const RIGHT_TIME: i64 = 1_050;

fn main() {
    let mut suite = Suite::new("persistent_interval_join");
    for (backend, name) in [(Backend::Rocksdb, "rocksdb"), (Backend::Memory, "memory")] {
        for shape in Shape::all() {
            arrive_and_expire(&mut suite, backend, name, shape);
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
    /// Keys of the left input: 8, or one a row.
    keys: usize,
    width: usize,
    outer: bool,
}

impl Shape {
    fn all() -> Vec<Shape> {
        let mut shapes = Vec::new();
        for rows in [16, 1_024, 16_384] {
            for keys in [8, rows] {
                for width in [8, 264] {
                    for outer in [false, true] {
                        shapes.push(Shape {
                            rows,
                            keys,
                            width,
                            outer,
                        });
                    }
                }
            }
        }
        shapes
    }

    fn id(self) -> String {
        format!(
            "rows={}/keys={}/width={}/nulls=true/outer={}",
            self.rows,
            if self.keys == self.rows {
                "unique".to_string()
            } else {
                self.keys.to_string()
            },
            self.width,
            self.outer
        )
    }

    /// The key of left row `id`.
    fn key(self, id: usize) -> i64 {
        (id % self.keys) as i64
    }

    /// Side `side`'s rows: `(id, key, time)`. The right input holds each even key once.
    fn rows(self, side: usize) -> Vec<(usize, i64, i64)> {
        match side {
            0 => (0..self.rows)
                .map(|id| (id, self.key(id), 1_000 + (id % 100) as i64))
                .collect(),
            _ => (0..self.keys.min(self.rows))
                .filter(|k| k % 2 == 0)
                .map(|k| (k, k as i64, RIGHT_TIME))
                .collect(),
        }
    }
}

/// Side `side`'s batch, after one leading row sliced off (a nonzero offset).
fn input(shape: Shape, side: usize) -> ChangelogBatch {
    let rows = shape.rows(side);
    let n = rows.len() + 1;
    let at = |r: usize| rows[r.saturating_sub(1)];
    let payload = utf8(n, shape.width, NullPattern::EveryNth(7));
    let order = UInt32Array::from_iter_values((0..n).map(|r| at(r).0 as u32 % n as u32));
    let s: ArrayRef = arrow::compute::take(&payload, &order, None).expect("payload");
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values((0..n).map(|r| at(r).1))),
        Arc::new(TimestampMillisecondArray::from_iter_values(
            (0..n).map(|r| at(r).2),
        )),
        Arc::new(Int32Array::from_iter_values((0..n).map(|r| at(r).0 as i32))),
        s,
    ];
    let fields: Vec<Field> = ["k", "ts", "id", "s"]
        .iter()
        .zip(&columns)
        .map(|(name, c)| Field::new(*name, c.data_type().clone(), true))
        .collect();
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("batch");
    ChangelogBatch::insert_only(batch.slice(1, rows.len()))
}

fn plan(outer: bool) -> OperatorPlan {
    let input = |prefix: &str| TimedJoinInput {
        names: ["k", "ts", "id", "s"]
            .iter()
            .map(|n| format!("{prefix}{n}"))
            .collect(),
        types: vec![
            LogicalType::BigInt,
            LogicalType::Timestamp(3),
            LogicalType::Int,
            LogicalType::VarChar(i32::MAX as u32),
        ],
        keys: vec![0],
        time_column: 1,
    };
    OperatorPlan::IntervalJoin(IntervalJoinSpec {
        join_type: if outer {
            JoinType::Left
        } else {
            JoinType::Inner
        },
        left: input(""),
        right: input("r_"),
        filter_nulls: vec![true],
        condition: None,
        lower_bound: -100,
        upper_bound: 100,
        min_cleanup_interval: 0,
        max_parallelism: MAX_PARALLELISM,
        processing_time: false,
    })
}

/// An output row: the left and right row's id (`None`: padding).
type Out = (Option<i32>, Option<i32>);

/// The right batch's matches, by the generator: each left row of an even key, with the
/// right row of its key (whose id is the key).
fn expected_matches(shape: Shape, owned: &impl Fn(i64) -> bool) -> Vec<Out> {
    let mut out: Vec<Out> = shape
        .rows(0)
        .into_iter()
        .filter(|&(_, k, _)| k % 2 == 0 && owned(k))
        .map(|(id, k, _)| (Some(id as i32), Some(k as i32)))
        .collect();
    out.sort();
    out
}

/// What the end of input emits after the right batch: the left rows of odd keys, padded.
fn expected_padding(shape: Shape, owned: &impl Fn(i64) -> bool) -> Vec<Out> {
    if !shape.outer {
        return Vec::new();
    }
    let mut out: Vec<Out> = shape
        .rows(0)
        .into_iter()
        .filter(|&(_, k, _)| k % 2 == 1 && owned(k))
        .map(|(id, _, _)| (Some(id as i32), None))
        .collect();
    out.sort();
    out
}

fn rows_of(out: &[ChangelogBatch]) -> Vec<Out> {
    let mut rows = Vec::new();
    for b in out {
        let batch = b.batch();
        let (left, right) = (
            batch.column(2).as_primitive::<Int32Type>(),
            batch.column(6).as_primitive::<Int32Type>(),
        );
        for r in 0..b.num_rows() {
            rows.push((
                left.is_valid(r).then(|| left.value(r)),
                right.is_valid(r).then(|| right.value(r)),
            ));
        }
    }
    rows.sort();
    rows
}

struct Fixture {
    lifecycle: OperatorLifecycle,
    shape: Shape,
    batches: [ChangelogBatch; 2],
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        for b in &self.batches {
            b.collect_arrays(out);
        }
    }
}

impl Fixture {
    fn new(backend: Backend, shape: Shape) -> Self {
        Self {
            lifecycle: OperatorLifecycle {
                plan: plan(shape.outer),
                backend,
            },
            shape,
            batches: [input(shape, 0), input(shape, 1)],
        }
    }

    /// A fresh operator holding the first `sides` sides' batches.
    fn after(&self, sides: usize) -> OperatorStore {
        let mut store = self.lifecycle.create().expect("operator");
        for (side, batch) in self.batches[..sides].iter().enumerate() {
            push(&mut store, side, batch);
        }
        store
    }
}

/// A batch into input `side` (the lifecycle's `push` is input 0).
fn push(store: &mut OperatorStore, side: usize, batch: &ChangelogBatch) -> Vec<ChangelogBatch> {
    let mut out = Output::new();
    store.operator.process(side, batch, &mut out).expect("push");
    out.take()
}

fn all(_: i64) -> bool {
    true
}

fn arrive_and_expire(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    suite.stateful(
        &format!("left/{name}/{}", shape.id()),
        move || Fixture::new(backend, shape),
        |f| f.after(0),
        |store, f| push(store, 0, &f.batches[0]),
        |_, out| expect_eq("rows emitted by the left rows", &rows_of(out).len(), &0),
    );
    suite.stateful(
        &format!("right/{name}/{}", shape.id()),
        move || Fixture::new(backend, shape),
        |f| f.after(1),
        |store, f| push(store, 1, &f.batches[1]),
        |f, out| expect_eq("matches", &rows_of(out), &expected_matches(f.shape, &all)),
    );
    suite.stateful(
        &format!("expire/{name}/{}", shape.id()),
        move || Fixture::new(backend, shape),
        |f| f.after(2),
        |store, f| f.lifecycle.fire(store, i64::MAX).expect("expire"),
        |f, out| expect_eq("padding", &rows_of(out), &expected_padding(f.shape, &all)),
    );
}

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
        move || Fixture::new(backend, shape),
        |f| f.after(2),
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
    for (mode_name, restore) in modes {
        let check = restore.clone();
        suite.stateless(
            &format!("restore/{name}/{mode_name}/{}", shape.id()),
            move || {
                let fixture = Fixture::new(backend, shape);
                let mut store = fixture.after(2);
                let checkpoint = fixture
                    .lifecycle
                    .checkpoint(&mut store)
                    .expect("checkpoint");
                Prepared {
                    fixture,
                    checkpoint,
                }
            },
            move |p| {
                p.fixture
                    .lifecycle
                    .restore(std::slice::from_ref(&p.checkpoint), &restore)
                    .expect("restore")
            },
            move |p, store| {
                expect_eq("restored watermark", &store.operator.watermark(), &None)?;
                let f = &p.fixture;
                let mut store = f
                    .lifecycle
                    .restore(std::slice::from_ref(&p.checkpoint), &check)
                    .map_err(|e| e.to_string())?;
                let owned = owned_keys(f.shape, &check);
                // The right rows again: each owned even key's left rows match once more.
                let out = push(&mut store, 1, &owned_rows(f, &owned));
                expect_eq(
                    "restored matches",
                    &rows_of(&out),
                    &expected_matches(f.shape, &owned),
                )?;
                let out = f
                    .lifecycle
                    .fire(&mut store, i64::MAX)
                    .map_err(|e| e.to_string())?;
                expect_eq(
                    "restored padding",
                    &rows_of(&out),
                    &expected_padding(f.shape, &owned),
                )?;
                let again = f
                    .lifecycle
                    .fire(&mut store, i64::MAX)
                    .map_err(|e| e.to_string())?;
                expect_eq("padded again", &rows_of(&again).len(), &0)
            },
        );
    }
}

/// Whether a subtask restored in `mode` owns key `k`.
fn owned_keys(shape: Shape, mode: &RestoreMode) -> impl Fn(i64) -> bool + use<> {
    let range = match *mode {
        RestoreMode::Rebuilt {
            first_key_group,
            last_key_group,
        } => Some(first_key_group..=last_key_group),
        _ => None,
    };
    let keys: ArrayRef = Arc::new(Int64Array::from_iter_values(
        (0..shape.keys as i64).collect::<Vec<_>>(),
    ));
    let groups = streamfusion::keys::KeyHasher::new(vec![LogicalType::BigInt])
        .key_groups(std::slice::from_ref(&keys), MAX_PARALLELISM)
        .expect("key groups");
    let by_key: BTreeMap<i64, u32> = (0..shape.keys).map(|k| (k as i64, groups[k])).collect();
    move |k| match &range {
        None => true,
        Some(range) => by_key.get(&k).is_some_and(|g| range.contains(g)),
    }
}

/// The right rows whose keys the restored subtask owns.
fn owned_rows(f: &Fixture, owned: &impl Fn(i64) -> bool) -> ChangelogBatch {
    let batch = &f.batches[1];
    let keys = batch
        .batch()
        .column(0)
        .as_primitive::<arrow::datatypes::Int64Type>();
    let mine = UInt32Array::from_iter_values(
        (0..batch.num_rows() as u32).filter(|&r| owned(keys.value(r as usize))),
    );
    let columns = batch
        .batch()
        .columns()
        .iter()
        .map(|c| arrow::compute::take(c.as_ref(), &mine, None).expect("take"))
        .collect();
    ChangelogBatch::insert_only(
        RecordBatch::try_new(batch.batch().schema(), columns).expect("owned rows"),
    )
}
