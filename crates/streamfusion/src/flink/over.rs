//! `stream-exec-over-aggregate_1` as a native [`OperatorPlan::OverAggregate`].
//!
//! The node's `overSpec`: `partition` (`{"fields": [..]}`), one entry of `groups` (Flink
//! fails on more: "All aggregates must be computed on the same window") with `orderBy` (one
//! ascending field, the time attribute), `isRows`, `lowerBound` (`UNBOUNDED_PRECEDING`, or
//! `BOUNDED_WINDOW` preceding with an `offset` that refers, past the input's
//! `originalInputFields` columns, to one of `constants`), `upperBound` (`CURRENT_ROW`; a
//! FOLLOWING bound Flink refuses) and `aggCalls` (read as GROUP BY's are, see
//! [`super::aggregate`]); and `unboundedOverVersion` (absent is 1).
//!
//! Runs natively: an event-time (ROWTIME) order with an unbounded frame of version 2 (the
//! 2.3.0 default, `RowTimeUnboundedPrecedingOverFunctionV2`), a bounded ROWS frame, or a
//! bounded RANGE frame (an interval or integer constant, in milliseconds); a processing-time
//! (PROCTIME) order with a ROWS frame, unbounded or bounded, or an unbounded RANGE frame
//! (`ProcTimeUnboundedPrecedingFunction` runs both unbounded frames alike).
//!
//! Refused (the node stays stock): a processing-time RANGE frame with a preceding bound, a
//! non-time order; version 1
//! of the unbounded rowtime functions; `table.exec.state.ttl` on ROWS and unbounded frames (Flink cleans
//! their state on processing-time timers, which are not native yet); a constant aggregate
//! argument other than LISTAGG's separator and PERCENTILE's one DOUBLE percentage (read as
//! literals); and in a RANGE bounded frame a FLOAT/DOUBLE SUM, $SUM0 or AVG, whose result
//! depends on the order in which Flink's map state retracts expired times (see
//! [`crate::aggregate::over`]).

use serde_json::Value;

use super::aggregate::{agg_call, compare, index, max_parallelism, parse_duration};
use super::types::row_type;
use super::{FlinkConfig, NodeFields, Result, Unsupported, option_text, time_kind};
use crate::aggregate::{AggFunction, OverFrame, OverSpec};
use crate::ops::{OperatorPlan, StateConfig};
use crate::types::{LogicalType, RowField};

const NODE: &str = "stream-exec-over-aggregate_1";

