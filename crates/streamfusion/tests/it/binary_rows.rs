//! `BinaryRowData` rows to Arrow and back: the reader against rows written by released
//! Flink 2.3.0 (`tests/golden/flink-2.3.0-key-rows.jsonl`), round trips with row kinds over
//! the benchmark fixtures, typed errors for malformed rows, and seeded mutation fuzzing.

use super::common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, Int8Array, RecordBatch};
use arrow::datatypes::{
    DurationMillisecondType, IntervalYearMonthType, TimeUnit, TimestampNanosecondType,
};
use bench_support::fixtures::{self, NullPattern};
use streamfusion::binary_row::{RowReader, RowWriter, null_bits_width};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::error::{Error, RowProblem};
use streamfusion::types::LogicalType;

use common::{Schema, columns, golden, hex, unhex};

/// The golden rows of `schema`, back to back, and their boundaries.
fn golden_rows(schema: &Schema) -> (Vec<u8>, Vec<usize>) {
    let mut data = Vec::new();
    let mut offsets = vec![0];
    for row in &schema.rows {
        data.extend(unhex(&row.bytes));
        offsets.push(data.len());
    }
    (data, offsets)
}

fn names(types: &[LogicalType]) -> Vec<String> {
    types.iter().map(ToString::to_string).collect()
}

#[test]
fn every_golden_row_decodes_to_its_values_and_reencodes_to_the_same_bytes() {
    let (schemas, _) = golden();
    let mut decoded_rows = 0;
    for schema in &schemas {
        let (data, offsets) = golden_rows(schema);
        let reader = RowReader::new(schema.types.clone());
        let batch = reader
            .read(&data, &offsets)
            .unwrap_or_else(|e| panic!("{:?}: {e}", names(&schema.types)));
        assert!(batch.kinds().is_none(), "key rows are all +I");
        assert_eq!(batch.num_rows(), schema.rows.len());
        for (i, expected) in columns(schema).iter().enumerate() {
            let decoded = batch.batch().column(i);
            if decoded.as_ref() != expected.as_ref() {
                let first = (0..expected.len())
                    .find(|&r| decoded.slice(r, 1).as_ref() != expected.slice(r, 1).as_ref())
                    .unwrap_or(0);
                panic!(
                    "{:?} field {i} row {first}: decoded {:?}, golden {:?}",
                    names(&schema.types),
                    decoded.slice(first, 1),
                    schema.rows[first].values[i]
                );
            }
        }
        let rewritten = RowWriter::new(schema.types.clone())
            .write_changelog(&batch)
            .unwrap();
        for (r, row) in rewritten.iter().enumerate() {
            assert_eq!(
                hex(row),
                schema.rows[r].bytes,
                "{:?} row {r}",
                names(&schema.types)
            );
        }
        decoded_rows += schema.rows.len();
    }
    assert!(decoded_rows >= 10_000, "only {decoded_rows} golden rows");
}

#[test]
fn golden_rows_with_row_kinds_in_their_headers_keep_the_kinds_both_ways() {
    let (schemas, _) = golden();
    for schema in &schemas {
        let (mut data, offsets) = golden_rows(schema);
        let kinds: Vec<i8> = (0..schema.rows.len()).map(|r| (r % 4) as i8).collect();
        for (start, kind) in offsets.iter().zip(&kinds) {
            data[*start] = *kind as u8;
        }
        let batch = RowReader::new(schema.types.clone())
            .read(&data, &offsets)
            .unwrap();
        if schema.rows.len() > 1 {
            assert_eq!(batch.kinds(), Some(&Int8Array::from(kinds)));
        }
        let rewritten = RowWriter::new(schema.types.clone())
            .write_changelog(&batch)
            .unwrap();
        assert_eq!(rewritten.data(), data.as_slice());
        assert_eq!(rewritten.offsets(), offsets.as_slice());
    }
}

/// Types and fixture columns (of `len` rows, NULLs staggered per column) for round trips.
fn fixture_columns(len: usize) -> (Vec<LogicalType>, Vec<ArrayRef>) {
    let nulls = |c: usize| {
        NullPattern::RowColumn {
            column: 0,
            modulus: 13,
        }
        .for_column(c)
    };
    let decimal = |p: u8, s: u8| LogicalType::Decimal {
        precision: p,
        scale: s,
    };
    let ltz_nanos =
        fixtures::timestamp_array::<TimestampNanosecondType>(len, nulls(15)).with_timezone("UTC");
    let columns: Vec<(LogicalType, ArrayRef)> = vec![
        (
            LogicalType::BigInt,
            Arc::new(fixtures::int64(len, nulls(0))),
        ),
        (LogicalType::Int, Arc::new(fixtures::int32(len, nulls(1)))),
        (
            LogicalType::TinyInt,
            Arc::new(fixtures::int8(len, nulls(2))),
        ),
        (
            LogicalType::SmallInt,
            Arc::new(fixtures::int16(len, nulls(3))),
        ),
        (
            LogicalType::Boolean,
            Arc::new(fixtures::booleans(len, nulls(4))),
        ),
        (
            LogicalType::Float,
            Arc::new(fixtures::float32(len, nulls(5))),
        ),
        (
            LogicalType::Double,
            Arc::new(fixtures::float64(len, nulls(6))),
        ),
        (
            decimal(18, 2),
            Arc::new(fixtures::decimal128(len, 18, 2, nulls(7))),
        ),
        (
            decimal(19, 0),
            Arc::new(fixtures::decimal128(len, 19, 0, nulls(8))),
        ),
        (
            decimal(38, 10),
            Arc::new(fixtures::decimal128(len, 38, 10, nulls(9))),
        ),
        (LogicalType::Date, Arc::new(fixtures::dates(len, nulls(10)))),
        (
            LogicalType::Time(3),
            Arc::new(fixtures::times(len, nulls(11))),
        ),
        (
            LogicalType::Timestamp(3),
            fixtures::timestamps(len, TimeUnit::Millisecond, nulls(12)),
        ),
        (
            LogicalType::Timestamp(6),
            fixtures::timestamps(len, TimeUnit::Microsecond, nulls(13)),
        ),
        (
            LogicalType::Timestamp(9),
            fixtures::timestamps(len, TimeUnit::Nanosecond, nulls(14)),
        ),
        (LogicalType::TimestampLtz(9), Arc::new(ltz_nanos)),
        (
            LogicalType::VarChar(100),
            Arc::new(fixtures::utf8(len, 0, nulls(16))),
        ),
        (
            LogicalType::VarChar(100),
            Arc::new(fixtures::utf8(len, 7, nulls(17))),
        ),
        (
            LogicalType::Char(8),
            Arc::new(fixtures::utf8(len, 8, nulls(18))),
        ),
        (
            LogicalType::VarChar(300),
            Arc::new(fixtures::utf8(len, 264, nulls(19))),
        ),
        (
            LogicalType::Binary(7),
            Arc::new(fixtures::binary(len, 7, nulls(20))),
        ),
        (
            LogicalType::VarBinary(8),
            Arc::new(fixtures::binary(len, 8, nulls(21))),
        ),
        (
            LogicalType::VarBinary(99),
            Arc::new(fixtures::binary(len, 33, nulls(22))),
        ),
        (
            LogicalType::IntervalYearMonth,
            Arc::new(fixtures::int32(len, nulls(23)).reinterpret_cast::<IntervalYearMonthType>()),
        ),
        (
            LogicalType::IntervalDayTime,
            Arc::new(fixtures::int64(len, nulls(24)).reinterpret_cast::<DurationMillisecondType>()),
        ),
    ];
    columns.into_iter().unzip()
}

