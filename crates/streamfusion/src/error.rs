//! The engine's error type.

use arrow::error::ArrowError;

/// Errors raised by the engine. Invariant violations carry enough context to name the
/// offending column and row.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A row-kind byte outside Flink's four kinds (`+I`=0, `-U`=1, `+U`=2, `-D`=3).
    #[error("invalid row kind byte {byte} at row {row} of {context}")]
    InvalidRowKind {
        /// What carried the bytes (a batch, or a nested column path).
        context: String,
        /// The row (or nested element) index.
        row: usize,
        /// The offending byte.
        byte: i8,
    },
    /// Two parts of a value disagree on their length.
    #[error("{context}: {left_name} has {left} rows but {right_name} has {right}")]
    LengthMismatch {
        /// What was being built or checked.
        context: String,
        /// The first side's name.
        left_name: &'static str,
        /// The first side's length.
        left: usize,
        /// The second side's name.
        right_name: &'static str,
        /// The second side's length.
        right: usize,
    },
    /// Row kinds may not be NULL.
    #[error("row kinds of {context} contain {nulls} NULL(s); every row needs a kind")]
    NullRowKind {
        /// What carried the kinds.
        context: String,
        /// How many NULLs were found.
        nulls: usize,
    },
    /// A type name that cannot be parsed or is not supported.
    #[error("invalid type {0}")]
    InvalidType(String),
    /// A column whose Arrow type does not carry the declared Flink type.
    #[error("column {column} is declared {logical} (Arrow {expected}) but holds {found}")]
    ColumnType {
        /// The column index.
        column: usize,
        /// The declared Flink type.
        logical: String,
        /// The Arrow type that carries it.
        expected: String,
        /// The Arrow type found.
        found: String,
    },
    /// An argument outside its valid range (parallelism, key group, ...).
    #[error("{0}")]
    OutOfRange(String),
    /// A checkpoint that cannot be used: missing, truncated, corrupted or from elsewhere.
    #[error("checkpoint {path}: {problem}")]
    Checkpoint {
        /// The checkpoint directory (or file) at fault.
        path: std::path::PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// A file-system operation failed.
    #[error("{operation} {path}: {source}")]
    Io {
        /// What was being done.
        operation: &'static str,
        /// The file or directory.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// RocksDB reported an error.
    #[error("RocksDB: {0}")]
    RocksDb(#[from] rocksdb::Error),
    /// A reservation that would exceed the task's memory budget.
    #[error(
        "memory budget exceeded: {holder} asked for {requested} bytes with {reserved} of {limit} reserved"
    )]
    BudgetExceeded {
        /// Who asked.
        holder: String,
        /// How much.
        requested: u64,
        /// Reserved by everyone before the request.
        reserved: u64,
        /// The budget.
        limit: u64,
    },
    /// State used against its contract (unknown table, malformed key, bad options).
    #[error("state: {0}")]
    State(String),
    /// A column had a shape the operation does not accept.
    #[error("{0}")]
    InvalidShape(String),
    /// An Arrow kernel failed.
    #[error(transparent)]
    Arrow(#[from] ArrowError),
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`Error::Io`] for `operation` on `path`.
    pub(crate) fn io(
        operation: &'static str,
        path: impl Into<std::path::PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io {
            operation,
            path,
            source,
        }
    }
}
