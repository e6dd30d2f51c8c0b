//! Flink's Murmur3 variants: `MurmurHashUtils` (seed 42, over row bytes) and
//! `MathUtils.murmurHash(int)` (the key-group scrambler).
//!
//! All arithmetic is Java `int` arithmetic: wrapping, with `>>>` as a logical shift.

const C1: i32 = 0xcc9e_2d51_u32 as i32;
const C2: i32 = 0x1b87_3593_u32 as i32;
/// `MurmurHashUtils.DEFAULT_SEED`.
pub const DEFAULT_SEED: i32 = 42;

#[inline]
fn mix_k1(k: i32) -> i32 {
    k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

#[inline]
fn mix_h1(h: i32, k: i32) -> i32 {
    (h ^ k)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64_u32 as i32)
}

#[inline]
fn fmix(h: i32, len: usize) -> i32 {
    let mut h = (h ^ len as i32) as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}

#[inline]
fn word(bytes: &[u8], at: usize) -> i32 {
    // `MemorySegment.getInt` reads native (little-endian) order on every platform Flink
    // runs on; the golden vectors pin that.
    i32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The murmur state `h` after the words of `bytes` (whose length is a multiple of 4).
#[inline]
fn mix_words(h: i32, bytes: &[u8]) -> i32 {
    bytes
        .chunks_exact(4)
        .fold(h, |h, w| mix_h1(h, mix_k1(word(w, 0))))
}

/// `MurmurHashUtils.hashBytesByWords(segment, 0, len)` with seed 42: `bytes.len()` must be
/// a multiple of 4 (a `BinaryRowData` is always a multiple of 8).
///
/// # Panics
/// If the length is not a multiple of 4.
pub fn hash_bytes_by_words(bytes: &[u8]) -> i32 {
    assert!(
        bytes.len().is_multiple_of(4),
        "hash_bytes_by_words needs a multiple of 4 bytes, got {}",
        bytes.len()
    );
    fmix(mix_words(DEFAULT_SEED, bytes), bytes.len())
}

/// [`hash_bytes_by_words`] of four rows at once: their word rounds are interleaved, so the
/// CPU runs four independent dependency chains instead of one. Worth it for long rows only
/// (see `KeyHasher::hashes` and decisions 0003 and 0008).
///
/// # Panics
/// If a length is not a multiple of 4.
pub fn hash4_bytes_by_words(rows: [&[u8]; 4]) -> [i32; 4] {
    for row in rows {
        assert!(
            row.len().is_multiple_of(4),
            "hash4_bytes_by_words needs multiples of 4 bytes, got {}",
            row.len()
        );
    }
    let common = rows.iter().map(|r| r.len()).min().unwrap_or(0);
    let [a, b, c, d] = rows.map(|r| r[..common].chunks_exact(4));
    let mut h = [DEFAULT_SEED; 4];
    for (((wa, wb), wc), wd) in a.zip(b).zip(c).zip(d) {
        h[0] = mix_h1(h[0], mix_k1(word(wa, 0)));
        h[1] = mix_h1(h[1], mix_k1(word(wb, 0)));
        h[2] = mix_h1(h[2], mix_k1(word(wc, 0)));
        h[3] = mix_h1(h[3], mix_k1(word(wd, 0)));
    }
    std::array::from_fn(|lane| {
        let row = rows[lane];
        fmix(mix_words(h[lane], &row[common..]), row.len())
    })
}

/// [`hash_bytes_by_words`] of eight rows at once with AVX2, when the CPU has it (`None`
/// otherwise): the rows' common length is hashed in blocks of eight words, the eight rows'
/// blocks transposed so that one vector holds the same word of every row, and the rest of
/// each row serially. Worth it for long rows only, as [`hash4_bytes_by_words`] is.
///
/// # Panics
/// If a length is not a multiple of 4.
pub fn hash8_bytes_by_words(rows: [&[u8]; 8]) -> Option<[i32; 8]> {
    for row in rows {
        assert!(
            row.len().is_multiple_of(4),
            "hash8_bytes_by_words needs multiples of 4 bytes, got {}",
            row.len()
        );
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        let common = rows.iter().map(|r| r.len()).min().unwrap_or(0);
        let blocked = common / 32 * 32;
        // SAFETY: AVX2 was detected just above, and `blocked` is within every row.
        let h = unsafe { avx2::hash8_blocks(rows, blocked) };
        return Some(std::array::from_fn(|lane| {
            let row = rows[lane];
            fmix(mix_words(h[lane], &row[blocked..]), row.len())
        }));
    }
    None
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_mullo_epi32, _mm256_or_si256,
        _mm256_permute2x128_si256, _mm256_set1_epi32, _mm256_slli_epi32, _mm256_srli_epi32,
        _mm256_storeu_si256, _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpacklo_epi32,
        _mm256_unpacklo_epi64, _mm256_xor_si256,
    };

    use super::{C1, C2, DEFAULT_SEED};

    /// The murmur states of eight rows after their first `len` bytes (a multiple of 32,
    /// within every row), before `fmix`.
    ///
    /// # Safety
    /// The CPU must support AVX2, and every row must be at least `len` bytes long.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn hash8_blocks(rows: [&[u8]; 8], len: usize) -> [i32; 8] {
        let c1 = _mm256_set1_epi32(C1);
        let c2 = _mm256_set1_epi32(C2);
        let add = _mm256_set1_epi32(0xe654_6b64_u32 as i32);
        let mut h = _mm256_set1_epi32(DEFAULT_SEED);
        for at in (0..len).step_by(32) {
            // SAFETY: `at + 32 <= len`, which every row is at least long; unaligned loads.
            let r: [__m256i; 8] = std::array::from_fn(|lane| unsafe {
                _mm256_loadu_si256(rows[lane][at..at + 32].as_ptr().cast())
            });
            for k in transpose(r) {
                let k = _mm256_mullo_epi32(k, c1);
                let k = _mm256_or_si256(_mm256_slli_epi32(k, 15), _mm256_srli_epi32(k, 17));
                let k = _mm256_mullo_epi32(k, c2);
                h = _mm256_xor_si256(h, k);
                h = _mm256_or_si256(_mm256_slli_epi32(h, 13), _mm256_srli_epi32(h, 19));
                h = _mm256_add_epi32(_mm256_add_epi32(_mm256_slli_epi32(h, 2), h), add);
            }
        }
        let mut out = [0i32; 8];
        // SAFETY: `out` is 32 bytes; an unaligned store.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), h) };
        out
    }

    /// Eight rows of eight words in, the eight words of every row out: `out[j]` holds word
    /// `j` of rows 0..8.
    #[target_feature(enable = "avx2")]
    fn transpose(r: [__m256i; 8]) -> [__m256i; 8] {
        let t0 = _mm256_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm256_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm256_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm256_unpackhi_epi32(r[2], r[3]);
        let t4 = _mm256_unpacklo_epi32(r[4], r[5]);
        let t5 = _mm256_unpackhi_epi32(r[4], r[5]);
        let t6 = _mm256_unpacklo_epi32(r[6], r[7]);
        let t7 = _mm256_unpackhi_epi32(r[6], r[7]);
        let u0 = _mm256_unpacklo_epi64(t0, t2);
        let u1 = _mm256_unpackhi_epi64(t0, t2);
        let u2 = _mm256_unpacklo_epi64(t1, t3);
        let u3 = _mm256_unpackhi_epi64(t1, t3);
        let u4 = _mm256_unpacklo_epi64(t4, t6);
        let u5 = _mm256_unpackhi_epi64(t4, t6);
        let u6 = _mm256_unpacklo_epi64(t5, t7);
        let u7 = _mm256_unpackhi_epi64(t5, t7);
        [
            _mm256_permute2x128_si256::<0x20>(u0, u4),
            _mm256_permute2x128_si256::<0x20>(u1, u5),
            _mm256_permute2x128_si256::<0x20>(u2, u6),
            _mm256_permute2x128_si256::<0x20>(u3, u7),
            _mm256_permute2x128_si256::<0x31>(u0, u4),
            _mm256_permute2x128_si256::<0x31>(u1, u5),
            _mm256_permute2x128_si256::<0x31>(u2, u6),
            _mm256_permute2x128_si256::<0x31>(u3, u7),
        ]
    }
}

