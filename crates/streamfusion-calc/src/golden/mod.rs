//! Golden Calc vectors from released Flink (feature `bench`): the file
//! `tests/golden/flink-2.3.0-calc.jsonl` read back as typed cases, each rebuilt as a
//! [`CalcProgram`] over an Arrow input batch, and a native evaluation judged against what
//! Flink computed.
//!
//! `java/src/org/streamfusion/golden/CalcVectors.java` writes the file: each case feeds typed
//! rows (a bounded append stream, so Flink's generated runtime code runs, not the planner's
//! constant folding) through `SELECT <exprs> FROM src [WHERE <filter>]` and records the
//! resolved result types and rows, or the root cause of the failure. The generator writes
//! each expression once and renders both its SQL and the Calc IR (with Flink function names
//! where the IR has opcodes), so the two cannot drift apart.
//!
//! The Calc conformance test (`streamfusion`'s `tests/it/calc_flink.rs`) and the `scalar_registry` suite both
//! read cases through this module: the suite's expected results are Flink's.

mod arrow;
mod cell;

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use ::arrow::array::{ArrayRef, RecordBatch};
use ::arrow::datatypes::{Field, Schema};
use serde_json::Value as Json;

pub use self::arrow::{input_array, output_cell};
pub use self::cell::{Cell, show};
use self::cell::{row, str_of};
use crate::calc::functions::{arithmetic, comparison, hash, math, string};
use crate::calc::registry::registry;
use crate::calc::{CalcError, CalcProgram, CompiledCalc, Expr, compile};
use crate::changelog::ChangelogBatch;
use crate::types::LogicalType;

/// The committed golden file, relative to the `streamfusion` crate (beside the other golden
/// files its tests replay).
pub const GOLDEN_PATH: &str = "tests/golden/flink-2.3.0-calc.jsonl";

/// The golden file's absolute path in this checkout.
pub fn golden_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../streamfusion")
        .join(GOLDEN_PATH)
}

/// What Flink did with a case.
#[derive(Debug)]
pub enum Outcome {
    /// The result types (nullability dropped) and rows.
    Rows {
        /// One per output column.
        types: Vec<LogicalType>,
        /// The output rows, in order.
        rows: Vec<Vec<Cell>>,
    },
    /// The query failed while running; the root cause.
    Error {
        /// Its Java class.
        class: String,
        /// Its message.
        message: String,
    },
}

/// One golden case.
#[derive(Debug)]
pub struct Case {
    /// The case's unique name (`*_legacy` for the legacy-cast run).
    pub name: String,
    /// The input column types.
    pub input: Vec<LogicalType>,
    /// The input rows.
    pub rows: Vec<Vec<Cell>>,
    /// The SQL Flink ran.
    pub sql: String,
    /// The projections, as golden IR.
    pub exprs: Vec<Json>,
    /// The filter, as golden IR.
    pub filter: Option<Json>,
    /// `table.exec.legacy-cast-behaviour`.
    pub legacy: bool,
    /// The session time zone (`table.local-time-zone`).
    pub zone: String,
    /// What Flink did.
    pub flink: Outcome,
}

fn ty(text: &str) -> Result<LogicalType, String> {
    text.parse().map_err(|e| format!("type {text:?}: {e}"))
}

fn types(v: &Json, what: &str) -> Result<Vec<LogicalType>, String> {
    v.as_array()
        .ok_or_else(|| format!("{what}: expected an array"))?
        .iter()
        .map(|t| ty(str_of(t, what)?))
        .collect()
}

fn rows(v: &Json, types: &[LogicalType], what: &str) -> Result<Vec<Vec<Cell>>, String> {
    v.as_array()
        .ok_or_else(|| format!("{what}: expected an array"))?
        .iter()
        .map(|r| row(r, types))
        .collect()
}

fn parse_case(line: &str) -> Result<Case, String> {
    let v: Json = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let name = str_of(&v["case"], "case")?.to_string();
    let input = types(&v["input"], "input types")?;
    let flink = if let Some(e) = v.get("error") {
        Outcome::Error {
            class: str_of(&e["class"], "error class")?.to_string(),
            message: str_of(&e["message"], "error message")?.to_string(),
        }
    } else {
        let types = types(&v["types"], "output types")?;
        let rows = rows(&v["output"], &types, "output")?;
        Outcome::Rows { types, rows }
    };
    Ok(Case {
        rows: rows(&v["rows"], &input, "rows")?,
        input,
        sql: str_of(&v["sql"], "sql")?.to_string(),
        exprs: v["exprs"]
            .as_array()
            .ok_or("exprs: expected an array")?
            .clone(),
        filter: (!v["filter"].is_null()).then(|| v["filter"].clone()),
        legacy: v["legacy_cast"].as_bool().ok_or("legacy_cast")?,
        zone: v["zone"].as_str().unwrap_or("UTC").to_string(),
        flink,
        name,
    })
}

