//! One Iceberg data file: batches in, a Parquet file and its iceberg-rust `DataFile` out.
//!
//! The file is encoded by parquet-rs's `ArrowWriter` against the table's Arrow schema
//! (`iceberg::arrow::schema_to_arrow_schema`), so every column, nested ones included, carries
//! its Iceberg field ID and the table's names and nullability. Batches are checked against the
//! table first ([`crate::batch_check`]), NaNs are counted as they are written, and on close the
//! footer becomes the `DataFile`'s statistics ([`crate::column_stats`]).
//!
//! Nothing here needs an async runtime (decision 0058): the file is either built in memory and
//! published whole on close ([`Sink::Buffered`]: iceberg's memory storage takes the bytes
//! without a copy; an object store is uploaded once), or streamed through iceberg's
//! `FileWrite` ([`Sink::Streamed`]: local files; iceberg's local storage fsyncs on close).
//! Both storages finish their futures on the first poll. An empty file is never published.

use std::io::Write;
use std::sync::Arc;

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{DataType, SchemaRef as ArrowSchemaRef};
use bytes::Bytes;
use iceberg::io::{FileIO, FileWrite, OutputFile};
use iceberg::spec::{
    DataContentType, DataFile, DataFileBuilder, DataFileFormat, SchemaRef, Struct,
};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use crate::batch_check::TableColumns;
use crate::column_stats::{self, NanCounter};
use crate::error::{IcebergError, Result};

/// How the file's bytes reach storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sink {
    /// Built in memory and published with one `OutputFile::write` on close.
    #[default]
    Buffered,
    /// Streamed through `OutputFile::writer()` as parquet-rs flushes.
    Streamed,
}

/// The partition a file belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionValue {
    /// The partition tuple (empty for an unpartitioned table).
    pub value: Struct,
    /// The partition spec it follows.
    pub spec_id: i32,
}

impl PartitionValue {
    /// An unpartitioned table's files (spec 0, the empty tuple).
    pub fn unpartitioned() -> Self {
        Self {
            value: Struct::empty(),
            spec_id: 0,
        }
    }
}

/// parquet-rs settings equal to Java Iceberg's table defaults: ZSTD (level 3, parquet-mr's
/// default level), 1 MiB pages, 128 MiB row groups, dictionaries on. Statistics are kept
/// untruncated in the footer because the `DataFile` bounds are truncated by Iceberg's own rule
/// ([`column_stats`]); the page index keeps parquet's 64-byte truncation.
pub fn default_properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(3).expect("3 is a valid ZSTD level"),
        ))
        .set_max_row_group_bytes(Some(128 * 1024 * 1024))
        .set_statistics_truncate_length(None)
        .build()
}

/// Bytes of row-group metadata kept until the footer is written, per column chunk (an
/// estimate: paths, encodings, statistics and offsets).
const CHUNK_METADATA_BYTES: usize = 320;

/// Writes one Parquet data file of a table.
pub struct DataFileWriter {
    file_io: FileIO,
    output: OutputFile,
    schema: SchemaRef,
    columns: TableColumns,
    partition: PartitionValue,
    writer: Option<ArrowWriter<SinkWrite>>,
    nans: NanCounter,
    dictionaries: Vec<DictionaryAllowance>,
    rows: u64,
}

/// A compressed dictionary page keeps a buffer as large as the uncompressed dictionary until
/// its row group is flushed (parquet-rs 58's `write_dictionary_page` does not shrink it), and
/// nothing the writer exposes shows it. For each top-level string or binary column with a
/// compressed dictionary, the estimate reserves what that page can reach: the dictionary
/// limit plus one write batch of the widest value seen (the limit is checked between write
/// batches), and never more than the column's value bytes in the open row group.
#[derive(Debug, Clone)]
struct DictionaryAllowance {
    column: usize,
    /// `dictionary_page_size_limit + write_batch_size × widest`, without the widest part.
    limit: usize,
    write_batch_size: usize,
    widest: usize,
    bytes: usize,
}

