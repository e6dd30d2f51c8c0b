//! `'format' = 'json'` against released Flink 2.3.0: every case of
//! `tests/golden/flink-2.3.0-json.jsonl`, written by
//! `java/src/org/streamfusion/golden/JsonFormatVectors.java` from Flink's own
//! `JsonParserRowDataDeserializationSchema` and `JsonRowDataSerializationSchema`.
//!
//! Values compare in the generator's canonical form (documented there and in [`canon`]):
//! NULL `null`; BOOLEAN a boolean; TINYINT..BIGINT, DATE (epoch days), TIME (ms of the day)
//! and the INTERVALs numbers; FLOAT/DOUBLE `"f32:<bits hex>"`/`"f64:<bits hex>"`; DECIMAL the
//! unscaled value as a string; strings as strings; binaries as lowercase hex; TIMESTAMP and
//! TIMESTAMP_LTZ `"millis:nanoOfMilli"` (compared in the column's Arrow unit, which keeps
//! what the precision keeps); ROW/ARRAY arrays; MAP an array of `[key, value]` sorted by key.
//!
//! Decoding: Flink's rows (a `null` row is no row) must be ours, in order; a message Flink
//! refuses must be refused, and when Flink names the field (`Fail to deserialize at field:
//! x.`) our error's field path must start with it. Encoding: each row's bytes must be Flink's,
//! and a row Flink refuses must be refused with Flink's message.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use arrow::array::*;
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::*;
use serde_json::Value;
use streamfusion_calc::calc::FloatText;
use streamfusion_core::types::{LogicalType, RowField, row_arrow_fields};
use streamfusion_formats::json::{JsonDecoder, JsonEncoder, JsonOptions};
use streamfusion_formats::options::FormatOptions;
use streamfusion_formats::{Decoder, Encoder, FormatError};

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/flink-2.3.0-json.jsonl")
}

fn golden() -> Vec<Value> {
    let text = std::fs::read_to_string(golden_path()).expect("golden json vectors");
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().expect("header")).unwrap();
    assert_eq!(header["flink"], "2.3.0");
    lines.map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn fields_of(schema: &str) -> Vec<RowField> {
    match LogicalType::from_str(schema).unwrap() {
        LogicalType::Row(fields) => fields,
        other => panic!("not a row: {other}"),
    }
}

fn options_of(v: &Value) -> JsonOptions {
    let pairs: Vec<(String, String)> = v
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    JsonOptions::from_options(FormatOptions::new("json", pairs).unwrap()).unwrap()
}

