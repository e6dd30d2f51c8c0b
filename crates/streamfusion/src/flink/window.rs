//! Flink's window aggregation nodes, and the window TVF rows they may read
//! ([`plan_table_function`]): one-phase `stream-exec-window-aggregate_1`
//! (`StreamExecWindowAggregate`) as [`OperatorPlan::WindowAggregate`] (or, over a SESSION
//! window, [`OperatorPlan::SessionWindowAggregate`]), and the two-phase
//! `stream-exec-local-window-aggregate_1` and `stream-exec-global-window-aggregate_1` as
//! [`OperatorPlan::LocalWindowAggregate`] and [`OperatorPlan::GlobalWindowAggregate`].
//!
//! # What is read
//!
//! - `grouping` and `aggCalls`, as for GROUP BY ([`super::aggregate`]); `needRetraction`
//!   must be false (window aggregation over an insert-only input).
//! - `windowing`: strategy `TimeAttribute` on a row time (`isRowtime`), the time column
//!   `timeAttributeIndex`, and the window: `TumblingWindow` (`size`, `offset`),
//!   `HoppingWindow` (`size`, `slide`, `offset`), `CumulativeWindow` (`maxSize`, `step`,
//!   `offset`) or `SessionWindow` (`gap`; its `partition_key_indices` do not matter here,
//!   as the operator is keyed by the grouping), durations in Java's ISO-8601 form (`PT10S`,
//!   `PT0.5S`, `PT-1S`).
//! - `namedWindowProperties`: `WindowStart`, `WindowEnd` and `Rowtime` (`window_time`), in
//!   output order after the calls (not on the local phase).
//! - The global phase: strategy `SliceAttached` with `sliceEnd` the last column of its input
//!   (the local phase's partial row, whose layout the native phases share, see
//!   `aggregate::window_local`); its calls and grouping index `localAggInputRowType`, whose
//!   one `ROWTIME` field is the time column.
//!
//! # Refused (the node stays stock)
//!
//! Processing time, SESSION windows outside the one-phase node, windows attached by a TVF
//! upstream (strategy `WindowAttached`, or `SliceAttached` outside the global phase),
//! FIRST_VALUE/LAST_VALUE/LISTAGG on HOP or CUMULATE (no `merge`), two-phase DISTINCT
//! (Flink's partial carries a `RAW` `MapView`), and whatever GROUP BY refuses. A
//! TIMESTAMP_LTZ time column outside UTC is planned in the session time zone
//! ([`window_zone`]).

use serde_json::Value;

use super::aggregate::{agg_call, compare, index, max_parallelism};
use super::types::row_type;
use super::{FlinkConfig, NodeFields, Result, Unsupported};
use crate::aggregate::GroupAggSpec;
use crate::aggregate::session::SessionWindowAggSpec;
use crate::aggregate::window::{WindowAggSpec, WindowProperty};
use crate::ops::{OperatorPlan, StateConfig};
use crate::types::{LogicalType, RowField};
use crate::window::slices::SliceAssigner;
use crate::window_clock::WindowClock;
use crate::window_table::WindowTableSpec;

/// Which of Flink's window aggregation nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// `stream-exec-window-aggregate_1`.
    OnePhase,
    /// `stream-exec-local-window-aggregate_1`.
    Local,
    /// `stream-exec-global-window-aggregate_1`.
    Global,
}

impl Phase {
    fn node(self) -> &'static str {
        match self {
            Phase::OnePhase => "WindowAggregate",
            Phase::Local => "LocalWindowAggregate",
            Phase::Global => "GlobalWindowAggregate",
        }
    }
}

