//! [`OperatorPlan`]: the serializable description of any native operator, and the one place
//! an operator is built or restored from it.
//!
//! A plan is JSON with the operator's kind in `"operator"` and its own fields beside it:
//!
//! ```json
//! {"operator": "calc", "input": ["BIGINT", "INT"],
//!  "calc": {"projection": [{"input": 1}, {"input": 0}]}}
//! {"operator": "group_aggregate", "input_names": ["k", "v"], "input_types": ["BIGINT", "INT"],
//!  "grouping": [0], "calls": [{"function": "SUM", "arg": 1, "name": "s"}],
//!  "input_retracts": false, "generate_update_before": true, "mini_batch_rows": null,
//!  "state_ttl_ms": null, "max_parallelism": 128}
//! ```
//!
//! `local_group_aggregate` and `global_group_aggregate` take the GROUP BY's fields too;
//! `window_aggregate`, `local_window_aggregate` and `global_window_aggregate` take a
//! [`WindowAggSpec`]; `deduplicate` a [`DedupSpec`]; `rank` a [`RankSpec`]; `window_rank`
//! a [`WindowRankSpec`]; `window_table_function` a [`WindowTableSpec`];
//! `over_aggregate` an [`OverSpec`]; `temporal_sort` a [`TemporalSortSpec`]; `join` a
//! [`JoinSpec`]; `window_join` a [`WindowJoinSpec`]; `interval_join` an
//! [`IntervalJoinSpec`]; `temporal_join` a [`TemporalJoinSpec`];
//! `proctime_temporal_join` a [`ProcTimeTemporalJoinSpec`]. A new operator
//! adds its variant here and one arm in [`OperatorPlan::build`] and
//! [`OperatorPlan::restore`].

use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};

use super::calc::CalcOperator;
use super::keyed::{Keyed, KeyedOperator, all_key_groups};
use super::restore::StateConfig;
use super::{Operator, OperatorKind};
use crate::aggregate::over::{OverAggregate, OverSpec};
use crate::aggregate::session::{SessionWindowAggSpec, SessionWindowAggregate};
use crate::aggregate::window::{WindowAggSpec, WindowAggregate};
use crate::aggregate::window_local::LocalWindowAggregate;
use crate::aggregate::{GlobalGroupAggregate, GroupAggSpec, GroupAggregate, LocalGroupAggregate};
use crate::calc::CalcProgram;
use crate::deduplicate::{DedupSpec, Deduplicate};
use crate::error::{Error, ErrorKind, Result};
use crate::join::interval::{IntervalJoin, IntervalJoinSpec};
use crate::join::temporal::{TemporalJoin, TemporalJoinSpec};
use crate::join::temporal_proctime::{ProcTimeTemporalJoin, ProcTimeTemporalJoinSpec};
use crate::join::window::{WindowJoin, WindowJoinSpec};
use crate::join::{Join, JoinSpec};
use crate::rank::window::{WindowRank, WindowRankSpec};
use crate::rank::{Rank, RankSpec};
use crate::sort::{TemporalSort, TemporalSortSpec};
use crate::state::checkpoint::Checkpoint;
use crate::types::LogicalType;
use crate::window_table::{WindowTableFunction, WindowTableSpec};

