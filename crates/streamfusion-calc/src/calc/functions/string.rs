//! String functions (opcodes 300–399) with Flink's semantics (`BinaryStringData`,
//! `BinaryStringDataUtil`, `SqlFunctionUtils`).
//!
//! Every function returns NULL when any argument is NULL, except `CONCAT_WS` (NULL values
//! are skipped; a NULL separator gives NULL). Positions and lengths count code points, except
//! `LPAD`/`RPAD` and `REPLACE` with an empty search string, which Flink computes on Java
//! UTF-16 units (a surrogate pair split by them becomes `?` each, as Flink's UTF-8 encoding of
//! a lone surrogate does).
//!
//! TRIM is three opcodes, one per side, each `(s[, characters])`: `characters` defaults to a
//! single space, and any of its code points is trimmed (Flink's `TRIM(BOTH 'xy' FROM s)` is
//! `TRIM_BOTH(s, 'xy')`). `POSITION(a IN b)` is `POSITION(a, b)`. `LTRIM`/`RTRIM` take the
//! same optional `characters`. Flink reads a character set as spaces only when it is `" "`
//! (a literal) or, for a set read from row bytes, whenever its first byte is a space
//! (`BinaryStringDataUtil.isSpaceString`): a non-literal set that is empty or starts with a
//! space other than `" "` fails instead of guessing which ([`trim_set`]).
//!
//! Integer arguments (positions, lengths, group indexes) accept TINYINT, SMALLINT and INT,
//! cast to INT as Flink's generated code takes Java `int`s.
//!
//! Regular expressions are Java's, translated for `fancy-regex` ([`super::java_regex`]). A
//! literal pattern compiles once when the call binds; a pattern Java rejects gives NULL, as
//! Flink's functions catch the `PatternSyntaxException`.

use std::sync::Arc;

use arrow::array::{Array, AsArray, BooleanArray, Int32Array, StringArray, StringBuilder};
use datafusion::common::ScalarValue;
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;

use crate::calc::coercion::is_string;
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::java_regex::{JavaRegex, PatternError};
use super::util::{arrays, fail, result};

/// `CHAR_LENGTH(s)`: the number of code points.
pub const CHAR_LENGTH: u16 = 300;
/// `UPPER(s)`: Java's `String.toUpperCase` (full case mapping: `ß` → `SS`); keeps the type.
pub const UPPER: u16 = 301;
/// `LOWER(s)`: Java's `String.toLowerCase` (final sigma); keeps the type.
pub const LOWER: u16 = 302;
/// `SUBSTRING(s, pos[, len])`: 1-based, negative `pos` counts from the end, `pos` 0 is 1,
/// negative `len` is NULL. `VARCHAR(n)` of the argument's length.
pub const SUBSTRING: u16 = 303;
/// `a || b`: `CHAR(a+b)` when both are CHAR, else `VARCHAR(a+b)` (capped).
pub const CONCAT_OP: u16 = 304;
/// `CONCAT(s, ...)`: NULL if any is NULL. `STRING`.
pub const CONCAT: u16 = 305;
/// `CONCAT_WS(sep, s, ...)`: NULL values skipped, NULL separator gives NULL. `STRING`.
pub const CONCAT_WS: u16 = 306;
/// `TRIM(BOTH [chars] FROM s)` as `(s[, chars])`. `VARCHAR(n)`.
pub const TRIM_BOTH: u16 = 307;
/// `TRIM(LEADING [chars] FROM s)` as `(s[, chars])`. `VARCHAR(n)`.
pub const TRIM_LEADING: u16 = 308;
/// `TRIM(TRAILING [chars] FROM s)` as `(s[, chars])`. `VARCHAR(n)`.
pub const TRIM_TRAILING: u16 = 309;
/// `LTRIM(s[, characters])`: leading spaces (or `characters`) removed. `VARCHAR(n)`.
pub const LTRIM: u16 = 310;
/// `RTRIM(s[, characters])`: trailing spaces (or `characters`) removed. `VARCHAR(n)`.
pub const RTRIM: u16 = 311;
/// `LPAD(s, len, pad)`: NULL for negative `len` or empty `pad`. `STRING`.
pub const LPAD: u16 = 312;
/// `RPAD(s, len, pad)`: NULL for negative `len` or empty `pad`. `STRING`.
pub const RPAD: u16 = 313;
/// `REPLACE(s, search, replacement)`: Java's `String.replace`. `STRING`.
pub const REPLACE: u16 = 314;
/// `POSITION(a IN b)` as `(a, b)`: 1-based code point index of `a` in `b`, 0 if absent. `INT`.
pub const POSITION: u16 = 315;
/// `INITCAP(s)`: ASCII letters only, as `SqlFunctionUtils.initcap`. Keeps the type.
pub const INITCAP: u16 = 316;
/// `REGEXP_EXTRACT(s, regex[, group])`: the group (default 0) of the first match, NULL when
/// none or the group does not exist. `STRING`.
pub const REGEXP_EXTRACT: u16 = 317;
/// `REGEXP_REPLACE(s, regex, replacement)`: every match replaced by the literal replacement.
/// `STRING`.
pub const REGEXP_REPLACE: u16 = 318;
/// `SPLIT_INDEX(s, sep, index)`: the 0-based `index`th token of `s` split on the whole `sep`
/// (an empty `sep` splits on Java whitespace), NULL when out of range. `STRING`.
pub const SPLIT_INDEX: u16 = 319;
/// `s LIKE pattern [ESCAPE e]` as `(s, pattern[, e])`: `%` any sequence, `_` any one code
/// point except a Java line terminator (Flink compiles `_` to Java's `.`); no escape unless
/// given. `BOOLEAN`. `NOT LIKE` is `NOT` of it.
pub const LIKE: u16 = 320;
/// `REGEXP(s, pattern)`: whether Java's regex finds a match in `s` (`SqlFunctionUtils.regExp`);
/// FALSE for an empty or invalid pattern. BOOLEAN.
pub const REGEXP: u16 = 321;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: CHAR_LENGTH,
        name: "CHAR_LENGTH",
        arity: Arity::Exact(1),
        bind: bind_char_length,
    },
    FunctionDef {
        opcode: UPPER,
        name: "UPPER",
        arity: Arity::Exact(1),
        bind: |a| bind_same_type(a, "UPPER", upper),
    },
    FunctionDef {
        opcode: LOWER,
        name: "LOWER",
        arity: Arity::Exact(1),
        bind: |a| bind_same_type(a, "LOWER", lower),
    },
    FunctionDef {
        opcode: SUBSTRING,
        name: "SUBSTRING",
        arity: Arity::Range(2, 3),
        bind: bind_substring,
    },
    FunctionDef {
        opcode: CONCAT_OP,
        name: "||",
        arity: Arity::Exact(2),
        bind: bind_concat_op,
    },
    FunctionDef {
        opcode: CONCAT,
        name: "CONCAT",
        arity: Arity::AtLeast(1),
        bind: bind_concat,
    },
    FunctionDef {
        opcode: CONCAT_WS,
        name: "CONCAT_WS",
        arity: Arity::AtLeast(1),
        bind: bind_concat_ws,
    },
    FunctionDef {
        opcode: TRIM_BOTH,
        name: "TRIM",
        arity: Arity::Range(1, 2),
        bind: |a| bind_trim(a, "TRIM", true, true),
    },
    FunctionDef {
        opcode: TRIM_LEADING,
        name: "TRIM",
        arity: Arity::Range(1, 2),
        bind: |a| bind_trim(a, "TRIM_LEADING", true, false),
    },
    FunctionDef {
        opcode: TRIM_TRAILING,
        name: "TRIM",
        arity: Arity::Range(1, 2),
        bind: |a| bind_trim(a, "TRIM_TRAILING", false, true),
    },
    FunctionDef {
        opcode: LTRIM,
        name: "LTRIM",
        arity: Arity::Range(1, 2),
        bind: |a| bind_trim(a, "LTRIM", true, false),
    },
    FunctionDef {
        opcode: RTRIM,
        name: "RTRIM",
        arity: Arity::Range(1, 2),
        bind: |a| bind_trim(a, "RTRIM", false, true),
    },
    FunctionDef {
        opcode: LPAD,
        name: "LPAD",
        arity: Arity::Exact(3),
        bind: |a| bind_pad(a, "LPAD", true),
    },
    FunctionDef {
        opcode: RPAD,
        name: "RPAD",
        arity: Arity::Exact(3),
        bind: |a| bind_pad(a, "RPAD", false),
    },
    FunctionDef {
        opcode: REPLACE,
        name: "REPLACE",
        arity: Arity::Exact(3),
        bind: bind_replace,
    },
    FunctionDef {
        opcode: POSITION,
        name: "POSITION",
        arity: Arity::Exact(2),
        bind: bind_position,
    },
    FunctionDef {
        opcode: INITCAP,
        name: "INITCAP",
        arity: Arity::Exact(1),
        bind: |a| bind_same_type(a, "INITCAP", initcap),
    },
    FunctionDef {
        opcode: REGEXP_EXTRACT,
        name: "REGEXP_EXTRACT",
        arity: Arity::Range(2, 3),
        bind: bind_regexp_extract,
    },
    FunctionDef {
        opcode: REGEXP_REPLACE,
        name: "REGEXP_REPLACE",
        arity: Arity::Exact(3),
        bind: bind_regexp_replace,
    },
    FunctionDef {
        opcode: REGEXP,
        name: "REGEXP",
        arity: Arity::Exact(2),
        bind: bind_regexp,
    },
    FunctionDef {
        opcode: SPLIT_INDEX,
        name: "SPLIT_INDEX",
        arity: Arity::Exact(3),
        bind: bind_split_index,
    },
    FunctionDef {
        opcode: LIKE,
        name: "LIKE",
        arity: Arity::Range(2, 3),
        bind: bind_like,
    },
];

