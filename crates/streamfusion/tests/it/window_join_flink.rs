//! The window join against changelogs produced by released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-window-join.jsonl` was written by
//! `java/src/org/streamfusion/golden/WindowJoinVectors.java`: each scenario's SQL window join
//! (`[INNER|LEFT|RIGHT|FULL] JOIN` in the same TUMBLE, HOP, CUMULATE or SESSION window, or the
//! semi and anti joins of `IN`, `EXISTS`, `NOT EXISTS` and `NOT IN`) is planned by Flink's
//! planner, the rows its two window TVFs feed the join node are read where they enter it, and
//! the released `WindowJoinOperator` the planner built runs them (both inputs in one fixed
//! order, the watermarks of both inputs together) on the hashmap or RocksDB backend, each
//! event's output recorded after it. The header carries the node as StreamFusion's planner
//! describes it (the two texts `flink::plan_node` reads) and what Flink's operator was built
//! with: keys, NULL filters and window end columns.
//!
//! Every scenario must be planned natively, with the keys, NULL filters and window end columns
//! Flink built, and replayed on the backend it ran on in Flink (memory for hashmap): whole (each
//! run of one input's rows between watermarks in one batch), in batches of at most 17 rows, and
//! so with a checkpoint and a restore from it before every watermark (and after every batch
//! before the first: a restored operator has no watermark until the next arrives, as Flink's).
//! Only watermarks make a window join emit. Each watermark's output must equal Flink's per join
//! key (the left row's, or the right row's where the left is padding) as the exact sequence of
//! rows: a key's windows fire in the order of their ends and join their rows in arrival order;
//! across keys the order of timers of one time is the state backend's. When a JDK and the
//! planner classpath are present, the Java program is run again and must write the committed
//! file byte for byte; otherwise that check reports itself skipped.

use std::path::Path;

use streamfusion::join::window::WindowJoinSpec;
use streamfusion::ops::OperatorPlan;

use super::common::Backend;
use super::common::changelog::{ChangeRow, str_of};
use super::common::golden_replay::Replay;
use super::common::two_input_replay::{
    Scenario, assert_coverage, flink_keys, index, join_key, read, replay_all,
};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-window-join.jsonl"
);

const JOIN_TYPES: [&str; 6] = ["INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"];

/// The scenario's node planned natively, checked against what Flink's operator was built with.
fn plan(s: &Scenario) -> Result<OperatorPlan, String> {
    let node = str_of(&s.header["node"], "node");
    let config = str_of(&s.header["config"], "config");
    let spec: WindowJoinSpec = match streamfusion::flink::plan_node(node, Some(config)) {
        Ok(OperatorPlan::WindowJoin(spec)) => spec,
        Ok(other) => return Err(format!("planned as {:?}", other.kind())),
        Err(e) => return Err(format!("refused: {e}")),
    };
    let (join_type, left_keys, right_keys, filter_nulls) = flink_keys(s);
    let flink = (
        join_type,
        left_keys,
        right_keys,
        filter_nulls,
        index(&s.header["left_window_end"], "left_window_end"),
        index(&s.header["right_window_end"], "right_window_end"),
    );
    let native = (
        format!("{:?}", spec.join_type).to_uppercase(),
        spec.left.keys.clone(),
        spec.right.keys.clone(),
        spec.filter_nulls.clone(),
        spec.left.window_end_column,
        spec.right.window_end_column,
    );
    if native != flink {
        return Err(format!(
            "planned as (join type, keys, NULL filters, window ends) {native:?}, Flink built \
             {flink:?}"
        ));
    }
    Ok(OperatorPlan::WindowJoin(spec))
}

/// The join key of an output row: where the left row is padding, its window end (never NULL
/// in an input row) is NULL.
fn key(s: &Scenario, row: &ChangeRow) -> String {
    join_key(
        s,
        row,
        index(&s.header["left_window_end"], "left_window_end"),
    )
}

#[test]
fn window_joins_match_released_flink_changelogs() {
    let scenarios = read(GOLDEN);
    assert_coverage(&scenarios, &JOIN_TYPES);
    for kind in ["tumble", "hop", "cumulate", "session"] {
        for backend in [Backend::Memory, Backend::Rocks] {
            assert!(
                scenarios
                    .iter()
                    .any(|s| s.kind == kind && s.backend == backend),
                "no {kind} scenario on {backend:?}"
            );
        }
    }
    assert!(
        scenarios
            .iter()
            .any(|s| s.header["zone"] == "America/Los_Angeles"),
        "no scenario across daylight saving transitions"
    );
    let rows = replay_all(
        &scenarios,
        plan,
        |_| Replay::ALL.to_vec(),
        key,
        // A key's windows fire in the order of their ends on both backends.
        |_| true,
    );
    assert!(rows > 10_000, "only {rows} rows compared");
}

#[test]
fn golden_window_join_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_window_join_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.WindowJoinVectors",
        Path::new(GOLDEN),
    );
}
