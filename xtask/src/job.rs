//! `cargo xtask job`: whole Flink SQL jobs, stock against native, in fresh MiniCluster JVMs
//! (`org.streamfusion.harness.JobBench`, whose javadoc defines the commands and their lines).
//!
//! Parity comes before timing: per job and state backend, `JobBench verify` runs the job stock
//! and native with a collecting sink and compares the complete outputs, and checks that the
//! plan has the expected native nodes. A job failing it is reported and never timed, since a
//! time for a wrong answer is no evidence. Then `--warmup` runs per engine, then `--runs`
//! timed pairs in ABBA order (stock, native, native, stock, ...) so slow drift of the machine
//! falls on both engines alike. Every run is a fresh JVM with the same options (`--jvm fresh`,
//! what a short job pays, JIT compilation included), or every run of one job and backend
//! shares one JVM (`--jvm shared`, a long-running TaskManager's warm JIT: issue 18's
//! protocol); whole jobs keep both transposes, JNI, state and the sink in the measured path
//! (EVIDENCE.md).
//!
//! The run directory holds `jobs.csv` (every trial, warm-ups marked), `metadata.json`,
//! `plans/<state>/<job>-{stock,native}.txt`, `jobs.svg` and one log per JVM under `logs/`.
//! With `--profile`, each job runs once per engine under `perf` instead of being timed (with
//! `--jvm shared`, after its warm-ups in the same JVM), into
//! `profiles/<job>-<state>-<engine>.perf.{folded,svg}` ([`crate::job_profile`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use xshell::Shell;

use crate::flink_dist;
use crate::job_profile;
use crate::jvm::{self, flink::FLINK_VERSION};
use crate::metadata::{JobVerifyRecord, JobsRecord};
use crate::prereqs;
use crate::rundir::RunDirArgs;
use crate::suites::Session;
use crate::table::Table;
use crate::workspace::Workspace;

/// The JVM entry point.
const MAIN_CLASS: &str = "org.streamfusion.harness.JobBench";

/// The header of `jobs.csv`.
pub const CSV_HEADER: &str =
    "job,state,engine,trial,kind,wall_ms,records,records_per_s,gc_ms,peak_rss_kb";

#[derive(Debug, Args)]
pub struct JobArgs {
    /// Run this job (repeatable) [default: every job `JobBench list` prints].
    #[arg(long = "job", value_name = "NAME")]
    pub jobs: Vec<String>,
    /// Rows the bounded source emits.
    #[arg(long, value_name = "N", default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub rows: u64,
    /// Distinct keys.
    #[arg(long, value_name = "K", default_value_t = 16_384, value_parser = clap::value_parser!(u64).range(1..))]
    pub keys: u64,
    /// Bytes of string suffix on each key (0: integer keys).
    #[arg(long, value_name = "W", default_value_t = 0)]
    pub width: u32,
    /// NULL keys and values at fixed residues.
    #[arg(long)]
    pub nullable: bool,
    /// State backend (repeatable, or `both`) [default: both].
    #[arg(long = "state", value_name = "BACKEND", value_enum)]
    pub states: Vec<StateArg>,
    /// Untimed runs per engine before the timed ones.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub warmup: u32,
    /// Timed runs per engine, in ABBA pairs.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Where the warm-ups and timed runs happen: a fresh JVM each, or one JVM for all of a
    /// job's runs on a backend (each run still a fresh MiniCluster).
    #[arg(long = "jvm", value_name = "MODE", value_enum, default_value_t = JvmMode::Fresh)]
    pub jvm: JvmMode,
    /// Stop after the parity checks (exit non-zero if any job fails one).
    #[arg(long)]
    pub verify_only: bool,
    /// After the parity checks, run each job once per engine under Linux `perf` (with
    /// `--jvm shared`, after `--warmup` runs in the same JVM) and write folded stacks and a
    /// flame graph per engine into `profiles/`, instead of timing it.
    #[arg(long, conflicts_with = "verify_only")]
    pub profile: bool,
    /// `-Xmx`/`-Xms` of every JVM, e.g. 2g.
    #[arg(long, value_name = "SIZE", default_value = "2g", value_parser = parse_heap)]
    pub heap: String,
    #[command(flatten)]
    pub run_dir: RunDirArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum JvmMode {
    /// A fresh JVM per run: cold JIT, as a short job sees it.
    Fresh,
    /// One JVM per job and backend: warm JIT, as a long-running TaskManager sees it.
    Shared,
}

impl JvmMode {
    fn as_str(self) -> &'static str {
        match self {
            JvmMode::Fresh => "fresh",
            JvmMode::Shared => "shared",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StateArg {
    Hashmap,
    Rocksdb,
    Both,
}

/// The backends to run, in order, without repeats; none given means both.
fn states(args: &[StateArg]) -> Vec<&'static str> {
    const BOTH: &[StateArg] = &[StateArg::Both];
    let wanted = if args.is_empty() { BOTH } else { args };
    let mut states = Vec::new();
    for arg in wanted {
        let names: &[&'static str] = match arg {
            StateArg::Hashmap => &["hashmap"],
            StateArg::Rocksdb => &["rocksdb"],
            StateArg::Both => &["hashmap", "rocksdb"],
        };
        for name in names {
            if !states.contains(name) {
                states.push(*name);
            }
        }
    }
    states
}

/// A JVM heap size as `-Xmx` takes it: digits with an optional k/m/g.
fn parse_heap(value: &str) -> Result<String, String> {
    let digits = value.trim_end_matches(['k', 'K', 'm', 'M', 'g', 'G']);
    let ok = !digits.is_empty()
        && value.len() - digits.len() <= 1
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0');
    if ok {
        Ok(value.to_string())
    } else {
        Err(format!("`{value}` is not a heap size such as 2g or 1536m"))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Engine {
    Stock,
    Native,
}

impl Engine {
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Stock => "stock",
            Engine::Native => "native",
        }
    }
}

/// The engines of `runs` timed pairs in ABBA order: S N, N S, S N, ...
pub fn abba(runs: u32) -> Vec<Engine> {
    (0..runs)
        .flat_map(|pair| {
            if pair % 2 == 0 {
                [Engine::Stock, Engine::Native]
            } else {
                [Engine::Native, Engine::Stock]
            }
        })
        .collect()
}

/// The `key=value` fields of a `JobBench` line starting with `tag`; a token without `=`
/// makes the line malformed (it would otherwise shift every later field silently).
fn fields<'a>(line: &'a str, tag: &str) -> Result<BTreeMap<&'a str, &'a str>> {
    let mut tokens = line.split_whitespace();
    if tokens.next() != Some(tag) {
        bail!("malformed JobBench line (expected `{tag} key=value ...`): `{line}`");
    }
    let mut map = BTreeMap::new();
    for token in tokens {
        match token.split_once('=') {
            Some((key, value)) if !key.is_empty() => {
                map.insert(key, value);
            }
            _ => bail!("malformed `{tag}` line (`{token}` is not key=value): `{line}`"),
        }
    }
    Ok(map)
}

fn field<'a>(map: &BTreeMap<&str, &'a str>, key: &str, tag: &str, line: &str) -> Result<&'a str> {
    map.get(key)
        .copied()
        .with_context(|| format!("malformed `{tag}` line (no {key}=): `{line}`"))
}

