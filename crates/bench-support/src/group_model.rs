//! A row-at-a-time model of Flink's streaming GROUP BY, the oracle for aggregation tests
//! and suites.
//!
//! Written from `GroupAggFunction.processElement` and `MiniBatchGroupAggFunction.finishBundle`
//! (see `reference/flink-semantics.md` section 4), not from the production operator: a group
//! is the multiset of its live input values, and every aggregate is recomputed from that
//! multiset. For consistent input (retractions only of rows that were added) this is what
//! Flink's accumulators compute.
//!
//! [`ValueModel`] is the model over any value type and any aggregate, given as a function
//! of a group's live values in arrival order (a retraction removes the first equal one, as
//! Flink's list-keeping accumulators do); [`GroupModel`] is it for BIGINT values and
//! `COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v)`, sums wrapping like Java's `long`.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int8Array, Int64Array, RecordBatch, StringArray};

/// Flink's row-kind bytes.
pub const INSERT: i8 = 0;
/// `-U`.
pub const UPDATE_BEFORE: i8 = 1;
/// `+U`.
pub const UPDATE_AFTER: i8 = 2;
/// `-D`.
pub const DELETE: i8 = 3;

/// The aggregates of one group: `COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aggregates {
    /// `COUNT(*)`.
    pub count_star: i64,
    /// `COUNT(v)`.
    pub count: i64,
    /// `SUM(v)`.
    pub sum: Option<i64>,
    /// `MIN(v)`.
    pub min: Option<i64>,
    /// `MAX(v)`.
    pub max: Option<i64>,
    /// `AVG(v)` (BIGINT: truncating division).
    pub avg: Option<i64>,
}

impl Aggregates {
    fn of(values: &[Option<i64>]) -> Self {
        let present: Vec<i64> = values.iter().flatten().copied().collect();
        let sum =
            (!present.is_empty()).then(|| present.iter().fold(0i64, |a, b| a.wrapping_add(*b)));
        Self {
            count_star: values.len() as i64,
            count: present.len() as i64,
            sum,
            min: present.iter().min().copied(),
            max: present.iter().max().copied(),
            avg: sum.map(|s| s.wrapping_div(present.len() as i64)),
        }
    }
}

/// One output row: kind, key, aggregates.
pub type OutputRow<K> = (i8, K, Aggregates);

/// One input row: kind, key, value.
pub type InputRow<K> = (i8, K, Option<i64>);

/// The Arrow form of string-keyed input rows: columns `k` (UTF-8) and `v` (BIGINT), both
/// nullable, and the row kinds, for feeding the same rows to the operator under test.
pub fn arrow_input(rows: &[InputRow<Option<String>>]) -> (RecordBatch, Int8Array) {
    let keys: StringArray = rows.iter().map(|r| r.1.as_deref()).collect();
    let values: Int64Array = rows.iter().map(|r| r.2).collect();
    let kinds: Int8Array = rows.iter().map(|r| Some(r.0)).collect();
    let batch = RecordBatch::try_from_iter_with_nullable(vec![
        ("k", Arc::new(keys) as ArrayRef, true),
        ("v", Arc::new(values) as ArrayRef, true),
    ])
    .expect("two columns of equal length");
    (batch, kinds)
}

/// How the modelled operator emits.
#[derive(Debug, Clone, Copy)]
pub struct Emission {
    /// Whether the input can retract: a record counter then deletes empty groups.
    pub input_retracts: bool,
    /// `-U` before every `+U`.
    pub generate_update_before: bool,
    /// State TTL on: unchanged results are emitted anyway.
    pub ttl: bool,
}

/// The model over values `V` with results `R`: live values per group, in arrival order.
#[derive(Debug, Clone)]
pub struct ValueModel<K: Ord + Clone, V, R> {
    emission: Emission,
    groups: BTreeMap<K, Vec<V>>,
    aggregate: fn(&[V]) -> R,
}

impl<K: Ord + Clone, V: PartialEq + Clone, R: PartialEq> ValueModel<K, V, R> {
    /// An empty model whose groups' results are `aggregate` of their live values.
    pub fn new(emission: Emission, aggregate: fn(&[V]) -> R) -> Self {
        Self {
            emission,
            groups: BTreeMap::new(),
            aggregate,
        }
    }

    /// Immediate mode: every row is applied and emits on its own, in input order.
    pub fn immediate(&mut self, rows: &[(i8, K, V)]) -> Vec<(i8, K, R)> {
        let mut out = Vec::new();
        for row in rows {
            self.bundle_into(std::slice::from_ref(row), &mut out);
        }
        out
    }

    /// Mini-batch mode: the rows form one bundle; each group emits once, groups in order of
    /// first appearance.
    pub fn bundle(&mut self, rows: &[(i8, K, V)]) -> Vec<(i8, K, R)> {
        let mut out = Vec::new();
        self.bundle_into(rows, &mut out);
        out
    }

