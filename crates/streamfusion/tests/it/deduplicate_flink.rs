//! Deduplication against changelogs produced by released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-dedup.jsonl` was written by
//! `java/src/org/streamfusion/golden/DedupVectors.java`, which runs each scenario through
//! Flink SQL (`ROW_NUMBER() OVER (PARTITION BY k ORDER BY <time attribute> [DESC]) = 1` over
//! an insert-only stream at parallelism 1: proctime and rowtime, keep first and last,
//! immediate and mini-batch, with and without `-U`, `+I` guarantee and state TTL) on the
//! hashmap or the RocksDB state backend, and records for each one the deduplicate node as
//! StreamFusion's planner describes it (the two texts `flink::plan_node` reads), the events
//! the node receives (rows, and watermarks as they pass a mini-batch assigner, the last one
//! `Long.MAX_VALUE` at the end of input) and the changelog the job emits.
//!
//! File format: the golden layout of [`super::common::golden_replay`], whose scenario lines
//! also carry `description`, `mini_batch` (bundle size or null), an input's `time` attribute
//! and `sql` and `plan`; a proctime column holds NULL, as in Flink.
//!
//! Every scenario's node must be planned (`flink::plan_node`; a refusal fails with its
//! reason) and replayed as [`super::common::golden_replay`] replays it, on the backend it ran
//! on in Flink (memory for hashmap): whole (rows between watermarks in one batch), in 17-row
//! batches, and in batches with a checkpoint and a restore from it after every batch that a watermark follows. A
//! mini-batch operator's bundles are Flink's only if they close where Flink's closed, and a
//! checkpoint closes one (`prepareSnapshotPreBarrier`), so that replay uses batches of the
//! largest multiple of the bundle size up to 17 rows (a watermark closes a bundle and starts
//! the next batch). The output must equal Flink's per key, as the exact sequence of kinds and
//! rows, and as a whole as a multiset: across keys, Flink's order on timers and within a
//! bundle is hash-map order. Processing time only matters with state TTL: those scenarios
//! run on a manual clock that never moves (Flink's TTL of 1 h never expired in the run).
//! When a JDK and the planner classpath are present, the Java program is also run again and
//! must write the committed file byte for byte; otherwise that check reports itself skipped.

use std::path::Path;

use super::common::Backend;
use super::common::golden_replay::{self, CHUNK, Replay, Replays, Scenario};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-dedup.jsonl"
);

/// What only the dedup file records of a scenario.
struct Dedup {
    /// The bundle size of a mini-batch plan; `None` for an immediate one.
    mini_batch: Option<usize>,
}

fn dedup(v: &serde_json::Value) -> Dedup {
    Dedup {
        mini_batch: v["mini_batch"].as_u64().map(|n| n as usize),
    }
}

/// The most rows of a batch in replay `how`: a mini-batch plan's restores cut batches at
/// the largest multiple of the bundle size up to [`CHUNK`] rows, so that its bundles close
/// where Flink's closed (a checkpoint closes one).
fn rows(s: &Scenario<Dedup>, how: Replay) -> usize {
    match (how, s.own.mini_batch) {
        (Replay::Restores, Some(size)) => (CHUNK / size).max(1) * size,
        _ => how.rows(),
    }
}

#[test]
fn deduplication_matches_released_flink_changelogs() {
    let scenarios = golden_replay::read(GOLDEN, dedup);
    assert!(
        scenarios.len() >= 40,
        "only {} golden scenarios",
        scenarios.len()
    );
    // Every kind, immediate and mini-batch, on each backend.
    for kind in [
        "proctime keep-first",
        "proctime keep-last",
        "rowtime keep-first",
        "rowtime keep-last",
    ] {
        for mini_batch in [false, true] {
            for backend in [Backend::Memory, Backend::Rocks] {
                assert!(
                    scenarios.iter().any(|s| s.kind.starts_with(kind)
                        && s.own.mini_batch.is_some() == mini_batch
                        && s.backend == backend),
                    "no {kind} scenario (mini-batch {mini_batch}) on {backend:?}"
                );
            }
        }
    }
    let mut replays = Replays::default();
    for s in &scenarios {
        match streamfusion::flink::plan_node(&s.node, Some(&s.config)) {
            Ok(plan) => replays.check(s, &plan, |how| rows(s, how)),
            Err(e) => replays.fail(s, format!("the node is refused: {e}")),
        }
    }
    replays.assert_none_differ();
}

#[test]
fn golden_dedup_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_dedup_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.DedupVectors",
        Path::new(GOLDEN),
    );
}
