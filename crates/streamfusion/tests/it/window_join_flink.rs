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

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value as Json;
use streamfusion::join::window::WindowJoinSpec;
use streamfusion::ops::{Operator, OperatorPlan, Output, StateConfig};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::types::LogicalType;

use super::common::Backend;
use super::common::changelog::{Cell, ChangeRow, batch, change_row, columns, output_rows, str_of};
use super::common::golden_replay::Replay;

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-window-join.jsonl"
);

const JOIN_TYPES: [&str; 6] = ["INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"];

/// One input event: a row of input 0 or 1, or a watermark of both.
enum Event {
    Row(usize, ChangeRow),
    Watermark(i64),
}

struct Scenario {
    name: String,
    kind: String,
    join_type: String,
    backend: Backend,
    header: Json,
    names: [Vec<String>; 2],
    types: [Vec<LogicalType>; 2],
    output_types: Vec<LogicalType>,
    events: Vec<Event>,
    /// Per event, what Flink emitted for it.
    outputs: Vec<Vec<ChangeRow>>,
}

fn indexes(v: &Json, what: &str) -> Vec<usize> {
    v.as_array()
        .unwrap_or_else(|| panic!("{what}: {v}"))
        .iter()
        .map(|c| c.as_u64().unwrap_or_else(|| panic!("{what}: {c}")) as usize)
        .collect()
}

fn index(v: &Json, what: &str) -> usize {
    v.as_u64().unwrap_or_else(|| panic!("{what}: {v}")) as usize
}

fn read() -> Vec<Scenario> {
    let text = std::fs::read_to_string(GOLDEN).expect("golden changelogs");
    let mut lines = text.lines().enumerate();
    let (_, first) = lines.next().expect("a header line");
    let first: Json = serde_json::from_str(first).unwrap();
    assert_eq!(first["flink"], "2.3.0", "{first}");
    let mut scenarios: Vec<Scenario> = Vec::new();
    for (number, line) in lines {
        let v: Json =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", number + 1));
        if v.get("scenario").is_some() {
            let (left_names, left_types) = columns(&v["left"]);
            let (right_names, right_types) = columns(&v["right"]);
            let (_, output_types) = columns(&v["output"]);
            scenarios.push(Scenario {
                name: str_of(&v["scenario"], "scenario").to_string(),
                kind: str_of(&v["kind"], "kind").to_string(),
                join_type: str_of(&v["join_type"], "join_type").to_string(),
                backend: match str_of(&v["backend"], "backend") {
                    "hashmap" => Backend::Memory,
                    "rocksdb" => Backend::Rocks,
                    other => panic!("line {}: backend {other}", number + 1),
                },
                names: [left_names, right_names],
                types: [left_types, right_types],
                output_types,
                header: v,
                events: Vec::new(),
                outputs: Vec::new(),
            });
            continue;
        }
        let s = scenarios
            .last_mut()
            .unwrap_or_else(|| panic!("line {}: an event before any scenario", number + 1));
        if let Some(w) = v.get("watermark") {
            let w = w
                .as_i64()
                .unwrap_or_else(|| panic!("line {}: {w}", number + 1));
            s.events.push(Event::Watermark(w));
            s.outputs.push(Vec::new());
        } else if v.get("in").is_some() {
            let side = index(&v["side"], "side");
            let row = change_row(&v, "in", &s.types[side]);
            s.events.push(Event::Row(side, row));
            s.outputs.push(Vec::new());
        } else {
            let row = change_row(&v, "out", &s.output_types);
            s.outputs
                .last_mut()
                .unwrap_or_else(|| panic!("line {}: an output before any event", number + 1))
                .push(row);
        }
    }
    // The declared counts, so that a truncated file cannot pass.
    for s in &scenarios {
        assert_eq!(
            s.events.len(),
            index(&s.header["events"], "events"),
            "{}: events",
            s.name
        );
        assert_eq!(
            s.outputs.iter().map(Vec::len).sum::<usize>(),
            index(&s.header["rows_out"], "rows_out"),
            "{}: output rows",
            s.name
        );
    }
    scenarios
}

