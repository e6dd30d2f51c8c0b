//! `'format' = 'raw'`: Flink 2.3.0's `RawFormatDeserializationSchema`,
//! `RawFormatSerializationSchema` and the options of `RawFormatFactory`.
//!
//! The table has one physical column. A message is that column's value:
//!
//! - STRING/CHAR/VARCHAR: the text in `raw.charset` (default UTF-8). Flink keeps UTF-8 bytes
//!   as they are, invalid sequences included; Arrow strings must be valid UTF-8, so a message
//!   that is not is a typed error (never a replaced value). Other charsets decode as Java's
//!   `new String(bytes, charset)` does (malformed input becomes U+FFFD) and encode as
//!   `String.getBytes(charset)` does (unmappable chars become `?`; UTF-16 writes a
//!   big-endian byte order mark).
//! - BINARY/VARBINARY/BYTES: the bytes.
//! - BOOLEAN (1 byte, non-zero is true), TINYINT (1), SMALLINT (2), INT (4), BIGINT (8),
//!   FLOAT (4), DOUBLE (8): in `raw.endianness` (default big-endian); any other length is
//!   Flink's `Size of data received for deserializing <TYPE> type is not <n>.`
//!
//! A NULL message decodes to a row whose field is NULL; a NULL field encodes to a NULL
//! message.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BinaryBuilder, RecordBatch, StringBuilder,
};
use arrow::datatypes::{
    DataType, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, Schema,
};
use streamfusion_core::types::{LogicalType, RowField, row_arrow_fields};

use crate::error::{FormatError, Result};
use crate::options::FormatOptions;
use crate::{Decoded, Decoder, Encoder};

/// The charsets decoded and encoded natively (`raw.charset`); others are refused with
/// [`FormatError::Unsupported`] (Flink's format then runs them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RawCharset {
    /// `UTF-8` (the default): bytes kept as they are.
    #[default]
    Utf8,
    /// `ISO-8859-1`.
    Latin1,
    /// `US-ASCII`.
    Ascii,
    /// `UTF-16BE`.
    Utf16Be,
    /// `UTF-16LE`.
    Utf16Le,
    /// `UTF-16`: a byte order mark picks the order on read (big-endian without one); written
    /// big-endian with a mark.
    Utf16,
}

impl RawCharset {
    /// The charset of a Java charset name or alias (case-insensitive), if run natively.
    pub fn from_java_name(name: &str) -> Option<Self> {
        let n = name.trim().to_ascii_uppercase();
        Some(match n.as_str() {
            "UTF-8" | "UTF8" | "UNICODE-1-1-UTF-8" => RawCharset::Utf8,
            "ISO-8859-1" | "ISO8859_1" | "ISO_8859_1" | "ISO_8859-1" | "LATIN1" | "L1"
            | "8859_1" | "ISO8859-1" | "IBM819" | "CP819" | "CSISOLATIN1" | "819"
            | "ISO-IR-100" | "ISO_8859-1:1987" => RawCharset::Latin1,
            "US-ASCII" | "ASCII" | "ISO646-US" | "US" | "ASCII7" | "646" | "CP367" | "IBM367"
            | "ISO_646.IRV:1991" | "ANSI_X3.4-1968" | "ANSI_X3.4-1986" | "ISO-IR-6" | "CSASCII"
            | "DEFAULT" | "ISO_646.IRV:1983" | "ANSI_X3.4-1968 " => RawCharset::Ascii,
            "UTF-16BE" | "UTF_16BE" | "X-UTF-16BE" | "ISO-10646-UCS-2" | "UNICODEBIGUNMARKED" => {
                RawCharset::Utf16Be
            }
            "UTF-16LE" | "UTF_16LE" | "X-UTF-16LE" | "UNICODELITTLEUNMARKED" => RawCharset::Utf16Le,
            "UTF-16" | "UTF_16" | "UTF16" | "UNICODE" | "UNICODEBIG" => RawCharset::Utf16,
            _ => return None,
        })
    }
}

/// `raw.endianness`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Endianness {
    /// `big-endian` (the default).
    #[default]
    BigEndian,
    /// `little-endian`.
    LittleEndian,
}

