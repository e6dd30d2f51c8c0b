//! [`FlinkParquetReader`]: a Parquet file read through a [`HostFile`] into Arrow batches of
//! a row type, as Flink's `ParquetColumnarRowInputFormat` reads it.
//!
//! - **Projection by name**: each requested field is the file's top-level column of that
//!   exact name (Flink's table format is case-sensitive); a field the file lacks reads as
//!   NULL, as Flink fills a missing column with NULLs. Nested `ROW` fields must match the
//!   file's group field by field (names and order).
//! - **Splits**: a byte range selects the row groups whose midpoint falls in it
//!   ([`row_groups_in_range`], parquet-mr's `filterFileMetaDataByMidpoint`, which Flink's
//!   `ParquetVectorizedInputFormat` uses through `ParquetFileReader.readFooter(range)`).
//! - **INT96**: parquet-rs converts INT96 to epoch units with wrapping arithmetic, which
//!   loses the sign of the nanoseconds of the day that Flink's reader checks. So each
//!   INT96 leaf is also read raw with parquet-rs's low-level column reader, in step with
//!   the Arrow reader (same row groups, same order): the Arrow reader gives the shape
//!   (NULLs, list offsets), the raw values give the timestamps through
//!   [`from_int96`](super::timestamp::from_int96).
//! - **INT64 timestamps** are read by their annotation's unit; other physical types map
//!   as parquet-rs maps them and are then adapted to the row type's Arrow types
//!   (`TINYINT` from `INT32` narrows as Java's `(byte)` cast does).
//!
//! A corrupt or truncated file is a [`FormatError::Malformed`] (index: the batch number,
//! or 0 for the footer), never a panic.

use std::collections::VecDeque;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Int8Array, Int16Array, ListArray, PrimitiveArray, RecordBatch,
    RecordBatchOptions, StructArray, new_null_array,
};
use arrow::datatypes::{
    DataType, Int32Type, Schema, SchemaRef, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType,
};
use chrono::FixedOffset;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::basic::{
    LogicalType as ParquetLogicalType, TimeUnit as ParquetTimeUnit, Type as PhysicalType,
};
use parquet::column::reader::ColumnReaderImpl;
use parquet::data_type::{Int96 as ParquetInt96, Int96Type};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::serialized_reader::SerializedPageReader;
use streamfusion_core::types::{LogicalType, RowField, row_arrow_fields};

use super::FORMAT;
use super::host_file::{HostChunkReader, HostFile};
use super::timestamp::{self, FlinkTimestamp, Int96, TimestampZone};
use super::write::resolve_zone;
use crate::error::{FormatError, Result};

/// The reader's options.
#[derive(Debug, Clone, PartialEq)]
pub struct ParquetReadOptions {
    /// `parquet.utc-timezone` (Flink's default `false`).
    pub utc_timezone: bool,
    /// The JVM's default zone when `utc_timezone` is `false` (a fixed offset; required if
    /// the row type has a timestamp).
    pub local_time_zone: Option<FixedOffset>,
    /// Rows per batch (Flink's `VectorizedColumnBatch.DEFAULT_SIZE` is 2,048).
    pub batch_size: usize,
    /// The split: byte offset and length; `None` reads every row group.
    pub range: Option<(u64, u64)>,
}

impl Default for ParquetReadOptions {
    fn default() -> Self {
        Self {
            utc_timezone: false,
            local_time_zone: None,
            batch_size: 2048,
            range: None,
        }
    }
}

impl ParquetReadOptions {
    /// `utc-timezone = true`, everything else Flink's default.
    pub fn utc() -> Self {
        Self {
            utc_timezone: true,
            ..Self::default()
        }
    }
}

/// The row groups a split `[start, start + length)` reads: those whose midpoint (first
/// column chunk's first page offset plus half the row group's compressed size) falls in
/// the range — parquet-mr's `filterFileMetaDataByMidpoint`.
pub fn row_groups_in_range(metadata: &ParquetMetaData, start: u64, length: u64) -> Vec<usize> {
    let end = start.saturating_add(length);
    let mut out = Vec::new();
    for (index, group) in metadata.row_groups().iter().enumerate() {
        let Some(first) = group.columns().first() else {
            continue;
        };
        let mut offset = first.data_page_offset();
        if let Some(dictionary) = first.dictionary_page_offset()
            && offset > dictionary
        {
            offset = dictionary;
        }
        let total: i64 = group.columns().iter().map(|c| c.compressed_size()).sum();
        let midpoint = offset.saturating_add(total / 2);
        if midpoint >= 0 && (midpoint as u64) >= start && (midpoint as u64) < end {
            out.push(index);
        }
    }
    out
}

