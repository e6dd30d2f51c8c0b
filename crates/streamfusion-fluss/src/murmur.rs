//! The 32-bit Murmur3 hashes Fluss buckets with.
//!
//! - [`fluss_hash_bytes`]: Fluss's `MurmurHashUtils.hashUnsafeBytes` (seed 42): 4-byte
//!   little-endian blocks as in Murmur3, but each tail byte is mixed in as a block of its
//!   own, **sign-extended** (Java reads it as a `byte` into an `int`), where standard Murmur3
//!   packs the tail into one word.
//! - [`fluss_hash_i32`]: Fluss's `MathUtils.murmurHash(int)`: one block, then made
//!   non-negative (`i32::MIN` becomes 0).
//! - [`murmur3_32`]: standard Murmur3 x86 32-bit with seed 0, what Iceberg's bucket
//!   transform uses.
//!
//! Fluss copied the first two from Apache Flink (`MurmurHashUtils.hashBytes`,
//! `MathUtils.murmurHash`), which the engine already computes for Flink's key groups; they are
//! `streamfusion_core::keys::murmur`'s, under Fluss's names here. Fluss's Rust client
//! `fluss-rs` 1.0.0 (`src/util/murmur_hash.rs`) differs from Java: it zero-extends tail bytes
//! (`*byte as u32`) where Java's `int halfWord = UNSAFE.getByte(..)` sign-extends them, so the
//! two disagree on every key whose length is not a multiple of 4 and whose tail holds a byte
//! `>= 0x80` (a compacted BIGINT 200 is `[0xC8, 0x01]`). Fluss's Java writer decides where
//! rows live, so this follows Java; the fluss-rs vectors (whose tails are all ASCII) hold
//! either way. `tests/java/FlussMurmur.java` reproduces the Java values the tests use.
//! [`murmur3_32`] is ported from that file (Apache License 2.0).

pub use streamfusion_core::keys::murmur::{
    hash_bytes as fluss_hash_bytes, murmur_hash as fluss_hash_i32,
};

const C1: u32 = 0xCC9E_2D51;
const C2: u32 = 0x1B87_3593;
const R1: u32 = 15;
const R2: u32 = 13;
const M: u32 = 5;
const N: u32 = 0xE654_6B64;
const BLOCK: usize = 4;

/// Standard Murmur3 x86 32-bit with seed 0.
#[inline]
pub fn murmur3_32(data: &[u8]) -> u32 {
    murmur3_32_with_seed(data, 0)
}

/// Standard Murmur3 x86 32-bit with an explicit seed.
pub fn murmur3_32_with_seed(data: &[u8], seed: u32) -> u32 {
    let blocks = data.chunks_exact(BLOCK);
    let tail = blocks.remainder();
    let mut h1 = hash_blocks(blocks, seed);
    let mut k1 = 0u32;
    for (shift, &byte) in tail.iter().enumerate() {
        k1 |= u32::from(byte) << (8 * shift);
    }
    h1 ^= mix_k1(k1);
    fmix(h1, data.len())
}

#[inline(always)]
fn hash_blocks(blocks: std::slice::ChunksExact<'_, u8>, seed: u32) -> u32 {
    blocks.fold(seed, |h1, block| {
        let k1 = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        mix_h1(h1, mix_k1(k1))
    })
}

#[inline(always)]
fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(C1).rotate_left(R1).wrapping_mul(C2)
}

#[inline(always)]
fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1).rotate_left(R2).wrapping_mul(M).wrapping_add(N)
}

#[inline(always)]
fn fmix(h1: u32, length: usize) -> u32 {
    bit_mix(h1 ^ length as u32)
}

#[inline(always)]
fn bit_mix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^ (h >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOX: &[u8] = b"The quick brown fox jumps over the lazy dog";

    // Golden vectors: fluss-rs 1.0.0 `src/util/murmur_hash.rs`, `test_murmur3`.
    #[test]
    fn standard_murmur3_matches_fluss_vectors() {
        assert_eq!(murmur3_32(&[]), 0);
        assert_eq!(murmur3_32_with_seed(&[], 1), 0x514E_28B7);
        assert_eq!(murmur3_32_with_seed(&[], 0xFFFF_FFFF), 0x81F1_6F39);
        assert_eq!(murmur3_32(FOX), 0x2E4F_F723);
        assert_eq!(murmur3_32_with_seed(FOX, 0x9747_B28C), 0x2FA8_26CD);
    }

    // Golden vectors: fluss-rs 1.0.0 `src/util/murmur_hash.rs`, `test_flink_murmur` (those
    // with Fluss's seed, 42).
    #[test]
    fn fluss_murmur_matches_fluss_vectors() {
        assert_eq!(fluss_hash_bytes(&[]), 0x087F_CD5C);
        assert_eq!(fluss_hash_bytes(FOX), 0x1BC6_F880);
        assert_eq!(fluss_hash_i32(0), 0x2362_F9DE);
        assert_eq!(fluss_hash_i32(42), 0x43A4_6E1D);
        assert_eq!(fluss_hash_i32(-77), 0x2EEB_27DE);
    }

    // Golden: Fluss's Java `MurmurHashUtils.hashUnsafeBytes` and `FlussBucketingFunction`,
    // run on OpenJDK 17 (`tests/java/FlussMurmur.java`), for tails with bytes >= 0x80.
    #[test]
    fn tail_bytes_are_sign_extended_as_java_reads_them() {
        let cases: [(&[u8], u32); 5] = [
            (&[0x80], 0x2E3E_8F7B),
            (&[0xFF], 0x535B_391C),
            (&[0xC8, 0x01], 0x56AA_B02C),
            (
                &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
                0xA4D9_39C0,
            ),
            (&[0x01, 0x02, 0x03, 0x04, 0xAB, 0xCD, 0xEF], 0x09A7_FCA6),
        ];
        for (key, hash) in cases {
            assert_eq!(fluss_hash_bytes(key) as u32, hash, "{key:02X?}");
        }
        // fluss-rs 1.0.0 zero-extends and gets 0x2B1B72E1 for [0x80].
        assert_ne!(fluss_hash_bytes(&[0x80]) as u32, 0x2B1B_72E1);
    }

    #[test]
    fn the_two_variants_differ_only_in_how_the_tail_is_mixed() {
        // Whole blocks: the same hash.
        assert_eq!(
            fluss_hash_bytes(b"abcdefgh") as u32,
            murmur3_32_with_seed(b"abcdefgh", 42)
        );
        // Any tail: Fluss runs each byte through the full block mix, Murmur3 only xors.
        assert_ne!(
            fluss_hash_bytes(b"a") as u32,
            murmur3_32_with_seed(b"a", 42)
        );
        assert_ne!(
            fluss_hash_bytes(b"abcde") as u32,
            murmur3_32_with_seed(b"abcde", 42)
        );
    }

    #[test]
    fn int_hash_is_never_negative() {
        for v in [i32::MIN, -1, 0, 1, i32::MAX, 123_456_789, -987_654_321] {
            assert!(fluss_hash_i32(v) >= 0, "{v}");
        }
    }
}
