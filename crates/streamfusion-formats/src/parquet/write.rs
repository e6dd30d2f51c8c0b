//! [`FlinkParquetWriter`]: Arrow batches into a Parquet file as Flink's
//! `ParquetRowDataWriter` writes them.
//!
//! Every column except INT96 timestamps goes through parquet-rs's Arrow column writers
//! (`get_column_writers` + `compute_leaves`), with the file schema of
//! [`flink_message_type`](super::flink_message_type) instead of the one parquet-rs would
//! derive. parquet-rs cannot write INT96 from Arrow, so an INT96 leaf's definition and
//! repetition levels are computed here (Flink's record shredding of the `ROW`/`ARRAY`/`MAP`
//! nesting) and written through the typed low-level column writer. Both kinds of chunk are
//! appended to the same row group in schema order.
//!
//! Flink's value rules that differ from a plain Arrow write:
//! - a `MAP` entry with a NULL key is written as an empty entry: NULL key *and* NULL value
//!   (`MapWriter` skips the value when the key is NULL);
//! - timestamps: INT96 or INT64 per [`ParquetWriteOptions`], see [`super::timestamp`].

use std::io::Write;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int64Array, ListArray, RecordBatch, StructArray};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{
    DataType, Field, Fields, Schema, SchemaRef, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use arrow::error::ArrowError;
use chrono::FixedOffset;
use parquet::arrow::arrow_writer::{ArrowColumnWriter, ArrowRowGroupWriterFactory, compute_leaves};
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::data_type::Int96Type;
use parquet::errors::ParquetError;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::SchemaDescriptor;
use streamfusion_core::types::{LogicalType, RowField, row_arrow_fields};

use super::FORMAT;
use super::schema::flink_message_type;
use super::timestamp::{self, FlinkTimestamp, TimestampUnit, TimestampZone};
use crate::error::{FormatError, Result};

/// The codec of `parquet.compression` (Flink's default: `SNAPPY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParquetCompression {
    /// `UNCOMPRESSED`
    Uncompressed,
    /// `SNAPPY`
    #[default]
    Snappy,
    /// `GZIP` (parquet-mr's default level 6)
    Gzip,
    /// `ZSTD` (parquet-mr's default level 3)
    Zstd,
    /// `BROTLI`
    Brotli,
    /// `LZ4_RAW`
    Lz4Raw,
}

impl ParquetCompression {
    /// Parses `parquet.compression` (parquet-mr's `CompressionCodecName`, case-insensitive).
    /// `LZO` and the Hadoop-framed `LZ4` are refused: parquet-rs has no writer for them.
    pub fn parse(text: &str) -> Result<Self> {
        Ok(match text.to_ascii_uppercase().as_str() {
            "UNCOMPRESSED" => Self::Uncompressed,
            "SNAPPY" => Self::Snappy,
            "GZIP" => Self::Gzip,
            "ZSTD" => Self::Zstd,
            "BROTLI" => Self::Brotli,
            "LZ4_RAW" => Self::Lz4Raw,
            "LZO" | "LZ4" => {
                return Err(FormatError::Unsupported {
                    format: FORMAT,
                    problem: format!("compression codec {text} has no native writer"),
                });
            }
            _ => {
                return Err(FormatError::Option {
                    key: "parquet.compression".into(),
                    problem: format!("unknown codec `{text}`"),
                });
            }
        })
    }

    fn codec(self) -> Result<Compression> {
        Ok(match self {
            Self::Uncompressed => Compression::UNCOMPRESSED,
            Self::Snappy => Compression::SNAPPY,
            Self::Gzip => Compression::GZIP(GzipLevel::try_new(6).map_err(parquet_error)?),
            Self::Zstd => Compression::ZSTD(ZstdLevel::try_new(3).map_err(parquet_error)?),
            Self::Brotli => Compression::BROTLI(Default::default()),
            Self::Lz4Raw => Compression::LZ4_RAW,
        })
    }
}

