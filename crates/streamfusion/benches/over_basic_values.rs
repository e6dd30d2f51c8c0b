//! The `over_basic_values` suite: the production OVER operator ([`OperatorPlan::OverAggregate`],
//! built and driven through `streamfusion::bench::OperatorLifecycle`) in the four event-time
//! frame shapes, on the memory backend and RocksDB, beside DataFusion's window functions over
//! the same batch.
//!
//! The plan is `SELECT k, v, ts, SUM(v), COUNT(*), MIN(v), MAX(v) OVER (PARTITION BY k ORDER
//! BY ts <frame>) FROM t` over `t(k BIGINT, v BIGINT, ts TIMESTAMP(3))`, with frames `ROWS
//! BETWEEN UNBOUNDED PRECEDING` (`rows_unbounded`), `RANGE BETWEEN UNBOUNDED PRECEDING`
//! (`range_unbounded`), `ROWS BETWEEN 2 PRECEDING` (`rows_bounded`) and `RANGE BETWEEN
//! INTERVAL '0.04' SECOND PRECEDING` (`range_bounded`), all `AND CURRENT ROW`.
//!
//! Measured boundaries (operator and store creation outside timing, a fresh operator per
//! iteration):
//! - `frame/<frame>/<backend>/<shape>`: one batch pushed (key rows and key groups, the
//!   batched read of the partitions' state, rows stored with their timers, the write-back),
//!   then the watermark that fires every row (timers in time order, each partition's state
//!   read once, accumulate and, for bounded frames, retract, the values, the write-back and
//!   the output batch).
//! - `datafusion/<frame>/<shape>`: DataFusion executing `SUM(v) OVER (PARTITION BY k ORDER BY
//!   ts <frame>)` over the same batch, its physical plan built outside timing; `ROWS` frames
//!   only (DataFusion's RANGE over a timestamp takes an interval, which the same comparison
//!   does not need). The target: native `rows_unbounded` on memory within 2x of it at
//!   16,384 rows and 64 partitions. A batch engine's cost beside the streaming operator's,
//!   which also keeps and writes state.
//!
//! Shapes: 64 and 16,384 rows; one or 64 partitions; a nullable BIGINT value (NULL every 7th
//! row) and row times that climb 10 ms every 3 rows, so rows share times (RANGE peers) and
//! a 40 ms range holds about 12 rows.
//!
//! The oracle is a direct computation of every row's frame from the generated rows, never
//! the operator: per partition in time order (ties in arrival order), the rows of the frame
//! summed, counted and compared.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Int64Array, RecordBatch, TimestampMillisecondArray,
};
use arrow::datatypes::{Field, Int64Type, Schema};
use bench_support::adapters::StoreLifecycle;
use bench_support::buffers::ArrowBuffers;
use bench_support::{Suite, Verdict, expect_eq};
use datafusion::execution::TaskContext;
use datafusion::physical_plan::ExecutionPlan;
use streamfusion::aggregate::{AggCall, AggFunction, OverFrame, OverSpec};
use streamfusion::bench::{Backend, OperatorLifecycle, OperatorStore};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::OperatorPlan;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const MAX_PARALLELISM: u32 = 128;
const VALUE_NULLS: usize = 7;
const RANGE_MILLIS: i64 = 40;