/// The native plan of the window aggregation `node` (`phase`) over `inputs` (exactly one
/// row type).
pub fn plan(
    phase: Phase,
    node: &Value,
    inputs: &[Vec<RowField>],
    config: &FlinkConfig,
) -> Result<OperatorPlan> {
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
    if field("needRetraction")?.as_bool() != Some(false) {
        return Err(Unsupported::Feature(
            "window aggregation over a retracting input".into(),
        ));
    }
    // The calls' input: the global phase's calls index the local phase's input.
    let (spec_input, raw_input) = match phase {
        Phase::Global => {
            let raw = field("localAggInputRowType")?;
            (row_type(raw)?, Some(raw))
        }
        Phase::OnePhase | Phase::Local => (input.clone(), None),
    };
    let aggregate = aggregate_of(node, phase.node(), &spec_input, config)?;
    let windowing = field("windowing")?;
    let window = window_of(windowing)?;
    let time_column = match phase {
        Phase::OnePhase | Phase::Local => {
            expect_strategy(windowing, "TimeAttribute")?;
            index(
                windowing.get("timeAttributeIndex").ok_or_else(|| {
                    Unsupported::Malformed("windowing without timeAttributeIndex".into())
                })?,
                input.len(),
                "time attribute",
            )?
        }
        Phase::Global => {
            expect_strategy(windowing, "SliceAttached")?;
            let slice_end = index(
                windowing
                    .get("sliceEnd")
                    .ok_or_else(|| Unsupported::Malformed("windowing without sliceEnd".into()))?,
                input.len(),
                "slice end",
            )?;
            if slice_end + 1 != input.len() {
                return Err(Unsupported::Feature(format!(
                    "a slice end in column {slice_end} of {} (the last is expected)",
                    input.len()
                )));
            }
            rowtime_column(raw_input.expect("the global phase reads it above"))?
        }
    };
    let time_zone = window_zone(&spec_input[time_column].ty, config)?;
    let properties = match phase {
        Phase::Local => Vec::new(),
        Phase::OnePhase | Phase::Global => properties_of(field("namedWindowProperties")?)?,
    };
    let plan = match (window, phase) {
        (Windowing::Session { gap }, Phase::OnePhase) => {
            OperatorPlan::SessionWindowAggregate(SessionWindowAggSpec {
                aggregate,
                gap,
                time_column,
                properties,
                legacy: false,
                time_zone,
            })
        }
        (Windowing::Session { .. }, Phase::Local | Phase::Global) => {
            return Err(Unsupported::Feature(format!(
                "SESSION windows in a {}",
                phase.node()
            )));
        }
        (Windowing::Sliced(window), phase) => {
            let spec = WindowAggSpec {
                aggregate,
                window,
                time_column,
                properties,
                time_zone,
                legacy: false,
            };
            match phase {
                Phase::OnePhase => OperatorPlan::WindowAggregate(spec),
                Phase::Local => OperatorPlan::LocalWindowAggregate(spec),
                Phase::Global => OperatorPlan::GlobalWindowAggregate(spec),
            }
        }
    };
    checked(plan, field("outputType")?, input)
}

/// A window node's aggregate over `input` (`node_name` names the node in errors): its
/// `grouping` and `aggCalls`, over an insert-only input without mini-batch or state TTL.
fn aggregate_of(
    node: &Value,
    node_name: &str,
    input: &[RowField],
    config: &FlinkConfig,
) -> Result<GroupAggSpec> {
    let array = |name: &str| {
        node.get(name)
            .ok_or_else(|| Unsupported::Malformed(format!("a {node_name} without \"{name}\"")))?
            .as_array()
            .ok_or_else(|| Unsupported::Malformed(format!("\"{name}\" is not an array")))
    };
    let grouping = array("grouping")?
        .iter()
        .map(|g| index(g, input.len(), "grouping column"))
        .collect::<Result<Vec<_>>>()?;
    let calls = array("aggCalls")?
        .iter()
        .enumerate()
        .map(|(i, call)| agg_call(i, call, input.len()))
        .collect::<Result<Vec<_>>>()?;
    Ok(GroupAggSpec {
        input_names: input.iter().map(|f| f.name.clone()).collect(),
        input_types: input.iter().map(|f| f.ty.clone()).collect(),
        grouping,
        calls,
        input_retracts: false,
        generate_update_before: false,
        mini_batch_rows: None,
        state_ttl: None,
        max_parallelism: max_parallelism(config)?,
    })
}

