//! The `normalization` suite: ORC post-decode normalization (`orc_normalize`), the step that
//! turns Arrow columns as an ORC decoder leaves them into what Flink's ORC format hands a job.
//!
//! Measured boundary: one decoded column through the production `normalize_column`, output
//! disposal included. ORC file reading remains JVM-backed (or a decoder of the caller's
//! choice): this is not an ORC decoder throughput benchmark, and fixtures are Arrow columns
//! shaped as a decoder produces them. Fixture construction and oracle checks run before timing
//! (see bench-support's runner).
//!
//! Families:
//! - `char_trim/rows/width/nulls/padded`: a CHAR(width) column. `padded=true` holds values as
//!   ORC's `CharTreeWriter` stores them (padded with spaces to `width` characters; every
//!   seventh value longer, as a wider file type leaves it), which Flink reads truncated and
//!   right-trimmed; `padded=false` holds values that already are Flink's, which must come back
//!   sharing the input's buffers.
//! - `varchar_truncate/rows/width`: a VARCHAR(width / 2) column of `width`-byte values, most of
//!   them truncated.
//! - `string_passthrough/rows/width`: a STRING column, shared untouched.
//! - `timestamp/<shape>/rows/precision`: TIMESTAMP(precision) from each accepted input shape:
//!   `timestamp_us` (Arrow microseconds), `decimal128` (`Decimal128(38, 9)` nanoseconds),
//!   `seconds_nanos` (ORC's `Struct<seconds, nanos>` pair) and `timestamp_ns` (Arrow
//!   nanoseconds). Values are wall clocks written by a hybrid-calendar writer over years
//!   0001-9999 (Julian labels before 1582-10-15), except for `timestamp_ns` and precision 9,
//!   whose carrier is 64-bit nanoseconds: there they stay in 1678-2261 (the carrier's refusals
//!   are unit-tested). `timestamp_ns` at precision 9 must be shared.
//!
//! Oracles are written here from the sources, not from the production code: CHAR/VARCHAR as
//! "first n characters, then (CHAR only) without trailing spaces"; timestamps as labels
//! (year, month, day, time) turned into the decoded value with Julian or Gregorian day-number
//! formulas, and into Flink's value with the Gregorian one.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Decimal128Array, Int32Array, Int64Array, StringArray, StructArray,
    TimestampMicrosecondArray, TimestampNanosecondArray,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{
    DataType, Field, Fields, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use bench_support::buffers::buffer_report;
use bench_support::fixtures::{self, NullPattern, ROW_COUNTS};
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion_bridge::orc_normalize::{OrcCalendar, normalize_column};
use streamfusion_core::types::LogicalType;

bench_support::counting_allocator!();

const CHAR_WIDTHS: [usize; 2] = [8, 264];
const STRING_WIDTHS: [usize; 3] = [8, 264, 4_096];
const PRECISIONS: [u8; 3] = [3, 6, 9];
const STRING_NULLS: NullPattern = NullPattern::EveryNth(11);
const TIMESTAMP_NULLS: NullPattern = NullPattern::EveryNth(7);
const CALENDAR: OrcCalendar = OrcCalendar::JulianGregorian;

fn main() {
    let mut suite = Suite::new("normalization");
    char_trim(&mut suite);
    varchar_truncate(&mut suite);
    string_passthrough(&mut suite);
    timestamps(&mut suite);
    suite.finish();
}

/// The ORC readers' rule: `StringExpr.truncate` keeps the first `n` characters,
/// `rightTrimAndTruncate` (CHAR) then drops trailing `0x20` bytes.
fn model(value: &str, n: usize, trim: bool) -> String {
    let truncated: String = value.chars().take(n).collect();
    if trim {
        truncated.trim_end_matches(' ').to_string()
    } else {
        truncated
    }
}

fn check_strings(input: &ArrayRef, output: &ArrayRef, n: usize, trim: bool) -> Verdict {
    let input = input.as_string::<i32>();
    let output = output
        .as_string_opt::<i32>()
        .ok_or_else(|| format!("output is {}, not Utf8", output.data_type()))?;
    expect_eq("rows", &output.len(), &input.len())?;
    for row in 0..input.len() {
        let expected = input
            .is_valid(row)
            .then(|| model(input.value(row), n, trim));
        let got = output.is_valid(row).then(|| output.value(row).to_string());
        expect_eq(&format!("row {row}"), &got, &expected)?;
    }
    Ok(())
}

fn shared(input: &ArrayRef, output: &ArrayRef) -> Verdict {
    let report = buffer_report(input, output);
    if report.new_bytes != 0 || !Arc::ptr_eq(input, output) {
        return Err(format!(
            "expected the input column back: {} new bytes in {} ranges",
            report.new_bytes, report.new_ranges
        ));
    }
    Ok(())
}

/// A CHAR(`n`) column as decoded: `padded` values are a fixture value of `n / 2` bytes padded
/// with spaces to `n` characters (every seventh also followed by `xyz`, past `n`); unpadded
/// ones are Flink's reading of those.
fn char_column(rows: usize, n: usize, nulls: bool, padded: bool) -> ArrayRef {
    let nulls = if nulls {
        STRING_NULLS
    } else {
        NullPattern::None
    };
    let content = fixtures::utf8(rows, n / 2, nulls);
    let values: StringArray = content
        .iter()
        .enumerate()
        .map(|(row, v)| {
            v.map(|v| {
                let chars = v.chars().count();
                let mut stored = format!("{v}{}", " ".repeat(n - chars));
                if row % 7 == 5 {
                    stored.push_str("xyz");
                }
                if padded {
                    stored
                } else {
                    model(&stored, n, true)
                }
            })
        })
        .collect();
    Arc::new(values)
}

fn char_trim(suite: &mut Suite) {
    for rows in ROW_COUNTS {
        for width in CHAR_WIDTHS {
            for nulls in [false, true] {
                for padded in [false, true] {
                    let ty = LogicalType::Char(width as u32);
                    suite.stateless(
                        &format!(
                            "char_trim/rows={rows}/width={width}/nulls={nulls}/padded={padded}"
                        ),
                        || char_column(rows, width, nulls, padded),
                        |input| normalize_column(input, &ty, CALENDAR).expect("normalize"),
                        |input, output| {
                            check_strings(input, output, width, true)?;
                            if padded {
                                Ok(())
                            } else {
                                shared(input, output)
                            }
                        },
                    );
                }
            }
        }
    }
}

fn varchar_truncate(suite: &mut Suite) {
    for rows in ROW_COUNTS {
        for width in CHAR_WIDTHS {
            let n = width / 2;
            let ty = LogicalType::VarChar(n as u32);
            suite.stateless(
                &format!("varchar_truncate/rows={rows}/width={width}"),
                || Arc::new(fixtures::utf8(rows, width, STRING_NULLS)) as ArrayRef,
                |input| normalize_column(input, &ty, CALENDAR).expect("normalize"),
                |input, output| check_strings(input, output, n, false),
            );
        }
    }
}

fn string_passthrough(suite: &mut Suite) {
    let ty = LogicalType::VarChar(i32::MAX as u32);
    for rows in ROW_COUNTS {
        for width in STRING_WIDTHS {
            suite.stateless(
                &format!("string_passthrough/rows={rows}/width={width}"),
                || Arc::new(fixtures::utf8(rows, width, STRING_NULLS)) as ArrayRef,
                |input| normalize_column(input, &ty, CALENDAR).expect("normalize"),
                |input, output| {
                    check_strings(input, output, usize::MAX, false)?;
                    shared(input, output)
                },
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Timestamps
// ---------------------------------------------------------------------------------------------

const EPOCH_JDN: i64 = 2_440_588;

/// Julian Day Number of a Julian calendar date (years ≥ 1), from the standard formula with
/// truncating division.
fn julian_jdn(y: i64, m: i64, d: i64) -> i64 {
    367 * y - (7 * (y + 5_001 + (m - 9) / 7)) / 4 + (275 * m) / 9 + d + 1_729_777
}

/// Julian Day Number of a proleptic Gregorian date (Fliegel and Van Flandern).
fn gregorian_jdn(y: i64, m: i64, d: i64) -> i64 {
    let a = (14 - m) / 12;
    let y = y + 4_800 - a;
    let m = m + 12 * a - 3;
    d + (153 * m + 2) / 5 + 365 * y + y / 4 - y / 100 + y / 400 - 32_045
}

/// A wall-clock label: year, month, day, second of the day, nanosecond of the second.
type Label = (i64, i64, i64, i64, i64);

/// The label of `row`: years 0001-9999 (`full`) or 1678-2261, days 1-28 (the 1582 cutover
/// gap moved to the 15th), with edge values at fixed positions.
fn label(row: usize, full: bool) -> Label {
    let r = row as i64;
    let edge = row % fixtures::EDGE_PERIOD;
    let last = (23 * 3_600 + 59 * 60 + 59, 999_999_999);
    match (edge, full) {
        (1, true) => return (1, 1, 1, 0, 0),
        (2, true) => return (9_999, 12, 31, last.0, last.1),
        (4, true) => return (1_582, 10, 4, last.0, last.1),
        (5, true) => return (1_582, 10, 15, 0, 0),
        (1, false) => return (1_677, 9, 22, 0, 0),
        (2, false) => return (2_262, 4, 10, last.0, last.1),
        (3, _) => return (1_969, 12, 31, last.0, last.1),
        _ => {}
    }
    let year = if full {
        1 + (r * 7_919) % 9_999
    } else {
        1_678 + (r * 7_919) % 584
    };
    let month = 1 + r % 12;
    let mut day = 1 + (r * 3) % 28;
    if (year, month) == (1_582, 10) && (5..=14).contains(&day) {
        day = 15;
    }
    (
        year,
        month,
        day,
        (r * 40_503) % 86_400,
        (r * 123_456_789) % 1_000_000_000,
    )
}

/// `(decoded epoch seconds, nanos)`: a hybrid-calendar writer's value for the label.
fn decoded((y, m, d, sod, nanos): Label) -> (i64, i64) {
    let jdn = if (y, m, d) < (1_582, 10, 15) {
        julian_jdn(y, m, d)
    } else {
        gregorian_jdn(y, m, d)
    };
    ((jdn - EPOCH_JDN) * 86_400 + sod, nanos)
}

/// Flink's value for the label in `unit`, from nanoseconds `nanos` (the shape may have
/// dropped some digits already).
fn flink((y, m, d, sod, _): Label, nanos: i64, unit: TimeUnit) -> i64 {
    let seconds = (gregorian_jdn(y, m, d) - EPOCH_JDN) * 86_400 + sod;
    match unit {
        TimeUnit::Millisecond => seconds * 1_000 + nanos / 1_000_000,
        TimeUnit::Microsecond => seconds * 1_000_000 + nanos / 1_000,
        TimeUnit::Nanosecond => seconds * 1_000_000_000 + nanos,
        TimeUnit::Second => seconds,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    TimestampUs,
    Decimal128,
    SecondsNanos,
    TimestampNs,
}

impl Shape {
    const ALL: [Shape; 4] = [
        Shape::TimestampUs,
        Shape::Decimal128,
        Shape::SecondsNanos,
        Shape::TimestampNs,
    ];

    fn name(self) -> &'static str {
        match self {
            Shape::TimestampUs => "timestamp_us",
            Shape::Decimal128 => "decimal128",
            Shape::SecondsNanos => "seconds_nanos",
            Shape::TimestampNs => "timestamp_ns",
        }
    }

    /// The nanoseconds of a value the shape keeps.
    fn kept_nanos(self, nanos: i64) -> i64 {
        match self {
            Shape::TimestampUs => nanos - nanos % 1_000,
            _ => nanos,
        }
    }
}

fn full_range(shape: Shape, precision: u8) -> bool {
    shape != Shape::TimestampNs && precision <= 6
}

fn timestamp_column(shape: Shape, rows: usize, full: bool) -> ArrayRef {
    let nulls = TIMESTAMP_NULLS.null_buffer(rows);
    let valid = |row: usize| !TIMESTAMP_NULLS.is_null(row);
    let values: Vec<(i64, i64)> = (0..rows)
        .map(|row| {
            if valid(row) {
                decoded(label(row, full))
            } else {
                (0, 0)
            }
        })
        .collect();
    match shape {
        Shape::TimestampUs => Arc::new(TimestampMicrosecondArray::new(
            values
                .iter()
                .map(|&(s, n)| s * 1_000_000 + n / 1_000)
                .collect(),
            nulls,
        )),
        Shape::TimestampNs => Arc::new(TimestampNanosecondArray::new(
            values.iter().map(|&(s, n)| s * 1_000_000_000 + n).collect(),
            nulls,
        )),
        Shape::Decimal128 => Arc::new(
            Decimal128Array::new(
                values
                    .iter()
                    .map(|&(s, n)| i128::from(s) * 1_000_000_000 + i128::from(n))
                    .collect(),
                nulls,
            )
            .with_precision_and_scale(38, 9)
            .expect("decimal type"),
        ),
        Shape::SecondsNanos => Arc::new(StructArray::new(
            Fields::from(vec![
                Field::new("seconds", DataType::Int64, true),
                Field::new("nanos", DataType::Int32, true),
            ]),
            vec![
                Arc::new(Int64Array::from_iter_values(values.iter().map(|v| v.0))),
                Arc::new(Int32Array::from_iter_values(
                    values.iter().map(|v| v.1 as i32),
                )),
            ],
            nulls.map(|n: NullBuffer| n),
        )),
    }
}

fn output_values(output: &ArrayRef, unit: TimeUnit) -> Result<Vec<Option<i64>>, String> {
    expect_eq("type", output.data_type(), &DataType::Timestamp(unit, None))?;
    Ok(match unit {
        TimeUnit::Millisecond => output
            .as_primitive::<TimestampMillisecondType>()
            .iter()
            .collect(),
        TimeUnit::Microsecond => output
            .as_primitive::<TimestampMicrosecondType>()
            .iter()
            .collect(),
        TimeUnit::Nanosecond => output
            .as_primitive::<TimestampNanosecondType>()
            .iter()
            .collect(),
        TimeUnit::Second => return Err("no TIMESTAMP carrier is in seconds".into()),
    })
}

fn timestamps(suite: &mut Suite) {
    for shape in Shape::ALL {
        for rows in ROW_COUNTS {
            for precision in PRECISIONS {
                let ty = LogicalType::Timestamp(precision);
                let unit = streamfusion_core::types::timestamp_unit(precision);
                let full = full_range(shape, precision);
                suite.stateless(
                    &format!(
                        "timestamp/{}/rows={rows}/precision={precision}",
                        shape.name()
                    ),
                    || timestamp_column(shape, rows, full),
                    |input| normalize_column(input, &ty, CALENDAR).expect("normalize"),
                    |input, output| {
                        let got = output_values(output, unit)?;
                        expect_eq("rows", &got.len(), &rows)?;
                        for (row, got) in got.iter().enumerate() {
                            let expected = (!TIMESTAMP_NULLS.is_null(row)).then(|| {
                                let l = label(row, full);
                                flink(l, shape.kept_nanos(l.4), unit)
                            });
                            expect_eq(
                                &format!("row {row} ({:?})", label(row, full)),
                                got,
                                &expected,
                            )?;
                        }
                        if shape == Shape::TimestampNs && precision == 9 {
                            shared_values(input, output)?;
                        }
                        Ok(())
                    },
                );
            }
        }
    }
}

/// The output's value buffer is the input's.
fn shared_values(input: &ArrayRef, output: &ArrayRef) -> Verdict {
    let report = buffer_report(input, output);
    if report.new_bytes != 0 {
        return Err(format!(
            "in-range nanoseconds were copied: {} new bytes",
            report.new_bytes
        ));
    }
    Ok(())
}
