//! The `persistent_window_join` suite: the production window join,
//! [`OperatorPlan::WindowJoin`] (INNER on a UTF-8 key), built, driven, checkpointed and
//! restored through `streamfusion::bench::OperatorLifecycle`, on RocksDB and the memory
//! backend.
//!
//! Each input is `(k STRING, v BIGINT, id INT, window_end TIMESTAMP(3))` as a window TVF
//! emits it, sliced at a nonzero offset: one row per key (unique keys bound the output to
//! one row a key), rows alternating between two windows (ends 1,000 and 2,000 ms), `v`
//! NULL every 7th row; the right input holds the same keys in reverse order, every 5th
//! key missing.
//!
//! Measured boundaries (creation and earlier batches outside timing; a fresh operator per
//! iteration):
//! - `left/<backend>/<shape>`: the left batch into empty state.
//! - `right/<backend>/<shape>`: the right batch into the state the left one left.
//! - `fire/<backend>/<shape>`: the watermark firing both windows: timers, both sides' reads
//!   and deletes, the join, output.
//! - `checkpoint/...` and `restore/<backend>/{aligned,rebuilt}/...` (16,384 rows): a
//!   checkpoint after the first window fired (the second pending, watermark 1,500), and
//!   opening it again (rebuilt: key groups 0..=63 of 128 scanned into a fresh store).
//!
//! The oracle, checked before timing, is the generator's arithmetic: each key present on
//! both sides, in the window of its left row, is one output row. A restore is checked to
//! join the pending window once, with the rows of the open window replayed after the
//! restore (no watermark until the next arrives, as Flink's operator), and nothing again.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray, UInt32Array,
};
use arrow::datatypes::{Field, Int32Type, Schema, TimestampMillisecondType};
use bench_support::adapters::{RestoreMode, StoreLifecycle};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{NullPattern, utf8};
use bench_support::{Suite, expect_eq};
use streamfusion::bench::{Backend, OperatorLifecycle, OperatorStore};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::join::JoinType;
use streamfusion::join::window::{WindowJoinInput, WindowJoinSpec};
use streamfusion::ops::{OperatorPlan, Output};
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const MAX_PARALLELISM: u32 = 128;
const ENDS: [i64; 2] = [1_000, 2_000];
/// The watermark of a checkpoint: the first window fired, the second pending.
const CHECKPOINT_WATERMARK: i64 = 1_500;

