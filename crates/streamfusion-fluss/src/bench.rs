//! bench-support adapters over the crate's production entry points (feature `bench`).

use arrow::array::ArrayData;
use bench_support::buffers::ArrowBuffers;

use crate::route::BucketBatch;

/// A routed bucket's buffers are its batch's.
impl ArrowBuffers for BucketBatch {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.batch.collect_arrays(out);
    }
}
