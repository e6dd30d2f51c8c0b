//! Batches from iceberg-rust's reader, brought to the table's Arrow types.
//!
//! iceberg-rust 0.10 hands identity-partition constants (and `_file`) back as
//! `RunEndEncoded<Int32, T>` columns, where `T` is not always the column's own type: time,
//! timestamp and timestamptz constants are `Int64`, uuid and fixed are `Binary`
//! (`iceberg::arrow::datum_to_arrow_type_with_ree`). Every other column already has the type
//! `iceberg::arrow::schema_to_arrow_schema` gives the table. [`flatten_constants`] expands the
//! run-end-encoded columns into flat arrays of the table's type, so a consumer sees one Arrow
//! type per table column whatever the file and partition.
//!
//! [`to_flink`] then brings a read batch to the representations Flink's row transposes take:
//! TIME as milliseconds of the day (Flink's `TIME` is an `int` of milliseconds; Iceberg's
//! microseconds are floored, as Flink's Iceberg reader divides them), and timestamps, with and
//! without zone, split into `TimestampData`'s components by the bridge (the representation
//! every transpose shares).

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, RecordBatch, RecordBatchOptions, Time32MillisecondArray,
};
use arrow::compute::{CastOptions, cast_with_options};
use arrow::datatypes::{DataType, Schema, SchemaRef, Time64MicrosecondType, TimeUnit};
use streamfusion_bridge::timestamps::{FlinkTimestamps, to_flink_components};

use crate::error::{IcebergError, Result};
use crate::field_ids::FIELD_ID_KEY;

/// `batch` with the schema `target` (same column count and order): run-end-encoded columns are
/// expanded and cast to their target type, columns that already have it are kept as they are.
///
/// Fails, naming the column, on any other type difference, on a cast that would lose a value
/// (a fixed-width constant of the wrong length), and on NULLs in a non-nullable target column.
pub fn flatten_constants(batch: &RecordBatch, target: &SchemaRef) -> Result<RecordBatch> {
    if batch.num_columns() != target.fields().len() {
        return Err(IcebergError::Invalid(format!(
            "the read batch has {} columns, but {} were projected",
            batch.num_columns(),
            target.fields().len()
        )));
    }
    // `safe: false`: a value the target type cannot hold is an error, never a silent NULL.
    let options = CastOptions {
        safe: false,
        ..CastOptions::default()
    };
    let columns = batch
        .columns()
        .iter()
        .zip(target.fields())
        .map(|(column, field)| {
            let id = || {
                field
                    .metadata()
                    .get(FIELD_ID_KEY)
                    .and_then(|id| id.parse().ok())
                    .unwrap_or(0)
            };
            let column: ArrayRef = if column.data_type() == field.data_type() {
                column.clone()
            } else if matches!(column.data_type(), DataType::RunEndEncoded(..))
                || column.data_type().equals_datatype(field.data_type())
            {
                // Run-end-encoded constants, or a nested type whose child names differ.
                cast_with_options(column, field.data_type(), &options).map_err(|err| {
                    IcebergError::Invalid(format!(
                        "column `{}` (ID {}): cannot expand {} to {}: {err}",
                        field.name(),
                        id(),
                        column.data_type(),
                        field.data_type()
                    ))
                })?
            } else {
                return Err(IcebergError::TypeMismatch {
                    path: field.name().clone(),
                    id: id(),
                    table: field.data_type().to_string(),
                    batch: column.data_type().to_string(),
                });
            };
            if !field.is_nullable() && column.logical_null_count() > 0 {
                return Err(IcebergError::NullInRequired {
                    path: field.name().clone(),
                    nulls: column.logical_null_count(),
                });
            }
            Ok(column)
        })
        .collect::<Result<Vec<_>>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(
        target.clone(),
        columns,
        &options,
    )?)
}

/// A read batch in Flink's representations: see the module documentation.
#[derive(Debug, Clone)]
pub struct FlinkBatch {
    /// The batch, TIME columns as `Time32(Millisecond)`; timestamps are kept as read.
    pub batch: RecordBatch,
    /// Each timestamp column (by index) as Flink's components.
    pub timestamps: Vec<(usize, FlinkTimestamps)>,
}

