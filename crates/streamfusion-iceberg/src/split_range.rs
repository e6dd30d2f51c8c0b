//! A split's byte range, from Java Iceberg's file offsets to iceberg-rust 0.10's coordinates.
//!
//! A split of a Parquet data file is a byte range `[start, start + length)`. Java Iceberg hands
//! it to parquet-mr (`ParquetReadOptions.withRange`), whose
//! `ParquetMetadataConverter.filterFileMetaDataByMidpoint` keeps the row groups whose midpoint
//! lies in the range: a row group starts at its first column chunk (the dictionary page if it
//! comes first, else the first data page) and its midpoint is `start + total_compressed_size
//! / 2`. Consecutive splits therefore partition the row groups.
//!
//! iceberg-rust 0.10 (`ArrowReader::filter_row_groups_by_byte_range`) applies the same
//! half-open midpoint rule, but places row group `i` at `4 + sum(compressed_size of 0..i)`,
//! as if row groups were contiguous from the magic bytes. They are not when anything sits
//! between them: parquet-rs writes each row group's bloom filters right after it
//! (`BloomFilterPosition::AfterRowGroup`, its default), Java writers may pad to block
//! boundaries. Every range is then read in compressed coordinates: the first splits claim
//! nearly every row group and the later ones nothing, and a file read partly by Java and
//! partly by us loses or repeats row groups.
//!
//! [`translate`] selects the row groups with Java's rule on the real offsets and returns the
//! range that selects exactly those in iceberg-rust's coordinates; [`read_footer`] loads the
//! footer it needs.

use iceberg::io::{FileIO, FileRead};
use parquet::file::FOOTER_SIZE;
use parquet::file::metadata::{
    FooterTail, ParquetMetaData, ParquetMetaDataReader, RowGroupMetaData,
};

use crate::error::{IcebergError, Result};

/// What a split reads, in the coordinates iceberg-rust's `FileScanTask` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitSelection {
    /// No row group's midpoint is in the split: there is nothing to read.
    Empty,
    /// `FileScanTask` `start` and `length` that select exactly the split's row groups.
    Range {
        /// The task's `start`.
        start: u64,
        /// The task's `length` (never 0, which iceberg-rust reads as "the whole file").
        length: u64,
    },
}

/// Where a row group starts in the file, as parquet-mr computes it: the first column chunk's
/// dictionary page offset if it is set and earlier, else its first data page offset.
fn physical_start(row_group: &RowGroupMetaData, index: usize) -> Result<u64> {
    let offset = match row_group.columns().first() {
        Some(column) => {
            let data = column.data_page_offset();
            match column.dictionary_page_offset() {
                Some(dictionary) if dictionary < data => dictionary,
                _ => data,
            }
        }
        None => row_group.file_offset().unwrap_or(0),
    };
    u64::try_from(offset).map_err(|_| {
        IcebergError::Invalid(format!(
            "row group {index} starts at negative offset {offset}"
        ))
    })
}

fn compressed_size(row_group: &RowGroupMetaData, index: usize) -> Result<u64> {
    let size = row_group.compressed_size();
    u64::try_from(size)
        .map_err(|_| IcebergError::Invalid(format!("row group {index} has negative size {size}")))
}

fn range_end(start: u64, length: u64) -> Result<u64> {
    start.checked_add(length).ok_or_else(|| {
        IcebergError::Invalid(format!(
            "split start {start} plus length {length} overflows"
        ))
    })
}

/// The row groups Java Iceberg (parquet-mr) reads for `[start, start + length)`: those whose
/// midpoint, on the real file offsets, is in the range.
pub fn owned_row_groups(metadata: &ParquetMetaData, start: u64, length: u64) -> Result<Vec<usize>> {
    let end = range_end(start, length)?;
    let mut owned = Vec::new();
    for (index, row_group) in metadata.row_groups().iter().enumerate() {
        let midpoint = physical_start(row_group, index)? + compressed_size(row_group, index)? / 2;
        if start <= midpoint && midpoint < end {
            owned.push(index);
        }
    }
    Ok(owned)
}

/// Each row group's start in iceberg-rust 0.10's coordinates (contiguous from byte 4), and
/// where the last one ends.
fn iceberg_offsets(metadata: &ParquetMetaData) -> Result<(Vec<u64>, u64)> {
    let mut offsets = Vec::with_capacity(metadata.num_row_groups());
    let mut next = 4u64;
    for (index, row_group) in metadata.row_groups().iter().enumerate() {
        offsets.push(next);
        next = next
            .checked_add(compressed_size(row_group, index)?)
            .ok_or_else(|| IcebergError::Invalid("row group sizes overflow".to_string()))?;
    }
    Ok((offsets, next))
}

