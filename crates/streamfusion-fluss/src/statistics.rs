//! Column statistics of a batch, as Fluss's log writer collects them for a record batch:
//! row count, NULL count and the min/max bounds the server prunes batches with.
//!
//! Bounds follow Fluss's Arrow collector (fluss-rs 1.0.0 `src/record/statistics.rs`,
//! `column_bounds`, mirroring Java's `LogRecordBatchStatisticsCollector`):
//!
//! - Types with bounds: BOOLEAN (false < true), TINYINT … BIGINT, FLOAT, DOUBLE, DATE,
//!   TIME, TIMESTAMP, TIMESTAMP_LTZ, DECIMAL and STRING/CHAR (`Utf8`, `LargeUtf8`,
//!   `Utf8View`). Every other type (BINARY/BYTES included, as in Fluss) has no bounds, only
//!   counts.
//! - Strings compare bytewise over their UTF-8 (Arrow's `min_string`, and Java's
//!   `BinaryString.compareTo`).
//! - FLOAT/DOUBLE compare as Java's `Float.compare`/`Double.compare`: every NaN equals every
//!   other and sorts above +∞, and -0.0 sorts below 0.0. So a NaN is the max whenever the
//!   column has one, and the min only when every value is NaN. Ties keep the first value
//!   seen, so a NaN bound keeps the bits of the first NaN.
//! - NULLs are skipped; a column whose values are all NULL (or that has no rows) has no
//!   bounds.
//!
//! Bounds are [`Scalar`]s in the column's own Arrow representation (TIME and TIMESTAMP in
//! the array's unit, DECIMAL unscaled). Fluss serialises TIME as milliseconds and
//! TIMESTAMP as (milliseconds, nanosecond of millisecond); both conversions preserve order,
//! so the same values are the bounds.

use std::cmp::Ordering;

use arrow::array::{Array, AsArray, PrimitiveArray, RecordBatch};
use arrow::compute::kernels::aggregate;
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type,
    Int16Type, Int32Type, Int64Type, Time32MillisecondType, Time32SecondType,
    Time64MicrosecondType, Time64NanosecondType, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};

/// One bound value, in the column's Arrow representation.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// `BOOLEAN`
    Boolean(bool),
    /// `TINYINT`
    Int8(i8),
    /// `SMALLINT`
    Int16(i16),
    /// `INT`
    Int32(i32),
    /// `BIGINT`
    Int64(i64),
    /// `FLOAT` (NaN bits preserved)
    Float32(f32),
    /// `DOUBLE` (NaN bits preserved)
    Float64(f64),
    /// `DATE`: days since the epoch.
    Date32(i32),
    /// `TIME` from a `Time32` array, in its unit (seconds or milliseconds).
    Time32(i32),
    /// `TIME` from a `Time64` array, in its unit (micro- or nanoseconds).
    Time64(i64),
    /// `TIMESTAMP`/`TIMESTAMP_LTZ`, in the array's unit since the epoch.
    Timestamp(i64),
    /// `DECIMAL`: the unscaled value at the column's scale.
    Decimal128(i128),
    /// `STRING`/`CHAR`.
    Utf8(String),
}

/// The smallest and largest non-NULL value of a column.
#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    /// The minimum.
    pub min: Scalar,
    /// The maximum.
    pub max: Scalar,
}

/// Statistics of one column of a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnStatistics {
    /// Rows in the batch.
    pub row_count: usize,
    /// NULLs in the column.
    pub null_count: usize,
    /// Min and max, or `None` when the column has no non-NULL value or its type has no
    /// bounds in Fluss.
    pub bounds: Option<Bounds>,
}

/// Statistics of every column of `batch`, in column order.
pub fn batch_statistics(batch: &RecordBatch) -> Vec<ColumnStatistics> {
    batch
        .columns()
        .iter()
        .map(|column| column_statistics(column.as_ref()))
        .collect()
}

/// Statistics of one column.
pub fn column_statistics(array: &dyn Array) -> ColumnStatistics {
    ColumnStatistics {
        row_count: array.len(),
        null_count: array.null_count(),
        bounds: if array.null_count() == array.len() {
            None
        } else {
            bounds(array)
        },
    }
}

