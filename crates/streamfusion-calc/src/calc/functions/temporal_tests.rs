//! Unit tests of the temporal functions against independent expectations: chrono's
//! calendar as the model, hand-computed Flink values, and wall-clock bounds for the clock.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Date32Array, StringArray, TimestampMillisecondArray};
use arrow::datatypes::{
    Date32Type, Int32Type, Int64Type, Time32MillisecondType, TimestampMillisecondType,
};
use chrono::{Datelike, NaiveDate};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs};

use crate::calc::registry::{Args, Kernel, registry};
use crate::types::LogicalType;

use super::super::temporal_calendar::{
    EPOCH_JULIAN, Unit, add_months_date, date_to_ymd, extract_from_date, julian_date_floor,
    parse_date, parse_time, subtract_months_date, ymd_to_unix_date,
};
use super::super::temporal_format::{Dialect, Pattern};
use super::*;

fn days(y: i32, m: u32, d: u32) -> i32 {
    (NaiveDate::from_ymd_opt(y, m, d).unwrap() - NaiveDate::from_ymd_opt(1970, 1, 1).unwrap())
        .num_days() as i32
}

/// Calls registry function `op` on `args` (arrays or literals) in `zone`.
fn call(
    op: u16,
    types: &[LogicalType],
    literals: &[Option<ScalarValue>],
    args: Vec<ColumnarValue>,
    zone: &str,
) -> Result<ArrayRef, String> {
    let def = registry().get(op).unwrap();
    let bound = (def.bind)(&Args {
        types,
        literals,
        time_zone: zone,
        float_text: crate::calc::FloatText::Shortest,
    })?;
    let Kernel::Function(udf) = bound.kernel else {
        panic!("a function kernel")
    };
    let rows = args
        .iter()
        .find_map(|a| match a {
            ColumnarValue::Array(a) => Some(a.len()),
            _ => None,
        })
        .unwrap_or(1);
    let fields = args
        .iter()
        .map(|a| Arc::new(arrow::datatypes::Field::new("a", a.data_type(), true)))
        .collect();
    udf.invoke_with_args(ScalarFunctionArgs {
        args,
        arg_fields: fields,
        number_rows: rows,
        return_field: Arc::new(arrow::datatypes::Field::new(
            "r",
            bound.result.to_arrow(),
            true,
        )),
        config_options: Arc::new(Default::default()),
    })
    .and_then(|v| v.to_array(rows))
    .map_err(|e| e.to_string())
}

fn unit(u: &str) -> (LogicalType, Option<ScalarValue>, ColumnarValue) {
    (
        LogicalType::VarChar(10),
        Some(ScalarValue::Utf8(Some(u.into()))),
        ColumnarValue::Scalar(ScalarValue::Utf8(Some(u.into()))),
    )
}

fn ts_col(ms: &[Option<i64>]) -> ColumnarValue {
    ColumnarValue::Array(Arc::new(TimestampMillisecondArray::from(ms.to_vec())))
}

fn extract_ts(u: &str, ms: &[Option<i64>]) -> Vec<Option<i64>> {
    let (t, l, v) = unit(u);
    let out = call(
        EXTRACT,
        &[t, LogicalType::Timestamp(3)],
        &[l, None],
        vec![v, ts_col(ms)],
        "UTC",
    )
    .unwrap();
    out.as_primitive::<Int64Type>().iter().collect()
}

