//! Top-N against what its changelog must describe: after every batch, the changelog applied
//! to a table (keyed by partition and rank when the rank is output, a multiset of rows
//! otherwise) must hold exactly the rows a brute-force sort of everything seen so far puts
//! at ranks `rank_start..=rank_end` of their partition: by sort key, ties by arrival (a
//! later tie ranks after), or by arrival alone for First-N. Every emitted `-U`/`-D` must
//! retract a row that is there. That holds for Flink's append-only Top-N functions by
//! construction; the exact sequences are checked against released Flink in `rank_flink`.
//! The retracting Top-N (`RetractableTopNFunction`) reads a changelog: there the table must
//! hold the top rows of what is live, every row inserted and not retracted since, ties by
//! their last arrival. The updatable Top-N (`UpdatableTopNFunction`) reads upserts of a
//! unique key whose sort key only improves: there the table must hold the top rows of each
//! key's last version, ties by when their sort key last changed.
//!
//! Shapes: Top-1, Top-N with and without the rank column, offsets, First-N, the retracting
//! and the updatable Top-N; ascending and descending, NULLs first and last, a BIGINT and a second STRING sort
//! field, a global Top-N; both backends, chunks of 1, 17 and 500 rows, and restores aligned
//! and rescaled (1 -> 2 -> 1). A DOUBLE sort key is refused (decision 0028).

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array, Int64Array, StringArray};
use arrow::datatypes::{Int32Type, Int64Type};
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::ops::{OperatorPlan, Output, StateConfig};
use streamfusion::rank::{RankFunction, RankSpec, SortKey};
use streamfusion::state::checkpoint::Checkpoint;
use streamfusion::types::LogicalType;

use super::common::subtasks::Subtasks;
use super::common::{Backend, SplitMix};

const MAX_PARALLELISM: u32 = 128;

#[derive(Debug, Clone, PartialEq)]
struct Row {
    k: Option<i32>,
    s: Option<i64>,
    t: Option<String>,
    /// Unique per inserted row: its arrival number.
    id: String,
    /// `+I`, or for a retracting Top-N's input `-U`/`-D` of a live row and `+U`.
    kind: RowKind,
}

#[derive(Debug, Clone, Copy)]
struct Shape {
    function: RankFunction,
    start: i64,
    end: i64,
    rank_column: bool,
    update_before: bool,
    ascending: bool,
    nulls_last: bool,
    global: bool,
}

impl Shape {
    fn spec(self) -> RankSpec {
        let mut sort = vec![SortKey {
            column: 1,
            ascending: self.ascending,
            nulls_last: self.nulls_last,
        }];
        if self.function != RankFunction::FirstN {
            sort.push(SortKey {
                column: 2,
                ascending: true,
                nulls_last: false,
            });
        }
        RankSpec {
            input_names: ["k", "s", "t", "id"].map(String::from).to_vec(),
            input_types: vec![
                LogicalType::Int,
                LogicalType::BigInt,
                LogicalType::VarChar(i32::MAX as u32),
                LogicalType::VarChar(i32::MAX as u32),
            ],
            partition_keys: if self.global { vec![] } else { vec![0] },
            sort,
            function: self.function,
            rank_start: self.start,
            rank_end: self.end,
            rank_name: self.rank_column.then(|| "rn".to_string()),
            generate_update_before: self.update_before,
            input_updates: self.function == RankFunction::Update,
            // An upsert's key: the partition and the row's id.
            unique_key: match self.function {
                RankFunction::Update => vec![0, 3],
                _ => Vec::new(),
            },
            state_ttl: None,
            max_parallelism: MAX_PARALLELISM,
        }
    }
}

