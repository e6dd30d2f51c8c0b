//! Java regular expressions as JDK 17's `java.util.regex.Pattern` reads them, translated to
//! the `fancy-regex` engine (decision 0036).
//!
//! Flink's REGEXP functions call `java.util.regex` directly (`SqlFunctionUtils`), so a
//! pattern must mean what it means to Java, not to another engine. The translation rewrites
//! every construct whose meaning differs:
//! - `\d \w \s` (and negations) are ASCII; `\h \v \R \e \a \cX`, octal `\0..` are spelled out;
//!   Java's POSIX classes (`\p{Lower}`, `\p{Alnum}`, ...) are ASCII classes;
//! - `.` excludes Java's line terminators (`\n \r \u0085 \u2028 \u2029`) unless `(?s)`;
//! - `$` and `\Z` also match before a final line terminator (`\r\n` as one), `^` is `\A`; under
//!   `(?m)` both follow Java's line terminators (never between `\r` and `\n`, `^` never at
//!   the end of the input);
//! - `\b`/`\B` use Java's word characters (letters, digits, `_`, and a non-spacing mark after
//!   a letter or digit);
//! - `(?i)` folds ASCII letters only (Java's default without `(?u)`);
//! - back-references follow Java's reading of `\12` (a second digit only if that group is
//!   already open); a reference to a group that never exists never matches;
//! - `\Q..\E` quotes.
//!
//! Look-around, atomic groups, possessive quantifiers, named groups and `\k<name>` carry over.
//! A pattern Java rejects is [`PatternError::Invalid`] (Flink's functions catch the
//! `PatternSyntaxException`: NULL, or FALSE for `REGEXP`); a construct Java accepts but this
//! translation does not carry is [`PatternError::Unsupported`] (the call is refused, never
//! evaluated differently). Java's UTF-16 matcher resumes inside a surrogate pair after an
//! empty match before it; REGEXP_REPLACE reproduces that (string.rs), REGEXP_EXTRACT's
//! first match never starts there (left as a documented difference).

use std::fmt::Write;
use std::iter::Peekable;
use std::str::Chars;

use fancy_regex::{Captures, Match, Regex, RegexBuilder};

/// Why a Java pattern has no compiled form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// `Pattern.compile` throws for it: Flink's functions give NULL (`REGEXP`: FALSE).
    #[error("invalid Java regular expression {pattern:?}: {reason}")]
    Invalid { pattern: String, reason: String },
    /// Java accepts it, but its meaning is not carried over: the call is refused.
    #[error("unsupported Java regular expression {pattern:?}: {reason}")]
    Unsupported { pattern: String, reason: String },
}

/// A Java pattern compiled for `fancy-regex`.
#[derive(Debug, Clone)]
pub struct JavaRegex {
    re: Regex,
}

/// Matching gave up (the backtracking limit): Java would keep going, so the row fails rather
/// than report "no match".
#[derive(Debug, Clone, thiserror::Error)]
#[error("matching the regular expression {pattern:?} exceeded the backtracking limit: {cause}")]
pub struct MatchFailed {
    pattern: String,
    cause: String,
}

impl JavaRegex {
    /// Compiles `pattern` with Java's meaning.
    pub fn new(pattern: &str) -> Result<Self, PatternError> {
        let translated = translate(pattern)?;
        let re = RegexBuilder::new(&translated)
            .build()
            .map_err(|e| PatternError::Unsupported {
                pattern: pattern.to_owned(),
                reason: format!("the engine rejects its translation {translated:?}: {e}"),
            })?;
        Ok(JavaRegex { re })
    }

