//! Two-phase (local -> global) GROUP BY against an independent multiset model of Flink's
//! mini-batch emission, and against the one-phase operator in mini-batch mode for the same
//! bundles, on both backends and across a checkpoint and restore of the global operator.
//!
//! Why the outputs must be equal: the inputs are consistent changelogs (a retraction only
//! takes back a live row), so no retraction ever reaches a group without state, and values
//! are BIGINT, whose sums wrap and are therefore associative. Then merging a bundle's
//! partial (its rows accumulated from zero) into the stored accumulator gives the
//! accumulator the rows give applied in order, and the global operator emits with the same
//! rules, once per key per bundle, keys in order of first appearance. Where Flink's
//! two-phase output genuinely differs (a retraction for a group without state, SINGLE_VALUE's
//! merge) is pinned by the focused tests at the bottom.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int8Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Int64Type};
use bench_support::fixtures::splitmix64;
use streamfusion::aggregate::{
    AggCall, AggFunction, GlobalGroupAggregate, GroupAggSpec, GroupAggregate, LocalGroupAggregate,
};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::StateConfig;
use streamfusion::ops::keyed::all_key_groups;
use streamfusion::state::StateBackend;
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::state::memory::MemoryBackend;
use streamfusion::state::rocks::{RocksBackend, RocksOptions};
use streamfusion::types::LogicalType;

use super::common::{Backend, config, open};

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        let out = splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        out % n
    }
}

const SEED: u64 = 0x5EED_F11C;
const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);
const CHUNK: usize = 17;

type Key = Option<String>;
/// Kind byte, key, value.
type Row = (i8, Key, Option<i64>);
/// Kind byte, key, one result per call.
type Out = (i8, Key, Vec<Option<i64>>);

fn spec(
    calls: &[(AggFunction, &str)],
    input_retracts: bool,
    generate_update_before: bool,
    mini_batch_rows: Option<usize>,
) -> GroupAggSpec {
    GroupAggSpec {
        input_names: vec!["k".into(), "v".into()],
        input_types: vec![STRING, LogicalType::BigInt],
        grouping: vec![0],
        calls: calls
            .iter()
            .map(|&(f, name)| {
                let arg = (f != AggFunction::CountStar).then_some(1);
                let call = AggCall::new(f, arg, name);
                // Calls named `*_d` are `f(DISTINCT v)`.
                if name.ends_with("_d") {
                    call.distinct()
                } else {
                    call
                }
            })
            .collect(),
        input_retracts,
        generate_update_before,
        mini_batch_rows,
        state_ttl: None,
        max_parallelism: 128,
    }
}

const RETRACTING: &[(AggFunction, &str)] = &[
    (AggFunction::CountStar, "cnt"),
    (AggFunction::Count, "cnt_v"),
    (AggFunction::Sum, "sum_v"),
    (AggFunction::Sum0, "sum0_v"),
    (AggFunction::Avg, "avg_v"),
];
/// No COUNT(*): the planner's hidden record counter decides deletion.
const HIDDEN_COUNTER: &[(AggFunction, &str)] =
    &[(AggFunction::Sum, "sum_v"), (AggFunction::Avg, "avg_v")];
const INSERT_ONLY: &[(AggFunction, &str)] = &[
    (AggFunction::CountStar, "cnt"),
    (AggFunction::Count, "cnt_v"),
    (AggFunction::Sum, "sum_v"),
    (AggFunction::Sum0, "sum0_v"),
    (AggFunction::Avg, "avg_v"),
    (AggFunction::Min, "min_v"),
    (AggFunction::Max, "max_v"),
];

/// Retracting MIN/MAX (value maps in the partials) and DISTINCT calls (distinct maps).
const MAPS: &[(AggFunction, &str)] = &[
    (AggFunction::CountStar, "cnt"),
    (AggFunction::Min, "min_v"),
    (AggFunction::Max, "max_v"),
    (AggFunction::Count, "cnt_d"),
    (AggFunction::Sum, "sum_d"),
    (AggFunction::Avg, "avg_d"),
];
/// DISTINCT over an insert-only input.
const INSERT_ONLY_DISTINCT: &[(AggFunction, &str)] = &[
    (AggFunction::Count, "cnt_d"),
    (AggFunction::Sum0, "sum0_d"),
    (AggFunction::Max, "max_v"),
];

const SINGLE: &[(AggFunction, &str)] = &[
    (AggFunction::SingleValue, "one"),
    (AggFunction::Count, "cnt_v"),
];

fn keys() -> Vec<Key> {
    let mut keys: Vec<Key> = vec![None, Some(String::new()), Some("größer 🦀".into())];
    for i in 0..9 {
        keys.push(Some(format!("k{i}")));
    }
    keys
}

/// A consistent changelog (retractions take back live rows, as `-U` or `-D`), with NULLs
/// and values at BIGINT's edges; insert-only when `retracts` is false.
fn changelog(rng: &mut Rng, rows: usize, retracts: bool) -> Vec<Row> {
    let keys = keys();
    let mut live: Vec<(Key, Option<i64>)> = Vec::new();
    let mut out = Vec::with_capacity(rows);
    while out.len() < rows {
        if retracts && !live.is_empty() && rng.below(10) >= 6 {
            let (key, value) = live.swap_remove(rng.below(live.len() as u64) as usize);
            out.push((if rng.below(2) == 0 { 1 } else { 3 }, key, value));
            continue;
        }
        let key = keys[rng.below(keys.len() as u64) as usize].clone();
        let value = match rng.below(8) {
            0 => None,
            1 => Some(i64::MAX - rng.below(3) as i64),
            2 => Some(i64::MIN + rng.below(3) as i64),
            _ => Some(rng.below(40) as i64 - 20),
        };
        live.push((key.clone(), value));
        let kind = if retracts && rng.below(4) == 0 { 2 } else { 0 };
        out.push((kind, key, value));
    }
    out
}

/// A consistent changelog with at most one live row per key, as SINGLE_VALUE requires.
fn single_row_changelog(rng: &mut Rng, rows: usize) -> Vec<Row> {
    let keys = keys();
    let mut live: Vec<Option<Option<i64>>> = vec![None; keys.len()];
    let mut out = Vec::with_capacity(rows);
    while out.len() < rows {
        let k = rng.below(keys.len() as u64) as usize;
        match live[k].take() {
            Some(v) => out.push((if rng.below(2) == 0 { 1 } else { 3 }, keys[k].clone(), v)),
            None => {
                let v = (rng.below(5) != 0).then(|| rng.below(100) as i64 - 50);
                live[k] = Some(v);
                out.push((if rng.below(4) == 0 { 2 } else { 0 }, keys[k].clone(), v));
            }
        }
    }
    out
}

