//! The `format_encode` suite: sink-side format encoding through the production encoders,
//! one message per row, as a Flink sink's serialization schema writes them.
//!
//! Cases `<format>/rows=<16|1024|16384>/width=<8|264>/nulls=<bool>`, formats `json`, `csv`
//! and `raw`, over bench-support's mixed fixture batch (`id BIGINT, v INT, amount
//! DECIMAL(18, 2), ts TIMESTAMP(9), name STRING, payload BYTES`; raw encodes `name` alone),
//! with NULLs staggered over the value columns when `nulls=true`. Peer cases
//! `peer/<arrow-json|arrow-csv>/...` write the same batch with arrow-json's
//! `LineDelimitedWriter` and arrow-csv's `Writer` into one buffer.
//!
//! The oracles, before timing, are independent of the encoders:
//! - JSON: each message equals the text of a small model of Flink's JSON rules for these
//!   types (`RowDataToJsonConverters` through Jackson: numbers as written by `Long.toString`,
//!   DECIMAL as `BigDecimal.stripTrailingZeros().toString()`, the SQL timestamp format with its fraction trimmed, Base64,
//!   Jackson's string escapes), built here from the fixture's values with chrono;
//! - CSV: each message parsed by the `csv` crate has the fixture's values as text (NULL an
//!   empty field);
//! - raw: each message is the string's UTF-8 bytes, NULL a NULL message.

use std::cell::RefCell;
use std::sync::Arc;

use arrow::array::{Array, ArrayData, ArrayRef, AsArray, BinaryArray, RecordBatch, StringArray};
use arrow::datatypes::{Decimal128Type, Int32Type, Int64Type, Schema, TimestampNanosecondType};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{self, NullPattern};
use bench_support::{Suite, Verdict, expect_eq};
use chrono::DateTime;
use streamfusion_calc::calc::FloatText;
use streamfusion_core::types::{LogicalType, RowField, row_arrow_fields};
use streamfusion_formats::Encoder;
use streamfusion_formats::csv::{CsvEncoder, CsvOptions};
use streamfusion_formats::json::{JsonEncoder, JsonOptions};
use streamfusion_formats::raw::{RawEncoder, RawOptions};

bench_support::counting_allocator!();

const WIDTHS: [usize; 2] = [8, 264];

fn main() {
    let mut suite = Suite::new("format_encode");
    for rows in fixtures::ROW_COUNTS {
        for width in WIDTHS {
            for nulls in [false, true] {
                let tail = format!("rows={rows}/width={width}/nulls={nulls}");
                suite.stateless(
                    &format!("json/{tail}"),
                    || Input::new(rows, width, nulls, Format::Json),
                    Input::encode,
                    check_json,
                );
                suite.stateless(
                    &format!("csv/{tail}"),
                    || Input::new(rows, width, nulls, Format::Csv),
                    Input::encode,
                    check_csv,
                );
                suite.stateless(
                    &format!("raw/{tail}"),
                    || Input::new(rows, width, nulls, Format::Raw),
                    Input::encode,
                    check_raw,
                );
                suite.stateless(
                    &format!("peer/arrow-json/{tail}"),
                    || Input::new(rows, width, nulls, Format::Json),
                    |input| Peer(peer_json(&input.batch)),
                    |input, out| {
                        expect_eq(
                            "peer lines",
                            &out.0.iter().filter(|&&b| b == b'\n').count(),
                            &input.batch.num_rows(),
                        )
                    },
                );
                suite.stateless(
                    &format!("peer/arrow-csv/{tail}"),
                    || Input::new(rows, width, nulls, Format::Csv),
                    |input| Peer(peer_csv(&input.batch)),
                    |input, out| {
                        expect_eq(
                            "peer lines",
                            &out.0.iter().filter(|&&b| b == b'\n').count(),
                            &input.batch.num_rows(),
                        )
                    },
                );
            }
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy)]
enum Format {
    Json,
    Csv,
    Raw,
}

/// The fixture batch in the table's Arrow types, and the production encoder for it.
struct Input {
    batch: RecordBatch,
    encoder: RefCell<Box<dyn Encoder>>,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("rows", &self.batch.num_rows())
            .finish()
    }
}

impl ArrowBuffers for Input {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.batch.collect_arrays(out);
    }
}

/// A peer's output: one buffer, no Arrow arrays.
struct Peer(Vec<u8>);

impl ArrowBuffers for Peer {
    fn collect_arrays(&self, _out: &mut Vec<ArrayData>) {}
}

