//! Bucket ids from encoded bucket keys, and for every row of a batch.
//!
//! Fluss's three bucketing functions (`BucketingFunction::of`, fluss-rs 1.0.0
//! `src/bucketing/mod.rs`), each over the key bytes of its lake format's encoder
//! ([`crate::key_encoder`]):
//!
//! ```text
//! Fluss (no lake format, Lance)   fluss_hash_i32(fluss_hash_bytes(key)) % n
//! Paimon                          |fluss_hash_bytes(key) % n|      (Java's remainder)
//! Iceberg                         (murmur3_32(key) as i32 & i32::MAX) % n
//! ```
//!
//! All three refuse an empty key and `n <= 0`. A row's bucket in Fluss's writer
//! (`client/table/append.rs` `BucketRouter::bucket_of`, `client/table/upsert.rs`
//! `get_keys`, `client/write/bucket_assigner.rs` `HashBucketAssigner`) is the bucketing
//! function of the key encoder's bytes; a table without a bucket key is not hashed (its
//! writer picks buckets with a sticky or round-robin assigner).
//!
//! Ported from Apache Fluss's Rust client `fluss-rs` 1.0.0, `src/bucketing/mod.rs`
//! (Apache License 2.0).

use arrow::array::{RecordBatch, UInt32Array};

use crate::error::{FlussError, Result};
use crate::key_encoder::{DataLakeFormat, for_each_key};
use crate::murmur::{fluss_hash_bytes, fluss_hash_i32, murmur3_32};

/// Fluss's default bucketing function (`FlussBucketingFunction`).
pub fn fluss_bucket(key: &[u8], num_buckets: i32) -> Result<i32> {
    check(key, num_buckets)?;
    Ok(fluss_unchecked(key, num_buckets))
}

/// The Paimon lake bucketing function (`PaimonBucketingFunction`).
pub fn paimon_bucket(key: &[u8], num_buckets: i32) -> Result<i32> {
    check(key, num_buckets)?;
    Ok(paimon_unchecked(key, num_buckets))
}

/// The Iceberg lake bucketing function (`IcebergBucketingFunction`).
pub fn iceberg_bucket(key: &[u8], num_buckets: i32) -> Result<i32> {
    check(key, num_buckets)?;
    Ok(iceberg_unchecked(key, num_buckets))
}

/// The bucket of an encoded key under the bucketing function of lake format `lake`.
pub fn bucket_of(key: &[u8], num_buckets: i32, lake: Option<DataLakeFormat>) -> Result<i32> {
    check(key, num_buckets)?;
    Ok(unchecked(key, num_buckets, lake))
}

/// The bucket of every row of `batch`, as Fluss's writer computes it for a table with
/// bucket key `key_columns` (column indices, in key order), `num_buckets` buckets and lake
/// format `lake`.
///
/// Each row's key is encoded into one reused buffer and hashed before the next row's.
///
/// # Errors
///
/// `num_buckets <= 0`; anything [`crate::key_encoder::encode_keys`] refuses; an empty
/// encoded key (Iceberg: an empty string or binary); a key of 2 GiB or more.
pub fn bucket_ids(
    batch: &RecordBatch,
    key_columns: &[usize],
    num_buckets: i32,
    lake: Option<DataLakeFormat>,
) -> Result<UInt32Array> {
    if num_buckets <= 0 {
        return Err(FlussError::InvalidBucketCount(num_buckets));
    }
    let mut ids = Vec::with_capacity(batch.num_rows());
    for_each_key(batch, key_columns, lake, |row, key| {
        check_key(key).map_err(|e| match e {
            FlussError::EmptyKey { .. } => FlussError::EmptyKey { row: Some(row) },
            other => other,
        })?;
        // Non-negative and below `num_buckets`: every function reduces modulo it.
        ids.push(unchecked(key, num_buckets, lake) as u32);
        Ok(())
    })?;
    Ok(UInt32Array::from(ids))
}

fn check(key: &[u8], num_buckets: i32) -> Result<()> {
    check_key(key)?;
    if num_buckets <= 0 {
        return Err(FlussError::InvalidBucketCount(num_buckets));
    }
    Ok(())
}

#[inline]
fn check_key(key: &[u8]) -> Result<()> {
    if key.is_empty() {
        return Err(FlussError::EmptyKey { row: None });
    }
    if key.len() >= i32::MAX as usize {
        return Err(FlussError::KeyTooLong(key.len()));
    }
    Ok(())
}

#[inline]
fn unchecked(key: &[u8], num_buckets: i32, lake: Option<DataLakeFormat>) -> i32 {
    match lake {
        None | Some(DataLakeFormat::Lance) => fluss_unchecked(key, num_buckets),
        Some(DataLakeFormat::Paimon) => paimon_unchecked(key, num_buckets),
        Some(DataLakeFormat::Iceberg) => iceberg_unchecked(key, num_buckets),
    }
}

#[inline]
fn fluss_unchecked(key: &[u8], num_buckets: i32) -> i32 {
    fluss_hash_i32(fluss_hash_bytes(key)) % num_buckets
}

#[inline]
fn paimon_unchecked(key: &[u8], num_buckets: i32) -> i32 {
    (fluss_hash_bytes(key) % num_buckets).abs()
}

