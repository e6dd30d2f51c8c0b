//! Window operators against changelogs produced by released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-window.jsonl` was written by
//! `java/src/org/streamfusion/golden/WindowVectors.java`, which runs each scenario through Flink
//! SQL at parallelism 1 over a rowtime source with punctuated watermarks, on the hashmap or the
//! RocksDB state backend and in the scenario's session time zone: window aggregation over the
//! window TVFs (TUMBLE, HOP, CUMULATE, SESSION; one phase), the legacy `GROUP BY .., TUMBLE|HOP|
//! SESSION(ts, ..)` group windows, window Top-N, window deduplication, and the global phase of a
//! two-phase window aggregate. It records the window node as StreamFusion's planner describes
//! it (the two texts `flink::plan_node` reads), the events the node receives (where its input
//! is not the source's rows, such as a window Top-N's rows with the window TVF's columns or the
//! local phase's partials, as they entered the node, watermarks among them) and the rows the
//! node emits.
//!
//! File format: the golden layout of [`super::common::golden_replay`], whose scenario lines
//! also carry `description`, `kind` (`tumble`, `hop`, `cumulate`, `session`, `legacy tumble`,
//! `legacy hop`, `legacy session`, `top-n`, `keep first`, `keep last`, `two-phase tumble`,
//! `two-phase hop`, `two-phase cumulate`), `window`, `node_type`,
//! `zone`, `sql` and `plan`; `output_columns` are the node's output columns.
//!
//! Every scenario must be planned natively and replayed whole, in 17-row batches, and in
//! batches with a checkpoint and a restore before every watermark; the output must equal
//! Flink's per grouping or partition key as the exact sequence of rows, and as a whole as a
//! multiset. When a JDK and the planner classpath are present, the Java program is run again
//! and must write the committed file byte for byte.

use std::path::Path;

use serde_json::Value as Json;

use super::common::golden_replay::{self, Replays};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-window.jsonl"
);

const KINDS: [&str; 10] = [
    "tumble",
    "hop",
    "cumulate",
    "session",
    "legacy tumble",
    "legacy hop",
    "legacy session",
    "top-n",
    "keep first",
    "keep last",
];

/// The session time zone a scenario ran in.
fn zone(v: &Json) -> String {
    v["zone"].as_str().expect("zone").to_string()
}

#[test]
fn window_operators_match_released_flink_changelogs() {
    let scenarios = golden_replay::read(GOLDEN, zone);
    golden_replay::assert_enough(&scenarios);
    for kind in KINDS {
        golden_replay::assert_on_both_backends(&scenarios, kind, |s| s.kind == kind);
    }
    golden_replay::assert_on_both_backends(&scenarios, "two-phase", |s| {
        s.kind.starts_with("two-phase ")
    });
    assert!(
        scenarios.iter().any(|s| s.own == "America/Los_Angeles"),
        "no scenario across daylight saving transitions"
    );
    Replays::run_all(&scenarios, |_| true, |_, how| how.rows());
}

#[test]
fn golden_window_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_window_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.WindowVectors",
        Path::new(GOLDEN),
    );
}
