//! A format's DDL options, read and checked as Flink's format factories check them.
//!
//! Options are given as in the `WITH` clause, with the format's prefix (`json.ignore-parse-errors`)
//! or without it (`ignore-parse-errors`, as `FactoryUtil` hands them to the format factory).
//! Booleans read as Flink's `ConfigurationUtils` reads them (`true`/`false`, any case); an
//! option the format does not know is refused, as `FactoryUtil.validateFactoryOptions` does.

use std::collections::BTreeMap;

use crate::error::{FormatError, Result};

/// The options of one format, consumed by name and then checked for leftovers.
#[derive(Debug, Clone)]
pub struct FormatOptions {
    /// `json`, `csv`, `raw`.
    format: &'static str,
    /// Option name without the prefix -> (key as written, value).
    entries: BTreeMap<String, (String, String)>,
}

impl FormatOptions {
    /// The options of `format` (`json`), keys with or without the `json.` prefix.
    pub fn new<K: AsRef<str>, V: AsRef<str>>(
        format: &'static str,
        options: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Self> {
        let prefix = format!("{format}.");
        let mut entries = BTreeMap::new();
        for (key, value) in options {
            let key = key.as_ref();
            let name = key.strip_prefix(&prefix).unwrap_or(key);
            let previous = entries.insert(
                name.to_string(),
                (key.to_string(), value.as_ref().to_string()),
            );
            if let Some((earlier, _)) = previous {
                return Err(FormatError::Option {
                    key: key.to_string(),
                    problem: format!("given twice (also as `{earlier}`)"),
                });
            }
        }
        Ok(Self { format, entries })
    }

    /// No options: every default.
    pub fn defaults(format: &'static str) -> Self {
        Self {
            format,
            entries: BTreeMap::new(),
        }
    }

    /// The key as the user wrote it, or as Flink documents it when absent.
    fn key(&self, name: &str) -> String {
        match self.entries.get(name) {
            Some((key, _)) => key.clone(),
            None => format!("{}.{name}", self.format),
        }
    }

    /// Takes a string option.
    pub fn string(&mut self, name: &str) -> Option<String> {
        self.entries.remove(name).map(|(_, value)| value)
    }

    /// Takes a boolean option (`true`/`false` in any case), `default` when absent.
    pub fn bool(&mut self, name: &str, default: bool) -> Result<bool> {
        let key = self.key(name);
        match self.string(name) {
            None => Ok(default),
            Some(value) if value.eq_ignore_ascii_case("true") => Ok(true),
            Some(value) if value.eq_ignore_ascii_case("false") => Ok(false),
            Some(value) => Err(FormatError::Option {
                key,
                problem: format!("`{value}` is not a boolean (true or false)"),
            }),
        }
    }

    /// Takes an option that must be one of `allowed` (compared ignoring ASCII case, as
    /// Flink's enum options are), returned as spelled in `allowed`; `default` when absent.
    pub fn one_of(
        &mut self,
        name: &str,
        allowed: &[&'static str],
        default: &'static str,
    ) -> Result<&'static str> {
        let key = self.key(name);
        match self.string(name) {
            None => Ok(default),
            Some(value) => allowed
                .iter()
                .copied()
                .find(|a| a.eq_ignore_ascii_case(value.trim()))
                .ok_or_else(|| FormatError::Option {
                    key,
                    problem: format!("`{value}` is not one of {}", allowed.join(", ")),
                }),
        }
    }

    /// Takes an option that must be exactly one character, `default` when absent.
    pub fn char(&mut self, name: &str, default: char) -> Result<char> {
        let key = self.key(name);
        match self.string(name) {
            None => Ok(default),
            Some(value) => single_char(&value).ok_or_else(|| FormatError::Option {
                key,
                problem: format!("`{value}` must be a single character"),
            }),
        }
    }

    /// Refuses options nobody took, as Flink refuses unsupported options.
    pub fn finish(self) -> Result<()> {
        match self.entries.into_values().next() {
            None => Ok(()),
            Some((key, _)) => Err(FormatError::Option {
                key,
                problem: format!("not an option of the '{}' format", self.format),
            }),
        }
    }
}

/// The only character of `s`, if it has exactly one.
fn single_char(s: &str) -> Option<char> {
    let mut chars = s.chars();
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixed_and_bare_keys_read_alike_and_leftovers_are_refused() {
        let mut options = FormatOptions::new(
            "json",
            [
                ("json.ignore-parse-errors", "TRUE"),
                ("fail-on-missing-field", "false"),
            ],
        )
        .unwrap();
        assert!(options.bool("ignore-parse-errors", false).unwrap());
        assert!(!options.bool("fail-on-missing-field", true).unwrap());
        assert!(options.bool("encode.ignore-null-fields", true).unwrap());
        options.finish().unwrap();

        let mut options = FormatOptions::new("json", [("json.nope", "1")]).unwrap();
        assert!(!options.bool("ignore-parse-errors", false).unwrap());
        assert_eq!(
            options.finish().unwrap_err().to_string(),
            "option `json.nope`: not an option of the 'json' format"
        );
    }

    #[test]
    fn bad_values_name_the_key() {
        let mut options = FormatOptions::new("csv", [("csv.field-delimiter", ";;")]).unwrap();
        assert_eq!(
            options
                .char("field-delimiter", ',')
                .unwrap_err()
                .to_string(),
            "option `csv.field-delimiter`: `;;` must be a single character"
        );
        let mut options =
            FormatOptions::new("json", [("json.ignore-parse-errors", "yes")]).unwrap();
        assert_eq!(
            options
                .bool("ignore-parse-errors", false)
                .unwrap_err()
                .to_string(),
            "option `json.ignore-parse-errors`: `yes` is not a boolean (true or false)"
        );
        let mut options =
            FormatOptions::new("json", [("json.timestamp-format.standard", "iso-8601")]).unwrap();
        assert_eq!(
            options
                .one_of("timestamp-format.standard", &["SQL", "ISO-8601"], "SQL")
                .unwrap(),
            "ISO-8601"
        );
        assert!(
            FormatOptions::new("json", [("json.a", "1"), ("a", "2")])
                .unwrap_err()
                .to_string()
                .contains("given twice")
        );
    }
}
