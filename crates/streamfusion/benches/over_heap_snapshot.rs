//! The `over_heap_snapshot` suite: bounded OVER frames' retracting `MIN`/`MAX` (their
//! value-to-count maps) over DECIMAL(20, 4), TIMESTAMP(3) and STRING values, with the
//! production OVER operator ([`OperatorPlan::OverAggregate`], through
//! `streamfusion::bench::OperatorLifecycle`) on the memory backend, which Flink's hashmap
//! backend runs it on: partitions stay decoded in the operator's cache (decision 0034) and a
//! checkpoint writes the changed ones to the store, then serializes the store.
//!
//! The plan is `SELECT k, x, ts, id, MIN(x), MAX(x) OVER (PARTITION BY k ORDER BY ts <frame>)
//! FROM t` with frames `ROWS BETWEEN 5 PRECEDING AND CURRENT ROW` (`rows_bounded`) and
//! `RANGE BETWEEN INTERVAL '0.03' SECOND PRECEDING AND CURRENT ROW` (`range_bounded`). A seed
//! of as many rows as the measured batch is pushed and fired outside timing. Measured
//! boundaries, one per snapshot profile (`<profile>/<type>/<frame>/rows=<n>/keys=8`):
//! - `none`: the measured batch pushed, then the watermark that fires it;
//! - `completed`: the same, then a checkpoint of the operator completed (the changed
//!   partitions written and the store serialized to its files);
//! - `held`: a checkpoint taken after the seed (outside timing) is held while the batch is
//!   pushed and fired: every partition starts clean in the cache;
//! - `between`: the batch pushed, a checkpoint completed, then the firing watermark: the
//!   checkpoint writes the partitions the batch buffered, which the firing then changes.
//!
//! Shapes: 64 and 1,024 rows over 8 partitions; row times climb 10 ms every two rows.
//! Values repeat from small pools (so the maps count duplicates), NULL every 5th row: for
//! DECIMAL negative, zero, fractional and 16-digit values; for TIMESTAMP(3) times before,
//! at and after the epoch; for STRING the empty string, an embedded NUL, multi-byte UTF-8 and
//! a 256-byte value.
//!
//! The oracle is the frame of each output row, never the operator: the partition's rows in
//! (time, arrival) order (ROWS: the last 6; RANGE: every row within 30 ms at or before its
//! time), the least and greatest of their non-NULL values (DECIMAL by value, times by
//! millisecond, strings by UTF-8 bytes).

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Decimal128Array, RecordBatch, StringArray, TimestampMillisecondArray,
};
use arrow::datatypes::{Decimal128Type, TimestampMillisecondType};
use bench_support::adapters::StoreLifecycle;
use bench_support::fixtures::mix;
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion::aggregate::{AggCall, AggFunction, OverFrame, OverSpec};
use streamfusion::bench::{Backend, GroupAggCheckpoint, OperatorLifecycle, OperatorStore};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::OperatorPlan;
use streamfusion::types::LogicalType;

mod over_fixtures;
use over_fixtures::{Case, Seeded};

bench_support::counting_allocator!();

const KEYS: u64 = 8;
const ROWS_FRAME: i64 = 6;
const RANGE_MILLIS: i64 = 30;
const VALUE_NULLS: usize = 5;

