//! Top-N over an updating input: released Flink 2.3.0's `RetractableTopNFunction` (rank
//! strategy `Retract`), written out for one row at a time.
//!
//! Flink keeps per partition two states: `sorted-map`, each sort key's count of rows, and
//! `data-state`, each sort key's rows in arrival order, every row of the partition, not
//! only the top ones. A `+I`/`+U` row adds to both; a `-U`/`-D` row subtracts one from its
//! sort key's count and removes the first equal row (by its bytes, kind erased to `+I`) from
//! its list. Flink does not keep the two consistent: retracting a row that was never added
//! under an existing sort key lowers the count and leaves the list, so both are kept here
//! exactly as Flink has them, and every walk reads counts from one and rows from the other.
//!
//! Each row walks the sort keys in order from the best, stopping past the rank end, and
//! emits as Flink's four walks do (`emitRecordsWithRowNumber`,
//! `emitRecordsWithoutRowNumber`, `retractRecordWithRowNumber`,
//! `retractRecordWithoutRowNumber`): with the rank column or an offset, every row whose rank
//! changes is `-U` at its old rank and `+U` at its new one, and the row entering or leaving
//! the range is `+I` or `-D`; without them, only the rows entering or leaving the top N.
//! A sort key with a count but no rows (Flink's "state staled" case, after state TTL) is
//! dropped from the counts and skipped, as Flink drops it.

use std::collections::BTreeMap;

use bytes::Bytes;
use smallvec::SmallVec;

use super::walk::{Carried, Cursor, Emit, put_part};
use super::{RankSpec, Ranked};
use crate::changelog::RowKind;
use crate::error::{Error, Result};

/// One sort key's rows in arrival order (mostly one).
type Rows = SmallVec<[Bytes; 1]>;

/// One partition's state: each sort key's count (`sorted-map`) and rows (`data-state`).
/// Decoded keys and rows are slices of the value as read (no copy and no allocation each);
/// what a batch adds is copied in.
///
/// Stored as `[u32 counts]`, per count `[u32 key length][key][i64 count]`, then `[u32
/// lists]`, per list `[u32 key length][key][u32 rows]` and per row `[u32 length]
/// [BinaryRowData]`, little-endian.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Retracting {
    counts: BTreeMap<Bytes, i64>,
    rows: BTreeMap<Bytes, Rows>,
}

impl Retracting {
    /// Applies one input row (`key` its sort key, `row` its bytes with kind `+I`,
    /// `accumulate` for `+I`/`+U`), emitting into `out` as `RetractableTopNFunction`.
    pub(super) fn apply(
        &mut self,
        spec: &RankSpec,
        key: &[u8],
        row: &[u8],
        accumulate: bool,
        input: usize,
        out: &mut Ranked,
    ) -> Result<()> {
        let mut emit = Emit { spec, out, input };
        let with_number = spec.with_rank_walk();
        if accumulate {
            let mut owned: Option<Bytes> = None;
            let mut owned_key = || {
                owned
                    .get_or_insert_with(|| Bytes::copy_from_slice(key))
                    .clone()
            };
            match self.counts.get_mut(key) {
                Some(count) => *count += 1,
                None => {
                    self.counts.insert(owned_key(), 1);
                }
            }
            if with_number {
                self.insert_with_number(key, &mut emit);
            } else {
                self.insert_without_number(key, &mut emit)?;
            }
            let row = Bytes::copy_from_slice(row);
            match self.rows.get_mut(key) {
                Some(list) => list.push(row),
                None => {
                    self.rows.insert(owned_key(), SmallVec::from_elem(row, 1));
                }
            }
            return Ok(());
        }
        let removed = if with_number {
            self.retract_with_number(key, row, &mut emit)
        } else {
            self.retract_without_number(key, row, &mut emit)?
        };
        if let Some(count) = self.counts.get_mut(key) {
            *count -= 1;
            if *count == 0 {
                self.counts.remove(key);
            }
        }
        if !removed {
            // The row lies past the walk (or never came): removed from its list anyway.
            if let Some(list) = self.rows.get_mut(key) {
                if let Some(i) = list.iter().position(|r| r[..] == *row) {
                    list.remove(i);
                }
                if list.is_empty() {
                    self.rows.remove(key);
                }
            }
        }
        Ok(())
    }

    /// Sort keys counted but without rows, dropped from the counts as Flink drops them.
    fn drop_stale(&mut self, stale: Vec<Bytes>) {
        for key in stale {
            self.counts.remove(&key);
        }
    }

