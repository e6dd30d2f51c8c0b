//! The `persistent_group` suite: the streaming GROUP BY operator on memory and RocksDB
//! state, beside DataFusion's batch hash aggregation of the same rows.
//!
//! Measured boundaries (each through `GroupAggLifecycle`, the thin `StoreLifecycle`
//! adapter over the production operator):
//! - `ingest/{memory,rocksdb}/...`: one mini-batch bundle of `COUNT(*), SUM(v)`: `push` then
//!   `fire` (the bundle flush): key encoding and hashing, the batched state read, accumulation,
//!   the batched state write and the output changelog. The operator and its empty store are
//!   created outside timing.
//! - `retract/rocksdb/{half,all}/...`: the same plan with every row already ingested and
//!   flushed outside timing; timed is retracting half or all of them (update, state deletes,
//!   `-U/+U` versus `-D` output).
//! - `extrema/rocksdb/{insert,retract_half,retract_all}/...`: `COUNT(*), MIN(v), MAX(v)` with
//!   retraction. Unique keys keep their one-value maps inside the accumulator; repeated keys
//!   at 16,384 rows (256 each) outgrow it and use the sorted-map state, read and written by
//!   bundle.
//! - `checkpoint/{rocksdb,memory}/...` and `restore/{rocksdb,memory}/{aligned,rebuilt}/...`:
//!   publishing a checkpoint of an ingested operator, and restoring one (opening the store
//!   included). On the memory backend the accumulators are kept decoded between bundles
//!   (decisions 0020 and 0021), so its checkpoint is where they are encoded: the cost ingest
//!   no longer pays.
//! - `peer/datafusion/...`: DataFusion's `AggregateExec` (single mode) computing `COUNT(*),
//!   SUM(v)` over the same batch, plan built outside timing: a batch engine's cost beside
//!   the streaming operator's.
//!
//! Fixtures: 16/1,024/16,384 rows; repeated (64 distinct) or unique keys; UTF-8 keys of an
//! id and an 8- or 264-byte suffix with Unicode and NUL; nullable keys (every 13th row) and
//! values (every 7th), or neither. Every case is checked against
//! `bench_support::group_model`, a row-at-a-time model of Flink's `GroupAggFunction`: the
//! complete changelog (kinds, keys, values, order), and for restores the changelog of a
//! continued input (retractions and new rows) on the restored operator.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayData, AsArray, RecordBatch};
use arrow::datatypes::Int64Type;
use bench_support::adapters::{RestoreMode, StoreLifecycle};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::ROW_COUNTS;
use bench_support::group_model::{Aggregates, DELETE, Emission, GroupModel, INSERT, arrow_input};
use bench_support::{Suite, Verdict, expect_eq};
use datafusion::execution::TaskContext;
use datafusion::physical_plan::ExecutionPlan;
use streamfusion::aggregate::{AggCall, AggFunction, GroupAggSpec};
use streamfusion::bench::{Backend, GroupAggCheckpoint, GroupAggLifecycle, GroupAggStore};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const WIDTHS: [usize; 2] = [8, 264];
const REPEATED_KEYS: usize = 64;

type Key = Option<String>;
type Row = (i8, Key, Option<i64>);
/// Kind, key and the plan's aggregate columns.
type OutRow = (i8, Key, Vec<Option<i64>>);

fn main() {
    let mut suite = Suite::new("persistent_group");
    ingest(&mut suite);
    retract(&mut suite);
    extrema(&mut suite);
    checkpoints(&mut suite);
    peer(&mut suite);
    suite.finish();
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// `COUNT(*), SUM(v)`.
    CountSum,
    /// `COUNT(*), MIN(v), MAX(v)`.
    CountMinMax,
}

impl Plan {
    fn spec(self) -> GroupAggSpec {
        let calls = match self {
            Plan::CountSum => vec![
                AggCall::new(AggFunction::CountStar, None, "cnt"),
                AggCall::new(AggFunction::Sum, Some(1), "sum_v"),
            ],
            Plan::CountMinMax => vec![
                AggCall::new(AggFunction::CountStar, None, "cnt"),
                AggCall::new(AggFunction::Min, Some(1), "min_v"),
                AggCall::new(AggFunction::Max, Some(1), "max_v"),
            ],
        };
        GroupAggSpec {
            input_names: vec!["k".into(), "v".into()],
            input_types: vec![LogicalType::VarChar(i32::MAX as u32), LogicalType::BigInt],
            grouping: vec![0],
            calls,
            input_retracts: true,
            generate_update_before: true,
            mini_batch_rows: Some(usize::MAX),
            state_ttl: None,
            max_parallelism: 128,
        }
    }

