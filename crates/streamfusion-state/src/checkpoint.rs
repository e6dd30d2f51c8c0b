//! Atomic, verifiable checkpoints and restore: aligned or rebuilt.
//!
//! A published checkpoint is a directory:
//!
//! ```text
//! <checkpoint>/MANIFEST.json   format, backend kind, tables, every file's size and CRC32
//! <checkpoint>/metadata.bin    the operator's own bytes (watermark, ...)
//! <checkpoint>/data/...        the backend's files
//! ```
//!
//! [`publish`] writes everything into a hidden temporary directory next to the target,
//! syncs every file and directory, and only then renames it to the target and syncs the
//! parent. A crash or error at any point before the rename leaves no target at all (and
//! every earlier checkpoint untouched); a published checkpoint is never overwritten.
//! [`Checkpoint::open`] verifies the manifest before anything is restored: a missing,
//! truncated or corrupted file is an error naming the file, never a partial restore.
//!
//! Restore comes in two modes. *Aligned* adopts one checkpoint's files as they are
//! ([`restore_memory`], [`restore_rocks`]). *Rebuild* ([`rebuild`]) scans a key-group range
//! out of one or more checkpoints into a fresh store: rescaling from two subtasks into one,
//! or one into two, with no key lost or duplicated. For RocksDB, a subtask whose new range
//! lies within one checkpoint can instead adopt it and clip away the other key groups
//! ([`restore_rocks_clipped`]).

use std::fs::File;
use std::io::Read;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::memory::MemoryBackend;
use super::rocks::{RocksBackend, RocksOptions, RocksReader};
use super::ttl::Clock;
use super::{BackendKind, ScanRange, StateBackend};
use crate::error::{Error, Result};

/// The manifest's file name.
pub const MANIFEST_FILE: &str = "MANIFEST.json";
/// The operator metadata's file name.
pub const METADATA_FILE: &str = "metadata.bin";
/// The backend data directory's name.
pub const DATA_DIR: &str = "data";
const FORMAT: u32 = 1;
const TEMP_PREFIX: &str = ".sf-checkpoint-";

/// One file of a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Path relative to the checkpoint directory, `/`-separated.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// CRC32 (IEEE) of the contents.
    pub crc32: u32,
}

/// What a checkpoint holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Manifest format version.
    pub format: u32,
    /// The backend that wrote the data.
    pub backend: BackendKind,
    /// Table names.
    pub tables: Vec<String>,
    /// Every file, `metadata.bin` included.
    pub files: Vec<FileEntry>,
}

/// Publishes a checkpoint of `backend` at `target` with the operator's `metadata`.
pub fn publish(
    backend: &mut dyn StateBackend,
    target: &Path,
    metadata: &[u8],
) -> Result<Checkpoint> {
    let parent = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if target.exists() {
        return Err(Error::Checkpoint {
            path: target.to_path_buf(),
            problem: "already exists; a published checkpoint is never overwritten".into(),
        });
    }
    std::fs::create_dir_all(parent).map_err(Error::io("create", parent))?;
    // Removed on drop: an error below leaves nothing behind.
    let temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempdir_in(parent)
        .map_err(Error::io("create a temporary directory in", parent))?;
    backend.write_checkpoint(&temp.path().join(DATA_DIR))?;
    let metadata_path = temp.path().join(METADATA_FILE);
    std::fs::write(&metadata_path, metadata).map_err(Error::io("write", &metadata_path))?;

    let mut files = vec![describe(temp.path(), METADATA_FILE)?];
    let data = temp.path().join(DATA_DIR);
    let mut names: Vec<String> = std::fs::read_dir(&data)
        .map_err(Error::io("list", &data))?
        .map(|e| {
            e.map_err(Error::io("list", &data))
                .map(|e| e.file_name().to_string_lossy().into_owned())
        })
        .collect::<Result<_>>()?;
    names.sort();
    for name in names {
        files.push(describe(temp.path(), &format!("{DATA_DIR}/{name}"))?);
    }
    let manifest = Manifest {
        format: FORMAT,
        backend: backend.kind(),
        tables: backend.table_names(),
        files,
    };
    let manifest_path = temp.path().join(MANIFEST_FILE);
    let json = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
    std::fs::write(&manifest_path, json).map_err(Error::io("write", &manifest_path))?;
    sync_file(&manifest_path)?;
    sync_dir(&data)?;
    sync_dir(temp.path())?;

    let temp_path = temp.keep();
    if let Err(e) = std::fs::rename(&temp_path, target) {
        let _ = std::fs::remove_dir_all(&temp_path);
        return Err(Error::io("publish", target)(e));
    }
    sync_dir(parent)?;
    Ok(Checkpoint {
        path: target.to_path_buf(),
        manifest,
    })
}