/// The options of the raw format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RawOptions {
    /// `raw.charset`.
    pub charset: RawCharset,
    /// `raw.endianness`.
    pub endianness: Endianness,
}

impl RawOptions {
    /// The options of a `WITH` clause: `charset` (a Java charset name; those not run natively
    /// are [`FormatError::Unsupported`]) and `endianness` (`big-endian` or `little-endian`,
    /// any case, as Flink's factory compares them).
    pub fn from_options(mut options: FormatOptions) -> Result<Self> {
        let charset = options.string("charset");
        let endianness = options.string("endianness");
        options.finish()?;
        let charset = match charset {
            None => RawCharset::Utf8,
            Some(name) => {
                RawCharset::from_java_name(&name).ok_or_else(|| FormatError::Unsupported {
                    format: "raw",
                    problem: format!(
                        "the charset '{name}' is not run natively (Flink refuses an unknown \
                         one with: Unsupported 'raw.charset' name: {name}.)"
                    ),
                })?
            }
        };
        let endianness = match endianness {
            None => Endianness::BigEndian,
            Some(v) if v.eq_ignore_ascii_case("big-endian") => Endianness::BigEndian,
            Some(v) if v.eq_ignore_ascii_case("little-endian") => Endianness::LittleEndian,
            Some(v) => {
                return Err(FormatError::Option {
                    key: "raw.endianness".into(),
                    problem: format!(
                        "Unsupported endianness name: {v}. Valid values of 'raw.endianness' \
                         option are 'big-endian' and 'little-endian'."
                    ),
                });
            }
        };
        Ok(Self {
            charset,
            endianness,
        })
    }
}

/// The column's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Str,
    Bin,
    Bool,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
}

impl Kind {
    fn of(field: &RowField) -> Result<Self> {
        Ok(match field.ty {
            LogicalType::Char(_) | LogicalType::VarChar(_) => Kind::Str,
            LogicalType::Binary(_) | LogicalType::VarBinary(_) => Kind::Bin,
            LogicalType::Boolean => Kind::Bool,
            LogicalType::TinyInt => Kind::I8,
            LogicalType::SmallInt => Kind::I16,
            LogicalType::Int => Kind::I32,
            LogicalType::BigInt => Kind::I64,
            LogicalType::Float => Kind::F32,
            LogicalType::Double => Kind::F64,
            ref other => {
                return Err(FormatError::Unsupported {
                    format: "raw",
                    problem: format!("The 'raw' format doesn't supports '{other}' as column type."),
                });
            }
        })
    }

    /// The byte length of a fixed-size kind and Flink's name for it.
    fn size(self) -> Option<(usize, &'static str)> {
        Some(match self {
            Kind::Bool => (1, "BOOLEAN"),
            Kind::I8 => (1, "TINYINT"),
            Kind::I16 => (2, "SMALLINT"),
            Kind::I32 => (4, "INT"),
            Kind::I64 => (8, "BIGINT"),
            Kind::F32 => (4, "FLOAT"),
            Kind::F64 => (8, "DOUBLE"),
            Kind::Str | Kind::Bin => return None,
        })
    }
}

/// Decodes raw messages into a one-column batch.
#[derive(Debug)]
pub struct RawDecoder {
    kind: Kind,
    options: RawOptions,
    schema: Arc<Schema>,
    text: String,
}

impl RawDecoder {
    /// A decoder for the table's single physical column `field`.
    pub fn try_new(field: &RowField, options: &RawOptions) -> Result<Self> {
        Ok(Self {
            kind: Kind::of(field)?,
            options: *options,
            schema: Arc::new(Schema::new(row_arrow_fields(std::slice::from_ref(field)))),
            text: String::new(),
        })
    }
}

/// `N` bytes of `msg` in the configured order, as big-endian bytes.
fn fixed<const N: usize>(msg: &[u8], endianness: Endianness) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&msg[..N]);
    if endianness == Endianness::LittleEndian {
        out.reverse();
    }
    out
}

