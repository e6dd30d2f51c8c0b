//! Seeded fuzzing of the JSON decoder: generated messages (JSON values shaped like the
//! table's rows, and arbitrary JSON), then mutated (bytes flipped, cut, inserted), in batches
//! with NULL messages.
//!
//! Properties: nothing panics; without ignore-parse-errors a batch decodes or fails with
//! `Malformed` naming a message of the batch; with it, a batch decodes (a message that fails
//! is listed in `skipped`), except for a value Arrow cannot carry (a nanosecond timestamp out
//! of range), which is an error there too; NULL messages are always skipped; `skipped` is
//! ascending; decoding a batch gives the rows of decoding its messages one by one (no state
//! leaks between messages, including after rolled-back partial rows); and the decoder stays
//! usable after an error.

use std::str::FromStr;

use arrow::array::{BinaryArray, RecordBatch};
use arrow::compute::concat_batches;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Number, Value};
use streamfusion_core::types::{LogicalType, RowField};
use streamfusion_formats::json::{JsonDecoder, JsonOptions};
use streamfusion_formats::{Decoder, FormatError};

const SCHEMA: &str = "ROW<a INT, b STRING, flag BOOLEAN, t TINYINT, bi BIGINT, f FLOAT, d DOUBLE, \
    dm DECIMAL(10, 2), bin BYTES, dt DATE, tm TIME(3), ts TIMESTAMP(9), ltz TIMESTAMP_LTZ(3), \
    c ROW<x INT, y ARRAY<STRING>>, arr ARRAY<INT>, m MAP<STRING, DOUBLE>>";

fn fields() -> Vec<RowField> {
    match LogicalType::from_str(SCHEMA).unwrap() {
        LogicalType::Row(f) => f,
        _ => unreachable!(),
    }
}

const NAMES: &[&str] = &[
    "a", "b", "flag", "t", "bi", "f", "d", "dm", "bin", "dt", "tm", "ts", "ltz", "c", "arr", "m",
    "x", "y", "zz",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|v| Value::Number(v.into())),
        (-1000i32..1000).prop_map(|v| Value::Number(v.into())),
        any::<f64>().prop_filter_map("finite", |v| Number::from_f64(v).map(Value::Number)),
        "[a-zA-Z0-9 .:+-]{0,12}".prop_map(Value::String),
        Just(Value::String("2024-02-29 12:34:56.789".into())),
        Just(Value::String("2024-02-29T12:34:56Z".into())),
        Just(Value::String("1500-01-01 00:00:00".into())),
        Just(Value::String("12:34:56".into())),
        Just(Value::String("AQID".into())),
        Just(Value::String("\u{e9}\u{1F600}\\\"".into())),
        Just(Value::String("NaN".into())),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(NAMES), inner), 0..6).prop_map(|kv| {
                let mut m = Map::new();
                for (k, v) in kv {
                    m.insert(k.to_string(), v);
                }
                Value::Object(m)
            }),
        ]
    })
}

fn object() -> impl Strategy<Value = Value> {
    prop::collection::vec((prop::sample::select(NAMES), value()), 0..10).prop_map(|kv| {
        // Duplicate names kept: written by hand below.
        Value::Array(
            kv.into_iter()
                .map(|(k, v)| Value::Array(vec![Value::String(k.into()), v]))
                .collect(),
        )
    })
}

