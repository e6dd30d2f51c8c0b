//! Reading Flink `BinaryRowData` rows into Arrow columns, column at a time.
//!
//! The layout is documented in [`super`]. One pass checks every row's length and header
//! (row kind) byte; then each field is decoded across all rows into its Arrow column
//! ([`LogicalType::to_arrow`]). Every variable-part read is bounds-checked against its own
//! row, so malformed input is an [`Error::MalformedRow`] naming the row and field, never a
//! panic or a read outside the row.
//!
//! A ROW field's nested rows are bounds-checked like any variable-part value, then decoded
//! as rows of their own; a problem inside one is reported as [`RowProblem::NestedRow`] of the
//! outer row and field. Nested rows must be `+I` (the struct has no place for another kind).
//!
//! Values are decoded through [`Cells`]: a row field's slots, or the elements of many
//! `BinaryArrayData`s at once (slots of the element's width, offsets relative to each array),
//! so ARRAY and MAP elements of every type share the row fields' code. An array's count, null
//! words and slots are checked against its length before any element is read; problems
//! inside are [`RowProblem::NestedArray`] (naming the element) or [`RowProblem::NestedMap`].

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BinaryArray, BooleanArray, Int8Array, ListArray, PrimitiveArray, RecordBatch,
    RecordBatchOptions, StringArray, StructArray,
};
use arrow::buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Decimal128Type, DurationMillisecondType, Field,
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, IntervalYearMonthType,
    Schema, SchemaRef, Time32MillisecondType, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType,
};

use super::{
    BinaryRows, MAX_INLINE_BYTES, MAX_NANO_OF_MILLISECOND, WIDE_DECIMAL_BYTES, array_element_size,
    array_header_len, null_bits_width,
};
use crate::changelog::{ChangelogBatch, RowKind};
use crate::error::{Error, Result, RowProblem};
use crate::types::{
    LogicalType, array_item_field, map_entry_fields, row_arrow_fields, timestamp_unit,
};

/// Reads `BinaryRowData` rows of declared Flink types into a [`ChangelogBatch`].
#[derive(Debug, Clone)]
pub struct RowReader {
    types: Vec<LogicalType>,
    null_bits: usize,
    schema: SchemaRef,
}

impl RowReader {
    /// A reader for rows with these field types. The output fields are named `f0`, `f1`, ...
    /// (Flink's default row field names) and are nullable.
    pub fn new(types: Vec<LogicalType>) -> Self {
        let null_bits = null_bits_width(types.len());
        let fields: Vec<Field> = types
            .iter()
            .enumerate()
            .map(|(i, t)| Field::new(format!("f{i}"), t.to_arrow(), true))
            .collect();
        Self {
            types,
            null_bits,
            schema: Arc::new(Schema::new(fields)),
        }
    }

    /// The field types.
    pub fn types(&self) -> &[LogicalType] {
        &self.types
    }

    /// The schema of the batches read.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Bytes of a row before its variable part.
    pub fn fixed_len(&self) -> usize {
        self.null_bits + 8 * self.types.len()
    }

    /// Reads rows written by [`super::RowWriter`] (or Flink).
    pub fn read_rows(&self, rows: &BinaryRows) -> Result<ChangelogBatch> {
        if rows.prefix() > 0 {
            return Err(Error::InvalidShape(format!(
                "rows written with a {}-byte prefix are state keys, not a row batch; write \
                 them without one to read them back",
                rows.prefix()
            )));
        }
        self.read(rows.data(), rows.offsets())
    }

    /// Reads the rows `data[offsets[i]..offsets[i + 1]]`. `offsets` has one entry more than
    /// there are rows, never decreases and ends within `data`. The row kinds come from the
    /// header bytes; a batch of only `+I` rows carries no kind column.
    pub fn read(&self, data: &[u8], offsets: &[usize]) -> Result<ChangelogBatch> {
        let rows = Rows::try_new(data, offsets)?;
        let kinds = self.validate(&rows)?;
        let columns = (0..self.types.len())
            .map(|field| self.column(&rows, field))
            .collect::<Result<Vec<_>>>()?;
        let options = RecordBatchOptions::new().with_row_count(Some(rows.len()));
        let batch = RecordBatch::try_new_with_options(self.schema.clone(), columns, &options)?;
        ChangelogBatch::try_new(batch, kinds)
    }

