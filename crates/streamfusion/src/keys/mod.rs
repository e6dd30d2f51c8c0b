//! Keys: Flink-compatible key rows, hashing and key groups, and state-key encoding.
//!
//! - [`crate::binary_row`] writes key columns as Flink `BinaryRowData` rows, byte for byte.
//! - [`murmur`]: `MurmurHashUtils` (row hash) and `MathUtils.murmurHash` (scrambler).
//! - [`key_groups`]: `KeyGroupRangeAssignment`: key group, operator index, ranges, default
//!   max parallelism.
//! - [`state_key`]: order-preserving composite keys (arrow-row), for state that must scan
//!   keys in value order. Operators that only look keys up (GROUP BY) key their state by
//!   the key rows themselves (decision 0011).
//!
//! [`KeyHasher`] puts the row writer, hashing and key groups together: a batch of key columns in, Flink's
//! `BinaryRowData.hashCode()` and key group per row out. Key fields may be nested ROWs
//! (Arrow structs): the hash covers the whole key row, nested rows in its variable part
//! included, as Flink's does.

pub mod key_groups;
pub mod murmur;
pub mod state_key;

use arrow::array::ArrayRef;

use crate::binary_row::{BinaryRows, RowWriter};
use crate::error::Result;
use crate::types::LogicalType;
use key_groups::key_groups_for_hashes;
use murmur::{hash_bytes_by_words, hash4_bytes_by_words};

/// Rows at least this long are hashed four at a time ([`hash4_bytes_by_words`]).
const INTERLEAVED_ROW_BYTES: usize = 64;

/// Hashes key columns as Flink hashes its SQL keys.
#[derive(Debug, Clone)]
pub struct KeyHasher {
    writer: RowWriter,
}

impl KeyHasher {
    /// A hasher for keys with these field types.
    pub fn new(types: Vec<LogicalType>) -> Self {
        Self {
            writer: RowWriter::new(types),
        }
    }

    /// The key rows Flink's key selector would produce.
    pub fn key_rows(&self, columns: &[ArrayRef]) -> Result<BinaryRows> {
        self.writer.write(columns)
    }

    /// [`KeyHasher::key_rows`], each after `prefix` bytes for the caller to fill in.
    pub fn key_rows_prefixed(&self, columns: &[ArrayRef], prefix: usize) -> Result<BinaryRows> {
        self.writer.write_prefixed(columns, prefix)
    }

    /// `BinaryRowData.hashCode()` of each key row.
    pub fn hashes(&self, columns: &[ArrayRef]) -> Result<Vec<i32>> {
        Ok(hash_rows(&self.key_rows(columns)?))
    }

    /// `KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism)` of each row.
    pub fn key_groups(&self, columns: &[ArrayRef], max_parallelism: u32) -> Result<Vec<u32>> {
        key_groups_for_hashes(&self.hashes(columns)?, max_parallelism)
    }
}

/// `BinaryRowData.hashCode()` of each of `rows`.
pub fn hash_rows(rows: &BinaryRows) -> Vec<i32> {
    let mut hashes = Vec::with_capacity(rows.len());
    for i in (0..rows.len() / 4 * 4).step_by(4) {
        let quad: [&[u8]; 4] = std::array::from_fn(|j| rows.row(i + j));
        // Long rows hash faster four at a time; short ones lose more to the bookkeeping
        // than they gain (decisions 0003 and 0008).
        if quad.iter().all(|r| r.len() >= INTERLEAVED_ROW_BYTES) {
            hashes.extend(hash4_bytes_by_words(quad));
        } else {
            hashes.extend(quad.map(hash_bytes_by_words));
        }
    }
    hashes.extend((rows.len() / 4 * 4..rows.len()).map(|i| hash_bytes_by_words(rows.row(i))));
    hashes
}