/// The model: each group's live values; results recomputed from them per bundle, emitted
/// with `MiniBatchGroupAggFunction`'s rules (TTL off).
struct Model {
    /// Each call's function and whether it is DISTINCT.
    calls: Vec<(AggFunction, bool)>,
    retracts: bool,
    generate_update_before: bool,
    groups: Vec<(Key, Vec<Option<i64>>)>,
}

impl Model {
    fn results(&self, values: &[Option<i64>]) -> Vec<Option<i64>> {
        self.calls
            .iter()
            .map(|&(f, distinct)| {
                let mut present: Vec<i64> = values.iter().flatten().copied().collect();
                if distinct {
                    present.sort_unstable();
                    present.dedup();
                }
                Self::result(f, values, &present)
            })
            .collect()
    }

    /// `f` over a group's rows (`values`) and their non-NULL values (`present`).
    fn result(f: AggFunction, values: &[Option<i64>], present: &[i64]) -> Option<i64> {
        let sum = present.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let any = !present.is_empty();
        match f {
            AggFunction::CountStar => Some(values.len() as i64),
            AggFunction::Count => Some(present.len() as i64),
            AggFunction::Sum => any.then_some(sum),
            AggFunction::Sum0 => Some(sum),
            AggFunction::Avg => any.then(|| sum.wrapping_div(present.len() as i64)),
            AggFunction::Min => present.iter().min().copied(),
            AggFunction::Max => present.iter().max().copied(),
            AggFunction::SingleValue => values.first().copied().flatten(),
            other => panic!("the model has no {other:?}"),
        }
    }

    fn bundle(&mut self, rows: &[Row], out: &mut Vec<Out>) {
        let mut order: Vec<Key> = Vec::new();
        for (_, key, _) in rows {
            if !order.contains(key) {
                order.push(key.clone());
            }
        }
        for key in order {
            let at = self.groups.iter().position(|(k, _)| *k == key);
            let existed = at.is_some();
            let mut values = at.map_or_else(Vec::new, |i| self.groups[i].1.clone());
            let prev = self.results(&values);
            for (kind, _, v) in rows.iter().filter(|r| r.1 == key) {
                if *kind == 0 || *kind == 2 {
                    values.push(*v);
                } else {
                    let i = values
                        .iter()
                        .position(|x| x == v)
                        .expect("consistent input");
                    values.remove(i);
                }
            }
            let new = self.results(&values);
            let alive = !self.retracts || !values.is_empty();
            match (alive, existed) {
                (true, false) => out.push((0, key.clone(), new)),
                (true, true) if prev != new => {
                    if self.generate_update_before {
                        out.push((1, key.clone(), prev));
                    }
                    out.push((2, key.clone(), new));
                }
                (false, true) => out.push((3, key.clone(), prev)),
                _ => {}
            }
            match (alive, at) {
                (true, Some(i)) => self.groups[i].1 = values,
                (true, None) => self.groups.push((key, values)),
                (false, Some(i)) => {
                    self.groups.remove(i);
                }
                (false, None) => {}
            }
        }
    }
}

/// The model's changelog when bundles are the smallest runs of whole chunks reaching
/// `local_rows` rows (the local operator's trigger), merged `per_global` at a time (the
/// global operator's), plus the remainder.
fn expected(spec: &GroupAggSpec, input: &[Row], local_rows: usize, per_global: usize) -> Vec<Out> {
    let mut model = Model {
        calls: spec
            .calls
            .iter()
            .map(|c| (c.function, c.distinct))
            .collect(),
        retracts: spec.input_retracts,
        generate_update_before: spec.generate_update_before,
        groups: Vec::new(),
    };
    let mut local_bundles: Vec<Vec<Row>> = Vec::new();
    let mut bundle: Vec<Row> = Vec::new();
    for rows in input.chunks(CHUNK) {
        bundle.extend_from_slice(rows);
        if bundle.len() >= local_rows {
            local_bundles.push(std::mem::take(&mut bundle));
        }
    }
    if !bundle.is_empty() {
        local_bundles.push(bundle);
    }
    let mut out = Vec::new();
    for global in local_bundles.chunks(per_global) {
        model.bundle(&global.concat(), &mut out);
    }
    out
}

fn batch(rows: &[Row]) -> ChangelogBatch {
    let keys: StringArray = rows.iter().map(|r| r.1.as_deref()).collect();
    let values: Int64Array = rows.iter().map(|r| r.2).collect();
    let kinds: Int8Array = rows.iter().map(|r| Some(r.0)).collect();
    let batch = RecordBatch::try_from_iter_with_nullable(vec![
        ("k", Arc::new(keys) as ArrayRef, true),
        ("v", Arc::new(values) as ArrayRef, true),
    ])
    .unwrap();
    ChangelogBatch::try_new(batch, Some(kinds)).unwrap()
}

fn rows_of(out: &ChangelogBatch) -> Vec<Out> {
    let b = out.batch();
    let key = b.column(0).as_string::<i32>();
    (0..out.num_rows())
        .map(|i| {
            let values = (1..b.num_columns())
                .map(|c| {
                    let a = b.column(c).as_primitive::<Int64Type>();
                    (!a.is_null(i)).then(|| a.value(i))
                })
                .collect();
            (
                out.kind(i).to_byte(),
                (!key.is_null(i)).then(|| key.value(i).to_string()),
                values,
            )
        })
        .collect()
}

/// Local -> global in `CHUNK`-row batches: the local bundle is `local_rows` rows, the global
/// one `per_global` local bundles. With `restore_at`, the global operator is checkpointed
/// and restored after that many global bundles.
fn two_phase(
    backend: Backend,
    spec: &GroupAggSpec,
    input: &[Row],
    local_rows: usize,
    per_global: usize,
    restore_at: Option<usize>,
) -> Vec<Out> {
    let dir = tempfile::tempdir().unwrap();
    let local_spec = GroupAggSpec {
        mini_batch_rows: Some(local_rows),
        ..spec.clone()
    };
    let mut local = LocalGroupAggregate::new(local_spec).unwrap();
    // Every local bundle has at most one partial row per key, at least one row: a global
    // bundle of `per_global` local bundles is flushed by hand.
    let global_spec = GroupAggSpec {
        mini_batch_rows: Some(usize::MAX),
        ..spec.clone()
    };
    let mut global =
        GlobalGroupAggregate::new(global_spec.clone(), open(backend, dir.path())).unwrap();
    let mut out = Vec::new();
    let (mut locals, mut globals) = (0, 0);
    let mut partials = Vec::new();
    let chunks: Vec<&[Row]> = input.chunks(CHUNK).collect();
    for (i, rows) in chunks.iter().enumerate() {
        let mut p = local.process(&batch(rows)).unwrap();
        if i + 1 == chunks.len() && p.num_rows() == 0 {
            p = local.flush().unwrap();
        }
        if p.num_rows() == 0 {
            continue;
        }
        assert_eq!(p.schema(), *local.partial_schema());
        partials.push(p);
        locals += 1;
        if locals % per_global != 0 && i + 1 != chunks.len() {
            continue;
        }
        for p in partials.drain(..) {
            assert_eq!(rows_of(&global.process(&p).unwrap()), vec![]);
        }
        out.extend(rows_of(&global.flush().unwrap()));
        globals += 1;
        if restore_at == Some(globals) {
            let published = global.checkpoint(&dir.path().join("ckpt")).unwrap();
            drop(global);
            let opened = Checkpoint::open(published.path()).unwrap();
            global = GlobalGroupAggregate::restore(
                global_spec.clone(),
                &config(backend, dir.path()),
                all_key_groups(128).unwrap(),
                &[opened],
            )
            .unwrap();
        }
    }
    out
}