/// The plan of an OVER `node` over `inputs`.
pub fn plan(
    node: &Value,
    inputs: &[Vec<RowField>],
    raw_inputs: &[Value],
    config: &FlinkConfig,
) -> Result<OperatorPlan> {
    let fields = NodeFields::new(node, NODE);
    let (input, raw_input) = fields.one_input(inputs, raw_inputs)?;
    let over = fields.field("overSpec")?;
    let malformed = |what: &str| Unsupported::Malformed(format!("a {NODE} with {what}"));
    let group = match over
        .get("groups")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([group]) => group,
        Some(groups) => {
            return Err(Unsupported::Feature(format!(
                "{} OVER windows in one node (Flink computes one)",
                groups.len()
            )));
        }
        None => return Err(malformed("no \"groups\" array")),
    };
    let partition_keys = over
        .get("partition")
        .and_then(|p| p.get("fields"))
        .and_then(Value::as_array)
        .ok_or_else(|| malformed("no partition fields"))?
        .iter()
        .map(|k| index(k, input.len(), "partition key"))
        .collect::<Result<Vec<_>>>()?;
    let order = group
        .get("orderBy")
        .and_then(|o| o.get("fields"))
        .and_then(Value::as_array)
        .ok_or_else(|| malformed("no orderBy fields"))?;
    let [order] = order.as_slice() else {
        return Err(Unsupported::Feature(format!(
            "an OVER window ordered by {} fields (Flink orders by one time attribute)",
            order.len()
        )));
    };
    let time_column = index(
        order.get("index").unwrap_or(&Value::Null),
        input.len(),
        "order field",
    )?;
    if order.get("isAscending").and_then(Value::as_bool) != Some(true) {
        return Err(Unsupported::Feature(
            "an OVER window ordered descending".into(),
        ));
    }
    let processing_time = match time_kind(raw_input, time_column) {
        Some("ROWTIME") => false,
        Some("PROCTIME") => true,
        _ => {
            return Err(Unsupported::Feature(
                "an OVER window ordered by a column that is not a time attribute".into(),
            ));
        }
    };
    let rows = group
        .get("isRows")
        .and_then(Value::as_bool)
        .ok_or_else(|| malformed("no \"isRows\""))?;
    if group
        .get("upperBound")
        .and_then(|b| b.get("kind"))
        .and_then(Value::as_str)
        != Some("CURRENT_ROW")
    {
        return Err(Unsupported::Feature(format!(
            "an OVER frame ending at {} (Flink supports CURRENT ROW only)",
            group.get("upperBound").unwrap_or(&Value::Null)
        )));
    }
    let lower = group
        .get("lowerBound")
        .ok_or_else(|| malformed("no \"lowerBound\""))?;
    let frame = match lower.get("kind").and_then(Value::as_str) {
        Some("UNBOUNDED_PRECEDING") => {
            // The version picks among the rowtime functions only.
            let version = node.get("unboundedOverVersion").and_then(Value::as_i64);
            if !processing_time && version != Some(2) {
                return Err(Unsupported::Feature(format!(
                    "unbounded OVER version {} (table.exec.unbounded-over.version; version 2 \
                     runs natively)",
                    version.unwrap_or(1)
                )));
            }
            // On processing time Flink runs ROWS and RANGE with one function, which emits
            // every row as it arrives.
            if rows || processing_time {
                OverFrame::RowsUnbounded
            } else {
                OverFrame::RangeUnbounded
            }
        }
        Some("BOUNDED_WINDOW")
            if lower.get("isPreceding").and_then(Value::as_bool) == Some(true) =>
        {
            let offset = bound_offset(over, lower, input.len())?;
            if rows {
                OverFrame::RowsBounded {
                    rows: offset
                        .checked_add(1)
                        .ok_or_else(|| Unsupported::Feature(format!("ROWS {offset} PRECEDING")))?,
                }
            } else {
                OverFrame::RangeBounded { millis: offset }
            }
        }
        _ => {
            return Err(Unsupported::Feature(format!(
                "an OVER frame starting at {lower} (Flink supports PRECEDING only)"
            )));
        }
    };
    if processing_time && matches!(frame, OverFrame::RangeBounded { .. }) {
        return Err(Unsupported::Feature(
            "a RANGE frame with a preceding bound over processing time (Flink groups its rows \
             by the millisecond they arrive in; not native yet)"
                .into(),
        ));
    }
    let ttl = option_text(&config.options, "table.exec.state.ttl")?
        .map(|t| parse_duration(&t))
        .transpose()?
        .filter(|d| !d.is_zero());
    if let Some(ttl) = ttl
        && !matches!(frame, OverFrame::RangeBounded { .. })
    {
        return Err(Unsupported::Feature(format!(
            "table.exec.state.ttl = {} ms on this OVER frame (its state is cleaned up on \
             processing-time timers, not native yet)",
            ttl.as_millis()
        )));
    }
    let raw_calls = group
        .get("aggCalls")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed("no \"aggCalls\" array"))?;
    let mut calls = Vec::with_capacity(raw_calls.len());
    for (i, call) in raw_calls.iter().enumerate() {
        let call = match constant_second_argument(i, over, call, input.len())? {
            Some(call) => call,
            None => {
                let constant = call
                    .get("argList")
                    .and_then(Value::as_array)
                    .is_some_and(|args| {
                        args.iter()
                            .any(|a| a.as_u64().is_none_or(|a| a as usize >= input.len()))
                    });
                if constant {
                    return Err(Unsupported::Feature(format!(
                        "an OVER aggregate of a constant ({})",
                        call.get("internalName").unwrap_or(&Value::Null)
                    )));
                }
                agg_call(i, call, input.len())?
            }
        };
        let floating = call
            .arg
            .is_some_and(|a| matches!(input[a].ty, LogicalType::Float | LogicalType::Double));
        if matches!(frame, OverFrame::RangeBounded { .. })
            && floating
            && matches!(
                call.function,
                AggFunction::Sum | AggFunction::Sum0 | AggFunction::Avg
            )
        {
            return Err(Unsupported::Feature(format!(
                "{} of {} in a RANGE frame with a preceding bound (Flink retracts expired \
                 rows in its map state's order, which decides the rounding)",
                call.function.sql_name(),
                input[call.arg.expect("floating has an argument")].ty
            )));
        }
        calls.push(call);
    }
    let output = row_type(fields.field("outputType")?)?;
    let spec = OverSpec {
        input_names: input.iter().map(|f| f.name.clone()).collect(),
        input_types: input.iter().map(|f| f.ty.clone()).collect(),
        partition_keys,
        time_column,
        frame,
        calls,
        max_parallelism: max_parallelism(config)?,
        processing_time,
    };
    let plan = OperatorPlan::OverAggregate(spec);
    let operator = plan
        .build(&StateConfig::memory(), None)
        .map_err(|e| Unsupported::Operator(e.to_string()))?;
    compare("input", operator.input_types(0), input)?;
    compare("output", operator.output_types(), &output)?;
    Ok(plan)
}