/// Any native operator's plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "operator", rename_all = "snake_case")]
pub enum OperatorPlan {
    /// Projections and a filter over rows of `input` types.
    Calc {
        /// The input row's field types.
        input: Vec<LogicalType>,
        /// The program.
        calc: CalcProgram,
    },
    /// One-phase GROUP BY.
    GroupAggregate(GroupAggSpec),
    /// The local phase of a two-phase GROUP BY.
    LocalGroupAggregate(GroupAggSpec),
    /// The global phase of a two-phase GROUP BY.
    GlobalGroupAggregate(GroupAggSpec),
    /// Window aggregation (one phase).
    WindowAggregate(WindowAggSpec),
    /// The local phase of a two-phase window aggregation.
    LocalWindowAggregate(WindowAggSpec),
    /// The global phase of a two-phase window aggregation.
    GlobalWindowAggregate(WindowAggSpec),
    /// SESSION window aggregation (one phase).
    SessionWindowAggregate(SessionWindowAggSpec),
    /// Deduplication (keep the first or last row per key).
    Deduplicate(DedupSpec),
    /// Top-N (`ROW_NUMBER() <= N` per partition).
    Rank(RankSpec),
    /// Window Top-N or window deduplication.
    WindowRank(WindowRankSpec),
    /// The window TVFs' rows (no keyed state).
    WindowTableFunction(WindowTableSpec),
    /// OVER aggregation in event time.
    OverAggregate(OverSpec),
    /// The event-time sort.
    TemporalSort(TemporalSortSpec),
    /// A regular streaming join (two inputs).
    Join(JoinSpec),
    /// A window join (two inputs).
    WindowJoin(WindowJoinSpec),
    /// An event-time interval join (two inputs).
    IntervalJoin(IntervalJoinSpec),
    /// An event-time temporal join (two inputs).
    TemporalJoin(TemporalJoinSpec),
    /// A processing-time temporal join (two inputs).
    #[serde(rename = "proctime_temporal_join")]
    ProcTimeTemporalJoin(ProcTimeTemporalJoinSpec),
}

impl OperatorPlan {
    /// Parses a plan's JSON; a malformed plan is [`Error::Plan`] with serde's reason.
    pub fn from_json(json: &str) -> Result<Self> {
        serde_json::from_str(json).map_err(|e| Error::Plan(e.to_string()))
    }

