//! The `window_string_extrema` suite: window aggregation's STRING `MIN`/`MAX` update and
//! watermark flush over TUMBLE, HOP and CUMULATE, through the production operator
//! ([`streamfusion::ops::OperatorPlan::WindowAggregate`], built and driven by its `Operator`
//! entry points).
//!
//! Measured boundary (`update_flush/<shape>/utf8_<width>/rows=R/keys=K`): one batch of R rows
//! into a fresh operator on the memory backend (created outside timing), then the watermark
//! that fires every window: grouping, accumulation (string comparison and copies into the
//! accumulators), state, firing, output construction and disposal.
//!
//! Fixtures: nullable UTF-8 values of about 16 and 256 bytes (a five-digit ordinal, then
//! two-, three- and four-byte characters and NULs), NULL every 5th row and every value of
//! key 0 NULL in the multi-key cases (a NULL-only group, whose extrema are NULL); 256 and
//! 4,096 rows over 40 seconds; one, 64 and batch-sized key domains. Before timing, every
//! window's MIN and MAX are checked against `window_fixtures`' model (windows by plain
//! arithmetic, extrema by byte order as Flink's `BinaryStringData.compareTo`).

mod group_fixtures;
mod window_fixtures;

use bench_support::Suite;
use group_fixtures::{V, text};
use streamfusion::types::LogicalType;
use window_fixtures::{Call, Shape, fixture, rows, window_case};

bench_support::counting_allocator!();

const ROWS: [usize; 2] = [256, 4_096];
const WIDTHS: [usize; 2] = [16, 256];
const CALLS: [Call; 2] = [Call::Min, Call::Max];

fn main() {
    let mut suite = Suite::new("window_string_extrema");
    let string = LogicalType::VarChar(i32::MAX as u32);
    for shape in Shape::SLICED {
        for n in ROWS {
            for keys in [1, 64, n] {
                for width in WIDTHS {
                    let id = format!(
                        "update_flush/{}/utf8_{width}/rows={n}/keys={keys}",
                        shape.name()
                    );
                    window_case(&mut suite, &id, CALLS.len(), || {
                        let input = rows(n, keys, |row, _| {
                            V::Str(text((row * 7_919) % 10_007, width))
                        });
                        fixture(shape, &string, &CALLS, &[input])
                    });
                }
            }
        }
    }
    suite.finish();
}
