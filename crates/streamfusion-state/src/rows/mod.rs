//! Typed state tables: one row of items per state key (a GROUP BY's accumulators, a
//! deduplication's kept row, a Top-N's counters), read and written a bundle at a time.
//!
//! An operator describes its rows with a [`RowCodec`] and opens a [`RowTable`]; the table
//! decides where the rows live, so no operator branches on the backend:
//!
//! - **on the heap** ([`heap::HeapRows`], decision 0020) when the store is the memory
//!   backend and the table has no TTL: rows stay decoded between bundles, as Flink's heap
//!   backend keeps objects, and are encoded only for checkpoints, scans and rescaling;
//! - **encoded** in a point table otherwise (RocksDB, and TTL tables, whose values carry
//!   their expiry).
//!
//! Both hold exactly the same encoded entries, so a checkpoint of either backend restores
//! into the other. A bundle reads its groups' rows as copies ([`RowTable::read`]) and writes
//! them back together with its other tables' changes ([`RowTable::write`]): all of it or, on
//! an error, none. Operators that edit rows in place (the typed bundles of decision 0021)
//! ask the table for [`RowTable::in_place`], which only the heap offers.

pub mod heap;

use std::fmt::Debug;

use hashbrown::HashTable;
use streamfusion_core::binary_row::BinaryRows;
use streamfusion_core::keys::murmur::hash_bytes;

use crate::budget::Reservation;
use crate::error::{Error, Result};
use crate::layout::KEY_GROUP_BYTES;
use crate::ttl::StateTtl;
use crate::{StateBackend, TableAccess, TableId, WriteBatch};

use heap::HeapRows;

/// How a table's rows are shaped and encoded: `fresh().len()` items per state key.
pub trait RowCodec: Clone + Send + Sync + Debug + 'static {
    /// One item of a row.
    type Item: Clone + Send + Debug + 'static;

    /// The items of a fresh row, the shapes values decode into.
    fn fresh(&self) -> &[Self::Item];

    /// Appends the encoding of `row` to `out`, as byte tables store it.
    fn encode(&self, row: &[Self::Item], out: &mut Vec<u8>);

    /// Decodes `value` into `row` (shaped like [`RowCodec::fresh`]); bytes left over are an
    /// error.
    fn decode_into(&self, value: &[u8], row: &mut [Self::Item]) -> Result<()>;

    /// An item that costs nothing to create and drop, left behind where an item moved out.
    fn placeholder(&self) -> Self::Item;
}

/// The hash a row is found by on the heap: the Flink hash (`BinaryRowData.hashCode`) of a
/// state key's bytes after its key group, which a bundle has computed for its key groups.
pub fn hash_of(state_key: &[u8]) -> i32 {
    hash_bytes(state_key.get(KEY_GROUP_BYTES..).unwrap_or_default())
}

