//! `s SIMILAR TO pattern [ESCAPE e]` (opcode 390) as Flink 2.3.0 runs it:
//! `SqlLikeUtils.similar`, a copy of Calcite's, rewrites the SQL pattern into a Java regular
//! expression (`sqlToRegexSimilar`) and `Pattern.matches` it against the whole string.
//!
//! The rewrite is Flink's, not the SQL standard's: `_` is `.`, `%` is `(?s:.*)`, `\` and `$`
//! are literal, a bracket expression takes `[:ALPHA:]`-style classes, and every other
//! character, `.` `*` `+` `?` `{}` `()` `|` `^` included, passes through with its Java meaning.
//! Without an ESCAPE clause the escape character is NUL (`(char) 0`), as in Flink. A pattern
//! the rewrite or `java.util.regex` rejects throws in Flink, uncaught, so here it fails the
//! batch once a row with a non-NULL string and pattern reaches it.

use std::sync::Arc;

use arrow::array::BooleanArray;
use datafusion::error::Result as DfResult;

use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::java_regex::{JavaRegex, PatternError};
use super::string::{Strs, coerce, literal_str, row_count};
use super::util::{fail, result};

/// `SIMILAR TO(s, pattern[, escape])`: whether the pattern matches all of `s`. `BOOLEAN`;
/// `NOT SIMILAR TO` is `NOT` of it.
pub const SIMILAR_TO: u16 = 390;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[FunctionDef {
    opcode: SIMILAR_TO,
    name: "SIMILAR TO",
    arity: Arity::Range(2, 3),
    bind: bind_similar_to,
}];

const JAVA_REGEX_SPECIALS: &str = "[]()|^-+*?{}$\\.";
const SQL_SIMILAR_SPECIALS: &str = "[]()|^-+*_%?{}";
const CHAR_CLASSES: [(&str, &str); 14] = [
    ("[:ALPHA:]", "\\p{Alpha}"),
    ("[:alpha:]", "\\p{Alpha}"),
    ("[:UPPER:]", "\\p{Upper}"),
    ("[:upper:]", "\\p{Upper}"),
    ("[:LOWER:]", "\\p{Lower}"),
    ("[:lower:]", "\\p{Lower}"),
    ("[:DIGIT:]", "\\d"),
    ("[:digit:]", "\\d"),
    ("[:SPACE:]", " "),
    ("[:space:]", " "),
    ("[:WHITESPACE:]", "\\s"),
    ("[:whitespace:]", "\\s"),
    ("[:ALNUM:]", "\\p{Alnum}"),
    ("[:alnum:]", "\\p{Alnum}"),
];

fn invalid_regex(pattern: &str) -> String {
    format!("Invalid regular expression '{pattern}'")
}

fn invalid_escape(pattern: &str, i: isize) -> String {
    format!("Invalid escape sequence '{pattern}', {i}")
}

/// The escape character of an ESCAPE clause: exactly one UTF-16 unit.
fn escape_char(escape: Option<&str>) -> Result<char, String> {
    match escape {
        None => Ok('\0'),
        Some(e) => {
            let mut chars = e.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c.len_utf16() == 1 => Ok(c),
                _ => Err(format!("Invalid escape character '{e}'")),
            }
        }
    }
}

/// `sqlToRegexSimilar`: the Java regular expression for a SQL SIMILAR pattern, or the
/// message of the exception Flink throws.
pub fn similar_to_regex(pattern: &str, escape: char) -> Result<String, String> {
    let p: Vec<char> = pattern.chars().collect();
    check_escapes(pattern, &p, escape)?;
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut in_enumeration = false;
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        if c == escape {
            let Some(&next) = p.get(i + 1) else {
                return Err(invalid_escape(pattern, i as isize));
            };
            if !push_escaped(&mut out, next, escape) {
                return Err(invalid_escape(pattern, i as isize));
            }
            i += 1;
        } else {
            match c {
                '_' => out.push('.'),
                '%' => out.push_str("(?s:.*)"),
                '[' => {
                    out.push('[');
                    in_enumeration = true;
                    i = enumeration(pattern, &p, &mut out, i, escape)?;
                }
                ']' => {
                    if !in_enumeration {
                        return Err(invalid_regex(pattern));
                    }
                    in_enumeration = false;
                    out.push(']');
                }
                '\\' => out.push_str("\\\\"),
                '$' => out.push_str("\\$"),
                c => out.push(c),
            }
        }
        i += 1;
    }
    if in_enumeration {
        return Err(invalid_regex(pattern));
    }
    Ok(out)
}

