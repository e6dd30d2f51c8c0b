//! A pull tokenizer over one message's bytes that yields the tokens Jackson's
//! `UTF8StreamJsonParser` yields, at the same calls, so that Flink's converters (which walk
//! the token stream and sometimes stop in the middle of a value) can be replayed exactly.
//!
//! What is Jackson's here, as Flink configures it (`JacksonMapperFactory` defaults plus
//! `ALLOW_UNESCAPED_CONTROL_CHARS`):
//! - a UTF-8 byte-order mark at the start is skipped; whitespace is ` `, `\t`, `\n`, `\r`;
//! - after a field name, the `:` and the start of the value are read at once (a malformed
//!   number or literal after a name fails on the call that returns the name);
//! - a string value is scanned when it becomes current, but a problem in it is reported only
//!   when its text is asked for or the parser moves past it (Jackson's lazy strings);
//! - raw control characters are allowed inside strings; escapes are JSON's eight plus
//!   `\uXXXX`; bytes decode as Jackson decodes UTF-8 (lead byte class, continuation bits);
//! - numbers follow strict JSON (no leading zeros, `+`, `.5`, `NaN`); literals must not run on
//!   into identifier characters; a root-level number must be followed by whitespace;
//! - nesting deeper than 1000 (`StreamReadConstraints`' default) fails;
//! - after the root value, more root values may follow (Flink never reads them unless a
//!   converter lost its place).
//!
//! After a lexical error the tokenizer is poisoned: every later call fails again. (Jackson
//! would resume in the middle of the broken token, which in practice fails too.)

/// Jackson's `StreamReadConstraints.DEFAULT_MAX_DEPTH`.
pub(crate) const MAX_DEPTH: usize = 1000;

/// A token, as Jackson's `JsonToken`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok {
    StartObject,
    EndObject,
    StartArray,
    EndArray,
    FieldName,
    String,
    Int,
    Float,
    True,
    False,
    Null,
}

/// Where the tokenizer stands inside a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Inside an object; `first` until the first name was read.
    Object { first: bool },
    /// Inside an array; `first` until the first value was read.
    Array { first: bool },
}

/// A lexical error: Jackson's `JsonParseException` (or a constraint violation).
#[derive(Debug, Clone)]
pub(crate) struct LexError(pub String);

/// A problem inside a string, and where Jackson's reader stands after reporting it (just
/// after the offending byte).
#[derive(Debug, Clone)]
struct Deferred {
    error: LexError,
    resume: usize,
}

/// A scanned string: its raw span (between the quotes) and whether it needs decoding.
#[derive(Debug, Clone, Copy, Default)]
struct StrSpan {
    start: usize,
    end: usize,
    /// Escapes or bytes that are not plain valid UTF-8: decode through [`decode_string`].
    slow: bool,
}

/// The token reader.
pub(crate) struct Lexer<'a> {
    buf: &'a [u8],
    pos: usize,
    stack: Vec<Scope>,
    cur: Option<Tok>,
    /// The current token's raw span (numbers, literals) or string span.
    span: StrSpan,
    /// A problem in the current string token, reported when it is read or skipped.
    deferred: Option<Deferred>,
    /// The value read along with a field name, returned by the next call.
    pending: Option<(Tok, StrSpan)>,
    poisoned: Option<LexError>,
    /// A container just entered too deep.
    depth_error: Option<LexError>,
    /// Decoded text of the current token when it had escapes.
    scratch: String,
}

impl<'a> Lexer<'a> {
    /// A tokenizer over `buf`, before its first token.
    /// A tokenizer over `buf` reusing `stack`'s allocation (see [`Lexer::into_stack`]).
    pub(crate) fn with_stack(buf: &'a [u8], mut stack: Vec<Scope>) -> Self {
        stack.clear();
        let mut lx = Self::new(buf);
        lx.stack = stack;
        lx
    }

    /// The container stack's allocation, for the next message.
    pub(crate) fn into_stack(self) -> Vec<Scope> {
        self.stack
    }

    pub(crate) fn new(buf: &'a [u8]) -> Self {
        let pos = if buf.starts_with(&[0xEF, 0xBB, 0xBF]) {
            3
        } else {
            0
        };
        Self {
            buf,
            pos,
            stack: Vec::new(),
            cur: None,
            span: StrSpan::default(),
            deferred: None,
            pending: None,
            poisoned: None,
            depth_error: None,
            scratch: String::new(),
        }
    }

