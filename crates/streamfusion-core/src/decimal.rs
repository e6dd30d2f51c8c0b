//! DECIMAL values as Flink's `DecimalData` computes with them.

/// `DecimalDataUtils.doubleValue` of the DECIMAL(`precision`, `scale`) whose unscaled value
/// is `unscaled`: a compact one (precision <= 18, held as a `long`) divides as doubles,
/// `(double) unscaled / POW10[scale]`, which can differ from the nearest double; a wider one
/// is `BigDecimal.doubleValue`, correctly rounded.
pub fn decimal_to_f64(unscaled: i128, precision: u8, scale: u8) -> f64 {
    if precision <= 18 {
        // A compact decimal's unscaled value and 10^scale (scale <= precision) fit a long.
        (unscaled as i64) as f64 / 10i64.pow(u32::from(scale)) as f64
    } else {
        // Rust's float parsing rounds correctly, as BigDecimal.doubleValue does.
        format!("{unscaled}e-{scale}").parse().unwrap_or(f64::NAN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_to_double_as_decimal_data_utils() {
        // Compact: 30000000000000004 / 1e17 as doubles.
        assert_eq!(
            decimal_to_f64(30_000_000_000_000_004, 17, 17),
            0.30000000000000004
        );
        assert_eq!(decimal_to_f64(11, 5, 1), 1.1);
        assert_eq!(decimal_to_f64(-11, 5, 1), -1.1);
        // (double) 2^53 + 1 rounds to even.
        assert_eq!(
            decimal_to_f64(9_007_199_254_740_993, 18, 0),
            9_007_199_254_740_992.0
        );
        // Not compact: BigDecimal's correctly rounded value.
        assert_eq!(
            decimal_to_f64(1_234_567_890_123_456_789, 19, 2),
            1.2345678901234568e16
        );
        assert_eq!(decimal_to_f64(-5, 38, 38), -5e-38);
        assert_eq!(decimal_to_f64(3, 18, 18), 3.0e-18);
    }
}