    /// Checks each row's length and kind; returns the kinds unless all are `+I`.
    fn validate(&self, rows: &Rows<'_>) -> Result<Option<Int8Array>> {
        let fixed = self.fixed_len();
        let mut kinds = Vec::with_capacity(rows.len());
        for r in 0..rows.len() {
            let row = rows.row(r);
            let problem = if row.len() < fixed {
                Some(RowProblem::ShorterThanFixedPart {
                    len: row.len(),
                    fixed,
                })
            } else if !row.len().is_multiple_of(8) {
                Some(RowProblem::UnalignedLength { len: row.len() })
            } else {
                // The fixed part is at least 8 bytes, so the header exists.
                let byte = row[0] as i8;
                kinds.push(byte);
                RowKind::from_byte(byte).map_or(Some(RowProblem::UnknownRowKind { byte }), |_| None)
            };
            if let Some(problem) = problem {
                return Err(Error::MalformedRow {
                    row: r,
                    field: None,
                    problem,
                });
            }
        }
        let all_insert = kinds.iter().all(|&k| k == RowKind::Insert.to_byte());
        Ok((!all_insert).then(|| Int8Array::from(kinds)))
    }

    /// Decodes field `field` of every (validated) row.
    fn column(&self, rows: &Rows<'_>, field: usize) -> Result<ArrayRef> {
        let n = rows.len();
        let at = self.null_bits + 8 * field;
        let (null_byte, null_mask) = ((field + 8) / 8, 1u8 << ((field + 8) % 8));
        let valid = BooleanBuffer::collect_bool(n, |r| rows.byte(r, null_byte) & null_mask == 0);
        let nulls = Some(NullBuffer::new(valid)).filter(|v| v.null_count() > 0);
        let cells = RowCells { rows, at };
        decode(&self.types[field], &cells, nulls).map_err(|e| match e {
            Error::MalformedRow {
                row,
                field: None,
                problem,
            } => Error::MalformedRow {
                row,
                field: Some(field),
                problem,
            },
            e => e,
        })
    }
}

