//! String encodings (opcodes 365–384): `CHR`, `TO_BASE64`, `FROM_BASE64`, `HEX`, `UNHEX`,
//! `BIN`, `URL_ENCODE` and `URL_DECODE`, with Flink 2.3.0's semantics (`SqlFunctionUtils`,
//! `EncodingUtils.unhex`, `UnhexFunction`, `UrlEncodeFunction`, `UrlDecodeFunction`) over
//! JDK 17's `java.util.Base64`, `java.net.URLEncoder` and `java.net.URLDecoder`.
//!
//! Every function returns NULL when its argument is NULL. Integer arguments are Java `long`s
//! (a TINYINT, SMALLINT or INT is sign-extended, so `HEX(-1)` is sixteen `F`s).
//!
//! One value Flink computes is not carried over, and fails instead: a `FROM_BASE64` result
//! that is not UTF-8 (Flink keeps the raw bytes as a `STRING`, which native strings cannot
//! hold).

use std::sync::Arc;

use arrow::array::{Array, AsArray, BinaryBuilder, Int64Array};
use datafusion::common::ScalarValue;
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;

use crate::calc::coercion::{is_binary, is_integer, is_string};
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::java_chars;
use super::string::{Out, STRING, Strs, coerce, map_one, row_count};
use super::string_search::Bins;
use super::util::{fail, result};
use super::value::decode_utf8;

/// `CHR(n)`: the character of `n & 0xFF` (Latin-1), empty for a negative `n`. `STRING`.
pub const CHR: u16 = 365;
/// `TO_BASE64(s | bytes)`: standard Base64 with padding of the UTF-8 bytes. `STRING`.
pub const TO_BASE64: u16 = 366;
/// `FROM_BASE64(s)`: `Base64.getDecoder().decode` of the UTF-8 bytes as a string; fails on
/// what Java rejects (a character outside the alphabet, bad padding, a dangling character).
/// `STRING`.
pub const FROM_BASE64: u16 = 367;
/// `HEX(n | s)`: `Long.toHexString(n)` or the UTF-8 bytes of `s`, upper case. `STRING`.
pub const HEX: u16 = 368;
/// `UNHEX(s)`: the bytes of hex digit pairs read from the end; NULL when a character is not
/// an ASCII hex digit; an odd length's first digit is checked but not kept (Flink's
/// `EncodingUtils.unhex` leaves that byte 0). `BYTES`.
pub const UNHEX: u16 = 369;
/// `BIN(n)`: `Long.toBinaryString(n)`. `STRING`.
pub const BIN: u16 = 370;
/// `URL_ENCODE(s)`: `URLEncoder.encode(s, "UTF-8")`. `STRING`.
pub const URL_ENCODE: u16 = 371;
/// `URL_DECODE(s)`: `URLDecoder.decode(s, "UTF-8")`, NULL when Java throws (an incomplete or
/// non-hex escape). `STRING`.
pub const URL_DECODE: u16 = 372;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: CHR,
        name: "CHR",
        arity: Arity::Exact(1),
        bind: |a| bind_long(a, "CHR", chr),
    },
    FunctionDef {
        opcode: TO_BASE64,
        name: "TO_BASE64",
        arity: Arity::Exact(1),
        bind: bind_to_base64,
    },
    FunctionDef {
        opcode: FROM_BASE64,
        name: "FROM_BASE64",
        arity: Arity::Exact(1),
        bind: bind_from_base64,
    },
    FunctionDef {
        opcode: HEX,
        name: "HEX",
        arity: Arity::Exact(1),
        bind: bind_hex,
    },
    FunctionDef {
        opcode: UNHEX,
        name: "UNHEX",
        arity: Arity::Exact(1),
        bind: bind_unhex,
    },
    FunctionDef {
        opcode: BIN,
        name: "BIN",
        arity: Arity::Exact(1),
        bind: |a| bind_long(a, "BIN", |n, out| out.push_str(&format!("{:b}", n as u64))),
    },
    FunctionDef {
        opcode: URL_ENCODE,
        name: "URL_ENCODE",
        arity: Arity::Exact(1),
        bind: |a| bind_string(a, "URL_ENCODE", url_encode),
    },
    FunctionDef {
        opcode: URL_DECODE,
        name: "URL_DECODE",
        arity: Arity::Exact(1),
        bind: bind_url_decode,
    },
];