/// A window node's `namedWindowProperties`.
fn properties_of(properties: &Value) -> Result<Vec<(String, WindowProperty)>> {
    properties
        .as_array()
        .ok_or_else(|| Unsupported::Malformed("\"namedWindowProperties\" is not an array".into()))?
        .iter()
        .map(property)
        .collect()
}

/// `plan`, once its operator builds over `input` and gives the node's `outputType`.
pub(super) fn checked(
    plan: OperatorPlan,
    output_type: &Value,
    input: &[RowField],
) -> Result<OperatorPlan> {
    let output = row_type(output_type)?;
    let operator = plan
        .build(&StateConfig::memory(), None)
        .map_err(|e| Unsupported::Operator(e.to_string()))?;
    compare("input", operator.input_types(0), input)?;
    compare("output", operator.output_types(), &output)?;
    Ok(plan)
}

/// The native plan of a window TVF's rows, `stream-exec-window-table-function_1`
/// (`StreamExecWindowTableFunction`, Flink's `AlignedWindowTableFunctionOperator`), over
/// `inputs` (exactly one row type): `windowing` as for the one-phase aggregate (strategy
/// `TimeAttribute` on a row time, TUMBLE, HOP or CUMULATE), as
/// [`OperatorPlan::WindowTableFunction`]. SESSION rows (`UnalignedWindowTableFunctionOperator`,
/// which buffers rows until their sessions close) stay stock.
pub fn plan_table_function(
    node: &Value,
    inputs: &[Vec<RowField>],
    config: &FlinkConfig,
) -> Result<OperatorPlan> {
    let fields = NodeFields::new(node, "WindowTableFunction");
    let [input] = inputs else {
        return Err(Unsupported::Malformed(format!(
            "a WindowTableFunction has one input, the description has {}",
            inputs.len()
        )));
    };
    let windowing = fields.field("windowing")?;
    expect_strategy(windowing, "TimeAttribute")?;
    let window = match window_of(windowing)? {
        Windowing::Sliced(window) => window,
        Windowing::Session { .. } => {
            return Err(Unsupported::Feature(
                "SESSION window TVF rows (unaligned windows)".into(),
            ));
        }
    };
    let time_column = index(
        windowing
            .get("timeAttributeIndex")
            .ok_or_else(|| Unsupported::Malformed("windowing without timeAttributeIndex".into()))?,
        input.len(),
        "time attribute",
    )?;
    let plan = OperatorPlan::WindowTableFunction(WindowTableSpec {
        input_names: input.iter().map(|f| f.name.clone()).collect(),
        input_types: input.iter().map(|f| f.ty.clone()).collect(),
        time_column,
        window,
        time_zone: window_zone(&input[time_column].ty, config)?,
    });
    checked(plan, fields.field("outputType")?, input)
}

