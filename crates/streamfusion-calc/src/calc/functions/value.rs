//! Value functions (opcodes 850–899): `TYPEOF`, `UUID`, `ELT`, `DECODE` and `ENCODE` with
//! Flink 2.3.0's semantics (`TypeOfFunction`, `BuiltInFunctionDefinitions.UUID`,
//! `EltFunction`, and the generated `new String(bytes, charset)` / `String.getBytes(charset)`
//! of `DECODE` / `ENCODE`).
//!
//! `TYPEOF` renders the argument's type as planned. StreamFusion's types carry no
//! nullability, so an argument counts as `NOT NULL` exactly when it is a non-NULL literal
//! (Flink's literal types) and as nullable otherwise: right for input columns and for calls
//! over them, wrong for a call Flink plans `NOT NULL` over nullable input (`TYPEOF(f0 IS
//! NULL)` is `BOOLEAN NOT NULL` in Flink, `BOOLEAN` here).
//!
//! `DECODE`/`ENCODE` implement Java's `US-ASCII`, `ISO-8859-1`, `UTF-8`, `UTF-16`,
//! `UTF-16BE` and `UTF-16LE` (any case, with Java's aliases) byte for byte, malformed input
//! replaced as `java.lang.String` does; another charset name fails the evaluation, as an
//! unknown one does in Flink (Java charsets beyond these six are not native).

use std::sync::Arc;

use arrow::array::PrimitiveArray;
use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BinaryBuilder, GenericByteArray, StringArray,
    StringBuilder,
};
use arrow::datatypes::{
    ArrowPrimitiveType, BinaryType, DataType, GenericStringType, Int8Type, Int16Type, Int32Type,
    Int64Type,
};
use datafusion::common::ScalarValue;
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;

use crate::calc::coercion::{is_binary, is_integer, is_string};
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::util::{arrays, fail, result};

/// `TYPEOF(x[, force_serializable])`: `x`'s type as `LogicalType.asSummaryString()`, or
/// `asSerializableString()` when the BOOLEAN literal `force_serializable` is TRUE. `STRING`.
pub const TYPEOF: u16 = 850;
/// `UUID()`: a random version-4 UUID as 36 lowercase characters (`UUID.randomUUID()`).
/// Volatile. `CHAR(36) NOT NULL`.
pub const UUID: u16 = 851;
/// `ELT(index, v1, v2, ...)`: `v<index>`, NULL when the index is NULL or outside
/// `1..=n`. The values are all character strings or all binary strings; the result is their
/// common type (`CHAR(n)` if all are, else `VARCHAR` of the longest; same for BINARY),
/// nullable.
pub const ELT: u16 = 852;
/// `DECODE(binary, charset)`: `new String(binary, charset)`. `STRING`.
pub const DECODE: u16 = 853;
/// `ENCODE(string, charset)`: `string.getBytes(charset)`. `BYTES`.
pub const ENCODE: u16 = 854;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: TYPEOF,
        name: "TYPEOF",
        arity: Arity::Range(1, 2),
        bind: bind_typeof,
    },
    FunctionDef {
        opcode: UUID,
        name: "UUID",
        arity: Arity::Exact(0),
        bind: bind_uuid,
    },
    FunctionDef {
        opcode: ELT,
        name: "ELT",
        arity: Arity::AtLeast(2),
        bind: bind_elt,
    },
    FunctionDef {
        opcode: DECODE,
        name: "DECODE",
        arity: Arity::Exact(2),
        bind: bind_decode,
    },
    FunctionDef {
        opcode: ENCODE,
        name: "ENCODE",
        arity: Arity::Exact(2),
        bind: bind_encode,
    },
];

const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);
const BYTES: LogicalType = LogicalType::VarBinary(i32::MAX as u32);

// ------------------------------------------------------------------------------------------
// TYPEOF

fn bind_typeof(args: &Args<'_>) -> Result<Bound, String> {
    let serializable = match args.types.get(1) {
        None => false,
        Some(LogicalType::Boolean) => match args.literal(1) {
            Some(ScalarValue::Boolean(b)) => b.unwrap_or(false),
            _ => return Err("force_serializable must be a BOOLEAN literal".into()),
        },
        Some(other) => {
            return Err(format!(
                "force_serializable must be a BOOLEAN literal, not {other}"
            ));
        }
    };
    let nullable = args.literal(0).is_none_or(ScalarValue::is_null);
    let text = type_string(&args.types[0], nullable, serializable);
    Ok(Bound {
        args: args.types.to_vec(),
        result: STRING,
        kernel: Kernel::function("TYPEOF", &STRING, move |args, rows| {
            let value = ScalarValue::Utf8(Some(text.clone()));
            if args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_))) {
                Ok(ColumnarValue::Scalar(value))
            } else {
                Ok(ColumnarValue::Array(value.to_array_of_size(rows)?))
            }
        }),
    })
}

/// Flink's `LogicalType.asSummaryString()` (or `asSerializableString()`) of `ty`, with
/// ` NOT NULL` unless `nullable`; nested types are nullable, as StreamFusion's are.
pub fn type_string(ty: &LogicalType, nullable: bool, serializable: bool) -> String {
    let mut out = String::new();
    write_type(&mut out, ty, serializable);
    if !nullable {
        out.push_str(" NOT NULL");
    }
    out
}

fn write_type(out: &mut String, ty: &LogicalType, serializable: bool) {
    use std::fmt::Write as _;
    const MAX: u32 = i32::MAX as u32;
    // Writing to a String cannot fail.
    let _ = match ty {
        LogicalType::VarChar(MAX) if !serializable => write!(out, "STRING"),
        LogicalType::VarBinary(MAX) if !serializable => write!(out, "BYTES"),
        LogicalType::TimestampLtz(p) if serializable => {
            write!(out, "TIMESTAMP({p}) WITH LOCAL TIME ZONE")
        }
        LogicalType::IntervalYearMonth => write!(out, "INTERVAL YEAR(2) TO MONTH"),
        LogicalType::IntervalDayTime => write!(out, "INTERVAL DAY(2) TO SECOND(3)"),
        LogicalType::Row(fields) => {
            out.push_str("ROW<");
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push('`');
                out.push_str(&f.name.replace('`', "``"));
                out.push_str("` ");
                write_type(out, &f.ty, serializable);
            }
            write!(out, ">")
        }
        LogicalType::Array(element) => {
            out.push_str("ARRAY<");
            write_type(out, element, serializable);
            write!(out, ">")
        }
        LogicalType::Map(key, value) => {
            out.push_str("MAP<");
            write_type(out, key, serializable);
            out.push_str(", ");
            write_type(out, value, serializable);
            write!(out, ">")
        }
        // The rest print as Flink spells them (see `LogicalType`'s Display).
        other => write!(out, "{other}"),
    };
}

// ------------------------------------------------------------------------------------------
// UUID

fn bind_uuid(_: &Args<'_>) -> Result<Bound, String> {
    // DataFusion's `uuid()`: `Uuid::new_v4` text per row from a cryptographically secure
    // generator, volatile, exactly `UUID.randomUUID().toString()`'s format.
    Ok(Bound {
        args: vec![],
        result: LogicalType::Char(36),
        kernel: Kernel::Function(datafusion::functions::string::uuid()),
    })
}

// ------------------------------------------------------------------------------------------
// ELT

fn bind_elt(args: &Args<'_>) -> Result<Bound, String> {
    let index = &args.types[0];
    if !is_integer(index) {
        return Err(format!("the index must be an integer, not {index}"));
    }
    if let Some(v) = args.literal(0)
        && !v.is_null()
        && v.to_string().starts_with('-')
    {
        return Err(format!(
            "Index must be an integer starting from '0', but was '{v}'."
        ));
    }
    let values = &args.types[1..];
    let strings = values.iter().all(is_string);
    if !strings && !values.iter().all(is_binary) {
        return Err("the values must all be character strings or all binary strings".to_string());
    }
    let result_type = common_type(values);
    // Flink's `EltFunction.eval(Number, Object...)` casts the index to `Integer`: any other
    // integer type fails once an index is in range.
    let int_index = matches!(index, LogicalType::Int);
    Ok(Bound {
        args: args.types.to_vec(),
        result: result_type.clone(),
        kernel: Kernel::function("ELT", &result_type, move |args, rows| {
            elt(args, rows, strings, int_index)
        }),
    })
}

