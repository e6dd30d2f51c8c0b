//! How a subtask's state comes back from checkpoints: the aligned / clipped / rebuilt
//! choice ([`choose`], a pure function), and the stores it opens ([`StateConfig`]).
//!
//! Flink hands a restoring subtask the state handles of every old subtask whose key groups
//! overlap its new range. The choice is Flink's RocksDB backend's:
//!
//! - **aligned**: one checkpoint covers exactly the new range on the same backend: its files
//!   are adopted as they are (the cheapest restore);
//! - **clipped**: one RocksDB checkpoint covers more than the new range (rescaling out): its
//!   files are adopted and the key groups outside the range deleted with range deletions;
//! - **rebuilt**: anything else (rescaling in, a change of backend, a memory checkpoint
//!   covering more): the range is scanned out of every overlapping checkpoint into a fresh
//!   store.
//!
//! Checkpoints must own disjoint key groups and together cover the new range: a key group
//! in two checkpoints, or in none, is an error rather than state silently doubled or lost.

use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::state::budget::MemoryBudget;
use crate::state::checkpoint::{self, Checkpoint};
use crate::state::memory::MemoryBackend;
use crate::state::rocks::{RocksBackend, RocksOptions};
use crate::state::ttl::{Clock, SystemClock};
use crate::state::{BackendKind, StateBackend};

/// How a subtask's state is restored; indices name the checkpoints passed to [`choose`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreStrategy {
    /// No checkpoint: an empty store.
    Fresh,
    /// Adopt checkpoint `source` as it is.
    Aligned {
        /// The checkpoint adopted.
        source: usize,
    },
    /// Adopt RocksDB checkpoint `source` and delete the key groups outside the range.
    Clipped {
        /// The checkpoint adopted.
        source: usize,
    },
    /// Scan the range out of `sources` into a fresh store.
    Rebuilt {
        /// The checkpoints that overlap the range, in the order given.
        sources: Vec<usize>,
    },
}

/// Chooses how a `backend` store for key groups `target` is restored from checkpoints that
/// were written by `sources` (each: its backend and the key groups it owned).
pub fn choose(
    backend: BackendKind,
    target: &RangeInclusive<u16>,
    sources: &[(BackendKind, RangeInclusive<u16>)],
) -> Result<RestoreStrategy> {
    if target.is_empty() {
        return Err(Error::OutOfRange(format!(
            "key groups {target:?} are not a range"
        )));
    }
    if sources.is_empty() {
        return Ok(RestoreStrategy::Fresh);
    }
    for (i, (_, a)) in sources.iter().enumerate() {
        for (j, (_, b)) in sources.iter().enumerate().skip(i + 1) {
            if overlap(a, b) {
                return Err(Error::State(format!(
                    "checkpoints {i} (key groups {a:?}) and {j} (key groups {b:?}) \
                     both hold key groups {:?}",
                    a.start().max(b.start())..=a.end().min(b.end())
                )));
            }
        }
    }
    let mut relevant: Vec<usize> = (0..sources.len())
        .filter(|&i| overlap(&sources[i].1, target))
        .collect();
    // Coverage: walk the range in key-group order over the overlapping sources.
    relevant.sort_by_key(|&i| *sources[i].1.start());
    let mut next = u32::from(*target.start());
    for &i in &relevant {
        let range = &sources[i].1;
        if u32::from(*range.start()) > next {
            break;
        }
        next = next.max(u32::from(*range.end()) + 1);
    }
    if next <= u32::from(*target.end()) {
        return Err(Error::State(format!(
            "key group {next} of the restored range {target:?} is in none of the {} \
             checkpoint(s); every key group must be restored from exactly one",
            sources.len()
        )));
    }
    relevant.sort_unstable();
    if let [source] = relevant[..] {
        let (kind, range) = &sources[source];
        if *kind == backend && range == target {
            return Ok(RestoreStrategy::Aligned { source });
        }
        if *kind == BackendKind::Rocksdb && backend == BackendKind::Rocksdb {
            return Ok(RestoreStrategy::Clipped { source });
        }
    }
    Ok(RestoreStrategy::Rebuilt { sources: relevant })
}

fn overlap(a: &RangeInclusive<u16>, b: &RangeInclusive<u16>) -> bool {
    a.start() <= b.end() && b.start() <= a.end()
}

/// Where and how an operator keeps its keyed state.
#[derive(Debug, Clone)]
pub struct StateConfig {
    /// The backend.
    pub backend: BackendKind,
    /// A directory the operator owns: RocksDB's working store and restore scratch space
    /// live under it. Unused by a memory store.
    pub working_dir: PathBuf,
    /// RocksDB's options.
    pub rocks: RocksOptions,
    /// The task's memory budget, if any: a memory store counts its entries against it, a
    /// RocksDB store reserves `rocks_bytes` for its caches.
    pub budget: Option<StateBudget>,
    /// The processing-time clock (state TTL).
    pub clock: Arc<dyn Clock>,
    /// Rebuild on restore even where a checkpoint's files could be adopted (aligned or
    /// clipped): a store compacted to its live entries, and how suites measure a rebuild.
    pub always_rebuild: bool,
}

