//! bench-support adapters and the catalogue's Iceberg fixtures (feature `bench`), for the
//! `iceberg_io` suite and for other crates' tests.

use std::sync::Arc;

use arrow::array::{ArrayData, RecordBatch, UInt32Array};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{self, NullPattern};
use iceberg::spec::{DataFile, Schema};
use streamfusion_bridge::partition::SplitKind;

use crate::field_ids::assign_field_ids;

/// The NULL pattern of the catalogue's nullable fixtures: column `c` is NULL where
/// `(row + c) % 13 == 0`.
pub const NULLS: NullPattern = NullPattern::RowColumn {
    column: 0,
    modulus: 13,
};

/// bench-support's mixed fixture batch (row id, INT, DECIMAL(18, 2), TIMESTAMP(9), VARCHAR of
/// `width` bytes, VARBINARY) with fresh Iceberg field IDs, and the Iceberg table schema it
/// belongs to (`id` required, the rest optional; TIMESTAMP(9) is Iceberg's `timestamp_ns`).
pub fn table_batch(rows: usize, width: usize) -> (Arc<Schema>, RecordBatch) {
    let batch = fixtures::batch(rows, width, NULLS);
    let with_ids = Arc::new(assign_field_ids(&batch.schema()));
    let schema = iceberg::arrow::arrow_schema_to_schema(&with_ids)
        .expect("the fixture's Arrow types all map to Iceberg types");
    let batch = RecordBatch::try_new(with_ids, batch.columns().to_vec())
        .expect("the same columns under field IDs");
    (Arc::new(schema), batch)
}

/// Which rows of a batch one writer receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// One run of half the batch, starting at [`fixtures::SLICE_OFFSET`].
    Contiguous,
    /// Every other row.
    Sparse,
}

impl Selection {
    /// The selected rows of a batch of `rows` rows.
    pub fn rows(self, rows: usize) -> UInt32Array {
        match self {
            Selection::Contiguous => {
                let start = fixtures::SLICE_OFFSET as u32;
                UInt32Array::from_iter_values(start..start + (rows / 2) as u32)
            }
            Selection::Sparse => UInt32Array::from_iter_values((0..rows as u32).step_by(2)),
        }
    }
}

/// How rows are spread over destinations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// Destination `d` receives one run of consecutive rows (a clustered write).
    Runs,
    /// Row `r` goes to `r % destinations` (a fanout write).
    Interleaved,
}

impl Spread {
    /// One destination index per row of a batch of `rows` rows.
    pub fn destinations(self, rows: usize, destinations: usize) -> UInt32Array {
        UInt32Array::from_iter_values((0..rows).map(|r| match self {
            Spread::Runs => (r * destinations / rows.max(1)) as u32,
            Spread::Interleaved => (r % destinations) as u32,
        }))
    }
}

/// A routed batch's parts.
#[derive(Debug)]
pub struct Routed(pub Vec<(RecordBatch, SplitKind)>);

impl ArrowBuffers for Routed {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        for (batch, _) in &self.0 {
            batch.collect_arrays(out);
        }
    }
}

/// A closed data file and the writer's last retained-memory estimate. It holds no Arrow
/// buffers: the file's bytes live in storage.
#[derive(Debug)]
pub struct Written {
    /// The file, `None` when nothing was written.
    pub file: Option<DataFile>,
    /// [`crate::data_file_writer::DataFileWriter::retained_bytes`] before close.
    pub retained_bytes: usize,
}

impl ArrowBuffers for Written {
    fn collect_arrays(&self, _out: &mut Vec<ArrayData>) {}
}

/// The scalar table: `id` long (required), `f` float, `d` double, `dec` decimal(38, 10), `t`
/// time, `ts` timestamp, `tstz` timestamptz; field IDs 1..=7 in that order.
pub fn scalar_table() -> Arc<Schema> {
    use iceberg::spec::{NestedField, PrimitiveType, Type};
    let column = |id, name: &str, ty| NestedField::optional(id, name, Type::Primitive(ty)).into();
    Arc::new(
        Schema::builder()
            .with_fields(vec![
                NestedField::required(1, "id", Type::Primitive(PrimitiveType::Long)).into(),
                column(2, "f", PrimitiveType::Float),
                column(3, "d", PrimitiveType::Double),
                column(
                    4,
                    "dec",
                    PrimitiveType::Decimal {
                        precision: 38,
                        scale: 10,
                    },
                ),
                column(5, "t", PrimitiveType::Time),
                column(6, "ts", PrimitiveType::Timestamp),
                column(7, "tstz", PrimitiveType::Timestamptz),
            ])
            .build()
            .expect("the scalar table schema"),
    )
}

/// [`scalar_table`] rows as a Flink job hands them to the writer: FLOAT and DOUBLE with NaN,
/// -NaN, signed zeros, infinities and subnormals (bench-support's float fixtures), DECIMAL(38,
/// 10) over its whole range, TIME(3) as `Time32(ms)`, TIMESTAMP(3) and TIMESTAMP_LTZ(3) in
/// milliseconds (the LTZ labelled `UTC`), value columns NULL in the catalogue's pattern.
pub fn scalar_batch(rows: usize) -> RecordBatch {
    use arrow::array::ArrayRef;
    use arrow::datatypes::{Field, TimestampMillisecondType};
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(fixtures::row_ids(rows))),
        ("f", Arc::new(fixtures::float32(rows, NULLS.for_column(1)))),
        ("d", Arc::new(fixtures::float64(rows, NULLS.for_column(2)))),
        (
            "dec",
            Arc::new(fixtures::decimal128(rows, 38, 10, NULLS.for_column(3))),
        ),
        ("t", Arc::new(fixtures::times(rows, NULLS.for_column(4)))),
        (
            "ts",
            Arc::new(fixtures::timestamp_array::<TimestampMillisecondType>(
                rows,
                NULLS.for_column(5),
            )),
        ),
        (
            "tstz",
            Arc::new(
                fixtures::timestamp_array::<TimestampMillisecondType>(rows, NULLS.for_column(6))
                    .with_timezone("UTC"),
            ),
        ),
    ];
    let fields: Vec<Field> = columns
        .iter()
        .enumerate()
        .map(|(i, (name, array))| {
            Field::new(*name, array.data_type().clone(), i > 0).with_metadata(
                [(
                    crate::field_ids::FIELD_ID_KEY.to_string(),
                    (i + 1).to_string(),
                )]
                .into(),
            )
        })
        .collect();
    RecordBatch::try_new(
        Arc::new(arrow::datatypes::Schema::new(fields)),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .expect("the scalar fixture")
}

impl ArrowBuffers for crate::read_adapt::FlinkBatch {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.batch.collect_arrays(out);
        for (_, components) in &self.timestamps {
            out.push(arrow::array::Array::to_data(&components.millis));
            out.push(arrow::array::Array::to_data(&components.nanos_of_milli));
        }
    }
}
