//! Aggregation with Flink's changelog semantics.
//!
//! - [`group`]: the streaming GROUP BY operator ([`group::GroupAggregate`]), immediate or
//!   mini-batch, on any [`crate::state::StateBackend`].
//! - [`function`]: the aggregate functions and their accumulators.
//! - [`local_global`]: two-phase aggregation, [`local_global::LocalGroupAggregate`] (per
//!   bundle, no state: one typed partial row per key) and
//!   [`local_global::GlobalGroupAggregate`] (merges partials into keyed state and emits).
//! - [`window`]: window aggregation over TUMBLE, HOP and CUMULATE
//!   ([`window::WindowAggregate`], one phase or the global phase): accumulators per key and
//!   slice, fired by watermarks; [`window_local`], the stateless local phase.
//! - [`session`]: SESSION window aggregation ([`session::SessionWindowAggregate`]): each
//!   key's sessions merged as rows arrive, accumulators per session, fired by watermarks.
//! - [`over`]: OVER aggregation in event time ([`over::OverAggregate`]): ROWS and RANGE
//!   frames, bounded or unbounded preceding, rows waiting in keyed state for the watermark.
//! - [`value`]: the scalar values accumulators hold, and their Arrow and state encodings.
//!
//! Accumulators live in keyed state, one value per group (`[key group][key]`); retracting
//! MIN/MAX and DISTINCT calls also keep a sorted map per group and call ([`sorted_map`]);
//! LISTAGG and retracting FIRST_VALUE/LAST_VALUE keep their value lists inside the
//! accumulator. Everything is read and written a bundle at a time. Two-phase partials and
//! buffers hold their maps in the accumulator ([`function`]'s local accumulators).
//!
//! A group's accumulators are one row of a typed state table ([`crate::state::rows`], with
//! `acc_codec` describing them): stored encoded on RocksDB (and with state TTL), kept
//! decoded between bundles on the memory backend (decision 0020), encoded only for
//! checkpoints and other readers, as Flink's heap backend keeps objects.
//! Plans of integer `COUNT`/`SUM`/`SUM0` calls apply a mini-batch bundle column by column
//! (`typed_bundle`, decision 0021); on the heap such a bundle groups its rows through the
//! table itself and edits it in place, with a rollback.

mod acc_codec;
pub mod function;
pub mod group;
pub mod local_global;
mod operator;
pub mod over;
pub mod session;
mod sorted_map;
mod typed_bundle;
pub mod value;
pub mod window;
pub mod window_local;

pub use function::{AggCall, AggFunction};
pub use group::{GroupAggSpec, GroupAggregate};
pub use local_global::{GlobalGroupAggregate, LocalGroupAggregate};
pub use over::{OverAggregate, OverFrame, OverSpec};
pub use session::{SessionWindowAggSpec, SessionWindowAggregate};
pub use window::{WindowAggSpec, WindowAggregate};
