//! Deterministic fixture generators for benchmarks, oracle checks and tests.
//!
//! This module owns the *inputs* every suite measures with, so that a candidate and its
//! baseline see byte-identical data (see `EVIDENCE.md`, "Fixtures"). Every generator is a pure
//! function of its arguments: no wall clock, no thread-local or unseeded randomness. Values
//! come from fixed arithmetic sequences (wrapping in the type's width where noted); where
//! byte mixing is needed ([`binary`]) it comes from [`splitmix64`] keyed by the one published
//! [`SEED`].
//!
//! Values depend only on the row index (and the generator's shape arguments), never on
//! `len`, so a shorter fixture is a prefix of a longer one and a slice of a longer fixture
//! equals the rows it views. NULLs come from a [`NullPattern`] at fixed positions; a NULL
//! slot holds the type's default (zero / empty) value, as Arrow builders write.
//!
//! # Edge values at fixed positions
//!
//! Edge values repeat every [`EDGE_PERIOD`] rows at fixed `row % EDGE_PERIOD` positions, so
//! every shape with at least [`EDGE_PERIOD`] rows contains all of them (and the 16-row shape
//! contains those at positions below 16):
//!
//! | generator      | 1          | 2          | 3     | 4      | 5     | 6..=12                  |
//! |----------------|------------|------------|-------|--------|-------|-------------------------|
//! | integers       | `MIN`      | `MAX`      | 0     | -1     |       |                         |
//! | [`decimal128`] | -(10^p-1)  | 10^p-1     | 0     | -1     | 1     |                         |
//! | [`timestamps`] | 1684 (far past) | 2255 (far future) | epoch second |  |  |              |
//! | [`float64`]    | NaN        | -0.0       | 0.0   | +inf   | -inf  | subnormals, MAX, MIN, MIN_POSITIVE, -NaN |
//! | [`dates`]      | 0001-01-01 | 9999-12-31 | epoch |        |       |                         |
//! | [`times`]      | 00:00:00.000 | 23:59:59.999 |   |        |       |                         |
//!
//! # Shapes
//!
//! [`ROW_COUNTS`], [`STRING_WIDTHS`] and [`key_domains`] list the shapes `EVIDENCE.md` asks
//! suites to cover; [`sliced_batch`] gives the sliced-input (nonzero offset) variant.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow::array::Array;
use arrow::array::{
    ArrayRef, BinaryArray, BinaryBuilder, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int8Array, Int16Array, Int32Array, Int64Array, ListArray, MapArray,
    PrimitiveArray, RecordBatch, StringArray, StringBuilder, StructArray, Time32MillisecondArray,
};
use arrow::buffer::{BooleanBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{
    ArrowPrimitiveType, ArrowTimestampType, DECIMAL128_MAX_PRECISION, DataType, Date32Type,
    Decimal128Type, Field, Fields, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Schema, Time32MillisecondType, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};

/// The one published seed for every mixed (pseudo-random looking) fixture byte.
pub const SEED: u64 = 0x5EED_F11C;

/// Edge values repeat every `EDGE_PERIOD` rows (see the module docs' table).
pub const EDGE_PERIOD: usize = 64;

/// Row counts every suite covers: one tiny, one typical and one large batch.
pub const ROW_COUNTS: [usize; 3] = [16, 1_024, 16_384];

/// String widths (bytes) every string-carrying suite covers: key-sized, just over the
/// 256-byte boundary, and page-sized.
pub const STRING_WIDTHS: [usize; 3] = [8, 264, 4_096];

/// Offset used for sliced inputs: nonzero and not a multiple of 8, so validity bitmaps of the
/// slice are not byte aligned.
pub const SLICE_OFFSET: usize = 3;

/// Width in bytes of the `payload` column of [`batch`] (fixed so that string-width shapes vary
/// only the `name` column).
pub const PAYLOAD_WIDTH: usize = 16;

/// Width in bytes of the nested `name` strings in [`list_of_struct`].
pub const NESTED_NAME_WIDTH: usize = 8;

/// Key domains suites cover for `rows`-row batches: a single key, 64 keys and one key per row.
pub fn key_domains(rows: usize) -> [usize; 3] {
    [1, 64, rows.max(1)]
}

/// SplitMix64 finaliser (Steele, Lea & Flood 2014): a bijective 64-bit mix, used only to make
/// fixture bytes look random. `splitmix64(x)` is the output for generator state `x`.
pub fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The `lane`-th 64-bit mixed word of row `row`: `splitmix64(splitmix64(SEED ^ row) ^ lane)`.
pub fn mix(row: u64, lane: u64) -> u64 {
    splitmix64(splitmix64(SEED ^ row) ^ lane)
}

/// Where a generated column is NULL. Row indices are those of the generated array (before
/// any slicing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum NullPattern {
    /// No NULLs.
    #[default]
    None,
    /// Every `n`th value is NULL: `row % n == n - 1` (rows `n-1`, `2n-1`, …). `EveryNth(1)` is
    /// all NULL; `EveryNth(0)` is no NULLs.
    EveryNth(usize),
    /// `(row + column) % modulus == 0` is NULL, the `EVIDENCE.md` pattern; `column` is the
    /// column index, so columns of one batch are NULL at staggered rows. `modulus == 0` is no
    /// NULLs. [`batch`] applies [`NullPattern::for_column`] per column.
    RowColumn {
        /// Column index (added to the row).
        column: usize,
        /// Period of the NULLs.
        modulus: usize,
    },
    /// Every value is NULL.
    All,
}

