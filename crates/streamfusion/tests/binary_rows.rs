//! `BinaryRowData` rows to Arrow and back: the reader against rows written by released
//! Flink 2.3.0 (`tests/golden/flink-2.3.0-key-rows.jsonl`), round trips with row kinds over
//! the benchmark fixtures, typed errors for malformed rows, and seeded mutation fuzzing.

mod common;

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

#[test]
fn fixture_columns_round_trip_with_row_kinds_through_rows_and_back() {
    let offset = fixtures::SLICE_OFFSET;
    for rows in [0, 1, 16, 1_024] {
        let (types, full) = fixture_columns(rows + offset);
        // Sliced inputs: buffers begin mid-allocation and validity is not byte aligned.
        let columns: Vec<ArrayRef> = full.iter().map(|c| c.slice(offset, rows)).collect();
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
