//! A GROUP BY's accumulators kept decoded on the memory backend (decision 0020).
//!
//! On RocksDB every bundle reads its groups' encoded accumulators and writes them back; on
//! the heap that round trip (decode, encode, a copy of the key and value, a hash of the
//! key, an allocation per new entry) was most of a bundle. Here the accumulators stay
//! [`Acc`]s between bundles, as Flink's heap backend keeps objects. The general bundle
//! clones its groups' accumulators out (so a failed bundle changes nothing) and moves them
//! back when it commits ([`HeapAccs::commit_copies`]); the typed bundle edits them in place
//! with a rollback ([`HeapBundle`]). Groups are found by the Flink key hash the bundle
//! computed anyway; keys live in chunks of bytes (a bundle's own key-row buffer when its new
//! keys are most of it). Checkpoints, scans and rescaling read the table through
//! [`ObjectTable`], encoded exactly as the byte tables store them.

use hashbrown::HashTable;

use super::function::Acc;
use super::group::{GroupAccs, Groups};
use crate::binary_row::BinaryRows;
use crate::error::{Error, Result};
use crate::keys::murmur::hash_bytes;
use crate::state::budget::Reservation;
use crate::state::layout::KEY_GROUP_BYTES;
use crate::state::memory::entry_bytes;
use crate::state::objects::{EntryWriter, ObjectTable};

/// Every group's accumulators (`templates.len()` per slot), by state key.
#[derive(Debug)]
pub(super) struct HeapAccs {
    /// Fresh accumulators of the calls, the shapes values decode into.
    templates: Vec<Acc>,
    /// Live slots, found by their key's hash.
    index: HashTable<u32>,
    /// Per slot: its key's hash ([`HeapAccs::hash_of`]) and where its key's bytes are.
    hashes: Vec<i32>,
    spans: Vec<Span>,
    /// Key bytes: keys copied in (`chunks[0]`), and bundles' key buffers adopted whole.
    chunks: Vec<Vec<u8>>,
    /// Bytes of `chunks` no live slot uses (removed groups, rows of adopted buffers that
    /// were no new group), reclaimed by compaction.
    garbage: usize,
    /// Slots whose keys are still in the pending bundle's buffer ([`group_in_heap`]).
    pending: Vec<u32>,
    accs: Vec<Acc>,
    /// Slots without a group, reused first.
    free: Vec<u32>,
    /// Per slot, `epoch << 32 | group`: the group of the bundle `epoch` it belongs to
    /// ([`group_in_heap`]).
    marks: Vec<u64>,
    epoch: u32,
}

/// Where a slot's key is: `start..end` of chunk `chunk` (or of the pending bundle's key
/// buffer, `PENDING`).
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    chunk: u32,
    start: usize,
    end: usize,
}

const PENDING: u32 = u32::MAX;

