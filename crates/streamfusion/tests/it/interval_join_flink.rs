//! The interval join against changelogs produced by released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-interval-join.jsonl` was written by
//! `java/src/org/streamfusion/golden/IntervalJoinVectors.java`: each scenario's SQL interval
//! join (`[INNER|LEFT|RIGHT|FULL] JOIN` on keys and `L.ts BETWEEN R.ts + lower AND R.ts +
//! upper` or strict bounds, in event time) is planned by Flink's planner, the rows its inputs
//! feed the join node are read where they enter it, and the released `RowTimeIntervalJoin`
//! the planner built runs them (both inputs in one fixed order, the watermarks of both
//! inputs together) on the hashmap or RocksDB backend, each event's output recorded after it.
//! The header carries the node as StreamFusion's planner describes it and what Flink's
//! operator was built with: keys, NULL filters, time columns, bounds and the minimum cleanup
//! interval.
//!
//! Every scenario must be planned natively as Flink built it and replayed on the backend it
//! ran on (memory for hashmap): whole and in batches of at most 17 rows. Each event's output
//! must equal Flink's per join key (the left row's, or the right row's where the left is
//! padding): on RocksDB as the exact sequence, on hashmap as a multiset, since Flink's heap
//! map state walks a key's cached times in hash order where the native operator (and
//! Flink's RocksDB state) walks them in the bytes' order. In the scenarios where that order
//! changes which rows Flink emits (a cleanup over times on both sides of the epoch, decision
//! 0048), its two backends disagree and the native operator is held to the RocksDB run.
//!
//! A checkpoint and restore are replayed too, before every watermark, in the scenarios where
//! a restore cannot change what Flink emits: Flink keeps how far each input is known expired
//! in operator fields that a restore resets (the native operator too), and a row whose upper
//! bound is not past that time skips its probe, so a restore changes the output only where
//! some row arrives that late. The restore replays run on the scenarios without such rows.
//! When a JDK and the planner classpath are present, the Java program is run again and must
//! write the committed file byte for byte; otherwise that check reports itself skipped.
//!
//! `tests/golden/flink-2.3.0-proctime-interval-join.jsonl`, written by
//! `ProcTimeIntervalJoinVectors.java`, holds the same joins in processing time: the released
//! `ProcTimeIntervalJoin` in a `KeyedCoProcessOperator`, driven with a processing-time
//! service whose clock the scenario sets (`{"processing_time": ms}` events, which fire the
//! timers due). The replay sets the native operator's clock to the same times. Its rows'
//! time columns are Flink's NULL placeholders. In processing time every row probes (its
//! upper bound always lies past the other input's expiration time), so a restore never
//! changes the output and every scenario is replayed across restores too.

use std::collections::BTreeSet;
use std::path::Path;

use streamfusion::join::interval::IntervalJoinSpec;
use streamfusion::ops::OperatorPlan;

use super::common::Backend;
use super::common::changelog::{Cell, ChangeRow, str_of};
use super::common::golden_replay::Replay;
use super::common::two_input_replay::{
    Event, Scenario, assert_coverage, flink_keys, index, join_key, read, replay_all,
};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-interval-join.jsonl"
);

const PROCTIME_GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-proctime-interval-join.jsonl"
);

/// Whether the scenario ran Flink's processing-time join.
fn processing_time(s: &Scenario) -> bool {
    s.header["operator"] == "ProcTimeIntervalJoin"
}

const JOIN_TYPES: [&str; 4] = ["INNER", "LEFT", "RIGHT", "FULL"];

/// The scenario's node planned natively, checked against what Flink's operator was built with.
fn plan(s: &Scenario) -> Result<OperatorPlan, String> {
    let node = str_of(&s.header["node"], "node");
    let config = str_of(&s.header["config"], "config");
    let spec: IntervalJoinSpec = match streamfusion::flink::plan_node(node, Some(config)) {
        Ok(OperatorPlan::IntervalJoin(spec)) => spec,
        Ok(other) => return Err(format!("planned as {:?}", other.kind())),
        Err(e) => return Err(format!("refused: {e}")),
    };
    let long = |name: &str| {
        s.header[name]
            .as_i64()
            .unwrap_or_else(|| panic!("{}: {name}", s.name))
    };
    let (join_type, left_keys, right_keys, filter_nulls) = flink_keys(s);
    let flink = (
        join_type,
        left_keys,
        right_keys,
        filter_nulls,
        (
            index(&s.header["left_time"], "left_time"),
            index(&s.header["right_time"], "right_time"),
        ),
        (long("lower"), long("upper"), long("min_cleanup_ms")),
    );
    if spec.processing_time != processing_time(s) {
        return Err(format!(
            "planned with processing_time {}, Flink built {}",
            spec.processing_time, s.header["operator"]
        ));
    }
    let native = (
        format!("{:?}", spec.join_type).to_uppercase(),
        spec.left.keys.clone(),
        spec.right.keys.clone(),
        spec.filter_nulls.clone(),
        (spec.left.time_column, spec.right.time_column),
        (
            spec.lower_bound,
            spec.upper_bound,
            spec.min_cleanup_interval,
        ),
    );
    if native != flink {
        return Err(format!(
            "planned as (join type, keys, NULL filters, time columns, bounds and cleanup) \
             {native:?}, Flink built {flink:?}"
        ));
    }
    Ok(OperatorPlan::IntervalJoin(spec))
}