/// [`fixture_columns`] of `rows` rows, sliced: buffers begin mid-allocation and validity is
/// not byte aligned.
fn sliced_fixture_columns(rows: usize) -> (Vec<LogicalType>, Vec<ArrayRef>) {
    let offset = fixtures::SLICE_OFFSET;
    let (types, full) = fixture_columns(rows + offset);
    let columns = full.iter().map(|c| c.slice(offset, rows)).collect();
    (types, columns)
}

#[test]
fn fixture_columns_round_trip_with_row_kinds_through_rows_and_back() {
    let offset = fixtures::SLICE_OFFSET;
    for rows in [0, 1, 16, 1_024] {
        let (types, columns) = sliced_fixture_columns(rows);
        let reader = RowReader::new(types.clone());
        let writer = RowWriter::new(types.clone());
        let batch = RecordBatch::try_new(reader.schema().clone(), columns.clone()).unwrap();
        let kinds = Int8Array::from_iter_values((0..rows + offset).map(|r| (r % 4) as i8));
        let input = ChangelogBatch::try_new(batch, Some(kinds.slice(offset, rows))).unwrap();

        let encoded = writer.write_changelog(&input).unwrap();
        assert_eq!(encoded.len(), rows);
        for (r, row) in encoded.iter().enumerate() {
            assert_eq!(row[0], ((r + offset) % 4) as u8, "row {r} header");
            assert_eq!(row.len() % 8, 0);
        }
        let decoded = reader.read_rows(&encoded).unwrap();
        for (i, (expected, got)) in columns.iter().zip(decoded.batch().columns()).enumerate() {
            assert_eq!(
                got.as_ref(),
                expected.as_ref(),
                "{rows} rows, field {i} {}",
                types[i]
            );
        }
        if rows > 1 {
            assert_eq!(decoded.kinds(), input.kinds());
        }
        assert_eq!(writer.write_changelog(&decoded).unwrap(), encoded);
        // Without kinds the headers are 0 and the reader reports an insert-only batch.
        let keys = writer.write(&columns).unwrap();
        assert!(keys.iter().all(|row| row[0] == 0));
        assert!(reader.read_rows(&keys).unwrap().kinds().is_none());
    }
}

#[test]
fn prefixed_rows_are_the_plain_rows_each_after_zeroed_room() {
    for rows in [0, 1, 16, 1_024] {
        let (types, columns) = sliced_fixture_columns(rows);
        let writer = RowWriter::new(types.clone());
        let plain = writer.write(&columns).unwrap();
        for prefix in [0, 2, 5] {
            let mut prefixed = writer.write_prefixed(&columns, rows, prefix).unwrap();
            assert_eq!(prefixed.len(), rows);
            assert_eq!(prefixed.prefix(), prefix);
            for r in 0..rows {
                assert_eq!(
                    prefixed.row(r),
                    plain.row(r),
                    "{rows} rows, prefix {prefix}, row {r}"
                );
                let region = prefixed.prefixed_row(r);
                assert_eq!(&region[..prefix], vec![0u8; prefix].as_slice());
                assert_eq!(&region[prefix..], plain.row(r));
            }
            assert!(prefixed.iter().eq(plain.iter()));
            // Filling one row's prefix leaves every row as it was.
            if rows > 0 {
                prefixed.prefix_mut(rows - 1).fill(0xAB);
                assert_eq!(prefixed.row(rows - 1), plain.row(rows - 1));
            }
            let read = RowReader::new(types.clone()).read_rows(&prefixed);
            if prefix == 0 {
                read.unwrap();
            } else {
                assert!(matches!(read, Err(Error::InvalidShape(_))), "{read:?}");
            }
        }
    }
}

/// Types of the malformed-row cases, and one well-formed row of them.
fn sample() -> (Vec<LogicalType>, Vec<u8>) {
    let types = vec![
        LogicalType::BigInt,
        LogicalType::VarChar(100),
        LogicalType::Decimal {
            precision: 38,
            scale: 10,
        },
        LogicalType::Timestamp(9),
        LogicalType::Timestamp(6),
        LogicalType::Decimal {
            precision: 5,
            scale: 2,
        },
    ];
    let columns: Vec<ArrayRef> = vec![
        Arc::new(arrow::array::Int64Array::from(vec![7])),
        Arc::new(arrow::array::StringArray::from(vec!["abcdefghij"])),
        Arc::new(
            arrow::array::Decimal128Array::from(vec![-12_345_678_901_234_567_890_123i128])
                .with_precision_and_scale(38, 10)
                .unwrap(),
        ),
        Arc::new(arrow::array::TimestampNanosecondArray::from(vec![
            1_234_567_890,
        ])),
        Arc::new(arrow::array::TimestampMicrosecondArray::from(vec![
            -1_234_567,
        ])),
        Arc::new(
            arrow::array::Decimal128Array::from(vec![99_999i128])
                .with_precision_and_scale(5, 2)
                .unwrap(),
        ),
    ];
    let row = RowWriter::new(types.clone()).write(&columns).unwrap();
    (types, row.row(0).to_vec())
}

