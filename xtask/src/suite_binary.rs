//! A suite binary and its contract with the suite runner in `crates/bench-support`.
//!
//! The binary runs with the package's manifest directory as its current directory (and, as
//! under `cargo bench`, `CARGO_MANIFEST_DIR`, `CARGO_PKG_NAME` and the library path set), and:
//! - `SF_BENCH_SUITE_DIR=<run dir>/<suite>`: it writes `allocations.csv` and `cases.csv`
//!   (`case,status,detail`; status `passed`, `failed` or `skipped`) there;
//! - `SF_BENCH_FILTER=<regex>`: it only builds and runs cases whose id matches (a search);
//! - `CRITERION_HOME=<target dir>/criterion`;
//! - arguments `--test` (smoke), `--bench` plus Criterion flags, or `--list` (one
//!   `<case id>: benchmark` line per case).
//!
//! Near the end of stdout it prints `sf-suite <suite>: cases=<n> passed=<p> failed=<f>
//! skipped=<s>` and exits 1 if any case failed; a missing summary line means it crashed.

use std::fs::File;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

use anyhow::{Context, Result, bail};
use regex::Regex;
use serde::{Deserialize, Serialize};
use xshell::{Shell, cmd};

use crate::suite_build::BuiltSuite;

/// The dynamic library search path variable of this platform.
const LIBRARY_PATH_VAR: &str = if cfg!(target_os = "macos") {
    "DYLD_FALLBACK_LIBRARY_PATH"
} else if cfg!(windows) {
    "PATH"
} else {
    "LD_LIBRARY_PATH"
};

/// How a suite binary is run.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    /// Criterion test mode: each case once.
    Smoke,
    /// Criterion measurement with these flags.
    Bench(CriterionFlags),
}

/// Criterion's flags for a measurement, also recorded in `metadata.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CriterionFlags {
    pub save_baseline: Option<String>,
    pub baseline: Option<String>,
    pub sample_size: Option<u64>,
    #[serde(rename = "warm_up_time_secs")]
    pub warm_up_time: Option<f64>,
    #[serde(rename = "measurement_time_secs")]
    pub measurement_time: Option<f64>,
}

impl Mode {
    pub fn args(&self) -> Vec<String> {
        let Mode::Bench(flags) = self else {
            return vec!["--test".into()];
        };
        let mut args = vec!["--bench".to_string(), "--noplot".to_string()];
        let mut push = |flag: &str, value: Option<String>| {
            if let Some(value) = value {
                args.extend([flag.to_string(), value]);
            }
        };
        push("--save-baseline", flags.save_baseline.clone());
        push("--baseline", flags.baseline.clone());
        push("--sample-size", flags.sample_size.map(|n| n.to_string()));
        push("--warm-up-time", flags.warm_up_time.map(|s| s.to_string()));
        push(
            "--measurement-time",
            flags.measurement_time.map(|s| s.to_string()),
        );
        args
    }
}

/// The runner's `sf-suite` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SuiteSummary {
    pub cases: u64,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

/// The last `sf-suite <suite>: ...` line of a log.
pub fn parse_summary(log: &str, suite: &str) -> Option<SuiteSummary> {
    let pattern = format!(
        r"(?m)^sf-suite {}: cases=(\d+) passed=(\d+) failed=(\d+) skipped=(\d+)\s*$",
        regex::escape(suite)
    );
    let re = Regex::new(&pattern).ok()?;
    let captures = re.captures_iter(log).last()?;
    let number = |i: usize| captures.get(i)?.as_str().parse().ok();
    Some(SuiteSummary {
        cases: number(1)?,
        passed: number(2)?,
        failed: number(3)?,
        skipped: number(4)?,
    })
}

/// Case ids from the binary's `--list` output.
pub fn parse_list(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|line| line.trim_end().strip_suffix(": benchmark"))
        .map(str::to_string)
        .collect()
}

/// One row of `cases.csv`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CaseRow {
    pub case: String,
    pub status: String,
    #[serde(default)]
    pub detail: String,
}

