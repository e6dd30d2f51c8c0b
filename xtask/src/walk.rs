//! Walking a directory tree without following symbolic links.

use std::fs::{self, FileType};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Calls `visit(dir, path, file_type)` for every entry below `root` that is not a directory
/// (symbolic links included, never followed). A directory that does not exist is skipped.
pub fn files(root: &Path, mut visit: impl FnMut(&Path, PathBuf, FileType)) -> Result<()> {
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == ErrorKind::NotFound => continue,
            Err(err) => return Err(err).with_context(|| format!("listing {}", dir.display())),
        };
        for entry in entries {
            let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
            // `file_type` does not follow symlinks, so a link cannot make the walk loop.
            let file_type = entry
                .file_type()
                .with_context(|| format!("inspecting {}", entry.path().display()))?;
            let path = entry.path();
            if file_type.is_dir() {
                pending.push(path);
            } else {
                visit(&dir, path, file_type);
            }
        }
    }
    Ok(())
}