/// The table position of a Flink key hash: spread over all 64 bits (the low bits of the
/// murmur hash pick hashbrown's group, the high ones its tag).
fn spread(hash: i32) -> u64 {
    u64::from(hash as u32).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl HeapAccs {
    /// An empty table of accumulators shaped like `templates`.
    pub(super) fn new(templates: Vec<Acc>) -> Self {
        Self {
            templates,
            index: HashTable::new(),
            hashes: Vec::new(),
            spans: Vec::new(),
            chunks: vec![Vec::new()],
            garbage: 0,
            pending: Vec::new(),
            accs: Vec::new(),
            free: Vec::new(),
            marks: Vec::new(),
            epoch: 0,
        }
    }

    /// A new bundle's epoch, never one a slot is marked with.
    fn next_epoch(&mut self) -> u32 {
        if self.epoch == u32::MAX {
            self.marks.iter_mut().for_each(|m| *m = 0);
            self.epoch = 0;
        }
        self.epoch += 1;
        self.epoch
    }

    /// The hash a state key (`[key group][key row]`) is found by: the key row's Flink hash
    /// (`BinaryRowData.hashCode`), which a bundle has already computed for its key groups.
    pub(super) fn hash_of(state_key: &[u8]) -> i32 {
        hash_bytes(state_key.get(KEY_GROUP_BYTES..).unwrap_or_default())
    }

    fn calls(&self) -> usize {
        self.templates.len()
    }

    fn key(&self, slot: u32) -> &[u8] {
        self.key_in(slot, &[])
    }

    /// The key of `slot`, whose bytes may still be in the pending bundle's `pending`.
    #[inline]
    fn key_in<'k>(&'k self, slot: u32, pending: &'k [u8]) -> &'k [u8] {
        let span = self.spans[slot as usize];
        let chunk = match span.chunk {
            PENDING => pending,
            c => &self.chunks[c as usize],
        };
        &chunk[span.start..span.end]
    }

    /// The slot of `key`, whose hash is `hash`.
    pub(super) fn find(&self, hash: i32, key: &[u8]) -> Option<u32> {
        self.index
            .find(spread(hash), |&s| self.key(s) == key)
            .copied()
    }

    /// The accumulators of `slot`.
    pub(super) fn accs(&self, slot: u32) -> &[Acc] {
        let calls = self.calls();
        &self.accs[slot as usize * calls..(slot as usize + 1) * calls]
    }

    fn accs_mut(&mut self, slot: u32) -> &mut [Acc] {
        let calls = self.calls();
        &mut self.accs[slot as usize * calls..(slot as usize + 1) * calls]
    }

    /// Swaps `accs` with the accumulators of `slot`.
    pub(super) fn swap(&mut self, slot: u32, accs: &mut [Acc]) {
        let calls = self.calls();
        self.accs[slot as usize * calls..(slot as usize + 1) * calls].swap_with_slice(accs);
    }

    /// Makes room for `groups` more groups with `key_bytes` more key bytes, so a bundle of
    /// new groups grows the table once.
    pub(super) fn reserve(&mut self, groups: usize, key_bytes: usize) {
        let fresh = groups.saturating_sub(self.free.len());
        self.chunks[0].reserve(key_bytes);
        self.hashes.reserve(fresh);
        self.spans.reserve(fresh);
        self.marks.reserve(fresh);
        self.accs.reserve(fresh * self.calls());
        let hashes = &self.hashes;
        self.index.reserve(groups, |&s| spread(hashes[s as usize]));
    }

    /// Adds the group `key` (absent, with hash `hash`), taking `accs` (what is left in
    /// their place is unspecified).
    pub(super) fn insert(&mut self, hash: i32, key: &[u8], accs: &mut [Acc]) {
        let arena = &mut self.chunks[0];
        let start = arena.len();
        arena.extend_from_slice(key);
        let span = Span {
            chunk: 0,
            start,
            end: arena.len(),
        };
        // Moved, not cloned: the placeholder left behind costs nothing to drop.
        let slot = self.place(hash, span, |c| {
            std::mem::replace(&mut accs[c], Acc::Count(0))
        });
        self.index_slot(hash, slot);
    }

    fn index_slot(&mut self, hash: i32, slot: u32) {
        let hashes = &self.hashes;
        self.index
            .insert_unique(spread(hash), slot, |&s| spread(hashes[s as usize]));
    }

    /// Puts a group whose key is at `span` in a slot (a free one first) without indexing it.
    fn place(&mut self, hash: i32, span: Span, mut fresh: impl FnMut(usize) -> Acc) -> u32 {
        let calls = self.calls();
        match self.free.pop() {
            Some(slot) => {
                self.hashes[slot as usize] = hash;
                self.spans[slot as usize] = span;
                let at = slot as usize * calls;
                for (c, acc) in self.accs[at..at + calls].iter_mut().enumerate() {
                    *acc = fresh(c);
                }
                slot
            }
            None => {
                let slot = self.hashes.len() as u32;
                self.hashes.push(hash);
                self.spans.push(span);
                self.marks.push(0);
                self.accs.extend((0..calls).map(&mut fresh));
                slot
            }
        }
    }

    /// The slot of the key at `start..end` of the pending bundle's key buffer `pending`
    /// (hash `hash`), inserted with accumulators `fresh(c)` if absent, its key left in
    /// `pending` until [`HeapAccs::settle`]; and whether it was inserted.
    fn find_or_insert_pending(
        &mut self,
        hash: i32,
        (pending, start, end): (&[u8], usize, usize),
        fresh: impl FnMut(usize) -> Acc,
    ) -> (u32, bool) {
        let key = &pending[start..end];
        let this = &*self;
        let found = this
            .index
            .find(spread(hash), |&s| this.key_in(s, pending) == key)
            .copied();
        if let Some(slot) = found {
            return (slot, false);
        }
        let span = Span {
            chunk: PENDING,
            start,
            end,
        };
        let slot = self.place(hash, span, fresh);
        self.pending.push(slot);
        self.index_slot(hash, slot);
        (slot, true)
    }

    /// Moves the keys of the groups a bundle added out of its key buffer `data`: the buffer
    /// itself is kept when those keys are most of it, else they are copied. Room reserved
    /// for groups that did not come is given back.
    pub(super) fn settle(&mut self, data: Vec<u8>) {
        self.shrink_slots();
        let live: Vec<u32> = std::mem::take(&mut self.pending)
            .into_iter()
            .filter(|&slot| self.spans[slot as usize].chunk == PENDING)
            .collect();
        let bytes: usize = live
            .iter()
            .map(|&slot| {
                let span = self.spans[slot as usize];
                span.end - span.start
            })
            .sum();
        if bytes * 2 >= data.len() {
            let chunk = self.chunks.len() as u32;
            self.garbage += data.len() - bytes;
            self.chunks.push(data);
            for slot in live {
                self.spans[slot as usize].chunk = chunk;
            }
        } else {
            let arena = &mut self.chunks[0];
            for slot in live {
                let span = &mut self.spans[slot as usize];
                let start = arena.len();
                arena.extend_from_slice(&data[span.start..span.end]);
                *span = Span {
                    chunk: 0,
                    start,
                    end: arena.len(),
                };
            }
        }
    }

    /// Forgets the pending bundle (rolled back: its new groups are gone).
    fn clear_pending(&mut self) {
        self.pending.clear();
        self.shrink_slots();
    }

    /// Gives back slot room beyond twice the slots in use (and a floor), which a bundle of
    /// few groups in many rows reserved.
    fn shrink_slots(&mut self) {
        let slots = self.hashes.len();
        let keep = (2 * slots).max(1024);
        if self.hashes.capacity() > keep {
            let calls = self.calls();
            self.hashes.shrink_to(keep);
            self.spans.shrink_to(keep);
            self.marks.shrink_to(keep);
            self.accs.shrink_to(keep * calls);
            let hashes = &self.hashes;
            self.index.shrink_to(keep, |&s| spread(hashes[s as usize]));
        }
    }

    /// Bytes of all chunks.
    fn chunk_bytes(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Removes the group in `slot`.
    pub(super) fn remove_slot(&mut self, slot: u32) {
        let hash = self.hashes[slot as usize];
        if let Ok(found) = self.index.find_entry(spread(hash), |&s| s == slot) {
            found.remove();
        }
        let calls = self.calls();
        let start = slot as usize * calls;
        self.accs[start..start + calls].clone_from_slice(&self.templates);
        let span = std::mem::take(&mut self.spans[slot as usize]);
        if span.chunk != PENDING {
            self.garbage += span.end - span.start;
        }
        self.free.push(slot);
        if self.pending.is_empty()
            && self.garbage > self.chunk_bytes() / 2
            && self.garbage > 1 << 16
        {
            self.compact_keys();
        }
    }

    /// Rewrites the keys into one chunk without the removed groups' bytes (a free slot's
    /// span is empty, so it copies nothing).
    fn compact_keys(&mut self) {
        let mut arena = Vec::with_capacity(self.chunk_bytes() - self.garbage);
        for slot in 0..self.spans.len() as u32 {
            let start = arena.len();
            arena.extend_from_slice(self.key(slot));
            self.spans[slot as usize] = Span {
                chunk: 0,
                start,
                end: arena.len(),
            };
        }
        self.chunks = vec![arena];
        self.garbage = 0;
    }

    /// The accumulators `value` encodes.
    fn decode(&self, mut value: &[u8]) -> Result<Vec<Acc>> {
        let accs = self
            .templates
            .iter()
            .map(|template| Acc::decode(template, &mut value))
            .collect::<Result<Vec<_>>>()?;
        if !value.is_empty() {
            return Err(Error::State(format!(
                "{} bytes left over after a group's accumulators",
                value.len()
            )));
        }
        Ok(accs)
    }

    /// Appends the encoding of `accs` to `out`, as byte tables store it.
    pub(super) fn encode(accs: &[Acc], out: &mut Vec<u8>) {
        for acc in accs {
            acc.encode(out);
        }
    }

    /// The estimated bytes of group `key` with `accs`, as the memory backend counts an
    /// entry (`scratch` holds the encoding).
    fn entry_size(key: &[u8], accs: &[Acc], scratch: &mut Vec<u8>) -> i128 {
        scratch.clear();
        Self::encode(accs, scratch);
        i128::from(entry_bytes(key, scratch))
    }

    /// The change in estimated bytes moving a general bundle's copies `accs` back in makes
    /// (`persisted`: whether each group was found in the table).
    pub(super) fn growth_of_copies(
        &self,
        groups: &Groups,
        accs: &GroupAccs,
        persisted: &[bool],
    ) -> i128 {
        let mut scratch = Vec::new();
        let mut delta = 0;
        for (slot, &persisted) in persisted.iter().enumerate() {
            let key = groups.key(slot);
            if persisted && let Some(found) = self.find(groups.hash(slot), key) {
                delta -= Self::entry_size(key, self.accs(found), &mut scratch);
            }
            if let Some(new) = accs.get(slot) {
                delta += Self::entry_size(key, new, &mut scratch);
            }
        }
        delta
    }

    /// Moves a general bundle's copies `accs` back in: new groups in, gone ones out.
    pub(super) fn commit_copies(
        &mut self,
        groups: &Groups,
        accs: &mut GroupAccs,
        persisted: &[bool],
    ) {
        let (mut new, mut new_bytes) = (0, 0);
        for slot in (0..groups.len()).filter(|&s| !persisted[s] && accs.get(s).is_some()) {
            new += 1;
            new_bytes += groups.key(slot).len();
        }
        self.reserve(new, new_bytes);
        for (slot, &persisted) in persisted.iter().enumerate() {
            let (hash, key) = (groups.hash(slot), groups.key(slot));
            let found = if persisted {
                self.find(hash, key)
            } else {
                None
            };
            match (accs.take(slot), found) {
                (Some(new), Some(found)) => self.swap(found, new),
                (Some(new), None) => self.insert(hash, key, new),
                (None, Some(found)) => self.remove_slot(found),
                (None, None) => {}
            }
        }
    }

    fn live_slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.index.iter().copied()
    }
}

/// Where a bundle's groups are in the heap table ([`group_in_heap`]): each group's slot,
/// and whether the bundle inserted it.
pub(super) struct Found {
    slots: Vec<u32>,
    created: Vec<bool>,
}

/// Groups a bundle's rows (state keys `keys`, hashed `hashes`) through the heap table
/// itself, one probe per row: a key the table lacks is inserted at once with accumulators
/// `fresh(c)` and counts as new. A [`HeapBundle`] over the result removes such keys again on
/// rollback, or at commit if they never got state.
pub(super) fn group_in_heap(
    heap: &mut HeapAccs,
    keys: BinaryRows,
    hashes: Vec<i32>,
    mut fresh: impl FnMut(usize) -> Acc,
) -> (Groups, Vec<u32>, Found) {
    let n = keys.len();
    // Room for every row being a new group, so nothing grows (copying, rehashing) in the
    // loop; `settle` gives back what a bundle of repeated keys did not use. Keys stay in
    // the bundle's buffer until then.
    heap.reserve(n, 0);
    let epoch = heap.next_epoch();
    let mut first_row = Vec::new();
    let mut found = Found {
        slots: Vec::new(),
        created: Vec::new(),
    };
    let mut key_bytes = 0;
    let mut row_group = Vec::with_capacity(n);
    let (data, offsets) = (keys.data(), keys.offsets());
    for (row, &hash) in hashes.iter().enumerate() {
        let (start, end) = (offsets[row], offsets[row + 1]);
        let (slot, created) = heap.find_or_insert_pending(hash, (data, start, end), &mut fresh);
        let mark = &mut heap.marks[slot as usize];
        let group = if *mark >> 32 == u64::from(epoch) {
            *mark as u32
        } else {
            let group = first_row.len() as u32;
            *mark = (u64::from(epoch) << 32) | u64::from(group);
            first_row.push(row as u32);
            found.slots.push(slot);
            found.created.push(created);
            key_bytes += end - start;
            group
        };
        row_group.push(group);
    }
    (
        Groups::new(keys, hashes, first_row, key_bytes),
        row_group,
        found,
    )
}

/// A bundle's groups' accumulators edited in place in the heap table (the typed bundle's
/// path, decision 0021): a touched group's accumulators are saved the first time, and a
/// group whose record count reached zero (or a new one that never got state) is removed
/// only at [`HeapBundle::commit`], so [`HeapBundle::rollback`] can put back exactly what
/// the table held.
pub(super) struct HeapBundle<'a> {
    heap: &'a mut HeapAccs,
    groups: &'a Groups,
    found: Found,
    /// Whether the group has state: it had before the bundle, or got it in it.
    has_state: Vec<bool>,
    /// Where the group's accumulators before the bundle are saved in `saved`.
    saved_at: Vec<Option<usize>>,
    saved: Vec<Acc>,
    /// Groups whose record count reached zero: removed by `commit`.
    dead: Vec<bool>,
}

