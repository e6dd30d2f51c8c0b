//! The Paimon key encoding: the bucket key of a Fluss table tiered to Paimon, so that
//! Fluss and Paimon put a row in the same bucket.
//!
//! The key is a Paimon `BinaryRow` of the bucket-key fields (arity `k`) with row kind
//! `INSERT`:
//!
//! ```text
//! | header: ((k + 63 + 8) / 64) * 8 bytes   | k slots of 8 bytes        | variable part   |
//! | byte 0: row kind (INSERT = 0)           | slot i: field i, LE       | 8-byte aligned  |
//! | bit (i + 8): field i is NULL            |                           |                 |
//! ```
//!
//! Slot contents (little-endian; unused bytes zero):
//!
//! ```text
//! NULL                          null bit set, slot 0
//! BOOLEAN, TINYINT              [b 0 0 0 0 0 0 0]
//! SMALLINT                      [lo hi 0 0 0 0 0 0]
//! INT, DATE, TIME (millis)      [i32 LE, 0 0 0 0]
//! BIGINT, DOUBLE                [8 bytes LE]
//! FLOAT                         [f32 LE, 0 0 0 0]
//! STRING, BINARY  ≤ 7 bytes     [bytes…, 0…, 0x80 | len]      inline, length in byte 7
//!                 > 7 bytes     [(offset << 32) | len as i64]  bytes at `offset` (from the
//!                                                              row start), zero-padded to
//!                                                              a multiple of 8
//! DECIMAL(p ≤ 18)               [unscaled as i64 LE]
//! DECIMAL(p > 18)               [(offset << 32) | len]         16 bytes reserved at
//!                                                              `offset`, the unscaled
//!                                                              value's big-endian bytes first
//! TIMESTAMP[_LTZ](p ≤ 3)        [millis as i64 LE]
//! TIMESTAMP[_LTZ](p > 3)        [(offset << 32) | nano_of_milli]  millis (8 bytes LE) at
//!                                                                 `offset`
//! ```
//!
//! A NULL in a nullable key column is encoded (null bit); in a NOT NULL column it is
//! refused, as Fluss's non-nullable value writer refuses it.
//!
//! Ported from Apache Fluss's Rust client `fluss-rs` 1.0.0 (Apache License 2.0):
//! `src/row/encode/paimon_key_encoder.rs`, `src/row/paimon/paimon_binary_row_writer.rs` and
//! `src/row/binary/encoding.rs`.

use crate::key_columns::{
    FlussType, KeyWriter, MAX_COMPACT_DECIMAL_PRECISION, MAX_COMPACT_TIMESTAMP_PRECISION,
    unscaled_be_bytes,
};

/// Bits before the first NULL bit: Paimon's row-kind byte.
const HEADER_BITS: usize = 8;
/// The longest value stored inside its slot.
const MAX_INLINE: usize = 7;
/// Bytes a non-compact decimal reserves in the variable part.
const NON_COMPACT_DECIMAL_BYTES: usize = 16;

/// Writes Paimon `BinaryRow` keys into one reused buffer.
#[derive(Debug)]
pub(crate) struct PaimonKeyWriter {
    null_bits_bytes: usize,
    fixed_size: usize,
    buf: Vec<u8>,
    /// The next field to write.
    pos: usize,
}

impl PaimonKeyWriter {
    #[inline]
    fn slot(&mut self) -> &mut [u8] {
        let at = self.null_bits_bytes + 8 * self.pos;
        self.pos += 1;
        &mut self.buf[at..at + 8]
    }

    /// Writes `bytes` little-endian at the start of the next slot.
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.slot()[..bytes.len()].copy_from_slice(bytes);
    }

    /// Appends `bytes` to the variable part, zero-padded to `reserve` rounded up to whole
    /// words, and returns their offset from the row start.
    #[inline]
    fn append(&mut self, bytes: &[u8], reserve: usize) -> u64 {
        let offset = self.buf.len();
        self.buf.extend_from_slice(bytes);
        self.buf.resize(offset + reserve.next_multiple_of(8), 0);
        offset as u64
    }
}

impl KeyWriter for PaimonKeyWriter {
    const ENCODES_NULL: bool = true;
    const NAME: &'static str = "Paimon";

    fn supports(_ty: FlussType) -> bool {
        true
    }

    fn new(arity: usize) -> Self {
        // Whole 8-byte words holding the row-kind byte and one bit per field.
        let null_bits_bytes = (arity + HEADER_BITS).div_ceil(64) * 8;
        let fixed_size = null_bits_bytes + 8 * arity;
        Self {
            null_bits_bytes,
            fixed_size,
            buf: Vec::with_capacity(fixed_size + 64),
            pos: 0,
        }
    }

    #[inline]
    fn reset(&mut self) {
        // Row kind INSERT (0), no NULL bits, zeroed slots, empty variable part.
        self.buf.clear();
        self.buf.resize(self.fixed_size, 0);
        self.pos = 0;
    }

    #[inline]
    fn set_null(&mut self) {
        let bit = self.pos + HEADER_BITS;
        self.buf[bit / 8] |= 1 << (bit % 8);
        self.pos += 1;
    }

    #[inline]
    fn write_boolean(&mut self, value: bool) {
        self.put(&[u8::from(value)]);
    }

    #[inline]
    fn write_byte(&mut self, value: i8) {
        self.put(&value.to_le_bytes());
    }

    #[inline]
    fn write_short(&mut self, value: i16) {
        self.put(&value.to_le_bytes());
    }

    #[inline]
    fn write_int(&mut self, value: i32) {
        self.put(&value.to_le_bytes());
    }