#[test]
fn calendar_round_trips_against_chrono() {
    for d in (-800_000..800_000).step_by(997) {
        let date = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap() + chrono::Duration::days(d.into());
        assert_eq!(
            date_to_ymd(d),
            (date.year(), date.month() as i32, date.day() as i32),
            "{d}"
        );
        assert_eq!(
            ymd_to_unix_date(date.year(), date.month() as i32, date.day() as i32),
            d
        );
        let e = |u| extract_from_date(u, d).unwrap();
        assert_eq!(e(Unit::Doy), i64::from(date.ordinal()));
        assert_eq!(
            e(Unit::Dow),
            i64::from(date.weekday().num_days_from_sunday() + 1)
        );
        assert_eq!(
            e(Unit::IsoDow),
            i64::from(date.weekday().number_from_monday())
        );
        if date.year() > 0 {
            assert_eq!(e(Unit::Week), i64::from(date.iso_week().week()), "{date}");
            assert_eq!(
                e(Unit::IsoYear),
                i64::from(date.iso_week().year()),
                "{date}"
            );
        }
        assert_eq!(e(Unit::Quarter), i64::from(date.month().div_ceil(3)));
    }
}

#[test]
fn extract_keeps_flinks_truncating_division() {
    // 1969-12-31 12:30:45.123 UTC: Flink says year 1970, hour -11, second -14 (golden).
    let ms = -41_354_877;
    assert_eq!(
        extract_ts("YEAR", &[Some(ms), None]),
        vec![Some(1970), None]
    );
    assert_eq!(extract_ts("HOUR", &[Some(ms)]), vec![Some(-11)]);
    assert_eq!(extract_ts("SECOND", &[Some(ms)]), vec![Some(-14)]);
    assert_eq!(extract_ts("MILLISECOND", &[Some(ms)]), vec![Some(-877)]);
    assert_eq!(extract_ts("EPOCH", &[Some(ms)]), vec![Some(-41_354)]);
    // 2024-02-29 23:59:59.999: a leap day.
    let leap = i64::from(days(2024, 2, 29)) * 86_400_000 + 86_399_999;
    assert_eq!(extract_ts("DAY", &[Some(leap)]), vec![Some(29)]);
    assert_eq!(extract_ts("DOY", &[Some(leap)]), vec![Some(60)]);
    assert_eq!(extract_ts("WEEK", &[Some(leap)]), vec![Some(9)]);
    assert_eq!(extract_ts("DECADE", &[Some(leap)]), vec![Some(202)]);
    assert_eq!(extract_ts("CENTURY", &[Some(leap)]), vec![Some(21)]);
    assert_eq!(extract_ts("MILLENNIUM", &[Some(leap)]), vec![Some(3)]);
}

#[test]
fn floor_and_ceil_of_dates_follow_flink() {
    let j = |d: i32| d + EPOCH_JULIAN;
    let d = days(2024, 2, 29);
    assert_eq!(
        julian_date_floor(Unit::Month, j(d), true),
        Some(days(2024, 2, 1).into())
    );
    assert_eq!(
        julian_date_floor(Unit::Month, j(d), false),
        Some(days(2024, 3, 1).into())
    );
    assert_eq!(
        julian_date_floor(Unit::Week, j(d), true),
        Some(days(2024, 2, 25).into())
    );
    assert_eq!(
        julian_date_floor(Unit::Century, j(days(1970, 1, 1)), false),
        Some(days(2001, 1, 1).into())
    );
    assert_eq!(
        julian_date_floor(Unit::Millennium, j(days(1970, 1, 1)), true),
        Some(days(1001, 1, 1).into())
    );
}

#[test]
fn month_arithmetic_clamps_to_the_month_end() {
    assert_eq!(add_months_date(days(2024, 1, 31), 1), days(2024, 2, 29));
    assert_eq!(add_months_date(days(2023, 1, 31), 1), days(2023, 2, 28));
    assert_eq!(add_months_date(days(2024, 3, 31), -13), days(2023, 2, 28));
    assert_eq!(
        subtract_months_date(days(2024, 3, 31), days(2024, 1, 31)),
        2
    );
    assert_eq!(
        subtract_months_date(days(1900, 3, 1), days(2024, 2, 29)),
        -1487
    );
}

