//! The `coalescing` suite: production post-exchange coalescing of changelog batches.
//!
//! Measured boundary: a fresh `Coalescer` with a 1,024-row target takes a stream of batches
//! as they came off an exchange (`push`: validation against the consumer's schema, row-kind
//! sidecar normalization, slicing or concatenation), `finish`es it and hands out every
//! output batch; output disposal is inside timing. The exchange itself (IPC decode, network)
//! is outside: the input batches are built before timing, each in its own buffers as a
//! decoder would leave them.
//!
//! Cases `coalesce/<order>/rows=<16|1024|4096>/width=<8|256>`: `max(4, 1024 / rows)` batches
//! of `rows` rows each (64 batches of 16 rows make one output; 1,024-row batches pass
//! through; 4,096-row batches are cut into four), columns `k BIGINT NOT NULL`, `s STRING`
//! of `width` bytes and `d DECIMAL(38, 9)`, both nullable (NULL every 13th row, staggered).
//! Orders: `append` (no sidecar), `updating` (every batch carries `-U`/`+U`/`-D`/`+I`),
//! `mixed_append_first` and `mixed_update_first` (the two alternate, starting with one or
//! the other). The 16-row streams come twice more with `/source=sliced`: the batches are
//! adjacent slices of one batch, as a producer or a local exchange that sliced one batch
//! passes them on; the string payload must then be shared, not copied.
//!
//! Oracle: the generated source columns, row by row: every output row equals the source row
//! in arrival order (values, NULLs, kind), every output but the last has 1,024 rows, and an
//! output carries a sidecar exactly when one of its rows is not `+I`. Where every output is
//! cut from a single input (`rows >= 1024`), the buffer walk must find no new bytes.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, Decimal128Array, Int8Array, Int64Array, RecordBatch,
    StringArray, UInt32Array,
};
use arrow::compute::take_record_batch;
use arrow::datatypes::{DataType, Decimal128Type, Field, Int64Type, Schema, SchemaRef};
use bench_support::buffers::{ArrowBuffers, buffer_report};
use bench_support::fixtures::{self, NullPattern};
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion_bridge::coalesce::Coalescer;
use streamfusion_core::changelog::ChangelogBatch;

bench_support::counting_allocator!();

const TARGET_ROWS: usize = 1_024;
const ROWS: [usize; 3] = [16, 1_024, 4_096];
const WIDTHS: [usize; 2] = [8, 256];
const NULLS: NullPattern = NullPattern::RowColumn {
    column: 1,
    modulus: 13,
};

#[derive(Debug, Clone, Copy)]
enum Order {
    Append,
    Updating,
    MixedAppendFirst,
    MixedUpdateFirst,
}

impl Order {
    const ALL: [Order; 4] = [
        Order::Append,
        Order::Updating,
        Order::MixedAppendFirst,
        Order::MixedUpdateFirst,
    ];

    fn name(self) -> &'static str {
        match self {
            Order::Append => "append",
            Order::Updating => "updating",
            Order::MixedAppendFirst => "mixed_append_first",
            Order::MixedUpdateFirst => "mixed_update_first",
        }
    }

    /// Whether batch `index` of the stream carries a sidecar of updates.
    fn updates(self, index: usize) -> bool {
        match self {
            Order::Append => false,
            Order::Updating => true,
            Order::MixedAppendFirst => !index.is_multiple_of(2),
            Order::MixedUpdateFirst => index.is_multiple_of(2),
        }
    }
}

fn main() {
    let mut suite = Suite::new("coalescing");
    for order in Order::ALL {
        for rows in ROWS {
            for width in WIDTHS {
                case(&mut suite, order, rows, width, Source::Decoded);
                if rows < TARGET_ROWS {
                    case(&mut suite, order, rows, width, Source::Sliced);
                }
            }
        }
    }
    suite.finish();
}

/// Where the stream's batches live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Each in buffers of its own, as a decoder leaves them.
    Decoded,
    /// Adjacent slices of one batch.
    Sliced,
}

/// The kind of source row `row` in an updating batch: `-U`, `+U`, `-D`, `+I` in turn.
fn update_kind(row: usize) -> i8 {
    ((row + 1) % 4) as i8
}

struct Stream {
    schema: SchemaRef,
    /// The columns the batches were cut from, and each row's kind: the oracle.
    source: RecordBatch,
    kinds: Vec<i8>,
    /// The batches as an exchange delivers them, each in its own buffers.
    batches: Vec<(RecordBatch, Option<Int8Array>)>,
}

impl ArrowBuffers for Stream {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        for (batch, kinds) in &self.batches {
            batch.collect_arrays(out);
            if let Some(kinds) = kinds {
                out.push(kinds.to_data());
            }
        }
    }
}

struct Outputs(Vec<ChangelogBatch>);

impl ArrowBuffers for Outputs {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        for batch in &self.0 {
            batch.batch().collect_arrays(out);
            if let Some(kinds) = batch.kinds() {
                out.push(kinds.to_data());
            }
        }
    }
}

