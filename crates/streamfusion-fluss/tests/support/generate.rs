//! Seeded batches for the integration tests: a row id, key columns and nullable value
//! columns of every type the statistics cover, with edge values (NaN, ±0.0, ±∞, extreme
//! integers, empty and non-ASCII strings).
#![allow(dead_code)]

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array, Float64Array,
    Int8Array, Int16Array, Int32Array, Int64Array, RecordBatch, StringArray,
    Time32MillisecondArray, TimestampMicrosecondArray,
};
use arrow::datatypes::{Field, Schema};

/// SplitMix64.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const PIECES: [&str; 8] = ["a", "é", "Z", "€", "😀", "0", " ", "ж"];

fn string(rng: &mut Rng) -> String {
    let len = rng.below(12) as usize;
    (0..len).map(|_| PIECES[rng.below(8) as usize]).collect()
}

fn f64_value(rng: &mut Rng) -> f64 {
    match rng.below(12) {
        0 => f64::NAN,
        1 => -f64::NAN,
        2 => 0.0,
        3 => -0.0,
        4 => f64::INFINITY,
        5 => f64::NEG_INFINITY,
        _ => (rng.next() as i64 % 1_000_000) as f64 / 7.0,
    }
}

/// Column names, in order.
pub const COLUMNS: [&str; 17] = [
    "id", "k_big", "k_str", "k_int", "b", "i8", "i16", "i32", "i64", "f32", "f64", "date", "time",
    "ts", "dec", "s", "bin",
];
pub const ID: usize = 0;
pub const K_BIG: usize = 1;
pub const K_STR: usize = 2;
pub const K_INT: usize = 3;

/// `rows` rows: column 0 is the row id, columns 1-3 non-NULL keys (BIGINT, STRING, INT, with
/// `key_domain` distinct values each when nonzero), the rest nullable values (about one in
/// `null_every` NULL; 0 means none).
pub fn batch(rows: usize, seed: u64, key_domain: u64, null_every: u64) -> RecordBatch {
    let mut rng = Rng(seed);
    let key = |rng: &mut Rng| {
        let k = rng.next();
        if key_domain == 0 { k } else { k % key_domain }
    };
    let k_big: Vec<i64> = (0..rows)
        .map(|_| {
            let k = key(&mut rng);
            // Spread over the whole range, negatives and extremes included.
            match k % 16 {
                0 => i64::MIN,
                1 => -1,
                _ => k.wrapping_mul(0x9E37_79B9_7F4A_7C15) as i64,
            }
        })
        .collect();
    let k_str: Vec<String> = (0..rows)
        .map(|_| {
            let k = key(&mut rng);
            let mut r = Rng(k);
            string(&mut r)
        })
        .collect();
    let k_int: Vec<i32> = (0..rows).map(|_| key(&mut rng) as i32).collect();
    let null = |rng: &mut Rng| null_every != 0 && rng.below(null_every) == 0;
    macro_rules! nullable {
        ($array:ty, $value:expr) => {{
            let values: Vec<_> = (0..rows)
                .map(|_| {
                    if null(&mut rng) {
                        None
                    } else {
                        Some($value(&mut rng))
                    }
                })
                .collect();
            Arc::new(<$array>::from(values)) as ArrayRef
        }};
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(0..rows as i64)),
        Arc::new(Int64Array::from(k_big)),
        Arc::new(StringArray::from(k_str)),
        Arc::new(Int32Array::from(k_int)),
        nullable!(BooleanArray, |r: &mut Rng| r.below(2) == 0),
        nullable!(Int8Array, |r: &mut Rng| r.next() as i8),
        nullable!(Int16Array, |r: &mut Rng| r.next() as i16),
        nullable!(Int32Array, |r: &mut Rng| r.next() as i32),
        nullable!(Int64Array, |r: &mut Rng| r.next() as i64),
        nullable!(Float32Array, |r: &mut Rng| f64_value(r) as f32),
        nullable!(Float64Array, f64_value),
        nullable!(Date32Array, |r: &mut Rng| r.below(100_000) as i32 - 50_000),
        nullable!(Time32MillisecondArray, |r: &mut Rng| r.below(86_400_000)
            as i32),
        nullable!(TimestampMicrosecondArray, |r: &mut Rng| (r.next() as i64)
            >> 8),
        {
            let values: Vec<Option<i128>> = (0..rows)
                .map(|_| (!null(&mut rng)).then(|| i128::from(rng.next() as i64) * 1_000 + 7))
                .collect();
            Arc::new(
                Decimal128Array::from(values)
                    .with_precision_and_scale(30, 3)
                    .unwrap(),
            )
        },
        nullable!(StringArray, string),
        {
            let values: Vec<Option<Vec<u8>>> = (0..rows)
                .map(|_| (!null(&mut rng)).then(|| rng.next().to_le_bytes().to_vec()))
                .collect();
            Arc::new(BinaryArray::from_iter(values))
        },
    ];
    let fields: Vec<Field> = COLUMNS
        .iter()
        .zip(&columns)
        .enumerate()
        .map(|(i, (name, array))| Field::new(*name, array.data_type().clone(), i > K_INT))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}
