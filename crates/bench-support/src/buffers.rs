//! Arrow buffer diagnostics: does an operation's output share memory with its input?
//!
//! This module owns the *buffer walk* behind the "shared vs new output bytes" figures that
//! benchmarks report next to their allocation counts (see `EVIDENCE.md`, "Allocation and
//! buffer probes"). A zero-copy operator (slice, projection, pass-through) should produce
//! outputs whose buffers all lie inside its inputs' buffers; a copying or computing operator
//! produces new ones. The walk makes that visible without instrumenting the operator.
//!
//! # What is walked
//!
//! For every array, of every data type, the walk visits recursively:
//! - the value and offset buffers ([`ArrayData::buffers`]), including view and variadic data
//!   buffers, union type-id/offset buffers and run-end buffers;
//! - the validity bitmap ([`ArrayData::nulls`], via its underlying [`Buffer`](arrow::buffer::Buffer));
//! - the children ([`ArrayData::child_data`]), which covers dictionary values, struct fields,
//!   list/large-list/fixed-size-list/list-view items, map entries, union children and
//!   run-end values.
//!
//! Each buffer becomes a [`ByteRange`] `(start address, len)`; empty ranges are skipped.
//!
//! # How ranges are classified
//!
//! An output range wholly inside some single input range is **shared**, otherwise it is
//! **new**. Identical output ranges (same start and length, e.g. the same array appearing
//! twice in the outputs, or a bitmap referenced by two slices with the same bounds) count
//! once.
//!
//! # What the numbers are not
//!
//! - **Not live heap.** A slice's buffers point into its parent's allocation, and an output
//!   that is a small slice of a large buffer keeps that whole allocation alive while only the
//!   slice's range is counted here. Conversely, a bitmap or offset buffer may be reported at
//!   its full range even when the array only uses part of it.
//! - **Not logical payload size.** Overlapping but non-identical output ranges are *not*
//!   merged, so two slices `[0, 100)` and `[50, 150)` of one buffer count 200 bytes.
//! - **Not copied bytes.** New bytes may be freshly *computed* results (a sum, a comparison
//!   bitmap, rebuilt offsets), not copies of input payload.
//!
//! The walk reads only addresses and lengths; it never dereferences buffer contents, and it
//! contains no `unsafe` code.

use arrow::array::{Array, ArrayData, ArrayRef};
use arrow::record_batch::RecordBatch;
use serde::{Deserialize, Serialize};

/// A buffer's byte range: start address and length in bytes.
///
/// Addresses are only compared with each other; they are never dereferenced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ByteRange {
    /// Address of the first byte (`buffer.as_ptr() as usize`).
    pub start: usize,
    /// Length in bytes (`buffer.len()`); never zero for ranges produced by the walk.
    pub len: usize,
}

impl ByteRange {
    /// One past the last byte. Saturates, although a real allocation cannot wrap.
    pub fn end(&self) -> usize {
        self.start.saturating_add(self.len)
    }
}

/// Shared vs new output buffer bytes, as classified by [`buffer_report`].
///
/// See the module docs for what these figures are *not* (live heap, logical size, copies).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferReport {
    /// Bytes of distinct output ranges wholly inside some input buffer's range.
    pub shared_bytes: u64,
    /// Bytes of distinct output ranges not inside any single input buffer's range.
    pub new_bytes: u64,
    /// Number of distinct shared output ranges.
    pub shared_ranges: usize,
    /// Number of distinct new output ranges.
    pub new_ranges: usize,
}

impl BufferReport {
    /// `shared_bytes + new_bytes`.
    pub fn total_bytes(&self) -> u64 {
        self.shared_bytes + self.new_bytes
    }

    /// `true` when no output byte is new (nothing was allocated for the outputs' buffers).
    pub fn is_zero_copy(&self) -> bool {
        self.new_bytes == 0
    }
}

/// Anything that holds Arrow arrays whose buffers can be walked.
///
/// Implemented for [`RecordBatch`], [`ArrayRef`], `dyn Array`, [`ArrayData`], slices and
/// `Vec`s of implementors, references, `Option`, pairs and triples, and `()` (no buffers),
/// so that `buffer_report(&input_batch, &output_batches)` and
/// `buffer_report(&(left, right), &output)` both work. A concrete array such as
/// `Int32Array` can be passed as `&array as &dyn Array`.
pub trait ArrowBuffers {
    /// Appends the [`ArrayData`] of every top-level array held by `self` to `out`.
    /// Children are reached later by the walk, so they need not be appended here.
    fn collect_arrays(&self, out: &mut Vec<ArrayData>);

