//! `cargo xtask job --profile`: each selected job runs once per engine under Linux `perf`,
//! and the samples are written as folded stacks and an SVG flame graph (the `inferno`
//! crate), so the native and JVM frames of a whole job can be read side by side.
//!
//! The JVM runs with `-XX:+PreserveFramePointer`, so `perf`'s frame-pointer call graphs walk
//! through JIT-compiled Java frames, and with `-XX:+DumpPerfMapAtExit`, which writes
//! `/tmp/perf-<pid>.map` for `perf script` to name them. Native frames are named from the
//! library's symbols; above a native frame built without frame pointers a caller may be
//! missing, the sampled frame never is, so the leaves (the summary printed per profile) are
//! exact. Profiled runs are never timed: `perf` slows a job down.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use inferno::collapse::Collapse;
use inferno::collapse::perf::{Folder, Options as FoldOptions};
use inferno::flamegraph::{self, Options as GraphOptions};
use xshell::{Shell, cmd};

/// Samples per second and thread.
pub const SAMPLE_HZ: u32 = 499;

/// The JVM options a profiled run adds to the usual ones.
pub const JVM_OPTIONS: [&str; 3] = [
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DumpPerfMapAtExit",
    "-XX:+PreserveFramePointer",
];

/// Checks that `perf` can run here, naming the fix when it cannot.
pub fn ensure_perf(sh: &Shell) -> Result<String> {
    let version = cmd!(sh, "perf --version")
        .quiet()
        .ignore_stderr()
        .read()
        .context(
            "`--profile` needs Linux `perf` (Debian: `apt-get install -y linux-perf`), \
             and a kernel.perf_event_paranoid that lets this user sample",
        )?;
    Ok(version.trim().to_string())
}

/// The `perf record` command a profiled JVM is started under, writing `data`.
pub fn record_prefix(data: &Path) -> Vec<String> {
    [
        "perf",
        "record",
        "--quiet",
        "-g",
        "-F",
        &SAMPLE_HZ.to_string(),
        "-o",
        &data.display().to_string(),
        "--",
    ]
    .map(str::to_string)
    .to_vec()
}

/// What one profile found, in perf's sample weights (each sample's period: nanoseconds of
/// CPU under the `cpu-clock` event a VM falls back to, cycles under `cycles`).
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub weight: u64,
    /// Weight per thread (the first frame of each stack), most first.
    pub threads: Vec<(String, u64)>,
    /// Weight per leaf frame, most first.
    pub leaves: Vec<(String, u64)>,
}

/// Turns `perf record`'s `data` into `<stem>.folded` and `<stem>.svg` beside it, removes the
/// raw data (it needs this machine's binaries and JIT maps to be read), and summarizes it.
pub fn fold_and_plot(sh: &Shell, data: &Path, title: &str) -> Result<Summary> {
    let folded = data.with_extension("folded");
    let svg = data.with_extension("svg");
    // Without inline expansion: addr2line over every sample would take minutes.
    let script = cmd!(sh, "perf script --no-inline -i {data}")
        .quiet()
        .ignore_stderr()
        .output()
        .with_context(|| format!("perf script -i {}", data.display()))?;
    if !script.status.success() {
        bail!(
            "perf script -i {} failed: {}",
            data.display(),
            script.status
        );
    }

    let mut options = FoldOptions::default();
    // Java frames end in `_[j]`, kernel frames in `_[k]`.
    options.annotate_jit = true;
    options.annotate_kernel = true;
    let writer = BufWriter::new(
        File::create(&folded).with_context(|| format!("creating {}", folded.display()))?,
    );
    Folder::from(options)
        .collapse(&script.stdout[..], writer)
        .with_context(|| format!("folding perf script -i {}", data.display()))?;

    let mut graph = GraphOptions::default();
    graph.title = title.to_string();
    graph.count_name = "weight".to_string();
    let reader = BufReader::new(File::open(&folded)?);
    let writer =
        BufWriter::new(File::create(&svg).with_context(|| format!("creating {}", svg.display()))?);
    flamegraph::from_reader(&mut graph, reader, writer)
        .with_context(|| format!("plotting {}", folded.display()))?;

    fs::remove_file(data).with_context(|| format!("removing {}", data.display()))?;
    let text = fs::read_to_string(&folded)?;
    Ok(summarize(&text))
}

