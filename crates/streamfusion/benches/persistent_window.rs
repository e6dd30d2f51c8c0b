//! The `persistent_window` suite: the production window aggregates,
//! [`OperatorPlan::SessionWindowAggregate`] (SESSION, gap 1 s) and
//! [`OperatorPlan::WindowAggregate`] (TUMBLE, 1 s), built, driven, checkpointed and restored
//! through `streamfusion::bench::OperatorLifecycle`, on RocksDB and the memory backend.
//!
//! Every plan is `COUNT(*), SUM(v)` grouped by a UTF-8 key `k` over `(k STRING, v BIGINT,
//! ts TIMESTAMP(3))`. Three batches give each key rows at 100 ms, then 2,100 ms, then
//! 1,100 ms: two separate sessions per key, then a batch whose rows touch both, so the third
//! phase of every key bridges its two sessions (for TUMBLE: three windows per key).
//!
//! Measured boundaries (operator and store creation, and the batches before the measured
//! one, outside timing; a fresh operator per iteration):
//! - `session/bridge/<backend>/<shape>`: the bridging batch: each key's sessions read, the
//!   first row of a key merges its two sessions (accumulators merged, timers moved), the
//!   rest accumulate into the merged session; state written.
//! - `session/fire/<backend>/<shape>`: the watermark that fires every merged session:
//!   timers, session and accumulator reads and deletes, output.
//! - `session/checkpoint/<backend>/<shape>` and `session/restore/<backend>/{aligned,
//!   rebuilt}/<shape>`: publishing a checkpoint of the pending sessions (after the bridge),
//!   and opening it again (rebuilt: key groups 0..=63 of 128 scanned into a fresh store).
//! - `tumble/ingest/<backend>/<shape>`: the third batch into TUMBLE state (buffered, then
//!   applied by the flush a checkpoint barrier forces), and `tumble/fire/...`, firing all
//!   three windows of every key.
//!
//! Shapes: 16, 1,024 and 16,384 rows per batch; eight keys or one per row (unique keys are
//! NULL every 13th key: one NULL group); 8- or 264-byte keys (embedded NUL, multi-byte
//! characters); `v` NULL every 7th row. Oracles are the generator's own arithmetic: per key,
//! the session `[100, 3100)` (or each TUMBLE window) with its row count and the sum of its
//! non-NULL values, checked before timing; restores are checked to keep the watermark and to
//! fire the restored sessions exactly once.
//!
//! `window_count/rocksdb/<window>/rows=R/keys=low|unique/width=W`: `COUNT(v)` over TUMBLE
//! (10 s), HOP (10 s every 5 s) and CUMULATE (2.5 s steps to 10 s) on RocksDB, through
//! `window_fixtures::window_case`: four batches of R = 16, 1,024 or 8,192 rows, a watermark
//! after each of the first three that closes no window, then the watermark that fires every
//! window, all timed together (buffered rows applied on the trigger, deferred state writes,
//! timers, firing, deletes). Keys are UTF-8 key ids padded to 8 or 256 bytes, eight of them
//! (`low`) or one per row (`unique`), every 13th key id NULL; `v` NULL every 5th row and for
//! the NULL-only key id 0. Each window's count is checked against the model, and the output
//! against the same operator on the memory backend; the end of input must emit nothing more.

mod group_fixtures;
mod window_fixtures;

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray, UInt32Array,
};
use arrow::datatypes::{Field, Int64Type, Schema, TimestampMillisecondType};
use bench_support::adapters::{RestoreMode, StoreLifecycle};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{NullPattern, utf8};
use bench_support::{Suite, expect_eq};
use streamfusion::aggregate::session::SessionWindowAggSpec;
use streamfusion::aggregate::window::{WindowAggSpec, WindowProperty};
use streamfusion::aggregate::{AggCall, AggFunction, GroupAggSpec};
use streamfusion::bench::{Backend, OperatorLifecycle, OperatorStore};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::{OperatorPlan, Output};
use streamfusion::types::LogicalType;
use streamfusion::window::slices::SliceAssigner;

bench_support::counting_allocator!();

const MAX_PARALLELISM: u32 = 128;
const GAP: i64 = 1_000;
/// Each key's row times, batch by batch: the third touches both sessions of the first two.
const PHASES: [i64; 3] = [100, 2_100, 1_100];

