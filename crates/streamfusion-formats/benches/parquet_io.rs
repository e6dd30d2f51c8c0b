//! The `parquet_io` suite ("Parquet file operations"): Flink-layout Parquet encode and
//! decode through the production [`FlinkParquetWriter`] and [`FlinkParquetReader`], with
//! plain parquet-rs (`ArrowWriter`, `ParquetRecordBatchReader`) on the same batches as the
//! peer.
//!
//! Cases, each at 16 / 1,024 / 16,384 rows:
//! - `encode/production`: bench-support's mixed batch (BIGINT row id, INT, DECIMAL(18, 2),
//!   TIMESTAMP(9) as INT96, 264-byte VARCHAR, VARBINARY; NULLs in the value columns) into an
//!   in-memory file, SNAPPY, `utc-timezone = true`. `encode/peer-arrow-writer`: the same
//!   batch through `ArrowWriter` (INT64 timestamps).
//! - `encode/selected`: every third row selected (`filter_record_batch`) and encoded.
//! - `encode/wide-strings`: a nullable 264-byte VARCHAR column with the row id.
//! - `encode/full-range-timestamps`: TIMESTAMP(3) from year 1 to 9999 as INT96.
//! - `decode/ordinary` and `decode/peer-reader`: the mixed batch's file (INT64 nanosecond
//!   timestamps) decoded from memory in 1,024-row batches.
//! - `decode/int96/batch=<17|1024>` and `decode/int64/batch=<17|1024>`: the same rows (row
//!   id + nullable TIMESTAMP(9)) stored as canonical INT96 (written by parquet-rs's
//!   low-level writer, non-negative nanoseconds of the day) or as INT64 nanoseconds.
//!
//! Oracles (before timing): encoded files are read back by plain parquet-rs and compared
//! with the fixture column by column; INT96 values are compared, raw, with Julian day and
//! nanoseconds of the day computed from the fixture in i128 (Flink's truncating
//! arithmetic); decoded batches equal the fixture's columns.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BooleanArray, Int64Array, RecordBatch, RecordBatchReader,
    TimestampMillisecondArray, TimestampNanosecondArray,
};
use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{self, NullPattern};
use bench_support::{Suite, Verdict, expect_eq};
use bytes::Bytes;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::column::reader::ColumnReader;
use parquet::data_type::Int96Type;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use streamfusion_core::types::{LogicalType, RowField};
use streamfusion_formats::parquet::{
    FlinkParquetReader, FlinkParquetWriter, MemoryFile, ParquetReadOptions, ParquetWriteOptions,
    TimestampUnit,
};

bench_support::counting_allocator!();

const WIDTH: usize = 264;

/// Encoded file bytes.
struct Encoded(Vec<u8>);

impl ArrowBuffers for Encoded {
    fn collect_arrays(&self, _out: &mut Vec<arrow::array::ArrayData>) {}
}

/// A file to decode and the row type and fixture it was made from.
struct DecodeInput {
    bytes: Bytes,
    fields: Vec<RowField>,
    expected: RecordBatch,
    batch_size: usize,
}

impl ArrowBuffers for DecodeInput {
    fn collect_arrays(&self, out: &mut Vec<arrow::array::ArrayData>) {
        self.expected.collect_arrays(out);
    }
}

struct EncodeInput {
    batch: RecordBatch,
    fields: Vec<RowField>,
    options: ParquetWriteOptions,
}

impl ArrowBuffers for EncodeInput {
    fn collect_arrays(&self, out: &mut Vec<arrow::array::ArrayData>) {
        self.batch.collect_arrays(out);
    }
}

