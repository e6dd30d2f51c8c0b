//! What the joins in event time (window, interval and temporal joins) share: a NULL-filtered
//! join key, the non-equi condition evaluated over (left row, right row) pairs, the joined
//! output rows taken from the two inputs' rows, and stored rows gathered for decoding.

use std::sync::Arc;

use arrow::array::{Array, AsArray, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow::compute::take;
use arrow::datatypes::{Field, Schema, SchemaRef};

use super::{Condition, JoinColumns, MAX_PAIRS, TimedJoinInput};
use crate::binary_row::{RowReader, RowWriter};
use crate::changelog::ChangelogBatch;
use crate::error::Result;
use crate::keys::KeyHasher;
use crate::types::LogicalType;

/// What an interval or temporal join reads and writes: the join key's hasher, each input's
/// BinaryRowData writer and reader, and the output (the left columns, then the right).
pub(super) struct TimedJoinIo {
    pub(super) hasher: KeyHasher,
    pub(super) writers: [RowWriter; 2],
    pub(super) readers: [RowReader; 2],
    pub(super) schema: SchemaRef,
    pub(super) output_types: Vec<LogicalType>,
}

impl TimedJoinIo {
    pub(super) fn new(left: &TimedJoinInput, right: &TimedJoinInput) -> Self {
        Self::of(left.columns(), right.columns())
    }

    /// The hasher of `left`'s key columns, both inputs' writers and readers, and the output.
    pub(super) fn of(left: JoinColumns<'_>, right: JoinColumns<'_>) -> Self {
        let key_types = left.keys.iter().map(|&k| left.types[k].clone()).collect();
        let output: Vec<(&String, &LogicalType)> = (left.names.iter().zip(left.types))
            .chain(right.names.iter().zip(right.types))
            .collect();
        let fields: Vec<Field> = output
            .iter()
            .map(|(name, ty)| Field::new(*name, ty.to_arrow(), true))
            .collect();
        Self {
            hasher: KeyHasher::new(key_types),
            writers: [
                RowWriter::new(left.types.to_vec()),
                RowWriter::new(right.types.to_vec()),
            ],
            readers: [
                RowReader::new(left.types.to_vec()),
                RowReader::new(right.types.to_vec()),
            ],
            schema: Arc::new(Schema::new(fields)),
            output_types: output.into_iter().map(|(_, ty)| ty.clone()).collect(),
        }
    }
}

/// Whether a join key row (a BinaryRowData of the key columns) holds a NULL in a column
/// whose NULL filter is on: then no pair of its key matches (`JoinConditionWithNullFilters`).
pub(super) fn filtered_null_key(filter_nulls: &[bool], key_row: &[u8]) -> bool {
    filter_nulls.iter().enumerate().any(|(i, &filter)| {
        // BinaryRowData's null bits follow the 8 header bits.
        let bit = i + 8;
        filter && key_row[bit / 8] & (1 << (bit % 8)) != 0
    })
}

/// The condition's verdict on every pair (`lefts[i]` of `left`, `rights[i]` of `right`):
/// whether it is TRUE; evaluated [`MAX_PAIRS`] pairs at a time.
pub(super) fn verdicts(
    (condition, pair_schema): &Condition,
    left: &RecordBatch,
    right: &RecordBatch,
    lefts: &[u32],
    rights: &[u32],
) -> Result<Vec<bool>> {
    let mut accepted = Vec::with_capacity(lefts.len());
    for (l, r) in lefts.chunks(MAX_PAIRS).zip(rights.chunks(MAX_PAIRS)) {
        let (l, r) = (UInt32Array::from(l.to_vec()), UInt32Array::from(r.to_vec()));
        let columns = (left.columns().iter().map(|c| take(c.as_ref(), &l, None)))
            .chain(right.columns().iter().map(|c| take(c.as_ref(), &r, None)))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let pairs = RecordBatch::try_new_with_options(
            pair_schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(l.len())),
        )?;
        let verdict = condition.evaluate(&ChangelogBatch::insert_only(pairs))?;
        let verdict = verdict.batch().column(0).as_boolean();
        accepted.extend((0..verdict.len()).map(|i| verdict.is_valid(i) && verdict.value(i)));
    }
    Ok(accepted)
}

/// The joined rows of `schema`, every one `+I`: the left columns taken from `left` at
/// `lefts`, then (unless `right` is `None`, for SEMI/ANTI) the right columns from `right` at
/// `rights`; a `None` index is a row of NULLs (padding).
pub(super) fn joined_rows(
    schema: &SchemaRef,
    left: &RecordBatch,
    right: Option<&RecordBatch>,
    lefts: Vec<Option<u32>>,
    rights: Vec<Option<u32>>,
) -> Result<ChangelogBatch> {
    let (l, r) = (UInt32Array::from(lefts), UInt32Array::from(rights));
    let mut columns = left
        .columns()
        .iter()
        .map(|c| take(c.as_ref(), &l, None))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if let Some(right) = right {
        for c in right.columns() {
            columns.push(take(c.as_ref(), &r, None)?);
        }
    }
    Ok(ChangelogBatch::insert_only(RecordBatch::try_new(
        schema.clone(),
        columns,
    )?))
}

/// Rows to decode for output or the condition: BinaryRowData bytes and their offsets.
#[derive(Debug)]
pub(super) struct RowBuffer {
    pub(super) data: Vec<u8>,
    pub(super) offsets: Vec<usize>,
}

impl RowBuffer {
    pub(super) fn new() -> Self {
        Self {
            data: Vec::new(),
            offsets: vec![0],
        }
    }

    /// Appends `row`; its index.
    pub(super) fn push(&mut self, row: &[u8]) -> u32 {
        self.data.extend_from_slice(row);
        self.offsets.push(self.data.len());
        (self.offsets.len() - 2) as u32
    }
}
