//! Temporal functions (opcodes 600–639), with Flink 2.3.0's runtime semantics: the calendar
//! arithmetic of `DateTimeUtils` ([`super::temporal_calendar`]), the code generator's rules
//! (`ExtractCallGen`, `FloorCeilCallGen`, `TimestampDiffCallGen`, `StringCallGen`'s date/time
//! conversions) and Java's date-time patterns ([`super::temporal_format`]).
//!
//! A time unit (`YEAR`, `HOUR`, ...) is a STRING literal argument naming it (the symbol
//! Calcite passes), e.g. `EXTRACT('YEAR', ts)` for `EXTRACT(YEAR FROM ts)`.
//!
//! Flink quirks kept on purpose: EXTRACT and FLOOR/CEIL read a TIMESTAMP's date part with
//! Java's truncating division, so a pre-1970 timestamp with a time of day has the next day's
//! date parts (`EXTRACT(YEAR FROM TIMESTAMP '1969-12-31 12:00:00')` is 1970), and its
//! time-of-day parts are negative (`HOUR` of that is -12); TIMESTAMPDIFF truncates to `int`.
//!
//! The session time zone (`Args::time_zone`) drives TIMESTAMP_LTZ, FROM_UNIXTIME,
//! UNIX_TIMESTAMP and the clock functions. The clock functions read the wall clock per row, as
//! Flink's streaming mode evaluates them per record.

use std::borrow::Cow;

use datafusion::error::Result as DfResult;

use crate::calc::coercion::{is_integer, is_string};
use crate::calc::range::OutOfRange;
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::temporal_calendar::{
    EPOCH_JULIAN, GREGORIAN_CUTOVER_DAY, MILLIS_PER_DAY, Unit, add_months_date, add_months_millis,
    extract_from_date, floor_div, floor_mod, hybrid_calendar_day, julian_calendar_fields,
    julian_date_floor, last_day, parse_date, subtract_months_date, subtract_months_millis,
    ymd_to_unix_date,
};
use super::temporal_format::{Dialect, Pattern, PatternError};
use super::temporal_values::{In, Out, Zone, rowwise};
use super::util::fail;

