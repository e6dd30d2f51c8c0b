//! String searches and tests (opcodes 350–364): `LOCATE`, `INSTR`, `ASCII`, `STARTSWITH`,
//! `ENDSWITH`, `IS_ALPHA`, `IS_DIGIT` and `IS_DECIMAL`, with Flink 2.3.0's semantics
//! (`StringCallGen`, `SqlFunctionUtils.position` / `instr` / `isAlpha` / `isDigit` /
//! `isDecimal`, `BinaryStringData.indexOf`, `StartsWithFunction`, `EndsWithFunction`) and
//! JDK 17's character classes ([`super::java_chars`]).
//!
//! Every function returns NULL when an argument is NULL, except the `IS_*` tests (FALSE). Positions count code points
//! (`BinaryStringData` walks UTF-8 characters), 1-based, 0 when not found.

use std::sync::Arc;

use arrow::array::{Array, AsArray, BinaryArray, BooleanArray, Int32Array};
use datafusion::common::ScalarValue;
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;

use crate::calc::coercion::{is_binary, is_string};
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::java_chars;
use super::string::{Ints, Strs, coerce, row_count};
use super::util::{fail, result};

/// `LOCATE(needle, s[, from])`: the 1-based code point position of the first `needle` in `s`
/// at or after `from` (default 1; below 1 searches from the start), 0 if none; an empty
/// `needle` is at 1 whatever `from` is. `INT`.
pub const LOCATE: u16 = 350;
/// `INSTR(s, sub[, start[, nth]])`: the position of the `nth` (default 1, overlapping)
/// occurrence of `sub` in `s` searching from `start` (default 1; negative searches backwards
/// from the `-start`th code point from the end; 0 gives 0); fails when `nth <= 0`. `INT`.
pub const INSTR: u16 = 351;
/// `ASCII(s)`: the first UTF-8 byte of `s` as a signed Java byte (so `-61` for `é`); 0 for an
/// empty string. `INT`.
pub const ASCII: u16 = 352;
/// `STARTSWITH(s, prefix)` of two strings or two binaries: TRUE for an empty prefix.
/// `BOOLEAN`.
pub const STARTSWITH: u16 = 353;
/// `ENDSWITH(s, suffix)` of two strings or two binaries: TRUE for an empty suffix. `BOOLEAN`.
pub const ENDSWITH: u16 = 354;
/// `IS_ALPHA(s)`: every UTF-16 unit a letter for JDK 17 (`StringUtils.isAlpha`); FALSE for an
/// empty or NULL string. `BOOLEAN NOT NULL`.
pub const IS_ALPHA: u16 = 355;
/// `IS_DIGIT(s)`: every UTF-16 unit a decimal digit for JDK 17 (`StringUtils.isNumeric`);
/// FALSE for an empty or NULL string. `BOOLEAN NOT NULL`.
pub const IS_DIGIT: u16 = 356;
/// `IS_DECIMAL(s)`: `Long.parseLong(s)` or `Double.parseDouble(s)` succeeds; FALSE for an
/// empty or NULL string. `BOOLEAN NOT NULL`.
pub const IS_DECIMAL: u16 = 357;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: LOCATE,
        name: "LOCATE",
        arity: Arity::Range(2, 3),
        bind: bind_locate,
    },
    FunctionDef {
        opcode: INSTR,
        name: "INSTR",
        arity: Arity::Range(2, 4),
        bind: bind_instr,
    },
    FunctionDef {
        opcode: ASCII,
        name: "ASCII",
        arity: Arity::Exact(1),
        bind: bind_ascii,
    },
    FunctionDef {
        opcode: STARTSWITH,
        name: "STARTSWITH",
        arity: Arity::Exact(2),
        bind: |a| bind_affix(a, "STARTSWITH", true),
    },
    FunctionDef {
        opcode: ENDSWITH,
        name: "ENDSWITH",
        arity: Arity::Exact(2),
        bind: |a| bind_affix(a, "ENDSWITH", false),
    },
    FunctionDef {
        opcode: IS_ALPHA,
        name: "IS_ALPHA",
        arity: Arity::Exact(1),
        bind: |a| bind_class(a, "IS_ALPHA", is_alpha),
    },
    FunctionDef {
        opcode: IS_DIGIT,
        name: "IS_DIGIT",
        arity: Arity::Exact(1),
        bind: |a| bind_class(a, "IS_DIGIT", is_digit),
    },
    FunctionDef {
        opcode: IS_DECIMAL,
        name: "IS_DECIMAL",
        arity: Arity::Exact(1),
        bind: |a| bind_class(a, "IS_DECIMAL", is_decimal),
    },
];