fn main() {
    let mut suite = Suite::new("parquet_io");
    for rows in fixtures::ROW_COUNTS {
        suite.stateless(
            &format!("encode/production/rows={rows}"),
            || encode_input(mixed(rows), ParquetWriteOptions::utc()),
            encode,
            |input, out| check_encoded(&input.batch, out),
        );
        suite.stateless(
            &format!("encode/peer-arrow-writer/rows={rows}"),
            || mixed(rows),
            |batch| {
                let mut out = Vec::new();
                let props = WriterProperties::builder()
                    .set_compression(Compression::SNAPPY)
                    .build();
                let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props))
                    .expect("peer writer");
                writer.write(batch).expect("peer write");
                writer.close().expect("peer close");
                Encoded(out)
            },
            |batch, out| {
                expect_eq(
                    "peer rows",
                    &plain_read(&out.0).num_rows(),
                    &batch.num_rows(),
                )
            },
        );
        suite.stateless(
            &format!("encode/selected/rows={rows}"),
            || encode_input(mixed(rows), ParquetWriteOptions::utc()),
            |input| {
                let mask =
                    BooleanArray::from_iter((0..input.batch.num_rows()).map(|i| Some(i % 3 == 0)));
                let selected =
                    arrow::compute::filter_record_batch(&input.batch, &mask).expect("filter");
                let mut writer =
                    FlinkParquetWriter::try_new(&input.fields, Vec::new(), &input.options)
                        .expect("writer");
                writer.write(&selected).expect("write");
                Encoded(writer.close().expect("close"))
            },
            |input, out| {
                let ids: Vec<usize> = (0..input.batch.num_rows()).filter(|i| i % 3 == 0).collect();
                let indices =
                    arrow::array::UInt32Array::from_iter_values(ids.iter().map(|&i| i as u32));
                let expected = arrow::compute::take_record_batch(&input.batch, &indices)
                    .map_err(|e| e.to_string())?;
                check_encoded(&expected, out)
            },
        );
        suite.stateless(
            &format!("encode/wide-strings/rows={rows}"),
            || {
                let batch = two_columns(
                    Arc::new(fixtures::row_ids(rows)),
                    Arc::new(fixtures::utf8(
                        rows,
                        WIDTH,
                        NullPattern::RowColumn {
                            column: 0,
                            modulus: 7,
                        },
                    )),
                );
                encode_input(batch, ParquetWriteOptions::utc())
            },
            encode,
            |input, out| check_encoded(&input.batch, out),
        );
        suite.stateless(
            &format!("encode/full-range-timestamps/rows={rows}"),
            || {
                encode_input(
                    two_columns(
                        Arc::new(fixtures::row_ids(rows)),
                        Arc::new(full_range_millis(rows)),
                    ),
                    ParquetWriteOptions::utc(),
                )
            },
            encode,
            |input, out| check_encoded(&input.batch, out),
        );
        suite.stateless(
            &format!("decode/ordinary/rows={rows}"),
            || {
                let options = ParquetWriteOptions {
                    write_int64_timestamp: true,
                    timestamp_unit: TimestampUnit::Nanos,
                    ..ParquetWriteOptions::utc()
                };
                let input = encode_input(mixed(rows), options);
                let bytes = encode(&input).0;
                DecodeInput {
                    bytes: bytes.into(),
                    fields: input.fields,
                    expected: input.batch,
                    batch_size: 1024,
                }
            },
            decode,
            |input, out| check_decoded(input, out),
        );
        suite.stateless(
            &format!("decode/peer-reader/rows={rows}"),
            || {
                let options = ParquetWriteOptions {
                    write_int64_timestamp: true,
                    timestamp_unit: TimestampUnit::Nanos,
                    ..ParquetWriteOptions::utc()
                };
                let input = encode_input(mixed(rows), options);
                let bytes = encode(&input).0;
                DecodeInput {
                    bytes: bytes.into(),
                    fields: input.fields,
                    expected: input.batch,
                    batch_size: 1024,
                }
            },
            |input| {
                ParquetRecordBatchReaderBuilder::try_new(input.bytes.clone())
                    .expect("peer footer")
                    .with_batch_size(input.batch_size)
                    .build()
                    .expect("peer reader")
                    .collect::<Result<Vec<_>, _>>()
                    .expect("peer read")
            },
            |input, out| {
                let rows: usize = out.iter().map(RecordBatch::num_rows).sum();
                expect_eq("peer rows", &rows, &input.expected.num_rows())
            },
        );
        for batch_size in [17, 1024] {
            suite.stateless(
                &format!("decode/int96/batch={batch_size}/rows={rows}"),
                || {
                    let expected = timestamp_rows(rows);
                    DecodeInput {
                        bytes: canonical_int96_file(&expected).into(),
                        fields: timestamp_fields(),
                        expected,
                        batch_size,
                    }
                },
                decode,
                |input, out| check_decoded(input, out),
            );
            suite.stateless(
                &format!("decode/int64/batch={batch_size}/rows={rows}"),
                || {
                    let expected = timestamp_rows(rows);
                    let options = ParquetWriteOptions {
                        write_int64_timestamp: true,
                        timestamp_unit: TimestampUnit::Nanos,
                        ..ParquetWriteOptions::utc()
                    };
                    let input = EncodeInput {
                        batch: expected.clone(),
                        fields: timestamp_fields(),
                        options,
                    };
                    DecodeInput {
                        bytes: encode(&input).0.into(),
                        fields: timestamp_fields(),
                        expected,
                        batch_size,
                    }
                },
                decode,
                |input, out| check_decoded(input, out),
            );
        }
    }
    suite.finish();
}

