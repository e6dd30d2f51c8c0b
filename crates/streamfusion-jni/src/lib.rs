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
//! - [`operator`]: the operator run behind a handle. Until Calc lands it is a projection with
//!   an optional NULL filter, planned from a small JSON document ([`operator::Plan`]), with
//!   a watermark and a versioned snapshot.
//! - [`exports`]: the JNI entry points themselves.
//!
//! # Java API
//!
//! `org.streamfusion.jni.NativeOperator` loads this library (from the system property
//! `streamfusion.jni.path` if set, else `System.loadLibrary("streamfusion_jni")`) and declares:
//!
//! | Java (static, native)                                  | Native                              |
//! |--------------------------------------------------------|-------------------------------------|
//! | `long create(String plan)`                             | [`operator::Operator::new`]         |
//! | `Object[] push(long handle, byte[] data, int[] offsets)` | [`operator::Operator::push`]      |
//! | `void advanceWatermark(long handle, long watermark)`   | [`operator::Operator::advance_watermark`] |
//! | `Object[] flush(long handle)`                          | [`operator::Operator::flush`]       |
//! | `byte[] snapshot(long handle)`                         | [`operator::Operator::snapshot`]    |
//! | `long restore(byte[] snapshot)`                        | [`operator::Operator::restore`]     |
//! | `void close(long handle)`                              | [`handles::remove`]                 |
//!
//! Rows cross the boundary as Flink `BinaryRowData` rows back to back in one `byte[]`, plus
//! `rows + 1` `int` offsets (`data[offsets[i]..offsets[i + 1]]` is row `i`; its header byte is
//! its row kind). `push` and `flush` return `Object[] { byte[] data, int[] offsets }` in the
//! same shape, which Java wraps as `BinaryRowData` without further copying.

pub mod error;
pub mod exports;
pub mod ffi;
pub mod handles;
pub mod operator;

pub use error::{NativeError, Result};
