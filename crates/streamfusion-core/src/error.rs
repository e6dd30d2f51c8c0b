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
    /// A checkpoint that is intact but cannot be restored by this plan: written by another
    /// operator, state version or plan.
    #[error("checkpoint {path}: {problem}")]
    IncompatibleCheckpoint {
        /// The checkpoint directory.
        path: std::path::PathBuf,
        /// What differs.
        problem: Incompatibility,
    },
    /// An operator plan that cannot be parsed or built.
    #[error("invalid plan: {0}")]
    Plan(String),
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
    /// The storage engine (RocksDB) reported an error.
    #[error("RocksDB: {0}")]
    RocksDb(String),
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
    /// SINGLE_VALUE saw a second row for a group: Flink fails the job with
    /// `SingleValueAggFunction received more than one element.`
    #[error("SingleValueAggFunction received more than one element. ({detail})")]
    SingleValue {
        /// What the second row was: an accumulation, a retraction or a merge, with counts.
        detail: String,
    },
    /// A column had a shape the operation does not accept.
    #[error("{0}")]
    InvalidShape(String),
    /// A `BinaryRowData` row that cannot be read.
    #[error("BinaryRowData row {row}{}: {problem}", .field.map(|f| format!(" field {f}")).unwrap_or_default())]
    MalformedRow {
        /// The row index within the input.
        row: usize,
        /// The field at fault, or `None` for a problem of the whole row.
        field: Option<usize>,
        /// What is wrong.
        problem: RowProblem,
    },
    /// An Arrow kernel failed.
    #[error(transparent)]
    Arrow(#[from] ArrowError),
    /// A Calc program that does not compile, or an expression that failed on its input.
    #[error(transparent)]
    Calc(#[from] CalcError),
}

/// Why a checkpoint cannot be restored by a plan (see [`Error::IncompatibleCheckpoint`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Incompatibility {
    /// Written by another kind of operator.
    #[error("written by a {stored} operator, not {expected}")]
    Kind {
        /// The kind that wrote it.
        stored: String,
        /// The plan's kind.
        expected: String,
    },
    /// Written by another version of the operator's state layout.
    #[error("{kind} state version {stored} is not the supported version {supported}")]
    Version {
        /// The operator kind.
        kind: String,
        /// The version that wrote it.
        stored: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// Written for a plan whose semantics differ.
    #[error("written for a different plan: {}", .differences.join("; "))]
    Plan {
        /// Each differing field: `path: checkpoint X, plan Y`.
        differences: Vec<String>,
    },
    /// Its operator metadata is missing, unreadable or of another format.
    #[error("{0}")]
    Metadata(String),
}

/// What kind of failure an [`Error`] is, for a caller that reacts by kind (the JNI layer
/// throws one Java exception class per kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The plan cannot run: a bad type, expression, aggregate call or operator plan. The
    /// planner falls back to Flink's operator.
    Plan,
    /// The data cannot be processed: malformed rows, a value an expression or aggregate
    /// refuses (as Flink's job fails on it).
    Data,
    /// State or checkpoints: missing, corrupt, incompatible, or used against their contract.
    State,
    /// A resource ran out: the memory budget.
    ResourceExhausted,
    /// Anything else: I/O, RocksDB, an Arrow kernel.
    Internal,
}

impl Error {
    /// The kind of this failure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidType(_) | Error::Plan(_) => ErrorKind::Plan,
            Error::Calc(e) if e.is_compile_error() => ErrorKind::Plan,
            Error::Calc(_)
            | Error::InvalidRowKind { .. }
            | Error::LengthMismatch { .. }
            | Error::NullRowKind { .. }
            | Error::ColumnType { .. }
            | Error::InvalidShape(_)
            | Error::SingleValue { .. }
            | Error::MalformedRow { .. }
            | Error::OutOfRange(_) => ErrorKind::Data,
            Error::Checkpoint { .. } | Error::IncompatibleCheckpoint { .. } | Error::State(_) => {
                ErrorKind::State
            }
            Error::BudgetExceeded { .. } => ErrorKind::ResourceExhausted,
            Error::Io { .. } | Error::RocksDb(_) | Error::Arrow(_) => ErrorKind::Internal,
        }
    }
}