/// The character after an escape, as Java regex text: a SQL SIMILAR special character
/// (backslashed where Java's regex syntax needs it) or the escape itself; `false` for any
/// other character, which Flink rejects.
fn push_escaped(out: &mut String, next: char, escape: char) -> bool {
    if SQL_SIMILAR_SPECIALS.contains(next) {
        if JAVA_REGEX_SPECIALS.contains(next) {
            out.push('\\');
        }
        out.push(next);
        true
    } else if next == escape {
        out.push(next);
        true
    } else {
        false
    }
}

/// `similarEscapeRuleChecking` (SQL:2003 Part 2, 8.6, general rules 3.b and 3.c).
fn check_escapes(pattern: &str, p: &[char], escape: char) -> Result<(), String> {
    if escape == '\0' {
        return Ok(());
    }
    if SQL_SIMILAR_SPECIALS.contains(escape) {
        for (i, &c) in p.iter().enumerate() {
            if c != escape {
                continue;
            }
            match p.get(i + 1) {
                Some(&next) if SQL_SIMILAR_SPECIALS.contains(next) || next == escape => {}
                _ => return Err(invalid_escape(pattern, i as isize)),
            }
        }
    }
    if escape == ':' {
        // Flink looks for ":]" only after finding "[:", and fails when either is missing.
        let found = pattern.contains("[:") && pattern.contains(":]");
        if !found {
            return Err(invalid_escape(pattern, -1));
        }
    }
    Ok(())
}

/// `sqlSimilarRewriteCharEnumeration`: the bracket expression opened at `pos`, rewritten into
/// `out`; returns the index before its `]` (or the last index when it is never closed).
fn enumeration(
    pattern: &str,
    p: &[char],
    out: &mut String,
    pos: usize,
    escape: char,
) -> Result<usize, String> {
    let mut i = pos + 1;
    while i < p.len() {
        let c = p[i];
        if c == ']' {
            return Ok(i - 1);
        } else if c == escape {
            i += 1;
            let Some(&next) = p.get(i) else {
                // Java's `charAt` past the end.
                return Err(format!(
                    "java.lang.StringIndexOutOfBoundsException: the escape ends '{pattern}'"
                ));
            };
            if !push_escaped(out, next, escape) {
                return Err(invalid_regex(pattern));
            }
        } else if c == '-' || c == '^' {
            out.push(c);
        } else if c == '[' && p.get(i + 1) == Some(&':') {
            let rest: String = p[i..].iter().take(16).collect();
            let Some((name, class)) = CHAR_CLASSES.iter().find(|(n, _)| rest.starts_with(n)) else {
                return Err(invalid_regex(pattern));
            };
            out.push_str(class);
            i += name.len() - 1;
        } else if SQL_SIMILAR_SPECIALS.contains(c) {
            return Err(invalid_regex(pattern));
        } else {
            out.push(c);
        }
        i += 1;
    }
    Ok(i - 1)
}

/// A pattern as `Pattern.matches` uses it: the rewritten regex must compile on its own (so
/// a pattern Java rejects fails as in Flink), then is anchored at both ends.
fn compile(pattern: &str, escape: char) -> Result<JavaRegex, SimilarError> {
    let regex = similar_to_regex(pattern, escape).map_err(SimilarError::Fails)?;
    let anchored = |r: &str| JavaRegex::new(&format!("\\A(?:{r})\\z"));
    match JavaRegex::new(&regex).and_then(|_| anchored(&regex)) {
        Ok(re) => Ok(re),
        Err(e @ PatternError::Invalid { .. }) => Err(SimilarError::Fails(format!(
            "java.util.regex.PatternSyntaxException: {e}"
        ))),
        Err(e @ PatternError::Unsupported { .. }) => Err(SimilarError::Unsupported(e.to_string())),
    }
}

/// Why a SIMILAR TO pattern has no compiled form.
enum SimilarError {
    /// Flink throws: the rows that reach it fail.
    Fails(String),
    /// Java accepts it but the translation cannot carry it: the call is refused.
    Unsupported(String),
}

/// A pattern argument: compiled once when the pattern and escape are literals.
enum Similar {
    /// A literal pattern: `None` when NULL (every row NULL), else its regex or Flink's error.
    Literal(Option<Result<Arc<JavaRegex>, String>>),
    Column(char),
}

