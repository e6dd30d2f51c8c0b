//! The window TVFs' rows: Flink's `AlignedWindowTableFunctionOperator`, the plan of
//! `SELECT ... FROM TABLE(TUMBLE|HOP|CUMULATE(TABLE t, DESCRIPTOR(ts), ...))` when no window
//! aggregate takes the TVF in (a window Top-N, deduplication or join reads its rows, or the
//! query selects them).
//!
//! Each row is repeated once per window holding its time, in the assigner's order (HOP:
//! the latest start first; CUMULATE: the smallest window first), with `window_start`,
//! `window_end` (TIMESTAMP(3)) and `window_time` (`window_end - 1`, of the time
//! attribute's type) appended and its row kind kept. A row whose time is NULL is dropped
//! (`numNullRowTimeRecordsDropped`). Nothing is late here: the operator keeps no state, and
//! its checkpoint holds the watermark.
//!
//! Over a TIMESTAMP_LTZ(3) time attribute, windows are computed on the local time of the
//! session time zone: `window_start` and `window_end` are local times, `window_time` the
//! instant of `window_end - 1` ([`WindowClock`]).

use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, TimestampMillisecondArray, UInt32Array};
use arrow::datatypes::{Field, Int8Type, Schema, SchemaRef, TimestampMillisecondType};

use crate::aggregate::group::check_columns;
use crate::changelog::ChangelogBatch;
use crate::error::{Error, Result};
use crate::ops::{self, Operator, OperatorKind, Output, PlanIdentity, Port};
use crate::state::checkpoint::Checkpoint;
use crate::types::LogicalType;
use crate::window::slices::SliceAssigner;
use crate::window::{TimeWindow, WindowAssigner};
use crate::window_clock::WindowClock;

/// The version of the window TVF's checkpoints (metadata and watermark only).
pub const STATE_VERSION: u32 = 1;

/// A window TVF, as JSON: `{"input_names": ["k", "ts"], "input_types": ["INT",
/// "TIMESTAMP(3)"], "time_column": 1, "window": {"kind": "hop", "size": 3000, "slide": 1000,
/// "offset": 0}}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowTableSpec {
    /// Input column names (the output's, before the window columns).
    pub input_names: Vec<String>,
    /// Input column types.
    pub input_types: Vec<LogicalType>,
    /// The time attribute column: TIMESTAMP(3) or TIMESTAMP_LTZ(3).
    pub time_column: usize,
    /// The TVF and its parameters.
    pub window: SliceAssigner,
    /// The session time zone of windows over a TIMESTAMP_LTZ time attribute
    /// ([`WindowClock`]); `None` is UTC.
    #[serde(default)]
    pub time_zone: Option<String>,
}

impl WindowTableSpec {
    /// The output types: the input's, then `window_start`, `window_end` (TIMESTAMP(3)) and
    /// `window_time` (the time attribute's type).
    fn output_types(&self) -> Vec<LogicalType> {
        let mut types = self.input_types.clone();
        types.push(LogicalType::Timestamp(3));
        types.push(LogicalType::Timestamp(3));
        types.push(self.input_types[self.time_column].clone());
        types
    }
}

/// The window TVF as an operator.
#[derive(Debug)]
pub struct WindowTableFunction {
    spec: WindowTableSpec,
    assigner: WindowAssigner,
    identity: PlanIdentity,
    schema: SchemaRef,
    output_types: Vec<LogicalType>,
    clock: WindowClock,
    watermark: Option<i64>,
    null_times_dropped: u64,
}

impl WindowTableFunction {
    /// The plan's identity, as its checkpoints record it.
    pub fn identity_of(spec: &WindowTableSpec) -> PlanIdentity {
        let semantics = serde_json::json!({
            "input_types": spec.input_types.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "time_column": spec.time_column,
            "window": spec.window,
            "time_zone": spec.time_zone,
        });
        PlanIdentity::new(OperatorKind::WindowTableFunction, STATE_VERSION, &semantics)
    }

