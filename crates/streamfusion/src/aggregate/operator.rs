//! The GROUP BY operators behind [`Operator`]: thin calls into their own `process`,
//! `flush` and `checkpoint`. Like Flink's bundle operators, a mini-batch operator applies
//! its bundle on every watermark before passing it on.

use std::path::Path;

use arrow::datatypes::SchemaRef;

use super::{GlobalGroupAggregate, GroupAggregate, LocalGroupAggregate};
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::ops::{self, Operator, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::types::LogicalType;

impl Operator for GroupAggregate {
    fn identity(&self) -> &PlanIdentity {
        self.identity()
    }

    fn input_types(&self, _port: Port) -> &[LogicalType] {
        &self.spec().input_types
    }

    fn output_types(&self) -> &[LogicalType] {
        GroupAggregate::output_types(self)
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema().clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        ops::expect_one_input(self.identity().kind, port)?;
        out.emit(GroupAggregate::process(self, input)?);
        Ok(())
    }

    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        out.emit(GroupAggregate::flush(self)?);
        self.keyed_mut().advance_watermark(watermark);
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.keyed().watermark()
    }

    fn flush(&mut self, out: &mut Output) -> Result<()> {
        out.emit(GroupAggregate::flush(self)?);
        Ok(())
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        GroupAggregate::checkpoint(self, target)
    }

    fn memory_bytes(&self) -> u64 {
        self.keyed().memory_bytes()
    }
}

/// The global phase reads partial rows: batches of the partial schema, all `+I`.
impl Operator for GlobalGroupAggregate {
    fn identity(&self) -> &PlanIdentity {
        self.identity()
    }

    fn input_types(&self, _port: Port) -> &[LogicalType] {
        self.partial_types()
    }

    fn output_types(&self) -> &[LogicalType] {
        GlobalGroupAggregate::output_types(self)
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema().clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        ops::expect_one_input(self.identity().kind, port)?;
        if !input.is_insert_only() {
            return Err(Error::InvalidShape(
                "partial rows of a two-phase aggregate are all +I".into(),
            ));
        }
        out.emit(GlobalGroupAggregate::process(self, input.batch())?);
        Ok(())
    }

    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        out.emit(GlobalGroupAggregate::flush(self)?);
        self.keyed_mut().advance_watermark(watermark);
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.keyed().watermark()
    }

    fn flush(&mut self, out: &mut Output) -> Result<()> {
        out.emit(GlobalGroupAggregate::flush(self)?);
        Ok(())
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        GlobalGroupAggregate::checkpoint(self, target)
    }

    fn memory_bytes(&self) -> u64 {
        self.keyed().memory_bytes()
    }
}

/// The local phase emits its partial rows as `+I` batches. It keeps no keyed state: its
/// checkpoint holds the watermark, and its bundle is emitted before every barrier.
impl Operator for LocalGroupAggregate {
    fn identity(&self) -> &PlanIdentity {
        self.identity()
    }

    fn input_types(&self, _port: Port) -> &[LogicalType] {
        &self.spec().input_types
    }

    fn output_types(&self) -> &[LogicalType] {
        self.partial_types()
    }

    fn output_schema(&self) -> SchemaRef {
        self.partial_schema().clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        ops::expect_one_input(self.identity().kind, port)?;
        let partials = LocalGroupAggregate::process(self, input)?;
        out.emit(ChangelogBatch::insert_only(partials));
        Ok(())
    }

    fn advance_watermark(&mut self, watermark: i64, out: &mut Output) -> Result<()> {
        Operator::flush(self, out)?;
        if self.watermark.is_none_or(|w| w < watermark) {
            self.watermark = Some(watermark);
        }
        Ok(())
    }

    fn watermark(&self) -> Option<i64> {
        self.watermark
    }

    fn flush(&mut self, out: &mut Output) -> Result<()> {
        out.emit(ChangelogBatch::insert_only(LocalGroupAggregate::flush(
            self,
        )?));
        Ok(())
    }

    fn checkpoint(&mut self, target: &Path) -> Result<Checkpoint> {
        self.expect_no_pending()?;
        ops::checkpoint_stateless(target, self.identity(), self.watermark)
    }

    fn memory_bytes(&self) -> u64 {
        0
    }
}