/// Every case of a golden file's text; an unreadable line is an error naming it.
pub fn parse(text: &str) -> Result<Vec<Case>, String> {
    let mut lines = text.lines();
    let header: Json = serde_json::from_str(lines.next().ok_or("an empty golden file")?)
        .map_err(|e| format!("header: {e}"))?;
    if header["flink"] != "2.3.0" {
        return Err(format!("header {header}: not Flink 2.3.0 vectors"));
    }
    lines
        .enumerate()
        .map(|(number, line)| parse_case(line).map_err(|e| format!("line {}: {e}", number + 2)))
        .collect()
}

/// The committed golden cases.
pub fn load() -> Result<Vec<Case>, String> {
    let path = golden_path();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text)
}

// ---------------------------------------------------------------------------------------------
// Building the program.

/// The opcode of the function Flink calls `name`: the family constants where the golden IR
/// name differs from the registry's (operators, the TRIM variants), else the registry by name.
pub fn opcode(name: &str) -> Option<u16> {
    use arithmetic as a;
    use comparison as c;
    Some(match name {
        "+" => a::PLUS,
        "-" => a::MINUS,
        "*" => a::TIMES,
        "/" => a::DIVIDE,
        "MOD" => a::MOD,
        "NEGATE" => a::UNARY_MINUS,
        "=" => c::EQUALS,
        "<>" => c::NOT_EQUALS,
        "<" => c::LESS_THAN,
        "<=" => c::LESS_THAN_OR_EQUAL,
        ">" => c::GREATER_THAN,
        ">=" => c::GREATER_THAN_OR_EQUAL,
        "IS NULL" => c::IS_NULL,
        "IS NOT NULL" => c::IS_NOT_NULL,
        "IS TRUE" => c::IS_TRUE,
        "IS FALSE" => c::IS_FALSE,
        "IS NOT TRUE" => c::IS_NOT_TRUE,
        "IS NOT FALSE" => c::IS_NOT_FALSE,
        "ABS" => math::ABS,
        "CHAR_LENGTH" => string::CHAR_LENGTH,
        "MD5" => hash::MD5,
        "TRIM_BOTH" => string::TRIM_BOTH,
        "TRIM_LEADING" => string::TRIM_LEADING,
        "TRIM_TRAILING" => string::TRIM_TRAILING,
        other => return registry().by_name(other).map(|d| d.opcode),
    })
}

/// Why a case could not be run natively.
#[derive(Debug)]
pub enum Unsupported {
    /// A function with no opcode in the registry.
    Function(String),
    /// A compile error (unknown opcode, unsupported cast, ...).
    Compile(CalcError),
    /// The golden IR or input could not be read.
    Malformed(String),
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Function(name) => write!(f, "function {name} is not registered"),
            Unsupported::Compile(e) => write!(f, "does not compile: {e}"),
            Unsupported::Malformed(why) => write!(f, "malformed case: {why}"),
        }
    }
}

fn malformed(why: impl Into<String>) -> Unsupported {
    Unsupported::Malformed(why.into())
}

fn exprs(v: &[Json]) -> Result<Vec<Expr>, Unsupported> {
    v.iter().map(expr).collect()
}

fn array<'a>(v: &'a Json, what: &str) -> Result<&'a Vec<Json>, Unsupported> {
    v.as_array()
        .ok_or_else(|| malformed(format!("{what}: expected an array, got {v}")))
}

fn golden_type(v: &Json) -> Result<LogicalType, Unsupported> {
    str_of(v, "type")
        .and_then(ty)
        .map_err(Unsupported::Malformed)
}

