//! The operator metadata every checkpoint carries, and the plan identity it is checked
//! against on restore.
//!
//! The metadata is JSON in the checkpoint's `metadata.bin` ([`crate::state::checkpoint`]):
//!
//! ```json
//! {"format": 1,
//!  "operator": {"kind": "group_aggregate", "version": 1,
//!               "fingerprint": "5f2c…", "semantics": {"grouping": [0], …}},
//!  "watermark": 1000, "key_groups": [0, 127], "max_parallelism": 128}
//! ```
//!
//! An operator without keyed state (Calc, the local aggregate) stores `null` key groups and
//! max parallelism; its checkpoint is the metadata and an empty store.
//!
//! `semantics` is what decides how state is laid out and read: types, grouping columns,
//! aggregate functions and their arguments, retraction, TTL, max parallelism. Column names
//! and emission-only settings are not part of it, so a plan whose output column was renamed
//! restores, and a plan that reads state differently is refused with the fields that differ.
//! `fingerprint` is the SHA-256 of `semantics` in canonical JSON (sorted keys), for a quick
//! look at which plan wrote a checkpoint.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Incompatibility, Result};
use crate::state::checkpoint::Checkpoint;

/// The metadata format [`OperatorMetadata`] is written in.
pub const METADATA_FORMAT: u32 = 1;

/// Every kind of native operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OperatorKind {
    /// Projections and a filter ([`crate::calc`]).
    Calc,
    /// One-phase GROUP BY ([`crate::aggregate::GroupAggregate`]).
    GroupAggregate,
    /// The local phase of a two-phase GROUP BY ([`crate::aggregate::LocalGroupAggregate`]).
    LocalGroupAggregate,
    /// The global phase of a two-phase GROUP BY ([`crate::aggregate::GlobalGroupAggregate`]).
    GlobalGroupAggregate,
    /// Window aggregation over TUMBLE, HOP or CUMULATE ([`crate::aggregate::WindowAggregate`]).
    WindowAggregate,
    /// The local phase of two-phase window aggregation
    /// ([`crate::aggregate::window_local::LocalWindowAggregate`]).
    LocalWindowAggregate,
    /// The global phase of two-phase window aggregation
    /// ([`crate::aggregate::WindowAggregate::open_global`]).
    GlobalWindowAggregate,
    /// SESSION window aggregation ([`crate::aggregate::SessionWindowAggregate`]).
    SessionWindowAggregate,
    /// Deduplication, keep first or last row per key ([`crate::deduplicate::Deduplicate`]).
    Deduplicate,
    /// Top-N per partition ([`crate::rank::Rank`]).
    Rank,
    /// Window Top-N and window deduplication ([`crate::rank::window::WindowRank`]).
    WindowRank,
    /// The window TVFs' rows ([`crate::window_table::WindowTableFunction`]).
    WindowTableFunction,
    /// OVER aggregation in event time ([`crate::aggregate::OverAggregate`]).
    OverAggregate,
    /// The event-time sort ([`crate::sort::TemporalSort`]).
    TemporalSort,
    /// A regular streaming join ([`crate::join::Join`]).
    Join,
    /// A window join ([`crate::join::window::WindowJoin`]).
    WindowJoin,
    /// An event-time interval join ([`crate::join::interval::IntervalJoin`]).
    IntervalJoin,
    /// An event-time temporal join ([`crate::join::temporal::TemporalJoin`]).
    TemporalJoin,
    /// A processing-time temporal join
    /// ([`crate::join::temporal_proctime::ProcTimeTemporalJoin`]).
    ProcTimeTemporalJoin,
}

impl std::fmt::Display for OperatorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            OperatorKind::Calc => "calc",
            OperatorKind::GroupAggregate => "group_aggregate",
            OperatorKind::LocalGroupAggregate => "local_group_aggregate",
            OperatorKind::GlobalGroupAggregate => "global_group_aggregate",
            OperatorKind::WindowAggregate => "window_aggregate",
            OperatorKind::LocalWindowAggregate => "local_window_aggregate",
            OperatorKind::GlobalWindowAggregate => "global_window_aggregate",
            OperatorKind::SessionWindowAggregate => "session_window_aggregate",
            OperatorKind::Deduplicate => "deduplicate",
            OperatorKind::Rank => "rank",
            OperatorKind::WindowRank => "window_rank",
            OperatorKind::WindowTableFunction => "window_table_function",
            OperatorKind::OverAggregate => "over_aggregate",
            OperatorKind::TemporalSort => "temporal_sort",
            OperatorKind::Join => "join",
            OperatorKind::WindowJoin => "window_join",
            OperatorKind::IntervalJoin => "interval_join",
            OperatorKind::TemporalJoin => "temporal_join",
            OperatorKind::ProcTimeTemporalJoin => "proctime_temporal_join",
        };
        f.write_str(name)
    }
}

