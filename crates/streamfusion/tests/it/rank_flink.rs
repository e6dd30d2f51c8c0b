//! Top-N against changelogs produced by released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-rank.jsonl` was written by
//! `java/src/org/streamfusion/golden/RankVectors.java`, which runs each scenario through Flink
//! SQL (`ROW_NUMBER() OVER ([PARTITION BY ..] ORDER BY ..)` filtered by `rn <= N`, `rn < N`,
//! `rn = 1` or `rn BETWEEN a AND b`, with and without `rn` in the output, at parallelism 1:
//! top-1, top-N and first-N over insert-only input, with and without `-U`, state TTL; and
//! Top-N over updating input, the retract and update-fast strategies) on the hashmap or the
//! RocksDB state backend, and records for each one the rank node as StreamFusion's planner
//! describes it (the two texts `flink::plan_node` reads), the events the node receives (rows
//! with their kinds, and watermarks, the last one `Long.MAX_VALUE` at the end of input) and the
//! changelog the job emits.
//!
//! File format: the golden layout of [`super::common::golden_replay`], whose scenario lines
//! also carry `description`, `kind` (`append top-1`, `append top-n`, `append first-n`,
//! `retract`, `update-fast top-1`, `update-fast top-n`), `function` (Flink's), `strategy`,
//! `rank_range`, `row_number`, `update_before`, an input's `time` attribute, and `sql` and
//! `plan`; `output_columns` are the input row, then the row number, and `output_keys` are
//! none for a global Top-N. A proctime column holds NULL, as in Flink.
//!
//! Every scenario of a kind the native side runs must be planned (`flink::plan_node`; a
//! refusal fails with its reason) and replayed as [`super::common::golden_replay`] replays
//! it, on the backend it ran on in Flink (memory for hashmap): whole (rows between
//! watermarks in one batch), in 17-row batches, and in batches with a checkpoint and a
//! restore from it after every batch that a watermark follows. The output must equal Flink's
//! per partition key, as the exact sequence of kinds and rows (one sequence for a global
//! Top-N), and as a whole as a multiset. The Top-Ns (not Top-1s or First-Ns) over a
//! FLOAT/DOUBLE sort field must be refused, exactly those. Processing time only
//! matters with state TTL: those scenarios run on a manual clock that never moves (Flink's
//! TTL of 1 h never expired in the run). When a JDK and the planner classpath are present,
//! the Java program is also run again and must write the committed file byte for byte;
//! otherwise that check reports itself skipped.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value as Json;
use streamfusion::types::LogicalType;

use super::common::Backend;
use super::common::golden_replay::{self, Replays, Scenario};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/flink-2.3.0-rank.jsonl"
);

/// What only the rank file records of a scenario.
struct Rank {
    /// Whether the row number is an output column.
    row_number: bool,
    /// Whether the node generates `-U`.
    update_before: bool,
}

fn flag(v: &Json, what: &str) -> bool {
    v.as_bool()
        .unwrap_or_else(|| panic!("{what}: expected a boolean, got {v}"))
}

fn rank(v: &Json) -> Rank {
    Rank {
        row_number: flag(&v["row_number"], "row_number"),
        update_before: flag(&v["update_before"], "update_before"),
    }
}

impl Scenario<Rank> {
    /// Whether the native side runs this scenario: not a Top-N (more than one rank) over a
    /// FLOAT/DOUBLE sort field (refused: decision 0028).
    fn native(&self) -> bool {
        let node: Json = serde_json::from_str(&self.node).expect("the node text");
        let float_sort = node["node"]["orderBy"]["fields"]
            .as_array()
            .expect("orderBy fields")
            .iter()
            .any(|f| {
                let column = f["index"].as_u64().expect("a sort index") as usize;
                matches!(
                    self.input_types[column],
                    LogicalType::Float | LogicalType::Double
                )
            });
        let top_n = !matches!(
            self.kind.as_str(),
            "append top-1" | "update-fast top-1" | "append first-n"
        );
        !(float_sort && top_n)
    }
}

#[test]
fn top_n_matches_released_flink_changelogs() {
    let scenarios = golden_replay::read(GOLDEN, rank);
    assert!(
        scenarios.len() >= 40,
        "only {} golden scenarios",
        scenarios.len()
    );
    let names: BTreeSet<&str> = scenarios.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), scenarios.len(), "scenario names repeat");
    // Every kind on each backend; the append kinds with and without -U; the Top-Ns and
    // First-N with and without the row number; a global Top-N.
    let covered = |kind: &str, what: String, pred: &dyn Fn(&Scenario<Rank>) -> bool| {
        assert!(
            scenarios.iter().any(|s| s.kind == kind && pred(s)),
            "no {kind} scenario {what}"
        );
    };
    let append = ["append top-1", "append top-n", "append first-n"];
    let updating = ["retract", "update-fast top-n"];
    for kind in append.iter().chain(&updating) {
        for backend in [Backend::Memory, Backend::Rocks] {
            covered(kind, format!("on {backend:?}"), &|s| s.backend == backend);
        }
    }
    for kind in append {
        for update_before in [false, true] {
            covered(
                kind,
                format!("with update_before = {update_before}"),
                &|s| s.own.update_before == update_before,
            );
        }
    }
    for kind in append[1..].iter().chain(&updating) {
        for row_number in [false, true] {
            covered(kind, format!("with row_number = {row_number}"), &|s| {
                s.own.row_number == row_number
            });
        }
    }
    assert!(
        scenarios.iter().any(|s| s.output_keys.is_empty()),
        "no global Top-N"
    );
    // The Top-Ns sorting by floats are refused, exactly those.
    Replays::run_all(&scenarios, Scenario::native, |_, how| how.rows());
}

#[test]
fn golden_rank_changelogs_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_planner_golden_regenerates(
        "golden_rank_changelogs_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.RankVectors",
        Path::new(GOLDEN),
    );
}
