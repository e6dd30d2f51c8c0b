//! Tests of the string edits: expected values are Flink 2.3.0's (run through its generated code
//! or worked by hand from its Java), never computed by the functions under test.

use super::*;

#[test]
fn left_and_right_count_code_points_and_give_empty_for_non_positive_lengths() {
    assert_eq!(left_of("a😀b", 2), "a😀");
    assert_eq!(right_of("a😀b", 2), "😀b");
    assert_eq!(left_of("日本語です", 3), "日本語");
    assert_eq!(right_of("日本語です", 3), "語です");
    for n in [0, -1, i32::MIN] {
        assert_eq!(left_of("abc", n), "");
        assert_eq!(right_of("abc", n), "");
    }
    assert_eq!(left_of("abc", i32::MAX), "abc");
    assert_eq!(right_of("abc", i32::MAX), "abc");
    assert_eq!(right_of("", 1), "");
}

fn overlay_of(s: &str, r: &str, start: i32, len: i32) -> DfResult<String> {
    let s16: Vec<u16> = s.encode_utf16().collect();
    let mut out = String::new();
    overlay(s, &s16, r, start, len, &mut out)?;
    Ok(out)
}

#[test]
fn overlay_works_on_utf16_units_and_drops_the_rest_for_non_positive_lengths() {
    // SqlFunctionUtils.overlay, as released Flink computes it.
    let cases = [
        ("abcdef", "XY", 2, 1, "aXYcdef"),
        ("abcdef", "XY", 2, 0, "aXY"),
        ("abcdef", "XY", 2, -1, "aXY"),
        ("abcdef", "XY", 0, 2, "abcdef"),
        ("abcdef", "XY", 7, 1, "abcdef"),
        ("abcdef", "XY", 6, 1, "abcdeXY"),
        ("abcdef", "XY", 5, 5, "abcdXY"),
        ("abcdef", "", 3, 2, "abef"),
        ("a😀b", "X", 2, 1, "aX?b"),
        ("a😀b", "X", 3, 1, "a?Xb"),
        // The two halves left around an empty replacement pair up again.
        ("😀😀", "", 2, 2, "😀"),
        ("", "X", 1, 1, ""),
    ];
    for (s, r, start, len, want) in cases {
        assert_eq!(
            overlay_of(s, r, start, len).unwrap(),
            want,
            "{s} {r} {start} {len}"
        );
    }
    // Java: StringIndexOutOfBoundsException "begin -2147483648, end 3, length 3".
    let err = overlay_of("abc", "X", 2, i32::MAX).unwrap_err().to_string();
    assert!(err.contains("begin -2147483648"), "{err}");
}

#[test]
fn translation_keeps_the_first_mapping_and_deletes_past_the_end_of_to() {
    let apply = |s: &str, from: &str, to: &str| -> String {
        let map = translation(from, to);
        s.chars()
            .filter_map(|c| match map.get(&c) {
                None => Some(c),
                Some(t) => *t,
            })
            .collect()
    };
    assert_eq!(apply("hello", "el", "ip"), "hippo");
    assert_eq!(apply("hello", "elo", "i"), "hi");
    assert_eq!(apply("hello", "ll", "ab"), "heaao");
    assert_eq!(apply("a😀b", "😀", "x"), "axb");
    assert_eq!(apply("abc", "abc", "日本語"), "日本語");
}
