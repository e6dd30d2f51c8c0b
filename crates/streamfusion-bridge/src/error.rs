//! The bridge's error type.

use arrow::error::ArrowError;

/// Errors at the bridge. Every malformed input from the other side of the boundary maps to
/// one of these; nothing panics or reads out of bounds on bad input that the C Data
/// Interface lets us detect.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BridgeError {
    /// A pointer handed to an import was null.
    #[error("null {what} pointer passed to {operation}")]
    NullPointer {
        /// `ArrowArray` or `ArrowSchema`.
        what: &'static str,
        /// The operation that received it.
        operation: &'static str,
    },
    /// The struct was already released (moved into an earlier import, or never filled in).
    #[error("{what} was already released; a C Data struct can be imported only once")]
    Released {
        /// `ArrowArray` or `ArrowSchema`.
        what: &'static str,
    },
    /// The array's C structure does not match the data type it is imported as.
    #[error("C Data array at {path}: {problem}")]
    Malformed {
        /// Where in the nested array (e.g. `batch.items.item.payload`).
        path: String,
        /// What was wrong.
        problem: String,
    },
    /// A schema or cached schema that cannot describe a record batch.
    #[error("schema mismatch: {0}")]
    SchemaMismatch(String),
    /// A value that cannot be converted, with its row.
    #[error("{0}")]
    InvalidValue(String),
    /// Arrow rejected the data (validation, type conversion, kernels).
    #[error(transparent)]
    Arrow(#[from] ArrowError),
    /// The engine rejected the data (row kinds, shapes).
    #[error(transparent)]
    Engine(#[from] streamfusion_core::Error),
}

/// The bridge's result type.
pub type Result<T, E = BridgeError> = std::result::Result<T, E>;