impl DictionaryAllowance {
    fn for_schema(schema: &arrow::datatypes::Schema, props: &WriterProperties) -> Vec<Self> {
        schema
            .fields()
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                let path = ColumnPath::from(f.name().as_str());
                matches!(
                    f.data_type(),
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary
                ) && props.dictionary_enabled(&path)
                    && props.compression(&path) != Compression::UNCOMPRESSED
            })
            .map(|(column, f)| Self {
                column,
                limit: props
                    .column_dictionary_page_size_limit(&ColumnPath::from(f.name().as_str())),
                write_batch_size: props.write_batch_size(),
                widest: 0,
                bytes: 0,
            })
            .collect()
    }

    fn add(&mut self, column: &dyn Array) {
        let (bytes, widest) = match column.data_type() {
            DataType::Utf8 => value_bytes(column.as_string::<i32>().value_offsets()),
            DataType::LargeUtf8 => value_bytes(column.as_string::<i64>().value_offsets()),
            DataType::Binary => value_bytes(column.as_binary::<i32>().value_offsets()),
            DataType::LargeBinary => value_bytes(column.as_binary::<i64>().value_offsets()),
            DataType::Utf8View => view_bytes(column.as_string_view().views()),
            DataType::BinaryView => view_bytes(column.as_binary_view().views()),
            _ => (0, 0),
        };
        self.bytes += bytes;
        self.widest = self.widest.max(widest);
    }

    /// After a row-group flush: only the last `open` rows of `column` are still buffered.
    fn restart(&mut self, column: &dyn Array, open: usize) {
        self.bytes = 0;
        self.widest = 0;
        if open > 0 {
            let tail = column.slice(
                column.len() - open.min(column.len()),
                open.min(column.len()),
            );
            self.add(tail.as_ref());
        }
    }

    fn reserve(&self) -> usize {
        (self.limit + self.write_batch_size * self.widest).min(self.bytes)
    }
}

/// The value bytes of views (their low 32 bits are each value's length), and the widest.
fn view_bytes(views: &[u128]) -> (usize, usize) {
    let lengths = views.iter().map(|v| *v as u32 as usize);
    (lengths.clone().sum(), lengths.max().unwrap_or(0))
}

/// The value bytes a (possibly sliced) offsets buffer spans, and its widest value.
fn value_bytes<O: arrow::array::OffsetSizeTrait>(offsets: &[O]) -> (usize, usize) {
    let widest = offsets
        .windows(2)
        .map(|w| (w[1] - w[0]).as_usize())
        .max()
        .unwrap_or(0);
    let bytes = match (offsets.first(), offsets.last()) {
        (Some(first), Some(last)) => (*last - *first).as_usize(),
        _ => 0,
    };
    (bytes, widest)
}

