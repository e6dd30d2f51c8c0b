//! `stream-exec-temporal-join_1` (`StreamExecTemporalJoin`) as a native
//! [`OperatorPlan::TemporalJoin`].
//!
//! The node holds `joinSpec` as a regular join writes it ([`super::join::join_parts`]: INNER
//! or LEFT, the keys, and the non-equi condition besides the temporal one), the two time
//! column indexes `leftTimeAttributeIndex` and `rightTimeAttributeIndex` (-1 for a
//! processing-time join), and `isTemporalFunctionJoin`. Flink builds
//! `TemporalRowTimeJoinOperator` from it when the right time is a row time, whatever the
//! join's form (`FOR SYSTEM_TIME AS OF` or a temporal table function), with the non-equi
//! condition alone (the key's `filterNulls` are not used), and with the session's state TTL
//! (`table.exec.state.ttl`, handed over with the options) as its state retention
//! ([`StateRetention::from_ttl`]: Flink's `minRetentionTime` and 3/2 of it). When the right
//! time is a processing time (index -1) and the node is a temporal table function's
//! (`isTemporalFunctionJoin`), Flink builds `TemporalProcessTimeJoinOperator`: the plan is an
//! [`OperatorPlan::ProcTimeTemporalJoin`] (no time column is read). Flink refuses a
//! processing-time join against a table, and so does this planner. The built operator's
//! input and output types must equal Flink's.

use serde_json::Value;

use super::aggregate::{max_parallelism, parse_duration};
use super::join::{JoinParts, checked_two_input, join_parts, output_names};
use super::types::row_type;
use super::{FlinkConfig, NodeFields, Result, Unsupported, option_text};
use crate::join::retention::StateRetention;
use crate::join::temporal::TemporalJoinSpec;
use crate::join::temporal_proctime::{KeyedInput, ProcTimeTemporalJoinSpec};
use crate::join::{JoinType, TimedJoinInput};
use crate::ops::OperatorPlan;
use crate::types::RowField;

const NODE: &str = "stream-exec-temporal-join_1";
const STATE_TTL: &str = "table.exec.state.ttl";

/// The plan of a temporal join `node` over `inputs` (left, right).
pub fn plan(node: &Value, inputs: &[Vec<RowField>], config: &FlinkConfig) -> Result<OperatorPlan> {
    let fields = NodeFields::new(node, NODE);
    let [left, right] = inputs else {
        return Err(Unsupported::Malformed(format!(
            "a {NODE} has two inputs, the description has {}",
            inputs.len()
        )));
    };
    let time_index = |name: &str, input: &[RowField]| -> Result<Option<usize>> {
        let index = fields.field(name)?.as_i64().ok_or_else(|| {
            Unsupported::Malformed(format!("temporal join \"{name}\" is not an integer"))
        })?;
        match usize::try_from(index) {
            Ok(i) if i < input.len() => Ok(Some(i)),
            // Flink's FIELD_INDEX_FOR_PROC_TIME_ATTRIBUTE.
            _ if index == -1 => Ok(None),
            _ => Err(Unsupported::Malformed(format!(
                "temporal join \"{name}\" {index} is out of range for {} columns",
                input.len()
            ))),
        }
    };
    let right_time = time_index("rightTimeAttributeIndex", right)?;
    let left_time = time_index("leftTimeAttributeIndex", left)?;
    let function_join = fields.field("isTemporalFunctionJoin")?.as_bool() == Some(true);
    let JoinParts {
        join_type,
        left_keys,
        right_keys,
        condition,
        ..
    } = join_parts(fields.field("joinSpec")?, left, right, config)?;
    if !matches!(join_type, JoinType::Inner | JoinType::Left) {
        return Err(Unsupported::Malformed(format!(
            "a temporal join of type {join_type:?}, which Flink does not run"
        )));
    }
    let ttl = option_text(&config.options, STATE_TTL)?
        .map(|text| parse_duration(&text))
        .transpose()?
        .map_or(0, |ttl| i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX));
    let retention = StateRetention::from_ttl(ttl);
    let output = row_type(fields.field("outputType")?)?;
    let Some(right_time) = right_time else {
        // Flink runs a processing-time temporal join only for a temporal table function
        // (`TemporalProcessTimeJoinOperator`); it refuses one against a table.
        if !function_join {
            return Err(Unsupported::Feature(
                "a processing-time temporal join against a table, which Flink does not run \
                 (only a temporal table function's)"
                    .into(),
            ));
        }
        let input = |input: &[RowField], keys: Vec<usize>| KeyedInput {
            names: input.iter().map(|f| f.name.clone()).collect(),
            types: input.iter().map(|f| f.ty.clone()).collect(),
            keys,
        };
        let mut spec = ProcTimeTemporalJoinSpec {
            join_type,
            left: input(left, left_keys),
            right: input(right, right_keys),
            condition,
            max_parallelism: max_parallelism(config)?,
            state_retention: retention,
        };
        [spec.left.names, spec.right.names] = output_names(&output, spec.left.names.len());
        return checked_two_input(
            OperatorPlan::ProcTimeTemporalJoin(spec),
            left,
            right,
            &output,
        );
    };
    let Some(left_time) = left_time else {
        return Err(Unsupported::Malformed(
            "an event-time temporal join without a left time attribute".into(),
        ));
    };
    let input = |input: &[RowField], keys: Vec<usize>, time_column: usize| TimedJoinInput {
        names: input.iter().map(|f| f.name.clone()).collect(),
        types: input.iter().map(|f| f.ty.clone()).collect(),
        keys,
        time_column,
    };
    let mut spec = TemporalJoinSpec {
        join_type,
        left: input(left, left_keys, left_time),
        right: input(right, right_keys, right_time),
        condition,
        max_parallelism: max_parallelism(config)?,
        state_retention: retention,
    };
    [spec.left.names, spec.right.names] = output_names(&output, spec.left.names.len());
    checked_two_input(OperatorPlan::TemporalJoin(spec), left, right, &output)
}

