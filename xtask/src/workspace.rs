//! The workspace as cargo metadata describes it: packages, their features and their bench
//! targets ("suites"). Nothing here is a hand-kept list; adding a `[[bench]]` to a member is
//! enough for every command to see it.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{ChildStdout, Command, ExitStatus, Stdio};

use anyhow::{Context, Result, bail};
use cargo_metadata::MetadataCommand;
use xshell::Shell;

/// One workspace member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    pub name: String,
    pub manifest_path: PathBuf,
    /// Features the package declares (the keys of its `[features]` table).
    pub features: BTreeSet<String>,
}

/// One bench target of a workspace member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suite {
    pub package: String,
    pub name: String,
    pub required_features: Vec<String>,
    pub manifest_dir: PathBuf,
}

impl Suite {
    pub fn label(&self) -> String {
        format!("{}/{}", self.package, self.name)
    }
}

#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
    pub target_dir: PathBuf,
    pub packages: Vec<Package>,
    pub suites: Vec<Suite>,
}

/// The cargo binary that started us (`cargo xtask` sets `CARGO`), or `cargo` from `PATH`.
pub fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Runs a cargo `command` (shown as `line`) with stdin closed, stderr inherited and stdout
/// handed to `read`; returns what `read` returned and cargo's exit status.
pub fn run_cargo<T>(
    mut command: Command,
    line: &str,
    read: impl FnOnce(ChildStdout) -> Result<T>,
) -> Result<(T, ExitStatus)> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("could not start `{line}`; is cargo on PATH?"))?;
    let stdout = child
        .stdout
        .take()
        .context("cargo's stdout was not captured")?;
    let read = read(stdout)?;
    let status = child
        .wait()
        .with_context(|| format!("waiting for `{line}`"))?;
    Ok((read, status))
}

/// The workspace root: the parent of this crate's directory, which `cargo run` (and so
/// `cargo xtask`) passes in `CARGO_MANIFEST_DIR` at run time. The compile-time value is only
/// a fallback: checkouts that share one target directory (a developer's and CI's clone) can
/// run a binary that another checkout built, and must still act on their own workspace.
pub fn project_root() -> PathBuf {
    let xtask_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    xtask_dir
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or(xtask_dir)
}

impl Workspace {
    pub fn load() -> Result<Workspace> {
        let root = project_root();
        let metadata = MetadataCommand::new()
            .cargo_path(cargo())
            .manifest_path(root.join("Cargo.toml"))
            .no_deps()
            .exec()
            .context("`cargo metadata` failed; run it in the workspace root to see why")?;

        let mut packages = Vec::new();
        let mut suites = Vec::new();
        for package in metadata.workspace_packages() {
            let manifest_path = package.manifest_path.clone().into_std_path_buf();
            let manifest_dir = manifest_path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| root.clone());
            for target in package.targets.iter().filter(|t| t.is_bench()) {
                suites.push(Suite {
                    package: package.name.to_string(),
                    name: target.name.clone(),
                    required_features: target.required_features.clone(),
                    manifest_dir: manifest_dir.clone(),
                });
            }
            packages.push(Package {
                name: package.name.to_string(),
                manifest_path,
                features: package.features.keys().cloned().collect(),
            });
        }
        suites.sort_by(|a, b| (&a.package, &a.name).cmp(&(&b.package, &b.name)));
        Ok(Workspace {
            root: metadata.workspace_root.into_std_path_buf(),
            target_dir: metadata.target_directory.into_std_path_buf(),
            packages,
            suites,
        })
    }

    /// A shell working in the workspace root.
    pub fn shell(&self) -> Result<Shell> {
        let sh = Shell::new().context("creating a shell")?;
        sh.change_dir(&self.root);
        Ok(sh)
    }

    /// Where suites keep Criterion's files (`CRITERION_HOME`).
    pub fn criterion_home(&self) -> PathBuf {
        self.target_dir.join("criterion")
    }

    /// `<pkg>/bench` for every member declaring a `bench` feature: what `cargo xtask test` enables.
    /// The features `cargo xtask test` builds the workspace with: every package's `bench`
    /// and every suite's required features. Suites are always built with these (plus what
    /// a selection asks for), so tests and suites share one build of the dependency line.
    pub fn test_features(&self) -> Result<Features> {
        let mut features = self.bench_features();
        features.extend(&resolve_features(&self.packages, &self.suites, &[])?);
        Ok(features)
    }

    fn bench_features(&self) -> Features {
        let mut features = Features::default();
        for package in self
            .packages
            .iter()
            .filter(|p| p.features.contains("bench"))
        {
            features.add(&package.name, "bench");
        }
        features
    }
}

