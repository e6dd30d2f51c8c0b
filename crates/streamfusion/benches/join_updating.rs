//! The `join_updating` suite: the production regular join ([`OperatorPlan::Join`], INNER,
//! immediate: Flink 2.3.0's `StreamingJoinOperator`) over an updating input on the memory
//! backend and RocksDB, and over two insert-only batches beside DataFusion's hash join of
//! the same batches.
//!
//! The plan is `SELECT * FROM l JOIN r ON l.k = r.k` over `(k BIGINT, id BIGINT, s STRING)`
//! on both inputs (`s` nullable: NULL every 13th row, with embedded NUL and multi-byte
//! UTF-8), neither input with a unique key: Flink's `InputSideHasNoUniqueKey` layout, rows
//! counted per join key and retracted whole. Operators are built from the plan
//! (`OperatorPlan::build`, through `streamfusion::bench::OperatorLifecycle`) and driven by
//! `Operator::process` on input 0 (left) or 1 (right); a fresh operator per iteration is
//! prepared outside timing, and its teardown (with its RocksDB directory) is not timed.
//!
//! Measured boundaries:
//! - `updating/insert/<backend>/rows=<n>/keys=16384`: the right input holds one row per key
//!   of a 16,384-key domain; timed is a batch of `n` `+I` left rows with distinct keys of
//!   that domain, each joining its key's one right row.
//! - `updating/retract/<backend>/<lane>/rows=<n>/keys=16384`: the same operator after the
//!   left insert batch too; timed is the batch retracting every left row (`-D` of the very
//!   rows inserted): each joins its right row once more, as `-D`, and leaves its key's left
//!   side empty. `warm`: the operator that took the seed, its sides decoded in its partition
//!   cache (decision 0034), so RocksDB is not read. `cold`: an operator restored (aligned)
//!   from a checkpoint of the seeded one, its cache empty, so every key's two sides are read
//!   from the store and decoded. In both lanes the emptied sides go back into the cache and
//!   reach the store when they leave it or at the next checkpoint, neither of which is
//!   timed. `updating/retract/rocksdb/*/rows=16384/...` is the target (under 100 ms).
//!   On the memory backend the seed and the inserts, all `+I`, are kept as Arrow batches
//!   (`join::columnar`, decision 0053): there the retraction batch also hands the kept rows
//!   over to the row-state join, writing them to the store, and neither lane has a cache.
//! - `updating/mini_batch_fold/<backend>/rows=<n>/keys=16384`: the same join under mini-batch
//!   (`MiniBatchStreamingJoinOperator`, bundles of `2n` rows) holding the right seed; timed
//!   are the `n` left inserts and their `n` retractions, one bundle, which Flink's folding
//!   cancels row against row: nothing is joined, emitted or stored.
//! - `insert_only/probe/<backend>/rows=<n>/keys=unique`: two insert-only batches of `n` rows
//!   with unique keys, the same `n` keys on both inputs; the right batch (the build) is in
//!   state, timed is the left batch (the probe): one `+I` per row.
//! - `insert_only/build_probe/memory/rows=<n>/keys=unique`: a fresh operator takes the
//!   build batch, then the probe batch, both timed: what DataFusion's hash join does.
//! - `insert_only/datafusion/hash_join/rows=<n>/keys=unique`: DataFusion's `HashJoinExec`
//!   (`CollectLeft`, INNER, `NULL` keys equal nothing, one partition) executing over two
//!   in-memory sources holding the same two batches, the build batch on its build side,
//!   plan built outside timing: building its hash table and probing are timed. A batch
//!   engine's cost beside the streaming operator's, which also keeps both inputs' rows.
//!
//! Oracles ([`join_fixtures::Model`], never the operator): the exact multiset of joined rows
//! and kinds each timed batch emits. After the retractions the model holds no left row, and
//! on a fresh operator a probe of the right input after them must join nothing. The peer's
//! output must hold the same number of rows and the same multiset of joined rows as the
//! native join's (run once on a fresh operator) and the model's.

use std::sync::Arc;

use arrow::array::{ArrayData, RecordBatch};
use bench_support::adapters::{RestoreMode, StoreLifecycle};
use bench_support::buffers::ArrowBuffers;
use bench_support::{Suite, Verdict, expect_eq};
use datafusion::execution::TaskContext;
use datafusion::physical_plan::ExecutionPlan;
use streamfusion::bench::{Backend, GroupAggCheckpoint, OperatorLifecycle, OperatorStore};
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::ops::OperatorPlan;

mod join_fixtures;
use join_fixtures::{Joined, LEFT, Layout, Model, RIGHT, Row, batch, joined, payload, push};

bench_support::counting_allocator!();

