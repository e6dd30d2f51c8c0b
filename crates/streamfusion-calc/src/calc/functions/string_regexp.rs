//! Regular-expression and splitting functions (opcodes 385–389): `REGEXP_COUNT`,
//! `REGEXP_SUBSTR`, `REGEXP_INSTR`, `REGEXP_EXTRACT_ALL` and `SPLIT`, with Flink 2.3.0's
//! semantics (`RegexpCountFunction`, `RegexpSubstrFunction`, `RegexpInstrFunction`,
//! `RegexpExtractAllFunction`, `SplitFunction`, `SqlFunctionUtils.getRegexpMatcher`).
//!
//! A NULL argument gives NULL, and so does a pattern Java rejects (`getRegexpMatcher` catches
//! the `PatternSyntaxException`). Matches are found as Java's `Matcher.find()` finds them one
//! after another: after an empty match the search resumes one UTF-16 unit later, which before
//! a supplementary character is between its two halves (see
//! [`super::string::matches_inside_pair`]). `REGEXP_INSTR` reports Java's `start() + 1`, a
//! UTF-16 position.

use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanBufferBuilder, Int32Array, ListArray, StringBuilder};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;

use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::java_regex::JavaRegex;
use super::string::{
    Ints, Out, Pattern, PatternCache, STRING, Strs, bind_pattern, coerce, matches_inside_pair,
    row_count, row_regex,
};
use super::util::{fail, result};

/// `REGEXP_COUNT(s, regex)`: how many times `Matcher.find()` succeeds. `INT`.
pub const REGEXP_COUNT: u16 = 385;
/// `REGEXP_SUBSTR(s, regex)`: the first match, NULL if none. `STRING`.
pub const REGEXP_SUBSTR: u16 = 386;
/// `REGEXP_INSTR(s, regex)`: the first match's UTF-16 position (1-based), 0 if none. `INT`.
pub const REGEXP_INSTR: u16 = 387;
/// `REGEXP_EXTRACT_ALL(s, regex[, group])`: group `group` (default 1) of every match; NULL
/// for a negative group or one past the pattern's groups; an element is NULL where the group
/// did not take part. `ARRAY<STRING>`.
pub const REGEXP_EXTRACT_ALL: u16 = 388;
/// `SPLIT(s, delimiter)`: the pieces of `s` between occurrences of the whole `delimiter`
/// (empty pieces kept); an empty `delimiter` gives each UTF-16 unit (a surrogate half as
/// `?`); an empty `s` gives an empty array. `ARRAY<STRING>`.
pub const SPLIT: u16 = 389;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: REGEXP_COUNT,
        name: "REGEXP_COUNT",
        arity: Arity::Exact(2),
        bind: bind_regexp_count,
    },
    FunctionDef {
        opcode: REGEXP_SUBSTR,
        name: "REGEXP_SUBSTR",
        arity: Arity::Exact(2),
        bind: bind_regexp_substr,
    },
    FunctionDef {
        opcode: REGEXP_INSTR,
        name: "REGEXP_INSTR",
        arity: Arity::Exact(2),
        bind: bind_regexp_instr,
    },
    FunctionDef {
        opcode: REGEXP_EXTRACT_ALL,
        name: "REGEXP_EXTRACT_ALL",
        arity: Arity::Range(2, 3),
        bind: bind_regexp_extract_all,
    },
    FunctionDef {
        opcode: SPLIT,
        name: "SPLIT",
        arity: Arity::Exact(2),
        bind: bind_split,
    },
];

/// A match `Matcher.find()` reports.
enum Found {
    /// A match starting at this byte.
    At(usize),
    /// An empty match between the two halves of a supplementary character.
    InsidePair,
}