/// The native plan of a legacy group window aggregation `node`
/// (`stream-exec-group-window-aggregate_1`, `GROUP BY k, SESSION(ts, gap)`,
/// `GROUP BY k, TUMBLE(ts, size)` or `GROUP BY k, HOP(ts, slide, size)`) over `inputs`
/// (exactly one row type): an event-time window with early and late firing off and no
/// allowed lateness, as [`OperatorPlan::SessionWindowAggregate`] or
/// [`OperatorPlan::WindowAggregate`] marked `legacy` (restored without a watermark, as
/// Flink's `WindowOperator` is). A legacy HOP accumulates panes of `gcd(size, slide)` and
/// merges a window's panes in time order when it fires (`PanedWindowProcessFunction`), as
/// the sliced HOP does with its slices.
///
/// Read: `grouping` and `aggCalls` as for GROUP BY; `window` (`kind` `SESSION` with `gap`,
/// `TUMBLING` with `size`, or `SLIDING` with `size` and `slide`, and `timeField.fieldIndex`,
/// whose type must be a `ROWTIME`); `namedWindowProperties` (`WindowStart`, `WindowEnd`,
/// `Rowtime`, `Proctime`). Refused: TUMBLE and HOP over TIMESTAMP_LTZ outside UTC (the
/// legacy operator applies rows at once, the sliced one at buffer triggers, which fall off
/// its windows in some zones), row-count and processing-time windows, `table.exec.emit.*`
/// early or late firing, allowed lateness.
pub fn plan_group_window(
    node: &Value,
    inputs: &[Vec<RowField>],
    config: &FlinkConfig,
) -> Result<OperatorPlan> {
    let [input] = inputs else {
        return Err(Unsupported::Malformed(format!(
            "a GroupWindowAggregate has one input, the description has {}",
            inputs.len()
        )));
    };
    let field = |name: &str| {
        node.get(name).ok_or_else(|| {
            Unsupported::Malformed(format!("a GroupWindowAggregate without \"{name}\""))
        })
    };
    if field("needRetraction")?.as_bool() != Some(false) {
        return Err(Unsupported::Feature(
            "group window aggregation over a retracting input".into(),
        ));
    }
    for (key, off) in [
        ("table.exec.emit.early-fire.enabled", "false"),
        ("table.exec.emit.late-fire.enabled", "false"),
        ("table.exec.emit.allow-lateness", "0 ms"),
    ] {
        if let Some(value) = super::option_text(&config.options, key)?
            && value != off
        {
            return Err(Unsupported::Feature(format!("{key} = {value}")));
        }
    }
    let window = field("window")?;
    let duration = |name: &str| {
        window
            .get(name)
            .and_then(Value::as_str)
            .ok_or_else(|| {
                Unsupported::Malformed(format!("a group window without {name}: {window}"))
            })
            .and_then(iso_millis)
    };
    let (kind, length, slide) = match window.get("kind").and_then(Value::as_str) {
        Some(kind @ "SESSION") => (kind, duration("gap")?, None),
        Some(kind @ "TUMBLING") => (kind, duration("size")?, None),
        Some(kind @ "SLIDING") => (kind, duration("size")?, Some(duration("slide")?)),
        Some(kind) => {
            return Err(Unsupported::Feature(format!(
                "a legacy {kind} group window"
            )));
        }
        None => return Err(Unsupported::Malformed(format!("group window {window}"))),
    };
    if length <= 0 || slide.is_some_and(|s| s <= 0) {
        return Err(Unsupported::Feature(format!(
            "a {kind} group window of {length} ms{}",
            slide.map_or(String::new(), |s| format!(" sliding by {s} ms"))
        )));
    }
    let time_field = window.get("timeField").ok_or_else(|| {
        Unsupported::Malformed(format!("a group window without timeField: {window}"))
    })?;
    if time_field
        .get("fieldType")
        .and_then(|t| t.get("kind"))
        .and_then(Value::as_str)
        != Some("ROWTIME")
    {
        return Err(Unsupported::Feature("processing-time windows".into()));
    }
    let time_column = index(
        time_field
            .get("fieldIndex")
            .ok_or_else(|| Unsupported::Malformed("timeField without fieldIndex".into()))?,
        input.len(),
        "time field",
    )?;
    let time_zone = window_zone(&input[time_column].ty, config)?;
    let aggregate = aggregate_of(node, "GroupWindowAggregate", input, config)?;
    let properties = properties_of(field("namedWindowProperties")?)?;
    let plan = if kind == "SESSION" {
        OperatorPlan::SessionWindowAggregate(SessionWindowAggSpec {
            aggregate,
            gap: length,
            time_column,
            properties,
            legacy: true,
            time_zone,
        })
    } else {
        if let Some(zone) = time_zone {
            return Err(Unsupported::Feature(format!(
                "a legacy {kind} group window on a TIMESTAMP_LTZ row time in the session time \
                 zone {zone} (only UTC)"
            )));
        }
        let window = match slide {
            None => SliceAssigner::Tumble {
                size: length,
                offset: 0,
            },
            Some(slide) => SliceAssigner::Hop {
                size: length,
                slide,
                offset: 0,
            },
        };
        OperatorPlan::WindowAggregate(WindowAggSpec {
            aggregate,
            window,
            time_column,
            properties,
            time_zone: None,
            legacy: true,
        })
    };
    checked(plan, field("outputType")?, input)
}

