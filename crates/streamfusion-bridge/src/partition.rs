//! Splitting one batch into per-destination batches.
//!
//! Given a destination index per row, [`split_by_partition`] returns one batch per
//! destination, rows in input order. A destination whose rows form one contiguous run gets
//! a zero-copy slice of the input; scattered rows are gathered with `take` (new buffers).
//! Routing a batch to Iceberg writers or to output channels is this operation.

use arrow::array::{Array, RecordBatch, UInt32Array};
use arrow::compute::take_record_batch;

use crate::error::{BridgeError, Result};

/// How one destination's rows were produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitKind {
    /// No rows: an empty slice.
    Empty,
    /// One contiguous run: a zero-copy slice.
    Slice,
    /// Scattered rows: gathered into new buffers.
    Gathered,
}

/// Splits `batch` by `partitions` (one destination index per row, no NULLs) into
/// `num_partitions` batches.
///
/// Returns the batches in destination order, each with how it was produced.
pub fn split_by_partition(
    batch: &RecordBatch,
    partitions: &UInt32Array,
    num_partitions: usize,
) -> Result<Vec<(RecordBatch, SplitKind)>> {
    if partitions.len() != batch.num_rows() {
        return Err(BridgeError::InvalidValue(format!(
            "partition ids of length {} do not match a batch of {} rows",
            partitions.len(),
            batch.num_rows()
        )));
    }
    if partitions.null_count() > 0 {
        return Err(BridgeError::InvalidValue(format!(
            "partition ids contain {} NULL(s)",
            partitions.null_count()
        )));
    }
    if let Some((row, &p)) = partitions
        .values()
        .iter()
        .enumerate()
        .find(|&(_, &p)| p as usize >= num_partitions)
    {
        return Err(BridgeError::InvalidValue(format!(
            "partition id {p} at row {row} is out of range for {num_partitions} partitions"
        )));
    }

    // One pass: row count, first and last row per destination. Rows are contiguous exactly
    // when last - first + 1 == count.
    let mut count = vec![0u32; num_partitions];
    let mut first = vec![u32::MAX; num_partitions];
    let mut last = vec![0u32; num_partitions];
    for (row, &p) in partitions.values().iter().enumerate() {
        let p = p as usize;
        let row = row as u32;
        count[p] += 1;
        first[p] = first[p].min(row);
        last[p] = row;
    }

    let mut gathered: Vec<Vec<u32>> = (0..num_partitions)
        .map(|p| {
            let scattered = count[p] > 0 && last[p] - first[p] + 1 != count[p];
            Vec::with_capacity(if scattered { count[p] as usize } else { 0 })
        })
        .collect();
    for (row, &p) in partitions.values().iter().enumerate() {
        let rows = &mut gathered[p as usize];
        if rows.capacity() > 0 {
            rows.push(row as u32);
        }
    }

    (0..num_partitions)
        .map(|p| {
            Ok(match count[p] {
                0 => (batch.slice(0, 0), SplitKind::Empty),
                n if last[p] - first[p] + 1 == n => {
                    (batch.slice(first[p] as usize, n as usize), SplitKind::Slice)
                }
                _ => {
                    let indices = UInt32Array::from(std::mem::take(&mut gathered[p]));
                    (take_record_batch(batch, &indices)?, SplitKind::Gathered)
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{AsArray, Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Int64Type, Schema};
    use std::sync::Arc;

    fn batch(n: i64) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ]));
        let ids = Int64Array::from_iter_values(0..n);
        let s = StringArray::from_iter((0..n).map(|i| (i % 3 != 0).then(|| format!("s{i}"))));
        RecordBatch::try_new(schema, vec![Arc::new(ids), Arc::new(s)]).unwrap()
    }

    fn ids(b: &RecordBatch) -> Vec<i64> {
        b.column(0).as_primitive::<Int64Type>().values().to_vec()
    }

    #[test]
    fn each_destination_gets_its_rows_in_input_order() {
        let b = batch(8);
        let parts = UInt32Array::from(vec![0, 0, 1, 2, 1, 2, 2, 0]);
        let out = split_by_partition(&b, &parts, 4).unwrap();
        // Oracle: filter the input row by row.
        for (p, (batch, _)) in out.iter().enumerate() {
            let expected: Vec<i64> = (0..8)
                .filter(|&r| parts.value(r) as usize == p)
                .map(|r| r as i64)
                .collect();
            assert_eq!(ids(batch), expected, "partition {p}");
            assert_eq!(batch.schema(), b.schema());
        }
        let kinds: Vec<SplitKind> = out.iter().map(|(_, k)| *k).collect();
        assert_eq!(
            kinds,
            vec![
                SplitKind::Gathered,
                SplitKind::Gathered,
                SplitKind::Gathered,
                SplitKind::Empty
            ]
        );
    }

    #[test]
    fn contiguous_runs_are_zero_copy_slices() {
        let b = batch(6);
        let parts = UInt32Array::from(vec![1, 1, 0, 0, 0, 2]);
        let out = split_by_partition(&b, &parts, 3).unwrap();
        assert!(out.iter().all(|(_, k)| *k == SplitKind::Slice));
        let input_values = b.column(1).as_string::<i32>().values().as_ptr();
        for (batch, _) in &out {
            assert_eq!(
                batch.column(1).as_string::<i32>().values().as_ptr(),
                input_values
            );
        }
        assert_eq!(ids(&out[0].0), vec![2, 3, 4]);
        assert_eq!(out[1].0.column(1).as_string::<i32>().value(1), "s1");
    }

    #[test]
    fn bad_partition_ids_are_rejected_with_their_row() {
        let b = batch(3);
        let err = split_by_partition(&b, &UInt32Array::from(vec![0, 5, 1]), 2).unwrap_err();
        assert_eq!(
            err.to_string(),
            "partition id 5 at row 1 is out of range for 2 partitions"
        );
        let err = split_by_partition(&b, &UInt32Array::from(vec![0, 1]), 2).unwrap_err();
        assert!(err.to_string().contains("length 2"));
        let err = split_by_partition(&b, &UInt32Array::from(vec![Some(0), None, Some(1)]), 2)
            .unwrap_err();
        assert!(err.to_string().contains("NULL"));
    }
}
