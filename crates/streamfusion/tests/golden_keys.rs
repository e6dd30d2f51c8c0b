//! Parity of key rows, key hashes and key groups with released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-key-rows.jsonl` was written by
//! `java/src/org/streamfusion/golden/KeyVectors.java`, which runs the released Flink
//! classes (`RowDataSerializer.toBinaryRow`, `BinaryRowData.hashCode`,
//! `MathUtils.murmurHash`, `KeyGroupRangeAssignment`) over keys generated from a published
//! seed. The native key writer must reproduce every byte, hash and key group. When a JDK and
//! the released classpath are present (`cargo xtask jvm`), the file is also regenerated and
//! must come out identical.

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, DurationMillisecondArray,
    Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Int64Array,
    IntervalYearMonthArray, StringArray, Time32MillisecondArray, TimestampMicrosecondArray,
    TimestampMillisecondArray, TimestampNanosecondArray,
};
use arrow::datatypes::TimeUnit;
use serde_json::Value;
use streamfusion::keys::KeyHasher;
use streamfusion::keys::key_groups::{Parallelism, default_max_parallelism};
use streamfusion::keys::murmur::murmur_hash;
use streamfusion::types::{LogicalType, timestamp_unit};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-key-rows.jsonl"
);

struct Expected {
    values: Vec<Value>,
    bytes: String,
    hash: i32,
    murmur: i32,
    kg: [(u32, u32); 3],
    op128p3: u32,
}

struct Schema {
    types: Vec<LogicalType>,
    rows: Vec<Expected>,
}

fn int(v: &Value, what: &str) -> i64 {
    v.as_i64()
        .unwrap_or_else(|| panic!("{what}: expected an integer, got {v}"))
}