/// The one-phase operator in mini-batch mode, same chunks and bundle size.
fn one_phase(spec: &GroupAggSpec, input: &[Row], local_rows: usize) -> Vec<Out> {
    let spec = GroupAggSpec {
        mini_batch_rows: Some(local_rows),
        ..spec.clone()
    };
    let mut op = GroupAggregate::new(spec, Box::new(MemoryBackend::new())).unwrap();
    let mut out = Vec::new();
    for rows in input.chunks(CHUNK) {
        out.extend(rows_of(&op.process(&batch(rows)).unwrap()));
    }
    out.extend(rows_of(&op.flush().unwrap()));
    out
}

fn assert_same(got: &[Out], want: &[Out], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: changelog lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "{what}: row {i}");
    }
}

#[test]
fn local_then_global_matches_the_model_and_one_phase_mini_batch() {
    let mut rng = Rng(SEED);
    for (calls, retracts) in [
        (RETRACTING, true),
        (HIDDEN_COUNTER, true),
        (INSERT_ONLY, false),
        (SINGLE, true),
        (MAPS, true),
        (INSERT_ONLY_DISTINCT, false),
    ] {
        let input = match calls {
            SINGLE => single_row_changelog(&mut rng, 700),
            // Long enough for groups to hold more values than fit in an accumulator, so
            // maps move to the sorted-map table.
            MAPS => changelog(&mut rng, 2000, retracts),
            _ => changelog(&mut rng, 700, retracts),
        };
        for backend in [Backend::Memory, Backend::Rocks] {
            for gub in [true, false] {
                for local_rows in [1, 40, 120] {
                    let spec = spec(calls, retracts, gub, None);
                    let what = format!(
                        "{backend:?} calls={} retracts={retracts} gub={gub} local_rows={local_rows}",
                        calls.len()
                    );
                    let want = expected(&spec, &input, local_rows, 1);
                    assert!(want.len() > 20, "{what}: the input exercises little");
                    assert_same(&one_phase(&spec, &input, local_rows), &want, &what);
                    for restore_at in [None, Some(3)] {
                        let got = two_phase(backend, &spec, &input, local_rows, 1, restore_at);
                        assert_same(&got, &want, &format!("{what} restore_at={restore_at:?}"));
                    }
                }
            }
        }
    }
}

#[test]
fn a_global_bundle_spanning_local_bundles_emits_once_per_key() {
    let mut rng = Rng(SEED ^ 3);
    let input = changelog(&mut rng, 500, true);
    for calls in [RETRACTING, MAPS] {
        let spec = spec(calls, true, true, None);
        for backend in [Backend::Memory, Backend::Rocks] {
            for per_global in [2, 5] {
                let got = two_phase(backend, &spec, &input, 20, per_global, Some(2));
                let want = expected(&spec, &input, 20, per_global);
                let what = format!("{backend:?} calls={} per_global={per_global}", calls.len());
                assert_same(&got, &want, &what);
            }
        }
    }
}

#[test]
fn partial_schema_carries_each_calls_accumulator_fields() {
    let mut spec = spec(INSERT_ONLY, false, true, None);
    spec.calls
        .push(AggCall::new(AggFunction::SingleValue, Some(1), "one"));
    let local = LocalGroupAggregate::new(spec.clone()).unwrap();
    let fields: Vec<(String, DataType)> = local
        .partial_schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    let i64t = DataType::Int64;
    let want: Vec<(&str, DataType)> = vec![
        ("k", DataType::Utf8),
        ("cnt$count", i64t.clone()),
        ("cnt_v$count", i64t.clone()),
        ("sum_v$sum", i64t.clone()),
        ("sum0_v$sum", i64t.clone()),
        ("avg_v$sum", i64t.clone()),
        ("avg_v$count", i64t.clone()),
        ("min_v$value", i64t.clone()),
        ("max_v$value", i64t.clone()),
        ("one$value", i64t.clone()),
        ("one$count", DataType::Int32),
    ];
    let want: Vec<(String, DataType)> = want.into_iter().map(|(n, t)| (n.into(), t)).collect();
    assert_eq!(fields, want);

    // Retracting SUM adds its count; no COUNT(*) adds the hidden counter.
    let local = LocalGroupAggregate::new(spec_of(&[(AggFunction::Sum, "s")], true)).unwrap();
    let names: Vec<&str> = local
        .partial_schema()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["k", "s$sum", "s$count", "$count1"]);
}

fn spec_of(calls: &[(AggFunction, &str)], retracts: bool) -> GroupAggSpec {
    spec(calls, retracts, true, None)
}

#[test]
fn a_local_partial_is_each_keys_accumulator_from_zero() {
    let local = LocalGroupAggregate::new(spec_of(&[(AggFunction::Sum, "s")], true)).unwrap();
    let a = Some("a".to_string());
    let b = Some("b".to_string());
    // `b` starts with a retraction: the local phase has no state and retracts from zero.
    let rows: Vec<Row> = vec![
        (3, b.clone(), Some(5)),
        (0, a.clone(), Some(1)),
        (0, a.clone(), None),
        (1, a.clone(), Some(1)),
        (2, a.clone(), Some(7)),
    ];
    let p = local
        .aggregate(&[batch(&rows[..2]), batch(&rows[2..])])
        .unwrap();
    let key = p.column(0).as_string::<i32>();
    assert_eq!((key.value(0), key.value(1)), ("b", "a"));
    let col = |c: usize| p.column(c).as_primitive::<Int64Type>().clone();
    // SumWithRetractAggFunction: retract from NULL is `0 - 5`; counts are non-NULL values.
    assert_eq!(col(1).values().to_vec(), [-5, 7]);
    assert_eq!(col(2).values().to_vec(), [-1, 1]);
    // The hidden COUNT(*): every row.
    assert_eq!(col(3).values().to_vec(), [-1, 2]);
}