// ---------------------------------------------------------------------------------------------
// LOCATE, INSTR

fn bind_locate(args: &Args<'_>) -> Result<Bound, String> {
    let ints: &[usize] = if args.types.len() == 3 { &[2] } else { &[] };
    let types = coerce(args, ints)?;
    Ok(Bound {
        args: types,
        result: LogicalType::Int,
        kernel: Kernel::function("LOCATE", &LogicalType::Int, |args, rows| {
            let n = row_count(args, rows);
            let needle = Strs::new(&args[0])?;
            let s = Strs::new(&args[1])?;
            let from = args.get(2).map(Ints::new).transpose()?;
            let out: Int32Array = (0..n)
                .map(|i| {
                    let from = match &from {
                        None => 1,
                        Some(f) => f.get(i)?,
                    };
                    // `SqlFunctionUtils.position`: `s.indexOf(seek, from - 1) + 1`.
                    Some(index_of(s.get(i)?, needle.get(i)?, from.wrapping_sub(1)) + 1)
                })
                .collect();
            result(args, Arc::new(out))
        }),
    })
}

/// `BinaryStringData.indexOf(needle, from)`: the code point index of the first `needle` in
/// `s` starting at code point `from` (a negative `from` starts at 0), -1 if none; an empty
/// `needle` is at 0.
fn index_of(s: &str, needle: &str, from: i32) -> i32 {
    if needle.is_empty() {
        return 0;
    }
    let skip = usize::try_from(from).unwrap_or(0);
    let Some((at, _)) = s.char_indices().nth(skip) else {
        return -1;
    };
    s[at..]
        .find(needle)
        .map_or(-1, |b| (skip + s[at..at + b].chars().count()) as i32)
}

fn bind_instr(args: &Args<'_>) -> Result<Bound, String> {
    let ints: Vec<usize> = (2..args.types.len()).collect();
    let types = coerce(args, &ints)?;
    Ok(Bound {
        args: types,
        result: LogicalType::Int,
        kernel: Kernel::function("INSTR", &LogicalType::Int, |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let sub = Strs::new(&args[1])?;
            let start = args.get(2).map(Ints::new).transpose()?;
            let nth = args.get(3).map(Ints::new).transpose()?;
            let int = |a: &Option<Ints<'_>>, i: usize| match a {
                None => Some(1),
                Some(a) => a.get(i),
            };
            let mut out = Int32Array::builder(n);
            for i in 0..n {
                match (s.get(i), sub.get(i), int(&start, i), int(&nth, i)) {
                    (Some(s), Some(sub), Some(start), Some(nth)) => {
                        out.append_value(instr(s, sub, start, nth)?)
                    }
                    _ => out.append_null(),
                }
            }
            result(args, Arc::new(out.finish()))
        }),
    })
}