fn mixed(rows: usize) -> RecordBatch {
    fixtures::batch(
        rows,
        WIDTH,
        NullPattern::RowColumn {
            column: 0,
            modulus: 13,
        },
    )
}

fn two_columns(a: ArrayRef, b: ArrayRef) -> RecordBatch {
    let schema = Schema::new(vec![
        Field::new("id", a.data_type().clone(), true),
        Field::new("v", b.data_type().clone(), true),
    ]);
    RecordBatch::try_new(Arc::new(schema), vec![a, b]).expect("two columns")
}

/// TIMESTAMP(3) spread from 0001-01-01 to 9999-12-31, NULL every 11th row.
fn full_range_millis(rows: usize) -> TimestampMillisecondArray {
    const FIRST: i64 = -62_135_596_800_000; // 0001-01-01T00:00:00
    const LAST: i64 = 253_402_300_799_999; // 9999-12-31T23:59:59.999
    let span = (LAST - FIRST) as i128;
    TimestampMillisecondArray::from_iter((0..rows).map(|i| {
        (i % 11 != 5).then(|| FIRST + (span * i as i128 / rows.max(2) as i128 - 1).max(0) as i64)
    }))
}

/// A row id and a nullable TIMESTAMP(9) (bench-support's values: pre-epoch, 1684, 2255).
fn timestamp_rows(rows: usize) -> RecordBatch {
    two_columns(
        Arc::new(fixtures::row_ids(rows)),
        fixtures::timestamps(
            rows,
            TimeUnit::Nanosecond,
            NullPattern::RowColumn {
                column: 0,
                modulus: 5,
            },
        ),
    )
}

fn timestamp_fields() -> Vec<RowField> {
    vec![
        RowField::new("id", LogicalType::BigInt),
        RowField::new("v", LogicalType::Timestamp(9)),
    ]
}

fn flink_type(dt: &DataType) -> LogicalType {
    match dt {
        DataType::Int64 => LogicalType::BigInt,
        DataType::Int32 => LogicalType::Int,
        DataType::Decimal128(p, s) => LogicalType::Decimal {
            precision: *p,
            scale: *s as u8,
        },
        DataType::Timestamp(TimeUnit::Millisecond, _) => LogicalType::Timestamp(3),
        DataType::Timestamp(_, _) => LogicalType::Timestamp(9),
        DataType::Utf8 => LogicalType::VarChar(i32::MAX as u32),
        DataType::Binary => LogicalType::VarBinary(i32::MAX as u32),
        other => panic!("no fixture type {other}"),
    }
}

fn encode_input(batch: RecordBatch, options: ParquetWriteOptions) -> EncodeInput {
    let fields = batch
        .schema()
        .fields()
        .iter()
        .map(|f| RowField::new(f.name().clone(), flink_type(f.data_type())))
        .collect();
    EncodeInput {
        batch,
        fields,
        options,
    }
}

fn encode(input: &EncodeInput) -> Encoded {
    let mut writer =
        FlinkParquetWriter::try_new(&input.fields, Vec::new(), &input.options).expect("writer");
    writer.write(&input.batch).expect("write");
    Encoded(writer.close().expect("close"))
}

fn decode(input: &DecodeInput) -> Vec<RecordBatch> {
    let options = ParquetReadOptions {
        batch_size: input.batch_size,
        ..ParquetReadOptions::utc()
    };
    FlinkParquetReader::try_new(
        MemoryFile::new(input.bytes.clone()),
        &input.fields,
        &options,
    )
    .expect("reader")
    .collect::<Result<Vec<_>, _>>()
    .expect("decode")
}

fn plain_read(bytes: &[u8]) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes.to_vec()))
        .expect("footer")
        .build()
        .expect("reader");
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>().expect("read");
    arrow::compute::concat_batches(&schema, &batches).expect("concat")
}

/// Flink's INT96 of a wall clock in epoch nanoseconds (truncating Java arithmetic, i128).
fn model_int96(nanos: i128) -> (i32, i64) {
    let millis = nanos.div_euclid(1_000_000);
    let nano_of_milli = nanos.rem_euclid(1_000_000);
    (
        (millis / 86_400_000 + 2_440_588) as i32,
        ((millis % 86_400_000) * 1_000_000 + nano_of_milli) as i64,
    )
}

fn raw_int96(bytes: &[u8], column: usize) -> Vec<(i32, i64)> {
    let reader = SerializedFileReader::new(Bytes::from(bytes.to_vec())).expect("footer");
    let mut out = Vec::new();
    for g in 0..reader.num_row_groups() {
        let Ok(ColumnReader::Int96ColumnReader(mut col)) = reader
            .get_row_group(g)
            .and_then(|r| r.get_column_reader(column))
        else {
            return out;
        };
        let (mut values, mut defs) = (Vec::new(), Vec::new());
        let _ = col.read_records(usize::MAX, Some(&mut defs), None, &mut values);
        out.extend(values.iter().map(|v| {
            (
                v.data()[2] as i32,
                (i64::from(v.data()[1]) << 32) | i64::from(v.data()[0]),
            )
        }));
    }
    out
}