/// `MurmurHashUtils.hashBytes(segment, 0, len)` with seed 42, any length: words, then one
/// full mixing round per tail byte (sign-extended), which is Flink's and not Murmur3's tail.
pub fn hash_bytes(bytes: &[u8]) -> i32 {
    let aligned = bytes.len() - bytes.len() % 4;
    let mut h = mix_words(DEFAULT_SEED, &bytes[..aligned]);
    for &b in &bytes[aligned..] {
        h = mix_h1(h, mix_k1(i32::from(b as i8)));
    }
    fmix(h, bytes.len())
}

/// `MathUtils.murmurHash(int)`: Murmur3 of one int (seed 0), folded to a non-negative int.
pub fn murmur_hash(code: i32) -> i32 {
    let mut code = mix_k1(code);
    code = code
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64_u32 as i32);
    let code = fmix(code, 4);
    if code >= 0 {
        code
    } else if code != i32::MIN {
        -code
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_support::oracles::murmur3_32;

    #[test]
    fn word_hashing_is_standard_murmur3_with_seed_42() {
        for len in [0usize, 4, 8, 16, 64] {
            let data: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(
                hash_bytes_by_words(&data) as u32,
                murmur3_32(&data, 42),
                "len {len}"
            );
            assert_eq!(hash_bytes(&data), hash_bytes_by_words(&data));
        }
    }

    #[test]
    fn four_rows_at_once_hash_as_one_at_a_time() {
        let data: Vec<u8> = (0..1200u32).map(|i| (i * 131 + 7) as u8).collect();
        for lens in [
            [0, 0, 0, 0],
            [4, 8, 12, 16],
            [264, 264, 264, 264],
            [280, 0, 1024, 64],
            [1024, 272, 4, 520],
        ] {
            let rows: [&[u8]; 4] = std::array::from_fn(|i| &data[i * 7 * 4..i * 7 * 4 + lens[i]]);
            assert_eq!(
                hash4_bytes_by_words(rows),
                rows.map(hash_bytes_by_words),
                "lengths {lens:?}"
            );
        }
    }

    #[test]
    fn eight_rows_at_once_hash_as_one_at_a_time() {
        let data: Vec<u8> = (0..9000u32).map(|i| (i * 131 + 7) as u8).collect();
        for lens in [
            [0; 8],
            [4, 8, 12, 16, 20, 24, 28, 32],
            [264; 8],
            [288, 288, 288, 288, 288, 288, 288, 292],
            [280, 0, 1024, 64, 32, 36, 4, 96],
            [1024, 272, 4, 520, 1000, 64, 32, 128],
        ] {
            let rows: [&[u8]; 8] =
                std::array::from_fn(|i| &data[i * 1001 / 4 * 4..i * 1001 / 4 * 4 + lens[i]]);
            // `None` only where the CPU lacks AVX2: there is nothing to compare then.
            if let Some(hashes) = hash8_bytes_by_words(rows) {
                assert_eq!(hashes, rows.map(hash_bytes_by_words), "lengths {lens:?}");
            }
        }
    }

    #[test]
    fn math_utils_murmur_is_murmur3_of_the_little_endian_int_then_abs() {
        for code in [0, 1, -1, 42, i32::MIN, i32::MAX, 123_456_789] {
            let standard = murmur3_32(&code.to_le_bytes(), 0) as i32;
            let expected = if standard == i32::MIN {
                0
            } else {
                standard.wrapping_abs()
            };
            assert_eq!(murmur_hash(code), expected, "{code}");
            assert!(murmur_hash(code) >= 0);
        }
    }

    #[test]
    fn tail_bytes_get_a_full_round_each_with_sign_extension() {
        // Not standard Murmur3: a 5-byte input differs from the reference tail handling.
        let data = [1u8, 2, 3, 4, 0xff];
        let mut h = mix_h1(DEFAULT_SEED, mix_k1(i32::from_le_bytes([1, 2, 3, 4])));
        h = mix_h1(h, mix_k1(-1));
        assert_eq!(hash_bytes(&data), fmix(h, 5));
        assert_ne!(hash_bytes(&data) as u32, murmur3_32(&data, 42));
    }
}