/// Decodes the value of type `logical` in every cell (a row's field or an array's element).
/// A problem is an [`Error::MalformedRow`] whose `row` is the cell index and `field` is
/// `None`; the caller names the field or element.
fn decode<'a, C: Cells<'a>>(
    logical: &LogicalType,
    cells: &C,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let n = cells.len();
    let is_valid = |r: usize| nulls.as_ref().is_none_or(|v| v.is_valid(r));
    let fail = |row: usize, problem: RowProblem| Error::MalformedRow {
        row,
        field: None,
        problem,
    };
    // A fixed-slot value: the slot's low bytes, read for NULLs too (Flink zeroes them).
    fn fixed<T: ArrowPrimitiveType>(
        n: usize,
        nulls: Option<NullBuffer>,
        value: impl Fn(usize) -> T::Native,
    ) -> PrimitiveArray<T> {
        PrimitiveArray::new(ScalarBuffer::from_iter((0..n).map(value)), nulls)
    }
    let slot = |r: usize| cells.slot(r);
    let array: ArrayRef = match *logical {
        LogicalType::Boolean => {
            let values = BooleanBuffer::collect_bool(n, |r| slot(r) as u8 != 0);
            Arc::new(BooleanArray::new(values, nulls))
        }
        LogicalType::TinyInt => Arc::new(fixed::<Int8Type>(n, nulls, |r| slot(r) as i8)),
        LogicalType::SmallInt => Arc::new(fixed::<Int16Type>(n, nulls, |r| slot(r) as i16)),
        LogicalType::Int => Arc::new(fixed::<Int32Type>(n, nulls, |r| slot(r) as i32)),
        LogicalType::Date => Arc::new(fixed::<Date32Type>(n, nulls, |r| slot(r) as i32)),
        LogicalType::Time(_) => {
            Arc::new(fixed::<Time32MillisecondType>(n, nulls, |r| slot(r) as i32))
        }
        LogicalType::IntervalYearMonth => {
            Arc::new(fixed::<IntervalYearMonthType>(n, nulls, |r| slot(r) as i32))
        }
        LogicalType::BigInt => Arc::new(fixed::<Int64Type>(n, nulls, |r| slot(r) as i64)),
        LogicalType::IntervalDayTime => Arc::new(fixed::<DurationMillisecondType>(n, nulls, |r| {
            slot(r) as i64
        })),
        LogicalType::Float => Arc::new(fixed::<Float32Type>(n, nulls, |r| {
            f32::from_bits(slot(r) as u32)
        })),
        LogicalType::Double => {
            Arc::new(fixed::<Float64Type>(n, nulls, |r| f64::from_bits(slot(r))))
        }
        LogicalType::Row(ref fields) => {
            let reader = RowReader::new(fields.iter().map(|f| f.ty.clone()).collect());
            // NULL rows get a stand-in with every field NULL, so nothing is read from it.
            let mut null_row = vec![0u8; reader.fixed_len()];
            for i in 0..fields.len() {
                null_row[(i + 8) / 8] |= 1 << ((i + 8) % 8);
            }
            let mut data = Vec::new();
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0);
            for r in 0..n {
                if is_valid(r) {
                    let (offset, size) = split_slot(slot(r));
                    data.extend_from_slice(cells.var(r, offset, size).map_err(|p| fail(r, p))?);
                } else {
                    data.extend_from_slice(&null_row);
                }
                offsets.push(data.len());
            }
            // One nested row per outer row, so the nested row index is the outer one.
            let nested = reader.read(&data, &offsets).map_err(|e| match e {
                Error::MalformedRow {
                    row,
                    field: inner,
                    problem,
                } => fail(
                    row,
                    RowProblem::NestedRow {
                        field: inner,
                        problem: Box::new(problem),
                    },
                ),
                e => e,
            })?;
            if let Some(kinds) = nested.kinds()
                && let Some(r) = kinds.values().iter().position(|&k| k != 0)
            {
                return Err(fail(
                    r,
                    RowProblem::NestedRowKind {
                        byte: kinds.value(r),
                    },
                ));
            }
            let (batch, _) = nested.into_parts();
            Arc::new(StructArray::try_new_with_length(
                row_arrow_fields(fields),
                batch.columns().to_vec(),
                nulls,
                n,
            )?)
        }
        LogicalType::Array(ref element) => {
            let arrays = (0..n)
                .map(|r| {
                    let (offset, size) = split_slot(slot(r));
                    is_valid(r)
                        .then(|| cells.var(r, offset, size).map_err(|p| fail(r, p)))
                        .transpose()
                })
                .collect::<Result<Vec<_>>>()?;
            let (values, offsets) = read_arrays(element, &arrays)?;
            Arc::new(ListArray::try_new(
                array_item_field(element),
                OffsetBuffer::new(offsets),
                values,
                nulls,
            )?)
        }
        LogicalType::Map(ref key, ref value) => read_maps(key, value, cells, nulls)?,
        LogicalType::Decimal { precision, scale } => {
            let max = 10i128.pow(u32::from(precision)) - 1;
            let mut values = Vec::with_capacity(n);
            for r in 0..n {
                if !is_valid(r) {
                    values.push(0);
                    continue;
                }
                let value = if logical.is_compact() {
                    i128::from(slot(r) as i64)
                } else {
                    let (offset, len) = split_slot(slot(r));
                    if len == 0 || len > WIDE_DECIMAL_BYTES as u64 {
                        return Err(fail(r, RowProblem::DecimalLength { len }));
                    }
                    let bytes = cells.var(r, offset, len).map_err(|p| fail(r, p))?;
                    big_integer_value(bytes)
                };
                if !(-max..=max).contains(&value) {
                    return Err(fail(r, RowProblem::DecimalOverflow { value, precision }));
                }
                values.push(value);
            }
            Arc::new(
                PrimitiveArray::<Decimal128Type>::new(ScalarBuffer::from(values), nulls)
                    .with_precision_and_scale(precision, scale as i8)?,
            )
        }
        LogicalType::Char(_)
        | LogicalType::VarChar(_)
        | LogicalType::Binary(_)
        | LogicalType::VarBinary(_) => {
            let mut values = Vec::new();
            let mut ends = Vec::with_capacity(n + 1);
            ends.push(0i32);
            for r in 0..n {
                if is_valid(r) {
                    let bytes = cells.bytes(r).map_err(|p| fail(r, p))?;
                    values.extend_from_slice(bytes);
                }
                let end = i32::try_from(values.len()).map_err(|_| {
                        Error::OutOfRange(format!(
                            "a column holds more than {} bytes by value {r}, too many for one Arrow array",
                            i32::MAX
                        ))
                    })?;
                ends.push(end);
            }
            let offsets = OffsetBuffer::new(ScalarBuffer::from(ends));
            let values = Buffer::from_vec(values);
            if matches!(*logical, LogicalType::Char(_) | LogicalType::VarChar(_)) {
                match StringArray::try_new(offsets.clone(), values.clone(), nulls.clone()) {
                    Ok(strings) => Arc::new(strings),
                    Err(e) => {
                        return Err(first_invalid_utf8(&offsets, &values).unwrap_or(e.into()));
                    }
                }
            } else {
                Arc::new(BinaryArray::try_new(offsets, values, nulls)?)
            }
        }
        LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => {
            let unit = timestamp_unit(p);
            let tz = matches!(*logical, LogicalType::TimestampLtz(_)).then_some("UTC");
            let mut ticks = Vec::with_capacity(n);
            for r in 0..n {
                if logical.is_compact() {
                    ticks.push(slot(r) as i64);
                    continue;
                }
                if !is_valid(r) {
                    ticks.push(0);
                    continue;
                }
                let (offset, nanos) = split_slot(slot(r));
                let nanos = nanos as u32;
                if nanos > MAX_NANO_OF_MILLISECOND {
                    return Err(fail(r, RowProblem::NanosOutOfRange { nanos }));
                }
                let millis = cells.var(r, offset, 8).map_err(|p| fail(r, p))?;
                let millis = i64::from_le_bytes(to_word(millis));
                let tick = timestamp_ticks(millis, nanos, unit).ok_or_else(|| {
                    fail(
                        r,
                        RowProblem::TimestampUnrepresentable {
                            millis,
                            nanos,
                            unit: format!("{unit:?}"),
                        },
                    )
                })?;
                ticks.push(tick);
            }
            let ticks = ScalarBuffer::from(ticks);
            match unit {
                TimeUnit::Millisecond => Arc::new(
                    PrimitiveArray::<TimestampMillisecondType>::new(ticks, nulls)
                        .with_timezone_opt(tz),
                ),
                TimeUnit::Microsecond => Arc::new(
                    PrimitiveArray::<TimestampMicrosecondType>::new(ticks, nulls)
                        .with_timezone_opt(tz),
                ),
                TimeUnit::Nanosecond | TimeUnit::Second => Arc::new(
                    PrimitiveArray::<TimestampNanosecondType>::new(ticks, nulls)
                        .with_timezone_opt(tz),
                ),
            }
        }
    };
    Ok(array)
}

