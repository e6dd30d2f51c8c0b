//! The `flink_parity` suite: native key hashing and key-group assignment, each case's result
//! first compared with what the released Apache Flink 2.3.0 classes compute for the same
//! input through the embedded JVM, then the native path timed.
//!
//! Measured boundary: the native call only (`murmur_hash` over a vector, `key_groups_for_hashes`,
//! `KeyHasher::hashes` over key columns: `BinaryRowData` writing plus hashing), output
//! vector allocation included. Outside timing: the JVM start-up (in `main`, before any case),
//! fixtures, and the released-Flink results (computed in each case's set-up through
//! `org.streamfusion.parity.Oracles`, one JNI call per case). The JVM stays idle while the
//! native path is timed.
//!
//! Families:
//! - `murmur/rows=N`: `MathUtils.murmurHash` of seeded ints;
//! - `key_groups/max=128/rows=N`: `KeyGroupRangeAssignment.computeKeyGroupForKeyHash`;
//! - `row_hash/{bigint,bigint_string_decimal_timestamp}/rows=N/nulls=B`:
//!   `BinaryRowData.hashCode()` of the key rows (BIGINT; BIGINT, 8-byte VARCHAR over the
//!   inline limit, DECIMAL(38, 10), TIMESTAMP(9)), the released hash computed over the rows
//!   the native `RowWriter` wrote;
//! - `windows/{tumble,hop,cumulate}/rows=N`: the TUMBLE (1 minute), HOP (1 hour every 15
//!   minutes) and CUMULATE (1 day in 1-hour steps) windows of seeded epoch-millisecond
//!   timestamps (`streamfusion::window::WindowAssigner::assign`), against the released
//!   `TumblingWindowAssigner`/`SlidingWindowAssigner`/`CumulativeWindowAssigner`.
//!
//! Rows: 16, 1,024 and 16,384. Ints come from SplitMix64 seeded with the published
//! `fixtures::SEED`; key columns from bench-support's fixtures. On a machine without a JDK or
//! the released classpath (`cargo xtask jvm`) every case is reported skipped with the reason.

use std::sync::Arc;

use arrow::array::{ArrayData, ArrayRef};
use arrow::datatypes::TimeUnit;
use bench_support::buffers::ArrowBuffers;
use bench_support::embedded_jvm::FlinkOracles;
use bench_support::fixtures::{self, NullPattern, ROW_COUNTS, SEED, splitmix64};
use bench_support::{Suite, Verdict};
use streamfusion::binary_row::RowWriter;
use streamfusion::keys::KeyHasher;
use streamfusion::keys::key_groups::key_groups_for_hashes;
use streamfusion::keys::murmur::murmur_hash;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const MAX_PARALLELISM: u32 = 128;

/// The suite's cases, by id, for skipping them all at once.
fn case_ids() -> Vec<String> {
    let mut ids = Vec::new();
    for rows in ROW_COUNTS {
        ids.push(format!("murmur/rows={rows}"));
        ids.push(format!("key_groups/max={MAX_PARALLELISM}/rows={rows}"));
        for schema in ["bigint", "bigint_string_decimal_timestamp"] {
            for nulls in [false, true] {
                ids.push(format!("row_hash/{schema}/rows={rows}/nulls={nulls}"));
            }
        }
        for (name, ..) in WINDOWS {
            ids.push(format!("windows/{name}/rows={rows}"));
        }
    }
    ids
}

fn main() {
    let mut suite = Suite::new("flink_parity");
    // JVM start-up happens here, before any case and outside every timed region.
    match FlinkOracles::new() {
        Ok(flink) => {
            ints(&mut suite, flink);
            row_hashes(&mut suite, flink);
            windows(&mut suite, flink);
        }
        Err(reason) => {
            for id in case_ids() {
                suite.skip(&id, &reason.to_string());
            }
        }
    }
    suite.finish();
}

/// Seeded ints with what released Flink computes for them.
struct Ints {
    values: Vec<i32>,
    flink: Vec<i32>,
}

impl ArrowBuffers for Ints {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

/// A result vector is not Arrow output.
struct Results(Vec<i32>);

impl ArrowBuffers for Results {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

fn seeded_ints(rows: usize) -> Vec<i32> {
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..rows as u64)
        .map(|i| splitmix64(SEED.wrapping_add(i.wrapping_mul(GAMMA))) as i32)
        .collect()
}

fn same_as_flink(native: &[i32], flink: &[i32], inputs: &[i32]) -> Verdict {
    if native.len() != flink.len() {
        return Err(format!(
            "{} native results but {} from released Flink",
            native.len(),
            flink.len()
        ));
    }
    match (0..native.len()).find(|&i| native[i] != flink[i]) {
        None => Ok(()),
        Some(i) => Err(format!(
            "row {i} (input {}): native {} but released Flink {}",
            inputs[i], native[i], flink[i]
        )),
    }
}

fn ints(suite: &mut Suite, flink: FlinkOracles) {
    for rows in ROW_COUNTS {
        suite.stateless(
            &format!("murmur/rows={rows}"),
            || {
                let values = seeded_ints(rows);
                let flink = flink.murmur_hashes(&values).expect("MathUtils.murmurHash");
                Ints { values, flink }
            },
            |input| Results(input.values.iter().map(|&c| murmur_hash(c)).collect()),
            |input, out| same_as_flink(&out.0, &input.flink, &input.values),
        );
        suite.stateless(
            &format!("key_groups/max={MAX_PARALLELISM}/rows={rows}"),
            || {
                let values = seeded_ints(rows);
                let flink = flink
                    .key_groups_for_hashes(&values, MAX_PARALLELISM as i32)
                    .expect("computeKeyGroupForKeyHash");
                Ints { values, flink }
            },
            |input| {
                Results(
                    key_groups_for_hashes(&input.values, MAX_PARALLELISM)
                        .expect("key groups")
                        .into_iter()
                        .map(|g| g as i32)
                        .collect(),
                )
            },
            |input, out| same_as_flink(&out.0, &input.flink, &input.values),
        );
    }
}

/// Key columns with the released `BinaryRowData.hashCode()` of their native rows.
struct KeyColumns {
    columns: Vec<ArrayRef>,
    flink: Vec<i32>,
}

impl ArrowBuffers for KeyColumns {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.columns.collect_arrays(out);
    }
}

