//! The `persistent_temporal_join` suite: the production event-time temporal join,
//! [`OperatorPlan::TemporalJoin`] (`L JOIN R FOR SYSTEM_TIME AS OF L.ts ON L.k = R.k` on a
//! BIGINT key), built, driven, checkpointed and restored through
//! `streamfusion::bench::OperatorLifecycle`, on RocksDB and the memory backend.
//!
//! Each input is `(k BIGINT, ts TIMESTAMP(3), id INT, s STRING)`, sliced at a nonzero offset;
//! `s` is a UTF-8 payload of 8 or 264 bytes, NULL every 7th row. The left input has `rows`
//! rows over 8 keys or one key a row, at times `1,000 + id % 100` ms; the right input (the
//! versioned table) has two versions of every even key, `+I` at 100 ms and `+U` at 200 ms, so
//! every left row of an even key meets its key's second version and the output is bounded by
//! the left rows. Joins are INNER and LEFT OUTER.
//!
//! Measured boundaries (creation and earlier batches outside timing; a fresh operator per
//! iteration):
//! - `right/<backend>/<shape>`: the versions into empty state: row and key encoding, the
//!   version writes and each key's timer.
//! - `left/<backend>/<shape>`: the left batch after the versions: arrival numbers, the row
//!   writes and the timers moved.
//! - `fire/<backend>/<shape>`: the watermark at 2,000 ms: every key's timer, the scans of its
//!   due rows and versions, the joined (or padded) rows, and the older versions removed.
//! - `retained_left/<backend>/<shape>` (1,024 rows and more): `left` under a state retention
//!   (`table.exec.state.ttl` of an hour): each key's cleanup timer renewed as well.
//! - `cleanup/<backend>/<shape>` (1,024 rows and more): under that retention, processing time
//!   past every key's cleanup timer (each key's rows and versions deleted), then the watermark
//!   at 2,000 ms, whose timers (left behind, as Flink's are) find nothing.
//! - `proctime_probe/<backend>/<shape>` (1,024 rows and more): the same join in processing
//!   time ([`OperatorPlan::ProcTimeTemporalJoin`], Flink's `TemporalProcessTimeJoinOperator`)
//!   holding the versions (each key's latest, the `+U`): the left batch joined as it arrives.
//! - `checkpoint/...` and `restore/<backend>/{aligned,rebuilt}/...` (16,384 rows): a
//!   checkpoint of both inputs' rows before any watermark, and opening it again (rebuilt:
//!   key groups 0..=63 of 128 scanned into a fresh store).
//!
//! The oracle, checked before timing, is the generator's arithmetic: the watermark emits
//! `(left id, id of its key's +U version)` for every left row of an even key and pads the
//! left rows of odd keys (LEFT) or drops them (INNER); nothing is emitted before it, nor by
//! the same watermark after a cleanup. The processing-time join emits the same rows for the
//! left batch. A
//! restore is checked to keep both inputs' rows and timers: the watermark after it emits
//! exactly the owned keys' rows, once.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Int8Array, Int32Array, Int64Array, RecordBatch,
    TimestampMillisecondArray, UInt32Array,
};
use arrow::datatypes::{Field, Int32Type, Schema};
use bench_support::adapters::{RestoreMode, StoreLifecycle};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{NullPattern, utf8};
use bench_support::{Suite, expect_eq};
use streamfusion::bench::{Backend, OperatorLifecycle, OperatorStore};
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::join::JoinType;
use streamfusion::join::TimedJoinInput;
use streamfusion::join::retention::StateRetention;
use streamfusion::join::temporal::TemporalJoinSpec;
use streamfusion::join::temporal_proctime::{KeyedInput, ProcTimeTemporalJoinSpec};
use streamfusion::ops::{OperatorPlan, Output};
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const MAX_PARALLELISM: u32 = 128;
/// The watermark that fires every left row.
const WATERMARK: i64 = 2_000;

