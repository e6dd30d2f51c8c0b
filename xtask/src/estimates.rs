//! Criterion's own files, read back: which case lives in which directory, its estimates, and
//! the per-suite `estimates.csv` a bench run leaves next to its log.
//!
//! Criterion keeps one directory per case under `CRITERION_HOME`, nested by
//! group/function/value and with unsafe characters replaced, so directories are found by
//! walking for `benchmark.json` and matched on its `full_id` (which is the runner's case id).
//! A measurement writes `<case dir>/new/`; `--save-baseline NAME` copies it to
//! `<case dir>/NAME/`.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::walk;

/// The directory Criterion writes the current measurement to.
pub const NEW: &str = "new";

/// Accepts a name usable as one path component: `[A-Za-z0-9_.-]+`, not `.` or `..`.
pub fn parse_baseline_name(name: &str) -> Result<String, String> {
    if name.is_empty() {
        return Err("a baseline name cannot be empty".into());
    }
    if name == "." || name == ".." {
        return Err(format!(
            "`{name}` is not a baseline name (it names a directory)"
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Err(format!(
            "`{name}` contains {bad:?}; a baseline name is a single directory name made of \
             letters, digits, `_`, `.` and `-`"
        ));
    }
    if name == NEW {
        return Err(
            "`new` is where Criterion writes the current measurement; pick another name".into(),
        );
    }
    Ok(name.to_string())
}

#[derive(Debug, Deserialize)]
struct BenchmarkJson {
    full_id: String,
}

/// Case id (`full_id`) -> `<case dir>/<baseline>` for every case with that baseline, and the
/// `benchmark.json` files that could not be read (reported, not fatal).
#[derive(Debug, Default)]
pub struct Index {
    pub cases: BTreeMap<String, PathBuf>,
    pub unreadable: Vec<PathBuf>,
}

pub fn index(criterion_home: &Path, baseline: &str) -> Result<Index> {
    let mut index = Index::default();
    if !criterion_home.exists() {
        return Ok(index);
    }
    walk::files(criterion_home, |dir, path, file_type| {
        if file_type.is_file()
            && path
                .file_name()
                .is_some_and(|name| name == "benchmark.json")
            && dir.file_name().is_some_and(|name| name == baseline)
        {
            let parsed = fs::read(&path)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<BenchmarkJson>(&bytes).ok());
            match parsed {
                Some(benchmark) => {
                    index.cases.insert(benchmark.full_id, dir.to_path_buf());
                }
                None => index.unreadable.push(path),
            }
        }
    })?;
    Ok(index)
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct ConfidenceInterval {
    pub lower_bound: f64,
    pub upper_bound: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Estimate {
    pub point_estimate: f64,
    pub confidence_interval: ConfidenceInterval,
}

/// The parts of Criterion's `estimates.json` used here, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Estimates {
    pub mean: Estimate,
    pub median: Estimate,
}

pub fn read_estimates(baseline_dir: &Path) -> Result<Estimates> {
    let path = baseline_dir.join("estimates.json");
    let bytes = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("parsing {}", path.display()))
}

/// Writes `estimates.csv` (LF line endings) for one suite's cases.
pub fn write_csv(path: &Path, suite: &str, rows: &[(String, Estimates)]) -> Result<()> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_path(path)
        .with_context(|| format!("creating {}", path.display()))?;
    writer.write_record([
        "suite",
        "case",
        "mean_ns",
        "mean_lower_ns",
        "mean_upper_ns",
        "median_ns",
        "median_lower_ns",
        "median_upper_ns",
    ])?;
    for (case, e) in rows {
        writer.write_record([
            suite.to_string(),
            case.clone(),
            e.mean.point_estimate.to_string(),
            e.mean.confidence_interval.lower_bound.to_string(),
            e.mean.confidence_interval.upper_bound.to_string(),
            e.median.point_estimate.to_string(),
            e.median.confidence_interval.lower_bound.to_string(),
            e.median.confidence_interval.upper_bound.to_string(),
        ])?;
    }
    writer
        .into_inner()
        .map_err(|err| err.into_error())
        .and_then(|mut file| file.flush())
        .with_context(|| format!("writing {}", path.display()))
}

/// Extracts this run's estimates for the cases that passed into `estimates.csv`.
///
/// Returns the cases that have no estimates written since `not_before` (missing, or stale from
/// an earlier run); those are left out of the CSV.
pub fn extract_suite(
    criterion_home: &Path,
    suite: &str,
    passed_cases: &[String],
    not_before: SystemTime,
    csv_path: &Path,
) -> Result<Vec<String>> {
    let index = index(criterion_home, NEW)?;
    for path in &index.unreadable {
        eprintln!("xtask: warning: skipping unreadable {}", path.display());
    }
    let mut rows = Vec::new();
    let mut missing = Vec::new();
    for case in passed_cases {
        let Some(dir) = index.cases.get(case) else {
            missing.push(case.clone());
            continue;
        };
        let fresh = fs::metadata(dir.join("estimates.json"))
            .and_then(|m| m.modified())
            .is_ok_and(|modified| modified >= not_before);
        if !fresh {
            missing.push(case.clone());
            continue;
        }
        rows.push((case.clone(), read_estimates(dir)?));
    }
    write_csv(csv_path, suite, &rows)?;
    Ok(missing)
}