/// The writer's options.
#[derive(Debug, Clone, PartialEq)]
pub struct ParquetWriteOptions {
    /// `parquet.utc-timezone` (Flink's default `false`).
    pub utc_timezone: bool,
    /// The JVM's default zone when `utc_timezone` is `false`; required then if the row
    /// type has a timestamp. Only a fixed offset is reproduced exactly (a region zone's
    /// DST gaps and overlaps go through `java.util`'s legacy calendar and are not).
    pub local_time_zone: Option<FixedOffset>,
    /// `parquet.write.int64.timestamp` (`false`: INT96, Flink's default).
    pub write_int64_timestamp: bool,
    /// `parquet.timestamp.time.unit` for INT64 timestamps (default `micros`).
    pub timestamp_unit: TimestampUnit,
    /// `parquet.compression`.
    pub compression: ParquetCompression,
    /// Rows per row group (parquet-mr bounds row groups by `parquet.block.size` bytes,
    /// 128 MiB; parquet-rs by rows).
    pub max_row_group_rows: usize,
    /// `parquet.enable.dictionary` (default `true`).
    pub dictionary: bool,
    /// `parquet.page.size` in bytes (default 1 MiB).
    pub page_size: usize,
}

impl Default for ParquetWriteOptions {
    fn default() -> Self {
        Self {
            utc_timezone: false,
            local_time_zone: None,
            write_int64_timestamp: false,
            timestamp_unit: TimestampUnit::Micros,
            compression: ParquetCompression::Snappy,
            max_row_group_rows: 1024 * 1024,
            dictionary: true,
            page_size: 1024 * 1024,
        }
    }
}

impl ParquetWriteOptions {
    /// `utc-timezone = true`, everything else Flink's default.
    pub fn utc() -> Self {
        Self {
            utc_timezone: true,
            ..Self::default()
        }
    }

    /// The zone timestamps are converted in, if the row type has timestamps.
    pub(crate) fn zone(&self, fields: &[RowField]) -> Result<TimestampZone> {
        resolve_zone(self.utc_timezone, self.local_time_zone, fields)
    }
}

pub(crate) fn resolve_zone(
    utc: bool,
    local: Option<FixedOffset>,
    fields: &[RowField],
) -> Result<TimestampZone> {
    if utc {
        return Ok(TimestampZone::Utc);
    }
    match local {
        Some(offset) => Ok(TimestampZone::Fixed(offset)),
        None if fields.iter().any(|f| has_timestamp(&f.ty)) => Err(FormatError::Unsupported {
            format: FORMAT,
            problem: "timestamps with `parquet.utc-timezone` = false are converted in the JVM's \
                      default time zone; give it as a fixed offset (`local_time_zone`) or set \
                      `parquet.utc-timezone` = true"
                .into(),
        }),
        // No timestamp: the zone is never used.
        None => Ok(TimestampZone::Utc),
    }
}

fn has_timestamp(ty: &LogicalType) -> bool {
    match ty {
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => true,
        LogicalType::Row(fields) => fields.iter().any(|f| has_timestamp(&f.ty)),
        LogicalType::Array(element) => has_timestamp(element),
        LogicalType::Map(key, value) => has_timestamp(key) || has_timestamp(value),
        _ => false,
    }
}

/// One step from a field's type down to one of its Parquet leaves.
#[derive(Debug, Clone, Copy)]
enum Step {
    Child(usize),
    Element,
    Key,
    Value,
}

/// The Parquet leaves of the schema, in order.
#[derive(Debug)]
enum Leaf {
    /// Written by parquet-rs's Arrow column writer number `writer`.
    Arrow,
    /// An INT96 timestamp leaf of top-level field `field`, reached by `steps`.
    Int96 {
        field: usize,
        steps: Vec<Step>,
        max_def: i16,
        max_rep: i16,
    },
}