#[cfg(test)]
mod tests {
    use super::super::plan_node;
    use super::*;
    use crate::types::LogicalType;

    /// A temporal join node released Flink 2.3.0 wrote (`AggNodeDump`), by file stem.
    fn parse(stem: &str) -> Result<OperatorPlan> {
        let path = format!(
            "{}/tests/flink-2.3.0-nodes/temporal_join-{stem}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let value: Value = serde_json::from_str(&text).unwrap();
        plan_node(&text, Some(&value["config"].to_string()))
    }

    fn spec(stem: &str) -> TemporalJoinSpec {
        match parse(stem).unwrap_or_else(|e| panic!("{stem}: {e}")) {
            OperatorPlan::TemporalJoin(spec) => spec,
            other => panic!("{stem}: {other:?}"),
        }
    }

    #[test]
    fn flinks_event_time_temporal_join_nodes_become_temporal_join_plans() {
        // `L JOIN R FOR SYSTEM_TIME AS OF L.ts ON L.k = R.k`, R keyed by `k`.
        let inner = spec("inner");
        assert_eq!(inner.join_type, JoinType::Inner);
        assert_eq!(
            (inner.left.keys.clone(), inner.right.keys.clone()),
            (vec![0], vec![0])
        );
        assert_eq!((inner.left.time_column, inner.right.time_column), (2, 2));
        // No condition beyond the key: the temporal one is not in the spec.
        assert!(inner.condition.is_none());
        // LEFT with `L.v > R.r`; the two time columns at different indexes.
        let left = spec("left_condition");
        assert_eq!(left.join_type, JoinType::Left);
        assert!(left.condition.is_some());
        assert_eq!((left.left.time_column, left.right.time_column), (2, 3));
        let two = spec("two_keys");
        assert_eq!(
            (two.left.keys.clone(), two.right.keys.clone()),
            (vec![0, 1], vec![0, 1])
        );
        let ltz = spec("ltz");
        assert_eq!(
            ltz.left.types[ltz.left.time_column],
            LogicalType::TimestampLtz(3)
        );
    }

    #[test]
    fn processing_time_joins_against_a_table_are_refused_as_flink_refuses_them() {
        // `FOR SYSTEM_TIME AS OF L.pt` over a table (not a temporal table function).
        let proctime = parse("proctime").unwrap_err().to_string();
        assert!(proctime.contains("temporal table function"), "{proctime}");
    }

    #[test]
    fn the_sessions_state_ttl_becomes_flinks_retention() {
        // `table.exec.state.ttl` = 1 h: Flink's operator cleans between 1 h and 1.5 h.
        let retention = spec("state_ttl").state_retention.expect("a retention");
        assert_eq!((retention.min_ms, retention.max_ms), (3_600_000, 5_400_000));
    }
}
