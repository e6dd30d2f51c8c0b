//! The C Data handoff against its contract: lossless, zero-copy, and a typed error for every
//! malformed input the C Data Interface lets us detect.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Int8Array, Int32Array, Int64Array, RecordBatch,
    StringArray, StructArray,
};
use arrow::buffer::{BooleanBuffer, Buffer, NullBuffer};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use streamfusion_bridge::BridgeError;
use streamfusion_bridge::handoff::{
    CachedSchema, ExportedBatch, Fanout, ROW_KIND_COLUMN, Validation, export_array, export_batch,
    export_changelog, fan_out, import_array, import_batch, import_batch_from_raw, import_changelog,
};
use streamfusion_core::changelog::RowKind;

fn batch(rows: usize) -> RecordBatch {
    let schema = Arc::new(
        Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("v", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
        ])
        .with_metadata([("origin".to_string(), "test".to_string())].into()),
    );
    let ids = Int64Array::from_iter_values((0..rows as i64).map(|i| i * 3 - 5));
    let v = Int32Array::from_iter((0..rows as i32).map(|i| (i % 5 != 2).then_some(i)));
    let s = StringArray::from_iter((0..rows).map(|i| (i % 7 != 0).then(|| format!("é{i}\0ж"))));
    RecordBatch::try_new(schema, vec![Arc::new(ids), Arc::new(v), Arc::new(s)]).unwrap()
}

fn values_ptr(batch: &RecordBatch, column: usize) -> *const u8 {
    batch
        .column(column)
        .to_data()
        .buffers()
        .last()
        .unwrap()
        .as_ptr()
}

#[test]
fn a_full_schema_round_trip_is_lossless_and_zero_copy() {
    let source = batch(100);
    let imported = import_batch(export_batch(&source).unwrap(), Validation::Full).unwrap();
    assert_eq!(imported, source);
    assert_eq!(imported.schema().metadata(), source.schema().metadata());
    for column in 0..3 {
        assert_eq!(values_ptr(&imported, column), values_ptr(&source, column));
    }
}

#[test]
fn a_sliced_nullable_batch_keeps_its_bitmaps_without_copying() {
    let source = batch(100).slice(3, 90);
    let imported = import_batch(export_batch(&source).unwrap(), Validation::Full).unwrap();
    assert_eq!(imported, source);
    for column in [1, 2] {
        let (got, want) = (
            imported.column(column).nulls().unwrap(),
            source.column(column).nulls().unwrap(),
        );
        assert_eq!(
            got.buffer().as_ptr(),
            want.buffer().as_ptr(),
            "column {column}"
        );
        assert_eq!(got.offset(), want.offset());
    }
}

#[test]
fn a_bitmap_whose_values_cannot_be_rebased_is_still_exported_correctly() {
    // Fresh values (no bytes before them) with a bitmap at bit offset 3: the exporter falls
    // back to an aligned copy of the bitmap, and the data must still be right.
    let bits = BooleanBuffer::new(Buffer::from(vec![0b1011_0110u8, 0xff]), 3, 8);
    let v = Int32Array::new(
        vec![1, 2, 3, 4, 5, 6, 7, 8].into(),
        Some(NullBuffer::new(bits)),
    );
    let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int32, true)]));
    let source = RecordBatch::try_new(schema, vec![Arc::new(v)]).unwrap();
    let imported = import_batch(export_batch(&source).unwrap(), Validation::Full).unwrap();
    assert_eq!(imported, source);
}

#[test]
fn an_array_only_export_imports_against_a_cached_schema() {
    let source = batch(50).slice(1, 40);
    let cached = CachedSchema::new(source.schema());
    let imported = import_array(export_array(&source), &cached, Validation::Structure).unwrap();
    assert_eq!(imported, source);
    assert_eq!(values_ptr(&imported, 2), values_ptr(&source, 2));
}