fn shapes() -> Vec<Shape> {
    let base = Shape {
        function: RankFunction::TopN,
        start: 1,
        end: 3,
        rank_column: false,
        update_before: true,
        ascending: true,
        nulls_last: false,
        global: false,
    };
    let mut shapes = Vec::new();
    for (ascending, nulls_last) in [(true, false), (false, true), (false, false)] {
        let s = Shape {
            ascending,
            nulls_last,
            ..base
        };
        shapes.push(s);
        shapes.push(Shape {
            rank_column: true,
            ..s
        });
        shapes.push(Shape {
            start: 2,
            end: 4,
            ..s
        });
        shapes.push(Shape {
            function: RankFunction::Top1,
            end: 1,
            ..s
        });
    }
    shapes.push(Shape {
        rank_column: true,
        update_before: false,
        ..base
    });
    shapes.push(Shape {
        function: RankFunction::Top1,
        end: 1,
        rank_column: true,
        update_before: false,
        ..base
    });
    shapes.push(Shape {
        end: 5,
        global: true,
        rank_column: true,
        ..base
    });
    shapes.push(Shape {
        global: true,
        ..base
    });
    for (start, end, rank_column) in [(1, 3, false), (1, 3, true), (2, 3, false)] {
        shapes.push(Shape {
            function: RankFunction::FirstN,
            start,
            end,
            rank_column,
            ..base
        });
    }
    shapes
}

/// Rows with NULL partitions and sort keys, many ties on both sort fields.
fn rows(seed: u64, n: usize, partitions: i32) -> Vec<Row> {
    let mut random = SplitMix::new(seed);
    let mut next = |m: u64| random.below(m);
    (0..n)
        .map(|i| {
            let k = match next(partitions as u64 + 1) as i32 {
                0 => None,
                k => Some(k),
            };
            let s = match next(12) {
                0 => None,
                v => Some(v as i64 - 6),
            };
            let t = match next(4) {
                0 => None,
                v => Some(format!("t{v}")),
            };
            Row {
                k,
                s,
                t,
                id: format!("row {i}"),
                kind: RowKind::Insert,
            }
        })
        .collect()
}

fn batch(rows: &[Row]) -> ChangelogBatch {
    let k: ArrayRef = Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.k)));
    let s: ArrayRef = Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.s)));
    let t: ArrayRef = Arc::new(StringArray::from_iter(rows.iter().map(|r| r.t.clone())));
    let id: ArrayRef = Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.id)));
    let fields: Vec<arrow::datatypes::Field> = ["k", "s", "t", "id"]
        .iter()
        .zip([&k, &s, &t, &id])
        .map(|(n, c)| arrow::datatypes::Field::new(*n, c.data_type().clone(), true))
        .collect();
    let schema = Arc::new(arrow::datatypes::Schema::new(fields));
    let kinds = arrow::array::Int8Array::from_iter_values(rows.iter().map(|r| r.kind as i8));
    ChangelogBatch::try_new(
        arrow::array::RecordBatch::try_new(schema, vec![k, s, t, id]).unwrap(),
        Some(kinds),
    )
    .unwrap()
}

/// [`rows`] as a changelog: a third of the events retract a live row (`-D`, or `-U` then
/// `+U` of it with a new sort key and id), sometimes the one just inserted.
fn changelog(seed: u64, n: usize, partitions: i32) -> Vec<Row> {
    let fresh = rows(seed, n, partitions);
    let mut random = SplitMix::new(seed ^ 0x5EED);
    let mut next = |m: u64| random.below(m);
    let mut live: Vec<Row> = Vec::new();
    let mut events = Vec::new();
    for (i, row) in fresh.into_iter().enumerate() {
        if live.is_empty() || next(3) != 0 {
            live.push(row.clone());
            events.push(row);
            continue;
        }
        let at = if next(4) == 0 {
            live.len() - 1
        } else {
            next(live.len() as u64) as usize
        };
        let gone = live.remove(at);
        if next(2) == 0 {
            events.push(Row {
                kind: RowKind::Delete,
                ..gone
            });
        } else {
            let updated = Row {
                s: row.s,
                id: format!("row {i}"),
                kind: RowKind::UpdateAfter,
                ..gone.clone()
            };
            events.push(Row {
                kind: RowKind::UpdateBefore,
                ..gone
            });
            live.push(updated.clone());
            events.push(updated);
        }
    }
    events
}

