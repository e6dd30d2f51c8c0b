//! An operator's checkpoint as Flink raw keyed state: one section per key group.
//!
//! A Flink task snapshots a keyed native operator by writing [`snapshot_sections`]'s
//! sections into its raw keyed state, one per key group it owns; Flink stores them in its
//! own checkpoint or savepoint, keeps or discards them with it, and on restore hands each
//! subtask the sections of the key groups it owns then, whatever the parallelism they were
//! written at. [`restore_from_sections`] builds the operator back from those sections
//! through the production restore path ([`super::restore`]), so a section restore checks
//! the same plan identity as a directory restore. The section format is
//! [`crate::state::sections`].

use std::ops::RangeInclusive;
use std::path::Path;

use super::metadata::OperatorMetadata;
use super::{Operator, OperatorPlan, StateConfig};
use crate::error::{Error, Incompatibility, Result};
use crate::state::rocks::RocksOptions;
use crate::state::sections::{self, Section};

/// Checkpoints `op` and hands `sink` one section per key group the operator owns, in
/// key-group order; returns how many. An operator without keyed state has no sections.
/// The checkpoint is written under `scratch` and removed afterwards.
pub fn snapshot_sections(
    op: &mut dyn Operator,
    scratch: &Path,
    sink: &mut dyn FnMut(u16, Vec<u8>) -> Result<()>,
) -> Result<usize> {
    std::fs::create_dir_all(scratch).map_err(Error::io("create", scratch))?;
    let temp = tempfile::Builder::new()
        .prefix(".sf-sections-")
        .tempdir_in(scratch)
        .map_err(Error::io("create a temporary directory in", scratch))?;
    let checkpoint = op.checkpoint(&temp.path().join("checkpoint"))?;
    let Some(key_groups) = OperatorMetadata::read(&checkpoint)?.key_group_range() else {
        return Ok(0);
    };
    sections::export(
        &checkpoint,
        &key_groups,
        &RocksOptions::checked_in(),
        temp.path(),
        sink,
    )?;
    Ok(key_groups.len())
}

/// An operator for `plan` owning `key_groups` (every key group when `None`), restored from
/// the key-group `sections` a subtask received. The sections must be StreamFusion's, cover
/// one contiguous range of key groups once each, and have been written for this plan (the
/// same kind, state version, semantics and max parallelism), else a state error says which
/// section or field is at fault. The watermark recorded for an operator that restores one
/// (decision 0030) is `union_watermark` when the task kept one, the lowest watermark of
/// every old subtask as Flink's `WindowAggOperator` keeps it in union list state
/// (`i64::MIN` for none), else the lowest the sections carry, as for a directory restore.
pub fn restore_from_sections(
    plan: &OperatorPlan,
    config: &StateConfig,
    key_groups: Option<RangeInclusive<u16>>,
    sections: &[&[u8]],
    union_watermark: Option<i64>,
) -> Result<Box<dyn Operator>> {
    let decoded = sections
        .iter()
        .map(|bytes| Section::decode(bytes))
        .collect::<Result<Vec<_>>>()?;
    let mut metadata = merged_metadata(&decoded)?;
    if union_watermark.is_some() {
        metadata.watermark = union_watermark;
    }
    let scratch = &config.working_dir;
    std::fs::create_dir_all(scratch).map_err(Error::io("create", scratch))?;
    let temp = tempfile::Builder::new()
        .prefix(".sf-sections-")
        .tempdir_in(scratch)
        .map_err(Error::io("create a temporary directory in", scratch))?;
    let (checkpoint, _) = sections::publish_sections(
        &decoded,
        &metadata.to_bytes(),
        &temp.path().join("checkpoint"),
    )?;
    plan.restore(config, key_groups, std::slice::from_ref(&checkpoint))
}

/// One metadata for the sections: they must agree on the operator that wrote them and the
/// max parallelism; the key groups become theirs and the watermark the lowest.
fn merged_metadata(sections: &[Section]) -> Result<OperatorMetadata> {
    let range = sections::contiguous_range(sections)?;
    let mut merged: Option<(u16, OperatorMetadata)> = None;
    let mut watermark: Option<i64> = None;
    let mut last_bytes: &[u8] = &[];
    for section in sections {
        // Sections of one old subtask share their metadata: parse each distinct one once.
        if merged.is_none() || section.metadata.as_slice() != last_bytes {
            let meta = parse(section)?;
            if meta.key_groups.is_none() || meta.max_parallelism.is_none() {
                return Err(incompatible(
                    section,
                    Incompatibility::Metadata("it holds no keyed state".into()),
                ));
            }
            if let Some((first, m)) = &merged {
                m.operator
                    .check(&meta.operator)
                    .map_err(|problem| incompatible(section, problem))?;
                if m.max_parallelism != meta.max_parallelism {
                    return Err(incompatible(
                        section,
                        Incompatibility::Plan {
                            differences: vec![format!(
                                "max_parallelism: {:?} in key group {first}, {:?} here",
                                m.max_parallelism, meta.max_parallelism
                            )],
                        },
                    ));
                }
            }
            if let Some(w) = meta.watermark {
                watermark = Some(watermark.map_or(w, |low| low.min(w)));
            }
            if merged.is_none() {
                merged = Some((section.key_group, meta));
            }
            last_bytes = &section.metadata;
        }
    }
    let (_, mut meta) = merged.expect("contiguous_range refused no sections");
    meta.watermark = watermark;
    meta.key_groups = Some([*range.start(), *range.end()]);
    Ok(meta)
}

fn parse(section: &Section) -> Result<OperatorMetadata> {
    let meta: OperatorMetadata = serde_json::from_slice(&section.metadata).map_err(|e| {
        incompatible(
            section,
            Incompatibility::Metadata(format!("no StreamFusion operator metadata ({e})")),
        )
    })?;
    if meta.format != super::metadata::METADATA_FORMAT {
        return Err(incompatible(
            section,
            Incompatibility::Metadata(format!(
                "metadata format {} is not the supported format {}",
                meta.format,
                super::metadata::METADATA_FORMAT
            )),
        ));
    }
    Ok(meta)
}

fn incompatible(section: &Section, problem: Incompatibility) -> Error {
    Error::IncompatibleCheckpoint {
        path: format!("key-group section {}", section.key_group).into(),
        problem,
    }
}
