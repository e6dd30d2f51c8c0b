//! The `operators` suite's group fixtures: the production GROUP BY operators through thin
//! adapters (`GroupAggLifecycle` for the one-phase operator on memory state,
//! `TwoPhaseAdapter` for the local and global phases).
//!
//! - `group_record_counter/...`: the global phase merging `SUM(v)` (sum and count),
//!   `COUNT(v)` and the hidden `$count1` partials of four local bundles: every row inserted,
//!   deleted, deleted again, inserted again (NULL values every 6th row). Timed: the four
//!   global merges and flushes on fresh state. The record count goes 1.., 0 (`-D`), negative
//!   (a live group: `+I` with negative results), 0 (`-D`).
//! - `group_zero_sum/...`: `$SUM0(v)` over BIGINT, DECIMAL(12, 2), FLOAT and DOUBLE with a
//!   NULL-only group (typed zero), mini-batch push and flush.
//! - `floating_group/...`: FLOAT/DOUBLE with NaN and signed zeros: retracting `SUM, MIN, MAX`
//!   (insert, and deletion of every other seeded row with state seeded outside timing),
//!   `FIRST_VALUE, LAST_VALUE`, `SUM(DISTINCT)`, `AVG(DISTINCT)`, `SINGLE_VALUE` over unique
//!   keys, and the local phase's typed `SUM, MIN, MAX` partials (update and flush).
//! - `typed_distinct/...`: `COUNT(DISTINCT v)` over DATE, TIME, TIMESTAMP(9), BIGINT and
//!   STRING, 4,096 nullable rows, 16 keys, four or 256 distinct values.
//! - `window_count_validity/...`: TUMBLE `COUNT(v)` over DATE, TIME, BOOLEAN, 8/256-byte
//!   STRING and TIMESTAMP(9) through the production window operator, 128/4,096 rows and
//!   one/64/1,024 keys, checked window by window against `window_fixtures`' model.
//!
//! 256/4,096 rows and one/64 keys unless said otherwise. Every case is checked before
//! timing against an independent model: `bench_support::group_model::ValueModel` with the
//! functions restated from Flink's (sums folded in arrival order from the first value,
//! retracting MIN/MAX by `Double.compareTo`, insert-only MIN/MAX by IEEE `<`/`>`, DISTINCT
//! by `Double.equals`), or for the record counter a direct simulation of the global merge;
//! complete schema, kinds, keys and values in order. `group_zero_sum` also checkpoints after
//! the timed update and requires the restored operator's next update to match the model.

mod group_fixtures;
mod window_fixtures;

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use arrow::array::{ArrayData, RecordBatch};
use arrow::datatypes::DataType;
use bench_support::adapters::{RestoreMode, StoreLifecycle};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::mix;
use bench_support::group_model::{DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE, ValueModel};
use bench_support::{Suite, Verdict, expect_eq};
use group_fixtures::{Change, V, check_changes, emission, input, read, spec, text};
use streamfusion::aggregate::{AggCall, AggFunction, GlobalGroupAggregate, LocalGroupAggregate};
use streamfusion::bench::{Backend, GroupAggLifecycle, GroupAggStore, TwoPhaseAdapter};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);
const ROWS: [usize; 2] = [256, 4_096];
const KEYS: [usize; 2] = [1, 64];

fn main() {
    let mut suite = Suite::new("operators");
    record_counter(&mut suite);
    zero_sum(&mut suite);
    floating(&mut suite);
    typed_distinct(&mut suite);
    window_count_validity(&mut suite);
    suite.finish();
}

fn key(k: usize) -> V {
    V::Str(text(k, 8))
}

type Row = (i8, V, V);

fn batch(ty: &LogicalType, rows: &[Row]) -> ChangelogBatch {
    let kinds: Vec<i8> = rows.iter().map(|r| r.0).collect();
    let keys: Vec<V> = rows.iter().map(|r| r.1.clone()).collect();
    let values: Vec<V> = rows.iter().map(|r| r.2.clone()).collect();
    input(&kinds, &STRING, &keys, &[(ty, values)])
}

// ------------------------------------------------------------------ one-phase fixtures

