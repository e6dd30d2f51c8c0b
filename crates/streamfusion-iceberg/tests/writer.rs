//! The data-file writer and routing, checked against independent readers: stock parquet-rs
//! reads every file back (values, NULLs, field IDs on every leaf), iceberg-rust's own Parquet
//! writer computes the statistics of the same batch (the oracle for counts, sizes, offsets
//! and short bounds), and hand-worked values pin what differs by design (truncated bounds of
//! long strings, NaN counts of sliced lists).

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Date32Array, Decimal128Array, Float64Array, Int32Array, Int64Array,
    LargeBinaryArray, ListArray, MapArray, RecordBatch, StringArray, StructArray,
    TimestampMicrosecondArray, UInt32Array,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{DataType, Field, Fields, SchemaRef as ArrowSchemaRef};
use bytes::Bytes;
use futures::executor::block_on;
use iceberg::io::FileIO;
use iceberg::spec::{
    DataFile, Datum, ListType, MapType, NestedField, PrimitiveType, Schema, SchemaRef, StructType,
    Type,
};
use iceberg::writer::file_writer::{FileWriter, FileWriterBuilder, ParquetWriterBuilder};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use streamfusion_bridge::partition::SplitKind;
use streamfusion_iceberg::data_file_writer::{
    DataFileWriter, PartitionValue, Sink, default_properties,
};
use streamfusion_iceberg::{IcebergError, routing};

fn primitive(ty: PrimitiveType) -> Type {
    Type::Primitive(ty)
}

/// Every kind of column the writer must carry IDs and statistics for, nested ones included.
fn table_schema() -> SchemaRef {
    let point = StructType::new(vec![
        NestedField::required(20, "x", primitive(PrimitiveType::Int)).into(),
        NestedField::optional(21, "y", primitive(PrimitiveType::Double)).into(),
    ]);
    Arc::new(
        Schema::builder()
            .with_fields(vec![
                NestedField::required(1, "id", primitive(PrimitiveType::Long)).into(),
                NestedField::optional(2, "name", primitive(PrimitiveType::String)).into(),
                NestedField::optional(3, "score", primitive(PrimitiveType::Double)).into(),
                NestedField::optional(4, "day", primitive(PrimitiveType::Date)).into(),
                NestedField::optional(5, "at", primitive(PrimitiveType::Timestamptz)).into(),
                NestedField::optional(
                    6,
                    "amount",
                    primitive(PrimitiveType::Decimal {
                        precision: 38,
                        scale: 10,
                    }),
                )
                .into(),
                NestedField::optional(7, "payload", primitive(PrimitiveType::Binary)).into(),
                NestedField::optional(
                    8,
                    "tags",
                    Type::List(ListType::new(
                        NestedField::list_element(22, primitive(PrimitiveType::Double), false)
                            .into(),
                    )),
                )
                .into(),
                NestedField::optional(
                    9,
                    "attrs",
                    Type::Map(MapType::new(
                        NestedField::map_key_element(23, primitive(PrimitiveType::String)).into(),
                        NestedField::map_value_element(24, primitive(PrimitiveType::Long), false)
                            .into(),
                    )),
                )
                .into(),
                NestedField::optional(10, "point", Type::Struct(point)).into(),
            ])
            .build()
            .unwrap(),
    )
}

fn arrow_schema(schema: &Schema) -> ArrowSchemaRef {
    Arc::new(iceberg::arrow::schema_to_arrow_schema(schema).unwrap())
}

fn child(data_type: &DataType) -> Arc<Field> {
    match data_type {
        DataType::List(f) | DataType::Map(f, _) => Arc::clone(f),
        other => panic!("no child in {other}"),
    }
}

fn struct_fields(data_type: &DataType) -> Fields {
    match data_type {
        DataType::Struct(f) => f.clone(),
        other => panic!("not a struct: {other}"),
    }
}