    /// The operator for `spec`; a time column that is not TIMESTAMP(3) or TIMESTAMP_LTZ(3),
    /// or a window Flink's assigners refuse, is an error.
    pub fn new(spec: WindowTableSpec) -> Result<Self> {
        let columns = spec.input_types.len();
        if spec.input_names.len() != columns {
            return Err(Error::Plan(format!(
                "{} input names for {columns} input types",
                spec.input_names.len()
            )));
        }
        match spec.input_types.get(spec.time_column) {
            Some(LogicalType::Timestamp(3) | LogicalType::TimestampLtz(3)) => {}
            Some(other) => {
                return Err(Error::Plan(format!(
                    "the time column {} is {other}, not TIMESTAMP(3) or TIMESTAMP_LTZ(3)",
                    spec.time_column
                )));
            }
            None => {
                return Err(Error::Plan(format!(
                    "time column {} is out of range for {columns} input columns",
                    spec.time_column
                )));
            }
        }
        spec.window.validate()?;
        let assigner = match spec.window {
            SliceAssigner::Tumble { size, offset } => WindowAssigner::tumble(size, offset)?,
            SliceAssigner::Hop {
                size,
                slide,
                offset,
            } => WindowAssigner::hop(size, slide, offset)?,
            SliceAssigner::Cumulate {
                max_size,
                step,
                offset,
            } => WindowAssigner::cumulate(max_size, step, offset)?,
        };
        let output_types = spec.output_types();
        let names = spec.input_names.iter().map(String::as_str).chain([
            "window_start",
            "window_end",
            "window_time",
        ]);
        let fields: Vec<Field> = names
            .zip(&output_types)
            .enumerate()
            .map(|(i, (name, ty))| Field::new(name, ty.to_arrow(), i < columns))
            .collect();
        Ok(Self {
            identity: Self::identity_of(&spec),
            schema: Arc::new(Schema::new(fields)),
            output_types,
            assigner,
            clock: WindowClock::new(spec.time_zone.as_deref())?,
            spec,
            watermark: None,
            null_times_dropped: 0,
        })
    }

    /// A window TVF resuming from `checkpoints` (their lowest watermark).
    pub fn restore(spec: WindowTableSpec, checkpoints: &[Checkpoint]) -> Result<Self> {
        let mut op = Self::new(spec)?;
        op.watermark = ops::restore_stateless(&op.identity, checkpoints)?;
        Ok(op)
    }

    /// Rows dropped for a NULL time since the operator opened.
    pub fn null_times_dropped(&self) -> u64 {
        self.null_times_dropped
    }

    fn windows(&mut self, input: &ChangelogBatch) -> Result<ChangelogBatch> {
        check_columns(
            "window TVF input batch",
            &self.spec.input_types,
            input.batch(),
        )?;
        let batch = input.batch();
        let times = batch
            .column(self.spec.time_column)
            .as_primitive::<TimestampMillisecondType>();
        let (mut rows, mut starts, mut ends) = (Vec::new(), Vec::new(), Vec::new());
        let mut windows: Vec<TimeWindow> = Vec::new();
        for row in 0..batch.num_rows() {
            if times.is_null(row) {
                self.null_times_dropped += 1;
                continue;
            }
            windows.clear();
            self.assigner
                .assign(self.clock.local(times.value(row)), &mut windows);
            for w in &windows {
                rows.push(row as u32);
                starts.push(w.start);
                ends.push(w.end);
            }
        }
        let take = UInt32Array::from(rows);
        let mut columns: Vec<ArrayRef> = batch
            .columns()
            .iter()
            .map(|c| arrow::compute::take(c.as_ref(), &take, None))
            .collect::<std::result::Result<_, _>>()?;
        let window_time = TimestampMillisecondArray::from_iter_values(
            ends.iter()
                .map(|&e: &i64| self.clock.instant(e.wrapping_sub(1))),
        );
        let window_time = match &self.spec.input_types[self.spec.time_column] {
            LogicalType::TimestampLtz(_) => window_time.with_timezone("UTC"),
            _ => window_time,
        };
        columns.push(Arc::new(TimestampMillisecondArray::from(starts)));
        columns.push(Arc::new(TimestampMillisecondArray::from(ends)));
        columns.push(Arc::new(window_time));
        let kinds = input
            .kinds()
            .map(|k| arrow::compute::take(k, &take, None))
            .transpose()?
            .map(|k| k.as_primitive::<Int8Type>().clone());
        ChangelogBatch::try_new(RecordBatch::try_new(self.schema.clone(), columns)?, kinds)
    }
}

impl Operator for WindowTableFunction {
    fn identity(&self) -> &PlanIdentity {
        &self.identity
    }

    fn input_types(&self, _port: Port) -> &[LogicalType] {
        &self.spec.input_types
    }

    fn output_types(&self) -> &[LogicalType] {
        &self.output_types
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn process(&mut self, port: Port, input: &ChangelogBatch, out: &mut Output) -> Result<()> {
        ops::expect_one_input(self.identity.kind, port)?;
        out.emit(self.windows(input)?);
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
        ops::checkpoint_stateless(target, &self.identity, self.watermark)
    }

    fn memory_bytes(&self) -> u64 {
        0
    }
}