/// `LISTAGG(x, 'sep')` or `PERCENTILE(x, p)` in an OVER node, whose second argument is one
/// of the node's `constants` (past `originalInputFields`), not an input column as in a
/// GROUP BY: the call with that separator (a constant one joins as Flink's per-row separator
/// does) or percentage literal. `None` for any other call.
fn constant_second_argument(
    i: usize,
    over: &Value,
    call: &Value,
    columns: usize,
) -> Result<Option<crate::aggregate::AggCall>> {
    let args = call.get("argList").and_then(Value::as_array);
    let name = call.get("internalName").and_then(Value::as_str);
    let (Some(name @ ("$LISTAGG$1" | "$PERCENTILE$1")), Some([value, separator])) =
        (name, args.map(Vec::as_slice))
    else {
        return Ok(None);
    };
    let original = over
        .get("originalInputFields")
        .and_then(Value::as_u64)
        .unwrap_or(columns as u64);
    let Some(constant) = separator
        .as_u64()
        .and_then(|s| s.checked_sub(original))
        .and_then(|i| over.get("constants")?.as_array()?.get(i as usize))
    else {
        return Ok(None);
    };
    let mut single = call.clone();
    single["argList"] = Value::Array(vec![value.clone()]);
    let ty = constant.get("type").and_then(Value::as_str).unwrap_or("");
    let literal = constant.get("value");
    let call = agg_call(i, &single, columns)?;
    Ok(Some(match (name, literal) {
        ("$LISTAGG$1", Some(Value::String(sep))) => call.with_separator(sep.clone()),
        // A single DOUBLE percentage (an ARRAY of them is not read here).
        ("$PERCENTILE$1", Some(p)) if ty.starts_with("DOUBLE") => {
            let p = match p {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse().ok(),
                _ => None,
            };
            match p {
                Some(p) => call.with_percentage(p),
                None => {
                    return Err(Unsupported::Feature(format!(
                        "PERCENTILE in an OVER window with the constant {constant}"
                    )));
                }
            }
        }
        _ => {
            return Err(Unsupported::Feature(format!(
                "{name} in an OVER window with the constant {constant}"
            )));
        }
    }))
}

/// The preceding bound's size: the constant its offset refers to (`inputIndex` past the
/// original input fields), as Flink's `OverAggregateUtil.getBoundary` reads it; a RANGE
/// interval's value is in milliseconds.
fn bound_offset(over: &Value, bound: &Value, columns: usize) -> Result<i64> {
    let malformed = |what: String| Unsupported::Malformed(format!("an OVER bound {what}: {bound}"));
    let offset = bound
        .get("offset")
        .ok_or_else(|| malformed("without an offset".into()))?;
    let reference = offset
        .get("inputIndex")
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed("whose offset is not an input reference".into()))?;
    let original = over
        .get("originalInputFields")
        .and_then(Value::as_u64)
        .unwrap_or(columns as u64);
    let constant = reference
        .checked_sub(original)
        .and_then(|i| over.get("constants")?.as_array()?.get(i as usize))
        .ok_or_else(|| malformed(format!("referring to constant {reference}")))?;
    let ty = constant.get("type").and_then(Value::as_str).unwrap_or("");
    if ty.starts_with("DECIMAL") {
        // `StreamExecOverAggregate` fails on these.
        return Err(Unsupported::Feature(format!("an OVER bound of type {ty}")));
    }
    let value = match constant.get("value") {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) => s.trim().parse::<i64>().ok(),
        _ => None,
    };
    match value {
        Some(v) if v >= 0 => Ok(v),
        _ => Err(malformed(format!("with constant {constant}"))),
    }
}

#[cfg(test)]
#[path = "over_tests.rs"]
mod tests;
