//! Locating the released Flink classpath that `cargo xtask jvm` prepares.
//!
//! Tests and suites that need the JVM ask [`released_classpath`]; when it is unavailable
//! they report themselves skipped by name, with the reason, and never pass silently.
//!
//! Lookup order:
//! 1. `SF_JVM_CLASSPATH_FILE`: the classpath file `cargo xtask` exports to tests and suites;
//! 2. `SF_NATIVE_BENCH_CLASSPATH`: a prepared classpath used as is (it must include the
//!    compiled `java/` classes);
//! 3. `<target>/jvm/classpath.txt` next to the running binary's target directory.

use std::path::{Path, PathBuf};

/// Environment variable naming the classpath file.
pub const CLASSPATH_FILE_ENV: &str = "SF_JVM_CLASSPATH_FILE";
/// Environment variable holding a ready classpath.
pub const CLASSPATH_ENV: &str = "SF_NATIVE_BENCH_CLASSPATH";

/// Why the JVM cannot be used here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no released Flink classpath: {0}")]
pub struct JvmUnavailable(pub String);

/// The classpath of the released Flink jars plus the project's compiled Java classes.
pub fn released_classpath() -> Result<String, JvmUnavailable> {
    if let Some(file) = std::env::var_os(CLASSPATH_FILE_ENV).filter(|f| !f.is_empty()) {
        return read_classpath(Path::new(&file));
    }
    if let Ok(cp) = std::env::var(CLASSPATH_ENV)
        && !cp.trim().is_empty()
    {
        return Ok(cp.trim().to_string());
    }
    let default = default_classpath_file().ok_or_else(|| {
        JvmUnavailable("cannot locate the target directory; run `cargo xtask jvm`".into())
    })?;
    if default.exists() {
        read_classpath(&default)
    } else {
        Err(JvmUnavailable(format!(
            "{} does not exist; run `cargo xtask jvm` (needs a JDK 17+ and pip)",
            default.display()
        )))
    }
}

/// Reports a test that cannot run here, by name and with the reason. Written straight to the
/// process's stderr, past the test harness's output capture, so a skip is never silent.
pub fn report_skipped(test: &str, reason: &dyn std::fmt::Display) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {reason}");
}

/// The path of a `cdylib` of this workspace built next to the running test or suite binary:
/// the newer of `<target>/<profile>/lib<name>.so` (or the platform's equivalent) and the copy
/// in `<target>/<profile>/deps/`.
pub fn built_library_path(name: &str) -> PathBuf {
    let file = format!(
        "{}{name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let Some(deps) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    else {
        return PathBuf::from(file);
    };
    // `cargo build` uplifts the library next to `deps/`; `cargo test` and `cargo bench` only
    // refresh the copy in `deps/`. Load whichever was built last, never a stale one.
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let in_deps = deps.join(&file);
    match deps.parent().map(|profile| profile.join(&file)) {
        Some(uplifted) if modified(&uplifted) > modified(&in_deps) => uplifted,
        _ => in_deps,
    }
}

/// Runs the golden-vector generator `class` (a `java/src` main class taking the output path)
/// on the released classpath and requires output identical to the committed `golden` file,
/// naming the first differing line. Without a classpath, reports `test` skipped and returns.
///
/// # Panics
/// If the generator fails or its output differs: the test's verdict.
pub fn assert_golden_regenerates(test: &str, class: &str, golden: &Path) {
    regenerate(test, class, golden, released_classpath());
}

/// [`assert_golden_regenerates`] for a generator that plans through StreamFusion's planner
/// extension (it reads the planner's decisions): run on [`planner_classpath`]. Without it,
/// reports `test` skipped and returns.
///
/// # Panics
/// If the generator fails or its output differs: the test's verdict.
pub fn assert_planner_golden_regenerates(test: &str, class: &str, golden: &Path) {
    regenerate(test, class, golden, planner_classpath());
}