/// What a file leaf is, for adapting a timestamp.
#[derive(Debug, Clone)]
struct LeafInfo {
    physical: PhysicalType,
    /// The unit of an INT64 timestamp annotation.
    unit: Option<TimeUnit>,
    /// The raw stream of an INT96 leaf.
    int96: Option<usize>,
}

#[derive(Debug)]
enum Plan {
    /// Not in the file: all NULL.
    Missing,
    /// The projected batch's column `column`; its file leaves in order.
    File {
        column: usize,
        leaves: Vec<LeafInfo>,
    },
}

type Int96Factory =
    Arc<dyn Fn(usize, usize) -> parquet::errors::Result<ColumnReaderImpl<Int96Type>> + Send + Sync>;

/// Raw INT96 values of one leaf, row group after row group.
struct Int96Stream {
    leaf: usize,
    max_def: i16,
    max_rep: i16,
    row_groups: VecDeque<usize>,
    reader: Option<ColumnReaderImpl<Int96Type>>,
    values: VecDeque<ParquetInt96>,
    factory: Int96Factory,
}

impl Int96Stream {
    fn take(&mut self, count: usize) -> parquet::errors::Result<Vec<Int96>> {
        let mut defs = Vec::new();
        let mut reps = Vec::new();
        let mut values = Vec::new();
        while self.values.len() < count {
            if self.reader.is_none() {
                let Some(group) = self.row_groups.pop_front() else {
                    return Err(parquet::errors::ParquetError::EOF(format!(
                        "INT96 column {} has fewer values than its rows need",
                        self.leaf
                    )));
                };
                self.reader = Some((self.factory)(group, self.leaf)?);
            }
            let Some(reader) = self.reader.as_mut() else {
                continue;
            };
            defs.clear();
            reps.clear();
            values.clear();
            let (records, _, levels) = reader.read_records(
                4096,
                (self.max_def > 0).then_some(&mut defs),
                (self.max_rep > 0).then_some(&mut reps),
                &mut values,
            )?;
            if records == 0 && levels == 0 {
                self.reader = None;
                continue;
            }
            self.values.extend(values.drain(..));
        }
        Ok(self
            .values
            .drain(..count)
            .map(|v| Int96::from_parquet(&v))
            .collect())
    }
}

/// Reads a Parquet file into batches of a row type.
pub struct FlinkParquetReader {
    inner: ParquetRecordBatchReader,
    fields: Vec<RowField>,
    schema: SchemaRef,
    plans: Vec<Plan>,
    streams: Vec<Int96Stream>,
    zone: TimestampZone,
    batch: usize,
    failed: bool,
}

impl std::fmt::Debug for FlinkParquetReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlinkParquetReader")
            .field("fields", &self.fields)
            .field("plans", &self.plans)
            .field("zone", &self.zone)
            .finish_non_exhaustive()
    }
}

fn malformed(index: usize, field: &str, problem: impl Into<String>) -> FormatError {
    FormatError::Malformed {
        format: FORMAT,
        index,
        field: field.to_string(),
        problem: problem.into(),
    }
}

fn unsupported(problem: String) -> FormatError {
    FormatError::Unsupported {
        format: FORMAT,
        problem,
    }
}

