//! Flink's own description of a plan node, read into a native [`OperatorPlan`].
//!
//! The planner extension (`java/src/org/streamfusion/flink/StreamFusionPlanner.java`) hands
//! over each node it would replace as Flink's compiled-plan JSON of that node, exactly what
//! `CompiledPlanSerdeUtil.createJsonObjectWriter(planner.createSerdeContext())` writes for it
//! (the text `COMPILE PLAN` embeds), plus its inputs' row types and the effective table
//! options the node depends on. [`plan_node`] answers with the native plan, or with
//! [`Unsupported`] naming the Flink function, type or feature that stops it: the node then
//! stays stock. Nothing is approximated: a call is mapped only to the registry function with
//! Flink's semantics, the program is compiled before it is accepted (so a function or cast the
//! engine cannot run is refused at plan time, not at run time), and every call's native result
//! type must equal the type Flink declared for it.
//!
//! # Input
//!
//! `node_json`: `{"node": <the node>, "inputs": [<row type of input 0>, ...]}`. Flink's JSON
//! of a node omits its input types (a plan keeps them on the edges), hence `inputs`, each
//! serialized by the same writer (`"ROW<`a` INT, `b` VARCHAR(20)>"`, or the object form Flink
//! uses for types without a SQL spelling).
//!
//! `config_json`: the effective values of the options by Flink key, or empty/`null` for
//! Flink's defaults. Read here: `table.exec.legacy-cast-behaviour` (`ENABLED`/`DISABLED`) and
//! `table.local-time-zone` (a zone id, already resolved from `default`), and the planner's JVM's
//! `java.specification.version` (JDK 18 and older print FLOAT/DOUBLE differently, see
//! [`FloatText`]; absent means JDK 19 or later; the fdlibm functions are native only for a
//! JDK known to run them as fdlibm, see [`rex`]); `streamfusion.upcalls` (`true`: a Calc
//! call without a native equivalent becomes an upcall the JVM evaluates, see
//! [`rex::RexReader::with_upcalls`]; absent means `false`); the aggregate nodes
//! also read `table.exec.mini-batch.enabled`/`.size`, `pipeline.max-parallelism` and
//! `parallelism.default` (see [`aggregate`]), the deduplicate node two options of its own
//! (see [`deduplicate`]), the OVER node `table.exec.state.ttl` (see [`over`]); other keys
//! are ignored. Values are strings (numbers are accepted for the numeric ones).
//!
//! # Nodes
//!
//! - `stream-exec-calc_1` ([`calc`]): projections and an optional condition over one input,
//!   RexNodes read by [`rex`], types by [`types`].
//! - `stream-exec-group-aggregate_1` (immediate and mini-batch one-phase),
//!   `stream-exec-local-group-aggregate_1` and `stream-exec-global-group-aggregate_1`
//!   ([`aggregate`]): GROUP BY with Flink's AggregateCalls, as
//!   [`OperatorPlan::GroupAggregate`], [`OperatorPlan::LocalGroupAggregate`] and
//!   [`OperatorPlan::GlobalGroupAggregate`].
//! - `stream-exec-window-aggregate_1`, `stream-exec-local-window-aggregate_1` and
//!   `stream-exec-global-window-aggregate_1` ([`window`]): window aggregation over TUMBLE, HOP
//!   and CUMULATE in event time, one- or two-phase, and SESSION in one phase;
//!   `stream-exec-group-window-aggregate_1` ([`window::plan_group_window`]): the legacy
//!   `GROUP BY k, SESSION(ts, gap)` group window.
//! - `stream-exec-deduplicate_1` ([`deduplicate`]): keep the first or last row per key, on
//!   processing or event time, immediate or mini-batch, as [`OperatorPlan::Deduplicate`].
//! - `stream-exec-rank_1` ([`rank`]): Top-N (`ROW_NUMBER() <= N` per partition) over an
//!   insert-only input, as [`OperatorPlan::Rank`].
//! - `stream-exec-window-table-function_1` ([`window::plan_table_function`]): the window
//!   TVFs' rows (TUMBLE, HOP, CUMULATE in event time), as [`OperatorPlan::WindowTableFunction`].
//! - `stream-exec-window-rank_1` and `stream-exec-window-deduplicate_1` ([`window_rank`]):
//!   window Top-N and window deduplication over an attached window, in event time, as
//!   [`OperatorPlan::WindowRank`].
//! - `stream-exec-over-aggregate_1` ([`over`]): OVER aggregation ordered by a rowtime
//!   attribute, ROWS or RANGE frames, bounded or unbounded preceding, as
//!   [`OperatorPlan::OverAggregate`].
//! - `stream-exec-temporal-sort_1` ([`sort`]): `ORDER BY rowtime, ...` on a stream, as
//!   [`OperatorPlan::TemporalSort`].
//! - `stream-exec-window-join_1` ([`window_join`]): a window join (INNER, LEFT, RIGHT,
//!   FULL, SEMI, ANTI) over attached windows in event time, as [`OperatorPlan::WindowJoin`].
//! - `stream-exec-interval-join_1` ([`interval_join`]): an event-time interval join (INNER,
//!   LEFT, RIGHT, FULL) of a non-negative interval, as [`OperatorPlan::IntervalJoin`].
//! - `stream-exec-temporal-join_1` ([`temporal_join`]): an event-time temporal join (INNER,
//!   LEFT), under the session's state TTL too, as [`OperatorPlan::TemporalJoin`]; a temporal
//!   table function's join in processing time as [`OperatorPlan::ProcTimeTemporalJoin`].
//! - `stream-exec-join_1` ([`join`]): a regular join (INNER, LEFT, RIGHT, FULL, SEMI, ANTI)
//!   on equi-keys with an optional non-equi condition, as [`OperatorPlan::Join`].

