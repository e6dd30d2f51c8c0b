use serde_json::Value;

use super::super::plan_node;
use super::*;
use crate::aggregate::AggCall;

/// An OVER node released Flink 2.3.0 wrote (`AggNodeDump`), by file stem after `over-`,
/// with `edit` applied to the description first.
fn fixture_with(name: &str, edit: impl FnOnce(&mut Value)) -> Result<OperatorPlan> {
    let path = format!(
        "{}/tests/flink-2.3.0-nodes/over-{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut value: Value = serde_json::from_str(&text).unwrap();
    edit(&mut value);
    plan_node(&value.to_string(), Some(&value["config"].to_string()))
}

fn spec(name: &str) -> OverSpec {
    match fixture_with(name, |_| {}).unwrap_or_else(|e| panic!("{name}: {e}")) {
        OperatorPlan::OverAggregate(spec) => spec,
        other => panic!("{name}: {other:?}"),
    }
}

fn refusal(name: &str, edit: impl FnOnce(&mut Value)) -> String {
    fixture_with(name, edit).unwrap_err().to_string()
}

#[test]
fn released_flinks_over_nodes_become_their_frames() {
    // `SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)`,
    // `COUNT(*)`: the optimizer plans SUM as COUNT and $SUM0 with a Calc after the node.
    let rows = spec("rows_bounded");
    assert_eq!(rows.frame, OverFrame::RowsBounded { rows: 3 });
    assert_eq!(rows.partition_keys, [0]);
    assert_eq!(rows.time_column, 2);
    assert_eq!(
        rows.calls,
        [
            AggCall::new(AggFunction::Count, Some(1), "w0$o0"),
            AggCall::new(AggFunction::Sum0, Some(1), "w0$o1"),
            AggCall::new(AggFunction::CountStar, None, "w0$o2"),
        ]
    );
    assert_eq!(rows.max_parallelism, 128);
    // `RANGE BETWEEN INTERVAL '2' SECOND PRECEDING`: the constant is 2000 ms.
    let range = spec("range_bounded");
    assert_eq!(range.frame, OverFrame::RangeBounded { millis: 2000 });
    assert_eq!(
        range.calls[2],
        AggCall::new(AggFunction::Max, Some(2), "w0$o2")
    );
    assert_eq!(spec("rows_unbounded").frame, OverFrame::RowsUnbounded);
    let distinct = spec("range_unbounded");
    assert_eq!(distinct.frame, OverFrame::RangeUnbounded);
    assert!(distinct.calls.iter().any(|c| c.distinct), "{distinct:?}");
    // `ORDER BY pt ROWS BETWEEN 2 PRECEDING`: processing time.
    let proctime = spec("proctime_rows");
    assert!(proctime.processing_time);
    assert_eq!(proctime.frame, OverFrame::RowsBounded { rows: 3 });
    assert!(!spec("rows_bounded").processing_time);
    let global = spec("no_partition");
    assert!(global.partition_keys.is_empty());
    assert_eq!(global.frame, OverFrame::RowsBounded { rows: 6 });
}

/// A change to a fixture's description.
type Edit = Box<dyn FnOnce(&mut Value)>;

#[test]
fn what_does_not_run_natively_is_refused_with_its_reason() {
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "proctime_rows",
            Box::new(|v| {
                v["node"]["overSpec"]["groups"][0]["isRows"] = serde_json::json!(false);
            }),
            "a RANGE frame with a preceding bound over processing time",
        ),
        // Flink cleans ROWS and unbounded state on processing-time timers.
        (
            "state_ttl",
            Box::new(|_| {}),
            "table.exec.state.ttl = 3600000 ms",
        ),
        (
            "rows_unbounded",
            Box::new(|v| {
                v["node"]
                    .as_object_mut()
                    .unwrap()
                    .remove("unboundedOverVersion");
            }),
            "unbounded OVER version 1",
        ),
        (
            "rows_bounded",
            Box::new(|v| {
                v["node"]["overSpec"]["groups"][0]["upperBound"] =
                    serde_json::json!({"kind": "BOUNDED_WINDOW", "isFollowing": true});
            }),
            "Flink supports CURRENT ROW only",
        ),
        (
            "rows_bounded",
            Box::new(|v| {
                v["node"]["overSpec"]["groups"][0]["aggCalls"][0]["argList"] =
                    serde_json::json!([4]);
            }),
            "an OVER aggregate of a constant",
        ),
        // MAX(d) is fine, a DOUBLE sum is not (its rounding follows Flink's retraction order).
        (
            "range_bounded",
            Box::new(|v| {
                v["node"]["overSpec"]["groups"][0]["aggCalls"][1]["argList"] =
                    serde_json::json!([2]);
                v["node"]["overSpec"]["groups"][0]["aggCalls"][1]["type"] =
                    serde_json::json!("DOUBLE NOT NULL");
                v["node"]["outputType"]["fields"][5]["fieldType"] =
                    serde_json::json!("DOUBLE NOT NULL");
            }),
            "$SUM0 of DOUBLE in a RANGE frame",
        ),
        (
            "range_unbounded",
            Box::new(|v| {
                v["node"]["overSpec"]["groups"][0]["orderBy"]["fields"][0]["isAscending"] =
                    serde_json::json!(false);
            }),
            "ordered descending",
        ),
    ];
    for (name, edit, reason) in cases {
        let got = refusal(name, edit);
        assert!(got.contains(reason), "{name}: {got}");
    }
    // A RANGE bounded frame keeps running with state TTL: Flink's function has none.
    let ttl = fixture_with("range_bounded", |v| {
        v["config"]["table.exec.state.ttl"] = serde_json::json!("1 h");
    });
    assert!(ttl.is_ok(), "{ttl:?}");
}