impl NullPattern {
    /// Whether `row` is NULL under this pattern.
    pub fn is_null(&self, row: usize) -> bool {
        match *self {
            Self::None => false,
            Self::EveryNth(n) => n != 0 && row % n == n - 1,
            Self::RowColumn { column, modulus } => {
                modulus != 0 && (row % modulus + column % modulus).is_multiple_of(modulus)
            }
            Self::All => true,
        }
    }

    /// The pattern for column `column` of a multi-column fixture: `RowColumn` has `column`
    /// added to its own column; every other pattern is unchanged.
    pub fn for_column(self, column: usize) -> Self {
        match self {
            Self::RowColumn {
                column: base,
                modulus,
            } => Self::RowColumn {
                column: base + column,
                modulus,
            },
            other => other,
        }
    }

    /// Validity for rows `0..len`, or `None` when no row in that range is NULL.
    pub fn null_buffer(&self, len: usize) -> Option<NullBuffer> {
        let nulls = NullBuffer::new(BooleanBuffer::collect_bool(len, |row| !self.is_null(row)));
        (nulls.null_count() > 0).then_some(nulls)
    }
}

/// A primitive array whose non-NULL slot `row` holds `value(row)`; NULL slots hold the default.
fn primitive<T: ArrowPrimitiveType>(
    len: usize,
    nulls: NullPattern,
    value: impl Fn(usize) -> T::Native,
) -> PrimitiveArray<T> {
    let values: ScalarBuffer<T::Native> = (0..len)
        .map(|row| {
            if nulls.is_null(row) {
                T::Native::default()
            } else {
                value(row)
            }
        })
        .collect();
    PrimitiveArray::new(values, nulls.null_buffer(len))
}

/// Start of the integer sequence, before truncation to the type's width.
const INT_START: i64 = -1_000;
/// Stride of the integer sequence (the 64-bit golden ratio), truncated to the type's width.
/// It is odd, so `Int8`/`Int16` sequences visit every value of the type once per 256/65,536
/// rows, and wide types spread over the whole range with both signs.
const INT_STRIDE: i64 = 0x9E37_79B9_7F4A_7C15_u64 as i64;

