//! The `over_sparse_string_cache` suite: `MIN`, `MAX`, `FIRST_VALUE` and `LAST_VALUE` of a
//! STRING `OVER` each event-time frame, with the production OVER operator
//! ([`OperatorPlan::OverAggregate`], through `streamfusion::bench::OperatorLifecycle`) on
//! the memory backend, whose partitions stay decoded in its cache between batches
//! (decision 0034).
//!
//! The plan is `SELECT k, x, ts, id, MIN(x), MAX(x), FIRST_VALUE(x), LAST_VALUE(x) OVER
//! (PARTITION BY k ORDER BY ts <frame>) FROM t` over `t(k BIGINT, x STRING, ts TIMESTAMP(3),
//! id BIGINT)`, with frames `ROWS`/`RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`
//! (`rows_unbounded`, `range_unbounded`), `ROWS BETWEEN 5 PRECEDING AND CURRENT ROW`
//! (`rows_bounded`) and `RANGE BETWEEN INTERVAL '0.03' SECOND PRECEDING AND CURRENT ROW`
//! (`range_bounded`): the running frames' extrema and first/last values never shrink, the
//! bounded ones retract.
//!
//! A seed of as many rows as the measured batch is pushed and fired outside timing, so every
//! partition is in the operator's cache with values in its accumulators (and, in bounded
//! frames, rows in its buffer). Measured boundary (a fresh seeded operator per iteration):
//! `update/<frame>/rows=<n>/keys=8`: the second batch pushed, then the watermark that fires
//! it: the cached partitions taken and put back, each row buffered, and at the watermark
//! its frame's aggregates updated (retracting rows that left a bounded frame) and emitted.
//!
//! The measured batch is sparse: `x` is NULL in about three rows of four (which the aggregates
//! skip, and which still take their frame places), the others from a pool of the empty
//! string, an embedded NUL, multi-byte UTF-8, a 256-byte value and ASCII that orders
//! differently by case. Shapes: 64 and 4,096 rows over 8 partitions; row times climb 10 ms
//! every two rows (RANGE peers where two rows of a partition share a time).
//!
//! The oracle is the frame of each output row, never the operator: the partition's rows in
//! (time, arrival) order up to the row (ROWS: the last 6 of them when bounded; RANGE: every
//! row at or before its time, within 30 ms when bounded), their non-NULL values' least and
//! greatest by UTF-8 bytes, first and last.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{Array, AsArray, StringArray};
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

const KEYS: u64 = 8;
/// A bounded ROWS frame's rows: 5 preceding and the current one.
const ROWS_FRAME: i64 = 6;
/// A bounded RANGE frame's span in milliseconds.
const RANGE_MILLIS: i64 = 30;