fn stream(order: Order, rows: usize, width: usize, source_kind: Source) -> Stream {
    let count = (TARGET_ROWS / rows).max(4);
    let total = rows * count;
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
        Field::new("d", DataType::Decimal128(38, 9), true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(fixtures::row_ids(total)),
        Arc::new(fixtures::utf8(total, width, NULLS)),
        Arc::new(fixtures::decimal128(total, 38, 9, NULLS.for_column(1))),
    ];
    let source = RecordBatch::try_new(Arc::clone(&schema), columns).expect("source batch");
    let mut kinds = Vec::with_capacity(total);
    let batches = (0..count)
        .map(|index| {
            let first = index * rows;
            let slice = source.slice(first, rows);
            let batch = match source_kind {
                Source::Sliced => slice,
                Source::Decoded => {
                    // A deep copy: a decoder leaves each batch in buffers of its own.
                    let all = UInt32Array::from_iter_values(0..rows as u32);
                    take_record_batch(&slice, &all).expect("copy")
                }
            };
            let batch_kinds = if order.updates(index) {
                let bytes: Vec<i8> = (first..first + rows).map(update_kind).collect();
                kinds.extend_from_slice(&bytes);
                Some(Int8Array::from(bytes))
            } else {
                kinds.resize(kinds.len() + rows, 0);
                None
            };
            (batch, batch_kinds)
        })
        .collect();
    Stream {
        schema,
        source,
        kinds,
        batches,
    }
}

fn coalesce(stream: &Stream) -> Outputs {
    let mut coalescer =
        Coalescer::try_new(Arc::clone(&stream.schema), TARGET_ROWS).expect("coalescer");
    for (batch, kinds) in &stream.batches {
        coalescer
            .push(batch.clone(), kinds.clone())
            .expect("a valid batch");
    }
    coalescer.finish().expect("finish");
    Outputs(std::iter::from_fn(|| coalescer.next_batch()).collect())
}

fn case(suite: &mut Suite, order: Order, rows: usize, width: usize, source: Source) {
    let mut id = format!("coalesce/{}/rows={rows}/width={width}", order.name());
    if source == Source::Sliced {
        id.push_str("/source=sliced");
    }
    suite.stateless(
        &id,
        || stream(order, rows, width, source),
        coalesce,
        |stream, outputs| {
            check(stream, &outputs.0)?;
            if rows >= TARGET_ROWS {
                let report = buffer_report(stream, outputs);
                expect_eq(
                    "new output bytes of pass-through and split outputs",
                    &report.new_bytes,
                    &0,
                )?;
            }
            if source == Source::Sliced {
                let payload = |b: &RecordBatch| b.column(1).as_string::<i32>().values().as_ptr();
                let shared = outputs
                    .0
                    .iter()
                    .all(|out| payload(out.batch()) == payload(&stream.source));
                expect_eq(
                    "string payload shared with the sliced batch",
                    &shared,
                    &true,
                )?;
            }
            Ok(())
        },
    );
}

fn check(stream: &Stream, outputs: &[ChangelogBatch]) -> Verdict {
    let total = stream.source.num_rows();
    let (last, full) = outputs.split_last().ok_or("no output")?;
    for (i, batch) in full.iter().enumerate() {
        expect_eq(
            &format!("rows of output {i}"),
            &batch.num_rows(),
            &TARGET_ROWS,
        )?;
    }
    expect_eq(
        "rows out",
        &(full.len() * TARGET_ROWS + last.num_rows()),
        &total,
    )?;
    let k = stream.source.column(0).as_primitive::<Int64Type>();
    let s = stream.source.column(1).as_string::<i32>();
    let d = stream.source.column(2).as_primitive::<Decimal128Type>();
    let mut row = 0;
    for (i, batch) in outputs.iter().enumerate() {
        expect_eq(
            &format!("columns of output {i}"),
            &batch.batch().num_columns(),
            &3,
        )?;
        let out_k: &Int64Array = batch.batch().column(0).as_primitive();
        let out_s: &StringArray = batch.batch().column(1).as_string();
        let out_d: &Decimal128Array = batch.batch().column(2).as_primitive();
        let mut updates = false;
        for r in 0..batch.num_rows() {
            let kind = batch.kind(r).to_byte();
            updates |= kind != 0;
            let same = kind == stream.kinds[row]
                && out_k.value(r) == k.value(row)
                && out_s.is_valid(r).then(|| out_s.value(r))
                    == s.is_valid(row).then(|| s.value(row))
                && out_d.is_valid(r).then(|| out_d.value(r))
                    == d.is_valid(row).then(|| d.value(row));
            if !same {
                return Err(format!("output {i} row {r} differs from source row {row}"));
            }
            row += 1;
        }
        expect_eq(
            &format!("sidecar of output {i}"),
            &batch.kinds().is_some(),
            &updates,
        )?;
    }
    Ok(())
}
