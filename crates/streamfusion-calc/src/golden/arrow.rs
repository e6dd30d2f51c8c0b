//! Golden cells to Arrow columns and back, for the Arrow types StreamFusion maps each
//! Flink type to (see [`LogicalType::to_arrow`]).

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, Date32Array, Decimal128Array,
    Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Int64Array, ListArray,
    StringArray, StructArray, Time32MillisecondArray, TimestampMicrosecondArray,
    TimestampMillisecondArray, TimestampNanosecondArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Time32MillisecondType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};

use super::cell::Cell;
use crate::types::LogicalType;

const NANOS_PER_MILLI: i128 = 1_000_000;

fn wrong(cell: &Cell, ty: &LogicalType) -> String {
    format!("{cell} is not a {ty} value")
}

/// Timestamps as the Arrow unit's count, refusing precision the unit cannot hold.
fn timestamp_in(n: i128, per_unit: i128, ty: &LogicalType) -> Result<i64, String> {
    if n.rem_euclid(per_unit) != 0 {
        return Err(format!("{ty}: {n} ns is finer than the column's unit"));
    }
    i64::try_from(n.div_euclid(per_unit)).map_err(|_| format!("{ty}: {n} ns is out of range"))
}

/// An Arrow column of `ty` holding `cells`.
pub fn input_array(ty: &LogicalType, cells: &[&Cell]) -> Result<ArrayRef, String> {
    use LogicalType::*;
    macro_rules! collect {
        ($array:ty, $pat:pat => $value:expr) => {{
            let values: Result<Vec<_>, String> = cells
                .iter()
                .map(|c| match c {
                    Cell::Null => Ok(None),
                    $pat => Ok(Some($value)),
                    other => Err(wrong(other, ty)),
                })
                .collect();
            Arc::new(values?.into_iter().collect::<$array>()) as ArrayRef
        }};
    }
    Ok(match ty {
        Boolean => collect!(BooleanArray, Cell::Bool(b) => *b),
        TinyInt => collect!(Int8Array, Cell::Int(i) => *i as i8),
        SmallInt => collect!(Int16Array, Cell::Int(i) => *i as i16),
        Int => collect!(Int32Array, Cell::Int(i) => *i as i32),
        BigInt => collect!(Int64Array, Cell::Int(i) => *i as i64),
        Float => collect!(Float32Array, Cell::Float(bits, 32) => f32::from_bits(*bits as u32)),
        Double => collect!(Float64Array, Cell::Float(bits, 64) => f64::from_bits(*bits)),
        Decimal { precision, scale } => {
            let values: Result<Vec<_>, String> = cells
                .iter()
                .map(|c| match c {
                    Cell::Null => Ok(None),
                    Cell::Decimal(v, _) => Ok(Some(*v)),
                    other => Err(wrong(other, ty)),
                })
                .collect();
            Arc::new(
                values?
                    .into_iter()
                    .collect::<Decimal128Array>()
                    .with_precision_and_scale(*precision, *scale as i8)
                    .map_err(|e| format!("{ty}: {e}"))?,
            )
        }
        Char(_) | VarChar(_) => collect!(StringArray, Cell::Str(s) => s.as_str()),
        Binary(_) | VarBinary(_) => collect!(BinaryArray, Cell::Bytes(b) => b.as_slice()),
        Date => collect!(Date32Array, Cell::Date(d) => *d),
        Time(_) => {
            let values: Result<Vec<_>, String> = cells
                .iter()
                .map(|c| match c {
                    Cell::Null => Ok(None),
                    Cell::Time(n) if n % 1_000_000 == 0 => Ok(Some((n / 1_000_000) as i32)),
                    other => Err(wrong(other, ty)),
                })
                .collect();
            Arc::new(values?.into_iter().collect::<Time32MillisecondArray>())
        }
        Timestamp(_) | TimestampLtz(_) => {
            let DataType::Timestamp(unit, tz) = ty.to_arrow() else {
                return Err(format!("{ty} is not an Arrow timestamp"));
            };
            let per_unit = match unit {
                TimeUnit::Second => 1_000_000_000,
                TimeUnit::Millisecond => NANOS_PER_MILLI,
                TimeUnit::Microsecond => 1_000,
                TimeUnit::Nanosecond => 1,
            };
            let values: Result<Vec<_>, String> = cells
                .iter()
                .map(|c| match c {
                    Cell::Null => Ok(None),
                    Cell::Timestamp(n) => timestamp_in(*n, per_unit, ty).map(Some),
                    other => Err(wrong(other, ty)),
                })
                .collect();
            let values = values?;
            match unit {
                TimeUnit::Millisecond => {
                    Arc::new(TimestampMillisecondArray::from(values).with_timezone_opt(tz))
                        as ArrayRef
                }
                TimeUnit::Microsecond => {
                    Arc::new(TimestampMicrosecondArray::from(values).with_timezone_opt(tz))
                }
                _ => Arc::new(TimestampNanosecondArray::from(values).with_timezone_opt(tz)),
            }
        }
        Array(_) | Map(..) => {
            let DataType::List(field) = ty.to_arrow() else {
                return Err(format!("{ty} is not an Arrow list"));
            };
            let mut lengths = Vec::with_capacity(cells.len());
            let mut children: Vec<Cell> = Vec::new();
            for c in cells {
                match (c, ty) {
                    (Cell::Null, _) => lengths.push(0),
                    (Cell::List(items), Array(_)) => {
                        lengths.push(items.len());
                        children.extend(items.iter().cloned());
                    }
                    (Cell::Map(entries), Map(..)) => {
                        lengths.push(entries.len());
                        children.extend(
                            entries
                                .iter()
                                .map(|(k, v)| Cell::List(vec![k.clone(), v.clone()])),
                        );
                    }
                    (other, _) => return Err(wrong(other, ty)),
                }
            }
            let child_type = match ty {
                Array(element) => (**element).clone(),
                Map(key, value) => LogicalType::Row(vec![
                    crate::types::RowField {
                        name: "key".into(),
                        ty: (**key).clone(),
                    },
                    crate::types::RowField {
                        name: "value".into(),
                        ty: (**value).clone(),
                    },
                ]),
                _ => unreachable!("matched above"),
            };
            let values = if let (Map(..), DataType::Struct(fields)) = (ty, field.data_type()) {
                // The entries' struct takes the map's own field names and nullability.
                let entries = input_array(&child_type, &children.iter().collect::<Vec<_>>())?;
                let entries = entries.as_struct();
                Arc::new(StructArray::new(
                    fields.clone(),
                    entries.columns().to_vec(),
                    None,
                )) as ArrayRef
            } else {
                input_array(&child_type, &children.iter().collect::<Vec<_>>())?
            };
            let nulls = NullBuffer::from(
                cells
                    .iter()
                    .map(|c| !matches!(c, Cell::Null))
                    .collect::<Vec<_>>(),
            );
            Arc::new(
                ListArray::try_new(
                    field,
                    OffsetBuffer::from_lengths(lengths),
                    values,
                    Some(nulls),
                )
                .map_err(|e| format!("{ty}: {e}"))?,
            )
        }
        Row(fields) => {
            let DataType::Struct(arrow_fields) = ty.to_arrow() else {
                return Err(format!("{ty} is not an Arrow struct"));
            };
            let mut columns = Vec::with_capacity(fields.len());
            for (i, f) in fields.iter().enumerate() {
                let field_cells: Vec<&Cell> = cells
                    .iter()
                    .map(|c| match c {
                        Cell::List(values) => values.get(i).ok_or_else(|| wrong(c, ty)),
                        _ => Ok(&Cell::Null),
                    })
                    .collect::<Result<_, _>>()?;
                columns.push(input_array(&f.ty, &field_cells)?);
            }
            let nulls = NullBuffer::from(
                cells
                    .iter()
                    .map(|c| !matches!(c, Cell::Null))
                    .collect::<Vec<_>>(),
            );
            Arc::new(
                StructArray::try_new(arrow_fields, columns, Some(nulls))
                    .map_err(|e| format!("{ty}: {e}"))?,
            )
        }
        other => return Err(format!("no input column for {other}")),
    })
}