    /// The first match's groups (`Matcher.find()` from the start).
    pub fn captures<'t>(&self, s: &'t str) -> Result<Option<Captures<'t, str>>, MatchFailed> {
        self.re.captures(s).map_err(|e| self.failed(e))
    }

    /// The first match starting at or after byte `pos` (the text before `pos` is still seen
    /// by look-behind and `\b`, as for Java's `find()` after an earlier match).
    pub fn find_from<'t>(&self, s: &'t str, pos: usize) -> Result<Option<Match<'t>>, MatchFailed> {
        self.re.find_from_pos(s, pos).map_err(|e| self.failed(e))
    }

    /// The groups of the first match starting at or after byte `pos` (as [`Self::find_from`]).
    pub fn captures_from<'t>(
        &self,
        s: &'t str,
        pos: usize,
    ) -> Result<Option<Captures<'t, str>>, MatchFailed> {
        self.re
            .captures_from_pos(s, pos)
            .map_err(|e| self.failed(e))
    }

    /// Java's `Matcher.groupCount()`: the capturing groups, not counting the whole match.
    pub fn group_count(&self) -> usize {
        self.re.captures_len() - 1
    }

    /// The translated pattern.
    pub fn as_str(&self) -> &str {
        self.re.as_str()
    }

    fn failed(&self, e: fancy_regex::Error) -> MatchFailed {
        MatchFailed {
            pattern: self.re.as_str().to_owned(),
            cause: e.to_string(),
        }
    }
}

/// Java's line terminators, as a class body.
const TERMINATORS: &str = "\\n\\r\\x{85}\\x{2028}\\x{2029}";
/// JDK 17's `Pattern.Bound.isWord`: a letter, a digit or `_` (class body).
const WORD: &str = "\\p{L}\\p{Nd}_";
/// A letter or digit that a following non-spacing mark counts as part of (class body).
const MARK_BASE: &str = "\\p{L}\\p{Nd}";

/// `pattern` in `fancy-regex` syntax, with Java's meaning.
pub fn translate(pattern: &str) -> Result<String, PatternError> {
    // Back-references need the number of groups in the whole pattern (a reference to one
    // that never exists never matches): count them with a first pass.
    let total = Translator::new(pattern, usize::MAX).run()?.groups;
    Ok(Translator::new(pattern, total).run()?.out)
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Flags {
    case_insensitive: bool,
    /// `(?u)`: Unicode case folding under `(?i)` (not carried over).
    unicode_case: bool,
    dot_all: bool,
    multi_line: bool,
}

/// What the last item was, for Java's quantifier rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    /// Start of the pattern, of a group or of an alternative: a quantifier dangles.
    Nothing,
    /// Something a quantifier applies to.
    Atom,
    /// A `*`, `+` or `?`, which a `?` (lazy) or `+` (possessive) may follow.
    Quantifier,
    /// A quantifier with its modifier: another `*`, `+` or `?` dangles.
    Modified,
}

struct Group {
    saved: Flags,
    look_behind: bool,
    capturing: bool,
    /// Where the group starts in the output.
    start: usize,
}

/// A closed group's place in the output.
struct Span {
    start: usize,
    end: usize,
    capturing: bool,
    /// Followed by a quantifier that may repeat it.
    repeated: bool,
}

struct Translated {
    out: String,
    groups: usize,
}

struct Translator<'p> {
    pattern: &'p str,
    chars: Peekable<Chars<'p>>,
    out: String,
    flags: Flags,
    open: Vec<Group>,
    last: Last,
    /// Capturing groups opened so far.
    groups: usize,
    /// Capturing groups in the whole pattern (`usize::MAX` in the counting pass).
    total: usize,
    /// Named groups opened so far (`\k<name>` may only name one of them).
    names: Vec<String>,
    /// Every closed group, and which one the last item was.
    closed: Vec<Span>,
    last_group: Option<usize>,
}

/// One element of a character class.
enum ClassItem {
    Char(char),
    /// A class body fragment that is not a single character (`\d`, `\p{L}`, a nested or
    /// negated class).
    Set(String),
}

impl<'p> Translator<'p> {
    fn new(pattern: &'p str, total: usize) -> Self {
        Translator {
            pattern,
            chars: pattern.chars().peekable(),
            out: String::with_capacity(pattern.len() * 2 + 8),
            flags: Flags::default(),
            open: Vec::new(),
            last: Last::Nothing,
            groups: 0,
            total,
            names: Vec::new(),
            closed: Vec::new(),
            last_group: None,
        }
    }

    fn invalid(&self, reason: impl Into<String>) -> PatternError {
        PatternError::Invalid {
            pattern: self.pattern.to_owned(),
            reason: reason.into(),
        }
    }

    fn unsupported(&self, reason: impl Into<String>) -> PatternError {
        PatternError::Unsupported {
            pattern: self.pattern.to_owned(),
            reason: reason.into(),
        }
    }

    fn in_look_behind(&self) -> bool {
        self.open.iter().any(|g| g.look_behind)
    }

