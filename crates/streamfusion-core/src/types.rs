//! Flink logical types and their Arrow representation.
//!
//! Flink's internal data layout decides several Arrow choices:
//!
//! | Flink type                  | Arrow type                                   | why |
//! |-----------------------------|----------------------------------------------|-----|
//! | `DECIMAL(p, s)`             | `Decimal128(p, s)`                           | unscaled value, as `DecimalData` |
//! | `TIMESTAMP(p)`              | `Timestamp(ms)` p≤3, `(us)` p≤6, `(ns)` p≤9  | `TimestampData` is millis + nanos; p≥7 in nanoseconds limits the range to years 1677–2262 |
//! | `TIMESTAMP_LTZ(p)`          | as above with time zone `UTC`                | an instant |
//! | `TIME(p)`                   | `Time32(ms)`                                 | Flink keeps milliseconds of the day in an int |
//! | `DATE`                      | `Date32`                                     | days since epoch |
//! | `INTERVAL YEAR TO MONTH`    | `Interval(YearMonth)`                        | months in an int (any `YEAR`/`MONTH` qualifier) |
//! | `INTERVAL DAY TO SECOND(3)` | `Duration(ms)`                               | milliseconds in a long (any `DAY`..`SECOND` qualifier) |
//! | `CHAR`/`VARCHAR`            | `Utf8`                                       | |
//! | `BINARY`/`VARBINARY`        | `Binary`                                     | |
//! | `ROW<name type, ...>`       | `Struct` of the field types (nullable)       | positional, as `BinaryRowData` |
//! | `ARRAY<t>`                  | `List` of `t`, item field `element` (nullable) | as `BinaryArrayData`: elements may be NULL |
//! | `MAP<k, v>`                 | `List` of non-NULL `Struct<key k, value v>` (item field `entries`; `key` and `value` nullable) | see below |
//!
//! MAP is deliberately **not** Arrow's `Map`: Arrow requires non-NULL keys, but Flink's
//! `MAP` key type is nullable and `BinaryMapData` stores a NULL key like any NULL array
//! element. A `List<Struct<key, value>>` carries every Flink map losslessly (NULL keys and
//! duplicate keys included, entries in `BinaryMapData` order), so a row read and written
//! back is byte-identical; it has the same buffers as an Arrow `Map`, so a consumer that
//! needs one can rebuild it without copying once it has checked that no key is NULL.
//!
//! Type names parse and print in Flink's SQL spelling (`DECIMAL(19, 4)`, `VARCHAR(2147483647)`,
//! `TIMESTAMP_LTZ(9)`, `INTERVAL DAY TO SECOND(3)`, `ROW<f0 INT, f1 VARCHAR(10)>`,
//! `ARRAY<ROW<a INT>>`, `MAP<INT, ARRAY<VARCHAR(2147483647)>>`).
//!
//! A ROW's struct carries no [`crate::changelog::NESTED_ROW_KIND_FIELD`] child: a nested row
//! in a key is always `+I` (Flink builds nested values as `+I` rows and the key selector copies
//! them as they are), so the kind would be a constant column.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Fields, IntervalUnit, TimeUnit};

use crate::error::{Error, Result};

/// The largest DECIMAL precision stored in a `long` (`DecimalData.isCompact`).
pub const MAX_COMPACT_DECIMAL_PRECISION: u8 = 18;
/// The largest TIMESTAMP precision stored as plain milliseconds (`TimestampData.isCompact`).
pub const MAX_COMPACT_TIMESTAMP_PRECISION: u8 = 3;

/// One field of a `ROW` type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RowField {
    /// The field name (case-sensitive, as in Flink).
    pub name: String,
    /// The field type.
    pub ty: LogicalType,
}

impl RowField {
    /// A field named `name` of type `ty`.
    pub fn new(name: impl Into<String>, ty: LogicalType) -> Self {
        Self {
            name: name.into(),
            ty,
        }
    }
}