fn slot_at(types: &[LogicalType], field: usize) -> usize {
    null_bits_width(types.len()) + 8 * field
}

fn read_slot(row: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(row[at..at + 8].try_into().unwrap())
}

fn write_slot(row: &mut [u8], at: usize, value: u64) {
    row[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// Reads a good row then `bad`, and returns the error's row, field and problem.
fn problem_of(types: &[LogicalType], bad: &[u8]) -> (usize, Option<usize>, RowProblem) {
    let (_, good) = sample();
    let mut data = good.clone();
    data.extend_from_slice(bad);
    let offsets = [0, good.len(), data.len()];
    match RowReader::new(types.to_vec()).read(&data, &offsets) {
        Err(Error::MalformedRow {
            row,
            field,
            problem,
        }) => (row, field, problem),
        other => panic!("expected a malformed row, got {other:?}"),
    }
}

#[test]
fn the_sample_row_reads_back() {
    let (types, row) = sample();
    let batch = RowReader::new(types.clone())
        .read(&row, &[0, row.len()])
        .unwrap();
    let again = RowWriter::new(types).write_changelog(&batch).unwrap();
    assert_eq!(again.row(0), row.as_slice());
}

#[test]
fn malformed_rows_give_typed_errors_naming_row_and_field() {
    let (types, good) = sample();
    let fixed = slot_at(&types, types.len());
    let string_slot = slot_at(&types, 1);
    let decimal_slot = slot_at(&types, 2);
    let ts9_slot = slot_at(&types, 3);
    let ts6_slot = slot_at(&types, 4);
    let compact_slot = slot_at(&types, 5);
    let var_of = |row: &[u8], at: usize| (read_slot(row, at) >> 32) as usize;

    let short = &good[..fixed - 8];
    assert_eq!(
        problem_of(&types, short),
        (
            1,
            None,
            RowProblem::ShorterThanFixedPart {
                len: fixed - 8,
                fixed
            }
        )
    );

    let mut unaligned = good.clone();
    unaligned.extend_from_slice(&[0, 0, 0]);
    assert_eq!(
        problem_of(&types, &unaligned),
        (
            1,
            None,
            RowProblem::UnalignedLength {
                len: good.len() + 3
            }
        )
    );

    let mut kind = good.clone();
    kind[0] = 0x84;
    assert_eq!(
        problem_of(&types, &kind),
        (1, None, RowProblem::UnknownRowKind { byte: -124 })
    );

    let mut outside = good.clone();
    write_slot(&mut outside, string_slot, (1000 << 32) | 10);
    assert_eq!(
        problem_of(&types, &outside),
        (
            1,
            Some(1),
            RowProblem::OutsideRow {
                offset: 1000,
                len: 10,
                row_len: good.len()
            }
        )
    );

    let mut too_long = good.clone();
    let at = var_of(&good, string_slot) as u64;
    write_slot(&mut too_long, string_slot, (at << 32) | u64::from(u32::MAX));
    assert!(matches!(
        problem_of(&types, &too_long),
        (1, Some(1), RowProblem::OutsideRow { .. })
    ));

    let mut inline = good.clone();
    write_slot(&mut inline, string_slot, u64::from(0x80u8 | 9) << 56);
    assert_eq!(
        problem_of(&types, &inline),
        (1, Some(1), RowProblem::InlineTooLong { len: 9 })
    );

    let mut utf8 = good.clone();
    let at = var_of(&good, string_slot);
    utf8[at + 3] = 0xff;
    assert_eq!(
        problem_of(&types, &utf8),
        (1, Some(1), RowProblem::InvalidUtf8 { valid_up_to: 3 })
    );

    let mut decimal = good.clone();
    let at = var_of(&good, decimal_slot) as u64;
    write_slot(&mut decimal, decimal_slot, (at << 32) | 17);
    assert_eq!(
        problem_of(&types, &decimal),
        (1, Some(2), RowProblem::DecimalLength { len: 17 })
    );
    write_slot(&mut decimal, decimal_slot, at << 32);
    assert_eq!(
        problem_of(&types, &decimal),
        (1, Some(2), RowProblem::DecimalLength { len: 0 })
    );

    let mut decimal_range = good.clone();
    let at = var_of(&good, decimal_slot);
    decimal_range[at..at + 16].copy_from_slice(&i128::MAX.to_be_bytes());
    write_slot(&mut decimal_range, decimal_slot, ((at as u64) << 32) | 16);
    assert!(matches!(
        problem_of(&types, &decimal_range),
        (
            1,
            Some(2),
            RowProblem::DecimalOverflow { precision: 38, .. }
        )
    ));

    let mut compact = good.clone();
    write_slot(&mut compact, compact_slot, 100_000);
    assert_eq!(
        problem_of(&types, &compact),
        (
            1,
            Some(5),
            RowProblem::DecimalOverflow {
                value: 100_000,
                precision: 5
            }
        )
    );

    let mut nanos = good.clone();
    let at = var_of(&good, ts9_slot) as u64;
    write_slot(&mut nanos, ts9_slot, (at << 32) | 1_000_000);
    assert_eq!(
        problem_of(&types, &nanos),
        (1, Some(3), RowProblem::NanosOutOfRange { nanos: 1_000_000 })
    );

    let mut far = good.clone();
    let at = var_of(&good, ts9_slot);
    far[at..at + 8].copy_from_slice(&(i64::MAX / 1_000).to_le_bytes());
    assert!(matches!(
        problem_of(&types, &far),
        (
            1,
            Some(3),
            RowProblem::TimestampUnrepresentable { nanos: 567_890, .. }
        )
    ));

    let mut sub_micro = good.clone();
    let at = var_of(&good, ts6_slot) as u64;
    write_slot(&mut sub_micro, ts6_slot, (at << 32) | 1);
    let (row, field, problem) = problem_of(&types, &sub_micro);
    assert_eq!((row, field), (1, Some(4)));
    assert_eq!(
        problem.to_string(),
        "timestamp -1235 ms + 1 ns is not representable in Microsecond"
    );

    // The message names the row and the field.
    let err = RowReader::new(types.clone())
        .read(&inline, &[0, inline.len()])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "BinaryRowData row 0 field 1: inline length 9 is larger than 7"
    );
}

#[test]
fn bad_row_boundaries_are_rejected_before_any_row_is_read() {
    let (types, good) = sample();
    let reader = RowReader::new(types);
    for (offsets, why) in [
        (vec![], "at least one entry"),
        (vec![0, good.len() + 8], "data has"),
        (vec![8, 0], "decrease at row 0"),
    ] {
        let err = reader.read(&good, &offsets).unwrap_err().to_string();
        assert!(err.contains(why), "{offsets:?}: {err}");
    }
    assert_eq!(reader.read(&good, &[0]).unwrap().num_rows(), 0);
}

/// A seeded stream of 64-bit words.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(1);
        fixtures::splitmix64(self.0)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn mutated_golden_rows_decode_or_fail_but_never_panic() {
    const MUTATIONS: usize = 12_000;
    let (schemas, _) = golden();
    let mut sample_schema = sample();
    let mut inputs: Vec<(Vec<LogicalType>, Vec<Vec<u8>>)> = schemas
        .iter()
        .map(|s| {
            let rows = s.rows.iter().take(16).map(|r| unhex(&r.bytes)).collect();
            (s.types.clone(), rows)
        })
        .collect();
    inputs.push((std::mem::take(&mut sample_schema.0), vec![sample_schema.1]));
    let mut rng = SplitMix(fixtures::SEED);
    let (mut ok, mut failed) = (0usize, 0usize);
    for i in 0..MUTATIONS {
        let (types, rows) = &inputs[rng.below(inputs.len())];
        let mut row = rows[rng.below(rows.len())].clone();
        let fixed = slot_at(types, types.len());
        let mutation = rng.below(5);
        match mutation {
            0 => {
                // Flip a few bytes.
                for _ in 0..=rng.below(3) {
                    let at = rng.below(row.len());
                    row[at] ^= (rng.next() as u8) | 1;
                }
            }
            1 => row.truncate(rng.below(row.len() + 1)),
            2 => {
                // A random offset and length in a random slot.
                let at = slot_at(types, rng.below(types.len()));
                write_slot(&mut row, at, rng.next());
            }
            3 => {
                // A nearby offset or length: off by a little, often still inside the row.
                let at = slot_at(types, rng.below(types.len()));
                let slot = read_slot(&row, at);
                let delta = (rng.below(64) as u64) << if rng.below(2) == 0 { 32 } else { 0 };
                write_slot(&mut row, at, slot.wrapping_add(delta));
            }
            _ => {
                // Grow or shrink the variable part.
                let len = rng.below(row.len() + 24);
                row.resize(len.max(fixed.saturating_sub(8)), rng.next() as u8);
            }
        }
        let reader = RowReader::new(types.clone());
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let decoded = reader.read(&row, &[0, row.len()])?;
            // Whatever decodes must also encode.
            RowWriter::new(types.clone()).write_changelog(&decoded)
        }));
        match outcome {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(_)) => failed += 1,
            Err(_) => panic!(
                "mutation {i} (kind {mutation}) of a {:?} row panicked: {}",
                names(types),
                hex(&row)
            ),
        }
    }
    assert_eq!(ok + failed, MUTATIONS);
    assert!(ok > 100 && failed > 100, "{ok} decoded, {failed} failed");
}

