//! Column and row movement around Calc: the operators that reshape rows without computing
//! new values.
//!
//! - [`update_before`]: dropping `-U` rows (Flink's `DropUpdateBeforeFunction`), for sinks and
//!   operators that need only the new content of an update.
//! - [`expand`]: grouping sets (Flink's `ExpandOperator`): every input row once per projection
//!   list, with the grouping-set id.
//! - [`unnest`]: `CROSS JOIN UNNEST` and `LEFT JOIN UNNEST ... ON TRUE` of arrays, maps and
//!   arrays of one-field ROWs, optionally `WITH ORDINALITY`.
//! - [`ipc`]: changelog batches in the Arrow IPC stream format, row kinds included.
//!
//! Every operator keeps each output row's kind from its input row.

pub mod expand;
pub mod ipc;
pub mod unnest;
pub mod update_before;