/// Where Flink's two-phase plan differs from one-phase: a retraction reaching a group
/// without state is not ignored; the negative count is stored and emitted.
#[test]
fn a_retraction_for_a_group_without_state_is_not_ignored() {
    let calls = &[(AggFunction::CountStar, "cnt"), (AggFunction::Sum, "s")];
    let spec = spec_of(calls, true);
    let ghost: Vec<Row> = vec![(3, Some("g".into()), Some(4))];
    assert_eq!(one_phase(&spec, &ghost, 1), vec![]);
    let mut local = LocalGroupAggregate::new(spec.clone()).unwrap();
    let mut global = GlobalGroupAggregate::new(spec, Box::new(MemoryBackend::new())).unwrap();
    let out = global
        .process(&local.process(&batch(&ghost)).unwrap())
        .unwrap();
    assert_eq!(
        rows_of(&out),
        vec![(0, Some("g".into()), vec![Some(-1), Some(-4)])]
    );
    // The group now exists with count -1: one insertion brings it to zero and deletes it.
    let again: Vec<Row> = vec![(0, Some("g".into()), Some(4))];
    let out = global
        .process(&local.process(&batch(&again)).unwrap())
        .unwrap();
    assert_eq!(
        rows_of(&out),
        vec![(3, Some("g".into()), vec![Some(-1), Some(-4)])]
    );
}

