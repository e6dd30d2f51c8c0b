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
//! every batch, equal to the one-event run exactly.
//!
//! `tests/golden/flink-2.3.0-mini-batch-join.jsonl`, written by `MiniBatchJoinVectors.java`,
//! holds the same for `MiniBatchStreamingJoinOperator` (mini-batch INNER, LEFT, RIGHT and
//! FULL joins, with the bundle size in the header): its events are rows and flushes (a
//! watermark, on which the operator applies its bundle), and each row that fills a bundle
//! carries the bundle's output. The replay is the same, a flush being a watermark, except that
//! the batched run restores only at flushes.
//!
//! When a JDK and the planner classpath are present, each Java program is run again and must
//! write its committed file byte for byte; otherwise that check reports itself skipped.

use std::path::Path;

use serde_json::Value as Json;
use streamfusion::changelog::ChangelogBatch;
use streamfusion::join::{InputState, JoinSpec};
use streamfusion::ops::{Operator, OperatorPlan, Output, StateConfig};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::types::LogicalType;

use super::common::Backend;
use super::common::changelog::{ChangeRow, batch, change_row, columns, output_rows, str_of};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-join.jsonl"
);
const MINI_BATCH_GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-mini-batch-join.jsonl"
);
/// The side of a flush event: a watermark, on which a mini-batch join applies its bundle.
const FLUSH: usize = usize::MAX;