#[inline]
fn iceberg_unchecked(key: &[u8], num_buckets: i32) -> i32 {
    (murmur3_32(key) as i32 & i32::MAX) % num_buckets
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow::array::{Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};

    const UUID: &[u8] = b"2bb87d68-baf9-4e64-90f9-f80910419fa6";
    const FOX: &[u8] = b"The quick brown fox jumps over the lazy dog";

    /// `(key, buckets, expected)` for each function: fluss-rs 1.0.0 `src/bucketing/mod.rs`,
    /// `test_default_bucketing`, `test_lance_bucketing`, `test_paimon_bucketing` and
    /// `test_iceberg_bucketing` (mirroring Fluss's Java bucketing tests).
    #[test]
    fn buckets_match_fluss_bucketing_tests() {
        let keys: [(&[u8], i32); 4] = [(&[0, 10], 7), (&[0, 10, 10, 10], 12), (UUID, 16), (FOX, 8)];
        let expected: [(Option<DataLakeFormat>, [i32; 4]); 4] = [
            (None, [1, 0, 6, 6]),
            (Some(DataLakeFormat::Lance), [1, 0, 6, 6]),
            (Some(DataLakeFormat::Paimon), [1, 11, 12, 0]),
            (Some(DataLakeFormat::Iceberg), [3, 4, 12, 3]),
        ];
        for (lake, buckets) in expected {
            for ((key, n), want) in keys.iter().zip(buckets) {
                assert_eq!(bucket_of(key, *n, lake).unwrap(), want, "{lake:?} {key:?}");
            }
        }
        assert_eq!(fluss_bucket(UUID, 16).unwrap(), 6);
        assert_eq!(paimon_bucket(UUID, 16).unwrap(), 12);
        assert_eq!(iceberg_bucket(UUID, 16).unwrap(), 12);
    }

    // Golden: Fluss's Java `FlussBucketingFunction.bucketForRowKey` run on OpenJDK 17
    // (`tests/java/FlussMurmur.java`): keys whose tail bytes are >= 0x80, where fluss-rs
    // 1.0.0 (zero-extending them) disagrees with Java.
    #[test]
    fn buckets_of_high_tail_bytes_match_fluss_java() {
        let cases: [(&[u8], i32, i32); 6] = [
            (&[0x80], 128, 94),
            (&[0xFF], 128, 89),
            (&[0xC8, 0x01], 128, 38),
            (
                &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
                128,
                55,
            ),
            (&[0x01, 0x02, 0x03, 0x04, 0xAB, 0xCD, 0xEF], 1_000, 682),
            (&[0x02, 0xC3, 0xA9], 16, 6),
        ];
        for (key, n, want) in cases {
            assert_eq!(fluss_bucket(key, n).unwrap(), want, "{key:02X?}");
        }
        // The same through a batch: BIGINT 200 and -1 are the compacted keys above.
        let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
        let batch =
            RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(vec![200, -1]))]).unwrap();
        assert_eq!(
            bucket_ids(&batch, &[0], 128, None).unwrap().values(),
            &[38, 55]
        );
        let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, false)]));
        let batch =
            RecordBatch::try_new(schema, vec![Arc::new(StringArray::from(vec!["é", "hé"]))])
                .unwrap();
        assert_eq!(
            bucket_ids(&batch, &[0], 16, None).unwrap().values(),
            &[6, 4]
        );
    }

    #[test]
    fn empty_keys_and_non_positive_bucket_counts_are_refused() {
        for lake in [
            None,
            Some(DataLakeFormat::Paimon),
            Some(DataLakeFormat::Iceberg),
        ] {
            assert!(matches!(
                bucket_of(&[], 4, lake),
                Err(FlussError::EmptyKey { row: None })
            ));
            for n in [0, -1, i32::MIN] {
                assert!(matches!(
                    bucket_of(b"k", n, lake),
                    Err(FlussError::InvalidBucketCount(m)) if m == n
                ));
            }
        }
        let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
        let batch =
            RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(vec![1, 2]))]).unwrap();
        let err = bucket_ids(&batch, &[0], 0, None).unwrap_err();
        assert_eq!(err.to_string(), "number of buckets must be positive, got 0");
    }

    #[test]
    fn an_empty_iceberg_string_key_is_refused_with_its_row() {
        let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Utf8, false)]));
        let batch =
            RecordBatch::try_new(schema, vec![Arc::new(StringArray::from(vec!["a", ""]))]).unwrap();
        let err = bucket_ids(&batch, &[0], 4, Some(DataLakeFormat::Iceberg)).unwrap_err();
        assert!(
            matches!(err, FlussError::EmptyKey { row: Some(1) }),
            "{err:?}"
        );
        assert_eq!(err.to_string(), "bucket key must not be empty (row 1)");
        // The compacted encoding prefixes the length, so an empty string is a 1-byte key.
        assert_eq!(bucket_ids(&batch, &[0], 4, None).unwrap().len(), 2);
    }

    #[test]
    fn batch_buckets_are_the_bucket_of_each_encoded_key() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        let ids = Int64Array::from_iter_values((0..200).map(|i| i * 7_919 - 500));
        let strings = StringArray::from_iter_values((0..200).map(|i| format!("key-{i}")));
        let batch = RecordBatch::try_new(schema, vec![Arc::new(ids), Arc::new(strings)]).unwrap();
        for lake in [
            None,
            Some(DataLakeFormat::Paimon),
            Some(DataLakeFormat::Iceberg),
        ] {
            for cols in [&[0][..], &[1], &[1, 0]] {
                if lake == Some(DataLakeFormat::Iceberg) && cols.len() > 1 {
                    continue;
                }
                let keys = crate::key_encoder::encode_keys(&batch, cols, lake).unwrap();
                let buckets = bucket_ids(&batch, cols, 13, lake).unwrap();
                for row in 0..200 {
                    let want = bucket_of(keys.value(row), 13, lake).unwrap();
                    assert_eq!(
                        buckets.value(row) as i32,
                        want,
                        "{lake:?} {cols:?} row {row}"
                    );
                    assert!((0..13).contains(&want));
                }
            }
        }
    }
}
