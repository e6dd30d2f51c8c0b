//! The open writer's retained-memory estimate against the bytes it actually holds.
//!
//! The oracle is this binary's allocator, which counts the live bytes allocated and freed on
//! the current thread: after the fixture batch exists, whatever is live above that baseline
//! while the writer is open (and not before it was created) is what the writer holds. The
//! estimate must not fall short of it by more than a sixth, and may exceed it by at most half
//! plus what it reserves for compressed dictionary pages it cannot see (the dictionary limit
//! and one write batch of the widest string), across string widths, low and high
//! cardinality (dictionary fallback), compression on and off, and one or many row groups.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use arrow::array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use iceberg::io::FileIO;
use iceberg::spec::{NestedField, PrimitiveType, Schema, Type};
use parquet::file::properties::WriterProperties;
use streamfusion_iceberg::data_file_writer::{
    DataFileWriter, PartitionValue, Sink, default_properties,
};

struct LiveBytes;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

fn track(delta: isize) {
    // `try_with`: the thread's TLS may already be gone while it exits.
    let _ = LIVE.try_with(|live| live.set(live.get() + delta));
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counter only
// observes sizes.
unsafe impl GlobalAlloc for LiveBytes {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        track(layout.size() as isize);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, forwarded as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        track(-(layout.size() as isize));
        // SAFETY: `ptr` was allocated by `System` with `layout` (see `alloc`).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        track(new_size as isize - layout.size() as isize);
        // SAFETY: forwarded under the caller's `GlobalAlloc::realloc` contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: LiveBytes = LiveBytes;

fn live() -> isize {
    LIVE.with(Cell::get)
}

fn schema() -> Arc<Schema> {
    Arc::new(
        Schema::builder()
            .with_fields(vec![
                NestedField::required(1, "id", Type::Primitive(PrimitiveType::Long)).into(),
                NestedField::optional(2, "s", Type::Primitive(PrimitiveType::String)).into(),
                NestedField::optional(3, "d", Type::Primitive(PrimitiveType::Double)).into(),
            ])
            .build()
            .unwrap(),
    )
}

fn batch(
    schema: &Schema,
    offset: usize,
    rows: usize,
    width: usize,
    distinct: usize,
) -> RecordBatch {
    let arrow = Arc::new(iceberg::arrow::schema_to_arrow_schema(schema).unwrap());
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(
            (offset..offset + rows).map(|r| r as i64),
        )),
        Arc::new(StringArray::from_iter((offset..offset + rows).map(|r| {
            (r % 10 != 3).then(|| {
                let head = format!("{:08}", (r * 2_654_435_761) % distinct);
                format!("{head}{}", "v".repeat(width.saturating_sub(8)))
            })
        }))),
        Arc::new(Float64Array::from_iter(
            (offset..offset + rows).map(|r| (r % 7 != 0).then_some(r as f64 * 0.5)),
        )),
    ];
    RecordBatch::try_new(arrow, columns).unwrap()
}

/// Live bytes held by the open writer after `batches` writes, and its estimate.
fn measure(
    props: WriterProperties,
    width: usize,
    distinct: usize,
    batches: usize,
) -> (isize, usize) {
    let schema = schema();
    let inputs: Vec<RecordBatch> = (0..batches)
        .map(|i| batch(&schema, i * 4_096, 4_096, width, distinct))
        .collect();
    let file_io = FileIO::new_with_memory();
    let before = live();
    let mut writer = DataFileWriter::try_new(
        &file_io,
        "memory:///m.parquet",
        Arc::clone(&schema),
        PartitionValue::unpartitioned(),
        props,
        Sink::Buffered,
    )
    .unwrap();
    for input in &inputs {
        writer.write(input).unwrap();
    }
    let held = live() - before;
    let estimate = writer.retained_bytes();
    drop(writer);
    (held, estimate)
}

fn assert_close(case: &str, width: usize, (held, estimate): (isize, usize)) {
    let (held, estimate) = (held as f64, estimate as f64);
    let slack = 64.0 * 1024.0;
    let dictionary_reserve = (1024 * 1024 + 1024 * width) as f64;
    eprintln!("{case}: held {held} estimate {estimate}");
    assert!(
        held <= estimate * 1.2 + slack && estimate <= held * 1.5 + dictionary_reserve + slack,
        "{case}: the writer holds {held} bytes, the estimate says {estimate}"
    );
}

#[test]
fn the_estimate_follows_what_the_writer_holds() {
    let builder = || WriterProperties::builder().set_statistics_truncate_length(None);
    let zstd = || parquet::basic::Compression::ZSTD(Default::default());
    for width in [8, 264, 4_096] {
        for distinct in [16, 1_000_000] {
            let case = format!("width={width} distinct={distinct}");
            let cases = [
                ("defaults", default_properties()),
                ("uncompressed", builder().build()),
                (
                    "zstd without dictionaries",
                    builder()
                        .set_dictionary_enabled(false)
                        .set_compression(zstd())
                        .build(),
                ),
                (
                    "zstd, a row group per batch",
                    builder()
                        .set_compression(zstd())
                        .set_max_row_group_row_count(Some(4_096))
                        .build(),
                ),
                (
                    "a row group per batch",
                    builder().set_max_row_group_row_count(Some(4_096)).build(),
                ),
            ];
            for (name, props) in cases {
                assert_close(
                    &format!("{case} {name}"),
                    width,
                    measure(props, width, distinct, 4),
                );
            }
        }
    }
}
