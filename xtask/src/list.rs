//! `cargo xtask list`: the suites cargo metadata knows about, with their case counts.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use xshell::Shell;

use crate::prereqs;
use crate::suite_binary;
use crate::suite_build::{self, Scope};
use crate::suites::parse_filter;
use crate::table::Table;
use crate::workspace::{self, Workspace};

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only suites of this package (repeatable).
    #[arg(long = "package", short = 'p', value_name = "PACKAGE")]
    pub packages: Vec<String>,
    /// Only this suite (repeatable).
    #[arg(long = "suite", value_name = "SUITE")]
    pub suites: Vec<String>,
    /// Count only cases whose id matches this regex.
    #[arg(long, value_name = "REGEX", value_parser = parse_filter)]
    pub filter: Option<String>,
    /// Enable feature F of every selected package (or `pkg/F`); repeatable.
    #[arg(long = "features", short = 'F', value_name = "F")]
    pub features: Vec<String>,
    /// Do not build the suites; case counts are then unknown.
    #[arg(long)]
    pub no_build: bool,
}

pub fn run(args: &ListArgs) -> Result<ExitCode> {
    let workspace = Workspace::load()?;
    let selected = workspace::select_suites(&workspace.suites, &args.packages, &args.suites)?;
    let features = workspace::resolve_features(&workspace.packages, &selected, &args.features)?;

    let mut counts = vec![None; selected.len()];
    if !args.no_build {
        let sh = Shell::new().context("creating a shell")?;
        sh.change_dir(&workspace.root);
        prereqs::ensure(&sh)?;
        let plan = suite_build::plan(
            &workspace.suites,
            &selected,
            &features,
            Scope::SelectedPackages,
        );
        let built = suite_build::build(&sh, &workspace, &selected, &plan, &mut Vec::new())?;
        for (count, suite) in counts.iter_mut().zip(&built) {
            let cases = suite_binary::list_cases(
                &sh,
                suite,
                args.filter.as_deref(),
                &workspace.criterion_home(),
            )?;
            *count = Some(cases.len());
        }
    }

    let mut table = Table::new(&["package", "suite", "required features", ">cases"]);
    for (suite, count) in selected.iter().zip(&counts) {
        table.row(vec![
            suite.package.clone(),
            suite.name.clone(),
            if suite.required_features.is_empty() {
                "-".to_string()
            } else {
                suite.required_features.join(",")
            },
            count.map_or("-".to_string(), |n| n.to_string()),
        ]);
    }
    print!("{}", table.render());
    if let Some(total) = counts.iter().copied().sum::<Option<usize>>() {
        println!("{} suites, {total} cases", selected.len());
    }
    Ok(ExitCode::SUCCESS)
}
