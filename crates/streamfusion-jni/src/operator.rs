//! The operator run behind a handle: a Calc program (projections and an optional filter).
//!
//! # Plan
//!
//! A JSON document:
//!
//! ```json
//! {"input": ["BIGINT", "VARCHAR(2147483647)", "INT"],
//!  "calc": {"projection": [{"call": {"op": 100, "args": [{"input": 2},
//!                                     {"literal": {"type": "INT", "value": "1"}}]}},
//!                          {"input": 0}],
//!           "filter": {"call": {"op": 207, "args": [{"input": 1}]}}}}
//! ```
//!
//! - `input`: the Flink types of the input row's fields, in Flink's SQL spelling
//!   ([`LogicalType`]'s `FromStr`);
//! - `calc`: the [`CalcProgram`] in its JSON encoding (`streamfusion::calc::program`): here
//!   `SELECT f2 + 1, f0 WHERE f1 IS NOT NULL`.
//!
//! Each output row keeps its input row's kind. The operator is stateless: `flush` returns no
//! rows. The watermark only moves forward (a lower one is ignored, as Flink's are monotonic).
//!
//! # Snapshot (version 1)
//!
//! All integers little-endian:
//!
//! ```text
//! +--------+-----------+-------------+-----------------+-----------+------------------+
//! | "SFOP" | version=1 | watermark   | rows processed  | plan len  | plan (JSON)      |
//! | 4 B    | u32       | i64         | u64             | u32       | plan len bytes   |
//! +--------+-----------+-------------+-----------------+-----------+------------------+
//! ```
//!
//! Restoring checks the magic, the version, the exact length and the plan.

use streamfusion::calc::{CalcProgram, CompiledCalc, compile};
use streamfusion::types::LogicalType;
use streamfusion_bridge::transpose::{changelog_to_rows, rows_to_changelog};

use crate::error::{NativeError, Result};

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanSpec {
    input: Vec<String>,
    calc: CalcProgram,
}

/// A validated plan (see the module documentation for its JSON): the program compiled once
/// against the input types.
#[derive(Debug, Clone)]
pub struct Plan {
    spec: PlanSpec,
    input: Vec<LogicalType>,
    compiled: CompiledCalc,
}

impl PartialEq for Plan {
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec
    }
}

impl Plan {
    /// Parses a plan and compiles its program: every type parses, every expression is valid.
    pub fn parse(json: &str) -> Result<Self> {
        let spec: PlanSpec =
            serde_json::from_str(json).map_err(|e| NativeError::InvalidPlan(e.to_string()))?;
        let input = spec
            .input
            .iter()
            .map(|t| t.parse::<LogicalType>())
            .collect::<streamfusion::Result<Vec<_>>>()
            .map_err(|e| NativeError::InvalidPlan(e.to_string()))?;
        let compiled =
            compile(&spec.calc, &input).map_err(|e| NativeError::InvalidPlan(e.to_string()))?;
        Ok(Self {
            spec,
            input,
            compiled,
        })
    }

    /// The input field types.
    pub fn input(&self) -> &[LogicalType] {
        &self.input
    }

    /// The output field types.
    pub fn output(&self) -> &[LogicalType] {
        self.compiled.output_types()
    }

    /// The plan as JSON (what [`Plan::parse`] reads back to an equal plan).
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.spec).expect("a plan always serialises")
    }
}

/// Rows as they cross the boundary: `BinaryRowData` bytes and `rows + 1` offsets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rows {
    /// The rows back to back.
    pub data: Vec<u8>,
    /// Row `i` is `data[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<i32>,
}

impl Rows {
    /// No rows.
    pub fn empty() -> Self {
        Self {
            data: Vec::new(),
            offsets: vec![0],
        }
    }
}

/// The projection/filter operator behind a handle.
#[derive(Debug, Clone)]
pub struct Operator {
    plan: Plan,
    watermark: i64,
    rows_processed: u64,
}