/// Which operator a plan builds, and what of the plan its state depends on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanIdentity {
    /// The operator kind.
    pub kind: OperatorKind,
    /// The version of the operator's state layout.
    pub version: u32,
    /// SHA-256 (hex) of `semantics` in canonical JSON.
    pub fingerprint: String,
    /// The plan's semantics: everything that decides how state is written and read, and
    /// nothing else (no column names).
    pub semantics: serde_json::Value,
}

impl PlanIdentity {
    /// The identity of a `kind` operator at state `version` whose plan means `semantics`.
    pub fn new(kind: OperatorKind, version: u32, semantics: &impl Serialize) -> Self {
        // Through `Value`, whose maps are sorted: the same semantics always hash the same.
        let semantics = serde_json::to_value(semantics).expect("plan semantics serialize");
        let canonical = serde_json::to_vec(&semantics).expect("a JSON value serializes");
        let fingerprint = Sha256::digest(&canonical)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Self {
            kind,
            version,
            fingerprint,
            semantics,
        }
    }

    /// Whether state written under `stored` can be read by this plan: same kind, version
    /// and semantics. The error names every field that differs.
    pub fn check(&self, stored: &PlanIdentity) -> Result<(), Incompatibility> {
        if stored.kind != self.kind {
            return Err(Incompatibility::Kind {
                stored: stored.kind.to_string(),
                expected: self.kind.to_string(),
            });
        }
        if stored.version != self.version {
            return Err(Incompatibility::Version {
                kind: self.kind.to_string(),
                stored: stored.version,
                supported: self.version,
            });
        }
        if stored.semantics != self.semantics {
            return Err(Incompatibility::Plan {
                differences: differences(&stored.semantics, &self.semantics),
            });
        }
        Ok(())
    }
}

/// What [`crate::state::checkpoint::publish`] stores as an operator checkpoint's metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperatorMetadata {
    /// [`METADATA_FORMAT`].
    pub format: u32,
    /// The operator and plan that wrote the checkpoint.
    pub operator: PlanIdentity,
    /// The watermark when the checkpoint was taken; `None` before the first.
    pub watermark: Option<i64>,
    /// The key groups the writing subtask owned, `[first, last]`; `None` for an operator
    /// without keyed state.
    pub key_groups: Option<[u16; 2]>,
    /// The job's max parallelism (the number of key groups); `None` without keyed state.
    pub max_parallelism: Option<u32>,
}

impl OperatorMetadata {
    /// The metadata of a keyed `operator` at `watermark`, owning `key_groups` of
    /// `max_parallelism`.
    pub fn keyed(
        operator: PlanIdentity,
        watermark: Option<i64>,
        key_groups: &RangeInclusive<u16>,
        max_parallelism: u32,
    ) -> Self {
        Self {
            format: METADATA_FORMAT,
            operator,
            watermark,
            key_groups: Some([*key_groups.start(), *key_groups.end()]),
            max_parallelism: Some(max_parallelism),
        }
    }

    /// The metadata of an `operator` without keyed state at `watermark`.
    pub fn stateless(operator: PlanIdentity, watermark: Option<i64>) -> Self {
        Self {
            format: METADATA_FORMAT,
            operator,
            watermark,
            key_groups: None,
            max_parallelism: None,
        }
    }

    /// The key groups as a range; `None` without keyed state.
    pub fn key_group_range(&self) -> Option<RangeInclusive<u16>> {
        self.key_groups.map(|[a, b]| a..=b)
    }

    /// The bytes stored in a checkpoint.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("operator metadata serializes")
    }

    /// Reads the metadata of `checkpoint`; a checkpoint without readable metadata (written
    /// by another program, or before this format) is [`Error::IncompatibleCheckpoint`].
    pub fn read(checkpoint: &Checkpoint) -> Result<Self> {
        let bytes = checkpoint.metadata()?;
        let incompatible = |problem| Error::IncompatibleCheckpoint {
            path: checkpoint.path().to_path_buf(),
            problem,
        };
        let meta: Self = serde_json::from_slice(&bytes).map_err(|e| {
            incompatible(Incompatibility::Metadata(format!(
                "no StreamFusion operator metadata ({e})"
            )))
        })?;
        if meta.format != METADATA_FORMAT {
            return Err(incompatible(Incompatibility::Metadata(format!(
                "metadata format {} is not the supported format {METADATA_FORMAT}",
                meta.format
            ))));
        }
        if meta.key_groups.is_some_and(|[a, b]| a > b) {
            return Err(incompatible(Incompatibility::Metadata(format!(
                "key groups {:?} are not a range",
                meta.key_groups
            ))));
        }
        Ok(meta)
    }

    /// [`OperatorMetadata::read`], then checks the checkpoint was written for `identity`.
    pub fn read_for(checkpoint: &Checkpoint, identity: &PlanIdentity) -> Result<Self> {
        let meta = Self::read(checkpoint)?;
        identity
            .check(&meta.operator)
            .map_err(|problem| Error::IncompatibleCheckpoint {
                path: checkpoint.path().to_path_buf(),
                problem,
            })?;
        Ok(meta)
    }
}

