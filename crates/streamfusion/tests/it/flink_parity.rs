//! Live parity with released Apache Flink 2.3.0, called through the embedded JVM.
//!
//! Inputs come from the published seed [`SEED`] (`0x5EED_F11C`) through SplitMix64 (the stream
//! `splitmix64(SEED + i * 0x9E37_79B9_7F4A_7C15)`), so every run checks the same values. The
//! released classes are driven by `java/src/org/streamfusion/parity/Oracles.java`, whose
//! static methods take whole arrays so that each check is a handful of JNI calls. The
//! classpath comes from `cargo xtask jvm`; without it (or without a JDK) every test here
//! reports itself skipped by name, with the reason, and returns.

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array, Float64Array,
    Int8Array, Int16Array, Int32Array, Int64Array, StringArray, TimestampMicrosecondArray,
    TimestampMillisecondArray, TimestampNanosecondArray,
};
use bench_support::embedded_jvm::FlinkOracles;
use bench_support::fixtures::{SEED, splitmix64};
use bench_support::jvm::report_skipped;
use streamfusion::binary_row::RowWriter;
use streamfusion::keys::KeyHasher;
use streamfusion::keys::key_groups::{Parallelism, default_max_parallelism, key_groups_for_hashes};
use streamfusion::keys::murmur::murmur_hash;
use streamfusion::types::LogicalType;

/// The SplitMix64 stream seeded with the published seed.
struct Rng(u64);

impl Rng {
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

    fn new(stream: u64) -> Self {
        Self(SEED.wrapping_add(stream.wrapping_mul(0x1000_0000_0000)))
    }

    fn next(&mut self) -> u64 {
        let out = splitmix64(self.0);
        self.0 = self.0.wrapping_add(Self::GAMMA);
        out
    }

    /// Uniform-enough in `0..n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn i32(&mut self) -> i32 {
        self.next() as i32
    }

    /// NULL one time in eight.
    fn null(&mut self) -> bool {
        self.below(8) == 0
    }
}

fn oracles_or_skip(test: &str) -> Option<FlinkOracles> {
    match FlinkOracles::new() {
        Ok(oracles) => Some(oracles),
        Err(reason) => {
            report_skipped(test, &reason);
            None
        }
    }
}

fn assert_all_equal<T: PartialEq + std::fmt::Debug, I: std::fmt::Debug>(
    what: &str,
    inputs: &[I],
    native: &[T],
    flink: &[T],
) {
    assert_eq!(native.len(), flink.len(), "{what}: result lengths differ");
    let differing: Vec<String> = (0..native.len())
        .filter(|&i| native[i] != flink[i])
        .take(10)
        .map(|i| {
            format!(
                "  input {:?}: native {:?}, flink {:?}",
                inputs[i], native[i], flink[i]
            )
        })
        .collect();
    assert!(
        differing.is_empty(),
        "{what}: native and released Flink differ; first ones:\n{}",
        differing.join("\n")
    );
}

fn seeded_ints(stream: u64, n: usize) -> Vec<i32> {
    let mut rng = Rng::new(stream);
    let mut v = vec![0, 1, -1, i32::MIN, i32::MAX, i32::MIN + 1, i32::MAX - 1];
    v.extend((v.len()..n).map(|_| rng.i32()));
    v
}

#[test]
fn murmur_hash_matches_released_math_utils() {
    let Some(flink) = oracles_or_skip("murmur_hash_matches_released_math_utils") else {
        return;
    };
    let codes = seeded_ints(1, 100_000);
    let native: Vec<i32> = codes.iter().map(|&c| murmur_hash(c)).collect();
    let flink = flink.murmur_hashes(&codes).unwrap();
    assert_all_equal("MathUtils.murmurHash", &codes, &native, &flink);
}

#[test]
fn key_groups_for_hashes_match_released_key_group_range_assignment() {
    let Some(flink) =
        oracles_or_skip("key_groups_for_hashes_match_released_key_group_range_assignment")
    else {
        return;
    };
    let hashes = seeded_ints(2, 100_000);
    for max in [1, 2, 3, 7, 128, 129, 1000, 4096, 32767, 32768] {
        let native: Vec<i32> = key_groups_for_hashes(&hashes, max)
            .unwrap()
            .into_iter()
            .map(|g| g as i32)
            .collect();
        let released = flink.key_groups_for_hashes(&hashes, max as i32).unwrap();
        assert_all_equal(
            &format!("computeKeyGroupForKeyHash(_, {max})"),
            &hashes,
            &native,
            &released,
        );
    }
}

