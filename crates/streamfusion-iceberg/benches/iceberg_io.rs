//! The `iceberg_io` suite: the production Iceberg data-file writer, routing and task reader.
//!
//! Fixtures are bench-support's mixed batch (row id, INT, DECIMAL(18, 2), TIMESTAMP(9),
//! VARCHAR of 8/264/4,096 bytes, VARBINARY; value columns NULL where `(row + column) % 13 ==
//! 0`) under fresh field IDs, at 16/1,024/16,384 rows. Fixture construction and the oracles run
//! before timing (bench-support's runner).
//!
//! - `write/rows=R/width=W/selection=contiguous|sparse`: from a batch of 2R rows, the rows one
//!   writer receives (a run: zero-copy slice; every other row: gathered) are selected, written
//!   by a new `DataFileWriter` into iceberg's memory storage and closed into a `DataFile`.
//!   Timed: selection, writer construction, batch check, encoding, statistics, the
//!   retained-memory estimate, footer and publication. Oracle: stock parquet-rs reads the
//!   published file back and every value and NULL equals the selected input rows (selected
//!   with Arrow's `take`, independently of the production selection); record count and NULL
//!   counts of the `DataFile` equal the input's.
//! - `peer/rows=R/width=W`: plain parquet-rs `ArrowWriter` with the same properties writing
//!   the same contiguous rows into a `Vec` (no field-ID check, statistics or publication).
//!   The 1.2x goal compares `write/...selection=contiguous` with this.
//! - `route/rows=R/width=W/destinations=1|4|128/spread=runs|interleaved`: the production split
//!   of one batch into per-destination parts. Oracle: every row in exactly its destination's
//!   part, input order kept, a part is a zero-copy slice exactly when its rows are one run.
//! - `read/rows=R/width=W/projection=full|single/batch=16|1024`: the production task reader
//!   (iceberg-rust's `ArrowReader` on the thread's runtime, plus our adaptation) reading a
//!   file the writer put in memory storage before timing. Timed: reader construction, footer,
//!   decode, projection, adaptation, collecting every batch, teardown. Oracle: the batches,
//!   concatenated, equal the projected input columns, values and NULLs; no batch is larger
//!   than the batch size.

use std::sync::Arc;

use arrow::array::{Array, AsArray, RecordBatch, UInt32Array};
use arrow::datatypes::Int64Type;
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures;
use bench_support::{Suite, Verdict, expect_eq};
use bytes::Bytes;
use iceberg::io::FileIO;
use iceberg::spec::Schema;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use streamfusion_bridge::partition::SplitKind;
use streamfusion_iceberg::bench::{Routed, Selection, Spread, Written, table_batch};
use streamfusion_iceberg::data_file_writer::{
    DataFileWriter, PartitionValue, Sink, default_properties,
};
use streamfusion_iceberg::routing;
use streamfusion_iceberg::task_reader::TaskReader;

bench_support::counting_allocator!();

const DESTINATIONS: [usize; 3] = [1, 4, 128];
const LOCATION: &str = "memory:///bench/data.parquet";

struct WriteInput {
    file_io: FileIO,
    schema: Arc<Schema>,
    batch: RecordBatch,
    rows: UInt32Array,
}

impl ArrowBuffers for WriteInput {
    fn collect_arrays(&self, out: &mut Vec<arrow::array::ArrayData>) {
        self.batch.collect_arrays(out);
    }
}

struct RouteInput {
    batch: RecordBatch,
    destinations: UInt32Array,
    count: usize,
}

impl ArrowBuffers for RouteInput {
    fn collect_arrays(&self, out: &mut Vec<arrow::array::ArrayData>) {
        self.batch.collect_arrays(out);
    }
}

struct ReadInput {
    file_io: FileIO,
    schema: Arc<Schema>,
    batch: RecordBatch,
    size: u64,
    /// Top-level field IDs to read.
    projection: Vec<i32>,
    batch_size: usize,
}

impl ArrowBuffers for ReadInput {
    fn collect_arrays(&self, out: &mut Vec<arrow::array::ArrayData>) {
        self.batch.collect_arrays(out);
    }
}

struct PeerOutput(Bytes);

impl ArrowBuffers for PeerOutput {
    fn collect_arrays(&self, _out: &mut Vec<arrow::array::ArrayData>) {}
}