/// A one-phase case: optional seed (outside timing), the timed batch, the expected changelog.
struct Fixture {
    lifecycle: GroupAggLifecycle,
    seed: Option<ChangelogBatch>,
    input: ChangelogBatch,
    names: Vec<&'static str>,
    types: Vec<DataType>,
    expected: Vec<Change>,
    /// A further update checked after a checkpoint and restore, and its expected changelog.
    next: Option<(ChangelogBatch, Vec<Change>)>,
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

impl Fixture {
    fn fresh(&self) -> GroupAggStore {
        group_fixtures::seeded_store(&self.lifecycle, self.seed.as_ref())
    }

    fn update(&self, store: &mut GroupAggStore, batch: &ChangelogBatch) -> Vec<ChangelogBatch> {
        group_fixtures::push_and_flush(&self.lifecycle, store, batch)
    }

    fn check(&self, out: &[ChangelogBatch]) -> Verdict {
        check_changes(out, &self.names, &self.types, &self.expected)?;
        let Some((next, expected)) = &self.next else {
            return Ok(());
        };
        let mut store = self.fresh();
        self.update(&mut store, &self.input);
        let checkpoint = self
            .lifecycle
            .checkpoint(&mut store)
            .map_err(|e| e.to_string())?;
        drop(store);
        let mut restored = self
            .lifecycle
            .restore(std::slice::from_ref(&checkpoint), &RestoreMode::Aligned)
            .map_err(|e| e.to_string())?;
        let out = self.update(&mut restored, next);
        check_changes(&out, &self.names, &self.types, expected)
            .map_err(|e| format!("next update after restore: {e}"))
    }
}

fn one_phase(suite: &mut Suite, id: &str, fixture: impl FnOnce() -> Fixture) {
    suite.stateful(
        id,
        fixture,
        Fixture::fresh,
        |store, f| f.update(store, &f.input),
        |f, out| f.check(out),
    );
}

/// The model's changelog of the last of `bundles`.
fn model_output<R: PartialEq>(
    retracts: bool,
    aggregate: fn(&[V]) -> R,
    bundles: &[&[Row]],
) -> Vec<(i8, V, R)> {
    let mut model = ValueModel::new(emission(retracts), aggregate);
    let mut out = Vec::new();
    for rows in bundles {
        out = model.bundle(rows);
    }
    out
}

// ------------------------------------------------------------------ record counter

/// The global phase's state for one key: `$count1`, `SUM`'s sum and count, `COUNT(v)`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Counters {
    count1: i64,
    sum: i64,
    sum_count: i64,
    count_v: i64,
}

impl Counters {
    fn results(&self) -> Vec<V> {
        vec![
            if self.sum_count == 0 {
                V::Null
            } else {
                V::Int(self.sum)
            },
            V::Int(self.count_v),
        ]
    }
}

/// The global merge of each phase's rows, emitted with `GroupAggFunction`'s rules; keys in
/// order of first appearance within the phase.
fn record_counter_model(phases: &[Vec<Row>]) -> Vec<Change> {
    let mut state: BTreeMap<V, Counters> = BTreeMap::new();
    let mut out = Vec::new();
    for rows in phases {
        let mut order: Vec<V> = Vec::new();
        let mut delta: BTreeMap<V, Counters> = BTreeMap::new();
        for (kind, k, v) in rows {
            let sign = if *kind == INSERT || *kind == UPDATE_AFTER {
                1
            } else {
                -1
            };
            let d = delta.entry(k.clone()).or_insert_with(|| {
                order.push(k.clone());
                Counters::default()
            });
            d.count1 += sign;
            if let V::Int(x) = v {
                d.sum = d.sum.wrapping_add(sign * x);
                d.sum_count += sign;
                d.count_v += sign;
            }
        }
        for k in order {
            let d = delta[&k];
            let prev = state.get(&k).copied();
            let base = prev.unwrap_or_default();
            let new = Counters {
                count1: base.count1 + d.count1,
                sum: base.sum.wrapping_add(d.sum),
                sum_count: base.sum_count + d.sum_count,
                count_v: base.count_v + d.count_v,
            };
            match prev {
                None if new.count1 == 0 => {}
                None => {
                    out.push((INSERT, k.clone(), new.results()));
                    state.insert(k, new);
                }
                Some(p) if new.count1 == 0 => {
                    out.push((DELETE, k.clone(), p.results()));
                    state.remove(&k);
                }
                Some(p) => {
                    if p.results() != new.results() {
                        out.push((UPDATE_BEFORE, k.clone(), p.results()));
                        out.push((UPDATE_AFTER, k.clone(), new.results()));
                    }
                    state.insert(k, new);
                }
            }
        }
    }
    out
}

