//! What the OVER suites share: their input table `t(k BIGINT, x, ts TIMESTAMP(3), id
//! BIGINT)` and plan over it, an operator seeded with a batch pushed and fired outside
//! timing, the measured batch that continues it, and the output read back by row id.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    ArrayData, ArrayRef, AsArray, Int64Array, RecordBatch, TimestampMillisecondArray,
};
use arrow::datatypes::{DataType, Field, Int64Type, Schema};
use bench_support::adapters::StoreLifecycle;
use bench_support::buffers::ArrowBuffers;
use streamfusion::aggregate::{AggCall, OverFrame, OverSpec};
use streamfusion::bench::{OperatorLifecycle, OperatorStore};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

/// A batch of `t`: the column `x`, and each row's `(k, ts, id)`.
pub fn batch(x: ArrayRef, rows: &[(i64, i64, i64)]) -> ChangelogBatch {
    let schema = Schema::new(vec![
        Field::new("k", DataType::Int64, true),
        Field::new("x", x.data_type().clone(), true),
        Field::new("ts", LogicalType::Timestamp(3).to_arrow(), true),
        Field::new("id", DataType::Int64, true),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0))),
        x,
        Arc::new(TimestampMillisecondArray::from_iter_values(
            rows.iter().map(|r| r.1),
        )),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.2))),
    ];
    ChangelogBatch::insert_only(RecordBatch::try_new(Arc::new(schema), columns).expect("batch"))
}

/// `SELECT k, x, ts, id, <calls> OVER (PARTITION BY k ORDER BY ts <frame>) FROM t`, `x` of
/// type `x`.
pub fn spec(x: LogicalType, frame: OverFrame, calls: Vec<AggCall>) -> OverSpec {
    OverSpec {
        input_names: ["k", "x", "ts", "id"].map(String::from).to_vec(),
        input_types: vec![
            LogicalType::BigInt,
            x,
            LogicalType::Timestamp(3),
            LogicalType::BigInt,
        ],
        partition_keys: vec![0],
        time_column: 2,
        frame,
        calls,
        max_parallelism: 128,
        processing_time: false,
    }
}

/// An insert-only output's rows by their id (column 3), each read by `read(batch, row)`; a
/// row emitted twice or an update is an error.
pub fn by_id<T>(
    out: &[ChangelogBatch],
    read: impl Fn(&RecordBatch, usize) -> T,
) -> Result<BTreeMap<i64, T>, String> {
    let mut got = BTreeMap::new();
    for b in out {
        if !b.is_insert_only() {
            return Err("the OVER output is not insert-only".into());
        }
        let batch = b.batch();
        let id = batch.column(3).as_primitive::<Int64Type>();
        for r in 0..b.num_rows() {
            if got.insert(id.value(r), read(batch, r)).is_some() {
                return Err(format!("row {} emitted twice", id.value(r)));
            }
        }
    }
    Ok(got)
}

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