    /// The model's values for this plan's columns.
    fn project(self, a: &Aggregates) -> Vec<Option<i64>> {
        match self {
            Plan::CountSum => vec![Some(a.count_star), a.sum],
            Plan::CountMinMax => vec![Some(a.count_star), a.min, a.max],
        }
    }
}

/// The shape of a fixture.
#[derive(Debug, Clone, Copy)]
struct Shape {
    rows: usize,
    unique: bool,
    width: usize,
    nullable: bool,
}

impl Shape {
    fn id(&self) -> String {
        format!(
            "{}/rows={}/width={}/{}",
            if self.unique { "unique" } else { "repeated" },
            self.rows,
            self.width,
            if self.nullable {
                "nullable"
            } else {
                "not_null"
            }
        )
    }

    fn key(&self, row: usize) -> Key {
        if self.nullable && row % 13 == 5 {
            return None;
        }
        let id = if self.unique {
            row
        } else {
            row % REPEATED_KEYS
        };
        // A distinct prefix, then Unicode and NUL up to the suffix width.
        let mut key = format!("{id:06}|");
        let target = key.len() + self.width;
        for c in ['é', '\0', '漢', 'z'].iter().cycle() {
            if key.len() + c.len_utf8() > target {
                break;
            }
            key.push(*c);
        }
        while key.len() < target {
            key.push('.');
        }
        Some(key)
    }

    fn value(&self, row: usize) -> Option<i64> {
        (!(self.nullable && row % 7 == 3)).then(|| ((row * 7919) % 1000) as i64 - 500)
    }

    /// Every row, as insertions.
    fn inserts(&self) -> Vec<Row> {
        (0..self.rows)
            .map(|r| (INSERT, self.key(r), self.value(r)))
            .collect()
    }

    /// Retractions of every `step`-th inserted row.
    fn retractions(&self, step: usize) -> Vec<Row> {
        (0..self.rows)
            .step_by(step)
            .map(|r| (DELETE, self.key(r), self.value(r)))
            .collect()
    }

    fn shapes() -> impl Iterator<Item = Shape> {
        ROW_COUNTS.into_iter().flat_map(|rows| {
            [false, true].into_iter().flat_map(move |unique| {
                WIDTHS.into_iter().flat_map(move |width| {
                    [true, false].into_iter().map(move |nullable| Shape {
                        rows,
                        unique,
                        width,
                        nullable,
                    })
                })
            })
        })
    }
}

fn batch(rows: &[Row]) -> ChangelogBatch {
    let (batch, kinds) = arrow_input(rows);
    ChangelogBatch::try_new(batch, Some(kinds)).expect("fixture kinds")
}

fn emission() -> Emission {
    Emission {
        input_retracts: true,
        generate_update_before: true,
        ttl: false,
    }
}

/// The model's changelog for bundles applied in order; only the last bundle's output.
fn model_output(plan: Plan, bundles: &[&[Row]]) -> Vec<OutRow> {
    let mut model = GroupModel::new(emission());
    let mut out = Vec::new();
    for rows in bundles {
        out = model.bundle(rows);
    }
    out.into_iter()
        .map(|(kind, key, a)| (kind, key, plan.project(&a)))
        .collect()
}

fn rows_of(out: &ChangelogBatch) -> Result<Vec<OutRow>, String> {
    let b = out.batch();
    let keys = b
        .column(0)
        .as_string_opt::<i32>()
        .ok_or("key column is not UTF-8")?;
    let mut values = Vec::new();
    for c in 1..b.num_columns() {
        values.push(
            b.column(c)
                .as_primitive_opt::<Int64Type>()
                .ok_or_else(|| format!("column {c} is not BIGINT"))?
                .clone(),
        );
    }
    Ok((0..out.num_rows())
        .map(|i| {
            (
                out.kind(i).to_byte(),
                (!keys.is_null(i)).then(|| keys.value(i).to_string()),
                values
                    .iter()
                    .map(|v| (!v.is_null(i)).then(|| v.value(i)))
                    .collect(),
            )
        })
        .collect())
}

fn check_changelog(out: &ChangelogBatch, expected: &[OutRow]) -> Verdict {
    let got = rows_of(out)?;
    expect_eq("changelog rows", &got.len(), &expected.len())?;
    match got.iter().zip(expected).position(|(g, e)| g != e) {
        None => Ok(()),
        Some(i) => Err(format!(
            "changelog row {i}: got {:?}, expected {:?}",
            got[i], expected[i]
        )),
    }
}