fn main() {
    let mut suite = Suite::new("persistent_window");
    for (backend, name) in [(Backend::Rocksdb, "rocksdb"), (Backend::Memory, "memory")] {
        for shape in Shape::all() {
            session_bridge(&mut suite, backend, name, shape);
            session_fire(&mut suite, backend, name, shape);
            tumble(&mut suite, backend, name, shape);
            if shape.rows == 16_384 {
                checkpoint_restore(&mut suite, backend, name, shape);
            }
        }
    }
    window_count(&mut suite);
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

    fn distinct_keys(self) -> usize {
        self.keys.unwrap_or(self.rows)
    }

    /// Row `row`'s key index: its key's position in [`Shape::key_values`].
    fn key(self, row: usize) -> usize {
        match self.keys {
            Some(k) => row.wrapping_mul(2_654_435_761) % k,
            None => row,
        }
    }

    /// The keys: NULL every 13th (only unique shapes reach one).
    fn key_values(self) -> StringArray {
        utf8(self.distinct_keys(), self.width, NullPattern::EveryNth(13))
    }

    /// Row `row`'s value in batch `phase`: NULL every 7th row.
    fn value(row: usize, phase: usize) -> Option<i64> {
        (row % 7 != 6).then(|| (row * 31 + phase * 1_000_003) as i64 - 500_000)
    }
}

fn input(shape: Shape, phase: usize) -> ChangelogBatch {
    let indices = UInt32Array::from_iter_values((0..shape.rows).map(|r| shape.key(r) as u32));
    let k: ArrayRef = arrow::compute::take(&shape.key_values(), &indices, None).expect("keys");
    let v: ArrayRef = Arc::new(Int64Array::from_iter(
        (0..shape.rows).map(|r| Shape::value(r, phase)),
    ));
    let ts: ArrayRef = Arc::new(TimestampMillisecondArray::from_iter_values(
        (0..shape.rows).map(|_| PHASES[phase]),
    ));
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", k.data_type().clone(), true),
        Field::new("v", v.data_type().clone(), true),
        Field::new("ts", ts.data_type().clone(), false),
    ]));
    ChangelogBatch::insert_only(RecordBatch::try_new(schema, vec![k, v, ts]).expect("batch"))
}

fn aggregate() -> GroupAggSpec {
    GroupAggSpec {
        input_names: vec!["k".into(), "v".into(), "ts".into()],
        input_types: vec![
            LogicalType::VarChar(i32::MAX as u32),
            LogicalType::BigInt,
            LogicalType::Timestamp(3),
        ],
        grouping: vec![0],
        calls: vec![
            AggCall::new(AggFunction::CountStar, None, "cnt"),
            AggCall::new(AggFunction::Sum, Some(1), "total"),
        ],
        input_retracts: false,
        generate_update_before: false,
        mini_batch_rows: None,
        state_ttl: None,
        max_parallelism: MAX_PARALLELISM,
    }
}

fn properties() -> Vec<(String, WindowProperty)> {
    vec![
        ("window_start".into(), WindowProperty::Start),
        ("window_end".into(), WindowProperty::End),
    ]
}

fn session_plan() -> OperatorPlan {
    OperatorPlan::SessionWindowAggregate(SessionWindowAggSpec {
        aggregate: aggregate(),
        gap: GAP,
        time_column: 2,
        properties: properties(),
        legacy: false,
        time_zone: None,
    })
}

fn tumble_plan() -> OperatorPlan {
    OperatorPlan::WindowAggregate(WindowAggSpec {
        aggregate: aggregate(),
        window: SliceAssigner::Tumble {
            size: GAP,
            offset: 0,
        },
        time_column: 2,
        properties: properties(),
        time_zone: None,
        legacy: false,
    })
}

/// An emitted window: key, start, end, COUNT(*), SUM(v).
type Window = (Option<String>, i64, i64, i64, Option<i64>);
/// A key's window: key, start, end.
type Bounds = (Option<String>, i64, i64);

/// What firing everything emits, by the generator's arithmetic: per key (and per window
/// of `windows`, one per phase, listed by phase), the rows and the sum of non-NULL values of
/// the `phases` batches.
fn expected(shape: Shape, phases: &[usize], windows: &[(i64, i64)]) -> Vec<Window> {
    let keys = shape.key_values();
    // (key, start, end) -> (rows, sum).
    let mut out: BTreeMap<Bounds, (i64, Option<i64>)> = BTreeMap::new();
    for &phase in phases {
        let (start, end) = windows[phase.min(windows.len() - 1)];
        for row in 0..shape.rows {
            let key = shape.key(row);
            let key = (!keys.is_null(key)).then(|| keys.value(key).to_string());
            let entry = out.entry((key, start, end)).or_insert((0, None));
            entry.0 += 1;
            if let Some(v) = Shape::value(row, phase) {
                entry.1 = Some(entry.1.unwrap_or(0).wrapping_add(v));
            }
        }
    }
    out.into_iter()
        .map(|((k, s, e), (c, v))| (k, s, e, c, v))
        .collect()
}

