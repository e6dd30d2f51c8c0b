//! Timestamp unit conversion and Flink's millisecond + nanosecond-of-millisecond components.
//!
//! Flink's `TimestampData` holds `millisecond: long` and `nanoOfMillisecond: int` in
//! `0..=999_999`, so the millisecond part is the *floor* of the instant in milliseconds
//! (pre-epoch instants included: -1 ns is millisecond -1 plus 999,999 ns). Every conversion
//! here follows that: coarsening floors, refining multiplies exactly or fails with the row.
//! NULL slots are never converted (their values are arbitrary) and stay NULL; the validity
//! buffer is shared with the input.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array, Int64Array, PrimitiveArray};
use arrow::buffer::{NullBuffer, ScalarBuffer};
use arrow::datatypes::{
    DataType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};

use crate::error::{BridgeError, Result};

const NANOS_PER_MILLI: i64 = 1_000_000;

/// Ticks of `unit` per second.
fn per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

struct Timestamps {
    unit: TimeUnit,
    timezone: Option<Arc<str>>,
    values: ScalarBuffer<i64>,
    nulls: Option<NullBuffer>,
}

fn timestamps(array: &dyn Array) -> Result<Timestamps> {
    let DataType::Timestamp(unit, timezone) = array.data_type() else {
        return Err(BridgeError::InvalidValue(format!(
            "expected a TIMESTAMP column, found {}",
            array.data_type()
        )));
    };
    Ok(Timestamps {
        unit: *unit,
        timezone: timezone.clone(),
        values: timestamp_values(array, *unit),
        nulls: array.logical_nulls(),
    })
}

/// The values of a TIMESTAMP column in `unit` (shared, not copied).
///
/// # Panics
/// If `array` is not a `Timestamp(unit, _)` array.
pub(crate) fn timestamp_values(array: &dyn Array, unit: TimeUnit) -> ScalarBuffer<i64> {
    match unit {
        TimeUnit::Second => array.as_primitive::<TimestampSecondType>().values().clone(),
        TimeUnit::Millisecond => array
            .as_primitive::<TimestampMillisecondType>()
            .values()
            .clone(),
        TimeUnit::Microsecond => array
            .as_primitive::<TimestampMicrosecondType>()
            .values()
            .clone(),
        TimeUnit::Nanosecond => array
            .as_primitive::<TimestampNanosecondType>()
            .values()
            .clone(),
    }
}

/// A TIMESTAMP column of `values` in `unit` with `timezone` (buffers shared, not copied).
pub(crate) fn build(
    unit: TimeUnit,
    timezone: Option<Arc<str>>,
    values: ScalarBuffer<i64>,
    nulls: Option<NullBuffer>,
) -> ArrayRef {
    macro_rules! typed {
        ($t:ty) => {
            Arc::new(PrimitiveArray::<$t>::new(values, nulls).with_timezone_opt(timezone))
        };
    }
    match unit {
        TimeUnit::Second => typed!(TimestampSecondType),
        TimeUnit::Millisecond => typed!(TimestampMillisecondType),
        TimeUnit::Microsecond => typed!(TimestampMicrosecondType),
        TimeUnit::Nanosecond => typed!(TimestampNanosecondType),
    }
}

/// Maps every non-NULL value with `f`; NULL slots become 0. `f` reports overflow as `None`.
fn map_values(
    values: &ScalarBuffer<i64>,
    nulls: Option<&NullBuffer>,
    what: &str,
    f: impl Fn(usize, i64) -> Option<i64>,
) -> Result<ScalarBuffer<i64>> {
    let overflow = |row: usize, v: i64| {
        BridgeError::InvalidValue(format!("{what}: value {v} at row {row} overflows"))
    };
    let out: Vec<i64> = match nulls.filter(|n| n.null_count() > 0) {
        None => values
            .iter()
            .enumerate()
            .map(|(row, &v)| f(row, v).ok_or_else(|| overflow(row, v)))
            .collect::<Result<_>>()?,
        Some(nulls) => values
            .iter()
            .enumerate()
            .map(|(row, &v)| {
                if nulls.is_null(row) {
                    Ok(0)
                } else {
                    f(row, v).ok_or_else(|| overflow(row, v))
                }
            })
            .collect::<Result<_>>()?,
    };
    Ok(out.into())
}

