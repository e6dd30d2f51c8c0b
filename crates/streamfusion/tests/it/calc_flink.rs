//! Calc (projections and filters) against released Flink 2.3.0.
//!
//! `tests/golden/flink-2.3.0-calc.jsonl` was written by
//! `java/src/org/streamfusion/golden/CalcVectors.java` (see [`streamfusion::golden`] for how
//! the cases are made and read). Every case is rebuilt as a Calc program (function names to
//! opcodes), compiled against the case's input types and evaluated on the case's rows; the
//! output types must equal Flink's, every value must equal Flink's exactly (integers and
//! DECIMALs by value and scale, strings by text, FLOAT/DOUBLE bit for bit, any NaN equal to any
//! NaN since Java does not fix NaN payloads, temporal values to the nanosecond, nested values
//! element by element, maps as sets of entries), NULLs included; a case Flink fails must fail
//! evaluation too (the kind of failure, not its wording).
//!
//! One failure stands in for a value (decision 0023): where Flink computes a DATE or TIMESTAMP
//! outside what native writes (Flink's documented ranges, and for TIMESTAMP(7..9) 64-bit
//! nanoseconds), native fails with a typed out-of-range error instead. Such a case is judged
//! cell by cell, each expression on each row alone: every cell must equal Flink's, or be that
//! error where Flink's value lies outside those ranges ([`unrepresentable`]); nothing else.
//! [`OUT_OF_RANGE_CELLS`] counts the cells so accepted, so a change in either direction shows.
//!
//! Every golden case is asserted, except those listed in [`KNOWN_MISMATCHES`] (native differs
//! from Flink: a production bug, reported, with its reason) and [`NOT_NATIVE_YET`] (a function
//! or cast the registry does not have yet). Listed cases are run too and their current state
//! reported on stderr (never silently); a listed case that now matches fails the test, so the
//! lists only shrink.
//!
//! When a JDK and the released classpath are present (`cargo xtask jvm`), the generator is run
//! again and must write the committed file byte for byte; otherwise that check reports itself
//! skipped by name.

use std::collections::BTreeSet;
use std::io::Write;

use streamfusion::calc::registry::registry;
use streamfusion::calc::{CalcProgram, compile};
use streamfusion::golden::{self, Case, Cell, Outcome, Verdict};
use streamfusion::types::LogicalType;

/// Cases where native Calc differs from Flink, each with the reason.
const KNOWN_MISMATCHES: &[(&str, &str)] = &[];

/// Cases using a function or cast the registry does not have yet.
const NOT_NATIVE_YET: &[(&str, &str)] = &[];

/// Opcodes registered but not yet covered by a matching golden case, each with why (e.g. a
/// volatile function whose values no golden file can hold). The list may only shrink: a
/// covered opcode listed here fails the test, as does an uncovered one missing from it.
const UNCOVERED_OPCODES: &[(u16, &str)] = &[];

/// Cells (an expression on one row) where Flink computes a value native cannot write and native
/// fails with a typed out-of-range error instead: the `range_*` cases of `RangeCases.java`.
const OUT_OF_RANGE_CELLS: usize = 195;

/// 0000-01-01 and 9999-12-31 in days since 1970-01-01 (1970 years of 365 days and 478 leap
/// days before 1970; 8030 years and 1947 leap days after).
const DATE_RANGE: (i32, i32) = (-719_528, 2_932_896);
/// Flink's TIMESTAMP range in epoch nanoseconds: midnight of the first day above and the last
/// nanosecond of the last.
const TIMESTAMP_RANGE: (i128, i128) = (
    -719_528 * NANOS_PER_DAY,
    (2_932_896 + 1) * NANOS_PER_DAY - 1,
);
const NANOS_PER_DAY: i128 = 86_400 * 1_000_000_000;

/// Whether native cannot write Flink's value `cell` of type `ty`: outside Flink's documented
/// range of DATE or TIMESTAMP, or for TIMESTAMP(7..9) outside 64-bit nanoseconds.
fn unrepresentable(cell: &Cell, ty: &LogicalType) -> bool {
    match (cell, ty) {
        (Cell::Date(d), LogicalType::Date) => !(DATE_RANGE.0..=DATE_RANGE.1).contains(d),
        (Cell::Timestamp(n), LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p)) => {
            !(TIMESTAMP_RANGE.0..=TIMESTAMP_RANGE.1).contains(n)
                || (*p > 6 && i64::try_from(*n).is_err())
        }
        _ => false,
    }
}