/// Features to enable, per package. Rendered for cargo as `pkg/feature,...`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Features(BTreeMap<String, BTreeSet<String>>);

impl Features {
    pub fn add(&mut self, package: &str, feature: &str) {
        self.0
            .entry(package.to_string())
            .or_default()
            .insert(feature.to_string());
    }

    pub fn extend(&mut self, other: &Features) {
        for (package, features) in &other.0 {
            for feature in features {
                self.add(package, feature);
            }
        }
    }

    /// The value of cargo's `--features`, or `None` when nothing is enabled.
    pub fn cargo_arg(&self) -> Option<String> {
        let list: Vec<String> = self
            .0
            .iter()
            .flat_map(|(package, features)| features.iter().map(move |f| format!("{package}/{f}")))
            .collect();
        (!list.is_empty()).then(|| list.join(","))
    }

    /// `system`, or `mimalloc` when any package's `mimalloc` feature is on.
    pub fn allocator(&self) -> &'static str {
        if self
            .0
            .values()
            .any(|features| features.contains("mimalloc"))
        {
            "mimalloc"
        } else {
            "system"
        }
    }

    /// Features in the plain form recorded in `metadata.json`.
    pub fn to_map(&self) -> BTreeMap<String, Vec<String>> {
        self.0
            .iter()
            .map(|(package, features)| (package.clone(), features.iter().cloned().collect()))
            .collect()
    }
}

/// Picks suites by `--package` and `--suite`; both empty means every suite.
pub fn select_suites(
    suites: &[Suite],
    packages: &[String],
    names: &[String],
) -> Result<Vec<Suite>> {
    if suites.is_empty() {
        bail!(
            "the workspace has no bench targets; add a `[[bench]]` section (harness = false) to a \
             member's Cargo.toml"
        );
    }
    for package in packages {
        if !suites.iter().any(|s| &s.package == package) {
            let with_suites: BTreeSet<&str> = suites.iter().map(|s| s.package.as_str()).collect();
            bail!(
                "unknown package `{package}` for --package; packages with suites: {}",
                join(with_suites)
            );
        }
    }
    for name in names {
        if !suites.iter().any(|s| &s.name == name) {
            bail!(
                "unknown suite `{name}` for --suite; known suites: {}",
                join(suites.iter().map(Suite::label))
            );
        }
    }
    let selected: Vec<Suite> = suites
        .iter()
        .filter(|s| packages.is_empty() || packages.contains(&s.package))
        .filter(|s| names.is_empty() || names.contains(&s.name))
        .cloned()
        .collect();
    if selected.is_empty() {
        bail!(
            "no suite matches both --package {} and --suite {}; known suites: {}",
            packages.join(" --package "),
            names.join(" --suite "),
            join(suites.iter().map(Suite::label))
        );
    }
    let mut seen = BTreeMap::new();
    for suite in &selected {
        if let Some(other) = seen.insert(suite.name.as_str(), suite.package.as_str()) {
            bail!(
                "suite `{}` exists in packages `{other}` and `{}`, and each suite gets the run \
                 directory `<run>/{}`; select one with --package",
                suite.name,
                suite.package,
                suite.name
            );
        }
    }
    Ok(selected)
}

/// The features to build the selected suites with: each target's `required-features`, plus
/// every user `--features F` (applied to each selected package as `<pkg>/F`, or to one package
/// when written `pkg/F`).
pub fn resolve_features(
    packages: &[Package],
    selected: &[Suite],
    user_features: &[String],
) -> Result<Features> {
    let mut features = Features::default();
    for suite in selected {
        for feature in &suite.required_features {
            features.add(&suite.package, feature);
        }
    }
    let selected_packages: BTreeSet<&str> = selected.iter().map(|s| s.package.as_str()).collect();
    let declared = |name: &str| packages.iter().find(|p| p.name == name);
    for requested in user_features.iter().flat_map(|f| f.split([',', ' '])) {
        if requested.is_empty() {
            continue;
        }
        let targets: Vec<(&str, &str)> = match requested.split_once('/') {
            Some((package, feature)) => vec![(package, feature)],
            None => selected_packages.iter().map(|p| (*p, requested)).collect(),
        };
        for (package, feature) in targets {
            let Some(info) = declared(package) else {
                bail!(
                    "--features {requested}: `{package}` is not a workspace package; members: {}",
                    join(packages.iter().map(|p| p.name.as_str()))
                );
            };
            if !info.features.contains(feature) {
                bail!(
                    "--features {requested}: package `{package}` does not declare feature \
                     `{feature}` (it declares: {}); declare it in {} or write --features \
                     <package>/{feature} for the package that has it",
                    if info.features.is_empty() {
                        "none".to_string()
                    } else {
                        join(info.features.iter())
                    },
                    info.manifest_path.display()
                );
            }
            features.add(package, feature);
        }
    }
    Ok(features)
}