/// An object from `[name, value]` pairs (repeats kept).
fn object_text(pairs: &Value) -> String {
    let parts: Vec<String> = pairs
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{}:{}", p[0], p[1]))
        .collect();
    format!("{{{}}}", parts.join(","))
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Cut(usize),
    Insert(usize, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let special = prop::sample::select(vec![
        b'{', b'}', b'[', b']', b'"', b'\\', b',', b':', b'0', b'-', b'e', b'.', b' ', 0xff, 0xc3,
        0x00, b'n', b't',
    ]);
    prop_oneof![
        (any::<usize>(), special.clone()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        any::<usize>().prop_map(Mutation::Cut),
        (any::<usize>(), special).prop_map(|(i, b)| Mutation::Insert(i, b)),
    ]
}

fn message() -> impl Strategy<Value = Option<Vec<u8>>> {
    let text = prop_oneof![
        4 => object().prop_map(|o| object_text(&o)),
        1 => value().prop_map(|v| v.to_string()),
        1 => prop::collection::vec(object(), 0..3).prop_map(|os| {
            format!("[{}]", os.iter().map(object_text).collect::<Vec<_>>().join(","))
        }),
    ];
    prop_oneof![
        1 => Just(None),
        8 => (text, prop::collection::vec(mutation(), 0..3)).prop_map(|(t, muts)| {
            let mut b = t.into_bytes();
            for m in muts {
                match m {
                    Mutation::Flip(i, c) if !b.is_empty() => {
                        let i = i % b.len();
                        b[i] = c;
                    }
                    Mutation::Cut(i) => b.truncate(i % (b.len() + 1)),
                    Mutation::Insert(i, c) => b.insert(i % (b.len() + 1), c),
                    _ => {}
                }
            }
            Some(b)
        }),
    ]
}

fn unrepresentable(e: &FormatError) -> bool {
    matches!(e, FormatError::Malformed { problem, .. } if problem.contains("outside the range"))
}

fn check_batch(messages: &[Option<Vec<u8>>], ignore: bool) -> Result<(), TestCaseError> {
    let fields = fields();
    let options = JsonOptions {
        ignore_parse_errors: ignore,
        ..JsonOptions::default()
    };
    let input = BinaryArray::from(messages.iter().map(|m| m.as_deref()).collect::<Vec<_>>());
    let mut decoder = JsonDecoder::try_new(&fields, &options).unwrap();
    match decoder.decode(&input) {
        Ok(decoded) => {
            prop_assert!(decoded.skipped.windows(2).all(|w| w[0] < w[1]));
            for (i, m) in messages.iter().enumerate() {
                if m.is_none() {
                    prop_assert!(decoded.skipped.contains(&(i as u32)));
                }
            }
            // The batch's rows are the messages' rows, one by one.
            let mut parts: Vec<RecordBatch> = Vec::new();
            for m in messages {
                let one = BinaryArray::from(vec![m.as_deref()]);
                let mut single = JsonDecoder::try_new(&fields, &options).unwrap();
                parts.push(single.decode(&one).unwrap().batch);
            }
            let joined = concat_batches(&decoded.batch.schema(), &parts).unwrap();
            prop_assert_eq!(&joined, &decoded.batch);
        }
        Err(e) => {
            let FormatError::Malformed { index, .. } = &e else {
                return Err(TestCaseError::fail(format!("not Malformed: {e}")));
            };
            prop_assert!(*index < messages.len());
            prop_assert!(messages[*index].is_some());
            prop_assert!(
                !ignore || unrepresentable(&e),
                "error under ignore-parse-errors: {e}"
            );
            // Still usable.
            let ok = BinaryArray::from(vec![Some(br#"{"a":1}"#.as_slice())]);
            prop_assert_eq!(decoder.decode(&ok).unwrap().batch.num_rows(), 1);
        }
    }
    Ok(())
}

#[test]
fn generated_and_mutated_messages_decode_or_fail_cleanly() {
    let config = Config {
        cases: 3000,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    runner
        .run(
            &(prop::collection::vec(message(), 1..8), any::<bool>()),
            |(messages, ignore)| check_batch(&messages, ignore),
        )
        .unwrap();
}

#[test]
fn deep_and_odd_inputs_never_panic() {
    let deep_obj = format!("{}{}", "{\"a\":".repeat(5000), "1");
    let deep_arr = format!("{{\"zz\":{}", "[".repeat(100_000));
    let cases: Vec<Option<Vec<u8>>> = vec![
        Some(deep_obj.into_bytes()),
        Some(deep_arr.into_bytes()),
        Some(b"\xEF\xBB\xBF".to_vec()),
        Some(b"{\"b\":\"\\u".to_vec()),
        Some(b"{\"b\":\"\xF4\x90\x80\x80\xF0\x80\x80\x80\xED\xA0\x80\"}".to_vec()),
        Some(b"[null,{},[],1]".to_vec()),
        Some(b"{\"m\":{\"k\":1,\"k\":2,\"k\":{}},\"m\":{\"j\":[1,2]}}".to_vec()),
    ];
    for ignore in [false, true] {
        for c in &cases {
            check_batch(std::slice::from_ref(c), ignore).unwrap();
        }
        check_batch(&cases, ignore).unwrap();
    }
}