#[test]
fn a_cached_schema_with_other_columns_is_a_schema_mismatch() {
    let source = batch(10);
    let fewer = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
    let err = import_array(
        export_array(&source),
        &CachedSchema::new(fewer),
        Validation::Structure,
    )
    .unwrap_err();
    assert!(matches!(err, BridgeError::SchemaMismatch(_)), "{err}");
    assert!(err.to_string().contains("3 children"), "{err}");

    // Same column count, but a string column where the schema says INT: buffer counts differ.
    let swapped = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("v", DataType::Int32, true),
        Field::new("s", DataType::Int32, true),
    ]));
    let err = import_array(
        export_array(&source),
        &CachedSchema::new(swapped),
        Validation::Structure,
    )
    .unwrap_err();
    assert!(
        matches!(&err, BridgeError::Malformed { path, .. } if path == "batch.s"),
        "{err}"
    );
}

#[test]
fn null_and_released_structs_are_rejected() {
    let mut array = FFI_ArrowArray::empty();
    let mut schema = FFI_ArrowSchema::empty();
    // SAFETY: null pointers are checked before any dereference.
    let err =
        unsafe { import_batch_from_raw(std::ptr::null_mut(), &mut schema, Validation::Structure) }
            .unwrap_err();
    assert!(
        matches!(
            err,
            BridgeError::NullPointer {
                what: "ArrowArray",
                ..
            }
        ),
        "{err}"
    );
    // SAFETY: both point to initialised (released) structs owned by this test.
    let err = unsafe { import_batch_from_raw(&mut array, &mut schema, Validation::Structure) }
        .unwrap_err();
    assert!(
        matches!(err, BridgeError::Released { what: "ArrowArray" }),
        "{err}"
    );
}

#[test]
fn importing_the_same_raw_structs_twice_fails_instead_of_freeing_twice() {
    let source = batch(5);
    let ExportedBatch {
        mut array,
        mut schema,
    } = export_batch(&source).unwrap();
    // SAFETY: both structs are live exports owned by this test; import moves out of them.
    let first = unsafe { import_batch_from_raw(&mut array, &mut schema, Validation::Structure) };
    assert_eq!(first.unwrap(), source);
    // SAFETY: as above; the structs are now released markers.
    let second = unsafe { import_batch_from_raw(&mut array, &mut schema, Validation::Structure) };
    assert!(matches!(second.unwrap_err(), BridgeError::Released { .. }));
}

/// A string column whose offsets are built unchecked, exported in a one-column batch.
fn strings_with_offsets(offsets: &[i32]) -> FFI_ArrowArray {
    let values = Buffer::from(b"abcdefgh".to_vec());
    let offsets = Buffer::from_slice_ref(offsets);
    let len = 3;
    // SAFETY: deliberately invalid offsets, never read as strings by this test; the bridge
    // must reject them before anything else reads them.
    let strings = unsafe {
        ArrayData::builder(DataType::Utf8)
            .len(len)
            .add_buffer(offsets)
            .add_buffer(values)
            .build_unchecked()
    };
    // SAFETY: the struct wraps the column without inspecting its values.
    let parent = unsafe {
        ArrayData::builder(DataType::Struct(
            vec![Field::new("s", DataType::Utf8, false)].into(),
        ))
        .len(len)
        .add_child_data(strings)
        .build_unchecked()
    };
    FFI_ArrowArray::new(&parent)
}

fn string_schema() -> CachedSchema {
    CachedSchema::new(Arc::new(Schema::new(vec![Field::new(
        "s",
        DataType::Utf8,
        false,
    )])))
}

#[test]
fn decreasing_offsets_are_caught_by_full_validation() {
    let err = import_array(
        strings_with_offsets(&[0, 5, 2, 6]),
        &string_schema(),
        Validation::Full,
    )
    .unwrap_err();
    assert!(matches!(err, BridgeError::Arrow(_)), "{err}");
    assert!(err.to_string().to_lowercase().contains("offset"), "{err}");
}