#[test]
fn parse_time_reads_as_flinks_date_time_utils() {
    // Printed by the released DateTimeUtils.parseTime (JDK 17).
    for (text, millis) in [
        (" 12 ", Some(43_200_000)),
        ("0", Some(0)),
        ("1", Some(3_600_000)),
        ("12:3", Some(43_380_000)),
        ("1:2:3", Some(3_723_000)),
        ("01:02:03.4567", Some(3_723_457)),
        ("01:02:03.45649", Some(3_723_456)),
        ("01:02:03.1a", Some(3_723_100)),
        ("24:00", None),
        ("12:60", None),
        ("12:00-01", Some(39_600_000)),
        ("12:00+01:30", None),
        ("00:00-01", Some(-3_600_000)),
        ("1 : 2 : 3", Some(3_723_000)),
        ("12:00:00.", Some(43_200_000)),
        ("x", None),
        ("", None),
        ("12:00:00.999999", Some(43_201_000)),
        ("23:59:59.9995", Some(86_400_000)),
    ] {
        assert_eq!(parse_time(text), Ok(millis), "{text:?}");
    }
    assert!(parse_time("99999999999").is_err());
}

#[test]
fn parse_date_accepts_flinks_forms() {
    assert_eq!(parse_date("2024-02-29"), Ok(Some(days(2024, 2, 29))));
    assert_eq!(parse_date("2024-2-9 10:00:00"), Ok(Some(days(2024, 2, 9))));
    assert_eq!(parse_date(" 2024 - 02 "), Ok(Some(days(2024, 2, 1))));
    assert_eq!(parse_date("2023-02-29"), Ok(None));
    assert_eq!(parse_date("2024-04-31"), Ok(None));
    assert_eq!(parse_date("abc"), Ok(None));
    assert_eq!(parse_date(""), Ok(None));
    // Integer.parseInt throws past i32, and Flink does not catch it.
    assert!(parse_date("2147483648").is_err());
    assert!(parse_date("2024-99999999999").is_err());
}

#[test]
fn patterns_format_like_java() {
    let ms = -41_354_877; // 1969-12-31 12:30:45.123
    let f = |p: &str, d| Pattern::compile(p, d).unwrap().format(ms, 456_789);
    assert_eq!(
        f(
            "yyyy-MM-dd HH:mm:ss.SSS EEE MMM a",
            Dialect::DateTimeFormatter
        ),
        "1969-12-31 12:30:45.123 Wed Dec PM"
    );
    assert_eq!(
        f("yy/M/d h:m:s SSSSSSSSS", Dialect::DateTimeFormatter),
        "69/12/31 12:30:45 123456789"
    );
    assert_eq!(
        f("yyyy/MM/dd EEEE MMMM 'at' k", Dialect::SimpleDateFormat),
        "1969/12/31 Wednesday December at 12"
    );
    assert_eq!(f("S SSSS D", Dialect::SimpleDateFormat), "123 0123 365");
    assert!(Pattern::compile("yyyy-bb", Dialect::DateTimeFormatter).is_err());
    assert!(Pattern::compile("ddd", Dialect::DateTimeFormatter).is_err());
}

#[test]
fn simple_date_format_parses_leniently() {
    let p = Pattern::compile("yyyy-MM-dd HH:mm:ss", Dialect::SimpleDateFormat).unwrap();
    let at = |y, m, d| i64::from(days(y, m, d)) * 86_400_000;
    assert_eq!(
        p.parse("2024-02-30 00:00:00 trailing"),
        Some((at(2024, 3, 1), 0))
    );
    assert_eq!(
        p.parse("2024-13-01 01:00:00"),
        Some((at(2025, 1, 1) + 3_600_000, 0))
    );
    assert_eq!(p.parse("2024-01-01"), None);
    let compact = Pattern::compile("yyyyMMdd", Dialect::SimpleDateFormat).unwrap();
    assert_eq!(compact.parse("20240229"), Some((at(2024, 2, 29), 0)));
}