/// `LogicalTypeMerging.findCommonType` of character or binary strings: the one fixed type
/// if all are it, else the variable type of the longest.
fn common_type(values: &[LogicalType]) -> LogicalType {
    let len = |t: &LogicalType| match t {
        LogicalType::Char(n)
        | LogicalType::VarChar(n)
        | LogicalType::Binary(n)
        | LogicalType::VarBinary(n) => *n,
        _ => 0,
    };
    let longest = values.iter().map(len).max().unwrap_or(0);
    match values.first() {
        Some(first @ (LogicalType::Char(_) | LogicalType::Binary(_)))
            if values.iter().all(|t| t == first) =>
        {
            first.clone()
        }
        _ if values.iter().all(is_string) => LogicalType::VarChar(longest),
        _ => LogicalType::VarBinary(longest),
    }
}

/// The ELT index argument, read as Java's `long` without converting the array.
enum IndexArg<'a> {
    Scalar(Option<i64>),
    I8(&'a PrimitiveArray<Int8Type>),
    I16(&'a PrimitiveArray<Int16Type>),
    I32(&'a PrimitiveArray<Int32Type>),
    I64(&'a PrimitiveArray<Int64Type>),
}

impl<'a> IndexArg<'a> {
    fn new(index: &'a ColumnarValue) -> DfResult<Self> {
        Ok(match index {
            ColumnarValue::Scalar(ScalarValue::Int8(v)) => IndexArg::Scalar(v.map(i64::from)),
            ColumnarValue::Scalar(ScalarValue::Int16(v)) => IndexArg::Scalar(v.map(i64::from)),
            ColumnarValue::Scalar(ScalarValue::Int32(v)) => IndexArg::Scalar(v.map(i64::from)),
            ColumnarValue::Scalar(ScalarValue::Int64(v)) => IndexArg::Scalar(*v),
            ColumnarValue::Array(a) => match a.data_type() {
                DataType::Int8 => IndexArg::I8(a.as_primitive()),
                DataType::Int16 => IndexArg::I16(a.as_primitive()),
                DataType::Int32 => IndexArg::I32(a.as_primitive()),
                DataType::Int64 => IndexArg::I64(a.as_primitive()),
                other => return Err(fail(format!("ELT index of type {other}"))),
            },
            ColumnarValue::Scalar(other) => {
                return Err(fail(format!("ELT index of type {}", other.data_type())));
            }
        })
    }

    /// Row `row`'s index, `None` for NULL.
    fn get(&self, row: usize) -> Option<i64> {
        fn at<T: ArrowPrimitiveType>(a: &PrimitiveArray<T>, row: usize) -> Option<i64>
        where
            T::Native: Into<i64>,
        {
            a.is_valid(row).then(|| a.value(row).into())
        }
        match self {
            IndexArg::Scalar(v) => *v,
            IndexArg::I8(a) => at(a, row),
            IndexArg::I16(a) => at(a, row),
            IndexArg::I32(a) => at(a, row),
            IndexArg::I64(a) => at(a, row),
        }
    }
}

/// One ELT value argument, read without expanding a scalar.
enum Values<'a> {
    Scalar(Option<&'a [u8]>),
    Strings(&'a StringArray),
    Binaries(&'a BinaryArray),
}

impl<'a> Values<'a> {
    fn new(v: &'a ColumnarValue) -> DfResult<Self> {
        Ok(match v {
            ColumnarValue::Scalar(
                ScalarValue::Utf8(s) | ScalarValue::LargeUtf8(s) | ScalarValue::Utf8View(s),
            ) => Values::Scalar(s.as_deref().map(str::as_bytes)),
            ColumnarValue::Scalar(
                ScalarValue::Binary(b)
                | ScalarValue::LargeBinary(b)
                | ScalarValue::BinaryView(b)
                | ScalarValue::FixedSizeBinary(_, b),
            ) => Values::Scalar(b.as_deref()),
            ColumnarValue::Array(a) => match a.data_type() {
                DataType::Utf8 => Values::Strings(a.as_string::<i32>()),
                DataType::Binary => Values::Binaries(a.as_binary::<i32>()),
                other => return Err(fail(format!("ELT value of type {other}"))),
            },
            ColumnarValue::Scalar(s) => {
                return Err(fail(format!("ELT value of type {}", s.data_type())));
            }
        })
    }

    fn get(&self, row: usize) -> Option<&'a [u8]> {
        match self {
            Values::Scalar(v) => *v,
            Values::Strings(a) => a.is_valid(row).then(|| a.value(row).as_bytes()),
            Values::Binaries(a) => a.is_valid(row).then(|| a.value(row)),
        }
    }
}

fn elt(
    args: &[ColumnarValue],
    rows: usize,
    strings: bool,
    int_index: bool,
) -> DfResult<ColumnarValue> {
    let values = args[1..]
        .iter()
        .map(Values::new)
        .collect::<DfResult<Vec<_>>>()?;
    let all_scalar = args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_)));
    let n = if all_scalar { 1 } else { rows };
    let index = IndexArg::new(&args[0])?;
    let pick = |row: usize| -> DfResult<Option<&[u8]>> {
        let Some(i) = index.get(row) else {
            return Ok(None);
        };
        if i < 1 || i > values.len() as i64 {
            return Ok(None);
        }
        if !int_index {
            return Err(fail(
                "java.lang.ClassCastException: ELT's index is not an INT (EltFunction casts \
                 it to java.lang.Integer)",
            ));
        }
        Ok(values[(i - 1) as usize].get(row))
    };
    let array: ArrayRef = if strings {
        let mut out = StringBuilder::with_capacity(n, data_capacity(&values, n));
        for row in 0..n {
            match pick(row)? {
                // The value came from a Utf8 argument.
                Some(v) => {
                    out.append_value(std::str::from_utf8(v).map_err(|e| fail(e.to_string()))?)
                }
                None => out.append_null(),
            }
        }
        Arc::new(out.finish())
    } else {
        let mut out = BinaryBuilder::with_capacity(n, data_capacity(&values, n));
        for row in 0..n {
            match pick(row)? {
                Some(v) => out.append_value(v),
                None => out.append_null(),
            }
        }
        Arc::new(out.finish())
    };
    result(args, array)
}

/// Value bytes to reserve for `n` results: the widest argument's average value length.
fn data_capacity(values: &[Values<'_>], n: usize) -> usize {
    let per_row = |v: &Values<'_>| match v {
        Values::Scalar(v) => v.map_or(0, <[u8]>::len),
        Values::Strings(a) => a.value_data().len() / a.len().max(1),
        Values::Binaries(a) => a.value_data().len() / a.len().max(1),
    };
    values.iter().map(per_row).max().unwrap_or(0) * n
}

// ------------------------------------------------------------------------------------------
// DECODE / ENCODE

/// The Java charsets implemented natively.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    /// `US-ASCII`.
    UsAscii,
    /// `ISO-8859-1`.
    Iso8859_1,
    /// `UTF-8`.
    Utf8,
    /// `UTF-16`: a byte-order mark decides the order when decoding (big-endian without one);
    /// encoding writes `FE FF` and big-endian units.
    Utf16,
    /// `UTF-16BE`.
    Utf16Be,
    /// `UTF-16LE`.
    Utf16Le,
}

impl Charset {
    /// The charset Java's `Charset.forName(name)` resolves `name` to, among the native ones
    /// (names and aliases compare case-insensitively, as in Java).
    pub fn for_name(name: &str) -> Option<Self> {
        const ALIASES: &[(&str, Charset)] = &[
            ("us-ascii", Charset::UsAscii),
            ("iso-ir-6", Charset::UsAscii),
            ("ansi_x3.4-1986", Charset::UsAscii),
            ("iso_646.irv:1991", Charset::UsAscii),
            ("ascii", Charset::UsAscii),
            ("iso646-us", Charset::UsAscii),
            ("us", Charset::UsAscii),
            ("ibm367", Charset::UsAscii),
            ("cp367", Charset::UsAscii),
            ("csascii", Charset::UsAscii),
            ("default", Charset::UsAscii),
            ("646", Charset::UsAscii),
            ("iso_646.irv:1983", Charset::UsAscii),
            ("ansi_x3.4-1968", Charset::UsAscii),
            ("ascii7", Charset::UsAscii),
            ("iso-8859-1", Charset::Iso8859_1),
            ("iso-ir-100", Charset::Iso8859_1),
            ("iso_8859-1", Charset::Iso8859_1),
            ("latin1", Charset::Iso8859_1),
            ("l1", Charset::Iso8859_1),
            ("ibm819", Charset::Iso8859_1),
            ("cp819", Charset::Iso8859_1),
            ("csisolatin1", Charset::Iso8859_1),
            ("819", Charset::Iso8859_1),
            ("ibm-819", Charset::Iso8859_1),
            ("iso_8859_1", Charset::Iso8859_1),
            ("iso_8859-1:1987", Charset::Iso8859_1),
            ("iso8859_1", Charset::Iso8859_1),
            ("8859_1", Charset::Iso8859_1),
            ("iso8859-1", Charset::Iso8859_1),
            ("utf-8", Charset::Utf8),
            ("unicode-1-1-utf-8", Charset::Utf8),
            ("utf8", Charset::Utf8),
            ("utf-16", Charset::Utf16),
            ("utf_16", Charset::Utf16),
            ("utf16", Charset::Utf16),
            ("unicode", Charset::Utf16),
            ("unicodebig", Charset::Utf16),
            ("utf-16be", Charset::Utf16Be),
            ("utf_16be", Charset::Utf16Be),
            ("iso-10646-ucs-2", Charset::Utf16Be),
            ("x-utf-16be", Charset::Utf16Be),
            ("unicodebigunmarked", Charset::Utf16Be),
            ("utf-16le", Charset::Utf16Le),
            ("utf_16le", Charset::Utf16Le),
            ("x-utf-16le", Charset::Utf16Le),
            ("unicodelittleunmarked", Charset::Utf16Le),
        ];
        ALIASES
            .iter()
            .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
            .map(|&(_, c)| c)
    }

