//! The run directory: one fresh directory per smoke/bench/test run, so old logs never pose as
//! evidence for a new run.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::clock::Utc;

/// `--output`, for the commands that write a run (`smoke`, `bench`, `test`).
#[derive(Debug, Clone, Default, Args)]
pub struct RunDirArgs {
    /// Write the run here (new or empty) instead of <target>/native-benchmarks/<timestamp>.
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}

/// Creates the run directory: `--output DIR` (new or empty), or
/// `<target dir>/native-benchmarks/<UTC timestamp>/`.
pub fn create(output: Option<&Path>, target_dir: &Path, now: Utc) -> Result<PathBuf> {
    let dir = match output {
        Some(dir) => create_fresh(dir)?,
        None => create_timestamped(&target_dir.join("native-benchmarks"), &now.compact())?,
    };
    fs::canonicalize(&dir).with_context(|| format!("resolving {}", dir.display()))
}

fn create_fresh(dir: &Path) -> Result<PathBuf> {
    match fs::read_dir(dir) {
        Ok(mut entries) => {
            if let Some(entry) = entries.next() {
                let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
                bail!(
                    "refusing --output {}: it already contains files (e.g. {}); a run writes \
                     into a fresh directory so old logs cannot pose as evidence. Pass a new \
                     directory, or remove this one first",
                    dir.display(),
                    entry.file_name().to_string_lossy()
                );
            }
            Ok(dir.to_path_buf())
        }
        Err(err) if err.kind() == ErrorKind::NotFound => {
            fs::create_dir_all(dir)
                .with_context(|| format!("creating the output directory {}", dir.display()))?;
            Ok(dir.to_path_buf())
        }
        Err(err) if dir.is_file() => Err(err)
            .with_context(|| format!("--output {} is a file, not a directory", dir.display())),
        Err(err) => Err(err).with_context(|| format!("reading --output {}", dir.display())),
    }
}

fn create_timestamped(base: &Path, stamp: &str) -> Result<PathBuf> {
    fs::create_dir_all(base).with_context(|| format!("creating {}", base.display()))?;
    // Two runs started within one second get `-2`, `-3`, ... rather than sharing a directory.
    for attempt in 1..100 {
        let name = if attempt == 1 {
            stamp.to_string()
        } else {
            format!("{stamp}-{attempt}")
        };
        let dir = base.join(name);
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(err) if err.kind() == ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err).with_context(|| format!("creating {}", dir.display())),
        }
    }
    bail!(
        "could not create a fresh run directory under {}",
        base.display()
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A fresh, empty directory under the system temp dir, unique to this test.
    pub(crate) fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create scratch dir");
        dir
    }

    #[test]
    fn an_output_directory_with_files_is_refused() {
        let dir = scratch("output-with-files");
        fs::write(dir.join("log.txt"), "old").unwrap();
        let err = create(Some(&dir), &dir, Utc::from_unix_seconds(0)).unwrap_err();
        assert!(err.to_string().contains("already contains files"), "{err}");
    }

    #[test]
    fn an_empty_or_missing_output_directory_is_used_as_is() {
        let dir = scratch("output-empty");
        let created = create(Some(&dir), &dir, Utc::from_unix_seconds(0)).unwrap();
        assert_eq!(created, fs::canonicalize(&dir).unwrap());
        let missing = dir.join("a/b");
        assert!(create(Some(&missing), &dir, Utc::from_unix_seconds(0)).is_ok());
    }

    #[test]
    fn timestamped_directories_never_collide() {
        let target = scratch("timestamped");
        let now = Utc::from_unix_seconds(1_764_533_700);
        let first = create(None, &target, now).unwrap();
        let second = create(None, &target, now).unwrap();
        assert!(first.ends_with("native-benchmarks/20251130T201500Z"));
        assert!(second.ends_with("native-benchmarks/20251130T201500Z-2"));
    }
}
