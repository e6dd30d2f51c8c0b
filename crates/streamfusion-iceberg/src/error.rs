//! The crate's error type. Every kind that concerns a column names its path (`a.x`,
//! `m.value`, `l.element`) so a Flink user can find the field in their DDL.

use crate::field_ids::FieldIdError;

/// Why a write, route or read failed.
#[derive(Debug, thiserror::Error)]
pub enum IcebergError {
    /// A batch field without a usable Iceberg field ID, or IDs that repeat.
    #[error(transparent)]
    FieldId(#[from] FieldIdError),
    /// A batch field whose ID is not in the table schema.
    #[error("field `{path}` has field ID {id}, which the table schema does not have")]
    UnknownFieldId {
        /// The batch field's path.
        path: String,
        /// Its ID.
        id: i32,
    },
    /// A table column the batch does not carry.
    #[error("the batch has no field with ID {id} for table column `{path}`")]
    MissingColumn {
        /// The table column's path.
        path: String,
        /// Its ID.
        id: i32,
    },
    /// A batch field whose Arrow type cannot hold the table column's Iceberg type.
    #[error("field `{path}` is {batch}, but table column `{path}` (ID {id}) needs {table}")]
    TypeMismatch {
        /// The field's path.
        path: String,
        /// Its ID.
        id: i32,
        /// The Arrow type the table column needs.
        table: String,
        /// The batch field's Arrow type.
        batch: String,
    },
    /// NULLs in a column the table declares required.
    #[error("field `{path}` has {nulls} NULL value(s), but table column `{path}` is required")]
    NullInRequired {
        /// The field's path.
        path: String,
        /// How many NULLs the batch has there.
        nulls: usize,
    },
    /// A writer used after it was closed, or closed twice.
    #[error("the data-file writer for `{path}` is already closed")]
    Closed {
        /// The file's location.
        path: String,
    },
    /// Reading or writing storage failed.
    #[error("storage `{path}`: {source}")]
    Storage {
        /// The file's location.
        path: String,
        /// What failed.
        #[source]
        source: Box<iceberg::Error>,
    },
    /// parquet-rs rejected the data or the file.
    #[error("parquet `{path}`: {source}")]
    Parquet {
        /// The file's location.
        path: String,
        /// What failed.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// An Arrow kernel failed.
    #[error(transparent)]
    Arrow(#[from] arrow::error::ArrowError),
    /// The bridge failed to split a batch.
    #[error(transparent)]
    Bridge(#[from] streamfusion_bridge::BridgeError),
    /// iceberg-rust rejected a schema, task, expression or commit.
    #[error(transparent)]
    Iceberg(Box<iceberg::Error>),
    /// The task thread's async runtime could not be started.
    #[error("starting the task thread's async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The request itself is inconsistent (what is wrong is in the message).
    #[error("{0}")]
    Invalid(String),
    /// iceberg-rust's reader failed on a data file (or one of its delete files).
    #[error("reading `{path}`: {source}")]
    Read {
        /// The file's location.
        path: String,
        /// What failed (boxed: `iceberg::Error` alone is 112 bytes).
        #[source]
        source: Box<iceberg::Error>,
    },
    /// iceberg-rust's reader panicked on a data file; the panic was caught and the read ended.
    #[error("iceberg-rust panicked reading `{path}`: {message}")]
    ReaderPanic {
        /// The data file's location.
        path: String,
        /// The panic message.
        message: String,
    },
}

impl From<iceberg::Error> for IcebergError {
    fn from(error: iceberg::Error) -> Self {
        IcebergError::Iceberg(Box::new(error))
    }
}

impl IcebergError {
    /// Storage at `path` failed.
    pub fn storage(path: &str, source: iceberg::Error) -> Self {
        IcebergError::Storage {
            path: path.to_string(),
            source: Box::new(source),
        }
    }
}

/// The crate's result.
pub type Result<T, E = IcebergError> = std::result::Result<T, E>;