/// Every match Java's successive `find()` calls report, in order; `f` returns `false` to stop.
fn find_all(
    re: &JavaRegex,
    s: &str,
    name: &str,
    mut f: impl FnMut(Found) -> DfResult<bool>,
) -> DfResult<()> {
    let mut from = 0;
    while from <= s.len() {
        let found = re
            .find_from(s, from)
            .map_err(|e| fail(format!("{name}: {e}")))?;
        let Some(m) = found else {
            break;
        };
        if !f(Found::At(m.start()))? {
            return Ok(());
        }
        if m.start() != m.end() {
            from = m.end();
            continue;
        }
        match s[m.end()..].chars().next() {
            None => break,
            Some(c) => {
                if c.len_utf16() == 2
                    && matches_inside_pair(re, s, m.end())?
                    && !f(Found::InsidePair)?
                {
                    return Ok(());
                }
                from = m.end() + c.len_utf8();
            }
        }
    }
    Ok(())
}

/// A `(s, regex)` kernel: `f` computes each row with a valid pattern; NULL otherwise.
fn regex_rows<T>(
    args: &[ColumnarValue],
    rows: usize,
    pattern: &Pattern,
    name: &str,
    mut f: impl FnMut(&JavaRegex, &str, usize) -> DfResult<Option<T>>,
) -> DfResult<Vec<Option<T>>> {
    let n = row_count(args, rows);
    let s = Strs::new(&args[0])?;
    let column = Strs::new(&args[1])?;
    let mut cache: PatternCache = None;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let value = match s.get(i) {
            None => None,
            Some(s) => match row_regex(pattern, &column, i, &mut cache, name)? {
                None => None,
                Some(re) => f(re, s, i)?,
            },
        };
        out.push(value);
    }
    Ok(out)
}

fn bind_regexp_count(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    let pattern = bind_pattern(args)?;
    Ok(Bound {
        args: types,
        result: LogicalType::Int,
        kernel: Kernel::function("REGEXP_COUNT", &LogicalType::Int, move |args, rows| {
            let counts = regex_rows(args, rows, &pattern, "REGEXP_COUNT", |re, s, _| {
                let mut count = 0i32;
                find_all(re, s, "REGEXP_COUNT", |_| {
                    count = count.wrapping_add(1);
                    Ok(true)
                })?;
                Ok(Some(count))
            })?;
            result(args, Arc::new(Int32Array::from(counts)))
        }),
    })
}

fn bind_regexp_substr(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    let pattern = bind_pattern(args)?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("REGEXP_SUBSTR", &STRING, move |args, rows| {
            let n = row_count(args, rows);
            let values = regex_rows(args, rows, &pattern, "REGEXP_SUBSTR", |re, s, _| {
                let m = re
                    .find_from(s, 0)
                    .map_err(|e| fail(format!("REGEXP_SUBSTR: {e}")))?;
                Ok(m.map(|m| m.as_str().to_owned()))
            })?;
            let mut out = Out::new("REGEXP_SUBSTR", n, 0);
            for v in &values {
                out.push(v.as_deref())?;
            }
            out.finish(args)
        }),
    })
}

fn bind_regexp_instr(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    let pattern = bind_pattern(args)?;
    Ok(Bound {
        args: types,
        result: LogicalType::Int,
        kernel: Kernel::function("REGEXP_INSTR", &LogicalType::Int, move |args, rows| {
            let positions = regex_rows(args, rows, &pattern, "REGEXP_INSTR", |re, s, _| {
                let m = re
                    .find_from(s, 0)
                    .map_err(|e| fail(format!("REGEXP_INSTR: {e}")))?;
                Ok(Some(m.map_or(0, |m| {
                    s[..m.start()].encode_utf16().count() as i32 + 1
                })))
            })?;
            result(args, Arc::new(Int32Array::from(positions)))
        }),
    })
}

/// `ARRAY<STRING>`.
fn string_array() -> LogicalType {
    LogicalType::Array(Box::new(STRING))
}