    /// The plan as JSON (what [`OperatorPlan::from_json`] reads back to an equal plan).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a plan serializes")
    }

    /// Which operator the plan builds.
    pub fn kind(&self) -> OperatorKind {
        match self {
            OperatorPlan::Calc { .. } => OperatorKind::Calc,
            OperatorPlan::GroupAggregate(_) => OperatorKind::GroupAggregate,
            OperatorPlan::LocalGroupAggregate(_) => OperatorKind::LocalGroupAggregate,
            OperatorPlan::GlobalGroupAggregate(_) => OperatorKind::GlobalGroupAggregate,
            OperatorPlan::WindowAggregate(_) => OperatorKind::WindowAggregate,
            OperatorPlan::LocalWindowAggregate(_) => OperatorKind::LocalWindowAggregate,
            OperatorPlan::GlobalWindowAggregate(_) => OperatorKind::GlobalWindowAggregate,
            OperatorPlan::SessionWindowAggregate(_) => OperatorKind::SessionWindowAggregate,
            OperatorPlan::Deduplicate(_) => OperatorKind::Deduplicate,
            OperatorPlan::Rank(_) => OperatorKind::Rank,
            OperatorPlan::WindowRank(_) => OperatorKind::WindowRank,
            OperatorPlan::WindowTableFunction(_) => OperatorKind::WindowTableFunction,
            OperatorPlan::OverAggregate(_) => OperatorKind::OverAggregate,
            OperatorPlan::TemporalSort(_) => OperatorKind::TemporalSort,
            OperatorPlan::Join(_) => OperatorKind::Join,
            OperatorPlan::WindowJoin(_) => OperatorKind::WindowJoin,
            OperatorPlan::IntervalJoin(_) => OperatorKind::IntervalJoin,
            OperatorPlan::TemporalJoin(_) => OperatorKind::TemporalJoin,
            OperatorPlan::ProcTimeTemporalJoin(_) => OperatorKind::ProcTimeTemporalJoin,
        }
    }

    /// The plan with `max_parallelism` key groups (what a task learns from Flink when it
    /// starts); plans without keyed state are unchanged.
    pub fn with_max_parallelism(mut self, max_parallelism: u32) -> Self {
        match &mut self {
            OperatorPlan::Calc { .. } | OperatorPlan::WindowTableFunction(_) => {}
            OperatorPlan::GroupAggregate(spec)
            | OperatorPlan::LocalGroupAggregate(spec)
            | OperatorPlan::GlobalGroupAggregate(spec) => spec.max_parallelism = max_parallelism,
            OperatorPlan::WindowAggregate(spec)
            | OperatorPlan::LocalWindowAggregate(spec)
            | OperatorPlan::GlobalWindowAggregate(spec) => {
                spec.aggregate.max_parallelism = max_parallelism;
            }
            OperatorPlan::SessionWindowAggregate(spec) => {
                spec.aggregate.max_parallelism = max_parallelism;
            }
            OperatorPlan::Deduplicate(spec) => spec.max_parallelism = max_parallelism,
            OperatorPlan::Rank(spec) => spec.max_parallelism = max_parallelism,
            OperatorPlan::WindowRank(spec) => spec.max_parallelism = max_parallelism,
            OperatorPlan::OverAggregate(spec) => spec.max_parallelism = max_parallelism,
            OperatorPlan::TemporalSort(spec) => spec.max_parallelism = max_parallelism,
            OperatorPlan::Join(spec) => spec.max_parallelism = max_parallelism,
            OperatorPlan::WindowJoin(spec) => spec.max_parallelism = max_parallelism,
            OperatorPlan::IntervalJoin(spec) => spec.max_parallelism = max_parallelism,
            OperatorPlan::TemporalJoin(spec) => spec.max_parallelism = max_parallelism,
            OperatorPlan::ProcTimeTemporalJoin(spec) => spec.max_parallelism = max_parallelism,
        }
        self
    }

    /// The key groups a keyed plan's subtask owns: `key_groups`, or every key group.
    fn key_groups(
        spec: &GroupAggSpec,
        key_groups: Option<RangeInclusive<u16>>,
    ) -> Result<RangeInclusive<u16>> {
        Self::owned(spec.max_parallelism, key_groups)
    }

    /// `key_groups`, or every key group of `max_parallelism`.
    fn owned(
        max_parallelism: u32,
        key_groups: Option<RangeInclusive<u16>>,
    ) -> Result<RangeInclusive<u16>> {
        match key_groups {
            Some(range) => Ok(range),
            None => all_key_groups(max_parallelism),
        }
    }

    /// A fresh operator; keyed operators own `key_groups` (every key group when `None`) of
    /// a store opened by `config`. A plan the operator cannot run (an unsupported call, a
    /// grouping column out of range) is [`ErrorKind::Plan`], so the planner falls back.
    pub fn build(
        &self,
        config: &StateConfig,
        key_groups: Option<RangeInclusive<u16>>,
    ) -> Result<Box<dyn Operator>> {
        planning(self.build_operator(config, key_groups))
    }

    fn build_operator(
        &self,
        config: &StateConfig,
        key_groups: Option<RangeInclusive<u16>>,
    ) -> Result<Box<dyn Operator>> {
        Ok(match self {
            OperatorPlan::Calc { input, calc } => Box::new(CalcOperator::new(input, calc)?),
            OperatorPlan::GroupAggregate(spec) => {
                let range = Self::key_groups(spec, key_groups)?;
                let keyed = Keyed::open(config, "group-agg", spec.max_parallelism, range)?;
                Box::new(GroupAggregate::open(spec.clone(), keyed)?)
            }
            OperatorPlan::LocalGroupAggregate(spec) => {
                Box::new(LocalGroupAggregate::new(spec.clone())?)
            }
            OperatorPlan::GlobalGroupAggregate(spec) => {
                let range = Self::key_groups(spec, key_groups)?;
                let keyed = Keyed::open(config, "global-group-agg", spec.max_parallelism, range)?;
                Box::new(GlobalGroupAggregate::open(spec.clone(), keyed)?)
            }
            OperatorPlan::WindowAggregate(spec) | OperatorPlan::GlobalWindowAggregate(spec) => {
                let max_parallelism = spec.aggregate.max_parallelism;
                let range = Self::key_groups(&spec.aggregate, key_groups)?;
                let keyed = Keyed::open(config, "window-agg", max_parallelism, range)?;
                if matches!(self, OperatorPlan::GlobalWindowAggregate(_)) {
                    Box::new(WindowAggregate::open_global(spec.clone(), keyed)?)
                } else {
                    Box::new(WindowAggregate::open(spec.clone(), keyed)?)
                }
            }
            OperatorPlan::LocalWindowAggregate(spec) => {
                Box::new(LocalWindowAggregate::new(spec.clone())?)
            }
            OperatorPlan::SessionWindowAggregate(spec) => {
                let max_parallelism = spec.aggregate.max_parallelism;
                let range = Self::key_groups(&spec.aggregate, key_groups)?;
                let keyed = Keyed::open(config, "session-window-agg", max_parallelism, range)?;
                Box::new(SessionWindowAggregate::open(spec.clone(), keyed)?)
            }
            OperatorPlan::Deduplicate(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(Deduplicate::build(spec.clone(), config, range)?)
            }
            OperatorPlan::Rank(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(Rank::build(spec.clone(), config, range)?)
            }
            OperatorPlan::WindowRank(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(WindowRank::build(spec.clone(), config, range)?)
            }
            OperatorPlan::WindowTableFunction(spec) => {
                Box::new(WindowTableFunction::new(spec.clone())?)
            }
            OperatorPlan::OverAggregate(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(OverAggregate::build(spec.clone(), config, range)?)
            }
            OperatorPlan::TemporalSort(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(TemporalSort::build(spec.clone(), config, range)?)
            }
            OperatorPlan::Join(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(Join::build(spec.clone(), config, range)?)
            }
            OperatorPlan::WindowJoin(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(WindowJoin::build(spec.clone(), config, range)?)
            }
            OperatorPlan::IntervalJoin(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(IntervalJoin::build(spec.clone(), config, range)?)
            }
            OperatorPlan::TemporalJoin(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(TemporalJoin::build(spec.clone(), config, range)?)
            }
            OperatorPlan::ProcTimeTemporalJoin(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(ProcTimeTemporalJoin::build(spec.clone(), config, range)?)
            }
        })
    }

    /// An operator restored from `checkpoints` (those of every old subtask whose key groups
    /// overlap; see [`super::restore`]), each checked to be written for a plan of the same
    /// kind, version and semantics (else [`ErrorKind::State`]).
    pub fn restore(
        &self,
        config: &StateConfig,
        key_groups: Option<RangeInclusive<u16>>,
        checkpoints: &[Checkpoint],
    ) -> Result<Box<dyn Operator>> {
        planning(self.restore_operator(config, key_groups, checkpoints))
    }

    fn restore_operator(
        &self,
        config: &StateConfig,
        key_groups: Option<RangeInclusive<u16>>,
        checkpoints: &[Checkpoint],
    ) -> Result<Box<dyn Operator>> {
        Ok(match self {
            OperatorPlan::Calc { input, calc } => {
                Box::new(CalcOperator::restore(input, calc, checkpoints)?)
            }
            OperatorPlan::GroupAggregate(spec) => {
                let range = Self::key_groups(spec, key_groups)?;
                Box::new(GroupAggregate::restore(
                    spec.clone(),
                    config,
                    range,
                    checkpoints,
                )?)
            }
            OperatorPlan::LocalGroupAggregate(spec) => {
                Box::new(LocalGroupAggregate::restore(spec.clone(), checkpoints)?)
            }
            OperatorPlan::GlobalGroupAggregate(spec) => {
                let range = Self::key_groups(spec, key_groups)?;
                Box::new(GlobalGroupAggregate::restore(
                    spec.clone(),
                    config,
                    range,
                    checkpoints,
                )?)
            }
            OperatorPlan::WindowAggregate(spec) | OperatorPlan::GlobalWindowAggregate(spec) => {
                let range = Self::key_groups(&spec.aggregate, key_groups)?;
                Box::new(WindowAggregate::restore(
                    spec.clone(),
                    matches!(self, OperatorPlan::GlobalWindowAggregate(_)),
                    config,
                    range,
                    checkpoints,
                )?)
            }
            OperatorPlan::LocalWindowAggregate(spec) => {
                Box::new(LocalWindowAggregate::restore(spec.clone(), checkpoints)?)
            }
            OperatorPlan::SessionWindowAggregate(spec) => {
                let range = Self::key_groups(&spec.aggregate, key_groups)?;
                Box::new(SessionWindowAggregate::restore(
                    spec.clone(),
                    config,
                    range,
                    checkpoints,
                )?)
            }
            OperatorPlan::Deduplicate(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(Deduplicate::restore(
                    spec.clone(),
                    config,
                    range,
                    checkpoints,
                )?)
            }
            OperatorPlan::Rank(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(Rank::restore(spec.clone(), config, range, checkpoints)?)
            }
            OperatorPlan::WindowRank(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(WindowRank::restore(
                    spec.clone(),
                    config,
                    range,
                    checkpoints,
                )?)
            }
            OperatorPlan::WindowTableFunction(spec) => {
                Box::new(WindowTableFunction::restore(spec.clone(), checkpoints)?)
            }
            OperatorPlan::OverAggregate(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(OverAggregate::restore(
                    spec.clone(),
                    config,
                    range,
                    checkpoints,
                )?)
            }
            OperatorPlan::TemporalSort(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(TemporalSort::restore(
                    spec.clone(),
                    config,
                    range,
                    checkpoints,
                )?)
            }
            OperatorPlan::Join(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(Join::restore(spec.clone(), config, range, checkpoints)?)
            }
            OperatorPlan::WindowJoin(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(WindowJoin::restore(
                    spec.clone(),
                    config,
                    range,
                    checkpoints,
                )?)
            }
            OperatorPlan::IntervalJoin(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(IntervalJoin::restore(
                    spec.clone(),
                    config,
                    range,
                    checkpoints,
                )?)
            }
            OperatorPlan::TemporalJoin(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(TemporalJoin::restore(
                    spec.clone(),
                    config,
                    range,
                    checkpoints,
                )?)
            }
            OperatorPlan::ProcTimeTemporalJoin(spec) => {
                let range = Self::owned(spec.max_parallelism, key_groups)?;
                Box::new(ProcTimeTemporalJoin::restore(
                    spec.clone(),
                    config,
                    range,
                    checkpoints,
                )?)
            }
        })
    }
}