#[test]
fn operator_indices_and_key_group_ranges_match_released_flink() {
    let Some(flink) = oracles_or_skip("operator_indices_and_key_group_ranges_match_released_flink")
    else {
        return;
    };
    let mut rng = Rng::new(3);
    let n = 100_000;
    let (mut maxes, mut pars, mut groups, mut indices) = (vec![], vec![], vec![], vec![]);
    for i in 0..n {
        // Edge triples first, then seeded ones (small max parallelisms are as likely as large).
        let max = match i {
            0..=2 => 32_768,
            3..=5 => 1,
            _ if rng.below(2) == 0 => 1 + rng.below(256) as u32,
            _ => 1 + rng.below(32_768) as u32,
        };
        let p = match i {
            0 | 3 => 1,
            1 => max,
            _ => 1 + rng.below(u64::from(max)) as u32,
        };
        maxes.push(max as i32);
        pars.push(p as i32);
        groups.push(rng.below(u64::from(max)) as i32);
        indices.push(rng.below(u64::from(p)) as i32);
    }
    let inputs: Vec<(i32, i32, i32, i32)> = (0..n)
        .map(|i| (maxes[i], pars[i], groups[i], indices[i]))
        .collect();
    let par = |i: usize| Parallelism::try_new(maxes[i] as u32, pars[i] as u32).unwrap();

    let native: Vec<i32> = (0..n)
        .map(|i| par(i).operator_index(groups[i] as u32) as i32)
        .collect();
    let released = flink.operator_indices(&maxes, &pars, &groups).unwrap();
    assert_all_equal(
        "computeOperatorIndexForKeyGroup (max, p, key group, -)",
        &inputs,
        &native,
        &released,
    );

    let native: Vec<(i32, i32)> = (0..n)
        .map(|i| {
            let range = par(i).key_group_range(indices[i] as u32).unwrap();
            (*range.start() as i32, *range.end() as i32)
        })
        .collect();
    let released = flink.key_group_ranges(&maxes, &pars, &indices).unwrap();
    assert_all_equal(
        "computeKeyGroupRangeForOperatorIndex (max, p, -, index)",
        &inputs,
        &native,
        &released,
    );
}

#[test]
fn default_max_parallelism_matches_released_flink_for_every_parallelism() {
    let Some(flink) =
        oracles_or_skip("default_max_parallelism_matches_released_flink_for_every_parallelism")
    else {
        return;
    };
    let pars: Vec<i32> = (1..=32_768).collect();
    let native: Vec<i32> = pars
        .iter()
        .map(|&p| default_max_parallelism(p as u32) as i32)
        .collect();
    let released = flink.default_max_parallelisms(&pars).unwrap();
    assert_all_equal("computeDefaultMaxParallelism", &pars, &native, &released);
}

/// One seeded column: its type, the type as `Oracles.describeRows` spells it, the Arrow
/// array, and each value as `describeRows` renders what the released getters read.
struct Column {
    logical: LogicalType,
    spec: String,
    array: ArrayRef,
    rendered: Vec<String>,
}

fn column<T>(
    rng: &mut Rng,
    rows: usize,
    logical: LogicalType,
    spec: &str,
    mut value: impl FnMut(&mut Rng) -> T,
    render: impl Fn(&T) -> String,
    build: impl FnOnce(Vec<Option<T>>) -> ArrayRef,
) -> Column {
    let values: Vec<Option<T>> = (0..rows)
        .map(|_| (!rng.null()).then(|| value(rng)))
        .collect();
    let rendered = values
        .iter()
        .map(|v| v.as_ref().map_or_else(|| "null".to_string(), &render))
        .collect();
    Column {
        logical,
        spec: spec.to_string(),
        array: build(values),
        rendered,
    }
}

/// Strings of 0 to 23 characters, some multi-byte (and one outside the BMP), so their UTF-8
/// length falls on both sides of the 7-byte inline limit.
fn seeded_string(rng: &mut Rng) -> String {
    const ALPHABET: [char; 12] = ['a', 'b', 'z', 'A', '0', '9', ' ', '_', 'é', 'ß', '€', '𝄞'];
    let len = rng.below(24) as usize;
    (0..len)
        .map(|_| ALPHABET[rng.below(ALPHABET.len() as u64) as usize])
        .collect()
}

