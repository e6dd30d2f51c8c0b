//! What the join suites share: the input table `t(k BIGINT NOT NULL, id BIGINT NOT NULL,
//! s STRING)` of both inputs (columns prefixed `l`/`r`), the INNER join plan over it
//! (`l.k = r.k`, no non-equi condition), thin calls into the production operator
//! ([`OperatorPlan::build`] through `streamfusion::bench::OperatorLifecycle`, then
//! `Operator::process` on input 0 or 1), the output read back as joined rows, and the
//! oracle: [`Model`], a row-at-a-time model of Flink's INNER `StreamingJoinOperator` over
//! plain rows in lists.
//!
//! The model is the operator's documented algorithm for an INNER join and nothing of the
//! native code: a row arriving on one input joins every stored row (each copy) of the other
//! input under its key and keeps its own kind (`+I`/`+U` or `-U`/`-D`); an accumulating row
//! is then added to its input's rows, a retracting one removed: by its unique key
//! ([`Layout::UniqueKey`], Flink's `InputSideHasUniqueKey`) or as the whole row, one copy
//! ([`Layout::Multiset`], `InputSideHasNoUniqueKey`; a row that is not there changes
//! nothing).

#![allow(dead_code)] // Each suite uses part of this module.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int8Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Int64Type, Schema, SchemaRef};
use streamfusion::bench::OperatorStore;
use streamfusion::changelog::{ChangelogBatch, RowKind};
use streamfusion::join::{InputState, JoinInput, JoinSpec, JoinType};
use streamfusion::ops::{Output, Port};
use streamfusion::types::LogicalType;

/// The plan's max parallelism (key groups).
pub const MAX_PARALLELISM: u32 = 128;
/// Input 0.
pub const LEFT: Port = 0;
/// Input 1.
pub const RIGHT: Port = 1;

/// One input row: `(k, id, s)`.
pub type Row = (i64, i64, Option<String>);

/// One output row: its kind's byte, the left row and the right row.
pub type Joined = (i8, Row, Row);

/// How an input keeps its rows (the plan's [`InputState`], and the model's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// By the unique key `id`, which the join key `k` does not contain.
    UniqueKey,
    /// No unique key: rows counted.
    Multiset,
}

impl Layout {
    pub fn id(self) -> &'static str {
        match self {
            Layout::UniqueKey => "unique_key",
            Layout::Multiset => "no_unique_key",
        }
    }

    fn state(self) -> InputState {
        match self {
            Layout::UniqueKey => InputState::UniqueKey { columns: vec![1] },
            Layout::Multiset => InputState::NoUniqueKey,
        }
    }

    /// Whether the stored row `stored` is the one `row` adds to or retracts.
    fn same(self, stored: &Row, row: &Row) -> bool {
        match self {
            Layout::UniqueKey => stored.1 == row.1,
            Layout::Multiset => stored == row,
        }
    }
}

/// The measured input's side name, for case ids.
pub fn side_id(port: Port) -> &'static str {
    if port == LEFT { "left" } else { "right" }
}

fn prefix(port: Port) -> &'static str {
    if port == LEFT { "l" } else { "r" }
}

/// The schema of input `port`'s batches.
pub fn schema(port: Port) -> SchemaRef {
    let p = prefix(port);
    Arc::new(Schema::new(vec![
        Field::new(format!("{p}k"), DataType::Int64, false),
        Field::new(format!("{p}id"), DataType::Int64, false),
        Field::new(format!("{p}s"), DataType::Utf8, true),
    ]))
}

/// A batch of input `port` holding `rows`; insert-only (no kinds column) when every row is
/// `+I`.
pub fn batch(port: Port, rows: &[(RowKind, Row)]) -> ChangelogBatch {
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.1.0))),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.1.1))),
        Arc::new(StringArray::from_iter(
            rows.iter().map(|r| r.1.2.as_deref()),
        )),
    ];
    let batch = RecordBatch::try_new(schema(port), columns).expect("input batch");
    if rows.iter().all(|r| r.0 == RowKind::Insert) {
        return ChangelogBatch::insert_only(batch);
    }
    let kinds: Int8Array = rows.iter().map(|r| r.0.to_byte()).collect();
    ChangelogBatch::try_new(batch, Some(kinds)).expect("changelog batch")
}

/// `rows`, each with `kind`.
pub fn with_kind(kind: RowKind, rows: &[Row]) -> Vec<(RowKind, Row)> {
    rows.iter().map(|r| (kind, r.clone())).collect()
}

fn input(port: Port, layout: Layout) -> JoinInput {
    let p = prefix(port);
    JoinInput {
        names: ["k", "id", "s"].map(|n| format!("{p}{n}")).to_vec(),
        types: vec![
            LogicalType::BigInt,
            LogicalType::BigInt,
            LogicalType::VarChar(i32::MAX as u32),
        ],
        keys: vec![0],
        state: layout.state(),
        state_ttl: None,
    }
}

