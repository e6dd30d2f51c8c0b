//! `metadata.json`: what was run, on what, from which commit, with which build settings.
//!
//! It is written when the run starts (so a crashed run still says what it was) and rewritten
//! when it ends.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use xshell::{Shell, cmd};

use crate::clock::Utc;
use crate::suite_binary::CriterionFlags;
use crate::workspace::cargo;

#[derive(Debug, Clone, Serialize)]
pub struct RunMetadata {
    /// The xtask arguments, e.g. `["smoke", "--suite", "handoffs"]`.
    pub command: Vec<String>,
    /// `smoke`, `bench`, `test` or `job`.
    pub mode: String,
    pub output_directory: PathBuf,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub git_commit: Option<String>,
    pub git_dirty: Option<bool>,
    pub rustc_version: Option<String>,
    pub cargo_version: Option<String>,
    pub os: Option<String>,
    pub cpu_model: Option<String>,
    pub logical_cpus: usize,
    /// Every cargo command line run, in order.
    pub cargo_commands: Vec<String>,
    /// Features enabled per package.
    pub features: BTreeMap<String, Vec<String>>,
    /// `system`, or `mimalloc` when a `mimalloc` feature was requested.
    pub allocator: String,
    /// The `GLIBC_TUNABLES` suite processes ran with (the system allocator's heap thresholds).
    pub glibc_tunables: String,
    pub filter: Option<String>,
    pub criterion: CriterionSettings,
    pub suites: Vec<SuiteRecord>,
    /// `cargo test` totals (only for `cargo xtask test`).
    pub tests: Option<TestTotals>,
    /// The JVM classpath given to tests and suites (`cargo xtask jvm`), or why there is none.
    pub jvm: Option<JvmRecord>,
    /// Whole-job runs (only for `cargo xtask job`).
    pub jobs: Option<JobsRecord>,
}

