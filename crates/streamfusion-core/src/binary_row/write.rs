//! Writing Arrow columns as Flink `BinaryRowData` rows, column at a time.
//!
//! The layout is documented in [`super`]. Rows are written column by column: one pass adds
//! each row's variable-part bytes to its length so the buffer is allocated once, a second
//! fills every field's slot (and variable part) a column at a time, and finally the header
//! byte of each row receives its row kind (`0`, `+I`, for key rows).
//!
//! A ROW field is written like `AbstractBinaryWriter.writeRow`: its struct's children are first
//! written as rows of their own (header `+I`), and each non-NULL one is then copied into the
//! variable part (`writeSegmentsToVarLenPart`: 8-aligned, `offset << 32 | size` in the slot,
//! never inline). Nested rows are those of `RowDataSerializer.toBinaryRow`, which writes every
//! NULL with `setNullAt`: unlike a key row's own fields, a NULL wide DECIMAL or TIMESTAMP inside
//! a nested row reserves no variable-part bytes.
//!
//! ARRAY and MAP fields are written the same way: each list entry first becomes a
//! `BinaryArrayData` of its own (`ArrayDataSerializer.toBinaryArray`: elements through the same
//! per-type loops, aimed at array slots by an [`ArrayTarget`], NULL wide values reserving
//! nothing), a MAP's as `BinaryMapData.valueOf(keys, values)`, and each is then copied into
//! the row's variable part.

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Decimal128Array, GenericByteArray, PrimitiveArray,
    StructArray,
};
use arrow::buffer::ScalarBuffer;
use arrow::datatypes::{
    ArrowPrimitiveType, BinaryType, Date32Type, DurationMillisecondType, Float32Type, Float64Type,
    Int8Type, Int16Type, Int32Type, Int64Type, IntervalYearMonthType, LargeBinaryType,
    LargeUtf8Type, Time32MillisecondType, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, Utf8Type,
};

use super::{MAX_INLINE_BYTES, array_element_size, array_header_len, null_bits_width};
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::types::LogicalType;

/// Many `BinaryRowData` rows in one buffer. Row `i`'s region is
/// `data[offsets[i]..offsets[i + 1]]`: `prefix` bytes of the caller's (zero unless written by
/// [`RowWriter::write_prefixed`]), then the row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryRows {
    data: Vec<u8>,
    offsets: Vec<usize>,
    prefix: usize,
}

