//! Calc: Flink's projections and filters, compiled once to DataFusion physical expressions.
//!
//! - [`program`]: the serializable expression IR ([`CalcProgram`], [`Expr`]) the JVM side
//!   produces, with its JSON encoding.
//! - [`compile()`]: validates a program against its input types (unknown opcode, arity,
//!   argument types, literals, casts: each a [`CalcError`] naming the expression) and builds
//!   the physical expressions once; [`CompiledCalc::evaluate`] then runs any number of
//!   batches, keeping row kinds.
//! - [`registry`]: every scalar function by stable opcode, with Flink's coercion, result types
//!   and semantics ([`functions`]).
//!
//! Flink's semantics decide wherever DataFusion's differ: Java integer arithmetic, DECIMAL
//! result types with HALF_UP rounding and overflow to NULL, IEEE float comparisons, and CASE,
//! COALESCE, AND and OR evaluating an operand only for the rows that need it.

mod cast;
mod cast_decimal;
mod coercion;
mod compile;
pub mod functions;
mod literal;
mod logic;
pub mod program;
pub mod registry;

pub use compile::{CompiledCalc, compile};
pub use program::{CalcProgram, Expr};

use datafusion::error::DataFusionError;

/// Why a Calc program does not compile, or why its evaluation failed.
///
/// `path` names the expression: `projection[2].args[0]:UPPER`, `filter.when[1]`, ...
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CalcError {
    /// The program's JSON does not decode.
    #[error("Calc program: {0}")]
    Decode(String),
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
    /// An expression failed on its input (Flink fails the job the same way).
    #[error("{path}: {message}")]
    Evaluation {
        /// The expression.
        path: String,
        /// The failure.
        message: String,
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

    fn evaluation(path: &str, e: DataFusionError) -> Self {
        // Kernels raise `Execution` errors whose message is Flink's; strip DataFusion's prefix.
        let message = match e {
            DataFusionError::Execution(m) => m,
            DataFusionError::ArrowError(e, _) => e.to_string(),
            other => other.to_string(),
        };
        CalcError::Evaluation {
            path: path.into(),
            message,
        }
    }
}

impl From<arrow::error::ArrowError> for CalcError {
    fn from(e: arrow::error::ArrowError) -> Self {
        CalcError::Evaluation {
            path: "output".into(),
            message: e.to_string(),
        }
    }
}

impl From<crate::Error> for CalcError {
    fn from(e: crate::Error) -> Self {
        CalcError::Evaluation {
            path: "output".into(),
            message: e.to_string(),
        }
    }
}
