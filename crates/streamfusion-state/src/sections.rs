//! A checkpoint cut into key-group sections, and sections put back together: how native
//! state travels inside Flink's checkpoints as raw keyed state.
//!
//! Flink redistributes raw keyed state by key group: a snapshot writes one section per key
//! group of the subtask, and a restoring subtask reads the sections of exactly the key groups
//! it now owns, whichever old subtasks wrote them. [`export`] cuts a published checkpoint
//! into such sections; [`Section::decode`] reads one back and [`publish_sections`] turns the
//! sections a subtask received into one memory checkpoint, which the ordinary restore path
//! ([`super::checkpoint`]) then adopts or rebuilds into the subtask's store.
//!
//! A section is self-describing and checksummed (integers big-endian, as Flink's
//! `DataOutputView` writes them):
//!
//! ```text
//! "SFKG"  u32 format  u16 key group  u32 len + operator metadata (the checkpoint's bytes)
//! u32 tables, each: u32 len + name, u64 entries, each: u32 len + key, u32 len + value
//! u32 CRC32 of everything before it
//! ```
//!
//! Every section repeats its checkpoint's operator metadata, as a restoring subtask may
//! receive sections of several old subtasks and must check each against its plan. Entries
//! are the store's raw bytes (TTL timestamps included), exactly what a rebuild copies.

use std::ops::RangeInclusive;
use std::path::Path;

use super::checkpoint::{self, Checkpoint, Source};
use super::memory::MemoryBackend;
use super::rocks::RocksOptions;
use super::{ScanRange, StateBackend, TableId, WriteBatch};
use crate::error::{Error, Result};
use crate::layout::key_group_of;

/// What every section starts with.
pub const SECTION_MAGIC: [u8; 4] = *b"SFKG";
/// The section format [`export`] writes and [`Section::decode`] reads.
pub const SECTION_FORMAT: u32 = 1;

/// One table's entries of one key group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionTable {
    /// The table's name.
    pub name: String,
    /// Its entries in ascending key order: raw state keys and values.
    pub entries: Vec<(Vec<u8>, Vec<u8>)>,
}

/// One key group's state, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The key group.
    pub key_group: u16,
    /// The operator metadata of the checkpoint it was cut from.
    pub metadata: Vec<u8>,
    /// Every table of that checkpoint (empty ones included, so a table outlives rescaling).
    pub tables: Vec<SectionTable>,
}

impl Section {
    /// The section's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&SECTION_MAGIC);
        out.extend_from_slice(&SECTION_FORMAT.to_be_bytes());
        out.extend_from_slice(&self.key_group.to_be_bytes());
        put_bytes(&mut out, &self.metadata);
        out.extend_from_slice(&(self.tables.len() as u32).to_be_bytes());
        for table in &self.tables {
            put_bytes(&mut out, table.name.as_bytes());
            out.extend_from_slice(&(table.entries.len() as u64).to_be_bytes());
            for (key, value) in &table.entries {
                put_bytes(&mut out, key);
                put_bytes(&mut out, value);
            }
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    /// Reads a section, verifying its checksum, format and that every key lies in its key
    /// group.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let bad = |problem: String| Error::State(format!("key-group section: {problem}"));
        if bytes.len() < SECTION_MAGIC.len() + 4 + 2 + 4 + 4 + 4 || bytes[..4] != SECTION_MAGIC {
            return Err(bad(format!(
                "{} bytes that do not start with a StreamFusion section header; the state \
                 was not written by StreamFusion",
                bytes.len()
            )));
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        let stored = u32::from_be_bytes(crc.try_into().expect("4 bytes"));
        let actual = crc32fast::hash(body);
        if stored != actual {
            return Err(bad(format!(
                "corrupted: CRC32 {actual:08x}, the section says {stored:08x}"
            )));
        }
        let mut r = Reader { bytes: body, at: 4 };
        let format = r.u32()?;
        if format != SECTION_FORMAT {
            return Err(bad(format!(
                "format {format} is not the supported format {SECTION_FORMAT}"
            )));
        }
        let key_group = r.u16()?;
        let metadata = r.bytes()?.to_vec();
        let tables = r.u32()?;
        let mut out = Vec::with_capacity(tables.min(1024) as usize);
        for _ in 0..tables {
            let name = String::from_utf8(r.bytes()?.to_vec())
                .map_err(|_| bad("a table name is not UTF-8".into()))?;
            let entries = r.u64()?;
            // Every entry takes at least 8 bytes: a count beyond that is corruption, not an
            // allocation to attempt.
            if entries > (r.remaining() / 8) as u64 {
                return Err(bad(format!(
                    "table {name} claims {entries} entries in {} bytes",
                    r.remaining()
                )));
            }
            let mut table = SectionTable {
                name,
                entries: Vec::with_capacity(entries as usize),
            };
            for _ in 0..entries {
                let key = r.bytes()?.to_vec();
                let kg = key_group_of(&key)?;
                if kg != key_group {
                    return Err(Error::State(format!(
                        "key-group section {key_group}: table {} holds a key of key group {kg}",
                        table.name
                    )));
                }
                let value = r.bytes()?.to_vec();
                table.entries.push((key, value));
            }
            out.push(table);
        }
        if r.remaining() != 0 {
            return Err(bad(format!(
                "{} bytes left after the last table",
                r.remaining()
            )));
        }
        Ok(Self {
            key_group,
            metadata,
            tables: out,
        })
    }

    /// The number of entries over all tables.
    pub fn entries(&self) -> usize {
        self.tables.iter().map(|t| t.entries.len()).sum()
    }
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(bytes);
}

/// A bounds-checked cursor over a section's body.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(Error::State(format!(
                "key-group section: truncated, {n} bytes wanted at offset {} of {}",
                self.at,
                self.bytes.len()
            )));
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(self.take(2)?.try_into().expect("2")))
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().expect("4")))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_be_bytes(self.take(8)?.try_into().expect("8")))
    }

    fn bytes(&mut self) -> Result<&'a [u8]> {
        let len = self.u32()? as usize;
        self.take(len)
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }
}

