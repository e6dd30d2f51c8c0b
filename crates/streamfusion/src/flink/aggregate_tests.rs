use std::time::Duration;

use serde_json::Value;

use super::super::plan_node;
use super::*;
use crate::types::LogicalType;

/// A node released Flink 2.3.0 wrote (`AggNodeDump`), by file stem after `agg-`: the
/// description, and the options the dumper planned it under (`config_json`).
fn fixture(name: &str) -> (String, String) {
    let path = format!(
        "{}/tests/flink-2.3.0-nodes/agg-{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: Value = serde_json::from_str(&text).unwrap();
    (text, value["config"].to_string())
}

fn parse(name: &str) -> Result<OperatorPlan> {
    let (node, config) = fixture(name);
    plan_node(&node, Some(&config))
}

/// The spec Flink's node must read as, hand-written from the query (the oracle).
struct Expect {
    input: &'static [(&'static str, LogicalType)],
    grouping: &'static [usize],
    calls: Vec<AggCall>,
    input_retracts: bool,
    generate_update_before: bool,
    mini_batch_rows: Option<usize>,
    state_ttl: Option<Duration>,
}

impl Expect {
    fn new(input: &'static [(&'static str, LogicalType)], calls: Vec<AggCall>) -> Self {
        Self {
            input,
            grouping: &[0],
            calls,
            input_retracts: false,
            generate_update_before: false,
            mini_batch_rows: None,
            state_ttl: None,
        }
    }

    fn spec(&self) -> GroupAggSpec {
        GroupAggSpec {
            input_names: self.input.iter().map(|(n, _)| n.to_string()).collect(),
            input_types: self.input.iter().map(|(_, t)| t.clone()).collect(),
            grouping: self.grouping.to_vec(),
            calls: self.calls.clone(),
            input_retracts: self.input_retracts,
            generate_update_before: self.generate_update_before,
            mini_batch_rows: self.mini_batch_rows,
            state_ttl: self.state_ttl,
            // The dumper plans at `parallelism.default` 4: Flink's default is 128.
            max_parallelism: 128,
        }
    }
}

use LogicalType::{BigInt, Boolean, Double, Int};
const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);

fn call(function: AggFunction, arg: Option<usize>, name: &str) -> AggCall {
    AggCall::new(function, arg, name)
}

/// The spec inside a plan of the expected kind.
fn spec_of(plan: &OperatorPlan, phase: Phase) -> &GroupAggSpec {
    match (plan, phase) {
        (OperatorPlan::GroupAggregate(spec), Phase::OnePhase)
        | (OperatorPlan::LocalGroupAggregate(spec), Phase::Local)
        | (OperatorPlan::GlobalGroupAggregate(spec), Phase::Global) => spec,
        (other, _) => panic!("a {phase:?} plan expected, got {other:?}"),
    }
}