/// Upserts for an updatable Top-N: half the events insert a new id (a non-NULL sort key),
/// the others upsert a known id with its sort key improved by 1 or 2 in the shape's
/// direction, or unchanged (its row changes in place).
fn upserts(seed: u64, n: usize, partitions: i32, ascending: bool) -> Vec<Row> {
    let fresh = rows(seed, n, partitions);
    let mut random = SplitMix::new(seed ^ 0x0B5E);
    let mut next = |m: u64| random.below(m);
    let mut known: Vec<Row> = Vec::new();
    let mut events = Vec::new();
    for (i, row) in fresh.into_iter().enumerate() {
        if known.is_empty() || next(2) == 0 {
            let new = Row {
                s: Some(row.s.unwrap_or(0)),
                id: format!("row {i}"),
                ..row
            };
            known.push(new.clone());
            events.push(new);
            continue;
        }
        let at = next(known.len() as u64) as usize;
        let step = next(3) as i64;
        let old = known[at].s.expect("upserted sort keys are not NULL");
        let updated = Row {
            s: Some(if ascending { old - step } else { old + step }),
            kind: RowKind::UpdateAfter,
            ..known[at].clone()
        };
        known[at] = updated.clone();
        events.push(updated);
    }
    events
}

/// Each id's last version after `events`, in the order ties rank: an id moves to the end
/// when its sort key changes and keeps its place when only its row does.
fn upserted(events: &[Row]) -> Vec<Row> {
    let mut last: Vec<Row> = Vec::new();
    for e in events {
        match last.iter().position(|r| r.id == e.id) {
            Some(at) if last[at].s == e.s => last[at] = e.clone(),
            Some(at) => {
                last.remove(at);
                last.push(e.clone());
            }
            None => last.push(e.clone()),
        }
    }
    last
}

/// What the shape's changelog must rank after `events`: the live rows, or for an
/// updatable Top-N each id's last version.
fn ranked(shape: Shape, events: &[Row]) -> Vec<Row> {
    match shape.function {
        RankFunction::Update => upserted(events),
        _ => live(events),
    }
}

/// The live rows after `events`, in order of arrival.
fn live(events: &[Row]) -> Vec<Row> {
    let mut live: Vec<Row> = Vec::new();
    for e in events {
        match e.kind {
            RowKind::Insert | RowKind::UpdateAfter => live.push(e.clone()),
            RowKind::UpdateBefore | RowKind::Delete => {
                let at = live.iter().position(|r| r.id == e.id).expect("a live row");
                live.remove(at);
            }
        }
    }
    live
}

/// One output row: kind, the row's id, its partition, its rank (0 without the column).
type Out = (RowKind, String, Option<i32>, i64);

fn rows_of(shape: Shape, out: &mut Output) -> Vec<Out> {
    let mut rows = Vec::new();
    for b in out.take() {
        let batch = b.batch();
        let k = batch.column(0).as_primitive::<Int32Type>();
        let id = batch.column(3).as_string::<i32>();
        for r in 0..b.num_rows() {
            let rank = if shape.rank_column {
                batch.column(4).as_primitive::<Int64Type>().value(r)
            } else {
                0
            };
            rows.push((
                b.kind(r),
                id.value(r).to_string(),
                (!k.is_null(r)).then(|| k.value(r)),
                rank,
            ));
        }
    }
    rows
}