fn collect_leaves(
    field: usize,
    ty: &LogicalType,
    int96: bool,
    steps: &mut Vec<Step>,
    def: i16,
    rep: i16,
    out: &mut Vec<Leaf>,
) {
    match ty {
        LogicalType::Row(fields) => {
            for (i, f) in fields.iter().enumerate() {
                steps.push(Step::Child(i));
                collect_leaves(field, &f.ty, int96, steps, def + 1, rep, out);
                steps.pop();
            }
        }
        LogicalType::Array(element) => {
            steps.push(Step::Element);
            collect_leaves(field, element, int96, steps, def + 2, rep + 1, out);
            steps.pop();
        }
        LogicalType::Map(key, value) => {
            steps.push(Step::Key);
            collect_leaves(field, key, int96, steps, def + 2, rep + 1, out);
            steps.pop();
            steps.push(Step::Value);
            collect_leaves(field, value, int96, steps, def + 2, rep + 1, out);
            steps.pop();
        }
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) if int96 => {
            out.push(Leaf::Int96 {
                field,
                steps: steps.clone(),
                max_def: def + 1,
                max_rep: rep,
            })
        }
        _ => out.push(Leaf::Arrow),
    }
}

/// The Arrow type a column has when handed to parquet-rs: timestamps become `Int64` in
/// the INT64 unit when written as INT64.
fn write_type(ty: &LogicalType, int64: bool) -> DataType {
    match ty {
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) if int64 => DataType::Int64,
        LogicalType::Row(fields) => DataType::Struct(
            fields
                .iter()
                .map(|f| Field::new(f.name.clone(), write_type(&f.ty, int64), true))
                .collect(),
        ),
        LogicalType::Array(element) => DataType::List(Arc::new(Field::new(
            streamfusion_core::types::ARRAY_ITEM_FIELD,
            write_type(element, int64),
            true,
        ))),
        LogicalType::Map(key, value) => DataType::List(Arc::new(Field::new(
            streamfusion_core::types::MAP_ENTRIES_FIELD,
            DataType::Struct(Fields::from(vec![
                Field::new("key", write_type(key, int64), true),
                Field::new("value", write_type(value, int64), true),
            ])),
            false,
        ))),
        other => other.to_arrow(),
    }
}

#[derive(Default)]
struct Int96Column {
    def: Vec<i16>,
    rep: Vec<i16>,
    values: Vec<parquet::data_type::Int96>,
}

struct RowGroup {
    /// One per Parquet leaf; `None` for INT96 leaves.
    writers: Vec<Option<ArrowColumnWriter>>,
    /// One per Parquet leaf; used for INT96 leaves only.
    int96: Vec<Int96Column>,
    rows: usize,
}

/// Writes Arrow batches of a row type into one Parquet file, as Flink does.
pub struct FlinkParquetWriter<W: Write + Send> {
    writer: SerializedFileWriter<W>,
    fields: Vec<RowField>,
    /// The batches' schema (`LogicalType::to_arrow` of the fields).
    input_schema: SchemaRef,
    /// The schema handed to parquet-rs's column writers.
    write_schema: SchemaRef,
    factory: ArrowRowGroupWriterFactory,
    leaves: Vec<Leaf>,
    zone: TimestampZone,
    int64: Option<TimestampUnit>,
    max_rows: usize,
    current: Option<RowGroup>,
}

impl<W: Write + Send> std::fmt::Debug for FlinkParquetWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlinkParquetWriter")
            .field("fields", &self.fields)
            .field("zone", &self.zone)
            .field("int64", &self.int64)
            .finish_non_exhaustive()
    }
}

pub(crate) fn parquet_error(e: ParquetError) -> FormatError {
    FormatError::Arrow(ArrowError::ParquetError(e.to_string()))
}