fn join<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn suite(package: &str, name: &str) -> Suite {
        Suite {
            package: package.into(),
            name: name.into(),
            required_features: vec!["bench".into()],
            manifest_dir: PathBuf::from(format!("/ws/{package}")),
        }
    }

    fn package(name: &str, features: &[&str]) -> Package {
        Package {
            name: name.into(),
            manifest_path: PathBuf::from(format!("/ws/{name}/Cargo.toml")),
            features: features.iter().map(|f| f.to_string()).collect(),
        }
    }

    fn sample() -> Vec<Suite> {
        vec![
            suite("streamfusion", "operators"),
            suite("streamfusion", "state"),
            suite("streamfusion-bridge", "handoffs"),
        ]
    }

    #[test]
    fn no_selection_means_every_suite() {
        let selected = select_suites(&sample(), &[], &[]).unwrap();
        assert_eq!(selected.len(), 3);
    }

    #[test]
    fn package_and_suite_selections_intersect() {
        let selected =
            select_suites(&sample(), &["streamfusion".into()], &["state".into()]).unwrap();
        assert_eq!(selected, vec![suite("streamfusion", "state")]);
    }

    #[test]
    fn unknown_suite_lists_the_known_suites() {
        let err = select_suites(&sample(), &[], &["handoff".into()]).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("unknown suite `handoff`"), "{message}");
        assert!(
            message.contains("streamfusion-bridge/handoffs"),
            "{message}"
        );
    }

    #[test]
    fn unknown_package_lists_packages_that_have_suites() {
        let err = select_suites(&sample(), &["xtask".into()], &[]).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("unknown package `xtask`"), "{message}");
        assert!(
            message.contains("streamfusion, streamfusion-bridge"),
            "{message}"
        );
    }

    #[test]
    fn disjoint_package_and_suite_is_refused() {
        let err =
            select_suites(&sample(), &["streamfusion".into()], &["handoffs".into()]).unwrap_err();
        assert!(err.to_string().contains("no suite matches"), "{err}");
    }

    #[test]
    fn same_suite_name_in_two_packages_must_be_disambiguated() {
        let suites = vec![suite("a", "handoffs"), suite("b", "handoffs")];
        let err = select_suites(&suites, &[], &[]).unwrap_err();
        assert!(
            err.to_string().contains("select one with --package"),
            "{err}"
        );
        assert!(select_suites(&suites, &["a".into()], &[]).is_ok());
    }

    #[test]
    fn required_features_and_user_features_are_namespaced_per_package() {
        let packages = vec![
            package("streamfusion", &["bench", "mimalloc"]),
            package("streamfusion-bridge", &["bench", "mimalloc"]),
        ];
        let selected = select_suites(&sample(), &[], &[]).unwrap();
        let features = resolve_features(&packages, &selected, &["mimalloc".into()]).unwrap();
        assert_eq!(
            features.cargo_arg().as_deref(),
            Some(
                "streamfusion/bench,streamfusion/mimalloc,\
                 streamfusion-bridge/bench,streamfusion-bridge/mimalloc"
            )
        );
        assert_eq!(features.allocator(), "mimalloc");
    }

    #[test]
    fn a_feature_the_package_lacks_is_refused_with_what_it_declares() {
        let packages = vec![package("streamfusion-bridge", &["bench"])];
        let selected = vec![suite("streamfusion-bridge", "handoffs")];
        let err = resolve_features(&packages, &selected, &["mimalloc".into()]).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("does not declare feature `mimalloc`"),
            "{message}"
        );
        assert!(message.contains("it declares: bench"), "{message}");
    }

    #[test]
    fn a_package_qualified_feature_applies_to_that_package_only() {
        let packages = vec![
            package("bench-support", &["mimalloc"]),
            package("streamfusion-bridge", &["bench"]),
        ];
        let selected = vec![suite("streamfusion-bridge", "handoffs")];
        let features =
            resolve_features(&packages, &selected, &["bench-support/mimalloc".into()]).unwrap();
        assert_eq!(
            features.cargo_arg().as_deref(),
            Some("bench-support/mimalloc,streamfusion-bridge/bench")
        );
    }

    #[test]
    fn without_a_mimalloc_feature_the_allocator_is_system() {
        let mut features = Features::default();
        assert_eq!(features.cargo_arg(), None);
        features.add("streamfusion", "bench");
        assert_eq!(features.allocator(), "system");
    }
}
