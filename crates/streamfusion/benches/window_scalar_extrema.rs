//! The `window_scalar_extrema` suite: window aggregation's DATE, TIME and BOOLEAN
//! `MIN`/`MAX` update and watermark flush over TUMBLE, HOP and CUMULATE
//! (`OperatorPlan::WindowAggregate`) and with SESSION merges
//! (`OperatorPlan::SessionWindowAggregate`), through the production operators' `Operator`
//! entry points.
//!
//! Measured boundary (`update_flush/<shape>/<type>/rows=R/keys=K`): the input batches into
//! a fresh operator on the memory backend (created outside timing), then the watermark that
//! fires every window: grouping, accumulation, state, session merges, firing, output
//! construction and disposal. SESSION takes a second batch with one row per key at its last
//! time plus the gap, whose session touches the key's last one and merges with it, with a
//! value above every earlier one (so the merged MAX moves).
//!
//! Fixtures: nullable DATE (days either side of 1970), TIME(3) (the whole day) and BOOLEAN
//! values, NULL every 5th row and every value of key 0 NULL in the multi-key cases (a
//! NULL-only group); 128 and 4,096 rows over 40 seconds; one, 64 and 1,024 key domains.
//! Every window's MIN and MAX are checked against `window_fixtures`' model before timing.

mod group_fixtures;
mod window_fixtures;

use bench_support::Suite;
use group_fixtures::V;
use streamfusion::types::LogicalType;
use window_fixtures::{Call, Shape, fixture, rows, touching, window_case};

bench_support::counting_allocator!();

const ROWS: [usize; 2] = [128, 4_096];
const KEYS: [usize; 3] = [1, 64, 1_024];
const CALLS: [Call; 2] = [Call::Min, Call::Max];

#[derive(Debug, Clone, Copy)]
enum Type {
    Date,
    Time,
    Boolean,
}

impl Type {
    const ALL: [Type; 3] = [Type::Date, Type::Time, Type::Boolean];

    fn name(self) -> &'static str {
        match self {
            Type::Date => "date",
            Type::Time => "time",
            Type::Boolean => "boolean",
        }
    }

    fn logical(self) -> LogicalType {
        match self {
            Type::Date => LogicalType::Date,
            Type::Time => LogicalType::Time(3),
            Type::Boolean => LogicalType::Boolean,
        }
    }

    /// Row `row`'s value.
    fn value(self, row: usize) -> V {
        let spread = (row as i64 * 7_919) % 100_003;
        match self {
            Type::Date => V::Int(spread - 50_000),
            Type::Time => V::Int(spread * 863 % 86_400_000),
            Type::Boolean => V::Bool(row % 3 == 1),
        }
    }

    /// A value at least as great as every [`Type::value`].
    fn top(self) -> V {
        match self {
            Type::Date => V::Int(2_932_896),
            Type::Time => V::Int(86_399_999),
            Type::Boolean => V::Bool(true),
        }
    }
}

fn main() {
    let mut suite = Suite::new("window_scalar_extrema");
    for shape in Shape::ALL {
        for ty in Type::ALL {
            for n in ROWS {
                for keys in KEYS {
                    let id = format!(
                        "update_flush/{}/{}/rows={n}/keys={keys}",
                        shape.name(),
                        ty.name()
                    );
                    window_case(&mut suite, &id, CALLS.len(), || {
                        let first = rows(n, keys, |row, _| ty.value(row));
                        let mut batches = vec![first];
                        if shape == Shape::Session {
                            batches.push(touching(&batches[0], |key| {
                                // Key 0 of several is NULL-only.
                                if keys > 1 && *key == V::Int(0) {
                                    V::Null
                                } else {
                                    ty.top()
                                }
                            }));
                        }
                        fixture(shape, &ty.logical(), &CALLS, &batches)
                    });
                }
            }
        }
    }
    suite.finish();
}