/// A Flink logical type (the types a SQL key can have).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LogicalType {
    /// `BOOLEAN`
    Boolean,
    /// `TINYINT`
    TinyInt,
    /// `SMALLINT`
    SmallInt,
    /// `INT`
    Int,
    /// `BIGINT`
    BigInt,
    /// `FLOAT`
    Float,
    /// `DOUBLE`
    Double,
    /// `DECIMAL(precision, scale)`, precision 1..=38, scale 0..=precision.
    Decimal {
        /// Total digits.
        precision: u8,
        /// Digits after the point.
        scale: u8,
    },
    /// `CHAR(n)`
    Char(u32),
    /// `VARCHAR(n)`; `STRING` is `VARCHAR(2147483647)`.
    VarChar(u32),
    /// `BINARY(n)`
    Binary(u32),
    /// `VARBINARY(n)`; `BYTES` is `VARBINARY(2147483647)`.
    VarBinary(u32),
    /// `DATE`
    Date,
    /// `TIME(p)`
    Time(u8),
    /// `TIMESTAMP(p)`, p 0..=9.
    Timestamp(u8),
    /// `TIMESTAMP_LTZ(p)`, p 0..=9.
    TimestampLtz(u8),
    /// `INTERVAL YEAR TO MONTH`
    IntervalYearMonth,
    /// `INTERVAL DAY TO SECOND(3)`
    IntervalDayTime,
    /// `ROW<name type, ...>`: at least one field, names unique. Stored in a `BinaryRowData`
    /// as a nested row in the variable part.
    Row(Vec<RowField>),
    /// `ARRAY<element>`: stored as a `BinaryArrayData` in the variable part.
    Array(Box<LogicalType>),
    /// `MAP<key, value>`: stored as a `BinaryMapData` (a key array and a value array) in the
    /// variable part.
    Map(Box<LogicalType>, Box<LogicalType>),
}

/// The item field name of an `ARRAY`'s Arrow list.
pub const ARRAY_ITEM_FIELD: &str = "element";
/// The item field name of a `MAP`'s Arrow list (its non-NULL entries).
pub const MAP_ENTRIES_FIELD: &str = "entries";

impl LogicalType {
    /// The Arrow type that carries this type's values.
    pub fn to_arrow(&self) -> DataType {
        match *self {
            LogicalType::Row(ref fields) => DataType::Struct(row_arrow_fields(fields)),
            LogicalType::Array(ref element) => DataType::List(array_item_field(element)),
            LogicalType::Map(ref key, ref value) => DataType::List(Arc::new(Field::new(
                MAP_ENTRIES_FIELD,
                DataType::Struct(map_entry_fields(key, value)),
                false,
            ))),
            LogicalType::Boolean => DataType::Boolean,
            LogicalType::TinyInt => DataType::Int8,
            LogicalType::SmallInt => DataType::Int16,
            LogicalType::Int => DataType::Int32,
            LogicalType::BigInt => DataType::Int64,
            LogicalType::Float => DataType::Float32,
            LogicalType::Double => DataType::Float64,
            LogicalType::Decimal { precision, scale } => {
                DataType::Decimal128(precision, scale as i8)
            }
            LogicalType::Char(_) | LogicalType::VarChar(_) => DataType::Utf8,
            LogicalType::Binary(_) | LogicalType::VarBinary(_) => DataType::Binary,
            LogicalType::Date => DataType::Date32,
            LogicalType::Time(_) => DataType::Time32(TimeUnit::Millisecond),
            LogicalType::Timestamp(p) => DataType::Timestamp(timestamp_unit(p), None),
            LogicalType::TimestampLtz(p) => {
                DataType::Timestamp(timestamp_unit(p), Some(Arc::from("UTC")))
            }
            LogicalType::IntervalYearMonth => DataType::Interval(IntervalUnit::YearMonth),
            LogicalType::IntervalDayTime => DataType::Duration(TimeUnit::Millisecond),
        }
    }

    /// Whether values live in the 8-byte fixed slot of a `BinaryRowData` (no variable part).
    /// Strings and binaries count as compact (they are inline up to 7 bytes); ROWs, ARRAYs
    /// and MAPs never are.
    pub fn is_compact(&self) -> bool {
        match *self {
            LogicalType::Decimal { precision, .. } => precision <= MAX_COMPACT_DECIMAL_PRECISION,
            LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => {
                p <= MAX_COMPACT_TIMESTAMP_PRECISION
            }
            LogicalType::Row(_) | LogicalType::Array(_) | LogicalType::Map(..) => false,
            _ => true,
        }
    }
}