// ---- Nested ARRAY and MAP fields -------------------------------------------------------------

/// The field types of `java/src/org/streamfusion/parity/NestedRows.java` (`NestedRows.TYPES`).
const NESTED_TYPES: [&str; 9] = [
    "ARRAY<INT>",
    "ARRAY<VARCHAR(2147483647)>",
    "ARRAY<DECIMAL(20, 2)>",
    "ARRAY<TIMESTAMP(9)>",
    "ARRAY<ROW<a INT, b VARCHAR(2147483647)>>",
    "MAP<VARCHAR(2147483647), BIGINT>",
    "MAP<INT, ARRAY<VARCHAR(2147483647)>>",
    "ARRAY<BOOLEAN>",
    "ARRAY<BIGINT>",
];

const NESTED_ROWS: usize = 40;

fn nested_types() -> Vec<LogicalType> {
    NESTED_TYPES.iter().map(|t| t.parse().unwrap()).collect()
}

/// Splits lists into their lengths (`None` for a NULL list) and their elements, back to back.
fn flatten<T>(lists: Vec<Option<Vec<T>>>) -> (Vec<Option<usize>>, Vec<T>) {
    let lens = lists.iter().map(|l| l.as_ref().map(Vec::len)).collect();
    (lens, lists.into_iter().flatten().flatten().collect())
}

/// The Arrow list of type `t` (an ARRAY or MAP) with these lengths over `values`.
fn list(t: &LogicalType, lens: &[Option<usize>], values: ArrayRef) -> ArrayRef {
    use arrow::buffer::{NullBuffer, OffsetBuffer};
    let arrow::datatypes::DataType::List(field) = t.to_arrow() else {
        panic!("{t} is not a list");
    };
    let offsets = OffsetBuffer::from_lengths(lens.iter().map(|l| l.unwrap_or(0)));
    let nulls = NullBuffer::from(lens.iter().map(Option::is_some).collect::<Vec<_>>());
    Arc::new(arrow::array::ListArray::new(
        field,
        offsets,
        values,
        Some(nulls),
    ))
}