    fn run(mut self) -> Result<Translated, PatternError> {
        while let Some(c) = self.chars.next() {
            let after_group = self.last_group.take();
            match c {
                '\\' => self.escape()?,
                '[' => {
                    let body = self.class()?;
                    self.out.push('[');
                    self.out.push_str(&body);
                    self.out.push(']');
                    self.last = Last::Atom;
                }
                '(' => self.open_group()?,
                ')' => {
                    let Some(group) = self.open.pop() else {
                        return Err(self.invalid("unmatched closing ')'"));
                    };
                    self.flags = group.saved;
                    self.out.push(')');
                    self.last = Last::Atom;
                    self.last_group = Some(self.closed.len());
                    self.closed.push(Span {
                        start: group.start,
                        end: self.out.len(),
                        capturing: group.capturing,
                        repeated: false,
                    });
                }
                '|' => {
                    self.out.push('|');
                    self.last = Last::Nothing;
                }
                '*' | '+' | '?' => self.quantifier(c, after_group)?,
                '{' => self.counted(after_group)?,
                '.' => {
                    if self.flags.dot_all {
                        self.out.push_str("(?s:.)");
                    } else {
                        write!(self.out, "[^{TERMINATORS}]").unwrap();
                    }
                    self.last = Last::Atom;
                }
                '^' => {
                    if self.flags.multi_line {
                        write!(
                            self.out,
                            "(?:\\A|(?<=[\\n\\x{{85}}\\x{{2028}}\\x{{2029}}])|(?<=\\r)(?!\\n))(?!\\z)"
                        )
                        .unwrap();
                    } else {
                        self.out.push_str("\\A");
                    }
                    self.last = Last::Atom;
                }
                '$' => {
                    self.dollar();
                    self.last = Last::Atom;
                }
                c => {
                    self.literal(c);
                    self.last = Last::Atom;
                }
            }
        }
        if !self.open.is_empty() {
            return Err(self.invalid("unclosed group"));
        }
        self.check_repeated_captures()?;
        Ok(Translated {
            out: self.out,
            groups: self.groups,
        })
    }

    /// Java's `$`: the end, or before a line terminator ending the input (any terminator
    /// under `(?m)`), never between `\r` and `\n`.
    fn dollar(&mut self) {
        if self.flags.multi_line {
            self.out
                .push_str("(?:\\z|(?<!\\r)(?=\\n)|(?=[\\r\\x{85}\\x{2028}\\x{2029}]))");
        } else {
            self.out
                .push_str("(?=(?:\\r\\n|(?<!\\r)\\n|[\\r\\x{85}\\x{2028}\\x{2029}])?\\z)");
        }
    }

    /// A literal character outside a class, folded under `(?i)` for ASCII letters.
    fn literal(&mut self, c: char) {
        if self.flags.case_insensitive && c.is_ascii_alphabetic() {
            write!(
                self.out,
                "[{}{}]",
                c.to_ascii_lowercase(),
                c.to_ascii_uppercase()
            )
            .unwrap();
        } else {
            push_escaped(&mut self.out, c);
        }
    }

    /// Java records an empty last iteration of a repeated group (`(a*)*b` on `abc` captures
    /// `""`), the engine the last non-empty one: a capturing group that can match empty
    /// inside a repeated group is refused.
    fn check_repeated_captures(&self) -> Result<(), PatternError> {
        if self.total == usize::MAX {
            return Ok(());
        }
        for capture in self.closed.iter().filter(|g| g.capturing) {
            let repeated = self
                .closed
                .iter()
                .any(|r| r.repeated && r.start <= capture.start && capture.end <= r.end);
            if !repeated {
                continue;
            }
            let body = &self.out[capture.start..capture.end];
            let nullable = Regex::new(&format!("\\A(?:{body})\\z"))
                .ok()
                .and_then(|re| re.is_match("").ok())
                .unwrap_or(true);
            if nullable {
                return Err(self.unsupported(
                    "a capturing group that can match empty inside a repeated group",
                ));
            }
        }
        Ok(())
    }

    fn mark_repeated(&mut self, group: Option<usize>) {
        if let Some(g) = group {
            self.closed[g].repeated = true;
        }
    }