/// Every leaf where `stored` and `expected` differ, as `path: checkpoint X, plan Y`.
fn differences(stored: &serde_json::Value, expected: &serde_json::Value) -> Vec<String> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    flatten(stored, String::new(), &mut a);
    flatten(expected, String::new(), &mut b);
    let mut paths: Vec<&String> = a.keys().chain(b.keys()).collect();
    paths.sort();
    paths.dedup();
    let show = |v: Option<&String>| v.map_or("absent", String::as_str).to_string();
    paths
        .into_iter()
        .filter(|p| a.get(*p) != b.get(*p))
        .map(|p| {
            format!(
                "{p}: checkpoint {}, plan {}",
                show(a.get(p)),
                show(b.get(p))
            )
        })
        .collect()
}

fn flatten(value: &serde_json::Value, path: String, out: &mut BTreeMap<String, String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                flatten(v, p, out);
            }
        }
        serde_json::Value::Array(items) => {
            out.insert(format!("{path}.len"), items.len().to_string());
            for (i, v) in items.iter().enumerate() {
                flatten(v, format!("{path}[{i}]"), out);
            }
        }
        leaf => {
            out.insert(path, leaf.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_semantics_hash_equal_whatever_the_key_order() {
        let a = PlanIdentity::new(OperatorKind::Calc, 1, &json!({"a": 1, "b": [true]}));
        let b: serde_json::Value = serde_json::from_str(r#"{"b": [true], "a": 1}"#).unwrap();
        let b = PlanIdentity::new(OperatorKind::Calc, 1, &b);
        assert_eq!(a, b);
        assert_eq!(a.fingerprint.len(), 64);
        assert!(a.check(&b).is_ok());
    }

    #[test]
    fn a_mismatch_names_the_kind_the_version_or_every_differing_field() {
        let plan = PlanIdentity::new(
            OperatorKind::GroupAggregate,
            1,
            &json!({"calls": [{"function": "SUM", "arg": 1}], "grouping": [0]}),
        );
        let other = PlanIdentity::new(
            OperatorKind::GroupAggregate,
            1,
            &json!({"calls": [{"function": "MAX", "arg": 1}, {"function": "COUNT_STAR"}],
                    "grouping": [0]}),
        );
        let err = plan.check(&other).unwrap_err().to_string();
        assert!(
            err.contains(r#"calls[0].function: checkpoint "MAX", plan "SUM""#),
            "{err}"
        );
        assert!(err.contains("calls.len: checkpoint 2, plan 1"), "{err}");
        assert!(
            err.contains(r#"calls[1].function: checkpoint "COUNT_STAR", plan absent"#),
            "{err}"
        );
        assert!(!err.contains("grouping"), "{err}");

        let newer = PlanIdentity {
            version: 2,
            ..plan.clone()
        };
        assert!(matches!(
            plan.check(&newer),
            Err(Incompatibility::Version {
                stored: 2,
                supported: 1,
                ..
            })
        ));
        let calc = PlanIdentity::new(OperatorKind::Calc, 1, &json!({}));
        let err = plan.check(&calc).unwrap_err().to_string();
        assert!(
            err.contains("calc") && err.contains("group_aggregate"),
            "{err}"
        );
    }

    #[test]
    fn metadata_round_trips_as_json() {
        let meta = OperatorMetadata::keyed(
            PlanIdentity::new(OperatorKind::GroupAggregate, 1, &json!({"x": 1})),
            Some(-5),
            &(3..=9),
            128,
        );
        let back: OperatorMetadata = serde_json::from_slice(&meta.to_bytes()).unwrap();
        assert_eq!(back, meta);
        assert_eq!(back.key_group_range(), Some(3..=9));
        let calc = OperatorMetadata::stateless(PlanIdentity::new(OperatorKind::Calc, 1, &()), None);
        let back: OperatorMetadata = serde_json::from_slice(&calc.to_bytes()).unwrap();
        assert_eq!((back.key_group_range(), back.max_parallelism), (None, None));
    }
}
