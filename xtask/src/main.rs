//! `cargo xtask`: the StreamFusion driver.
//!
//! `main` parses and dispatches; each task lives in its own file. Suites are the workspace's
//! bench targets, discovered through cargo metadata. Every smoke/bench/test run writes one
//! fresh directory (logs, `cases.csv`, `allocations.csv`, `estimates.csv`, `metadata.json`)
//! under `<target dir>/native-benchmarks/` or `--output`. `jvm` prepares the JVM classpath
//! (released Flink jars plus `java/src`) that smoke, bench and test also prepare and pass on;
//! `flink` assembles a runnable Flink with StreamFusion, which test also assembles.

mod bench;
mod clock;
mod compare;
mod estimates;
mod flink_dist;
mod job;
mod job_profile;
mod jvm;
mod list;
mod metadata;
mod prereqs;
mod rundir;
mod selection;
mod smoke;
mod suite_binary;
mod suite_build;
mod suites;
mod table;
mod test;
mod walk;
mod workspace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "StreamFusion's driver: discover, smoke and measure the benchmark suites, and judge \
             candidates by EVIDENCE.md"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the suites (bench targets) with their required features and case counts.
    List(list::ListArgs),
    /// Run each selected suite once in Criterion test mode (oracles and allocation probes).
    Smoke(smoke::SmokeArgs),
    /// Measure the selected suites with Criterion and write estimates.csv per suite.
    Bench(bench::BenchArgs),
    /// The project's test command: prerequisites, cargo test (release), then smoke every suite.
    Test(test::TestArgs),
    /// Judge a candidate against a baseline (time and allocations) by EVIDENCE.md.
    Compare(compare::CompareArgs),
    /// Assemble the Flink 2.3.0 classpath (cached jars) and compile java/src into
    /// <target>/jvm/classpath.txt.
    Jvm(jvm::JvmArgs),
    /// Assemble a runnable Flink 2.3.0 with StreamFusion in lib/ (from the PyPI wheels and a
    /// release build) into <target>/flink-2.3.0-streamfusion.
    Flink(flink_dist::FlinkArgs),
    /// Run whole Flink SQL jobs stock and native in fresh MiniCluster JVMs: parity first,
    /// then ABBA timed runs into jobs.csv and jobs.svg.
    Job(job::JobArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::List(args) => list::run(args),
        Command::Smoke(args) => smoke::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Test(args) => test::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Jvm(args) => jvm::run(args),
        Command::Flink(args) => flink_dist::run(args),
        Command::Job(args) => job::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("cargo-xtask").chain(args.iter().copied()))
    }

    #[test]
    fn the_cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn save_baseline_and_baseline_together_are_refused() {
        let err = parse(&["bench", "--save-baseline", "a", "--baseline", "b"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::ArgumentConflict);
    }

    #[test]
    fn a_baseline_name_with_path_characters_is_refused() {
        let err = parse(&["bench", "--save-baseline", "../main"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::ValueValidation);
        assert!(err.to_string().contains("single directory name"), "{err}");
    }

    #[test]
    fn a_bad_filter_regex_is_refused_before_anything_runs() {
        let err = parse(&["smoke", "--filter", "rows=(16"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::ValueValidation);
        assert!(err.to_string().contains("not a valid regex"), "{err}");
    }

    #[test]
    fn a_sample_size_below_criterions_minimum_is_refused() {
        assert!(parse(&["bench", "--sample-size", "5"]).is_err());
        assert!(parse(&["bench", "--sample-size", "10"]).is_ok());
    }

    #[test]
    fn smoke_selection_flags_repeat() {
        let cli = parse(&[
            "smoke",
            "--package",
            "a",
            "-p",
            "b",
            "--suite",
            "s",
            "--features",
            "mimalloc",
        ])
        .unwrap();
        let Command::Smoke(args) = cli.command else {
            panic!("parsed as {:?}", cli.command);
        };
        assert_eq!(args.selection.packages, vec!["a", "b"]);
        assert_eq!(args.selection.suites, vec!["s"]);
        assert_eq!(args.selection.features, vec!["mimalloc"]);
    }

    #[test]
    fn compare_needs_both_sides_of_a_pair() {
        assert!(parse(&["compare", "--baseline", "a"]).is_err());
        assert!(parse(&["compare", "--baseline-run", "x"]).is_err());
        assert!(parse(&["compare", "--baseline", "a", "--candidate", "b"]).is_ok());
    }
}
