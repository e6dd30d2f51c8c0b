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
    let classpath = match released_classpath() {
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
