//! `stream-exec-rank_1` as a native [`OperatorPlan::Rank`].
//!
//! The node's fields: `rankType` (only `ROW_NUMBER` runs on streams; Flink's translator
//! throws for `RANK` and `DENSE_RANK`), `partition` (`{"fields": [..]}`), `orderBy`
//! (`{"fields": [{"index", "isAscending", "nullIsLast"}]}`), `rankRange`
//! (`{"type": "Constant", "start", "end"}`; a `Variable` rank end, read from a column, is
//! not supported), `rankStrategy` (`AppendFast`, `Retract` and `UpdateFast` with its
//! `primaryKeys`, the input's unique key), `outputRowNumber`, `generateUpdateBefore` and
//! `state` (one entry, the TTL). The function is the one `StreamExecRank` picks:
//! `RetractableTopNFunction` for `Retract`; for `UpdateFast` `FastTop1Function` for the
//! range 1..1, else `UpdatableTopNFunction`; for `AppendFast` `AppendOnlyFirstNFunction` for
//! one ascending processing-time sort field, `FastTop1Function` for the range 1..1, else
//! `AppendOnlyTopNFunction`. The built
//! operator's input and output types must equal Flink's.

use serde_json::Value;

use super::aggregate::{compare, index, max_parallelism, state_ttl};
use super::types::row_type;
use super::{FlinkConfig, NodeFields, Result, Unsupported, time_kind};
use crate::ops::{OperatorPlan, StateConfig};
use crate::rank::{RankFunction, RankSpec, SortKey};
use crate::types::RowField;

const NODE: &str = "stream-exec-rank_1";

/// The plan of a rank `node` over `inputs`.
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
    match field("rankType")?.as_str() {
        Some("ROW_NUMBER") => {}
        Some(other) => {
            return Err(Unsupported::Feature(format!(
                "{other}() on a stream (Flink supports ROW_NUMBER() only)"
            )));
        }
        None => {
            return Err(Unsupported::Malformed(
                "\"rankType\" is not a string".into(),
            ));
        }
    }
    let fields_of = |name: &str| -> Result<&Vec<Value>> {
        field(name)?
            .get("fields")
            .and_then(Value::as_array)
            .ok_or_else(|| Unsupported::Malformed(format!("\"{name}\" has no \"fields\" array")))
    };
    let partition_keys = fields_of("partition")?
        .iter()
        .map(|k| index(k, input.len(), "partition key"))
        .collect::<Result<Vec<_>>>()?;
    let sort = sort_keys(fields_of("orderBy")?, input.len())?;
    let (rank_start, rank_end) = rank_range(field("rankRange")?)?;
    let strategy = field("rankStrategy")?;
    let top1 = (rank_start, rank_end) == (1, 1);
    let (input_updates, retract) = match strategy.get("type").and_then(Value::as_str) {
        Some("AppendFast") => (false, false),
        // `StreamExecRank` runs a Top-1 over an upsert input with `FastTop1Function` too.
        Some("UpdateFast") => (true, false),
        Some("Retract") => (false, true),
        _ => {
            return Err(Unsupported::Malformed(format!(
                "rank strategy {strategy} is not one Flink 2.3.0 translates"
            )));
        }
    };
    let function = match sort.as_slice() {
        _ if retract => RankFunction::Retract,
        _ if input_updates && !top1 => RankFunction::Update,
        [only]
            if !input_updates
                && only.ascending
                && time_kind(raw_input, only.column) == Some("PROCTIME") =>
        {
            RankFunction::FirstN
        }
        _ if top1 => RankFunction::Top1,
        _ => RankFunction::TopN,
    };
    let unique_key = match function {
        RankFunction::Update => strategy
            .get("primaryKeys")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                Unsupported::Malformed(format!("rank strategy {strategy} has no \"primaryKeys\""))
            })?
            .iter()
            .map(|k| index(k, input.len(), "unique key"))
            .collect::<Result<Vec<_>>>()?,
        _ => Vec::new(),
    };
    let output = row_type(field("outputType")?)?;
    let rank_name = if flag("outputRowNumber")? {
        let last = output.last().filter(|_| output.len() == input.len() + 1);
        Some(
            last.ok_or_else(|| {
                Unsupported::Malformed(format!(
                    "a {NODE} with a rank column outputs {} fields for {} input fields",
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
    let spec = RankSpec {
        input_names: input.iter().map(|f| f.name.clone()).collect(),
        input_types: input.iter().map(|f| f.ty.clone()).collect(),
        partition_keys,
        sort,
        function,
        rank_start,
        rank_end,
        rank_name,
        generate_update_before: flag("generateUpdateBefore")?,
        input_updates,
        unique_key,
        state_ttl: state_ttl(field("state")?)?,
        max_parallelism: max_parallelism(config)?,
    };
    let plan = OperatorPlan::Rank(spec);
    let operator = plan
        .build(&StateConfig::memory(), None)
        .map_err(|e| Unsupported::Operator(e.to_string()))?;
    compare("input", operator.input_types(0), input)?;
    compare("output", operator.output_types(), &output)?;
    Ok(plan)
}

/// Flink's `SortSpec` fields (`{"index", "isAscending", "nullIsLast"}`) over `columns`
/// input columns.
pub(super) fn sort_keys(fields: &[Value], columns: usize) -> Result<Vec<SortKey>> {
    fields
        .iter()
        .map(|f| {
            let flag = |name: &str| {
                f.get(name).and_then(Value::as_bool).ok_or_else(|| {
                    Unsupported::Malformed(format!("a sort field without \"{name}\": {f}"))
                })
            };
            Ok(SortKey {
                column: index(f.get("index").unwrap_or(&Value::Null), columns, "sort")?,
                ascending: flag("isAscending")?,
                nulls_last: flag("nullIsLast")?,
            })
        })
        .collect()
}

/// A constant rank range's `(start, end)`.
pub(super) fn rank_range(range: &Value) -> Result<(i64, i64)> {
    let bound = |name: &str| {
        range
            .get(name)
            .and_then(Value::as_i64)
            .ok_or_else(|| Unsupported::Malformed(format!("rank range {range} has no \"{name}\"")))
    };
    match range.get("type").and_then(Value::as_str) {
        Some("Constant") => Ok((bound("start")?, bound("end")?)),
        Some("Variable") => Err(Unsupported::Feature(
            "a rank end read from a column (variable rank range)".into(),
        )),
        // `AbstractTopNFunction` refuses a range without an end.
        Some("ConstantWithoutEnd") => {
            Err(Unsupported::Feature("a rank range without an end".into()))
        }
        _ => Err(Unsupported::Malformed(format!(
            "rank range {range} is not one Flink 2.3.0 writes"
        ))),
    }
}

#[cfg(test)]
#[path = "rank_tests.rs"]
mod tests;
