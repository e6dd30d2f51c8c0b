//! Flink's FLOAT/DOUBLE `=` and `IN` filters, applied after the read.
//!
//! iceberg-rust evaluates a pushed predicate with Arrow's comparison kernels, which order
//! floats by IEEE totalOrder (`-0.0 != 0.0`, `NaN = NaN`), and its `IN` collapses `0.0` and
//! `-0.0` into one literal (its `Datum` hashes through `OrderedFloat`). Neither is Flink's
//! semantics, so FLOAT/DOUBLE `=` and `IN` filters must stay out of the predicate handed to
//! [`crate::task_reader::TaskReader`] and be applied here, after the read
//! ([`crate::task_reader::TaskReader::with_float_filter`] does both). Other predicates on float
//! columns (`<`, `IS NULL`, ...) agree with Flink's and may be pushed.
//!
//! What released Flink 2.3.0 does (its generated code, read from the shipped
//! `flink-table-planner_2.12-2.3.0.jar` and `flink-table-runtime-2.3.0.jar` and run):
//!
//! - `x = lit` is `ScalarOperatorGens.generateComparison`, a Java primitive `==`:
//!   `-0.0 = 0.0` is TRUE and `NaN = NaN` is FALSE.
//! - `x IN (lit, ...)` with constant literals becomes Calcite's `SEARCH` over a set of points,
//!   which `SearchOperatorGen.generateSearch` evaluates with `FloatHashSet` / `DoubleHashSet`
//!   (`CodeGeneratorContext.addReusableHashSet`). Their `contains` compares
//!   `Float.floatToIntBits` / `Double.doubleToLongBits`, i.e. `Float.equals` /
//!   `Double.equals`: `-0.0 IN (0.0)` is FALSE, `0.0 IN (-0.0)` is FALSE, and
//!   `NaN IN (NaN)` is TRUE (every NaN is one canonical bit pattern). So in 2.3.0 `IN` and
//!   `=` disagree on signed zero; FLINK-40693 (open) proposes aligning `IN` with `=`. We follow
//!   the released behaviour, which a job on stock Flink 2.3.0 would see.
//!
//! A NULL input never passes (Flink's filter drops UNKNOWN). Literals are the values Flink's
//! generated code compares against, already in the comparison's type; for a FLOAT column
//! compared as FLOAT they are `f32` values widened to `f64`. Widening `f32` to `f64` is exact
//! and keeps sign and NaN, so both `==` and the bit-pattern membership give the same answer in
//! `f64`.

use arrow::array::{Array, AsArray, BooleanArray, RecordBatch};
use arrow::buffer::BooleanBuffer;
use arrow::datatypes::{DataType, Float32Type, Float64Type};

use streamfusion_bridge::float_order::f64_order_key;

use crate::error::{IcebergError, Result};

/// A scalar filter on one FLOAT or DOUBLE column, with Flink 2.3.0's semantics.
#[derive(Debug, Clone, PartialEq)]
pub enum FloatFilter {
    /// `column = literal`: Java's primitive `==` (`-0.0 = 0.0`, `NaN` equals nothing).
    Eq(f64),
    /// `column IN (literals)` with constant literals: `Double.equals` membership (`-0.0` and
    /// `0.0` differ, `NaN` matches `NaN`).
    In(Vec<f64>),
}

/// The literal set of an `IN`, sorted for lookup. Members are compared by the engine's
/// `Double.doubleToLongBits`-based key (one canonical NaN, `-0.0` apart from `0.0`), the
/// membership Flink's `DoubleHashSet` tests.
struct BitSet(Vec<u64>);

impl BitSet {
    fn new(literals: &[f64]) -> Self {
        let mut bits: Vec<u64> = literals.iter().copied().map(f64_order_key).collect();
        bits.sort_unstable();
        bits.dedup();
        Self(bits)
    }

    fn contains(&self, value: f64) -> bool {
        let bits = f64_order_key(value);
        // A linear scan beats a binary search on the short lists SQL `IN` usually has.
        if self.0.len() <= 8 {
            self.0.contains(&bits)
        } else {
            self.0.binary_search(&bits).is_ok()
        }
    }
}

