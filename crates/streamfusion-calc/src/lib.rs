//! StreamFusion's Calc: Flink's projections and filters, compiled once to DataFusion physical
//! expressions, and the row movement around them. Re-exported by `streamfusion`.
//!
//! - [`calc`]: Calc programs (projections and a filter) compiled once to DataFusion physical
//!   expressions, with Flink's scalar semantics.
//! - [`movement`]: row and column movement around Calc: dropping `-U` rows, grouping-set
//!   EXPAND, UNNEST, and changelog batches over Arrow IPC.
//! - [`golden`] (feature `bench`): the released-Flink Calc vectors read back as cases.

pub mod calc;
#[cfg(feature = "bench")]
pub mod golden;
pub mod movement;

pub(crate) use streamfusion_core::{changelog, error, types};