fn main() {
    let mut suite = Suite::new("persistent_temporal_join");
    for (backend, name) in [(Backend::Rocksdb, "rocksdb"), (Backend::Memory, "memory")] {
        for shape in Shape::all() {
            arrive_and_fire(&mut suite, backend, name, shape);
            if shape.rows >= 1_024 {
                retained_and_proctime(&mut suite, backend, name, shape);
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

    /// Side `side`'s rows: `(id, key, time)`. The right input holds two versions of each
    /// even key `k`: ids `2k` at 100 ms and `2k + 1` at 200 ms.
    fn rows(self, side: usize) -> Vec<(usize, i64, i64)> {
        match side {
            0 => (0..self.rows)
                .map(|id| (id, self.key(id), 1_000 + (id % 100) as i64))
                .collect(),
            _ => (0..self.keys.min(self.rows))
                .filter(|k| k % 2 == 0)
                .flat_map(|k| [(2 * k, k as i64, 100), (2 * k + 1, k as i64, 200)])
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
    // A right key's second version updates its first.
    let kinds = Int8Array::from_iter_values((0..n).map(|r| match side {
        0 => RowKind::Insert.to_byte(),
        _ if at(r).2 == 200 => RowKind::UpdateAfter.to_byte(),
        _ => RowKind::Insert.to_byte(),
    }));
    ChangelogBatch::try_new(batch, Some(kinds))
        .expect("changelog")
        .slice(1, rows.len())
}

/// The temporal join, LEFT when `outer`, under `state_retention`.
fn plan(outer: bool, state_retention: Option<StateRetention>) -> OperatorPlan {
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
    OperatorPlan::TemporalJoin(TemporalJoinSpec {
        join_type: if outer {
            JoinType::Left
        } else {
            JoinType::Inner
        },
        left: input(""),
        right: input("r_"),
        condition: None,
        max_parallelism: MAX_PARALLELISM,
        state_retention,
    })
}

/// The join in processing time, LEFT when `outer`: the same inputs, no time column read.
fn proctime_plan(outer: bool) -> OperatorPlan {
    let OperatorPlan::TemporalJoin(spec) = plan(outer, None) else {
        unreachable!("an event-time temporal join plan")
    };
    let input = |i: TimedJoinInput| KeyedInput {
        names: i.names,
        types: i.types,
        keys: i.keys,
    };
    OperatorPlan::ProcTimeTemporalJoin(ProcTimeTemporalJoinSpec {
        join_type: spec.join_type,
        left: input(spec.left),
        right: input(spec.right),
        condition: None,
        max_parallelism: MAX_PARALLELISM,
        state_retention: None,
    })
}

/// An output row: the left and right row's id (`None`: padding).
type Out = (Option<i32>, Option<i32>);

/// What the watermark emits, by the generator: each left row of an even key with its key's
/// `+U` version (id `2k + 1`), and (LEFT) each left row of an odd key padded.
fn expected(shape: Shape, owned: &impl Fn(i64) -> bool) -> Vec<Out> {
    let mut out: Vec<Out> = shape
        .rows(0)
        .into_iter()
        .filter(|&(_, k, _)| owned(k) && (k % 2 == 0 || shape.outer))
        .map(|(id, k, _)| {
            let version = (k % 2 == 0).then_some(2 * k as i32 + 1);
            (Some(id as i32), version)
        })
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
        Self::with_retention(backend, shape, None)
    }

    /// The fixture's join in processing time.
    fn proctime(backend: Backend, shape: Shape) -> Self {
        let mut fixture = Self::new(backend, shape);
        fixture.lifecycle.plan = proctime_plan(shape.outer);
        fixture
    }

    /// The fixture under `table.exec.state.ttl` = 1 h.
    fn retained(backend: Backend, shape: Shape) -> Self {
        Self::with_retention(backend, shape, StateRetention::from_ttl(3_600_000))
    }

    fn with_retention(backend: Backend, shape: Shape, retention: Option<StateRetention>) -> Self {
        Self {
            lifecycle: OperatorLifecycle {
                plan: plan(shape.outer, retention),
                backend,
            },
            shape,
            batches: [input(shape, 0), input(shape, 1)],
        }
    }

    /// A fresh operator holding the versions (`inputs` >= 1) and the left rows (2).
    fn after(&self, inputs: usize) -> OperatorStore {
        let mut store = self.lifecycle.create().expect("operator");
        for side in [1, 0].into_iter().take(inputs) {
            push(&mut store, side, &self.batches[side]);
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

fn arrive_and_fire(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    // The versions arrive first: fixtures hold inputs in that order.
    suite.stateful(
        &format!("right/{name}/{}", shape.id()),
        move || Fixture::new(backend, shape),
        |f| f.after(0),
        |store, f| push(store, 1, &f.batches[1]),
        |_, out| expect_eq("rows emitted by the versions", &rows_of(out).len(), &0),
    );
    suite.stateful(
        &format!("left/{name}/{}", shape.id()),
        move || Fixture::new(backend, shape),
        |f| f.after(1),
        |store, f| push(store, 0, &f.batches[0]),
        |_, out| expect_eq("rows emitted by the left rows", &rows_of(out).len(), &0),
    );
    suite.stateful(
        &format!("fire/{name}/{}", shape.id()),
        move || Fixture::new(backend, shape),
        |f| f.after(2),
        |store, f| f.lifecycle.fire(store, WATERMARK).expect("fire"),
        |f, out| expect_eq("joined rows", &rows_of(out), &expected(f.shape, &all)),
    );
}

fn retained_and_proctime(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    suite.stateful(
        &format!("retained_left/{name}/{}", shape.id()),
        move || Fixture::retained(backend, shape),
        |f| f.after(1),
        |store, f| push(store, 0, &f.batches[0]),
        |_, out| expect_eq("rows emitted by the left rows", &rows_of(out).len(), &0),
    );
    suite.stateful(
        &format!("cleanup/{name}/{}", shape.id()),
        move || Fixture::retained(backend, shape),
        |f| f.after(2),
        |store, f| {
            let mut out = Output::new();
            store
                .operator
                .on_processing_time(i64::MAX, &mut out)
                .expect("cleanup");
            let mut emitted = out.take();
            emitted.extend(f.lifecycle.fire(store, WATERMARK).expect("fire"));
            emitted
        },
        |_, out| {
            expect_eq(
                "rows emitted after every key's cleanup",
                &rows_of(out),
                &vec![],
            )
        },
    );
    suite.stateful(
        &format!("proctime_probe/{name}/{}", shape.id()),
        move || Fixture::proctime(backend, shape),
        |f| f.after(1),
        |store, f| push(store, 0, &f.batches[0]),
        |f, out| expect_eq("joined rows", &rows_of(out), &expected(f.shape, &all)),
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
                let out = f
                    .lifecycle
                    .fire(&mut store, WATERMARK)
                    .map_err(|e| e.to_string())?;
                expect_eq(
                    "restored output",
                    &rows_of(&out),
                    &expected(f.shape, &owned),
                )?;
                let again = f
                    .lifecycle
                    .fire(&mut store, WATERMARK + 1)
                    .map_err(|e| e.to_string())?;
                expect_eq("emitted again", &rows_of(&again).len(), &0)
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
