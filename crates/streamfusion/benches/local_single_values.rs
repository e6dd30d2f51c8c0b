//! The `local_single_values` suite: two-phase SINGLE_VALUE, Flink's
//! `MiniBatchLocalGroupAggFunction` and `MiniBatchGlobalGroupAggFunction` over typed Arrow
//! partials, through `TwoPhaseAdapter` (thin calls into the production operators).
//!
//! Measured boundaries:
//! - `local/...`: the local phase's update of every physical batch of one bundle, then its
//!   flush (one `(value, count)` partial row per key). A fresh operator per iteration,
//!   created outside timing.
//! - `global/...`: the global phase's merge of the local partials (given in physical batches
//!   of the same sizes) into empty memory state, then its flush (one `+I` per key).
//!
//! Fixtures: BIGINT, BOOLEAN, DECIMAL(20, 3), TIMESTAMP(9) and 8/256-byte STRING values;
//! 16/1,024/16,384 unique STRING keys, one of them NULL; values NULL every 7th row; physical
//! batches of 1 (up to 1,024 rows), 13 and all rows. Checked before timing against the
//! source columns: every partial carries its row's key and value and a count of 1, and the
//! global changelog is one `+I` per key with its value, in input order, with the complete
//! output schema.

mod group_fixtures;

use arrow::array::{ArrayData, RecordBatch};
use arrow::datatypes::DataType;
use bench_support::buffers::ArrowBuffers;
use bench_support::group_model::INSERT;
use bench_support::{Suite, Verdict, expect_eq};
use group_fixtures::{Change, V, check_changes, chunks, input, read, spec, text};
use streamfusion::aggregate::{AggCall, AggFunction, GlobalGroupAggregate, LocalGroupAggregate};
use streamfusion::bench::TwoPhaseAdapter;
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const ROWS: [usize; 3] = [16, 1_024, 16_384];

fn main() {
    let mut suite = Suite::new("local_single_values");
    for ty in Type::ALL {
        for rows in ROWS {
            for batch in [1, 13, rows] {
                if batch == 1 && rows > 1_024 {
                    continue;
                }
                let batch_id = if batch == rows {
                    "full".to_string()
                } else {
                    batch.to_string()
                };
                let id = format!("{}/rows={rows}/batch={batch_id}", ty.name());
                local_case(&mut suite, &format!("local/{id}"), ty, rows, batch);
                global_case(&mut suite, &format!("global/{id}"), ty, rows, batch);
            }
        }
    }
    suite.finish();
}

/// The value types.
#[derive(Debug, Clone, Copy)]
enum Type {
    BigInt,
    Boolean,
    Decimal,
    Timestamp,
    String8,
    String256,
}

impl Type {
    const ALL: [Type; 6] = [
        Type::BigInt,
        Type::Boolean,
        Type::Decimal,
        Type::Timestamp,
        Type::String8,
        Type::String256,
    ];

    fn name(self) -> &'static str {
        match self {
            Type::BigInt => "bigint",
            Type::Boolean => "boolean",
            Type::Decimal => "decimal_20_3",
            Type::Timestamp => "timestamp_9",
            Type::String8 => "string_8",
            Type::String256 => "string_256",
        }
    }

    fn logical(self) -> LogicalType {
        match self {
            Type::BigInt => LogicalType::BigInt,
            Type::Boolean => LogicalType::Boolean,
            Type::Decimal => LogicalType::Decimal {
                precision: 20,
                scale: 3,
            },
            Type::Timestamp => LogicalType::Timestamp(9),
            Type::String8 | Type::String256 => LogicalType::VarChar(i32::MAX as u32),
        }
    }

    fn value(self, row: usize) -> V {
        if row % 7 == 3 {
            return V::Null;
        }
        let r = row as i64;
        match self {
            Type::BigInt => match row % 64 {
                0 => V::Int(i64::MAX),
                1 => V::Int(i64::MIN),
                _ => V::Int(r.wrapping_mul(7_919) - 50_000),
            },
            Type::Boolean => V::Bool(row.is_multiple_of(3)),
            // Up to 20 digits, both signs.
            Type::Decimal => V::Dec(
                (i128::from(r) * 1_234_567_890_123_456_789 % 10i128.pow(20)) * [1, -1][row % 2],
            ),
            // Nanoseconds both sides of the epoch, adjacent values.
            Type::Timestamp => V::Int((r - 500) * 1_000_000_007 + r % 3),
            Type::String8 => V::Str(text(row, 8)),
            Type::String256 => V::Str(text(row, 256)),
        }
    }
}

