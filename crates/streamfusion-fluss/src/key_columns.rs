//! Bucket-key columns read straight from Arrow arrays, and the writer interface the three
//! key encodings implement.
//!
//! A [`KeyColumn`] is one bucket-key column, downcast once per batch, that knows its Fluss
//! type. [`KeyColumn::write`] hands row `row`'s value to a [`KeyWriter`] as Fluss's
//! `ValueWriter` hands a field to its `BinaryWriter`: no per-row value objects, one call per
//! field into the writer's reused buffer.
//!
//! # Arrow types and the Fluss types they carry
//!
//! As Fluss's own Arrow mapping (`fluss-rs` 1.0.0 `record/arrow.rs`, `from_arrow_type`,
//! and `row/column_vector.rs` for reading values):
//!
//! | Arrow                                   | Fluss                        | value written |
//! |-----------------------------------------|------------------------------|---------------|
//! | `Boolean`                               | `BOOLEAN`                    | bool |
//! | `Int8`, `Int16`, `Int32`, `Int64`       | `TINYINT` … `BIGINT`         | the integer |
//! | `Float32`, `Float64`                    | `FLOAT`, `DOUBLE`            | the float, bits as they are |
//! | `Date32`                                | `DATE`                       | days since the epoch |
//! | `Time32(s)`, `Time32(ms)`, `Time64(us)`, `Time64(ns)` | `TIME(0/3/6/9)` | milliseconds of the day (finer units truncated; seconds × 1000, wrapping) |
//! | `Timestamp(unit, None)`                 | `TIMESTAMP(p)`, p = 0/3/6/9 for s/ms/us/ns | milliseconds since the epoch (floor) and nanosecond of the millisecond (`0..=999_999`) |
//! | `Timestamp(unit, Some(_))`              | `TIMESTAMP_LTZ(p)`           | as `TIMESTAMP(p)` |
//! | `Decimal128(p, s)`, `s >= 0`            | `DECIMAL(p, s)`              | the unscaled value; must fit `p` digits |
//! | `Utf8`, `LargeUtf8`, `Utf8View`         | `STRING` (`CHAR`/`VARCHAR` encode the same) | UTF-8 bytes |
//! | `Binary`, `LargeBinary`, `BinaryView`, `FixedSizeBinary(n)` | `BYTES`, `BINARY(n)` (encode the same) | the bytes |
//!
//! Every other Arrow type (unsigned integers, `Date64`, `Decimal256`, intervals, durations,
//! nested types: Fluss's compacted encoder also takes `ARRAY` and `ROW`, not ported here) is
//! a [`FlussError::UnsupportedKeyType`].
//!
//! Ported from Apache Fluss's Rust client `fluss-rs` 1.0.0 (Apache License 2.0):
//! `src/row/binary/binary_writer.rs` (`InnerValueWriter::write_value`),
//! `src/row/column_vector.rs` (`TimeColumn::get_millis`,
//! `TimestampColumn::get_millis_nanos`) and `src/row/decimal.rs`.

use arrow::array::RecordBatch;
use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, FixedSizeBinaryArray, GenericBinaryArray,
    GenericStringArray,
};
use arrow::array::{BinaryViewArray, StringViewArray};
use arrow::buffer::NullBuffer;
use arrow::datatypes::Field;
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Time32MillisecondType, Time32SecondType, Time64MicrosecondType,
    Time64NanosecondType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};

use crate::error::{FlussError, Result};

/// The largest DECIMAL precision Fluss keeps as an unscaled `long` (`Decimal.isCompact`).
pub const MAX_COMPACT_DECIMAL_PRECISION: u8 = 18;
/// The largest TIMESTAMP precision Fluss keeps as plain milliseconds
/// (`TimestampNtz.isCompact`).
pub const MAX_COMPACT_TIMESTAMP_PRECISION: u8 = 3;