/// Cuts `checkpoint` into one section per key group of `key_groups` (those the subtask
/// owns: a key group without state still gets a section, so restore can tell "empty" from
/// "missing"), handing each to `sink` in key-group order. RocksDB checkpoints are opened
/// read-only in place, their info logs under `scratch`.
pub fn export(
    checkpoint: &Checkpoint,
    key_groups: &RangeInclusive<u16>,
    options: &RocksOptions,
    scratch: &Path,
    sink: &mut dyn FnMut(u16, Vec<u8>) -> Result<()>,
) -> Result<()> {
    let metadata = checkpoint.metadata()?;
    std::fs::create_dir_all(scratch).map_err(Error::io("create", scratch))?;
    let scratch = tempfile::tempdir_in(scratch)
        .map_err(Error::io("create a temporary directory in", scratch))?;
    let source = Source::open(checkpoint, options, scratch.path())?;
    let names = source.table_names();
    for kg in key_groups.clone() {
        let mut section = Section {
            key_group: kg,
            metadata: metadata.clone(),
            tables: Vec::with_capacity(names.len()),
        };
        for (index, name) in names.iter().enumerate() {
            let mut entries = Vec::new();
            source.scan(
                TableId(index),
                ScanRange::KeyGroups(&(kg..=kg)),
                &mut |k, v| {
                    entries.push((k.to_vec(), v.to_vec()));
                    true
                },
            )?;
            section.tables.push(SectionTable {
                name: name.clone(),
                entries,
            });
        }
        sink(kg, section.encode())?;
    }
    Ok(())
}

/// Publishes the sections a subtask received as one memory checkpoint at `target` (which
/// must not exist yet) with operator `metadata` (the caller's merge of the sections'). The
/// sections must be of distinct key groups forming one contiguous range, so the checkpoint
/// owns exactly the key groups it holds; returns it and that range.
pub fn publish_sections(
    sections: &[Section],
    metadata: &[u8],
    target: &Path,
) -> Result<(Checkpoint, RangeInclusive<u16>)> {
    let range = contiguous_range(sections)?;
    let mut store = MemoryBackend::new();
    for section in sections {
        let mut batch = WriteBatch::with_capacity(section.entries());
        for table in &section.tables {
            let id = store.open_table(&table.name)?;
            for (key, value) in &table.entries {
                batch.put(id, key, value);
            }
        }
        store.write(&batch)?;
    }
    let published = checkpoint::publish(&mut store, target, metadata)?;
    Ok((published, range))
}

/// The key groups of `sections`, which must be distinct and without gaps.
pub fn contiguous_range(sections: &[Section]) -> Result<RangeInclusive<u16>> {
    let mut groups: Vec<u16> = sections.iter().map(|s| s.key_group).collect();
    groups.sort_unstable();
    let (Some(&first), Some(&last)) = (groups.first(), groups.last()) else {
        return Err(Error::State("no key-group sections to restore from".into()));
    };
    for pair in groups.windows(2) {
        if pair[0] == pair[1] {
            return Err(Error::State(format!(
                "key group {} has two sections; every key group must be restored from \
                 exactly one",
                pair[0]
            )));
        }
        if pair[1] != pair[0] + 1 {
            return Err(Error::State(format!(
                "key group {} has no section (sections for {first}..={last} have a gap); \
                 the restored state would silently lack it",
                pair[0] + 1
            )));
        }
    }
    Ok(first..=last)
}

#[cfg(test)]
#[path = "sections_tests.rs"]
mod tests;
