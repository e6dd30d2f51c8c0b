//! The library's error type and the one place errors map to Java exception classes.
//!
//! Java reacts to a failure by its kind, so each kind is its own class: an engine error
//! ([`streamfusion::Error`]) is thrown as the class of its [`ErrorKind`], all subclasses of
//! `org.streamfusion.jni.NativeException` (a `RuntimeException`). Misuse of the boundary
//! itself (an unknown handle, a null argument) stays `IllegalArgumentException`, an operator
//! poisoned by a panic `IllegalStateException`, and what no caller can react to (a panic, a
//! JNI failure, output that cannot be encoded) `RuntimeException`.

use streamfusion::ErrorKind;
use streamfusion_bridge::BridgeError;

/// Everything that can go wrong in a JNI entry point. Each variant maps to one Java exception
/// class ([`NativeError::java_class`]); the exception's message is the error's `Display`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NativeError {
    /// The engine failed: a plan that cannot run, data it refuses, state or checkpoints it
    /// cannot use, an exhausted budget, or an internal failure ([`streamfusion::Error::kind`]).
    #[error(transparent)]
    Engine(#[from] streamfusion::Error),
    /// A Flink plan node that cannot run natively: the reason names the Flink function, type
    /// or feature ([`streamfusion::flink::Unsupported`]); the planner keeps the node stock.
    #[error("{0}")]
    Unsupported(#[from] streamfusion::flink::Unsupported),
    /// Runtime settings (backend, working directory, key groups) that cannot be used.
    #[error("invalid runtime settings: {0}")]
    InvalidRuntime(String),
    /// Input rows (or their offsets) that cannot be read.
    #[error("invalid input rows: {0}")]
    InvalidInput(BridgeError),
    /// A handle that names no live operator: closed, forged, or from another process.
    #[error("unknown or closed operator handle {0}")]
    UnknownHandle(i64),
    /// An argument Java must not pass (a null string or array, an input that does not exist).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// An operator left unusable by an earlier native panic.
    #[error("operator handle {0} is unusable after an earlier native panic; close it")]
    Poisoned(i64),
    /// Output that cannot be encoded as rows.
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

/// `org.streamfusion.jni.NativeException`: an engine error of kind `Internal`, and the
/// superclass of the other `Native*Exception`s.
pub const NATIVE: &str = "org/streamfusion/jni/NativeException";
/// `org.streamfusion.jni.NativePlanException`: the plan (or its runtime settings) cannot run.
pub const NATIVE_PLAN: &str = "org/streamfusion/jni/NativePlanException";
/// `org.streamfusion.jni.NativeDataException`: rows the operator cannot read or process.
pub const NATIVE_DATA: &str = "org/streamfusion/jni/NativeDataException";
/// `org.streamfusion.jni.NativeStateException`: state or checkpoints that cannot be used.
pub const NATIVE_STATE: &str = "org/streamfusion/jni/NativeStateException";
/// `org.streamfusion.jni.NativeResourceException`: a resource (the memory budget) ran out.
pub const NATIVE_RESOURCE: &str = "org/streamfusion/jni/NativeResourceException";
/// `java.lang.IllegalArgumentException`.
pub const ILLEGAL_ARGUMENT: &str = "java/lang/IllegalArgumentException";
/// `java.lang.IllegalStateException`.
pub const ILLEGAL_STATE: &str = "java/lang/IllegalStateException";
/// `java.lang.RuntimeException`.
pub const RUNTIME: &str = "java/lang/RuntimeException";

/// The Java exception class of an engine error of `kind` (JNI binary name).
pub fn class_of_kind(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Plan => NATIVE_PLAN,
        ErrorKind::Data => NATIVE_DATA,
        ErrorKind::State => NATIVE_STATE,
        ErrorKind::ResourceExhausted => NATIVE_RESOURCE,
        ErrorKind::Internal => NATIVE,
    }
}

impl NativeError {
    /// The Java exception class thrown for this error (JNI binary name): an engine error by
    /// its kind ([`class_of_kind`]); a Flink node that cannot run natively and bad runtime
    /// settings as a plan error and unreadable rows as a data error; an unknown handle or bad
    /// argument -> `IllegalArgumentException`; a poisoned operator -> `IllegalStateException`;
    /// a panic, a JNI failure or output that cannot be encoded -> `RuntimeException`.
    pub fn java_class(&self) -> &'static str {
        match self {
            NativeError::Engine(e) => class_of_kind(e.kind()),
            NativeError::Unsupported(_) | NativeError::InvalidRuntime(_) => NATIVE_PLAN,
            NativeError::InvalidInput(_) => NATIVE_DATA,
            NativeError::UnknownHandle(_) | NativeError::InvalidArgument(_) => ILLEGAL_ARGUMENT,
            NativeError::Poisoned(_) => ILLEGAL_STATE,
            NativeError::Internal(_) | NativeError::Jni(_) | NativeError::Panic(_) => RUNTIME,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use streamfusion::Error;

    fn engine(error: Error) -> NativeError {
        NativeError::Engine(error)
    }

    #[test]
    fn plan_errors_are_native_plan_exceptions() {
        let error = engine(Error::Plan("unknown variant `nope`".into()));
        assert_eq!(error.java_class(), NATIVE_PLAN);
        assert_eq!(error.to_string(), "invalid plan: unknown variant `nope`");
        assert_eq!(
            engine(Error::InvalidType("`NOPE`".into())).java_class(),
            NATIVE_PLAN
        );
        assert_eq!(
            NativeError::InvalidRuntime("unknown backend".into()).java_class(),
            NATIVE_PLAN
        );
        let unsupported = NativeError::from(streamfusion::flink::Unsupported::Function(
            "$REPEAT$1".into(),
        ));
        assert_eq!(unsupported.java_class(), NATIVE_PLAN);
        assert_eq!(
            unsupported.to_string(),
            "function $REPEAT$1 is not supported"
        );
    }

    #[test]
    fn data_errors_and_unreadable_rows_are_native_data_exceptions() {
        assert_eq!(
            engine(Error::InvalidShape("partial rows are all +I".into())).java_class(),
            NATIVE_DATA
        );
        let unreadable = NativeError::InvalidInput(BridgeError::InvalidValue(
            "row offset 1 is negative: -8".into(),
        ));
        assert_eq!(unreadable.java_class(), NATIVE_DATA);
        assert_eq!(
            unreadable.to_string(),
            "invalid input rows: row offset 1 is negative: -8"
        );
    }

    #[test]
    fn state_errors_are_native_state_exceptions() {
        let error = engine(Error::Checkpoint {
            path: "/cp/1".into(),
            problem: "MANIFEST.json is missing".into(),
        });
        assert_eq!(error.java_class(), NATIVE_STATE);
        assert_eq!(
            error.to_string(),
            "checkpoint /cp/1: MANIFEST.json is missing"
        );
        assert_eq!(engine(Error::State("x".into())).java_class(), NATIVE_STATE);
    }

    #[test]
    fn an_exhausted_budget_is_a_native_resource_exception() {
        let error = engine(Error::BudgetExceeded {
            holder: "group-agg".into(),
            requested: 10,
            reserved: 95,
            limit: 100,
        });
        assert_eq!(error.java_class(), NATIVE_RESOURCE);
    }

    #[test]
    fn internal_engine_errors_are_plain_native_exceptions() {
        let error = engine(Error::Io {
            operation: "read",
            path: "/x".into(),
            source: std::io::Error::other("disk gone"),
        });
        assert_eq!(error.java_class(), NATIVE);
    }

    #[test]
    fn boundary_misuse_poisoning_and_panics_keep_their_java_lang_classes() {
        assert_eq!(NativeError::UnknownHandle(7).java_class(), ILLEGAL_ARGUMENT);
        assert_eq!(
            NativeError::InvalidArgument("plan is null".into()).java_class(),
            ILLEGAL_ARGUMENT
        );
        assert_eq!(NativeError::Poisoned(7).java_class(), ILLEGAL_STATE);
        assert_eq!(NativeError::Panic("boom".into()).java_class(), RUNTIME);
        assert_eq!(
            NativeError::Internal(BridgeError::InvalidValue("too big".into())).java_class(),
            RUNTIME
        );
        assert_eq!(
            NativeError::Jni(jni::errors::Error::NullPtr("x")).java_class(),
            RUNTIME
        );
        assert_eq!(
            NativeError::UnknownHandle(12345).to_string(),
            "unknown or closed operator handle 12345"
        );
    }
}
