//! The `binary_expressions` suite: production Calc programs over fixed `BINARY(n)` columns.
//!
//! Measured boundary: `CompiledCalc::evaluate` of one batch (`streamfusion::calc` `compile`
//! outside timing), output disposal included.
//! - `cast_to_bytes/{bytes_max,varbinary_w}/rows=R/width=W/nulls=N/offset=O` (144 cases):
//!   `CAST(f0 AS BYTES)` (`VARBINARY(2147483647)`, the unbounded marker) and
//!   `CAST(f0 AS VARBINARY(W))` (the bounded length) of a `BINARY(W)` column at 0/16/1,024/
//!   16,384 rows, widths 1/16/256, NULL-free or with every seventh value NULL, sliced at
//!   offsets 0/1/5. No value needs padding or truncation, so the cast shares the input's
//!   buffers: the probes report zero new output bytes.
//! - `elt/values=V/literal={fixed,variable}/index={dynamic,zero,first}/rows=R/width=W`
//!   (72 cases): `ELT(index, f1[, lit, f1])` over a sliced nullable `BINARY(W)` column, with
//!   a `BINARY(W)` literal (result `BINARY(W)`) or a shorter `VARBINARY(W)` literal (result
//!   `VARBINARY(W)`; empty at width 1, distinct from NULL); the index is a column cycling
//!   through -1, 0, 1, 2, 3, 4 and NULL, the invalid literal 0 (all NULL) or the literal 1.
//!
//! Oracles, checked before timing: byte vectors built from the fixture's values row by row
//! (plus the declared result type and the Arrow type of the output), and that the fixtures
//! really carry zero and 0xFF bytes and NULLs where asked.

use std::sync::Arc;

use arrow::array::{Array, ArrayData, ArrayRef, AsArray, Int32Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{self, NullPattern, SLICE_OFFSET};
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion::calc::functions::value;
use streamfusion::calc::{CalcProgram, CompiledCalc, Expr, compile};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const CAST_ROWS: [usize; 4] = [0, 16, 1_024, 16_384];
const WIDTHS: [usize; 3] = [1, 16, 256];
const OFFSETS: [usize; 3] = [0, 1, 5];
const ELT_ROWS: [usize; 2] = [1_024, 16_384];
/// Every seventh value is NULL in nullable fixtures.
const NULL_EVERY: usize = 7;
/// The dynamic index column cycles through these (NULL included).
const INDEX_CYCLE: [Option<i32>; 7] = [Some(-1), Some(0), Some(1), Some(2), Some(3), Some(4), None];

fn main() {
    let mut suite = Suite::new("binary_expressions");
    for target in [Target::BytesMax, Target::VarBinaryWidth] {
        for rows in CAST_ROWS {
            for width in WIDTHS {
                for nulls in [false, true] {
                    for offset in OFFSETS {
                        cast_case(&mut suite, target, rows, width, nulls, offset);
                    }
                }
            }
        }
    }
    for values in [1, 3] {
        for literal in [Literal::Fixed, Literal::Variable] {
            for index in [Index::Dynamic, Index::Zero, Index::First] {
                for rows in ELT_ROWS {
                    for width in WIDTHS {
                        elt_case(&mut suite, values, literal, index, rows, width);
                    }
                }
            }
        }
    }
    suite.finish();
}

/// Byte vectors, one per row.
type Bytes = Vec<Option<Vec<u8>>>;

fn bytes_of(a: &ArrayRef) -> Result<Bytes, String> {
    let b = a
        .as_binary_opt::<i32>()
        .ok_or_else(|| format!("output is {}, not Binary", a.data_type()))?;
    Ok(b.iter().map(|v| v.map(<[u8]>::to_vec)).collect())
}

/// A fixed-width `BINARY(width)` column of `rows` values, sliced at `offset`.
fn fixed_column(rows: usize, width: usize, nulls: bool, offset: usize) -> ArrayRef {
    let pattern = if nulls {
        NullPattern::EveryNth(NULL_EVERY)
    } else {
        NullPattern::None
    };
    let full: ArrayRef = Arc::new(fixtures::binary(rows + offset, width, pattern));
    full.slice(offset, rows)
}

/// The fixture's values must be what the case says: every value `width` bytes, zero and
/// 0xFF bytes present, NULLs present exactly when asked.
fn check_fixture(input: &Bytes, width: usize, nulls: bool) -> Verdict {
    if let Some(v) = input.iter().flatten().find(|v| v.len() != width) {
        return Err(format!(
            "a fixture value has {} bytes, not {width}",
            v.len()
        ));
    }
    let has_null = input.iter().any(Option::is_none);
    // NULLs fall on every seventh generated row, so short fixtures may have none.
    if has_null && !nulls {
        return Err("a NULL-free fixture has NULLs".into());
    }
    let bytes: Vec<u8> = input.iter().flatten().flatten().copied().collect();
    if width >= 2 && !bytes.is_empty() && !(bytes.contains(&0) && bytes.contains(&0xFF)) {
        return Err("the fixture lacks zero or 0xFF bytes".into());
    }
    Ok(())
}

fn batch(columns: Vec<ArrayRef>, rows: usize) -> ChangelogBatch {
    let fields: Vec<Field> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| Field::new(format!("f{i}"), c.data_type().clone(), true))
        .collect();
    let batch = RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        columns,
        &arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .expect("fixture batch");
    ChangelogBatch::insert_only(batch)
}

