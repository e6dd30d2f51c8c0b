//! The regular streaming join against a model of released Flink 2.3.0's
//! `StreamingJoinOperator` and `StreamingSemiAntiJoinOperator`, for every join type, every
//! pair of state layouts, with and without a non-equi condition: random two-sided
//! changelogs (duplicates, updates, retractions of unknown rows, NULL keys) consistent with
//! each input's unique key.
//!
//! The model is the operators' algorithm over plain rows in lists, one event at a time.
//! The native join run one row per batch must emit, for each event, the rows the model does
//! (as a multiset: the order of the rows one event joins is the state's iteration order,
//! which Flink's heap and RocksDB backends do not share). Run in batches of up to 17 rows of
//! one input, checkpointed, restored and rescaled between batches, on memory and RocksDB,
//! it must emit exactly what the one-row run emits, per join key.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow::array::{Array, AsArray, Int8Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Int32Type, Int64Type, Schema};
use streamfusion::calc::functions::comparison::GREATER_THAN;
use streamfusion::calc::{CalcProgram, Expr};
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::join::{InputState, JoinInput, JoinSpec, JoinType};
use streamfusion::ops::{OperatorPlan, Output, StateConfig};
use streamfusion::types::LogicalType;

use super::common::subtasks::Subtasks;
use super::common::{Backend, SplitMix};

/// `(k, v, s)`: the join key, a unique key for the `UniqueKey` layout, a payload.
type Row = (Option<i32>, i64, Option<String>);

/// An emitted row: its kind, the left row and the right row (`None`: padding, or no right
/// part for SEMI/ANTI).
type Emitted = (RowKind, Option<Row>, Option<Row>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// One row per join key (`JoinKeyContainsUniqueKey`).
    PerJoinKey,
    /// Rows by unique key `v` (`InputSideHasUniqueKey`).
    PerUnique,
    /// Rows counted (`NoUniqueKey`).
    Counted,
}

const LAYOUTS: [Layout; 3] = [Layout::PerJoinKey, Layout::PerUnique, Layout::Counted];
const TYPES: [JoinType; 6] = [
    JoinType::Inner,
    JoinType::Left,
    JoinType::Right,
    JoinType::Full,
    JoinType::Semi,
    JoinType::Anti,
];

fn outer(t: JoinType, port: usize) -> bool {
    match t {
        JoinType::Inner => false,
        JoinType::Left | JoinType::Semi | JoinType::Anti => port == 0,
        JoinType::Right => port == 1,
        JoinType::Full => true,
    }
}

// ------------------------------------------------------------------------------- model

/// One input's rows under one key: (row, copies, associations, last written).
#[derive(Debug, Default, Clone)]
struct ModelSide(Vec<(Row, u32, i32, i64)>);

impl ModelSide {
    fn same(layout: Layout, a: &Row, b: &Row) -> bool {
        match layout {
            Layout::PerJoinKey => true,
            Layout::PerUnique => a.1 == b.1,
            Layout::Counted => a == b,
        }
    }

    fn add(&mut self, layout: Layout, row: &Row, assoc: i32, now: i64) {
        match self.0.iter_mut().find(|e| Self::same(layout, &e.0, row)) {
            Some(e) if layout == Layout::Counted => {
                e.1 += 1;
                e.2 = assoc;
                e.3 = now;
            }
            Some(e) => *e = (row.clone(), 1, assoc, now),
            None => self.0.push((row.clone(), 1, assoc, now)),
        }
    }

    fn retract(&mut self, layout: Layout, row: &Row, now: i64) {
        if let Some(at) = self.0.iter().position(|e| Self::same(layout, &e.0, row)) {
            if layout == Layout::Counted && self.0[at].1 > 1 {
                self.0[at].1 -= 1;
                self.0[at].3 = now;
            } else {
                self.0.remove(at);
            }
        }
    }
}

