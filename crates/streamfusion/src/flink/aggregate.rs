//! Flink's GROUP BY nodes as a [`GroupAggSpec`]: `stream-exec-group-aggregate_1`
//! (`StreamExecGroupAggregate`, immediate or mini-batch one-phase) as
//! [`OperatorPlan::GroupAggregate`], `stream-exec-local-group-aggregate_1` as
//! [`OperatorPlan::LocalGroupAggregate`] and `stream-exec-global-group-aggregate_1` as
//! [`OperatorPlan::GlobalGroupAggregate`].
//!
//! # What is read
//!
//! - `grouping`: the grouping columns of the node's input.
//! - `aggCalls` (Flink's `AggregateCall`s, as the optimized plan has them: with `COUNT(x)`,
//!   `SUM(x)` and `AVG(x)` over a retracting input the optimizer plans `COUNT(x)` and
//!   `$SUM0(x)` here and the `CASE`/division in a Calc after it; otherwise AVG stays
//!   `$AVG$1`): `internalName` mapped one to one, `COUNT` with no argument being `COUNT(*)`:
//!
//!   | Flink | native |
//!   |---|---|
//!   | `$COUNT$1` (`argList` `[]` / `[x]`) | `COUNT(*)` / `COUNT` |
//!   | `$SUM$1`, `$$SUM0$1`, `$AVG$1`, `$MIN$1`, `$MAX$1` | `SUM`, `$SUM0`, `AVG`, `MIN`, `MAX` |
//!   | `$FIRST_VALUE$1`, `$LAST_VALUE$1`, `$SINGLE_VALUE$1` | same |
//!   | `$LISTAGG$1` with one argument / two | `LISTAGG` with the default separator / the second argument's column as separator |
//!   | `$$WELFORD_M2$1$1` (STDDEV/VAR, with the division in a Calc after the node) | `$WELFORD_M2` |
//!   | `$ARRAY_AGG$1` (`ignoreNulls` for IGNORE NULLS) | `ARRAY_AGG` |
//!   | `$PERCENTILE$1` with a DOUBLE percentage column | `PERCENTILE` |
//!   | `$JSON_ARRAYAGG_{ABSENT,NULL}_ON_NULL$1`, `$JSON_OBJECTAGG_{NULL,ABSENT}_ON_NULL$1` | the JSON aggregates over JSON text (the planner's `JSON_STRING(v)` before the node) |
//!
//!   `distinct` is kept (retracting MIN/MAX DISTINCT, which the planner does not produce, is
//!   refused when the operator builds); `filterArg` (-1 for none) is the call's `FILTER`
//!   column; `name` is the output column (`EXPR$<i>` when Flink has none).
//! - `needRetraction` is [`GroupAggSpec::input_retracts`]; every entry of
//!   `aggCallNeedRetractions` must equal it (the native operator picks retracting
//!   accumulators for all calls or none).
//! - `generateUpdateBefore` (one-phase and global; the local phase emits partials only).
//! - `state` (`StateMetadata`): the one state's `ttl` (`"0 ms"` is none) is
//!   [`GroupAggSpec::state_ttl`]; the local phase has no state.
//! - The global phase's input is the local phase's partial rows; its calls index
//!   `localAggInputRowType`, which is the spec's input (both phases share one spec).
//!
//! # Options
//!
//! Mini-batch (`table.exec.mini-batch.enabled`, `table.exec.mini-batch.size`) is read from
//! the node's persisted `configuration` first, as Flink's `ExecNodeConfig` does (a compiled
//! plan keeps the values it was planned with), then from `config_json`. When enabled, the size
//! (which must be positive) is [`GroupAggSpec::mini_batch_rows`]; the local and global phases
//! exist only under mini-batch and are refused without it.
//!
//! The max parallelism (number of key groups) is `pipeline.max-parallelism` of `config_json`
//! when present and positive: the planner extension should pass the transformation's
//! effective max parallelism there. Otherwise it is Flink's default for the parallelism
//! `parallelism.default` (1 when absent), as `KeyGroupRangeAssignment
//! .computeDefaultMaxParallelism` computes it: `min(max(roundUpToPowerOfTwo(p + p / 2), 128),
//! 32768)`.
//!
//! # Refused (the node stays stock)
//!
//! An approximate call, `IGNORE NULLS` on a function other than ARRAY_AGG, a function not
//! in the table above (its `internalName`, e.g. `$COLLECT$1`), a per-call retraction
//! flag differing from the node's, several or unknown state entries, and any plan whose
//! native operator does not build or whose input or output types differ from the node's (for
//! the two phases: the partial row, which the exchange between them serializes as Flink's
//! type). Flink lays out some partials otherwise than the native phases: over a retracting
//! input, a MIN/MAX accumulator is one `STRUCTURED` column and DISTINCT views are trailing
//! `RAW` `MapView` columns, so such two-phase plans are refused by their type.

