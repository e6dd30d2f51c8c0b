//! The `handoffs` suite: the production Arrow C Data bridge and its shared transforms.
//!
//! Measured boundary: Rust C Data export, import and teardown of the imported batch (output
//! disposal is inside `iter`). Java-side export, JNI calls and Flink scheduling are outside
//! and belong to whole-job comparisons. Fixture construction, oracle checks and allocation
//! probes run before timing (see bench-support's runner).
//!
//! Families:
//! - `export_import/{full_schema,cached_schema}/rows/width/nulls/sliced`: one batch through
//!   a full-schema export, or an array-only export imported against a cached schema.
//! - `fanout/{shared,repeated}/consumers/rows/width`: one batch to 1/4/16 consumers; shared
//!   imports once and lends it, repeated exports and imports once per consumer.
//! - `nested_rows/{full_schema,cached_schema}/rows/width`: ARRAY of ROW values carrying
//!   nested row kinds and length-delimited binary payloads.
//! - `export_import/arrow_rs_peer/rows/width/nulls/sliced`: the same batch through plain
//!   arrow-rs `to_ffi`/`from_ffi`, without the bridge's checks or bitmap alignment, so
//!   their cost is visible beside the production path.
//! - `changelog/full_schema/rows`: a changelog batch with row kinds.
//! - `transform/...`: timestamp unit conversion, Flink timestamp components, FLOAT/DOUBLE
//!   order keys, and partition splits (contiguous and scattered).
//!
//! Every import is checked against its source (schema, values, NULLs) and for buffer
//! identity: the imported buffers must be the exported ones (zero new bytes).

use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, BinaryArray, Float32Array, Float64Array, Int8Array,
    Int64Array, ListArray, RecordBatch, StructArray, UInt32Array,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{
    DataType, Field, Fields, Int64Type, Schema, TimeUnit, TimestampMicrosecondType,
    TimestampNanosecondType,
};
use bench_support::adapters::Handoff;
use bench_support::buffers::{ArrowBuffers, buffer_report};
use bench_support::fixtures::{self, NullPattern, ROW_COUNTS, SLICE_OFFSET, STRING_WIDTHS};
use bench_support::oracles::java_double_compare;
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion_bridge::bench::CDataHandoff;
use streamfusion_bridge::float_order::{f32_order_keys, f64_order_keys};
use streamfusion_bridge::handoff::{
    CachedSchema, Fanout, Validation, export_changelog, fan_out, import_changelog,
};
use streamfusion_bridge::partition::{SplitKind, split_by_partition};
use streamfusion_bridge::timestamps::{
    convert_timestamp_unit, from_flink_components, to_flink_components,
};
use streamfusion_core::changelog::{
    ChangelogBatch, RowKind, nested_row_kinds, with_nested_row_kinds,
};

bench_support::counting_allocator!();

const HANDOFF: CDataHandoff = CDataHandoff {
    validation: Validation::Structure,
};
const FANOUT_CONSUMERS: [usize; 3] = [1, 4, 16];
const NESTED_ITEMS_PER_ROW: usize = 4;
const NESTED_WIDTHS: [usize; 2] = [8, 264];

fn main() {
    let mut suite = Suite::new("handoffs");
    export_import(&mut suite);
    fanout(&mut suite);
    nested_rows(&mut suite);
    changelog(&mut suite);
    timestamp_transforms(&mut suite);
    float_order(&mut suite);
    partition_splits(&mut suite);
    suite.finish();
}

fn nulls(nullable: bool) -> NullPattern {
    if nullable {
        NullPattern::RowColumn {
            column: 0,
            modulus: 13,
        }
    } else {
        NullPattern::None
    }
}

fn source_batch(rows: usize, width: usize, nullable: bool, sliced: bool) -> RecordBatch {
    if sliced {
        fixtures::sliced_batch(rows, SLICE_OFFSET, width, nulls(nullable))
    } else {
        fixtures::batch(rows, width, nulls(nullable))
    }
}