/// Removes temporary directories that interrupted [`publish`] calls left in `parent`.
pub fn remove_abandoned(parent: &Path) -> Result<usize> {
    let mut removed = 0;
    for entry in std::fs::read_dir(parent).map_err(Error::io("list", parent))? {
        let entry = entry.map_err(Error::io("list", parent))?;
        if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            std::fs::remove_dir_all(entry.path()).map_err(Error::io("remove", entry.path()))?;
            removed += 1;
        }
    }
    Ok(removed)
}

fn describe(root: &Path, relative: &str) -> Result<FileEntry> {
    let path = root.join(relative);
    sync_file(&path)?;
    let (size, crc32) = checksum(&path)?;
    Ok(FileEntry {
        path: relative.to_string(),
        size,
        crc32,
    })
}

fn checksum(path: &Path) -> Result<(u64, u32)> {
    let mut file = File::open(path).map_err(Error::io("open", path))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(Error::io("read", path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    Ok((size, hasher.finalize()))
}

fn sync_file(path: &Path) -> Result<()> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(Error::io("sync", path))
}

fn sync_dir(path: &Path) -> Result<()> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(Error::io("sync", path))
}

/// A published, verified checkpoint.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    path: PathBuf,
    manifest: Manifest,
}

impl Checkpoint {
    /// Opens the checkpoint at `path`, verifying every file against its manifest.
    pub fn open(path: &Path) -> Result<Self> {
        let bad = |problem: String| Error::Checkpoint {
            path: path.to_path_buf(),
            problem,
        };
        let manifest_path = path.join(MANIFEST_FILE);
        let json = match std::fs::read(&manifest_path) {
            Ok(json) => json,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(bad(format!(
                    "{MANIFEST_FILE} is missing: not a published checkpoint"
                )));
            }
            Err(e) => return Err(Error::io("read", &manifest_path)(e)),
        };
        let manifest: Manifest = serde_json::from_slice(&json)
            .map_err(|e| bad(format!("{MANIFEST_FILE} is corrupted: {e}")))?;
        if manifest.format != FORMAT {
            return Err(bad(format!("unsupported format {}", manifest.format)));
        }
        for file in &manifest.files {
            let file_path = path.join(&file.path);
            let size = match std::fs::metadata(&file_path) {
                Ok(m) => m.len(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(bad(format!("{} is missing", file.path)));
                }
                Err(e) => return Err(Error::io("inspect", &file_path)(e)),
            };
            if size != file.size {
                return Err(bad(format!(
                    "{} is truncated or altered: {size} bytes, the manifest says {}",
                    file.path, file.size
                )));
            }
            let (_, crc) = checksum(&file_path)?;
            if crc != file.crc32 {
                return Err(bad(format!(
                    "{} is corrupted: CRC32 {crc:08x}, the manifest says {:08x}",
                    file.path, file.crc32
                )));
            }
        }
        Ok(Self {
            path: path.to_path_buf(),
            manifest,
        })
    }

    /// The checkpoint directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The verified manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The operator's metadata bytes.
    pub fn metadata(&self) -> Result<Vec<u8>> {
        let path = self.path.join(METADATA_FILE);
        std::fs::read(&path).map_err(Error::io("read", &path))
    }

    fn data_dir(&self) -> PathBuf {
        self.path.join(DATA_DIR)
    }

    fn expect_backend(&self, kind: BackendKind) -> Result<()> {
        if self.manifest.backend != kind {
            return Err(Error::Checkpoint {
                path: self.path.clone(),
                problem: format!(
                    "written by the {:?} backend, cannot restore it aligned into {kind:?}",
                    self.manifest.backend
                ),
            });
        }
        Ok(())
    }
}

/// Aligned restore of a memory checkpoint.
pub fn restore_memory(checkpoint: &Checkpoint) -> Result<MemoryBackend> {
    checkpoint.expect_backend(BackendKind::Memory)?;
    MemoryBackend::restore(&checkpoint.data_dir())
}

/// Aligned restore of a RocksDB checkpoint into `working` (which must not exist yet), its
/// TTL compaction on `clock`.
pub fn restore_rocks(
    checkpoint: &Checkpoint,
    working: &Path,
    options: &RocksOptions,
    clock: Arc<dyn Clock>,
) -> Result<RocksBackend> {
    checkpoint.expect_backend(BackendKind::Rocksdb)?;
    RocksBackend::restore_aligned(&checkpoint.data_dir(), working, options, clock)
}

/// Restores only `key_groups` of one RocksDB checkpoint, as Flink's RocksDB backend does
/// when one state handle covers a subtask's new range (rescaling out): adopt the files
/// (aligned) into `working`, then delete the key groups outside the range with range
/// deletions. Costs about an aligned restore, whatever the number of entries.
pub fn restore_rocks_clipped(
    checkpoint: &Checkpoint,
    key_groups: &RangeInclusive<u16>,
    working: &Path,
    options: &RocksOptions,
    clock: Arc<dyn Clock>,
) -> Result<RocksBackend> {
    let mut store = restore_rocks(checkpoint, working, options, clock)?;
    store.delete_key_groups_outside(key_groups)?;
    Ok(store)
}

