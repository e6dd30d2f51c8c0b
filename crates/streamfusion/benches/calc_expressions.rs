//! The `calc_expressions` suite: Calc programs compiled once and evaluated warm, beside the
//! same program as plain DataFusion physical expressions.
//!
//! Measured boundaries (through `CalcAdapter`, the thin `CalcEvaluation` adapter over
//! `streamfusion::calc`):
//! - `warm/native/{mixed,filtered}/...`: `CompiledCalc::evaluate` of one batch, compiled
//!   outside timing. `mixed` is arithmetic, CASE and a string function:
//!   `a + b * 3, d * 2.5 - 1.0, CASE WHEN a > 0 THEN 'pos' WHEN a < 0 THEN 'neg' ELSE 'zero' END,
//!   CHAR_LENGTH(s) + a, UPPER(s)`; `filtered` adds `WHERE d > 0.0`.
//! - `warm/peer/datafusion/mixed/...`: the same projections built directly from DataFusion's
//!   `BinaryExpr`, `CaseExpr`, `CastExpr`, `character_length` and `upper`, evaluated over the same
//!   batch: the cost of Flink's semantics is the difference.
//! - `compile/native/{mixed,filtered}/...`: decoding the program's JSON, compiling it and
//!   evaluating the first batch.
//!
//! Fixtures: 16/1,024/16,384 rows of `a INT, b BIGINT, d DOUBLE, s VARCHAR` from
//! bench-support's generators (integer extremes, NaN, signed zeros, infinities, multi-byte
//! UTF-8), NULL-free or with staggered NULLs; plus a batch sliced at an unaligned offset.
//! Every case is checked against a row-at-a-time model of the program (Java arithmetic on
//! each row) before timing.

use std::sync::Arc;

