//! The `scalar_registry` suite: every registered Calc function, compiled once and evaluated
//! warm over nine batch profiles, each result checked against released Flink's.
//!
//! Fixtures come from the golden Calc vectors (`tests/golden/flink-2.3.0-calc.jsonl`, see
//! `streamfusion::golden`): for each opcode, the golden case with the most input rows among
//! those Flink ran successfully and that call it, projected to the expressions that call it
//! (all of them when only the filter does). Flink's output for those rows is the oracle, so a
//! case checks values, NULLs and types against released Flink before it is timed.
//!
//! Profiles (`<opcode>_<NAME>/<profile>`), each built from the golden input rows:
//! - `rows=0`, `rows=16`, `rows=1024`, `rows=16384`: the rows tiled in order;
//! - `sliced`: 1,024 tiled rows read through a slice at an unaligned offset;
//! - `nulls=16`, `nulls=1024`: only the rows with a NULL input, tiled;
//! - `unicode=16`, `unicode=1024`: only the rows with non-ASCII text, tiled.
//!
//! Cases with a filter tile whole blocks of the golden input (Flink's output rows do not map
//! to single input rows), so their row counts round up to a multiple of the golden row count,
//! their slice offset is one block, and the NULL/Unicode subsets are skipped by name, as are
//! subsets no golden row qualifies for.
//!
//! Functions no golden file can hold (volatile: random values, UUIDs, clocks; and the seeded
//! random functions, whose rows take successive values of one sequence, so tiled golden rows
//! cannot hold them) run over the profile's row count without reading its columns; the check
//! is one non-NULL value of the function's type per row (within the asked range for
//! `RAND_INTEGER`).
//!
//! Measured boundary: `CompiledCalc::evaluate` of one batch; compilation, the input batch and
//! the expected rows are built outside timing.

use std::collections::BTreeSet;

use arrow::array::{Array, ArrayData, ArrayRef, AsArray, Int32Array, RecordBatch, StringArray};
use arrow::datatypes::{Field, Schema};
use bench_support::buffers::ArrowBuffers;
use bench_support::{Suite, Verdict};
use serde_json::Value as Json;
use std::sync::Arc;
use streamfusion::calc::registry::{FunctionDef, registry};
use streamfusion::calc::{CalcProgram, CompiledCalc, Expr, compile};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::golden::{self, Case, Cell, Outcome, Verdict as Golden};
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

/// The unaligned offset of the `sliced` profile (for cases without a filter).
const SLICE_OFFSET: usize = 5;

fn main() {
    let mut suite = Suite::new("scalar_registry");
    let cases = golden::load().unwrap_or_else(|e| panic!("golden Calc vectors: {e}"));
    for def in registry().functions() {
        let id = format!("{}_{}", def.opcode, slug(def.name));
        match fixture_case(&cases, def) {
            _ if let Some(call) = volatile_call(def) => {
                volatile_profiles(&mut suite, &id, def, &call)
            }
            Some(case) => golden_profiles(&mut suite, &id, &case),
            None if def.arity.accepts(0) => volatile_profiles(
                &mut suite,
                &id,
                def,
                &VolatileCall {
                    args: vec![],
                    range: None,
                },
            ),
            None => {
                for profile in Profile::ALL {
                    suite.skip(
                        &format!("{id}/{}", profile.id()),
                        "no golden case Flink ran successfully calls it",
                    );
                }
            }
        }
    }
    suite.finish();
}

