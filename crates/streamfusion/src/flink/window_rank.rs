//! `stream-exec-window-rank_1` and `stream-exec-window-deduplicate_1` as a native
//! [`OperatorPlan::WindowRank`].
//!
//! Both nodes read rows whose window is attached upstream: `windowing` is the
//! `WindowAttached` strategy, whose `windowEnd` is the input column the operator fires by
//! (`StreamExecWindowRank` and `StreamExecWindowDeduplicate` translate nothing else), on a
//! row time (`isRowtime`; Flink fails processing-time window deduplication and the native
//! side runs no processing-time windows). Its `timeAttributeType` decides the time zone: a
//! TIMESTAMP_LTZ time attribute's windows are local times of the session time zone.
//!
//! - Window rank: `rankType` (`ROW_NUMBER` only, as Flink's translator), `partitionSpec`,
//!   `sortSpec` (`{"fields": [{"index", "isAscending", "nullIsLast"}]}`), `rankRange`
//!   (`Constant` only) and `outputRowNumber`.
//! - Window deduplication: `partitionKeys`, `orderKey` (the row time column) and
//!   `keepLastRow`.
//!
//! The built operator's input and output types must equal Flink's.

use serde_json::Value;

use super::aggregate::{index, max_parallelism};
use super::rank::{rank_range, sort_keys};
use super::types::{logical_type, row_type};
use super::window::{self, expect_strategy, window_zone};
use super::{FlinkConfig, NodeFields, Result, Unsupported};
use crate::ops::OperatorPlan;
use crate::rank::window::{WindowKeep, WindowRankSpec};
use crate::types::RowField;

const RANK: &str = "stream-exec-window-rank_1";
const DEDUPLICATE: &str = "stream-exec-window-deduplicate_1";

/// The plan of a window rank `node` over `inputs`.
pub fn plan_rank(
    node: &Value,
    inputs: &[Vec<RowField>],
    config: &FlinkConfig,
) -> Result<OperatorPlan> {
    let fields = NodeFields::new(node, RANK);
    let field = |name: &str| fields.field(name);
    match field("rankType")?.as_str() {
        Some("ROW_NUMBER") => {}
        other => {
            return Err(Unsupported::Feature(format!(
                "{}() in a window Top-N (Flink supports ROW_NUMBER() only)",
                other.unwrap_or("a rank type")
            )));
        }
    }
    let input = one_input(inputs, RANK)?;
    let fields_of = |name: &str| -> Result<&Vec<Value>> {
        field(name)?
            .get("fields")
            .and_then(Value::as_array)
            .ok_or_else(|| Unsupported::Malformed(format!("\"{name}\" has no \"fields\" array")))
    };
    let partition_keys = fields_of("partitionSpec")?
        .iter()
        .map(|k| index(k, input.len(), "partition key"))
        .collect::<Result<Vec<_>>>()?;
    let sort = sort_keys(fields_of("sortSpec")?, input.len())?;
    let (rank_start, rank_end) = rank_range(field("rankRange")?)?;
    let output = row_type(field("outputType")?)?;
    let rank_name = if fields.flag("outputRowNumber")? {
        let last = output.last().filter(|_| output.len() == input.len() + 1);
        Some(
            last.ok_or_else(|| {
                Unsupported::Malformed(format!(
                    "a {RANK} with a rank column outputs {} fields for {} input fields",
                    output.len(),
                    input.len()
                ))
            })?
            .name
            .clone(),
        )
    } else {
        None
    };
    let keep = WindowKeep::TopN {
        sort,
        rank_start,
        rank_end,
        rank_name,
    };
    planned(node, RANK, input, partition_keys, keep, config)
}

/// The plan of a window deduplicate `node` over `inputs`.
pub fn plan_deduplicate(
    node: &Value,
    inputs: &[Vec<RowField>],
    config: &FlinkConfig,
) -> Result<OperatorPlan> {
    let fields = NodeFields::new(node, DEDUPLICATE);
    let field = |name: &str| fields.field(name);
    let input = one_input(inputs, DEDUPLICATE)?;
    let partition_keys = field("partitionKeys")?
        .as_array()
        .ok_or_else(|| Unsupported::Malformed("\"partitionKeys\" is not an array".into()))?
        .iter()
        .map(|k| index(k, input.len(), "partition key"))
        .collect::<Result<Vec<_>>>()?;
    let keep = WindowKeep::Deduplicate {
        rowtime_column: index(field("orderKey")?, input.len(), "order key")?,
        keep_last: fields.flag("keepLastRow")?,
    };
    planned(node, DEDUPLICATE, input, partition_keys, keep, config)
}

fn one_input<'a>(inputs: &'a [Vec<RowField>], node: &str) -> Result<&'a [RowField]> {
    match inputs {
        [input] => Ok(input),
        _ => Err(Unsupported::Malformed(format!(
            "a {node} has one input, the description has {}",
            inputs.len()
        ))),
    }
}

/// The plan over `node`'s windowing, built once to check its types against Flink's.
fn planned(
    node: &Value,
    node_type: &'static str,
    input: &[RowField],
    partition_keys: Vec<usize>,
    keep: WindowKeep,
    config: &FlinkConfig,
) -> Result<OperatorPlan> {
    let fields = NodeFields::new(node, node_type);
    let windowing = fields.field("windowing")?;
    expect_strategy(windowing, "WindowAttached")?;
    let time_type = logical_type(windowing.get("timeAttributeType").ok_or_else(|| {
        Unsupported::Malformed("windowing without \"timeAttributeType\"".into())
    })?)?;
    let time_zone = window_zone(&time_type, config)?;
    let window_end_column = index(
        windowing
            .get("windowEnd")
            .ok_or_else(|| Unsupported::Malformed("windowing without \"windowEnd\"".into()))?,
        input.len(),
        "window end",
    )?;
    let plan = OperatorPlan::WindowRank(WindowRankSpec {
        input_names: input.iter().map(|f| f.name.clone()).collect(),
        input_types: input.iter().map(|f| f.ty.clone()).collect(),
        partition_keys,
        window_end_column,
        keep,
        time_zone,
        max_parallelism: max_parallelism(config)?,
    });
    window::checked(plan, fields.field("outputType")?, input)
}

#[cfg(test)]
#[path = "window_rank_tests.rs"]
mod tests;
