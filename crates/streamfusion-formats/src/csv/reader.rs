//! The first record of a message, split into fields as Jackson's `CsvDecoder` (as Flink
//! configures it) splits it.
//!
//! - Before the record, with `allow-comments`, lines starting with `#`, line breaks and
//!   spaces are skipped; without it, nothing is (an empty message has no record).
//! - A field starting with the quote character is quoted: a doubled quote is one quote, line
//!   breaks are kept, the escape character escapes; after the closing quote only white space
//!   (`<= ' '`) may come before the separator or the end of the line.
//! - An unquoted field runs to the separator, a line break or the end; the escape character
//!   takes the next char literally (`\0`, `\n`, `\r`, `\t` as controls).
//! - The end of the input ends the record like a line break; a separator right before the
//!   end leaves one more, empty, field. Anything after the first record is ignored.
//!
//! Fields that need no unescaping are returned as ranges of the message; others are
//! unescaped into a scratch buffer. Separators, quotes and escapes are ASCII (checked at
//! construction), so every range falls on UTF-8 boundaries.

/// Where a field's text is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    /// Start and end in the message, or in the scratch buffer when `scratch`.
    pub start: u32,
    pub end: u32,
    pub scratch: bool,
}

/// Why a message has no record (Jackson's exception messages, without locations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReadError {
    /// Nothing but skipped lines: `MismatchedInputException`.
    NoContent,
    /// `JsonParseException` and friends.
    Parse(String),
}

/// The reader's configuration.
#[derive(Debug, Clone)]
pub(crate) struct Reader {
    separator: u8,
    quote: Option<u8>,
    escape: Option<u8>,
    allow_comments: bool,
    /// Bytes that end an unquoted run: the separator, line breaks, the escape.
    unquoted_stop: [bool; 256],
    /// Bytes that end a quoted run: the quote, the escape.
    quoted_stop: [bool; 256],
}

impl Reader {
    pub(crate) fn new(
        separator: u8,
        quote: Option<u8>,
        escape: Option<u8>,
        allow_comments: bool,
    ) -> Self {
        let mut unquoted_stop = [false; 256];
        let mut quoted_stop = [false; 256];
        for b in [Some(separator), Some(b'\r'), Some(b'\n'), escape]
            .into_iter()
            .flatten()
        {
            unquoted_stop[usize::from(b)] = true;
        }
        for b in [quote, escape].into_iter().flatten() {
            quoted_stop[usize::from(b)] = true;
        }
        Self {
            separator,
            quote,
            escape,
            allow_comments,
            unquoted_stop,
            quoted_stop,
        }
    }

    /// Splits the first record of `msg` into at most `limit` fields (the caller only needs
    /// to know that there are more than it expects).
    pub(crate) fn read(
        &self,
        msg: &[u8],
        limit: usize,
        fields: &mut Vec<Span>,
        scratch: &mut Vec<u8>,
    ) -> Result<(), ReadError> {
        fields.clear();
        scratch.clear();
        let len = msg.len();
        let mut pos = 0usize;
        if self.allow_comments {
            while pos < len {
                match msg[pos] {
                    b'#' => {
                        while pos < len && msg[pos] != b'\r' && msg[pos] != b'\n' {
                            pos += 1;
                        }
                    }
                    b'\r' | b'\n' | b' ' => pos += 1,
                    _ => break,
                }
            }
        }
        if pos >= len {
            return Err(ReadError::NoContent);
        }
        let sep = self.separator;
        loop {
            if fields.len() >= limit {
                return Ok(());
            }
            // The start of a value.
            if pos >= len {
                fields.push(Span {
                    start: pos as u32,
                    end: pos as u32,
                    scratch: false,
                });
                return Ok(());
            }
            let c = msg[pos];
            if c == b'\r' || c == b'\n' {
                fields.push(Span {
                    start: pos as u32,
                    end: pos as u32,
                    scratch: false,
                });
                return Ok(());
            }
            if Some(c) == self.quote {
                let (span, ended) = self.quoted(msg, pos + 1, scratch, &mut pos)?;
                fields.push(span);
                if ended {
                    return Ok(());
                }
                continue;
            }
            if c == sep {
                fields.push(Span {
                    start: pos as u32,
                    end: pos as u32,
                    scratch: false,
                });
                pos += 1;
                continue;
            }
            // Unquoted: scan for the separator, a line break or an escape.
            let start = pos;
            let mut i = pos;
            while i < len && !self.unquoted_stop[usize::from(msg[i])] {
                i += 1;
            }
            let escaped = i < len && Some(msg[i]) == self.escape;
            if !escaped {
                fields.push(Span {
                    start: start as u32,
                    end: i as u32,
                    scratch: false,
                });
                if i >= len || msg[i] != sep {
                    return Ok(());
                }
                pos = i + 1;
                continue;
            }
            // With escapes: copy into the scratch buffer.
            let s_start = scratch.len();
            scratch.extend_from_slice(&msg[start..i]);
            let mut end_of_record = true;
            while i < len {
                let b = msg[i];
                if b == sep {
                    end_of_record = false;
                    i += 1;
                    break;
                }
                if b == b'\r' || b == b'\n' {
                    break;
                }
                if Some(b) == self.escape {
                    i = unescape(msg, i + 1, scratch)?;
                    continue;
                }
                scratch.push(b);
                i += 1;
            }
            fields.push(Span {
                start: s_start as u32,
                end: scratch.len() as u32,
                scratch: true,
            });
            if end_of_record {
                return Ok(());
            }
            pos = i;
        }
    }

