//! Post-exchange coalescing: many small changelog batches into batches of a target size.
//!
//! After a network exchange, a consumer receives whatever batches its producers cut: a
//! mini-batch flush, a watermark or a checkpoint barrier on the far side leaves a few rows in
//! each. Per-batch costs (kernel dispatch, transposes, JNI crossings) then dominate. A
//! [`Coalescer`] takes those batches as they arrive and hands out batches of exactly
//! `target_rows` rows (the last one, at [`Coalescer::finish`], may be shorter), rows in
//! arrival order, never reordered.
//!
//! Each arriving batch is first [validated](validate) against the consumer's schema: what
//! crossed the exchange must have the expected columns and types, no NULL in a NOT NULL
//! column, and a row-kind sidecar (if any) with one known Flink kind byte per row. Then its
//! sidecar is normalized ([`normalize_kinds`]): a batch whose rows are all `+I` carries no
//! sidecar (the append-only fast path), one with any other kind keeps it. Outputs are
//! normalized the same way, so a consumer sees a sidecar exactly when a batch updates.
//!
//! # What is copied
//!
//! Nothing that can be shared. An output made of one input's rows (a batch that arrives
//! with nothing buffered and is at least `target_rows` long, cut into target-sized pieces)
//! is a zero-copy slice of it. An output assembled from several batches is concatenated
//! ([`concat`], arrow's `concat` per column: each buffer allocated once at its final size),
//! except the payload of string and binary columns whose parts are adjacent slices of one
//! array (a producer or a local exchange that sliced one batch): those keep the shared
//! payload buffer, and only offsets and validity are new. Arrow's own `BatchCoalescer` copies every row into in-progress builders,
//! whole batches included, and knows no row kinds; hence this type.

use std::collections::VecDeque;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanBufferBuilder, GenericByteArray, Int8Array, RecordBatch,
    RecordBatchOptions,
};
use arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{
    BinaryType, ByteArrayType, DataType, LargeBinaryType, LargeUtf8Type, SchemaRef, Utf8Type,
};
use streamfusion_core::changelog::{ChangelogBatch, RowKind};

use crate::error::{BridgeError, Result};

/// Cuts a stream of changelog batches into batches of a target size. See the module docs.
#[derive(Debug)]
pub struct Coalescer {
    schema: SchemaRef,
    target_rows: usize,
    /// Validated slices waiting for more rows; together fewer than `target_rows` rows.
    pending: Vec<ChangelogBatch>,
    pending_rows: usize,
    ready: VecDeque<ChangelogBatch>,
}

impl Coalescer {
    /// A coalescer of batches with `schema` into batches of `target_rows` rows (at least 1).
    pub fn try_new(schema: SchemaRef, target_rows: usize) -> Result<Self> {
        if target_rows == 0 {
            return Err(BridgeError::InvalidValue(
                "a coalescer's target batch size must be at least 1 row".into(),
            ));
        }
        Ok(Self {
            schema,
            target_rows,
            pending: Vec::new(),
            pending_rows: 0,
            ready: VecDeque::new(),
        })
    }

    /// The schema of every batch in and out.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The number of rows of each output batch but the last.
    pub fn target_rows(&self) -> usize {
        self.target_rows
    }

    /// Rows taken in but not yet in an output batch.
    pub fn buffered_rows(&self) -> usize {
        self.pending_rows
    }

    /// Takes in one batch as it came off the exchange, with its row kinds (`None`: all
    /// `+I`). A batch that fails [`validate`] is refused whole and nothing is buffered from
    /// it.
    pub fn push(&mut self, batch: RecordBatch, kinds: Option<Int8Array>) -> Result<()> {
        let batch = validate(&self.schema, batch, kinds)?;
        let rows = batch.num_rows();
        let room = self.target_rows - self.pending_rows;
        if rows < room {
            self.buffer(batch);
            return Ok(());
        }
        let mut offset = 0;
        if self.pending_rows > 0 {
            self.buffer(batch.slice(0, room));
            self.flush_pending()?;
            offset = room;
        }
        while rows - offset >= self.target_rows {
            let part = if rows == self.target_rows {
                batch.clone()
            } else {
                batch.slice(offset, self.target_rows)
            };
            self.ready.push_back(normalize_kinds(part));
            offset += self.target_rows;
        }
        if offset < rows {
            self.buffer(batch.slice(offset, rows - offset));
        }
        Ok(())
    }