    /// The current token (`None` before the first and after the end of input).
    #[inline]
    pub(crate) fn cur(&self) -> Option<Tok> {
        self.cur
    }

    fn fail<T>(&mut self, msg: String) -> Result<T, LexError> {
        let e = LexError(msg);
        self.poisoned = Some(e.clone());
        Err(e)
    }

    /// Moves to the next token (`Ok(None)` at the end of input outside any container).
    pub(crate) fn next(&mut self) -> Result<Option<Tok>, LexError> {
        if let Some(e) = &self.poisoned {
            return Err(e.clone());
        }
        if let Some(d) = self.deferred.take() {
            // Jackson's skip of the string fails; its reader stays after the offending byte.
            self.pos = d.resume;
            return Err(d.error);
        }
        let tok = self.advance()?;
        self.cur = tok;
        match self.depth_error.take() {
            Some(e) => Err(e),
            None => Ok(tok),
        }
    }

    fn advance(&mut self) -> Result<Option<Tok>, LexError> {
        if let Some((tok, span)) = self.pending.take() {
            self.span = span;
            return self.begin(tok, span);
        }
        match self.stack.last().copied() {
            None => {
                let b = match self.skip_ws()? {
                    None => return Ok(None),
                    Some(b) => b,
                };
                self.value_token(b)
            }
            Some(Scope::Array { first }) => {
                let mut b = self.expect_more("array")?;
                if b == b']' {
                    self.pos += 1;
                    self.stack.pop();
                    self.after_value();
                    return Ok(Some(Tok::EndArray));
                }
                if !first {
                    if b != b',' {
                        return self.fail(unexpected(
                            b,
                            "was expecting comma to separate Array entries",
                        ));
                    }
                    self.pos += 1;
                    b = self.expect_more("array")?;
                }
                if let Some(top) = self.stack.last_mut() {
                    *top = Scope::Array { first: false };
                }
                self.value_token(b)
            }
            Some(Scope::Object { first }) => {
                let mut b = self.expect_more("object")?;
                if b == b'}' {
                    self.pos += 1;
                    self.stack.pop();
                    self.after_value();
                    return Ok(Some(Tok::EndObject));
                }
                if !first {
                    if b != b',' {
                        return self.fail(unexpected(
                            b,
                            "was expecting comma to separate Object entries",
                        ));
                    }
                    self.pos += 1;
                    b = self.expect_more("object")?;
                }
                if let Some(top) = self.stack.last_mut() {
                    *top = Scope::Object { first: false };
                }
                if b != b'"' {
                    return self.fail(unexpected(
                        b,
                        "was expecting double-quote to start field name",
                    ));
                }
                self.pos += 1;
                let name = self.scan_string()?;
                // The name must be well-formed now (Jackson decodes names eagerly).
                if let Some(d) = self.deferred.take() {
                    return self.fail(d.error.0);
                }
                let b = self.expect_more("object")?;
                if b != b':' {
                    return self.fail(unexpected(
                        b,
                        "was expecting a colon to separate field name and value",
                    ));
                }
                self.pos += 1;
                let b = self.expect_more("object")?;
                let (tok, span) = self.lex_value(b)?;
                // A string value's own problems stay with the value.
                self.pending = Some((tok, span));
                self.span = name;
                Ok(Some(Tok::FieldName))
            }
        }
    }

    /// Reads the value starting at byte `b` and makes it current.
    fn value_token(&mut self, b: u8) -> Result<Option<Tok>, LexError> {
        let (tok, span) = self.lex_value(b)?;
        self.span = span;
        self.begin(tok, span)
    }

    /// Makes a lexed value current: opens containers, scans strings.
    fn begin(&mut self, tok: Tok, span: StrSpan) -> Result<Option<Tok>, LexError> {
        match tok {
            Tok::StartObject | Tok::StartArray => {
                self.stack.push(if tok == Tok::StartObject {
                    Scope::Object { first: true }
                } else {
                    Scope::Array { first: true }
                });
                if self.stack.len() > MAX_DEPTH {
                    // Jackson enters the container, then fails the constraint: the reader
                    // goes on from inside it.
                    self.depth_error = Some(LexError(format!(
                        "Document nesting depth ({}) exceeds the maximum allowed ({MAX_DEPTH}, from `StreamReadConstraints.getMaxNestingDepth()`)",
                        self.stack.len()
                    )));
                }
            }
            Tok::String => {
                self.pos = span.start;
                self.span = self.scan_string()?;
                self.after_value();
            }
            _ => self.after_value(),
        }
        Ok(Some(tok))
    }