fn regenerate(test: &str, class: &str, golden: &Path, classpath: Result<String, JvmUnavailable>) {
    let classpath = match classpath {
        Ok(cp) => cp,
        Err(why) => {
            report_skipped(test, &why);
            return;
        }
    };
    let out = std::env::temp_dir().join(format!("sf-golden-{}-{class}.jsonl", std::process::id()));
    let status = std::process::Command::new(java_command())
        .args([
            "--add-opens",
            "java.base/java.util=ALL-UNNAMED",
            "--add-opens",
            "java.base/java.lang=ALL-UNNAMED",
            "-cp",
            &classpath,
            class,
        ])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("run java");
    let regenerated = std::fs::read_to_string(&out);
    let _ = std::fs::remove_file(&out);
    assert!(status.success(), "{class} failed: {status}");
    let regenerated = regenerated.expect("regenerated vectors");
    let committed = std::fs::read_to_string(golden).expect("committed golden vectors");
    if regenerated != committed {
        let line = regenerated
            .lines()
            .zip(committed.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| regenerated.lines().count().min(committed.lines().count()));
        panic!(
            "released Flink now writes different vectors than {} holds ({} vs {} bytes), first \
             at line {}:\n  now       {}\n  committed {}\nregenerate and review",
            golden.display(),
            regenerated.len(),
            committed.len(),
            line + 1,
            regenerated.lines().nth(line).unwrap_or("(end)"),
            committed.lines().nth(line).unwrap_or("(end)")
        );
    }
}

/// The variable `cargo xtask` sets to `classpath-planner.txt`: released Flink with the real
/// planner jar instead of its loader, plus the project's classes.
pub const PLANNER_CLASSPATH_FILE_ENV: &str = "SF_JVM_PLANNER_CLASSPATH_FILE";

/// The planner classpath: `$SF_JVM_PLANNER_CLASSPATH_FILE`, else `classpath-planner.txt`
/// beside `$SF_JVM_CLASSPATH_FILE`, else in `<target>/jvm/` above the running binary.
pub fn planner_classpath() -> Result<String, JvmUnavailable> {
    let from_env = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let file = from_env(PLANNER_CLASSPATH_FILE_ENV)
        .or_else(|| {
            from_env(CLASSPATH_FILE_ENV)
                .and_then(|f| f.parent().map(|d| d.join("classpath-planner.txt")))
        })
        .or_else(|| {
            default_classpath_file()?
                .parent()
                .map(|d| d.join("classpath-planner.txt"))
        })
        .ok_or_else(|| JvmUnavailable("cannot locate classpath-planner.txt".into()))?;
    if !file.exists() {
        return Err(JvmUnavailable(format!(
            "{} does not exist; run `cargo xtask jvm` (needs a JDK 17+ and pip)",
            file.display()
        )));
    }
    read_classpath(&file)
}

/// What a Flink driver (`org.streamfusion.flink.*` main class) printed and how it ended.
#[derive(Debug)]
pub struct DriverRun {
    /// Whether the JVM exited with status 0.
    pub success: bool,
    /// Everything it printed on stdout (one line per case, by convention).
    pub stdout: String,
    /// The last lines of its stderr (Flink's logs), for a failure message.
    pub stderr_tail: String,
}

impl DriverRun {
    /// The driver's last line starting with `summary: `.
    ///
    /// # Panics
    /// If there is none: the driver died before its verdict.
    pub fn summary(&self) -> &str {
        self.stdout
            .lines()
            .rev()
            .find(|l| l.starts_with("summary: "))
            .unwrap_or_else(|| {
                panic!(
                    "the driver printed no summary:\n{}\n{}",
                    self.stdout, self.stderr_tail
                )
            })
    }

    /// Requires the planner extension's activation line, naming the real planner jar (not
    /// its loader, which would hide the extension and substitute nothing).
    ///
    /// # Panics
    /// If the line is missing or names the loader.
    pub fn assert_real_planner(&self) {
        let activation = self
            .stdout
            .lines()
            .find(|l| l.starts_with("StreamFusion planner extension active"))
            .expect("the activation line");
        assert!(
            activation.contains("flink-table-planner_2.12") && !activation.contains("loader"),
            "the extension must run on the real planner: {activation}"
        );
    }

    /// The number after `key=` in the summary line.
    ///
    /// # Panics
    /// If the summary has no such number.
    pub fn value(&self, key: &str) -> u64 {
        let summary = self.summary();
        summary
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in {summary:?}"))
    }
}

