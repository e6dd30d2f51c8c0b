//! JSON predicates (opcodes 800–849): `s IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT]`.
//!
//! Flink's `SqlJsonUtils.isJson*` parse the text with the shaded Jackson 2.20 `ObjectMapper`
//! (through json-path's `JacksonJsonProvider`, `readValue(text, Object.class)`, default
//! features plus `USE_BIG_DECIMAL_FOR_FLOATS`) and answer `false` for any exception. What
//! that accepts is not plain RFC 8259, so [`classify`] is a small validating tokenizer that
//! reproduces it (serde_json differs: it rejects trailing text and accepts any exponent):
//!
//! - Only the first root value is read; what follows it is ignored (`{} x`, `[1]]`,
//!   `"a" "b"` and `1 2` are JSON), except that a root number must be followed by the end or
//!   a space, tab, CR or LF (`1x`, `1,` are not), and a root `true`/`false`/`null` must not be
//!   followed by a Java identifier part (`truex` is not, `true,` and `true]` are).
//! - Whitespace is space, tab, CR, LF only (no BOM, no NBSP, no vertical tab or form feed).
//! - Strict grammar otherwise: no comments, single quotes, unquoted names, trailing commas,
//!   `NaN`/`Infinity`, leading `+`, leading zeros (`01`), `1.`, `.5`; raw control characters
//!   (< U+0020) are not allowed in strings; escapes are `\" \\ \/ \b \f \n \r \t \uXXXX`
//!   (lone surrogate escapes are accepted). Duplicate names are accepted.
//! - Jackson's `StreamReadConstraints` defaults: nesting depth ≤ 1000, names ≤ 50,000 and
//!   strings ≤ 20,000,000 UTF-16 units, integers ≤ 1000 digits, floats ≤ 1000 digits in all.
//! - A float becomes a `BigDecimal`, so its exponent must fit an `int` and its scale
//!   (fraction digits minus exponent) too: `1e2147483648` and `1e-2147483648` are not JSON.
//!
//! `IS JSON` is `IS JSON VALUE`. A `SCALAR` is anything that is not an array or an object
//! (`null` included). The predicates are `BOOLEAN NOT NULL`: a NULL argument is not JSON, so
//! `IS JSON` gives FALSE and `IS NOT JSON` TRUE.

use std::sync::{Arc, OnceLock};

use arrow::array::{Array, AsArray, BooleanArray};
use datafusion::common::ScalarValue;
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;
use regex::Regex;

use crate::calc::coercion::is_string;
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::util::fail;

/// `s IS JSON` / `s IS JSON VALUE`: any JSON text.
pub const IS_JSON_VALUE: u16 = 800;
/// `s IS JSON SCALAR`: JSON that is neither an array nor an object.
pub const IS_JSON_SCALAR: u16 = 801;
/// `s IS JSON ARRAY`.
pub const IS_JSON_ARRAY: u16 = 802;
/// `s IS JSON OBJECT`.
pub const IS_JSON_OBJECT: u16 = 803;
/// `s IS NOT JSON [VALUE]`.
pub const IS_NOT_JSON_VALUE: u16 = 804;
/// `s IS NOT JSON SCALAR`.
pub const IS_NOT_JSON_SCALAR: u16 = 805;
/// `s IS NOT JSON ARRAY`.
pub const IS_NOT_JSON_ARRAY: u16 = 806;
/// `s IS NOT JSON OBJECT`.
pub const IS_NOT_JSON_OBJECT: u16 = 807;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: IS_JSON_VALUE,
        name: "IS_JSON_VALUE",
        arity: Arity::Exact(1),
        bind: |a| bind_is_json(a, "IS_JSON_VALUE", Want::Value, false),
    },
    FunctionDef {
        opcode: IS_JSON_SCALAR,
        name: "IS_JSON_SCALAR",
        arity: Arity::Exact(1),
        bind: |a| bind_is_json(a, "IS_JSON_SCALAR", Want::Scalar, false),
    },
    FunctionDef {
        opcode: IS_JSON_ARRAY,
        name: "IS_JSON_ARRAY",
        arity: Arity::Exact(1),
        bind: |a| bind_is_json(a, "IS_JSON_ARRAY", Want::Array, false),
    },
    FunctionDef {
        opcode: IS_JSON_OBJECT,
        name: "IS_JSON_OBJECT",
        arity: Arity::Exact(1),
        bind: |a| bind_is_json(a, "IS_JSON_OBJECT", Want::Object, false),
    },
    FunctionDef {
        opcode: IS_NOT_JSON_VALUE,
        name: "IS_NOT_JSON_VALUE",
        arity: Arity::Exact(1),
        bind: |a| bind_is_json(a, "IS_NOT_JSON_VALUE", Want::Value, true),
    },
    FunctionDef {
        opcode: IS_NOT_JSON_SCALAR,
        name: "IS_NOT_JSON_SCALAR",
        arity: Arity::Exact(1),
        bind: |a| bind_is_json(a, "IS_NOT_JSON_SCALAR", Want::Scalar, true),
    },
    FunctionDef {
        opcode: IS_NOT_JSON_ARRAY,
        name: "IS_NOT_JSON_ARRAY",
        arity: Arity::Exact(1),
        bind: |a| bind_is_json(a, "IS_NOT_JSON_ARRAY", Want::Array, true),
    },
    FunctionDef {
        opcode: IS_NOT_JSON_OBJECT,
        name: "IS_NOT_JSON_OBJECT",
        arity: Arity::Exact(1),
        bind: |a| bind_is_json(a, "IS_NOT_JSON_OBJECT", Want::Object, true),
    },
];