fn key_columns(schema: &str, rows: usize, nullable: bool) -> (Vec<LogicalType>, Vec<ArrayRef>) {
    let nulls = if nullable {
        NullPattern::EveryNth(13)
    } else {
        NullPattern::None
    };
    let ids: ArrayRef = Arc::new(fixtures::int64(rows, nulls));
    match schema {
        "bigint" => (vec![LogicalType::BigInt], vec![ids]),
        _ => (
            vec![
                LogicalType::BigInt,
                LogicalType::VarChar(i32::MAX as u32),
                LogicalType::Decimal {
                    precision: 38,
                    scale: 10,
                },
                LogicalType::Timestamp(9),
            ],
            vec![
                ids,
                Arc::new(fixtures::utf8(rows, 8, nulls)),
                Arc::new(fixtures::decimal128(rows, 38, 10, nulls)),
                fixtures::timestamps(rows, TimeUnit::Nanosecond, nulls),
            ],
        ),
    }
}

fn row_hashes(suite: &mut Suite, flink: FlinkOracles) {
    for rows in ROW_COUNTS {
        for schema in ["bigint", "bigint_string_decimal_timestamp"] {
            for nullable in [false, true] {
                let (types, _) = key_columns(schema, 0, nullable);
                let hasher = KeyHasher::new(types.clone());
                suite.stateless(
                    &format!("row_hash/{schema}/rows={rows}/nulls={nullable}"),
                    || {
                        let (types, columns) = key_columns(schema, rows, nullable);
                        let written = RowWriter::new(types.clone())
                            .write(&columns)
                            .expect("native key rows");
                        let flink = flink
                            .hash_rows(written.data(), written.offsets(), types.len())
                            .expect("BinaryRowData.hashCode");
                        KeyColumns { columns, flink }
                    },
                    |input| Results(hasher.hashes(&input.columns).expect("key hashes")),
                    |input, out| {
                        let rows: Vec<i32> = (0..out.0.len() as i32).collect();
                        same_as_flink(&out.0, &input.flink, &rows)
                    },
                );
            }
        }
    }
}

/// (case name, released assigner kind, size, slide or step, offset), in milliseconds.
const WINDOWS: [(&str, &str, i64, i64, i64); 3] = [
    ("tumble", "TUMBLE", 60_000, 0, 0),
    ("hop", "HOP", 3_600_000, 900_000, 0),
    ("cumulate", "CUMULATE", 86_400_000, 3_600_000, 0),
];

/// Seeded timestamps with the windows released Flink assigns them.
struct Timestamps {
    values: Vec<i64>,
    flink: Vec<(i64, i64)>,
}

impl ArrowBuffers for Timestamps {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

/// Window bounds are not Arrow output.
struct Windows(Vec<streamfusion::window::TimeWindow>);

impl ArrowBuffers for Windows {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

fn windows(suite: &mut Suite, flink: FlinkOracles) {
    use streamfusion::window::WindowAssigner;
    for rows in ROW_COUNTS {
        for (name, kind, size, slide, offset) in WINDOWS {
            let assigner = match kind {
                "TUMBLE" => WindowAssigner::tumble(size, offset),
                "HOP" => WindowAssigner::hop(size, slide, offset),
                _ => WindowAssigner::cumulate(size, slide, offset),
            }
            .expect("a valid assigner");
            suite.stateless(
                &format!("windows/{name}/rows={rows}"),
                || {
                    // Epoch milliseconds within about ±63 years of 1970, both signs.
                    let values: Vec<i64> = seeded_ints(rows)
                        .into_iter()
                        .map(|v| i64::from(v) * 931)
                        .collect();
                    let flink = flink
                        .assign_windows(kind, size, slide, offset, &values)
                        .expect("released window assigner")
                        .into_iter()
                        .flatten()
                        .collect();
                    Timestamps { values, flink }
                },
                |input| {
                    let mut out = Vec::with_capacity(input.flink.len());
                    for &ts in &input.values {
                        assigner.assign(ts, &mut out);
                    }
                    Windows(out)
                },
                |input, out| {
                    let native: Vec<(i64, i64)> = out.0.iter().map(|w| (w.start, w.end)).collect();
                    if native == input.flink {
                        Ok(())
                    } else {
                        Err(format!(
                            "{} native windows differ from released Flink's {} (first at {:?})",
                            native.len(),
                            input.flink.len(),
                            native.iter().zip(&input.flink).position(|(a, b)| a != b)
                        ))
                    }
                },
            );
        }
    }
}
