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

/// Which packages cargo resolves features for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `--workspace`: feature unification matches `cargo test --workspace`, so `cargo xtask
    /// test` reuses the test build's dependencies for its suites.
    Workspace,
    /// `-p <pkg>` for each package with a selected suite.
    SelectedPackages,
}

/// One `cargo bench --no-run` invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub scope: Scope,
    pub packages: Vec<String>,
    pub benches: Vec<String>,
    pub features: Features,
}

impl Invocation {
    pub fn args(&self) -> Vec<String> {
        let mut args: Vec<String> = [
            "bench",
            "--profile",
            "release",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ]
        .map(String::from)
        .to_vec();
        match self.scope {
            Scope::Workspace => args.push("--workspace".into()),
            Scope::SelectedPackages => {
                for package in &self.packages {
                    args.extend(["-p".into(), package.clone()]);
                }
            }
        }
        for bench in &self.benches {
            args.extend(["--bench".into(), bench.clone()]);
        }
        if let Some(features) = self.features.cargo_arg() {
            args.extend(["--features".into(), features]);
        }
        args
    }
}

/// Plans the fewest invocations that build exactly the selected suites.
///
/// cargo applies every `--bench NAME` to every `-p` package, so one invocation is only safe
/// when that cross product names no unselected target (which could need features we did not
/// enable); otherwise each package gets its own invocation.
pub fn plan(
    all: &[Suite],
    selected: &[Suite],
    features: &Features,
    scope: Scope,
) -> Vec<Invocation> {
    let packages: BTreeSet<&str> = selected.iter().map(|s| s.package.as_str()).collect();
    let names: BTreeSet<&str> = selected.iter().map(|s| s.name.as_str()).collect();
    let single = |packages: &BTreeSet<&str>, names: &BTreeSet<&str>| Invocation {
        scope,
        packages: packages.iter().map(|p| p.to_string()).collect(),
        benches: names.iter().map(|n| n.to_string()).collect(),
        features: features.clone(),
    };
    let cross_product_is_exact = all
        .iter()
        .filter(|s| names.contains(s.name.as_str()))
        .filter(|s| matches!(scope, Scope::Workspace) || packages.contains(s.package.as_str()))
        .all(|s| selected.contains(s));
    if cross_product_is_exact {
        return vec![single(&packages, &names)];
    }
    packages
        .iter()
        .map(|package| {
            let names = selected
                .iter()
                .filter(|s| s.package == *package)
                .map(|s| s.name.clone())
                .collect();
            Invocation {
                scope: Scope::SelectedPackages,
                packages: vec![package.to_string()],
                benches: names,
                // Another selected package's features would name a package this invocation
                // does not select; features of dependencies (`bench-support/mimalloc`) stay.
                features: features
                    .without(&packages.iter().filter(|p| *p != package).copied().collect()),
            }
        })
        .collect()
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

/// Runs the planned invocations and returns the executables in selection order. Each exact
/// command line is appended to `commands` (for `metadata.json`) before it runs.
pub fn build(
    sh: &Shell,
    workspace: &Workspace,
    selected: &[Suite],
    invocations: &[Invocation],
    commands: &mut Vec<String>,
) -> Result<Vec<BuiltSuite>> {
    let mut output = BuildOutput::default();
    for invocation in invocations {
        let cargo = cargo();
        let args = invocation.args();
        let command = cmd!(sh, "{cargo} {args...}");
        let line = command.to_string();
        eprintln!("$ {line}");
        commands.push(line.clone());
        let one = run_build(command.into(), &line, workspace)?;
        output.executables.extend(one.executables);
        output.native_dirs.extend(one.native_dirs);
    }
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
    let plan = plan(
        &workspace.suites,
        selected,
        features,
        Scope::SelectedPackages,
    );
    let built = build(&sh, workspace, selected, &plan, &mut Vec::new())?;
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

    fn features_of(suites: &[Suite]) -> Features {
        let mut features = Features::default();
        for s in suites {
            features.add(&s.package, "bench");
        }
        features
    }

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
    fn suites_of_distinct_names_build_in_one_invocation() {
        let all = vec![suite("a", "x"), suite("b", "y"), suite("b", "z")];
        let selected = vec![all[0].clone(), all[1].clone()];
        let plan = plan(&all, &selected, &features_of(&all), Scope::SelectedPackages);
        assert_eq!(plan.len(), 1);
        assert_eq!(
            plan[0].args().join(" "),
            "bench --profile release --no-run --message-format=json-render-diagnostics \
             -p a -p b --bench x --bench y --features a/bench,b/bench"
        );
    }

    #[test]
    fn a_cross_product_naming_an_unselected_suite_splits_per_package() {
        let all = vec![suite("a", "x"), suite("a", "y"), suite("b", "x")];
        // a/y and b/x: `-p a -p b --bench x --bench y` would also build a/x.
        let selected = vec![all[1].clone(), all[2].clone()];
        let plan = plan(&all, &selected, &features_of(&all), Scope::SelectedPackages);
        assert_eq!(plan.len(), 2);
        assert_eq!(plan[0].packages, vec!["a".to_string()]);
        assert_eq!(plan[0].benches, vec!["y".to_string()]);
        assert_eq!(plan[1].features.cargo_arg().as_deref(), Some("b/bench"));
    }

    #[test]
    fn workspace_scope_keeps_every_feature_and_uses_dash_dash_workspace() {
        let all = vec![suite("a", "x"), suite("b", "y")];
        let mut features = features_of(&all);
        features.add("c", "bench");
        let plan = plan(&all, &all, &features, Scope::Workspace);
        assert_eq!(plan.len(), 1);
        let args = plan[0].args().join(" ");
        assert!(args.contains("--workspace --bench x --bench y"), "{args}");
        assert!(
            args.ends_with("--features a/bench,b/bench,c/bench"),
            "{args}"
        );
    }
}
