//! Batches of rows with Flink row kinds.
//!
//! Flink tags every row of a changelog stream with a [`RowKind`]. A [`ChangelogBatch`] is an
//! Arrow [`RecordBatch`] plus one kind byte per row, stored as an [`Int8Array`] using Flink's
//! own byte values (`RowKind.toByteValue()`): `+I`=0, `-U`=1, `+U`=2, `-D`=3. A batch without
//! kinds is all `+I`: the append-only fast path carries no kind column at all.
//!
//! Nested ROW values carry kinds too: Flink's `BinaryRowData` header byte holds the kind of
//! every row, including rows nested in an ARRAY or MAP. In Arrow such a ROW is a struct whose
//! first child is the non-nullable [`NESTED_ROW_KIND_FIELD`] (`Int8`); see
//! [`with_nested_row_kinds`] and [`nested_row_kinds`]. Keeping the kinds as an ordinary child
//! means they cross the Arrow C Data Interface and IPC with no side channel.

use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int8Array, RecordBatch, StructArray};
use arrow::datatypes::{DataType, Field, Fields};

use crate::error::{Error, Result};

/// The kind of change a row describes, with Flink's byte values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(i8)]
pub enum RowKind {
    /// `+I`: an insertion.
    Insert = 0,
    /// `-U`: the previous content of an updated row.
    UpdateBefore = 1,
    /// `+U`: the new content of an updated row.
    UpdateAfter = 2,
    /// `-D`: a deletion.
    Delete = 3,
}

impl RowKind {
    /// All kinds in byte order.
    pub const ALL: [RowKind; 4] = [
        RowKind::Insert,
        RowKind::UpdateBefore,
        RowKind::UpdateAfter,
        RowKind::Delete,
    ];

    /// The kind for a Flink byte value, or `None` for any other byte.
    pub const fn from_byte(byte: i8) -> Option<RowKind> {
        match byte {
            0 => Some(RowKind::Insert),
            1 => Some(RowKind::UpdateBefore),
            2 => Some(RowKind::UpdateAfter),
            3 => Some(RowKind::Delete),
            _ => None,
        }
    }

    /// Flink's byte value (`RowKind.toByteValue()`).
    pub const fn to_byte(self) -> i8 {
        self as i8
    }

    /// Flink's short string (`RowKind.shortString()`): `+I`, `-U`, `+U` or `-D`.
    pub const fn short_string(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }

    /// Whether the row adds content (`+I`, `+U`), as opposed to retracting it (`-U`, `-D`).
    pub const fn is_accumulate(self) -> bool {
        matches!(self, RowKind::Insert | RowKind::UpdateAfter)
    }
}

impl fmt::Display for RowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_string())
    }
}

/// A batch of rows with Flink row kinds.
///
/// Invariant: when present, `kinds` has exactly one non-NULL valid kind byte per row.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangelogBatch {
    batch: RecordBatch,
    kinds: Option<Int8Array>,
}

impl ChangelogBatch {
    /// A batch whose rows are all `+I`.
    pub fn insert_only(batch: RecordBatch) -> Self {
        Self { batch, kinds: None }
    }

    /// A batch with explicit kinds, validated: one kind per row, no NULLs, only Flink's bytes.
    pub fn try_new(batch: RecordBatch, kinds: Option<Int8Array>) -> Result<Self> {
        if let Some(kinds) = &kinds {
            if kinds.len() != batch.num_rows() {
                return Err(Error::LengthMismatch {
                    context: "changelog batch".into(),
                    left_name: "the batch",
                    left: batch.num_rows(),
                    right_name: "its row kinds",
                    right: kinds.len(),
                });
            }
            validate_kinds(kinds, "changelog batch")?;
        }
        Ok(Self { batch, kinds })
    }

    /// The rows.
    pub fn batch(&self) -> &RecordBatch {
        &self.batch
    }

    /// The kind bytes, or `None` when every row is `+I`.
    pub fn kinds(&self) -> Option<&Int8Array> {
        self.kinds.as_ref()
    }

    /// The number of rows.
    pub fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// The kind of row `row`.
    ///
    /// # Panics
    /// If `row` is out of bounds.
    pub fn kind(&self, row: usize) -> RowKind {
        assert!(
            row < self.num_rows(),
            "row {row} out of bounds for a changelog batch of {} rows",
            self.num_rows()
        );
        match &self.kinds {
            None => RowKind::Insert,
            // Validated at construction: every byte is a known kind.
            Some(kinds) => RowKind::from_byte(kinds.value(row)).unwrap_or(RowKind::Insert),
        }
    }

