//! Reading temporal kernels' arguments and writing their results row by row, and the session
//! time zone (`java.util.TimeZone` semantics over chrono-tz).

use std::str::FromStr;
use std::sync::Arc;

use arrow::array::timezone::Tz;
use arrow::array::{
    Array, ArrayRef, AsArray, Date32Builder, DurationMillisecondBuilder, Int32Builder,
    Int64Builder, IntervalYearMonthBuilder, StringBuilder, Time32MillisecondBuilder,
    TimestampMicrosecondBuilder, TimestampMillisecondBuilder, TimestampNanosecondBuilder,
};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, DurationMillisecondType, Float32Type, Float64Type,
    Int8Type, Int16Type, Int32Type, Int64Type, IntervalUnit, IntervalYearMonthType,
    Time32MillisecondType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use chrono::{DateTime, LocalResult, NaiveDateTime, Offset, TimeZone};
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;

use crate::calc::range;
use crate::calc::registry::Kernel;
use crate::types::LogicalType;

use super::temporal_calendar::{
    MILLIS_PER_DAY, civil_from_days, days_from_civil, floor_div, floor_mod,
};
use super::util::{arrays, fail, result};

/// One argument value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum In<'a> {
    /// Any integer type, or an interval: INTERVAL YEAR TO MONTH's months, INTERVAL DAY TO
    /// SECOND's milliseconds.
    Int(i64),
    /// FLOAT or DOUBLE.
    Double(f64),
    /// A DECIMAL's unscaled value and scale.
    Decimal(i128, i8),
    /// CHAR or VARCHAR.
    Str(&'a str),
    /// DATE: days since 1970-01-01.
    Date(i32),
    /// TIME: milliseconds of the day.
    Time(i32),
    /// TIMESTAMP or TIMESTAMP_LTZ as Flink's `TimestampData`: epoch milliseconds (floor) and
    /// nanoseconds of that millisecond.
    Ts(i64, i32),
}

/// One result value (its kind matches the bound result type).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Out {
    /// BIGINT or INT, or an interval's months or milliseconds.
    Int(i64),
    /// STRING.
    Str(String),
    /// DATE.
    Date(i32),
    /// TIME.
    Time(i32),
    /// TIMESTAMP or TIMESTAMP_LTZ: epoch milliseconds and nanoseconds of the millisecond.
    Ts(i64, i32),
}