/// `STRING`: Flink's `VARCHAR` with no precision (`FlinkTypeSystem`'s default).
pub(super) const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);

/// The largest total of string bytes one Arrow Utf8 array holds (i32 offsets).
const MAX_ARRAY_BYTES: usize = i32::MAX as usize;

/// The most value bytes a result builder reserves up front.
const PREALLOCATE_BYTES: usize = 64 << 20;

// ---------------------------------------------------------------------------------------------
// Binding helpers

/// The argument types, each string kept and each integer (up to INT) cast to INT; `ints`
/// lists the integer positions.
pub(super) fn coerce(args: &Args<'_>, ints: &[usize]) -> Result<Vec<LogicalType>, String> {
    args.types
        .iter()
        .enumerate()
        .map(|(i, ty)| {
            if ints.contains(&i) {
                match ty {
                    LogicalType::TinyInt | LogicalType::SmallInt | LogicalType::Int => {
                        Ok(LogicalType::Int)
                    }
                    _ => Err(format!(
                        "argument {} must be TINYINT, SMALLINT or INT, not {ty}",
                        i + 1
                    )),
                }
            } else if is_string(ty) {
                Ok(ty.clone())
            } else {
                Err(format!("argument {} must be a string, not {ty}", i + 1))
            }
        })
        .collect()
}

/// The length of a CHAR/VARCHAR type.
pub(super) fn string_length(ty: &LogicalType) -> u32 {
    match ty {
        LogicalType::Char(n) | LogicalType::VarChar(n) => *n,
        _ => i32::MAX as u32,
    }
}

