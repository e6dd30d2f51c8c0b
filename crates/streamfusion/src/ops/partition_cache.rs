//! Decoded partitions kept between batches (decision 0034), as Flink's heap backend keeps
//! state as objects and its Top-N its buffers: an operator that keeps one value per
//! partition (Top-N, OVER) takes the partitions a batch touches out of the cache (reading
//! only the others from the store) and puts them back changed, so a partition that every
//! batch visits is decoded once and encoded only when it is written.
//!
//! The operator writes changed partitions to the store when they leave the cache (the least
//! recently used, once the cache holds more than its bytes) and before every checkpoint, so
//! a checkpoint holds exactly what a write-through operator's would. What the store holds
//! of a cached partition may be stale until then; nothing else reads it.

use hashbrown::HashMap;

/// The bytes of decoded partitions an operator keeps by default: about what their encoded
/// values take.
pub const CAPACITY_BYTES: usize = 32 << 20;

/// A decoded partition the cache can weigh.
pub trait CachedPartition {
    /// About the bytes of its encoding.
    fn estimated_bytes(&self) -> usize;
}

/// One cached partition.
#[derive(Debug)]
struct Cached<S> {
    state: S,
    /// Changed since the store last had it.
    dirty: bool,
    /// The batch that last used it.
    used: u64,
    /// Its estimated bytes ([`CachedPartition::estimated_bytes`]).
    bytes: usize,
}

/// The cache of one operator's partitions, by state key.
#[derive(Debug)]
pub struct PartitionCache<S> {
    entries: HashMap<Vec<u8>, Cached<S>>,
    /// The estimated bytes of all entries and their keys.
    bytes: usize,
    capacity: usize,
    /// The current batch.
    batch: u64,
}

/// A partition leaving the cache whose change the store has not seen.
pub type Evicted<S> = (Vec<u8>, S);

impl<S: CachedPartition> PartitionCache<S> {
    /// A cache of about `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: HashMap::new(),
            bytes: 0,
            capacity,
            batch: 0,
        }
    }

    /// Starts a batch: what it puts back is used by it.
    pub fn start_batch(&mut self) {
        self.batch += 1;
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        self.entries.contains_key(key)
    }

    /// Takes `key`'s partition out, with whether it is changed since the store had it.
    pub fn take(&mut self, key: &[u8]) -> Option<(S, bool)> {
        let cached = self.entries.remove(key)?;
        self.bytes -= cached.bytes + key.len();
        Some((cached.state, cached.dirty))
    }

    /// Puts `key`'s partition (back) in.
    pub fn put(&mut self, key: &[u8], state: S, dirty: bool) {
        let bytes = state.estimated_bytes();
        self.bytes += bytes + key.len();
        let cached = Cached {
            state,
            dirty,
            used: self.batch,
            bytes,
        };
        if let Some(old) = self.entries.insert(key.to_vec(), cached) {
            self.bytes -= old.bytes + key.len();
        }
    }

    /// Once the cache holds more than its capacity, takes out the least recently used
    /// partitions until it holds three quarters of it; returns the changed ones.
    pub fn evict(&mut self) -> Vec<Evicted<S>> {
        if self.bytes <= self.capacity {
            return Vec::new();
        }
        let mut by_age: Vec<(u64, &Vec<u8>)> =
            self.entries.iter().map(|(k, c)| (c.used, k)).collect();
        by_age.sort_unstable();
        let target = self.capacity / 4 * 3;
        let mut bytes = self.bytes;
        let mut leaving = Vec::new();
        for (_, key) in by_age {
            if bytes <= target {
                break;
            }
            bytes -= self.entries[key].bytes + key.len();
            leaving.push(key.clone());
        }
        let mut evicted = Vec::new();
        for key in leaving {
            let (state, dirty) = self.take(&key).expect("a cached partition");
            if dirty {
                evicted.push((key, state));
            }
        }
        evicted
    }

    /// The changed partitions, to write to the store.
    pub fn dirty(&self) -> impl Iterator<Item = (&[u8], &S)> {
        self.entries
            .iter()
            .filter(|(_, c)| c.dirty)
            .map(|(k, c)| (k.as_slice(), &c.state))
    }

    /// The changed partitions, to mark as written once the store has them.
    pub fn dirty_mut(&mut self) -> impl Iterator<Item = &mut S> {
        self.entries
            .values_mut()
            .filter(|c| c.dirty)
            .map(|c| &mut c.state)
    }

    /// Marks every partition as the store has it.
    pub fn mark_clean(&mut self) {
        for cached in self.entries.values_mut() {
            cached.dirty = false;
        }
    }

    /// The estimated bytes of the cached partitions.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Partition(usize);

    impl CachedPartition for Partition {
        fn estimated_bytes(&self) -> usize {
            self.0
        }
    }

    fn winner(len: usize) -> Partition {
        Partition(8 + len)
    }

    #[test]
    fn the_least_recently_used_partitions_leave_and_only_changed_ones_are_returned() {
        let mut cache = PartitionCache::new(1_000);
        cache.start_batch();
        cache.put(b"a", winner(300), true);
        cache.put(b"b", winner(300), false);
        cache.start_batch();
        cache.put(b"c", winner(300), true);
        assert!(cache.evict().is_empty(), "within capacity");
        cache.start_batch();
        let (state, dirty) = cache.take(b"c").unwrap();
        assert!(dirty);
        cache.put(b"c", state, true);
        cache.put(b"d", winner(300), false);
        // Over 1,000 bytes: a and b (batch 1) leave first, down to 750; only a was changed.
        let evicted = cache.evict();
        assert_eq!(evicted.len(), 1);
        assert_eq!(evicted[0].0, b"a");
        assert!(!cache.contains(b"a") && !cache.contains(b"b"));
        assert!(cache.contains(b"c") && cache.contains(b"d"));
        assert!(cache.bytes() <= 750, "{}", cache.bytes());
        assert_eq!(cache.dirty().count(), 1);
        cache.mark_clean();
        assert_eq!(cache.dirty().count(), 0);
        // An entry counts its partition's estimate (308 bytes) and its key.
        let before = cache.bytes();
        cache.take(b"d").unwrap();
        assert_eq!(cache.bytes(), before - 309);
    }
}
