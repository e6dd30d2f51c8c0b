//! ORC post-decode normalization: an Arrow batch as an ORC decoder leaves it, turned into the
//! values a Flink SQL job sees when it reads the same file through Flink's ORC format.
//!
//! ORC file reading stays JVM-backed or belongs to a decoder of the caller's choice (the
//! `orc-rust` crate needs Arrow 59; this workspace is on Arrow 58). What a decoder hands over
//! is the file's *stored* bytes and instants: CHAR values padded by the writer, VARCHAR values
//! as long as the file holds them, timestamps as the decoder's epoch arithmetic computed them.
//! Flink never sees those: the ORC Java reader trims, truncates and re-reads timestamps through
//! `java.sql.Timestamp` first. This module applies the same steps to Arrow columns, per column
//! by its Flink [`LogicalType`], and leaves everything else untouched.
//!
//! Every function scans before it builds: a column whose values already are Flink's is
//! returned sharing the input's buffers (no byte copied), so STRING columns, trimmed CHAR
//! columns and in-range timestamps in the carrier's unit cost one pass and no allocation of
//! data. NULL slots are never read or converted and stay NULL.
//!
//! Sources, as read for this module (ORC `main`, Hive `storage-api`, Flink `flink-formats`):
//! ORC `java/core/src/java/org/apache/orc/impl/TreeReaderFactory.java`, Hive
//! `storage-api/.../vector/expressions/StringExpr.java`, ORC
//! `java/core/src/java/org/apache/orc/impl/writer/CharTreeWriter.java`, Flink
//! `flink-formats/flink-orc/.../OrcSplitReaderUtil.java`, `.../vector/OrcBytesColumnVector.java`,
//! `.../vector/OrcTimestampColumnVector.java` (and the `flink-orc-nohive` twins),
//! `.../shim/OrcShimV200.java`, and `flink-table-common`'s `TimestampData`.
//!
//! # CHAR(n)
//!
//! Flink asks ORC for the column as `char(n)` (`OrcSplitReaderUtil.logicalTypeToOrcType`:
//! `CHAR` → `TypeDescription.createChar().withMaxLength(n)`). ORC's writer stores CHAR values
//! padded with spaces to `n` characters (`CharTreeWriter.writePadded`), and its reader undoes
//! it: `TreeReaderFactory.CharTreeReader.nextVector` sets every non-NULL value's length to
//! `StringExpr.rightTrimAndTruncate(bytes, start, length, n)` (the reader schema's `n`, see
//! `createTreeReader`; a file whose type differs goes through
//! `ConvertTreeReaderFactory.assignStringGroupVectorEntry`, which applies the same call).
//! Flink's `OrcBytesColumnVector.getBytes` then hands those bytes to the job unchanged. So the
//! rule, on a value's UTF-8 bytes, is:
//!
//! 1. **truncate** (`StringExpr.truncate`): if the byte length is at most `n`, keep every
//!    byte; otherwise walk the bytes counting characters as bytes that are not UTF-8
//!    continuation bytes (`(b & 0xC0) != 0x80`), and cut before the `n + 1`-th character;
//! 2. **right-trim**: drop trailing `0x20` bytes (spaces only, not tabs or other blanks).
//!
//! Nothing is **padded**: a value shorter than `n` reaches the job as it is (`'ab'` in a
//! `CHAR(5)` column is `'ab'`, not `'ab   '`), an all-space value becomes the empty string.
//! Characters are Unicode code points (not Java's UTF-16 units): `'😀'` counts once.
//!
//! ```text
//!  stored (CHAR(4), writer-padded)    read by Flink
//!  "ab␠␠"                             "ab"
//!  "a␠b␠"                             "a␠b"
//!  "abcdef" (file CHAR(6))            "abcd"       truncated to 4 characters
//!  "ab␠␠xy" (file CHAR(6))            "ab"         truncated to "ab␠␠", then trimmed
//!  "␠␠␠␠"                             ""
//! ```
//!
//! # VARCHAR(n) and STRING
//!
//! `VARCHAR(n)` with `n < 2147483647` is read as ORC `varchar(n)`:
//! `TreeReaderFactory.VarcharTreeReader.nextVector` applies `StringExpr.truncate` only
//! (trailing spaces stay). `STRING` (`VARCHAR(2147483647)`) is read as ORC `string`
//! (`StringTreeReader`): no change at all, so the column is passed through without even being
//! scanned.
//!
//! CHAR and VARCHAR columns must arrive as `Utf8`, the shape ORC decoders produce (`orc-rust`
//! decodes `string`, `varchar` and `char` to `Utf8`) and the engine's carrier.
//!
//! # TIMESTAMP(p)
//!
//! Flink asks ORC for `timestamp` and reads each value in `OrcTimestampColumnVector.getTimestamp`
//! as `new java.sql.Timestamp(time)`, `setNanos(nanos)`, `TimestampData.fromTimestamp`, which is
//! `fromLocalDateTime(timestamp.toLocalDateTime())`. `toLocalDateTime` takes the date's
//! *labels* (year, month, day, time of day) from `java.util.Date`, whose calendar is the hybrid
//! Julian/Gregorian one (Julian before 1582-10-15), and `fromLocalDateTime` turns the labels
//! back into proleptic Gregorian epoch milliseconds. The precision `p` is ignored: all nine
//! digits arrive.
//!
//! What the labels are depends on the calendar the file was written in (the footer's
//! `calendar`; files without it are hybrid, `orc.proleptic.gregorian.default = false`):
//!
//! - **Julian/Gregorian (hybrid)** files, as written by Hive before 3.1, Spark before 3.0 and
//!   Flink's own ORC writer: epoch values before 1582-10-15 were computed from Julian labels.
//!   The reader leaves them (`TimestampTreeReader.nextVector` converts calendars only when the
//!   file's and the reader's differ, and Flink sets no `orc.proleptic.gregorian`), so Flink
//!   sees the Julian labels re-encoded in the proleptic calendar: a decoded
//!   `1582-10-14T00:00` (proleptic) is Julian `1582-10-04`, and Flink's value is the proleptic
//!   `1582-10-04T00:00`, ten days earlier.
//! - **Proleptic Gregorian** files (Hive 3.1+, the ORC C++ library, Rust writers): the reader
//!   converts each value to the hybrid calendar keeping its labels (`DateUtils.convertTimeToHybrid`),
//!   so Flink sees the decoded labels: the value is unchanged from year 1 on.
//!
//! Either way, `java.util.Date.getYear()` is the year *of the era*: astronomical year 0 (1 BC)
//! reaches Flink as year 1, year -1 (2 BC) as year 2 (checked on JDK 17: Julian 1 BC-12-31 is
//! read as `0001-12-31`). A label `February 29` of a year that is not a proleptic Gregorian leap
//! year (Julian 1500-02-29, 1 BC-02-29) makes `LocalDateTime.of` throw, so Flink fails; here it
//! is an error naming the row. In a proleptic file, a label inside the cutover gap
//! `1582-10-05..=1582-10-14` does not exist in the hybrid calendar ORC converts it to, and is
//! refused as well.
//!
//! The decoder's value must be the writer's wall clock read as UTC (Arrow's convention for
//! timestamps without a time zone, and what `orc-rust` produces: it converts from the stripe's
//! writer time zone). The result is the engine's carrier for `TIMESTAMP(p)`
//! ([`LogicalType::to_arrow`]: milliseconds for p ≤ 3, microseconds for p ≤ 6, nanoseconds
//! for p ≤ 9), floored into its unit like Flink's millisecond part (a TIMESTAMP(3) keeps
//! exactly what Flink's compact `BinaryRowData` slot keeps; for p in 4..=6, digits below the
//! microsecond, which Flink's `TimestampData` would carry past the declared precision, are
//! floored away). Every value must lie in Flink's documented range 0000-01-01 00:00:00 ..=
//! 9999-12-31 23:59:59.999999999 (decision 0023), and for p ≥ 7 also in the 64-bit nanosecond
//! carrier, 1677-09-21 00:12:43.145224192 ..= 2262-04-11 23:47:16.854775807; anything else is
//! an error naming the row, never a wrapped value.
//!
//! # TIMESTAMP_LTZ(p)
//!
//! Flink's ORC format has no TIMESTAMP_LTZ mapping (`logicalTypeToOrcType` throws "Unsupported
//! type"), so there is no Flink reading to follow. An ORC `timestamp with local time zone`
//! (`TIMESTAMP_INSTANT`, stored in UTC) is an instant, and an instant does not depend on a
//! calendar: the value is kept as decoded (as `TimestampData.fromInstant` would take it) and
//! only range-checked and floored into the carrier (`Timestamp(unit, "UTC")`).
//!
//! # Accepted timestamp shapes
//!
//! | Arrow input                                  | meaning                                             |
//! |----------------------------------------------|-----------------------------------------------------|
//! | `Timestamp(unit, None)`                      | TIMESTAMP: wall clock as UTC, any unit (`orc-rust`'s default is nanoseconds, 1677–2262 only; its microsecond option covers every year) |
//! | `Timestamp(unit, Some(tz))`                  | TIMESTAMP_LTZ: an instant (`orc-rust` decodes `TIMESTAMP_INSTANT` with `"UTC"`) |
//! | `Decimal128(_, 9)`                           | nanoseconds since the epoch, full range (`orc-rust`'s `Decimal128(38, 9)` option) |
//! | `Struct<seconds: Int64, nanos: Int32 or Int64>` | ORC's own pair: seconds since the epoch (the DATA stream plus the 2015 base) and nanoseconds of the second, `0..=999999999`; NULL if the struct or either child is |
//!
//! A time zone on a TIMESTAMP column, or none on a TIMESTAMP_LTZ column, is refused: one is a
//! wall clock, the other an instant. The decimal and struct shapes carry no zone and serve both.
//!
//! # Other types
//!
//! `ROW`, `ARRAY` and `MAP` (in the engine's shapes, see [`LogicalType::to_arrow`]) are
//! normalized inside, field by field and element by element, as ORC's readers apply the same
//! tree readers to nested columns. Every other type must already have its carrier's Arrow type
//! and is passed through. Not modelled: ORC DATE columns (Flink reads their day numbers
//! without a `java.sql.Date`, so calendars matter differently) and writer time zones with
//! daylight saving gaps (a decoder's wall clock is taken as given).

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, GenericListArray, RecordBatch, StringArray, StructArray,
};
use arrow::buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{DataType, Field, Int32Type, Int64Type, Schema, TimeUnit};
use streamfusion_core::types::{
    LogicalType, MAP_ENTRIES_FIELD, array_item_field, map_entry_fields, row_arrow_fields,
};

