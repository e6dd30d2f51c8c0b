//! The probe-then-time case runner every suite uses.
//!
//! For each case, in order, outside any timing:
//! 1. build the fixture;
//! 2. run the production call once and check its result against an independent oracle (a
//!    mismatch fails the case with its id and what differed; a panic fails it too);
//! 3. run the allocation [`probe`](crate::alloc::probe) and walk the output buffers
//!    ([`buffer_report`]), appending one row to the suite's `allocations.csv`;
//! 4. register the Criterion timing (in `--test` mode Criterion runs the routine once).
//!
//! A failed case is never timed; the suite carries on and exits non-zero at the end.
//!
//! # Contract with `cargo xtask`
//! - `SF_BENCH_SUITE_DIR`: where `allocations.csv` (suite, case, calls, zeroed_calls,
//!   realloc_calls, requested_bytes, shared_output_buffer_bytes, new_output_buffer_bytes)
//!   and `cases.csv` (case, status, detail) are written, LF line endings. Without it, the
//!   directory is `<target>/native-benchmarks/direct/<suite>/`.
//! - `SF_BENCH_FILTER`: a regex; only cases whose id it matches are built at all, probes
//!   included.
//! - `--list` prints `<case id>: benchmark` per selected case and builds nothing.
//! - The last line of the suite's own output is
//!   `sf-suite <suite>: cases=<n> passed=<p> failed=<f> skipped=<s>`.
//!
//! Case ids read like paths (`export_import/full_schema/rows=16384/width=264`). The first
//! segment becomes the Criterion group, the second the function and the rest its parameter,
//! so each of Criterion's directory names stays short, unique and stable across filtered
//! runs (Criterion truncates each name to 64 bytes).

use std::collections::HashSet;
use std::fs::File;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{BatchSize, BenchmarkId, Criterion};
use regex::Regex;

use crate::alloc::{AllocationCounts, probe};
use crate::buffers::{ArrowBuffers, BufferReport, buffer_report};

/// Environment variable naming the directory a suite writes its CSV files to.
pub const SUITE_DIR_ENV: &str = "SF_BENCH_SUITE_DIR";
/// Environment variable holding the case filter (a regex searched in each case id).
pub const FILTER_ENV: &str = "SF_BENCH_FILTER";
/// Criterion truncates each directory-name component to this many bytes.
const MAX_ID_COMPONENT: usize = 64;

/// A suite: a named set of cases run probe-then-time.
pub struct Suite {
    name: String,
    filter: Option<Regex>,
    list_only: bool,
    criterion: Criterion,
    allocations: Option<csv::Writer<File>>,
    cases_log: Option<csv::Writer<File>>,
    seen: HashSet<String>,
    tally: Tally,
    started: Instant,
}

impl std::fmt::Debug for Suite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Suite")
            .field("name", &self.name)
            .field("filter", &self.filter)
            .field("tally", &self.tally)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    cases: usize,
    passed: usize,
    failed: usize,
    skipped: usize,
}

/// What a case's oracle says about a production result: `Err` explains what differed.
pub type Verdict = Result<(), String>;

impl Suite {
    /// Opens a suite, reading the filter and output directory from the environment and
    /// Criterion's settings from the command line.
    ///
    /// # Panics
    /// On an invalid filter or an unwritable output directory: nothing could be recorded.
    pub fn new(name: &str) -> Self {
        let filter = std::env::var(FILTER_ENV)
            .ok()
            .filter(|f| !f.is_empty())
            .map(|f| {
                Regex::new(&f)
                    .unwrap_or_else(|e| panic!("{FILTER_ENV}={f:?} is not a valid regex: {e}"))
            });
        let list_only = std::env::args().any(|a| a == "--list");
        let (allocations, cases_log) = if list_only {
            (None, None)
        } else {
            let dir = suite_dir(name);
            std::fs::create_dir_all(&dir)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
            let mut allocations = csv_writer(&dir.join("allocations.csv"));
            allocations
                .write_record([
                    "suite",
                    "case",
                    "calls",
                    "zeroed_calls",
                    "realloc_calls",
                    "requested_bytes",
                    "shared_output_buffer_bytes",
                    "new_output_buffer_bytes",
                ])
                .expect("write allocations.csv header");
            let mut cases = csv_writer(&dir.join("cases.csv"));
            cases
                .write_record(["case", "status", "detail"])
                .expect("write cases.csv header");
            (Some(allocations), Some(cases))
        };
        let criterion = if list_only {
            Criterion::default()
        } else {
            Criterion::default().configure_from_args()
        };
        Self {
            name: name.to_string(),
            filter,
            list_only,
            criterion,
            allocations,
            cases_log,
            seen: HashSet::new(),
            tally: Tally::default(),
            started: Instant::now(),
        }
    }

