//! Adapter traits: the narrow interfaces through which suites (and downstream crates' tests)
//! drive production entry points.
//!
//! Production crates implement these behind their `bench` feature as thin calls into the
//! code they ship; an adapter never re-implements production logic. A suite written against
//! a trait can then measure any implementation of the same boundary, and a downstream crate
//! can reuse the same fixtures and oracles in its own tests.

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

/// Moving a [`RecordBatch`] across the Arrow C Data Interface.
///
/// Implemented by `streamfusion-bridge`. Imports must be zero-copy: the buffers of an
/// imported batch are the buffers that were exported.
pub trait Handoff {
    /// A batch exported with its full schema (an `ArrowArray` plus an `ArrowSchema`).
    type Exported;
    /// A batch exported as a struct array only, to be imported against a cached schema.
    type ExportedArray;
    /// A schema prepared once and reused by array-only imports.
    type CachedSchema;
    /// The production error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Exports `batch` with its full schema.
    fn export(&self, batch: &RecordBatch) -> Result<Self::Exported, Self::Error>;

    /// Imports a full-schema export, taking ownership of it.
    fn import(&self, exported: Self::Exported) -> Result<RecordBatch, Self::Error>;

    /// Prepares `schema` for array-only imports.
    fn cache_schema(&self, schema: &SchemaRef) -> Result<Self::CachedSchema, Self::Error>;

    /// Exports `batch` as a struct array without its schema.
    fn export_array(&self, batch: &RecordBatch) -> Result<Self::ExportedArray, Self::Error>;

    /// Imports an array-only export against a cached schema, checking that they agree.
    fn import_array(
        &self,
        exported: Self::ExportedArray,
        schema: &Self::CachedSchema,
    ) -> Result<RecordBatch, Self::Error>;
}

/// How a keyed store is restored from a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreMode {
    /// Adopt the checkpoint's files as they are.
    Aligned,
    /// Scan the given key-group range (inclusive) of the checkpoint into a fresh store.
    Rebuilt {
        /// First key group to keep.
        first_key_group: u32,
        /// Last key group to keep.
        last_key_group: u32,
    },
}

/// The lifecycle of a stateful operator over keyed state: create, push, fire, checkpoint,
/// restore (aligned or rebuilt), close.
///
/// Implemented by the engine for its stateful operators on the memory and RocksDB backends.
/// Suites prepare a fresh store outside the timed routine (`iter_batched_ref`).
pub trait StoreLifecycle {
    /// The operator together with its state.
    type Store;
    /// One input batch (for the engine, a changelog batch).
    type Input;
    /// What pushing or firing emits.
    type Output;
    /// A completed checkpoint (a directory or bytes).
    type Checkpoint;
    /// The production error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Creates an operator with empty state.
    fn create(&self) -> Result<Self::Store, Self::Error>;
    /// Processes one input batch.
    fn push(
        &self,
        store: &mut Self::Store,
        input: &Self::Input,
    ) -> Result<Self::Output, Self::Error>;
    /// Advances the watermark (event time, milliseconds) and emits what fires.
    fn fire(&self, store: &mut Self::Store, watermark: i64) -> Result<Self::Output, Self::Error>;
    /// Takes a checkpoint.
    fn checkpoint(&self, store: &mut Self::Store) -> Result<Self::Checkpoint, Self::Error>;
    /// Restores an operator from one or more checkpoints.
    fn restore(
        &self,
        checkpoints: &[Self::Checkpoint],
        mode: &RestoreMode,
    ) -> Result<Self::Store, Self::Error>;
    /// Closes the operator, releasing its resources.
    fn close(&self, store: Self::Store) -> Result<(), Self::Error>;
}

/// Compiling and evaluating a Calc program (projections plus an optional filter).
///
/// Implemented by the engine's Calc. Suites time first-batch compilation and warm
/// evaluation separately.
pub trait CalcEvaluation {
    /// The serialized program.
    type Program;
    /// The compiled program, reusable across batches.
    type Compiled;
    /// One input batch.
    type Input;
    /// One output batch.
    type Output;
    /// The production error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Validates `program` against `input_schema` and compiles it.
    fn compile(
        &self,
        program: &Self::Program,
        input_schema: &SchemaRef,
    ) -> Result<Self::Compiled, Self::Error>;
    /// Evaluates a compiled program over one batch.
    fn evaluate(
        &self,
        compiled: &mut Self::Compiled,
        input: &Self::Input,
    ) -> Result<Self::Output, Self::Error>;
}
