//! The `transposes` suite: Flink `BinaryRowData` rows to Arrow and back, through the bridge's
//! production entry points ([`rows_to_changelog`], [`changelog_to_rows`]).
//!
//! Measured boundary: the native transpose alone, output disposal included. The Java side
//! (filling the row buffer, JNI) is outside. Fixture construction, oracle checks and
//! allocation probes run before timing (see bench-support's runner).
//!
//! Families, each at 16, 1,024 and 16,384 rows with NULLs (`(row + column) % 13 == 0`) and
//! row kinds cycling `+I -U +U -D`:
//! - `arrow_to_rows/{narrow,wide}`: a changelog batch written as rows;
//! - `rows_to_arrow/{narrow,wide}`: those rows read back into a changelog batch.
//!
//! Schemas: narrow is BIGINT, INT, VARCHAR (8-byte values: one past the 7-byte inline limit,
//! so every one goes to the variable part); wide adds DECIMAL(38, 10), TIMESTAMP(9), a 264-byte VARCHAR and a
//! VARBINARY; nested is ARRAY<BIGINT>, ARRAY<STRING> and MAP<STRING, BIGINT> (NULL lists,
//! NULL elements and values, empty lists, inline and long strings). Rows written are checked
//! field by field by an independent reading of the layout (`BinaryArrayData` and
//! `BinaryMapData` included) against the fixture values; batches read are compared with the
//! fixture columns.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Int8Array, Int64Array, ListArray, RecordBatch,
    StringArray, StructArray, TimestampNanosecondArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{DataType, Decimal128Type, Int32Type, Int64Type, TimeUnit};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{self, NullPattern, PAYLOAD_WIDTH, ROW_COUNTS};
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion_bridge::transpose::{changelog_to_rows, rows_to_changelog};
use streamfusion_core::binary_row::RowReader;
use streamfusion_core::changelog::{ChangelogBatch, RowKind};
use streamfusion_core::types::{LogicalType, map_entry_fields};

bench_support::counting_allocator!();

fn main() {
    let mut suite = Suite::new("transposes");
    for (name, shape) in [
        ("narrow", Shape::Narrow),
        ("wide", Shape::Wide),
        ("nested", Shape::Nested),
    ] {
        for rows in ROW_COUNTS {
            let label = format!("{name}/rows={rows}");
            suite.stateless(
                &format!("arrow_to_rows/{label}"),
                || changelog(rows, shape),
                Rows::encode,
                check_rows,
            );
            suite.stateless(
                &format!("rows_to_arrow/{label}"),
                || Rows::encode(&changelog(rows, shape)),
                |encoded| {
                    rows_to_changelog(&encoded.data, &encoded.offsets, &encoded.input.types)
                        .expect("rows to Arrow")
                },
                |encoded, decoded| check_batch(&encoded.input, decoded),
            );
        }
    }
    suite.finish();
}

/// Which schema a family uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Narrow,
    Wide,
    Nested,
}

const NARROW_WIDTH: usize = 8;
const WIDE_WIDTH: usize = 264;

fn kind(row: usize) -> RowKind {
    RowKind::ALL[row % 4]
}

/// A changelog batch of fixture columns and their declared types.
struct Input {
    types: Vec<LogicalType>,
    batch: ChangelogBatch,
}

impl ArrowBuffers for Input {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.batch.collect_arrays(out);
    }
}

