//! Tests of the string functions: expected values are worked by hand from Flink's (Java)
//! implementations, never computed by the functions under test.

use super::*;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::{Field, Schema};

use crate::calc::program::{CalcProgram, Expr};
use crate::calc::{CalcError, compile};
use crate::changelog::ChangelogBatch;

fn s(v: &str) -> Expr {
    Expr::lit(STRING, v)
}

fn int(v: i32) -> Expr {
    Expr::lit(LogicalType::Int, v.to_string())
}

/// The test input: `f0 STRING`, `f1 INT`, `f2 VARCHAR(5)`, `f3 CHAR(3)`.
fn input_types() -> Vec<LogicalType> {
    vec![
        STRING,
        LogicalType::Int,
        LogicalType::VarChar(5),
        LogicalType::Char(3),
    ]
}

/// One row of the test input.
type Row<'a> = (
    Option<&'a str>,
    Option<i32>,
    Option<&'a str>,
    Option<&'a str>,
);

/// Rows of the test input.
fn batch(rows: &[Row<'_>]) -> ChangelogBatch {
    let types = input_types();
    let schema = Arc::new(Schema::new(
        types
            .iter()
            .enumerate()
            .map(|(i, t)| Field::new(format!("f{i}"), t.to_arrow(), true))
            .collect::<Vec<_>>(),
    ));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(
            rows.iter().map(|r| r.0).collect::<Vec<_>>(),
        )),
        Arc::new(Int32Array::from(
            rows.iter().map(|r| r.1).collect::<Vec<_>>(),
        )),
        Arc::new(StringArray::from(
            rows.iter().map(|r| r.2).collect::<Vec<_>>(),
        )),
        Arc::new(StringArray::from(
            rows.iter().map(|r| r.3).collect::<Vec<_>>(),
        )),
    ];
    ChangelogBatch::insert_only(RecordBatch::try_new(schema, columns).unwrap())
}

