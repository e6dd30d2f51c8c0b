//! Parity of key rows, key hashes and key groups with released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-key-rows.jsonl` was written by
//! `java/src/org/streamfusion/golden/KeyVectors.java`, which runs the released Flink
//! classes (`RowDataSerializer.toBinaryRow`, `BinaryRowData.hashCode`,
//! `MathUtils.murmurHash`, `KeyGroupRangeAssignment`) over keys generated from a published
//! seed, nested ROW keys included (the released `BinaryWriter.write` hands each nested row to
//! `AbstractBinaryWriter.writeRow` with its `RowDataSerializer`). The native key writer must
//! reproduce every byte, hash and key group. When a JDK and
//! the released classpath are present (`cargo xtask jvm`), the file is also regenerated and
//! must come out identical.

use super::common;

use arrow::array::ArrayRef;
use streamfusion::keys::KeyHasher;
use streamfusion::keys::key_groups::{Parallelism, default_max_parallelism};
use streamfusion::keys::murmur::murmur_hash;
use streamfusion::types::LogicalType;

use common::{GOLDEN, column, hex, int, parse_golden};

#[test]
fn key_rows_hashes_and_key_groups_match_released_flink() {
    let text = std::fs::read_to_string(GOLDEN).expect("golden vectors");
    let (schemas, _) = parse_golden(&text);
    let total: usize = schemas.iter().map(|s| s.rows.len()).sum();
    assert!(total >= 10_000, "only {total} golden rows");
    // Nested ROW keys: ROW alone, wide values and ROW-in-ROW inside, NULL rows and fields.
    let row_rows: usize = schemas
        .iter()
        .filter(|s| s.types.iter().any(|t| matches!(t, LogicalType::Row(_))))
        .map(|s| s.rows.len())
        .sum();
    assert!(
        row_rows >= 1_800,
        "only {row_rows} golden rows with ROW keys"
    );
    let par = Parallelism::try_new(128, 3).unwrap();
    let mut failures = Vec::new();
    for schema in &schemas {
        let columns: Vec<ArrayRef> = (0..schema.types.len())
            .map(|i| {
                column(
                    &schema.types[i],
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
    bench_support::jvm::assert_golden_regenerates(
        "golden_vectors_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.KeyVectors",
        std::path::Path::new(GOLDEN),
    );
}
