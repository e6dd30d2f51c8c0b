//! String edits (opcodes 330–349): `LEFT`, `RIGHT`, `REPEAT`, `REVERSE`, `OVERLAY`,
//! `TRANSLATE` and `BTRIM`, with Flink 2.3.0's semantics (`StringCallGen`,
//! `BinaryStringDataUtil`, `SqlFunctionUtils`, `EncodingUtils.repeat`, `TranslateFunction`,
//! `BTrimFunction`).
//!
//! Every function returns NULL when an argument is NULL, except `TRANSLATE` (a NULL `from`
//! returns the string unchanged, a NULL `to` deletes every character of `from`). `LEFT`,
//! `RIGHT`, `REVERSE` and `TRANSLATE` count code points; `OVERLAY` counts Java UTF-16 units
//! (`SqlFunctionUtils.overlay` works on `java.lang.String`), so a surrogate pair it splits
//! becomes `?` for each half, as Flink's UTF-8 encoding of a lone surrogate does.

use std::collections::HashMap;

use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;

use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::string::{
    Ints, Out, STRING, Strs, bind_trim_to, coerce, push_utf16, row_count, string_length, substring,
};
use super::util::fail;

/// `LEFT(s, n)`: the first `n` code points; empty for `n <= 0`. `VARCHAR(n)` of the argument.
pub const LEFT: u16 = 330;
/// `RIGHT(s, n)`: the last `n` code points; empty for `n <= 0`. `VARCHAR(n)` of the argument.
pub const RIGHT: u16 = 331;
/// `REPEAT(s, n)`: `s` repeated `n` times; empty for `n <= 0`. `STRING`.
pub const REPEAT: u16 = 332;
/// `REVERSE(s)`: the code points in reverse order. `STRING`.
pub const REVERSE: u16 = 333;
/// `OVERLAY(s PLACING r FROM start [FOR len])` as `(s, r, start[, len])`: UTF-16 units of `s`
/// from `start` (1-based) replaced by `r`; `len` defaults to `r`'s length; `s` unchanged when
/// `start` is outside `1..=length`; nothing of `s` is kept after `r` when `len <= 0` or
/// `start + len` passes the end. `VARCHAR(len(s) + len(r))`.
pub const OVERLAY: u16 = 334;
/// `TRANSLATE(s, from, to)`: each code point of `s` found in `from` replaced by the code point
/// at the same position of `to` (deleted when `to` is shorter; the first occurrence in `from`
/// wins). `STRING`.
pub const TRANSLATE: u16 = 335;
/// `BTRIM(s[, characters])`: `TRIM(BOTH ...)` with a `STRING` result.
pub const BTRIM: u16 = 336;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: LEFT,
        name: "LEFT",
        arity: Arity::Exact(2),
        bind: |a| bind_left_right(a, "LEFT", true),
    },
    FunctionDef {
        opcode: RIGHT,
        name: "RIGHT",
        arity: Arity::Exact(2),
        bind: |a| bind_left_right(a, "RIGHT", false),
    },
    FunctionDef {
        opcode: REPEAT,
        name: "REPEAT",
        arity: Arity::Exact(2),
        bind: bind_repeat,
    },
    FunctionDef {
        opcode: REVERSE,
        name: "REVERSE",
        arity: Arity::Exact(1),
        bind: bind_reverse,
    },
    FunctionDef {
        opcode: OVERLAY,
        name: "OVERLAY",
        arity: Arity::Range(3, 4),
        bind: bind_overlay,
    },
    FunctionDef {
        opcode: TRANSLATE,
        name: "TRANSLATE",
        arity: Arity::Exact(3),
        bind: bind_translate,
    },
    FunctionDef {
        opcode: BTRIM,
        name: "BTRIM",
        arity: Arity::Range(1, 2),
        bind: |a| bind_trim_to(a, "BTRIM", true, true, |_| STRING),
    },
];

// ---------------------------------------------------------------------------------------------
// LEFT, RIGHT

fn bind_left_right(args: &Args<'_>, name: &'static str, left: bool) -> Result<Bound, String> {
    let types = coerce(args, &[1])?;
    let result_type = LogicalType::VarChar(string_length(&types[0]));
    Ok(Bound {
        args: types,
        result: result_type.clone(),
        kernel: Kernel::function(name, &result_type, move |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let len = Ints::new(&args[1])?;
            let mut out = Out::new(name, n, s.bytes(n));
            for i in 0..n {
                let value = match (s.get(i), len.get(i)) {
                    (Some(s), Some(k)) if left => Some(left_of(s, k)),
                    (Some(s), Some(k)) => Some(right_of(s, k)),
                    _ => None,
                };
                out.push(value)?;
            }
            out.finish(args)
        }),
    })
}

/// `StringCallGen.generateLeft`: `n <= 0 ? "" : substringSQL(s, 1, n)`.
fn left_of(s: &str, n: i32) -> &str {
    if n <= 0 {
        return "";
    }
    substring(s, 1, n).unwrap_or_default()
}

/// `StringCallGen.generateRight`: `n <= 0 ? "" : n >= numChars ? s : substringSQL(s, -n)`.
fn right_of(s: &str, n: i32) -> &str {
    if n <= 0 {
        return "";
    }
    match s.char_indices().rev().nth(n as usize - 1) {
        Some((at, _)) => &s[at..],
        None => s,
    }
}

// ---------------------------------------------------------------------------------------------
// REPEAT, REVERSE

