//! Keeping sliced validity bitmaps zero-copy on export.
//!
//! The C Data Interface has one `offset` per array for all of its buffers. arrow-rs slices
//! most arrays by moving their value/offset buffers forward (array offset 0) while the
//! validity bitmap keeps a bit offset; exporting such an array forces arrow-rs to copy the
//! bitmap into a freshly aligned one whenever the bit offset is not a multiple of 8, i.e.
//! for almost every slice of a nullable column.
//!
//! [`align_for_export`] instead moves the array's element-indexed buffers *back* by the
//! bitmap's bit offset `k` (into the bytes the slice skipped, which are still part of the
//! same allocation) and sets the array offset to `k`, so the exported bitmap is the original
//! one. Where that is not possible (the buffer does not extend back far enough, bit-packed
//! values, struct-like children indexed by the parent offset) the array is left as it is and
//! arrow-rs's aligned copy applies.

use std::sync::Arc;

use arrow::array::{ArrayData, BufferSpec, layout};
use arrow::buffer::Buffer;
use arrow::datatypes::DataType;

/// Returns `data` with its element-indexed buffers re-based so that its offset equals its
/// validity bitmap's bit offset, recursively for children, or `data` unchanged where that is
/// impossible. The logical contents are identical.
pub(crate) fn align_for_export(data: ArrayData) -> ArrayData {
    let data = if data.child_data().iter().any(needs_alignment_deep) {
        let children: Vec<ArrayData> = data
            .child_data()
            .iter()
            .cloned()
            .map(align_for_export)
            .collect();
        // SAFETY: each child is replaced by a logically identical child (same type, length,
        // nulls and values), so every invariant `data` satisfied still holds.
        unsafe { data.into_builder().child_data(children).build_unchecked() }
    } else {
        data
    };
    if !needs_alignment(&data) {
        return data;
    }
    rebase(&data).unwrap_or(data)
}

fn needs_alignment_deep(data: &ArrayData) -> bool {
    needs_alignment(data) || data.child_data().iter().any(needs_alignment_deep)
}

/// Whether arrow-rs's exporter would copy this array's bitmap.
fn needs_alignment(data: &ArrayData) -> bool {
    data.nulls().is_some_and(|nulls| {
        let (bits, offset) = (nulls.offset(), data.offset());
        bits != offset && !(offset == 0 && bits % 8 == 0)
    })
}

/// Moves every element-indexed buffer back by `k = bitmap offset - array offset` elements.
fn rebase(data: &ArrayData) -> Option<ArrayData> {
    let nulls = data.nulls()?;
    let k = nulls.offset().checked_sub(data.offset())?;
    // Children indexed by the parent's offset would have to move too.
    if matches!(
        data.data_type(),
        DataType::Struct(_)
            | DataType::FixedSizeList(..)
            | DataType::Union(..)
            | DataType::RunEndEncoded(..)
            | DataType::Boolean
    ) {
        return None;
    }
    let specs = layout(data.data_type()).buffers;
    let mut buffers = Vec::with_capacity(data.buffers().len());
    for (index, buffer) in data.buffers().iter().enumerate() {
        match specs.get(index) {
            Some(BufferSpec::FixedWidth { byte_width, .. }) => {
                buffers.push(extend_back(buffer, k.checked_mul(*byte_width)?)?);
            }
            Some(BufferSpec::VariableWidth) | Some(BufferSpec::AlwaysNull) => {
                buffers.push(buffer.clone())
            }
            // View types' data buffers are not indexed by the offset.
            None if layout(data.data_type()).variadic => buffers.push(buffer.clone()),
            Some(BufferSpec::BitMap) | None => return None,
        }
    }
    let rebased = data
        .clone()
        .into_builder()
        .offset(data.offset() + k)
        .buffers(buffers);
    // SAFETY: each element-indexed buffer now starts `k` elements earlier inside the same
    // allocation and the offset grew by `k`, so element `i` of the array still reads the
    // same bytes; lengths, nulls and children are unchanged.
    let rebased = unsafe { rebased.build_unchecked() };
    debug_assert!(rebased.validate().is_ok());
    Some(rebased)
}

/// A view of `buffer` starting `bytes` earlier, if the allocation extends that far back.
fn extend_back(buffer: &Buffer, bytes: usize) -> Option<Buffer> {
    if bytes == 0 {
        return Some(buffer.clone());
    }
    if buffer.ptr_offset() < bytes {
        return None;
    }
    let len = buffer.len().checked_add(bytes)?;
    // SAFETY: `ptr_offset() >= bytes`, so `as_ptr() - bytes` is at or after the start of the
    // allocation that `buffer` views, and `len` ends where `buffer` ends; that memory is
    // initialised (it was written when the unsliced array was built) and is kept alive by
    // the clone of `buffer` held as the owner.
    unsafe {
        let start = std::ptr::NonNull::new_unchecked(buffer.as_ptr().sub(bytes).cast_mut());
        Some(Buffer::from_custom_allocation(
            start,
            len,
            Arc::new(buffer.clone()),
        ))
    }
}