macro_rules! int_generator {
    ($(#[$doc:meta])* $name:ident, $array:ty, $arrow_type:ty, $native:ty) => {
        $(#[$doc])*
        ///
        /// Non-NULL `row` holds `INT_START + row × INT_STRIDE` wrapping in the type's width,
        /// except `MIN`, `MAX`, `0` and `-1` at `row % EDGE_PERIOD` = 1, 2, 3, 4.
        pub fn $name(len: usize, nulls: NullPattern) -> $array {
            primitive::<$arrow_type>(len, nulls, |row| match row % EDGE_PERIOD {
                1 => <$native>::MIN,
                2 => <$native>::MAX,
                3 => 0,
                4 => -1,
                _ => INT_START.wrapping_add((row as i64).wrapping_mul(INT_STRIDE)) as $native,
            })
        }
    };
}

int_generator!(
    /// `TINYINT` values.
    int8, Int8Array, Int8Type, i8
);
int_generator!(
    /// `SMALLINT` values.
    int16, Int16Array, Int16Type, i16
);
int_generator!(
    /// `INT` values.
    int32, Int32Array, Int32Type, i32
);
int_generator!(
    /// `BIGINT` values.
    int64, Int64Array, Int64Type, i64
);

/// Row ids `0, 1, 2, …` as non-NULL `BIGINT` (the `id` column of [`batch`]).
pub fn row_ids(len: usize) -> Int64Array {
    Int64Array::from_iter_values((0..len).map(|row| row as i64))
}

/// Non-NULL `BIGINT` grouping keys `row % domain` (`domain` 0 is treated as 1): one key, a few
/// keys or one per row, cycling in row order. See [`key_domains`].
pub fn keys(len: usize, domain: usize) -> Int64Array {
    let domain = domain.max(1);
    Int64Array::from_iter_values((0..len).map(|row| (row % domain) as i64))
}

/// Stride of the decimal magnitude sequence (19 digits, so every precision sees all digits).
const DECIMAL_STRIDE: i128 = 1_234_567_890_123_456_789;
/// Start of the decimal magnitude sequence.
const DECIMAL_START: i128 = 987_654_321;

/// `DECIMAL(precision, scale)` unscaled values, all valid for `precision`.
///
/// Non-NULL `row` holds magnitude `(DECIMAL_START + row × DECIMAL_STRIDE) mod 10^precision`,
/// negated on odd rows; at `row % EDGE_PERIOD` = 1, 2, 3, 4, 5 it holds the boundaries
/// `-(10^p - 1)`, `10^p - 1`, `0`, `-1` and `1` (one unit of the last scale digit).
///
/// # Panics
///
/// If `precision` is not in `1..=38` or `scale` is not valid for it
/// ([`Decimal128Array::with_precision_and_scale`]).
pub fn decimal128(len: usize, precision: u8, scale: i8, nulls: NullPattern) -> Decimal128Array {
    assert!(
        (1..=DECIMAL128_MAX_PRECISION).contains(&precision),
        "decimal128 precision {precision} is outside 1..={DECIMAL128_MAX_PRECISION}"
    );
    let max = 10_i128.pow(u32::from(precision)) - 1;
    primitive::<Decimal128Type>(len, nulls, |row| match row % EDGE_PERIOD {
        1 => -max,
        2 => max,
        3 => 0,
        4 => -1,
        5 => 1,
        _ => {
            let magnitude = (DECIMAL_START + row as i128 * DECIMAL_STRIDE) % (max + 1);
            if row % 2 == 1 { -magnitude } else { magnitude }
        }
    })
    .with_precision_and_scale(precision, scale)
    .unwrap_or_else(|error| panic!("decimal128({precision}, {scale}): {error}"))
}

/// Seconds of the far-past edge value (1684-10-22), representable in nanoseconds.
const FAR_PAST_SECONDS: i64 = -9_000_000_000;
/// Seconds of the far-future edge value (2255-03-14), representable in nanoseconds.
const FAR_FUTURE_SECONDS: i64 = 9_000_000_000;
/// Step between rows: one day, one hour, one minute and one second.
const TIMESTAMP_STEP_SECONDS: i64 = 90_061;
/// Rows 0..8 are before the epoch, later rows after it.
const TIMESTAMP_START_SECONDS: i64 = -8 * TIMESTAMP_STEP_SECONDS;
/// The seconds sequence restarts every `TIMESTAMP_CYCLE` rows (about 187 years), so it never
/// overflows nanoseconds.
const TIMESTAMP_CYCLE: i64 = 65_536;

/// Timestamp values in `T`'s unit, without a time zone.
///
/// Non-NULL `row` holds `seconds(row) × units_per_second + fraction(row)` where
/// `seconds(row) = -8 × 90,061 + (row mod 65,536) × 90,061` (rows 0..8 are pre-epoch, i.e.
/// negative) with the far past (1684), far future (2255) and epoch second at
/// `row % EDGE_PERIOD` = 1, 2, 3; and `fraction(row)` is `0` for seconds,
/// `7 × row mod 10^3` ms, `123,457 × row mod 10^6` µs, `123,456,789 × row mod 10^9` ns, so
/// micro- and nanosecond values have non-zero sub-millisecond parts (except when
/// `row % 1000 == 0`).
pub fn timestamp_array<T: ArrowTimestampType>(len: usize, nulls: NullPattern) -> PrimitiveArray<T> {
    let (per_second, fraction_stride): (i64, i64) = match T::UNIT {
        TimeUnit::Second => (1, 0),
        TimeUnit::Millisecond => (1_000, 7),
        TimeUnit::Microsecond => (1_000_000, 123_457),
        TimeUnit::Nanosecond => (1_000_000_000, 123_456_789),
    };
    primitive::<T>(len, nulls, |row| {
        let r = row as i64;
        let seconds = match row % EDGE_PERIOD {
            1 => FAR_PAST_SECONDS,
            2 => FAR_FUTURE_SECONDS,
            3 => 0,
            _ => TIMESTAMP_START_SECONDS + (r % TIMESTAMP_CYCLE) * TIMESTAMP_STEP_SECONDS,
        };
        let fraction = (r % per_second) * fraction_stride % per_second;
        seconds * per_second + fraction
    })
}

/// `TIMESTAMP(p)` values in `unit` (see [`timestamp_array`] for the values), as an
/// [`ArrayRef`] of the matching `Timestamp*Array`.
pub fn timestamps(len: usize, unit: TimeUnit, nulls: NullPattern) -> ArrayRef {
    match unit {
        TimeUnit::Second => Arc::new(timestamp_array::<TimestampSecondType>(len, nulls)),
        TimeUnit::Millisecond => Arc::new(timestamp_array::<TimestampMillisecondType>(len, nulls)),
        TimeUnit::Microsecond => Arc::new(timestamp_array::<TimestampMicrosecondType>(len, nulls)),
        TimeUnit::Nanosecond => Arc::new(timestamp_array::<TimestampNanosecondType>(len, nulls)),
    }
}

macro_rules! float_generator {
    ($(#[$doc:meta])* $name:ident, $array:ty, $arrow_type:ty, $native:ident) => {
        $(#[$doc])*
        ///
        /// Non-NULL `row` holds `-1000.5 + row × 1.375`, except at `row % EDGE_PERIOD`:
        /// 1 NaN, 2 -0.0, 3 0.0, 4 +inf, 5 -inf, 6 the smallest positive subnormal,
        /// 7 a negative subnormal (`-MIN_POSITIVE / 2`), 8 `MAX`, 9 `MIN`, 10 `MIN_POSITIVE`,
        /// 11 NaN with the sign bit set.
        pub fn $name(len: usize, nulls: NullPattern) -> $array {
            primitive::<$arrow_type>(len, nulls, |row| match row % EDGE_PERIOD {
                1 => $native::NAN,
                2 => -0.0,
                3 => 0.0,
                4 => $native::INFINITY,
                5 => $native::NEG_INFINITY,
                6 => $native::from_bits(1),
                7 => -$native::MIN_POSITIVE / 2.0,
                8 => $native::MAX,
                9 => $native::MIN,
                10 => $native::MIN_POSITIVE,
                11 => -$native::NAN,
                _ => -1000.5 + row as $native * 1.375,
            })
        }
    };
}

float_generator!(
    /// `DOUBLE` values.
    float64, Float64Array, Float64Type, f64
);
float_generator!(
    /// `FLOAT` values.
    float32, Float32Array, Float32Type, f32
);

/// `BOOLEAN` values: non-NULL `row` is `row % 3 != 1` (not aligned to bytes or words).
pub fn booleans(len: usize, nulls: NullPattern) -> BooleanArray {
    let values = BooleanBuffer::collect_bool(len, |row| !nulls.is_null(row) && row % 3 != 1);
    BooleanArray::new(values, nulls.null_buffer(len))
}

/// `DATE` values (days since the epoch): `-1000 + (row mod 65,536) × 37` (pre-epoch for the
/// first 28 rows), with 0001-01-01, 9999-12-31 and the epoch at `row % EDGE_PERIOD` = 1, 2, 3.
pub fn dates(len: usize, nulls: NullPattern) -> Date32Array {
    primitive::<Date32Type>(len, nulls, |row| match row % EDGE_PERIOD {
        1 => -719_162,
        2 => 2_932_896,
        3 => 0,
        _ => -1_000 + (row % 65_536) as i32 * 37,
    })
}

/// `TIME(3)` values (milliseconds of the day): `row × 3,600,007 mod 86,400,000`, with
/// midnight and 23:59:59.999 at `row % EDGE_PERIOD` = 1, 2.
pub fn times(len: usize, nulls: NullPattern) -> Time32MillisecondArray {
    primitive::<Time32MillisecondType>(len, nulls, |row| match row % EDGE_PERIOD {
        1 => 0,
        2 => 86_399_999,
        _ => ((row % 86_400_000) as i64 * 3_600_007 % 86_400_000) as i32,
    })
}

/// Pieces cycled through after the row number, NUL and first non-ASCII character.
const UTF8_CYCLE: [&str; 8] = ["€", "a", "😀", "Z", "ж", "-", "é", " "];

/// Appends the `width`-byte UTF-8 value of `row` to `out`:
///
/// 1. the decimal row number (truncated to `width` if longer),
/// 2. a NUL (`'\0'`) if a byte remains,
/// 3. `'é'` (even rows) or `'ж'` (odd rows) if two bytes remain,
/// 4. pieces of [`UTF8_CYCLE`] (1–4 bytes: `€`, `😀`, `ж`, `é` and ASCII) starting at
///    `row % 8`, while the next piece fits,
/// 5. ASCII `a..z` padding to exactly `width` bytes.
fn push_utf8_value(row: usize, width: usize, out: &mut String) {
    let start = out.len();
    write!(out, "{row}").expect("writing to a String cannot fail");
    out.truncate(start + width.min(out.len() - start));
    let remaining = |out: &String| width - (out.len() - start);
    if remaining(out) >= 1 {
        out.push('\0');
    }
    if remaining(out) >= 2 {
        out.push(if row.is_multiple_of(2) { 'é' } else { 'ж' });
    }
    for piece in UTF8_CYCLE.iter().cycle().skip(row % UTF8_CYCLE.len()) {
        if piece.len() > remaining(out) {
            break;
        }
        out.push_str(piece);
    }
    for i in 0..remaining(out) {
        out.push(char::from(b'a' + (i % 26) as u8));
    }
    debug_assert_eq!(out.len() - start, width);
}

/// `VARCHAR` values of exactly `width_bytes` bytes of valid UTF-8 each (NULLs are empty).
///
/// Each value starts with its row number (so values differ per row whenever the number fits
/// in the width), then an embedded NUL, then multi-byte characters (`é`/`ж` 2 bytes, `€`
/// 3 bytes, `😀` 4 bytes) mixed with ASCII, padded with ASCII to the exact width. Widths too
/// small for a piece simply omit it: width 1 is one ASCII digit; at width 8 every row below
/// 100,000 has its number, a NUL and a non-ASCII character.
pub fn utf8(len: usize, width_bytes: usize, nulls: NullPattern) -> StringArray {
    let non_null = (0..len).filter(|&row| !nulls.is_null(row)).count();
    let mut builder = StringBuilder::with_capacity(len, non_null * width_bytes);
    let mut value = String::with_capacity(width_bytes);
    for row in 0..len {
        if nulls.is_null(row) {
            builder.append_null();
        } else {
            value.clear();
            push_utf8_value(row, width_bytes, &mut value);
            builder.append_value(&value);
        }
    }
    builder.finish()
}

/// Byte `index` of the binary value of `row`: `0x00`, `0xFF`, then the row number's 8
/// little-endian bytes, then bytes of [`mix`]`(row, index / 8)`.
fn binary_byte(row: usize, index: usize) -> u8 {
    match index {
        0 => 0x00,
        1 => 0xFF,
        2..=9 => (row as u64).to_le_bytes()[index - 2],
        _ => mix(row as u64, (index / 8) as u64).to_le_bytes()[index % 8],
    }
}

/// `VARBINARY` values of exactly `width` bytes each (NULLs are empty): `0x00`, `0xFF`, the
/// row number (little-endian, so values differ per row from width 3 on), then seeded mixed
/// bytes.
pub fn binary(len: usize, width: usize, nulls: NullPattern) -> BinaryArray {
    let non_null = (0..len).filter(|&row| !nulls.is_null(row)).count();
    let mut builder = BinaryBuilder::with_capacity(len, non_null * width);
    let mut value = Vec::with_capacity(width);
    for row in 0..len {
        if nulls.is_null(row) {
            builder.append_null();
        } else {
            value.clear();
            value.extend((0..width).map(|index| binary_byte(row, index)));
            builder.append_value(&value);
        }
    }
    builder.finish()
}

/// Length of a nested collection at `row`: `row % (2 × per_row + 1)`, so lengths cycle
/// through `0..=2 × per_row` (average `per_row`, empty collections included); NULL parents
/// have length 0.
fn nested_lengths(len: usize, per_row: usize, nulls: NullPattern) -> Vec<usize> {
    (0..len)
        .map(|row| {
            if nulls.is_null(row) {
                0
            } else {
                row % (2 * per_row + 1)
            }
        })
        .collect()
}

/// `ARRAY<ROW<id BIGINT NOT NULL, name VARCHAR>>`.
///
/// Row `row` has `row % (2 × items_per_row + 1)` items (empty lists included) unless NULL by
/// `nulls`. Items are numbered globally `k = 0, 1, …`: `id = k`; the item (struct) is NULL
/// where `nulls.for_column(1).is_null(k)`, `name` is [`utf8`] of width
/// [`NESTED_NAME_WIDTH`] and NULL where `nulls.for_column(2).is_null(k)`. Field nullability
/// is set where NULLs were generated.
pub fn list_of_struct(len: usize, items_per_row: usize, nulls: NullPattern) -> ListArray {
    let lengths = nested_lengths(len, items_per_row, nulls);
    let items = lengths.iter().sum::<usize>();
    let ids: ArrayRef = Arc::new(row_ids(items));
    let names: ArrayRef = Arc::new(utf8(items, NESTED_NAME_WIDTH, nulls.for_column(2)));
    let fields = Fields::from(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, names.null_count() > 0),
    ]);
    let structs = StructArray::new(
        fields.clone(),
        vec![ids, names],
        nulls.for_column(1).null_buffer(items),
    );
    let item_field = Field::new_list_field(DataType::Struct(fields), structs.null_count() > 0);
    ListArray::new(
        Arc::new(item_field),
        OffsetBuffer::from_lengths(lengths),
        Arc::new(structs),
        nulls.null_buffer(len),
    )
}

/// `MAP<VARCHAR, BIGINT>` with non-NULL keys and nullable values, unordered.
///
/// Row `row` has `row % (2 × entries_per_row + 1)` entries (empty maps included) unless NULL
/// by `nulls`. Entry `j` of a row has key `"k{j}"` (unique within the map); entries are
/// numbered globally `k = 0, 1, …` and the value is `k × 1,000,003 - 500`, NULL where
/// `nulls.for_column(1).is_null(k)`. Arrow field names are `entries`, `keys`, `values`.
pub fn map_array(len: usize, entries_per_row: usize, nulls: NullPattern) -> MapArray {
    let lengths = nested_lengths(len, entries_per_row, nulls);
    let entries = lengths.iter().sum::<usize>();
    let mut keys = StringBuilder::with_capacity(entries, entries * 3);
    let mut key = String::new();
    for &length in &lengths {
        for j in 0..length {
            key.clear();
            write!(key, "k{j}").expect("writing to a String cannot fail");
            keys.append_value(&key);
        }
    }
    let keys: ArrayRef = Arc::new(keys.finish());
    let values: ArrayRef = Arc::new(primitive::<Int64Type>(entries, nulls.for_column(1), |k| {
        k as i64 * 1_000_003 - 500
    }));
    let fields = Fields::from(vec![
        Field::new("keys", DataType::Utf8, false),
        Field::new("values", DataType::Int64, values.null_count() > 0),
    ]);
    let entry_structs = StructArray::new(fields.clone(), vec![keys, values], None);
    MapArray::new(
        Arc::new(Field::new("entries", DataType::Struct(fields), false)),
        OffsetBuffer::from_lengths(lengths),
        entry_structs,
        nulls.null_buffer(len),
        false,
    )
}

/// A representative mixed batch of `rows` rows:
///
/// | # | column    | type             | values                                      |
/// |---|-----------|------------------|---------------------------------------------|
/// | 0 | `id`      | `BIGINT NOT NULL`| [`row_ids`] (never NULL)                    |
/// | 1 | `v`       | `INT`            | [`int32`]                                   |
/// | 2 | `amount`  | `DECIMAL(18, 2)` | [`decimal128`]                              |
/// | 3 | `ts`      | `TIMESTAMP(9)`   | [`timestamp_array`] in nanoseconds, no zone |
/// | 4 | `name`    | `VARCHAR`        | [`utf8`] of `string_width` bytes            |
/// | 5 | `payload` | `VARBINARY`      | [`binary`] of [`PAYLOAD_WIDTH`] bytes       |
///
/// Column `c ≥ 1` is NULL where `nulls.for_column(c)` says so, so with
/// `RowColumn { column: 0, modulus: 13 }` column `c` is NULL where `(row + c) % 13 == 0`.
/// A field is nullable exactly when its column contains a NULL.
pub fn batch(rows: usize, string_width: usize, nulls: NullPattern) -> RecordBatch {
    let columns: [(&str, ArrayRef); 6] = [
        ("id", Arc::new(row_ids(rows))),
        ("v", Arc::new(int32(rows, nulls.for_column(1)))),
        (
            "amount",
            Arc::new(decimal128(rows, 18, 2, nulls.for_column(2))),
        ),
        (
            "ts",
            Arc::new(timestamp_array::<TimestampNanosecondType>(
                rows,
                nulls.for_column(3),
            )),
        ),
        (
            "name",
            Arc::new(utf8(rows, string_width, nulls.for_column(4))),
        ),
        (
            "payload",
            Arc::new(binary(rows, PAYLOAD_WIDTH, nulls.for_column(5))),
        ),
    ];
    let schema = Schema::new(
        columns
            .iter()
            .map(|(name, array)| {
                Field::new(*name, array.data_type().clone(), array.null_count() > 0)
            })
            .collect::<Vec<_>>(),
    );
    let arrays = columns.into_iter().map(|(_, array)| array).collect();
    RecordBatch::try_new(Arc::new(schema), arrays).expect("fixture columns match their schema")
}

/// The zero-copy view of rows `offset..` of `batch` (`batch.slice(offset, rows - offset)`).
///
/// # Panics
///
/// If `offset > batch.num_rows()`.
pub fn sliced(batch: &RecordBatch, offset: usize) -> RecordBatch {
    assert!(
        offset <= batch.num_rows(),
        "slice offset {offset} is larger than batch of {} rows",
        batch.num_rows()
    );
    batch.slice(offset, batch.num_rows() - offset)
}

/// A sliced input: [`batch`]`(rows + offset, …)` viewed zero-copy at rows
/// `offset..offset + rows`. With a nonzero `offset` such as [`SLICE_OFFSET`] its validity
/// bitmaps are not byte aligned and its buffers begin mid-allocation; the schema is that of
/// the underlying `rows + offset` batch.
pub fn sliced_batch(
    rows: usize,
    offset: usize,
    string_width: usize,
    nulls: NullPattern,
) -> RecordBatch {
    batch(rows + offset, string_width, nulls).slice(offset, rows)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use arrow::array::{AsArray, UInt64Array};
    use arrow::compute::take_record_batch;
    use arrow::datatypes::ArrowNativeType;

    use super::*;
    use crate::buffers::buffer_report;

    const EVIDENCE_NULLS: NullPattern = NullPattern::RowColumn {
        column: 0,
        modulus: 13,
    };

    fn all_patterns() -> [NullPattern; 6] {
        [
            NullPattern::None,
            NullPattern::EveryNth(13),
            NullPattern::EveryNth(1),
            EVIDENCE_NULLS,
            NullPattern::RowColumn {
                column: 5,
                modulus: 7,
            },
            NullPattern::All,
        ]
    }

    #[test]
    fn generators_are_deterministic() {
        for nulls in all_patterns() {
            assert_eq!(batch(1_024, 264, nulls), batch(1_024, 264, nulls));
            assert_eq!(list_of_struct(100, 3, nulls), list_of_struct(100, 3, nulls));
            assert_eq!(map_array(100, 2, nulls), map_array(100, 2, nulls));
            // NaN != NaN, so floats compare by bits.
            let bits = |array: Float64Array| {
                array
                    .values()
                    .iter()
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(float64(100, nulls)), bits(float64(100, nulls)));
            assert_eq!(binary(100, 40, nulls), binary(100, 40, nulls));
        }
        assert_eq!(mix(7, 1), mix(7, 1));
        assert_ne!(mix(7, 1), mix(8, 1));
    }

    #[test]
    fn shorter_fixtures_are_prefixes_of_longer_ones() {
        let long = batch(200, 8, EVIDENCE_NULLS);
        let short = batch(150, 8, EVIDENCE_NULLS);
        for (a, b) in long.columns().iter().zip(short.columns()) {
            assert_eq!(a.slice(0, 150).as_ref(), b.as_ref());
        }
    }

    #[test]
    fn strings_have_exact_widths_and_mix_unicode_and_nul() {
        for width in [0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 264, 4_096] {
            let rows = if width >= 4_096 { 64 } else { 2_048 };
            let array = utf8(rows, width, NullPattern::EveryNth(13));
            array.to_data().validate_full().unwrap();
            for row in 0..rows {
                if array.is_null(row) {
                    continue;
                }
                let value = array.value(row);
                assert_eq!(value.len(), width, "row {row} width {width}: {value:?}");
                assert!(std::str::from_utf8(value.as_bytes()).is_ok());
                if width <= 1 {
                    assert!(value.is_ascii());
                }
                if width >= 8 {
                    assert!(value.contains('\0'), "row {row} width {width}: {value:?}");
                    assert!(!value.is_ascii(), "row {row} width {width}: {value:?}");
                    assert!(value.starts_with(&row.to_string()));
                }
                if width >= 264 {
                    for c in ['é', 'ж', '€', '😀'] {
                        assert!(value.contains(c), "row {row} width {width} lacks {c}");
                    }
                }
            }
        }
    }

    #[test]
    fn strings_of_width_eight_differ_per_row_in_the_largest_shape() {
        let array = utf8(16_384, 8, NullPattern::None);
        let distinct: HashSet<&str> = array.iter().flatten().collect();
        assert_eq!(distinct.len(), 16_384);
        assert!(array.value(16_383).contains('\0') && !array.value(16_383).is_ascii());
    }

    #[test]
    fn binary_values_have_exact_widths_and_extreme_bytes() {
        for width in [0, 1, 2, 8, 16, 264] {
            let array = binary(300, width, EVIDENCE_NULLS);
            for row in (0..300).filter(|&row| array.is_valid(row)) {
                let value = array.value(row);
                assert_eq!(value.len(), width);
                if width >= 2 {
                    assert!(value.contains(&0x00) && value.contains(&0xFF));
                }
            }
        }
        let array = binary(1_000, 16, NullPattern::None);
        let distinct: HashSet<&[u8]> = array.iter().flatten().collect();
        assert_eq!(distinct.len(), 1_000);
    }

    #[test]
    fn null_positions_follow_the_pattern() {
        assert!(NullPattern::EveryNth(13).is_null(12));
        assert!(!NullPattern::EveryNth(13).is_null(13));
        assert!(!NullPattern::EveryNth(0).is_null(0));
        assert!(EVIDENCE_NULLS.for_column(4).is_null(9));
        assert!(NullPattern::None.null_buffer(100).is_none());
        assert!(NullPattern::EveryNth(200).null_buffer(100).is_none());

        for nulls in all_patterns() {
            let generated: [ArrayRef; 6] = [
                Arc::new(int8(100, nulls)),
                Arc::new(decimal128(100, 5, 1, nulls)),
                timestamps(100, TimeUnit::Microsecond, nulls),
                Arc::new(float32(100, nulls)),
                Arc::new(booleans(100, nulls)),
                Arc::new(times(100, nulls)),
            ];
            for array in &generated {
                for row in 0..100 {
                    assert_eq!(
                        array.is_null(row),
                        nulls.is_null(row),
                        "{nulls:?} row {row}"
                    );
                }
            }

            let fixture = batch(100, 8, nulls);
            for (column, array) in fixture.columns().iter().enumerate() {
                let field = fixture.schema().field(column).clone();
                assert_eq!(field.is_nullable(), array.null_count() > 0, "{field:?}");
                for row in 0..100 {
                    let expected = column > 0 && nulls.for_column(column).is_null(row);
                    assert_eq!(
                        array.is_null(row),
                        expected,
                        "{nulls:?} {field:?} row {row}"
                    );
                }
            }
        }

        // EVIDENCE.md's pattern: column c is NULL where (row + c) % 13 == 0.
        let fixture = batch(64, 8, EVIDENCE_NULLS);
        assert!(fixture.column(1).is_null(12) && fixture.column(4).is_null(9));
        assert_eq!(fixture.column(0).null_count(), 0);
        assert!(!fixture.schema().field(0).is_nullable());
        assert!(
            fixture
                .schema()
                .fields()
                .iter()
                .skip(1)
                .all(|f| f.is_nullable())
        );
    }

    #[test]
    fn integers_hit_negatives_and_the_type_bounds() {
        fn check<T: ArrowPrimitiveType>(array: &PrimitiveArray<T>, min: T::Native, max: T::Native)
        where
            T::Native: PartialOrd,
        {
            let values = array.values();
            assert!(values.contains(&min) && values.contains(&max));
            assert!(values.iter().any(|v| *v < T::Native::usize_as(0)));
            assert!(
                values
                    .iter()
                    .filter(|v| **v > T::Native::usize_as(0))
                    .count()
                    > 2
            );
        }
        check(&int8(256, NullPattern::None), i8::MIN, i8::MAX);
        check(&int16(256, NullPattern::None), i16::MIN, i16::MAX);
        check(&int32(256, NullPattern::None), i32::MIN, i32::MAX);
        check(&int64(256, NullPattern::None), i64::MIN, i64::MAX);
        let distinct: HashSet<i8> = int8(256, NullPattern::None)
            .values()
            .iter()
            .copied()
            .collect();
        assert!(distinct.len() > 200);
    }

    #[test]
    fn decimals_fit_their_precision_and_reach_its_bounds() {
        for (precision, scale) in [(1, 0), (2, 2), (5, 1), (9, 2), (18, 2), (19, 4), (38, 10)] {
            let array = decimal128(1_024, precision, scale, EVIDENCE_NULLS);
            array.validate_decimal_precision(precision).unwrap();
            let max = 10_i128.pow(u32::from(precision)) - 1;
            assert!(array.values().contains(&max) && array.values().contains(&-max));
            assert!(array.iter().flatten().filter(|v| *v < 0).count() > 100);
            assert_eq!((array.precision(), array.scale()), (precision, scale));
        }
    }

    #[test]
    #[should_panic(expected = "precision 39")]
    fn decimals_reject_an_impossible_precision() {
        decimal128(1, 39, 0, NullPattern::None);
    }

    #[test]
    fn timestamps_have_sub_millisecond_parts_and_pre_epoch_values() {
        for (unit, units_per_milli) in [
            (TimeUnit::Microsecond, 1_000),
            (TimeUnit::Nanosecond, 1_000_000),
        ] {
            let array = timestamps(1_024, unit, NullPattern::None);
            let values: Vec<i64> = match unit {
                TimeUnit::Microsecond => array
                    .as_primitive::<TimestampMicrosecondType>()
                    .values()
                    .to_vec(),
                _ => array
                    .as_primitive::<TimestampNanosecondType>()
                    .values()
                    .to_vec(),
            };
            assert!(
                values
                    .iter()
                    .filter(|v| v.rem_euclid(units_per_milli) != 0)
                    .count()
                    > 1_000
            );
            assert!(values.iter().filter(|v| **v < 0).count() >= 8);
            assert!(values.iter().any(|v| *v > 0));
            assert!(
                values
                    .iter()
                    .any(|v| v.rem_euclid(units_per_milli) != 0 && *v < 0)
            );
        }
        let seconds = timestamp_array::<TimestampSecondType>(100, NullPattern::None);
        assert!(seconds.values().iter().any(|v| *v < 0));
        let nanos = timestamp_array::<TimestampNanosecondType>(70_000, NullPattern::None);
        assert!(
            nanos
                .values()
                .iter()
                .all(|v| v.abs() < 9_100_000_000_000_000_000)
        );
    }

    #[test]
    fn floats_cover_nan_signed_zero_infinities_and_subnormals() {
        let values = float64(64, NullPattern::None);
        let values = values.values();
        assert!(values.iter().any(|v| v.is_nan() && v.is_sign_negative()));
        assert!(values.iter().any(|v| v.is_nan() && v.is_sign_positive()));
        assert!(values.iter().any(|v| *v == 0.0 && v.is_sign_negative()));
        assert!(values.iter().any(|v| *v == 0.0 && v.is_sign_positive()));
        assert!(values.contains(&f64::INFINITY) && values.contains(&f64::NEG_INFINITY));
        assert!(values.iter().filter(|v| v.is_subnormal()).count() == 2);
        let values = float32(64, NullPattern::None);
        assert!(values.values().iter().filter(|v| v.is_subnormal()).count() == 2);
        assert!(values.values().iter().any(|v| v.is_nan()));
    }

    #[test]
    fn dates_and_times_cover_their_ranges() {
        let days = dates(64, NullPattern::None);
        assert!(days.values().contains(&-719_162) && days.values().contains(&2_932_896));
        assert!(days.values().iter().any(|d| *d < 0 && *d > -719_162));
        let millis = times(1_024, NullPattern::None);
        assert!(millis.values().iter().all(|t| (0..86_400_000).contains(t)));
        assert!(millis.values().contains(&86_399_999));
        let flags = booleans(9, NullPattern::EveryNth(4));
        let expected = [true, false, true, true, false, true, true, false, true];
        for (row, want) in expected.iter().enumerate() {
            if flags.is_valid(row) {
                assert_eq!(flags.value(row), *want, "row {row}");
            }
        }
    }

    #[test]
    fn list_of_struct_has_empty_lists_and_null_parents_and_children() {
        let list = list_of_struct(200, 2, EVIDENCE_NULLS);
        list.to_data().validate_full().unwrap();
        let lengths: Vec<usize> = list.offsets().lengths().collect();
        assert!(lengths.contains(&0));
        assert!((0..200).any(|row| list.is_valid(row) && lengths[row] == 0));
        assert!(lengths.iter().copied().max() == Some(4));
        assert!(list.null_count() > 0);
        let items = list.values().as_struct();
        assert!(items.null_count() > 0);
        assert!(items.column(1).null_count() > 0);
        assert_eq!(items.column(0).null_count(), 0);
        let DataType::List(item) = list.data_type() else {
            panic!("not a list")
        };
        assert!(item.is_nullable());

        let plain = list_of_struct(50, 3, NullPattern::None);
        assert_eq!(plain.null_count(), 0);
        let DataType::List(item) = plain.data_type() else {
            panic!("not a list")
        };
        assert!(!item.is_nullable());
    }

    #[test]
    fn maps_have_unique_non_null_keys_nullable_values_and_empty_maps() {
        let map = map_array(200, 2, EVIDENCE_NULLS);
        map.to_data().validate_full().unwrap();
        assert!(map.null_count() > 0);
        assert_eq!(map.keys().null_count(), 0);
        assert!(map.values().null_count() > 0);
        let lengths: Vec<usize> = map.offsets().lengths().collect();
        assert!((0..200).any(|row| map.is_valid(row) && lengths[row] == 0));
        for row in (0..200).filter(|&row| map.is_valid(row)) {
            let entries = map.value(row);
            let keys = entries.column(0).as_string::<i32>();
            let distinct: HashSet<&str> = keys.iter().flatten().collect();
            assert_eq!(distinct.len(), keys.len());
        }
    }

    #[test]
    fn sliced_batches_have_a_nonzero_offset_and_equal_the_rows_they_view() {
        let rows = 1_024;
        let view = sliced_batch(rows, SLICE_OFFSET, 264, EVIDENCE_NULLS);
        let full = batch(rows + SLICE_OFFSET, 264, EVIDENCE_NULLS);
        assert_eq!(view.num_rows(), rows);
        assert_eq!(
            view.column(0).as_primitive::<Int64Type>().value(0),
            SLICE_OFFSET as i64
        );
        for column in view.columns().iter().skip(1) {
            let nulls = column.nulls().expect("nullable fixture columns have nulls");
            assert_eq!(nulls.offset(), SLICE_OFFSET);
        }
        assert_eq!(view, sliced(&full, SLICE_OFFSET));

        let indices =
            UInt64Array::from_iter_values((SLICE_OFFSET..rows + SLICE_OFFSET).map(|r| r as u64));
        let materialised = take_record_batch(&full, &indices).unwrap();
        assert_eq!(view, materialised);

        let report = buffer_report(&full, &sliced(&full, SLICE_OFFSET));
        assert_eq!(report.new_bytes, 0, "{report:?}");
        assert!(report.shared_bytes > 0);
    }
}
