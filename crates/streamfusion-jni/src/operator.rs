//! The operator run behind a handle: a projection with an optional NULL filter, until Calc
//! lands.
//!
//! # Plan
//!
//! A JSON document:
//!
//! ```json
//! {"input": ["BIGINT", "VARCHAR(2147483647)", "INT"], "project": [2, 0],
//!  "filter": {"column": 1, "not_null": true}}
//! ```
//!
//! - `input`: the Flink types of the input row's fields, in Flink's SQL spelling
//!   ([`LogicalType`]'s `FromStr`);
//! - `project`: the input fields that make up an output row, in order (a field may repeat);
//! - `filter` (optional): keep only the rows whose input field `column` is non-NULL
//!   (`not_null: true`) or NULL (`not_null: false`).
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

use arrow::array::{AsArray, BooleanArray, Int8Array, RecordBatch};
use arrow::compute::{filter, filter_record_batch, is_not_null, is_null};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;
use streamfusion_bridge::BridgeError;
use streamfusion_bridge::transpose::{changelog_to_rows, rows_to_changelog};

use crate::error::{NativeError, Result};

/// The filter of a [`Plan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NullFilter {
    /// The input field tested.
    pub column: usize,
    /// Keep non-NULL values (`true`) or NULL values (`false`).
    pub not_null: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanSpec {
    input: Vec<String>,
    project: Vec<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    filter: Option<NullFilter>,
}

/// A validated projection/filter plan (see the module documentation for its JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    spec: PlanSpec,
    input: Vec<LogicalType>,
    output: Vec<LogicalType>,
}

impl Plan {
    /// Parses and validates a plan: every type parses, every field index is in range.
    pub fn parse(json: &str) -> Result<Self> {
        let spec: PlanSpec =
            serde_json::from_str(json).map_err(|e| NativeError::InvalidPlan(e.to_string()))?;
        let input = spec
            .input
            .iter()
            .map(|t| t.parse::<LogicalType>())
            .collect::<streamfusion::Result<Vec<_>>>()
            .map_err(|e| NativeError::InvalidPlan(e.to_string()))?;
        let arity = input.len();
        let out_of_range = |what: &str, column: usize| {
            NativeError::InvalidPlan(format!(
                "{what} column {column} is out of range for an input of {arity} fields"
            ))
        };
        let output = spec
            .project
            .iter()
            .map(|&c| {
                input
                    .get(c)
                    .cloned()
                    .ok_or_else(|| out_of_range("projected", c))
            })
            .collect::<Result<Vec<_>>>()?;
        if let Some(f) = spec.filter
            && f.column >= arity
        {
            return Err(out_of_range("filter", f.column));
        }
        Ok(Self {
            spec,
            input,
            output,
        })
    }

    /// The input field types.
    pub fn input(&self) -> &[LogicalType] {
        &self.input
    }

    /// The output field types.
    pub fn output(&self) -> &[LogicalType] {
        &self.output
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
        let output = self.apply(input).map_err(NativeError::Internal)?;
        let (data, offsets) =
            changelog_to_rows(&output, self.plan.output()).map_err(NativeError::Internal)?;
        self.rows_processed += rows;
        Ok(Rows { data, offsets })
    }

    fn apply(&self, input: ChangelogBatch) -> streamfusion_bridge::Result<ChangelogBatch> {
        let (batch, kinds) = input.into_parts();
        let (batch, kinds) = match self.plan.spec.filter {
            None => (batch, kinds),
            Some(f) => {
                let column = batch.column(f.column);
                let keep: BooleanArray = if f.not_null {
                    is_not_null(column)?
                } else {
                    is_null(column)?
                };
                let kinds = kinds
                    .map(|k| -> streamfusion_bridge::Result<Int8Array> {
                        Ok(filter(&k, &keep)?.as_primitive().clone())
                    })
                    .transpose()?;
                (filter_record_batch(&batch, &keep)?, kinds)
            }
        };
        let projected: RecordBatch = batch.project(&self.plan.spec.project)?;
        // After a filter an all-`+I` remainder may still carry kinds; that is valid.
        debug_assert!(
            kinds
                .as_ref()
                .is_none_or(|k| k.len() == projected.num_rows())
        );
        ChangelogBatch::try_new(projected, kinds).map_err(BridgeError::Engine)
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

    const PLAN: &str = r#"{"input": ["BIGINT", "VARCHAR(2147483647)", "INT"], "project": [2, 0],
        "filter": {"column": 1, "not_null": true}}"#;

    #[test]
    fn plans_with_bad_types_or_columns_are_rejected_with_the_reason() {
        let err = |json: &str| Plan::parse(json).unwrap_err().to_string();
        assert!(err(r#"{"input": ["NOPE"], "project": [0]}"#).contains("NOPE"));
        assert!(
            err(r#"{"input": ["INT"], "project": [1]}"#)
                .contains("projected column 1 is out of range for an input of 1 fields")
        );
        assert!(
            err(r#"{"input": ["INT"], "project": [0], "filter": {"column": 3, "not_null": true}}"#)
                .contains("filter column 3")
        );
        assert!(err(r#"{"input": ["INT"], "project": [0], "extra": 1}"#).contains("extra"));
        assert!(err("not json").starts_with("invalid plan:"));
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
