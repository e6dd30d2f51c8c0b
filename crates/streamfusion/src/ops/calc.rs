//! Calc behind [`Operator`]: a compiled program over each batch, row kinds kept. Calc keeps
//! no state; its checkpoint holds the watermark.

use std::path::Path;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use serde::Serialize;

use super::{OperatorKind, Output, PlanIdentity, Port};
use crate::calc::{CalcProgram, CompiledCalc, UpcallHost, compile};
use crate::changelog::ChangelogBatch;
use crate::error::Result;
use crate::state::checkpoint::Checkpoint;
use crate::types::LogicalType;

/// The version of Calc's checkpoints (metadata and watermark only).
pub const CALC_VERSION: u32 = 1;

/// Projections and a filter as an operator.
#[derive(Debug)]
pub struct CalcOperator {
    compiled: CompiledCalc,
    identity: PlanIdentity,
    watermark: Option<i64>,
}

#[derive(Serialize)]
struct Semantics<'a> {
    input: &'a [LogicalType],
    calc: &'a CalcProgram,
}

impl CalcOperator {
    /// `program` compiled against rows of `input` types.
    pub fn new(input: &[LogicalType], program: &CalcProgram) -> Result<Self> {
        let compiled = compile(program, input)?;
        Ok(Self {
            compiled,
            identity: Self::identity_of(input, program),
            watermark: None,
        })
    }

    /// The identity of the plan `program` over `input`: the program itself, as a Calc's
    /// checkpoint only records which plan it belongs to.
    pub fn identity_of(input: &[LogicalType], program: &CalcProgram) -> PlanIdentity {
        PlanIdentity::new(
            OperatorKind::Calc,
            CALC_VERSION,
            &Semantics {
                input,
                calc: program,
            },
        )
    }

    /// A Calc resuming from `checkpoints` (their lowest watermark).
    pub fn restore(
        input: &[LogicalType],
        program: &CalcProgram,
        checkpoints: &[Checkpoint],
    ) -> Result<Self> {
        let mut op = Self::new(input, program)?;
        op.watermark = super::restore_stateless(&op.identity, checkpoints)?;
        Ok(op)
    }

    /// The compiled program.
    pub fn compiled(&self) -> &CompiledCalc {
        &self.compiled
    }
}

impl super::Operator for CalcOperator {
    fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    fn has_upcalls(&self) -> bool {
        self.compiled.has_upcalls()
    }

    fn bind_upcalls(&mut self, host: Arc<dyn UpcallHost>) -> Result<()> {
        Ok(self.compiled.bind_upcalls(host)?)
    }

    fn input_types(&self, _port: Port) -> &[LogicalType] {
        self.compiled.input_types()
    }

    fn output_types(&self) -> &[LogicalType] {
        self.compiled.output_types()
    }

    fn output_schema(&self) -> SchemaRef {
        self.compiled.output_schema().clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        super::expect_one_input(OperatorKind::Calc, port)?;
        out.emit(self.compiled.evaluate(input)?);
        Ok(())
    }

    fn advance_watermark(&mut self, watermark: i64, _out: &mut Output) -> Result<()> {
        if self.watermark.is_none_or(|w| w < watermark) {
            self.watermark = Some(watermark);
        }
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.watermark
    }

    fn flush(&mut self, _out: &mut Output) -> Result<()> {
        Ok(())
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        super::checkpoint_stateless(target, &self.identity, self.watermark)
    }

    fn memory_bytes(&self) -> u64 {
        0
    }
}