    fn after_value(&mut self) {}

    /// Reads a value's first token starting at `b` (numbers and literals whole; for a
    /// string only its opening quote).
    fn lex_value(&mut self, b: u8) -> Result<(Tok, StrSpan), LexError> {
        let start = self.pos;
        let simple = StrSpan {
            start,
            end: start + 1,
            slow: false,
        };
        match b {
            b'{' => {
                self.pos += 1;
                Ok((Tok::StartObject, simple))
            }
            b'[' => {
                self.pos += 1;
                Ok((Tok::StartArray, simple))
            }
            b'"' => {
                self.pos += 1;
                Ok((
                    Tok::String,
                    StrSpan {
                        start: self.pos,
                        end: self.pos,
                        slow: false,
                    },
                ))
            }
            b't' => self.literal(b"true", Tok::True),
            b'f' => self.literal(b"false", Tok::False),
            b'n' => self.literal(b"null", Tok::Null),
            b'-' | b'0'..=b'9' => self.number(),
            b']' | b'}' => self.fail(unexpected(b, "expected a value")),
            _ => self.fail(unexpected(b, "expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')")),
        }
    }

    fn literal(&mut self, word: &[u8], tok: Tok) -> Result<(Tok, StrSpan), LexError> {
        let start = self.pos;
        let end = start + word.len();
        if self.buf.get(start..end) != Some(word)
            || self.buf.get(end).is_some_and(|&c| ident_part(c))
        {
            let mut stop = start;
            while stop < self.buf.len() && ident_part(self.buf[stop]) {
                stop += 1;
            }
            let text =
                String::from_utf8_lossy(&self.buf[start..stop.max(start + 1).min(self.buf.len())])
                    .into_owned();
            return self.fail(format!("Unrecognized token '{text}': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"));
        }
        self.pos = end;
        Ok((
            tok,
            StrSpan {
                start,
                end,
                slow: false,
            },
        ))
    }

    fn number(&mut self) -> Result<(Tok, StrSpan), LexError> {
        let buf = self.buf;
        let start = self.pos;
        let mut p = start;
        if buf[p] == b'-' {
            p += 1;
        }
        let digits_start = p;
        while p < buf.len() && buf[p].is_ascii_digit() {
            p += 1;
        }
        if p == digits_start {
            return self.fail("Unexpected character after '-': expected digit".into());
        }
        if buf[digits_start] == b'0' && p - digits_start > 1 {
            return self.fail("Invalid numeric value: Leading zeroes not allowed".into());
        }
        let mut float = false;
        if p < buf.len() && buf[p] == b'.' {
            float = true;
            p += 1;
            let f = p;
            while p < buf.len() && buf[p].is_ascii_digit() {
                p += 1;
            }
            if p == f {
                return self
                    .fail("Unexpected character: Decimal point not followed by a digit".into());
            }
        }
        if p < buf.len() && (buf[p] == b'e' || buf[p] == b'E') {
            float = true;
            p += 1;
            if p < buf.len() && (buf[p] == b'+' || buf[p] == b'-') {
                p += 1;
            }
            let e = p;
            while p < buf.len() && buf[p].is_ascii_digit() {
                p += 1;
            }
            if p == e {
                return self.fail(
                    "Unexpected character: Exponent indicator not followed by a digit".into(),
                );
            }
        }
        if self.stack.is_empty() && p < buf.len() && !matches!(buf[p], b' ' | b'\t' | b'\n' | b'\r')
        {
            return self.fail("Expected space separating root-level values".into());
        }
        self.pos = p;
        Ok((
            if float { Tok::Float } else { Tok::Int },
            StrSpan {
                start,
                end: p,
                slow: false,
            },
        ))
    }