    fn quantifier(&mut self, c: char, group: Option<usize>) -> Result<(), PatternError> {
        match (self.last, c) {
            (Last::Nothing | Last::Modified, _) | (Last::Quantifier, '*') => {
                Err(self.invalid(format!("dangling meta character {c:?}")))
            }
            (Last::Quantifier, _) => {
                // `?` lazy, `+` possessive: both engines read them alike.
                self.out.push(c);
                self.last = Last::Modified;
                Ok(())
            }
            (Last::Atom, _) => {
                if c != '?' && self.in_look_behind() {
                    return Err(self.unsupported("an unbounded quantifier inside a look-behind"));
                }
                if c != '?' {
                    self.mark_repeated(group);
                }
                self.out.push(c);
                self.last = Last::Quantifier;
                Ok(())
            }
        }
    }

    /// `{n}`, `{n,}`, `{n,m}`; anything else after `{` is Java's "illegal repetition".
    fn counted(&mut self, group: Option<usize>) -> Result<(), PatternError> {
        let mut body = String::new();
        loop {
            match self.chars.next() {
                Some('}') => break,
                Some(c @ ('0'..='9' | ',')) => body.push(c),
                Some(_) | None if body.is_empty() => {
                    return Err(self.invalid("illegal repetition"));
                }
                _ => return Err(self.invalid("unclosed counted closure")),
            }
        }
        let (low, high) = match body.split_once(',') {
            Some((low, high)) => (low, Some(high)),
            None => (body.as_str(), None),
        };
        let bound = |s: &str| s.parse::<u32>().ok();
        let Some(min) = bound(low) else {
            return Err(self.invalid("illegal repetition"));
        };
        match high {
            Some("") if self.in_look_behind() => {
                return Err(self.unsupported("an unbounded quantifier inside a look-behind"));
            }
            Some("") => self.mark_repeated(group),
            Some(high) => match bound(high) {
                Some(max) if max >= min => {
                    if max > 1 {
                        self.mark_repeated(group);
                    }
                }
                Some(_) => return Err(self.invalid("illegal repetition range")),
                None => return Err(self.invalid("unclosed counted closure")),
            },
            None if min > 1 => self.mark_repeated(group),
            None => {}
        }
        if self.last != Last::Atom {
            // Java accepts `{2}` at the start or after another quantifier; its meaning
            // there is not carried over.
            return Err(self.unsupported("a counted closure that follows no atom"));
        }
        write!(self.out, "{{{body}}}").unwrap();
        self.last = Last::Quantifier;
        Ok(())
    }

    fn open_group(&mut self) -> Result<(), PatternError> {
        let saved = self.flags;
        let start = self.out.len();
        let mut look_behind = false;
        let mut capturing = false;
        if self.chars.peek() != Some(&'?') {
            capturing = true;
            self.groups += 1;
            self.out.push('(');
        } else {
            self.chars.next();
            match self.chars.next() {
                Some(c @ (':' | '=' | '!' | '>')) => {
                    self.out.push_str("(?");
                    self.out.push(c);
                }
                Some('<') => match self.chars.peek() {
                    Some(&c @ ('=' | '!')) => {
                        self.chars.next();
                        look_behind = true;
                        self.out.push_str("(?<");
                        self.out.push(c);
                    }
                    _ => {
                        let name = self.group_name()?;
                        if self.names.contains(&name) {
                            return Err(
                                self.invalid(format!("named group <{name}> is already defined"))
                            );
                        }
                        capturing = true;
                        self.groups += 1;
                        write!(self.out, "(?<{name}>").unwrap();
                        self.names.push(name);
                    }
                },
                Some(c) => {
                    // Inline flags: `(?idmsux-idmsux)` or `(?idmsux-idmsux:X)`.
                    let mut c = c;
                    let mut on = true;
                    loop {
                        match c {
                            'i' => self.flags.case_insensitive = on,
                            's' => self.flags.dot_all = on,
                            'm' => self.flags.multi_line = on,
                            'u' => self.flags.unicode_case = on,
                            'x' | 'd' | 'U' if !on => {}
                            'x' | 'd' | 'U' => {
                                return Err(self.unsupported(format!("the inline flag {c:?}")));
                            }
                            '-' if on => on = false,
                            ')' | ':' if self.flags.case_insensitive && self.flags.unicode_case => {
                                return Err(self.unsupported("Unicode case folding (?iu)"));
                            }
                            // Flags for the rest of the enclosing group.
                            ')' => return Ok(()),
                            ':' => break,
                            _ => return Err(self.invalid("unknown inline modifier")),
                        }
                        c = match self.chars.next() {
                            Some(c) => c,
                            None => return Err(self.invalid("unknown inline modifier")),
                        };
                    }
                    self.out.push_str("(?:");
                }
                None => return Err(self.invalid("unknown group type")),
            }
        }
        self.open.push(Group {
            saved,
            look_behind,
            capturing,
            start,
        });
        self.last = Last::Nothing;
        Ok(())
    }

