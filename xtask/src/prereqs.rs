//! Build prerequisites that cargo cannot fetch: librocksdb-sys compiles RocksDB's C++ and runs
//! bindgen, which loads libclang. Checked before anything is built, so a missing tool fails in
//! one second with the fix rather than after minutes of compiling.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use xshell::{Shell, cmd};

struct Prerequisite {
    what: &'static str,
    detected_by: &'static str,
    present: fn() -> bool,
    fix: Fix,
}

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
    let lines: Vec<String> = still_missing
        .iter()
        .map(|p| {
            let fix = match p.fix {
                Fix::Apt(package) => format!("apt-get install -y {package} (as root)"),
                Fix::Manual(fix) => fix.to_string(),
            };
            format!(
                "  {}: not found (looked for {}); fix: {fix}",
                p.what, p.detected_by
            )
        })
        .collect();
    bail!("missing build prerequisites:\n{}", lines.join("\n"))
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
    fn the_effective_uid_is_the_second_uid_field() {
        let status = "Name:\tcat\nUid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\n";
        assert_eq!(effective_uid(status), Some(0));
        assert_eq!(effective_uid("Name:\tcat\n"), None);
    }
}
