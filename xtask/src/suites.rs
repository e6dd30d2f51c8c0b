//! The run session shared by `smoke`, `bench` and `test`: one fresh run directory, one build,
//! each suite run in turn with a progress line, a summary table, and `metadata.json`.
//!
//! Each suite's combined stdout and stderr go to `<run dir>/<suite>/log.txt`; the terminal
//! only shows progress, and the last lines of the log when a suite fails.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, ExitStatus};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};
use xshell::Shell;

use crate::clock::Utc;
use crate::estimates;
use crate::metadata::{RunMetadata, SuiteRecord};
use crate::rundir;
use crate::suite_binary::{self, CaseRow, Mode, SuiteSummary};
use crate::suite_build::{self, BuiltSuite};
use crate::table::Table;
use crate::workspace::{Features, Suite, Workspace};

/// Lines of a failing suite's log shown in the terminal.
const LOG_TAIL_LINES: usize = 40;

/// Failed cases listed in the terminal.
const FAILED_CASES_SHOWN: usize = 20;

/// File modification times come from the kernel's coarse clock and can read slightly earlier
/// than `SystemTime::now()` taken before the file was written; estimates this much older than
/// the suite's start still count as this run's.
const FILE_TIME_SLACK: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteStatus {
    Passed,
    /// A case failed, the binary exited non-zero, or it broke the runner contract.
    Failed,
    /// No summary line: the binary died (a panic outside a case, a signal, ...).
    Crashed,
}

impl SuiteStatus {
    pub fn judge(summary: Option<SuiteSummary>, exited_ok: bool) -> SuiteStatus {
        match summary {
            None => SuiteStatus::Crashed,
            Some(s) if s.failed > 0 || !exited_ok => SuiteStatus::Failed,
            Some(_) => SuiteStatus::Passed,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            SuiteStatus::Passed => "passed",
            SuiteStatus::Failed => "failed",
            SuiteStatus::Crashed => "crashed",
        }
    }
}

#[derive(Debug, Clone)]
pub struct SuiteOutcome {
    pub suite: Suite,
    pub executable: PathBuf,
    pub args: Vec<String>,
    pub summary: Option<SuiteSummary>,
    pub status: SuiteStatus,
    pub seconds: f64,
}

impl SuiteOutcome {
    /// Cases passed and failed, for totals; a crash or a failure without a failing case
    /// counts as one failure so it can never read as success.
    pub fn tally(&self) -> (u64, u64) {
        let passed = self.summary.map_or(0, |s| s.passed);
        let failed = self.summary.map_or(0, |s| s.failed);
        match self.status {
            SuiteStatus::Passed => (passed, failed),
            SuiteStatus::Failed | SuiteStatus::Crashed => (passed, failed.max(1)),
        }
    }
}

/// One smoke/bench/test run: its directory, its metadata and the workspace it runs in.
#[derive(Debug)]
pub struct Session {
    pub sh: Shell,
    pub workspace: Workspace,
    pub run_dir: PathBuf,
    pub metadata: RunMetadata,
}

impl Session {
    /// Creates the run directory and writes the first `metadata.json`.
    pub fn start(workspace: Workspace, mode: &str, output: Option<&Path>) -> Result<Session> {
        let sh = workspace.shell()?;
        let now = Utc::now();
        let run_dir = rundir::create(output, &workspace.target_dir, now)?;
        let mut metadata = RunMetadata::start(&sh, mode, &run_dir, now);
        metadata.criterion.criterion_home = Some(workspace.criterion_home());
        metadata.write()?;
        println!("run directory: {}", run_dir.display());
        Ok(Session {
            sh,
            workspace,
            run_dir,
            metadata,
        })
    }

    /// Builds the selected suites (one cargo invocation).
    pub fn build(&mut self, selected: &[Suite], features: &Features) -> Result<Vec<BuiltSuite>> {
        self.metadata.features = features.to_map();
        self.metadata.allocator = features.allocator().to_string();
        let built = suite_build::build(
            &self.sh,
            &self.workspace,
            selected,
            features,
            &mut self.metadata.cargo_commands,
        );
        self.metadata.write()?;
        built
    }

    /// The cases a suite would run under `filter`.
    pub fn list_cases(&self, built: &BuiltSuite, filter: Option<&str>) -> Result<Vec<String>> {
        suite_binary::list_cases(&self.sh, built, filter, &self.workspace.criterion_home())
    }

    /// Runs each suite once, in order, with a progress line per suite.
    pub fn run_suites(
        &mut self,
        built: &[BuiltSuite],
        mode: &Mode,
        filter: Option<&str>,
    ) -> Result<Vec<SuiteOutcome>> {
        self.metadata.filter = filter.map(str::to_string);
        let mut outcomes = Vec::new();
        for (i, suite) in built.iter().enumerate() {
            print!("[{}/{}] {} ... ", i + 1, built.len(), suite.suite.name);
            std::io::stdout().flush().context("writing to stdout")?;
            let outcome = self.run_one(suite, mode, filter)?;
            self.metadata.suites.push(record(&outcome));
            self.metadata.write()?;
            outcomes.push(outcome);
        }
        Ok(outcomes)
    }