    /// A group name: an ASCII letter, then ASCII letters and digits, then `>`.
    fn group_name(&mut self) -> Result<String, PatternError> {
        let mut name = String::new();
        loop {
            match self.chars.next() {
                Some('>') if !name.is_empty() => return Ok(name),
                Some(c) if c.is_ascii_alphabetic() || (c.is_ascii_digit() && !name.is_empty()) => {
                    name.push(c)
                }
                _ => return Err(self.invalid("a group name must be an ASCII letter and digits")),
            }
        }
    }

    /// An escape outside a class.
    fn escape(&mut self) -> Result<(), PatternError> {
        let Some(e) = self.chars.next() else {
            return Err(self.invalid("unexpected internal error: trailing backslash"));
        };
        self.last = Last::Atom;
        match e {
            'A' => self.out.push_str("\\A"),
            'z' => self.out.push_str("\\z"),
            'Z' => {
                let multi_line = std::mem::replace(&mut self.flags.multi_line, false);
                self.dollar();
                self.flags.multi_line = multi_line;
            }
            'b' | 'B' => {
                if self.chars.peek() == Some(&'{') {
                    return Err(self.unsupported("\\b{g}"));
                }
                let left = format!("(?:(?<=[{WORD}])|(?<=[{MARK_BASE}]\\p{{Mn}}+))");
                let right = format!("(?:(?=[{WORD}])|(?=\\p{{Mn}})(?<=[{MARK_BASE}]\\p{{Mn}}*))");
                if e == 'b' {
                    write!(self.out, "(?:{left}(?!{right})|(?!{left}){right})").unwrap();
                } else {
                    write!(self.out, "(?:{left}{right}|(?!{left})(?!{right}))").unwrap();
                }
            }
            'R' => self
                .out
                .push_str("(?>\\r\\n|[\\n\\x0B\\x0C\\r\\x{85}\\x{2028}\\x{2029}])"),
            'Q' => {
                let quoted = self.quoted();
                for c in quoted.chars() {
                    self.literal(c);
                }
            }
            'k' => {
                if self.chars.next() != Some('<') {
                    return Err(self.invalid("\\k is not followed by '<' for a named group"));
                }
                let name = self.group_name()?;
                if !self.names.contains(&name) {
                    return Err(self.invalid(format!("named group <{name}> does not exist")));
                }
                if self.flags.case_insensitive {
                    return Err(self.unsupported("a back-reference under (?i)"));
                }
                write!(self.out, "\\k<{name}>").unwrap();
            }
            '1'..='9' => self.back_reference(e)?,
            'G' | 'X' | 'N' | 'E' => {
                return Err(self.unsupported(format!("\\{e}")));
            }
            _ => match self.class_escape(e)? {
                ClassItem::Char(c) => self.literal(c),
                ClassItem::Set(body) => write!(self.out, "[{body}]").unwrap(),
            },
        }
        Ok(())
    }

    /// `\n`: Java reads further digits while they name a group already opened.
    fn back_reference(&mut self, first: char) -> Result<(), PatternError> {
        let mut number = first as usize - '0' as usize;
        while let Some(&d @ '0'..='9') = self.chars.peek() {
            let longer = number * 10 + (d as usize - '0' as usize);
            if longer > self.groups {
                break;
            }
            number = longer;
            self.chars.next();
        }
        if self.flags.case_insensitive {
            return Err(self.unsupported("a back-reference under (?i)"));
        }
        if number > self.total {
            // No such group: Java's reference never matches.
            self.out.push_str("(?!)");
        } else {
            write!(self.out, "(?:\\{number})").unwrap();
        }
        Ok(())
    }