impl<W: Write + Send> FlinkParquetWriter<W> {
    /// A writer of rows of `fields` into `sink`. Refuses (`Unsupported`) a row type Flink's
    /// converter refuses (intervals), timestamps without a usable zone, and an empty row.
    pub fn try_new(fields: &[RowField], sink: W, options: &ParquetWriteOptions) -> Result<Self> {
        if fields.is_empty() {
            return Err(FormatError::Unsupported {
                format: FORMAT,
                problem: "a Parquet file needs at least one column".into(),
            });
        }
        let zone = options.zone(fields)?;
        let int64 = options
            .write_int64_timestamp
            .then_some(options.timestamp_unit);
        let schema = flink_message_type(fields, int64)?;
        let descriptor = Arc::new(SchemaDescriptor::new(Arc::clone(&schema)));
        let props = Arc::new(
            WriterProperties::builder()
                .set_writer_version(WriterVersion::PARQUET_1_0)
                .set_compression(options.compression.codec()?)
                .set_dictionary_enabled(options.dictionary)
                .set_data_page_size_limit(options.page_size.max(1))
                .set_max_row_group_row_count(Some(options.max_row_group_rows.max(1)))
                .build(),
        );
        let writer = SerializedFileWriter::new(sink, schema, props).map_err(parquet_error)?;
        let mut leaves = Vec::new();
        for (i, field) in fields.iter().enumerate() {
            collect_leaves(
                i,
                &field.ty,
                int64.is_none(),
                &mut Vec::new(),
                0,
                0,
                &mut leaves,
            );
        }
        if leaves.len() != descriptor.num_columns() {
            return Err(FormatError::Unsupported {
                format: FORMAT,
                problem: format!(
                    "schema has {} leaves but {} were planned",
                    descriptor.num_columns(),
                    leaves.len()
                ),
            });
        }
        let write_schema = Arc::new(Schema::new(
            fields
                .iter()
                .map(|f| Field::new(f.name.clone(), write_type(&f.ty, int64.is_some()), true))
                .collect::<Vec<_>>(),
        ));
        let factory = ArrowRowGroupWriterFactory::new(&writer, Arc::clone(&write_schema));
        Ok(Self {
            writer,
            fields: fields.to_vec(),
            input_schema: Arc::new(Schema::new(row_arrow_fields(fields))),
            write_schema,
            factory,
            leaves,
            zone,
            int64,
            max_rows: options.max_row_group_rows.max(1),
            current: None,
        })
    }

    /// The schema the batches must have.
    pub fn schema(&self) -> &SchemaRef {
        &self.input_schema
    }