fn changelog(rows: usize, shape: Shape) -> Input {
    let nulls = |c: usize| {
        NullPattern::RowColumn {
            column: 0,
            modulus: 13,
        }
        .for_column(c)
    };
    if shape == Shape::Nested {
        return input(nested_columns(rows, nulls), rows);
    }
    let wide = shape == Shape::Wide;
    let mut columns: Vec<(LogicalType, ArrayRef)> = vec![
        (
            LogicalType::BigInt,
            Arc::new(fixtures::int64(rows, nulls(0))),
        ),
        (LogicalType::Int, Arc::new(fixtures::int32(rows, nulls(1)))),
        (
            LogicalType::VarChar(i32::MAX as u32),
            Arc::new(fixtures::utf8(rows, NARROW_WIDTH, nulls(2))),
        ),
    ];
    if wide {
        columns.extend([
            (
                LogicalType::Decimal {
                    precision: 38,
                    scale: 10,
                },
                Arc::new(fixtures::decimal128(rows, 38, 10, nulls(3))) as ArrayRef,
            ),
            (
                LogicalType::Timestamp(9),
                fixtures::timestamps(rows, TimeUnit::Nanosecond, nulls(4)),
            ),
            (
                LogicalType::VarChar(i32::MAX as u32),
                Arc::new(fixtures::utf8(rows, WIDE_WIDTH, nulls(5))),
            ),
            (
                LogicalType::VarBinary(i32::MAX as u32),
                Arc::new(fixtures::binary(rows, PAYLOAD_WIDTH, nulls(6))),
            ),
        ]);
    }
    input(columns, rows)
}

fn input(columns: Vec<(LogicalType, ArrayRef)>, rows: usize) -> Input {
    let (types, columns): (Vec<LogicalType>, Vec<ArrayRef>) = columns.into_iter().unzip();
    let schema = RowReader::new(types.clone()).schema().clone();
    let batch = RecordBatch::try_new(schema, columns).expect("fixture batch");
    let kinds = Int8Array::from_iter_values((0..rows).map(|r| kind(r).to_byte()));
    let batch = ChangelogBatch::try_new(batch, Some(kinds)).expect("changelog batch");
    Input { types, batch }
}

/// A list column of type `t` from per-row lists (`None` for NULL) over `values`.
fn list_column(t: &LogicalType, lists: &[Option<usize>], values: ArrayRef) -> ArrayRef {
    let DataType::List(field) = t.to_arrow() else {
        unreachable!("ARRAY and MAP are lists");
    };
    let offsets = OffsetBuffer::from_lengths(lists.iter().map(|l| l.unwrap_or(0)));
    let nulls = NullBuffer::from(lists.iter().map(Option::is_some).collect::<Vec<_>>());
    Arc::new(ListArray::new(field, offsets, values, Some(nulls)))
}

/// ARRAY<BIGINT>, ARRAY<STRING>, MAP<STRING, BIGINT>: list lengths 0 to 4, NULL lists by the
/// usual pattern, NULL elements and values every few, inline (<= 7 bytes) and long strings.
fn nested_columns(
    rows: usize,
    nulls: impl Fn(usize) -> NullPattern,
) -> Vec<(LogicalType, ArrayRef)> {
    let types: Vec<LogicalType> = ["ARRAY<BIGINT>", "ARRAY<STRING>", "MAP<STRING, BIGINT>"]
        .iter()
        .map(|t| t.parse().expect("nested type"))
        .collect();
    let lens = |c: usize, modulus: usize| -> Vec<Option<usize>> {
        (0..rows)
            .map(|r| (!nulls(c).is_null(r)).then_some((r + c) % modulus))
            .collect()
    };
    let elements = |lens: &[Option<usize>]| -> Vec<(usize, usize)> {
        lens.iter()
            .enumerate()
            .flat_map(|(r, l)| (0..l.unwrap_or(0)).map(move |j| (r, j)))
            .collect()
    };
    let string = |r: usize, j: usize| {
        if j.is_multiple_of(2) {
            format!("e{r}")
        } else {
            format!("element {r}/{j} of a string array")
        }
    };
    let longs_lens = lens(0, 5);
    let longs: Int64Array = elements(&longs_lens)
        .into_iter()
        .map(|(r, j)| ((r + j) % 7 != 3).then(|| fixtures::mix(r as u64, j as u64) as i64))
        .collect();
    let strings_lens = lens(1, 4);
    let strings: StringArray = elements(&strings_lens)
        .into_iter()
        .map(|(r, j)| ((r + j) % 5 != 2).then(|| string(r, j)))
        .collect();
    let map_lens = lens(2, 3);
    let (keys, values): (Vec<_>, Vec<_>) = elements(&map_lens)
        .into_iter()
        .map(|(r, j)| {
            let key = if j == 1 {
                format!("a longer key {r}")
            } else {
                format!("key-{j}")
            };
            (
                Some(key),
                ((r + j) % 4 != 1).then_some(r as i64 * 31 + j as i64),
            )
        })
        .unzip();
    let LogicalType::Map(k, v) = &types[2] else {
        unreachable!("a MAP");
    };
    let entries = StructArray::new(
        map_entry_fields(k, v),
        vec![
            Arc::new(StringArray::from(keys)) as ArrayRef,
            Arc::new(Int64Array::from(values)),
        ],
        None,
    );
    vec![
        (
            types[0].clone(),
            list_column(&types[0], &longs_lens, Arc::new(longs)),
        ),
        (
            types[1].clone(),
            list_column(&types[1], &strings_lens, Arc::new(strings)),
        ),
        (
            types[2].clone(),
            list_column(&types[2], &map_lens, Arc::new(entries)),
        ),
    ]
}

