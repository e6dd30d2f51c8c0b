//! `libstreamfusion_jni`: the JNI library a Flink task loads to run StreamFusion operators.
//!
//! This crate owns the JVM boundary and nothing else: the `Java_org_streamfusion_jni_NativeOperator_*`
//! exports declared by `java/src/org/streamfusion/jni/NativeOperator.java`, the mapping of
//! native errors and panics to Java exceptions, and the opaque `long` handles by which Java
//! names a native operator. Decoding and encoding Flink `BinaryRowData` rows is the bridge's
//! ([`streamfusion_bridge::transpose`]); operators are the engine's.
//!
//! - [`ffi`]: THE wrapper every export runs inside ([`ffi::entry`]): panics are caught,
//!   errors become Java exceptions, nothing unwinds into the JVM. [`error`] maps each error
//!   to its Java exception class, in one place.
//! - [`handles`]: the process-wide registry of live operators. A handle is an opaque id, never
//!   a pointer; closed, forged and foreign handles are rejected by lookup, never dereferenced.
//! - [`operator`]: the operator run behind a handle ([`operator::HostedOperator`]): any native
//!   operator, built from its JSON plan (`streamfusion::ops::OperatorPlan`: Calc, GROUP BY,
//!   the two-phase GROUP BY pair) under JSON runtime settings ([`operator::Runtime`]: state
//!   backend, working directory, key groups), driven through `streamfusion::ops::Operator`,
//!   checkpointed to and restored from published checkpoint directories.
//! - [`exports`]: the JNI entry points themselves.
//!
//! # Java API
//!
//! `org.streamfusion.jni.NativeOperator` loads this library (from the system property
//! `streamfusion.jni.path` if set, else `System.loadLibrary("streamfusion_jni")`) and declares:
//!
//! | Java (static, native)                                              | Native                                         |
//! |--------------------------------------------------------------------|------------------------------------------------|
//! | `long create(String plan, String runtime)`                         | [`operator::HostedOperator::create`]           |
//! | `String planFromFlink(String nodeJson, String configJson)`         | `streamfusion::flink::plan_node`               |
//! | `Object[] push(long handle, int input, byte[] data, int[] offsets)` | [`operator::HostedOperator::push`]            |
//! | `Object[] advanceWatermark(long handle, long watermark)`           | [`operator::HostedOperator::advance_watermark`] |
//! | `Object[] flush(long handle)`                                      | [`operator::HostedOperator::flush`]            |
//! | `Object[] prepareSnapshot(long handle)`                            | [`operator::HostedOperator::prepare_snapshot`] |
//! | `void snapshot(long handle, String directory)`                     | [`operator::HostedOperator::snapshot`]         |
//! | `long restore(String plan, String runtime, String[] checkpointDirectories)` | [`operator::HostedOperator::restore`] |
//! | `void bindUpcalls(long handle, Upcalls upcalls)`                   | [`upcalls::JvmUpcalls`], bound to the operator |
//! | `void close(long handle)`                                          | [`handles::remove`]                            |
//! | `int liveOperators()`                                              | [`handles::live`]                              |
//! | `void panicForTesting(String message)` (package-private)           | a panic, caught by [`ffi::entry`]              |
//!
//! Rows cross the boundary as Flink `BinaryRowData` rows back to back in one `byte[]`, plus
//! `rows + 1` `int` offsets (`data[offsets[i]..offsets[i + 1]]` is row `i`; its header byte is
//! its row kind). `push`, `advanceWatermark`, `flush` and `prepareSnapshot` return what the
//! operator emitted as `Object[] { byte[] data, int[] offsets }` in the same shape, which Java
//! wraps as `BinaryRowData` without further copying.
//!
//! Errors are thrown by kind ([`error::NativeError::java_class`]): subclasses of
//! `org.streamfusion.jni.NativeException` for the engine's plan, data, state and resource
//! errors; `IllegalArgumentException` for an unknown handle or a null argument;
//! `IllegalStateException` for an operator poisoned by a panic; `RuntimeException` for a
//! panic or a JNI failure.

pub mod error;
pub mod exports;
pub mod ffi;
pub mod handles;
pub mod operator;
pub mod upcalls;

pub use error::{NativeError, Result};