/// Weight per thread and per leaf frame of folded stacks (`frame;frame;... count` lines).
pub fn summarize(folded: &str) -> Summary {
    let mut threads: BTreeMap<&str, u64> = BTreeMap::new();
    let mut leaves: BTreeMap<&str, u64> = BTreeMap::new();
    let mut weight = 0;
    for line in folded.lines() {
        let Some((stack, count)) = line.rsplit_once(' ') else {
            continue;
        };
        let Ok(count) = count.parse::<u64>() else {
            continue;
        };
        weight += count;
        let mut frames = stack.split(';');
        let thread = frames.next().unwrap_or_default();
        *threads.entry(thread).or_default() += count;
        *leaves
            .entry(stack.rsplit(';').next().unwrap_or(thread))
            .or_default() += count;
    }
    let ranked = |map: BTreeMap<&str, u64>| {
        let mut out: Vec<(String, u64)> =
            map.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    };
    Summary {
        weight,
        threads: ranked(threads),
        leaves: ranked(leaves),
    }
}

/// The summary for the terminal: the busiest threads and leaf frames, as shares of the
/// whole weight.
pub fn render(summary: &Summary, top: usize) -> String {
    let share = |n: u64| 100.0 * n as f64 / summary.weight.max(1) as f64;
    let mut out = format!("  weight {} (perf periods)\n  threads:", summary.weight);
    for (thread, n) in summary.threads.iter().take(4) {
        out.push_str(&format!(" {thread} {:.1}%;", share(*n)));
    }
    out.push_str("\n  leaf frames:\n");
    for (frame, n) in summary.leaves.iter().take(top) {
        let frame: String = frame.chars().take(110).collect();
        out.push_str(&format!("    {:5.1}%  {frame}\n", share(*n)));
    }
    out
}

/// Where a profile of `job` on `state` by `engine` goes.
pub fn data_path(dir: &Path, job: &str, state: &str, engine: &str) -> PathBuf {
    dir.join(format!("{job}-{state}-{engine}.perf.data"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOLDED: &str = "\
java;start;main 3
StreamFusionGro;run;rocksdb::Get_[k] 5
StreamFusionGro;run;Acc::decode 2
StreamFusionGro;emit_[j];Acc::decode 4
not a stack line
";

    #[test]
    fn weights_are_summed_per_thread_and_per_leaf_frame() {
        let summary = summarize(FOLDED);
        assert_eq!(summary.weight, 14);
        assert_eq!(
            summary.threads,
            vec![("StreamFusionGro".to_string(), 11), ("java".to_string(), 3)]
        );
        assert_eq!(
            summary.leaves,
            vec![
                ("Acc::decode".to_string(), 6),
                ("rocksdb::Get_[k]".to_string(), 5),
                ("main".to_string(), 3),
            ]
        );
        let text = render(&summary, 2);
        assert!(text.contains("StreamFusionGro 78.6%"), "{text}");
        assert!(text.contains(" 42.9%  Acc::decode"), "{text}");
        assert!(!text.contains("main"), "{text}");
    }

    #[test]
    fn the_profiled_jvm_runs_under_perf_record_with_frame_pointers() {
        let prefix = record_prefix(Path::new("/r/p.perf.data"));
        assert_eq!(prefix[..3], ["perf", "record", "--quiet"].map(String::from));
        assert!(prefix.contains(&"-g".to_string()));
        assert_eq!(prefix.last().map(String::as_str), Some("--"));
        assert!(JVM_OPTIONS.contains(&"-XX:+PreserveFramePointer"));
        assert_eq!(
            data_path(Path::new("/r"), "calc", "rocksdb", "native"),
            Path::new("/r/calc-rocksdb-native.perf.data")
        );
    }
}
