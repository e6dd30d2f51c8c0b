//! A map that iterates in the order `java.util.HashMap` (JDK 8 and later) iterates: Flink's
//! mini-batch join walks its bundles' `HashMap`s, and within a join key that order decides
//! which rows an outer join emits (a padding row is retracted by whichever row reaches it
//! first), so the native bundle must walk its rows in the same order.
//!
//! `HashMap` keeps a table of bins (its capacity, a power of two, 16 on the first insertion)
//! indexed by `(h ^ (h >>> 16)) & (capacity - 1)` for a key's `hashCode()` `h`; a new key is
//! appended to its bin, a removed one leaves the others in place, and iteration goes bin by
//! bin. The table doubles when an insertion takes the size past three quarters of the
//! capacity (a doubled bin splits in two, each keeping its keys' order), and when a bin
//! reaches a ninth key while the capacity is under 64. A bin reaching a ninth key in a
//! larger table becomes a tree, whose order this map does not follow (it keeps insertion
//! order there): nine distinct hash codes agreeing on every index bit, at a load of at most
//! three quarters, which Flink's Murmur-hashed rows make vanishingly rare (decision 0050).

/// The capacity of a table on its first insertion (`DEFAULT_INITIAL_CAPACITY`).
const INITIAL_CAPACITY: usize = 16;
/// The keys a bin holds before the next one makes it a tree (`TREEIFY_THRESHOLD`).
const TREEIFY_THRESHOLD: usize = 8;
/// The smallest capacity with tree bins; below it a long bin doubles the table instead.
const MIN_TREEIFY_CAPACITY: usize = 64;

/// Keys `K` with their Java hash codes and values `V`, iterated in `HashMap` order.
#[derive(Debug, Clone)]
pub(crate) struct JavaMap<K, V> {
    bins: Vec<Vec<(i32, K, V)>>,
    len: usize,
}

impl<K: PartialEq, V> Default for JavaMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: PartialEq, V> JavaMap<K, V> {
    /// An empty map, its table not yet allocated (as `new HashMap<>()`).
    pub(crate) fn new() -> Self {
        Self {
            bins: Vec::new(),
            len: 0,
        }
    }