/// `EXTRACT(unit FROM x)` → BIGINT, for DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ.
pub const EXTRACT: u16 = 600;
/// `YEAR(x)`: `EXTRACT(YEAR FROM x)`.
pub const YEAR: u16 = 601;
/// `QUARTER(x)`.
pub const QUARTER: u16 = 602;
/// `MONTH(x)`.
pub const MONTH: u16 = 603;
/// `WEEK(x)`: the ISO week.
pub const WEEK: u16 = 604;
/// `DAYOFYEAR(x)`.
pub const DAYOFYEAR: u16 = 605;
/// `DAYOFMONTH(x)`.
pub const DAYOFMONTH: u16 = 606;
/// `DAYOFWEEK(x)`: Sunday 1 .. Saturday 7.
pub const DAYOFWEEK: u16 = 607;
/// `HOUR(x)`.
pub const HOUR: u16 = 608;
/// `MINUTE(x)`.
pub const MINUTE: u16 = 609;
/// `SECOND(x)`.
pub const SECOND: u16 = 610;
/// `FLOOR(x TO unit)` for DATE, TIMESTAMP, TIMESTAMP_LTZ (args: x, unit).
pub const FLOOR_TO: u16 = 611;
/// `CEIL(x TO unit)`.
pub const CEIL_TO: u16 = 612;
/// `TIMESTAMPADD(unit, n, x)`.
pub const TIMESTAMPADD: u16 = 613;
/// `TIMESTAMPDIFF(unit, a, b)`: whole units from `a` to `b`, INT.
pub const TIMESTAMPDIFF: u16 = 614;
/// `DATE_FORMAT(x, format)`: TIMESTAMP / TIMESTAMP_LTZ (`DateTimeFormatter`) or a
/// `yyyy-MM-dd HH:mm:ss` string (`SimpleDateFormat`).
pub const DATE_FORMAT: u16 = 615;
/// `FROM_UNIXTIME(seconds [, format])` → STRING in the session time zone.
pub const FROM_UNIXTIME: u16 = 616;
/// `UNIX_TIMESTAMP([string [, format]])` → BIGINT seconds.
pub const UNIX_TIMESTAMP: u16 = 617;
/// `TO_TIMESTAMP(string [, format])` → TIMESTAMP(3).
pub const TO_TIMESTAMP: u16 = 618;
/// `TO_TIMESTAMP_LTZ(numeric [, precision])` or `TO_TIMESTAMP_LTZ(string [, format])`.
pub const TO_TIMESTAMP_LTZ: u16 = 619;
/// `TO_DATE(string [, format])` → DATE.
pub const TO_DATE: u16 = 620;
/// `CURRENT_TIMESTAMP` → TIMESTAMP_LTZ(3).
pub const CURRENT_TIMESTAMP: u16 = 621;
/// `LOCALTIMESTAMP` → TIMESTAMP(3) in the session time zone.
pub const LOCALTIMESTAMP: u16 = 622;
/// `CURRENT_DATE` → DATE in the session time zone.
pub const CURRENT_DATE: u16 = 623;
/// `CURRENT_TIME` → TIME(0) (milliseconds kept, as Flink does).
pub const CURRENT_TIME: u16 = 624;
/// `LOCALTIME` → TIME(0).
pub const LOCALTIME: u16 = 625;
/// `NOW()` → TIMESTAMP_LTZ(3).
pub const NOW: u16 = 626;
/// `CURRENT_ROW_TIMESTAMP()` → TIMESTAMP_LTZ(3).
pub const CURRENT_ROW_TIMESTAMP: u16 = 627;
/// `CONVERT_TZ(s, from, to)`: `s` (`yyyy-MM-dd HH:mm:ss`, read leniently) as a wall-clock
/// time in zone `from`, printed as one in zone `to` (`DateTimeUtils.convertTz`:
/// `SimpleDateFormat` and `java.util.TimeZone`). STRING; NULL for a text that does not parse.
pub const CONVERT_TZ: u16 = 628;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: EXTRACT,
        name: "EXTRACT",
        arity: Arity::Exact(2),
        bind: bind_extract,
    },
    FunctionDef {
        opcode: YEAR,
        name: "YEAR",
        arity: Arity::Exact(1),
        bind: |a| bind_part(a, Unit::Year),
    },
    FunctionDef {
        opcode: QUARTER,
        name: "QUARTER",
        arity: Arity::Exact(1),
        bind: |a| bind_part(a, Unit::Quarter),
    },
    FunctionDef {
        opcode: MONTH,
        name: "MONTH",
        arity: Arity::Exact(1),
        bind: |a| bind_part(a, Unit::Month),
    },
    FunctionDef {
        opcode: WEEK,
        name: "WEEK",
        arity: Arity::Exact(1),
        bind: |a| bind_part(a, Unit::Week),
    },
    FunctionDef {
        opcode: DAYOFYEAR,
        name: "DAYOFYEAR",
        arity: Arity::Exact(1),
        bind: |a| bind_part(a, Unit::Doy),
    },
    FunctionDef {
        opcode: DAYOFMONTH,
        name: "DAYOFMONTH",
        arity: Arity::Exact(1),
        bind: |a| bind_part(a, Unit::Day),
    },
    FunctionDef {
        opcode: DAYOFWEEK,
        name: "DAYOFWEEK",
        arity: Arity::Exact(1),
        bind: |a| bind_part(a, Unit::Dow),
    },
    FunctionDef {
        opcode: HOUR,
        name: "HOUR",
        arity: Arity::Exact(1),
        bind: |a| bind_part(a, Unit::Hour),
    },
    FunctionDef {
        opcode: MINUTE,
        name: "MINUTE",
        arity: Arity::Exact(1),
        bind: |a| bind_part(a, Unit::Minute),
    },
    FunctionDef {
        opcode: SECOND,
        name: "SECOND",
        arity: Arity::Exact(1),
        bind: |a| bind_part(a, Unit::Second),
    },
    FunctionDef {
        opcode: FLOOR_TO,
        name: "FLOOR_TO",
        arity: Arity::Exact(2),
        bind: |a| bind_floor_ceil(a, true),
    },
    FunctionDef {
        opcode: CEIL_TO,
        name: "CEIL_TO",
        arity: Arity::Exact(2),
        bind: |a| bind_floor_ceil(a, false),
    },
    FunctionDef {
        opcode: TIMESTAMPADD,
        name: "TIMESTAMPADD",
        arity: Arity::Exact(3),
        bind: bind_timestampadd,
    },
    FunctionDef {
        opcode: TIMESTAMPDIFF,
        name: "TIMESTAMPDIFF",
        arity: Arity::Exact(3),
        bind: bind_timestampdiff,
    },
    FunctionDef {
        opcode: DATE_FORMAT,
        name: "DATE_FORMAT",
        arity: Arity::Exact(2),
        bind: bind_date_format,
    },
    FunctionDef {
        opcode: FROM_UNIXTIME,
        name: "FROM_UNIXTIME",
        arity: Arity::Range(1, 2),
        bind: bind_from_unixtime,
    },
    FunctionDef {
        opcode: UNIX_TIMESTAMP,
        name: "UNIX_TIMESTAMP",
        arity: Arity::Range(0, 2),
        bind: bind_unix_timestamp,
    },
    FunctionDef {
        opcode: TO_TIMESTAMP,
        name: "TO_TIMESTAMP",
        arity: Arity::Range(1, 2),
        bind: bind_to_timestamp,
    },
    FunctionDef {
        opcode: TO_TIMESTAMP_LTZ,
        name: "TO_TIMESTAMP_LTZ",
        arity: Arity::Range(1, 2),
        bind: bind_to_timestamp_ltz,
    },
    FunctionDef {
        opcode: TO_DATE,
        name: "TO_DATE",
        arity: Arity::Range(1, 2),
        bind: bind_to_date,
    },
    FunctionDef {
        opcode: CURRENT_TIMESTAMP,
        name: "CURRENT_TIMESTAMP",
        arity: Arity::Exact(0),
        bind: |a| bind_clock(a, "CURRENT_TIMESTAMP", Clock::Instant),
    },
    FunctionDef {
        opcode: LOCALTIMESTAMP,
        name: "LOCALTIMESTAMP",
        arity: Arity::Exact(0),
        bind: |a| bind_clock(a, "LOCALTIMESTAMP", Clock::LocalTimestamp),
    },
    FunctionDef {
        opcode: CURRENT_DATE,
        name: "CURRENT_DATE",
        arity: Arity::Exact(0),
        bind: |a| bind_clock(a, "CURRENT_DATE", Clock::Date),
    },
    FunctionDef {
        opcode: CURRENT_TIME,
        name: "CURRENT_TIME",
        arity: Arity::Exact(0),
        bind: |a| bind_clock(a, "CURRENT_TIME", Clock::Time),
    },
    FunctionDef {
        opcode: LOCALTIME,
        name: "LOCALTIME",
        arity: Arity::Exact(0),
        bind: |a| bind_clock(a, "LOCALTIME", Clock::Time),
    },
    FunctionDef {
        opcode: NOW,
        name: "NOW",
        arity: Arity::Exact(0),
        bind: |a| bind_clock(a, "NOW", Clock::Instant),
    },
    FunctionDef {
        opcode: CURRENT_ROW_TIMESTAMP,
        name: "CURRENT_ROW_TIMESTAMP",
        arity: Arity::Exact(0),
        bind: |a| bind_clock(a, "CURRENT_ROW_TIMESTAMP", Clock::Instant),
    },
    FunctionDef {
        opcode: CONVERT_TZ,
        name: "CONVERT_TZ",
        arity: Arity::Exact(3),
        bind: bind_convert_tz,
    },
];

// ---------------------------------------------------------------------------------------------
// Argument helpers.

/// The unit named by literal argument `i`.
fn unit_arg(args: &Args<'_>, i: usize) -> Result<Unit, String> {
    let text = literal_text(args, i)
        .ok_or_else(|| format!("argument {} must be a time unit literal", i + 1))?;
    Unit::parse(&text).ok_or_else(|| format!("unknown time unit {text:?}"))
}

