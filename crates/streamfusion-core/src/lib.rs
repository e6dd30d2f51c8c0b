//! StreamFusion's core: what every other crate builds on, over Arrow alone.
//!
//! - [`changelog`]: batches of rows with Flink row kinds ([`changelog::ChangelogBatch`]), and
//!   the Arrow representation of row kinds carried by nested ROW values.
//! - [`binary_row`]: Flink `BinaryRowData` rows written from and read into Arrow columns,
//!   byte-exact with Flink, row kinds in the header byte.
//! - [`types`]: Flink logical types and the Arrow types that carry them.
//! - [`keys`]: key rows in Flink's `BinaryRowData` layout, Flink's key hashing and key-group
//!   assignment, order-preserving state keys, and the state-key layout.
//! - [`window`]: Flink's TUMBLE/HOP/CUMULATE window assignment.
//! - [`float_order`]: FLOAT/DOUBLE as unsigned keys in `Double.compare` order, the one
//!   such key of the project.
//! - [`error`]: the one error type of the engine's crates, with its kinds.

#[cfg(feature = "bench")]
mod bench;
pub mod binary_row;
pub mod changelog;
pub mod decimal;
pub mod error;
pub mod float_order;
pub mod keys;
pub mod types;
pub mod window;

pub use error::{Error, ErrorKind, Result};