    /// Whether it holds no key.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn bin(&self, hash: i32) -> usize {
        let h = hash as u32;
        ((h ^ (h >> 16)) as usize) & (self.bins.len() - 1)
    }

    /// The value of `key` (of hash code `hash`), inserted with `value()` if absent
    /// (`computeIfAbsent`).
    pub(crate) fn entry(&mut self, hash: i32, key: K, value: impl FnOnce() -> V) -> &mut V {
        if self.bins.is_empty() {
            self.resize();
        }
        let b = self.bin(hash);
        if let Some(at) = self.bins[b]
            .iter()
            .position(|(h, k, _)| *h == hash && *k == key)
        {
            return &mut self.bins[b][at].2;
        }
        let before = self.bins[b].len();
        self.bins[b].push((hash, key, value()));
        if before >= TREEIFY_THRESHOLD && self.bins.len() < MIN_TREEIFY_CAPACITY {
            // `treeifyBin` on a small table doubles it instead.
            self.resize();
        }
        self.len += 1;
        if self.len > self.bins.len() / 4 * 3 {
            self.resize();
        }
        // Resizing keeps a bin's order, so the new key is still last in its bin.
        let b = self.bin(hash);
        let last = self.bins[b].last_mut().expect("the key just inserted");
        &mut last.2
    }

    /// Removes `key`, leaving the other keys of its bin in their order.
    pub(crate) fn remove(&mut self, hash: i32, key: &K) -> Option<V> {
        if self.bins.is_empty() {
            return None;
        }
        let b = self.bin(hash);
        let at = self.bins[b]
            .iter()
            .position(|(h, k, _)| *h == hash && k == key)?;
        self.len -= 1;
        Some(self.bins[b].remove(at).2)
    }

    /// Doubles the table (or allocates it), each bin's keys keeping their order.
    fn resize(&mut self) {
        let capacity = (self.bins.len() * 2).max(INITIAL_CAPACITY);
        let old = std::mem::replace(&mut self.bins, (0..capacity).map(|_| Vec::new()).collect());
        for (hash, key, value) in old.into_iter().flatten() {
            let b = self.bin(hash);
            self.bins[b].push((hash, key, value));
        }
    }

    /// The entries in iteration order, taken.
    pub(crate) fn into_values(self) -> impl Iterator<Item = V> {
        self.bins.into_iter().flatten().map(|(_, _, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(map: &JavaMap<i32, ()>) -> Vec<i32> {
        map.bins.iter().flatten().map(|(_, k, _)| *k).collect()
    }

    fn insert(map: &mut JavaMap<i32, ()>, key: i32) {
        // `Integer.hashCode()` is the value.
        map.entry(key, key, || ());
    }

    // The expected orders follow from `HashMap`'s documented table (index `h ^ h >>> 16`
    // masked by the capacity; doubling past a load of 0.75), worked out by hand.
    #[test]
    fn small_integers_iterate_by_bin_and_colliding_ones_by_insertion() {
        let mut map = JavaMap::new();
        for k in [5, 3, 21, 16, 0, 37] {
            insert(&mut map, k);
        }
        // Capacity 16: bins 0 (16, 0), 3, 5 (5, 21, 37 in insertion order).
        assert_eq!(keys(&map), [16, 0, 3, 5, 21, 37]);
        map.remove(21, &21);
        insert(&mut map, 21);
        assert_eq!(keys(&map), [16, 0, 3, 5, 37, 21]);
    }

    #[test]
    fn the_thirteenth_key_doubles_the_table() {
        let mut map = JavaMap::new();
        // 12 keys fit capacity 16; 32 lands in bin 0 with 0 and 16 until the table doubles.
        for k in [32, 0, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9] {
            insert(&mut map, k);
        }
        assert_eq!(keys(&map), [32, 0, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        insert(&mut map, 10);
        // Capacity 32: bin 0 keeps 32 and 0 in order, 16 moves to bin 16.
        assert_eq!(keys(&map), [32, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16]);
        assert_eq!(map.len, 13);
    }

    #[test]
    fn high_bits_fold_into_the_index() {
        let mut map = JavaMap::new();
        // 0x10000 spreads to 0x10001 (bin 1); 0x20003 to 0x20001 (bin 1); 2 stays in bin 2.
        for k in [2, 0x20003, 0x10000] {
            insert(&mut map, k);
        }
        assert_eq!(keys(&map), [0x20003, 0x10000, 2]);
        // Negative hash codes index by their unsigned bits: -1 spreads to 0xffff0000.
        insert(&mut map, -1);
        assert_eq!(keys(&map)[0], -1);
    }

    #[test]
    fn a_ninth_key_in_one_bin_doubles_a_small_table() {
        let mut map = JavaMap::new();
        // Multiples of 64 share bin 0 at capacities 16 and 32 (and 64).
        for i in 0..9 {
            insert(&mut map, i * 64);
        }
        // The ninth key doubles 16 to 32, still one bin: order unchanged.
        assert_eq!(map.bins.len(), 32);
        insert(&mut map, 9 * 64);
        assert_eq!(map.bins.len(), 64);
        assert_eq!(keys(&map), (0..10).map(|i| i * 64).collect::<Vec<_>>());
    }

    #[test]
    fn entries_and_removals_find_keys_by_hash_and_equality() {
        let mut map: JavaMap<&str, u32> = JavaMap::new();
        *map.entry(7, "a", || 0) += 1;
        *map.entry(7, "b", || 10) += 1;
        *map.entry(7, "a", || 0) += 1;
        assert_eq!(map.remove(8, &"a"), None);
        assert_eq!(map.remove(7, &"b"), Some(11));
        assert_eq!(map.remove(7, &"b"), None);
        assert_eq!(map.into_values().collect::<Vec<_>>(), [2]);
    }
}