/// A Fluss binary writer for key fields, fed in key order.
///
/// Mirrors Fluss's `BinaryWriter` for the types a bucket key can have: `write_int` serves
/// `INT` and `DATE`, `write_bytes` every string and binary type.
pub(crate) trait KeyWriter {
    /// Whether the encoding can represent a NULL field (only Paimon's can).
    const ENCODES_NULL: bool;
    /// The encoder's name in errors.
    const NAME: &'static str;

    /// Whether the encoding takes `ty` as a bucket-key type.
    fn supports(ty: FlussType) -> bool;
    /// A writer for keys of `arity` fields.
    fn new(arity: usize) -> Self;
    /// Starts the next key.
    fn reset(&mut self);
    /// A NULL field (called only when [`Self::ENCODES_NULL`]).
    fn set_null(&mut self);
    fn write_boolean(&mut self, value: bool);
    fn write_byte(&mut self, value: i8);
    fn write_short(&mut self, value: i16);
    fn write_int(&mut self, value: i32);
    fn write_long(&mut self, value: i64);
    fn write_float(&mut self, value: f32);
    fn write_double(&mut self, value: f64);
    fn write_bytes(&mut self, value: &[u8]);
    /// `unscaled` fits `precision` digits (checked by the caller).
    fn write_decimal(&mut self, unscaled: i128, precision: u8);
    /// Milliseconds of the day.
    fn write_time(&mut self, millis: i32);
    /// `nano_of_milli` is in `0..=999_999`.
    fn write_timestamp(&mut self, millis: i64, nano_of_milli: i32, precision: u8);
    /// The key written since the last [`Self::reset`].
    fn key(&self) -> &[u8];
}

/// The Fluss type family of a key column: what decides whether an encoder takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlussType {
    Boolean,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    Date,
    Time,
    Timestamp,
    TimestampLtz,
    Decimal,
    String,
    Binary,
}

