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
//! - `scalar/write/rows=R` and `scalar/read/rows=R`: a scalar table (FLOAT/DOUBLE with NaN,
//!   infinities and signed zeros, DECIMAL(38, 10) over its range, TIME, TIMESTAMP and
//!   TIMESTAMP_LTZ) written from Flink's representations (milliseconds, `UTC` label: the
//!   writer converts) and read back into them (`read_adapt::to_flink`: TIME in milliseconds,
//!   timestamps as Flink's components). Oracle: hand conversions of the input (x1,000 for
//!   micros, bit-equal floats, equal decimals).
//! - `filter/rows=R`: the scalar file read with `d IN (0.0, NaN)` applied after the read with
//!   Flink 2.3.0's semantics. Oracle: exactly the rows whose value is +0.0 or any NaN.
//! - `task/rows=R/width=W/kind=predicate_away|partition_constant|legacy_renamed`: a filter on a
//!   column not projected (`v > 0`, only `name` read); an identity-partition column absent
//!   from the file; a legacy file without field IDs whose columns were renamed, read through a
//!   name mapping. Fixture files are written before timing. Oracle: the input rows and
//!   columns the task selects, computed row by row.
//! - `split/rows=R/width=W`: the second half (row groups 2 and 3, by their real file offsets)
//!   of a four-row-group file with bloom filters after each row group. Timed: footer, range
//!   translation, decode. Oracle: exactly the second half of the input rows.

use std::sync::Arc;

use arrow::array::{Array, AsArray, RecordBatch, UInt32Array};
use arrow::datatypes::Int64Type;
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures;
use bench_support::{Suite, Verdict, expect_eq};
use bytes::Bytes;
use iceberg::expr::Reference;
use iceberg::io::FileIO;
use iceberg::spec::Schema;
use iceberg::spec::{
    Datum, Literal, MappedField, NameMapping, NestedField, PartitionSpec, PrimitiveType, Struct,
    Transform, Type,
};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::properties::{BloomFilterPosition, WriterProperties};
use streamfusion_bridge::partition::SplitKind;
use streamfusion_iceberg::bench::{
    Routed, Selection, Spread, Written, scalar_batch, scalar_table, table_batch,
};
use streamfusion_iceberg::data_file_writer::{
    DataFileWriter, PartitionValue, Sink, default_properties,
};
use streamfusion_iceberg::float_filter::FloatFilter;
use streamfusion_iceberg::read_adapt::{FlinkBatch, to_flink};
use streamfusion_iceberg::routing;
use streamfusion_iceberg::task_reader::TaskReader;

bench_support::counting_allocator!();

/// Each fixture's Arrow buffers are its input batch's.
macro_rules! input_buffers {
    ($($input:ty),*) => {
        $(impl ArrowBuffers for $input {
            fn collect_arrays(&self, out: &mut Vec<arrow::array::ArrayData>) {
                self.batch.collect_arrays(out);
            }
        })*
    };
}

input_buffers!(
    WriteInput,
    RouteInput,
    ReadInput,
    ScalarInput,
    TaskInput,
    SplitInput
);

const DESTINATIONS: [usize; 3] = [1, 4, 128];
const LOCATION: &str = "memory:///bench/data.parquet";

struct WriteInput {
    file_io: FileIO,
    schema: Arc<Schema>,
    batch: RecordBatch,
    rows: UInt32Array,
}

struct RouteInput {
    batch: RecordBatch,
    destinations: UInt32Array,
    count: usize,
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
    for rows in fixtures::ROW_COUNTS {
        suite.stateless(
            &format!("scalar/write/rows={rows}"),
            || scalar_input(rows),
            |input| write_scalar(input, &input.file_io),
            check_scalar_write,
        );
        suite.stateless(
            &format!("scalar/read/rows={rows}"),
            || written_scalar_input(rows),
            |input| read_scalar(input, None),
            check_scalar_read,
        );
        suite.stateless(
            &format!("filter/rows={rows}"),
            || written_scalar_input(rows),
            |input| read_scalar(input, Some(FloatFilter::In(vec![0.0, f64::NAN]))),
            |input, out| check_filter(input, out),
        );
    }
    for rows in fixtures::ROW_COUNTS {
        for width in fixtures::STRING_WIDTHS {
            for kind in [
                Task::PredicateAway,
                Task::PartitionConstant,
                Task::LegacyRenamed,
            ] {
                suite.stateless(
                    &format!("task/rows={rows}/width={width}/kind={}", kind.name()),
                    || task_input(rows, width, kind),
                    read_task,
                    |input, out| check_task(input, out),
                );
            }
            suite.stateless(
                &format!("split/rows={rows}/width={width}"),
                || split_input(rows, width),
                read_split,
                |input, out| check_split(input, out),
            );
        }
    }
    suite.finish();
}