/// A string argument's literal value: `Some(None)` for a NULL literal, `None` if not literal.
pub(super) fn literal_str<'a>(args: &'a Args<'_>, i: usize) -> Option<Option<&'a str>> {
    match args.literal(i)? {
        ScalarValue::Utf8(s) | ScalarValue::LargeUtf8(s) | ScalarValue::Utf8View(s) => {
            Some(s.as_deref())
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Kernel helpers

/// A string argument: a scalar stays scalar.
pub(super) enum Strs<'a> {
    Scalar(Option<&'a str>),
    Array(&'a StringArray),
}

impl<'a> Strs<'a> {
    pub(super) fn new(v: &'a ColumnarValue) -> DfResult<Self> {
        match v {
            ColumnarValue::Scalar(
                ScalarValue::Utf8(s) | ScalarValue::LargeUtf8(s) | ScalarValue::Utf8View(s),
            ) => Ok(Strs::Scalar(s.as_deref())),
            ColumnarValue::Array(a) => a
                .as_string_opt::<i32>()
                .map(Strs::Array)
                .ok_or_else(|| fail(format!("expected a Utf8 array, found {}", a.data_type()))),
            ColumnarValue::Scalar(s) => Err(fail(format!(
                "expected a Utf8 value, found {}",
                s.data_type()
            ))),
        }
    }

    pub(super) fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            Strs::Scalar(s) => *s,
            Strs::Array(a) => (!a.is_null(i)).then(|| a.value(i)),
        }
    }

    /// The bytes of the values (a scalar counts once per row), for sizing builders.
    pub(super) fn bytes(&self, rows: usize) -> usize {
        match self {
            Strs::Scalar(s) => s.map_or(0, str::len).saturating_mul(rows),
            Strs::Array(a) => a.value_data().len(),
        }
    }
}

/// An INT argument: a scalar stays scalar.
pub(super) enum Ints<'a> {
    Scalar(Option<i32>),
    Array(&'a Int32Array),
}

impl<'a> Ints<'a> {
    pub(super) fn new(v: &'a ColumnarValue) -> DfResult<Self> {
        match v {
            ColumnarValue::Scalar(ScalarValue::Int32(x)) => Ok(Ints::Scalar(*x)),
            ColumnarValue::Array(a) => a
                .as_primitive_opt()
                .map(Ints::Array)
                .ok_or_else(|| fail(format!("expected an Int32 array, found {}", a.data_type()))),
            ColumnarValue::Scalar(s) => Err(fail(format!(
                "expected an INT value, found {}",
                s.data_type()
            ))),
        }
    }

    pub(super) fn get(&self, i: usize) -> Option<i32> {
        match self {
            Ints::Scalar(x) => *x,
            Ints::Array(a) => (!a.is_null(i)).then(|| a.value(i)),
        }
    }
}

/// How many rows to compute: one when every argument is scalar (the result stays scalar).
pub(super) fn row_count(args: &[ColumnarValue], rows: usize) -> usize {
    if args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_))) {
        1
    } else {
        rows
    }
}

/// A Utf8 result built row by row, failing (instead of overflowing the i32 offsets) when
/// the values exceed what one array holds.
pub(super) struct Out {
    builder: StringBuilder,
    bytes: usize,
    name: &'static str,
}

impl Out {
    pub(super) fn new(name: &'static str, rows: usize, bytes: usize) -> Self {
        Self {
            // An estimate only: the builder grows past it when it must.
            builder: StringBuilder::with_capacity(rows, bytes.min(PREALLOCATE_BYTES)),
            bytes: 0,
            name,
        }
    }

    /// Fails unless `more` bytes still fit.
    pub(super) fn reserve(&self, more: usize) -> DfResult<()> {
        if self.bytes.saturating_add(more) > MAX_ARRAY_BYTES {
            return Err(fail(format!(
                "{}: the results of one batch exceed {MAX_ARRAY_BYTES} bytes",
                self.name
            )));
        }
        Ok(())
    }

    pub(super) fn push(&mut self, value: Option<&str>) -> DfResult<()> {
        match value {
            Some(v) => {
                self.reserve(v.len())?;
                self.bytes += v.len();
                self.builder.append_value(v);
            }
            None => self.builder.append_null(),
        }
        Ok(())
    }

    pub(super) fn finish(mut self, args: &[ColumnarValue]) -> DfResult<ColumnarValue> {
        result(args, Arc::new(self.builder.finish()))
    }
}

/// A one-string-argument kernel: `f` writes each non-NULL value's result into a reused
/// buffer.
pub(super) fn map_one(
    args: &[ColumnarValue],
    rows: usize,
    name: &'static str,
    f: impl Fn(&str, &mut String),
) -> DfResult<ColumnarValue> {
    let n = row_count(args, rows);
    let s = Strs::new(&args[0])?;
    let mut out = Out::new(name, n, s.bytes(n));
    let mut buf = String::new();
    for i in 0..n {
        match s.get(i) {
            Some(v) => {
                buf.clear();
                f(v, &mut buf);
                out.push(Some(&buf))?;
            }
            None => out.push(None)?,
        }
    }
    out.finish(args)
}

// ---------------------------------------------------------------------------------------------
// CHAR_LENGTH, UPPER, LOWER, INITCAP

fn bind_char_length(args: &Args<'_>) -> Result<Bound, String> {
    if !is_string(&args.types[0]) {
        return Err("the argument must be a string".into());
    }
    Ok(Bound {
        args: args.types.to_vec(),
        result: LogicalType::Int,
        kernel: Kernel::function("CHAR_LENGTH", &LogicalType::Int, |args, rows| {
            let a = arrays(args, rows)?;
            let out: Int32Array = a[0]
                .as_string::<i32>()
                .iter()
                .map(|s| s.map(|s| s.chars().count() as i32))
                .collect();
            result(args, Arc::new(out))
        }),
    })
}

/// A one-string function whose result has the argument's type (Calcite's `ARG0_NULLABLE`).
fn bind_same_type(
    args: &Args<'_>,
    name: &'static str,
    f: fn(&str, &mut String),
) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    let result_type = types[0].clone();
    Ok(Bound {
        args: types,
        result: result_type.clone(),
        kernel: Kernel::function(name, &result_type, move |args, rows| {
            map_one(args, rows, name, f)
        }),
    })
}

/// `BinaryStringData.toUpperCase`: Java's full, context-free case mapping (`ß` → `SS`), which
/// Rust's `char::to_uppercase` shares (both from Unicode's `SpecialCasing`).
fn upper(s: &str, out: &mut String) {
    if s.is_ascii() {
        let start = out.len();
        out.push_str(s);
        out[start..].make_ascii_uppercase();
    } else {
        out.push_str(&s.to_uppercase());
    }
}