    /// `new String(bytes, this)`.
    pub fn decode(self, bytes: &[u8], out: &mut String) {
        match self {
            Charset::UsAscii => out.extend(
                bytes
                    .iter()
                    .map(|&b| if b < 0x80 { char::from(b) } else { REPLACEMENT }),
            ),
            Charset::Iso8859_1 => out.extend(bytes.iter().map(|&b| char::from(b))),
            Charset::Utf8 => decode_utf8(bytes, out),
            Charset::Utf16 => decode_utf16(bytes, None, out),
            Charset::Utf16Be => decode_utf16(bytes, Some(true), out),
            Charset::Utf16Le => decode_utf16(bytes, Some(false), out),
        }
    }

    /// `s.getBytes(this)`: unmappable characters are `?` (one per code point).
    pub fn encode(self, s: &str, out: &mut Vec<u8>) {
        match self {
            Charset::UsAscii => {
                out.extend(s.chars().map(|c| if c.is_ascii() { c as u8 } else { b'?' }))
            }
            Charset::Iso8859_1 => {
                out.extend(
                    s.chars()
                        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')),
                );
            }
            Charset::Utf8 => out.extend_from_slice(s.as_bytes()),
            Charset::Utf16 | Charset::Utf16Be => {
                if self == Charset::Utf16 && !s.is_empty() {
                    out.extend_from_slice(&[0xFE, 0xFF]);
                }
                for u in s.encode_utf16() {
                    out.extend_from_slice(&u.to_be_bytes());
                }
            }
            Charset::Utf16Le => {
                for u in s.encode_utf16() {
                    out.extend_from_slice(&u.to_le_bytes());
                }
            }
        }
    }
}

const REPLACEMENT: char = '\u{FFFD}';

/// JDK 17's `String.decodeUTF8_UTF16` with replacement: unlike the Unicode "maximal subpart"
/// practice (and Rust's `from_utf8_lossy`), a well-formed three-byte encoding of a surrogate
/// is one U+FFFD, and truncated sequences at the end are one U+FFFD.
pub(super) fn decode_utf8(src: &[u8], out: &mut String) {
    let cont = |b: u8| b & 0xC0 == 0x80;
    let n = src.len();
    let mut sp = 0;
    while sp < n {
        let b1 = src[sp];
        sp += 1;
        if b1 < 0x80 {
            out.push(char::from(b1));
        } else if b1 & 0xE0 == 0xC0 && b1 & 0x1E != 0 {
            if sp < n {
                let b2 = src[sp];
                sp += 1;
                if !cont(b2) {
                    out.push(REPLACEMENT);
                    sp -= 1;
                } else {
                    let c = (u32::from(b1 & 0x1F) << 6) | u32::from(b2 & 0x3F);
                    out.push(char::from_u32(c).unwrap_or(REPLACEMENT));
                }
                continue;
            }
            out.push(REPLACEMENT);
            break;
        } else if b1 & 0xF0 == 0xE0 {
            if sp + 1 < n {
                let (b2, b3) = (src[sp], src[sp + 1]);
                sp += 2;
                if (b1 == 0xE0 && b2 & 0xE0 == 0x80) || !cont(b2) || !cont(b3) {
                    out.push(REPLACEMENT);
                    // `malformed3`: skip one byte, or two if the second continues.
                    sp -= 3;
                    let skip = if (b1 == 0xE0 && b2 & 0xE0 == 0x80) || !cont(b2) {
                        1
                    } else {
                        2
                    };
                    sp += skip;
                } else {
                    let c = (u32::from(b1 & 0x0F) << 12)
                        | (u32::from(b2 & 0x3F) << 6)
                        | u32::from(b3 & 0x3F);
                    // A surrogate is not a `char`: one replacement for the three bytes.
                    out.push(char::from_u32(c).unwrap_or(REPLACEMENT));
                }
                continue;
            }
            if sp < n && ((b1 == 0xE0 && src[sp] & 0xE0 == 0x80) || !cont(src[sp])) {
                out.push(REPLACEMENT);
                continue;
            }
            out.push(REPLACEMENT);
            break;
        } else if b1 & 0xF8 == 0xF0 {
            if sp + 2 < n {
                let (b2, b3, b4) = (src[sp], src[sp + 1], src[sp + 2]);
                sp += 3;
                let uc = (u32::from(b1 & 0x07) << 18)
                    | (u32::from(b2 & 0x3F) << 12)
                    | (u32::from(b3 & 0x3F) << 6)
                    | u32::from(b4 & 0x3F);
                if !cont(b2) || !cont(b3) || !cont(b4) || !(0x10000..=0x10FFFF).contains(&uc) {
                    out.push(REPLACEMENT);
                    // `malformed4`.
                    sp -= 4;
                    let bad2 = b1 > 0xF4
                        || (b1 == 0xF0 && !(0x90..=0xBF).contains(&b2))
                        || (b1 == 0xF4 && b2 & 0xF0 != 0x80)
                        || !cont(b2);
                    sp += if bad2 {
                        1
                    } else if !cont(b3) {
                        2
                    } else {
                        3
                    };
                } else {
                    out.push(char::from_u32(uc).unwrap_or(REPLACEMENT));
                }
                continue;
            }
            let malformed4_2 = |b2: u8| {
                (b1 == 0xF0 && !(0x90..=0xBF).contains(&b2))
                    || (b1 == 0xF4 && b2 & 0xF0 != 0x80)
                    || !cont(b2)
            };
            if b1 > 0xF4 || (sp < n && malformed4_2(src[sp])) {
                out.push(REPLACEMENT);
                continue;
            }
            sp += 1;
            out.push(REPLACEMENT);
            if sp < n && !cont(src[sp]) {
                continue;
            }
            break;
        } else {
            out.push(REPLACEMENT);
        }
    }
}

