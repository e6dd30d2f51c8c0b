//! The `typed_group_values` suite: the one-phase GROUP BY operator (`GroupAggLifecycle`, the
//! thin adapter over the production operator on memory state) over typed values.
//!
//! Measured boundaries (operator created outside timing, fresh per iteration):
//! - `single_value/{immediate,mini_batch}/...`: SINGLE_VALUE over unique keys (one NULL):
//!   `push` of the batch then `fire` (the bundle flush; nothing in immediate mode).
//! - `distinct/...`: COUNT(DISTINCT v), mini-batch, 4,096 rows over 16 keys (one NULL), four
//!   or 256 distinct values per type, NULL every 9th row: `push` then `fire`.
//!
//! Types: BIGINT, BOOLEAN, DECIMAL(20, 3), TIMESTAMP(9), 8-byte STRING, INTERVAL YEAR TO
//! MONTH and INTERVAL DAY TO SECOND; DISTINCT adds DOUBLE (NaN, -0.0 and 0.0 are distinct
//! values under `Double.equals`, every NaN one), DATE and TIME. Every case is checked before
//! timing against `bench_support::group_model::ValueModel`, a model recomputing each group's
//! result from its live values: complete output schema, kinds, keys and values, in order.
//!
//! Not covered: ARRAY values (the operators do not take them yet), and the local phase of
//! DISTINCT (refused by `LocalGroupAggregate`: its partial would carry the distinct map).

mod group_fixtures;

use arrow::array::ArrayData;
use arrow::datatypes::DataType;
use bench_support::Suite;
use bench_support::adapters::StoreLifecycle;
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::mix;
use bench_support::group_model::{INSERT, ValueModel};
use group_fixtures::{Change, V, check_changes, emission, input, spec, text};
use streamfusion::aggregate::{AggCall, AggFunction};
use streamfusion::bench::{Backend, GroupAggLifecycle, GroupAggStore};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

fn main() {
    let mut suite = Suite::new("typed_group_values");
    for mini_batch in [false, true] {
        for ty in Type::SINGLE {
            for rows in [16, 1_024] {
                let id = format!(
                    "single_value/{}/{}/rows={rows}",
                    if mini_batch {
                        "mini_batch"
                    } else {
                        "immediate"
                    },
                    ty.name()
                );
                single_value(&mut suite, &id, ty, rows, mini_batch);
            }
        }
    }
    for ty in Type::DISTINCT {
        for distinct in [4, 256] {
            let id = format!("distinct/{}/distinct={distinct}/rows=4096", ty.name());
            count_distinct(&mut suite, &id, ty, distinct);
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy)]
enum Type {
    BigInt,
    Boolean,
    Decimal,
    Timestamp,
    String8,
    YearMonth,
    DayTime,
    Double,
    Date,
    Time,
}

impl Type {
    const SINGLE: [Type; 7] = [
        Type::BigInt,
        Type::Boolean,
        Type::Decimal,
        Type::Timestamp,
        Type::String8,
        Type::YearMonth,
        Type::DayTime,
    ];
    const DISTINCT: [Type; 9] = [
        Type::BigInt,
        Type::Double,
        Type::Decimal,
        Type::Timestamp,
        Type::String8,
        Type::Date,
        Type::Time,
        Type::YearMonth,
        Type::DayTime,
    ];

    fn name(self) -> &'static str {
        match self {
            Type::BigInt => "bigint",
            Type::Boolean => "boolean",
            Type::Decimal => "decimal_20_3",
            Type::Timestamp => "timestamp_9",
            Type::String8 => "string_8",
            Type::YearMonth => "interval_year_month",
            Type::DayTime => "interval_day_time",
            Type::Double => "double",
            Type::Date => "date",
            Type::Time => "time",
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
            Type::String8 => LogicalType::VarChar(i32::MAX as u32),
            Type::YearMonth => LogicalType::IntervalYearMonth,
            Type::DayTime => LogicalType::IntervalDayTime,
            Type::Double => LogicalType::Double,
            Type::Date => LogicalType::Date,
            Type::Time => LogicalType::Time(0),
        }
    }

    /// The value numbered `id` (distinct ids give distinct values).
    fn value(self, id: usize) -> V {
        let i = id as i64;
        match self {
            Type::BigInt => V::Int(i.wrapping_mul(1_000_003) - 128_000_384),
            Type::Boolean => V::Bool(id.is_multiple_of(2)),
            Type::Decimal => V::Dec(i128::from(i - 128) * 1_000_000_000_000_001),
            Type::Timestamp => V::Int((i - 128) * 1_000_000_007 + 1),
            Type::String8 => V::Str(text(id, 8)),
            Type::YearMonth => V::Int(i - 128),
            Type::DayTime => V::Int((i - 128) * 86_400_001),
            Type::Double => match id {
                0 => V::f64(f64::NAN),
                1 => V::f64(-0.0),
                2 => V::f64(0.0),
                _ => V::f64((i - 128) as f64 * 0.5),
            },
            Type::Date => V::Int(i * 37 - 4_000),
            Type::Time => V::Int(i * 337_001),
        }
    }
}

