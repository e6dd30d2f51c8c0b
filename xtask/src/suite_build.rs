//! Building suite binaries with `cargo bench --profile release --no-run`, and finding the
//! executables in cargo's JSON messages.
//!
//! The `release` profile is the one `cargo xtask test` uses for `cargo test --release`, so the
//! heavy dependency line (DataFusion, RocksDB's C++) is compiled once for tests and suites.

use std::collections::BTreeSet;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use cargo_metadata::Message;
use xshell::{Shell, cmd};

use crate::prereqs;
use crate::suite_binary;
use crate::workspace::{self, Features, Suite, Workspace, cargo};

/// The `cargo bench --no-run` invocation that builds the selected suites.
///
/// It is always `--workspace` with every selected `--bench`, and the features include the
/// test command's (see [`crate::workspace::Workspace::test_features`]): cargo unifies
/// dependency features over the packages it builds, so `-p <pkg>` would resolve DataFusion
/// and RocksDB differently from `cargo xtask test` and compile them a second time. A suite
/// of the same name in another package is built too (its features are on) and not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub benches: Vec<String>,
    pub features: Features,
}

impl Invocation {
    pub fn new(selected: &[Suite], features: &Features) -> Self {
        let names: BTreeSet<&str> = selected.iter().map(|s| s.name.as_str()).collect();
        Self {
            benches: names.into_iter().map(String::from).collect(),
            features: features.clone(),
        }
    }

    pub fn args(&self) -> Vec<String> {
        let mut args: Vec<String> = [
            "bench",
            "--profile",
            "release",
            "--no-run",
            "--message-format=json-render-diagnostics",
            "--workspace",
        ]
        .map(String::from)
        .to_vec();
        for bench in &self.benches {
            args.extend(["--bench".into(), bench.clone()]);
        }
        if let Some(features) = self.features.cargo_arg() {
            args.extend(["--features".into(), features]);
        }
        args
    }
}

/// A suite with its freshly built executable.
#[derive(Debug, Clone)]
pub struct BuiltSuite {
    pub suite: Suite,
    pub executable: PathBuf,
    /// What `cargo bench` would put on the dynamic library path: the executable's `deps`
    /// directory and build scripts' link-search directories inside the target directory.
    pub library_path: Vec<PathBuf>,
}

/// What one cargo invocation produced.
#[derive(Debug, Default)]
struct BuildOutput {
    /// (package, bench target, executable)
    executables: Vec<(String, String, PathBuf)>,
    native_dirs: BTreeSet<PathBuf>,
}

/// The directory of a build script's `rustc-link-search` entry (`[KIND=]PATH`) when cargo
/// would add it to the library path of the binaries it runs: only inside the target directory.
fn native_dir(linked_path: &str, target_dir: &Path) -> Option<PathBuf> {
    let path = match linked_path.split_once('=') {
        Some((kind, path))
            if ["native", "dependency", "crate", "framework", "all"].contains(&kind) =>
        {
            path
        }
        _ => linked_path,
    };
    let path = PathBuf::from(path);
    path.starts_with(target_dir).then_some(path)
}

/// Builds the selected suites with `features` and returns the executables in selection
/// order. The exact command line is appended to `commands` (for `metadata.json`) before it
/// runs.
pub fn build(
    sh: &Shell,
    workspace: &Workspace,
    selected: &[Suite],
    features: &Features,
    commands: &mut Vec<String>,
) -> Result<Vec<BuiltSuite>> {
    let cargo = cargo();
    let args = Invocation::new(selected, features).args();
    let command = cmd!(sh, "{cargo} {args...}");
    let line = command.to_string();
    eprintln!("$ {line}");
    commands.push(line.clone());
    let output = run_build(command.into(), &line, workspace)?;
    let mut built = Vec::new();
    for suite in selected {
        let Some((_, _, executable)) = output
            .executables
            .iter()
            .find(|(package, name, _)| *package == suite.package && *name == suite.name)
        else {
            bail!(
                "cargo built no executable for suite `{}`; check that its [[bench]] target has \
                 `harness = false` and that its required features are enabled",
                suite.label()
            );
        };
        let library_path = executable
            .parent()
            .map(Path::to_path_buf)
            .into_iter()
            .chain(output.native_dirs.iter().cloned())
            .collect();
        built.push(BuiltSuite {
            suite: suite.clone(),
            executable: executable.clone(),
            library_path,
        });
    }
    Ok(built)
}

