//! Parquet files as Flink 2.3.0's `flink-parquet` writes and reads them
//! (`ParquetRowDataWriter`, `ParquetSchemaConverter`, the vectorized
//! `ParquetColumnarRowInputFormat` with its `TimestampColumnReader`).
//!
//! - [`FlinkParquetWriter`] writes Arrow batches of a table's row type into a Parquet file
//!   whose schema is the one `ParquetSchemaConverter.convertToParquetMessageType(
//!   "flink_schema", rowType)` builds, with Flink's value encodings (INT96 or INT64
//!   timestamps, decimals as big-endian `FIXED_LEN_BYTE_ARRAY`, Flink's three-level lists
//!   and maps).
//! - [`FlinkParquetReader`] reads such a file (or one written by another writer) through a
//!   [`HostFile`]: the JVM owns the file system, so every byte comes through the host's
//!   positional reads ([`LocalFile`] and [`MemoryFile`] are the Rust-side ones).
//!
//! # The schema (`ParquetSchemaConverter`)
//!
//! Every field is `optional`, at every level. The message is named `flink_schema`.
//!
//! | Flink type | Parquet type |
//! |---|---|
//! | `CHAR`/`VARCHAR` | `binary (STRING)` |
//! | `BOOLEAN` | `boolean` |
//! | `BINARY`/`VARBINARY` | `binary` |
//! | `DECIMAL(p, s)` | `fixed_len_byte_array(n) (DECIMAL(p,s))`, `n` the fewest bytes holding 10^p in two's complement (every precision, as Flink's writer does) |
//! | `TINYINT`/`SMALLINT` | `int32 (INTEGER(8,true))` / `int32 (INTEGER(16,true))` |
//! | `INT`/`BIGINT` | `int32` / `int64` |
//! | `FLOAT`/`DOUBLE` | `float` / `double` |
//! | `DATE` | `int32 (DATE)` |
//! | `TIME(p)` | `int32 (TIME(MILLIS,true))` |
//! | `TIMESTAMP(p)`/`TIMESTAMP_LTZ(p)` | `int96`; with `write.int64.timestamp`, `int64 (TIMESTAMP(<unit>,true))` |
//! | `ARRAY<t>` | `optional group a (LIST) { repeated group list { optional t element; } }` |
//! | `MAP<k, v>` | `optional group m (MAP) { repeated group key_value (MAP_KEY_VALUE) { optional k key; optional v value; } }` |
//! | `ROW<...>` | `optional group r { ... }` |
//!
//! `INTERVAL` types are refused ([`FormatError::Unsupported`](crate::FormatError)), as
//! Flink's converter throws on them.
//!
//! # INT96 timestamps
//!
//! Twelve bytes, little-endian: nanoseconds of the day (8 bytes) then the Julian day
//! (4 bytes; day 2,440,588 is 1970-01-01):
//!
//! ```text
//! byte  0               8            12
//!       | nanos of day  | julian day |
//!       |   i64 LE      |   i32 LE   |
//! ```
//!
//! Flink computes both with Java's truncating `/` and `%` on the epoch milliseconds, so a
//! timestamp before 1970 that is not on a day boundary is written with a *negative*
//! nanoseconds-of-day (1969-12-31T23:59:59.999 is day 2,440,588 with −1,000,000 ns). The
//! writer writes exactly those bytes; the reader reads them with Flink's
//! `int96ToTimestamp`, which rejects a negative sub-millisecond remainder (Flink throws
//! `IllegalArgumentException`; here it is a [`FormatError::Malformed`](crate::FormatError)).
//! See [`timestamp`] for the arithmetic.
//!
//! # `utc-timezone`
//!
//! With `parquet.utc-timezone = true` a `TIMESTAMP` value's wall clock is written as if it
//! were UTC. With `false` (Flink's default) Flink converts it through `java.sql.Timestamp`
//! in the JVM's default zone; that is reproduced exactly only for a fixed-offset zone
//! given explicitly ([`TimestampZone::Fixed`]) and for values in years 1583..=9999 (the
//! legacy `java.util` calendar switches to the Julian calendar before the 1582 cutover).
//! A region zone is refused at construction; a value outside those years is a typed error.

mod host_file;
mod read;
mod schema;
pub mod timestamp;
mod write;

pub use host_file::{HostChunkReader, HostFile, LocalFile, MemoryFile};
pub use read::{FlinkParquetReader, ParquetReadOptions, row_groups_in_range};
pub use schema::{flink_message_type, min_bytes_for_decimal_precision};
pub use timestamp::{Int96, TimestampUnit, TimestampZone};
pub use write::{FlinkParquetWriter, ParquetCompression, ParquetWriteOptions};

/// The name of the format in errors.
pub(crate) const FORMAT: &str = "Parquet";