fn main() {
    let mut suite = Suite::new("persistent_window_join");
    for (backend, name) in [(Backend::Rocksdb, "rocksdb"), (Backend::Memory, "memory")] {
        for shape in Shape::all() {
            arrive_and_fire(&mut suite, backend, name, shape);
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
    width: usize,
}

impl Shape {
    fn all() -> Vec<Shape> {
        let mut shapes = Vec::new();
        for rows in [16, 1_024, 16_384] {
            for width in [8, 264] {
                shapes.push(Shape { rows, width });
            }
        }
        shapes
    }

    fn id(self) -> String {
        format!(
            "rows={}/keys=unique/width={}/nulls=true",
            self.rows, self.width
        )
    }

    /// Key `i` (an index into [`Shape::key_values`]) and its window.
    fn end(i: usize) -> i64 {
        ENDS[i % 2]
    }

    fn key_values(self) -> StringArray {
        utf8(self.rows, self.width, NullPattern::None)
    }

    /// The key indices of side `side`, in arrival order: all on the left; on the right in
    /// reverse, every 5th missing.
    fn keys(self, side: usize) -> Vec<usize> {
        match side {
            0 => (0..self.rows).collect(),
            _ => (0..self.rows).rev().filter(|i| i % 5 != 4).collect(),
        }
    }
}

/// Side `side`'s batch, after one leading row sliced off (a nonzero offset).
fn input(shape: Shape, side: usize) -> ChangelogBatch {
    let keys = shape.keys(side);
    let order = UInt32Array::from_iter_values(
        std::iter::once(keys[0] as u32).chain(keys.iter().map(|&i| i as u32)),
    );
    let k: ArrayRef = arrow::compute::take(&shape.key_values(), &order, None).expect("keys");
    let n = keys.len() + 1;
    let at = |r: usize| keys[r.saturating_sub(1)];
    let v = Int64Array::from_iter((0..n).map(|r| (at(r) % 7 != 6).then_some(at(r) as i64)));
    let id = Int32Array::from_iter_values((0..n).map(|r| at(r) as i32));
    let end = TimestampMillisecondArray::from_iter_values((0..n).map(|r| Shape::end(at(r))));
    let columns: Vec<ArrayRef> = vec![k, Arc::new(v), Arc::new(id), Arc::new(end)];
    let fields: Vec<Field> = ["k", "v", "id", "window_end"]
        .iter()
        .zip(&columns)
        .map(|(name, c)| Field::new(*name, c.data_type().clone(), true))
        .collect();
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("batch");
    ChangelogBatch::insert_only(batch.slice(1, keys.len()))
}

fn plan() -> OperatorPlan {
    let input = |prefix: &str| WindowJoinInput {
        names: ["k", "v", "id", "window_end"]
            .iter()
            .map(|n| format!("{prefix}{n}"))
            .collect(),
        types: vec![
            LogicalType::VarChar(i32::MAX as u32),
            LogicalType::BigInt,
            LogicalType::Int,
            LogicalType::Timestamp(3),
        ],
        keys: vec![0],
        window_end_column: 3,
    };
    OperatorPlan::WindowJoin(WindowJoinSpec {
        join_type: JoinType::Inner,
        left: input(""),
        right: input("r_"),
        filter_nulls: vec![true],
        condition: None,
        time_zone: None,
        max_parallelism: MAX_PARALLELISM,
    })
}

/// A joined row: the left and right row's key index, the window end.
type Out = (i32, i32, i64);

/// What firing the windows `ends` emits, by the generator: every key present on both sides.
fn expected(shape: Shape, ends: &[i64]) -> Vec<Out> {
    let mut out: Vec<Out> = shape
        .keys(1)
        .into_iter()
        .filter(|&i| ends.contains(&Shape::end(i)))
        .map(|i| (i as i32, i as i32, Shape::end(i)))
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
        let end = batch.column(3).as_primitive::<TimestampMillisecondType>();
        for r in 0..b.num_rows() {
            rows.push((left.value(r), right.value(r), end.value(r)));
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
                plan: plan(),
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

fn arrive_and_fire(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    for (phase, side) in [("left", 0), ("right", 1)] {
        suite.stateful(
            &format!("{phase}/{name}/{}", shape.id()),
            move || Fixture::new(backend, shape),
            move |f| f.after(side),
            move |store, f| push(store, side, &f.batches[side]),
            |_, out| expect_eq("rows emitted on arrival", &rows_of(out).len(), &0),
        );
    }
    suite.stateful(
        &format!("fire/{name}/{}", shape.id()),
        move || Fixture::new(backend, shape),
        |f| f.after(2),
        |store, f| f.lifecycle.fire(store, i64::MAX).expect("fire"),
        |f, out| expect_eq("joined windows", &rows_of(out), &expected(f.shape, &ENDS)),
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
    let pending = move || {
        let fixture = Fixture::new(backend, shape);
        let mut store = fixture.after(2);
        let fired = fixture
            .lifecycle
            .fire(&mut store, CHECKPOINT_WATERMARK)
            .expect("watermark");
        assert_eq!(rows_of(&fired), expected(shape, &ENDS[..1]));
        (fixture, store)
    };
    suite.stateful(
        &format!("checkpoint/{name}/{}", shape.id()),
        move || Fixture::new(backend, shape),
        |f| {
            let mut store = f.after(2);
            f.lifecycle
                .fire(&mut store, CHECKPOINT_WATERMARK)
                .expect("watermark");
            store
        },
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
                let (fixture, mut store) = pending();
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
                // The source replays the last watermark, then the open window's right rows
                // again: each pending key matches twice.
                f.lifecycle
                    .fire(&mut store, CHECKPOINT_WATERMARK)
                    .map_err(|e| e.to_string())?;
                let owned = owned_keys(f.shape, &check);
                let replay = owned_rows(f, 1, &owned);
                push(&mut store, 1, &replay);
                let mut expected: Vec<Out> = expected(f.shape, &ENDS[1..])
                    .into_iter()
                    .filter(|o| owned(o.0 as usize))
                    .flat_map(|o| [o, o])
                    .collect();
                expected.sort();
                let out = f
                    .lifecycle
                    .fire(&mut store, i64::MAX)
                    .map_err(|e| e.to_string())?;
                expect_eq("restored window joined", &rows_of(&out), &expected)?;
                let again = f
                    .lifecycle
                    .fire(&mut store, i64::MAX)
                    .map_err(|e| e.to_string())?;
                expect_eq("joined again", &rows_of(&again).len(), &0)
            },
        );
    }
}

/// Whether a subtask restored in `mode` owns key index `i`.
fn owned_keys(shape: Shape, mode: &RestoreMode) -> impl Fn(usize) -> bool + use<> {
    let range = match *mode {
        RestoreMode::Rebuilt {
            first_key_group,
            last_key_group,
        } => Some(first_key_group..=last_key_group),
        _ => None,
    };
    let keys: ArrayRef = Arc::new(shape.key_values());
    let groups = streamfusion::keys::KeyHasher::new(vec![LogicalType::VarChar(i32::MAX as u32)])
        .key_groups(std::slice::from_ref(&keys), MAX_PARALLELISM)
        .expect("key groups");
    let by_key: BTreeMap<usize, u32> = (0..shape.rows).map(|i| (i, groups[i])).collect();
    move |i| match &range {
        None => true,
        Some(range) => by_key.get(&i).is_some_and(|g| range.contains(g)),
    }
}

/// Side `side`'s rows of the open window whose keys the restored subtask owns.
fn owned_rows(f: &Fixture, side: usize, owned: &impl Fn(usize) -> bool) -> ChangelogBatch {
    let batch = &f.batches[side];
    let ids = batch.batch().column(2).as_primitive::<Int32Type>();
    let mine = UInt32Array::from_iter_values((0..batch.num_rows() as u32).filter(|&r| {
        let i = ids.value(r as usize) as usize;
        owned(i) && Shape::end(i) == ENDS[1]
    }));
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