    /// The text up to `\E` (or the end).
    fn quoted(&mut self) -> String {
        let mut quoted = String::new();
        while let Some(q) = self.chars.next() {
            if q == '\\' && self.chars.peek() == Some(&'E') {
                self.chars.next();
                break;
            }
            quoted.push(q);
        }
        quoted
    }

    /// An escape that stands for a character or a set, inside or outside a class.
    fn class_escape(&mut self, e: char) -> Result<ClassItem, PatternError> {
        Ok(match e {
            'd' => ClassItem::Set("0-9".into()),
            'D' => ClassItem::Set("\\x00-/:-\\x{10FFFF}".into()),
            'w' => ClassItem::Set("0-9A-Za-z_".into()),
            'W' => ClassItem::Set("\\x00-/:-@\\[-\\^`{-\\x{10FFFF}".into()),
            's' => ClassItem::Set("\\t\\n\\x0B\\x0C\\r ".into()),
            'S' => ClassItem::Set("\\x00-\\x08\\x0E-\\x1F!-\\x{10FFFF}".into()),
            'h' => ClassItem::Set(H_SPACE.into()),
            'H' => ClassItem::Set(format!("[^{H_SPACE}]")),
            'v' => ClassItem::Set(V_SPACE.into()),
            'V' => ClassItem::Set(format!("[^{V_SPACE}]")),
            't' => ClassItem::Char('\t'),
            'n' => ClassItem::Char('\n'),
            'r' => ClassItem::Char('\r'),
            'f' => ClassItem::Char('\x0C'),
            'a' => ClassItem::Char('\x07'),
            'e' => ClassItem::Char('\x1B'),
            'c' => match self.chars.next() {
                Some(x) => ClassItem::Char(
                    char::from_u32(x as u32 ^ 64)
                        .ok_or_else(|| self.unsupported("\\c with a non-ASCII character"))?,
                ),
                None => return Err(self.invalid("illegal control escape sequence")),
            },
            '0' => ClassItem::Char(self.octal()?),
            'x' => ClassItem::Char(self.hex_escape()?),
            'u' => {
                let code = self.hex_digits(4)?;
                let c = char::from_u32(code)
                    .ok_or_else(|| self.unsupported("a surrogate \\u escape"))?;
                ClassItem::Char(c)
            }
            'p' | 'P' => self.property(e == 'P')?,
            c if c.is_ascii_alphanumeric() => {
                return Err(if c.is_ascii_digit() || "bBAGzZRXkQEN".contains(c) {
                    self.unsupported(format!("\\{c} inside a character class"))
                } else {
                    self.invalid(format!("illegal/unsupported escape sequence \\{c}"))
                });
            }
            c => ClassItem::Char(c),
        })
    }

    /// `\0n`, `\0nn`, `\0mnn` (m ≤ 3).
    fn octal(&mut self) -> Result<char, PatternError> {
        let mut value = 0u32;
        let mut digits = 0;
        while let Some(&d @ '0'..='7') = self.chars.peek() {
            let next = value * 8 + (d as u32 - '0' as u32);
            if digits == 3 || next > 0o377 {
                break;
            }
            value = next;
            digits += 1;
            self.chars.next();
        }
        if digits == 0 {
            return Err(self.invalid("illegal octal escape sequence"));
        }
        Ok(char::from_u32(value).expect("an octal escape is at most 0o377"))
    }

    /// `\xhh` or `\x{h...}`.
    fn hex_escape(&mut self) -> Result<char, PatternError> {
        let code = if self.chars.peek() == Some(&'{') {
            self.chars.next();
            let mut code = 0u32;
            let mut digits = 0;
            loop {
                match self.chars.next() {
                    Some('}') if digits > 0 => break,
                    Some(h) if h.is_ascii_hexdigit() && code <= 0x10FFFF => {
                        code = code * 16 + h.to_digit(16).unwrap();
                        digits += 1;
                    }
                    _ => return Err(self.invalid("illegal hexadecimal escape sequence")),
                }
            }
            code
        } else {
            self.hex_digits(2)?
        };
        match char::from_u32(code) {
            Some(c) => Ok(c),
            None if code > 0x10FFFF => Err(self.invalid("hexadecimal codepoint is too big")),
            None => Err(self.unsupported("a surrogate code point escape")),
        }
    }

