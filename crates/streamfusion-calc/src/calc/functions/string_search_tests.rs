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

#[test]
fn character_class_tests_read_utf16_units_with_jdk17_tables() {
    // Character.isLetter / isDigit on JDK 17 (Unicode 13).
    assert!(is_alpha("abcÄß"));
    assert!(is_alpha("日本語"));
    assert!(!is_alpha("ab1"));
    assert!(!is_alpha("a b"));
    // U+1D49C MATHEMATICAL SCRIPT CAPITAL A is a letter, but Java tests its surrogates.
    assert!(!is_alpha("\u{1D49C}"));
    // U+16A ROMAN NUMERAL ONE (Nl) is alphabetic for Rust, not a letter for Java.
    assert!(!is_alpha("\u{2160}"));
    assert!(is_digit("0123"));
    assert!(is_digit("\u{661}\u{662}"));
    assert!(!is_digit("²"));
    assert!(!is_digit("-1"));
    assert!(!is_digit("1.5"));
}

#[test]
fn is_decimal_is_long_or_double_parsing() {
    for yes in [
        "1",
        "-1",
        "+7",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "1.5",
        ".5",
        "5.",
        "1e5",
        "1E-5",
        "1.e5",
        " 1.5 ",
        "\t2\n",
        "NaN",
        "-Infinity",
        "1d",
        "1.5F",
        "0x1p3",
        "0X1.8P-1d",
        "0x.8p1",
        "\u{661}\u{662}",
        "1e999",
    ] {
        assert!(is_decimal(yes), "{yes}");
    }
    for no in [
        "",
        " ",
        "abc",
        "1e",
        "e5",
        ".",
        "+",
        "-",
        "1.2.3",
        "0x1",
        "0x1.8",
        "nan",
        "infinity",
        "Infinityx",
        "1 2",
        "1ff",
        "\u{661}.5",
        "99999999999999999999e",
        "1_000",
        "١.5",
    ] {
        assert!(!is_decimal(no), "{no:?}");
    }
}
