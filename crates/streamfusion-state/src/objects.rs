//! Tables whose values their operator keeps decoded, on the memory backend.
//!
//! Flink's heap backend keeps state as objects and serializes them only for snapshots. An
//! [`ObjectTable`] is that for one table of a [`super::memory::MemoryBackend`]: its owner
//! (the operator that opened it with [`super::memory::MemoryBackend::open_objects`]) reads
//! and updates the objects in place, batch by batch, and the table encodes them only when
//! something else reads it as bytes: a checkpoint, a scan, a point read or a rescale. The
//! encoding is the one the owner writes to byte tables (RocksDB), so a checkpoint of either
//! backend restores into the other.

use std::any::Any;

use crate::error::Result;

/// Receives entries (key, encoded value) in order until it fails, as a checkpoint file
/// is written.
pub type EntryWriter<'v> = dyn FnMut(&[u8], &[u8]) -> std::io::Result<()> + 'v;

/// A table of decoded values that also answers the byte-level table operations.
pub trait ObjectTable: Any + Send + std::fmt::Debug {
    /// The number of entries.
    fn len(&self) -> usize;

    /// Whether there are no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the encoded value of `key` to `out`; `false` when the key is absent.
    fn get_encoded(&self, key: &[u8], out: &mut Vec<u8>) -> bool;

    /// Checks that `value` decodes, so a write batch can refuse a bad value before it
    /// changes anything.
    fn check_encoded(&self, value: &[u8]) -> Result<()>;

    /// Sets `key` to the value `value` encodes (checked with
    /// [`ObjectTable::check_encoded`] first).
    fn put_encoded(&mut self, key: &[u8], value: &[u8]) -> Result<()>;

    /// Removes `key` if present.
    fn remove(&mut self, key: &[u8]);

    /// Visits every entry with its encoded value, in no particular order.
    fn for_each_encoded(&self, visit: &mut dyn FnMut(&[u8], &[u8]));

    /// Visits every entry with its encoded value in ascending key order, until `visit`
    /// fails: what a checkpoint writes.
    fn try_for_each_encoded_sorted(&self, visit: &mut EntryWriter<'_>) -> std::io::Result<()>;
}
