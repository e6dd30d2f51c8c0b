//! Moving record batches across the Arrow C Data Interface.
//!
//! A batch crosses as a struct array (one child per column) plus, unless the receiver has
//! the schema cached, its `ArrowSchema`. Imports are zero-copy: the imported arrays point at
//! the exported buffers, which stay alive until every imported array is dropped (the C Data
//! release callback then frees them on the producer's side).
//!
//! | producer                     | consumer                                  |
//! |------------------------------|-------------------------------------------|
//! | [`export_batch`]             | [`import_batch`] / [`import_batch_from_raw`] |
//! | [`export_array`]             | [`import_array`] with a [`CachedSchema`]  |
//! | [`export_changelog`]         | [`import_changelog`]                      |
//!
//! Every import first checks the C structures against the type it expects (see the
//! `ffi_check` module), then lets Arrow validate the result: [`Validation::Structure`] (the
//! default) checks buffer sizes and first/last offsets in O(columns); [`Validation::Full`]
//! also checks every offset, UTF-8 and dictionary key in O(data).
//!
//! [`fan_out`] serves one batch to several consumers (for example several Iceberg file
//! writers): [`Fanout::Shared`] imports once and lets consumers borrow it,
//! [`Fanout::Repeated`] gives each consumer its own export/import pair.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, AsArray, Int8Array, RecordBatch, RecordBatchOptions, StructArray,
};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::ffi::{FFI_ArrowArray, FFI_ArrowSchema, from_ffi_and_data_type};
use streamfusion_core::changelog::ChangelogBatch;

use crate::error::{BridgeError, Result};
use crate::export_align::align_for_export;
use crate::ffi_check::check_array;

/// How much an import validates beyond the C structures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Validation {
    /// Buffer sizes and first/last offsets: O(number of buffers).
    #[default]
    Structure,
    /// Also every offset, UTF-8 validity and dictionary key: O(data).
    Full,
}

/// A batch exported with its full schema: an `ArrowArray` (struct of columns) and its
/// `ArrowSchema`. Dropping it unimported releases both.
#[derive(Debug)]
pub struct ExportedBatch {
    /// The struct array of columns.
    pub array: FFI_ArrowArray,
    /// The schema of the struct array, with the batch's field and schema metadata.
    pub schema: FFI_ArrowSchema,
}

/// Exports `batch` with its full schema.
pub fn export_batch(batch: &RecordBatch) -> Result<ExportedBatch> {
    let schema = FFI_ArrowSchema::try_from(batch.schema_ref().as_ref())?;
    Ok(ExportedBatch {
        array: export_array(batch),
        schema,
    })
}

/// Exports `batch` as a struct array without its schema, for a receiver that has the
/// schema cached ([`CachedSchema`]).
pub fn export_array(batch: &RecordBatch) -> FFI_ArrowArray {
    let data = align_for_export(StructArray::from(batch.clone()).into_data());
    FFI_ArrowArray::new(&data)
}

/// Imports a full-schema export, taking ownership of it.
pub fn import_batch(exported: ExportedBatch, validation: Validation) -> Result<RecordBatch> {
    let ExportedBatch { array, schema } = exported;
    if schema.release.is_none() {
        return Err(BridgeError::Released {
            what: "ArrowSchema",
        });
    }
    let schema = Arc::new(Schema::try_from(&schema)?);
    import_struct(
        array,
        &schema,
        &DataType::Struct(schema.fields().clone()),
        validation,
    )
}

/// Imports a batch from C Data structs at raw addresses (as handed over through JNI),
/// moving them out: afterwards both structs are marked released, so a second import of the
/// same addresses fails with [`BridgeError::Released`] instead of freeing twice.
///
/// # Safety
/// Each pointer must be null or point to a properly aligned, initialised C Data struct that
/// the caller may move from, and whose contents follow the Arrow C Data Interface.
pub unsafe fn import_batch_from_raw(
    array: *mut FFI_ArrowArray,
    schema: *mut FFI_ArrowSchema,
    validation: Validation,
) -> Result<RecordBatch> {
    const OPERATION: &str = "import_batch_from_raw";
    if array.is_null() {
        return Err(BridgeError::NullPointer {
            what: "ArrowArray",
            operation: OPERATION,
        });
    }
    if schema.is_null() {
        return Err(BridgeError::NullPointer {
            what: "ArrowSchema",
            operation: OPERATION,
        });
    }
    // SAFETY: non-null and, per this function's contract, valid to read and move from.
    let (array_released, schema_released) =
        unsafe { ((*array).release.is_none(), (*schema).release.is_none()) };
    if array_released {
        return Err(BridgeError::Released { what: "ArrowArray" });
    }
    if schema_released {
        return Err(BridgeError::Released {
            what: "ArrowSchema",
        });
    }
    // SAFETY: as above; `from_raw` leaves a released (empty) struct behind.
    let exported = unsafe {
        ExportedBatch {
            array: FFI_ArrowArray::from_raw(array),
            schema: FFI_ArrowSchema::from_raw(schema),
        }
    };
    import_batch(exported, validation)
}

