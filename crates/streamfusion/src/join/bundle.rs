//! Mini-batch regular joins: Flink 2.3.0's `MiniBatchStreamingJoinOperator`, which buffers
//! both inputs' rows until `table.exec.mini-batch.size` rows have arrived (its
//! `CountCoBundleTrigger` counts the two inputs together), or a watermark arrives on either
//! input, or a checkpoint barrier or the end of input comes; then it folds each input's
//! bundle and joins the rows that remain: the right input's first and then the left's
//! (INNER, LEFT, FULL), or the left's first (RIGHT).
//!
//! # Folding (the `BufferBundle`s, by the input's state layout)
//!
//! - `JoinKeyContainsUniqueKey` and `InputSideHasUniqueKey` keep a list per join key (per
//!   unique key within it): a retraction after an accumulation removes both (and the list
//!   when it empties), an accumulation after an accumulation replaces it, a retraction after
//!   a retraction replaces it; what remains is `[+X]`, `[-X]` or `[-X, +X]`. Such a pair is
//!   joined with the retraction "suppressed" (`processElementWithSuppress`): the row is not
//!   retracted from state (the accumulation overwrites it), and neither row flips the other
//!   input's padding (no `-D[NULL, other]` on a first association, no `+I[NULL, other]` on
//!   the last one going); the joined rows themselves are emitted.
//! - `InputSideHasNoUniqueKey` keeps a list per join key and row hash code (the row's
//!   `BinaryRowData.hashCode()` with kind `+I`): a row cancels the last opposite-kind row of
//!   its hash (an accumulation a retraction, or the reverse), else it is appended. Only the
//!   hash is compared, as Flink's bundle does.
//!
//! # Order
//!
//! Within a join key the rows are joined in the order Flink's bundle iterates them: its
//! `HashMap` of unique keys (or row hashes) in `java.util.HashMap` order ([`JavaMap`]), each
//! list in order. That order decides which rows an outer join emits, so it is Flink's exactly.
//! Join keys are independent of each other, so they go in their first row's order.

use arrow::array::{Int8Array, UInt32Array};

use super::java_map::JavaMap;
use super::side::Layout;
use crate::changelog::{ChangelogBatch, RowKind};
use crate::error::{Error, Result};
use crate::keys::murmur::hash_bytes_by_words;

/// Both inputs' rows of the bundle being buffered.
#[derive(Debug)]
pub(crate) struct JoinBundle {
    size: usize,
    /// Rows buffered, both inputs (`CountCoBundleTrigger`'s count).
    count: usize,
    pending: [Vec<ChangelogBatch>; 2],
}

impl JoinBundle {
    /// A bundle of `size` rows; zero is refused, as Flink's trigger refuses it.
    pub(crate) fn new(size: usize) -> Result<Self> {
        if size == 0 {
            return Err(Error::OutOfRange(
                "a mini-batch join's bundle holds at least one row".into(),
            ));
        }
        Ok(Self {
            size,
            count: 0,
            pending: [Vec::new(), Vec::new()],
        })
    }

    /// How many more rows the bundle takes before it is full.
    pub(crate) fn room(&self) -> usize {
        self.size - self.count
    }

    /// Buffers `rows` of input `port` (at most [`JoinBundle::room`]); whether the bundle is
    /// now full.
    pub(crate) fn add(&mut self, port: usize, rows: ChangelogBatch) -> bool {
        self.count += rows.num_rows();
        if rows.num_rows() > 0 {
            self.pending[port].push(rows);
        }
        self.count >= self.size
    }

    /// Takes both inputs' buffered batches, starting the next bundle.
    pub(crate) fn take(&mut self) -> [Vec<ChangelogBatch>; 2] {
        self.count = 0;
        std::mem::take(&mut self.pending)
    }

    /// Whether no row is buffered.
    pub(crate) fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The bytes the buffered rows hold.
    pub(crate) fn bytes(&self) -> usize {
        self.pending
            .iter()
            .flatten()
            .map(|b| b.batch().get_array_memory_size())
            .sum()
    }
}

/// An input's bundle after folding: the rows to join, in order, and whether each is joined
/// suppressed (the retraction and accumulation of one `[-X, +X]` pair).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Folded {
    pub order: Vec<u32>,
    pub suppress: Vec<bool>,
}

impl Folded {
    fn push(&mut self, row: u32, suppress: bool) {
        self.order.push(row);
        self.suppress.push(suppress);
    }