/// The join key of an output row: where the left row is padding, its time (never NULL in an
/// input row in event time) or in processing time its `id` (the time is NULL there) is NULL.
fn key(s: &Scenario, row: &ChangeRow) -> String {
    let column = if processing_time(s) {
        s.names[0]
            .iter()
            .position(|n| n == "id")
            .unwrap_or_else(|| panic!("{}: no left id column", s.name))
    } else {
        index(&s.header["left_time"], "left_time")
    };
    join_key(s, row, column)
}

/// Whether a restore cannot change what Flink emits: every row arrives before its upper
/// bound falls behind the other input's expiration time (`operator time - its size - 1`),
/// so every row probes, whether the expiration times a restore resets were set before or
/// not (they only ever move up to the current one).
fn restores_are_exact(s: &Scenario) -> bool {
    let time = [
        index(&s.header["left_time"], "left_time"),
        index(&s.header["right_time"], "right_time"),
    ];
    let long = |name: &str| s.header[name].as_i64().expect("a bound");
    let size = [long("lower").wrapping_neg(), long("upper")];
    let mut operator_time = 0i64;
    for event in &s.events {
        match event {
            Event::Watermark(w) => operator_time = operator_time.max(*w),
            Event::ProcessingTime(_) => {}
            Event::Row(side, row) => {
                let Cell::Int(t) = row.cells[time[*side]] else {
                    return false;
                };
                let other = 1 - side;
                let expired = if operator_time == i64::MAX {
                    i64::MAX
                } else {
                    operator_time - size[other] - 1
                };
                if t.wrapping_add(size[*side]) <= expired {
                    return false;
                }
            }
        }
    }
    true
}

#[test]
fn interval_joins_match_released_flink_changelogs() {
    let scenarios = read(GOLDEN);
    assert_coverage(&scenarios, &JOIN_TYPES);
    assert!(
        scenarios.iter().any(|s| s.header["min_cleanup_ms"] != 0),
        "no scenario with a minimum cleanup interval"
    );
    // Where Flink's two backends emit different rows, the heap's depend on its hash order;
    // the native operator is held to the RocksDB run's.
    let by_hash_order: BTreeSet<&str> = scenarios
        .iter()
        .filter(|s| s.backend == Backend::Memory)
        .filter_map(|s| {
            // A scenario's RocksDB twin is named `<name>_rocksdb`.
            let twin = format!("{}_rocksdb", s.name);
            Some((s, scenarios.iter().find(|t| t.name == twin)?))
        })
        .filter(|(s, twin)| {
            let sorted = |rows: &[ChangeRow]| {
                let mut rows: Vec<String> = rows.iter().map(ToString::to_string).collect();
                rows.sort();
                rows
            };
            (s.outputs.iter().map(|o| sorted(o)).collect::<Vec<_>>())
                != twin.outputs.iter().map(|o| sorted(o)).collect::<Vec<_>>()
        })
        .map(|(s, _)| s.name.as_str())
        .collect();
    for s in scenarios
        .iter()
        .filter(|s| by_hash_order.contains(s.name.as_str()))
    {
        let description = str_of(&s.header["description"], "description");
        assert!(
            description.contains("the backends' outputs differ"),
            "{}: Flink's backends emit different rows: {description}",
            s.name
        );
    }
    assert!(by_hash_order.len() <= 2, "{by_hash_order:?}");
    assert!(
        scenarios.iter().filter(|s| restores_are_exact(s)).count() >= 20,
        "fewer than 20 scenarios replayed across restores"
    );
    let rows = replay_all(
        &scenarios,
        plan,
        |s| {
            if s.backend == Backend::Memory && by_hash_order.contains(s.name.as_str()) {
                Vec::new()
            } else if restores_are_exact(s) {
                Replay::ALL.to_vec()
            } else {
                vec![Replay::Whole, Replay::Chunks]
            }
        },
        key,
        |s| s.backend == Backend::Rocks,
    );
    assert!(rows > 5_000, "only {rows} rows compared");
}

#[test]
fn golden_interval_join_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_interval_join_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.IntervalJoinVectors",
        Path::new(GOLDEN),
    );
}

#[test]
fn processing_time_interval_joins_match_released_flink_changelogs() {
    let scenarios = read(PROCTIME_GOLDEN);
    assert_coverage(&scenarios, &JOIN_TYPES);
    assert!(scenarios.iter().all(processing_time));
    for s in &scenarios {
        assert!(
            matches!(s.events.first(), Some(Event::ProcessingTime(_))),
            "{}: the clock is not set before the first row",
            s.name
        );
    }
    let timers = |s: &Scenario| {
        s.events
            .iter()
            .zip(&s.outputs)
            .any(|(e, out)| matches!(e, Event::ProcessingTime(_)) && !out.is_empty())
    };
    assert!(
        scenarios.iter().filter(|s| timers(s)).count() >= 20,
        "fewer than 20 scenarios where a cleanup timer emits"
    );
    assert!(
        scenarios.iter().any(|s| s.header["min_cleanup_ms"] != 0),
        "no scenario with a minimum cleanup interval"
    );
    let rows = replay_all(
        &scenarios,
        plan,
        |_| Replay::ALL.to_vec(),
        key,
        |s| s.backend == Backend::Rocks,
    );
    assert!(rows > 3_000, "only {rows} rows compared");
}

#[test]
fn golden_proctime_interval_join_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_proctime_interval_join_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.ProcTimeIntervalJoinVectors",
        Path::new(PROCTIME_GOLDEN),
    );
}
