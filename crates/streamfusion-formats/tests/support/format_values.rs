//! The value representation of the format golden files, shared by `csv_flink.rs` and
//! `raw_flink.rs` (defined once in Java as `CsvFormatVectors.Values`).
//!
//! A row is a JSON array of its fields; a field: NULL `null`; BOOLEAN `"true"`/`"false"`;
//! TINYINT..BIGINT decimal text; FLOAT/DOUBLE the raw IEEE bits in lowercase hex (8/16
//! digits); DECIMAL(p, s) the unscaled value in decimal text; CHAR/VARCHAR the string;
//! BINARY/VARBINARY lowercase hex; DATE days since 1970-01-01; TIME milliseconds of the day;
//! TIMESTAMP/TIMESTAMP_LTZ `"<epoch millis>:<nanos of milli>"`; ARRAY and ROW a JSON array.
//!
//! Flink's `TimestampData` keeps nanoseconds at any precision; Arrow keeps the unit of the
//! precision (ms for p <= 3, us for p <= 6), so expected timestamps are compared after
//! flooring to that unit ([`normalize`]).

#![allow(dead_code)]

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, Date32Array, Decimal128Array,
    Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Int64Array, ListArray,
    StringArray, StructArray, Time32MillisecondArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Time32MillisecondType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use serde_json::Value;
use streamfusion_core::types::{LogicalType, RowField, array_item_field, row_arrow_fields};

/// The fields of a golden case's `ROW<...>` schema.
pub fn row_fields(schema: &str) -> Vec<RowField> {
    match schema.parse::<LogicalType>().unwrap() {
        LogicalType::Row(fields) => fields,
        other => panic!("not a row: {other}"),
    }
}

/// A golden case's DDL options (key -> value), without the generator's `direction` marker.
pub fn option_map(o: &Value) -> std::collections::BTreeMap<String, String> {
    o.as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.as_str() != "direction")
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn ts_parts(v: &Value) -> (i64, i64) {
    let s = v.as_str().unwrap();
    let (m, n) = s.split_once(':').unwrap();
    (m.parse().unwrap(), n.parse().unwrap())
}

/// The Arrow value of a timestamp in the unit of `precision`, `None` if it does not fit.
pub fn ts_value(v: &Value, precision: u8) -> Option<i64> {
    let (millis, nanos) = ts_parts(v);
    match precision {
        0..=3 => Some(millis),
        4..=6 => millis.checked_mul(1000)?.checked_add(nanos / 1000),
        _ => millis.checked_mul(1_000_000)?.checked_add(nanos),
    }
}

/// Whether a representation holds a timestamp that Arrow's unit for its precision cannot carry.
pub fn unrepresentable(ty: &LogicalType, v: &Value) -> bool {
    if v.is_null() {
        return false;
    }
    match ty {
        LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => ts_value(v, *p).is_none(),
        LogicalType::Array(e) => v.as_array().unwrap().iter().any(|x| unrepresentable(e, x)),
        LogicalType::Row(fs) => fs
            .iter()
            .zip(v.as_array().unwrap())
            .any(|(f, x)| unrepresentable(&f.ty, x)),
        _ => false,
    }
}

/// Flink's value as Arrow keeps it (timestamps floored to the unit).
pub fn normalize(ty: &LogicalType, v: &Value) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    match ty {
        LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => {
            let (millis, nanos) = ts_parts(v);
            let nanos = match p {
                0..=3 => 0,
                4..=6 => nanos / 1000 * 1000,
                _ => nanos,
            };
            Value::String(format!("{millis}:{nanos}"))
        }
        LogicalType::Array(e) => Value::Array(
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| normalize(e, x))
                .collect(),
        ),
        LogicalType::Row(fs) => Value::Array(
            fs.iter()
                .zip(v.as_array().unwrap())
                .map(|(f, x)| normalize(&f.ty, x))
                .collect(),
        ),
        _ => v.clone(),
    }
}

/// The representation of `array[i]`.
pub fn repr(ty: &LogicalType, array: &dyn Array, i: usize) -> Value {
    if array.is_null(i) {
        return Value::Null;
    }
    let s = |x: String| Value::String(x);
    match ty {
        LogicalType::Boolean => s(array.as_boolean().value(i).to_string()),
        LogicalType::TinyInt => s(array.as_primitive::<Int8Type>().value(i).to_string()),
        LogicalType::SmallInt => s(array.as_primitive::<Int16Type>().value(i).to_string()),
        LogicalType::Int => s(array.as_primitive::<Int32Type>().value(i).to_string()),
        LogicalType::BigInt => s(array.as_primitive::<Int64Type>().value(i).to_string()),
        LogicalType::Float => s(format!(
            "{:08x}",
            array.as_primitive::<Float32Type>().value(i).to_bits()
        )),
        LogicalType::Double => s(format!(
            "{:016x}",
            array.as_primitive::<Float64Type>().value(i).to_bits()
        )),
        LogicalType::Decimal { .. } => {
            s(array.as_primitive::<Decimal128Type>().value(i).to_string())
        }
        LogicalType::Char(_) | LogicalType::VarChar(_) => {
            s(array.as_string::<i32>().value(i).to_string())
        }
        LogicalType::Binary(_) | LogicalType::VarBinary(_) => {
            s(hex(array.as_binary::<i32>().value(i)))
        }
        LogicalType::Date => s(array.as_primitive::<Date32Type>().value(i).to_string()),
        LogicalType::Time(_) => s(array
            .as_primitive::<Time32MillisecondType>()
            .value(i)
            .to_string()),
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => {
            let (millis, nanos) = match array.data_type() {
                DataType::Timestamp(TimeUnit::Millisecond, _) => {
                    (array.as_primitive::<TimestampMillisecondType>().value(i), 0)
                }
                DataType::Timestamp(TimeUnit::Microsecond, _) => {
                    let v = array.as_primitive::<TimestampMicrosecondType>().value(i);
                    (v.div_euclid(1000), v.rem_euclid(1000) * 1000)
                }
                _ => {
                    let v = array.as_primitive::<TimestampNanosecondType>().value(i);
                    (v.div_euclid(1_000_000), v.rem_euclid(1_000_000))
                }
            };
            s(format!("{millis}:{nanos}"))
        }
        LogicalType::Array(e) => {
            let values = array.as_list::<i32>().value(i);
            Value::Array(
                (0..values.len())
                    .map(|k| repr(e, values.as_ref(), k))
                    .collect(),
            )
        }
        LogicalType::Row(fs) => {
            let st = array.as_struct();
            Value::Array(
                fs.iter()
                    .enumerate()
                    .map(|(k, f)| repr(&f.ty, st.column(k).as_ref(), i))
                    .collect(),
            )
        }
        other => panic!("no representation for {other}"),
    }
}