impl FlinkParquetReader {
    /// Opens `file` (reads its footer) for rows of `fields`.
    pub fn try_new<F: HostFile + 'static>(
        file: F,
        fields: &[RowField],
        options: &ParquetReadOptions,
    ) -> Result<Self> {
        let zone = resolve_zone(options.utc_timezone, options.local_time_zone, fields)?;
        let chunk = HostChunkReader::new(Arc::new(file))
            .map_err(|e| malformed(0, "", format!("file length: {e}")))?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(chunk.clone())
            .map_err(|e| malformed(0, "", format!("footer: {e}")))?;
        let metadata = Arc::clone(builder.metadata());
        let descriptor = builder.parquet_schema();
        let file_arrow = Arc::clone(builder.schema());
        let roots = descriptor.root_schema().get_fields();

        // Leaves of each root, in order.
        let mut root_leaves: Vec<Vec<usize>> = vec![Vec::new(); roots.len()];
        for leaf in 0..descriptor.num_columns() {
            let root = descriptor.get_column_root_idx(leaf);
            if let Some(list) = root_leaves.get_mut(root) {
                list.push(leaf);
            }
        }

        let mut selected: Vec<usize> = Vec::new();
        for field in fields {
            if let Some(root) = roots.iter().position(|r| r.name() == field.name)
                && !selected.contains(&root)
            {
                selected.push(root);
            }
        }
        selected.sort_unstable();

        let row_groups: Vec<usize> = match options.range {
            Some((start, length)) => row_groups_in_range(&metadata, start, length),
            None => (0..metadata.num_row_groups()).collect(),
        };

        let factory: Int96Factory = {
            let chunk = Arc::new(chunk.clone());
            let metadata = Arc::clone(&metadata);
            Arc::new(move |group: usize, leaf: usize| {
                let group_meta = metadata.row_group(group);
                let column = group_meta.column(leaf);
                let pages = SerializedPageReader::new(
                    Arc::clone(&chunk),
                    column,
                    group_meta.num_rows() as usize,
                    None,
                )?;
                Ok(ColumnReaderImpl::<Int96Type>::new(
                    column.column_descr_ptr(),
                    Box::new(pages),
                ))
            })
        };

        let mut plans = Vec::with_capacity(fields.len());
        let mut streams = Vec::new();
        for field in fields {
            let Some(root) = roots.iter().position(|r| r.name() == field.name) else {
                plans.push(Plan::Missing);
                continue;
            };
            let column = selected.iter().position(|&r| r == root).unwrap_or(0);
            let file_type = file_arrow.field(root).data_type();
            let mut leaves = Vec::new();
            for &leaf in &root_leaves[root] {
                let descr = descriptor.column(leaf);
                let unit = match descr.logical_type_ref() {
                    Some(ParquetLogicalType::Timestamp { unit, .. }) => Some(match unit {
                        ParquetTimeUnit::MILLIS => TimeUnit::Millisecond,
                        ParquetTimeUnit::MICROS => TimeUnit::Microsecond,
                        ParquetTimeUnit::NANOS => TimeUnit::Nanosecond,
                    }),
                    _ => None,
                };
                let int96 = (descr.physical_type() == PhysicalType::INT96).then(|| {
                    streams.push(Int96Stream {
                        leaf,
                        max_def: descr.max_def_level(),
                        max_rep: descr.max_rep_level(),
                        row_groups: row_groups.iter().copied().collect(),
                        reader: None,
                        values: VecDeque::new(),
                        factory: Arc::clone(&factory),
                    });
                    streams.len() - 1
                });
                leaves.push(LeafInfo {
                    physical: descr.physical_type(),
                    unit,
                    int96,
                });
            }
            let mut cursor = 0;
            check(file_type, &field.ty, &leaves, &mut cursor, &field.name)?;
            if cursor != leaves.len() {
                return Err(unsupported(format!(
                    "field `{}`: the file's column has {} leaves, {cursor} matched",
                    field.name,
                    leaves.len()
                )));
            }
            plans.push(Plan::File { column, leaves });
        }

        // Only the row groups the split selects.
        let mask = ProjectionMask::roots(descriptor, selected.iter().copied());
        let inner = builder
            .with_projection(mask)
            .with_row_groups(row_groups)
            .with_batch_size(options.batch_size.max(1))
            .build()
            .map_err(|e| malformed(0, "", e.to_string()))?;
        Ok(Self {
            inner,
            fields: fields.to_vec(),
            schema: Arc::new(Schema::new(row_arrow_fields(fields))),
            plans,
            streams,
            zone,
            batch: 0,
            failed: false,
        })
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn adapt_batch(&mut self, batch: &RecordBatch) -> Result<RecordBatch> {
        let mut columns = Vec::with_capacity(self.fields.len());
        for (field, plan) in self.fields.iter().zip(&self.plans) {
            let target = field.ty.to_arrow();
            match plan {
                Plan::Missing => columns.push(new_null_array(&target, batch.num_rows())),
                Plan::File { column, leaves } => {
                    let mut adapter = Adapter {
                        leaves,
                        cursor: 0,
                        streams: &mut self.streams,
                        zone: self.zone,
                        batch: self.batch,
                    };
                    columns.push(adapter.adapt(batch.column(*column), &field.ty, &field.name)?);
                }
            }
        }
        Ok(RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )?)
    }
}