/// Converts a TIMESTAMP column to `to`, keeping its time zone. Coarsening floors (so
/// pre-epoch values round toward negative infinity, like Flink's millisecond part);
/// refining fails on overflow, naming the row. Same unit: returned as is (zero-copy).
pub fn convert_timestamp_unit(array: &dyn Array, to: TimeUnit) -> Result<ArrayRef> {
    let ts = timestamps(array)?;
    if ts.unit == to {
        return Ok(build(to, ts.timezone, ts.values, ts.nulls));
    }
    let (from_ps, to_ps) = (per_second(ts.unit), per_second(to));
    let what = format!("converting TIMESTAMP {:?} to {to:?}", ts.unit);
    let values = if to_ps > from_ps {
        let factor = to_ps / from_ps;
        map_values(&ts.values, ts.nulls.as_ref(), &what, |_, v| {
            v.checked_mul(factor)
        })?
    } else {
        let divisor = from_ps / to_ps;
        map_values(&ts.values, ts.nulls.as_ref(), &what, |_, v| {
            Some(v.div_euclid(divisor))
        })?
    };
    Ok(build(to, ts.timezone, values, ts.nulls))
}

/// A TIMESTAMP column as Flink's `TimestampData` components.
#[derive(Debug, Clone, PartialEq)]
pub struct FlinkTimestamps {
    /// `TimestampData.getMillisecond()`: the floor of the instant in milliseconds.
    pub millis: Int64Array,
    /// `TimestampData.getNanoOfMillisecond()`: `0..=999_999`.
    pub nanos_of_milli: Int32Array,
}

/// Splits a TIMESTAMP column (any unit) into Flink's components.
pub fn to_flink_components(array: &dyn Array) -> Result<FlinkTimestamps> {
    let ts = timestamps(array)?;
    let what = format!("converting TIMESTAMP {:?} to milliseconds", ts.unit);
    let nulls = ts.nulls.as_ref();
    let (millis, nanos): (ScalarBuffer<i64>, Vec<i32>) = match ts.unit {
        TimeUnit::Second => (
            map_values(&ts.values, nulls, &what, |_, v| v.checked_mul(1_000))?,
            vec![0; ts.values.len()],
        ),
        TimeUnit::Millisecond => (ts.values.clone(), vec![0; ts.values.len()]),
        TimeUnit::Microsecond => (
            map_values(&ts.values, nulls, &what, |_, v| Some(v.div_euclid(1_000)))?,
            ts.values
                .iter()
                .map(|v| (v.rem_euclid(1_000) * 1_000) as i32)
                .collect(),
        ),
        TimeUnit::Nanosecond => (
            map_values(&ts.values, nulls, &what, |_, v| {
                Some(v.div_euclid(NANOS_PER_MILLI))
            })?,
            ts.values
                .iter()
                .map(|v| v.rem_euclid(NANOS_PER_MILLI) as i32)
                .collect(),
        ),
    };
    Ok(FlinkTimestamps {
        millis: Int64Array::new(millis, ts.nulls.clone()),
        nanos_of_milli: Int32Array::new(nanos.into(), ts.nulls),
    })
}

