//! Key-group assignment exactly as `KeyGroupRangeAssignment` computes it.
//!
//! ```text
//! key group      = MathUtils.murmurHash(key.hashCode()) % maxParallelism
//! operator index = keyGroup * parallelism / maxParallelism
//! range of i     = [(i * maxP + p - 1) / p, ((i + 1) * maxP - 1) / p]
//! ```

use std::ops::RangeInclusive;

use crate::error::{Error, Result};
use crate::keys::murmur::murmur_hash;

/// `KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM` (1 << 15).
pub const UPPER_BOUND_MAX_PARALLELISM: u32 = 1 << 15;
/// `KeyGroupRangeAssignment.DEFAULT_LOWER_BOUND_MAX_PARALLELISM`.
pub const DEFAULT_LOWER_BOUND_MAX_PARALLELISM: u32 = 128;

/// A validated `(maxParallelism, parallelism)` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parallelism {
    max: u32,
    current: u32,
}

impl Parallelism {
    /// Checks `1 <= parallelism <= max_parallelism <= 32768`, as Flink does.
    pub fn try_new(max_parallelism: u32, parallelism: u32) -> Result<Self> {
        check_max_parallelism(max_parallelism)?;
        if parallelism == 0 || parallelism > max_parallelism {
            return Err(Error::OutOfRange(format!(
                "parallelism {parallelism} must be in 1..={max_parallelism} (the max parallelism)"
            )));
        }
        Ok(Self {
            max: max_parallelism,
            current: parallelism,
        })
    }

    /// The max parallelism (number of key groups).
    pub fn max(&self) -> u32 {
        self.max
    }

    /// The parallelism.
    pub fn current(&self) -> u32 {
        self.current
    }

    /// `computeOperatorIndexForKeyGroup`.
    pub fn operator_index(&self, key_group: u32) -> u32 {
        debug_assert!(key_group < self.max);
        key_group * self.current / self.max
    }

    /// `computeKeyGroupRangeForOperatorIndex`: the key groups of subtask `index`.
    pub fn key_group_range(&self, index: u32) -> Result<RangeInclusive<u32>> {
        if index >= self.current {
            return Err(Error::OutOfRange(format!(
                "operator index {index} must be below the parallelism {}",
                self.current
            )));
        }
        let (max, p) = (self.max, self.current);
        Ok((index * max).div_ceil(p)..=((index + 1) * max - 1) / p)
    }
}

fn check_max_parallelism(max_parallelism: u32) -> Result<()> {
    if max_parallelism == 0 || max_parallelism > UPPER_BOUND_MAX_PARALLELISM {
        return Err(Error::OutOfRange(format!(
            "max parallelism {max_parallelism} must be in 1..={UPPER_BOUND_MAX_PARALLELISM}"
        )));
    }
    Ok(())
}

/// `computeKeyGroupForKeyHash(hash, maxParallelism)` for many hashes.
pub fn key_groups_for_hashes(hashes: &[i32], max_parallelism: u32) -> Result<Vec<u32>> {
    check_max_parallelism(max_parallelism)?;
    Ok(hashes
        .iter()
        .map(|&h| murmur_hash(h) as u32 % max_parallelism)
        .collect())
}

/// `computeDefaultMaxParallelism(parallelism)`:
/// `min(max(roundUpToPowerOfTwo(p + p / 2), 128), 32768)`.
pub fn default_max_parallelism(parallelism: u32) -> u32 {
    let wanted = parallelism.saturating_add(parallelism / 2);
    round_up_to_power_of_two(wanted).clamp(
        DEFAULT_LOWER_BOUND_MAX_PARALLELISM,
        UPPER_BOUND_MAX_PARALLELISM,
    )
}

/// `MathUtils.roundUpToPowerOfTwo` on Java ints (0 maps to 0, values above 2^30 overflow to
/// `i32::MIN` in Java; here they saturate, which the clamp above makes unobservable).
fn round_up_to_power_of_two(x: u32) -> u32 {
    if x == 0 {
        0
    } else {
        x.checked_next_power_of_two().unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_partition_the_key_groups_and_agree_with_operator_index() {
        for (max, p) in [
            (128, 1),
            (128, 3),
            (128, 7),
            (4096, 5),
            (32768, 128),
            (7, 7),
        ] {
            let par = Parallelism::try_new(max, p).unwrap();
            let mut next = 0;
            for index in 0..p {
                let range = par.key_group_range(index).unwrap();
                assert_eq!(*range.start(), next, "max {max} p {p} index {index}");
                for kg in range.clone() {
                    assert_eq!(par.operator_index(kg), index);
                }
                next = range.end() + 1;
            }
            assert_eq!(next, max);
        }
    }

    #[test]
    fn invalid_parallelism_is_refused() {
        assert!(Parallelism::try_new(0, 1).is_err());
        assert!(Parallelism::try_new(32769, 1).is_err());
        assert!(Parallelism::try_new(128, 0).is_err());
        assert!(Parallelism::try_new(128, 129).is_err());
        assert!(
            Parallelism::try_new(128, 3)
                .unwrap()
                .key_group_range(3)
                .is_err()
        );
        assert!(key_groups_for_hashes(&[1], 0).is_err());
    }

    #[test]
    fn default_max_parallelism_matches_the_formula() {
        assert_eq!(default_max_parallelism(1), 128);
        assert_eq!(default_max_parallelism(85), 128);
        assert_eq!(default_max_parallelism(86), 256);
        assert_eq!(default_max_parallelism(30000), 32768);
    }
}