/// `rows` rows of the table, deterministic, with NULLs, NaNs, signed zeros and infinities.
/// Strings are `width` bytes long.
fn table_batch(schema: &ArrowSchemaRef, rows: usize, width: usize) -> RecordBatch {
    let null = |row: usize, column: usize| (row + column).is_multiple_of(7);
    let ids = Int64Array::from_iter_values((0..rows).map(|r| r as i64 * 3 - 100));
    let names = StringArray::from_iter((0..rows).map(|r| {
        (!null(r, 2)).then(|| {
            let head = format!("n{:05}é", (r * 7919) % 10_007);
            let mut s = head.clone();
            while s.len() < width {
                s.push(char::from(b'a' + (r % 26) as u8));
            }
            s.truncate(width.max(head.len()));
            s
        })
    }));
    let specials = [f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY];
    let score = Float64Array::from_iter((0..rows).map(|r| {
        (!null(r, 3)).then(|| {
            if r % 11 == 5 {
                specials[(r / 11) % specials.len()]
            } else {
                r as f64 / 4.0 - 50.0
            }
        })
    }));
    let day = Date32Array::from_iter((0..rows).map(|r| (!null(r, 4)).then_some(r as i32 - 400)));
    let at = TimestampMicrosecondArray::from_iter(
        (0..rows).map(|r| (!null(r, 5)).then_some(r as i64 * 1_000_003 - 7)),
    )
    .with_timezone("+00:00");
    let amount = Decimal128Array::from_iter(
        (0..rows).map(|r| (!null(r, 6)).then_some((r as i128 - 3) * 10_i128.pow(30) + 17)),
    )
    .with_precision_and_scale(38, 10)
    .unwrap();
    let payload = LargeBinaryArray::from_iter(
        (0..rows).map(|r| (!null(r, 7)).then(|| vec![(r % 256) as u8; 1 + r % 5])),
    );

    // tags: 0..3 doubles per row, some NaN; the list itself NULL where null(r, 8).
    let mut offsets = vec![0i32];
    let mut tag_values = Vec::new();
    for r in 0..rows {
        if !null(r, 8) {
            for i in 0..r % 4 {
                tag_values.push(if (r + i) % 5 == 0 {
                    f64::NAN
                } else {
                    (r * 10 + i) as f64
                });
            }
        }
        offsets.push(tag_values.len() as i32);
    }
    let tags_type = schema.field_with_name("tags").unwrap().data_type().clone();
    let tags = ListArray::new(
        child(&tags_type),
        OffsetBuffer::new(offsets.into()),
        Arc::new(Float64Array::from(tag_values)),
        NullBuffer::from_iter((0..rows).map(|r| !null(r, 8))).into(),
    );

    // attrs: r % 3 entries per row.
    let attrs_type = schema.field_with_name("attrs").unwrap().data_type().clone();
    let entries_field = child(&attrs_type);
    let mut offsets = vec![0i32];
    let (mut keys, mut values) = (Vec::new(), Vec::new());
    for r in 0..rows {
        if !null(r, 9) {
            for i in 0..r % 3 {
                keys.push(format!("k{i}"));
                values.push((r as i64) << i);
            }
        }
        offsets.push(keys.len() as i32);
    }
    let entries = StructArray::new(
        struct_fields(entries_field.data_type()),
        vec![
            Arc::new(StringArray::from(keys)),
            Arc::new(Int64Array::from(values)),
        ],
        None,
    );
    let attrs = MapArray::new(
        entries_field,
        OffsetBuffer::new(offsets.into()),
        entries,
        NullBuffer::from_iter((0..rows).map(|r| !null(r, 9))).into(),
        false,
    );

    let point_type = schema.field_with_name("point").unwrap().data_type().clone();
    let point = StructArray::new(
        struct_fields(&point_type),
        vec![
            Arc::new(Int32Array::from_iter_values(
                (0..rows).map(|r| r as i32 % 50),
            )),
            Arc::new(Float64Array::from_iter((0..rows).map(|r| {
                (r % 13 != 0).then_some(if r % 17 == 3 { f64::NAN } else { r as f64 })
            }))),
        ],
        NullBuffer::from_iter((0..rows).map(|r| !null(r, 10))).into(),
    );

    let columns: Vec<ArrayRef> = vec![
        Arc::new(ids),
        Arc::new(names),
        Arc::new(score),
        Arc::new(day),
        Arc::new(at),
        Arc::new(amount),
        Arc::new(payload),
        Arc::new(tags),
        Arc::new(attrs),
        Arc::new(point),
    ];
    RecordBatch::try_new(Arc::clone(schema), columns).unwrap()
}

fn write(
    file_io: &FileIO,
    location: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    sink: Sink,
) -> Option<DataFile> {
    let mut writer = DataFileWriter::try_new(
        file_io,
        location,
        Arc::clone(schema),
        PartitionValue::unpartitioned(),
        default_properties(),
        sink,
    )
    .unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.close().unwrap()
}