use crate::error::{BridgeError, Result};
use crate::timestamps::{build, convert_timestamp_unit, timestamp_values};

/// The calendar an ORC file's TIMESTAMP values were written in: the footer's `calendar`
/// field, hybrid when the file has none (ORC's `orc.proleptic.gregorian.default`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OrcCalendar {
    /// Julian before 1582-10-15, Gregorian from then on (`JULIAN_GREGORIAN`): Hive before
    /// 3.1, Spark before 3.0 and Flink's ORC writer.
    #[default]
    JulianGregorian,
    /// Gregorian for every year (`PROLEPTIC_GREGORIAN`): Hive 3.1+, the C++ library.
    ProlepticGregorian,
}

/// Normalizes every column of `batch` by its Flink type (`types[i]` for column `i`), keeping
/// the fields' names, nullability and metadata. Errors name the column and the row.
pub fn normalize_batch(
    batch: &RecordBatch,
    types: &[LogicalType],
    calendar: OrcCalendar,
) -> Result<RecordBatch> {
    if types.len() != batch.num_columns() {
        return Err(BridgeError::SchemaMismatch(format!(
            "{} Flink types for a batch of {} columns",
            types.len(),
            batch.num_columns()
        )));
    }
    let schema = batch.schema();
    let mut fields = Vec::with_capacity(types.len());
    let mut columns = Vec::with_capacity(types.len());
    for (i, ((column, field), ty)) in batch
        .columns()
        .iter()
        .zip(schema.fields())
        .zip(types)
        .enumerate()
    {
        let out = normalize_column(column, ty, calendar)
            .map_err(|e| in_context(e, &format!("column {i} (`{}`)", field.name())))?;
        fields.push(
            field
                .as_ref()
                .clone()
                .with_data_type(out.data_type().clone()),
        );
        columns.push(out);
    }
    let schema = Schema::new_with_metadata(fields, schema.metadata().clone());
    Ok(RecordBatch::try_new(Arc::new(schema), columns)?)
}

/// Normalizes one column by its Flink type (see the module docs for each type's rule).
/// Returns `array` itself (a shared handle) when no value changes.
pub fn normalize_column(
    array: &ArrayRef,
    ty: &LogicalType,
    calendar: OrcCalendar,
) -> Result<ArrayRef> {
    match ty {
        LogicalType::Char(n) => {
            let values = utf8(array.as_ref(), ty)?;
            Ok(shared_or(array, normalize_char(values, *n)))
        }
        LogicalType::VarChar(n) if *n >= i32::MAX as u32 => {
            utf8(array.as_ref(), ty)?;
            Ok(Arc::clone(array))
        }
        LogicalType::VarChar(n) => {
            let values = utf8(array.as_ref(), ty)?;
            Ok(shared_or(array, normalize_varchar(values, *n)))
        }
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => {
            normalize_timestamp(array.as_ref(), ty, calendar)
        }
        LogicalType::Row(fields) => {
            let Some(input) = array.as_struct_opt() else {
                return Err(mismatch(ty, array.data_type()));
            };
            if input.num_columns() != fields.len() {
                return Err(BridgeError::SchemaMismatch(format!(
                    "{ty} has {} fields, the struct column {}",
                    fields.len(),
                    input.num_columns()
                )));
            }
            let children = input
                .columns()
                .iter()
                .zip(fields)
                .map(|(child, field)| {
                    normalize_column(child, &field.ty, calendar)
                        .map_err(|e| in_context(e, &format!("field `{}`", field.name)))
                })
                .collect::<Result<Vec<_>>>()?;
            rebuild_if_changed(array, ty, input.columns(), children, |children| {
                Ok(Arc::new(StructArray::try_new(
                    row_arrow_fields(fields),
                    children,
                    input.nulls().cloned(),
                )?))
            })
        }
        LogicalType::Array(element) => {
            let Some(list) = array.as_list_opt::<i32>() else {
                return Err(mismatch(ty, array.data_type()));
            };
            let items = normalize_column(list.values(), element, calendar)
                .map_err(|e| in_context(e, "element"))?;
            rebuild_if_changed(
                array,
                ty,
                &[Arc::clone(list.values())],
                vec![items],
                |mut v| {
                    Ok(Arc::new(GenericListArray::<i32>::try_new(
                        array_item_field(element),
                        list.offsets().clone(),
                        v.remove(0),
                        list.nulls().cloned(),
                    )?))
                },
            )
        }
        LogicalType::Map(key, value) => {
            let entries = array
                .as_list_opt::<i32>()
                .and_then(|list| Some((list, list.values().as_struct_opt()?)))
                .filter(|(_, entries)| entries.num_columns() == 2);
            let Some((list, entries)) = entries else {
                return Err(mismatch(ty, array.data_type()));
            };
            let keys = normalize_column(entries.column(0), key, calendar)
                .map_err(|e| in_context(e, "map key"))?;
            let values = normalize_column(entries.column(1), value, calendar)
                .map_err(|e| in_context(e, "map value"))?;
            rebuild_if_changed(
                array,
                ty,
                entries.columns(),
                vec![keys, values],
                |children| {
                    let entries = StructArray::try_new(
                        map_entry_fields(key, value),
                        children,
                        entries.nulls().cloned(),
                    )?;
                    Ok(Arc::new(GenericListArray::<i32>::try_new(
                        Arc::new(Field::new(
                            MAP_ENTRIES_FIELD,
                            entries.data_type().clone(),
                            false,
                        )),
                        list.offsets().clone(),
                        Arc::new(entries),
                        list.nulls().cloned(),
                    )?))
                },
            )
        }
        _ => {
            if array.data_type() == &ty.to_arrow() {
                Ok(Arc::clone(array))
            } else {
                Err(mismatch(ty, array.data_type()))
            }
        }
    }
}

/// CHAR(`length`) values as Flink's ORC reader hands them to the job: each non-NULL value
/// truncated to `length` characters, then stripped of trailing spaces (`0x20`), never padded
/// (`StringExpr.rightTrimAndTruncate`, see the module docs). Shares `values`' buffers when
/// every value already conforms.
pub fn normalize_char(values: &StringArray, length: u32) -> StringArray {
    rewrite_prefixes(values, |bytes| char_len(bytes, length as usize))
}

/// VARCHAR(`length`) values as Flink's ORC reader hands them to the job: each non-NULL value
/// truncated to `length` characters, trailing spaces kept (`StringExpr.truncate`). Shares
/// `values`' buffers when no value is longer.
pub fn normalize_varchar(values: &StringArray, length: u32) -> StringArray {
    rewrite_prefixes(values, |bytes| truncated_len(bytes, length as usize))
}