    /// `batch`'s rows in this order.
    pub(crate) fn take(&self, batch: &ChangelogBatch) -> Result<ChangelogBatch> {
        let indices = UInt32Array::from(self.order.clone());
        let rows = arrow::compute::take_record_batch(batch.batch(), &indices)?;
        let kinds: Int8Array = self
            .order
            .iter()
            .map(|&r| batch.kind(r as usize).to_byte())
            .collect();
        ChangelogBatch::try_new(rows, Some(kinds))
    }
}

/// Folds one input's bundle of `kinds.len()` rows as Flink's bundle for `layout` does.
/// `row_group` is each row's join key (a group index below `groups`), and `lookup(r)` row
/// `r`'s unique key row (layout `UniqueKey`) or its whole row with kind `+I` (layout
/// `NoUniqueKey`), as `BinaryRowData` bytes.
pub(crate) fn fold<'a>(
    layout: Layout,
    kinds: &[RowKind],
    row_group: &[u32],
    groups: usize,
    lookup: impl Fn(usize) -> &'a [u8],
) -> Folded {
    let mut out = Folded::default();
    match layout {
        Layout::JoinKey => {
            let mut lists: Vec<Vec<u32>> = vec![Vec::new(); groups];
            for (r, &g) in row_group.iter().enumerate() {
                fold_last(&mut lists[g as usize], r as u32, kinds);
            }
            for list in &lists {
                with_suppress(list, kinds, &mut out);
            }
        }
        Layout::UniqueKey => {
            let mut maps: Vec<Option<JavaMap<&[u8], Vec<u32>>>> =
                (0..groups).map(|_| None).collect();
            for (r, &g) in row_group.iter().enumerate() {
                let key = lookup(r);
                let hash = hash_bytes_by_words(key);
                let slot = &mut maps[g as usize];
                let map = slot.get_or_insert_with(JavaMap::new);
                let list = map.entry(hash, key, Vec::new);
                if fold_last(list, r as u32, kinds) && list.is_empty() {
                    map.remove(hash, &key);
                    if map.is_empty() {
                        *slot = None;
                    }
                }
            }
            for map in maps.into_iter().flatten() {
                for list in map.into_values() {
                    with_suppress(&list, kinds, &mut out);
                }
            }
        }
        Layout::NoUniqueKey => {
            let mut maps: Vec<Option<JavaMap<i32, Vec<u32>>>> = (0..groups).map(|_| None).collect();
            for (r, &g) in row_group.iter().enumerate() {
                let hash = hash_bytes_by_words(lookup(r));
                let slot = &mut maps[g as usize];
                let map = slot.get_or_insert_with(JavaMap::new);
                let list = map.entry(hash, hash, Vec::new);
                let accumulate = kinds[r].is_accumulate();
                match list
                    .iter()
                    .rposition(|&o| kinds[o as usize].is_accumulate() != accumulate)
                {
                    Some(at) => {
                        list.remove(at);
                        if list.is_empty() {
                            map.remove(hash, &hash);
                            if map.is_empty() {
                                *slot = None;
                            }
                        }
                    }
                    None => list.push(r as u32),
                }
            }
            for map in maps.into_iter().flatten() {
                for row in map.into_values().flatten() {
                    out.push(row, false);
                }
            }
        }
    }
    out
}

/// Adds row `r` to a unique key's `list` (`foldRecord`); whether it folded away with the
/// list's last row.
fn fold_last(list: &mut Vec<u32>, r: u32, kinds: &[RowKind]) -> bool {
    let accumulate = kinds[r as usize].is_accumulate();
    match list.last() {
        Some(&last) if kinds[last as usize].is_accumulate() => {
            list.pop();
            if !accumulate {
                return true;
            }
        }
        Some(_) if !accumulate => {
            list.pop();
        }
        _ => {}
    }
    list.push(r);
    false
}

