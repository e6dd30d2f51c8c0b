//! End to end through iceberg-rust: files written and routed here are committed to a table
//! of the in-memory catalog with a fast append, and read back by iceberg-rust's own table
//! scan with every value and NULL intact, partitioned and unpartitioned.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, Int32Array, Int64Array, ListArray, RecordBatch,
    StringArray, UInt32Array,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{DataType, Int64Type};
use futures::TryStreamExt;
use iceberg::memory::{MEMORY_CATALOG_WAREHOUSE, MemoryCatalogBuilder};
use iceberg::spec::{
    ListType, Literal, NestedField, PrimitiveType, Schema, Struct, Transform, Type,
    UnboundPartitionSpec,
};
use iceberg::table::Table;
use iceberg::transaction::{ApplyTransactionAction, Transaction};
use iceberg::{Catalog, CatalogBuilder, NamespaceIdent, TableCreation};
use streamfusion_iceberg::data_file_writer::{
    DataFileWriter, PartitionValue, Sink, default_properties,
};
use streamfusion_iceberg::routing;
use streamfusion_iceberg::runtime::TaskRuntime;

const REGIONS: [&str; 3] = ["eu", "us", "ap"];

fn schema() -> Schema {
    Schema::builder()
        .with_fields(vec![
            NestedField::required(1, "id", Type::Primitive(PrimitiveType::Long)).into(),
            NestedField::required(2, "region", Type::Primitive(PrimitiveType::String)).into(),
            NestedField::optional(3, "v", Type::Primitive(PrimitiveType::Double)).into(),
            NestedField::optional(4, "s", Type::Primitive(PrimitiveType::String)).into(),
            NestedField::optional(
                5,
                "tags",
                Type::List(ListType::new(
                    NestedField::list_element(6, Type::Primitive(PrimitiveType::Int), false).into(),
                )),
            )
            .into(),
        ])
        .build()
        .unwrap()
}

/// Rows of the table as the catalog numbered its fields (IDs come from the table).
fn rows(table: &Table, n: usize) -> RecordBatch {
    let arrow = Arc::new(
        iceberg::arrow::schema_to_arrow_schema(table.metadata().current_schema()).unwrap(),
    );
    let DataType::List(element) = arrow.field(4).data_type().clone() else {
        unreachable!()
    };
    let mut offsets = vec![0i32];
    let mut values = Vec::new();
    for r in 0..n {
        values.extend((0..r % 3).map(|i| (r * 10 + i) as i32));
        offsets.push(values.len() as i32);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values((0..n).map(|r| r as i64))),
        Arc::new(StringArray::from_iter_values(
            (0..n).map(|r| REGIONS[(r / 7) % REGIONS.len()]),
        )),
        Arc::new(Float64Array::from_iter((0..n).map(|r| {
            (r % 5 != 0).then_some(if r % 9 == 4 { f64::NAN } else { r as f64 })
        }))),
        Arc::new(StringArray::from_iter((0..n).map(|r| {
            (r % 4 != 1).then(|| format!("{r:08}-{}", "x".repeat(256)))
        }))),
        Arc::new(ListArray::new(
            element,
            OffsetBuffer::new(offsets.into()),
            Arc::new(Int32Array::from(values)),
            Some(NullBuffer::from_iter((0..n).map(|r| r % 6 != 2))),
        )),
    ];
    RecordBatch::try_new(arrow, columns).unwrap()
}

fn create_table(runtime: &TaskRuntime, partitioned: bool) -> (impl Catalog, Table) {
    let catalog = runtime
        .block_on(
            MemoryCatalogBuilder::default()
                .with_runtime(runtime.iceberg())
                .load(
                    "mem",
                    HashMap::from([(
                        MEMORY_CATALOG_WAREHOUSE.to_string(),
                        "memory://warehouse".to_string(),
                    )]),
                ),
        )
        .unwrap();
    let namespace = NamespaceIdent::new("db".to_string());
    runtime
        .block_on(catalog.create_namespace(&namespace, HashMap::new()))
        .unwrap();
    let creation = if partitioned {
        TableCreation::builder()
            .name("t".to_string())
            .schema(schema())
            .partition_spec(
                UnboundPartitionSpec::builder()
                    .add_partition_field(2, "region", Transform::Identity)
                    .unwrap()
                    .build(),
            )
            .build()
    } else {
        TableCreation::builder()
            .name("t".to_string())
            .schema(schema())
            .build()
    };
    let table = runtime
        .block_on(catalog.create_table(&namespace, creation))
        .unwrap();
    (catalog, table)
}