/// A TIMESTAMP(p) or TIMESTAMP_LTZ(p) column in the engine's carrier for `ty`, from any
/// accepted shape (see the module docs). Returns a column sharing the input's value buffer
/// when the input is already in the carrier's unit and every value is Flink's.
pub fn normalize_timestamp(
    array: &dyn Array,
    ty: &LogicalType,
    calendar: OrcCalendar,
) -> Result<ArrayRef> {
    let target = Target::new(ty, calendar)?;
    match array.data_type() {
        DataType::Timestamp(unit, timezone) => {
            if timezone.is_some() != target.timezone.is_some() {
                return Err(BridgeError::SchemaMismatch(format!(
                    "{ty} needs {}, found {}",
                    if target.timezone.is_some() {
                        "an instant (an Arrow timestamp with a time zone)"
                    } else {
                        "a wall clock (an Arrow timestamp without a time zone)"
                    },
                    array.data_type()
                )));
            }
            target.convert_timestamps(array, *unit)
        }
        DataType::Decimal128(_, 9) => {
            let nanos = array.as_primitive::<arrow::datatypes::Decimal128Type>();
            let values = nanos.values();
            target.convert(array.len(), nanos.nulls(), |row| {
                let v = values[row];
                let seconds = i64::try_from(v.div_euclid(NANOS_PER_SECOND as i128)).ok();
                Ok(seconds.map(|s| (s, v.rem_euclid(NANOS_PER_SECOND as i128) as u32)))
            })
        }
        DataType::Struct(_) => {
            let pair = array.as_struct();
            let (Some(seconds), Some(nanos)) =
                (pair.column_by_name("seconds"), pair.column_by_name("nanos"))
            else {
                return Err(mismatch(ty, array.data_type()));
            };
            if pair.num_columns() != 2 || seconds.data_type() != &DataType::Int64 {
                return Err(mismatch(ty, array.data_type()));
            }
            let nanos_of_second: ScalarBuffer<i64> = match nanos.data_type() {
                DataType::Int64 => nanos.as_primitive::<Int64Type>().values().clone(),
                DataType::Int32 => nanos
                    .as_primitive::<Int32Type>()
                    .values()
                    .iter()
                    .map(|&n| i64::from(n))
                    .collect(),
                _ => return Err(mismatch(ty, array.data_type())),
            };
            let children = NullBuffer::union(seconds.nulls(), nanos.nulls());
            let nulls = NullBuffer::union(pair.nulls(), children.as_ref());
            let secs = seconds.as_primitive::<Int64Type>().values();
            target.convert(array.len(), nulls.as_ref(), |row| {
                let n = nanos_of_second[row];
                if !(0..NANOS_PER_SECOND).contains(&n) {
                    return Err(BridgeError::InvalidValue(format!(
                        "{ty}: nanos {n} at row {row} is outside 0..=999999999"
                    )));
                }
                Ok(Some((secs[row], n as u32)))
            })
        }
        other => Err(mismatch(ty, other)),
    }
}

// ---------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------

/// `StringExpr.truncate(bytes, 0, bytes.length, max_chars)`: the byte length of the first
/// `max_chars` characters, counting bytes that are not UTF-8 continuation bytes.
#[inline]
fn truncated_len(bytes: &[u8], max_chars: usize) -> usize {
    if bytes.len() <= max_chars {
        return bytes.len();
    }
    truncated_long_len(bytes, max_chars)
}

/// [`truncated_len`] of a value with more bytes than `max_chars`.
fn truncated_long_len(bytes: &[u8], max_chars: usize) -> usize {
    // Whole 8-byte words first, while every character starting in them is kept: a byte
    // starts a character unless it is a continuation byte (`0b10xx_xxxx`: bit 7 set, bit 6
    // clear, which `w & !(w << 1)` finds in each byte's top bit).
    let (words, _) = bytes.as_chunks::<8>();
    let (mut chars, mut at) = (0, 0);
    for word in words {
        let w = u64::from_le_bytes(*word);
        let continuations = (w & !(w << 1) & 0x8080_8080_8080_8080).count_ones() as usize;
        let starts = 8 - continuations;
        if chars + starts > max_chars {
            break;
        }
        chars += starts;
        at += 8;
    }
    for (i, &b) in bytes[at..].iter().enumerate() {
        if b & 0xC0 != 0x80 {
            if chars == max_chars {
                return at + i;
            }
            chars += 1;
        }
    }
    bytes.len()
}

/// `StringExpr.rightTrimAndTruncate`: truncated, then without trailing `0x20` bytes.
#[inline]
fn char_len(bytes: &[u8], max_chars: usize) -> usize {
    let mut kept = &bytes[..truncated_len(bytes, max_chars)];
    // Writer padding is long: drop whole words of spaces first.
    while let Some((rest, word)) = kept.split_last_chunk::<8>()
        && *word == [b' '; 8]
    {
        kept = rest;
    }
    kept.iter()
        .rposition(|&b| b != b' ')
        .map_or(0, |last| last + 1)
}

/// Replaces every non-NULL value by its prefix of `new_len(value)` bytes; shares `values`
/// when no value shortens. NULL slots become empty.
fn rewrite_prefixes(values: &StringArray, new_len: impl Fn(&[u8]) -> usize) -> StringArray {
    let nulls = values.nulls().filter(|n| n.null_count() > 0);
    let offsets = values.value_offsets();
    let data = values.value_data();
    let value = |row: usize| &data[offsets[row] as usize..offsets[row + 1] as usize];
    let changes = |row: usize| {
        nulls.is_none_or(|n| n.is_valid(row)) && {
            let v = value(row);
            new_len(v) < v.len()
        }
    };
    let Some(first) = (0..values.len()).find(|&row| changes(row)) else {
        return values.clone();
    };
    // Rows before the first change are copied as one run (NULL slots' bytes included).
    let base = offsets[0];
    let mut out_offsets: Vec<i32> = Vec::with_capacity(values.len() + 1);
    out_offsets.extend(offsets[..=first].iter().map(|&o| o - base));
    let mut out: Vec<u8> = Vec::with_capacity((offsets[values.len()] - base) as usize);
    out.extend_from_slice(&data[base as usize..offsets[first] as usize]);
    for row in first..values.len() {
        if nulls.is_none_or(|n| n.is_valid(row)) {
            let v = value(row);
            out.extend_from_slice(&v[..new_len(v)]);
        }
        out_offsets.push(out.len() as i32);
    }
    let offsets = OffsetBuffer::new(ScalarBuffer::from(out_offsets));
    // SAFETY: the offsets start at 0, never decrease and end at `out.len()`; every value is a
    // prefix of a valid UTF-8 value that ends on a character boundary (truncation stops before
    // a non-continuation byte or at the end, trimming removes one-byte spaces), or a copied
    // run of whole values; the validity buffer is the input's, of the same length.
    unsafe { StringArray::new_unchecked(offsets, Buffer::from_vec(out), values.nulls().cloned()) }
}

fn utf8<'a>(array: &'a dyn Array, ty: &LogicalType) -> Result<&'a StringArray> {
    array
        .as_string_opt::<i32>()
        .ok_or_else(|| mismatch(ty, array.data_type()))
}

/// `array` itself when `out` shares its buffers (nothing changed), else `out`.
fn shared_or(array: &ArrayRef, out: StringArray) -> ArrayRef {
    let input = array.as_string::<i32>();
    if out.value_data().as_ptr() == input.value_data().as_ptr()
        && out.value_offsets().as_ptr() == input.value_offsets().as_ptr()
    {
        Arc::clone(array)
    } else {
        Arc::new(out)
    }
}

// ---------------------------------------------------------------------------------------------
// Timestamps
// ---------------------------------------------------------------------------------------------

const SECONDS_PER_DAY: i64 = 86_400;
const NANOS_PER_SECOND: i64 = 1_000_000_000;
/// 0000-01-01, in days since 1970-01-01: the start of Flink's TIMESTAMP range.
const MIN_DAY: i64 = gregorian_days(0, 1, 1);
/// 9999-12-31: the last day of Flink's TIMESTAMP range.
const MAX_DAY: i64 = gregorian_days(9_999, 12, 31);
/// 1582-10-15: the first day of the hybrid calendar's Gregorian part.
const CUTOVER_DAY: i64 = gregorian_days(1_582, 10, 15);
/// Julian -9998-01-01: the earliest label whose year of era (`1 - year`) is at most 9999.
const EARLIEST_JULIAN_DAY: i64 = julian_days(-9_998, 1, 1);
/// Proleptic Gregorian -9998-01-01, likewise.
const EARLIEST_PROLEPTIC_DAY: i64 = gregorian_days(-9_998, 1, 1);

/// Ticks of `unit` per second.
fn per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => NANOS_PER_SECOND,
    }
}

/// Why a row has no Flink value in the carrier.
enum Refusal {
    /// Outside 0000-01-01 ..= 9999-12-31 23:59:59.999999999 once read.
    Range,
    /// A February 29 label of a year that is no proleptic Gregorian leap year.
    NotALeapYear { year: i64 },
    /// A proleptic label inside the hybrid calendar's missing days.
    CutoverGap,
}

/// The carrier a TIMESTAMP(p) / TIMESTAMP_LTZ(p) column is normalized into.
struct Target<'a> {
    ty: &'a LogicalType,
    unit: TimeUnit,
    timezone: Option<Arc<str>>,
    /// The file's calendar for wall clocks; `None` for instants (TIMESTAMP_LTZ).
    labels: Option<OrcCalendar>,
}

impl<'a> Target<'a> {
    fn new(ty: &'a LogicalType, calendar: OrcCalendar) -> Result<Self> {
        let (precision, labels) = match *ty {
            LogicalType::Timestamp(p) => (p, Some(calendar)),
            LogicalType::TimestampLtz(p) => (p, None),
            _ => {
                return Err(BridgeError::SchemaMismatch(format!(
                    "{ty} is not a TIMESTAMP or TIMESTAMP_LTZ type"
                )));
            }
        };
        if precision > 9 {
            return Err(BridgeError::SchemaMismatch(format!(
                "{ty}: precision must be at most 9"
            )));
        }
        let DataType::Timestamp(unit, timezone) = ty.to_arrow() else {
            return Err(BridgeError::SchemaMismatch(format!(
                "{ty} has no Arrow timestamp carrier"
            )));
        };
        Ok(Self {
            ty,
            unit,
            timezone,
            labels,
        })
    }

