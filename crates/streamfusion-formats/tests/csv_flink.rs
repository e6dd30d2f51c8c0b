//! `'format' = 'csv'` against released Flink 2.3.0: every case of
//! `golden/flink-2.3.0-csv.jsonl` (written by `java/src/org/streamfusion/golden/CsvFormatVectors.java`
//! with `CsvFormatFactory`'s own schemas): decoded rows and errors, encoded bytes, and the
//! options and schemas the factory refuses. Values use the representation of
//! `support/format_values.rs`.

#[path = "support/format_values.rs"]
mod format_values;

use std::sync::Arc;

use arrow::array::{Array, BinaryArray, RecordBatch};
use arrow::datatypes::Schema;
use format_values::{
    build, golden_lines, hex, normalize, option_map, repr, row_fields, unrepresentable,
};
use serde_json::Value;
use streamfusion_calc::calc::FloatText;
use streamfusion_core::types::{LogicalType, row_arrow_fields};
use streamfusion_formats::csv::{CsvDecoder, CsvEncoder, CsvOptions};
use streamfusion_formats::options::FormatOptions;
use streamfusion_formats::{Decoder, Encoder, FormatError};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-csv.jsonl"
);

fn options(o: &Value) -> Result<CsvOptions, FormatError> {
    CsvOptions::from_options(FormatOptions::new("csv", option_map(o))?)
}

/// Hex floats are read by Java but refused natively (a typed error).
fn hex_float(message: &str) -> bool {
    message.to_ascii_lowercase().contains("0x1p")
}

#[test]
fn decode_matches_flink() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in golden_lines(GOLDEN)
        .iter()
        .filter(|c| c["case"] == "decode")
    {
        let schema = case["schema"].as_str().unwrap();
        let fields = row_fields(schema);
        let opts = options(&case["options"]).unwrap();
        let mut decoder = CsvDecoder::try_new(&fields, &opts).unwrap();
        let message = case["message"].as_str();
        let messages = BinaryArray::from(vec![message.map(str::as_bytes)]);
        let got = decoder.decode(&messages);
        let ty = LogicalType::Row(fields.clone());
        let label = format!("{schema} {} {:?}", case["options"], message);
        let expected_row = &case["row"];
        let error = &case["error"];
        let outcome: Result<(), String> = (|| {
            if !error.is_null() {
                let flink = error["message"].as_str().unwrap();
                match &got {
                    Err(FormatError::Malformed {
                        problem, index: 0, ..
                    }) if problem.starts_with(flink) => Ok(()),
                    other => Err(format!("expected Flink's error {flink:?}, got {other:?}")),
                }
            } else if expected_row.is_null() {
                match &got {
                    Ok(d) if d.batch.num_rows() == 0 && d.skipped == [0] => Ok(()),
                    other => Err(format!("expected no row, got {other:?}")),
                }
            } else if unrepresentable(&ty, expected_row) || message.is_some_and(hex_float) {
                match &got {
                    Err(FormatError::Malformed { .. }) => Ok(()),
                    other => Err(format!("expected a typed refusal, got {other:?}")),
                }
            } else {
                let d = got
                    .as_ref()
                    .map_err(|e| format!("expected a row, got {e}"))?;
                if d.batch.num_rows() != 1 || !d.skipped.is_empty() {
                    return Err(format!("expected one row, got {d:?}"));
                }
                let row =
                    Arc::new(arrow::array::StructArray::from(d.batch.clone())) as Arc<dyn Array>;
                let actual = repr(&ty, row.as_ref(), 0);
                let expected = normalize(&ty, expected_row);
                if actual == expected {
                    Ok(())
                } else {
                    Err(format!("expected {expected}, got {actual}"))
                }
            }
        })();
        checked += 1;
        if let Err(e) = outcome {
            failures.push(format!("{label}: {e}"));
        }
    }
    assert!(checked >= 120, "only {checked} decode cases");
    assert!(
        failures.is_empty(),
        "{} of {checked} decode cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn decode_batches_agree_with_single_messages() {
    // The same messages decoded as one batch under ignore-parse-errors: rows in order, the
    // failed ones listed as skipped.
    let cases: Vec<Value> = golden_lines(GOLDEN)
        .into_iter()
        .filter(|c| {
            c["case"] == "decode"
                && c["schema"] == "ROW<a INT, b STRING, c DOUBLE>"
                && c["options"] == serde_json::json!({"ignore-parse-errors": "true"})
        })
        .collect();
    assert!(cases.len() > 40);
    let fields = row_fields("ROW<a INT, b STRING, c DOUBLE>");
    let opts = options(&cases[0]["options"]).unwrap();
    let mut decoder = CsvDecoder::try_new(&fields, &opts).unwrap();
    let messages = BinaryArray::from(
        cases
            .iter()
            .map(|c| c["message"].as_str().map(str::as_bytes))
            .collect::<Vec<_>>(),
    );
    let decoded = decoder.decode(&messages).unwrap();
    let expected_skipped: Vec<u32> = cases
        .iter()
        .enumerate()
        .filter(|(_, c)| c["row"].is_null())
        .map(|(i, _)| i as u32)
        .collect();
    assert_eq!(decoded.skipped, expected_skipped);
    let ty = LogicalType::Row(fields);
    let rows = Arc::new(arrow::array::StructArray::from(decoded.batch.clone())) as Arc<dyn Array>;
    let expected: Vec<&Value> = cases
        .iter()
        .map(|c| &c["row"])
        .filter(|r| !r.is_null())
        .collect();
    assert_eq!(rows.len(), expected.len());
    for (i, e) in expected.iter().enumerate() {
        assert_eq!(repr(&ty, rows.as_ref(), i), normalize(&ty, e), "row {i}");
    }
}