fn main() {
    let mut suite = Suite::new("over_heap_snapshot");
    for profile in Profile::ALL {
        for ty in [Type::Decimal, Type::Timestamp, Type::String] {
            for frame in [Frame::RowsBounded, Frame::RangeBounded] {
                for rows in [64, 1_024] {
                    case(&mut suite, profile, ty, frame, rows);
                }
            }
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Profile {
    None,
    Completed,
    Held,
    Between,
}

impl Profile {
    const ALL: [Profile; 4] = [
        Profile::None,
        Profile::Completed,
        Profile::Held,
        Profile::Between,
    ];

    fn id(self) -> &'static str {
        match self {
            Profile::None => "none",
            Profile::Completed => "completed",
            Profile::Held => "held",
            Profile::Between => "between",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    Decimal,
    Timestamp,
    String,
}

impl Type {
    fn id(self) -> &'static str {
        match self {
            Type::Decimal => "decimal",
            Type::Timestamp => "timestamp",
            Type::String => "string",
        }
    }

    fn logical(self) -> LogicalType {
        match self {
            Type::Decimal => LogicalType::Decimal {
                precision: 20,
                scale: 4,
            },
            Type::Timestamp => LogicalType::Timestamp(3),
            Type::String => LogicalType::VarChar(i32::MAX as u32),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    RowsBounded,
    RangeBounded,
}

/// A value as the oracle orders it (one type per case).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Value {
    Decimal(i128),
    Millis(i64),
    Bytes(Vec<u8>),
}

#[derive(Debug, Clone)]
struct Row {
    k: i64,
    x: Option<Value>,
    ts: i64,
    id: i64,
}

const DECIMALS: [i128; 6] = [-12_345_678, 0, 1, 99_990_000, 9_999_999_999_999_999, -5_000];
const MILLIS: [i64; 6] = [
    -86_400_000,
    -1,
    0,
    1,
    1_700_000_000_000,
    253_402_300_799_999,
];

fn strings() -> Vec<String> {
    vec![
        String::new(),
        "a\0b".into(),
        "größer 🦀".into(),
        "w".repeat(256),
        "Zebra".into(),
        "apple".into(),
    ]
}

/// `n` rows from `first` on.
fn generate(ty: Type, first: usize, n: usize) -> Vec<Row> {
    let pool = strings();
    (first..first + n)
        .map(|i| {
            let m = mix(i as u64, 9);
            let pick = (m >> 8) as usize % 6;
            let x = (i % VALUE_NULLS != VALUE_NULLS - 1).then(|| match ty {
                Type::Decimal => Value::Decimal(DECIMALS[pick]),
                Type::Timestamp => Value::Millis(MILLIS[pick]),
                Type::String => Value::Bytes(pool[pick].clone().into_bytes()),
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

fn values(ty: Type, rows: &[Row]) -> ArrayRef {
    match ty {
        Type::Decimal => Arc::new(
            rows.iter()
                .map(|r| match r.x {
                    Some(Value::Decimal(d)) => Some(d),
                    _ => None,
                })
                .collect::<Decimal128Array>()
                .with_precision_and_scale(20, 4)
                .expect("DECIMAL(20, 4)"),
        ),
        Type::Timestamp => Arc::new(
            rows.iter()
                .map(|r| match r.x {
                    Some(Value::Millis(t)) => Some(t),
                    _ => None,
                })
                .collect::<TimestampMillisecondArray>(),
        ),
        Type::String => Arc::new(StringArray::from_iter(rows.iter().map(|r| match &r.x {
            Some(Value::Bytes(b)) => Some(std::str::from_utf8(b).expect("UTF-8")),
            _ => None,
        }))),
    }
}

fn batch(ty: Type, rows: &[Row]) -> ChangelogBatch {
    let keys: Vec<(i64, i64, i64)> = rows.iter().map(|r| (r.k, r.ts, r.id)).collect();
    over_fixtures::batch(values(ty, rows), &keys)
}

fn spec(ty: Type, frame: Frame) -> OverSpec {
    let frame = match frame {
        Frame::RowsBounded => OverFrame::RowsBounded { rows: ROWS_FRAME },
        Frame::RangeBounded => OverFrame::RangeBounded {
            millis: RANGE_MILLIS,
        },
    };
    let calls = vec![
        AggCall::new(AggFunction::Min, Some(1), "mn"),
        AggCall::new(AggFunction::Max, Some(1), "mx"),
    ];
    over_fixtures::spec(ty.logical(), frame, calls)
}

/// Each row's (MIN, MAX) by id, from its frame's rows.
fn expected(frame: Frame, rows: &[Row]) -> BTreeMap<i64, [Option<Value>; 2]> {
    let mut out = BTreeMap::new();
    for r in rows {
        let mut members: Vec<&Row> = rows
            .iter()
            .filter(|o| o.k == r.k)
            .filter(|o| match frame {
                Frame::RowsBounded => (o.ts, o.id) <= (r.ts, r.id),
                Frame::RangeBounded => o.ts <= r.ts && o.ts >= r.ts - RANGE_MILLIS,
            })
            .collect();
        members.sort_by_key(|o| (o.ts, o.id));
        if frame == Frame::RowsBounded {
            let from = members.len().saturating_sub(ROWS_FRAME as usize);
            members.drain(..from);
        }
        let present = members.iter().filter_map(|o| o.x.clone());
        out.insert(r.id, [present.clone().min(), present.max()]);
    }
    out
}

/// What the output column `c` holds at row `r`, as the oracle orders it.
fn value_at(ty: Type, batch: &RecordBatch, c: usize, r: usize) -> Option<Value> {
    let column = batch.column(c);
    (!column.is_null(r)).then(|| match ty {
        Type::Decimal => Value::Decimal(column.as_primitive::<Decimal128Type>().value(r)),
        Type::Timestamp => {
            Value::Millis(column.as_primitive::<TimestampMillisecondType>().value(r))
        }
        Type::String => Value::Bytes(column.as_string::<i32>().value(r).as_bytes().to_vec()),
    })
}

type Fixture = Case<BTreeMap<i64, [Option<Value>; 2]>>;

fn fixture(ty: Type, frame: Frame, n: usize) -> Fixture {
    let seed = generate(ty, 0, n);
    let measured = generate(ty, n, n);
    let all: Vec<Row> = seed.iter().chain(&measured).cloned().collect();
    let expected = expected(frame, &all);
    Case {
        run: Seeded {
            lifecycle: OperatorLifecycle {
                plan: OperatorPlan::OverAggregate(spec(ty, frame)),
                backend: Backend::Memory,
            },
            seed_watermark: seed.last().expect("rows").ts,
            seed: batch(ty, &seed),
            measured: batch(ty, &measured),
        },
        expected: measured
            .iter()
            .map(|r| (r.id, expected[&r.id].clone()))
            .collect(),
    }
}

fn check(ty: Type, f: &Fixture, out: &[ChangelogBatch]) -> Verdict {
    let got = over_fixtures::by_id(out, |batch, r| {
        [value_at(ty, batch, 4, r), value_at(ty, batch, 5, r)]
    })?;
    expect_eq("the measured rows' MIN and MAX", &got, &f.expected)
}

/// The seeded operator, and the checkpoint a `held` profile holds through the timing.
type Held = (OperatorStore, Option<GroupAggCheckpoint>);

fn case(suite: &mut Suite, profile: Profile, ty: Type, frame: Frame, n: usize) {
    let frame_id = match frame {
        Frame::RowsBounded => "rows_bounded",
        Frame::RangeBounded => "range_bounded",
    };
    suite.stateful(
        &format!(
            "{}/{}/{frame_id}/rows={n}/keys={KEYS}",
            profile.id(),
            ty.id()
        ),
        || fixture(ty, frame, n),
        move |f| -> Held {
            let mut store = f.run.seeded();
            let held = (profile == Profile::Held)
                .then(|| f.run.lifecycle.checkpoint(&mut store).expect("checkpoint"));
            (store, held)
        },
        move |(store, _held), f| {
            let lifecycle = &f.run.lifecycle;
            match profile {
                Profile::None | Profile::Held => f.run.continue_measured(store),
                Profile::Completed => {
                    let out = f.run.continue_measured(store);
                    drop(lifecycle.checkpoint(store).expect("checkpoint"));
                    out
                }
                Profile::Between => {
                    let mut out = lifecycle.push(store, &f.run.measured).expect("push");
                    drop(lifecycle.checkpoint(store).expect("checkpoint"));
                    out.extend(lifecycle.fire(store, i64::MAX).expect("fire"));
                    out
                }
            }
        },
        move |f, out| check(ty, f, out),
    );
}