/// An import is right when it equals its source and owns no bytes of its own.
fn check_import(source: &RecordBatch, imported: &RecordBatch) -> Verdict {
    expect_eq("schema", imported.schema_ref(), source.schema_ref())?;
    expect_eq("rows", &imported.num_rows(), &source.num_rows())?;
    for (i, (got, want)) in imported.columns().iter().zip(source.columns()).enumerate() {
        if got.to_data() != want.to_data() {
            return Err(format!(
                "column {i} ({}) differs",
                source.schema().field(i).name()
            ));
        }
        expect_eq(
            &format!("NULL count of column {i}"),
            &got.null_count(),
            &want.null_count(),
        )?;
    }
    zero_copy(source, imported)
}

fn zero_copy(source: &impl ArrowBuffers, output: &impl ArrowBuffers) -> Verdict {
    let report = buffer_report(source, output);
    if report.new_bytes != 0 {
        return Err(format!(
            "import copied: {} new bytes in {} ranges ({} shared)",
            report.new_bytes, report.new_ranges, report.shared_bytes
        ));
    }
    Ok(())
}

/// A batch with its schema prepared for array-only imports.
struct Cached {
    batch: RecordBatch,
    schema: CachedSchema,
}

impl ArrowBuffers for Cached {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.batch.collect_arrays(out);
    }
}

fn cached(batch: RecordBatch) -> Cached {
    let schema = HANDOFF
        .cache_schema(batch.schema_ref())
        .expect("cache schema");
    Cached { batch, schema }
}

fn full_round_trip(batch: &RecordBatch) -> RecordBatch {
    HANDOFF
        .import(HANDOFF.export(batch).expect("export"))
        .expect("import")
}

fn cached_round_trip(input: &Cached) -> RecordBatch {
    let exported = HANDOFF.export_array(&input.batch).expect("export array");
    HANDOFF
        .import_array(exported, &input.schema)
        .expect("import array")
}

/// The peer: arrow-rs's own C Data round trip with no checks.
fn arrow_rs_round_trip(batch: &RecordBatch) -> RecordBatch {
    let data = StructArray::from(batch.clone()).into_data();
    let (array, schema) = arrow::ffi::to_ffi(&data).expect("to_ffi");
    // SAFETY: `array` and `schema` were just exported by arrow-rs from valid data.
    let imported = unsafe { arrow::ffi::from_ffi(array, &schema) }.expect("from_ffi");
    RecordBatch::from(StructArray::from(imported))
}

fn export_import(suite: &mut Suite) {
    for rows in ROW_COUNTS {
        for width in STRING_WIDTHS {
            for nullable in [false, true] {
                for sliced in [false, true] {
                    let shape =
                        format!("rows={rows}/width={width}/nulls={nullable}/sliced={sliced}");
                    suite.stateless(
                        &format!("export_import/full_schema/{shape}"),
                        || source_batch(rows, width, nullable, sliced),
                        full_round_trip,
                        check_import,
                    );
                    if nullable {
                        suite.stateless(
                            &format!("export_import/arrow_rs_peer/{shape}"),
                            || source_batch(rows, width, nullable, sliced),
                            arrow_rs_round_trip,
                            |source, imported| {
                                expect_eq("batch", imported, source)?;
                                // The peer copies sliced bitmaps; only unsliced input is zero-copy.
                                if sliced {
                                    Ok(())
                                } else {
                                    zero_copy(source, imported)
                                }
                            },
                        );
                    }
                    suite.stateless(
                        &format!("export_import/cached_schema/{shape}"),
                        || cached(source_batch(rows, width, nullable, sliced)),
                        cached_round_trip,
                        |input, imported| check_import(&input.batch, imported),
                    );
                }
            }
        }
    }
}

fn fanout(suite: &mut Suite) {
    for (mode, name) in [(Fanout::Shared, "shared"), (Fanout::Repeated, "repeated")] {
        for consumers in FANOUT_CONSUMERS {
            for rows in ROW_COUNTS {
                for width in STRING_WIDTHS {
                    suite.stateless(
                        &format!("fanout/{name}/consumers={consumers}/rows={rows}/width={width}"),
                        || source_batch(rows, width, true, true),
                        |batch| fan_out(batch, consumers, mode).expect("fan out"),
                        |source, outputs| {
                            expect_eq("consumers", &outputs.len(), &consumers)?;
                            for output in outputs {
                                check_import(source, output)?;
                            }
                            if mode == Fanout::Shared {
                                // Every consumer borrows the very same imported buffers.
                                let first = outputs[0].column(4).to_data().buffers()[1].as_ptr();
                                for output in outputs {
                                    let ptr = output.column(4).to_data().buffers()[1].as_ptr();
                                    if ptr != first {
                                        return Err(
                                            "shared consumers hold different imports".into()
                                        );
                                    }
                                }
                            }
                            Ok(())
                        },
                    );
                }
            }
        }
    }
}