/// The table position of a key hash: spread over all 64 bits (the low bits of the murmur
/// hash pick hashbrown's group, the high ones its tag).
#[inline]
pub(crate) fn spread(hash: i32) -> u64 {
    u64::from(hash as u32).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A bundle's distinct groups: each group's first row, whose state key (key row after its
/// key group) names the group.
#[derive(Debug)]
pub struct Groups {
    /// Every input row's state key, `[key group][key row]`: key rows written with the key
    /// group in their prefix, so no key is copied.
    keys: BinaryRows,
    /// Every input row's [`hash_of`] its state key.
    hashes: Vec<i32>,
    first_row: Vec<u32>,
    /// The groups' state keys' bytes together.
    key_bytes: usize,
}

impl Groups {
    /// The groups whose first rows are `first_row`, of rows with state keys `keys` hashed
    /// `hashes`; `key_bytes` is the groups' state keys' bytes together.
    pub fn new(keys: BinaryRows, hashes: Vec<i32>, first_row: Vec<u32>, key_bytes: usize) -> Self {
        Self {
            keys,
            hashes,
            first_row,
            key_bytes,
        }
    }

    /// Rows grouped by their state keys (`keys`, hashed `hashes`): distinct groups in order
    /// of first appearance, and each row's group.
    pub fn of(keys: BinaryRows, hashes: Vec<i32>) -> (Self, Vec<u32>) {
        let n = keys.len();
        let mut table: HashTable<u32> = HashTable::with_capacity(n.min(1 << 16));
        let mut first_row: Vec<u32> = Vec::new();
        let mut key_bytes = 0;
        let mut row_group: Vec<u32> = Vec::with_capacity(n);
        for row in 0..n {
            let key = keys.row(row);
            let next = first_row.len() as u32;
            let entry = table.entry(
                spread(hashes[row]),
                |&g| keys.row(first_row[g as usize] as usize) == key,
                |&g| spread(hashes[first_row[g as usize] as usize]),
            );
            let group = *entry.or_insert(next).get();
            if group == next {
                first_row.push(row as u32);
                key_bytes += KEY_GROUP_BYTES + key.len();
            }
            row_group.push(group);
        }
        (Self::new(keys, hashes, first_row, key_bytes), row_group)
    }

    /// [`Groups::of`] by `grouping` hashes, any hash of the state keys cheaper to get per row
    /// than [`hash_of`] (equal keys must hash equal); each group then gets its [`hash_of`],
    /// which tables look it up by, computed once per group instead of once per row.
    pub fn of_rehashed(keys: BinaryRows, grouping: Vec<i32>) -> (Self, Vec<u32>) {
        let (mut groups, row_group) = Self::of(keys, grouping);
        for &row in &groups.first_row {
            let row = row as usize;
            groups.hashes[row] = hash_of(groups.keys.prefixed_row(row));
        }
        (groups, row_group)
    }

    /// The number of groups.
    pub fn len(&self) -> usize {
        self.first_row.len()
    }

    /// Whether there are no groups.
    pub fn is_empty(&self) -> bool {
        self.first_row.is_empty()
    }

    /// Each group's first row.
    pub fn first_rows(&self) -> &[u32] {
        &self.first_row
    }

    /// The groups' state keys' bytes together.
    pub fn key_bytes(&self) -> usize {
        self.key_bytes
    }

    /// The buffer holding every row's state key.
    pub fn key_data(&self) -> &[u8] {
        self.keys.data()
    }

    /// The buffer holding every row's state key, given up.
    pub fn into_key_data(self) -> Vec<u8> {
        self.keys.into_parts().0
    }

    /// The state key of group `group`.
    #[inline]
    pub fn key(&self, group: usize) -> &[u8] {
        self.keys.prefixed_row(self.first_row[group] as usize)
    }

    /// The key hash of group `group` ([`hash_of`] its state key).
    #[inline]
    pub fn hash(&self, group: usize) -> i32 {
        self.hashes[self.first_row[group] as usize]
    }
}

/// Each bundle group's row in one vector (no allocation per group), and which groups have
/// one: the copies a bundle changes between [`RowTable::read`] and [`RowTable::write`].
#[derive(Debug)]
pub struct GroupRows<T> {
    fresh: Vec<T>,
    items: Vec<T>,
    present: Vec<bool>,
}

impl<T: Clone> GroupRows<T> {
    /// `groups` groups without a row, their slots holding `fresh`.
    pub fn fresh(groups: usize, fresh: &[T]) -> Self {
        let mut items = Vec::with_capacity(groups * fresh.len());
        for _ in 0..groups {
            items.extend_from_slice(fresh);
        }
        Self {
            fresh: fresh.to_vec(),
            items,
            present: vec![false; groups],
        }
    }

    #[inline]
    fn span(&self, group: usize) -> std::ops::Range<usize> {
        let width = self.fresh.len();
        group * width..(group + 1) * width
    }

    /// The row of group `group`, if it has one.
    #[inline]
    pub fn get(&self, group: usize) -> Option<&[T]> {
        self.present[group].then(|| &self.items[self.span(group)])
    }

    /// Group `group`'s row, fresh when it has none; and whether it had one. It has one from
    /// now on.
    #[inline]
    pub fn get_or_create(&mut self, group: usize) -> (&mut [T], bool) {
        let had = std::mem::replace(&mut self.present[group], true);
        let span = self.span(group);
        (&mut self.items[span], had)
    }

    /// Group `group`'s row to move out (`None` without one); what is left in its place is
    /// unspecified.
    pub fn take(&mut self, group: usize) -> Option<&mut [T]> {
        let span = self.span(group);
        self.present[group].then(|| &mut self.items[span])
    }

    /// Removes group `group`'s row: a later change starts it afresh.
    pub fn remove(&mut self, group: usize) {
        self.present[group] = false;
        let span = self.span(group);
        self.items[span].clone_from_slice(&self.fresh);
    }
}

/// Where a table's rows live (see the module docs).
#[derive(Debug, Clone)]
enum Place {
    Heap,
    Encoded(Option<StateTtl>),
}

/// A table of rows described by a codec `C`, on whichever backend the store is.
#[derive(Debug)]
pub struct RowTable<C: RowCodec> {
    id: TableId,
    place: Place,
    codec: C,
}

impl<C: RowCodec> RowTable<C> {
    /// Opens (creating if needed) the table `name` of rows `codec` describes, with `ttl`: on
    /// the heap where the store is the memory backend and there is no TTL, else encoded.
    pub fn open(
        store: &mut dyn StateBackend,
        name: &str,
        codec: C,
        ttl: Option<StateTtl>,
    ) -> Result<Self> {
        if ttl.is_none()
            && let Some(memory) = store.memory_mut()
        {
            let id = memory.open_objects(name, Box::new(HeapRows::new(codec.clone())))?;
            return Ok(Self {
                id,
                place: Place::Heap,
                codec,
            });
        }
        Ok(Self {
            id: store.open_table_with(name, TableAccess::Point)?,
            place: Place::Encoded(ttl),
            codec,
        })
    }

    /// The table's id in its store.
    pub fn id(&self) -> TableId {
        self.id
    }

    /// The codec of the table's rows.
    pub fn codec(&self) -> &C {
        &self.codec
    }

    /// The rows on the heap, to edit in place, with the store's budget reservation (when it
    /// has one); `None` when the table is encoded.
    pub fn in_place<'s>(
        &self,
        store: &'s mut dyn StateBackend,
    ) -> Result<Option<(&'s mut HeapRows<C>, Option<&'s mut Reservation>)>> {
        match self.place {
            Place::Heap => heap_rows(store, self.id).map(Some),
            Place::Encoded(_) => Ok(None),
        }
    }

    /// One batched read of the rows of `groups`, in `order` (the order the store prefers):
    /// each group's row (`None` without one, or with an expired one) and whether a row was
    /// stored for it. Rows are copies: the bundle changes its own until
    /// [`RowTable::write`].
    pub fn read(
        &self,
        store: &mut dyn StateBackend,
        groups: &Groups,
        order: &[u32],
    ) -> Result<(GroupRows<C::Item>, Vec<bool>)> {
        let mut persisted = vec![false; groups.len()];
        let ttl = match &self.place {
            Place::Heap => {
                let (heap, _) = heap_rows::<C>(store, self.id)?;
                let mut rows = GroupRows::fresh(groups.len(), self.codec.fresh());
                for (group, persisted) in persisted.iter_mut().enumerate() {
                    if let Some(found) = heap.find(groups.hash(group), groups.key(group)) {
                        *persisted = true;
                        rows.get_or_create(group)
                            .0
                            .clone_from_slice(heap.row(found));
                    }
                }
                return Ok((rows, persisted));
            }
            Place::Encoded(ttl) => ttl.as_ref(),
        };
        let codec = &self.codec;
        let mut rows = GroupRows::fresh(groups.len(), codec.fresh());
        let keys: Vec<&[u8]> = order.iter().map(|&g| groups.key(g as usize)).collect();
        store.multi_get_each(self.id, &keys, &mut |i, raw| {
            let group = order[i] as usize;
            persisted[group] = raw.is_some();
            let value = match (raw, ttl) {
                (None, _) => None,
                (Some(raw), None) => Some(raw),
                (Some(raw), Some(ttl)) => ttl.unwrap(raw)?,
            };
            if let Some(value) = value {
                codec.decode_into(value, rows.get_or_create(group).0)?;
            }
            Ok(())
        })?;
        Ok((rows, persisted))
    }

    /// Writes a bundle's rows (`rows` of `groups`, and whether each was `persisted`) in
    /// `order`, together with `writes` (the bundle's other tables' changes) in one write:
    /// all of it, or on an error none (a refused budget included).
    pub fn write(
        &self,
        store: &mut dyn StateBackend,
        writes: &mut WriteBatch,
        groups: &Groups,
        order: &[u32],
        (rows, persisted): (&mut GroupRows<C::Item>, &[bool]),
    ) -> Result<()> {
        let ttl = match &self.place {
            Place::Encoded(ttl) => ttl.as_ref(),
            Place::Heap => return self.write_heap(store, writes, groups, (rows, persisted)),
        };
        let codec = &self.codec;
        // Rows are tens of bytes; each entry repeats its group's key.
        writes.reserve(order.len(), groups.key_bytes() + order.len() * 48);
        let mut bytes = Vec::new();
        let mut wrapped = Vec::new();
        for &group in order {
            let group = group as usize;
            let key = groups.key(group);
            match rows.get(group) {
                Some(row) => {
                    bytes.clear();
                    codec.encode(row, &mut bytes);
                    match ttl {
                        None => writes.put(self.id, key, &bytes),
                        Some(ttl) => {
                            ttl.wrap_into(&bytes, &mut wrapped);
                            writes.put(self.id, key, &wrapped);
                        }
                    }
                }
                None if persisted[group] => writes.delete(self.id, key),
                None => {}
            }
        }
        store.write(writes)
    }

    /// [`RowTable::write`] on the heap: the rows' growth is reserved before anything is
    /// written and given back if `writes` fails; only then do the rows move in, which
    /// cannot fail.
    fn write_heap(
        &self,
        store: &mut dyn StateBackend,
        writes: &WriteBatch,
        groups: &Groups,
        (rows, persisted): (&mut GroupRows<C::Item>, &[bool]),
    ) -> Result<()> {
        let delta = match heap_rows::<C>(store, self.id)? {
            (heap, Some(reservation)) => {
                let delta = heap.growth_of_copies(groups, rows, persisted);
                reservation.resize_by(delta)?;
                delta
            }
            (_, None) => 0,
        };
        if let Err(e) = store.write(writes) {
            if let (_, Some(reservation)) = heap_rows::<C>(store, self.id)? {
                reservation.resize_by(-delta)?;
            }
            return Err(e);
        }
        heap_rows::<C>(store, self.id)?
            .0
            .commit_copies(groups, rows, persisted);
        Ok(())
    }
}

/// The heap table `table` of `store` (a memory backend).
fn heap_rows<C: RowCodec>(
    store: &mut dyn StateBackend,
    table: TableId,
) -> Result<(&mut HeapRows<C>, Option<&mut Reservation>)> {
    store
        .memory_mut()
        .ok_or_else(|| Error::State("a heap row table needs the memory backend".into()))?
        .objects_mut::<HeapRows<C>>(table)
}

#[cfg(test)]
mod tests;
