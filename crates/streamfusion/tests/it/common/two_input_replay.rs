//! Replaying the golden changelogs of a two-input node (`WindowJoinVectors`,
//! `IntervalJoinVectors`) through the operator StreamFusion's planner builds for it, and
//! comparing each event's output with Flink's.
//!
//! File format (JSON Lines): a header line (`"flink": "2.3.0"`); per scenario a line with at
//! least `scenario`, `join_type`, `backend` (`hashmap` or `rocksdb`), `node` and `config`
//! (the two texts `flink::plan_node` reads), `left`, `right` and `output` columns, `events`
//! and `rows_out` (the counts of the lines that follow, checked so that a truncated file
//! cannot pass); then event lines `{"in":kind,"side":0|1,"row":[..]}`, `{"watermark":ms}`
//! (both inputs) or `{"processing_time":ms}` (the task's clock moved to `ms`, firing the
//! processing-time timers at or before it), each followed by the `{"out":kind,"row":[..]}`
//! lines Flink emitted for it. The replay's operators read a manual clock that the
//! processing-time events set.
//!
//! A scenario is replayed on the backend it ran on in Flink (memory for hashmap), each run
//! of one input's rows between watermarks in batches of at most a mode's rows, with a
//! checkpoint and a restore from it before every watermark (and after every batch before the
//! first) in [`Replay::Restores`]. Each call's output (a batch's rows: its events') must equal
//! Flink's for its events per key (the test's
//! key of an output row), as the exact sequence of rows where the order within a key is the
//! backend's and the native operator's alike, else as a multiset.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value as Json;
use streamfusion::ops::{Operator, OperatorPlan, Output, StateConfig};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::state::ttl::ManualClock;
use streamfusion::types::LogicalType;

use super::Backend;
use super::changelog::{Cell, ChangeRow, batch, change_row, columns, output_rows, str_of};
use super::golden_replay::Replay;

/// One input event: a row of input 0 or 1, a watermark of both, or the processing time.
pub enum Event {
    Row(usize, ChangeRow),
    Watermark(i64),
    ProcessingTime(i64),
}

pub struct Scenario {
    pub name: String,
    pub kind: String,
    pub join_type: String,
    pub backend: Backend,
    pub header: Json,
    pub names: [Vec<String>; 2],
    pub types: [Vec<LogicalType>; 2],
    pub output_types: Vec<LogicalType>,
    pub events: Vec<Event>,
    /// Per event, what Flink emitted for it.
    pub outputs: Vec<Vec<ChangeRow>>,
}

pub fn indexes(v: &Json, what: &str) -> Vec<usize> {
    v.as_array()
        .unwrap_or_else(|| panic!("{what}: {v}"))
        .iter()
        .map(|c| c.as_u64().unwrap_or_else(|| panic!("{what}: {c}")) as usize)
        .collect()
}

pub fn index(v: &Json, what: &str) -> usize {
    v.as_u64().unwrap_or_else(|| panic!("{what}: {v}")) as usize
}

pub fn read(path: &str) -> Vec<Scenario> {
    let text = std::fs::read_to_string(path).expect("golden changelogs");
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
                kind: v["kind"].as_str().unwrap_or_default().to_string(),
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
        } else if let Some(t) = v.get("processing_time") {
            let t = t
                .as_i64()
                .unwrap_or_else(|| panic!("line {}: {t}", number + 1));
            s.events.push(Event::ProcessingTime(t));
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

/// What Flink's operator was built with, as the scenario line records it: the join type, both
/// inputs' key columns and the keys' NULL filters.
pub fn flink_keys(s: &Scenario) -> (String, Vec<usize>, Vec<usize>, Vec<bool>) {
    (
        s.join_type.clone(),
        indexes(&s.header["left_keys"], "left_keys"),
        indexes(&s.header["right_keys"], "right_keys"),
        s.header["filter_nulls"]
            .as_array()
            .expect("filter_nulls")
            .iter()
            .map(|b| b.as_bool().expect("a bool"))
            .collect(),
    )
}

/// The join key of an output row as text: the left row's key columns, or the right row's
/// where the left row is padding, told by `left_column`, a left column no input row holds
/// NULL in.
pub fn join_key(s: &Scenario, row: &ChangeRow, left_column: usize) -> String {
    let (offset, keys, side) = if row.cells[left_column] == Cell::Null {
        (
            s.types[0].len(),
            indexes(&s.header["right_keys"], "right_keys"),
            "right",
        )
    } else {
        (0, indexes(&s.header["left_keys"], "left_keys"), "left")
    };
    let cells: Vec<String> = keys
        .iter()
        .map(|&k| row.cells[offset + k].to_string())
        .collect();
    format!("{side} [{}]", cells.join(", "))
}

/// Fails unless the file holds at least 40 scenarios, named apart, with each of `join_types`
/// on both backends.
pub fn assert_coverage(scenarios: &[Scenario], join_types: &[&str]) {
    assert!(
        scenarios.len() >= 40,
        "only {} golden scenarios",
        scenarios.len()
    );
    let names: BTreeSet<&str> = scenarios.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), scenarios.len(), "scenario names repeat");
    for join_type in join_types {
        for backend in [Backend::Memory, Backend::Rocks] {
            assert!(
                scenarios
                    .iter()
                    .any(|s| s.join_type == *join_type && s.backend == backend),
                "no {join_type} scenario on {backend:?}"
            );
        }
    }
}

/// Fails unless an operator built from `plan` reads and writes the scenario's columns.
pub fn check_types(s: &Scenario, plan: &OperatorPlan) -> Result<(), String> {
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
    Ok(())
}