impl<'a> HeapBundle<'a> {
    /// The bundle of `groups`, `found` in `heap` by [`group_in_heap`].
    pub(super) fn new(heap: &'a mut HeapAccs, groups: &'a Groups, found: Found) -> Self {
        let has_state = found.created.iter().map(|&c| !c).collect();
        Self {
            heap,
            groups,
            has_state,
            saved_at: vec![None; groups.len()],
            saved: Vec::new(),
            dead: vec![false; groups.len()],
            found,
        }
    }

    /// Group `group`'s accumulators, if it has state.
    pub(super) fn get(&self, group: usize) -> Option<&[Acc]> {
        (self.has_state[group] && !self.dead[group])
            .then(|| self.heap.accs(self.found.slots[group]))
    }

    /// Group `group`'s accumulators to change (fresh when it has no state); it has state
    /// from now on.
    pub(super) fn get_or_create(&mut self, group: usize) -> &mut [Acc] {
        let slot = self.found.slots[group];
        if !self.found.created[group] && self.saved_at[group].is_none() {
            self.saved_at[group] = Some(self.saved.len());
            self.saved.extend_from_slice(self.heap.accs(slot));
        }
        self.has_state[group] = true;
        self.heap.accs_mut(slot)
    }

    /// Group `group`'s record count reached zero: it goes at commit.
    pub(super) fn remove(&mut self, group: usize) {
        self.dead[group] = true;
    }

