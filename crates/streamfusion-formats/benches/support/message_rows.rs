//! The message fixture of the decode suites (`json_decode`, `csv_decode`): one row of 8
//! fields per message (`id` BIGINT, `i` INT, `si` SMALLINT, `d` DOUBLE, `flag` BOOLEAN and
//! three STRINGs), the values generated from the row number, and the oracle that compares a
//! decoded batch with them (the generator's own values, not a re-parse of the text).

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{Float64Type, Int16Type, Int32Type, Int64Type};
use bench_support::Verdict;
use bench_support::fixtures::mix;
use streamfusion_core::types::{LogicalType, RowField};

/// A field is NULL in one row of this many (with `nulls=true`).
pub const NULL_PERIOD: u64 = 7;

const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);

/// One message's values.
#[derive(Debug, Clone, PartialEq)]
pub struct Values {
    pub id: Option<i64>,
    pub i: Option<i32>,
    pub si: Option<i16>,
    pub d: Option<f64>,
    pub flag: Option<bool>,
    pub s: [Option<String>; 3],
}

/// `width` ASCII bytes (letters, digits, space, `_-.`) seeded by row and lane.
pub fn ascii(row: u64, lane: u64, width: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.";
    (0..width)
        .map(|k| {
            ALPHABET
                [(mix(row, lane * 1_000 + k as u64 / 8) >> (8 * (k % 8))) as usize % ALPHABET.len()]
                as char
        })
        .collect()
}

/// Row `r`'s values, strings from `text(row, lane, width)`; with `nulls`, each field is NULL
/// in one row of [`NULL_PERIOD`] (staggered per field).
pub fn values(
    r: u64,
    width: usize,
    nulls: bool,
    text: impl Fn(u64, u64, usize) -> String,
) -> Values {
    let null = |lane: u64| nulls && (r + lane).is_multiple_of(NULL_PERIOD);
    let m = mix(r, 99);
    Values {
        id: (!null(0)).then_some(m as i64),
        i: (!null(1)).then_some((m >> 7) as i32),
        si: (!null(2)).then_some((m >> 3) as i16),
        d: (!null(3)).then_some((m >> 11) as f64 / 1024.0 - 1e12),
        flag: (!null(4)).then_some(m & 1 == 1),
        s: [5, 6, 7].map(|lane| (!null(lane)).then(|| text(r, lane, width))),
    }
}

/// The table of all 8 fields.
pub fn table_fields() -> Vec<RowField> {
    vec![
        RowField::new("id", LogicalType::BigInt),
        RowField::new("i", LogicalType::Int),
        RowField::new("si", LogicalType::SmallInt),
        RowField::new("d", LogicalType::Double),
        RowField::new("flag", LogicalType::Boolean),
        RowField::new("s1", STRING),
        RowField::new("s2", STRING),
        RowField::new("s3", STRING),
    ]
}

/// A table of 3 of the 8 fields, out of order.
#[allow(dead_code)]
pub fn projected_fields() -> Vec<RowField> {
    vec![
        RowField::new("s2", STRING),
        RowField::new("id", LogicalType::BigInt),
        RowField::new("flag", LogicalType::Boolean),
    ]
}

/// The batch (columns `fields`, by name) against the rows' values.
pub fn check_columns(fields: &[RowField], rows: &[&Values], batch: &RecordBatch) -> Verdict {
    if batch.num_rows() != rows.len() {
        return Err(format!(
            "{} rows, expected {}",
            batch.num_rows(),
            rows.len()
        ));
    }
    for (c, field) in fields.iter().enumerate() {
        let col = batch.column(c);
        for (r, want) in rows.iter().enumerate() {
            let ok = match field.name.as_str() {
                "id" => {
                    want.id == (!col.is_null(r)).then(|| col.as_primitive::<Int64Type>().value(r))
                }
                "i" => {
                    want.i == (!col.is_null(r)).then(|| col.as_primitive::<Int32Type>().value(r))
                }
                "si" => {
                    want.si == (!col.is_null(r)).then(|| col.as_primitive::<Int16Type>().value(r))
                }
                "d" => {
                    want.d == (!col.is_null(r)).then(|| col.as_primitive::<Float64Type>().value(r))
                }
                "flag" => want.flag == (!col.is_null(r)).then(|| col.as_boolean().value(r)),
                name => {
                    let k = name.as_bytes()[1] - b'1';
                    want.s[k as usize].as_deref()
                        == (!col.is_null(r)).then(|| col.as_string::<i32>().value(r))
                }
            };
            if !ok {
                return Err(format!(
                    "row {r} field {} differs from the fixture",
                    field.name
                ));
            }
        }
    }
    Ok(())
}