fn main() {
    let mut suite = Suite::new("iceberg_io");
    for rows in fixtures::ROW_COUNTS {
        for width in fixtures::STRING_WIDTHS {
            for selection in [Selection::Contiguous, Selection::Sparse] {
                let name = match selection {
                    Selection::Contiguous => "contiguous",
                    Selection::Sparse => "sparse",
                };
                suite.stateless(
                    &format!("write/rows={rows}/width={width}/selection={name}"),
                    || write_input(rows, width, selection),
                    write,
                    check_write,
                );
            }
            suite.stateless(
                &format!("peer/rows={rows}/width={width}"),
                || write_input(rows, width, Selection::Contiguous),
                peer,
                check_peer,
            );
            for count in DESTINATIONS {
                for (spread, name) in [(Spread::Runs, "runs"), (Spread::Interleaved, "interleaved")]
                {
                    suite.stateless(
                        &format!(
                            "route/rows={rows}/width={width}/destinations={count}/spread={name}"
                        ),
                        || {
                            let (_, batch) = table_batch(rows, width);
                            RouteInput {
                                destinations: spread.destinations(rows, count),
                                batch,
                                count,
                            }
                        },
                        |input| {
                            Routed(
                                routing::split(&input.batch, &input.destinations, input.count)
                                    .expect("route"),
                            )
                        },
                        check_route,
                    );
                }
            }
        }
    }
    for rows in fixtures::ROW_COUNTS {
        for width in fixtures::STRING_WIDTHS {
            for (projection, name) in [(Projection::Full, "full"), (Projection::Single, "single")] {
                for batch_size in READ_BATCH_SIZES {
                    suite.stateless(
                        &format!(
                            "read/rows={rows}/width={width}/projection={name}/batch={batch_size}"
                        ),
                        || read_input(rows, width, projection, batch_size),
                        read,
                        check_read,
                    );
                }
            }
        }
    }
    suite.finish();
}

const READ_BATCH_SIZES: [usize; 2] = [16, 1_024];

#[derive(Clone, Copy)]
enum Projection {
    /// Every column.
    Full,
    /// The VARCHAR column alone.
    Single,
}

fn read_input(rows: usize, width: usize, projection: Projection, batch_size: usize) -> ReadInput {
    let (schema, batch) = table_batch(rows, width);
    let file_io = FileIO::new_with_memory();
    let mut writer = DataFileWriter::try_new(
        &file_io,
        LOCATION,
        Arc::clone(&schema),
        PartitionValue::unpartitioned(),
        default_properties(),
        Sink::Buffered,
    )
    .expect("fixture writer");
    writer.write(&batch).expect("fixture write");
    let file = writer
        .close()
        .expect("fixture close")
        .expect("a fixture file");
    let projection = match projection {
        Projection::Full => schema.as_struct().fields().iter().map(|f| f.id).collect(),
        Projection::Single => {
            vec![
                schema
                    .field_by_name("name")
                    .expect("the fixture's VARCHAR")
                    .id,
            ]
        }
    };
    ReadInput {
        file_io,
        schema,
        batch,
        size: file.file_size_in_bytes(),
        projection,
        batch_size,
    }
}

fn read(input: &ReadInput) -> Vec<RecordBatch> {
    TaskReader::new(
        input.file_io.clone(),
        Arc::clone(&input.schema),
        LOCATION,
        input.size,
        input.projection.clone(),
    )
    .with_batch_size(input.batch_size)
    .read()
    .expect("read")
    .collect::<Result<_, _>>()
    .expect("batches")
}

fn check_read(input: &ReadInput, out: &Vec<RecordBatch>) -> Verdict {
    if let Some(big) = out.iter().find(|b| b.num_rows() > input.batch_size) {
        return Err(format!("a batch of {} rows", big.num_rows()));
    }
    let schema = out.first().map(|b| b.schema()).ok_or("no batches")?;
    let all = arrow::compute::concat_batches(&schema, out).map_err(|e| e.to_string())?;
    // The oracle: the input's columns with the projected IDs (fixture IDs are 1..=columns).
    let columns: Vec<usize> = input.projection.iter().map(|&id| id as usize - 1).collect();
    let expected = input.batch.project(&columns).map_err(|e| e.to_string())?;
    same_values(&all, &expected)
}

fn write_input(rows: usize, width: usize, selection: Selection) -> WriteInput {
    let (schema, batch) = table_batch(2 * rows + fixtures::SLICE_OFFSET, width);
    WriteInput {
        file_io: FileIO::new_with_memory(),
        schema,
        rows: selection.rows(2 * rows),
        batch,
    }
}

fn write(input: &WriteInput) -> Written {
    let (part, _) = routing::select(&input.batch, &input.rows).expect("select");
    let mut writer = DataFileWriter::try_new(
        &input.file_io,
        LOCATION,
        Arc::clone(&input.schema),
        PartitionValue::unpartitioned(),
        default_properties(),
        Sink::Buffered,
    )
    .expect("writer");
    writer.write(&part).expect("write");
    let retained_bytes = writer.retained_bytes();
    Written {
        file: writer.close().expect("close"),
        retained_bytes,
    }
}

