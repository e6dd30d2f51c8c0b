//! Generated and mutated CSV messages never panic the decoder: in strict mode they decode or
//! fail with `FormatError::Malformed` naming a message of the batch; under
//! `ignore-parse-errors` every message gives a row or is listed in `Decoded::skipped`, and a
//! message that decodes strictly gives the same row. Strings written by the encoder read
//! back unchanged.

use std::sync::Arc;

use arrow::array::{Array, AsArray, BinaryArray, RecordBatch, StringArray};
use arrow::datatypes::Schema;
use proptest::prelude::*;
use streamfusion_calc::calc::FloatText;
use streamfusion_core::types::{LogicalType, RowField, row_arrow_fields};
use streamfusion_formats::csv::{CsvDecoder, CsvEncoder, CsvOptions};
use streamfusion_formats::{Decoder, Encoder, FormatError};

const WIDE: &str = "ROW<c0 BOOLEAN, c1 TINYINT, c2 SMALLINT, c3 INT, c4 BIGINT, c5 FLOAT, \
    c6 DOUBLE, c7 DECIMAL(10, 2), c8 STRING, c9 BYTES, c10 DATE, c11 TIME(3), \
    c12 TIMESTAMP(3), c13 TIMESTAMP_LTZ(6), c14 ARRAY<INT>, c15 ROW<x INT, y STRING>>";

const SEED: &str = "true,1,2,3,4,1.5,2.5,12.34,\"he,llo\",aGVsbG8=,2020-01-02,12:34:56.789,\
    2020-01-02 03:04:05.123,2020-01-02 03:04:05.123456Z,1;2;3,7;x";

fn fields(schema: &str) -> Vec<RowField> {
    match schema.parse::<LogicalType>().unwrap() {
        LogicalType::Row(fields) => fields,
        other => panic!("{other}"),
    }
}

fn option_sets() -> Vec<CsvOptions> {
    let base = CsvOptions::default();
    vec![
        base.clone(),
        CsvOptions {
            allow_comments: true,
            escape_character: Some('\\'),
            null_literal: Some("n/a".into()),
            ..base.clone()
        },
        CsvOptions {
            disable_quote_character: true,
            field_delimiter: '|',
            ..base.clone()
        },
        CsvOptions {
            quote_character: '\'',
            array_element_delimiter: ",".into(),
            field_delimiter: '\t',
            ..base
        },
    ]
}

/// Bytes that matter to the reader and the converters, and some that do not.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b",".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"'".to_vec()),
        Just(b"\\".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"#".to_vec()),
        Just(b";".to_vec()),
        Just(b"|".to_vec()),
        Just(b"\t".to_vec()),
        Just(b" ".to_vec()),
        Just(b"n/a".to_vec()),
        Just(b"1".to_vec()),
        Just(b"-9".to_vec()),
        Just(b"1e400".to_vec()),
        Just(b"0x1p3".to_vec()),
        Just(b"2020-01-02".to_vec()),
        Just(b"12:00:00".to_vec()),
        Just(b"9999-12-31 23:59:59.999999999".to_vec()),
        Just("é€".as_bytes().to_vec()),
        Just(vec![0xff]),
        Just(vec![0xc3]),
        Just(b"AA==".to_vec()),
        Just(b"true".to_vec()),
        "[a-z0-9.]{0,6}".prop_map(String::into_bytes),
    ]
}

fn generated() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop_oneof![
        1 => Just(None),
        6 => prop::collection::vec(piece(), 0..24).prop_map(|p| Some(p.concat())),
        6 => (prop::collection::vec((0usize..200, piece()), 0..4), any::<bool>()).prop_map(|(edits, cut)| {
            let mut m = SEED.as_bytes().to_vec();
            for (at, p) in edits {
                let at = at % (m.len() + 1);
                if cut && at < m.len() {
                    m.remove(at);
                }
                m.splice(at..at, p);
            }
            Some(m)
        }),
    ]
}