const BYTES: LogicalType = LogicalType::VarBinary(i32::MAX as u32);

// ---------------------------------------------------------------------------------------------
// Integer arguments: CHR, HEX, BIN

/// A one-integer function writing a `STRING`; the argument is cast to BIGINT (Java's `long`).
fn bind_long(
    args: &Args<'_>,
    name: &'static str,
    f: fn(i64, &mut String),
) -> Result<Bound, String> {
    if !is_integer(&args.types[0]) {
        return Err(format!(
            "the argument must be an integer, not {}",
            args.types[0]
        ));
    }
    Ok(Bound {
        args: vec![LogicalType::BigInt],
        result: STRING,
        kernel: Kernel::function(name, &STRING, move |args, rows| {
            long_kernel(args, rows, name, f)
        }),
    })
}

fn long_kernel(
    args: &[ColumnarValue],
    rows: usize,
    name: &'static str,
    f: fn(i64, &mut String),
) -> DfResult<ColumnarValue> {
    let n = row_count(args, rows);
    let values: Vec<Option<i64>> = match &args[0] {
        ColumnarValue::Scalar(ScalarValue::Int64(x)) => vec![*x; n],
        ColumnarValue::Array(a) => {
            let a: &Int64Array = a.as_primitive_opt().ok_or_else(|| {
                fail(format!(
                    "{name}: expected an Int64 array, found {}",
                    a.data_type()
                ))
            })?;
            a.iter().collect()
        }
        ColumnarValue::Scalar(s) => {
            return Err(fail(format!(
                "{name}: expected a BIGINT value, found {}",
                s.data_type()
            )));
        }
    };
    let mut out = Out::new(name, n, n * 4);
    let mut buf = String::new();
    for v in values {
        match v {
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

/// `SqlFunctionUtils.chr`: `""` below 0, else `(char) (n & 0xFF)`.
fn chr(n: i64, out: &mut String) {
    if n >= 0 {
        out.push(char::from((n & 0xFF) as u8));
    }
}

fn bind_hex(args: &Args<'_>) -> Result<Bound, String> {
    if is_integer(&args.types[0]) {
        return bind_long(args, "HEX", |n, out| {
            out.push_str(&format!("{:X}", n as u64));
        });
    }
    bind_string(args, "HEX", |s, out| push_hex(s.as_bytes(), out))
}

/// `EncodingUtils.hex(...).toUpperCase()`.
fn push_hex(bytes: &[u8], out: &mut String) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0F)]));
    }
}

/// A one-string function writing a `STRING`.
fn bind_string(
    args: &Args<'_>,
    name: &'static str,
    f: fn(&str, &mut String),
) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function(name, &STRING, move |args, rows| {
            map_one(args, rows, name, f)
        }),
    })
}

// ---------------------------------------------------------------------------------------------
// Base64

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn bind_to_base64(args: &Args<'_>) -> Result<Bound, String> {
    let ty = &args.types[0];
    if !is_string(ty) && !is_binary(ty) {
        return Err(format!(
            "the argument must be a string or a binary, not {ty}"
        ));
    }
    let binary = is_binary(ty);
    Ok(Bound {
        args: args.types.to_vec(),
        result: STRING,
        kernel: Kernel::function("TO_BASE64", &STRING, move |args, rows| {
            if !binary {
                return map_one(args, rows, "TO_BASE64", |s, out| {
                    to_base64(s.as_bytes(), out)
                });
            }
            let n = row_count(args, rows);
            let b = Bins::new(&args[0])?;
            let mut out = Out::new("TO_BASE64", n, b.bytes(n).saturating_mul(4) / 3);
            let mut buf = String::new();
            for i in 0..n {
                match b.get(i) {
                    Some(v) => {
                        buf.clear();
                        to_base64(v, &mut buf);
                        out.push(Some(&buf))?;
                    }
                    None => out.push(None)?,
                }
            }
            out.finish(args)
        }),
    })
}

/// `Base64.getEncoder().encodeToString`: RFC 4648's alphabet, padded.
pub fn to_base64(bytes: &[u8], out: &mut String) {
    out.extend(base64_bytes(bytes).map(char::from));
}