    fn bundle_into(&mut self, rows: &[(i8, K, V)], out: &mut Vec<(i8, K, R)>) {
        // Each group's rows, groups in order of first appearance.
        let mut index: BTreeMap<&K, usize> = BTreeMap::new();
        type Grouped<'r, K, V> = Vec<(K, Vec<&'r (i8, K, V)>)>;
        let mut grouped: Grouped<'_, K, V> = Vec::new();
        for row in rows {
            let next = grouped.len();
            let i = *index.entry(&row.1).or_insert(next);
            if i == next {
                grouped.push((row.1.clone(), Vec::new()));
            }
            grouped[i].1.push(row);
        }
        let accumulates = |kind: i8| kind == INSERT || kind == UPDATE_AFTER;
        for (key, mine) in grouped {
            let existed = self.groups.contains_key(&key);
            let mut rest = &mine[..];
            if !existed {
                // A group without state ignores the retractions it starts with.
                while let Some((head, tail)) = rest.split_first() {
                    if accumulates(head.0) {
                        break;
                    }
                    rest = tail;
                }
                if rest.is_empty() {
                    continue;
                }
            }
            let aggregate = self.aggregate;
            let values = self.groups.entry(key.clone()).or_default();
            let prev = aggregate(values);
            for (kind, _, v) in rest {
                if accumulates(*kind) {
                    values.push(v.clone());
                } else if let Some(i) = values.iter().position(|x| x == v) {
                    values.remove(i);
                } else {
                    panic!("the model needs consistent input: a retraction of an absent value");
                }
            }
            let new = aggregate(values);
            let alive = !self.emission.input_retracts || !values.is_empty();
            if alive {
                if !existed {
                    out.push((INSERT, key, new));
                } else if self.emission.ttl || prev != new {
                    if self.emission.generate_update_before {
                        out.push((UPDATE_BEFORE, key.clone(), prev));
                    }
                    out.push((UPDATE_AFTER, key, new));
                }
            } else {
                self.groups.remove(&key);
                if existed {
                    out.push((DELETE, key, prev));
                }
            }
        }
    }

    /// The live groups and their results.
    pub fn results(&self) -> BTreeMap<K, R> {
        self.groups
            .iter()
            .map(|(k, v)| (k.clone(), (self.aggregate)(v)))
            .collect()
    }
}

/// The model for BIGINT values and [`Aggregates`].
#[derive(Debug, Clone)]
pub struct GroupModel<K: Ord + Clone>(ValueModel<K, Option<i64>, Aggregates>);

impl<K: Ord + Clone> GroupModel<K> {
    /// An empty model.
    pub fn new(emission: Emission) -> Self {
        Self(ValueModel::new(emission, Aggregates::of))
    }

    /// Immediate mode: every row is applied and emits on its own, in input order.
    pub fn immediate(&mut self, rows: &[InputRow<K>]) -> Vec<OutputRow<K>> {
        self.0.immediate(rows)
    }

    /// Mini-batch mode: the rows form one bundle; each group emits once, groups in order of
    /// first appearance.
    pub fn bundle(&mut self, rows: &[InputRow<K>]) -> Vec<OutputRow<K>> {
        self.0.bundle(rows)
    }

    /// The live groups and their aggregates.
    pub fn results(&self) -> BTreeMap<K, Aggregates> {
        self.0.results()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emission(generate_update_before: bool) -> Emission {
        Emission {
            input_retracts: true,
            generate_update_before,
            ttl: false,
        }
    }

    #[test]
    fn follows_flinks_emission_rules() {
        let mut m = GroupModel::new(emission(true));
        let out = m.immediate(&[
            (DELETE, "x", Some(1)), // unknown group: ignored
            (INSERT, "a", Some(5)),
            (INSERT, "a", None), // COUNT(*) changes, so it emits
            (INSERT, "b", Some(1)),
            (DELETE, "a", None),
            (DELETE, "a", Some(5)),
        ]);
        let kinds: Vec<(i8, &str)> = out.iter().map(|(k, key, _)| (*k, *key)).collect();
        assert_eq!(
            kinds,
            vec![
                (INSERT, "a"),
                (UPDATE_BEFORE, "a"),
                (UPDATE_AFTER, "a"),
                (INSERT, "b"),
                (UPDATE_BEFORE, "a"),
                (UPDATE_AFTER, "a"),
                (DELETE, "a"),
            ]
        );
        assert_eq!(out[6].2.sum, Some(5));
        assert_eq!(out[3].2.avg, Some(1));
    }

    #[test]
    fn a_bundle_emits_once_per_group() {
        let mut m = GroupModel::new(emission(false));
        m.bundle(&[(INSERT, 1, Some(2))]);
        let out = m.bundle(&[
            (INSERT, 1, Some(4)),
            (DELETE, 2, Some(3)),
            (INSERT, 2, Some(3)),
            (DELETE, 1, Some(4)),
        ]);
        // Group 1 ends where it started: nothing. Group 2 drops its leading retraction.
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, INSERT);
        assert_eq!(out[0].2.count_star, 1);
    }
}