/// `SqlFunctionUtils.instr`.
fn instr(s: &str, sub: &str, start: i32, nth: i32) -> DfResult<i32> {
    if nth <= 0 {
        return Err(fail("INSTR: nthAppearance must be positive!"));
    }
    if start == 0 {
        return Ok(0);
    }
    if start > 0 {
        return Ok(instr_forward(s, sub, start, nth));
    }
    if start == i32::MIN {
        // Java negates it to itself and recurses until the stack overflows.
        return Err(fail(
            "INSTR: a start position of -2147483648 overflows Flink's stack",
        ));
    }
    let (rs, rsub): (String, String) = (s.chars().rev().collect(), sub.chars().rev().collect());
    let pos = instr_forward(&rs, &rsub, -start, nth);
    Ok(if pos == 0 {
        0
    } else {
        let (chars, sub_chars) = (s.chars().count() as i32, sub.chars().count() as i32);
        chars
            .wrapping_add(2)
            .wrapping_sub(pos)
            .wrapping_sub(sub_chars)
    })
}

/// `instr` for a positive `start`: each search starts one code point after the last match.
fn instr_forward(s: &str, sub: &str, start: i32, nth: i32) -> i32 {
    let (mut from, mut index) = (start, 0);
    for _ in 0..nth {
        index = index_of(s, sub, from - 1) + 1;
        if index == 0 {
            return 0;
        }
        from = index + 1;
    }
    index
}

// ---------------------------------------------------------------------------------------------
// ASCII

fn bind_ascii(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: LogicalType::Int,
        kernel: Kernel::function("ASCII", &LogicalType::Int, |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let out: Int32Array = (0..n)
                .map(|i| {
                    // `s.getSizeInBytes() <= 0 ? 0 : (int) s.byteAt(0)`.
                    s.get(i)
                        .map(|s| s.as_bytes().first().map_or(0, |&b| i32::from(b as i8)))
                })
                .collect();
            result(args, Arc::new(out))
        }),
    })
}

// ---------------------------------------------------------------------------------------------
// STARTSWITH, ENDSWITH

fn bind_affix(args: &Args<'_>, name: &'static str, start: bool) -> Result<Bound, String> {
    let binary = args.types.iter().all(is_binary);
    if !binary && !args.types.iter().all(is_string) {
        return Err(format!(
            "the arguments must be two strings or two binaries, not {} and {}",
            args.types[0], args.types[1]
        ));
    }
    Ok(Bound {
        args: args.types.to_vec(),
        result: LogicalType::Boolean,
        kernel: Kernel::function(name, &LogicalType::Boolean, move |args, rows| {
            let n = row_count(args, rows);
            let test = |s: &[u8], affix: &[u8]| {
                if start {
                    s.starts_with(affix)
                } else {
                    s.ends_with(affix)
                }
            };
            let out: BooleanArray = if binary {
                let (s, affix) = (Bins::new(&args[0])?, Bins::new(&args[1])?);
                (0..n)
                    .map(|i| Some(test(s.get(i)?, affix.get(i)?)))
                    .collect()
            } else {
                let (s, affix) = (Strs::new(&args[0])?, Strs::new(&args[1])?);
                (0..n)
                    .map(|i| Some(test(s.get(i)?.as_bytes(), affix.get(i)?.as_bytes())))
                    .collect()
            };
            result(args, Arc::new(out))
        }),
    })
}

// ---------------------------------------------------------------------------------------------
// IS_ALPHA, IS_DIGIT, IS_DECIMAL

/// A string predicate that is FALSE for NULL (`SqlFunctionUtils.isAlpha`/`isDigit`/`isDecimal`
/// take the NULL object). Only string arguments are taken.
fn bind_class(
    args: &Args<'_>,
    name: &'static str,
    test: fn(&str) -> bool,
) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: LogicalType::Boolean,
        kernel: Kernel::function(name, &LogicalType::Boolean, move |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let out: BooleanArray = (0..n)
                .map(|i| Some(s.get(i).is_some_and(|s| !s.is_empty() && test(s))))
                .collect();
            result(args, Arc::new(out))
        }),
    })
}

/// `StringUtils.isAlpha` of a non-empty string: `Character.isLetter` of every UTF-16 unit (a
/// surrogate is not a letter).
fn is_alpha(s: &str) -> bool {
    s.encode_utf16().all(java_chars::is_letter)
}