use std::time::Duration;

use serde_json::Value;

use super::types::{logical_type, row_type};
use super::{FlinkConfig, Result, Unsupported, option_text};
use crate::aggregate::{AggCall, AggFunction, GroupAggSpec};
use crate::keys::key_groups::{UPPER_BOUND_MAX_PARALLELISM, default_max_parallelism};
use crate::ops::{OperatorPlan, StateConfig};
use crate::types::RowField;

/// Which of Flink's GROUP BY nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// `stream-exec-group-aggregate_1`.
    OnePhase,
    /// `stream-exec-local-group-aggregate_1`.
    Local,
    /// `stream-exec-global-group-aggregate_1`.
    Global,
}

impl Phase {
    fn node(self) -> &'static str {
        match self {
            Phase::OnePhase => "GroupAggregate",
            Phase::Local => "LocalGroupAggregate",
            Phase::Global => "GlobalGroupAggregate",
        }
    }
}

/// The native plan of the aggregate `node` (`phase`) over `inputs` (exactly one row type).
pub fn plan(
    phase: Phase,
    node: &Value,
    inputs: &[Vec<RowField>],
    config: &FlinkConfig,
) -> Result<OperatorPlan> {
    let spec = spec(phase, node, inputs, config)?;
    let plan = match phase {
        Phase::OnePhase => OperatorPlan::GroupAggregate(spec),
        Phase::Local => OperatorPlan::LocalGroupAggregate(spec),
        Phase::Global => OperatorPlan::GlobalGroupAggregate(spec),
    };
    check_operator(&plan, node, phase, &inputs[0])?;
    Ok(plan)
}

/// The spec `node` describes (not yet checked against the native operator).
pub fn spec(
    phase: Phase,
    node: &Value,
    inputs: &[Vec<RowField>],
    config: &FlinkConfig,
) -> Result<GroupAggSpec> {
    let [input] = inputs else {
        return Err(Unsupported::Malformed(format!(
            "a {} has one input, the description has {}",
            phase.node(),
            inputs.len()
        )));
    };
    let field = |name: &str| {
        node.get(name)
            .ok_or_else(|| Unsupported::Malformed(format!("a {} without \"{name}\"", phase.node())))
    };
    let bool_field = |name: &str| {
        field(name)?.as_bool().ok_or_else(|| {
            Unsupported::Malformed(format!("{} \"{name}\" is not a boolean", phase.node()))
        })
    };
    // The spec's input: the global phase's calls index the local phase's input.
    let spec_input = match phase {
        Phase::Global => row_type(field("localAggInputRowType")?)?,
        Phase::OnePhase | Phase::Local => input.clone(),
    };
    let grouping = field("grouping")?
        .as_array()
        .ok_or_else(|| Unsupported::Malformed("\"grouping\" is not an array".into()))?
        .iter()
        .map(|g| index(g, spec_input.len(), "grouping column"))
        .collect::<Result<Vec<_>>>()?;
    let input_retracts = bool_field("needRetraction")?;
    let calls_json = field("aggCalls")?
        .as_array()
        .ok_or_else(|| Unsupported::Malformed("\"aggCalls\" is not an array".into()))?;
    let retractions = field("aggCallNeedRetractions")?.as_array().ok_or_else(|| {
        Unsupported::Malformed("\"aggCallNeedRetractions\" is not an array".into())
    })?;
    if retractions.len() != calls_json.len() {
        return Err(Unsupported::Malformed(format!(
            "{} aggCallNeedRetractions for {} aggCalls",
            retractions.len(),
            calls_json.len()
        )));
    }
    let mut calls = Vec::with_capacity(calls_json.len());
    for (i, (call, retract)) in calls_json.iter().zip(retractions).enumerate() {
        let call = agg_call(i, call, spec_input.len())?;
        if retract.as_bool() != Some(input_retracts) {
            return Err(Unsupported::Call {
                function: flink_name(&calls_json[i]),
                why: format!(
                    "with aggCallNeedRetractions {retract} on a node with needRetraction \
                     {input_retracts}"
                ),
            });
        }
        calls.push(call);
    }
    let generate_update_before = match phase {
        Phase::Local => false,
        Phase::OnePhase | Phase::Global => bool_field("generateUpdateBefore")?,
    };
    let state_ttl = match phase {
        Phase::Local => None,
        Phase::OnePhase | Phase::Global => state_ttl(field("state")?)?,
    };
    let mini_batch_rows = mini_batch(node, config)?;
    if phase != Phase::OnePhase && mini_batch_rows.is_none() {
        return Err(Unsupported::Feature(format!(
            "a {} without table.exec.mini-batch.enabled",
            phase.node()
        )));
    }
    Ok(GroupAggSpec {
        input_names: spec_input.iter().map(|f| f.name.clone()).collect(),
        input_types: spec_input.iter().map(|f| f.ty.clone()).collect(),
        grouping,
        calls,
        input_retracts,
        generate_update_before,
        mini_batch_rows,
        state_ttl,
        max_parallelism: max_parallelism(config)?,
    })
}

