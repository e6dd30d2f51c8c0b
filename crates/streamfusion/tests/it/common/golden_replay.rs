//! Replaying the golden changelogs of a single Flink node (`DedupVectors`, `RankVectors`)
//! through the operator StreamFusion's planner builds for it, and comparing the output with
//! Flink's.
//!
//! File format (JSON Lines): a header line (`"flink": "2.3.0"`); per scenario a line with at
//! least `scenario`, `kind`, `backend` (`hashmap` or `rocksdb`), `state_ttl_ms` (null
//! without state TTL), `node` and `config` (the two texts `flink::plan_node` reads), `input`
//! and `output` columns (`name`, `type`), `output_columns` (the node output column of each
//! output column), `output_keys` (the output columns that are the partition key), and
//! `events_in` and `rows_out` (the counts of the lines that follow, checked so that a
//! truncated file cannot pass); then `events_in` lines `{"in":kind,"row":[..]}` or
//! `{"watermark":ms}` and `rows_out` lines `{"out":kind,"row":[..]}`. Values as
//! [`super::changelog`] reads them. What else a file records of a scenario its test reads
//! from the scenario line into [`Scenario::own`].
//!
//! A scenario is replayed on the backend it ran on in Flink (memory for hashmap) in each
//! [`Replay`] mode: whole (the rows between watermarks in one batch), in batches of at most
//! [`CHUNK`] rows, and in batches with a checkpoint and a restore from it after every
//! batch that a watermark follows (and every batch before the first watermark; see
//! `restores_after`); a test may cut a mode's batches otherwise (see [`Replays::check`]).
//! Processing time only matters with state TTL: those scenarios run on a manual clock that never moves
//! (Flink's TTL of 1 h never expired in the runs). The output must equal Flink's per
//! partition key, as the exact sequence of kinds and rows (one sequence without a partition
//! key), and as a whole as a multiset: across keys, Flink's order on timers and within a
//! mini-batch bundle is hash-map order. A difference is reported per key, with the first
//! differing rows and the key's input.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value as Json;
use streamfusion::ops::{Operator, OperatorPlan, Output, StateConfig};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::state::ttl::ManualClock;
use streamfusion::types::LogicalType;

use super::Backend;
use super::changelog::{ChangeRow, batch, change_row, columns, output_rows, str_of};

/// Rows per batch of the chunked replays.
pub const CHUNK: usize = 17;

#[derive(Debug, Clone)]
pub enum Event {
    Row(ChangeRow),
    Watermark(i64),
}

/// One golden scenario; `T` is what only its file records (see [`Scenario::own`]).
pub struct Scenario<T> {
    pub name: String,
    pub kind: String,
    pub backend: Backend,
    pub ttl: bool,
    pub node: String,
    pub config: String,
    pub input_names: Vec<String>,
    pub input_types: Vec<LogicalType>,
    pub output_types: Vec<LogicalType>,
    pub output_columns: Vec<usize>,
    pub output_keys: Vec<usize>,
    pub events: Vec<Event>,
    pub output: Vec<ChangeRow>,
    /// What the test read from the scenario line beyond the fields above.
    pub own: T,
}

impl<T> Scenario<T> {
    /// The partition key of an output row, as text (empty without a partition key).
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
}

fn indices(v: &Json, what: &str) -> Vec<usize> {
    v.as_array()
        .unwrap_or_else(|| panic!("{what}: expected a list, got {v}"))
        .iter()
        .map(|i| i.as_u64().unwrap_or_else(|| panic!("{what}: {i}")) as usize)
        .collect()
}

/// The scenarios of the golden file at `path`; `own` reads from each scenario line what
/// only that file records.
pub fn read<T>(path: &str, own: impl Fn(&Json) -> T) -> Vec<Scenario<T>> {
    let text = std::fs::read_to_string(path).expect("golden changelogs");
    parse(&text, own)
}

fn parse<T>(text: &str, own: impl Fn(&Json) -> T) -> Vec<Scenario<T>> {
    let mut lines = text.lines().enumerate();
    let (_, header) = lines.next().expect("a header line");
    let header: Json = serde_json::from_str(header).expect("header");
    assert_eq!(header["flink"], "2.3.0", "{header}");
    let mut scenarios: Vec<Scenario<T>> = Vec::new();
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
                own: own(&v),
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

/// Fails unless a golden file holds at least 40 scenarios, under distinct names.
pub fn assert_enough<T>(scenarios: &[Scenario<T>]) {
    assert!(
        scenarios.len() >= 40,
        "only {} golden scenarios",
        scenarios.len()
    );
    let names: std::collections::BTreeSet<&str> =
        scenarios.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), scenarios.len(), "scenario names repeat");
}

/// Fails unless some scenario of each backend is `what` (`is` says which are).
pub fn assert_on_both_backends<T>(
    scenarios: &[Scenario<T>],
    what: &str,
    is: impl Fn(&Scenario<T>) -> bool,
) {
    for backend in [Backend::Memory, Backend::Rocks] {
        assert!(
            scenarios.iter().any(|s| s.backend == backend && is(s)),
            "no {what} scenario on {backend:?}"
        );
    }
}

