//! The `persistent_window_rank` suite: the production window Top-N and window deduplication,
//! [`OperatorPlan::WindowRank`], built, driven, checkpointed and restored through
//! `streamfusion::bench::OperatorLifecycle`, on RocksDB and the memory backend.
//!
//! Input `(k STRING, v BIGINT, ts TIMESTAMP(3), id INT, p STRING, window_end TIMESTAMP(3))`
//! as a window TVF emits it, sliced at a nonzero offset: rows alternate between two windows
//! (ends 1,000 and 2,000 ms), `v` takes five repeated values (ties), `ts` five repeated
//! times per window, `p` is a UTF-8 payload (Unicode and NUL), and with `nulls` `v` and `p`
//! are NULL at independent rows (NULL sort values follow the others). Modes, each over
//! `PARTITION BY window, k`:
//! - `top1`: `ORDER BY v DESC NULLS LAST`, rank 1, ties to the first arrival, rank output;
//! - `top4`: the same, ranks 1 to 4;
//! - `last`: keep the last row by `ts`, ties to the last arrival (window deduplication).
//!
//! Measured boundaries (creation and the batches before the measured one outside timing;
//! a fresh operator per iteration):
//! - `ingest/<backend>/<mode>/<shape>`: a batch into empty state.
//! - `update/<backend>/<mode>/<shape>`: the same batch again, into the state it left
//!   (every window's kept rows read, ranked and written back).
//! - `fire/<backend>/<mode>/<shape>`: the watermark firing both windows: timers, state
//!   reads and deletes, output with ranks.
//! - `checkpoint/...` and `restore/<backend>/{aligned,rebuilt}/...` (16,384 rows): a
//!   checkpoint after the first window fired (the second pending, watermark 1,500), and
//!   opening it again (rebuilt: key groups 0..=63 of 128 scanned into a fresh store).
//!
//! The oracle, checked before timing, is independent of the operator: row indices grouped
//! by window and key, sorted by NULL placement, value and arrival (or the latest time and
//! arrival), cut to the ranks. Restores are checked to keep the watermark, to drop the
//! replayed rows of the fired window as late, to fire the pending window once with the
//! replayed rows of the open one, and to fire nothing again.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray, UInt32Array,
};
use arrow::datatypes::{Field, Int32Type, Int64Type, Schema, TimestampMillisecondType};
use bench_support::adapters::{RestoreMode, StoreLifecycle};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{NullPattern, utf8};
use bench_support::{Suite, expect_eq};
use streamfusion::bench::{Backend, OperatorLifecycle, OperatorStore};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::OperatorPlan;
use streamfusion::rank::SortKey;
use streamfusion::rank::window::{WindowKeep, WindowRankSpec};
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const MAX_PARALLELISM: u32 = 128;
const ENDS: [i64; 2] = [1_000, 2_000];
/// The watermark of a checkpoint: the first window fired, the second pending.
const CHECKPOINT_WATERMARK: i64 = 1_500;

