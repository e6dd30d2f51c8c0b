//! The `window_temporal_extrema` suite: window aggregation's TIMESTAMP `MIN`/`MAX`/`COUNT`
//! update and watermark flush over TUMBLE, HOP and CUMULATE
//! (`OperatorPlan::WindowAggregate`) and with SESSION merges
//! (`OperatorPlan::SessionWindowAggregate`), through the production operators' `Operator`
//! entry points.
//!
//! Measured boundary (`update_flush/<shape>/timestamp_<p>/rows=R/keys=K`): the input
//! batches into a fresh operator on the memory backend (created outside timing), then the
//! watermark that fires every window: grouping, accumulation, state, session merges, firing,
//! output construction and disposal. SESSION takes a second batch with one row per key at
//! its last time plus the gap (its session touches the key's last one and merges with it)
//! whose value extends the maximum.
//!
//! Fixtures: nullable TIMESTAMP(3) values over the whole range Flink accepts (years 0001 to
//! 9999, negative epochs included) and TIMESTAMP(9) values over the whole range of the
//! nanosecond carrier (1677 to 2262, sub-millisecond digits set); NULL every 5th row and
//! every value of key 0 NULL in the multi-key cases (a NULL-only group, whose extrema are
//! NULL and count 0); 256 and 4,096 rows over 40 seconds; one, 64 and batch-sized key
//! domains. Every window's MIN, MAX and COUNT are checked against `window_fixtures`' model
//! before timing.

mod group_fixtures;
mod window_fixtures;

use bench_support::Suite;
use bench_support::fixtures::mix;
use group_fixtures::V;
use streamfusion::types::LogicalType;
use window_fixtures::{Call, Shape, fixture, rows, touching, window_case};

bench_support::counting_allocator!();

const ROWS: [usize; 2] = [256, 4_096];
const CALLS: [Call; 3] = [Call::Min, Call::Max, Call::Count];
/// 0001-01-01T00:00:00 and 9999-12-31T23:59:59.999 in epoch milliseconds.
const MILLIS: (i64, i64) = (-62_135_596_800_000, 253_402_300_799_999);

#[derive(Debug, Clone, Copy)]
enum Precision {
    Millis,
    Nanos,
}

impl Precision {
    const ALL: [Precision; 2] = [Precision::Millis, Precision::Nanos];

    fn digits(self) -> u8 {
        match self {
            Precision::Millis => 3,
            Precision::Nanos => 9,
        }
    }

    /// Row `row`'s value: spread over the whole range, below its greatest value.
    fn value(self, row: usize) -> V {
        let (low, high) = self.range();
        V::Int(low.wrapping_add((mix(row as u64, 3) % high.abs_diff(low)) as i64))
    }

    /// The greatest value, above every [`Precision::value`].
    fn top(self) -> V {
        V::Int(self.range().1)
    }

    fn range(self) -> (i64, i64) {
        match self {
            Precision::Millis => MILLIS,
            Precision::Nanos => (i64::MIN, i64::MAX),
        }
    }
}

fn main() {
    let mut suite = Suite::new("window_temporal_extrema");
    for shape in Shape::ALL {
        for p in Precision::ALL {
            for n in ROWS {
                for keys in [1, 64, n] {
                    let id = format!(
                        "update_flush/{}/timestamp_{}/rows={n}/keys={keys}",
                        shape.name(),
                        p.digits()
                    );
                    window_case(&mut suite, &id, CALLS.len(), || {
                        let first = rows(n, keys, |row, _| p.value(row));
                        let mut batches = vec![first];
                        if shape == Shape::Session {
                            batches.push(touching(&batches[0], |key| {
                                // Key 0 of several is NULL-only.
                                if keys > 1 && *key == V::Int(0) {
                                    V::Null
                                } else {
                                    p.top()
                                }
                            }));
                        }
                        fixture(shape, &LogicalType::Timestamp(p.digits()), &CALLS, &batches)
                    });
                }
            }
        }
    }
    suite.finish();
}