fn number<T: std::str::FromStr>(
    map: &BTreeMap<&str, &str>,
    key: &str,
    tag: &str,
    line: &str,
) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    let value = field(map, key, tag, line)?;
    value
        .parse()
        .map_err(|err| anyhow::anyhow!("malformed `{tag}` line ({key}={value}: {err}): `{line}`"))
}

fn boolean(map: &BTreeMap<&str, &str>, key: &str, tag: &str, line: &str) -> Result<bool> {
    match field(map, key, tag, line)? {
        "true" => Ok(true),
        "false" => Ok(false),
        other => bail!("malformed `{tag}` line ({key}={other} is not true/false): `{line}`"),
    }
}

/// One `JobBench time` result.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    pub job: String,
    pub engine: String,
    pub state: String,
    pub wall_ms: u64,
    pub records: u64,
    pub records_per_s: f64,
    pub gc_ms: u64,
    /// -1 when the JVM could not read it (off Linux).
    pub peak_rss_kb: i64,
    pub native_nodes: u64,
}

pub fn parse_trial(line: &str) -> Result<Trial> {
    let tag = "trial";
    let map = fields(line, tag)?;
    Ok(Trial {
        job: field(&map, "job", tag, line)?.to_string(),
        engine: field(&map, "engine", tag, line)?.to_string(),
        state: field(&map, "state", tag, line)?.to_string(),
        wall_ms: number(&map, "wall_ms", tag, line)?,
        records: number(&map, "records", tag, line)?,
        records_per_s: number(&map, "records_per_s", tag, line)?,
        gc_ms: number(&map, "gc_ms", tag, line)?,
        peak_rss_kb: number(&map, "peak_rss_kb", tag, line)?,
        native_nodes: number(&map, "native_nodes", tag, line)?,
    })
}

/// One `JobBench verify` result.
#[derive(Debug, Clone, PartialEq)]
pub struct Verify {
    pub job: String,
    pub state: String,
    pub equal: bool,
    pub all_native: bool,
    pub stock_rows: u64,
    pub native_rows: u64,
    pub native_nodes: u64,
    pub stock_nodes: u64,
    /// The first difference (spaces printed as `_`), when the outputs differ.
    pub detail: Option<String>,
}

pub fn parse_verify(line: &str) -> Result<Verify> {
    let tag = "verify";
    let map = fields(line, tag)?;
    Ok(Verify {
        job: field(&map, "job", tag, line)?.to_string(),
        state: field(&map, "state", tag, line)?.to_string(),
        equal: boolean(&map, "equal", tag, line)?,
        all_native: boolean(&map, "all_native", tag, line)?,
        stock_rows: number(&map, "stock_rows", tag, line)?,
        native_rows: number(&map, "native_rows", tag, line)?,
        native_nodes: number(&map, "native_nodes", tag, line)?,
        stock_nodes: number(&map, "stock_nodes", tag, line)?,
        detail: map.get("detail").map(|d| d.to_string()),
    })
}

/// The job names of `JobBench list` (`job name=N description=free text`).
fn parse_list(stdout: &str) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for line in stdout.lines().filter(|l| l.starts_with("job ")) {
        let name = line
            .strip_prefix("job name=")
            .and_then(|rest| rest.split_whitespace().next())
            .filter(|name| !name.is_empty())
            .with_context(|| format!("malformed `job` line from JobBench list: `{line}`"))?;
        names.push(name.to_string());
    }
    if names.is_empty() {
        bail!("JobBench list printed no `job name=...` line; its output was:\n{stdout}");
    }
    Ok(names)
}

/// The last line of `stdout` starting with `tag `.
fn last_line<'a>(stdout: &'a str, tag: &str) -> Option<&'a str> {
    stdout
        .lines()
        .rev()
        .find(|line| line.starts_with(&format!("{tag} ")))
}

/// `warmup` or `timed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Warmup,
    Timed,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Warmup => "warmup",
            Kind::Timed => "timed",
        }
    }
}

/// One row of `jobs.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub job: String,
    pub state: String,
    pub engine: Engine,
    /// 1-based per (job, state, engine, kind).
    pub trial: u32,
    pub kind: Kind,
    pub wall_ms: u64,
    pub records: u64,
    pub records_per_s: f64,
    pub gc_ms: u64,
    pub peak_rss_kb: i64,
}

/// `jobs.csv`, every row so far (job names and states are plain identifiers, no quoting).
pub fn csv(rows: &[Row]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{:.0},{},{}",
            r.job,
            r.state,
            r.engine.as_str(),
            r.trial,
            r.kind.as_str(),
            r.wall_ms,
            r.records,
            r.records_per_s,
            r.gc_ms,
            r.peak_rss_kb
        );
    }
    out
}

/// The median of `values` (the mean of the middle two for an even count); `None` if empty.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    })
}

/// A (job, state) pair's timed wall times per engine.
type TimedGroup = ((String, String), BTreeMap<Engine, Vec<f64>>);

/// Timed wall times per (job, state) in first-seen order, then per engine.
fn timed_groups(rows: &[Row]) -> Vec<TimedGroup> {
    let mut groups: Vec<TimedGroup> = Vec::new();
    for r in rows.iter().filter(|r| r.kind == Kind::Timed) {
        let key = (r.job.clone(), r.state.clone());
        let index = match groups.iter().position(|(k, _)| *k == key) {
            Some(index) => index,
            None => {
                groups.push((key, BTreeMap::new()));
                groups.len() - 1
            }
        };
        groups[index]
            .1
            .entry(r.engine)
            .or_default()
            .push(r.wall_ms as f64);
    }
    groups
}