/// SINGLE_VALUE's merge (`SingleValueAggFunction.mergeExpressions`): counts add as INT and
/// more than one fails; a sum of one takes the partial's value.
#[test]
fn single_value_merges_as_flink_does() {
    let calls = &[(AggFunction::SingleValue, "one")];
    let spec = spec_of(calls, true);
    let mut local = LocalGroupAggregate::new(spec.clone()).unwrap();
    let mut global = GlobalGroupAggregate::new(spec, Box::new(MemoryBackend::new())).unwrap();
    let k = Some("k".to_string());
    let mut step = |rows: &[Row]| -> streamfusion::Result<Vec<Out>> {
        let p = local.process(&batch(rows))?;
        Ok(rows_of(&global.process(&p)?))
    };
    assert_eq!(
        step(&[(0, k.clone(), Some(1))]).unwrap(),
        vec![(0, k.clone(), vec![Some(1)])]
    );
    // Replaced within one bundle: the partial is (2, count 0); 1 + 0 takes its value.
    assert_eq!(
        step(&[(3, k.clone(), Some(1)), (0, k.clone(), Some(2))]).unwrap(),
        vec![(1, k.clone(), vec![Some(1)]), (2, k.clone(), vec![Some(2)])]
    );
    // A row inserted and retracted within a bundle: partial (NULL, 0), and 1 + 0 takes the
    // NULL, where one-phase would have failed on the second accumulation.
    assert_eq!(
        step(&[(0, k.clone(), Some(9)), (3, k.clone(), Some(9))]).unwrap(),
        vec![(1, k.clone(), vec![Some(2)]), (2, k.clone(), vec![None])]
    );
    // A second live row fails the merge.
    let err = step(&[(0, k.clone(), Some(3))]).unwrap_err();
    assert!(
        matches!(err, streamfusion::Error::SingleValue { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("more than one"), "{err}");
}

/// A changelog of `kinds.len()` rows of the one key `"k"`, then `columns`.
fn one_key_batch(kinds: &[i8], columns: Vec<(&str, ArrayRef)>) -> ChangelogBatch {
    let key: ArrayRef = Arc::new(StringArray::from(vec!["k"; kinds.len()]));
    let columns = std::iter::once(("k", key)).chain(columns);
    let input = RecordBatch::try_from_iter(columns).unwrap();
    ChangelogBatch::try_new(input, Some(Int8Array::from(kinds.to_vec()))).unwrap()
}

/// LISTAGG with retraction in two phases, step by step as `ListAggWithRetractAggFunction`
/// (`retract`, `merge`) and the global emission rules give it: one local bundle per global
/// bundle, one key.
#[test]
fn listagg_with_retraction_merges_its_lists_as_flink_does() {
    let mut spec = spec_of(&[(AggFunction::ListAgg, "l")], true);
    spec.input_types[1] = STRING;
    let mut local = LocalGroupAggregate::new(spec.clone()).unwrap();
    assert_eq!(
        local
            .partial_schema()
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect::<Vec<_>>(),
        ["k", "l$list", "l$retractList", "$count1"]
    );
    let mut global = GlobalGroupAggregate::new(spec, Box::new(MemoryBackend::new())).unwrap();
    let mut step = |rows: &[(i8, &str)]| -> Vec<(i8, Option<String>)> {
        let values = StringArray::from(rows.iter().map(|r| r.1).collect::<Vec<_>>());
        let kinds: Vec<i8> = rows.iter().map(|r| r.0).collect();
        let input = one_key_batch(&kinds, vec![("v", Arc::new(values))]);
        let out = global.process(&local.process(&input).unwrap()).unwrap();
        let values = out.batch().column(1).as_string::<i32>();
        (0..out.num_rows())
            .map(|r| {
                let v = values.is_valid(r).then(|| values.value(r).to_string());
                (out.kind(r).to_byte(), v)
            })
            .collect()
    };
    let s = |v: &str| Some(v.to_string());
    // A new group: the partial's list as it came.
    assert_eq!(step(&[(0, "a"), (0, "b"), (0, "a")]), [(0, s("a,b,a"))]);
    // `-U a` finds no `a` locally: retractList [a]; the merge removes the first stored `a`.
    assert_eq!(
        step(&[(1, "a"), (2, "c")]),
        [(1, s("a,b,a")), (2, s("b,a,c"))]
    );
    // `+I a, -D a` cancel in the local list, so the stored list is untouched and the
    // unchanged result is suppressed (one-phase would have removed the stored `a` and
    // emitted "b,c,a"). `-D z` finds no `z` anywhere and stays pending in the state.
    assert_eq!(step(&[(0, "a"), (3, "a"), (3, "z")]), []);
    // A later `z` meets the pending retraction in the merge: still "b,a,c", still silent.
    assert_eq!(step(&[(0, "z")]), []);
    // Retracting the rest empties the list and brings the count to zero.
    assert_eq!(step(&[(3, "b"), (3, "a"), (3, "c")]), [(3, s("b,a,c"))]);
}

/// JSON_OBJECTAGG in two phases as `JsonObjectAggFunction.merge` gives it: members put
/// after `assertKeyNotPresent`; a local retraction never reaches the stored object, so an
/// update of a stored key fails as a duplicate, as it does in Flink.
#[test]
fn json_objectagg_merges_its_members_as_flink_does() {
    let spec = |input_retracts: bool| GroupAggSpec {
        input_names: vec!["k".into(), "name".into(), "v".into()],
        input_types: vec![STRING, STRING, LogicalType::BigInt],
        grouping: vec![0],
        calls: vec![AggCall::json_object_agg(1, 2, true, "o")],
        input_retracts,
        generate_update_before: true,
        mini_batch_rows: None,
        state_ttl: None,
        max_parallelism: 128,
    };
    let run = |input_retracts: bool, bundles: &[&[(i8, &str, Option<i64>)]]| {
        let mut local = LocalGroupAggregate::new(spec(input_retracts)).unwrap();
        let mut global =
            GlobalGroupAggregate::new(spec(input_retracts), Box::new(MemoryBackend::new()))
                .unwrap();
        let mut out: Vec<(i8, String)> = Vec::new();
        for rows in bundles {
            let names = StringArray::from(rows.iter().map(|r| r.1).collect::<Vec<_>>());
            let values = Int64Array::from(rows.iter().map(|r| r.2).collect::<Vec<_>>());
            let kinds: Vec<i8> = rows.iter().map(|r| r.0).collect();
            let input = one_key_batch(
                &kinds,
                vec![("name", Arc::new(names)), ("v", Arc::new(values))],
            );
            let partial = local.process(&input)?;
            let changes = global.process(&partial)?;
            let json = changes.batch().column(1).as_string::<i32>();
            for r in 0..changes.num_rows() {
                out.push((changes.kind(r).to_byte(), json.value(r).to_string()));
            }
        }
        Ok::<_, streamfusion::Error>(out)
    };
    let j = |s: &str| s.to_string();
    assert_eq!(
        run(
            false,
            &[&[(0, "b", Some(2)), (0, "a", None)], &[(0, "c", Some(3))]]
        )
        .unwrap(),
        [
            (0, j(r#"{"a":null,"b":2}"#)),
            (1, j(r#"{"a":null,"b":2}"#)),
            (2, j(r#"{"a":null,"b":2,"c":3}"#)),
        ]
    );
    // A key both the stored object and a partial hold.
    let err = run(false, &[&[(0, "a", Some(1))], &[(0, "a", Some(5))]]).unwrap_err();
    assert!(
        err.to_string().contains("Key 'a' is already present"),
        "{err}"
    );
    // `-U b, +U b` in one local bundle: the removal finds nothing locally, the partial puts
    // `b` again, and the merge fails on the stored `b`.
    let err = run(
        true,
        &[
            &[(0, "b", Some(2))],
            &[(1, "b", Some(2)), (2, "b", Some(7))],
        ],
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("Key 'b' is already present"),
        "{err}"
    );
}

#[test]
fn calls_flink_does_not_split_are_refused() {
    let one_phase_only = [
        (AggFunction::FirstValue, false),
        (AggFunction::LastValue, true),
        (AggFunction::JsonArrayAggNullOnNull, false),
    ];
    for (f, retracts) in one_phase_only {
        let mut s = spec_of(&[(f, "x")], retracts);
        s.input_types[1] = STRING;
        let err = LocalGroupAggregate::new(s).unwrap_err();
        assert!(err.to_string().contains("no merge"), "{f:?}: {err}");
    }
    let mut listagg = spec_of(&[(AggFunction::ListAgg, "x")], false);
    listagg.input_types[1] = STRING;
    let err = LocalGroupAggregate::new(listagg).unwrap_err();
    assert!(err.to_string().contains("no merge"), "{err}");
}

#[test]
fn the_global_checkpoint_refuses_buffered_partials_and_other_plans() {
    let dir = tempfile::tempdir().unwrap();
    let spec = GroupAggSpec {
        mini_batch_rows: Some(100),
        ..spec_of(RETRACTING, true)
    };
    let mut local = LocalGroupAggregate::new(spec_of(RETRACTING, true)).unwrap();
    let mut global =
        GlobalGroupAggregate::new(spec.clone(), Box::new(MemoryBackend::new())).unwrap();
    let p = local
        .process(&batch(&[(0, Some("a".into()), Some(1))]))
        .unwrap();
    assert_eq!(global.process(&p).unwrap().num_rows(), 0);
    let err = global.checkpoint(&dir.path().join("early")).unwrap_err();
    assert!(err.to_string().contains("flush"), "{err}");
    assert_eq!(global.flush().unwrap().num_rows(), 1);
    let published = global.checkpoint(&dir.path().join("ckpt")).unwrap();
    let opened = Checkpoint::open(published.path()).unwrap();
    // A one-phase operator cannot take over the global operator's state, nor another plan.
    let restore = |global: bool, spec: GroupAggSpec| {
        let (config, all) = (StateConfig::memory(), all_key_groups(128).unwrap());
        let sources = std::slice::from_ref(&opened);
        if global {
            GlobalGroupAggregate::restore(spec, &config, all, sources).map(drop)
        } else {
            GroupAggregate::restore(spec, &config, all, sources).map(drop)
        }
    };
    assert!(restore(false, spec.clone()).is_err());
    assert!(restore(true, spec_of(HIDDEN_COUNTER, true)).is_err());
    assert!(restore(true, spec.clone()).is_ok());
    // Partials of the wrong shape, or with a NULL count, are refused.
    let err = global.process(&batch(&[]).batch().clone()).unwrap_err();
    assert!(err.to_string().contains("partial"), "{err}");
    let mut columns = p.columns().to_vec();
    columns[1] = Arc::new(Int64Array::from(vec![None::<i64>]));
    let nulled = RecordBatch::try_new(p.schema(), columns).unwrap();
    global.process(&nulled).unwrap();
    let err = global.flush().unwrap_err();
    assert!(err.to_string().contains("NULL count"), "{err}");
}

/// Runs one-key bundles through local -> global (one local bundle per global bundle) and
/// returns each bundle's changelog rows.
fn one_key_bundles(
    backend: Backend,
    spec: &GroupAggSpec,
    bundles: &[Vec<(i8, i64)>],
) -> Vec<Vec<Out>> {
    let dir = tempfile::tempdir().unwrap();
    let mut local = LocalGroupAggregate::new(spec.clone()).unwrap();
    let mut global = GlobalGroupAggregate::new(spec.clone(), open(backend, dir.path())).unwrap();
    let k = Some("k".to_string());
    bundles
        .iter()
        .map(|rows| {
            let rows: Vec<Row> = rows
                .iter()
                .map(|&(kind, v)| (kind, k.clone(), Some(v)))
                .collect();
            rows_of(
                &global
                    .process(&local.process(&batch(&rows)).unwrap())
                    .unwrap(),
            )
        })
        .collect()
}

/// Retracting MAX and MIN merged as `Max[Min]WithRetractAggFunction.merge` does, traced step
/// by step through Flink's code: counts add, `mapSize` follows the entries turning positive
/// or not, and the new extremum after the old one's entry is gone is the largest key of the
/// map, even one with a negative count (a retraction of a value never accumulated). With
/// the map inside the accumulator and with it in the sorted-map table (`filler` values
/// below every other push it out), on both backends.
#[test]
fn retracting_extrema_merge_their_value_maps_as_flink_does() {
    for (function, sign) in [(AggFunction::Max, 1), (AggFunction::Min, -1)] {
        let spec = spec_of(&[(function, "m")], true);
        for filler in [0, 20] {
            let v = |x: i64| x * sign;
            let mut first: Vec<(i8, i64)> = vec![(0, v(5)), (0, v(3)), (0, v(1))];
            first.extend((0..filler).map(|i| (0, v(-100 - i))));
            let bundles = vec![
                first,
                // Partial: extremum NULL, mapSize 0, {9: -1}; the stored map takes the -1.
                vec![(3, v(9)), (0, v(7)), (3, v(7))],
                // {5: -1}: the extremum's entry goes, and the largest key left is 9 (-1).
                vec![(3, v(5))],
                // {9: 1} cancels the -1; mapSize stays, the extremum stays 9.
                vec![(0, v(9))],
                // {3: -1}: not the extremum, which is still 9.
                vec![(3, v(3))],
            ];
            let k = Some("k".to_string());
            let want: Vec<Vec<Out>> = vec![
                vec![(0, k.clone(), vec![Some(v(5))])],
                vec![],
                vec![
                    (1, k.clone(), vec![Some(v(5))]),
                    (2, k.clone(), vec![Some(v(9))]),
                ],
                vec![],
                vec![],
            ];
            for backend in [Backend::Memory, Backend::Rocks] {
                let got = one_key_bundles(backend, &spec, &bundles);
                assert_eq!(got, want, "{function:?} filler={filler} {backend:?}");
            }
        }
    }
}

/// DISTINCT merged as the planner's distinct `merge` with counts does: the inner function
/// accumulates a value whose merged count turns positive and retracts one whose count stops
/// being positive, so a retraction of a value never seen cancels its next arrival.
#[test]
fn distinct_calls_merge_their_distinct_maps_as_flink_does() {
    let spec = spec_of(
        &[(AggFunction::Count, "cnt_d"), (AggFunction::Sum, "sum_d")],
        true,
    );
    let k = Some("k".to_string());
    let bundles = vec![
        vec![(0, 4), (0, 4), (0, 6)],
        // {8: -1, 4: 1}: nothing turns positive or stops being.
        vec![(3, 8), (0, 4)],
        // {8: 1}: -1 + 1 = 0, not positive: 8 is not counted yet.
        vec![(0, 8)],
        // Now it is.
        vec![(0, 8)],
        // {4: -3}: 3 - 3 = 0, so 4 is retracted from COUNT and SUM.
        vec![(3, 4), (3, 4), (3, 4)],
    ];
    let want: Vec<Vec<Out>> = vec![
        vec![(0, k.clone(), vec![Some(2), Some(10)])],
        vec![],
        vec![],
        vec![
            (1, k.clone(), vec![Some(2), Some(10)]),
            (2, k.clone(), vec![Some(3), Some(18)]),
        ],
        vec![
            (1, k.clone(), vec![Some(3), Some(18)]),
            (2, k.clone(), vec![Some(2), Some(14)]),
        ],
    ];
    for backend in [Backend::Memory, Backend::Rocks] {
        assert_eq!(
            one_key_bundles(backend, &spec, &bundles),
            want,
            "{backend:?}"
        );
    }
}

#[test]
fn map_partials_carry_the_accumulator_fields_and_typed_maps() {
    let spec = spec_of(MAPS, true);
    let mut local = LocalGroupAggregate::new(spec).unwrap();
    let names: Vec<&str> = local
        .partial_schema()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        names,
        [
            "k",
            "cnt$count",
            "min_v$min",
            "min_v$mapSize",
            "min_v$map",
            "max_v$max",
            "max_v$mapSize",
            "max_v$map",
            "cnt_d$count",
            "cnt_d$distinct",
            "sum_d$sum",
            "sum_d$count",
            "sum_d$distinct",
            "avg_d$sum",
            "avg_d$count",
            "avg_d$distinct",
        ]
    );
    // One key: +I 2, +I 2, -D 5, +I 7.
    let k = Some("k".to_string());
    let rows: Vec<Row> = [(0, 2), (0, 2), (3, 5), (0, 7)]
        .iter()
        .map(|&(kind, v)| (kind, k.clone(), Some(v)))
        .collect();
    let p = local.process(&batch(&rows)).unwrap();
    let map = |c: usize| -> Vec<(i64, i64)> {
        let list = p.column(c).as_list::<i32>();
        let entries = list.value(0);
        let entries = entries.as_struct();
        let keys = entries.column(0).as_primitive::<Int64Type>();
        let counts = entries.column(1).as_primitive::<Int64Type>();
        (0..entries.len())
            .map(|i| (keys.value(i), counts.value(i)))
            .collect()
    };
    let scalar = |c: usize| p.column(c).as_primitive::<Int64Type>().value(0);
    // MaxWithRetractAggFunction after accumulate 2, 2, retract 5, accumulate 7.
    assert_eq!((scalar(5), scalar(6)), (7, 2));
    assert_eq!(map(7), [(2, 2), (5, -1), (7, 1)]);
    assert_eq!((scalar(2), scalar(3)), (2, 2));
    assert_eq!(map(4), [(2, 2), (5, -1), (7, 1)]);
    // COUNT(DISTINCT): the inner count saw 2 and 7; the distinct map has every count.
    assert_eq!(scalar(8), 2);
    assert_eq!(map(9), [(2, 2), (5, -1), (7, 1)]);
}

/// Partials come from outside (another task, through JNI): a value map with a NULL count, a
/// NULL value or a value twice is a typed error, and the stored state is left as it was.
#[test]
fn malformed_value_maps_in_partials_are_typed_errors() {
    use arrow::array::{ListArray, StructArray};
    use arrow::buffer::OffsetBuffer;

    let spec = spec_of(&[(AggFunction::Max, "m")], true);
    let mut local = LocalGroupAggregate::new(spec.clone()).unwrap();
    let mut global = GlobalGroupAggregate::new(spec, Box::new(MemoryBackend::new())).unwrap();
    let k = Some("k".to_string());
    let good = local.process(&batch(&[(0, k.clone(), Some(3))])).unwrap();
    assert_eq!(
        rows_of(&global.process(&good).unwrap()),
        vec![(0, k.clone(), vec![Some(3)])]
    );
    // Column 3 is `m$map`: one row whose entries are `entries`.
    let with_map = |entries: &[(Option<i64>, Option<i64>)]| {
        let DataType::List(field) = good.column(3).data_type().clone() else {
            panic!("a map partial is a list of entries");
        };
        let DataType::Struct(fields) = field.data_type().clone() else {
            panic!("map entries are structs");
        };
        let keys: Int64Array = entries.iter().map(|e| e.0).collect();
        let counts: Int64Array = entries.iter().map(|e| e.1).collect();
        let entries =
            StructArray::try_new(fields, vec![Arc::new(keys), Arc::new(counts)], None).unwrap();
        let map = ListArray::try_new(
            field,
            OffsetBuffer::from_lengths([entries.len()]),
            Arc::new(entries),
            None,
        )
        .unwrap();
        let mut columns = good.columns().to_vec();
        columns[3] = Arc::new(map);
        RecordBatch::try_new(good.schema(), columns).unwrap()
    };
    for (entries, why) in [
        (vec![(Some(4), None)], "a NULL count"),
        (vec![(None, Some(1))], "a NULL value"),
        (
            vec![(Some(4), Some(1)), (Some(4), Some(0))],
            "a value twice",
        ),
    ] {
        let err = global.process(&with_map(&entries)).unwrap_err();
        assert!(err.to_string().contains(why), "{why}: {err}");
    }
    // Nothing was stored by the refused partials: retracting the one 3 deletes the group.
    let retract = local.process(&batch(&[(3, k.clone(), Some(3))])).unwrap();
    assert_eq!(
        rows_of(&global.process(&retract).unwrap()),
        vec![(3, k.clone(), vec![Some(3)])]
    );
}

/// Value maps of other types survive the typed partials: DOUBLE (-0.0 and 0.0 distinct,
/// NaNs one value, infinities) and STRING (empty, Unicode, NUL) under retracting MIN/MAX and
/// DISTINCT, two-phase against one-phase mini-batch over the same consistent bundles (one
/// local bundle per global bundle).
#[test]
fn double_and_string_value_maps_merge_like_one_phase() {
    use arrow::array::Float64Array;

    let spec = GroupAggSpec {
        input_names: vec!["k".into(), "d".into(), "s".into()],
        input_types: vec![STRING, LogicalType::Double, STRING],
        grouping: vec![0],
        calls: vec![
            AggCall::new(AggFunction::Max, Some(1), "max_d"),
            AggCall::new(AggFunction::Min, Some(1), "min_d"),
            AggCall::new(AggFunction::Count, Some(1), "cnt_d").distinct(),
            AggCall::new(AggFunction::Max, Some(2), "max_s"),
            AggCall::new(AggFunction::Min, Some(2), "min_s"),
            AggCall::new(AggFunction::Count, Some(2), "cnt_s").distinct(),
        ],
        input_retracts: true,
        generate_update_before: true,
        mini_batch_rows: Some(usize::MAX),
        state_ttl: None,
        max_parallelism: 128,
    };
    let doubles = [
        0.0,
        -0.0,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1.5,
    ];
    let strings = ["", "a", "größer 🦀", "a\0b", "zz"];
    let mut rng = Rng(SEED ^ 0xD0);
    // Consistent bundles over three keys: retractions take back live rows.
    let mut live: Vec<(String, Option<f64>, Option<String>)> = Vec::new();
    let mut bundles: Vec<ChangelogBatch> = Vec::new();
    for _ in 0..30 {
        let mut rows: Vec<(i8, String, Option<f64>, Option<String>)> = Vec::new();
        for _ in 0..12 {
            if !live.is_empty() && rng.below(3) == 0 {
                let (k, d, s) = live.swap_remove(rng.below(live.len() as u64) as usize);
                rows.push((if rng.below(2) == 0 { 1 } else { 3 }, k, d, s));
            } else {
                let k = format!("k{}", rng.below(3));
                let d = (rng.below(6) != 0).then(|| doubles[rng.below(7) as usize]);
                let s = (rng.below(6) != 0).then(|| strings[rng.below(5) as usize].to_string());
                live.push((k.clone(), d, s.clone()));
                rows.push((0, k, d, s));
            }
        }
        let keys: StringArray = rows.iter().map(|r| Some(r.1.as_str())).collect();
        let d: Float64Array = rows.iter().map(|r| r.2).collect();
        let s: StringArray = rows.iter().map(|r| r.3.as_deref()).collect();
        let batch = RecordBatch::try_from_iter_with_nullable(vec![
            ("k", Arc::new(keys) as ArrayRef, true),
            ("d", Arc::new(d) as ArrayRef, true),
            ("s", Arc::new(s) as ArrayRef, true),
        ])
        .unwrap();
        let kinds = Int8Array::from(rows.iter().map(|r| r.0).collect::<Vec<_>>());
        bundles.push(ChangelogBatch::try_new(batch, Some(kinds)).unwrap());
    }
    // Rows as comparable text: kind, key, then each result (DOUBLE by its bits, any NaN one).
    let text = |out: &ChangelogBatch| -> Vec<String> {
        let b = out.batch();
        (0..out.num_rows())
            .map(|i| {
                let mut row = format!(
                    "{} {}",
                    out.kind(i),
                    b.column(0).as_string::<i32>().value(i)
                );
                for c in 1..b.num_columns() {
                    let col = b.column(c);
                    let cell = if col.is_null(i) {
                        "NULL".to_string()
                    } else {
                        match col.data_type() {
                            DataType::Float64 => {
                                let x =
                                    col.as_primitive::<arrow::datatypes::Float64Type>().value(i);
                                if x.is_nan() {
                                    "NaN".into()
                                } else {
                                    format!("{:#x}", x.to_bits())
                                }
                            }
                            DataType::Int64 => col.as_primitive::<Int64Type>().value(i).to_string(),
                            _ => format!("{:?}", col.as_string::<i32>().value(i)),
                        }
                    };
                    row.push(' ');
                    row.push_str(&cell);
                }
                row
            })
            .collect()
    };
    for backend in [Backend::Memory, Backend::Rocks] {
        let dir = tempfile::tempdir().unwrap();
        let mut one = GroupAggregate::new(spec.clone(), Box::new(MemoryBackend::new())).unwrap();
        let mut local = LocalGroupAggregate::new(spec.clone()).unwrap();
        let mut global =
            GlobalGroupAggregate::new(spec.clone(), open(backend, dir.path())).unwrap();
        let (mut want, mut got) = (Vec::new(), Vec::new());
        for bundle in &bundles {
            one.process(bundle).unwrap();
            want.extend(text(&one.flush().unwrap()));
            local.process(bundle).unwrap();
            global.process(&local.flush().unwrap()).unwrap();
            got.extend(text(&global.flush().unwrap()));
        }
        assert!(want.len() > 40, "the bundles exercise little");
        assert_eq!(got, want, "{backend:?}");
    }
}

/// With state TTL, an expired group starts afresh in the global phase and its expired value
/// maps (spilled to the sorted-map table) never come back, exactly as in the one-phase
/// operator under the same clock; equal results are not suppressed.
#[test]
fn expired_two_phase_groups_start_afresh_without_their_old_maps() {
    use std::time::Duration;
    use streamfusion::state::ttl::{Clock, ManualClock};

    let mut spec = spec_of(
        &[
            (AggFunction::CountStar, "cnt"),
            (AggFunction::Max, "max_v"),
            (AggFunction::Min, "min_v"),
            (AggFunction::Count, "cnt_d"),
        ],
        true,
    );
    spec.state_ttl = Some(Duration::from_millis(1_000));
    spec.mini_batch_rows = Some(usize::MAX);
    let k = || Some("k".to_string());
    // (time, rows): 20 values spill the maps; the maximum is retracted; the state expires;
    // a new life of the group retracts its own maximum.
    let mut first: Vec<Row> = (0..20).map(|v| (0, k(), Some(v + 10))).collect();
    first.push((0, k(), None));
    let steps: Vec<(i64, Vec<Row>)> = vec![
        (0, first),
        (999, vec![(3, k(), Some(29)), (0, k(), Some(12))]),
        (1_998, vec![(0, k(), Some(40))]),
        (2_998 + 1_000, vec![(0, k(), Some(3)), (0, k(), Some(1))]),
        (3_999 + 500, vec![(3, k(), Some(3))]),
    ];
    let dir = tempfile::tempdir().unwrap();
    for backend in [Backend::Memory, Backend::Rocks] {
        let run = |two_phase: bool, path: &Path| -> Vec<Out> {
            let clock = Arc::new(ManualClock::new(0));
            let store: Box<dyn StateBackend> = match backend {
                Backend::Memory => Box::new(MemoryBackend::new()),
                Backend::Rocks => Box::new(
                    RocksBackend::open_with_clock(
                        path,
                        &RocksOptions::checked_in(),
                        clock.clone() as Arc<dyn Clock>,
                    )
                    .unwrap(),
                ),
            };
            let dyn_clock = clock.clone() as Arc<dyn Clock>;
            let mut out = Vec::new();
            if two_phase {
                let mut local = LocalGroupAggregate::new(spec.clone()).unwrap();
                let mut global =
                    GlobalGroupAggregate::with_clock(spec.clone(), store, dyn_clock).unwrap();
                for (time, rows) in &steps {
                    clock.set(*time);
                    local.process(&batch(rows)).unwrap();
                    global.process(&local.flush().unwrap()).unwrap();
                    out.extend(rows_of(&global.flush().unwrap()));
                }
            } else {
                let mut op = GroupAggregate::with_clock(spec.clone(), store, dyn_clock).unwrap();
                for (time, rows) in &steps {
                    clock.set(*time);
                    op.process(&batch(rows)).unwrap();
                    out.extend(rows_of(&op.flush().unwrap()));
                }
            }
            out
        };
        let want = run(false, &dir.path().join(format!("{backend:?}-one")));
        let got = run(true, &dir.path().join(format!("{backend:?}-two")));
        assert_eq!(got, want, "{backend:?}");
        // The new life: +I of 3 and 1, then the retraction of 3 leaves 1 (no 10..40 back).
        let tail: Vec<Out> = want[want.len() - 3..].to_vec();
        assert_eq!(
            tail,
            vec![
                (0, k(), vec![Some(2), Some(3), Some(1), Some(2)]),
                (1, k(), vec![Some(2), Some(3), Some(1), Some(2)]),
                (2, k(), vec![Some(1), Some(1), Some(1), Some(1)]),
            ],
            "{backend:?}"
        );
    }
}

#[test]
fn both_phases_run_from_json_plans_with_watermarks_triggering_bundles() {
    // The two phases as a Flink job hosts them: built from their JSON plans, driven
    // through the operator interface, a watermark after every chunk applying each
    // phase's bundle, and both checkpointed and restored midway through the plan path.
    use streamfusion::ops::{OperatorPlan, Output};

    let mut rng = Rng(SEED ^ 0x7A7E);
    let input = changelog(&mut rng, 600, true);
    let spec = spec(RETRACTING, true, true, Some(usize::MAX));
    let want = expected(&spec, &input, CHUNK, 1);
    let json = |kind: &str| {
        let mut plan = serde_json::to_value(&spec).unwrap();
        plan["operator"] = kind.into();
        plan.to_string()
    };
    let local_plan = OperatorPlan::from_json(&json("local_group_aggregate")).unwrap();
    let global_plan = OperatorPlan::from_json(&json("global_group_aggregate")).unwrap();
    for backend in [Backend::Memory, Backend::Rocks] {
        let dir = tempfile::tempdir().unwrap();
        let config = |name: &str| config(backend, &dir.path().join(name));
        let mut local = local_plan.build(&config("local"), None).unwrap();
        let mut global = global_plan.build(&config("global"), None).unwrap();
        assert_eq!(global.input_types(0), local.output_types());
        let mut got = Vec::new();
        let chunks: Vec<&[Row]> = input.chunks(CHUNK).collect();
        for (i, rows) in chunks.iter().enumerate() {
            let watermark = 10 * i as i64;
            let mut partials = Output::new();
            local.process(0, &batch(rows), &mut partials).unwrap();
            assert_eq!(
                partials.num_rows(),
                0,
                "the local bundle waits for the watermark"
            );
            local.advance_watermark(watermark, &mut partials).unwrap();
            let mut out = Output::new();
            for p in partials.take() {
                global.process(0, &p, &mut out).unwrap();
            }
            global.advance_watermark(watermark, &mut out).unwrap();
            got.extend(out.take().iter().flat_map(rows_of));
            if i == chunks.len() / 2 {
                let c_local = local.checkpoint(&dir.path().join("c-local")).unwrap();
                let c_global = global.checkpoint(&dir.path().join("c-global")).unwrap();
                local = local_plan
                    .restore(&config("local-2"), None, &[c_local])
                    .unwrap();
                global = global_plan
                    .restore(&config("global-2"), None, std::slice::from_ref(&c_global))
                    .unwrap();
                assert_eq!(local.watermark(), Some(watermark));
                // Flink's timer service restarts without a watermark (decision 0030).
                assert_eq!(global.watermark(), None);
                // The local phase's checkpoint is not the global phase's.
                let err = local_plan
                    .restore(&config("wrong"), None, &[c_global])
                    .unwrap_err();
                assert!(err.to_string().contains("global_group_aggregate"), "{err}");
            }
        }
        assert_same(&got, &want, &format!("{backend:?}"));
        let mut out = Output::new();
        global
            .process(1, &batch(&input[..1]), &mut out)
            .unwrap_err();
    }
}
