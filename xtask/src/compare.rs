//! `cargo xtask compare`: the adoption verdict of `EVIDENCE.md` for a candidate against a
//! baseline, from two Criterion baselines (time) and/or two run directories (allocations).
//!
//! Time, per case, on the mean and its 95% confidence interval:
//! - **faster**: mean down by at least 10% *and* the candidate's whole interval lies below the
//!   baseline's lower bound minus the noise threshold;
//! - **slower**: mean up by more than 5% (a regression guardrail);
//! - otherwise **no demonstrated improvement** (an interval straddling a threshold is not a win).
//!
//! Allocations, per case: requests (`calls + zeroed_calls + realloc_calls`) or requested bytes
//! down by at least 20% is a benefit; requests, requested bytes or new output buffer bytes up
//! by more than 10% is a regression.
//!
//! Whole jobs (`cargo xtask job` run directories, both holding `jobs.csv`), per (job, state,
//! engine) over the timed trials' wall times: the same time rule, with the median as the
//! point and the trials' min..max as the interval (fresh JVMs give a handful of trials, not
//! Criterion's bootstrap; min..max is the wider, more cautious stand-in for a 95% CI).
//!
//! Correctness gates are not judged here: the suites' oracles check them in every smoke run,
//! and `cargo xtask job` times no job that failed its parity check.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use regex::Regex;
use serde::Deserialize;

use crate::estimates::{self, ConfidenceInterval, Estimate, parse_baseline_name};
use crate::selection::parse_filter;
use crate::suite_build;
use crate::table::Table;
use crate::workspace::{self, Workspace};

/// Time must drop by at least this fraction to count as faster.
const FASTER_AT_LEAST: f64 = 0.10;
/// Time up by more than this fraction is a regression.
const SLOWER_ABOVE: f64 = 0.05;
/// Allocation requests or requested bytes down by at least this fraction is a benefit.
const ALLOCATION_BENEFIT_AT_LEAST: f64 = 0.20;
/// Allocations or output size up by more than this fraction is a regression.
const ALLOCATION_REGRESSION_ABOVE: f64 = 0.10;

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Criterion baseline of the original code (as saved with `bench --save-baseline`).
    #[arg(long, value_name = "A", value_parser = parse_compared_baseline, requires = "candidate")]
    pub baseline: Option<String>,
    /// Criterion baseline of the candidate.
    #[arg(long, value_name = "B", value_parser = parse_compared_baseline, requires = "baseline")]
    pub candidate: Option<String>,
    /// Only cases of this suite (repeatable; for Criterion baselines this builds the suite to
    /// list its cases).
    #[arg(long = "suite", value_name = "SUITE")]
    pub suites: Vec<String>,
    /// Only cases whose id matches this regex.
    #[arg(long, value_name = "REGEX", value_parser = parse_filter)]
    pub filter: Option<String>,
    /// Relative noise threshold below the baseline's lower bound that a faster candidate's
    /// whole interval must clear.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.02, value_parser = parse_noise_threshold)]
    pub noise_threshold: f64,
    /// Run directory of the original code, for allocations.csv (or a job run's jobs.csv).
    #[arg(long, value_name = "DIR", requires = "candidate_run")]
    pub baseline_run: Option<PathBuf>,
    /// Run directory of the candidate, for allocations.csv (or jobs.csv).
    #[arg(long, value_name = "DIR", requires = "baseline_run")]
    pub candidate_run: Option<PathBuf>,
    /// Criterion's directory, if not <target dir>/criterion.
    #[arg(long, value_name = "DIR")]
    pub criterion_home: Option<PathBuf>,
}

/// Like a saved baseline name, but `new` (the latest measurement) may be compared too.
fn parse_compared_baseline(name: &str) -> Result<String, String> {
    if name == estimates::NEW {
        return Ok(name.to_string());
    }
    parse_baseline_name(name)
}

fn parse_noise_threshold(value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(noise) if (0.0..1.0).contains(&noise) => Ok(noise),
        Ok(_) => Err(format!(
            "`{value}` is not a fraction in [0, 1), e.g. 0.02 for 2%"
        )),
        Err(err) => Err(format!("`{value}` is not a number: {err}")),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Faster,
    Slower,
    NoDemonstratedImprovement,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoDemonstratedImprovement => "no demonstrated improvement",
        }
    }
}