fn scan_sorted(runtime: &TaskRuntime, table: &Table) -> RecordBatch {
    let batches: Vec<RecordBatch> = runtime
        .block_on(async {
            table
                .scan()
                .select_all()
                .build()?
                .to_arrow()
                .await?
                .try_collect::<Vec<_>>()
                .await
        })
        .unwrap();
    let all = arrow::compute::concat_batches(&batches[0].schema(), &batches).unwrap();
    sort_by_id(&all)
}

fn sort_by_id(batch: &RecordBatch) -> RecordBatch {
    let order = arrow::compute::sort_to_indices(batch.column(0), None, None).unwrap();
    arrow::compute::take_record_batch(batch, &order).unwrap()
}

fn assert_same_values(actual: &RecordBatch, expected: &RecordBatch) {
    assert_eq!(actual.num_rows(), expected.num_rows());
    for c in 0..expected.num_columns() {
        let (a, e) = (actual.column(c), expected.column(c));
        for row in 0..e.len() {
            let show = |x: &ArrayRef| {
                (
                    x.is_null(row),
                    arrow::util::display::array_value_to_string(x, row).unwrap(),
                )
            };
            assert_eq!(show(a), show(e), "column {c} row {row}");
        }
    }
}

fn writer(table: &Table, name: &str, partition: PartitionValue) -> DataFileWriter {
    let location = format!("{}/data/{name}.parquet", table.metadata().location());
    DataFileWriter::try_new(
        table.file_io(),
        &location,
        Arc::clone(table.metadata().current_schema()),
        partition,
        default_properties(),
        Sink::Buffered,
    )
    .unwrap()
}

#[test]
fn unpartitioned_files_commit_and_scan_back() {
    let runtime = TaskRuntime::new().unwrap();
    let (catalog, table) = create_table(&runtime, false);
    let batch = rows(&table, 500);
    // Two files, each from two writes.
    let mut files = Vec::new();
    for (i, range) in [(0, 250), (250, 250)].into_iter().enumerate() {
        let mut w = writer(&table, &format!("f{i}"), PartitionValue::unpartitioned());
        let part = batch.slice(range.0, range.1);
        w.write(&part.slice(0, 100)).unwrap();
        w.write(&part.slice(100, 150)).unwrap();
        files.push(w.close().unwrap().unwrap());
    }
    let tx = Transaction::new(&table);
    let tx = tx.fast_append().add_data_files(files).apply(tx).unwrap();
    let table = runtime.block_on(tx.commit(&catalog)).unwrap();
    assert_same_values(&scan_sorted(&runtime, &table), &batch);
}

#[test]
fn routed_partitions_commit_and_scan_back() {
    let runtime = TaskRuntime::new().unwrap();
    let (catalog, table) = create_table(&runtime, true);
    let batch = rows(&table, 600);
    let spec_id = table.metadata().default_partition_spec_id();
    let mut writers: Vec<DataFileWriter> = REGIONS
        .iter()
        .map(|region| {
            writer(
                &table,
                &format!("region={region}/0"),
                PartitionValue {
                    value: Struct::from_iter([Some(Literal::string(*region))]),
                    spec_id,
                },
            )
        })
        .collect();
    // Java decides each row's partition; here, by the region column. Two batches.
    for part in [batch.slice(0, 333), batch.slice(333, 267)] {
        let regions = part.column(1).as_string::<i32>();
        let destinations = UInt32Array::from_iter_values(
            regions
                .iter()
                .map(|r| REGIONS.iter().position(|x| Some(*x) == r).unwrap() as u32),
        );
        routing::route(&part, &destinations, &mut writers).unwrap();
    }
    let files: Vec<_> = writers
        .into_iter()
        .map(|w| w.close().unwrap().unwrap())
        .collect();
    for (file, region) in files.iter().zip(REGIONS) {
        assert_eq!(
            file.partition(),
            &Struct::from_iter([Some(Literal::string(region))])
        );
        // Every row of the file is of its partition: its bounds are that single value.
        assert_eq!(
            file.lower_bounds()[&2],
            iceberg::spec::Datum::string(region)
        );
        assert_eq!(
            file.upper_bounds()[&2],
            iceberg::spec::Datum::string(region)
        );
    }
    let tx = Transaction::new(&table);
    let tx = tx.fast_append().add_data_files(files).apply(tx).unwrap();
    let table = runtime.block_on(tx.commit(&catalog)).unwrap();
    let scanned = scan_sorted(&runtime, &table);
    assert_same_values(&scanned, &batch);
    assert_eq!(
        scanned.column(0).as_primitive::<Int64Type>().values().len(),
        600
    );
}
