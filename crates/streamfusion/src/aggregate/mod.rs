//! Aggregation with Flink's changelog semantics.
//!
//! - [`group`]: the streaming GROUP BY operator ([`group::GroupAggregate`]), immediate or
//!   mini-batch, on any [`crate::state::StateBackend`].
//! - [`function`]: the aggregate functions and their accumulators.
//! - [`value`]: the scalar values accumulators hold, and their Arrow and state encodings.
//!
//! Accumulators live in keyed state, one value per group (`[key group][key]`); retracting
//! MIN/MAX also keep a sorted map per group ([`sorted_map`]). Everything is read and
//! written a bundle at a time.

pub mod function;
pub mod group;
mod sorted_map;
pub mod value;

pub use function::{AggCall, AggFunction};
pub use group::{GroupAggSpec, GroupAggregate};