/// The timed batch, the rows ingested before timing, and the expected changelog.
struct Fixture {
    lifecycle: GroupAggLifecycle,
    seed: Option<ChangelogBatch>,
    input: ChangelogBatch,
    expected: Vec<OutRow>,
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

impl Fixture {
    fn new(plan: Plan, backend: Backend, seed: Option<&[Row]>, input: &[Row]) -> Self {
        let mut bundles: Vec<&[Row]> = seed.into_iter().collect();
        bundles.push(input);
        Self {
            lifecycle: GroupAggLifecycle {
                spec: plan.spec(),
                backend,
            },
            seed: seed.map(batch),
            input: batch(input),
            expected: model_output(plan, &bundles),
        }
    }

    /// A fresh operator with the seed rows ingested and flushed (outside timing).
    fn fresh(&self) -> GroupAggStore {
        let mut store = self.lifecycle.create().expect("create operator");
        if let Some(seed) = &self.seed {
            self.lifecycle.push(&mut store, seed).expect("seed push");
            self.lifecycle.fire(&mut store, 0).expect("seed flush");
        }
        store
    }

    /// The timed boundary: push the batch, flush the bundle.
    fn update(&self, store: &mut GroupAggStore) -> ChangelogBatch {
        let buffered = self.lifecycle.push(store, &self.input).expect("push");
        debug_assert_eq!(buffered.num_rows(), 0);
        self.lifecycle.fire(store, 0).expect("flush")
    }
}

fn run_update_case(suite: &mut Suite, id: &str, fixture: impl FnOnce() -> Fixture) {
    suite.stateful(
        id,
        fixture,
        Fixture::fresh,
        |store, f| f.update(store),
        |f, out| check_changelog(out, &f.expected),
    );
}

fn ingest(suite: &mut Suite) {
    for (backend, name) in [(Backend::Memory, "memory"), (Backend::Rocksdb, "rocksdb")] {
        for shape in Shape::shapes() {
            run_update_case(suite, &format!("ingest/{name}/{}", shape.id()), || {
                Fixture::new(Plan::CountSum, backend, None, &shape.inserts())
            });
        }
    }
}

fn retract(suite: &mut Suite) {
    for (mode, step) in [("half", 2), ("all", 1)] {
        for shape in Shape::shapes().filter(|s| s.nullable) {
            run_update_case(
                suite,
                &format!("retract/rocksdb/{mode}/{}", shape.id()),
                || {
                    Fixture::new(
                        Plan::CountSum,
                        Backend::Rocksdb,
                        Some(&shape.inserts()),
                        &shape.retractions(step),
                    )
                },
            );
        }
    }
}

fn extrema(suite: &mut Suite) {
    for shape in Shape::shapes().filter(|s| s.nullable && s.width == 264) {
        let inserts = shape.inserts();
        run_update_case(
            suite,
            &format!("extrema/rocksdb/insert/{}", shape.id()),
            || Fixture::new(Plan::CountMinMax, Backend::Rocksdb, None, &inserts),
        );
        for (mode, step) in [("retract_half", 2), ("retract_all", 1)] {
            run_update_case(
                suite,
                &format!("extrema/rocksdb/{mode}/{}", shape.id()),
                || {
                    Fixture::new(
                        Plan::CountMinMax,
                        Backend::Rocksdb,
                        Some(&inserts),
                        &shape.retractions(step),
                    )
                },
            );
        }
    }
}

/// An ingested operator's checkpoint, and a continuation (retract every third row, insert
/// fresh rows) with its expected changelog.
struct Published {
    lifecycle: GroupAggLifecycle,
    checkpoint: GroupAggCheckpoint,
    continued: ChangelogBatch,
    expected: Vec<OutRow>,
}

impl ArrowBuffers for Published {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

/// A restored operator; the oracle keeps processing on it.
struct Restored(RefCell<GroupAggStore>);

impl ArrowBuffers for Restored {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

fn continuation(shape: &Shape) -> Vec<Row> {
    let mut rows = shape.retractions(3);
    rows.extend((0..shape.rows / 4 + 1).map(|r| {
        (
            INSERT,
            Some(format!("new-{r}-{}", "ß".repeat(shape.width / 2))),
            Some(r as i64),
        )
    }));
    rows
}

fn publish(plan: Plan, shape: &Shape, backend: Backend) -> Published {
    let lifecycle = GroupAggLifecycle {
        spec: plan.spec(),
        backend,
    };
    let inserts = shape.inserts();
    let mut store = lifecycle.create().expect("create");
    lifecycle.push(&mut store, &batch(&inserts)).expect("push");
    lifecycle.fire(&mut store, 0).expect("flush");
    let checkpoint = lifecycle.checkpoint(&mut store).expect("checkpoint");
    let more = continuation(shape);
    Published {
        expected: model_output(plan, &[&inserts, &more]),
        continued: batch(&more),
        lifecycle,
        checkpoint,
    }
}

fn check_continues(published: &Published, restored: &mut GroupAggStore) -> Verdict {
    let l = &published.lifecycle;
    l.push(restored, &published.continued)
        .map_err(|e| e.to_string())?;
    let out = l.fire(restored, 0).map_err(|e| e.to_string())?;
    check_changelog(&out, &published.expected)
}

fn checkpoints(suite: &mut Suite) {
    for (backend, name) in [(Backend::Rocksdb, "rocksdb"), (Backend::Memory, "memory")] {
        for shape in Shape::shapes().filter(|s| s.nullable && s.width == 264) {
            checkpoint_cases(suite, backend, name, shape);
        }
    }
}

fn checkpoint_cases(suite: &mut Suite, backend: Backend, name: &str, shape: Shape) {
    let id = shape.id();
    suite.stateful(
        &format!("checkpoint/{name}/{id}"),
        || publish(Plan::CountSum, &shape, backend),
        |p| {
            let mut store = p.lifecycle.create().expect("create");
            p.lifecycle
                .push(&mut store, &batch(&shape.inserts()))
                .expect("push");
            p.lifecycle.fire(&mut store, 0).expect("flush");
            store
        },
        |store, p| p.lifecycle.checkpoint(store).expect("checkpoint"),
        |p, taken| {
            let mut restored = p
                .lifecycle
                .restore(std::slice::from_ref(taken), &RestoreMode::Aligned)
                .map_err(|e| e.to_string())?;
            check_continues(p, &mut restored)
        },
    );
    for (mode, restore) in [
        ("aligned", RestoreMode::Aligned),
        (
            "rebuilt",
            RestoreMode::Rebuilt {
                first_key_group: 0,
                last_key_group: 127,
            },
        ),
    ] {
        suite.stateful(
            &format!("restore/{name}/{mode}/{id}"),
            || publish(Plan::CountSum, &shape, backend),
            |_| (),
            move |(), p| {
                Restored(RefCell::new(
                    p.lifecycle
                        .restore(std::slice::from_ref(&p.checkpoint), &restore)
                        .expect("restore"),
                ))
            },
            |p, restored| check_continues(p, &mut restored.0.borrow_mut()),
        );
    }
}

/// DataFusion's hash aggregation of the same batch.
struct PeerPlan {
    plan: Arc<dyn ExecutionPlan>,
    input: RecordBatch,
    expected: BTreeMap<Key, (i64, Option<i64>)>,
}

impl ArrowBuffers for PeerPlan {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

fn peer_plan(shape: &Shape) -> PeerPlan {
    use datafusion::datasource::memory::MemorySourceConfig;
    use datafusion::functions_aggregate::count::count_udaf;
    use datafusion::functions_aggregate::sum::sum_udaf;
    use datafusion::physical_expr::aggregate::AggregateExprBuilder;
    use datafusion::physical_expr::expressions::{col, lit};
    use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode, PhysicalGroupBy};