/// The change of the mean, candidate against baseline, as fractions (-0.12 = 12% less time).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeChange {
    pub change: f64,
    /// Conservative bounds from the two intervals: best case against worst case.
    pub change_lower: f64,
    pub change_upper: f64,
    pub verdict: Verdict,
}

impl TimeChange {
    /// The change interval as a table shows it: `[-3.1%, +2.0%]`.
    fn interval(&self) -> String {
        format!(
            "[{}, {}]",
            format_percent(self.change_lower),
            format_percent(self.change_upper)
        )
    }
}

pub fn compare_time(baseline: &Estimate, candidate: &Estimate, noise_threshold: f64) -> TimeChange {
    let base = baseline.point_estimate;
    let base_ci = baseline.confidence_interval;
    let cand = candidate.point_estimate;
    let cand_ci = candidate.confidence_interval;
    let faster = cand <= base * (1.0 - FASTER_AT_LEAST)
        && cand_ci.upper_bound < base_ci.lower_bound * (1.0 - noise_threshold);
    let verdict = if faster {
        Verdict::Faster
    } else if cand > base * (1.0 + SLOWER_ABOVE) {
        Verdict::Slower
    } else {
        Verdict::NoDemonstratedImprovement
    };
    TimeChange {
        change: cand / base - 1.0,
        change_lower: cand_ci.lower_bound / base_ci.upper_bound - 1.0,
        change_upper: cand_ci.upper_bound / base_ci.lower_bound - 1.0,
        verdict,
    }
}

/// One row of a run's `allocations.csv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allocations {
    pub calls: u64,
    pub zeroed_calls: u64,
    pub realloc_calls: u64,
    pub requested_bytes: u64,
    pub shared_output_buffer_bytes: u64,
    pub new_output_buffer_bytes: u64,
}

