//! Shared by the group-aggregate suites (local_single_values, typed_group_values,
//! string_group_aggregates, operators): typed fixture values, their Arrow columns, reading
//! production output back, and the changelog comparison against an independent model.
//!
//! Lives in a nested directory so Cargo discovers only the suites that include it.

#![allow(dead_code)]

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Date32Array, Decimal128Array, DurationMillisecondArray,
    Float32Array, Float64Array, Int8Array, Int32Array, Int64Array, IntervalYearMonthArray,
    RecordBatch, StringArray, Time32MillisecondArray, TimestampMillisecondArray,
    TimestampNanosecondArray,
};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, DurationMillisecondType, Float32Type, Float64Type,
    Int32Type, Int64Type, IntervalUnit, IntervalYearMonthType, Time32MillisecondType, TimeUnit,
    TimestampMillisecondType, TimestampNanosecondType,
};
use bench_support::Verdict;
use bench_support::adapters::StoreLifecycle;
use bench_support::group_model::Emission;
use streamfusion::aggregate::{AggCall, GroupAggSpec};
use streamfusion::bench::{GroupAggLifecycle, GroupAggStore};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

/// One value, as the oracle sees it. Floating values are their bits (`Double.equals`), NaN
/// canonical; FLOAT values are widened to DOUBLE.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum V {
    Null,
    Bool(bool),
    Int(i64),
    F64(u64),
    Dec(i128),
    Str(String),
}

impl V {
    pub fn f64(x: f64) -> V {
        V::F64(if x.is_nan() {
            f64::NAN.to_bits()
        } else {
            x.to_bits()
        })
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            V::F64(b) => Some(f64::from_bits(*b)),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, V::Null)
    }
}