struct Model {
    join_type: JoinType,
    layouts: [Layout; 2],
    condition: bool,
    /// Each input's state TTL (ms), if on.
    ttls: [Option<i64>; 2],
    sides: HashMap<Option<i32>, [ModelSide; 2]>,
    /// How many records expired.
    expired: usize,
}

impl Model {
    fn joined(port: usize, mine: Option<&Row>, other: Option<&Row>) -> (Option<Row>, Option<Row>) {
        let (mine, other) = (mine.cloned(), other.cloned());
        if port == 0 {
            (mine, other)
        } else {
            (other, mine)
        }
    }

    /// What Flink emits for `row` arriving as `kind` on input `port` at processing time
    /// `now`.
    fn event(&mut self, port: usize, kind: RowKind, row: &Row, now: i64) -> Vec<Emitted> {
        let t = self.join_type;
        let layout = self.layouts[port];
        let condition = self.condition;
        let sides = self.sides.entry(row.0).or_default();
        // Flink's state never returns a value whose TTL ran out.
        for (side, ttl) in sides.iter_mut().zip(self.ttls) {
            if let Some(ttl) = ttl {
                let before = side.0.len();
                side.0.retain(|e| e.3 + ttl > now);
                self.expired += before - side.0.len();
            }
        }
        let [left, right] = sides;
        let (mine, other) = if port == 0 {
            (left, right)
        } else {
            (right, left)
        };
        let accepts = |o: &Row| {
            let (l, r) = if port == 0 { (row, o) } else { (o, row) };
            l.0.is_some() && (!condition || l.1 > r.1)
        };
        let matches: Vec<usize> = (0..other.0.len())
            .filter(|&e| accepts(&other.0[e].0))
            .collect();
        let mut out = Vec::new();
        let accumulate = matches!(kind, RowKind::Insert | RowKind::UpdateAfter);
        if matches!(t, JoinType::Semi | JoinType::Anti) {
            let anti = t == JoinType::Anti;
            if port == 0 {
                let copies: u32 = matches.iter().map(|&e| other.0[e].1).sum();
                if (copies > 0) != anti {
                    out.push((kind, Some(row.clone()), None));
                }
                if accumulate {
                    mine.add(layout, row, copies as i32, now);
                } else {
                    mine.retract(layout, row, now);
                }
                return out;
            }
            if accumulate {
                mine.add(layout, row, 0, now);
            } else {
                mine.retract(layout, row, now);
            }
            for e in matches {
                let (left_row, copies, before, _) = other.0[e].clone();
                for _ in 0..copies {
                    if accumulate {
                        if before == 0 {
                            let k = if anti { RowKind::Delete } else { kind };
                            out.push((k, Some(left_row.clone()), None));
                        }
                        other.0[e].2 = before + 1;
                        other.0[e].3 = now;
                    } else {
                        if before == 1 {
                            let k = if anti { RowKind::Insert } else { kind };
                            out.push((k, Some(left_row.clone()), None));
                        }
                        other.0[e].2 = before - 1;
                        other.0[e].3 = now;
                    }
                }
            }
            return out;
        }
        let (input_outer, other_outer) = (outer(t, port), outer(t, 1 - port));
        if accumulate {
            if input_outer && matches.is_empty() {
                let (l, r) = Self::joined(port, Some(row), None);
                out.push((RowKind::Insert, l, r));
                mine.add(layout, row, 0, now);
                return out;
            }
            if !input_outer {
                mine.add(layout, row, 0, now);
            }
            let mut n = 0;
            for e in matches {
                let (o, copies, before, _) = other.0[e].clone();
                for _ in 0..copies {
                    n += 1;
                    if other_outer {
                        if before == 0 {
                            let (l, r) = Self::joined(port, None, Some(&o));
                            out.push((RowKind::Delete, l, r));
                        }
                        other.0[e].2 = before + 1;
                        other.0[e].3 = now;
                    }
                    let k = if other_outer || input_outer {
                        RowKind::Insert
                    } else {
                        kind
                    };
                    let (l, r) = Self::joined(port, Some(row), Some(&o));
                    out.push((k, l, r));
                }
            }
            if input_outer {
                mine.add(layout, row, n, now);
            }
        } else {
            mine.retract(layout, row, now);
            if matches.is_empty() {
                if input_outer {
                    let (l, r) = Self::joined(port, Some(row), None);
                    out.push((RowKind::Delete, l, r));
                }
                return out;
            }
            for e in matches {
                let (o, copies, before, _) = other.0[e].clone();
                for _ in 0..copies {
                    let k = if input_outer { RowKind::Delete } else { kind };
                    let (l, r) = Self::joined(port, Some(row), Some(&o));
                    out.push((k, l, r));
                    if other_outer {
                        if before == 1 {
                            let (l, r) = Self::joined(port, None, Some(&o));
                            out.push((RowKind::Insert, l, r));
                        }
                        other.0[e].2 = before - 1;
                        other.0[e].3 = now;
                    }
                }
            }
        }
        out
    }
}