pub mod aggregate;
pub mod calc;
pub mod deduplicate;
pub mod interval_join;
pub mod join;
pub mod over;
pub mod rank;
pub mod rex;
pub mod sort;
pub mod temporal_join;
pub mod types;
pub mod window;
pub mod window_join;
pub mod window_rank;

use serde_json::Value;

use crate::calc::{FloatText, java_feature_version};
use crate::ops::OperatorPlan;

/// Why a Flink node cannot run natively. The message names what Flink calls the obstacle
/// (`$PARSE_URL$1`, `INTERVAL DAY(2) TO SECOND(3)`), so the planner's log line is actionable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsupported {
    /// A node type (with version) no native operator implements.
    #[error("node type {0} is not supported")]
    NodeType(String),
    /// A function (Flink's internal name) with no native equivalent.
    #[error("function {0} is not supported")]
    Function(String),
    /// A function used in a shape the native one does not take (arguments, symbols).
    #[error("function {function} is not supported {why}")]
    Call {
        /// Flink's internal name of the function.
        function: String,
        /// What about the call is not supported.
        why: String,
    },
    /// A type (Flink's serialized spelling) without a native representation.
    #[error("type {ty} is not supported: {why}")]
    Type {
        /// The type as Flink serialized it.
        ty: String,
        /// Why it is not supported.
        why: String,
    },
    /// A RexNode kind or literal form that is not supported.
    #[error("{0} is not supported")]
    Feature(String),
    /// A call whose native result type differs from the type Flink declared for it.
    #[error(
        "function {function} returns {native} natively but {flink} in Flink, so its values \
         could differ"
    )]
    ResultType {
        /// Flink's internal name of the function (or the node part).
        function: String,
        /// The native result type.
        native: String,
        /// Flink's declared type.
        flink: String,
    },
    /// The native program does not compile (a function or cast the engine cannot run).
    #[error("the native program does not compile: {0}")]
    Compile(String),
    /// The native operator refuses the plan it was given (its own planning check).
    #[error("the native operator refuses the plan: {0}")]
    Operator(String),
    /// The JSON is not what Flink 2.3.0 writes.
    #[error("malformed Flink plan JSON: {0}")]
    Malformed(String),
}

/// `Result` with [`Unsupported`].
pub type Result<T, E = Unsupported> = std::result::Result<T, E>;

/// The effective table options a node depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlinkConfig {
    /// `table.exec.legacy-cast-behaviour` is `ENABLED`: failing casts give NULL.
    pub legacy_cast_behaviour: bool,
    /// `table.local-time-zone`, resolved to a zone id.
    pub local_time_zone: String,
    /// How the job's JVM prints FLOAT/DOUBLE, by its `java.specification.version`.
    pub float_text: FloatText,
    /// The feature release of the job's JVM (`java.specification.version`), when given.
    pub java_version: Option<u32>,
    /// `streamfusion.upcalls`: a Calc call without a native equivalent is evaluated by the
    /// JVM ([`rex::RexReader::with_upcalls`]) instead of keeping the node stock.
    pub upcalls: bool,
    /// Every option as given, by Flink key, for the nodes that read further ones.
    pub options: serde_json::Map<String, Value>,
}