    /// Ends the stream (or a section of it that must not wait, such as the rows before a
    /// watermark): whatever is buffered becomes one last, shorter output batch.
    pub fn finish(&mut self) -> Result<()> {
        if self.pending_rows > 0 {
            self.flush_pending()?;
        }
        Ok(())
    }

    /// The next output batch, oldest first.
    pub fn next_batch(&mut self) -> Option<ChangelogBatch> {
        self.ready.pop_front()
    }

    fn buffer(&mut self, part: ChangelogBatch) {
        if part.num_rows() > 0 {
            self.pending_rows += part.num_rows();
            self.pending.push(part);
        }
    }

    fn flush_pending(&mut self) -> Result<()> {
        let out = match self.pending.as_slice() {
            [one] => normalize_kinds(one.clone()),
            parts => concat(&self.schema, parts)?,
        };
        self.pending.clear();
        self.pending_rows = 0;
        self.ready.push_back(out);
        Ok(())
    }
}

/// Checks a batch that crossed an exchange against the `schema` its consumer expects and
/// returns it as a changelog batch with that schema, its sidecar normalized.
///
/// Refused: another number of columns; a column whose type differs from its field's; a NULL
/// in a NOT NULL column; row kinds of another length than the batch, NULL or outside Flink's
/// four bytes. Column names are not compared: Flink's rows are positional, and the
/// consumer's names are the ones the output carries. Array contents are not re-validated:
/// the C Data and IPC imports that produced them already did.
pub fn validate(
    schema: &SchemaRef,
    batch: RecordBatch,
    kinds: Option<Int8Array>,
) -> Result<ChangelogBatch> {
    let fields = schema.fields();
    if batch.num_columns() != fields.len() {
        return Err(BridgeError::SchemaMismatch(format!(
            "post-exchange batch has {} columns, the consumer expects {}",
            batch.num_columns(),
            fields.len()
        )));
    }
    for (i, (column, field)) in batch.columns().iter().zip(fields).enumerate() {
        if !column.data_type().equals_datatype(field.data_type()) {
            return Err(BridgeError::SchemaMismatch(format!(
                "post-exchange column {i} (`{}`) is {}, the consumer expects {}",
                field.name(),
                column.data_type(),
                field.data_type()
            )));
        }
        if !field.is_nullable() && column.null_count() > 0 {
            return Err(BridgeError::InvalidValue(format!(
                "post-exchange column {i} (`{}`) is NOT NULL but holds {} NULL(s)",
                field.name(),
                column.null_count()
            )));
        }
    }
    let rows = batch.num_rows();
    let batch = if Arc::ptr_eq(batch.schema_ref(), schema) {
        batch
    } else {
        let (_, columns, _) = batch.into_parts();
        with_schema(schema, columns, rows)?
    };
    Ok(normalize_kinds(ChangelogBatch::try_new(batch, kinds)?))
}

/// Drops the row-kind sidecar of a batch whose rows are all `+I`; any other batch is
/// returned as it is. Zero-copy either way.
pub fn normalize_kinds(batch: ChangelogBatch) -> ChangelogBatch {
    if batch.kinds().is_some() && batch.is_insert_only() {
        ChangelogBatch::insert_only(batch.into_parts().0)
    } else {
        batch
    }
}

