//! Tests of the regular-expression and split functions: expected values are Flink 2.3.0's
//! (run through released Flink), never computed by the functions under test.

use super::*;

fn count(s: &str, p: &str) -> i32 {
    let re = JavaRegex::new(p).unwrap();
    let mut n = 0;
    find_all(&re, s, "test", |_| {
        n += 1;
        Ok(true)
    })
    .unwrap();
    n
}

#[test]
fn matches_are_counted_as_javas_successive_finds() {
    assert_eq!(count("foo123bar45", "\\d+"), 2);
    assert_eq!(count("abc", ""), 4);
    // Java also matches between the halves of the emoji.
    assert_eq!(count("a😀b", ""), 5);
    assert_eq!(count("aaa", "a*"), 2);
    assert_eq!(count("", ""), 1);
    assert_eq!(count("日本123", "\\d"), 3);
}

#[test]
fn extract_all_defaults_to_group_one_and_keeps_absent_groups_null() {
    let all =
        |s: &str, p: &str, g: Option<i32>| extract_all(&JavaRegex::new(p).unwrap(), s, g).unwrap();
    let some = |v: &[Option<&str>]| Some(v.iter().map(|x| x.map(str::to_owned)).collect());
    assert_eq!(all("a1b22c333", "\\d+", Some(1)), None);
    assert_eq!(
        all("a1b22c333", "\\d+", Some(0)),
        some(&[Some("1"), Some("22"), Some("333")])
    );
    assert_eq!(
        all("a1bc3", "([a-z])(\\d)?", Some(2)),
        some(&[Some("1"), None, Some("3")])
    );
    assert_eq!(
        all("xyz", "x*", Some(0)),
        some(&[Some("x"), Some(""), Some(""), Some("")])
    );
    assert_eq!(all("a1b2", "([a-z])(\\d)", Some(-1)), None);
    assert_eq!(all("a1b2", "([a-z])(\\d)", None), None);
    assert!(extract_all(&JavaRegex::new("").unwrap(), "😀", Some(0)).is_err());
}

#[test]
fn split_keeps_empty_pieces_and_splits_utf16_units_on_an_empty_delimiter() {
    let of = |v: &[&str]| v.iter().map(|x| Some((*x).to_owned())).collect::<Vec<_>>();
    assert_eq!(split("a,b,,c", ","), of(&["a", "b", "", "c"]));
    assert_eq!(split(",a,", ","), of(&["", "a", ""]));
    assert_eq!(split("a😀", ""), of(&["a", "?", "?"]));
    assert_eq!(split("", ","), of(&[]));
    assert_eq!(split("", ""), of(&[]));
    assert_eq!(split("a--b---c", "--"), of(&["a", "b", "-c"]));
    assert_eq!(split("日本日", "本"), of(&["日", "日"]));
}

#[test]
fn group_count_is_javas() {
    assert_eq!(JavaRegex::new("(a)(b)").unwrap().group_count(), 2);
    assert_eq!(JavaRegex::new("\\d+").unwrap().group_count(), 0);
    assert_eq!(JavaRegex::new("(?:a)(?<n>b)").unwrap().group_count(), 1);
}