#[test]
fn encode_matches_flink() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in golden_lines(GOLDEN)
        .iter()
        .filter(|c| c["case"] == "encode")
    {
        let schema = case["schema"].as_str().unwrap();
        let fields = row_fields(schema);
        let opts = options(&case["options"]).unwrap();
        let mut encoder = CsvEncoder::try_new(&fields, &opts, FloatText::Shortest).unwrap();
        let ty = LogicalType::Row(fields.clone());
        let row = &case["row"];
        let columns = fields
            .iter()
            .enumerate()
            .map(|(k, f)| build(&f.ty, &[&row[k]]))
            .collect();
        let batch = RecordBatch::try_new(Arc::new(Schema::new(row_arrow_fields(&fields))), columns)
            .unwrap();
        let _ = ty;
        let got = encoder.encode(&batch).unwrap();
        let expected = case["bytes"].as_str().unwrap();
        let actual = hex(got.value(0));
        checked += 1;
        if actual != expected {
            failures.push(format!(
                "{schema} {} {row}: expected {:?}, got {:?}",
                case["options"],
                String::from_utf8_lossy(&format_values::unhex(expected)),
                String::from_utf8_lossy(got.value(0))
            ));
        }
    }
    assert!(checked >= 50, "only {checked} encode cases");
    assert!(
        failures.is_empty(),
        "{} of {checked} encode cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn options_and_schemas_are_refused_as_flink_refuses_them() {
    let mut checked = 0;
    for case in golden_lines(GOLDEN)
        .iter()
        .filter(|c| c["case"] == "construct")
    {
        let schema = case["schema"].as_str().unwrap();
        let flink_error = case["error"]["message"].as_str();
        let label = format!("{schema} {}", case["options"]);
        checked += 1;
        if schema.is_empty() {
            // Option validation. Flink's factory does not see unknown keys (FactoryUtil's
            // table-level check refuses them); FormatOptions refuses them here.
            let ours = options(&case["options"]);
            let unknown = case["options"]
                .as_object()
                .unwrap()
                .contains_key("unknown-option");
            match (flink_error, ours) {
                (None, Ok(_)) => {}
                (None, Err(e)) if unknown => {
                    assert!(e.to_string().contains("not an option"), "{label}: {e}")
                }
                (Some(flink), Err(e)) => {
                    let text = e.to_string();
                    let words: Vec<&str> = flink
                        .split(|c: char| !c.is_alphanumeric())
                        .filter(|w| w.len() > 3)
                        .take(3)
                        .collect();
                    assert!(
                        text.contains(flink)
                            || words.iter().all(|w| text.contains(w))
                            || flink.contains("Invalid value"),
                        "{label}: Flink said {flink:?}, we said {text:?}"
                    );
                }
                (flink, ours) => panic!("{label}: Flink {flink:?}, ours {ours:?}"),
            }
            continue;
        }
        let fields = row_fields(schema);
        let decode = case["options"]["direction"] == "decode";
        let ours = if decode {
            CsvDecoder::try_new(&fields, &CsvOptions::default()).map(|_| ())
        } else {
            CsvEncoder::try_new(&fields, &CsvOptions::default(), FloatText::Shortest).map(|_| ())
        };
        match (flink_error, ours) {
            (None, Ok(())) => {}
            (Some(flink), Err(FormatError::Unsupported { problem, .. })) => {
                let head = flink.split('\'').next().unwrap();
                assert!(
                    problem.starts_with(head),
                    "{label}: Flink said {flink:?}, we said {problem:?}"
                );
            }
            (flink, ours) => panic!("{label}: Flink {flink:?}, ours {ours:?}"),
        }
    }
    assert!(checked >= 30, "only {checked} construct cases");
}

#[test]
fn float_text_of_old_jdks_is_refused_for_float_columns_only() {
    let opts = CsvOptions::default();
    assert!(matches!(
        CsvEncoder::try_new(
            &row_fields("ROW<a INT, b ARRAY<DOUBLE>>"),
            &opts,
            FloatText::FloatingDecimal
        ),
        Err(FormatError::Unsupported { .. })
    ));
    assert!(
        CsvEncoder::try_new(
            &row_fields("ROW<a INT, b STRING>"),
            &opts,
            FloatText::FloatingDecimal
        )
        .is_ok()
    );
}

/// The golden file is what released Flink writes today (skipped without a JVM).
#[test]
fn golden_vectors_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_golden_regenerates(
        "golden_vectors_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.CsvFormatVectors",
        std::path::Path::new(GOLDEN),
    );
}
