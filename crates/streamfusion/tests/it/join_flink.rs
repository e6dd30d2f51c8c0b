//! The regular join against changelogs produced by released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-join.jsonl` was written by
//! `java/src/org/streamfusion/golden/JoinVectors.java`: each scenario's SQL join is planned
//! by Flink's planner, and the released `StreamingJoinOperator` or
//! `StreamingSemiAntiJoinOperator` it builds runs the scenario's events (both inputs, in
//! one fixed order) on the hashmap or RocksDB backend, each event's output recorded after
//! it. The header carries the node as StreamFusion's planner describes it (the two texts
//! `flink::plan_node` reads) and what Flink's operator was built with: the inputs' state
//! layouts, keys and NULL filters.
//!
//! Every scenario must be planned natively, with the layouts, keys and NULL filters Flink
//! built, and replayed on the backend it ran on in Flink (memory for hashmap): one event
//! per batch, each event's output equal to Flink's as a multiset (the rows one event joins
//! come in the state's iteration order, which Flink's two backends do not share); then in
//! batches of up to 17 events of one input, whole and with a checkpoint and a restore after
//! every batch, equal to the one-event run exactly. When a JDK and the planner classpath
//! are present, the Java program is run again and must write the committed file byte for
//! byte; otherwise that check reports itself skipped.

use std::path::Path;

use serde_json::Value as Json;
use streamfusion::changelog::ChangelogBatch;
use streamfusion::join::{InputState, JoinSpec};
use streamfusion::ops::{OperatorPlan, Output, StateConfig};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::types::LogicalType;

use super::common::Backend;
use super::common::changelog::{ChangeRow, batch, change_row, columns, output_rows, str_of};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-join.jsonl"
);

/// One input event and what Flink emitted for it.
struct Event {
    side: usize,
    row: ChangeRow,
    out: Vec<ChangeRow>,
}

struct Scenario {
    name: String,
    header: Json,
    backend: Backend,
    names: [Vec<String>; 2],
    types: [Vec<LogicalType>; 2],
    events: Vec<Event>,
}

fn read() -> Vec<Scenario> {
    let text = std::fs::read_to_string(GOLDEN).unwrap();
    let mut lines = text
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).unwrap());
    let first = lines.next().expect("the first line");
    assert_eq!(first["flink"], "2.3.0");
    let mut scenarios: Vec<Scenario> = Vec::new();
    for line in lines {
        if line.get("scenario").is_some() {
            let (left_names, left_types) = columns(&line["left"]);
            let (right_names, right_types) = columns(&line["right"]);
            scenarios.push(Scenario {
                name: str_of(&line["scenario"], "scenario").to_string(),
                backend: match str_of(&line["backend"], "backend") {
                    "hashmap" => Backend::Memory,
                    "rocksdb" => Backend::Rocks,
                    other => panic!("backend {other}"),
                },
                names: [left_names, right_names],
                types: [left_types, right_types],
                header: line,
                events: Vec::new(),
            });
            continue;
        }
        let s = scenarios.last_mut().expect("a scenario header first");
        if line.get("in").is_some() {
            let side = line["side"].as_u64().expect("a side") as usize;
            let row = change_row(&line, "in", &s.types[side]);
            s.events.push(Event {
                side,
                row,
                out: Vec::new(),
            });
        } else {
            let semi_anti = matches!(s.header["join_type"].as_str(), Some("SEMI" | "ANTI"));
            let mut types = s.types[0].clone();
            if !semi_anti {
                types.extend(s.types[1].iter().cloned());
            }
            let out = change_row(&line, "out", &types);
            s.events.last_mut().expect("an event first").out.push(out);
        }
    }
    for s in &scenarios {
        assert_eq!(
            s.events.len() as u64,
            s.header["events"].as_u64().unwrap(),
            "{}",
            s.name
        );
    }
    scenarios
}

fn spec(s: &Scenario) -> JoinSpec {
    let node = str_of(&s.header["node"], "node");
    let config = str_of(&s.header["config"], "config");
    match streamfusion::flink::plan_node(node, Some(config)) {
        Ok(OperatorPlan::Join(spec)) => spec,
        Ok(other) => panic!("{}: planned as {:?}", s.name, other.kind()),
        Err(e) => panic!("{}: refused: {e}", s.name),
    }
}

/// Flink's operator's layout of one input, as the header records it.
fn flink_layout(v: &Json) -> InputState {
    match str_of(&v["kind"], "layout") {
        "NoUniqueKey" => InputState::NoUniqueKey,
        "JoinKeyContainsUniqueKey" => InputState::JoinKey,
        "InputSideHasUniqueKey" => InputState::UniqueKey {
            columns: v["unique_key"]
                .as_array()
                .expect("a unique key")
                .iter()
                .map(|c| c.as_u64().unwrap() as usize)
                .collect(),
        },
        other => panic!("layout {other}"),
    }
}