/// What kind of JSON text a root value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    /// A string, number, `true`, `false` or `null`.
    Scalar,
    /// `[...]`.
    Array,
    /// `{...}`.
    Object,
}

/// Which predicate a call asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Value,
    Scalar,
    Array,
    Object,
}

impl Want {
    fn accepts(self, kind: Option<JsonKind>) -> bool {
        match (self, kind) {
            (_, None) => false,
            (Want::Value, Some(_)) => true,
            (Want::Scalar, Some(k)) => k == JsonKind::Scalar,
            (Want::Array, Some(k)) => k == JsonKind::Array,
            (Want::Object, Some(k)) => k == JsonKind::Object,
        }
    }
}

fn bind_is_json(
    args: &Args<'_>,
    name: &'static str,
    want: Want,
    negated: bool,
) -> Result<Bound, String> {
    if !is_string(&args.types[0]) {
        return Err(format!(
            "the argument must be a string, not {}",
            args.types[0]
        ));
    }
    Ok(Bound {
        args: args.types.to_vec(),
        result: LogicalType::Boolean,
        kernel: Kernel::function(name, &LogicalType::Boolean, move |args, rows| {
            is_json(&args[0], rows, want, negated)
        }),
    })
}

fn is_json(arg: &ColumnarValue, rows: usize, want: Want, negated: bool) -> DfResult<ColumnarValue> {
    let answer = |s: Option<&str>| want.accepts(s.and_then(classify)) != negated;
    match arg {
        ColumnarValue::Scalar(
            ScalarValue::Utf8(s) | ScalarValue::LargeUtf8(s) | ScalarValue::Utf8View(s),
        ) => Ok(ColumnarValue::Scalar(ScalarValue::Boolean(Some(answer(
            s.as_deref(),
        ))))),
        ColumnarValue::Array(a) => {
            let strings = a
                .as_string_opt::<i32>()
                .ok_or_else(|| fail(format!("expected a Utf8 array, found {}", a.data_type())))?;
            debug_assert_eq!(strings.len(), rows);
            // Never NULL: no validity buffer.
            let out: BooleanArray = strings.iter().map(|s| Some(answer(s))).collect();
            let out = BooleanArray::new(out.values().clone(), None);
            Ok(ColumnarValue::Array(Arc::new(out)))
        }
        ColumnarValue::Scalar(s) => Err(fail(format!(
            "expected a Utf8 value, found {}",
            s.data_type()
        ))),
    }
}

/// Jackson's `StreamReadConstraints.DEFAULT_MAX_DEPTH`.
const MAX_DEPTH: usize = 1000;
/// Jackson's `DEFAULT_MAX_NUM_LEN`.
const MAX_NUMBER_LENGTH: usize = 1000;
/// Jackson's `DEFAULT_MAX_STRING_LEN` (UTF-16 units).
const MAX_STRING_LENGTH: usize = 20_000_000;
/// Jackson's `DEFAULT_MAX_NAME_LEN` (UTF-16 units).
const MAX_NAME_LENGTH: usize = 50_000;