/// A unique key's list in `processElementWithSuppress` order: a retraction followed by an
/// accumulation is a suppressed pair.
fn with_suppress(list: &[u32], kinds: &[RowKind], out: &mut Folded) {
    let accumulate = |r: u32| kinds[r as usize].is_accumulate();
    let mut pre: Option<u32> = None;
    let mut rows = list.iter().copied().peekable();
    while let Some(current) = rows.next() {
        if !accumulate(current) && rows.peek().is_some() {
            let next = rows.next().expect("peeked");
            let suppress = accumulate(next);
            if !suppress {
                pre = Some(next);
            }
            out.push(current, suppress);
            if suppress {
                out.push(next, true);
            }
        } else {
            let mut suppress = false;
            if let Some(pre) = pre.take() {
                suppress = accumulate(current);
                out.push(pre, suppress);
            }
            out.push(current, suppress);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RowKind::{Delete as D, Insert as I, UpdateAfter as UA, UpdateBefore as UB};

    fn fold_of(layout: Layout, rows: &[(RowKind, u32, &'static [u8])]) -> Vec<(u32, bool)> {
        let kinds: Vec<RowKind> = rows.iter().map(|r| r.0).collect();
        let groups: Vec<u32> = rows.iter().map(|r| r.1).collect();
        let n = groups.iter().max().map_or(0, |g| g + 1) as usize;
        let folded = fold(layout, &kinds, &groups, n, |r| rows[r].2);
        folded.order.into_iter().zip(folded.suppress).collect()
    }

    // Expected results follow the fold tables in Flink's bundle classes' comments.
    #[test]
    fn a_key_s_accumulation_and_retraction_cancel_and_an_update_pair_is_suppressed() {
        let k: &[u8] = b"";
        // +I then -D of one key: nothing; +I then +U: the +U; -U then +U: a suppressed pair.
        assert_eq!(fold_of(Layout::JoinKey, &[(I, 0, k), (D, 0, k)]), []);
        assert_eq!(
            fold_of(Layout::JoinKey, &[(I, 0, k), (UA, 0, k)]),
            [(1, false)]
        );
        assert_eq!(
            fold_of(Layout::JoinKey, &[(UB, 0, k), (UA, 0, k)]),
            [(0, true), (1, true)]
        );
        // -D, -D keeps the last; -U, +U, -U leaves the first retraction alone.
        assert_eq!(
            fold_of(Layout::JoinKey, &[(D, 0, k), (D, 0, k)]),
            [(1, false)]
        );
        assert_eq!(
            fold_of(Layout::JoinKey, &[(UB, 0, k), (UA, 0, k), (UB, 0, k)]),
            [(0, false)]
        );
        // Two keys fold apart.
        assert_eq!(
            fold_of(Layout::JoinKey, &[(I, 0, k), (I, 1, k), (D, 0, k)]),
            [(1, false)]
        );
    }

    #[test]
    fn unique_keys_fold_apart_within_a_join_key() {
        let (a, b): (&[u8], &[u8]) = (b"aaaaaaaa", b"bbbbbbbb");
        let folded = fold_of(
            Layout::UniqueKey,
            &[(I, 0, a), (UB, 0, b), (D, 0, a), (UA, 0, b)],
        );
        assert_eq!(folded, [(1, true), (3, true)]);
    }

    #[test]
    fn rows_without_a_unique_key_cancel_the_last_opposite_row_of_their_hash() {
        let (x, y): (&[u8], &[u8]) = (b"xxxxxxxx", b"yyyyyyyy");
        // Two +I of x, one -D of x: one +I of x remains (the first); y is untouched.
        let folded = fold_of(
            Layout::NoUniqueKey,
            &[(I, 0, x), (I, 0, y), (I, 0, x), (D, 0, x)],
        );
        let mut rows: Vec<u32> = folded.iter().map(|f| f.0).collect();
        rows.sort();
        assert_eq!(rows, [0, 1]);
        assert!(folded.iter().all(|f| !f.1));
        // A retraction first, then its accumulation: both gone.
        assert_eq!(fold_of(Layout::NoUniqueKey, &[(D, 0, x), (I, 0, x)]), []);
    }

    #[test]
    fn a_bundle_counts_both_inputs_and_refuses_size_zero() {
        assert!(JoinBundle::new(0).is_err());
        let mut bundle = JoinBundle::new(3).unwrap();
        let batch = |n: i64| {
            ChangelogBatch::insert_only(
                arrow::array::RecordBatch::try_from_iter([(
                    "v",
                    std::sync::Arc::new(arrow::array::Int64Array::from_iter_values(0..n)) as _,
                )])
                .unwrap(),
            )
        };
        assert!(!bundle.add(0, batch(2)));
        assert_eq!(bundle.room(), 1);
        assert!(bundle.add(1, batch(1)));
        let [left, right] = bundle.take();
        assert_eq!((left.len(), right.len()), (1, 1));
        assert!(bundle.is_empty() && bundle.room() == 3);
    }
}