// ------------------------------------------------------------------------------ inputs

/// One input's changelog, consistent with its layout's unique key.
fn changelog(rnd: &mut SplitMix, layout: Layout, events: usize) -> Vec<(RowKind, Row)> {
    let payloads = [None, Some(""), Some("a"), Some("é€"), Some("zz")];
    let mut live: Vec<Row> = Vec::new();
    let mut out = Vec::new();
    let fresh = |rnd: &mut SplitMix, live: &[Row]| -> Row {
        let k = match layout {
            // A primary key holding the join key is NOT NULL.
            Layout::PerJoinKey => Some(rnd.below(6) as i32),
            _ => (rnd.below(8) > 0).then(|| rnd.below(5) as i32),
        };
        let s = payloads[rnd.below(5) as usize].map(str::to_string);
        let v = match layout {
            Layout::PerUnique => loop {
                let v = rnd.below(24) as i64;
                if !live.iter().any(|r| r.1 == v) {
                    break v;
                }
            },
            _ => rnd.below(5) as i64,
        };
        (k, v, s)
    };
    while out.len() < events {
        let pick = rnd.below(20);
        // Fewer live rows than unique keys, so a fresh one always exists.
        let cap = if layout == Layout::PerJoinKey { 5 } else { 12 };
        if live.is_empty() || (pick < 9 && live.len() < cap) {
            let row = fresh(rnd, &live);
            if layout == Layout::PerJoinKey && live.iter().any(|r| r.0 == row.0) {
                continue;
            }
            out.push((RowKind::Insert, row.clone()));
            live.push(row);
        } else if pick < 14 {
            let at = rnd.below(live.len() as u64) as usize;
            let old = live[at].clone();
            let mut new = fresh(rnd, &live);
            match layout {
                Layout::PerJoinKey => new.0 = old.0,
                Layout::PerUnique => new.1 = old.1,
                Layout::Counted => {}
            }
            out.push((RowKind::UpdateBefore, old));
            out.push((RowKind::UpdateAfter, new.clone()));
            live[at] = new;
        } else if pick < 19 {
            let at = rnd.below(live.len() as u64) as usize;
            out.push((RowKind::Delete, live.swap_remove(at)));
        } else {
            // A retraction of a row that was never there.
            let mut row = fresh(rnd, &live);
            row.1 += 100;
            out.push((RowKind::Delete, row));
        }
    }
    out
}

/// Both inputs' changelogs interleaved in runs: `(port, kind, row)`.
fn events(rnd: &mut SplitMix, layouts: [Layout; 2], n: usize) -> Vec<(usize, RowKind, Row)> {
    let mut sides = [
        changelog(rnd, layouts[0], n).into_iter().peekable(),
        changelog(rnd, layouts[1], n).into_iter().peekable(),
    ];
    let mut out = Vec::new();
    while sides.iter_mut().any(|s| s.peek().is_some()) {
        let port = rnd.below(2) as usize;
        for _ in 0..=rnd.below(4) {
            if let Some((kind, row)) = sides[port].next() {
                out.push((port, kind, row));
            }
        }
    }
    out
}

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int32, true),
        Field::new("v", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
    ]))
}

