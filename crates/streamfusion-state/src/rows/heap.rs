//! Rows kept decoded on the memory backend (decision 0020).
//!
//! On RocksDB every bundle reads its groups' encoded rows and writes them back; on the heap
//! that round trip (decode, encode, a copy of the key and value, a hash of the key, an
//! allocation per new entry) was most of a bundle. Here rows stay decoded between bundles,
//! as Flink's heap backend keeps objects. A bundle through [`super::RowTable::read`] clones
//! its groups' rows out (so a failed bundle changes nothing) and moves them back when it
//! commits ([`HeapRows::commit_copies`]); a bundle that edits rows in place
//! ([`super::RowTable::in_place`]) groups its rows through the table itself
//! ([`HeapRows::group`]) and keeps a rollback ([`HeapBundle`]). Rows are found by the Flink
//! key hash the bundle computed anyway; keys live in chunks of bytes (a bundle's own key-row
//! buffer when its new keys are most of it). Checkpoints, scans and rescaling read the table
//! through [`ObjectTable`], encoded exactly as the byte tables store them.

use hashbrown::HashTable;
use streamfusion_core::binary_row::BinaryRows;

use super::{GroupRows, Groups, RowCodec, hash_of, spread};
use crate::budget::Reservation;
use crate::error::Result;
use crate::memory::entry_bytes;
use crate::objects::{EntryWriter, ObjectTable};

/// Every group's row (`codec.fresh().len()` items per slot), by state key.
#[derive(Debug)]
pub struct HeapRows<C: RowCodec> {
    codec: C,
    /// Items per row.
    width: usize,
    /// Live slots, found by their key's hash.
    index: HashTable<u32>,
    /// Per slot: its key's hash ([`hash_of`]) and where its key's bytes are.
    hashes: Vec<i32>,
    spans: Vec<Span>,
    /// Key bytes: keys copied in (`chunks[0]`), and bundles' key buffers adopted whole.
    chunks: Vec<Vec<u8>>,
    /// Bytes of `chunks` no live slot uses (removed groups, rows of adopted buffers that
    /// were no new group), reclaimed by compaction.
    garbage: usize,
    /// Slots whose keys are still in the pending bundle's buffer ([`HeapRows::group`]).
    pending: Vec<u32>,
    items: Vec<C::Item>,
    /// Slots without a group, reused first.
    free: Vec<u32>,
    /// Per slot, `epoch << 32 | group`: the group of the bundle `epoch` it belongs to
    /// ([`HeapRows::group`]).
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

impl<C: RowCodec> HeapRows<C> {
    /// An empty table of rows `codec` describes.
    pub fn new(codec: C) -> Self {
        Self {
            width: codec.fresh().len(),
            codec,
            index: HashTable::new(),
            hashes: Vec::new(),
            spans: Vec::new(),
            chunks: vec![Vec::new()],
            garbage: 0,
            pending: Vec::new(),
            items: Vec::new(),
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

    /// The codec of the rows.
    pub fn codec(&self) -> &C {
        &self.codec
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
    pub fn find(&self, hash: i32, key: &[u8]) -> Option<u32> {
        self.index
            .find(spread(hash), |&s| self.key(s) == key)
            .copied()
    }

    #[inline]
    fn span_of(&self, slot: u32) -> std::ops::Range<usize> {
        slot as usize * self.width..(slot as usize + 1) * self.width
    }

    /// The row of `slot`.
    #[inline]
    pub fn row(&self, slot: u32) -> &[C::Item] {
        &self.items[self.span_of(slot)]
    }

    #[inline]
    fn row_mut(&mut self, slot: u32) -> &mut [C::Item] {
        let span = self.span_of(slot);
        &mut self.items[span]
    }

    /// Swaps `row` with the row of `slot`.
    fn swap(&mut self, slot: u32, row: &mut [C::Item]) {
        self.row_mut(slot).swap_with_slice(row);
    }

    /// Makes room for `groups` more groups with `key_bytes` more key bytes, so a bundle of
    /// new groups grows the table once.
    fn reserve(&mut self, groups: usize, key_bytes: usize) {
        let fresh = groups.saturating_sub(self.free.len());
        self.chunks[0].reserve(key_bytes);
        self.hashes.reserve(fresh);
        self.spans.reserve(fresh);
        self.marks.reserve(fresh);
        self.items.reserve(fresh * self.width);
        let hashes = &self.hashes;
        self.index.reserve(groups, |&s| spread(hashes[s as usize]));
    }

    /// Adds the group `key` (absent, with hash `hash`), taking `row` (what is left in its
    /// place is unspecified).
    fn insert(&mut self, hash: i32, key: &[u8], row: &mut [C::Item]) {
        let arena = &mut self.chunks[0];
        let start = arena.len();
        arena.extend_from_slice(key);
        let span = Span {
            chunk: 0,
            start,
            end: arena.len(),
        };
        // Moved, not cloned: the placeholder left behind costs nothing to drop.
        let placeholder = self.codec.placeholder();
        let slot = self.place(hash, span, |c| {
            std::mem::replace(&mut row[c], placeholder.clone())
        });
        self.index_slot(hash, slot);
    }

    fn index_slot(&mut self, hash: i32, slot: u32) {
        let hashes = &self.hashes;
        self.index
            .insert_unique(spread(hash), slot, |&s| spread(hashes[s as usize]));
    }

    /// Puts a group whose key is at `span` in a slot (a free one first) without indexing it.
    fn place(&mut self, hash: i32, span: Span, mut fresh: impl FnMut(usize) -> C::Item) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.hashes[slot as usize] = hash;
                self.spans[slot as usize] = span;
                for (c, item) in self.row_mut(slot).iter_mut().enumerate() {
                    *item = fresh(c);
                }
                slot
            }
            None => {
                let slot = self.hashes.len() as u32;
                self.hashes.push(hash);
                self.spans.push(span);
                self.marks.push(0);
                self.items.extend((0..self.width).map(&mut fresh));
                slot
            }
        }
    }