fn table_fields() -> Vec<RowField> {
    vec![
        RowField::new("id", LogicalType::BigInt),
        RowField::new("v", LogicalType::Int),
        RowField::new(
            "amount",
            LogicalType::Decimal {
                precision: 18,
                scale: 2,
            },
        ),
        RowField::new("ts", LogicalType::Timestamp(9)),
        RowField::new("name", LogicalType::VarChar(i32::MAX as u32)),
        RowField::new("payload", LogicalType::VarBinary(i32::MAX as u32)),
    ]
}

impl Input {
    fn new(rows: usize, width: usize, nulls: bool, format: Format) -> Self {
        let pattern = if nulls {
            NullPattern::RowColumn {
                column: 0,
                modulus: 7,
            }
        } else {
            NullPattern::None
        };
        let fixture = fixtures::batch(rows, width, pattern);
        let fields = match format {
            Format::Raw => vec![table_fields().swap_remove(4)],
            Format::Json | Format::Csv => table_fields(),
        };
        let columns: Vec<ArrayRef> = match format {
            Format::Raw => vec![fixture.column(4).clone()],
            Format::Json | Format::Csv => fixture.columns().to_vec(),
        };
        let schema = Arc::new(Schema::new(row_arrow_fields(&fields)));
        let batch = RecordBatch::try_new(schema, columns).expect("fixture in the table's types");
        let encoder: Box<dyn Encoder> = match format {
            Format::Json => Box::new(
                JsonEncoder::try_new(&fields, &JsonOptions::default(), FloatText::Shortest)
                    .expect("JSON encoder"),
            ),
            Format::Csv => Box::new(
                CsvEncoder::try_new(&fields, &CsvOptions::default(), FloatText::Shortest)
                    .expect("CSV encoder"),
            ),
            Format::Raw => Box::new(
                RawEncoder::try_new(&fields[0], &RawOptions::default()).expect("raw encoder"),
            ),
        };
        Self {
            batch,
            encoder: RefCell::new(encoder),
        }
    }

    fn encode(&self) -> ArrayRef {
        Arc::new(
            self.encoder
                .borrow_mut()
                .encode(&self.batch)
                .expect("encode"),
        )
    }
}

fn messages(out: &ArrayRef) -> Result<&BinaryArray, String> {
    out.as_binary_opt::<i32>()
        .ok_or_else(|| format!("output is {}, not Binary", out.data_type()))
}

/// The fixture's values of row `row` as the text a Flink format writes for them, `None` for
/// NULL: `[id, v, amount, ts, name, payload]` with `payload` in Base64.
fn row_text(batch: &RecordBatch, row: usize) -> [Option<String>; 6] {
    let id = batch.column(0).as_primitive::<Int64Type>();
    let v = batch.column(1).as_primitive::<Int32Type>();
    let amount = batch.column(2).as_primitive::<Decimal128Type>();
    let ts = batch.column(3).as_primitive::<TimestampNanosecondType>();
    let name = batch.column(4).as_string::<i32>();
    let payload = batch.column(5).as_binary::<i32>();
    let valid = |a: &dyn Array| a.is_valid(row);
    [
        valid(id).then(|| id.value(row).to_string()),
        valid(v).then(|| v.value(row).to_string()),
        valid(amount).then(|| decimal_text(amount.value(row), 2)),
        valid(ts).then(|| timestamp_text(ts.value(row))),
        valid(name).then(|| name.value(row).to_string()),
        valid(payload).then(|| base64(payload.value(row))),
    ]
}

/// `BigDecimal.toPlainString()` of `unscaled × 10^-scale`: the digits with `scale` decimals
/// (how Flink's CSV writes a DECIMAL by default).
fn decimal_text(unscaled: i128, scale: u32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    let sign = if unscaled < 0 { "-" } else { "" };
    format!("{sign}{int}.{frac}")
}

/// A DECIMAL as Flink's JSON writes it: Jackson's node factory keeps
/// `BigDecimal.stripTrailingZeros()` (zero as `0`), printed by `BigDecimal.toString()`:
/// plain while the scale is not negative and the adjusted exponent is at least -6, else
/// one digit, the rest after a point, and `E` with the signed adjusted exponent.
fn json_decimal_text(unscaled: i128, scale: i32) -> String {
    if unscaled == 0 {
        return "0".into();
    }
    let (mut unscaled, mut scale) = (unscaled, scale);
    while unscaled % 10 == 0 {
        unscaled /= 10;
        scale -= 1;
    }
    let sign = if unscaled < 0 { "-" } else { "" };
    let digits = unscaled.unsigned_abs().to_string();
    let adjusted = digits.len() as i32 - 1 - scale;
    if scale >= 0 && adjusted >= -6 {
        if scale == 0 {
            return format!("{sign}{digits}");
        }
        return format!("{sign}{}", decimal_text(unscaled.abs(), scale as u32));
    }
    let (first, rest) = digits.split_at(1);
    let point = if rest.is_empty() { "" } else { "." };
    let exp_sign = if adjusted >= 0 { "+" } else { "" };
    format!("{sign}{first}{point}{rest}E{exp_sign}{adjusted}")
}