/// The text of string literal argument `i` (`None` if not a non-NULL string literal).
fn literal_text(args: &Args<'_>, i: usize) -> Option<String> {
    use datafusion::common::ScalarValue;
    match args.literal(i)? {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The session time zone of the binding program.
fn session_zone(args: &Args<'_>) -> Result<Zone, String> {
    Zone::parse(args.time_zone)
}

/// A pattern from literal argument `i` compiled once, or `None` when the argument is not a
/// literal (compiled per row). A literal pattern Java rejects binds (the job fails at run
/// time, as Flink's); one with letters not implemented natively does not bind.
fn literal_pattern(
    args: &Args<'_>,
    i: usize,
    dialect: Dialect,
) -> Result<Option<Result<Pattern, String>>, String> {
    match literal_text(args, i) {
        None => Ok(None),
        Some(text) => match Pattern::compile(&text, dialect) {
            Ok(p) => Ok(Some(Ok(p))),
            Err(PatternError::Invalid(msg)) => Ok(Some(Err(msg))),
            Err(PatternError::Unsupported(c)) => Err(format!(
                "pattern letter {c:?} of {text:?} is not supported natively"
            )),
        },
    }
}

/// The pattern for a row: the bound literal one, or `text` compiled now.
fn row_pattern<'p>(
    bound: &'p Option<Result<Pattern, String>>,
    text: Option<&str>,
    dialect: Dialect,
) -> DfResult<Option<Cow<'p, Pattern>>> {
    match bound {
        Some(Ok(p)) => Ok(Some(Cow::Borrowed(p))),
        Some(Err(msg)) => Err(fail(msg.clone())),
        None => match text {
            None => Ok(None),
            Some(t) => match Pattern::compile(t, dialect) {
                Ok(p) => Ok(Some(Cow::Owned(p))),
                Err(PatternError::Invalid(msg)) => Err(fail(msg)),
                Err(PatternError::Unsupported(c)) => Err(fail(format!(
                    "pattern letter {c:?} of {t:?} is not supported natively"
                ))),
            },
        },
    }
}

fn str_of<'a>(v: Option<In<'a>>) -> Option<&'a str> {
    match v {
        Some(In::Str(s)) => Some(s),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// EXTRACT and the date-part functions.

fn bind_extract(args: &Args<'_>) -> Result<Bound, String> {
    let unit = unit_arg(args, 0)?;
    let zone = session_zone(args)?;
    let kernel = extract_kernel("EXTRACT", &args.types[1], unit, zone)?;
    Ok(Bound {
        args: args.types.to_vec(),
        result: LogicalType::BigInt,
        kernel,
    })
}

fn bind_part(args: &Args<'_>, unit: Unit) -> Result<Bound, String> {
    let zone = session_zone(args)?;
    let kernel = extract_kernel("EXTRACT", &args.types[0], unit, zone)?;
    Ok(Bound {
        args: args.types.to_vec(),
        result: LogicalType::BigInt,
        kernel,
    })
}

/// How EXTRACT reads `unit` from a value of type `ty` (`ExtractCallGen`, with Calcite's
/// EPOCH rewrite).
fn extract_kernel(name: &str, ty: &LogicalType, unit: Unit, zone: Zone) -> Result<Kernel, String> {
    let ltz = matches!(ty, LogicalType::TimestampLtz(_));
    let check = move |v: Option<In<'_>>| -> Option<i64> {
        match v? {
            In::Date(d) => extract_date(unit, d),
            In::Time(t) => extract_millis(unit, i64::from(t), 0),
            In::Ts(ms, ns) => {
                let ms = if ltz { zone.to_local(ms) } else { ms };
                if unit.is_date_part() {
                    extract_from_date(unit, (ms / MILLIS_PER_DAY) as i32)
                } else {
                    extract_millis(unit, ms, ns)
                }
            }
            _ => None,
        }
    };
    match ty {
        LogicalType::Date => {
            if matches!(unit, Unit::Microsecond | Unit::Nanosecond) {
                return Err(format!("unit {unit:?} can not be applied to a DATE"));
            }
        }
        LogicalType::Time(_) => {
            if unit.is_date_part()
                || matches!(unit, Unit::Epoch | Unit::Microsecond | Unit::Nanosecond)
            {
                return Err(format!("unit {unit:?} can not be applied to a TIME"));
            }
        }
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => {}
        other => {
            return Err(format!(
                "EXTRACT needs a DATE, TIME or TIMESTAMP, not {other}"
            ));
        }
    }
    Ok(rowwise(name, &LogicalType::BigInt, true, move |row| {
        Ok(check(row[row.len() - 1]).map(Out::Int))
    }))
}

fn extract_date(unit: Unit, d: i32) -> Option<i64> {
    if unit.is_date_part() || unit == Unit::Epoch {
        extract_from_date(unit, d)
    } else {
        extract_millis(unit, i64::from(d), 0)
    }
}

/// The generic EXTRACT arithmetic on a long (`(v % factor) / multiplier`, Java `%` and `/`).
fn extract_millis(unit: Unit, v: i64, nanos: i32) -> Option<i64> {
    Some(match unit {
        Unit::Epoch => v / 1000,
        Unit::Microsecond => (v % 1000) * 1000 + i64::from(nanos / 1000),
        Unit::Nanosecond => (v % 1000) * 1_000_000 + i64::from(nanos),
        _ => {
            let factor = unit.extract_factor()?;
            let mult = unit.multiplier()?;
            if factor == 1 {
                v / mult
            } else {
                (v % factor) / mult
            }
        }
    })
}

// ---------------------------------------------------------------------------------------------
// FLOOR / CEIL.

/// Java's `SqlFunctions.floor(long, long)` / `ceil`.
fn floor_to(v: i64, m: i64, floor: bool) -> i64 {
    if floor {
        v - floor_mod(v, m)
    } else {
        let r = floor_mod(v, m);
        if r == 0 { v } else { v - r + m }
    }
}

fn is_calendar_unit(unit: Unit) -> bool {
    matches!(
        unit,
        Unit::Millennium
            | Unit::Century
            | Unit::Decade
            | Unit::Year
            | Unit::Quarter
            | Unit::Month
            | Unit::Week
    )
}