fn peer(input: &WriteInput) -> PeerOutput {
    let part = input
        .batch
        .slice(input.rows.value(0) as usize, input.rows.len());
    let mut writer = ArrowWriter::try_new(Vec::new(), part.schema(), Some(default_properties()))
        .expect("peer writer");
    writer.write(&part).expect("peer write");
    PeerOutput(Bytes::from(writer.into_inner().expect("peer close")))
}

/// The rows the writer should have received, by Arrow's `take` (not the production select).
fn expected_rows(input: &WriteInput) -> RecordBatch {
    arrow::compute::take_record_batch(&input.batch, &input.rows).expect("take")
}

fn read_back(bytes: Bytes) -> Result<RecordBatch, String> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .and_then(|b| b.build())
        .map_err(|e| e.to_string())?;
    let batches: Vec<RecordBatch> = reader
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let schema = batches
        .first()
        .map(|b| b.schema())
        .ok_or("the file has no batches")?;
    arrow::compute::concat_batches(&schema, &batches).map_err(|e| e.to_string())
}

fn same_values(actual: &RecordBatch, expected: &RecordBatch) -> Verdict {
    expect_eq("rows", &actual.num_rows(), &expected.num_rows())?;
    expect_eq("columns", &actual.num_columns(), &expected.num_columns())?;
    for (c, (a, e)) in actual.columns().iter().zip(expected.columns()).enumerate() {
        // The file holds TIMESTAMP(9) as Iceberg's timestamp_ns and VARBINARY as large binary;
        // compare values through a common type.
        let a = arrow::compute::cast(a, e.data_type()).map_err(|err| err.to_string())?;
        if a.to_data() != e.to_data() {
            return Err(format!("column {c} differs from the input"));
        }
    }
    Ok(())
}

fn check_write(input: &WriteInput, out: &Written) -> Verdict {
    let file = out
        .file
        .as_ref()
        .ok_or("no data file for a non-empty selection")?;
    let expected = expected_rows(input);
    expect_eq(
        "record count",
        &file.record_count(),
        &(expected.num_rows() as u64),
    )?;
    for (c, column) in expected.columns().iter().enumerate() {
        let id = (c + 1) as i32;
        let nulls = file.null_value_counts().get(&id).copied().unwrap_or(0);
        expect_eq(
            &format!("NULLs of field {id}"),
            &nulls,
            &(column.null_count() as u64),
        )?;
    }
    if out.retained_bytes == 0 {
        return Err("an open writer with rows retains no memory".into());
    }
    let bytes = futures::executor::block_on(async {
        input.file_io.new_input(file.file_path())?.read().await
    })
    .map_err(|e| e.to_string())?;
    expect_eq(
        "file size",
        &file.file_size_in_bytes(),
        &(bytes.len() as u64),
    )?;
    same_values(&read_back(bytes)?, &expected)
}

fn check_peer(input: &WriteInput, out: &PeerOutput) -> Verdict {
    same_values(&read_back(out.0.clone())?, &expected_rows(input))
}

fn check_route(input: &RouteInput, out: &Routed) -> Verdict {
    expect_eq("parts", &out.0.len(), &input.count)?;
    let mut seen = vec![false; input.batch.num_rows()];
    for (d, (part, kind)) in out.0.iter().enumerate() {
        let ids = part.column(0).as_primitive::<Int64Type>().values();
        let want: Vec<i64> = (0..input.batch.num_rows())
            .filter(|&r| input.destinations.value(r) as usize == d)
            .map(|r| r as i64)
            .collect();
        if ids.as_ref() != want.as_slice() {
            return Err(format!(
                "destination {d} got other rows or lost their order"
            ));
        }
        for &id in ids.iter() {
            seen[id as usize] = true;
        }
        let want_kind = match want.len() {
            0 => SplitKind::Empty,
            n if (want[n - 1] - want[0]) as usize + 1 == n => SplitKind::Slice,
            _ => SplitKind::Gathered,
        };
        expect_eq(&format!("kind of destination {d}"), kind, &want_kind)?;
        let rows = UInt32Array::from_iter_values(want.iter().map(|&r| r as u32));
        let expected =
            arrow::compute::take_record_batch(&input.batch, &rows).map_err(|e| e.to_string())?;
        for c in 0..expected.num_columns() {
            if part.column(c).to_data() != expected.column(c).to_data() {
                return Err(format!("destination {d} column {c} differs"));
            }
        }
    }
    if let Some(row) = seen.iter().position(|s| !s) {
        return Err(format!("row {row} reached no destination"));
    }
    Ok(())
}