    let inserts = shape.inserts();
    let input = batch(&inserts).batch().clone();
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
    let group_by = PhysicalGroupBy::new_single(vec![(col("k", &schema).expect("k"), "k".into())]);
    let plan = AggregateExec::try_new(
        AggregateMode::Single,
        group_by,
        vec![Arc::new(count), Arc::new(sum)],
        vec![None, None],
        source,
        schema,
    )
    .expect("aggregate plan");
    let mut model = GroupModel::new(emission());
    model.bundle(&inserts);
    PeerPlan {
        plan: Arc::new(plan),
        input,
        expected: model
            .results()
            .into_iter()
            .map(|(k, a)| (k, (a.count_star, a.sum)))
            .collect(),
    }
}

fn execute(plan: &Arc<dyn ExecutionPlan>) -> Vec<RecordBatch> {
    use futures::TryStreamExt;
    let stream = plan
        .execute(0, Arc::new(TaskContext::default()))
        .expect("execute");
    futures::executor::block_on(stream.try_collect()).expect("collect")
}

fn peer(suite: &mut Suite) {
    for shape in Shape::shapes().filter(|s| s.nullable) {
        suite.stateless(
            &format!("peer/datafusion/{}", shape.id()),
            || peer_plan(&shape),
            |p| execute(&p.plan),
            |p, out| {
                let mut got = BTreeMap::new();
                for b in out {
                    let keys = b.column(0).as_string::<i32>();
                    let counts = b.column(1).as_primitive::<Int64Type>();
                    let sums = b.column(2).as_primitive::<Int64Type>();
                    for i in 0..b.num_rows() {
                        got.insert(
                            (!keys.is_null(i)).then(|| keys.value(i).to_string()),
                            (counts.value(i), (!sums.is_null(i)).then(|| sums.value(i))),
                        );
                    }
                }
                expect_eq("groups", &got, &p.expected)
            },
        );
    }
}