    /// Every non-empty buffer range of every array held by `self`, children included, in
    /// walk order (not deduplicated).
    fn byte_ranges(&self) -> Vec<ByteRange> {
        let mut arrays = Vec::new();
        self.collect_arrays(&mut arrays);
        let mut ranges = Vec::new();
        for data in &arrays {
            array_data_ranges(data, &mut ranges);
        }
        ranges
    }
}

impl ArrowBuffers for RecordBatch {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        out.extend(self.columns().iter().map(|column| column.to_data()));
    }
}

impl ArrowBuffers for ArrayRef {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        out.push(self.to_data());
    }
}

impl ArrowBuffers for dyn Array + '_ {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        out.push(self.to_data());
    }
}

impl ArrowBuffers for ArrayData {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        out.push(self.clone());
    }
}

impl<T: ArrowBuffers> ArrowBuffers for [T] {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        for item in self {
            item.collect_arrays(out);
        }
    }
}

impl<T: ArrowBuffers> ArrowBuffers for Vec<T> {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.as_slice().collect_arrays(out);
    }
}

impl<T: ArrowBuffers, const N: usize> ArrowBuffers for [T; N] {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.as_slice().collect_arrays(out);
    }
}

impl<T: ArrowBuffers + ?Sized> ArrowBuffers for &T {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        (**self).collect_arrays(out);
    }
}

impl<T: ArrowBuffers> ArrowBuffers for Option<T> {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        if let Some(inner) = self {
            inner.collect_arrays(out);
        }
    }
}

impl ArrowBuffers for () {
    fn collect_arrays(&self, _out: &mut Vec<ArrayData>) {}
}

impl<A: ArrowBuffers, B: ArrowBuffers> ArrowBuffers for (A, B) {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.0.collect_arrays(out);
        self.1.collect_arrays(out);
    }
}

impl<A: ArrowBuffers, B: ArrowBuffers, C: ArrowBuffers> ArrowBuffers for (A, B, C) {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.0.collect_arrays(out);
        self.1.collect_arrays(out);
        self.2.collect_arrays(out);
    }
}

/// Appends every non-empty buffer range of `data` and, recursively, of its children.
pub fn array_data_ranges(data: &ArrayData, out: &mut Vec<ByteRange>) {
    for buffer in data.buffers() {
        push_range(buffer.as_ptr() as usize, buffer.len(), out);
    }
    if let Some(nulls) = data.nulls() {
        let bitmap = nulls.buffer();
        push_range(bitmap.as_ptr() as usize, bitmap.len(), out);
    }
    for child in data.child_data() {
        array_data_ranges(child, out);
    }
}

fn push_range(start: usize, len: usize, out: &mut Vec<ByteRange>) {
    if len > 0 {
        out.push(ByteRange { start, len });
    }
}

/// Classifies every distinct output buffer range as shared with (wholly inside) some input
/// buffer, or new.
///
/// Cost: `O((i + o) log i)` for `i` input and `o` output ranges, plus one [`ArrayData`]
/// conversion per top-level array. Call it outside timed regions.
///
/// ```
/// use bench_support::buffers::buffer_report;
/// use bench_support::fixtures::{batch, NullPattern};
///
/// let input = batch(1024, 8, NullPattern::EveryNth(13));
/// let outputs = vec![input.slice(3, 100), input.slice(500, 200)];
/// let report = buffer_report(&input, &outputs);
/// assert_eq!(report.new_bytes, 0);
/// assert!(report.shared_bytes > 0);
/// ```
pub fn buffer_report(
    inputs: &(impl ArrowBuffers + ?Sized),
    outputs: &(impl ArrowBuffers + ?Sized),
) -> BufferReport {
    let index = InputIndex::new(inputs.byte_ranges());
    let mut output_ranges = outputs.byte_ranges();
    output_ranges.sort_unstable();
    output_ranges.dedup();

    let mut report = BufferReport::default();
    for range in &output_ranges {
        if index.contains(range) {
            report.shared_bytes += range.len as u64;
            report.shared_ranges += 1;
        } else {
            report.new_bytes += range.len as u64;
            report.new_ranges += 1;
        }
    }
    report
}

/// Input ranges sorted by start, with the running maximum end, so that "is this range inside
/// a single input range" is one binary search.
#[derive(Debug)]
struct InputIndex {
    starts: Vec<usize>,
    /// `max_end[i]` is the largest end among the first `i + 1` ranges in start order.
    max_end: Vec<usize>,
}

impl InputIndex {
    fn new(mut ranges: Vec<ByteRange>) -> Self {
        ranges.sort_unstable();
        ranges.dedup();
        let starts = ranges.iter().map(|range| range.start).collect();
        let max_end = ranges
            .iter()
            .scan(0usize, |max, range| {
                *max = (*max).max(range.end());
                Some(*max)
            })
            .collect();
        Self { starts, max_end }
    }

