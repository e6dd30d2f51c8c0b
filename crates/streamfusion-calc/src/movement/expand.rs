//! Grouping sets: Flink's `ExpandOperator`.
//!
//! The planner rewrites `GROUP BY GROUPING SETS ((a, b), (a), ())` into an Expand with one
//! projection list per set: the grouping columns of the set, NULL literals for the others,
//! and the set's id (`$e`) as a literal. Each input row is emitted once per list, in list
//! order, before the next input row, with its row kind.

use arrow::array::{ArrayRef, RecordBatch};
use arrow::compute::interleave;

use crate::calc::{CalcError, CalcProgram, CompiledCalc, compile};
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::types::LogicalType;

/// A compiled Expand: projection lists with one output type.
#[derive(Debug, Clone)]
pub struct Expand {
    lists: Vec<CompiledCalc>,
}

impl Expand {
    /// Compiles the projection lists (Calc programs without filters) against `input`. Every
    /// list must produce the same types: the Expand's single output row type.
    pub fn new(lists: &[CalcProgram], input: &[LogicalType]) -> Result<Self> {
        if lists.is_empty() {
            return Err(Error::InvalidShape(
                "an Expand needs at least one projection list".into(),
            ));
        }
        let lists = lists
            .iter()
            .enumerate()
            .map(|(i, program)| {
                if program.filter.is_some() {
                    return Err(Error::InvalidShape(format!(
                        "Expand projection list {i} has a filter; lists only project"
                    )));
                }
                Ok(compile(program, input)?)
            })
            .collect::<Result<Vec<_>>>()?;
        let first = lists[0].output_types();
        if let Some((i, other)) = lists
            .iter()
            .enumerate()
            .find(|(_, l)| l.output_types() != first)
        {
            return Err(Error::InvalidShape(format!(
                "Expand projection list {i} produces [{}] but list 0 produces [{}]",
                join(other.output_types()),
                join(first)
            )));
        }
        Ok(Self { lists })
    }

    /// The output field types.
    pub fn output_types(&self) -> &[LogicalType] {
        self.lists[0].output_types()
    }

    /// Every input row once per projection list: row 0 list 0, row 0 list 1, ..., row 1 list 0.
    pub fn evaluate(&self, input: &ChangelogBatch) -> Result<ChangelogBatch> {
        let outputs = self
            .lists
            .iter()
            .map(|l| l.evaluate(input))
            .collect::<Result<Vec<_>, CalcError>>()?;
        let (rows, n) = (input.num_rows(), self.lists.len());
        let order: Vec<(usize, usize)> = (0..rows)
            .flat_map(|row| (0..n).map(move |list| (list, row)))
            .collect();
        let schema = outputs[0].batch().schema();
        let columns = (0..schema.fields().len())
            .map(|c| {
                let parts: Vec<&dyn arrow::array::Array> = outputs
                    .iter()
                    .map(|o| o.batch().column(c).as_ref())
                    .collect();
                interleave(&parts, &order)
            })
            .collect::<Result<Vec<ArrayRef>, _>>()?;
        let batch = RecordBatch::try_new_with_options(
            schema,
            columns,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(order.len())),
        )?;
        let kinds = input.kinds().map(|k| {
            arrow::array::Int8Array::from_iter_values(order.iter().map(|&(_, row)| k.value(row)))
        });
        ChangelogBatch::try_new(batch, kinds)
    }
}

fn join(types: &[LogicalType]) -> String {
    types
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