    fn run_one(
        &self,
        built: &BuiltSuite,
        mode: &Mode,
        filter: Option<&str>,
    ) -> Result<SuiteOutcome> {
        let suite_dir = self.run_dir.join(&built.suite.name);
        fs::create_dir_all(&suite_dir)
            .with_context(|| format!("creating {}", suite_dir.display()))?;
        let log_path = suite_dir.join("log.txt");
        let args = mode.args();
        let started_wall = SystemTime::now();
        let started = Instant::now();
        let exit = suite_binary::run_to_log(
            &self.sh,
            built,
            &args,
            &suite_dir,
            filter,
            &self.workspace.criterion_home(),
            &log_path,
        )?;
        let seconds = started.elapsed().as_secs_f64();
        let log = fs::read(&log_path)
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .with_context(|| format!("reading {}", log_path.display()))?;
        let summary = suite_binary::parse_summary(&log, &built.suite.name);
        let mut status = SuiteStatus::judge(summary, exit.success());

        let mut problems = Vec::new();
        let mut cases = Vec::new();
        if let Some(summary) = &summary {
            match suite_binary::read_cases_csv(&suite_dir.join("cases.csv")) {
                Ok(rows) => cases = rows,
                Err(err) => problems.push(format!("{err:#}")),
            }
            let allocations_written = suite_dir.join("allocations.csv").is_file();
            problems.extend(suite_binary::contract_problems(
                summary,
                &cases,
                allocations_written,
            ));
            if let Mode::Bench(_) = mode {
                problems.extend(self.write_estimates(
                    &built.suite,
                    &cases,
                    started_wall - FILE_TIME_SLACK,
                    &suite_dir,
                )?);
            }
        }
        if !problems.is_empty() && status == SuiteStatus::Passed {
            status = SuiteStatus::Failed;
        }

        print_progress(summary, status, exit, seconds);
        if status != SuiteStatus::Passed {
            for problem in &problems {
                println!("      {problem}");
            }
            print_failed_cases(&cases);
            print_log_tail(&log, &log_path);
        }
        Ok(SuiteOutcome {
            suite: built.suite.clone(),
            executable: built.executable.clone(),
            args,
            summary,
            status,
            seconds,
        })
    }

    /// Writes `estimates.csv` for the suite's passed cases; returns what is missing.
    fn write_estimates(
        &self,
        suite: &Suite,
        cases: &[CaseRow],
        not_before: SystemTime,
        suite_dir: &Path,
    ) -> Result<Option<String>> {
        let passed: Vec<String> = cases
            .iter()
            .filter(|c| c.status == "passed")
            .map(|c| c.case.clone())
            .collect();
        let missing = estimates::extract_suite(
            &self.workspace.criterion_home(),
            &suite.name,
            &passed,
            not_before,
            &suite_dir.join("estimates.csv"),
        )?;
        Ok(missing.first().map(|first| {
            format!(
                "{} passed case(s) have no Criterion estimates from this run (first: {first}); \
                 Criterion truncates long directory names, so two case ids may share one",
                missing.len()
            )
        }))
    }

    /// Prints the summary table, records the end of the run and says where it is.
    /// Returns whether every suite passed.
    pub fn finish(&mut self, outcomes: &[SuiteOutcome]) -> Result<bool> {
        if !outcomes.is_empty() {
            println!();
            print!("{}", summary_table(outcomes));
        }
        self.metadata.finished_at = Some(Utc::now().rfc3339());
        self.metadata.write()?;
        println!("run directory: {}", self.run_dir.display());
        Ok(outcomes.iter().all(|o| o.status == SuiteStatus::Passed))
    }
}

fn record(outcome: &SuiteOutcome) -> SuiteRecord {
    SuiteRecord {
        package: outcome.suite.package.clone(),
        suite: outcome.suite.name.clone(),
        executable: outcome.executable.clone(),
        args: outcome.args.clone(),
        status: outcome.status.as_str().to_string(),
        cases: outcome.summary.map(|s| s.cases),
        passed: outcome.summary.map(|s| s.passed),
        failed: outcome.summary.map(|s| s.failed),
        skipped: outcome.summary.map(|s| s.skipped),
        seconds: outcome.seconds,
    }
}

fn print_progress(
    summary: Option<SuiteSummary>,
    status: SuiteStatus,
    exit: ExitStatus,
    seconds: f64,
) {
    let Some(s) = summary else {
        println!("crashed: no sf-suite summary line ({exit}) ({seconds:.1} s)");
        return;
    };
    let mut line = format!("{} cases, {} passed", s.cases, s.passed);
    if s.failed > 0 {
        line.push_str(&format!(", {} failed", s.failed));
    }
    if s.skipped > 0 {
        line.push_str(&format!(", {} skipped", s.skipped));
    }
    if status != SuiteStatus::Passed && s.failed == 0 {
        if exit.success() {
            line.push_str(" but FAILED");
        } else {
            line.push_str(&format!(" but FAILED ({exit})"));
        }
    }
    println!("{line} ({seconds:.1} s)");
}