const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);

/// A batch-and-expected-changelog fixture for the one-phase operator.
struct Fixture {
    lifecycle: GroupAggLifecycle,
    input: ChangelogBatch,
    expected: Vec<Change>,
    value_type: DataType,
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

fn run(f: &Fixture, store: &mut GroupAggStore) -> Vec<ChangelogBatch> {
    let pushed = f.lifecycle.push(store, &f.input).expect("push");
    let fired = f.lifecycle.fire(store, 0).expect("fire");
    vec![pushed, fired]
}

fn case(suite: &mut Suite, id: &str, fixture: impl FnOnce() -> Fixture) {
    suite.stateful(
        id,
        fixture,
        |f| f.lifecycle.create().expect("create operator"),
        |store, f| run(f, store),
        |f, out| {
            check_changes(
                out,
                &["k", "r"],
                &[DataType::Utf8, f.value_type.clone()],
                &f.expected,
            )
        },
    );
}

fn single_value(suite: &mut Suite, id: &str, ty: Type, rows: usize, mini_batch: bool) {
    case(suite, id, || {
        let keys: Vec<V> = (0..rows)
            .map(|r| if r == 5 { V::Null } else { V::Str(text(r, 8)) })
            .collect();
        let values: Vec<V> = (0..rows)
            .map(|r| if r % 7 == 3 { V::Null } else { ty.value(r) })
            .collect();
        let mut model = ValueModel::new(emission(false), |vs: &[V]| {
            vec![vs.first().cloned().unwrap_or(V::Null)]
        });
        let rows_in: Vec<(i8, V, V)> = keys
            .iter()
            .zip(&values)
            .map(|(k, v)| (INSERT, k.clone(), v.clone()))
            .collect();
        let expected = if mini_batch {
            model.bundle(&rows_in)
        } else {
            model.immediate(&rows_in)
        };
        Fixture {
            lifecycle: GroupAggLifecycle {
                spec: spec(
                    &STRING,
                    &[ty.logical()],
                    vec![AggCall::new(AggFunction::SingleValue, Some(1), "r")],
                    false,
                    mini_batch,
                ),
                backend: Backend::Memory,
            },
            input: input(
                &vec![INSERT; rows],
                &STRING,
                &keys,
                &[(&ty.logical(), values)],
            ),
            expected,
            value_type: ty.logical().to_arrow(),
        }
    });
}

fn count_distinct(suite: &mut Suite, id: &str, ty: Type, distinct: usize) {
    const ROWS: usize = 4_096;
    const KEYS: usize = 16;
    case(suite, id, || {
        let keys: Vec<V> = (0..ROWS)
            .map(|r| match r % KEYS {
                15 => V::Null,
                k => V::Str(text(k, 8)),
            })
            .collect();
        let values: Vec<V> = (0..ROWS)
            .map(|r| {
                if r % 9 == 4 {
                    V::Null
                } else {
                    ty.value((mix(r as u64, 7) % distinct as u64) as usize)
                }
            })
            .collect();
        let mut model = ValueModel::new(emission(false), |vs: &[V]| {
            let set: std::collections::BTreeSet<&V> = vs.iter().filter(|v| !v.is_null()).collect();
            vec![V::Int(set.len() as i64)]
        });
        let rows_in: Vec<(i8, V, V)> = keys
            .iter()
            .zip(&values)
            .map(|(k, v)| (INSERT, k.clone(), v.clone()))
            .collect();
        Fixture {
            lifecycle: GroupAggLifecycle {
                spec: spec(
                    &STRING,
                    &[ty.logical()],
                    vec![AggCall::new(AggFunction::Count, Some(1), "r").distinct()],
                    false,
                    true,
                ),
                backend: Backend::Memory,
            },
            input: input(
                &vec![INSERT; ROWS],
                &STRING,
                &keys,
                &[(&ty.logical(), values)],
            ),
            expected: model.bundle(&rows_in),
            value_type: DataType::Int64,
        }
    });
}