struct ScalarInput {
    file_io: FileIO,
    schema: Arc<Schema>,
    batch: RecordBatch,
    /// The size of the file at [`LOCATION`], once written.
    size: u64,
}

fn scalar_input(rows: usize) -> ScalarInput {
    ScalarInput {
        file_io: FileIO::new_with_memory(),
        schema: scalar_table(),
        batch: scalar_batch(rows),
        size: 0,
    }
}

/// The scalar input with its file written (outside timing).
fn written_scalar_input(rows: usize) -> ScalarInput {
    let mut input = scalar_input(rows);
    let file = write_scalar(&input, &input.file_io).file.expect("a file");
    input.size = file.file_size_in_bytes();
    input
}

fn write_scalar(input: &ScalarInput, file_io: &FileIO) -> Written {
    let mut writer = DataFileWriter::try_new(
        file_io,
        LOCATION,
        Arc::clone(&input.schema),
        PartitionValue::unpartitioned(),
        default_properties(),
        Sink::Buffered,
    )
    .expect("writer");
    writer.write(&input.batch).expect("write");
    let retained_bytes = writer.retained_bytes();
    Written {
        file: writer.close().expect("close"),
        retained_bytes,
    }
}

fn read_scalar(input: &ScalarInput, filter: Option<FloatFilter>) -> Vec<FlinkBatch> {
    let ids = (1..=7).collect();
    let mut reader = TaskReader::new(
        input.file_io.clone(),
        Arc::clone(&input.schema),
        LOCATION,
        input.size,
        ids,
    );
    if let Some(filter) = filter {
        reader = reader.with_float_filter(3, filter);
    }
    reader
        .read()
        .expect("read")
        .map(|batch| to_flink(&batch.expect("batch")).expect("to Flink"))
        .collect()
}

/// Milliseconds to microseconds, by hand (the oracle of the writer's unit conversion).
fn millis_to_micros(column: &dyn Array) -> Vec<Option<i64>> {
    match column.data_type() {
        arrow::datatypes::DataType::Time32(_) => column
            .as_primitive::<arrow::datatypes::Time32MillisecondType>()
            .iter()
            .map(|v| v.map(|v| i64::from(v) * 1_000))
            .collect(),
        _ => column
            .as_primitive::<arrow::datatypes::TimestampMillisecondType>()
            .iter()
            .map(|v| v.map(|v| v * 1_000))
            .collect(),
    }
}

fn check_scalar_write(input: &ScalarInput, out: &Written) -> Verdict {
    let file = out.file.as_ref().ok_or("no file")?;
    let bytes = futures::executor::block_on(async {
        input.file_io.new_input(file.file_path())?.read().await
    })
    .map_err(|e| e.to_string())?;
    let back = read_back(bytes)?;
    // id, f, d and dec are written as they are (floats bit for bit).
    same_values(
        &back.project(&[0, 1, 2, 3]).map_err(|e| e.to_string())?,
        &input
            .batch
            .project(&[0, 1, 2, 3])
            .map_err(|e| e.to_string())?,
    )?;
    for c in 4..7 {
        let micros: Vec<Option<i64>> = match back.column(c).data_type() {
            arrow::datatypes::DataType::Time64(_) => back
                .column(c)
                .as_primitive::<arrow::datatypes::Time64MicrosecondType>()
                .iter()
                .collect(),
            _ => back
                .column(c)
                .as_primitive::<arrow::datatypes::TimestampMicrosecondType>()
                .iter()
                .collect(),
        };
        expect_eq(
            &format!("column {c} in micros"),
            &micros,
            &millis_to_micros(input.batch.column(c)),
        )?;
    }
    expect_eq(
        "LTZ zone",
        back.schema().field(6).data_type(),
        &arrow::datatypes::DataType::Timestamp(
            arrow::datatypes::TimeUnit::Microsecond,
            Some("+00:00".into()),
        ),
    )
}