pub fn read_cases_csv(path: &Path) -> Result<Vec<CaseRow>> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("opening {}", path.display()))?;
    reader
        .deserialize()
        .collect::<Result<Vec<CaseRow>, _>>()
        .with_context(|| format!("reading {}", path.display()))
}

/// Where a suite that printed its summary broke the contract: `cases.csv` must agree with the
/// summary line, and `allocations.csv` must exist.
pub fn contract_problems(
    summary: &SuiteSummary,
    cases: &[CaseRow],
    allocations_written: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    let count = |status: &str| cases.iter().filter(|c| c.status == status).count() as u64;
    let listed = (count("passed"), count("failed"), count("skipped"));
    if listed != (summary.passed, summary.failed, summary.skipped) {
        problems.push(format!(
            "cases.csv lists {} passed, {} failed, {} skipped but the sf-suite line says {} \
             passed, {} failed, {} skipped",
            listed.0, listed.1, listed.2, summary.passed, summary.failed, summary.skipped
        ));
    }
    if let Some(odd) = cases
        .iter()
        .find(|c| !matches!(c.status.as_str(), "passed" | "failed" | "skipped"))
    {
        problems.push(format!(
            "cases.csv gives case {} the status `{}` (expected passed, failed or skipped)",
            odd.case, odd.status
        ));
    }
    if !allocations_written {
        problems.push("the runner wrote no allocations.csv".to_string());
    }
    problems
}

/// glibc's heap hands freed memory back to the kernel by thresholds that move with the
/// allocation history, so the same code timed in two builds can differ by page faults alone
/// (decision 0007). Suites run with both thresholds fixed high, unless `GLIBC_TUNABLES` is
/// already set (then it is passed on as is).
pub const GLIBC_TUNABLES: &str =
    "glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=1073741824";

/// The `GLIBC_TUNABLES` suites run with.
pub fn glibc_tunables() -> String {
    std::env::var("GLIBC_TUNABLES").unwrap_or_else(|_| GLIBC_TUNABLES.to_string())
}

/// The suite binary as a command, per the contract.
fn command(
    sh: &Shell,
    built: &BuiltSuite,
    args: &[String],
    suite_dir: Option<&Path>,
    filter: Option<&str>,
    criterion_home: &Path,
) -> Command {
    let executable = &built.executable;
    let mut command = cmd!(sh, "{executable} {args...}")
        .env("CRITERION_HOME", criterion_home)
        .env("CARGO_MANIFEST_DIR", &built.suite.manifest_dir)
        .env("CARGO_PKG_NAME", &built.suite.package)
        .env("GLIBC_TUNABLES", glibc_tunables())
        .env_remove("SF_BENCH_FILTER")
        .env_remove("SF_BENCH_SUITE_DIR");
    if let Some(filter) = filter {
        command = command.env("SF_BENCH_FILTER", filter);
    }
    if let Some(dir) = suite_dir {
        command = command.env("SF_BENCH_SUITE_DIR", dir);
    }
    let mut library_path = built.library_path.clone();
    if let Some(inherited) = std::env::var_os(LIBRARY_PATH_VAR) {
        library_path.extend(std::env::split_paths(&inherited));
    }
    if let Ok(joined) = std::env::join_paths(library_path) {
        command = command.env(LIBRARY_PATH_VAR, joined);
    }
    let mut command = Command::from(command);
    command
        .current_dir(&built.suite.manifest_dir)
        .stdin(Stdio::null());
    command
}

/// Runs the suite with its combined stdout and stderr going to `log_path`.
pub fn run_to_log(
    sh: &Shell,
    built: &BuiltSuite,
    args: &[String],
    suite_dir: &Path,
    filter: Option<&str>,
    criterion_home: &Path,
    log_path: &Path,
) -> Result<ExitStatus> {
    let log = File::create(log_path).with_context(|| format!("creating {}", log_path.display()))?;
    let log_for_stderr = log
        .try_clone()
        .with_context(|| format!("sharing {} between stdout and stderr", log_path.display()))?;
    command(sh, built, args, Some(suite_dir), filter, criterion_home)
        .stdout(log)
        .stderr(log_for_stderr)
        .status()
        .with_context(|| format!("starting {}", built.executable.display()))
}

