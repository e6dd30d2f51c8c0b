//! One file scan task read through iceberg-rust 0.10's `ArrowReader`, batch by batch.
//!
//! iceberg-rust does the reading: projection by field ID (and by name mapping for legacy
//! files), type promotion (int to long, float to double, decimal precision), identity-partition
//! constants, positional deletes, and the pushed predicate (row filter and row-group pruning).
//! [`TaskReader`] builds the `FileScanTask`, runs the reader on the task thread's
//! [`TaskRuntime`] with one data file in flight, and adds what Flink needs on top:
//!
//! - every batch in the table's Arrow types ([`crate::read_adapt`]: constants come back
//!   run-end encoded);
//! - equality deletes as a hash anti-join on the key columns, with Java Iceberg's NULL-equals-
//!   NULL keys (iceberg-rust's own row filter drops every row whose key is NULL);
//! - FLOAT/DOUBLE `=` and `IN` with Flink's semantics, after the read
//!   ([`crate::float_filter`]; such filters must not be in the pushed predicate);
//! - split ranges in Java Iceberg's file offsets, translated for iceberg-rust
//!   ([`crate::split_range`]);
//! - predicate leaves on identity-partition columns folded to TRUE/FALSE with the partition
//!   value before the read: iceberg-rust evaluates them against the file, where such a column
//!   is usually absent, reads NULL and drops every row;
//! - errors (and panics inside iceberg-rust) as [`IcebergError`]s naming the file.
//!
//! Limits: only top-level columns can be projected, and be equality delete keys; a name
//! mapping maps top-level columns only, so nested fields of a legacy file read as NULL; delete
//! files are not checked against sequence numbers (pass only those that apply); Puffin
//! deletion vectors are not supported; a FLOAT/DOUBLE equality key matches by bit pattern
//! (`-0.0` and `0.0` differ as in Java, but NaNs with different payloads differ too).

use std::any::Any;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions};
use arrow::buffer::BooleanBuffer;
use arrow::compute::filter_record_batch;
use arrow::datatypes::{FieldRef, Schema as ArrowSchema, SchemaRef as ArrowSchemaRef};
use arrow::row::{RowConverter, SortField};
use futures::StreamExt;
use iceberg::arrow::{ArrowReaderBuilder, schema_to_arrow_schema};
use iceberg::expr::{Bind, BoundPredicate, Predicate, PredicateOperator};
use iceberg::io::FileIO;
use iceberg::scan::{ArrowRecordBatchStream, FileScanTask, FileScanTaskDeleteFile};
use iceberg::spec::{
    DataContentType, DataFileFormat, Literal, NameMapping, PartitionSpec, PrimitiveLiteral,
    PrimitiveType, SchemaRef, Struct, Transform, Type,
};

use crate::error::{IcebergError, Result};
use crate::field_ids::FIELD_ID_KEY;
use crate::float_filter::{FloatFilter, filters_mask};
use crate::read_adapt::flatten_constants;
use crate::runtime::TaskRuntime;
use crate::split_range::{SplitSelection, read_footer, translate};

/// A data file (or a split of it) to read, and how. Build with [`TaskReader::new`] and the
/// `with_*` options, then [`TaskReader::read`].
#[derive(Debug, Clone)]
pub struct TaskReader {
    file_io: FileIO,
    table_schema: SchemaRef,
    data_file_path: String,
    file_size_in_bytes: u64,
    project_field_ids: Vec<i32>,
    predicate: Option<Predicate>,
    case_sensitive: bool,
    partition: Option<(Arc<PartitionSpec>, Struct)>,
    name_mapping: Option<Arc<NameMapping>>,
    deletes: Vec<FileScanTaskDeleteFile>,
    split: Option<(u64, u64)>,
    batch_size: Option<usize>,
    float_filters: Vec<(i32, FloatFilter)>,
}

impl TaskReader {
    /// Reads the top-level columns `project_field_ids` (output order) of the data file at
    /// `data_file_path` (`file_size_in_bytes` long, from the manifest) of a table whose read
    /// schema is `table_schema`. An empty projection reads row counts only.
    pub fn new(
        file_io: FileIO,
        table_schema: SchemaRef,
        data_file_path: impl Into<String>,
        file_size_in_bytes: u64,
        project_field_ids: Vec<i32>,
    ) -> Self {
        Self {
            file_io,
            table_schema,
            data_file_path: data_file_path.into(),
            file_size_in_bytes,
            project_field_ids,
            predicate: None,
            case_sensitive: true,
            partition: None,
            name_mapping: None,
            deletes: Vec::new(),
            split: None,
            batch_size: None,
            float_filters: Vec::new(),
        }
    }

    /// A filter pushed into iceberg-rust (bound to the table schema at [`TaskReader::read`]).
    /// Keep FLOAT/DOUBLE `=` and `IN` out of it: see [`TaskReader::with_float_filter`].
    pub fn with_predicate(mut self, predicate: Predicate) -> Self {
        self.predicate = Some(predicate);
        self
    }

    /// Whether the predicate's column names bind case-sensitively (default true).
    pub fn with_case_sensitive(mut self, case_sensitive: bool) -> Self {
        self.case_sensitive = case_sensitive;
        self
    }

    /// The file's partition tuple under `spec`: identity-partition columns read as its values.
    pub fn with_partition(mut self, spec: Arc<PartitionSpec>, partition: Struct) -> Self {
        self.partition = Some((spec, partition));
        self
    }

    /// The table's name mapping, used when the file has no field IDs.
    pub fn with_name_mapping(mut self, name_mapping: Arc<NameMapping>) -> Self {
        self.name_mapping = Some(name_mapping);
        self
    }

    /// Positional and equality delete files that apply to this data file. Positional delete
    /// rows name the data file by its exact `data_file_path` string.
    pub fn with_deletes(mut self, deletes: Vec<FileScanTaskDeleteFile>) -> Self {
        self.deletes = deletes;
        self
    }

    /// Reads only the split `[start, start + length)`, in real file offsets as Java Iceberg
    /// plans them: the row groups whose midpoint falls in it.
    pub fn with_split(mut self, start: u64, length: u64) -> Self {
        self.split = Some((start, length));
        self
    }