fn check_scalar_read(input: &ScalarInput, out: &Vec<FlinkBatch>) -> Verdict {
    let batches: Vec<RecordBatch> = out.iter().map(|b| b.batch.clone()).collect();
    let schema = batches.first().map(|b| b.schema()).ok_or("no batches")?;
    let all = arrow::compute::concat_batches(&schema, &batches).map_err(|e| e.to_string())?;
    same_values(
        &all.project(&[0, 1, 2, 3, 4]).map_err(|e| e.to_string())?,
        &input
            .batch
            .project(&[0, 1, 2, 3, 4])
            .map_err(|e| e.to_string())?,
    )?;
    // Timestamps: Flink's components of a millisecond input are the milliseconds and zero.
    for c in [5, 6] {
        let mut millis = Vec::new();
        let mut nanos = Vec::new();
        for batch in out {
            let (_, components) = batch
                .timestamps
                .iter()
                .find(|(i, _)| *i == c)
                .ok_or_else(|| format!("column {c} has no components"))?;
            millis.extend(components.millis.iter());
            nanos.extend(components.nanos_of_milli.iter());
        }
        let input_millis: Vec<Option<i64>> = input
            .batch
            .column(c)
            .as_primitive::<arrow::datatypes::TimestampMillisecondType>()
            .iter()
            .collect();
        expect_eq(&format!("column {c} milliseconds"), &millis, &input_millis)?;
        let zeros: Vec<Option<i32>> = input_millis.iter().map(|v| v.map(|_| 0)).collect();
        expect_eq(&format!("column {c} nanoseconds"), &nanos, &zeros)?;
    }
    Ok(())
}

fn check_filter(input: &ScalarInput, out: &[FlinkBatch]) -> Verdict {
    let ids: Vec<i64> = out
        .iter()
        .flat_map(|b| {
            b.batch
                .column(0)
                .as_primitive::<Int64Type>()
                .values()
                .to_vec()
        })
        .collect();
    let d = input
        .batch
        .column(2)
        .as_primitive::<arrow::datatypes::Float64Type>();
    let want: Vec<i64> = (0..d.len())
        .filter(|&r| d.is_valid(r) && (d.value(r).is_nan() || d.value(r).to_bits() == 0))
        .map(|r| r as i64)
        .collect();
    if want.is_empty() {
        return Err("the fixture has no +0.0 or NaN".into());
    }
    expect_eq("rows kept", &ids, &want)
}

#[derive(Clone, Copy)]
enum Task {
    PredicateAway,
    PartitionConstant,
    LegacyRenamed,
}

impl Task {
    fn name(self) -> &'static str {
        match self {
            Task::PredicateAway => "predicate_away",
            Task::PartitionConstant => "partition_constant",
            Task::LegacyRenamed => "legacy_renamed",
        }
    }
}

struct TaskInput {
    kind: Task,
    reader: TaskReader,
    batch: RecordBatch,
}

/// The fixture's column IDs: id=1, v=2, amount=3, ts=4, name=5, payload=6.
const NAME: i32 = 5;
const REGION: i32 = 7;

fn task_input(rows: usize, width: usize, kind: Task) -> TaskInput {
    let (schema, batch) = table_batch(rows, width);
    let file_io = FileIO::new_with_memory();
    let reader = match kind {
        Task::PredicateAway => {
            let size = write_fixture(&file_io, &schema, &batch, default_properties());
            TaskReader::new(file_io, schema, LOCATION, size, vec![NAME])
                .with_predicate(Reference::new("v").greater_than(Datum::int(0)))
        }
        Task::PartitionConstant => {
            let size = write_fixture(&file_io, &schema, &batch, default_properties());
            let mut fields: Vec<_> = schema.as_struct().fields().to_vec();
            fields.push(
                NestedField::optional(REGION, "region", Type::Primitive(PrimitiveType::String))
                    .into(),
            );
            let table = Arc::new(
                Schema::builder()
                    .with_fields(fields)
                    .build()
                    .expect("table"),
            );
            let spec = PartitionSpec::builder(Arc::clone(&table))
                .with_spec_id(0)
                .add_partition_field("region", "region", Transform::Identity)
                .and_then(|b| b.build())
                .expect("spec");
            TaskReader::new(file_io, table, LOCATION, size, vec![1, NAME, REGION]).with_partition(
                Arc::new(spec),
                Struct::from_iter([Some(Literal::string("eu"))]),
            )
        }
        Task::LegacyRenamed => {
            // A file written before the table had IDs, with the old column names.
            let legacy = arrow::datatypes::Schema::new(
                batch
                    .schema()
                    .fields()
                    .iter()
                    .map(|f| {
                        arrow::datatypes::Field::new(
                            format!("old_{}", f.name()),
                            f.data_type().clone(),
                            f.is_nullable(),
                        )
                    })
                    .collect::<Vec<_>>(),
            );
            let mut writer =
                ArrowWriter::try_new(Vec::new(), Arc::new(legacy), None).expect("legacy writer");
            writer.write(&batch).expect("legacy write");
            let bytes = Bytes::from(writer.into_inner().expect("legacy close"));
            let size = bytes.len() as u64;
            futures::executor::block_on(file_io.new_output(LOCATION).expect("output").write(bytes))
                .expect("publish");
            let mapping = NameMapping::new(
                schema
                    .as_struct()
                    .fields()
                    .iter()
                    .map(|f| MappedField::new(Some(f.id), vec![format!("old_{}", f.name)], vec![]))
                    .collect(),
            );
            let ids = schema.as_struct().fields().iter().map(|f| f.id).collect();
            TaskReader::new(file_io, schema, LOCATION, size, ids)
                .with_name_mapping(Arc::new(mapping))
        }
    };
    TaskInput {
        kind,
        reader,
        batch,
    }
}

