//! Flink's regular-expression functions (REGEXP_EXTRACT, REGEXP_REPLACE, REGEXP) against
//! released Flink 2.3.0: every pattern of
//! `tests/golden/flink-2.3.0-regex.jsonl` (written by
//! `java/src/org/streamfusion/golden/RegexVectors.java` from `SqlFunctionUtils`, the methods
//! Flink's generated code calls) against every string, through the Calc kernels.
//!
//! A pattern Java accepts must compile natively (or be refused as unsupported, from a pinned
//! list) and give Flink's values; a pattern Java rejects must never compile: it gives NULL
//! per row as Flink does. Patterns run both as literals (compiled once) and from a column
//! (compiled per row).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StringArray};
use serde_json::Value;
use streamfusion::calc::functions::java_regex::{JavaRegex, PatternError};
use streamfusion::calc::functions::string::{REGEXP, REGEXP_EXTRACT, REGEXP_REPLACE};
use streamfusion::calc::{CalcProgram, Expr, compile};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);

/// Patterns Java accepts whose meaning the translation does not carry: refused, never
/// evaluated differently. Pinned so a construct does not silently become unsupported.
const UNSUPPORTED: &[&str] = &["(a*)*b", "(a?)+", "(a|)+"];

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/flink-2.3.0-regex.jsonl")
}

struct Case {
    pattern: String,
    valid: bool,
    rows: Vec<Value>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(golden_path()).expect("golden regex vectors");
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().expect("header")).unwrap();
    assert_eq!(header["flink"], "2.3.0");
    lines
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            Case {
                pattern: v["pattern"].as_str().unwrap().to_owned(),
                valid: v["valid"].as_bool().unwrap(),
                rows: v["rows"].as_array().unwrap().clone(),
            }
        })
        .collect()
}

/// Flink's value as text (`None` for NULL).
fn expected(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        other => panic!("a golden value must be a string, a boolean or null: {other}"),
    }
}

const FIELDS: [&str; 4] = ["extract0", "extract1", "replace", "matches"];

fn strings(values: impl IntoIterator<Item = Option<String>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(values))
}

/// `REGEXP_EXTRACT(s, p, 0)`, `REGEXP_EXTRACT(s, p, 1)`, `REGEXP_REPLACE(s, p, '#')` and
/// `REGEXP(s, p)` (as text) over columns `s` and `p`, with `p` a literal when given.
fn evaluate(
    s: Vec<Option<String>>,
    p: Vec<Option<String>>,
    literal: Option<&str>,
) -> Result<Vec<Vec<Option<String>>>, String> {
    let pattern = match literal {
        Some(p) => Expr::lit(STRING, p),
        None => Expr::input(1),
    };
    let group = |g: i32| Expr::lit(LogicalType::Int, g.to_string());
    let program = CalcProgram::project(vec![
        Expr::call(
            REGEXP_EXTRACT,
            vec![Expr::input(0), pattern.clone(), group(0)],
        ),
        Expr::call(
            REGEXP_EXTRACT,
            vec![Expr::input(0), pattern.clone(), group(1)],
        ),
        Expr::call(
            REGEXP_REPLACE,
            vec![Expr::input(0), pattern.clone(), Expr::lit(STRING, "#")],
        ),
        Expr::call(REGEXP, vec![Expr::input(0), pattern]),
    ]);
    let calc = compile(&program, &[STRING, STRING]).map_err(|e| e.to_string())?;
    let batch = RecordBatch::try_from_iter([("s", strings(s)), ("p", strings(p))]).unwrap();
    let out = calc
        .evaluate(&ChangelogBatch::insert_only(batch))
        .map_err(|e| e.to_string())?;
    Ok(out
        .batch()
        .columns()
        .iter()
        .map(|c| match c.as_boolean_opt() {
            Some(b) => (0..b.len())
                .map(|i| b.is_valid(i).then(|| b.value(i).to_string()))
                .collect(),
            None => {
                let c = c.as_string::<i32>();
                (0..c.len())
                    .map(|i| c.is_valid(i).then(|| c.value(i).to_owned()))
                    .collect()
            }
        })
        .collect())
}

#[test]
fn regex_functions_match_released_flink_for_every_pattern_and_string() {
    let cases = cases();
    assert!(cases.len() >= 100, "{} patterns", cases.len());
    let mut unsupported = BTreeSet::new();
    let (mut compared, mut invalid) = (0, 0);
    // Every compiling and every invalid pattern, from a column, in one batch.
    let (mut column_s, mut column_p, mut column_rows) = (Vec::new(), Vec::new(), Vec::new());
    for case in &cases {
        let p = case.pattern.as_str();
        match (JavaRegex::new(p), case.valid) {
            (Ok(_), false) => panic!("{p:?}: Java rejects it, the translation compiles it"),
            (Err(PatternError::Invalid { reason, .. }), true) => {
                panic!("{p:?}: Java accepts it, the translation calls it invalid: {reason}")
            }
            (Err(PatternError::Unsupported { .. }), true) => {
                unsupported.insert(p.to_owned());
                continue;
            }
            (Err(PatternError::Unsupported { reason, .. }), false) => {
                // Refused rather than NULL: allowed, but only for exotic syntax.
                assert!(
                    ["\\p{Foo}"].contains(&p),
                    "{p:?}: Java rejects it; it should be invalid (NULL), not unsupported: {reason}"
                );
                continue;
            }
            (Err(PatternError::Invalid { .. }), false) => invalid += 1,
            (Ok(_), true) => {}
        }
        let s: Vec<Option<String>> = case
            .rows
            .iter()
            .map(|r| r["s"].as_str().map(str::to_owned))
            .collect();
        let literal = evaluate(s.clone(), vec![None; s.len()], Some(p))
            .unwrap_or_else(|e| panic!("{p:?}: {e}"));
        for (i, row) in case.rows.iter().enumerate() {
            for (k, field) in FIELDS.iter().enumerate() {
                let want = expected(&row[field]);
                assert_eq!(
                    literal[k][i],
                    want,
                    "{field}({:?}, {p:?}) (translated {:?})",
                    s[i],
                    streamfusion::calc::functions::java_regex::translate(p)
                );
                compared += 1;
            }
            column_s.push(s[i].clone());
            column_p.push(Some(p.to_owned()));
            column_rows.push(row);
        }
    }
    let from_column = evaluate(column_s.clone(), column_p.clone(), None).unwrap();
    for (i, row) in column_rows.iter().enumerate() {
        for (k, field) in FIELDS.iter().enumerate() {
            assert_eq!(
                from_column[k][i],
                expected(&row[field]),
                "{field}({:?}, {:?}) from a column",
                column_s[i],
                column_p[i]
            );
        }
    }
    let pinned: BTreeSet<String> = UNSUPPORTED.iter().map(|p| p.to_string()).collect();
    assert_eq!(
        unsupported, pinned,
        "patterns Java accepts that are refused"
    );
    assert!(invalid >= 15, "{invalid} invalid patterns");
    eprintln!(
        "regex golden: {} patterns, {compared} values equal to Flink, {invalid} invalid (NULL), \
         {} unsupported",
        cases.len(),
        unsupported.len()
    );
}

#[test]
fn golden_regex_vectors_regenerate_identically_from_released_flink() {
    bench_support::jvm::assert_golden_regenerates(
        "golden_regex_vectors_regenerate_identically_from_released_flink",
        "org.streamfusion.golden.RegexVectors",
        &golden_path(),
    );
}
