//! Top-N over an upsert input whose sort key moves one way: released Flink 2.3.0's
//! `UpdatableTopNFunction` (rank strategy `UpdateFast` beyond a Top-1), written out for one
//! row at a time.
//!
//! Flink plans it when the input has a unique key holding the partition key and the sort
//! key is monotonic in the sort direction (a `COUNT(*)` or `MAX` ordered descending), and
//! asks its input for `+I`/`+U` only: every row is an upsert of its unique key, whatever its
//! kind. Flink keeps per partition a buffer (sort keys in order, each with its unique keys
//! in arrival order) and each unique key's row, for the rows in the buffer only: a row that
//! falls out of the top is forgotten, and a later update of its key is a new row.
//!
//! - A known key keeps its sort key: its row is replaced in place, `-U`/`+U` at its rank.
//! - A known key moves to a better sort key: it goes after the rows of the new key, and the
//!   rows it passes move down one rank each (`emitRecordsWithRowNumber` with the old row).
//! - A known key moves to a worse sort key (which the planner's monotony rules out, but a
//!   `MIN` leaving its first NULL, which sorts first, does it; Flink logs it and carries on,
//!   its `lenient` path): it goes after the rows of the new key, and the rows between its
//!   old and new rank move up one (`emitRecordsWithRowNumberIgnoreStateError`).
//! - A new key enters when the buffer accepts its sort key (`checkSortKeyInBufferRange`):
//!   with the rank column or an offset, the rows after it move down and the keys past the
//!   rank end leave; without them, the last row leaves (`-D`) when the buffer holds more
//!   than N rows, and the row is `+I`.
//!
//! Without the rank column and offset a known key's update is `-U`/`+U` wherever it lands.
//! Each walk follows the released bytecode (`javap -c` on `flink-table-runtime-2.3.0.jar`);
//! the lenient walk there differs from Flink's later sources.
//! Flink's heap cache of partitions (`table.exec.rank.topn-cache-size`) writes its rows to
//! state at checkpoints and evictions, and reloads them in the same order, so it changes no
//! result; only its TTL expiry can drop unwritten rows, which is why TTL is refused.

use std::collections::HashMap;

use bytes::Bytes;

use super::walk::{Carried, Cursor, Emit, put_part};
use super::{RankSpec, Ranked};
use crate::changelog::RowKind;
use crate::error::{Error, Result};

/// One unique key in the buffer and its row.
#[derive(Debug, Clone, PartialEq)]
struct Slot {
    unique: Bytes,
    row: Bytes,
}

/// One sort key of the buffer: its unique keys (with their rows) in arrival order.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    key: Bytes,
    slots: Vec<Slot>,
}

/// One partition's state: the buffer in sort-key order, and each unique key's sort key.
///
/// Stored as `[u32 entries]`, per entry `[u32 key length][key][u32 slots]`, per slot `[u32
/// length][unique key][u32 length][BinaryRowData]`, little-endian.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Updating {
    entries: Vec<Entry>,
    keys: HashMap<Bytes, Bytes>,
}