/// What is wrong with a malformed `BinaryRowData` row (see [`Error::MalformedRow`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RowProblem {
    /// The row ends inside its null bits or fixed-length slots.
    #[error("{len} bytes is shorter than the fixed part of {fixed} bytes")]
    ShorterThanFixedPart {
        /// The row's length.
        len: usize,
        /// The fixed part's length.
        fixed: usize,
    },
    /// Flink rows are whole 8-byte words.
    #[error("length {len} is not a multiple of 8")]
    UnalignedLength {
        /// The row's length.
        len: usize,
    },
    /// A header byte outside Flink's four row kinds.
    #[error("unknown row kind byte {byte}")]
    UnknownRowKind {
        /// The header byte.
        byte: i8,
    },
    /// A variable-part offset and length that reach outside the row.
    #[error("variable part of {len} bytes at offset {offset} ends past the row's {row_len} bytes")]
    OutsideRow {
        /// The offset from the slot.
        offset: u64,
        /// The length read there.
        len: u64,
        /// The row's length.
        row_len: usize,
    },
    /// An inline string or binary longer than a slot holds.
    #[error("inline length {len} is larger than 7")]
    InlineTooLong {
        /// The length in the slot's top byte.
        len: u8,
    },
    /// A non-compact DECIMAL of no bytes or more than 16.
    #[error("decimal byte length {len} is not in 1..=16")]
    DecimalLength {
        /// The byte length in the slot.
        len: u64,
    },
    /// An unscaled DECIMAL value with more digits than its precision.
    #[error("unscaled decimal {value} does not fit precision {precision}")]
    DecimalOverflow {
        /// The unscaled value.
        value: i128,
        /// The declared precision.
        precision: u8,
    },
    /// A CHAR/VARCHAR that is not UTF-8.
    #[error("invalid UTF-8 after {valid_up_to} valid bytes")]
    InvalidUtf8 {
        /// Bytes of the value that are valid UTF-8.
        valid_up_to: usize,
    },
    /// A `TimestampData` with `nanoOfMillisecond` outside `0..=999_999`.
    #[error("nanoOfMillisecond {nanos} is larger than 999999")]
    NanosOutOfRange {
        /// The slot's low 32 bits, unsigned.
        nanos: u32,
    },
    /// A nested ROW value that cannot be read: `field` is the nested row's own field at
    /// fault (`None` for the nested row as a whole).
    #[error("nested row{}: {problem}", .field.map(|f| format!(" field {f}")).unwrap_or_default())]
    NestedRow {
        /// The nested row's field at fault, or `None`.
        field: Option<usize>,
        /// What is wrong inside the nested row.
        problem: Box<RowProblem>,
    },
    /// A nested ROW value whose header is not `+I`: a key's nested rows are always `+I`, and
    /// the Arrow struct that carries them has no kind to keep another one in.
    #[error("nested row kind byte {byte} is not +I (0)")]
    NestedRowKind {
        /// The nested row's header byte.
        byte: i8,
    },
    /// An ARRAY value (or a MAP's key or value array) that cannot be read: `element` is the
    /// element at fault (`None` for the array as a whole).
    #[error("array{}: {problem}", .element.map(|e| format!(" element {e}")).unwrap_or_default())]
    NestedArray {
        /// The array's element at fault, or `None`.
        element: Option<usize>,
        /// What is wrong inside the array.
        problem: Box<RowProblem>,
    },
    /// A `BinaryArrayData` shorter than its count, null bits and element slots need.
    #[error("{len} bytes is shorter than the {needed} bytes the array's header and slots need")]
    ArrayTooShort {
        /// The array's length.
        len: usize,
        /// The bytes its fixed part needs.
        needed: usize,
    },
    /// A `BinaryArrayData` with a negative element count.
    #[error("negative array element count {count}")]
    NegativeArraySize {
        /// The count in the array's first 4 bytes.
        count: i32,
    },
    /// A MAP value whose key or value array cannot be read.
    #[error("map {}: {problem}", if *.keys { "keys" } else { "values" })]
    NestedMap {
        /// Whether the key array (else the value array) is at fault.
        keys: bool,
        /// What is wrong with it.
        problem: Box<RowProblem>,
    },
    /// A `BinaryMapData` without its 4-byte key-array size.
    #[error("map of {len} bytes has no 4-byte key-array size")]
    MapTooShort {
        /// The map's length.
        len: usize,
    },
    /// A `BinaryMapData` whose key-array size is negative or reaches past the map.
    #[error("key array of {key_bytes} bytes does not fit a map of {len} bytes")]
    MapKeyArrayOutside {
        /// The key-array size in the map's first 4 bytes.
        key_bytes: i32,
        /// The map's length.
        len: usize,
    },
    /// A `BinaryMapData` with a different number of keys and values.
    #[error("map has {keys} keys but {values} values")]
    MapSizesDiffer {
        /// Elements in the key array.
        keys: usize,
        /// Elements in the value array.
        values: usize,
    },
    /// A timestamp that the Arrow unit cannot hold exactly.
    #[error("timestamp {millis} ms + {nanos} ns is not representable in {unit}")]
    TimestampUnrepresentable {
        /// Epoch milliseconds.
        millis: i64,
        /// Nanoseconds of the millisecond.
        nanos: u32,
        /// The Arrow unit (`Millisecond`, `Microsecond`, `Nanosecond`).
        unit: String,
    },
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`Error::Io`] for `operation` on `path`.
    pub fn io(
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

/// Why a Calc program does not compile, or why its evaluation failed.
///
/// `path` names the expression: `projection[2].args[0]:UPPER`, `filter.when[1]`, ...
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CalcError {
    /// The program's JSON does not decode.
    #[error("Calc program: {0}")]
    Decode(String),
    /// A host was bound to a program's upcalls that has one already.
    #[error("the program's upcalls are bound to a host already")]
    UpcallsBound,
    /// A call's opcode is not in the registry.
    #[error("{path}: unknown function opcode {opcode}")]
    UnknownOpcode {
        /// The expression.
        path: String,
        /// The opcode.
        opcode: u16,
    },
    /// A call with the wrong number of arguments.
    #[error("{path}: {function} takes {expected} argument(s), not {found}")]
    Arity {
        /// The expression.
        path: String,
        /// The function's name.
        function: String,
        /// What it accepts.
        expected: String,
        /// What it got.
        found: usize,
    },
    /// A call whose argument types the function does not accept.
    #[error("{path}: {function}({}) is not supported: {reason}", .types.join(", "))]
    ArgumentTypes {
        /// The expression.
        path: String,
        /// The function's name.
        function: String,
        /// The argument types.
        types: Vec<String>,
        /// Why.
        reason: String,
    },
    /// A literal whose text is not a value of its type.
    #[error("{path}: bad {ty} literal: {reason}")]
    Literal {
        /// The expression.
        path: String,
        /// The literal's type.
        ty: String,
        /// Why.
        reason: String,
    },
    /// A cast Flink does not support.
    #[error("{path}: cannot cast {from} to {to}: {reason}")]
    Cast {
        /// The expression.
        path: String,
        /// The source type.
        from: String,
        /// The target type.
        to: String,
        /// Why.
        reason: String,
    },
    /// A reference to an input field that does not exist.
    #[error("{path}: input field {index} does not exist (the input has {arity} fields)")]
    InputRef {
        /// The expression.
        path: String,
        /// The field index.
        index: usize,
        /// How many input fields there are.
        arity: usize,
    },
    /// A condition or logical operand that is not BOOLEAN.
    #[error("{path}: expected BOOLEAN, found {found}")]
    NotBoolean {
        /// The expression.
        path: String,
        /// Its type.
        found: String,
    },
    /// CASE/COALESCE results with no common type.
    #[error("{path}: {left} and {right} have no common type")]
    NoCommonType {
        /// The expression.
        path: String,
        /// One result type.
        left: String,
        /// Another.
        right: String,
    },
    /// Output names that do not match the projections.
    #[error("{names} output names for {projections} projections")]
    Names {
        /// How many names.
        names: usize,
        /// How many projections.
        projections: usize,
    },
    /// A batch whose columns are not the compiled input types.
    #[error("input columns [{}] do not match the program's input [{}]", .found.join(", "), .expected.join(", "))]
    InputSchema {
        /// The program's input types.
        expected: Vec<String>,
        /// The batch's Arrow types.
        found: Vec<String>,
    },
    /// An expression failed on its input (Flink fails the job the same way), or computed a
    /// DATE, TIME or TIMESTAMP that Calc does not write (`out_of_range`, decision 0023).
    #[error("{path}: {message}")]
    Evaluation {
        /// The expression.
        path: String,
        /// The failure.
        message: String,
        /// Whether the failure is a temporal value outside its type's range or carrier: Flink
        /// may have computed a value there, so a caller can hand the input to Flink instead.
        out_of_range: bool,
    },
}

impl CalcError {
    /// Whether the program itself is at fault (it does not compile), rather than the data
    /// it ran on (an evaluation or input-schema error).
    pub fn is_compile_error(&self) -> bool {
        !matches!(
            self,
            CalcError::Evaluation { .. } | CalcError::InputSchema { .. }
        )
    }

    /// Whether an evaluation failed on a DATE, TIME or TIMESTAMP outside its type's range or
    /// its carrier (TIMESTAMP(7..9) as 64-bit nanoseconds), where Flink may compute a value.
    pub fn is_out_of_range(&self) -> bool {
        matches!(
            self,
            CalcError::Evaluation {
                out_of_range: true,
                ..
            }
        )
    }
}

impl From<arrow::error::ArrowError> for CalcError {
    fn from(e: arrow::error::ArrowError) -> Self {
        CalcError::Evaluation {
            path: "output".into(),
            message: e.to_string(),
            out_of_range: false,
        }
    }
}

impl From<Error> for CalcError {
    fn from(e: Error) -> Self {
        CalcError::Evaluation {
            path: "output".into(),
            message: e.to_string(),
            out_of_range: false,
        }
    }
}