    /// A `Timestamp(unit, _)` input: shared (through [`convert_timestamp_unit`]) when every
    /// value is read unchanged and fits the carrier, converted row by row otherwise.
    fn convert_timestamps(&self, array: &dyn Array, unit: TimeUnit) -> Result<ArrayRef> {
        let values = timestamp_values(array, unit);
        let nulls = array.nulls().filter(|n| n.null_count() > 0);
        let (lo, hi) = self.unchanged_bounds(unit);
        let unchanged = match nulls {
            None => values.iter().all(|v| (lo..=hi).contains(v)),
            Some(n) => values
                .iter()
                .enumerate()
                .all(|(row, v)| n.is_null(row) || (lo..=hi).contains(v)),
        };
        if unchanged {
            return Ok(self.retag(convert_timestamp_unit(array, self.unit)?));
        }
        let per = per_second(unit);
        let nanos_per_tick = NANOS_PER_SECOND / per;
        self.convert(array.len(), nulls, |row| {
            let v = values[row];
            Ok(Some((
                v.div_euclid(per),
                (v.rem_euclid(per) * nanos_per_tick) as u32,
            )))
        })
    }

    /// The values of an input in `unit` that Flink reads unchanged and that fit the carrier
    /// after [`convert_timestamp_unit`]: from 1582-10-15 for wall clocks (earlier labels
    /// depend on the calendar), from 0000-01-01 for instants, to the end of 9999-12-31.
    fn unchanged_bounds(&self, unit: TimeUnit) -> (i64, i64) {
        let per = per_second(unit);
        let first_day = if self.labels.is_some() {
            CUTOVER_DAY
        } else {
            MIN_DAY
        };
        let mut lo = (first_day * SECONDS_PER_DAY).saturating_mul(per);
        let mut hi = ((MAX_DAY + 1) * SECONDS_PER_DAY)
            .checked_mul(per)
            .map_or(i64::MAX, |end| end - 1);
        let target_per = per_second(self.unit);
        if target_per > per {
            let factor = target_per / per;
            lo = lo.max(i64::MIN / factor);
            hi = hi.min(i64::MAX / factor);
        }
        (lo, hi)
    }

    /// Puts the carrier's time zone on a converted column (sharing its buffers).
    fn retag(&self, array: ArrayRef) -> ArrayRef {
        // `convert_timestamp_unit` returns timestamps; anything else is returned as it is.
        let DataType::Timestamp(unit, timezone) = array.data_type() else {
            return array;
        };
        if *timezone == self.timezone {
            return array;
        }
        build(
            *unit,
            self.timezone.clone(),
            timestamp_values(&array, *unit),
            array.nulls().cloned(),
        )
    }

    /// Converts every non-NULL row from its `(seconds, nanos of second)` as decoded, which
    /// `source` gives (`None`: beyond 64-bit seconds). NULL slots become 0.
    fn convert(
        &self,
        len: usize,
        nulls: Option<&NullBuffer>,
        source: impl Fn(usize) -> Result<Option<(i64, u32)>>,
    ) -> Result<ArrayRef> {
        let nulls = nulls.filter(|n| n.null_count() > 0);
        let mut out = Vec::with_capacity(len);
        for row in 0..len {
            if nulls.is_some_and(|n| n.is_null(row)) {
                out.push(0);
                continue;
            }
            let value = match source(row)? {
                Some((seconds, nanos)) => self.value(row, seconds, nanos)?,
                None => {
                    return Err(BridgeError::InvalidValue(format!(
                        "{}: the value at row {row} is outside the range of 64-bit seconds",
                        self.ty
                    )));
                }
            };
            out.push(value);
        }
        Ok(build(
            self.unit,
            self.timezone.clone(),
            ScalarBuffer::from(out),
            nulls.cloned(),
        ))
    }

    /// One row: read as Flink reads it, range-checked, floored into the carrier's unit.
    fn value(&self, row: usize, seconds: i64, nanos: u32) -> Result<i64> {
        let read = match self.labels {
            Some(calendar) => read_labels(seconds, calendar),
            None => read_instant(seconds),
        };
        let flink = read.map_err(|refusal| {
            let decoded = show(seconds, nanos);
            BridgeError::InvalidValue(match refusal {
                Refusal::Range => format!(
                    "{}: the value at row {row} ({decoded} as decoded) is outside \
                     0000-01-01 00:00:00 ..= 9999-12-31 23:59:59.999999999 as Flink reads it",
                    self.ty
                ),
                Refusal::NotALeapYear { year } => format!(
                    "{}: the value at row {row} ({decoded} as decoded) is February 29 of year \
                     {year} as Flink's ORC reader reads it, which is no leap year in the \
                     proleptic Gregorian calendar (Flink fails with a DateTimeException)",
                    self.ty
                ),
                Refusal::CutoverGap => format!(
                    "{}: the value at row {row} ({decoded}) lies in 1582-10-05 ..= 1582-10-14, \
                     days the hybrid calendar Flink's ORC reader converts to does not have",
                    self.ty
                ),
            })
        })?;
        let n = i64::from(nanos);
        let value = match self.unit {
            TimeUnit::Second => Some(flink),
            TimeUnit::Millisecond => Some(flink * 1_000 + n / 1_000_000),
            TimeUnit::Microsecond => Some(flink * 1_000_000 + n / 1_000),
            // A negative second with a fraction may sit next to `i64::MIN` nanoseconds.
            TimeUnit::Nanosecond if flink < 0 && n > 0 => (flink + 1)
                .checked_mul(NANOS_PER_SECOND)
                .and_then(|v| v.checked_add(n - NANOS_PER_SECOND)),
            TimeUnit::Nanosecond => flink
                .checked_mul(NANOS_PER_SECOND)
                .and_then(|v| v.checked_add(n)),
        };
        value.ok_or_else(|| {
            BridgeError::InvalidValue(format!(
                "{}: the value {} at row {row} is outside the nanosecond carrier, \
                 1677-09-21 00:12:43.145224192 ..= 2262-04-11 23:47:16.854775807",
                self.ty,
                show(flink, nanos)
            ))
        })
    }
}

/// An instant's epoch seconds, range-checked.
fn read_instant(seconds: i64) -> Result<i64, Refusal> {
    let day = seconds.div_euclid(SECONDS_PER_DAY);
    if (MIN_DAY..=MAX_DAY).contains(&day) {
        Ok(seconds)
    } else {
        Err(Refusal::Range)
    }
}

/// Flink's epoch seconds for a wall clock decoded as `seconds`: the labels of the decoded
/// value in the file's calendar, with the year of the era, in the proleptic calendar.
fn read_labels(seconds: i64, calendar: OrcCalendar) -> Result<i64, Refusal> {
    let day = seconds.div_euclid(SECONDS_PER_DAY);
    let second_of_day = seconds.rem_euclid(SECONDS_PER_DAY);
    if day >= CUTOVER_DAY {
        return if day <= MAX_DAY {
            Ok(seconds)
        } else {
            Err(Refusal::Range)
        };
    }
    let (year, month, day_of_month) = match calendar {
        OrcCalendar::JulianGregorian => {
            if day < EARLIEST_JULIAN_DAY {
                return Err(Refusal::Range);
            }
            julian_date(day)
        }
        OrcCalendar::ProlepticGregorian => {
            if day < EARLIEST_PROLEPTIC_DAY {
                return Err(Refusal::Range);
            }
            let date = gregorian_date(day);
            if date.0 == 1_582 && date.1 == 10 && (5..=14).contains(&date.2) {
                return Err(Refusal::CutoverGap);
            }
            date
        }
    };
    let year = if year <= 0 { 1 - year } else { year };
    if month == 2 && day_of_month == 29 && !is_gregorian_leap_year(year) {
        return Err(Refusal::NotALeapYear { year });
    }
    Ok(gregorian_days(year, month, day_of_month) * SECONDS_PER_DAY + second_of_day)
}

fn is_gregorian_leap_year(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days since 1970-01-01 of the proleptic Gregorian date `year-month-day` (astronomical
/// years), after Howard Hinnant's `days_from_civil`: 400-year eras of 146,097 days, years
/// starting in March.
const fn gregorian_days(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let march_month = (month as i64 + 9) % 12;
    let day_of_year = (153 * march_month + 2) / 5 + day as i64 - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The proleptic Gregorian date of `days` since 1970-01-01 (Hinnant's `civil_from_days`).
const fn gregorian_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    march_date(year_of_era + era * 400, day_of_year)
}

/// Days since 1970-01-01 of the Julian date `year-month-day` (astronomical years): 4-year
/// eras of 1,461 days starting on Julian 0000-03-01, which is 719,470 days before
/// 1970-01-01 (Julian 1969-12-19).
const fn julian_days(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(4);
    let year_of_era = y - era * 4;
    let march_month = (month as i64 + 9) % 12;
    let day_of_year = (153 * march_month + 2) / 5 + day as i64 - 1;
    era * 1_461 + year_of_era * 365 + day_of_year - 719_470
}

/// The Julian date of `days` since 1970-01-01.
const fn julian_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_470;
    let era = z.div_euclid(1_461);
    let day_of_era = z - era * 1_461;
    let year_of_era = (day_of_era - day_of_era / 1_460) / 365;
    let day_of_year = day_of_era - 365 * year_of_era;
    march_date(year_of_era + era * 4, day_of_year)
}

/// The date `day_of_year` days after March 1 of `march_year`.
const fn march_date(march_year: i64, day_of_year: i64) -> (i64, u32, u32) {
    let march_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * march_month + 2) / 5 + 1) as u32;
    let month = (if march_month < 10 {
        march_month + 3
    } else {
        march_month - 9
    }) as u32;
    (march_year + if month <= 2 { 1 } else { 0 }, month, day)
}