/// The entries of a `MAP<k, v>` from its keys and values.
fn entries(t: &LogicalType, keys: ArrayRef, values: ArrayRef) -> ArrayRef {
    let LogicalType::Map(k, v) = t else {
        panic!("{t} is not a MAP");
    };
    Arc::new(arrow::array::StructArray::new(
        streamfusion::types::map_entry_fields(k, v),
        vec![keys, values],
        None,
    ))
}

/// `NestedRows.rows(n)`'s values, computed here from the fixture's formulas (not by Flink or
/// by the reader): row `i`'s fields as Arrow columns.
fn nested_columns(n: usize) -> Vec<ArrayRef> {
    use arrow::array::{
        BooleanArray, Decimal128Array, Int32Array, Int64Array, StringArray, StructArray,
        TimestampNanosecondArray,
    };
    let t = nested_types();
    let rows = 0..n as i64;
    // ARRAY<INT>: NULL, empty (fromPrimitiveArray), 3 values (fromPrimitiveArray), or the
    // writer with NULL elements.
    let (lens, ints) = flatten(
        rows.clone()
            .map(|i| match i % 6 {
                0 => None,
                1 => Some(vec![]),
                2 => Some(vec![Some(i as i32), Some(-i as i32), Some(i as i32 * 1000)]),
                _ => Some(
                    (0..i % 5 + 1)
                        .map(|j| ((i + j) % 3 != 0).then_some((i * 7 + j) as i32))
                        .collect(),
                ),
            })
            .collect(),
    );
    let c0 = list(&t[0], &lens, Arc::new(Int32Array::from(ints)));
    let (lens, strings) = flatten(
        rows.clone()
            .map(|i| {
                (i % 5 != 0).then(|| {
                    (0..i % 4)
                        .map(|j| match j {
                            1 => None,
                            _ if (i + j) % 2 == 0 => Some(format!("s{i}/{j}")),
                            _ => Some(format!("a long élément #{i}/{j}")),
                        })
                        .collect()
                })
            })
            .collect(),
    );
    let c1 = list(&t[1], &lens, Arc::new(StringArray::from(strings)));
    let (lens, decimals) = flatten(
        rows.clone()
            .map(|i| {
                (i % 4 != 3).then(|| {
                    (0..3i64)
                        .map(|j| {
                            let unscaled = i128::from(i * 123_456_789 + j) * 1_000_000_000;
                            match j {
                                1 => None,
                                2 => Some(-unscaled),
                                _ => Some(unscaled),
                            }
                        })
                        .collect()
                })
            })
            .collect(),
    );
    let decimals = Decimal128Array::from(decimals)
        .with_precision_and_scale(20, 2)
        .unwrap();
    let c2 = list(&t[2], &lens, Arc::new(decimals));
    let (lens, timestamps) = flatten(
        rows.clone()
            .map(|i| {
                (i % 7 != 4).then(|| {
                    vec![
                        Some((i * 86_400_000 - 5) * 1_000_000 + (i * 1009) % 1_000_000),
                        (i % 2 != 0).then_some(-i * 1_000_000 + 999_999),
                    ]
                })
            })
            .collect(),
    );
    let c3 = list(
        &t[3],
        &lens,
        Arc::new(TimestampNanosecondArray::from(timestamps)),
    );
    let (lens, elements) = flatten(
        rows.clone()
            .map(|i| {
                (i % 3 != 2).then(|| {
                    vec![
                        Some((Some(i as i32), format!("row string long #{i}"))),
                        (i % 2 != 0).then(|| (None, "x".to_string())),
                    ]
                })
            })
            .collect(),
    );
    let LogicalType::Array(row_type) = &t[4] else {
        unreachable!()
    };
    let LogicalType::Row(row_fields) = row_type.as_ref() else {
        unreachable!()
    };
    let row_nulls =
        arrow::buffer::NullBuffer::from(elements.iter().map(Option::is_some).collect::<Vec<_>>());
    let (a, b): (Vec<_>, Vec<_>) = elements
        .into_iter()
        .map(|e| e.map_or((None, None), |(a, b)| (a, Some(b))))
        .unzip();
    let row_elements = StructArray::new(
        streamfusion::types::row_arrow_fields(row_fields),
        vec![
            Arc::new(Int32Array::from(a)),
            Arc::new(StringArray::from(b)),
        ],
        Some(row_nulls),
    );
    let c4 = list(&t[4], &lens, Arc::new(row_elements));
    let (lens, pairs) = flatten(
        rows.clone()
            .map(|i| {
                (i % 5 != 1).then(|| {
                    let n = i % 3 + i64::from(i % 5 == 4);
                    (0..n)
                        .map(|j| {
                            let key = if i % 5 == 4 && j == n - 1 {
                                None
                            } else if j % 2 == 0 {
                                Some(format!("k{j}"))
                            } else {
                                Some(format!("a longer key {i}/{j}"))
                            };
                            (key, (j != 1).then_some(i * 1_000_003 - j))
                        })
                        .collect()
                })
            })
            .collect(),
    );
    let (keys, values): (Vec<_>, Vec<_>) = pairs.into_iter().unzip();
    let c5 = list(
        &t[5],
        &lens,
        entries(
            &t[5],
            Arc::new(StringArray::from(keys)),
            Arc::new(Int64Array::from(values)),
        ),
    );
    let (lens, pairs) = flatten(
        rows.clone()
            .map(|i| {
                (i % 4 != 0).then(|| {
                    vec![
                        (
                            i as i32,
                            Some(vec![
                                Some(format!("v{i}")),
                                None,
                                Some(format!("value number {i}")),
                            ]),
                        ),
                        (i as i32 + 1, None),
                    ]
                })
            })
            .collect(),
    );
    let (keys, values): (Vec<_>, Vec<_>) = pairs.into_iter().unzip();
    let (value_lens, value_strings) = flatten(values);
    let LogicalType::Map(_, value_type) = &t[6] else {
        unreachable!()
    };
    let value_arrays = list(
        value_type,
        &value_lens,
        Arc::new(StringArray::from(value_strings)),
    );
    let c6 = list(
        &t[6],
        &lens,
        entries(&t[6], Arc::new(Int32Array::from(keys)), value_arrays),
    );
    let (lens, booleans) = flatten(
        rows.clone()
            .map(|i| {
                Some(
                    (0..(i * 7) % 41)
                        .map(|j| (j % 5 != 3).then_some((i + j) % 2 == 0))
                        .collect(),
                )
            })
            .collect(),
    );
    let c7 = list(&t[7], &lens, Arc::new(BooleanArray::from(booleans)));
    let (lens, longs) = flatten(
        rows.map(|i| (i % 8 != 5).then(|| vec![Some(i), Some(i64::MIN + i)]))
            .collect(),
    );
    let c8 = list(&t[8], &lens, Arc::new(Int64Array::from(longs)));
    vec![c0, c1, c2, c3, c4, c5, c6, c7, c8]
}

