//! Build prerequisites that cargo cannot fetch: librocksdb-sys compiles RocksDB's C++ and runs
//! bindgen, which loads libclang. Checked before anything is built, so a missing tool fails in
//! one second with the fix rather than after minutes of compiling.
//!
//! The JVM side (`cargo xtask jvm`) has its own, optional prerequisites: a JDK and pip. They are
//! never installed automatically; `jvm` fails without them, while `smoke`, `bench` and `test`
//! carry on and the JVM-dependent tests and suites report themselves skipped.

use std::env;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Result, bail};
use xshell::{Shell, cmd};

#[derive(Debug)]
struct Prerequisite {
    what: &'static str,
    detected_by: &'static str,
    present: fn() -> bool,
    fix: Fix,
}

#[derive(Debug)]
enum Fix {
    /// A Debian package xtask installs itself when it runs as root with apt-get available.
    Apt(&'static str),
    Manual(&'static str),
}

const PREREQUISITES: &[Prerequisite] = &[
    Prerequisite {
        what: "cargo",
        detected_by: "$CARGO, or `cargo` on PATH",
        present: has_cargo,
        fix: Fix::Manual("install Rust with rustup (https://rustup.rs)"),
    },
    Prerequisite {
        what: "a C++ compiler (RocksDB is built from source)",
        detected_by: "`c++` or `g++` on PATH",
        present: has_cxx,
        fix: Fix::Apt("g++"),
    },
    Prerequisite {
        what: "libclang (bindgen generates RocksDB's bindings)",
        detected_by: "$LIBCLANG_PATH, or libclang*.so* under /usr/lib/llvm-*/lib or /usr/lib/*-linux-gnu",
        present: has_libclang,
        fix: Fix::Apt("libclang-dev"),
    },
];

/// Checks every prerequisite; installs missing Debian packages when running as root on a
/// system with apt-get, and otherwise fails saying what to install.
pub fn ensure(sh: &Shell) -> Result<()> {
    let missing: Vec<&Prerequisite> = PREREQUISITES.iter().filter(|p| !(p.present)()).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let packages: Vec<&str> = missing
        .iter()
        .filter_map(|p| match p.fix {
            Fix::Apt(package) => Some(package),
            Fix::Manual(_) => None,
        })
        .collect();
    if !packages.is_empty() && is_root() && find_on_path("apt-get").is_some() {
        eprintln!(
            "xtask: missing {}; installing with `apt-get install -y {}`",
            missing
                .iter()
                .map(|p| p.what)
                .collect::<Vec<_>>()
                .join(", "),
            packages.join(" ")
        );
        let installed = cmd!(sh, "apt-get update")
            .env("DEBIAN_FRONTEND", "noninteractive")
            .run()
            .and_then(|()| {
                cmd!(sh, "apt-get install -y {packages...}")
                    .env("DEBIAN_FRONTEND", "noninteractive")
                    .run()
            });
        if let Err(err) = installed {
            eprintln!("xtask: apt-get failed: {err}");
        }
    }
    let still_missing: Vec<&Prerequisite> =
        PREREQUISITES.iter().filter(|p| !(p.present)()).collect();
    if still_missing.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = still_missing.iter().map(|p| p.describe()).collect();
    bail!("missing build prerequisites:\n{}", lines.join("\n"))
}

impl Prerequisite {
    /// `  <what>: not found (looked for <how>); fix: <fix>`
    fn describe(&self) -> String {
        format!(
            "  {}: not found (looked for {}); fix: {}",
            self.what,
            self.detected_by,
            self.fix.render()
        )
    }
}

impl Fix {
    fn render(&self) -> String {
        match self {
            Fix::Apt(package) => format!("apt-get install -y {package} (as root)"),
            Fix::Manual(fix) => fix.to_string(),
        }
    }
}

/// The oldest JDK feature release the Java sources (`javac --release 17`) and Flink 2.3.0 need.
pub const MIN_JDK: u32 = 17;

/// The JVM side's prerequisites, in the form of [`PREREQUISITES`] but optional and never
/// installed by xtask: a JDK compiles `java/` and runs the Flink oracles, ...
static JDK: Prerequisite = Prerequisite {
    what: "a JDK 17 or newer",
    detected_by: "`javac`, `java` and `jar` on PATH, with `javac -version` reporting 17 or newer",
    present: has_jdk,
    fix: Fix::Apt("openjdk-17-jdk-headless"),
};

/// ... and pip downloads Flink's jars from PyPI (needed only until they are cached).
static PIP: Prerequisite = Prerequisite {
    what: "pip (downloads Flink 2.3.0's jars from PyPI once)",
    detected_by: "`python3 -m pip --version` succeeding",
    present: has_pip,
    fix: Fix::Apt("python3-pip"),
};

/// The JVM prerequisites that are missing; non-empty.
#[derive(Debug)]
pub struct Missing(Vec<&'static Prerequisite>);

impl Missing {
    /// What is missing and how to install it, in one line (for `smoke`, `bench` and `test`).
    pub fn summary(&self) -> String {
        self.0
            .iter()
            .map(|p| format!("{} not found, fix: {}", p.what, p.fix.render()))
            .collect::<Vec<_>>()
            .join(", and ")
    }
}

impl fmt::Display for Missing {
    /// The full message of `cargo xtask jvm`, in the style of the build prerequisites.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "missing JVM prerequisites (xtask does not install these):"
        )?;
        for p in &self.0 {
            write!(f, "\n{}", p.describe())?;
        }
        Ok(())
    }
}

/// Checks the JVM prerequisites: always the JDK, and pip when the Flink jars still have to be
/// downloaded.
pub fn check_jvm(need_pip: bool) -> Result<(), Missing> {
    let wanted: &[&'static Prerequisite] = if need_pip { &[&JDK, &PIP] } else { &[&JDK] };
    let missing: Vec<&'static Prerequisite> =
        wanted.iter().copied().filter(|p| !(p.present)()).collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Missing(missing))
    }
}