/// `seconds` and `nanos` as a proleptic Gregorian date and time, for messages.
fn show(seconds: i64, nanos: u32) -> String {
    let (year, month, day) = gregorian_date(seconds.div_euclid(SECONDS_PER_DAY));
    let s = seconds.rem_euclid(SECONDS_PER_DAY);
    let year = if (0..=9_999).contains(&year) {
        format!("{year:04}")
    } else {
        format!("{year:+}")
    };
    format!(
        "{year}-{month:02}-{day:02} {:02}:{:02}:{:02}.{nanos:09}",
        s / 3_600,
        s / 60 % 60,
        s % 60
    )
}

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

fn mismatch(ty: &LogicalType, found: &DataType) -> BridgeError {
    BridgeError::SchemaMismatch(format!(
        "{ty} cannot be read from a decoded {found} column (its carrier is {})",
        ty.to_arrow()
    ))
}

/// `e` with `context` in front of its message.
fn in_context(e: BridgeError, context: &str) -> BridgeError {
    match e {
        BridgeError::InvalidValue(m) => BridgeError::InvalidValue(format!("{context}: {m}")),
        BridgeError::SchemaMismatch(m) => BridgeError::SchemaMismatch(format!("{context}: {m}")),
        other => other,
    }
}

/// `array` itself when every normalized child is the input's own, `rebuild(children)` else.
fn rebuild_if_changed(
    array: &ArrayRef,
    ty: &LogicalType,
    inputs: &[ArrayRef],
    children: Vec<ArrayRef>,
    rebuild: impl FnOnce(Vec<ArrayRef>) -> Result<ArrayRef>,
) -> Result<ArrayRef> {
    let unchanged = inputs.iter().zip(&children).all(|(a, b)| Arc::ptr_eq(a, b));
    if unchanged && array.data_type() == &ty.to_arrow() {
        Ok(Arc::clone(array))
    } else {
        rebuild(children)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{
        Decimal128Array, Int32Array, Int64Array, ListArray, TimestampMicrosecondArray,
        TimestampMillisecondArray, TimestampNanosecondArray, TimestampSecondArray,
    };
    use arrow::datatypes::Fields;
    use arrow::datatypes::{
        TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    };
    use bench_support::fixtures::mix;

    const HYBRID: OrcCalendar = OrcCalendar::JulianGregorian;
    const PROLEPTIC: OrcCalendar = OrcCalendar::ProlepticGregorian;

    /// The ORC readers' rule restated over characters, as an independent model:
    /// `StringExpr.truncate` "Truncate[s] a slice of a byte array to a maximum number of
    /// characters" (counting bytes with `(bytes[j] & 0xc0) != 0x80`, i.e. code points), and
    /// `rightTrimAndTruncate` then walks back from the end while `bytes[i] == 0x20`.
    /// `CharTreeReader` applies both, `VarcharTreeReader` only the first.
    fn model(value: &str, n: usize, trim: bool) -> String {
        let truncated: String = value.chars().take(n).collect();
        if trim {
            truncated.trim_end_matches(' ').to_string()
        } else {
            truncated
        }
    }

    fn strings(values: &[Option<&str>]) -> ArrayRef {
        Arc::new(StringArray::from(values.to_vec()))
    }

    fn collect(array: &ArrayRef) -> Vec<Option<String>> {
        array
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(str::to_string))
            .collect()
    }

    #[test]
    fn word_at_a_time_truncation_and_trimming_agree_with_the_model_at_every_cut() {
        // Every cut of values long enough for whole words, with characters of every UTF-8
        // width landing on and across word boundaries, and runs of padding of every length.
        let pieces = ["a", "é", "€", "😀", " ", "  ", "        ", "x "];
        for seed in 0..400_usize {
            let mut value = String::new();
            let mut state = seed;
            for _ in 0..(seed % 23) {
                state = state.wrapping_mul(2_654_435_761).wrapping_add(1) % 1_000_003;
                value.push_str(pieces[state % pieces.len()]);
            }
            for n in 0..=value.chars().count() + 2 {
                let bytes = value.as_bytes();
                assert_eq!(
                    &value[..truncated_len(bytes, n)],
                    model(&value, n, false),
                    "{value:?} to {n}"
                );
                assert_eq!(
                    &value[..char_len(bytes, n)],
                    model(&value, n, true),
                    "{value:?} to {n}"
                );
            }
        }
    }

    #[test]
    fn char_values_are_truncated_then_right_trimmed_and_never_padded() {
        let input = strings(&[
            Some("ab  "),
            Some("a b "),
            Some("abcdef"),
            Some("ab  xy"),
            Some("    "),
            None,
            Some("ab"),
            Some("a\t"),
            Some("é€😀x "),
            Some("😀😀😀😀😀"),
        ]);
        let out = normalize_column(&input, &LogicalType::Char(4), HYBRID).unwrap();
        let expected: Vec<Option<String>> = [
            Some("ab"),
            Some("a b"),
            Some("abcd"),
            Some("ab"),
            Some(""),
            None,
            Some("ab"),
            Some("a\t"),
            Some("é€😀x"),
            Some("😀😀😀😀"),
        ]
        .iter()
        .map(|v| v.map(str::to_string))
        .collect();
        assert_eq!(collect(&out), expected);
    }

    #[test]
    fn varchar_values_are_truncated_and_keep_their_trailing_spaces() {
        let input = strings(&[
            Some("ab  "),
            Some("abcdef"),
            Some("ab  xy"),
            Some("é€😀xyz"),
            None,
        ]);
        let out = normalize_column(&input, &LogicalType::VarChar(4), HYBRID).unwrap();
        assert_eq!(
            collect(&out),
            vec![
                Some("ab  ".into()),
                Some("abcd".into()),
                Some("ab  ".into()),
                Some("é€😀x".into()),
                None
            ]
        );
    }

    #[test]
    fn seeded_strings_match_the_row_by_row_model_sliced_and_with_nulls() {
        const ALPHABET: [char; 8] = [' ', 'a', 'b', '\t', 'é', '€', '😀', '\u{3000}'];
        for seed in 0..200u64 {
            let rows = 1 + (mix(seed, 0) % 40) as usize;
            let values: Vec<Option<String>> = (0..rows)
                .map(|r| {
                    let word = mix(seed, 1 + r as u64);
                    (word % 7 != 3).then(|| {
                        let len = (word >> 8) % 12;
                        (0..len)
                            .map(|i| ALPHABET[((word >> (12 + 3 * i)) % 8) as usize])
                            .collect()
                    })
                })
                .collect();
            let n = (mix(seed, 99) % 10) as usize;
            let offset = (seed % 3) as usize;
            let offset = offset.min(rows - 1);
            let full: ArrayRef = Arc::new(StringArray::from(values.clone()));
            let input = full.slice(offset, rows - offset);
            for (ty, trim) in [
                (LogicalType::Char(n as u32), true),
                (LogicalType::VarChar(n as u32), false),
            ] {
                let out = normalize_column(&input, &ty, HYBRID).unwrap();
                let expected: Vec<Option<String>> = values[offset..]
                    .iter()
                    .map(|v| v.as_deref().map(|v| model(v, n, trim)))
                    .collect();
                assert_eq!(collect(&out), expected, "seed {seed}, {ty}");
                let changed = expected.iter().zip(&values[offset..]).any(|(e, v)| e != v);
                assert_eq!(!Arc::ptr_eq(&out, &input), changed, "seed {seed}, {ty}");
                out.to_data().validate_full().unwrap();
            }
        }
    }

    #[test]
    fn conforming_char_values_are_shared_without_copying() {
        let input = strings(&[Some("ab"), None, Some("a b"), Some("é€😀x"), Some("")]);
        let input = input.slice(1, 4);
        let out = normalize_column(&input, &LogicalType::Char(4), HYBRID).unwrap();
        assert!(Arc::ptr_eq(&out, &input));
        let typed = normalize_char(input.as_string::<i32>(), 4);
        let source = input.as_string::<i32>();
        assert_eq!(typed.value_data().as_ptr(), source.value_data().as_ptr());
        assert_eq!(
            typed.value_offsets().as_ptr(),
            source.value_offsets().as_ptr()
        );
    }

    #[test]
    fn string_columns_pass_through_untouched() {
        let input = strings(&[Some("ab  "), Some("abcdef"), None]);
        let out = normalize_column(&input, &LogicalType::VarChar(i32::MAX as u32), HYBRID).unwrap();
        assert!(Arc::ptr_eq(&out, &input));
        assert_eq!(
            out.to_data().buffers()[1].as_ptr(),
            input.to_data().buffers()[1].as_ptr()
        );
    }

    #[test]
    fn char_columns_must_be_utf8() {
        let input: ArrayRef = Arc::new(arrow::array::LargeStringArray::from(vec!["a"]));
        let err = normalize_column(&input, &LogicalType::Char(3), HYBRID).unwrap_err();
        assert!(matches!(err, BridgeError::SchemaMismatch(_)), "{err}");
        assert!(err.to_string().contains("CHAR(3)"), "{err}");
        assert!(err.to_string().contains("LargeUtf8"), "{err}");
    }

    // -----------------------------------------------------------------------------------------
    // Timestamps. Golden vectors: `java.sql.Timestamp(ms)` + `setNanos` + `toLocalDateTime`,
    // then `TimestampData.fromLocalDateTime`'s arithmetic, run on JDK 17 with
    // `-Duser.timezone=UTC` (the path `OrcTimestampColumnVector.getTimestamp` takes); decoded
    // hybrid values from `GregorianCalendar` (UTC) set to the Julian label; proleptic values
    // cross-checked with Python's `datetime.date` (`(date(1582, 10, 4) - date(1970, 1, 1)).days`
    // is -141438).
    // -----------------------------------------------------------------------------------------

    /// `(decoded epoch seconds, Flink's epoch seconds)`, hybrid calendar.
    const HYBRID_GOLDEN: [(i64, i64); 9] = [
        // Julian 0001-01-01 (day -719164) is read as 0001-01-01.
        (-62_135_769_600, -62_135_596_800),
        // Julian 1582-10-04, the hybrid calendar's last Julian day.
        (-12_219_379_200, -12_220_243_200),
        // 1582-10-15, the first Gregorian day: unchanged.
        (-12_219_292_800, -12_219_292_800),
        // Julian 1000-01-01.
        (-30_609_792_000, -30_610_224_000),
        // Julian 1200-02-29: a leap day in both calendars.
        (-24_293_174_400, -24_293_779_200),
        // 1 BC-12-31 (Julian year 0) is read as 0001-12-31: `Date.getYear()` drops the era.
        (-62_135_856_000, -62_104_147_200),
        // 2 BC-03-01 is read as 0002-03-01.
        (-62_193_830_400, -62_098_963_200),
        // 1969-12-31 23:59:59 (the nanoseconds below add .999999999).
        (-1, -1),
        // 9999-12-31 23:59:59.
        (253_402_300_799, 253_402_300_799),
    ];

    fn micros(seconds: &[i64], nanos: u32) -> ArrayRef {
        Arc::new(TimestampMicrosecondArray::from(
            seconds
                .iter()
                .map(|s| s * 1_000_000 + i64::from(nanos) / 1_000)
                .collect::<Vec<_>>(),
        ))
    }

    fn decimal_nanos(values: Vec<Option<i128>>) -> ArrayRef {
        Arc::new(
            Decimal128Array::from(values)
                .with_precision_and_scale(38, 9)
                .unwrap(),
        )
    }

    fn pair(seconds: Vec<Option<i64>>, nanos: Vec<Option<i32>>) -> ArrayRef {
        Arc::new(StructArray::new(
            Fields::from(vec![
                Field::new("seconds", DataType::Int64, true),
                Field::new("nanos", DataType::Int32, true),
            ]),
            vec![
                Arc::new(Int64Array::from(seconds)),
                Arc::new(Int32Array::from(nanos)),
            ],
            None,
        ))
    }

    fn values_of(array: &ArrayRef) -> Vec<Option<i64>> {
        match array.data_type() {
            DataType::Timestamp(TimeUnit::Millisecond, _) => array
                .as_primitive::<TimestampMillisecondType>()
                .iter()
                .collect(),
            DataType::Timestamp(TimeUnit::Microsecond, _) => array
                .as_primitive::<TimestampMicrosecondType>()
                .iter()
                .collect(),
            DataType::Timestamp(TimeUnit::Nanosecond, _) => array
                .as_primitive::<TimestampNanosecondType>()
                .iter()
                .collect(),
            other => panic!("not a carrier: {other}"),
        }
    }

    #[test]
    fn hybrid_calendar_rows_read_their_julian_labels_like_flink() {
        let decoded: Vec<i64> = HYBRID_GOLDEN.iter().map(|g| g.0).collect();
        let input = decimal_nanos(
            decoded
                .iter()
                .map(|&s| Some(i128::from(s) * 1_000_000_000 + 999_999_999))
                .collect(),
        );
        for (p, unit_ticks) in [(3u8, 1_000i64), (6, 1_000_000)] {
            let out = normalize_column(&input, &LogicalType::Timestamp(p), HYBRID).unwrap();
            let sub = 999_999_999 / (1_000_000_000 / unit_ticks);
            let expected: Vec<Option<i64>> = HYBRID_GOLDEN
                .iter()
                .map(|&(_, flink)| Some(flink * unit_ticks + sub))
                .collect();
            assert_eq!(values_of(&out), expected, "TIMESTAMP({p})");
            assert_eq!(
                out.data_type(),
                &DataType::Timestamp(timestamp_unit_of(p), None)
            );
        }
    }

    fn timestamp_unit_of(p: u8) -> TimeUnit {
        streamfusion_core::types::timestamp_unit(p)
    }

    #[test]
    fn pre_epoch_nanoseconds_floor_into_every_carrier() {
        // 1969-12-31T23:59:59.999999999: Flink's millisecond is -1, nanoOfMillisecond 999999.
        let input = decimal_nanos(vec![Some(-1)]);
        for (p, expected) in [(3u8, -1i64), (6, -1), (9, -1)] {
            let out = normalize_column(&input, &LogicalType::Timestamp(p), HYBRID).unwrap();
            assert_eq!(values_of(&out), vec![Some(expected)], "TIMESTAMP({p})");
        }
        let input = decimal_nanos(vec![Some(-1_000_001)]);
        let out = normalize_column(&input, &LogicalType::Timestamp(3), HYBRID).unwrap();
        assert_eq!(values_of(&out), vec![Some(-2)]);
    }

    #[test]
    fn proleptic_calendar_rows_keep_their_value_from_year_one() {
        let seconds = [
            -62_135_596_800, // 0001-01-01
            -12_220_243_200, // 1582-10-04
            -12_219_292_800, // 1582-10-15
            -30_610_224_000, // 1000-01-01
            -1,              // 1969-12-31 23:59:59
            253_402_300_799, // 9999-12-31 23:59:59
        ];
        let out = normalize_column(
            &micros(&seconds, 999_999_000),
            &LogicalType::Timestamp(6),
            PROLEPTIC,
        )
        .unwrap();
        let expected: Vec<Option<i64>> = seconds
            .iter()
            .map(|s| Some(s * 1_000_000 + 999_999))
            .collect();
        assert_eq!(values_of(&out), expected);
        // Proleptic 0000-06-01 (day -719376) reaches Flink as 0001-06-01 (day -719011).
        let out = normalize_column(
            &micros(&[-719_376 * 86_400], 0),
            &LogicalType::Timestamp(6),
            PROLEPTIC,
        )
        .unwrap();
        assert_eq!(values_of(&out), vec![Some(-719_011 * 86_400 * 1_000_000)]);
    }

    #[test]
    fn proleptic_cutover_gap_labels_are_refused_naming_the_row() {
        // 1582-10-10 is day -141432 in the proleptic calendar.
        let input = micros(&[0, -141_432 * 86_400], 0);
        let err = normalize_column(&input, &LogicalType::Timestamp(6), PROLEPTIC).unwrap_err();
        assert!(err.to_string().contains("at row 1"), "{err}");
        assert!(err.to_string().contains("1582-10-10"), "{err}");
        // In a hybrid file the same value is Julian 1582-09-30, an ordinary day.
        normalize_column(&input, &LogicalType::Timestamp(6), HYBRID).unwrap();
    }

    #[test]
    fn julian_february_29_of_a_gregorian_common_year_is_refused_like_localdatetime() {
        // Julian 1500-02-29 and 1 BC-02-29: `LocalDateTime.of` throws for years 1500 and 1.
        for (decoded, year) in [(-14_825_894_400i64, 1_500), (-62_162_294_400, 1)] {
            let input = micros(&[0, 0, decoded], 0);
            let err = normalize_column(&input, &LogicalType::Timestamp(6), HYBRID).unwrap_err();
            assert!(matches!(err, BridgeError::InvalidValue(_)), "{err}");
            assert!(err.to_string().contains("at row 2"), "{err}");
            assert!(
                err.to_string()
                    .contains(&format!("February 29 of year {year}")),
                "{err}"
            );
        }
    }

    #[test]
    fn values_past_9999_or_before_the_earliest_label_are_refused() {
        // +10000-01-01 00:00:00 (day 2932897).
        let input = micros(&[0, 2_932_897 * 86_400], 0);
        for ty in [LogicalType::Timestamp(6), LogicalType::TimestampLtz(6)] {
            let input = if matches!(ty, LogicalType::TimestampLtz(_)) {
                Arc::new(
                    input
                        .as_primitive::<TimestampMicrosecondType>()
                        .clone()
                        .with_timezone("UTC"),
                )
            } else {
                Arc::clone(&input)
            };
            let err = normalize_column(&input, &ty, HYBRID).unwrap_err();
            assert!(err.to_string().contains("at row 1"), "{ty}: {err}");
            assert!(err.to_string().contains("+10000-01-01"), "{ty}: {err}");
        }
        // Julian -9999-12-31 would be read as year 10000.
        let before = julian_days(-9_998, 1, 1) - 1;
        let err = normalize_column(
            &micros(&[before * 86_400], 0),
            &LogicalType::Timestamp(6),
            HYBRID,
        )
        .unwrap_err();
        assert!(err.to_string().contains("at row 0"), "{err}");
        // Seconds beyond 64 bits, from the decimal shape.
        let err = normalize_column(
            &decimal_nanos(vec![None, Some(i128::MAX)]),
            &LogicalType::Timestamp(9),
            HYBRID,
        )
        .unwrap_err();
        assert!(err.to_string().contains("at row 1"), "{err}");
    }

    #[test]
    fn the_nanosecond_carrier_takes_exactly_its_64_bit_range() {
        let min = i128::from(i64::MIN);
        let max = i128::from(i64::MAX);
        let ok = normalize_column(
            &decimal_nanos(vec![Some(min), Some(max), None]),
            &LogicalType::Timestamp(9),
            HYBRID,
        )
        .unwrap();
        assert_eq!(values_of(&ok), vec![Some(i64::MIN), Some(i64::MAX), None]);
        for (row, value, shown) in [
            (1usize, min - 1, "1677-09-21 00:12:43.145224191"),
            (1, max + 1, "2262-04-11 23:47:16.854775808"),
        ] {
            let err = normalize_column(
                &decimal_nanos(vec![Some(0), Some(value)]),
                &LogicalType::Timestamp(9),
                HYBRID,
            )
            .unwrap_err();
            assert!(err.to_string().contains(&format!("at row {row}")), "{err}");
            assert!(err.to_string().contains(shown), "{err}");
            assert!(err.to_string().contains("nanosecond carrier"), "{err}");
        }
        // Coarser input refined into nanoseconds: 1600-01-01 does not fit.
        let err = normalize_column(
            &micros(&[0, -11_676_096_000], 0),
            &LogicalType::Timestamp(9),
            HYBRID,
        )
        .unwrap_err();
        assert!(err.to_string().contains("at row 1"), "{err}");
    }

    #[test]
    fn every_accepted_shape_gives_the_same_column() {
        let instants: Vec<(i64, u32)> = (0..64u64)
            .map(|i| {
                let w = mix(i, 7);
                // Days between Julian 0001 and 9999, so hybrid rows on both sides of 1582.
                let day = -719_164 + (w % 3_652_000) as i64;
                let day = if (-141_437..-141_427).contains(&day) {
                    day + 20
                } else {
                    day
                };
                (
                    day * 86_400 + (w >> 32) as i64 % 86_400,
                    ((w >> 8) % 1_000_000_000) as u32,
                )
            })
            .filter(|&(s, _)| read_labels(s, HYBRID).is_ok())
            .collect();
        let nulls: Vec<bool> = (0..instants.len()).map(|i| i % 5 != 2).collect();
        let us: ArrayRef = Arc::new(TimestampMicrosecondArray::new(
            instants
                .iter()
                .map(|&(s, n)| s * 1_000_000 + i64::from(n) / 1_000)
                .collect(),
            Some(NullBuffer::from(nulls.clone())),
        ));
        let ns = |i: usize| i128::from(instants[i].0) * 1_000_000_000 + i128::from(instants[i].1);
        let decimal = decimal_nanos(
            (0..instants.len())
                .map(|i| nulls[i].then(|| ns(i)))
                .collect(),
        );
        let struct32 = pair(
            (0..instants.len())
                .map(|i| nulls[i].then_some(instants[i].0))
                .collect(),
            instants.iter().map(|&(_, n)| Some(n as i32)).collect(),
        );
        let struct64: ArrayRef = Arc::new(StructArray::new(
            Fields::from(vec![
                Field::new("nanos", DataType::Int64, false),
                Field::new("seconds", DataType::Int64, false),
            ]),
            vec![
                Arc::new(Int64Array::from_iter_values(
                    instants.iter().map(|&(_, n)| i64::from(n)),
                )),
                Arc::new(Int64Array::from_iter_values(
                    instants.iter().map(|&(s, _)| s),
                )),
            ],
            Some(NullBuffer::from(nulls.clone())),
        ));
        for p in [0u8, 3, 6] {
            let ty = LogicalType::Timestamp(p);
            let reference = normalize_column(&us, &ty, HYBRID).unwrap();
            for other in [&decimal, &struct32, &struct64] {
                let out = normalize_column(other, &ty, HYBRID).unwrap();
                assert_eq!(
                    out.to_data(),
                    reference.to_data(),
                    "{ty} from {}",
                    other.data_type()
                );
            }
        }
    }

    #[test]
    fn in_range_input_in_the_carriers_unit_is_shared() {
        let ns: ArrayRef = Arc::new(TimestampNanosecondArray::from(vec![
            Some(i64::MIN),
            None,
            Some(-1),
            Some(i64::MAX),
        ]));
        let out = normalize_column(&ns, &LogicalType::Timestamp(9), HYBRID).unwrap();
        assert_eq!(
            out.to_data().buffers()[0].as_ptr(),
            ns.to_data().buffers()[0].as_ptr()
        );
        assert_eq!(values_of(&out), values_of(&ns));

        let ms: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![
            -12_219_292_800_000, // 1582-10-15
            253_402_300_799_999, // 9999-12-31 23:59:59.999
        ]));
        let out = normalize_column(&ms, &LogicalType::Timestamp(3), HYBRID).unwrap();
        assert_eq!(
            out.to_data().buffers()[0].as_ptr(),
            ms.to_data().buffers()[0].as_ptr()
        );

        // An instant under another zone name is retagged "UTC", still sharing its values.
        let ltz: ArrayRef = Arc::new(
            TimestampMicrosecondArray::from(vec![-62_135_596_800_000_000]).with_timezone("+00:00"),
        );
        let out = normalize_column(&ltz, &LogicalType::TimestampLtz(6), HYBRID).unwrap();
        assert_eq!(
            out.data_type(),
            &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        );
        assert_eq!(
            out.to_data().buffers()[0].as_ptr(),
            ltz.to_data().buffers()[0].as_ptr()
        );

        // One Julian row makes the column new.
        let ms: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![
            0,
            -12_219_379_200_000,
        ]));
        let out = normalize_column(&ms, &LogicalType::Timestamp(3), HYBRID).unwrap();
        assert_ne!(
            out.to_data().buffers()[0].as_ptr(),
            ms.to_data().buffers()[0].as_ptr()
        );
        assert_eq!(values_of(&out), vec![Some(0), Some(-12_220_243_200_000)]);
    }

    #[test]
    fn timestamp_ltz_is_an_instant_without_calendar_reading() {
        // Julian 1582-10-04 as decoded stays where it is; year 0 is inside Flink's range.
        let seconds = [-12_219_379_200i64, -719_528 * 86_400];
        let input: ArrayRef =
            Arc::new(TimestampSecondArray::from(seconds.to_vec()).with_timezone("UTC"));
        let out = normalize_column(&input, &LogicalType::TimestampLtz(3), HYBRID).unwrap();
        assert_eq!(
            values_of(&out),
            seconds.iter().map(|s| Some(s * 1_000)).collect::<Vec<_>>()
        );
        assert_eq!(
            out.data_type(),
            &DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
        );
        // Just before 0000-01-01 is outside the range.
        let input = decimal_nanos(vec![Some(
            i128::from(-719_528i64 * 86_400) * 1_000_000_000 - 1,
        )]);
        assert!(normalize_column(&input, &LogicalType::TimestampLtz(6), HYBRID).is_err());
    }

    #[test]
    fn wall_clocks_and_instants_are_not_mixed() {
        let naive: ArrayRef = Arc::new(TimestampMicrosecondArray::from(vec![0]));
        let err = normalize_column(&naive, &LogicalType::TimestampLtz(6), HYBRID).unwrap_err();
        assert!(matches!(err, BridgeError::SchemaMismatch(_)), "{err}");
        let instant: ArrayRef =
            Arc::new(TimestampMicrosecondArray::from(vec![0]).with_timezone("UTC"));
        let err = normalize_column(&instant, &LogicalType::Timestamp(6), HYBRID).unwrap_err();
        assert!(matches!(err, BridgeError::SchemaMismatch(_)), "{err}");
        let int: ArrayRef = Arc::new(Int64Array::from(vec![0]));
        let err = normalize_column(&int, &LogicalType::Timestamp(6), HYBRID).unwrap_err();
        assert!(err.to_string().contains("Int64"), "{err}");
        let scale6 = Arc::new(
            Decimal128Array::from(vec![0])
                .with_precision_and_scale(38, 6)
                .unwrap(),
        ) as ArrayRef;
        assert!(normalize_column(&scale6, &LogicalType::Timestamp(6), HYBRID).is_err());
    }

    #[test]
    fn struct_nanos_outside_a_second_are_refused_and_null_children_make_null_rows() {
        let input = pair(vec![Some(0), Some(0)], vec![Some(5), Some(1_000_000_000)]);
        let err = normalize_column(&input, &LogicalType::Timestamp(9), HYBRID).unwrap_err();
        assert!(err.to_string().contains("1000000000 at row 1"), "{err}");
        let input = pair(vec![Some(1), None, Some(2)], vec![Some(5), Some(-7), None]);
        let out = normalize_column(&input, &LogicalType::Timestamp(9), HYBRID).unwrap();
        assert_eq!(values_of(&out), vec![Some(1_000_000_005), None, None]);
    }

    #[test]
    fn julian_reading_matches_day_number_arithmetic_over_the_whole_range() {
        // An independent oracle: Julian labels from the Julian Day Number with Richards'
        // algorithm, Gregorian day numbers with Fliegel and Van Flandern's formula, epoch day
        // = JDN - 2440588. Every day from Julian -4000-01-01 to 1582-10-14 (Gregorian) and a
        // stride beyond; February 29 rows that Flink refuses are masked and checked apart.
        fn julian_label(jdn: i64) -> (i64, i64, i64) {
            let f = jdn + 1_401;
            let e = 4 * f + 3;
            let g = e.rem_euclid(1_461) / 4;
            let h = 5 * g + 2;
            let day = h.rem_euclid(153) / 5 + 1;
            let month = (h / 153 + 2).rem_euclid(12) + 1;
            let year = e.div_euclid(1_461) - 4_716 + (12 + 2 - month) / 12;
            (year, month, day)
        }
        fn gregorian_jdn(year: i64, month: i64, day: i64) -> i64 {
            let a = (14 - month) / 12;
            let y = year + 4_800 - a;
            let m = month + 12 * a - 3;
            day + (153 * m + 2) / 5 + 365 * y + y / 4 - y / 100 + y / 400 - 32_045
        }
        const EPOCH_JDN: i64 = 2_440_588;
        // JDN 0 is Julian -4712-01-01; 712 Julian years of 365.25 days later is -4000-01-01.
        let first = 260_058 - EPOCH_JDN;
        assert_eq!(julian_label(260_058), (-4_000, 1, 1));
        let days: Vec<i64> = (first..CUTOVER_DAY)
            .chain((CUTOVER_DAY..=MAX_DAY).step_by(997))
            .collect();
        let mut expected = Vec::with_capacity(days.len());
        let mut refused = Vec::new();
        for &day in &days {
            if day >= CUTOVER_DAY {
                expected.push(Some(day * 86_400));
                continue;
            }
            let (year, month, dom) = julian_label(day + EPOCH_JDN);
            let year = if year <= 0 { 1 - year } else { year };
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
            if month == 2 && dom == 29 && !leap {
                refused.push(day);
                expected.push(None);
            } else {
                expected.push(Some((gregorian_jdn(year, month, dom) - EPOCH_JDN) * 86_400));
            }
        }
        let input: ArrayRef = Arc::new(TimestampSecondArray::new(
            days.iter().map(|d| d * 86_400).collect(),
            Some(expected.iter().map(Option::is_some).collect()),
        ));
        let out = normalize_column(&input, &LogicalType::Timestamp(0), HYBRID).unwrap();
        let expected: Vec<Option<i64>> = expected.iter().map(|e| e.map(|s| s * 1_000)).collect();
        assert_eq!(values_of(&out), expected);
        assert!(refused.len() > 30, "{} refused days", refused.len());
        for day in refused {
            assert!(matches!(
                read_labels(day * 86_400, HYBRID),
                Err(Refusal::NotALeapYear { .. })
            ));
        }
    }

    #[test]
    fn a_batch_is_normalized_column_by_column_and_errors_name_the_column() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("code", DataType::Utf8, true),
            Field::new("note", DataType::Utf8, true),
            Field::new("n", DataType::Int32, false),
            Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                strings(&[Some("ab  "), None]),
                strings(&[Some("x  "), Some("y")]),
                Arc::new(Int32Array::from(vec![1, 2])),
                micros(&[-12_219_379_200, 0], 0),
            ],
        )
        .unwrap();
        let types = [
            LogicalType::Char(4),
            LogicalType::VarChar(i32::MAX as u32),
            LogicalType::Int,
            LogicalType::Timestamp(3),
        ];
        let out = normalize_batch(&batch, &types, HYBRID).unwrap();
        assert_eq!(collect(out.column(0)), vec![Some("ab".into()), None]);
        assert!(Arc::ptr_eq(out.column(1), batch.column(1)));
        assert!(Arc::ptr_eq(out.column(2), batch.column(2)));
        assert_eq!(
            values_of(out.column(3)),
            vec![Some(-12_220_243_200_000), Some(0)]
        );
        assert_eq!(out.schema().field(3).name(), "ts");
        assert_eq!(
            out.schema().field(3).data_type(),
            &DataType::Timestamp(TimeUnit::Millisecond, None)
        );

        let err = normalize_batch(&batch, &types[..3], HYBRID).unwrap_err();
        assert!(
            err.to_string()
                .contains("3 Flink types for a batch of 4 columns"),
            "{err}"
        );
        let mut wrong = types.clone();
        wrong[2] = LogicalType::BigInt;
        let err = normalize_batch(&batch, &wrong, HYBRID).unwrap_err();
        assert!(err.to_string().contains("column 2 (`n`)"), "{err}");
        let bad = RecordBatch::try_new(
            batch.schema(),
            vec![
                Arc::clone(batch.column(0)),
                Arc::clone(batch.column(1)),
                Arc::clone(batch.column(2)),
                micros(&[0, -14_825_894_400], 0),
            ],
        )
        .unwrap();
        let err = normalize_batch(&bad, &types, HYBRID).unwrap_err();
        assert!(err.to_string().contains("column 3 (`ts`)"), "{err}");
        assert!(err.to_string().contains("at row 1"), "{err}");
    }

    #[test]
    fn nested_rows_arrays_and_maps_are_normalized_inside() {
        let row_ty = LogicalType::Row(vec![
            streamfusion_core::types::RowField::new("c", LogicalType::Char(3)),
            streamfusion_core::types::RowField::new("i", LogicalType::Int),
        ]);
        let input: ArrayRef = Arc::new(StructArray::new(
            Fields::from(vec![
                Field::new("orc_c", DataType::Utf8, true),
                Field::new("orc_i", DataType::Int32, true),
            ]),
            vec![
                strings(&[Some("a  "), Some("bcdx")]),
                Arc::new(Int32Array::from(vec![1, 2])),
            ],
            None,
        ));
        let out = normalize_column(&input, &row_ty, HYBRID).unwrap();
        assert_eq!(out.data_type(), &row_ty.to_arrow());
        let out = out.as_struct();
        assert_eq!(
            collect(out.column(0)),
            vec![Some("a".into()), Some("bcd".into())]
        );
        assert!(Arc::ptr_eq(out.column(1), input.as_struct().column(1)));

        let array_ty = LogicalType::Array(Box::new(LogicalType::Timestamp(3)));
        let items = micros(&[-12_219_379_200, 0, 5], 0);
        let list: ArrayRef = Arc::new(ListArray::new(
            Arc::new(Field::new("element", items.data_type().clone(), true)),
            OffsetBuffer::from_lengths([2, 1]),
            items,
            None,
        ));
        let out = normalize_column(&list, &array_ty, HYBRID).unwrap();
        assert_eq!(out.data_type(), &array_ty.to_arrow());
        assert_eq!(
            values_of(out.as_list::<i32>().values()),
            vec![Some(-12_220_243_200_000), Some(0), Some(5_000)]
        );
        let bad: ArrayRef = Arc::new(ListArray::new(
            Arc::new(Field::new(
                "element",
                DataType::Timestamp(TimeUnit::Microsecond, None),
                true,
            )),
            OffsetBuffer::from_lengths([1]),
            micros(&[-14_825_894_400], 0),
            None,
        ));
        let err = normalize_column(&bad, &array_ty, HYBRID).unwrap_err();
        assert!(
            err.to_string().starts_with("element: TIMESTAMP(3)"),
            "{err}"
        );

        let map_ty = LogicalType::Map(Box::new(LogicalType::Char(2)), Box::new(LogicalType::Int));
        let DataType::List(entries_field) = map_ty.to_arrow() else {
            unreachable!()
        };
        let DataType::Struct(entry_fields) = entries_field.data_type().clone() else {
            unreachable!()
        };
        let entries = StructArray::new(
            entry_fields,
            vec![
                strings(&[Some("k "), Some("kk")]),
                Arc::new(Int32Array::from(vec![1, 2])),
            ],
            None,
        );
        let map: ArrayRef = Arc::new(ListArray::new(
            entries_field,
            OffsetBuffer::from_lengths([2]),
            Arc::new(entries),
            None,
        ));
        let out = normalize_column(&map, &map_ty, HYBRID).unwrap();
        assert_eq!(out.data_type(), &map_ty.to_arrow());
        let keys = out.as_list::<i32>().values().as_struct().column(0).clone();
        assert_eq!(collect(&keys), vec![Some("k".into()), Some("kk".into())]);
        // Nothing to change: the very same column.
        let unchanged = normalize_column(&out, &map_ty, HYBRID).unwrap();
        assert!(Arc::ptr_eq(&unchanged, &out));
    }

    #[test]
    fn calendar_arithmetic_round_trips() {
        for day in [
            MIN_DAY,
            -719_162,
            CUTOVER_DAY - 1,
            CUTOVER_DAY,
            -1,
            0,
            MAX_DAY,
        ] {
            let (y, m, d) = gregorian_date(day);
            assert_eq!(gregorian_days(y, m, d), day);
            let (y, m, d) = julian_date(day);
            assert_eq!(julian_days(y, m, d), day);
        }
        assert_eq!(julian_date(0), (1_969, 12, 19));
        assert_eq!(gregorian_date(CUTOVER_DAY - 1), (1_582, 10, 14));
        assert_eq!(julian_date(CUTOVER_DAY - 1), (1_582, 10, 4));
        assert_eq!(show(-1, 999_999_999), "1969-12-31 23:59:59.999999999");
    }
}
