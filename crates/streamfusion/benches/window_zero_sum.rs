//! The `window_zero_sum` suite: window aggregation's COUNT(*)/`$SUM0` update and final
//! flush, through the production operator ([`OperatorPlan::WindowAggregate`], built and
//! driven by its `Operator` entry points), beside DataFusion's hash aggregation of the same
//! batch grouped by `date_bin` window start and key.
//!
//! Measured boundaries:
//! - `update_flush/<type>/rows=R/keys=K`: one batch of R rows of a 10-second TUMBLE window
//!   into a fresh operator on the memory backend (created outside timing), then the
//!   watermark that fires the window: grouping, accumulation, state write, firing, output
//!   construction and disposal.
//! - `peer/datafusion/bigint/rows=R/keys=K`: DataFusion's `AggregateExec` (single mode)
//!   computing `COUNT(*)`, `SUM(v)` grouped by `date_bin(10 s, ts)` and `k` over the same
//!   BIGINT batch.
//!
//! Fixtures: nullable BIGINT, DECIMAL(38, 2), FLOAT and DOUBLE values (NULL every 5th row,
//! and every value of key 0 NULL in the multi-key cases: a NULL-only group sums to a typed
//! zero); 256 and 4,096 rows; one, 64 and all-distinct BIGINT keys. Values are small
//! integers or quarters, so every sum is exact in each type; each key's count and sum are
//! checked against integer sums of the generator before timing.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Decimal128Array, Float32Array, Float64Array, Int64Array,
    RecordBatch, TimestampMillisecondArray,
};
use arrow::datatypes::{
    DataType, Decimal128Type, Field, Float32Type, Float64Type, Int64Type, Schema,
};
use bench_support::buffers::ArrowBuffers;
use bench_support::{Suite, Verdict, expect_eq};
use datafusion::execution::TaskContext;
use datafusion::physical_plan::ExecutionPlan;
use streamfusion::aggregate::window::{WindowAggSpec, WindowProperty};
use streamfusion::aggregate::{AggCall, AggFunction, GroupAggSpec};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::{Operator, OperatorPlan, Output, StateConfig};
use streamfusion::types::LogicalType;
use streamfusion::window::slices::SliceAssigner;

bench_support::counting_allocator!();

const ROWS: [usize; 2] = [256, 4_096];
const WINDOW_MS: i64 = 10_000;

fn main() {
    let mut suite = Suite::new("window_zero_sum");
    for rows in ROWS {
        for keys in [1, 64, rows] {
            for ty in Type::ALL {
                update_flush(&mut suite, ty, rows, keys);
            }
            peer(&mut suite, rows, keys);
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy)]
enum Type {
    BigInt,
    Decimal,
    Float,
    Double,
}

impl Type {
    const ALL: [Type; 4] = [Type::BigInt, Type::Decimal, Type::Float, Type::Double];

    fn name(self) -> &'static str {
        match self {
            Type::BigInt => "bigint",
            Type::Decimal => "decimal_38_2",
            Type::Float => "float",
            Type::Double => "double",
        }
    }

    fn logical(self) -> LogicalType {
        match self {
            Type::BigInt => LogicalType::BigInt,
            Type::Decimal => LogicalType::Decimal {
                precision: 38,
                scale: 2,
            },
            Type::Float => LogicalType::Float,
            Type::Double => LogicalType::Double,
        }
    }

    /// The value column of `quarters` (each value in quarters: exact in every type).
    fn column(self, quarters: &[Option<i64>]) -> ArrayRef {
        match self {
            Type::BigInt => Arc::new(Int64Array::from_iter(quarters.iter().copied())),
            // Quarters of a unit are 25 hundredths.
            Type::Decimal => Arc::new(
                Decimal128Array::from_iter(quarters.iter().map(|q| q.map(|q| i128::from(q) * 25)))
                    .with_precision_and_scale(38, 2)
                    .expect("DECIMAL(38, 2)"),
            ),
            Type::Float => Arc::new(Float32Array::from_iter(
                quarters.iter().map(|q| q.map(|q| q as f32 / 4.0)),
            )),
            Type::Double => Arc::new(Float64Array::from_iter(
                quarters.iter().map(|q| q.map(|q| q as f64 / 4.0)),
            )),
        }
    }

    /// The sum, in quarters, of row `row` of a `$SUM0` result column.
    fn read_quarters(self, column: &dyn Array, row: usize) -> Option<i64> {
        if column.is_null(row) {
            return None;
        }
        Some(match self {
            Type::BigInt => column.as_primitive::<Int64Type>().value(row),
            Type::Decimal => (column.as_primitive::<Decimal128Type>().value(row) / 25) as i64,
            Type::Float => (column.as_primitive::<Float32Type>().value(row) * 4.0) as i64,
            Type::Double => (column.as_primitive::<Float64Type>().value(row) * 4.0) as i64,
        })
    }
}

