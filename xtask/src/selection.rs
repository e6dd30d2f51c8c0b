//! The selection flags shared by `list`, `smoke` and `bench`: which suites, which cases, and
//! the features to build them with.

use anyhow::Result;
use clap::Args;
use regex::Regex;

use crate::workspace::{self, Features, Suite, Workspace};

/// Which suites and cases to select and the features to build them with.
#[derive(Debug, Clone, Default, Args)]
pub struct Selection {
    /// Only suites of this package (repeatable).
    #[arg(long = "package", short = 'p', value_name = "PACKAGE")]
    pub packages: Vec<String>,
    /// Only this suite, i.e. bench target (repeatable).
    #[arg(long = "suite", value_name = "SUITE")]
    pub suites: Vec<String>,
    /// Only cases whose id matches this regex (searched, not anchored).
    #[arg(long, value_name = "REGEX", value_parser = parse_filter)]
    pub filter: Option<String>,
    /// Enable feature F of every selected package (or `pkg/F` for one package); repeatable.
    #[arg(long = "features", short = 'F', value_name = "F")]
    pub features: Vec<String>,
}

impl Selection {
    /// Resolves `--package`/`--suite`/`--features` against the workspace. The features are
    /// the test command's plus the selection's ([`Workspace::test_features`]).
    pub fn resolve(&self, workspace: &Workspace) -> Result<(Vec<Suite>, Features)> {
        let selected = workspace::select_suites(&workspace.suites, &self.packages, &self.suites)?;
        let mut features = workspace.test_features()?;
        features.extend(&workspace::resolve_features(
            &workspace.packages,
            &selected,
            &self.features,
        )?);
        Ok((selected, features))
    }
}

/// Validates `--filter` with the same regex engine the runner uses.
pub fn parse_filter(filter: &str) -> Result<String, String> {
    Regex::new(filter)
        .map(|_| filter.to_string())
        .map_err(|err| format!("not a valid regex:\n{err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_filter_is_reported_as_a_bad_regex() {
        assert!(parse_filter("rows=(16|1024)").is_ok());
        let err = parse_filter("rows=(16").unwrap_err();
        assert!(err.starts_with("not a valid regex"), "{err}");
    }
}