struct CounterFixture {
    adapter: TwoPhaseAdapter,
    partials: Vec<Vec<RecordBatch>>,
    expected: Vec<Change>,
}

impl ArrowBuffers for CounterFixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.partials.collect_arrays(out);
    }
}

fn record_counter(suite: &mut Suite) {
    for rows in ROWS {
        for keys in KEYS {
            let id = format!("group_record_counter/rows={rows}/keys={keys}");
            suite.stateful(
                &id,
                || {
                    let base: Vec<(V, V)> = (0..rows / 4)
                        .map(|r| {
                            let v = if r % 6 == 1 {
                                V::Null
                            } else {
                                V::Int((r as i64 * 37) % 101 - 50)
                            };
                            (key(r % keys), v)
                        })
                        .collect();
                    let phases: Vec<Vec<Row>> = [INSERT, DELETE, DELETE, INSERT]
                        .iter()
                        .map(|&kind| {
                            base.iter()
                                .map(|(k, v)| (kind, k.clone(), v.clone()))
                                .collect()
                        })
                        .collect();
                    let adapter = TwoPhaseAdapter {
                        spec: spec(
                            &STRING,
                            &[LogicalType::BigInt],
                            vec![
                                AggCall::new(AggFunction::Sum, Some(1), "sum_v"),
                                AggCall::new(AggFunction::Count, Some(1), "cnt_v"),
                            ],
                            true,
                            true,
                        ),
                    };
                    let mut local = adapter.local().expect("local operator");
                    let partials = phases
                        .iter()
                        .map(|rows| {
                            adapter
                                .local_update(&mut local, &[batch(&LogicalType::BigInt, rows)])
                                .expect("local update")
                        })
                        .collect();
                    CounterFixture {
                        expected: record_counter_model(&phases),
                        adapter,
                        partials,
                    }
                },
                |f| f.adapter.global().expect("global operator"),
                |global: &mut GlobalGroupAggregate, f| {
                    let mut out = Vec::new();
                    for partials in &f.partials {
                        out.extend(
                            f.adapter
                                .global_update(global, partials)
                                .expect("global update"),
                        );
                    }
                    out
                },
                |f, out| {
                    check_changes(
                        out,
                        &["k", "sum_v", "cnt_v"],
                        &[DataType::Utf8, DataType::Int64, DataType::Int64],
                        &f.expected,
                    )?;
                    // The negative phase really emitted live groups.
                    let negative = f
                        .expected
                        .iter()
                        .filter(|(kind, _, r)| *kind == INSERT && r[1] < V::Int(0))
                        .count();
                    if negative == 0 {
                        return Err("no group with a negative record count".into());
                    }
                    Ok(())
                },
            );
        }
    }
}

// ------------------------------------------------------------------ $SUM0

#[derive(Debug, Clone, Copy)]
enum Numeric {
    BigInt,
    Decimal,
    Float,
    Double,
}

