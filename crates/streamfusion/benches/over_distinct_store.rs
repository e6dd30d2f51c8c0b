//! The `over_distinct_store` suite: running `COUNT(DISTINCT x) OVER` with the production OVER
//! operator ([`OperatorPlan::OverAggregate`], through `streamfusion::bench::OperatorLifecycle`)
//! on RocksDB, over STRING and TIMESTAMP(9) values, in the two running event-time frames.
//!
//! The plan is `SELECT k, x, ts, id, COUNT(DISTINCT x) OVER (PARTITION BY k ORDER BY ts
//! <frame>) FROM t` over `t(k BIGINT, x STRING | TIMESTAMP(9), ts TIMESTAMP(3), id BIGINT)`,
//! with frames `ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW` (`rows`) and `RANGE BETWEEN
//! UNBOUNDED PRECEDING AND CURRENT ROW` (`range`). The distinct values live in the operator's
//! state (the per-partition accumulator's map of value to count).
//!
//! The input is split in half: the first half is pushed and fired (outside timing), so the
//! store holds every partition's distinct values. Measured boundaries (store construction
//! and seeding outside timing; a fresh seeded store per iteration):
//! - `update/<type>/<frame>/<shape>`: the second half pushed, then the watermark that fires
//!   it: the partitions' state read, the values added to the distinct maps, the counts, the
//!   write-back and the output batch.
//! - `restore/<type>/<frame>/<shape>`: a checkpoint of the seeded store, an aligned restore
//!   from it (a fresh RocksDB store ingesting the checkpoint) replacing it (the seeded
//!   store's close is inside too), then the same continuation.
//!
//! Shapes: 32 and 512 rows over four partition keys; row times climb 10 ms every two rows
//! (RANGE peers where two rows of a partition share a time). STRING values repeat from a
//! pool holding the empty string, an embedded NUL, a lone NUL, multi-byte UTF-8 and a
//! 256-byte value, NULL every 9th row; TIMESTAMP(9) values repeat from -1, 0 and 1 ns, the
//! epoch's neighbours a second and a day away, and late nanoseconds of 2262, NULL every 9th
//! row.
//!
//! The oracle is a set per output row, never the operator: the distinct non-NULL values of
//! the partition's rows in the row's frame (ROWS: the rows up to it in (time, arrival)
//! order; RANGE: every row at or before its time), counted.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, StringArray, TimestampNanosecondArray};
use arrow::datatypes::Int64Type;
use bench_support::adapters::{RestoreMode, StoreLifecycle};
use bench_support::fixtures::mix;
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion::aggregate::{AggCall, AggFunction, OverFrame, OverSpec};
use streamfusion::bench::{Backend, OperatorLifecycle};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::OperatorPlan;
use streamfusion::types::LogicalType;

mod over_fixtures;
use over_fixtures::{Case, Seeded};

bench_support::counting_allocator!();

const KEYS: u64 = 4;
const VALUE_NULLS: usize = 9;

