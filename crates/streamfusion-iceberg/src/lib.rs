//! Iceberg data files for StreamFusion.
//!
//! This crate owns what StreamFusion writes to and reads from Iceberg tables: the data-file
//! writer over parquet-rs, routing one batch to its destination writers, and the task
//! reader. What has landed so far:
//!
//! - [`field_ids`]: Iceberg field IDs on Arrow schemas: assigning fresh IDs in Iceberg's own
//!   order, and reading them back with an error that names any field without one (a legacy
//!   file written without field IDs) or any duplicate.
//!
//! Next (see the project's DESIGN.md): the Parquet data-file writer with column statistics
//! and a retained-memory estimate, destination routing over the bridge's partition splits,
//! and the iceberg-rust task reader.

pub mod field_ids;