impl Numeric {
    fn name(self) -> &'static str {
        match self {
            Numeric::BigInt => "bigint",
            Numeric::Decimal => "decimal_12_2",
            Numeric::Float => "float",
            Numeric::Double => "double",
        }
    }

    fn logical(self) -> LogicalType {
        match self {
            Numeric::BigInt => LogicalType::BigInt,
            Numeric::Decimal => LogicalType::Decimal {
                precision: 12,
                scale: 2,
            },
            Numeric::Float => LogicalType::Float,
            Numeric::Double => LogicalType::Double,
        }
    }

    fn result(self) -> DataType {
        match self {
            Numeric::Decimal => DataType::Decimal128(38, 2),
            other => other.logical().to_arrow(),
        }
    }

    /// Quarter steps (exact in FLOAT), -0.0 now and then for the floating types.
    fn value(self, r: usize) -> V {
        let q = (r as i64 * 13) % 41 - 20;
        match self {
            Numeric::BigInt => V::Int(q * 1_000_003),
            Numeric::Decimal => V::Dec(i128::from(q) * 25),
            Numeric::Float | Numeric::Double if r.is_multiple_of(17) => V::f64(-0.0),
            Numeric::Float | Numeric::Double => V::f64(q as f64 * 0.25),
        }
    }

    /// `$SUM0`: zero plus every non-NULL value in order, at the type's width.
    fn sum0(self, vs: &[V]) -> V {
        let mut acc = match self {
            Numeric::BigInt => V::Int(0),
            Numeric::Decimal => V::Dec(0),
            Numeric::Float | Numeric::Double => V::f64(0.0),
        };
        for v in vs {
            acc = match (&acc, v) {
                (V::Int(a), V::Int(b)) => V::Int(a.wrapping_add(*b)),
                (V::Dec(a), V::Dec(b)) => V::Dec(a + b),
                (V::F64(_), V::F64(_)) => {
                    let (a, b) = (acc.as_f64().unwrap_or(0.0), v.as_f64().unwrap_or(0.0));
                    match self {
                        Numeric::Float => V::f64(f64::from(a as f32 + b as f32)),
                        _ => V::f64(a + b),
                    }
                }
                _ => acc,
            };
        }
        acc
    }
}

fn zero_sum(suite: &mut Suite) {
    for ty in [
        Numeric::BigInt,
        Numeric::Decimal,
        Numeric::Float,
        Numeric::Double,
    ] {
        for rows in ROWS {
            for keys in KEYS {
                let id = format!("group_zero_sum/{}/rows={rows}/keys={keys}", ty.name());
                one_phase(suite, &id, || {
                    // Key 0 of 64 is NULL-only; otherwise NULL every 5th row.
                    let row = |kind: i8, r: usize| {
                        let k = r % keys;
                        let null = (keys > 1 && k == 0) || r % 5 == 4;
                        (kind, key(k), if null { V::Null } else { ty.value(r) })
                    };
                    let inserts: Vec<Row> = (0..rows).map(|r| row(INSERT, r)).collect();
                    let next: Vec<Row> = (rows..rows + 5).map(|r| row(INSERT, r)).collect();
                    let aggregate: fn(&[V]) -> Vec<V> = match ty {
                        Numeric::BigInt => |vs| vec![Numeric::BigInt.sum0(vs)],
                        Numeric::Decimal => |vs| vec![Numeric::Decimal.sum0(vs)],
                        Numeric::Float => |vs| vec![Numeric::Float.sum0(vs)],
                        Numeric::Double => |vs| vec![Numeric::Double.sum0(vs)],
                    };
                    let logical = ty.logical();
                    Fixture {
                        lifecycle: GroupAggLifecycle {
                            spec: spec(
                                &STRING,
                                std::slice::from_ref(&logical),
                                vec![AggCall::new(AggFunction::Sum0, Some(1), "sum0_v")],
                                false,
                                true,
                            ),
                            backend: Backend::Memory,
                        },
                        seed: None,
                        input: batch(&logical, &inserts),
                        names: vec!["k", "sum0_v"],
                        types: vec![DataType::Utf8, ty.result()],
                        expected: model_output(false, aggregate, &[&inserts]),
                        next: Some((
                            batch(&logical, &next),
                            model_output(false, aggregate, &[&inserts, &next]),
                        )),
                    }
                });
            }
        }
    }
}

// ------------------------------------------------------------------ floating group

/// Folds non-NULL floating values in order from the first (`SumAggFunction`,
/// `SumWithRetractAggFunction` without retractions), at FLOAT or DOUBLE width.
fn fold_sum(vs: &[V], float: bool) -> V {
    let mut acc: Option<f64> = None;
    for x in vs.iter().filter_map(V::as_f64) {
        acc = Some(match acc {
            None => x,
            Some(a) if float => f64::from(a as f32 + x as f32),
            Some(a) => a + x,
        });
    }
    acc.map_or(V::Null, V::f64)
}

