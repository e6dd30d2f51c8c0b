//! The keyed driver: what every keyed operator shares, written once.
//!
//! [`Keyed`] owns the state store, the key groups the subtask owns, the watermark (stored
//! in every checkpoint's metadata, restored as [`RestoredWatermark`] says), event- and
//! processing-time timers
//! kept in state (so they are checkpointed and rescaled with their key groups), and the
//! processing-time clock that state TTL reads. It turns key columns into state keys (Flink
//! key rows behind their key group), refusing rows of key groups the subtask does not own,
//! and it writes and restores checkpoints with [`OperatorMetadata`]. [`MiniBatch`] is
//! mini-batch buffering.
//!
//! An operator holds a `Keyed` and reads and writes its own tables through
//! [`Keyed::store_mut`]; the backend is the store's business.

use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch};

use super::metadata::{OperatorMetadata, PlanIdentity};
use super::restore::{self, StateConfig};
use crate::binary_row::BinaryRows;
use crate::error::{Error, Incompatibility, Result};
use crate::keys::KeyHasher;
use crate::state::checkpoint::{self, Checkpoint};
use crate::state::layout::key_group;
use crate::state::rows::Groups;
use crate::state::timers::{Timer, Timers};
use crate::state::ttl::{Clock, StateTtl, SystemClock};
use crate::state::{BackendKind, StateBackend, TableId};

const EVENT_TIMERS: &str = "timers:event";
const PROCESSING_TIMERS: &str = "timers:processing";

/// A keyed operator's state store, key groups, watermark, timers and clock.
pub struct Keyed {
    store: Box<dyn StateBackend>,
    key_groups: RangeInclusive<u16>,
    max_parallelism: u32,
    watermark: Option<i64>,
    clock: Arc<dyn Clock>,
    event_timers: Option<Timers>,
    /// No event timer lies before this time (all earlier ones fired); `None` when unknown.
    event_timer_floor: Option<i64>,
    processing_timers: Option<Timers>,
    /// No processing-time timer lies before this time (all earlier ones fired).
    processing_timer_floor: Option<i64>,
    /// The earliest processing-time timer, once known (`Some(None)`: there is none).
    next_processing_timer: Option<Option<i64>>,
}

impl std::fmt::Debug for Keyed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyed")
            .field("backend", &self.store.kind())
            .field("key_groups", &self.key_groups)
            .field("max_parallelism", &self.max_parallelism)
            .field("watermark", &self.watermark)
            .finish_non_exhaustive()
    }
}

/// The watermark of a restored operator, as the Flink operator it replaces has it after a
/// restore (decision 0030).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestoredWatermark {
    /// None until the next watermark arrives: a `KeyedProcessOperator`'s timer service does
    /// not checkpoint its watermark and restarts at `Long.MIN_VALUE`, so a row behind the
    /// old watermark is not late until a new one passes it (OVER, deduplication, Top-N,
    /// the event-time sort, GROUP BY).
    Unset,
    /// The lowest watermark of the restored checkpoints: `WindowAggOperator` keeps its
    /// watermark in union list state and restores the minimum into its timer service.
    Lowest,
}

/// Every key group of `max_parallelism`.
pub fn all_key_groups(max_parallelism: u32) -> Result<RangeInclusive<u16>> {
    if max_parallelism == 0 {
        return Err(Error::OutOfRange(
            "max parallelism must be at least 1".into(),
        ));
    }
    Ok(0..=key_group(max_parallelism - 1)?)
}

impl Keyed {
    /// A driver over `store` owning every key group of `max_parallelism`, on `clock`.
    pub fn new(
        store: Box<dyn StateBackend>,
        max_parallelism: u32,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        let key_groups = all_key_groups(max_parallelism)?;
        Self::with_key_groups(store, max_parallelism, key_groups, clock)
    }