/// The golden IR (the program encoding, with function names for opcodes) as an [`Expr`].
pub fn expr(v: &Json) -> Result<Expr, Unsupported> {
    let obj = v
        .as_object()
        .filter(|o| o.len() == 1)
        .ok_or_else(|| malformed(format!("{v}: expected one IR node")))?;
    let (key, body) = obj.iter().next().expect("one key");
    Ok(match key.as_str() {
        "input" => Expr::input(
            body.as_u64()
                .ok_or_else(|| malformed(format!("input {body}")))? as usize,
        ),
        "literal" => {
            let t = golden_type(&body["type"])?;
            match body["value"].as_str() {
                Some(text) => Expr::lit(t, text),
                None => Expr::null(t),
            }
        }
        "call" => {
            let name = str_of(&body["fn"], "function name").map_err(Unsupported::Malformed)?;
            let op = opcode(name).ok_or_else(|| Unsupported::Function(name.to_string()))?;
            Expr::call(op, exprs(array(&body["args"], "args")?)?)
        }
        "cast" => expr(&body["expr"])?.cast(golden_type(&body["type"])?),
        "try_cast" => expr(&body["expr"])?.try_cast(golden_type(&body["type"])?),
        "case" => {
            let when = array(&body["when"], "when")?
                .iter()
                .map(|pair| Ok((expr(&pair[0])?, expr(&pair[1])?)))
                .collect::<Result<Vec<_>, Unsupported>>()?;
            let otherwise = body.get("else").map(expr).transpose()?;
            Expr::case(when, otherwise)
        }
        "if" => Expr::if_(
            expr(&body["condition"])?,
            expr(&body["then"])?,
            expr(&body["else"])?,
        ),
        "coalesce" => Expr::Coalesce(exprs(array(body, "coalesce")?)?),
        "and" => Expr::And(exprs(array(body, "and")?)?),
        "or" => Expr::Or(exprs(array(body, "or")?)?),
        "not" => Expr::Not(Box::new(expr(body)?)),
        other => return Err(malformed(format!("unknown IR node {other}"))),
    })
}

impl Case {
    /// The case as a Calc program.
    pub fn program(&self) -> Result<CalcProgram, Unsupported> {
        let mut program = CalcProgram::project(exprs(&self.exprs)?);
        if let Some(filter) = &self.filter {
            program = program.with_filter(expr(filter)?);
        }
        program.legacy_cast_behaviour = self.legacy;
        program.time_zone = self.zone.clone();
        Ok(program)
    }

    /// The program compiled against the case's input types.
    pub fn compile(&self) -> Result<CompiledCalc, Unsupported> {
        compile(&self.program()?, &self.input).map_err(Unsupported::Compile)
    }

    /// The input rows as an Arrow schema (`f0`, `f1`, ...).
    pub fn schema(&self) -> Schema {
        Schema::new(
            self.input
                .iter()
                .enumerate()
                .map(|(i, t)| Field::new(format!("f{i}"), t.to_arrow(), true))
                .collect::<Vec<_>>(),
        )
    }

    /// Rows `rows` (indices into the case's input, repeats allowed) as one insert-only batch.
    pub fn batch_of(&self, rows: &[usize]) -> Result<ChangelogBatch, String> {
        let columns: Vec<ArrayRef> = self
            .input
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let cells: Vec<&Cell> = rows.iter().map(|&r| &self.rows[r][i]).collect();
                input_array(t, &cells)
            })
            .collect::<Result<_, _>>()?;
        let batch = RecordBatch::try_new(Arc::new(self.schema()), columns)
            .map_err(|e| format!("{}: input batch: {e}", self.name))?;
        Ok(ChangelogBatch::insert_only(batch))
    }

    /// The case's input rows as one insert-only batch.
    pub fn batch(&self) -> Result<ChangelogBatch, String> {
        self.batch_of(&(0..self.rows.len()).collect::<Vec<_>>())
    }

    /// Every opcode the case's program calls.
    pub fn opcodes(&self) -> Result<BTreeSet<u16>, Unsupported> {
        let program = self.program()?;
        let mut out = BTreeSet::new();
        program
            .projection
            .iter()
            .chain(&program.filter)
            .for_each(|e| opcodes_in(e, &mut out));
        Ok(out)
    }

    /// The case, its SQL and input, for a failure message.
    pub fn describe(&self) -> String {
        let rows: Vec<String> = self.rows.iter().map(|r| show(r)).collect();
        format!(
            "{}{}: {}\n  input {:?} rows {}",
            self.name,
            if self.legacy { " (legacy casts)" } else { "" },
            self.sql,
            self.input
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            rows.join(" ")
        )
    }
}

/// Every opcode an expression calls, depth first.
pub fn opcodes_in(e: &Expr, out: &mut BTreeSet<u16>) {
    match e {
        Expr::Input(_) | Expr::Literal(_) => {}
        Expr::Call(call) => {
            out.insert(call.op);
            call.args.iter().for_each(|a| opcodes_in(a, out));
        }
        Expr::Cast(c) | Expr::TryCast(c) => opcodes_in(&c.expr, out),
        Expr::Case(case) => {
            for (c, v) in &case.when {
                opcodes_in(c, out);
                opcodes_in(v, out);
            }
            if let Some(e) = &case.otherwise {
                opcodes_in(e, out);
            }
        }
        Expr::If(f) => {
            opcodes_in(&f.condition, out);
            opcodes_in(&f.then, out);
            opcodes_in(&f.otherwise, out);
        }
        Expr::Coalesce(args) | Expr::And(args) | Expr::Or(args) => {
            args.iter().for_each(|a| opcodes_in(a, out));
        }
        Expr::Not(e) => opcodes_in(e, out),
        Expr::Upcall(u) => u.args.iter().for_each(|a| opcodes_in(a, out)),
    }
}