/// The one merged session of every key.
const SESSION: [(i64, i64); 1] = [(100, 3_100)];
/// The TUMBLE window of each phase.
const TUMBLES: [(i64, i64); 3] = [(0, 1_000), (2_000, 3_000), (1_000, 2_000)];

fn windows_of(out: &[ChangelogBatch]) -> Vec<Window> {
    let mut rows = Vec::new();
    for b in out {
        let batch = b.batch();
        let k = batch.column(0).as_string::<i32>();
        let cnt = batch.column(1).as_primitive::<Int64Type>();
        let sum = batch.column(2).as_primitive::<Int64Type>();
        let start = batch.column(3).as_primitive::<TimestampMillisecondType>();
        let end = batch.column(4).as_primitive::<TimestampMillisecondType>();
        for r in 0..b.num_rows() {
            rows.push((
                (!k.is_null(r)).then(|| k.value(r).to_string()),
                start.value(r),
                end.value(r),
                cnt.value(r),
                (!sum.is_null(r)).then(|| sum.value(r)),
            ));
        }
    }
    rows.sort();
    rows
}

struct Fixture {
    lifecycle: OperatorLifecycle,
    shape: Shape,
    batches: [ChangelogBatch; 3],
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        for b in &self.batches {
            b.collect_arrays(out);
        }
    }
}

impl Fixture {
    fn new(backend: Backend, shape: Shape, plan: OperatorPlan) -> Self {
        Self {
            lifecycle: OperatorLifecycle { plan, backend },
            shape,
            batches: [input(shape, 0), input(shape, 1), input(shape, 2)],
        }
    }

    /// A fresh operator holding the first `phases` batches, applied to state.
    fn after(&self, phases: usize) -> OperatorStore {
        let mut store = self.lifecycle.create().expect("operator");
        for batch in &self.batches[..phases] {
            self.lifecycle.push(&mut store, batch).expect("push");
        }
        store.operator.flush(&mut Output::new()).expect("flush");
        store
    }
}

fn fire_all(store: &mut OperatorStore, f: &Fixture) -> Vec<ChangelogBatch> {
    f.lifecycle.fire(store, i64::MAX).expect("fire")
}

fn session_bridge(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    suite.stateful(
        &format!("session/bridge/{name}/{}", shape.id()),
        || Fixture::new(backend, shape, session_plan()),
        |f| f.after(2),
        |store, f| f.lifecycle.push(store, &f.batches[2]).expect("bridge"),
        // Nothing fires on rows alone; the merged sessions are checked by firing them in
        // `session/fire` (the same state, built by the same calls).
        |_, out| expect_eq("rows emitted by the bridge", &windows_of(out).len(), &0),
    );
}

fn session_fire(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    suite.stateful(
        &format!("session/fire/{name}/{}", shape.id()),
        || Fixture::new(backend, shape, session_plan()),
        |f| f.after(3),
        fire_all,
        move |f, out| {
            expect_eq(
                "merged sessions",
                &windows_of(out),
                &expected(f.shape, &[0, 1, 2], &SESSION),
            )
        },
    );
}