/// `BinaryStringData.toLowerCase`: Java's mapping, whose only context rule outside the
/// Turkic/Lithuanian locales is the final sigma, which `str::to_lowercase` applies too.
fn lower(s: &str, out: &mut String) {
    if s.is_ascii() {
        let start = out.len();
        out.push_str(s);
        out[start..].make_ascii_lowercase();
    } else {
        out.push_str(&s.to_lowercase());
    }
}

/// `SqlFunctionUtils.initcap`: an ASCII letter is upper-cased after any character that is
/// not an ASCII letter or digit and lower-cased otherwise; other characters are kept.
fn initcap(s: &str, out: &mut String) {
    let mut capitalize = true;
    for c in s.chars() {
        if c.is_ascii_digit() {
            capitalize = false;
            out.push(c);
        } else if c.is_ascii_alphabetic() {
            out.push(if capitalize {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            });
            capitalize = false;
        } else {
            // Java keeps the flag set while it is set; otherwise any other char sets it.
            capitalize = true;
            out.push(c);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// SUBSTRING

fn bind_substring(args: &Args<'_>) -> Result<Bound, String> {
    let ints: &[usize] = if args.types.len() == 3 { &[1, 2] } else { &[1] };
    let types = coerce(args, ints)?;
    // Calcite's ARG0_VARCHAR_FORCE_NULLABLE.
    let result_type = LogicalType::VarChar(string_length(&types[0]));
    Ok(Bound {
        args: types,
        result: result_type.clone(),
        kernel: Kernel::function("SUBSTRING", &result_type, |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let pos = Ints::new(&args[1])?;
            let len = args.get(2).map(Ints::new).transpose()?;
            let mut out = Out::new("SUBSTRING", n, s.bytes(n));
            for i in 0..n {
                let value = match (s.get(i), pos.get(i)) {
                    (Some(s), Some(p)) => match &len {
                        None => substring(s, p, i32::MAX),
                        Some(l) => l.get(i).and_then(|l| substring(s, p, l)),
                    },
                    _ => None,
                };
                out.push(value)?;
            }
            out.finish(args)
        }),
    })
}

/// `BinaryStringDataUtil.substringSQL`: code point positions, 1-based; a negative `pos`
/// counts from the end, 0 acts as 1; a negative `len` is NULL; out of range is empty.
pub(super) fn substring(s: &str, pos: i32, len: i32) -> Option<&str> {
    if len < 0 {
        return None;
    }
    let chars = s.chars().count() as i64;
    let start = match pos {
        p if p > 0 => i64::from(p) - 1,
        p if p < 0 => chars + i64::from(p),
        _ => 0,
    };
    if start < 0 || start >= chars {
        return Some("");
    }
    let count = (i64::from(len)).min(chars - start) as usize;
    let from = s
        .char_indices()
        .nth(start as usize)
        .map_or(s.len(), |(b, _)| b);
    let rest = &s[from..];
    let to = rest
        .char_indices()
        .nth(count)
        .map_or(rest.len(), |(b, _)| b);
    Some(&rest[..to])
}

// ---------------------------------------------------------------------------------------------
// ||, CONCAT, CONCAT_WS

fn bind_concat_op(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    // Calcite's DYADIC_STRING_SUM_PRECISION: CHAR only if both are CHAR.
    let len = string_length(&types[0])
        .saturating_add(string_length(&types[1]))
        .min(i32::MAX as u32);
    let result_type = match (&types[0], &types[1]) {
        (LogicalType::Char(_), LogicalType::Char(_)) => LogicalType::Char(len),
        _ => LogicalType::VarChar(len),
    };
    Ok(Bound {
        args: types,
        result: result_type.clone(),
        kernel: Kernel::function("||", &result_type, |args, rows| concat(args, rows, "||")),
    })
}

fn bind_concat(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("CONCAT", &STRING, |args, rows| concat(args, rows, "CONCAT")),
    })
}

/// `BinaryStringDataUtil.concat`: NULL if any argument is NULL.
fn concat(args: &[ColumnarValue], rows: usize, name: &'static str) -> DfResult<ColumnarValue> {
    let n = row_count(args, rows);
    let cols = args.iter().map(Strs::new).collect::<DfResult<Vec<_>>>()?;
    let bytes = cols
        .iter()
        .map(|c| c.bytes(n))
        .fold(0usize, usize::saturating_add);
    let mut out = Out::new(name, n, bytes);
    let mut buf = String::new();
    'rows: for i in 0..n {
        buf.clear();
        for c in &cols {
            match c.get(i) {
                Some(v) => {
                    out.reserve(buf.len().saturating_add(v.len()))?;
                    buf.push_str(v);
                }
                None => {
                    out.push(None)?;
                    continue 'rows;
                }
            }
        }
        out.push(Some(&buf))?;
    }
    out.finish(args)
}

fn bind_concat_ws(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("CONCAT_WS", &STRING, |args, rows| {
            let n = row_count(args, rows);
            let sep = Strs::new(&args[0])?;
            let cols = args[1..]
                .iter()
                .map(Strs::new)
                .collect::<DfResult<Vec<_>>>()?;
            let bytes = cols
                .iter()
                .map(|c| c.bytes(n))
                .fold(0usize, usize::saturating_add);
            let mut out = Out::new("CONCAT_WS", n, bytes);
            let mut buf = String::new();
            for i in 0..n {
                let Some(sep) = sep.get(i) else {
                    out.push(None)?;
                    continue;
                };
                buf.clear();
                let mut first = true;
                for v in cols.iter().filter_map(|c| c.get(i)) {
                    let more = if first { 0 } else { sep.len() };
                    out.reserve(buf.len().saturating_add(more).saturating_add(v.len()))?;
                    if !first {
                        buf.push_str(sep);
                    }
                    buf.push_str(v);
                    first = false;
                }
                out.push(Some(&buf))?;
            }
            out.finish(args)
        }),
    })
}

