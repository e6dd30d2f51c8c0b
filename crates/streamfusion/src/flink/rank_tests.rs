use std::time::Duration;

use serde_json::{Value, json};

use super::super::plan_node;
use super::*;
use crate::types::LogicalType;

/// A rank node in the form released Flink 2.3.0 writes it (`stream-exec-rank_1`, as in
/// `tests/flink-2.3.0-nodes/rank-*.json`), over `k INT, v BIGINT, s STRING, pt PROCTIME`,
/// with `fields` replacing the node's fields of those names.
fn node(fields: Value) -> String {
    let input = json!({"type": "ROW", "fields": [
        {"name": "k", "fieldType": "INT"},
        {"name": "v", "fieldType": "BIGINT"},
        {"name": "s", "fieldType": "VARCHAR(2147483647)"},
        {"name": "pt", "fieldType": {"type": "TIMESTAMP_WITH_LOCAL_TIME_ZONE",
            "nullable": false, "precision": 3, "kind": "PROCTIME"}}]});
    let mut output = input.clone();
    output["fields"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "w0$o0", "fieldType": "BIGINT NOT NULL"}));
    let mut node = json!({
        "id": 7,
        "type": "stream-exec-rank_1",
        "configuration": {"table.exec.rank.topn-cache-size": "10000"},
        "rankType": "ROW_NUMBER",
        "partition": {"fields": [0]},
        "orderBy": {"fields": [{"index": 1, "isAscending": false, "nullIsLast": true}]},
        "rankRange": {"type": "Constant", "start": 1, "end": 3},
        "rankStrategy": {"type": "AppendFast"},
        "outputRowNumber": true,
        "generateUpdateBefore": true,
        "state": [{"index": 0, "ttl": "0 ms", "name": "rankState"}],
        "inputProperties": [],
        "outputType": output,
        "description": "Rank(...)"
    });
    for (k, v) in fields.as_object().unwrap() {
        node[k] = v.clone();
    }
    if node["outputRowNumber"] == json!(false) {
        node["outputType"] = input.clone();
    }
    json!({"node": node, "inputs": [input]}).to_string()
}

fn spec(fields: Value) -> RankSpec {
    match plan_node(&node(fields), None).unwrap() {
        OperatorPlan::Rank(spec) => spec,
        other => panic!("{other:?}"),
    }
}

fn refusal(fields: Value) -> String {
    plan_node(&node(fields), None).unwrap_err().to_string()
}

#[test]
fn a_rank_node_becomes_the_plan_of_the_function_flink_picks() {
    let top_n = spec(json!({}));
    assert_eq!(top_n.function, RankFunction::TopN);
    assert_eq!(top_n.partition_keys, [0]);
    assert_eq!(
        top_n.sort,
        [SortKey {
            column: 1,
            ascending: false,
            nulls_last: true
        }]
    );
    assert_eq!((top_n.rank_start, top_n.rank_end), (1, 3));
    assert_eq!(top_n.rank_name.as_deref(), Some("w0$o0"));
    assert!(top_n.generate_update_before && top_n.state_ttl.is_none());
    assert_eq!(top_n.max_parallelism, 128);

    let top1 = spec(
        json!({"rankRange": {"type": "Constant", "start": 1, "end": 1},
        "outputRowNumber": false, "generateUpdateBefore": false}),
    );
    assert_eq!(top1.function, RankFunction::Top1);
    assert!(top1.rank_name.is_none() && !top1.generate_update_before);

    // One ascending processing-time field: AppendOnlyFirstNFunction, whatever the range.
    let first = spec(json!({"orderBy": {"fields": [
        {"index": 3, "isAscending": true, "nullIsLast": false}]}}));
    assert_eq!(first.function, RankFunction::FirstN);
    assert!(first.input_types.contains(&LogicalType::TimestampLtz(3)));
    // Descending, it is an ordinary Top-N.
    let last = spec(json!({"orderBy": {"fields": [
        {"index": 3, "isAscending": false, "nullIsLast": false}]}}));
    assert_eq!(last.function, RankFunction::TopN);

    let offset = spec(
        json!({"rankRange": {"type": "Constant", "start": 2, "end": 4},
        "partition": {"fields": []}}),
    );
    assert_eq!((offset.rank_start, offset.rank_end), (2, 4));
    assert!(offset.partition_keys.is_empty());

    // A Top-1 over an upsert input: FastTop1Function as well.
    let upsert = spec(
        json!({"rankStrategy": {"type": "UpdateFast", "primaryKeys": [0]},
        "rankRange": {"type": "Constant", "start": 1, "end": 1}}),
    );
    assert_eq!(upsert.function, RankFunction::Top1);
    assert!(upsert.input_updates && !top1.input_updates);
    assert!(upsert.unique_key.is_empty());
    // Beyond a Top-1: UpdatableTopNFunction, its rows keyed by the strategy's primary key.
    let updatable = spec(json!({"rankStrategy": {"type": "UpdateFast", "primaryKeys": [0, 2]}}));
    assert_eq!(updatable.function, RankFunction::Update);
    assert!(updatable.input_updates);
    assert_eq!(updatable.unique_key, [0, 2]);

    let ttl = spec(json!({"state": [{"index": 0, "ttl": "3600000 ms", "name": "rankState"}]}));
    assert_eq!(ttl.state_ttl, Some(Duration::from_secs(3_600)));

    // Any updating input: RetractableTopNFunction, whatever the range.
    for range in [
        json!({"type": "Constant", "start": 1, "end": 1}),
        json!({"type": "Constant", "start": 1, "end": 3}),
    ] {
        let retract = spec(json!({"rankStrategy": {"type": "Retract"}, "rankRange": range}));
        assert_eq!(retract.function, RankFunction::Retract);
    }
}