    /// Whether every row is `+I`.
    pub fn is_insert_only(&self) -> bool {
        self.kinds
            .as_ref()
            .is_none_or(|kinds| kinds.values().iter().all(|&b| b == RowKind::Insert as i8))
    }

    /// A zero-copy view of `length` rows starting at `offset`.
    ///
    /// # Panics
    /// If `offset + length` exceeds the number of rows, like [`RecordBatch::slice`].
    pub fn slice(&self, offset: usize, length: usize) -> Self {
        Self {
            batch: self.batch.slice(offset, length),
            kinds: self.kinds.as_ref().map(|k| k.slice(offset, length)),
        }
    }

    /// The rows and their kinds.
    pub fn into_parts(self) -> (RecordBatch, Option<Int8Array>) {
        (self.batch, self.kinds)
    }
}

/// The name of the child that carries the row kinds of nested ROW values.
pub const NESTED_ROW_KIND_FIELD: &str = "$row_kind";

/// Attaches row kinds to nested ROW values: returns a struct with [`NESTED_ROW_KIND_FIELD`]
/// as its first child, followed by the children of `rows`. Validity is kept; the kinds of
/// NULL rows are still required (Flink writes a header byte for them too).
pub fn with_nested_row_kinds(rows: &StructArray, kinds: Int8Array) -> Result<StructArray> {
    if kinds.len() != rows.len() {
        return Err(Error::LengthMismatch {
            context: "nested rows".into(),
            left_name: "the rows",
            left: rows.len(),
            right_name: "their row kinds",
            right: kinds.len(),
        });
    }
    if rows.fields().find(NESTED_ROW_KIND_FIELD).is_some() {
        return Err(Error::InvalidShape(format!(
            "nested rows already carry a `{NESTED_ROW_KIND_FIELD}` child"
        )));
    }
    validate_kinds(&kinds, "nested rows")?;
    let mut fields = Vec::with_capacity(rows.num_columns() + 1);
    fields.push(Arc::new(nested_row_kind_field()));
    fields.extend(rows.fields().iter().cloned());
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(rows.num_columns() + 1);
    columns.push(Arc::new(kinds));
    columns.extend(rows.columns().iter().cloned());
    Ok(StructArray::try_new(
        Fields::from(fields),
        columns,
        rows.nulls().cloned(),
    )?)
}

/// The row kinds carried by nested ROW values, validated, or `None` when the struct has no
/// [`NESTED_ROW_KIND_FIELD`] child (all `+I`).
pub fn nested_row_kinds(rows: &StructArray) -> Result<Option<&Int8Array>> {
    let Some((index, field)) = rows.fields().find(NESTED_ROW_KIND_FIELD) else {
        return Ok(None);
    };
    if index != 0 || field.data_type() != &DataType::Int8 {
        return Err(Error::InvalidShape(format!(
            "`{NESTED_ROW_KIND_FIELD}` must be the first child with type Int8, found child {index} of type {}",
            field.data_type()
        )));
    }
    let kinds = rows.column(0).as_primitive::<arrow::datatypes::Int8Type>();
    validate_kinds(kinds, "nested rows")?;
    Ok(Some(kinds))
}

/// The field that carries nested row kinds.
pub fn nested_row_kind_field() -> Field {
    Field::new(NESTED_ROW_KIND_FIELD, DataType::Int8, false)
}

