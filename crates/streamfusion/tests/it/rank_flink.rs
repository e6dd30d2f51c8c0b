//! Top-N against changelogs produced by released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-rank.jsonl` was written by
//! `java/src/org/streamfusion/golden/RankVectors.java`, which runs each scenario through Flink
//! SQL (`ROW_NUMBER() OVER ([PARTITION BY ..] ORDER BY ..)` filtered by `rn <= N`, `rn < N`,
//! `rn = 1` or `rn BETWEEN a AND b`, with and without `rn` in the output, at parallelism 1:
//! top-1, top-N and first-N over insert-only input, with and without `-U`, state TTL; and
//! Top-N over updating input, the retract and update-fast strategies) on the hashmap or the
//! RocksDB state backend, and records for each one the rank node as StreamFusion's planner
//! describes it (the two texts `flink::plan_node` reads), the events the node receives (rows
//! with their kinds, and watermarks, the last one `Long.MAX_VALUE` at the end of input) and the
//! changelog the job emits.
//!
//! File format (JSON Lines): a header line; per scenario a line with `scenario`,
//! `description`, `kind` (`append top-1`, `append top-n`, `append first-n`, `retract`,
//! `update-fast top-1`, `update-fast top-n`), `function` (Flink's), `strategy`, `rank_range`,
//! `row_number`, `update_before`, `backend`, `state_ttl_ms`, `node` and `config` (texts),
//! `input` and `output` columns (`name`, `type`, an input's `time` attribute),
//! `output_columns` (the node output column of each output column: the input row, then the row
//! number), `output_keys` (the output columns that are the partition key; none for a global
//! Top-N), `sql`, `plan`, `events_in` and `rows_out`; then `events_in` lines
//! `{"in":kind,"row":[..]}` or `{"watermark":ms}` and `rows_out` lines
//! `{"out":kind,"row":[..]}`. Values as [`super::common::changelog`] reads them; a proctime
//! column holds NULL, as in Flink.
//!
//! Every scenario of a kind the native side runs must be planned (`flink::plan_node`; a
//! refusal fails with its reason) and replayed through the built operator on the backend it
//! ran on in Flink (memory for hashmap): whole (rows between watermarks in one batch), in
//! 17-row batches, and in batches with a checkpoint and a restore from it after every batch.
//! The output must equal Flink's per partition key, as the exact sequence of kinds and rows
//! (one sequence for a global Top-N), and as a whole as a multiset. The kinds in
//! [`NOT_YET_NATIVE`] (updating input) and the Top-Ns (not Top-1s) over a FLOAT/DOUBLE sort
//! field must be refused, exactly those. Processing time only
//! matters with state TTL: those scenarios run on a manual clock that never moves (Flink's TTL
//! of 1 h never expired in the run). When a JDK and the planner classpath are present, the
//! Java program is also run again and must write the committed file byte for byte; otherwise
//! that check reports itself skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use serde_json::Value as Json;
use streamfusion::ops::{Operator, OperatorPlan, Output, StateConfig};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::state::ttl::ManualClock;
use streamfusion::types::LogicalType;

use super::common::Backend;
use super::common::changelog::{ChangeRow, batch, change_row, columns, output_rows, str_of};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-rank.jsonl"
);

/// Rows per batch of the chunked replays.
const CHUNK: usize = 17;

/// The kinds the native side refuses for now: Top-N over an updating input (the next
/// increment). Their scenarios are recorded so they are ready.
const NOT_YET_NATIVE: &[&str] = &["retract", "update-fast top-n"];

#[derive(Debug, Clone)]
enum Event {
    Row(ChangeRow),
    Watermark(i64),
}

struct Scenario {
    name: String,
    kind: String,
    backend: Backend,
    row_number: bool,
    update_before: bool,
    ttl: bool,
    node: String,
    config: String,
    input_names: Vec<String>,
    input_types: Vec<LogicalType>,
    output_types: Vec<LogicalType>,
    output_columns: Vec<usize>,
    output_keys: Vec<usize>,
    events: Vec<Event>,
    output: Vec<ChangeRow>,
}