    /// Rows per batch (at least 1; before equality deletes and float filters drop rows);
    /// parquet-rs's default (1024) otherwise.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = Some(batch_size);
        self
    }

    /// A FLOAT/DOUBLE `=` or `IN` on top-level column `field_id`, applied after the read with
    /// Flink's semantics. The column is read for it even when not projected.
    pub fn with_float_filter(mut self, field_id: i32, filter: FloatFilter) -> Self {
        self.float_filters.push((field_id, filter));
        self
    }

    /// The schema of the batches [`TaskReader::read`] returns: the projected columns in the
    /// table's Arrow types (`iceberg::arrow::schema_to_arrow_schema`), with their field IDs.
    pub fn output_schema(&self) -> Result<ArrowSchemaRef> {
        self.check_projection()?;
        self.arrow_schema(&self.project_field_ids)
    }

    /// Checks the task and starts the read. Nothing is read from the data file until the
    /// first batch is pulled (except the footer, for a split).
    ///
    /// Must be called, and the batches pulled, on a thread outside any tokio runtime (a Flink
    /// task thread): the read runs on that thread's [`TaskRuntime`].
    pub fn read(self) -> Result<TaskBatches> {
        let output_schema = self.output_schema()?;
        let filter_columns = self.check_float_filters()?;
        self.check_deletes()?;
        self.check_partition()?;
        if self.batch_size == Some(0) {
            return Err(IcebergError::Invalid(format!(
                "batch size 0 for `{}`",
                self.data_file_path
            )));
        }
        let key_sets = self.equality_key_sets();

        // The projection, then the columns read only for the float filters and the equality
        // delete keys.
        let mut read_ids = self.project_field_ids.clone();
        let extra = filter_columns
            .into_iter()
            .chain(key_sets.iter().flatten().copied());
        for id in extra {
            if !read_ids.contains(&id) {
                read_ids.push(id);
            }
        }
        let read_schema = self.arrow_schema(&read_ids)?;
        let index_of = |id: &i32| read_ids.iter().position(|read| read == id).unwrap_or(0);
        let float_filters = self
            .float_filters
            .iter()
            .map(|(id, filter)| (index_of(id), filter.clone()))
            .collect();

        let runtime = TaskRuntime::current()?;
        let mut batches = TaskBatches {
            runtime: Rc::clone(&runtime),
            stream: None,
            path: self.data_file_path.clone(),
            read_schema: Arc::clone(&read_schema),
            output_schema,
            float_filters,
            equality_deletes: Vec::new(),
        };

        let (start, length) = match self.split {
            None => (0, 0),
            Some((start, length)) => {
                if length == 0 {
                    return Err(IcebergError::Invalid(format!(
                        "split of `{}` at {start} has length 0",
                        self.data_file_path
                    )));
                }
                let metadata = runtime.block_on(read_footer(
                    &self.file_io,
                    &self.data_file_path,
                    self.file_size_in_bytes,
                ))?;
                match translate(&metadata, start, length)? {
                    SplitSelection::Empty => return Ok(batches),
                    SplitSelection::Range { start, length } => (start, length),
                }
            }
        };

        let predicate = match self.bound_predicate()? {
            Some(BoundPredicate::AlwaysFalse) => return Ok(batches),
            Some(BoundPredicate::AlwaysTrue) | None => None,
            Some(predicate) => Some(predicate),
        };

        // Only now that rows will be read: the delete keys.
        for (ids, keys) in self.load_equality_deletes(key_sets)? {
            let columns: Vec<usize> = ids.iter().map(index_of).collect();
            let converter = key_converter(&read_schema, &columns)?;
            batches.equality_deletes.push(EqualityDeletes {
                columns,
                converter,
                keys,
            });
        }

        let task = FileScanTask::builder()
            .with_file_size_in_bytes(self.file_size_in_bytes)
            .with_start(start)
            .with_length(length)
            .with_record_count(None)
            .with_data_file_path(self.data_file_path.clone())
            .with_data_file_format(DataFileFormat::Parquet)
            .with_schema(Arc::clone(&self.table_schema))
            .with_project_field_ids(read_ids)
            .with_predicate(predicate)
            // Equality deletes are ours (`EqualityDeletes`); iceberg-rust applies positions.
            .with_deletes(
                self.deletes
                    .into_iter()
                    .filter(|delete| delete.file_type == DataContentType::PositionDeletes)
                    .collect(),
            )
            .with_partition(self.partition.as_ref().map(|(_, data)| data.clone()))
            .with_partition_spec(self.partition.map(|(spec, _)| spec))
            .with_name_mapping(self.name_mapping)
            .with_case_sensitive(self.case_sensitive)
            .build();

        // One data file in flight: the reader's fast path, without a buffer of futures.
        let mut reader = ArrowReaderBuilder::new(self.file_io, runtime.iceberg())
            .with_data_file_concurrency_limit(1);
        if let Some(batch_size) = self.batch_size {
            reader = reader.with_batch_size(batch_size);
        }
        let tasks = futures::stream::iter([Ok::<_, iceberg::Error>(task)]).boxed();
        let stream = reader
            .build()
            .read(tasks)
            .map_err(|source| IcebergError::Read {
                path: self.data_file_path.clone(),
                source: Box::new(source),
            })?
            .stream();
        batches.stream = Some(stream);
        Ok(batches)
    }

    /// The table's top-level columns `ids` in Arrow, with their field IDs.
    fn arrow_schema(&self, ids: &[i32]) -> Result<ArrowSchemaRef> {
        let arrow = schema_to_arrow_schema(&self.table_schema)?;
        let by_id: HashMap<i32, &FieldRef> = arrow
            .fields()
            .iter()
            .filter_map(|field| Some((field.metadata().get(FIELD_ID_KEY)?.parse().ok()?, field)))
            .collect();
        let fields = ids
            .iter()
            .map(|id| {
                by_id.get(id).map(|field| Arc::clone(field)).ok_or_else(|| {
                    IcebergError::Invalid(format!("field ID {id} has no top-level Arrow column"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(ArrowSchema::new(fields)))
    }

    fn top_level_column(&self, id: i32, role: &str) -> Result<&iceberg::spec::NestedFieldRef> {
        let columns = self.table_schema.as_struct().fields();
        if let Some(field) = columns.iter().find(|field| field.id == id) {
            return Ok(field);
        }
        let why = match self.table_schema.field_by_id(id) {
            Some(field) => format!("is nested field `{}`", field.name),
            None => "is not in the table schema".to_string(),
        };
        let known = columns
            .iter()
            .map(|field| format!("{}={}", field.name, field.id))
            .collect::<Vec<_>>()
            .join(", ");
        Err(IcebergError::Invalid(format!(
            "{role} field ID {id} {why}; only top-level columns can be read ({known})"
        )))
    }

    fn check_projection(&self) -> Result<()> {
        let mut seen = HashSet::new();
        for &id in &self.project_field_ids {
            let field = self.top_level_column(id, "projected")?;
            if !seen.insert(id) {
                return Err(IcebergError::Invalid(format!(
                    "column `{}` (field ID {id}) is projected twice",
                    field.name
                )));
            }
        }
        Ok(())
    }

    /// The float filters' field IDs, each a top-level FLOAT or DOUBLE column.
    fn check_float_filters(&self) -> Result<Vec<i32>> {
        self.float_filters
            .iter()
            .map(|(id, _)| {
                let field = self.top_level_column(*id, "float-filtered")?;
                match field.field_type.as_ref() {
                    Type::Primitive(PrimitiveType::Float | PrimitiveType::Double) => Ok(*id),
                    other => Err(IcebergError::Invalid(format!(
                        "column `{}` (field ID {id}) is {other}; a FLOAT/DOUBLE filter needs \
                         float or double",
                        field.name
                    ))),
                }
            })
            .collect()
    }

    /// iceberg-rust panics on an equality delete file without equality IDs; say why instead.
    fn check_deletes(&self) -> Result<()> {
        for delete in &self.deletes {
            match delete.file_type {
                DataContentType::PositionDeletes => {}
                DataContentType::EqualityDeletes => {
                    let ids = delete.equality_ids.as_deref().unwrap_or_default();
                    if ids.is_empty() {
                        return Err(IcebergError::Invalid(format!(
                            "equality delete file `{}` has no equality field IDs",
                            delete.file_path
                        )));
                    }
                    for &id in ids {
                        let role = format!("equality delete file `{}`:", delete.file_path);
                        let field = self.top_level_column(id, &role)?;
                        if !field.field_type.is_primitive() {
                            return Err(IcebergError::Invalid(format!(
                                "{role} key column `{}` (field ID {id}) is {}, not primitive",
                                field.name, field.field_type
                            )));
                        }
                    }
                }
                DataContentType::Data => {
                    return Err(IcebergError::Invalid(format!(
                        "`{}` is a data file, not a delete file",
                        delete.file_path
                    )));
                }
            }
        }
        Ok(())
    }

    /// iceberg-rust indexes the partition tuple by spec position; a short tuple would panic.
    fn check_partition(&self) -> Result<()> {
        if let Some((spec, partition)) = &self.partition
            && partition.fields().len() != spec.fields().len()
        {
            return Err(IcebergError::Invalid(format!(
                "the partition of `{}` has {} values, but its spec {} has {} fields",
                self.data_file_path,
                partition.fields().len(),
                spec.spec_id(),
                spec.fields().len()
            )));
        }
        Ok(())
    }

    /// The distinct (sorted) key column sets of the equality delete files.
    fn equality_key_sets(&self) -> Vec<Vec<i32>> {
        let sets: BTreeSet<Vec<i32>> = self
            .deletes
            .iter()
            .filter(|delete| delete.file_type == DataContentType::EqualityDeletes)
            .map(sorted_ids)
            .collect();
        sets.into_iter().collect()
    }

    /// The keys of the equality delete files for each of `key_sets`, each key row-encoded
    /// from the table's Arrow types.
    ///
    /// iceberg-rust 0.10 turns each delete row into `NOT (a = v AND ...)` in its row filter,
    /// where `a = v` is NULL for a NULL `a`, so a row with a NULL key is dropped by any delete.
    /// Java Iceberg deletes a row only when its key equals a delete key, NULL equal to NULL
    /// (`StructLikeSet`), and so do we: a hash anti-join on row-encoded keys, which also costs
    /// one lookup per row instead of one comparison per row and delete.
    fn load_equality_deletes(&self, key_sets: Vec<Vec<i32>>) -> Result<Vec<(Vec<i32>, KeySet)>> {
        let mut deleted: Vec<(Vec<i32>, KeySet)> = key_sets
            .into_iter()
            .map(|ids| (ids, KeySet::new()))
            .collect();
        for delete in &self.deletes {
            if delete.file_type != DataContentType::EqualityDeletes {
                continue;
            }
            let ids = sorted_ids(delete);
            let indexes: Vec<usize> = (0..ids.len()).collect();
            let Some((_, keys)) = deleted.iter_mut().find(|(set, _)| *set == ids) else {
                continue;
            };
            // The delete file read like a data file: by field ID, promoted to the table types.
            let mut reader = TaskReader::new(
                self.file_io.clone(),
                Arc::clone(&self.table_schema),
                delete.file_path.clone(),
                delete.file_size_in_bytes,
                ids,
            )
            .with_case_sensitive(self.case_sensitive);
            reader.name_mapping = self.name_mapping.clone();
            let batches = reader.read()?;
            let converter = key_converter(&batches.schema(), &indexes)?;
            for batch in batches {
                let rows = converter.convert_columns(batch?.columns())?;
                keys.extend(rows.iter().map(|row| Box::from(row.as_ref())));
            }
        }
        Ok(deleted)
    }

    /// The predicate with identity-partition leaves folded, bound to the table schema.
    fn bound_predicate(&self) -> Result<Option<BoundPredicate>> {
        let Some(predicate) = &self.predicate else {
            return Ok(None);
        };
        // Without NOT, a leaf that is UNKNOWN may be taken as FALSE (the filter's answer).
        let mut predicate = predicate.clone().rewrite_not();
        if let Some((spec, partition)) = &self.partition {
            let constants = identity_constants(spec, partition);
            if !constants.is_empty() {
                predicate = fold_constants(
                    predicate,
                    &self.table_schema,
                    self.case_sensitive,
                    &constants,
                )?;
            }
        }
        Ok(Some(predicate.bind(
            Arc::clone(&self.table_schema),
            self.case_sensitive,
        )?))
    }
}

/// Non-NULL identity-partition values by source field ID: the columns iceberg-rust replaces
/// with constants (a NULL partition value is left to the file, as iceberg-rust does).
fn identity_constants(spec: &PartitionSpec, partition: &Struct) -> HashMap<i32, PrimitiveLiteral> {
    spec.fields()
        .iter()
        .zip(partition.iter())
        .filter(|(field, _)| matches!(field.transform, Transform::Identity))
        .filter_map(|(field, value)| match value {
            Some(Literal::Primitive(value)) => Some((field.source_id, value.clone())),
            _ => None,
        })
        .collect()
}

/// `predicate` (free of NOT) with every leaf on a constant column replaced by its value.
fn fold_constants(
    predicate: Predicate,
    schema: &SchemaRef,
    case_sensitive: bool,
    constants: &HashMap<i32, PrimitiveLiteral>,
) -> Result<Predicate> {
    let fold = |p: &Predicate| fold_constants(p.clone(), schema, case_sensitive, constants);
    Ok(match predicate {
        Predicate::And(and) => {
            let [left, right] = and.inputs();
            fold(left)?.and(fold(right)?)
        }
        Predicate::Or(or) => {
            let [left, right] = or.inputs();
            fold(left)?.or(fold(right)?)
        }
        leaf @ (Predicate::Unary(_) | Predicate::Binary(_) | Predicate::Set(_)) => {
            match on_constant(&leaf.bind(Arc::clone(schema), case_sensitive)?, constants) {
                Some(true) => Predicate::AlwaysTrue,
                Some(false) => Predicate::AlwaysFalse,
                None => leaf,
            }
        }
        other @ (Predicate::AlwaysTrue | Predicate::AlwaysFalse | Predicate::Not(_)) => other,
    })
}

/// A bound leaf's value on its column's constant, or `None` when the column is not constant
/// or the comparison is not one we can decide (then iceberg-rust evaluates it).
fn on_constant(leaf: &BoundPredicate, constants: &HashMap<i32, PrimitiveLiteral>) -> Option<bool> {
    use PredicateOperator as Op;
    use std::cmp::Ordering::{Equal, Greater, Less};
    match leaf {
        BoundPredicate::Unary(leaf) => {
            let value = constants.get(&leaf.term().field().id)?;
            match leaf.op() {
                Op::IsNull => Some(false),
                Op::NotNull => Some(true),
                Op::IsNan => Some(value.is_nan()),
                Op::NotNan => Some(!value.is_nan()),
                _ => None,
            }
        }
        BoundPredicate::Binary(leaf) => {
            let value = constants.get(&leaf.term().field().id)?;
            let literal = leaf.literal().literal();
            // The bound literal has the column's type; a constant of another kind is the
            // caller's mistake, which iceberg-rust reports when it builds the column.
            if std::mem::discriminant(value) != std::mem::discriminant(literal) {
                return None;
            }
            let order = value.partial_cmp(literal);
            match leaf.op() {
                Op::LessThan => order.map(|o| o == Less),
                Op::LessThanOrEq => order.map(|o| o != Greater),
                Op::GreaterThan => order.map(|o| o == Greater),
                Op::GreaterThanOrEq => order.map(|o| o != Less),
                Op::Eq => order.map(|o| o == Equal),
                Op::NotEq => order.map(|o| o != Equal),
                Op::StartsWith | Op::NotStartsWith => {
                    let (PrimitiveLiteral::String(value), PrimitiveLiteral::String(prefix)) =
                        (value, literal)
                    else {
                        return None;
                    };
                    Some(value.starts_with(prefix.as_str()) == (leaf.op() == Op::StartsWith))
                }
                _ => None,
            }
        }
        BoundPredicate::Set(leaf) => {
            let value = constants.get(&leaf.term().field().id)?;
            let found = leaf.literals().iter().any(|datum| datum.literal() == value);
            match leaf.op() {
                Op::In => Some(found),
                Op::NotIn => Some(!found),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Row encoding for the key `columns` of `schema`: equal keys (NULLs included) encode to
/// equal bytes.
fn key_converter(schema: &ArrowSchema, columns: &[usize]) -> Result<RowConverter> {
    let fields = columns
        .iter()
        .map(|&i| SortField::new(schema.field(i).data_type().clone()))
        .collect();
    Ok(RowConverter::new(fields)?)
}

/// An equality delete file's key field IDs, sorted (the key column order we encode).
fn sorted_ids(delete: &FileScanTaskDeleteFile) -> Vec<i32> {
    let mut ids = delete.equality_ids.clone().unwrap_or_default();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Row-encoded keys (see [`key_converter`]).
type KeySet = HashSet<Box<[u8]>>;

/// The keys deleted by the equality delete files sharing one set of equality field IDs.
struct EqualityDeletes {
    /// The key columns' indexes in the read schema, in field-ID order.
    columns: Vec<usize>,
    converter: RowConverter,
    keys: KeySet,
}

impl EqualityDeletes {
    /// The rows of `batch` whose key is not deleted.
    fn kept(&self, batch: &RecordBatch) -> Result<BooleanBuffer> {
        let columns: Vec<ArrayRef> = self
            .columns
            .iter()
            .map(|&i| Arc::clone(batch.column(i)))
            .collect();
        let rows = self.converter.convert_columns(&columns)?;
        Ok(BooleanBuffer::collect_bool(rows.num_rows(), |i| {
            !self.keys.contains(rows.row(i).as_ref())
        }))
    }
}

/// The batches of one task, pulled one at a time: each `next` drives the reader on the task
/// thread's runtime until it yields a batch. Not `Send`: consume it on the thread that read.
///
/// Every batch has [`TaskBatches::schema`]; batches left empty by the float filters are
/// skipped. The first error (or a panic inside iceberg-rust, caught) ends the iteration.
pub struct TaskBatches {
    runtime: Rc<TaskRuntime>,
    /// `None` once finished (or when there was nothing to read).
    stream: Option<ArrowRecordBatchStream>,
    path: String,
    /// The projection plus the float-filter columns, in the table's Arrow types.
    read_schema: ArrowSchemaRef,
    /// The projection: the first columns of `read_schema`.
    output_schema: ArrowSchemaRef,
    /// Float filters by column index in `read_schema`.
    float_filters: Vec<(usize, FloatFilter)>,
    /// Equality delete keys, by key columns in `read_schema`.
    equality_deletes: Vec<EqualityDeletes>,
}

impl TaskBatches {
    /// The schema of every batch.
    pub fn schema(&self) -> ArrowSchemaRef {
        Arc::clone(&self.output_schema)
    }

    fn adapt(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let batch = flatten_constants(batch, &self.read_schema)?;
        if self.float_filters.is_empty() && self.equality_deletes.is_empty() {
            return Ok(batch);
        }
        let mut keep = filters_mask(&batch, &self.float_filters)?;
        for deletes in &self.equality_deletes {
            let kept = deletes.kept(&batch)?;
            keep = Some(match keep {
                Some(keep) => &keep & &kept,
                None => kept,
            });
        }
        let batch = match keep {
            Some(keep) => filter_record_batch(&batch, &BooleanArray::new(keep, None))?,
            None => batch,
        };
        // Drop the columns read only for filters and delete keys.
        let projected = batch.columns()[..self.output_schema.fields().len()].to_vec();
        let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        Ok(RecordBatch::try_new_with_options(
            Arc::clone(&self.output_schema),
            projected,
            &options,
        )?)
    }

    fn fail(&mut self, error: IcebergError) -> Option<Result<RecordBatch>> {
        self.stream = None;
        Some(Err(error))
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_string()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a panic without a message".to_string()
    }
}

impl Iterator for TaskBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let stream = self.stream.as_mut()?;
            let runtime = &self.runtime;
            // iceberg-rust unwraps in places (a delete file it cannot parse ends in a panic);
            // a Flink task must get an error, not an abort of its JVM.
            let polled = catch_unwind(AssertUnwindSafe(|| runtime.block_on(stream.next())));
            let batch = match polled {
                Ok(Some(Ok(batch))) => batch,
                Ok(None) => {
                    self.stream = None;
                    return None;
                }
                Ok(Some(Err(source))) => {
                    let path = self.path.clone();
                    let source = Box::new(source);
                    return self.fail(IcebergError::Read { path, source });
                }
                Err(payload) => {
                    let path = self.path.clone();
                    let message = panic_message(payload.as_ref());
                    return self.fail(IcebergError::ReaderPanic { path, message });
                }
            };
            match self.adapt(&batch) {
                Ok(batch) if batch.num_rows() == 0 => continue,
                Ok(batch) => return Some(Ok(batch)),
                Err(error) => return self.fail(error),
            }
        }
    }
}

impl std::iter::FusedIterator for TaskBatches {}

impl std::fmt::Debug for TaskBatches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskBatches")
            .field("path", &self.path)
            .field("finished", &self.stream.is_none())
            .field("schema", &self.output_schema)
            .field("float_filters", &self.float_filters)
            .field("equality_delete_sets", &self.equality_deletes.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use arrow::array::{
        Array, ArrayRef, AsArray, Float64Array, Int32Array, Int64Array, StringArray,
        TimestampMicrosecondArray,
    };
    use arrow::compute::concat_batches;
    use arrow::datatypes::{DataType, Field, Int64Type, TimeUnit};
    use bytes::Bytes;
    use iceberg::expr::Reference;
    use iceberg::metadata_columns::{
        RESERVED_FIELD_ID_DELETE_FILE_PATH, RESERVED_FIELD_ID_DELETE_FILE_POS,
    };
    use iceberg::spec::{Datum, MappedField, NestedField, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Encoding;
    use parquet::file::metadata::ParquetMetaDataReader;
    use parquet::file::properties::{BloomFilterPosition, WriterProperties};

    use super::*;

    // Table `t`: id long, name string, score double, region string and ts timestamptz; the
    // data files carry id, name and score only (region and ts are identity partitions).
    const ID: i32 = 1;
    const NAME: i32 = 2;
    const SCORE: i32 = 3;
    const REGION: i32 = 4;
    const TS: i32 = 5;
    const TS_VALUE: i64 = 1_700_000_000_123_456;

    fn table() -> SchemaRef {
        let fields = vec![
            NestedField::required(ID, "id", Type::Primitive(PrimitiveType::Long)),
            NestedField::optional(NAME, "name", Type::Primitive(PrimitiveType::String)),
            NestedField::optional(SCORE, "score", Type::Primitive(PrimitiveType::Double)),
            NestedField::optional(REGION, "region", Type::Primitive(PrimitiveType::String)),
            NestedField::optional(TS, "ts", Type::Primitive(PrimitiveType::Timestamptz)),
        ];
        Arc::new(
            Schema::builder()
                .with_fields(fields.into_iter().map(Arc::new))
                .build()
                .unwrap(),
        )
    }

    fn field(name: &str, data_type: DataType, nullable: bool, id: i32) -> Field {
        Field::new(name, data_type, nullable)
            .with_metadata(HashMap::from([(FIELD_ID_KEY.to_string(), id.to_string())]))
    }

    fn parquet(batch: &RecordBatch, props: Option<WriterProperties>) -> Bytes {
        let mut out = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), props).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
        Bytes::from(out)
    }

    fn put(io: &FileIO, path: &str, bytes: Bytes) -> u64 {
        let len = bytes.len() as u64;
        futures::executor::block_on(io.new_output(path).unwrap().write(bytes)).unwrap();
        len
    }

    const SCORES: [Option<f64>; 7] = [
        Some(1.5),
        Some(-0.0),
        Some(f64::NAN),
        None,
        Some(0.0),
        Some(f64::INFINITY),
        Some(f64::NEG_INFINITY),
    ];
    const NAMES: [&str; 7] = ["a", "b", "c", "d", "e", "f", "g"];

    /// The data file: ids 0..7, names a..g and the scores above, with field IDs.
    fn data_batch() -> RecordBatch {
        let schema = Arc::new(ArrowSchema::new(vec![
            field("id", DataType::Int64, false, ID),
            field("name", DataType::Utf8, true, NAME),
            field("score", DataType::Float64, true, SCORE),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from_iter_values(0..7)),
                Arc::new(StringArray::from(NAMES.to_vec())),
                Arc::new(Float64Array::from(SCORES.to_vec())),
            ],
        )
        .unwrap()
    }

    const DATA: &str = "memory:///t/data/00000.parquet";

    fn setup() -> (FileIO, u64) {
        let io = FileIO::new_with_memory();
        let size = put(&io, DATA, parquet(&data_batch(), None));
        (io, size)
    }

    fn reader(io: &FileIO, size: u64, projection: Vec<i32>) -> TaskReader {
        TaskReader::new(io.clone(), table(), DATA, size, projection)
    }

    fn read_all(reader: TaskReader) -> Result<RecordBatch> {
        let batches = reader.read()?;
        let schema = batches.schema();
        let batches = batches.collect::<Result<Vec<_>>>()?;
        Ok(concat_batches(&schema, &batches)?)
    }

    fn ids(batch: &RecordBatch, column: usize) -> Vec<i64> {
        batch
            .column(column)
            .as_primitive::<Int64Type>()
            .values()
            .to_vec()
    }

    fn names_and_types(batch: &RecordBatch) -> Vec<(String, DataType)> {
        batch
            .schema()
            .fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect()
    }

    #[test]
    fn full_projection_reads_the_file_back() {
        let (io, size) = setup();
        let out = read_all(reader(&io, size, vec![ID, NAME, SCORE])).unwrap();
        let input = data_batch();
        assert_eq!(out.num_rows(), 7);
        for (got, want) in out.columns().iter().zip(input.columns()) {
            assert_eq!(got.as_ref(), want.as_ref());
        }
        // Field IDs travel with the output schema.
        let id = out.schema().field(2).metadata()[FIELD_ID_KEY].clone();
        assert_eq!(id, SCORE.to_string());
    }

    #[test]
    fn single_and_reordered_projections() {
        let (io, size) = setup();
        let names = read_all(reader(&io, size, vec![NAME])).unwrap();
        assert_eq!(names.num_columns(), 1);
        assert_eq!(names.column(0).as_ref(), &StringArray::from(NAMES.to_vec()));

        let reordered = read_all(reader(&io, size, vec![SCORE, ID])).unwrap();
        assert_eq!(
            names_and_types(&reordered),
            [
                ("score".to_string(), DataType::Float64),
                ("id".to_string(), DataType::Int64)
            ]
        );
        assert_eq!(
            reordered.column(0).as_ref(),
            &Float64Array::from(SCORES.to_vec())
        );
        assert_eq!(ids(&reordered, 1), (0..7).collect::<Vec<_>>());
    }

    #[test]
    fn an_empty_projection_counts_rows() {
        let (io, size) = setup();
        let out = read_all(reader(&io, size, vec![])).unwrap();
        assert_eq!((out.num_columns(), out.num_rows()), (0, 7));
    }

    #[test]
    fn small_batches_arrive_one_at_a_time() {
        let (io, size) = setup();
        let mut batches = reader(&io, size, vec![ID])
            .with_batch_size(3)
            .read()
            .unwrap();
        let first = batches.next().unwrap().unwrap();
        assert_eq!(ids(&first, 0), [0, 1, 2]);
        let rest: Vec<i64> = batches.by_ref().flat_map(|b| ids(&b.unwrap(), 0)).collect();
        assert_eq!(rest, [3, 4, 5, 6]);
        assert!(batches.next().is_none());
    }

    #[test]
    fn int_columns_are_promoted_to_long() {
        let io = FileIO::new_with_memory();
        let schema = Arc::new(ArrowSchema::new(vec![field("n", DataType::Int32, true, 1)]));
        let batch = RecordBatch::try_new(
            schema,
            vec![Arc::new(Int32Array::from(vec![
                Some(i32::MIN),
                None,
                Some(7),
            ]))],
        )
        .unwrap();
        let size = put(&io, "memory:///p/n.parquet", parquet(&batch, None));
        let table = Arc::new(
            Schema::builder()
                .with_fields([Arc::new(NestedField::optional(
                    1,
                    "n",
                    Type::Primitive(PrimitiveType::Long),
                ))])
                .build()
                .unwrap(),
        );
        let out = read_all(TaskReader::new(
            io,
            table,
            "memory:///p/n.parquet",
            size,
            vec![1],
        ))
        .unwrap();
        assert_eq!(
            out.column(0).as_ref(),
            &Int64Array::from(vec![Some(i64::from(i32::MIN)), None, Some(7)])
        );
    }

    fn partitioned(reader: TaskReader) -> TaskReader {
        let schema = table();
        let spec = PartitionSpec::builder(schema)
            .with_spec_id(0)
            .add_partition_field("region", "region", Transform::Identity)
            .unwrap()
            .add_partition_field("ts", "ts", Transform::Identity)
            .unwrap()
            .build()
            .unwrap();
        let partition = Struct::from_iter([
            Some(Literal::string("eu")),
            Some(Literal::timestamptz(TS_VALUE)),
        ]);
        reader.with_partition(Arc::new(spec), partition)
    }

    #[test]
    fn identity_constants_absent_from_the_file_read_flat_in_table_types() {
        let (io, size) = setup();
        let out = read_all(partitioned(reader(&io, size, vec![ID, REGION, TS]))).unwrap();
        let utc = Some(Arc::from("+00:00"));
        assert_eq!(
            names_and_types(&out),
            [
                ("id".to_string(), DataType::Int64),
                ("region".to_string(), DataType::Utf8),
                (
                    "ts".to_string(),
                    DataType::Timestamp(TimeUnit::Microsecond, utc)
                ),
            ]
        );
        assert_eq!(out.column(1).as_ref(), &StringArray::from(vec!["eu"; 7]));
        let ts: ArrayRef =
            Arc::new(TimestampMicrosecondArray::from(vec![TS_VALUE; 7]).with_timezone("+00:00"));
        assert_eq!(out.column(2).as_ref(), ts.as_ref());
    }

    /// What iceberg-rust 0.10 does with a predicate on a constant column missing from the
    /// file: it reads the column as NULL and drops every row. `TaskReader` folds such leaves.
    #[test]
    fn iceberg_alone_drops_rows_on_partition_predicates() {
        let (io, size) = setup();
        let schema = table();
        let spec = PartitionSpec::builder(schema.clone())
            .add_partition_field("region", "region", Transform::Identity)
            .unwrap()
            .build()
            .unwrap();
        let predicate = Reference::new("region")
            .equal_to(Datum::string("eu"))
            .bind(schema.clone(), true)
            .unwrap();
        let task = FileScanTask::builder()
            .with_file_size_in_bytes(size)
            .with_start(0)
            .with_length(0)
            .with_data_file_path(DATA.to_string())
            .with_data_file_format(DataFileFormat::Parquet)
            .with_schema(schema)
            .with_project_field_ids(vec![ID, REGION])
            .with_predicate(Some(predicate))
            .with_partition(Some(Struct::from_iter([Some(Literal::string("eu"))])))
            .with_partition_spec(Some(Arc::new(spec)))
            .with_case_sensitive(true)
            .build();
        let runtime = TaskRuntime::current().unwrap();
        let rows: usize = runtime.block_on(async {
            let reader = ArrowReaderBuilder::new(io, runtime.iceberg())
                .with_data_file_concurrency_limit(1)
                .build();
            let stream = reader
                .read(futures::stream::iter([Ok(task)]).boxed())
                .unwrap()
                .stream();
            stream
                .map(|batch| batch.unwrap().num_rows())
                .fold(0, |sum, rows| async move { sum + rows })
                .await
        });
        assert_eq!(rows, 0);
    }

    #[test]
    fn partition_predicates_fold_to_the_partition_value() {
        let (io, size) = setup();
        let region = || Reference::new("region");
        let eu = partitioned(reader(&io, size, vec![ID]))
            .with_predicate(region().equal_to(Datum::string("eu")));
        assert_eq!(ids(&read_all(eu).unwrap(), 0), (0..7).collect::<Vec<_>>());

        let us = partitioned(reader(&io, size, vec![ID]))
            .with_predicate(region().equal_to(Datum::string("us")));
        assert_eq!(read_all(us).unwrap().num_rows(), 0);

        // Mixed with a data column, and under NOT / OR.
        let mixed = partitioned(reader(&io, size, vec![ID])).with_predicate(
            region()
                .is_in([Datum::string("eu"), Datum::string("fr")])
                .and(Reference::new("id").greater_than_or_equal_to(Datum::long(5))),
        );
        assert_eq!(ids(&read_all(mixed).unwrap(), 0), [5, 6]);
        let negated = partitioned(reader(&io, size, vec![ID])).with_predicate(
            (!region().starts_with(Datum::string("e")))
                .or(Reference::new("id").less_than(Datum::long(2))),
        );
        assert_eq!(ids(&read_all(negated).unwrap(), 0), [0, 1]);
        let ts = partitioned(reader(&io, size, vec![ID]))
            .with_predicate(Reference::new("ts").greater_than(Datum::timestamptz_micros(0)));
        assert_eq!(read_all(ts).unwrap().num_rows(), 7);
    }

    #[test]
    fn a_predicate_on_a_projected_away_column() {
        let (io, size) = setup();
        let out = read_all(
            reader(&io, size, vec![NAME])
                .with_predicate(Reference::new("id").greater_than_or_equal_to(Datum::long(4))),
        )
        .unwrap();
        assert_eq!(
            names_and_types(&out),
            [("name".to_string(), DataType::Utf8)]
        );
        assert_eq!(
            out.column(0).as_ref(),
            &StringArray::from(vec!["e", "f", "g"])
        );
    }

    #[test]
    fn legacy_files_read_through_a_name_mapping() {
        let io = FileIO::new_with_memory();
        // Written before the table had field IDs, under older column names.
        let schema = Arc::new(ArrowSchema::new(vec![
            Field::new("user_id", DataType::Int64, false),
            Field::new("nm", DataType::Utf8, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(vec![10, 20])),
                Arc::new(StringArray::from(vec![Some("x"), None])),
            ],
        )
        .unwrap();
        let path = "memory:///t/data/legacy.parquet";
        let size = put(&io, path, parquet(&batch, None));
        let mapping = NameMapping::new(vec![
            MappedField::new(Some(ID), vec!["id".into(), "user_id".into()], vec![]),
            MappedField::new(Some(NAME), vec!["name".into(), "nm".into()], vec![]),
        ]);
        let out = read_all(
            TaskReader::new(io, table(), path, size, vec![NAME, ID, SCORE])
                .with_name_mapping(Arc::new(mapping)),
        )
        .unwrap();
        assert_eq!(
            names_and_types(&out),
            [
                ("name".to_string(), DataType::Utf8),
                ("id".to_string(), DataType::Int64),
                ("score".to_string(), DataType::Float64),
            ]
        );
        assert_eq!(
            out.column(0).as_ref(),
            &StringArray::from(vec![Some("x"), None])
        );
        assert_eq!(ids(&out, 1), [10, 20]);
        // A column the file never had reads as NULL.
        assert_eq!(out.column(2).null_count(), 2);
    }

    fn delete_file(path: &str, kind: DataContentType, size: u64) -> FileScanTaskDeleteFile {
        FileScanTaskDeleteFile::builder()
            .with_file_path(path.to_string())
            .with_file_size_in_bytes(size)
            .with_file_type(kind)
            .with_partition_spec_id(0)
            .with_equality_ids((kind == DataContentType::EqualityDeletes).then(|| vec![ID]))
            .build()
    }

    fn positional_deletes(io: &FileIO, path: &str, rows: &[(&str, i64)]) -> u64 {
        let schema = Arc::new(ArrowSchema::new(vec![
            field(
                "file_path",
                DataType::Utf8,
                false,
                RESERVED_FIELD_ID_DELETE_FILE_PATH,
            ),
            field(
                "pos",
                DataType::Int64,
                false,
                RESERVED_FIELD_ID_DELETE_FILE_POS,
            ),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.0))),
                Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.1))),
            ],
        )
        .unwrap();
        put(io, path, parquet(&batch, None))
    }

    #[test]
    fn positional_deletes_drop_their_rows() {
        let (io, size) = setup();
        let path = "memory:///t/data/pos-deletes.parquet";
        let other = "memory:///t/data/other.parquet";
        let del = positional_deletes(&io, path, &[(DATA, 1), (DATA, 3), (other, 0)]);
        let out = read_all(reader(&io, size, vec![ID]).with_deletes(vec![delete_file(
            path,
            DataContentType::PositionDeletes,
            del,
        )]))
        .unwrap();
        assert_eq!(ids(&out, 0), [0, 2, 4, 5, 6]);
    }

    #[test]
    fn equality_deletes_drop_matching_keys() {
        let (io, size) = setup();
        let schema = Arc::new(ArrowSchema::new(vec![field(
            "id",
            DataType::Int64,
            false,
            ID,
        )]));
        let batch =
            RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(vec![0, 4, 99]))]).unwrap();
        let path = "memory:///t/data/eq-deletes.parquet";
        let del = put(&io, path, parquet(&batch, None));
        let by_id = delete_file(path, DataContentType::EqualityDeletes, del);
        let out =
            read_all(reader(&io, size, vec![NAME]).with_deletes(vec![by_id.clone()])).unwrap();
        assert_eq!(
            out.column(0).as_ref(),
            &StringArray::from(vec!["b", "c", "d", "f", "g"])
        );

        // A second file keyed on (name, id), its columns in another order: only rows whose
        // whole key matches go, so ("x", 2) deletes nothing.
        let schema = Arc::new(ArrowSchema::new(vec![
            field("name", DataType::Utf8, true, NAME),
            field("id", DataType::Int64, false, ID),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(StringArray::from(vec!["b", "x"])),
                Arc::new(Int64Array::from(vec![1, 2])),
            ],
        )
        .unwrap();
        let path = "memory:///t/data/eq-deletes-2.parquet";
        let del = put(&io, path, parquet(&batch, None));
        let mut by_pair = delete_file(path, DataContentType::EqualityDeletes, del);
        by_pair.equality_ids = Some(vec![NAME, ID]);
        let out = read_all(
            reader(&io, size, vec![NAME, SCORE])
                .with_deletes(vec![by_id, by_pair])
                .with_float_filter(SCORE, FloatFilter::In(vec![f64::NAN, -0.0, 0.0])),
        )
        .unwrap();
        // The deletes leave c (NaN), d (NULL), f and g; the filter keeps c.
        assert_eq!(out.num_columns(), 2);
        assert_eq!(out.column(0).as_ref(), &StringArray::from(vec!["c"]));
    }

    /// Java Iceberg deletes a row only when its key equals a delete row's key (NULL equal
    /// to NULL), so a NULL key survives a delete of `'a'`.
    #[test]
    fn equality_deletes_keep_rows_with_null_keys() {
        let io = FileIO::new_with_memory();
        let schema = Arc::new(ArrowSchema::new(vec![
            field("id", DataType::Int64, false, ID),
            field("name", DataType::Utf8, true, NAME),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(vec![0, 1, 2])),
                Arc::new(StringArray::from(vec![Some("a"), None, Some("b")])),
            ],
        )
        .unwrap();
        let path = "memory:///t/data/null-keys.parquet";
        let size = put(&io, path, parquet(&batch, None));
        let schema = Arc::new(ArrowSchema::new(vec![field(
            "name",
            DataType::Utf8,
            true,
            NAME,
        )]));
        let deletes =
            RecordBatch::try_new(schema, vec![Arc::new(StringArray::from(vec!["a"]))]).unwrap();
        let del_path = "memory:///t/data/null-keys-deletes.parquet";
        let del = put(&io, del_path, parquet(&deletes, None));
        let mut delete = delete_file(del_path, DataContentType::EqualityDeletes, del);
        delete.equality_ids = Some(vec![NAME]);
        let out =
            read_all(TaskReader::new(io, table(), path, size, vec![ID]).with_deletes(vec![delete]))
                .unwrap();
        assert_eq!(ids(&out, 0), [1, 2]);
    }

    /// iceberg-rust's pushed `=` on a double is totalOrder: `score = 0.0` misses `-0.0`.
    #[test]
    fn iceberg_pushed_float_equality_is_total_order() {
        let (io, size) = setup();
        let out = read_all(
            reader(&io, size, vec![ID])
                .with_predicate(Reference::new("score").equal_to(Datum::double(0.0))),
        )
        .unwrap();
        assert_eq!(ids(&out, 0), [4]);
    }

    #[test]
    fn float_filters_follow_flink() {
        let (io, size) = setup();
        // scores by id: 1.5, -0.0, NaN, NULL, 0.0, +inf, -inf
        let cases = [
            (FloatFilter::Eq(0.0), vec![1, 4]),
            (FloatFilter::Eq(-0.0), vec![1, 4]),
            (FloatFilter::Eq(f64::NAN), vec![]),
            (FloatFilter::Eq(f64::INFINITY), vec![5]),
            (FloatFilter::In(vec![0.0, 1.5]), vec![0, 4]),
            (FloatFilter::In(vec![-0.0]), vec![1]),
            (
                FloatFilter::In(vec![f64::NAN, f64::NEG_INFINITY]),
                vec![2, 6],
            ),
        ];
        for (filter, expected) in cases {
            // The score column is read for the filter and dropped afterwards.
            let out = read_all(
                reader(&io, size, vec![ID])
                    .with_batch_size(2)
                    .with_float_filter(SCORE, filter.clone()),
            )
            .unwrap();
            assert_eq!(names_and_types(&out), [("id".to_string(), DataType::Int64)]);
            assert_eq!(ids(&out, 0), expected, "{filter:?}");
        }
        // Projected and filtered twice (ANDed).
        let out = read_all(
            reader(&io, size, vec![SCORE, ID])
                .with_float_filter(SCORE, FloatFilter::In(vec![0.0, -0.0, 1.5]))
                .with_float_filter(SCORE, FloatFilter::Eq(0.0)),
        )
        .unwrap();
        assert_eq!(ids(&out, 1), [1, 4]);
        assert_eq!(out.column(0).as_ref(), &Float64Array::from(vec![-0.0, 0.0]));
    }

    /// A 4-row-group file (1000 ids each) with blooms at `position`.
    fn four_groups(io: &FileIO, path: &str, position: BloomFilterPosition) -> (u64, Bytes) {
        // Delta-encoded consecutive ids are far smaller than their bloom filters.
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(1000))
            .set_dictionary_enabled(false)
            .set_encoding(Encoding::DELTA_BINARY_PACKED)
            .set_bloom_filter_enabled(true)
            .set_bloom_filter_ndv(20_000)
            .set_bloom_filter_position(position)
            .build();
        let schema = Arc::new(ArrowSchema::new(vec![field(
            "id",
            DataType::Int64,
            false,
            ID,
        )]));
        let batch = RecordBatch::try_new(
            schema,
            vec![Arc::new(Int64Array::from_iter_values(0..4000))],
        )
        .unwrap();
        let bytes = parquet(&batch, Some(props));
        (put(io, path, bytes.clone()), bytes)
    }

    #[test]
    fn split_halves_read_every_row_once() {
        let io = FileIO::new_with_memory();
        for (position, path) in [
            (
                BloomFilterPosition::AfterRowGroup,
                "memory:///s/after.parquet",
            ),
            (BloomFilterPosition::End, "memory:///s/end.parquet"),
        ] {
            let (size, bytes) = four_groups(&io, path, position);
            let metadata = ParquetMetaDataReader::new()
                .parse_and_finish(&bytes)
                .unwrap();
            assert_eq!(metadata.num_row_groups(), 4);
            let column = metadata.row_group(2).column(0);
            let third = column
                .dictionary_page_offset()
                .unwrap_or(column.data_page_offset()) as u64;
            let split = |start, length| {
                let out = read_all(
                    TaskReader::new(io.clone(), table(), path, size, vec![ID])
                        .with_split(start, length),
                )
                .unwrap();
                ids(&out, 0)
            };
            // Halves cut at row group 2's first byte: Java reads groups {0, 1} then {2, 3}.
            assert_eq!(
                split(0, third),
                (0..2000).collect::<Vec<_>>(),
                "{position:?}"
            );
            assert_eq!(
                split(third, size - third),
                (2000..4000).collect::<Vec<_>>(),
                "{position:?}"
            );
            // The magic bytes hold no row group's midpoint.
            assert!(split(0, 4).is_empty());
            // Halves cut anywhere: together every row once, in order.
            for cut in [size / 2, size / 3, 5, size - 5] {
                let mut both = split(0, cut);
                both.extend(split(cut, size - cut));
                assert_eq!(
                    both,
                    (0..4000).collect::<Vec<_>>(),
                    "{position:?} cut {cut}"
                );
            }
        }
    }

    #[test]
    fn bad_requests_are_errors_naming_what_is_wrong() {
        let (io, size) = setup();
        let message = |reader: TaskReader| reader.read().unwrap_err().to_string();

        let err = message(reader(&io, size, vec![ID, 99]));
        assert!(err.contains("field ID 99") && err.contains("id=1"), "{err}");
        let err = message(reader(&io, size, vec![ID, ID]));
        assert!(err.contains("`id`") && err.contains("twice"), "{err}");
        let err =
            message(reader(&io, size, vec![ID]).with_float_filter(NAME, FloatFilter::Eq(0.0)));
        assert!(err.contains("`name`") && err.contains("string"), "{err}");
        let err = message(
            reader(&io, size, vec![ID])
                .with_predicate(Reference::new("nope").equal_to(Datum::long(1))),
        );
        assert!(err.contains("nope"), "{err}");
        let mut eq = delete_file("memory:///x.parquet", DataContentType::EqualityDeletes, 9);
        eq.equality_ids = None;
        let err = message(reader(&io, size, vec![ID]).with_deletes(vec![eq]));
        assert!(err.contains("memory:///x.parquet"), "{err}");
        let spec = PartitionSpec::builder(table())
            .add_partition_field("region", "region", Transform::Identity)
            .unwrap()
            .build()
            .unwrap();
        let err =
            message(reader(&io, size, vec![ID]).with_partition(Arc::new(spec), Struct::empty()));
        assert!(err.contains("0 values"), "{err}");
        let err = message(reader(&io, size, vec![ID]).with_split(0, 0));
        assert!(err.contains("length 0"), "{err}");
        let err = message(reader(&io, size, vec![ID]).with_batch_size(0));
        assert!(err.contains("batch size 0"), "{err}");
        let err = message(reader(&io, size, vec![6]));
        assert!(err.contains("field ID 6") && err.contains("ts=5"), "{err}");
    }

    #[test]
    fn unreadable_files_are_errors_not_panics() {
        let (io, size) = setup();
        let first_error = |reader: TaskReader| -> IcebergError {
            match reader.read() {
                Err(err) => err,
                Ok(mut batches) => {
                    let err = batches.find_map(Result::err).expect("an error");
                    assert!(batches.next().is_none(), "iteration ends after an error");
                    err
                }
            }
        };
        let missing = "memory:///t/data/missing.parquet";
        let err = first_error(TaskReader::new(
            io.clone(),
            table(),
            missing,
            size,
            vec![ID],
        ));
        assert!(
            matches!(&err, IcebergError::Read { path, .. } if path == missing),
            "{err}"
        );

        let garbage = "memory:///t/data/garbage.parquet";
        let len = put(&io, garbage, Bytes::from(vec![7u8; 64]));
        let err = first_error(TaskReader::new(io.clone(), table(), garbage, len, vec![ID]));
        assert!(
            matches!(&err, IcebergError::Read { path, .. } if path == garbage),
            "{err}"
        );
        let err = first_error(
            TaskReader::new(io.clone(), table(), garbage, len, vec![ID]).with_split(0, 32),
        );
        assert!(err.to_string().contains(garbage), "{err}");

        // A positional delete file with one column makes iceberg-rust index out of bounds (in
        // a task it spawns) and then unwrap the dropped result (in our poll).
        let schema = Arc::new(ArrowSchema::new(vec![field(
            "file_path",
            DataType::Utf8,
            false,
            RESERVED_FIELD_ID_DELETE_FILE_PATH,
        )]));
        let batch =
            RecordBatch::try_new(schema, vec![Arc::new(StringArray::from(vec![DATA]))]).unwrap();
        let bad = "memory:///t/data/bad-deletes.parquet";
        let del = put(&io, bad, parquet(&batch, None));
        let bad_delete = delete_file(bad, DataContentType::PositionDeletes, del);
        let err = first_error(reader(&io, size, vec![ID]).with_deletes(vec![bad_delete]));
        assert!(
            matches!(&err, IcebergError::ReaderPanic { path, .. } if path == DATA),
            "{err}"
        );
        // The thread's runtime still works afterwards.
        assert_eq!(read_all(reader(&io, size, vec![ID])).unwrap().num_rows(), 7);
    }
}
