//! The temporal join against changelogs produced by released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-temporal-join.jsonl` was written by
//! `java/src/org/streamfusion/golden/TemporalJoinVectors.java`: each scenario's SQL temporal
//! join (`L [LEFT] JOIN R FOR SYSTEM_TIME AS OF L.ts ON ..` over a versioned table) is planned
//! by Flink's planner, the rows its inputs feed the join node are read where they enter it,
//! and the released `TemporalRowTimeJoinOperator` the planner built runs them (both inputs in
//! one fixed order, the watermarks of both inputs together) on the hashmap or RocksDB
//! backend, each event's output recorded after it. The header carries the node as
//! StreamFusion's planner describes it and what Flink's operator was built with: keys and
//! time columns.
//!
//! Scenarios under a state TTL (`table.exec.state.ttl`: Flink's retention, whose
//! processing-time timers clear idle keys) carry `{"processing_time":ms}` events, which move
//! the replay's manual clock and fire the operator's processing-time timers.
//!
//! `tests/golden/flink-2.3.0-proctime-temporal-join.jsonl`, written by
//! `ProcTimeTemporalJoinVectors.java`, holds temporal table function joins in processing time
//! (`L, LATERAL TABLE(F(L.pt)) AS R WHERE L.k = R.k`, INNER: Flink plans no other), which the
//! released `TemporalProcessTimeJoinOperator` ran on the scenarios' processing-time clock.
//!
//! Every scenario must be planned natively as Flink built it and replayed on the backend it
//! ran on (memory for hashmap): whole, in batches of at most 17 rows, and with a checkpoint
//! and a restore before every watermark (the operator keeps nothing outside its state). Each
//! event's output must equal Flink's per join key (the left row's) as the exact sequence: a
//! key's rows come in arrival order on both backends. When a JDK and the planner classpath
//! are present, the Java program is run again and must write the committed file byte for
//! byte; otherwise that check reports itself skipped.

use std::path::Path;

use streamfusion::join::temporal::TemporalJoinSpec;
use streamfusion::join::temporal_proctime::ProcTimeTemporalJoinSpec;
use streamfusion::ops::OperatorPlan;

use super::common::changelog::{ChangeRow, str_of};
use super::common::golden_replay::Replay;
use super::common::two_input_replay::{
    Event, Scenario, assert_coverage, index, indexes, read, replay_all,
};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-temporal-join.jsonl"
);
const PROCTIME_GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-proctime-temporal-join.jsonl"
);

/// The scenario's node as the native planner plans it.
fn planned(s: &Scenario) -> Result<OperatorPlan, String> {
    let node = str_of(&s.header["node"], "node");
    let config = str_of(&s.header["config"], "config");
    streamfusion::flink::plan_node(node, Some(config)).map_err(|e| format!("refused: {e}"))
}

/// The scenario's node planned natively, checked against what Flink's operator was built with.
fn plan(s: &Scenario) -> Result<OperatorPlan, String> {
    let spec: TemporalJoinSpec = match planned(s)? {
        OperatorPlan::TemporalJoin(spec) => spec,
        other => return Err(format!("planned as {:?}", other.kind())),
    };
    let flink = (
        s.join_type.clone(),
        indexes(&s.header["left_keys"], "left_keys"),
        indexes(&s.header["right_keys"], "right_keys"),
        index(&s.header["left_time"], "left_time"),
        index(&s.header["right_time"], "right_time"),
        flink_retention(s),
    );
    let native = (
        format!("{:?}", spec.join_type).to_uppercase(),
        spec.left.keys.clone(),
        spec.right.keys.clone(),
        spec.left.time_column,
        spec.right.time_column,
        spec.state_retention.map(|r| (r.min_ms, r.max_ms)),
    );
    if native != flink {
        return Err(format!(
            "planned as (join type, keys, time columns, min and max retention) {native:?}, \
             Flink built {flink:?}"
        ));
    }
    Ok(OperatorPlan::TemporalJoin(spec))
}

