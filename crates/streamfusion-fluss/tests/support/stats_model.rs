//! A row-by-row model of Fluss's column statistics, written plainly: walk the rows, skip
//! NULLs, keep the smallest and largest value seen (ties keep the first), comparing floats
//! as Java's `Float.compare`/`Double.compare` and strings by their UTF-8 bytes.
#![allow(dead_code)]

use std::cmp::Ordering;

use arrow::array::{Array, AsArray};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Time32MillisecondType, TimeUnit, TimestampMicrosecondType,
};
use bench_support::oracles::java_double_compare;
use streamfusion_fluss::{Bounds, ColumnStatistics, Scalar};

fn scalar_cmp(a: &Scalar, b: &Scalar) -> Ordering {
    match (a, b) {
        (Scalar::Boolean(a), Scalar::Boolean(b)) => a.cmp(b),
        (Scalar::Int8(a), Scalar::Int8(b)) => a.cmp(b),
        (Scalar::Int16(a), Scalar::Int16(b)) => a.cmp(b),
        (Scalar::Int32(a), Scalar::Int32(b)) => a.cmp(b),
        (Scalar::Int64(a), Scalar::Int64(b)) => a.cmp(b),
        (Scalar::Date32(a), Scalar::Date32(b)) => a.cmp(b),
        (Scalar::Time32(a), Scalar::Time32(b)) => a.cmp(b),
        (Scalar::Timestamp(a), Scalar::Timestamp(b)) => a.cmp(b),
        (Scalar::Decimal128(a), Scalar::Decimal128(b)) => a.cmp(b),
        (Scalar::Float32(a), Scalar::Float32(b)) => {
            java_double_compare(f64::from(*a), f64::from(*b))
        }
        (Scalar::Float64(a), Scalar::Float64(b)) => java_double_compare(*a, *b),
        (Scalar::Utf8(a), Scalar::Utf8(b)) => a.as_bytes().cmp(b.as_bytes()),
        _ => panic!("mixed scalars {a:?} {b:?}"),
    }
}

/// Row `row` of `array` as a scalar, for the types the model knows; `None` for NULL.
fn value(array: &dyn Array, row: usize) -> Option<Scalar> {
    if array.is_null(row) {
        return None;
    }
    Some(match array.data_type() {
        DataType::Boolean => Scalar::Boolean(array.as_boolean().value(row)),
        DataType::Int8 => Scalar::Int8(array.as_primitive::<Int8Type>().value(row)),
        DataType::Int16 => Scalar::Int16(array.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => Scalar::Int32(array.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => Scalar::Int64(array.as_primitive::<Int64Type>().value(row)),
        DataType::Float32 => Scalar::Float32(array.as_primitive::<Float32Type>().value(row)),
        DataType::Float64 => Scalar::Float64(array.as_primitive::<Float64Type>().value(row)),
        DataType::Date32 => Scalar::Date32(array.as_primitive::<Date32Type>().value(row)),
        DataType::Time32(TimeUnit::Millisecond) => {
            Scalar::Time32(array.as_primitive::<Time32MillisecondType>().value(row))
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            Scalar::Timestamp(array.as_primitive::<TimestampMicrosecondType>().value(row))
        }
        DataType::Decimal128(..) => {
            Scalar::Decimal128(array.as_primitive::<Decimal128Type>().value(row))
        }
        DataType::Utf8 => Scalar::Utf8(array.as_string::<i32>().value(row).to_owned()),
        other => panic!("the statistics model has no {other}"),
    })
}

/// The model's statistics of `array`; types without bounds in Fluss (binary) get counts.
pub fn model_statistics(array: &dyn Array) -> ColumnStatistics {
    let mut null_count = 0;
    let mut bounds: Option<(Scalar, Scalar)> = None;
    let has_bounds = !matches!(array.data_type(), DataType::Binary);
    for row in 0..array.len() {
        if array.is_null(row) {
            null_count += 1;
            continue;
        }
        if !has_bounds {
            continue;
        }
        let v = value(array, row).expect("non-NULL");
        bounds = Some(match bounds {
            None => (v.clone(), v),
            Some((min, max)) => {
                let min = if scalar_cmp(&v, &min) == Ordering::Less {
                    v.clone()
                } else {
                    min
                };
                let max = if scalar_cmp(&v, &max) == Ordering::Greater {
                    v
                } else {
                    max
                };
                (min, max)
            }
        });
    }
    ColumnStatistics {
        row_count: array.len(),
        null_count,
        bounds: bounds.map(|(min, max)| Bounds { min, max }),
    }
}

/// Bit-exact equality of statistics (NaN bounds compare by their bits).
pub fn same_statistics(a: &ColumnStatistics, b: &ColumnStatistics) -> bool {
    fn bits(s: &Scalar) -> Scalar {
        match s {
            Scalar::Float32(f) => Scalar::Int64(i64::from(f.to_bits())),
            Scalar::Float64(f) => Scalar::Decimal128(i128::from(f.to_bits())),
            other => other.clone(),
        }
    }
    let bounds = |s: &ColumnStatistics| s.bounds.as_ref().map(|b| (bits(&b.min), bits(&b.max)));
    a.row_count == b.row_count && a.null_count == b.null_count && bounds(a) == bounds(b)
}