/// The children of the Arrow struct that carries a `ROW` with these fields (all nullable).
pub fn row_arrow_fields(fields: &[RowField]) -> Fields {
    fields
        .iter()
        .map(|f| Field::new(f.name.clone(), f.ty.to_arrow(), true))
        .collect()
}

/// The item field of the Arrow list that carries an `ARRAY<element>` (nullable).
pub fn array_item_field(element: &LogicalType) -> Arc<Field> {
    Arc::new(Field::new(ARRAY_ITEM_FIELD, element.to_arrow(), true))
}

/// The `key` and `value` children of a `MAP<key, value>`'s entries (both nullable).
pub fn map_entry_fields(key: &LogicalType, value: &LogicalType) -> Fields {
    Fields::from(vec![
        Field::new("key", key.to_arrow(), true),
        Field::new("value", value.to_arrow(), true),
    ])
}

/// The Arrow unit for `TIMESTAMP(p)`: the coarsest unit that holds every value exactly.
pub fn timestamp_unit(precision: u8) -> TimeUnit {
    match precision {
        0..=3 => TimeUnit::Millisecond,
        4..=6 => TimeUnit::Microsecond,
        _ => TimeUnit::Nanosecond,
    }
}

impl fmt::Display for LogicalType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogicalType::Boolean => f.write_str("BOOLEAN"),
            LogicalType::TinyInt => f.write_str("TINYINT"),
            LogicalType::SmallInt => f.write_str("SMALLINT"),
            LogicalType::Int => f.write_str("INT"),
            LogicalType::BigInt => f.write_str("BIGINT"),
            LogicalType::Float => f.write_str("FLOAT"),
            LogicalType::Double => f.write_str("DOUBLE"),
            LogicalType::Decimal { precision, scale } => write!(f, "DECIMAL({precision}, {scale})"),
            LogicalType::Char(n) => write!(f, "CHAR({n})"),
            LogicalType::VarChar(n) => write!(f, "VARCHAR({n})"),
            LogicalType::Binary(n) => write!(f, "BINARY({n})"),
            LogicalType::VarBinary(n) => write!(f, "VARBINARY({n})"),
            LogicalType::Date => f.write_str("DATE"),
            LogicalType::Time(p) => write!(f, "TIME({p})"),
            LogicalType::Timestamp(p) => write!(f, "TIMESTAMP({p})"),
            LogicalType::TimestampLtz(p) => write!(f, "TIMESTAMP_LTZ({p})"),
            LogicalType::IntervalYearMonth => f.write_str("INTERVAL YEAR TO MONTH"),
            LogicalType::IntervalDayTime => f.write_str("INTERVAL DAY TO SECOND(3)"),
            LogicalType::Row(fields) => {
                f.write_str("ROW<")?;
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_field_name(f, &field.name)?;
                    write!(f, " {}", field.ty)?;
                }
                f.write_str(">")
            }
            LogicalType::Array(element) => write!(f, "ARRAY<{element}>"),
            LogicalType::Map(key, value) => write!(f, "MAP<{key}, {value}>"),
        }
    }
}

/// A plain identifier bare, anything else quoted in backticks (`` ` `` doubled), as Flink does.
fn write_field_name(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        f.write_str(name)
    } else {
        write!(f, "`{}`", name.replace('`', "``"))
    }
}

/// The text between `NAME<` and `>` (or `NAME(` and `)` when `parens`), if `s` spells a
/// `NAME<...>` type.
fn bracket_body<'a>(s: &'a str, name: &str, parens: bool) -> Option<Result<&'a str, &'static str>> {
    let head = s.get(..name.len())?;
    if !head.eq_ignore_ascii_case(name) {
        return None;
    }
    let rest = s[name.len()..].trim_start();
    let close = match rest.chars().next()? {
        '<' => '>',
        '(' if parens => ')',
        '(' => return Some(Err("needs `<` and `>` around its types")),
        _ => return None,
    };
    Some(rest[1..].strip_suffix(close).ok_or(match close {
        '>' => "missing `>`",
        _ => "missing `)`",
    }))
}