    /// The suite's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A stateless case: `run` is timed with Criterion's `iter`, output disposal included.
    ///
    /// `setup` builds the fixture; `check` is the independent oracle for one result.
    pub fn stateless<I, O>(
        &mut self,
        id: &str,
        setup: impl FnOnce() -> I,
        run: impl Fn(&I) -> O,
        check: impl FnOnce(&I, &O) -> Verdict,
    ) where
        I: ArrowBuffers,
        O: ArrowBuffers,
    {
        let checked = |input: &I| {
            let output = run(input);
            check(input, &output)?;
            Ok(buffer_report(input, &output))
        };
        let probe_run = |input: &I| probe(|| drop(run(input))).map(|((), counts)| counts);
        if let Some(input) = self.prepare(id, setup, checked, probe_run) {
            self.time(id, |b| b.iter(|| run(&input)));
        }
    }

    /// A stateful case: `fresh` prepares an operator or store outside timing for every
    /// iteration (`iter_batched_ref`); `run` is timed, its output disposal included, and the
    /// operator's creation and destruction excluded (from the probe as well).
    pub fn stateful<I, S, O>(
        &mut self,
        id: &str,
        setup: impl FnOnce() -> I,
        fresh: impl Fn(&I) -> S,
        run: impl Fn(&mut S, &I) -> O,
        check: impl FnOnce(&I, &O) -> Verdict,
    ) where
        I: ArrowBuffers,
        O: ArrowBuffers,
    {
        // The state outlives the oracle's look at the output (it may point into the state).
        let checked = |input: &I| {
            let mut state = fresh(input);
            let output = run(&mut state, input);
            check(input, &output)?;
            let report = buffer_report(input, &output);
            drop(output);
            drop(state);
            Ok(report)
        };
        let probe_run = |input: &I| {
            let mut state = fresh(input);
            let counts = probe(|| drop(run(&mut state, input))).map(|((), counts)| counts);
            drop(state);
            counts
        };
        if let Some(input) = self.prepare(id, setup, checked, probe_run) {
            self.time(id, |b| {
                b.iter_batched_ref(|| fresh(&input), |s| run(s, &input), BatchSize::LargeInput)
            });
        }
    }

    /// Steps 1-3 of a case: fixture, oracle, probe and CSV row. Returns the fixture to time,
    /// or `None` when the case is not selected or failed (it is then never timed).
    ///
    /// `checked` runs the production call once, applies the oracle and walks the output
    /// buffers; `probe_run` runs it once more under the allocation probe.
    fn prepare<I>(
        &mut self,
        id: &str,
        setup: impl FnOnce() -> I,
        checked: impl FnOnce(&I) -> Result<BufferReport, String>,
        probe_run: impl Fn(&I) -> Result<AllocationCounts, crate::alloc::ProbeError>,
    ) -> Option<I> {
        if !self.select(id) {
            return None;
        }
        let prepared = catch(|| {
            let input = setup();
            let buffers = checked(&input)?;
            let counts = probe_run(&input).map_err(|e| e.to_string())?;
            Ok((input, counts, buffers))
        });
        let (input, counts, buffers) = self.settle(id, prepared)?;
        self.record_allocations(id, &counts, &buffers);
        Some(input)
    }

    /// Records a case that cannot run here (for example, no JVM), with the reason. A skipped
    /// case is reported by name; it never counts as passed.
    pub fn skip(&mut self, id: &str, reason: &str) {
        if !self.select(id) {
            return;
        }
        self.tally.skipped += 1;
        println!("skipped {id}: {reason}");
        self.log_case(id, "skipped", reason);
    }

    /// Prints the summary line, lets Criterion print its own, and exits: status 1 if any case
    /// failed.
    pub fn finish(mut self) -> ! {
        if !self.list_only {
            self.criterion.final_summary();
            for w in [&mut self.allocations, &mut self.cases_log]
                .into_iter()
                .flatten()
            {
                w.flush().expect("flush suite CSV files");
            }
            let t = self.tally;
            println!(
                "suite {} ran in {:.1} s",
                self.name,
                self.started.elapsed().as_secs_f64()
            );
            println!(
                "sf-suite {}: cases={} passed={} failed={} skipped={}",
                self.name, t.cases, t.passed, t.failed, t.skipped
            );
        }
        std::process::exit(i32::from(self.tally.failed > 0))
    }

