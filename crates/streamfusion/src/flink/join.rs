//! `stream-exec-join_1` (a regular join) as a native [`OperatorPlan::Join`].
//!
//! The node's fields: `joinSpec` (`joinType`, `leftKeys`, `rightKeys` pairwise, in the
//! order of the join condition's equalities, `filterNulls` per key pair: `false` for an
//! `IS NOT DISTINCT FROM` key, and `nonEquiCondition`, a RexNode over the left row then the
//! right row, or null), `leftUpsertKeys`/`rightUpsertKeys` (absent when an input has none)
//! and `state` (the two inputs' TTLs). Each input's layout is the one `JoinUtil
//! .analyzeJoinInput` picks: without unique keys none; else the smallest unique key the join
//! key contains (the first of the smallest), making one row per join key; else the smallest
//! unique key. `StreamExecJoin` runs SEMI/ANTI with `StreamingSemiAntiJoinOperator` always
//! and the others with `MiniBatchStreamingJoinOperator` under mini-batch (the plan's
//! [`JoinSpec::mini_batch_rows`], `table.exec.mini-batch.size`), else
//! `StreamingJoinOperator` (or its async-state twin, which keeps the same rows and emits the
//! same changelog). The two TTLs are each input's state TTL. The built operator's
//! input and output types must equal Flink's.

use serde_json::Value;

use super::aggregate::{compare, index, max_parallelism, parse_duration};
use super::calc::check_calls;
use super::rex::RexReader;
use super::types::row_type;
use super::{FlinkConfig, NodeFields, Result, Unsupported};
use crate::calc::{CalcProgram, compile};
use crate::join::{InputState, JoinInput, JoinSpec, JoinType};
use crate::ops::{OperatorPlan, StateConfig};
use crate::types::{LogicalType, RowField};

const NODE: &str = "stream-exec-join_1";

/// The plan of a regular join `node` over `inputs` (left, right).
pub fn plan(node: &Value, inputs: &[Vec<RowField>], config: &FlinkConfig) -> Result<OperatorPlan> {
    let fields = NodeFields::new(node, NODE);
    let [left, right] = inputs else {
        return Err(Unsupported::Malformed(format!(
            "a {NODE} has two inputs, the description has {}",
            inputs.len()
        )));
    };
    let JoinParts {
        join_type,
        left_keys,
        right_keys,
        filter_nulls,
        condition,
    } = join_parts(fields.field("joinSpec")?, left, right, config)?;
    // Flink runs SEMI and ANTI joins without bundles whatever the mini-batch options say.
    let mini_batch_rows = if join_type.semi_anti() {
        None
    } else {
        super::aggregate::mini_batch(node, config)?
    };
    let [left_ttl, right_ttl] = state_ttls(fields.field("state")?)?;
    let input = |input: &[RowField], keys: Vec<usize>, upsert: &str, ttl| -> Result<JoinInput> {
        Ok(JoinInput {
            names: input.iter().map(|f| f.name.clone()).collect(),
            types: input.iter().map(|f| f.ty.clone()).collect(),
            state: input_state(node.get(upsert), &keys, input.len())?,
            keys,
            state_ttl: ttl,
        })
    };
    let output = row_type(fields.field("outputType")?)?;
    let mut spec = JoinSpec {
        join_type,
        left: input(left, left_keys, "leftUpsertKeys", left_ttl)?,
        right: input(right, right_keys, "rightUpsertKeys", right_ttl)?,
        filter_nulls,
        condition,
        max_parallelism: max_parallelism(config)?,
        mini_batch_rows,
    };
    let [left_names, right_names] = output_names(&output, spec.left.names.len());
    spec.left.names = left_names;
    if !join_type.semi_anti() {
        spec.right.names = right_names;
    }
    checked_two_input(OperatorPlan::Join(spec), left, right, &output)
}

/// The node's output column names, the left input's first `left_width` and the right's: a
/// join's inputs take their names from them, as Flink renames a right column that repeats a
/// left one (`k` to `k0`).
pub(super) fn output_names(output: &[RowField], left_width: usize) -> [Vec<String>; 2] {
    let (left, right) = output.split_at(left_width.min(output.len()));
    [left, right].map(|part| part.iter().map(|f| f.name.clone()).collect())
}

/// `plan`, once an operator built from it reads `left` and `right` and writes `output`, the
/// types of Flink's two-input node.
pub(super) fn checked_two_input(
    plan: OperatorPlan,
    left: &[RowField],
    right: &[RowField],
    output: &[RowField],
) -> Result<OperatorPlan> {
    let operator = plan
        .build(&StateConfig::memory(), None)
        .map_err(|e| Unsupported::Operator(e.to_string()))?;
    compare("left input", operator.input_types(0), left)?;
    compare("right input", operator.input_types(1), right)?;
    compare("output", operator.output_types(), output)?;
    Ok(plan)
}