/// The Arrow column of `values` for `ty`.
pub fn column(ty: &LogicalType, values: &[V]) -> ArrayRef {
    let int = |v: &V| match v {
        V::Int(i) => Some(*i),
        _ => None,
    };
    match ty.to_arrow() {
        DataType::Boolean => Arc::new(
            values
                .iter()
                .map(|v| match v {
                    V::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect::<BooleanArray>(),
        ),
        DataType::Int8 => Arc::new(
            values
                .iter()
                .map(|v| int(v).map(|i| i as i8))
                .collect::<Int8Array>(),
        ),
        DataType::Int32 => Arc::new(
            values
                .iter()
                .map(|v| int(v).map(|i| i as i32))
                .collect::<Int32Array>(),
        ),
        DataType::Int64 => Arc::new(values.iter().map(int).collect::<Int64Array>()),
        DataType::Date32 => Arc::new(
            values
                .iter()
                .map(|v| int(v).map(|i| i as i32))
                .collect::<Date32Array>(),
        ),
        DataType::Time32(TimeUnit::Millisecond) => Arc::new(
            values
                .iter()
                .map(|v| int(v).map(|i| i as i32))
                .collect::<Time32MillisecondArray>(),
        ),
        DataType::Timestamp(TimeUnit::Nanosecond, None) => {
            Arc::new(values.iter().map(int).collect::<TimestampNanosecondArray>())
        }
        DataType::Timestamp(TimeUnit::Millisecond, None) => Arc::new(
            values
                .iter()
                .map(int)
                .collect::<TimestampMillisecondArray>(),
        ),
        DataType::Interval(IntervalUnit::YearMonth) => Arc::new(
            values
                .iter()
                .map(|v| int(v).map(|i| i as i32))
                .collect::<IntervalYearMonthArray>(),
        ),
        DataType::Duration(TimeUnit::Millisecond) => {
            Arc::new(values.iter().map(int).collect::<DurationMillisecondArray>())
        }
        DataType::Float32 => Arc::new(
            values
                .iter()
                .map(|v| v.as_f64().map(|f| f as f32))
                .collect::<Float32Array>(),
        ),
        DataType::Float64 => Arc::new(values.iter().map(V::as_f64).collect::<Float64Array>()),
        DataType::Decimal128(p, s) => Arc::new(
            values
                .iter()
                .map(|v| match v {
                    V::Dec(d) => Some(*d),
                    _ => None,
                })
                .collect::<Decimal128Array>()
                .with_precision_and_scale(p, s)
                .expect("fixture decimal type"),
        ),
        DataType::Utf8 => Arc::new(
            values
                .iter()
                .map(|v| match v {
                    V::Str(s) => Some(s.as_str()),
                    _ => None,
                })
                .collect::<StringArray>(),
        ),
        other => panic!("no fixture column for {other}"),
    }
}

/// Row `row` of a production output column.
pub fn read(array: &dyn Array, row: usize) -> Result<V, String> {
    if array.is_null(row) {
        return Ok(V::Null);
    }
    Ok(match array.data_type() {
        DataType::Boolean => V::Bool(array.as_boolean().value(row)),
        DataType::Int32 => V::Int(array.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => V::Int(array.as_primitive::<Int64Type>().value(row)),
        DataType::Date32 => V::Int(array.as_primitive::<Date32Type>().value(row).into()),
        DataType::Time32(TimeUnit::Millisecond) => V::Int(
            array
                .as_primitive::<Time32MillisecondType>()
                .value(row)
                .into(),
        ),
        DataType::Timestamp(TimeUnit::Nanosecond, None) => {
            V::Int(array.as_primitive::<TimestampNanosecondType>().value(row))
        }
        DataType::Timestamp(TimeUnit::Millisecond, None) => {
            V::Int(array.as_primitive::<TimestampMillisecondType>().value(row))
        }
        DataType::Interval(IntervalUnit::YearMonth) => V::Int(
            array
                .as_primitive::<IntervalYearMonthType>()
                .value(row)
                .into(),
        ),
        DataType::Duration(TimeUnit::Millisecond) => {
            V::Int(array.as_primitive::<DurationMillisecondType>().value(row))
        }
        DataType::Float32 => V::f64(array.as_primitive::<Float32Type>().value(row).into()),
        DataType::Float64 => V::f64(array.as_primitive::<Float64Type>().value(row)),
        DataType::Decimal128(..) => V::Dec(array.as_primitive::<Decimal128Type>().value(row)),
        DataType::Utf8 => V::Str(array.as_string::<i32>().value(row).to_string()),
        other => return Err(format!("no oracle reading of {other}")),
    })
}

/// One changelog row: kind, grouping key, results.
pub type Change = (i8, V, Vec<V>);

/// A production changelog as rows (first column the grouping key).
pub fn changes(out: &ChangelogBatch) -> Result<Vec<Change>, String> {
    let b = out.batch();
    (0..out.num_rows())
        .map(|i| {
            let results = (1..b.num_columns())
                .map(|c| read(b.column(c).as_ref(), i))
                .collect::<Result<_, _>>()?;
            Ok((
                out.kind(i).to_byte(),
                read(b.column(0).as_ref(), i)?,
                results,
            ))
        })
        .collect()
}

/// Compares a changelog with the model's: schema (names and types), then every row's kind,
/// key and values in order.
pub fn check_changes(
    out: &[ChangelogBatch],
    names: &[&str],
    types: &[DataType],
    expected: &[Change],
) -> Verdict {
    check_schema(out, names, types)?;
    let mut got = Vec::new();
    for batch in out {
        got.extend(changes(batch)?);
    }
    if got.len() != expected.len() {
        return Err(format!(
            "{} changelog rows, expected {}; first got {:?}, first expected {:?}",
            got.len(),
            expected.len(),
            got.first(),
            expected.first()
        ));
    }
    match got.iter().zip(expected).position(|(g, e)| g != e) {
        None => Ok(()),
        Some(i) => Err(format!(
            "changelog row {i}: got {:?}, expected {:?}",
            got[i], expected[i]
        )),
    }
}

/// Every batch's schema is `names` with `types`.
pub fn check_schema(out: &[ChangelogBatch], names: &[&str], types: &[DataType]) -> Verdict {
    if out.is_empty() {
        return Err("no output batch".into());
    }
    for batch in out {
        let schema = batch.batch().schema();
        let found: Vec<(&str, &DataType)> = schema
            .fields()
            .iter()
            .map(|f| (f.name().as_str(), f.data_type()))
            .collect();
        let want: Vec<(&str, &DataType)> = names.iter().copied().zip(types).collect();
        if found != want {
            return Err(format!("output schema {found:?}, expected {want:?}"));
        }
    }
    Ok(())
}

/// An input changelog batch: grouping key column `k`, value columns named `v`, `w`, ..
pub fn input(
    kinds: &[i8],
    key_type: &LogicalType,
    keys: &[V],
    values: &[(&LogicalType, Vec<V>)],
) -> ChangelogBatch {
    let mut columns: Vec<(String, ArrayRef, bool)> =
        vec![("k".into(), column(key_type, keys), true)];
    for (i, (ty, vals)) in values.iter().enumerate() {
        columns.push((["v", "w", "x"][i].to_string(), column(ty, vals), true));
    }
    let batch = RecordBatch::try_from_iter_with_nullable(columns).expect("fixture columns");
    ChangelogBatch::try_new(batch, Some(kinds.iter().map(|k| Some(*k)).collect()))
        .expect("fixture kinds")
}

/// A plan over input `(k, v[, w])`, grouped by `k`.
pub fn spec(
    key_type: &LogicalType,
    value_types: &[LogicalType],
    calls: Vec<AggCall>,
    input_retracts: bool,
    mini_batch: bool,
) -> GroupAggSpec {
    let mut types = vec![key_type.clone()];
    types.extend(value_types.iter().cloned());
    GroupAggSpec {
        input_names: ["k", "v", "w", "x"][..types.len()]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        input_types: types,
        grouping: vec![0],
        calls,
        input_retracts,
        generate_update_before: true,
        mini_batch_rows: mini_batch.then_some(usize::MAX),
        state_ttl: None,
        max_parallelism: 128,
    }
}

pub fn emission(input_retracts: bool) -> Emission {
    Emission {
        input_retracts,
        generate_update_before: true,
        ttl: false,
    }
}

/// A UTF-8 string of `id` then Unicode and NUL padding up to about `width` bytes.
pub fn text(id: usize, width: usize) -> String {
    let mut s = format!("{id:05}|");
    for c in ['é', '\0', '漢', 'z'].iter().cycle() {
        if s.len() + c.len_utf8() > width.max(7) {
            break;
        }
        s.push(*c);
    }
    s
}

/// `rows` split into physical batches of `size` rows.
pub fn chunks<T: Clone>(rows: &[T], size: usize) -> Vec<Vec<T>> {
    rows.chunks(size.max(1)).map(<[T]>::to_vec).collect()
}

/// A fresh operator, with `seed` (if any) pushed and flushed: the state a timed update starts
/// from.
pub fn seeded_store(lifecycle: &GroupAggLifecycle, seed: Option<&ChangelogBatch>) -> GroupAggStore {
    let mut store = lifecycle.create().expect("create operator");
    if let Some(seed) = seed {
        lifecycle.push(&mut store, seed).expect("seed push");
        lifecycle.fire(&mut store, 0).expect("seed flush");
    }
    store
}

/// One update: `batch` pushed, then the bundle flushed; both outputs in order.
pub fn push_and_flush(
    lifecycle: &GroupAggLifecycle,
    store: &mut GroupAggStore,
    batch: &ChangelogBatch,
) -> Vec<ChangelogBatch> {
    let pushed = lifecycle.push(store, batch).expect("push");
    vec![pushed, lifecycle.fire(store, 0).expect("flush")]
}