impl Scenario {
    /// The partition key of an output row, as text (empty for a global Top-N).
    fn key(&self, row: &ChangeRow) -> String {
        self.output_keys
            .iter()
            .map(|&k| row.cells[k].to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The partition key of an input row, as text (the same text as [`Scenario::key`]).
    fn input_key(&self, row: &ChangeRow) -> String {
        self.output_keys
            .iter()
            .map(|&k| row.cells[self.output_columns[k]].to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether the native side runs this scenario: not a kind of [`NOT_YET_NATIVE`], and not
    /// a Top-N (more than one rank) over a FLOAT/DOUBLE sort field (refused: decision 0028).
    fn native(&self) -> bool {
        let node: Json = serde_json::from_str(&self.node).expect("the node text");
        let float_sort = node["node"]["orderBy"]["fields"]
            .as_array()
            .expect("orderBy fields")
            .iter()
            .any(|f| {
                let column = f["index"].as_u64().expect("a sort index") as usize;
                matches!(
                    self.input_types[column],
                    LogicalType::Float | LogicalType::Double
                )
            });
        let refused_float = float_sort && self.kind == "append top-n";
        !(NOT_YET_NATIVE.contains(&self.kind.as_str()) || refused_float)
    }
}

fn indices(v: &Json, what: &str) -> Vec<usize> {
    v.as_array()
        .unwrap_or_else(|| panic!("{what}: expected a list, got {v}"))
        .iter()
        .map(|i| i.as_u64().unwrap_or_else(|| panic!("{what}: {i}")) as usize)
        .collect()
}

fn flag(v: &Json, what: &str) -> bool {
    v.as_bool()
        .unwrap_or_else(|| panic!("{what}: expected a boolean, got {v}"))
}

fn parse_golden(text: &str) -> Vec<Scenario> {
    let mut lines = text.lines().enumerate();
    let (_, header) = lines.next().expect("a header line");
    let header: Json = serde_json::from_str(header).expect("header");
    assert_eq!(header["flink"], "2.3.0", "{header}");
    let mut scenarios: Vec<Scenario> = Vec::new();
    let mut declared = Vec::new();
    for (number, line) in lines {
        let v: Json =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", number + 1));
        if let Some(name) = v.get("scenario") {
            let (input_names, input_types) = columns(&v["input"]);
            let (_, output_types) = columns(&v["output"]);
            let backend = match str_of(&v["backend"], "backend") {
                "hashmap" => Backend::Memory,
                "rocksdb" => Backend::Rocks,
                other => panic!("line {}: unknown backend {other}", number + 1),
            };
            declared.push((
                v["events_in"].as_u64().expect("events_in") as usize,
                v["rows_out"].as_u64().expect("rows_out") as usize,
            ));
            scenarios.push(Scenario {
                name: str_of(name, "scenario").to_string(),
                kind: str_of(&v["kind"], "kind").to_string(),
                backend,
                row_number: flag(&v["row_number"], "row_number"),
                update_before: flag(&v["update_before"], "update_before"),
                ttl: !v["state_ttl_ms"].is_null(),
                node: str_of(&v["node"], "node").to_string(),
                config: str_of(&v["config"], "config").to_string(),
                input_names,
                input_types,
                output_types,
                output_columns: indices(&v["output_columns"], "output_columns"),
                output_keys: indices(&v["output_keys"], "output_keys"),
                events: Vec::new(),
                output: Vec::new(),
            });
            continue;
        }
        let s = scenarios
            .last_mut()
            .unwrap_or_else(|| panic!("line {}: an event before any scenario", number + 1));
        if let Some(w) = v.get("watermark") {
            assert!(
                s.output.is_empty(),
                "line {}: input after output",
                number + 1
            );
            let w = w
                .as_i64()
                .unwrap_or_else(|| panic!("line {}: {w}", number + 1));
            s.events.push(Event::Watermark(w));
        } else if v.get("in").is_some() {
            assert!(
                s.output.is_empty(),
                "line {}: input after output",
                number + 1
            );
            let row = change_row(&v, "in", &s.input_types);
            s.events.push(Event::Row(row));
        } else {
            let row = change_row(&v, "out", &s.output_types);
            s.output.push(row);
        }
    }
    // The declared counts, so a truncated file cannot pass.
    for (s, (events, rows)) in scenarios.iter().zip(declared) {
        assert_eq!(s.events.len(), events, "{}: events", s.name);
        assert_eq!(s.output.len(), rows, "{}: output rows", s.name);
    }
    scenarios
}

/// How a replay cuts the events into calls.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Replay {
    /// The rows between two watermarks in one batch.
    Whole,
    /// Batches of at most [`CHUNK`] rows.
    Chunks,
    /// Batches of at most [`CHUNK`] rows, and after each one a checkpoint and a restore from
    /// it.
    Restores,
}

/// One call into the operator: a batch of rows (with its first row's number), or a
/// watermark.
enum Step {
    Rows(usize, Vec<ChangeRow>),
    Watermark(i64),
}

/// The events as calls: the rows between two watermarks in batches of at most `chunk`.
fn steps(events: &[Event], chunk: usize) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut pending: Vec<ChangeRow> = Vec::new();
    let mut seen = 0;
    let flush = |pending: &mut Vec<ChangeRow>, steps: &mut Vec<Step>, seen: &mut usize| {
        for rows in pending.chunks(chunk) {
            steps.push(Step::Rows(*seen, rows.to_vec()));
            *seen += rows.len();
        }
        pending.clear();
    };
    for event in events {
        match event {
            Event::Row(row) => pending.push(row.clone()),
            Event::Watermark(w) => {
                flush(&mut pending, &mut steps, &mut seen);
                steps.push(Step::Watermark(*w));
            }
        }
    }
    flush(&mut pending, &mut steps, &mut seen);
    steps
}

/// Where a replay's operator (the `n`th it opens) keeps its state.
fn state(s: &Scenario, dir: &Path, n: usize) -> StateConfig {
    let config = match s.backend {
        Backend::Memory => StateConfig::memory(),
        Backend::Rocks => StateConfig::rocksdb(dir.join(format!("state-{n}"))),
    };
    if s.ttl {
        config.with_clock(Arc::new(ManualClock::new(1_000_000)))
    } else {
        config
    }
}

/// The output rows, as the golden file has them (the node's columns `output_columns`).
fn project(s: &Scenario, out: &mut Output) -> Vec<ChangeRow> {
    out.take()
        .iter()
        .flat_map(output_rows)
        .map(|row| ChangeRow {
            kind: row.kind,
            cells: s
                .output_columns
                .iter()
                .map(|&c| row.cells[c].clone())
                .collect(),
        })
        .collect()
}

/// Replays the scenario's events through operators built from `plan`; the output rows, or
/// what failed.
fn replay(s: &Scenario, plan: &OperatorPlan, how: Replay) -> Result<Vec<ChangeRow>, String> {
    let dir = tempfile::tempdir().unwrap();
    let mut opened = 0;
    let mut op: Box<dyn Operator> = plan
        .build(&state(s, dir.path(), opened), None)
        .map_err(|e| format!("build: {e}"))?;
    if op.input_types(0) != s.input_types.as_slice() {
        return Err(format!(
            "the operator reads {:?}, Flink's node {:?}",
            op.input_types(0),
            s.input_types
        ));
    }
    let chunk = match how {
        Replay::Whole => usize::MAX,
        Replay::Chunks | Replay::Restores => CHUNK,
    };
    let steps = steps(&s.events, chunk);
    let mut out = Output::new();
    let mut got = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let at = match step {
            Step::Rows(first, rows) => {
                let input = batch(&s.input_names, op.input_types(0), rows);
                op.process(0, &input, &mut out)
                    .map_err(|e| format!("rows {first}..{}: {e}", first + rows.len()))?;
                format!("row {}", first + rows.len())
            }
            Step::Watermark(w) => {
                op.advance_watermark(*w, &mut out)
                    .map_err(|e| format!("watermark {w}: {e}"))?;
                format!("watermark {w}")
            }
        };
        if how == Replay::Restores && i + 1 < steps.len() {
            op.prepare_checkpoint(&mut out)
                .map_err(|e| format!("prepare_checkpoint after {at}: {e}"))?;
            let published = op
                .checkpoint(&dir.path().join(format!("checkpoint-{i}")))
                .map_err(|e| format!("checkpoint after {at}: {e}"))?;
            let checkpoint = Checkpoint::open(published.path()).unwrap();
            got.extend(project(s, &mut out));
            drop(op);
            opened += 1;
            op = plan
                .restore(&state(s, dir.path(), opened), None, &[checkpoint])
                .map_err(|e| format!("restore after {at}: {e}"))?;
        }
    }
    op.flush(&mut out).map_err(|e| format!("flush: {e}"))?;
    got.extend(project(s, &mut out));
    Ok(got)
}

/// What differs between Flink's output and `got`: per partition key, the first differing
/// row of the key's sequence (with the key's input rows), or the multisets.
fn diff(s: &Scenario, got: &[ChangeRow]) -> Option<String> {
    let by_key = |rows: &[ChangeRow]| {
        let mut keys: BTreeMap<String, Vec<ChangeRow>> = BTreeMap::new();
        for r in rows {
            keys.entry(s.key(r)).or_default().push(r.clone());
        }
        keys
    };
    let (want, have) = (by_key(&s.output), by_key(got));
    let mut text = String::new();
    let mut differing = 0;
    for key in want
        .keys()
        .chain(have.keys().filter(|k| !want.contains_key(*k)))
    {
        let (a, b) = (
            want.get(key).map_or(&[][..], Vec::as_slice),
            have.get(key).map_or(&[][..], Vec::as_slice),
        );
        let Some(first) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) else {
            continue;
        };
        differing += 1;
        if differing > 3 {
            continue;
        }
        let show = |r: Option<&ChangeRow>| r.map_or_else(|| "(none)".into(), |r| r.to_string());
        text.push_str(&format!(
            "key [{key}]: Flink emitted {} rows, the native operator {}; first difference at \
             the key's row {first}\n",
            a.len(),
            b.len()
        ));
        for i in first.saturating_sub(2)..(first + 4).min(a.len().max(b.len())) {
            let mark = if a.get(i) == b.get(i) { ' ' } else { '>' };
            text.push_str(&format!("{mark} {i:4} flink  {}\n", show(a.get(i))));
            text.push_str(&format!("{mark} {i:4} native {}\n", show(b.get(i))));
        }
        text.push_str("  the key's input:");
        for (n, event) in s.events.iter().enumerate() {
            match event {
                Event::Row(r) if s.input_key(r) == *key => {
                    text.push_str(&format!("\n    event {n}: {r}"));
                }
                Event::Watermark(w) => text.push_str(&format!("\n    event {n}: watermark {w}")),
                Event::Row(_) => {}
            }
        }
        text.push('\n');
    }
    let sorted = |rows: &[ChangeRow]| {
        let mut rows: Vec<String> = rows.iter().map(ToString::to_string).collect();
        rows.sort();
        rows
    };
    if differing == 0 && sorted(&s.output) != sorted(got) {
        text.push_str("the outputs differ as multisets\n");
    }
    if text.is_empty() {
        return None;
    }
    if differing > 3 {
        text.push_str(&format!("... {differing} keys differ in all\n"));
    }
    Some(text)
}