/// The row groups iceberg-rust 0.10 reads for a task `start`/`length` (its own rule, kept
/// here to check [`translate`]'s answer before it is used).
fn iceberg_selects(metadata: &ParquetMetaData, start: u64, length: u64) -> Result<Vec<usize>> {
    let end = range_end(start, length)?;
    let (offsets, _) = iceberg_offsets(metadata)?;
    let mut selected = Vec::new();
    for (index, row_group) in metadata.row_groups().iter().enumerate() {
        let midpoint = offsets[index] + compressed_size(row_group, index)? / 2;
        if start <= midpoint && midpoint < end {
            selected.push(index);
        }
    }
    Ok(selected)
}

/// The `FileScanTask` range under which iceberg-rust 0.10 reads exactly the row groups Java
/// Iceberg reads for the physical split `[start, start + length)`.
///
/// The owned row groups are consecutive (midpoints grow with the offsets), so the range is
/// `[first owned start, first unowned start)` in iceberg-rust's coordinates. The answer is
/// checked against iceberg-rust's own rule; row groups without rows may differ, as they add
/// nothing. Fails when the footer's row groups are out of file order, or have zero size
/// next to a boundary, so that no range can express the selection.
pub fn translate(metadata: &ParquetMetaData, start: u64, length: u64) -> Result<SplitSelection> {
    let owned = owned_row_groups(metadata, start, length)?;
    let (Some(&first), Some(&last)) = (owned.first(), owned.last()) else {
        return Ok(SplitSelection::Empty);
    };
    let (offsets, end_of_all) = iceberg_offsets(metadata)?;
    let from = offsets[first];
    let to = offsets.get(last + 1).copied().unwrap_or(end_of_all);
    let selection = SplitSelection::Range {
        start: from,
        length: to - from,
    };
    let with_rows = |groups: Vec<usize>| -> Vec<usize> {
        groups
            .into_iter()
            .filter(|&i| metadata.row_group(i).num_rows() > 0)
            .collect()
    };
    let expected = with_rows(owned);
    if to <= from || with_rows(iceberg_selects(metadata, from, to - from)?) != expected {
        return Err(IcebergError::Invalid(format!(
            "split [{start}, +{length}) owns row groups {expected:?}, which no iceberg-rust \
             byte range selects exactly (row groups out of order or empty)"
        )));
    }
    Ok(selection)
}

