//! Golden changelogs written by the released-Flink generators (`GroupAggVectors`,
//! `DedupVectors`, `RankVectors`): JSON values decoded by their column's type, rows with
//! their kinds, and the Arrow columns and changelog batches built from them independently of
//! the engine.
//!
//! Values: `null`; BOOLEAN `true`/`false`; STRING and VARCHAR(n) a JSON string; INT a number; BIGINT a decimal
//! string; DOUBLE Java's `Double.toString` as a string (`NaN`, `Infinity`, `-0.0`,
//! `1.0E300`); DECIMAL a plain decimal string with the type's scale; TIMESTAMP(p) and
//! TIMESTAMP_LTZ(p) for p <= 3 epoch milliseconds in a decimal string.

use std::fmt;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Decimal128Array, Float64Array, Int8Array, Int32Array,
    Int64Array, RecordBatch, StringArray, TimestampMillisecondArray,
};
use arrow::datatypes::{
    DataType, Decimal128Type, Float64Type, Int32Type, Int64Type, TimeUnit, TimestampMillisecondType,
};
use serde_json::Value as Json;
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::types::LogicalType;

/// One value of a golden row, typed by its column.
#[derive(Debug, Clone)]
pub enum Cell {
    Null,
    Bool(bool),
    Str(String),
    /// INT, BIGINT, and TIMESTAMP(p <= 3) as epoch milliseconds.
    Int(i64),
    Double(f64),
    /// The unscaled value and the scale.
    Decimal(i128, u8),
}

impl PartialEq for Cell {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Cell::Null, Cell::Null) => true,
            (Cell::Bool(a), Cell::Bool(b)) => a == b,
            (Cell::Str(a), Cell::Str(b)) => a == b,
            (Cell::Int(a), Cell::Int(b)) => a == b,
            // Bit for bit (so -0.0 differs from 0.0), except that NaNs are all one value:
            // Flink writes whatever NaN its arithmetic produced, `Double.toString` says NaN.
            (Cell::Double(a), Cell::Double(b)) => {
                (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
            }
            (Cell::Decimal(a, s), Cell::Decimal(b, t)) => a == b && s == t,
            _ => false,
        }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Null => f.write_str("NULL"),
            Cell::Bool(b) => write!(f, "{b}"),
            Cell::Str(s) => write!(f, "{s:?}"),
            Cell::Int(i) => write!(f, "{i}"),
            Cell::Double(d) => write!(f, "{d:?}"),
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
        }
    }
}

/// A row and its kind (`+I`, `-U`, `+U`, `-D`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeRow {
    pub kind: String,
    pub cells: Vec<Cell>,
}

impl fmt::Display for ChangeRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [", self.kind)?;
        for (i, c) in self.cells.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{c}")?;
        }
        f.write_str("]")
    }
}

pub fn str_of<'a>(v: &'a Json, what: &str) -> &'a str {
    v.as_str()
        .unwrap_or_else(|| panic!("{what}: expected a string, got {v}"))
}

/// A golden column list `[{"name": .., "type": ..}, ..]` as names and types.
pub fn columns(v: &Json) -> (Vec<String>, Vec<LogicalType>) {
    v.as_array()
        .expect("a list of columns")
        .iter()
        .map(|c| {
            let ty = str_of(&c["type"], "column type");
            (
                str_of(&c["name"], "column name").to_string(),
                ty.parse::<LogicalType>()
                    .unwrap_or_else(|e| panic!("type {ty}: {e}")),
            )
        })
        .unzip()
}

/// `Double.toString` back to the double.
pub fn java_double(s: &str) -> f64 {
    match s {
        "NaN" => f64::NAN,
        "Infinity" => f64::INFINITY,
        "-Infinity" => f64::NEG_INFINITY,
        _ => s.parse().unwrap_or_else(|e| panic!("DOUBLE {s:?}: {e}")),
    }
}

/// `BigDecimal.toPlainString` with exactly `scale` fraction digits, as an unscaled value.
pub fn plain_decimal(s: &str, scale: u8) -> i128 {
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    assert_eq!(frac.len(), usize::from(scale), "DECIMAL {s:?}: scale");
    let unscaled: i128 = format!("{int}{frac}")
        .parse()
        .unwrap_or_else(|e| panic!("DECIMAL {s:?}: {e}"));
    if negative { -unscaled } else { unscaled }
}

fn decimal_string(v: &Json, what: &str) -> i64 {
    str_of(v, what)
        .parse()
        .unwrap_or_else(|e| panic!("{what} {v}: {e}"))
}

/// A golden value of type `ty`.
pub fn cell(v: &Json, ty: &LogicalType) -> Cell {
    if v.is_null() {
        return Cell::Null;
    }
    match ty {
        LogicalType::Boolean => Cell::Bool(v.as_bool().unwrap_or_else(|| panic!("BOOLEAN {v}"))),
        LogicalType::VarChar(_) => Cell::Str(str_of(v, "STRING").to_string()),
        LogicalType::Int => Cell::Int(v.as_i64().unwrap_or_else(|| panic!("INT {v}"))),
        LogicalType::BigInt => Cell::Int(decimal_string(v, "BIGINT")),
        LogicalType::Double => Cell::Double(java_double(str_of(v, "DOUBLE"))),
        LogicalType::Decimal { scale, .. } => {
            Cell::Decimal(plain_decimal(str_of(v, "DECIMAL"), *scale), *scale)
        }
        LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) if *p <= 3 => {
            Cell::Int(decimal_string(v, "TIMESTAMP"))
        }
        other => panic!("no golden encoding for {other}"),
    }
}

