//! The `data_movement` suite: moving rows and columns without computing new values.
//!
//! Measured boundaries (production entry points, fixtures built outside timing):
//! - `project/...`: a compiled Calc projection that reorders and repeats columns
//!   (`CompiledCalc::evaluate`; the outputs share the input's buffers).
//! - `expand/sets=3/...`: `movement::expand::Expand::evaluate` for
//!   `GROUPING SETS ((id, v, name), (id, v), (id))`.
//! - `unnest/{inner,left}/ordinality={false,true}/...`: `movement::unnest::unnest` of an
//!   `ARRAY<ROW<id BIGINT, name VARCHAR>>` column (empty and NULL arrays, NULL ROWs),
//!   repeating the row's `id`.
//! - `update_before/{absent,retained,mixed,discarded}/...`:
//!   `movement::update_before::drop_update_before` on batches without kinds, with kinds but no
//!   `-U`, with every fourth row `-U`, and with every row `-U`.
//! - `ipc/{encode,decode}/...`: `movement::ipc::{encode, decode}` of a changelog batch with
//!   all four row kinds.
//!
//! Fixtures: bench-support's mixed batch (`id BIGINT, v INT, amount DECIMAL(18, 2),
//! ts TIMESTAMP(9), name VARCHAR, payload VARBINARY`) at 16/1,024/16,384 rows, narrow (8-byte)
//! or wide (264-byte) names, NULL-free or with staggered NULLs. Oracles, checked before
//! timing: array equality with the input columns (projection), row models (EXPAND, UNNEST,
//! `-U` dropping), and arrow-rs's own IPC reader and writer (IPC).

use std::sync::Arc;

use arrow::array::{Array, ArrayData, ArrayRef, AsArray, Int8Array, RecordBatch};
use arrow::datatypes::{Int32Type, Int64Type};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{self, NullPattern, ROW_COUNTS};
use bench_support::{Suite, expect_eq};
use streamfusion::calc::{CalcProgram, CompiledCalc, Expr, compile};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::movement::expand::Expand;
use streamfusion::movement::unnest::{UnnestJoin, unnest};
use streamfusion::movement::{ipc, update_before};
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const WIDTHS: [usize; 2] = [8, 264];
const ITEMS_PER_ROW: usize = 4;