/// The rows of `column` (Float32 or Float64) that pass `filter`, as a mask without NULLs.
pub fn float_filter_mask(column: &dyn Array, filter: &FloatFilter) -> Result<BooleanArray> {
    let matches: Box<dyn Fn(f64) -> bool> = match filter {
        FloatFilter::Eq(literal) => {
            let literal = *literal;
            Box::new(move |value| value == literal)
        }
        FloatFilter::In(literals) => {
            let set = BitSet::new(literals);
            Box::new(move |value| set.contains(value))
        }
    };
    let values = match column.data_type() {
        DataType::Float32 => {
            let values = column.as_primitive::<Float32Type>().values();
            BooleanBuffer::collect_bool(values.len(), |i| matches(f64::from(values[i])))
        }
        DataType::Float64 => {
            let values = column.as_primitive::<Float64Type>().values();
            BooleanBuffer::collect_bool(values.len(), |i| matches(values[i]))
        }
        other => {
            return Err(IcebergError::Invalid(format!(
                "a FLOAT/DOUBLE filter cannot apply to a {other} column"
            )));
        }
    };
    // NULL is UNKNOWN, which Flink's filter drops.
    let values = match column.logical_nulls() {
        Some(nulls) => &values & nulls.inner(),
        None => values,
    };
    Ok(BooleanArray::new(values, None))
}

/// The rows of `batch` that pass all of `filters` (column index, filter), or `None` when
/// there are no filters.
pub fn filters_mask(
    batch: &RecordBatch,
    filters: &[(usize, FloatFilter)],
) -> Result<Option<BooleanBuffer>> {
    let mut mask: Option<BooleanBuffer> = None;
    for (index, filter) in filters {
        let column = batch.columns().get(*index).ok_or_else(|| {
            IcebergError::Invalid(format!(
                "float filter on column {index}, but the batch has {} columns",
                batch.num_columns()
            ))
        })?;
        let name = batch.schema_ref().field(*index).name().clone();
        let next = float_filter_mask(column.as_ref(), filter)
            .map_err(|err| IcebergError::Invalid(format!("column `{name}`: {err}")))?
            .values()
            .clone();
        mask = Some(match mask {
            Some(mask) => &mask & &next,
            None => next,
        });
    }
    Ok(mask)
}

