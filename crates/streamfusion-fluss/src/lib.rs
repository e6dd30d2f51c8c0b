//! Apache Fluss append routing for StreamFusion.
//!
//! A Fluss table with a bucket key (a primary-key table, or a log table declared with
//! `bucket.key`) stores each row in the bucket its writer computes from the row's bucket-key
//! columns. This crate computes those buckets over Arrow batches exactly as Fluss's writer
//! does, and splits a batch by bucket with per-bucket statistics:
//!
//! - [`murmur`]: Fluss's Murmur3 variants (and standard Murmur3 for Iceberg).
//! - [`key_encoder`]: which key encoding a table uses ([`DataLakeFormat`]) and
//!   [`encode_keys`]: the bucket-key bytes of every row, written straight from the Arrow
//!   arrays into one reused buffer. The encodings: Fluss's compacted key
//!   ([`compacted_key`]; no lake format, Lance), Paimon's `BinaryRow` ([`paimon_key`]) and
//!   Iceberg's single value ([`iceberg_key`]).
//! - [`bucketing`]: Fluss's three bucketing functions and [`bucket_ids`] for a batch.
//! - [`statistics`]: row count, NULL count and min/max bounds per column, as Fluss's log
//!   writer collects them.
//! - [`route`](mod@route): bucket ids, the per-bucket batches (zero-copy slices for
//!   contiguous runs, gathered otherwise, via the bridge's `split_by_partition`) and their
//!   statistics.
//!
//! # What Fluss does, and where
//!
//! The reference is Fluss's official Rust client, `fluss-rs` 1.0.0 (Apache License 2.0), a
//! port of Fluss's Java writer; the ported pieces name their source files.
//!
//! - A row's bucket is `bucketing(key_encoder(bucket-key columns), num_buckets)`, the key
//!   encoder and the bucketing function both chosen by the table's lake format
//!   (`client/table/append.rs`, `client/table/upsert.rs`, `row/encode/mod.rs`,
//!   `bucketing/mod.rs`).
//! - A NULL in a bucket-key column is refused by the compacted and Iceberg encoders
//!   ([`FlussError::NullKey`]); the Paimon encoder encodes it (NULL bit) in a nullable
//!   column.
//! - Fluss's byte hash sign-extends the tail bytes of a key (Java's
//!   `MurmurHashUtils.hashUnsafeBytes`); fluss-rs 1.0.0 zero-extends them and so puts some
//!   keys (any whose length is not a multiple of 4 with a tail byte `>= 0x80`, e.g. BIGINT
//!   200) in other buckets than Fluss's Java writer. This crate follows Java (see
//!   [`murmur`]).
//! - A table without a bucket key is not hashed: Fluss's writer sends its rows to a
//!   sticky or round-robin bucket (`client/write/bucket_assigner.rs`). [`bucket_ids`]
//!   refuses an empty key list ([`FlussError::NoBucketKey`]).
//!
//! # Not ported
//!
//! `ARRAY` and `ROW` key columns (Fluss's compacted encoder takes them) and unsigned
//! integer columns are refused as unsupported types. Statistics are returned as values,
//! not serialised into Fluss's V1 statistics block.

#[cfg(feature = "bench")]
pub mod bench;
pub mod bucketing;
pub mod compacted_key;
pub mod error;
pub mod iceberg_key;
mod key_columns;
pub mod key_encoder;
pub mod murmur;
pub mod paimon_key;
pub mod route;
pub mod statistics;

pub use bucketing::bucket_ids;
pub use error::{FlussError, Result};
pub use key_encoder::{DataLakeFormat, encode_keys};
pub use route::{BucketBatch, route};
pub use statistics::{Bounds, ColumnStatistics, Scalar};
pub use streamfusion_bridge::partition::SplitKind;