fn main() {
    let mut suite = Suite::new("data_movement");
    for shape in Shape::all() {
        project(&mut suite, &shape);
        expand(&mut suite, &shape);
        update_before_cases(&mut suite, &shape);
        ipc_cases(&mut suite, &shape);
    }
    for rows in ROW_COUNTS {
        for nulls in [false, true] {
            unnest_cases(&mut suite, rows, nulls);
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy)]
struct Shape {
    rows: usize,
    width: usize,
    nulls: bool,
}

impl Shape {
    fn all() -> Vec<Shape> {
        let mut all = Vec::new();
        for rows in ROW_COUNTS {
            for width in WIDTHS {
                for nulls in [false, true] {
                    all.push(Shape { rows, width, nulls });
                }
            }
        }
        all
    }

    fn id(&self) -> String {
        format!(
            "rows={}/width={}/nulls={}",
            self.rows, self.width, self.nulls
        )
    }

    fn nulls(&self) -> NullPattern {
        if self.nulls {
            NullPattern::RowColumn {
                column: 0,
                modulus: 7,
            }
        } else {
            NullPattern::None
        }
    }

    fn batch(&self) -> RecordBatch {
        fixtures::batch(self.rows, self.width, self.nulls())
    }
}

/// The Flink types of the fixture batch's columns.
fn input_types() -> Vec<LogicalType> {
    vec![
        LogicalType::BigInt,
        LogicalType::Int,
        LogicalType::Decimal {
            precision: 18,
            scale: 2,
        },
        LogicalType::Timestamp(9),
        LogicalType::VarChar(i32::MAX as u32),
        LogicalType::VarBinary(i32::MAX as u32),
    ]
}

/// Kinds cycling through `+I, -U, +U, -D`.
fn all_kinds(rows: usize) -> Int8Array {
    Int8Array::from_iter_values((0..rows).map(|i| (i % 4) as i8))
}

struct Compiled {
    compiled: CompiledCalc,
    input: ChangelogBatch,
}

impl ArrowBuffers for Compiled {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

fn project(suite: &mut Suite, shape: &Shape) {
    // SELECT name, id, v, ts, name
    let columns = [4, 0, 1, 3, 4];
    suite.stateless(
        &format!("project/{}", shape.id()),
        || Compiled {
            compiled: compile(
                &CalcProgram::project(columns.iter().map(|&c| Expr::input(c)).collect()),
                &input_types(),
            )
            .expect("projection"),
            input: ChangelogBatch::try_new(shape.batch(), Some(all_kinds(shape.rows)))
                .expect("kinds"),
        },
        |f| f.compiled.evaluate(&f.input).expect("projection"),
        |f, out| {
            for (i, &c) in columns.iter().enumerate() {
                if out.batch().column(i).as_ref() != f.input.batch().column(c).as_ref() {
                    return Err(format!("output column {i} is not input column {c}"));
                }
            }
            expect_eq("kinds", &out.kinds(), &f.input.kinds())
        },
    );
}

struct Expanding {
    expand: Expand,
    input: ChangelogBatch,
}

impl ArrowBuffers for Expanding {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

type ExpandRow = (i8, i64, Option<i32>, Option<String>, i64);

fn expand(suite: &mut Suite, shape: &Shape) {
    let id = |v: &str| Expr::lit(LogicalType::BigInt, v);
    let string = LogicalType::VarChar(i32::MAX as u32);
    let lists = [
        CalcProgram::project(vec![
            Expr::input(0),
            Expr::input(1),
            Expr::input(4),
            id("0"),
        ]),
        CalcProgram::project(vec![
            Expr::input(0),
            Expr::input(1),
            Expr::null(string.clone()),
            id("1"),
        ]),
        CalcProgram::project(vec![
            Expr::input(0),
            Expr::null(LogicalType::Int),
            Expr::null(string),
            id("3"),
        ]),
    ];
    suite.stateless(
        &format!("expand/sets=3/{}", shape.id()),
        || Expanding {
            expand: Expand::new(&lists, &input_types()).expect("expand"),
            input: ChangelogBatch::try_new(shape.batch(), Some(all_kinds(shape.rows)))
                .expect("kinds"),
        },
        |f| f.expand.evaluate(&f.input).expect("expand"),
        |f, out| {
            let b = f.input.batch();
            let (ids, vs, names) = (
                b.column(0).as_primitive::<Int64Type>(),
                b.column(1).as_primitive::<Int32Type>(),
                b.column(4).as_string::<i32>(),
            );
            let mut expected: Vec<ExpandRow> = Vec::new();
            for r in 0..b.num_rows() {
                let k = f.input.kind(r).to_byte();
                let v = vs.is_valid(r).then(|| vs.value(r));
                let name = names.is_valid(r).then(|| names.value(r).to_string());
                expected.push((k, ids.value(r), v, name, 0));
                expected.push((k, ids.value(r), v, None, 1));
                expected.push((k, ids.value(r), None, None, 3));
            }
            let o = out.batch();
            let (ids, vs, names, sets) = (
                o.column(0).as_primitive::<Int64Type>(),
                o.column(1).as_primitive::<Int32Type>(),
                o.column(2).as_string::<i32>(),
                o.column(3).as_primitive::<Int64Type>(),
            );
            let got: Vec<ExpandRow> = (0..o.num_rows())
                .map(|r| {
                    (
                        out.kind(r).to_byte(),
                        ids.value(r),
                        vs.is_valid(r).then(|| vs.value(r)),
                        names.is_valid(r).then(|| names.value(r).to_string()),
                        sets.value(r),
                    )
                })
                .collect();
            expect_eq("rows", &got, &expected)
        },
    );
}

/// The kind of row `i`, or `None` for a batch without kinds.
type KindPattern = Option<fn(usize) -> i8>;

fn update_before_cases(suite: &mut Suite, shape: &Shape) {
    let patterns: [(&str, KindPattern); 4] = [
        ("absent", None),
        ("retained", Some(|i| [0, 2, 3][i % 3])),
        ("mixed", Some(|i| (i % 4) as i8)),
        ("discarded", Some(|_| 1)),
    ];
    for (name, pattern) in patterns {
        suite.stateless(
            &format!("update_before/{name}/{}", shape.id()),
            || {
                let kinds = pattern.map(|p| Int8Array::from_iter_values((0..shape.rows).map(p)));
                ChangelogBatch::try_new(shape.batch(), kinds).expect("kinds")
            },
            |input| update_before::drop_update_before(input).expect("drop -U"),
            |input, out| {
                let ids = input.batch().column(0).as_primitive::<Int64Type>();
                let expected: Vec<(i8, i64)> = (0..input.num_rows())
                    .map(|r| (input.kind(r).to_byte(), ids.value(r)))
                    .filter(|(k, _)| *k != 1)
                    .collect();
                let out_ids = out.batch().column(0).as_primitive::<Int64Type>();
                let got: Vec<(i8, i64)> = (0..out.num_rows())
                    .map(|r| (out.kind(r).to_byte(), out_ids.value(r)))
                    .collect();
                expect_eq("rows", &got, &expected)?;
                // Every payload column moves with its row.
                let kept: Vec<usize> = (0..input.num_rows())
                    .filter(|&r| input.kind(r).to_byte() != 1)
                    .collect();
                for c in 1..input.batch().num_columns() {
                    let col = input.batch().column(c);
                    let expected = arrow::compute::take(
                        col,
                        &arrow::array::UInt32Array::from_iter_values(
                            kept.iter().map(|&r| r as u32),
                        ),
                        None,
                    )
                    .map_err(|e| e.to_string())?;
                    if out.batch().column(c).as_ref() != expected.as_ref() {
                        return Err(format!("column {c} does not follow its rows"));
                    }
                }
                Ok(())
            },
        );
    }
}

struct Encoded {
    bytes: Vec<u8>,
    expected: ChangelogBatch,
}

impl ArrowBuffers for Encoded {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.expected.collect_arrays(out);
    }
}

impl ArrowBuffers for IpcBytes {
    fn collect_arrays(&self, _: &mut Vec<ArrayData>) {}
}

/// Encoded bytes (no Arrow buffers to walk).
struct IpcBytes(Vec<u8>);

/// `batch` and its kinds as arrow-rs writes them: the rows plus a trailing `$row_kind`.
fn arrow_rs_stream(batch: &ChangelogBatch) -> Vec<u8> {
    let mut columns: Vec<(String, ArrayRef)> = batch
        .batch()
        .schema()
        .fields()
        .iter()
        .zip(batch.batch().columns())
        .map(|(f, c)| (f.name().clone(), Arc::clone(c)))
        .collect();
    columns.push((
        "$row_kind".into(),
        Arc::new(batch.kinds().expect("kinds").clone()),
    ));
    let wire = RecordBatch::try_from_iter(columns).expect("wire batch");
    let mut bytes = Vec::new();
    let mut writer =
        arrow::ipc::writer::StreamWriter::try_new(&mut bytes, &wire.schema()).expect("writer");
    writer.write(&wire).expect("write");
    writer.finish().expect("finish");
    drop(writer);
    bytes
}

fn ipc_cases(suite: &mut Suite, shape: &Shape) {
    let changelog =
        || ChangelogBatch::try_new(shape.batch(), Some(all_kinds(shape.rows))).expect("kinds");
    suite.stateless(
        &format!("ipc/encode/{}", shape.id()),
        changelog,
        |input| IpcBytes(ipc::encode(std::slice::from_ref(input)).expect("encode")),
        |input, out| {
            // arrow-rs's reader sees the rows and a trailing kind column.
            let reader =
                arrow::ipc::reader::StreamReader::try_new(std::io::Cursor::new(&out.0), None)
                    .map_err(|e| e.to_string())?;
            let batches = reader
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            let [wire] = batches.as_slice() else {
                return Err(format!("{} batches, expected 1", batches.len()));
            };
            let n = input.batch().num_columns();
            for c in 0..n {
                if wire.column(c).as_ref() != input.batch().column(c).as_ref() {
                    return Err(format!("column {c} differs after encoding"));
                }
            }
            expect_eq(
                "kinds",
                &wire
                    .column(n)
                    .as_primitive::<arrow::datatypes::Int8Type>()
                    .values()
                    .to_vec(),
                &input.kinds().expect("kinds").values().to_vec(),
            )
        },
    );
    suite.stateless(
        &format!("ipc/decode/{}", shape.id()),
        || {
            let expected = changelog();
            Encoded {
                bytes: arrow_rs_stream(&expected),
                expected,
            }
        },
        |f| ipc::decode(&f.bytes).expect("decode"),
        |f, out| {
            let [batch] = out.as_slice() else {
                return Err(format!("{} batches, expected 1", out.len()));
            };
            if batch.batch().columns() != f.expected.batch().columns() {
                return Err("decoded columns differ".into());
            }
            expect_eq("kinds", &batch.kinds(), &f.expected.kinds())
        },
    );
}

type UnnestRow = (i8, i64, Option<i64>, Option<String>, Option<i32>);

fn unnest_cases(suite: &mut Suite, rows: usize, nulls: bool) {
    let pattern = if nulls {
        NullPattern::RowColumn {
            column: 0,
            modulus: 7,
        }
    } else {
        NullPattern::None
    };
    for join in [UnnestJoin::Inner, UnnestJoin::Left] {
        for ordinality in [false, true] {
            let join_name = match join {
                UnnestJoin::Inner => "inner",
                UnnestJoin::Left => "left",
            };
            suite.stateless(
                &format!("unnest/{join_name}/ordinality={ordinality}/rows={rows}/nulls={nulls}"),
                || {
                    let batch = RecordBatch::try_from_iter([
                        ("id", Arc::new(fixtures::row_ids(rows)) as ArrayRef),
                        (
                            "items",
                            Arc::new(fixtures::list_of_struct(rows, ITEMS_PER_ROW, pattern))
                                as ArrayRef,
                        ),
                    ])
                    .expect("batch");
                    ChangelogBatch::try_new(batch, Some(all_kinds(rows))).expect("kinds")
                },
                |input| unnest(input, 1, &[0], join, ordinality).expect("unnest"),
                |input, out| {
                    let ids = input.batch().column(0).as_primitive::<Int64Type>();
                    let lists = input.batch().column(1).as_list::<i32>();
                    let mut expected: Vec<UnnestRow> = Vec::new();
                    for r in 0..input.num_rows() {
                        let k = input.kind(r).to_byte();
                        let items = lists.is_valid(r).then(|| lists.value(r));
                        match items {
                            Some(items) if !items.is_empty() => {
                                let s = items.as_struct();
                                let (item_ids, names) = (
                                    s.column(0).as_primitive::<Int64Type>(),
                                    s.column(1).as_string::<i32>(),
                                );
                                for i in 0..s.len() {
                                    let valid = s.is_valid(i);
                                    expected.push((
                                        k,
                                        ids.value(r),
                                        valid.then(|| item_ids.value(i)),
                                        (valid && names.is_valid(i))
                                            .then(|| names.value(i).to_string()),
                                        ordinality.then_some(i as i32 + 1),
                                    ));
                                }
                            }
                            _ if join == UnnestJoin::Left => {
                                expected.push((k, ids.value(r), None, None, None));
                            }
                            _ => {}
                        }
                    }
                    let o = out.batch();
                    let (out_ids, item_ids, names) = (
                        o.column(0).as_primitive::<Int64Type>(),
                        o.column(1).as_primitive::<Int64Type>(),
                        o.column(2).as_string::<i32>(),
                    );
                    let got: Vec<UnnestRow> = (0..o.num_rows())
                        .map(|r| {
                            (
                                out.kind(r).to_byte(),
                                out_ids.value(r),
                                item_ids.is_valid(r).then(|| item_ids.value(r)),
                                names.is_valid(r).then(|| names.value(r).to_string()),
                                ordinality
                                    .then(|| {
                                        let ord = o.column(3).as_primitive::<Int32Type>();
                                        ord.is_valid(r).then(|| ord.value(r))
                                    })
                                    .flatten(),
                            )
                        })
                        .collect();
                    expect_eq("rows", &got, &expected)
                },
            );
        }
    }
}