/// Flink's comparator over (s, t), then arrival (the row id's number).
fn order(shape: Shape, a: &Row, b: &Row, seq: &HashMap<String, usize>) -> Ordering {
    let nulls = |x: bool, y: bool, last: bool| match (x, y) {
        (true, true) => Some(Ordering::Equal),
        (true, false) => Some(if last {
            Ordering::Greater
        } else {
            Ordering::Less
        }),
        (false, true) => Some(if last {
            Ordering::Less
        } else {
            Ordering::Greater
        }),
        (false, false) => None,
    };
    let s = nulls(a.s.is_none(), b.s.is_none(), shape.nulls_last).unwrap_or_else(|| {
        let o = a.s.cmp(&b.s);
        if shape.ascending { o } else { o.reverse() }
    });
    let t = nulls(a.t.is_none(), b.t.is_none(), false).unwrap_or_else(|| a.t.cmp(&b.t));
    s.then(t).then(seq[&a.id].cmp(&seq[&b.id]))
}

/// What the changelog must hold after `seen`: per partition, rank -> row id (rank 0 for
/// every row when no rank column is output).
fn expected(shape: Shape, seen: &[Row]) -> BTreeMap<(Option<i32>, i64), Vec<String>> {
    let seq: HashMap<String, usize> = seen
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.clone(), i))
        .collect();
    let mut partitions: BTreeMap<Option<i32>, Vec<&Row>> = BTreeMap::new();
    for r in seen {
        partitions
            .entry(if shape.global { None } else { r.k })
            .or_default()
            .push(r);
    }
    let mut table: BTreeMap<(Option<i32>, i64), Vec<String>> = BTreeMap::new();
    for (k, mut rows) in partitions {
        if shape.function != RankFunction::FirstN {
            rows.sort_by(|a, b| order(shape, a, b, &seq));
        }
        for (i, r) in rows.iter().enumerate() {
            let rank = i as i64 + 1;
            if shape.start <= rank && rank <= shape.end {
                let at = if shape.rank_column { rank } else { 0 };
                table.entry((k, at)).or_default().push(r.id.clone());
            }
        }
    }
    for ids in table.values_mut() {
        ids.sort();
    }
    table
}

/// Applies `out` to `table`; a retraction of a row that is not there panics. Without
/// `-U`, a row with a rank column (or a Top-1's) replaces what its (partition, rank) holds,
/// as an upsert sink keyed on them applies it.
fn apply(shape: Shape, table: &mut BTreeMap<(Option<i32>, i64), Vec<String>>, out: &[Out]) {
    let upsert =
        !shape.update_before && (shape.rank_column || shape.function == RankFunction::Top1);
    for (kind, id, k, rank) in out {
        let key = (if shape.global { None } else { *k }, *rank);
        let ids = table.entry(key).or_default();
        match kind {
            RowKind::Insert | RowKind::UpdateAfter => {
                if upsert {
                    ids.clear();
                }
                ids.push(id.clone());
            }
            RowKind::UpdateBefore | RowKind::Delete => {
                let at = ids.iter().position(|i| i == id).unwrap_or_else(|| {
                    panic!("{shape:?}: {kind} of {id} at {key:?}, which holds {ids:?}")
                });
                ids.remove(at);
            }
        }
        ids.sort();
        if ids.is_empty() {
            table.remove(&key);
        }
    }
}

/// Runs `rows` in `chunk`-row batches through the plan's subtasks, restoring at the
/// parallelism given at each row index of `restores`; checks the table after every batch.
fn run(
    shape: Shape,
    backend: Backend,
    rows: &[Row],
    restores: &[(usize, u32)],
    chunk: usize,
) -> Vec<Out> {
    let mut subtasks = Subtasks::new(OperatorPlan::Rank(shape.spec()), backend, MAX_PARALLELISM);
    let mut all = Vec::new();
    let mut table = BTreeMap::new();
    let mut done = 0;
    while done < rows.len() {
        if let Some(&(_, next)) = restores.iter().find(|(at, _)| *at == done) {
            let mut out = Output::new();
            subtasks.restore(next, &mut out);
            assert!(out.take().is_empty());
        }
        let until = restores
            .iter()
            .map(|r| r.0)
            .filter(|&at| at > done)
            .min()
            .unwrap_or(usize::MAX)
            .min(done + chunk)
            .min(rows.len());
        let part = batch(&rows[done..until]);
        let mut out = Output::new();
        if shape.global {
            assert_eq!(subtasks.ops.len(), 1, "a global Top-N runs on one subtask");
            subtasks.ops[0].process(0, &part, &mut out).unwrap();
        } else {
            subtasks.process(&part, &mut out);
        }
        let emitted = rows_of(shape, &mut out);
        apply(shape, &mut table, &emitted);
        done = until;
        assert_eq!(
            table,
            expected(shape, &ranked(shape, &rows[..done])),
            "{shape:?} on {backend:?} after {done} rows"
        );
        all.extend(emitted);
    }
    all
}