const STOCK_COLOUR: &str = "#1f77b4";
const NATIVE_COLOUR: &str = "#d62728";

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `jobs.svg`: one row per (job, state), each timed trial a dot (stock and native in two
/// colours, slightly apart), each engine's median a vertical bar, on one shared ms axis from 0.
pub fn svg(rows: &[Row], title: &str) -> String {
    let groups = timed_groups(rows);
    let (label_w, plot_w, row_h, top, bottom) = (240.0, 560.0, 36.0, 56.0, 40.0);
    let width = label_w + plot_w + 20.0;
    let height = top + row_h * groups.len().max(1) as f64 + bottom;
    let max = groups
        .iter()
        .flat_map(|(_, engines)| engines.values().flatten())
        .fold(0.0_f64, |a, &b| a.max(b));
    let axis_max = nice_ceiling(max.max(1.0));
    let x = |ms: f64| label_w + ms / axis_max * plot_w;

    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        out,
        r#"<text x="10" y="20" font-size="14">{}</text>"#,
        xml_escape(title)
    );
    for (i, (engine, colour)) in [("stock", STOCK_COLOUR), ("native", NATIVE_COLOUR)]
        .iter()
        .enumerate()
    {
        let lx = label_w + i as f64 * 90.0;
        let _ = writeln!(
            out,
            r#"<rect x="{lx}" y="30" width="10" height="10" fill="{colour}"/><text x="{}" y="39">{engine}</text>"#,
            lx + 14.0
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{}" y="39">dots: timed trials; bars: medians</text>"#,
        label_w + 180.0
    );
    let axis_y = top + row_h * groups.len().max(1) as f64;
    for tick in 0..=5 {
        let ms = axis_max * tick as f64 / 5.0;
        let tx = x(ms);
        let _ = writeln!(
            out,
            r##"<line x1="{tx}" y1="{top}" x2="{tx}" y2="{axis_y}" stroke="#ddd"/><text x="{tx}" y="{}" text-anchor="middle">{ms:.0}</text>"##,
            axis_y + 16.0
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" text-anchor="middle">wall ms</text>"#,
        label_w + plot_w / 2.0,
        axis_y + 32.0
    );
    for (row, ((job, state), engines)) in groups.iter().enumerate() {
        let y = top + row_h * row as f64 + row_h / 2.0;
        let _ = writeln!(
            out,
            r#"<text x="10" y="{}">{} / {}</text>"#,
            y + 4.0,
            xml_escape(job),
            xml_escape(state)
        );
        for (engine, times) in engines {
            let (colour, dy) = match engine {
                Engine::Stock => (STOCK_COLOUR, -6.0),
                Engine::Native => (NATIVE_COLOUR, 6.0),
            };
            for ms in times {
                let _ = writeln!(
                    out,
                    r#"<circle cx="{:.1}" cy="{}" r="4" fill="{colour}" fill-opacity="0.7"><title>{} {ms:.0} ms</title></circle>"#,
                    x(*ms),
                    y + dy,
                    engine.as_str()
                );
            }
            if let Some(m) = median(times) {
                let _ = writeln!(
                    out,
                    r#"<line x1="{0:.1}" y1="{1}" x2="{0:.1}" y2="{2}" stroke="{colour}" stroke-width="2"><title>{3} median {m:.0} ms</title></line>"#,
                    x(m),
                    y + dy - 8.0,
                    y + dy + 8.0,
                    engine.as_str()
                );
            }
        }
    }
    out.push_str("</svg>\n");
    out
}

/// The smallest 1, 2 or 5 times a power of ten at or above `value`.
fn nice_ceiling(value: f64) -> f64 {
    let power = 10f64.powf(value.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&v| v >= value)
        .unwrap_or(10.0 * power)
}

/// How each JVM is started: the same options for stock and native.
struct Jvm {
    options: Vec<String>,
    classpath: String,
    logs: PathBuf,
}

/// What one JVM did.
struct JvmRun {
    success: bool,
    status: String,
    stdout: String,
    /// The innermost exception of stderr (`Caused by: ...` or `Exception in thread ...`).
    cause: Option<String>,
    log: PathBuf,
}

impl Jvm {
    fn new(heap: &str, library: &Path, classpath: String, logs: PathBuf) -> Jvm {
        let options = vec![
            format!("-Xmx{heap}"),
            format!("-Xms{heap}"),
            "--add-opens".into(),
            "java.base/java.util=ALL-UNNAMED".into(),
            "--add-opens".into(),
            "java.base/java.lang=ALL-UNNAMED".into(),
            format!("-Dstreamfusion.jni.path={}", library.display()),
        ];
        Jvm {
            options,
            classpath,
            logs,
        }
    }

    /// Runs `JobBench <args>` in a fresh JVM; its stdout and stderr go to `logs/<log>.log`.
    fn run(&self, sh: &Shell, log: &str, args: &[String]) -> Result<JvmRun> {
        self.run_under(sh, &[], &[], log, args)
    }

    /// [`Jvm::run`] with the JVM started by `prefix` (a profiler) and given `extra` options.
    fn run_under(
        &self,
        sh: &Shell,
        prefix: &[String],
        extra: &[&str],
        log: &str,
        args: &[String],
    ) -> Result<JvmRun> {
        let (options, classpath) = (&self.options, &self.classpath);
        // `java`, or the profiler that starts it.
        let (program, before_java) = match prefix.split_first() {
            Some((program, rest)) => (program.as_str(), rest),
            None => ("java", &[][..]),
        };
        let java = (!prefix.is_empty()).then_some("java");
        let output = sh
            .cmd(program)
            .args(before_java)
            .args(java)
            .args(options)
            .args(extra)
            .args(["-cp", classpath, MAIN_CLASS])
            .args(args)
            .quiet()
            .ignore_status()
            .output()
            .context("starting java (is a JDK 17 or newer on PATH?)")?;
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let path = self.logs.join(format!("{log}.log"));
        let text = format!(
            "$ {}java {} -cp <planner classpath> {MAIN_CLASS} {}\n--- stdout\n{stdout}--- stderr\n\
             {stderr}--- {}\n",
            prefix.iter().map(|p| format!("{p} ")).collect::<String>(),
            options
                .iter()
                .map(String::as_str)
                .chain(extra.iter().copied())
                .collect::<Vec<_>>()
                .join(" "),
            args.join(" "),
            output.status
        );
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        Ok(JvmRun {
            success: output.status.success(),
            status: output.status.to_string(),
            stdout,
            cause: innermost_cause(&stderr),
            log: path,
        })
    }
}

/// The last `Caused by:` line of a Java stack trace, else its `Exception in thread` line.
fn innermost_cause(stderr: &str) -> Option<String> {
    let lines = || stderr.lines().map(str::trim);
    lines()
        .filter_map(|l| l.strip_prefix("Caused by: "))
        .next_back()
        .or_else(|| lines().find(|l| l.starts_with("Exception in thread")))
        .map(str::to_string)
}

impl JvmRun {
    /// Why it failed, for the terminal: the exit status, the innermost exception, the log.
    fn failure(&self, what: &str) -> String {
        match &self.cause {
            Some(cause) => format!(
                "{what} ({}): {cause}; see {}",
                self.status,
                self.log.display()
            ),
            None => format!("{what} ({}); see {}", self.status, self.log.display()),
        }
    }
}

/// The settings every `verify`/`time` takes.
fn settings_args(args: &JobArgs, job: &str, state: &str) -> Vec<String> {
    let mut out = vec![
        "--job".into(),
        job.into(),
        "--rows".into(),
        args.rows.to_string(),
        "--keys".into(),
        args.keys.to_string(),
        "--width".into(),
        args.width.to_string(),
        "--state".into(),
        state.into(),
    ];
    if args.nullable {
        out.push("--nullable".into());
    }
    out
}

/// `JobBench time` of `job` on `state` by `engine`.
fn time_command(args: &JobArgs, job: &str, state: &str, engine: Engine) -> Vec<String> {
    let mut command = vec!["time".to_string()];
    command.extend(settings_args(args, job, state));
    command.extend(["--engine".to_string(), engine.as_str().to_string()]);
    command
}

fn progress(text: &str) -> Result<()> {
    print!("{text}");
    std::io::stdout().flush().context("writing to stdout")
}

/// Parity of one job on one backend: the record, and whether it passed.
fn verify(
    sh: &Shell,
    jvm: &Jvm,
    args: &JobArgs,
    run_dir: &Path,
    job: &str,
    state: &str,
) -> Result<JobVerifyRecord> {
    progress(&format!("{job} / {state}: verify ... "))?;
    let plans = run_dir.join("plans").join(state);
    let mut command = vec!["verify".to_string()];
    command.extend(settings_args(args, job, state));
    command.extend(["--plans".to_string(), plans.display().to_string()]);
    let run = jvm.run(sh, &format!("{job}-{state}-verify"), &command)?;
    let line = last_line(&run.stdout, "verify").map(str::to_string);
    let parsed = line.as_deref().map(parse_verify).transpose();
    let reason = match (&parsed, run.success) {
        (Err(err), _) => Some(format!("{err:#}")),
        (Ok(None), _) => Some(run.failure("no `verify` line")),
        (Ok(Some(v)), _) if !v.equal => Some(format!(
            "outputs differ: stock {} rows, native {} rows; {}",
            v.stock_rows,
            v.native_rows,
            v.detail.as_deref().unwrap_or("no detail").replace('_', " ")
        )),
        (Ok(Some(v)), _) if !v.all_native => Some(format!(
            "not every expected node ran natively ({} native, {} stock)",
            v.native_nodes, v.stock_nodes
        )),
        (Ok(Some(_)), false) => Some(run.failure("JobBench verify failed")),
        (Ok(Some(_)), true) => None,
    };
    match &reason {
        None => println!("equal, all native"),
        Some(reason) => println!("FAILED: {reason}"),
    }
    Ok(JobVerifyRecord {
        job: job.to_string(),
        state: state.to_string(),
        passed: reason.is_none(),
        line,
        reason,
    })
}

/// One `JobBench time` run in a fresh JVM, as a row.
fn time(sh: &Shell, jvm: &Jvm, args: &JobArgs, job: &str, state: &str, slot: Slot) -> Result<Row> {
    let command = time_command(args, job, state, slot.engine);
    let log = format!(
        "{job}-{state}-{}-{}-{}",
        slot.kind.as_str(),
        slot.engine.as_str(),
        slot.trial
    );
    let run = jvm.run(sh, &log, &command)?;
    if !run.success {
        bail!("{}", run.failure("JobBench time failed"));
    }
    let line = last_line(&run.stdout, "trial")
        .with_context(|| format!("no `trial` line; see {}", run.log.display()))?;
    trial_row(line, job, state, slot)
}

/// One run of a job's plan: its engine, kind and 1-based number per (engine, kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    engine: Engine,
    kind: Kind,
    trial: u32,
}

/// The runs of one job on one backend: `warmup` stock/native pairs, then `runs` ABBA pairs.
fn plan(warmup: u32, runs: u32) -> Vec<Slot> {
    let mut engines: Vec<(Engine, Kind)> = Vec::new();
    for _ in 0..warmup {
        engines.extend([
            (Engine::Stock, Kind::Warmup),
            (Engine::Native, Kind::Warmup),
        ]);
    }
    engines.extend(abba(runs).into_iter().map(|e| (e, Kind::Timed)));
    let mut counts: BTreeMap<(Engine, Kind), u32> = BTreeMap::new();
    engines
        .into_iter()
        .map(|(engine, kind)| {
            let trial = counts.entry((engine, kind)).or_default();
            *trial += 1;
            Slot {
                engine,
                kind,
                trial: *trial,
            }
        })
        .collect()
}

/// The row of a `trial` line, checked to be the run `slot` of `job` on `state`.
fn trial_row(line: &str, job: &str, state: &str, slot: Slot) -> Result<Row> {
    let t = parse_trial(line)?;
    if (t.job.as_str(), t.state.as_str(), t.engine.as_str()) != (job, state, slot.engine.as_str()) {
        bail!("the `trial` line is for another run than asked: `{line}`");
    }
    Ok(Row {
        job: job.to_string(),
        state: state.to_string(),
        engine: slot.engine,
        trial: slot.trial,
        kind: slot.kind,
        wall_ms: t.wall_ms,
        records: t.records,
        records_per_s: t.records_per_s,
        gc_ms: t.gc_ms,
        peak_rss_kb: t.peak_rss_kb,
    })
}

/// The whole plan of one job on one backend in one JVM (`JobBench series`): a row per run,
/// in the plan's order.
fn series(
    sh: &Shell,
    jvm: &Jvm,
    args: &JobArgs,
    job: &str,
    state: &str,
    plan: &[Slot],
) -> Result<Vec<Row>> {
    let mut command = vec!["series".to_string()];
    command.extend(settings_args(args, job, state));
    let engines: Vec<&str> = plan.iter().map(|s| s.engine.as_str()).collect();
    command.extend(["--engines".to_string(), engines.join(",")]);
    let run = jvm.run(sh, &format!("{job}-{state}-series"), &command)?;
    if !run.success {
        bail!("{}", run.failure("JobBench series failed"));
    }
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("trial "))
        .collect();
    if lines.len() != plan.len() {
        bail!(
            "JobBench series printed {} `trial` lines for {} runs; see {}",
            lines.len(),
            plan.len(),
            run.log.display()
        );
    }
    lines
        .into_iter()
        .zip(plan)
        .map(|(line, slot)| trial_row(line, job, state, *slot))
        .collect()
}