fn parse_golden(text: &str) -> (Vec<Schema>, Vec<Value>) {
    let mut schemas: Vec<Schema> = Vec::new();
    let mut tail = Vec::new();
    for (number, line) in text.lines().enumerate().skip(1) {
        let v: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", number + 1));
        if let Some(schema) = v.get("schema") {
            let types = schema
                .as_array()
                .expect("schema is a list")
                .iter()
                .map(|t| {
                    t.as_str()
                        .expect("type name")
                        .parse::<LogicalType>()
                        .unwrap()
                })
                .collect();
            schemas.push(Schema {
                types,
                rows: Vec::new(),
            });
        } else if v.get("v").is_some() {
            let row = Expected {
                values: v["v"].as_array().expect("values").clone(),
                bytes: v["bytes"].as_str().expect("bytes").to_string(),
                hash: int(&v["hash"], "hash") as i32,
                murmur: int(&v["murmur"], "murmur") as i32,
                kg: [
                    (128, int(&v["kg128"], "kg128") as u32),
                    (4096, int(&v["kg4096"], "kg4096") as u32),
                    (32768, int(&v["kg32768"], "kg32768") as u32),
                ],
                op128p3: int(&v["op128p3"], "op128p3") as u32,
            };
            schemas
                .last_mut()
                .expect("rows follow a schema")
                .rows
                .push(row);
        } else {
            tail.push(v);
        }
    }
    (schemas, tail)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn string_i64(v: &Value) -> i64 {
    v.as_str().expect("a decimal string").parse().expect("i64")
}

/// "millis:nanos" to ticks of the Arrow unit for `TIMESTAMP(p)`.
fn timestamp_ticks(v: &Value, unit: TimeUnit) -> i64 {
    let (ms, ns) = v
        .as_str()
        .expect("millis:nanos")
        .split_once(':')
        .expect("millis:nanos");
    let (ms, ns): (i64, i64) = (ms.parse().unwrap(), ns.parse().unwrap());
    match unit {
        TimeUnit::Millisecond => {
            assert_eq!(ns, 0, "TIMESTAMP(p<=3) with nanoseconds");
            ms
        }
        TimeUnit::Microsecond => ms * 1_000 + ns / 1_000,
        TimeUnit::Nanosecond => ms * 1_000_000 + ns,
        TimeUnit::Second => unreachable!(),
    }
}

/// One Arrow column of `t` from the golden values (the independent decoding of the file).
fn column(t: LogicalType, values: Vec<&Value>) -> ArrayRef {
    fn opt<T>(v: &Value, f: impl Fn(&Value) -> T) -> Option<T> {
        (!v.is_null()).then(|| f(v))
    }
    let small = |v: &Value| int(v, "int");
    match t {
        LogicalType::Boolean => {
            Arc::new(BooleanArray::from_iter(values.iter().map(|v| v.as_bool())))
        }
        LogicalType::TinyInt => Arc::new(Int8Array::from_iter(
            values.iter().map(|v| opt(v, |v| small(v) as i8)),
        )),
        LogicalType::SmallInt => Arc::new(Int16Array::from_iter(
            values.iter().map(|v| opt(v, |v| small(v) as i16)),
        )),
        LogicalType::Int => Arc::new(Int32Array::from_iter(
            values.iter().map(|v| opt(v, |v| small(v) as i32)),
        )),
        LogicalType::Date => Arc::new(Date32Array::from_iter(
            values.iter().map(|v| opt(v, |v| small(v) as i32)),
        )),
        LogicalType::Time(_) => Arc::new(Time32MillisecondArray::from_iter(
            values.iter().map(|v| opt(v, |v| small(v) as i32)),
        )),
        LogicalType::IntervalYearMonth => Arc::new(IntervalYearMonthArray::from_iter(
            values.iter().map(|v| opt(v, |v| small(v) as i32)),
        )),
        LogicalType::BigInt => Arc::new(Int64Array::from_iter(
            values.iter().map(|v| opt(v, string_i64)),
        )),
        LogicalType::IntervalDayTime => Arc::new(DurationMillisecondArray::from_iter(
            values.iter().map(|v| opt(v, string_i64)),
        )),
        LogicalType::Float => Arc::new(Float32Array::from_iter(values.iter().map(|v| {
            opt(v, |v| {
                f32::from_bits(u32::from_str_radix(v.as_str().unwrap(), 16).unwrap())
            })
        }))),
        LogicalType::Double => Arc::new(Float64Array::from_iter(values.iter().map(|v| {
            opt(v, |v| {
                f64::from_bits(u64::from_str_radix(v.as_str().unwrap(), 16).unwrap())
            })
        }))),
        LogicalType::Decimal { precision, scale } => Arc::new(
            Decimal128Array::from_iter(
                values
                    .iter()
                    .map(|v| opt(v, |v| v.as_str().unwrap().parse::<i128>().unwrap())),
            )
            .with_precision_and_scale(precision, scale as i8)
            .unwrap(),
        ),
        LogicalType::Char(_) | LogicalType::VarChar(_) => {
            Arc::new(StringArray::from_iter(values.iter().map(|v| v.as_str())))
        }
        LogicalType::Binary(_) | LogicalType::VarBinary(_) => {
            let bytes: Vec<Option<Vec<u8>>> = values
                .iter()
                .map(|v| opt(v, |v| unhex(v.as_str().unwrap())))
                .collect();
            Arc::new(BinaryArray::from_iter(bytes))
        }
        LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => {
            let unit = timestamp_unit(p);
            let ticks = values.iter().map(|v| opt(v, |v| timestamp_ticks(v, unit)));
            let tz = matches!(t, LogicalType::TimestampLtz(_)).then_some("UTC");
            let array: ArrayRef = match unit {
                TimeUnit::Millisecond => {
                    Arc::new(TimestampMillisecondArray::from_iter(ticks).with_timezone_opt(tz))
                }
                TimeUnit::Microsecond => {
                    Arc::new(TimestampMicrosecondArray::from_iter(ticks).with_timezone_opt(tz))
                }
                _ => Arc::new(TimestampNanosecondArray::from_iter(ticks).with_timezone_opt(tz)),
            };
            array
        }
    }
}

#[test]
fn key_rows_hashes_and_key_groups_match_released_flink() {
    let text = std::fs::read_to_string(GOLDEN).expect("golden vectors");
    let (schemas, _) = parse_golden(&text);
    let total: usize = schemas.iter().map(|s| s.rows.len()).sum();
    assert!(total >= 10_000, "only {total} golden rows");
    let par = Parallelism::try_new(128, 3).unwrap();
    let mut failures = Vec::new();
    for schema in &schemas {
        let columns: Vec<ArrayRef> = (0..schema.types.len())
            .map(|i| {
                column(
                    schema.types[i],
                    schema.rows.iter().map(|r| &r.values[i]).collect(),
                )
            })
            .collect();
        let hasher = KeyHasher::new(schema.types.clone());
        let rows = hasher.key_rows(&columns).unwrap();
        let hashes = hasher.hashes(&columns).unwrap();
        let groups: Vec<Vec<u32>> = [128, 4096, 32768]
            .iter()
            .map(|&max| hasher.key_groups(&columns, max).unwrap())
            .collect();
        let names: Vec<String> = schema.types.iter().map(ToString::to_string).collect();
        for (r, expected) in schema.rows.iter().enumerate() {
            let mut differs = Vec::new();
            if hex(rows.row(r)) != expected.bytes {
                differs.push(format!(
                    "bytes\n  native {}\n  flink  {}",
                    hex(rows.row(r)),
                    expected.bytes
                ));
            }
            if hashes[r] != expected.hash {
                differs.push(format!("hash {} vs {}", hashes[r], expected.hash));
            }
            if murmur_hash(expected.hash) != expected.murmur {
                differs.push(format!(
                    "murmur {} vs {}",
                    murmur_hash(expected.hash),
                    expected.murmur
                ));
            }
            for (g, (max, kg)) in expected.kg.iter().enumerate() {
                if groups[g][r] != *kg {
                    differs.push(format!("key group (max {max}) {} vs {kg}", groups[g][r]));
                }
            }
            if par.operator_index(groups[0][r]) != expected.op128p3 {
                differs.push(format!(
                    "operator index {} vs {}",
                    par.operator_index(groups[0][r]),
                    expected.op128p3
                ));
            }
            if !differs.is_empty() {
                failures.push(format!(
                    "{names:?} row {r} {:?}: {}",
                    expected.values,
                    differs.join("; ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} golden rows differ; first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn parallelism_helpers_match_released_flink() {
    let text = std::fs::read_to_string(GOLDEN).expect("golden vectors");
    let (_, tail) = parse_golden(&text);
    let mut checked = 0;
    for v in tail {
        if let Some(d) = v.get("default_max_parallelism") {
            let p = int(&d["p"], "p") as u32;
            assert_eq!(
                default_max_parallelism(p),
                int(&d["max"], "max") as u32,
                "p = {p}"
            );
            checked += 1;
        } else if let Some(r) = v.get("key_group_range") {
            let (max, p, index) = (
                int(&r["max"], "max") as u32,
                int(&r["p"], "p") as u32,
                int(&r["index"], "index") as u32,
            );
            let range = Parallelism::try_new(max, p)
                .unwrap()
                .key_group_range(index)
                .unwrap();
            assert_eq!(
                (*range.start(), *range.end()),
                (
                    int(&r["start"], "start") as u32,
                    int(&r["end"], "end") as u32
                ),
                "max {max} p {p} index {index}"
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} parallelism vectors");
}

#[test]
fn golden_vectors_regenerate_identically_from_released_flink() {
    let classpath = match bench_support::jvm::released_classpath() {
        Ok(cp) => cp,
        Err(why) => {
            bench_support::jvm::report_skipped(
                "golden_vectors_regenerate_identically_from_released_flink",
                &why,
            );
            return;
        }
    };
    let out = std::env::temp_dir().join(format!("sf-key-rows-{}.jsonl", std::process::id()));
    let status = std::process::Command::new(bench_support::jvm::java_command())
        .args(["-cp", &classpath, "org.streamfusion.golden.KeyVectors"])
        .arg(&out)
        .status()
        .expect("run java");
    assert!(status.success(), "KeyVectors failed: {status}");
    let regenerated = std::fs::read(&out).expect("regenerated vectors");
    let _ = std::fs::remove_file(&out);
    let committed = std::fs::read(GOLDEN).expect("golden vectors");
    assert!(
        regenerated == committed,
        "released Flink now writes different vectors than tests/golden holds ({} vs {} bytes); regenerate and review",
        regenerated.len(),
        committed.len()
    );
}