fn hex_decode(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Our value at `row` of `array` (of type `ty`) in the canonical form, timestamps as the
/// column's Arrow value (see [`expected_canon`]).
fn canon(array: &dyn Array, row: usize, ty: &LogicalType) -> Value {
    if array.is_null(row) {
        return Value::Null;
    }
    match ty {
        LogicalType::Boolean => Value::Bool(array.as_boolean().value(row)),
        LogicalType::TinyInt => array.as_primitive::<Int8Type>().value(row).into(),
        LogicalType::SmallInt => array.as_primitive::<Int16Type>().value(row).into(),
        LogicalType::Int => array.as_primitive::<Int32Type>().value(row).into(),
        LogicalType::IntervalYearMonth => array
            .as_primitive::<IntervalYearMonthType>()
            .value(row)
            .into(),
        LogicalType::Date => array.as_primitive::<Date32Type>().value(row).into(),
        LogicalType::Time(_) => array
            .as_primitive::<Time32MillisecondType>()
            .value(row)
            .into(),
        LogicalType::BigInt => array.as_primitive::<Int64Type>().value(row).into(),
        LogicalType::IntervalDayTime => array
            .as_primitive::<DurationMillisecondType>()
            .value(row)
            .into(),
        LogicalType::Float => format!(
            "f32:{:08x}",
            array.as_primitive::<Float32Type>().value(row).to_bits()
        )
        .into(),
        LogicalType::Double => format!(
            "f64:{:016x}",
            array.as_primitive::<Float64Type>().value(row).to_bits()
        )
        .into(),
        LogicalType::Decimal { .. } => array
            .as_primitive::<Decimal128Type>()
            .value(row)
            .to_string()
            .into(),
        LogicalType::Char(_) | LogicalType::VarChar(_) => {
            array.as_string::<i32>().value(row).into()
        }
        LogicalType::Binary(_) | LogicalType::VarBinary(_) => {
            hex(array.as_binary::<i32>().value(row)).into()
        }
        LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => {
            let v = match p {
                0..=3 => array.as_primitive::<TimestampMillisecondType>().value(row),
                4..=6 => array.as_primitive::<TimestampMicrosecondType>().value(row),
                _ => array.as_primitive::<TimestampNanosecondType>().value(row),
            };
            format!("ts:{v}").into()
        }
        LogicalType::Row(fields) => {
            let s = array.as_struct();
            Value::Array(
                fields
                    .iter()
                    .zip(s.columns())
                    .map(|(f, c)| canon(c, row, &f.ty))
                    .collect(),
            )
        }
        LogicalType::Array(e) => {
            let l = array.as_list::<i32>();
            let v = l.value(row);
            Value::Array((0..v.len()).map(|i| canon(&v, i, e)).collect())
        }
        LogicalType::Map(k, vt) => {
            let l = array.as_list::<i32>();
            let entries = l.value(row);
            let s = entries.as_struct();
            let mut pairs: Vec<Value> = (0..s.len())
                .map(|i| Value::Array(vec![canon(s.column(0), i, k), canon(s.column(1), i, vt)]))
                .collect();
            pairs.sort_by_key(|p| p[0].to_string());
            Value::Array(pairs)
        }
    }
}

/// Flink's canonical value with timestamps turned into the Arrow value of the column.
fn expected_canon(v: &Value, ty: &LogicalType) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    match ty {
        LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => {
            let (ms, ns) = v.as_str().unwrap().split_once(':').unwrap();
            let (ms, ns): (i128, i128) = (ms.parse().unwrap(), ns.parse().unwrap());
            let v = match p {
                0..=3 => ms,
                4..=6 => ms * 1000 + ns / 1000,
                _ => ms * 1_000_000 + ns,
            };
            format!("ts:{v}").into()
        }
        LogicalType::Row(fields) => Value::Array(
            fields
                .iter()
                .zip(v.as_array().unwrap())
                .map(|(f, v)| expected_canon(v, &f.ty))
                .collect(),
        ),
        LogicalType::Array(e) => Value::Array(
            v.as_array()
                .unwrap()
                .iter()
                .map(|v| expected_canon(v, e))
                .collect(),
        ),
        LogicalType::Map(k, vt) => {
            let mut pairs: Vec<Value> = v
                .as_array()
                .unwrap()
                .iter()
                .map(|p| Value::Array(vec![expected_canon(&p[0], k), expected_canon(&p[1], vt)]))
                .collect();
            pairs.sort_by_key(|p| p[0].to_string());
            Value::Array(pairs)
        }
        _ => v.clone(),
    }
}

/// Whether a Flink value holds a nanosecond timestamp outside Arrow's range (1677-2262).
fn out_of_ns_range(v: &Value, ty: &LogicalType) -> bool {
    match (v, ty) {
        (Value::Null, _) => false,
        (Value::String(s), LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p)) if *p > 6 => {
            let ms: i128 = s.split_once(':').unwrap().0.parse().unwrap();
            ms.checked_mul(1_000_000)
                .is_none_or(|n| n > i64::MAX as i128 || n < i64::MIN as i128)
        }
        (Value::Array(items), LogicalType::Row(fields)) => items
            .iter()
            .zip(fields)
            .any(|(v, f)| out_of_ns_range(v, &f.ty)),
        _ => false,
    }
}