    /// Whether group `group` is gone after the bundle: its count reached zero, or it is
    /// new and never got state.
    fn gone(&self, group: usize) -> bool {
        self.dead[group] || !self.has_state[group]
    }

    /// Removes the groups that are gone, after reserving the bundle's growth (estimated as
    /// the memory backend counts entries) from `reservation`; a refused reservation rolls
    /// the bundle back.
    pub(super) fn commit(self, reservation: Option<&mut Reservation>) -> Result<()> {
        if let Some(reservation) = reservation
            && let Err(e) = reservation.resize_by(self.growth())
        {
            self.rollback();
            return Err(e);
        }
        for (group, &slot) in self.found.slots.iter().enumerate() {
            if self.gone(group) {
                self.heap.remove_slot(slot);
            }
        }
        Ok(())
    }

    /// The change in estimated bytes the bundle makes.
    fn growth(&self) -> i128 {
        let calls = self.heap.calls();
        let mut scratch = Vec::new();
        let mut size = |key: &[u8], accs: &[Acc]| HeapAccs::entry_size(key, accs, &mut scratch);
        let mut delta = 0;
        for (group, &slot) in self.found.slots.iter().enumerate() {
            let key = self.groups.key(group);
            match self.saved_at[group] {
                Some(at) => delta -= size(key, &self.saved[at..at + calls]),
                // Neither new nor touched: unchanged.
                None if !self.found.created[group] => continue,
                None => {}
            }
            if !self.gone(group) {
                delta += size(key, self.heap.accs(slot));
            }
        }
        delta
    }

