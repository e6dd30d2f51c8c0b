//! `'format' = 'csv'`: Flink 2.3.0's `flink-csv` (`CsvRowDataDeserializationSchema` with
//! `CsvToRowDataConverters`, `CsvRowDataSerializationSchema` with `RowDataToCsvConverters`,
//! options of `CsvFormatFactory`).
//!
//! # Decoding
//!
//! Each message is one record, read as Jackson's CSV parser reads it with Flink's schema
//! (see [`reader`] for quoting, escapes, comments and line breaks); only the first record of
//! a message counts. Fields are positional:
//!
//! - fewer fields than columns: Flink's `Row length mismatch. N fields expected but was M.`
//!   (under `ignore-parse-errors` the missing fields are NULL); more: Jackson's `Too many
//!   entries` (one extra empty field, a trailing separator, is allowed);
//! - a field equal to the null literal is NULL (ARRAY and ROW columns compare each element
//!   instead); an empty field is the empty string, which fails for the number, date and time
//!   types (there is no implicit NULL);
//! - numbers are trimmed and read as `Byte/Short/Integer/Long.parseX` (Unicode digits too),
//!   `Float.parseFloat`, `Double.parseDouble`; BOOLEAN is `"true"` ignoring case, anything
//!   else false; DECIMAL is `new BigDecimal(text)` untrimmed, rounded HALF_UP, NULL when it
//!   overflows; DATE is `java.sql.Date.valueOf`; TIME is `LocalTime.parse` (truncated to the
//!   precision); TIMESTAMP is Flink's `yyyy-MM-dd HH:mm:ss[.fffffffff]` (trimmed), with a
//!   trailing `Z` for TIMESTAMP_LTZ; BINARY is Base64 (Jackson's, padding required);
//! - ARRAY and ROW fields are split by the array element delimiter; a blank value is an
//!   empty ARRAY and a NULL ROW; a ROW with fewer elements than fields fails.
//!
//! A field that does not convert fails the message with Flink's `Failed to deserialize CSV
//! row '<text>'.` (the cause names the field); under `ignore-parse-errors` the field is NULL.
//! A message that does not parse, under `ignore-parse-errors`, gives no row. A NULL message
//! gives no row.
//!
//! Not carried over (typed errors, never a different value): a TIMESTAMP(7..9) outside Arrow's
//! nanosecond range, hexadecimal floating-point text, non-ASCII separators/quotes/escapes.
//!
//! # Encoding
//!
//! One message per row, no line separator; see [`encode`] for when a value is quoted.

mod decode;
pub(crate) mod encode;
mod options;
pub(crate) mod reader;
mod schema;
mod text;

pub use decode::CsvDecoder;
pub use encode::CsvEncoder;
pub use options::CsvOptions;