#[test]
fn decoding_matches_flink() {
    let mut failures = Vec::new();
    let mut count = 0;
    for case in golden().iter().filter(|c| c["kind"] == "decode") {
        count += 1;
        let schema = case["schema"].as_str().unwrap();
        let fields = fields_of(schema);
        let row_type = LogicalType::Row(fields.clone());
        let options = options_of(&case["options"]);
        let message = case["message"].as_str().map(hex_decode);
        let input = BinaryArray::from(vec![message.as_deref()]);
        let mut decoder = JsonDecoder::try_new(&fields, &options).unwrap();
        let got = decoder.decode(&input);
        let label = format!(
            "{schema} {} message {:?}",
            case["options"],
            message.as_deref().map(String::from_utf8_lossy)
        );
        match (&case["rows"], &case["error"], got) {
            (Value::Array(rows), _, Ok(decoded)) => {
                let want: Vec<Value> = rows
                    .iter()
                    .filter(|r| !r.is_null())
                    .map(|r| expected_canon(r, &row_type))
                    .collect();
                let batch = decoded.batch;
                let s = StructArray::from(batch.clone());
                let ours: Vec<Value> = (0..batch.num_rows())
                    .map(|i| canon(&s, i, &row_type))
                    .collect();
                if ours != want {
                    failures.push(format!("{label}: rows {ours:?}, Flink {want:?}"));
                }
                if want.is_empty() != (decoded.skipped == vec![0]) {
                    failures.push(format!("{label}: skipped {:?}", decoded.skipped));
                }
            }
            (Value::Array(rows), _, Err(e)) => {
                let unrepresentable = rows.iter().any(|r| out_of_ns_range(r, &row_type));
                if !unrepresentable {
                    failures.push(format!("{label}: error {e}, Flink rows {rows:?}"));
                }
            }
            (_, Value::Object(err), Ok(decoded)) => {
                failures.push(format!(
                    "{label}: decoded {} rows, Flink {}",
                    decoded.batch.num_rows(),
                    err["cause"]
                ));
            }
            (_, Value::Object(err), Err(e)) => match e {
                FormatError::Malformed {
                    index: 0, field, ..
                } => {
                    let cause = err["cause"].as_str().unwrap();
                    let want = cause
                        .strip_prefix("Fail to deserialize at field: ")
                        .and_then(|r| r.strip_suffix('.'))
                        .unwrap_or("");
                    let first = field.split(['.', '[']).next().unwrap_or("");
                    if first != want {
                        failures.push(format!("{label}: error at `{field}`, Flink: {cause}"));
                    }
                }
                other => failures.push(format!("{label}: error {other}")),
            },
            _ => failures.push(format!("{label}: bad golden line")),
        }
    }
    assert!(count >= 150, "{count} decode cases");
    assert!(
        failures.is_empty(),
        "{} of {count} decode cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// An Arrow array of `ty` from canonical values (the encode cases' input rows).
fn array_of(values: &[&Value], ty: &LogicalType) -> ArrayRef {
    let nulls = NullBuffer::from(values.iter().map(|v| !v.is_null()).collect::<Vec<_>>());
    let int = |v: &Value| v.as_i64().unwrap_or(0);
    match ty {
        LogicalType::Boolean => Arc::new(BooleanArray::from(
            values.iter().map(|v| v.as_bool()).collect::<Vec<_>>(),
        )),
        LogicalType::TinyInt => Arc::new(Int8Array::from(
            values
                .iter()
                .map(|v| v.as_i64().map(|x| x as i8))
                .collect::<Vec<_>>(),
        )),
        LogicalType::SmallInt => Arc::new(Int16Array::from(
            values
                .iter()
                .map(|v| v.as_i64().map(|x| x as i16))
                .collect::<Vec<_>>(),
        )),
        LogicalType::Int => Arc::new(Int32Array::from(
            values
                .iter()
                .map(|v| v.as_i64().map(|x| x as i32))
                .collect::<Vec<_>>(),
        )),
        LogicalType::IntervalYearMonth => Arc::new(IntervalYearMonthArray::from(
            values
                .iter()
                .map(|v| v.as_i64().map(|x| x as i32))
                .collect::<Vec<_>>(),
        )),
        LogicalType::Date => Arc::new(Date32Array::from(
            values
                .iter()
                .map(|v| v.as_i64().map(|x| x as i32))
                .collect::<Vec<_>>(),
        )),
        LogicalType::Time(_) => Arc::new(Time32MillisecondArray::from(
            values
                .iter()
                .map(|v| v.as_i64().map(|x| x as i32))
                .collect::<Vec<_>>(),
        )),
        LogicalType::BigInt => Arc::new(Int64Array::from(
            values.iter().map(|v| v.as_i64()).collect::<Vec<_>>(),
        )),
        LogicalType::IntervalDayTime => Arc::new(DurationMillisecondArray::from(
            values.iter().map(|v| v.as_i64()).collect::<Vec<_>>(),
        )),
        LogicalType::Float => Arc::new(Float32Array::from(
            values
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(|s| f32::from_bits(u32::from_str_radix(&s[4..], 16).unwrap()))
                })
                .collect::<Vec<_>>(),
        )),
        LogicalType::Double => Arc::new(Float64Array::from(
            values
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(|s| f64::from_bits(u64::from_str_radix(&s[4..], 16).unwrap()))
                })
                .collect::<Vec<_>>(),
        )),
        LogicalType::Decimal { precision, scale } => Arc::new(
            Decimal128Array::from(
                values
                    .iter()
                    .map(|v| v.as_str().map(|s| s.parse::<i128>().unwrap()))
                    .collect::<Vec<_>>(),
            )
            .with_precision_and_scale(*precision, *scale as i8)
            .unwrap(),
        ),
        LogicalType::Char(_) | LogicalType::VarChar(_) => Arc::new(StringArray::from(
            values.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
        )),
        LogicalType::Binary(_) | LogicalType::VarBinary(_) => {
            let bytes: Vec<Option<Vec<u8>>> =
                values.iter().map(|v| v.as_str().map(hex_decode)).collect();
            Arc::new(BinaryArray::from(
                bytes.iter().map(|b| b.as_deref()).collect::<Vec<_>>(),
            ))
        }
        LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => {
            let raw: Vec<Option<i64>> = values
                .iter()
                .map(|v| {
                    expected_canon(v, ty)
                        .as_str()
                        .map(|s| s.strip_prefix("ts:").unwrap().parse::<i64>().unwrap())
                })
                .collect();
            let a: ArrayRef = match p {
                0..=3 => Arc::new(TimestampMillisecondArray::from(raw)),
                4..=6 => Arc::new(TimestampMicrosecondArray::from(raw)),
                _ => Arc::new(TimestampNanosecondArray::from(raw)),
            };
            arrow::compute::cast(&a, &ty.to_arrow()).unwrap()
        }
        LogicalType::Row(fields) => {
            let columns = fields
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let col: Vec<&Value> = values
                        .iter()
                        .map(|v| v.get(i).unwrap_or(&Value::Null))
                        .collect();
                    array_of(&col, &f.ty)
                })
                .collect();
            let _ = int;
            Arc::new(StructArray::try_new(row_arrow_fields(fields), columns, Some(nulls)).unwrap())
        }
        LogicalType::Array(e) => {
            let items: Vec<&Value> = values
                .iter()
                .flat_map(|v| v.as_array().into_iter().flatten())
                .collect();
            let lens = values.iter().map(|v| v.as_array().map_or(0, Vec::len));
            let DataType::List(field) = ty.to_arrow() else {
                unreachable!()
            };
            Arc::new(ListArray::new(
                field,
                OffsetBuffer::from_lengths(lens),
                array_of(&items, e),
                Some(nulls),
            ))
        }
        LogicalType::Map(k, vt) => {
            let pairs: Vec<&Value> = values
                .iter()
                .flat_map(|v| v.as_array().into_iter().flatten())
                .collect();
            let keys: Vec<&Value> = pairs.iter().map(|p| &p[0]).collect();
            let vals: Vec<&Value> = pairs.iter().map(|p| &p[1]).collect();
            let lens = values.iter().map(|v| v.as_array().map_or(0, Vec::len));
            let DataType::List(field) = ty.to_arrow() else {
                unreachable!()
            };
            let DataType::Struct(entry_fields) = field.data_type().clone() else {
                unreachable!()
            };
            let entries = StructArray::try_new(
                entry_fields,
                vec![array_of(&keys, k), array_of(&vals, vt)],
                None,
            )
            .unwrap();
            Arc::new(ListArray::new(
                field,
                OffsetBuffer::from_lengths(lens),
                Arc::new(entries),
                Some(nulls),
            ))
        }
    }
}