/// Each partition's emissions in order: what must hold however subtasks interleave.
fn per_partition(out: &[Out]) -> BTreeMap<Option<i32>, Vec<Out>> {
    let mut keys: BTreeMap<Option<i32>, Vec<Out>> = BTreeMap::new();
    for o in out {
        keys.entry(o.2).or_default().push(o.clone());
    }
    keys
}

/// The shapes of a Top-N over an updating input (`function`): with and without the rank
/// column and `-U` (the latter with the rank column: an upsert sink keyed on it), an offset
/// with the rank column, descending with NULLs last, a global one; and for the retracting
/// Top-N a range of one, for the updatable one (whose Top-1 is Flink's `FastTop1Function`) an
/// offset without the rank column.
fn updating_shapes(function: RankFunction) -> Vec<Shape> {
    let base = Shape {
        function,
        start: 1,
        end: 3,
        rank_column: false,
        update_before: true,
        ascending: true,
        nulls_last: false,
        global: false,
    };
    let own = match function {
        RankFunction::Retract => Shape { end: 1, ..base },
        _ => Shape {
            start: 2,
            end: 3,
            ..base
        },
    };
    vec![
        base,
        Shape {
            rank_column: true,
            ..base
        },
        Shape {
            rank_column: true,
            update_before: false,
            ..base
        },
        Shape {
            rank_column: true,
            start: 2,
            end: 4,
            ..base
        },
        own,
        Shape {
            ascending: false,
            nulls_last: true,
            end: 5,
            ..base
        },
        Shape {
            global: true,
            rank_column: true,
            ..base
        },
    ]
}

/// Runs `events` through `shape` on both backends in batches of 1, 17, 29 and 500, and
/// across aligned and (but for a global Top-N) rescaled restores; the changelogs must agree
/// (`run` checks each against the model after every batch).
fn check_updating(shape: Shape, events: &[Row]) {
    for backend in [Backend::Memory, Backend::Rocks] {
        let single = run(shape, backend, events, &[], 1);
        let whole = run(shape, backend, events, &[], 500);
        assert_eq!(whole, single, "{shape:?} on {backend:?} in one batch");
        assert!(whole.len() > 10, "{shape:?}: {} rows", whole.len());
        assert_eq!(
            run(shape, backend, events, &[], 17),
            whole,
            "{shape:?} on {backend:?} in 17-row batches"
        );
        let plain = run(shape, backend, events, &[], 29);
        let aligned = run(shape, backend, events, &[(75, 1), (150, 1), (300, 1)], 29);
        assert_eq!(aligned, plain, "{shape:?} on {backend:?}, aligned");
        if !shape.global {
            let rescaled = run(shape, backend, events, &[(75, 1), (150, 2), (300, 1)], 29);
            assert_eq!(
                per_partition(&rescaled),
                per_partition(&plain),
                "{shape:?} on {backend:?}, rescaled"
            );
        }
    }
}

#[test]
fn a_retracting_top_n_keeps_the_true_top_n_of_the_live_rows() {
    for (n, shape) in updating_shapes(RankFunction::Retract)
        .into_iter()
        .enumerate()
    {
        check_updating(shape, &changelog(0x7E7 + n as u64, 600, 6));
    }
}