/// What Flink's `SqlJsonUtils` sees in `text`: the kind of its first root value, or `None`
/// when Jackson fails to read one (see the module documentation for the rules).
pub fn classify(text: &str) -> Option<JsonKind> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    p.skip_ws();
    match p.peek()? {
        b'{' => {
            p.object(1)?;
            Some(JsonKind::Object)
        }
        b'[' => {
            p.array(1)?;
            Some(JsonKind::Array)
        }
        b'"' => {
            p.string(MAX_STRING_LENGTH)?;
            Some(JsonKind::Scalar)
        }
        b't' | b'f' | b'n' => {
            p.keyword()?;
            // `ReaderBasedJsonParser._matchToken`: a following character at or above '0'
            // (other than ']' and '}') must not continue a Java identifier.
            match text[p.i..].chars().next() {
                Some(c) if c >= '0' && c != ']' && c != '}' && is_java_identifier_part(c) => None,
                _ => Some(JsonKind::Scalar),
            }
        }
        b'-' | b'0'..=b'9' => {
            p.number()?;
            // `_verifyRootSpace`: a root number ends the input or is followed by whitespace.
            match p.peek() {
                None | Some(b' ' | b'\t' | b'\r' | b'\n') => Some(JsonKind::Scalar),
                Some(_) => None,
            }
        }
        _ => None,
    }
}

/// Java's `Character.isJavaIdentifierPart(char)` for a character past ASCII '0'. A
/// supplementary character reaches Jackson as a high surrogate, which is not one.
fn is_java_identifier_part(c: char) -> bool {
    if u32::from(c) > 0xFFFF {
        return false;
    }
    static PART: OnceLock<Option<Regex>> = OnceLock::new();
    PART.get_or_init(|| {
        Regex::new(
            r"^[\p{L}\p{Sc}\p{Pc}\p{Nd}\p{Nl}\p{Mn}\p{Mc}\p{Cf}\x00-\x08\x0E-\x1B\x7F-\x{9F}]$",
        )
        .ok()
    })
    .as_ref()
    .is_some_and(|re| {
        let mut buf = [0u8; 4];
        re.is_match(c.encode_utf8(&mut buf))
    })
}