/// `op(args)` over `rows`: the result type and the values as strings (INT results printed).
fn eval(op: u16, args: Vec<Expr>, rows: &[Row<'_>]) -> (LogicalType, Vec<Option<String>>) {
    let calc = compile(
        &CalcProgram::project(vec![Expr::call(op, args)]),
        &input_types(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = calc
        .evaluate(&batch(rows))
        .unwrap_or_else(|e| panic!("{e}"));
    let col = out.batch().column(0);
    let values = if let Some(strings) = col.as_string_opt::<i32>() {
        strings.iter().map(|v| v.map(str::to_owned)).collect()
    } else {
        col.as_primitive::<arrow::datatypes::Int32Type>()
            .iter()
            .map(|v| v.map(|v| v.to_string()))
            .collect()
    };
    (calc.output_types()[0].clone(), values)
}

/// `op(f0, extra...)` over the given `f0` values.
fn eval_str(op: u16, extra: Vec<Expr>, values: &[Option<&str>]) -> Vec<Option<String>> {
    let rows: Vec<_> = values.iter().map(|v| (*v, None, None, None)).collect();
    let mut args = vec![Expr::input(0)];
    args.extend(extra);
    eval(op, args, &rows).1
}

fn some(values: &[&str]) -> Vec<Option<String>> {
    values.iter().map(|v| Some((*v).to_owned())).collect()
}

fn bind_error(op: u16, args: Vec<Expr>) -> String {
    let err = compile(
        &CalcProgram::project(vec![Expr::call(op, args)]),
        &input_types(),
    )
    .unwrap_err();
    assert!(matches!(err, CalcError::ArgumentTypes { .. }), "{err:?}");
    err.to_string()
}

#[test]
fn upper_and_lower_use_javas_full_case_mapping() {
    assert_eq!(
        eval_str(
            UPPER,
            vec![],
            &[Some("abc"), Some("straße"), Some("ǆ😀x"), None]
        ),
        vec![
            Some("ABC".into()),
            Some("STRASSE".into()),
            Some("Ǆ😀X".into()),
            None
        ]
    );
    // Final sigma: "ΟΔΟΣ".toLowerCase() is "οδος" in Java.
    assert_eq!(
        eval_str(LOWER, vec![], &[Some("ÀB"), Some("ΟΔΟΣ"), Some("ABC")]),
        some(&["àb", "οδος", "abc"])
    );
    // Java (root locale): "İ".toLowerCase() is "i\u0307", "ŉ".toUpperCase() is "\u02BCN",
    // and only a word-final sigma becomes ς.
    assert_eq!(
        eval_str(LOWER, vec![], &[Some("İ"), Some("ΣΑΣ ΑΣ")]),
        some(&["i\u{307}", "σας ας"])
    );
    assert_eq!(eval_str(UPPER, vec![], &[Some("ŉ")]), some(&["\u{2BC}N"]));
    // UPPER keeps the argument's type.
    let (ty, _) = eval(
        UPPER,
        vec![Expr::input(3)],
        &[(None, None, None, Some("ab "))],
    );
    assert_eq!(ty, LogicalType::Char(3));
}

#[test]
fn initcap_changes_ascii_letters_only() {
    // SqlFunctionUtils.initcap: digits end a word start; a non-ASCII char starts a new word
    // only after a letter or digit.
    assert_eq!(
        eval_str(
            INITCAP,
            vec![],
            &[
                Some("hello wORLD"),
                Some("a1b c-d"),
                Some("éa aéb"),
                Some("")
            ]
        ),
        some(&["Hello World", "A1b C-D", "éA AéB", ""])
    );
}

#[test]
fn substring_follows_substring_sql() {
    let cases: &[(&str, i32, Option<i32>, Option<&str>)] = &[
        ("abcdef", 2, Some(3), Some("bcd")),
        ("abcdef", 0, Some(2), Some("ab")),
        ("abcdef", -2, None, Some("ef")),
        ("abcdef", -2, Some(5), Some("ef")),
        ("abcdef", -7, Some(2), Some("")),
        ("abcdef", 7, None, Some("")),
        ("abcdef", 2, Some(-1), None),
        ("abcdef", 2, Some(0), Some("")),
        ("abcdef", i32::MIN, Some(i32::MAX), Some("")),
        ("abcdef", 3, Some(i32::MAX), Some("cdef")),
        ("a😀ßc", 2, Some(2), Some("😀ß")),
        ("", 1, Some(1), Some("")),
    ];
    for &(value, pos, len, expected) in cases {
        assert_eq!(
            substring(value, pos, len.unwrap_or(i32::MAX)),
            expected,
            "{value} {pos} {len:?}"
        );
    }
    let (ty, out) = eval(
        SUBSTRING,
        vec![Expr::input(2), Expr::input(1), int(2)],
        &[
            (None, Some(2), Some("hello"), None),
            (None, None, Some("hello"), None),
            (None, Some(-3), Some("hello"), None),
        ],
    );
    assert_eq!(ty, LogicalType::VarChar(5));
    assert_eq!(out, vec![Some("el".into()), None, Some("ll".into())]);
    let (ty, _) = eval(
        SUBSTRING,
        vec![Expr::input(3), int(1)],
        &[(None, None, None, None)],
    );
    assert_eq!(ty, LogicalType::VarChar(3));
}

#[test]
fn concat_types_and_nulls() {
    let rows = [
        (Some("ab"), None, Some("xy"), Some("c  ")),
        (None, None, Some("xy"), Some("c  ")),
    ];
    let (ty, out) = eval(CONCAT_OP, vec![Expr::input(2), Expr::input(3)], &rows);
    assert_eq!(ty, LogicalType::VarChar(8));
    assert_eq!(out, vec![Some("xyc  ".into()), Some("xyc  ".into())]);
    let (ty, _) = eval(CONCAT_OP, vec![Expr::input(3), Expr::input(3)], &rows);
    assert_eq!(ty, LogicalType::Char(6));
    let (ty, _) = eval(CONCAT_OP, vec![Expr::input(0), Expr::input(2)], &rows);
    assert_eq!(ty, LogicalType::VarChar(i32::MAX as u32));
    let (ty, out) = eval(CONCAT, vec![Expr::input(0), s("-"), Expr::input(2)], &rows);
    assert_eq!(ty, STRING);
    assert_eq!(out, vec![Some("ab-xy".into()), None]);
}

#[test]
fn concat_ws_skips_nulls_and_a_null_separator_is_null() {
    let rows = [
        (Some("a"), None, Some("b"), None),
        (None, None, Some("b"), None),
        (None, None, None, None),
    ];
    let (ty, out) = eval(
        CONCAT_WS,
        vec![s("~"), Expr::input(0), Expr::input(2), s("c")],
        &rows,
    );
    assert_eq!(ty, STRING);
    assert_eq!(out, some(&["a~b~c", "b~c", "c"]));
    let (_, out) = eval(CONCAT_WS, vec![Expr::input(0), s("x"), s("y")], &rows);
    assert_eq!(out, vec![Some("xay".into()), None, None]);
    let (_, out) = eval(CONCAT_WS, vec![s(","), Expr::input(3)], &rows);
    assert_eq!(out, some(&["", "", ""]));
}

#[test]
fn trims_strip_spaces_or_the_given_characters() {
    let values = [Some("  a b  "), Some("xyaxy"), None, Some("   ")];
    assert_eq!(
        eval_str(TRIM_BOTH, vec![], &values),
        vec![
            Some("a b".into()),
            Some("xyaxy".into()),
            None,
            Some("".into())
        ]
    );
    assert_eq!(
        eval_str(TRIM_LEADING, vec![], &values)[0].as_deref(),
        Some("a b  ")
    );
    assert_eq!(
        eval_str(TRIM_TRAILING, vec![], &values)[0].as_deref(),
        Some("  a b")
    );
    // Any code point of the characters argument is trimmed.
    assert_eq!(
        eval_str(TRIM_BOTH, vec![s("yx")], &values)[1].as_deref(),
        Some("a")
    );
    assert_eq!(
        eval_str(TRIM_LEADING, vec![s("xy")], &values)[1].as_deref(),
        Some("axy")
    );
    assert_eq!(
        eval_str(TRIM_BOTH, vec![s("😀")], &[Some("😀a😀😀")]),
        some(&["a"])
    );
    assert_eq!(
        eval_str(TRIM_BOTH, vec![s("")], &[Some(" a ")]),
        some(&[" a "])
    );
    assert_eq!(
        eval_str(TRIM_BOTH, vec![Expr::null(STRING)], &[Some(" a ")]),
        vec![None]
    );
    // Only spaces: a tab stays.
    assert_eq!(
        eval_str(LTRIM, vec![], &[Some(" \t a "), None]),
        vec![Some("\t a ".into()), None]
    );
    assert_eq!(eval_str(RTRIM, vec![], &[Some(" a \t ")]), some(&[" a \t"]));
    let (ty, _) = eval(TRIM_BOTH, vec![Expr::input(3)], &[(None, None, None, None)]);
    assert_eq!(ty, LogicalType::VarChar(3));
}

#[test]
fn pads_follow_sql_function_utils() {
    let lpad = |v: &str, n: i32, p: &str| eval_str(LPAD, vec![int(n), s(p)], &[Some(v)])[0].clone();
    let rpad = |v: &str, n: i32, p: &str| eval_str(RPAD, vec![int(n), s(p)], &[Some(v)])[0].clone();
    assert_eq!(lpad("hi", 5, "xy").as_deref(), Some("xyxhi"));
    assert_eq!(rpad("hi", 5, "xy").as_deref(), Some("hixyx"));
    assert_eq!(lpad("hello", 3, "x").as_deref(), Some("hel"));
    assert_eq!(rpad("hello", 3, "x").as_deref(), Some("hel"));
    assert_eq!(lpad("hi", 0, "x").as_deref(), Some(""));
    assert_eq!(lpad("hi", -1, "x"), None);
    assert_eq!(rpad("hi", 4, ""), None);
    // UTF-16 units: the pair counts twice; cutting it leaves a lone surrogate, written `?`.
    assert_eq!(lpad("😀", 3, "ß").as_deref(), Some("ß😀"));
    assert_eq!(rpad("a😀", 2, "x").as_deref(), Some("a?"));
    assert_eq!(lpad("a", 2, "😀").as_deref(), Some("?a"));
    let (ty, out) = eval(
        LPAD,
        vec![Expr::input(0), Expr::input(1), s("0")],
        &[
            (Some("7"), Some(3), None, None),
            (Some("7"), None, None, None),
        ],
    );
    assert_eq!(ty, STRING);
    assert_eq!(out, vec![Some("007".into()), None]);
}

#[test]
fn a_huge_pad_is_an_error_not_a_panic() {
    let calc = compile(
        &CalcProgram::project(vec![Expr::call(
            LPAD,
            vec![Expr::input(0), Expr::input(1), s("x")],
        )]),
        &input_types(),
    )
    .unwrap();
    let err = calc
        .evaluate(&batch(&[
            (Some("a"), Some(1_000_000), None, None),
            (Some("a"), Some(i32::MAX - 10), None, None),
        ]))
        .unwrap_err();
    assert!(matches!(err, CalcError::Evaluation { .. }), "{err:?}");
    assert!(err.to_string().contains("LPAD"), "{err}");
}

#[test]
fn replace_is_javas_string_replace() {
    let rep = |v: &str, a: &str, b: &str| {
        eval_str(REPLACE, vec![s(a), s(b)], &[Some(v)])[0]
            .clone()
            .unwrap()
    };
    assert_eq!(rep("aaa", "aa", "b"), "ba");
    assert_eq!(rep("abcabc", "bc", ""), "aa");
    assert_eq!(rep("abc", "", "-"), "-a-b-c-");
    assert_eq!(rep("a😀", "", "-"), "-a-?-?-");
    assert_eq!(rep("a😀", "", ""), "a😀");
    assert_eq!(rep("ßß", "ß", "ss"), "ssss");
    assert_eq!(
        eval_str(REPLACE, vec![Expr::null(STRING), s("x")], &[Some("a")]),
        vec![None]
    );
}

#[test]
fn position_counts_code_points() {
    let (ty, out) = eval(
        POSITION,
        vec![Expr::input(2), Expr::input(0)],
        &[
            (Some("a😀bc"), None, Some("bc"), None),
            (Some("abc"), None, Some("x"), None),
            (Some("abc"), None, Some(""), None),
            (None, None, Some("a"), None),
        ],
    );
    assert_eq!(ty, LogicalType::Int);
    assert_eq!(
        out,
        vec![Some("3".into()), Some("0".into()), Some("1".into()), None]
    );
}

#[test]
fn split_index_keeps_empty_tokens() {
    let split = |v: &str, sep: &str, k: i32| {
        eval_str(SPLIT_INDEX, vec![s(sep), int(k)], &[Some(v)])[0].clone()
    };
    assert_eq!(split("a,b,c", ",", 1).as_deref(), Some("b"));
    assert_eq!(split("a,,c", ",", 1).as_deref(), Some(""));
    assert_eq!(split("a,", ",", 1).as_deref(), Some(""));
    assert_eq!(split(",a", ",", 0).as_deref(), Some(""));
    assert_eq!(split("a--b", "--", 1).as_deref(), Some("b"));
    assert_eq!(split("a,b", ",", 2), None);
    assert_eq!(split("a,b", ",", -1), None);
    assert_eq!(split("", ",", 0), None);
    // An empty separator splits on Java whitespace (not on U+00A0).
    assert_eq!(split("a b\u{A0}c\td", "", 1).as_deref(), Some("b\u{A0}c"));
    assert_eq!(split("a b\u{A0}c\td", "", 2).as_deref(), Some("d"));
}

#[test]
fn regexp_extract_and_replace() {
    let extract = |v: &str, re: &str, g: Option<i32>| {
        let mut extra = vec![s(re)];
        extra.extend(g.map(int));
        eval_str(REGEXP_EXTRACT, extra, &[Some(v)])[0].clone()
    };
    assert_eq!(extract("foo123bar", "\\d+", None).as_deref(), Some("123"));
    assert_eq!(
        extract("foo123bar", "([a-z]+)(\\d+)", Some(2)).as_deref(),
        Some("123")
    );
    assert_eq!(extract("foo123bar", "([a-z]+)(\\d+)", Some(3)), None);
    assert_eq!(extract("foo123bar", "([a-z]+)(\\d+)", Some(-1)), None);
    assert_eq!(extract("foo", "x(y)?|f", Some(1)), None);
    assert_eq!(extract("foo", "\\d", None), None);
    // Java's \d is ASCII: the Arabic-Indic digit does not match.
    assert_eq!(extract("\u{663}7", "\\d", None).as_deref(), Some("7"));
    // Java's `.` stops at \r as well as \n.
    assert_eq!(extract("ab\rc", "b.", None), None);

    let replace = |v: &str, re: &str, w: &str| {
        eval_str(REGEXP_REPLACE, vec![s(re), s(w)], &[Some(v)])[0].clone()
    };
    assert_eq!(replace("a1b22", "\\d+", "#").as_deref(), Some("a#b#"));
    // Java: "abc".replaceAll("b*", "-") is "-a--c-".
    assert_eq!(replace("abc", "b*", "-").as_deref(), Some("-a--c-"));
    assert_eq!(replace("ßa", "", "-").as_deref(), Some("-ß-a-"));
    // The replacement is literal (Matcher.quoteReplacement).
    assert_eq!(replace("ab", "(a)", "$1\\").as_deref(), Some("$1\\b"));
    assert_eq!(replace("a.b", "\\Q.\\E", "!").as_deref(), Some("a!b"));
}

#[test]
fn regexp_patterns_from_a_column_compile_per_row() {
    let (ty, out) = eval(
        REGEXP_EXTRACT,
        vec![Expr::input(0), Expr::input(2)],
        &[
            (Some("abc"), None, Some("b."), None),
            (Some("xyz"), None, Some("b."), None),
            (Some("xyz"), None, Some("z"), None),
            (Some("xyz"), None, None, None),
        ],
    );
    assert_eq!(ty, STRING);
    assert_eq!(out, vec![Some("bc".into()), None, Some("z".into()), None]);
    let calc = compile(
        &CalcProgram::project(vec![Expr::call(
            REGEXP_REPLACE,
            vec![Expr::input(0), Expr::input(2), s("")],
        )]),
        &input_types(),
    )
    .unwrap();
    let err = calc
        .evaluate(&batch(&[(Some("a"), None, Some("(?x)a"), None)]))
        .unwrap_err();
    assert!(err.to_string().contains("REGEXP_REPLACE"), "{err}");
}

#[test]
fn java_regex_constructs_and_invalid_patterns() {
    let extract =
        |v: &str, re: &str| eval_str(REGEXP_EXTRACT, vec![s(re), int(0)], &[Some(v)])[0].clone();
    // Worked from java.util.regex (JDK 17): `$` also matches before a final terminator.
    assert_eq!(extract("ab\n", "b$").as_deref(), Some("b"));
    assert_eq!(extract("ab\r\n", "b$").as_deref(), Some("b"));
    assert_eq!(extract("ab\n\n", "b$"), None);
    // Back-references, look-around, possessive and atomic forms, ASCII-only (?i).
    assert_eq!(extract("xaay", "(a)\\1").as_deref(), Some("aa"));
    assert_eq!(extract("ab ac", "a(?=c)").as_deref(), Some("a"));
    assert_eq!(extract("aaa", "a*+a"), None);
    assert_eq!(extract("aaa", "(?>a*)a"), None);
    assert_eq!(extract("ABC", "(?i)b").as_deref(), Some("B"));
    assert_eq!(extract("Ä", "(?i)ä"), None);
    assert_eq!(extract("é_1", "\\p{Alpha}"), None);
    // JDK 17's \b: letters, digits and `_` are word characters, connector punctuation
    // (U+203F) is not.
    assert_eq!(extract("\u{203F}a", "\\ba").as_deref(), Some("a"));
    assert_eq!(extract("éa", "\\ba"), None);
    // A pattern Java rejects gives NULL per row, literal or from a column.
    for bad in ["[a", "(", "a{", "*a", "a**", "[z-a]", "\\y"] {
        assert_eq!(extract("a", bad), None, "{bad}");
    }
    let (_, out) = eval(
        REGEXP_REPLACE,
        vec![Expr::input(0), Expr::input(2), s("-")],
        &[
            (Some("abc"), None, Some("b"), None),
            (Some("abc"), None, Some("(b"), None),
            (Some("abc"), None, Some("c"), None),
        ],
    );
    assert_eq!(out, vec![Some("a-c".into()), None, Some("ab-".into())]);
}

#[test]
fn unsupported_java_constructs_are_bind_errors() {
    for pattern in [
        "(?x)a b",
        "(?iu)a",
        "\\X",
        "\\G",
        "(?i)(a)\\1",
        "\\p{InGreek}",
    ] {
        let err = bind_error(REGEXP_REPLACE, vec![Expr::input(0), s(pattern), s("")]);
        assert!(
            err.contains("unsupported Java regular expression"),
            "{pattern}: {err}"
        );
    }
}

#[test]
fn argument_types_are_checked() {
    let err = bind_error(UPPER, vec![Expr::input(1)]);
    assert!(err.contains("must be a string"), "{err}");
    let err = bind_error(
        SUBSTRING,
        vec![Expr::input(0), Expr::lit(LogicalType::BigInt, "1")],
    );
    assert!(err.contains("TINYINT, SMALLINT or INT"), "{err}");
    // A SMALLINT position is widened to INT.
    let (_, out) = eval(
        SUBSTRING,
        vec![Expr::input(0), Expr::lit(LogicalType::SmallInt, "2")],
        &[(Some("abc"), None, None, None)],
    );
    assert_eq!(out, some(&["bc"]));
}

#[test]
fn all_scalar_arguments_give_a_value_per_row() {
    let (_, out) = eval(
        UPPER,
        vec![s("abc")],
        &[(None, None, None, None), (None, None, None, None)],
    );
    assert_eq!(out, some(&["ABC", "ABC"]));
}

/// `f0 LIKE pattern [ESCAPE escape]` for one value, through the compiler.
fn like(value: Option<&str>, pattern: &str, escape: Option<&str>) -> Option<bool> {
    let mut args = vec![Expr::input(0), s(pattern)];
    args.extend(escape.map(s));
    let calc = compile(
        &CalcProgram::project(vec![Expr::call(LIKE, args)]),
        &input_types(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = calc.evaluate(&batch(&[(value, None, None, None)])).unwrap();
    let col = out.batch().column(0).as_boolean().clone();
    col.iter().next().flatten()
}

#[test]
fn like_matches_whole_strings() {
    let cases: &[(&str, &str, Option<&str>, bool)] = &[
        ("abc", "abc", None, true),
        ("abc", "ab", None, false),
        ("abc", "a%", None, true),
        ("abc", "%c", None, true),
        ("abc", "%b%", None, true),
        ("abc", "a_c", None, true),
        ("abc", "a__c", None, false),
        ("", "", None, true),
        ("", "%", None, true),
        ("", "_", None, false),
        ("aXbXc", "%X%X%", None, true),
        ("aXbXc", "%X%X%X%", None, false),
        ("mississippi", "%iss%ppi", None, true),
        ("mississippi", "m%s_i%i", None, true),
        // `_` is one code point, not one UTF-16 unit.
        ("a😀c", "a_c", None, true),
        ("ß", "_", None, true),
        // Java's `.` stops at line terminators; `%` does not.
        ("a\nc", "a_c", None, false),
        ("a\u{2028}c", "a_c", None, false),
        ("a\nc", "a%c", None, true),
        // No escape unless one is given: a backslash is an ordinary character.
        ("a\\b", "a\\b", None, true),
        ("a%", "a\\%", Some("\\"), true),
        ("ab", "a\\%", Some("\\"), false),
        ("a_", "a!_", Some("!"), true),
        ("ab", "a!_", Some("!"), false),
        ("a!", "a!!", Some("!"), true),
        // Regex metacharacters are literal.
        ("a.c", "a.c", None, true),
        ("abc", "a.c", None, false),
        ("a(b)*", "a(b)*", None, true),
    ];
    for &(value, pattern, escape, expected) in cases {
        assert_eq!(
            like(Some(value), pattern, escape),
            Some(expected),
            "{value:?} LIKE {pattern:?} ESCAPE {escape:?}"
        );
    }
    assert_eq!(like(None, "%", None), None);
}

#[test]
fn like_escape_errors() {
    // SqlLikeUtils: the escape is one character and may precede only `_`, `%` or itself.
    for (pattern, escape, needle) in [
        ("a", "", "Invalid escape character"),
        ("a", "ab", "Invalid escape character"),
        ("a!b", "!", "Invalid escape sequence"),
        ("a!", "!", "Invalid escape sequence"),
    ] {
        let err = bind_error(LIKE, vec![Expr::input(0), s(pattern), s(escape)]);
        assert!(err.contains(needle), "{pattern} {escape}: {err}");
    }
    // A pattern from a column fails when a row's pattern is invalid.
    let calc = compile(
        &CalcProgram::project(vec![Expr::call(
            LIKE,
            vec![Expr::input(0), Expr::input(2), s("!")],
        )]),
        &input_types(),
    )
    .unwrap();
    let out = calc
        .evaluate(&batch(&[(Some("a_"), None, Some("a!_"), None)]))
        .unwrap();
    assert!(out.batch().column(0).as_boolean().value(0));
    let err = calc
        .evaluate(&batch(&[(Some("a"), None, Some("a!"), None)]))
        .unwrap_err();
    assert!(err.to_string().contains("Invalid escape sequence"), "{err}");
}

#[test]
fn a_computed_trim_set_is_refused_where_flink_reads_it_by_provenance() {
    // BinaryStringDataUtil.isSpaceString: a literal " x" is a full set, a row value " x"
    // is spaces only; native cannot tell a computed set's provenance.
    assert_eq!(trim_set(" x", true, "LTRIM").unwrap(), " x");
    assert_eq!(trim_set(" ", false, "LTRIM").unwrap(), " ");
    assert_eq!(trim_set("xy", false, "LTRIM").unwrap(), "xy");
    assert!(trim_set(" x", false, "LTRIM").is_err());
    assert!(trim_set("", false, "LTRIM").is_err());
    assert_eq!(trim_set("", true, "LTRIM").unwrap(), "");
}