#[test]
fn an_updatable_top_n_keeps_the_true_top_n_of_each_keys_last_version() {
    for (n, shape) in updating_shapes(RankFunction::Update)
        .into_iter()
        .enumerate()
    {
        check_updating(shape, &upserts(0x0BD + n as u64, 600, 6, shape.ascending));
    }
}

#[test]
fn every_shape_keeps_the_true_top_n_on_both_backends_in_any_chunking() {
    for (n, shape) in shapes().into_iter().enumerate() {
        let rows = rows(0x70B + n as u64, 600, 12);
        for backend in [Backend::Memory, Backend::Rocks] {
            let whole = run(shape, backend, &rows, &[], 500);
            assert!(whole.len() > 10, "{shape:?}: {} rows", whole.len());
            for chunk in [1, 17] {
                // One subtask processes rows in input order: the same changelog.
                assert_eq!(
                    run(shape, backend, &rows, &[], chunk),
                    whole,
                    "{shape:?} on {backend:?} in {chunk}-row batches"
                );
            }
        }
    }
}

#[test]
fn restores_aligned_and_rescaled_emit_nothing_twice_and_lose_nothing() {
    for (n, shape) in shapes().into_iter().enumerate() {
        let rows = rows(0xC0DE + n as u64, 450, 10);
        let aligned = [(75, 1), (150, 1), (300, 1)];
        let rescaled = [(75, 1), (150, 2), (300, 1)];
        for backend in [Backend::Memory, Backend::Rocks] {
            let plain = run(shape, backend, &rows, &[], 29);
            assert_eq!(
                run(shape, backend, &rows, &aligned, 29),
                plain,
                "{shape:?} on {backend:?}, aligned"
            );
            if !shape.global {
                assert_eq!(
                    per_partition(&run(shape, backend, &rows, &rescaled, 29)),
                    per_partition(&plain),
                    "{shape:?} on {backend:?}, rescaled"
                );
            }
        }
    }
}

#[test]
fn a_top1_compares_doubles_as_flink_nan_tying_with_every_value() {
    // Top-1 by (d DESC NULLS LAST, t ASC) over one partition: Flink's comparator ties a
    // NaN with any value and -0.0 with 0.0, so the second field decides there.
    let spec = RankSpec {
        input_names: ["k", "d", "t", "id"].map(String::from).to_vec(),
        input_types: vec![
            LogicalType::Int,
            LogicalType::Double,
            LogicalType::VarChar(i32::MAX as u32),
            LogicalType::VarChar(i32::MAX as u32),
        ],
        partition_keys: vec![0],
        sort: vec![
            SortKey {
                column: 1,
                ascending: false,
                nulls_last: true,
            },
            SortKey {
                column: 2,
                ascending: true,
                nulls_last: false,
            },
        ],
        function: RankFunction::Top1,
        rank_start: 1,
        rank_end: 1,
        rank_name: None,
        generate_update_before: true,
        input_updates: false,
        unique_key: Vec::new(),
        state_ttl: None,
        max_parallelism: MAX_PARALLELISM,
    };
    let rows: [(Option<f64>, &str); 7] = [
        (Some(1.0), "b"),
        (Some(f64::NAN), "a"), // ties on d, "a" < "b": wins
        (Some(5.0), "z"),      // ties with NaN on d, "z" > "a": loses
        (None, "a"),           // NULLs last: loses
        (Some(-0.0), "0"),     // ties with NaN, "0" < "a": wins
        (Some(0.0), "0"),      // ties with -0.0 and on t: the winner stays
        (Some(0.5), "1"),      // 0.5 > -0.0 descending: wins
    ];
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![7; rows.len()])),
        Arc::new(arrow::array::Float64Array::from_iter(
            rows.iter().map(|r| r.0),
        )),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.1))),
        Arc::new(StringArray::from_iter_values(
            (0..rows.len()).map(|i| format!("row {i}")),
        )),
    ];
    let fields: Vec<arrow::datatypes::Field> = ["k", "d", "t", "id"]
        .iter()
        .zip(&columns)
        .map(|(n, c)| arrow::datatypes::Field::new(*n, c.data_type().clone(), true))
        .collect();
    let input = ChangelogBatch::insert_only(
        arrow::array::RecordBatch::try_new(
            Arc::new(arrow::datatypes::Schema::new(fields)),
            columns,
        )
        .unwrap(),
    );
    for backend in [Backend::Memory, Backend::Rocks] {
        let dir = tempfile::tempdir().unwrap();
        let config = match backend {
            Backend::Memory => StateConfig::memory(),
            Backend::Rocks => StateConfig::rocksdb(dir.path().join("db")),
        };
        let mut op = OperatorPlan::Rank(spec.clone())
            .build(&config, None)
            .unwrap();
        let mut out = Output::new();
        // One row per batch, so the winner is read back from state each time.
        for r in 0..rows.len() {
            op.process(0, &input.slice(r, 1), &mut out).unwrap();
        }
        let got: Vec<(RowKind, String)> = out
            .take()
            .iter()
            .flat_map(|b| {
                let id = b.batch().column(3).as_string::<i32>().clone();
                (0..b.num_rows()).map(move |r| (b.kind(r), id.value(r).to_string()))
            })
            .collect();
        let expected: Vec<(RowKind, String)> = [
            (RowKind::Insert, 0),
            (RowKind::UpdateBefore, 0),
            (RowKind::UpdateAfter, 1),
            (RowKind::UpdateBefore, 1),
            (RowKind::UpdateAfter, 4),
            (RowKind::UpdateBefore, 4),
            (RowKind::UpdateAfter, 6),
        ]
        .into_iter()
        .map(|(k, r)| (k, format!("row {r}")))
        .collect();
        assert_eq!(got, expected, "{backend:?}");
    }
}

