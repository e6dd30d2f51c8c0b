//! The boundary between Flink tasks and StreamFusion.
//!
//! This crate owns everything that crosses between the JVM and the native engine:
//!
//! - [`handoff`]: record batches and changelog batches across the Arrow C Data Interface:
//!   full-schema and array-only (cached schema) export/import, imports from raw addresses,
//!   and fan-out to several consumers. Imports are zero-copy and validate what they receive.
//! - Shared transforms applied at the boundary: [`timestamps`] (unit conversion and Flink's
//!   millisecond + nanosecond-of-millisecond components), [`float_order`] (FLOAT/DOUBLE order
//!   keys that sort exactly as Flink sorts; the engine's, re-exported here) and [`partition`]
//!   (splitting one batch across destinations: contiguous runs stay shared slices, scattered
//!   rows are gathered).
//! - [`coalesce`]: after an exchange, many small changelog batches validated, their row-kind
//!   sidecars normalized, and cut into batches of a target size (shared where one batch
//!   covers an output, concatenated otherwise).
//! - [`orc_normalize`]: Arrow batches as an ORC decoder leaves them, normalized to what Flink's
//!   ORC format hands the job (CHAR trimmed and truncated, VARCHAR truncated, STRING shared,
//!   timestamps read as `java.sql.Timestamp` labels over the full year range).
//!
//! - [`transpose`]: Flink `BinaryRowData` rows (with row kinds) to and from changelog
//!   batches, over the engine's encoder and decoder.
//!
//! The JNI library that Flink loads (`streamfusion-jni`) calls the transposes; operators are
//! the engine's.
//!
//! With the `bench` feature, [`bench::CDataHandoff`] implements bench-support's `Handoff`
//! adapter over these production entry points, and the `handoffs` suite measures them.

#[cfg(feature = "bench")]
pub mod bench;
pub mod coalesce;
pub mod error;
mod export_align;
mod ffi_check;
pub mod handoff;
pub mod orc_normalize;
pub mod partition;
pub mod timestamps;
pub mod transpose;

pub use error::{BridgeError, Result};
pub use streamfusion_core::float_order;