/// Timestamp values in their Arrow unit.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TimestampValues<'a> {
    Seconds(&'a [i64]),
    Millis(&'a [i64]),
    Micros(&'a [i64]),
    Nanos(&'a [i64]),
}

/// One bucket-key column of a batch, downcast once.
#[derive(Debug)]
pub(crate) enum KeyColumn<'a> {
    Boolean(&'a BooleanArray),
    TinyInt(&'a [i8]),
    SmallInt(&'a [i16]),
    Int(&'a [i32]),
    BigInt(&'a [i64]),
    Float(&'a [f32]),
    Double(&'a [f64]),
    Date(&'a [i32]),
    TimeSeconds(&'a [i32]),
    TimeMillis(&'a [i32]),
    TimeMicros(&'a [i64]),
    TimeNanos(&'a [i64]),
    Timestamp {
        values: TimestampValues<'a>,
        ltz: bool,
    },
    Decimal {
        values: &'a [i128],
        precision: u8,
        /// `10^precision - 1`: the largest magnitude the type holds.
        max: i128,
    },
    Utf8(&'a GenericStringArray<i32>),
    LargeUtf8(&'a GenericStringArray<i64>),
    Utf8View(&'a StringViewArray),
    Binary(&'a GenericBinaryArray<i32>),
    LargeBinary(&'a GenericBinaryArray<i64>),
    BinaryView(&'a BinaryViewArray),
    FixedSizeBinary(&'a FixedSizeBinaryArray),
}

impl<'a> KeyColumn<'a> {
    /// Views `array` as a key column, or `None` for a type this port does not encode.
    pub(crate) fn try_new(array: &'a ArrayRef) -> Option<Self> {
        Some(match array.data_type() {
            DataType::Boolean => Self::Boolean(array.as_boolean()),
            DataType::Int8 => Self::TinyInt(array.as_primitive::<Int8Type>().values()),
            DataType::Int16 => Self::SmallInt(array.as_primitive::<Int16Type>().values()),
            DataType::Int32 => Self::Int(array.as_primitive::<Int32Type>().values()),
            DataType::Int64 => Self::BigInt(array.as_primitive::<Int64Type>().values()),
            DataType::Float32 => Self::Float(array.as_primitive::<Float32Type>().values()),
            DataType::Float64 => Self::Double(array.as_primitive::<Float64Type>().values()),
            DataType::Date32 => Self::Date(array.as_primitive::<Date32Type>().values()),
            DataType::Time32(TimeUnit::Second) => {
                Self::TimeSeconds(array.as_primitive::<Time32SecondType>().values())
            }
            DataType::Time32(TimeUnit::Millisecond) => {
                Self::TimeMillis(array.as_primitive::<Time32MillisecondType>().values())
            }
            DataType::Time64(TimeUnit::Microsecond) => {
                Self::TimeMicros(array.as_primitive::<Time64MicrosecondType>().values())
            }
            DataType::Time64(TimeUnit::Nanosecond) => {
                Self::TimeNanos(array.as_primitive::<Time64NanosecondType>().values())
            }
            DataType::Timestamp(unit, tz) => Self::Timestamp {
                values: match unit {
                    TimeUnit::Second => TimestampValues::Seconds(
                        array.as_primitive::<TimestampSecondType>().values(),
                    ),
                    TimeUnit::Millisecond => TimestampValues::Millis(
                        array.as_primitive::<TimestampMillisecondType>().values(),
                    ),
                    TimeUnit::Microsecond => TimestampValues::Micros(
                        array.as_primitive::<TimestampMicrosecondType>().values(),
                    ),
                    TimeUnit::Nanosecond => TimestampValues::Nanos(
                        array.as_primitive::<TimestampNanosecondType>().values(),
                    ),
                },
                ltz: tz.is_some(),
            },
            &DataType::Decimal128(precision, scale) if scale >= 0 => Self::Decimal {
                values: array.as_primitive::<Decimal128Type>().values(),
                precision,
                max: 10_i128.checked_pow(u32::from(precision))? - 1,
            },
            DataType::Utf8 => Self::Utf8(array.as_string::<i32>()),
            DataType::LargeUtf8 => Self::LargeUtf8(array.as_string::<i64>()),
            DataType::Utf8View => Self::Utf8View(array.as_string_view()),
            DataType::Binary => Self::Binary(array.as_binary::<i32>()),
            DataType::LargeBinary => Self::LargeBinary(array.as_binary::<i64>()),
            DataType::BinaryView => Self::BinaryView(array.as_binary_view()),
            DataType::FixedSizeBinary(_) => Self::FixedSizeBinary(array.as_fixed_size_binary()),
            _ => return None,
        })
    }

    /// The Fluss type family.
    pub(crate) fn fluss_type(&self) -> FlussType {
        match self {
            Self::Boolean(_) => FlussType::Boolean,
            Self::TinyInt(_) => FlussType::TinyInt,
            Self::SmallInt(_) => FlussType::SmallInt,
            Self::Int(_) => FlussType::Int,
            Self::BigInt(_) => FlussType::BigInt,
            Self::Float(_) => FlussType::Float,
            Self::Double(_) => FlussType::Double,
            Self::Date(_) => FlussType::Date,
            Self::TimeSeconds(_)
            | Self::TimeMillis(_)
            | Self::TimeMicros(_)
            | Self::TimeNanos(_) => FlussType::Time,
            Self::Timestamp { ltz: false, .. } => FlussType::Timestamp,
            Self::Timestamp { ltz: true, .. } => FlussType::TimestampLtz,
            Self::Decimal { .. } => FlussType::Decimal,
            Self::Utf8(_) | Self::LargeUtf8(_) | Self::Utf8View(_) => FlussType::String,
            Self::Binary(_)
            | Self::LargeBinary(_)
            | Self::BinaryView(_)
            | Self::FixedSizeBinary(_) => FlussType::Binary,
        }
    }

    /// Writes row `row`'s (non-NULL) value to `writer`.
    ///
    /// Fails only for a decimal wider than its precision, which Fluss cannot represent.
    #[inline]
    pub(crate) fn write<W: KeyWriter>(&self, row: usize, writer: &mut W) -> Result<(), String> {
        match *self {
            Self::Boolean(array) => writer.write_boolean(array.value(row)),
            Self::TinyInt(values) => writer.write_byte(values[row]),
            Self::SmallInt(values) => writer.write_short(values[row]),
            Self::Int(values) | Self::Date(values) => writer.write_int(values[row]),
            Self::BigInt(values) => writer.write_long(values[row]),
            Self::Float(values) => writer.write_float(values[row]),
            Self::Double(values) => writer.write_double(values[row]),
            // Fluss keeps TIME as milliseconds of the day in an int.
            Self::TimeSeconds(values) => writer.write_time(values[row].wrapping_mul(1_000)),
            Self::TimeMillis(values) => writer.write_time(values[row]),
            Self::TimeMicros(values) => writer.write_time((values[row] / 1_000) as i32),
            Self::TimeNanos(values) => writer.write_time((values[row] / 1_000_000) as i32),
            Self::Timestamp { values, .. } => {
                let (millis, nanos, precision) = timestamp_parts(values, row);
                writer.write_timestamp(millis, nanos, precision);
            }
            Self::Decimal {
                values,
                precision,
                max,
            } => {
                let unscaled = values[row];
                if !(-max..=max).contains(&unscaled) {
                    return Err(format!(
                        "(unscaled {unscaled}) does not fit DECIMAL precision {precision}"
                    ));
                }
                writer.write_decimal(unscaled, precision);
            }
            Self::Utf8(array) => writer.write_bytes(array.value(row).as_bytes()),
            Self::LargeUtf8(array) => writer.write_bytes(array.value(row).as_bytes()),
            Self::Utf8View(array) => writer.write_bytes(array.value(row).as_bytes()),
            Self::Binary(array) => writer.write_bytes(array.value(row)),
            Self::LargeBinary(array) => writer.write_bytes(array.value(row)),
            Self::BinaryView(array) => writer.write_bytes(array.value(row)),
            Self::FixedSizeBinary(array) => writer.write_bytes(array.value(row)),
        }
        Ok(())
    }
}

/// Milliseconds since the epoch (floor), nanosecond of the millisecond and Fluss precision
/// of a timestamp in its Arrow unit, as Fluss's `TimestampColumn::get_millis_nanos`.
#[inline]
fn timestamp_parts(values: TimestampValues<'_>, row: usize) -> (i64, i32, u8) {
    match values {
        TimestampValues::Seconds(v) => (v[row].wrapping_mul(1_000), 0, 0),
        TimestampValues::Millis(v) => (v[row], 0, 3),
        TimestampValues::Micros(v) => {
            let v = v[row];
            (v.div_euclid(1_000), (v.rem_euclid(1_000) * 1_000) as i32, 6)
        }
        TimestampValues::Nanos(v) => {
            let v = v[row];
            (v.div_euclid(1_000_000), v.rem_euclid(1_000_000) as i32, 9)
        }
    }
}

/// The minimal big-endian two's complement bytes of `value` (at least one byte), as Java's
/// `BigInteger.toByteArray`: how Fluss writes a non-compact decimal's unscaled value.
#[inline]
pub(crate) fn unscaled_be_bytes(value: i128, out: &mut [u8; 16]) -> &[u8] {
    *out = value.to_be_bytes();
    let mut start = 0;
    // Drop a leading byte while it only repeats the sign of the byte after it.
    while start < 15 {
        let (byte, next) = (out[start], out[start + 1]);
        let redundant = (byte == 0x00 && next & 0x80 == 0) || (byte == 0xFF && next & 0x80 != 0);
        if !redundant {
            break;
        }
        start += 1;
    }
    &out[start..]
}

/// One bucket-key column with its field and validity.
#[derive(Debug)]
pub(crate) struct KeyField<'a> {
    pub(crate) column: KeyColumn<'a>,
    pub(crate) field: &'a Field,
    /// Validity, kept only when the column has a NULL to find.
    pub(crate) nulls: Option<&'a NullBuffer>,
}

/// The bucket-key columns of `batch` at `indices`, each checked against encoder `W`.
pub(crate) fn key_fields<'a, W: KeyWriter>(
    batch: &'a RecordBatch,
    indices: &[usize],
) -> Result<Vec<KeyField<'a>>> {
    if indices.is_empty() {
        return Err(FlussError::NoBucketKey);
    }
    let fields = batch.schema_ref().fields();
    indices
        .iter()
        .map(|&index| {
            let (Some(array), Some(field)) = (batch.columns().get(index), fields.get(index)) else {
                return Err(FlussError::KeyColumnOutOfRange {
                    index,
                    num_columns: batch.num_columns(),
                });
            };
            match KeyColumn::try_new(array) {
                Some(column) if W::supports(column.fluss_type()) => Ok(KeyField {
                    column,
                    field: field.as_ref(),
                    nulls: array.nulls().filter(|nulls| nulls.null_count() > 0),
                }),
                _ => Err(FlussError::UnsupportedKeyType {
                    column: field.name().clone(),
                    data_type: array.data_type().clone(),
                    encoder: W::NAME,
                }),
            }
        })
        .collect()
}

/// Encodes the key of every row of `batch` with `W`, reusing one writer, and hands each to
/// `each(row, key)` in row order.
pub(crate) fn encode_rows<W: KeyWriter>(
    batch: &RecordBatch,
    indices: &[usize],
    mut each: impl FnMut(usize, &[u8]) -> Result<()>,
) -> Result<()> {
    let fields = key_fields::<W>(batch, indices)?;
    let mut writer = W::new(fields.len());
    for row in 0..batch.num_rows() {
        writer.reset();
        for (position, key) in fields.iter().enumerate() {
            if key.nulls.is_some_and(|nulls| nulls.is_null(row)) {
                if W::ENCODES_NULL && key.field.is_nullable() {
                    writer.set_null();
                    continue;
                }
                return Err(FlussError::NullKey {
                    row,
                    position,
                    column: key.field.name().clone(),
                });
            }
            key.column
                .write(row, &mut writer)
                .map_err(|problem| FlussError::ValueOutOfRange {
                    row,
                    column: key.field.name().clone(),
                    problem,
                })?;
        }
        each(row, writer.key())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unscaled_bytes_are_java_big_integer_bytes() {
        // BigInteger.valueOf(v).toByteArray() for each v.
        let cases: [(i128, &[u8]); 9] = [
            (0, &[0x00]),
            (1, &[0x01]),
            (-1, &[0xFF]),
            (127, &[0x7F]),
            (128, &[0x00, 0x80]),
            (-128, &[0x80]),
            (-129, &[0xFF, 0x7F]),
            (255, &[0x00, 0xFF]),
            (10, &[0x0A]),
        ];
        let mut buf = [0; 16];
        for (value, bytes) in cases {
            assert_eq!(unscaled_be_bytes(value, &mut buf), bytes, "{value}");
        }
        let max38 = 10_i128.pow(38) - 1;
        assert_eq!(unscaled_be_bytes(max38, &mut buf).len(), 16);
        assert_eq!(unscaled_be_bytes(i128::MIN, &mut buf).len(), 16);
        assert_eq!(unscaled_be_bytes(i128::MIN, &mut buf)[0], 0x80);
    }

    #[test]
    fn pre_epoch_timestamps_split_with_floor_division() {
        let micros = [-1_i64, 1_500, -1_500];
        let parts: Vec<_> = (0..3)
            .map(|row| timestamp_parts(TimestampValues::Micros(&micros), row))
            .collect();
        assert_eq!(
            parts,
            vec![(-1, 999_000, 6), (1, 500_000, 6), (-2, 500_000, 6)]
        );
        let nanos = [-1_i64];
        assert_eq!(
            timestamp_parts(TimestampValues::Nanos(&nanos), 0),
            (-1, 999_999, 9)
        );
        let seconds = [-2_i64];
        assert_eq!(
            timestamp_parts(TimestampValues::Seconds(&seconds), 0),
            (-2_000, 0, 0)
        );
    }
}