/// Value `i` of `array` (of type `t`) as `Oracles.describeRows` renders what Flink reads.
fn render(t: &LogicalType, array: &dyn Array, i: usize) -> String {
    use arrow::array::AsArray;
    use arrow::datatypes::{Decimal128Type, Int32Type, Int64Type};
    if array.is_null(i) {
        return "null".into();
    }
    let join = |parts: Vec<String>| parts.join(",");
    match t {
        LogicalType::Int => array.as_primitive::<Int32Type>().value(i).to_string(),
        LogicalType::BigInt => array.as_primitive::<Int64Type>().value(i).to_string(),
        LogicalType::Boolean => array.as_boolean().value(i).to_string(),
        LogicalType::VarChar(_) => array.as_string::<i32>().value(i).to_string(),
        LogicalType::Decimal { .. } => array.as_primitive::<Decimal128Type>().value(i).to_string(),
        LogicalType::Timestamp(9) => {
            let ns = array.as_primitive::<TimestampNanosecondType>().value(i);
            format!("{}:{}", ns.div_euclid(1_000_000), ns.rem_euclid(1_000_000))
        }
        LogicalType::Row(fields) => {
            let row = array.as_struct();
            let parts = fields
                .iter()
                .enumerate()
                .map(|(f, field)| render(&field.ty, row.column(f).as_ref(), i))
                .collect();
            format!("({})", join(parts))
        }
        LogicalType::Array(element) => {
            let values = array.as_list::<i32>().value(i);
            let parts = (0..values.len())
                .map(|j| render(element, values.as_ref(), j))
                .collect();
            format!("[{}]", join(parts))
        }
        LogicalType::Map(k, v) => {
            let entries = array.as_list::<i32>().value(i);
            let entries = entries.as_struct();
            let parts = (0..entries.len())
                .map(|j| {
                    let key = render(k, entries.column(0).as_ref(), j);
                    format!("{key}={}", render(v, entries.column(1).as_ref(), j))
                })
                .collect();
            format!("{{{}}}", join(parts))
        }
        other => panic!("no rendering for {other}"),
    }
}

/// Every row as `Oracles.describeRows` lines: `kind|field0|field1|...`.
fn render_rows(types: &[LogicalType], columns: &[ArrayRef], kinds: &[i8]) -> Vec<String> {
    (0..kinds.len())
        .map(|r| {
            let mut line = ["+I", "-U", "+U", "-D"][kinds[r] as usize].to_string();
            for (t, c) in types.iter().zip(columns) {
                line.push('|');
                line.push_str(&render(t, c.as_ref(), r));
            }
            line
        })
        .collect()
}

/// `NestedRows.rows(n)`: rows written by released Flink's writers.
fn flink_nested_rows(
    oracles: &bench_support::embedded_jvm::FlinkOracles,
    n: i32,
) -> (Vec<u8>, Vec<usize>) {
    use bench_support::embedded_jvm::ints;
    use bench_support::embedded_jvm::jni::JValue;
    use bench_support::embedded_jvm::jni::objects::{JByteArray, JObjectArray};
    use bench_support::embedded_jvm::jni::signature::RuntimeMethodSignature;
    use bench_support::embedded_jvm::jni::strings::JNIString;
    oracles
        .vm()
        .attach_current_thread(|env| {
            let sig = RuntimeMethodSignature::from_str("(I)[Ljava/lang/Object;")?;
            let result = env
                .call_static_method(
                    JNIString::new("org/streamfusion/parity/NestedRows"),
                    JNIString::new("rows"),
                    sig.method_signature(),
                    &[JValue::Int(n)],
                )?
                .l()?;
            let result = env.cast_local::<JObjectArray>(result)?;
            let data = result.get_element(env, 0)?;
            let data = env.cast_local::<JByteArray>(data)?;
            let data = env.convert_byte_array(&data)?;
            let offsets = result.get_element(env, 1)?;
            let offsets = ints(env, offsets)?
                .into_iter()
                .map(|o| o as usize)
                .collect();
            Ok::<_, bench_support::embedded_jvm::jni::errors::Error>((data, offsets))
        })
        .expect("NestedRows.rows")
}

fn nested_kinds(n: usize) -> Vec<i8> {
    (0..n).map(|i| (i % 4) as i8).collect()
}

fn nested_batch(columns: Vec<ArrayRef>) -> ChangelogBatch {
    let reader = RowReader::new(nested_types());
    let batch = RecordBatch::try_new(reader.schema().clone(), columns).unwrap();
    let kinds = Int8Array::from(nested_kinds(batch.num_rows()));
    ChangelogBatch::try_new(batch, Some(kinds)).unwrap()
}

