//! Canonical ordering of FLOAT and DOUBLE values as Flink sorts them.
//!
//! Flink's sort operators order FLOAT/DOUBLE through normalized keys
//! (`SortUtil.putFloatNormalizedKey` / `putDoubleNormalizedKey`):
//!
//! ```text
//! bits = Double.doubleToLongBits(v)          // every NaN becomes 0x7ff8000000000000
//! key  = bits ^ ((bits >> 63) | Long.MIN_VALUE)   // then compared as unsigned
//! ```
//!
//! which is exactly `java.lang.Double.compare`: `-Inf < ... < -0.0 < 0.0 < ... < +Inf < NaN`,
//! with every NaN equal to every other NaN. The keys produced here have that order as
//! unsigned integers, so they sort, compare and hash with ordinary integer kernels.
//! NULLs stay NULL (the validity buffer is shared).

use arrow::array::{Float32Array, Float64Array, UInt32Array, UInt64Array};

/// `Double.doubleToLongBits` then the sign flip of `SortUtil.putDoubleNormalizedKey`.
#[inline]
pub fn f64_order_key(value: f64) -> u64 {
    // `doubleToLongBits` collapses every NaN to the canonical quiet NaN.
    let bits = if value.is_nan() {
        0x7ff8_0000_0000_0000_u64
    } else {
        value.to_bits()
    };
    let bits = bits as i64;
    (bits ^ ((bits >> 63) | i64::MIN)) as u64
}

/// `Float.floatToIntBits` then the sign flip of `SortUtil.putFloatNormalizedKey`.
#[inline]
pub fn f32_order_key(value: f32) -> u32 {
    let bits = if value.is_nan() {
        0x7fc0_0000_u32
    } else {
        value.to_bits()
    };
    let bits = bits as i32;
    (bits ^ ((bits >> 31) | i32::MIN)) as u32
}

/// Order keys for a DOUBLE column: unsigned order equals `Double.compare` order.
pub fn f64_order_keys(values: &Float64Array) -> UInt64Array {
    values.unary(f64_order_key)
}

/// Order keys for a FLOAT column: unsigned order equals `Float.compare` order.
pub fn f32_order_keys(values: &Float32Array) -> UInt32Array {
    values.unary(f32_order_key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Array;
    use bench_support::oracles::java_double_compare;

    fn interesting_doubles() -> Vec<f64> {
        vec![
            f64::NEG_INFINITY,
            f64::MIN,
            -1.5,
            -f64::MIN_POSITIVE,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            f64::MIN_POSITIVE,
            1.0,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
            f64::from_bits(0xfff8_dead_beef_0000),
        ]
    }

    #[test]
    fn double_keys_order_exactly_like_java_double_compare() {
        let values = interesting_doubles();
        for &a in &values {
            for &b in &values {
                assert_eq!(
                    f64_order_key(a).cmp(&f64_order_key(b)),
                    java_double_compare(a, b),
                    "{a:?} ({:#x}) vs {b:?} ({:#x})",
                    a.to_bits(),
                    b.to_bits()
                );
            }
        }
    }

    #[test]
    fn float_keys_order_exactly_like_java_float_compare() {
        let values: Vec<f32> = interesting_doubles()
            .into_iter()
            .map(|v| v as f32)
            .collect();
        for &a in &values {
            for &b in &values {
                let expected = java_double_compare(f64::from(a), f64::from(b));
                assert_eq!(
                    f32_order_key(a).cmp(&f32_order_key(b)),
                    expected,
                    "{a:?} vs {b:?}"
                );
            }
        }
    }

    #[test]
    fn all_nans_share_one_key_and_signed_zeros_do_not() {
        assert_eq!(f64_order_key(f64::NAN), f64_order_key(-f64::NAN));
        assert_eq!(
            f64_order_key(f64::NAN),
            f64_order_key(f64::from_bits(0x7ff0_0000_0000_0001))
        );
        assert!(f64_order_key(-0.0) < f64_order_key(0.0));
        assert_eq!(f32_order_key(f32::NAN), f32_order_key(-f32::NAN));
    }

    #[test]
    fn array_keys_keep_nulls() {
        let values = Float64Array::from(vec![Some(1.0), None, Some(f64::NAN)]);
        let keys = f64_order_keys(&values);
        assert_eq!(keys.nulls(), values.nulls());
        assert_eq!(keys.value(0), f64_order_key(1.0));
        assert_eq!(keys.value(2), f64_order_key(f64::NAN));
    }
}