    /// `emitRecordsWithRowNumber`, after the row was counted: each row after it in range
    /// moves down one rank (`-U` at that rank, `+U` of the row before it), and the row left
    /// over is `+I` at the next rank.
    fn insert_with_number(&mut self, key: &[u8], emit: &mut Emit) {
        let end = emit.spec.rank_end;
        let mut rank = 0i64;
        let mut current = Carried::Input;
        let mut found = false;
        let mut stale = Vec::new();
        for (k, &count) in &self.counts {
            if rank > end {
                break;
            }
            if !found && k[..] == *key {
                rank += count;
                found = true;
            } else if found {
                let Some(list) = self.rows.get(k) else {
                    stale.push(k.clone());
                    continue;
                };
                for previous in list {
                    if rank > end {
                        break;
                    }
                    let previous = Carried::Stored(previous.clone());
                    emit.ranked(RowKind::UpdateBefore, &previous, rank);
                    emit.ranked(RowKind::UpdateAfter, &current, rank);
                    current = previous;
                    rank += 1;
                }
            } else {
                rank += count;
            }
        }
        self.drop_stale(stale);
        if rank <= end {
            emit.ranked(RowKind::Insert, &current, rank);
        }
    }

    /// `emitRecordsWithoutRowNumber`, after the row was counted: the row is `+I` when its
    /// rank is in range, and the row it pushes past the rank end is `-D` (before it).
    fn insert_without_number(&mut self, key: &[u8], emit: &mut Emit) -> Result<()> {
        let end = emit.spec.rank_end;
        let mut rank = 0i64;
        let mut found = false;
        let mut collect = false;
        let mut delete = None;
        let mut stale = Vec::new();
        for (k, &count) in &self.counts {
            if rank > end {
                break;
            }
            if !found && k[..] == *key {
                rank += count;
                collect = emit.spec.in_range(rank);
                found = true;
            } else if found {
                let Some(list) = self.rows.get(k) else {
                    stale.push(k.clone());
                    continue;
                };
                if rank + count <= end {
                    rank += count;
                } else {
                    delete = Some(row_at(list, end - rank)?.clone());
                    break;
                }
            } else {
                rank += count;
            }
        }
        self.drop_stale(stale);
        if let Some(row) = delete {
            emit.plain(RowKind::Delete, &Carried::Stored(row), 0);
        }
        if collect {
            emit.plain(RowKind::Insert, &Carried::Input, 0);
        }
        Ok(())
    }

    /// `retractRecordWithRowNumber`: the row is removed where the walk finds it; each row
    /// after it in range moves up one rank, and the last one's old rank is `-D`. Whether
    /// the walk removed it.
    fn retract_with_number(&mut self, key: &[u8], row: &[u8], emit: &mut Emit) -> bool {
        let end = emit.spec.rank_end;
        let mut rank = 0i64;
        let mut previous: Option<Carried> = None;
        let mut found = false;
        let mut stale = Vec::new();
        let mut emptied = None;
        for (k, &count) in &self.counts {
            if rank > end {
                break;
            }
            if !found && k[..] == *key {
                let Some(list) = self.rows.get_mut(k) else {
                    stale.push(k.clone());
                    continue;
                };
                let mut i = 0;
                while i < list.len() && rank <= end {
                    if !found && list[i][..] == *row {
                        previous = Some(Carried::Stored(list.remove(i)));
                        found = true;
                        rank += 1;
                        continue;
                    }
                    if let Some(before) = previous.as_ref().filter(|_| found) {
                        let current = Carried::Stored(list[i].clone());
                        emit.ranked(RowKind::UpdateBefore, before, rank);
                        emit.ranked(RowKind::UpdateAfter, &current, rank);
                        previous = Some(current);
                    }
                    rank += 1;
                    i += 1;
                }
                if list.is_empty() {
                    emptied = Some(k.clone());
                }
            } else if found {
                let Some(list) = self.rows.get(k) else {
                    stale.push(k.clone());
                    continue;
                };
                for current in list {
                    if rank > end {
                        break;
                    }
                    let current = Carried::Stored(current.clone());
                    let before = previous.as_ref().expect("found sets the row");
                    emit.ranked(RowKind::UpdateBefore, before, rank);
                    emit.ranked(RowKind::UpdateAfter, &current, rank);
                    previous = Some(current);
                    rank += 1;
                }
            } else {
                rank += count;
            }
        }
        if let Some(k) = emptied {
            self.rows.remove(&k);
        }
        self.drop_stale(stale);
        if rank <= end
            && let Some(last) = previous
        {
            emit.ranked(RowKind::Delete, &last, rank);
        }
        found
    }