// ---------------------------------------------------------------------------------------------
// TRIM, LTRIM, RTRIM

fn bind_trim(
    args: &Args<'_>,
    name: &'static str,
    leading: bool,
    trailing: bool,
) -> Result<Bound, String> {
    // TRIM: Calcite's ARG2 nullable varying; LTRIM/RTRIM: ARG0 nullable varying.
    let result_type = |types: &[LogicalType]| LogicalType::VarChar(string_length(&types[0]));
    bind_trim_to(args, name, leading, trailing, result_type)
}

/// A trim of `(s[, characters])` from the chosen sides, its result type computed from the
/// coerced argument types.
pub(super) fn bind_trim_to(
    args: &Args<'_>,
    name: &'static str,
    leading: bool,
    trailing: bool,
    result_type: fn(&[LogicalType]) -> LogicalType,
) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    let result_type = result_type(&types);
    // A literal character set is a Java String in Flink's generated code (see `trim_set`).
    let literal_set = literal_str(args, 1).is_some();
    Ok(Bound {
        args: types,
        result: result_type.clone(),
        kernel: Kernel::function(name, &result_type, move |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let chars = args.get(1).map(Strs::new).transpose()?;
            let mut out = Out::new(name, n, s.bytes(n));
            for i in 0..n {
                let set = match &chars {
                    None => Some(" "),
                    Some(c) => c.get(i),
                };
                let value = match (s.get(i), set) {
                    (Some(s), Some(set)) => Some(trim(
                        s,
                        trim_set(set, literal_set, name)?,
                        leading,
                        trailing,
                    )),
                    _ => None,
                };
                out.push(value)?;
            }
            out.finish(args)
        }),
    })
}

/// The characters `BinaryStringDataUtil.trimLeft`/`trimRight(str, trimStr)` strip:
/// `isSpaceString(trimStr)` takes a set made from a Java String (a literal) as spaces only
/// when it is exactly `" "`, but a set read from row bytes as spaces only whenever its first
/// byte is a space (and reads a byte past an empty one). Which one a computed set is cannot
/// be told here, so a non-literal set that starts with a space (other than `" "`) or is
/// empty fails instead of guessing.
pub(super) fn trim_set<'a>(set: &'a str, literal: bool, name: &str) -> DfResult<&'a str> {
    if literal || set == " " || !(set.is_empty() || set.starts_with(' ')) {
        Ok(set)
    } else {
        Err(fail(format!(
            "{name}: a computed character set {set:?} that is empty or starts with a space \
             reads differently in Flink depending on how it was made; not carried over"
        )))
    }
}

/// `BinaryStringDataUtil.trim*`: strips the code points in `set` from the chosen sides.
pub(super) fn trim<'a>(s: &'a str, set: &str, leading: bool, trailing: bool) -> &'a str {
    let strip = |c: char| set.contains(c);
    let s = if leading {
        s.trim_start_matches(strip)
    } else {
        s
    };
    if trailing {
        s.trim_end_matches(strip)
    } else {
        s
    }
}

// ---------------------------------------------------------------------------------------------
// LPAD, RPAD

fn bind_pad(args: &Args<'_>, name: &'static str, left: bool) -> Result<Bound, String> {
    let types = coerce(args, &[1])?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function(name, &STRING, move |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let len = Ints::new(&args[1])?;
            let pad_with = Strs::new(&args[2])?;
            let mut out = Out::new(name, n, s.bytes(n));
            let (mut base16, mut pad16, mut buf) = (Vec::new(), Vec::new(), String::new());
            for i in 0..n {
                let (Some(s), Some(len), Some(p)) = (s.get(i), len.get(i), pad_with.get(i)) else {
                    out.push(None)?;
                    continue;
                };
                if len < 0 || p.is_empty() {
                    out.push(None)?;
                    continue;
                }
                // Every UTF-16 unit is at least one UTF-8 byte: fail before building.
                out.reserve(len as usize)?;
                base16.clear();
                base16.extend(s.encode_utf16());
                pad16.clear();
                pad16.extend(p.encode_utf16());
                buf.clear();
                pad(&base16, len as usize, &pad16, left, &mut buf);
                out.push(Some(&buf))?;
            }
            out.finish(args)
        }),
    })
}

/// `SqlFunctionUtils.lpad`/`rpad` on UTF-16 units: the result has exactly `len` units, the
/// base truncated to fit and the pad repeated from its start. `pad` is not empty.
fn pad(base: &[u16], len: usize, pad: &[u16], left: bool, out: &mut String) {
    let fill = len.saturating_sub(base.len());
    let padding = (0..fill).map(|k| pad[k % pad.len()]);
    let kept = base.iter().copied().take(len - fill);
    if left {
        push_utf16(padding.chain(kept), out);
    } else {
        push_utf16(kept.chain(padding), out);
    }
}

/// UTF-16 units as UTF-8, a lone surrogate as `?` (Flink's `StringUtf8Utils.encodeUTF8`
/// falls back to Java's encoder, which writes `?`).
pub(super) fn push_utf16(units: impl Iterator<Item = u16>, out: &mut String) {
    out.extend(char::decode_utf16(units).map(|c| c.unwrap_or('?')));
}

// ---------------------------------------------------------------------------------------------
// REPLACE, POSITION

fn bind_replace(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("REPLACE", &STRING, |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let search = Strs::new(&args[1])?;
            let with = Strs::new(&args[2])?;
            let mut out = Out::new("REPLACE", n, s.bytes(n));
            let mut buf = String::new();
            for i in 0..n {
                let (Some(s), Some(search), Some(with)) = (s.get(i), search.get(i), with.get(i))
                else {
                    out.push(None)?;
                    continue;
                };
                buf.clear();
                replace(s, search, with, &mut buf, &out)?;
                out.push(Some(&buf))?;
            }
            out.finish(args)
        }),
    })
}