/// The ASCII bytes of `Base64.getEncoder()`'s text of `bytes` (also Jackson's default
/// Base64 variant without line feeds).
pub fn base64_bytes(bytes: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let digit = |v: u32| BASE64[(v & 0x3F) as usize];
    bytes.chunks(3).flat_map(move |chunk| {
        let v = chunk
            .iter()
            .enumerate()
            .fold(0u32, |v, (k, &b)| v | (u32::from(b) << (16 - 8 * k)));
        [
            digit(v >> 18),
            digit(v >> 12),
            if chunk.len() > 1 { digit(v >> 6) } else { b'=' },
            if chunk.len() > 2 { digit(v) } else { b'=' },
        ]
    })
}

fn bind_from_base64(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("FROM_BASE64", &STRING, |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let mut out = Out::new("FROM_BASE64", n, s.bytes(n));
            let mut bytes = Vec::new();
            for i in 0..n {
                let Some(s) = s.get(i) else {
                    out.push(None)?;
                    continue;
                };
                bytes.clear();
                from_base64(s.as_bytes(), &mut bytes)
                    .map_err(|e| fail(format!("FROM_BASE64: {e}")))?;
                let text = std::str::from_utf8(&bytes).map_err(|_| {
                    fail(
                        "FROM_BASE64: the decoded bytes are not UTF-8, which Flink keeps as a \
                         STRING; not carried over",
                    )
                })?;
                out.push(Some(text))?;
            }
            out.finish(args)
        }),
    })
}

/// JDK 17's `Base64.Decoder.decode` (RFC 4648, not MIME): padding optional but exact when
/// present, bits past the last byte ignored, nothing after the padding. The error is Java's
/// `IllegalArgumentException` message.
fn from_base64(src: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    if src.len() == 1 {
        return Err("Input byte[] should at least have 2 bytes for base64 bytes".into());
    }
    let value = |b: u8| BASE64.iter().position(|&d| d == b).map(|v| v as u32);
    let (mut bits, mut shift, mut sp) = (0u32, 18i32, 0);
    while sp < src.len() {
        let b = src[sp];
        sp += 1;
        if b == b'=' {
            // `x=` (shift 12) fails below; `xx=` needs a second `=`.
            if shift == 18 || (shift == 6 && (sp == src.len() || src[sp] != b'=')) {
                return Err("Input byte array has wrong 4-byte ending unit".into());
            }
            if shift == 6 {
                sp += 1;
            }
            break;
        }
        let Some(v) = value(b) else {
            return Err(format!("Illegal base64 character {}", java_hex_of_byte(b)));
        };
        bits |= v << shift;
        shift -= 6;
        if shift < 0 {
            out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8, bits as u8]);
            shift = 18;
            bits = 0;
        }
    }
    match shift {
        6 => out.push((bits >> 16) as u8),
        0 => out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8]),
        12 => return Err("Last unit does not have enough valid bits".into()),
        _ => {}
    }
    if sp < src.len() {
        return Err(format!(
            "Input byte array has incorrect ending byte at {}",
            sp
        ));
    }
    Ok(())
}

/// `Integer.toString(b, 16)` of a signed byte (`-3d` for 0xC3).
fn java_hex_of_byte(b: u8) -> String {
    let v = i32::from(b as i8);
    if v < 0 {
        format!("-{:x}", -v)
    } else {
        format!("{v:x}")
    }
}

// ---------------------------------------------------------------------------------------------
// UNHEX

fn bind_unhex(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: BYTES,
        kernel: Kernel::function("UNHEX", &BYTES, |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let mut out = BinaryBuilder::with_capacity(n, s.bytes(n) / 2);
            let mut buf = Vec::new();
            for i in 0..n {
                match s.get(i).and_then(|s| unhex(s.as_bytes(), &mut buf)) {
                    Some(()) => out.append_value(&buf),
                    None => out.append_null(),
                }
            }
            result(args, Arc::new(out.finish()))
        }),
    })
}

/// `EncodingUtils.unhex`: pairs from the end; `None` for a byte that is not an ASCII hex
/// digit; for an odd length the first digit is only checked, its byte left 0.
fn unhex(src: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let digit = |b: u8| char::from(b).to_digit(16).filter(|_| b.is_ascii());
    out.clear();
    out.resize(src.len().div_ceil(2), 0);
    let mut j = out.len();
    let mut pairs = src.rchunks_exact(2);
    for pair in pairs.by_ref() {
        j -= 1;
        out[j] = ((digit(pair[0])? << 4) | digit(pair[1])?) as u8;
    }
    if let [first] = pairs.remainder() {
        digit(*first)?;
    }
    Some(())
}

