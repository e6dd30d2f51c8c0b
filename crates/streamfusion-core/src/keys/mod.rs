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
pub mod layout;
pub mod murmur;
pub mod state_key;

use std::ops::RangeInclusive;

use arrow::array::ArrayRef;

use crate::binary_row::{BinaryRows, RowWriter};
use crate::error::{Error, Result};
use crate::types::LogicalType;
use key_groups::key_groups_for_hashes;
use layout::{KEY_GROUP_BYTES, key_group};
use murmur::{hash_bytes_by_words, hash4_bytes_by_words, hash8_bytes_by_words};

/// Rows at least this long are hashed several at a time ([`hash8_bytes_by_words`],
/// [`hash4_bytes_by_words`]).
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

    /// The key rows of `rows` rows (of `columns`, or empty keys when there are none), each
    /// after `prefix` bytes for the caller to fill in.
    pub fn key_rows_prefixed(
        &self,
        columns: &[ArrayRef],
        rows: usize,
        prefix: usize,
    ) -> Result<BinaryRows> {
        self.writer.write_prefixed(columns, rows, prefix)
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

/// Every row's state key, `[key group][key row]`, and key hash (`BinaryRowData.hashCode` of
/// its key row), for the `rows` rows of `key_columns` written by `hasher` (no columns: the
/// empty key of a GROUP BY without grouping columns, Flink's `EmptyRowDataKeySelector`). A
/// row whose key group is not in `owned` is an error, as a key group a subtask does not own
/// is in Flink's backends.
pub fn state_keys(
    hasher: &KeyHasher,
    key_columns: &[ArrayRef],
    rows: usize,
    max_parallelism: u32,
    owned: &RangeInclusive<u16>,
) -> Result<(BinaryRows, Vec<i32>)> {
    // The key rows Flink hashes are the state keys too (decision 0011), each written after
    // room for its key group.
    let mut keys = hasher.key_rows_prefixed(key_columns, rows, KEY_GROUP_BYTES)?;
    let hashes = hash_rows(&keys);
    for (row, &kg) in key_groups_for_hashes(&hashes, max_parallelism)?
        .iter()
        .enumerate()
    {
        let kg = key_group(kg)?;
        if !owned.contains(&kg) {
            return Err(Error::OutOfRange(format!(
                "row {row} has key group {kg}, which this subtask does not own ({owned:?})"
            )));
        }
        keys.prefix_mut(row).copy_from_slice(&kg.to_be_bytes());
    }
    Ok((keys, hashes))
}

/// `BinaryRowData.hashCode()` of each of `rows`.
pub fn hash_rows(rows: &BinaryRows) -> Vec<i32> {
    let mut hashes = vec![0i32; rows.len()];
    // Long rows hash faster several at a time, eight with AVX2 (decision 0015) or four; short
    // ones lose more to the bookkeeping than they gain (decisions 0003 and 0008). Long rows
    // are grouped wherever they are, so a short (NULL) key among them costs nothing more.
    let mut long = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        if row.len() >= INTERLEAVED_ROW_BYTES {
            long.push(i);
        } else {
            hashes[i] = hash_bytes_by_words(row);
        }
    }
    let mut rest = long.as_slice();
    while let Some((octet, after)) = rest.split_first_chunk::<8>() {
        let Some(eight) = hash8_bytes_by_words(octet.map(|i| rows.row(i))) else {
            break;
        };
        for (&i, h) in octet.iter().zip(eight) {
            hashes[i] = h;
        }
        rest = after;
    }
    while let Some((quad, after)) = rest.split_first_chunk::<4>() {
        let four = hash4_bytes_by_words(quad.map(|i| rows.row(i)));
        for (&i, h) in quad.iter().zip(four) {
            hashes[i] = h;
        }
        rest = after;
    }
    for &i in rest {
        hashes[i] = hash_bytes_by_words(rows.row(i));
    }
    hashes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_hashing_hashes_every_row_as_one_at_a_time() {
        // Long and short rows interleaved irregularly, so octets, quads and single rows
        // all occur, in every order.
        let lens: Vec<usize> = (0..203)
            .map(|i: usize| match (i * 7 + i / 5) % 6 {
                0 => 24,
                1 => 64,
                2 => 288,
                3 => 8,
                4 => 60,
                _ => 1032,
            })
            .collect();
        let mut data = Vec::new();
        let mut offsets = vec![0];
        for (i, len) in lens.iter().enumerate() {
            data.extend((0..*len).map(|b| (b * 31 + i * 17) as u8));
            offsets.push(data.len());
        }
        let rows = BinaryRows::from_parts(data, offsets);
        for n in [0, 1, 3, 8, 11, 203] {
            let some = BinaryRows::from_parts(
                rows.data()[..rows.offsets()[n]].to_vec(),
                rows.offsets()[..=n].to_vec(),
            );
            let expected: Vec<i32> = some.iter().map(hash_bytes_by_words).collect();
            assert_eq!(hash_rows(&some), expected, "{n} rows");
        }
    }
}