const LAYOUTS: [Layout; 2] = [Layout::Multiset, Layout::Multiset];
/// The updating cases' key domain: one right row per key.
const DOMAIN: usize = 16_384;
/// An odd stride: `row * STRIDE mod n` is a permutation of `0..n` for any power of two.
const STRIDE: usize = 7_919;
/// Right rows' ids start here (left rows' ids are their row numbers).
const RIGHT_IDS: i64 = 1 << 40;
const PROBE_IDS: i64 = 2 << 40;
const ROWS: [usize; 2] = [1_024, 16_384];

fn main() {
    let mut suite = Suite::new("join_updating");
    for (backend, name) in [(Backend::Memory, "memory"), (Backend::Rocksdb, "rocksdb")] {
        for rows in ROWS {
            updating_insert(&mut suite, backend, name, rows);
            for lane in [Lane::Warm, Lane::Cold] {
                updating_retract(&mut suite, backend, name, lane, rows);
            }
            mini_batch_fold(&mut suite, backend, name, rows);
            insert_only_probe(&mut suite, backend, name, rows);
        }
    }
    for rows in ROWS {
        insert_only_build_probe(&mut suite, rows);
        peer(&mut suite, rows);
    }
    suite.finish();
}

/// `n` left rows with distinct keys of `0..domain` (`n` ≤ `domain`, both powers of two).
fn left_rows(n: usize, domain: usize) -> Vec<Row> {
    (0..n)
        .map(|i| ((i * STRIDE % domain) as i64, i as i64, payload(i, 0)))
        .collect()
}

/// One right row per key of `0..domain`, ids from `first`.
fn right_rows(domain: usize, first: i64, variant: usize) -> Vec<Row> {
    (0..domain)
        .map(|k| (k as i64, first + k as i64, payload(k, variant)))
        .collect()
}

fn lifecycle(backend: Backend) -> OperatorLifecycle {
    OperatorLifecycle {
        plan: OperatorPlan::Join(join_fixtures::spec(LAYOUTS)),
        backend,
    }
}

/// The updating cases' batches and the model's outputs.
struct Updating {
    lifecycle: OperatorLifecycle,
    right: ChangelogBatch,
    inserts: ChangelogBatch,
    retractions: ChangelogBatch,
    probe: ChangelogBatch,
    /// What the inserts emit after the right seed, and the retractions after both.
    inserted: Vec<Joined>,
    retracted: Vec<Joined>,
    /// A checkpoint of the seeded operator (the cold lane restores it).
    checkpoint: Option<GroupAggCheckpoint>,
}

impl ArrowBuffers for Updating {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.right.collect_arrays(out);
        self.inserts.collect_arrays(out);
        self.retractions.collect_arrays(out);
        self.probe.collect_arrays(out);
    }
}

fn updating(backend: Backend, rows: usize, checkpointed: bool) -> Updating {
    let right = join_fixtures::with_kind(RowKind::Insert, &right_rows(DOMAIN, RIGHT_IDS, 2));
    let left = left_rows(rows, DOMAIN);
    let inserts = join_fixtures::with_kind(RowKind::Insert, &left);
    let retractions = join_fixtures::with_kind(RowKind::Delete, &left);
    let probe = join_fixtures::with_kind(RowKind::Insert, &right_rows(DOMAIN, PROBE_IDS, 3));
    let mut model = Model::new(LAYOUTS);
    assert!(model.events(RIGHT, &right).is_empty());
    let inserted = model.events(LEFT, &inserts);
    assert_eq!(inserted.len(), rows, "one right row per key");
    let retracted = model.events(LEFT, &retractions);
    assert_eq!(model.stored(LEFT), 0, "every left row retracted");
    assert!(model.events(RIGHT, &probe).is_empty());
    let mut u = Updating {
        lifecycle: lifecycle(backend),
        right: batch(RIGHT, &right),
        inserts: batch(LEFT, &inserts),
        retractions: batch(LEFT, &retractions),
        probe: batch(RIGHT, &probe),
        inserted,
        retracted,
        checkpoint: None,
    };
    if checkpointed {
        let mut store = u.seeded();
        u.checkpoint = Some(u.lifecycle.checkpoint(&mut store).expect("checkpoint"));
    }
    u
}

impl Updating {
    /// A fresh operator holding the right seed.
    fn with_right(&self) -> OperatorStore {
        let mut store = self.lifecycle.create().expect("operator");
        assert!(push(&mut store, RIGHT, &self.right).is_empty());
        store
    }

    /// A fresh operator holding the right seed and the left inserts.
    fn seeded(&self) -> OperatorStore {
        let mut store = self.with_right();
        push(&mut store, LEFT, &self.inserts);
        store
    }