/// Java's `String.replace(CharSequence, CharSequence)`: non-overlapping, left to right; an
/// empty `search` inserts `with` around every UTF-16 unit (so between a surrogate pair's
/// halves, each then written as `?`).
fn replace(s: &str, search: &str, with: &str, buf: &mut String, out: &Out) -> DfResult<()> {
    if search.is_empty() {
        if with.is_empty() {
            buf.push_str(s);
            return Ok(());
        }
        let units = s.encode_utf16().count();
        out.reserve(s.len().saturating_add(with.len().saturating_mul(units + 1)))?;
        buf.push_str(with);
        for c in s.chars() {
            if c.len_utf16() == 2 {
                buf.push('?');
                buf.push_str(with);
                buf.push('?');
            } else {
                buf.push(c);
            }
            buf.push_str(with);
        }
        return Ok(());
    }
    let mut last = 0;
    for (at, _) in s.match_indices(search) {
        out.reserve(
            buf.len()
                .saturating_add(at - last)
                .saturating_add(with.len()),
        )?;
        buf.push_str(&s[last..at]);
        buf.push_str(with);
        last = at + search.len();
    }
    buf.push_str(&s[last..]);
    Ok(())
}

fn bind_position(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: LogicalType::Int,
        kernel: Kernel::function("POSITION", &LogicalType::Int, |args, rows| {
            let n = row_count(args, rows);
            let needle = Strs::new(&args[0])?;
            let haystack = Strs::new(&args[1])?;
            let out: Int32Array = (0..n)
                .map(|i| Some(position(needle.get(i)?, haystack.get(i)?)))
                .collect();
            result(args, Arc::new(out))
        }),
    })
}

/// `SqlFunctionUtils.position`: the 1-based code point index of `needle` in `haystack`, 0
/// when absent (an empty needle is at 1).
fn position(needle: &str, haystack: &str) -> i32 {
    haystack
        .find(needle)
        .map_or(0, |b| haystack[..b].chars().count() as i32 + 1)
}

// ---------------------------------------------------------------------------------------------
// SPLIT_INDEX

fn bind_split_index(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[2])?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("SPLIT_INDEX", &STRING, |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let sep = Strs::new(&args[1])?;
            let index = Ints::new(&args[2])?;
            let mut out = Out::new("SPLIT_INDEX", n, s.bytes(n));
            for i in 0..n {
                let value = match (s.get(i), sep.get(i), index.get(i)) {
                    (Some(s), Some(sep), Some(k)) => split_index(s, sep, k),
                    _ => None,
                };
                out.push(value)?;
            }
            out.finish(args)
        }),
    })
}

/// `SqlFunctionUtils.splitIndex` (commons-lang `splitByWholeSeparatorPreserveAllTokens`): an
/// empty string has no tokens; an empty separator splits on Java whitespace; empty tokens
/// are kept.
fn split_index<'a>(s: &'a str, sep: &str, index: i32) -> Option<&'a str> {
    let index = usize::try_from(index).ok()?;
    if s.is_empty() {
        return None;
    }
    if sep.is_empty() {
        s.split(is_java_whitespace).nth(index)
    } else {
        s.split(sep).nth(index)
    }
}

/// Java's `Character.isWhitespace` (Unicode 13 as in JDK 17): space separators other than
/// the no-break spaces, line and paragraph separators, and the ASCII controls TAB..CR and
/// FS..US.
fn is_java_whitespace(c: char) -> bool {
    matches!(c,
        '\t'..='\r' | '\u{1C}'..='\u{20}' | '\u{1680}' | '\u{2000}'..='\u{2006}'
        | '\u{2008}'..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{205F}' | '\u{3000}')
}

// ---------------------------------------------------------------------------------------------
// REGEXP_EXTRACT, REGEXP_REPLACE

/// A regex argument: compiled once when it is a literal, else per distinct row value.
pub(super) enum Pattern {
    /// A literal pattern; `None` when it is NULL or Java rejects it (every row is NULL, as
    /// Flink's functions catch the `PatternSyntaxException`).
    Literal(Option<Arc<JavaRegex>>),
    Column,
}

pub(super) fn bind_pattern(args: &Args<'_>) -> Result<Pattern, String> {
    Ok(match literal_str(args, 1) {
        Some(None) => Pattern::Literal(None),
        Some(Some(p)) => {
            Pattern::Literal(java_pattern(p).map_err(|e| e.to_string())?.map(Arc::new))
        }
        None => Pattern::Column,
    })
}

/// A pattern compiled, `None` when Java rejects it (Flink's functions catch the exception).
pub(super) fn java_pattern(p: &str) -> Result<Option<JavaRegex>, PatternError> {
    match JavaRegex::new(p) {
        Ok(re) => Ok(Some(re)),
        Err(PatternError::Invalid { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The last pattern text a column gave, and its compiled form (`None`: matches nothing).
pub(super) type PatternCache = Option<(String, Option<JavaRegex>)>;

/// Row pattern `p` compiled by `compile`, reusing the previous row's when the text repeats.
pub(super) fn cached_pattern<'c>(
    cache: &'c mut PatternCache,
    p: &str,
    name: &str,
    compile: fn(&str) -> Result<Option<JavaRegex>, PatternError>,
) -> DfResult<Option<&'c JavaRegex>> {
    if cache.as_ref().is_none_or(|(text, _)| text != p) {
        let re = compile(p).map_err(|e| fail(format!("{name}: {e}")))?;
        *cache = Some((p.to_owned(), re));
    }
    Ok(cache.as_ref().and_then(|(_, re)| re.as_ref()))
}

/// The regex of row `i` (`None`: NULL or invalid for Java).
pub(super) fn row_regex<'p>(
    pattern: &'p Pattern,
    column: &Strs<'_>,
    i: usize,
    cache: &'p mut PatternCache,
    name: &str,
) -> DfResult<Option<&'p JavaRegex>> {
    match pattern {
        Pattern::Literal(re) => Ok(re.as_deref()),
        Pattern::Column => match column.get(i) {
            None => Ok(None),
            Some(p) => cached_pattern(cache, p, name, java_pattern),
        },
    }
}

fn bind_regexp_extract(args: &Args<'_>) -> Result<Bound, String> {
    let ints: &[usize] = if args.types.len() == 3 { &[2] } else { &[] };
    let types = coerce(args, ints)?;
    let pattern = bind_pattern(args)?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("REGEXP_EXTRACT", &STRING, move |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let column = Strs::new(&args[1])?;
            let group = args.get(2).map(Ints::new).transpose()?;
            let mut out = Out::new("REGEXP_EXTRACT", n, s.bytes(n));
            let mut cache = None;
            for i in 0..n {
                let g = match &group {
                    None => Some(0),
                    Some(g) => g.get(i),
                };
                let value = match (s.get(i), g) {
                    (Some(s), Some(g)) => {
                        match row_regex(&pattern, &column, i, &mut cache, "REGEXP_EXTRACT")? {
                            Some(re) => regexp_extract(re, s, g)?,
                            None => None,
                        }
                    }
                    _ => None,
                };
                out.push(value)?;
            }
            out.finish(args)
        }),
    })
}