    /// A driver over `store` owning `key_groups` of `max_parallelism`.
    pub fn with_key_groups(
        store: Box<dyn StateBackend>,
        max_parallelism: u32,
        key_groups: RangeInclusive<u16>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        let all = all_key_groups(max_parallelism)?;
        if key_groups.is_empty() || key_groups.end() > all.end() {
            return Err(Error::OutOfRange(format!(
                "key groups {key_groups:?} are not a range within {all:?} (max parallelism \
                 {max_parallelism})"
            )));
        }
        Ok(Self {
            store,
            key_groups,
            max_parallelism,
            watermark: None,
            clock,
            event_timers: None,
            event_timer_floor: None,
            processing_timers: None,
            processing_timer_floor: None,
            next_processing_timer: None,
        })
    }

    /// A driver over a fresh store of `config` owning `key_groups`.
    pub fn open(
        config: &StateConfig,
        holder: &str,
        max_parallelism: u32,
        key_groups: RangeInclusive<u16>,
    ) -> Result<Self> {
        let store = config.open(holder)?;
        Self::with_key_groups(store, max_parallelism, key_groups, config.clock.clone())
    }

    /// A driver owning `key_groups`, restored from `checkpoints` (those of every old subtask
    /// whose key groups overlap; others are ignored) for the plan `identity`: each
    /// checkpoint must have been written for it, with the same max parallelism. The
    /// watermark is set as `watermark` says ([`RestoredWatermark::Lowest`]: the lowest of
    /// the overlapping checkpoints').
    pub fn restore(
        config: &StateConfig,
        holder: &str,
        identity: &PlanIdentity,
        max_parallelism: u32,
        key_groups: RangeInclusive<u16>,
        checkpoints: &[Checkpoint],
        watermark: RestoredWatermark,
    ) -> Result<Self> {
        let mut sources = Vec::with_capacity(checkpoints.len());
        let mut metas = Vec::with_capacity(checkpoints.len());
        for c in checkpoints {
            let meta = OperatorMetadata::read_for(c, identity)?;
            let incompatible = |what: String| Error::IncompatibleCheckpoint {
                path: c.path().to_path_buf(),
                problem: Incompatibility::Metadata(what),
            };
            let (Some(range), Some(stored)) = (meta.key_group_range(), meta.max_parallelism) else {
                return Err(incompatible("it holds no keyed state".into()));
            };
            if stored != max_parallelism {
                return Err(Error::IncompatibleCheckpoint {
                    path: c.path().to_path_buf(),
                    problem: Incompatibility::Plan {
                        differences: vec![format!(
                            "max_parallelism: checkpoint {stored}, plan {max_parallelism}"
                        )],
                    },
                });
            }
            sources.push((c.manifest().backend, range));
            metas.push(meta);
        }
        let strategy = config.strategy(&key_groups, &sources)?;
        let used: Vec<usize> = match &strategy {
            restore::RestoreStrategy::Fresh => Vec::new(),
            restore::RestoreStrategy::Aligned { source }
            | restore::RestoreStrategy::Clipped { source } => vec![*source],
            restore::RestoreStrategy::Rebuilt { sources } => sources.clone(),
        };
        let store = config.restore(holder, &strategy, checkpoints, &key_groups)?;
        let mut keyed =
            Self::with_key_groups(store, max_parallelism, key_groups, config.clock.clone())?;
        keyed.watermark = match watermark {
            RestoredWatermark::Unset => None,
            RestoredWatermark::Lowest => used.iter().filter_map(|&i| metas[i].watermark).min(),
        };
        Ok(keyed)
    }

    /// The state store.
    pub fn store(&self) -> &dyn StateBackend {
        self.store.as_ref()
    }

    /// The state store, to open, read and write tables.
    pub fn store_mut(&mut self) -> &mut dyn StateBackend {
        self.store.as_mut()
    }

    /// Which backend the store is.
    pub fn backend(&self) -> BackendKind {
        self.store.kind()
    }

    /// The key groups this subtask owns.
    pub fn key_groups(&self) -> &RangeInclusive<u16> {
        &self.key_groups
    }

    /// The job's max parallelism.
    pub fn max_parallelism(&self) -> u32 {
        self.max_parallelism
    }