/// A golden row line `{tag: kind, "row": [..]}` of `types`.
pub fn change_row(v: &Json, tag: &str, types: &[LogicalType]) -> ChangeRow {
    let kind = str_of(&v[tag], "row kind").to_string();
    let values = v["row"].as_array().expect("row values");
    assert_eq!(values.len(), types.len(), "{v}");
    ChangeRow {
        kind,
        cells: values.iter().zip(types).map(|(v, t)| cell(v, t)).collect(),
    }
}

pub fn kind_byte(kind: &str) -> i8 {
    match kind {
        "+I" => RowKind::Insert,
        "-U" => RowKind::UpdateBefore,
        "+U" => RowKind::UpdateAfter,
        "-D" => RowKind::Delete,
        other => panic!("unknown row kind {other}"),
    }
    .to_byte()
}

/// The Arrow column of `ty` holding `cells`.
pub fn array(ty: &LogicalType, cells: Vec<&Cell>) -> ArrayRef {
    let int = |c: &&Cell| match c {
        Cell::Int(i) => Some(*i),
        _ => None,
    };
    match ty.to_arrow() {
        DataType::Boolean => Arc::new(
            cells
                .iter()
                .map(|c| match c {
                    Cell::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect::<BooleanArray>(),
        ),
        DataType::Utf8 => Arc::new(
            cells
                .iter()
                .map(|c| match c {
                    Cell::Str(s) => Some(s.as_str()),
                    _ => None,
                })
                .collect::<StringArray>(),
        ),
        DataType::Int32 => Arc::new(
            cells
                .iter()
                .map(|c| int(c).map(|i| i32::try_from(i).expect("an INT")))
                .collect::<Int32Array>(),
        ),
        DataType::Int64 => Arc::new(cells.iter().map(int).collect::<Int64Array>()),
        DataType::Float64 => Arc::new(
            cells
                .iter()
                .map(|c| match c {
                    Cell::Double(d) => Some(*d),
                    _ => None,
                })
                .collect::<Float64Array>(),
        ),
        DataType::Decimal128(p, s) => Arc::new(
            cells
                .iter()
                .map(|c| match c {
                    Cell::Decimal(v, _) => Some(*v),
                    _ => None,
                })
                .collect::<Decimal128Array>()
                .with_precision_and_scale(p, s)
                .unwrap(),
        ),
        DataType::Timestamp(TimeUnit::Millisecond, zone) => Arc::new(
            cells
                .iter()
                .map(int)
                .collect::<TimestampMillisecondArray>()
                .with_timezone_opt(zone),
        ),
        other => panic!("no test array for {other}"),
    }
}

/// A changelog batch of `rows` with columns `names` of `types` (every column nullable).
pub fn batch(names: &[String], types: &[LogicalType], rows: &[ChangeRow]) -> ChangelogBatch {
    let columns: Vec<(String, ArrayRef, bool)> = types
        .iter()
        .enumerate()
        .map(|(i, ty)| {
            (
                names[i].clone(),
                array(ty, rows.iter().map(|r| &r.cells[i]).collect()),
                true,
            )
        })
        .collect();
    let batch = RecordBatch::try_from_iter_with_nullable(columns).unwrap();
    let kinds: Int8Array = rows.iter().map(|r| Some(kind_byte(&r.kind))).collect();
    ChangelogBatch::try_new(batch, Some(kinds)).unwrap()
}

/// Row `row` of an emitted column.
pub fn output_cell(column: &ArrayRef, row: usize) -> Cell {
    if column.is_null(row) {
        return Cell::Null;
    }
    match column.data_type() {
        DataType::Boolean => Cell::Bool(column.as_boolean().value(row)),
        DataType::Utf8 => Cell::Str(column.as_string::<i32>().value(row).to_string()),
        DataType::Int32 => Cell::Int(column.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => Cell::Int(column.as_primitive::<Int64Type>().value(row)),
        DataType::Float64 => Cell::Double(column.as_primitive::<Float64Type>().value(row)),
        DataType::Decimal128(_, s) => Cell::Decimal(
            column.as_primitive::<Decimal128Type>().value(row),
            u8::try_from(*s).expect("a non-negative scale"),
        ),
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            Cell::Int(column.as_primitive::<TimestampMillisecondType>().value(row))
        }
        other => panic!("no golden encoding for output {other}"),
    }
}

/// The rows of an emitted batch, with their kinds.
pub fn output_rows(out: &ChangelogBatch) -> Vec<ChangeRow> {
    let b = out.batch();
    (0..out.num_rows())
        .map(|r| ChangeRow {
            kind: out.kind(r).short_string().to_string(),
            cells: b.columns().iter().map(|c| output_cell(c, r)).collect(),
        })
        .collect()
}