/// Splits `body` at the commas outside brackets and backtick-quoted names.
fn split_top_level(body: &str) -> Result<Vec<&str>, &'static str> {
    let mut parts = Vec::new();
    let (mut depth, mut quoted, mut start) = (0usize, false, 0);
    for (i, c) in body.char_indices() {
        match c {
            // A doubled backtick inside a quoted name toggles twice: still quoted.
            '`' => quoted = !quoted,
            _ if quoted => {}
            '<' | '(' => depth += 1,
            '>' | ')' => depth = depth.checked_sub(1).ok_or("unbalanced brackets")?,
            ',' if depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if quoted || depth != 0 {
        return Err("unbalanced brackets or backticks");
    }
    parts.push(&body[start..]);
    Ok(parts)
}

/// `name type`: the name bare or in backticks, then the type.
fn parse_row_field(field: &str) -> Result<RowField, String> {
    let field = field.trim();
    let (name, ty) = if let Some(quoted) = field.strip_prefix('`') {
        let mut name = String::new();
        let mut chars = quoted.char_indices().peekable();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            if c == '`' {
                if chars.peek().is_some_and(|&(_, n)| n == '`') {
                    chars.next();
                    name.push('`');
                } else {
                    end = Some(i + 1);
                    break;
                }
            } else {
                name.push(c);
            }
        }
        let end = end.ok_or("unterminated `name`")?;
        (name, &quoted[end..])
    } else {
        let end = field
            .find(char::is_whitespace)
            .ok_or_else(|| format!("field `{field}` needs a name and a type"))?;
        (field[..end].to_string(), &field[end..])
    };
    if name.is_empty() {
        return Err("a field name is empty".into());
    }
    let ty = ty.trim();
    if ty.is_empty() {
        return Err(format!("field `{name}` has no type"));
    }
    let ty = ty
        .parse::<LogicalType>()
        .map_err(|e| format!("field `{name}`: {e}"))?;
    Ok(RowField { name, ty })
}

fn parse_row(body: &str) -> Result<LogicalType, String> {
    if body.trim().is_empty() {
        return Err("ROW needs at least one field".into());
    }
    let fields = split_top_level(body)?
        .into_iter()
        .map(parse_row_field)
        .collect::<Result<Vec<_>, _>>()?;
    for (i, f) in fields.iter().enumerate() {
        if fields[..i].iter().any(|g| g.name == f.name) {
            return Err(format!("field name `{}` is repeated", f.name));
        }
    }
    Ok(LogicalType::Row(fields))
}

/// The `what` type inside an ARRAY or MAP, its error prefixed with `what`.
fn parse_nested(s: &str, what: &str, bad: &dyn Fn(&str) -> Error) -> Result<LogicalType> {
    if s.trim().is_empty() {
        return Err(bad(&format!("the {what} type is missing")));
    }
    s.parse::<LogicalType>()
        .map_err(|e| bad(&format!("{what}: {e}")))
}

impl FromStr for LogicalType {
    type Err = Error;

