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
//! | `INTERVAL YEAR TO MONTH`    | `Interval(YearMonth)`                        | months in an int |
//! | `INTERVAL DAY TO SECOND(3)` | `Duration(ms)`                               | milliseconds in a long |
//! | `CHAR`/`VARCHAR`            | `Utf8`                                       | |
//! | `BINARY`/`VARBINARY`        | `Binary`                                     | |
//!
//! Type names parse and print in Flink's SQL spelling (`DECIMAL(19, 4)`, `VARCHAR(2147483647)`,
//! `TIMESTAMP_LTZ(9)`, `INTERVAL DAY TO SECOND(3)`).

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use arrow::datatypes::{DataType, IntervalUnit, TimeUnit};

use crate::error::{Error, Result};

/// The largest DECIMAL precision stored in a `long` (`DecimalData.isCompact`).
pub const MAX_COMPACT_DECIMAL_PRECISION: u8 = 18;
/// The largest TIMESTAMP precision stored as plain milliseconds (`TimestampData.isCompact`).
pub const MAX_COMPACT_TIMESTAMP_PRECISION: u8 = 3;

/// A Flink logical type (the scalar types a SQL key can have).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
}

impl LogicalType {
    /// The Arrow type that carries this type's values.
    pub fn to_arrow(&self) -> DataType {
        match *self {
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
    pub fn is_compact(&self) -> bool {
        match *self {
            LogicalType::Decimal { precision, .. } => precision <= MAX_COMPACT_DECIMAL_PRECISION,
            LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => {
                p <= MAX_COMPACT_TIMESTAMP_PRECISION
            }
            _ => true,
        }
    }
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
        }
    }
}

impl FromStr for LogicalType {
    type Err = Error;

    /// Parses Flink's SQL spelling of the supported types (case-insensitive; `STRING` and
    /// `BYTES` are accepted as aliases).
    fn from_str(s: &str) -> Result<Self> {
        let bad = |why: &str| Error::InvalidType(format!("`{s}`: {why}"));
        let upper = s.trim().to_ascii_uppercase();
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
            "INTERVAL YEAR TO MONTH" => none(LogicalType::IntervalYearMonth)?,
            "INTERVAL DAY TO SECOND" if args == [3] => LogicalType::IntervalDayTime,
            _ => return Err(bad("not a supported type")),
        })
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
        ] {
            let err = s.parse::<LogicalType>().unwrap_err().to_string();
            assert!(err.contains(why), "{s}: {err}");
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
