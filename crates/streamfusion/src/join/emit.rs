//! The changelog a join emits for one batch: each row is the input row joined with a stored
//! row of the other input, either of them possibly NULL (an outer row's padding), or for a
//! semi/anti join one of them alone. The output is built once per batch: input rows are
//! taken, stored rows decoded in one pass.

use arrow::array::{ArrayRef, Int8Array, RecordBatch, UInt32Array, new_null_array};
use arrow::compute::take;

use crate::binary_row::RowReader;
use crate::changelog::RowKind;
use crate::error::Result;

/// A batch's joined rows in emission order.
#[derive(Debug, Default)]
pub(crate) struct JoinEmissions {
    kinds: Vec<i8>,
    /// The input row of each emitted row, or NULL padding.
    input: Vec<Option<u32>>,
    /// The stored row of each emitted row (an index into `offsets`), or NULL padding.
    stored: Vec<Option<u32>>,
    data: Vec<u8>,
    offsets: Vec<usize>,
}

impl JoinEmissions {
    /// Emits `kind` of input row `input` (or padding) joined with `stored` (BinaryRowData
    /// bytes of the other input, or padding).
    pub(crate) fn push(&mut self, kind: RowKind, input: Option<usize>, stored: Option<&[u8]>) {
        self.kinds.push(kind.to_byte());
        self.input.push(input.map(|r| r as u32));
        let stored = stored.map(|row| {
            if self.offsets.is_empty() {
                self.offsets.push(0);
            }
            self.data.extend_from_slice(row);
            self.offsets.push(self.data.len());
            self.offsets.len() as u32 - 2
        });
        self.stored.push(stored);
    }

    pub(crate) fn len(&self) -> usize {
        self.kinds.len()
    }

    pub(crate) fn kinds(&self) -> Int8Array {
        Int8Array::from(self.kinds.clone())
    }

    /// The input side's columns: rows of `input` taken (NULL where padded).
    pub(crate) fn input_columns(&self, input: &RecordBatch) -> Result<Vec<ArrayRef>> {
        let indices: UInt32Array = self.input.iter().copied().collect();
        Ok(input
            .columns()
            .iter()
            .map(|c| take(c.as_ref(), &indices, None))
            .collect::<std::result::Result<_, _>>()?)
    }

    /// The stored side's columns: stored rows decoded by `reader` (NULL where padded).
    pub(crate) fn stored_columns(&self, reader: &RowReader) -> Result<Vec<ArrayRef>> {
        if self.offsets.len() < 2 {
            return Ok(reader
                .schema()
                .fields()
                .iter()
                .map(|f| new_null_array(f.data_type(), self.len()))
                .collect());
        }
        let decoded = reader.read(&self.data, &self.offsets)?;
        let indices: UInt32Array = self.stored.iter().copied().collect();
        Ok(decoded
            .batch()
            .columns()
            .iter()
            .map(|c| take(c.as_ref(), &indices, None))
            .collect::<std::result::Result<_, _>>()?)
    }
}
