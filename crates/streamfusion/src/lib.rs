//! StreamFusion: Apache Flink SQL operators executed natively over Apache Arrow.
//!
//! Flink stays the distributed engine; this crate owns the per-record work inside a task.
//! It is split along its seams, and re-exports them so `streamfusion::...` paths work
//! everywhere: `streamfusion-core` (types, changelogs, rows, keys, windows; Arrow only),
//! `streamfusion-state` (keyed state; RocksDB) and `streamfusion-calc` (Calc and row
//! movement; DataFusion). The operators and their driver live here.
//!
//! - [`changelog`]: batches of rows with Flink row kinds ([`changelog::ChangelogBatch`]), and
//!   the Arrow representation of row kinds carried by nested ROW values.
//! - [`binary_row`]: Flink `BinaryRowData` rows written from and read into Arrow columns,
//!   byte-exact with Flink, row kinds in the header byte.
//! - [`types`]: Flink logical types and the Arrow types that carry them.
//! - [`keys`]: key rows in Flink's `BinaryRowData` layout, Flink's key hashing and key-group
//!   assignment, and order-preserving state keys.
//! - [`state`]: keyed state on memory and RocksDB behind one interface, with atomic,
//!   verified checkpoints and aligned or rebuilt (rescaling) restore.
//!
//! - [`aggregate`]: the streaming GROUP BY operator with Flink's emission rules, on either
//!   state backend; two-phase and window aggregation, and OVER aggregation in event time.
//! - [`calc`]: Calc programs (projections and a filter) compiled once to DataFusion physical
//!   expressions, with Flink's scalar semantics.
//! - [`movement`]: row and column movement around Calc: dropping `-U` rows, grouping-set
//!   EXPAND, UNNEST, and changelog batches over Arrow IPC.
//! - [`window`]: Flink's TUMBLE/HOP/CUMULATE window assignment.
//! - [`sort`]: the event-time sort (`ORDER BY rowtime, ...` on a stream).
//! - [`flink`]: Flink's own JSON of a plan node (RexNodes, LogicalTypes) read into an
//!   [`ops::OperatorPlan`], or the reason it cannot run natively.
//! - [`ops`]: the one operator interface ([`ops::Operator`]) every operator implements,
//!   the keyed driver they share, production restore, and [`ops::OperatorPlan`], the plan
//!   that builds any operator.
//!
//! The other operator families build on these types
//! (see `DESIGN.md` in the project's shared documents).

pub mod aggregate;
mod attached_windows;
#[cfg(feature = "bench")]
pub mod bench;
pub mod deduplicate;
mod emissions;
pub mod flink;
pub mod join;
pub mod ops;
pub mod rank;
pub mod sort;
pub mod window_clock;
pub mod window_table;

#[cfg(feature = "bench")]
pub use streamfusion_calc::golden;
pub use streamfusion_calc::{calc, movement};
pub use streamfusion_core::{binary_row, changelog, error, float_order, keys, types, window};
pub use streamfusion_state as state;

pub use error::{Error, ErrorKind, Result};