/// Warm-ups, then the ABBA timed runs of one job on one backend; every row is appended to
/// `rows` and `jobs.csv` rewritten at once, so an interrupted run keeps what it measured.
fn time_job(
    session: &Session,
    jvm: &Jvm,
    args: &JobArgs,
    job: &str,
    state: &str,
    rows: &mut Vec<Row>,
) -> Result<()> {
    let csv_path = session.run_dir.join("jobs.csv");
    let write = |rows: &[Row]| {
        fs::write(&csv_path, csv(rows)).with_context(|| format!("writing {}", csv_path.display()))
    };
    let plan = plan(args.warmup, args.runs);
    if args.jvm == JvmMode::Shared {
        progress(&format!(
            "{job} / {state}: {} runs in one JVM ... ",
            plan.len()
        ))?;
        let series = series(&session.sh, jvm, args, job, state, &plan)
            .inspect_err(|_| println!("failed"))?;
        let times: Vec<String> = series
            .iter()
            .map(|r| format!("{} {} {} ms", r.kind.as_str(), r.engine.as_str(), r.wall_ms))
            .collect();
        println!("{}", times.join(", "));
        rows.extend(series);
        return write(rows);
    }
    for (i, slot) in plan.iter().enumerate() {
        progress(&format!(
            "{job} / {state}: [{}/{}] {} {} {} ... ",
            i + 1,
            plan.len(),
            slot.kind.as_str(),
            slot.engine.as_str(),
            slot.trial
        ))?;
        let row =
            time(&session.sh, jvm, args, job, state, *slot).inspect_err(|_| println!("failed"))?;
        println!("{} ms", row.wall_ms);
        rows.push(row);
        write(rows)?;
    }
    Ok(())
}