/// A memory budget and what a RocksDB store reserves in it.
#[derive(Debug, Clone)]
pub struct StateBudget {
    /// The task's budget.
    pub budget: MemoryBudget,
    /// The bytes a RocksDB store reserves for its block cache and memtables.
    pub rocks_bytes: u64,
}

impl StateConfig {
    /// A memory store on the system clock, without a budget.
    pub fn memory() -> Self {
        Self {
            backend: BackendKind::Memory,
            working_dir: std::env::temp_dir(),
            rocks: RocksOptions::checked_in(),
            budget: None,
            clock: Arc::new(SystemClock),
            always_rebuild: false,
        }
    }

    /// A RocksDB store under `working_dir` with the checked-in options, on the system clock.
    pub fn rocksdb(working_dir: impl Into<PathBuf>) -> Self {
        Self {
            backend: BackendKind::Rocksdb,
            working_dir: working_dir.into(),
            ..Self::memory()
        }
    }

    /// The same configuration on `clock`.
    pub fn with_clock(self, clock: Arc<dyn Clock>) -> Self {
        Self { clock, ..self }
    }

    fn store_dir(&self) -> PathBuf {
        self.working_dir.join("db")
    }

    /// A fresh, empty store; a RocksDB store is created in `<working_dir>/db`, which must
    /// not hold one yet.
    pub fn open(&self, holder: &str) -> Result<Box<dyn StateBackend>> {
        Ok(match self.backend {
            BackendKind::Memory => match &self.budget {
                Some(b) => Box::new(MemoryBackend::with_budget(&b.budget, holder)?),
                None => Box::new(MemoryBackend::new()),
            },
            BackendKind::Rocksdb => {
                let dir = self.store_dir();
                if dir.exists() {
                    return Err(Error::State(format!(
                        "{} already holds a store; each operator needs its own working \
                         directory",
                        dir.display()
                    )));
                }
                std::fs::create_dir_all(&self.working_dir)
                    .map_err(Error::io("create", &self.working_dir))?;
                Box::new(self.open_rocks()?)
            }
        })
    }

    fn open_rocks(&self) -> Result<RocksBackend> {
        let dir = self.store_dir();
        match &self.budget {
            Some(b) => {
                RocksBackend::open_in_budget(&dir, &self.rocks, &b.budget, "rocksdb", b.rocks_bytes)
            }
            None => RocksBackend::open_with_clock(&dir, &self.rocks, self.clock.clone()),
        }
    }

    /// What [`choose`] picks for this configuration, with [`StateConfig::always_rebuild`]
    /// applied.
    pub fn strategy(
        &self,
        target: &RangeInclusive<u16>,
        sources: &[(BackendKind, RangeInclusive<u16>)],
    ) -> Result<RestoreStrategy> {
        Ok(match choose(self.backend, target, sources)? {
            RestoreStrategy::Aligned { source } | RestoreStrategy::Clipped { source }
                if self.always_rebuild =>
            {
                RestoreStrategy::Rebuilt {
                    sources: vec![source],
                }
            }
            other => other,
        })
    }