/// Runs `<suite> --list` under the filter and returns the case ids.
pub fn list_cases(
    sh: &Shell,
    built: &BuiltSuite,
    filter: Option<&str>,
    criterion_home: &Path,
) -> Result<Vec<String>> {
    let args = vec!["--list".to_string()];
    let output = command(sh, built, &args, None, filter, criterion_home)
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("starting {} --list", built.executable.display()))?;
    if !output.status.success() {
        bail!(
            "`{} --list` failed ({}) while listing the cases of suite {}",
            built.executable.display(),
            output.status,
            built.suite.label()
        );
    }
    Ok(parse_list(&String::from_utf8_lossy(&output.stdout)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(case: &str, status: &str) -> CaseRow {
        CaseRow {
            case: case.into(),
            status: status.into(),
            detail: String::new(),
        }
    }

    #[test]
    fn the_last_summary_line_of_the_named_suite_wins() {
        let log = "probe ok\nsf-suite other: cases=9 passed=9 failed=0 skipped=0\n\
                   sf-suite handoffs: cases=1 passed=0 failed=1 skipped=0\n\
                   sf-suite handoffs: cases=128 passed=126 failed=1 skipped=1\n";
        assert_eq!(
            parse_summary(log, "handoffs"),
            Some(SuiteSummary {
                cases: 128,
                passed: 126,
                failed: 1,
                skipped: 1
            })
        );
        assert_eq!(parse_summary("thread 'main' panicked", "handoffs"), None);
    }

    #[test]
    fn a_summary_line_inside_another_line_does_not_count() {
        let log = "note: sf-suite handoffs: cases=1 passed=1 failed=0 skipped=0\n";
        assert_eq!(parse_summary(log, "handoffs"), None);
    }

    #[test]
    fn list_output_yields_case_ids_only() {
        let output = "export_import/full_schema/rows=16/width=8/nulls=true/sliced=false: benchmark\n\
                      some other line\n\
                      fan_out/4: benchmark\r\n";
        assert_eq!(
            parse_list(output),
            vec![
                "export_import/full_schema/rows=16/width=8/nulls=true/sliced=false".to_string(),
                "fan_out/4".to_string()
            ]
        );
    }

    #[test]
    fn bench_mode_passes_criterion_flags_and_noplot() {
        let mode = Mode::Bench(CriterionFlags {
            save_baseline: Some("main".into()),
            baseline: None,
            sample_size: Some(20),
            warm_up_time: Some(0.5),
            measurement_time: Some(3.0),
        });
        assert_eq!(
            mode.args().join(" "),
            "--bench --noplot --save-baseline main --sample-size 20 --warm-up-time 0.5 \
             --measurement-time 3"
        );
        assert_eq!(Mode::Smoke.args(), vec!["--test".to_string()]);
    }

    #[test]
    fn cases_csv_is_read_with_its_header() {
        let dir = crate::rundir::tests::scratch("cases-csv");
        let path = dir.join("cases.csv");
        std::fs::write(
            &path,
            "case,status,detail\ng/a,passed,\n\"g/b,c\",failed,\"oracle: 3 != 4\"\n",
        )
        .unwrap();
        let rows = read_cases_csv(&path).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].case, "g/b,c");
        assert_eq!(rows[1].detail, "oracle: 3 != 4");
    }

    #[test]
    fn cases_csv_must_agree_with_the_summary_line() {
        let summary = SuiteSummary {
            cases: 3,
            passed: 2,
            failed: 0,
            skipped: 1,
        };
        let rows = [row("a", "passed"), row("b", "passed"), row("c", "skipped")];
        assert!(contract_problems(&summary, &rows, true).is_empty());
        let problems = contract_problems(&summary, &rows[..2], false);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("lists 2 passed, 0 failed, 0 skipped"));
        assert!(problems[1].contains("no allocations.csv"));
        let odd = [row("a", "passed"), row("b", "ok"), row("c", "skipped")];
        let problems = contract_problems(&summary, &odd, true);
        assert!(
            problems.iter().any(|p| p.contains("status `ok`")),
            "{problems:?}"
        );
    }
}
