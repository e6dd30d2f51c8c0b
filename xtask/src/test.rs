//! `cargo xtask test`: the project's test command (what `.ci/run` calls).
//!
//! 1. build prerequisites;
//! 2. the JVM classpath (`cargo xtask jvm`), when a JDK and pip are there; its path goes to
//!    the tests and suites as `SF_JVM_CLASSPATH_FILE`;
//! 3. a runnable Flink with StreamFusion (`cargo xtask flink`, after `cargo build --release
//!    --workspace` with the features below), when the classpath was prepared; its path goes to
//!    the tests as `SF_FLINK_HOME`;
//! 4. `cargo test --release --workspace --features <every pkg/bench> --lib --bins --tests`;
//! 5. the same with `--doc`;
//! 6. every suite in smoke mode, built with the same profile and features (so DataFusion and
//!    RocksDB compile once) into a fresh run directory.
//!
//! The very last line is `summary: N passed, M failed`.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode};
use std::sync::LazyLock;

use anyhow::{Context, Result};
use clap::Args;
use regex::Regex;
use xshell::cmd;

use crate::flink_dist;
use crate::jvm;
use crate::metadata::TestTotals;
use crate::prereqs;
use crate::rundir::RunDirArgs;
use crate::suite_binary::Mode;
use crate::suites::Session;
use crate::workspace::{self, Workspace, cargo};

#[derive(Debug, Args)]
pub struct TestArgs {
    #[command(flatten)]
    pub run_dir: RunDirArgs,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Totals {
    passed: u64,
    failed: u64,
}

impl Totals {
    fn add(&mut self, (passed, failed): (u64, u64)) {
        self.passed += passed;
        self.failed += failed;
    }
}

pub fn run(args: &TestArgs) -> Result<ExitCode> {
    let mut totals = Totals::default();
    let result = run_steps(args, &mut totals);
    if let Err(err) = &result {
        eprintln!("error: {err:#}");
        totals.failed += 1;
    }
    println!(
        "summary: {} passed, {} failed",
        totals.passed, totals.failed
    );
    Ok(if totals.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn run_steps(args: &TestArgs, totals: &mut Totals) -> Result<()> {
    let workspace = Workspace::load()?;
    let suites = if workspace.suites.is_empty() {
        Vec::new()
    } else {
        workspace::select_suites(&workspace.suites, &[], &[])?
    };
    let features = workspace.test_features()?;

    let mut session = Session::start(workspace, "test", args.run_dir.output.as_deref())?;
    session.metadata.features = features.to_map();
    session.metadata.allocator = features.allocator().to_string();
    prereqs::ensure(&session.sh)?;
    if !jvm::prepare_for_session(&mut session)? {
        totals.failed += 1;
    }
    if !flink_dist::prepare_for_session(&mut session, &features)? {
        totals.failed += 1;
    }

    let log_path = session.run_dir.join("cargo-test.log");
    let mut log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .with_context(|| format!("creating {}", log_path.display()))?;
    let feature_args: Vec<String> = features
        .cargo_arg()
        .map(|f| vec!["--features".to_string(), f])
        .unwrap_or_default();
    let mut test_totals = Totals::default();
    for targets in [&["--lib", "--bins", "--tests"][..], &["--doc"][..]] {
        let cargo = cargo();
        let feature_args = &feature_args;
        let command = cmd!(
            session.sh,
            "{cargo} test --release --workspace {feature_args...} {targets...} --no-fail-fast"
        );
        let line = command.to_string();
        session.metadata.cargo_commands.push(line.clone());
        session.metadata.write()?;
        eprintln!("$ {line}");
        test_totals.add(cargo_test(command.into(), &line, &mut log)?);
    }
    totals.add((test_totals.passed, test_totals.failed));
    session.metadata.tests = Some(TestTotals {
        passed: test_totals.passed,
        failed: test_totals.failed,
    });

    let mut outcomes = Vec::new();
    if suites.is_empty() {
        println!("no bench targets in the workspace; nothing to smoke");
    } else {
        match session.build(&suites, &features) {
            Ok(built) => outcomes = session.run_suites(&built, &Mode::Smoke, None)?,
            Err(err) => {
                eprintln!("error: {err:#}");
                totals.failed += 1;
            }
        }
    }
    for outcome in &outcomes {
        totals.add(outcome.tally());
    }
    session.finish(&outcomes)?;
    Ok(())
}

/// Runs one `cargo test`, echoing and logging its stdout, and returns (passed, failed).
/// A failing command that reports no failing test (a compile error) counts as one failure.
fn cargo_test(command: Command, line: &str, log: &mut File) -> Result<(u64, u64)> {
    let (mut counts, status) = workspace::run_cargo(command, line, |stdout| {
        writeln!(log, "$ {line}").context("writing cargo-test.log")?;
        let mut counts = (0, 0);
        for output_line in BufReader::new(stdout).lines() {
            let output_line = output_line.context("reading cargo test's output")?;
            println!("{output_line}");
            writeln!(log, "{output_line}").context("writing cargo-test.log")?;
            if let Some((passed, failed)) = parse_test_result(&output_line) {
                counts.0 += passed;
                counts.1 += failed;
            }
        }
        Ok(counts)
    })?;
    if !status.success() && counts.1 == 0 {
        eprintln!("error: `{line}` failed ({status}) without reporting a failing test; see above");
        counts.1 = 1;
    }
    Ok(counts)
}

/// (passed, failed) from a libtest `test result:` line.
fn parse_test_result(line: &str) -> Option<(u64, u64)> {
    static RESULT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed;")
            .expect("the test-result pattern is a valid regex")
    });
    let captures = RESULT.captures(line.trim_start())?;
    Some((captures[1].parse().ok()?, captures[2].parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_result_lines_give_passed_and_failed_counts() {
        assert_eq!(
            parse_test_result(
                "test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; \
                 finished in 0.01s"
            ),
            Some((12, 0))
        );
        assert_eq!(
            parse_test_result("test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured"),
            Some((3, 2))
        );
        assert_eq!(parse_test_result("test keys::hash ... ok"), None);
    }
}
