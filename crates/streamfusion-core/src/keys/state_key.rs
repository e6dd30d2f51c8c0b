//! Order-preserving state keys with arrow-row.
//!
//! State that must scan keys in value order (sorted map entries, timers by key) stores a key
//! as bytes that sort like the key itself, so a prefix range is one contiguous scan.
//! Operators that only look keys up (GROUP BY) key their state by Flink's key rows instead
//! (decision 0011). arrow-row's
//! [`RowConverter`] gives exactly that encoding for composite keys of any Arrow types, and
//! decodes back to Arrow columns. NULLs sort first, as arrow-row's default. A ROW key field
//! is an Arrow struct, which arrow-row orders by its fields in turn (a NULL row first; the
//! fields of a NULL row are not encoded).

use arrow::array::ArrayRef;
use arrow::row::{RowConverter, Rows, SortField};

use crate::error::Result;
use crate::types::LogicalType;

/// Encodes and decodes composite keys of fixed Flink types.
#[derive(Debug)]
pub struct StateKeyCodec {
    types: Vec<LogicalType>,
    converter: RowConverter,
}

impl StateKeyCodec {
    /// A codec for keys with these field types.
    pub fn try_new(types: Vec<LogicalType>) -> Result<Self> {
        let fields = types.iter().map(|t| SortField::new(t.to_arrow())).collect();
        Ok(Self {
            converter: RowConverter::new(fields)?,
            types,
        })
    }

    /// The field types.
    pub fn types(&self) -> &[LogicalType] {
        &self.types
    }

    /// Encodes one key per row of `columns`.
    pub fn encode(&self, columns: &[ArrayRef]) -> Result<Rows> {
        Ok(self.converter.convert_columns(columns)?)
    }

    /// Decodes encoded keys back into columns.
    pub fn decode<'a>(
        &self,
        rows: impl IntoIterator<Item = arrow::row::Row<'a>>,
    ) -> Result<Vec<ArrayRef>> {
        Ok(self.converter.convert_rows(rows)?)
    }

    /// A parser for key bytes read back from storage (validates them when decoding).
    pub fn parser(&self) -> arrow::row::RowParser {
        self.converter.parser()
    }
}