    /// Parses Flink's SQL spelling of the supported types (case-insensitive; `STRING` and
    /// `BYTES` are accepted as aliases).
    fn from_str(s: &str) -> Result<Self> {
        let bad = |why: &str| Error::InvalidType(format!("`{s}`: {why}"));
        // Nullability is the column's (Arrow's), not the type's: Flink's `NOT NULL` (as in
        // `ARRAY<INT NOT NULL>`) and an explicit `NULL` are accepted and dropped.
        let trimmed = s.trim();
        for suffix in [" NOT NULL", " NULL"] {
            let cut = trimmed.len().saturating_sub(suffix.len());
            if trimmed.is_char_boundary(cut) && trimmed[cut..].eq_ignore_ascii_case(suffix) {
                return trimmed[..cut].parse();
            }
        }
        // Before upper-casing: ROW field names are case-sensitive.
        if let Some(body) = bracket_body(s.trim(), "ROW", true) {
            return body
                .map_err(bad)
                .and_then(|body| parse_row(body).map_err(|why| bad(&why)));
        }
        if let Some(body) = bracket_body(s.trim(), "ARRAY", false) {
            let body = body.map_err(bad)?;
            if split_top_level(body).map_err(bad)?.len() != 1 {
                return Err(bad("ARRAY takes one element type"));
            }
            return Ok(LogicalType::Array(Box::new(parse_nested(
                body, "element", &bad,
            )?)));
        }
        if let Some(body) = bracket_body(s.trim(), "MAP", false) {
            let parts = split_top_level(body.map_err(bad)?).map_err(bad)?;
            let [key, value] = parts.as_slice() else {
                return Err(bad("MAP takes a key type and a value type"));
            };
            return Ok(LogicalType::Map(
                Box::new(parse_nested(key, "key", &bad)?),
                Box::new(parse_nested(value, "value", &bad)?),
            ));
        }
        let upper = s.trim().to_ascii_uppercase();
        // Flink's serializable spelling: `TIMESTAMP(3) WITH LOCAL TIME ZONE` is TIMESTAMP_LTZ(3).
        if let Some(timestamp) = upper.strip_suffix(" WITH LOCAL TIME ZONE") {
            return match timestamp.parse::<LogicalType>()? {
                LogicalType::Timestamp(p) => Ok(LogicalType::TimestampLtz(p)),
                _ => Err(bad("only TIMESTAMP takes WITH LOCAL TIME ZONE")),
            };
        }
        let upper = upper
            .strip_suffix(" WITHOUT TIME ZONE")
            .unwrap_or(&upper)
            .to_string();
        if let Some(qualifier) = upper.strip_prefix("INTERVAL ") {
            return parse_interval(qualifier).map_err(|why| bad(&why));
        }
        let (name, args) = match upper.split_once('(') {
            Some((name, rest)) => {
                let args = rest.strip_suffix(')').ok_or_else(|| bad("missing `)`"))?;
                let args = args
                    .split(',')
                    .map(|a| {
                        a.trim()
                            .parse::<u32>()
                            .map_err(|_| bad("parameters must be integers"))
                    })
                    .collect::<Result<Vec<_>>>()?;
                (name.trim().to_string(), args)
            }
            None => (upper.clone(), Vec::new()),
        };
        let one = |default: u32| -> Result<u32> {
            match args.as_slice() {
                [] => Ok(default),
                [n] => Ok(*n),
                _ => Err(bad("takes one parameter")),
            }
        };
        let precision = |default: u32, max: u32| -> Result<u8> {
            let p = one(default)?;
            if p > max {
                return Err(bad(&format!("precision must be at most {max}")));
            }
            Ok(p as u8)
        };
        let none = |t: LogicalType| -> Result<LogicalType> {
            if args.is_empty() {
                Ok(t)
            } else {
                Err(bad("takes no parameters"))
            }
        };
        let length = |n: u32| -> Result<u32> {
            if n == 0 {
                Err(bad("length must be at least 1"))
            } else {
                Ok(n)
            }
        };
        Ok(match name.as_str() {
            "BOOLEAN" => none(LogicalType::Boolean)?,
            "TINYINT" => none(LogicalType::TinyInt)?,
            "SMALLINT" => none(LogicalType::SmallInt)?,
            "INT" | "INTEGER" => none(LogicalType::Int)?,
            "BIGINT" => none(LogicalType::BigInt)?,
            "FLOAT" => none(LogicalType::Float)?,
            "DOUBLE" => none(LogicalType::Double)?,
            "DECIMAL" | "NUMERIC" | "DEC" => {
                let (precision, scale) = match args.as_slice() {
                    [] => (10, 0),
                    [p] => (*p, 0),
                    [p, s] => (*p, *s),
                    _ => return Err(bad("takes at most two parameters")),
                };
                if !(1..=38).contains(&precision) || scale > precision {
                    return Err(bad(
                        "needs 1 <= precision <= 38 and 0 <= scale <= precision",
                    ));
                }
                LogicalType::Decimal {
                    precision: precision as u8,
                    scale: scale as u8,
                }
            }
            "CHAR" => LogicalType::Char(length(one(1)?)?),
            "VARCHAR" => LogicalType::VarChar(length(one(1)?)?),
            "STRING" => none(LogicalType::VarChar(i32::MAX as u32))?,
            "BINARY" => LogicalType::Binary(length(one(1)?)?),
            "VARBINARY" => LogicalType::VarBinary(length(one(1)?)?),
            "BYTES" => none(LogicalType::VarBinary(i32::MAX as u32))?,
            "DATE" => none(LogicalType::Date)?,
            "TIME" => LogicalType::Time(precision(0, 9)?),
            "TIMESTAMP" => LogicalType::Timestamp(precision(6, 9)?),
            "TIMESTAMP_LTZ" => LogicalType::TimestampLtz(precision(6, 9)?),
            _ => return Err(bad("not a supported type")),
        })
    }
}