/// Building an operator reads no data: what would be a data error while running (an
/// unsupported call's shape, a column out of range) is the plan's fault here. State,
/// resource and internal errors keep their kinds.
fn planning<T>(result: Result<T>) -> Result<T> {
    result.map_err(|e| match e.kind() {
        ErrorKind::Data => Error::Plan(e.to_string()),
        _ => e,
    })
}

/// `Option<Duration>` as whole milliseconds (`null` for `None`), as Flink configures TTLs.
pub(crate) mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_some(&(d.as_millis() as u64)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GROUP: &str = r#"{"operator": "group_aggregate", "input_names": ["k", "v"],
        "input_types": ["BIGINT", "INT"], "grouping": [0],
        "calls": [{"function": "SUM", "arg": 1, "name": "s"}],
        "input_retracts": false, "generate_update_before": true, "mini_batch_rows": null,
        "state_ttl_ms": 3600000, "max_parallelism": 128}"#;

    #[test]
    fn plans_round_trip_through_json() {
        let plan = OperatorPlan::from_json(GROUP).unwrap();
        assert_eq!(plan.kind(), OperatorKind::GroupAggregate);
        let OperatorPlan::GroupAggregate(spec) = &plan else {
            unreachable!()
        };
        assert_eq!(spec.state_ttl, Some(std::time::Duration::from_secs(3600)));
        assert_eq!(spec.input_types, [LogicalType::BigInt, LogicalType::Int]);
        assert_eq!(OperatorPlan::from_json(&plan.to_json()).unwrap(), plan);
        let calc = OperatorPlan::from_json(
            r#"{"operator": "calc", "input": ["INT"], "calc": {"projection": [{"input": 0}]}}"#,
        )
        .unwrap();
        assert_eq!(calc.kind(), OperatorKind::Calc);
    }

    #[test]
    fn bad_plans_say_what_is_wrong() {
        let err = |json: &str| OperatorPlan::from_json(json).unwrap_err().to_string();
        assert!(err(r#"{"operator": "nope"}"#).contains("unknown variant `nope`"));
        assert!(err(&GROUP.replace("BIGINT", "BIGGERINT")).contains("BIGGERINT"));
        assert!(
            err(&GROUP.replace("\"grouping\"", "\"grouping\": [], \"extra\"")).contains("extra")
        );
        let no_kind = err(r#"{"input": ["INT"]}"#);
        assert!(no_kind.contains("operator"), "{no_kind}");
        // A plan that parses but cannot run is a plan error too.
        let plan =
            OperatorPlan::from_json(&GROUP.replace("\"grouping\": [0]", "\"grouping\": [7]"))
                .unwrap();
        let built = plan.build(&StateConfig::memory(), None).unwrap_err();
        assert_eq!(built.kind(), ErrorKind::Plan, "{built}");
        assert!(built.to_string().contains("grouping column 7"), "{built}");
    }
}
