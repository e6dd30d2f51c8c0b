//! The crate's error type.

use arrow::error::ArrowError;

/// The crate's result type.
pub type Result<T, E = FormatError> = std::result::Result<T, E>;

/// Errors of decoding and encoding. Each says which message or row, which field and what
/// was wrong; nothing panics on bad input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// A message that does not decode into a row of the table's schema (and the format does
    /// not ignore parse errors). `field` is the path of the field (`user.tags[2]`), empty
    /// for the message as a whole.
    #[error("{format} message {index}{}: {problem}", field_suffix(field))]
    Malformed {
        /// `JSON`, `CSV`, `raw`.
        format: &'static str,
        /// The message's index in the batch.
        index: usize,
        /// The field's path, empty for the whole message.
        field: String,
        /// What was wrong, with Flink's wording where it has one.
        problem: String,
    },
    /// A row that the format cannot write, as Flink's serializer fails on it.
    #[error("{format} row {index}{}: {problem}", field_suffix(field))]
    Unencodable {
        /// `JSON`, `CSV`, `raw`.
        format: &'static str,
        /// The row's index in the batch.
        index: usize,
        /// The field's path, empty for the whole row.
        field: String,
        /// What was wrong.
        problem: String,
    },
    /// A format option that Flink's factory would refuse, or a combination of them.
    #[error("option `{key}`: {problem}")]
    Option {
        /// The option's key as written in the DDL.
        key: String,
        /// What was wrong.
        problem: String,
    },
    /// A table schema the format does not map (as Flink's factory refuses it), or one this
    /// implementation does not run natively (then the planner keeps Flink's format).
    #[error("{format} format: {problem}")]
    Unsupported {
        /// `JSON`, `CSV`, `raw`.
        format: &'static str,
        /// What is not supported.
        problem: String,
    },
    /// A batch handed to an encoder whose schema is not the encoder's.
    #[error("{format} encoder: {problem}")]
    Schema {
        /// `JSON`, `CSV`, `raw`.
        format: &'static str,
        /// What differs.
        problem: String,
    },
    /// An Arrow error building the output.
    #[error(transparent)]
    Arrow(#[from] ArrowError),
}

fn field_suffix(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!(", field `{field}`")
    }
}
