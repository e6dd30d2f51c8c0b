//! A batch checked against the table it is written to.
//!
//! Iceberg matches columns by field ID, and the Parquet writer encodes columns by position, so
//! a batch is checked once per schema (then cached by schema pointer): every field carries an
//! ID the table knows, every table column is present, nested children line up with the
//! table's, the types can be written as the table's types, and required columns hold no NULLs.
//! Errors name the field's path.
//!
//! Representation differences Flink's types bring are fixed at the top level:
//! TIMESTAMP_LTZ's zone spelling (Arrow stores UTC instants whatever the zone string says, so
//! only the label changes, zero-copy), timestamp units coarser or finer than Iceberg's
//! microseconds (the bridge's conversion: exact, or floored like Flink's millisecond part),
//! TIME in milliseconds, and TINYINT/SMALLINT widened to Iceberg's `int`.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, RecordBatchOptions};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef, TimeUnit};

use crate::error::{IcebergError, Result};
use crate::field_ids::{self, FIELD_ID_KEY};

/// How one top-level batch column becomes the table's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fixup {
    /// Written as it is.
    None,
    /// A timestamp relabelled with the table's zone spelling (zero-copy) and, if its unit is
    /// not the table's, converted.
    Timestamp,
    /// Cast with Arrow's cast kernel (exact widenings only).
    Cast,
}

/// The plan for batches of one schema.
#[derive(Debug, Clone)]
struct Plan {
    batch_schema: SchemaRef,
    /// For each table column, the batch column that holds it and its fix-up.
    columns: Vec<(usize, Fixup)>,
    /// Batch columns (by table order) that must be checked for NULLs, with their paths.
    required: Vec<RequiredCheck>,
}

#[derive(Debug, Clone)]
struct RequiredCheck {
    column: usize,
    /// Struct child indices from the top-level column down to the required field.
    steps: Vec<usize>,
    path: String,
}

/// Checks and conforms batches to one table schema.
#[derive(Debug, Clone)]
pub struct TableColumns {
    table: SchemaRef,
    plan: Option<Plan>,
}

impl TableColumns {
    /// `table` is the writer's Arrow schema: the table's, with field IDs on every field (as
    /// `iceberg::arrow::schema_to_arrow_schema` gives it).
    pub fn new(table: SchemaRef) -> Self {
        Self { table, plan: None }
    }

    /// The table's Arrow schema.
    pub fn table_schema(&self) -> &SchemaRef {
        &self.table
    }

    /// `batch` with its columns in table order and fixed up, or an error naming the field.
    pub fn conform(&mut self, batch: &RecordBatch) -> Result<RecordBatch> {
        let plan = match &self.plan {
            Some(plan) if Arc::ptr_eq(&plan.batch_schema, &batch.schema()) => plan,
            _ => self.plan.insert(plan(&self.table, &batch.schema())?),
        };
        let mut columns = Vec::with_capacity(plan.columns.len());
        for (table_field, &(index, fixup)) in self.table.fields().iter().zip(&plan.columns) {
            let column = batch.column(index);
            columns.push(match fixup {
                Fixup::None => Arc::clone(column),
                Fixup::Timestamp => timestamp(column, table_field.data_type())?,
                Fixup::Cast => arrow::compute::cast(column, table_field.data_type())?,
            });
        }
        for check in &plan.required {
            let nulls = required_nulls(&columns[check.column], &check.steps);
            if nulls > 0 {
                return Err(IcebergError::NullInRequired {
                    path: check.path.clone(),
                    nulls,
                });
            }
        }
        // The batch's own field names and nested types are kept (Parquet encodes by position
        // and parquet-rs checks types, not names); the top-level fields take the table's.
        let fields: Vec<FieldRef> = self
            .table
            .fields()
            .iter()
            .zip(&columns)
            .map(|(f, c)| Arc::new(Field::new(f.name(), c.data_type().clone(), f.is_nullable())))
            .collect();
        Ok(RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )?)
    }
}

fn plan(table: &SchemaRef, batch: &SchemaRef) -> Result<Plan> {
    // Every batch field has a unique, well-formed ID (the error names the first that does not).
    field_ids::field_ids(batch)?;
    let mut columns = Vec::with_capacity(table.fields().len());
    for table_field in table.fields() {
        let id = id_of(table_field);
        let index = batch
            .fields()
            .iter()
            .position(|f| id_of(f) == id)
            .ok_or_else(|| IcebergError::MissingColumn {
                path: table_field.name().clone(),
                id,
            })?;
        let batch_field = batch.field(index);
        let fixup = top_level_fixup(table_field, batch_field)?;
        columns.push((index, fixup));
    }
    if let Some(extra) = batch
        .fields()
        .iter()
        .find(|f| !table.fields().iter().any(|t| id_of(t) == id_of(f)))
    {
        return Err(IcebergError::UnknownFieldId {
            path: extra.name().clone(),
            id: id_of(extra),
        });
    }
    let mut required = Vec::new();
    for (column, table_field) in table.fields().iter().enumerate() {
        let batch_field = batch.field(columns[column].0);
        collect_required(
            table_field,
            batch_field,
            column,
            &mut Vec::new(),
            table_field.name().clone(),
            &mut required,
        );
    }
    Ok(Plan {
        batch_schema: Arc::clone(batch),
        columns,
        required,
    })
}

