//! Benchmark support shared by every StreamFusion suite and reusable in downstream tests.
//!
//! - [`adapters`]: the traits (`Handoff`, `StoreLifecycle`, `CalcEvaluation`) through which
//!   suites drive production entry points; production crates implement them behind their
//!   `bench` feature.
//! - [`alloc`]: a counting global allocator and the allocation [`probe`](alloc::probe).
//! - [`buffers`]: Arrow buffer diagnostics, shared versus new output bytes.
//! - [`fixtures`]: deterministic fixture generators (no clock, no unseeded randomness).
//! - [`group_model`]: a row-at-a-time model of Flink's streaming GROUP BY changelog.
//! - [`jvm`]: locating the released Flink classpath for JVM-backed tests and suites.
//! - [`oracles`]: independent models (Java's comparisons, textbook Murmur3) for checks.
//! - [`runner`]: the probe-then-time case runner and its contract with `cargo xtask`.
//!
//! How results are judged is in the project's `EVIDENCE.md`: fixtures, oracle checks and
//! probes stay outside timing, and allocation counts are requests on the measuring thread,
//! not peak memory or copied bytes.

pub mod adapters;
pub mod alloc;
pub mod buffers;
pub mod embedded_jvm;
pub mod fixtures;
pub mod group_model;
pub mod jvm;
pub mod oracles;
pub mod runner;

pub use alloc::{AllocationCounts, CountingAllocator, probe};
pub use buffers::{ArrowBuffers, BufferReport, buffer_report};
pub use runner::{Suite, Verdict, expect_eq};
