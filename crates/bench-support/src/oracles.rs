//! Independent models that production results are checked against.
//!
//! Each is written from a specification (Java's, or a textbook algorithm), never from the
//! production code it checks, and is deliberately simple: one value at a time, no tricks.

use std::cmp::Ordering;

/// `java.lang.Double.compare`: `-0.0 < 0.0`, every NaN equal to every other and greater
/// than everything else.
pub fn java_double_compare(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ if a < b => Ordering::Less,
        _ if a > b => Ordering::Greater,
        // Equal by `==`: only the zeros can still differ.
        _ => a.is_sign_positive().cmp(&b.is_sign_positive()),
    }
}

/// Textbook Murmur3 x86_32 (little-endian words, standard tail handling).
pub fn murmur3_32(data: &[u8], seed: u32) -> u32 {
    let (c1, c2) = (0xcc9e_2d51_u32, 0x1b87_3593_u32);
    let mut h = seed;
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let k = u32::from_le_bytes(chunk.try_into().expect("4 bytes"));
        h ^= k.wrapping_mul(c1).rotate_left(15).wrapping_mul(c2);
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        let k = tail
            .iter()
            .rev()
            .fold(0u32, |k, &b| (k << 8) | u32::from(b));
        h ^= k.wrapping_mul(c1).rotate_left(15).wrapping_mul(c2);
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// Flink's key group of a key row, from the documented rules: Murmur3 (seed 42) of the row,
/// Murmur3 (seed 0) of that hash's four little-endian bytes folded to a non-negative int,
/// modulo the max parallelism.
pub fn flink_key_group(row: &[u8], max_parallelism: u32) -> u32 {
    let hash = murmur3_32(row, 42) as i32;
    let scrambled = murmur3_32(&hash.to_le_bytes(), 0) as i32;
    let non_negative = if scrambled == i32::MIN {
        0
    } else {
        scrambled.wrapping_abs()
    };
    non_negative as u32 % max_parallelism
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur3_matches_published_test_vectors() {
        // From the reference implementation's verification set (SMHasher).
        assert_eq!(murmur3_32(b"", 0), 0);
        assert_eq!(murmur3_32(b"", 1), 0x514e_28b7);
        assert_eq!(murmur3_32(b"", 0xffff_ffff), 0x81f1_6f39);
        assert_eq!(murmur3_32(&[0, 0, 0, 0], 0), 0x2362_f9de);
        assert_eq!(murmur3_32(b"aaaa", 0x9747_b28c), 0x5a97_808a);
        assert_eq!(murmur3_32(b"abc", 0), 0xb3dd_93fa);
        assert_eq!(murmur3_32(b"Hello, world!", 0x9747_b28c), 0x2488_4cba);
    }

    #[test]
    fn java_compare_orders_zeros_and_nans() {
        assert_eq!(java_double_compare(-0.0, 0.0), Ordering::Less);
        assert_eq!(java_double_compare(f64::NAN, -f64::NAN), Ordering::Equal);
        assert_eq!(
            java_double_compare(f64::NAN, f64::INFINITY),
            Ordering::Greater
        );
    }
}