fn bind_floor_ceil(args: &Args<'_>, floor: bool) -> Result<Bound, String> {
    let unit = unit_arg(args, 1)?;
    let ty = args.types[0].clone();
    let zone = session_zone(args)?;
    let name = if floor { "FLOOR" } else { "CEIL" };
    let arithmetic = matches!(
        unit,
        Unit::Day | Unit::Hour | Unit::Minute | Unit::Second | Unit::Millisecond
    );
    if !is_calendar_unit(unit) && !arithmetic {
        return Err(format!("{name} can not round to {unit:?}"));
    }
    let mult = unit.multiplier().unwrap_or(1);
    let kernel = match ty {
        LogicalType::Date => {
            if !is_calendar_unit(unit) && unit != Unit::Day {
                return Err(format!("{name} of a DATE can not round to {unit:?}"));
            }
            rowwise(name, &ty, true, move |row| {
                let Some(In::Date(d)) = row[0] else {
                    return Ok(None);
                };
                // DAY too goes through the Julian-day floor (which shifts pre-1582 dates).
                let julian = d.wrapping_add(EPOCH_JULIAN);
                Ok(Some(Out::Date(
                    julian_date_floor(unit, julian, floor).unwrap_or(0) as i32,
                )))
            })
        }
        LogicalType::Timestamp(_) => rowwise(name, &ty, true, move |row| {
            let Some(In::Ts(ms, ns)) = row[0] else {
                return Ok(None);
            };
            let out = if is_calendar_unit(unit) {
                let date = (ms / MILLIS_PER_DAY) as i32;
                julian_date_floor(unit, date.wrapping_add(EPOCH_JULIAN), floor).unwrap_or(0)
                    * MILLIS_PER_DAY
            } else {
                // CEIL to MILLISECOND (only) counts the nanoseconds past the millisecond.
                let up = !floor && unit == Unit::Millisecond && ns > 0;
                floor_to(ms + i64::from(up), mult, floor)
            };
            Ok(Some(Out::Ts(out, 0)))
        }),
        LogicalType::TimestampLtz(_) => rowwise(name, &ty, true, move |row| {
            let Some(In::Ts(ms, _)) = row[0] else {
                return Ok(None);
            };
            let out = if is_calendar_unit(unit) || matches!(unit, Unit::Day | Unit::Hour) {
                // DateTimeUtils.timestampFloor / timestampCeil.
                let offset = zone.offset_at(ms);
                let local = ms.wrapping_add(offset);
                let floored = match unit {
                    Unit::Hour | Unit::Day => floor_to(local, mult, floor),
                    _ => {
                        let days = (local / MILLIS_PER_DAY + i64::from(EPOCH_JULIAN)) as i32;
                        julian_date_floor(unit, days, floor).unwrap_or(0) * MILLIS_PER_DAY
                    }
                };
                floored.wrapping_sub(offset)
            } else {
                floor_to(ms, mult, floor)
            };
            Ok(Some(Out::Ts(out, 0)))
        }),
        // `SqlFunctionUtils.floor|ceil((int) tm, (int) multiplier)`. Flink gives FLOOR(TIME TO
        // DAY) back unchanged, and the calendar units would read the milliseconds of the day
        // as a date: both refused.
        LogicalType::Time(_) if arithmetic && unit != Unit::Day => {
            rowwise(name, &ty, true, move |row| {
                let Some(In::Time(ms)) = row[0] else {
                    return Ok(None);
                };
                let out = floor_to(i64::from(ms), mult, floor);
                if out >= MILLIS_PER_DAY {
                    // Flink keeps 24:00:00 (86,400,000) as an int no TIME reader accepts.
                    return Err(fail(format!(
                        "{name}(TIME TO {unit:?}) of {ms} ms is midnight of the next day, outside \
                     TIME's range"
                    )));
                }
                Ok(Some(Out::Time(out as i32)))
            })
        }
        other => {
            return Err(format!(
                "{name}(... TO {unit:?}) needs a DATE, TIME or TIMESTAMP, not {other}"
            ));
        }
    };
    Ok(Bound {
        args: args.types.to_vec(),
        result: args.types[0].clone(),
        kernel,
    })
}

// ---------------------------------------------------------------------------------------------
// TIMESTAMPADD / TIMESTAMPDIFF.

fn bind_timestampadd(args: &Args<'_>) -> Result<Bound, String> {
    let unit = unit_arg(args, 0)?;
    if !is_integer(&args.types[1]) || matches!(args.types[1], LogicalType::BigInt) {
        return Err(format!(
            "TIMESTAMPADD needs an INT count, not {}",
            args.types[1]
        ));
    }
    let months = match unit {
        Unit::Year => Some(12),
        Unit::Quarter => Some(3),
        Unit::Month => Some(1),
        Unit::Week | Unit::Day | Unit::Hour | Unit::Minute | Unit::Second => None,
        other => return Err(format!("TIMESTAMPADD does not support unit {other:?}")),
    };
    let mult = unit.multiplier().unwrap_or(1);
    let ty = args.types[2].clone();
    let (result, input) = match ty {
        LogicalType::Date if months.is_some() || matches!(unit, Unit::Week | Unit::Day) => {
            (LogicalType::Date, LogicalType::Date)
        }
        // Calcite widens the DATE to a TIMESTAMP for sub-day units.
        LogicalType::Date => (LogicalType::Timestamp(6), LogicalType::Date),
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => (ty.clone(), ty.clone()),
        other => {
            return Err(format!(
                "TIMESTAMPADD needs a DATE or TIMESTAMP, not {other}"
            ));
        }
    };
    let kernel = rowwise("TIMESTAMPADD", &result, true, move |row| {
        let Some(In::Int(n)) = row[1] else {
            return Ok(None);
        };
        let n = n as i32;
        Ok(Some(match (row[2], months) {
            (Some(In::Date(d)), Some(m)) => Out::Date(add_months_date(d, n.wrapping_mul(m))),
            // Flink narrows the whole days with `Math.toIntExact` (a week count beyond
            // ±306783378 fails), then adds them with Java's wrapping `int` addition.
            (Some(In::Date(d)), None) if mult % MILLIS_PER_DAY == 0 => {
                let days = i32::try_from(i64::from(n) * (mult / MILLIS_PER_DAY)).map_err(|_| {
                    OutOfRange::new(format!("integer overflow: TIMESTAMPADD of {n} {unit:?}s"))
                })?;
                Out::Date(d.wrapping_add(days))
            }
            (Some(In::Date(d)), None) => Out::Ts(
                i64::from(d)
                    .wrapping_mul(MILLIS_PER_DAY)
                    .wrapping_add(i64::from(n).wrapping_mul(mult)),
                0,
            ),
            (Some(In::Ts(ms, ns)), Some(m)) => {
                Out::Ts(add_months_millis(ms, n.wrapping_mul(m)), ns)
            }
            (Some(In::Ts(ms, ns)), None) => {
                Out::Ts(ms.wrapping_add(i64::from(n).wrapping_mul(mult)), ns)
            }
            _ => return Ok(None),
        }))
    });
    Ok(Bound {
        args: vec![args.types[0].clone(), LogicalType::Int, input],
        result,
        kernel,
    })
}

