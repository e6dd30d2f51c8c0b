//! The `unique_join_retractions` suite: the production regular join ([`OperatorPlan::Join`],
//! INNER, immediate: Flink 2.3.0's `StreamingJoinOperator`) retracting rows of an input kept
//! by unique key, on the memory backend (Flink's heap backend) and on RocksDB, with the
//! retracted rows' payloads changed from what was stored.
//!
//! The plan is `SELECT * FROM l JOIN r ON l.k = r.k` over `(k BIGINT, id BIGINT, s STRING)`
//! on both inputs, each with the unique key `id`, which the join key does not contain:
//! Flink's `InputSideHasUniqueKey` layout (`MapState<uk, row>` per join key). In Flink a
//! retraction finds its stored row by the unique key alone, so a `-U`/`-D` whose payload `s`
//! differs from the stored row's still removes it (under `NoUniqueKey` it would match
//! nothing: rows are compared whole there).
//!
//! Cases: `retract/<backend>/<side>/<kind>/rows=<n>/keys=<k>`, 32 in all: memory and
//! RocksDB; the measured batch on the left or the right input; `-U` or `-D` retractions;
//! 16 or 1,024 rows; one or 16 join keys. Before timing (a fresh operator per iteration,
//! outside timing), the opposite input holds one row per join key and the measured input
//! `n` rows (`id` = row, `k` = row mod keys, nullable `s`). Timed is the batch of `n`
//! retractions on the measured input: every stored row's `id` and `k` with a changed `s`
//! (NULL where it was a string, a string where it was NULL, another string elsewhere). It
//! includes key hashing and key groups, the row and unique-key encoding, reading the sides
//! (here all in the operator's partition cache, decision 0034: the seed left them there, so
//! RocksDB is not read, and the removals are written when the sides leave the cache or at
//! the next checkpoint, neither of which is timed), removal by unique key, and the output
//! changelog: each retraction joined with its key's opposite row, with the retraction's kind
//! and its own (changed) payload. Operator and directory teardown are outside timing.
//!
//! Oracles ([`join_fixtures::Model`], never the operator): the exact multiset of joined
//! rows, kinds and payloads (including NULLs) the retraction batch emits; then, on a fresh
//! seeded operator, the retraction batch followed by a probe of the opposite input (one new
//! row per join key) must join nothing, since every measured row was retracted (the model,
//! applied to the same events, holds no measured row: a counting argument), while the same
//! probe on a seeded operator without the retractions joins every measured row.

use arrow::array::ArrayData;
use bench_support::adapters::StoreLifecycle;
use bench_support::buffers::ArrowBuffers;
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion::bench::{Backend, OperatorLifecycle, OperatorStore};
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::ops::{OperatorPlan, Port};

mod join_fixtures;
use join_fixtures::{Joined, LEFT, Layout, Model, RIGHT, Row, batch, joined, payload, push};

bench_support::counting_allocator!();

const LAYOUTS: [Layout; 2] = [Layout::UniqueKey, Layout::UniqueKey];
/// Ids of the opposite input's seeded rows and probe rows start here (the measured rows'
/// ids are their row numbers).
const OPPOSITE_IDS: i64 = 1 << 40;
const PROBE_IDS: i64 = 2 << 40;

fn main() {
    let mut suite = Suite::new("unique_join_retractions");
    for (backend, name) in [(Backend::Memory, "memory"), (Backend::Rocksdb, "rocksdb")] {
        for port in [LEFT, RIGHT] {
            for kind in [RowKind::UpdateBefore, RowKind::Delete] {
                for rows in [16, 1_024] {
                    for keys in [1, 16] {
                        let shape = Shape {
                            backend,
                            port,
                            kind,
                            rows,
                            keys,
                        };
                        case(&mut suite, name, shape);
                    }
                }
            }
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy)]
struct Shape {
    backend: Backend,
    /// The measured input.
    port: Port,
    /// The retractions' kind.
    kind: RowKind,
    rows: usize,
    keys: usize,
}

impl Shape {
    fn id(self, backend: &str) -> String {
        let kind = match self.kind {
            RowKind::UpdateBefore => "update_before",
            _ => "delete",
        };
        format!(
            "retract/{backend}/{}/{kind}/rows={}/keys={}",
            join_fixtures::side_id(self.port),
            self.rows,
            self.keys
        )
    }

    /// The measured input's stored rows.
    fn stored(self) -> Vec<Row> {
        (0..self.rows)
            .map(|i| ((i % self.keys) as i64, i as i64, payload(i, 0)))
            .collect()
    }

    /// The retractions: the stored rows' keys and ids, another payload.
    fn retractions(self) -> Vec<Row> {
        (0..self.rows)
            .map(|i| ((i % self.keys) as i64, i as i64, payload(i, 1)))
            .collect()
    }

    /// One opposite row per join key, ids from `first`.
    fn opposite(self, first: i64, variant: usize) -> Vec<Row> {
        (0..self.keys)
            .map(|k| (k as i64, first + k as i64, payload(k, variant)))
            .collect()
    }
}

struct Fixture {
    lifecycle: OperatorLifecycle,
    port: Port,
    /// The opposite input's seed, the measured input's seed, its retractions and the
    /// opposite input's later probe.
    opposite: ChangelogBatch,
    inserts: ChangelogBatch,
    retractions: ChangelogBatch,
    probe: ChangelogBatch,
    /// What the model emits for the retractions, the probe after them, and the probe
    /// without them.
    expected: Vec<Joined>,
    after_retractions: Vec<Joined>,
    without_retractions: Vec<Joined>,
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.opposite.collect_arrays(out);
        self.inserts.collect_arrays(out);
        self.retractions.collect_arrays(out);
        self.probe.collect_arrays(out);
    }
}