#[test]
fn encoding_matches_flink_byte_for_byte() {
    let mut failures = Vec::new();
    let mut count = 0;
    for case in golden().iter().filter(|c| c["kind"] == "encode") {
        let fields = fields_of(case["schema"].as_str().unwrap());
        let options = options_of(&case["options"]);
        let rows: Vec<&Value> = case["rows"].as_array().unwrap().iter().collect();
        let row_type = LogicalType::Row(fields.clone());
        let s = array_of(&rows, &row_type);
        let batch = RecordBatch::from(s.as_struct().clone());
        let mut encoder = JsonEncoder::try_new(&fields, &options, FloatText::Shortest).unwrap();
        for (i, want) in case["out"].as_array().unwrap().iter().enumerate() {
            count += 1;
            let got = encoder.encode(&batch.slice(i, 1));
            match (want, got) {
                (Value::String(want), Ok(out)) => {
                    let got = String::from_utf8_lossy(out.value(0)).into_owned();
                    if &got != want {
                        failures.push(format!(
                            "{} row {i}:\n  ours  {got}\n  Flink {want}",
                            case["options"]
                        ));
                    }
                }
                (Value::Object(err), Err(FormatError::Unencodable { problem, .. })) => {
                    if err["error"] != problem.as_str() {
                        failures.push(format!(
                            "{} row {i}: {problem} vs {}",
                            case["options"], err["error"]
                        ));
                    }
                }
                (want, got) => {
                    failures.push(format!("{} row {i}: {got:?} vs {want}", case["options"]))
                }
            }
        }
    }
    assert!(count >= 60, "{count} encode cases");
    assert!(
        failures.is_empty(),
        "{} of {count} encode cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_float_field_is_refused_under_floating_decimal() {
    let fields = fields_of("ROW<a INT, d DOUBLE>");
    assert!(matches!(
        JsonEncoder::try_new(&fields, &JsonOptions::default(), FloatText::FloatingDecimal),
        Err(FormatError::Unsupported { .. })
    ));
    let fields = fields_of("ROW<a INT>");
    assert!(
        JsonEncoder::try_new(&fields, &JsonOptions::default(), FloatText::FloatingDecimal).is_ok()
    );
}

/// The golden file is what released Flink writes today (skipped without a JVM).
#[test]
fn golden_vectors_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_golden_regenerates(
        "golden_vectors_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.JsonFormatVectors",
        &golden_path(),
    );
}