fn batch(rows: &[(RowKind, Row)]) -> ChangelogBatch {
    let batch = RecordBatch::try_new(
        schema(),
        vec![
            Arc::new(rows.iter().map(|r| r.1.0).collect::<Int32Array>()),
            Arc::new(rows.iter().map(|r| r.1.1).collect::<Int64Array>()),
            Arc::new(rows.iter().map(|r| r.1.2.clone()).collect::<StringArray>()),
        ],
    )
    .unwrap();
    let kinds: Int8Array = rows.iter().map(|r| r.0.to_byte()).collect();
    ChangelogBatch::try_new(batch, Some(kinds)).unwrap()
}

fn input(prefix: &str, layout: Layout) -> JoinInput {
    JoinInput {
        names: ["k", "v", "s"].map(|n| format!("{prefix}{n}")).to_vec(),
        types: vec![
            LogicalType::Int,
            LogicalType::BigInt,
            LogicalType::VarChar(i32::MAX as u32),
        ],
        keys: vec![0],
        state: match layout {
            Layout::PerJoinKey => InputState::JoinKey,
            Layout::PerUnique => InputState::UniqueKey { columns: vec![1] },
            Layout::Counted => InputState::NoUniqueKey,
        },
        state_ttl: None,
    }
}

fn plan(join_type: JoinType, layouts: [Layout; 2], condition: bool) -> OperatorPlan {
    OperatorPlan::Join(JoinSpec {
        join_type,
        left: input("l", layouts[0]),
        right: input("r", layouts[1]),
        filter_nulls: vec![true],
        condition: condition.then(|| {
            CalcProgram::project(vec![Expr::call(
                GREATER_THAN,
                vec![Expr::input(1), Expr::input(4)],
            )])
        }),
        max_parallelism: 128,
        mini_batch_rows: None,
    })
}

fn rows_of(out: &ChangelogBatch, semi_anti: bool) -> Vec<Emitted> {
    let b = out.batch();
    let part = |at: usize, r: usize| -> Option<Row> {
        let v = b.column(at + 1).as_primitive::<Int64Type>();
        if v.is_null(r) {
            return None;
        }
        let k = b.column(at).as_primitive::<Int32Type>();
        let s = b.column(at + 2).as_string::<i32>();
        Some((
            k.is_valid(r).then(|| k.value(r)),
            v.value(r),
            s.is_valid(r).then(|| s.value(r).to_string()),
        ))
    };
    (0..out.num_rows())
        .map(|r| {
            let right = if semi_anti { None } else { part(3, r) };
            (out.kind(r), part(0, r), right)
        })
        .collect()
}

fn sorted(mut rows: Vec<Emitted>) -> Vec<Emitted> {
    rows.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    rows
}

/// The emitted rows by join key, in order.
fn by_key(rows: &[Emitted]) -> BTreeMap<Option<i32>, Vec<Emitted>> {
    let mut keys: BTreeMap<Option<i32>, Vec<Emitted>> = BTreeMap::new();
    for row in rows {
        let key = row.1.as_ref().or(row.2.as_ref()).expect("a row").0;
        keys.entry(key).or_default().push(row.clone());
    }
    keys
}

/// Each event's output, the native join run one row per batch on memory state.
fn one_row_at_a_time(plan: &OperatorPlan, events: &[(usize, RowKind, Row)]) -> Vec<Vec<Emitted>> {
    let semi_anti = matches!(plan, OperatorPlan::Join(s) if matches!(s.join_type, JoinType::Semi | JoinType::Anti));
    let mut op = plan.build(&StateConfig::memory(), None).unwrap();
    events
        .iter()
        .map(|(port, kind, row)| {
            let mut out = Output::new();
            op.process(*port, &batch(&[(*kind, row.clone())]), &mut out)
                .unwrap();
            out.take()
                .iter()
                .flat_map(|b| rows_of(b, semi_anti))
                .collect()
        })
        .collect()
}