    /// Whether some single input range `r` has `r.start <= range.start` and
    /// `range.end() <= r.end()`. Among inputs starting at or before `range.start`, the one
    /// with the largest end decides, and `max_end` records exactly that end.
    fn contains(&self, range: &ByteRange) -> bool {
        let candidates = self.starts.partition_point(|&start| start <= range.start);
        candidates > 0 && self.max_end[candidates - 1] >= range.end()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{
        DictionaryArray, Int32Array, Int64Array, ListArray, StringArray, StructArray, UInt32Array,
    };
    use arrow::buffer::OffsetBuffer;
    use arrow::compute::{concat, concat_batches, take};
    use arrow::datatypes::{DataType, Field, Fields, Int32Type};

    use super::*;
    use crate::fixtures::{NullPattern, batch, list_of_struct, map_array, utf8};

    fn input_batch() -> RecordBatch {
        batch(
            1024,
            8,
            NullPattern::RowColumn {
                column: 0,
                modulus: 13,
            },
        )
    }

    #[test]
    fn slice_of_a_batch_is_all_shared() {
        let input = input_batch();
        let output = input.slice(3, 500);
        let report = buffer_report(&input, &output);
        assert_eq!(report.new_bytes, 0, "{report:?}");
        assert_eq!(report.new_ranges, 0, "{report:?}");
        assert!(report.shared_bytes > 0, "{report:?}");
        assert!(report.is_zero_copy());
    }

    #[test]
    fn several_slices_in_a_vec_are_all_shared() {
        let input = input_batch();
        let outputs = vec![
            input.slice(0, 10),
            input.slice(10, 1000),
            input.slice(1023, 1),
        ];
        let report = buffer_report(&input, &outputs);
        assert_eq!(report.new_bytes, 0, "{report:?}");
        assert!(report.shared_ranges > 0);
    }

    #[test]
    fn take_produces_new_bytes() {
        let input: ArrayRef = Arc::new(Int64Array::from_iter_values(0..1024));
        let indices = UInt32Array::from_iter_values((0..1024).rev());
        let output = take(input.as_ref(), &indices, None).unwrap();
        let report = buffer_report(&input, &output);
        assert_eq!(report.shared_bytes, 0, "{report:?}");
        assert_eq!(report.new_bytes, 1024 * 8, "{report:?}");
    }

    #[test]
    fn concat_produces_new_bytes() {
        let input = input_batch();
        let output = concat_batches(
            &input.schema(),
            [&input.slice(0, 100), &input.slice(200, 50)],
        )
        .unwrap();
        let report = buffer_report(&input, &output);
        assert_eq!(report.shared_bytes, 0, "{report:?}");
        assert!(report.new_bytes > 0);

        let a: ArrayRef = Arc::new(Int32Array::from_iter_values(0..10));
        let b: ArrayRef = Arc::new(Int32Array::from_iter_values(10..20));
        let joined = concat(&[a.as_ref(), b.as_ref()]).unwrap();
        let report = buffer_report(&(a, b), &joined);
        assert_eq!(report.shared_bytes, 0, "{report:?}");
        assert_eq!(report.new_bytes, 20 * 4, "{report:?}");
    }

    #[test]
    fn struct_child_sliced_from_an_input_is_shared_and_a_fresh_child_is_new() {
        let input: ArrayRef = Arc::new(Int64Array::from_iter_values(0..100));
        let sliced_child = input.slice(10, 50);
        let fresh_child: ArrayRef = Arc::new(Int64Array::from_iter_values(0..50));
        let fields = Fields::from(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("b", DataType::Int64, false),
        ]);
        let output: ArrayRef = Arc::new(StructArray::new(
            fields,
            vec![sliced_child, fresh_child],
            None,
        ));
        let report = buffer_report(&input, &output);
        assert_eq!(report.shared_bytes, 50 * 8, "{report:?}");
        assert_eq!(report.new_bytes, 50 * 8, "{report:?}");
        assert_eq!((report.shared_ranges, report.new_ranges), (1, 1));
    }

    #[test]
    fn list_of_struct_children_are_walked() {
        let items = list_of_struct(64, 3, NullPattern::EveryNth(5));
        let child_ranges = items.values().to_data();
        let mut expected = Vec::new();
        array_data_ranges(&child_ranges, &mut expected);
        expected.sort_unstable();
        expected.dedup();
        assert!(
            expected.len() >= 3,
            "struct child should have id, name offsets and values"
        );

        // A list built around the input's struct values shares them; only offsets are new.
        let input: ArrayRef = Arc::new(items.clone());
        let rebuilt = ListArray::new(
            Arc::new(Field::new_list_field(
                items.values().data_type().clone(),
                true,
            )),
            OffsetBuffer::new(items.offsets().inner().iter().copied().collect()),
            items.values().clone(),
            None,
        );
        let report = buffer_report(&input, &(Arc::new(rebuilt) as ArrayRef));
        let expected_shared: u64 = expected.iter().map(|range| range.len as u64).sum();
        assert_eq!(report.shared_bytes, expected_shared, "{report:?}");
        assert_eq!(
            report.new_bytes,
            65 * 4,
            "only the rebuilt offsets are new: {report:?}"
        );

        // The whole list against nothing: every nested buffer is new.
        let alone = buffer_report(&(), &input);
        assert_eq!(alone.shared_bytes, 0);
        assert!(alone.new_ranges > expected.len());
    }