impl Updating {
    /// Applies one input row (`key` its sort key, `unique` its unique key, `row` its bytes
    /// with kind `+I`), emitting into `out` as `UpdatableTopNFunction.processElement`.
    pub(super) fn apply(
        &mut self,
        spec: &RankSpec,
        key: &[u8],
        unique: &[u8],
        row: &[u8],
        input: usize,
        out: &mut Ranked,
    ) -> Result<()> {
        let mut emit = Emit { spec, out, input };
        let with_number = spec.with_rank_walk();
        if let Some(old_key) = self.keys.get(unique).cloned() {
            let (e, s) = self.locate(&old_key, unique)?;
            let old_row = Carried::Stored(self.entries[e].slots[s].row.clone());
            if old_key[..] == *key {
                // Same sort key: the row is replaced where it is.
                let rank = if with_number {
                    self.row_number(key, unique)?
                } else {
                    0
                };
                self.entries[e].slots[s].row = Bytes::copy_from_slice(row);
                if with_number {
                    emit.ranked(RowKind::UpdateBefore, &old_row, rank);
                    emit.ranked(RowKind::UpdateAfter, &Carried::Input, rank);
                } else {
                    emit.plain_update_before(&old_row);
                    emit.plain(RowKind::UpdateAfter, &Carried::Input, 0);
                }
                return Ok(());
            }
            let old_rank = if with_number {
                self.row_number(&old_key, unique)?
            } else {
                0
            };
            self.remove(&old_key, unique);
            self.put(key, unique, row);
            if !with_number {
                emit.plain_update_before(&old_row);
                emit.plain(RowKind::UpdateAfter, &Carried::Input, 0);
            } else if *key < old_key[..] {
                self.emit_with_number(key, Some((&old_key, &old_row, old_rank)), &mut emit)?;
            } else {
                let new_rank = self.row_number(key, unique)?;
                self.emit_ignoring_state_error(new_rank, &old_row, old_rank, &mut emit);
            }
            return Ok(());
        }
        if !self.accepts(key, spec.rank_end) {
            return Ok(());
        }
        self.put(key, unique, row);
        if with_number {
            return self.emit_with_number(key, None, &mut emit);
        }
        if self.keys.len() as i64 > spec.rank_end
            && let Some(last) = self.remove_last()
        {
            emit.plain(RowKind::Delete, &Carried::Stored(last.row), 0);
        }
        emit.plain(RowKind::Insert, &Carried::Input, 0);
        Ok(())
    }

    /// `emitRecordsWithRowNumber`, after the row was put under `key`: `old` is the moved
    /// row's old sort key, old row and old rank (`None` for a new row).
    fn emit_with_number(
        &mut self,
        key: &[u8],
        old: Option<(&Bytes, &Carried, i64)>,
        emit: &mut Emit,
    ) -> Result<()> {
        let end = emit.spec.rank_end;
        let mut rank = 0i64;
        let mut current = Carried::Input;
        let mut found = false;
        let mut old_retracted = false;
        let mut visited = 0;
        while visited < self.entries.len() && rank <= end {
            let entry = &self.entries[visited];
            visited += 1;
            if !found && entry.key[..] == *key {
                rank += entry.slots.len() as i64;
                found = true;
                continue;
            }
            if !found {
                rank += entry.slots.len() as i64;
                continue;
            }
            // The rows this one passes move down: all of them in range for a new row, those
            // before the old rank for a moved one, which stops at the first key after its
            // old one.
            if let Some((old_key, _, _)) = old
                && entry.key > *old_key
            {
                break;
            }
            for slot in &entry.slots {
                let passes = match old {
                    None => rank <= end,
                    Some((_, _, old_rank)) => rank < old_rank,
                };
                if !passes {
                    break;
                }
                let previous = Carried::Stored(slot.row.clone());
                emit.ranked(RowKind::UpdateBefore, &previous, rank);
                if let (Carried::Input, Some((_, old_row, old_rank))) = (&current, old)
                    && !old_retracted
                {
                    // The moved row's old rank is retracted before its new one is added.
                    emit.ranked(RowKind::UpdateBefore, old_row, old_rank);
                    old_retracted = true;
                }
                emit.ranked(RowKind::UpdateAfter, &current, rank);
                current = previous;
                rank += 1;
            }
        }
        if rank <= end {
            match old {
                None => emit.ranked(RowKind::Insert, &current, rank),
                Some((_, old_row, old_rank)) => {
                    if rank != old_rank {
                        // Flink's `checkArgument(currentRank == oldRank)` fails the job.
                        return Err(Error::State(format!(
                            "an updatable Top-N's walk ends at rank {rank}, not at the moved \
                             row's old rank {old_rank}"
                        )));
                    }
                    if !old_retracted {
                        emit.ranked(RowKind::UpdateBefore, old_row, old_rank);
                    }
                    emit.ranked(RowKind::UpdateAfter, &current, rank);
                }
            }
            return Ok(());
        }
        // The sort keys after the last one visited are past the rank end: they leave.
        for entry in self.entries.drain(visited..) {
            for slot in entry.slots {
                self.keys.remove(&slot.unique);
            }
        }
        Ok(())
    }