/// `Double.compareTo`: NaN above everything, -0.0 below 0.0 (NaNs are canonical here).
fn total(vs: &[V], max: bool) -> V {
    let it = vs.iter().filter_map(V::as_f64);
    let pick = if max {
        it.max_by(f64::total_cmp)
    } else {
        it.min_by(f64::total_cmp)
    };
    pick.map_or(V::Null, V::f64)
}

/// Insert-only MIN/MAX: the first value, replaced by one that is IEEE-smaller (larger).
fn ieee(vs: &[V], max: bool) -> V {
    let mut acc: Option<f64> = None;
    for x in vs.iter().filter_map(V::as_f64) {
        let replace = match acc {
            None => true,
            Some(a) => {
                x.partial_cmp(&a)
                    == Some(if max {
                        Ordering::Greater
                    } else {
                        Ordering::Less
                    })
            }
        };
        if replace {
            acc = Some(x);
        }
    }
    acc.map_or(V::Null, V::f64)
}

/// The distinct non-NULL values (`Double.equals`), in order of first appearance.
fn distinct(vs: &[V]) -> Vec<V> {
    let mut seen = BTreeSet::new();
    vs.iter()
        .filter(|v| !v.is_null() && seen.insert((*v).clone()))
        .cloned()
        .collect()
}

fn distinct_sum(vs: &[V], float: bool) -> V {
    fold_sum(&distinct(vs), float)
}