/// The retention Flink's operator cleans with: its minimum and maximum retention, when the
/// minimum is over 1 ms (`stateCleaningEnabled`).
fn flink_retention(s: &Scenario) -> Option<(i64, i64)> {
    let min = s.header["state_ttl_ms"].as_i64().expect("state_ttl_ms");
    let max = s.header["max_retention_ms"]
        .as_i64()
        .expect("max_retention_ms");
    (min > 1).then_some((min, max))
}

/// A processing-time scenario's node planned natively, checked against what Flink's operator
/// was built with.
fn plan_proctime(s: &Scenario) -> Result<OperatorPlan, String> {
    let spec: ProcTimeTemporalJoinSpec = match planned(s)? {
        OperatorPlan::ProcTimeTemporalJoin(spec) => spec,
        other => return Err(format!("planned as {:?}", other.kind())),
    };
    let flink = (
        s.join_type.clone(),
        indexes(&s.header["left_keys"], "left_keys"),
        indexes(&s.header["right_keys"], "right_keys"),
        flink_retention(s),
    );
    let native = (
        format!("{:?}", spec.join_type).to_uppercase(),
        spec.left.keys.clone(),
        spec.right.keys.clone(),
        spec.state_retention.map(|r| (r.min_ms, r.max_ms)),
    );
    if native != flink {
        return Err(format!(
            "planned as (join type, keys, retention) {native:?}, Flink built {flink:?}"
        ));
    }
    Ok(OperatorPlan::ProcTimeTemporalJoin(spec))
}

/// The join key of an output row: the left row's key columns (every output row has one).
fn key(s: &Scenario, row: &ChangeRow) -> String {
    let cells: Vec<String> = indexes(&s.header["left_keys"], "left_keys")
        .iter()
        .map(|&k| row.cells[k].to_string())
        .collect();
    format!("[{}]", cells.join(", "))
}

#[test]
fn temporal_joins_match_released_flink_changelogs() {
    let scenarios = read(GOLDEN);
    assert_coverage(&scenarios, &["INNER", "LEFT"]);
    let retracting = |side: usize| {
        scenarios.iter().any(|s| {
            s.events.iter().any(|e| {
                matches!(e, Event::Row(i, row)
                    if *i == side && matches!(row.kind.as_str(), "-U" | "-D"))
            })
        })
    };
    assert!(retracting(0), "no scenario with a retracting left row");
    assert!(retracting(1), "no scenario with a retracting version");
    // Under a state TTL: scenarios whose processing time moves (cleanup timers clear keys).
    let retained: Vec<&Scenario> = scenarios
        .iter()
        .filter(|s| s.header["state_ttl_ms"].as_i64() > Some(1))
        .collect();
    assert!(
        retained.len() >= 16,
        "only {} scenarios with a TTL",
        retained.len()
    );
    assert!(
        retained.iter().all(|s| s
            .events
            .iter()
            .any(|e| matches!(e, Event::ProcessingTime(_)))),
        "a TTL scenario whose processing time never moves"
    );
    let rows = replay_all(&scenarios, plan, |_| Replay::ALL.to_vec(), key, |_| true);
    assert!(rows > 2_000, "only {rows} rows compared");
}

#[test]
fn processing_time_temporal_joins_match_released_flink_changelogs() {
    let scenarios = read(PROCTIME_GOLDEN);
    assert_coverage(&scenarios, &["INNER"]);
    for s in &scenarios {
        assert!(
            matches!(s.events.first(), Some(Event::ProcessingTime(_))),
            "{}: the clock is not set before the first row",
            s.name
        );
    }
    let cleaned = scenarios
        .iter()
        .filter(|s| flink_retention(s).is_some())
        .count();
    assert!(cleaned >= 16, "only {cleaned} scenarios with a TTL");
    let rows = replay_all(
        &scenarios,
        plan_proctime,
        |_| Replay::ALL.to_vec(),
        key,
        |_| true,
    );
    assert!(rows > 1_000, "only {rows} rows compared");
}

#[test]
fn golden_proctime_temporal_join_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_proctime_temporal_join_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.ProcTimeTemporalJoinVectors",
        Path::new(PROCTIME_GOLDEN),
    );
}

#[test]
fn golden_temporal_join_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_temporal_join_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.TemporalJoinVectors",
        Path::new(GOLDEN),
    );
}
