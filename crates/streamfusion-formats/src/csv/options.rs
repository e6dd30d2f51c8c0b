//! The `'format' = 'csv'` options, read and checked as `CsvFormatFactory` and
//! `CsvCommons.validateFormatOptions` do.

use crate::error::{FormatError, Result};
use crate::options::FormatOptions;

/// The options of the CSV format (`CsvFormatOptions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    /// `field-delimiter` (default `,`), after `StringEscapeUtils.unescapeJava` (`'\t'`).
    pub field_delimiter: char,
    /// `disable-quote-character` (default false): no quoting on read or write.
    pub disable_quote_character: bool,
    /// `quote-character` (default `"`).
    pub quote_character: char,
    /// `allow-comments` (default false): lines starting with `#` (and blank lines) are skipped
    /// before the record.
    pub allow_comments: bool,
    /// `ignore-parse-errors` (default false): a field that does not convert is NULL, a message
    /// that does not parse gives no row.
    pub ignore_parse_errors: bool,
    /// `array-element-delimiter` (default `;`): separates ARRAY elements and nested ROW fields.
    pub array_element_delimiter: String,
    /// `escape-character` (default none).
    pub escape_character: Option<char>,
    /// `null-literal` (default none: NULL is written as an empty field and never read).
    pub null_literal: Option<String>,
    /// `write-bigdecimal-in-scientific-notation` (default false: DECIMAL is written as
    /// `BigDecimal.toPlainString` at the type's scale).
    pub write_bigdecimal_in_scientific_notation: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        Self {
            field_delimiter: ',',
            disable_quote_character: false,
            quote_character: '"',
            allow_comments: false,
            ignore_parse_errors: false,
            array_element_delimiter: ";".to_string(),
            escape_character: None,
            null_literal: None,
            write_bigdecimal_in_scientific_notation: false,
        }
    }
}

impl CsvOptions {
    /// The options of a `WITH` clause, validated as Flink validates them: a quote character
    /// together with `disable-quote-character = true` is refused, and `field-delimiter` (after
    /// `unescapeJava`), `array-element-delimiter`, `quote-character` and `escape-character`
    /// must each be a single character. Unknown options are refused.
    pub fn from_options(mut options: FormatOptions) -> Result<Self> {
        let defaults = Self::default();
        let field_delimiter = options.string("field-delimiter");
        let disable_quote_character = options.bool("disable-quote-character", false)?;
        let quote_character = options.string("quote-character");
        let allow_comments = options.bool("allow-comments", false)?;
        let ignore_parse_errors = options.bool("ignore-parse-errors", false)?;
        let array_element_delimiter = options.string("array-element-delimiter");
        let escape_character = options.string("escape-character");
        let null_literal = options.string("null-literal");
        let write_bigdecimal_in_scientific_notation =
            options.bool("write-bigdecimal-in-scientific-notation", false)?;
        options.finish()?;

        if disable_quote_character && quote_character.is_some() {
            return Err(FormatError::Option {
                key: "csv.quote-character".to_string(),
                problem: "Format cannot define a quote character and disabled quote character \
                          at the same time."
                    .to_string(),
            });
        }
        let field_delimiter = match field_delimiter {
            None => defaults.field_delimiter,
            Some(raw) => single("field-delimiter", &unescape_java(&raw)?, &raw)?,
        };
        let array_element_delimiter = match array_element_delimiter {
            None => defaults.array_element_delimiter,
            Some(raw) => single("array-element-delimiter", &raw, &raw)?.to_string(),
        };
        let quote_character = match quote_character {
            None => defaults.quote_character,
            Some(raw) => single("quote-character", &raw, &raw)?,
        };
        let escape_character = match escape_character {
            None => None,
            Some(raw) => Some(single("escape-character", &raw, &raw)?),
        };
        Ok(Self {
            field_delimiter,
            disable_quote_character,
            quote_character,
            allow_comments,
            ignore_parse_errors,
            array_element_delimiter,
            escape_character,
            null_literal,
            write_bigdecimal_in_scientific_notation,
        })
    }

    /// The quote character in effect, `None` when quoting is disabled.
    pub(crate) fn quote(&self) -> Option<char> {
        (!self.disable_quote_character).then_some(self.quote_character)
    }
}

/// `CsvCommons.validateCharacterVal`: the (unescaped) value must be one UTF-16 unit long.
fn single(name: &str, value: &str, raw: &str) -> Result<char> {
    let mut chars = value.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.len_utf16() == 1 => Ok(c),
        _ => Err(FormatError::Option {
            key: format!("csv.{name}"),
            problem: format!(
                "Option 'csv.{name}' must be a string with single character, but was: {raw}"
            ),
        }),
    }
}

/// commons-lang3 `StringEscapeUtils.unescapeJava`: `\\`, `\"`, `\'`, `\t`, `\n`, `\r`, `\f`,
/// `\b`, octal `\0`..`\377`, `\uXXXX` (any number of `u`s); any other escape is kept as
/// written; a lone trailing backslash is dropped.
pub(crate) fn unescape_java(s: &str) -> Result<String> {
    let bad = |problem: String| FormatError::Option {
        key: "csv.field-delimiter".to_string(),
        problem,
    };
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let Some(&n) = chars.get(i + 1) else {
            break;
        };
        match n {
            '\\' | '"' | '\'' => {
                out.push(n);
                i += 2;
            }
            't' | 'n' | 'r' | 'f' | 'b' => {
                out.push(match n {
                    't' => '\t',
                    'n' => '\n',
                    'r' => '\r',
                    'f' => '\u{c}',
                    _ => '\u{8}',
                });
                i += 2;
            }
            'u' => {
                let mut j = i + 1;
                while chars.get(j) == Some(&'u') {
                    j += 1;
                }
                if chars.get(j) == Some(&'+') {
                    j += 1;
                }
                let hex: String = chars.iter().skip(j).take(4).collect();
                if hex.chars().count() < 4 {
                    return Err(bad(format!(
                        "Less than 4 hex digits in unicode value: '{}' due to end of CharSequence",
                        chars[i..].iter().collect::<String>()
                    )));
                }
                let value = u32::from_str_radix(&hex, 16)
                    .map_err(|_| bad(format!("Unable to parse unicode value: {hex}")))?;
                let ch = char::from_u32(value).ok_or_else(|| {
                    bad(format!("`\\u{hex}` is a lone surrogate, not a character"))
                })?;
                out.push(ch);
                i = j + 4;
            }
            '0'..='7' => {
                let max = if n <= '3' { 3 } else { 2 };
                let mut value = 0u32;
                let mut j = i + 1;
                while j < chars.len() && j < i + 1 + max && ('0'..='7').contains(&chars[j]) {
                    value = value * 8 + (chars[j] as u32 - '0' as u32);
                    j += 1;
                }
                out.push(char::from_u32(value).unwrap_or('\0'));
                i = j;
            }
            _ => {
                out.push('\\');
                i += 1;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_java_follows_commons_lang() {
        assert_eq!(unescape_java("\\t").unwrap(), "\t");
        assert_eq!(unescape_java("\\u0001").unwrap(), "\u{1}");
        assert_eq!(unescape_java("\\").unwrap(), "");
        assert_eq!(unescape_java("\\q").unwrap(), "\\q");
        assert_eq!(unescape_java("\\101").unwrap(), "A");
        assert_eq!(unescape_java("\\uuu0041").unwrap(), "A");
    }
}