/// An interval type from its qualifier (`DAY(2) TO SECOND(6)`, `MONTH`, `YEAR(3)`), as
/// Flink's `YearMonthIntervalType`/`DayTimeIntervalType` spell it. Every resolution is one
/// of the two carriers (months in an int, milliseconds in a long), so only the family is
/// kept: the qualifier's precisions bound what a literal may write, not the stored value.
fn parse_interval(qualifier: &str) -> Result<LogicalType, String> {
    /// A field and its precision, if given.
    fn field(text: &str) -> Result<(&str, Option<u32>), String> {
        let text = text.trim();
        match text.split_once('(') {
            None => Ok((text, None)),
            Some((name, rest)) => {
                let p = rest
                    .strip_suffix(')')
                    .and_then(|p| p.trim().parse::<u32>().ok())
                    .ok_or_else(|| format!("bad precision in `{text}`"))?;
                Ok((name.trim(), Some(p)))
            }
        }
    }
    let (from, to) = match qualifier.split_once(" TO ") {
        Some((from, to)) => (field(from)?, Some(field(to)?)),
        None => (field(qualifier)?, None),
    };
    let leading_ok = |p: Option<u32>| p.is_none_or(|p| (1..=6).contains(&p));
    let fraction_ok = |p: Option<u32>| p.is_none_or(|p| p <= 9);
    let ty = match (from, to) {
        (("YEAR", p), None | Some(("MONTH", None))) | (("MONTH", p), None) if leading_ok(p) => {
            LogicalType::IntervalYearMonth
        }
        (("SECOND", p), None) if leading_ok(p) => LogicalType::IntervalDayTime,
        (("DAY" | "HOUR" | "MINUTE", p), None) if leading_ok(p) => LogicalType::IntervalDayTime,
        (("DAY", p), Some(("HOUR" | "MINUTE", None))) | (("HOUR", p), Some(("MINUTE", None)))
            if leading_ok(p) =>
        {
            LogicalType::IntervalDayTime
        }
        (("DAY" | "HOUR" | "MINUTE", p), Some(("SECOND", f)))
            if leading_ok(p) && fraction_ok(f) =>
        {
            LogicalType::IntervalDayTime
        }
        _ => {
            return Err(format!(
                "`INTERVAL {qualifier}` is not an interval Flink declares"
            ));
        }
    };
    Ok(ty)
}

