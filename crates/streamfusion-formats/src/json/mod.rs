//! `'format' = 'json'`: Flink 2.3.0's `flink-json` — `JsonParserRowDataDeserializationSchema`
//! (the default decoder, `decode.json-parser.enabled = true`) and
//! `JsonRowDataSerializationSchema`, with the options of `JsonFormatOptions`.
//!
//! - [`options`]: the `json.*` options ([`JsonOptions`]).
//! - [`JsonDecoder`] (`decode.rs`): messages into rows, replaying Flink's converters over a
//!   Jackson-faithful token reader (`lexer.rs`). A message that is a JSON array gives one row
//!   per element (Flink 2.3 collects each), so a batch may hold more rows than messages; a
//!   message that gives none is listed in [`Decoded::skipped`](crate::Decoded).
//! - [`JsonEncoder`] (`encode.rs`): one message per row, byte for byte as Jackson writes
//!   Flink's tree.
//! - `timestamps.rs`, `numbers.rs`: Java's date/time and number texts.

mod decode;
mod encode;
mod lexer;
mod numbers;
pub mod options;
mod timestamps;

pub use decode::JsonDecoder;
pub use encode::JsonEncoder;
pub use options::{JsonOptions, MapNullKeyMode, TimestampFormat};

/// Writes `s` as a JSON string the way Jackson's generators escape: `"` and `\`, the
/// controls `\b \t \n \f \r` short and the others as `\u00XX` (upper-case hex). With
/// `escape_non_bmp` (the UTF-8 byte generator `writeValueAsBytes` uses) a character outside
/// the BMP is written as its two surrogates `\uXXXX\uXXXX`; the writer-based generator
/// behind `JsonNode.toString()` writes it as it is.
pub(crate) fn write_json_string(s: &str, out: &mut Vec<u8>, escape_non_bmp: bool) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            0x08 => Some(b"\\b"),
            0x09 => Some(b"\\t"),
            0x0A => Some(b"\\n"),
            0x0C => Some(b"\\f"),
            0x0D => Some(b"\\r"),
            _ => None,
        };
        if let Some(e) = escape {
            out.extend_from_slice(&bytes[run..i]);
            out.extend_from_slice(e);
            i += 1;
            run = i;
        } else if b < 0x20 {
            out.extend_from_slice(&bytes[run..i]);
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 0xF) as usize]);
            i += 1;
            run = i;
        } else if b >= 0xF0 && escape_non_bmp {
            out.extend_from_slice(&bytes[run..i]);
            let c = s[i..].chars().next().map_or(0xFFFD, |c| c as u32);
            let v = c - 0x10000;
            for unit in [0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)] {
                out.extend_from_slice(b"\\u");
                for shift in [12, 8, 4, 0] {
                    out.push(HEX[((unit >> shift) & 0xF) as usize]);
                }
            }
            i += 4;
            run = i;
        } else {
            i += 1;
        }
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}