/// The scenario's node planned natively, checked against what Flink's operator was built with.
fn plan(s: &Scenario) -> Result<OperatorPlan, String> {
    let node = str_of(&s.header["node"], "node");
    let config = str_of(&s.header["config"], "config");
    let spec: WindowJoinSpec = match streamfusion::flink::plan_node(node, Some(config)) {
        Ok(OperatorPlan::WindowJoin(spec)) => spec,
        Ok(other) => return Err(format!("planned as {:?}", other.kind())),
        Err(e) => return Err(format!("refused: {e}")),
    };
    let flink = (
        s.join_type.clone(),
        indexes(&s.header["left_keys"], "left_keys"),
        indexes(&s.header["right_keys"], "right_keys"),
        s.header["filter_nulls"]
            .as_array()
            .expect("filter_nulls")
            .iter()
            .map(|b| b.as_bool().expect("a bool"))
            .collect::<Vec<_>>(),
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
    let plan = OperatorPlan::WindowJoin(spec);
    let op = plan
        .build(&StateConfig::memory(), None)
        .map_err(|e| format!("build: {e}"))?;
    for side in 0..2 {
        if op.input_types(side) != s.types[side].as_slice() {
            return Err(format!(
                "input {side}: the operator reads {:?}, Flink's node {:?}",
                op.input_types(side),
                s.types[side]
            ));
        }
    }
    if op.output_types() != s.output_types.as_slice() {
        return Err(format!(
            "the operator writes {:?}, Flink's node {:?}",
            op.output_types(),
            s.output_types
        ));
    }
    Ok(plan)
}

/// Where a replay's operator (the `n`th it opens) keeps its state.
fn state(s: &Scenario, dir: &Path, n: usize) -> StateConfig {
    match s.backend {
        Backend::Memory => StateConfig::memory(),
        Backend::Rocks => StateConfig::rocksdb(dir.join(format!("state-{n}"))),
    }
}

/// Replays the events through operators built from `plan`, each run of one input's rows
/// between watermarks in batches of at most `chunk` (with a checkpoint and a restore before
/// every watermark, and after every batch before the first, in [`Replay::Restores`]); per
/// event, the rows emitted for it, or what failed.
fn replay(
    s: &Scenario,
    plan: &OperatorPlan,
    how: Replay,
    chunk: usize,
) -> Result<Vec<Vec<ChangeRow>>, String> {
    let dir = tempfile::tempdir().unwrap();
    let mut opened = 0;
    let mut op: Box<dyn Operator> = plan
        .build(&state(s, dir.path(), opened), None)
        .map_err(|e| format!("build: {e}"))?;
    let mut got: Vec<Vec<ChangeRow>> = (0..s.events.len()).map(|_| Vec::new()).collect();
    let mut out = Output::new();
    let mut watermark = false;
    let mut at = 0;
    while at < s.events.len() {
        // The last event this call covers, and what it was.
        let (last, what) = match &s.events[at] {
            Event::Watermark(w) => {
                op.advance_watermark(*w, &mut out)
                    .map_err(|e| format!("watermark {w}: {e}"))?;
                watermark = true;
                (at, format!("watermark {w}"))
            }
            Event::Row(side, _) => {
                let rows: Vec<ChangeRow> = s.events[at..]
                    .iter()
                    .take(chunk)
                    .map_while(|e| match e {
                        Event::Row(other, row) if other == side => Some(row.clone()),
                        _ => None,
                    })
                    .collect();
                let input = batch(&s.names[*side], op.input_types(*side), &rows);
                op.process(*side, &input, &mut out)
                    .map_err(|e| format!("events {at}..{}: {e}", at + rows.len()))?;
                (
                    at + rows.len() - 1,
                    format!("event {}", at + rows.len() - 1),
                )
            }
        };
        got[last].extend(out.take().iter().flat_map(output_rows));
        at = last + 1;
        let before_watermark = matches!(s.events.get(at), Some(Event::Watermark(_)));
        if how == Replay::Restores && at < s.events.len() && (before_watermark || !watermark) {
            op.prepare_checkpoint(&mut out)
                .map_err(|e| format!("prepare_checkpoint after {what}: {e}"))?;
            got[last].extend(out.take().iter().flat_map(output_rows));
            let published = op
                .checkpoint(&dir.path().join(format!("checkpoint-{at}")))
                .map_err(|e| format!("checkpoint after {what}: {e}"))?;
            let checkpoint = Checkpoint::open(published.path()).unwrap();
            drop(op);
            opened += 1;
            op = plan
                .restore(&state(s, dir.path(), opened), None, &[checkpoint])
                .map_err(|e| format!("restore after {what}: {e}"))?;
        }
    }
    op.flush(&mut out).map_err(|e| format!("flush: {e}"))?;
    got.last_mut()
        .expect("an event")
        .extend(out.take().iter().flat_map(output_rows));
    Ok(got)
}

/// The join key of an output row as text: the left row's key columns, or the right row's
/// where the left row is padding (its window end, never NULL in an input row, is NULL).
fn key(s: &Scenario, row: &ChangeRow) -> String {
    let left_keys = indexes(&s.header["left_keys"], "left_keys");
    let left_end = index(&s.header["left_window_end"], "left_window_end");
    let (offset, keys) = if row.cells[left_end] == Cell::Null {
        (
            s.types[0].len(),
            indexes(&s.header["right_keys"], "right_keys"),
        )
    } else {
        (0, left_keys)
    };
    let cells: Vec<String> = keys
        .iter()
        .map(|&k| row.cells[offset + k].to_string())
        .collect();
    format!(
        "{} [{}]",
        if offset == 0 { "left" } else { "right" },
        cells.join(", ")
    )
}

/// What differs between Flink's output and `got` for event `i`: per join key, the first
/// differing row of the key's sequence.
fn diff(s: &Scenario, i: usize, got: &[ChangeRow]) -> Option<String> {
    let want = &s.outputs[i];
    if want == got {
        return None;
    }
    let by_key = |rows: &[ChangeRow]| {
        let mut keys: BTreeMap<String, Vec<ChangeRow>> = BTreeMap::new();
        for r in rows {
            keys.entry(key(s, r)).or_default().push(r.clone());
        }
        keys
    };
    let (a, b) = (by_key(want), by_key(got));
    let what = match &s.events[i] {
        Event::Watermark(w) => format!("watermark {w}"),
        Event::Row(side, row) => format!("row {row} of input {side}"),
    };
    let mut text = String::new();
    let mut differing = 0;
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for k in keys {
        let (a, b) = (
            a.get(k).map_or(&[][..], Vec::as_slice),
            b.get(k).map_or(&[][..], Vec::as_slice),
        );
        let Some(first) = (0..a.len().max(b.len())).find(|&j| a.get(j) != b.get(j)) else {
            continue;
        };
        differing += 1;
        if differing > 3 {
            continue;
        }
        let show = |r: Option<&ChangeRow>| r.map_or_else(|| "(none)".into(), |r| r.to_string());
        text.push_str(&format!(
            "  event {i} ({what}), key {k}: Flink emitted {} rows, the native operator {}; first \
             difference at the key's row {first}\n",
            a.len(),
            b.len()
        ));
        for j in first.saturating_sub(1)..(first + 3).min(a.len().max(b.len())) {
            let mark = if a.get(j) == b.get(j) { ' ' } else { '>' };
            text.push_str(&format!("  {mark} {j:4} flink  {}\n", show(a.get(j))));
            text.push_str(&format!("  {mark} {j:4} native {}\n", show(b.get(j))));
        }
    }
    if differing > 3 {
        text.push_str(&format!("  ... {differing} keys differ in all\n"));
    }
    (!text.is_empty()).then_some(text)
}

#[test]
fn window_joins_match_released_flink_changelogs() {
    let scenarios = read();
    assert!(
        scenarios.len() >= 40,
        "only {} golden scenarios",
        scenarios.len()
    );
    let names: BTreeSet<&str> = scenarios.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), scenarios.len(), "scenario names repeat");
    for join_type in JOIN_TYPES {
        for backend in [Backend::Memory, Backend::Rocks] {
            assert!(
                scenarios
                    .iter()
                    .any(|s| s.join_type == join_type && s.backend == backend),
                "no {join_type} scenario on {backend:?}"
            );
        }
    }
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
    let mut failures = Vec::new();
    let mut rows = 0;
    let mut replays = 0;
    for s in &scenarios {
        let plan = match plan(s) {
            Ok(plan) => plan,
            Err(e) => {
                failures.push(format!("scenario {} ({}): {e}", s.name, s.join_type));
                continue;
            }
        };
        for how in Replay::ALL {
            replays += 1;
            let context = format!(
                "scenario {} ({} {}, {:?} backend, {how:?})",
                s.name, s.join_type, s.kind, s.backend
            );
            match replay(s, &plan, how, how.rows()) {
                Err(e) => failures.push(format!("{context}: {e}")),
                Ok(got) => {
                    let differences: Vec<String> = (0..s.events.len())
                        .filter_map(|i| diff(s, i, &got[i]))
                        .collect();
                    if differences.is_empty() {
                        rows += got.iter().map(Vec::len).sum::<usize>();
                    } else {
                        failures.push(format!(
                            "{context}: {} events differ\n{}",
                            differences.len(),
                            differences.iter().take(3).cloned().collect::<String>()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {replays} replays differ from released Flink:\n\n{}",
        failures.len(),
        failures.join("\n")
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