    #[inline]
    fn write_long(&mut self, value: i64) {
        self.put(&value.to_le_bytes());
    }

    #[inline]
    fn write_float(&mut self, value: f32) {
        self.put(&value.to_le_bytes());
    }

    #[inline]
    fn write_double(&mut self, value: f64) {
        self.put(&value.to_le_bytes());
    }

    #[inline]
    fn write_bytes(&mut self, value: &[u8]) {
        if value.len() <= MAX_INLINE {
            let slot = self.slot();
            slot[..value.len()].copy_from_slice(value);
            slot[7] = 0x80 | value.len() as u8;
        } else {
            let offset = self.append(value, value.len());
            self.write_long(((offset << 32) | value.len() as u64) as i64);
        }
    }

    #[inline]
    fn write_decimal(&mut self, unscaled: i128, precision: u8) {
        if precision <= MAX_COMPACT_DECIMAL_PRECISION {
            // Fits: the caller checked the value against its precision.
            self.write_long(unscaled as i64);
        } else {
            let mut bytes = [0; 16];
            let bytes = unscaled_be_bytes(unscaled, &mut bytes);
            let offset = self.append(bytes, NON_COMPACT_DECIMAL_BYTES);
            self.write_long(((offset << 32) | bytes.len() as u64) as i64);
        }
    }

    #[inline]
    fn write_time(&mut self, millis: i32) {
        self.write_int(millis);
    }

    #[inline]
    fn write_timestamp(&mut self, millis: i64, nano_of_milli: i32, precision: u8) {
        if precision <= MAX_COMPACT_TIMESTAMP_PRECISION {
            self.write_long(millis);
        } else {
            let offset = self.append(&millis.to_le_bytes(), 8);
            self.write_long(((offset << 32) | nano_of_milli as u64) as i64);
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

    fn writer(arity: usize) -> PaimonKeyWriter {
        let mut w = PaimonKeyWriter::new(arity);
        w.reset();
        w
    }

    // Golden layouts: fluss-rs 1.0.0 `src/row/paimon/paimon_binary_row_writer.rs` tests.
    #[test]
    fn layout_matches_fluss_paimon_writer_tests() {
        // fixed_layout_sizes: arity 4 -> 8 header bytes, 40 fixed bytes.
        let w = writer(4);
        assert_eq!(
            (w.null_bits_bytes, w.fixed_size, w.key().len()),
            (8, 40, 40)
        );

        // write_int_in_slot_le
        let mut w = writer(1);
        w.write_int(0x0102_0304);
        assert_eq!(w.key().len(), 16);
        assert_eq!(w.key()[0], 0);
        assert_eq!(&w.key()[8..12], &0x0102_0304_i32.to_le_bytes());
        assert_eq!(&w.key()[12..16], &[0; 4]);

        // write_short_string_inlined
        let mut w = writer(1);
        w.write_bytes(b"hi");
        assert_eq!(w.key().len(), 16);
        assert_eq!(&w.key()[8..10], b"hi");
        assert_eq!(w.key()[15], 0x82);

        // write_long_string_in_var_part: 21 bytes at offset 16, padded to 24.
        let mut w = writer(1);
        let s = b"this_is_a_long_string";
        w.write_bytes(s);
        assert_eq!(w.key().len(), 16 + 24);
        let packed = i64::from_le_bytes(w.key()[8..16].try_into().unwrap());
        assert_eq!(
            ((packed >> 32) as usize, (packed & 0xFFFF_FFFF) as usize),
            (16, 21)
        );
        assert_eq!(&w.key()[16..37], s);

        // set_null_at_marks_bit_and_zeroes_slot
        let mut w = writer(2);
        w.set_null();
        w.write_int(7);
        assert_eq!(w.key()[1], 0x01);
        assert_eq!(&w.key()[8..16], &[0; 8]);
        assert_eq!(&w.key()[16..20], &7_i32.to_le_bytes());

        // buffer_grows_for_large_var_len: 200 bytes, already whole words.
        let mut w = writer(1);
        let big: Vec<u8> = (0..200u8).collect();
        w.write_bytes(&big);
        assert_eq!(w.key().len(), 16 + 200);
        assert_eq!(&w.key()[16..], big.as_slice());
    }

    #[test]
    fn reset_reuses_the_buffer_without_leftovers() {
        let mut w = writer(2);
        w.write_bytes(b"a value longer than seven bytes");
        w.write_int(-1);
        let mut first = writer(2);
        first.write_bytes(b"short");
        first.write_int(5);
        w.reset();
        w.write_bytes(b"short");
        w.write_int(5);
        assert_eq!(w.key(), first.key());
        assert_eq!(w.key().len(), 24);
    }

    #[test]
    fn non_compact_values_live_in_the_variable_part() {
        let mut w = writer(2);
        w.write_decimal(-1, 20);
        w.write_timestamp(1_000, 500_000, 6);
        let key = w.key();
        // Decimal: 16 reserved bytes at offset 24, one byte 0xFF.
        assert_eq!(key.len(), 24 + 16 + 8);
        let slot = i64::from_le_bytes(key[8..16].try_into().unwrap());
        assert_eq!((slot >> 32, slot & 0xFFFF_FFFF), (24, 1));
        assert_eq!(key[24], 0xFF);
        assert_eq!(&key[25..40], &[0; 15]);
        // Timestamp: millis at offset 40, nanos in the low half of the slot.
        let slot = i64::from_le_bytes(key[16..24].try_into().unwrap());
        assert_eq!((slot >> 32, slot & 0xFFFF_FFFF), (40, 500_000));
        assert_eq!(&key[40..48], &1_000_i64.to_le_bytes());
    }
}