    /// The store `strategy` restores from `checkpoints` for `key_groups`.
    pub fn restore(
        &self,
        holder: &str,
        strategy: &RestoreStrategy,
        checkpoints: &[Checkpoint],
        key_groups: &RangeInclusive<u16>,
    ) -> Result<Box<dyn StateBackend>> {
        let working = self.store_dir();
        if self.backend == BackendKind::Rocksdb {
            std::fs::create_dir_all(&self.working_dir)
                .map_err(Error::io("create", &self.working_dir))?;
        }
        Ok(match strategy {
            RestoreStrategy::Fresh => self.open(holder)?,
            RestoreStrategy::Aligned { source } => {
                let checkpoint = &checkpoints[*source];
                match self.backend {
                    BackendKind::Memory => {
                        let store = checkpoint::restore_memory(checkpoint)?;
                        match &self.budget {
                            Some(b) => Box::new(store.within_budget(&b.budget, holder)?),
                            None => Box::new(store),
                        }
                    }
                    BackendKind::Rocksdb => Box::new(checkpoint::restore_rocks(
                        checkpoint,
                        &working,
                        &self.rocks,
                        self.clock.clone(),
                    )?),
                }
            }
            RestoreStrategy::Clipped { source } => Box::new(checkpoint::restore_rocks_clipped(
                &checkpoints[*source],
                key_groups,
                &working,
                &self.rocks,
                self.clock.clone(),
            )?),
            RestoreStrategy::Rebuilt { sources } => {
                let mut target = self.open(holder)?;
                let sources: Vec<Checkpoint> =
                    sources.iter().map(|&i| checkpoints[i].clone()).collect();
                checkpoint::rebuild(
                    &sources,
                    key_groups,
                    target.as_mut(),
                    &self.rocks,
                    &self.working_dir.join("scratch"),
                )?;
                target
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BackendKind::{Memory, Rocksdb};

    #[test]
    fn one_checkpoint_of_the_same_range_and_backend_is_adopted() {
        assert_eq!(
            choose(Memory, &(0..=127), &[]).unwrap(),
            RestoreStrategy::Fresh
        );
        assert_eq!(
            choose(Rocksdb, &(0..=127), &[(Rocksdb, 0..=127)]).unwrap(),
            RestoreStrategy::Aligned { source: 0 }
        );
        assert_eq!(
            choose(Memory, &(64..=127), &[(Memory, 0..=63), (Memory, 64..=127)]).unwrap(),
            RestoreStrategy::Aligned { source: 1 }
        );
    }

    #[test]
    fn scaling_out_clips_rocksdb_and_rebuilds_memory() {
        assert_eq!(
            choose(Rocksdb, &(0..=63), &[(Rocksdb, 0..=127)]).unwrap(),
            RestoreStrategy::Clipped { source: 0 }
        );
        assert_eq!(
            choose(Memory, &(0..=63), &[(Memory, 0..=127)]).unwrap(),
            RestoreStrategy::Rebuilt { sources: vec![0] }
        );
    }

    #[test]
    fn scaling_in_or_changing_backend_rebuilds_from_the_overlapping_checkpoints() {
        assert_eq!(
            choose(
                Rocksdb,
                &(0..=127),
                &[(Rocksdb, 64..=127), (Rocksdb, 0..=63)]
            )
            .unwrap(),
            RestoreStrategy::Rebuilt {
                sources: vec![0, 1]
            }
        );
        assert_eq!(
            choose(Rocksdb, &(0..=127), &[(Memory, 0..=127)]).unwrap(),
            RestoreStrategy::Rebuilt { sources: vec![0] }
        );
        assert_eq!(
            choose(Memory, &(0..=127), &[(Rocksdb, 0..=127)]).unwrap(),
            RestoreStrategy::Rebuilt { sources: vec![0] }
        );
        // 1 -> 3: the middle subtask takes part of both old halves.
        assert_eq!(
            choose(
                Memory,
                &(43..=85),
                &[(Memory, 0..=63), (Memory, 64..=127), (Memory, 200..=255)]
            )
            .unwrap(),
            RestoreStrategy::Rebuilt {
                sources: vec![0, 1]
            }
        );
    }

    #[test]
    fn overlapping_or_missing_key_groups_are_errors() {
        let err = choose(Memory, &(0..=127), &[(Memory, 0..=70), (Memory, 64..=127)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("both hold key groups 64..=70"), "{err}");
        let err = choose(Memory, &(0..=127), &[(Memory, 0..=63), (Memory, 65..=127)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("key group 64 "), "{err}");
        let err = choose(Memory, &(0..=127), &[(Memory, 0..=100)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("key group 101 "), "{err}");
    }

    /// The choice against a brute-force model: every key group of the target is restored
    /// from exactly one checkpoint, and nothing outside it is adopted whole.
    #[test]
    fn the_choice_restores_each_key_group_from_its_one_owner() {
        let mut seed = 0x5EED_F11C_u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..2000 {
            // Split 0..=31 into contiguous owners, as subtasks of some parallelism do.
            let mut sources = Vec::new();
            let mut start = 0u16;
            while start <= 31 {
                let end = (start + next(12) as u16).min(31);
                let kind = if next(2) == 0 { Memory } else { Rocksdb };
                sources.push((kind, start..=end));
                start = end + 1;
            }
            let a = next(32) as u16;
            let b = next(32) as u16;
            let target = a.min(b)..=a.max(b);
            let backend = if next(2) == 0 { Memory } else { Rocksdb };
            let owners: Vec<usize> = (0..sources.len())
                .filter(|&i| overlap(&sources[i].1, &target))
                .collect();
            match choose(backend, &target, &sources).unwrap() {
                RestoreStrategy::Aligned { source } => {
                    assert_eq!(owners, [source]);
                    assert_eq!(sources[source], (backend, target.clone()));
                }
                RestoreStrategy::Clipped { source } => {
                    assert_eq!(owners, [source]);
                    assert_eq!((sources[source].0, backend), (Rocksdb, Rocksdb));
                }
                RestoreStrategy::Rebuilt { sources: s } => assert_eq!(s, owners),
                RestoreStrategy::Fresh => unreachable!("checkpoints were given"),
            }
        }
    }
}