pub(super) fn expect_strategy(windowing: &Value, expected: &str) -> Result<()> {
    let strategy = windowing.get("strategy").and_then(Value::as_str);
    if strategy != Some(expected) {
        return Err(Unsupported::Feature(format!(
            "window strategy {} (windows attached upstream)",
            strategy.unwrap_or("(none)")
        )));
    }
    if windowing.get("isRowtime").and_then(Value::as_bool) != Some(true) {
        return Err(Unsupported::Feature("processing-time windows".into()));
    }
    Ok(())
}

/// The global phase's time column: the local input's one row time field (Flink's JSON
/// keeps the time attribute kind, which the row type it parses to does not).
fn rowtime_column(row: &Value) -> Result<usize> {
    let fields = row
        .get("fields")
        .and_then(Value::as_array)
        .ok_or_else(|| Unsupported::Malformed(format!("localAggInputRowType {row}")))?;
    let rowtimes: Vec<usize> = fields
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.get("fieldType")
                .and_then(|t| t.get("kind"))
                .and_then(Value::as_str)
                == Some("ROWTIME")
        })
        .map(|(i, _)| i)
        .collect();
    match rowtimes.as_slice() {
        [one] => Ok(*one),
        _ => Err(Unsupported::Feature(format!(
            "{} row time fields in the local phase's input (one is expected)",
            rowtimes.len()
        ))),
    }
}

/// The session time zone windows over a time attribute of `time_type` are computed in, for
/// the nodes that follow it ([`crate::window_clock::WindowClock`]): `None` over TIMESTAMP(3)
/// or in UTC.
pub(super) fn window_zone(time_type: &LogicalType, config: &FlinkConfig) -> Result<Option<String>> {
    match time_type {
        LogicalType::TimestampLtz(3) if !is_utc(&config.local_time_zone) => {
            let zone = &config.local_time_zone;
            WindowClock::new(Some(zone)).map_err(|e| Unsupported::Feature(e.to_string()))?;
            Ok(Some(zone.clone()))
        }
        LogicalType::Timestamp(3) | LogicalType::TimestampLtz(3) => Ok(None),
        other => Err(Unsupported::Type {
            ty: other.to_string(),
            why: "a window's row time must be TIMESTAMP(3) or TIMESTAMP_LTZ(3)".into(),
        }),
    }
}

/// A window of the TVFs: sliced (TUMBLE, HOP, CUMULATE) or a SESSION gap.
enum Windowing {
    Sliced(SliceAssigner),
    Session { gap: i64 },
}