/// Rows `data[offsets[i]..offsets[i + 1]]`, with bounds checked once.
struct Rows<'a> {
    data: &'a [u8],
    offsets: &'a [usize],
}

impl<'a> Rows<'a> {
    fn try_new(data: &'a [u8], offsets: &'a [usize]) -> Result<Self> {
        let Some(&last) = offsets.last() else {
            return Err(Error::InvalidShape(
                "row offsets need at least one entry (rows + 1), got none".into(),
            ));
        };
        if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
            return Err(Error::InvalidShape(format!(
                "row offsets decrease at row {i}: {} > {}",
                offsets[i],
                offsets[i + 1]
            )));
        }
        if last > data.len() {
            return Err(Error::InvalidShape(format!(
                "row offsets end at byte {last} but the data has {} bytes",
                data.len()
            )));
        }
        Ok(Self { data, offsets })
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn row(&self, r: usize) -> &'a [u8] {
        &self.data[self.offsets[r]..self.offsets[r + 1]]
    }

    /// Byte `at` of row `r` (0 past the row; validated rows hold their fixed part).
    #[inline]
    fn byte(&self, r: usize, at: usize) -> u8 {
        self.row(r).get(at).copied().unwrap_or(0)
    }
}

/// The values of one column: cell `i`'s slot is [`Cells::width`] bytes at [`Cells::at`] of
/// [`Cells::container`] (its row, or its array), and its variable-part offsets are relative to
/// that container.
trait Cells<'a> {
    /// The number of cells.
    fn len(&self) -> usize;
    /// The bytes holding cell `i`.
    fn container(&self, i: usize) -> &'a [u8];
    /// Where cell `i`'s slot starts in its container.
    fn at(&self, i: usize) -> usize;
    /// The slot width: 8 in rows, the element size (1, 2, 4 or 8) in arrays.
    fn width(&self) -> usize;

    /// Cell `i`'s slot, zero-extended (0 past the container; validated containers hold it).
    #[inline]
    fn slot(&self, i: usize) -> u64 {
        let at = self.at(i);
        let Some(bytes) = self.container(i).get(at..at + self.width()) else {
            return 0;
        };
        let mut word = [0u8; 8];
        word[..bytes.len()].copy_from_slice(bytes);
        u64::from_le_bytes(word)
    }

    /// `len` bytes at `offset` of cell `i`'s container.
    fn var(&self, i: usize, offset: u64, len: u64) -> Result<&'a [u8], RowProblem> {
        let row = self.container(i);
        let outside = RowProblem::OutsideRow {
            offset,
            len,
            row_len: row.len(),
        };
        let end = offset.checked_add(len).ok_or(outside.clone())?;
        if end > row.len() as u64 {
            return Err(outside);
        }
        Ok(&row[offset as usize..end as usize])
    }

    /// The bytes of the string or binary in cell `i`: inline or in the variable part.
    fn bytes(&self, i: usize) -> Result<&'a [u8], RowProblem> {
        let slot = self.slot(i);
        let top = (slot >> 56) as u8;
        if top & 0x80 != 0 {
            let len = top & 0x7f;
            if usize::from(len) > MAX_INLINE_BYTES {
                return Err(RowProblem::InlineTooLong { len });
            }
            self.var(i, self.at(i) as u64, u64::from(len))
        } else {
            let (offset, len) = split_slot(slot);
            self.var(i, offset, len)
        }
    }
}

