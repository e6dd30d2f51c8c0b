use serde_json::Value;

use super::super::plan_node;
use super::*;
use crate::rank::SortKey;
use crate::types::LogicalType;

/// A window rank or deduplicate node released Flink 2.3.0 wrote (`AggNodeDump`), by file
/// stem, with the options it was compiled under.
fn parse(stem: &str) -> Result<OperatorPlan> {
    let path = format!(
        "{}/tests/flink-2.3.0-nodes/{stem}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: Value = serde_json::from_str(&text).unwrap();
    plan_node(&text, Some(&value["config"].to_string()))
}

fn spec(stem: &str) -> WindowRankSpec {
    match parse(stem).unwrap_or_else(|e| panic!("{stem}: {e}")) {
        OperatorPlan::WindowRank(spec) => spec,
        other => panic!("{stem}: {other:?}"),
    }
}

#[test]
fn flinks_window_rank_nodes_become_window_top_n_plans() {
    // `k, v, s, window_start, window_end`, PARTITION BY window, k ORDER BY v DESC, rn <= 3.
    let top3 = spec("window_rank-top3");
    assert_eq!(top3.partition_keys, vec![0]);
    assert_eq!(top3.window_end_column, 4);
    assert_eq!(top3.input_types[4], LogicalType::Timestamp(3));
    let descending = SortKey {
        column: 1,
        ascending: false,
        nulls_last: true,
    };
    assert_eq!(
        top3.keep,
        WindowKeep::TopN {
            sort: vec![descending],
            rank_start: 1,
            rank_end: 3,
            rank_name: None,
        }
    );

    let range = spec("window_rank-range");
    let WindowKeep::TopN {
        rank_start,
        rank_end,
        rank_name,
        ..
    } = &range.keep
    else {
        panic!("{range:?}")
    };
    assert_eq!((*rank_start, *rank_end), (2, 4));
    assert!(rank_name.is_some());
    // PARTITION BY the window only: one partition per window.
    assert!(range.partition_keys.is_empty());

    // After a window aggregate, the aggregate's window_end (column 1) is attached.
    let after_agg = spec("window_rank-after_agg");
    assert_eq!(after_agg.window_end_column, 1);
    assert!(after_agg.partition_keys.is_empty());
    assert!(matches!(
        spec("window_rank-hop").keep,
        WindowKeep::TopN { .. }
    ));
    assert!(matches!(
        spec("window_rank-top3_rn").keep,
        WindowKeep::TopN { ref sort, .. } if sort.len() == 2
    ));
}

#[test]
fn flinks_window_deduplicate_nodes_become_window_deduplication_plans() {
    // `k, v, s, ts, window_start, window_end` ORDER BY ts: the first row.
    let first = spec("window_dedup-first");
    assert_eq!(
        (first.partition_keys.as_slice(), first.window_end_column),
        (&[0][..], 5)
    );
    assert_eq!(
        first.keep,
        WindowKeep::Deduplicate {
            rowtime_column: 3,
            keep_last: false
        }
    );
    let last = spec("window_dedup-last");
    assert!(matches!(
        last.keep,
        WindowKeep::Deduplicate {
            keep_last: true,
            ..
        }
    ));
    assert!(matches!(
        spec("window_dedup-cumulate_last").keep,
        WindowKeep::Deduplicate {
            keep_last: true,
            ..
        }
    ));
}

#[test]
fn processing_time_stays_stock_and_ltz_windows_keep_the_session_time_zone() {
    let proctime = parse("window_rank-proctime").unwrap_err().to_string();
    assert!(proctime.contains("processing-time windows"), "{proctime}");
    // TUMBLE over a TIMESTAMP_LTZ attribute in Asia/Shanghai: its ends are Shanghai times.
    let shanghai = spec("window_rank-ltz_shanghai");
    assert_eq!(shanghai.time_zone.as_deref(), Some("Asia/Shanghai"));
    assert_eq!(spec("window_rank-top3").time_zone, None);
}

#[test]
fn other_rank_types_and_variable_ranges_are_refused() {
    let path = format!(
        "{}/tests/flink-2.3.0-nodes/window_rank-top3.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let with = |pointer: &str, value: Value| {
        let mut node: Value = serde_json::from_str(&text).unwrap();
        *node.pointer_mut(pointer).unwrap() = value;
        plan_node(&node.to_string(), None).unwrap_err().to_string()
    };
    let rank = with("/node/rankType", "RANK".into());
    assert!(rank.contains("RANK() in a window Top-N"), "{rank}");
    let variable = with(
        "/node/rankRange",
        serde_json::json!({"type": "Variable", "rankEndIndex": 1}),
    );
    assert!(variable.contains("variable rank range"), "{variable}");
    // A window end that is not the attached TIMESTAMP(3) column.
    let end = with("/node/windowing/windowEnd", 1.into());
    assert!(end.contains("window end column 1 is BIGINT"), "{end}");
}

#[test]
fn flinks_window_table_function_nodes_become_window_tvf_plans() {
    use crate::window::slices::SliceAssigner;
    use crate::window_table::WindowTableSpec;
    let table = |stem: &str| match parse(stem).unwrap_or_else(|e| panic!("{stem}: {e}")) {
        OperatorPlan::WindowTableFunction(spec) => spec,
        other => panic!("{stem}: {other:?}"),
    };
    // `TUMBLE(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND)` over `k, v, ts`.
    let tumble: WindowTableSpec = table("window_tvf-tumble");
    assert_eq!(tumble.time_column, 2);
    assert_eq!(
        tumble.window,
        SliceAssigner::Tumble {
            size: 1_000,
            offset: 0
        }
    );
    // `HOP(.., INTERVAL '1' SECOND, INTERVAL '3' SECOND)` over all of wsrc (ts is column 5).
    let hop = table("window_tvf-hop");
    assert_eq!(
        (hop.time_column, hop.window),
        (
            5,
            SliceAssigner::Hop {
                size: 3_000,
                slide: 1_000,
                offset: 0
            }
        )
    );
    // `CUMULATE(.., INTERVAL '1' SECOND, INTERVAL '3' SECOND, INTERVAL '0.5' SECOND)`.
    assert_eq!(
        table("window_tvf-cumulate").window,
        SliceAssigner::Cumulate {
            max_size: 3_000,
            step: 1_000,
            offset: 500
        }
    );
    let proctime = parse("window_tvf-proctime").unwrap_err().to_string();
    assert!(proctime.contains("processing-time windows"), "{proctime}");
    let shanghai = table("window_tvf-ltz_shanghai");
    assert_eq!(shanghai.time_zone.as_deref(), Some("Asia/Shanghai"));
    assert_eq!(tumble.time_zone, None);
}