/// Rows of string lists (`None`: a NULL row; an element `None`: a NULL element) as an Arrow
/// list of `ty`.
fn list_of(ty: &LogicalType, rows: &[Option<Vec<Option<String>>>]) -> DfResult<ArrayRef> {
    let arrow::datatypes::DataType::List(field) = ty.to_arrow() else {
        return Err(fail(format!("{ty} is not an array type")));
    };
    let mut values = StringBuilder::new();
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    let mut valid = BooleanBufferBuilder::new(rows.len());
    offsets.push(0i32);
    let mut total = 0usize;
    for row in rows {
        valid.append(row.is_some());
        for element in row.iter().flatten() {
            values.append_option(element.as_deref());
            total += 1;
        }
        offsets
            .push(i32::try_from(total).map_err(|_| fail("too many array elements in one batch"))?);
    }
    let nulls = NullBuffer::new(valid.finish());
    let list = ListArray::try_new(
        field,
        OffsetBuffer::new(offsets.into()),
        Arc::new(values.finish()),
        Some(nulls),
    )?;
    Ok(Arc::new(list))
}

fn bind_regexp_extract_all(args: &Args<'_>) -> Result<Bound, String> {
    let ints: &[usize] = if args.types.len() == 3 { &[2] } else { &[] };
    let types = coerce(args, ints)?;
    let pattern = bind_pattern(args)?;
    let ty = string_array();
    Ok(Bound {
        args: types,
        result: ty.clone(),
        kernel: Kernel::function("REGEXP_EXTRACT_ALL", &ty.clone(), move |args, rows| {
            let group = args.get(2).map(Ints::new).transpose()?;
            let lists = regex_rows(args, rows, &pattern, "REGEXP_EXTRACT_ALL", |re, s, i| {
                let g = match &group {
                    None => Some(1),
                    Some(g) => g.get(i),
                };
                extract_all(re, s, g)
            })?;
            result(args, list_of(&ty, &lists)?)
        }),
    })
}

/// `RegexpExtractAllFunction.eval`.
fn extract_all(
    re: &JavaRegex,
    s: &str,
    group: Option<i32>,
) -> DfResult<Option<Vec<Option<String>>>> {
    let Some(group) = group.and_then(|g| usize::try_from(g).ok()) else {
        return Ok(None);
    };
    if re.group_count() < group {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut failed = None;
    find_all(re, s, "REGEXP_EXTRACT_ALL", |found| {
        match found {
            Found::At(start) => {
                let c = re
                    .captures_from(s, start)
                    .map_err(|e| fail(format!("REGEXP_EXTRACT_ALL: {e}")))?;
                out.push(c.and_then(|c| c.get(group)).map(|m| m.as_str().to_owned()));
            }
            Found::InsidePair => {
                failed = Some(());
                return Ok(false);
            }
        }
        Ok(true)
    })?;
    if failed.is_some() {
        return Err(fail(format!(
            "REGEXP_EXTRACT_ALL: {:?} matches empty between the halves of a surrogate pair; \
             its groups there are not carried over",
            re.as_str()
        )));
    }
    Ok(Some(out))
}

fn bind_split(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    let ty = string_array();
    Ok(Bound {
        args: types,
        result: ty.clone(),
        kernel: Kernel::function("SPLIT", &ty.clone(), move |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let delimiter = Strs::new(&args[1])?;
            let lists: Vec<_> = (0..n)
                .map(|i| Some(split(s.get(i)?, delimiter.get(i)?)))
                .collect();
            result(args, list_of(&ty, &lists)?)
        }),
    })
}

/// `SplitFunction.eval`.
fn split(s: &str, delimiter: &str) -> Vec<Option<String>> {
    if delimiter.is_empty() {
        // `String.valueOf(s.charAt(i))` for every UTF-16 unit.
        return s
            .chars()
            .flat_map(|c| {
                let halves = if c.len_utf16() == 2 { 2 } else { 1 };
                std::iter::repeat_n(if halves == 2 { '?' } else { c }, halves)
            })
            .map(|c| Some(c.to_string()))
            .collect();
    }
    if s.is_empty() {
        return Vec::new();
    }
    s.split(delimiter).map(|p| Some(p.to_owned())).collect()
}

#[cfg(test)]
#[path = "string_regexp_tests.rs"]
mod tests;