/// Field slots at `at` of every row.
struct RowCells<'r, 'a> {
    rows: &'r Rows<'a>,
    at: usize,
}

impl<'a> Cells<'a> for RowCells<'_, 'a> {
    #[inline]
    fn len(&self) -> usize {
        self.rows.len()
    }

    #[inline]
    fn container(&self, i: usize) -> &'a [u8] {
        self.rows.row(i)
    }

    #[inline]
    fn at(&self, _: usize) -> usize {
        self.at
    }

    #[inline]
    fn width(&self) -> usize {
        8
    }
}

/// The elements of many arrays, back to back.
struct ElementCells<'a> {
    arrays: Vec<&'a [u8]>,
    at: Vec<usize>,
    width: usize,
}

impl<'a> Cells<'a> for ElementCells<'a> {
    fn len(&self) -> usize {
        self.at.len()
    }

    fn container(&self, i: usize) -> &'a [u8] {
        self.arrays[i]
    }

    fn at(&self, i: usize) -> usize {
        self.at[i]
    }

    fn width(&self) -> usize {
        self.width
    }
}

/// Decodes `BinaryArrayData` values (`None` for NULL, read as empty) into all their elements,
/// back to back, and the list offsets. A problem names the array's index, with
/// [`RowProblem::NestedArray`].
fn read_arrays(
    element: &LogicalType,
    arrays: &[Option<&[u8]>],
) -> Result<(ArrayRef, ScalarBuffer<i32>)> {
    let width = array_element_size(element);
    let mut cells = ElementCells {
        arrays: Vec::new(),
        at: Vec::new(),
        width,
    };
    let mut valid = Vec::new();
    let mut owner = Vec::new();
    let mut offsets = Vec::with_capacity(arrays.len() + 1);
    offsets.push(0i32);
    for (a, bytes) in arrays.iter().enumerate() {
        let fail = |problem: RowProblem| Error::MalformedRow {
            row: a,
            field: None,
            problem: RowProblem::NestedArray {
                element: None,
                problem: Box::new(problem),
            },
        };
        if let Some(bytes) = *bytes {
            let Some(count) = bytes.get(..4) else {
                return Err(fail(RowProblem::ArrayTooShort {
                    len: bytes.len(),
                    needed: 4,
                }));
            };
            let count = i32::from_le_bytes([count[0], count[1], count[2], count[3]]);
            let elements = usize::try_from(count)
                .map_err(|_| fail(RowProblem::NegativeArraySize { count }))?;
            let header = array_header_len(elements);
            let needed = header + width * elements;
            if bytes.len() < needed {
                return Err(fail(RowProblem::ArrayTooShort {
                    len: bytes.len(),
                    needed,
                }));
            }
            for p in 0..elements {
                cells.arrays.push(bytes);
                cells.at.push(header + p * width);
                valid.push(bytes[4 + p / 8] & (1 << (p % 8)) == 0);
                owner.push((a, p));
            }
        }
        let end = i32::try_from(cells.at.len()).map_err(|_| {
            Error::OutOfRange(format!(
                "arrays hold more than {} elements by array {a}, too many for one Arrow list",
                i32::MAX
            ))
        })?;
        offsets.push(end);
    }
    let nulls = Some(NullBuffer::from(valid)).filter(|v| v.null_count() > 0);
    let values = decode(element, &cells, nulls).map_err(|e| match e {
        Error::MalformedRow {
            row,
            field: None,
            problem,
        } => {
            let (a, p) = owner[row];
            Error::MalformedRow {
                row: a,
                field: None,
                problem: RowProblem::NestedArray {
                    element: Some(p),
                    problem: Box::new(problem),
                },
            }
        }
        e => e,
    })?;
    Ok((values, ScalarBuffer::from(offsets)))
}