fn bind_timestampdiff(args: &Args<'_>) -> Result<Bound, String> {
    let unit = unit_arg(args, 0)?;
    let months = match unit {
        Unit::Year | Unit::Quarter | Unit::Month => true,
        Unit::Week | Unit::Day | Unit::Hour | Unit::Minute | Unit::Second | Unit::Millisecond => {
            false
        }
        other => {
            return Err(format!(
                "Unit '{other:?}' can not be applied to the timestamp difference function."
            ));
        }
    };
    for t in &args.types[1..] {
        if !matches!(
            t,
            LogicalType::Date | LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_)
        ) {
            return Err(format!("TIMESTAMPDIFF needs DATEs or TIMESTAMPs, not {t}"));
        }
    }
    let mult = unit.multiplier().unwrap_or(1);
    let kernel = rowwise("TIMESTAMPDIFF", &LogicalType::Int, true, move |row| {
        // TIMESTAMPDIFF(unit, a, b) is b - a.
        let millis = |v: Option<In<'_>>| match v {
            Some(In::Date(d)) => i64::from(d).wrapping_mul(MILLIS_PER_DAY),
            Some(In::Ts(ms, _)) => ms,
            _ => 0,
        };
        let (a, b) = (row[1], row[2]);
        let out = if months {
            let m = match (b, a) {
                (Some(In::Date(l)), Some(In::Date(r))) => subtract_months_date(l, r),
                _ => subtract_months_millis(millis(b), millis(a)),
            };
            i64::from(m / mult as i32)
        } else if matches!(unit, Unit::Millisecond | Unit::Week) {
            // Calcite rewrites these through TIMESTAMPDIFF(SECOND, ...), an `int`: the
            // difference's milliseconds are dropped and a large one wraps first.
            let seconds = (millis(b).wrapping_sub(millis(a)) / 1000) as i32;
            i64::from(if unit == Unit::Week {
                seconds / 604_800
            } else {
                seconds.wrapping_mul(1000)
            })
        } else {
            i64::from((millis(b).wrapping_sub(millis(a)) / mult) as i32)
        };
        Ok(Some(Out::Int(out)))
    });
    Ok(Bound {
        args: args.types.to_vec(),
        result: LogicalType::Int,
        kernel,
    })
}

// ---------------------------------------------------------------------------------------------
// Formatting and parsing.

const DEFAULT_FORMAT: &str = "yyyy-MM-dd HH:mm:ss";

fn bind_date_format(args: &Args<'_>) -> Result<Bound, String> {
    if !is_string(&args.types[1]) {
        return Err(format!(
            "the format must be a string, not {}",
            args.types[1]
        ));
    }
    let zone = session_zone(args)?;
    let result = LogicalType::VarChar(i32::MAX as u32);
    let kernel = match &args.types[0] {
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => {
            let ltz = matches!(args.types[0], LogicalType::TimestampLtz(_));
            let pattern = literal_pattern(args, 1, Dialect::DateTimeFormatter)?;
            rowwise("DATE_FORMAT", &result, true, move |row| {
                let Some(In::Ts(ms, ns)) = row[0] else {
                    return Ok(None);
                };
                let Some(p) = row_pattern(&pattern, str_of(row[1]), Dialect::DateTimeFormatter)?
                else {
                    return Ok(None);
                };
                let local = if ltz { zone.to_local_java_time(ms) } else { ms };
                Ok(Some(Out::Str(p.format(local, ns))))
            })
        }
        t if is_string(t) => {
            let from = Pattern::compile(DEFAULT_FORMAT, Dialect::SimpleDateFormat)
                .map_err(|e| format!("{e:?}"))?;
            let pattern = literal_pattern(args, 1, Dialect::SimpleDateFormat)?;
            rowwise("DATE_FORMAT", &result, true, move |row| {
                let Some(text) = str_of(row[0]) else {
                    return Ok(None);
                };
                let Some(p) = row_pattern(&pattern, str_of(row[1]), Dialect::SimpleDateFormat)?
                else {
                    return Ok(None);
                };
                // Parsed and formatted in the same zone: the wall clock passes through.
                Ok(from.parse(text).map(|(ms, _)| Out::Str(p.format(ms, 0))))
            })
        }
        other => {
            return Err(format!(
                "DATE_FORMAT needs a TIMESTAMP or a string, not {other}"
            ));
        }
    };
    Ok(Bound {
        args: args.types.to_vec(),
        result,
        kernel,
    })
}

fn bind_from_unixtime(args: &Args<'_>) -> Result<Bound, String> {
    if !is_integer(&args.types[0]) {
        return Err(format!(
            "FROM_UNIXTIME needs an integer, not {}",
            args.types[0]
        ));
    }
    if args.types.len() == 2 && !is_string(&args.types[1]) {
        return Err(format!(
            "the format must be a string, not {}",
            args.types[1]
        ));
    }
    let zone = session_zone(args)?;
    let default = Pattern::compile(DEFAULT_FORMAT, Dialect::SimpleDateFormat)
        .map_err(|e| format!("{e:?}"))?;
    let pattern = if args.types.len() == 2 {
        literal_pattern(args, 1, Dialect::SimpleDateFormat)?
    } else {
        Some(Ok(default))
    };
    let result = LogicalType::VarChar(i32::MAX as u32);
    let kernel = rowwise("FROM_UNIXTIME", &result, true, move |row| {
        let Some(In::Int(s)) = row[0] else {
            return Ok(None);
        };
        let Some(p) = row_pattern(
            &pattern,
            row.get(1).copied().and_then(str_of),
            Dialect::SimpleDateFormat,
        )?
        else {
            return Ok(None);
        };
        let ms = s.wrapping_mul(1000);
        Ok(Some(Out::Str(p.format(zone.to_local(ms), 0))))
    });
    Ok(Bound {
        args: vec![LogicalType::BigInt]
            .into_iter()
            .chain(args.types.get(1).cloned())
            .collect(),
        result,
        kernel,
    })
}