#[test]
fn flink_written_arrays_and_maps_decode_to_their_values_and_reencode_byte_for_byte() {
    let test = "flink_written_arrays_and_maps_decode_to_their_values_and_reencode_byte_for_byte";
    let oracles = match bench_support::embedded_jvm::FlinkOracles::new() {
        Ok(oracles) => oracles,
        Err(reason) => return bench_support::jvm::report_skipped(test, &reason),
    };
    let types = nested_types();
    let (data, offsets) = flink_nested_rows(&oracles, NESTED_ROWS as i32);
    let decoded = RowReader::new(types.clone()).read(&data, &offsets).unwrap();
    let expected = nested_columns(NESTED_ROWS);
    for (f, (got, want)) in decoded.batch().columns().iter().zip(&expected).enumerate() {
        for r in 0..NESTED_ROWS {
            assert_eq!(
                render(&types[f], got.as_ref(), r),
                render(&types[f], want.as_ref(), r),
                "row {r} field {f} {}",
                types[f]
            );
        }
        assert_eq!(got.as_ref(), want.as_ref(), "field {f} {}", types[f]);
    }
    let writer = RowWriter::new(types.clone());
    let again = writer.write_changelog(&decoded).unwrap();
    for r in 0..NESTED_ROWS {
        assert_eq!(
            hex(again.row(r)),
            hex(&data[offsets[r]..offsets[r + 1]]),
            "row {r} re-encoded"
        );
    }
    // The same values built natively encode to Flink's bytes too.
    let native = writer.write_changelog(&nested_batch(expected)).unwrap();
    assert_eq!(native.data(), data.as_slice());
    // And Flink's getters read the rows as the fixture's formulas say.
    let names: Vec<&str> = NESTED_TYPES.to_vec();
    let described = oracles.describe_rows(&data, &offsets, &names).unwrap();
    assert_eq!(
        described,
        render_rows(
            &types,
            decoded.batch().columns(),
            &nested_kinds(NESTED_ROWS)
        )
    );
    // A NULL map key survives: row 9's map is {NULL -> 9000027}.
    assert!(
        described[9].contains("|{null=9000027}|"),
        "{}",
        described[9]
    );
}

#[test]
fn natively_written_arrays_and_maps_read_back_in_flink_as_their_values() {
    let test = "natively_written_arrays_and_maps_read_back_in_flink_as_their_values";
    let oracles = match bench_support::embedded_jvm::FlinkOracles::new() {
        Ok(oracles) => oracles,
        Err(reason) => return bench_support::jvm::report_skipped(test, &reason),
    };
    let types = nested_types();
    let offset = 3;
    // Sliced: list offsets that do not start at 0 and unaligned validity.
    let columns: Vec<ArrayRef> = nested_columns(NESTED_ROWS + offset)
        .iter()
        .map(|c| c.slice(offset, NESTED_ROWS))
        .collect();
    let input = nested_batch(columns.clone());
    let rows = RowWriter::new(types.clone())
        .write_changelog(&input)
        .unwrap();
    let names: Vec<&str> = NESTED_TYPES.to_vec();
    let described = oracles
        .describe_rows(rows.data(), rows.offsets(), &names)
        .unwrap();
    assert_eq!(
        described,
        render_rows(&types, &columns, &nested_kinds(NESTED_ROWS))
    );
    let decoded = RowReader::new(types).read_rows(&rows).unwrap();
    for (got, want) in decoded.batch().columns().iter().zip(&columns) {
        assert_eq!(got.as_ref(), want.as_ref());
    }
}

/// One `ARRAY<INT>, MAP<INT, STRING>` row: `[1, NULL, 3]` and `{7 -> "a long value", 8 -> NULL}`.
fn nested_sample() -> (Vec<LogicalType>, Vec<u8>) {
    use arrow::array::{Int32Array, StringArray};
    let types: Vec<LogicalType> = vec![
        "ARRAY<INT>".parse().unwrap(),
        "MAP<INT, STRING>".parse().unwrap(),
    ];
    let ints = list(
        &types[0],
        &[Some(3)],
        Arc::new(Int32Array::from(vec![Some(1), None, Some(3)])),
    );
    let map = list(
        &types[1],
        &[Some(2)],
        entries(
            &types[1],
            Arc::new(Int32Array::from(vec![7, 8])),
            Arc::new(StringArray::from(vec![Some("a long value"), None])),
        ),
    );
    let rows = RowWriter::new(types.clone()).write(&[ints, map]).unwrap();
    (types, rows.row(0).to_vec())
}

#[test]
fn an_int_array_has_count_null_words_and_four_byte_slots() {
    let (types, row) = nested_sample();
    // Row: 8 null bytes + 2 slots; the array at 24: count 3, one null word (bit 1), 3 ints,
    // padded from 20 to 24 bytes.
    assert_eq!(read_slot(&row, 8), (24 << 32) | 24);
    let mut array = vec![
        3, 0, 0, 0, 0b10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0,
    ];
    array.resize(24, 0);
    assert_eq!(&row[24..48], array.as_slice());
    // The map at 48: key array size 16, keys [7, 8] (16 bytes), values with one long string.
    let (map_at, map_len) = (read_slot(&row, 16) >> 32, read_slot(&row, 16) as u32);
    assert_eq!(map_at, 48);
    assert_eq!(map_len, 4 + 16 + 8 + 16 + 16);
    assert_eq!(&row[48..52], &16i32.to_le_bytes());
    let read = RowReader::new(types.clone())
        .read(&row, &[0, row.len()])
        .unwrap();
    assert_eq!(
        RowWriter::new(types)
            .write(read.batch().columns())
            .unwrap()
            .row(0),
        row.as_slice()
    );
}