fn key(row: usize) -> V {
    if row == 5 {
        V::Null
    } else {
        V::Str(text(row, 8))
    }
}

fn adapter(ty: Type) -> TwoPhaseAdapter {
    TwoPhaseAdapter {
        spec: spec(
            &LogicalType::VarChar(i32::MAX as u32),
            &[ty.logical()],
            vec![AggCall::new(AggFunction::SingleValue, Some(1), "sv")],
            false,
            true,
        ),
    }
}

/// The rows' physical batches.
fn batches(ty: Type, rows: usize, batch: usize) -> Vec<ChangelogBatch> {
    let all: Vec<usize> = (0..rows).collect();
    chunks(&all, batch)
        .into_iter()
        .map(|part| {
            let keys: Vec<V> = part.iter().map(|&r| key(r)).collect();
            let values: Vec<V> = part.iter().map(|&r| ty.value(r)).collect();
            input(
                &vec![INSERT; part.len()],
                &LogicalType::VarChar(i32::MAX as u32),
                &keys,
                &[(&ty.logical(), values)],
            )
        })
        .collect()
}

struct LocalFixture {
    adapter: TwoPhaseAdapter,
    inputs: Vec<ChangelogBatch>,
    ty: Type,
    rows: usize,
}

impl ArrowBuffers for LocalFixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.inputs.collect_arrays(out);
    }
}

/// Every partial row is its source row: key, value, count 1 (INT); schema complete.
fn check_partials(out: &[RecordBatch], ty: Type, rows: usize) -> Verdict {
    let mut row = 0;
    for batch in out {
        let schema = batch.schema();
        let fields: Vec<(&str, &DataType)> = schema
            .fields()
            .iter()
            .map(|f| (f.name().as_str(), f.data_type()))
            .collect();
        let value_type = ty.logical().to_arrow();
        expect_eq(
            "partial schema",
            &fields,
            &vec![
                ("k", &DataType::Utf8),
                ("sv$value", &value_type),
                ("sv$count", &DataType::Int32),
            ],
        )?;
        for i in 0..batch.num_rows() {
            let got = (
                read(batch.column(0).as_ref(), i)?,
                read(batch.column(1).as_ref(), i)?,
                read(batch.column(2).as_ref(), i)?,
            );
            let want = (key(row), ty.value(row), V::Int(1));
            if got != want {
                return Err(format!("partial row {row}: got {got:?}, expected {want:?}"));
            }
            row += 1;
        }
    }
    expect_eq("partial rows", &row, &rows)
}

fn local_case(suite: &mut Suite, id: &str, ty: Type, rows: usize, batch: usize) {
    suite.stateful(
        id,
        || LocalFixture {
            adapter: adapter(ty),
            inputs: batches(ty, rows, batch),
            ty,
            rows,
        },
        |f| f.adapter.local().expect("local operator"),
        |local: &mut LocalGroupAggregate, f| {
            f.adapter
                .local_update(local, &f.inputs)
                .expect("local update")
        },
        |f, out| check_partials(out, f.ty, f.rows),
    );
}

struct GlobalFixture {
    adapter: TwoPhaseAdapter,
    partials: Vec<RecordBatch>,
    expected: Vec<Change>,
    value_type: DataType,
}

impl ArrowBuffers for GlobalFixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.partials.collect_arrays(out);
    }
}

fn global_case(suite: &mut Suite, id: &str, ty: Type, rows: usize, batch: usize) {
    suite.stateful(
        id,
        || {
            let adapter = adapter(ty);
            let mut local = adapter.local().expect("local operator");
            let partials = adapter
                .local_update(&mut local, &batches(ty, rows, rows))
                .expect("local update");
            let whole =
                arrow::compute::concat_batches(&partials[0].schema(), &partials).expect("partials");
            let partials = (0..whole.num_rows())
                .step_by(batch)
                .map(|start| whole.slice(start, batch.min(whole.num_rows() - start)))
                .collect();
            GlobalFixture {
                adapter,
                partials,
                expected: (0..rows)
                    .map(|r| (INSERT, key(r), vec![ty.value(r)]))
                    .collect(),
                value_type: ty.logical().to_arrow(),
            }
        },
        |f| f.adapter.global().expect("global operator"),
        |global: &mut GlobalGroupAggregate, f| {
            f.adapter
                .global_update(global, &f.partials)
                .expect("global update")
        },
        |f, out| {
            check_changes(
                out,
                &["k", "sv"],
                &[DataType::Utf8, f.value_type.clone()],
                &f.expected,
            )
        },
    );
}
