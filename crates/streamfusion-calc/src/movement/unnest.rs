//! `UNNEST` of arrays, maps and arrays of ROWs, as Flink's correlate with
//! `UnnestRowsFunction` / `UnnestRowsWithOrdinalityFunction`.
//!
//! The input columns listed in `repeat` (Flink's planner prunes the correlate's input to the
//! fields the query uses) are repeated once per element, followed by the element's columns:
//! - `ARRAY<T>`: one column, the element (NULL elements give NULL);
//! - `ARRAY<ROW<...>>`: the ROW's fields (a NULL ROW gives NULL fields);
//! - `MAP<K, V>`: the key and the value, in the map's entry order;
//! - `WITH ORDINALITY`: then the element's 1-based position as `INT`.
//!
//! `CROSS JOIN UNNEST` ([`UnnestJoin::Inner`]) drops rows whose collection is NULL or empty;
//! `LEFT JOIN UNNEST ... ON TRUE` ([`UnnestJoin::Left`]) keeps them once, with NULL element
//! columns (and a NULL ordinality). Every output row keeps its input row's kind.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Int32Array, RecordBatch, RecordBatchOptions, StructArray, UInt32Array,
};
use arrow::buffer::NullBuffer;
use arrow::compute::take;
use arrow::datatypes::{DataType, Field, Schema};

use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};

/// How rows with a NULL or empty collection are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnnestJoin {
    /// `CROSS JOIN UNNEST`: dropped.
    Inner,
    /// `LEFT JOIN UNNEST ... ON TRUE`: kept once, with NULL element columns.
    Left,
}

/// Unnests column `column` of `input`, repeating the input columns `repeat` (see the module
/// documentation).
pub fn unnest(
    input: &ChangelogBatch,
    column: usize,
    repeat: &[usize],
    join: UnnestJoin,
    ordinality: bool,
) -> Result<ChangelogBatch> {
    let batch = input.batch();
    let collection = batch.columns().get(column).ok_or_else(|| {
        Error::InvalidShape(format!(
            "UNNEST column {column} does not exist in a batch of {} columns",
            batch.num_columns()
        ))
    })?;
    let (offsets, values, entry_names): (Vec<i64>, ArrayRef, Option<[&str; 2]>) =
        match collection.data_type() {
            DataType::List(_) => {
                let list = collection.as_list::<i32>();
                (
                    list.offsets().iter().map(|&o| i64::from(o)).collect(),
                    Arc::clone(list.values()),
                    None,
                )
            }
            DataType::LargeList(_) => {
                let list = collection.as_list::<i64>();
                (list.offsets().to_vec(), Arc::clone(list.values()), None)
            }
            DataType::Map(_, _) => {
                let map = collection.as_map();
                (
                    map.offsets().iter().map(|&o| i64::from(o)).collect(),
                    Arc::new(map.entries().clone()),
                    Some(["key", "value"]),
                )
            }
            other => {
                return Err(Error::InvalidShape(format!(
                    "UNNEST of column {column}: {other} is not an ARRAY or MAP"
                )));
            }
        };
    let rows = batch.num_rows();
    let mut parents: Vec<u32> = Vec::with_capacity(values.len());
    let mut elements: Vec<Option<u32>> = Vec::with_capacity(values.len());
    let mut positions: Vec<Option<i32>> = Vec::new();
    for row in 0..rows {
        let (start, end) = if collection.is_valid(row) {
            (offsets[row], offsets[row + 1])
        } else {
            (0, 0)
        };
        if start == end {
            if join == UnnestJoin::Left {
                parents.push(row as u32);
                elements.push(None);
                if ordinality {
                    positions.push(None);
                }
            }
            continue;
        }
        for (i, element) in (start..end).enumerate() {
            parents.push(row as u32);
            elements.push(Some(element as u32));
            if ordinality {
                positions.push(Some(i as i32 + 1));
            }
        }
    }
    let parents = UInt32Array::from(parents);
    let elements = UInt32Array::from(elements);
    if let Some(&c) = repeat.iter().find(|&&c| c >= batch.num_columns()) {
        return Err(Error::InvalidShape(format!(
            "UNNEST repeats column {c}, which does not exist in a batch of {} columns",
            batch.num_columns()
        )));
    }
    let schema = batch.schema_ref();
    let mut fields: Vec<Arc<Field>> = repeat.iter().map(|&c| schema.fields()[c].clone()).collect();
    let mut columns = repeat
        .iter()
        .map(|&c| take(batch.column(c), &parents, None))
        .collect::<Result<Vec<_>, _>>()?;
    let taken = take(&values, &elements, None)?;
    match (taken.data_type(), entry_names) {
        (DataType::Struct(children), names) => {
            let rows = taken.as_struct();
            for (i, child) in children.iter().enumerate() {
                let name = names.map_or(child.name().as_str(), |n| n[i]);
                fields.push(Arc::new(Field::new(name, child.data_type().clone(), true)));
                columns.push(with_parent_nulls(rows, i)?);
            }
        }
        (ty, _) => {
            fields.push(Arc::new(Field::new("element", ty.clone(), true)));
            columns.push(taken);
        }
    }
    if ordinality {
        fields.push(Arc::new(Field::new("ordinality", DataType::Int32, true)));
        columns.push(Arc::new(Int32Array::from(positions)));
    }
    let out = RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(parents.len())),
    )?;
    let kinds = input
        .kinds()
        .map(|k| take(k, &parents, None).map(|a| a.as_primitive().clone()))
        .transpose()?;
    ChangelogBatch::try_new(out, kinds)
}

/// Child `i` of `rows`, NULL wherever the ROW itself is NULL.
fn with_parent_nulls(rows: &StructArray, i: usize) -> Result<ArrayRef> {
    let child = rows.column(i);
    let nulls = NullBuffer::union(rows.nulls(), child.nulls());
    if nulls.as_ref() == child.nulls() {
        return Ok(Arc::clone(child));
    }
    let data = child.to_data().into_builder().nulls(nulls).build()?;
    Ok(arrow::array::make_array(data))
}
