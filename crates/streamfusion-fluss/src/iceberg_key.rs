//! The Iceberg key encoding: the bucket key of a Fluss table tiered to Iceberg, Iceberg's
//! single-value binary form, so that Fluss's bucket equals Iceberg's `bucket[N]` transform.
//!
//! Exactly one bucket-key column, never NULL. Its bytes, with no length prefix:
//!
//! ```text
//! INT, DATE                  [i64 LE]               widened to 64 bits
//! BIGINT                     [i64 LE]
//! TIME                       [i64 LE]               microseconds of the day (millis × 1000)
//! TIMESTAMP(p)               [i64 LE]               microseconds since the epoch:
//!                                                   millis × 1000 + nano_of_milli / 1000
//!                                                   (wrapping, as Java's long arithmetic)
//! FLOAT                      [f32 LE]               4 bytes
//! DOUBLE                     [f64 LE]
//! DECIMAL(p, s)              [be bytes…]            the unscaled value's minimal big-endian
//!                                                   two's complement, any precision
//! STRING, CHAR               [UTF-8 bytes…]
//! BINARY, BYTES              [bytes…]
//! ```
//!
//! BOOLEAN, TINYINT, SMALLINT and TIMESTAMP_LTZ are refused, as Fluss's
//! `IcebergBinaryRowWriter.createFieldWriter` refuses them.
//!
//! Ported from Apache Fluss's Rust client `fluss-rs` 1.0.0 (Apache License 2.0):
//! `src/row/encode/iceberg_key_encoder.rs` and `src/row/binary/iceberg_binary_row_writer.rs`.

use crate::key_columns::{FlussType, KeyWriter, unscaled_be_bytes};

const MICROS_PER_MILLI: i64 = 1_000;

/// Writes Iceberg single-value keys into one reused buffer.
#[derive(Debug, Default)]
pub(crate) struct IcebergKeyWriter {
    buf: Vec<u8>,
}

impl KeyWriter for IcebergKeyWriter {
    const ENCODES_NULL: bool = false;
    const NAME: &'static str = "Iceberg";

    fn supports(ty: FlussType) -> bool {
        !matches!(
            ty,
            FlussType::Boolean | FlussType::TinyInt | FlussType::SmallInt | FlussType::TimestampLtz
        )
    }

    fn new(_arity: usize) -> Self {
        Self {
            buf: Vec::with_capacity(64),
        }
    }

    #[inline]
    fn reset(&mut self) {
        self.buf.clear();
    }

    /// Never called: the encoding has no NULL (`ENCODES_NULL` is false).
    fn set_null(&mut self) {}

    // BOOLEAN, TINYINT and SMALLINT are refused before any row is written; the writes are
    // Fluss's all the same.
    #[inline]
    fn write_boolean(&mut self, value: bool) {
        self.buf.push(u8::from(value));
    }

    #[inline]
    fn write_byte(&mut self, value: i8) {
        self.buf.push(value as u8);
    }

    #[inline]
    fn write_short(&mut self, value: i16) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    #[inline]
    fn write_int(&mut self, value: i32) {
        self.buf.extend_from_slice(&i64::from(value).to_le_bytes());
    }

    #[inline]
    fn write_long(&mut self, value: i64) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    #[inline]
    fn write_float(&mut self, value: f32) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    #[inline]
    fn write_double(&mut self, value: f64) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    #[inline]
    fn write_bytes(&mut self, value: &[u8]) {
        self.buf.extend_from_slice(value);
    }

    #[inline]
    fn write_decimal(&mut self, unscaled: i128, _precision: u8) {
        let mut bytes = [0; 16];
        self.buf
            .extend_from_slice(unscaled_be_bytes(unscaled, &mut bytes));
    }

    #[inline]
    fn write_time(&mut self, millis: i32) {
        self.write_long(i64::from(millis).wrapping_mul(MICROS_PER_MILLI));
    }

    #[inline]
    fn write_timestamp(&mut self, millis: i64, nano_of_milli: i32, _precision: u8) {
        let micros = millis
            .wrapping_mul(MICROS_PER_MILLI)
            .wrapping_add(i64::from(nano_of_milli) / MICROS_PER_MILLI);
        self.write_long(micros);
    }

    #[inline]
    fn key(&self) -> &[u8] {
        &self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(write: impl FnOnce(&mut IcebergKeyWriter)) -> Vec<u8> {
        let mut w = IcebergKeyWriter::new(1);
        write(&mut w);
        w.key().to_vec()
    }

    // Golden bytes: fluss-rs 1.0.0 `src/row/binary/iceberg_binary_row_writer.rs` tests.
    #[test]
    fn values_encode_as_fluss_iceberg_writer_tests() {
        assert_eq!(encoded(|w| w.write_int(42)), 42_i64.to_le_bytes());
        assert_eq!(encoded(|w| w.write_int(-1)), (-1_i64).to_le_bytes());
        assert_eq!(
            encoded(|w| w.write_time(1_000)),
            1_000_000_i64.to_le_bytes()
        );
        assert_eq!(
            encoded(|w| w.write_timestamp(1_672_531_200_000, 0, 3)),
            (1_672_531_200_000_i64 * 1_000).to_le_bytes()
        );
        assert_eq!(
            encoded(|w| w.write_timestamp(1_000, 500_000, 6)),
            1_000_500_i64.to_le_bytes()
        );
        assert_eq!(
            encoded(|w| w.write_timestamp(i64::MAX, 999_999, 9)),
            i64::MAX.wrapping_mul(1_000).wrapping_add(999).to_le_bytes()
        );
        // 12345 as BigInteger bytes, for compact and non-compact precisions alike.
        assert_eq!(encoded(|w| w.write_decimal(12_345, 10)), [0x30, 0x39]);
        assert_eq!(encoded(|w| w.write_decimal(12_345, 28)), [0x30, 0x39]);
        assert_eq!(encoded(|w| w.write_bytes(b"hello")), b"hello");
        assert_eq!(encoded(|w| w.write_float(1.23)), 1.23_f32.to_le_bytes());
        assert_eq!(encoded(|w| w.write_boolean(true)), [1]);
    }

    #[test]
    fn only_the_types_fluss_accepts_are_supported() {
        for ty in [
            FlussType::Boolean,
            FlussType::TinyInt,
            FlussType::SmallInt,
            FlussType::TimestampLtz,
        ] {
            assert!(!IcebergKeyWriter::supports(ty), "{ty:?}");
        }
        for ty in [
            FlussType::Int,
            FlussType::BigInt,
            FlussType::Float,
            FlussType::Double,
            FlussType::Date,
            FlussType::Time,
            FlussType::Timestamp,
            FlussType::Decimal,
            FlussType::String,
            FlussType::Binary,
        ] {
            assert!(IcebergKeyWriter::supports(ty), "{ty:?}");
        }
    }
}
