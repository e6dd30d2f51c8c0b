//! Choosing the bucket-key encoding for a table and encoding the keys of a batch.
//!
//! Fluss's writer encodes a row's bucket-key columns with the encoder of the table's lake
//! format (`KeyEncoderFactory::of_bucket_key_encoder`, fluss-rs 1.0.0
//! `src/row/encode/mod.rs`), so that its bucket agrees with the lake's:
//!
//! | `table.datalake.format` | key encoding                          | bucketing function |
//! |-------------------------|---------------------------------------|--------------------|
//! | none                    | Fluss compacted ([`crate::compacted_key`]) | Fluss         |
//! | `lance`                 | Fluss compacted                       | Fluss              |
//! | `paimon`                | Paimon `BinaryRow` ([`crate::paimon_key`]) | Paimon        |
//! | `iceberg`               | Iceberg single value ([`crate::iceberg_key`]) | Iceberg    |
//!
//! (See [`crate::bucketing`] for the functions.) For a primary-key table whose bucket key is
//! its primary key (the default), the same bytes are its primary key bytes under KV format
//! version 1, and under version 2 with a default bucket key.

use arrow::array::{BinaryArray, BinaryBuilder, RecordBatch};

use crate::compacted_key::CompactedKeyWriter;
use crate::error::{FlussError, Result};
use crate::iceberg_key::IcebergKeyWriter;
use crate::key_columns::encode_rows;
use crate::paimon_key::PaimonKeyWriter;

/// A Fluss table's lake format (`table.datalake.format`), which picks its bucket-key
/// encoding and bucketing function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataLakeFormat {
    /// Apache Paimon.
    Paimon,
    /// Lance (buckets as a table without a lake format).
    Lance,
    /// Apache Iceberg.
    Iceberg,
}

/// Calls `each(row, key)` with the encoded bucket key of every row of `batch`, in row
/// order; the key borrows one buffer reused across rows.
///
/// `key_columns` are column indices of `batch`, in bucket-key order.
pub(crate) fn for_each_key(
    batch: &RecordBatch,
    key_columns: &[usize],
    lake: Option<DataLakeFormat>,
    each: impl FnMut(usize, &[u8]) -> Result<()>,
) -> Result<()> {
    match lake {
        None | Some(DataLakeFormat::Lance) => {
            encode_rows::<CompactedKeyWriter>(batch, key_columns, each)
        }
        Some(DataLakeFormat::Paimon) => encode_rows::<PaimonKeyWriter>(batch, key_columns, each),
        Some(DataLakeFormat::Iceberg) => {
            if key_columns.len() != 1 {
                return Err(FlussError::IcebergKeyCount(key_columns.len()));
            }
            encode_rows::<IcebergKeyWriter>(batch, key_columns, each)
        }
    }
}