/// Fails naming the cases (first 20 and a count) that lack `<case dir>/<baseline>/`.
pub fn require_baseline(criterion_home: &Path, baseline: &str, cases: &[String]) -> Result<()> {
    let index = index(criterion_home, baseline)?;
    let missing: Vec<&String> = cases
        .iter()
        .filter(|c| !index.cases.contains_key(*c))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = missing.iter().take(20).map(|c| format!("  {c}")).collect();
    let more = match missing.len().saturating_sub(20) {
        0 => String::new(),
        n => format!("\n  ... and {n} more"),
    };
    bail!(
        "{} of {} selected cases have no Criterion baseline `{baseline}` under {}:\n{}{more}\n\
         Record it first with the same selection: cargo xtask bench --save-baseline {baseline}",
        missing.len(),
        cases.len(),
        criterion_home.display(),
        shown.join("\n")
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rundir::tests::scratch;

    /// Writes a case the way Criterion does: `<home>/<dir>/<baseline>/{benchmark,estimates}.json`.
    pub(crate) fn write_case(
        home: &Path,
        dir: &str,
        baseline: &str,
        full_id: &str,
        mean: [f64; 3],
    ) {
        let case_dir = home.join(dir).join(baseline);
        fs::create_dir_all(&case_dir).unwrap();
        fs::write(
            case_dir.join("benchmark.json"),
            format!(
                r#"{{"group_id":"g","function_id":null,"value_str":null,"throughput":null,
                    "full_id":"{full_id}","directory_name":"{dir}","title":"{full_id}"}}"#
            ),
        )
        .unwrap();
        let [point, lower, upper] = mean;
        let estimate = |p: f64, l: f64, u: f64| {
            format!(
                r#"{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":{l},"upper_bound":{u}}},
                    "point_estimate":{p},"standard_error":1.5}}"#
            )
        };
        fs::write(
            case_dir.join("estimates.json"),
            format!(
                r#"{{"mean":{},"median":{},"median_abs_dev":{},"slope":null,"std_dev":{}}}"#,
                estimate(point, lower, upper),
                estimate(point - 1.0, lower - 1.0, upper - 1.0),
                estimate(2.0, 1.0, 3.0),
                estimate(2.0, 1.0, 3.0),
            ),
        )
        .unwrap();
    }

    #[test]
    fn baseline_names_with_path_characters_are_refused() {
        for bad in ["", ".", "..", "a/b", "../x", "a b", "main\\x", "new"] {
            assert!(parse_baseline_name(bad).is_err(), "{bad:?}");
        }
        for good in ["main", "v1.2", "pr-17_candidate", "..x"] {
            assert_eq!(parse_baseline_name(good).as_deref(), Ok(good));
        }
    }

    #[test]
    fn cases_are_found_in_nested_directories_by_full_id() {
        let home = scratch("index-nested");
        let id = "export_import/full_schema/rows=16384/width=264/nulls=true/sliced=false";
        write_case(
            &home,
            "export_import/full_schema/rows=16384_width=264",
            NEW,
            id,
            [3.0, 2.0, 4.0],
        );
        write_case(&home, "other/case", "main", "other/case", [1.0, 1.0, 1.0]);
        let index = index(&home, NEW).unwrap();
        assert_eq!(index.cases.len(), 1);
        assert!(index.cases[id].ends_with("export_import/full_schema/rows=16384_width=264/new"));
    }

    #[test]
    fn estimates_csv_holds_mean_and_median_with_bounds_and_lf_endings() {
        let home = scratch("estimates-csv");
        let out = home.join("estimates.csv");
        write_case(&home, "g/a", NEW, "g/a", [3512.5, 3400.0, 3600.25]);
        write_case(&home, "g/b,c", NEW, "g/b,c", [10.0, 9.0, 11.0]);
        let not_before = SystemTime::now() - std::time::Duration::from_secs(60);
        let cases = vec![
            "g/a".to_string(),
            "g/b,c".to_string(),
            "g/absent".to_string(),
        ];
        let missing = extract_suite(&home, "handoffs", &cases, not_before, &out).unwrap();
        assert_eq!(missing, vec!["g/absent".to_string()]);
        let text = fs::read_to_string(&out).unwrap();
        assert!(!text.contains('\r'));
        assert_eq!(
            text,
            "suite,case,mean_ns,mean_lower_ns,mean_upper_ns,median_ns,median_lower_ns,median_upper_ns\n\
             handoffs,g/a,3512.5,3400,3600.25,3511.5,3399,3599.25\n\
             handoffs,\"g/b,c\",10,9,11,9,8,10\n"
        );
    }

    #[test]
    fn estimates_older_than_the_run_are_not_reported_as_this_runs() {
        let home = scratch("estimates-stale");
        write_case(&home, "g/a", NEW, "g/a", [3.0, 2.0, 4.0]);
        let future = SystemTime::now() + std::time::Duration::from_secs(3600);
        let missing = extract_suite(
            &home,
            "s",
            &["g/a".to_string()],
            future,
            &home.join("e.csv"),
        )
        .unwrap();
        assert_eq!(missing, vec!["g/a".to_string()]);
    }

    #[test]
    fn a_missing_baseline_names_the_cases_and_suggests_saving_it() {
        let home = scratch("baseline-missing");
        write_case(&home, "g/a", "main", "g/a", [3.0, 2.0, 4.0]);
        let cases: Vec<String> = (0..25)
            .map(|i| format!("g/{i}"))
            .chain(["g/a".into()])
            .collect();
        let err = require_baseline(&home, "main", &cases)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("25 of 26 selected cases"), "{err}");
        assert!(err.contains("  g/19\n  ... and 5 more"), "{err}");
        assert!(err.contains("--save-baseline main"), "{err}");
        assert!(require_baseline(&home, "main", &["g/a".to_string()]).is_ok());
    }
}
