//! `cargo xtask bench`: Criterion measurements of the selected suites, with Criterion's
//! baselines, and `estimates.csv` per suite extracted from Criterion's own files.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

use crate::estimates::{self, parse_baseline_name};
use crate::jvm;
use crate::prereqs;
use crate::rundir::RunDirArgs;
use crate::selection::Selection;
use crate::suite_binary::{CriterionFlags, Mode};
use crate::suites::{self, Session};
use crate::workspace::Workspace;

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub selection: Selection,
    #[command(flatten)]
    pub run_dir: RunDirArgs,
    /// Save this run as Criterion baseline NAME.
    #[arg(long, value_name = "NAME", value_parser = parse_baseline_name, conflicts_with = "baseline")]
    pub save_baseline: Option<String>,
    /// Compare against Criterion baseline NAME (every selected case must have it).
    #[arg(long, value_name = "NAME", value_parser = parse_baseline_name)]
    pub baseline: Option<String>,
    /// Criterion samples per case (at least 10).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(10..))]
    pub sample_size: Option<u64>,
    /// Criterion warm-up time per case, in seconds.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub warm_up_time: Option<f64>,
    /// Criterion measurement time per case, in seconds.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub measurement_time: Option<f64>,
}

impl BenchArgs {
    fn criterion_flags(&self) -> CriterionFlags {
        CriterionFlags {
            save_baseline: self.save_baseline.clone(),
            baseline: self.baseline.clone(),
            sample_size: self.sample_size,
            warm_up_time: self.warm_up_time,
            measurement_time: self.measurement_time,
        }
    }
}

/// A positive, finite number of seconds.
pub fn parse_seconds(value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 => Ok(seconds),
        Ok(_) => Err(format!("`{value}` is not a positive number of seconds")),
        Err(err) => Err(format!("`{value}` is not a number of seconds: {err}")),
    }
}

pub fn run(args: &BenchArgs) -> Result<ExitCode> {
    let workspace = Workspace::load()?;
    let (selected, features) = args.selection.resolve(&workspace)?;
    let filter = args.selection.filter.as_deref();
    let mut session = Session::start(workspace, "bench", args.run_dir.output.as_deref())?;
    let flags = args.criterion_flags();
    session.metadata.criterion.flags = flags.clone();
    prereqs::ensure(&session.sh)?;
    let jvm_ready = jvm::prepare_for_session(&mut session)?;
    let built = session.build(&selected, &features)?;

    if let Some(baseline) = &flags.baseline {
        let mut cases = Vec::new();
        for suite in &built {
            cases.extend(session.list_cases(suite, filter)?);
        }
        if cases.is_empty() {
            bail!("no selected case matches --filter {}", filter.unwrap_or(""));
        }
        estimates::require_baseline(&session.workspace.criterion_home(), baseline, &cases)?;
    }

    let outcomes = session.run_suites(&built, &Mode::Bench(flags), filter)?;
    let all_passed = session.finish(&outcomes)?;
    Ok(suites::exit_code_with_jvm(all_passed, &outcomes, jvm_ready))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_must_be_positive_and_finite() {
        assert_eq!(parse_seconds("0.5"), Ok(0.5));
        for bad in ["0", "-1", "inf", "NaN", "three"] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