impl Allocations {
    pub fn requests(&self) -> u64 {
        self.calls
            .saturating_add(self.zeroed_calls)
            .saturating_add(self.realloc_calls)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocationVerdict {
    Benefit,
    Regression,
    NoDemonstratedImprovement,
}

impl AllocationVerdict {
    fn as_str(self) -> &'static str {
        match self {
            AllocationVerdict::Benefit => "benefit",
            AllocationVerdict::Regression => "regression",
            AllocationVerdict::NoDemonstratedImprovement => "no demonstrated improvement",
        }
    }
}

pub fn compare_allocations(baseline: &Allocations, candidate: &Allocations) -> AllocationVerdict {
    let up = |base: u64, cand: u64| cand as f64 > base as f64 * (1.0 + ALLOCATION_REGRESSION_ABOVE);
    let down = |base: u64, cand: u64| {
        base > 0 && cand as f64 <= base as f64 * (1.0 - ALLOCATION_BENEFIT_AT_LEAST)
    };
    if up(baseline.requests(), candidate.requests())
        || up(baseline.requested_bytes, candidate.requested_bytes)
        || up(
            baseline.new_output_buffer_bytes,
            candidate.new_output_buffer_bytes,
        )
    {
        AllocationVerdict::Regression
    } else if down(baseline.requests(), candidate.requests())
        || down(baseline.requested_bytes, candidate.requested_bytes)
    {
        AllocationVerdict::Benefit
    } else {
        AllocationVerdict::NoDemonstratedImprovement
    }
}

/// The CSV row. (csv cannot deserialize numbers through `#[serde(flatten)]`, hence the copy.)
#[derive(Debug, Deserialize)]
struct AllocationRow {
    suite: String,
    case: String,
    calls: u64,
    zeroed_calls: u64,
    realloc_calls: u64,
    requested_bytes: u64,
    shared_output_buffer_bytes: u64,
    new_output_buffer_bytes: u64,
}

impl AllocationRow {
    fn into_entry(self) -> ((String, String), Allocations) {
        let allocations = Allocations {
            calls: self.calls,
            zeroed_calls: self.zeroed_calls,
            realloc_calls: self.realloc_calls,
            requested_bytes: self.requested_bytes,
            shared_output_buffer_bytes: self.shared_output_buffer_bytes,
            new_output_buffer_bytes: self.new_output_buffer_bytes,
        };
        ((self.suite, self.case), allocations)
    }
}

/// `(suite, case)` -> allocations, from every `<run dir>/<suite>/allocations.csv`.
pub fn read_allocations(run_dir: &Path) -> Result<BTreeMap<(String, String), Allocations>> {
    let entries = fs::read_dir(run_dir)
        .with_context(|| format!("reading run directory {}", run_dir.display()))?;
    let mut rows = BTreeMap::new();
    let mut files = 0;
    for entry in entries {
        let path = entry
            .with_context(|| format!("listing {}", run_dir.display()))?
            .path()
            .join("allocations.csv");
        if !path.is_file() {
            continue;
        }
        files += 1;
        let mut reader =
            csv::Reader::from_path(&path).with_context(|| format!("opening {}", path.display()))?;
        for row in reader.deserialize::<AllocationRow>() {
            let row = row.with_context(|| format!("reading {}", path.display()))?;
            let (key, allocations) = row.into_entry();
            rows.insert(key, allocations);
        }
    }
    if files == 0 {
        bail!(
            "no <suite>/allocations.csv under {}; pass a run directory written by `cargo xtask \
             smoke` or `cargo xtask bench`",
            run_dir.display()
        );
    }
    Ok(rows)
}

pub fn run(args: &CompareArgs) -> Result<ExitCode> {
    if args.baseline.is_none() && args.baseline_run.is_none() {
        bail!(
            "nothing to compare: pass --baseline A --candidate B (Criterion baselines), \
             --baseline-run DIR --candidate-run DIR (allocations, or whole jobs), or both"
        );
    }
    let filter = args
        .filter
        .as_deref()
        .map(Regex::new)
        .transpose()
        .context("--filter")?;
    let keep = |case: &str| filter.as_ref().is_none_or(|re| re.is_match(case));
    let workspace = Workspace::load()?;
    if !args.suites.is_empty() {
        // Unknown names fail here, listing the known suites.
        workspace::select_suites(&workspace.suites, &[], &args.suites)?;
    }
    if let (Some(baseline), Some(candidate)) = (&args.baseline, &args.candidate) {
        let criterion_home = args
            .criterion_home
            .clone()
            .unwrap_or_else(|| workspace.criterion_home());
        let in_suites = suite_cases(&workspace, &args.suites)?;
        let keep = |case: &str| keep(case) && in_suites.as_ref().is_none_or(|s| s.contains(case));
        compare_baselines(
            &criterion_home,
            baseline,
            candidate,
            args.noise_threshold,
            &keep,
        )?;
    }
    if let (Some(baseline_run), Some(candidate_run)) = (&args.baseline_run, &args.candidate_run) {
        if args.baseline.is_some() {
            println!();
        }
        let jobs = [baseline_run, candidate_run]
            .iter()
            .all(|run| run.join(JOBS_CSV).is_file());
        if jobs {
            compare_job_runs(baseline_run, candidate_run, args.noise_threshold, &keep)?;
        }
        // Job runs hold no allocations.csv; compare allocations when both runs have them.
        let allocations = || {
            [baseline_run, candidate_run]
                .iter()
                .all(|run| read_allocations(run).is_ok())
        };
        if !jobs || allocations() {
            let keep = |suite: &str, case: &str| {
                keep(case) && (args.suites.is_empty() || args.suites.iter().any(|s| s == suite))
            };
            compare_runs(baseline_run, candidate_run, &keep)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The case ids of the named suites (built and listed), or `None` for no restriction.
fn suite_cases(workspace: &Workspace, names: &[String]) -> Result<Option<BTreeSet<String>>> {
    if names.is_empty() {
        return Ok(None);
    }
    let selected = workspace::select_suites(&workspace.suites, &[], names)?;
    let features = workspace::resolve_features(&workspace.packages, &selected, &[])?;
    let cases = suite_build::list_cases(workspace, &selected, &features, None)?;
    Ok(Some(cases.into_iter().flatten().collect()))
}

fn compare_baselines(
    criterion_home: &Path,
    baseline: &str,
    candidate: &str,
    noise_threshold: f64,
    keep: &dyn Fn(&str) -> bool,
) -> Result<()> {
    let base = estimates::index(criterion_home, baseline)?;
    let cand = estimates::index(criterion_home, candidate)?;
    let base_cases: BTreeSet<&String> = base.cases.keys().filter(|c| keep(c)).collect();
    let cand_cases: BTreeSet<&String> = cand.cases.keys().filter(|c| keep(c)).collect();
    let both: Vec<&String> = base_cases.intersection(&cand_cases).copied().collect();
    if both.is_empty() {
        bail!(
            "no selected case has both Criterion baselines `{baseline}` ({} cases) and \
             `{candidate}` ({} cases) under {}; save them with `cargo xtask bench \
             --save-baseline NAME`",
            base_cases.len(),
            cand_cases.len(),
            criterion_home.display()
        );
    }

    println!(
        "time: candidate `{candidate}` against baseline `{baseline}` (mean, 95% CI; noise \
         threshold {:.1}%)",
        noise_threshold * 100.0
    );
    let mut table = Table::new(&[
        "case",
        ">baseline",
        ">candidate",
        ">change",
        ">change interval",
        "verdict",
    ]);
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    let mut log_ratio_sum = 0.0;
    for case in &both {
        let b = estimates::read_estimates(&base.cases[*case])?.mean;
        let c = estimates::read_estimates(&cand.cases[*case])?.mean;
        let result = compare_time(&b, &c, noise_threshold);
        log_ratio_sum += (1.0 + result.change).ln();
        *tally.entry(result.verdict.as_str()).or_default() += 1;
        table.row(vec![
            case.to_string(),
            format_ns(b.point_estimate),
            format_ns(c.point_estimate),
            format_percent(result.change),
            result.interval(),
            result.verdict.as_str().to_string(),
        ]);
    }
    print!("{}", table.render());
    let count = |v: Verdict| tally.get(v.as_str()).copied().unwrap_or(0);
    let (faster, slower) = (count(Verdict::Faster), count(Verdict::Slower));
    let geometric_mean = (log_ratio_sum / both.len() as f64).exp() - 1.0;
    println!(
        "whole run: {} cases in both ({} only in `{baseline}`, {} only in `{candidate}`); \
         {faster} faster, {slower} slower, {} no demonstrated improvement; geometric mean \
         change {}; verdict: {}",
        both.len(),
        base_cases.len() - both.len(),
        cand_cases.len() - both.len(),
        count(Verdict::NoDemonstratedImprovement),
        format_percent(geometric_mean),
        whole_run_verdict(faster, slower, "time")
    );
    Ok(())
}

fn compare_runs(
    baseline_run: &Path,
    candidate_run: &Path,
    keep: &dyn Fn(&str, &str) -> bool,
) -> Result<()> {
    let base = read_allocations(baseline_run)?;
    let cand = read_allocations(candidate_run)?;
    let both: Vec<&(String, String)> = base
        .keys()
        .filter(|key| cand.contains_key(*key) && keep(&key.0, &key.1))
        .collect();
    if both.is_empty() {
        bail!(
            "no selected (suite, case) appears in both {} and {}",
            baseline_run.display(),
            candidate_run.display()
        );
    }
    println!(
        "allocations: {} against {}\n(allocation requests and requested bytes on the measuring \
         thread; not copied bytes, not peak memory; C/C++ (RocksDB) and other threads excluded)",
        candidate_run.display(),
        baseline_run.display()
    );
    let mut table = Table::new(&[
        "suite",
        "case",
        ">requests",
        ">change",
        ">bytes",
        ">change",
        ">new output bytes",
        "verdict",
    ]);
    let (mut benefits, mut regressions) = (0, 0);
    for key in &both {
        let (b, c) = (&base[*key], &cand[*key]);
        let verdict = compare_allocations(b, c);
        match verdict {
            AllocationVerdict::Benefit => benefits += 1,
            AllocationVerdict::Regression => regressions += 1,
            AllocationVerdict::NoDemonstratedImprovement => {}
        }
        table.row(vec![
            key.0.clone(),
            key.1.clone(),
            format!("{} -> {}", b.requests(), c.requests()),
            format_count_change(b.requests(), c.requests()),
            format!("{} -> {}", b.requested_bytes, c.requested_bytes),
            format_count_change(b.requested_bytes, c.requested_bytes),
            format!(
                "{} -> {}",
                b.new_output_buffer_bytes, c.new_output_buffer_bytes
            ),
            verdict.as_str().to_string(),
        ]);
    }
    print!("{}", table.render());
    println!(
        "whole run: {} cases in both; {benefits} benefit, {regressions} regression, {} no \
         demonstrated improvement; verdict: {}",
        both.len(),
        both.len() - benefits - regressions,
        whole_run_verdict(benefits, regressions, "allocation")
    );
    Ok(())
}

/// A `cargo xtask job` run's trials.
pub(crate) const JOBS_CSV: &str = "jobs.csv";

/// The timed wall times (ms) of a job run, per `job/state/engine`.
pub fn read_job_times(run_dir: &Path) -> Result<BTreeMap<String, Vec<f64>>> {
    #[derive(Debug, Deserialize)]
    struct JobRow {
        job: String,
        state: String,
        engine: String,
        kind: String,
        wall_ms: f64,
    }
    let path = run_dir.join(JOBS_CSV);
    let mut reader =
        csv::Reader::from_path(&path).with_context(|| format!("opening {}", path.display()))?;
    let mut times: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for row in reader.deserialize::<JobRow>() {
        let row = row.with_context(|| format!("reading {}", path.display()))?;
        if row.kind == "timed" {
            times
                .entry(format!("{}/{}/{}", row.job, row.state, row.engine))
                .or_default()
                .push(row.wall_ms);
        }
    }
    Ok(times)
}

/// Trials as an [`Estimate`]: the median, inside the min..max of the trials.
pub fn trial_estimate(times: &[f64]) -> Option<Estimate> {
    let lower = times.iter().copied().reduce(f64::min)?;
    let upper = times.iter().copied().reduce(f64::max)?;
    Some(Estimate {
        point_estimate: crate::job::median(times)?,
        confidence_interval: ConfidenceInterval {
            lower_bound: lower,
            upper_bound: upper,
        },
    })
}

/// The job settings of a run's `metadata.json`, to warn when two runs are not like for like.
fn job_settings(run_dir: &Path) -> Option<serde_json::Value> {
    let text = fs::read_to_string(run_dir.join("metadata.json")).ok()?;
    let mut value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let jobs = value.get_mut("jobs")?.as_object_mut()?;
    // What the runs measured, not what they found.
    for key in [
        "verify",
        "timing_failures",
        "native_library",
        "planner_classpath_file",
    ] {
        jobs.remove(key);
    }
    Some(serde_json::Value::Object(jobs.clone()))
}

pub(crate) fn compare_job_runs(
    baseline_run: &Path,
    candidate_run: &Path,
    noise_threshold: f64,
    keep: &dyn Fn(&str) -> bool,
) -> Result<()> {
    let base = read_job_times(baseline_run)?;
    let cand = read_job_times(candidate_run)?;
    let both: Vec<&String> = base
        .keys()
        .filter(|id| cand.contains_key(*id) && keep(id))
        .collect();
    if both.is_empty() {
        bail!(
            "no selected job/state/engine has timed trials in both {} and {}",
            baseline_run.display(),
            candidate_run.display()
        );
    }
    println!(
        "whole jobs: {} against {} (median wall ms of the timed trials, interval min..max; \
         noise threshold {:.1}%)",
        candidate_run.display(),
        baseline_run.display(),
        noise_threshold * 100.0
    );
    if job_settings(baseline_run) != job_settings(candidate_run) {
        println!(
            "warning: the two runs' job settings (metadata.json `jobs`) differ; the comparison \
             is not like for like"
        );
    }
    let mut table = Table::new(&[
        "job/state/engine",
        ">trials",
        ">baseline",
        ">candidate",
        ">change",
        ">change interval",
        "verdict",
    ]);
    let (mut faster, mut slower) = (0, 0);
    for id in &both {
        let (b, c) = (&base[*id], &cand[*id]);
        let (Some(be), Some(ce)) = (trial_estimate(b), trial_estimate(c)) else {
            continue;
        };
        let result = compare_time(&be, &ce, noise_threshold);
        match result.verdict {
            Verdict::Faster => faster += 1,
            Verdict::Slower => slower += 1,
            Verdict::NoDemonstratedImprovement => {}
        }
        table.row(vec![
            id.to_string(),
            format!("{}/{}", b.len(), c.len()),
            format!("{:.0} ms", be.point_estimate),
            format!("{:.0} ms", ce.point_estimate),
            format_percent(result.change),
            result.interval(),
            result.verdict.as_str().to_string(),
        ]);
    }
    print!("{}", table.render());
    println!(
        "whole run: {} job/state/engine in both ({} only in the baseline, {} only in the \
         candidate); {faster} faster, {slower} slower; verdict: {}",
        both.len(),
        base.len() - both.len(),
        cand.len() - both.len(),
        whole_run_verdict(faster, slower, "time")
    );
    Ok(())
}

/// The candidate as a whole: any regression rejects it, whatever the benefits.
fn whole_run_verdict(benefits: usize, regressions: usize, what: &str) -> String {
    if regressions > 0 {
        format!("rejected ({regressions} case(s) regress past the {what} guardrail)")
    } else if benefits > 0 {
        format!("{what} benefit shown on {benefits} case(s), no regression")
    } else {
        "no demonstrated improvement".to_string()
    }
}

fn format_ns(ns: f64) -> String {
    let abs = ns.abs();
    if abs < 1e3 {
        format!("{ns:.1} ns")
    } else if abs < 1e6 {
        format!("{:.2} us", ns / 1e3)
    } else if abs < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

fn format_percent(fraction: f64) -> String {
    format!("{:+.1}%", fraction * 100.0)
}

fn format_count_change(base: u64, cand: u64) -> String {
    match (base, cand) {
        (0, 0) => format_percent(0.0),
        (0, _) => "new".to_string(),
        _ => format_percent(cand as f64 / base as f64 - 1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimates::ConfidenceInterval;
    use crate::rundir::tests::scratch;

    fn estimate(point: f64, lower: f64, upper: f64) -> Estimate {
        Estimate {
            point_estimate: point,
            confidence_interval: ConfidenceInterval {
                lower_bound: lower,
                upper_bound: upper,
            },
        }
    }

    fn allocations(calls: u64, bytes: u64, new_output: u64) -> Allocations {
        Allocations {
            calls,
            zeroed_calls: 0,
            realloc_calls: 0,
            requested_bytes: bytes,
            shared_output_buffer_bytes: 0,
            new_output_buffer_bytes: new_output,
        }
    }

    #[test]
    fn faster_needs_ten_percent_and_an_interval_clear_of_the_noise() {
        let base = estimate(100.0, 98.0, 102.0);
        let clear = compare_time(&base, &estimate(85.0, 84.0, 86.0), 0.02);
        assert_eq!(clear.verdict, Verdict::Faster);
        assert!((clear.change + 0.15).abs() < 1e-12);
        // Exactly 10% down counts.
        assert_eq!(
            compare_time(&base, &estimate(90.0, 89.0, 91.0), 0.02).verdict,
            Verdict::Faster
        );
    }

    #[test]
    fn an_interval_straddling_the_threshold_is_no_demonstrated_improvement() {
        let base = estimate(100.0, 98.0, 102.0);
        // 15% down on the mean, but the candidate's upper bound (97) is not below 98 * 0.98.
        let wide = compare_time(&base, &estimate(85.0, 70.0, 97.0), 0.02);
        assert_eq!(wide.verdict, Verdict::NoDemonstratedImprovement);
        // 8% down with a tight interval is still not 10%.
        let small = compare_time(&base, &estimate(92.0, 91.5, 92.5), 0.02);
        assert_eq!(small.verdict, Verdict::NoDemonstratedImprovement);
    }

    #[test]
    fn more_than_five_percent_up_is_slower() {
        let base = estimate(100.0, 99.0, 101.0);
        assert_eq!(
            compare_time(&base, &estimate(105.5, 104.0, 107.0), 0.02).verdict,
            Verdict::Slower
        );
        assert_eq!(
            compare_time(&base, &estimate(105.0, 104.0, 106.0), 0.02).verdict,
            Verdict::NoDemonstratedImprovement
        );
    }

    #[test]
    fn the_change_interval_pairs_best_and_worst_cases() {
        let change = compare_time(
            &estimate(100.0, 90.0, 110.0),
            &estimate(50.0, 45.0, 55.0),
            0.0,
        );
        assert!((change.change_lower - (45.0 / 110.0 - 1.0)).abs() < 1e-12);
        assert!((change.change_upper - (55.0 / 90.0 - 1.0)).abs() < 1e-12);
    }

    #[test]
    fn allocation_benefit_is_twenty_percent_fewer_requests_or_bytes() {
        let base = allocations(10, 1000, 100);
        assert_eq!(
            compare_allocations(&base, &allocations(8, 1000, 100)),
            AllocationVerdict::Benefit
        );
        assert_eq!(
            compare_allocations(&base, &allocations(10, 790, 100)),
            AllocationVerdict::Benefit
        );
        assert_eq!(
            compare_allocations(&base, &allocations(9, 900, 100)),
            AllocationVerdict::NoDemonstratedImprovement
        );
    }

    #[test]
    fn any_allocation_or_output_growth_past_ten_percent_is_a_regression() {
        let base = allocations(10, 1000, 100);
        // Fewer requests do not excuse more bytes.
        assert_eq!(
            compare_allocations(&base, &allocations(5, 1101, 100)),
            AllocationVerdict::Regression
        );
        assert_eq!(
            compare_allocations(&base, &allocations(10, 1000, 111)),
            AllocationVerdict::Regression
        );
        assert_eq!(
            compare_allocations(&allocations(0, 0, 0), &allocations(1, 8, 0)),
            AllocationVerdict::Regression
        );
        assert_eq!(
            compare_allocations(&allocations(0, 0, 0), &allocations(0, 0, 0)),
            AllocationVerdict::NoDemonstratedImprovement
        );
    }

    #[test]
    fn allocations_are_read_from_every_suite_directory_of_a_run() {
        let run = scratch("allocations-run");
        let header = "suite,case,calls,zeroed_calls,realloc_calls,requested_bytes,\
                      shared_output_buffer_bytes,new_output_buffer_bytes\n";
        for suite in ["handoffs", "state"] {
            fs::create_dir_all(run.join(suite)).unwrap();
            fs::write(
                run.join(suite).join("allocations.csv"),
                format!("{header}{suite},g/a,3,1,2,4096,100,200\n"),
            )
            .unwrap();
        }
        fs::write(run.join("metadata.json"), "{}").unwrap();
        let rows = read_allocations(&run).unwrap();
        assert_eq!(rows.len(), 2);
        let row = rows[&("state".to_string(), "g/a".to_string())];
        assert_eq!(row.requests(), 6);
        assert_eq!(row.new_output_buffer_bytes, 200);

        let empty = scratch("allocations-empty");
        let err = read_allocations(&empty).unwrap_err().to_string();
        assert!(err.contains("no <suite>/allocations.csv"), "{err}");
    }

    #[test]
    fn one_regression_rejects_the_whole_candidate() {
        assert!(whole_run_verdict(12, 1, "time").starts_with("rejected"));
        assert!(whole_run_verdict(2, 0, "time").starts_with("time benefit"));
        assert_eq!(
            whole_run_verdict(0, 0, "time"),
            "no demonstrated improvement"
        );
    }

    #[test]
    fn durations_and_changes_format_readably() {
        assert_eq!(format_ns(812.0), "812.0 ns");
        assert_eq!(format_ns(3512.0), "3.51 us");
        assert_eq!(format_ns(16_000_000.0), "16.00 ms");
        assert_eq!(format_percent(-0.1234), "-12.3%");
        assert_eq!(format_count_change(0, 3), "new");
    }

    #[test]
    fn the_latest_measurement_may_be_compared_but_not_a_path() {
        assert_eq!(parse_compared_baseline("new").as_deref(), Ok("new"));
        assert!(parse_compared_baseline("../main").is_err());
        assert!(parse_noise_threshold("0.02").is_ok());
        assert!(parse_noise_threshold("2").is_err());
    }
}