    /// `emitRecordsWithRowNumberIgnoreStateError` (as released 2.3.0's bytecode has it, not
    /// as later sources do): a row moved to a worse sort key, from `old_rank` to `new_rank`.
    /// The old row is `-U` at its old rank; each row from the old rank up to the new one
    /// moves up one (`-U` at the rank after its own, `+U` at its own), and the moved row is
    /// `+U` at its new rank.
    fn emit_ignoring_state_error(
        &self,
        new_rank: i64,
        old_row: &Carried,
        old_rank: i64,
        emit: &mut Emit,
    ) {
        emit.ranked(RowKind::UpdateBefore, old_row, old_rank);
        let mut rank = 0i64;
        'walk: for entry in &self.entries {
            for slot in &entry.slots {
                rank += 1;
                if rank == new_rank {
                    break 'walk;
                }
                if old_rank <= rank {
                    let current = Carried::Stored(slot.row.clone());
                    emit.ranked(RowKind::UpdateBefore, &current, rank + 1);
                    emit.ranked(RowKind::UpdateAfter, &current, rank);
                }
            }
        }
        // The moved row is stored as the input row it now is.
        emit.ranked(RowKind::UpdateAfter, &Carried::Input, new_rank);
    }

    /// `rowNumber`: the rank of `unique` under `key`, counting every row before it. A key
    /// the buffer does not hold there fails the job, as in Flink.
    fn row_number(&self, key: &[u8], unique: &[u8]) -> Result<i64> {
        let mut rank = 1i64;
        for entry in &self.entries {
            if entry.key[..] == *key {
                for slot in &entry.slots {
                    if slot.unique[..] == *unique {
                        return Ok(rank);
                    }
                    rank += 1;
                }
            } else {
                rank += entry.slots.len() as i64;
            }
        }
        Err(Error::State(
            "an updatable Top-N does not find a row under its sort key in its buffer".into(),
        ))
    }

    /// Where `unique` lies under `key`.
    fn locate(&self, key: &[u8], unique: &[u8]) -> Result<(usize, usize)> {
        self.entries
            .binary_search_by(|e| e.key[..].cmp(key))
            .ok()
            .and_then(|e| {
                let s = self.entries[e]
                    .slots
                    .iter()
                    .position(|s| s.unique[..] == *unique)?;
                Some((e, s))
            })
            .ok_or_else(|| Error::State("an updatable Top-N's key map and buffer disagree".into()))
    }

    /// `TopNBuffer.checkSortKeyInBufferRange`.
    fn accepts(&self, key: &[u8], top_n: i64) -> bool {
        match self.entries.last() {
            None => true,
            Some(worst) => *key < worst.key[..] || (self.keys.len() as i64) < top_n,
        }
    }

    /// `TopNBuffer.put`: after the rows of an equal key.
    fn put(&mut self, key: &[u8], unique: &[u8], row: &[u8]) {
        let unique = Bytes::copy_from_slice(unique);
        let slot = Slot {
            unique: unique.clone(),
            row: Bytes::copy_from_slice(row),
        };
        let key = match self.entries.binary_search_by(|e| e.key[..].cmp(key)) {
            Ok(i) => {
                self.entries[i].slots.push(slot);
                self.entries[i].key.clone()
            }
            Err(i) => {
                let key = Bytes::copy_from_slice(key);
                self.entries.insert(
                    i,
                    Entry {
                        key: key.clone(),
                        slots: vec![slot],
                    },
                );
                key
            }
        };
        self.keys.insert(unique, key);
    }

    /// `TopNBuffer.remove`: the key's entry goes when its last row does.
    fn remove(&mut self, key: &[u8], unique: &[u8]) {
        if let Ok(e) = self.entries.binary_search_by(|e| e.key[..].cmp(key)) {
            let slots = &mut self.entries[e].slots;
            if let Some(s) = slots.iter().position(|s| s.unique[..] == *unique) {
                slots.remove(s);
                self.keys.remove(unique);
            }
            if slots.is_empty() {
                self.entries.remove(e);
            }
        }
    }

    /// `TopNBuffer.removeLast`: the last row of the worst sort key.
    fn remove_last(&mut self) -> Option<Slot> {
        let last = self.entries.last_mut()?;
        let slot = last.slots.pop()?;
        if last.slots.is_empty() {
            self.entries.pop();
        }
        self.keys.remove(&slot.unique);
        Some(slot)
    }

    /// About the bytes of its encoding.
    pub(super) fn estimated_bytes(&self) -> usize {
        self.entries
            .iter()
            .map(|e| {
                8 + e.key.len()
                    + e.slots
                        .iter()
                        .map(|s| 8 + s.unique.len() + s.row.len())
                        .sum::<usize>()
            })
            .sum()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(super) fn decode(value: Vec<u8>) -> Result<Self> {
        let mut cursor = Cursor::new(value, "an updatable Top-N state");
        let mut state = Updating::default();
        for _ in 0..cursor.u32()? {
            let key = cursor.part()?;
            let slots = (0..cursor.u32()?)
                .map(|_| {
                    let unique = cursor.part()?;
                    let row = cursor.part()?;
                    Ok(Slot { unique, row })
                })
                .collect::<Result<Vec<_>>>()?;
            for slot in &slots {
                if state
                    .keys
                    .insert(slot.unique.clone(), key.clone())
                    .is_some()
                {
                    return Err(Error::State(
                        "an updatable Top-N state holds a unique key twice".into(),
                    ));
                }
            }
            if slots.is_empty() || state.entries.last().is_some_and(|e| e.key >= key) {
                return Err(Error::State(
                    "an updatable Top-N state's sort keys are empty or out of order".into(),
                ));
            }
            state.entries.push(Entry { key, slots });
        }
        cursor.finish()?;
        Ok(state)
    }

    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for entry in &self.entries {
            put_part(&mut out, &entry.key);
            out.extend_from_slice(&(entry.slots.len() as u32).to_le_bytes());
            for slot in &entry.slots {
                put_part(&mut out, &slot.unique);
                put_part(&mut out, &slot.row);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_encodes_and_decodes_and_a_bad_value_is_an_error() {
        let mut state = Updating::default();
        state.put(b"b", b"u1", b"r1");
        state.put(b"a", b"u2", b"r2");
        state.put(b"b", b"u3", b"r3");
        let bytes = state.encode();
        assert_eq!(Updating::decode(bytes.clone()).unwrap(), state);
        for cut in [1, 10, bytes.len() - 1] {
            assert!(
                Updating::decode(bytes[..cut].to_vec()).is_err(),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Updating::decode(longer).is_err());
        // The same unique key under two sort keys cannot be Flink's state.
        let mut twice = Updating::default();
        twice.put(b"a", b"u1", b"r1");
        twice.entries.push(Entry {
            key: Bytes::from_static(b"b"),
            slots: vec![Slot {
                unique: Bytes::from_static(b"u1"),
                row: Bytes::from_static(b"r2"),
            }],
        });
        assert!(Updating::decode(twice.encode()).is_err());
    }

    #[test]
    fn buffer_moves_keep_each_unique_key_once_in_arrival_order() {
        let mut state = Updating::default();
        state.put(b"b", b"u1", b"r1");
        state.put(b"b", b"u2", b"r2");
        state.put(b"a", b"u3", b"r3");
        assert_eq!(state.row_number(b"a", b"u3").unwrap(), 1);
        assert_eq!(state.row_number(b"b", b"u2").unwrap(), 3);
        state.remove(b"b", b"u1");
        state.put(b"a", b"u1", b"r1'");
        assert_eq!(state.row_number(b"a", b"u1").unwrap(), 2);
        assert_eq!(state.row_number(b"b", b"u2").unwrap(), 3);
        assert!(state.row_number(b"b", b"u1").is_err());
        let last = state.remove_last().unwrap();
        assert_eq!(&last.unique[..], b"u2");
        assert_eq!(state.entries.len(), 1);
        assert_eq!(state.keys.len(), 2);
    }
}