#[test]
fn a_negative_last_offset_is_rejected_at_any_validation_level() {
    for validation in [Validation::Structure, Validation::Full] {
        let err = import_array(
            strings_with_offsets(&[0, 1, 2, -4]),
            &string_schema(),
            validation,
        )
        .unwrap_err();
        assert!(
            matches!(&err, BridgeError::Malformed { path, problem } if path == "batch.s" && problem.contains("negative last offset")),
            "{err}"
        );
    }
}

#[test]
fn a_struct_with_null_rows_is_not_a_record_batch() {
    let ids: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
    let rows = StructArray::try_new(
        vec![Field::new("id", DataType::Int64, false)].into(),
        vec![ids],
        Some(NullBuffer::from(vec![true, false])),
    )
    .unwrap();
    let exported = FFI_ArrowArray::new(&rows.to_data());
    let schema = CachedSchema::new(Arc::new(Schema::new(vec![Field::new(
        "id",
        DataType::Int64,
        false,
    )])));
    let err = import_array(exported, &schema, Validation::Structure).unwrap_err();
    assert!(err.to_string().contains("NULL rows"), "{err}");
}

#[test]
fn shared_fanout_lends_one_import_and_repeated_fanout_imports_each_time() {
    let source = batch(20).slice(2, 15);
    let shared = fan_out(&source, 4, Fanout::Shared).unwrap();
    let repeated = fan_out(&source, 4, Fanout::Repeated).unwrap();
    assert_eq!(shared.len(), 4);
    assert_eq!(repeated.len(), 4);
    for b in shared.iter().chain(&repeated) {
        assert_eq!(b, &source);
        // Both modes are zero-copy against the source.
        assert_eq!(values_ptr(b, 2), values_ptr(&source, 2));
    }
    assert!(fan_out(&source, 0, Fanout::Shared).unwrap().is_empty());
}

#[test]
fn changelog_batches_carry_their_row_kinds_across() {
    use streamfusion_core::changelog::ChangelogBatch;
    let kinds = Int8Array::from(vec![0, 1, 2, 3, 0, 2]);
    let source = ChangelogBatch::try_new(batch(6), Some(kinds)).unwrap();
    let imported = import_changelog(export_changelog(&source).unwrap(), Validation::Full).unwrap();
    assert_eq!(imported, source);
    assert_eq!(imported.kind(3), RowKind::Delete);

    let append_only = ChangelogBatch::insert_only(batch(3));
    let imported =
        import_changelog(export_changelog(&append_only).unwrap(), Validation::Full).unwrap();
    assert!(imported.kinds().is_none());
}

#[test]
fn row_kinds_that_are_not_flink_kinds_are_rejected_on_import() {
    let schema = Arc::new(Schema::new(vec![
        Field::new(ROW_KIND_COLUMN, DataType::Int8, false),
        Field::new("id", DataType::Int64, false),
    ]));
    let bad = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int8Array::from(vec![0, 9])),
            Arc::new(Int64Array::from(vec![1, 2])),
        ],
    )
    .unwrap();
    let err = import_changelog(export_batch(&bad).unwrap(), Validation::Structure).unwrap_err();
    assert!(
        err.to_string().contains("invalid row kind byte 9 at row 1"),
        "{err}"
    );

    let misplaced = RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new(ROW_KIND_COLUMN, DataType::Int8, false),
        ])),
        vec![
            Arc::new(Int64Array::from(vec![1])),
            Arc::new(Int8Array::from(vec![0])),
        ],
    )
    .unwrap();
    let err =
        import_changelog(export_batch(&misplaced).unwrap(), Validation::Structure).unwrap_err();
    assert!(
        err.to_string().contains("must be the first column"),
        "{err}"
    );
    let _ = misplaced
        .column(0)
        .as_primitive::<arrow::datatypes::Int64Type>();
}
