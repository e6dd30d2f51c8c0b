//! Upcalls: a call Calc has no kernel for, evaluated by the host once per batch.
//!
//! In a Flink job the host is the JVM: the planner extension generated Flink's own code for
//! the call ([`UpcallDef::call`], Flink's RexNode JSON over the arguments as input fields), and
//! [`UpcallHost::evaluate`] hands it the argument columns of the rows that reach the call and
//! takes its result column back. The rest of the program stays native. A program with upcalls
//! compiles without a host; one is bound with [`super::CompiledCalc::bind_upcalls`] before the
//! first batch, and evaluating without it is an error.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use arrow::array::{Array, ArrayRef, RecordBatch, new_empty_array};
use arrow::datatypes::{DataType, Schema};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::ColumnarValue;
use datafusion::physical_expr::PhysicalExpr;
use serde::{Deserialize, Serialize};

use crate::types::LogicalType;

/// What the host needs to evaluate an upcall ([`super::CalcProgram::upcalls`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpcallDef {
    /// The function's name as Flink calls it (`$SIN$1`, a user function's name), for errors.
    pub function: String,
    /// The call as Flink's RexNode JSON, its non-literal operands replaced by the input fields
    /// `0..n` (typed as the operands were): the upcall's arguments, in order.
    pub call: serde_json::Value,
}

/// Evaluates upcalls: the JVM running Flink's generated code in a job, a model in tests.
pub trait UpcallHost: Send + Sync + fmt::Debug {
    /// Upcall `index` over `rows` rows of `args` (one column each, of `arg_types`): its result
    /// column of type `ty` (`rows` values), or the host's message why it failed.
    fn evaluate(
        &self,
        index: usize,
        args: &[ArrayRef],
        arg_types: &[LogicalType],
        ty: &LogicalType,
        rows: usize,
    ) -> std::result::Result<ArrayRef, String>;
}

/// The host a compiled program's upcalls call, bound once after compiling.
#[derive(Debug, Default)]
pub(crate) struct UpcallSlot(OnceLock<Arc<dyn UpcallHost>>);

impl UpcallSlot {
    /// Binds `host`; `false` if one was bound already (which stays).
    pub(crate) fn bind(&self, host: Arc<dyn UpcallHost>) -> bool {
        self.0.set(host).is_ok()
    }
}

/// The physical expression of an upcall.
#[derive(Debug)]
pub(crate) struct UpcallExpr {
    pub(crate) index: usize,
    pub(crate) function: String,
    pub(crate) args: Vec<Arc<dyn PhysicalExpr>>,
    pub(crate) arg_types: Vec<LogicalType>,
    pub(crate) ty: LogicalType,
    pub(crate) slot: Arc<UpcallSlot>,
}

impl PartialEq for UpcallExpr {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
            && self.function == other.function
            && self.args == other.args
            && self.ty == other.ty
            && Arc::ptr_eq(&self.slot, &other.slot)
    }
}

impl Eq for UpcallExpr {}

impl Hash for UpcallExpr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.index.hash(state);
        self.function.hash(state);
        self.args.hash(state);
    }
}

impl fmt::Display for UpcallExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "upcall#{} {}(", self.index, self.function)?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{a}")?;
        }
        write!(f, ")")
    }
}

impl PhysicalExpr for UpcallExpr {
    fn data_type(&self, _: &Schema) -> Result<DataType> {
        Ok(self.ty.to_arrow())
    }

    fn nullable(&self, _: &Schema) -> Result<bool> {
        Ok(true)
    }

    fn evaluate(&self, batch: &RecordBatch) -> Result<ColumnarValue> {
        let rows = batch.num_rows();
        let expected = self.ty.to_arrow();
        if rows == 0 {
            return Ok(ColumnarValue::Array(new_empty_array(&expected)));
        }
        let host = self.slot.0.get().ok_or_else(|| {
            DataFusionError::Execution(format!(
                "{} has no host to call: the program was compiled with upcalls and never bound \
                 to one",
                self.function
            ))
        })?;
        let args = self
            .args
            .iter()
            .map(|a| a.evaluate(batch)?.into_array(rows))
            .collect::<Result<Vec<_>>>()?;
        let result = host
            .evaluate(self.index, &args, &self.arg_types, &self.ty, rows)
            .map_err(|message| {
                DataFusionError::Execution(format!("{} (upcall): {message}", self.function))
            })?;
        if result.len() != rows || result.data_type() != &expected {
            return Err(DataFusionError::Execution(format!(
                "{} (upcall): the host returned {} values of {}, not {rows} of {expected}",
                self.function,
                result.len(),
                result.data_type()
            )));
        }
        Ok(ColumnarValue::Array(result))
    }

    fn children(&self) -> Vec<&Arc<dyn PhysicalExpr>> {
        self.args.iter().collect()
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn PhysicalExpr>>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        if children.len() != self.args.len() {
            return Err(DataFusionError::Internal(format!(
                "{} takes {} arguments, not {}",
                self.function,
                self.args.len(),
                children.len()
            )));
        }
        Ok(Arc::new(UpcallExpr {
            index: self.index,
            function: self.function.clone(),
            args: children,
            arg_types: self.arg_types.clone(),
            ty: self.ty.clone(),
            slot: Arc::clone(&self.slot),
        }))
    }

    fn fmt_sql(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}
