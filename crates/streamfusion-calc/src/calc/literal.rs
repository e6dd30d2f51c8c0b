//! Typed literals: SQL text to Arrow scalars.

use std::sync::Arc;

use chrono::{NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use datafusion::common::ScalarValue;

use crate::types::LogicalType;

/// Days from 0001-01-01 (chrono's day 1) to 1970-01-01.
const UNIX_EPOCH_DAYS_FROM_CE: i32 = 719_163;

/// The value of `text` as a literal of type `ty` (`None` text is a typed NULL).
pub fn parse(ty: &LogicalType, text: Option<&str>) -> Result<ScalarValue, String> {
    let Some(text) = text else {
        return ScalarValue::try_from(ty.to_arrow()).map_err(|e| e.to_string());
    };
    let int = |min: i64, max: i64| -> Result<i64, String> {
        let v: i64 = text
            .parse()
            .map_err(|_| format!("`{text}` is not an integer"))?;
        if (min..=max).contains(&v) {
            Ok(v)
        } else {
            Err(format!("{v} is out of range for {ty}"))
        }
    };
    Ok(match ty {
        LogicalType::Boolean => match text.to_ascii_lowercase().as_str() {
            "true" => ScalarValue::Boolean(Some(true)),
            "false" => ScalarValue::Boolean(Some(false)),
            _ => return Err(format!("`{text}` is not TRUE or FALSE")),
        },
        LogicalType::TinyInt => ScalarValue::Int8(Some(int(i8::MIN.into(), i8::MAX.into())? as i8)),
        LogicalType::SmallInt => {
            ScalarValue::Int16(Some(int(i16::MIN.into(), i16::MAX.into())? as i16))
        }
        LogicalType::Int => ScalarValue::Int32(Some(int(i32::MIN.into(), i32::MAX.into())? as i32)),
        LogicalType::BigInt => ScalarValue::Int64(Some(int(i64::MIN, i64::MAX)?)),
        LogicalType::Float => ScalarValue::Float32(Some(parse_float(text)? as f32)),
        LogicalType::Double => ScalarValue::Float64(Some(parse_float(text)?)),
        LogicalType::Decimal { precision, scale } => ScalarValue::Decimal128(
            Some(parse_decimal(text, *precision, *scale)?),
            *precision,
            *scale as i8,
        ),
        LogicalType::Char(n) | LogicalType::VarChar(n) => {
            let chars = text.chars().count();
            if chars > *n as usize {
                return Err(format!("{chars} characters do not fit {ty}"));
            }
            let mut s = text.to_owned();
            if matches!(ty, LogicalType::Char(_)) {
                s.extend(std::iter::repeat_n(' ', *n as usize - chars));
            }
            ScalarValue::Utf8(Some(s))
        }
        LogicalType::Binary(n) | LogicalType::VarBinary(n) => {
            let mut bytes =
                hex::decode(text).map_err(|e| format!("`{text}` is not hexadecimal: {e}"))?;
            if bytes.len() > *n as usize {
                return Err(format!("{} bytes do not fit {ty}", bytes.len()));
            }
            if matches!(ty, LogicalType::Binary(_)) {
                bytes.resize(*n as usize, 0);
            }
            ScalarValue::Binary(Some(bytes))
        }
        LogicalType::Date => {
            let date = NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .map_err(|e| format!("`{text}` is not a DATE (yyyy-MM-dd): {e}"))?;
            ScalarValue::Date32(Some(days_since_epoch(date)))
        }
        LogicalType::Time(p) => {
            let time = NaiveTime::parse_from_str(text, "%H:%M:%S%.f")
                .map_err(|e| format!("`{text}` is not a TIME (HH:mm:ss[.f]): {e}"))?;
            check_fraction(time.nanosecond(), 3.min(*p), text, ty)?;
            let millis = time.num_seconds_from_midnight() * 1000 + time.nanosecond() / 1_000_000;
            ScalarValue::Time32Millisecond(Some(millis as i32))
        }
        LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => {
            let ts = NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f")
                .map_err(|e| format!("`{text}` is not a TIMESTAMP (yyyy-MM-dd HH:mm:ss[.f]): {e}"))?
                .and_utc();
            check_fraction(ts.nanosecond(), *p, text, ty)?;
            let tz = matches!(ty, LogicalType::TimestampLtz(_)).then(|| Arc::from("UTC"));
            let out_of_range = || format!("`{text}` is out of range for {ty}");
            match p {
                0..=3 => ScalarValue::TimestampMillisecond(Some(ts.timestamp_millis()), tz),
                4..=6 => ScalarValue::TimestampMicrosecond(Some(ts.timestamp_micros()), tz),
                _ => ScalarValue::TimestampNanosecond(
                    Some(ts.timestamp_nanos_opt().ok_or_else(out_of_range)?),
                    tz,
                ),
            }
        }
        // Flink writes an interval literal as its carrier value: months, or milliseconds.
        LogicalType::IntervalYearMonth => ScalarValue::IntervalYearMonth(Some(
            text.parse::<i32>()
                .map_err(|_| format!("`{text}` is not a number of months"))?,
        )),
        LogicalType::IntervalDayTime => ScalarValue::DurationMillisecond(Some(
            text.parse::<i64>()
                .map_err(|_| format!("`{text}` is not a number of milliseconds"))?,
        )),
        LogicalType::Row(_) | LogicalType::Array(_) | LogicalType::Map(..) => {
            return Err(format!("{ty} literals are not supported"));
        }
    })
}

fn days_since_epoch(date: NaiveDate) -> i32 {
    use chrono::Datelike;
    date.num_days_from_ce() - UNIX_EPOCH_DAYS_FROM_CE
}

/// Rejects fractional seconds finer than the type's precision.
fn check_fraction(nanos: u32, precision: u8, text: &str, ty: &LogicalType) -> Result<(), String> {
    let unit = 10u32.pow(9 - u32::from(precision.min(9)));
    if !nanos.is_multiple_of(unit) {
        return Err(format!("`{text}` has more fractional digits than {ty}"));
    }
    Ok(())
}

fn parse_float(text: &str) -> Result<f64, String> {
    match text {
        "NaN" => Ok(f64::NAN),
        "Infinity" => Ok(f64::INFINITY),
        "-Infinity" => Ok(f64::NEG_INFINITY),
        _ => text
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("`{text}` is not a number")),
    }
}