/// Runs the Flink driver `class` on the planner classpath with the workspace's JNI library
/// (`library`), in a JVM of at most `heap` (`"1g"`); `SF_JVM_CHECK_JNI=1` adds
/// `-Xcheck:jni`. Its stdout is echoed past the harness's capture, as the case lines are the
/// evidence. Without a JDK or the planner classpath, says why (the test reports itself
/// skipped).
pub fn run_flink_driver(
    class: &str,
    library: &Path,
    heap: &str,
) -> Result<DriverRun, JvmUnavailable> {
    let classpath = planner_classpath()?;
    if std::process::Command::new(java_command())
        .arg("-version")
        .output()
        .is_err()
    {
        return Err(JvmUnavailable(
            "no `java` launcher (JAVA_HOME or PATH)".into(),
        ));
    }
    assert!(
        library.is_file(),
        "{} is missing; build it with `cargo xtask test`",
        library.display()
    );
    let library_dir = library.parent().unwrap_or(Path::new("."));
    let mut java = std::process::Command::new(java_command());
    java.arg(format!("-Xmx{heap}")).args([
        "--add-opens",
        "java.base/java.util=ALL-UNNAMED",
        "--add-opens",
        "java.base/java.lang=ALL-UNNAMED",
    ]);
    if std::env::var_os("SF_JVM_CHECK_JNI").is_some_and(|v| v == "1") {
        java.arg("-Xcheck:jni");
    }
    let output = java
        .arg(format!("-Djava.library.path={}", library_dir.display()))
        .arg(format!("-Dstreamfusion.jni.path={}", library.display()))
        .args(["-cp", &classpath, class])
        .output()
        .expect("run java");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut tail: Vec<&str> = stderr.lines().rev().take(60).collect();
    tail.reverse();
    if !output.status.success() {
        // First, so that a report which keeps only the start of a long output still says
        // what failed.
        eprintln!("{}", failure_digest(class, &output.status, &stdout, &tail));
    }
    eprintln!("{stdout}");
    Ok(DriverRun {
        success: output.status.success(),
        stdout,
        stderr_tail: tail.join("\n"),
    })
}

/// What a failed driver run says about its failure: the lines naming a failed case or an
/// exception, its summary line, and the end of its stderr.
fn failure_digest(
    class: &str,
    status: &std::process::ExitStatus,
    stdout: &str,
    stderr_tail: &[&str],
) -> String {
    let problems: Vec<&str> = stdout
        .lines()
        .filter(|l| {
            l.contains("FAILED")
                || l.contains("MISMATCH")
                || l.contains("Exception")
                || l.starts_with("summary: ")
        })
        .take(40)
        .collect();
    let last_err: Vec<&str> = stderr_tail.iter().rev().take(20).rev().copied().collect();
    format!(
        "{class} failed ({status}); its failing lines:\n{}\nthe end of its stderr:\n{}\n\
         (its whole output follows)",
        problems.join("\n"),
        last_err.join("\n")
    )
}

/// The `java` launcher: `$JAVA_HOME/bin/java`, else `java` on the `PATH`.
pub fn java_command() -> PathBuf {
    std::env::var_os("JAVA_HOME")
        .map(|home| PathBuf::from(home).join("bin").join("java"))
        .filter(|java| java.exists())
        .unwrap_or_else(|| PathBuf::from("java"))
}

fn read_classpath(path: &Path) -> Result<String, JvmUnavailable> {
    let cp = std::fs::read_to_string(path)
        .map_err(|e| JvmUnavailable(format!("cannot read {}: {e}", path.display())))?;
    let cp = cp.trim();
    if cp.is_empty() {
        return Err(JvmUnavailable(format!("{} is empty", path.display())));
    }
    Ok(cp.to_string())
}

/// `<target>/jvm/classpath.txt`, for a binary in `<target>/<profile>/deps/`.
fn default_classpath_file() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.ancestors().nth(3)?.join("jvm").join("classpath.txt"))
}

pub use crate::embedded_jvm::jvm;

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::*;

    #[test]
    fn a_failure_digest_leads_with_the_failed_cases_and_the_summary() {
        let stdout = "case a: 3 rows, MATCH\ncase b: 3 rows, MISMATCH (first difference ...)\n\
                      case c: 1 rows, MATCH FAILED native operator\nsummary: cases=3 failed=2\n";
        let digest = failure_digest(
            "org.example.Parity",
            &std::process::ExitStatus::from_raw(1 << 8),
            stdout,
            &["INFO starting", "java.lang.IllegalStateException: boom"],
        );
        let lines: Vec<&str> = digest.lines().collect();
        assert!(
            lines[0].starts_with("org.example.Parity failed"),
            "{digest}"
        );
        assert_eq!(
            &lines[1..4],
            [
                "case b: 3 rows, MISMATCH (first difference ...)",
                "case c: 1 rows, MATCH FAILED native operator",
                "summary: cases=3 failed=2"
            ]
        );
        assert!(digest.contains("IllegalStateException: boom"), "{digest}");
        assert!(!digest.contains("case a"), "{digest}");
    }
}