/// A function's name as a case-id segment: operators spelled out, spaces as `_`.
fn slug(name: &str) -> String {
    let spelled = match name {
        "+" => "PLUS",
        "-" => "MINUS",
        "*" => "TIMES",
        "/" => "DIVIDE",
        "%" => "MOD",
        "=" => "EQUALS",
        "<>" => "NOT_EQUALS",
        "<" => "LESS_THAN",
        "<=" => "LESS_THAN_OR_EQUAL",
        ">" => "GREATER_THAN",
        ">=" => "GREATER_THAN_OR_EQUAL",
        "||" => "CONCAT_OPERATOR",
        other => other,
    };
    spelled
        .chars()
        .filter_map(|c| match c {
            ' ' | '-' => Some('_'),
            c if c.is_ascii_alphanumeric() || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Profiles.

#[derive(Debug, Clone, Copy)]
enum Subset {
    All,
    Nulls,
    Unicode,
}

#[derive(Debug, Clone, Copy)]
struct Profile {
    subset: Subset,
    rows: usize,
    sliced: bool,
}

impl Profile {
    const fn new(subset: Subset, rows: usize, sliced: bool) -> Self {
        Profile {
            subset,
            rows,
            sliced,
        }
    }

    const ALL: [Profile; 9] = [
        Profile::new(Subset::All, 0, false),
        Profile::new(Subset::All, 16, false),
        Profile::new(Subset::All, 1_024, false),
        Profile::new(Subset::All, 16_384, false),
        Profile::new(Subset::All, 1_024, true),
        Profile::new(Subset::Nulls, 16, false),
        Profile::new(Subset::Nulls, 1_024, false),
        Profile::new(Subset::Unicode, 16, false),
        Profile::new(Subset::Unicode, 1_024, false),
    ];

    fn id(&self) -> String {
        match (self.subset, self.sliced) {
            (Subset::All, true) => "sliced".to_string(),
            (Subset::All, false) => format!("rows={}", self.rows),
            (Subset::Nulls, _) => format!("nulls={}", self.rows),
            (Subset::Unicode, _) => format!("unicode={}", self.rows),
        }
    }
}

fn has_non_ascii(cell: &Cell) -> bool {
    match cell {
        Cell::Str(s) => !s.is_ascii(),
        Cell::List(items) => items.iter().any(has_non_ascii),
        Cell::Map(entries) => entries
            .iter()
            .any(|(k, v)| has_non_ascii(k) || has_non_ascii(v)),
        _ => false,
    }
}

/// The golden input rows a profile draws from.
fn pool(case: &Case, subset: Subset) -> Vec<usize> {
    (0..case.rows.len())
        .filter(|&r| match subset {
            Subset::All => true,
            Subset::Nulls => case.rows[r].iter().any(|c| matches!(c, Cell::Null)),
            Subset::Unicode => case.rows[r].iter().any(has_non_ascii),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Golden fixtures.

fn calls(expr: &Json, opcode: u16) -> bool {
    golden::expr(expr).is_ok_and(|e| {
        let mut ops = BTreeSet::new();
        golden::opcodes_in(&e, &mut ops);
        ops.contains(&opcode)
    })
}

/// The golden case for `def`, projected to the expressions that call it.
fn fixture_case(cases: &[Case], def: &FunctionDef) -> Option<Case> {
    let case = cases
        .iter()
        .filter(|c| matches!(c.flink, Outcome::Rows { .. }) && !c.rows.is_empty())
        .filter(|c| c.opcodes().is_ok_and(|ops| ops.contains(&def.opcode)))
        .max_by_key(|c| c.rows.len())?;
    let Outcome::Rows { types, rows } = &case.flink else {
        unreachable!("filtered above")
    };
    let mut keep: Vec<usize> = (0..case.exprs.len())
        .filter(|&i| calls(&case.exprs[i], def.opcode))
        .collect();
    if keep.is_empty() {
        keep = (0..case.exprs.len()).collect();
    }
    Some(Case {
        name: case.name.clone(),
        input: case.input.clone(),
        rows: case.rows.clone(),
        sql: case.sql.clone(),
        exprs: keep.iter().map(|&i| case.exprs[i].clone()).collect(),
        filter: case.filter.clone(),
        legacy: case.legacy,
        zone: case.zone.clone(),
        flink: Outcome::Rows {
            types: keep.iter().map(|&i| types[i].clone()).collect(),
            rows: rows
                .iter()
                .map(|r| keep.iter().map(|&i| r[i].clone()).collect())
                .collect(),
        },
    })
}

struct GoldenFixture {
    compiled: CompiledCalc,
    input: ChangelogBatch,
    /// Which of Flink's output rows the result must equal, in order.
    expected: Vec<usize>,
}

impl ArrowBuffers for GoldenFixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

/// Input rows (indices into the golden input) and expected output rows (indices into
/// Flink's output) of a profile, or why the profile does not apply.
fn plan(case: &Case, profile: Profile) -> Result<(Vec<usize>, Vec<usize>, usize), String> {
    let Outcome::Rows { rows: output, .. } = &case.flink else {
        return Err("Flink failed this case".into());
    };
    if case.filter.is_some() {
        if !matches!(profile.subset, Subset::All) {
            return Err("a filtered case's output rows do not map to input rows".into());
        }
        let block = case.rows.len();
        let blocks = profile.rows.div_ceil(block);
        let (offset_blocks, total) = if profile.sliced {
            (1, blocks + 2)
        } else {
            (0, blocks)
        };
        let input = (0..total * block).map(|i| i % block).collect();
        let expected = (0..blocks * output.len())
            .map(|i| i % output.len())
            .collect();
        return Ok((input, expected, offset_blocks * block));
    }
    let pool = pool(case, profile.subset);
    if pool.is_empty() {
        return Err(format!(
            "no golden input row of case {} qualifies for this subset",
            case.name
        ));
    }
    let offset = if profile.sliced { SLICE_OFFSET } else { 0 };
    let total = profile.rows + 2 * offset;
    let input: Vec<usize> = (0..total).map(|i| pool[i % pool.len()]).collect();
    let expected = input[offset..offset + profile.rows].to_vec();
    Ok((input, expected, offset))
}

fn golden_profiles(suite: &mut Suite, id: &str, case: &Case) {
    for profile in Profile::ALL {
        let case_id = format!("{id}/{}", profile.id());
        let (input_rows, expected, offset) = match plan(case, profile) {
            Ok(plan) => plan,
            Err(why) => {
                suite.skip(&case_id, &why);
                continue;
            }
        };
        suite.stateless(
            &case_id,
            || {
                let compiled = case
                    .compile()
                    .unwrap_or_else(|e| panic!("{}: {e}", case.describe()));
                let batch = case.batch_of(&input_rows).unwrap_or_else(|e| panic!("{e}"));
                let len = batch.num_rows() - 2 * offset;
                let input = if offset > 0 {
                    ChangelogBatch::insert_only(batch.batch().slice(offset, len))
                } else {
                    batch
                };
                GoldenFixture {
                    compiled,
                    input,
                    expected,
                }
            },
            |f| f.compiled.evaluate(&f.input).expect("evaluation"),
            |f, out| match golden::judge(
                case,
                f.compiled.output_types(),
                Ok(out.clone()),
                &f.expected,
            ) {
                Golden::Match => Ok(()),
                other => Err(format!("{}: {other:?}", case.describe())),
            },
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Volatile functions.

/// How a volatile or position-dependent function is called, and the range its values keep.
struct VolatileCall {
    args: Vec<Expr>,
    /// Inclusive-exclusive bounds of an integer result.
    range: Option<(i64, i64)>,
}

/// The seeded random functions: each row takes the next value of one sequence, so tiled golden
/// rows cannot hold their values past the golden rows; they run unseeded here, checked by
/// range.
fn volatile_call(def: &FunctionDef) -> Option<VolatileCall> {
    match def.name {
        "RAND" => Some(VolatileCall {
            args: vec![],
            range: None,
        }),
        "RAND_INTEGER" => Some(VolatileCall {
            args: vec![Expr::lit(LogicalType::Int, "100")],
            range: Some((0, 100)),
        }),
        _ => None,
    }
}

struct VolatileFixture {
    range: Option<(i64, i64)>,
    compiled: CompiledCalc,
    input: ChangelogBatch,
    result: LogicalType,
}

impl ArrowBuffers for VolatileFixture {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

/// A batch of the profile's shape the function does not read: an INT column with NULLs for
/// the NULL subset, a non-ASCII VARCHAR column for the Unicode one.
fn volatile_input(profile: Profile) -> (Vec<LogicalType>, RecordBatch) {
    let offset = if profile.sliced { SLICE_OFFSET } else { 0 };
    let len = profile.rows + 2 * offset;
    let (ty, column): (LogicalType, ArrayRef) = match profile.subset {
        Subset::Unicode => (
            LogicalType::VarChar(i32::MAX as u32),
            Arc::new(StringArray::from_iter_values(
                (0..len).map(|i| format!("é{i}😀")),
            )),
        ),
        _ => (
            LogicalType::Int,
            Arc::new(Int32Array::from_iter((0..len).map(|i| {
                (matches!(profile.subset, Subset::All) || i % 3 != 0).then_some(i as i32)
            }))),
        ),
    };
    let schema = Schema::new(vec![Field::new("f0", ty.to_arrow(), true)]);
    let batch = RecordBatch::try_new(Arc::new(schema), vec![column]).expect("volatile input");
    (vec![ty], batch.slice(offset, profile.rows))
}

fn volatile_profiles(suite: &mut Suite, id: &str, def: &FunctionDef, call: &VolatileCall) {
    for profile in Profile::ALL {
        suite.stateless(
            &format!("{id}/{}", profile.id()),
            || {
                let (types, batch) = volatile_input(profile);
                let compiled = compile(
                    &CalcProgram::project(vec![Expr::call(def.opcode, call.args.clone())]),
                    &types,
                )
                .unwrap_or_else(|e| panic!("{def:?}(): {e}"));
                VolatileFixture {
                    range: call.range,
                    result: compiled.output_types()[0].clone(),
                    compiled,
                    input: ChangelogBatch::insert_only(batch),
                }
            },
            |f| f.compiled.evaluate(&f.input).expect("evaluation"),
            check_volatile,
        );
    }
}

fn check_volatile(f: &VolatileFixture, out: &ChangelogBatch) -> Verdict {
    if out.num_rows() != f.input.num_rows() {
        return Err(format!(
            "{} rows from {} input rows",
            out.num_rows(),
            f.input.num_rows()
        ));
    }
    let column = out.batch().column(0);
    if column.data_type() != &f.result.to_arrow() {
        return Err(format!("a {} column for {}", column.data_type(), f.result));
    }
    if column.null_count() != 0 {
        return Err(format!("{} NULL values", column.null_count()));
    }
    if let Some((lo, hi)) = f.range {
        let values = arrow::compute::cast(column, &arrow::datatypes::DataType::Int64)
            .map_err(|e| e.to_string())?;
        let values = values.as_primitive::<arrow::datatypes::Int64Type>();
        if let Some(v) = values.values().iter().find(|v| !(lo..hi).contains(*v)) {
            return Err(format!("{v} is outside {lo}..{hi}"));
        }
    }
    Ok(())
}
