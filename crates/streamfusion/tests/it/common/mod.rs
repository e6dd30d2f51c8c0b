//! Shared helpers of the integration tests: parsing `tests/golden/flink-2.3.0-key-rows.jsonl`
//! and decoding its JSON values into Arrow columns independently of the engine, the golden
//! changelogs' rows and batches ([`changelog`]), replaying a single node's golden changelogs
//! and comparing them with Flink's ([`golden_replay`]; two-input nodes' in
//! [`two_input_replay`]), the state backends the operator tests
//! run on, and keyed subtasks checkpointed and restored at another parallelism
//! ([`subtasks`]).

// Each test crate that includes this module uses a different subset of it.
#![allow(dead_code)]

pub mod changelog;
pub mod golden_replay;
pub mod subtasks;
pub mod two_input_replay;

/// A seeded splitmix64 sequence: the operator tests' random inputs, the same on every
/// machine.
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next value below `m`.
    pub fn below(&mut self, m: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % m
    }
}

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, DurationMillisecondArray,
    Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Int64Array,
    IntervalYearMonthArray, StringArray, StructArray, Time32MillisecondArray,
    TimestampMicrosecondArray, TimestampMillisecondArray, TimestampNanosecondArray,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::TimeUnit;
use serde_json::Value;
use streamfusion::ops::StateConfig;
use streamfusion::state::StateBackend;
use streamfusion::state::memory::MemoryBackend;
use streamfusion::state::rocks::{RocksBackend, RocksOptions};
use streamfusion::types::{LogicalType, row_arrow_fields, timestamp_unit};

pub const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-key-rows.jsonl"
);

pub struct Expected {
    pub values: Vec<Value>,
    pub bytes: String,
    pub hash: i32,
    pub murmur: i32,
    pub kg: [(u32, u32); 3],
    pub op128p3: u32,
}

pub struct Schema {
    pub types: Vec<LogicalType>,
    pub rows: Vec<Expected>,
}

pub fn int(v: &Value, what: &str) -> i64 {
    v.as_i64()
        .unwrap_or_else(|| panic!("{what}: expected an integer, got {v}"))
}

pub fn parse_golden(text: &str) -> (Vec<Schema>, Vec<Value>) {
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

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

pub fn string_i64(v: &Value) -> i64 {
    v.as_str().expect("a decimal string").parse().expect("i64")
}

/// "millis:nanos" to ticks of the Arrow unit for `TIMESTAMP(p)`.
pub fn timestamp_ticks(v: &Value, unit: TimeUnit) -> i64 {
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
/// A ROW value is the list of its field values; a NULL ROW's fields are NULL.
pub fn column(t: &LogicalType, values: Vec<&Value>) -> ArrayRef {
    fn opt<T>(v: &Value, f: impl Fn(&Value) -> T) -> Option<T> {
        (!v.is_null()).then(|| f(v))
    }
    let small = |v: &Value| int(v, "int");
    match *t {
        LogicalType::Row(ref fields) => {
            let children = fields
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    column(
                        &f.ty,
                        values
                            .iter()
                            .map(|v| v.as_array().map_or(&Value::Null, |row| &row[i]))
                            .collect(),
                    )
                })
                .collect();
            let nulls = NullBuffer::from_iter(values.iter().map(|v| !v.is_null()));
            Arc::new(StructArray::try_new(row_arrow_fields(fields), children, Some(nulls)).unwrap())
        }
        LogicalType::Array(_) | LogicalType::Map(..) => {
            unreachable!("the golden key rows have no ARRAY or MAP keys")
        }
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
            let tz = matches!(*t, LogicalType::TimestampLtz(_)).then_some("UTC");
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

/// The golden schemas and the trailing (non-row) vectors.
pub fn golden() -> (Vec<Schema>, Vec<Value>) {
    let text = std::fs::read_to_string(GOLDEN).expect("golden vectors");
    parse_golden(&text)
}

/// The Arrow columns of a golden schema's rows.
pub fn columns(schema: &Schema) -> Vec<ArrayRef> {
    (0..schema.types.len())
        .map(|i| {
            column(
                &schema.types[i],
                schema.rows.iter().map(|r| &r.values[i]).collect(),
            )
        })
        .collect()
}

/// Which backend a test keeps its state in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Memory,
    Rocks,
}

/// A fresh store of `backend`; a RocksDB store lives under `dir`.
pub fn open(backend: Backend, dir: &std::path::Path) -> Box<dyn StateBackend> {
    match backend {
        Backend::Memory => Box::new(MemoryBackend::new()),
        Backend::Rocks => {
            Box::new(RocksBackend::open(&dir.join("db"), &RocksOptions::checked_in()).unwrap())
        }
    }
}

/// Where a restored operator keeps its state: a fresh RocksDB directory under `dir`.
pub fn config(backend: Backend, dir: &std::path::Path) -> StateConfig {
    match backend {
        Backend::Memory => StateConfig::memory(),
        Backend::Rocks => StateConfig::rocksdb(dir.join("restored")),
    }
}

/// The key groups each of `parallelism` subtasks owns, as Flink assigns them.
pub fn key_group_ranges(
    max_parallelism: u32,
    parallelism: u32,
) -> Vec<std::ops::RangeInclusive<u16>> {
    let assign =
        streamfusion::keys::key_groups::Parallelism::try_new(max_parallelism, parallelism).unwrap();
    (0..parallelism)
        .map(|i| {
            let r = assign.key_group_range(i).unwrap();
            (*r.start() as u16)..=(*r.end() as u16)
        })
        .collect()
}

/// `batch`'s rows (an INT key in column 0) with their kinds for each of `subtasks`, by their
/// keys' key groups, as Flink's keyed exchange routes them; `None` for a subtask without rows.
pub fn route(
    batch: &streamfusion::changelog::ChangelogBatch,
    subtasks: usize,
    max_parallelism: u32,
) -> Vec<Option<streamfusion::changelog::ChangelogBatch>> {
    let hasher = streamfusion::keys::KeyHasher::new(vec![LogicalType::Int]);
    let groups = hasher
        .key_groups(&[batch.batch().column(0).clone()], max_parallelism)
        .unwrap();
    let assign =
        streamfusion::keys::key_groups::Parallelism::try_new(max_parallelism, subtasks as u32)
            .unwrap();
    (0..subtasks)
        .map(|i| {
            let mine: Vec<u32> = (0..batch.num_rows() as u32)
                .filter(|&r| assign.operator_index(groups[r as usize]) == i as u32)
                .collect();
            (!mine.is_empty()).then(|| {
                let take = arrow::array::UInt32Array::from(mine);
                let columns = batch
                    .batch()
                    .columns()
                    .iter()
                    .map(|c| arrow::compute::take(c.as_ref(), &take, None).unwrap())
                    .collect();
                let kinds = batch.kinds().map(|k| {
                    use arrow::array::AsArray;
                    arrow::compute::take(k, &take, None)
                        .unwrap()
                        .as_primitive::<arrow::datatypes::Int8Type>()
                        .clone()
                });
                streamfusion::changelog::ChangelogBatch::try_new(
                    arrow::array::RecordBatch::try_new(batch.batch().schema(), columns).unwrap(),
                    kinds,
                )
                .unwrap()
            })
        })
        .collect()
}
