//! `stream-exec-deduplicate_1` as a native [`OperatorPlan::Deduplicate`].
//!
//! The node's fields: `uniqueKeys` (the partition key columns), `isRowtime`, `keepLastRow`,
//! `generateUpdateBefore`, `outputInsertOnly` (2.3.0; absent or `null` is `false`, as
//! Flink's constructor reads it) and `state` (one entry, the TTL). The rowtime column is
//! the input's first `ROWTIME` field, as `RowtimeDeduplicateOperatorTranslator` finds it.
//! Options, the node's persisted `configuration` first: `table.exec.mini-batch.enabled` and
//! `.size`, `table.exec.deduplicate.insert-update-after-sensitive-enabled` (default true)
//! and `table.exec.deduplicate.mini-batch.compact-changes-enabled` (default false; true is
//! `RowTimeMiniBatchLatestChangeDeduplicateFunction`, refused). The built operator's input
//! and output types must equal Flink's.

use serde_json::Value;

use super::aggregate::{compare, max_parallelism, mini_batch, node_option, state_ttl};
use super::types::row_type;
use super::{FlinkConfig, NodeFields, Result, Unsupported};
use crate::deduplicate::DedupSpec;
use crate::ops::{OperatorPlan, StateConfig};
use crate::types::RowField;

const NODE: &str = "stream-exec-deduplicate_1";
const INSERT_SENSITIVE: &str = "table.exec.deduplicate.insert-update-after-sensitive-enabled";
const COMPACT_CHANGES: &str = "table.exec.deduplicate.mini-batch.compact-changes-enabled";

/// The plan of a deduplicate `node` over `inputs`.
pub fn plan(
    node: &Value,
    inputs: &[Vec<RowField>],
    raw_inputs: &[Value],
    config: &FlinkConfig,
) -> Result<OperatorPlan> {
    let fields = NodeFields::new(node, NODE);
    let (input, raw_input) = fields.one_input(inputs, raw_inputs)?;
    let field = |name: &str| fields.field(name);
    let flag = |name: &str| fields.flag(name);
    let keys = field("uniqueKeys")?
        .as_array()
        .ok_or_else(|| Unsupported::Malformed("\"uniqueKeys\" is not an array".into()))?
        .iter()
        .map(|k| super::aggregate::index(k, input.len(), "unique key"))
        .collect::<Result<Vec<_>>>()?;
    let rowtime_column = if flag("isRowtime")? {
        Some(first_rowtime(raw_input)?)
    } else {
        None
    };
    let output_insert_only = match node.get("outputInsertOnly") {
        None | Some(Value::Null) => false,
        Some(v) => v.as_bool().ok_or_else(|| {
            Unsupported::Malformed(format!("{NODE} \"outputInsertOnly\" is not a boolean"))
        })?,
    };
    let mini_batch_rows = mini_batch(node, config)?;
    if mini_batch_rows.is_some() && boolean_option(node, config, COMPACT_CHANGES, false)? {
        return Err(Unsupported::Feature(format!(
            "{COMPACT_CHANGES} = true (compacted mini-batch changes)"
        )));
    }
    let spec = DedupSpec {
        input_names: input.iter().map(|f| f.name.clone()).collect(),
        input_types: input.iter().map(|f| f.ty.clone()).collect(),
        keys,
        rowtime_column,
        keep_last: flag("keepLastRow")?,
        generate_update_before: flag("generateUpdateBefore")?,
        generate_insert: boolean_option(node, config, INSERT_SENSITIVE, true)?,
        output_insert_only,
        mini_batch_rows,
        state_ttl: state_ttl(field("state")?)?,
        max_parallelism: max_parallelism(config)?,
    };
    let plan = OperatorPlan::Deduplicate(spec);
    let output = row_type(field("outputType")?)?;
    let operator = plan
        .build(&StateConfig::memory(), None)
        .map_err(|e| Unsupported::Operator(e.to_string()))?;
    compare("input", operator.input_types(0), input)?;
    compare("output", operator.output_types(), &output)?;
    Ok(plan)
}

/// The index of `row`'s first `ROWTIME` field (Flink's JSON keeps the time attribute kind,
/// which the parsed row type does not).
fn first_rowtime(row: &Value) -> Result<usize> {
    row.get("fields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .position(|f| {
            f.get("fieldType")
                .and_then(|t| t.get("kind"))
                .and_then(Value::as_str)
                == Some("ROWTIME")
        })
        .ok_or_else(|| {
            Unsupported::Malformed(format!("a rowtime {NODE} whose input has no ROWTIME field"))
        })
}

fn boolean_option(node: &Value, config: &FlinkConfig, key: &str, default: bool) -> Result<bool> {
    match node_option(node, config, key)?
        .map(|v| v.to_ascii_lowercase())
        .as_deref()
    {
        None => Ok(default),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(other) => Err(Unsupported::Malformed(format!("{key} = {other}"))),
    }
}

#[cfg(test)]
#[path = "deduplicate_tests.rs"]
mod tests;