/// Rows as Flink hands them over, with the batch they were written from.
struct Rows {
    data: Vec<u8>,
    offsets: Vec<i32>,
    input: Input,
}

impl Rows {
    fn encode(input: &Input) -> Rows {
        let (data, offsets) = changelog_to_rows(&input.batch, &input.types).expect("Arrow to rows");
        Rows {
            data,
            offsets,
            input: Input {
                types: input.types.clone(),
                batch: input.batch.clone(),
            },
        }
    }
}

impl ArrowBuffers for Rows {
    // Row bytes are not Arrow buffers.
    fn collect_arrays(&self, _out: &mut Vec<ArrayData>) {}
}

fn word(bytes: &[u8], at: usize) -> Result<u64, String> {
    bytes
        .get(at..at + 8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .ok_or_else(|| format!("no 8-byte word at {at} of a {}-byte row", bytes.len()))
}

/// `len` bytes at `offset` of `row`, which must be followed by zero padding to 8 bytes.
fn var(row: &[u8], offset: usize, len: usize, reserved: usize) -> Result<&[u8], String> {
    let end = offset + len.max(reserved).next_multiple_of(8);
    let region = row.get(offset..end).ok_or_else(|| {
        format!(
            "{len} bytes at {offset} run past the {}-byte row",
            row.len()
        )
    })?;
    if region[len..].iter().any(|&b| b != 0) {
        return Err(format!("padding after {len} bytes at {offset} is not zero"));
    }
    Ok(&region[..len])
}

/// Checks one row against the fixture values, reading the layout independently of the
/// engine (arity < 57, so the null bits are one word).
fn check_row(input: &Input, r: usize, row: &[u8]) -> Verdict {
    expect_eq("header", &row[0], &(kind(r).to_byte() as u8))?;
    let mut end = 8 + 8 * input.types.len();
    for (f, (t, column)) in input
        .types
        .iter()
        .zip(input.batch.batch().columns())
        .enumerate()
    {
        let at = 8 + 8 * f;
        let slot = word(row, at)?;
        let null = row[(f + 8) / 8] >> ((f + 8) % 8) & 1 == 1;
        expect_eq(&format!("NULL bit of field {f}"), &null, &column.is_null(r))?;
        let what = format!("field {f} ({t})");
        match t {
            LogicalType::BigInt => {
                let want = if null {
                    0
                } else {
                    column.as_primitive::<Int64Type>().value(r)
                };
                expect_eq(&what, &(slot as i64), &want)?;
            }
            LogicalType::Int => {
                let want = if null {
                    0
                } else {
                    column.as_primitive::<Int32Type>().value(r)
                };
                expect_eq(&what, &slot, &u64::from(want as u32))?;
            }
            LogicalType::VarChar(_) | LogicalType::VarBinary(_) if null => {
                expect_eq(&what, &slot, &0)?;
            }
            LogicalType::VarChar(_) | LogicalType::VarBinary(_) => {
                let want: &[u8] = match column.as_string_opt::<i32>() {
                    Some(strings) => strings.value(r).as_bytes(),
                    None => column.as_binary::<i32>().value(r),
                };
                if want.len() <= 7 {
                    let mut inline = [0u8; 8];
                    inline[..want.len()].copy_from_slice(want);
                    inline[7] = 0x80 | want.len() as u8;
                    expect_eq(&what, &slot, &u64::from_le_bytes(inline))?;
                } else {
                    expect_eq(&what, &slot, &(((end as u64) << 32) | want.len() as u64))?;
                    expect_eq(&what, &var(row, end, want.len(), 0)?, &want)?;
                    end += want.len().next_multiple_of(8);
                }
            }
            LogicalType::Decimal { .. } => {
                let len = (slot & 0xffff_ffff) as usize;
                expect_eq(&format!("{what} offset"), &(slot >> 32), &(end as u64))?;
                let bytes = var(row, end, len, 16)?;
                if null {
                    expect_eq(&what, &len, &0)?;
                } else {
                    // BigInteger.toByteArray(): minimal big-endian two's complement.
                    let want = column.as_primitive::<Decimal128Type>().value(r);
                    let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
                    let mut full = [fill; 16];
                    full[16 - len..].copy_from_slice(bytes);
                    expect_eq(&what, &i128::from_be_bytes(full), &want)?;
                    let redundant =
                        len > 1 && bytes[0] == fill && (bytes[1] & 0x80) == (fill & 0x80);
                    expect_eq(&format!("{what} minimal"), &redundant, &false)?;
                }
                end += 16;
            }
            LogicalType::Timestamp(_) => {
                expect_eq(&format!("{what} offset"), &(slot >> 32), &(end as u64))?;
                let nanos = slot & 0xffff_ffff;
                let millis = i64::from_le_bytes(var(row, end, 8, 8)?.try_into().expect("8"));
                if null {
                    expect_eq(&what, &(millis, nanos), &(0, 0))?;
                } else {
                    let want = column
                        .as_any()
                        .downcast_ref::<TimestampNanosecondArray>()
                        .ok_or("TIMESTAMP(9) fixture is not in nanoseconds")?
                        .value(r);
                    let got = i128::from(millis) * 1_000_000 + i128::from(nanos);
                    expect_eq(&what, &got, &i128::from(want))?;
                    expect_eq(
                        &format!("{what} nanoOfMillisecond < 10^6"),
                        &(nanos < 1_000_000),
                        &true,
                    )?;
                }
                end += 8;
            }
            LogicalType::Array(_) | LogicalType::Map(..) if null => {
                expect_eq(&what, &slot, &0)?;
            }
            LogicalType::Array(_) | LogicalType::Map(..) => {
                let size = (slot & 0xffff_ffff) as usize;
                expect_eq(&format!("{what} offset"), &(slot >> 32), &(end as u64))?;
                let bytes = var(row, end, size, 0)?;
                let value = column.as_list::<i32>().value(r);
                let checked = if let Some(entries) = value.as_struct_opt() {
                    // BinaryMapData: key-array size, key array, value array.
                    let key_size = i32::from_le_bytes(bytes[..4].try_into().expect("4"));
                    let keys = check_array(&bytes[4..], entries.column(0).as_ref())
                        .map_err(|e| format!("{what} keys: {e}"))?;
                    expect_eq(
                        &format!("{what} key-array size"),
                        &(key_size as usize),
                        &keys,
                    )?;
                    let values = check_array(&bytes[4 + keys..], entries.column(1).as_ref())
                        .map_err(|e| format!("{what} values: {e}"))?;
                    4 + keys + values
                } else {
                    check_array(bytes, value.as_ref()).map_err(|e| format!("{what}: {e}"))?
                };
                expect_eq(&format!("{what} size"), &size, &checked)?;
                end += size.next_multiple_of(8);
            }
            other => return Err(format!("the oracle does not cover {other}")),
        }
    }
    expect_eq("row length", &row.len(), &end)
}

/// Checks the `BinaryArrayData` at the start of `bytes` against `values` (BIGINT or STRING
/// elements, 8-byte slots), reading the layout independently: the count, null bits in 4-byte
/// words, the slots rounded to 8 bytes, then long strings relative to the array start.
/// Returns the array's length.
fn check_array(bytes: &[u8], values: &dyn Array) -> Result<usize, String> {
    let n = values.len();
    let count = bytes.get(..4).ok_or("no element count")?;
    expect_eq(
        "element count",
        &i32::from_le_bytes(count.try_into().expect("4")),
        &(n as i32),
    )?;
    let header = 4 + n.div_ceil(32) * 4;
    let mut end = (header + 8 * n).next_multiple_of(8);
    for j in 0..n {
        let null = bytes.get(4 + j / 8).ok_or("no null bits")? >> (j % 8) & 1 == 1;
        expect_eq(
            &format!("NULL bit of element {j}"),
            &null,
            &values.is_null(j),
        )?;
        let slot = word(bytes, header + 8 * j)?;
        let what = format!("element {j}");
        if null {
            expect_eq(&what, &slot, &0)?;
            continue;
        }
        match values.data_type() {
            DataType::Int64 => expect_eq(
                &what,
                &(slot as i64),
                &values.as_primitive::<Int64Type>().value(j),
            )?,
            DataType::Utf8 => {
                let want = values.as_string::<i32>().value(j).as_bytes();
                if want.len() <= 7 {
                    let mut inline = [0u8; 8];
                    inline[..want.len()].copy_from_slice(want);
                    inline[7] = 0x80 | want.len() as u8;
                    expect_eq(&what, &slot, &u64::from_le_bytes(inline))?;
                } else {
                    expect_eq(&what, &slot, &(((end as u64) << 32) | want.len() as u64))?;
                    expect_eq(&what, &var(bytes, end, want.len(), 0)?, &want)?;
                    end += want.len().next_multiple_of(8);
                }
            }
            other => return Err(format!("the oracle does not cover elements of {other}")),
        }
    }
    Ok(end)
}

fn check_rows(input: &Input, encoded: &Rows) -> Verdict {
    let rows = input.batch.num_rows();
    expect_eq("offsets", &encoded.offsets.len(), &(rows + 1))?;
    expect_eq("first offset", &encoded.offsets[0], &0)?;
    expect_eq(
        "data length",
        &(encoded.data.len() as i32),
        &encoded.offsets[rows],
    )?;
    for r in 0..rows {
        let (start, end) = (encoded.offsets[r] as usize, encoded.offsets[r + 1] as usize);
        let row = encoded
            .data
            .get(start..end)
            .ok_or_else(|| format!("row {r} spans {start}..{end}"))?;
        check_row(input, r, row).map_err(|e| format!("row {r}: {e}"))?;
    }
    Ok(())
}

fn check_batch(input: &Input, decoded: &ChangelogBatch) -> Verdict {
    let source = input.batch.batch();
    expect_eq("rows", &decoded.num_rows(), &source.num_rows())?;
    expect_eq("schema", decoded.batch().schema_ref(), source.schema_ref())?;
    for (i, (got, want)) in decoded
        .batch()
        .columns()
        .iter()
        .zip(source.columns())
        .enumerate()
    {
        if got.to_data() != want.to_data() {
            return Err(format!(
                "column {i} ({}) differs from the fixture",
                input.types[i]
            ));
        }
    }
    for r in 0..decoded.num_rows() {
        expect_eq(&format!("kind of row {r}"), &decoded.kind(r), &kind(r))?;
    }
    Ok(())
}