fn read_bytes(file_io: &FileIO, location: &str) -> Bytes {
    block_on(file_io.new_input(location).unwrap().read()).unwrap()
}

/// Stock parquet-rs: the file's batches, concatenated.
fn read_back(bytes: Bytes) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    arrow::compute::concat_batches(&batches[0].schema(), &batches).unwrap()
}

fn assert_same_values(actual: &RecordBatch, expected: &RecordBatch) {
    assert_eq!(actual.num_rows(), expected.num_rows());
    assert_eq!(actual.num_columns(), expected.num_columns());
    for (i, (a, e)) in actual.columns().iter().zip(expected.columns()).enumerate() {
        assert!(
            a.data_type().equals_datatype(e.data_type()),
            "column {i}: {} vs {}",
            a.data_type(),
            e.data_type()
        );
        // Compare by value, field names and metadata aside: pretty-printed rows, which spell
        // NaN, -0, NULL and nested values out.
        let pretty = |array: &ArrayRef| {
            (0..array.len())
                .map(|row| {
                    arrow::util::display::array_value_to_string(array, row).unwrap()
                        + if array.is_null(row) { "<null>" } else { "" }
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(pretty(a), pretty(e), "column {i}");
    }
}

/// Every Parquet leaf's (path, field ID).
fn leaf_ids(bytes: Bytes) -> Vec<(String, i32)> {
    let reader = SerializedFileReader::new(bytes).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    schema
        .columns()
        .iter()
        .map(|c| (c.path().string(), c.self_type().get_basic_info().id()))
        .collect()
}

#[test]
fn files_read_back_with_every_value_and_field_id() {
    let schema = table_schema();
    let arrow = arrow_schema(&schema);
    let file_io = FileIO::new_with_memory();
    let batch = table_batch(&arrow, 300, 24);
    // Two writes, the second a slice that is not byte aligned.
    let parts = [batch.slice(0, 101), batch.slice(101, 199)];
    let file = write(
        &file_io,
        "memory:///t/a.parquet",
        &schema,
        &parts,
        Sink::Buffered,
    )
    .unwrap();
    assert_eq!(file.record_count(), 300);
    let bytes = read_bytes(&file_io, "memory:///t/a.parquet");
    assert_eq!(file.file_size_in_bytes(), bytes.len() as u64);
    assert_same_values(&read_back(bytes.clone()), &batch);
    assert_eq!(
        leaf_ids(bytes),
        [
            ("id", 1),
            ("name", 2),
            ("score", 3),
            ("day", 4),
            ("at", 5),
            ("amount", 6),
            ("payload", 7),
            ("tags.list.element", 22),
            ("attrs.key_value.key", 23),
            ("attrs.key_value.value", 24),
            ("point.x", 20),
            ("point.y", 21),
        ]
        .map(|(p, id)| (p.to_string(), id))
    );
}

#[test]
fn renamed_and_reordered_batch_columns_keep_their_ids() {
    let schema = table_schema();
    let arrow = arrow_schema(&schema);
    let batch = table_batch(&arrow, 50, 8);
    // The batch names its columns differently and puts them in reverse order; IDs decide.
    let reversed: Vec<usize> = (0..batch.num_columns()).rev().collect();
    let renamed_fields: Vec<Field> = reversed
        .iter()
        .map(|&i| {
            let f = arrow.field(i);
            Field::new(format!("c{i}"), f.data_type().clone(), f.is_nullable())
                .with_metadata(f.metadata().clone())
        })
        .collect();
    let renamed = RecordBatch::try_new(
        Arc::new(arrow::datatypes::Schema::new(renamed_fields)),
        reversed
            .iter()
            .map(|&i| Arc::clone(batch.column(i)))
            .collect(),
    )
    .unwrap();
    let file_io = FileIO::new_with_memory();
    write(
        &file_io,
        "memory:///r.parquet",
        &schema,
        &[renamed],
        Sink::Buffered,
    )
    .unwrap();
    let back = read_back(read_bytes(&file_io, "memory:///r.parquet"));
    assert_eq!(back.schema().field(1).name(), "name");
    assert_same_values(&back, &batch);
}

/// iceberg-rust's ParquetWriter on the same batch and properties.
fn iceberg_oracle(file_io: &FileIO, schema: &SchemaRef, batch: &RecordBatch) -> DataFile {
    let builder = ParquetWriterBuilder::new(default_properties(), Arc::clone(schema));
    let output = file_io.new_output("memory:///oracle.parquet").unwrap();
    let mut writer = block_on(builder.build(output)).unwrap();
    block_on(writer.write(batch)).unwrap();
    let mut builders = block_on(writer.close()).unwrap();
    assert_eq!(builders.len(), 1);
    builders.remove(0).build().unwrap()
}

#[test]
fn statistics_equal_iceberg_rusts_writer() {
    let schema = table_schema();
    let arrow = arrow_schema(&schema);
    // 8-byte strings: short enough that truncate(16) keeps them whole.
    let batch = table_batch(&arrow, 2_000, 8);
    let file_io = FileIO::new_with_memory();
    let ours = write(
        &file_io,
        "memory:///s.parquet",
        &schema,
        std::slice::from_ref(&batch),
        Sink::Buffered,
    )
    .unwrap();
    let oracle = iceberg_oracle(&file_io, &schema, &batch);
    assert_eq!(ours.record_count(), oracle.record_count());
    assert_eq!(ours.value_counts(), oracle.value_counts());
    assert_eq!(ours.null_value_counts(), oracle.null_value_counts());
    assert_eq!(ours.nan_value_counts(), oracle.nan_value_counts());
    assert_eq!(ours.column_sizes(), oracle.column_sizes());
    assert_eq!(ours.split_offsets(), oracle.split_offsets());
    assert_eq!(ours.lower_bounds(), oracle.lower_bounds());
    assert_eq!(ours.upper_bounds(), oracle.upper_bounds());
    // And the counts are what the fixture holds (a model independent of both writers).
    let nulls = |c: usize| batch.column(c).null_count() as u64;
    assert_eq!(ours.null_value_counts()[&2], nulls(1));
    let nans = batch
        .column(2)
        .as_primitive::<arrow::datatypes::Float64Type>()
        .iter();
    assert_eq!(
        ours.nan_value_counts()[&3],
        nans.flatten().filter(|v| v.is_nan()).count() as u64
    );
    assert_eq!(ours.lower_bounds()[&1], Datum::long(-100));
    assert_eq!(ours.upper_bounds()[&1], Datum::long(1_999 * 3 - 100));
    // Infinities are bounds; NaN is not.
    assert_eq!(ours.lower_bounds()[&3], Datum::double(f64::NEG_INFINITY));
    assert_eq!(ours.upper_bounds()[&3], Datum::double(f64::INFINITY));
}

#[test]
fn long_strings_get_truncated_bounds() {
    let schema = table_schema();
    let arrow = arrow_schema(&schema);
    let batch = table_batch(&arrow, 400, 264);
    let file_io = FileIO::new_with_memory();
    let file = write(
        &file_io,
        "memory:///l.parquet",
        &schema,
        std::slice::from_ref(&batch),
        Sink::Buffered,
    )
    .unwrap();
    // The oracle: the exact min and max strings, truncated by hand to 16 code points.
    let names = batch.column(1).as_string::<i32>();
    let min = names.iter().flatten().min().unwrap();
    let max = names.iter().flatten().max().unwrap();
    let prefix = |s: &str| s.chars().take(16).collect::<String>();
    assert_eq!(file.lower_bounds()[&2], Datum::string(prefix(min)));
    let mut upper: Vec<char> = prefix(max).chars().collect();
    *upper.last_mut().unwrap() = char::from_u32(*upper.last().unwrap() as u32 + 1).unwrap();
    assert_eq!(
        file.upper_bounds()[&2],
        Datum::string(upper.into_iter().collect::<String>())
    );
    // Binary stays short here (1..5 bytes): exact bounds.
    let payload = batch.column(6).as_binary::<i64>();
    let min = payload.iter().flatten().min().unwrap();
    let max = payload.iter().flatten().max().unwrap();
    assert_eq!(file.lower_bounds()[&7], Datum::binary(min.to_vec()));
    assert_eq!(file.upper_bounds()[&7], Datum::binary(max.to_vec()));
}

#[test]
fn nan_counts_of_a_sliced_list_count_only_the_slice() {
    let schema = table_schema();
    let arrow = arrow_schema(&schema);
    let batch = table_batch(&arrow, 200, 8);
    let part = batch.slice(37, 80);
    let file_io = FileIO::new_with_memory();
    let file = write(
        &file_io,
        "memory:///n.parquet",
        &schema,
        std::slice::from_ref(&part),
        Sink::Buffered,
    )
    .unwrap();
    // Oracle: walk the slice's lists row by row.
    let tags = part.column(7).as_list::<i32>();
    let mut expected = 0;
    for row in 0..tags.len() {
        if tags.is_valid(row) {
            let values = tags.value(row);
            expected += values
                .as_primitive::<arrow::datatypes::Float64Type>()
                .iter()
                .flatten()
                .filter(|v| v.is_nan())
                .count() as u64;
        }
    }
    assert!(expected > 0);
    assert_eq!(file.nan_value_counts()[&22], expected);
}

#[test]
fn local_files_stream_and_empty_files_are_never_published() {
    let dir = tempfile::tempdir().unwrap();
    let schema = table_schema();
    let arrow = arrow_schema(&schema);
    let batch = table_batch(&arrow, 1_000, 64);
    let file_io = FileIO::new_with_fs();
    let path = dir.path().join("data.parquet");
    let location = path.to_str().unwrap();
    let file = write(
        &file_io,
        location,
        &schema,
        std::slice::from_ref(&batch),
        Sink::Streamed,
    )
    .unwrap();
    let bytes = Bytes::from(std::fs::read(&path).unwrap());
    assert_eq!(file.file_size_in_bytes(), bytes.len() as u64);
    assert_same_values(&read_back(bytes), &batch);

    let empty = dir.path().join("empty.parquet");
    assert!(
        write(
            &file_io,
            empty.to_str().unwrap(),
            &schema,
            &[],
            Sink::Streamed
        )
        .is_none()
    );
    assert!(!empty.exists());
    let mem = FileIO::new_with_memory();
    assert!(
        write(
            &mem,
            "memory:///e.parquet",
            &schema,
            &[batch.slice(0, 0)],
            Sink::Buffered
        )
        .is_none()
    );
    assert!(!block_on(mem.exists("memory:///e.parquet")).unwrap());
}

#[test]
fn bad_batches_get_errors_that_name_the_field() {
    let schema = table_schema();
    let arrow = arrow_schema(&schema);
    let batch = table_batch(&arrow, 10, 8);
    let mut writer = DataFileWriter::try_new(
        &FileIO::new_with_memory(),
        "memory:///bad.parquet",
        Arc::clone(&schema),
        PartitionValue::unpartitioned(),
        default_properties(),
        Sink::Buffered,
    )
    .unwrap();
    // Without field IDs (as a batch straight from a Flink row type would be).
    let plain = RecordBatch::try_new(
        Arc::new(arrow::datatypes::Schema::new(
            arrow
                .fields()
                .iter()
                .map(|f| Field::new(f.name(), f.data_type().clone(), f.is_nullable()))
                .collect::<Vec<_>>(),
        )),
        batch.columns().to_vec(),
    )
    .unwrap();
    let err = writer.write(&plain).unwrap_err();
    assert_eq!(
        err.to_string(),
        "field `id` has no `PARQUET:field_id`; legacy files without field IDs need name mapping"
    );
    // A map value of the wrong type.
    let mut fields: Vec<Field> = arrow.fields().iter().map(|f| f.as_ref().clone()).collect();
    let attrs = batch.column(8).as_map();
    let entries = attrs.entries();
    let DataType::Struct(kv) = entries.data_type() else {
        unreachable!()
    };
    let value_field = kv[1].as_ref().clone().with_data_type(DataType::Int32);
    let kv2: Fields = vec![Arc::clone(&kv[0]), Arc::new(value_field)].into();
    let entries2 = StructArray::new(
        kv2.clone(),
        vec![
            Arc::clone(entries.column(0)),
            Arc::new(Int32Array::from(vec![0; entries.len()])),
        ],
        None,
    );
    let entries_field = Arc::new(
        child(arrow.field(8).data_type())
            .as_ref()
            .clone()
            .with_data_type(DataType::Struct(kv2)),
    );
    let attrs2 = MapArray::new(
        Arc::clone(&entries_field),
        attrs.offsets().clone(),
        entries2,
        attrs.nulls().cloned(),
        false,
    );
    fields[8] = fields[8]
        .clone()
        .with_data_type(DataType::Map(entries_field, false));
    let mut columns = batch.columns().to_vec();
    columns[8] = Arc::new(attrs2);
    let bad =
        RecordBatch::try_new(Arc::new(arrow::datatypes::Schema::new(fields)), columns).unwrap();
    let err = writer.write(&bad).unwrap_err();
    assert!(
        err.to_string().contains(
            "field `attrs.value` is Int32, but table column `attrs.value` (ID 24) needs Int64"
        ),
        "{err}"
    );
    // The writer is still usable after a rejected batch.
    writer.write(&batch).unwrap();
    assert_eq!(writer.close().unwrap().unwrap().record_count(), 10);
}

#[test]
fn routing_writes_each_row_once_in_order_and_slices_contiguous_runs() {
    let schema = table_schema();
    let arrow = arrow_schema(&schema);
    let batch = table_batch(&arrow, 120, 8);
    let file_io = FileIO::new_with_memory();
    let writers = |n: usize| -> Vec<DataFileWriter> {
        (0..n)
            .map(|i| {
                DataFileWriter::try_new(
                    &file_io,
                    &format!("memory:///route/{n}/{i}.parquet"),
                    Arc::clone(&schema),
                    PartitionValue::unpartitioned(),
                    default_properties(),
                    Sink::Buffered,
                )
                .unwrap()
            })
            .collect()
    };
    // Destination 0 gets rows 0..40 (a run), 1 and 2 share the rest alternately, 3 none.
    let destinations =
        UInt32Array::from_iter_values((0..120u32).map(|r| if r < 40 { 0 } else { 1 + r % 2 }));
    let mut ws = writers(4);
    let kinds = routing::route(&batch, &destinations, &mut ws).unwrap();
    assert_eq!(
        kinds,
        [
            SplitKind::Slice,
            SplitKind::Gathered,
            SplitKind::Gathered,
            SplitKind::Empty
        ]
    );
    let files: Vec<Option<DataFile>> = ws.into_iter().map(|w| w.close().unwrap()).collect();
    assert!(files[3].is_none());
    for (d, file) in files.iter().enumerate().take(3) {
        let file = file.as_ref().unwrap();
        let back = read_back(read_bytes(&file_io, file.file_path()));
        // Oracle: the input rows of destination d, in input order.
        let rows = UInt32Array::from_iter_values(
            (0..120u32).filter(|&r| destinations.value(r as usize) == d as u32),
        );
        let expected = arrow::compute::take_record_batch(&batch, &rows).unwrap();
        assert_same_values(&back, &expected);
    }
    // A bad destination is refused before anything is written.
    let mut ws = writers(2);
    let bad = UInt32Array::from_iter_values((0..120u32).map(|r| if r == 119 { 2 } else { 0 }));
    let err = routing::route(&batch, &bad, &mut ws).unwrap_err();
    assert!(
        err.to_string().contains("partition id 2 at row 119"),
        "{err}"
    );
    assert_eq!(ws[0].rows(), 0);
}

#[test]
fn selection_slices_runs_and_gathers_the_rest() {
    let schema = table_schema();
    let batch = table_batch(&arrow_schema(&schema), 30, 8);
    let ids = |b: &RecordBatch| {
        b.column(0)
            .as_primitive::<arrow::datatypes::Int64Type>()
            .values()
            .to_vec()
    };
    let (run, kind) = routing::select(&batch, &UInt32Array::from(vec![4, 5, 6])).unwrap();
    assert_eq!(kind, SplitKind::Slice);
    assert_eq!(ids(&run), [4 * 3 - 100, 5 * 3 - 100, 6 * 3 - 100]);
    let (gathered, kind) = routing::select(&batch, &UInt32Array::from(vec![6, 4])).unwrap();
    assert_eq!(kind, SplitKind::Gathered);
    assert_eq!(ids(&gathered), [6 * 3 - 100, 4 * 3 - 100]);
    let err = routing::select(&batch, &UInt32Array::from(vec![30])).unwrap_err();
    assert!(matches!(err, IcebergError::Invalid(_)), "{err}");
}

#[test]
fn a_closed_or_failed_writer_publishes_nothing_partial() {
    let schema = table_schema();
    let batch = table_batch(&arrow_schema(&schema), 20, 8);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("aborted.parquet");
    let file_io = FileIO::new_with_fs();
    let mut writer = DataFileWriter::try_new(
        &file_io,
        path.to_str().unwrap(),
        Arc::clone(&schema),
        PartitionValue::unpartitioned(),
        default_properties(),
        Sink::Streamed,
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.abort().unwrap();
    assert!(!path.exists());
}