fn main() {
    let mut suite = Suite::new("over_basic_values");
    for (backend, name) in [(Backend::Memory, "memory"), (Backend::Rocksdb, "rocksdb")] {
        for shape in Shape::all() {
            for frame in FRAMES {
                native(&mut suite, backend, name, frame, shape);
            }
        }
    }
    for shape in Shape::all() {
        for frame in FRAMES.into_iter().filter(|f| f.rows()) {
            peer(&mut suite, frame, shape);
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    RowsUnbounded,
    RangeUnbounded,
    RowsBounded,
    RangeBounded,
}

const FRAMES: [Frame; 4] = [
    Frame::RowsUnbounded,
    Frame::RangeUnbounded,
    Frame::RowsBounded,
    Frame::RangeBounded,
];

impl Frame {
    fn id(self) -> &'static str {
        match self {
            Frame::RowsUnbounded => "rows_unbounded",
            Frame::RangeUnbounded => "range_unbounded",
            Frame::RowsBounded => "rows_bounded",
            Frame::RangeBounded => "range_bounded",
        }
    }

    fn rows(self) -> bool {
        matches!(self, Frame::RowsUnbounded | Frame::RowsBounded)
    }

    fn native(self) -> OverFrame {
        match self {
            Frame::RowsUnbounded => OverFrame::RowsUnbounded,
            Frame::RangeUnbounded => OverFrame::RangeUnbounded,
            Frame::RowsBounded => OverFrame::RowsBounded { rows: 3 },
            Frame::RangeBounded => OverFrame::RangeBounded {
                millis: RANGE_MILLIS,
            },
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Shape {
    rows: usize,
    keys: usize,
}

impl Shape {
    fn all() -> Vec<Shape> {
        let mut shapes = Vec::new();
        for rows in [64, 16_384] {
            for keys in [1, 64] {
                shapes.push(Shape { rows, keys });
            }
        }
        shapes
    }

    fn id(self) -> String {
        format!("rows={}/keys={}", self.rows, self.keys)
    }
}

/// A row as the output shows it: key, time, value.
type RowKey = (i64, i64, Option<i64>);

/// A generated row: key, value, row time, arrival.
#[derive(Debug, Clone, Copy)]
struct Row {
    k: i64,
    v: Option<i64>,
    ts: i64,
}

/// `SUM(v)`, `COUNT(*)`, `MIN(v)`, `MAX(v)` of one output row.
type Values = [Option<i64>; 4];

struct Generated {
    rows: Vec<Row>,
    batch: ChangelogBatch,
}

impl ArrowBuffers for Generated {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.batch.collect_arrays(out);
    }
}

fn generate(shape: Shape) -> Generated {
    let rows: Vec<Row> = (0..shape.rows)
        .map(|i| {
            let mixed = bench_support::fixtures::mix(i as u64, 1);
            Row {
                k: (mixed % shape.keys as u64) as i64,
                v: (i % VALUE_NULLS != 0).then(|| (mixed >> 8) as i64 % 1_000 - 500),
                ts: 1_000 + 10 * (i as i64 / 3),
            }
        })
        .collect();
    let schema = Schema::new(vec![
        Field::new("k", arrow::datatypes::DataType::Int64, true),
        Field::new("v", arrow::datatypes::DataType::Int64, true),
        Field::new("ts", LogicalType::Timestamp(3).to_arrow(), true),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(rows.iter().map(|r| Some(r.k)).collect::<Int64Array>()),
        Arc::new(rows.iter().map(|r| r.v).collect::<Int64Array>()),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.ts))
                .collect::<TimestampMillisecondArray>(),
        ),
    ];
    let batch = RecordBatch::try_new(Arc::new(schema), columns).expect("batch");
    Generated {
        rows,
        batch: ChangelogBatch::insert_only(batch),
    }
}

fn spec(frame: Frame) -> OverSpec {
    OverSpec {
        input_names: ["k", "v", "ts"].map(String::from).to_vec(),
        input_types: vec![
            LogicalType::BigInt,
            LogicalType::BigInt,
            LogicalType::Timestamp(3),
        ],
        partition_keys: vec![0],
        time_column: 2,
        frame: frame.native(),
        calls: vec![
            AggCall::new(AggFunction::Sum, Some(1), "s"),
            AggCall::new(AggFunction::CountStar, None, "c"),
            AggCall::new(AggFunction::Min, Some(1), "mn"),
            AggCall::new(AggFunction::Max, Some(1), "mx"),
        ],
        max_parallelism: MAX_PARALLELISM,
        processing_time: false,
    }
}

/// Every row's values by its index in `rows`, each frame computed directly.
fn expected(frame: Frame, rows: &[Row]) -> BTreeMap<usize, Values> {
    let mut partitions: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        partitions.entry(r.k).or_default().push(i);
    }
    let mut out = BTreeMap::new();
    for mut order in partitions.into_values() {
        order.sort_by_key(|&i| (rows[i].ts, i));
        for (at, &i) in order.iter().enumerate() {
            let t = rows[i].ts;
            let members: Vec<&Row> = match frame {
                Frame::RowsUnbounded => order[..=at].iter().map(|&j| &rows[j]).collect(),
                Frame::RowsBounded => order[at.saturating_sub(2)..=at]
                    .iter()
                    .map(|&j| &rows[j])
                    .collect(),
                Frame::RangeUnbounded | Frame::RangeBounded => order
                    .iter()
                    .map(|&j| &rows[j])
                    .filter(|r| {
                        r.ts <= t && (frame == Frame::RangeUnbounded || t - r.ts <= RANGE_MILLIS)
                    })
                    .collect(),
            };
            let values: Vec<i64> = members.iter().filter_map(|r| r.v).collect();
            out.insert(
                i,
                [
                    (!values.is_empty()).then(|| values.iter().sum()),
                    Some(members.len() as i64),
                    values.iter().min().copied(),
                    values.iter().max().copied(),
                ],
            );
        }
    }
    out
}