fn id_of(field: &Field) -> i32 {
    // `field_ids` has checked every batch field; table fields come from iceberg with IDs.
    field
        .metadata()
        .get(FIELD_ID_KEY)
        .and_then(|v| v.parse().ok())
        .unwrap_or(-1)
}

fn top_level_fixup(table: &Field, batch: &Field) -> Result<Fixup> {
    match (table.data_type(), batch.data_type()) {
        (DataType::Timestamp(TimeUnit::Microsecond, want), DataType::Timestamp(_, have))
            if want.is_some() == have.is_some() =>
        {
            Ok(if table.data_type() == batch.data_type() {
                Fixup::None
            } else {
                Fixup::Timestamp
            })
        }
        (
            DataType::Time64(TimeUnit::Microsecond),
            DataType::Time32(TimeUnit::Second | TimeUnit::Millisecond),
        )
        | (DataType::Int32, DataType::Int8 | DataType::Int16) => Ok(Fixup::Cast),
        _ => {
            check_nested(table.name(), table, batch)?;
            Ok(Fixup::None)
        }
    }
}

fn type_mismatch(path: &str, table: &Field, batch: &Field) -> IcebergError {
    IcebergError::TypeMismatch {
        path: path.to_string(),
        id: id_of(table),
        table: table.data_type().to_string(),
        batch: batch.data_type().to_string(),
    }
}

/// Whether the batch field `have` can be written as the table field `want` at `path`: the
/// same type up to names and metadata, string, binary and list encodings parquet-rs writes
/// alike, and nested children lined up by ID. The error names the deepest field that differs.
fn check_nested(path: &str, want: &Field, have: &Field) -> Result<()> {
    use DataType::*;
    let children = |want: &FieldRef, have: &FieldRef, name: &str| {
        let child_path = format!("{path}.{name}");
        if id_of(want) != id_of(have) {
            return Err(IcebergError::Invalid(format!(
                "field `{child_path}` has field ID {}, but the table has ID {} there; nested \
                 fields must be in the table's order",
                id_of(have),
                id_of(want)
            )));
        }
        check_nested(&child_path, want, have)
    };
    match (want.data_type(), have.data_type()) {
        (Utf8 | LargeUtf8 | Utf8View, Utf8 | LargeUtf8 | Utf8View) => Ok(()),
        (Binary | LargeBinary | BinaryView, Binary | LargeBinary | BinaryView) => Ok(()),
        (List(w) | LargeList(w), List(h) | LargeList(h)) => children(w, h, "element"),
        (Struct(w), Struct(h)) => {
            if w.len() != h.len() {
                return Err(IcebergError::Invalid(format!(
                    "field `{path}` has {} nested fields, but the table has {}",
                    h.len(),
                    w.len()
                )));
            }
            w.iter()
                .zip(h.iter())
                .try_for_each(|(w, h)| children(w, h, w.name()))
        }
        (Map(w, _), Map(h, _)) => match (w.data_type(), h.data_type()) {
            (Struct(wkv), Struct(hkv)) if wkv.len() == 2 && hkv.len() == 2 => {
                children(&wkv[0], &hkv[0], "key")?;
                children(&wkv[1], &hkv[1], "value")
            }
            _ => Err(type_mismatch(path, want, have)),
        },
        (w, h) if w == h => Ok(()),
        _ => Err(type_mismatch(path, want, have)),
    }
}

fn collect_required(
    table: &Field,
    batch: &Field,
    column: usize,
    steps: &mut Vec<usize>,
    path: String,
    out: &mut Vec<RequiredCheck>,
) {
    if !table.is_nullable() && batch.is_nullable() {
        out.push(RequiredCheck {
            column,
            steps: steps.clone(),
            path: path.clone(),
        });
    }
    if let (DataType::Struct(want), DataType::Struct(have)) = (table.data_type(), batch.data_type())
    {
        for (i, (w, h)) in want.iter().zip(have.iter()).enumerate() {
            steps.push(i);
            collect_required(w, h, column, steps, format!("{path}.{}", w.name()), out);
            steps.pop();
        }
    }
}