/// `batch` (as [`flatten_constants`] returns it) in Flink's representations.
pub fn to_flink(batch: &RecordBatch) -> Result<FlinkBatch> {
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns = Vec::with_capacity(batch.num_columns());
    let mut timestamps = Vec::new();
    for (index, (field, column)) in batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .enumerate()
    {
        match column.data_type() {
            DataType::Time64(TimeUnit::Microsecond) => {
                let micros = column.as_primitive::<Time64MicrosecondType>();
                let millis: Time32MillisecondArray = micros.unary(|v| v.div_euclid(1_000) as i32);
                fields.push(Arc::new(
                    field
                        .as_ref()
                        .clone()
                        .with_data_type(DataType::Time32(TimeUnit::Millisecond)),
                ));
                columns.push(Arc::new(millis) as ArrayRef);
            }
            data_type => {
                if matches!(data_type, DataType::Timestamp(..)) {
                    timestamps.push((index, to_flink_components(column.as_ref())?));
                }
                fields.push(Arc::clone(field));
                columns.push(Arc::clone(column));
            }
        }
    }
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(FlinkBatch {
        batch: RecordBatch::try_new_with_options(
            Arc::new(Schema::new_with_metadata(
                fields,
                batch.schema().metadata().clone(),
            )),
            columns,
            &options,
        )?,
        timestamps,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use arrow::array::{
        BinaryArray, FixedSizeBinaryArray, Int32Array, Int64Array, RunArray, StringArray,
        Time64MicrosecondArray, TimestampMicrosecondArray,
    };
    use arrow::datatypes::{Field, Int32Type, Schema, TimeUnit};

    use super::*;

    fn with_id(field: Field, id: i32) -> Field {
        field.with_metadata(HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]))
    }

    /// A constant column as iceberg-rust builds it: one run covering every row.
    fn ree(len: i32, values: ArrayRef) -> ArrayRef {
        let run_ends = Int32Array::from(vec![len]);
        Arc::new(RunArray::<Int32Type>::try_new(&run_ends, values.as_ref()).unwrap())
    }

    fn batch(columns: Vec<ArrayRef>, rows: usize) -> RecordBatch {
        let fields: Vec<Field> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
            .collect();
        RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .unwrap()
    }

    #[test]
    fn constants_expand_to_the_table_types() {
        let utc = Some(Arc::from("+00:00"));
        let target = Arc::new(Schema::new(vec![
            with_id(Field::new("id", DataType::Int64, false), 1),
            with_id(Field::new("p", DataType::Utf8, true), 2),
            with_id(
                Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, utc), true),
                3,
            ),
            with_id(
                Field::new("t", DataType::Time64(TimeUnit::Microsecond), true),
                4,
            ),
            with_id(Field::new("u", DataType::FixedSizeBinary(2), true), 5),
        ]));
        let input = batch(
            vec![
                Arc::new(Int64Array::from(vec![7, 8, 9])),
                ree(3, Arc::new(StringArray::from(vec!["eu"]))),
                ree(3, Arc::new(Int64Array::from(vec![1_700_000_000_000_000]))),
                ree(3, Arc::new(Int64Array::from(vec![None::<i64>]))),
                ree(3, Arc::new(BinaryArray::from(vec![&b"ab"[..]]))),
            ],
            3,
        );
        let out = flatten_constants(&input, &target).unwrap();
        assert_eq!(out.schema(), target);
        let expected: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![7, 8, 9])),
            Arc::new(StringArray::from(vec!["eu", "eu", "eu"])),
            Arc::new(
                TimestampMicrosecondArray::from(vec![1_700_000_000_000_000; 3])
                    .with_timezone("+00:00"),
            ),
            Arc::new(Time64MicrosecondArray::from(vec![None::<i64>; 3])),
            Arc::new(FixedSizeBinaryArray::try_from_iter(vec![&b"ab"[..]; 3].into_iter()).unwrap()),
        ];
        for (got, want) in out.columns().iter().zip(&expected) {
            assert_eq!(got.as_ref(), want.as_ref());
        }
    }

    #[test]
    fn an_empty_batch_stays_empty() {
        let target = Arc::new(Schema::new(vec![Field::new("p", DataType::Utf8, true)]));
        let run_ends = Int32Array::from(Vec::<i32>::new());
        let values = StringArray::from(Vec::<&str>::new());
        let empty: ArrayRef = Arc::new(RunArray::<Int32Type>::try_new(&run_ends, &values).unwrap());
        let out = flatten_constants(&batch(vec![empty], 0), &target).unwrap();
        assert_eq!(out.num_rows(), 0);
        assert_eq!(out.column(0).data_type(), &DataType::Utf8);
    }

    #[test]
    fn zero_column_batches_keep_their_row_count() {
        let target = Arc::new(Schema::empty());
        let out = flatten_constants(&batch(vec![], 5), &target).unwrap();
        assert_eq!(out.num_rows(), 5);
    }

    #[test]
    fn mismatches_name_the_column() {
        let target = Arc::new(Schema::new(vec![with_id(
            Field::new("id", DataType::Int64, false),
            1,
        )]));
        let err = flatten_constants(
            &batch(vec![Arc::new(StringArray::from(vec!["x"]))], 1),
            &target,
        )
        .unwrap_err();
        assert!(
            matches!(&err, IcebergError::TypeMismatch { path, id: 1, .. } if path == "id"),
            "{err}"
        );

        let err = flatten_constants(
            &batch(
                vec![ree(2, Arc::new(Int64Array::from(vec![None::<i64>])))],
                2,
            ),
            &target,
        )
        .unwrap_err();
        assert!(
            matches!(&err, IcebergError::NullInRequired { path, nulls: 2 } if path == "id"),
            "{err}"
        );

        let fixed = Arc::new(Schema::new(vec![Field::new(
            "u",
            DataType::FixedSizeBinary(16),
            true,
        )]));
        let err = flatten_constants(
            &batch(
                vec![ree(1, Arc::new(BinaryArray::from(vec![&b"ab"[..]])))],
                1,
            ),
            &fixed,
        )
        .unwrap_err();
        assert!(err.to_string().contains("column `u`"), "{err}");

        let err = flatten_constants(&batch(vec![], 1), &fixed).unwrap_err();
        assert!(err.to_string().contains("0 columns"), "{err}");
    }

    #[test]
    fn flink_times_are_floored_milliseconds_and_timestamps_components() {
        let time: ArrayRef = Arc::new(Time64MicrosecondArray::from(vec![
            Some(1_999),
            None,
            Some(86_399_999_999),
        ]));
        let ts: ArrayRef = Arc::new(
            TimestampMicrosecondArray::from(vec![Some(-1), Some(1_500), None])
                .with_timezone("+00:00"),
        );
        let out = to_flink(&batch(vec![time, ts], 3)).unwrap();
        // Hand-worked: 1,999 µs is 1 ms; the last microsecond of the day is 86,399,999 ms.
        let millis = out
            .batch
            .column(0)
            .as_primitive::<arrow::datatypes::Time32MillisecondType>();
        assert_eq!(
            millis.iter().collect::<Vec<_>>(),
            [Some(1), None, Some(86_399_999)]
        );
        assert_eq!(out.timestamps.len(), 1);
        let (index, components) = &out.timestamps[0];
        assert_eq!(*index, 1);
        // -1 µs is millisecond -1 plus 999,000 ns; 1,500 µs is 1 ms plus 500,000 ns.
        assert_eq!(
            components.millis.iter().collect::<Vec<_>>(),
            [Some(-1), Some(1), None]
        );
        assert_eq!(
            components.nanos_of_milli.iter().collect::<Vec<_>>(),
            [Some(999_000), Some(500_000), None]
        );
    }
}