/// The native join run in batches of up to 17 rows of one input, checkpointed and restored
/// (parallelism 1, 2 or 3) at random batch boundaries.
fn in_batches(
    plan: &OperatorPlan,
    backend: Backend,
    events: &[(usize, RowKind, Row)],
    rnd: &mut SplitMix,
) -> Vec<Emitted> {
    let semi_anti = matches!(plan, OperatorPlan::Join(s) if matches!(s.join_type, JoinType::Semi | JoinType::Anti));
    let mut subtasks = Subtasks::new(plan.clone(), backend, 128);
    let mut out = Output::new();
    let mut at = 0;
    while at < events.len() {
        let port = events[at].0;
        let len = events[at..]
            .iter()
            .take(1 + rnd.below(17) as usize)
            .take_while(|e| e.0 == port)
            .count();
        let rows: Vec<(RowKind, Row)> = events[at..at + len]
            .iter()
            .map(|(_, k, r)| (*k, r.clone()))
            .collect();
        subtasks.process_on(port, &batch(&rows), &mut out);
        at += len;
        if rnd.below(6) == 0 {
            subtasks.restore(1 + rnd.below(3) as u32, &mut out);
        }
    }
    subtasks.flush(&mut out);
    out.take()
        .iter()
        .flat_map(|b| rows_of(b, semi_anti))
        .collect()
}

#[test]
fn every_join_type_and_state_layout_emits_what_flinks_operators_emit() {
    let mut rnd = SplitMix::new(0x5eed_0022);
    let mut checked = 0;
    for join_type in TYPES {
        for left in LAYOUTS {
            for right in LAYOUTS {
                for condition in [false, true] {
                    let layouts = [left, right];
                    let events = events(&mut rnd, layouts, 120);
                    let plan = plan(join_type, layouts, condition);
                    let mut model = Model {
                        join_type,
                        layouts,
                        condition,
                        ttls: [None, None],
                        sides: HashMap::new(),
                        expired: 0,
                    };
                    let native = one_row_at_a_time(&plan, &events);
                    for (i, ((port, kind, row), native)) in events.iter().zip(&native).enumerate() {
                        let expected = model.event(*port, *kind, row, 0);
                        assert_eq!(
                            sorted(native.clone()),
                            sorted(expected),
                            "{join_type:?} {layouts:?} condition {condition}: event {i} \
                             ({kind} {row:?} on input {port})"
                        );
                        checked += native.len();
                    }
                }
            }
        }
    }
    // The changelogs make many matches, paddings and flips.
    assert!(checked > 20_000, "only {checked} rows emitted");
}

#[test]
fn batches_checkpoints_restores_and_rescales_change_no_output() {
    let mut rnd = SplitMix::new(0x5eed_0023);
    for join_type in TYPES {
        for (layouts, condition) in [
            ([Layout::Counted, Layout::Counted], false),
            ([Layout::PerUnique, Layout::PerJoinKey], true),
            ([Layout::PerJoinKey, Layout::Counted], false),
        ] {
            let events = events(&mut rnd, layouts, 200);
            let plan = plan(join_type, layouts, condition);
            let one: Vec<Emitted> = one_row_at_a_time(&plan, &events).concat();
            for backend in [Backend::Memory, Backend::Rocks] {
                let batched = in_batches(&plan, backend, &events, &mut rnd);
                assert_eq!(
                    by_key(&batched),
                    by_key(&one),
                    "{join_type:?} {layouts:?} condition {condition} on {backend:?}"
                );
            }
        }
    }
}