/// The encoded bucket key of every row of `batch`, as Fluss's writer encodes it for a table
/// with lake format `lake` and bucket key `key_columns` (column indices, in key order).
///
/// The bucket functions of [`crate::bucketing`] hash these bytes; for a primary-key table
/// whose bucket key is its primary key they are also the KV key bytes.
///
/// # Errors
///
/// No key columns, an index out of range, a type the encoding does not take, a NULL it
/// cannot encode, a decimal wider than its precision, or (Iceberg) other than one column.
pub fn encode_keys(
    batch: &RecordBatch,
    key_columns: &[usize],
    lake: Option<DataLakeFormat>,
) -> Result<BinaryArray> {
    let mut keys = BinaryBuilder::with_capacity(batch.num_rows(), batch.num_rows() * 8);
    for_each_key(batch, key_columns, lake, |_, key| {
        keys.append_value(key);
        Ok(())
    })?;
    Ok(keys.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow::array::{Array, BinaryArray};
    use arrow::array::{
        ArrayRef, BooleanArray, Date32Array, Decimal128Array, FixedSizeBinaryArray, Float32Array,
        Float64Array, Int8Array, Int16Array, Int32Array, Int64Array, LargeStringArray, ListArray,
        StringArray, StringViewArray, Time32MillisecondArray, Time64MicrosecondArray,
        TimestampMicrosecondArray, TimestampMillisecondArray, TimestampNanosecondArray,
        TimestampSecondArray, UInt32Array,
    };
    use arrow::datatypes::{DataType, Field, Int32Type, Schema};

    use crate::bucketing::{bucket_of, iceberg_bucket};

    fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
        let fields: Vec<Field> = columns
            .iter()
            .map(|(name, array)| {
                Field::new(*name, array.data_type().clone(), array.null_count() > 0)
            })
            .collect();
        RecordBatch::try_new(
            Arc::new(Schema::new(fields)),
            columns.into_iter().map(|(_, a)| a).collect(),
        )
        .unwrap()
    }

    fn keys(
        batch: &RecordBatch,
        key_columns: &[usize],
        lake: Option<DataLakeFormat>,
    ) -> Vec<Vec<u8>> {
        encode_keys(batch, key_columns, lake)
            .unwrap()
            .iter()
            .map(|k| k.unwrap().to_vec())
            .collect()
    }

    fn one(array: ArrayRef) -> RecordBatch {
        batch(vec![("key", array)])
    }

    // Golden: fluss-rs 1.0.0 `src/row/encode/compacted_key_encoder.rs`, `test_encode_key`.
    #[test]
    fn compacted_keys_match_fluss_encode_key_test() {
        let b = batch(vec![
            ("a", Arc::new(Int32Array::from(vec![1, 2]))),
            ("b", Arc::new(Int64Array::from(vec![3, 5]))),
            ("c", Arc::new(Int32Array::from(vec![2, 6]))),
        ]);
        assert_eq!(
            keys(&b, &[0, 1, 2], None),
            vec![vec![1, 3, 2], vec![2, 5, 6]]
        );
    }

    // Golden: fluss-rs 1.0.0 `compacted_key_encoder.rs`, `test_encode_key_with_key_names`
    // and `test_int_string_as_primary_key`.
    #[test]
    fn compacted_keys_take_only_the_key_columns_in_key_order() {
        let b = batch(vec![
            ("partition", Arc::new(StringArray::from(vec!["p1"]))),
            ("f1", Arc::new(Int64Array::from(vec![1]))),
            ("f2", Arc::new(StringArray::from(vec!["a2"]))),
        ]);
        assert_eq!(keys(&b, &[2], None), vec![vec![2, 97, 50]]);

        let b = batch(vec![
            ("s0", Arc::new(StringArray::from(vec!["a1"]))),
            ("i", Arc::new(Int32Array::from(vec![1]))),
            ("s2", Arc::new(StringArray::from(vec!["a2"]))),
            ("s3", Arc::new(StringArray::from(vec!["a3"]))),
        ]);
        assert_eq!(keys(&b, &[1, 2], None), vec![vec![1, 2, 97, 50]]);
    }

    // Golden: fluss-rs 1.0.0 `compacted_key_encoder.rs`, `test_null_primary_key`: Fluss refuses
    // a NULL key field ("Cannot encode key with null value at position: 2").
    #[test]
    fn compacted_keys_refuse_null_with_its_position() {
        let b = batch(vec![
            ("a", Arc::new(Int32Array::from(vec![1, 1]))),
            ("b", Arc::new(Int64Array::from(vec![3, 3]))),
            ("c", Arc::new(Int32Array::from(vec![Some(2), None]))),
            ("d", Arc::new(StringArray::from(vec!["a2", "a2"]))),
        ]);
        let err = encode_keys(&b, &[0, 1, 2], None).unwrap_err();
        assert!(
            matches!(&err, FlussError::NullKey { row: 1, position: 2, column } if column == "c"),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "row 1: cannot encode key with null value at position 2 (column `c`)"
        );
        // Row 0 alone encodes.
        assert_eq!(keys(&b.slice(0, 1), &[0, 1, 2], None), vec![vec![1, 3, 2]]);
        // Lance buckets like a table without a lake format.
        assert!(matches!(
            encode_keys(&b, &[2], Some(DataLakeFormat::Lance)),
            Err(FlussError::NullKey { .. })
        ));
    }

    // Golden: fluss-rs 1.0.0 `compacted_key_encoder.rs`, `test_all_data_types_java_compatible`,
    // whose bytes come from Fluss's Java `encoded_key.hex` (the scalar fields; ARRAY fields
    // are not ported). Values from Java's `IndexedRowTest.genRecordForAllTypes()`.
    #[test]
    fn compacted_keys_of_every_scalar_type_match_fluss_java_bytes() {
        let ts_millis = 1_698_235_273_182_i64;
        let b = batch(vec![
            ("boolean", Arc::new(BooleanArray::from(vec![true]))),
            ("tinyint", Arc::new(Int8Array::from(vec![2]))),
            ("smallint", Arc::new(Int16Array::from(vec![10]))),
            ("int", Arc::new(Int32Array::from(vec![100]))),
            (
                "bigint",
                Arc::new(Int64Array::from(vec![-6_101_065_172_474_983_726])),
            ),
            ("float", Arc::new(Float32Array::from(vec![13.2]))),
            ("double", Arc::new(Float64Array::from(vec![15.21]))),
            ("date", Arc::new(Date32Array::from(vec![19_655]))),
            (
                "time",
                Arc::new(Time32MillisecondArray::from(vec![34_200_000])),
            ),
            (
                "binary20",
                Arc::new(BinaryArray::from(vec![&b"1234567890"[..]])),
            ),
            ("bytes", Arc::new(BinaryArray::from(vec![&b"20"[..]]))),
            ("char2", Arc::new(StringArray::from(vec!["1"]))),
            ("string", Arc::new(StringArray::from(vec!["hello"]))),
            (
                "decimal_5_2",
                Arc::new(
                    Decimal128Array::from(vec![9])
                        .with_precision_and_scale(5, 2)
                        .unwrap(),
                ),
            ),
            (
                "decimal_20_0",
                Arc::new(
                    Decimal128Array::from(vec![10])
                        .with_precision_and_scale(20, 0)
                        .unwrap(),
                ),
            ),
            (
                "timestamp_1",
                Arc::new(TimestampMillisecondArray::from(vec![ts_millis])),
            ),
            (
                "timestamp_5",
                Arc::new(TimestampMicrosecondArray::from(vec![ts_millis * 1_000])),
            ),
            (
                "timestamp_ltz_1",
                Arc::new(TimestampMillisecondArray::from(vec![ts_millis]).with_timezone("UTC")),
            ),
            (
                "timestamp_ltz_5",
                Arc::new(
                    TimestampMicrosecondArray::from(vec![ts_millis * 1_000]).with_timezone("UTC"),
                ),
            ),
        ]);
        #[rustfmt::skip]
        let expected: Vec<u8> = vec![
            0x01,                                                       // BOOLEAN true
            0x02,                                                       // TINYINT 2
            0x0A, 0x00,                                                 // SMALLINT 10
            0x64,                                                       // INT 100
            0xD2, 0x95, 0xFC, 0xD8, 0xCE, 0xB1, 0xAA, 0xAA, 0xAB, 0x01, // BIGINT
            0x33, 0x33, 0x53, 0x41,                                     // FLOAT 13.2
            0xEC, 0x51, 0xB8, 0x1E, 0x85, 0x6B, 0x2E, 0x40,             // DOUBLE 15.21
            0xC7, 0x99, 0x01,                                           // DATE 2023-10-25
            0xC0, 0xB3, 0xA7, 0x10,                                     // TIME 09:30:00.0
            0x0A, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x30, // BINARY(20)
            0x02, 0x32, 0x30,                                           // BYTES "20"
            0x01, 0x31,                                                 // CHAR(2) "1"
            0x05, 0x68, 0x65, 0x6C, 0x6C, 0x6F,                         // STRING "hello"
            0x09,                                                       // DECIMAL(5,2) 0.09
            0x01, 0x0A,                                                 // DECIMAL(20,0) 10
            0xDE, 0x9F, 0xD7, 0xB5, 0xB6, 0x31,                         // TIMESTAMP(1)
            0xDE, 0x9F, 0xD7, 0xB5, 0xB6, 0x31, 0x00,                   // TIMESTAMP(5)
            0xDE, 0x9F, 0xD7, 0xB5, 0xB6, 0x31,                         // TIMESTAMP_LTZ(1)
            0xDE, 0x9F, 0xD7, 0xB5, 0xB6, 0x31, 0x00,                   // TIMESTAMP_LTZ(5)
        ];
        let all: Vec<usize> = (0..b.num_columns()).collect();
        assert_eq!(keys(&b, &all, None), vec![expected]);
    }

    #[test]
    fn arrow_variants_of_one_fluss_type_encode_alike() {
        let strings = keys(&one(Arc::new(StringArray::from(vec!["héllo"]))), &[0], None);
        let large = keys(
            &one(Arc::new(LargeStringArray::from(vec!["héllo"]))),
            &[0],
            None,
        );
        let view = keys(
            &one(Arc::new(StringViewArray::from(vec!["héllo"]))),
            &[0],
            None,
        );
        assert_eq!((&strings, &large), (&view, &view));

        let binary = keys(
            &one(Arc::new(BinaryArray::from(vec![&b"abc"[..]]))),
            &[0],
            None,
        );
        let fixed = FixedSizeBinaryArray::try_from_iter([b"abc"].into_iter()).unwrap();
        assert_eq!(keys(&one(Arc::new(fixed)), &[0], None), binary);

        // TIMESTAMP(0) and TIMESTAMP(3) are compact; TIMESTAMP(9) carries nanos.
        let seconds = keys(
            &one(Arc::new(TimestampSecondArray::from(vec![-2]))),
            &[0],
            None,
        );
        let millis = keys(
            &one(Arc::new(TimestampMillisecondArray::from(vec![-2_000]))),
            &[0],
            None,
        );
        assert_eq!(seconds, millis);
        let nanos = keys(
            &one(Arc::new(TimestampNanosecondArray::from(vec![-1]))),
            &[0],
            None,
        );
        // millis -1 as varint u64, then nano_of_milli 999_999 as varint u32.
        let mut expected = vec![0xFF; 9];
        expected.push(0x01);
        expected.extend([0xBF, 0x84, 0x3D]);
        assert_eq!(nanos, vec![expected]);

        // TIME(6) truncates to milliseconds.
        let micros = keys(
            &one(Arc::new(Time64MicrosecondArray::from(vec![1_999]))),
            &[0],
            None,
        );
        assert_eq!(micros, vec![vec![0x01]]);
    }

    #[test]
    fn unsupported_types_are_typed_errors_naming_the_type() {
        let list = ListArray::from_iter_primitive::<Int32Type, _, _>([Some(vec![Some(1)])]);
        let err = encode_keys(&one(Arc::new(list)), &[0], None).unwrap_err();
        assert!(
            matches!(
                &err,
                FlussError::UnsupportedKeyType {
                    data_type: DataType::List(_),
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("List"), "{err}");

        let err = encode_keys(&one(Arc::new(UInt32Array::from(vec![1]))), &[0], None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "bucket-key column `key` has type UInt32, which the Fluss compacted key encoder \
             does not support"
        );

        let b = one(Arc::new(BooleanArray::from(vec![true])));
        let err = encode_keys(&b, &[0], Some(DataLakeFormat::Iceberg)).unwrap_err();
        assert!(err.to_string().contains("Boolean") && err.to_string().contains("Iceberg"));
        let ltz = TimestampMillisecondArray::from(vec![1]).with_timezone("UTC");
        assert!(matches!(
            encode_keys(&one(Arc::new(ltz)), &[0], Some(DataLakeFormat::Iceberg)),
            Err(FlussError::UnsupportedKeyType { .. })
        ));
    }

    #[test]
    fn key_columns_are_validated() {
        let b = one(Arc::new(Int32Array::from(vec![1])));
        assert!(matches!(
            encode_keys(&b, &[], None),
            Err(FlussError::NoBucketKey)
        ));
        assert!(matches!(
            encode_keys(&b, &[1], None),
            Err(FlussError::KeyColumnOutOfRange {
                index: 1,
                num_columns: 1
            })
        ));
        let two = batch(vec![
            ("a", Arc::new(Int32Array::from(vec![1]))),
            ("b", Arc::new(Int32Array::from(vec![2]))),
        ]);
        for cols in [&[][..], &[0, 1][..]] {
            let err = encode_keys(&two, cols, Some(DataLakeFormat::Iceberg)).unwrap_err();
            assert!(matches!(err, FlussError::IcebergKeyCount(n) if n == cols.len()));
        }
    }

    #[test]
    fn decimals_wider_than_their_precision_are_refused() {
        let d = Decimal128Array::from(vec![1, 1_000])
            .with_precision_and_scale(3, 0)
            .unwrap();
        let err = encode_keys(&one(Arc::new(d)), &[0], None).unwrap_err();
        assert!(
            matches!(err, FlussError::ValueOutOfRange { row: 1, .. }),
            "{err:?}"
        );
    }

    // Golden: fluss-rs 1.0.0 `src/row/encode/paimon_key_encoder.rs` tests.
    #[test]
    fn paimon_keys_match_fluss_paimon_encoder_tests() {
        let b = batch(vec![
            ("pk", Arc::new(Int32Array::from(vec![42]))),
            ("other", Arc::new(StringArray::from(vec!["hi"]))),
        ]);
        let key = &keys(&b, &[0], Some(DataLakeFormat::Paimon))[0];
        assert_eq!(key.len(), 16);
        assert_eq!(key[0], 0);
        assert_eq!(&key[8..12], &42_i32.to_le_bytes());

        let b = batch(vec![
            ("other", Arc::new(StringArray::from(vec!["ignored"]))),
            ("pk1", Arc::new(Int32Array::from(vec![7]))),
            ("pk2", Arc::new(StringArray::from(vec!["hi"]))),
        ]);
        let key = &keys(&b, &[1, 2], Some(DataLakeFormat::Paimon))[0];
        assert_eq!(key.len(), 24);
        assert_eq!(&key[8..12], &7_i32.to_le_bytes());
        assert_eq!(&key[16..18], b"hi");
        assert_eq!(key[23], 0x82);
    }

    #[test]
    fn paimon_encodes_null_in_a_nullable_column_only() {
        let b = batch(vec![
            ("a", Arc::new(Int32Array::from(vec![Some(7), None]))),
            ("b", Arc::new(Int64Array::from(vec![1, 2]))),
        ]);
        let k = keys(&b, &[0, 1], Some(DataLakeFormat::Paimon));
        assert_eq!(k[1][1], 0x01, "null bit of field 0");
        assert_eq!(&k[1][8..16], &[0; 8]);
        assert_eq!(&k[1][16..24], &2_i64.to_le_bytes());
        assert_eq!(k[0][1], 0x00);

        // An array with NULLs under a NOT NULL field (no RecordBatch check on this path).
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, false)]));
        let b = RecordBatch::try_new_with_options(
            schema,
            vec![Arc::new(Int32Array::from(vec![Some(1), None]))],
            &Default::default(),
        );
        // Arrow itself refuses such a batch, so a NOT NULL key column never holds a NULL.
        assert!(b.is_err());
    }

    // Golden: fluss-rs 1.0.0 `src/row/encode/iceberg_key_encoder.rs`,
    // `hashes_iceberg_appendix_b_vectors` (Iceberg spec, Appendix B): with i32::MAX buckets
    // the bucket is the hash with its sign bit cleared.
    #[test]
    fn iceberg_keys_hash_to_the_iceberg_spec_vectors() {
        let cases: Vec<(ArrayRef, i32)> = vec![
            (Arc::new(Int32Array::from(vec![34])), 2_017_239_379),
            (Arc::new(Int64Array::from(vec![34])), 2_017_239_379),
            (
                Arc::new(
                    Decimal128Array::from(vec![1_420])
                        .with_precision_and_scale(4, 2)
                        .unwrap(),
                ),
                -500_754_589,
            ),
            (Arc::new(Date32Array::from(vec![17_486])), -653_330_422),
            (
                Arc::new(Time32MillisecondArray::from(vec![81_068_000])),
                -662_762_989,
            ),
            (
                Arc::new(TimestampMicrosecondArray::from(vec![1_510_871_468_000_000])),
                -2_047_944_441,
            ),
            (
                Arc::new(TimestampMicrosecondArray::from(vec![1_510_871_468_000_001])),
                -1_207_196_810,
            ),
            (Arc::new(StringArray::from(vec!["iceberg"])), 1_210_000_089),
            (
                Arc::new(
                    FixedSizeBinaryArray::try_from_iter([[0_u8, 1, 2, 3]].into_iter()).unwrap(),
                ),
                -188_683_207,
            ),
            (
                Arc::new(BinaryArray::from(vec![&[0_u8, 1, 2, 3][..]])),
                -188_683_207,
            ),
        ];
        for (array, hash) in cases {
            let data_type = array.data_type().clone();
            let key = &keys(&one(array), &[0], Some(DataLakeFormat::Iceberg))[0];
            let bucket = bucket_of(key, i32::MAX, Some(DataLakeFormat::Iceberg)).unwrap();
            assert_eq!(bucket, hash & i32::MAX, "{data_type}");
            assert_eq!(iceberg_bucket(key, i32::MAX).unwrap(), bucket);
        }
    }

    // fluss-rs 1.0.0 `iceberg_key_encoder.rs`: `rejects_null_key_without_panicking` and
    // `reuses_writer_across_rows`.
    #[test]
    fn iceberg_keys_refuse_null_and_reuse_the_writer() {
        let b = one(Arc::new(Int32Array::from(vec![Some(1), None])));
        assert!(matches!(
            encode_keys(&b, &[0], Some(DataLakeFormat::Iceberg)),
            Err(FlussError::NullKey {
                row: 1,
                position: 0,
                ..
            })
        ));
        let b = one(Arc::new(StringArray::from(vec![
            "a longer first key",
            "short",
        ])));
        assert_eq!(
            keys(&b, &[0], Some(DataLakeFormat::Iceberg)),
            vec![b"a longer first key".to_vec(), b"short".to_vec()]
        );
    }
}