fn validate_kinds(kinds: &Int8Array, context: &str) -> Result<()> {
    if kinds.null_count() > 0 {
        return Err(Error::NullRowKind {
            context: context.into(),
            nulls: kinds.null_count(),
        });
    }
    // Branch-free scan first; locate the offender only on failure.
    let invalid = kinds
        .values()
        .iter()
        .fold(0u8, |acc, &b| acc | (b as u8 & !3));
    if invalid != 0 {
        let (row, &byte) = kinds
            .values()
            .iter()
            .enumerate()
            .find(|(_, b)| RowKind::from_byte(**b).is_none())
            .expect("a byte outside 0..=3 was seen");
        return Err(Error::InvalidRowKind {
            context: context.into(),
            row,
            byte,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use arrow::buffer::NullBuffer;
    use arrow::datatypes::Schema;

    fn batch(n: i64) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
        RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from_iter_values(0..n))]).unwrap()
    }

    #[test]
    fn row_kind_bytes_and_strings_match_flink() {
        let expected = [(0, "+I"), (1, "-U"), (2, "+U"), (3, "-D")];
        for (kind, (byte, short)) in RowKind::ALL.iter().zip(expected) {
            assert_eq!(kind.to_byte(), byte);
            assert_eq!(kind.short_string(), short);
            assert_eq!(RowKind::from_byte(byte), Some(*kind));
        }
        assert_eq!(RowKind::from_byte(4), None);
        assert_eq!(RowKind::from_byte(-1), None);
    }

    #[test]
    fn batch_without_kinds_is_all_inserts() {
        let b = ChangelogBatch::insert_only(batch(3));
        assert!(b.is_insert_only());
        assert_eq!(
            (0..3).map(|r| b.kind(r)).collect::<Vec<_>>(),
            vec![RowKind::Insert; 3]
        );
    }

    #[test]
    fn kinds_of_the_wrong_length_are_rejected() {
        let err = ChangelogBatch::try_new(batch(3), Some(Int8Array::from(vec![0, 1]))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "changelog batch: the batch has 3 rows but its row kinds has 2"
        );
    }

    #[test]
    fn unknown_kind_bytes_are_rejected_with_their_row() {
        let err =
            ChangelogBatch::try_new(batch(4), Some(Int8Array::from(vec![0, 3, 7, 1]))).unwrap_err();
        assert!(matches!(
            err,
            Error::InvalidRowKind {
                row: 2,
                byte: 7,
                ..
            }
        ));
        let err =
            ChangelogBatch::try_new(batch(2), Some(Int8Array::from(vec![0, -1]))).unwrap_err();
        assert!(matches!(
            err,
            Error::InvalidRowKind {
                row: 1,
                byte: -1,
                ..
            }
        ));
    }

    #[test]
    fn null_kinds_are_rejected() {
        let err = ChangelogBatch::try_new(batch(2), Some(Int8Array::from(vec![Some(0), None])))
            .unwrap_err();
        assert!(matches!(err, Error::NullRowKind { nulls: 1, .. }));
    }

    #[test]
    fn slicing_keeps_rows_and_kinds_aligned() {
        let b =
            ChangelogBatch::try_new(batch(5), Some(Int8Array::from(vec![0, 1, 2, 3, 0]))).unwrap();
        let s = b.slice(1, 3);
        assert_eq!(s.num_rows(), 3);
        assert_eq!(
            (0..3).map(|r| s.kind(r)).collect::<Vec<_>>(),
            vec![RowKind::UpdateBefore, RowKind::UpdateAfter, RowKind::Delete]
        );
        let v = s
            .batch()
            .column(0)
            .as_primitive::<arrow::datatypes::Int64Type>();
        assert_eq!(v.values().as_ref(), &[1, 2, 3]);
        assert!(!s.is_insert_only());
    }

    #[test]
    fn nested_rows_carry_kinds_as_their_first_child() {
        let names: ArrayRef = Arc::new(StringArray::from(vec!["a", "b", "c"]));
        let rows = StructArray::try_new(
            Fields::from(vec![Field::new("name", DataType::Utf8, false)]),
            vec![names],
            Some(NullBuffer::from(vec![true, false, true])),
        )
        .unwrap();
        assert_eq!(nested_row_kinds(&rows).unwrap(), None);
        let tagged = with_nested_row_kinds(&rows, Int8Array::from(vec![2, 0, 3])).unwrap();
        assert_eq!(tagged.fields()[0].name(), NESTED_ROW_KIND_FIELD);
        assert_eq!(tagged.nulls(), rows.nulls());
        assert_eq!(
            nested_row_kinds(&tagged)
                .unwrap()
                .unwrap()
                .values()
                .as_ref(),
            &[2, 0, 3]
        );
        assert!(with_nested_row_kinds(&tagged, Int8Array::from(vec![0, 0, 0])).is_err());
        assert!(with_nested_row_kinds(&rows, Int8Array::from(vec![0, 9, 0])).is_err());
    }
}
