//! One batch to its destination writers.
//!
//! Flink's Iceberg sink decides each row's destination (partition and file) on the Java side
//! and hands the native writer a destination index per row. Splitting is the bridge's
//! [`split_by_partition`]: a destination whose rows are one contiguous run gets a zero-copy
//! slice of the batch, scattered rows are gathered. Each non-empty part goes to its writer.

use arrow::array::{Array, RecordBatch, UInt32Array};
use arrow::compute::take_record_batch;
use streamfusion_bridge::partition::{SplitKind, split_by_partition};

use crate::data_file_writer::DataFileWriter;
use crate::error::Result;

/// Splits `batch` into one part per destination (`destinations` holds one index per row,
/// each below `count`).
pub fn split(
    batch: &RecordBatch,
    destinations: &UInt32Array,
    count: usize,
) -> Result<Vec<(RecordBatch, SplitKind)>> {
    Ok(split_by_partition(batch, destinations, count)?)
}

/// The rows of `batch` one writer receives, in the order given: a zero-copy slice when they
/// are one ascending contiguous run, a gather otherwise.
pub fn select(batch: &RecordBatch, rows: &UInt32Array) -> Result<(RecordBatch, SplitKind)> {
    let values = rows.values();
    if rows.null_count() > 0 {
        return Err(crate::IcebergError::Invalid(format!(
            "a row selection contains {} NULL(s)",
            rows.null_count()
        )));
    }
    if let Some(&bad) = values.iter().find(|&&r| r as usize >= batch.num_rows()) {
        return Err(crate::IcebergError::Invalid(format!(
            "a row selection refers to row {bad} of a batch of {} rows",
            batch.num_rows()
        )));
    }
    let Some(&first) = values.first() else {
        return Ok((batch.slice(0, 0), SplitKind::Empty));
    };
    let contiguous = values
        .iter()
        .enumerate()
        .all(|(i, &r)| r as usize == first as usize + i);
    Ok(if contiguous {
        (batch.slice(first as usize, values.len()), SplitKind::Slice)
    } else {
        (take_record_batch(batch, rows)?, SplitKind::Gathered)
    })
}

/// Writes each row of `batch` to `writers[destinations[row]]`, rows in input order, and
/// returns how each destination's part was produced.
///
/// Every destination index is checked before anything is written, so a bad index leaves
/// every writer as it was.
pub fn route(
    batch: &RecordBatch,
    destinations: &UInt32Array,
    writers: &mut [DataFileWriter],
) -> Result<Vec<SplitKind>> {
    let parts = split(batch, destinations, writers.len())?;
    let mut kinds = Vec::with_capacity(parts.len());
    for (writer, (part, kind)) in writers.iter_mut().zip(parts) {
        if part.num_rows() > 0 {
            writer.write(&part)?;
        }
        kinds.push(kind);
    }
    Ok(kinds)
}