#[test]
fn date_time_formatter_parses_strictly() {
    let p = Pattern::compile("yyyy-MM-dd HH:mm:ss", Dialect::DateTimeFormatter).unwrap();
    let at = |y, m, d| i64::from(days(y, m, d)) * 86_400_000;
    assert_eq!(p.parse("2023-02-30 00:00:00"), Some((at(2023, 2, 28), 0)));
    assert_eq!(p.parse("2024-1-01 00:00:00"), None);
    assert_eq!(p.parse("2024-01-01 00:00:00x"), None);
    // `y` is the year of the era: year 0 does not resolve, while `u` (proleptic) reads it.
    assert_eq!(p.parse("0000-01-01 00:00:00"), None);
    let u = Pattern::compile("uuuu-MM-dd", Dialect::DateTimeFormatter).unwrap();
    assert_eq!(u.parse("0000-01-01"), Some((at(0, 1, 1), 0)));
}

#[test]
fn timestampdiff_is_b_minus_a_truncated_to_int() {
    let (t, l, v) = unit("MILLISECOND");
    let a = ts_col(&[Some(0), Some(0)]);
    let b = ts_col(&[Some(5_000_000_000), None]);
    let ty = LogicalType::Timestamp(3);
    let out = call(
        TIMESTAMPDIFF,
        &[t, ty.clone(), ty],
        &[l, None, None],
        vec![v, a, b],
        "UTC",
    )
    .unwrap();
    let got: Vec<Option<i32>> = out.as_primitive::<Int32Type>().iter().collect();
    assert_eq!(got, vec![Some(5_000_000_000i64 as i32), None]);
}

#[test]
fn session_zone_moves_local_values() {
    // 2024-07-01 00:30 UTC is 02:30 in Berlin (summer, +2) and 20:30 the day before in New York.
    let ms = i64::from(days(2024, 7, 1)) * 86_400_000 + 1_800_000;
    let hour = |zone: &str| {
        let (t, l, v) = unit("HOUR");
        let col = ColumnarValue::Array(Arc::new(
            TimestampMillisecondArray::from(vec![ms]).with_timezone("UTC"),
        ));
        let out = call(
            EXTRACT,
            &[t, LogicalType::TimestampLtz(3)],
            &[l, None],
            vec![v, col],
            zone,
        )
        .unwrap();
        out.as_primitive::<Int64Type>().value(0)
    };
    assert_eq!(hour("UTC"), 0);
    assert_eq!(hour("Europe/Berlin"), 2);
    assert_eq!(hour("America/New_York"), 20);
    assert_eq!(hour("GMT+05:30"), 6);
    let def = registry().get(EXTRACT).unwrap();
    let (t, l, _) = unit("HOUR");
    assert!(
        (def.bind)(&Args {
            types: &[t, LogicalType::TimestampLtz(3)],
            literals: &[l, None],
            time_zone: "Mars/Base",
            float_text: crate::calc::FloatText::Shortest,
        })
        .is_err()
    );
}

#[test]
fn clock_functions_read_the_wall_clock() {
    let before = now_millis();
    let ts = call(CURRENT_TIMESTAMP, &[], &[], vec![], "UTC").unwrap();
    let local = call(LOCALTIMESTAMP, &[], &[], vec![], "Asia/Shanghai").unwrap();
    let date = call(CURRENT_DATE, &[], &[], vec![], "UTC").unwrap();
    let time = call(CURRENT_TIME, &[], &[], vec![], "UTC").unwrap();
    let unix = call(UNIX_TIMESTAMP, &[], &[], vec![], "UTC").unwrap();
    let after = now_millis();
    assert_eq!(ts.data_type(), &LogicalType::TimestampLtz(3).to_arrow());
    let v = ts.as_primitive::<TimestampMillisecondType>().value(0);
    assert!((before..=after).contains(&v));
    let l = local.as_primitive::<TimestampMillisecondType>().value(0);
    assert!((before + 8 * 3_600_000..=after + 8 * 3_600_000).contains(&l));
    let d = date.as_primitive::<Date32Type>().value(0);
    assert!((before / 86_400_000..=after / 86_400_000).contains(&i64::from(d)));
    let t = time.as_primitive::<Time32MillisecondType>().value(0);
    assert!((0..86_400_000).contains(&t));
    let u = unix.as_primitive::<Int64Type>().value(0);
    assert!((before / 1000..=after / 1000).contains(&u));
    let _ = (Date32Array::from(vec![0]), StringArray::from(vec!["x"]));
}