    /// The seeded operator as a restore from its checkpoint has it: nothing cached.
    fn restored(&self) -> OperatorStore {
        let checkpoint = self.checkpoint.as_ref().expect("a checkpointed fixture");
        self.lifecycle
            .restore(std::slice::from_ref(checkpoint), &RestoreMode::Aligned)
            .expect("restore")
    }
}

/// `updating/mini_batch_fold/...`: the inserts and their retractions in one mini-batch
/// bundle (`MiniBatchStreamingJoinOperator`, size `2n`), after the right seed was applied.
/// Flink's bundle cancels each `-D` against its `+I` (no unique key: the same row's hash),
/// so nothing is joined, emitted or stored: the cost is buffering and folding alone.
fn mini_batch_fold(suite: &mut Suite, backend: Backend, name: &str, rows: usize) {
    let mini_batch = move || {
        let mut u = updating(backend, rows, false);
        let mut spec = join_fixtures::spec(LAYOUTS);
        spec.mini_batch_rows = Some(2 * rows);
        u.lifecycle.plan = OperatorPlan::Join(spec);
        u
    };
    // The right seed applied (flushed), the bundle empty.
    let seeded = |u: &Updating| {
        let mut store = u.with_right();
        let mut out = streamfusion::ops::Output::new();
        store.operator.flush(&mut out).expect("flush");
        assert_eq!(out.num_rows(), 0, "right rows alone join nothing");
        store
    };
    let fold = |store: &mut OperatorStore, u: &Updating| {
        let mut out = push(store, LEFT, &u.inserts);
        out.extend(push(store, LEFT, &u.retractions));
        out
    };
    suite.stateful(
        &format!("updating/mini_batch_fold/{name}/rows={rows}/keys={DOMAIN}"),
        mini_batch,
        seeded,
        fold,
        move |u, out| {
            expect_eq("rows the folded bundle joined", &joined(out)?.len(), &0)?;
            // Nothing was stored: a probe of the right input, flushed, joins nothing.
            let mut store = seeded(u);
            fold(&mut store, u);
            let mut probed = push(&mut store, RIGHT, &u.probe);
            let mut rest = streamfusion::ops::Output::new();
            store.operator.flush(&mut rest).expect("flush");
            probed.extend(rest.take());
            expect_eq("probe after the folded bundle", &joined(&probed)?.len(), &0)
        },
    );
}

fn updating_insert(suite: &mut Suite, backend: Backend, name: &str, rows: usize) {
    suite.stateful(
        &format!("updating/insert/{name}/rows={rows}/keys={DOMAIN}"),
        || updating(backend, rows, false),
        Updating::with_right,
        |store, u| push(store, LEFT, &u.inserts),
        |u, out| expect_eq("the inserts' joined rows", &joined(out)?, &u.inserted),
    );
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lane {
    Warm,
    Cold,
}

fn updating_retract(suite: &mut Suite, backend: Backend, name: &str, lane: Lane, rows: usize) {
    let lane_id = match lane {
        Lane::Warm => "warm",
        Lane::Cold => "cold",
    };
    suite.stateful(
        &format!("updating/retract/{name}/{lane_id}/rows={rows}/keys={DOMAIN}"),
        || updating(backend, rows, lane == Lane::Cold),
        move |u| match lane {
            Lane::Warm => u.seeded(),
            Lane::Cold => u.restored(),
        },
        |store, u| push(store, LEFT, &u.retractions),
        move |u, out| {
            expect_eq("the retractions' joined rows", &joined(out)?, &u.retracted)?;
            // No left row is left: a probe of the right input joins nothing.
            let mut store = match lane {
                Lane::Warm => u.seeded(),
                Lane::Cold => u.restored(),
            };
            push(&mut store, LEFT, &u.retractions);
            let probed = joined(&push(&mut store, RIGHT, &u.probe))?;
            expect_eq("probe after the retractions", &probed.len(), &0)
        },
    );
}

/// The insert-only cases' batches and the model's output.
struct InsertOnly {
    lifecycle: OperatorLifecycle,
    build: ChangelogBatch,
    probe: ChangelogBatch,
    expected: Vec<Joined>,
}

impl ArrowBuffers for InsertOnly {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.build.collect_arrays(out);
        self.probe.collect_arrays(out);
    }
}

