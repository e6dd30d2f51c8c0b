//! The library's error type and the one place errors map to Java exception classes.

use streamfusion_bridge::BridgeError;

/// Everything that can go wrong in a JNI entry point. Each variant maps to one Java exception
/// class ([`NativeError::java_class`]); the exception's message is the error's `Display`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NativeError {
    /// A plan that cannot be parsed or does not fit its input.
    #[error("invalid plan: {0}")]
    InvalidPlan(String),
    /// A handle that names no live operator: closed, forged, or from another process.
    #[error("unknown or closed operator handle {0}")]
    UnknownHandle(i64),
    /// Input rows (or their offsets) that cannot be read.
    #[error("invalid input rows: {0}")]
    InvalidInput(BridgeError),
    /// An argument Java must not pass (a NULL array, a negative length, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A snapshot that is truncated, corrupted or of an unknown version.
    #[error("invalid snapshot: {0}")]
    InvalidSnapshot(String),
    /// An operator left unusable by an earlier native panic.
    #[error("operator handle {0} is unusable after an earlier native panic; close it")]
    Poisoned(i64),
    /// An expression failed on the pushed rows (as Flink's job fails, e.g. on `/ by zero`).
    #[error("expression failed: {0}")]
    Evaluation(String),
    /// Output that cannot be produced (an engine or encoding failure).
    #[error("{0}")]
    Internal(BridgeError),
    /// A JNI call failed (a pending Java exception is left to propagate as is).
    #[error("JNI: {0}")]
    Jni(#[from] jni::errors::Error),
    /// A panic in native code, caught at the boundary.
    #[error("native panic: {0}")]
    Panic(String),
}

/// The library's result type.
pub type Result<T, E = NativeError> = std::result::Result<T, E>;

/// `java.lang.IllegalArgumentException`.
pub const ILLEGAL_ARGUMENT: &str = "java/lang/IllegalArgumentException";
/// `java.lang.IllegalStateException`.
pub const ILLEGAL_STATE: &str = "java/lang/IllegalStateException";
/// `java.lang.RuntimeException`.
pub const RUNTIME: &str = "java/lang/RuntimeException";

impl NativeError {
    /// The Java exception class thrown for this error (JNI binary name): bad input, plan,
    /// snapshot or handle -> `IllegalArgumentException`; an operator that can no longer be
    /// used -> `IllegalStateException`; anything else -> `RuntimeException`.
    pub fn java_class(&self) -> &'static str {
        match self {
            NativeError::InvalidPlan(_)
            | NativeError::UnknownHandle(_)
            | NativeError::InvalidInput(_)
            | NativeError::InvalidArgument(_)
            | NativeError::InvalidSnapshot(_) => ILLEGAL_ARGUMENT,
            NativeError::Poisoned(_) => ILLEGAL_STATE,
            NativeError::Evaluation(_)
            | NativeError::Internal(_)
            | NativeError::Jni(_)
            | NativeError::Panic(_) => RUNTIME,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_and_handles_are_illegal_arguments_and_panics_runtime_exceptions() {
        assert_eq!(NativeError::UnknownHandle(7).java_class(), ILLEGAL_ARGUMENT);
        assert_eq!(
            NativeError::InvalidPlan("x".into()).java_class(),
            ILLEGAL_ARGUMENT
        );
        assert_eq!(NativeError::Poisoned(7).java_class(), ILLEGAL_STATE);
        assert_eq!(NativeError::Panic("boom".into()).java_class(), RUNTIME);
        assert_eq!(
            NativeError::UnknownHandle(12345).to_string(),
            "unknown or closed operator handle 12345"
        );
    }
}