/// Row kinds of nested rows follow a fixed cycle, so the oracle recomputes them by index.
fn nested_kind(item: usize) -> RowKind {
    RowKind::ALL[(item * 7 + 1) % 4]
}

/// ARRAY<ROW<$row_kind TINYINT, id BIGINT, payload VARBINARY>>: item payloads are
/// length-delimited (offsets) binary values of lengths 0..=width, with NULL parents, NULL
/// items, empty arrays and a nonzero slice offset.
fn nested_batch(rows: usize, width: usize) -> RecordBatch {
    let total_rows = rows + SLICE_OFFSET;
    let lengths: Vec<usize> = (0..total_rows)
        .map(|r| {
            if r % 11 == 5 {
                0
            } else {
                1 + r % NESTED_ITEMS_PER_ROW
            }
        })
        .collect();
    let items: usize = lengths.iter().sum();
    let ids = Int64Array::from_iter_values((0..items as i64).map(|i| i * 31 - 7));
    let payloads = BinaryArray::from_iter((0..items).map(|i| {
        (i % 9 != 4).then(|| {
            let len = (i * 37) % (width + 1);
            (0..len)
                .map(|b| ((i + b * 13) % 256) as u8)
                .collect::<Vec<u8>>()
        })
    }));
    let rows_struct = StructArray::try_new(
        Fields::from(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("payload", DataType::Binary, true),
        ]),
        vec![Arc::new(ids) as ArrayRef, Arc::new(payloads)],
        Some(NullBuffer::from_iter((0..items).map(|i| i % 17 != 3))),
    )
    .expect("nested rows");
    let kinds = Int8Array::from_iter_values((0..items).map(|i| nested_kind(i).to_byte()));
    let tagged = with_nested_row_kinds(&rows_struct, kinds).expect("row kinds");
    let list = ListArray::try_new(
        Arc::new(Field::new_list_field(tagged.data_type().clone(), true)),
        OffsetBuffer::from_lengths(lengths),
        Arc::new(tagged),
        Some(NullBuffer::from_iter((0..total_rows).map(|r| r % 13 != 6))),
    )
    .expect("list");
    let schema = Arc::new(Schema::new(vec![
        Field::new("key", DataType::Int64, false),
        Field::new("items", list.data_type().clone(), true),
    ]));
    let keys = Int64Array::from_iter_values(0..total_rows as i64);
    RecordBatch::try_new(schema, vec![Arc::new(keys), Arc::new(list)])
        .expect("nested batch")
        .slice(SLICE_OFFSET, rows)
}

fn check_nested(source: &RecordBatch, imported: &RecordBatch) -> Verdict {
    check_import(source, imported)?;
    let list = imported.column(1).as_list::<i32>();
    let items = list.values().as_struct();
    let kinds = nested_row_kinds(items)
        .map_err(|e| e.to_string())?
        .ok_or("imported nested rows lost their row kinds")?;
    // Every item the visible rows reference carries the kind of its absolute index.
    let offsets = list.value_offsets();
    for item in offsets[0] as usize..offsets[list.len()] as usize {
        expect_eq(
            &format!("kind of nested item {item}"),
            &kinds.value(item),
            &nested_kind(item).to_byte(),
        )?;
    }
    Ok(())
}

fn nested_rows(suite: &mut Suite) {
    for rows in ROW_COUNTS {
        for width in NESTED_WIDTHS {
            suite.stateless(
                &format!("nested_rows/full_schema/rows={rows}/width={width}"),
                || nested_batch(rows, width),
                full_round_trip,
                check_nested,
            );
            suite.stateless(
                &format!("nested_rows/cached_schema/rows={rows}/width={width}"),
                || cached(nested_batch(rows, width)),
                cached_round_trip,
                |input, imported| check_nested(&input.batch, imported),
            );
        }
    }
}