fn bind_repeat(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[1])?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("REPEAT", &STRING, |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let times = Ints::new(&args[1])?;
            let mut out = Out::new("REPEAT", n, s.bytes(n));
            let mut buf = String::new();
            for i in 0..n {
                let (Some(s), Some(k)) = (s.get(i), times.get(i)) else {
                    out.push(None)?;
                    continue;
                };
                // `EncodingUtils.repeat`: nothing for k <= 0.
                let k = usize::try_from(k).unwrap_or(0);
                out.reserve(s.len().saturating_mul(k))?;
                buf.clear();
                for _ in 0..k {
                    buf.push_str(s);
                }
                out.push(Some(&buf))?;
            }
            out.finish(args)
        }),
    })
}

fn bind_reverse(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("REVERSE", &STRING, |args, rows| {
            super::string::map_one(args, rows, "REVERSE", |s, out| out.extend(s.chars().rev()))
        }),
    })
}

// ---------------------------------------------------------------------------------------------
// OVERLAY

fn bind_overlay(args: &Args<'_>) -> Result<Bound, String> {
    let ints: &[usize] = if args.types.len() == 4 { &[2, 3] } else { &[2] };
    let types = coerce(args, ints)?;
    let len = string_length(&types[0])
        .saturating_add(string_length(&types[1]))
        .min(i32::MAX as u32);
    let result_type = LogicalType::VarChar(len);
    Ok(Bound {
        args: types,
        result: result_type.clone(),
        kernel: Kernel::function("OVERLAY", &result_type, |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let r = Strs::new(&args[1])?;
            let start = Ints::new(&args[2])?;
            let len = args.get(3).map(Ints::new).transpose()?;
            let mut out = Out::new("OVERLAY", n, s.bytes(n).saturating_add(r.bytes(n)));
            let (mut s16, mut buf) = (Vec::new(), String::new());
            for i in 0..n {
                let (Some(s), Some(r), Some(start)) = (s.get(i), r.get(i), start.get(i)) else {
                    out.push(None)?;
                    continue;
                };
                let len = match &len {
                    // `overlay(s, r, start)` passes `r.length()`.
                    None => r.encode_utf16().count() as i32,
                    Some(l) => match l.get(i) {
                        Some(l) => l,
                        None => {
                            out.push(None)?;
                            continue;
                        }
                    },
                };
                s16.clear();
                s16.extend(s.encode_utf16());
                buf.clear();
                overlay(s, &s16, r, start, len, &mut buf)?;
                out.push(Some(&buf))?;
            }
            out.finish(args)
        }),
    })
}

/// `SqlFunctionUtils.overlay(s, r, start, length)` on the UTF-16 units `s16` of `s`.
fn overlay(s: &str, s16: &[u16], r: &str, start: i32, len: i32, out: &mut String) -> DfResult<()> {
    if start <= 0 || start as usize > s16.len() {
        out.push_str(s);
        return Ok(());
    }
    let prefix = &s16[..start as usize - 1];
    let suffix: &[u16] = match start.checked_add(len) {
        Some(end) if len > 0 && end as usize <= s16.len() => &s16[(end - 1) as usize..],
        // Java's `startPos + len` wraps negative, and `s.substring(startPos - 1 + len)` fails.
        None if len > 0 => {
            return Err(fail(format!(
                "OVERLAY: begin {}, end {}, length {}",
                start.wrapping_sub(1).wrapping_add(len),
                s16.len(),
                s16.len()
            )));
        }
        _ => &[],
    };
    push_utf16(
        prefix
            .iter()
            .copied()
            .chain(r.encode_utf16())
            .chain(suffix.iter().copied()),
        out,
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// TRANSLATE

fn bind_translate(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("TRANSLATE", &STRING, |args, rows| {
            translate_kernel(args, rows)
        }),
    })
}

fn translate_kernel(args: &[ColumnarValue], rows: usize) -> DfResult<ColumnarValue> {
    let n = row_count(args, rows);
    let s = Strs::new(&args[0])?;
    let from = Strs::new(&args[1])?;
    let to = Strs::new(&args[2])?;
    let mut out = Out::new("TRANSLATE", n, s.bytes(n));
    let mut dict: Option<(String, String, HashMap<char, Option<char>>)> = None;
    let mut buf = String::new();
    for i in 0..n {
        let Some(s) = s.get(i) else {
            out.push(None)?;
            continue;
        };
        let from = match from.get(i) {
            Some(f) if !s.is_empty() && !f.is_empty() => f,
            // `TranslateFunction.eval` returns the string itself.
            _ => {
                out.push(Some(s))?;
                continue;
            }
        };
        let to = to.get(i).unwrap_or("");
        if dict
            .as_ref()
            .is_none_or(|(f, t, _)| f.as_str() != from || t.as_str() != to)
        {
            dict = Some((from.to_owned(), to.to_owned(), translation(from, to)));
        }
        let map = dict.as_ref().map(|(_, _, m)| m).expect("built above");
        buf.clear();
        for c in s.chars() {
            match map.get(&c) {
                None => buf.push(c),
                Some(Some(t)) => buf.push(*t),
                Some(None) => {}
            }
        }
        out.push(Some(&buf))?;
    }
    out.finish(args)
}

/// `TranslateFunction.buildDict`: each code point of `from` to the one at its position in
/// `to` (`None`: deleted); a repeated code point keeps its first mapping.
fn translation(from: &str, to: &str) -> HashMap<char, Option<char>> {
    let mut to = to.chars();
    let mut dict = HashMap::new();
    for c in from.chars() {
        let t = to.next();
        dict.entry(c).or_insert(t);
    }
    dict
}

#[cfg(test)]
#[path = "string_edit_tests.rs"]
mod tests;
