//! Tests of the string searches: expected values are Flink 2.3.0's (run through its generated
//! code or worked by hand from its Java), never computed by the functions under test.

use super::*;

/// `SqlFunctionUtils.position(seek, s, from)`.
fn locate(needle: &str, s: &str, from: i32) -> i32 {
    index_of(s, needle, from.wrapping_sub(1)) + 1
}

#[test]
fn locate_counts_code_points_and_finds_an_empty_needle_at_one() {
    assert_eq!(locate("an", "banana", 1), 2);
    assert_eq!(locate("an", "banana", 3), 4);
    assert_eq!(locate("an", "banana", -1), 2);
    assert_eq!(locate("an", "banana", 100), 0);
    assert_eq!(locate("an", "banana", i32::MIN), 0);
    assert_eq!(locate("", "banana", 5), 1);
    assert_eq!(locate("", "", 1), 1);
    assert_eq!(locate("a", "", 1), 0);
    assert_eq!(locate("本", "日本日本", 3), 4);
    assert_eq!(locate("b", "a😀b😀", 1), 3);
}

#[test]
fn instr_searches_overlapping_occurrences_both_ways() {
    let cases = [
        ("banana", "an", 1, 1, 2),
        ("banana", "an", 1, 2, 4),
        ("banana", "an", -1, 1, 4),
        ("banana", "an", -1, 2, 2),
        ("banana", "ana", 1, 2, 4),
        ("aaa", "aa", 1, 2, 2),
        ("banana", "a", -2, 1, 4),
        ("banana", "", 3, 1, 1),
        ("banana", "", -3, 1, 7),
        ("日本日本", "本", -1, 1, 4),
        ("a😀b😀", "😀", -1, 2, 2),
        ("banana", "an", 0, 1, 0),
        ("banana", "an", 10, 1, 0),
        ("banana", "an", -10, 1, 0),
    ];
    for (s, sub, start, nth, want) in cases {
        assert_eq!(
            instr(s, sub, start, nth).unwrap(),
            want,
            "{s} {sub} {start} {nth}"
        );
    }
    assert!(instr("banana", "an", 1, 0).is_err());
    assert!(instr("banana", "an", i32::MIN, 1).is_err());
}