use arrow::array::{Array, ArrayData, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::{DataType, Float64Type, Int32Type, Int64Type};
use bench_support::adapters::CalcEvaluation;
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{self, NullPattern, ROW_COUNTS, SLICE_OFFSET};
use bench_support::{Suite, Verdict, expect_eq};
use datafusion::common::ScalarValue;
use datafusion::common::config::ConfigOptions;
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{BinaryExpr, CaseExpr, CastExpr, Column, Literal};
use datafusion::physical_expr::{PhysicalExpr, ScalarFunctionExpr};
use streamfusion::bench::CalcAdapter;
use streamfusion::calc::functions::{arithmetic as ar, comparison as cmp, string};
use streamfusion::calc::{CalcProgram, CompiledCalc, Expr};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const STRING_WIDTH: usize = 16;

fn main() {
    let mut suite = Suite::new("calc_expressions");
    for shape in Shape::all() {
        for program in [Program::Mixed, Program::Filtered] {
            warm(&mut suite, program, &shape);
        }
        peer(&mut suite, &shape);
    }
    for program in [Program::Mixed, Program::Filtered] {
        first_batch(&mut suite, program);
    }
    suite.finish();
}

fn input_types() -> Vec<LogicalType> {
    vec![
        LogicalType::Int,
        LogicalType::BigInt,
        LogicalType::Double,
        LogicalType::VarChar(i32::MAX as u32),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Program {
    Mixed,
    Filtered,
}

impl Program {
    fn name(self) -> &'static str {
        match self {
            Program::Mixed => "mixed",
            Program::Filtered => "filtered",
        }
    }

    fn program(self) -> CalcProgram {
        let varchar = |s: &str| Expr::lit(LogicalType::VarChar(4), s);
        let int = |v: &str| Expr::lit(LogicalType::Int, v);
        let double = |v: &str| Expr::lit(LogicalType::Double, v);
        let projection = vec![
            Expr::call(
                ar::PLUS,
                vec![
                    Expr::input(0),
                    Expr::call(ar::TIMES, vec![Expr::input(1), int("3")]),
                ],
            ),
            Expr::call(
                ar::MINUS,
                vec![
                    Expr::call(ar::TIMES, vec![Expr::input(2), double("2.5")]),
                    double("1.0"),
                ],
            ),
            Expr::case(
                vec![
                    (
                        Expr::call(cmp::GREATER_THAN, vec![Expr::input(0), int("0")]),
                        varchar("pos"),
                    ),
                    (
                        Expr::call(cmp::LESS_THAN, vec![Expr::input(0), int("0")]),
                        varchar("neg"),
                    ),
                ],
                Some(varchar("zero")),
            ),
            Expr::call(
                ar::PLUS,
                vec![
                    Expr::call(string::CHAR_LENGTH, vec![Expr::input(3)]),
                    Expr::input(0),
                ],
            ),
            Expr::call(string::UPPER, vec![Expr::input(3)]),
        ];
        let program = CalcProgram::project(projection);
        match self {
            Program::Mixed => program,
            Program::Filtered => program.with_filter(Expr::call(
                cmp::GREATER_THAN,
                vec![Expr::input(2), double("0.0")],
            )),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Shape {
    rows: usize,
    nulls: bool,
    sliced: bool,
}

impl Shape {
    fn all() -> Vec<Shape> {
        let mut shapes = Vec::new();
        for rows in ROW_COUNTS {
            for nulls in [false, true] {
                shapes.push(Shape {
                    rows,
                    nulls,
                    sliced: false,
                });
            }
        }
        shapes.push(Shape {
            rows: 1_024,
            nulls: true,
            sliced: true,
        });
        shapes
    }

    fn id(&self) -> String {
        format!(
            "rows={}/nulls={}{}",
            self.rows,
            self.nulls,
            if self.sliced { "/sliced" } else { "" }
        )
    }

    fn batch(&self) -> RecordBatch {
        let len = self.rows + if self.sliced { SLICE_OFFSET } else { 0 };
        let nulls = |column| {
            if self.nulls {
                NullPattern::RowColumn { column, modulus: 7 }
            } else {
                NullPattern::None
            }
        };
        let batch = RecordBatch::try_from_iter([
            ("a", Arc::new(fixtures::int32(len, nulls(0))) as ArrayRef),
            ("b", Arc::new(fixtures::int64(len, nulls(1))) as ArrayRef),
            ("d", Arc::new(fixtures::float64(len, nulls(2))) as ArrayRef),
            (
                "s",
                Arc::new(fixtures::utf8(len, STRING_WIDTH, nulls(3))) as ArrayRef,
            ),
        ])
        .expect("fixture batch");
        if self.sliced {
            batch.slice(SLICE_OFFSET, self.rows)
        } else {
            batch
        }
    }
}

/// One output row of the `mixed` projections.
type Row = (
    Option<i64>,
    Option<f64>,
    String,
    Option<i32>,
    Option<String>,
);

/// The program, one row at a time, with Java's arithmetic.
fn model(program: Program, batch: &RecordBatch) -> Vec<Row> {
    let a = batch.column(0).as_primitive::<Int32Type>();
    let b = batch.column(1).as_primitive::<Int64Type>();
    let d = batch.column(2).as_primitive::<Float64Type>();
    let s = batch.column(3).as_string::<i32>();
    let get = |arr: &dyn Array, i: usize| arr.is_valid(i);
    (0..batch.num_rows())
        .filter(|&i| program == Program::Mixed || (get(d, i) && d.value(i) > 0.0))
        .map(|i| {
            let av = get(a, i).then(|| a.value(i));
            let bv = get(b, i).then(|| b.value(i));
            let dv = get(d, i).then(|| d.value(i));
            let sv = get(s, i).then(|| s.value(i));
            (
                av.zip(bv)
                    .map(|(x, y)| i64::from(x).wrapping_add(y.wrapping_mul(3))),
                dv.map(|x| x * 2.5 - 1.0),
                match av {
                    Some(x) if x > 0 => "pos",
                    Some(x) if x < 0 => "neg",
                    _ => "zero",
                }
                .to_string(),
                sv.zip(av)
                    .map(|(t, x)| (t.chars().count() as i32).wrapping_add(x)),
                sv.map(str::to_uppercase),
            )
        })
        .collect()
}

fn rows_of(batch: &RecordBatch) -> Result<Vec<Row>, String> {
    let types: Vec<&DataType> = batch
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.data_type())
        .collect();
    let expected = [
        &DataType::Int64,
        &DataType::Float64,
        &DataType::Utf8,
        &DataType::Int32,
        &DataType::Utf8,
    ];
    if types != expected {
        return Err(format!("output types {types:?}, expected {expected:?}"));
    }
    let c0 = batch.column(0).as_primitive::<Int64Type>();
    let c1 = batch.column(1).as_primitive::<Float64Type>();
    let c2 = batch.column(2).as_string::<i32>();
    let c3 = batch.column(3).as_primitive::<Int32Type>();
    let c4 = batch.column(4).as_string::<i32>();
    (0..batch.num_rows())
        .map(|i| {
            if c2.is_null(i) {
                return Err(format!("row {i}: the CASE result is NULL"));
            }
            Ok((
                c0.is_valid(i).then(|| c0.value(i)),
                c1.is_valid(i).then(|| c1.value(i)),
                c2.value(i).to_string(),
                c3.is_valid(i).then(|| c3.value(i)),
                c4.is_valid(i).then(|| c4.value(i).to_string()),
            ))
        })
        .collect()
}

/// Output rows compared with the model; doubles by bits, so NaN and -0.0 count.
fn check(out: &RecordBatch, expected: &[Row]) -> Verdict {
    type Bits = (
        Option<i64>,
        Option<u64>,
        String,
        Option<i32>,
        Option<String>,
    );
    let bits = |rows: Vec<Row>| -> Vec<Bits> {
        rows.into_iter()
            .map(|(a, d, s, n, u)| (a, d.map(f64::to_bits), s, n, u))
            .collect()
    };
    expect_eq("rows", &bits(rows_of(out)?), &bits(expected.to_vec()))
}

struct Fixture {
    compiled: CompiledCalc,
    input: ChangelogBatch,
    expected: Vec<Row>,
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

fn adapter() -> CalcAdapter {
    CalcAdapter {
        input: input_types(),
    }
}

fn warm(suite: &mut Suite, program: Program, shape: &Shape) {
    suite.stateless(
        &format!("warm/native/{}/{}", program.name(), shape.id()),
        || {
            let batch = shape.batch();
            let compiled = adapter()
                .compile(&program.program(), batch.schema_ref())
                .expect("the program compiles");
            Fixture {
                compiled,
                expected: model(program, &batch),
                input: ChangelogBatch::insert_only(batch),
            }
        },
        |f| f.compiled.evaluate(&f.input).expect("evaluation"),
        |f, out| check(out.batch(), &f.expected),
    );
}

struct FirstBatch {
    json: String,
    input: ChangelogBatch,
    expected: Vec<Row>,
}

impl ArrowBuffers for FirstBatch {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

fn first_batch(suite: &mut Suite, program: Program) {
    let shape = Shape {
        rows: 1_024,
        nulls: true,
        sliced: false,
    };
    suite.stateless(
        &format!("compile/native/{}/{}", program.name(), shape.id()),
        || {
            let batch = shape.batch();
            FirstBatch {
                json: program.program().to_json(),
                expected: model(program, &batch),
                input: ChangelogBatch::insert_only(batch),
            }
        },
        |f| {
            let adapter = adapter();
            let program = CalcProgram::from_json(&f.json).expect("the program decodes");
            let mut compiled = adapter
                .compile(&program, f.input.batch().schema_ref())
                .expect("the program compiles");
            adapter
                .evaluate(&mut compiled, &f.input)
                .expect("evaluation")
        },
        |f, out| check(out.batch(), &f.expected),
    );
}

struct PeerFixture {
    projection: Vec<Arc<dyn PhysicalExpr>>,
    input: RecordBatch,
    expected: Vec<Row>,
}

impl ArrowBuffers for PeerFixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

/// The `mixed` projections as plain DataFusion expressions.
fn peer_projection(schema: &arrow::datatypes::Schema) -> Vec<Arc<dyn PhysicalExpr>> {
    let col = |name: &str, i: usize| Arc::new(Column::new(name, i)) as Arc<dyn PhysicalExpr>;
    let lit = |v: ScalarValue| Arc::new(Literal::new(v)) as Arc<dyn PhysicalExpr>;
    let bin = |l, op, r| Arc::new(BinaryExpr::new(l, op, r)) as Arc<dyn PhysicalExpr>;
    let a = col("a", 0);
    let utf8 = |s: &str| lit(ScalarValue::Utf8(Some(s.into())));
    let char_length = ScalarFunctionExpr::try_new(
        datafusion::functions::unicode::character_length(),
        vec![col("s", 3)],
        schema,
        Arc::new(ConfigOptions::default()),
    )
    .expect("character_length");
    vec![
        bin(
            Arc::new(CastExpr::new(Arc::clone(&a), DataType::Int64, None)),
            Operator::Plus,
            bin(
                col("b", 1),
                Operator::Multiply,
                lit(ScalarValue::Int64(Some(3))),
            ),
        ),
        bin(
            bin(
                col("d", 2),
                Operator::Multiply,
                lit(ScalarValue::Float64(Some(2.5))),
            ),
            Operator::Minus,
            lit(ScalarValue::Float64(Some(1.0))),
        ),
        Arc::new(
            CaseExpr::try_new(
                None,
                vec![
                    (
                        bin(
                            Arc::clone(&a),
                            Operator::Gt,
                            lit(ScalarValue::Int32(Some(0))),
                        ),
                        utf8("pos"),
                    ),
                    (
                        bin(
                            Arc::clone(&a),
                            Operator::Lt,
                            lit(ScalarValue::Int32(Some(0))),
                        ),
                        utf8("neg"),
                    ),
                ],
                Some(utf8("zero")),
            )
            .expect("CASE"),
        ),
        bin(Arc::new(char_length), Operator::Plus, a),
        Arc::new(
            ScalarFunctionExpr::try_new(
                datafusion::functions::string::upper(),
                vec![col("s", 3)],
                schema,
                Arc::new(ConfigOptions::default()),
            )
            .expect("upper"),
        ),
    ]
}

fn peer(suite: &mut Suite, shape: &Shape) {
    suite.stateless(
        &format!("warm/peer/datafusion/mixed/{}", shape.id()),
        || {
            let input = shape.batch();
            PeerFixture {
                projection: peer_projection(input.schema_ref()),
                expected: model(Program::Mixed, &input),
                input,
            }
        },
        |f| {
            let columns = f
                .projection
                .iter()
                .map(|e| {
                    e.evaluate(&f.input)
                        .and_then(|v| v.into_array(f.input.num_rows()))
                        .expect("peer evaluation")
                })
                .collect::<Vec<_>>();
            RecordBatch::try_from_iter(["x", "y", "z", "w", "u"].into_iter().zip(columns))
                .expect("peer batch")
        },
        |f, out| check(out, &f.expected),
    );
}