/// An Arrow array of `ty` holding the representations `values`.
pub fn build(ty: &LogicalType, values: &[&Value]) -> ArrayRef {
    let st = |v: &Value| v.as_str().map(str::to_string);
    match ty {
        LogicalType::Boolean => Arc::new(
            values
                .iter()
                .map(|v| st(v).map(|x| x == "true"))
                .collect::<BooleanArray>(),
        ),
        LogicalType::TinyInt => Arc::new(
            values
                .iter()
                .map(|v| st(v).map(|x| x.parse::<i8>().unwrap()))
                .collect::<Int8Array>(),
        ),
        LogicalType::SmallInt => Arc::new(
            values
                .iter()
                .map(|v| st(v).map(|x| x.parse::<i16>().unwrap()))
                .collect::<Int16Array>(),
        ),
        LogicalType::Int => Arc::new(
            values
                .iter()
                .map(|v| st(v).map(|x| x.parse::<i32>().unwrap()))
                .collect::<Int32Array>(),
        ),
        LogicalType::BigInt => Arc::new(
            values
                .iter()
                .map(|v| st(v).map(|x| x.parse::<i64>().unwrap()))
                .collect::<Int64Array>(),
        ),
        LogicalType::Float => Arc::new(
            values
                .iter()
                .map(|v| st(v).map(|x| f32::from_bits(u32::from_str_radix(&x, 16).unwrap())))
                .collect::<Float32Array>(),
        ),
        LogicalType::Double => Arc::new(
            values
                .iter()
                .map(|v| st(v).map(|x| f64::from_bits(u64::from_str_radix(&x, 16).unwrap())))
                .collect::<Float64Array>(),
        ),
        LogicalType::Decimal { precision, scale } => Arc::new(
            values
                .iter()
                .map(|v| st(v).map(|x| x.parse::<i128>().unwrap()))
                .collect::<Decimal128Array>()
                .with_precision_and_scale(*precision, *scale as i8)
                .unwrap(),
        ),
        LogicalType::Char(_) | LogicalType::VarChar(_) => {
            Arc::new(values.iter().map(|v| st(v)).collect::<StringArray>())
        }
        LogicalType::Binary(_) | LogicalType::VarBinary(_) => {
            let bytes: Vec<Option<Vec<u8>>> =
                values.iter().map(|v| st(v).map(|x| unhex(&x))).collect();
            Arc::new(bytes.iter().map(|b| b.as_deref()).collect::<BinaryArray>())
        }
        LogicalType::Date => Arc::new(
            values
                .iter()
                .map(|v| st(v).map(|x| x.parse::<i32>().unwrap()))
                .collect::<Date32Array>(),
        ),
        LogicalType::Time(_) => Arc::new(
            values
                .iter()
                .map(|v| st(v).map(|x| x.parse::<i32>().unwrap()))
                .collect::<Time32MillisecondArray>(),
        ),
        LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => {
            let ints: Int64Array = values
                .iter()
                .map(|v| if v.is_null() { None } else { ts_value(v, *p) })
                .collect();
            let data = ints
                .into_data()
                .into_builder()
                .data_type(ty.to_arrow())
                .build()
                .unwrap();
            arrow::array::make_array(data)
        }
        LogicalType::Array(e) => {
            let mut offsets = vec![0i32];
            let mut items: Vec<&Value> = Vec::new();
            for v in values {
                if let Some(a) = v.as_array() {
                    items.extend(a.iter());
                }
                offsets.push(items.len() as i32);
            }
            let child = build(e, &items);
            let nulls = NullBuffer::from(values.iter().map(|v| !v.is_null()).collect::<Vec<_>>());
            Arc::new(
                ListArray::try_new(
                    array_item_field(e),
                    OffsetBuffer::new(offsets.into()),
                    child,
                    Some(nulls),
                )
                .unwrap(),
            )
        }
        LogicalType::Row(fs) => {
            let null = Value::Null;
            let children: Vec<ArrayRef> = fs
                .iter()
                .enumerate()
                .map(|(k, f)| {
                    let col: Vec<&Value> = values
                        .iter()
                        .map(|v| v.as_array().map_or(&null, |a| &a[k]))
                        .collect();
                    build(&f.ty, &col)
                })
                .collect();
            let nulls = NullBuffer::from(values.iter().map(|v| !v.is_null()).collect::<Vec<_>>());
            Arc::new(StructArray::try_new(row_arrow_fields(fs), children, Some(nulls)).unwrap())
        }
        other => panic!("no representation for {other}"),
    }
}

/// The golden file's lines after the header, checking the header.
pub fn golden_lines(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["flink"], "2.3.0");
    lines.map(|l| serde_json::from_str(l).unwrap()).collect()
}