    /// Whether `id` is selected; registers it and, in list mode, prints it.
    fn select(&mut self, id: &str) -> bool {
        validate_id(id);
        assert!(self.seen.insert(id.to_string()), "duplicate case id {id}");
        if self.filter.as_ref().is_some_and(|f| !f.is_match(id)) {
            return false;
        }
        if self.list_only {
            println!("{id}: benchmark");
            return false;
        }
        self.tally.cases += 1;
        true
    }

    fn settle<T>(&mut self, id: &str, prepared: Result<T, String>) -> Option<T> {
        match prepared {
            Ok(value) => {
                self.tally.passed += 1;
                self.log_case(id, "passed", "");
                Some(value)
            }
            Err(detail) => {
                self.tally.failed += 1;
                eprintln!("FAILED {} {id}: {detail}", self.name);
                self.log_case(id, "failed", &detail);
                None
            }
        }
    }

    fn record_allocations(&mut self, id: &str, c: &AllocationCounts, b: &BufferReport) {
        if let Some(w) = &mut self.allocations {
            w.write_record([
                self.name.as_str(),
                id,
                &c.calls.to_string(),
                &c.zeroed_calls.to_string(),
                &c.realloc_calls.to_string(),
                &c.requested_bytes.to_string(),
                &b.shared_bytes.to_string(),
                &b.new_bytes.to_string(),
            ])
            .and_then(|()| w.flush().map_err(Into::into))
            .expect("append to allocations.csv");
        }
    }

    fn log_case(&mut self, id: &str, status: &str, detail: &str) {
        if let Some(w) = &mut self.cases_log {
            w.write_record([id, status, detail])
                .and_then(|()| w.flush().map_err(Into::into))
                .expect("append to cases.csv");
        }
    }

    fn time(&mut self, id: &str, mut routine: impl FnMut(&mut criterion::Bencher<'_>)) {
        let mut parts = id.splitn(3, '/');
        let (group, function, parameter) = (parts.next(), parts.next(), parts.next());
        match (group, function, parameter) {
            (Some(g), Some(f), Some(p)) => {
                let mut group = self.criterion.benchmark_group(g);
                group.bench_function(BenchmarkId::new(f, p), &mut routine);
                group.finish();
            }
            (Some(g), Some(f), None) => {
                let mut group = self.criterion.benchmark_group(g);
                group.bench_function(f, &mut routine);
                group.finish();
            }
            _ => {
                self.criterion.bench_function(id, &mut routine);
            }
        }
    }
}

/// Case ids must map to distinct, stable Criterion directories.
fn validate_id(id: &str) {
    assert!(
        !id.is_empty() && !id.starts_with('/') && !id.ends_with('/') && !id.contains("//"),
        "case id {id:?} must be non-empty path segments"
    );
    let mut parts = id.splitn(3, '/');
    for part in parts.by_ref() {
        assert!(
            part.len() <= MAX_ID_COMPONENT,
            "case id {id:?}: component {part:?} is longer than {MAX_ID_COMPONENT} bytes, which Criterion would truncate"
        );
    }
}

fn catch<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(format!("panicked: {}", panic_message(payload.as_ref()))),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_string()
    }
}

fn csv_writer(path: &Path) -> csv::Writer<File> {
    let file =
        File::create(path).unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(file)
}

fn suite_dir(name: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os(SUITE_DIR_ENV) {
        return PathBuf::from(dir);
    }
    // A suite binary lives in `<target>/<profile>/deps/`.
    let target = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("target"));
    target.join("native-benchmarks").join("direct").join(name)
}

/// Compares two values and says what differed, for oracles.
pub fn expect_eq<T: PartialEq + std::fmt::Debug>(what: &str, actual: &T, expected: &T) -> Verdict {
    if actual == expected {
        Ok(())
    } else {
        Err(format!("{what}: expected {expected:?}, got {actual:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_with_short_segments_are_accepted() {
        validate_id("export_import/full_schema/rows=16384/width=264/nulls=true/sliced=false");
        validate_id("single");
    }

    #[test]
    #[should_panic(expected = "longer than 64 bytes")]
    fn ids_whose_group_criterion_would_truncate_are_refused() {
        validate_id(&"g".repeat(65));
    }

    #[test]
    #[should_panic(expected = "non-empty path segments")]
    fn ids_with_empty_segments_are_refused() {
        validate_id("a//b");
    }

    #[test]
    fn panics_become_failures_with_their_message() {
        let r: Result<(), String> = catch(|| panic!("boom {}", 7));
        assert_eq!(r.unwrap_err(), "panicked: boom 7");
    }

    #[test]
    fn expect_eq_names_both_sides() {
        assert_eq!(
            expect_eq("rows", &3, &4).unwrap_err(),
            "rows: expected 4, got 3"
        );
        assert!(expect_eq("rows", &4, &4).is_ok());
    }
}