/// For `list` and `compare`, outside any run: builds the selected suites (prerequisites
/// first, commands not recorded) and returns each one's cases matching `filter`, in order.
pub fn list_cases(
    workspace: &Workspace,
    selected: &[Suite],
    features: &Features,
    filter: Option<&str>,
) -> Result<Vec<Vec<String>>> {
    let sh = workspace.shell()?;
    prereqs::ensure(&sh)?;
    let built = build(&sh, workspace, selected, features, &mut Vec::new())?;
    built
        .iter()
        .map(|suite| suite_binary::list_cases(&sh, suite, filter, &workspace.criterion_home()))
        .collect()
}

/// Runs one cargo invocation, streaming its JSON messages; diagnostics go to stderr as usual.
fn run_build(command: Command, line: &str, workspace: &Workspace) -> Result<BuildOutput> {
    let (found, status) = workspace::run_cargo(command, line, |stdout| {
        let mut found = BuildOutput::default();
        for message in Message::parse_stream(BufReader::new(stdout)) {
            match message.context("reading cargo's JSON messages")? {
                Message::CompilerArtifact(artifact) if artifact.target.is_bench() => {
                    if let Some(executable) = artifact.executable {
                        let package = package_of(workspace, artifact.manifest_path.as_std_path())
                            .unwrap_or_else(|| artifact.package_id.repr.clone());
                        found.executables.push((
                            package,
                            artifact.target.name,
                            executable.into_std_path_buf(),
                        ));
                    }
                }
                Message::BuildScriptExecuted(script) => {
                    found.native_dirs.extend(
                        script
                            .linked_paths
                            .iter()
                            .filter_map(|p| native_dir(p.as_str(), &workspace.target_dir)),
                    );
                }
                Message::TextLine(text) => eprintln!("{text}"),
                _ => {}
            }
        }
        Ok(found)
    })?;
    if !status.success() {
        bail!(
            "building the suites failed ({status}); the compiler's messages are above. Command: {line}"
        );
    }
    Ok(found)
}

fn package_of(workspace: &Workspace, manifest_path: &Path) -> Option<String> {
    workspace
        .packages
        .iter()
        .find(|p| p.manifest_path == manifest_path)
        .map(|p| p.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::tests::suite;

    #[test]
    fn only_link_search_dirs_inside_the_target_dir_join_the_library_path() {
        let target = Path::new("/ws/target");
        assert_eq!(
            native_dir("native=/ws/target/release/build/x-1/out/lib", target),
            Some(PathBuf::from("/ws/target/release/build/x-1/out/lib"))
        );
        assert_eq!(
            native_dir("/ws/target/release/build/y/out", target),
            Some(PathBuf::from("/ws/target/release/build/y/out"))
        );
        assert_eq!(native_dir("native=/usr/lib/jvm/lib/server", target), None);
    }

    #[test]
    fn one_workspace_invocation_builds_every_selected_suite_with_every_feature() {
        let selected = vec![suite("b", "y"), suite("a", "x"), suite("b", "y")];
        let mut features = Features::default();
        features.add("a", "bench");
        features.add("c", "bench");
        assert_eq!(
            Invocation::new(&selected, &features).args().join(" "),
            "bench --profile release --no-run --message-format=json-render-diagnostics \
             --workspace --bench x --bench y --features a/bench,c/bench"
        );
    }
}
