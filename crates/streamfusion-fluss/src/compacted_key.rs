//! Fluss's compacted key encoding: the bucket key of a table without a lake format (and
//! of a Lance-tiered table), and the primary key bytes of a KV table.
//!
//! The key is the bucket-key fields written one after another with no header and no NULL
//! bits (Fluss's `CompactedKeyWriter` is a `CompactedRowWriter` of zero fields; a NULL key
//! field is refused). Each field's bytes:
//!
//! ```text
//! BOOLEAN            [0x00 | 0x01]
//! TINYINT            [b]                        the byte
//! SMALLINT           [lo hi]                    2 bytes, native order (little-endian on
//!                                               every platform Fluss runs on, as Java's
//!                                               Unsafe.putShort)
//! INT, DATE, TIME    [varint(u32)]              1-5 bytes: the i32's bits as unsigned,
//!                                               7 bits a byte, low group first, high bit =
//!                                               more; TIME is milliseconds of the day
//! BIGINT             [varint(u64)]              1-10 bytes, as above (no zig-zag: -1 takes
//!                                               10 bytes)
//! FLOAT, DOUBLE      [4 | 8 bytes]              IEEE bits, native order
//! STRING, CHAR,      [varint(len) | bytes…]     length as INT, then the UTF-8 / raw bytes
//! BINARY, BYTES
//! DECIMAL(p ≤ 18)    [varint(u64)]              the unscaled value as BIGINT
//! DECIMAL(p > 18)    [varint(len) | be bytes…]  the unscaled value's minimal big-endian
//!                                               two's complement (Java BigInteger bytes)
//! TIMESTAMP(p ≤ 3),  [varint(millis as u64)]    milliseconds since the epoch as BIGINT
//! TIMESTAMP_LTZ(p ≤ 3)
//! TIMESTAMP(p > 3),  [varint(millis as u64) | varint(nano_of_milli as u32)]
//! TIMESTAMP_LTZ(p > 3)                          then the nanosecond of the millisecond
//! ```
//!
//! For example `(INT 1, BIGINT 3, INT 2)` is `[0x01, 0x03, 0x02]` and `STRING "a2"` is
//! `[0x02, 0x61, 0x32]`.
//!
//! Ported from Apache Fluss's Rust client `fluss-rs` 1.0.0 (Apache License 2.0):
//! `src/row/encode/compacted_key_encoder.rs`, `src/row/compacted/compacted_key_writer.rs`,
//! `src/row/compacted/compacted_row_writer.rs` and `src/util/varint.rs`.

use crate::key_columns::{
    FlussType, KeyWriter, MAX_COMPACT_DECIMAL_PRECISION, MAX_COMPACT_TIMESTAMP_PRECISION,
    unscaled_be_bytes,
};

/// Writes compacted keys into one reused buffer.
#[derive(Debug, Default)]
pub(crate) struct CompactedKeyWriter {
    buf: Vec<u8>,
}

impl CompactedKeyWriter {
    #[inline]
    fn write_varint_u32(&mut self, value: u32) {
        self.write_varint_u64(u64::from(value));
    }

    /// 7 bits a byte, low group first, high bit = more: at most 10 bytes for 64 bits.
    #[inline]
    fn write_varint_u64(&mut self, mut value: u64) {
        let mut bytes = [0u8; 10];
        let mut len = 0;
        while value >= 0x80 {
            bytes[len] = value as u8 | 0x80;
            value >>= 7;
            len += 1;
        }
        bytes[len] = value as u8;
        self.buf.extend_from_slice(&bytes[..=len]);
    }
}

impl KeyWriter for CompactedKeyWriter {
    const ENCODES_NULL: bool = false;
    const NAME: &'static str = "Fluss compacted";

    fn supports(_ty: FlussType) -> bool {
        true
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
        self.buf.extend_from_slice(&value.to_ne_bytes());
    }

    #[inline]
    fn write_int(&mut self, value: i32) {
        self.write_varint_u32(value as u32);
    }

    #[inline]
    fn write_long(&mut self, value: i64) {
        self.write_varint_u64(value as u64);
    }

    #[inline]
    fn write_float(&mut self, value: f32) {
        self.buf.extend_from_slice(&value.to_ne_bytes());
    }

    #[inline]
    fn write_double(&mut self, value: f64) {
        self.buf.extend_from_slice(&value.to_ne_bytes());
    }

    #[inline]
    fn write_bytes(&mut self, value: &[u8]) {
        // Arrow values are shorter than 2^31 bytes except in Large* arrays, which Fluss
        // (Java arrays) cannot hold anyway; the length is written as Fluss writes an INT.
        self.write_int(value.len() as i32);
        self.buf.extend_from_slice(value);
    }

    #[inline]
    fn write_decimal(&mut self, unscaled: i128, precision: u8) {
        if precision <= MAX_COMPACT_DECIMAL_PRECISION {
            // Fits: the caller checked the value against its precision.
            self.write_long(unscaled as i64);
        } else {
            let mut bytes = [0; 16];
            self.write_bytes(unscaled_be_bytes(unscaled, &mut bytes));
        }
    }

    #[inline]
    fn write_time(&mut self, millis: i32) {
        self.write_int(millis);
    }

    #[inline]
    fn write_timestamp(&mut self, millis: i64, nano_of_milli: i32, precision: u8) {
        self.write_long(millis);
        if precision > MAX_COMPACT_TIMESTAMP_PRECISION {
            self.write_int(nano_of_milli);
        }
    }

    #[inline]
    fn key(&self) -> &[u8] {
        &self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(write: impl FnOnce(&mut CompactedKeyWriter)) -> Vec<u8> {
        let mut w = CompactedKeyWriter::new(1);
        write(&mut w);
        w.key().to_vec()
    }

    #[test]
    fn varints_take_seven_bits_a_byte_low_group_first() {
        assert_eq!(encoded(|w| w.write_int(0)), [0x00]);
        assert_eq!(encoded(|w| w.write_int(127)), [0x7F]);
        assert_eq!(encoded(|w| w.write_int(128)), [0x80, 0x01]);
        assert_eq!(encoded(|w| w.write_int(-1)), [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]);
        assert_eq!(
            encoded(|w| w.write_long(-1)),
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
        );
        assert_eq!(
            encoded(|w| w.write_long(i64::MIN)),
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]
        );
    }

    #[test]
    fn reset_starts_an_empty_key() {
        let mut w = CompactedKeyWriter::new(1);
        w.write_bytes(b"a longer first key");
        w.reset();
        w.write_bytes(b"ab");
        assert_eq!(w.key(), [0x02, b'a', b'b']);
    }

    #[test]
    fn timestamps_carry_nanos_only_above_millisecond_precision() {
        assert_eq!(encoded(|w| w.write_timestamp(1, 5, 3)), [0x01]);
        assert_eq!(encoded(|w| w.write_timestamp(1, 5, 6)), [0x01, 0x05]);
        assert_eq!(encoded(|w| w.write_decimal(-1, 19)), [0x01, 0xFF]);
        assert_eq!(encoded(|w| w.write_decimal(1, 18)), [0x01]);
    }
}