/// Concatenates validated batches with `schema` into one, rows and kinds in order, the
/// sidecar normalized: `+I` bytes stand in for the rows of parts without one, and the result
/// has none if all its rows are `+I`.
pub fn concat(schema: &SchemaRef, parts: &[ChangelogBatch]) -> Result<ChangelogBatch> {
    let rows = parts.iter().map(ChangelogBatch::num_rows).sum();
    let columns = (0..schema.fields().len())
        .map(|i| {
            let arrays: Vec<&dyn Array> = parts
                .iter()
                .map(|part| part.batch().column(i).as_ref())
                .collect();
            let joined = match arrays[0].data_type() {
                DataType::Utf8 => join_adjacent::<Utf8Type>(&arrays),
                DataType::LargeUtf8 => join_adjacent::<LargeUtf8Type>(&arrays),
                DataType::Binary => join_adjacent::<BinaryType>(&arrays),
                DataType::LargeBinary => join_adjacent::<LargeBinaryType>(&arrays),
                _ => None,
            };
            match joined {
                Some(array) => Ok(array),
                None => Ok(arrow::compute::concat(&arrays)?),
            }
        })
        .collect::<Result<Vec<ArrayRef>>>()?;
    let batch = with_schema(schema, columns, rows)?;
    let kinds = if parts.iter().all(|part| part.kinds().is_none()) {
        None
    } else {
        let mut kinds = Vec::with_capacity(rows);
        for part in parts {
            match part.kinds() {
                Some(part_kinds) => kinds.extend_from_slice(part_kinds.values()),
                None => kinds.resize(kinds.len() + part.num_rows(), RowKind::Insert.to_byte()),
            }
        }
        Some(Int8Array::from(kinds))
    };
    Ok(normalize_kinds(ChangelogBatch::try_new(batch, kinds)?))
}

/// Joins byte arrays that are adjacent slices of one array (a producer that sliced one batch,
/// a local exchange passing slices on) without copying their payload: the parts share one
/// values buffer and each starts where the previous ends, so the joined array is that buffer
/// with the parts' offsets laid end to end. `None` when the parts are not such slices (then
/// they are concatenated).
fn join_adjacent<T: ByteArrayType>(arrays: &[&dyn Array]) -> Option<ArrayRef> {
    let parts = arrays
        .iter()
        .map(|array| array.as_bytes_opt::<T>())
        .collect::<Option<Vec<_>>>()?;
    let values = parts.first()?.values();
    let rows = parts.iter().map(|part| part.len()).sum::<usize>();
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(parts[0].value_offsets()[0]);
    for part in &parts {
        let part_offsets = part.value_offsets();
        if !part.values().ptr_eq(values) || Some(&part_offsets[0]) != offsets.last() {
            return None;
        }
        offsets.extend_from_slice(&part_offsets[1..]);
    }
    let nulls = if parts.iter().any(|part| part.nulls().is_some()) {
        let mut validity = BooleanBufferBuilder::new(rows);
        for part in &parts {
            match part.nulls() {
                Some(nulls) => validity.append_buffer(nulls.inner()),
                None => validity.append_n(part.len(), true),
            }
        }
        Some(NullBuffer::new(validity.finish()))
    } else {
        None
    };
    // The offsets are non-decreasing: within each part they are the part's own, and at each
    // boundary the next part starts where the last one ended.
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    // SAFETY: every value of the joined array is, byte for byte, a value of one of the parts
    // (same buffer, same bounds), and each part is a valid array over that buffer: the
    // offsets lie inside it, and for UTF-8 each value is valid UTF-8. The validity has one
    // bit per row.
    let joined = unsafe { GenericByteArray::<T>::new_unchecked(offsets, values.clone(), nulls) };
    Some(Arc::new(joined))
}