/// The unscaled value of decimal text at `scale`, exactly (more fractional digits than the
/// scale, or more digits than the precision, is an error: a literal is never rounded).
pub fn parse_decimal(text: &str, precision: u8, scale: u8) -> Result<i128, String> {
    let bad = || format!("`{text}` is not a DECIMAL({precision}, {scale}) literal");
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let frac = frac.trim_end_matches('0');
    if frac.len() > scale as usize {
        return Err(bad());
    }
    let int = int.trim_start_matches('0');
    if int.len() + scale as usize > precision as usize {
        return Err(bad());
    }
    let mut unscaled: i128 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        unscaled = unscaled * 10 + i128::from(b - b'0');
    }
    unscaled *= 10i128.pow(u32::from(scale) - frac.len() as u32);
    Ok(if negative { -unscaled } else { unscaled })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_of_every_supported_type() {
        let cases: Vec<(LogicalType, &str, ScalarValue)> = vec![
            (
                LogicalType::Boolean,
                "TRUE",
                ScalarValue::Boolean(Some(true)),
            ),
            (LogicalType::TinyInt, "-128", ScalarValue::Int8(Some(-128))),
            (
                LogicalType::BigInt,
                "9223372036854775807",
                ScalarValue::Int64(Some(i64::MAX)),
            ),
            (
                LogicalType::Double,
                "1.5E10",
                ScalarValue::Float64(Some(1.5e10)),
            ),
            (
                LogicalType::Decimal {
                    precision: 5,
                    scale: 2,
                },
                "-1.5",
                ScalarValue::Decimal128(Some(-150), 5, 2),
            ),
            (
                LogicalType::Char(4),
                "ab",
                ScalarValue::Utf8(Some("ab  ".into())),
            ),
            (
                LogicalType::VarBinary(4),
                "0a0B",
                ScalarValue::Binary(Some(vec![10, 11])),
            ),
            (
                LogicalType::Date,
                "1970-01-02",
                ScalarValue::Date32(Some(1)),
            ),
            (
                LogicalType::Date,
                "1969-12-31",
                ScalarValue::Date32(Some(-1)),
            ),
            (
                LogicalType::Time(3),
                "00:00:01.5",
                ScalarValue::Time32Millisecond(Some(1500)),
            ),
            (
                LogicalType::Timestamp(9),
                "1970-01-01 00:00:00.000000001",
                ScalarValue::TimestampNanosecond(Some(1), None),
            ),
            (
                LogicalType::IntervalYearMonth,
                "-14",
                ScalarValue::IntervalYearMonth(Some(-14)),
            ),
            (
                LogicalType::IntervalDayTime,
                "86400000",
                ScalarValue::DurationMillisecond(Some(86_400_000)),
            ),
        ];
        for (ty, text, expected) in cases {
            assert_eq!(parse(&ty, Some(text)).unwrap(), expected, "{ty} {text}");
        }
        assert_eq!(
            parse(&LogicalType::Int, None).unwrap(),
            ScalarValue::Int32(None)
        );
    }

    #[test]
    fn literals_that_do_not_fit_are_errors() {
        for (ty, text) in [
            (LogicalType::TinyInt, "128"),
            (LogicalType::Int, "1.0"),
            (
                LogicalType::Decimal {
                    precision: 3,
                    scale: 1,
                },
                "123.4",
            ),
            (
                LogicalType::Decimal {
                    precision: 5,
                    scale: 1,
                },
                "1.25",
            ),
            (LogicalType::VarChar(2), "abc"),
            (LogicalType::Date, "2023-02-29"),
            (LogicalType::Timestamp(3), "2024-01-01 00:00:00.0001"),
            (LogicalType::Double, "1e999"),
        ] {
            assert!(parse(&ty, Some(text)).is_err(), "{ty} {text}");
        }
    }
}