    /// Puts back what the table held before the bundle.
    pub(super) fn rollback(self) {
        let calls = self.heap.calls();
        // Every slot keyed in the pending buffer is one this bundle created.
        for (group, &slot) in self.found.slots.iter().enumerate() {
            if self.found.created[group] {
                self.heap.remove_slot(slot);
            } else if let Some(at) = self.saved_at[group] {
                self.heap
                    .accs_mut(slot)
                    .clone_from_slice(&self.saved[at..at + calls]);
            }
        }
        self.heap.clear_pending();
    }
}

impl ObjectTable for HeapAccs {
    fn len(&self) -> usize {
        self.index.len()
    }

    fn get_encoded(&self, key: &[u8], out: &mut Vec<u8>) -> bool {
        match self.find(Self::hash_of(key), key) {
            Some(slot) => {
                Self::encode(self.accs(slot), out);
                true
            }
            None => false,
        }
    }

    fn check_encoded(&self, value: &[u8]) -> Result<()> {
        self.decode(value).map(drop)
    }

    fn put_encoded(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let mut accs = self.decode(value)?;
        let hash = Self::hash_of(key);
        match self.find(hash, key) {
            Some(slot) => self.swap(slot, &mut accs),
            None => self.insert(hash, key, &mut accs),
        }
        Ok(())
    }