/// The call's `internalName` (or its name) for messages.
fn flink_name(call: &Value) -> String {
    call.get("internalName")
        .or_else(|| call.get("systemName"))
        .and_then(Value::as_str)
        .unwrap_or("an aggregate call")
        .to_string()
}

pub(super) fn index(value: &Value, len: usize, what: &str) -> Result<usize> {
    value
        .as_u64()
        .and_then(|i| usize::try_from(i).ok())
        .filter(|&i| i < len)
        .ok_or_else(|| Unsupported::Malformed(format!("{what} {value} of {len} input columns")))
}

/// One of Flink's `AggregateCall`s (`AggregateCallJsonSerializer`), call `i` of the node.
pub(super) fn agg_call(i: usize, call: &Value, columns: usize) -> Result<AggCall> {
    let function_name = call
        .get("internalName")
        .and_then(Value::as_str)
        .ok_or_else(|| match call.get("systemName").and_then(Value::as_str) {
            // A catalog or user-defined function.
            Some(system) => Unsupported::Function(system.to_string()),
            None => Unsupported::Malformed(format!("aggregate call {i} without internalName")),
        })?;
    let refuse = |why: String| Unsupported::Call {
        function: function_name.to_string(),
        why,
    };
    let args = call
        .get("argList")
        .and_then(Value::as_array)
        .ok_or_else(|| Unsupported::Malformed(format!("{function_name} without \"argList\"")))?
        .iter()
        .map(|a| index(a, columns, "argument column"))
        .collect::<Result<Vec<_>>>()?;
    // -1: no FILTER.
    let filter = match call.get("filterArg").and_then(Value::as_i64).unwrap_or(-1) {
        f if f >= 0 => Some(index(&Value::from(f), columns, "FILTER column")?),
        _ => None,
    };
    let flag = |name: &str| call.get(name).and_then(Value::as_bool).unwrap_or(false);
    if flag("approximate") {
        return Err(refuse("approximate".into()));
    }
    let ignore_nulls = flag("ignoreNulls");
    if ignore_nulls && function_name != "$ARRAY_AGG$1" {
        return Err(refuse("with IGNORE NULLS".into()));
    }
    let distinct = flag("distinct");
    let (function, arity) = match function_name {
        "$COUNT$1" if args.is_empty() => (AggFunction::CountStar, 0),
        "$COUNT$1" => (AggFunction::Count, 1),
        "$SUM$1" => (AggFunction::Sum, 1),
        // Calcite's `$SUM0` is named `$SUM0`, hence two dollars.
        "$$SUM0$1" => (AggFunction::Sum0, 1),
        "$AVG$1" => (AggFunction::Avg, 1),
        "$MIN$1" => (AggFunction::Min, 1),
        "$MAX$1" => (AggFunction::Max, 1),
        "$FIRST_VALUE$1" => (AggFunction::FirstValue, 1),
        "$LAST_VALUE$1" => (AggFunction::LastValue, 1),
        "$SINGLE_VALUE$1" => (AggFunction::SingleValue, 1),
        // The separator is a column of the node's input (the Calc before projects it).
        "$LISTAGG$1" if args.len() == 2 => (AggFunction::ListAgg, 2),
        "$LISTAGG$1" => (AggFunction::ListAgg, 1),
        "$$WELFORD_M2$1$1" => (AggFunction::WelfordM2, 1),
        "$ARRAY_AGG$1" => (AggFunction::ArrayAgg, 1),
        // The percentage is a column (the Calc before projects the literal): one DOUBLE
        // percentage or an ARRAY of them, then an optional integer frequency column. (An
        // OVER node's percentage is a constant: its call comes here without it, see
        // `super::over`.)
        "$PERCENTILE$1" if args.len() == 1 => (AggFunction::Percentile, 1),
        "$PERCENTILE$1" if args.len() == 3 => (AggFunction::Percentile, 3),
        "$PERCENTILE$1" => (AggFunction::Percentile, 2),
        // The planner wraps the value in `JSON_STRING` (the Calc before the node), so the
        // column holds JSON text.
        "$JSON_ARRAYAGG_ABSENT_ON_NULL$1" => (AggFunction::JsonArrayAggAbsentOnNull, 1),
        "$JSON_ARRAYAGG_NULL_ON_NULL$1" => (AggFunction::JsonArrayAggNullOnNull, 1),
        "$JSON_OBJECTAGG_NULL_ON_NULL$1" => (AggFunction::JsonObjectAggNullOnNull, 2),
        "$JSON_OBJECTAGG_ABSENT_ON_NULL$1" => (AggFunction::JsonObjectAggAbsentOnNull, 2),
        other => return Err(Unsupported::Function(other.to_string())),
    };
    if args.len() != arity {
        return Err(refuse(format!("with {} arguments", args.len())));
    }
    // The planner drops DISTINCT from MIN/MAX; SINGLE_VALUE is never written DISTINCT.
    if distinct && matches!(function, AggFunction::SingleValue) {
        return Err(refuse("with DISTINCT".into()));
    }
    let name = match call.get("name") {
        Some(Value::String(name)) => name.clone(),
        _ => format!("EXPR${i}"),
    };
    // The declared result type must be one Flink's type parser reads (the operator's own
    // output types are compared with the node's `outputType`).
    if let Some(ty) = call.get("type") {
        logical_type(ty)?;
    }
    let mut native = AggCall::new(function, args.first().copied(), name);
    native.distinct = distinct;
    native.filter = filter;
    native.ignore_nulls = ignore_nulls;
    native.value_arg = args.get(1).copied();
    if function == AggFunction::Percentile {
        native.frequency = args.get(2).copied();
    }
    native.json_text = matches!(
        function,
        AggFunction::JsonArrayAggAbsentOnNull
            | AggFunction::JsonArrayAggNullOnNull
            | AggFunction::JsonObjectAggNullOnNull
            | AggFunction::JsonObjectAggAbsentOnNull
    );
    Ok(native)
}

