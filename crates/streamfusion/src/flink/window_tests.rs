use serde_json::Value;

use super::super::plan_node;
use super::*;
use crate::aggregate::{AggCall, AggFunction};

/// A window node released Flink 2.3.0 wrote (`AggNodeDump`), by file stem after `window-`.
fn parse(name: &str) -> Result<OperatorPlan> {
    let path = format!(
        "{}/tests/flink-2.3.0-nodes/window-{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: Value = serde_json::from_str(&text).unwrap();
    plan_node(&text, Some(&value["config"].to_string()))
}

fn spec(name: &str) -> WindowAggSpec {
    match parse(name).unwrap_or_else(|e| panic!("{name}: {e}")) {
        OperatorPlan::WindowAggregate(spec) => spec,
        other => panic!("{name}: {other:?}"),
    }
}

fn names(spec: &WindowAggSpec) -> Vec<(&str, WindowProperty)> {
    spec.properties
        .iter()
        .map(|(n, p)| (n.as_str(), *p))
        .collect()
}

/// Each node read as the query that planned it says (the oracle is the SQL in
/// `AggNodeDump`: `TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)`, ...).
#[test]
fn window_nodes_read_as_their_queries() {
    let tumble = spec("tumble");
    assert_eq!(
        tumble.window,
        SliceAssigner::Tumble {
            size: 1000,
            offset: 0
        }
    );
    assert_eq!(tumble.time_column, 4);
    assert_eq!(tumble.aggregate.grouping, [0]);
    let functions: Vec<(AggFunction, Option<usize>)> = tumble
        .aggregate
        .calls
        .iter()
        .map(|c| (c.function, c.arg))
        .collect();
    assert_eq!(
        functions,
        [
            (AggFunction::CountStar, None),
            (AggFunction::Sum, Some(1)),
            (AggFunction::Min, Some(2)),
            (AggFunction::Max, Some(3)),
            (AggFunction::Avg, Some(1)),
        ]
    );
    assert_eq!(
        names(&tumble),
        [
            ("window_start", WindowProperty::Start),
            ("window_end", WindowProperty::End)
        ]
    );
    assert_eq!(tumble.aggregate.max_parallelism, 128);

    assert_eq!(
        spec("tumble_offset").window,
        SliceAssigner::Tumble {
            size: 10_000,
            offset: 3_000
        }
    );
    assert_eq!(
        spec("hop").window,
        SliceAssigner::Hop {
            size: 4_000,
            slide: 1_000,
            offset: 0
        }
    );
    assert_eq!(
        spec("cumulate_offset").window,
        SliceAssigner::Cumulate {
            max_size: 10_000,
            step: 2_000,
            offset: 1_000
        }
    );
    let no_grouping = spec("no_grouping");
    assert!(no_grouping.aggregate.grouping.is_empty());
    let timed = spec("window_time");
    assert_eq!(names(&timed)[2], ("window_time", WindowProperty::Time));
    let mut distinct = AggCall::new(AggFunction::Count, Some(1), "ds");
    distinct.distinct = true;
    assert_eq!(timed.aggregate.calls[0], distinct);
    // A TIMESTAMP_LTZ row time windowed in UTC, and in the session time zone
    // (`table.local-time-zone`) of the job's config.
    let utc = spec("ltz_rowtime");
    assert_eq!((utc.time_column, utc.time_zone), (2, None));
    let shanghai = spec("ltz_rowtime_shanghai");
    assert_eq!(shanghai.time_zone.as_deref(), Some("Asia/Shanghai"));
}

/// `SESSION(TABLE src PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)` grouped by
/// `window_start, window_end, k` with `COUNT(*)`, as `AggNodeDump` planned it.
#[test]
fn a_session_node_reads_as_its_query() {
    let OperatorPlan::SessionWindowAggregate(session) = parse("session").unwrap() else {
        panic!("a session node plans a session aggregate");
    };
    assert_eq!(session.gap, 5_000);
    assert_eq!(session.time_column, 1);
    assert_eq!(session.aggregate.grouping, [0]);
    assert_eq!(session.aggregate.calls.len(), 1);
    assert_eq!(session.aggregate.calls[0].function, AggFunction::CountStar);
    let properties: Vec<(&str, WindowProperty)> = session
        .properties
        .iter()
        .map(|(n, p)| (n.as_str(), *p))
        .collect();
    assert_eq!(
        properties,
        [
            ("window_start", WindowProperty::Start),
            ("window_end", WindowProperty::End)
        ]
    );
}

/// `GROUP BY k, SESSION(ts, INTERVAL '5' SECOND)` with `SESSION_START`, `COUNT(*)` and
/// `SUM(v)`, as `AggNodeDump` planned it (Flink adds all four window properties).
#[test]
fn a_legacy_session_group_window_reads_as_its_query() {
    let OperatorPlan::SessionWindowAggregate(session) = parse("group_session").unwrap() else {
        panic!("a legacy session group window plans a session aggregate");
    };
    assert!(session.legacy);
    assert_eq!(session.gap, 5_000);
    assert_eq!(session.time_column, 1);
    assert_eq!(session.aggregate.grouping, [0]);
    let functions: Vec<(AggFunction, Option<usize>)> = session
        .aggregate
        .calls
        .iter()
        .map(|c| (c.function, c.arg))
        .collect();
    assert_eq!(
        functions,
        [(AggFunction::CountStar, None), (AggFunction::Sum, Some(2))]
    );
    assert_eq!(kinds(&session.properties), GROUP_WINDOW_PROPERTIES);
}

/// What a legacy group window node names: `w$start`, `w$end`, `w$rowtime`, `w$proctime`.
const GROUP_WINDOW_PROPERTIES: [WindowProperty; 4] = [
    WindowProperty::Start,
    WindowProperty::End,
    WindowProperty::Time,
    WindowProperty::Proctime,
];

fn kinds(properties: &[(String, WindowProperty)]) -> Vec<WindowProperty> {
    properties.iter().map(|(_, p)| *p).collect()
}

/// Early or late firing and allowed lateness change what a group window emits: stock.
#[test]
fn group_windows_with_early_or_late_firing_stay_stock() {
    let path = format!(
        "{}/tests/flink-2.3.0-nodes/window-group_session.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    for (key, on) in [
        ("table.exec.emit.early-fire.enabled", "true"),
        ("table.exec.emit.late-fire.enabled", "true"),
        ("table.exec.emit.allow-lateness", "60000 ms"),
    ] {
        let mut config = value["config"].clone();
        config[key] = Value::from(on);
        let reason = plan_node(&text, Some(&config.to_string()))
            .unwrap_err()
            .to_string();
        assert!(reason.contains(key), "{key}: {reason}");
    }
}

/// `GROUP BY k, TUMBLE(ts, INTERVAL '5' SECOND)` with `TUMBLE_END` and `COUNT(*)`: the sliced
/// TUMBLE aggregate, marked legacy (restored without a watermark).
#[test]
fn a_legacy_tumble_group_window_plans_a_legacy_tumble() {
    let tumble = spec("group_tumble");
    assert!(tumble.legacy);
    assert_eq!(
        tumble.window,
        SliceAssigner::Tumble {
            size: 5_000,
            offset: 0
        }
    );
    assert_eq!(
        (tumble.time_column, &tumble.aggregate.grouping[..]),
        (1, &[0][..])
    );
    assert_eq!(kinds(&tumble.properties), GROUP_WINDOW_PROPERTIES);
}

#[test]
fn what_is_not_native_yet_is_refused_with_a_reason() {
    let reason = |name: &str| parse(name).unwrap_err().to_string();
    assert!(
        reason("proctime").contains("processing-time windows"),
        "{}",
        reason("proctime")
    );
}

/// A legacy HOP (`SLIDING`) group window: the group TUMBLE's node with a slide plans the
/// sliced HOP, marked legacy; a row-count window (not a duration) is refused.
#[test]
fn a_legacy_hop_group_window_plans_a_legacy_hop() {
    let path = format!(
        "{}/tests/flink-2.3.0-nodes/window-group_tumble.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let with_window = |kind: &str, slide: Option<&str>| {
        let mut node = value.clone();
        node["node"]["window"]["kind"] = Value::from(kind);
        if let Some(slide) = slide {
            node["node"]["window"]["slide"] = Value::from(slide);
        }
        plan_node(&node.to_string(), Some(&node["config"].to_string()))
    };
    let Ok(OperatorPlan::WindowAggregate(hop)) = with_window("SLIDING", Some("PT1S")) else {
        panic!("a legacy HOP plans a window aggregate");
    };
    assert!(hop.legacy);
    assert_eq!(
        hop.window,
        SliceAssigner::Hop {
            size: 5_000,
            slide: 1_000,
            offset: 0
        }
    );
    let reason = with_window("SLIDING", None).unwrap_err().to_string();
    assert!(reason.contains("slide"), "{reason}");
    let reason = with_window("COUNT_TUMBLING", None).unwrap_err().to_string();
    assert!(
        reason.contains("a legacy COUNT_TUMBLING group window"),
        "{reason}"
    );
}

#[test]
fn java_durations_are_read_to_the_millisecond() {
    assert_eq!(iso_millis("PT10S").unwrap(), 10_000);
    assert_eq!(iso_millis("PT0.5S").unwrap(), 500);
    assert_eq!(iso_millis("PT1H30M").unwrap(), 5_400_000);
    assert_eq!(iso_millis("PT-1.5S").unwrap(), -1_500);
    assert_eq!(iso_millis("PT24H").unwrap(), 86_400_000);
    assert!(iso_millis("PT0.0005S").is_err());
    assert!(iso_millis("P1D").is_err());
    assert!(iso_millis("PT5").is_err());
}

/// The default (AUTO) plan's two phases: the local phase's partial row is Flink's
/// (`k`, `count1$0`, `sum$1`, `$slice_end`), and the global phase reads it.
#[test]
fn two_phase_window_nodes_share_flinks_partial_row() {
    let local = parse("two_phase-0").unwrap();
    let OperatorPlan::LocalWindowAggregate(local) = local else {
        panic!("{local:?}");
    };
    assert_eq!(
        local.window,
        SliceAssigner::Tumble {
            size: 1000,
            offset: 0
        }
    );
    assert_eq!(local.time_column, 2);
    assert!(local.properties.is_empty());
    let global = parse("two_phase-1").unwrap();
    let OperatorPlan::GlobalWindowAggregate(global) = global else {
        panic!("{global:?}");
    };
    // The calls index the local phase's input; its row time is the time column.
    assert_eq!(global.aggregate, local.aggregate);
    assert_eq!(global.time_column, 2);
    assert_eq!(
        names(&global),
        [
            ("window_start", WindowProperty::Start),
            ("window_end", WindowProperty::End)
        ]
    );
}