#[test]
fn malformed_arrays_and_maps_are_typed_errors() {
    let (types, row) = nested_sample();
    let problem = |bad: &[u8]| match RowReader::new(types.clone()).read(bad, &[0, bad.len()]) {
        Err(Error::MalformedRow {
            row: 0, problem, ..
        }) => problem,
        other => panic!("expected a malformed row, got {other:?}"),
    };
    let nested = |element, problem| RowProblem::NestedArray {
        element,
        problem: Box::new(problem),
    };
    let mut count = row.clone();
    count[24..28].copy_from_slice(&6i32.to_le_bytes());
    assert_eq!(
        problem(&count),
        nested(
            None,
            RowProblem::ArrayTooShort {
                len: 24,
                needed: 32
            }
        )
    );
    let mut negative = row.clone();
    negative[24..28].copy_from_slice(&(-1i32).to_le_bytes());
    assert_eq!(
        problem(&negative),
        nested(None, RowProblem::NegativeArraySize { count: -1 })
    );
    let mut huge = row.clone();
    huge[24..28].copy_from_slice(&i32::MAX.to_le_bytes());
    assert!(matches!(
        problem(&huge),
        RowProblem::NestedArray { element: None, .. }
    ));
    let mut tiny = row.clone();
    write_slot(&mut tiny, 8, (24 << 32) | 2);
    assert_eq!(
        problem(&tiny),
        nested(None, RowProblem::ArrayTooShort { len: 2, needed: 4 })
    );
    let mut keys = row.clone();
    keys[48..52].copy_from_slice(&1000i32.to_le_bytes());
    assert_eq!(
        problem(&keys),
        RowProblem::MapKeyArrayOutside {
            key_bytes: 1000,
            len: 60
        }
    );
    let mut sizes = row.clone();
    sizes[52..56].copy_from_slice(&1i32.to_le_bytes());
    assert_eq!(
        problem(&sizes),
        RowProblem::MapSizesDiffer { keys: 1, values: 2 }
    );
    // The long string value (slot of value 0) pointing past its array.
    let value_slot = 48 + 4 + 16 + 8;
    let mut string = row.clone();
    write_slot(&mut string, value_slot, (100 << 32) | 12);
    assert_eq!(
        problem(&string),
        RowProblem::NestedMap {
            keys: false,
            problem: Box::new(nested(
                Some(0),
                RowProblem::OutsideRow {
                    offset: 100,
                    len: 12,
                    row_len: 40
                }
            ))
        }
    );
    let mut short_map = row.clone();
    write_slot(&mut short_map, 16, (48 << 32) | 3);
    assert_eq!(problem(&short_map), RowProblem::MapTooShort { len: 3 });
}

#[test]
fn mutated_nested_rows_decode_or_fail_but_never_panic() {
    const MUTATIONS: usize = 6_000;
    let types = nested_types();
    let rows = RowWriter::new(types.clone())
        .write_changelog(&nested_batch(nested_columns(NESTED_ROWS)))
        .unwrap();
    let mut rng = SplitMix(fixtures::SEED ^ 0xa11a);
    let (mut ok, mut failed) = (0usize, 0usize);
    for i in 0..MUTATIONS {
        let mut row = rows.row(rng.below(rows.len())).to_vec();
        let fixed = slot_at(&types, types.len());
        match rng.below(3) {
            0 => {
                // Flip a few bytes, mostly inside the nested values.
                for _ in 0..=rng.below(3) {
                    let at = fixed + rng.below(row.len().saturating_sub(fixed).max(1));
                    if let Some(b) = row.get_mut(at) {
                        *b ^= (rng.next() as u8) | 1;
                    }
                }
            }
            1 => {
                // A nearby offset or size in a field slot.
                let at = slot_at(&types, rng.below(types.len()));
                let slot = read_slot(&row, at);
                let delta = (rng.below(64) as u64) << if rng.below(2) == 0 { 32 } else { 0 };
                write_slot(&mut row, at, slot.wrapping_sub(delta));
            }
            _ => {
                // A random 4-byte word inside the variable part (counts, key sizes, slots).
                if row.len() > fixed + 4 {
                    let at = fixed + rng.below(row.len() - fixed - 4);
                    row[at..at + 4].copy_from_slice(&(rng.next() as u32).to_le_bytes());
                }
            }
        }
        let reader = RowReader::new(types.clone());
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let decoded = reader.read(&row, &[0, row.len()])?;
            RowWriter::new(types.clone()).write_changelog(&decoded)
        }));
        match outcome {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(_)) => failed += 1,
            Err(_) => panic!("nested mutation {i} panicked: {}", hex(&row)),
        }
    }
    assert!(ok > 100 && failed > 100, "{ok} decoded, {failed} failed");
}

/// Every row of `data` (boundaries `offsets`) measures its own length from its bytes, with
/// the rows after it still in the slice; cut short, it is an error.
fn assert_lengths(writer: &RowWriter, data: &[u8], offsets: &[usize], what: &str) {
    for (r, w) in offsets.windows(2).enumerate() {
        let len = w[1] - w[0];
        assert_eq!(
            writer.row_len(&data[w[0]..]).unwrap(),
            len,
            "{what}: row {r}"
        );
        assert!(
            writer.row_len(&data[w[0]..w[1] - 1]).is_err(),
            "{what}: row {r} cut short"
        );
    }
}

#[test]
fn a_row_measures_its_length_from_its_own_bytes() {
    let (schemas, _) = golden();
    for schema in &schemas {
        let (data, offsets) = golden_rows(schema);
        let writer = RowWriter::new(schema.types.clone());
        assert_lengths(
            &writer,
            &data,
            &offsets,
            &format!("golden {:?}", names(&schema.types)),
        );
    }
    let (types, columns) = fixture_columns(64);
    let rows = RowWriter::new(types.clone()).write(&columns).unwrap();
    let writer = RowWriter::new(types.clone());
    assert_lengths(&writer, rows.data(), rows.offsets(), "fixture rows");
    // Each column alone, as a key row of one field: NULL wide values reserve their bytes.
    for (i, (ty, column)) in types.iter().zip(&columns).enumerate() {
        let writer = RowWriter::new(vec![ty.clone()]);
        let rows = writer.write(std::slice::from_ref(column)).unwrap();
        assert_lengths(
            &writer,
            rows.data(),
            rows.offsets(),
            &format!("key column {i} {ty}"),
        );
    }
    let types = nested_types();
    let writer = RowWriter::new(types.clone());
    let rows = writer.write(&nested_columns(NESTED_ROWS)).unwrap();
    assert_lengths(&writer, rows.data(), rows.offsets(), "nested rows");
}