/// The TTL of the node's one state (`StateMetadata`); `"0 ms"` is none.
pub(super) fn state_ttl(state: &Value) -> Result<Option<Duration>> {
    let entries = state
        .as_array()
        .ok_or_else(|| Unsupported::Malformed("\"state\" is not an array".into()))?;
    let [entry] = entries.as_slice() else {
        return Err(Unsupported::Feature(format!(
            "{} state entries (one is supported)",
            entries.len()
        )));
    };
    if entry.get("index").and_then(Value::as_u64) != Some(0) {
        return Err(Unsupported::Malformed(format!("state entry {entry}")));
    }
    let ttl = entry
        .get("ttl")
        .and_then(Value::as_str)
        .ok_or_else(|| Unsupported::Malformed(format!("state entry without \"ttl\": {entry}")))?;
    let ttl = parse_duration(ttl)?;
    Ok((!ttl.is_zero()).then_some(ttl))
}

/// A duration as Flink's `TimeUtils.parseDuration` reads it (`"0 ms"`, `"1 h"`, `"90 s"`).
pub fn parse_duration(text: &str) -> Result<Duration> {
    let malformed = || Unsupported::Malformed(format!("duration {text:?}"));
    let trimmed = text.trim();
    let digits = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let amount: u64 = trimmed[..digits].parse().map_err(|_| malformed())?;
    let unit = trimmed[digits..].trim().to_ascii_lowercase();
    let nanos_per: u64 = match unit.as_str() {
        "ns" | "nano" | "nanos" | "nanosecond" | "nanoseconds" => 1,
        "µs" | "us" | "micro" | "micros" | "microsecond" | "microseconds" => 1_000,
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => 1_000_000,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000_000_000,
        "m" | "min" | "minute" | "minutes" => 60_000_000_000,
        "h" | "hour" | "hours" => 3_600_000_000_000,
        "d" | "day" | "days" => 86_400_000_000_000,
        _ => return Err(malformed()),
    };
    let nanos = amount.checked_mul(nanos_per).ok_or_else(malformed)?;
    Ok(Duration::from_nanos(nanos))
}