const MAGIC: &[u8; 4] = b"SFOP";
/// The snapshot version [`Operator::snapshot`] writes and [`Operator::restore`] reads.
pub const SNAPSHOT_VERSION: u32 = 1;
const HEADER_LEN: usize = 4 + 4 + 8 + 8 + 4;

impl Operator {
    /// A fresh operator: no watermark yet (`i64::MIN`), no rows processed.
    pub fn new(plan: Plan) -> Self {
        Self {
            plan,
            watermark: i64::MIN,
            rows_processed: 0,
        }
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The current watermark (`i64::MIN` before the first).
    pub fn watermark(&self) -> i64 {
        self.watermark
    }

    /// Input rows pushed so far (carried across snapshot and restore).
    pub fn rows_processed(&self) -> u64 {
        self.rows_processed
    }

    /// Decodes the input rows, filters, projects (keeping row kinds) and encodes the output.
    pub fn push(&mut self, data: &[u8], offsets: &[i32]) -> Result<Rows> {
        let input = rows_to_changelog(data, offsets, self.plan.input())
            .map_err(NativeError::InvalidInput)?;
        let rows = input.num_rows() as u64;
        let output = self
            .plan
            .compiled
            .evaluate(&input)
            .map_err(|e| NativeError::Evaluation(e.to_string()))?;
        let (data, offsets) =
            changelog_to_rows(&output, self.plan.output()).map_err(NativeError::Internal)?;
        self.rows_processed += rows;
        Ok(Rows { data, offsets })
    }

    /// Moves the watermark forward; a watermark below the current one is ignored.
    pub fn advance_watermark(&mut self, watermark: i64) {
        self.watermark = self.watermark.max(watermark);
    }

    /// Emits what is pending: nothing, for this stateless operator.
    pub fn flush(&mut self) -> Rows {
        Rows::empty()
    }

    /// The versioned snapshot documented at the top of this module.
    pub fn snapshot(&self) -> Vec<u8> {
        let plan = self.plan.to_json();
        let mut out = Vec::with_capacity(HEADER_LEN + plan.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
        out.extend_from_slice(&self.watermark.to_le_bytes());
        out.extend_from_slice(&self.rows_processed.to_le_bytes());
        out.extend_from_slice(&(plan.len() as u32).to_le_bytes());
        out.extend_from_slice(plan.as_bytes());
        out
    }

    /// The operator a [`Operator::snapshot`] describes.
    pub fn restore(snapshot: &[u8]) -> Result<Self> {
        let bad = |why: String| NativeError::InvalidSnapshot(why);
        if snapshot.len() < HEADER_LEN {
            return Err(bad(format!(
                "{} bytes is shorter than the {HEADER_LEN}-byte header",
                snapshot.len()
            )));
        }
        let (header, plan) = snapshot.split_at(HEADER_LEN);
        if &header[0..4] != MAGIC {
            return Err(bad(
                "not a StreamFusion operator snapshot (bad magic)".into()
            ));
        }
        let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
        let long = |at: usize| header[at..at + 8].try_into().expect("8 bytes");
        let version = word(4);
        if version != SNAPSHOT_VERSION {
            return Err(bad(format!(
                "version {version} is not the supported version {SNAPSHOT_VERSION}"
            )));
        }
        let watermark = i64::from_le_bytes(long(8));
        let rows_processed = u64::from_le_bytes(long(16));
        let plan_len = word(24) as usize;
        if plan.len() != plan_len {
            return Err(bad(format!(
                "the header announces a {plan_len}-byte plan but {} bytes follow",
                plan.len()
            )));
        }
        let plan = std::str::from_utf8(plan).map_err(|e| bad(format!("plan: {e}")))?;
        let plan = Plan::parse(plan).map_err(|e| bad(e.to_string()))?;
        Ok(Self {
            plan,
            watermark,
            rows_processed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = r#"{"input": ["BIGINT", "VARCHAR(2147483647)", "INT"],
        "calc": {"projection": [{"input": 2}, {"input": 0}],
                 "filter": {"call": {"op": 207, "args": [{"input": 1}]}}}}"#;

    #[test]
    fn plans_with_bad_types_or_expressions_are_rejected_with_the_reason() {
        let err = |json: &str| Plan::parse(json).unwrap_err().to_string();
        assert!(
            err(r#"{"input": ["NOPE"], "calc": {"projection": [{"input": 0}]}}"#).contains("NOPE")
        );
        assert!(
            err(r#"{"input": ["INT"], "calc": {"projection": [{"input": 1}]}}"#)
                .contains("projection[0]: input field 1 does not exist (the input has 1 fields)")
        );
        assert!(
            err(r#"{"input": ["INT"], "calc": {"projection": [{"input": 0}], "filter": {"input": 0}}}"#)
                .contains("filter: expected BOOLEAN, found INT")
        );
        assert!(
            err(r#"{"input": ["INT"], "calc": {"projection": []}, "extra": 1}"#).contains("extra")
        );
        assert!(err("not json").starts_with("invalid plan:"));
    }

    #[test]
    fn pushed_rows_are_computed_and_an_expression_failure_is_an_evaluation_error() {
        // SELECT f0 / f1 with Flink-written rows round-tripped by the native transposes.
        let plan = Plan::parse(
            r#"{"input": ["INT", "INT"],
                "calc": {"projection": [{"call": {"op": 103, "args": [{"input": 0}, {"input": 1}]}}]}}"#,
        )
        .unwrap();
        let mut op = Operator::new(plan.clone());
        let rows = |pairs: &[(i32, i32)]| {
            let batch = arrow::array::RecordBatch::try_from_iter([
                (
                    "a",
                    std::sync::Arc::new(arrow::array::Int32Array::from_iter_values(
                        pairs.iter().map(|p| p.0),
                    )) as _,
                ),
                (
                    "b",
                    std::sync::Arc::new(arrow::array::Int32Array::from_iter_values(
                        pairs.iter().map(|p| p.1),
                    )) as _,
                ),
            ])
            .unwrap();
            changelog_to_rows(
                &streamfusion::changelog::ChangelogBatch::insert_only(batch),
                plan.input(),
            )
            .unwrap()
        };
        let (data, offsets) = rows(&[(7, 2), (-9, 4)]);
        let out = op.push(&data, &offsets).unwrap();
        let decoded = rows_to_changelog(&out.data, &out.offsets, op.plan().output()).unwrap();
        assert_eq!(
            decoded.batch().column(0).as_ref(),
            &arrow::array::Int32Array::from(vec![3, -2]) as &dyn arrow::array::Array
        );
        let (data, offsets) = rows(&[(1, 0)]);
        let err = op.push(&data, &offsets).unwrap_err();
        assert!(matches!(err, NativeError::Evaluation(_)), "{err}");
        assert!(err.to_string().contains("/ by zero"), "{err}");
    }

    #[test]
    fn snapshot_restores_plan_watermark_and_counter() {
        let mut op = Operator::new(Plan::parse(PLAN).unwrap());
        op.advance_watermark(42);
        op.advance_watermark(7);
        op.push(&[], &[0]).unwrap();
        op.rows_processed = 9;
        let restored = Operator::restore(&op.snapshot()).unwrap();
        assert_eq!(restored.plan(), op.plan());
        assert_eq!(restored.watermark(), 42);
        assert_eq!(restored.rows_processed(), 9);
    }

    #[test]
    fn truncated_foreign_or_future_snapshots_are_rejected() {
        let snapshot = Operator::new(Plan::parse(PLAN).unwrap()).snapshot();
        let err = |bytes: &[u8]| Operator::restore(bytes).unwrap_err().to_string();
        assert!(err(&snapshot[..10]).contains("shorter than the 28-byte header"));
        assert!(err(&snapshot[..snapshot.len() - 1]).contains("bytes follow"));
        let mut foreign = snapshot.clone();
        foreign[0] = b'X';
        assert!(err(&foreign).contains("bad magic"));
        let mut future = snapshot;
        future[4] = 2;
        assert!(err(&future).contains("version 2"));
    }
}