    /// The processing-time clock.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// The watermark; `None` before the first.
    pub fn watermark(&self) -> Option<i64> {
        self.watermark
    }

    /// Moves the watermark to `watermark` if that is later; whether it moved.
    pub fn advance_watermark(&mut self, watermark: i64) -> bool {
        if self.watermark.is_some_and(|w| w >= watermark) {
            return false;
        }
        self.watermark = Some(watermark);
        true
    }

    /// Every row's state key, `[key group][key row]`, and key hash for the `rows` rows of
    /// `key_columns` ([`crate::keys::state_keys`]); a row of a key group this subtask does
    /// not own is an error.
    pub fn state_keys(
        &self,
        hasher: &KeyHasher,
        key_columns: &[ArrayRef],
        rows: usize,
    ) -> Result<(BinaryRows, Vec<i32>)> {
        crate::keys::state_keys(
            hasher,
            key_columns,
            rows,
            self.max_parallelism,
            &self.key_groups,
        )
    }

    /// The rows of `batch` grouped by their state keys over columns `keys`
    /// ([`Keyed::state_keys`], [`Groups::of`]): the groups, and each row's group.
    pub fn groups(
        &self,
        hasher: &KeyHasher,
        batch: &RecordBatch,
        keys: &[usize],
    ) -> Result<(Groups, Vec<u32>)> {
        let columns: Vec<ArrayRef> = keys.iter().map(|&k| batch.column(k).clone()).collect();
        let (keys, hashes) = self.state_keys(hasher, &columns, batch.num_rows())?;
        Ok(Groups::of(keys, hashes))
    }

    /// Every group's value in `table`, read in `order` (slots of `groups`) with one batched
    /// read; with `ttl`, an expired value is none.
    pub fn read_groups(
        &self,
        table: TableId,
        groups: &Groups,
        order: &[u32],
        ttl: Option<&StateTtl>,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        let keys: Vec<&[u8]> = order.iter().map(|&s| groups.key(s as usize)).collect();
        let mut values: Vec<Option<Vec<u8>>> = vec![None; groups.len()];
        self.store.multi_get_each(table, &keys, &mut |i, value| {
            let Some(stored) = value else { return Ok(()) };
            let value = match ttl {
                Some(ttl) => ttl.unwrap(stored)?,
                None => Some(stored),
            };
            values[order[i] as usize] = value.map(<[u8]>::to_vec);
            Ok(())
        })?;
        Ok(values)
    }

    fn timers(&mut self, event: bool) -> Result<Timers> {
        let (slot, name) = if event {
            (&mut self.event_timers, EVENT_TIMERS)
        } else {
            (&mut self.processing_timers, PROCESSING_TIMERS)
        };
        match slot {
            Some(t) => Ok(*t),
            None => {
                let t = Timers::open(self.store.as_mut(), name)?;
                *slot = Some(t);
                Ok(t)
            }
        }
    }

    /// Registers an event-time timer at `timestamp` for `key` (a state key's key row) and
    /// `namespace` in `key_group`; registering it twice is idempotent.
    pub fn register_event_timer(
        &mut self,
        key_group: u16,
        timestamp: i64,
        key: &[u8],
        namespace: &[u8],
    ) -> Result<()> {
        self.register(true, key_group, timestamp, key, namespace)
    }

    /// Registers a processing-time timer, as [`Keyed::register_event_timer`].
    pub fn register_processing_timer(
        &mut self,
        key_group: u16,
        timestamp: i64,
        key: &[u8],
        namespace: &[u8],
    ) -> Result<()> {
        self.register(false, key_group, timestamp, key, namespace)
    }

    fn register(
        &mut self,
        event: bool,
        key_group: u16,
        timestamp: i64,
        key: &[u8],
        namespace: &[u8],
    ) -> Result<()> {
        self.write_timers(event, true, [(key_group, timestamp, key, namespace)])
    }