/// Serialized in Flink's SQL spelling (`"DECIMAL(10, 2)"`, `"ARRAY<INT>"`), as plans carry it.
impl serde::Serialize for LogicalType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for LogicalType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_prints_in_flink_spelling_and_parses_back() {
        let types = [
            LogicalType::Boolean,
            LogicalType::TinyInt,
            LogicalType::SmallInt,
            LogicalType::Int,
            LogicalType::BigInt,
            LogicalType::Float,
            LogicalType::Double,
            LogicalType::Decimal {
                precision: 19,
                scale: 4,
            },
            LogicalType::Char(3),
            LogicalType::VarChar(2147483647),
            LogicalType::Binary(8),
            LogicalType::VarBinary(2147483647),
            LogicalType::Date,
            LogicalType::Time(3),
            LogicalType::Timestamp(9),
            LogicalType::TimestampLtz(3),
            LogicalType::IntervalYearMonth,
            LogicalType::IntervalDayTime,
            LogicalType::Row(vec![
                RowField::new("f0", LogicalType::Int),
                RowField::new(
                    "Nested",
                    LogicalType::Row(vec![
                        RowField::new(
                            "a b",
                            LogicalType::Decimal {
                                precision: 20,
                                scale: 2,
                            },
                        ),
                        RowField::new("x`y", LogicalType::VarChar(10)),
                    ]),
                ),
            ]),
            LogicalType::Array(Box::new(LogicalType::Int)),
            LogicalType::Map(
                Box::new(LogicalType::VarChar(3)),
                Box::new(LogicalType::Array(Box::new(LogicalType::Row(vec![
                    RowField::new("a", LogicalType::Int),
                ])))),
            ),
        ];
        for t in types {
            assert_eq!(t.to_string().parse::<LogicalType>().unwrap(), t, "{t}");
        }
        assert_eq!(
            LogicalType::Decimal {
                precision: 19,
                scale: 4
            }
            .to_string(),
            "DECIMAL(19, 4)"
        );
        assert_eq!(
            "string".parse::<LogicalType>().unwrap(),
            LogicalType::VarChar(i32::MAX as u32)
        );
        // LogicalType.asSerializableString() spellings.
        assert_eq!(
            "TIMESTAMP(3) WITH LOCAL TIME ZONE"
                .parse::<LogicalType>()
                .unwrap(),
            LogicalType::TimestampLtz(3)
        );
        assert_eq!(
            "TIMESTAMP(9) WITHOUT TIME ZONE"
                .parse::<LogicalType>()
                .unwrap(),
            LogicalType::Timestamp(9)
        );
        assert!("INT WITH LOCAL TIME ZONE".parse::<LogicalType>().is_err());
        assert_eq!(
            "ARRAY<ARRAY<BIGINT> NOT NULL> NOT NULL"
                .parse::<LogicalType>()
                .unwrap(),
            LogicalType::Array(Box::new(LogicalType::Array(Box::new(LogicalType::BigInt))))
        );
    }

    #[test]
    fn row_types_print_and_parse_in_flink_spelling() {
        let row = LogicalType::Row(vec![
            RowField::new("f0", LogicalType::Int),
            RowField::new("f1", LogicalType::VarChar(i32::MAX as u32)),
        ]);
        assert_eq!(row.to_string(), "ROW<f0 INT, f1 VARCHAR(2147483647)>");
        assert_eq!(
            "row<f0 int, f1 STRING>".parse::<LogicalType>().unwrap(),
            row
        );
        assert_eq!(
            "ROW(`f0` INT, f1 STRING)".parse::<LogicalType>().unwrap(),
            row
        );
        let nested = "ROW<k ROW<d DECIMAL(38, 10), t TIMESTAMP(9)>, `my field` BIGINT>";
        let parsed = nested.parse::<LogicalType>().unwrap();
        assert_eq!(parsed.to_string(), nested);
        assert_eq!(
            parsed.to_arrow().to_string(),
            LogicalType::Row(vec![
                RowField::new(
                    "k",
                    LogicalType::Row(vec![
                        RowField::new(
                            "d",
                            LogicalType::Decimal {
                                precision: 38,
                                scale: 10
                            }
                        ),
                        RowField::new("t", LogicalType::Timestamp(9)),
                    ])
                ),
                RowField::new("my field", LogicalType::BigInt),
            ])
            .to_arrow()
            .to_string()
        );
        assert!(!parsed.is_compact());
    }

    #[test]
    fn array_and_map_types_print_and_parse_in_flink_spelling() {
        let array: LogicalType = "array<int>".parse().unwrap();
        assert_eq!(array.to_string(), "ARRAY<INT>");
        let map: LogicalType = "MAP<VARCHAR(3), BIGINT>".parse().unwrap();
        assert_eq!(
            map,
            LogicalType::Map(
                Box::new(LogicalType::VarChar(3)),
                Box::new(LogicalType::BigInt)
            )
        );
        assert_eq!(map.to_string(), "MAP<VARCHAR(3), BIGINT>");
        for nested in [
            "ARRAY<ROW<a INT>>",
            "MAP<INT, ARRAY<VARCHAR(2147483647)>>",
            "ROW<m MAP<DECIMAL(20, 2), TIMESTAMP(9)>, a ARRAY<ARRAY<BIGINT>>>",
        ] {
            let t: LogicalType = nested.parse().unwrap();
            assert_eq!(t.to_string(), nested);
            assert!(!t.is_compact());
        }
        assert_eq!(
            "MAP<INT, ARRAY<STRING>>"
                .parse::<LogicalType>()
                .unwrap()
                .to_string(),
            "MAP<INT, ARRAY<VARCHAR(2147483647)>>"
        );
        assert_eq!(
            array.to_arrow(),
            DataType::List(Arc::new(Field::new("element", DataType::Int32, true)))
        );
        let DataType::List(entries) = map.to_arrow() else {
            panic!("a MAP is a list of entries");
        };
        assert_eq!(entries.name(), "entries");
        assert!(!entries.is_nullable());
        let DataType::Struct(kv) = entries.data_type() else {
            panic!("entries are structs");
        };
        assert_eq!(kv[0].name(), "key");
        assert!(kv[0].is_nullable(), "Flink map keys may be NULL");
        assert_eq!(kv[1].name(), "value");
    }

    #[test]
    fn bad_type_names_say_what_is_wrong() {
        for (s, why) in [
            ("DECIMAL(39, 2)", "precision <= 38"),
            ("DECIMAL(5, 6)", "scale <= precision"),
            ("TIMESTAMP(10)", "at most 9"),
            ("VARCHAR(0)", "at least 1"),
            ("BIGINT(3)", "no parameters"),
            ("GEOMETRY", "not a supported type"),
            ("CHAR(x)", "integers"),
            ("ROW<>", "at least one field"),
            ("ROW<f0 INT", "missing `>`"),
            ("ROW<f0>", "needs a name and a type"),
            ("ROW<a INT, a BIGINT>", "repeated"),
            ("ROW<a GEOMETRY>", "not a supported type"),
            ("ROW<a DECIMAL(3, 1>", "unbalanced"),
            ("ROW<`a INT>", "unbalanced"),
            ("ARRAY<>", "element type is missing"),
            ("ARRAY<INT", "missing `>`"),
            ("ARRAY<INT, INT>", "one element type"),
            ("ARRAY(INT)", "needs `<` and `>`"),
            ("MAP<INT>", "a key type and a value type"),
            ("MAP<INT, GEOMETRY>", "value: "),
            ("MAP<, INT>", "key type is missing"),
        ] {
            let err = s.parse::<LogicalType>().unwrap_err().to_string();
            assert!(err.contains(why), "{s}: {err}");
        }
    }

    #[test]
    fn every_interval_qualifier_flink_declares_is_one_of_the_two_carriers() {
        for s in [
            "INTERVAL YEAR",
            "INTERVAL YEAR(3)",
            "INTERVAL YEAR(2) TO MONTH",
            "INTERVAL MONTH NOT NULL",
        ] {
            assert_eq!(
                s.parse::<LogicalType>().unwrap(),
                LogicalType::IntervalYearMonth,
                "{s}"
            );
        }
        for s in [
            "INTERVAL DAY(2)",
            "INTERVAL DAY(2) TO HOUR",
            "INTERVAL DAY(6) TO MINUTE",
            "INTERVAL DAY(2) TO SECOND(6)",
            "INTERVAL HOUR",
            "INTERVAL HOUR TO SECOND(3)",
            "INTERVAL MINUTE TO SECOND(0)",
            "INTERVAL SECOND(6) NOT NULL",
            "interval minute",
        ] {
            assert_eq!(
                s.parse::<LogicalType>().unwrap(),
                LogicalType::IntervalDayTime,
                "{s}"
            );
        }
        for s in [
            "INTERVAL MONTH TO YEAR",
            "INTERVAL YEAR TO SECOND",
            "INTERVAL DAY(7)",
            "INTERVAL DAY(2) TO SECOND(10)",
            "INTERVAL WEEK",
            "INTERVAL HOUR TO DAY",
        ] {
            assert!(s.parse::<LogicalType>().is_err(), "{s}");
        }
    }

    #[test]
    fn compactness_follows_flink_boundaries() {
        assert!(
            LogicalType::Decimal {
                precision: 18,
                scale: 0
            }
            .is_compact()
        );
        assert!(
            !LogicalType::Decimal {
                precision: 19,
                scale: 0
            }
            .is_compact()
        );
        assert!(LogicalType::Timestamp(3).is_compact());
        assert!(!LogicalType::TimestampLtz(4).is_compact());
        assert_eq!(
            LogicalType::Timestamp(4).to_arrow(),
            DataType::Timestamp(TimeUnit::Microsecond, None)
        );
    }
}