#[test]
fn state_ttl_hides_rows_a_ttl_after_their_last_write_across_restores() {
    use streamfusion::state::checkpoint::Checkpoint;
    use streamfusion::state::ttl::ManualClock;
    let mut rnd = SplitMix::new(0x5eed_0024);
    let ms = |m: i64| std::time::Duration::from_millis(m as u64);
    for join_type in TYPES {
        for (layouts, ttls) in [
            ([Layout::Counted, Layout::Counted], [Some(40), Some(40)]),
            ([Layout::PerUnique, Layout::PerJoinKey], [Some(25), None]),
            ([Layout::PerJoinKey, Layout::Counted], [None, Some(60)]),
        ] {
            let events = events(&mut rnd, layouts, 150);
            let OperatorPlan::Join(mut spec) = plan(join_type, layouts, false) else {
                unreachable!()
            };
            spec.left.state_ttl = ttls[0].map(ms);
            spec.right.state_ttl = ttls[1].map(ms);
            let plan = OperatorPlan::Join(spec);
            for backend in [Backend::Memory, Backend::Rocks] {
                let dir = tempfile::tempdir().unwrap();
                let clock = Arc::new(ManualClock::new(1_000));
                let config = |n: usize| {
                    let config = match backend {
                        Backend::Memory => StateConfig::memory(),
                        Backend::Rocks => StateConfig::rocksdb(dir.path().join(format!("db{n}"))),
                    };
                    config.with_clock(clock.clone())
                };
                let mut op = plan.build(&config(0), None).unwrap();
                let mut model = Model {
                    join_type,
                    layouts,
                    condition: false,
                    ttls,
                    sides: HashMap::new(),
                    expired: 0,
                };
                let mut now = 1_000;
                for (i, (port, kind, row)) in events.iter().enumerate() {
                    now += rnd.below(9) as i64;
                    clock.set(now);
                    let expected = model.event(*port, *kind, row, now);
                    let mut out = Output::new();
                    op.process(*port, &batch(&[(*kind, row.clone())]), &mut out)
                        .unwrap();
                    let native: Vec<Emitted> = out
                        .take()
                        .iter()
                        .flat_map(|b| {
                            rows_of(b, matches!(join_type, JoinType::Semi | JoinType::Anti))
                        })
                        .collect();
                    assert_eq!(
                        sorted(native),
                        sorted(expected),
                        "{join_type:?} {layouts:?} TTL {ttls:?} on {backend:?}: event {i} at {now}"
                    );
                    if i % 37 == 36 {
                        let c = op.checkpoint(&dir.path().join(format!("c{i}"))).unwrap();
                        op = plan
                            .restore(&config(i), None, &[Checkpoint::open(c.path()).unwrap()])
                            .unwrap();
                    }
                }
                let expired = model.expired;
                assert!(
                    expired > 10,
                    "{join_type:?} {layouts:?}: only {expired} rows expired"
                );
            }
        }
    }
}

#[test]
fn a_batch_on_a_third_input_or_of_another_shape_is_refused() {
    let plan = plan(JoinType::Inner, [Layout::Counted; 2], false);
    let mut op = plan.build(&StateConfig::memory(), None).unwrap();
    assert_eq!(op.inputs(), 2);
    let rows = batch(&[(RowKind::Insert, (Some(1), 1, None))]);
    let err = op.process(2, &rows, &mut Output::new()).unwrap_err();
    assert!(err.to_string().contains("inputs 0 and 1"), "{err}");
    let narrow = ChangelogBatch::insert_only(rows.batch().project(&[0, 1]).unwrap());
    assert!(op.process(1, &narrow, &mut Output::new()).is_err());
}

#[test]
fn plans_flink_would_not_run_are_refused() {
    let base = || match plan(JoinType::Left, [Layout::Counted; 2], false) {
        OperatorPlan::Join(spec) => spec,
        _ => unreachable!(),
    };
    let refused = |spec: JoinSpec, why: &str| {
        let err = OperatorPlan::Join(spec)
            .build(&StateConfig::memory(), None)
            .unwrap_err();
        assert!(err.to_string().contains(why), "{err} lacks {why:?}");
    };
    let mut spec = base();
    spec.right.types[0] = LogicalType::BigInt;
    refused(spec, "differ in type");
    let mut spec = base();
    spec.filter_nulls = vec![];
    refused(spec, "NULL filters");
    let mut spec = base();
    spec.condition = Some(CalcProgram::project(vec![Expr::input(1)]));
    refused(spec, "BOOLEAN");
}
