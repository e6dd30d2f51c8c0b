//! Flink SQL formats for StreamFusion: the messages of a batch decoded into an Arrow batch of
//! the table's schema, and an Arrow batch encoded into one message per row, exactly as
//! Flink 2.3.0's format jars do.
//!
//! - [`json`]: `'format' = 'json'` (`flink-json`'s `JsonParserRowDataDeserializationSchema`
//!   and `JsonRowDataSerializationSchema`).
//! - [`csv`]: `'format' = 'csv'` (`flink-csv`'s `CsvRowDataDeserializationSchema` and
//!   `CsvRowDataSerializationSchema`).
//! - [`raw`]: `'format' = 'raw'` (`RawFormatDeserializationSchema` and
//!   `RawFormatSerializationSchema`).
//! - [`parquet`]: Parquet files as Flink's `flink-parquet` writes and reads them (INT96
//!   timestamps included), read through host callbacks.
//! - [`options`]: a format's DDL options (`'json.ignore-parse-errors' = 'true'`) read and
//!   checked as Flink's format factories check them.
//!
//! # The shape of a batch
//!
//! A decoder takes the messages of a batch as an Arrow [`BinaryArray`] (a NULL entry is a
//! message without a body, such as a Kafka tombstone) and returns a [`Decoded`]: a
//! [`RecordBatch`] whose columns are the table's fields in the Arrow types of
//! [`LogicalType::to_arrow`](streamfusion_core::types::LogicalType::to_arrow) (its rows in
//! message order), and the indexes of the messages that produced no row (Flink's deserializer returned `null`: a
//! NULL message, or a malformed one under `ignore-parse-errors`). An encoder takes such a
//! batch and returns one message per row as a [`BinaryArray`].
//!
//! Malformed input is a [`FormatError`] naming the message, the field and the problem,
//! never a panic.

#[cfg(feature = "bench")]
pub mod bench;
pub mod csv;
pub mod error;
mod java_text;
pub mod json;
pub mod options;
pub mod parquet;
pub mod raw;

use arrow::array::{BinaryArray, RecordBatch};

pub use error::{FormatError, Result};

/// The rows decoded from a batch of messages.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The rows, in message order: one per message that produced one, except that a JSON
    /// message holding a top-level array gives a row per element (as Flink 2.3's JSON
    /// deserializer collects each).
    pub batch: RecordBatch,
    /// The indexes (ascending) of the messages that produced no row: NULL messages, and
    /// malformed ones when the format ignores parse errors.
    pub skipped: Vec<u32>,
}

/// Decodes a batch of messages into rows of the table's schema.
pub trait Decoder {
    /// Decodes `messages`. On an error nothing of this batch is returned, and the decoder
    /// stays usable for the next batch.
    fn decode(&mut self, messages: &BinaryArray) -> Result<Decoded>;
}

/// Encodes the rows of a batch into one message each.
pub trait Encoder {
    /// Encodes every row of `batch` (whose schema is the one the encoder was built for).
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray>;
}