fn check(name: &str, phase: Phase, expect: &Expect) {
    let plan = parse(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(spec_of(&plan, phase), &expect.spec(), "{name}");
    // The operator the plan describes builds on the memory backend.
    let operator = plan
        .build(&StateConfig::memory(), None)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(!operator.output_types().is_empty(), "{name}");
}

#[test]
fn count_star_sum_count_avg_parse_one_to_one() {
    use AggFunction::*;
    check(
        "count_star",
        Phase::OnePhase,
        &Expect::new(&[("k", Int)], vec![call(CountStar, None, "cnt")]),
    );
    check(
        "sum_count",
        Phase::OnePhase,
        &Expect::new(
            &[("k", Int), ("v", BigInt), ("s", STRING)],
            vec![call(Sum, Some(1), "total"), call(Count, Some(2), "strings")],
        ),
    );
    // The stream planner keeps AVG (no rewrite to $SUM0 / COUNT), and AVG(BIGINT) is BIGINT.
    check(
        "avg",
        Phase::OnePhase,
        &Expect::new(
            &[("k", Int), ("v", BigInt), ("d", Double)],
            vec![
                call(Sum, Some(1), "total"),
                call(Avg, Some(1), "mean"),
                call(Avg, Some(2), "dmean"),
            ],
        ),
    );
    check(
        "no_grouping",
        Phase::OnePhase,
        &Expect {
            grouping: &[],
            ..Expect::new(
                &[("s", STRING)],
                vec![call(CountStar, None, "cnt"), call(Max, Some(0), "top")],
            )
        },
    );
    check(
        "listagg_first_value",
        Phase::OnePhase,
        &Expect::new(
            &[("k", Int), ("s", STRING), ("v", BigInt)],
            vec![call(ListAgg, Some(1), "l"), call(FirstValue, Some(2), "f")],
        ),
    );
}

#[test]
fn retracting_input_and_update_before_are_read() {
    use AggFunction::*;
    // The inner GROUP BY feeds the outer one a retracting changelog, so emits -U/+U.
    check(
        "min_max_retract-0",
        Phase::OnePhase,
        &Expect {
            generate_update_before: true,
            ..Expect::new(
                &[("k", Int), ("v", BigInt)],
                vec![call(CountStar, None, "cnt"), call(Sum, Some(1), "total")],
            )
        },
    );
    check(
        "min_max_retract-1",
        Phase::OnePhase,
        &Expect {
            input_retracts: true,
            ..Expect::new(
                &[("cnt", BigInt), ("total", BigInt)],
                vec![
                    call(Min, Some(1), "lo"),
                    call(Max, Some(1), "hi"),
                    call(CountStar, None, "ngroups"),
                ],
            )
        },
    );
}

#[test]
fn the_optimizers_sum0_rewrite_and_single_value_are_read() {
    use AggFunction::*;
    // SUM(v) and AVG(v) became $SUM0(v) (and a Calc above: CASE(cnt_v = 0, NULL, sum_v)).
    check(
        "sum0_rewrite-1",
        Phase::OnePhase,
        &Expect {
            input_retracts: true,
            ..Expect::new(
                &[("k", STRING), ("v", BigInt)],
                vec![call(Count, Some(1), "cnt_v"), call(Sum0, Some(1), "sum_v")],
            )
        },
    );
    check(
        "single_value",
        Phase::OnePhase,
        &Expect::new(
            &[("k", Int), ("v", BigInt)],
            vec![call(SingleValue, Some(1), "sv")],
        ),
    );
}

#[test]
fn distinct_calls_keep_their_flag() {
    use AggFunction::*;
    check(
        "count_distinct",
        Phase::OnePhase,
        &Expect::new(
            &[("k", Int), ("s", STRING), ("v", BigInt)],
            vec![
                call(Count, Some(1), "ds").distinct(),
                call(Sum, Some(2), "dv").distinct(),
                call(CountStar, None, "cnt"),
            ],
        ),
    );
}

#[test]
fn state_ttl_is_read_from_the_state_metadata() {
    use AggFunction::*;
    check(
        "state_ttl",
        Phase::OnePhase,
        &Expect {
            state_ttl: Some(Duration::from_secs(3600)),
            ..Expect::new(
                &[("k", Int), ("d", Double), ("s", STRING)],
                vec![call(Min, Some(1), "lo"), call(LastValue, Some(2), "last_s")],
            )
        },
    );
}

#[test]
fn mini_batch_one_phase_and_two_phase_parse_to_the_same_spec_per_phase() {
    use AggFunction::*;
    check(
        "mini_batch_one_phase",
        Phase::OnePhase,
        &Expect {
            mini_batch_rows: Some(500),
            ..Expect::new(
                &[("k", Int), ("v", BigInt)],
                vec![call(CountStar, None, "cnt"), call(Sum, Some(1), "total")],
            )
        },
    );
    let two_phase = Expect {
        mini_batch_rows: Some(500),
        ..Expect::new(
            &[("k", Int), ("v", BigInt), ("d", Double)],
            vec![
                call(CountStar, None, "cnt"),
                call(Sum, Some(1), "total"),
                call(Max, Some(2), "hi"),
            ],
        )
    };
    // The global phase reads the local phase's partials (checked against the operator's
    // partial layout) but its spec is the local one's: both index the local input.
    check("two_phase-0", Phase::Local, &two_phase);
    check("two_phase-1", Phase::Global, &two_phase);
    let avg = Expect {
        mini_batch_rows: Some(500),
        ..Expect::new(
            &[("k", Int), ("v", BigInt), ("s", STRING)],
            vec![call(Avg, Some(1), "mean"), call(Min, Some(2), "lo")],
        )
    };
    check("two_phase_avg-0", Phase::Local, &avg);
    check("two_phase_avg-1", Phase::Global, &avg);
}

#[test]
fn a_filter_is_the_calls_boolean_column() {
    use AggFunction::*;
    // `COUNT(*) FILTER (WHERE v > 0)`: the Calc before the node computes `$f1`.
    check(
        "filter",
        Phase::OnePhase,
        &Expect::new(
            &[("k", Int), ("$f1", Boolean)],
            vec![call(CountStar, None, "pos").filtered(1)],
        ),
    );
    // A FILTER column must be BOOLEAN (the key column is an INT).
    let err = edited("filter", |n| n["aggCalls"][0]["filterArg"] = 0.into()).unwrap_err();
    assert!(
        err.to_string()
            .contains("FILTER column 0 is INT, not BOOLEAN"),
        "{err}"
    );
}

#[test]
fn a_listagg_separator_is_the_calls_second_column() {
    use AggFunction::*;
    // `LISTAGG(s, '|')`: the Calc before the node projects the literal as `$f2`.
    check(
        "listagg_separator",
        Phase::OnePhase,
        &Expect::new(
            &[("k", Int), ("s", STRING), ("$f2", LogicalType::Char(1))],
            vec![call(ListAgg, Some(1), "l").with_separator_column(2)],
        ),
    );
}

#[test]
fn other_functions_are_refused_by_flinks_name() {
    // STDDEV_POP is planned as Welford's M2 (native) and a Calc; COLLECT has no native call.
    assert_eq!(
        parse("unsupported_function").unwrap_err(),
        Unsupported::Function("$COLLECT$1".into())
    );
}

/// The fixture `name` with `edit` applied to its node.
fn edited(name: &str, edit: impl FnOnce(&mut Value)) -> Result<OperatorPlan> {
    let (node, config) = fixture(name);
    let mut value: Value = serde_json::from_str(&node).unwrap();
    edit(&mut value["node"]);
    plan_node(&value.to_string(), Some(&config))
}

#[test]
fn call_flags_the_native_calls_lack_are_refused() {
    let err = edited("sum_count", |n| {
        n["aggCalls"][0]["approximate"] = true.into()
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "function $SUM$1 is not supported approximate"
    );
    let err = edited("state_ttl", |n| {
        n["aggCalls"][1]["ignoreNulls"] = true.into()
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "function $LAST_VALUE$1 is not supported with IGNORE NULLS"
    );
    let err = edited("single_value", |n| {
        n["aggCalls"][0]["distinct"] = true.into()
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "function $SINGLE_VALUE$1 is not supported with DISTINCT"
    );
    // The planner drops DISTINCT from MIN/MAX: over an insert-only input it is harmless,
    // over a retracting one (two maps per call) the operator refuses it.
    edited("state_ttl", |n| n["aggCalls"][0]["distinct"] = true.into()).unwrap();
    let err = edited("min_max_retract-1", |n| {
        n["aggCalls"][1]["distinct"] = true.into()
    })
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("DISTINCT is not supported for retracting MAX"),
        "{err}"
    );
    // A call Flink plans without retraction on a retracting input (monotonic MAX) is not
    // the native retracting accumulator.
    let err = edited("min_max_retract-1", |n| {
        n["aggCallNeedRetractions"][1] = false.into()
    })
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("function $MAX$1 is not supported with aggCallNeedRetractions"),
        "{err}"
    );
    let err = edited("count_star", |n| {
        n["aggCalls"][0]["internalName"] = "$APPROX_COUNT_DISTINCT$1".into()
    })
    .unwrap_err();
    assert_eq!(
        err,
        Unsupported::Function("$APPROX_COUNT_DISTINCT$1".into())
    );
    let err = edited("count_star", |n| {
        n["aggCalls"][0]["argList"] = serde_json::json!([0, 0])
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "function $COUNT$1 is not supported with 2 arguments"
    );
}

#[test]
fn a_plan_whose_types_differ_from_flinks_is_refused() {
    // Flink declaring a different result type than the native call computes.
    let err = edited("avg", |n| {
        n["outputType"] = "ROW<`k` INT, `total` BIGINT, `mean` DOUBLE, `dmean` DOUBLE>".into()
    })
    .unwrap_err();
    assert_eq!(
        err,
        Unsupported::ResultType {
            function: "output field mean".into(),
            native: "BIGINT".into(),
            flink: "DOUBLE".into(),
        }
    );
    // A global phase fed partials of another layout.
    let (node, config) = fixture("two_phase-1");
    let mut value: Value = serde_json::from_str(&node).unwrap();
    value["inputs"][0] = "ROW<`k` INT, `count1$0` BIGINT, `sum$1` INT, `max$2` DOUBLE>".into();
    let err = plan_node(&value.to_string(), Some(&config)).unwrap_err();
    assert!(
        matches!(&err, Unsupported::ResultType { function, .. } if function == "input field sum$1"),
        "{err:?}"
    );
}

#[test]
fn mini_batch_options_come_from_the_node_then_the_config() {
    let spec = |plan: Result<OperatorPlan>| match plan.unwrap() {
        OperatorPlan::GroupAggregate(spec) => spec,
        other => panic!("{other:?}"),
    };
    let (node, _) = fixture("count_star");
    let mut value: Value = serde_json::from_str(&node).unwrap();
    // Flink's persisted node configuration wins over the session's.
    let on = r#"{"table.exec.mini-batch.enabled": "true", "table.exec.mini-batch.size": 64}"#;
    assert_eq!(spec(plan_node(&node, Some(on))).mini_batch_rows, None);
    value["node"]
        .as_object_mut()
        .unwrap()
        .remove("configuration");
    let bare = value.to_string();
    assert_eq!(spec(plan_node(&bare, Some(on))).mini_batch_rows, Some(64));
    assert_eq!(spec(plan_node(&bare, None)).mini_batch_rows, None);
    let err = plan_node(&bare, Some(r#"{"table.exec.mini-batch.enabled": "true"}"#)).unwrap_err();
    assert!(
        err.to_string().contains("table.exec.mini-batch.size"),
        "{err}"
    );
    // The two-phase nodes exist only under mini-batch.
    let err = edited("two_phase-0", |n| {
        n["configuration"]["table.exec.mini-batch.enabled"] = "false".into()
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "a LocalGroupAggregate without table.exec.mini-batch.enabled is not supported"
    );
}

#[test]
fn max_parallelism_is_the_given_one_or_flinks_default() {
    let max = |json: &str| max_parallelism(&FlinkConfig::from_json(Some(json)).unwrap());
    assert_eq!(max("{}").unwrap(), 128);
    assert_eq!(max(r#"{"parallelism.default": "100"}"#).unwrap(), 256);
    assert_eq!(
        max(r#"{"parallelism.default": 4, "pipeline.max-parallelism": "4096"}"#).unwrap(),
        4096
    );
    assert_eq!(max(r#"{"pipeline.max-parallelism": "-1"}"#).unwrap(), 128);
    assert!(max(r#"{"pipeline.max-parallelism": "40000"}"#).is_err());
    assert!(max(r#"{"parallelism.default": "many"}"#).is_err());
    let (node, _) = fixture("count_star");
    match plan_node(&node, Some(r#"{"pipeline.max-parallelism": 256}"#)).unwrap() {
        OperatorPlan::GroupAggregate(spec) => assert_eq!(spec.max_parallelism, 256),
        other => panic!("{other:?}"),
    }
}

#[test]
fn durations_read_as_flink_writes_them() {
    assert_eq!(parse_duration("0 ms").unwrap(), Duration::ZERO);
    assert_eq!(parse_duration("1 h").unwrap(), Duration::from_secs(3600));
    assert_eq!(parse_duration("90 s").unwrap(), Duration::from_secs(90));
    assert_eq!(parse_duration("5 min").unwrap(), Duration::from_secs(300));
    assert_eq!(parse_duration("2 d").unwrap(), Duration::from_secs(172_800));
    assert_eq!(parse_duration("1500").unwrap(), Duration::from_millis(1500));
    assert!(parse_duration("1 fortnight").is_err());
    assert!(parse_duration("h").is_err());
}

#[test]
fn two_phase_partials_flink_lays_out_otherwise_are_refused() {
    // Over a retracting input Flink's partial row holds MAX's retract accumulator as one
    // STRUCTURED column and the DISTINCT views as trailing RAW MapView columns; the
    // exchange between the phases serializes that type, which the native partial layout
    // (max, mapSize, map per call; the distinct map per call) is not.
    for name in ["two_phase_retract-1", "two_phase_retract-2"] {
        match parse(name).unwrap_err() {
            Unsupported::Type { ty, .. } => {
                assert!(ty.contains("MaxWithRetractAccumulator"), "{name}: {ty}")
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    // The inner GROUP BY feeding them is native: LAST_VALUE has no merge, so Flink keeps it
    // one-phase (mini-batch).
    check(
        "two_phase_retract-0",
        Phase::OnePhase,
        &Expect {
            generate_update_before: true,
            mini_batch_rows: Some(500),
            ..Expect::new(
                &[("n", Int), ("s", STRING), ("v", BigInt)],
                vec![
                    call(AggFunction::LastValue, Some(1), "k"),
                    call(AggFunction::LastValue, Some(2), "v"),
                ],
            )
        },
    );
}