fn check_encoded(expected: &RecordBatch, out: &Encoded) -> Verdict {
    let plain = plain_read(&out.0);
    expect_eq("rows", &plain.num_rows(), &expected.num_rows())?;
    for (i, field) in expected.schema().fields().iter().enumerate() {
        let ours = expected.column(i);
        if let DataType::Timestamp(unit, _) = field.data_type() {
            let per: i128 = match unit {
                TimeUnit::Second => 1_000_000_000,
                TimeUnit::Millisecond => 1_000_000,
                TimeUnit::Microsecond => 1_000,
                TimeUnit::Nanosecond => 1,
            };
            let values = arrow::compute::cast(ours, &DataType::Int64).map_err(|e| e.to_string())?;
            let values = values
                .as_any()
                .downcast_ref::<Int64Array>()
                .ok_or("int64")?;
            let model: Vec<(i32, i64)> = values
                .iter()
                .flatten()
                .map(|v| model_int96(i128::from(v) * per))
                .collect();
            expect_eq(
                &format!("INT96 of {}", field.name()),
                &raw_int96(&out.0, i),
                &model,
            )?;
            expect_eq(
                "timestamp nulls",
                &plain.column(i).logical_nulls(),
                &ours.logical_nulls(),
            )?;
        } else {
            let theirs = arrow::compute::cast(plain.column(i), ours.data_type())
                .map_err(|e| e.to_string())?;
            if theirs.as_ref() != ours.as_ref() {
                return Err(format!(
                    "column {} differs after plain parquet-rs read-back",
                    field.name()
                ));
            }
        }
    }
    Ok(())
}

fn check_decoded(input: &DecodeInput, out: &[RecordBatch]) -> Verdict {
    if out.iter().any(|b| b.num_rows() > input.batch_size) {
        return Err("a batch exceeds the batch size".into());
    }
    let rows: usize = out.iter().map(RecordBatch::num_rows).sum();
    expect_eq("rows", &rows, &input.expected.num_rows())?;
    for i in 0..input.expected.num_columns() {
        let parts: Vec<&dyn Array> = out.iter().map(|b| b.column(i).as_ref()).collect();
        let column = arrow::compute::concat(&parts).map_err(|e| e.to_string())?;
        if column.as_ref() != input.expected.column(i).as_ref() {
            return Err(format!("decoded column {i} differs from the fixture"));
        }
    }
    Ok(())
}

/// The timestamp rows as canonical INT96 (Julian day floored, nanoseconds of the day in
/// `0..86_400e9`), written by parquet-rs's low-level writer.
fn canonical_int96_file(batch: &RecordBatch) -> Vec<u8> {
    let schema = Arc::new(
        parquet::schema::parser::parse_message_type(
            "message flink_schema { optional int64 id; optional int96 v; }",
        )
        .expect("schema"),
    );
    let mut out = Vec::new();
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build(),
    );
    let mut writer = SerializedFileWriter::new(&mut out, schema, props).expect("writer");
    let mut group = writer.next_row_group().expect("row group");
    let ids = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .expect("ids");
    let mut column = group.next_column().expect("column").expect("id column");
    column
        .typed::<parquet::data_type::Int64Type>()
        .write_batch(ids.values(), Some(&vec![1; ids.len()]), None)
        .expect("ids");
    column.close().expect("close ids");
    let ts = batch
        .column(1)
        .as_any()
        .downcast_ref::<TimestampNanosecondArray>()
        .expect("ts");
    let defs: Vec<i16> = (0..ts.len()).map(|i| i16::from(ts.is_valid(i))).collect();
    let values: Vec<parquet::data_type::Int96> = ts
        .iter()
        .flatten()
        .map(|v| {
            let day = v.div_euclid(86_400_000_000_000) + 2_440_588;
            let nanos = v.rem_euclid(86_400_000_000_000) as u64;
            let mut out = parquet::data_type::Int96::new();
            out.set_data(nanos as u32, (nanos >> 32) as u32, day as u32);
            out
        })
        .collect();
    let mut column = group.next_column().expect("column").expect("ts column");
    column
        .typed::<Int96Type>()
        .write_batch(&values, Some(&defs), None)
        .expect("ts");
    column.close().expect("close ts");
    group.close().expect("close group");
    writer.close().expect("close file");
    out
}