    fn remove(&mut self, key: &[u8]) {
        if let Some(slot) = self.find(Self::hash_of(key), key) {
            self.remove_slot(slot);
        }
    }

    fn try_for_each_encoded_sorted(&self, visit: &mut EntryWriter<'_>) -> std::io::Result<()> {
        // Slots sorted by their keys where they lie; each value encoded as it is written.
        let mut slots: Vec<u32> = self.live_slots().collect();
        slots.sort_unstable_by(|&a, &b| self.key(a).cmp(self.key(b)));
        let mut value = Vec::new();
        for slot in slots {
            value.clear();
            Self::encode(self.accs(slot), &mut value);
            visit(self.key(slot), &value)?;
        }
        Ok(())
    }

    fn for_each_encoded(&self, visit: &mut dyn FnMut(&[u8], &[u8])) {
        let mut value = Vec::new();
        for slot in self.live_slots() {
            value.clear();
            Self::encode(self.accs(slot), &mut value);
            visit(self.key(slot), &value);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::aggregate::value::Value;

    fn templates() -> Vec<Acc> {
        vec![
            Acc::Count(0),
            Acc::Sum {
                sum: Value::Null,
                count: 0,
            },
        ]
    }

    fn value_of(count: i64, sum: Option<i64>) -> Vec<u8> {
        let mut out = Vec::new();
        let accs = [
            Acc::Count(count),
            Acc::Sum {
                sum: sum.map_or(Value::Null, Value::Int),
                count,
            },
        ];
        HeapAccs::encode(&accs, &mut out);
        out
    }

    /// Every entry, encoded, in key order.
    fn contents(table: &HeapAccs) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut out = Vec::new();
        table.for_each_encoded(&mut |k, v| out.push((k.to_vec(), v.to_vec())));
        out.sort();
        out
    }

    #[test]
    fn byte_operations_behave_like_an_ordered_map() {
        // Keys of every length (not only key rows), repeated, with removals that leave
        // garbage to compact and slots to reuse.
        let mut table = HeapAccs::new(templates());
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut seed = 3u64;
        let mut next = move |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % m
        };
        for step in 0..20_000i64 {
            let id = next(700);
            let mut key = vec![(id % 3) as u8, 0];
            key.extend(std::iter::repeat_n(id as u8, (id % 300) as usize));
            key.extend_from_slice(&id.to_be_bytes());
            match next(5) {
                0..=2 => {
                    let value = value_of(step, (step % 4 != 0).then_some(step * 3));
                    table.put_encoded(&key, &value).unwrap();
                    model.insert(key.clone(), value);
                }
                _ => {
                    table.remove(&key);
                    model.remove(&key);
                }
            }
            let key = key;
            if step % 997 == 0 {
                let expected: Vec<_> = model.clone().into_iter().collect();
                assert_eq!(contents(&table), expected, "step {step}");
                // What a checkpoint writes: the same entries, already in key order.
                let mut sorted = Vec::new();
                table
                    .try_for_each_encoded_sorted(&mut |k, v| {
                        sorted.push((k.to_vec(), v.to_vec()));
                        Ok(())
                    })
                    .unwrap();
                assert_eq!(sorted, expected, "step {step}");
            }
            let mut got = Vec::new();
            let found = table.get_encoded(&key, &mut got);
            assert_eq!(found.then_some(got), model.get(&key).cloned());
        }
        assert_eq!(table.len(), model.len());
        assert!(table.free.len() + table.len() == table.hashes.len());
    }