/// `AVG(DISTINCT)`: a DOUBLE sum from 0.0 over the distinct values, divided by their
/// count, at the argument's width; NULL without values.
fn distinct_avg(vs: &[V], float: bool) -> V {
    let values = distinct(vs);
    if values.is_empty() {
        return V::Null;
    }
    let sum = values.iter().filter_map(V::as_f64).fold(0.0, |a, x| a + x);
    let avg = sum / values.len() as f64;
    V::f64(if float { f64::from(avg as f32) } else { avg })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FloatPlan {
    SumMinMaxInsert,
    SumMinMaxRetract,
    FirstLast,
    DistinctSum,
    DistinctAvg,
    SingleValue,
    LocalPartials,
}

impl FloatPlan {
    const ALL: [FloatPlan; 7] = [
        FloatPlan::SumMinMaxInsert,
        FloatPlan::SumMinMaxRetract,
        FloatPlan::FirstLast,
        FloatPlan::DistinctSum,
        FloatPlan::DistinctAvg,
        FloatPlan::SingleValue,
        FloatPlan::LocalPartials,
    ];

    fn name(self) -> &'static str {
        match self {
            FloatPlan::SumMinMaxInsert => "sum_min_max/insert",
            FloatPlan::SumMinMaxRetract => "sum_min_max/retract",
            FloatPlan::FirstLast => "first_last",
            FloatPlan::DistinctSum => "distinct_sum",
            FloatPlan::DistinctAvg => "distinct_avg",
            FloatPlan::SingleValue => "single_value",
            FloatPlan::LocalPartials => "local_partials",
        }
    }

    fn calls(self) -> Vec<AggCall> {
        let c = |f, name: &str| AggCall::new(f, Some(1), name);
        match self {
            FloatPlan::SumMinMaxInsert | FloatPlan::SumMinMaxRetract | FloatPlan::LocalPartials => {
                vec![
                    c(AggFunction::Sum, "s"),
                    c(AggFunction::Min, "mn"),
                    c(AggFunction::Max, "mx"),
                ]
            }
            FloatPlan::FirstLast => vec![
                c(AggFunction::FirstValue, "first"),
                c(AggFunction::LastValue, "last"),
            ],
            FloatPlan::DistinctSum => vec![c(AggFunction::Sum, "s").distinct()],
            FloatPlan::DistinctAvg => vec![c(AggFunction::Avg, "a").distinct()],
            FloatPlan::SingleValue => vec![c(AggFunction::SingleValue, "sv")],
        }
    }

    fn names(self) -> Vec<&'static str> {
        match self {
            FloatPlan::SumMinMaxInsert | FloatPlan::SumMinMaxRetract => vec!["k", "s", "mn", "mx"],
            FloatPlan::LocalPartials => vec!["k", "s$sum", "mn$value", "mx$value"],
            FloatPlan::FirstLast => vec!["k", "first", "last"],
            FloatPlan::DistinctSum => vec!["k", "s"],
            FloatPlan::DistinctAvg => vec!["k", "a"],
            FloatPlan::SingleValue => vec!["k", "sv"],
        }
    }

    fn retracts(self) -> bool {
        matches!(
            self,
            FloatPlan::SumMinMaxInsert | FloatPlan::SumMinMaxRetract
        )
    }

    /// The model's results for `float` (FLOAT) or DOUBLE.
    fn aggregate(self, float: bool) -> fn(&[V]) -> Vec<V> {
        match (self, float) {
            (FloatPlan::SumMinMaxInsert | FloatPlan::SumMinMaxRetract, true) => {
                |vs| vec![fold_sum(vs, true), total(vs, false), total(vs, true)]
            }
            (FloatPlan::SumMinMaxInsert | FloatPlan::SumMinMaxRetract, false) => {
                |vs| vec![fold_sum(vs, false), total(vs, false), total(vs, true)]
            }
            (FloatPlan::LocalPartials, true) => {
                |vs| vec![fold_sum(vs, true), ieee(vs, false), ieee(vs, true)]
            }
            (FloatPlan::LocalPartials, false) => {
                |vs| vec![fold_sum(vs, false), ieee(vs, false), ieee(vs, true)]
            }
            (FloatPlan::FirstLast, _) => |vs| {
                let present: Vec<&V> = vs.iter().filter(|v| !v.is_null()).collect();
                vec![
                    present.first().map_or(V::Null, |v| (*v).clone()),
                    present.last().map_or(V::Null, |v| (*v).clone()),
                ]
            },
            (FloatPlan::DistinctSum, true) => |vs| vec![distinct_sum(vs, true)],
            (FloatPlan::DistinctSum, false) => |vs| vec![distinct_sum(vs, false)],
            (FloatPlan::DistinctAvg, true) => |vs| vec![distinct_avg(vs, true)],
            (FloatPlan::DistinctAvg, false) => |vs| vec![distinct_avg(vs, false)],
            (FloatPlan::SingleValue, _) => |vs| vec![vs.first().cloned().unwrap_or(V::Null)],
        }
    }
}

/// NaN, both zeros and exact quarters.
const POOL: [f64; 9] = [f64::NAN, -0.0, 0.0, 1.5, -2.25, 3.0, 100.0, -7.0, 0.25];
/// Retracted rows never hold NaN or -0.0: a retracting SUM stays NaN once it saw one, and
/// reaches zero as +0.0, which a sum recomputed from the remaining values would not match.
const RETRACTED: [f64; 6] = [1.5, -2.25, 3.0, 100.0, -7.0, 0.25];
const KEPT: [f64; 5] = [f64::NAN, 0.0, 1.5, -2.25, 3.0];

fn floating(suite: &mut Suite) {
    for float in [true, false] {
        for plan in FloatPlan::ALL {
            for rows in ROWS {
                let key_counts: &[usize] = if plan == FloatPlan::SingleValue {
                    &[rows]
                } else {
                    &KEYS
                };
                for &keys in key_counts {
                    for nullable in [true, false] {
                        let id = format!(
                            "floating_group/{}/{}/rows={rows}/keys={}/{}",
                            if float { "float" } else { "double" },
                            plan.name(),
                            if keys == rows {
                                "unique".to_string()
                            } else {
                                keys.to_string()
                            },
                            if nullable { "nullable" } else { "not_null" }
                        );
                        floating_case(suite, &id, float, plan, rows, keys, nullable);
                    }
                }
            }
        }
    }
}