fn changelog(suite: &mut Suite) {
    let kind = |row: usize| RowKind::ALL[(row / 3) % 4];
    for rows in ROW_COUNTS {
        suite.stateless(
            &format!("changelog/full_schema/rows={rows}/width=264"),
            || {
                let batch = source_batch(rows, 264, true, true);
                let kinds = Int8Array::from_iter_values((0..rows).map(|r| kind(r).to_byte()));
                ChangelogBatch::try_new(batch, Some(kinds)).expect("changelog batch")
            },
            |batch| {
                import_changelog(
                    export_changelog(batch).expect("export"),
                    Validation::Structure,
                )
                .expect("import")
            },
            |source, imported| {
                check_import(source.batch(), imported.batch())?;
                for row in 0..rows {
                    expect_eq(
                        &format!("kind of row {row}"),
                        &imported.kind(row),
                        &kind(row),
                    )?;
                }
                Ok(())
            },
        );
    }
}

/// `floor(a / b)` for `b > 0`, the oracle's own arithmetic.
fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && a < 0 { q - 1 } else { q }
}

fn timestamp_transforms(suite: &mut Suite) {
    let nulls = NullPattern::EveryNth(7);
    let sliced_ts = |rows: usize, unit: TimeUnit| {
        fixtures::timestamps(rows + SLICE_OFFSET, unit, nulls).slice(SLICE_OFFSET, rows)
    };
    for rows in ROW_COUNTS {
        suite.stateless(
            &format!("transform/timestamp_unit/ns_to_us/rows={rows}"),
            || sliced_ts(rows, TimeUnit::Nanosecond),
            |ts| convert_timestamp_unit(ts.as_ref(), TimeUnit::Microsecond).expect("convert"),
            |input, output| {
                let input = input.as_primitive::<TimestampNanosecondType>();
                let output = output.as_primitive::<TimestampMicrosecondType>();
                for row in 0..input.len() {
                    let expected = input
                        .is_valid(row)
                        .then(|| floor_div(i128::from(input.value(row)), 1_000) as i64);
                    let got = output.is_valid(row).then(|| output.value(row));
                    expect_eq(&format!("row {row}"), &got, &expected)?;
                }
                Ok(())
            },
        );
        suite.stateless(
            &format!("transform/timestamp_unit/us_to_ns/rows={rows}"),
            || sliced_ts(rows, TimeUnit::Microsecond),
            |ts| convert_timestamp_unit(ts.as_ref(), TimeUnit::Nanosecond).expect("convert"),
            |input, output| {
                let input = input.as_primitive::<TimestampMicrosecondType>();
                let output = output.as_primitive::<TimestampNanosecondType>();
                for row in 0..input.len() {
                    let expected = input.is_valid(row).then(|| input.value(row) * 1_000);
                    let got = output.is_valid(row).then(|| output.value(row));
                    expect_eq(&format!("row {row}"), &got, &expected)?;
                }
                Ok(())
            },
        );
        suite.stateless(
            &format!("transform/flink_components/split/rows={rows}"),
            || sliced_ts(rows, TimeUnit::Nanosecond),
            |ts| to_flink_components(ts.as_ref()).expect("split"),
            |input, output| {
                let input = input.as_primitive::<TimestampNanosecondType>();
                for row in 0..input.len() {
                    let expected = input.is_valid(row).then(|| {
                        let ns = i128::from(input.value(row));
                        let ms = floor_div(ns, 1_000_000);
                        (ms as i64, (ns - ms * 1_000_000) as i32)
                    });
                    let got = output
                        .millis
                        .is_valid(row)
                        .then(|| (output.millis.value(row), output.nanos_of_milli.value(row)));
                    expect_eq(&format!("row {row}"), &got, &expected)?;
                }
                Ok(())
            },
        );
        suite.stateless(
            &format!("transform/flink_components/join/rows={rows}"),
            || {
                let ts = sliced_ts(rows, TimeUnit::Nanosecond);
                let parts = to_flink_components(ts.as_ref()).expect("split");
                (ts, parts)
            },
            |(_, parts)| from_flink_components(parts, TimeUnit::Nanosecond, None).expect("join"),
            |(ts, _), joined| {
                // Joining the components gives back the original instants exactly.
                expect_eq("instants", &joined.to_data(), &ts.to_data())
            },
        );
    }
}

