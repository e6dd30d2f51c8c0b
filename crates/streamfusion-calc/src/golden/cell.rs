//! Golden values: what the generator writes for each type, read back typed by the column.

use std::fmt;

use chrono::{NaiveDate, NaiveTime, Timelike};
use serde_json::Value as Json;

use crate::types::LogicalType;

/// One value, typed by its column.
#[derive(Debug, Clone)]
pub enum Cell {
    /// SQL NULL.
    Null,
    /// BOOLEAN.
    Bool(bool),
    /// Any integer type.
    Int(i128),
    /// FLOAT or DOUBLE: the raw IEEE bits and the width (32 or 64).
    Float(u64, u8),
    /// DECIMAL: the unscaled value and the scale.
    Decimal(i128, u8),
    /// CHAR or VARCHAR.
    Str(String),
    /// BINARY or VARBINARY.
    Bytes(Vec<u8>),
    /// DATE: days since 1970-01-01.
    Date(i32),
    /// TIME: nanoseconds of the day.
    Time(i64),
    /// TIMESTAMP or TIMESTAMP_LTZ (as UTC): nanoseconds since 1970-01-01 00:00:00.
    Timestamp(i128),
    /// ARRAY or ROW: the values in order.
    List(Vec<Cell>),
    /// MAP: the entries (compared as a set; Flink's maps have no order).
    Map(Vec<(Cell, Cell)>),
}

impl Cell {
    fn is_nan(&self) -> bool {
        match *self {
            Cell::Float(bits, 32) => f32::from_bits(bits as u32).is_nan(),
            Cell::Float(bits, _) => f64::from_bits(bits).is_nan(),
            _ => false,
        }
    }

    /// A map's entries in a canonical order (by their printed form).
    fn sorted_entries(entries: &[(Cell, Cell)]) -> Vec<(String, &Cell, &Cell)> {
        let mut out: Vec<_> = entries
            .iter()
            .map(|(k, v)| (format!("{k}={v}"), k, v))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

impl PartialEq for Cell {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Cell::Null, Cell::Null) => true,
            (Cell::Bool(a), Cell::Bool(b)) => a == b,
            (Cell::Int(a), Cell::Int(b)) => a == b,
            // Java does not fix NaN payloads, so any NaN equals any NaN.
            (Cell::Float(a, w), Cell::Float(b, v)) => {
                w == v && (a == b || (self.is_nan() && other.is_nan()))
            }
            (Cell::Decimal(a, s), Cell::Decimal(b, t)) => a == b && s == t,
            (Cell::Str(a), Cell::Str(b)) => a == b,
            (Cell::Bytes(a), Cell::Bytes(b)) => a == b,
            (Cell::Date(a), Cell::Date(b)) => a == b,
            (Cell::Time(a), Cell::Time(b)) => a == b,
            (Cell::Timestamp(a), Cell::Timestamp(b)) => a == b,
            (Cell::List(a), Cell::List(b)) => a == b,
            (Cell::Map(a), Cell::Map(b)) => {
                let (a, b) = (Cell::sorted_entries(a), Cell::sorted_entries(b));
                a.len() == b.len()
                    && a.iter()
                        .zip(&b)
                        .all(|((_, ka, va), (_, kb, vb))| ka == kb && va == vb)
            }
            _ => false,
        }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Null => f.write_str("NULL"),
            Cell::Bool(b) => write!(f, "{b}"),
            Cell::Int(i) => write!(f, "{i}"),
            Cell::Float(bits, 32) => write!(f, "{:?} ({bits:08x})", f32::from_bits(*bits as u32)),
            Cell::Float(bits, _) => write!(f, "{:?} ({bits:016x})", f64::from_bits(*bits)),
            Cell::Decimal(v, scale) => {
                let digits = v.unsigned_abs().to_string();
                let scale = usize::from(*scale);
                let digits = format!("{digits:0>width$}", width = scale + 1);
                let (int, frac) = digits.split_at(digits.len() - scale);
                let sign = if *v < 0 { "-" } else { "" };
                if scale == 0 {
                    write!(f, "{sign}{int}")
                } else {
                    write!(f, "{sign}{int}.{frac}")
                }
            }
            Cell::Str(s) => write!(f, "{s:?}"),
            Cell::Bytes(b) => write!(f, "x'{}'", hex::encode(b)),
            Cell::Date(d) => match NaiveDate::from_num_days_from_ce_opt(d + UNIX_EPOCH_DAYS_CE) {
                Some(date) => write!(f, "DATE {date}"),
                None => write!(f, "DATE ({d} days)"),
            },
            Cell::Time(n) => {
                let secs = (n / 1_000_000_000) as u32;
                let nanos = (n % 1_000_000_000) as u32;
                match NaiveTime::from_num_seconds_from_midnight_opt(secs, nanos) {
                    Some(t) => write!(f, "TIME {t}"),
                    None => write!(f, "TIME ({n} ns)"),
                }
            }
            Cell::Timestamp(n) => {
                let secs = n.div_euclid(1_000_000_000) as i64;
                let nanos = n.rem_euclid(1_000_000_000) as u32;
                match chrono::DateTime::from_timestamp(secs, nanos) {
                    Some(t) => write!(f, "TIMESTAMP {}", t.naive_utc()),
                    None => write!(f, "TIMESTAMP ({n} ns)"),
                }
            }
            Cell::List(items) => write!(f, "[{}]", join(items.iter())),
            Cell::Map(entries) => {
                let items: Vec<String> = entries.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                write!(f, "{{{}}}", items.join(", "))
            }
        }
    }
}