struct Fixture {
    lifecycle: OperatorLifecycle,
    input: Generated,
    expected: BTreeMap<usize, Values>,
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

/// The arrival index of each row: rows are told apart by (key, time, value) in order of
/// arrival, which the oracle's map from a row to its values needs.
fn check_native(f: &Fixture, out: &[ChangelogBatch]) -> Verdict {
    let mut by_row: BTreeMap<RowKey, Vec<usize>> = BTreeMap::new();
    for (i, r) in f.input.rows.iter().enumerate() {
        by_row.entry((r.k, r.ts, r.v)).or_default().push(i);
    }
    let mut got = BTreeMap::new();
    for b in out {
        expect_eq("insert-only output", &b.is_insert_only(), &true)?;
        let batch = b.batch();
        let long = |c: usize| batch.column(c).as_primitive::<Int64Type>();
        let ts = batch
            .column(2)
            .as_primitive::<arrow::datatypes::TimestampMillisecondType>();
        for r in 0..b.num_rows() {
            let opt = |c: usize| (!long(c).is_null(r)).then(|| long(c).value(r));
            let key = (long(0).value(r), ts.value(r), opt(1));
            let arrivals = by_row
                .get_mut(&key)
                .ok_or_else(|| format!("an output row {key:?} that was not input"))?;
            if arrivals.is_empty() {
                return Err(format!("row {key:?} emitted more often than input"));
            }
            let i = arrivals.remove(0);
            got.insert(i, [opt(3), opt(4), opt(5), opt(6)]);
        }
    }
    expect_eq("values of every row", &got, &f.expected)
}

fn native(suite: &mut Suite, backend: Backend, name: &str, frame: Frame, shape: Shape) {
    suite.stateful(
        &format!("frame/{}/{name}/{}", frame.id(), shape.id()),
        || {
            let input = generate(shape);
            Fixture {
                lifecycle: OperatorLifecycle {
                    plan: OperatorPlan::OverAggregate(spec(frame)),
                    backend,
                },
                expected: expected(frame, &input.rows),
                input,
            }
        },
        |f: &Fixture| -> OperatorStore { f.lifecycle.create().expect("operator") },
        |store, f| {
            let mut out = f.lifecycle.push(store, &f.input.batch).expect("push");
            out.extend(f.lifecycle.fire(store, i64::MAX).expect("fire"));
            out
        },
        |f, out: &Vec<ChangelogBatch>| check_native(f, out),
    );
}

// ---- The DataFusion peer. ----

struct PeerPlan {
    plan: Arc<dyn ExecutionPlan>,
    task: Arc<TaskContext>,
    input: RecordBatch,
    /// `SUM(v)` of each row, by (key, time, value) in arrival order.
    expected: BTreeMap<RowKey, Vec<Option<i64>>>,
}

impl ArrowBuffers for PeerPlan {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

fn peer_plan(frame: Frame, shape: Shape) -> PeerPlan {
    use datafusion::functions_aggregate::sum::sum_udaf;
    use datafusion::logical_expr::expr::WindowFunction;
    use datafusion::logical_expr::{
        Expr, ExprFunctionExt, WindowFrame, WindowFrameBound, WindowFunctionDefinition,
    };
    use datafusion::prelude::{SessionConfig, SessionContext, col};
    use datafusion::scalar::ScalarValue;

    let generated = generate(shape);
    // A row number breaks ties of time by arrival, as the streaming operator's order does.
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..shape.rows as i64));
    let mut fields: Vec<Field> = generated
        .batch
        .batch()
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("id", arrow::datatypes::DataType::Int64, false));
    let mut columns = generated.batch.batch().columns().to_vec();
    columns.push(ids);
    let input = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("batch");
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
    let start = match frame {
        Frame::RowsUnbounded => WindowFrameBound::Preceding(ScalarValue::UInt64(None)),
        _ => WindowFrameBound::Preceding(ScalarValue::UInt64(Some(2))),
    };
    let window = WindowFrame::new_bounds(
        datafusion::logical_expr::WindowFrameUnits::Rows,
        start,
        WindowFrameBound::CurrentRow,
    );
    let running = Expr::from(WindowFunction::new(
        WindowFunctionDefinition::AggregateUDF(sum_udaf()),
        vec![col("v")],
    ))
    .partition_by(vec![col("k")])
    .order_by(vec![
        col("ts").sort(true, false),
        col("id").sort(true, false),
    ])
    .window_frame(window)
    .build()
    .expect("SUM OVER")
    .alias("s");
    let df = ctx
        .read_batch(input.clone())
        .expect("read batch")
        .window(vec![running])
        .expect("window");
    let plan = futures::executor::block_on(df.create_physical_plan()).expect("plan");
    let values = expected(frame, &generated.rows);
    let mut expected: BTreeMap<_, Vec<Option<i64>>> = BTreeMap::new();
    for (i, r) in generated.rows.iter().enumerate() {
        expected
            .entry((r.k, r.ts, r.v))
            .or_default()
            .push(values[&i][0]);
    }
    PeerPlan {
        plan,
        task: ctx.task_ctx(),
        input,
        expected,
    }
}