    /// Writes every row of `batch`. On an error the file is unusable (as a failed Flink
    /// bulk writer is): drop the writer.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.check_schema(batch)?;
        let mut offset = 0;
        while offset < batch.num_rows() {
            let in_group = self.current.as_ref().map_or(0, |g| g.rows);
            let take = (self.max_rows - in_group).min(batch.num_rows() - offset);
            let slice = batch.slice(offset, take);
            self.write_slice(&slice)?;
            offset += take;
            if self
                .current
                .as_ref()
                .is_some_and(|g| g.rows >= self.max_rows)
            {
                self.flush_row_group()?;
            }
        }
        Ok(())
    }

    /// Writes the last row group and the footer, and returns the sink.
    pub fn close(mut self) -> Result<W> {
        self.flush_row_group()?;
        self.writer.into_inner().map_err(parquet_error)
    }

    fn check_schema(&self, batch: &RecordBatch) -> Result<()> {
        let expected = self.input_schema.fields();
        let actual = batch.schema();
        if actual.fields().len() != expected.len() {
            return Err(FormatError::Schema {
                format: FORMAT,
                problem: format!(
                    "batch has {} columns, the row type {}",
                    actual.fields().len(),
                    expected.len()
                ),
            });
        }
        for (e, a) in expected.iter().zip(actual.fields()) {
            if !e.data_type().equals_datatype(a.data_type()) {
                return Err(FormatError::Schema {
                    format: FORMAT,
                    problem: format!(
                        "column `{}` is {}, the row type needs {}",
                        e.name(),
                        a.data_type(),
                        e.data_type()
                    ),
                });
            }
        }
        Ok(())
    }

    fn write_slice(&mut self, batch: &RecordBatch) -> Result<()> {
        if self.current.is_none() {
            let writers = self
                .factory
                .create_column_writers(self.writer.flushed_row_groups().len())
                .map_err(parquet_error)?;
            let writers = writers
                .into_iter()
                .zip(&self.leaves)
                .map(|(w, leaf)| matches!(leaf, Leaf::Arrow).then_some(w))
                .collect();
            self.current = Some(RowGroup {
                writers,
                int96: (0..self.leaves.len())
                    .map(|_| Int96Column::default())
                    .collect(),
                rows: 0,
            });
        }
        let Some(group) = self.current.as_mut() else {
            return Ok(());
        };
        let mut leaf_index = 0;
        for (i, field) in self.fields.iter().enumerate() {
            let column = prepare(
                batch.column(i),
                &field.ty,
                self.int64,
                self.zone,
                &field.name,
            )?;
            let write_field = self.write_schema.field(i);
            let leaves = compute_leaves(write_field, &column).map_err(parquet_error)?;
            for leaf in leaves {
                match (&self.leaves[leaf_index], &mut group.writers[leaf_index]) {
                    (Leaf::Arrow, Some(writer)) => writer.write(&leaf).map_err(parquet_error)?,
                    (Leaf::Int96 { .. }, _) | (Leaf::Arrow, None) => {}
                }
                leaf_index += 1;
            }
        }
        for (index, leaf) in self.leaves.iter().enumerate() {
            if let Leaf::Int96 {
                field,
                steps,
                max_def,
                max_rep,
            } = leaf
            {
                let out = &mut group.int96[index];
                let column = batch.column(*field);
                let mut shredder = Shredder {
                    out,
                    zone: self.zone,
                    max_def: *max_def,
                    with_rep: *max_rep > 0,
                    field: &self.fields[*field].name,
                    row: 0,
                };
                if steps.is_empty() {
                    shredder.top_level(column.as_ref())?;
                } else {
                    for row in 0..column.len() {
                        shredder.row = row;
                        shredder.emit(column.as_ref(), row, steps, 0, 0, 0, false)?;
                    }
                }
            }
        }
        group.rows += batch.num_rows();
        Ok(())
    }

    fn flush_row_group(&mut self) -> Result<()> {
        let Some(group) = self.current.take() else {
            return Ok(());
        };
        let mut row_group = self.writer.next_row_group().map_err(parquet_error)?;
        for ((leaf, writer), int96) in self.leaves.iter().zip(group.writers).zip(group.int96) {
            match (leaf, writer) {
                (Leaf::Arrow, Some(writer)) => {
                    let chunk = writer.close().map_err(parquet_error)?;
                    chunk
                        .append_to_row_group(&mut row_group)
                        .map_err(parquet_error)?;
                }
                (Leaf::Int96 { max_rep, .. }, _) => {
                    let mut column =
                        row_group
                            .next_column()
                            .map_err(parquet_error)?
                            .ok_or_else(|| {
                                parquet_error(ParquetError::General("missing INT96 column".into()))
                            })?;
                    column
                        .typed::<Int96Type>()
                        .write_batch(
                            &int96.values,
                            Some(&int96.def),
                            (*max_rep > 0).then_some(int96.rep.as_slice()),
                        )
                        .map_err(parquet_error)?;
                    column.close().map_err(parquet_error)?;
                }
                (Leaf::Arrow, None) => {
                    return Err(parquet_error(ParquetError::General(
                        "missing column writer".into(),
                    )));
                }
            }
        }
        row_group.close().map_err(parquet_error)?;
        Ok(())
    }
}

/// The timestamp at `index` of a timestamp array (any unit).
pub(crate) fn timestamp_at(array: &dyn Array, index: usize) -> Option<FlinkTimestamp> {
    let (value, unit) = match array.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => (
            array.as_primitive::<TimestampSecondType>().value(index),
            TimeUnit::Second,
        ),
        DataType::Timestamp(TimeUnit::Millisecond, _) => (
            array
                .as_primitive::<TimestampMillisecondType>()
                .value(index),
            TimeUnit::Millisecond,
        ),
        DataType::Timestamp(TimeUnit::Microsecond, _) => (
            array
                .as_primitive::<TimestampMicrosecondType>()
                .value(index),
            TimeUnit::Microsecond,
        ),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => (
            array.as_primitive::<TimestampNanosecondType>().value(index),
            TimeUnit::Nanosecond,
        ),
        _ => return None,
    };
    Some(FlinkTimestamp::from_carrier(value, unit))
}