    /// Scans a string whose opening quote is behind `self.pos`; leaves `pos` after the
    /// closing quote. Problems inside become `deferred`; running out of input fails now.
    fn scan_string(&mut self) -> Result<StrSpan, LexError> {
        let buf = self.buf;
        let start = self.pos;
        let mut p = start;
        let mut slow = false;
        while p < buf.len() {
            // Eight bytes at a time while none is `"`, `\` or non-ASCII.
            while let Some(chunk) = buf.get(p..p + 8) {
                let mut word = [0u8; 8];
                word.copy_from_slice(chunk);
                if special_byte(u64::from_le_bytes(word)) {
                    break;
                }
                p += 8;
            }
            let Some(&c) = buf.get(p) else { break };
            if c == b'"' {
                self.pos = p + 1;
                return Ok(StrSpan {
                    start,
                    end: p,
                    slow,
                });
            }
            if c == b'\\' {
                slow = true;
                p += 1;
                match buf.get(p) {
                    None => break,
                    Some(b'u') => {
                        // `p` is at `u`; four hex digits follow. A non-hex byte ends the
                        // escape there (it is scanned again: it may be the closing quote).
                        let mut k = 1;
                        while k <= 4 {
                            match buf.get(p + k) {
                                Some(h) if h.is_ascii_hexdigit() => k += 1,
                                Some(_) => {
                                    self.defer(
                                        "Unexpected character: expected a hex-digit for character escape sequence",
                                        p + k + 1,
                                    );
                                    break;
                                }
                                None => break,
                            }
                        }
                        p += k;
                        continue;
                    }
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                        p += 1;
                        continue;
                    }
                    Some(&other) => {
                        self.defer(
                            &format!(
                                "Unrecognized character escape '{}' (code {other})",
                                other as char
                            ),
                            p + 1,
                        );
                        p += 1;
                        continue;
                    }
                }
            }
            if c >= 0x80 {
                // Jackson's lead-byte classes and continuation checks.
                let need = match c {
                    0xC0..=0xDF => 1,
                    0xE0..=0xEF => 2,
                    0xF0..=0xF7 => 3,
                    _ => {
                        self.defer(&format!("Invalid UTF-8 start byte 0x{c:x}"), p + 1);
                        p += 1;
                        continue;
                    }
                };
                let mut k = 1;
                while k <= need {
                    match buf.get(p + k) {
                        Some(&d) if d & 0xC0 == 0x80 => k += 1,
                        Some(&d) => {
                            self.defer(&format!("Invalid UTF-8 middle byte 0x{d:x}"), p + k + 1);
                            break;
                        }
                        None => break,
                    }
                }
                if k <= need && p + k >= buf.len() {
                    break;
                }
                if k > need && std::str::from_utf8(&buf[p..p + k]).is_err() {
                    slow = true;
                }
                p += k;
                continue;
            }
            p += 1;
        }
        self.fail("Unexpected end-of-input: was expecting closing quote for a string value".into())
    }

    /// Notes the first problem of the string being scanned.
    fn defer(&mut self, msg: &str, resume: usize) {
        if self.deferred.is_none() {
            self.deferred = Some(Deferred {
                error: LexError(msg.to_string()),
                resume: resume.min(self.buf.len()),
            });
        }
    }

    fn skip_ws(&mut self) -> Result<Option<u8>, LexError> {
        while let Some(&b) = self.buf.get(self.pos) {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' | b'#' => {
                    return self.fail(unexpected(b, "maybe a (non-standard) comment? (not recognized as one since Feature 'ALLOW_COMMENTS' not enabled for parser)"));
                }
                c if c < 0x20 => {
                    return self.fail(format!(
                        "Illegal character ((CTRL-CHAR, code {c})): only regular white space (\\r, \\n, \\t) is allowed between tokens"
                    ));
                }
                _ => return Ok(Some(b)),
            }
        }
        Ok(None)
    }

    fn expect_more(&mut self, what: &str) -> Result<u8, LexError> {
        match self.skip_ws()? {
            Some(b) => Ok(b),
            None => self.fail(format!(
                "Unexpected end-of-input: expected close marker for {}",
                what.to_uppercase()
            )),
        }
    }

    /// The current token's text, as `JsonParser.getText()` (`None` for no token).
    pub(crate) fn text(&mut self) -> Result<Option<&str>, LexError> {
        let tok = match self.cur {
            None => return Ok(None),
            Some(t) => t,
        };
        Ok(Some(match tok {
            Tok::StartObject => "{",
            Tok::EndObject => "}",
            Tok::StartArray => "[",
            Tok::EndArray => "]",
            Tok::True => "true",
            Tok::False => "false",
            Tok::Null => "null",
            Tok::Int | Tok::Float => {
                let raw = &self.buf[self.span.start..self.span.end];
                // SAFETY: `number` accepted only ASCII digits, signs, `.`, `e` and `E`.
                unsafe { std::str::from_utf8_unchecked(raw) }
            }
            Tok::FieldName | Tok::String => {
                if let Some(d) = self.deferred.take() {
                    // Jackson's reader stays after the offending byte.
                    self.pos = d.resume;
                    return Err(d.error);
                }
                let raw = &self.buf[self.span.start..self.span.end];
                if !self.span.slow {
                    // SAFETY: a plain span (no escapes, no deferred problem) is valid
                    // UTF-8: `scan_string` checked each multi-byte sequence with
                    // `std::str::from_utf8` and marked the span slow otherwise.
                    unsafe { std::str::from_utf8_unchecked(raw) }
                } else {
                    self.scratch.clear();
                    decode_string(raw, &mut self.scratch);
                    self.scratch.as_str()
                }
            }
        }))
    }

    /// The raw bytes of the current string token when they need no decoding.
    #[inline]
    pub(crate) fn plain_string_bytes(&self) -> Option<&'a [u8]> {
        (matches!(self.cur, Some(Tok::String | Tok::FieldName))
            && !self.span.slow
            && self.deferred.is_none())
        .then(|| &self.buf[self.span.start..self.span.end])
    }
}