/// Decodes the `BinaryMapData` in every cell: a 4-byte key-array size, the key array, then
/// the value array, as a list of `(key, value)` entries.
fn read_maps<'a, C: Cells<'a>>(
    key: &LogicalType,
    value: &LogicalType,
    cells: &C,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let n = cells.len();
    let fail = |row: usize, problem: RowProblem| Error::MalformedRow {
        row,
        field: None,
        problem,
    };
    let mut keys = Vec::with_capacity(n);
    let mut values = Vec::with_capacity(n);
    for r in 0..n {
        if nulls.as_ref().is_some_and(|v| v.is_null(r)) {
            keys.push(None);
            values.push(None);
            continue;
        }
        let (offset, size) = split_slot(cells.slot(r));
        let map = cells.var(r, offset, size).map_err(|p| fail(r, p))?;
        let Some(key_bytes) = map.get(..4) else {
            return Err(fail(r, RowProblem::MapTooShort { len: map.len() }));
        };
        let key_bytes =
            i32::from_le_bytes([key_bytes[0], key_bytes[1], key_bytes[2], key_bytes[3]]);
        let split = usize::try_from(key_bytes)
            .ok()
            .and_then(|k| k.checked_add(4))
            .filter(|&end| end <= map.len())
            .ok_or(fail(
                r,
                RowProblem::MapKeyArrayOutside {
                    key_bytes,
                    len: map.len(),
                },
            ))?;
        keys.push(Some(&map[4..split]));
        values.push(Some(&map[split..]));
    }
    let in_map = |keys: bool| {
        move |e: Error| match e {
            Error::MalformedRow {
                row,
                field: None,
                problem,
            } => fail(
                row,
                RowProblem::NestedMap {
                    keys,
                    problem: Box::new(problem),
                },
            ),
            e => e,
        }
    };
    let (key_values, key_offsets) = read_arrays(key, &keys).map_err(in_map(true))?;
    let (value_values, value_offsets) = read_arrays(value, &values).map_err(in_map(false))?;
    if let Some(r) = (0..n)
        .find(|&r| key_offsets[r + 1] - key_offsets[r] != value_offsets[r + 1] - value_offsets[r])
    {
        return Err(fail(
            r,
            RowProblem::MapSizesDiffer {
                keys: (key_offsets[r + 1] - key_offsets[r]) as usize,
                values: (value_offsets[r + 1] - value_offsets[r]) as usize,
            },
        ));
    }
    let entries = StructArray::try_new(
        map_entry_fields(key, value),
        vec![key_values, value_values],
        None,
    )?;
    let DataType::List(entries_field) =
        LogicalType::Map(Box::new(key.clone()), Box::new(value.clone())).to_arrow()
    else {
        unreachable!("a MAP is carried as a list");
    };
    Ok(Arc::new(ListArray::try_new(
        entries_field,
        OffsetBuffer::new(key_offsets),
        Arc::new(entries),
        nulls,
    )?))
}

/// An 8-byte slice as an array (zeros if it is not 8 bytes).
#[inline]
fn to_word(bytes: &[u8]) -> [u8; 8] {
    bytes.try_into().unwrap_or_default()
}