fn bind_unix_timestamp(args: &Args<'_>) -> Result<Bound, String> {
    let zone = session_zone(args)?;
    if args.types.is_empty() {
        return Ok(Bound {
            args: vec![],
            result: LogicalType::BigInt,
            kernel: rowwise("UNIX_TIMESTAMP", &LogicalType::BigInt, false, |_| {
                Ok(Some(Out::Int(now_millis() / 1000)))
            }),
        });
    }
    for t in args.types {
        if !is_string(t) {
            return Err(format!("UNIX_TIMESTAMP needs strings, not {t}"));
        }
    }
    let pattern = if args.types.len() == 2 {
        literal_pattern(args, 1, Dialect::SimpleDateFormat)?
    } else {
        Some(
            Pattern::compile(DEFAULT_FORMAT, Dialect::SimpleDateFormat)
                .map_err(|e| format!("{e:?}")),
        )
    };
    let kernel = rowwise("UNIX_TIMESTAMP", &LogicalType::BigInt, true, move |row| {
        let Some(text) = str_of(row[0]) else {
            return Ok(None);
        };
        let Some(p) = row_pattern(
            &pattern,
            row.get(1).copied().and_then(str_of),
            Dialect::SimpleDateFormat,
        )?
        else {
            return Ok(None);
        };
        // DateTimeUtils.unixTimestamp: Long.MIN_VALUE when the text does not parse.
        Ok(Some(Out::Int(match p.parse(text) {
            Some((local, _)) => zone.to_instant(local) / 1000,
            None => i64::MIN,
        })))
    });
    Ok(Bound {
        args: args.types.to_vec(),
        result: LogicalType::BigInt,
        kernel,
    })
}

/// A zone as `java.util.TimeZone.getTimeZone(id)` reads it, where native zones read the id
/// alike: a region (`Asia/Shanghai`), `UTC`, `GMT` or `GMT±h[h][:mm]`. Java reads any other
/// id (`+08:00`, `UTC+8`, an unknown region) as GMT, which is refused here, not guessed.
fn java_util_zone(id: &str) -> Result<Zone, String> {
    let custom = id
        .strip_prefix("GMT")
        .is_some_and(|rest| rest.starts_with(['+', '-']));
    if id == "UTC" || id == "GMT" || custom || id.contains('/') {
        return Zone::parse(id);
    }
    Err(format!(
        "time zone id {id:?} is read by java.util.TimeZone, which takes it as GMT"
    ))
}

fn bind_convert_tz(args: &Args<'_>) -> Result<Bound, String> {
    for t in args.types {
        if !is_string(t) {
            return Err(format!("CONVERT_TZ needs strings, not {t}"));
        }
    }
    let literal_zone = |i: usize| {
        literal_text(args, i)
            .map(|id| java_util_zone(&id))
            .transpose()
    };
    let (from, to) = (literal_zone(1)?, literal_zone(2)?);
    let pattern = Pattern::compile(DEFAULT_FORMAT, Dialect::SimpleDateFormat)
        .map_err(|e| format!("{e:?}"))?;
    let result = LogicalType::VarChar(i32::MAX as u32);
    let kernel = rowwise("CONVERT_TZ", &result, true, move |row| {
        let (Some(text), Some(from_id), Some(to_id)) =
            (str_of(row[0]), str_of(row[1]), str_of(row[2]))
        else {
            return Ok(None);
        };
        let zone = |bound: Option<Zone>, id: &str| match bound {
            Some(z) => Ok(z),
            None => java_util_zone(id).map_err(fail),
        };
        let (from, to) = (zone(from, from_id)?, zone(to, to_id)?);
        let Some((local, _)) = pattern.parse(text) else {
            return Ok(None);
        };
        let instant = from.to_instant(local);
        Ok(Some(Out::Str(pattern.format(to.to_local(instant), 0))))
    });
    Ok(Bound {
        args: args.types.to_vec(),
        result,
        kernel,
    })
}

/// `DateTimeUtils.parseTimestampData(String)`: `yyyy-[M]M-[d]d[ [H]H:[m]m:[s]s[.fraction]]`,
/// the fraction truncated to `precision` digits.
pub(crate) fn parse_default_timestamp(s: &str, precision: u32) -> Option<(i64, i32)> {
    let p = Pattern::compile("yyyy-M-d", Dialect::DateTimeFormatter).ok()?;
    let (date, time) = match s.split_once(' ') {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let (days_ms, _) = p.parse(date)?;
    let check = |part: &str, max: i64| -> Option<i64> {
        if part.is_empty() || part.len() > 2 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: i64 = part.parse().ok()?;
        (v <= max).then_some(v)
    };
    let mut ms = days_ms;
    let mut nanos = 0i64;
    if let Some(t) = time {
        let (hms, frac) = match t.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (t, None),
        };
        let mut parts = hms.split(':');
        // The SMART resolver takes 24:00:00 (nothing finer) as the next midnight.
        let h = check(parts.next()?, 24)?;
        let m = check(parts.next()?, 59)?;
        let sec = check(parts.next()?, 59)?;
        if parts.next().is_some() {
            return None;
        }
        if h == 24 && (m != 0 || sec != 0 || frac.is_some_and(|f| f.bytes().any(|b| b != b'0'))) {
            return None;
        }
        if let Some(f) = frac {
            if f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let digits = format!("{f:0<9}");
            nanos = digits.parse().ok()?;
            let keep = 10i64.pow(9 - precision);
            nanos = nanos / keep * keep;
        }
        ms += h * 3_600_000 + m * 60_000 + sec * 1000 + nanos / 1_000_000;
    }
    Some((ms, (nanos % 1_000_000) as i32))
}

/// Java's `Integer.parseInt`: an optional sign and decimal digits within `int`.
fn java_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: i64 = s.parse().ok()?;
    i32::try_from(v).ok().map(i64::from)
}

