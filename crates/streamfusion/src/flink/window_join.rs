//! `stream-exec-window-join_1` (`StreamExecWindowJoin`) as a native
//! [`OperatorPlan::WindowJoin`].
//!
//! The node's fields: `joinSpec` as for a regular join ([`super::join::join_parts`]), and
//! `leftWindowing`/`rightWindowing`, each the `WindowAttached` strategy on a row time whose
//! `windowEnd` is the input's window end column (the only strategy Flink's translator
//! takes). Both windows must be the same window, as Flink's planner requires; over a
//! TIMESTAMP_LTZ time attribute they are local times of the session time zone. The built operator's input and
//! output types must equal Flink's.

use serde_json::Value;

use super::aggregate::{index, max_parallelism};
use super::join::{JoinParts, checked_two_input, join_parts, output_names};
use super::types::{logical_type, row_type};
use super::window::{expect_strategy, window_zone};
use super::{FlinkConfig, NodeFields, Result, Unsupported};
use crate::join::window::{WindowJoinInput, WindowJoinSpec};
use crate::ops::OperatorPlan;
use crate::types::RowField;

const NODE: &str = "stream-exec-window-join_1";

/// The plan of a window join `node` over `inputs` (left, right).
pub fn plan(node: &Value, inputs: &[Vec<RowField>], config: &FlinkConfig) -> Result<OperatorPlan> {
    let fields = NodeFields::new(node, NODE);
    let [left, right] = inputs else {
        return Err(Unsupported::Malformed(format!(
            "a {NODE} has two inputs, the description has {}",
            inputs.len()
        )));
    };
    let (left_windowing, right_windowing) = (
        fields.field("leftWindowing")?,
        fields.field("rightWindowing")?,
    );
    if left_windowing.get("window") != right_windowing.get("window") {
        return Err(Unsupported::Malformed(format!(
            "a window join of different windows: {} and {}",
            left_windowing.get("window").unwrap_or(&Value::Null),
            right_windowing.get("window").unwrap_or(&Value::Null)
        )));
    }
    let JoinParts {
        join_type,
        left_keys,
        right_keys,
        filter_nulls,
        condition,
    } = join_parts(fields.field("joinSpec")?, left, right, config)?;
    let mut zones = Vec::new();
    let mut input = |input: &[RowField], keys: Vec<usize>, windowing: &Value| {
        expect_strategy(windowing, "WindowAttached")?;
        let time_type = logical_type(windowing.get("timeAttributeType").ok_or_else(|| {
            Unsupported::Malformed("windowing without \"timeAttributeType\"".into())
        })?)?;
        zones.push(window_zone(&time_type, config)?);
        Ok::<_, Unsupported>(WindowJoinInput {
            names: input.iter().map(|f| f.name.clone()).collect(),
            types: input.iter().map(|f| f.ty.clone()).collect(),
            keys,
            window_end_column: index(
                windowing.get("windowEnd").ok_or_else(|| {
                    Unsupported::Malformed("windowing without \"windowEnd\"".into())
                })?,
                input.len(),
                "window end",
            )?,
        })
    };
    let output = row_type(fields.field("outputType")?)?;
    let (left_input, right_input) = (
        input(left, left_keys, left_windowing)?,
        input(right, right_keys, right_windowing)?,
    );
    // Both time attributes are of one type (the windows are equal), so of one zone.
    let time_zone = zones.swap_remove(0);
    let mut spec = WindowJoinSpec {
        join_type,
        left: left_input,
        right: right_input,
        filter_nulls,
        condition,
        time_zone,
        max_parallelism: max_parallelism(config)?,
    };
    let [left_names, right_names] = output_names(&output, spec.left.names.len());
    spec.left.names = left_names;
    if !join_type.semi_anti() {
        spec.right.names = right_names;
    }
    checked_two_input(OperatorPlan::WindowJoin(spec), left, right, &output)
}

#[cfg(test)]
mod tests {
    use super::super::plan_node;
    use super::*;
    use crate::join::JoinType;

    /// A window join node released Flink 2.3.0 wrote (`AggNodeDump`), by file stem.
    fn parse(stem: &str) -> Result<OperatorPlan> {
        let path = format!(
            "{}/tests/flink-2.3.0-nodes/window_join-{stem}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let value: Value = serde_json::from_str(&text).unwrap();
        plan_node(&text, Some(&value["config"].to_string()))
    }

    fn spec(stem: &str) -> WindowJoinSpec {
        match parse(stem).unwrap_or_else(|e| panic!("{stem}: {e}")) {
            OperatorPlan::WindowJoin(spec) => spec,
            other => panic!("{stem}: {other:?}"),
        }
    }

    #[test]
    fn flinks_window_join_nodes_become_window_join_plans() {
        // `L JOIN R ON L.k = R.k AND` the same TUMBLE window, over `k, v, [s,] window_start,
        // window_end` each.
        let inner = spec("inner");
        assert_eq!(inner.join_type, JoinType::Inner);
        assert_eq!(
            (inner.left.keys.clone(), inner.right.keys.clone()),
            (vec![0], vec![0])
        );
        assert_eq!(inner.filter_nulls, vec![true]);
        assert!(inner.condition.is_none());
        let left = spec("left_condition");
        assert_eq!(left.join_type, JoinType::Left);
        assert_eq!(
            (left.left.window_end_column, left.right.window_end_column),
            (3, 3)
        );
        // `L.v > R.v` over the joined row.
        assert!(left.condition.is_some());
        assert_eq!(left.right.names[0], "k0");
        assert_eq!(spec("full").join_type, JoinType::Full);
        let semi = spec("semi");
        assert_eq!(semi.join_type, JoinType::Semi);
        assert_eq!(spec("anti").join_type, JoinType::Anti);
    }

    #[test]
    fn different_windows_and_other_strategies_are_refused() {
        let path = format!(
            "{}/tests/flink-2.3.0-nodes/window_join-inner.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(path).unwrap();
        let with = |pointer: &str, value: Value| {
            let mut node: Value = serde_json::from_str(&text).unwrap();
            *node.pointer_mut(pointer).unwrap() = value;
            plan_node(&node.to_string(), None).unwrap_err().to_string()
        };
        let size = with("/node/rightWindowing/window/size", "PT2S".into());
        assert!(size.contains("different windows"), "{size}");
        let strategy = with("/node/leftWindowing/strategy", "SliceAttached".into());
        assert!(
            strategy.contains("window strategy SliceAttached"),
            "{strategy}"
        );
        let proctime = with("/node/leftWindowing/isRowtime", false.into());
        assert!(proctime.contains("processing-time windows"), "{proctime}");
    }
}
