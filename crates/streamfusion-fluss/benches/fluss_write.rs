//! The `fluss_write` suite: Fluss append routing through the production [`route`].
//!
//! Measured: bucket ids (bucket-key encoding straight from the Arrow arrays, Fluss's Murmur
//! hash), the split by bucket (zero-copy slices for contiguous runs, gathers otherwise) and
//! every bucket batch's column statistics, for a table without a lake format. Fixture
//! construction and the oracle run before timing (bench-support's runner).
//!
//! Cases `route/key=<bigint|string>/buckets=<1|4|128>/rows=<16|1024|16384>/nulls=<bool>`:
//! the batch is a non-NULL bucket-key column (`BIGINT` spread over the whole range, or
//! 264-byte UTF-8 strings) followed by bench-support's mixed fixture batch (row id, INT,
//! DECIMAL(18, 2), TIMESTAMP(9), 264-byte VARCHAR, VARBINARY), whose value columns carry
//! NULLs when `nulls=true`.
//!
//! The oracle: row count conserved and every row in exactly one bucket batch (by the
//! fixture's row ids), input order kept, every row's bucket equal to the row-at-a-time
//! reference of `tests/support/reference.rs` (written from Fluss's Java sources and checked
//! there against Fluss's vectors), a bucket batch is a slice exactly when its rows are one
//! contiguous run, and row/NULL counts of the statistics.

#[path = "../tests/support/reference.rs"]
mod reference;

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::{DataType, Field, Int64Type, Schema};
use bench_support::fixtures::{self, NullPattern};
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion_fluss::{BucketBatch, SplitKind, route};

bench_support::counting_allocator!();

const BUCKETS: [u32; 3] = [1, 4, 128];
const STRING_KEY_WIDTH: usize = 264;
/// The bucket key: column 0.
const KEY: [usize; 1] = [0];
/// The fixture's row ids follow the key column.
const ROW_ID: usize = 1;

fn main() {
    let mut suite = Suite::new("fluss_write");
    for key in ["bigint", "string"] {
        for buckets in BUCKETS {
            for rows in fixtures::ROW_COUNTS {
                for nulls in [false, true] {
                    suite.stateless(
                        &format!("route/key={key}/buckets={buckets}/rows={rows}/nulls={nulls}"),
                        || input(key, rows, nulls),
                        |batch| route(batch, &KEY, buckets as i32, None).expect("route"),
                        |batch, out| check(batch, buckets, out),
                    );
                }
            }
        }
    }
    suite.finish();
}

fn input(key: &str, rows: usize, nulls: bool) -> RecordBatch {
    let key: ArrayRef = match key {
        "bigint" => Arc::new(fixtures::int64(rows, NullPattern::None)),
        _ => Arc::new(fixtures::utf8(rows, STRING_KEY_WIDTH, NullPattern::None)),
    };
    let pattern = if nulls {
        NullPattern::RowColumn {
            column: 0,
            modulus: 13,
        }
    } else {
        NullPattern::None
    };
    let values = fixtures::batch(rows, STRING_KEY_WIDTH, pattern);
    let mut fields = vec![Arc::new(Field::new("key", key.data_type().clone(), false))];
    fields.extend(values.schema().fields().iter().cloned());
    let mut columns = vec![key];
    columns.extend(values.columns().iter().cloned());
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("bench batch")
}

fn check(batch: &RecordBatch, buckets: u32, out: &[BucketBatch]) -> Verdict {
    let total: usize = out.iter().map(|b| b.batch.num_rows()).sum();
    expect_eq("rows across buckets", &total, &batch.num_rows())?;
    let mut owner = vec![None; batch.num_rows()];
    let mut previous = None;
    for part in out {
        if previous >= Some(part.bucket) || part.bucket >= buckets {
            return Err(format!("bucket {} out of order or range", part.bucket));
        }
        previous = Some(part.bucket);
        let ids = part
            .batch
            .column(ROW_ID)
            .as_primitive::<Int64Type>()
            .values();
        if !ids.windows(2).all(|w| w[0] < w[1]) {
            return Err(format!("bucket {} lost input order", part.bucket));
        }
        for &id in ids.iter() {
            let row = id as usize;
            if owner[row].replace(part.bucket).is_some() {
                return Err(format!("row {row} is in two buckets"));
            }
            let want = reference::row_bucket(batch, &KEY, row, buckets)
                .ok_or_else(|| format!("row {row} has a NULL key"))?;
            if want != part.bucket {
                return Err(format!(
                    "row {row} in bucket {}, hashes to {want}",
                    part.bucket
                ));
            }
        }
        let contiguous = ids.last().map(|&l| (l - ids[0]) as usize + 1) == Some(ids.len());
        let want_kind = if contiguous {
            SplitKind::Slice
        } else {
            SplitKind::Gathered
        };
        expect_eq(
            &format!("kind of bucket {}", part.bucket),
            &part.kind,
            &want_kind,
        )?;
        for (c, stats) in part.statistics.iter().enumerate() {
            let column = part.batch.column(c);
            expect_eq("statistics row count", &stats.row_count, &column.len())?;
            expect_eq(
                "statistics NULL count",
                &stats.null_count,
                &column.null_count(),
            )?;
            // Fluss keeps bounds for every type here but VARBINARY.
            let bounded = !matches!(column.data_type(), DataType::Binary);
            if bounded && stats.bounds.is_none() && column.null_count() < column.len() {
                return Err(format!("bucket {} column {c} has no bounds", part.bucket));
            }
        }
    }
    if let Some(row) = owner.iter().position(Option::is_none) {
        return Err(format!("row {row} is in no bucket"));
    }
    Ok(())
}
