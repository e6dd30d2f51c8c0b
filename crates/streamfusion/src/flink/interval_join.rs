//! `stream-exec-interval-join_1` (`StreamExecIntervalJoin`) as a native
//! [`OperatorPlan::IntervalJoin`].
//!
//! The node's `intervalJoinSpec` holds `joinSpec` as for a regular join
//! ([`super::join::join_parts`]; its non-equi condition is what remains besides the time
//! bounds) and `windowBounds`: `isEventTime`, `leftLowerBound` and `leftUpperBound` (ms, `L.t
//! BETWEEN R.t + lower AND R.t + upper`) and the two time column indexes. Joins of a
//! non-negative interval run natively, in event time (`RowTimeIntervalJoin`) or processing
//! time (`ProcTimeIntervalJoin`); Flink runs an empty interval as a union of filtered and
//! padded inputs, which stays Flink's.
//! Flink reads `table.exec.interval-join.min-cleanup-interval` from the session, not the
//! node: the planner extension hands it over with the options. The built operator's input
//! and output types must equal Flink's.

use serde_json::Value;

use super::aggregate::{index, max_parallelism, parse_duration};
use super::join::{JoinParts, checked_two_input, join_parts, output_names};
use super::types::row_type;
use super::{FlinkConfig, NodeFields, Result, Unsupported, option_text};
use crate::join::interval::IntervalJoinSpec;
use crate::join::{JoinType, TimedJoinInput};
use crate::ops::OperatorPlan;
use crate::types::RowField;

const NODE: &str = "stream-exec-interval-join_1";
const MIN_CLEANUP: &str = "table.exec.interval-join.min-cleanup-interval";

/// The plan of an interval join `node` over `inputs` (left, right).
pub fn plan(node: &Value, inputs: &[Vec<RowField>], config: &FlinkConfig) -> Result<OperatorPlan> {
    let fields = NodeFields::new(node, NODE);
    let [left, right] = inputs else {
        return Err(Unsupported::Malformed(format!(
            "a {NODE} has two inputs, the description has {}",
            inputs.len()
        )));
    };
    let spec = fields.field("intervalJoinSpec")?;
    let bounds = spec.get("windowBounds").ok_or_else(|| {
        Unsupported::Malformed("an interval join without \"windowBounds\"".into())
    })?;
    let bound = |name: &str| {
        bounds.get(name).ok_or_else(|| {
            Unsupported::Malformed(format!("interval join window bounds without \"{name}\""))
        })
    };
    let processing_time = !bound("isEventTime")?.as_bool().ok_or_else(|| {
        Unsupported::Malformed("interval join bound \"isEventTime\" is not a boolean".into())
    })?;
    let millis = |name: &str| {
        bound(name)?.as_i64().ok_or_else(|| {
            Unsupported::Malformed(format!("interval join bound \"{name}\" is not a long"))
        })
    };
    let (lower_bound, upper_bound) = (millis("leftLowerBound")?, millis("leftUpperBound")?);
    if lower_bound > upper_bound {
        return Err(Unsupported::Feature(format!(
            "an interval join of the empty interval [{lower_bound}, {upper_bound}] ms (Flink \
             pads or filters its inputs instead)"
        )));
    }
    let JoinParts {
        join_type,
        left_keys,
        right_keys,
        filter_nulls,
        condition,
    } = join_parts(
        spec.get("joinSpec").ok_or_else(|| {
            Unsupported::Malformed("an interval join without \"joinSpec\"".into())
        })?,
        left,
        right,
        config,
    )?;
    if matches!(join_type, JoinType::Semi | JoinType::Anti) {
        return Err(Unsupported::Malformed(format!(
            "an interval join of type {join_type:?}, which Flink does not run"
        )));
    }
    let min_cleanup_interval = match option_text(&config.options, MIN_CLEANUP)? {
        None => 0,
        Some(text) => i64::try_from(parse_duration(&text)?.as_millis()).map_err(|_| {
            Unsupported::Malformed(format!("{MIN_CLEANUP} {text:?} is out of range"))
        })?,
    };
    let output = row_type(fields.field("outputType")?)?;
    let input = |input: &[RowField], keys: Vec<usize>, time: &str| {
        Ok::<_, Unsupported>(TimedJoinInput {
            names: input.iter().map(|f| f.name.clone()).collect(),
            types: input.iter().map(|f| f.ty.clone()).collect(),
            keys,
            time_column: index(bound(time)?, input.len(), "time")?,
        })
    };
    let mut spec = IntervalJoinSpec {
        join_type,
        left: input(left, left_keys, "leftTimeIndex")?,
        right: input(right, right_keys, "rightTimeIndex")?,
        filter_nulls,
        condition,
        lower_bound,
        upper_bound,
        min_cleanup_interval,
        max_parallelism: max_parallelism(config)?,
        processing_time,
    };
    [spec.left.names, spec.right.names] = output_names(&output, spec.left.names.len());
    checked_two_input(OperatorPlan::IntervalJoin(spec), left, right, &output)
}

