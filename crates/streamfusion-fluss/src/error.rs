//! The crate's error type.

use arrow::datatypes::DataType;
use arrow::error::ArrowError;
use streamfusion_bridge::BridgeError;

/// Errors of Fluss key encoding, bucketing and routing. Every input Fluss's writer refuses
/// maps to one of these; nothing panics on bad input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FlussError {
    /// No bucket-key columns were given. Fluss hashes only tables with a bucket key; a log
    /// table without one gets its buckets from the writer's sticky or round-robin assigner
    /// (`client/write/bucket_assigner.rs`), which does not depend on the row.
    #[error(
        "no bucket-key columns: Fluss hashes rows only for tables with a bucket key (a log \
         table without one is assigned buckets by the writer's sticky or round-robin assigner)"
    )]
    NoBucketKey,
    /// A bucket-key column index past the batch's columns.
    #[error("bucket-key column index {index} is out of range for a batch of {num_columns} columns")]
    KeyColumnOutOfRange {
        /// The index given.
        index: usize,
        /// Columns in the batch.
        num_columns: usize,
    },
    /// A bucket-key column whose type the chosen key encoder does not support.
    #[error(
        "bucket-key column `{column}` has type {data_type}, which the {encoder} key encoder \
         does not support"
    )]
    UnsupportedKeyType {
        /// The column's name.
        column: String,
        /// Its Arrow type.
        data_type: DataType,
        /// `Fluss compacted`, `Paimon` or `Iceberg`.
        encoder: &'static str,
    },
    /// Fluss's Iceberg key encoder takes exactly one bucket-key column.
    #[error("the Iceberg key encoder takes exactly one bucket-key column, got {0}")]
    IcebergKeyCount(usize),
    /// A NULL in a bucket-key column that the key encoder cannot encode (Fluss's compacted
    /// and Iceberg encoders refuse NULL; Paimon's refuses it in a NOT NULL column).
    #[error(
        "row {row}: cannot encode key with null value at position {position} (column `{column}`)"
    )]
    NullKey {
        /// The row.
        row: usize,
        /// Position of the column within the bucket key.
        position: usize,
        /// The column's name.
        column: String,
    },
    /// A value that Fluss cannot represent in its declared type (a decimal wider than its
    /// precision).
    #[error("row {row}: value of bucket-key column `{column}` {problem}")]
    ValueOutOfRange {
        /// The row.
        row: usize,
        /// The column's name.
        column: String,
        /// What is wrong with it.
        problem: String,
    },
    /// An encoded key of zero bytes: Fluss's bucketing functions refuse it (only the
    /// Iceberg encoding of an empty string or binary produces one).
    #[error("bucket key must not be empty{}", at_row(.row))]
    EmptyKey {
        /// The row, when the key came from a batch.
        row: Option<usize>,
    },
    /// An encoded key too long for Fluss's Murmur hash (2 GiB and more).
    #[error("encoded bucket key of {0} bytes is larger than Fluss's hash supports")]
    KeyTooLong(usize),
    /// The number of buckets must be positive.
    #[error("number of buckets must be positive, got {0}")]
    InvalidBucketCount(i32),
    /// Arrow rejected the data.
    #[error(transparent)]
    Arrow(#[from] ArrowError),
    /// Splitting the batch by bucket failed.
    #[error(transparent)]
    Split(#[from] BridgeError),
}

fn at_row(row: &Option<usize>) -> String {
    row.map(|row| format!(" (row {row})")).unwrap_or_default()
}

/// The crate's result type.
pub type Result<T, E = FlussError> = std::result::Result<T, E>;