fn unencodable(index: usize, field: &str, problem: String) -> FormatError {
    FormatError::Unencodable {
        format: FORMAT,
        index,
        field: field.to_string(),
        problem,
    }
}

/// Definition/repetition levels and values of one INT96 leaf (Flink's record shredding).
struct Shredder<'a> {
    out: &'a mut Int96Column,
    zone: TimestampZone,
    max_def: i16,
    with_rep: bool,
    field: &'a str,
    row: usize,
}

impl Shredder<'_> {
    fn push(&mut self, def: i16, rep: i16) {
        self.out.def.push(def);
        if self.with_rep {
            self.out.rep.push(rep);
        }
    }

    fn value(&mut self, array: &dyn Array, index: usize) -> Result<()> {
        let ts = timestamp_at(array, index)
            .ok_or_else(|| unencodable(self.row, self.field, "not a timestamp array".into()))?;
        let int96 = timestamp::to_int96(ts, self.zone)
            .map_err(|e| unencodable(self.row, self.field, e.0))?;
        self.out.values.push(int96.to_parquet());
        Ok(())
    }

    /// A top-level timestamp column: definition level 1 for a value, 0 for NULL.
    fn top_level(&mut self, array: &dyn Array) -> Result<()> {
        self.out.def.reserve(array.len());
        self.out.values.reserve(array.len() - array.null_count());
        for index in 0..array.len() {
            self.row = index;
            if array.is_null(index) {
                self.out.def.push(0);
            } else {
                self.out.def.push(1);
                self.value(array, index)?;
            }
        }
        Ok(())
    }

    /// Emits the leaf's levels for element `index` of `array`, whose NULL is recorded at
    /// `def_if_null`; `rep` is the repetition level of the first level emitted and
    /// `depth` the number of repeated ancestors.
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        array: &dyn Array,
        index: usize,
        steps: &[Step],
        def_if_null: i16,
        rep: i16,
        depth: i16,
        forced_null: bool,
    ) -> Result<()> {
        if forced_null || array.is_null(index) {
            self.push(def_if_null, rep);
            return Ok(());
        }
        let Some((step, rest)) = steps.split_first() else {
            debug_assert_eq!(def_if_null + 1, self.max_def);
            self.push(def_if_null + 1, rep);
            return self.value(array, index);
        };
        match step {
            Step::Child(child) => {
                let row = array.as_struct();
                self.emit(
                    row.column(*child).as_ref(),
                    index,
                    rest,
                    def_if_null + 1,
                    rep,
                    depth,
                    false,
                )
            }
            Step::Element | Step::Key | Step::Value => {
                let list = array.as_list::<i32>();
                let offsets = list.value_offsets();
                let (start, end) = (offsets[index] as usize, offsets[index + 1] as usize);
                if start == end {
                    self.push(def_if_null + 1, rep);
                    return Ok(());
                }
                let values = list.values();
                for j in start..end {
                    let r = if j == start { rep } else { depth + 1 };
                    match step {
                        Step::Element => self.emit(
                            values.as_ref(),
                            j,
                            rest,
                            def_if_null + 2,
                            r,
                            depth + 1,
                            false,
                        )?,
                        Step::Key => {
                            let entries = values.as_struct();
                            self.emit(
                                entries.column(0).as_ref(),
                                j,
                                rest,
                                def_if_null + 2,
                                r,
                                depth + 1,
                                false,
                            )?
                        }
                        Step::Value => {
                            let entries = values.as_struct();
                            let key_null = entries.column(0).is_null(j);
                            self.emit(
                                entries.column(1).as_ref(),
                                j,
                                rest,
                                def_if_null + 2,
                                r,
                                depth + 1,
                                key_null,
                            )?
                        }
                        Step::Child(_) => {}
                    }
                }
                Ok(())
            }
        }
    }
}