fn main() {
    let mut suite = Suite::new("persistent_window_rank");
    for (backend, name) in [(Backend::Rocksdb, "rocksdb"), (Backend::Memory, "memory")] {
        for mode in Mode::ALL {
            for shape in Shape::all() {
                ingest_update_fire(&mut suite, backend, name, mode, shape);
                if shape.rows == 16_384 && shape.width == 264 {
                    checkpoint_restore(&mut suite, backend, name, mode, shape);
                }
            }
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Top1,
    Top4,
    Last,
}

impl Mode {
    const ALL: [Mode; 3] = [Mode::Top1, Mode::Top4, Mode::Last];

    fn name(self) -> &'static str {
        match self {
            Mode::Top1 => "top1",
            Mode::Top4 => "top4",
            Mode::Last => "last",
        }
    }

    fn plan(self) -> OperatorPlan {
        let top = |n| WindowKeep::TopN {
            sort: vec![SortKey {
                column: 1,
                ascending: false,
                nulls_last: true,
            }],
            rank_start: 1,
            rank_end: n,
            rank_name: Some("rn".into()),
        };
        let keep = match self {
            Mode::Top1 => top(1),
            Mode::Top4 => top(4),
            Mode::Last => WindowKeep::Deduplicate {
                rowtime_column: 2,
                keep_last: true,
            },
        };
        OperatorPlan::WindowRank(WindowRankSpec {
            input_names: ["k", "v", "ts", "id", "p", "window_end"]
                .map(String::from)
                .to_vec(),
            input_types: vec![
                LogicalType::VarChar(i32::MAX as u32),
                LogicalType::BigInt,
                LogicalType::Timestamp(3),
                LogicalType::Int,
                LogicalType::VarChar(i32::MAX as u32),
                LogicalType::Timestamp(3),
            ],
            partition_keys: vec![0],
            window_end_column: 5,
            keep,
            time_zone: None,
            max_parallelism: MAX_PARALLELISM,
        })
    }
}

#[derive(Debug, Clone, Copy)]
struct Shape {
    rows: usize,
    /// `None`: one key per row.
    keys: Option<usize>,
    width: usize,
    nulls: bool,
}

impl Shape {
    fn all() -> Vec<Shape> {
        let mut shapes = Vec::new();
        for rows in [16, 1_024, 16_384] {
            for keys in [Some(8), None] {
                for width in [8, 264] {
                    for nulls in [false, true] {
                        shapes.push(Shape {
                            rows,
                            keys,
                            width,
                            nulls,
                        });
                    }
                }
            }
        }
        shapes
    }

    fn id(self) -> String {
        let keys = self.keys.map_or("unique".to_string(), |k| k.to_string());
        format!(
            "rows={}/keys={keys}/width={}/nulls={}",
            self.rows, self.width, self.nulls
        )
    }

    fn key(self, row: usize) -> String {
        match self.keys {
            Some(k) => format!("key-{}", row.wrapping_mul(2_654_435_761) % k),
            None => format!("key-{row}"),
        }
    }

    fn value(self, row: usize) -> Option<i64> {
        (!(self.nulls && row % 11 == 10)).then_some((row / 3 % 5) as i64)
    }

    fn time(row: usize) -> i64 {
        ENDS[row % 2] - 1 - (row / 2 % 5) as i64
    }
}

/// The batch: `rows` rows after one leading row, sliced off (a nonzero offset).
fn input(shape: Shape) -> ChangelogBatch {
    let n = shape.rows + 1;
    let at = |r: usize| r.saturating_sub(1);
    let k = StringArray::from_iter_values((0..n).map(|r| shape.key(at(r))));
    let v = Int64Array::from_iter((0..n).map(|r| shape.value(at(r))));
    let ts = TimestampMillisecondArray::from_iter_values((0..n).map(|r| Shape::time(at(r))));
    let id = Int32Array::from_iter_values((0..n).map(|r| at(r) as i32));
    let nulls = if shape.nulls {
        NullPattern::EveryNth(7)
    } else {
        NullPattern::None
    };
    let payloads = utf8(n, shape.width, nulls);
    let order = UInt32Array::from_iter_values((0..n as u32).rev());
    let p: ArrayRef = arrow::compute::take(&payloads, &order, None).expect("payloads");
    let end = TimestampMillisecondArray::from_iter_values((0..n).map(|r| ENDS[at(r) % 2]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(k),
        Arc::new(v),
        Arc::new(ts),
        Arc::new(id),
        p,
        Arc::new(end),
    ];
    let fields: Vec<Field> = ["k", "v", "ts", "id", "p", "window_end"]
        .iter()
        .zip(&columns)
        .map(|(name, c)| Field::new(*name, c.data_type().clone(), true))
        .collect();
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("batch");
    ChangelogBatch::insert_only(batch.slice(1, shape.rows))
}

/// An emitted row: key, window end, input row index, rank (0 for deduplication), payload.
type Out = (String, i64, i32, i64, Option<String>);

/// What firing the windows `ends` emits after `pushes[w]` pushes of the batch into window
/// `w`, by the definitions.
fn expected(shape: Shape, mode: Mode, pushes: [usize; 2], ends: &[i64]) -> Vec<Out> {
    let batch = input(shape);
    let payloads = batch.batch().column(4).as_string::<i32>().clone();
    // (key, end) -> arrivals (row index), in arrival order.
    let mut windows: BTreeMap<(String, i64), Vec<usize>> = BTreeMap::new();
    for (w, &times) in pushes.iter().enumerate() {
        for _ in 0..times {
            for row in (0..shape.rows).filter(|r| r % 2 == w) {
                windows
                    .entry((shape.key(row), ENDS[w]))
                    .or_default()
                    .push(row);
            }
        }
    }
    let mut out = Vec::new();
    for ((key, end), mut rows) in windows {
        if !ends.contains(&end) {
            continue;
        }
        let picked: Vec<(usize, i64)> = match mode {
            Mode::Top1 | Mode::Top4 => {
                // Stable: equal values keep their arrival order; NULLs last.
                rows.sort_by_key(|&r| match shape.value(r) {
                    Some(v) => (0, -v),
                    None => (1, 0),
                });
                let n = if mode == Mode::Top1 { 1 } else { 4 };
                rows.into_iter().take(n).zip(1..).collect()
            }
            Mode::Last => {
                let last = rows.into_iter().max_by_key(|&r| Shape::time(r));
                last.into_iter().map(|r| (r, 1)).collect()
            }
        };
        for (row, rank) in picked {
            let payload = (!payloads.is_null(row)).then(|| payloads.value(row).to_string());
            out.push((key.clone(), end, row as i32, rank, payload));
        }
    }
    out.sort();
    out
}

fn rows_of(out: &[ChangelogBatch], mode: Mode) -> Vec<Out> {
    let mut rows = Vec::new();
    for b in out {
        let batch = b.batch();
        let k = batch.column(0).as_string::<i32>();
        let id = batch.column(3).as_primitive::<Int32Type>();
        let p = batch.column(4).as_string::<i32>();
        let end = batch.column(5).as_primitive::<TimestampMillisecondType>();
        for r in 0..b.num_rows() {
            let rank = match mode {
                Mode::Last => 1,
                _ => batch.column(6).as_primitive::<Int64Type>().value(r),
            };
            rows.push((
                k.value(r).to_string(),
                end.value(r),
                id.value(r),
                rank,
                (!p.is_null(r)).then(|| p.value(r).to_string()),
            ));
        }
    }
    rows.sort();
    rows
}

struct Fixture {
    lifecycle: OperatorLifecycle,
    shape: Shape,
    mode: Mode,
    batch: ChangelogBatch,
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.batch.collect_arrays(out);
    }
}

impl Fixture {
    fn new(backend: Backend, mode: Mode, shape: Shape) -> Self {
        Self {
            lifecycle: OperatorLifecycle {
                plan: mode.plan(),
                backend,
            },
            shape,
            mode,
            batch: input(shape),
        }
    }

    /// A fresh operator holding `pushes` pushes of the batch.
    fn after(&self, pushes: usize) -> OperatorStore {
        let mut store = self.lifecycle.create().expect("operator");
        for _ in 0..pushes {
            self.lifecycle.push(&mut store, &self.batch).expect("push");
        }
        store
    }
}

fn ingest_update_fire(suite: &mut Suite, backend: Backend, name: &str, mode: Mode, shape: Shape) {
    let case = |phase: &str| format!("{phase}/{name}/{}/{}", mode.name(), shape.id());
    for (phase, before) in [("ingest", 0), ("update", 1)] {
        suite.stateful(
            &case(phase),
            move || Fixture::new(backend, mode, shape),
            move |f| f.after(before),
            |store, f| f.lifecycle.push(store, &f.batch).expect("push"),
            // Rows alone emit nothing; what they leave is checked by firing in `fire`.
            |_, out| {
                expect_eq(
                    "rows emitted on ingest",
                    &rows_of(out, Mode::Last).len(),
                    &0,
                )
            },
        );
    }
    suite.stateful(
        &case("fire"),
        move || Fixture::new(backend, mode, shape),
        |f| f.after(2),
        |store, f| f.lifecycle.fire(store, i64::MAX).expect("fire"),
        |f, out| {
            expect_eq(
                "fired windows",
                &rows_of(out, f.mode),
                &expected(f.shape, f.mode, [2, 2], &ENDS),
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

fn checkpoint_restore(suite: &mut Suite, backend: Backend, name: &str, mode: Mode, shape: Shape) {
    let pending = move || {
        let fixture = Fixture::new(backend, mode, shape);
        let mut store = fixture.after(1);
        let fired = fixture
            .lifecycle
            .fire(&mut store, CHECKPOINT_WATERMARK)
            .expect("watermark");
        assert_eq!(
            rows_of(&fired, mode),
            expected(shape, mode, [1, 1], &ENDS[..1]),
            "the first window fires before the checkpoint"
        );
        (fixture, store)
    };
    suite.stateful(
        &format!("checkpoint/{name}/{}/{}", mode.name(), shape.id()),
        move || Fixture::new(backend, mode, shape),
        |f| {
            let mut store = f.after(1);
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
            &format!("restore/{name}/{mode_name}/{}/{}", mode.name(), shape.id()),
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
                expect_eq(
                    "restored watermark",
                    &store.operator.watermark(),
                    &Some(CHECKPOINT_WATERMARK),
                )?;
                let f = &p.fixture;
                let mut store = f
                    .lifecycle
                    .restore(std::slice::from_ref(&p.checkpoint), &check)
                    .map_err(|e| e.to_string())?;
                // The replay's first-window rows are late; its second-window rows join the
                // pending window, which fires once.
                let replayed = f
                    .lifecycle
                    .push(&mut store, &owned_rows(f, &check))
                    .map_err(|e| e.to_string())?;
                expect_eq("rows emitted by the replay", &replayed.len(), &0)?;
                let owned = owned_keys(f.shape, &check);
                let expected: Vec<Out> = expected(f.shape, f.mode, [1, 2], &ENDS[1..])
                    .into_iter()
                    .filter(|o| owned(&o.0))
                    .collect();
                let out = f
                    .lifecycle
                    .fire(&mut store, i64::MAX)
                    .map_err(|e| e.to_string())?;
                expect_eq("restored window fired", &rows_of(&out, f.mode), &expected)?;
                let again = f
                    .lifecycle
                    .fire(&mut store, i64::MAX)
                    .map_err(|e| e.to_string())?;
                expect_eq("fired again", &rows_of(&again, f.mode).len(), &0)
            },
        );
    }
}

/// The key groups a subtask restored in `mode` owns: all, or 0..=63.
fn owned_range(mode: &RestoreMode) -> Option<std::ops::RangeInclusive<u32>> {
    match *mode {
        RestoreMode::Rebuilt {
            first_key_group,
            last_key_group,
        } => Some(first_key_group..=last_key_group),
        _ => None,
    }
}

fn key_groups(keys: &ArrayRef) -> Vec<u32> {
    streamfusion::keys::KeyHasher::new(vec![LogicalType::VarChar(i32::MAX as u32)])
        .key_groups(std::slice::from_ref(keys), MAX_PARALLELISM)
        .expect("key groups")
}

/// The batch's rows whose keys a subtask restored in `mode` owns (what Flink routes to it).
fn owned_rows(f: &Fixture, mode: &RestoreMode) -> ChangelogBatch {
    let Some(range) = owned_range(mode) else {
        return f.batch.clone();
    };
    let groups = key_groups(f.batch.batch().column(0));
    let mine = UInt32Array::from_iter_values(
        (0..f.batch.num_rows() as u32).filter(|&r| range.contains(&groups[r as usize])),
    );
    let columns = f
        .batch
        .batch()
        .columns()
        .iter()
        .map(|c| arrow::compute::take(c.as_ref(), &mine, None).expect("take"))
        .collect();
    ChangelogBatch::insert_only(
        RecordBatch::try_new(f.batch.batch().schema(), columns).expect("owned rows"),
    )
}

/// Whether a subtask restored in `mode` owns a key.
fn owned_keys(shape: Shape, mode: &RestoreMode) -> impl Fn(&String) -> bool + use<> {
    let range = owned_range(mode);
    let keys: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..shape.rows).map(|r| shape.key(r)),
    ));
    let groups = key_groups(&keys);
    let by_key: BTreeMap<String, u32> =
        (0..shape.rows).map(|r| (shape.key(r), groups[r])).collect();
    move |key| match &range {
        None => true,
        Some(range) => by_key.get(key).is_some_and(|g| range.contains(g)),
    }
}
