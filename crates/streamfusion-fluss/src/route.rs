//! Routing one batch to Fluss buckets: bucket ids, per-bucket batches and their statistics.
//!
//! [`route`] is what a Fluss sink does with each batch it appends to a table with a bucket
//! key: the bucket of every row ([`crate::bucketing::bucket_ids`]), the batch split by
//! bucket with rows in input order (the bridge's `split_by_partition`: a bucket whose rows
//! are one contiguous run gets a zero-copy slice, scattered rows are gathered), and each
//! bucket batch's column statistics ([`crate::statistics`]) for its log record batch.
//!
//! Only non-empty buckets are returned, in ascending bucket order.

use arrow::array::{RecordBatch, UInt32Array};
use streamfusion_bridge::partition::{SplitKind, split_by_partition};

use crate::bucketing::bucket_ids;
use crate::error::Result;
use crate::key_encoder::DataLakeFormat;
use crate::statistics::{ColumnStatistics, batch_statistics};

/// The rows of one bucket.
#[derive(Debug, Clone)]
pub struct BucketBatch {
    /// The bucket, in `0..num_buckets`.
    pub bucket: u32,
    /// Its rows, in input order.
    pub batch: RecordBatch,
    /// A zero-copy slice of the input or gathered rows.
    pub kind: SplitKind,
    /// Statistics of every column of `batch`, in column order.
    pub statistics: Vec<ColumnStatistics>,
}

/// Splits `batch` by Fluss bucket: bucket key `key_columns` (column indices, in key
/// order), `num_buckets` buckets and lake format `lake` (see [`crate::key_encoder`]).
///
/// Returns the non-empty buckets in ascending order; every input row is in exactly one.
///
/// # Errors
///
/// Whatever [`bucket_ids`] refuses (no key columns, `num_buckets <= 0`, an unsupported key
/// type, a NULL key Fluss refuses, …); nothing is returned for a batch with a bad row.
pub fn route(
    batch: &RecordBatch,
    key_columns: &[usize],
    num_buckets: i32,
    lake: Option<DataLakeFormat>,
) -> Result<Vec<BucketBatch>> {
    let ids = bucket_ids(batch, key_columns, num_buckets, lake)?;
    // The split keeps three counters per destination: with far more buckets than rows,
    // split by the buckets present instead.
    let (ids, buckets) = if num_buckets as usize <= batch.num_rows().max(DIRECT_SPLIT_BUCKETS) {
        (ids, None)
    } else {
        let mut present = ids.values().to_vec();
        present.sort_unstable();
        present.dedup();
        let dense = UInt32Array::from_iter_values(ids.values().iter().map(|id| {
            // Every id is present.
            present.binary_search(id).unwrap_or_default() as u32
        }));
        (dense, Some(present))
    };
    let destinations = buckets.as_ref().map_or(num_buckets as usize, Vec::len);
    let parts = split_by_partition(batch, &ids, destinations)?;
    Ok(parts
        .into_iter()
        .enumerate()
        .filter(|(_, (_, kind))| *kind != SplitKind::Empty)
        .map(|(index, (batch, kind))| BucketBatch {
            bucket: buckets
                .as_ref()
                .map_or(index as u32, |present| present[index]),
            statistics: batch_statistics(&batch),
            batch,
            kind,
        })
        .collect())
}

/// Up to this many buckets (or one per row, if more), the split addresses buckets directly.
const DIRECT_SPLIT_BUCKETS: usize = 4_096;