/// A REGEXP pattern: `None` matches nothing (empty, or rejected by Java: FALSE).
fn regexp_pattern(p: &str) -> Result<Option<JavaRegex>, PatternError> {
    if p.is_empty() {
        return Ok(None);
    }
    java_pattern(p)
}

fn bind_regexp(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    // Some(None): a NULL literal; Some(Some(None)): a literal that matches nothing.
    let literal: Option<Option<Option<Arc<JavaRegex>>>> = match literal_str(args, 1) {
        Some(None) => Some(None),
        Some(Some(p)) => Some(Some(
            regexp_pattern(p).map_err(|e| e.to_string())?.map(Arc::new),
        )),
        None => None,
    };
    Ok(Bound {
        args: types,
        result: LogicalType::Boolean,
        kernel: Kernel::function("REGEXP", &LogicalType::Boolean, move |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let column = Strs::new(&args[1])?;
            let mut cache: PatternCache = None;
            let mut out = BooleanArray::builder(n);
            for i in 0..n {
                let Some(s) = s.get(i) else {
                    out.append_null();
                    continue;
                };
                let re = match &literal {
                    Some(None) => None,
                    Some(Some(re)) => Some(re.as_deref()),
                    None => match column.get(i) {
                        None => None,
                        Some(p) => Some(cached_pattern(&mut cache, p, "REGEXP", regexp_pattern)?),
                    },
                };
                match re {
                    None => out.append_null(),
                    Some(None) => out.append_value(false),
                    Some(Some(re)) => {
                        let found = re
                            .find_from(s, 0)
                            .map_err(|e| fail(format!("REGEXP: {e}")))?;
                        out.append_value(found.is_some());
                    }
                }
            }
            result(args, Arc::new(out.finish()))
        }),
    })
}

/// `SqlFunctionUtils.regexpExtract`: group `group` of the first match; NULL when there is no
/// match, no such group (Java's exception is caught) or the group did not participate.
fn regexp_extract<'a>(re: &JavaRegex, s: &'a str, group: i32) -> DfResult<Option<&'a str>> {
    let Ok(group) = usize::try_from(group) else {
        return Ok(None);
    };
    let captures = re
        .captures(s)
        .map_err(|e| fail(format!("REGEXP_EXTRACT: {e}")))?;
    Ok(captures.and_then(|c| c.get(group)).map(|m| m.as_str()))
}

fn bind_regexp_replace(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    let pattern = bind_pattern(args)?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("REGEXP_REPLACE", &STRING, move |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let column = Strs::new(&args[1])?;
            let with = Strs::new(&args[2])?;
            let mut out = Out::new("REGEXP_REPLACE", n, s.bytes(n));
            let (mut cache, mut buf) = (None, String::new());
            for i in 0..n {
                let (Some(s), Some(w)) = (s.get(i), with.get(i)) else {
                    out.push(None)?;
                    continue;
                };
                let Some(re) = row_regex(&pattern, &column, i, &mut cache, "REGEXP_REPLACE")?
                else {
                    out.push(None)?;
                    continue;
                };
                buf.clear();
                regexp_replace(re, s, w, &mut buf, &out)?;
                out.push(Some(&buf))?;
            }
            out.finish(args)
        }),
    })
}

/// Java's `replaceAll(regex, Matcher.quoteReplacement(with))`: matches found as
/// `Matcher.find` does — after an empty match the search resumes one character later, after
/// a non-empty one at its end (where an empty match may follow).
fn regexp_replace(
    re: &JavaRegex,
    s: &str,
    with: &str,
    buf: &mut String,
    out: &Out,
) -> DfResult<()> {
    let (mut from, mut copied) = (0, 0);
    while from <= s.len() {
        let found = re
            .find_from(s, from)
            .map_err(|e| fail(format!("REGEXP_REPLACE: {e}")))?;
        let Some(m) = found else {
            break;
        };
        out.reserve(
            buf.len()
                .saturating_add(m.start() - copied)
                .saturating_add(with.len()),
        )?;
        buf.push_str(&s[copied..m.start()]);
        buf.push_str(with);
        copied = m.end();
        from = if m.start() == m.end() {
            match s[m.end()..].chars().next() {
                Some(c) if c.len_utf16() == 2 && matches_inside_pair(re, s, m.end())? => {
                    // Java resumed between the two halves and matched there: each half is
                    // now a lone surrogate, which Flink's UTF-8 encoding writes as `?`.
                    out.reserve(buf.len().saturating_add(with.len()).saturating_add(2))?;
                    buf.push('?');
                    buf.push_str(with);
                    buf.push('?');
                    copied = m.end() + c.len_utf8();
                    copied
                }
                Some(c) => m.end() + c.len_utf8(),
                None => break,
            }
        } else {
            m.end()
        };
    }
    buf.push_str(&s[copied..]);
    Ok(())
}