/// `windowing`'s window.
fn window_of(windowing: &Value) -> Result<Windowing> {
    let window = windowing
        .get("window")
        .ok_or_else(|| Unsupported::Malformed("windowing without \"window\"".into()))?;
    let millis = |name: &str, required: bool| -> Result<i64> {
        match window.get(name).and_then(Value::as_str) {
            Some(text) => iso_millis(text),
            None if required => Err(Unsupported::Malformed(format!("a window without {name}"))),
            None => Ok(0),
        }
    };
    let assigner = match window.get("type").and_then(Value::as_str) {
        Some("TumblingWindow") => SliceAssigner::Tumble {
            size: millis("size", true)?,
            offset: millis("offset", false)?,
        },
        Some("HoppingWindow") => SliceAssigner::Hop {
            size: millis("size", true)?,
            slide: millis("slide", true)?,
            offset: millis("offset", false)?,
        },
        Some("CumulativeWindow") => SliceAssigner::Cumulate {
            max_size: millis("maxSize", true)?,
            step: millis("step", true)?,
            offset: millis("offset", false)?,
        },
        Some("SessionWindow") => {
            let gap = millis("gap", true)?;
            if gap <= 0 {
                return Err(Unsupported::Feature(format!("a session gap of {gap} ms")));
            }
            return Ok(Windowing::Session { gap });
        }
        Some(other) => return Err(Unsupported::Feature(format!("{other} windows"))),
        None => return Err(Unsupported::Malformed("a window without \"type\"".into())),
    };
    assigner
        .validate()
        .map_err(|e| Unsupported::Feature(e.to_string()))?;
    Ok(Windowing::Sliced(assigner))
}

fn is_utc(zone: &str) -> bool {
    matches!(
        zone,
        "UTC" | "Z" | "Etc/UTC" | "GMT" | "Etc/GMT" | "UTC+00:00" | "+00:00"
    )
}

/// One of `namedWindowProperties`: `{"name": ..., "property": {"kind": ...}}`.
fn property(value: &Value) -> Result<(String, WindowProperty)> {
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| Unsupported::Malformed(format!("window property {value}")))?;
    let kind = value
        .get("property")
        .and_then(|p| p.get("kind"))
        .and_then(Value::as_str);
    let property = match kind {
        Some("WindowStart") => WindowProperty::Start,
        Some("WindowEnd") => WindowProperty::End,
        Some("Rowtime") => WindowProperty::Time,
        Some("Proctime") => WindowProperty::Proctime,
        Some(other) => return Err(Unsupported::Feature(format!("window property {other}"))),
        None => return Err(Unsupported::Malformed(format!("window property {value}"))),
    };
    Ok((name.to_string(), property))
}

/// Milliseconds of a `java.time.Duration` as its `toString` writes it: `PT10S`, `PT0.5S`,
/// `PT1H30M`, `PT-1S`. A part finer than a millisecond is refused, as windows are in
/// milliseconds.
pub fn iso_millis(text: &str) -> Result<i64> {
    let malformed = || Unsupported::Malformed(format!("duration {text:?}"));
    let rest = text.strip_prefix("PT").ok_or_else(malformed)?;
    let mut total: i128 = 0;
    let mut number = String::new();
    for c in rest.chars() {
        match c {
            '0'..='9' | '-' | '.' => number.push(c),
            'H' | 'M' | 'S' => {
                let unit: i128 = match c {
                    'H' => 3_600_000,
                    'M' => 60_000,
                    _ => 1_000,
                };
                let (whole, fraction) = number.split_once('.').unwrap_or((&number, ""));
                let negative = whole.starts_with('-');
                let whole: i128 = whole.parse().map_err(|_| malformed())?;
                let mut part = whole * unit;
                if !fraction.is_empty() {
                    if c != 'S' || fraction.len() > 9 {
                        return Err(malformed());
                    }
                    let nanos: i128 = format!("{fraction:0<9}").parse().map_err(|_| malformed())?;
                    if nanos % 1_000_000 != 0 {
                        return Err(Unsupported::Feature(format!(
                            "a window duration {text} finer than a millisecond"
                        )));
                    }
                    let millis = nanos / 1_000_000;
                    part += if negative { -millis } else { millis };
                }
                total += part;
                number.clear();
            }
            _ => return Err(malformed()),
        }
    }
    if !number.is_empty() {
        return Err(malformed());
    }
    i64::try_from(total).map_err(|_| malformed())
}

#[cfg(test)]
#[path = "window_tests.rs"]
mod tests;
