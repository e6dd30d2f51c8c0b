//! Iceberg data files for StreamFusion.
//!
//! This crate owns what StreamFusion writes to and reads from Iceberg tables, over
//! iceberg-rust 0.10 and parquet-rs:
//!
//! - [`field_ids`]: Iceberg field IDs on Arrow schemas: assigning fresh IDs in Iceberg's own
//!   order, and reading them back with an error that names any field without one.
//! - [`batch_check`]: a batch against the table schema (IDs, types, nullability), with the
//!   cheap representation fix-ups (timestamp zone spelling) that copy no payload.
//! - [`data_file_writer`]: one Parquet data file per writer through parquet-rs, with field IDs
//!   on every column and the statistics Iceberg keeps ([`column_stats`]), closed into an
//!   iceberg-rust `DataFile`; its retained-memory estimate feeds task memory accounting.
//! - [`routing`]: one batch to 1..N writers by a destination index per row.
//! - [`runtime`]: the current-thread async runtime of a native task thread.
//! - [`task_reader`]: a file scan task read through iceberg-rust's `ArrowReader`, with the
//!   adaptations Flink needs ([`read_adapt`], [`float_filter`], [`split_range`]).
//!
//! Decision 0058 records why the writer is our own over parquet-rs while the reader is
//! iceberg-rust's.

pub mod batch_check;
#[cfg(feature = "bench")]
pub mod bench;
pub mod column_stats;
pub mod data_file_writer;
pub mod error;
pub mod field_ids;
pub mod routing;
pub mod runtime;
// Reader modules.
pub mod float_filter;
pub mod read_adapt;
pub mod split_range;
pub mod task_reader;

pub use error::{IcebergError, Result};