#[cfg(test)]
mod tests {
    use super::super::plan_node;
    use super::*;

    fn text(stem: &str) -> String {
        let path = format!(
            "{}/tests/flink-2.3.0-nodes/interval_join-{stem}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// An interval join node released Flink 2.3.0 wrote (`AggNodeDump`), by file stem.
    fn parse(stem: &str) -> Result<OperatorPlan> {
        let text = text(stem);
        let value: Value = serde_json::from_str(&text).unwrap();
        plan_node(&text, Some(&value["config"].to_string()))
    }

    fn spec(stem: &str) -> IntervalJoinSpec {
        match parse(stem).unwrap_or_else(|e| panic!("{stem}: {e}")) {
            OperatorPlan::IntervalJoin(spec) => spec,
            other => panic!("{stem}: {other:?}"),
        }
    }

    #[test]
    fn flinks_interval_join_nodes_become_interval_join_plans() {
        // `L.k = R.k AND L.ts BETWEEN R.ts - INTERVAL '1' SECOND AND R.ts + INTERVAL '2'
        // SECOND` over `k, v, ts` and `k, s, ts` (the columns the query reads).
        let inner = spec("inner");
        assert_eq!(inner.join_type, JoinType::Inner);
        assert_eq!((inner.lower_bound, inner.upper_bound), (-1000, 2000));
        assert_eq!(
            (inner.left.keys.clone(), inner.right.keys.clone()),
            (vec![0], vec![0])
        );
        assert_eq!(inner.filter_nulls, vec![true]);
        assert!(inner.condition.is_none());
        assert_eq!(inner.min_cleanup_interval, 0);
        assert_eq!(inner.watermark_delay(), 2000);
        // `L.v > R.v` besides the bounds.
        let left = spec("left_condition");
        assert_eq!(left.join_type, JoinType::Left);
        assert!(left.condition.is_some());
        assert_eq!((left.left.time_column, left.right.time_column), (2, 2));
        // `L.ts > R.ts - INTERVAL '3' SECOND AND L.ts < R.ts`: strict bounds, a millisecond in.
        let right = spec("right");
        assert_eq!(right.join_type, JoinType::Right);
        assert_eq!((right.lower_bound, right.upper_bound), (-2999, -1));
        assert_eq!(right.watermark_delay(), 2999);
        // Two key columns, and the session's minimum cleanup interval of 5 s.
        let full = spec("full_cleanup");
        assert_eq!(full.join_type, JoinType::Full);
        assert_eq!(full.left.keys, vec![0, 1]);
        assert_eq!(full.min_cleanup_interval, 5000);
        let ltz = spec("ltz");
        assert_eq!((ltz.lower_bound, ltz.upper_bound), (0, 60_000));
    }

    #[test]
    fn a_processing_time_node_becomes_a_processing_time_plan() {
        let proctime = spec("proctime");
        assert!(proctime.processing_time);
        assert!(!spec("inner").processing_time);
        // `KeyedCoProcessOperator` forwards watermarks as they come.
        assert_eq!(proctime.watermark_delay(), 0);
    }

    #[test]
    fn empty_intervals_are_refused() {
        let mut node: Value = serde_json::from_str(&text("inner")).unwrap();
        *node
            .pointer_mut("/node/intervalJoinSpec/windowBounds/leftLowerBound")
            .unwrap() = 3000.into();
        let empty = plan_node(&node.to_string(), None).unwrap_err().to_string();
        assert!(empty.contains("empty interval"), "{empty}");
    }
}