fn bounds(array: &dyn Array) -> Option<Bounds> {
    fn ordered<T: ArrowPrimitiveType>(
        array: &dyn Array,
        scalar: fn(T::Native) -> Scalar,
    ) -> Option<Bounds> {
        let array = array.as_primitive::<T>();
        Some(Bounds {
            min: scalar(aggregate::min(array)?),
            max: scalar(aggregate::max(array)?),
        })
    }
    fn strings(min: Option<&str>, max: Option<&str>) -> Option<Bounds> {
        Some(Bounds {
            min: Scalar::Utf8(min?.to_owned()),
            max: Scalar::Utf8(max?.to_owned()),
        })
    }
    match array.data_type() {
        DataType::Boolean => {
            let array = array.as_boolean();
            Some(Bounds {
                min: Scalar::Boolean(aggregate::min_boolean(array)?),
                max: Scalar::Boolean(aggregate::max_boolean(array)?),
            })
        }
        DataType::Int8 => ordered::<Int8Type>(array, Scalar::Int8),
        DataType::Int16 => ordered::<Int16Type>(array, Scalar::Int16),
        DataType::Int32 => ordered::<Int32Type>(array, Scalar::Int32),
        DataType::Int64 => ordered::<Int64Type>(array, Scalar::Int64),
        DataType::Float32 => {
            java_float_bounds(array.as_primitive::<Float32Type>()).map(|(min, max)| Bounds {
                min: Scalar::Float32(min),
                max: Scalar::Float32(max),
            })
        }
        DataType::Float64 => {
            java_float_bounds(array.as_primitive::<Float64Type>()).map(|(min, max)| Bounds {
                min: Scalar::Float64(min),
                max: Scalar::Float64(max),
            })
        }
        DataType::Date32 => ordered::<Date32Type>(array, Scalar::Date32),
        DataType::Time32(TimeUnit::Second) => ordered::<Time32SecondType>(array, Scalar::Time32),
        DataType::Time32(TimeUnit::Millisecond) => {
            ordered::<Time32MillisecondType>(array, Scalar::Time32)
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            ordered::<Time64MicrosecondType>(array, Scalar::Time64)
        }
        DataType::Time64(TimeUnit::Nanosecond) => {
            ordered::<Time64NanosecondType>(array, Scalar::Time64)
        }
        DataType::Timestamp(TimeUnit::Second, _) => {
            ordered::<TimestampSecondType>(array, Scalar::Timestamp)
        }
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            ordered::<TimestampMillisecondType>(array, Scalar::Timestamp)
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            ordered::<TimestampMicrosecondType>(array, Scalar::Timestamp)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            ordered::<TimestampNanosecondType>(array, Scalar::Timestamp)
        }
        DataType::Decimal128(_, _) => ordered::<Decimal128Type>(array, Scalar::Decimal128),
        DataType::Utf8 => {
            let array = array.as_string::<i32>();
            strings(aggregate::min_string(array), aggregate::max_string(array))
        }
        DataType::LargeUtf8 => {
            let array = array.as_string::<i64>();
            strings(aggregate::min_string(array), aggregate::max_string(array))
        }
        DataType::Utf8View => {
            let array = array.as_string_view();
            strings(
                aggregate::min_string_view(array),
                aggregate::max_string_view(array),
            )
        }
        _ => None,
    }
}

/// A float type ordered as Java's `Float.compare`/`Double.compare`.
trait JavaFloat: Copy {
    fn java_cmp(self, other: Self) -> Ordering;
}

macro_rules! java_float {
    ($t:ty) => {
        impl JavaFloat for $t {
            #[inline]
            fn java_cmp(self, other: Self) -> Ordering {
                match (self.is_nan(), other.is_nan()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    // -0.0 < 0.0, as Java.
                    (false, false) => self.total_cmp(&other),
                }
            }
        }
    };
}
java_float!(f32);
java_float!(f64);