fn bind_similar_to(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    let escape = match args.types.len() {
        3 => match literal_str(args, 2) {
            Some(Some(e)) => escape_char(Some(e)).map(Some),
            // A NULL escape makes every row NULL.
            Some(None) => Ok(None),
            None => return Err("the escape must be a literal".into()),
        },
        _ => Ok(Some('\0')),
    };
    let pattern = match (escape, literal_str(args, 1)) {
        (Ok(None), _) | (_, Some(None)) => Similar::Literal(None),
        (Err(e), _) => Similar::Literal(Some(Err(e))),
        (Ok(Some(escape)), Some(Some(p))) => match compile(p, escape) {
            Ok(re) => Similar::Literal(Some(Ok(Arc::new(re)))),
            Err(SimilarError::Fails(e)) => Similar::Literal(Some(Err(e))),
            Err(SimilarError::Unsupported(e)) => return Err(e),
        },
        (Ok(Some(escape)), None) => Similar::Column(escape),
    };
    Ok(Bound {
        args: types,
        result: LogicalType::Boolean,
        kernel: Kernel::function("SIMILAR TO", &LogicalType::Boolean, move |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let column = Strs::new(&args[1])?;
            let mut cache: Option<(String, JavaRegex)> = None;
            let mut out = BooleanArray::builder(n);
            for i in 0..n {
                let Some(s) = s.get(i) else {
                    out.append_null();
                    continue;
                };
                let re: &JavaRegex = match &pattern {
                    Similar::Literal(None) => {
                        out.append_null();
                        continue;
                    }
                    Similar::Literal(Some(Err(e))) => return Err(fail(e.clone())),
                    Similar::Literal(Some(Ok(re))) => re,
                    Similar::Column(escape) => {
                        let Some(p) = column.get(i) else {
                            out.append_null();
                            continue;
                        };
                        if cache.as_ref().is_none_or(|(text, _)| text != p) {
                            let re = compile(p, *escape).map_err(|e| match e {
                                SimilarError::Fails(e) | SimilarError::Unsupported(e) => fail(e),
                            })?;
                            cache = Some((p.to_owned(), re));
                        }
                        &cache.as_ref().expect("just cached").1
                    }
                };
                out.append_value(matches(re, s)?);
            }
            result(args, Arc::new(out.finish()))
        }),
    })
}

fn matches(re: &JavaRegex, s: &str) -> DfResult<bool> {
    re.find_from(s, 0)
        .map(|m| m.is_some())
        .map_err(|e| fail(format!("SIMILAR TO: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_rewritten_as_flinks_sql_like_utils_does() {
        // Worked by hand from `SqlLikeUtils.sqlToRegexSimilar`.
        let cases = [
            ("a.*", "a.*"),
            ("(a|b)%", "(a|b)(?s:.*)"),
            ("[a-c]+", "[a-c]+"),
            ("a_", "a."),
            ("ab$", "ab\\$"),
            ("a\\b", "a\\\\b"),
            ("[[:DIGIT:]x]", "[\\dx]"),
            ("[^[:alpha:]]", "[^\\p{Alpha}]"),
        ];
        for (sql, java) in cases {
            assert_eq!(similar_to_regex(sql, '\0').as_deref(), Ok(java), "{sql}");
        }
        assert_eq!(similar_to_regex("a!%b", '!').as_deref(), Ok("a%b"));
        assert_eq!(similar_to_regex("a!!b", '!').as_deref(), Ok("a!b"));
        assert_eq!(similar_to_regex("[!]]", '!').as_deref(), Ok("[\\]]"));
    }

    #[test]
    fn patterns_flink_rejects_fail_with_its_message() {
        let invalid = |p: &str| format!("Invalid regular expression '{p}'");
        let escape = |p: &str, i: usize| format!("Invalid escape sequence '{p}', {i}");
        let cases = [
            ("a]", '\0', invalid("a]")),
            ("[ab", '\0', invalid("[ab")),
            ("[a_]", '\0', invalid("[a_]")),
            ("[[:nope:]]", '\0', invalid("[[:nope:]]")),
            // An escape that is itself special must escape a special character or itself.
            ("a+b", '+', escape("a+b", 1)),
            ("ab!", '!', escape("ab!", 2)),
            // `.` is no SQL SIMILAR special character, so it cannot be escaped.
            ("a!.b", '!', escape("a!.b", 1)),
        ];
        for (pattern, esc, message) in cases {
            assert_eq!(similar_to_regex(pattern, esc), Err(message), "{pattern}");
        }
        assert!(escape_char(Some("ab")).is_err());
        assert!(escape_char(Some("😀")).is_err());
    }

    #[test]
    fn the_whole_string_must_match() {
        let re = compile("a.*", '\0').ok().unwrap();
        assert!(matches(&re, "abc").unwrap());
        assert!(!matches(&re, "ba").unwrap());
        // `.` stops at a line terminator, `%` does not.
        assert!(!matches(&re, "a\nb").unwrap());
        let re = compile("a%", '\0').ok().unwrap();
        assert!(matches(&re, "a\nb").unwrap());
        let re = compile("a|ab", '\0').ok().unwrap();
        assert!(matches(&re, "ab").unwrap());
        // Java rejects the rewritten pattern: the rows fail, as Flink's job does.
        assert!(matches!(compile("(a", '\0'), Err(SimilarError::Fails(_))));
    }
}
