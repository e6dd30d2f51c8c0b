//! bench-support integration for the core types (feature `bench`).

use arrow::array::{Array, ArrayData};
use bench_support::buffers::ArrowBuffers;

use crate::changelog::ChangelogBatch;

/// A changelog batch's buffers are its rows' plus its kinds'.
impl ArrowBuffers for ChangelogBatch {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.batch().collect_arrays(out);
        if let Some(kinds) = self.kinds() {
            out.push(kinds.to_data());
        }
    }
}