fn main() {
    let mut suite = Suite::new("over_distinct_store");
    for ty in [ValueType::String, ValueType::Timestamp9] {
        for frame in [Frame::Rows, Frame::Range] {
            for rows in [32, 512] {
                for restore in [false, true] {
                    case(&mut suite, ty, frame, rows, restore);
                }
            }
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueType {
    String,
    Timestamp9,
}

impl ValueType {
    fn id(self) -> &'static str {
        match self {
            ValueType::String => "string",
            ValueType::Timestamp9 => "timestamp9",
        }
    }

    fn logical(self) -> LogicalType {
        match self {
            ValueType::String => LogicalType::VarChar(i32::MAX as u32),
            ValueType::Timestamp9 => LogicalType::Timestamp(9),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Rows,
    Range,
}

/// A value as the oracle compares it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Value {
    Text(String),
    Nanos(i64),
}

#[derive(Debug, Clone)]
struct Row {
    k: i64,
    x: Option<Value>,
    ts: i64,
    id: i64,
}

fn strings() -> Vec<String> {
    vec![
        String::new(),
        "a".into(),
        "a\0b".into(),
        "\0".into(),
        "größer 🦀".into(),
        "ü".into(),
        "w".repeat(256),
        "A".into(),
    ]
}

const NANOS: [i64; 8] = [
    -1,
    0,
    1,
    1_000_000_000,
    -1_000_000_000,
    86_400_000_000_000,
    -86_400_000_000_000,
    9_223_372_036_854_775_000,
];

fn generate(ty: ValueType, n: usize) -> Vec<Row> {
    let pool = strings();
    (0..n)
        .map(|i| {
            let m = mix(i as u64, 3);
            let x = (i % VALUE_NULLS != VALUE_NULLS - 1).then(|| match ty {
                ValueType::String => Value::Text(pool[(m >> 8) as usize % pool.len()].clone()),
                ValueType::Timestamp9 => Value::Nanos(NANOS[(m >> 8) as usize % NANOS.len()]),
            });
            Row {
                k: (m % KEYS) as i64,
                x,
                ts: 1_000 + 10 * (i as i64 / 2),
                id: i as i64,
            }
        })
        .collect()
}

fn batch(ty: ValueType, rows: &[Row]) -> ChangelogBatch {
    let x: ArrayRef = match ty {
        ValueType::String => Arc::new(StringArray::from_iter(rows.iter().map(|r| match &r.x {
            Some(Value::Text(s)) => Some(s.as_str()),
            _ => None,
        }))),
        ValueType::Timestamp9 => Arc::new(TimestampNanosecondArray::from_iter(rows.iter().map(
            |r| match r.x {
                Some(Value::Nanos(n)) => Some(n),
                _ => None,
            },
        ))),
    };
    let keys: Vec<(i64, i64, i64)> = rows.iter().map(|r| (r.k, r.ts, r.id)).collect();
    over_fixtures::batch(x, &keys)
}

fn spec(ty: ValueType, frame: Frame) -> OverSpec {
    let frame = match frame {
        Frame::Rows => OverFrame::RowsUnbounded,
        Frame::Range => OverFrame::RangeUnbounded,
    };
    let calls = vec![AggCall::new(AggFunction::Count, Some(1), "d").distinct()];
    over_fixtures::spec(ty.logical(), frame, calls)
}

/// Each row's `COUNT(DISTINCT x)` by id, from a set of its frame's values.
fn expected(frame: Frame, rows: &[Row]) -> BTreeMap<i64, i64> {
    let mut out = BTreeMap::new();
    for r in rows {
        let distinct: BTreeSet<&Value> = rows
            .iter()
            .filter(|o| o.k == r.k)
            .filter(|o| match frame {
                Frame::Rows => (o.ts, o.id) <= (r.ts, r.id),
                Frame::Range => o.ts <= r.ts,
            })
            .filter_map(|o| o.x.as_ref())
            .collect();
        out.insert(r.id, distinct.len() as i64);
    }
    out
}

/// The first half seeds, the second is measured; the second half's counts, by id.
type Fixture = Case<BTreeMap<i64, i64>>;

fn fixture(ty: ValueType, frame: Frame, n: usize) -> Fixture {
    let rows = generate(ty, n);
    let (first, second) = rows.split_at(n / 2);
    let all = expected(frame, &rows);
    Case {
        run: Seeded {
            lifecycle: OperatorLifecycle {
                plan: OperatorPlan::OverAggregate(spec(ty, frame)),
                backend: Backend::Rocksdb,
            },
            seed_watermark: first.last().expect("rows").ts,
            seed: batch(ty, first),
            measured: batch(ty, second),
        },
        expected: second.iter().map(|r| (r.id, all[&r.id])).collect(),
    }
}

fn check(f: &Fixture, out: &[ChangelogBatch]) -> Verdict {
    let got = over_fixtures::by_id(out, |batch, r| {
        batch.column(4).as_primitive::<Int64Type>().value(r)
    })?;
    expect_eq("distinct counts of the second half", &got, &f.expected)
}

fn case(suite: &mut Suite, ty: ValueType, frame: Frame, n: usize, restore: bool) {
    let frame_id = match frame {
        Frame::Rows => "rows",
        Frame::Range => "range",
    };
    let id = format!(
        "{}/{}/{frame_id}/rows={n}/keys={KEYS}",
        if restore { "restore" } else { "update" },
        ty.id()
    );
    suite.stateful(
        &id,
        || fixture(ty, frame, n),
        |f| f.run.seeded(),
        move |store, f| {
            if restore {
                let lifecycle = &f.run.lifecycle;
                let checkpoint = lifecycle.checkpoint(store).expect("checkpoint");
                *store = lifecycle
                    .restore(std::slice::from_ref(&checkpoint), &RestoreMode::Aligned)
                    .expect("restore");
            }
            f.run.continue_measured(store)
        },
        |f, out| check(f, out),
    );
}