/// A slot's `offset << 32 | size` halves.
#[inline]
fn split_slot(slot: u64) -> (u64, u64) {
    (slot >> 32, slot & 0xffff_ffff)
}

/// The value of `BigInteger.toByteArray()` bytes (1 to 16, big-endian two's complement).
fn big_integer_value(bytes: &[u8]) -> i128 {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    let mut word = [if negative { 0xff } else { 0 }; 16];
    word[16 - bytes.len()..].copy_from_slice(bytes);
    i128::from_be_bytes(word)
}

/// Epoch `millis` + `nanos` of the millisecond in ticks of `unit`, if exactly representable.
fn timestamp_ticks(millis: i64, nanos: u32, unit: TimeUnit) -> Option<i64> {
    let nanos = i128::from(nanos);
    let ticks = match unit {
        TimeUnit::Millisecond if nanos == 0 => i128::from(millis),
        TimeUnit::Microsecond if nanos % 1_000 == 0 => i128::from(millis) * 1_000 + nanos / 1_000,
        TimeUnit::Nanosecond => i128::from(millis) * 1_000_000 + nanos,
        _ => return None,
    };
    i64::try_from(ticks).ok()
}

/// The first value of a string column that is not UTF-8, as an error naming its row.
fn first_invalid_utf8(offsets: &OffsetBuffer<i32>, values: &Buffer) -> Option<Error> {
    offsets.windows(2).enumerate().find_map(|(row, w)| {
        let bytes = values.get(w[0] as usize..w[1] as usize)?;
        std::str::from_utf8(bytes)
            .err()
            .map(|e| Error::MalformedRow {
                row,
                field: None,
                problem: RowProblem::InvalidUtf8 {
                    valid_up_to: e.valid_up_to(),
                },
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binary_row::RowWriter;
    use arrow::array::{Int32Array, StructArray};

    fn row_type() -> LogicalType {
        "ROW<a INT, b STRING>".parse().unwrap()
    }

    /// `ROW<a INT, b STRING>` keys: (1, "abcdefgh"), NULL, (NULL, "x").
    fn row_keys() -> (Vec<LogicalType>, BinaryRows, ArrayRef) {
        let LogicalType::Row(fields) = row_type() else {
            unreachable!()
        };
        let rows: ArrayRef = Arc::new(
            StructArray::try_new(
                crate::types::row_arrow_fields(&fields),
                vec![
                    Arc::new(Int32Array::from(vec![Some(1), Some(7), None])),
                    Arc::new(StringArray::from(vec!["abcdefgh", "zz", "x"])),
                ],
                Some(NullBuffer::from(vec![true, false, true])),
            )
            .unwrap(),
        );
        let types = vec![row_type()];
        let written = RowWriter::new(types.clone())
            .write(std::slice::from_ref(&rows))
            .unwrap();
        (types, written, rows)
    }

    #[test]
    fn nested_rows_go_to_the_variable_part_and_read_back() {
        let (types, written, rows) = row_keys();
        let mut nested = vec![0u8; 32];
        nested[8] = 1;
        nested[16..24].copy_from_slice(&((24u64 << 32) | 8).to_le_bytes());
        nested[24..32].copy_from_slice(b"abcdefgh");
        let mut expected = vec![0u8; 16];
        expected[8..16].copy_from_slice(&((16u64 << 32) | 32).to_le_bytes());
        expected.extend_from_slice(&nested);
        assert_eq!(written.row(0), expected.as_slice());
        let mut null = vec![0u8; 16];
        null[1] = 1;
        assert_eq!(written.row(1), null.as_slice());
        // A nested row is never inline, even when it is 16 bytes.
        let third = written.row(2);
        assert_eq!(third.len(), 16 + 24);
        assert_eq!(third[16 + 1], 1, "nested field a is NULL");
        assert_eq!(&third[16 + 16..16 + 24], b"x\0\0\0\0\0\0\x81");
        let read = RowReader::new(types).read_rows(&written).unwrap();
        assert!(read.kinds().is_none());
        assert_eq!(read.batch().column(0).as_ref(), rows.as_ref());
    }

    #[test]
    fn null_wide_values_reserve_bytes_in_key_rows_but_not_in_nested_rows() {
        let decimal: ArrayRef = Arc::new(
            arrow::array::Decimal128Array::from(vec![None::<i128>])
                .with_precision_and_scale(38, 0)
                .unwrap(),
        );
        let flat = RowWriter::new(vec!["DECIMAL(38, 0)".parse().unwrap()])
            .write(std::slice::from_ref(&decimal))
            .unwrap();
        assert_eq!(flat.row(0).len(), 16 + 16);
        let t: LogicalType = "ROW<d DECIMAL(38, 0)>".parse().unwrap();
        let LogicalType::Row(fields) = &t else {
            unreachable!()
        };
        let rows: ArrayRef = Arc::new(
            StructArray::try_new(crate::types::row_arrow_fields(fields), vec![decimal], None)
                .unwrap(),
        );
        let nested = RowWriter::new(vec![t.clone()])
            .write(std::slice::from_ref(&rows))
            .unwrap();
        let mut expected = vec![0u8; 32];
        expected[8..16].copy_from_slice(&((16u64 << 32) | 16).to_le_bytes());
        expected[17] = 1;
        assert_eq!(nested.row(0), expected.as_slice());
        let read = RowReader::new(vec![t]).read_rows(&nested).unwrap();
        assert_eq!(read.batch().column(0).as_ref(), rows.as_ref());
    }

    #[test]
    fn malformed_nested_rows_are_typed_errors() {
        let (types, written, _) = row_keys();
        let row = written.row(0).to_vec();
        let problem = |bad: &[u8]| match RowReader::new(types.clone()).read(bad, &[0, bad.len()]) {
            Err(Error::MalformedRow {
                row: 0,
                field: Some(0),
                problem,
            }) => problem,
            other => panic!("expected a malformed nested row, got {other:?}"),
        };
        let with_slot = |slot: u64| {
            let mut bad = row.clone();
            bad[8..16].copy_from_slice(&slot.to_le_bytes());
            bad
        };
        assert!(matches!(
            problem(&with_slot((16 << 32) | 40)),
            RowProblem::OutsideRow { .. }
        ));
        assert!(matches!(
            problem(&with_slot(u64::MAX)),
            RowProblem::OutsideRow { .. }
        ));
        assert_eq!(
            problem(&with_slot((16 << 32) | 8)),
            RowProblem::NestedRow {
                field: None,
                problem: Box::new(RowProblem::ShorterThanFixedPart { len: 8, fixed: 24 })
            }
        );
        assert_eq!(
            problem(&with_slot((16 << 32) | 28)),
            RowProblem::NestedRow {
                field: None,
                problem: Box::new(RowProblem::UnalignedLength { len: 28 })
            }
        );
        let mut kind = row.clone();
        kind[16] = 2;
        assert_eq!(problem(&kind), RowProblem::NestedRowKind { byte: 2 });
        let mut string = row.clone();
        string[32..40].copy_from_slice(&((40u64 << 32) | 8).to_le_bytes());
        assert_eq!(
            problem(&string),
            RowProblem::NestedRow {
                field: Some(1),
                problem: Box::new(RowProblem::OutsideRow {
                    offset: 40,
                    len: 8,
                    row_len: 32
                })
            }
        );
    }

    #[test]
    fn big_integer_bytes_sign_extend() {
        assert_eq!(big_integer_value(&[0x7f]), 127);
        assert_eq!(big_integer_value(&[0x00, 0x80]), 128);
        assert_eq!(big_integer_value(&[0xff]), -1);
        assert_eq!(big_integer_value(&[0xff, 0x7f]), -129);
        assert_eq!(big_integer_value(&i128::MIN.to_be_bytes()), i128::MIN);
    }

    #[test]
    fn timestamps_convert_only_when_exact() {
        assert_eq!(timestamp_ticks(-1, 999_999, TimeUnit::Nanosecond), Some(-1));
        assert_eq!(
            timestamp_ticks(5, 2_000, TimeUnit::Microsecond),
            Some(5_002)
        );
        assert_eq!(timestamp_ticks(5, 2_001, TimeUnit::Microsecond), None);
        assert_eq!(timestamp_ticks(i64::MAX, 0, TimeUnit::Nanosecond), None);
        assert_eq!(
            timestamp_ticks(
                i64::MIN.div_euclid(1_000_000),
                224_192,
                TimeUnit::Nanosecond
            ),
            Some(i64::MIN)
        );
    }
}
