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
use streamfusion::golden::{self, Case, Verdict};

/// Cases where native Calc differs from Flink, each with the reason.
const KNOWN_MISMATCHES: &[(&str, &str)] = &[];

/// Cases using a function or cast the registry does not have yet.
const NOT_NATIVE_YET: &[(&str, &str)] = &[];

/// Opcodes registered but not yet covered by a matching golden case, each with why (e.g. a
/// volatile function whose values no golden file can hold). The list may only shrink: a
/// covered opcode listed here fails the test, as does an uncovered one missing from it.
const UNCOVERED_OPCODES: &[(u16, &str)] = &[];

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
    for case in &cases {
        let verdict = golden::run(case);
        match (listed(&case.name), verdict) {
            (None, Verdict::Match) => {
                asserted += 1;
                rows += case.rows.len();
            }
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
        }
    }
    // Past the harness's capture: the unasserted cases are never silent.
    let _ = writeln!(
        std::io::stderr(),
        "calc_flink: {asserted} cases asserted ({rows} input rows), {} known mismatches, {} not \
         native yet:\n{}",
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