/// A decimal of at most `precision` digits, with a seeded number of digits.
fn seeded_unscaled(rng: &mut Rng, precision: u32) -> i128 {
    let digits = 1 + rng.below(u64::from(precision)) as u32;
    let modulus = 10i128.pow(digits);
    let raw = (i128::from(rng.next()) << 64 | i128::from(rng.next())) & i128::MAX;
    let v = raw % modulus;
    if rng.below(2) == 0 { -v } else { v }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `millisecond:nanoOfMillisecond` of `ticks` of `ticks_per_milli` per millisecond.
fn render_timestamp(ticks: i64, ticks_per_milli: i64) -> String {
    let nanos_per_tick = 1_000_000 / ticks_per_milli;
    format!(
        "{}:{}",
        ticks.div_euclid(ticks_per_milli),
        ticks.rem_euclid(ticks_per_milli) * nanos_per_tick
    )
}

/// The seeded schemas: every key type the native writer supports, NULLs in every column.
fn schemas(rows: usize) -> Vec<Vec<Column>> {
    let mut rng = Rng::new(4);
    let r = &mut rng;
    let bigint = |r: &mut Rng| {
        column(
            r,
            rows,
            LogicalType::BigInt,
            "BIGINT",
            |r| r.next() as i64,
            ToString::to_string,
            |v| Arc::new(Int64Array::from(v)),
        )
    };
    let string = |r: &mut Rng| {
        column(
            r,
            rows,
            LogicalType::VarChar(i32::MAX as u32),
            "STRING",
            seeded_string,
            Clone::clone,
            |v| Arc::new(StringArray::from(v)),
        )
    };
    let decimal = |r: &mut Rng, p: u8, s: u8| {
        column(
            r,
            rows,
            LogicalType::Decimal {
                precision: p,
                scale: s,
            },
            &format!("DECIMAL:{p}:{s}"),
            |r| seeded_unscaled(r, u32::from(p)),
            ToString::to_string,
            |v| {
                Arc::new(
                    Decimal128Array::from(v)
                        .with_precision_and_scale(p, s as i8)
                        .unwrap(),
                )
            },
        )
    };
    let timestamp = |r: &mut Rng, p: u8| {
        let (per_milli, range): (i64, u64) = match p {
            0..=3 => (1, 1 << 46),
            4..=6 => (1_000, 1 << 56),
            _ => (1_000_000, u64::MAX),
        };
        column(
            r,
            rows,
            LogicalType::Timestamp(p),
            &format!("TIMESTAMP:{p}"),
            move |r| {
                let t = r.below(range) as i64;
                if per_milli == 1_000_000 {
                    r.next() as i64
                } else if r.below(2) == 0 {
                    -t
                } else {
                    t
                }
            },
            move |t| render_timestamp(*t, per_milli),
            move |v| match p {
                0..=3 => Arc::new(TimestampMillisecondArray::from(v)),
                4..=6 => Arc::new(TimestampMicrosecondArray::from(v)),
                _ => Arc::new(TimestampNanosecondArray::from(v)),
            },
        )
    };
    let int = |r: &mut Rng| {
        column(
            r,
            rows,
            LogicalType::Int,
            "INT",
            Rng::i32,
            ToString::to_string,
            |v| Arc::new(Int32Array::from(v)),
        )
    };
    let boolean = |r: &mut Rng| {
        column(
            r,
            rows,
            LogicalType::Boolean,
            "BOOLEAN",
            |r| r.below(2) == 0,
            ToString::to_string,
            |v| Arc::new(BooleanArray::from(v)),
        )
    };
    let double = |r: &mut Rng| {
        column(
            r,
            rows,
            LogicalType::Double,
            "DOUBLE",
            |r| match r.below(16) {
                0 => -0.0,
                1 => f64::INFINITY,
                2 => f64::NAN,
                _ => (r.next() as i64) as f64 / 1e6,
            },
            |d: &f64| format!("{:x}", d.to_bits()),
            |v| Arc::new(Float64Array::from(v)),
        )
    };
    let float = |r: &mut Rng| {
        column(
            r,
            rows,
            LogicalType::Float,
            "FLOAT",
            |r| (r.i32() as f32) / 1e3,
            |f: &f32| format!("{:x}", f.to_bits()),
            |v| Arc::new(Float32Array::from(v)),
        )
    };
    let small = |r: &mut Rng| {
        column(
            r,
            rows,
            LogicalType::SmallInt,
            "SMALLINT",
            |r| r.next() as i16,
            ToString::to_string,
            |v| Arc::new(Int16Array::from(v)),
        )
    };
    let tiny = |r: &mut Rng| {
        column(
            r,
            rows,
            LogicalType::TinyInt,
            "TINYINT",
            |r| r.next() as i8,
            ToString::to_string,
            |v| Arc::new(Int8Array::from(v)),
        )
    };
    let date = |r: &mut Rng| {
        column(
            r,
            rows,
            LogicalType::Date,
            "INT",
            |r| r.below(3_000_000) as i32 - 1_000_000,
            ToString::to_string,
            |v| Arc::new(Date32Array::from(v)),
        )
    };
    let binary = |r: &mut Rng| {
        column(
            r,
            rows,
            LogicalType::VarBinary(i32::MAX as u32),
            "BINARY",
            |r| {
                let len = r.below(21) as usize;
                (0..len).map(|_| r.next() as u8).collect::<Vec<u8>>()
            },
            |b| hex(b),
            |v| Arc::new(BinaryArray::from_iter(v)),
        )
    };
    vec![
        vec![int(r)],
        vec![bigint(r)],
        vec![string(r)],
        vec![decimal(r, 38, 10)],
        vec![timestamp(r, 9)],
        vec![
            bigint(r),
            string(r),
            decimal(r, 38, 10),
            timestamp(r, 9),
            int(r),
            boolean(r),
            double(r),
        ],
        vec![
            decimal(r, 10, 2),
            decimal(r, 18, 0),
            decimal(r, 19, 4),
            timestamp(r, 3),
            timestamp(r, 6),
            date(r),
            small(r),
            tiny(r),
            float(r),
            binary(r),
            string(r),
        ],
    ]
}

#[test]
fn binary_row_hash_codes_key_groups_and_fields_match_released_flink() {
    let Some(flink) =
        oracles_or_skip("binary_row_hash_codes_key_groups_and_fields_match_released_flink")
    else {
        return;
    };
    let rows = 10_000;
    const MAX_PARALLELISM: u32 = 128;
    for schema in schemas(rows) {
        let types: Vec<LogicalType> = schema.iter().map(|c| c.logical.clone()).collect();
        let specs: Vec<&str> = schema.iter().map(|c| c.spec.as_str()).collect();
        let columns: Vec<ArrayRef> = schema.iter().map(|c| c.array.clone()).collect();
        let written = RowWriter::new(types.clone()).write(&columns).unwrap();
        assert_eq!(written.len(), rows);
        let hasher = KeyHasher::new(types.clone());
        let hashes = hasher.hashes(&columns).unwrap();
        let groups: Vec<i32> = hasher
            .key_groups(&columns, MAX_PARALLELISM)
            .unwrap()
            .into_iter()
            .map(|g| g as i32)
            .collect();
        let (data, offsets) = (written.data(), written.offsets());
        let flink_hashes = flink
            .hash_rows(data, offsets, types.len())
            .unwrap_or_else(|e| panic!("{specs:?}: {e}"));
        let flink_groups = flink
            .key_groups_of_rows(data, offsets, types.len(), MAX_PARALLELISM as i32)
            .unwrap_or_else(|e| panic!("{specs:?}: {e}"));
        let read = flink
            .describe_rows(data, offsets, &specs)
            .unwrap_or_else(|e| panic!("{specs:?}: {e}"));
        let inputs: Vec<String> = (0..rows)
            .map(|r| {
                let values: Vec<&str> = schema.iter().map(|c| c.rendered[r].as_str()).collect();
                format!("{specs:?} row {r} {values:?}")
            })
            .collect();
        assert_all_equal("BinaryRowData.hashCode", &inputs, &hashes, &flink_hashes);
        assert_all_equal(
            "assignToKeyGroup(BinaryRowData, 128)",
            &inputs,
            &groups,
            &flink_groups,
        );
        let expected: Vec<String> = (0..rows)
            .map(|r| {
                std::iter::once("+I")
                    .chain(schema.iter().map(|c| c.rendered[r].as_str()))
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect();
        assert_all_equal(
            "field values read by the released BinaryRowData getters",
            &inputs,
            &expected,
            &read,
        );
    }
}

#[test]
fn a_java_exception_comes_back_as_an_error_with_its_message() {
    let Some(flink) = oracles_or_skip("a_java_exception_comes_back_as_an_error_with_its_message")
    else {
        return;
    };
    let written = RowWriter::new(vec![LogicalType::Int])
        .write(&[Arc::new(Int32Array::from(vec![7])) as ArrayRef])
        .unwrap();
    let error = flink
        .describe_rows(written.data(), written.offsets(), &["NO_SUCH_TYPE"])
        .expect_err("an unknown type must throw");
    let message = format!("{error:?}");
    assert!(
        message.contains("IllegalArgumentException") && message.contains("NO_SUCH_TYPE"),
        "{message}"
    );
    // The JVM stays usable after a Java exception.
    assert_eq!(flink.murmur_hashes(&[0]).unwrap(), vec![murmur_hash(0)]);
}

/// `unscaled × 10^-scale` as `BigDecimal.toPlainString` writes it.
fn plain_decimal(unscaled: i128, scale: u32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    let scale = scale as usize;
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

#[test]
fn decimal_arithmetic_matches_released_decimal_data_utils() {
    use arrow::array::{Array, AsArray};
    use arrow::datatypes::Decimal128Type;
    use streamfusion::calc::functions::arithmetic as ar;
    use streamfusion::calc::{CalcProgram, Expr, compile};
    use streamfusion::changelog::ChangelogBatch;

    let Some(flink) = oracles_or_skip("decimal_arithmetic_matches_released_decimal_data_utils")
    else {
        return;
    };
    let types: [((u8, u8), (u8, u8)); 7] = [
        ((5, 2), (3, 1)),
        ((18, 2), (10, 4)),
        ((18, 0), (18, 0)),
        ((38, 10), (38, 0)),
        ((19, 0), (18, 18)),
        ((38, 38), (38, 2)),
        ((30, 5), (7, 7)),
    ];
    let ops = [
        ("add", ar::PLUS),
        ("subtract", ar::MINUS),
        ("multiply", ar::TIMES),
        ("divide", ar::DIVIDE),
        ("mod", ar::MOD),
    ];
    let mut checked = 0;
    for (t, &((p1, s1), (p2, s2))) in types.iter().enumerate() {
        let mut rng = Rng::new(200 + t as u64);
        let n = 400;
        // Extremes first: zero, one unit, the largest magnitudes; zero divisors are checked
        // below, one row at a time (a failing row fails the whole batch).
        let max1 = 10i128.pow(u32::from(p1)) - 1;
        let max2 = 10i128.pow(u32::from(p2)) - 1;
        let mut a = vec![0, 1, -1, max1, -max1, max1, 5];
        let mut b = vec![1, -1, max2, max2, 1, -max2, 3];
        while a.len() < n {
            a.push(seeded_unscaled(&mut rng, u32::from(p1)));
            // Zero divisors are checked separately below.
            b.push(
                Some(seeded_unscaled(&mut rng, u32::from(p2)))
                    .filter(|&v| v != 0)
                    .unwrap_or(7),
            );
        }
        let dec = |p: u8, s: u8| LogicalType::Decimal {
            precision: p,
            scale: s,
        };
        let input = [dec(p1, s1), dec(p2, s2)];
        let column = |v: &[i128], p: u8, s: u8| -> ArrayRef {
            Arc::new(
                Decimal128Array::from(v.to_vec())
                    .with_precision_and_scale(p, s as i8)
                    .unwrap(),
            )
        };
        let text = |v: &[i128], s: u8| -> Vec<String> {
            v.iter().map(|&x| plain_decimal(x, u32::from(s))).collect()
        };
        let (a_text, b_text) = (text(&a, s1), text(&b, s2));
        let a_refs: Vec<&str> = a_text.iter().map(String::as_str).collect();
        let b_refs: Vec<&str> = b_text.iter().map(String::as_str).collect();
        for (name, op) in ops {
            let program =
                CalcProgram::project(vec![Expr::call(op, vec![Expr::input(0), Expr::input(1)])]);
            let compiled = compile(&program, &input).unwrap();
            let LogicalType::Decimal { precision, scale } = compiled.output_types()[0] else {
                panic!("{name}: a DECIMAL result");
            };
            let batch = arrow::array::RecordBatch::try_from_iter([
                ("a", column(&a, p1, s1)),
                ("b", column(&b, p2, s2)),
            ])
            .unwrap();
            let out = compiled
                .evaluate(&ChangelogBatch::insert_only(batch))
                .unwrap_or_else(|e| panic!("{name} {input:?}: {e}"));
            let result = out.batch().column(0).as_primitive::<Decimal128Type>();
            let native: Vec<String> = (0..result.len())
                .map(|i| {
                    if result.is_null(i) {
                        "null".to_string()
                    } else {
                        plain_decimal(result.value(i), u32::from(scale))
                    }
                })
                .collect();
            let expected = flink
                .decimal_arithmetic(
                    name,
                    &a_refs,
                    &b_refs,
                    (i32::from(p1), i32::from(s1)),
                    (i32::from(p2), i32::from(s2)),
                    (i32::from(precision), i32::from(scale)),
                )
                .unwrap();
            let inputs: Vec<(String, String)> =
                a_text.iter().cloned().zip(b_text.iter().cloned()).collect();
            assert_all_equal(
                &format!("DECIMAL({p1}, {s1}) {name} DECIMAL({p2}, {s2})"),
                &inputs,
                &native,
                &expected,
            );
            checked += native.len();
        }
        // A zero divisor fails the evaluation as BigDecimal throws.
        for (name, op) in [("divide", ar::DIVIDE), ("mod", ar::MOD)] {
            let expected = flink
                .decimal_arithmetic(
                    name,
                    &[a_refs[1]],
                    &["0"],
                    (i32::from(p1), i32::from(s1)),
                    (i32::from(p2), i32::from(s2)),
                    (38, 6),
                )
                .unwrap();
            assert_eq!(expected, ["error:java.lang.ArithmeticException"]);
            let program =
                CalcProgram::project(vec![Expr::call(op, vec![Expr::input(0), Expr::input(1)])]);
            let batch = arrow::array::RecordBatch::try_from_iter([
                ("a", column(&a[1..2], p1, s1)),
                ("b", column(&[0], p2, s2)),
            ])
            .unwrap();
            let err = compile(&program, &input)
                .unwrap()
                .evaluate(&ChangelogBatch::insert_only(batch))
                .unwrap_err();
            assert!(err.to_string().contains("ArithmeticException"), "{err}");
        }
    }
    assert!(checked >= 7 * 5 * 400);
}

/// Timestamps around the window grid: the epoch, negatives, the extremes and seeded values.
fn seeded_timestamps(stream: u64, n: usize) -> Vec<i64> {
    let mut rng = Rng::new(stream);
    let mut v = vec![
        0,
        1,
        -1,
        999,
        1000,
        -1000,
        -1001,
        i64::MIN + 1,
        i64::MAX,
        i64::MAX - 7,
    ];
    while v.len() < n {
        let raw = rng.next() as i64;
        // Mostly realistic epoch millis, some anywhere in the range.
        v.push(if rng.below(4) == 0 {
            raw
        } else {
            raw % 4_000_000_000_000
        });
    }
    v
}

#[test]
fn window_starts_match_released_time_window() {
    let Some(flink) = oracles_or_skip("window_starts_match_released_time_window") else {
        return;
    };
    let ts = seeded_timestamps(300, 4_000);
    let mut rng = Rng::new(301);
    let sizes = [1, 7, 1_000, 60_000, 3_600_000, 86_400_000];
    let size: Vec<i64> = ts.iter().map(|_| sizes[rng.below(6) as usize]).collect();
    let offset: Vec<i64> = size
        .iter()
        .map(|&s| (rng.next() as i64) % (2 * s) - s / 2)
        .collect();
    let native: Vec<i64> = (0..ts.len())
        .map(|i| streamfusion::window::window_start_with_offset(ts[i], offset[i], size[i]))
        .collect();
    let expected = flink.window_starts(&ts, &offset, &size).unwrap();
    let inputs: Vec<(i64, i64, i64)> = (0..ts.len()).map(|i| (ts[i], offset[i], size[i])).collect();
    assert_all_equal("getWindowStartWithOffset", &inputs, &native, &expected);
}

#[test]
fn tumble_hop_and_cumulate_windows_match_released_assigners() {
    use streamfusion::window::WindowAssigner;
    let Some(flink) = oracles_or_skip("tumble_hop_and_cumulate_windows_match_released_assigners")
    else {
        return;
    };
    // Realistic timestamps only: the released HOP/CUMULATE loops assume no overflow.
    let ts: Vec<i64> = seeded_timestamps(302, 2_000)
        .into_iter()
        .map(|t| t % 4_000_000_000_000)
        .collect();
    let shapes: [(&str, i64, i64, i64); 7] = [
        ("TUMBLE", 60_000, 0, 0),
        ("TUMBLE", 86_400_000, 0, -28_800_000),
        ("TUMBLE", 7, 0, 3),
        ("HOP", 60_000, 10_000, 0),
        ("HOP", 3_600_000, 900_000, 120_000),
        ("CUMULATE", 86_400_000, 3_600_000, 0),
        ("CUMULATE", 60_000, 15_000, -5_000),
    ];
    for (kind, size, slide, offset) in shapes {
        let assigner = match kind {
            "TUMBLE" => WindowAssigner::tumble(size, offset),
            "HOP" => WindowAssigner::hop(size, slide, offset),
            _ => WindowAssigner::cumulate(size, slide, offset),
        }
        .unwrap();
        let native: Vec<Vec<(i64, i64)>> = ts
            .iter()
            .map(|&t| {
                let mut out = Vec::new();
                assigner.assign(t, &mut out);
                out.iter().map(|w| (w.start, w.end)).collect()
            })
            .collect();
        let expected = flink
            .assign_windows(kind, size, slide, offset, &ts)
            .unwrap();
        assert_all_equal(
            &format!("{kind}(size {size}, slide {slide}, offset {offset})"),
            &ts,
            &native,
            &expected,
        );
    }
}

/// Number-like strings: signs, spaces, tabs, fractions, exponents, overflow, garbage.
fn seeded_number_strings(stream: u64, n: usize) -> Vec<String> {
    let mut rng = Rng::new(stream);
    let mut v: Vec<String> = [
        "",
        " ",
        "+",
        "-",
        "0",
        "-0",
        "12",
        " 12 ",
        "\t12",
        "12a",
        "1.5",
        "-1.5",
        ".5",
        "5.",
        "1e3",
        "2147483647",
        "2147483648",
        "-2147483648",
        "-2147483649",
        "9223372036854775807",
        "9223372036854775808",
        "00012",
        "1.2.3",
        " - 5",
        "١٢",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    const PIECES: [&str; 8] = [" ", "-", "+", ".", "e", "a", "0", "\t"];
    while v.len() < n {
        let mut s = String::new();
        for _ in 0..rng.below(4) {
            if rng.below(3) == 0 {
                s.push_str(PIECES[rng.below(PIECES.len() as u64) as usize]);
            }
            let digits = 1 + rng.below(12);
            for _ in 0..digits {
                s.push(char::from(b'0' + rng.below(10) as u8));
            }
        }
        v.push(s);
    }
    v
}

#[test]
fn string_to_number_casts_match_released_binary_string_data_util() {
    use arrow::array::{Array, AsArray, RecordBatch, StringArray};
    use arrow::datatypes::{Decimal128Type, Int32Type, Int64Type};
    use streamfusion::calc::{CalcProgram, Expr, compile};
    use streamfusion::changelog::ChangelogBatch;

    let Some(flink) =
        oracles_or_skip("string_to_number_casts_match_released_binary_string_data_util")
    else {
        return;
    };
    let values = seeded_number_strings(400, 600);
    let refs: Vec<&str> = values.iter().map(String::as_str).collect();
    let targets = [
        ("INT", LogicalType::Int),
        ("BIGINT", LogicalType::BigInt),
        (
            "DECIMAL:10:2",
            LogicalType::Decimal {
                precision: 10,
                scale: 2,
            },
        ),
        (
            "DECIMAL:30:5",
            LogicalType::Decimal {
                precision: 30,
                scale: 5,
            },
        ),
    ];
    for (name, target) in targets {
        let compiled = compile(
            &CalcProgram::project(vec![Expr::input(0).cast(target.clone())]),
            &[LogicalType::VarChar(i32::MAX as u32)],
        )
        .unwrap();
        // One row at a time: a failing value fails its whole batch, as in Flink.
        let native: Vec<String> = values
            .iter()
            .map(|v| {
                let batch = RecordBatch::try_from_iter([(
                    "s",
                    Arc::new(StringArray::from(vec![v.as_str()])) as ArrayRef,
                )])
                .unwrap();
                match compiled.evaluate(&ChangelogBatch::insert_only(batch)) {
                    Err(e) => match e {
                        streamfusion::calc::CalcError::Evaluation { message, .. } => {
                            format!("error:{}", message.replace('\n', " "))
                        }
                        other => panic!("{other}"),
                    },
                    Ok(out) => {
                        let c = out.batch().column(0);
                        assert!(c.is_valid(0), "CAST never gives NULL for a non-NULL string");
                        match &target {
                            LogicalType::Int => c.as_primitive::<Int32Type>().value(0).to_string(),
                            LogicalType::BigInt => {
                                c.as_primitive::<Int64Type>().value(0).to_string()
                            }
                            LogicalType::Decimal { scale, .. } => plain_decimal(
                                c.as_primitive::<Decimal128Type>().value(0),
                                u32::from(*scale),
                            ),
                            _ => unreachable!(),
                        }
                    }
                }
            })
            .collect();
        // A failure is compared by its exception class: past 18 digits Flink's DECIMAL parse
        // is `new BigDecimal(chars)`, whose messages StreamFusion does not copy.
        let class = |r: &String| match r.strip_prefix("error:") {
            Some(e) => format!("error:{}", e.split(':').next().unwrap_or(e)),
            None => r.clone(),
        };
        let native: Vec<String> = native.iter().map(class).collect();
        let expected: Vec<String> = flink
            .cast_strings(name, &refs)
            .unwrap()
            .iter()
            .map(class)
            .collect();
        assert_all_equal(
            &format!("CAST(STRING AS {name})"),
            &values,
            &native,
            &expected,
        );
        assert_all_equal(
            &format!("CAST(STRING AS {name})"),
            &values,
            &native,
            &expected,
        );
    }
}

#[test]
fn truncate_of_double_matches_released_sql_function_utils() {
    use arrow::array::{AsArray, RecordBatch};
    use arrow::datatypes::Float64Type;
    use streamfusion::calc::functions::math::TRUNCATE;
    use streamfusion::calc::{CalcProgram, Expr, compile};
    use streamfusion::changelog::ChangelogBatch;

    let Some(flink) = oracles_or_skip("truncate_of_double_matches_released_sql_function_utils")
    else {
        return;
    };
    let mut rng = Rng::new(500);
    let mut x = vec![0.0, -0.0, 1.5, -1.5, 123.456_789, 0.285, 1e-7, 99_999.999_9];
    while x.len() < 1_000 {
        let magnitude = 10f64.powi(rng.below(30) as i32 - 15);
        let v = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * magnitude;
        x.push(if rng.below(2) == 0 { -v } else { v });
    }
    for places in -3..=8 {
        let compiled = compile(
            &CalcProgram::project(vec![Expr::call(
                TRUNCATE,
                vec![
                    Expr::input(0),
                    Expr::lit(LogicalType::Int, places.to_string()),
                ],
            )]),
            &[LogicalType::Double],
        )
        .unwrap();
        let batch = RecordBatch::try_from_iter([(
            "x",
            Arc::new(Float64Array::from(x.clone())) as ArrayRef,
        )])
        .unwrap();
        let out = compiled
            .evaluate(&ChangelogBatch::insert_only(batch))
            .unwrap();
        let native: Vec<u64> = out
            .batch()
            .column(0)
            .as_primitive::<Float64Type>()
            .values()
            .iter()
            .map(|v| v.to_bits())
            .collect();
        let expected: Vec<u64> = flink
            .truncate_doubles(&x, &vec![places; x.len()])
            .unwrap()
            .into_iter()
            .map(f64::to_bits)
            .collect();
        assert_all_equal(&format!("TRUNCATE(x, {places})"), &x, &native, &expected);
    }
}