fn floating_value(float: bool, plan: FloatPlan, r: usize, nullable: bool) -> V {
    if nullable && r % 7 == 3 {
        return V::Null;
    }
    let pick = |pool: &[f64]| pool[(mix(r as u64, 3) % pool.len() as u64) as usize];
    let x = match plan {
        FloatPlan::SumMinMaxRetract if r.is_multiple_of(2) => pick(&RETRACTED),
        FloatPlan::SumMinMaxRetract => pick(&KEPT),
        _ => pick(&POOL),
    };
    if float {
        V::f64(f64::from(x as f32))
    } else {
        V::f64(x)
    }
}

struct LocalFixture {
    adapter: TwoPhaseAdapter,
    input: ChangelogBatch,
    expected: Vec<Change>,
    types: Vec<DataType>,
}

impl ArrowBuffers for LocalFixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

fn floating_case(
    suite: &mut Suite,
    id: &str,
    float: bool,
    plan: FloatPlan,
    rows: usize,
    keys: usize,
    nullable: bool,
) {
    let logical = if float {
        LogicalType::Float
    } else {
        LogicalType::Double
    };
    let inserts: Vec<Row> = (0..rows)
        .map(|r| {
            (
                INSERT,
                key(r % keys),
                floating_value(float, plan, r, nullable),
            )
        })
        .collect();
    let aggregate = plan.aggregate(float);
    let mut types = vec![DataType::Utf8];
    types.extend(std::iter::repeat_n(
        logical.to_arrow(),
        plan.names().len() - 1,
    ));
    let spec = spec(
        &STRING,
        std::slice::from_ref(&logical),
        plan.calls(),
        plan.retracts(),
        true,
    );
    if plan == FloatPlan::LocalPartials {
        suite.stateful(
            id,
            || LocalFixture {
                adapter: TwoPhaseAdapter { spec },
                input: batch(&logical, &inserts),
                expected: model_output(false, aggregate, &[&inserts]),
                types,
            },
            |f| f.adapter.local().expect("local operator"),
            |local: &mut LocalGroupAggregate, f| {
                f.adapter
                    .local_update(local, std::slice::from_ref(&f.input))
                    .expect("local update")
            },
            |f, out| check_partials(out, &f.types, &f.expected),
        );
        return;
    }
    let retract = plan == FloatPlan::SumMinMaxRetract;
    let timed: Vec<Row> = if retract {
        inserts
            .iter()
            .step_by(2)
            .map(|(_, k, v)| (DELETE, k.clone(), v.clone()))
            .collect()
    } else {
        inserts.clone()
    };
    one_phase(suite, id, || {
        let bundles: Vec<&[Row]> = if retract {
            vec![&inserts, &timed]
        } else {
            vec![&inserts]
        };
        Fixture {
            lifecycle: GroupAggLifecycle {
                spec,
                backend: Backend::Memory,
            },
            seed: retract.then(|| batch(&logical, &inserts)),
            input: batch(&logical, &timed),
            names: plan.names(),
            types,
            expected: model_output(plan.retracts(), aggregate, &bundles),
            next: None,
        }
    });
}

/// Partial rows: schema, then per key (in order of first appearance) `(+I, key, fields)` of
/// the model.
fn check_partials(out: &[RecordBatch], types: &[DataType], expected: &[Change]) -> Verdict {
    let names = FloatPlan::LocalPartials.names();
    let mut got = Vec::new();
    for b in out {
        let schema = b.schema();
        let found: Vec<(&str, &DataType)> = schema
            .fields()
            .iter()
            .map(|f| (f.name().as_str(), f.data_type()))
            .collect();
        let want: Vec<(&str, &DataType)> = names.iter().copied().zip(types).collect();
        expect_eq("partial schema", &found, &want)?;
        for i in 0..b.num_rows() {
            let fields = (1..b.num_columns())
                .map(|c| read(b.column(c).as_ref(), i))
                .collect::<Result<Vec<_>, _>>()?;
            got.push((INSERT, read(b.column(0).as_ref(), i)?, fields));
        }
    }
    expect_eq("partial rows", &got, &expected.to_vec())
}

// ------------------------------------------------------------------ typed DISTINCT