#[test]
fn top_n_matches_released_flink_changelogs() {
    let text = std::fs::read_to_string(GOLDEN).expect("golden changelogs");
    let scenarios = parse_golden(&text);
    assert!(
        scenarios.len() >= 40,
        "only {} golden scenarios",
        scenarios.len()
    );
    let names: BTreeSet<&str> = scenarios.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), scenarios.len(), "scenario names repeat");
    // Every native kind on each backend, with and without -U; top-N and first-N with and
    // without the row number; a global Top-N; every kind that waits for its increment.
    let on = |s: &Scenario, backend: Backend| {
        matches!(
            (s.backend, backend),
            (Backend::Memory, Backend::Memory) | (Backend::Rocks, Backend::Rocks)
        )
    };
    for kind in ["append top-1", "append top-n", "append first-n"] {
        for backend in [Backend::Memory, Backend::Rocks] {
            assert!(
                scenarios.iter().any(|s| s.kind == kind && on(s, backend)),
                "no {kind} scenario on {backend:?}"
            );
        }
        for update_before in [false, true] {
            assert!(
                scenarios
                    .iter()
                    .any(|s| s.kind == kind && s.update_before == update_before),
                "no {kind} scenario with update_before = {update_before}"
            );
        }
    }
    for kind in ["append top-n", "append first-n"] {
        for row_number in [false, true] {
            assert!(
                scenarios
                    .iter()
                    .any(|s| s.kind == kind && s.row_number == row_number),
                "no {kind} scenario with row_number = {row_number}"
            );
        }
    }
    assert!(
        scenarios.iter().any(|s| s.output_keys.is_empty()),
        "no global Top-N"
    );
    for kind in NOT_YET_NATIVE {
        assert!(
            scenarios.iter().any(|s| s.kind == *kind),
            "no {kind} scenario"
        );
    }
    let mut failures = Vec::new();
    let mut refused = BTreeMap::new();
    let mut replays = 0;
    for s in &scenarios {
        let plan = match streamfusion::flink::plan_node(&s.node, Some(&s.config)) {
            Ok(plan) if s.native() => plan,
            Ok(_) => {
                failures.push(format!(
                    "scenario {} ({}): planned although its kind is in NOT_YET_NATIVE (remove \
                     it there once the kind runs natively)",
                    s.name, s.kind
                ));
                continue;
            }
            Err(e) if s.native() => {
                failures.push(format!(
                    "scenario {} ({}): the node is refused: {e}",
                    s.name, s.kind
                ));
                continue;
            }
            Err(e) => {
                refused.insert(s.name.as_str(), e.to_string());
                continue;
            }
        };
        for how in [Replay::Whole, Replay::Chunks, Replay::Restores] {
            replays += 1;
            let context = format!(
                "scenario {} ({}, {:?} backend, {how:?})",
                s.name, s.kind, s.backend
            );
            match replay(s, &plan, how) {
                Err(e) => failures.push(format!("{context}: {e}")),
                Ok(got) => {
                    if let Some(d) = diff(s, &got) {
                        failures.push(format!("{context}:\n{d}"));
                    }
                }
            }
        }
    }
    for (name, reason) in &refused {
        eprintln!("refused as not yet native: {name}: {reason}");
    }
    assert!(
        failures.is_empty(),
        "{} of {replays} replays differ from released Flink:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
    let expected: BTreeSet<&str> = scenarios
        .iter()
        .filter(|s| !s.native())
        .map(|s| s.name.as_str())
        .collect();
    let got: BTreeSet<&str> = refused.keys().copied().collect();
    assert_eq!(
        got, expected,
        "the refused scenarios are not exactly those of NOT_YET_NATIVE's kinds and the float sorts"
    );
}

#[test]
fn golden_rank_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_rank_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.RankVectors",
        Path::new(GOLDEN),
    );
}