fn check_order<K: Ord>(values: &[Option<f64>], keys: &[Option<K>]) -> Verdict {
    for i in 1..values.len() {
        if let ((Some(a), Some(ka)), (Some(b), Some(kb))) =
            ((values[i - 1], &keys[i - 1]), (values[i], &keys[i]))
        {
            let (got, want) = (ka.cmp(kb), java_double_compare(a, b));
            if got != want {
                return Err(format!(
                    "rows {} and {i}: {a:?} vs {b:?} keyed {got:?}, Java says {want:?}",
                    i - 1
                ));
            }
        }
        if values[i].is_some() != keys[i].is_some() {
            return Err(format!("row {i}: NULL not preserved"));
        }
    }
    Ok(())
}

/// One typed column as a fixture.
struct Column<T>(T);

impl<T: Array> ArrowBuffers for Column<T> {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        out.push(self.0.to_data());
    }
}

fn float_order(suite: &mut Suite) {
    let nulls = NullPattern::EveryNth(11);
    for rows in ROW_COUNTS {
        suite.stateless(
            &format!("transform/float_order/f64/rows={rows}"),
            || Column(fixtures::float64(rows + SLICE_OFFSET, nulls).slice(SLICE_OFFSET, rows)),
            |values: &Column<Float64Array>| Arc::new(f64_order_keys(&values.0)) as ArrayRef,
            |values, keys| {
                let keys: Vec<Option<u64>> = keys
                    .as_primitive::<arrow::datatypes::UInt64Type>()
                    .iter()
                    .collect();
                check_order(&values.0.iter().collect::<Vec<_>>(), &keys)
            },
        );
        suite.stateless(
            &format!("transform/float_order/f32/rows={rows}"),
            || Column(fixtures::float32(rows + SLICE_OFFSET, nulls).slice(SLICE_OFFSET, rows)),
            |values: &Column<Float32Array>| Arc::new(f32_order_keys(&values.0)) as ArrayRef,
            |values, keys| {
                let keys: Vec<Option<u32>> = keys
                    .as_primitive::<arrow::datatypes::UInt32Type>()
                    .iter()
                    .collect();
                let values: Vec<Option<f64>> = values.0.iter().map(|v| v.map(f64::from)).collect();
                check_order(&values, &keys)
            },
        );
    }
}

const PARTITIONS: usize = 4;

fn partition_splits(suite: &mut Suite) {
    for rows in ROW_COUNTS {
        for layout in ["contiguous", "scattered"] {
            suite.stateless(
                &format!("transform/partition_split/{layout}/rows={rows}/partitions={PARTITIONS}"),
                || {
                    let batch = source_batch(rows, 264, true, true);
                    let ids = UInt32Array::from_iter_values((0..rows).map(|r| {
                        if layout == "contiguous" {
                            (r * PARTITIONS / rows) as u32
                        } else {
                            (fixtures::mix(r as u64, 1) % PARTITIONS as u64) as u32
                        }
                    }));
                    (batch, Column(ids))
                },
                |(batch, ids)| {
                    split_by_partition(batch, &ids.0, PARTITIONS)
                        .expect("split")
                        .into_iter()
                        .map(|(b, _)| b)
                        .collect::<Vec<_>>()
                },
                |(batch, Column(ids)), parts| {
                    expect_eq("partitions", &parts.len(), &PARTITIONS)?;
                    for (p, part) in parts.iter().enumerate() {
                        let mask = ids.iter().map(|id| id.map(|id| id as usize == p)).collect();
                        let expected =
                            filter_record_batch(batch, &mask).map_err(|e| e.to_string())?;
                        if part != &expected {
                            return Err(format!("partition {p} differs from the filtered input"));
                        }
                    }
                    if layout == "contiguous" {
                        zero_copy(batch, parts)?;
                        let kinds = split_by_partition(batch, ids, PARTITIONS)
                            .map_err(|e| e.to_string())?;
                        if kinds.iter().any(|(_, k)| *k == SplitKind::Gathered) {
                            return Err("a contiguous run was gathered".into());
                        }
                    }
                    let ids_total: i64 = parts
                        .iter()
                        .map(|p| p.column(0).as_primitive::<Int64Type>().len() as i64)
                        .sum();
                    expect_eq("rows across partitions", &ids_total, &(rows as i64))
                },
            );
        }
    }
}