/// A batch of `columns` with `schema`; the row count is explicit so that a batch without
/// columns keeps its rows.
fn with_schema(schema: &SchemaRef, columns: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(
        Arc::clone(schema),
        columns,
        &options,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{AsArray, Decimal128Array, Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Int64Type, Schema};

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ]))
    }

    /// Rows `first..first + n`: `k` = row, `s` = "r<row>" or NULL every third row.
    fn batch(first: i64, n: i64) -> RecordBatch {
        let k = Int64Array::from_iter_values(first..first + n);
        let s: StringArray = (first..first + n)
            .map(|r| (r % 3 != 0).then(|| format!("r{r}")))
            .collect();
        RecordBatch::try_new(schema(), vec![Arc::new(k), Arc::new(s)]).unwrap()
    }

    /// The model: every row as (kind byte, k, s), in order.
    type Row = (i8, i64, Option<String>);

    fn rows(batch: &ChangelogBatch) -> Vec<Row> {
        let k = batch.batch().column(0).as_primitive::<Int64Type>();
        let s = batch.batch().column(1).as_string::<i32>();
        (0..batch.num_rows())
            .map(|r| {
                let kind = batch.kinds().map_or(0, |kinds| kinds.value(r));
                let s = s.is_valid(r).then(|| s.value(r).to_string());
                (kind, k.value(r), s)
            })
            .collect()
    }

    fn model(first: i64, n: i64, kinds: Option<&[i8]>) -> Vec<Row> {
        (first..first + n)
            .enumerate()
            .map(|(i, r)| {
                let kind = kinds.map_or(0, |kinds| kinds[i]);
                (kind, r, (r % 3 != 0).then(|| format!("r{r}")))
            })
            .collect()
    }

    fn drain(coalescer: &mut Coalescer) -> Vec<ChangelogBatch> {
        std::iter::from_fn(|| coalescer.next_batch()).collect()
    }

    #[test]
    fn small_batches_become_target_sized_ones_in_order() {
        let mut coalescer = Coalescer::try_new(schema(), 8).unwrap();
        let mut expected = Vec::new();
        for (i, first) in (0..50).step_by(5).enumerate() {
            // Every other batch updates; the rest carry no sidecar.
            let kinds: Option<Vec<i8>> = (i % 2 == 1).then(|| (0..5).map(|r| r % 4).collect());
            coalescer
                .push(batch(first, 5), kinds.clone().map(Int8Array::from))
                .unwrap();
            expected.extend(model(first, 5, kinds.as_deref()));
        }
        assert_eq!(coalescer.buffered_rows(), 2);
        coalescer.finish().unwrap();
        let out = drain(&mut coalescer);
        assert_eq!(
            out.iter().map(ChangelogBatch::num_rows).collect::<Vec<_>>(),
            vec![8, 8, 8, 8, 8, 8, 2]
        );
        assert_eq!(out.iter().flat_map(rows).collect::<Vec<_>>(), expected);
        for batch in &out {
            let all_inserts = rows(batch).iter().all(|(kind, _, _)| *kind == 0);
            assert_eq!(batch.kinds().is_none(), all_inserts, "sidecar normalized");
        }
    }

    #[test]
    fn any_stream_comes_out_whole_in_order_and_target_sized() {
        // A small deterministic generator: batch sizes 0..=9, kinds with or without sidecar.
        let mut seed = 0x2545_f491_u64;
        let mut next = |bound: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % bound
        };
        for target in 1..=7 {
            let mut coalescer = Coalescer::try_new(schema(), target).unwrap();
            let (mut expected, mut first) = (Vec::new(), 0);
            for _ in 0..40 {
                let n = next(10) as i64;
                let kinds: Option<Vec<i8>> =
                    (next(2) == 1).then(|| (0..n).map(|_| next(4) as i8).collect());
                coalescer
                    .push(batch(first, n), kinds.clone().map(Int8Array::from))
                    .unwrap();
                expected.extend(model(first, n, kinds.as_deref()));
                first += n;
            }
            coalescer.finish().unwrap();
            let out = drain(&mut coalescer);
            assert_eq!(out.iter().flat_map(rows).collect::<Vec<_>>(), expected);
            let (last, full) = out.split_last().unwrap();
            assert!(full.iter().all(|b| b.num_rows() == target));
            assert!((1..=target).contains(&last.num_rows()));
            for batch in &out {
                let updates = rows(batch).iter().any(|(kind, _, _)| *kind != 0);
                assert_eq!(batch.kinds().is_some(), updates, "target {target}");
            }
        }
    }

    #[test]
    fn a_batch_that_fills_outputs_alone_is_sliced_not_copied() {
        let mut coalescer = Coalescer::try_new(schema(), 4).unwrap();
        let input = batch(0, 10);
        coalescer.push(input.clone(), None).unwrap();
        let out = drain(&mut coalescer);
        assert_eq!(out.len(), 2);
        let input_values = input.column(1).as_string::<i32>().values().as_ptr();
        for batch in &out {
            let s = batch.batch().column(1).as_string::<i32>();
            assert_eq!(s.values().as_ptr(), input_values, "payload shared");
        }
        assert_eq!(coalescer.buffered_rows(), 2);
        coalescer.finish().unwrap();
        let last = coalescer.next_batch().unwrap();
        assert_eq!(rows(&last), model(8, 2, None));
        assert_eq!(
            last.batch().column(1).as_string::<i32>().values().as_ptr(),
            input_values,
            "a lone remainder is shared too"
        );
    }

    #[test]
    fn adjacent_slices_of_one_batch_share_their_string_payload() {
        let parent = batch(0, 12);
        let parent_values = parent.column(1).as_string::<i32>().values().as_ptr();
        let payload = |b: &ChangelogBatch| b.batch().column(1).as_string::<i32>().values().as_ptr();
        let mut coalescer = Coalescer::try_new(schema(), 12).unwrap();
        for first in (0..12).step_by(3) {
            coalescer.push(parent.slice(first, 3), None).unwrap();
        }
        let out = coalescer.next_batch().unwrap();
        assert_eq!(rows(&out), model(0, 12, None));
        assert_eq!(payload(&out), parent_values, "payload shared");
        assert_eq!(out.batch().column(1).null_count(), 4);

        // A gap of payload between slices (row 4, "r4", skipped), or slices of different
        // batches: copied.
        let mut coalescer = Coalescer::try_new(schema(), 5).unwrap();
        coalescer.push(parent.slice(0, 4), None).unwrap();
        coalescer.push(parent.slice(5, 1), None).unwrap();
        let out = coalescer.next_batch().unwrap();
        let mut expected = model(0, 4, None);
        expected.extend(model(5, 1, None));
        assert_eq!(rows(&out), expected);
        assert_ne!(payload(&out), parent_values);
        let mut coalescer = Coalescer::try_new(schema(), 6).unwrap();
        coalescer.push(batch(0, 3), None).unwrap();
        coalescer.push(batch(3, 3), None).unwrap();
        let out = coalescer.next_batch().unwrap();
        assert_eq!(rows(&out), model(0, 6, None));
    }

    #[test]
    fn a_sidecar_of_inserts_is_dropped_and_a_slice_of_inserts_loses_it() {
        let schema = schema();
        let all_inserts = validate(&schema, batch(0, 3), Some(Int8Array::from(vec![0, 0, 0])));
        assert!(all_inserts.unwrap().kinds().is_none());
        let mut coalescer = Coalescer::try_new(schema, 2).unwrap();
        coalescer
            .push(batch(0, 4), Some(Int8Array::from(vec![0, 0, 1, 2])))
            .unwrap();
        let out = drain(&mut coalescer);
        assert!(out[0].kinds().is_none());
        assert_eq!(out[1].kinds().unwrap().values().as_ref(), &[1, 2]);
    }

    #[test]
    fn bad_batches_are_refused_with_what_was_wrong_and_nothing_is_buffered() {
        let mut coalescer = Coalescer::try_new(schema(), 4).unwrap();
        coalescer.push(batch(0, 1), None).unwrap();

        let wrong_type = RecordBatch::try_new(
            Arc::new(Schema::new(vec![
                Field::new("k", DataType::Int64, false),
                Field::new("s", DataType::Int64, true),
            ])),
            vec![
                Arc::new(Int64Array::from(vec![1])),
                Arc::new(Int64Array::from(vec![1])),
            ],
        )
        .unwrap();
        let err = coalescer.push(wrong_type, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "schema mismatch: post-exchange column 1 (`s`) is Int64, the consumer expects Utf8"
        );

        let nullable = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
        ]));
        let null_key = RecordBatch::try_new(
            nullable,
            vec![
                Arc::new(Int64Array::from(vec![Some(1), None])),
                Arc::new(StringArray::from(vec!["a", "b"])),
            ],
        )
        .unwrap();
        let err = coalescer.push(null_key, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "post-exchange column 0 (`k`) is NOT NULL but holds 1 NULL(s)"
        );

        let err = coalescer
            .push(batch(1, 2), Some(Int8Array::from(vec![0])))
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("has 2 rows but its row kinds has 1")
        );
        let err = coalescer
            .push(batch(1, 2), Some(Int8Array::from(vec![0, 4])))
            .unwrap_err();
        assert!(matches!(
            err,
            BridgeError::Engine(streamfusion_core::Error::InvalidRowKind {
                row: 1,
                byte: 4,
                ..
            })
        ));

        let short = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)])),
            vec![Arc::new(Int64Array::from(vec![1]))],
        )
        .unwrap();
        assert!(matches!(
            coalescer.push(short, None),
            Err(BridgeError::SchemaMismatch(_))
        ));

        assert_eq!(coalescer.buffered_rows(), 1, "refused batches left nothing");
        assert!(Coalescer::try_new(schema(), 0).is_err());
    }

    #[test]
    fn outputs_carry_the_consumers_names() {
        let renamed = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("b", DataType::Utf8, true),
        ]));
        let (_, columns, _) = batch(0, 3).into_parts();
        let input = RecordBatch::try_new(renamed, columns).unwrap();
        let out = validate(&schema(), input, None).unwrap();
        assert_eq!(out.batch().schema_ref(), &schema());
    }

    #[test]
    fn decimals_and_batches_without_columns_concatenate() {
        let decimals = Arc::new(Schema::new(vec![Field::new(
            "d",
            DataType::Decimal128(20, 2),
            true,
        )]));
        let part = |values: Vec<Option<i128>>| {
            let array = Decimal128Array::from(values)
                .with_precision_and_scale(20, 2)
                .unwrap();
            RecordBatch::try_new(Arc::clone(&decimals), vec![Arc::new(array)]).unwrap()
        };
        let mut coalescer = Coalescer::try_new(Arc::clone(&decimals), 3).unwrap();
        coalescer.push(part(vec![Some(1), None]), None).unwrap();
        coalescer
            .push(part(vec![Some(-3)]), Some(Int8Array::from(vec![3])))
            .unwrap();
        let out = coalescer.next_batch().unwrap();
        let d = out
            .batch()
            .column(0)
            .as_primitive::<arrow::datatypes::Decimal128Type>();
        assert_eq!(d.iter().collect::<Vec<_>>(), vec![Some(1), None, Some(-3)]);
        assert_eq!(d.precision(), 20);
        assert_eq!(out.kinds().unwrap().values().as_ref(), &[0, 0, 3]);

        let empty = Arc::new(Schema::empty());
        let no_columns = |rows| {
            RecordBatch::try_new_with_options(
                Arc::clone(&empty),
                vec![],
                &RecordBatchOptions::new().with_row_count(Some(rows)),
            )
            .unwrap()
        };
        let mut coalescer = Coalescer::try_new(Arc::clone(&empty), 5).unwrap();
        for rows in [2, 2, 2] {
            coalescer.push(no_columns(rows), None).unwrap();
        }
        coalescer.finish().unwrap();
        let sizes: Vec<usize> = drain(&mut coalescer)
            .iter()
            .map(ChangelogBatch::num_rows)
            .collect();
        assert_eq!(sizes, vec![5, 1]);
    }
}