/// Reads and decodes the Parquet footer of `path` (`size` bytes) through `file_io`: the last
/// 8 bytes, then the metadata they point at. Page indexes are not loaded.
pub async fn read_footer(file_io: &FileIO, path: &str, size: u64) -> Result<ParquetMetaData> {
    let storage = |source| IcebergError::Read {
        path: path.to_string(),
        source: Box::new(source),
    };
    let parquet = |source| IcebergError::Parquet {
        path: path.to_string(),
        source,
    };
    let footer_size = FOOTER_SIZE as u64;
    if size < footer_size + 4 {
        return Err(IcebergError::Invalid(format!(
            "`{path}` has {size} bytes, too few for a Parquet file"
        )));
    }
    let reader = file_io
        .new_input(path)
        .map_err(storage)?
        .reader()
        .await
        .map_err(storage)?;
    let tail = reader
        .read(size - footer_size..size)
        .await
        .map_err(storage)?;
    let footer = FooterTail::try_from(tail.as_ref()).map_err(parquet)?;
    if footer.is_encrypted_footer() {
        return Err(IcebergError::Invalid(format!(
            "`{path}` has an encrypted footer, which split reads do not support"
        )));
    }
    let metadata_len = footer.metadata_length() as u64;
    let Some(metadata_start) = (size - footer_size)
        .checked_sub(metadata_len)
        .filter(|start| *start >= 4)
    else {
        return Err(IcebergError::Invalid(format!(
            "`{path}`: footer metadata of {metadata_len} bytes does not fit in {size} bytes"
        )));
    };
    let bytes = reader
        .read(metadata_start..size - footer_size)
        .await
        .map_err(storage)?;
    ParquetMetaDataReader::decode_metadata(&bytes).map_err(parquet)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{ArrayRef, Int64Array, RecordBatch};
    use arrow::datatypes::{DataType, Field, Schema};
    use bytes::Bytes;
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Encoding;
    use parquet::file::properties::{BloomFilterPosition, WriterProperties};

    use super::*;

    const ROWS_PER_GROUP: i64 = 1000;

    /// Four row groups of 1000 distinct longs each, bloom filters where `position` says.
    /// Delta-encoded consecutive longs take a few hundred bytes, their bloom filter a few KiB.
    fn file(position: BloomFilterPosition) -> Bytes {
        let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(ROWS_PER_GROUP as usize))
            .set_dictionary_enabled(false)
            .set_encoding(Encoding::DELTA_BINARY_PACKED)
            .set_bloom_filter_enabled(true)
            .set_bloom_filter_ndv(20_000)
            .set_bloom_filter_position(position)
            .build();
        let mut out = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut out, schema.clone(), Some(props)).unwrap();
        let values: ArrayRef = Arc::new(Int64Array::from_iter_values(0..4 * ROWS_PER_GROUP));
        writer
            .write(&RecordBatch::try_new(schema, vec![values]).unwrap())
            .unwrap();
        writer.close().unwrap();
        Bytes::from(out)
    }

    fn footer(bytes: &Bytes) -> ParquetMetaData {
        ParquetMetaDataReader::new()
            .parse_and_finish(bytes)
            .unwrap()
    }

    /// Where row group `i` starts, read straight from its first column chunk.
    fn start_of(metadata: &ParquetMetaData, i: usize) -> u64 {
        let column = metadata.row_group(i).column(0);
        column
            .dictionary_page_offset()
            .unwrap_or(column.data_page_offset()) as u64
    }

    #[test]
    fn blooms_after_row_groups_shift_icebergs_coordinates() {
        let bytes = file(BloomFilterPosition::AfterRowGroup);
        let metadata = footer(&bytes);
        assert_eq!(metadata.num_row_groups(), 4);
        // The blooms sit between row groups: the file offsets are not contiguous.
        let gap = start_of(&metadata, 1) - (4 + metadata.row_group(0).compressed_size() as u64);
        assert!(gap > 1000, "bloom gap {gap}");

        // A split boundary at row group 2's first byte: Java's halves are {0, 1} and {2, 3}.
        let boundary = start_of(&metadata, 2);
        let len = bytes.len() as u64;
        assert_eq!(owned_row_groups(&metadata, 0, boundary).unwrap(), [0, 1]);
        assert_eq!(
            owned_row_groups(&metadata, boundary, len - boundary).unwrap(),
            [2, 3]
        );
        // Passed through unchanged, iceberg-rust's first half claims every row group.
        assert_eq!(
            iceberg_selects(&metadata, 0, boundary).unwrap(),
            [0, 1, 2, 3]
        );

        for (start, length, groups) in [
            (0, boundary, vec![0, 1]),
            (boundary, len - boundary, vec![2, 3]),
        ] {
            let SplitSelection::Range { start, length } =
                translate(&metadata, start, length).unwrap()
            else {
                panic!("expected a range");
            };
            assert_eq!(iceberg_selects(&metadata, start, length).unwrap(), groups);
        }
    }

    #[test]
    fn blooms_at_the_end_translate_to_the_same_groups() {
        let bytes = file(BloomFilterPosition::End);
        let metadata = footer(&bytes);
        let boundary = start_of(&metadata, 3);
        let SplitSelection::Range { start, length } = translate(&metadata, 0, boundary).unwrap()
        else {
            panic!("expected a range");
        };
        assert_eq!(
            iceberg_selects(&metadata, start, length).unwrap(),
            [0, 1, 2]
        );
    }

    #[test]
    fn a_split_without_a_midpoint_reads_nothing() {
        let bytes = file(BloomFilterPosition::AfterRowGroup);
        let metadata = footer(&bytes);
        // The first 4 bytes (the magic) hold no row group's midpoint.
        assert_eq!(translate(&metadata, 0, 4).unwrap(), SplitSelection::Empty);
        // Nor does the footer.
        let len = bytes.len() as u64;
        assert_eq!(
            translate(&metadata, len - 8, 8).unwrap(),
            SplitSelection::Empty
        );
    }

    #[test]
    fn overflowing_ranges_are_errors() {
        let metadata = footer(&file(BloomFilterPosition::End));
        let err = translate(&metadata, u64::MAX, 2).unwrap_err();
        assert!(err.to_string().contains("overflows"), "{err}");
    }

    #[test]
    fn the_footer_reads_through_file_io() {
        let bytes = file(BloomFilterPosition::AfterRowGroup);
        let size = bytes.len() as u64;
        let io = FileIO::new_with_memory();
        let path = "memory:///split/footer.parquet";
        futures::executor::block_on(async {
            io.new_output(path)
                .unwrap()
                .write(bytes.clone())
                .await
                .unwrap();
            let metadata = read_footer(&io, path, size).await.unwrap();
            assert_eq!(metadata.num_row_groups(), 4);
            assert_eq!(metadata.file_metadata().num_rows(), 4 * ROWS_PER_GROUP);

            let err = read_footer(&io, path, 6).await.unwrap_err();
            assert!(err.to_string().contains("too few"), "{err}");
            // A size that cuts the file: the tail is not a footer.
            let err = read_footer(&io, path, size - 1).await.unwrap_err();
            assert!(err.to_string().contains(path), "{err}");
            let err = read_footer(&io, "memory:///split/missing.parquet", size)
                .await
                .unwrap_err();
            assert!(err.to_string().contains("missing.parquet"), "{err}");
        });
    }
}