/// The column as parquet-rs's writers receive it: INT64 timestamps converted, map values
/// of NULL keys nulled (Flink's `MapWriter`). Unchanged columns are returned as they are.
fn prepare(
    array: &ArrayRef,
    ty: &LogicalType,
    int64: Option<TimestampUnit>,
    zone: TimestampZone,
    path: &str,
) -> Result<ArrayRef> {
    Ok(match ty {
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => match int64 {
            None => Arc::clone(array),
            Some(unit) => {
                let mut values = Vec::with_capacity(array.len());
                for index in 0..array.len() {
                    if array.is_null(index) {
                        values.push(0);
                        continue;
                    }
                    let ts = timestamp_at(array.as_ref(), index)
                        .ok_or_else(|| unencodable(index, path, "not a timestamp array".into()))?;
                    values.push(
                        timestamp::to_int64(ts, unit, zone)
                            .map_err(|e| unencodable(index, path, e.0))?,
                    );
                }
                Arc::new(Int64Array::new(values.into(), array.logical_nulls()))
            }
        },
        LogicalType::Row(fields) => {
            if !fields.iter().any(|f| needs_prepare(&f.ty, int64)) {
                return Ok(Arc::clone(array));
            }
            let row = array.as_struct();
            let mut columns = Vec::with_capacity(fields.len());
            let mut out_fields = Vec::with_capacity(fields.len());
            for (i, f) in fields.iter().enumerate() {
                let child = prepare(
                    row.column(i),
                    &f.ty,
                    int64,
                    zone,
                    &format!("{path}.{}", f.name),
                )?;
                out_fields.push(Field::new(f.name.clone(), child.data_type().clone(), true));
                columns.push(child);
            }
            Arc::new(StructArray::try_new(
                out_fields.into(),
                columns,
                row.nulls().cloned(),
            )?)
        }
        LogicalType::Array(element) => {
            if !needs_prepare(element, int64) {
                return Ok(Arc::clone(array));
            }
            let list = array.as_list::<i32>();
            let values = prepare(list.values(), element, int64, zone, &format!("{path}[]"))?;
            let field = Arc::new(Field::new(
                streamfusion_core::types::ARRAY_ITEM_FIELD,
                values.data_type().clone(),
                true,
            ));
            Arc::new(ListArray::try_new(
                field,
                list.offsets().clone(),
                values,
                list.nulls().cloned(),
            )?)
        }
        LogicalType::Map(key, value) => {
            let list = array.as_list::<i32>();
            let entries = list.values().as_struct();
            let keys = prepare(entries.column(0), key, int64, zone, &format!("{path}.key"))?;
            let mut values = prepare(
                entries.column(1),
                value,
                int64,
                zone,
                &format!("{path}.value"),
            )?;
            if entries.column(0).null_count() > 0 {
                let nulls = NullBuffer::union(
                    values.logical_nulls().as_ref(),
                    entries.column(0).logical_nulls().as_ref(),
                );
                values =
                    arrow::array::make_array(values.to_data().into_builder().nulls(nulls).build()?);
            } else if !needs_prepare(key, int64) && !needs_prepare(value, int64) {
                return Ok(Arc::clone(array));
            }
            let entry_fields = Fields::from(vec![
                Field::new("key", keys.data_type().clone(), true),
                Field::new("value", values.data_type().clone(), true),
            ]);
            let entries = StructArray::try_new(entry_fields.clone(), vec![keys, values], None)?;
            let field = Arc::new(Field::new(
                streamfusion_core::types::MAP_ENTRIES_FIELD,
                DataType::Struct(entry_fields),
                false,
            ));
            Arc::new(ListArray::try_new(
                field,
                list.offsets().clone(),
                Arc::new(entries),
                list.nulls().cloned(),
            )?)
        }
        _ => Arc::clone(array),
    })
}

fn needs_prepare(ty: &LogicalType, int64: Option<TimestampUnit>) -> bool {
    match ty {
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => int64.is_some(),
        LogicalType::Row(fields) => fields.iter().any(|f| needs_prepare(&f.ty, int64)),
        LogicalType::Array(element) => needs_prepare(element, int64),
        LogicalType::Map(..) => true,
        _ => false,
    }
}