/// Flink's `SQL_TIMESTAMP_FORMAT`: `yyyy-MM-dd HH:mm:ss` and the nanoseconds with trailing
/// zeros dropped (no point when they are all zero).
fn timestamp_text(nanos: i64) -> String {
    let t = DateTime::from_timestamp_nanos(nanos).naive_utc();
    let mut text = t.format("%Y-%m-%d %H:%M:%S").to_string();
    let fraction = format!("{:09}", nanos.rem_euclid(1_000_000_000));
    let fraction = fraction.trim_end_matches('0');
    if !fraction.is_empty() {
        text.push('.');
        text.push_str(fraction);
    }
    text
}

/// RFC 4648 Base64 with padding (Jackson's default variant, and `java.util.Base64`).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A JSON string literal as Jackson's UTF-8 generator (`writeValueAsBytes`) writes it: `"`
/// and `\` escaped, the control characters below U+0020 as `\b \t \n \f \r` or `\u00XX`,
/// a character beyond the BMP as its two UTF-16 surrogates `\uXXXX\uXXXX`, everything else
/// (the rest of non-ASCII included) as is.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if (c as u32) > 0xFFFF => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn check_json(input: &Input, out: &ArrayRef) -> Verdict {
    let out = messages(out)?;
    expect_eq("messages", &out.len(), &input.batch.num_rows())?;
    let names = ["id", "v", "amount", "ts", "name", "payload"];
    for row in 0..out.len() {
        let values = row_text(&input.batch, row);
        let mut want = String::from("{");
        for (i, (name, value)) in names.iter().zip(values).enumerate() {
            if i > 0 {
                want.push(',');
            }
            want.push_str(&json_string(name));
            want.push(':');
            match (i, value) {
                (_, None) => want.push_str("null"),
                (2, Some(_)) => {
                    let amount = input.batch.column(2).as_primitive::<Decimal128Type>();
                    want.push_str(&json_decimal_text(amount.value(row), 2));
                }
                (0..=1, Some(number)) => want.push_str(&number),
                (_, Some(text)) => want.push_str(&json_string(&text)),
            }
        }
        want.push('}');
        if out.is_null(row) || out.value(row) != want.as_bytes() {
            return Err(format!(
                "row {row}: {:?}, want {want}",
                out.is_valid(row)
                    .then(|| String::from_utf8_lossy(out.value(row)).into_owned())
            ));
        }
    }
    Ok(())
}

fn check_csv(input: &Input, out: &ArrayRef) -> Verdict {
    let out = messages(out)?;
    expect_eq("messages", &out.len(), &input.batch.num_rows())?;
    for row in 0..out.len() {
        if out.is_null(row) {
            return Err(format!("row {row}: NULL message"));
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(out.value(row));
        let record = reader
            .byte_records()
            .next()
            .ok_or_else(|| format!("row {row}: no record"))?
            .map_err(|e| format!("row {row}: {e}"))?;
        let want = row_text(&input.batch, row);
        expect_eq(&format!("row {row} fields"), &record.len(), &want.len())?;
        for (i, value) in want.iter().enumerate() {
            let want = value.as_deref().unwrap_or("").as_bytes();
            if &record[i] != want {
                return Err(format!(
                    "row {row} field {i}: {:?}, want {:?}",
                    String::from_utf8_lossy(&record[i]),
                    String::from_utf8_lossy(want)
                ));
            }
        }
    }
    Ok(())
}

fn check_raw(input: &Input, out: &ArrayRef) -> Verdict {
    let out = messages(out)?;
    let names: &StringArray = input.batch.column(0).as_string::<i32>();
    expect_eq("messages", &out.len(), &names.len())?;
    for row in 0..out.len() {
        let got = out.is_valid(row).then(|| out.value(row));
        let want = names.is_valid(row).then(|| names.value(row).as_bytes());
        if got != want {
            return Err(format!("row {row}: {got:?}, want {want:?}"));
        }
    }
    Ok(())
}

fn peer_json(batch: &RecordBatch) -> Vec<u8> {
    let mut writer = arrow::json::LineDelimitedWriter::new(Vec::new());
    writer.write(batch).expect("arrow-json write");
    writer.finish().expect("arrow-json finish");
    writer.into_inner()
}

fn peer_csv(batch: &RecordBatch) -> Vec<u8> {
    let mut writer = arrow::csv::WriterBuilder::new()
        .with_header(false)
        .build(Vec::new());
    writer.write(batch).expect("arrow-csv write");
    writer.into_inner()
}
