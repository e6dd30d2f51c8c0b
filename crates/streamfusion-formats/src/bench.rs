//! bench-support adapters over the crate's production entry points (feature `bench`).

use arrow::array::ArrayData;
use bench_support::buffers::ArrowBuffers;

use crate::Decoded;

/// A decoded batch's buffers are its record batch's.
impl ArrowBuffers for Decoded {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.batch.collect_arrays(out);
    }
}
