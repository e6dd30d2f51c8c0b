use std::time::Duration;

use serde_json::Value;

use super::super::plan_node;
use super::*;
use crate::types::LogicalType;

/// A deduplicate node released Flink 2.3.0 wrote (`AggNodeDump`), by file stem after
/// `dedup-`, with its options replaced by `config` where given.
fn parse(name: &str, config: Option<Value>) -> Result<OperatorPlan> {
    let path = format!(
        "{}/tests/flink-2.3.0-nodes/dedup-{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: Value = serde_json::from_str(&text).unwrap();
    let config = config.unwrap_or_else(|| value["config"].clone());
    plan_node(&text, Some(&config.to_string()))
}

fn spec(name: &str) -> DedupSpec {
    match parse(name, None).unwrap_or_else(|e| panic!("{name}: {e}")) {
        OperatorPlan::Deduplicate(spec) => spec,
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn flinks_deduplicate_nodes_become_the_plans_of_their_functions() {
    let first = spec("proctime_first");
    assert_eq!(
        (first.keys.as_slice(), first.rowtime_column),
        (&[0][..], None)
    );
    assert!(!first.keep_last && first.generate_insert && first.mini_batch_rows.is_none());
    // The processing-time attribute is an ordinary TIMESTAMP_LTZ(3) column in the row.
    assert!(first.input_types.contains(&LogicalType::TimestampLtz(3)));

    let last = spec("proctime_last");
    assert!(last.keep_last && last.generate_update_before && !last.output_insert_only);

    let rowtime_first = spec("rowtime_first");
    let column = rowtime_first.rowtime_column.expect("a rowtime column");
    assert!(matches!(
        rowtime_first.input_types[column],
        LogicalType::Timestamp(3) | LogicalType::TimestampLtz(3)
    ));
    // Insert-only keep-first: Flink's RowTimeDeduplicateKeepFirstRowFunction, on timers.
    assert!(rowtime_first.output_insert_only && !rowtime_first.keep_last);

    let rowtime_last = spec("rowtime_last");
    assert!(rowtime_last.keep_last && !rowtime_last.output_insert_only);
    assert_eq!(spec("mini_batch_last").mini_batch_rows, Some(500));
    assert_eq!(
        spec("state_ttl").state_ttl,
        Some(Duration::from_secs(3_600))
    );
    assert_eq!(spec("proctime_first").max_parallelism, 128);
}

#[test]
fn the_nodes_own_options_decide_over_the_session_config() {
    // The node's persisted `configuration` holds Flink's resolved values: a session option
    // given afterwards does not change the plan.
    let plan = parse(
        "proctime_last",
        Some(serde_json::json!({
            "table.exec.deduplicate.insert-update-after-sensitive-enabled": "false"
        })),
    )
    .unwrap();
    let OperatorPlan::Deduplicate(spec) = plan else {
        unreachable!()
    };
    assert!(spec.generate_insert);
}

#[test]
fn compacted_mini_batch_changes_are_refused_by_the_option() {
    let path = format!(
        "{}/tests/flink-2.3.0-nodes/dedup-mini_batch_last.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut node: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    node["node"]["configuration"]["table.exec.deduplicate.mini-batch.compact-changes-enabled"] =
        "true".into();
    let text = node.to_string();
    let err = plan_node(&text, None).unwrap_err();
    assert!(
        err.to_string()
            .contains("table.exec.deduplicate.mini-batch.compact-changes-enabled = true"),
        "{err}"
    );
}