impl std::fmt::Debug for DataFileWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataFileWriter")
            .field("location", &self.output.location())
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl DataFileWriter {
    /// A writer of `location` in `file_io` for a table with `schema` (the table's current
    /// schema, field IDs as the catalog assigned them).
    pub fn try_new(
        file_io: &FileIO,
        location: &str,
        schema: SchemaRef,
        partition: PartitionValue,
        properties: WriterProperties,
        sink: Sink,
    ) -> Result<Self> {
        let arrow_schema: ArrowSchemaRef =
            Arc::new(iceberg::arrow::schema_to_arrow_schema(&schema)?);
        let output = file_io.new_output(location)?;
        let sink = match sink {
            Sink::Buffered => SinkWrite::Buffered(Vec::new()),
            Sink::Streamed => {
                let file = futures::executor::block_on(output.writer())
                    .map_err(|source| IcebergError::storage(location, source))?;
                SinkWrite::Streamed(file)
            }
        };
        let dictionaries = DictionaryAllowance::for_schema(&arrow_schema, &properties);
        let writer = ArrowWriter::try_new(sink, Arc::clone(&arrow_schema), Some(properties))
            .map_err(|source| IcebergError::Parquet {
                path: location.to_string(),
                source,
            })?;
        Ok(Self {
            file_io: file_io.clone(),
            output,
            schema,
            columns: TableColumns::new(arrow_schema),
            partition,
            writer: Some(writer),
            nans: NanCounter::default(),
            dictionaries,
            rows: 0,
        })
    }

    /// The file's location.
    pub fn location(&self) -> &str {
        self.output.location()
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Checks `batch` against the table and encodes it.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let location = self.output.location().to_string();
        let writer = self.writer.as_mut().ok_or(IcebergError::Closed {
            path: location.clone(),
        })?;
        let batch = self.columns.conform(batch)?;
        let fields: Vec<_> = self
            .columns
            .table_schema()
            .fields()
            .iter()
            .map(|f| f.as_ref())
            .collect();
        self.nans.add(&fields, batch.columns());
        let row_groups = writer.flushed_row_groups().len();
        for allowance in &mut self.dictionaries {
            allowance.add(batch.column(allowance.column).as_ref());
        }
        writer
            .write(&batch)
            .map_err(|source| IcebergError::Parquet {
                path: location,
                source,
            })?;
        self.rows += batch.num_rows() as u64;
        if writer.flushed_row_groups().len() != row_groups {
            // A row group was flushed during this write, and its dictionary pages with it.
            // The open row group holds the batch's last rows; reserve their share.
            let open = writer.in_progress_rows();
            for allowance in &mut self.dictionaries {
                allowance.restart(batch.column(allowance.column).as_ref(), open);
            }
        }
        Ok(())
    }

    /// Memory the open writer holds, for task memory accounting: parquet-rs's buffered row
    /// group (the larger of its encoder memory and its encoded estimate, which counts pages
    /// held back behind a pending dictionary), the file bytes buffered in the sink, and the
    /// metadata of flushed row groups kept for the footer, and the buffers of compressed
    /// dictionary pages ([`DictionaryAllowance`]).
    pub fn retained_bytes(&self) -> usize {
        let Some(writer) = &self.writer else {
            return 0;
        };
        let row_group = writer.memory_size().max(writer.in_progress_size());
        let chunks: usize = writer
            .flushed_row_groups()
            .iter()
            .map(|rg| rg.num_columns())
            .sum();
        let dictionaries: usize = self
            .dictionaries
            .iter()
            .map(DictionaryAllowance::reserve)
            .sum();
        row_group
            + dictionaries
            + writer.inner().retained_bytes()
            + PARQUET_BUFFER
            + chunks * CHUNK_METADATA_BYTES
    }

    /// Writes the footer, publishes the file and returns its `DataFile`; `None` (and nothing
    /// published) when no row was written.
    pub fn close(mut self) -> Result<Option<DataFile>> {
        let location = self.output.location().to_string();
        let mut writer = self.writer.take().ok_or(IcebergError::Closed {
            path: location.clone(),
        })?;
        let parquet = |source| IcebergError::Parquet {
            path: location.clone(),
            source,
        };
        let metadata = writer.finish().map_err(parquet)?;
        let size = writer.bytes_written() as u64;
        // `finish` flushed parquet's buffer into the sink; take the sink from the writer.
        let sink = std::mem::replace(writer.inner_mut(), SinkWrite::Buffered(Vec::new()));
        drop(writer);
        match sink {
            SinkWrite::Buffered(bytes) => {
                if self.rows > 0 {
                    futures::executor::block_on(self.output.write(Bytes::from(bytes)))
                        .map_err(|source| IcebergError::storage(&location, source))?;
                }
            }
            SinkWrite::Streamed(mut file) => {
                futures::executor::block_on(file.close())
                    .map_err(|source| IcebergError::storage(&location, source))?;
                if self.rows == 0 {
                    futures::executor::block_on(self.file_io.delete(&location))
                        .map_err(|source| IcebergError::storage(&location, source))?;
                }
            }
        }
        if self.rows == 0 {
            return Ok(None);
        }
        self.data_file(&metadata, size).map(Some)
    }

    /// Abandons the file: nothing is published, and a streamed file is deleted.
    pub fn abort(mut self) -> Result<()> {
        let location = self.output.location().to_string();
        if let Some(mut writer) = self.writer.take()
            && let SinkWrite::Streamed(file) = writer.inner_mut()
        {
            let _ = futures::executor::block_on(file.close());
            futures::executor::block_on(self.file_io.delete(&location))
                .map_err(|source| IcebergError::storage(&location, source))?;
        }
        Ok(())
    }

    fn data_file(&mut self, metadata: &ParquetMetaData, size: u64) -> Result<DataFile> {
        let stats = column_stats::from_footer(&self.schema, metadata)?;
        let nans = std::mem::take(&mut self.nans).into_counts();
        let mut builder = DataFileBuilder::default();
        builder
            .content(DataContentType::Data)
            .file_path(self.output.location().to_string())
            .file_format(DataFileFormat::Parquet)
            .partition(self.partition.value.clone())
            .partition_spec_id(self.partition.spec_id)
            .record_count(metadata.file_metadata().num_rows() as u64)
            .file_size_in_bytes(size)
            .column_sizes(stats.column_sizes)
            .value_counts(stats.value_counts)
            .null_value_counts(stats.null_value_counts)
            .nan_value_counts(nans)
            .lower_bounds(stats.lower_bounds)
            .upper_bounds(stats.upper_bounds)
            .split_offsets(Some(stats.split_offsets));
        builder
            .build()
            .map_err(|e| IcebergError::Invalid(format!("building the DataFile: {e}")))
    }
}

/// parquet-rs buffers writes to the sink in a `BufWriter` of this capacity.
const PARQUET_BUFFER: usize = 8 * 1024;

/// The `std::io::Write` parquet-rs writes to.
enum SinkWrite {
    Buffered(Vec<u8>),
    Streamed(Box<dyn FileWrite>),
}

impl SinkWrite {
    fn retained_bytes(&self) -> usize {
        match self {
            SinkWrite::Buffered(bytes) => bytes.capacity(),
            SinkWrite::Streamed(_) => 0,
        }
    }
}

impl Write for SinkWrite {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            SinkWrite::Buffered(bytes) => bytes.write(buf),
            SinkWrite::Streamed(file) => {
                futures::executor::block_on(file.write(Bytes::copy_from_slice(buf)))
                    .map_err(std::io::Error::other)?;
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
