//! What the OVER suites share: an operator seeded with a batch pushed and fired outside
//! timing, and the measured batch that continues it.

use arrow::array::ArrayData;
use bench_support::adapters::StoreLifecycle;
use bench_support::buffers::ArrowBuffers;
use streamfusion::bench::{OperatorLifecycle, OperatorStore};
use streamfusion::changelog::ChangelogBatch;

/// A case: the seeded run and what the measured batch must emit.
pub struct Case<E> {
    pub run: Seeded,
    pub expected: E,
}

impl<E> ArrowBuffers for Case<E> {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.run.collect_arrays(out);
    }
}

/// A plan, its seed and the measured batch.
pub struct Seeded {
    pub lifecycle: OperatorLifecycle,
    pub seed: ChangelogBatch,
    /// The seed's last row time: its watermark fires every seed row.
    pub seed_watermark: i64,
    pub measured: ChangelogBatch,
}

impl ArrowBuffers for Seeded {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.seed.collect_arrays(out);
        self.measured.collect_arrays(out);
    }
}

impl Seeded {
    /// An operator that has taken and fired the seed.
    pub fn seeded(&self) -> OperatorStore {
        let mut store = self.lifecycle.create().expect("operator");
        self.lifecycle.push(&mut store, &self.seed).expect("push");
        let fired = self
            .lifecycle
            .fire(&mut store, self.seed_watermark)
            .expect("fire");
        assert!(!fired.is_empty(), "the seed fires");
        store
    }

    /// The measured batch pushed, then the watermark that fires every row.
    pub fn continue_measured(&self, store: &mut OperatorStore) -> Vec<ChangelogBatch> {
        let mut out = self.lifecycle.push(store, &self.measured).expect("push");
        out.extend(self.lifecycle.fire(store, i64::MAX).expect("fire"));
        out
    }
}