#[test]
fn string_parsing_falls_back_like_java_sql() {
    let at = |y, m, d| i64::from(days(y, m, d)) * 86_400_000;
    let p = Pattern::compile("yyyy-MM-dd HH:mm:ss", Dialect::DateTimeFormatter).unwrap();
    // Date.valueOf and Timestamp.valueOf normalise leniently; the formatter clamps.
    assert_eq!(
        parse_with_format(&p, "2024-02-30"),
        Some((at(2024, 3, 1), 0))
    );
    assert_eq!(
        parse_with_format(&p, "2024-02-30 00:00:00"),
        Some((at(2024, 2, 29), 0))
    );
    assert_eq!(
        parse_with_format(&p, "2024-1-5 3:4:5"),
        Some((at(2024, 1, 5) + 11_045_000, 0))
    );
    assert_eq!(
        parse_with_format(&p, " 2024-01-05 "),
        Some((at(2024, 1, 5), 0))
    );
    assert_eq!(parse_with_format(&p, "2024-01-05 10:00"), None);
    // java.util.Date's hybrid calendar (JDK 17's Timestamp/Date.valueOf, then
    // toLocalDateTime/toLocalDate): the days the reform removed are Julian, ten days on.
    assert_eq!(
        parse_with_format(&p, "1582-10-10"),
        Some((at(1582, 10, 20), 0))
    );
    assert_eq!(
        parse_with_format(&p, "1582-10-05"),
        Some((at(1582, 10, 15), 0))
    );
    // Text the formatter takes never reaches them: it reads ISO fields, and its SMART
    // resolver reads 24:00:00 as the next midnight.
    assert_eq!(
        parse_with_format(&p, "1582-10-14 23:59:59"),
        Some((at(1582, 10, 14) + 86_399_000, 0))
    );
    assert_eq!(
        parse_with_format(&p, "1582-10-04 24:00:00"),
        Some((at(1582, 10, 5), 0))
    );
    // Past 24:00:00 the formatter fails and Timestamp.valueOf rolls over.
    assert_eq!(
        parse_with_format(&p, "2024-01-05 24:00:01"),
        Some((at(2024, 1, 6) + 1000, 0))
    );
    let no_seconds = Pattern::compile("yyyy-MM-dd HH:mm", Dialect::DateTimeFormatter).unwrap();
    assert_eq!(
        parse_with_format(&no_seconds, "1582-10-04 24:00:00"),
        Some((at(1582, 10, 15), 0))
    );
    assert_eq!(
        parse_with_format(&p, "1000-03-01"),
        Some((at(1000, 3, 1), 0))
    );
    assert_eq!(
        parse_with_format(&p, "1200-02-29 10:00:00"),
        Some((at(1200, 2, 29) + 36_000_000, 0))
    );
    // A Julian February 29 that ISO lacks: Java throws (DateTimeException).
    assert_eq!(parse_with_format(&no_seconds, "1500-02-28 24:00:00"), None);
    assert_eq!(parse_with_format(&p, "2024-13-01"), None);
    assert_eq!(parse_with_format(&p, "99999-01-01"), None);
    assert_eq!(
        java_sql_timestamp("2024-01-05 10:00:00.1234567891"),
        None,
        "at most nine fraction digits"
    );
    assert_eq!(
        java_sql_timestamp("2024-01-05 25:00:00.5"),
        Some((at(2024, 1, 6) + 3_600_500, 0))
    );
    // TO_TIMESTAMP without a format: the default formatter, strict.
    assert_eq!(
        parse_default_timestamp("2024-02-30", 3),
        Some((at(2024, 2, 29), 0))
    );
    assert_eq!(parse_default_timestamp("2024-01-05 10:00", 3), None);
    // SMART resolution: 24:00:00 is the next midnight, anything past it fails.
    let next = i64::from(days(2024, 1, 6)) * 86_400_000;
    assert_eq!(
        parse_default_timestamp("2024-01-05 24:00:00", 3),
        Some((next, 0))
    );
    assert_eq!(
        parse_default_timestamp("2024-01-05 24:00:00.000", 3),
        Some((next, 0))
    );
    assert_eq!(parse_default_timestamp("2024-01-05 24:00:01", 3), None);
    assert_eq!(parse_default_timestamp("2024-01-05 24:00:00.5", 3), None);
    assert_eq!(parse_default_timestamp("99999-01-01", 3), None);
    assert_eq!(
        parse_default_timestamp("1969-12-31 23:59:59.123456789", 3),
        Some((-877, 0))
    );
}