/// Replays every scenario in every mode `modes` allows it, planned by `plan`, and compares
/// each event's output with Flink's per `key` (in order where `ordered`); fails naming every
/// replay that differs. The number of rows compared.
pub fn replay_all(
    scenarios: &[Scenario],
    plan: impl Fn(&Scenario) -> Result<OperatorPlan, String>,
    modes: impl Fn(&Scenario) -> Vec<Replay>,
    key: impl Fn(&Scenario, &ChangeRow) -> String,
    ordered: impl Fn(&Scenario) -> bool,
) -> usize {
    let mut failures = Vec::new();
    let mut rows = 0;
    let mut replays = 0;
    for s in scenarios {
        let plan = match plan(s).and_then(|p| check_types(s, &p).map(|()| p)) {
            Ok(plan) => plan,
            Err(e) => {
                failures.push(format!("scenario {} ({}): {e}", s.name, s.join_type));
                continue;
            }
        };
        for how in modes(s) {
            replays += 1;
            let context = format!(
                "scenario {} ({} {}, {:?} backend, {how:?})",
                s.name, s.join_type, s.kind, s.backend
            );
            match replay(s, &plan, how, how.rows()) {
                Err(e) => failures.push(format!("{context}: {e}")),
                Ok(got) => {
                    let differences: Vec<String> = got
                        .iter()
                        .filter_map(|(events, got)| {
                            diff(s, events.clone(), got, &|r| key(s, r), ordered(s))
                        })
                        .collect();
                    if differences.is_empty() {
                        rows += got.iter().map(|(_, rows)| rows.len()).sum::<usize>();
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
    rows
}

/// What one call into the operator emitted: the events it covered, and the rows.
pub type Emitted = (Range<usize>, Vec<ChangeRow>);

/// Where a replay's operator (the `n`th it opens) keeps its state, on `clock`.
fn state(s: &Scenario, dir: &Path, n: usize, clock: &Arc<ManualClock>) -> StateConfig {
    match s.backend {
        Backend::Memory => StateConfig::memory(),
        Backend::Rocks => StateConfig::rocksdb(dir.join(format!("state-{n}"))),
    }
    .with_clock(clock.clone())
}

/// Replays the events through operators built from `plan`, each run of one input's rows
/// between watermarks in batches of at most `chunk` (with a checkpoint and a restore before
/// every watermark, and after every batch before the first, in [`Replay::Restores`]); per
/// call, the events it covered and the rows emitted for them, or what failed.
pub fn replay(
    s: &Scenario,
    plan: &OperatorPlan,
    how: Replay,
    chunk: usize,
) -> Result<Vec<Emitted>, String> {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(0));
    let mut opened = 0;
    let mut op: Box<dyn Operator> = plan
        .build(&state(s, dir.path(), opened, &clock), None)
        .map_err(|e| format!("build: {e}"))?;
    let mut got: Vec<Emitted> = Vec::new();
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
            Event::ProcessingTime(t) => {
                clock.set(*t);
                op.on_processing_time(*t, &mut out)
                    .map_err(|e| format!("processing time {t}: {e}"))?;
                (at, format!("processing time {t}"))
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
        got.push((
            at..last + 1,
            out.take().iter().flat_map(output_rows).collect(),
        ));
        at = last + 1;
        let before_watermark = matches!(s.events.get(at), Some(Event::Watermark(_)));
        if how == Replay::Restores && at < s.events.len() && (before_watermark || !watermark) {
            op.prepare_checkpoint(&mut out)
                .map_err(|e| format!("prepare_checkpoint after {what}: {e}"))?;
            let emitted = &mut got.last_mut().expect("a call").1;
            emitted.extend(out.take().iter().flat_map(output_rows));
            let published = op
                .checkpoint(&dir.path().join(format!("checkpoint-{at}")))
                .map_err(|e| format!("checkpoint after {what}: {e}"))?;
            let checkpoint = Checkpoint::open(published.path()).unwrap();
            drop(op);
            opened += 1;
            op = plan
                .restore(&state(s, dir.path(), opened, &clock), None, &[checkpoint])
                .map_err(|e| format!("restore after {what}: {e}"))?;
        }
    }
    op.flush(&mut out).map_err(|e| format!("flush: {e}"))?;
    got.last_mut()
        .expect("an event")
        .1
        .extend(out.take().iter().flat_map(output_rows));
    Ok(got)
}

/// What differs between Flink's output for `events` (one call's) and `got`: per join key,
/// the first differing row of the key's sequence (of its rows in text order unless
/// `ordered`).
pub fn diff(
    s: &Scenario,
    events: Range<usize>,
    got: &[ChangeRow],
    key: &dyn Fn(&ChangeRow) -> String,
    ordered: bool,
) -> Option<String> {
    let want: Vec<ChangeRow> = s.outputs[events.clone()].concat();
    if want == got {
        return None;
    }
    let by_key = |rows: &[ChangeRow]| {
        let mut keys: BTreeMap<String, Vec<ChangeRow>> = BTreeMap::new();
        for r in rows {
            keys.entry(key(r)).or_default().push(r.clone());
        }
        if !ordered {
            for rows in keys.values_mut() {
                rows.sort_by_key(ToString::to_string);
            }
        }
        keys
    };
    let (a, b) = (by_key(&want), by_key(got));
    let what = match &s.events[events.start] {
        _ if events.len() > 1 => format!("rows {}..{}", events.start, events.end),
        Event::Watermark(w) => format!("watermark {w}"),
        Event::ProcessingTime(t) => format!("processing time {t}"),
        Event::Row(side, row) => format!("row {row} of input {side}"),
    };
    let i = events.start;
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