impl Iterator for FlinkParquetReader {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let result = match self.inner.next()? {
            Ok(batch) => self.adapt_batch(&batch),
            Err(e) => Err(malformed(self.batch, "", e.to_string())),
        };
        self.batch += 1;
        if result.is_err() {
            self.failed = true;
        }
        Some(result)
    }
}

/// Whether a file column of Arrow type `file` can be read as `ty`; advances `cursor` over
/// the file leaves it covers.
fn check(
    file: &DataType,
    ty: &LogicalType,
    leaves: &[LeafInfo],
    cursor: &mut usize,
    path: &str,
) -> Result<()> {
    let refuse = || {
        unsupported(format!(
            "field `{path}`: the file's column of Arrow type {file} cannot be read as {ty}"
        ))
    };
    match (ty, file) {
        (LogicalType::Row(fields), DataType::Struct(children)) => {
            if fields.len() != children.len()
                || fields
                    .iter()
                    .zip(children)
                    .any(|(f, c)| f.name != *c.name())
            {
                return Err(refuse());
            }
            for (f, c) in fields.iter().zip(children) {
                check(
                    c.data_type(),
                    &f.ty,
                    leaves,
                    cursor,
                    &format!("{path}.{}", f.name),
                )?;
            }
            Ok(())
        }
        (LogicalType::Array(element), DataType::List(item)) => check(
            item.data_type(),
            element,
            leaves,
            cursor,
            &format!("{path}[]"),
        ),
        (LogicalType::Map(key, value), DataType::Map(entries, _) | DataType::List(entries)) => {
            match entries.data_type() {
                DataType::Struct(kv) if kv.len() == 2 => {
                    check(
                        kv[0].data_type(),
                        key,
                        leaves,
                        cursor,
                        &format!("{path}.key"),
                    )?;
                    check(
                        kv[1].data_type(),
                        value,
                        leaves,
                        cursor,
                        &format!("{path}.value"),
                    )
                }
                _ => Err(refuse()),
            }
        }
        (LogicalType::Row(_) | LogicalType::Array(_) | LogicalType::Map(..), _) => Err(refuse()),
        _ => {
            if matches!(
                file,
                DataType::Struct(_)
                    | DataType::List(_)
                    | DataType::Map(..)
                    | DataType::LargeList(_)
            ) {
                return Err(refuse());
            }
            let leaf = leaves.get(*cursor).ok_or_else(refuse)?;
            *cursor += 1;
            let ok = match ty {
                LogicalType::Boolean => matches!(file, DataType::Boolean),
                LogicalType::TinyInt => matches!(file, DataType::Int8 | DataType::Int32),
                LogicalType::SmallInt => {
                    matches!(file, DataType::Int16 | DataType::Int32 | DataType::Int8)
                }
                LogicalType::Int => {
                    matches!(file, DataType::Int32 | DataType::Int8 | DataType::Int16)
                }
                LogicalType::BigInt => {
                    matches!(
                        file,
                        DataType::Int64 | DataType::Int32 | DataType::Int16 | DataType::Int8
                    )
                }
                LogicalType::Float => matches!(file, DataType::Float32),
                LogicalType::Double => matches!(file, DataType::Float64 | DataType::Float32),
                LogicalType::Decimal { precision, scale } => match file {
                    DataType::Decimal32(p, s)
                    | DataType::Decimal64(p, s)
                    | DataType::Decimal128(p, s) => {
                        i16::from(*s) == i16::from(*scale) && p <= precision
                    }
                    _ => false,
                },
                LogicalType::Char(_) | LogicalType::VarChar(_) => {
                    matches!(file, DataType::Utf8 | DataType::Binary)
                }
                LogicalType::Binary(_) | LogicalType::VarBinary(_) => {
                    matches!(
                        file,
                        DataType::Binary | DataType::Utf8 | DataType::FixedSizeBinary(_)
                    )
                }
                LogicalType::Date => matches!(file, DataType::Date32),
                LogicalType::Time(_) => matches!(file, DataType::Time32(TimeUnit::Millisecond)),
                LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => {
                    leaf.int96.is_some()
                        || (leaf.physical == PhysicalType::INT64
                            && leaf.unit.is_some()
                            && matches!(file, DataType::Timestamp(..)))
                }
                LogicalType::IntervalYearMonth | LogicalType::IntervalDayTime => false,
                LogicalType::Row(_) | LogicalType::Array(_) | LogicalType::Map(..) => false,
            };
            if ok { Ok(()) } else { Err(refuse()) }
        }
    }
}