/// Local epoch milliseconds of a lenient date and time as the deprecated `java.util.Date`
/// constructors normalise it and `toLocalDate`/`toLocalDateTime` read it back: `month`
/// 1..=12, any day, hour, minute and second (they roll over), in `GregorianCalendar`'s
/// hybrid calendar. Fields before the Gregorian reform are Julian, and a day in the ten the
/// reform removed (1582-10-05..14) is read as Julian, ten days later. The fields read back are
/// then taken as ISO ones (`LocalDateTime.of`). `None` where Java's fields are no ISO date
/// (a Julian February 29 of 1500 and the like), where Java fails the row instead.
fn lenient_millis(year: i64, month: i64, day: i64, hms: [i64; 3]) -> Option<i64> {
    const CUTOVER: i64 = GREGORIAN_CUTOVER_DAY;
    let fixed = hybrid_calendar_day(i32::try_from(year).ok()?, month as i32, day);
    let time = hms[0] * 3_600_000 + hms[1] * 60_000 + hms[2] * 1000;
    let millis = fixed * MILLIS_PER_DAY + time;
    let epoch_day = floor_div(millis, MILLIS_PER_DAY);
    if epoch_day >= CUTOVER {
        return Some(millis);
    }
    // Read back in the Julian calendar, then taken as ISO fields.
    let (y, m, d) = julian_calendar_fields(epoch_day);
    let y = i32::try_from(y).ok()?;
    if d > i64::from(last_day(y, m as i32)) {
        return None;
    }
    let iso = i64::from(ymd_to_unix_date(y, m as i32, d as i32));
    Some(iso * MILLIS_PER_DAY + floor_mod(millis, MILLIS_PER_DAY))
}

/// `java.sql.Date.valueOf`: `yyyy-[m]m-[d]d`, month 1..12 and day 1..31, normalised
/// leniently (`2024-02-30` is March 1).
fn java_sql_date(s: &str) -> Option<i64> {
    let d1 = s.find('-')?;
    let d2 = s[d1 + 1..].find('-')? + d1 + 1;
    let len = s.len();
    if d1 != 4 || !(2..=3).contains(&(d2 - d1)) || !(2..=3).contains(&(len - d2)) {
        return None;
    }
    let (y, m, d) = (
        java_int(&s[..d1])?,
        java_int(&s[d1 + 1..d2])?,
        java_int(&s[d2 + 1..])?,
    );
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    lenient_millis(y, m, d, [0, 0, 0])
}