/// How a replay cuts the events into calls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Replay {
    /// The rows between two watermarks in one batch.
    Whole,
    /// Batches of at most [`CHUNK`] rows.
    Chunks,
    /// Batches of at most [`CHUNK`] rows, and after each one that a watermark follows (or
    /// no watermark precedes) a checkpoint and a restore from it.
    Restores,
}

impl Replay {
    /// Every mode, in the order a scenario is replayed in.
    pub const ALL: [Replay; 3] = [Replay::Whole, Replay::Chunks, Replay::Restores];

    /// The most rows of a batch in this mode.
    pub fn rows(self) -> usize {
        match self {
            Replay::Whole => usize::MAX,
            Replay::Chunks | Replay::Restores => CHUNK,
        }
    }
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
fn state<T>(s: &Scenario<T>, dir: &Path, n: usize) -> StateConfig {
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
fn project<T>(s: &Scenario<T>, out: &mut Output) -> Vec<ChangeRow> {
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

/// Whether [`Replay::Restores`] checkpoints and restores after step `i` (`watermark`: one
/// has passed): wherever a restored run must continue Flink's recorded run exactly, that is
/// before every watermark, and anywhere before the first. A restored operator has no
/// watermark until the next arrives, as Flink's restarted timer service (decision 0030), so
/// rows arriving in between are not late as they were in the recorded run, which had no
/// restore.
fn restores_after(steps: &[Step], i: usize, watermark: bool) -> bool {
    match steps.get(i + 1) {
        None => false,
        Some(Step::Watermark(_)) => true,
        Some(Step::Rows(..)) => !watermark,
    }
}

/// Replays the scenario's events through operators built from `plan`, the rows between two
/// watermarks in batches of at most `chunk` (with a checkpoint and a restore after each
/// batch in [`Replay::Restores`]); the output rows, or what failed.
fn replay<T>(
    s: &Scenario<T>,
    plan: &OperatorPlan,
    how: Replay,
    chunk: usize,
) -> Result<Vec<ChangeRow>, String> {
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
    let steps = steps(&s.events, chunk);
    let mut out = Output::new();
    let mut got = Vec::new();
    let mut watermark = false;
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
                watermark = true;
                format!("watermark {w}")
            }
        };
        if how == Replay::Restores && restores_after(&steps, i, watermark) {
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
fn diff<T>(s: &Scenario<T>, got: &[ChangeRow]) -> Option<String> {
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

/// The replays of a golden file's scenarios and what failed in them, each failure named by
/// its scenario (and replay mode).
#[derive(Default)]
pub struct Replays {
    failures: Vec<String>,
    replays: usize,
}

impl Replays {
    /// Records that scenario `s` failed before any replay: `what`.
    pub fn fail<T>(&mut self, s: &Scenario<T>, what: impl Display) {
        self.failures
            .push(format!("scenario {} ({}): {what}", s.name, s.kind));
    }

    /// Replays `s` through operators built from `plan` in every [`Replay`] mode, in batches
    /// of at most `rows(mode)` rows ([`Replay::rows`] unless the test cuts them otherwise),
    /// and records each replay that fails or whose output differs from Flink's.
    pub fn check<T>(
        &mut self,
        s: &Scenario<T>,
        plan: &OperatorPlan,
        rows: impl Fn(Replay) -> usize,
    ) {
        for how in Replay::ALL {
            self.replays += 1;
            let context = format!(
                "scenario {} ({}, {:?} backend, {how:?})",
                s.name, s.kind, s.backend
            );
            match replay(s, plan, how, rows(how)) {
                Err(e) => self.failures.push(format!("{context}: {e}")),
                Ok(got) => {
                    if let Some(d) = diff(s, &got) {
                        self.failures.push(format!("{context}:\n{d}"));
                    }
                }
            }
        }
    }

    /// Plans every scenario (`flink::plan_node`) and replays those `native` says run
    /// natively ([`Replays::check`], batches cut by `rows`); the others must be refused, and
    /// their reasons are printed. Fails unless every replay equals Flink's and exactly the
    /// scenarios `native` rejects were refused.
    pub fn run_all<T>(
        scenarios: &[Scenario<T>],
        native: impl Fn(&Scenario<T>) -> bool,
        rows: impl Fn(&Scenario<T>, Replay) -> usize,
    ) {
        let mut replays = Replays::default();
        let mut refused = std::collections::BTreeSet::new();
        for s in scenarios {
            match streamfusion::flink::plan_node(&s.node, Some(&s.config)) {
                Ok(plan) if native(s) => replays.check(s, &plan, |how| rows(s, how)),
                Ok(_) => replays.fail(s, "planned although it must be refused"),
                Err(e) if native(s) => replays.fail(s, format!("the node is refused: {e}")),
                Err(e) => {
                    eprintln!("refused: {}: {e}", s.name);
                    refused.insert(s.name.as_str());
                }
            }
        }
        replays.assert_none_differ();
        let expected: std::collections::BTreeSet<&str> = scenarios
            .iter()
            .filter(|s| !native(s))
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(refused, expected, "the refused scenarios");
    }

    /// Fails with every failure recorded, if any.
    pub fn assert_none_differ(&self) {
        assert!(
            self.failures.is_empty(),
            "{} of {} replays differ from released Flink:\n\n{}",
            self.failures.len(),
            self.replays,
            self.failures.join("\n")
        );
    }
}