#[test]
fn failed_to_date_parses_give_flinks_overflowed_date() {
    // Flink prints +1705471-09-27 for TO_DATE('abc', 'yyyy-MM-dd').
    // 1705471-09-27 is day 622191233 (Hinnant's days_from_civil, computed separately).
    assert_eq!(ymd_to_unix_date(-292_275_055, 5, 16), 622_191_233);
}

#[test]
fn to_timestamp_ltz_floors_doubles_and_truncates_decimals() {
    use arrow::array::{Decimal128Array, Float64Array};
    let run = |ty: LogicalType, col: ArrayRef, precision: i32| -> Vec<Option<i64>> {
        let p = ScalarValue::Int32(Some(precision));
        let out = call(
            TO_TIMESTAMP_LTZ,
            &[ty, LogicalType::Int],
            &[None, Some(p.clone())],
            vec![ColumnarValue::Array(col), ColumnarValue::Scalar(p)],
            "UTC",
        )
        .unwrap();
        out.as_primitive::<TimestampMillisecondType>()
            .iter()
            .collect()
    };
    let doubles: ArrayRef = Arc::new(Float64Array::from(vec![
        1500.7,
        -1.5,
        f64::NAN,
        2.534023008e11,
    ]));
    assert_eq!(
        run(LogicalType::Double, doubles.clone(), 0),
        vec![Some(1_500_700), Some(-1500), Some(0), None]
    );
    assert_eq!(
        run(LogicalType::Double, doubles, 3),
        vec![Some(1500), Some(-2), Some(0), Some(253_402_300_800)]
    );
    let decimals: ArrayRef = Arc::new(
        Decimal128Array::from(vec![1_500_700i128, -1_500, -62_167_219_200_500])
            .with_precision_and_scale(20, 3)
            .unwrap(),
    );
    let ty = LogicalType::Decimal {
        precision: 20,
        scale: 3,
    };
    assert_eq!(
        run(ty.clone(), decimals.clone(), 0),
        vec![Some(1_500_000), Some(-1000), Some(-62_167_219_200_000)]
    );
    assert_eq!(
        run(ty, decimals, 3),
        vec![Some(1500), Some(-1), Some(-62_167_219_200)]
    );
}