/// After an empty match at byte `at`, before a supplementary character, Java's `find()`
/// resumes one UTF-16 unit later, inside the surrogate pair: whether the pattern matches
/// (empty) there. The halves are stood in for by two private-use characters (like
/// surrogates, neither letters, digits, spaces nor line terminators); a match that would
/// consume a lone half is not carried over.
pub(super) fn matches_inside_pair(re: &JavaRegex, s: &str, at: usize) -> DfResult<bool> {
    const HIGH: char = '\u{F8FF}';
    const LOW: char = '\u{F8FE}';
    let next = s[at..].chars().next().map_or(0, char::len_utf8);
    let mut probe = String::with_capacity(s.len() + 2);
    probe.push_str(&s[..at]);
    probe.push(HIGH);
    probe.push(LOW);
    probe.push_str(&s[at + next..]);
    let mid = at + HIGH.len_utf8();
    let found = re
        .find_from(&probe, mid)
        .map_err(|e| fail(format!("REGEXP_REPLACE: {e}")))?;
    match found {
        Some(m) if m.start() == mid && m.end() == mid => Ok(true),
        Some(m) if m.start() == mid => Err(fail(format!(
            "REGEXP_REPLACE: Java matches {:?} from inside a surrogate pair, consuming half \
             of it; not carried over",
            re.as_str()
        ))),
        _ => Ok(false),
    }
}

// ---------------------------------------------------------------------------------------------
// LIKE

/// One element of a LIKE pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Like {
    /// This character.
    Char(char),
    /// `_`: one character that is not a Java line terminator.
    One,
    /// `%`: any sequence.
    Any,
}

/// `SqlLikeUtils.sqlToRegexLike`'s reading of `pattern`: an escape must be one character
/// other than U+0000, and may only precede `_`, `%` or itself.
fn like_pattern(pattern: &str, escape: Option<&str>) -> Result<Vec<Like>, String> {
    let escape = match escape {
        None => None,
        Some(e) => {
            let mut chars = e.chars();
            match (chars.next(), chars.next()) {
                // Java counts UTF-16 units: a supplementary escape is two, so invalid.
                (Some(c), None) if c != '\0' && c.len_utf16() == 1 => Some(c),
                _ => return Err(format!("Invalid escape character '{e}'")),
            }
        }
    };
    let mut out = Vec::with_capacity(pattern.len());
    let mut chars = pattern.chars().enumerate();
    while let Some((i, c)) = chars.next() {
        if Some(c) == escape {
            match chars.next() {
                Some((_, next)) if next == '_' || next == '%' || Some(next) == escape => {
                    out.push(Like::Char(next));
                }
                _ => return Err(format!("Invalid escape sequence '{pattern}', {i}")),
            }
        } else {
            out.push(match c {
                '_' => Like::One,
                '%' => Like::Any,
                c => Like::Char(c),
            });
        }
    }
    Ok(out)
}

/// Whether all of `s` matches `pattern`: greedy with backtracking to the last `%` (enough,
/// because a later `%` absorbs whatever an earlier one could have matched).
fn like_matches(s: &str, pattern: &[Like]) -> bool {
    let one = |c: char| !matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}');
    // Byte offsets into `s` and indexes into `pattern`; `star` is the last `%` and where its
    // match currently ends.
    let (mut t, mut p) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while let Some(c) = s[t..].chars().next() {
        match pattern.get(p) {
            Some(Like::Any) => {
                star = Some((p, t));
                p += 1;
                continue;
            }
            Some(Like::One) if one(c) => {
                t += c.len_utf8();
                p += 1;
                continue;
            }
            Some(Like::Char(x)) if *x == c => {
                t += c.len_utf8();
                p += 1;
                continue;
            }
            _ => {}
        }
        let Some((sp, st)) = star else {
            return false;
        };
        // Let the last `%` take one more character (there is one: st <= t < len).
        let st = st + s[st..].chars().next().map_or(1, char::len_utf8);
        star = Some((sp, st));
        p = sp + 1;
        t = st;
    }
    pattern[p..].iter().all(|x| *x == Like::Any)
}

/// A LIKE pattern argument: parsed once when pattern and escape are literals.
enum LikeArg {
    Literal(Option<Vec<Like>>),
    Column,
}

fn bind_like(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    let escape = if args.types.len() == 3 {
        match literal_str(args, 2) {
            Some(e) => Some(e),
            None => return Err("the escape must be a literal".into()),
        }
    } else {
        None
    };
    let parsed = match (literal_str(args, 1), escape) {
        (Some(None), _) | (_, Some(None)) => LikeArg::Literal(None),
        (Some(Some(p)), Some(Some(e))) => LikeArg::Literal(Some(like_pattern(p, Some(e))?)),
        (Some(Some(p)), None) => LikeArg::Literal(Some(like_pattern(p, None)?)),
        (None, Some(Some(e))) => {
            // Validate the escape now; patterns are read per row.
            like_pattern("", Some(e))?;
            LikeArg::Column
        }
        (None, None) => LikeArg::Column,
    };
    let escape: Option<String> = escape.flatten().map(str::to_owned);
    Ok(Bound {
        args: types,
        result: LogicalType::Boolean,
        kernel: Kernel::function("LIKE", &LogicalType::Boolean, move |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let column = Strs::new(&args[1])?;
            let mut cache: Option<(String, Vec<Like>)> = None;
            let mut out = BooleanArray::builder(n);
            for i in 0..n {
                let pattern = match &parsed {
                    LikeArg::Literal(p) => p.as_deref(),
                    LikeArg::Column => match column.get(i) {
                        None => None,
                        Some(p) => {
                            if cache.as_ref().is_none_or(|(text, _)| text != p) {
                                let parsed = like_pattern(p, escape.as_deref())
                                    .map_err(|e| fail(format!("LIKE: {e}")))?;
                                cache = Some((p.to_owned(), parsed));
                            }
                            cache.as_ref().map(|(_, parsed)| parsed.as_slice())
                        }
                    },
                };
                out.append_option(match (s.get(i), pattern) {
                    (Some(s), Some(p)) => Some(like_matches(s, p)),
                    _ => None,
                });
            }
            result(args, Arc::new(out.finish()))
        }),
    })
}

#[cfg(test)]
#[path = "string_tests.rs"]
mod tests;
