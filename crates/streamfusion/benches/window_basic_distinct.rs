//! The `window_basic_distinct` suite: window aggregation's `COUNT(DISTINCT v)` (beside
//! `COUNT(v)`) over nullable BOOLEAN and TIME(3) values, TUMBLE and HOP, in one phase
//! (`OperatorPlan::WindowAggregate`) and in two (`LocalWindowAggregate`'s partials, with
//! their distinct value -> count maps, into `GlobalWindowAggregate`), through the production
//! operators' `Operator` entry points.
//!
//! Measured boundary (`update_flush/<shape>/<phases>/<type>/rows=R/keys=K`): one batch into
//! fresh operators on the memory backend (created outside timing), then the watermark that
//! fires every window: grouping, distinct membership, state, firing, output construction and
//! disposal; in two phases also the local accumulation, the partial drain and the global
//! merge of the distinct maps (HOP merges each window's two slices).
//!
//! Fixtures: BOOLEAN (both values) and TIME(3) (about a thousand distinct times of day),
//! NULL every 5th row and every value of key 0 NULL in the multi-key cases (a NULL-only
//! group counts 0); 64 and 4,096 rows over 40 seconds; one, 64 and all-row key domains
//! (the same at 64 rows).
//! Every window's distinct and plain counts are checked against `window_fixtures`' model
//! (a set per window) before timing.

mod group_fixtures;
mod window_fixtures;

use bench_support::Suite;
use group_fixtures::V;
use streamfusion::types::LogicalType;
use window_fixtures::{Call, Phases, Shape, phased, rows, window_case};

bench_support::counting_allocator!();

const ROWS: [usize; 2] = [64, 4_096];
const CALLS: [Call; 2] = [Call::CountDistinct, Call::Count];

fn main() {
    let mut suite = Suite::new("window_basic_distinct");
    let types = [
        ("boolean", LogicalType::Boolean),
        ("time", LogicalType::Time(3)),
    ];
    for shape in [Shape::Tumble, Shape::Hop] {
        for phases in [Phases::One, Phases::Two] {
            for (name, ty) in &types {
                for n in ROWS {
                    // At 64 rows, 64 keys are all-row keys.
                    let mut domains = vec![1, 64, n];
                    domains.dedup();
                    for keys in domains {
                        let id = format!(
                            "update_flush/{}/{}/{name}/rows={n}/keys={keys}",
                            shape.name(),
                            phases.name()
                        );
                        window_case(&mut suite, &id, CALLS.len(), || {
                            let input = rows(n, keys, |row, _| match ty {
                                LogicalType::Boolean => V::Bool(row % 3 == 1),
                                _ => V::Int((row as i64 * 7_919) % 1_009 * 85_601 % 86_400_000),
                            });
                            phased(shape, phases, ty, &CALLS, &[input])
                        });
                    }
                }
            }
        }
    }
    suite.finish();
}