/// `java.sql.Timestamp.valueOf`: `yyyy-[m]m-[d]d h:m:s[.fraction]` (1–9 fraction digits),
/// normalised leniently.
fn java_sql_timestamp(s: &str) -> Option<(i64, i32)> {
    let (date, time) = s.split_once(' ')?;
    let d1 = date.find('-')?;
    let d2 = date[d1 + 1..].find('-')? + d1 + 1;
    if d1 == 0 || d2 + 1 >= date.len() {
        return None;
    }
    let (yy, mm, dd) = (&date[..d1], &date[d1 + 1..d2], &date[d2 + 1..]);
    if yy.len() != 4 || !(1..=2).contains(&mm.len()) || !(1..=2).contains(&dd.len()) {
        return None;
    }
    let (y, m, d) = (java_int(yy)?, java_int(mm)?, java_int(dd)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let c1 = time.find(':')?;
    let c2 = time[c1 + 1..].find(':')? + c1 + 1;
    if c1 == 0 || c2 + 1 >= time.len() {
        return None;
    }
    let (h, mi) = (java_int(&time[..c1])?, java_int(&time[c1 + 1..c2])?);
    let (sec, nanos) = match time[c2 + 1..].find('.').map(|p| p + c2 + 1) {
        Some(p) if p + 1 < time.len() => {
            let frac = &time[p + 1..];
            if frac.len() > 9 || !frac.starts_with(|c: char| c.is_ascii_digit()) {
                return None;
            }
            (
                java_int(&time[c2 + 1..p])?,
                java_int(frac)? * 10i64.pow(9 - frac.len() as u32),
            )
        }
        Some(_) => return None,
        None => (java_int(&time[c2 + 1..])?, 0),
    };
    let ms = lenient_millis(y, m, d, [h, mi, sec])? + floor_div(nanos, 1_000_000);
    Some((ms, floor_mod(nanos, 1_000_000) as i32))
}

/// `DateTimeUtils.parseTimestampData(String, String)` (TO_TIMESTAMP with a format): the
/// pattern, else `Timestamp.valueOf` (text with a space) or `Date.valueOf`, else NULL; the
/// result at millisecond precision.
fn parse_with_format(p: &Pattern, text: &str) -> Option<(i64, i32)> {
    if let Some((ms, _)) = p.parse(text) {
        return Some((ms, 0));
    }
    let t = text.trim_matches(|c: char| c <= ' ');
    if t.contains(' ') {
        java_sql_timestamp(t).map(|(ms, _)| (ms, 0))
    } else {
        java_sql_date(t).map(|ms| (ms, 0))
    }
}

fn bind_to_timestamp(args: &Args<'_>) -> Result<Bound, String> {
    for t in args.types {
        if !is_string(t) {
            return Err(format!("TO_TIMESTAMP needs strings, not {t}"));
        }
    }
    let result = LogicalType::Timestamp(3);
    let pattern = if args.types.len() == 2 {
        literal_pattern(args, 1, Dialect::DateTimeFormatter)?
    } else {
        None
    };
    let with_format = args.types.len() == 2;
    let kernel = rowwise("TO_TIMESTAMP", &result, true, move |row| {
        let Some(text) = str_of(row[0]) else {
            return Ok(None);
        };
        if !with_format {
            return Ok(parse_default_timestamp(text, 3).map(|(ms, ns)| Out::Ts(ms, ns)));
        }
        let Some(p) = row_pattern(&pattern, str_of(row[1]), Dialect::DateTimeFormatter)? else {
            return Ok(None);
        };
        Ok(parse_with_format(&p, text).map(|(ms, ns)| Out::Ts(ms, ns)))
    });
    Ok(Bound {
        args: args.types.to_vec(),
        result,
        kernel,
    })
}

fn bind_to_timestamp_ltz(args: &Args<'_>) -> Result<Bound, String> {
    let result = LogicalType::TimestampLtz(3);
    if is_string(&args.types[0]) {
        if args.types.len() == 2 && !is_string(&args.types[1]) {
            return Err(format!(
                "the format must be a string, not {}",
                args.types[1]
            ));
        }
        let pattern = if args.types.len() == 2 {
            literal_pattern(args, 1, Dialect::DateTimeFormatter)?
        } else {
            None
        };
        let with_format = args.types.len() == 2;
        let kernel = rowwise("TO_TIMESTAMP_LTZ", &result, true, move |row| {
            let Some(text) = str_of(row[0]) else {
                return Ok(None);
            };
            let parsed = if with_format {
                let Some(p) = row_pattern(&pattern, str_of(row[1]), Dialect::DateTimeFormatter)?
                else {
                    return Ok(None);
                };
                parse_with_format(&p, text)
            } else {
                // Without a format an unparsable string fails the job.
                Some(
                    parse_default_timestamp(text, 3).ok_or_else(|| {
                        fail(format!("Text '{text}' could not be parsed at index 0"))
                    })?,
                )
            };
            // Read as UTC whatever the session zone (ToTimestampLtzFunction's default zone).
            Ok(parsed.map(|(ms, ns)| Out::Ts(ms, ns)))
        });
        return Ok(Bound {
            args: args.types.to_vec(),
            result,
            kernel,
        });
    }
    let precision = if args.types.len() == 2 {
        if !is_integer(&args.types[1]) {
            return Err(format!(
                "the precision must be an integer, not {}",
                args.types[1]
            ));
        }
        match literal_text_any(args, 1) {
            Some(p) if p == "0" || p == "3" => p.parse::<u8>().unwrap_or(3),
            Some(p) => {
                return Err(format!(
                    "The precision value '{p}' for function TO_TIMESTAMP_LTZ(numeric, precision) is unsupported, the supported value is '0' for second or '3' for millisecond."
                ));
            }
            None => return Err("the precision must be a literal".into()),
        }
    } else {
        3
    };
    let numeric = &args.types[0];
    if !is_integer(numeric)
        && !matches!(
            numeric,
            LogicalType::Float | LogicalType::Double | LogicalType::Decimal { .. }
        )
    {
        return Err(format!(
            "TO_TIMESTAMP_LTZ needs a number or a string, not {numeric}"
        ));
    }
    const MIN_MILLIS: i64 = -62_167_219_200_000;
    const MAX_MILLIS: i64 = 253_402_300_799_999;
    let kernel = rowwise("TO_TIMESTAMP_LTZ", &result, true, move |row| {
        let in_range = |ms: i64| {
            (MIN_MILLIS..=MAX_MILLIS)
                .contains(&ms)
                .then_some(Out::Ts(ms, 0))
        };
        Ok(match row[0] {
            Some(In::Int(v)) if precision == 0 => {
                if (MIN_MILLIS / 1000..=MAX_MILLIS / 1000).contains(&v) {
                    in_range(v * 1000)
                } else {
                    None
                }
            }
            Some(In::Int(v)) => in_range(v),
            // ToTimestampLtzFunction floors a double's milliseconds (NaN reads as 0) and
            // range-checks the result.
            Some(In::Double(v)) if precision == 0 => in_range((v * 1000.0).floor() as i64),
            Some(In::Double(v)) => in_range(v.floor() as i64),
            Some(In::Decimal(u, s)) => {
                let whole = u / 10i128.pow(u32::from(s as u8));
                let whole =
                    i64::try_from(whole).unwrap_or(if whole < 0 { i64::MIN } else { i64::MAX });
                if precision == 0 {
                    in_range(whole.wrapping_mul(1000))
                } else {
                    in_range(whole)
                }
            }
            _ => None,
        })
    });
    Ok(Bound {
        args: args.types.to_vec(),
        result,
        kernel,
    })
}

/// The text of any non-NULL literal argument `i`.
fn literal_text_any(args: &Args<'_>, i: usize) -> Option<String> {
    args.literal(i)
        .filter(|v| !v.is_null())
        .map(ToString::to_string)
}

fn bind_to_date(args: &Args<'_>) -> Result<Bound, String> {
    for t in args.types {
        if !is_string(t) {
            return Err(format!("TO_DATE needs strings, not {t}"));
        }
    }
    let pattern = if args.types.len() == 2 {
        literal_pattern(args, 1, Dialect::SimpleDateFormat)?
    } else {
        None
    };
    let with_format = args.types.len() == 2;
    let kernel = rowwise("TO_DATE", &LogicalType::Date, true, move |row| {
        let Some(text) = str_of(row[0]) else {
            return Ok(None);
        };
        if !with_format {
            return Ok(parse_date(text)
                .map_err(|e| fail(format!("TO_DATE: {e}")))?
                .map(Out::Date));
        }
        let Some(p) = row_pattern(&pattern, str_of(row[1]), Dialect::SimpleDateFormat)? else {
            return Ok(None);
        };
        // DateTimeUtils.parseDate(String, String): a failed parse reads as Long.MIN_VALUE
        // milliseconds, whose UTC date Flink returns.
        Ok(Some(Out::Date(match p.parse(text) {
            Some((ms, _)) => floor_div(ms, MILLIS_PER_DAY) as i32,
            // Instant.ofEpochMilli(Long.MIN_VALUE) is -292275055-05-16 (UTC), whose
            // ymdToUnixDate overflows Java's int arithmetic as here.
            None => ymd_to_unix_date(-292_275_055, 5, 16),
        })))
    });
    Ok(Bound {
        args: args.types.to_vec(),
        result: LogicalType::Date,
        kernel,
    })
}

// ---------------------------------------------------------------------------------------------
// The clock.

#[derive(Debug, Clone, Copy)]
enum Clock {
    Instant,
    LocalTimestamp,
    Date,
    Time,
}

/// Milliseconds since the epoch now (`System.currentTimeMillis`).
fn now_millis() -> i64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

fn bind_clock(args: &Args<'_>, name: &str, clock: Clock) -> Result<Bound, String> {
    let zone = session_zone(args)?;
    let result = match clock {
        Clock::Instant => LogicalType::TimestampLtz(3),
        Clock::LocalTimestamp => LogicalType::Timestamp(3),
        Clock::Date => LogicalType::Date,
        Clock::Time => LogicalType::Time(0),
    };
    let kernel = rowwise(name, &result, false, move |_| {
        let now = now_millis();
        let local = zone.to_local(now);
        Ok(Some(match clock {
            Clock::Instant => Out::Ts(now, 0),
            Clock::LocalTimestamp => Out::Ts(local, 0),
            Clock::Date => Out::Date(floor_div(local, MILLIS_PER_DAY) as i32),
            Clock::Time => Out::Time(floor_mod(local, MILLIS_PER_DAY) as i32),
        }))
    });
    Ok(Bound {
        args: vec![],
        result,
        kernel,
    })
}

#[cfg(test)]
#[path = "temporal_tests.rs"]
mod tests;