impl Default for FlinkConfig {
    fn default() -> Self {
        Self {
            legacy_cast_behaviour: false,
            local_time_zone: "UTC".into(),
            float_text: FloatText::Shortest,
            java_version: None,
            upcalls: false,
            options: serde_json::Map::new(),
        }
    }
}

impl FlinkConfig {
    /// The options in `json` (see the module documentation); `None`, empty or `null` is
    /// Flink's defaults.
    pub fn from_json(json: Option<&str>) -> Result<Self> {
        let mut config = Self::default();
        let Some(json) = json.map(str::trim).filter(|j| !j.is_empty()) else {
            return Ok(config);
        };
        let value: Value = serde_json::from_str(json)
            .map_err(|e| Unsupported::Malformed(format!("options: {e}")))?;
        if value.is_null() {
            return Ok(config);
        }
        let options = value
            .as_object()
            .ok_or_else(|| Unsupported::Malformed(format!("options must be an object: {value}")))?;
        if let Some(legacy) = option_text(options, "table.exec.legacy-cast-behaviour")? {
            config.legacy_cast_behaviour = match legacy.to_ascii_uppercase().as_str() {
                "ENABLED" => true,
                "DISABLED" => false,
                other => {
                    return Err(Unsupported::Feature(format!(
                        "table.exec.legacy-cast-behaviour = {other}"
                    )));
                }
            };
        }
        if let Some(zone) = option_text(options, "table.local-time-zone")? {
            config.local_time_zone = zone;
        }
        if let Some(version) = option_text(options, "java.specification.version")? {
            let malformed =
                || Unsupported::Malformed(format!("java.specification.version = {version}"));
            config.float_text = FloatText::of_java_version(&version).ok_or_else(malformed)?;
            config.java_version = Some(java_feature_version(&version).ok_or_else(malformed)?);
        }
        if let Some(upcalls) = option_text(options, "streamfusion.upcalls")? {
            config.upcalls = match upcalls.to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                other => {
                    return Err(Unsupported::Malformed(format!(
                        "streamfusion.upcalls = {other}"
                    )));
                }
            };
        }
        config.options = options.clone();
        Ok(config)
    }
}

/// The option `key` of `options` as text (Flink's options are strings; numbers and booleans
/// are accepted as their text), `None` when absent.
pub(crate) fn option_text(
    options: &serde_json::Map<String, Value>,
    key: &str,
) -> Result<Option<String>> {
    match options.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(Value::Bool(b)) => Ok(Some(b.to_string())),
        Some(other) => Err(Unsupported::Malformed(format!(
            "option {key} must be a string, got {other}"
        ))),
    }
}

/// The time attribute kind (`ROWTIME`, `PROCTIME`) of field `column` of a row type in
/// Flink's JSON, which keeps it (the parsed row type does not).
pub(crate) fn time_kind(row: &Value, column: usize) -> Option<&str> {
    row.get("fields")?
        .as_array()?
        .get(column)?
        .get("fieldType")?
        .get("kind")?
        .as_str()
}

/// A node's fields, read with errors that name the node type.
pub(crate) struct NodeFields<'a> {
    node: &'a Value,
    node_type: &'static str,
}

impl<'a> NodeFields<'a> {
    pub(crate) fn new(node: &'a Value, node_type: &'static str) -> Self {
        Self { node, node_type }
    }

    /// Field `name`, which must be there.
    pub(crate) fn field(&self, name: &str) -> Result<&'a Value> {
        self.node.get(name).ok_or_else(|| {
            Unsupported::Malformed(format!("a {} without \"{name}\"", self.node_type))
        })
    }

    /// Boolean field `name`.
    pub(crate) fn flag(&self, name: &str) -> Result<bool> {
        self.field(name)?.as_bool().ok_or_else(|| {
            Unsupported::Malformed(format!("{} \"{name}\" is not a boolean", self.node_type))
        })
    }

    /// The one input of a one-input node: its parsed row type and Flink's JSON of it.
    pub(crate) fn one_input<'i>(
        &self,
        inputs: &'i [Vec<crate::types::RowField>],
        raw_inputs: &'i [Value],
    ) -> Result<(&'i [crate::types::RowField], &'i Value)> {
        match (inputs, raw_inputs) {
            ([input], [raw]) => Ok((input, raw)),
            _ => Err(Unsupported::Malformed(format!(
                "a {} has one input, the description has {}",
                self.node_type,
                inputs.len()
            ))),
        }
    }
}

