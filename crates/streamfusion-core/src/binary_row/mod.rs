//! Flink `BinaryRowData` rows to and from Arrow columns, column at a time.
//!
//! Flink hashes, compares and ships rows as `BinaryRowData`; the native side writes
//! ([`RowWriter`]) and reads ([`RowReader`]) the very same bytes. Layout of one row with `n`
//! fields (all integers little-endian):
//!
//! ```text
//! +--------+---------------+-----------+-----------+-----+----------------------------+
//! | header | null bits ... | slot 0    | slot 1    | ... | variable part (8-aligned)  |
//! | 1 byte | bit i+8: NULL | 8 bytes   | 8 bytes   |     | long strings, wide values  |
//! +--------+---------------+-----------+-----------+-----+----------------------------+
//! |<--- ((n + 63 + 8) / 64) * 8 bytes -->|
//! ```
//!
//! - header: the row kind (`RowKind.toByteValue()`: `+I`=0, `-U`=1, `+U`=2, `-D`=3); key
//!   rows are `0`;
//! - a NULL field sets its bit and leaves its slot zero;
//! - BOOLEAN/TINYINT (1 byte), SMALLINT (2), INT/DATE/TIME/INTERVAL YEAR TO MONTH (4),
//!   FLOAT (4 raw bits), BIGINT/DOUBLE/INTERVAL DAY TO SECOND (8) sit at the start of their
//!   slot, the rest of which stays zero;
//! - CHAR/VARCHAR/BINARY/VARBINARY of at most 7 bytes sit inline: bytes `0..len` of the slot
//!   hold the data and byte 7 holds `0x80 | len`; longer values go to the variable part
//!   (zero-padded to 8 bytes) and the slot holds `offset << 32 | len`;
//! - DECIMAL with precision <= 18: the unscaled `long` in the slot; wider: 16 zeroed bytes
//!   are always reserved in the variable part (NULL too), holding `BigInteger.toByteArray()`
//!   (minimal big-endian two's complement), and the slot holds `offset << 32 | byte length`
//!   (`offset << 32` for NULL);
//! - TIMESTAMP/TIMESTAMP_LTZ with precision <= 3: epoch milliseconds in the slot; wider: 8
//!   bytes of milliseconds are always reserved in the variable part (zero for NULL) and the
//!   slot holds `offset << 32 | nanoOfMillisecond` (`offset << 32` for NULL);
//! - ROW: the nested row, a `BinaryRowData` of its own with header `+I`, is copied into the
//!   variable part (never inline) and the slot holds `offset << 32 | size`; a NULL ROW only
//!   sets its bit. Nested rows are written like `RowDataSerializer.toBinaryRow`: their NULL
//!   wide DECIMALs and TIMESTAMPs reserve nothing.
//!
//! - ARRAY: a `BinaryArrayData` (below) copied into the variable part like a nested row, the
//!   slot holding `offset << 32 | size`;
//! - MAP: a `BinaryMapData`, likewise: a 4-byte key-array size, the key array, then the value
//!   array (both `BinaryArrayData`); the slot's size is the unpadded `4 + keys + values`.
//!
//! Offsets are relative to the row start; the variable part is filled in field order, and a
//! row's length is a multiple of 8.
//!
//! # `BinaryArrayData` (`BinaryArrayWriter`)
//!
//! ```text
//! +----------+-------------------------+-------------------------+---------+---------------+
//! | n: int   | null bits, 4-byte words | n slots of element size | padding | variable part |
//! | 4 bytes  | bit i (from byte 4)     | 1, 2, 4 or 8 bytes each | to 8    | (8-aligned)   |
//! +----------+-------------------------+-------------------------+---------+---------------+
//! |<-- 4 + ((n + 31) / 32) * 4 ------>|
//! ```
//!
//! - element size (`calculateFixLengthPartSize`): BOOLEAN/TINYINT 1, SMALLINT 2,
//!   INT/FLOAT/DATE/TIME/INTERVAL YEAR TO MONTH 4, everything else 8;
//! - elements are written as row fields are (inline strings, `offset << 32 | len`, wide
//!   DECIMAL/TIMESTAMP in 16/8 variable bytes, nested ROW/ARRAY/MAP copied), with offsets
//!   relative to the array start;
//! - a NULL element only sets its bit and leaves its slot zero (`createNullSetter`:
//!   `setNullLong` for every 8-byte type), so a NULL wide DECIMAL or TIMESTAMP reserves nothing.

mod read;
mod write;

pub use read::RowReader;
pub use write::{BinaryRows, RowWriter};

use crate::types::LogicalType;

/// Bytes stored inline in a slot at most (`BinarySegmentUtils.MAX_FIX_PART_DATA_SIZE`).
pub const MAX_INLINE_BYTES: usize = 7;

/// Bytes reserved in the variable part for a non-compact DECIMAL (its largest byte length).
pub const WIDE_DECIMAL_BYTES: usize = 16;

/// The largest `nanoOfMillisecond` of a `TimestampData`.
pub const MAX_NANO_OF_MILLISECOND: u32 = 999_999;

/// `BinaryArrayData.calculateHeaderInBytes(elements)`: the count and the null-bit words.
pub fn array_header_len(elements: usize) -> usize {
    4 + elements.div_ceil(32) * 4
}

/// `BinaryArrayData.calculateFixLengthPartSize(element)`: an element's slot width.
pub fn array_element_size(element: &LogicalType) -> usize {
    match element {
        LogicalType::Boolean | LogicalType::TinyInt => 1,
        LogicalType::SmallInt => 2,
        LogicalType::Int
        | LogicalType::Float
        | LogicalType::Date
        | LogicalType::Time(_)
        | LogicalType::IntervalYearMonth => 4,
        _ => 8,
    }
}

/// `BinaryRowData.calculateBitSetWidthInBytes(arity)`.
pub fn null_bits_width(arity: usize) -> usize {
    (arity + 63 + 8) / 64 * 8
}
