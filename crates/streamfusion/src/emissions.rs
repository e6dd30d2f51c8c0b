//! The changelog a keyed operator emits for one batch: rows of the input batch and rows read
//! back from state (BinaryRowData bytes), each with its kind, in emission order.
//!
//! Operators that emit rows they stored earlier (deduplication's previous row, Top-N's
//! shifted rows) collect them here and build the output once: input rows are taken, stored
//! rows decoded in one pass and the two interleaved.

use arrow::array::{Array, ArrayRef, Int8Array, RecordBatch, UInt32Array};

use crate::binary_row::RowReader;
use crate::changelog::RowKind;
use crate::error::Result;

/// Where an emitted row comes from: the batch's input, or a row read from state.
#[derive(Debug, Clone, Copy)]
enum Source {
    Input(u32),
    Stored(u32),
}

/// Rows read from state that a batch emits, as one BinaryRowData buffer.
#[derive(Debug, Default)]
struct StoredRows {
    data: Vec<u8>,
    offsets: Vec<usize>,
}

impl StoredRows {
    fn push(&mut self, row: &[u8]) -> Source {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.data.extend_from_slice(row);
        self.offsets.push(self.data.len());
        Source::Stored(self.offsets.len() as u32 - 2)
    }

    fn is_empty(&self) -> bool {
        self.offsets.len() < 2
    }
}

/// A batch's emissions in order.
#[derive(Debug, Default)]
pub(crate) struct Emissions {
    rows: Vec<(RowKind, Source)>,
    stored: StoredRows,
}

impl Emissions {
    /// Emits input row `row` as `kind`.
    pub(crate) fn input(&mut self, kind: RowKind, row: usize) {
        self.rows.push((kind, Source::Input(row as u32)));
    }

    /// Emits a stored row (BinaryRowData bytes; its header is ignored) as `kind`.
    pub(crate) fn stored(&mut self, kind: RowKind, row: &[u8]) {
        let source = self.stored.push(row);
        self.rows.push((kind, source));
    }

    /// The number of rows emitted.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The emitted rows' kinds.
    pub(crate) fn kinds(&self) -> Int8Array {
        self.rows.iter().map(|(k, _)| k.to_byte()).collect()
    }

    /// The emitted rows' columns: rows of `input` taken, stored rows decoded by `reader`
    /// (whose types are `input`'s).
    pub(crate) fn columns(&self, input: &RecordBatch, reader: &RowReader) -> Result<Vec<ArrayRef>> {
        if self.stored.is_empty() {
            let take: UInt32Array = self
                .rows
                .iter()
                .map(|(_, s)| match s {
                    Source::Input(r) => *r,
                    Source::Stored(_) => unreachable!("no stored rows"),
                })
                .collect();
            return Ok(input
                .columns()
                .iter()
                .map(|c| arrow::compute::take(c.as_ref(), &take, None))
                .collect::<std::result::Result<_, _>>()?);
        }
        let stored = reader.read(&self.stored.data, &self.stored.offsets)?;
        let indices: Vec<(usize, usize)> = self
            .rows
            .iter()
            .map(|(_, s)| match *s {
                Source::Input(r) => (0, r as usize),
                Source::Stored(r) => (1, r as usize),
            })
            .collect();
        Ok((0..input.num_columns())
            .map(|c| {
                let parts: [&dyn Array; 2] =
                    [input.column(c).as_ref(), stored.batch().column(c).as_ref()];
                arrow::compute::interleave(&parts, &indices)
            })
            .collect::<std::result::Result<_, _>>()?)
    }
}
