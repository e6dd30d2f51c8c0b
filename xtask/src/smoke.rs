//! `cargo xtask smoke`: every selected suite once in Criterion test mode (`--test`), with each
//! case's oracle check and allocation probe. The JVM classpath is prepared first (see `jvm`).

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::jvm;
use crate::prereqs;
use crate::rundir::RunDirArgs;
use crate::selection::Selection;
use crate::suite_binary::Mode;
use crate::suites::{self, Session};
use crate::workspace::Workspace;

#[derive(Debug, Args)]
pub struct SmokeArgs {
    #[command(flatten)]
    pub selection: Selection,
    #[command(flatten)]
    pub run_dir: RunDirArgs,
}

pub fn run(args: &SmokeArgs) -> Result<ExitCode> {
    let workspace = Workspace::load()?;
    let (selected, features) = args.selection.resolve(&workspace)?;
    let mut session = Session::start(workspace, "smoke", args.run_dir.output.as_deref())?;
    prereqs::ensure(&session.sh)?;
    let jvm_ready = jvm::prepare_for_session(&mut session)?;
    let built = session.build(&selected, &features)?;
    let outcomes = session.run_suites(&built, &Mode::Smoke, args.selection.filter.as_deref())?;
    let all_passed = session.finish(&outcomes)?;
    Ok(suites::exit_code_with_jvm(all_passed, &outcomes, jvm_ready))
}