/// One input event (a row on input `side`, or a flush) and what Flink emitted for it.
struct Event {
    side: usize,
    row: Option<ChangeRow>,
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

fn read(path: &str) -> Vec<Scenario> {
    let text = std::fs::read_to_string(path).unwrap();
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
                row: Some(row),
                out: Vec::new(),
            });
        } else if line.get("flush").is_some() {
            s.events.push(Event {
                side: FLUSH,
                row: None,
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
    let rows: Vec<ChangeRow> = events
        .iter()
        .map(|e| e.row.clone().expect("a row event"))
        .collect();
    batch(&s.names[side], &s.types[side], &rows)
}

/// Event `at` of `s` alone, through `op`: a row as a one-row batch, a flush as a watermark.
fn one_event(s: &Scenario, at: usize, op: &mut dyn Operator, out: &mut Output) {
    let e = &s.events[at];
    if e.side == FLUSH {
        op.advance_watermark(at as i64, out).unwrap();
    } else {
        op.process(e.side, &input(s, std::slice::from_ref(e)), out)
            .unwrap();
    }
}

/// When a batched replay checkpoints and restores.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Restore {
    Never,
    AfterEachBatch,
    /// At every flush (a mini-batch join's bundle is empty there, as at Flink's barriers).
    AtFlushes,
}

fn sorted(rows: &[ChangeRow]) -> Vec<String> {
    let mut rows: Vec<String> = rows.iter().map(ToString::to_string).collect();
    rows.sort();
    rows
}

/// The scenario in batches of up to `size` row events of one input (a flush alone), with
/// checkpoints and restores as `restore` says.
fn in_batches(s: &Scenario, plan: &OperatorPlan, size: usize, restore: Restore) -> Vec<ChangeRow> {
    let dir = tempfile::tempdir().unwrap();
    let mut opened = 0;
    let mut op = plan
        .build(&state(s.backend, dir.path(), opened), None)
        .unwrap();
    let mut out = Output::new();
    let mut at = 0;
    while at < s.events.len() {
        let side = s.events[at].side;
        let len = if side == FLUSH {
            one_event(s, at, op.as_mut(), &mut out);
            1
        } else {
            let len = s.events[at..]
                .iter()
                .take(size)
                .take_while(|e| e.side == side)
                .count();
            op.process(side, &input(s, &s.events[at..at + len]), &mut out)
                .unwrap();
            len
        };
        at += len;
        if restore == Restore::AfterEachBatch || (restore == Restore::AtFlushes && side == FLUSH) {
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

/// The scenario's plan, checked against what Flink's operator was built with.
fn checked_plan(s: &Scenario) -> OperatorPlan {
    let spec = spec(s);
    let name = &s.name;
    assert_eq!(
        spec.left.state,
        flink_layout(&s.header["left_spec"]),
        "{name}"
    );
    assert_eq!(
        spec.right.state,
        flink_layout(&s.header["right_spec"]),
        "{name}"
    );
    assert_eq!(spec.left.keys, indexes(&s.header["left_keys"]), "{name}");
    assert_eq!(spec.right.keys, indexes(&s.header["right_keys"]), "{name}");
    let filter_nulls: Vec<bool> = s.header["filter_nulls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_bool().unwrap())
        .collect();
    assert_eq!(spec.filter_nulls, filter_nulls, "{name}");
    let size = s.header["mini_batch_size"].as_u64().map(|n| n as usize);
    assert_eq!(spec.mini_batch_rows, size, "{name}: the bundle size");
    OperatorPlan::Join(spec)
}

/// Replays scenario `s`: one event at a time, each event's output equal to Flink's as a
/// multiset; then in batches of 17, without and with restores (`restore`), equal to the
/// one-event run exactly. Returns the number of rows compared.
fn replay(s: &Scenario, restore: Restore) -> usize {
    let plan = checked_plan(s);
    let dir = tempfile::tempdir().unwrap();
    let mut op = plan.build(&state(s.backend, dir.path(), 0), None).unwrap();
    let mut one: Vec<ChangeRow> = Vec::new();
    for (i, e) in s.events.iter().enumerate() {
        let mut out = Output::new();
        one_event(s, i, op.as_mut(), &mut out);
        let native: Vec<ChangeRow> = out.take().iter().flat_map(output_rows).collect();
        assert_eq!(
            sorted(&native),
            sorted(&e.out),
            "{}: event {i} ({:?} on input {})",
            s.name,
            e.row.as_ref().map(ToString::to_string),
            e.side
        );
        one.extend(native);
    }
    drop(op);
    for restore in [Restore::Never, restore] {
        assert_eq!(
            in_batches(s, &plan, 17, restore),
            one,
            "{}: in batches of 17, {restore:?}",
            s.name
        );
    }
    one.len()
}

/// Every join type of `types` has a scenario on both backends.
fn assert_covered(scenarios: &[Scenario], types: &[&str]) {
    for join_type in types {
        for backend in [Backend::Memory, Backend::Rocks] {
            assert!(
                scenarios
                    .iter()
                    .any(|s| s.header["join_type"] == *join_type && s.backend == backend),
                "no {join_type} scenario on {backend:?}"
            );
        }
    }
}

#[test]
fn regular_joins_match_released_flink_changelogs() {
    let scenarios = read(GOLDEN);
    assert!(scenarios.len() >= 40, "only {} scenarios", scenarios.len());
    assert_covered(
        &scenarios,
        &["INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"],
    );
    let rows: usize = scenarios
        .iter()
        .map(|s| replay(s, Restore::AfterEachBatch))
        .sum();
    assert!(rows > 1_000, "only {rows} rows compared");
}

/// Mini-batch joins (`MiniBatchStreamingJoinOperator`): bundles end on the row that fills
/// them and on flushes, and a batch may end a bundle midway, so the batched runs must equal
/// the one-event run exactly; they restore only at flushes, where Flink's bundle is empty as
/// it is at a checkpoint barrier.
#[test]
fn mini_batch_joins_match_released_flink_changelogs() {
    let scenarios = read(MINI_BATCH_GOLDEN);
    assert!(scenarios.len() >= 24, "only {} scenarios", scenarios.len());
    assert_covered(&scenarios, &["INNER", "LEFT", "RIGHT", "FULL"]);
    for layout in [
        "NoUniqueKey",
        "InputSideHasUniqueKey",
        "JoinKeyContainsUniqueKey",
    ] {
        assert!(
            scenarios
                .iter()
                .any(|s| s.header["left_spec"]["kind"] == layout
                    && s.header["right_spec"]["kind"] == layout),
            "no scenario with {layout} on both inputs"
        );
    }
    let rows: usize = scenarios
        .iter()
        .map(|s| replay(s, Restore::AtFlushes))
        .sum();
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

#[test]
fn golden_mini_batch_join_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_mini_batch_join_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.MiniBatchJoinVectors",
        Path::new(MINI_BATCH_GOLDEN),
    );
}