fn check(schema: &str, messages: &[Option<Vec<u8>>]) {
    let fields = fields(schema);
    let array = BinaryArray::from(messages.iter().map(|m| m.as_deref()).collect::<Vec<_>>());
    for options in option_sets() {
        let mut strict = CsvDecoder::try_new(&fields, &options).unwrap();
        match strict.decode(&array) {
            Ok(d) => {
                let nulls: Vec<u32> = (0..messages.len() as u32)
                    .filter(|&i| messages[i as usize].is_none())
                    .collect();
                assert_eq!(d.skipped, nulls);
                assert_eq!(d.batch.num_rows() + d.skipped.len(), messages.len());
            }
            Err(FormatError::Malformed {
                format: "CSV",
                index,
                ..
            }) => {
                assert!(index < messages.len() && messages[index].is_some());
            }
            Err(other) => panic!("unexpected error {other:?}"),
        }
        let lenient_options = CsvOptions {
            ignore_parse_errors: true,
            ..options.clone()
        };
        let mut lenient = CsvDecoder::try_new(&fields, &lenient_options).unwrap();
        match lenient.decode(&array) {
            Ok(d) => {
                assert_eq!(d.batch.num_rows() + d.skipped.len(), messages.len());
                assert!(d.skipped.windows(2).all(|w| w[0] < w[1]));
                // A message that decodes strictly on its own gives the same row.
                let mut row = 0;
                for (i, m) in messages.iter().enumerate() {
                    if d.skipped.contains(&(i as u32)) {
                        continue;
                    }
                    let one = BinaryArray::from(vec![m.as_deref()]);
                    if let Ok(alone) = strict.decode(&one)
                        && alone.batch.num_rows() == 1
                    {
                        let b = d.batch.slice(row, 1);
                        assert_eq!(alone.batch.columns(), b.columns(), "message {i}");
                    }
                    row += 1;
                }
            }
            // Only values Arrow cannot carry fail under ignore-parse-errors.
            Err(FormatError::Malformed { index, problem, .. }) => {
                assert!(index < messages.len(), "{problem}");
                assert!(
                    problem.contains("nanosecond range") || problem.contains("hexadecimal"),
                    "{problem}"
                );
            }
            Err(other) => panic!("unexpected error {other:?}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_c5f0), ..ProptestConfig::default() })]

    #[test]
    fn messages_never_panic(messages in prop::collection::vec(generated(), 1..8)) {
        check(WIDE, &messages);
        check("ROW<a INT, b STRING, c DOUBLE>", &messages);
        check("ROW<s STRING>", &messages);
    }

    #[test]
    fn written_strings_read_back(values in prop::collection::vec(proptest::option::of("[ -~é€\n\r\t]{0,12}"), 1..8)) {
        let fields = fields("ROW<s STRING, t STRING>");
        for options in [
            CsvOptions::default(),
            CsvOptions { escape_character: Some('\\'), ..CsvOptions::default() },
            CsvOptions { quote_character: '\'', field_delimiter: ';', ..CsvOptions::default() },
        ] {
            let column: StringArray = values.iter().map(|v| v.as_deref()).collect();
            let batch = RecordBatch::try_new(
                Arc::new(Schema::new(row_arrow_fields(&fields))),
                vec![Arc::new(column.clone()), Arc::new(column.clone())],
            ).unwrap();
            let mut encoder = CsvEncoder::try_new(&fields, &options, FloatText::Shortest).unwrap();
            let messages = encoder.encode(&batch).unwrap();
            let mut decoder = CsvDecoder::try_new(&fields, &options).unwrap();
            let decoded = decoder.decode(&messages).unwrap();
            prop_assert_eq!(decoded.batch.num_rows(), values.len());
            let back = decoded.batch.column(1).as_string::<i32>();
            for (i, v) in values.iter().enumerate() {
                // NULL is written as an empty field, which reads back as the empty string.
                let expected = v.as_deref().unwrap_or("");
                prop_assert!(!back.is_null(i));
                prop_assert_eq!(back.value(i), expected);
            }
        }
    }
}