// ---------------------------------------------------------------------------------------------
// Judging a native run.

/// How a case went natively.
#[derive(Debug)]
pub enum Verdict {
    /// Types, rows and values (or the failure) equal Flink's.
    Match,
    /// Not runnable natively.
    Unsupported(Unsupported),
    /// Runs, but differs; what differs.
    Mismatch(String),
    /// Flink returns rows, native fails with a typed out-of-range error (decision 0023): a
    /// DATE, TIME or TIMESTAMP outside its range or carrier. Whether Flink's values there are
    /// ones native cannot write is for the caller to judge, cell by cell.
    OutOfRange(CalcError),
}

/// The rows of a native result, printed.
fn show_output(out: &ChangelogBatch, types: &[LogicalType]) -> String {
    (0..out.num_rows())
        .map(|r| {
            let cells: Vec<Cell> = out
                .batch()
                .columns()
                .iter()
                .zip(types)
                .map(|(c, t)| output_cell(c, r, t).unwrap_or(Cell::Str("<unreadable>".into())))
                .collect();
            show(&cells)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Compares a native evaluation of `case` (with `types` its output types) with Flink's.
/// `expected` lists, in order, which of Flink's output rows the native output must equal (all
/// of them, once, for the case's own input; repeats and subsets for inputs built from it).
pub fn judge(
    case: &Case,
    types: &[LogicalType],
    evaluated: Result<ChangelogBatch, CalcError>,
    expected: &[usize],
) -> Verdict {
    match (&case.flink, evaluated) {
        (Outcome::Error { class, message }, Ok(out)) => Verdict::Mismatch(format!(
            "Flink fails with {class}: {message:?}, native returns {} row(s): {}",
            out.num_rows(),
            show_output(&out, types)
        )),
        (Outcome::Error { .. }, Err(CalcError::Evaluation { .. })) => Verdict::Match,
        (Outcome::Error { class, .. }, Err(e)) => Verdict::Mismatch(format!(
            "Flink fails with {class} while running, native fails otherwise: {e}"
        )),
        (Outcome::Rows { .. }, Err(e)) if e.is_out_of_range() => Verdict::OutOfRange(e),
        (Outcome::Rows { .. }, Err(e)) => {
            Verdict::Mismatch(format!("Flink returns rows, native fails: {e}"))
        }
        (
            Outcome::Rows {
                types: flink_types,
                rows,
            },
            Ok(out),
        ) => {
            let mut problems = Vec::new();
            for (i, (f, n)) in flink_types.iter().zip(types).enumerate() {
                if f != n {
                    problems.push(format!("e{i}: type Flink {f}, native {n}"));
                }
            }
            if flink_types.len() != types.len() {
                problems.push(format!(
                    "{} output columns in Flink, {} natively",
                    flink_types.len(),
                    types.len()
                ));
            }
            if expected.len() != out.num_rows() {
                problems.push(format!(
                    "{} rows in Flink, {} natively",
                    expected.len(),
                    out.num_rows()
                ));
            }
            let columns = out.batch().columns();
            'rows: for (r, &flink_index) in expected.iter().enumerate().take(out.num_rows()) {
                let Some(flink_row) = rows.get(flink_index) else {
                    problems.push(format!("row {r}: Flink has no output row {flink_index}"));
                    break;
                };
                for (i, flink) in flink_row.iter().enumerate().take(columns.len()) {
                    let native = match output_cell(&columns[i], r, &types[i]) {
                        Ok(c) => c,
                        Err(e) => {
                            problems.push(format!("row {r} e{i}: {e}"));
                            continue;
                        }
                    };
                    if &native != flink {
                        problems.push(format!("row {r} e{i}: Flink {flink}, native {native}"));
                        if problems.len() > 20 {
                            problems.push("...".into());
                            break 'rows;
                        }
                    }
                }
            }
            if problems.is_empty() {
                Verdict::Match
            } else {
                Verdict::Mismatch(problems.join("\n    "))
            }
        }
    }
}

/// Runs a case natively on its own rows and judges it.
pub fn run(case: &Case) -> Verdict {
    let compiled = match case.compile() {
        Ok(c) => c,
        Err(u) => return Verdict::Unsupported(u),
    };
    let batch = match case.batch() {
        Ok(b) => b,
        Err(e) => return Verdict::Unsupported(malformed(e)),
    };
    let expected: Vec<usize> = match &case.flink {
        Outcome::Rows { rows, .. } => (0..rows.len()).collect(),
        Outcome::Error { .. } => Vec::new(),
    };
    judge(
        case,
        compiled.output_types(),
        compiled.evaluate(&batch),
        &expected,
    )
}
