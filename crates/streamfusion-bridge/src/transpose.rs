//! `BinaryRowData` <-> Arrow transposes at the boundary.
//!
//! Flink hands a task's rows over as one buffer of back-to-back `BinaryRowData` rows (each
//! row's header byte is its row kind) plus `rows + 1` Java `int` offsets; these entry points
//! convert that to and from a [`ChangelogBatch`] with the engine's one encoder and decoder
//! ([`streamfusion_core::binary_row`]), column at a time. The layout and every error are documented
//! there; malformed rows become [`BridgeError::Engine`] naming the row and field.

use streamfusion_core::binary_row::{RowReader, RowWriter};
use streamfusion_core::changelog::ChangelogBatch;
use streamfusion_core::types::LogicalType;

use crate::error::{BridgeError, Result};

/// Reads the rows `data[offsets[i]..offsets[i + 1]]` of fields `types` into a changelog batch.
/// `offsets` must be non-negative, non-decreasing and end within `data`.
pub fn rows_to_changelog(
    data: &[u8],
    offsets: &[i32],
    types: &[LogicalType],
) -> Result<ChangelogBatch> {
    let offsets = offsets
        .iter()
        .enumerate()
        .map(|(i, &offset)| {
            usize::try_from(offset).map_err(|_| {
                BridgeError::InvalidValue(format!("row offset {i} is negative: {offset}"))
            })
        })
        .collect::<Result<Vec<usize>>>()?;
    Ok(RowReader::new(types.to_vec()).read(data, &offsets)?)
}

/// Writes `batch` (columns of `types`) as rows, each header byte holding the row's kind.
/// Returns the rows and their `rows + 1` offsets as Java `int`s.
pub fn changelog_to_rows(
    batch: &ChangelogBatch,
    types: &[LogicalType],
) -> Result<(Vec<u8>, Vec<i32>)> {
    let (data, offsets) = RowWriter::new(types.to_vec())
        .write_changelog(batch)?
        .into_parts();
    if i32::try_from(data.len()).is_err() {
        return Err(BridgeError::InvalidValue(format!(
            "{} rows take {} bytes, more than int offsets address",
            offsets.len() - 1,
            data.len()
        )));
    }
    Ok((data, offsets.into_iter().map(|o| o as i32).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow::array::{ArrayRef, Int8Array, Int64Array, RecordBatch, StringArray};

    fn sample() -> (Vec<LogicalType>, ChangelogBatch) {
        let types = vec![LogicalType::BigInt, LogicalType::VarChar(20)];
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![Some(1), None, Some(-3)])),
            Arc::new(StringArray::from(vec![
                Some("short"),
                Some("a longer one"),
                None,
            ])),
        ];
        let schema = RowReader::new(types.clone()).schema().clone();
        let batch = RecordBatch::try_new(schema, columns).unwrap();
        let kinds = Int8Array::from(vec![0, 3, 2]);
        (types, ChangelogBatch::try_new(batch, Some(kinds)).unwrap())
    }

    #[test]
    fn a_changelog_batch_survives_rows_and_back() {
        let (types, batch) = sample();
        let (data, offsets) = changelog_to_rows(&batch, &types).unwrap();
        assert_eq!(offsets.len(), 4);
        assert_eq!(data[offsets[1] as usize], 3, "the second row is -D");
        let back = rows_to_changelog(&data, &offsets, &types).unwrap();
        assert_eq!(back, batch);
    }

    #[test]
    fn arrays_and_maps_survive_rows_and_back() {
        use arrow::array::{ListArray, StructArray};
        use arrow::buffer::{NullBuffer, OffsetBuffer};
        use arrow::datatypes::DataType;

        let types: Vec<LogicalType> = vec![
            "ARRAY<BIGINT>".parse().unwrap(),
            "MAP<STRING, BIGINT>".parse().unwrap(),
        ];
        let list = |t: &LogicalType, lens: &[usize], valid: &[bool], values: ArrayRef| {
            let DataType::List(field) = t.to_arrow() else {
                unreachable!()
            };
            Arc::new(ListArray::new(
                field,
                OffsetBuffer::from_lengths(lens.iter().copied()),
                values,
                Some(NullBuffer::from(valid.to_vec())),
            )) as ArrayRef
        };
        let LogicalType::Map(k, v) = &types[1] else {
            unreachable!()
        };
        let entries = StructArray::new(
            streamfusion_core::types::map_entry_fields(k, v),
            vec![
                Arc::new(StringArray::from(vec![Some("k"), None, Some("a long key")])),
                Arc::new(Int64Array::from(vec![Some(1), Some(2), None])),
            ],
            None,
        );
        let columns = vec![
            list(
                &types[0],
                &[2, 0, 1],
                &[true, false, true],
                Arc::new(Int64Array::from(vec![Some(1), None, Some(3)])),
            ),
            list(
                &types[1],
                &[2, 0, 1],
                &[true, true, false],
                Arc::new(entries),
            ),
        ];
        let schema = RowReader::new(types.clone()).schema().clone();
        let batch = RecordBatch::try_new(schema, columns).unwrap();
        let batch = ChangelogBatch::try_new(batch, Some(Int8Array::from(vec![0, 1, 3]))).unwrap();
        let (data, offsets) = changelog_to_rows(&batch, &types).unwrap();
        assert_eq!(rows_to_changelog(&data, &offsets, &types).unwrap(), batch);
    }

    #[test]
    fn negative_offsets_and_malformed_rows_are_errors() {
        let (types, batch) = sample();
        let (mut data, offsets) = changelog_to_rows(&batch, &types).unwrap();
        let err = rows_to_changelog(&data, &[0, -8], &types).unwrap_err();
        assert_eq!(err.to_string(), "row offset 1 is negative: -8");
        data[offsets[2] as usize] = 9;
        let err = rows_to_changelog(&data, &offsets, &types).unwrap_err();
        assert_eq!(
            err.to_string(),
            "BinaryRowData row 2: unknown row kind byte 9"
        );
    }
}