fn indexes(v: &Json) -> Vec<usize> {
    v.as_array()
        .expect("indexes")
        .iter()
        .map(|c| c.as_u64().unwrap() as usize)
        .collect()
}

fn state(backend: Backend, dir: &Path, n: usize) -> StateConfig {
    match backend {
        Backend::Memory => StateConfig::memory(),
        Backend::Rocks => StateConfig::rocksdb(dir.join(format!("db{n}"))),
    }
}

fn input(s: &Scenario, events: &[Event]) -> ChangelogBatch {
    let side = events[0].side;
    let rows: Vec<ChangeRow> = events.iter().map(|e| e.row.clone()).collect();
    batch(&s.names[side], &s.types[side], &rows)
}

fn sorted(rows: &[ChangeRow]) -> Vec<String> {
    let mut rows: Vec<String> = rows.iter().map(ToString::to_string).collect();
    rows.sort();
    rows
}

/// The scenario in batches of up to `size` events of one input; with `restore`, each
/// batch is followed by a checkpoint and a restore from it.
fn in_batches(s: &Scenario, plan: &OperatorPlan, size: usize, restore: bool) -> Vec<ChangeRow> {
    let dir = tempfile::tempdir().unwrap();
    let mut opened = 0;
    let mut op = plan
        .build(&state(s.backend, dir.path(), opened), None)
        .unwrap();
    let mut out = Output::new();
    let mut at = 0;
    while at < s.events.len() {
        let side = s.events[at].side;
        let len = s.events[at..]
            .iter()
            .take(size)
            .take_while(|e| e.side == side)
            .count();
        op.process(side, &input(s, &s.events[at..at + len]), &mut out)
            .unwrap();
        at += len;
        if restore {
            op.prepare_checkpoint(&mut out).unwrap();
            let c = op.checkpoint(&dir.path().join(format!("c{at}"))).unwrap();
            opened += 1;
            op = plan
                .restore(
                    &state(s.backend, dir.path(), opened),
                    None,
                    &[Checkpoint::open(c.path()).unwrap()],
                )
                .unwrap();
        }
    }
    op.flush(&mut out).unwrap();
    out.take().iter().flat_map(output_rows).collect()
}

#[test]
fn regular_joins_match_released_flink_changelogs() {
    let scenarios = read();
    assert!(scenarios.len() >= 40, "only {} scenarios", scenarios.len());
    for join_type in ["INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"] {
        for backend in [Backend::Memory, Backend::Rocks] {
            assert!(
                scenarios
                    .iter()
                    .any(|s| s.header["join_type"] == join_type && s.backend == backend),
                "no {join_type} scenario on {backend:?}"
            );
        }
    }
    let mut rows = 0;
    for s in &scenarios {
        let spec = spec(s);
        assert_eq!(
            spec.left.state,
            flink_layout(&s.header["left_spec"]),
            "{}",
            s.name
        );
        assert_eq!(
            spec.right.state,
            flink_layout(&s.header["right_spec"]),
            "{}",
            s.name
        );
        assert_eq!(
            spec.left.keys,
            indexes(&s.header["left_keys"]),
            "{}",
            s.name
        );
        assert_eq!(
            spec.right.keys,
            indexes(&s.header["right_keys"]),
            "{}",
            s.name
        );
        let filter_nulls: Vec<bool> = s.header["filter_nulls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_bool().unwrap())
            .collect();
        assert_eq!(spec.filter_nulls, filter_nulls, "{}", s.name);
        let plan = OperatorPlan::Join(spec);

        let dir = tempfile::tempdir().unwrap();
        let mut op = plan.build(&state(s.backend, dir.path(), 0), None).unwrap();
        let mut one: Vec<ChangeRow> = Vec::new();
        for (i, e) in s.events.iter().enumerate() {
            let mut out = Output::new();
            op.process(e.side, &input(s, std::slice::from_ref(e)), &mut out)
                .unwrap();
            let native: Vec<ChangeRow> = out.take().iter().flat_map(output_rows).collect();
            assert_eq!(
                sorted(&native),
                sorted(&e.out),
                "{}: event {i} ({} on input {})",
                s.name,
                e.row,
                e.side
            );
            rows += native.len();
            one.extend(native);
        }
        drop(op);
        for restore in [false, true] {
            assert_eq!(
                in_batches(s, &plan, 17, restore),
                one,
                "{}: in batches of 17, restored after each: {restore}",
                s.name
            );
        }
    }
    assert!(rows > 1_000, "only {rows} rows compared");
}

#[test]
fn golden_join_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_join_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.JoinVectors",
        Path::new(GOLDEN),
    );
}