/// The temporal cases of the golden file (released Flink 2.3.0's results), judged on their
/// own so that an unreadable case of another family does not hide this family's state.
#[cfg(feature = "bench")]
#[test]
fn temporal_golden_cases_match_released_flink() {
    use crate::golden::{Verdict, golden_path, parse, run};
    let text = std::fs::read_to_string(golden_path()).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let mine: Vec<&str> = std::iter::once(header)
        .chain(lines.filter(|l| l.starts_with("{\"case\":\"temporal_")))
        .collect();
    let cases = parse(&mine.join("\n")).unwrap();
    assert!(cases.len() >= 25, "{} temporal cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| match run(c) {
            Verdict::Match => None,
            other => Some(format!("{}\n  {other:?}", c.describe())),
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_programs_time_zone_reaches_binding_and_old_programs_default_to_utc() {
    use crate::calc::{CalcProgram, compile};
    use crate::changelog::ChangelogBatch;
    let extract_hour = |zone: Option<&str>| {
        let zone = zone.map_or(String::new(), |z| format!(r#", "time_zone": "{z}""#));
        let json = format!(
            r#"{{"projection": [{{"call": {{"op": {EXTRACT}, "args": [
                {{"literal": {{"type": "STRING", "value": "HOUR"}}}}, {{"input": 0}}]}}}}]{zone}}}"#
        );
        let program = CalcProgram::from_json(&json).unwrap();
        let compiled = compile(&program, &[LogicalType::TimestampLtz(3)]).unwrap();
        let schema = arrow::datatypes::Schema::new(vec![arrow::datatypes::Field::new(
            "f0",
            LogicalType::TimestampLtz(3).to_arrow(),
            true,
        )]);
        // 2024-01-01 00:00 UTC.
        let col: ArrayRef = Arc::new(
            TimestampMillisecondArray::from(vec![i64::from(days(2024, 1, 1)) * 86_400_000])
                .with_timezone("UTC"),
        );
        let batch = arrow::array::RecordBatch::try_new(Arc::new(schema), vec![col]).unwrap();
        let out = compiled
            .evaluate(&ChangelogBatch::insert_only(batch))
            .unwrap();
        (
            program,
            out.batch().column(0).as_primitive::<Int64Type>().value(0),
        )
    };
    let (old, utc_hour) = extract_hour(None);
    assert_eq!(old.time_zone, "UTC");
    assert_eq!(utc_hour, 0);
    let (shanghai, hour) = extract_hour(Some("Asia/Shanghai"));
    assert_eq!(hour, 8);
    assert_eq!(
        CalcProgram::from_json(&shanghai.to_json()).unwrap(),
        shanghai
    );
    assert!(
        !old.to_json().contains("time_zone"),
        "UTC is left out of the encoding"
    );
}

#[test]
fn zone_offsets_before_1900_are_java_util_time_zone_raw_offsets() {
    // Printed by JDK 17's TimeZone.getOffset (ZoneInfo keeps tzdb transitions from
    // 1900-01-01T00:00Z on; before, the raw offset, never local mean time).
    let at = |text: &str| {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .timestamp_millis()
    };
    for (zone, instant, seconds) in [
        ("America/New_York", "0001-01-01T00:00:00Z", -18_000),
        ("America/New_York", "1800-06-01T00:00:00Z", -18_000),
        ("Asia/Kolkata", "1899-12-31T23:00:00Z", 19_800),
        ("Asia/Kolkata", "1900-01-01T00:00:00Z", 19_270),
        ("Asia/Kolkata", "1910-06-01T00:00:00Z", 19_800),
        ("Europe/Amsterdam", "1883-11-18T17:00:00Z", 3_600),
        ("Asia/Shanghai", "1800-06-01T00:00:00Z", 28_800),
        ("Asia/Shanghai", "1900-06-01T00:00:00Z", 29_143),
        ("America/Los_Angeles", "1899-12-31T23:00:00Z", -28_800),
    ] {
        let z = Zone::parse(zone).unwrap();
        assert_eq!(z.offset_at(at(instant)), seconds * 1000, "{zone} {instant}");
    }
    // Local times before then convert back with the same raw offset.
    let ny = Zone::parse("America/New_York").unwrap();
    let local = at("0001-01-01T00:00:00Z");
    assert_eq!(ny.to_instant(local), local + 18_000_000);
}