/// A strict JSON reader over UTF-8 bytes; every method returns `None` where Jackson throws.
struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\r' | b'\n') = self.peek() {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.i += 1)
    }

    /// Any value inside a container at nesting `depth` (of that container).
    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => self.string(MAX_STRING_LENGTH),
            b't' | b'f' | b'n' => self.keyword(),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// `{` ... `}` at nesting `depth`.
    fn object(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.eat(b'{')?;
        self.skip_ws();
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            self.skip_ws();
            if self.peek()? != b'"' {
                return None;
            }
            self.string(MAX_NAME_LENGTH)?;
            self.skip_ws();
            self.eat(b':')?;
            self.skip_ws();
            self.value(depth)?;
            self.skip_ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// `[` ... `]` at nesting `depth`.
    fn array(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.eat(b'[')?;
        self.skip_ws();
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            self.skip_ws();
            self.value(depth)?;
            self.skip_ws();
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// `true`, `false` or `null` (what follows is the caller's to check).
    fn keyword(&mut self) -> Option<()> {
        let rest = &self.s[self.i..];
        let word: &[u8] = match rest.first()? {
            b't' => b"true",
            b'f' => b"false",
            _ => b"null",
        };
        rest.starts_with(word).then(|| self.i += word.len())
    }

    /// A string of at most `max` UTF-16 units (decoded).
    fn string(&mut self, max: usize) -> Option<()> {
        self.eat(b'"')?;
        let mut units = 0usize;
        loop {
            let b = self.peek()?;
            match b {
                b'"' => {
                    self.i += 1;
                    return (units <= max).then_some(());
                }
                b'\\' => {
                    self.i += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 1,
                        b'u' => {
                            let hex = self.s.get(self.i + 1..self.i + 5)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.i += 5;
                        }
                        _ => return None,
                    }
                    units += 1;
                }
                0x00..=0x1F => return None,
                // A four-byte UTF-8 sequence is two UTF-16 units; continuation bytes none.
                0xF0..=0xFF => {
                    units += 2;
                    self.i += 1;
                }
                0x80..=0xBF => self.i += 1,
                _ => {
                    units += 1;
                    self.i += 1;
                }
            }
        }
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, within Jackson's
    /// length limits and `BigDecimal`'s exponent and scale range.
    fn number(&mut self) -> Option<()> {
        self.eat(b'-');
        let digits = |p: &mut Self| {
            let start = p.i;
            while let Some(b'0'..=b'9') = p.peek() {
                p.i += 1;
            }
            p.i - start
        };
        let int_start = self.i;
        let int_len = digits(self);
        if int_len == 0 || (int_len > 1 && self.s[int_start] == b'0') {
            return None;
        }
        let mut frac_len = 0;
        let mut is_float = false;
        if self.eat(b'.').is_some() {
            is_float = true;
            frac_len = digits(self);
            if frac_len == 0 {
                return None;
            }
        }
        let mut exp_len = 0;
        let mut exponent = 0i64;
        if let Some(b'e' | b'E') = self.peek() {
            is_float = true;
            self.i += 1;
            let negative = match self.peek()? {
                b'-' => {
                    self.i += 1;
                    true
                }
                b'+' => {
                    self.i += 1;
                    false
                }
                _ => false,
            };
            let start = self.i;
            exp_len = digits(self);
            if exp_len == 0 {
                return None;
            }
            exponent = java_big_decimal_exponent(&self.s[start..self.i], negative)?;
        }
        if !is_float {
            return (int_len <= MAX_NUMBER_LENGTH).then_some(());
        }
        if int_len + frac_len + exp_len > MAX_NUMBER_LENGTH {
            return None;
        }
        // `BigDecimal.adjustScale`: the scale is the fraction digits minus the exponent.
        let scale = frac_len as i64 - exponent;
        i32::try_from(scale).ok().map(|_| ())
    }
}

/// The exponent `BigDecimal(String)` reads from these digits (`parseExp`): leading zeros are
/// skipped while more than ten digits remain, more than ten significant digits or a value
/// outside `int` fail.
fn java_big_decimal_exponent(digits: &[u8], negative: bool) -> Option<i64> {
    let mut d = digits;
    while d.len() > 10 && d[0] == b'0' {
        d = &d[1..];
    }
    if d.len() > 10 {
        return None;
    }
    let magnitude = d
        .iter()
        .fold(0i64, |acc, &b| acc * 10 + i64::from(b - b'0'));
    let exponent = if negative { -magnitude } else { magnitude };
    i32::try_from(exponent).ok().map(i64::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    use arrow::array::{ArrayRef, RecordBatch, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};

    use crate::calc::compile;
    use crate::calc::program::{CalcProgram, Expr};
    use crate::changelog::ChangelogBatch;

    /// (text, IS JSON VALUE, SCALAR, ARRAY, OBJECT) as released Flink 2.3.0's
    /// `SqlJsonUtils.isJsonValue/isJsonScalar/isJsonArray/isJsonObject` answer them (run on
    /// its classpath under JDK 17).
    const FLINK: &[(&str, bool, bool, bool, bool)] = &[
        ("", false, false, false, false),
        (" ", false, false, false, false),
        ("1", true, true, false, false),
        (" 1 ", true, true, false, false),
        ("01", false, false, false, false),
        ("-01", false, false, false, false),
        ("0", true, true, false, false),
        ("-0", true, true, false, false),
        ("1.", false, false, false, false),
        (".5", false, false, false, false),
        ("1.5", true, true, false, false),
        ("1e5", true, true, false, false),
        ("1E+5", true, true, false, false),
        ("1e-5", true, true, false, false),
        ("1e", false, false, false, false),
        ("-", false, false, false, false),
        ("+1", false, false, false, false),
        ("NaN", false, false, false, false),
        ("Infinity", false, false, false, false),
        ("-Infinity", false, false, false, false),
        ("true", true, true, false, false),
        ("false", true, true, false, false),
        ("null", true, true, false, false),
        ("True", false, false, false, false),
        ("nul", false, false, false, false),
        ("truex", false, false, false, false),
        ("true]", true, true, false, false),
        ("true,", true, true, false, false),
        ("true x", true, true, false, false),
        ("1 2", true, true, false, false),
        ("1x", false, false, false, false),
        ("1,", false, false, false, false),
        ("1]", false, false, false, false),
        ("[1]x", true, false, true, false),
        ("{}x", true, false, false, true),
        ("{} x", true, false, false, true),
        ("{}}", true, false, false, true),
        ("[1,]", false, false, false, false),
        ("[,1]", false, false, false, false),
        ("[]", true, false, true, false),
        ("{}", true, false, false, true),
        ("{\"a\":1}", true, false, false, true),
        ("{\"a\":1,\"a\":2}", true, false, false, true),
        ("{a:1}", false, false, false, false),
        ("{'a':1}", false, false, false, false),
        ("'a'", false, false, false, false),
        ("\"a\"", true, true, false, false),
        ("\"a", false, false, false, false),
        ("\"\\x\"", false, false, false, false),
        ("\"\\u00e9\"", true, true, false, false),
        ("\"\\ud800\"", true, true, false, false),
        ("\"\\u12\"", false, false, false, false),
        ("\"a\tb\"", false, false, false, false),
        ("\"a\u{1}b\"", false, false, false, false),
        ("\"é😀\"", true, true, false, false),
        ("[1,2,[3,{\"b\":null}]]", true, false, true, false),
        ("{\"a\":}", false, false, false, false),
        ("{\"a\" 1}", false, false, false, false),
        ("{\"a\":1,}", false, false, false, false),
        ("[1 2]", false, false, false, false),
        ("\u{feff}1", false, false, false, false),
        ("\u{feff}{}", false, false, false, false),
        ("\t\r\n1\n", true, true, false, false),
        ("\u{a0}1", false, false, false, false),
        ("1\u{a0}", false, false, false, false),
        ("/*c*/1", false, false, false, false),
        ("1//c", false, false, false, false),
        ("#1", false, false, false, false),
        ("[\"a\",\"b\"]", true, false, true, false),
        ("1e400", true, true, false, false),
        ("1e2147483647", true, true, false, false),
        ("1e2147483648", false, false, false, false),
        ("1e-2147483648", false, false, false, false),
        ("0.1e-2147483648", false, false, false, false),
        ("1e99999999999", false, false, false, false),
        ("123456789012345678901234567890", true, true, false, false),
        ("1.0E+2", true, true, false, false),
        ("0e0", true, true, false, false),
        ("-0.0", true, true, false, false),
        ("00", false, false, false, false),
        ("0x10", false, false, false, false),
        ("1_0", false, false, false, false),
        ("\"\\/\"", true, true, false, false),
        ("\"\\b\\f\\n\\r\\t\"", true, true, false, false),
        ("\"\\U0041\"", false, false, false, false),
        ("[1]]", true, false, true, false),
        ("{}]", true, false, false, true),
        ("{\"a\":[}", false, false, false, false),
        ("\u{0}", false, false, false, false),
        ("1\u{0}", false, false, false, false),
        ("[1]\u{0}", true, false, true, false),
        ("{\"\":1}", true, false, false, true),
        ("{\"a\":1 \"b\":2}", false, false, false, false),
        ("[null,true,false]", true, false, true, false),
        ("  [  ]  ", true, false, true, false),
        ("1 /", true, true, false, false),
        ("1 ]", true, true, false, false),
        ("\"a\" \"b\"", true, true, false, false),
        ("\"a\"x", true, true, false, false),
        ("nullx", false, false, false, false),
        ("null]", true, true, false, false),
        ("-1e-0", true, true, false, false),
        ("1.e5", false, false, false, false),
        ("1.5e", false, false, false, false),
        ("1.5e+", false, false, false, false),
        ("2.", false, false, false, false),
        ("-.5", false, false, false, false),
        (" \u{b}1", false, false, false, false),
        ("\u{c}1", false, false, false, false),
        ("\u{2028}1", false, false, false, false),
        ("1e-2147483647", true, true, false, false),
        ("0.1e-2147483647", false, false, false, false),
        ("1e00000000002", true, true, false, false),
        ("1.5e-2147483647", false, false, false, false),
        ("1.5e-2147483646", true, true, false, false),
        ("[1e2147483648]", false, false, false, false),
        ("0e2147483648", false, false, false, false),
        ("1e12345678901", false, false, false, false),
    ];

    fn flags(kind: Option<JsonKind>) -> (bool, bool, bool, bool) {
        (
            Want::Value.accepts(kind),
            Want::Scalar.accepts(kind),
            Want::Array.accepts(kind),
            Want::Object.accepts(kind),
        )
    }

    #[test]
    fn classification_matches_flinks_sql_json_utils() {
        for &(text, value, scalar, array, object) in FLINK {
            assert_eq!(
                flags(classify(text)),
                (value, scalar, array, object),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_root_keyword_must_not_run_into_a_java_identifier() {
        // `"true" + c` and `"null" + c` as Flink's SqlJsonUtils answer them; inside an array
        // every one of them fails (a comma or `]` must follow).
        let flink = [
            ('²', true),
            ('é', false),
            ('\u{200b}', false),
            ('😀', true),
            ('$', true),
            ('_', false),
            ('\u{a0}', true),
            ('\u{ad}', false),
            ('٣', false),
            ('\u{300}', false),
            ('\u{2160}', false),
            ('\u{203f}', false),
            ('\u{a2}', false),
            ('\u{e00}', true),
            ('\u{7f}', false),
            ('\u{85}', false),
            ('\u{61c}', false),
            ('\u{ffff}', true),
            ('~', true),
            ('{', true),
            ('[', true),
            ('"', true),
            (':', true),
            ('@', true),
            ('^', true),
            ('`', true),
            ('|', true),
            ('\u{3000}', true),
            ('\u{b7}', true),
            ('\u{2e2f}', false),
            ('\u{378}', true),
        ];
        for (c, valid) in flink {
            for word in ["true", "null"] {
                let text = format!("{word}{c}");
                assert_eq!(classify(&text).is_some(), valid, "{text:?}");
                assert_eq!(classify(&format!("[{text}]")), None, "[{text:?}]");
            }
        }
    }

    #[test]
    fn jackson_stream_read_constraints() {
        // Nesting depth 1000 (Flink: `[`×1000 `]`×1000 is JSON, ×1001 is not).
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(classify(&nested(1000)), Some(JsonKind::Array));
        assert_eq!(classify(&nested(1001)), None);
        assert_eq!(classify(&"[".repeat(1000)), None);
        let objects = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        assert_eq!(classify(&objects(1000)), Some(JsonKind::Object));
        assert_eq!(classify(&objects(1001)), None);
        // Names up to 50,000 and strings up to 20,000,000 UTF-16 units.
        let key = |n: usize| format!("{{\"{}\":1}}", "a".repeat(n));
        assert_eq!(classify(&key(50_000)), Some(JsonKind::Object));
        assert_eq!(classify(&key(50_001)), None);
        // A non-BMP character is two units: 25,000 of them fill a name.
        assert!(classify(&format!("{{\"{}\":1}}", "😀".repeat(25_000))).is_some());
        assert!(classify(&format!("{{\"{}\":1}}", "😀".repeat(25_001))).is_none());
        let string = |n: usize| format!("\"{}\"", "a".repeat(n));
        assert_eq!(classify(&string(20_000_000)), Some(JsonKind::Scalar));
        assert_eq!(classify(&string(20_000_001)), None);
        // Integers up to 1000 digits (sign not counted), at the root and nested.
        let ones = |n: usize| "1".repeat(n);
        assert!(classify(&ones(1000)).is_some());
        assert!(classify(&ones(1001)).is_none());
        assert!(classify(&format!("-{}", ones(1000))).is_some());
        assert!(classify(&format!("-{}", ones(1001))).is_none());
        assert!(classify(&format!("[{}]", ones(1001))).is_none());
        assert!(classify(&format!("{}.1", ones(1001))).is_none());
        assert!(classify(&format!("{}e1", ones(1001))).is_none());
        assert!(classify(&format!("{}e5", ones(998))).is_some());
    }

    fn run(op: u16, values: &[Option<&str>]) -> Vec<Option<bool>> {
        let calc = compile(
            &CalcProgram::project(vec![Expr::call(op, vec![Expr::input(0)])]),
            &[LogicalType::VarChar(i32::MAX as u32)],
        )
        .unwrap();
        assert_eq!(calc.output_types(), &[LogicalType::Boolean]);
        let column: ArrayRef = Arc::new(StringArray::from(values.to_vec()));
        let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, true)]));
        let batch = RecordBatch::try_new(schema, vec![column]).unwrap();
        let out = calc.evaluate(&ChangelogBatch::insert_only(batch)).unwrap();
        out.batch().column(0).as_boolean().iter().collect()
    }

    #[test]
    fn predicates_through_the_compiler_never_return_null() {
        let input = [Some("{}"), Some("[1]"), Some("1"), Some("x"), None];
        let t = Some(true);
        let f = Some(false);
        assert_eq!(run(IS_JSON_VALUE, &input), vec![t, t, t, f, f]);
        assert_eq!(run(IS_JSON_SCALAR, &input), vec![f, f, t, f, f]);
        assert_eq!(run(IS_JSON_ARRAY, &input), vec![f, t, f, f, f]);
        assert_eq!(run(IS_JSON_OBJECT, &input), vec![t, f, f, f, f]);
        assert_eq!(run(IS_NOT_JSON_VALUE, &input), vec![f, f, f, t, t]);
        assert_eq!(run(IS_NOT_JSON_SCALAR, &input), vec![t, t, f, t, t]);
        assert_eq!(run(IS_NOT_JSON_ARRAY, &input), vec![t, f, t, t, t]);
        assert_eq!(run(IS_NOT_JSON_OBJECT, &input), vec![f, t, t, t, t]);
    }
}