    /// A timer at `timestamp` is (about to be) registered in the `event` or processing-time
    /// domain: the floor may only go down, and it may be the earliest.
    fn lower_timer_floor(&mut self, event: bool, timestamp: i64) {
        let floor = if event {
            &mut self.event_timer_floor
        } else {
            if let Some(next) = &mut self.next_processing_timer {
                *next = Some(next.map_or(timestamp, |n| n.min(timestamp)));
            }
            &mut self.processing_timer_floor
        };
        if let Some(floor) = floor {
            *floor = (*floor).min(timestamp);
        }
    }

    /// Registers event-time timers `(key group, timestamp, key, namespace)` with one write.
    pub fn register_event_timers<'k, N: AsRef<[u8]>>(
        &mut self,
        timers: impl IntoIterator<Item = (u16, i64, &'k [u8], N)>,
    ) -> Result<()> {
        self.write_timers(true, true, timers)
    }

    /// Registers processing-time timers, as [`Keyed::register_event_timers`].
    pub fn register_processing_timers<'k, N: AsRef<[u8]>>(
        &mut self,
        timers: impl IntoIterator<Item = (u16, i64, &'k [u8], N)>,
    ) -> Result<()> {
        self.write_timers(false, true, timers)
    }

    /// Deletes event-time timers `(key group, timestamp, key, namespace)` with one write; a
    /// timer not registered is no error.
    pub fn delete_event_timers<'k, N: AsRef<[u8]>>(
        &mut self,
        timers: impl IntoIterator<Item = (u16, i64, &'k [u8], N)>,
    ) -> Result<()> {
        self.write_timers(true, false, timers)
    }

    /// Deletes processing-time timers, as [`Keyed::delete_event_timers`]. The earliest timer
    /// kept for [`Keyed::next_processing_timer`] may then be one deleted: the host calls
    /// back at it, and nothing fires.
    pub fn delete_processing_timers<'k, N: AsRef<[u8]>>(
        &mut self,
        timers: impl IntoIterator<Item = (u16, i64, &'k [u8], N)>,
    ) -> Result<()> {
        self.write_timers(false, false, timers)
    }

    /// Registers (or deletes) `event`- or processing-time timers with one write.
    fn write_timers<'k, N: AsRef<[u8]>>(
        &mut self,
        event: bool,
        register: bool,
        timers: impl IntoIterator<Item = (u16, i64, &'k [u8], N)>,
    ) -> Result<()> {
        let table = self.timers(event)?;
        let mut batch = crate::state::WriteBatch::new();
        for (key_group, timestamp, key, namespace) in timers {
            let namespace = namespace.as_ref();
            if register {
                table.register(&mut batch, key_group, timestamp, key, namespace);
                self.lower_timer_floor(event, timestamp);
            } else {
                table.delete(&mut batch, key_group, timestamp, key, namespace);
            }
        }
        if batch.is_empty() {
            return Ok(());
        }
        self.store.write(&batch)
    }

    /// Removes and returns the event-time timers at or before the watermark, in firing
    /// order (timestamp, then key group, then key); none before the first watermark. Each
    /// key group is scanned from the last watermark that fired (lowered by timers registered
    /// since), not from its start: on RocksDB the fired timers' tombstones lie there.
    pub fn fire_event_timers(&mut self) -> Result<Vec<Timer>> {
        let Some(watermark) = self.watermark else {
            return Ok(Vec::new());
        };
        let timers = self.timers(true)?;
        let fired = timers.fire(
            self.store.as_mut(),
            &self.key_groups,
            self.event_timer_floor,
            watermark,
        )?;
        self.event_timer_floor = Some(watermark.saturating_add(1));
        Ok(fired)
    }

    /// Removes and returns the processing-time timers at or before `time`, in firing order,
    /// each key group scanned from the last time that fired (as event timers are).
    pub fn fire_processing_timers(&mut self, time: i64) -> Result<Vec<Timer>> {
        let timers = self.timers(false)?;
        let fired = timers.fire(
            self.store.as_mut(),
            &self.key_groups,
            self.processing_timer_floor,
            time,
        )?;
        let floor = time.saturating_add(1);
        if self.processing_timer_floor.is_none_or(|f| f < floor) {
            self.processing_timer_floor = Some(floor);
            self.next_processing_timer = None;
        }
        Ok(fired)
    }

