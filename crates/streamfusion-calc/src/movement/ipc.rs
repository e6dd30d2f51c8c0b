//! Changelog batches in the Arrow IPC stream format.
//!
//! Row kinds travel as a trailing non-nullable `Int8` column named
//! [`crate::changelog::NESTED_ROW_KIND_FIELD`] (`$row_kind`), present only when the batch has
//! kinds; an append-only batch is written exactly as its rows. Decoding validates the kinds
//! like [`ChangelogBatch::try_new`].

use std::io::Cursor;
use std::sync::Arc;

use arrow::array::{AsArray, RecordBatch, RecordBatchOptions};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::ipc::reader::StreamReader;
use arrow::ipc::writer::StreamWriter;

use crate::changelog::{ChangelogBatch, NESTED_ROW_KIND_FIELD};
use crate::error::{Error, Result};

/// `batches` (all of one schema) as one IPC stream.
pub fn encode(batches: &[ChangelogBatch]) -> Result<Vec<u8>> {
    let Some(first) = batches.first() else {
        return Err(Error::InvalidShape(
            "an IPC stream needs at least one batch".into(),
        ));
    };
    let with_kinds = first.kinds().is_some();
    let schema = wire_schema(first.batch().schema_ref(), with_kinds)?;
    // Sized up front: growing the stream by doubling copies it several times over.
    let estimate: usize = batches
        .iter()
        .map(|b| b.batch().get_array_memory_size() + b.num_rows())
        .sum();
    let mut out = Vec::with_capacity(estimate + 4096);
    let mut writer = StreamWriter::try_new(&mut out, &schema)?;
    for b in batches {
        if b.kinds().is_some() != with_kinds {
            return Err(Error::InvalidShape(
                "IPC: every batch of a stream must carry row kinds, or none may".into(),
            ));
        }
        let mut columns = b.batch().columns().to_vec();
        if let Some(kinds) = b.kinds() {
            columns.push(Arc::new(kinds.clone()));
        }
        let wire = RecordBatch::try_new_with_options(
            Arc::clone(&schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(b.num_rows())),
        )?;
        writer.write(&wire)?;
    }
    writer.finish()?;
    drop(writer);
    Ok(out)
}

/// The batches of an IPC stream written by [`encode`].
pub fn decode(bytes: &[u8]) -> Result<Vec<ChangelogBatch>> {
    let reader = StreamReader::try_new(Cursor::new(bytes), None)?;
    let schema = reader.schema();
    let with_kinds = schema
        .fields()
        .last()
        .is_some_and(|f| f.name() == NESTED_ROW_KIND_FIELD);
    if with_kinds && schema.field(schema.fields().len() - 1).data_type() != &DataType::Int8 {
        return Err(Error::InvalidShape(format!(
            "IPC: the {NESTED_ROW_KIND_FIELD} column must be Int8"
        )));
    }
    let rows_schema = if with_kinds {
        let fields: Vec<_> = schema.fields()[..schema.fields().len() - 1].to_vec();
        Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
    } else {
        Arc::clone(&schema)
    };
    reader
        .map(|wire| {
            let wire = wire?;
            if !with_kinds {
                return Ok(ChangelogBatch::insert_only(wire));
            }
            let mut columns = wire.columns().to_vec();
            let kinds = columns
                .pop()
                .expect("the kind column")
                .as_primitive()
                .clone();
            let rows = RecordBatch::try_new_with_options(
                Arc::clone(&rows_schema),
                columns,
                &RecordBatchOptions::new().with_row_count(Some(wire.num_rows())),
            )?;
            ChangelogBatch::try_new(rows, Some(kinds))
        })
        .collect()
}

fn wire_schema(rows: &Schema, with_kinds: bool) -> Result<Arc<Schema>> {
    if rows
        .fields()
        .iter()
        .any(|f| f.name() == NESTED_ROW_KIND_FIELD)
    {
        return Err(Error::InvalidShape(format!(
            "IPC: a row column may not be named {NESTED_ROW_KIND_FIELD}"
        )));
    }
    let mut fields = rows.fields().to_vec();
    if with_kinds {
        fields.push(Arc::new(Field::new(
            NESTED_ROW_KIND_FIELD,
            DataType::Int8,
            false,
        )));
    }
    Ok(Arc::new(Schema::new_with_metadata(
        fields,
        rows.metadata().clone(),
    )))
}