    #[test]
    fn map_entries_are_walked() {
        let map = map_array(64, 2, NullPattern::EveryNth(7));
        let input: ArrayRef = Arc::new(map.clone());
        let keys = map.keys().clone();
        let values = map.values().clone();

        // Keys and values taken out of the map are shared with the map.
        let report = buffer_report(&input, &vec![keys.clone(), values.clone()]);
        assert_eq!(report.new_bytes, 0, "{report:?}");
        assert!(
            report.shared_ranges >= 3,
            "key offsets, key bytes, values: {report:?}"
        );

        // A fresh map from freshly built entries is all new against the original.
        let fresh = map_array(64, 2, NullPattern::EveryNth(7));
        let report = buffer_report(&input, &(Arc::new(fresh) as ArrayRef));
        assert_eq!(report.shared_bytes, 0, "{report:?}");
        let whole: u64 = input.byte_ranges().iter().map(|r| r.len as u64).sum();
        assert_eq!(report.new_bytes, whole);
    }

    #[test]
    fn dictionary_values_are_walked() {
        let values: ArrayRef = Arc::new(utf8(16, 8, NullPattern::None));
        let keys = Int32Array::from_iter_values((0..256).map(|i| i % 16));
        let dictionary: ArrayRef =
            Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values.clone()).unwrap());

        // Against the dictionary's values alone, the values are shared and the keys are new.
        let report = buffer_report(&values, &dictionary);
        let value_bytes: u64 = values.byte_ranges().iter().map(|r| r.len as u64).sum();
        assert_eq!(report.shared_bytes, value_bytes, "{report:?}");
        assert_eq!(report.new_bytes, 256 * 4, "{report:?}");
    }

    #[test]
    fn identical_output_ranges_are_counted_once() {
        let input: ArrayRef = Arc::new(StringArray::from(vec!["a", "bb", "ccc"]));
        let copy: ArrayRef = Arc::new(StringArray::from(vec!["a", "bb", "ccc"]));
        let once = buffer_report(&input, &copy);
        let twice = buffer_report(&input, &vec![copy.clone(), copy.clone()]);
        assert_eq!(once, twice);
        assert_eq!(twice.new_bytes, 4 * 4 + 6);
        assert_eq!(twice.new_ranges, 2);

        let shared_twice = buffer_report(&input, &vec![input.clone(), input.clone()]);
        assert_eq!(shared_twice, buffer_report(&input, &input));
    }

    #[test]
    fn overlapping_output_slices_are_not_merged() {
        let input: ArrayRef = Arc::new(Int64Array::from_iter_values(0..200));
        let outputs = vec![input.slice(0, 100), input.slice(50, 100)];
        let report = buffer_report(&input, &outputs);
        assert_eq!(report.shared_bytes, 200 * 8);
        assert_eq!(report.shared_ranges, 2);
    }

    #[test]
    fn a_range_spanning_two_inputs_is_new() {
        let index = InputIndex::new(vec![
            ByteRange {
                start: 100,
                len: 50,
            },
            ByteRange {
                start: 150,
                len: 50,
            },
            ByteRange {
                start: 120,
                len: 10,
            },
        ]);
        assert!(index.contains(&ByteRange {
            start: 100,
            len: 50
        }));
        assert!(index.contains(&ByteRange { start: 125, len: 5 }));
        assert!(index.contains(&ByteRange {
            start: 160,
            len: 40
        }));
        assert!(!index.contains(&ByteRange {
            start: 140,
            len: 20
        }));
        assert!(!index.contains(&ByteRange { start: 90, len: 20 }));
        assert!(!index.contains(&ByteRange {
            start: 190,
            len: 20
        }));
    }

    #[test]
    fn unit_and_dyn_array_inputs_are_accepted() {
        let array = Int32Array::from_iter_values(0..8);
        let report = buffer_report(&(), &array as &dyn Array);
        assert_eq!(report.new_bytes, 32);
        let report = buffer_report(&array as &dyn Array, &());
        assert_eq!(report, BufferReport::default());
        let data = array.to_data();
        assert_eq!(
            buffer_report(&data, &array.slice(2, 3).to_data()).new_bytes,
            0
        );
    }
}