    /// When the earliest processing-time timer is due, `None` without any: the time a host
    /// must call back at ([`super::Operator::on_processing_time`]). Read from state once,
    /// then kept as timers are registered and fired.
    pub fn next_processing_timer(&mut self) -> Result<Option<i64>> {
        if let Some(next) = self.next_processing_timer {
            return Ok(next);
        }
        let timers = self.timers(false)?;
        let next = timers.earliest(
            self.store.as_ref(),
            &self.key_groups,
            self.processing_timer_floor,
        )?;
        self.next_processing_timer = Some(next);
        Ok(next)
    }

    /// Publishes a checkpoint of the store at `target`, with the metadata of `identity`,
    /// the watermark and the key groups.
    pub fn checkpoint(&mut self, target: &Path, identity: &PlanIdentity) -> Result<Checkpoint> {
        let meta = OperatorMetadata::keyed(
            identity.clone(),
            self.watermark,
            &self.key_groups,
            self.max_parallelism,
        );
        checkpoint::publish(self.store.as_mut(), target, &meta.to_bytes())
    }

    /// The bytes the store holds in memory.
    pub fn memory_bytes(&self) -> u64 {
        self.store.memory_bytes()
    }
}

impl Keyed {
    /// A memory store owning every key group of `max_parallelism`, on the system clock.
    pub fn in_memory(max_parallelism: u32) -> Result<Self> {
        Self::new(
            Box::new(crate::state::memory::MemoryBackend::new()),
            max_parallelism,
            Arc::new(SystemClock),
        )
    }
}

/// A keyed operator opened over a [`Keyed`] driver, fresh or restored: what it implements,
/// and the one way every such operator is built and restored.
pub trait KeyedOperator: Sized {
    /// The operator's plan.
    type Spec;
    /// Names the operator's store (a RocksDB store's directory).
    const HOLDER: &'static str;
    /// The watermark a restored operator starts with: the replaced Flink operator's.
    const RESTORED_WATERMARK: RestoredWatermark = RestoredWatermark::Unset;

    /// The plan's identity, as its checkpoints record it.
    fn identity_of(spec: &Self::Spec) -> PlanIdentity;

    /// The plan's max parallelism (number of key groups).
    fn max_parallelism(spec: &Self::Spec) -> u32;

    /// The operator for `spec` over `keyed` (fresh or restored); a plan it cannot run is an
    /// error.
    fn open(spec: Self::Spec, keyed: Keyed) -> Result<Self>;

    /// A fresh operator owning `key_groups` of a store opened by `config`.
    fn build(
        spec: Self::Spec,
        config: &StateConfig,
        key_groups: RangeInclusive<u16>,
    ) -> Result<Self> {
        let keyed = Keyed::open(
            config,
            Self::HOLDER,
            Self::max_parallelism(&spec),
            key_groups,
        )?;
        Self::open(spec, keyed)
    }

    /// An operator owning `key_groups`, its state restored from `checkpoints` into a store
    /// of `config` (see [`super::restore`]), with the watermark
    /// [`KeyedOperator::RESTORED_WATERMARK`] says.
    fn restore(
        spec: Self::Spec,
        config: &StateConfig,
        key_groups: RangeInclusive<u16>,
        checkpoints: &[Checkpoint],
    ) -> Result<Self> {
        let keyed = Keyed::restore(
            config,
            Self::HOLDER,
            &Self::identity_of(&spec),
            Self::max_parallelism(&spec),
            key_groups,
            checkpoints,
            Self::RESTORED_WATERMARK,
        )?;
        Self::open(spec, keyed)
    }
}

/// Mini-batch buffering: batches are held until `size` rows are buffered (Flink's
/// `table.exec.mini-batch.size`), then taken as one bundle. Without a size every batch is
/// its own bundle.
#[derive(Debug)]
pub struct MiniBatch<T> {
    size: Option<usize>,
    pending: Vec<T>,
    rows: usize,
}

