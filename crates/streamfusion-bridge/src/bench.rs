//! bench-support adapters over the bridge's production entry points (feature `bench`).
//!
//! Thin calls only: every method forwards to a function of [`crate::handoff`].

use arrow::array::{Array, ArrayData, RecordBatch};
use arrow::datatypes::SchemaRef;
use arrow::ffi::FFI_ArrowArray;
use bench_support::adapters::Handoff;
use bench_support::buffers::ArrowBuffers;

use crate::error::BridgeError;
use crate::handoff::{self, CachedSchema, ExportedBatch, Validation};
use crate::timestamps::FlinkTimestamps;

/// The production C Data handoff, importing with the given validation level.
#[derive(Debug, Clone, Copy, Default)]
pub struct CDataHandoff {
    /// What imports validate.
    pub validation: Validation,
}

impl Handoff for CDataHandoff {
    type Exported = ExportedBatch;
    type ExportedArray = FFI_ArrowArray;
    type CachedSchema = CachedSchema;
    type Error = BridgeError;

    fn export(&self, batch: &RecordBatch) -> Result<ExportedBatch, BridgeError> {
        handoff::export_batch(batch)
    }

    fn import(&self, exported: ExportedBatch) -> Result<RecordBatch, BridgeError> {
        handoff::import_batch(exported, self.validation)
    }

    fn cache_schema(&self, schema: &SchemaRef) -> Result<CachedSchema, BridgeError> {
        Ok(CachedSchema::new(schema.clone()))
    }

    fn export_array(&self, batch: &RecordBatch) -> Result<FFI_ArrowArray, BridgeError> {
        Ok(handoff::export_array(batch))
    }

    fn import_array(
        &self,
        exported: FFI_ArrowArray,
        schema: &CachedSchema,
    ) -> Result<RecordBatch, BridgeError> {
        handoff::import_array(exported, schema, self.validation)
    }
}

/// Both component columns are outputs of the split.
impl ArrowBuffers for FlinkTimestamps {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        out.push(self.millis.to_data());
        out.push(self.nanos_of_milli.to_data());
    }
}