/// Whether any byte of `w` is `"`, `\\` or has its high bit set.
#[inline]
fn special_byte(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    (has_zero(w ^ (ONES * b'"' as u64)) | has_zero(w ^ (ONES * b'\\' as u64)) | (w & HIGH)) != 0
}

/// Whether `c` continues an identifier (Jackson's check after `true`/`false`/`null`).
fn ident_part(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

fn unexpected(b: u8, what: &str) -> String {
    if b.is_ascii_graphic() {
        format!("Unexpected character ('{}' (code {b})): {what}", b as char)
    } else {
        format!("Unexpected character (code {b}): {what}")
    }
}

/// Decodes a scanned string's raw bytes (escapes, Jackson's UTF-8) into `out`, as the Java
/// string Jackson builds and then as Flink stores it (`BinaryStringData`'s UTF-8, where a
/// UTF-16 surrogate without its partner becomes `?`). Jackson's UTF-8 decoding checks only
/// the lead byte's class and the continuation bits: an overlong form decodes to its code
/// point, a four-byte form becomes the two UTF-16 units Jackson computes from it.
pub(crate) fn decode_string(raw: &[u8], out: &mut String) {
    let mut units: Vec<u16> = Vec::with_capacity(raw.len());
    let mut p = 0;
    while p < raw.len() {
        let c = raw[p];
        if c == b'\\' {
            let e = raw.get(p + 1).copied().unwrap_or(b'\\');
            let unit = match e {
                b'u' => {
                    let hex = raw
                        .get(p + 2..p + 6)
                        .and_then(|h| std::str::from_utf8(h).ok());
                    let v = hex
                        .and_then(|h| u16::from_str_radix(h, 16).ok())
                        .unwrap_or(0xFFFD);
                    p += 6;
                    units.push(v);
                    continue;
                }
                b'b' => 0x08,
                b'f' => 0x0C,
                b'n' => 0x0A,
                b'r' => 0x0D,
                b't' => 0x09,
                other => other as u16,
            };
            p += 2;
            units.push(unit);
            continue;
        }
        if c < 0x80 {
            units.push(c as u16);
            p += 1;
            continue;
        }
        let (need, init) = match c {
            0xC0..=0xDF => (1, (c & 0x1F) as i32),
            0xE0..=0xEF => (2, (c & 0x0F) as i32),
            _ => (3, (c & 0x07) as i32),
        };
        let mut cp = init;
        for k in 1..=need {
            cp = (cp << 6) | (raw.get(p + k).copied().unwrap_or(0x80) & 0x3F) as i32;
        }
        p += need + 1;
        if need == 3 {
            let v = cp - 0x10000;
            units.push((0xD800 | (v >> 10)) as u16);
            units.push((0xDC00 | (v & 0x3FF)) as u16);
        } else {
            units.push(cp as u16);
        }
    }
    for r in char::decode_utf16(units) {
        out.push(r.unwrap_or('?'));
    }
}