/// `StringUtils.isNumeric` of a non-empty string: `Character.isDigit` of every UTF-16 unit.
fn is_digit(s: &str) -> bool {
    s.encode_utf16().all(|u| java_chars::digit(u).is_some())
}

/// `isInteger(s) || isLong(s) || isDouble(s)` of a non-empty string (`Integer.parseInt`
/// accepts a subset of what `Long.parseLong` does).
fn is_decimal(s: &str) -> bool {
    parses_as_long(s) || parses_as_double(s)
}

/// Whether `Long.parseLong(s)` succeeds: an optional sign, then decimal digits (any Unicode
/// decimal digit, as `Character.digit(c, 10)` reads it) within the range of a `long`.
fn parses_as_long(s: &str) -> bool {
    let units: Vec<u16> = s.encode_utf16().collect();
    let (negative, digits) = match units.first() {
        Some(0x2D) => (true, &units[1..]),
        Some(0x2B) => (false, &units[1..]),
        _ => (false, &units[..]),
    };
    if digits.is_empty() {
        return false;
    }
    let limit: i128 = if negative { 1 << 63 } else { (1 << 63) - 1 };
    let mut value: i128 = 0;
    for &u in digits {
        let Some(d) = java_chars::digit(u) else {
            return false;
        };
        value = value * 10 + i128::from(d);
        if value > limit {
            return false;
        }
    }
    true
}

/// Whether `Double.parseDouble(s)` succeeds (`FloatingDecimal.readJavaFormatString`): after
/// `String.trim()`, an optional sign and `NaN`, `Infinity`, a decimal literal or a hexadecimal
/// one with a binary exponent, ASCII digits only, with an optional `f`/`F`/`d`/`D` suffix.
fn parses_as_double(s: &str) -> bool {
    static GRAMMAR: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let grammar = GRAMMAR.get_or_init(|| {
        regex::Regex::new(
            r"^[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?|0[xX](?:[0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?)$",
        )
        .expect("a valid grammar")
    });
    // `String.trim()`: every char up to U+0020 at both ends.
    let trimmed = s.trim_matches(|c: char| c <= ' ');
    grammar.is_match(trimmed)
}

/// A binary argument: a scalar stays scalar.
pub(super) enum Bins<'a> {
    Scalar(Option<&'a [u8]>),
    Array(&'a BinaryArray),
}

impl<'a> Bins<'a> {
    pub(super) fn new(v: &'a ColumnarValue) -> DfResult<Self> {
        match v {
            ColumnarValue::Scalar(
                ScalarValue::Binary(b) | ScalarValue::LargeBinary(b) | ScalarValue::BinaryView(b),
            ) => Ok(Bins::Scalar(b.as_deref())),
            ColumnarValue::Scalar(ScalarValue::FixedSizeBinary(_, b)) => {
                Ok(Bins::Scalar(b.as_deref()))
            }
            ColumnarValue::Array(a) => a
                .as_binary_opt::<i32>()
                .map(Bins::Array)
                .ok_or_else(|| fail(format!("expected a Binary array, found {}", a.data_type()))),
            ColumnarValue::Scalar(s) => Err(fail(format!(
                "expected a binary value, found {}",
                s.data_type()
            ))),
        }
    }

    pub(super) fn get(&self, i: usize) -> Option<&'a [u8]> {
        match self {
            Bins::Scalar(b) => *b,
            Bins::Array(a) => (!a.is_null(i)).then(|| a.value(i)),
        }
    }

    /// The bytes of the values (a scalar counts once per row), for sizing builders.
    pub(super) fn bytes(&self, rows: usize) -> usize {
        match self {
            Bins::Scalar(b) => b.map_or(0, <[u8]>::len).saturating_mul(rows),
            Bins::Array(a) => a.value_data().len(),
        }
    }
}

#[cfg(test)]
#[path = "string_search_tests.rs"]
mod tests;