/// What runs under `perf` for `engine`: one `JobBench time` in a fresh JVM, or with
/// `--jvm shared` the warm-ups and one more run of that engine in one JVM (`JobBench series`),
/// so the profile is mostly of warm code, as a long-running TaskManager runs it.
fn profile_command(args: &JobArgs, job: &str, state: &str, engine: Engine) -> Vec<String> {
    if args.jvm == JvmMode::Fresh {
        return time_command(args, job, state, engine);
    }
    let mut command = vec!["series".to_string()];
    command.extend(settings_args(args, job, state));
    let engines = vec![engine.as_str(); args.warmup as usize + 1];
    command.extend(["--engines".to_string(), engines.join(",")]);
    command
}

/// One profile per engine of `job` on `state` under `perf` ([`job_profile`]): the flame
/// graphs' paths, each with its summary printed.
fn profile_job(
    sh: &Shell,
    jvm: &Jvm,
    args: &JobArgs,
    run_dir: &Path,
    job: &str,
    state: &str,
) -> Result<Vec<PathBuf>> {
    let dir = run_dir.join("profiles");
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut graphs = Vec::new();
    for engine in [Engine::Stock, Engine::Native] {
        progress(&format!(
            "{job} / {state}: profile {} ... ",
            engine.as_str()
        ))?;
        let data = job_profile::data_path(&dir, job, state, engine.as_str());
        let command = profile_command(args, job, state, engine);
        let run = jvm.run_under(
            sh,
            &job_profile::record_prefix(&data),
            &job_profile::JVM_OPTIONS,
            &format!("{job}-{state}-profile-{}", engine.as_str()),
            &command,
        )?;
        if !run.success {
            println!("failed");
            bail!("{}", run.failure("JobBench time under perf failed"));
        }
        let title = format!(
            "{job} on {state}, {} (rows={} keys={} width={})",
            engine.as_str(),
            args.rows,
            args.keys,
            args.width
        );
        let summary = job_profile::fold_and_plot(sh, &data, &title)?;
        println!("done");
        print!("{}", job_profile::render(&summary, 12));
        graphs.push(data.with_extension("svg"));
    }
    Ok(graphs)
}

