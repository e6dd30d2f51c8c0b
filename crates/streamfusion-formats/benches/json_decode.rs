//! The `json_decode` suite: `'format' = 'json'` messages decoded by the production
//! [`JsonDecoder`], and by plain arrow-json on the same bytes for comparison.
//!
//! Cases `decode/<native|arrow-json>/width=<8|264>/rows=<16|1024|16384>/nulls=<bool>`: every
//! message is one JSON object of 8 fields (`id` BIGINT, `i` INT, `si` SMALLINT, `d` DOUBLE,
//! `flag` BOOLEAN and three STRINGs of `width` ASCII bytes); with `nulls=true` each field is
//! `null` in one row of 7 (staggered per field). The native decoder takes the messages as a
//! `BinaryArray`; arrow-json's `ReaderBuilder::build_decoder()` takes the same messages joined
//! by newlines and decodes them into the same schema. Cases
//! `decode/projection/width=264/rows=<..>`: a table of 3 of the 8 fields (the rest skipped).
//! Both decoders are built inside the timed call.
//!
//! The oracle: every decoded value equals the fixture's generated value (the generator's
//! own numbers and strings, not a re-parse of the text).

#[path = "support/message_rows.rs"]
mod message_rows;

use std::sync::Arc;

use arrow::array::{Array, ArrayData, BinaryArray, RecordBatch};
use arrow::datatypes::Schema;
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures;
use bench_support::{Suite, Verdict};
use message_rows::{Values, ascii, check_columns, projected_fields, table_fields, values};
use streamfusion_core::types::{RowField, row_arrow_fields};
use streamfusion_formats::json::{JsonDecoder, JsonOptions};
use streamfusion_formats::{Decoded, Decoder};

bench_support::counting_allocator!();

const WIDTHS: [usize; 2] = [8, 264];

struct Input {
    fields: Vec<RowField>,
    messages: BinaryArray,
    joined: Vec<u8>,
    rows: Vec<Values>,
}

impl ArrowBuffers for Input {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        out.push(self.messages.to_data());
    }
}

fn message(row: &Values) -> String {
    fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
        v.as_ref().map_or("null".into(), |v| v.to_string())
    }
    let s = |v: &Option<String>| {
        v.as_ref().map_or("null".into(), |v| {
            serde_json::to_string(v).unwrap_or_default()
        })
    };
    format!(
        r#"{{"id":{},"i":{},"si":{},"d":{},"flag":{},"s1":{},"s2":{},"s3":{}}}"#,
        opt(&row.id),
        opt(&row.i),
        opt(&row.si),
        row.d.map_or("null".into(), |d| format!("{d:?}")),
        opt(&row.flag),
        s(&row.s[0]),
        s(&row.s[1]),
        s(&row.s[2]),
    )
}

fn input(fields: Vec<RowField>, rows: usize, width: usize, nulls: bool) -> Input {
    let rows: Vec<Values> = (0..rows as u64)
        .map(|r| values(r, width, nulls, ascii))
        .collect();
    let texts: Vec<String> = rows.iter().map(message).collect();
    let messages = BinaryArray::from_iter_values(texts.iter().map(String::as_bytes));
    let joined = texts.join("\n").into_bytes();
    Input {
        fields,
        messages,
        joined,
        rows,
    }
}

fn native(input: &Input) -> Decoded {
    let mut decoder =
        JsonDecoder::try_new(&input.fields, &JsonOptions::default()).expect("decoder");
    decoder.decode(&input.messages).expect("decode")
}

fn arrow_json(input: &Input) -> RecordBatch {
    let schema = Arc::new(Schema::new(row_arrow_fields(&input.fields)));
    let mut decoder = arrow::json::ReaderBuilder::new(schema)
        .with_batch_size(input.rows.len().max(1))
        .build_decoder()
        .expect("arrow-json decoder");
    decoder.decode(&input.joined).expect("arrow-json decode");
    decoder.flush().expect("arrow-json flush").expect("rows")
}

/// The batch's values against the fixture's.
fn check(input: &Input, batch: &RecordBatch) -> Verdict {
    let rows: Vec<&Values> = input.rows.iter().collect();
    check_columns(&input.fields, &rows, batch)
}

fn main() {
    let mut suite = Suite::new("json_decode");
    for width in WIDTHS {
        for rows in fixtures::ROW_COUNTS {
            for nulls in [false, true] {
                suite.stateless(
                    &format!("decode/native/width={width}/rows={rows}/nulls={nulls}"),
                    || input(table_fields(), rows, width, nulls),
                    native,
                    |input, out| {
                        if !out.skipped.is_empty() {
                            return Err(format!("skipped {:?}", out.skipped));
                        }
                        check(input, &out.batch)
                    },
                );
                suite.stateless(
                    &format!("decode/arrow-json/width={width}/rows={rows}/nulls={nulls}"),
                    || input(table_fields(), rows, width, nulls),
                    arrow_json,
                    check,
                );
            }
        }
    }
    for rows in fixtures::ROW_COUNTS {
        suite.stateless(
            &format!("decode/projection/width=264/rows={rows}"),
            || input(projected_fields(), rows, 264, false),
            native,
            |input, out| check(input, &out.batch),
        );
    }
    suite.finish();
}