impl BinaryRows {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`'s bytes.
    pub fn row(&self, i: usize) -> &[u8] {
        &self.data[self.offsets[i] + self.prefix..self.offsets[i + 1]]
    }

    /// The bytes before each row (0 unless written by [`RowWriter::write_prefixed`]).
    pub fn prefix(&self) -> usize {
        self.prefix
    }

    /// Row `i`'s prefix, then its bytes.
    pub fn prefixed_row(&self, i: usize) -> &[u8] {
        &self.data[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Row `i`'s prefix, to fill in.
    pub fn prefix_mut(&mut self, i: usize) -> &mut [u8] {
        let start = self.offsets[i];
        &mut self.data[start..start + self.prefix]
    }

    /// Iterates over the rows' bytes.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.offsets
            .windows(2)
            .map(|w| &self.data[w[0] + self.prefix..w[1]])
    }

    /// All regions (prefixes and rows), back to back.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// Region boundaries (`len() + 1` entries).
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// The buffer and the region boundaries.
    pub fn into_parts(self) -> (Vec<u8>, Vec<usize>) {
        (self.data, self.offsets)
    }

    /// Rows from their parts: row `i` is `data[offsets[i]..offsets[i + 1]]` (tests build
    /// rows of arbitrary bytes with it). Offsets outside `data` panic on access, as slicing
    /// does.
    pub fn from_parts(data: Vec<u8>, offsets: Vec<usize>) -> Self {
        Self {
            data,
            offsets,
            prefix: 0,
        }
    }
}

/// Writes columns of declared Flink types as `BinaryRowData` rows: key rows (header `0`)
/// with [`RowWriter::write`], changelog rows (header = row kind) with
/// [`RowWriter::write_changelog`].
#[derive(Debug, Clone)]
pub struct RowWriter {
    types: Vec<LogicalType>,
    null_bits: usize,
    /// Whether a NULL wide DECIMAL/TIMESTAMP reserves its variable-part bytes: yes in key
    /// rows (the generated key projection), no in nested rows (`toBinaryRow`).
    reserve_wide_nulls: bool,
}

impl RowWriter {
    /// A writer for rows with these field types.
    pub fn new(types: Vec<LogicalType>) -> Self {
        let null_bits = null_bits_width(types.len());
        Self {
            types,
            null_bits,
            reserve_wide_nulls: true,
        }
    }

    /// A writer for the nested rows of a ROW field.
    fn nested(types: Vec<LogicalType>) -> Self {
        Self {
            reserve_wide_nulls: false,
            ..Self::new(types)
        }
    }

    /// The field types.
    pub fn types(&self) -> &[LogicalType] {
        &self.types
    }

    /// Bytes of a row before its variable part.
    pub fn fixed_len(&self) -> usize {
        self.null_bits + 8 * self.types.len()
    }

    /// Writes one row per input row with header byte `0` (key rows, or all `+I`). Each column
    /// must carry its field's type ([`LogicalType::to_arrow`]; strings and binaries may also
    /// be `Large*`). With no columns there are no rows; see [`RowWriter::write_prefixed`].
    pub fn write(&self, columns: &[ArrayRef]) -> Result<BinaryRows> {
        self.write_columns(columns, columns.first().map_or(0, |c| c.len()), 0)
    }

    /// `rows` rows of `columns` as [`RowWriter::write`] writes them, leaving `prefix` zero
    /// bytes before each row for the caller (a state key's key group, so the rows can be the
    /// state keys without a copy). The count is explicit because a key of no columns (a
    /// GROUP BY without grouping columns: every row has the empty key) has no column to
    /// count.
    pub fn write_prefixed(
        &self,
        columns: &[ArrayRef],
        rows: usize,
        prefix: usize,
    ) -> Result<BinaryRows> {
        self.write_columns(columns, rows, prefix)
    }

    /// Writes one row per row of `batch`; row `i`'s header byte is its row kind.
    pub fn write_changelog(&self, batch: &ChangelogBatch) -> Result<BinaryRows> {
        let mut rows = self.write_columns(batch.batch().columns(), batch.num_rows(), 0)?;
        if let Some(kinds) = batch.kinds() {
            // `ChangelogBatch` guarantees one valid kind byte per row.
            for (start, kind) in rows.offsets.iter().zip(kinds.values().iter()) {
                rows.data[*start] = *kind as u8;
            }
        }
        Ok(rows)
    }

    /// Whether every field is fixed-width: no row has a variable part, so each is
    /// [`RowWriter::fixed_len`] bytes.
    pub fn is_fixed_width(&self) -> bool {
        self.types.iter().all(|t| {
            t.is_compact()
                && !matches!(
                    t,
                    LogicalType::Char(_)
                        | LogicalType::VarChar(_)
                        | LogicalType::Binary(_)
                        | LogicalType::VarBinary(_)
                )
        })
    }

    /// `rows` rows of `columns` as [`RowWriter::write`] writes them, back to back, each
    /// [`RowWriter::fixed_len`] bytes: for fixed-width fields only
    /// ([`RowWriter::is_fixed_width`]), without the boundaries a [`BinaryRows`] keeps.
    pub fn write_fixed(&self, columns: &[ArrayRef], rows: usize) -> Result<Vec<u8>> {
        if !self.is_fixed_width() {
            return Err(Error::InvalidShape(format!(
                "rows of {} have a variable part: they are not all one width",
                self.types
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let fields = self.fields(columns, rows)?;
        let width = self.fixed_len();
        let mut data = vec![0u8; width * rows];
        for (index, field) in fields.iter().enumerate() {
            let mut target = FixedTarget {
                data: &mut data,
                width,
                null_byte: (index + 8) / 8,
                null_mask: 1 << ((index + 8) % 8),
                slot: self.null_bits + 8 * index,
            };
            field.write(&mut target, self.reserve_wide_nulls);
        }
        Ok(data)
    }

    /// The length of the row at the start of `bytes`, as this writer wrote it: its fixed
    /// part, then as far as its variable part reaches (each value there 8-aligned, a NULL
    /// wide DECIMAL or TIMESTAMP reserving its bytes in a top-level row). What a state key
    /// needs to split its key row from what follows it. Bytes too short for the row, or a
    /// slot pointing before the variable part, are an error.
    pub fn row_len(&self, bytes: &[u8]) -> Result<usize> {
        let fixed = self.fixed_len();
        let short = |needed: usize| {
            Error::InvalidShape(format!(
                "a row of {} fields needs {needed} bytes, {} are left",
                self.types.len(),
                bytes.len()
            ))
        };
        if bytes.len() < fixed {
            return Err(short(fixed));
        }
        let mut end = fixed;
        for (i, ty) in self.types.iter().enumerate() {
            let null = bytes[(i + 8) / 8] & (1 << ((i + 8) % 8)) != 0;
            let at = self.null_bits + 8 * i;
            let mut word = [0; 8];
            word.copy_from_slice(&bytes[at..at + 8]);
            let slot = u64::from_le_bytes(word);
            let (offset, size) = ((slot >> 32) as usize, (slot & 0xffff_ffff) as usize);
            let reserved = match ty {
                LogicalType::Char(_)
                | LogicalType::VarChar(_)
                | LogicalType::Binary(_)
                | LogicalType::VarBinary(_)
                    if !null && word[7] & 0x80 == 0 =>
                {
                    size.next_multiple_of(8)
                }
                LogicalType::Row(_) | LogicalType::Array(_) | LogicalType::Map(..) if !null => {
                    size.next_multiple_of(8)
                }
                LogicalType::Decimal { .. }
                | LogicalType::Timestamp(_)
                | LogicalType::TimestampLtz(_)
                    if !ty.is_compact() && (!null || self.reserve_wide_nulls) =>
                {
                    if matches!(ty, LogicalType::Decimal { .. }) {
                        super::WIDE_DECIMAL_BYTES
                    } else {
                        8
                    }
                }
                _ => continue,
            };
            if offset < fixed {
                return Err(Error::InvalidShape(format!(
                    "field {i} ({ty}) of a row points at byte {offset}, inside the row's \
                     {fixed}-byte fixed part"
                )));
            }
            end = end.max(offset + reserved);
        }
        if bytes.len() < end {
            return Err(short(end));
        }
        Ok(end)
    }

    /// Each column as the field it fills, checked against the field types and `rows`.
    fn fields<'c>(&self, columns: &'c [ArrayRef], rows: usize) -> Result<Vec<Field<'c>>> {
        if columns.len() != self.types.len() {
            return Err(Error::InvalidShape(format!(
                "a row of {} fields got {} columns",
                self.types.len(),
                columns.len()
            )));
        }
        if let Some((i, c)) = columns.iter().enumerate().find(|(_, c)| c.len() != rows) {
            return Err(Error::InvalidShape(format!(
                "column {i} has {} rows but the rows number {rows}",
                c.len()
            )));
        }
        columns
            .iter()
            .zip(&self.types)
            .enumerate()
            .map(|(i, (c, t))| Field::try_new(i, c.as_ref(), t))
            .collect()
    }

    fn write_columns(
        &self,
        columns: &[ArrayRef],
        rows: usize,
        prefix: usize,
    ) -> Result<BinaryRows> {
        let fields = self.fields(columns, rows)?;

        // Pass 1: each row's length, so the buffer is allocated once.
        let fixed = self.fixed_len();
        let mut offsets = vec![prefix + fixed; rows + 1];
        offsets[rows] = 0;
        for field in &fields {
            field.add_variable_lengths(&mut offsets[..rows], |r| r, self.reserve_wide_nulls);
        }
        let mut total = 0usize;
        for len in offsets.iter_mut() {
            let row_len = *len;
            *len = total;
            total += row_len;
        }
        let mut data = vec![0u8; total];

        // Pass 2: fill column by column; `cursor[r]` is row r's next variable-part offset.
        let mut cursor = vec![fixed; rows];
        for (index, field) in fields.iter().enumerate() {
            let mut target = RowTarget {
                data: &mut data,
                offsets: &offsets,
                prefix,
                cursor: &mut cursor,
                null_byte: prefix + (index + 8) / 8,
                null_mask: 1 << ((index + 8) % 8),
                slot: prefix + self.null_bits + 8 * index,
            };
            field.write(&mut target, self.reserve_wide_nulls);
        }
        Ok(BinaryRows {
            data,
            offsets,
            prefix,
        })
    }
}

/// Where each value of a column goes: a field of every row, or the elements of arrays.
trait Target {
    /// Sets value `i`'s null bit (its slot stays zero).
    fn set_null(&mut self, i: usize);
    /// Writes `bytes` at the start of value `i`'s slot.
    fn put_slot(&mut self, i: usize, bytes: &[u8]);
    /// Copies `bytes` to the start of the next `reserve` bytes (a multiple of 8) of value
    /// `i`'s variable part; returns their offset from the container (row or array) start.
    fn append(&mut self, i: usize, bytes: &[u8], reserve: usize) -> usize;

    #[inline]
    fn offset_and_size(&mut self, i: usize, offset: usize, size: u32) {
        let slot = ((offset as u64) << 32) | u64::from(size);
        self.put_slot(i, &slot.to_le_bytes());
    }
}

/// Where one field's slot and null bit are in every row (`null_byte` and `slot` count from
/// the region start, so they include the prefix; `cursor` counts from the row start).
struct RowTarget<'a> {
    data: &'a mut [u8],
    offsets: &'a [usize],
    prefix: usize,
    cursor: &'a mut [usize],
    null_byte: usize,
    null_mask: u8,
    slot: usize,
}

impl Target for RowTarget<'_> {
    #[inline]
    fn set_null(&mut self, row: usize) {
        self.data[self.offsets[row] + self.null_byte] |= self.null_mask;
    }

    #[inline]
    fn put_slot(&mut self, row: usize, bytes: &[u8]) {
        let at = self.offsets[row] + self.slot;
        self.data[at..at + bytes.len()].copy_from_slice(bytes);
    }

    #[inline]
    fn append(&mut self, row: usize, bytes: &[u8], reserve: usize) -> usize {
        let offset = self.cursor[row];
        let at = self.offsets[row] + self.prefix + offset;
        self.data[at..at + bytes.len()].copy_from_slice(bytes);
        self.cursor[row] += reserve;
        offset
    }
}

/// Where one field of rows of one width goes ([`RowWriter::write_fixed`]): no variable part.
struct FixedTarget<'a> {
    data: &'a mut [u8],
    width: usize,
    null_byte: usize,
    null_mask: u8,
    slot: usize,
}

impl Target for FixedTarget<'_> {
    #[inline]
    fn set_null(&mut self, row: usize) {
        self.data[row * self.width + self.null_byte] |= self.null_mask;
    }

    #[inline]
    fn put_slot(&mut self, row: usize, bytes: &[u8]) {
        let at = row * self.width + self.slot;
        self.data[at..at + bytes.len()].copy_from_slice(bytes);
    }

    fn append(&mut self, _: usize, _: &[u8], _: usize) -> usize {
        unreachable!("a fixed-width field has no variable part")
    }
}

/// Where every element of a run of arrays goes.
struct ArrayTarget<'a> {
    data: &'a mut [u8],
    /// Each array's start in `data`.
    starts: &'a [usize],
    /// Each array's next variable-part offset.
    cursor: Vec<usize>,
    /// Each element's array and position in it.
    owner: &'a [(usize, usize)],
    /// Each array's header length (count and null bits).
    headers: &'a [usize],
    width: usize,
}

impl Target for ArrayTarget<'_> {
    #[inline]
    fn set_null(&mut self, i: usize) {
        let (a, p) = self.owner[i];
        self.data[self.starts[a] + 4 + p / 8] |= 1 << (p % 8);
    }

    #[inline]
    fn put_slot(&mut self, i: usize, bytes: &[u8]) {
        debug_assert!(bytes.len() <= self.width, "an element wider than its slot");
        let (a, p) = self.owner[i];
        let at = self.starts[a] + self.headers[a] + p * self.width;
        self.data[at..at + bytes.len()].copy_from_slice(bytes);
    }

    #[inline]
    fn append(&mut self, i: usize, bytes: &[u8], reserve: usize) -> usize {
        let (a, _) = self.owner[i];
        let offset = self.cursor[a];
        let at = self.starts[a] + offset;
        self.data[at..at + bytes.len()].copy_from_slice(bytes);
        self.cursor[a] += reserve;
        offset
    }
}

/// Writes one `BinaryArrayData` per list entry `offsets[i]..offsets[i + 1]` of `values`
/// (elements of type `element`), like `ArrayDataSerializer.toBinaryArray`. NULL list entries
/// get an array too (unused). Mismatched element columns are reported for column `index`.
fn write_arrays(
    index: usize,
    offsets: &[i32],
    values: &ArrayRef,
    element: &LogicalType,
) -> Result<BinaryRows> {
    let (first, last) = match (offsets.first(), offsets.last()) {
        (Some(&f), Some(&l)) => (f as usize, l as usize),
        _ => (0, 0),
    };
    let values = values.slice(first, last - first);
    let field = Field::try_new(index, values.as_ref(), element)?;
    let width = array_element_size(element);
    let arrays = offsets.len().saturating_sub(1);
    let mut owner = Vec::with_capacity(values.len());
    let mut headers = Vec::with_capacity(arrays);
    let mut lens = Vec::with_capacity(arrays + 1);
    for (a, w) in offsets.windows(2).enumerate() {
        let n = (w[1] - w[0]) as usize;
        owner.extend((0..n).map(|p| (a, p)));
        headers.push(array_header_len(n));
        lens.push((array_header_len(n) + width * n).next_multiple_of(8));
    }
    let cursor = lens.clone();
    field.add_variable_lengths(&mut lens, |i| owner[i].0, false);
    lens.push(0);
    let mut total = 0usize;
    for len in lens.iter_mut() {
        let array_len = *len;
        *len = total;
        total += array_len;
    }
    let mut data = vec![0u8; total];
    for (w, start) in offsets.windows(2).zip(&lens) {
        data[*start..start + 4].copy_from_slice(&(w[1] - w[0]).to_le_bytes());
    }
    let mut target = ArrayTarget {
        data: &mut data,
        starts: &lens,
        cursor,
        owner: &owner,
        headers: &headers,
        width,
    };
    field.write(&mut target, false);
    Ok(BinaryRows {
        data,
        offsets: lens,
        prefix: 0,
    })
}

/// One `BinaryMapData` per list entry of a `List<Struct<key, value>>` (`BinaryMapData.valueOf`:
/// the key array's size as an int, the key array, the value array).
fn write_maps(
    index: usize,
    offsets: &[i32],
    entries: &StructArray,
    key: &LogicalType,
    value: &LogicalType,
) -> Result<BinaryRows> {
    let keys = write_arrays(index, offsets, entries.column(0), key)?;
    let values = write_arrays(index, offsets, entries.column(1), value)?;
    let mut data = Vec::with_capacity(keys.data.len() + values.data.len() + 4 * keys.len());
    let mut ends = Vec::with_capacity(keys.len() + 1);
    ends.push(0);
    for (k, v) in keys.iter().zip(values.iter()) {
        data.extend_from_slice(&(k.len() as i32).to_le_bytes());
        data.extend_from_slice(k);
        data.extend_from_slice(v);
        ends.push(data.len());
    }
    Ok(BinaryRows {
        data,
        offsets: ends,
        prefix: 0,
    })
}

/// One key column, typed.
enum Field<'a> {
    Bool(&'a BooleanArray),
    I8(&'a PrimitiveArray<Int8Type>),
    I16(&'a PrimitiveArray<Int16Type>),
    I32(&'a dyn Array, ScalarBuffer<i32>),
    I64(&'a dyn Array, ScalarBuffer<i64>),
    F32(&'a PrimitiveArray<Float32Type>),
    F64(&'a PrimitiveArray<Float64Type>),
    CompactDecimal(&'a Decimal128Array),
    WideDecimal(&'a Decimal128Array),
    Bytes(&'a dyn Array, BytesAccess<'a>),
    CompactTimestamp(&'a dyn Array, Vec<i64>),
    WideTimestamp(&'a dyn Array, Vec<(i64, u32)>),
    /// A ROW, ARRAY or MAP: the column and one encoded value per position (NULL ones
    /// included, unused).
    Nested(&'a dyn Array, BinaryRows),
}

/// Byte-string columns of any offset width.
enum BytesAccess<'a> {
    Utf8(&'a GenericByteArray<Utf8Type>),
    LargeUtf8(&'a GenericByteArray<LargeUtf8Type>),
    Binary(&'a GenericByteArray<BinaryType>),
    LargeBinary(&'a GenericByteArray<LargeBinaryType>),
}

impl BytesAccess<'_> {
    #[inline]
    fn value(&self, row: usize) -> &[u8] {
        match self {
            BytesAccess::Utf8(a) => a.value(row).as_bytes(),
            BytesAccess::LargeUtf8(a) => a.value(row).as_bytes(),
            BytesAccess::Binary(a) => a.value(row),
            BytesAccess::LargeBinary(a) => a.value(row),
        }
    }
}

/// The values buffer, shared (no copy), under its native type.
fn values_of<T: ArrowPrimitiveType>(array: &dyn Array) -> ScalarBuffer<T::Native> {
    array.as_primitive::<T>().values().clone()
}

/// Splits epoch ticks of `unit` into Flink's milliseconds and nanoseconds of millisecond.
fn timestamp_parts(array: &dyn Array, unit: TimeUnit) -> Vec<(i64, u32)> {
    fn split<T: ArrowPrimitiveType<Native = i64>>(a: &dyn Array, per_ms: i64) -> Vec<(i64, u32)> {
        let nanos_per_tick = 1_000_000 / per_ms;
        a.as_primitive::<T>()
            .values()
            .iter()
            .map(|&v| {
                (
                    v.div_euclid(per_ms),
                    (v.rem_euclid(per_ms) * nanos_per_tick) as u32,
                )
            })
            .collect()
    }
    match unit {
        TimeUnit::Millisecond => split::<TimestampMillisecondType>(array, 1),
        TimeUnit::Microsecond => split::<TimestampMicrosecondType>(array, 1_000),
        TimeUnit::Nanosecond => split::<TimestampNanosecondType>(array, 1_000_000),
        TimeUnit::Second => unreachable!("TIMESTAMP(p) never maps to seconds"),
    }
}

impl<'a> Field<'a> {
    fn try_new(index: usize, array: &'a dyn Array, logical: &LogicalType) -> Result<Self> {
        let expected = logical.to_arrow();
        let found = array.data_type();
        let mismatch = || Error::ColumnType {
            column: index,
            logical: logical.to_string(),
            expected: expected.to_string(),
            found: found.to_string(),
        };
        use arrow::datatypes::DataType as D;
        if let LogicalType::Row(fields) = logical {
            // Children are checked by the nested writer (names are not: rows are positional).
            let Some(rows) = array
                .as_struct_opt()
                .filter(|s| s.num_columns() == fields.len())
            else {
                return Err(mismatch());
            };
            let types = fields.iter().map(|f| f.ty.clone()).collect();
            let nested = RowWriter::nested(types)
                .write_columns(rows.columns(), rows.len(), 0)
                .map_err(|e| match e {
                    Error::ColumnType { .. } => mismatch(),
                    e => e,
                })?;
            return Ok(Field::Nested(array, nested));
        }
        let nested_mismatch = |e| match e {
            Error::ColumnType { .. } => mismatch(),
            e => e,
        };
        if let LogicalType::Array(element) = logical {
            let Some(list) = array.as_list_opt::<i32>() else {
                return Err(mismatch());
            };
            let nested = write_arrays(index, list.value_offsets(), list.values(), element)
                .map_err(nested_mismatch)?;
            return Ok(Field::Nested(array, nested));
        }
        if let LogicalType::Map(key, value) = logical {
            let Some((list, entries)) = array.as_list_opt::<i32>().and_then(|l| {
                l.values()
                    .as_struct_opt()
                    .filter(|e| e.num_columns() == 2)
                    .map(|e| (l, e))
            }) else {
                return Err(mismatch());
            };
            if entries.null_count() > 0 {
                return Err(Error::InvalidShape(format!(
                    "column {index} ({logical}) has NULL map entries; a NULL key or value goes in the entry's key or value"
                )));
            }
            let nested = write_maps(index, list.value_offsets(), entries, key, value)
                .map_err(nested_mismatch)?;
            return Ok(Field::Nested(array, nested));
        }
        let is_string = matches!(logical, LogicalType::Char(_) | LogicalType::VarChar(_));
        let is_binary = matches!(logical, LogicalType::Binary(_) | LogicalType::VarBinary(_));
        if is_string || is_binary {
            let access = match (found, is_string) {
                (D::Utf8, true) => BytesAccess::Utf8(array.as_string::<i32>()),
                (D::LargeUtf8, true) => BytesAccess::LargeUtf8(array.as_string::<i64>()),
                (D::Binary, false) => BytesAccess::Binary(array.as_binary::<i32>()),
                (D::LargeBinary, false) => BytesAccess::LargeBinary(array.as_binary::<i64>()),
                _ => return Err(mismatch()),
            };
            return Ok(Field::Bytes(array, access));
        }
        if found != &expected {
            return Err(mismatch());
        }
        Ok(match logical {
            LogicalType::Boolean => Field::Bool(array.as_boolean()),
            LogicalType::TinyInt => Field::I8(array.as_primitive()),
            LogicalType::SmallInt => Field::I16(array.as_primitive()),
            LogicalType::Int => Field::I32(array, values_of::<Int32Type>(array)),
            LogicalType::Date => Field::I32(array, values_of::<Date32Type>(array)),
            LogicalType::Time(_) => Field::I32(array, values_of::<Time32MillisecondType>(array)),
            LogicalType::IntervalYearMonth => {
                Field::I32(array, values_of::<IntervalYearMonthType>(array))
            }
            LogicalType::BigInt => Field::I64(array, values_of::<Int64Type>(array)),
            LogicalType::IntervalDayTime => {
                Field::I64(array, values_of::<DurationMillisecondType>(array))
            }
            LogicalType::Float => Field::F32(array.as_primitive()),
            LogicalType::Double => Field::F64(array.as_primitive()),
            LogicalType::Decimal { .. } if logical.is_compact() => {
                Field::CompactDecimal(array.as_primitive())
            }
            LogicalType::Decimal { .. } => Field::WideDecimal(array.as_primitive()),
            LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => {
                let D::Timestamp(unit, _) = found else {
                    return Err(mismatch());
                };
                if logical.is_compact() {
                    let millis = timestamp_parts(array, *unit)
                        .into_iter()
                        .map(|(ms, _)| ms)
                        .collect();
                    Field::CompactTimestamp(array, millis)
                } else {
                    Field::WideTimestamp(array, timestamp_parts(array, *unit))
                }
            }
            LogicalType::Char(_)
            | LogicalType::VarChar(_)
            | LogicalType::Binary(_)
            | LogicalType::VarBinary(_)
            | LogicalType::Row(_)
            | LogicalType::Array(_)
            | LogicalType::Map(..) => unreachable!("handled above"),
        })
    }

    fn array(&self) -> &dyn Array {
        match self {
            Field::Bool(a) => *a,
            Field::I8(a) => *a,
            Field::I16(a) => *a,
            Field::F32(a) => *a,
            Field::F64(a) => *a,
            Field::CompactDecimal(a) | Field::WideDecimal(a) => *a,
            Field::I32(a, _)
            | Field::I64(a, _)
            | Field::Bytes(a, _)
            | Field::CompactTimestamp(a, _)
            | Field::WideTimestamp(a, _) => *a,
            Field::Nested(a, _) => *a,
        }
    }

    /// Adds each value's variable-part bytes to the length of its container,
    /// `lens[owner(i)]`.
    fn add_variable_lengths(
        &self,
        lens: &mut [usize],
        owner: impl Fn(usize) -> usize,
        reserve_wide_nulls: bool,
    ) {
        let array = self.array();
        let rows = array.len();
        match self {
            Field::Bytes(_, access) => {
                for row in 0..rows {
                    if array.is_valid(row) {
                        let n = access.value(row).len();
                        if n > MAX_INLINE_BYTES {
                            lens[owner(row)] += n.next_multiple_of(8);
                        }
                    }
                }
            }
            Field::WideDecimal(_) | Field::WideTimestamp(..) => {
                let bytes = if matches!(self, Field::WideDecimal(_)) {
                    16
                } else {
                    8
                };
                for row in 0..rows {
                    if reserve_wide_nulls || array.is_valid(row) {
                        lens[owner(row)] += bytes;
                    }
                }
            }
            Field::Nested(_, nested) => {
                for row in 0..rows {
                    if array.is_valid(row) {
                        lens[owner(row)] += nested.row(row).len().next_multiple_of(8);
                    }
                }
            }
            _ => {}
        }
    }

    /// Fills every value's slot (and variable part). Each type has its own loop so the
    /// per-value work is branch-light.
    fn write(&self, w: &mut impl Target, reserve_wide_nulls: bool) {
        let array = self.array();
        let rows = array.len();
        let nulls = array.logical_nulls();
        let valid = |row: usize| nulls.as_ref().is_none_or(|n| n.is_valid(row));
        // Fixed-slot types: the bytes go to the slot; a NULL only sets its bit.
        macro_rules! fixed {
            ($bytes:expr) => {
                for row in 0..rows {
                    if valid(row) {
                        w.put_slot(row, &$bytes(row));
                    } else {
                        w.set_null(row);
                    }
                }
            };
        }
        match self {
            Field::Bool(a) => fixed!(|r| [u8::from(a.value(r))]),
            Field::I8(a) => fixed!(|r| a.value(r).to_le_bytes()),
            Field::I16(a) => fixed!(|r| a.value(r).to_le_bytes()),
            Field::I32(_, v) => fixed!(|r: usize| v[r].to_le_bytes()),
            Field::I64(_, v) => fixed!(|r: usize| v[r].to_le_bytes()),
            Field::F32(a) => fixed!(|r| a.value(r).to_bits().to_le_bytes()),
            Field::F64(a) => fixed!(|r| a.value(r).to_bits().to_le_bytes()),
            // Precision <= 18 guarantees the unscaled value fits a long.
            Field::CompactDecimal(a) => fixed!(|r| (a.value(r) as i64).to_le_bytes()),
            Field::CompactTimestamp(_, millis) => fixed!(|r: usize| millis[r].to_le_bytes()),
            Field::Bytes(_, access) => {
                for row in 0..rows {
                    if !valid(row) {
                        w.set_null(row);
                        continue;
                    }
                    let bytes = access.value(row);
                    if bytes.len() <= MAX_INLINE_BYTES {
                        let mut slot = [0u8; 8];
                        slot[..bytes.len()].copy_from_slice(bytes);
                        slot[7] = 0x80 | bytes.len() as u8;
                        w.put_slot(row, &slot);
                    } else {
                        let offset = w.append(row, bytes, bytes.len().next_multiple_of(8));
                        w.offset_and_size(row, offset, bytes.len() as u32);
                    }
                }
            }
            // Wide values of key rows reserve their variable-part bytes even when NULL.
            Field::WideDecimal(a) => {
                for row in 0..rows {
                    if valid(row) {
                        let bytes = BigIntegerBytes::new(a.value(row));
                        let offset = w.append(row, bytes.as_slice(), 16);
                        w.offset_and_size(row, offset, bytes.as_slice().len() as u32);
                    } else {
                        w.set_null(row);
                        if reserve_wide_nulls {
                            let offset = w.append(row, &[], 16);
                            w.offset_and_size(row, offset, 0);
                        }
                    }
                }
            }
            Field::WideTimestamp(_, parts) => {
                for (row, &(millis, nanos)) in parts.iter().enumerate() {
                    if valid(row) {
                        let offset = w.append(row, &millis.to_le_bytes(), 8);
                        w.offset_and_size(row, offset, nanos);
                    } else {
                        w.set_null(row);
                        if reserve_wide_nulls {
                            let offset = w.append(row, &[], 8);
                            w.offset_and_size(row, offset, 0);
                        }
                    }
                }
            }
            // Never inline, even when it would fit a slot (writeSegmentsToVarLenPart); the
            // size is unpadded (a map's `4 + keys + values` is not a multiple of 8).
            Field::Nested(_, nested) => {
                for row in 0..rows {
                    if !valid(row) {
                        w.set_null(row);
                        continue;
                    }
                    let bytes = nested.row(row);
                    let offset = w.append(row, bytes, bytes.len().next_multiple_of(8));
                    w.offset_and_size(row, offset, bytes.len() as u32);
                }
            }
        }
    }
}

/// `BigInteger.toByteArray()`: the minimal big-endian two's complement, at least one byte,
/// kept on the stack (one heap allocation per wide decimal was most of a wide row's cost).
struct BigIntegerBytes {
    bytes: [u8; 16],
    start: usize,
}

impl BigIntegerBytes {
    fn new(value: i128) -> Self {
        let bytes = value.to_be_bytes();
        let sign = if value < 0 { 0xff } else { 0x00 };
        // Drop leading sign bytes while the next byte still carries the sign bit.
        let mut start = 0;
        while start < 15 && bytes[start] == sign && (bytes[start + 1] & 0x80) == (sign & 0x80) {
            start += 1;
        }
        Self { bytes, start }
    }

    fn as_slice(&self) -> &[u8] {
        &self.bytes[self.start..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow::array::{Int64Array, StringArray};

    #[test]
    fn null_bit_width_follows_flink() {
        assert_eq!(null_bits_width(1), 8);
        assert_eq!(null_bits_width(56), 8);
        assert_eq!(null_bits_width(57), 16);
        assert_eq!(null_bits_width(120), 16);
        assert_eq!(null_bits_width(121), 24);
    }

    #[test]
    fn big_integer_bytes_are_minimal_twos_complement() {
        let bytes = |v: i128| BigIntegerBytes::new(v).as_slice().to_vec();
        assert_eq!(bytes(0), vec![0]);
        assert_eq!(bytes(127), vec![0x7f]);
        assert_eq!(bytes(128), vec![0x00, 0x80]);
        assert_eq!(bytes(-1), vec![0xff]);
        assert_eq!(bytes(-128), vec![0x80]);
        assert_eq!(bytes(-129), vec![0xff, 0x7f]);
        assert_eq!(bytes(i128::MIN).len(), 16);
    }

    #[test]
    fn a_bigint_key_is_sixteen_bytes_with_the_value_after_the_header_word() {
        let rows = RowWriter::new(vec![LogicalType::BigInt])
            .write(&[Arc::new(Int64Array::from(vec![Some(0x0102), None]))])
            .unwrap();
        let mut expected = vec![0u8; 16];
        expected[8] = 0x02;
        expected[9] = 0x01;
        assert_eq!(rows.row(0), expected.as_slice());
        let mut null = vec![0u8; 16];
        null[1] = 1; // bit 8: field 0 is NULL
        assert_eq!(rows.row(1), null.as_slice());
    }

    #[test]
    fn short_strings_are_inline_and_long_ones_go_to_the_variable_part() {
        let rows = RowWriter::new(vec![LogicalType::VarChar(100)])
            .write(&[Arc::new(StringArray::from(vec!["abcdefg", "abcdefgh"]))])
            .unwrap();
        assert_eq!(rows.row(0).len(), 16);
        assert_eq!(&rows.row(0)[8..16], b"abcdefg\x87");
        let long = rows.row(1);
        assert_eq!(long.len(), 24);
        assert_eq!(
            u64::from_le_bytes(long[8..16].try_into().unwrap()),
            (16 << 32) | 8
        );
        assert_eq!(&long[16..24], b"abcdefgh");
    }

    #[test]
    fn columns_of_the_wrong_type_or_length_are_rejected() {
        let writer = RowWriter::new(vec![LogicalType::Int, LogicalType::BigInt]);
        let ints: ArrayRef = Arc::new(arrow::array::Int32Array::from(vec![1]));
        let longs: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
        let err = writer.write(&[ints.clone(), ints.clone()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "column 1 is declared BIGINT (Arrow Int64) but holds Int32"
        );
        assert!(
            writer
                .write(&[ints.clone(), longs])
                .unwrap_err()
                .to_string()
                .contains("has 2 rows")
        );
        assert!(
            writer
                .write(&[ints])
                .unwrap_err()
                .to_string()
                .contains("got 1 columns")
        );
    }
}