/// The native plan of one Flink node (see the module documentation for the inputs).
pub fn plan_node(node_json: &str, config_json: Option<&str>) -> Result<OperatorPlan> {
    let config = FlinkConfig::from_json(config_json)?;
    let description: Value = serde_json::from_str(node_json)
        .map_err(|e| Unsupported::Malformed(format!("node description: {e}")))?;
    let node = description
        .get("node")
        .filter(|n| n.is_object())
        .ok_or_else(|| Unsupported::Malformed("the description has no \"node\" object".into()))?;
    let raw_inputs = description
        .get("inputs")
        .and_then(Value::as_array)
        .ok_or_else(|| Unsupported::Malformed("the description has no \"inputs\" array".into()))?;
    let inputs = raw_inputs
        .iter()
        .map(types::row_type)
        .collect::<Result<Vec<_>>>()?;
    let node_type = node
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| Unsupported::Malformed("the node has no \"type\"".into()))?;
    match node_type {
        "stream-exec-calc_1" => calc::plan(node, &inputs, &config),
        "stream-exec-group-aggregate_1" => {
            aggregate::plan(aggregate::Phase::OnePhase, node, &inputs, &config)
        }
        "stream-exec-local-group-aggregate_1" => {
            aggregate::plan(aggregate::Phase::Local, node, &inputs, &config)
        }
        "stream-exec-global-group-aggregate_1" => {
            aggregate::plan(aggregate::Phase::Global, node, &inputs, &config)
        }
        "stream-exec-window-aggregate_1" => {
            window::plan(window::Phase::OnePhase, node, &inputs, &config)
        }
        "stream-exec-local-window-aggregate_1" => {
            window::plan(window::Phase::Local, node, &inputs, &config)
        }
        "stream-exec-global-window-aggregate_1" => {
            window::plan(window::Phase::Global, node, &inputs, &config)
        }
        "stream-exec-group-window-aggregate_1" => window::plan_group_window(node, &inputs, &config),
        "stream-exec-deduplicate_1" => deduplicate::plan(node, &inputs, raw_inputs, &config),
        "stream-exec-rank_1" => rank::plan(node, &inputs, raw_inputs, &config),
        "stream-exec-window-table-function_1" => {
            window::plan_table_function(node, &inputs, &config)
        }
        "stream-exec-window-rank_1" => window_rank::plan_rank(node, &inputs, &config),
        "stream-exec-window-deduplicate_1" => window_rank::plan_deduplicate(node, &inputs, &config),
        "stream-exec-over-aggregate_1" => over::plan(node, &inputs, raw_inputs, &config),
        "stream-exec-temporal-sort_1" => sort::plan(node, &inputs, raw_inputs, &config),
        "stream-exec-join_1" => join::plan(node, &inputs, &config),
        "stream-exec-window-join_1" => window_join::plan(node, &inputs, &config),
        "stream-exec-interval-join_1" => interval_join::plan(node, &inputs, &config),
        "stream-exec-temporal-join_1" => temporal_join::plan(node, &inputs, &config),
        other => Err(Unsupported::NodeType(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_default_to_flinks_and_unknown_keys_are_ignored() {
        assert_eq!(
            FlinkConfig::from_json(None).unwrap(),
            FlinkConfig::default()
        );
        assert_eq!(
            FlinkConfig::from_json(Some("null")).unwrap(),
            FlinkConfig::default()
        );
        let config = FlinkConfig::from_json(Some(
            r#"{"table.exec.legacy-cast-behaviour": "ENABLED",
                "table.local-time-zone": "Asia/Shanghai", "table.exec.state.ttl": "0 ms"}"#,
        ))
        .unwrap();
        assert!(config.legacy_cast_behaviour);
        assert_eq!(config.local_time_zone, "Asia/Shanghai");
        let bad =
            FlinkConfig::from_json(Some(r#"{"table.local-time-zone": ["UTC"]}"#)).unwrap_err();
        assert!(bad.to_string().contains("table.local-time-zone"), "{bad}");
    }

    #[test]
    fn other_node_types_and_malformed_descriptions_are_refused_by_name() {
        let err = plan_node(
            r#"{"node": {"id": 3, "type": "stream-exec-match_1"}, "inputs": []}"#,
            None,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "node type stream-exec-match_1 is not supported"
        );
        let err = plan_node("{]", None).unwrap_err();
        assert!(matches!(err, Unsupported::Malformed(_)), "{err:?}");
        let err = plan_node(r#"{"node": {"type": "stream-exec-calc_1"}}"#, None).unwrap_err();
        assert!(err.to_string().contains("inputs"), "{err}");
    }
}