fn write_fixture(
    file_io: &FileIO,
    schema: &Arc<Schema>,
    batch: &RecordBatch,
    props: WriterProperties,
) -> u64 {
    let mut writer = DataFileWriter::try_new(
        file_io,
        LOCATION,
        Arc::clone(schema),
        PartitionValue::unpartitioned(),
        props,
        Sink::Buffered,
    )
    .expect("fixture writer");
    writer.write(batch).expect("fixture write");
    writer
        .close()
        .expect("fixture close")
        .expect("a fixture file")
        .file_size_in_bytes()
}

fn read_task(input: &TaskInput) -> Vec<RecordBatch> {
    input
        .reader
        .clone()
        .read()
        .expect("read")
        .collect::<Result<_, _>>()
        .expect("batches")
}

fn concat(out: &[RecordBatch], rows_expected: usize) -> Result<Option<RecordBatch>, String> {
    match out.first() {
        None if rows_expected == 0 => Ok(None),
        None => Err("no batches".into()),
        Some(first) => arrow::compute::concat_batches(&first.schema(), out)
            .map(Some)
            .map_err(|e| e.to_string()),
    }
}

fn check_task(input: &TaskInput, out: &[RecordBatch]) -> Verdict {
    let batch = &input.batch;
    match input.kind {
        Task::PredicateAway => {
            let v = batch
                .column(1)
                .as_primitive::<arrow::datatypes::Int32Type>();
            let rows = UInt32Array::from_iter_values(
                (0..v.len())
                    .filter(|&r| v.is_valid(r) && v.value(r) > 0)
                    .map(|r| r as u32),
            );
            let expected = arrow::compute::take_record_batch(
                &batch.project(&[4]).map_err(|e| e.to_string())?,
                &rows,
            )
            .map_err(|e| e.to_string())?;
            match concat(out, expected.num_rows())? {
                Some(all) => same_values(&all, &expected),
                None => Ok(()),
            }
        }
        Task::PartitionConstant => {
            let all = concat(out, batch.num_rows())?.ok_or("no rows")?;
            same_values(
                &all.project(&[0, 1]).map_err(|e| e.to_string())?,
                &batch.project(&[0, 4]).map_err(|e| e.to_string())?,
            )?;
            let region = all.column(2).as_string::<i32>();
            if region.null_count() > 0 || region.iter().any(|r| r != Some("eu")) {
                return Err("the partition constant is not on every row".into());
            }
            Ok(())
        }
        Task::LegacyRenamed => {
            let all = concat(out, batch.num_rows())?.ok_or("no rows")?;
            same_values(&all, batch)
        }
    }
}

struct SplitInput {
    reader: TaskReader,
    batch: RecordBatch,
}

fn split_input(rows: usize, width: usize) -> SplitInput {
    let (schema, batch) = table_batch(rows, width);
    let file_io = FileIO::new_with_memory();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(rows / 4))
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_ndv(rows as u64)
        .set_bloom_filter_position(BloomFilterPosition::AfterRowGroup)
        .set_statistics_truncate_length(None)
        .build();
    let mut writer = DataFileWriter::try_new(
        &file_io,
        LOCATION,
        Arc::clone(&schema),
        PartitionValue::unpartitioned(),
        props,
        Sink::Buffered,
    )
    .expect("fixture writer");
    writer.write(&batch).expect("fixture write");
    let file = writer
        .close()
        .expect("fixture close")
        .expect("a fixture file");
    let offsets = file.split_offsets().expect("split offsets").to_vec();
    assert_eq!(offsets.len(), 4, "four row groups");
    let start = offsets[2] as u64;
    let size = file.file_size_in_bytes();
    let ids = schema.as_struct().fields().iter().map(|f| f.id).collect();
    SplitInput {
        reader: TaskReader::new(file_io, schema, LOCATION, size, ids)
            .with_split(start, size - start),
        batch,
    }
}

fn read_split(input: &SplitInput) -> Vec<RecordBatch> {
    input
        .reader
        .clone()
        .read()
        .expect("read")
        .collect::<Result<_, _>>()
        .expect("batches")
}

fn check_split(input: &SplitInput, out: &[RecordBatch]) -> Verdict {
    let rows = input.batch.num_rows();
    let all = concat(out, rows / 2)?.ok_or("no rows")?;
    same_values(&all, &input.batch.slice(rows / 2, rows - rows / 2))
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
