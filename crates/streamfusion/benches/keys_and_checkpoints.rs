//! The `keys_and_checkpoints` suite: key materialization (Flink key hashing and key groups,
//! arrow-row state keys). Checkpoint and restore cases join when keyed state lands.
//!
//! Measured boundaries:
//! - `keys/flink_hash/...`: writing the key columns as `BinaryRowData` rows, hashing them
//!   and assigning key groups (max parallelism 128), output vector allocation included;
//! - `keys/state_encode/...` and `keys/state_decode/...`: arrow-row encode of key columns,
//!   and decode of encoded rows back to columns.
//!
//! Fixtures (built outside timing): BIGINT keys, and composite (BIGINT, VARCHAR) keys with
//! 8- or 264-byte UTF-8 (Unicode and NUL) at 16/1,024/16,384 rows, nullable or not, sliced
//! to a nonzero offset. Oracles are independent: a row-at-a-time model of the key layout
//! with a textbook Murmur3 for hashes, and for state keys the round trip plus an order check
//! against a direct comparison of the values.

use std::cmp::Ordering;
use std::sync::Arc;

use arrow::array::{Array, ArrayData, ArrayRef, AsArray, Int64Array, StringArray};
use arrow::datatypes::Int64Type;
use arrow::row::Rows;
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{self, NullPattern, ROW_COUNTS, SLICE_OFFSET};
use bench_support::{Suite, Verdict};
use streamfusion::keys::KeyHasher;
use streamfusion::keys::state_key::StateKeyCodec;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const MAX_PARALLELISM: u32 = 128;
const WIDTHS: [usize; 2] = [8, 264];

fn main() {
    let mut suite = Suite::new("keys_and_checkpoints");
    flink_hash(&mut suite);
    state_keys(&mut suite);
    suite.finish();
}

/// Key columns as a fixture.
struct Keys(Vec<ArrayRef>);

impl ArrowBuffers for Keys {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.0.collect_arrays(out);
    }
}

/// A vector of key groups is not Arrow output.
struct Groups(Vec<u32>);