    fn hex_digits(&mut self, n: usize) -> Result<u32, PatternError> {
        let mut code = 0u32;
        for _ in 0..n {
            match self.chars.next().and_then(|h| h.to_digit(16)) {
                Some(d) => code = code * 16 + d,
                None => return Err(self.invalid("illegal hexadecimal escape sequence")),
            }
        }
        Ok(code)
    }

    /// `\p{..}` / `\pL`: Java's ASCII POSIX classes spelled out; Unicode categories, scripts
    /// and binary properties passed on; everything else refused.
    fn property(&mut self, negated: bool) -> Result<ClassItem, PatternError> {
        let name = match self.chars.next() {
            Some('{') => {
                let mut name = String::new();
                loop {
                    match self.chars.next() {
                        Some('}') => break,
                        Some(c) => name.push(c),
                        None => return Err(self.invalid("unclosed character family")),
                    }
                }
                name
            }
            Some(c) => c.to_string(),
            None => return Err(self.invalid("illegal character family")),
        };
        if self.flags.case_insensitive {
            return Err(self.unsupported("\\p under (?i)"));
        }
        let body = if let Some(ascii) = posix(&name) {
            ascii.to_owned()
        } else if is_category(&name)
            || name
                .strip_prefix("Is")
                .is_some_and(|n| is_category(n) || is_script_or_binary(n))
        {
            format!("\\p{{{}}}", name.strip_prefix("Is").unwrap_or(&name))
        } else {
            return Err(self.unsupported(format!("the character property {name:?}")));
        };
        Ok(ClassItem::Set(if negated {
            format!("[^{body}]")
        } else {
            body
        }))
    }

    /// A class, after its `[`: the class body in the engine's syntax.
    fn class(&mut self) -> Result<String, PatternError> {
        let mut body = String::new();
        if self.chars.peek() == Some(&'^') {
            self.chars.next();
            body.push('^');
        }
        let mut first = true;
        // Items collected since the last `&&`, emitted with their case variants.
        loop {
            let Some(c) = self.chars.next() else {
                return Err(self.invalid("unclosed character class"));
            };
            let item = match c {
                ']' if !first => break,
                '[' => {
                    let nested = self.class()?;
                    ClassItem::Set(format!("[{nested}]"))
                }
                '&' if self.chars.peek() == Some(&'&') => {
                    self.chars.next();
                    body.push_str("&&");
                    first = false;
                    continue;
                }
                '\\' => match self.chars.next() {
                    None => return Err(self.invalid("unclosed character class")),
                    Some('Q') => {
                        for q in self.quoted().chars() {
                            self.class_char(&mut body, q);
                        }
                        first = false;
                        continue;
                    }
                    Some(e) => self.class_escape(e)?,
                },
                c => ClassItem::Char(c),
            };
            first = false;
            match item {
                ClassItem::Set(set) => body.push_str(&set),
                ClassItem::Char(low) => {
                    let dash = self.chars.peek() == Some(&'-') && {
                        let mut ahead = self.chars.clone();
                        ahead.next();
                        !matches!(ahead.peek(), Some(']') | None)
                    };
                    if !dash {
                        self.class_char(&mut body, low);
                        continue;
                    }
                    self.chars.next();
                    let high = match self.chars.next() {
                        Some('\\') => match self.chars.next() {
                            Some(e) => match self.class_escape(e)? {
                                ClassItem::Char(c) => c,
                                ClassItem::Set(_) => {
                                    return Err(self.invalid("illegal character range"));
                                }
                            },
                            None => return Err(self.invalid("unclosed character class")),
                        },
                        Some('[') | Some('-') => {
                            return Err(self.unsupported("a range ending in '[' or '-'"));
                        }
                        Some(c) => c,
                        None => return Err(self.invalid("unclosed character class")),
                    };
                    if high < low {
                        return Err(self.invalid("illegal character range"));
                    }
                    self.class_range(&mut body, low, high);
                }
            }
        }
        if body.is_empty() || body == "^" {
            return Err(self.invalid("empty character class"));
        }
        Ok(body)
    }

    fn class_char(&self, body: &mut String, c: char) {
        push_class_escaped(body, c);
        if self.flags.case_insensitive && c.is_ascii_alphabetic() {
            let other = if c.is_ascii_lowercase() {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            };
            push_class_escaped(body, other);
        }
    }