/// Row `row`'s key and value (in quarters; a BIGINT column holds the quarters themselves).
fn row_of(row: usize, keys: usize) -> (i64, Option<i64>) {
    let key = (row.wrapping_mul(2_654_435_761) % keys) as i64;
    let value =
        (row % 5 != 4 && !(keys > 1 && key == 0)).then(|| (row as i64 * 7_919) % 1_025 - 512);
    (key, value)
}

fn input(ty: Type, rows: usize, keys: usize) -> ChangelogBatch {
    let data: Vec<(i64, Option<i64>)> = (0..rows).map(|r| row_of(r, keys)).collect();
    let k: ArrayRef = Arc::new(Int64Array::from_iter_values(data.iter().map(|d| d.0)));
    let values: Vec<Option<i64>> = data.iter().map(|d| d.1).collect();
    let v = ty.column(&values);
    // Times inside the first window, out of order.
    let ts: ArrayRef = Arc::new(TimestampMillisecondArray::from_iter_values(
        (0..rows).map(|r| ((r * 7_919) % WINDOW_MS as usize) as i64),
    ));
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, false),
        Field::new("v", v.data_type().clone(), true),
        Field::new("ts", ts.data_type().clone(), false),
    ]));
    ChangelogBatch::insert_only(RecordBatch::try_new(schema, vec![k, v, ts]).expect("batch"))
}

/// Each key's row count and value sum (quarters), by the generator.
fn expected(rows: usize, keys: usize) -> BTreeMap<i64, (i64, i64)> {
    let mut out = BTreeMap::new();
    for row in 0..rows {
        let (key, value) = row_of(row, keys);
        let e = out.entry(key).or_insert((0, 0));
        e.0 += 1;
        e.1 += value.unwrap_or(0);
    }
    out
}

fn plan(ty: Type) -> OperatorPlan {
    OperatorPlan::WindowAggregate(WindowAggSpec {
        aggregate: GroupAggSpec {
            input_names: vec!["k".into(), "v".into(), "ts".into()],
            input_types: vec![LogicalType::BigInt, ty.logical(), LogicalType::Timestamp(3)],
            grouping: vec![0],
            calls: vec![
                AggCall::new(AggFunction::CountStar, None, "cnt"),
                AggCall::new(AggFunction::Sum0, Some(1), "sum0_v"),
            ],
            input_retracts: false,
            generate_update_before: false,
            mini_batch_rows: None,
            state_ttl: None,
            max_parallelism: 128,
        },
        window: SliceAssigner::Tumble {
            size: WINDOW_MS,
            offset: 0,
        },
        time_column: 2,
        properties: vec![
            ("window_start".into(), WindowProperty::Start),
            ("window_end".into(), WindowProperty::End),
        ],
        time_zone: None,
        legacy: false,
    })
}