/// Joins Flink's components into a TIMESTAMP column of `unit` (time zone `timezone`).
/// A row is NULL when either component is. Nanoseconds finer than `unit` are floored away;
/// a nanosecond part outside `0..=999_999` or an overflowing instant is an error naming
/// the row.
pub fn from_flink_components(
    components: &FlinkTimestamps,
    unit: TimeUnit,
    timezone: Option<Arc<str>>,
) -> Result<ArrayRef> {
    let FlinkTimestamps {
        millis,
        nanos_of_milli,
    } = components;
    if millis.len() != nanos_of_milli.len() {
        return Err(BridgeError::InvalidValue(format!(
            "millisecond part of length {} and nanosecond part of length {} differ",
            millis.len(),
            nanos_of_milli.len()
        )));
    }
    let nulls = NullBuffer::union(millis.nulls(), nanos_of_milli.nulls());
    let nanos = nanos_of_milli.values();
    if let Some(row) = (0..nanos.len()).find(|&row| {
        nulls.as_ref().is_none_or(|n| n.is_valid(row))
            && !(0..NANOS_PER_MILLI as i32).contains(&nanos[row])
    }) {
        return Err(BridgeError::InvalidValue(format!(
            "nanoOfMillisecond {} at row {row} is outside 0..=999999",
            nanos[row]
        )));
    }
    let what = format!("converting milliseconds to TIMESTAMP {unit:?}");
    let values = map_values(millis.values(), nulls.as_ref(), &what, |row, ms| {
        let n = i64::from(nanos[row]);
        match unit {
            TimeUnit::Second => Some(ms.div_euclid(1_000)),
            TimeUnit::Millisecond => Some(ms),
            TimeUnit::Microsecond => ms.checked_mul(1_000)?.checked_add(n / 1_000),
            TimeUnit::Nanosecond => ms.checked_mul(NANOS_PER_MILLI)?.checked_add(n),
        }
    })?;
    Ok(build(unit, timezone, values, nulls))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::TimestampNanosecondArray;

    fn ns(values: Vec<Option<i64>>) -> ArrayRef {
        Arc::new(TimestampNanosecondArray::from(values).with_timezone("UTC"))
    }

    #[test]
    fn coarsening_floors_pre_epoch_instants_like_flink() {
        let out = convert_timestamp_unit(
            ns(vec![Some(-1), Some(1_999), None, Some(-1_000)]).as_ref(),
            TimeUnit::Microsecond,
        )
        .unwrap();
        let out = out.as_primitive::<TimestampMicrosecondType>();
        assert_eq!(
            out.iter().collect::<Vec<_>>(),
            vec![Some(-1), Some(1), None, Some(-1)]
        );
        assert_eq!(out.timezone(), Some("UTC"));
    }

    #[test]
    fn refining_overflow_names_the_row_and_ignores_null_slots() {
        let seconds = arrow::array::TimestampSecondArray::from(vec![Some(1), Some(i64::MAX / 10)]);
        let err = convert_timestamp_unit(&seconds, TimeUnit::Nanosecond).unwrap_err();
        assert!(err.to_string().contains("at row 1 overflows"), "{err}");
        // The same huge value in a NULL slot is never converted.
        let masked = arrow::array::TimestampSecondArray::new(
            vec![1, i64::MAX / 10].into(),
            Some(NullBuffer::from(vec![true, false])),
        );
        let out = convert_timestamp_unit(&masked, TimeUnit::Nanosecond).unwrap();
        assert_eq!(
            out.as_primitive::<TimestampNanosecondType>().value(0),
            1_000_000_000
        );
        assert!(out.is_null(1));
    }

    #[test]
    fn the_same_unit_is_returned_without_copying() {
        let input = ns(vec![Some(5), None]);
        let out = convert_timestamp_unit(input.as_ref(), TimeUnit::Nanosecond).unwrap();
        assert_eq!(
            out.to_data().buffers()[0].as_ptr(),
            input.to_data().buffers()[0].as_ptr()
        );
    }

    #[test]
    fn components_match_timestamp_data_for_negative_instants() {
        let parts =
            to_flink_components(ns(vec![Some(-1), Some(1_500_000), None]).as_ref()).unwrap();
        assert_eq!(
            parts.millis.iter().collect::<Vec<_>>(),
            vec![Some(-1), Some(1), None]
        );
        assert_eq!(
            parts.nanos_of_milli.iter().collect::<Vec<_>>(),
            vec![Some(999_999), Some(500_000), None]
        );
        let back = from_flink_components(&parts, TimeUnit::Nanosecond, Some("UTC".into())).unwrap();
        assert_eq!(
            back.to_data(),
            ns(vec![Some(-1), Some(1_500_000), None]).to_data()
        );
    }

    #[test]
    fn out_of_range_nanos_of_millisecond_are_rejected() {
        let parts = FlinkTimestamps {
            millis: Int64Array::from(vec![0, 0]),
            nanos_of_milli: Int32Array::from(vec![5, 1_000_000]),
        };
        let err = from_flink_components(&parts, TimeUnit::Nanosecond, None).unwrap_err();
        assert!(err.to_string().contains("1000000 at row 1"), "{err}");
    }

    #[test]
    fn a_non_timestamp_column_is_rejected() {
        let err = to_flink_components(&Int64Array::from(vec![1])).unwrap_err();
        assert!(
            err.to_string().contains("expected a TIMESTAMP column"),
            "{err}"
        );
    }
}