    #[test]
    fn bundles_grouped_through_the_table_commit_or_roll_back_like_a_map() {
        // Bundles of random keys (many repeated, so new keys are sometimes most of a
        // bundle's buffer and sometimes not), each group set, deleted or left alone, then
        // committed or rolled back: the table must always hold what a map model holds.
        let mut table = HeapAccs::new(vec![Acc::Count(0)]);
        let mut model: BTreeMap<Vec<u8>, i64> = BTreeMap::new();
        let mut seed = 5u64;
        let mut next = move |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % m
        };
        for bundle in 0..300 {
            let rows = 1 + next(60) as usize;
            let domain = [8, 40, 2000][bundle % 3];
            let mut data = Vec::new();
            let mut offsets = vec![0];
            let mut hashes = Vec::new();
            for _ in 0..rows {
                let id = next(domain);
                let start = data.len();
                data.extend_from_slice(&[(id % 3) as u8, 1]);
                data.extend(std::iter::repeat_n(b'k', (id % 70) as usize * 4));
                data.extend_from_slice(&(id as u16).to_be_bytes());
                data.extend_from_slice(&[0, 0]);
                offsets.push(data.len());
                hashes.push(HeapAccs::hash_of(&data[start..]));
            }
            let keys = BinaryRows::from_parts(data, offsets);
            let (groups, row_group, found) =
                group_in_heap(&mut table, keys, hashes, |_| Acc::Count(0));
            assert_eq!(row_group.len(), rows);
            let mut bundle_view = HeapBundle::new(&mut table, &groups, found);
            let mut changed: BTreeMap<Vec<u8>, Option<i64>> = BTreeMap::new();
            for g in 0..groups.len() {
                let key = groups.key(g).to_vec();
                assert_eq!(
                    bundle_view.get(g).map(|a| a[0].clone()),
                    model.get(&key).map(|&c| Acc::Count(c)),
                    "bundle {bundle}: group {g} before"
                );
                match next(4) {
                    0 => {}
                    1 if model.contains_key(&key) => {
                        bundle_view.get_or_create(g);
                        bundle_view.remove(g);
                        changed.insert(key, None);
                    }
                    _ => {
                        let value = next(1000) as i64 + 1;
                        bundle_view.get_or_create(g)[0] = Acc::Count(value);
                        changed.insert(key, Some(value));
                    }
                }
            }
            if next(5) == 0 {
                bundle_view.rollback();
            } else {
                bundle_view.commit(None).unwrap();
                table.settle(groups.into_key_data());
                for (key, value) in changed {
                    match value {
                        Some(v) => model.insert(key, v),
                        None => model.remove(&key),
                    };
                }
            }
            assert!(table.pending.is_empty());
            let expected: Vec<(Vec<u8>, Vec<u8>)> = model
                .iter()
                .map(|(k, &c)| {
                    let mut v = Vec::new();
                    Acc::Count(c).encode(&mut v);
                    (k.clone(), v)
                })
                .collect();
            assert_eq!(contents(&table), expected, "bundle {bundle}");
        }
    }

    #[test]
    fn values_that_do_not_decode_are_refused_and_change_nothing() {
        let mut table = HeapAccs::new(templates());
        let good = value_of(2, Some(5));
        table.put_encoded(b"\0\x01k", &good).unwrap();
        for bad in [
            &good[..good.len() - 1],
            &[good.as_slice(), &[0]].concat()[..],
            &[],
        ] {
            assert!(table.check_encoded(bad).is_err());
            assert!(table.put_encoded(b"\0\x01k", bad).is_err());
        }
        let mut got = Vec::new();
        assert!(table.get_encoded(b"\0\x01k", &mut got));
        assert_eq!(got, good);
    }
}