fn tumble(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    suite.stateful(
        &format!("tumble/ingest/{name}/{}", shape.id()),
        || Fixture::new(backend, shape, tumble_plan()),
        |f| f.after(2),
        |store, f| {
            let mut out = f.lifecycle.push(store, &f.batches[2]).expect("push");
            let mut flushed = Output::new();
            store.operator.flush(&mut flushed).expect("flush");
            out.extend(flushed.take());
            out
        },
        |_, out| expect_eq("rows emitted by ingest", &windows_of(out).len(), &0),
    );
    suite.stateful(
        &format!("tumble/fire/{name}/{}", shape.id()),
        || Fixture::new(backend, shape, tumble_plan()),
        |f| f.after(3),
        fire_all,
        move |f, out| {
            expect_eq(
                "windows",
                &windows_of(out),
                &expected(f.shape, &[0, 1, 2], &TUMBLES),
            )
        },
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

/// The watermark in state when checkpointed: before every session's end.
const CHECKPOINT_WATERMARK: i64 = 1_050;

fn checkpoint_restore(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    let pending = || {
        let fixture = Fixture::new(backend, shape, session_plan());
        let mut store = fixture.after(3);
        let fired = fixture
            .lifecycle
            .fire(&mut store, CHECKPOINT_WATERMARK)
            .expect("watermark");
        assert_eq!(windows_of(&fired).len(), 0, "no session ends by then");
        (fixture, store)
    };
    suite.stateful(
        &format!("session/checkpoint/{name}/{}", shape.id()),
        || Fixture::new(backend, shape, session_plan()),
        |f| {
            let mut store = f.after(3);
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
    for (mode_name, mode) in modes {
        let check_mode = mode.clone();
        suite.stateless(
            &format!("session/restore/{name}/{mode_name}/{}", shape.id()),
            || {
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
                    .restore(std::slice::from_ref(&p.checkpoint), &mode)
                    .expect("restore")
            },
            move |p, store| {
                expect_eq(
                    "restored watermark",
                    &store.operator.watermark(),
                    &Some(CHECKPOINT_WATERMARK),
                )?;
                // The restored sessions fire once, with everything accumulated before.
                let mut store = p
                    .fixture
                    .lifecycle
                    .restore(std::slice::from_ref(&p.checkpoint), &check_mode)
                    .map_err(|e| e.to_string())?;
                let owned = owned_keys(p.fixture.shape, &check_mode);
                let expected: Vec<Window> = expected(p.fixture.shape, &[0, 1, 2], &SESSION)
                    .into_iter()
                    .filter(|w| owned(&w.0))
                    .collect();
                let lifecycle = &p.fixture.lifecycle;
                let out = lifecycle
                    .fire(&mut store, i64::MAX)
                    .map_err(|e| e.to_string())?;
                expect_eq("restored sessions fired", &windows_of(&out), &expected)?;
                let again = lifecycle
                    .fire(&mut store, i64::MAX)
                    .map_err(|e| e.to_string())?;
                expect_eq("fired again", &windows_of(&again).len(), &0)
            },
        );
    }
}

/// Whether a subtask restored in `mode` owns a key.
fn owned_keys(shape: Shape, mode: &RestoreMode) -> impl Fn(&Option<String>) -> bool + use<> {
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
    let keys = keys.as_string::<i32>().clone();
    let by_key: BTreeMap<Option<String>, u32> = (0..keys.len())
        .map(|i| {
            (
                (!keys.is_null(i)).then(|| keys.value(i).to_string()),
                groups[i],
            )
        })
        .collect();
    move |key| match &range {
        None => true,
        Some(range) => by_key.get(key).is_some_and(|g| range.contains(g)),
    }
}

/// The `window_count/rocksdb/...` cases (see the module docs).
fn window_count(suite: &mut Suite) {
    use group_fixtures::{V, text};
    use window_fixtures::{Call, Phases, Row, Shape as WindowShape, Store, keyed, keyed_rows};
    let string = LogicalType::VarChar(i32::MAX as u32);
    for shape in WindowShape::SLICED {
        for rows in [16, 1_024, 8_192] {
            // Unique: one key per row of the four batches.
            for (cardinality, keys) in [("low", 8), ("unique", 4 * rows)] {
                for width in [8, 256] {
                    let id = format!(
                        "window_count/rocksdb/{}/rows={rows}/keys={cardinality}/width={width}",
                        shape.name()
                    );
                    window_fixtures::window_case(suite, &id, 1, || {
                        let all = keyed_rows(
                            4 * rows,
                            keys,
                            |k| {
                                if k % 13 == 12 {
                                    V::Null
                                } else {
                                    V::Str(text(k as usize, width))
                                }
                            },
                            |row, _| V::Int(row as i64),
                        );
                        let batches: Vec<Vec<Row>> =
                            all.chunks(rows).map(<[Row]>::to_vec).collect();
                        let mut f = keyed(
                            shape,
                            Phases::One,
                            &string,
                            &LogicalType::BigInt,
                            &[Call::Count],
                            &batches,
                        );
                        // Below every window's end: nothing fires before the last watermark.
                        f.watermarks = vec![Some(0), Some(100), Some(200)];
                        f.store = Store::Rocksdb;
                        f
                    });
                }
            }
        }
    }
}