fn has_jdk() -> bool {
    ["javac", "java", "jar"]
        .iter()
        .all(|tool| find_on_path(tool).is_some())
        && javac_major_version().is_some_and(|major| major >= MIN_JDK)
}

/// The feature release `javac -version` reports (it prints to stdout since JDK 9, to stderr
/// before).
fn javac_major_version() -> Option<u32> {
    let output = Command::new("javac")
        .arg("-version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    parse_javac_version(&text)
}

/// `javac 17.0.15` gives 17, `javac 21` 21, `javac 22-ea` 22 and the old scheme's
/// `javac 1.8.0_392` 8. Other lines (`Picked up JAVA_TOOL_OPTIONS: ...`) are skipped.
fn parse_javac_version(output: &str) -> Option<u32> {
    let version = output
        .lines()
        .find_map(|line| line.trim().strip_prefix("javac "))?
        .trim();
    let version = version.strip_prefix("1.").unwrap_or(version);
    let digits: String = version.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn has_pip() -> bool {
    Command::new("python3")
        .args(["-m", "pip", "--version"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn has_cargo() -> bool {
    env::var_os("CARGO").is_some_and(|c| Path::new(&c).is_file()) || find_on_path("cargo").is_some()
}

fn has_cxx() -> bool {
    find_on_path("c++").is_some() || find_on_path("g++").is_some()
}

fn has_libclang() -> bool {
    if env::var_os("LIBCLANG_PATH").is_some_and(|p| !p.is_empty()) {
        return true;
    }
    let mut dirs = Vec::new();
    for entry in read_dir_names(Path::new("/usr/lib")) {
        if entry.starts_with("llvm-") {
            dirs.push(Path::new("/usr/lib").join(entry).join("lib"));
        } else if entry.ends_with("-linux-gnu") {
            dirs.push(Path::new("/usr/lib").join(entry));
        }
    }
    dirs.iter()
        .any(|dir| read_dir_names(dir).iter().any(|name| is_libclang(name)))
}

/// `libclang.so`, `libclang.so.1`, `libclang-14.so.1`, ... but not `libclang-cpp.so.14`
/// (the C++ API, which bindgen does not load) or static `libclangAST.a`.
fn is_libclang(file_name: &str) -> bool {
    let Some(rest) = file_name.strip_prefix("libclang") else {
        return false;
    };
    let versioned = rest
        .strip_prefix('-')
        .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()));
    (rest.starts_with(".so") || versioned) && rest.contains(".so")
}

fn read_dir_names(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| effective_uid(&status))
        .is_some_and(|uid| uid == 0)
}

/// The effective uid from `/proc/self/status` (`Uid:\treal\teffective\tsaved\tfs`).
fn effective_uid(status: &str) -> Option<u32> {
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libclang_shared_objects_are_recognised_and_the_cpp_api_is_not() {
        for name in [
            "libclang.so",
            "libclang.so.1",
            "libclang-14.so.1",
            "libclang-14.0.6.so",
        ] {
            assert!(is_libclang(name), "{name}");
        }
        for name in [
            "libclang-cpp.so.14",
            "libclangAST.a",
            "libclang.a",
            "libc.so.6",
        ] {
            assert!(!is_libclang(name), "{name}");
        }
    }

    #[test]
    fn javac_version_lines_give_the_feature_release() {
        assert_eq!(parse_javac_version("javac 17.0.15\n"), Some(17));
        assert_eq!(parse_javac_version("javac 21"), Some(21));
        assert_eq!(parse_javac_version("javac 22-ea"), Some(22));
        assert_eq!(parse_javac_version("javac 1.8.0_392"), Some(8));
        assert_eq!(
            parse_javac_version("Picked up JAVA_TOOL_OPTIONS: -Xmx1g\njavac 17.0.15"),
            Some(17)
        );
        assert_eq!(parse_javac_version("bash: javac: command not found"), None);
        assert_eq!(parse_javac_version(""), None);
    }

    #[test]
    fn a_missing_jdk_and_pip_are_reported_with_the_debian_packages_that_provide_them() {
        let missing = Missing(vec![&JDK, &PIP]);
        let message = missing.to_string();
        assert!(
            message.starts_with("missing JVM prerequisites"),
            "{message}"
        );
        assert!(
            message.contains(
                "  a JDK 17 or newer: not found (looked for `javac`, `java` and `jar` on PATH, \
                 with `javac -version` reporting 17 or newer); fix: apt-get install -y \
                 openjdk-17-jdk-headless (as root)"
            ),
            "{message}"
        );
        assert!(
            message.contains("fix: apt-get install -y python3-pip (as root)"),
            "{message}"
        );
        let summary = missing.summary();
        assert!(!summary.contains('\n'), "{summary}");
        assert_eq!(
            summary,
            "a JDK 17 or newer not found, fix: apt-get install -y openjdk-17-jdk-headless (as \
             root), and pip (downloads Flink 2.3.0's jars from PyPI once) not found, fix: \
             apt-get install -y python3-pip (as root)"
        );
    }

    #[test]
    fn the_effective_uid_is_the_second_uid_field() {
        let status = "Name:\tcat\nUid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\n";
        assert_eq!(effective_uid(status), Some(0));
        assert_eq!(effective_uid("Name:\tcat\n"), None);
    }
}
