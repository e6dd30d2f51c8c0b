//! AND/OR that evaluate their right operand only for the rows that need it.
//!
//! Flink's generated code short-circuits per row: `a AND b` evaluates `b` only where `a` is
//! not FALSE, `a OR b` only where `a` is not TRUE. So `x <> 0 AND 10 / x > 1` never divides by
//! zero. DataFusion's `BinaryExpr` evaluates the right side for every row unless the left side
//! decides the whole batch, which would raise errors Flink never raises.

use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

use arrow::array::{Array, AsArray, BooleanArray, RecordBatch};
use arrow::compute::kernels::boolean::{and_kleene, not, or_kleene};
use arrow::compute::{filter_record_batch, is_not_null};
use arrow::datatypes::{DataType, Schema};
use datafusion::common::ScalarValue;
use datafusion::error::Result;
use datafusion::logical_expr::ColumnarValue;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::utils::scatter;

/// `left AND right` or `left OR right` with per-row short-circuiting.
#[derive(Debug, Eq)]
pub struct LazyLogic {
    left: Arc<dyn PhysicalExpr>,
    right: Arc<dyn PhysicalExpr>,
    and: bool,
}

impl PartialEq for LazyLogic {
    fn eq(&self, other: &Self) -> bool {
        self.and == other.and && self.left.eq(&other.left) && self.right.eq(&other.right)
    }
}

impl Hash for LazyLogic {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.left.hash(state);
        self.right.hash(state);
        self.and.hash(state);
    }
}

impl LazyLogic {
    /// `left AND right` (`and`) or `left OR right`.
    pub fn new(left: Arc<dyn PhysicalExpr>, right: Arc<dyn PhysicalExpr>, and: bool) -> Self {
        Self { left, right, and }
    }

    fn combine(&self, l: &BooleanArray, r: &BooleanArray) -> Result<BooleanArray> {
        Ok(if self.and {
            and_kleene(l, r)?
        } else {
            or_kleene(l, r)?
        })
    }
}

impl fmt::Display for LazyLogic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = if self.and { "AND" } else { "OR" };
        write!(f, "({} {op} {})", self.left, self.right)
    }
}

impl PhysicalExpr for LazyLogic {
    fn data_type(&self, _: &Schema) -> Result<DataType> {
        Ok(DataType::Boolean)
    }

    fn nullable(&self, schema: &Schema) -> Result<bool> {
        Ok(self.left.nullable(schema)? || self.right.nullable(schema)?)
    }

    fn evaluate(&self, batch: &RecordBatch) -> Result<ColumnarValue> {
        let rows = batch.num_rows();
        let left = self.left.evaluate(batch)?;
        // A scalar left side decides every row alike.
        if let ColumnarValue::Scalar(ScalarValue::Boolean(Some(v))) = &left
            && *v != self.and
        {
            return Ok(left);
        }
        let left = left.into_array(rows)?;
        let left = left.as_boolean();
        // Rows whose result the left side does not decide: not FALSE for AND, not TRUE for OR.
        let decided = if self.and { not(left)? } else { left.clone() };
        let undecided = match decided.nulls() {
            // NULL left values are undecided too.
            Some(_) => or_kleene(&not(&decided)?, &not(&is_not_null(&decided)?)?)?,
            None => not(&decided)?,
        };
        let needed = undecided.true_count();
        if needed == 0 {
            return Ok(ColumnarValue::Array(Arc::new(left.clone())));
        }
        let right = if needed == rows {
            self.right.evaluate(batch)?.into_array(rows)?
        } else {
            let selected = filter_record_batch(batch, &undecided)?;
            let right = self.right.evaluate(&selected)?.into_array(needed)?;
            scatter(&undecided, right.as_ref())?
        };
        Ok(ColumnarValue::Array(Arc::new(
            self.combine(left, right.as_boolean())?,
        )))
    }

    fn children(&self) -> Vec<&Arc<dyn PhysicalExpr>> {
        vec![&self.left, &self.right]
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn PhysicalExpr>>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        let [left, right]: [Arc<dyn PhysicalExpr>; 2] = children.try_into().map_err(|_| {
            datafusion::error::DataFusionError::Internal("AND/OR has two children".into())
        })?;
        Ok(Arc::new(LazyLogic::new(left, right, self.and)))
    }

    fn fmt_sql(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}