/// A join spec's parts (`joinSpec`: `joinType`, `leftKeys`, `rightKeys`, `filterNulls`,
/// `nonEquiCondition`), as regular and window joins write it.
pub(super) struct JoinParts {
    pub(super) join_type: JoinType,
    pub(super) left_keys: Vec<usize>,
    pub(super) right_keys: Vec<usize>,
    pub(super) filter_nulls: Vec<bool>,
    pub(super) condition: Option<CalcProgram>,
}

/// The parts of the join spec `spec` over the `left` and `right` inputs.
pub(super) fn join_parts(
    spec: &Value,
    left: &[RowField],
    right: &[RowField],
    config: &FlinkConfig,
) -> Result<JoinParts> {
    let spec_field = |name: &str| {
        spec.get(name)
            .ok_or_else(|| Unsupported::Malformed(format!("a join spec without \"{name}\"")))
    };
    let join_type = match spec_field("joinType")?.as_str() {
        Some("INNER") => JoinType::Inner,
        Some("LEFT") => JoinType::Left,
        Some("RIGHT") => JoinType::Right,
        Some("FULL") => JoinType::Full,
        Some("SEMI") => JoinType::Semi,
        Some("ANTI") => JoinType::Anti,
        other => {
            return Err(Unsupported::Malformed(format!(
                "join type {other:?} is not one Flink 2.3.0 writes"
            )));
        }
    };
    let keys = |name: &str, input: &[RowField]| -> Result<Vec<usize>> {
        spec_field(name)?
            .as_array()
            .ok_or_else(|| Unsupported::Malformed(format!("\"{name}\" is not an array")))?
            .iter()
            .map(|k| index(k, input.len(), "join key"))
            .collect()
    };
    let (left_keys, right_keys) = (keys("leftKeys", left)?, keys("rightKeys", right)?);
    let filter_nulls = spec_field("filterNulls")?
        .as_array()
        .ok_or_else(|| Unsupported::Malformed("\"filterNulls\" is not an array".into()))?
        .iter()
        .map(|f| {
            f.as_bool()
                .ok_or_else(|| Unsupported::Malformed(format!("a NULL filter {f}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let condition = match spec_field("nonEquiCondition")? {
        Value::Null => None,
        rex => {
            let types: Vec<LogicalType> = left.iter().chain(right).map(|f| f.ty.clone()).collect();
            let mut reader = RexReader::for_jvm(config.java_version);
            let mut program = CalcProgram::project(vec![reader.expr(rex)?]);
            program.legacy_cast_behaviour = config.legacy_cast_behaviour;
            program.time_zone = config.local_time_zone.clone();
            program.float_text = config.float_text;
            compile(&program, &types).map_err(|e| Unsupported::Compile(e.to_string()))?;
            check_calls(&reader, &program, &types)?;
            Some(program)
        }
    };
    Ok(JoinParts {
        join_type,
        left_keys,
        right_keys,
        filter_nulls,
        condition,
    })
}

/// The two inputs' state TTLs (`{"index": 0|1, "ttl": "0 ms", "name": ..}`).
fn state_ttls(state: &Value) -> Result<[Option<std::time::Duration>; 2]> {
    let entries = state
        .as_array()
        .ok_or_else(|| Unsupported::Malformed("\"state\" is not an array".into()))?;
    let mut ttls = [None, None];
    if entries.len() != 2 {
        return Err(Unsupported::Malformed(format!(
            "a join has two state entries, not {}",
            entries.len()
        )));
    }
    for entry in entries {
        let at = entry
            .get("index")
            .and_then(Value::as_u64)
            .filter(|&i| i < 2)
            .ok_or_else(|| Unsupported::Malformed(format!("state entry {entry}")))?;
        let ttl = entry.get("ttl").and_then(Value::as_str).ok_or_else(|| {
            Unsupported::Malformed(format!("state entry without \"ttl\": {entry}"))
        })?;
        let ttl = parse_duration(ttl)?;
        ttls[at as usize] = (!ttl.is_zero()).then_some(ttl);
    }
    Ok(ttls)
}

/// `JoinUtil.analyzeJoinInput`: the layout of an input with `upsert_keys` (Flink's JSON,
/// absent for none) joined on `keys`.
fn input_state(upsert_keys: Option<&Value>, keys: &[usize], columns: usize) -> Result<InputState> {
    let unique_keys: Vec<Vec<usize>> = match upsert_keys {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => v
            .as_array()
            .ok_or_else(|| Unsupported::Malformed(format!("upsert keys {v}")))?
            .iter()
            .map(|key| {
                key.as_array()
                    .ok_or_else(|| Unsupported::Malformed(format!("an upsert key {key}")))?
                    .iter()
                    .map(|c| index(c, columns, "upsert key"))
                    .collect()
            })
            .collect::<Result<_>>()?,
    };
    // Scala's `reduce((a, b) => if (a.length <= b.length) a else b)`: the first smallest.
    let smallest = |keys: Vec<&Vec<usize>>| {
        keys.into_iter()
            .reduce(|a, b| if a.len() <= b.len() { a } else { b })
            .cloned()
    };
    let contained: Vec<&Vec<usize>> = unique_keys
        .iter()
        .filter(|uk| uk.iter().all(|c| keys.contains(c)))
        .collect();
    if !contained.is_empty() {
        return Ok(InputState::JoinKey);
    }
    Ok(match smallest(unique_keys.iter().collect()) {
        Some(columns) => InputState::UniqueKey { columns },
        None => InputState::NoUniqueKey,
    })
}

#[cfg(test)]
mod tests {
    use super::super::plan_node;
    use super::*;

    /// The node and config texts of golden scenario `name` (written by `JoinVectors`).
    fn golden(name: &str) -> (Value, String) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/golden/flink-2.3.0-join.jsonl"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let header: Value = text
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|h| h["scenario"] == name)
            .unwrap_or_else(|| panic!("no scenario {name}"));
        let node = serde_json::from_str(header["node"].as_str().unwrap()).unwrap();
        (node, header["config"].as_str().unwrap().to_string())
    }

    fn plan_of(node: &Value, config: &str) -> Result<JoinSpec> {
        match plan_node(&node.to_string(), Some(config))? {
            OperatorPlan::Join(spec) => Ok(spec),
            other => panic!("planned as {:?}", other.kind()),
        }
    }

    #[test]
    fn state_ttls_are_each_inputs_and_a_mini_batch_join_takes_the_bundle_size() {
        let (mut node, config) = golden("left_nn");
        let spec = plan_of(&node, &config).unwrap();
        assert_eq!((spec.left.state_ttl, spec.right.state_ttl), (None, None));
        assert_eq!(spec.output_names(), ["k", "id", "v", "k0", "id0", "w"]);
        node["node"]["state"][1]["ttl"] = "3600000 ms".into();
        let spec = plan_of(&node, &config).unwrap();
        assert_eq!(spec.left.state_ttl, None);
        assert_eq!(
            spec.right.state_ttl,
            Some(std::time::Duration::from_secs(3600))
        );
        let mini_batch = config.replace(
            "\"table.exec.mini-batch.enabled\":\"false\"",
            "\"table.exec.mini-batch.enabled\":\"true\"",
        );
        assert_ne!(mini_batch, config);
        assert_eq!(plan_of(&node, &config).unwrap().mini_batch_rows, None);
        // Flink refuses a mini-batch without a positive size, and so does the planner.
        let err = plan_of(&node, &mini_batch).unwrap_err();
        assert!(err.to_string().contains("mini-batch.size"), "{err}");
        let sized = mini_batch.replace(
            "\"table.exec.mini-batch.size\":\"-1\"",
            "\"table.exec.mini-batch.size\":\"7\"",
        );
        assert_eq!(plan_of(&node, &sized).unwrap().mini_batch_rows, Some(7));
        // SEMI/ANTI have no mini-batch operator: Flink runs them as without.
        let (semi, config) = golden("semi_nn");
        let mini_batch = config.replace(
            "\"table.exec.mini-batch.enabled\":\"false\"",
            "\"table.exec.mini-batch.enabled\":\"true\"",
        );
        assert_eq!(plan_of(&semi, &mini_batch).unwrap().mini_batch_rows, None);
        node["node"]["state"].as_array_mut().unwrap().pop();
        assert!(matches!(
            plan_of(&node, &config),
            Err(Unsupported::Malformed(_))
        ));
    }

    #[test]
    fn the_layout_is_the_one_analyze_join_input_picks() {
        let keys = |json: &str| serde_json::from_str::<Value>(json).unwrap();
        assert_eq!(input_state(None, &[0], 3).unwrap(), InputState::NoUniqueKey);
        assert_eq!(
            input_state(Some(&keys("[[1], [0, 2]]")), &[0, 2], 3).unwrap(),
            InputState::JoinKey
        );
        assert_eq!(
            input_state(Some(&keys("[[0, 2], [1, 2], [1]]")), &[0], 3).unwrap(),
            InputState::UniqueKey { columns: vec![1] }
        );
        assert_eq!(
            input_state(Some(&keys("[[0, 2], [1, 2]]")), &[0], 3).unwrap(),
            InputState::UniqueKey {
                columns: vec![0, 2]
            }
        );
        assert!(input_state(Some(&keys("[[3]]")), &[0], 3).is_err());
    }
}
