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
//! - [`upcall`]: calls without a kernel, evaluated by the host (Flink's generated code in the
//!   JVM) once per batch.
//! - [`range`]: the DATE, TIME and TIMESTAMP ranges Calc writes; a value outside them is an
//!   out-of-range [`CalcError`] (decision 0023).
//!
//! Flink's semantics decide wherever DataFusion's differ: Java integer arithmetic, DECIMAL
//! result types with HALF_UP rounding and overflow to NULL, IEEE float comparisons, and CASE,
//! COALESCE, AND and OR evaluating an operand only for the rows that need it.

mod cast;
/// CAST of strings to DECIMAL; its Unicode digit table is shared with the formats crate.
pub mod cast_decimal;
mod coercion;
mod compile;
pub mod functions;
mod literal;
mod logic;
pub mod program;
pub mod range;
pub mod registry;
pub mod upcall;

pub use compile::{CompiledCalc, compile};
pub use functions::temporal_values::Zone;
pub use program::{CalcProgram, Expr, FloatText, Upcall, java_feature_version};
pub use upcall::{UpcallDef, UpcallHost};

pub use streamfusion_core::error::CalcError;

use datafusion::error::DataFusionError;

/// An evaluation error of the expression at `path` from a DataFusion error: kernels raise
/// `Execution` errors whose message is Flink's, so DataFusion's prefix is stripped; a
/// [`range::OutOfRange`] anywhere in the chain marks it out of range.
pub(crate) fn evaluation_error(path: &str, e: DataFusionError) -> CalcError {
    if let Some(range) = range::out_of_range(&e) {
        return CalcError::Evaluation {
            path: path.into(),
            message: range.to_string(),
            out_of_range: true,
        };
    }
    let message = match e {
        DataFusionError::Execution(m) => m,
        DataFusionError::ArrowError(e, _) => e.to_string(),
        other => other.to_string(),
    };
    CalcError::Evaluation {
        path: path.into(),
        message,
        out_of_range: false,
    }
}
