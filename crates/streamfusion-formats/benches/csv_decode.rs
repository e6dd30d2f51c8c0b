//! The `csv_decode` suite: `'format' = 'csv'` messages decoded by the production
//! [`CsvDecoder`], and by plain arrow-csv on the same rows for comparison.
//!
//! Cases `decode/<native|arrow-csv>/width=<8|264>/rows=<16|1024|16384>/nulls=<bool>`: every
//! message is one CSV record of 8 fields (`id` BIGINT, `i` INT, `si` SMALLINT, `d` DOUBLE,
//! `flag` BOOLEAN and three quoted STRINGs of `width` bytes, some with a separator or a
//! doubled quote inside); with `nulls=true` each field is NULL in one row of 7 (staggered per
//! field), written as an empty field and read with `null-literal = ''` (arrow-csv reads an
//! empty field as NULL by default). The native decoder takes the messages as a `BinaryArray`;
//! arrow-csv's `ReaderBuilder::build_decoder()` takes the same records joined by newlines.
//! Cases `decode/native-ignore-errors/width=264/rows=<..>`: `ignore-parse-errors = true`,
//! one message in 64 with an INT field that does not parse (NULL) and one in 64 with an
//! unterminated quote (no row). Both decoders are built inside the timed call.
//!
//! The oracle: every decoded value equals the fixture's generated value (the generator's own
//! numbers and strings, not a re-parse of the text), and the skipped messages are exactly the
//! generator's broken ones.

#[path = "support/message_rows.rs"]
mod message_rows;

use std::sync::Arc;

use arrow::array::{Array, ArrayData, BinaryArray, RecordBatch};
use arrow::datatypes::Schema;
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures;
use bench_support::{Suite, Verdict};
use message_rows::{Values, ascii, check_columns, table_fields, values};
use streamfusion_core::types::{RowField, row_arrow_fields};
use streamfusion_formats::csv::{CsvDecoder, CsvOptions};
use streamfusion_formats::{Decoded, Decoder};

bench_support::counting_allocator!();

const WIDTHS: [usize; 2] = [8, 264];
/// In the ignore-errors cases, one message in this many has a bad INT, one an open quote.
const BROKEN_PERIOD: u64 = 64;

/// One message's values and how it is broken.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    values: Values,
    /// The INT field is written as text that does not parse (ignore-errors cases).
    bad_int: bool,
    /// The message gives no row (ignore-errors cases).
    skipped: bool,
}

struct Input {
    fields: Vec<RowField>,
    options: CsvOptions,
    messages: BinaryArray,
    joined: Vec<u8>,
    rows: Vec<Row>,
}

impl ArrowBuffers for Input {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        out.push(self.messages.to_data());
    }
}

/// `width` bytes of text; some rows carry a separator and a quote (doubled when written).
fn text(row: u64, lane: u64, width: usize) -> String {
    let mut s = ascii(row, lane, width);
    if width >= 4 && row.is_multiple_of(3) {
        s.replace_range(1..2, ",");
        s.replace_range(2..3, "\"");
    }
    s
}

fn row(r: u64, width: usize, nulls: bool, broken: bool) -> Row {
    let bad_int = broken && r % BROKEN_PERIOD == 5;
    let mut values = values(r, width, nulls, text);
    if bad_int {
        values.i = None;
    }
    Row {
        values,
        bad_int,
        skipped: broken && r % BROKEN_PERIOD == 9,
    }
}

fn message(row: &Row) -> String {
    fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
        v.as_ref().map_or(String::new(), |v| v.to_string())
    }
    let s = |v: &Option<String>| {
        v.as_ref()
            .map_or(String::new(), |v| format!("\"{}\"", v.replace('"', "\"\"")))
    };
    let v = &row.values;
    let i = if row.bad_int {
        "x1".to_string()
    } else {
        opt(&v.i)
    };
    let s3 = if row.skipped {
        "\"open".to_string()
    } else {
        s(&v.s[2])
    };
    format!(
        "{},{},{},{},{},{},{},{}",
        opt(&v.id),
        i,
        opt(&v.si),
        v.d.map_or(String::new(), |d| format!("{d:?}")),
        opt(&v.flag),
        s(&v.s[0]),
        s(&v.s[1]),
        s3,
    )
}

fn input(rows: usize, width: usize, nulls: bool, broken: bool) -> Input {
    let rows: Vec<Row> = (0..rows as u64)
        .map(|r| row(r, width, nulls, broken))
        .collect();
    let texts: Vec<String> = rows.iter().map(message).collect();
    let messages = BinaryArray::from_iter_values(texts.iter().map(String::as_bytes));
    let mut joined = texts.join("\n").into_bytes();
    joined.push(b'\n');
    let options = CsvOptions {
        null_literal: nulls.then(String::new),
        ignore_parse_errors: broken,
        ..CsvOptions::default()
    };
    Input {
        fields: table_fields(),
        options,
        messages,
        joined,
        rows,
    }
}

fn native(input: &Input) -> Decoded {
    let mut decoder = CsvDecoder::try_new(&input.fields, &input.options).expect("decoder");
    decoder.decode(&input.messages).expect("decode")
}

fn arrow_csv(input: &Input) -> RecordBatch {
    let schema = Arc::new(Schema::new(row_arrow_fields(&input.fields)));
    let mut decoder = arrow::csv::ReaderBuilder::new(schema)
        .with_batch_size(input.rows.len().max(1))
        .build_decoder();
    let mut rest: &[u8] = &input.joined;
    while !rest.is_empty() {
        let used = decoder.decode(rest).expect("arrow-csv decode");
        if used == 0 {
            break;
        }
        rest = &rest[used..];
    }
    decoder.flush().expect("arrow-csv flush").expect("rows")
}

/// The batch's values against the fixture's (rows of skipped messages left out).
fn check(input: &Input, batch: &RecordBatch) -> Verdict {
    let rows: Vec<&Values> = input
        .rows
        .iter()
        .filter(|r| !r.skipped)
        .map(|r| &r.values)
        .collect();
    check_columns(&input.fields, &rows, batch)
}

fn check_native(input: &Input, out: &Decoded) -> Verdict {
    let want: Vec<u32> = input
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.skipped)
        .map(|(i, _)| i as u32)
        .collect();
    if out.skipped != want {
        return Err(format!("skipped {:?}, expected {want:?}", out.skipped));
    }
    check(input, &out.batch)
}

fn main() {
    let mut suite = Suite::new("csv_decode");
    for width in WIDTHS {
        for rows in fixtures::ROW_COUNTS {
            for nulls in [false, true] {
                suite.stateless(
                    &format!("decode/native/width={width}/rows={rows}/nulls={nulls}"),
                    || input(rows, width, nulls, false),
                    native,
                    check_native,
                );
                suite.stateless(
                    &format!("decode/arrow-csv/width={width}/rows={rows}/nulls={nulls}"),
                    || input(rows, width, nulls, false),
                    arrow_csv,
                    check,
                );
            }
        }
    }
    for rows in fixtures::ROW_COUNTS {
        suite.stateless(
            &format!("decode/native-ignore-errors/width=264/rows={rows}"),
            || input(rows, 264, true, true),
            native,
            check_native,
        );
    }
    suite.finish();
}