struct Fixture {
    plan: OperatorPlan,
    input: ChangelogBatch,
    ty: Type,
    expected: BTreeMap<i64, (i64, i64)>,
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

fn update_flush(suite: &mut Suite, ty: Type, rows: usize, keys: usize) {
    suite.stateful(
        &format!("update_flush/{}/rows={rows}/keys={keys}", ty.name()),
        || Fixture {
            plan: plan(ty),
            input: input(ty, rows, keys),
            ty,
            expected: expected(rows, keys),
        },
        |f| {
            f.plan
                .build(&StateConfig::memory(), None)
                .expect("window operator")
        },
        |op: &mut Box<dyn Operator>, f| {
            let mut out = Output::new();
            op.process(0, &f.input, &mut out).expect("update");
            op.advance_watermark(i64::MAX, &mut out).expect("flush");
            out.take()
        },
        |f, out| {
            let mut got = BTreeMap::new();
            for b in out {
                let b = b.batch();
                let k = b.column(0).as_primitive::<Int64Type>();
                let cnt = b.column(1).as_primitive::<Int64Type>();
                let start = b
                    .column(3)
                    .as_primitive::<arrow::datatypes::TimestampMillisecondType>();
                let end = b
                    .column(4)
                    .as_primitive::<arrow::datatypes::TimestampMillisecondType>();
                for r in 0..b.num_rows() {
                    expect_eq("window", &(start.value(r), end.value(r)), &(0, WINDOW_MS))?;
                    let sum =
                        f.ty.read_quarters(b.column(2).as_ref(), r)
                            .ok_or("a $SUM0 result is NULL")?;
                    got.insert(k.value(r), (cnt.value(r), sum));
                }
            }
            expect_eq("windows", &got, &f.expected)
        },
    );
}

/// DataFusion's hash aggregation of the same BIGINT batch by `date_bin` window and key.
struct PeerPlan {
    plan: Arc<dyn ExecutionPlan>,
    input: RecordBatch,
    expected: BTreeMap<i64, (i64, i64)>,
}

impl ArrowBuffers for PeerPlan {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

fn peer_plan(rows: usize, keys: usize) -> PeerPlan {
    use datafusion::common::ScalarValue;
    use datafusion::common::config::ConfigOptions;
    use datafusion::datasource::memory::MemorySourceConfig;
    use datafusion::functions_aggregate::count::count_udaf;
    use datafusion::functions_aggregate::sum::sum_udaf;
    use datafusion::physical_expr::aggregate::AggregateExprBuilder;
    use datafusion::physical_expr::expressions::{col, lit};
    use datafusion::physical_expr::{PhysicalExpr, ScalarFunctionExpr};
    use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode, PhysicalGroupBy};

    let input = input(Type::BigInt, rows, keys).batch().clone();
    let schema = input.schema();
    let source = MemorySourceConfig::try_new_exec(&[vec![input.clone()]], schema.clone(), None)
        .expect("memory source");
    let count = AggregateExprBuilder::new(count_udaf(), vec![lit(1i64)])
        .schema(schema.clone())
        .alias("cnt")
        .build()
        .expect("COUNT(*)");
    let sum = AggregateExprBuilder::new(sum_udaf(), vec![col("v", &schema).expect("v")])
        .schema(schema.clone())
        .alias("sum_v")
        .build()
        .expect("SUM(v)");
    let stride = lit(ScalarValue::new_interval_mdn(0, 0, WINDOW_MS * 1_000_000));
    let window_start: Arc<dyn PhysicalExpr> = Arc::new(
        ScalarFunctionExpr::try_new(
            datafusion::functions::datetime::date_bin(),
            vec![stride, col("ts", &schema).expect("ts")],
            &schema,
            Arc::new(ConfigOptions::default()),
        )
        .expect("date_bin"),
    );
    let group_by = PhysicalGroupBy::new_single(vec![
        (window_start, "window_start".into()),
        (col("k", &schema).expect("k"), "k".into()),
    ]);
    let plan = AggregateExec::try_new(
        AggregateMode::Single,
        group_by,
        vec![Arc::new(count), Arc::new(sum)],
        vec![None, None],
        source,
        schema,
    )
    .expect("aggregate plan");
    PeerPlan {
        plan: Arc::new(plan),
        input,
        expected: expected(rows, keys),
    }
}

fn execute(plan: &Arc<dyn ExecutionPlan>) -> Vec<RecordBatch> {
    use futures::TryStreamExt;
    let stream = plan
        .execute(0, Arc::new(TaskContext::default()))
        .expect("execute");
    futures::executor::block_on(stream.try_collect()).expect("collect")
}

fn peer(suite: &mut Suite, rows: usize, keys: usize) {
    suite.stateless(
        &format!("peer/datafusion/bigint/rows={rows}/keys={keys}"),
        || peer_plan(rows, keys),
        |p| execute(&p.plan),
        |p, out| -> Verdict {
            let mut got = BTreeMap::new();
            for b in out {
                let k = b.column(1).as_primitive::<Int64Type>();
                let cnt = b.column(2).as_primitive::<Int64Type>();
                let sum = b.column(3).as_primitive::<Int64Type>();
                for r in 0..b.num_rows() {
                    // SUM of a NULL-only group is NULL in DataFusion, 0 in $SUM0.
                    let s = if sum.is_null(r) { 0 } else { sum.value(r) };
                    got.insert(k.value(r), (cnt.value(r), s));
                }
            }
            expect_eq("groups", &got, &p.expected)
        },
    );
}