impl Decoder for RawDecoder {
    fn decode(&mut self, messages: &BinaryArray) -> Result<Decoded> {
        let n = messages.len();
        let e = self.options.endianness;
        // Check lengths first: on an error nothing is returned.
        if let Some((size, name)) = self.kind.size() {
            for index in 0..n {
                if !messages.is_null(index) && messages.value(index).len() != size {
                    return Err(FormatError::Malformed {
                        format: "raw",
                        index,
                        field: String::new(),
                        problem: format!(
                            "Size of data received for deserializing {name} type is not {size}."
                        ),
                    });
                }
            }
        }
        let get = |i: usize| (!messages.is_null(i)).then(|| messages.value(i));
        let array: ArrayRef = match self.kind {
            Kind::Bool => Arc::new(
                (0..n)
                    .map(|i| get(i).map(|m| m[0] != 0))
                    .collect::<arrow::array::BooleanArray>(),
            ),
            Kind::I8 => Arc::new(
                (0..n)
                    .map(|i| get(i).map(|m| m[0] as i8))
                    .collect::<arrow::array::Int8Array>(),
            ),
            Kind::I16 => Arc::new(
                (0..n)
                    .map(|i| get(i).map(|m| i16::from_be_bytes(fixed(m, e))))
                    .collect::<arrow::array::Int16Array>(),
            ),
            Kind::I32 => Arc::new(
                (0..n)
                    .map(|i| get(i).map(|m| i32::from_be_bytes(fixed(m, e))))
                    .collect::<arrow::array::Int32Array>(),
            ),
            Kind::I64 => Arc::new(
                (0..n)
                    .map(|i| get(i).map(|m| i64::from_be_bytes(fixed(m, e))))
                    .collect::<arrow::array::Int64Array>(),
            ),
            Kind::F32 => Arc::new(
                (0..n)
                    .map(|i| get(i).map(|m| f32::from_bits(u32::from_be_bytes(fixed(m, e)))))
                    .collect::<arrow::array::Float32Array>(),
            ),
            Kind::F64 => Arc::new(
                (0..n)
                    .map(|i| get(i).map(|m| f64::from_bits(u64::from_be_bytes(fixed(m, e)))))
                    .collect::<arrow::array::Float64Array>(),
            ),
            Kind::Bin => Arc::new((0..n).map(get).collect::<BinaryArray>()),
            Kind::Str => {
                let mut b = StringBuilder::with_capacity(n, messages.value_data().len());
                for index in 0..n {
                    let Some(m) = get(index) else {
                        b.append_null();
                        continue;
                    };
                    if self.options.charset == RawCharset::Utf8 {
                        let s = std::str::from_utf8(m).map_err(|err| FormatError::Malformed {
                            format: "raw",
                            index,
                            field: String::new(),
                            problem: format!(
                                "not valid UTF-8 ({err}); Flink keeps the invalid bytes in its \
                                 STRING, which an Arrow string cannot carry"
                            ),
                        })?;
                        b.append_value(s);
                    } else {
                        self.text.clear();
                        decode_charset(m, self.options.charset, &mut self.text);
                        b.append_value(&self.text);
                    }
                }
                Arc::new(b.finish())
            }
        };
        let batch = RecordBatch::try_new(self.schema.clone(), vec![array])?;
        Ok(Decoded {
            batch,
            skipped: Vec::new(),
        })
    }
}

/// Java's `new String(bytes, charset)` for the non-UTF-8 charsets.
fn decode_charset(m: &[u8], charset: RawCharset, out: &mut String) {
    match charset {
        RawCharset::Utf8 => out.push_str(&String::from_utf8_lossy(m)),
        RawCharset::Latin1 => out.extend(m.iter().map(|&b| char::from(b))),
        RawCharset::Ascii => out.extend(
            m.iter()
                .map(|&b| if b < 0x80 { char::from(b) } else { '\u{FFFD}' }),
        ),
        RawCharset::Utf16Be | RawCharset::Utf16Le | RawCharset::Utf16 => {
            let (mut big, mut body) = (charset != RawCharset::Utf16Le, m);
            if charset == RawCharset::Utf16 && m.len() >= 2 {
                match (m[0], m[1]) {
                    (0xFE, 0xFF) => body = &m[2..],
                    (0xFF, 0xFE) => {
                        big = false;
                        body = &m[2..];
                    }
                    _ => {}
                }
            }
            let units = body.chunks_exact(2).map(|p| {
                if big {
                    u16::from_be_bytes([p[0], p[1]])
                } else {
                    u16::from_le_bytes([p[0], p[1]])
                }
            });
            out.extend(char::decode_utf16(units).map(|r| r.unwrap_or('\u{FFFD}')));
            if body.len() % 2 == 1 {
                out.push('\u{FFFD}');
            }
        }
    }
}