    /// A quoted value whose content starts at `from`; sets `pos` after the value (and its
    /// separator). Returns the span and whether the record ended.
    fn quoted(
        &self,
        msg: &[u8],
        from: usize,
        scratch: &mut Vec<u8>,
        pos: &mut usize,
    ) -> Result<(Span, bool), ReadError> {
        let len = msg.len();
        let quote = self.quote.unwrap_or(b'"');
        // Fast path: no escape, no doubled quote.
        let mut i = from;
        while i < len && !self.quoted_stop[usize::from(msg[i])] {
            i += 1;
        }
        let span;
        if i < len && msg[i] == quote && msg.get(i + 1) != Some(&quote) {
            span = Span {
                start: from as u32,
                end: i as u32,
                scratch: false,
            };
            i += 1;
        } else {
            let s_start = scratch.len();
            scratch.extend_from_slice(&msg[from..i.min(len)]);
            loop {
                if i >= len {
                    return Err(ReadError::Parse("Missing closing quote for value".into()));
                }
                let b = msg[i];
                if b == quote {
                    if msg.get(i + 1) == Some(&quote) {
                        scratch.push(quote);
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                if Some(b) == self.escape {
                    i = unescape(msg, i + 1, scratch)?;
                    continue;
                }
                scratch.push(b);
                i += 1;
            }
            span = Span {
                start: s_start as u32,
                end: scratch.len() as u32,
                scratch: true,
            };
        }
        // After the closing quote: white space, then the separator or the end of the line.
        while i < len {
            let b = msg[i];
            i += 1;
            if b == self.separator {
                *pos = i;
                return Ok((span, false));
            }
            if b <= b' ' {
                if b == b'\r' || b == b'\n' {
                    return Ok((span, true));
                }
                continue;
            }
            return Err(ReadError::Parse(format!(
                "Unexpected character ({}): Expected column separator character ({}) or end-of-line",
                char_desc(msg, i - 1),
                byte_desc(self.separator)
            )));
        }
        *pos = len;
        Ok((span, true))
    }
}

/// `CsvDecoder._unescape`: the char after the escape at `at`, written to `out`; returns the
/// position after it.
fn unescape(msg: &[u8], at: usize, out: &mut Vec<u8>) -> Result<usize, ReadError> {
    let Some(&b) = msg.get(at) else {
        return Err(ReadError::Parse(
            "Unexpected EOF in escaped character".into(),
        ));
    };
    match b {
        b'0' => out.push(0),
        b'n' => out.push(b'\n'),
        b'r' => out.push(b'\r'),
        b't' => out.push(b'\t'),
        _ => {
            // Copy the whole (possibly multi-byte) char.
            let width = utf8_width(b);
            let end = (at + width).min(msg.len());
            out.extend_from_slice(&msg[at..end]);
            return Ok(end);
        }
    }
    Ok(at + 1)
}

fn utf8_width(b: u8) -> usize {
    match b {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Jackson's `_getCharDesc` of the char at `at`.
fn char_desc(msg: &[u8], at: usize) -> String {
    let text = std::str::from_utf8(&msg[at..(at + utf8_width(msg[at])).min(msg.len())])
        .ok()
        .and_then(|s| s.chars().next())
        .unwrap_or('\u{FFFD}');
    let code = text as u32;
    if text.is_control() {
        format!("(CTRL-CHAR, code {code})")
    } else {
        format!("'{text}' (code {code})")
    }
}

fn byte_desc(b: u8) -> String {
    if b.is_ascii_control() {
        format!("(CTRL-CHAR, code {b})")
    } else {
        format!("'{}' (code {b})", b as char)
    }
}
