//! The `json.*` DDL options, read and checked as Flink 2.3.0's `JsonFormatFactory` and
//! `JsonFormatOptionsUtil` read and check them.
//!
//! | key | default | notes |
//! |---|---|---|
//! | `fail-on-missing-field` | `false` | not together with `ignore-parse-errors` |
//! | `ignore-parse-errors` | `false` | |
//! | `timestamp-format.standard` | `SQL` | `SQL` or `ISO-8601`, exactly (Flink compares case-sensitively) |
//! | `map-null-key.mode` | `FAIL` | `FAIL`, `DROP`, `LITERAL` in any case |
//! | `map-null-key.literal` | `null` | |
//! | `encode.decimal-as-plain-number` | `false` | |
//! | `encode.ignore-null-fields` | `false` | |
//! | `decode.json-parser.enabled` | `true` | `false` selects Flink's tree-based decoder, not run natively |

use crate::error::{FormatError, Result};
use crate::options::FormatOptions;

/// `'json.timestamp-format.standard'`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimestampFormat {
    /// `SQL`: `yyyy-MM-dd HH:mm:ss[.fraction]` (`Z` after it for TIMESTAMP_LTZ).
    #[default]
    Sql,
    /// `ISO-8601`: `yyyy-MM-ddTHH:mm:ss[.fraction]` (`Z` after it for TIMESTAMP_LTZ).
    Iso8601,
}

/// `'json.map-null-key.mode'`: what the encoder does with a NULL map key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MapNullKeyMode {
    /// The row fails to encode.
    #[default]
    Fail,
    /// The entry is left out.
    Drop,
    /// The key is written as `map_null_key_literal`.
    Literal,
}

/// The options of `'format' = 'json'`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonOptions {
    /// `'json.fail-on-missing-field'`: a row missing a field fails instead of reading NULL.
    pub fail_on_missing_field: bool,
    /// `'json.ignore-parse-errors'`: a field that fails reads NULL, a message that fails
    /// gives no row.
    pub ignore_parse_errors: bool,
    /// `'json.timestamp-format.standard'`.
    pub timestamp_format: TimestampFormat,
    /// `'json.map-null-key.mode'`.
    pub map_null_key_mode: MapNullKeyMode,
    /// `'json.map-null-key.literal'`.
    pub map_null_key_literal: String,
    /// `'json.encode.decimal-as-plain-number'`: `0.00000001` rather than `1E-8`.
    pub encode_decimal_as_plain_number: bool,
    /// `'json.encode.ignore-null-fields'`: NULL row fields are left out.
    pub encode_ignore_null_fields: bool,
}

impl Default for JsonOptions {
    fn default() -> Self {
        Self {
            fail_on_missing_field: false,
            ignore_parse_errors: false,
            timestamp_format: TimestampFormat::Sql,
            map_null_key_mode: MapNullKeyMode::Fail,
            map_null_key_literal: "null".into(),
            encode_decimal_as_plain_number: false,
            encode_ignore_null_fields: false,
        }
    }
}

impl JsonOptions {
    /// Reads the options as Flink's factory does; unknown keys are refused.
    pub fn from_options(mut options: FormatOptions) -> Result<Self> {
        let fail_on_missing_field = options.bool("fail-on-missing-field", false)?;
        let ignore_parse_errors = options.bool("ignore-parse-errors", false)?;
        if fail_on_missing_field && ignore_parse_errors {
            return Err(FormatError::Option {
                key: "json.fail-on-missing-field".into(),
                problem: "json.fail-on-missing-field and json.ignore-parse-errors shouldn't both be true.".into(),
            });
        }
        let timestamp_format = match options.string("timestamp-format.standard").as_deref() {
            None | Some("SQL") => TimestampFormat::Sql,
            Some("ISO-8601") => TimestampFormat::Iso8601,
            Some(other) => {
                return Err(FormatError::Option {
                    key: "json.timestamp-format.standard".into(),
                    problem: format!(
                        "Unsupported value '{other}' for json.timestamp-format.standard. Supported values are [SQL, ISO-8601]."
                    ),
                });
            }
        };
        let map_null_key_mode = match options.string("map-null-key.mode") {
            None => MapNullKeyMode::Fail,
            Some(v) => match v.to_uppercase().as_str() {
                "FAIL" => MapNullKeyMode::Fail,
                "DROP" => MapNullKeyMode::Drop,
                "LITERAL" => MapNullKeyMode::Literal,
                _ => {
                    return Err(FormatError::Option {
                        key: "json.map-null-key.mode".into(),
                        problem: format!(
                            "Unsupported value '{v}' for option json.map-null-key.mode. Supported values are [LITERAL, FAIL, DROP]."
                        ),
                    });
                }
            },
        };
        let map_null_key_literal = options
            .string("map-null-key.literal")
            .unwrap_or_else(|| "null".into());
        let encode_decimal_as_plain_number =
            options.bool("encode.decimal-as-plain-number", false)?;
        let encode_ignore_null_fields = options.bool("encode.ignore-null-fields", false)?;
        if !options.bool("decode.json-parser.enabled", true)? {
            return Err(FormatError::Unsupported {
                format: "JSON",
                problem: "'json.decode.json-parser.enabled' = 'false' selects Flink's tree-based JsonRowDataDeserializationSchema, which is not run natively".into(),
            });
        }
        options.finish()?;
        Ok(Self {
            fail_on_missing_field,
            ignore_parse_errors,
            timestamp_format,
            map_null_key_mode,
            map_null_key_literal,
            encode_decimal_as_plain_number,
            encode_ignore_null_fields,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<JsonOptions> {
        JsonOptions::from_options(FormatOptions::new("json", pairs.iter().copied())?)
    }

    #[test]
    fn defaults_are_flinks_and_keys_read_with_or_without_prefix() {
        assert_eq!(read(&[]).unwrap(), JsonOptions::default());
        let o = read(&[
            ("json.ignore-parse-errors", "TRUE"),
            ("timestamp-format.standard", "ISO-8601"),
            ("json.map-null-key.mode", "literal"),
            ("json.map-null-key.literal", "nk"),
            ("json.encode.decimal-as-plain-number", "true"),
        ])
        .unwrap();
        assert!(o.ignore_parse_errors);
        assert_eq!(o.timestamp_format, TimestampFormat::Iso8601);
        assert_eq!(o.map_null_key_mode, MapNullKeyMode::Literal);
        assert_eq!(o.map_null_key_literal, "nk");
        assert!(o.encode_decimal_as_plain_number);
    }

    #[test]
    fn flinks_refusals_are_refused() {
        assert!(
            read(&[
                ("fail-on-missing-field", "true"),
                ("ignore-parse-errors", "true")
            ])
            .is_err()
        );
        assert!(read(&[("timestamp-format.standard", "iso-8601")]).is_err());
        assert!(read(&[("map-null-key.mode", "KEEP")]).is_err());
        assert!(read(&[("json.unknown", "1")]).is_err());
        assert!(matches!(
            read(&[("decode.json-parser.enabled", "false")]),
            Err(FormatError::Unsupported { .. })
        ));
    }
}
