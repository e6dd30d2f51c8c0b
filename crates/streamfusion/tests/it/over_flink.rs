//! OVER aggregation against changelogs produced by released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-over.jsonl` was written by
//! `java/src/org/streamfusion/golden/OverVectors.java`, which runs each scenario through Flink
//! SQL (`agg OVER ([PARTITION BY ..] ORDER BY rowtime ROWS|RANGE BETWEEN .. PRECEDING AND
//! CURRENT ROW)` over a rowtime source with punctuated watermarks, at parallelism 1) on the
//! hashmap or the RocksDB state backend, and records for each one the OVER node as
//! StreamFusion's planner describes it (the two texts `flink::plan_node` reads), the events
//! the node receives (rows, and watermarks, the last one `Long.MAX_VALUE` at the end of input)
//! and the rows the node emits (its input row, then one column per aggregate call, before the
//! Calc Flink plans after a `SUM` or an `AVG`).
//!
//! File format: the golden layout of [`super::common::golden_replay`], whose scenario lines
//! also carry `description`, `kind` (`rows bounded`, `range bounded`, `rows unbounded`,
//! `range unbounded`), `frame`, `preceding`, `function` (the Flink class that ran it), and
//! `sql` and `plan`; `output_columns` are the node's input row, then its calls.
//!
//! Every scenario the native side runs must be planned (`flink::plan_node`; a refusal fails
//! with its reason) and replayed whole, in 17-row batches, and in batches with a checkpoint
//! and a restore after every batch that a watermark follows, on the backend it ran on in Flink (memory for hashmap);
//! the output must equal Flink's per partition key, as the exact sequence of rows (one
//! sequence without a partition key), and as a whole as a multiset. Exactly the scenarios
//! with a FLOAT/DOUBLE SUM, $SUM0 or AVG in a RANGE frame with a preceding bound (decision
//! 0029) must be refused. When a JDK and the planner
//! classpath are present, the Java program is run again and must write the committed file
//! byte for byte.

use std::path::Path;

use serde_json::Value as Json;
use streamfusion::types::LogicalType;

use super::common::golden_replay::{self, Replays, Scenario};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-over.jsonl"
);

const NATIVE_KINDS: [&str; 4] = [
    "rows bounded",
    "range bounded",
    "rows unbounded",
    "range unbounded",
];

/// Whether the native side runs `s`: a rowtime frame, and in a bounded RANGE frame no
/// floating-point sum (decision 0029).
fn native(s: &Scenario<()>) -> bool {
    if !NATIVE_KINDS.contains(&s.kind.as_str()) {
        return false;
    }
    let node: Json = serde_json::from_str(&s.node).expect("the node text");
    let calls = node["node"]["overSpec"]["groups"][0]["aggCalls"]
        .as_array()
        .expect("aggCalls")
        .clone();
    let float_sum = calls.iter().any(|c| {
        let summing = matches!(
            c["internalName"].as_str(),
            Some("$SUM$1" | "$$SUM0$1" | "$AVG$1")
        );
        let floating = c["argList"].as_array().is_some_and(|args| {
            args.iter().any(|a| {
                matches!(
                    s.input_types.get(a.as_u64().unwrap_or(u64::MAX) as usize),
                    Some(LogicalType::Float | LogicalType::Double)
                )
            })
        });
        summing && floating
    });
    !(s.kind == "range bounded" && float_sum)
}

#[test]
fn over_aggregation_matches_released_flink_changelogs() {
    let scenarios = golden_replay::read(GOLDEN, |_| ());
    golden_replay::assert_enough(&scenarios);
    for kind in NATIVE_KINDS {
        golden_replay::assert_on_both_backends(&scenarios, kind, |s| s.kind == kind);
    }
    assert!(
        scenarios.iter().any(|s| s.output_keys.is_empty()),
        "no OVER without PARTITION BY"
    );
    Replays::run_all(&scenarios, native, |_, how| how.rows());
}

#[test]
fn golden_over_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_over_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.OverVectors",
        Path::new(GOLDEN),
    );
}