fn main() {
    let mut suite = Suite::new("over_sparse_string_cache");
    for frame in Frame::ALL {
        for rows in [64, 4_096] {
            case(&mut suite, frame, rows);
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    RowsUnbounded,
    RangeUnbounded,
    RowsBounded,
    RangeBounded,
}

impl Frame {
    const ALL: [Frame; 4] = [
        Frame::RowsUnbounded,
        Frame::RangeUnbounded,
        Frame::RowsBounded,
        Frame::RangeBounded,
    ];

    fn id(self) -> &'static str {
        match self {
            Frame::RowsUnbounded => "rows_unbounded",
            Frame::RangeUnbounded => "range_unbounded",
            Frame::RowsBounded => "rows_bounded",
            Frame::RangeBounded => "range_bounded",
        }
    }

    fn over(self) -> OverFrame {
        match self {
            Frame::RowsUnbounded => OverFrame::RowsUnbounded,
            Frame::RangeUnbounded => OverFrame::RangeUnbounded,
            Frame::RowsBounded => OverFrame::RowsBounded { rows: ROWS_FRAME },
            Frame::RangeBounded => OverFrame::RangeBounded {
                millis: RANGE_MILLIS,
            },
        }
    }
}

#[derive(Debug, Clone)]
struct Row {
    k: i64,
    x: Option<String>,
    ts: i64,
    id: i64,
}

/// The four aggregates of one output row: MIN, MAX, FIRST_VALUE, LAST_VALUE.
type Selected = [Option<String>; 4];

fn strings() -> Vec<String> {
    vec![
        String::new(),
        "a\0b".into(),
        "größer 🦀".into(),
        "ü".into(),
        "w".repeat(256),
        "Zebra".into(),
        "apple".into(),
        "A".into(),
    ]
}

/// `n` rows from `first` on: the seed dense (NULL every 7th row), the measured batch sparse
/// (`sparse`: NULL in about three rows of four, independently of the time pairs).
fn generate(first: usize, n: usize, sparse: bool) -> Vec<Row> {
    let pool = strings();
    (first..first + n)
        .map(|i| {
            let m = mix(i as u64, 5);
            let null = if sparse {
                !mix(i as u64, 6).is_multiple_of(4)
            } else {
                i % 7 == 6
            };
            Row {
                k: (m % KEYS) as i64,
                x: (!null).then(|| pool[(m >> 8) as usize % pool.len()].clone()),
                ts: 1_000 + 10 * (i as i64 / 2),
                id: i as i64,
            }
        })
        .collect()
}

fn batch(rows: &[Row]) -> ChangelogBatch {
    let x = StringArray::from_iter(rows.iter().map(|r| r.x.as_deref()));
    let keys: Vec<(i64, i64, i64)> = rows.iter().map(|r| (r.k, r.ts, r.id)).collect();
    over_fixtures::batch(Arc::new(x), &keys)
}

fn spec(frame: Frame) -> OverSpec {
    let calls = vec![
        AggCall::new(AggFunction::Min, Some(1), "mn"),
        AggCall::new(AggFunction::Max, Some(1), "mx"),
        AggCall::new(AggFunction::FirstValue, Some(1), "fv"),
        AggCall::new(AggFunction::LastValue, Some(1), "lv"),
    ];
    over_fixtures::spec(LogicalType::VarChar(i32::MAX as u32), frame.over(), calls)
}

/// Each row's aggregates by id, from its frame's rows.
fn expected(frame: Frame, rows: &[Row]) -> BTreeMap<i64, Selected> {
    let mut out = BTreeMap::new();
    for r in rows {
        let mut before: Vec<&Row> = rows
            .iter()
            .filter(|o| o.k == r.k && (o.ts, o.id) <= (r.ts, r.id))
            .collect();
        before.sort_by_key(|o| (o.ts, o.id));
        let in_frame: Vec<&Row> = match frame {
            Frame::RowsUnbounded => before,
            Frame::RowsBounded => {
                let from = before.len().saturating_sub(ROWS_FRAME as usize);
                before[from..].to_vec()
            }
            // Peers (every row at the same time) belong to each other's frames.
            Frame::RangeUnbounded | Frame::RangeBounded => {
                let mut peers: Vec<&Row> = rows
                    .iter()
                    .filter(|o| o.k == r.k && o.ts <= r.ts)
                    .filter(|o| frame == Frame::RangeUnbounded || o.ts >= r.ts - RANGE_MILLIS)
                    .collect();
                peers.sort_by_key(|o| (o.ts, o.id));
                peers
            }
        };
        let values: Vec<&String> = in_frame.iter().filter_map(|o| o.x.as_ref()).collect();
        let by_bytes = |a: &&&String, b: &&&String| a.as_bytes().cmp(b.as_bytes());
        out.insert(
            r.id,
            [
                values.iter().min_by(by_bytes).map(|s| (*s).clone()),
                values.iter().max_by(by_bytes).map(|s| (*s).clone()),
                values.first().map(|s| (*s).clone()),
                values.last().map(|s| (*s).clone()),
            ],
        );
    }
    out
}

/// The measured rows' aggregates, by id.
type Fixture = Case<BTreeMap<i64, Selected>>;

fn fixture(frame: Frame, n: usize) -> Fixture {
    let seed = generate(0, n, false);
    let measured = generate(n, n, true);
    let all: Vec<Row> = seed.iter().chain(&measured).cloned().collect();
    let expected = expected(frame, &all);
    Case {
        run: Seeded {
            lifecycle: OperatorLifecycle {
                plan: OperatorPlan::OverAggregate(spec(frame)),
                backend: Backend::Memory,
            },
            seed_watermark: seed.last().expect("rows").ts,
            seed: batch(&seed),
            measured: batch(&measured),
        },
        expected: measured
            .iter()
            .map(|r| (r.id, expected[&r.id].clone()))
            .collect(),
    }
}

fn check(f: &Fixture, out: &[ChangelogBatch]) -> Verdict {
    let got = over_fixtures::by_id(out, |batch, r| {
        let text = |c: usize| {
            let column = batch.column(c).as_string::<i32>();
            (!column.is_null(r)).then(|| column.value(r).to_string())
        };
        [text(4), text(5), text(6), text(7)]
    })?;
    expect_eq(
        "the measured rows' MIN, MAX, FIRST_VALUE, LAST_VALUE",
        &got,
        &f.expected,
    )
}

fn case(suite: &mut Suite, frame: Frame, n: usize) {
    suite.stateful(
        &format!("update/{}/rows={n}/keys={KEYS}", frame.id()),
        || fixture(frame, n),
        |f| f.run.seeded(),
        |store, f| f.run.continue_measured(store),
        |f, out| check(f, out),
    );
}
