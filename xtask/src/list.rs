//! `cargo xtask list`: the suites cargo metadata knows about, with their case counts.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::selection::Selection;
use crate::suite_build;
use crate::table::Table;
use crate::workspace::Workspace;

#[derive(Debug, Args)]
// The shared selection flags, with `list`'s own help wording (it counts cases).
#[command(
    mut_arg("suites", |arg| arg.help("Only this suite (repeatable)")),
    mut_arg("filter", |arg| arg.help("Count only cases whose id matches this regex")),
    mut_arg("features", |arg| {
        arg.help("Enable feature F of every selected package (or `pkg/F`); repeatable")
    })
)]
pub struct ListArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Do not build the suites; case counts are then unknown.
    #[arg(long)]
    pub no_build: bool,
}

pub fn run(args: &ListArgs) -> Result<ExitCode> {
    let workspace = Workspace::load()?;
    let (selected, features) = args.selection.resolve(&workspace)?;

    let counts: Vec<Option<usize>> = if args.no_build {
        vec![None; selected.len()]
    } else {
        let filter = args.selection.filter.as_deref();
        suite_build::list_cases(&workspace, &selected, &features, filter)?
            .iter()
            .map(|cases| Some(cases.len()))
            .collect()
    };

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