#[test]
fn what_does_not_run_natively_is_refused_with_its_reason() {
    for (fields, reason) in [
        (
            json!({"rankStrategy": {"type": "UpdateFast"}}),
            "has no \"primaryKeys\"",
        ),
        (
            json!({"rankStrategy": {"type": "UpdateFast", "primaryKeys": [7]}}),
            "unique key",
        ),
        (
            json!({"rankStrategy": {"type": "UpdateFast", "primaryKeys": [0]},
                "state": [{"index": 0, "ttl": "3600000 ms", "name": "rankState"}]}),
            "state TTL on an updatable Top-N",
        ),
        (
            json!({"rankStrategy": {"type": "Retract"},
                "state": [{"index": 0, "ttl": "3600000 ms", "name": "rankState"}]}),
            "state TTL on a retracting Top-N",
        ),
        (
            json!({"rankStrategy": {"type": "Retract"}, "outputRowNumber": false,
                "rankRange": {"type": "Constant", "start": 2, "end": 4}}),
            "an offset and no rank column",
        ),
        (json!({"rankType": "RANK"}), "RANK() on a stream"),
        (
            json!({"rankRange": {"type": "Variable", "endIndex": 1}}),
            "variable rank range",
        ),
        (
            json!({"rankRange": {"type": "ConstantWithoutEnd", "start": 1}}),
            "without an end",
        ),
        (
            json!({"orderBy": {"fields": [{"index": 9, "isAscending": true, "nullIsLast": true}]}}),
            "sort",
        ),
    ] {
        let got = refusal(fields.clone());
        assert!(got.contains(reason), "{fields}: {got}");
    }
}

/// A rank node released Flink 2.3.0 wrote (`RankVectors`), by file stem after `rank-`.
fn fixture(name: &str) -> Result<OperatorPlan> {
    let path = format!(
        "{}/tests/flink-2.3.0-nodes/rank-{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: Value = serde_json::from_str(&text).unwrap();
    plan_node(&text, Some(&value["config"].to_string()))
}

#[test]
fn released_flinks_rank_nodes_plan_or_are_refused_as_expected() {
    let function = |name: &str| match fixture(name).unwrap_or_else(|e| panic!("{name}: {e}")) {
        OperatorPlan::Rank(spec) => (spec.function, spec.rank_start, spec.rank_end),
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(function("append_top1"), (RankFunction::Top1, 1, 1));
    assert_eq!(function("append_top1_asc"), (RankFunction::Top1, 1, 1));
    assert_eq!(function("append_topn"), (RankFunction::TopN, 1, 3));
    assert_eq!(function("append_topn_rn"), (RankFunction::TopN, 1, 3));
    assert_eq!(function("offset"), (RankFunction::TopN, 2, 4));
    assert_eq!(function("first_n"), (RankFunction::FirstN, 1, 3));
    assert_eq!(function("state_ttl"), (RankFunction::TopN, 1, 3));
    assert_eq!(function("retract").0, RankFunction::Retract);
    assert_eq!(function("update_fast").0, RankFunction::Update);
    // A global Top-5 ordered by `v DESC, d`: d is a DOUBLE (decision 0028).
    let err = fixture("global").unwrap_err().to_string();
    assert!(err.contains("sort column 2 is DOUBLE"), "global: {err}");
}