fn fixture(shape: Shape) -> Fixture {
    let (port, other) = (shape.port, 1 - shape.port);
    let stored = shape.stored();
    let retractions = shape.retractions();
    assert!(
        stored.iter().zip(&retractions).all(|(s, r)| s.2 != r.2),
        "every retraction changes its row's payload"
    );
    let opposite = join_fixtures::with_kind(RowKind::Insert, &shape.opposite(OPPOSITE_IDS, 2));
    let inserts = join_fixtures::with_kind(RowKind::Insert, &stored);
    let retracting = join_fixtures::with_kind(shape.kind, &retractions);
    let probe = join_fixtures::with_kind(RowKind::Insert, &shape.opposite(PROBE_IDS, 3));

    let seeded = || {
        let mut model = Model::new(LAYOUTS);
        model.events(other, &opposite);
        let joined = model.events(port, &inserts);
        assert_eq!(
            joined.len(),
            shape.rows,
            "each seeded row joins one opposite row"
        );
        model
    };
    let mut model = seeded();
    let expected = model.events(port, &retracting);
    assert_eq!(
        model.stored(port),
        0,
        "the model retracts every row by unique key"
    );
    let after_retractions = model.events(other, &probe);
    let without_retractions = seeded().events(other, &probe);
    assert_eq!(without_retractions.len(), shape.rows);
    // The payloads really differ from the stored rows: compared whole (NoUniqueKey), these
    // retractions would remove nothing.
    let mut whole = Model::new([Layout::Multiset; 2]);
    whole.events(other, &opposite);
    whole.events(port, &inserts);
    whole.events(port, &retracting);
    assert_eq!(whole.stored(port), shape.rows as u64);

    Fixture {
        lifecycle: OperatorLifecycle {
            plan: OperatorPlan::Join(join_fixtures::spec(LAYOUTS)),
            backend: shape.backend,
        },
        port,
        opposite: batch(other, &opposite),
        inserts: batch(port, &inserts),
        retractions: batch(port, &retracting),
        probe: batch(other, &probe),
        expected,
        after_retractions,
        without_retractions,
    }
}

impl Fixture {
    /// A fresh operator holding the opposite seed and the measured seed.
    fn seeded(&self) -> OperatorStore {
        let mut store = self.lifecycle.create().expect("operator");
        push(&mut store, 1 - self.port, &self.opposite);
        push(&mut store, self.port, &self.inserts);
        store
    }
}

fn check(f: &Fixture, out: &[ChangelogBatch]) -> Verdict {
    expect_eq("the retractions' joined rows", &joined(out)?, &f.expected)?;
    // An independent look at the state: a probe of the opposite input after the
    // retractions joins nothing (as the model says), and without them joins every row.
    let other = 1 - f.port;
    let mut store = f.seeded();
    push(&mut store, f.port, &f.retractions);
    let probed = joined(&push(&mut store, other, &f.probe))?;
    expect_eq("probe after the retractions", &probed, &f.after_retractions)?;
    expect_eq("probe joins nothing", &probed.len(), &0)?;
    let mut store = f.seeded();
    let probed = joined(&push(&mut store, other, &f.probe))?;
    expect_eq(
        "probe without the retractions",
        &probed,
        &f.without_retractions,
    )
}

fn case(suite: &mut Suite, backend: &str, shape: Shape) {
    suite.stateful(
        &shape.id(backend),
        || fixture(shape),
        Fixture::seeded,
        |store, f| push(store, f.port, &f.retractions),
        |f, out| check(f, out),
    );
}