/// What `cargo xtask job` ran: the settings every JVM shared, and each job's parity check.
#[derive(Debug, Clone, Default, Serialize)]
pub struct JobsRecord {
    pub flink_version: String,
    pub rows: u64,
    pub keys: u64,
    pub width: u32,
    pub nullable: bool,
    pub states: Vec<String>,
    pub warmup: u32,
    pub runs: u32,
    /// `fresh` (a JVM per run) or `shared` (one JVM per job and backend).
    pub jvm: String,
    pub heap: String,
    pub verify_only: bool,
    /// Whether the jobs ran under `perf` (`--profile`) instead of being timed.
    pub profile: bool,
    /// The flame graphs `--profile` wrote.
    pub profiles: Vec<PathBuf>,
    /// The `libstreamfusion_jni.so` given as `-Dstreamfusion.jni.path`.
    pub native_library: Option<PathBuf>,
    /// The JVM options before `-cp` (identical for stock and native).
    pub jvm_options: Vec<String>,
    pub planner_classpath_file: Option<PathBuf>,
    pub verify: Vec<JobVerifyRecord>,
    /// Jobs whose timed runs stopped early, with why.
    pub timing_failures: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct JobVerifyRecord {
    pub job: String,
    pub state: String,
    pub passed: bool,
    /// `JobBench verify`'s line as printed, if it printed one.
    pub line: Option<String>,
    /// Why it failed, when it did.
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct JvmRecord {
    pub prepared: bool,
    /// `classpath.txt`, passed on as `SF_JVM_CLASSPATH_FILE`.
    pub classpath_file: Option<PathBuf>,
    /// `apache-flink-libraries 2.3.0 wheel` or `SF_NATIVE_BENCH_CLASSPATH`.
    pub jars_from: Option<String>,
    pub wheel_sha256: Option<String>,
    /// Jars on the classpath (for `SF_NATIVE_BENCH_CLASSPATH`: its entries).
    pub jar_count: Option<usize>,
    pub java_sources_compiled: Option<usize>,
    /// The first line of `java -version`.
    pub java_version: Option<String>,
    pub not_prepared_reason: Option<String>,
}

impl JvmRecord {
    pub fn not_prepared(reason: String) -> JvmRecord {
        JvmRecord {
            not_prepared_reason: Some(reason),
            ..JvmRecord::default()
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct CriterionSettings {
    pub criterion_home: Option<PathBuf>,
    #[serde(flatten)]
    pub flags: CriterionFlags,
}

#[derive(Debug, Clone, Serialize)]
pub struct SuiteRecord {
    pub package: String,
    pub suite: String,
    pub executable: PathBuf,
    pub args: Vec<String>,
    /// `passed`, `failed` or `crashed`.
    pub status: String,
    pub cases: Option<u64>,
    pub passed: Option<u64>,
    pub failed: Option<u64>,
    pub skipped: Option<u64>,
    pub seconds: f64,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct TestTotals {
    pub passed: u64,
    pub failed: u64,
}

impl RunMetadata {
    /// Starts the record of a run, gathering host and repository facts.
    pub fn start(sh: &Shell, mode: &str, output_directory: &Path, started: Utc) -> RunMetadata {
        let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let (cpu_model, cpus_listed) = parse_cpuinfo(&cpuinfo);
        let logical_cpus = if cpus_listed > 0 {
            cpus_listed
        } else {
            std::thread::available_parallelism().map_or(0, usize::from)
        };
        let cargo = cargo();
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        RunMetadata {
            command: std::env::args().skip(1).collect(),
            mode: mode.to_string(),
            output_directory: output_directory.to_path_buf(),
            started_at: started.rfc3339(),
            finished_at: None,
            git_commit: read(cmd!(sh, "git rev-parse HEAD")),
            git_dirty: read(cmd!(sh, "git status --porcelain")).map(|s| !s.trim().is_empty()),
            rustc_version: read(cmd!(sh, "{rustc} -vV")),
            cargo_version: read(cmd!(sh, "{cargo} -V")),
            os: read(cmd!(sh, "uname -srvm")),
            cpu_model,
            logical_cpus,
            cargo_commands: Vec::new(),
            features: BTreeMap::new(),
            allocator: "system".to_string(),
            glibc_tunables: crate::suite_binary::glibc_tunables(),
            filter: None,
            criterion: CriterionSettings::default(),
            suites: Vec::new(),
            tests: None,
            jvm: None,
            jobs: None,
        }
    }

    pub fn write(&self) -> Result<()> {
        let path = self.output_directory.join("metadata.json");
        let mut json = serde_json::to_string_pretty(self).context("serializing metadata.json")?;
        json.push('\n');
        fs::write(&path, json).with_context(|| format!("writing {}", path.display()))
    }
}

/// A fact from a command, or `None` when the command is missing or fails (e.g. no commit yet).
fn read(command: xshell::Cmd<'_>) -> Option<String> {
    command
        .quiet()
        .ignore_stderr()
        .read()
        .ok()
        .map(|s| s.trim_end().to_string())
}

/// The first `model name` and the number of `processor` entries.
fn parse_cpuinfo(cpuinfo: &str) -> (Option<String>, usize) {
    let mut model = None;
    let mut processors = 0;
    for line in cpuinfo.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        match key.trim() {
            "processor" => processors += 1,
            "model name" if model.is_none() => model = Some(value.trim().to_string()),
            _ => {}
        }
    }
    (model, processors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpuinfo_gives_the_first_model_name_and_the_processor_count() {
        let cpuinfo = "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu\n\n\
                       processor\t: 1\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(
            parse_cpuinfo(cpuinfo),
            (Some("AMD EPYC 7B13".to_string()), 2)
        );
        assert_eq!(parse_cpuinfo(""), (None, 0));
    }

    #[test]
    fn criterion_settings_keep_their_metadata_json_keys() {
        let settings = CriterionSettings {
            criterion_home: Some(PathBuf::from("/t/criterion")),
            flags: CriterionFlags {
                baseline: Some("main".into()),
                sample_size: Some(20),
                warm_up_time: Some(0.5),
                ..CriterionFlags::default()
            },
        };
        assert_eq!(
            serde_json::to_string(&settings).unwrap(),
            concat!(
                r#"{"criterion_home":"/t/criterion","save_baseline":null,"baseline":"main","#,
                r#""sample_size":20,"warm_up_time_secs":0.5,"measurement_time_secs":null}"#
            )
        );
    }
}