/// A case whose native evaluation failed out of range while Flink returned rows, judged cell
/// by cell: the number of cells where native's out-of-range error stands in for a value it
/// cannot write, or what differs.
fn judge_cells(case: &Case) -> Result<usize, String> {
    let Outcome::Rows { types, rows } = &case.flink else {
        return Err("Flink failed this case".into());
    };
    if case.filter.is_some() || rows.len() != case.rows.len() {
        return Err(
            "output rows do not map to input rows (a filter), so cells are not judged \
             one by one"
                .into(),
        );
    }
    let mut accepted = 0;
    let mut problems = Vec::new();
    for (e, json) in case.exprs.iter().enumerate() {
        let expr = golden::expr(json).map_err(|u| format!("e{e}: {u}"))?;
        let mut program = CalcProgram::project(vec![expr]);
        program.legacy_cast_behaviour = case.legacy;
        let compiled = compile(&program, &case.input).map_err(|err| format!("e{e}: {err}"))?;
        let ty = &types[e];
        if &compiled.output_types()[0] != ty {
            problems.push(format!(
                "e{e}: type Flink {ty}, native {}",
                compiled.output_types()[0]
            ));
            continue;
        }
        for (r, flink_row) in rows.iter().enumerate() {
            let flink = &flink_row[e];
            let batch = case.batch_of(&[r])?;
            match compiled.evaluate(&batch) {
                Ok(out) => {
                    let native = golden::output_cell(out.batch().column(0), 0, ty)?;
                    if &native != flink {
                        problems.push(format!("row {r} e{e}: Flink {flink}, native {native}"));
                    }
                }
                Err(err) if err.is_out_of_range() && unrepresentable(flink, ty) => accepted += 1,
                Err(err) => {
                    problems.push(format!("row {r} e{e}: Flink {flink}, native fails: {err}"))
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(accepted)
    } else {
        Err(problems.join("\n    "))
    }
}

fn golden() -> Vec<Case> {
    golden::load().unwrap_or_else(|e| panic!("golden Calc vectors: {e}"))
}

fn listed(name: &str) -> Option<&'static str> {
    KNOWN_MISMATCHES
        .iter()
        .chain(NOT_NATIVE_YET)
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
}

#[test]
fn golden_cases_are_unique_and_the_lists_name_real_cases() {
    let cases = golden();
    let in_file: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    let unique: BTreeSet<&str> = in_file.iter().copied().collect();
    assert_eq!(
        unique.len(),
        in_file.len(),
        "duplicate case names in the golden file"
    );
    let listed: Vec<&str> = KNOWN_MISMATCHES
        .iter()
        .chain(NOT_NATIVE_YET)
        .map(|(n, _)| *n)
        .collect();
    let listed_set: BTreeSet<&str> = listed.iter().copied().collect();
    assert_eq!(listed_set.len(), listed.len(), "a case is listed twice");
    let vanished: Vec<&&str> = listed_set.difference(&unique).collect();
    assert!(
        vanished.is_empty(),
        "listed cases not in the golden file: {vanished:?}"
    );
}

#[test]
fn calc_matches_released_flink() {
    let cases = golden();
    let mut failures = Vec::new();
    let mut report = Vec::new();
    let (mut asserted, mut rows) = (0, 0);
    let (mut out_of_range_cases, mut out_of_range_cells) = (0, 0);
    for case in &cases {
        let verdict = golden::run(case);
        match (listed(&case.name), verdict) {
            (None, Verdict::Match) => {
                asserted += 1;
                rows += case.rows.len();
            }
            (None, Verdict::OutOfRange(e)) => match judge_cells(case) {
                Ok(cells) => {
                    asserted += 1;
                    rows += case.rows.len();
                    out_of_range_cases += 1;
                    out_of_range_cells += cells;
                }
                Err(what) => failures.push(format!(
                    "{}\n  OUT OF RANGE ({e}), and cell by cell:\n    {what}",
                    case.describe()
                )),
            },
            (None, Verdict::Unsupported(why)) => {
                failures.push(format!("{}\n  NOT NATIVE: {why}", case.describe()))
            }
            (None, Verdict::Mismatch(what)) => {
                failures.push(format!("{}\n  MISMATCH:\n    {what}", case.describe()))
            }
            (Some(why), Verdict::Match) => failures.push(format!(
                "{} ({why}) now MATCHES: remove it from its list",
                case.name
            )),
            (Some(why), Verdict::Unsupported(now)) => {
                report.push(format!("  {} ({why}): still not native: {now}", case.name))
            }
            (Some(why), Verdict::Mismatch(now)) => report.push(format!(
                "  {} ({why}): still differs:\n    {now}",
                case.name
            )),
            (Some(why), Verdict::OutOfRange(now)) => report.push(format!(
                "  {} ({why}): still fails out of range: {now}",
                case.name
            )),
        }
    }
    // Past the harness's capture: the unasserted cases are never silent.
    let _ = writeln!(
        std::io::stderr(),
        "calc_flink: {asserted} cases asserted ({rows} input rows; in {out_of_range_cases} of \
         them {out_of_range_cells} cells where Flink computes a value native cannot write fail \
         out of range instead), {} known mismatches, {} not native yet:\n{}",
        KNOWN_MISMATCHES.len(),
        NOT_NATIVE_YET.len(),
        report.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} golden cases differ from released Flink:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert_eq!(
        out_of_range_cells, OUT_OF_RANGE_CELLS,
        "cells where native's out-of-range error stands in for Flink's value (update \
         OUT_OF_RANGE_CELLS deliberately)"
    );
}

#[test]
fn golden_calc_vectors_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_golden_regenerates(
        "golden_calc_vectors_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.CalcVectors",
        &golden::golden_path(),
    );
}

#[test]
fn every_registered_opcode_has_a_golden_case_that_matches_flink() {
    let mut covered = BTreeSet::new();
    for case in golden().iter().filter(|c| listed(&c.name).is_none()) {
        let opcodes = case
            .opcodes()
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        covered.extend(opcodes);
    }
    let uncovered: Vec<String> = registry()
        .functions()
        .into_iter()
        .filter(|d| !covered.contains(&d.opcode))
        .map(|d| format!("{} {}", d.opcode, d.name))
        .collect();
    let listed: Vec<String> = UNCOVERED_OPCODES
        .iter()
        .map(|(op, _)| {
            let d = registry().get(*op).expect("a registered opcode");
            format!("{} {}", d.opcode, d.name)
        })
        .collect();
    assert_eq!(
        uncovered, listed,
        "registered opcodes without a matching golden case (left) must be exactly \
         UNCOVERED_OPCODES (right)"
    );
}