#[test]
fn zones_repeat_their_last_rule_past_the_tables() {
    // JDK 17's ZoneRules and java.util.TimeZone (both agree) at these UTC instants.
    let at = |text: &str| {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .timestamp_millis()
    };
    for (zone, instant, seconds) in [
        ("America/New_York", "2262-01-15T12:00:00Z", -18_000),
        ("America/New_York", "2262-07-15T12:00:00Z", -14_400),
        ("America/New_York", "2100-03-14T12:00:00Z", -14_400),
        ("America/New_York", "3000-10-10T00:00:00Z", -14_400),
        ("Australia/Sydney", "2262-01-15T12:00:00Z", 39_600),
        ("Australia/Sydney", "2262-07-15T12:00:00Z", 36_000),
        ("Australia/Sydney", "2100-03-14T12:00:00Z", 39_600),
        ("Australia/Sydney", "3000-10-10T00:00:00Z", 39_600),
    ] {
        let z = Zone::parse(zone).unwrap();
        assert_eq!(z.offset_at(at(instant)), seconds * 1000, "{zone} {instant}");
        let local = at(instant) + seconds * 1000;
        assert_eq!(
            z.to_instant_java_time(local),
            at(instant),
            "{zone} {instant}"
        );
    }
    // SimpleDateFormat in New York read 2262-04-11 23:47:16 as 9223386436 s (EDT).
    let ny = Zone::parse("America/New_York").unwrap();
    assert_eq!(ny.to_instant(at("2262-04-11T23:47:16Z")), 9_223_386_436_000);
}

#[test]
fn simple_date_format_prints_julian_fields_and_far_years() {
    // Printed by JDK 17's SimpleDateFormat("yyyy-MM-dd HH:mm:ss D") in UTC (the last two
    // are AD and BC: `yyyy` is the year of the era).
    let p = Pattern::compile("yyyy-MM-dd HH:mm:ss D", Dialect::SimpleDateFormat).unwrap();
    for (millis, text) in [
        (-12_219_379_200_000, "1582-10-04 00:00:00 277"),
        (-12_219_292_800_000, "1582-10-15 00:00:00 278"),
        (-62_135_596_800_000, "0001-01-03 00:00:00 3"),
        (-62_135_683_200_000, "0001-01-02 00:00:00 2"),
        (9_007_199_254_740_993_000, "285428751-11-12 07:36:33 316"),
        (-9_007_199_254_740_993_000, "285418952-01-08 16:23:27 8"),
        (-30_000_000_000_000, "1019-04-28 18:40:00 118"),
    ] {
        assert_eq!(p.format(millis, 0), text, "{millis}");
    }
}

#[test]
fn convert_tz_takes_only_zone_ids_java_util_reads_as_written() {
    // java.util.TimeZone.getTimeZone reads these as written ...
    for id in [
        "UTC",
        "GMT",
        "GMT+8",
        "GMT-05:30",
        "Asia/Shanghai",
        "America/New_York",
    ] {
        assert!(java_util_zone(id).is_ok(), "{id}");
    }
    // ... and these as GMT (JDK 17), which native refuses rather than guesses.
    for id in ["+08:00", "UTC+8", "EST5", "Mars/Base", "utc"] {
        assert!(java_util_zone(id).is_err(), "{id}");
    }
}

#[test]
fn simple_date_format_reads_fields_before_the_reform_as_julian() {
    // JDK 17's SimpleDateFormat("yyyy-MM-dd") in UTC: getTime() of these texts.
    let p = Pattern::compile("yyyy-MM-dd", Dialect::SimpleDateFormat).unwrap();
    for (text, millis) in [
        ("0001-01-01", -62_135_769_600_000),
        ("1582-10-10", -12_218_860_800_000),
        ("1582-10-15", -12_219_292_800_000),
        ("2024-02-30", 1_709_251_200_000),
    ] {
        assert_eq!(p.parse(text), Some((millis, 0)), "{text}");
    }
    // Read and printed in the one calendar, a date passes through (DATE_FORMAT of a string).
    assert_eq!(p.format(p.parse("1000-03-01").unwrap().0, 0), "1000-03-01");
}