/// Days from 0001-01-01 (CE day 1) to 1970-01-01.
const UNIX_EPOCH_DAYS_CE: i32 = 719_163;

fn join<'a>(cells: impl Iterator<Item = &'a Cell>) -> String {
    cells
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A row, printed.
pub fn show(row: &[Cell]) -> String {
    format!("[{}]", join(row.iter()))
}

pub(super) fn str_of<'a>(v: &'a Json, what: &str) -> Result<&'a str, String> {
    v.as_str()
        .ok_or_else(|| format!("{what}: expected a string, got {v}"))
}

/// `BigDecimal.toPlainString` with exactly `scale` fraction digits, as an unscaled value.
fn plain_decimal(s: &str, scale: u8) -> Result<i128, String> {
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if frac.len() != usize::from(scale) {
        return Err(format!("DECIMAL {s:?} is not of scale {scale}"));
    }
    let unscaled: i128 = format!("{int}{frac}")
        .parse()
        .map_err(|e| format!("DECIMAL {s:?}: {e}"))?;
    Ok(if negative { -unscaled } else { unscaled })
}

fn float_bits(v: &Json, width: u8) -> Result<Cell, String> {
    let bits = str_of(&v["bits"], "float bits")?;
    Ok(Cell::Float(
        u64::from_str_radix(bits, 16).map_err(|e| format!("bits {bits}: {e}"))?,
        width,
    ))
}

fn nanos_of_day(t: NaiveTime) -> i64 {
    i64::from(t.num_seconds_from_midnight()) * 1_000_000_000 + i64::from(t.nanosecond())
}

/// Nanoseconds since the epoch of `yyyy-MM-dd HH:mm:ss.nnnnnnnnn` (read as UTC; the date as
/// in [`epoch_days`], so years past chrono's range read too).
fn timestamp_nanos(text: &str) -> Result<i128, String> {
    let (date, time) = text
        .split_once(' ')
        .ok_or_else(|| format!("TIMESTAMP {text:?}: no time of day"))?;
    let days = epoch_days(date).map_err(|e| format!("TIMESTAMP {text:?}: {e}"))?;
    let time = NaiveTime::parse_from_str(time, "%H:%M:%S%.f")
        .map_err(|e| format!("TIMESTAMP {text:?}: {e}"))?;
    Ok(i128::from(days) * 86_400_000_000_000 + i128::from(nanos_of_day(time)))
}

/// Days since 1970-01-01 of `LocalDate.toString` text (`yyyy-MM-dd`, with a sign and more
/// digits for years outside 0000..=9999), in the proleptic Gregorian calendar: Howard
/// Hinnant's `days_from_civil`, since Flink's DATE range exceeds chrono's.
fn epoch_days(text: &str) -> Result<i32, String> {
    let bad = || format!("DATE {text:?}: not [+-]yyyy-MM-dd");
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let mut parts = body.splitn(3, '-');
    let mut field = || -> Result<i64, String> {
        parts
            .next()
            .ok_or_else(bad)?
            .parse::<i64>()
            .map_err(|_| bad())
    };
    let (year, month, day) = (field()?, field()?, field()?);
    let year = if negative { -year } else { year };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return Err(bad());
    }
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    i32::try_from(era * 146_097 + doe - 719_468).map_err(|_| format!("DATE {text:?}: out of range"))
}

fn items<'a>(v: &'a Json, what: &str) -> Result<&'a Vec<Json>, String> {
    v.as_array()
        .ok_or_else(|| format!("{what}: expected a JSON array, got {v}"))
}

