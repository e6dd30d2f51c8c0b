//! File-system helpers of the JVM preparation: listing, removing, atomic writes and locks.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::walk;

/// Files named `*.<extension>` under `dir` and its subdirectories, sorted; none when `dir`
/// does not exist. Symbolic links to directories are not followed.
pub fn find_recursive(dir: &Path, extension: &str) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    walk::files(dir, |_, path, _| {
        if path.extension().is_some_and(|e| e == extension) {
            found.push(path);
        }
    })?;
    found.sort();
    Ok(found)
}

/// Files named `*.<extension>` directly in `dir`, sorted; none when `dir` does not exist.
pub fn find_flat(dir: &Path, extension: &str) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err).with_context(|| format!("listing {}", dir.display())),
    };
    let mut found = Vec::new();
    for entry in entries {
        let path = entry
            .with_context(|| format!("listing {}", dir.display()))?
            .path();
        if path.is_file() && path.extension().is_some_and(|e| e == extension) {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// Removes a file, link or directory tree; nothing to remove is fine.
pub fn remove(path: &Path) -> Result<()> {
    let removed = match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(()),
        Err(err) => Err(err),
    };
    removed.with_context(|| format!("removing {}", path.display()))
}

/// Renames the finished directory `built` to `target`; if another process published
/// `target` first (the same contents), `built` is removed instead.
pub fn publish_dir(built: &Path, target: &Path) -> Result<()> {
    match fs::rename(built, target) {
        Ok(()) => Ok(()),
        Err(_) if target.is_dir() => remove(built),
        Err(err) => Err(err)
            .with_context(|| format!("renaming {} to {}", built.display(), target.display())),
    }
}

/// Removes the entries of `dir` named `prefix` or `prefix-*`, other than `keep`, not modified
/// for `age` (an entry still in use by a concurrent reader is recent).
pub fn remove_stale(dir: &Path, prefix: &str, keep: &Path, age: std::time::Duration) -> Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(err).with_context(|| format!("reading {}", dir.display())),
    };
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = name == prefix || name.starts_with(&format!("{prefix}-"));
        if !ours || path == keep {
            continue;
        }
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .map(|modified| modified.elapsed().unwrap_or_default() >= age)
            .unwrap_or(false);
        if stale {
            remove(&path)?;
        }
    }
    Ok(())
}

/// Writes `contents` to a sibling temporary file and renames it over `path`, so readers see
/// the old contents or the new, never a part.
pub fn write_atomically(path: &Path, contents: &str) -> Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".tmp-{}", std::process::id()));
    let temporary = PathBuf::from(temporary);
    fs::write(&temporary, contents).with_context(|| format!("writing {}", temporary.display()))?;
    fs::rename(&temporary, path)
        .with_context(|| format!("renaming {} to {}", temporary.display(), path.display()))
}

/// Takes an exclusive advisory lock on `path` (created if needed), waiting for another xtask
/// that holds it; released when the returned file is dropped.
pub fn lock_exclusive(path: &Path, purpose: &str) -> Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .with_context(|| format!("opening the lock file {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            eprintln!(
                "xtask: waiting for another xtask that is {purpose} (lock {})",
                path.display()
            );
            file.lock()
                .with_context(|| format!("locking {}", path.display()))?;
        }
        Err(TryLockError::Error(err)) => {
            return Err(err).with_context(|| format!("locking {}", path.display()));
        }
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rundir::tests::scratch;

    #[test]
    fn published_directories_are_kept_and_only_stale_siblings_removed() {
        let dir = scratch("publish");
        let current = dir.join("classes-1");
        for _ in 0..2 {
            // The second publication finds it done (as a concurrent xtask would).
            let built = dir.join("building-1");
            fs::create_dir_all(&built).unwrap();
            fs::write(built.join("A.class"), "a").unwrap();
            publish_dir(&built, &current).unwrap();
            assert!(!built.exists());
        }
        assert_eq!(fs::read_to_string(current.join("A.class")).unwrap(), "a");
        for other in ["classes", "classes-2", "kept-elsewhere"] {
            fs::create_dir_all(dir.join(other)).unwrap();
        }
        let day = std::time::Duration::from_secs(86_400);
        remove_stale(&dir, "classes", &current, day).unwrap();
        assert!(dir.join("classes-2").exists(), "recent: kept");
        remove_stale(&dir, "classes", &current, std::time::Duration::ZERO).unwrap();
        assert!(!dir.join("classes").exists() && !dir.join("classes-2").exists());
        assert!(current.exists() && dir.join("kept-elsewhere").exists());
    }

    #[test]
    fn sources_are_found_in_subdirectories_and_sorted() {
        let dir = scratch("jvm-find");
        let package = dir.join("org/streamfusion/oracle");
        fs::create_dir_all(&package).unwrap();
        fs::write(package.join("Keys.java"), "").unwrap();
        fs::write(dir.join("org/streamfusion/A.java"), "").unwrap();
        fs::write(dir.join("org/streamfusion/notes.txt"), "").unwrap();
        let found = find_recursive(&dir, "java").unwrap();
        assert_eq!(
            found,
            vec![
                dir.join("org/streamfusion/A.java"),
                package.join("Keys.java")
            ]
        );
        assert!(find_flat(&dir, "java").unwrap().is_empty());
        assert!(
            find_recursive(&dir.join("missing"), "java")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn an_atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = scratch("jvm-atomic");
        let path = dir.join("classpath.txt");
        write_atomically(&path, "old\n").unwrap();
        write_atomically(&path, "new\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        remove(&path).unwrap();
        remove(&path).unwrap();
        assert!(!path.exists());
    }
}