/// Java's `UnicodeDecoder` with replacement: `big_endian` `None` reads a byte-order mark
/// (`FE FF` or `FF FE`, dropped) and defaults to big-endian. A lone low surrogate is one
/// U+FFFD; a high surrogate not followed by a low one is one U+FFFD for both units; bytes
/// left at the end (an odd byte, or a high surrogate without room for its pair) are one
/// U+FFFD.
fn decode_utf16(src: &[u8], big_endian: Option<bool>, out: &mut String) {
    let mut i = 0;
    let big = match big_endian {
        Some(b) => b,
        None if src.len() >= 2 => match (src[0], src[1]) {
            (0xFE, 0xFF) => {
                i = 2;
                true
            }
            (0xFF, 0xFE) => {
                i = 2;
                false
            }
            _ => true,
        },
        None => true,
    };
    let unit = |at: usize| {
        let pair = [src[at], src[at + 1]];
        if big {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    };
    while src.len() - i >= 2 {
        let c = unit(i);
        match c {
            0xD800..=0xDBFF => {
                if src.len() - i < 4 {
                    break;
                }
                let c2 = unit(i + 2);
                if (0xDC00..=0xDFFF).contains(&c2) {
                    let cp = 0x10000 + ((u32::from(c) - 0xD800) << 10) + (u32::from(c2) - 0xDC00);
                    out.push(char::from_u32(cp).unwrap_or(REPLACEMENT));
                } else {
                    out.push(REPLACEMENT);
                }
                i += 4;
            }
            0xDC00..=0xDFFF => {
                out.push(REPLACEMENT);
                i += 2;
            }
            _ => {
                out.push(char::from_u32(u32::from(c)).unwrap_or(REPLACEMENT));
                i += 2;
            }
        }
    }
    if i < src.len() {
        out.push(REPLACEMENT);
    }
}

fn bind_decode(args: &Args<'_>) -> Result<Bound, String> {
    if !is_binary(&args.types[0]) {
        return Err(format!(
            "the first argument must be a binary string, not {}",
            args.types[0]
        ));
    }
    if !is_string(&args.types[1]) {
        return Err(format!(
            "the charset must be a character string, not {}",
            args.types[1]
        ));
    }
    Ok(Bound {
        args: args.types.to_vec(),
        result: STRING,
        kernel: Kernel::function("DECODE", &STRING, |args, rows| {
            let a = arrays(args, rows)?;
            let (bytes, names) = (binaries(&a[0])?, utf8(&a[1])?);
            let mut out = StringBuilder::with_capacity(bytes.len(), bytes.value_data().len());
            let mut text = String::new();
            let mut cached = CharsetCache::default();
            for row in 0..bytes.len() {
                if bytes.is_null(row) || names.is_null(row) {
                    out.append_null();
                    continue;
                }
                text.clear();
                cached
                    .get(names.value(row))?
                    .decode(bytes.value(row), &mut text);
                out.append_value(&text);
            }
            result(args, Arc::new(out.finish()))
        }),
    })
}

fn bind_encode(args: &Args<'_>) -> Result<Bound, String> {
    if !is_string(&args.types[0]) || !is_string(&args.types[1]) {
        return Err(format!(
            "ENCODE takes two character strings, not {} and {}",
            args.types[0], args.types[1]
        ));
    }
    Ok(Bound {
        args: args.types.to_vec(),
        result: BYTES,
        kernel: Kernel::function("ENCODE", &BYTES, |args, rows| {
            let a = arrays(args, rows)?;
            let (strings, names) = (utf8(&a[0])?, utf8(&a[1])?);
            let mut out = BinaryBuilder::with_capacity(strings.len(), strings.value_data().len());
            let mut bytes = Vec::new();
            let mut cached = CharsetCache::default();
            for row in 0..strings.len() {
                if strings.is_null(row) || names.is_null(row) {
                    out.append_null();
                    continue;
                }
                bytes.clear();
                cached
                    .get(names.value(row))?
                    .encode(strings.value(row), &mut bytes);
                out.append_value(&bytes);
            }
            result(args, Arc::new(out.finish()))
        }),
    })
}

/// The last charset name resolved (a column of names is usually one name).
#[derive(Default)]
struct CharsetCache {
    last: Option<(String, Charset)>,
}

impl CharsetCache {
    fn get(&mut self, name: &str) -> DfResult<Charset> {
        if let Some((n, c)) = &self.last
            && n == name
        {
            return Ok(*c);
        }
        let c = Charset::for_name(name).ok_or_else(|| {
            fail(format!(
                "java.io.UnsupportedEncodingException: {name} (natively: US-ASCII, \
                 ISO-8859-1, UTF-8, UTF-16, UTF-16BE, UTF-16LE)"
            ))
        })?;
        self.last = Some((name.to_owned(), c));
        Ok(c)
    }
}

fn binaries(a: &ArrayRef) -> DfResult<&GenericByteArray<BinaryType>> {
    a.as_binary_opt::<i32>()
        .ok_or_else(|| fail(format!("expected a Binary array, found {}", a.data_type())))
}

fn utf8(a: &ArrayRef) -> DfResult<&GenericByteArray<GenericStringType<i32>>> {
    a.as_string_opt::<i32>()
        .ok_or_else(|| fail(format!("expected a Utf8 array, found {}", a.data_type())))
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::collections::HashSet;

    use arrow::array::{BinaryArray, Int32Array, Int64Array, RecordBatch, StringArray};
    use arrow::datatypes::{Field, Schema};

    use crate::calc::program::{CalcProgram, Expr};
    use crate::calc::{CalcError, compile};
    use crate::changelog::ChangelogBatch;

    /// (charset, input bytes as hex, `new String(bytes, charset)`) from JDK 17.
    const JAVA_DECODE: &[(Charset, &str, &str)] = &[
        (Charset::Utf16, "", ""),
        (Charset::Utf16, "00", "\u{fffd}"),
        (Charset::Utf16, "0041", "A"),
        (Charset::Utf16, "feff0041", "A"),
        (Charset::Utf16, "fffe4100", "A"),
        (Charset::Utf16, "fffe", ""),
        (Charset::Utf16, "feff", ""),
        (Charset::Utf16, "4100", "\u{4100}"),
        (Charset::Utf16, "004100", "A\u{fffd}"),
        (Charset::Utf16, "d83dde00", "\u{1f600}"),
        (Charset::Utf16, "3dd800de", "\u{3dd8}\u{de}"),
        (Charset::Utf16, "d800", "\u{fffd}"),
        (Charset::Utf16, "d8000041", "\u{fffd}"),
        (Charset::Utf16, "dc000041", "\u{fffd}A"),
        (Charset::Utf16, "0041d800", "A\u{fffd}"),
        (Charset::Utf16, "0041d8", "A\u{fffd}"),
        (Charset::Utf16, "d800dc", "\u{fffd}"),
        (Charset::Utf16, "fffe0041", "\u{4100}"),
        (Charset::Utf16, "0041fffe", "A\u{fffe}"),
        (Charset::Utf16, "0041feff", "A\u{feff}"),
        (Charset::Utf16, "e9", "\u{fffd}"),
        (Charset::Utf16, "c3a9", "\u{c3a9}"),
        (Charset::Utf16, "ff", "\u{fffd}"),
        (Charset::Utf16, "80", "\u{fffd}"),
        (Charset::Utf16, "eda080", "\u{eda0}\u{fffd}"),
        (Charset::Utf16, "f0928080", "\u{f092}\u{8080}"),
        (Charset::Utf16, "f4908080", "\u{f490}\u{8080}"),
        (Charset::Utf16, "c0af", "\u{c0af}"),
        (Charset::Utf16, "e282", "\u{e282}"),
        (Charset::Utf16, "e282ac", "\u{e282}\u{fffd}"),
        (Charset::Utf16, "f09f9880", "\u{f09f}\u{9880}"),
        (Charset::Utf16, "f09f98", "\u{f09f}\u{fffd}"),
        (Charset::Utf16, "e2", "\u{fffd}"),
        (Charset::Utf16, "41e2", "\u{41e2}"),
        (Charset::Utf16, "ed9fbf", "\u{ed9f}\u{fffd}"),
        (Charset::Utf16, "c2", "\u{fffd}"),
        (Charset::Utf16, "efbbbf41", "\u{efbb}\u{bf41}"),
        (Charset::Utf16, "00e9", "\u{e9}"),
        (Charset::Utf16, "7f80", "\u{7f80}"),
        (Charset::Utf16Be, "", ""),
        (Charset::Utf16Be, "00", "\u{fffd}"),
        (Charset::Utf16Be, "0041", "A"),
        (Charset::Utf16Be, "feff0041", "\u{feff}A"),
        (Charset::Utf16Be, "fffe4100", "\u{fffe}\u{4100}"),
        (Charset::Utf16Be, "fffe", "\u{fffe}"),
        (Charset::Utf16Be, "feff", "\u{feff}"),
        (Charset::Utf16Be, "4100", "\u{4100}"),
        (Charset::Utf16Be, "004100", "A\u{fffd}"),
        (Charset::Utf16Be, "d83dde00", "\u{1f600}"),
        (Charset::Utf16Be, "3dd800de", "\u{3dd8}\u{de}"),
        (Charset::Utf16Be, "d800", "\u{fffd}"),
        (Charset::Utf16Be, "d8000041", "\u{fffd}"),
        (Charset::Utf16Be, "dc000041", "\u{fffd}A"),
        (Charset::Utf16Be, "0041d800", "A\u{fffd}"),
        (Charset::Utf16Be, "0041d8", "A\u{fffd}"),
        (Charset::Utf16Be, "d800dc", "\u{fffd}"),
        (Charset::Utf16Be, "fffe0041", "\u{fffe}A"),
        (Charset::Utf16Be, "0041fffe", "A\u{fffe}"),
        (Charset::Utf16Be, "0041feff", "A\u{feff}"),
        (Charset::Utf16Be, "e9", "\u{fffd}"),
        (Charset::Utf16Be, "c3a9", "\u{c3a9}"),
        (Charset::Utf16Be, "ff", "\u{fffd}"),
        (Charset::Utf16Be, "80", "\u{fffd}"),
        (Charset::Utf16Be, "eda080", "\u{eda0}\u{fffd}"),
        (Charset::Utf16Be, "f0928080", "\u{f092}\u{8080}"),
        (Charset::Utf16Be, "f4908080", "\u{f490}\u{8080}"),
        (Charset::Utf16Be, "c0af", "\u{c0af}"),
        (Charset::Utf16Be, "e282", "\u{e282}"),
        (Charset::Utf16Be, "e282ac", "\u{e282}\u{fffd}"),
        (Charset::Utf16Be, "f09f9880", "\u{f09f}\u{9880}"),
        (Charset::Utf16Be, "f09f98", "\u{f09f}\u{fffd}"),
        (Charset::Utf16Be, "e2", "\u{fffd}"),
        (Charset::Utf16Be, "41e2", "\u{41e2}"),
        (Charset::Utf16Be, "ed9fbf", "\u{ed9f}\u{fffd}"),
        (Charset::Utf16Be, "c2", "\u{fffd}"),
        (Charset::Utf16Be, "efbbbf41", "\u{efbb}\u{bf41}"),
        (Charset::Utf16Be, "00e9", "\u{e9}"),
        (Charset::Utf16Be, "7f80", "\u{7f80}"),
        (Charset::Utf16Le, "", ""),
        (Charset::Utf16Le, "00", "\u{fffd}"),
        (Charset::Utf16Le, "0041", "\u{4100}"),
        (Charset::Utf16Le, "feff0041", "\u{fffe}\u{4100}"),
        (Charset::Utf16Le, "fffe4100", "\u{feff}A"),
        (Charset::Utf16Le, "fffe", "\u{feff}"),
        (Charset::Utf16Le, "feff", "\u{fffe}"),
        (Charset::Utf16Le, "4100", "A"),
        (Charset::Utf16Le, "004100", "\u{4100}\u{fffd}"),
        (Charset::Utf16Le, "d83dde00", "\u{3dd8}\u{de}"),
        (Charset::Utf16Le, "3dd800de", "\u{1f600}"),
        (Charset::Utf16Le, "d800", "\u{d8}"),
        (Charset::Utf16Le, "d8000041", "\u{d8}\u{4100}"),
        (Charset::Utf16Le, "dc000041", "\u{dc}\u{4100}"),
        (Charset::Utf16Le, "0041d800", "\u{4100}\u{d8}"),
        (Charset::Utf16Le, "0041d8", "\u{4100}\u{fffd}"),
        (Charset::Utf16Le, "d800dc", "\u{d8}\u{fffd}"),
        (Charset::Utf16Le, "fffe0041", "\u{feff}\u{4100}"),
        (Charset::Utf16Le, "0041fffe", "\u{4100}\u{feff}"),
        (Charset::Utf16Le, "0041feff", "\u{4100}\u{fffe}"),
        (Charset::Utf16Le, "e9", "\u{fffd}"),
        (Charset::Utf16Le, "c3a9", "\u{a9c3}"),
        (Charset::Utf16Le, "ff", "\u{fffd}"),
        (Charset::Utf16Le, "80", "\u{fffd}"),
        (Charset::Utf16Le, "eda080", "\u{a0ed}\u{fffd}"),
        (Charset::Utf16Le, "f0928080", "\u{92f0}\u{8080}"),
        (Charset::Utf16Le, "f4908080", "\u{90f4}\u{8080}"),
        (Charset::Utf16Le, "c0af", "\u{afc0}"),
        (Charset::Utf16Le, "e282", "\u{82e2}"),
        (Charset::Utf16Le, "e282ac", "\u{82e2}\u{fffd}"),
        (Charset::Utf16Le, "f09f9880", "\u{9ff0}\u{8098}"),
        (Charset::Utf16Le, "f09f98", "\u{9ff0}\u{fffd}"),
        (Charset::Utf16Le, "e2", "\u{fffd}"),
        (Charset::Utf16Le, "41e2", "\u{e241}"),
        (Charset::Utf16Le, "ed9fbf", "\u{9fed}\u{fffd}"),
        (Charset::Utf16Le, "c2", "\u{fffd}"),
        (Charset::Utf16Le, "efbbbf41", "\u{bbef}\u{41bf}"),
        (Charset::Utf16Le, "00e9", "\u{e900}"),
        (Charset::Utf16Le, "7f80", "\u{807f}"),
        (Charset::Utf8, "", ""),
        (Charset::Utf8, "00", "\u{0}"),
        (Charset::Utf8, "0041", "\u{0}A"),
        (Charset::Utf8, "feff0041", "\u{fffd}\u{fffd}\u{0}A"),
        (Charset::Utf8, "fffe4100", "\u{fffd}\u{fffd}A\u{0}"),
        (Charset::Utf8, "fffe", "\u{fffd}\u{fffd}"),
        (Charset::Utf8, "feff", "\u{fffd}\u{fffd}"),
        (Charset::Utf8, "4100", "A\u{0}"),
        (Charset::Utf8, "004100", "\u{0}A\u{0}"),
        (Charset::Utf8, "d83dde00", "\u{fffd}=\u{fffd}\u{0}"),
        (Charset::Utf8, "3dd800de", "=\u{fffd}\u{0}\u{fffd}"),
        (Charset::Utf8, "d800", "\u{fffd}\u{0}"),
        (Charset::Utf8, "d8000041", "\u{fffd}\u{0}\u{0}A"),
        (Charset::Utf8, "dc000041", "\u{fffd}\u{0}\u{0}A"),
        (Charset::Utf8, "0041d800", "\u{0}A\u{fffd}\u{0}"),
        (Charset::Utf8, "0041d8", "\u{0}A\u{fffd}"),
        (Charset::Utf8, "d800dc", "\u{fffd}\u{0}\u{fffd}"),
        (Charset::Utf8, "fffe0041", "\u{fffd}\u{fffd}\u{0}A"),
        (Charset::Utf8, "0041fffe", "\u{0}A\u{fffd}\u{fffd}"),
        (Charset::Utf8, "0041feff", "\u{0}A\u{fffd}\u{fffd}"),
        (Charset::Utf8, "e9", "\u{fffd}"),
        (Charset::Utf8, "c3a9", "\u{e9}"),
        (Charset::Utf8, "ff", "\u{fffd}"),
        (Charset::Utf8, "80", "\u{fffd}"),
        (Charset::Utf8, "eda080", "\u{fffd}"),
        (Charset::Utf8, "f0928080", "\u{12000}"),
        (
            Charset::Utf8,
            "f4908080",
            "\u{fffd}\u{fffd}\u{fffd}\u{fffd}",
        ),
        (Charset::Utf8, "c0af", "\u{fffd}\u{fffd}"),
        (Charset::Utf8, "e282", "\u{fffd}"),
        (Charset::Utf8, "e282ac", "\u{20ac}"),
        (Charset::Utf8, "f09f9880", "\u{1f600}"),
        (Charset::Utf8, "f09f98", "\u{fffd}"),
        (Charset::Utf8, "e2", "\u{fffd}"),
        (Charset::Utf8, "41e2", "A\u{fffd}"),
        (Charset::Utf8, "ed9fbf", "\u{d7ff}"),
        (Charset::Utf8, "c2", "\u{fffd}"),
        (Charset::Utf8, "efbbbf41", "\u{feff}A"),
        (Charset::Utf8, "00e9", "\u{0}\u{fffd}"),
        (Charset::Utf8, "7f80", "\u{7f}\u{fffd}"),
        (Charset::UsAscii, "", ""),
        (Charset::UsAscii, "00", "\u{0}"),
        (Charset::UsAscii, "0041", "\u{0}A"),
        (Charset::UsAscii, "feff0041", "\u{fffd}\u{fffd}\u{0}A"),
        (Charset::UsAscii, "fffe4100", "\u{fffd}\u{fffd}A\u{0}"),
        (Charset::UsAscii, "fffe", "\u{fffd}\u{fffd}"),
        (Charset::UsAscii, "feff", "\u{fffd}\u{fffd}"),
        (Charset::UsAscii, "4100", "A\u{0}"),
        (Charset::UsAscii, "004100", "\u{0}A\u{0}"),
        (Charset::UsAscii, "d83dde00", "\u{fffd}=\u{fffd}\u{0}"),
        (Charset::UsAscii, "3dd800de", "=\u{fffd}\u{0}\u{fffd}"),
        (Charset::UsAscii, "d800", "\u{fffd}\u{0}"),
        (Charset::UsAscii, "d8000041", "\u{fffd}\u{0}\u{0}A"),
        (Charset::UsAscii, "dc000041", "\u{fffd}\u{0}\u{0}A"),
        (Charset::UsAscii, "0041d800", "\u{0}A\u{fffd}\u{0}"),
        (Charset::UsAscii, "0041d8", "\u{0}A\u{fffd}"),
        (Charset::UsAscii, "d800dc", "\u{fffd}\u{0}\u{fffd}"),
        (Charset::UsAscii, "fffe0041", "\u{fffd}\u{fffd}\u{0}A"),
        (Charset::UsAscii, "0041fffe", "\u{0}A\u{fffd}\u{fffd}"),
        (Charset::UsAscii, "0041feff", "\u{0}A\u{fffd}\u{fffd}"),
        (Charset::UsAscii, "e9", "\u{fffd}"),
        (Charset::UsAscii, "c3a9", "\u{fffd}\u{fffd}"),
        (Charset::UsAscii, "ff", "\u{fffd}"),
        (Charset::UsAscii, "80", "\u{fffd}"),
        (Charset::UsAscii, "eda080", "\u{fffd}\u{fffd}\u{fffd}"),
        (
            Charset::UsAscii,
            "f0928080",
            "\u{fffd}\u{fffd}\u{fffd}\u{fffd}",
        ),
        (
            Charset::UsAscii,
            "f4908080",
            "\u{fffd}\u{fffd}\u{fffd}\u{fffd}",
        ),
        (Charset::UsAscii, "c0af", "\u{fffd}\u{fffd}"),
        (Charset::UsAscii, "e282", "\u{fffd}\u{fffd}"),
        (Charset::UsAscii, "e282ac", "\u{fffd}\u{fffd}\u{fffd}"),
        (
            Charset::UsAscii,
            "f09f9880",
            "\u{fffd}\u{fffd}\u{fffd}\u{fffd}",
        ),
        (Charset::UsAscii, "f09f98", "\u{fffd}\u{fffd}\u{fffd}"),
        (Charset::UsAscii, "e2", "\u{fffd}"),
        (Charset::UsAscii, "41e2", "A\u{fffd}"),
        (Charset::UsAscii, "ed9fbf", "\u{fffd}\u{fffd}\u{fffd}"),
        (Charset::UsAscii, "c2", "\u{fffd}"),
        (Charset::UsAscii, "efbbbf41", "\u{fffd}\u{fffd}\u{fffd}A"),
        (Charset::UsAscii, "00e9", "\u{0}\u{fffd}"),
        (Charset::UsAscii, "7f80", "\u{7f}\u{fffd}"),
        (Charset::Iso8859_1, "", ""),
        (Charset::Iso8859_1, "00", "\u{0}"),
        (Charset::Iso8859_1, "0041", "\u{0}A"),
        (Charset::Iso8859_1, "feff0041", "\u{fe}\u{ff}\u{0}A"),
        (Charset::Iso8859_1, "fffe4100", "\u{ff}\u{fe}A\u{0}"),
        (Charset::Iso8859_1, "fffe", "\u{ff}\u{fe}"),
        (Charset::Iso8859_1, "feff", "\u{fe}\u{ff}"),
        (Charset::Iso8859_1, "4100", "A\u{0}"),
        (Charset::Iso8859_1, "004100", "\u{0}A\u{0}"),
        (Charset::Iso8859_1, "d83dde00", "\u{d8}=\u{de}\u{0}"),
        (Charset::Iso8859_1, "3dd800de", "=\u{d8}\u{0}\u{de}"),
        (Charset::Iso8859_1, "d800", "\u{d8}\u{0}"),
        (Charset::Iso8859_1, "d8000041", "\u{d8}\u{0}\u{0}A"),
        (Charset::Iso8859_1, "dc000041", "\u{dc}\u{0}\u{0}A"),
        (Charset::Iso8859_1, "0041d800", "\u{0}A\u{d8}\u{0}"),
        (Charset::Iso8859_1, "0041d8", "\u{0}A\u{d8}"),
        (Charset::Iso8859_1, "d800dc", "\u{d8}\u{0}\u{dc}"),
        (Charset::Iso8859_1, "fffe0041", "\u{ff}\u{fe}\u{0}A"),
        (Charset::Iso8859_1, "0041fffe", "\u{0}A\u{ff}\u{fe}"),
        (Charset::Iso8859_1, "0041feff", "\u{0}A\u{fe}\u{ff}"),
        (Charset::Iso8859_1, "e9", "\u{e9}"),
        (Charset::Iso8859_1, "c3a9", "\u{c3}\u{a9}"),
        (Charset::Iso8859_1, "ff", "\u{ff}"),
        (Charset::Iso8859_1, "80", "\u{80}"),
        (Charset::Iso8859_1, "eda080", "\u{ed}\u{a0}\u{80}"),
        (Charset::Iso8859_1, "f0928080", "\u{f0}\u{92}\u{80}\u{80}"),
        (Charset::Iso8859_1, "f4908080", "\u{f4}\u{90}\u{80}\u{80}"),
        (Charset::Iso8859_1, "c0af", "\u{c0}\u{af}"),
        (Charset::Iso8859_1, "e282", "\u{e2}\u{82}"),
        (Charset::Iso8859_1, "e282ac", "\u{e2}\u{82}\u{ac}"),
        (Charset::Iso8859_1, "f09f9880", "\u{f0}\u{9f}\u{98}\u{80}"),
        (Charset::Iso8859_1, "f09f98", "\u{f0}\u{9f}\u{98}"),
        (Charset::Iso8859_1, "e2", "\u{e2}"),
        (Charset::Iso8859_1, "41e2", "A\u{e2}"),
        (Charset::Iso8859_1, "ed9fbf", "\u{ed}\u{9f}\u{bf}"),
        (Charset::Iso8859_1, "c2", "\u{c2}"),
        (Charset::Iso8859_1, "efbbbf41", "\u{ef}\u{bb}\u{bf}A"),
        (Charset::Iso8859_1, "00e9", "\u{0}\u{e9}"),
        (Charset::Iso8859_1, "7f80", "\u{7f}\u{80}"),
    ];
    /// (charset, string, `string.getBytes(charset)` as hex) from JDK 17.
    const JAVA_ENCODE: &[(Charset, &str, &str)] = &[
        (Charset::Utf16, "", ""),
        (Charset::Utf16, "A", "feff0041"),
        (Charset::Utf16, "\u{e9}", "feff00e9"),
        (Charset::Utf16, "\u{1f600}", "feffd83dde00"),
        (Charset::Utf16, "a\u{1f600}\u{e9}", "feff0061d83dde0000e9"),
        (Charset::Utf16, "\u{ff}\u{100}", "feff00ff0100"),
        (Charset::Utf16, "\u{feff}", "fefffeff"),
        (Charset::Utf16Be, "", ""),
        (Charset::Utf16Be, "A", "0041"),
        (Charset::Utf16Be, "\u{e9}", "00e9"),
        (Charset::Utf16Be, "\u{1f600}", "d83dde00"),
        (Charset::Utf16Be, "a\u{1f600}\u{e9}", "0061d83dde0000e9"),
        (Charset::Utf16Be, "\u{ff}\u{100}", "00ff0100"),
        (Charset::Utf16Be, "\u{feff}", "feff"),
        (Charset::Utf16Le, "", ""),
        (Charset::Utf16Le, "A", "4100"),
        (Charset::Utf16Le, "\u{e9}", "e900"),
        (Charset::Utf16Le, "\u{1f600}", "3dd800de"),
        (Charset::Utf16Le, "a\u{1f600}\u{e9}", "61003dd800dee900"),
        (Charset::Utf16Le, "\u{ff}\u{100}", "ff000001"),
        (Charset::Utf16Le, "\u{feff}", "fffe"),
        (Charset::Utf8, "", ""),
        (Charset::Utf8, "A", "41"),
        (Charset::Utf8, "\u{e9}", "c3a9"),
        (Charset::Utf8, "\u{1f600}", "f09f9880"),
        (Charset::Utf8, "a\u{1f600}\u{e9}", "61f09f9880c3a9"),
        (Charset::Utf8, "\u{ff}\u{100}", "c3bfc480"),
        (Charset::Utf8, "\u{feff}", "efbbbf"),
        (Charset::UsAscii, "", ""),
        (Charset::UsAscii, "A", "41"),
        (Charset::UsAscii, "\u{e9}", "3f"),
        (Charset::UsAscii, "\u{1f600}", "3f"),
        (Charset::UsAscii, "a\u{1f600}\u{e9}", "613f3f"),
        (Charset::UsAscii, "\u{ff}\u{100}", "3f3f"),
        (Charset::UsAscii, "\u{feff}", "3f"),
        (Charset::Iso8859_1, "", ""),
        (Charset::Iso8859_1, "A", "41"),
        (Charset::Iso8859_1, "\u{e9}", "e9"),
        (Charset::Iso8859_1, "\u{1f600}", "3f"),
        (Charset::Iso8859_1, "a\u{1f600}\u{e9}", "613fe9"),
        (Charset::Iso8859_1, "\u{ff}\u{100}", "ff3f"),
        (Charset::Iso8859_1, "\u{feff}", "3f"),
    ];

    #[test]
    fn decode_matches_java_string_constructor() {
        for &(charset, hex_in, expected) in JAVA_DECODE {
            let bytes = hex::decode(hex_in).unwrap();
            let mut out = String::new();
            charset.decode(&bytes, &mut out);
            assert_eq!(out, expected, "{charset:?} {hex_in}");
        }
    }

    #[test]
    fn encode_matches_java_get_bytes() {
        for &(charset, s, expected) in JAVA_ENCODE {
            let mut out = Vec::new();
            charset.encode(s, &mut out);
            assert_eq!(hex::encode(&out), expected, "{charset:?} {s:?}");
        }
    }

    #[test]
    fn utf8_decoding_round_trips_valid_text_and_agrees_with_lossy_on_ascii_noise() {
        // Valid UTF-8 decodes to itself (Java and Rust agree on well-formed input).
        for s in ["", "abc", "é😀\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}"] {
            let mut out = String::new();
            Charset::Utf8.decode(s.as_bytes(), &mut out);
            assert_eq!(out, s);
        }
        // Every UTF-16 encoding decodes back (both orders, with and without a mark).
        let s = "a😀é\u{feff}";
        for c in [Charset::Utf16, Charset::Utf16Be, Charset::Utf16Le] {
            let mut bytes = Vec::new();
            c.encode(s, &mut bytes);
            let mut out = String::new();
            c.decode(&bytes, &mut out);
            assert_eq!(out, s, "{c:?}");
        }
    }

    #[test]
    fn charset_names_resolve_as_java_charset_for_name() {
        // `Charset.forName(alias).name()` on JDK 17.
        let java = [
            ("utf-16", Charset::Utf16),
            ("UTF16", Charset::Utf16),
            ("unicode", Charset::Utf16),
            ("UnicodeBig", Charset::Utf16),
            ("utf-16be", Charset::Utf16Be),
            ("X-UTF-16BE", Charset::Utf16Be),
            ("UnicodeBigUnmarked", Charset::Utf16Be),
            ("ISO-10646-UCS-2", Charset::Utf16Be),
            ("UTF_16LE", Charset::Utf16Le),
            ("UnicodeLittleUnmarked", Charset::Utf16Le),
            ("utf8", Charset::Utf8),
            ("unicode-1-1-utf-8", Charset::Utf8),
            ("latin1", Charset::Iso8859_1),
            ("ISO_8859-1:1987", Charset::Iso8859_1),
            ("819", Charset::Iso8859_1),
            ("default", Charset::UsAscii),
            ("ANSI_X3.4-1968", Charset::UsAscii),
            ("us", Charset::UsAscii),
        ];
        for (name, charset) in java {
            assert_eq!(Charset::for_name(name), Some(charset), "{name}");
        }
        // Illegal or unknown in Java (" UTF-8", "bogus", ""), or not native ("UTF-32").
        for name in [
            " UTF-8",
            "US-ASCII ",
            "bogus",
            "",
            "UTF-32",
            "UnicodeLittle",
        ] {
            assert_eq!(Charset::for_name(name), None, "{name}");
        }
    }

    #[test]
    fn type_strings_match_flinks_logical_type_rendering() {
        // (type, asSummaryString, asSerializableString) of the nullable type, from Flink's
        // `LogicalTypeParser.parse(type)`; `NOT NULL` appends " NOT NULL" to both.
        let flink = [
            ("BOOLEAN", "BOOLEAN", "BOOLEAN"),
            ("DECIMAL(10, 2)", "DECIMAL(10, 2)", "DECIMAL(10, 2)"),
            ("CHAR(5)", "CHAR(5)", "CHAR(5)"),
            ("VARCHAR(3)", "VARCHAR(3)", "VARCHAR(3)"),
            ("STRING", "STRING", "VARCHAR(2147483647)"),
            ("BINARY(4)", "BINARY(4)", "BINARY(4)"),
            ("VARBINARY(7)", "VARBINARY(7)", "VARBINARY(7)"),
            ("BYTES", "BYTES", "VARBINARY(2147483647)"),
            ("DATE", "DATE", "DATE"),
            ("TIME(0)", "TIME(0)", "TIME(0)"),
            ("TIMESTAMP(9)", "TIMESTAMP(9)", "TIMESTAMP(9)"),
            (
                "TIMESTAMP_LTZ(6)",
                "TIMESTAMP_LTZ(6)",
                "TIMESTAMP(6) WITH LOCAL TIME ZONE",
            ),
            (
                "INTERVAL YEAR TO MONTH",
                "INTERVAL YEAR(2) TO MONTH",
                "INTERVAL YEAR(2) TO MONTH",
            ),
            (
                "INTERVAL DAY TO SECOND(3)",
                "INTERVAL DAY(2) TO SECOND(3)",
                "INTERVAL DAY(2) TO SECOND(3)",
            ),
            ("ARRAY<INT>", "ARRAY<INT>", "ARRAY<INT>"),
            (
                "MAP<STRING, INT>",
                "MAP<STRING, INT>",
                "MAP<VARCHAR(2147483647), INT>",
            ),
            (
                "ROW<a INT, `b c` STRING>",
                "ROW<`a` INT, `b c` STRING>",
                "ROW<`a` INT, `b c` VARCHAR(2147483647)>",
            ),
            (
                "MAP<INT, ARRAY<BYTES>>",
                "MAP<INT, ARRAY<BYTES>>",
                "MAP<INT, ARRAY<VARBINARY(2147483647)>>",
            ),
        ];
        for (ty, summary, serializable) in flink {
            let t: LogicalType = ty.parse().unwrap();
            assert_eq!(type_string(&t, true, false), summary, "{ty}");
            assert_eq!(type_string(&t, true, true), serializable, "{ty}");
            assert_eq!(
                type_string(&t, false, false),
                format!("{summary} NOT NULL"),
                "{ty}"
            );
        }
    }

    #[test]
    fn elt_result_types_are_flinks_common_types() {
        // `LogicalTypeMerging.findCommonType` in Flink 2.3.0.
        let flink = [
            (&["CHAR(3)", "CHAR(5)"][..], "VARCHAR(5)"),
            (&["CHAR(3)", "CHAR(3)"][..], "CHAR(3)"),
            (&["CHAR(3)", "VARCHAR(2)"][..], "VARCHAR(3)"),
            (&["CHAR(3)", "STRING"][..], "VARCHAR(2147483647)"),
            (&["BINARY(3)", "BINARY(5)"][..], "VARBINARY(5)"),
            (&["BINARY(3)", "BINARY(3)"][..], "BINARY(3)"),
            (&["BINARY(3)", "VARBINARY(2)"][..], "VARBINARY(3)"),
            (&["BINARY(3)", "BYTES"][..], "VARBINARY(2147483647)"),
            (&["CHAR(3)"][..], "CHAR(3)"),
            (&["CHAR(3)", "CHAR(3)", "CHAR(4)"][..], "VARCHAR(4)"),
        ];
        for (types, expected) in flink {
            let types: Vec<LogicalType> = types.iter().map(|t| t.parse().unwrap()).collect();
            assert_eq!(common_type(&types).to_string(), expected, "{types:?}");
        }
    }

    fn batch(columns: Vec<ArrayRef>) -> ChangelogBatch {
        let fields: Vec<Field> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| Field::new(format!("f{i}"), c.data_type().clone(), true))
            .collect();
        ChangelogBatch::insert_only(
            RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap(),
        )
    }

    fn run(
        exprs: Vec<Expr>,
        input: &[LogicalType],
        columns: Vec<ArrayRef>,
    ) -> Result<(Vec<LogicalType>, Vec<ArrayRef>), CalcError> {
        let calc = compile(&CalcProgram::project(exprs), input)?;
        let out = calc.evaluate(&batch(columns))?;
        Ok((calc.output_types().to_vec(), out.batch().columns().to_vec()))
    }

    fn strings(a: &ArrayRef) -> Vec<Option<String>> {
        a.as_string::<i32>()
            .iter()
            .map(|v| v.map(str::to_owned))
            .collect()
    }

    #[test]
    fn uuid_is_random_version_4_text() {
        let rows = 2000;
        let ids: ArrayRef = Arc::new(Int32Array::from_iter_values(0..rows));
        let program = vec![Expr::call(UUID, vec![]), Expr::call(UUID, vec![])];
        let (types, out) = run(program, &[LogicalType::Int], vec![ids]).unwrap();
        assert_eq!(types, vec![LogicalType::Char(36); 2]);
        let mut seen = HashSet::new();
        for column in &out {
            for v in strings(column) {
                let v = v.expect("UUID() is never NULL");
                // 8-4-4-4-12 lowercase hex, version 4, IETF variant (RFC 4122).
                let parts: Vec<&str> = v.split('-').collect();
                assert_eq!(
                    parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
                    [8, 4, 4, 4, 12],
                    "{v}"
                );
                assert!(
                    parts
                        .iter()
                        .all(|p| p.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))),
                    "{v}"
                );
                assert_eq!(&parts[2][..1], "4", "{v}");
                assert!(matches!(&parts[3][..1], "8" | "9" | "a" | "b"), "{v}");
                assert!(seen.insert(v.clone()), "duplicate {v}");
            }
        }
        assert_eq!(seen.len(), 2 * rows as usize);
    }

    #[test]
    fn elt_selects_by_one_based_index() {
        let idx: ArrayRef = Arc::new(Int32Array::from(vec![
            Some(1),
            Some(2),
            Some(3),
            Some(0),
            Some(-1),
            None,
            Some(2),
        ]));
        let a: ArrayRef = Arc::new(StringArray::from(vec![
            Some("a0"),
            Some("a1"),
            Some("a2"),
            Some("a3"),
            Some("a4"),
            Some("a5"),
            None,
        ]));
        let input = [LogicalType::Int, LogicalType::VarChar(2)];
        let program = vec![Expr::call(
            ELT,
            vec![
                Expr::input(0),
                Expr::input(1),
                Expr::lit(LogicalType::Char(3), "lit"),
            ],
        )];
        let (types, out) = run(program, &input, vec![idx.clone(), a.clone()]).unwrap();
        assert_eq!(types, vec![LogicalType::VarChar(3)]);
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            strings(&out[0]),
            vec![s("a0"), s("lit"), None, None, None, None, s("lit")]
        );
        // Binary values keep their bytes; a literal index selects for every row.
        let b: ArrayRef = Arc::new(BinaryArray::from(vec![
            Some(&b"\x00\xff"[..]),
            None,
            Some(&b""[..]),
            Some(&b"x"[..]),
            Some(&b"y"[..]),
            Some(&b"z"[..]),
            Some(&b"w"[..]),
        ]));
        let program = vec![
            Expr::call(ELT, vec![Expr::input(0), Expr::input(1)]),
            Expr::call(ELT, vec![Expr::lit(LogicalType::Int, "1"), Expr::input(1)]),
        ];
        let input = [LogicalType::Int, LogicalType::Binary(2)];
        let (types, out) = run(program, &input, vec![idx, b]).unwrap();
        assert_eq!(types, vec![LogicalType::Binary(2); 2]);
        let bin = |a: &ArrayRef| {
            a.as_binary::<i32>()
                .iter()
                .map(|v| v.map(<[u8]>::to_vec))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            bin(&out[0]),
            vec![Some(vec![0, 255]), None, None, None, None, None, None]
        );
        assert_eq!(bin(&out[1])[0], Some(vec![0, 255]));
        assert_eq!(bin(&out[1])[1], None);
        assert_eq!(bin(&out[1])[2], Some(vec![]));
    }

    #[test]
    fn elt_index_rules() {
        // A BIGINT index fails as Flink's `(Integer)` cast does, but only when in range.
        let idx: ArrayRef = Arc::new(Int64Array::from(vec![Some(0), None, Some(5)]));
        let a: ArrayRef = Arc::new(StringArray::from(vec!["x", "y", "z"]));
        let input = [LogicalType::BigInt, LogicalType::VarChar(1)];
        let elt = || vec![Expr::call(ELT, vec![Expr::input(0), Expr::input(1)])];
        let (_, out) = run(elt(), &input, vec![idx, a.clone()]).unwrap();
        assert_eq!(strings(&out[0]), vec![None, None, None]);
        let idx: ArrayRef = Arc::new(Int64Array::from(vec![1]));
        let a1: ArrayRef = Arc::new(StringArray::from(vec!["x"]));
        let err = run(elt(), &input, vec![idx, a1]).unwrap_err();
        assert!(matches!(err, CalcError::Evaluation { .. }), "{err:?}");
        // A negative literal index does not plan; mixed string and binary values neither.
        let program = vec![Expr::call(
            ELT,
            vec![Expr::lit(LogicalType::Int, "-1"), Expr::input(0)],
        )];
        let err = compile(&CalcProgram::project(program), &[LogicalType::VarChar(1)]).unwrap_err();
        assert!(matches!(err, CalcError::ArgumentTypes { .. }), "{err:?}");
        let program = vec![Expr::call(
            ELT,
            vec![
                Expr::lit(LogicalType::Int, "1"),
                Expr::input(0),
                Expr::input(1),
            ],
        )];
        let err = compile(
            &CalcProgram::project(program),
            &[LogicalType::VarChar(1), LogicalType::VarBinary(1)],
        )
        .unwrap_err();
        assert!(matches!(err, CalcError::ArgumentTypes { .. }), "{err:?}");
    }

    #[test]
    fn typeof_renders_the_argument_type() {
        let col: ArrayRef = Arc::new(StringArray::from(vec![Some("x"), None]));
        let program = vec![
            Expr::call(TYPEOF, vec![Expr::input(0)]),
            Expr::call(
                TYPEOF,
                vec![Expr::input(0), Expr::lit(LogicalType::Boolean, "TRUE")],
            ),
            Expr::call(TYPEOF, vec![Expr::lit(LogicalType::Int, "1")]),
            Expr::call(TYPEOF, vec![Expr::null(LogicalType::Int)]),
            Expr::call(
                TYPEOF,
                vec![
                    Expr::lit(LogicalType::Char(2), "ab"),
                    Expr::lit(LogicalType::Boolean, "FALSE"),
                ],
            ),
        ];
        let (types, out) = run(program, &[STRING], vec![col]).unwrap();
        assert_eq!(types, vec![STRING; 5]);
        let expected = [
            "STRING",
            "VARCHAR(2147483647)",
            "INT NOT NULL",
            "INT",
            "CHAR(2) NOT NULL",
        ];
        for (column, text) in out.iter().zip(expected) {
            assert_eq!(strings(column), vec![Some(text.to_string()); 2]);
        }
    }

    #[test]
    fn decode_and_encode_through_the_compiler() {
        let bytes: ArrayRef = Arc::new(BinaryArray::from(vec![
            Some(&b"\xfe\xff\x00A\xd8\x00"[..]),
            Some(&b"\xc3\xa9"[..]),
            None,
        ]));
        let names: ArrayRef = Arc::new(StringArray::from(vec![
            Some("UTF-16"),
            Some("utf-8"),
            Some("UTF-16LE"),
        ]));
        let program = vec![Expr::call(DECODE, vec![Expr::input(0), Expr::input(1)])];
        let input = [LogicalType::VarBinary(6), LogicalType::VarChar(8)];
        let (types, out) = run(program, &input, vec![bytes, names.clone()]).unwrap();
        assert_eq!(types, vec![STRING]);
        assert_eq!(
            strings(&out[0]),
            vec![Some("A\u{fffd}".to_string()), Some("é".to_string()), None]
        );
        let text: ArrayRef = Arc::new(StringArray::from(vec![Some("é"), None, Some("A")]));
        let program = vec![Expr::call(ENCODE, vec![Expr::input(0), Expr::input(1)])];
        let input = [STRING, LogicalType::VarChar(8)];
        let (types, out) = run(program, &input, vec![text, names]).unwrap();
        assert_eq!(types, vec![BYTES]);
        let got: Vec<Option<Vec<u8>>> = out[0]
            .as_binary::<i32>()
            .iter()
            .map(|v| v.map(<[u8]>::to_vec))
            .collect();
        assert_eq!(
            got,
            vec![Some(vec![0xfe, 0xff, 0, 0xe9]), None, Some(vec![0x41, 0])]
        );
        // An unknown charset fails the evaluation, as Java's UnsupportedEncodingException.
        let text: ArrayRef = Arc::new(StringArray::from(vec!["a"]));
        let names: ArrayRef = Arc::new(StringArray::from(vec!["bogus"]));
        let program = vec![Expr::call(ENCODE, vec![Expr::input(0), Expr::input(1)])];
        let err = run(program, &[STRING, STRING], vec![text, names]).unwrap_err();
        assert!(err.to_string().contains("bogus"), "{err}");
    }
}