/// A schema prepared once for array-only imports.
#[derive(Debug, Clone)]
pub struct CachedSchema {
    schema: SchemaRef,
    struct_type: DataType,
}

impl CachedSchema {
    /// Prepares `schema`.
    pub fn new(schema: SchemaRef) -> Self {
        let struct_type = DataType::Struct(schema.fields().clone());
        Self {
            schema,
            struct_type,
        }
    }

    /// The cached schema.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

/// Imports an array-only export against a cached schema. The array's shape (children,
/// buffers, lengths) must match the schema; see the module docs for what C Data cannot
/// tell apart.
pub fn import_array(
    array: FFI_ArrowArray,
    schema: &CachedSchema,
    validation: Validation,
) -> Result<RecordBatch> {
    import_struct(array, &schema.schema, &schema.struct_type, validation)
}

fn import_struct(
    array: FFI_ArrowArray,
    schema: &SchemaRef,
    struct_type: &DataType,
    validation: Validation,
) -> Result<RecordBatch> {
    if array.is_released() {
        return Err(BridgeError::Released { what: "ArrowArray" });
    }
    check_array(&array, struct_type, "batch").map_err(|e| match e {
        BridgeError::Malformed { path, problem } if path == "batch" => {
            BridgeError::SchemaMismatch(format!("the array does not fit the schema: {problem}"))
        }
        other => other,
    })?;
    // SAFETY: the array's C structure was checked against `struct_type` above (buffer and
    // child counts, offsets); buffer capacities are the producer's C Data guarantee.
    let data: ArrayData = unsafe { from_ffi_and_data_type(array, struct_type.clone()) }?;
    match validation {
        Validation::Structure => data.validate()?,
        Validation::Full => data.validate_full()?,
    }
    let rows = data.len();
    let columns = StructArray::from(data);
    if columns.null_count() > 0 {
        return Err(BridgeError::SchemaMismatch(format!(
            "a record batch cannot have NULL rows, but the struct array has {}",
            columns.null_count()
        )));
    }
    let (_, columns, _) = columns.into_parts();
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &options,
    )?)
}

/// How [`fan_out`] serves several consumers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fanout {
    /// One export and one import; every consumer borrows the same imported buffers.
    Shared,
    /// One export/import pair per consumer.
    Repeated,
}

/// Hands `batch` across the C Data boundary to `consumers` receivers.
pub fn fan_out(batch: &RecordBatch, consumers: usize, mode: Fanout) -> Result<Vec<RecordBatch>> {
    match mode {
        Fanout::Shared => {
            if consumers == 0 {
                return Ok(Vec::new());
            }
            let imported = import_batch(export_batch(batch)?, Validation::Structure)?;
            Ok(vec![imported; consumers])
        }
        Fanout::Repeated => (0..consumers)
            .map(|_| import_batch(export_batch(batch)?, Validation::Structure))
            .collect(),
    }
}

/// The name of the leading column that carries a changelog batch's row kinds across the
/// boundary.
pub const ROW_KIND_COLUMN: &str = "$row_kind";

/// Exports a changelog batch: the row kinds, when present, travel as a leading non-nullable
/// Int8 column named [`ROW_KIND_COLUMN`]; an all-`+I` batch without kinds crosses as is.
pub fn export_changelog(batch: &ChangelogBatch) -> Result<ExportedBatch> {
    match batch.kinds() {
        None => export_batch(batch.batch()),
        Some(kinds) => {
            let rows = batch.batch();
            let mut fields = Vec::with_capacity(rows.num_columns() + 1);
            fields.push(Arc::new(Field::new(ROW_KIND_COLUMN, DataType::Int8, false)));
            fields.extend(rows.schema().fields().iter().cloned());
            let schema = Schema::new_with_metadata(fields, rows.schema().metadata().clone());
            let mut columns = Vec::with_capacity(rows.num_columns() + 1);
            columns.push(Arc::new(kinds.clone()) as _);
            columns.extend(rows.columns().iter().cloned());
            let options = RecordBatchOptions::new().with_row_count(Some(rows.num_rows()));
            export_batch(&RecordBatch::try_new_with_options(
                Arc::new(schema),
                columns,
                &options,
            )?)
        }
    }
}

/// Imports a changelog batch exported by [`export_changelog`] (or any producer following
/// the same convention), validating the row kinds.
pub fn import_changelog(exported: ExportedBatch, validation: Validation) -> Result<ChangelogBatch> {
    let batch = import_batch(exported, validation)?;
    let schema = batch.schema();
    let Some((index, field)) = schema.fields().find(ROW_KIND_COLUMN) else {
        return Ok(ChangelogBatch::insert_only(batch));
    };
    if index != 0 || field.data_type() != &DataType::Int8 {
        return Err(BridgeError::SchemaMismatch(format!(
            "`{ROW_KIND_COLUMN}` must be the first column with type Int8, found column {index} of type {}",
            field.data_type()
        )));
    }
    let kinds: Int8Array = batch.column(0).as_primitive().clone();
    let mut rows = batch;
    rows.remove_column(0);
    let changelog = ChangelogBatch::try_new(rows, Some(kinds))?;
    Ok(changelog)
}