/// `batch` without the rows that fail any of `filters` (column index, filter), all ANDed.
pub fn filter_batch(batch: &RecordBatch, filters: &[(usize, FloatFilter)]) -> Result<RecordBatch> {
    match filters_mask(batch, filters)? {
        Some(mask) => Ok(arrow::compute::filter_record_batch(
            batch,
            &BooleanArray::new(mask, None),
        )?),
        None => Ok(batch.clone()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Float32Array, Float64Array, Int32Array};
    use arrow::datatypes::{Field, Schema};

    use super::*;

    const NEG_NAN: f64 = -f64::NAN;

    /// One row per interesting value; the expected masks below are written out by hand from
    /// Java's `==` and `Double.equals` (checked on released Flink 2.3.0's hash sets).
    fn doubles() -> Float64Array {
        Float64Array::from(vec![
            Some(-0.0),
            Some(0.0),
            Some(f64::NAN),
            Some(f64::INFINITY),
            Some(f64::NEG_INFINITY),
            None,
            Some(1.5),
            Some(NEG_NAN),
        ])
    }

    fn mask(column: &dyn Array, filter: FloatFilter) -> Vec<bool> {
        let mask = float_filter_mask(column, &filter).unwrap();
        assert_eq!(mask.null_count(), 0);
        mask.values().iter().collect()
    }

    #[test]
    fn eq_is_javas_primitive_equality() {
        let c = doubles();
        // rows:                            -0.0   0.0    NaN    +inf   -inf   NULL   1.5    -NaN
        let zero = [true, true, false, false, false, false, false, false];
        assert_eq!(mask(&c, FloatFilter::Eq(0.0)), zero);
        assert_eq!(mask(&c, FloatFilter::Eq(-0.0)), zero);
        assert_eq!(mask(&c, FloatFilter::Eq(f64::NAN)), [false; 8]);
        assert_eq!(
            mask(&c, FloatFilter::Eq(f64::INFINITY)),
            [false, false, false, true, false, false, false, false]
        );
        assert_eq!(
            mask(&c, FloatFilter::Eq(f64::NEG_INFINITY)),
            [false, false, false, false, true, false, false, false]
        );
    }

    #[test]
    fn in_is_javas_double_equals() {
        let c = doubles();
        // rows:                            -0.0   0.0    NaN    +inf   -inf   NULL   1.5    -NaN
        assert_eq!(
            mask(&c, FloatFilter::In(vec![0.0, 1.5])),
            [false, true, false, false, false, false, true, false]
        );
        assert_eq!(
            mask(&c, FloatFilter::In(vec![-0.0])),
            [true, false, false, false, false, false, false, false]
        );
        assert_eq!(
            mask(&c, FloatFilter::In(vec![0.0, -0.0])),
            [true, true, false, false, false, false, false, false]
        );
        // Every NaN is one canonical pattern, whatever its sign or payload.
        assert_eq!(
            mask(&c, FloatFilter::In(vec![f64::NAN, f64::NEG_INFINITY])),
            [false, false, true, false, true, false, false, true]
        );
        assert_eq!(mask(&c, FloatFilter::In(vec![])), [false; 8]);
    }

    #[test]
    fn long_in_lists_use_the_sorted_lookup() {
        let c = doubles();
        let mut literals: Vec<f64> = (10..30).map(f64::from).collect();
        literals.push(f64::INFINITY);
        literals.push(-0.0);
        assert_eq!(
            mask(&c, FloatFilter::In(literals)),
            [true, false, false, true, false, false, false, false]
        );
    }

    #[test]
    fn float32_columns_compare_widened() {
        let c = Float32Array::from(vec![
            Some(-0.0f32),
            Some(0.0),
            Some(f32::NAN),
            None,
            Some(0.1),
        ]);
        assert_eq!(
            mask(&c, FloatFilter::Eq(0.0)),
            [true, true, false, false, false]
        );
        // 0.1f32 widened is the literal the FLOAT comparison holds; 0.1f64 is another value.
        assert_eq!(
            mask(&c, FloatFilter::Eq(f64::from(0.1f32))),
            [false, false, false, false, true]
        );
        assert_eq!(mask(&c, FloatFilter::Eq(0.1)), [false; 5]);
        assert_eq!(
            mask(&c, FloatFilter::In(vec![0.0, f64::NAN])),
            [false, true, true, false, false]
        );
    }

    #[test]
    fn sliced_columns_keep_their_nulls_aligned() {
        let c = doubles();
        let sliced = c.slice(4, 3); // -inf, NULL, 1.5
        assert_eq!(
            mask(&sliced, FloatFilter::In(vec![1.5, f64::NEG_INFINITY])),
            [true, false, true]
        );
    }

    #[test]
    fn filter_batch_ands_filters_and_rejects_other_types() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("d", DataType::Float64, true),
            Field::new("i", DataType::Int32, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(doubles()),
                Arc::new(Int32Array::from((0..8).collect::<Vec<_>>())),
            ],
        )
        .unwrap();
        let out = filter_batch(
            &batch,
            &[
                (0, FloatFilter::In(vec![0.0, -0.0, 1.5])),
                (0, FloatFilter::Eq(0.0)),
            ],
        )
        .unwrap();
        let ids = out.column(1).as_primitive::<arrow::datatypes::Int32Type>();
        assert_eq!(ids.values().to_vec(), vec![0, 1]);

        let err = filter_batch(&batch, &[(1, FloatFilter::Eq(0.0))]).unwrap_err();
        assert!(err.to_string().contains("column `i`"), "{err}");
        assert!(err.to_string().contains("Int32"), "{err}");
        assert!(filter_batch(&batch, &[(7, FloatFilter::Eq(0.0))]).is_err());
    }
}