impl ArrowBuffers for Groups {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

/// Encoded rows are bytes, not Arrow buffers.
struct Encoded(Rows);

impl ArrowBuffers for Encoded {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

fn nulls(nullable: bool) -> NullPattern {
    if nullable {
        NullPattern::EveryNth(13)
    } else {
        NullPattern::None
    }
}

fn bigint_keys(rows: usize, nullable: bool) -> Keys {
    let ids = fixtures::int64(rows + SLICE_OFFSET, nulls(nullable)).slice(SLICE_OFFSET, rows);
    Keys(vec![Arc::new(ids)])
}

fn composite_keys(rows: usize, width: usize, nullable: bool) -> Keys {
    let ids = fixtures::int64(rows + SLICE_OFFSET, NullPattern::None).slice(SLICE_OFFSET, rows);
    let names =
        fixtures::utf8(rows + SLICE_OFFSET, width, nulls(nullable)).slice(SLICE_OFFSET, rows);
    Keys(vec![Arc::new(ids), Arc::new(names)])
}

// ---- The oracle: Flink's key row and hashes, one row at a time, from the documented rules.

fn murmur3_32(data: &[u8], seed: u32) -> u32 {
    let (c1, c2) = (0xcc9e_2d51_u32, 0x1b87_3593_u32);
    let mut h = seed;
    for chunk in data.chunks_exact(4) {
        let k = u32::from_le_bytes(chunk.try_into().unwrap());
        h ^= k.wrapping_mul(c1).rotate_left(15).wrapping_mul(c2);
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

fn model_key_group(row: &[u8]) -> u32 {
    let hash = murmur3_32(row, 42) as i32;
    let scrambled = murmur3_32(&hash.to_le_bytes(), 0) as i32;
    let non_negative = if scrambled == i32::MIN {
        0
    } else {
        scrambled.wrapping_abs()
    };
    non_negative as u32 % MAX_PARALLELISM
}

/// One key row: header word, then an 8-byte slot per field, then long strings.
fn model_row(ids: &Int64Array, names: Option<&StringArray>, r: usize) -> Vec<u8> {
    let arity = 1 + usize::from(names.is_some());
    let mut row = vec![0u8; 8 + 8 * arity];
    if ids.is_null(r) {
        row[1] |= 1;
    } else {
        row[8..16].copy_from_slice(&ids.value(r).to_le_bytes());
    }
    if let Some(names) = names {
        if names.is_null(r) {
            row[1] |= 2;
        } else {
            let s = names.value(r).as_bytes();
            if s.len() <= 7 {
                row[16..16 + s.len()].copy_from_slice(s);
                row[23] = 0x80 | s.len() as u8;
            } else {
                let offset = row.len() as u64;
                row[16..24].copy_from_slice(&((offset << 32) | s.len() as u64).to_le_bytes());
                row.extend_from_slice(s);
                row.resize(row.len().next_multiple_of(8), 0);
            }
        }
    }
    row
}

fn check_groups(keys: &Keys, groups: &Groups) -> Verdict {
    let ids = keys.0[0].as_primitive::<Int64Type>();
    let names = keys.0.get(1).map(|c| c.as_string::<i32>());
    if groups.0.len() != ids.len() {
        return Err(format!(
            "{} key groups for {} rows",
            groups.0.len(),
            ids.len()
        ));
    }
    for r in 0..ids.len() {
        let expected = model_key_group(&model_row(ids, names, r));
        if groups.0[r] != expected {
            return Err(format!(
                "row {r}: key group {} but the model says {expected}",
                groups.0[r]
            ));
        }
    }
    Ok(())
}

fn flink_hash(suite: &mut Suite) {
    for rows in ROW_COUNTS {
        for nullable in [false, true] {
            let hasher = KeyHasher::new(vec![LogicalType::BigInt]);
            suite.stateless(
                &format!("keys/flink_hash/bigint/rows={rows}/nulls={nullable}"),
                || bigint_keys(rows, nullable),
                |keys| {
                    Groups(
                        hasher
                            .key_groups(&keys.0, MAX_PARALLELISM)
                            .expect("key groups"),
                    )
                },
                check_groups,
            );
            for width in WIDTHS {
                let hasher = KeyHasher::new(vec![
                    LogicalType::BigInt,
                    LogicalType::VarChar(i32::MAX as u32),
                ]);
                suite.stateless(
                    &format!(
                        "keys/flink_hash/bigint_string/rows={rows}/width={width}/nulls={nullable}"
                    ),
                    || composite_keys(rows, width, nullable),
                    |keys| {
                        Groups(
                            hasher
                                .key_groups(&keys.0, MAX_PARALLELISM)
                                .expect("key groups"),
                        )
                    },
                    check_groups,
                );
            }
        }
    }
}

/// The order a state key must keep: id, then name, NULLs first.
fn compare_keys(keys: &Keys, a: usize, b: usize) -> Ordering {
    let ids = keys.0[0].as_primitive::<Int64Type>();
    let names = keys.0[1].as_string::<i32>();
    let id = |r: usize| (!ids.is_null(r)).then(|| ids.value(r));
    let name = |r: usize| (!names.is_null(r)).then(|| names.value(r));
    id(a).cmp(&id(b)).then_with(|| name(a).cmp(&name(b)))
}

fn check_order(keys: &Keys, rows: &Rows) -> Verdict {
    for r in 1..rows.num_rows() {
        let (got, want) = (
            rows.row(r - 1).cmp(&rows.row(r)),
            compare_keys(keys, r - 1, r),
        );
        if got != want {
            return Err(format!(
                "rows {} and {r}: encoded order {got:?}, value order {want:?}",
                r - 1
            ));
        }
    }
    Ok(())
}

fn state_keys(suite: &mut Suite) {
    let types = vec![LogicalType::BigInt, LogicalType::VarChar(i32::MAX as u32)];
    for rows in ROW_COUNTS {
        for width in WIDTHS {
            for nullable in [false, true] {
                let shape = format!("bigint_string/rows={rows}/width={width}/nulls={nullable}");
                let codec = StateKeyCodec::try_new(types.clone()).expect("codec");
                suite.stateless(
                    &format!("keys/state_encode/{shape}"),
                    || composite_keys(rows, width, nullable),
                    |keys| Encoded(codec.encode(&keys.0).expect("encode")),
                    |keys, encoded| {
                        check_order(keys, &encoded.0)?;
                        let decoded = codec.decode(encoded.0.iter()).map_err(|e| e.to_string())?;
                        for (i, (d, k)) in decoded.iter().zip(&keys.0).enumerate() {
                            if d.to_data() != k.to_data() {
                                return Err(format!("column {i} does not decode back"));
                            }
                        }
                        Ok(())
                    },
                );
                let codec = StateKeyCodec::try_new(types.clone()).expect("codec");
                suite.stateless(
                    &format!("keys/state_decode/{shape}"),
                    || {
                        let keys = composite_keys(rows, width, nullable);
                        let encoded = codec.encode(&keys.0).expect("encode");
                        (keys, Encoded(encoded))
                    },
                    |(_, encoded)| Keys(codec.decode(encoded.0.iter()).expect("decode")),
                    |(keys, _), decoded| {
                        for (i, (d, k)) in decoded.0.iter().zip(&keys.0).enumerate() {
                            if d.to_data() != k.to_data() {
                                return Err(format!("column {i} differs after decoding"));
                            }
                        }
                        Ok(())
                    },
                );
            }
        }
    }
}
