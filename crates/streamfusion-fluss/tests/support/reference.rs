//! A row-at-a-time reference for Fluss's default bucketing (no lake format), written plainly
//! from Fluss's Java sources rather than from this crate: `CompactedKeyWriter` (varints and
//! length-prefixed strings), `MurmurHashUtils.hashUnsafeBytes` (seed 42, sign-extended tail
//! bytes), `MathUtils.murmurHash` and `FlussBucketingFunction.bucketForRowKey`.
//!
//! It covers the key types the routing tests and the `fluss_write` suite use: INT, BIGINT,
//! STRING. Shared by `tests/routing.rs` and `benches/fluss_write.rs`.
#![allow(dead_code)]

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{DataType, Int32Type, Int64Type};

/// Appends `v` as an unsigned varint: 7 bits a byte, low group first, high bit = more.
pub fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v & 0x7F) as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The compacted key of `row`, or `None` when a key column is NULL there.
pub fn compacted_key(batch: &RecordBatch, key_columns: &[usize], row: usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for &c in key_columns {
        let column = batch.column(c);
        if column.is_null(row) {
            return None;
        }
        match column.data_type() {
            // An INT is written as its 32 bits read unsigned.
            DataType::Int32 => {
                let v = column.as_primitive::<Int32Type>().value(row);
                push_varint(&mut out, u64::from(v as u32));
            }
            DataType::Int64 => {
                let v = column.as_primitive::<Int64Type>().value(row);
                push_varint(&mut out, v as u64);
            }
            DataType::Utf8 => {
                let s = column.as_string::<i32>().value(row).as_bytes();
                push_varint(&mut out, s.len() as u64);
                out.extend_from_slice(s);
            }
            other => panic!("the reference encoder has no {other}"),
        }
    }
    Some(out)
}

fn mix_k1(k1: u32) -> u32 {
    let k1 = k1.wrapping_mul(0xCC9E_2D51);
    let k1 = k1.rotate_left(15);
    k1.wrapping_mul(0x1B87_3593)
}

fn mix_h1(h1: u32, k1: u32) -> u32 {
    let h1 = (h1 ^ k1).rotate_left(13);
    h1.wrapping_mul(5).wrapping_add(0xE654_6B64)
}

fn fmix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^ (h >> 16)
}

/// `MurmurHashUtils.hashUnsafeBytes(key, 0, key.length)` with seed 42.
pub fn hash_bytes(key: &[u8]) -> i32 {
    let aligned = key.len() - key.len() % 4;
    let mut h1: u32 = 42;
    let mut i = 0;
    while i < aligned {
        let word = u32::from(key[i])
            | u32::from(key[i + 1]) << 8
            | u32::from(key[i + 2]) << 16
            | u32::from(key[i + 3]) << 24;
        h1 = mix_h1(h1, mix_k1(word));
        i += 4;
    }
    while i < key.len() {
        // A Java byte widened to int keeps its sign.
        let half_word = key[i] as i8 as i32 as u32;
        h1 = mix_h1(h1, mix_k1(half_word));
        i += 1;
    }
    fmix(h1 ^ key.len() as u32) as i32
}

/// `MathUtils.murmurHash(int)`.
pub fn murmur_hash_int(code: i32) -> i32 {
    let code = fmix(mix_h1(0, mix_k1(code as u32)) ^ 4) as i32;
    if code >= 0 {
        code
    } else if code != i32::MIN {
        -code
    } else {
        0
    }
}

/// `FlussBucketingFunction.bucketForRowKey(key, num_buckets)`.
pub fn fluss_bucket(key: &[u8], num_buckets: u32) -> u32 {
    (murmur_hash_int(hash_bytes(key)) % num_buckets as i32) as u32
}

/// The bucket of `row` of `batch`, or `None` when a key column is NULL there.
pub fn row_bucket(
    batch: &RecordBatch,
    key_columns: &[usize],
    row: usize,
    num_buckets: u32,
) -> Option<u32> {
    compacted_key(batch, key_columns, row).map(|key| fluss_bucket(&key, num_buckets))
}