    /// The slot of the key at `start..end` of the pending bundle's key buffer `pending`
    /// (hash `hash`), inserted with items `fresh(c)` if absent, its key left in
    /// `pending` until [`HeapRows::settle`]; and whether it was inserted.
    fn find_or_insert_pending(
        &mut self,
        hash: i32,
        (pending, start, end): (&[u8], usize, usize),
        fresh: impl FnMut(usize) -> C::Item,
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
    pub fn settle(&mut self, data: Vec<u8>) {
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
            self.hashes.shrink_to(keep);
            self.spans.shrink_to(keep);
            self.marks.shrink_to(keep);
            self.items.shrink_to(keep * self.width);
            let hashes = &self.hashes;
            self.index.shrink_to(keep, |&s| spread(hashes[s as usize]));
        }
    }

    /// Bytes of all chunks.
    fn chunk_bytes(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Removes the group in `slot`.
    fn remove_slot(&mut self, slot: u32) {
        let hash = self.hashes[slot as usize];
        if let Ok(found) = self.index.find_entry(spread(hash), |&s| s == slot) {
            found.remove();
        }
        let span = self.span_of(slot);
        self.items[span].clone_from_slice(self.codec.fresh());
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

    /// The row `value` encodes.
    fn decode(&self, value: &[u8]) -> Result<Vec<C::Item>> {
        let mut row = self.codec.fresh().to_vec();
        self.codec.decode_into(value, &mut row)?;
        Ok(row)
    }

    /// The estimated bytes of group `key` with `row`, as the memory backend counts an
    /// entry (`scratch` holds the encoding).
    fn entry_size(&self, key: &[u8], row: &[C::Item], scratch: &mut Vec<u8>) -> i128 {
        scratch.clear();
        self.codec.encode(row, scratch);
        i128::from(entry_bytes(key, scratch))
    }

    /// The change in estimated bytes moving a bundle's copies `rows` back in makes
    /// (`persisted`: whether each group was found in the table).
    pub(super) fn growth_of_copies(
        &self,
        groups: &Groups,
        rows: &GroupRows<C::Item>,
        persisted: &[bool],
    ) -> i128 {
        let mut scratch = Vec::new();
        let mut delta = 0;
        for (slot, &persisted) in persisted.iter().enumerate() {
            let key = groups.key(slot);
            if persisted && let Some(found) = self.find(groups.hash(slot), key) {
                delta -= self.entry_size(key, self.row(found), &mut scratch);
            }
            if let Some(new) = rows.get(slot) {
                delta += self.entry_size(key, new, &mut scratch);
            }
        }
        delta
    }

    /// Moves a bundle's copies `rows` back in: new groups in, gone ones out.
    pub(super) fn commit_copies(
        &mut self,
        groups: &Groups,
        rows: &mut GroupRows<C::Item>,
        persisted: &[bool],
    ) {
        let (mut new, mut new_bytes) = (0, 0);
        for slot in (0..groups.len()).filter(|&s| !persisted[s] && rows.get(s).is_some()) {
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
            match (rows.take(slot), found) {
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

/// Where a bundle's groups are in the heap table ([`HeapRows::group`]): each group's slot,
/// and whether the bundle inserted it.
#[derive(Debug)]
pub struct Found {
    slots: Vec<u32>,
    created: Vec<bool>,
}

impl<C: RowCodec> HeapRows<C> {
    /// Groups a bundle's rows (state keys `keys`, hashed `hashes` as [`hash_of`] hashes)
    /// through the table itself, one probe per row: a key the table lacks is inserted at
    /// once with items `fresh(c)` and counts as new. Returns the groups, each row's group,
    /// and where the groups are; a [`HeapBundle`] over them removes new keys again on
    /// rollback, or at commit if they never got a row.
    pub fn group(
        &mut self,
        keys: BinaryRows,
        hashes: Vec<i32>,
        mut fresh: impl FnMut(usize) -> C::Item,
    ) -> (Groups, Vec<u32>, Found) {
        let n = keys.len();
        // Room for every row being a new group, so nothing grows (copying, rehashing) in
        // the loop; `settle` gives back what a bundle of repeated keys did not use. Keys
        // stay in the bundle's buffer until then.
        self.reserve(n, 0);
        let epoch = self.next_epoch();
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
            let (slot, created) = self.find_or_insert_pending(hash, (data, start, end), &mut fresh);
            let mark = &mut self.marks[slot as usize];
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
}

/// A bundle's groups' rows edited in place in the heap table (the typed bundles of decision
/// 0021): a touched group's row is saved the first time, and a group that is gone (or a new
/// one that never got a row) is removed only at [`HeapBundle::commit`], so
/// [`HeapBundle::rollback`] can put back exactly what the table held.
#[derive(Debug)]
pub struct HeapBundle<'a, C: RowCodec> {
    heap: &'a mut HeapRows<C>,
    groups: &'a Groups,
    found: Found,
    /// Whether the group has a row: it had before the bundle, or got one in it.
    has_row: Vec<bool>,
    /// Where the group's row before the bundle is saved in `saved`.
    saved_at: Vec<Option<usize>>,
    saved: Vec<C::Item>,
    /// Groups removed in the bundle: gone at `commit`.
    dead: Vec<bool>,
}

impl<'a, C: RowCodec> HeapBundle<'a, C> {
    /// The bundle of `groups`, `found` in `heap` by [`HeapRows::group`].
    pub fn new(heap: &'a mut HeapRows<C>, groups: &'a Groups, found: Found) -> Self {
        let has_row = found.created.iter().map(|&c| !c).collect();
        Self {
            heap,
            groups,
            has_row,
            saved_at: vec![None; groups.len()],
            saved: Vec::new(),
            dead: vec![false; groups.len()],
            found,
        }
    }

    /// Group `group`'s row, if it has one.
    #[inline]
    pub fn get(&self, group: usize) -> Option<&[C::Item]> {
        (self.has_row[group] && !self.dead[group]).then(|| self.heap.row(self.found.slots[group]))
    }

    /// Group `group`'s row to change (fresh when it has none); it has one from now on.
    #[inline]
    pub fn get_or_create(&mut self, group: usize) -> &mut [C::Item] {
        let slot = self.found.slots[group];
        if !self.found.created[group] && self.saved_at[group].is_none() {
            self.saved_at[group] = Some(self.saved.len());
            self.saved.extend_from_slice(self.heap.row(slot));
        }
        self.has_row[group] = true;
        self.heap.row_mut(slot)
    }

    /// Removes group `group`'s row (a GROUP BY's record count reached zero) at commit.
    pub fn remove(&mut self, group: usize) {
        self.dead[group] = true;
    }

    /// Whether group `group` is gone after the bundle: removed, or new and never given a
    /// row.
    fn gone(&self, group: usize) -> bool {
        self.dead[group] || !self.has_row[group]
    }

    /// Removes the groups that are gone, after reserving the bundle's growth (estimated as
    /// the memory backend counts entries) from `reservation`; a refused reservation rolls
    /// the bundle back.
    pub fn commit(self, reservation: Option<&mut Reservation>) -> Result<()> {
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
        let width = self.heap.width;
        let mut scratch = Vec::new();
        let mut delta = 0;
        for (group, &slot) in self.found.slots.iter().enumerate() {
            let key = self.groups.key(group);
            match self.saved_at[group] {
                Some(at) => {
                    delta -= self
                        .heap
                        .entry_size(key, &self.saved[at..at + width], &mut scratch)
                }
                // Neither new nor touched: unchanged.
                None if !self.found.created[group] => continue,
                None => {}
            }
            if !self.gone(group) {
                delta += self.heap.entry_size(key, self.heap.row(slot), &mut scratch);
            }
        }
        delta
    }

    /// Puts back what the table held before the bundle.
    pub fn rollback(self) {
        let width = self.heap.width;
        // Every slot keyed in the pending buffer is one this bundle created.
        for (group, &slot) in self.found.slots.iter().enumerate() {
            if self.found.created[group] {
                self.heap.remove_slot(slot);
            } else if let Some(at) = self.saved_at[group] {
                self.heap
                    .row_mut(slot)
                    .clone_from_slice(&self.saved[at..at + width]);
            }
        }
        self.heap.clear_pending();
    }
}

impl<C: RowCodec> ObjectTable for HeapRows<C> {
    fn len(&self) -> usize {
        self.index.len()
    }

    fn get_encoded(&self, key: &[u8], out: &mut Vec<u8>) -> bool {
        match self.find(hash_of(key), key) {
            Some(slot) => {
                self.codec.encode(self.row(slot), out);
                true
            }
            None => false,
        }
    }

    fn check_encoded(&self, value: &[u8]) -> Result<()> {
        self.decode(value).map(drop)
    }

    fn put_encoded(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let mut row = self.decode(value)?;
        let hash = hash_of(key);
        match self.find(hash, key) {
            Some(slot) => self.swap(slot, &mut row),
            None => self.insert(hash, key, &mut row),
        }
        Ok(())
    }

    fn remove(&mut self, key: &[u8]) {
        if let Some(slot) = self.find(hash_of(key), key) {
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
            self.codec.encode(self.row(slot), &mut value);
            visit(self.key(slot), &value)?;
        }
        Ok(())
    }

    fn for_each_encoded(&self, visit: &mut dyn FnMut(&[u8], &[u8])) {
        let mut value = Vec::new();
        for slot in self.live_slots() {
            value.clear();
            self.codec.encode(self.row(slot), &mut value);
            visit(self.key(slot), &value);
        }
    }
}