/// `SELECT * FROM l JOIN r ON l.k = r.k`, each input kept in its layout.
pub fn spec(layouts: [Layout; 2]) -> JoinSpec {
    JoinSpec {
        join_type: JoinType::Inner,
        left: input(LEFT, layouts[0]),
        right: input(RIGHT, layouts[1]),
        filter_nulls: vec![true],
        condition: None,
        max_parallelism: MAX_PARALLELISM,
        mini_batch_rows: None,
    }
}

/// The production call: `batch` processed on input `port`; what it emitted.
pub fn push(store: &mut OperatorStore, port: Port, batch: &ChangelogBatch) -> Vec<ChangelogBatch> {
    let mut out = Output::new();
    store
        .operator
        .process(port, batch, &mut out)
        .expect("process");
    out.take()
}

fn row_at(batch: &RecordBatch, first: usize, r: usize) -> Row {
    let k = batch.column(first).as_primitive::<Int64Type>();
    let id = batch.column(first + 1).as_primitive::<Int64Type>();
    let s = batch.column(first + 2).as_string::<i32>();
    (
        k.value(r),
        id.value(r),
        s.is_valid(r).then(|| s.value(r).to_string()),
    )
}

/// A join output's rows, sorted (the order of the rows one input row joins is the state's
/// iteration order, which Flink's two backends do not share either). A NULL key or id (an
/// outer join's padding, which an INNER join never emits) is an error.
pub fn joined(out: &[ChangelogBatch]) -> Result<Vec<Joined>, String> {
    let mut rows = Vec::new();
    for b in out {
        let batch = b.batch();
        if batch.num_columns() != 6 {
            return Err(format!("{} output columns, not 6", batch.num_columns()));
        }
        for c in [0, 1, 3, 4] {
            if batch.column(c).null_count() > 0 {
                return Err(format!("output column {c} has NULLs (padding?)"));
            }
        }
        for r in 0..b.num_rows() {
            rows.push((
                b.kind(r).to_byte(),
                row_at(batch, 0, r),
                row_at(batch, 3, r),
            ));
        }
    }
    rows.sort();
    Ok(rows)
}

/// The rows of plain RecordBatches with the join's six columns (a peer's output), sorted.
pub fn joined_records(out: &[RecordBatch]) -> Result<Vec<Joined>, String> {
    let batches: Vec<ChangelogBatch> = out
        .iter()
        .map(|b| ChangelogBatch::insert_only(b.clone()))
        .collect();
    joined(&batches)
}

/// Flink's INNER join over plain rows (see the module docs).
#[derive(Debug)]
pub struct Model {
    layouts: [Layout; 2],
    /// Per join key, per input: rows and their copies.
    sides: HashMap<i64, [Vec<(Row, u32)>; 2]>,
}

impl Model {
    pub fn new(layouts: [Layout; 2]) -> Self {
        Self {
            layouts,
            sides: HashMap::new(),
        }
    }

    /// What `row` arriving as `kind` on input `port` emits; it then changes the state.
    pub fn event(&mut self, port: Port, kind: RowKind, row: &Row) -> Vec<Joined> {
        let layout = self.layouts[port];
        let sides = self.sides.entry(row.0).or_default();
        let [left, right] = sides;
        let (mine, other) = if port == LEFT {
            (left, right)
        } else {
            (right, left)
        };
        let mut out = Vec::new();
        for (o, copies) in other.iter() {
            for _ in 0..*copies {
                let (l, r) = if port == LEFT {
                    (row.clone(), o.clone())
                } else {
                    (o.clone(), row.clone())
                };
                out.push((kind.to_byte(), l, r));
            }
        }
        let at = mine.iter().position(|(s, _)| layout.same(s, row));
        match (kind, at) {
            (RowKind::Insert | RowKind::UpdateAfter, Some(at)) => match layout {
                Layout::UniqueKey => mine[at] = (row.clone(), 1),
                Layout::Multiset => mine[at].1 += 1,
            },
            (RowKind::Insert | RowKind::UpdateAfter, None) => mine.push((row.clone(), 1)),
            (_, Some(at)) if mine[at].1 > 1 => mine[at].1 -= 1,
            (_, Some(at)) => {
                mine.remove(at);
            }
            (_, None) => {}
        }
        out
    }

    /// What `rows` arriving on input `port` emit, sorted.
    pub fn events(&mut self, port: Port, rows: &[(RowKind, Row)]) -> Vec<Joined> {
        let mut out: Vec<Joined> = rows
            .iter()
            .flat_map(|(kind, row)| self.event(port, *kind, row))
            .collect();
        out.sort();
        out
    }

    /// How many row copies input `port` holds.
    pub fn stored(&self, port: Port) -> u64 {
        self.sides
            .values()
            .map(|s| s[port].iter().map(|(_, c)| u64::from(*c)).sum::<u64>())
            .sum()
    }
}

/// A nullable payload of row `i` in one of several variants: NULL at fixed positions
/// (`(i + variant) % 13 == 0`), else the row number, an embedded NUL, multi-byte UTF-8
/// and the variant, so variants of a row always differ.
pub fn payload(i: usize, variant: usize) -> Option<String> {
    let marks = ["é€", "ж😀", "ß\u{1F980}", "ü"];
    (!(i + variant).is_multiple_of(13))
        .then(|| format!("{i}\0{}{variant}", marks[variant % marks.len()]))
}