fn typed_distinct(suite: &mut Suite) {
    const N: usize = 4_096;
    for (name, ty) in [
        ("date", LogicalType::Date),
        ("time", LogicalType::Time(0)),
        ("timestamp_9", LogicalType::Timestamp(9)),
        ("bigint", LogicalType::BigInt),
        ("string_8", STRING),
    ] {
        for distinct in [4u64, 256] {
            let id = format!("typed_distinct/{name}/distinct={distinct}/rows={N}/keys=16");
            let ty = ty.clone();
            one_phase(suite, &id, move || {
                let value = |r: usize| {
                    let id = (mix(r as u64, 11) % distinct) as i64;
                    match ty {
                        LogicalType::Date => V::Int(id * 41 - 3_000),
                        LogicalType::Time(_) => V::Int(id * 337_001),
                        // Adjacent nanoseconds around the epoch.
                        LogicalType::Timestamp(_) => V::Int((id - 128) * 999_999_937 + id % 2),
                        LogicalType::BigInt => V::Int(id * 7_777_777_777 - 1),
                        _ => V::Str(text(id as usize, 8)),
                    }
                };
                let rows: Vec<Row> = (0..N)
                    .map(|r| {
                        let k = if r % 16 == 15 { V::Null } else { key(r % 16) };
                        (INSERT, k, if r % 9 == 4 { V::Null } else { value(r) })
                    })
                    .collect();
                let aggregate: fn(&[V]) -> Vec<V> = |vs| {
                    let set: BTreeSet<&V> = vs.iter().filter(|v| !v.is_null()).collect();
                    vec![V::Int(set.len() as i64)]
                };
                Fixture {
                    lifecycle: GroupAggLifecycle {
                        spec: spec(
                            &STRING,
                            std::slice::from_ref(&ty),
                            vec![AggCall::new(AggFunction::Count, Some(1), "cnt_d").distinct()],
                            false,
                            true,
                        ),
                        backend: Backend::Memory,
                    },
                    seed: None,
                    input: batch(&ty, &rows),
                    names: vec!["k", "cnt_d"],
                    types: vec![DataType::Utf8, DataType::Int64],
                    expected: model_output(false, aggregate, &[&rows]),
                    next: None,
                }
            });
        }
    }
}

// ------------------------------------------------------------------ window COUNT validity

/// `window_count_validity/<type>/rows=R/keys=K`: TUMBLE `COUNT(v)` over nullable scalar
/// values through the production window operator (`window_fixtures::window_case`: one
/// batch, then the watermark that fires every window), at 128/4,096 rows and one/64/1,024
/// keys; NULL every 5th row and a NULL-only key 0 (count 0) in the multi-key cases. Every
/// window's count is checked against the model's count of non-NULL values before timing.
fn window_count_validity(suite: &mut Suite) {
    use window_fixtures::{Call, Shape, fixture, rows, window_case};
    // Name, type, and row `r`'s value.
    type Values = (&'static str, LogicalType, fn(usize) -> V);
    let types: [Values; 6] = [
        ("date", LogicalType::Date, |r| {
            V::Int(r as i64 % 40_000 - 20_000)
        }),
        ("time", LogicalType::Time(3), |r| {
            V::Int(r as i64 * 7_919 % 86_400_000)
        }),
        ("boolean", LogicalType::Boolean, |r| V::Bool(r % 2 == 0)),
        ("utf8_8", STRING, |r| V::Str(text(r, 8))),
        ("utf8_256", STRING, |r| V::Str(text(r, 256))),
        ("timestamp_9", LogicalType::Timestamp(9), |r| {
            V::Int((mix(r as u64, 5) as i64) | 1)
        }),
    ];
    for (name, ty, value) in &types {
        for n in [128, 4_096] {
            for keys in [1, 64, 1_024] {
                let id = format!("window_count_validity/{name}/rows={n}/keys={keys}");
                window_case(suite, &id, 1, || {
                    fixture(
                        Shape::Tumble,
                        ty,
                        &[Call::Count],
                        &[rows(n, keys, |row, _| value(row))],
                    )
                });
            }
        }
    }
}