/// A mini-batch option: the node's persisted value, else the given one.
pub(super) fn node_option(node: &Value, config: &FlinkConfig, key: &str) -> Result<Option<String>> {
    if let Some(persisted) = node.get("configuration").and_then(Value::as_object)
        && let Some(value) = option_text(persisted, key)?
    {
        return Ok(Some(value));
    }
    option_text(&config.options, key)
}

pub(super) fn mini_batch(node: &Value, config: &FlinkConfig) -> Result<Option<usize>> {
    let enabled = node_option(node, config, "table.exec.mini-batch.enabled")?;
    let enabled = match enabled.as_deref().map(str::to_ascii_lowercase).as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(Unsupported::Malformed(format!(
                "table.exec.mini-batch.enabled = {other}"
            )));
        }
    };
    if !enabled {
        return Ok(None);
    }
    let size = node_option(node, config, "table.exec.mini-batch.size")?;
    match size.as_deref().map(str::parse::<i64>) {
        Some(Ok(rows)) if rows > 0 => {
            Ok(Some(usize::try_from(rows).map_err(|_| {
                Unsupported::Feature(format!("table.exec.mini-batch.size = {rows}"))
            })?))
        }
        // Flink refuses a mini-batch without a positive size at planning too.
        _ => Err(Unsupported::Feature(format!(
            "table.exec.mini-batch.size = {} with mini-batch enabled",
            size.as_deref().unwrap_or("(unset)")
        ))),
    }
}

fn positive(config: &FlinkConfig, key: &str) -> Result<Option<u32>> {
    let Some(text) = option_text(&config.options, key)? else {
        return Ok(None);
    };
    let value: i64 = text
        .parse()
        .map_err(|_| Unsupported::Malformed(format!("option {key} = {text}")))?;
    if value <= 0 {
        // Flink's "not set" (-1).
        return Ok(None);
    }
    u32::try_from(value)
        .map(Some)
        .map_err(|_| Unsupported::Malformed(format!("option {key} = {text}")))
}

/// `pipeline.max-parallelism`, else Flink's default for `parallelism.default`.
pub fn max_parallelism(config: &FlinkConfig) -> Result<u32> {
    if let Some(max) = positive(config, "pipeline.max-parallelism")? {
        if max > UPPER_BOUND_MAX_PARALLELISM {
            return Err(Unsupported::Feature(format!(
                "pipeline.max-parallelism = {max} (at most {UPPER_BOUND_MAX_PARALLELISM})"
            )));
        }
        return Ok(max);
    }
    let parallelism = positive(config, "parallelism.default")?.unwrap_or(1);
    Ok(default_max_parallelism(parallelism))
}

/// The operator must build, read the node's input (for the global phase: the local phase's
/// partial rows) and produce the node's `outputType`.
fn check_operator(
    plan: &OperatorPlan,
    node: &Value,
    phase: Phase,
    input: &[RowField],
) -> Result<()> {
    let output = row_type(node.get("outputType").ok_or_else(|| {
        Unsupported::Malformed(format!("a {} without \"outputType\"", phase.node()))
    })?)?;
    let operator = plan
        .build(&StateConfig::memory(), None)
        .map_err(|e| Unsupported::Operator(e.to_string()))?;
    compare("input", operator.input_types(0), input)?;
    compare("output", operator.output_types(), &output)
}

/// The native columns' types must be Flink's, column by column.
pub(super) fn compare(
    what: &str,
    native: &[crate::types::LogicalType],
    output: &[RowField],
) -> Result<()> {
    if native.len() != output.len() {
        return Err(Unsupported::Operator(format!(
            "{} {what} columns natively, {} in Flink ({})",
            native.len(),
            output.len(),
            output
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    for (native, field) in native.iter().zip(output) {
        if native != &field.ty {
            return Err(Unsupported::ResultType {
                function: format!("{what} field {}", field.name),
                native: native.to_string(),
                flink: field.ty.to_string(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "aggregate_tests.rs"]
mod tests;