fn print_failed_cases(cases: &[CaseRow]) {
    let failed: Vec<&CaseRow> = cases.iter().filter(|c| c.status == "failed").collect();
    for case in failed.iter().take(FAILED_CASES_SHOWN) {
        println!("      failed: {}: {}", case.case, case.detail);
    }
    if failed.len() > FAILED_CASES_SHOWN {
        println!(
            "      ... and {} more failed cases",
            failed.len() - FAILED_CASES_SHOWN
        );
    }
}

fn print_log_tail(log: &str, log_path: &Path) {
    let lines: Vec<&str> = log.lines().collect();
    let start = lines.len().saturating_sub(LOG_TAIL_LINES);
    println!(
        "      last {} line(s) of {}:",
        lines.len() - start,
        log_path.display()
    );
    for line in &lines[start..] {
        println!("      | {line}");
    }
}

pub fn summary_table(outcomes: &[SuiteOutcome]) -> String {
    let mut table = Table::new(&[
        "suite", ">cases", ">passed", ">failed", ">skipped", ">seconds", "status",
    ]);
    let count = |o: &SuiteOutcome, f: fn(&SuiteSummary) -> u64| {
        o.summary
            .as_ref()
            .map_or("-".to_string(), |s| f(s).to_string())
    };
    for o in outcomes {
        table.row(vec![
            o.suite.name.clone(),
            count(o, |s| s.cases),
            count(o, |s| s.passed),
            count(o, |s| s.failed),
            count(o, |s| s.skipped),
            format!("{:.1}", o.seconds),
            o.status.as_str().to_string(),
        ]);
    }
    table.render()
}

/// [`exit_code`], and a failure when the JVM classpath could not be prepared although its
/// prerequisites were there (its JVM-dependent cases then skipped).
pub fn exit_code_with_jvm(
    all_passed: bool,
    outcomes: &[SuiteOutcome],
    jvm_ready: bool,
) -> ExitCode {
    let code = exit_code(all_passed, outcomes);
    if jvm_ready {
        return code;
    }
    eprintln!(
        "error: the JVM classpath could not be prepared (the error is above), so JVM-dependent \
         cases were skipped; `cargo xtask jvm` repeats just that step"
    );
    ExitCode::FAILURE
}

/// Success when every suite passed; otherwise says which did not, after the table.
pub fn exit_code(all_passed: bool, outcomes: &[SuiteOutcome]) -> ExitCode {
    if all_passed {
        return ExitCode::SUCCESS;
    }
    let failing: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.status != SuiteStatus::Passed)
        .map(|o| o.suite.name.as_str())
        .collect();
    eprintln!(
        "error: {} of {} suites did not pass ({}); each suite's log.txt is in the run directory",
        failing.len(),
        outcomes.len(),
        failing.join(", ")
    );
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(summary: Option<SuiteSummary>, status: SuiteStatus) -> SuiteOutcome {
        SuiteOutcome {
            suite: crate::workspace::tests::suite("p", "handoffs"),
            executable: PathBuf::from("/x"),
            args: vec![],
            summary,
            status,
            seconds: 12.34,
        }
    }

    #[test]
    fn a_missing_summary_is_a_crash_and_a_nonzero_exit_is_a_failure() {
        let clean = SuiteSummary {
            cases: 2,
            passed: 2,
            failed: 0,
            skipped: 0,
        };
        assert_eq!(SuiteStatus::judge(None, true), SuiteStatus::Crashed);
        assert_eq!(SuiteStatus::judge(Some(clean), true), SuiteStatus::Passed);
        assert_eq!(SuiteStatus::judge(Some(clean), false), SuiteStatus::Failed);
        let failing = SuiteSummary { failed: 1, ..clean };
        assert_eq!(
            SuiteStatus::judge(Some(failing), false),
            SuiteStatus::Failed
        );
    }

    #[test]
    fn a_crashed_or_contract_breaking_suite_counts_as_a_failure() {
        assert_eq!(outcome(None, SuiteStatus::Crashed).tally(), (0, 1));
        let all_passed = SuiteSummary {
            cases: 3,
            passed: 3,
            failed: 0,
            skipped: 0,
        };
        assert_eq!(
            outcome(Some(all_passed), SuiteStatus::Failed).tally(),
            (3, 1)
        );
        assert_eq!(
            outcome(Some(all_passed), SuiteStatus::Passed).tally(),
            (3, 0)
        );
    }

    #[test]
    fn the_summary_table_shows_dashes_for_a_crashed_suite() {
        let table = summary_table(&[outcome(None, SuiteStatus::Crashed)]);
        assert!(
            table.ends_with("handoffs      -       -       -        -     12.3  crashed\n"),
            "{table}"
        );
    }
}