fn execute(p: &PeerPlan) -> Vec<RecordBatch> {
    futures::executor::block_on(datafusion::physical_plan::collect(
        p.plan.clone(),
        p.task.clone(),
    ))
    .expect("collect")
}

fn peer(suite: &mut Suite, frame: Frame, shape: Shape) {
    suite.stateless(
        &format!("datafusion/{}/{}", frame.id(), shape.id()),
        || peer_plan(frame, shape),
        execute,
        |p, out| {
            // Rows by arrival (the `id` column) within each (key, time, value).
            let mut got: BTreeMap<RowKey, BTreeMap<i64, Option<i64>>> = BTreeMap::new();
            for b in out {
                let column = |name: &str| {
                    b.column_by_name(name)
                        .ok_or_else(|| format!("no column {name} in {:?}", b.schema()))
                };
                let k = column("k")?.as_primitive::<Int64Type>();
                let v = column("v")?.as_primitive::<Int64Type>();
                let ts = column("ts")?.as_primitive::<arrow::datatypes::TimestampMillisecondType>();
                let id = column("id")?.as_primitive::<Int64Type>();
                let s = column("s")?.as_primitive::<Int64Type>();
                for r in 0..b.num_rows() {
                    let key = (k.value(r), ts.value(r), (!v.is_null(r)).then(|| v.value(r)));
                    got.entry(key)
                        .or_default()
                        .insert(id.value(r), (!s.is_null(r)).then(|| s.value(r)));
                }
            }
            let got: BTreeMap<_, Vec<Option<i64>>> = got
                .into_iter()
                .map(|(k, by_id)| (k, by_id.into_values().collect()))
                .collect();
            expect_eq("SUM of every row", &got, &p.expected)
        },
    );
}