impl<T> MiniBatch<T> {
    /// Buffering of `size` rows; `None` is immediate mode. A size of zero is refused.
    pub fn new(size: Option<usize>) -> Result<Self> {
        if size == Some(0) {
            return Err(Error::OutOfRange(
                "mini-batch size must be at least one row".into(),
            ));
        }
        Ok(Self {
            size,
            pending: Vec::new(),
            rows: 0,
        })
    }

    /// Whether batches are buffered at all (a mini-batch plan).
    pub fn is_mini_batch(&self) -> bool {
        self.size.is_some()
    }

    /// Buffers `batch` of `rows` rows (an empty one is dropped); whether the bundle is now
    /// full and should be applied.
    pub fn push(&mut self, batch: T, rows: usize) -> bool {
        if rows > 0 {
            self.rows += rows;
            self.pending.push(batch);
        }
        self.size.is_none_or(|size| self.rows >= size)
    }

    /// The rows buffered.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Whether nothing is buffered.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Takes the buffered batches, leaving none.
    pub fn take(&mut self) -> Vec<T> {
        self.rows = 0;
        std::mem::take(&mut self.pending)
    }

    /// An error unless the bundle is empty: a checkpoint must not be taken with input that
    /// was not yet applied.
    pub fn expect_empty(&self, what: &str) -> Result<()> {
        if self.rows > 0 {
            return Err(Error::State(format!(
                "{} buffered {what} rows: flush before checkpointing",
                self.rows
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::memory::MemoryBackend;

    #[test]
    fn a_bundle_fills_to_its_size_and_immediate_mode_never_buffers() {
        let mut b = MiniBatch::new(Some(5)).unwrap();
        assert!(!b.push("a", 3));
        assert!(!b.push("empty", 0));
        assert!(b.push("b", 2));
        assert_eq!(b.rows(), 5);
        assert!(b.expect_empty("input").is_err());
        assert_eq!(b.take(), ["a", "b"]);
        assert!(b.is_empty() && b.expect_empty("input").is_ok());
        let mut immediate = MiniBatch::new(None).unwrap();
        assert!(immediate.push(1, 1));
        assert!(MiniBatch::<u8>::new(Some(0)).is_err());
    }

    #[test]
    fn the_watermark_only_moves_forward() {
        let mut keyed = Keyed::in_memory(128).unwrap();
        assert_eq!(keyed.watermark(), None);
        assert!(keyed.advance_watermark(i64::MIN));
        assert!(keyed.advance_watermark(10));
        assert!(!keyed.advance_watermark(3));
        assert!(!keyed.advance_watermark(10));
        assert_eq!(keyed.watermark(), Some(10));
    }

    #[test]
    fn a_restore_sets_the_watermark_as_the_replaced_flink_operator_has_it() {
        let dir = tempfile::tempdir().unwrap();
        let identity = PlanIdentity::new(
            crate::ops::OperatorKind::GroupAggregate,
            1,
            &serde_json::json!({}),
        );
        let config = StateConfig::memory();
        // Two subtasks at watermarks 30 and 20, a third that never saw one.
        let mut checkpoints = Vec::new();
        for (i, (groups, watermark)) in [(0..=41, Some(30)), (42..=83, Some(20)), (84..=127, None)]
            .into_iter()
            .enumerate()
        {
            let mut keyed = Keyed::open(&config, "t", 128, groups).unwrap();
            if let Some(w) = watermark {
                keyed.advance_watermark(w);
            }
            let c = keyed
                .checkpoint(&dir.path().join(format!("c{i}")), &identity)
                .unwrap();
            checkpoints.push(Checkpoint::open(c.path()).unwrap());
        }
        let restored = |groups: RangeInclusive<u16>, watermark| {
            Keyed::restore(
                &config,
                "t",
                &identity,
                128,
                groups,
                &checkpoints,
                watermark,
            )
            .unwrap()
            .watermark()
        };
        use RestoredWatermark::{Lowest, Unset};
        // The lowest of the checkpoints the new subtask restores from, and only those.
        assert_eq!(restored(0..=127, Lowest), Some(20));
        assert_eq!(restored(0..=41, Lowest), Some(30));
        assert_eq!(restored(0..=50, Lowest), Some(20));
        assert_eq!(restored(84..=127, Lowest), None);
        for groups in [0..=127, 0..=41, 84..=127] {
            assert_eq!(restored(groups, Unset), None);
        }
    }

    #[test]
    fn event_timers_fire_once_at_the_watermark_and_only_in_owned_key_groups() {
        let mut keyed = Keyed::with_key_groups(
            Box::new(MemoryBackend::new()),
            128,
            0..=63,
            Arc::new(SystemClock),
        )
        .unwrap();
        keyed.register_event_timer(3, 20, b"k1", b"").unwrap();
        keyed.register_event_timer(1, 10, b"k2", b"").unwrap();
        keyed.register_event_timer(1, 10, b"k2", b"").unwrap();
        keyed.register_event_timer(3, 30, b"k3", b"").unwrap();
        assert!(
            keyed.fire_event_timers().unwrap().is_empty(),
            "no watermark yet"
        );
        keyed.advance_watermark(20);
        let fired: Vec<(i64, u16)> = keyed
            .fire_event_timers()
            .unwrap()
            .iter()
            .map(|t| (t.timestamp, t.key_group))
            .collect();
        assert_eq!(fired, [(10, 1), (20, 3)]);
        assert!(keyed.fire_event_timers().unwrap().is_empty(), "fired once");
        keyed.register_processing_timer(5, 7, b"p", b"").unwrap();
        assert_eq!(keyed.fire_processing_timers(6).unwrap().len(), 0);
        assert_eq!(keyed.fire_processing_timers(7).unwrap().len(), 1);
    }

    #[test]
    fn the_next_processing_timer_follows_registrations_and_firings() {
        let mut keyed = Keyed::in_memory(128).unwrap();
        assert_eq!(keyed.next_processing_timer().unwrap(), None);
        keyed
            .register_processing_timers([(3u16, 50i64, &b"a"[..], [0u8; 0]), (9, 40, b"b", [])])
            .unwrap();
        assert_eq!(keyed.next_processing_timer().unwrap(), Some(40));
        keyed.register_processing_timer(1, 45, b"c", b"").unwrap();
        assert_eq!(keyed.next_processing_timer().unwrap(), Some(40));
        let fired: Vec<i64> = keyed
            .fire_processing_timers(45)
            .unwrap()
            .iter()
            .map(|t| t.timestamp)
            .collect();
        assert_eq!(fired, [40, 45]);
        assert_eq!(keyed.next_processing_timer().unwrap(), Some(50));
        // A timer registered behind the time already fired is still found, and fires.
        keyed.register_processing_timer(2, 30, b"d", b"").unwrap();
        assert_eq!(keyed.next_processing_timer().unwrap(), Some(30));
        assert_eq!(keyed.fire_processing_timers(60).unwrap().len(), 2);
        assert_eq!(keyed.next_processing_timer().unwrap(), None);
        // Event-time timers are not processing-time ones.
        keyed.register_event_timer(1, 5, b"e", b"").unwrap();
        assert_eq!(keyed.next_processing_timer().unwrap(), None);
    }

    #[test]
    fn key_groups_must_lie_within_max_parallelism() {
        let store = || Box::new(MemoryBackend::new()) as Box<dyn StateBackend>;
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        assert!(Keyed::with_key_groups(store(), 128, 0..=128, clock.clone()).is_err());
        // An empty range, spelled so clippy does not take it for a mistake.
        let empty = std::ops::RangeInclusive::new(5, 4);
        assert!(Keyed::with_key_groups(store(), 128, empty, clock.clone()).is_err());
        assert!(Keyed::new(store(), 0, clock).is_err());
    }
}