/// What a rebuild copied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RebuildStats {
    /// Entries written into the target.
    pub entries: u64,
}

/// Rebuilds `target`, which must be empty, from the `key_groups` of every source
/// checkpoint (of either backend): every table of every source is scanned over the range and
/// bulk-loaded ([`StateBackend::bulk_loader`]). Sources must own disjoint key groups, as
/// Flink's subtasks do; a key group found in two sources is an error (the partly built
/// target is then to be discarded). RocksDB sources are opened read-only in place, with
/// their info logs written under `scratch`, so checkpoints are only ever read.
pub fn rebuild(
    sources: &[Checkpoint],
    key_groups: &RangeInclusive<u16>,
    target: &mut dyn StateBackend,
    options: &RocksOptions,
    scratch: &Path,
) -> Result<RebuildStats> {
    if !is_empty(target)? {
        return Err(Error::State("a rebuild needs an empty target store".into()));
    }
    std::fs::create_dir_all(scratch).map_err(Error::io("create", scratch))?;
    // RocksDB's info logs of the read-only sources go here, and are removed at the end.
    let scratch = tempfile::tempdir_in(scratch)
        .map_err(Error::io("create a temporary directory in", scratch))?;
    // Which source owns each key group of the range (scans never leave the range).
    let mut owner: Vec<Option<usize>> = vec![None; usize::from(*key_groups.end()) + 1];
    let mut stats = RebuildStats::default();
    for (i, source) in sources.iter().enumerate() {
        let reader = Source::open(source, options, scratch.path())?;
        for (index, name) in reader.table_names().into_iter().enumerate() {
            let to = target.open_table(&name)?;
            let mut loader = target.bulk_loader(to)?;
            let mut failed = None;
            reader.scan(
                super::TableId(index),
                ScanRange::KeyGroups(key_groups),
                &mut |k, v| {
                    let step = claim(&mut owner, k, i, sources).and_then(|()| loader.add(k, v));
                    match step {
                        Ok(()) => true,
                        Err(e) => {
                            failed = Some(e);
                            false
                        }
                    }
                },
            )?;
            if let Some(e) = failed {
                return Err(e);
            }
            stats.entries += loader.finish()?;
        }
    }
    Ok(stats)
}

/// A checkpoint being read by a rebuild or cut into sections ([`super::sections`]).
pub(crate) enum Source {
    Memory(MemoryBackend),
    Rocks(RocksReader),
}

impl Source {
    /// Memory checkpoints are parsed; RocksDB checkpoints are opened read-only in place.
    pub(crate) fn open(
        checkpoint: &Checkpoint,
        options: &RocksOptions,
        scratch: &Path,
    ) -> Result<Self> {
        Ok(match checkpoint.manifest.backend {
            BackendKind::Memory => Source::Memory(restore_memory(checkpoint)?),
            BackendKind::Rocksdb => {
                Source::Rocks(RocksReader::open(&checkpoint.data_dir(), options, scratch)?)
            }
        })
    }

    pub(crate) fn table_names(&self) -> Vec<String> {
        match self {
            Source::Memory(m) => m.table_names(),
            Source::Rocks(r) => r.table_names().to_vec(),
        }
    }

    pub(crate) fn scan(
        &self,
        table: super::TableId,
        range: ScanRange<'_>,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<()> {
        match self {
            Source::Memory(m) => m.scan(table, range, visit),
            Source::Rocks(r) => r.scan(table, range, visit),
        }
    }
}

/// Records that source `i` owns the key group of `key`; another source owning it is an error.
fn claim(owner: &mut [Option<usize>], key: &[u8], i: usize, sources: &[Checkpoint]) -> Result<()> {
    let kg = super::layout::key_group_of(key)?;
    let slot = owner
        .get_mut(usize::from(kg))
        .ok_or_else(|| Error::State(format!("key group {kg} is outside the rebuilt range")))?;
    match *slot {
        Some(other) if other != i => Err(Error::Checkpoint {
            path: sources[i].path.clone(),
            problem: format!(
                "key group {kg} is also in {}: sources must own disjoint key groups",
                sources[other].path.display()
            ),
        }),
        _ => {
            *slot = Some(i);
            Ok(())
        }
    }
}

fn is_empty(store: &dyn StateBackend) -> Result<bool> {
    let mut empty = true;
    for index in 0..store.table_names().len() {
        store.scan(super::TableId(index), ScanRange::All, &mut |_, _| {
            empty = false;
            false
        })?;
    }
    Ok(empty)
}