#[test]
fn a_top_n_refuses_a_float_sort_key_and_updating_input_is_an_error() {
    let mut spec = shapes()[1].spec();
    spec.input_types[1] = LogicalType::Double;
    let err = OperatorPlan::Rank(spec)
        .build(&StateConfig::memory(), None)
        .unwrap_err();
    assert!(
        err.to_string().contains("NaN equal to every value"),
        "{err}"
    );
    let shape = shapes()[1];
    let mut op = OperatorPlan::Rank(shape.spec())
        .build(&StateConfig::memory(), None)
        .unwrap();
    let b = batch(&rows(2, 2, 2));
    let retract = ChangelogBatch::try_new(
        b.batch().clone(),
        Some(arrow::array::Int8Array::from(vec![
            0,
            RowKind::UpdateBefore.to_byte(),
        ])),
    )
    .unwrap();
    let err = op.process(0, &retract, &mut Output::new()).unwrap_err();
    assert!(err.to_string().contains("insert-only"), "{err}");
}

#[test]
fn a_checkpoint_restores_only_into_a_plan_that_keeps_its_buffer_alike() {
    // The walk with ranks keeps ties past the end that the walk without would not expect.
    let with_rank = shapes()[1];
    assert!(with_rank.rank_column);
    let dir = tempfile::tempdir().unwrap();
    let plan = OperatorPlan::Rank(with_rank.spec());
    let mut op = plan.build(&StateConfig::memory(), None).unwrap();
    op.process(0, &batch(&rows(3, 40, 2)), &mut Output::new())
        .unwrap();
    let published = op.checkpoint(&dir.path().join("ckpt")).unwrap();
    let checkpoint = Checkpoint::open(published.path()).unwrap();
    let same = plan.restore(
        &StateConfig::memory(),
        None,
        std::slice::from_ref(&checkpoint),
    );
    assert!(same.is_ok());
    let mut other = with_rank.spec();
    other.rank_name = None;
    let err = OperatorPlan::Rank(other)
        .restore(&StateConfig::memory(), None, &[checkpoint])
        .unwrap_err();
    assert!(err.to_string().contains("with_rank_walk"), "{err}");
}
