//! The `parquet_host_reader` suite: the production [`FlinkParquetReader`] decoding a Flink
//! Parquet file through host callbacks ([`HostFile`]): an in-memory file and a local file
//! read with positional reads.
//!
//! Cases `<memory|local>/batch=<64|4096>/rows=<16|1024|16384>`: a BIGINT row id and a
//! nullable 264-byte VARCHAR (bench-support fixtures; NULL every 7th row), written once
//! (SNAPPY) outside timing; the local file is written to the temporary directory outside
//! timing. Measured: reader construction (footer through the callback), decoding, output
//! collection and teardown.
//!
//! Oracle (before timing): the concatenated output equals the fixture's columns, no batch
//! exceeds the batch size.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::datatypes::{Field, Schema};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{self, NullPattern};
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion_core::types::{LogicalType, RowField};
use streamfusion_formats::parquet::{
    FlinkParquetReader, FlinkParquetWriter, HostFile, LocalFile, MemoryFile, ParquetReadOptions,
    ParquetWriteOptions,
};

bench_support::counting_allocator!();

struct Input {
    file: Arc<dyn HostFile>,
    fields: Vec<RowField>,
    expected: RecordBatch,
    batch_size: usize,
    _path: Option<TempFile>,
}

struct TempFile(std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl ArrowBuffers for Input {
    fn collect_arrays(&self, out: &mut Vec<arrow::array::ArrayData>) {
        self.expected.collect_arrays(out);
    }
}

fn main() {
    let mut suite = Suite::new("parquet_host_reader");
    for host in ["memory", "local"] {
        for batch_size in [64, 4096] {
            for rows in fixtures::ROW_COUNTS {
                suite.stateless(
                    &format!("{host}/batch={batch_size}/rows={rows}"),
                    || input(host, batch_size, rows),
                    |input| {
                        let options = ParquetReadOptions {
                            batch_size: input.batch_size,
                            ..ParquetReadOptions::utc()
                        };
                        FlinkParquetReader::try_new(
                            Arc::clone(&input.file),
                            &input.fields,
                            &options,
                        )
                        .expect("reader")
                        .collect::<Result<Vec<_>, _>>()
                        .expect("decode")
                    },
                    |input, out| check(input, out),
                );
            }
        }
    }
    suite.finish();
}

fn input(host: &str, batch_size: usize, rows: usize) -> Input {
    let id: ArrayRef = Arc::new(fixtures::row_ids(rows));
    let name: ArrayRef = Arc::new(fixtures::utf8(
        rows,
        264,
        NullPattern::RowColumn {
            column: 0,
            modulus: 7,
        },
    ));
    let schema = Schema::new(vec![
        Field::new("id", id.data_type().clone(), true),
        Field::new("name", name.data_type().clone(), true),
    ]);
    let expected = RecordBatch::try_new(Arc::new(schema), vec![id, name]).expect("fixture");
    let fields = vec![
        RowField::new("id", LogicalType::BigInt),
        RowField::new("name", LogicalType::VarChar(i32::MAX as u32)),
    ];
    let mut writer = FlinkParquetWriter::try_new(&fields, Vec::new(), &ParquetWriteOptions::utc())
        .expect("writer");
    writer.write(&expected).expect("write");
    let bytes = writer.close().expect("close");
    let (file, path): (Arc<dyn HostFile>, Option<TempFile>) = match host {
        "memory" => (Arc::new(MemoryFile::new(bytes)), None),
        _ => {
            let path = std::env::temp_dir().join(format!(
                "sf-parquet-host-reader-{}-{batch_size}-{rows}.parquet",
                std::process::id()
            ));
            std::fs::write(&path, &bytes).expect("write local file");
            (
                Arc::new(LocalFile::open(&path).expect("open")),
                Some(TempFile(path)),
            )
        }
    };
    Input {
        file,
        fields,
        expected,
        batch_size,
        _path: path,
    }
}

fn check(input: &Input, out: &[RecordBatch]) -> Verdict {
    if out.iter().any(|b| b.num_rows() > input.batch_size) {
        return Err("a batch exceeds the batch size".into());
    }
    let rows: usize = out.iter().map(RecordBatch::num_rows).sum();
    expect_eq("rows", &rows, &input.expected.num_rows())?;
    for i in 0..2 {
        let parts: Vec<&dyn Array> = out.iter().map(|b| b.column(i).as_ref()).collect();
        let column = arrow::compute::concat(&parts).map_err(|e| e.to_string())?;
        if column.as_ref() != input.expected.column(i).as_ref() {
            return Err(format!("column {i} differs from the fixture"));
        }
    }
    Ok(())
}
