//! The state-key layout: `[key group: u16 BE][key][namespace][user key]`.

use std::ops::RangeInclusive;

use crate::error::{Error, Result};

/// Bytes of the key-group prefix.
pub const KEY_GROUP_BYTES: usize = 2;

/// Builds a state key. `key`, `namespace` and `user_key` must each be prefix-free encodings.
pub fn state_key(key_group: u16, key: &[u8], namespace: &[u8], user_key: &[u8]) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(KEY_GROUP_BYTES + key.len() + namespace.len() + user_key.len());
    append_state_key(&mut out, key_group, key, namespace, user_key);
    out
}

/// Appends a state key to `out` (for operators that keep a batch's keys in one buffer).
pub fn append_state_key(
    out: &mut Vec<u8>,
    key_group: u16,
    key: &[u8],
    namespace: &[u8],
    user_key: &[u8],
) {
    out.extend_from_slice(&key_group.to_be_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(namespace);
    out.extend_from_slice(user_key);
}

/// The key group a state key belongs to.
pub fn key_group_of(state_key: &[u8]) -> Result<u16> {
    match state_key {
        [hi, lo, ..] => Ok(u16::from_be_bytes([*hi, *lo])),
        _ => Err(Error::State(format!(
            "a state key needs a {KEY_GROUP_BYTES}-byte key-group prefix, got {} bytes",
            state_key.len()
        ))),
    }
}

/// The byte bounds of a key-group range: `[start, end)`, with `end` `None` when the range
/// reaches the last possible key group.
pub fn key_group_bounds(range: &RangeInclusive<u16>) -> (Vec<u8>, Option<Vec<u8>>) {
    let start = range.start().to_be_bytes().to_vec();
    let end = range.end().checked_add(1).map(|e| e.to_be_bytes().to_vec());
    (start, end)
}

/// A key group as the state layer stores it, checked against Flink's 32,768 upper bound.
pub fn key_group(kg: u32) -> Result<u16> {
    u16::try_from(kg)
        .ok()
        .filter(|kg| u32::from(*kg) < crate::keys::key_groups::UPPER_BOUND_MAX_PARALLELISM)
        .ok_or_else(|| Error::OutOfRange(format!("key group {kg} is outside 0..32768")))
}

/// The smallest key strictly greater than every key starting with `prefix`, or `None` if no
/// such key exists (the prefix is all `0xff`).
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_groups_sort_big_endian_before_keys() {
        let a = state_key(1, b"zz", b"", b"");
        let b = state_key(256, b"aa", b"", b"");
        assert!(a < b);
        assert_eq!(key_group_of(&b).unwrap(), 256);
        assert!(key_group_of(&[1]).is_err());
    }

    #[test]
    fn bounds_cover_exactly_the_range() {
        assert_eq!(key_group_bounds(&(3..=5)), (vec![0, 3], Some(vec![0, 6])));
        assert_eq!(key_group_bounds(&(0..=u16::MAX)).1, None);
        assert_eq!(prefix_successor(&[1, 0xff]), Some(vec![2]));
        assert_eq!(prefix_successor(&[0xff, 0xff]), None);
        assert!(key_group(32768).is_err());
        assert_eq!(key_group(32767).unwrap(), 32767);
    }
}