/// A column's values, typed once per batch.
enum Column<'a> {
    Int8(&'a arrow::array::PrimitiveArray<Int8Type>),
    Int16(&'a arrow::array::PrimitiveArray<Int16Type>),
    Int32(&'a arrow::array::PrimitiveArray<Int32Type>),
    Int64(&'a arrow::array::PrimitiveArray<Int64Type>),
    Float32(&'a arrow::array::PrimitiveArray<Float32Type>),
    Float64(&'a arrow::array::PrimitiveArray<Float64Type>),
    Decimal(&'a arrow::array::PrimitiveArray<Decimal128Type>, i8),
    Utf8(&'a arrow::array::StringArray),
    Date(&'a arrow::array::PrimitiveArray<Date32Type>),
    Time(&'a arrow::array::PrimitiveArray<Time32MillisecondType>),
    Millis(&'a arrow::array::PrimitiveArray<TimestampMillisecondType>),
    Micros(&'a arrow::array::PrimitiveArray<TimestampMicrosecondType>),
    Nanos(&'a arrow::array::PrimitiveArray<TimestampNanosecondType>),
    Months(&'a arrow::array::PrimitiveArray<IntervalYearMonthType>),
    Duration(&'a arrow::array::PrimitiveArray<DurationMillisecondType>),
}

impl<'a> Column<'a> {
    fn new(a: &'a ArrayRef) -> DfResult<Self> {
        Ok(match a.data_type() {
            DataType::Int8 => Column::Int8(a.as_primitive()),
            DataType::Int16 => Column::Int16(a.as_primitive()),
            DataType::Int32 => Column::Int32(a.as_primitive()),
            DataType::Int64 => Column::Int64(a.as_primitive()),
            DataType::Float32 => Column::Float32(a.as_primitive()),
            DataType::Float64 => Column::Float64(a.as_primitive()),
            DataType::Decimal128(_, s) => Column::Decimal(a.as_primitive(), *s),
            DataType::Utf8 => Column::Utf8(a.as_string()),
            DataType::Date32 => Column::Date(a.as_primitive()),
            DataType::Time32(TimeUnit::Millisecond) => Column::Time(a.as_primitive()),
            DataType::Timestamp(TimeUnit::Millisecond, _) => Column::Millis(a.as_primitive()),
            DataType::Timestamp(TimeUnit::Microsecond, _) => Column::Micros(a.as_primitive()),
            DataType::Timestamp(TimeUnit::Nanosecond, _) => Column::Nanos(a.as_primitive()),
            DataType::Interval(IntervalUnit::YearMonth) => Column::Months(a.as_primitive()),
            DataType::Duration(TimeUnit::Millisecond) => Column::Duration(a.as_primitive()),
            other => {
                return Err(fail(format!(
                    "temporal function: unexpected argument {other}"
                )));
            }
        })
    }

    fn get(&self, i: usize) -> Option<In<'a>> {
        macro_rules! v {
            ($a:expr, $f:expr) => {
                if $a.is_null(i) {
                    None
                } else {
                    Some($f($a.value(i)))
                }
            };
        }
        match self {
            Column::Int8(a) => v!(a, |x: i8| In::Int(x.into())),
            Column::Int16(a) => v!(a, |x: i16| In::Int(x.into())),
            Column::Int32(a) => v!(a, |x: i32| In::Int(x.into())),
            Column::Int64(a) => v!(a, In::Int),
            Column::Float32(a) => v!(a, |x: f32| In::Double(x.into())),
            Column::Float64(a) => v!(a, In::Double),
            Column::Decimal(a, s) => v!(a, |x| In::Decimal(x, *s)),
            Column::Utf8(a) => v!(a, In::Str),
            Column::Date(a) => v!(a, In::Date),
            Column::Time(a) => v!(a, In::Time),
            Column::Millis(a) => v!(a, |x| In::Ts(x, 0)),
            Column::Micros(a) => v!(a, |x: i64| In::Ts(
                floor_div(x, 1000),
                floor_mod(x, 1000) as i32 * 1000
            )),
            Column::Nanos(a) => v!(a, |x: i64| In::Ts(
                floor_div(x, 1_000_000),
                floor_mod(x, 1_000_000) as i32
            )),
            Column::Months(a) => v!(a, |x: i32| In::Int(x.into())),
            Column::Duration(a) => v!(a, In::Int),
        }
    }
}

/// A builder for the result type.
enum Sink {
    Int64(Int64Builder),
    Int32(Int32Builder),
    Str(StringBuilder),
    Date(Date32Builder),
    Time(Time32MillisecondBuilder),
    Millis(TimestampMillisecondBuilder, Option<Arc<str>>),
    Micros(TimestampMicrosecondBuilder, Option<Arc<str>>),
    Nanos(TimestampNanosecondBuilder, Option<Arc<str>>),
    Months(IntervalYearMonthBuilder),
    Duration(DurationMillisecondBuilder),
}

impl Sink {
    fn new(ty: &LogicalType, n: usize) -> DfResult<Self> {
        Ok(match ty.to_arrow() {
            DataType::Int64 => Sink::Int64(Int64Builder::with_capacity(n)),
            DataType::Int32 => Sink::Int32(Int32Builder::with_capacity(n)),
            DataType::Utf8 => Sink::Str(StringBuilder::with_capacity(n, n * 20)),
            DataType::Date32 => Sink::Date(Date32Builder::with_capacity(n)),
            DataType::Time32(_) => Sink::Time(Time32MillisecondBuilder::with_capacity(n)),
            DataType::Timestamp(TimeUnit::Millisecond, tz) => {
                Sink::Millis(TimestampMillisecondBuilder::with_capacity(n), tz)
            }
            DataType::Timestamp(TimeUnit::Microsecond, tz) => {
                Sink::Micros(TimestampMicrosecondBuilder::with_capacity(n), tz)
            }
            DataType::Timestamp(TimeUnit::Nanosecond, tz) => {
                Sink::Nanos(TimestampNanosecondBuilder::with_capacity(n), tz)
            }
            DataType::Interval(IntervalUnit::YearMonth) => {
                Sink::Months(IntervalYearMonthBuilder::with_capacity(n))
            }
            DataType::Duration(TimeUnit::Millisecond) => {
                Sink::Duration(DurationMillisecondBuilder::with_capacity(n))
            }
            other => {
                return Err(fail(format!(
                    "temporal function: no result of type {other}"
                )));
            }
        })
    }

    fn push(&mut self, v: Option<Out>) -> DfResult<()> {
        let wrong = |v: &Out| fail(format!("temporal function: result {v:?} of the wrong kind"));
        match (self, v) {
            (Sink::Int64(b), None) => b.append_null(),
            (Sink::Int32(b), None) => b.append_null(),
            (Sink::Str(b), None) => b.append_null(),
            (Sink::Date(b), None) => b.append_null(),
            (Sink::Time(b), None) => b.append_null(),
            (Sink::Millis(b, _), None) => b.append_null(),
            (Sink::Micros(b, _), None) => b.append_null(),
            (Sink::Nanos(b, _), None) => b.append_null(),
            (Sink::Months(b), None) => b.append_null(),
            (Sink::Duration(b), None) => b.append_null(),
            (Sink::Int64(b), Some(Out::Int(x))) => b.append_value(x),
            (Sink::Int32(b), Some(Out::Int(x))) => b.append_value(x as i32),
            (Sink::Months(b), Some(Out::Int(x))) => b.append_value(x as i32),
            (Sink::Duration(b), Some(Out::Int(x))) => b.append_value(x),
            (Sink::Str(b), Some(Out::Str(s))) => b.append_value(s),
            // Flink's value is written only inside the type's range and carrier.
            (Sink::Date(b), Some(Out::Date(d))) => b.append_value(range::date(d.into())?),
            (Sink::Time(b), Some(Out::Time(t))) => b.append_value(range::time(t.into())?),
            (Sink::Millis(b, _), Some(Out::Ts(ms, ns))) => b.append_value(range::millis(ms, ns)?),
            (Sink::Micros(b, _), Some(Out::Ts(ms, ns))) => b.append_value(range::micros(ms, ns)?),
            (Sink::Nanos(b, _), Some(Out::Ts(ms, ns))) => b.append_value(range::nanos(ms, ns)?),
            (_, Some(v)) => return Err(wrong(&v)),
        }
        Ok(())
    }

    fn finish(self) -> ArrayRef {
        match self {
            Sink::Int64(mut b) => Arc::new(b.finish()),
            Sink::Int32(mut b) => Arc::new(b.finish()),
            Sink::Str(mut b) => Arc::new(b.finish()),
            Sink::Date(mut b) => Arc::new(b.finish()),
            Sink::Time(mut b) => Arc::new(b.finish()),
            Sink::Millis(mut b, tz) => Arc::new(b.finish().with_timezone_opt(tz)),
            Sink::Micros(mut b, tz) => Arc::new(b.finish().with_timezone_opt(tz)),
            Sink::Nanos(mut b, tz) => Arc::new(b.finish().with_timezone_opt(tz)),
            Sink::Months(mut b) => Arc::new(b.finish()),
            Sink::Duration(mut b) => Arc::new(b.finish()),
        }
    }
}

/// A kernel computing `f` row by row. `f` sees every argument (NULLs as `None`); with
/// `strict`, rows with any NULL argument are NULL without calling `f` (Flink's
/// `generateCallIfArgsNotNull`).
pub(super) fn rowwise(
    name: &str,
    result_type: &LogicalType,
    strict: bool,
    f: impl Fn(&[Option<In<'_>>]) -> DfResult<Option<Out>> + Send + Sync + 'static,
) -> Kernel {
    let ty = result_type.clone();
    Kernel::function(name, result_type, move |args: &[ColumnarValue], rows| {
        let arrays = arrays(args, rows)?;
        let columns = arrays
            .iter()
            .map(Column::new)
            .collect::<DfResult<Vec<_>>>()?;
        let n = if args.is_empty() {
            rows
        } else {
            arrays[0].len()
        };
        let mut sink = Sink::new(&ty, n)?;
        let mut row: Vec<Option<In<'_>>> = Vec::with_capacity(columns.len());
        for i in 0..n {
            row.clear();
            row.extend(columns.iter().map(|c| c.get(i)));
            if strict && row.iter().any(Option::is_none) {
                sink.push(None)?;
            } else {
                sink.push(f(&row)?)?;
            }
        }
        if args.is_empty() {
            Ok(ColumnarValue::Array(sink.finish()))
        } else {
            result(args, sink.finish())
        }
    })
}

/// 2100-01-01T00:00:00Z: chrono-tz's transition tables end in 2099, after which it keeps the
/// last offset, while Java's zones (`ZoneInfo`'s `lastRule`, `ZoneRules`' last rules) repeat
/// their last daylight-saving rule forever.
const TABLE_END_MILLIS: i64 = 4_102_444_800_000;

/// The shift (whole days, in milliseconds) that moves a time at or after 2100 into a year of
/// 2072..=2099 with the same calendar (leap or not, January 1 on the same weekday), where the
/// tables still hold the zone's last rule: its transitions fall on the same dates and times
/// there. Zero before 2100.
fn last_rule_shift(millis: i64) -> i64 {
    if millis < TABLE_END_MILLIS {
        return 0;
    }
    let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    // 1970-01-01 was a Thursday.
    let weekday = |day: i64| (day + 4).rem_euclid(7);
    let (year, _, _) = civil_from_days(floor_div(millis, MILLIS_PER_DAY));
    let january = days_from_civil(year, 1, 1);
    // Every 28 consecutive years of one century hold all fourteen calendars.
    (2072..=2099)
        .map(|y| days_from_civil(y, 1, 1))
        .zip(2072..=2099)
        .find(|&(day, y)| leap(y) == leap(year) && weekday(day) == weekday(january))
        .map_or(0, |(day, _)| (day - january) * MILLIS_PER_DAY)
}

/// 2100-01-01T00:00:00Z and 2100-07-01T00:00:00Z: instants under every zone's current
/// rules, in winter and in summer.
const JANUARY_2100: i64 = 4_103_481_600_000;
const JULY_2100: i64 = 4_118_112_000_000;

/// 1900-01-01T00:00:00Z: the JDK's `ZoneInfo` (behind `java.util.TimeZone`) keeps tzdb's
/// transitions from here on only.
const ZONE_INFO_START_MILLIS: i64 = -2_208_988_800_000;

/// A session time zone with `java.util.TimeZone` offset rules (what Flink's generated code
/// and its `SimpleDateFormat`s use), and `java.time`'s where Flink uses those.
#[derive(Debug, Clone, Copy)]
pub struct Zone(Tz);

impl Zone {
    /// UTC.
    pub fn utc() -> Self {
        Zone(Tz::from_str("+00:00").expect("a fixed offset parses"))
    }

    /// The zone Java's `ZoneId.of` / `TimeZone.getTimeZone` reads from `id`: an IANA region,
    /// `UTC`/`GMT`/`Z`, or a fixed offset `+08:00`, `GMT+8`, `UTC-05:30`.
    pub fn parse(id: &str) -> Result<Self, String> {
        let id = id.trim();
        if matches!(id, "UTC" | "GMT" | "UT" | "Z" | "Etc/UTC" | "Etc/GMT") {
            return Ok(Self::utc());
        }
        let offset = ["UTC", "GMT", "UT", ""]
            .iter()
            .find_map(|p| id.strip_prefix(p).filter(|r| r.starts_with(['+', '-'])));
        let text = match offset {
            Some(o) => {
                let (sign, body) = o.split_at(1);
                let (h, m) = body.split_once(':').unwrap_or((body, "0"));
                let (h, m): (u32, u32) = match (h.parse(), m.parse()) {
                    (Ok(h), Ok(m)) if h <= 18 && m < 60 => (h, m),
                    _ => return Err(format!("invalid time zone offset {id:?}")),
                };
                format!("{sign}{h:02}:{m:02}")
            }
            None => id.to_string(),
        };
        Tz::from_str(&text)
            .map(Zone)
            .map_err(|e| format!("unknown time zone {id:?}: {e}"))
    }

    /// `TimeZone.getOffset(epochMillis)`: the offset in milliseconds at that instant. Before
    /// 1900-01-01T00:00Z the JDK's `ZoneInfo` keeps no transitions and answers the zone's raw
    /// offset (New York -05:00, not tzdb's local mean time -04:56:02).
    pub fn offset_at(&self, epoch_millis: i64) -> i64 {
        if epoch_millis < ZONE_INFO_START_MILLIS {
            return self.raw_offset();
        }
        self.tzdb_offset(epoch_millis)
    }

    /// `TimeZone.getRawOffset()`: the standard offset of the zone's current rules (the
    /// smaller of its January and July offsets, as daylight saving only adds).
    fn raw_offset(&self) -> i64 {
        self.tzdb_offset(JANUARY_2100)
            .min(self.tzdb_offset(JULY_2100))
    }

    /// `TimeZone.useDaylightTime()`: whether the zone's current rules keep daylight saving
    /// time (its January and July offsets differ).
    pub fn uses_daylight_time(&self) -> bool {
        self.tzdb_offset(JANUARY_2100) != self.tzdb_offset(JULY_2100)
    }

    /// Flink's `TimeWindowUtil.toUtcTimestampMills`: the local wall-clock milliseconds of an
    /// instant (`java.time`), which windows in this zone are computed on. `i64::MAX` (the
    /// last watermark) stays as it is.
    pub fn window_local(self, epoch_millis: i64) -> i64 {
        if epoch_millis == i64::MAX {
            return epoch_millis;
        }
        self.to_local_java_time(epoch_millis)
    }

    /// Flink's `TimeWindowUtil.toEpochMills`: the instant of a window's local time
    /// (`LocalDateTime.atZone`: in an overlap the earlier offset, in a gap shifted later).
    pub fn window_instant(self, local_millis: i64) -> i64 {
        if local_millis == i64::MAX {
            return local_millis;
        }
        self.to_instant_java_time(local_millis)
    }

    /// Flink's `TimeWindowUtil.toEpochMillsForTimer`: the instant a timer for a window's
    /// local time fires at. In a zone with daylight saving it compares the instants of the
    /// local time and of an hour later: equal (the local time is in a gap) gives the gap's
    /// end floored to the hour; more than an hour apart (the local hour repeats) gives the
    /// later occurrence; else the instant. Without daylight saving, as
    /// [`Zone::window_instant`].
    pub fn window_timer(self, local_millis: i64) -> i64 {
        const HOUR: i64 = 3_600_000;
        if local_millis == i64::MAX || !self.uses_daylight_time() {
            return self.window_instant(local_millis);
        }
        let t1 = self.to_instant_java_time(local_millis);
        let t2 = self.to_instant_java_time(local_millis.wrapping_add(HOUR));
        if t1 == t2 {
            // Java's `%` truncates, as Rust's does.
            t1 - t1 % HOUR
        } else if t2 - t1 > HOUR {
            t1 + HOUR
        } else {
            t1
        }
    }

    fn tzdb_offset(&self, epoch_millis: i64) -> i64 {
        let epoch_millis = epoch_millis.wrapping_add(last_rule_shift(epoch_millis));
        match DateTime::from_timestamp_millis(epoch_millis) {
            Some(t) => {
                i64::from(
                    self.0
                        .offset_from_utc_datetime(&t.naive_utc())
                        .fix()
                        .local_minus_utc(),
                ) * 1000
            }
            None => 0,
        }
    }

    /// The local wall-clock milliseconds of an instant by `java.time`'s rules
    /// (`LocalDateTime.ofInstant`, as DATE_FORMAT of a TIMESTAMP_LTZ): tzdb's offsets
    /// throughout, local mean time before a zone's first transition.
    pub fn to_local_java_time(self, epoch_millis: i64) -> i64 {
        epoch_millis.wrapping_add(self.tzdb_offset(epoch_millis))
    }

    /// The instant of a local wall-clock time by `java.time`'s rules
    /// (`LocalDateTime.atZone(zone).toInstant()`, as Flink's casts to TIMESTAMP_LTZ): tzdb's
    /// offsets throughout, in an overlap the earlier offset, in a gap shifted later by the
    /// gap's length.
    pub fn to_instant_java_time(self, local_millis: i64) -> i64 {
        let shift = last_rule_shift(local_millis);
        let local_millis = local_millis.wrapping_add(shift);
        let Some(t) = DateTime::from_timestamp_millis(local_millis) else {
            return local_millis.wrapping_sub(shift);
        };
        let offset = match self.0.offset_from_local_datetime(&t.naive_utc()) {
            LocalResult::Single(o) => i64::from(o.fix().local_minus_utc()) * 1000,
            LocalResult::Ambiguous(earlier, _) => i64::from(earlier.fix().local_minus_utc()) * 1000,
            // The offset before the transition: the local time read with it lands past the gap.
            LocalResult::None => self.tzdb_offset(local_millis - MILLIS_PER_DAY),
        };
        local_millis.wrapping_sub(offset).wrapping_sub(shift)
    }

    /// The local wall-clock milliseconds of an instant: `millis + TimeZone.getOffset(millis)`,
    /// as Flink's `timestampWithLocalZoneToTimestamp`.
    pub fn to_local(self, epoch_millis: i64) -> i64 {
        epoch_millis.wrapping_add(self.offset_at(epoch_millis))
    }

    /// The instant of a local wall-clock time as `GregorianCalendar` computes it
    /// (`ZoneInfo.getOffsetsByWall`): a wall time at or past a transition's new wall time takes
    /// the new offset, so in an overlap the later offset (standard time after daylight
    /// saving) and in a gap the earlier one (shifted later by the gap's length).
    pub fn to_instant(self, local_millis: i64) -> i64 {
        // Before ZoneInfo's first instant: the raw offset (see `offset_at`). Offsets stay
        // within a day, so later local times never look the raw offset up.
        if local_millis < ZONE_INFO_START_MILLIS.saturating_add(MILLIS_PER_DAY) {
            let raw = self.raw_offset();
            if local_millis.wrapping_sub(raw) < ZONE_INFO_START_MILLIS {
                return local_millis.wrapping_sub(raw);
            }
        }
        let shift = last_rule_shift(local_millis);
        let local_millis = local_millis.wrapping_add(shift);
        let Some(t) = DateTime::from_timestamp_millis(local_millis) else {
            return local_millis.wrapping_sub(shift);
        };
        let naive: NaiveDateTime = t.naive_utc();
        let offset = match self.0.offset_from_local_datetime(&naive) {
            LocalResult::Single(o) => i64::from(o.fix().local_minus_utc()) * 1000,
            LocalResult::Ambiguous(_, later) => i64::from(later.fix().local_minus_utc()) * 1000,
            LocalResult::None => self.offset_at(local_millis - MILLIS_PER_DAY),
        };
        local_millis.wrapping_sub(offset).wrapping_sub(shift)
    }
}