    /// `low-high`, and under `(?i)` the other case of every ASCII letter in it (Java's
    /// range matches a character whose ASCII upper or lower case is in the range).
    fn class_range(&self, body: &mut String, low: char, high: char) {
        push_class_escaped(body, low);
        body.push('-');
        push_class_escaped(body, high);
        if self.flags.case_insensitive {
            for (from, to) in [('a', 'z'), ('A', 'Z')] {
                let (lo, hi) = (low.max(from), high.min(to));
                if lo <= hi {
                    let swap = |c: char| {
                        if c.is_ascii_lowercase() {
                            c.to_ascii_uppercase()
                        } else {
                            c.to_ascii_lowercase()
                        }
                    };
                    push_class_escaped(body, swap(lo));
                    body.push('-');
                    push_class_escaped(body, swap(hi));
                }
            }
        }
    }
}

/// Java's `\h`, as a class body.
const H_SPACE: &str = " \\t\\xA0\\x{1680}\\x{180E}\\x{2000}-\\x{200A}\\x{202F}\\x{205F}\\x{3000}";
/// Java's `\v`, as a class body.
const V_SPACE: &str = "\\n\\x0B\\x0C\\r\\x{85}\\x{2028}\\x{2029}";

/// Java's POSIX character classes (US-ASCII only), as class bodies.
fn posix(name: &str) -> Option<&'static str> {
    Some(match name {
        "Lower" => "a-z",
        "Upper" => "A-Z",
        "ASCII" => "\\x00-\\x7F",
        "Alpha" => "A-Za-z",
        "Digit" => "0-9",
        "Alnum" => "0-9A-Za-z",
        "Punct" => "!-/:-@\\[-`{-\\~",
        "Graph" => "!-\\~",
        "Print" => " -\\~",
        "Blank" => " \\t",
        "Cntrl" => "\\x00-\\x1F\\x7F",
        "XDigit" => "0-9A-Fa-f",
        "Space" => "\\t\\n\\x0B\\x0C\\r ",
        _ => return None,
    })
}

/// A Unicode general category Java names without a prefix (`L`, `Lu`, ...).
fn is_category(name: &str) -> bool {
    const CATEGORIES: &[&str] = &[
        "L", "Lu", "Ll", "Lt", "Lm", "Lo", "LC", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P",
        "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl",
        "Zp", "C", "Cc", "Cf", "Co", "Cs", "Cn",
    ];
    CATEGORIES.contains(&name)
}

/// A script or binary property after Java's `Is` that both engines read alike.
fn is_script_or_binary(name: &str) -> bool {
    const BINARY: &[&str] = &[
        "Alphabetic",
        "Ideographic",
        "Letter",
        "Lowercase",
        "Uppercase",
        "White_Space",
        "WhiteSpace",
        "Hex_Digit",
        "HexDigit",
        "Join_Control",
        "JoinControl",
    ];
    const SCRIPTS: &[&str] = &[
        "Latin",
        "Greek",
        "Cyrillic",
        "Armenian",
        "Hebrew",
        "Arabic",
        "Devanagari",
        "Bengali",
        "Thai",
        "Georgian",
        "Hangul",
        "Hiragana",
        "Katakana",
        "Han",
        "Common",
        "Inherited",
    ];
    BINARY.contains(&name) || SCRIPTS.contains(&name)
}

/// `c` as a literal outside a class. Only the engine's meta characters are escaped: it
/// reads some other escapes (`\<`, `\>`) as assertions.
fn push_escaped(out: &mut String, c: char) {
    if "\\.+*?()|[]{}^$#&-~".contains(c) {
        out.push('\\');
        out.push(c);
    } else if c.is_control() {
        write!(out, "\\x{{{:X}}}", c as u32).unwrap();
    } else {
        out.push(c);
    }
}

/// `c` as a literal inside a class. Java reads `[:alpha:]` as characters, the engine as a
/// POSIX class, and no escape of `:` survives `fancy-regex`'s re-serialization: `:` is the
/// range `:-:`, which is no class name.
fn push_class_escaped(out: &mut String, c: char) {
    if c == ':' {
        out.push_str(":-:");
    } else {
        push_escaped(out, c);
    }
}