struct Fixture {
    compiled: CompiledCalc,
    input: ChangelogBatch,
    expected_type: LogicalType,
    expected: Bytes,
}

impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

fn check(f: &Fixture, out: &ChangelogBatch) -> Verdict {
    expect_eq(
        "result type",
        &f.compiled.output_types().to_vec(),
        &vec![f.expected_type.clone()],
    )?;
    expect_eq(
        "Arrow type",
        out.batch().schema_ref().field(0).data_type(),
        &DataType::Binary,
    )?;
    expect_eq("rows", &bytes_of(out.batch().column(0))?, &f.expected)
}

// ------------------------------------------------------------------------------------------
// CAST(BINARY(w) AS BYTES | VARBINARY(w))

#[derive(Debug, Clone, Copy)]
enum Target {
    /// `BYTES`, Flink's `VARBINARY(2147483647)`.
    BytesMax,
    /// `VARBINARY(width)`.
    VarBinaryWidth,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::BytesMax => "bytes_max",
            Target::VarBinaryWidth => "varbinary_w",
        }
    }

    fn ty(self, width: usize) -> LogicalType {
        match self {
            Target::BytesMax => LogicalType::VarBinary(i32::MAX as u32),
            Target::VarBinaryWidth => LogicalType::VarBinary(width as u32),
        }
    }
}

fn cast_case(
    suite: &mut Suite,
    target: Target,
    rows: usize,
    width: usize,
    nulls: bool,
    offset: usize,
) {
    suite.stateless(
        &format!(
            "cast_to_bytes/{}/rows={rows}/width={width}/nulls={nulls}/offset={offset}",
            target.name()
        ),
        || {
            let column = fixed_column(rows, width, nulls, offset);
            let input = bytes_of(&column).expect("a Binary fixture");
            check_fixture(&input, width, nulls).expect("the fixture");
            let to = target.ty(width);
            // The model: VARBINARY(m) truncates to m bytes; these values all fit.
            let limit = match to {
                LogicalType::VarBinary(m) => m as usize,
                _ => unreachable!("the targets are VARBINARY"),
            };
            let expected = input
                .iter()
                .map(|v| v.as_ref().map(|v| v[..v.len().min(limit)].to_vec()))
                .collect();
            let program = CalcProgram::project(vec![Expr::input(0).cast(to.clone())]);
            let compiled =
                compile(&program, &[LogicalType::Binary(width as u32)]).expect("compiles");
            Fixture {
                compiled,
                input: batch(vec![column], rows),
                expected_type: to,
                expected,
            }
        },
        |f| f.compiled.evaluate(&f.input).expect("evaluation"),
        check,
    );
}