/// Adapts one projected column to the row type's Arrow type.
struct Adapter<'a> {
    leaves: &'a [LeafInfo],
    cursor: usize,
    streams: &'a mut [Int96Stream],
    zone: TimestampZone,
    batch: usize,
}

impl Adapter<'_> {
    fn adapt(&mut self, array: &ArrayRef, ty: &LogicalType, path: &str) -> Result<ArrayRef> {
        let target = ty.to_arrow();
        Ok(match ty {
            LogicalType::Row(fields) => {
                let row = array.as_struct();
                let mut columns = Vec::with_capacity(fields.len());
                for (i, f) in fields.iter().enumerate() {
                    columns.push(self.adapt(
                        row.column(i),
                        &f.ty,
                        &format!("{path}.{}", f.name),
                    )?);
                }
                let DataType::Struct(target_fields) = target else {
                    return Err(malformed(self.batch, path, "row type is not a struct"));
                };
                Arc::new(StructArray::try_new(
                    target_fields,
                    columns,
                    row.nulls().cloned(),
                )?)
            }
            LogicalType::Array(element) => {
                let list = array.as_list::<i32>();
                let values = self.adapt(list.values(), element, &format!("{path}[]"))?;
                let DataType::List(item) = target else {
                    return Err(malformed(self.batch, path, "array type is not a list"));
                };
                Arc::new(ListArray::try_new(
                    item,
                    list.offsets().clone(),
                    values,
                    list.nulls().cloned(),
                )?)
            }
            LogicalType::Map(key, value) => {
                let (offsets, entries, nulls) = match array.data_type() {
                    DataType::Map(..) => {
                        let map = array.as_map();
                        (
                            map.offsets().clone(),
                            map.entries().clone(),
                            map.nulls().cloned(),
                        )
                    }
                    _ => {
                        let list = array.as_list::<i32>();
                        (
                            list.offsets().clone(),
                            list.values().as_struct().clone(),
                            list.nulls().cloned(),
                        )
                    }
                };
                let keys = self.adapt(entries.column(0), key, &format!("{path}.key"))?;
                let values = self.adapt(entries.column(1), value, &format!("{path}.value"))?;
                let DataType::List(item) = target else {
                    return Err(malformed(self.batch, path, "map type is not a list"));
                };
                let DataType::Struct(entry_fields) = item.data_type().clone() else {
                    return Err(malformed(self.batch, path, "map entries are not a struct"));
                };
                let entries = StructArray::try_new(entry_fields, vec![keys, values], None)?;
                Arc::new(ListArray::try_new(item, offsets, Arc::new(entries), nulls)?)
            }
            LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => {
                let leaf = self.next_leaf(path)?;
                self.timestamps(array, &leaf, &target, path)?
            }
            _ => {
                self.next_leaf(path)?;
                self.scalar(array, ty, &target, path)?
            }
        })
    }

    fn next_leaf(&mut self, path: &str) -> Result<LeafInfo> {
        let leaf =
            self.leaves.get(self.cursor).cloned().ok_or_else(|| {
                malformed(self.batch, path, "more leaves than the file column has")
            })?;
        self.cursor += 1;
        Ok(leaf)
    }

    fn scalar(
        &self,
        array: &ArrayRef,
        ty: &LogicalType,
        target: &DataType,
        path: &str,
    ) -> Result<ArrayRef> {
        if array.data_type() == target {
            return Ok(Arc::clone(array));
        }
        match (ty, array.data_type()) {
            // Java's (byte) / (short) narrowing of an int column.
            (LogicalType::TinyInt, DataType::Int32) => {
                let ints = array.as_primitive::<Int32Type>();
                Ok(Arc::new(Int8Array::new(
                    ints.values().iter().map(|&v| v as i8).collect(),
                    ints.nulls().cloned(),
                )))
            }
            (LogicalType::SmallInt, DataType::Int32) => {
                let ints = array.as_primitive::<Int32Type>();
                Ok(Arc::new(Int16Array::new(
                    ints.values().iter().map(|&v| v as i16).collect(),
                    ints.nulls().cloned(),
                )))
            }
            _ => arrow::compute::cast(array, target).map_err(|e| {
                malformed(
                    self.batch,
                    path,
                    format!("reading {} as {ty}: {e}", array.data_type()),
                )
            }),
        }
    }

    fn timestamps(
        &mut self,
        array: &ArrayRef,
        leaf: &LeafInfo,
        target: &DataType,
        path: &str,
    ) -> Result<ArrayRef> {
        let DataType::Timestamp(target_unit, tz) = target else {
            return Err(malformed(
                self.batch,
                path,
                "timestamp type is not an Arrow timestamp",
            ));
        };
        let nulls = array.logical_nulls();
        let mut values: Vec<i64> = vec![0; array.len()];
        let zone = self.zone;
        let batch = self.batch;
        let convert =
            |index: usize, ts: std::result::Result<FlinkTimestamp, timestamp::TimestampError>| {
                let ts = ts.map_err(|e| malformed(batch, path, format!("row {index}: {}", e.0)))?;
                ts.to_carrier(*target_unit).ok_or_else(|| {
                malformed(
                    batch,
                    path,
                    format!(
                        "row {index}: timestamp at epoch millisecond {} is outside the range of \
                         {target} (years 1677-2262 for precision 7-9)",
                        ts.millisecond
                    ),
                )
            })
            };
        if let Some(stream) = leaf.int96 {
            let valid = array.len() - array.null_count();
            let raw = self
                .streams
                .get_mut(stream)
                .ok_or_else(|| malformed(batch, path, "missing INT96 stream"))?
                .take(valid)
                .map_err(|e| malformed(batch, path, e.to_string()))?;
            let mut raw = raw.into_iter();
            for (index, slot) in values.iter_mut().enumerate() {
                if array.is_valid(index) {
                    let value = raw
                        .next()
                        .ok_or_else(|| malformed(batch, path, "INT96 values out of step"))?;
                    *slot = convert(index, timestamp::from_int96(value, zone))?;
                }
            }
        } else {
            let unit = leaf
                .unit
                .ok_or_else(|| malformed(batch, path, "INT64 timestamp without a unit"))?;
            let raw: Vec<i64> = match array.data_type() {
                DataType::Timestamp(TimeUnit::Millisecond, _) => array
                    .as_primitive::<TimestampMillisecondType>()
                    .values()
                    .to_vec(),
                DataType::Timestamp(TimeUnit::Microsecond, _) => array
                    .as_primitive::<TimestampMicrosecondType>()
                    .values()
                    .to_vec(),
                DataType::Timestamp(TimeUnit::Nanosecond, _) => array
                    .as_primitive::<TimestampNanosecondType>()
                    .values()
                    .to_vec(),
                other => {
                    return Err(malformed(
                        batch,
                        path,
                        format!("INT64 timestamp read as {other}"),
                    ));
                }
            };
            for (index, slot) in values.iter_mut().enumerate() {
                if array.is_valid(index) {
                    *slot = convert(index, timestamp::from_int64(raw[index], unit, zone))?;
                }
            }
        }
        let out: ArrayRef = match target_unit {
            TimeUnit::Millisecond => Arc::new(
                PrimitiveArray::<TimestampMillisecondType>::new(values.into(), nulls)
                    .with_timezone_opt(tz.clone()),
            ),
            TimeUnit::Microsecond => Arc::new(
                PrimitiveArray::<TimestampMicrosecondType>::new(values.into(), nulls)
                    .with_timezone_opt(tz.clone()),
            ),
            _ => Arc::new(
                PrimitiveArray::<TimestampNanosecondType>::new(values.into(), nulls)
                    .with_timezone_opt(tz.clone()),
            ),
        };
        Ok(out)
    }
}