    /// `retractRecordWithoutRowNumber`: the row is `-D` where the walk finds it, and the row
    /// that moves up into the top N is `+I`. Whether the walk removed it.
    fn retract_without_number(&mut self, key: &[u8], row: &[u8], emit: &mut Emit) -> Result<bool> {
        let end = emit.spec.rank_end;
        let mut next = 1i64;
        let mut found = false;
        let mut stale = Vec::new();
        let mut emptied = None;
        for (k, &count) in &self.counts {
            if next > end {
                break;
            }
            if !found && k[..] == *key {
                let Some(list) = self.rows.get_mut(k) else {
                    stale.push(k.clone());
                    continue;
                };
                let mut i = 0;
                while i < list.len() && next <= end {
                    if !found && list[i][..] == *row {
                        let removed = Carried::Stored(list.remove(i));
                        emit.ranked(RowKind::Delete, &removed, next);
                        found = true;
                        continue;
                    }
                    if found && next == end {
                        emit.ranked(RowKind::Insert, &Carried::Stored(list[i].clone()), next);
                    }
                    next += 1;
                    i += 1;
                }
                if list.is_empty() {
                    emptied = Some(k.clone());
                }
            } else if found {
                let last = next + count - 1;
                if last < end {
                    next = last + 1;
                } else {
                    let Some(list) = self.rows.get(k) else {
                        stale.push(k.clone());
                        continue;
                    };
                    let up = row_at(list, end - next)?.clone();
                    emit.plain(RowKind::Insert, &Carried::Stored(up), 0);
                    break;
                }
            } else {
                next += count;
            }
        }
        if let Some(k) = emptied {
            self.rows.remove(&k);
        }
        self.drop_stale(stale);
        Ok(found)
    }

    /// The state a stored value holds; its keys and rows are slices of `value`.
    pub(super) fn decode(value: Vec<u8>) -> Result<Self> {
        let mut cursor = Cursor::new(value, "a retracting Top-N state");
        // Entries are stored in key order: the maps are built in bulk from the sorted runs.
        let counts = (0..cursor.u32()?)
            .map(|_| {
                let key = cursor.part()?;
                let count = i64::from_le_bytes(cursor.take(8)?[..].try_into().expect("8 bytes"));
                Ok((key, count))
            })
            .collect::<Result<Vec<_>>>()?;
        let rows = (0..cursor.u32()?)
            .map(|_| {
                let key = cursor.part()?;
                let rows = (0..cursor.u32()?)
                    .map(|_| cursor.part())
                    .collect::<Result<Rows>>()?;
                Ok((key, rows))
            })
            .collect::<Result<Vec<_>>>()?;
        let state = Retracting {
            counts: BTreeMap::from_iter(counts),
            rows: BTreeMap::from_iter(rows),
        };
        cursor.finish()?;
        Ok(state)
    }

    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.counts.len() as u32).to_le_bytes());
        for (key, count) in &self.counts {
            put_part(&mut out, key);
            out.extend_from_slice(&count.to_le_bytes());
        }
        out.extend_from_slice(&(self.rows.len() as u32).to_le_bytes());
        for (key, rows) in &self.rows {
            put_part(&mut out, key);
            out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
            for row in rows {
                put_part(&mut out, row);
            }
        }
        out
    }

    /// About the bytes of its encoding.
    pub(super) fn estimated_bytes(&self) -> usize {
        let counts: usize = self.counts.keys().map(|k| 12 + k.len()).sum();
        let rows: usize = self
            .rows
            .iter()
            .map(|(k, list)| 8 + k.len() + list.iter().map(|r| 4 + r.len()).sum::<usize>())
            .sum();
        counts + rows
    }

    /// Whether the partition holds nothing (its state can be deleted).
    pub(super) fn is_empty(&self) -> bool {
        self.counts.is_empty() && self.rows.is_empty()
    }
}

/// The row at `index` of a sort key's list, as Flink's `List.get` reads it (and fails the
/// job where it lies past the list).
fn row_at(list: &[Bytes], index: i64) -> Result<&Bytes> {
    usize::try_from(index)
        .ok()
        .and_then(|i| list.get(i))
        .ok_or_else(|| {
            Error::State(format!(
                "a retracting Top-N reads row {index} of a sort key holding {}",
                list.len()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_encodes_and_decodes_and_a_cut_value_is_an_error() {
        let mut state = Retracting::default();
        let b = Bytes::from_static;
        state.counts.insert(b(b"a"), 2);
        state.counts.insert(b(b"b"), 1);
        state
            .rows
            .insert(b(b"a"), SmallVec::from_vec(vec![b(b"r1"), b(b"r2")]));
        state.rows.insert(b(b"c"), SmallVec::from_elem(b(b"r3"), 1));
        let bytes = state.encode();
        assert_eq!(Retracting::decode(bytes.clone()).unwrap(), state);
        for cut in [1, 10, bytes.len() - 1] {
            assert!(
                Retracting::decode(bytes[..cut].to_vec()).is_err(),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Retracting::decode(longer).is_err());
    }
}