fn insert_only(backend: Backend, rows: usize) -> InsertOnly {
    let build = join_fixtures::with_kind(RowKind::Insert, &right_rows(rows, RIGHT_IDS, 2));
    let probe = join_fixtures::with_kind(RowKind::Insert, &left_rows(rows, rows));
    let mut model = Model::new(LAYOUTS);
    assert!(model.events(RIGHT, &build).is_empty());
    let expected = model.events(LEFT, &probe);
    assert_eq!(expected.len(), rows, "unique keys: one match per row");
    InsertOnly {
        lifecycle: lifecycle(backend),
        build: batch(RIGHT, &build),
        probe: batch(LEFT, &probe),
        expected,
    }
}

impl InsertOnly {
    fn with_build(&self) -> OperatorStore {
        let mut store = self.lifecycle.create().expect("operator");
        assert!(push(&mut store, RIGHT, &self.build).is_empty());
        store
    }

    /// The production join of both batches on a fresh operator.
    fn build_probe(&self, store: &mut OperatorStore) -> Vec<ChangelogBatch> {
        let mut out = push(store, RIGHT, &self.build);
        out.extend(push(store, LEFT, &self.probe));
        out
    }
}

fn insert_only_probe(suite: &mut Suite, backend: Backend, name: &str, rows: usize) {
    suite.stateful(
        &format!("insert_only/probe/{name}/rows={rows}/keys=unique"),
        || insert_only(backend, rows),
        InsertOnly::with_build,
        |store, f| push(store, LEFT, &f.probe),
        |f, out| {
            expect_eq(
                "insert-only",
                &out.iter().all(|b| b.is_insert_only()),
                &true,
            )?;
            expect_eq("the probe's joined rows", &joined(out)?, &f.expected)
        },
    );
}

fn insert_only_build_probe(suite: &mut Suite, rows: usize) {
    suite.stateful(
        &format!("insert_only/build_probe/memory/rows={rows}/keys=unique"),
        || insert_only(Backend::Memory, rows),
        |f| f.lifecycle.create().expect("operator"),
        |store, f| f.build_probe(store),
        |f, out| expect_eq("the joined rows", &joined(out)?, &f.expected),
    );
}

// ---- The DataFusion peer. ----

/// DataFusion's hash join of the same two batches, and what the native join emitted.
struct PeerPlan {
    plan: Arc<dyn ExecutionPlan>,
    inputs: [RecordBatch; 2],
    native: Vec<Joined>,
    expected: Vec<Joined>,
}

impl ArrowBuffers for PeerPlan {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.inputs.collect_arrays(out);
    }
}

fn peer_plan(rows: usize) -> PeerPlan {
    use datafusion::common::{JoinType, NullEquality};
    use datafusion::datasource::memory::MemorySourceConfig;
    use datafusion::physical_expr::expressions::col;
    use datafusion::physical_plan::joins::{HashJoinExec, PartitionMode};

    let fixture = insert_only(Backend::Memory, rows);
    let mut store = fixture.lifecycle.create().expect("operator");
    let native = joined(&fixture.build_probe(&mut store)).expect("native rows");
    let build = fixture.build.batch().clone();
    let probe = fixture.probe.batch().clone();
    let source = |b: &RecordBatch| -> Arc<dyn ExecutionPlan> {
        MemorySourceConfig::try_new_exec(&[vec![b.clone()]], b.schema(), None)
            .expect("memory source")
    };
    let on = vec![(
        col("rk", &build.schema()).expect("rk"),
        col("lk", &probe.schema()).expect("lk"),
    )];
    // The join's columns are the build side's, then the probe side's: projected to the
    // native join's left-then-right order.
    let plan = HashJoinExec::try_new(
        source(&build),
        source(&probe),
        on,
        None,
        &JoinType::Inner,
        Some(vec![3, 4, 5, 0, 1, 2]),
        PartitionMode::CollectLeft,
        NullEquality::NullEqualsNothing,
        false,
    )
    .expect("hash join plan");
    PeerPlan {
        plan: Arc::new(plan),
        inputs: [build, probe],
        native,
        expected: fixture.expected,
    }
}

fn execute(plan: &Arc<dyn ExecutionPlan>) -> Vec<RecordBatch> {
    use futures::TryStreamExt;
    let stream = plan
        .execute(0, Arc::new(TaskContext::default()))
        .expect("execute");
    futures::executor::block_on(stream.try_collect()).expect("collect")
}

fn peer(suite: &mut Suite, rows: usize) {
    suite.stateless(
        &format!("insert_only/datafusion/hash_join/rows={rows}/keys=unique"),
        || peer_plan(rows),
        |p| execute(&p.plan),
        |p, out| -> Verdict {
            let got = join_fixtures::joined_records(out)?;
            expect_eq("rows beside the native join's", &got.len(), &p.native.len())?;
            expect_eq("joined rows beside the native join's", &got, &p.native)?;
            expect_eq("joined rows beside the model's", &got, &p.expected)
        },
    );
}