/// NULLs of the field `steps` below `column`, counting only rows whose parents are valid.
fn required_nulls(column: &ArrayRef, steps: &[usize]) -> usize {
    let mut array: ArrayRef = Arc::clone(column);
    let mut parents: Option<NullBuffer> = None;
    for &step in steps {
        parents = NullBuffer::union(parents.as_ref(), array.logical_nulls().as_ref());
        array = Arc::clone(array.as_struct().column(step));
    }
    let Some(nulls) = array.logical_nulls() else {
        return 0;
    };
    match parents {
        // A NULL under a NULL parent is not a value of the required field.
        Some(parents) => (0..nulls.len())
            .filter(|&i| nulls.is_null(i) && parents.is_valid(i))
            .count(),
        None => nulls.null_count(),
    }
}

fn timestamp(column: &ArrayRef, table: &DataType) -> Result<ArrayRef> {
    let not_micros = || {
        IcebergError::Invalid(format!(
            "a timestamp fix-up of {} into {table}: Iceberg timestamps are microseconds",
            column.data_type()
        ))
    };
    let DataType::Timestamp(TimeUnit::Microsecond, zone) = table else {
        return Err(not_micros());
    };
    let converted = streamfusion_bridge::timestamps::convert_timestamp_unit(
        column.as_ref(),
        TimeUnit::Microsecond,
    )?;
    // Relabelled with the table's zone spelling: the same buffers.
    let micros = converted
        .as_primitive_opt::<arrow::datatypes::TimestampMicrosecondType>()
        .ok_or_else(not_micros)?
        .clone();
    Ok(Arc::new(micros.with_timezone_opt(zone.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{
        Int16Array, Int32Array, Int64Array, StringArray, StructArray, Time32MillisecondArray,
        TimestampMillisecondArray,
    };
    use std::collections::HashMap;

    fn with_id(field: Field, id: i32) -> Field {
        field.with_metadata(HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]))
    }

    fn table() -> SchemaRef {
        let point = DataType::Struct(
            vec![
                with_id(Field::new("x", DataType::Int64, false), 5),
                with_id(Field::new("y", DataType::Int64, true), 6),
            ]
            .into(),
        );
        Arc::new(Schema::new(vec![
            with_id(Field::new("id", DataType::Int64, false), 1),
            with_id(Field::new("name", DataType::Utf8, true), 2),
            with_id(Field::new("p", point, true), 3),
            with_id(
                Field::new(
                    "ts",
                    DataType::Timestamp(TimeUnit::Microsecond, Some("+00:00".into())),
                    true,
                ),
                4,
            ),
        ]))
    }

    fn point(xs: Vec<Option<i64>>, valid: Option<Vec<bool>>) -> ArrayRef {
        let n = xs.len();
        Arc::new(StructArray::new(
            vec![
                Arc::new(with_id(Field::new("x", DataType::Int64, true), 5)),
                Arc::new(with_id(Field::new("y", DataType::Int64, true), 6)),
            ]
            .into(),
            vec![
                Arc::new(Int64Array::from(xs)),
                Arc::new(Int64Array::from(vec![7; n])),
            ],
            valid.map(NullBuffer::from),
        ))
    }

    /// The batch's columns in another order, the timestamp in milliseconds labelled "UTC".
    fn batch(ids: Vec<Option<i64>>, xs: Vec<Option<i64>>, valid: Option<Vec<bool>>) -> RecordBatch {
        let n = ids.len();
        let p = point(xs, valid);
        let schema = Schema::new(vec![
            with_id(
                Field::new(
                    "when",
                    DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
                    true,
                ),
                4,
            ),
            with_id(Field::new("ident", DataType::Int64, true), 1),
            with_id(Field::new("point", p.data_type().clone(), true), 3),
            with_id(Field::new("n", DataType::Utf8, true), 2),
        ]);
        let ts = TimestampMillisecondArray::from(vec![Some(-1_i64); n]).with_timezone("UTC");
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(ts),
                Arc::new(Int64Array::from(ids)),
                p,
                Arc::new(StringArray::from(vec![Some("a"); n])),
            ],
        )
        .unwrap()
    }

    #[test]
    fn columns_are_put_in_table_order_and_timestamps_fixed() {
        let mut columns = TableColumns::new(table());
        let out = columns
            .conform(&batch(vec![Some(1), Some(2)], vec![Some(1), Some(2)], None))
            .unwrap();
        let schema = out.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["id", "name", "p", "ts"]);
        assert_eq!(
            out.column(0)
                .as_primitive::<arrow::datatypes::Int64Type>()
                .values(),
            &[1, 2]
        );
        // -1 ms is -1,000 µs, in the table's zone spelling.
        let ts = out.column(3);
        assert_eq!(ts.data_type(), table().field(3).data_type());
        assert_eq!(
            ts.as_primitive::<arrow::datatypes::TimestampMicrosecondType>()
                .value(0),
            -1_000
        );
    }

    #[test]
    fn nulls_in_required_fields_are_named_but_not_under_null_parents() {
        let mut columns = TableColumns::new(table());
        let err = columns
            .conform(&batch(vec![Some(1), None], vec![Some(1), Some(2)], None))
            .unwrap_err();
        assert!(
            matches!(&err, IcebergError::NullInRequired { path, nulls: 1 } if path == "id"),
            "{err}"
        );
        // p.x is NULL only where p itself is NULL: allowed.
        columns
            .conform(&batch(
                vec![Some(1), Some(2)],
                vec![Some(1), None],
                Some(vec![true, false]),
            ))
            .unwrap();
        let err = columns
            .conform(&batch(vec![Some(1), Some(2)], vec![None, Some(1)], None))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "field `p.x` has 1 NULL value(s), but table column `p.x` is required"
        );
    }

    #[test]
    fn schema_errors_name_the_field() {
        let good = batch(vec![Some(1)], vec![Some(1)], None);
        let mut columns = TableColumns::new(table());

        // A field without an ID.
        let mut fields: Vec<Field> = good
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields[3] = Field::new("n", DataType::Utf8, true);
        let bad = RecordBatch::try_new(
            Arc::new(Schema::new(fields.clone())),
            good.columns().to_vec(),
        )
        .unwrap();
        let err = columns.conform(&bad).unwrap_err();
        assert!(
            err.to_string()
                .contains("field `n` has no `PARQUET:field_id`"),
            "{err}"
        );

        // A wrong type.
        fields[3] = with_id(Field::new("n", DataType::Int32, true), 2);
        let mut cols = good.columns().to_vec();
        cols[3] = Arc::new(Int32Array::from(vec![1]));
        let bad = RecordBatch::try_new(Arc::new(Schema::new(fields.clone())), cols).unwrap();
        let err = columns.conform(&bad).unwrap_err();
        assert_eq!(
            err.to_string(),
            "field `name` is Int32, but table column `name` (ID 2) needs Utf8"
        );

        // An unknown ID, and a missing column.
        fields[3] = with_id(Field::new("n", DataType::Utf8, true), 99);
        let bad =
            RecordBatch::try_new(Arc::new(Schema::new(fields)), good.columns().to_vec()).unwrap();
        let err = columns.conform(&bad).unwrap_err();
        assert!(
            matches!(err, IcebergError::MissingColumn { id: 2, .. }),
            "{err}"
        );

        // Nested children out of the table's order.
        let swapped = DataType::Struct(
            vec![
                with_id(Field::new("y", DataType::Int64, true), 6),
                with_id(Field::new("x", DataType::Int64, true), 5),
            ]
            .into(),
        );
        let mut fields: Vec<Field> = good
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields[2] = with_id(Field::new("point", swapped.clone(), true), 3);
        let p = StructArray::new_null(
            match swapped {
                DataType::Struct(f) => f,
                _ => unreachable!(),
            },
            1,
        );
        let mut cols = good.columns().to_vec();
        cols[2] = Arc::new(p);
        let bad = RecordBatch::try_new(Arc::new(Schema::new(fields)), cols).unwrap();
        let err = columns.conform(&bad).unwrap_err();
        assert!(
            err.to_string().contains("field `p.x` has field ID 6"),
            "{err}"
        );
    }

    #[test]
    fn flink_narrow_types_widen() {
        let table = Arc::new(Schema::new(vec![
            with_id(Field::new("s", DataType::Int32, true), 1),
            with_id(
                Field::new("t", DataType::Time64(TimeUnit::Microsecond), true),
                2,
            ),
        ]));
        let schema = Arc::new(Schema::new(vec![
            with_id(Field::new("s", DataType::Int16, true), 1),
            with_id(
                Field::new("t", DataType::Time32(TimeUnit::Millisecond), true),
                2,
            ),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int16Array::from(vec![Some(-3), None])),
                Arc::new(Time32MillisecondArray::from(vec![Some(1_500), None])),
            ],
        )
        .unwrap();
        let out = TableColumns::new(table).conform(&batch).unwrap();
        assert_eq!(
            out.column(0)
                .as_primitive::<arrow::datatypes::Int32Type>()
                .value(0),
            -3
        );
        assert_eq!(
            out.column(1)
                .as_primitive::<arrow::datatypes::Time64MicrosecondType>()
                .value(0),
            1_500_000
        );
        assert_eq!(out.column(1).null_count(), 1);
    }
}
