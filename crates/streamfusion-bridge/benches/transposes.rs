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
//! VARBINARY. Rows written are checked field by field by an independent reading of the
//! layout against the fixture values; batches read are compared with the fixture columns.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Int8Array, RecordBatch, TimestampNanosecondArray,
};
use arrow::datatypes::{Decimal128Type, Int32Type, Int64Type, TimeUnit};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{self, NullPattern, PAYLOAD_WIDTH, ROW_COUNTS};
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion::binary_row::RowReader;
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::types::LogicalType;
use streamfusion_bridge::transpose::{changelog_to_rows, rows_to_changelog};

bench_support::counting_allocator!();

fn main() {
    let mut suite = Suite::new("transposes");
    for (name, wide) in [("narrow", false), ("wide", true)] {
        for rows in ROW_COUNTS {
            let shape = format!("{name}/rows={rows}");
            suite.stateless(
                &format!("arrow_to_rows/{shape}"),
                || changelog(rows, wide),
                Rows::encode,
                check_rows,
            );
            suite.stateless(
                &format!("rows_to_arrow/{shape}"),
                || Rows::encode(&changelog(rows, wide)),
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

fn changelog(rows: usize, wide: bool) -> Input {
    let nulls = |c: usize| {
        NullPattern::RowColumn {
            column: 0,
            modulus: 13,
        }
        .for_column(c)
    };
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
    let (types, columns): (Vec<LogicalType>, Vec<ArrayRef>) = columns.into_iter().unzip();
    let schema = RowReader::new(types.clone()).schema().clone();
    let batch = RecordBatch::try_new(schema, columns).expect("fixture batch");
    let kinds = Int8Array::from_iter_values((0..rows).map(|r| kind(r).to_byte()));
    let batch = ChangelogBatch::try_new(batch, Some(kinds)).expect("changelog batch");
    Input { types, batch }
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
            other => return Err(format!("the oracle does not cover {other}")),
        }
    }
    expect_eq("row length", &row.len(), &end)
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