/// Row `row` of `column` (of type `ty`) as a cell.
pub fn output_cell(column: &dyn Array, row: usize, ty: &LogicalType) -> Result<Cell, String> {
    if column.is_null(row) {
        return Ok(Cell::Null);
    }
    Ok(match (column.data_type(), ty) {
        (DataType::Boolean, _) => Cell::Bool(column.as_boolean().value(row)),
        (DataType::Int8, _) => Cell::Int(column.as_primitive::<Int8Type>().value(row).into()),
        (DataType::Int16, _) => Cell::Int(column.as_primitive::<Int16Type>().value(row).into()),
        (DataType::Int32, _) => Cell::Int(column.as_primitive::<Int32Type>().value(row).into()),
        (DataType::Int64, _) => Cell::Int(column.as_primitive::<Int64Type>().value(row).into()),
        (DataType::Float32, _) => Cell::Float(
            column
                .as_primitive::<Float32Type>()
                .value(row)
                .to_bits()
                .into(),
            32,
        ),
        (DataType::Float64, _) => Cell::Float(
            column.as_primitive::<Float64Type>().value(row).to_bits(),
            64,
        ),
        (DataType::Decimal128(_, scale), _) => Cell::Decimal(
            column.as_primitive::<Decimal128Type>().value(row),
            *scale as u8,
        ),
        (DataType::Utf8, _) => Cell::Str(column.as_string::<i32>().value(row).to_string()),
        (DataType::Binary, _) => Cell::Bytes(column.as_binary::<i32>().value(row).to_vec()),
        (DataType::Date32, _) => Cell::Date(column.as_primitive::<Date32Type>().value(row)),
        (DataType::Time32(TimeUnit::Millisecond), _) => Cell::Time(
            i64::from(column.as_primitive::<Time32MillisecondType>().value(row)) * 1_000_000,
        ),
        (DataType::Timestamp(unit, _), _) => Cell::Timestamp(match unit {
            TimeUnit::Millisecond => {
                i128::from(column.as_primitive::<TimestampMillisecondType>().value(row))
                    * NANOS_PER_MILLI
            }
            TimeUnit::Microsecond => {
                i128::from(column.as_primitive::<TimestampMicrosecondType>().value(row)) * 1_000
            }
            TimeUnit::Nanosecond => {
                i128::from(column.as_primitive::<TimestampNanosecondType>().value(row))
            }
            TimeUnit::Second => return Err(format!("{ty}: a second-unit timestamp column")),
        }),
        (DataType::List(_), LogicalType::Array(element)) => {
            let items = column.as_list::<i32>().value(row);
            Cell::List(
                (0..items.len())
                    .map(|i| output_cell(&items, i, element))
                    .collect::<Result<_, _>>()?,
            )
        }
        (DataType::List(_), LogicalType::Map(key, value)) => {
            let entries = column.as_list::<i32>().value(row);
            let entries = entries.as_struct();
            let (keys, values) = (entries.column(0), entries.column(1));
            Cell::Map(
                (0..entries.len())
                    .map(|i| Ok((output_cell(keys, i, key)?, output_cell(values, i, value)?)))
                    .collect::<Result<_, String>>()?,
            )
        }
        (DataType::Struct(_), LogicalType::Row(fields)) => {
            let row_array = column.as_struct();
            Cell::List(
                fields
                    .iter()
                    .zip(row_array.columns())
                    .map(|(f, c)| output_cell(c, row, &f.ty))
                    .collect::<Result<_, _>>()?,
            )
        }
        (other, _) => return Err(format!("no golden encoding for an output {other} of {ty}")),
    })
}