/// Min and max of the non-NULL values under Java's order; ties keep the first seen.
fn java_float_bounds<T>(array: &PrimitiveArray<T>) -> Option<(T::Native, T::Native)>
where
    T: ArrowPrimitiveType,
    T::Native: JavaFloat,
{
    let mut values = array.iter().flatten();
    let first = values.next()?;
    Some(values.fold((first, first), |(min, max), v| {
        (
            if v.java_cmp(min).is_lt() { v } else { min },
            if v.java_cmp(max).is_gt() { v } else { max },
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow::array::{
        ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
        Float64Array, Int8Array, Int16Array, Int32Array, LargeStringArray, StringArray,
        StringViewArray, Time32SecondArray, TimestampNanosecondArray,
    };

    fn bounds_of(array: ArrayRef) -> Option<(Scalar, Scalar)> {
        column_statistics(array.as_ref())
            .bounds
            .map(|b| (b.min, b.max))
    }

    // Expected bounds: fluss-rs 1.0.0 `src/record/statistics.rs` tests
    // (`collects_bounds_for_boolean`, `..._the_narrow_integers`, `..._the_floating_types`,
    // `collects_bounds_for_char_like_a_string`, `..._date_as_epoch_days`,
    // `scales_a_second_precision_time_to_millis`, `splits_a_nanosecond_timestamp_...`).
    #[test]
    fn bounds_match_fluss_statistics_tests() {
        let bools = BooleanArray::from(vec![Some(true), Some(false), Some(true)]);
        assert_eq!(
            bounds_of(Arc::new(bools)),
            Some((Scalar::Boolean(false), Scalar::Boolean(true)))
        );
        assert_eq!(
            bounds_of(Arc::new(Int8Array::from(vec![7, -3]))),
            Some((Scalar::Int8(-3), Scalar::Int8(7)))
        );
        assert_eq!(
            bounds_of(Arc::new(Int16Array::from(vec![300, -300]))),
            Some((Scalar::Int16(-300), Scalar::Int16(300)))
        );
        assert_eq!(
            bounds_of(Arc::new(Float32Array::from(vec![2.5, -1.5]))),
            Some((Scalar::Float32(-1.5), Scalar::Float32(2.5)))
        );
        assert_eq!(
            bounds_of(Arc::new(Float64Array::from(vec![2.5, -1.5]))),
            Some((Scalar::Float64(-1.5), Scalar::Float64(2.5)))
        );
        assert_eq!(
            bounds_of(Arc::new(StringArray::from(vec!["bb", "aa"]))),
            Some((Scalar::Utf8("aa".into()), Scalar::Utf8("bb".into())))
        );
        assert_eq!(
            bounds_of(Arc::new(Date32Array::from(vec![19_000, 18_000]))),
            Some((Scalar::Date32(18_000), Scalar::Date32(19_000)))
        );
        // Fluss writes 3_600_000 and 7_200_000 ms; the array's own unit here.
        assert_eq!(
            bounds_of(Arc::new(Time32SecondArray::from(vec![7_200, 3_600]))),
            Some((Scalar::Time32(3_600), Scalar::Time32(7_200)))
        );
        // Fluss writes (1_000 ms, 654_321 ns) and (2_000 ms, 456_789 ns).
        assert_eq!(
            bounds_of(Arc::new(TimestampNanosecondArray::from(vec![
                2_000_456_789,
                1_000_654_321
            ]))),
            Some((
                Scalar::Timestamp(1_000_654_321),
                Scalar::Timestamp(2_000_456_789)
            ))
        );
    }

    // fluss-rs 1.0.0 `src/record/statistics.rs`, `orders_nan_bounds_like_java`.
    #[test]
    fn nan_is_the_largest_float_and_keeps_its_bits() {
        let neg_nan = f32::from_bits(0xFFC0_0000);
        let Some((Scalar::Float32(min), Scalar::Float32(max))) =
            bounds_of(Arc::new(Float32Array::from(vec![-0.0, neg_nan, 1.0])))
        else {
            panic!("float bounds")
        };
        assert_eq!(min.to_bits(), (-0.0_f32).to_bits());
        assert_eq!(max.to_bits(), 0xFFC0_0000);

        let neg_nan = f64::from_bits(0xFFF8_0000_0000_0000);
        let Some((Scalar::Float64(min), Scalar::Float64(max))) =
            bounds_of(Arc::new(Float64Array::from(vec![neg_nan])))
        else {
            panic!("double bounds")
        };
        assert_eq!(
            (min.to_bits(), max.to_bits()),
            (neg_nan.to_bits(), neg_nan.to_bits())
        );

        // -0.0 below 0.0 whichever comes first; the first NaN's bits win.
        let nan_a = f64::from_bits(0x7FF8_0000_0000_0001);
        let nan_b = f64::from_bits(0x7FF8_0000_0000_0002);
        let Some((Scalar::Float64(min), Scalar::Float64(max))) =
            bounds_of(Arc::new(Float64Array::from(vec![
                Some(0.0),
                None,
                Some(nan_a),
                Some(-0.0),
                Some(nan_b),
            ])))
        else {
            panic!("double bounds")
        };
        assert_eq!(
            (min.to_bits(), max.to_bits()),
            ((-0.0_f64).to_bits(), nan_a.to_bits())
        );
    }

    #[test]
    fn strings_compare_bytewise_in_every_string_layout() {
        // 'Z' (0x5A) < 'a' (0x61) < 'é' (0xC3 0xA9): byte order, not locale order.
        let values = vec![Some("a"), None, Some("é"), Some("Z"), Some("ab")];
        let want = Some((Scalar::Utf8("Z".into()), Scalar::Utf8("é".into())));
        assert_eq!(bounds_of(Arc::new(StringArray::from(values.clone()))), want);
        assert_eq!(
            bounds_of(Arc::new(LargeStringArray::from(values.clone()))),
            want
        );
        assert_eq!(bounds_of(Arc::new(StringViewArray::from(values))), want);
    }

    #[test]
    fn counts_without_bounds_for_all_null_empty_and_binary_columns() {
        let all_null = column_statistics(&Int32Array::from(vec![None, None]));
        assert_eq!(
            (all_null.row_count, all_null.null_count, all_null.bounds),
            (2, 2, None)
        );
        let empty = column_statistics(&Int32Array::from(Vec::<i32>::new()));
        assert_eq!(
            (empty.row_count, empty.null_count, empty.bounds),
            (0, 0, None)
        );
        let binary = column_statistics(&BinaryArray::from(vec![Some(&b"ab"[..]), None]));
        assert_eq!(
            (binary.row_count, binary.null_count, binary.bounds),
            (2, 1, None)
        );
        let decimal = Decimal128Array::from(vec![Some(-5), None, Some(12)])
            .with_precision_and_scale(10, 2)
            .unwrap();
        let stats = column_statistics(&decimal);
        assert_eq!(
            stats.bounds,
            Some(Bounds {
                min: Scalar::Decimal128(-5),
                max: Scalar::Decimal128(12)
            })
        );
        assert_eq!(stats.null_count, 1);
    }
}