// ------------------------------------------------------------------------------------------
// ELT(index, f1[, literal, f1])

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Literal {
    /// A `BINARY(width)` literal: the result is `BINARY(width)`.
    Fixed,
    /// A `VARBINARY(width)` literal one byte shorter than `width`: the result is
    /// `VARBINARY(width)`.
    Variable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Index {
    /// A column cycling through [`INDEX_CYCLE`].
    Dynamic,
    /// The literal 0: every row NULL.
    Zero,
    /// The literal 1: the first value.
    First,
}

fn elt_case(
    suite: &mut Suite,
    values: usize,
    literal: Literal,
    index: Index,
    rows: usize,
    width: usize,
) {
    let literal_name = match literal {
        Literal::Fixed => "fixed",
        Literal::Variable => "variable",
    };
    let index_name = match index {
        Index::Dynamic => "dynamic",
        Index::Zero => "zero",
        Index::First => "first",
    };
    suite.stateless(
        &format!(
            "elt/values={values}/literal={literal_name}/index={index_name}/rows={rows}/width={width}"
        ),
        || {
            let column = fixed_column(rows, width, true, SLICE_OFFSET);
            let input = bytes_of(&column).expect("a Binary fixture");
            check_fixture(&input, width, true).expect("the fixture");
            let idx: ArrayRef = Arc::new(Int32Array::from_iter(
                (0..rows).map(|r| INDEX_CYCLE[r % INDEX_CYCLE.len()]),
            ));
            // Literal bytes: a high byte, zero, then a count (fixed: `width` bytes).
            let literal_len = match literal {
                Literal::Fixed => width,
                Literal::Variable => width - 1,
            };
            let literal_bytes: Vec<u8> = (0..literal_len)
                .map(|i| match i % 3 {
                    0 => 0xFE,
                    1 => 0x00,
                    _ => i as u8,
                })
                .collect();
            let (literal_type, result_type) = match literal {
                Literal::Fixed => (
                    LogicalType::Binary(width as u32),
                    LogicalType::Binary(width as u32),
                ),
                Literal::Variable => (
                    LogicalType::VarBinary(width as u32),
                    LogicalType::VarBinary(width as u32),
                ),
            };
            let index_expr = match index {
                Index::Dynamic => Expr::input(0),
                Index::Zero => Expr::lit(LogicalType::Int, "0"),
                Index::First => Expr::lit(LogicalType::Int, "1"),
            };
            let mut args = vec![index_expr, Expr::input(1)];
            if values == 3 {
                args.push(Expr::lit(literal_type, hex::encode(&literal_bytes)));
                args.push(Expr::input(1));
            }
            let result_type = if values == 1 {
                LogicalType::Binary(width as u32)
            } else {
                result_type
            };
            let program = CalcProgram::project(vec![Expr::call(value::ELT, args)]);
            let compiled = compile(
                &program,
                &[LogicalType::Int, LogicalType::Binary(width as u32)],
            )
            .expect("compiles");
            // The model: the 1-based index into the value list, NULL outside it.
            let candidates = |row: usize| -> Vec<Option<Vec<u8>>> {
                let mut v = vec![input[row].clone()];
                if values == 3 {
                    v.push(Some(literal_bytes.clone()));
                    v.push(input[row].clone());
                }
                v
            };
            let expected = (0..rows)
                .map(|row| {
                    let i = match index {
                        Index::Dynamic => INDEX_CYCLE[row % INDEX_CYCLE.len()],
                        Index::Zero => Some(0),
                        Index::First => Some(1),
                    }?;
                    let i = usize::try_from(i).ok()?.checked_sub(1)?;
                    candidates(row).get(i).cloned().flatten()
                })
                .collect();
            Fixture {
                compiled,
                input: batch(vec![idx, column], rows),
                expected_type: result_type,
                expected,
            }
        },
        |f| f.compiled.evaluate(&f.input).expect("evaluation"),
        check,
    );
}