/// The golden encoding of a value of type `ty` (see `CalcVectors.java`).
pub fn cell(v: &Json, ty: &LogicalType) -> Result<Cell, String> {
    use LogicalType::*;
    if v.is_null() {
        return Ok(Cell::Null);
    }
    Ok(match ty {
        Boolean => Cell::Bool(v.as_bool().ok_or_else(|| format!("BOOLEAN {v}"))?),
        TinyInt | SmallInt | Int | BigInt => Cell::Int(
            str_of(v, "integer")?
                .parse()
                .map_err(|e| format!("integer {v}: {e}"))?,
        ),
        Float => float_bits(v, 32)?,
        Double => float_bits(v, 64)?,
        Decimal { scale, .. } => {
            Cell::Decimal(plain_decimal(str_of(v, "DECIMAL")?, *scale)?, *scale)
        }
        Char(_) | VarChar(_) => Cell::Str(str_of(v, "string")?.to_string()),
        Binary(_) | VarBinary(_) => {
            Cell::Bytes(hex::decode(str_of(v, "binary")?).map_err(|e| format!("binary {v}: {e}"))?)
        }
        Date => Cell::Date(epoch_days(str_of(v, "DATE")?)?),
        Time(_) => {
            let text = str_of(v, "TIME")?;
            let time = NaiveTime::parse_from_str(text, "%H:%M:%S%.f")
                .map_err(|e| format!("TIME {text:?}: {e}"))?;
            Cell::Time(nanos_of_day(time))
        }
        Timestamp(_) | TimestampLtz(_) => {
            Cell::Timestamp(timestamp_nanos(str_of(v, "TIMESTAMP")?)?)
        }
        Array(element) => Cell::List(
            items(v, "ARRAY")?
                .iter()
                .map(|item| cell(item, element))
                .collect::<Result<_, _>>()?,
        ),
        Map(key, value) => Cell::Map(
            items(v, "MAP")?
                .iter()
                .map(|pair| match pair.as_array().map(Vec::as_slice) {
                    Some([k, v]) => Ok((cell(k, key)?, cell(v, value)?)),
                    _ => Err(format!("MAP entry {pair}: expected [key, value]")),
                })
                .collect::<Result<_, _>>()?,
        ),
        Row(fields) => {
            let values = items(v, "ROW")?;
            if values.len() != fields.len() {
                return Err(format!("ROW {v}: {} fields expected", fields.len()));
            }
            Cell::List(
                values
                    .iter()
                    .zip(fields)
                    .map(|(v, f)| cell(v, &f.ty))
                    .collect::<Result<_, _>>()?,
            )
        }
        other => return Err(format!("no golden encoding for {other}")),
    })
}

/// A row of cells typed by `types`.
pub fn row(v: &Json, types: &[LogicalType]) -> Result<Vec<Cell>, String> {
    let values = items(v, "row")?;
    if values.len() != types.len() {
        return Err(format!("row {v}: {} values expected", types.len()));
    }
    values.iter().zip(types).map(|(v, t)| cell(v, t)).collect()
}

#[cfg(test)]
mod tests {
    use chrono::{Datelike, NaiveDateTime};

    use super::*;

    #[test]
    fn epoch_days_agree_with_chrono_and_reach_past_its_range() {
        let mut date = NaiveDate::from_ymd_opt(-400, 1, 1).unwrap();
        while date.year() < 2_500 {
            let text = format!("{}", date.format("%Y-%m-%d"));
            assert_eq!(
                epoch_days(&text),
                Ok(date.num_days_from_ce() - UNIX_EPOCH_DAYS_CE),
                "{text}"
            );
            date += chrono::Duration::days(97);
        }
        // Past chrono's range: where mean Gregorian years (365.2425 days) put it.
        let far = epoch_days("+1705471-09-27").unwrap();
        assert_eq!(
            (f64::from(far) / 365.2425 + 1970.0).floor() as i64,
            1_705_471
        );
        assert!(epoch_days("2024-13-01").is_err());
        assert!(epoch_days("x").is_err());
    }

    #[test]
    fn timestamps_agree_with_chrono_and_reach_past_its_range() {
        for text in [
            "1969-12-31 23:59:59.999999999",
            "0000-01-01 00:00:00.000000000",
            "2262-04-11 23:47:16.854775807",
            "9999-12-31 12:34:56.000000001",
        ] {
            let t = NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f")
                .unwrap()
                .and_utc();
            assert_eq!(
                timestamp_nanos(text),
                Ok(i128::from(t.timestamp()) * 1_000_000_000
                    + i128::from(t.timestamp_subsec_nanos())),
                "{text}"
            );
        }
        let far = timestamp_nanos("+1002024-01-31 10:00:00.000000000").unwrap();
        assert_eq!(
            far,
            i128::from(epoch_days("+1002024-01-31").unwrap()) * 86_400_000_000_000
                + 36_000_000_000_000
        );
        assert!(timestamp_nanos("2024-01-31").is_err());
    }
}