/// Java's `String.getBytes(charset)`.
fn encode_charset(s: &str, charset: RawCharset, out: &mut Vec<u8>) {
    match charset {
        RawCharset::Utf8 => out.extend_from_slice(s.as_bytes()),
        RawCharset::Latin1 => out.extend(
            s.chars()
                .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')),
        ),
        RawCharset::Ascii => {
            out.extend(s.chars().map(|c| if c.is_ascii() { c as u8 } else { b'?' }))
        }
        RawCharset::Utf16Be | RawCharset::Utf16 => {
            if charset == RawCharset::Utf16 && !s.is_empty() {
                out.extend_from_slice(&[0xFE, 0xFF]);
            }
            for u in s.encode_utf16() {
                out.extend_from_slice(&u.to_be_bytes());
            }
        }
        RawCharset::Utf16Le => {
            for u in s.encode_utf16() {
                out.extend_from_slice(&u.to_le_bytes());
            }
        }
    }
}

/// Encodes a one-column batch into raw messages.
#[derive(Debug)]
pub struct RawEncoder {
    kind: Kind,
    options: RawOptions,
    data_type: DataType,
}

impl RawEncoder {
    /// An encoder for the table's single physical column `field`.
    pub fn try_new(field: &RowField, options: &RawOptions) -> Result<Self> {
        Ok(Self {
            kind: Kind::of(field)?,
            options: *options,
            data_type: field.ty.to_arrow(),
        })
    }
}

impl Encoder for RawEncoder {
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray> {
        if batch.num_columns() != 1 || batch.column(0).data_type() != &self.data_type {
            return Err(FormatError::Schema {
                format: "raw",
                problem: format!(
                    "expected one column of {}, got {:?}",
                    self.data_type,
                    batch
                        .schema()
                        .fields()
                        .iter()
                        .map(|f| f.data_type())
                        .collect::<Vec<_>>()
                ),
            });
        }
        let a = batch.column(0);
        let n = a.len();
        let little = self.options.endianness == Endianness::LittleEndian;
        let mut out = BinaryBuilder::with_capacity(n, n * 8);
        let mut buf: Vec<u8> = Vec::new();
        for i in 0..n {
            if a.is_null(i) {
                out.append_null();
                continue;
            }
            buf.clear();
            macro_rules! num {
                ($t:ty) => {{
                    let v = a.as_primitive::<$t>().value(i);
                    if little {
                        buf.extend_from_slice(&v.to_le_bytes())
                    } else {
                        buf.extend_from_slice(&v.to_be_bytes())
                    }
                }};
            }
            match self.kind {
                Kind::Bool => buf.push(u8::from(a.as_boolean().value(i))),
                Kind::I8 => buf.push(a.as_primitive::<Int8Type>().value(i) as u8),
                Kind::I16 => num!(Int16Type),
                Kind::I32 => num!(Int32Type),
                Kind::I64 => num!(Int64Type),
                Kind::F32 => {
                    let bits = a.as_primitive::<Float32Type>().value(i).to_bits();
                    buf.extend_from_slice(&if little {
                        bits.to_le_bytes()
                    } else {
                        bits.to_be_bytes()
                    });
                }
                Kind::F64 => {
                    let bits = a.as_primitive::<Float64Type>().value(i).to_bits();
                    buf.extend_from_slice(&if little {
                        bits.to_le_bytes()
                    } else {
                        bits.to_be_bytes()
                    });
                }
                Kind::Bin => buf.extend_from_slice(a.as_binary::<i32>().value(i)),
                Kind::Str => encode_charset(
                    a.as_string::<i32>().value(i),
                    self.options.charset,
                    &mut buf,
                ),
            }
            out.append_value(&buf);
        }
        Ok(out.finish())
    }
}