// ---------------------------------------------------------------------------------------------
// URL_ENCODE, URL_DECODE

/// `URLEncoder.encode(s, "UTF-8")`: ASCII letters, digits and `.-*_` kept, space as `+`,
/// everything else as `%XX` of its UTF-8 bytes.
fn url_encode(s: &str, out: &mut String) {
    let mut utf8 = [0u8; 4];
    for c in s.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' | '*' | '_' => out.push(c),
            ' ' => out.push('+'),
            c => {
                for &b in c.encode_utf8(&mut utf8).as_bytes() {
                    out.push('%');
                    push_hex(&[b], out);
                }
            }
        }
    }
}

fn bind_url_decode(args: &Args<'_>) -> Result<Bound, String> {
    let types = coerce(args, &[])?;
    Ok(Bound {
        args: types,
        result: STRING,
        kernel: Kernel::function("URL_DECODE", &STRING, |args, rows| {
            let n = row_count(args, rows);
            let s = Strs::new(&args[0])?;
            let mut out = Out::new("URL_DECODE", n, s.bytes(n));
            let (mut buf, mut units, mut bytes) = (String::new(), Vec::new(), Vec::new());
            for i in 0..n {
                let Some(s) = s.get(i) else {
                    out.push(None)?;
                    continue;
                };
                buf.clear();
                units.clear();
                units.extend(s.encode_utf16());
                let decoded = url_decode(&units, &mut bytes, &mut buf);
                out.push(decoded.then_some(buf.as_str()))?;
            }
            out.finish(args)
        }),
    })
}

/// JDK 17's `URLDecoder.decode(s, "UTF-8")` over the UTF-16 units of `s`, into `out`:
/// `false` where Java throws (Flink's NULL). Each run of `%xy` escapes is decoded as UTF-8
/// with Java's replacement of malformed input; `xy` is read by `Integer.parseInt(s, i + 1,
/// i + 3, 16)`, which also takes a sign (`%+1` is byte 1, `%-0` byte 0, `%-1` fails).
fn url_decode(units: &[u16], bytes: &mut Vec<u8>, out: &mut String) -> bool {
    let n = units.len();
    let mut i = 0;
    let mut literal = Vec::new();
    while i < n {
        match units[i] {
            0x2B => {
                literal.push(u16::from(b' '));
                i += 1;
            }
            0x25 => {
                out.extend(char::decode_utf16(literal.drain(..)).map(|c| c.unwrap_or('?')));
                bytes.clear();
                while i + 2 < n && units[i] == 0x25 {
                    let Some(v) = java_hex_pair(units[i + 1], units[i + 2]) else {
                        return false;
                    };
                    bytes.push(v);
                    i += 3;
                }
                if i < n && units[i] == 0x25 {
                    return false;
                }
                decode_utf8(bytes, out);
            }
            u => {
                literal.push(u);
                i += 1;
            }
        }
    }
    out.extend(char::decode_utf16(literal.drain(..)).map(|c| c.unwrap_or('?')));
    true
}

/// `Integer.parseInt` of two UTF-16 units in radix 16 as a byte: `None` where Java throws
/// (`NumberFormatException`, or a negative value).
fn java_hex_pair(a: u16, b: u16) -> Option<u8> {
    let low = java_hex_digit(b)?;
    match a {
        0x2B => Some(low as u8),
        0x2D => (low == 0).then_some(0),
        a => Some((java_hex_digit(a)? * 16 + low) as u8),
    }
}

/// JDK 17's `Character.digit(unit, 16)`: an ASCII hex digit, a Unicode decimal digit (`%١٢`
/// is byte 0x12) or a fullwidth letter A–F.
fn java_hex_digit(unit: u16) -> Option<u32> {
    match unit {
        0xFF21..=0xFF26 => Some(u32::from(unit - 0xFF21) + 10),
        0xFF41..=0xFF46 => Some(u32::from(unit - 0xFF41) + 10),
        0..=0x7F => char::from(unit as u8).to_digit(16),
        _ => java_chars::digit(unit),
    }
}

#[cfg(test)]
#[path = "string_codec_tests.rs"]
mod tests;