pub fn run(args: &JobArgs) -> Result<ExitCode> {
    let workspace = Workspace::load()?;
    let features = workspace.test_features()?;
    let mut session = Session::start(workspace, "job", args.run_dir.output.as_deref())?;
    let states = states(&args.states);
    session.metadata.jobs = Some(JobsRecord {
        flink_version: FLINK_VERSION.to_string(),
        rows: args.rows,
        keys: args.keys,
        width: args.width,
        nullable: args.nullable,
        states: states.iter().map(|s| s.to_string()).collect(),
        warmup: args.warmup,
        runs: args.runs,
        jvm: args.jvm.as_str().to_string(),
        heap: args.heap.clone(),
        verify_only: args.verify_only,
        profile: args.profile,
        ..JobsRecord::default()
    });
    prereqs::ensure(&session.sh)?;
    if args.profile {
        let perf = job_profile::ensure_perf(&session.sh)?;
        println!("profiling with {perf} at {} Hz", job_profile::SAMPLE_HZ);
    }

    // The planner classpath: JobBench replaces a planner class, which needs the real planner.
    jvm::prepare_for_session(&mut session)?;
    let record = session.metadata.jvm.clone().unwrap_or_default();
    if !record.prepared {
        bail!(
            "the JVM classpath was not prepared: {}",
            record.not_prepared_reason.unwrap_or_default()
        );
    }
    let planner_file = session
        .sh
        .var_os(jvm::PLANNER_CLASSPATH_FILE_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .with_context(|| {
            format!(
                "no classpath-planner.txt: {} holds no flink-table-planner_* jar",
                jvm::NATIVE_CLASSPATH_VAR
            )
        })?;
    let classpath = fs::read_to_string(&planner_file)
        .with_context(|| format!("reading {}", planner_file.display()))?
        .trim()
        .to_string();

    // The same release build `cargo xtask test` and `cargo xtask flink` use.
    session.metadata.features = features.to_map();
    let (line, library) = flink_dist::build_library(&session.sh, &session.workspace, &features)?;
    session.metadata.cargo_commands.push(line);

    let logs = session.run_dir.join("logs");
    fs::create_dir_all(&logs).with_context(|| format!("creating {}", logs.display()))?;
    let jvm = Jvm::new(&args.heap, &library, classpath, logs);
    if let Some(jobs) = session.metadata.jobs.as_mut() {
        jobs.native_library = Some(library.clone());
        jobs.jvm_options = jvm.options.clone();
        jobs.planner_classpath_file = Some(planner_file.clone());
    }
    session.metadata.write()?;
    // Flink and RocksDB may leave files in the working directory; keep them in the run.
    let cwd = session.sh.push_dir(session.run_dir.clone());

    let listed = jvm.run(&session.sh, "list", &["list".to_string()])?;
    if !listed.success {
        bail!("{}", listed.failure("JobBench list failed"));
    }
    let known = parse_list(&listed.stdout)?;
    let jobs: Vec<String> = if args.jobs.is_empty() {
        known.clone()
    } else {
        let unknown: Vec<&String> = args.jobs.iter().filter(|j| !known.contains(j)).collect();
        if !unknown.is_empty() {
            bail!(
                "unknown job(s) {}; JobBench list names: {}",
                unknown
                    .iter()
                    .map(|j| j.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                known.join(", ")
            );
        }
        let mut seen = BTreeSet::new();
        args.jobs
            .iter()
            .filter(|j| seen.insert(j.as_str()))
            .cloned()
            .collect()
    };

    let mut rows: Vec<Row> = Vec::new();
    let mut verdicts: Vec<JobVerifyRecord> = Vec::new();
    let mut timing_failures: BTreeMap<(String, String), String> = BTreeMap::new();
    for job in &jobs {
        for state in &states {
            let verdict = verify(&session.sh, &jvm, args, &session.run_dir, job, state)?;
            let passed = verdict.passed;
            verdicts.push(verdict.clone());
            if let Some(record) = session.metadata.jobs.as_mut() {
                record.verify.push(verdict);
            }
            session.metadata.write()?;
            if !passed || args.verify_only {
                continue;
            }
            if args.profile {
                let graphs = profile_job(&session.sh, &jvm, args, &session.run_dir, job, state)?;
                if let Some(record) = session.metadata.jobs.as_mut() {
                    record.profiles.extend(graphs);
                }
                session.metadata.write()?;
                continue;
            }
            if let Err(err) = time_job(&session, &jvm, args, job, state, &mut rows) {
                let reason = format!("{err:#}");
                println!("{job} / {state}: timing stopped: {reason}");
                if let Some(record) = session.metadata.jobs.as_mut() {
                    record
                        .timing_failures
                        .push(format!("{job}/{state}: {reason}"));
                }
                session.metadata.write()?;
                timing_failures.insert((job.clone(), state.to_string()), reason);
            }
        }
    }
    drop(cwd);

    if !args.verify_only && !args.profile {
        let csv_path = session.run_dir.join("jobs.csv");
        fs::write(&csv_path, csv(&rows))
            .with_context(|| format!("writing {}", csv_path.display()))?;
        let title = format!(
            "StreamFusion whole jobs: rows={} keys={} width={} nullable={} (Flink {FLINK_VERSION})",
            args.rows, args.keys, args.width, args.nullable
        );
        let svg_path = session.run_dir.join("jobs.svg");
        fs::write(&svg_path, svg(&rows, &title))
            .with_context(|| format!("writing {}", svg_path.display()))?;
    }

    println!();
    print!("{}", summary_table(&verdicts, &rows, &timing_failures));
    session.metadata.finished_at = Some(crate::clock::Utc::now().rfc3339());
    session.metadata.write()?;
    println!("run directory: {}", session.run_dir.display());
    let ok = verdicts.iter().all(|v| v.passed) && timing_failures.is_empty();
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// job, state, the stock and native medians of the timed trials, speedup, and parity.
fn summary_table(
    verdicts: &[JobVerifyRecord],
    rows: &[Row],
    timing_failures: &BTreeMap<(String, String), String>,
) -> String {
    let groups: BTreeMap<(String, String), BTreeMap<Engine, Vec<f64>>> =
        timed_groups(rows).into_iter().collect();
    let mut table = Table::new(&[
        "job",
        "state",
        ">stock median ms",
        ">native median ms",
        ">speedup",
        "verify",
    ]);
    for v in verdicts {
        let key = (v.job.clone(), v.state.clone());
        let medians = groups.get(&key);
        let m = |e: Engine| medians.and_then(|g| g.get(&e)).and_then(|t| median(t));
        let (stock, native) = (m(Engine::Stock), m(Engine::Native));
        let cell = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.0}"));
        let speedup = match (stock, native) {
            (Some(s), Some(n)) if n > 0.0 => format!("{:.2}x", s / n),
            _ => "-".to_string(),
        };
        let verify = match (&v.reason, timing_failures.get(&key)) {
            (Some(_), _) => "FAILED parity (not timed)".to_string(),
            (None, Some(_)) => "passed; timing failed".to_string(),
            (None, None) => "passed".to_string(),
        };
        table.row(vec![
            v.job.clone(),
            v.state.clone(),
            cell(stock),
            cell(native),
            speedup,
            verify,
        ]);
    }
    table.render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{
        JOBS_CSV, Verdict, compare_job_runs, compare_time, read_job_times, trial_estimate,
    };
    use crate::rundir::tests::scratch;

    fn row(job: &str, engine: Engine, trial: u32, kind: Kind, wall_ms: u64) -> Row {
        Row {
            job: job.into(),
            state: "hashmap".into(),
            engine,
            trial,
            kind,
            wall_ms,
            records: 1000,
            records_per_s: 1000.0 * 1000.0 / wall_ms as f64,
            gc_ms: 3,
            peak_rss_kb: 123_456,
        }
    }

    #[test]
    fn abba_alternates_pairs() {
        use Engine::{Native as N, Stock as S};
        assert_eq!(abba(1), vec![S, N]);
        assert_eq!(abba(3), vec![S, N, N, S, S, N]);
        let order = abba(5);
        let count = |e| order.iter().filter(|&&x| x == e).count();
        assert_eq!((count(S), count(N)), (5, 5));
    }

    #[test]
    fn a_plan_is_warm_up_pairs_then_abba_each_run_numbered_per_engine_and_kind() {
        use Engine::{Native as N, Stock as S};
        use Kind::{Timed as T, Warmup as W};
        let got: Vec<(Engine, Kind, u32)> = plan(2, 2)
            .iter()
            .map(|s| (s.engine, s.kind, s.trial))
            .collect();
        assert_eq!(
            got,
            vec![
                (S, W, 1),
                (N, W, 1),
                (S, W, 2),
                (N, W, 2),
                (S, T, 1),
                (N, T, 1),
                (N, T, 2),
                (S, T, 2),
            ]
        );
        assert_eq!(plan(0, 1).len(), 2);
    }

    #[test]
    fn a_series_trial_line_must_be_the_run_its_slot_names() {
        let line = "trial job=calc engine=native state=hashmap wall_ms=700 records=10 \
                    records_per_s=14 gc_ms=3 peak_rss_kb=99 native_nodes=1";
        let slot = Slot {
            engine: Engine::Native,
            kind: Kind::Timed,
            trial: 4,
        };
        let row = trial_row(line, "calc", "hashmap", slot).unwrap();
        assert_eq!((row.trial, row.kind, row.wall_ms), (4, Kind::Timed, 700));
        let stock = Slot {
            engine: Engine::Stock,
            ..slot
        };
        let err = trial_row(line, "calc", "hashmap", stock).unwrap_err();
        assert!(err.to_string().contains("another run"), "{err}");
        assert!(trial_row(line, "calc", "rocksdb", slot).is_err());
    }

    #[test]
    fn a_trial_line_parses() {
        let t = parse_trial(
            "trial job=group_count_sum engine=native state=rocksdb wall_ms=1234 records=2000000 \
             records_per_s=1620746 gc_ms=12 peak_rss_kb=812345 native_nodes=2",
        )
        .unwrap();
        assert_eq!(t.job, "group_count_sum");
        assert_eq!(t.engine, "native");
        assert_eq!(t.state, "rocksdb");
        assert_eq!((t.wall_ms, t.records, t.gc_ms), (1234, 2_000_000, 12));
        assert_eq!(t.records_per_s, 1_620_746.0);
        assert_eq!((t.peak_rss_kb, t.native_nodes), (812_345, 2));
        assert_eq!(
            parse_trial("trial job=j engine=stock state=hashmap wall_ms=1 records=1 records_per_s=1000 gc_ms=0 peak_rss_kb=-1 native_nodes=0")
                .unwrap()
                .peak_rss_kb,
            -1
        );
    }

    #[test]
    fn a_malformed_trial_line_is_refused_clearly() {
        let ok = "trial job=j engine=stock state=hashmap wall_ms=5 records=1 records_per_s=1 \
                  gc_ms=0 peak_rss_kb=1 native_nodes=0";
        let missing = ok.replace(" gc_ms=0", "");
        let err = parse_trial(&missing).unwrap_err().to_string();
        assert!(err.contains("no gc_ms="), "{err}");
        let bad_number = ok.replace("wall_ms=5", "wall_ms=5ms");
        let err = parse_trial(&bad_number).unwrap_err().to_string();
        assert!(err.contains("wall_ms=5ms"), "{err}");
        let stray = format!("{ok} oops");
        let err = parse_trial(&stray).unwrap_err().to_string();
        assert!(err.contains("`oops` is not key=value"), "{err}");
        let err = parse_trial("verify job=j").unwrap_err().to_string();
        assert!(err.contains("expected `trial key=value"), "{err}");
    }

    #[test]
    fn a_verify_line_parses_with_and_without_detail() {
        let v = parse_verify(
            "verify job=group_retract state=hashmap equal=true all_native=true stock_rows=40 \
             native_rows=40 native_nodes=2 stock_nodes=0",
        )
        .unwrap();
        assert!(v.equal && v.all_native);
        assert_eq!((v.stock_rows, v.native_nodes, v.detail), (40, 2, None));
        let v = parse_verify(
            "verify job=calc state=rocksdb equal=false all_native=true stock_rows=3 \
             native_rows=2 native_nodes=1 stock_nodes=0 detail=stock_1x_+I[1],_native_nullx",
        )
        .unwrap();
        assert!(!v.equal && v.all_native);
        assert_eq!(v.detail.as_deref(), Some("stock_1x_+I[1],_native_nullx"));
        let err = parse_verify("verify job=calc state=rocksdb equal=yes all_native=true")
            .unwrap_err()
            .to_string();
        assert!(err.contains("equal=yes is not true/false"), "{err}");
    }

    #[test]
    fn the_job_list_gives_names_despite_spaces_in_descriptions() {
        let out = "job name=group_count_sum description=GROUP BY k COUNT(*), SUM(v)\n\
                   job name=calc description=Calc: arithmetic\n\
                   job name=window_tumble description=TUMBLE 1 s windows GROUP BY k\n\
                   job name=dedup_keep_last description=ROW_NUMBER() OVER (...) = 1: last row\n\
                   job name=rank_top3 description=ROW_NUMBER() OVER (...) <= 3 with rn: top 3\n";
        assert_eq!(
            parse_list(out).unwrap(),
            vec![
                "group_count_sum",
                "calc",
                "window_tumble",
                "dedup_keep_last",
                "rank_top3"
            ]
        );
        assert!(parse_list("nothing\n").is_err());
        assert_eq!(
            last_line("log\ntrial a=1\nmore\ntrial a=2\n", "trial"),
            Some("trial a=2")
        );
    }

    #[test]
    fn the_innermost_java_exception_is_named() {
        let stderr = "Exception in thread \"main\" java.lang.RuntimeException: outer\n\
                      \tat a.B.c(B.java:1)\nCaused by: java.io.IOException: middle\n\
                      Caused by: org.streamfusion.jni.NativeException: RocksDB: inner\n\
                      \tat x.Y.z(Native Method)\n";
        assert_eq!(
            innermost_cause(stderr).as_deref(),
            Some("org.streamfusion.jni.NativeException: RocksDB: inner")
        );
        assert_eq!(
            innermost_cause("Exception in thread \"main\" java.lang.Error: x\n").as_deref(),
            Some("Exception in thread \"main\" java.lang.Error: x")
        );
        assert_eq!(innermost_cause("all fine\n"), None);
    }

    #[test]
    fn states_default_to_both_and_do_not_repeat() {
        assert_eq!(states(&[]), vec!["hashmap", "rocksdb"]);
        assert_eq!(states(&[StateArg::Rocksdb]), vec!["rocksdb"]);
        assert_eq!(
            states(&[StateArg::Rocksdb, StateArg::Both]),
            vec!["rocksdb", "hashmap"]
        );
        assert!(parse_heap("2g").is_ok() && parse_heap("1536m").is_ok());
        for bad in ["", "g", "2gb", "0g", "-2g"] {
            assert!(parse_heap(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_csv_has_the_header_and_one_line_per_trial() {
        let rows = vec![
            row("calc", Engine::Stock, 1, Kind::Warmup, 900),
            row("calc", Engine::Native, 2, Kind::Timed, 400),
        ];
        assert_eq!(
            csv(&rows),
            "job,state,engine,trial,kind,wall_ms,records,records_per_s,gc_ms,peak_rss_kb\n\
             calc,hashmap,stock,1,warmup,900,1000,1111,3,123456\n\
             calc,hashmap,native,2,timed,400,1000,2500,3,123456\n"
        );
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(nice_ceiling(1234.0), 2000.0);
        assert_eq!(nice_ceiling(5000.0), 5000.0);
    }

    /// Every opened element is closed, in order (a small check, not a full XML parser).
    fn assert_balanced(xml: &str) {
        let mut stack: Vec<String> = Vec::new();
        let mut rest = xml;
        while let Some(start) = rest.find('<') {
            let end = rest[start..].find('>').expect("an unclosed tag") + start;
            let tag = &rest[start + 1..end];
            assert!(!tag.contains('<'), "a `<` inside a tag: {tag}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
            } else if !tag.ends_with('/') {
                let name = tag.split_whitespace().next().unwrap().to_string();
                stack.push(name);
            }
            rest = &rest[end + 1..];
        }
        assert!(stack.is_empty(), "unclosed: {stack:?}");
    }

    #[test]
    fn the_svg_is_well_formed_with_one_circle_per_timed_trial() {
        let mut rows = vec![row("a<&>", Engine::Stock, 1, Kind::Warmup, 5000)];
        for (i, engine) in abba(3).into_iter().enumerate() {
            rows.push(row(
                "a<&>",
                engine,
                i as u32 / 2 + 1,
                Kind::Timed,
                1000 + i as u64,
            ));
            rows.push(row(
                "b",
                engine,
                i as u32 / 2 + 1,
                Kind::Timed,
                700 + i as u64,
            ));
        }
        let svg = svg(&rows, "t & t");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.ends_with("</svg>\n"));
        assert_balanced(&svg);
        assert_eq!(svg.matches("<circle").count(), 12);
        // One median bar per (job, state, engine).
        assert_eq!(svg.matches("median").count(), 4 + 1);
        assert!(svg.contains("a&lt;&amp;&gt; / hashmap"));
        // The warm-up (5000 ms) is not drawn and does not stretch the axis.
        assert!(!svg.contains("5000 ms"));
        assert!(svg.contains(">2000</text>"));
        assert_balanced(&super::svg(&[], "empty"));
    }

    #[test]
    fn the_summary_names_failed_parity_and_gives_speedups() {
        let rows = vec![
            row("a", Engine::Stock, 1, Kind::Timed, 1000),
            row("a", Engine::Native, 1, Kind::Timed, 500),
        ];
        let verdicts = vec![
            JobVerifyRecord {
                job: "a".into(),
                state: "hashmap".into(),
                passed: true,
                line: None,
                reason: None,
            },
            JobVerifyRecord {
                job: "b".into(),
                state: "hashmap".into(),
                passed: false,
                line: None,
                reason: Some("outputs differ".into()),
            },
        ];
        let table = summary_table(&verdicts, &rows, &BTreeMap::new());
        assert!(table.contains("2.00x"), "{table}");
        assert!(table.contains("FAILED parity (not timed)"), "{table}");
    }

    #[test]
    fn compare_judges_job_runs_by_median_within_min_and_max() {
        let run = |name: &str, stock: &[u64], native: &[u64]| {
            let dir = scratch(name);
            let mut text = String::from(
                "job,state,engine,trial,kind,wall_ms,records,records_per_s,gc_ms,peak_rss_kb\n\
                 calc,hashmap,stock,1,warmup,9999,10,1,0,1\n",
            );
            for (engine, times) in [("stock", stock), ("native", native)] {
                for (i, ms) in times.iter().enumerate() {
                    text.push_str(&format!(
                        "calc,hashmap,{engine},{},timed,{ms},10,1,0,1\n",
                        i + 1
                    ));
                }
            }
            fs::write(dir.join(JOBS_CSV), text).unwrap();
            dir
        };
        let base = run("jobs-base", &[1000, 1010, 990], &[800, 820, 790]);
        let times = read_job_times(&base).unwrap();
        assert_eq!(times["calc/hashmap/stock"], vec![1000.0, 1010.0, 990.0]);
        let e = trial_estimate(&times["calc/hashmap/native"]).unwrap();
        assert_eq!(e.point_estimate, 800.0);
        assert_eq!(e.confidence_interval.lower_bound, 790.0);
        assert_eq!(e.confidence_interval.upper_bound, 820.0);
        // 30% down with min..max clear of the baseline's min: faster.
        let cand = run("jobs-cand", &[1000, 1000, 1000], &[560, 570, 550]);
        let c = read_job_times(&cand).unwrap();
        let verdict = compare_time(
            &trial_estimate(&times["calc/hashmap/native"]).unwrap(),
            &trial_estimate(&c["calc/hashmap/native"]).unwrap(),
            0.02,
        );
        assert_eq!(verdict.verdict, Verdict::Faster);
        // One slow trial reaching the baseline's range is no demonstrated improvement.
        let verdict = compare_time(
            &trial_estimate(&[800.0, 820.0, 790.0]).unwrap(),
            &trial_estimate(&[560.0, 570.0, 795.0]).unwrap(),
            0.02,
        );
        assert_eq!(verdict.verdict, Verdict::NoDemonstratedImprovement);
        assert!(trial_estimate(&[]).is_none());
        assert!(compare_job_runs(&base, &cand, 0.02, &|_| true).is_ok());
    }

    #[test]
    fn the_job_command_line_parses() {
        use clap::{CommandFactory, Parser};
        crate::Cli::command().debug_assert();
        let cli = crate::Cli::try_parse_from([
            "cargo-xtask",
            "job",
            "--job",
            "calc",
            "--job",
            "group_min_max",
            "--job",
            "window_hop",
            "--job",
            "dedup_keep_first",
            "--job",
            "rank_top1",
            "--state",
            "both",
            "--rows",
            "1000",
            "--heap",
            "1g",
            "--verify-only",
        ])
        .unwrap();
        let crate::Command::Job(args) = cli.command else {
            panic!("parsed as {:?}", cli.command);
        };
        assert_eq!(
            args.jobs,
            vec![
                "calc",
                "group_min_max",
                "window_hop",
                "dedup_keep_first",
                "rank_top1"
            ]
        );
        assert_eq!(states(&args.states), vec!["hashmap", "rocksdb"]);
        assert_eq!(
            (args.rows, args.keys, args.warmup, args.runs),
            (1000, 16_384, 2, 5)
        );
        assert!(args.verify_only && args.heap == "1g" && !args.profile);
        let cli = crate::Cli::try_parse_from(["cargo-xtask", "job", "--job", "calc", "--profile"])
            .unwrap();
        let crate::Command::Job(args) = cli.command else {
            panic!("parsed as {:?}", cli.command);
        };
        assert!(args.profile && !args.verify_only);
        assert_eq!(args.jvm, JvmMode::Fresh);
        let cli = crate::Cli::try_parse_from(["cargo-xtask", "job", "--jvm", "shared"]).unwrap();
        let crate::Command::Job(args) = cli.command else {
            panic!("parsed as {:?}", cli.command);
        };
        assert_eq!(args.jvm, JvmMode::Shared);
        assert_eq!(
            profile_command(&args, "calc", "hashmap", Engine::Native)[0],
            "series"
        );
        assert!(
            profile_command(&args, "calc", "hashmap", Engine::Native)
                .ends_with(&["--engines".to_string(), "native,native,native".to_string()])
        );
        for bad in [
            &["job", "--jvm", "warm"][..],
            &["job", "--runs", "0"],
            &["job", "--state", "memory"],
            &["job", "--heap", "2gb"],
            &["job", "--profile", "--verify-only"],
        ] {
            let argv = std::iter::once("cargo-xtask").chain(bad.iter().copied());
            assert!(crate::Cli::try_parse_from(argv).is_err(), "{bad:?}");
        }
    }
}
