//! The column statistics an Iceberg `DataFile` carries, from a written Parquet footer.
//!
//! Counts, sizes and bounds come from the footer's column chunks, mapped to Iceberg field IDs
//! through the IDs parquet-rs stored on every leaf (robust to renamed columns). NaN counts are
//! not in the footer and are counted from the batches as they are written ([`NanCounter`]).
//!
//! String and binary bounds follow Java Iceberg's default metrics mode, `truncate(16)`: the
//! lower bound is the first 16 code points (bytes for binary), the upper bound the same
//! prefix with its last incrementable code point (byte) incremented, or no upper bound when
//! none can be. The footer keeps untruncated min/max (the writer turns parquet's own
//! truncation off), so both bounds are exact inputs to the rule. iceberg-rust 0.10 instead
//! drops the bounds of values longer than parquet's 64-byte truncation.

use std::collections::HashMap;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{DataType, Field, Float32Type, Float64Type};
use iceberg::spec::{Datum, PrimitiveType, Schema, Type};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::statistics::Statistics;

use crate::error::{IcebergError, Result};
use crate::field_ids::FIELD_ID_KEY;

/// Code points (bytes for binary) kept in string and binary bounds: Java Iceberg's default
/// `write.metadata.metrics.default` of `truncate(16)`.
pub const TRUNCATE_LENGTH: usize = 16;

/// Per-field-ID statistics of one data file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColumnStats {
    /// Compressed bytes of each leaf's column chunks.
    pub column_sizes: HashMap<i32, u64>,
    /// Leaf values, NULLs included.
    pub value_counts: HashMap<i32, u64>,
    /// NULL leaf values.
    pub null_value_counts: HashMap<i32, u64>,
    /// Smallest non-NULL, non-NaN value (truncated for strings and binary).
    pub lower_bounds: HashMap<i32, Datum>,
    /// Largest non-NULL, non-NaN value (truncated and incremented for strings and binary).
    pub upper_bounds: HashMap<i32, Datum>,
    /// Each row group's file offset: where a reader may split the file.
    pub split_offsets: Vec<i64>,
}

/// Reads the statistics of every leaf that carries a field ID of `schema` from `metadata`.
pub fn from_footer(schema: &Schema, metadata: &ParquetMetaData) -> Result<ColumnStats> {
    let mut stats = ColumnStats::default();
    // Leaves with a chunk whose maximum has no truncated upper bound: the file has none.
    let mut unbounded = std::collections::HashSet::new();
    for row_group in metadata.row_groups() {
        if let Some(offset) = row_group.file_offset() {
            stats.split_offsets.push(offset);
        }
        for chunk in row_group.columns() {
            let info = chunk.column_descr().self_type().get_basic_info();
            if !info.has_id() {
                continue;
            }
            let id = info.id();
            let Some(field) = schema.field_by_id(id) else {
                // As Java's ParquetUtil: a column the table schema does not know has no metrics.
                continue;
            };
            *stats.column_sizes.entry(id).or_default() += chunk.compressed_size() as u64;
            *stats.value_counts.entry(id).or_default() += chunk.num_values() as u64;
            let Some(chunk_stats) = chunk.statistics() else {
                continue;
            };
            if let Some(nulls) = chunk_stats.null_count_opt() {
                *stats.null_value_counts.entry(id).or_default() += nulls;
            }
            let Type::Primitive(ty) = field.field_type.as_ref() else {
                continue;
            };
            let path = || chunk.column_descr().path().string();
            if chunk_stats.min_is_exact()
                && let Some(min) = bound(ty, chunk_stats, Side::Lower).map_err(|e| at(path(), e))?
            {
                merge(&mut stats.lower_bounds, id, min, std::cmp::Ordering::Less);
            }
            if chunk_stats.max_is_exact() && chunk_stats.max_bytes_opt().is_some() {
                match bound(ty, chunk_stats, Side::Upper).map_err(|e| at(path(), e))? {
                    Some(max) => merge(
                        &mut stats.upper_bounds,
                        id,
                        max,
                        std::cmp::Ordering::Greater,
                    ),
                    None => {
                        unbounded.insert(id);
                    }
                }
            }
        }
    }
    for id in unbounded {
        stats.upper_bounds.remove(&id);
    }
    Ok(stats)
}

fn at(path: String, err: iceberg::Error) -> IcebergError {
    IcebergError::Invalid(format!("statistics of column `{path}`: {err}"))
}

/// Keeps the smaller (`Less`) or larger (`Greater`) of an existing bound and `datum`.
fn merge(bounds: &mut HashMap<i32, Datum>, id: i32, datum: Datum, keep: std::cmp::Ordering) {
    match bounds.get(&id) {
        Some(existing) if existing.partial_cmp(&datum) != Some(keep.reverse()) => {}
        _ => {
            bounds.insert(id, datum);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Lower,
    Upper,
}

/// One chunk's min or max as an Iceberg bound of type `ty`.
fn bound(ty: &PrimitiveType, stats: &Statistics, side: Side) -> iceberg::Result<Option<Datum>> {
    let bytes = match side {
        Side::Lower => stats.min_bytes_opt(),
        Side::Upper => stats.max_bytes_opt(),
    };
    let Some(bytes) = bytes else {
        return Ok(None);
    };
    Ok(match (ty, stats) {
        (PrimitiveType::String, _) => {
            let value = std::str::from_utf8(bytes)?;
            match side {
                Side::Lower => Some(Datum::string(truncate_str(value, TRUNCATE_LENGTH))),
                Side::Upper => truncate_str_max(value, TRUNCATE_LENGTH).map(Datum::string),
            }
        }
        (PrimitiveType::Binary, _) => match side {
            Side::Lower => Some(Datum::binary(
                bytes[..bytes.len().min(TRUNCATE_LENGTH)].iter().copied(),
            )),
            Side::Upper => truncate_binary_max(bytes, TRUNCATE_LENGTH).map(Datum::binary),
        },
        // Small decimals are stored as INT32/INT64; Iceberg's bound is the big-endian
        // unscaled value.
        (PrimitiveType::Decimal { .. }, Statistics::Int32(_)) => {
            let unscaled = i32::from_le_bytes(bytes.try_into()?);
            Some(Datum::try_from_bytes(
                &i128::from(unscaled).to_be_bytes(),
                ty.clone(),
            )?)
        }
        (PrimitiveType::Decimal { .. }, Statistics::Int64(_)) => {
            let unscaled = i64::from_le_bytes(bytes.try_into()?);
            Some(Datum::try_from_bytes(
                &i128::from(unscaled).to_be_bytes(),
                ty.clone(),
            )?)
        }
        // Everything else is stored in Iceberg's single-value binary form already: little-endian
        // numbers, big-endian decimal bytes, raw fixed and UUID bytes.
        _ => Some(Datum::try_from_bytes(bytes, ty.clone())?),
    })
}

/// The first `length` code points of `value`.
pub fn truncate_str(value: &str, length: usize) -> &str {
    match value.char_indices().nth(length) {
        Some((end, _)) => &value[..end],
        None => value,
    }
}

/// Java Iceberg's `UnicodeUtil.truncateStringMax`: the smallest string of at most `length`
/// code points that is not below `value`'s prefix, i.e. the prefix with its last code point
/// that can be incremented incremented (skipping the surrogate range). `None` when every code
/// point is U+10FFFF.
pub fn truncate_str_max(value: &str, length: usize) -> Option<String> {
    let prefix = truncate_str(value, length);
    if prefix.len() == value.len() {
        return Some(value.to_string());
    }
    let chars: Vec<char> = prefix.chars().collect();
    for i in (0..chars.len()).rev() {
        let next = match chars[i] {
            '\u{D7FF}' => Some('\u{E000}'),
            c => char::from_u32(c as u32 + 1),
        };
        if let Some(next) = next {
            let mut out: String = chars[..i].iter().collect();
            out.push(next);
            return Some(out);
        }
    }
    None
}

/// Java Iceberg's `BinaryUtil.truncateBinaryMax`: the first `length` bytes with the last byte
/// below 0xFF incremented and the rest dropped; `None` when all are 0xFF.
pub fn truncate_binary_max(value: &[u8], length: usize) -> Option<Vec<u8>> {
    if value.len() <= length {
        return Some(value.to_vec());
    }
    let prefix = &value[..length];
    let last = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut out = prefix[..=last].to_vec();
    out[last] += 1;
    Some(out)
}

/// NaN counts per floating-point leaf, accumulated over the batches written.
///
/// Only the rows a batch references are counted: a sliced list or map column counts the
/// values its offsets cover, not the whole child array (iceberg-rust 0.10 counts the whole
/// child, which over-counts our routing slices).
#[derive(Debug, Clone, Default)]
pub struct NanCounter {
    counts: HashMap<i32, u64>,
}

impl NanCounter {
    /// Counts the NaNs of `columns`, typed by `fields` (which carry the field IDs).
    pub fn add(&mut self, fields: &[&Field], columns: &[ArrayRef]) {
        for (field, column) in fields.iter().zip(columns) {
            self.visit(field, column.as_ref());
        }
    }

    /// The counts: every floating-point leaf seen, zero included.
    pub fn into_counts(self) -> HashMap<i32, u64> {
        self.counts
    }

    fn visit(&mut self, field: &Field, array: &dyn Array) {
        let id = || {
            field
                .metadata()
                .get(FIELD_ID_KEY)
                .and_then(|id| id.parse::<i32>().ok())
        };
        match array.data_type() {
            DataType::Float32 => {
                let n = count_nans(array.as_primitive::<Float32Type>().iter(), f32::is_nan);
                if let Some(id) = id() {
                    *self.counts.entry(id).or_default() += n;
                }
            }
            DataType::Float64 => {
                let n = count_nans(array.as_primitive::<Float64Type>().iter(), f64::is_nan);
                if let Some(id) = id() {
                    *self.counts.entry(id).or_default() += n;
                }
            }
            DataType::Struct(_) => {
                let DataType::Struct(children) = field.data_type() else {
                    return;
                };
                let array = array.as_struct();
                for (child, column) in children.iter().zip(array.columns()) {
                    self.visit(child, column.as_ref());
                }
            }
            DataType::List(_) | DataType::LargeList(_) | DataType::Map(_, _) => {
                let (element, values) = match (field.data_type(), array.data_type()) {
                    (DataType::List(e), DataType::List(_)) => {
                        (e, referenced_values(array.as_list::<i32>()))
                    }
                    (DataType::LargeList(e), DataType::LargeList(_)) => {
                        (e, referenced_values(array.as_list::<i64>()))
                    }
                    (DataType::List(e), DataType::LargeList(_)) => {
                        (e, referenced_values(array.as_list::<i64>()))
                    }
                    (DataType::LargeList(e), DataType::List(_)) => {
                        (e, referenced_values(array.as_list::<i32>()))
                    }
                    (DataType::Map(e, _), DataType::Map(_, _)) => {
                        let map = array.as_map();
                        let offsets = map.value_offsets();
                        let (start, end) = (offsets[0] as usize, offsets[offsets.len() - 1]);
                        let entries: ArrayRef = std::sync::Arc::new(map.entries().clone());
                        (e, entries.slice(start, end as usize - start))
                    }
                    _ => return,
                };
                self.visit(element, values.as_ref());
            }
            _ => {}
        }
    }
}

fn count_nans<T: Copy>(values: impl Iterator<Item = Option<T>>, is_nan: fn(T) -> bool) -> u64 {
    values.flatten().filter(|&v| is_nan(v)).count() as u64
}

/// The child values a (possibly sliced) list array's offsets reference.
fn referenced_values<O: arrow::array::OffsetSizeTrait>(
    list: &arrow::array::GenericListArray<O>,
) -> ArrayRef {
    let offsets = list.value_offsets();
    let start = offsets[0].as_usize();
    let end = offsets[offsets.len() - 1].as_usize();
    list.values().slice(start, end - start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_bounds_follow_javas_unicode_util() {
        // Vectors worked by hand from Java Iceberg's UnicodeUtil.
        assert_eq!(truncate_str("abc", 16), "abc");
        assert_eq!(truncate_str("0123456789abcdefXYZ", 16), "0123456789abcdef");
        assert_eq!(truncate_str("ééééééééééééééééé", 16), "éééééééééééééééé");
        assert_eq!(truncate_str_max("abc", 16).as_deref(), Some("abc"));
        assert_eq!(
            truncate_str_max("0123456789abcdefXYZ", 16).as_deref(),
            Some("0123456789abcdeg")
        );
        // The last code point is U+10FFFF: the one before it is incremented.
        let top = format!("{}{}z", "a".repeat(15), '\u{10FFFF}');
        assert_eq!(
            truncate_str_max(&top, 16).as_deref(),
            Some("aaaaaaaaaaaaaab")
        );
        // U+D7FF increments past the surrogates.
        let below_surrogates = format!("{}{}z", "a".repeat(15), '\u{D7FF}');
        assert_eq!(
            truncate_str_max(&below_surrogates, 16),
            Some(format!("{}{}", "a".repeat(15), '\u{E000}'))
        );
        let all_max: String = std::iter::repeat_n('\u{10FFFF}', 17).collect();
        assert_eq!(truncate_str_max(&all_max, 16), None);
    }

    #[test]
    fn binary_bounds_follow_javas_binary_util() {
        assert_eq!(truncate_binary_max(&[1, 2, 3], 16), Some(vec![1, 2, 3]));
        let mut long = vec![7u8; 20];
        assert_eq!(
            truncate_binary_max(&long, 16),
            Some([vec![7u8; 15], vec![8]].concat())
        );
        long[15] = 0xFF;
        assert_eq!(
            truncate_binary_max(&long, 16),
            Some([vec![7u8; 14], vec![8]].concat())
        );
        assert_eq!(truncate_binary_max(&[0xFF; 17], 16), None);
    }

    #[test]
    fn nan_counts_cover_only_the_referenced_list_values() {
        use arrow::array::{Float64Array, ListArray};
        use arrow::buffer::OffsetBuffer;
        use std::sync::Arc;
        let element = Arc::new(
            Field::new("element", DataType::Float64, true)
                .with_metadata([(FIELD_ID_KEY.to_string(), "2".to_string())].into()),
        );
        let field = Field::new("l", DataType::List(element.clone()), true)
            .with_metadata([(FIELD_ID_KEY.to_string(), "1".to_string())].into());
        // Rows: [NaN, 1], [NaN], [NaN, NaN, NULL]
        let values = Float64Array::from(vec![
            Some(f64::NAN),
            Some(1.0),
            Some(f64::NAN),
            Some(f64::NAN),
            Some(f64::NAN),
            None,
        ]);
        let list = ListArray::new(
            element,
            OffsetBuffer::new(vec![0, 2, 3, 6].into()),
            Arc::new(values),
            None,
        );
        let whole: ArrayRef = Arc::new(list);
        let mut counter = NanCounter::default();
        counter.add(&[&field], std::slice::from_ref(&whole));
        assert_eq!(counter.into_counts()[&2], 4);
        let mut counter = NanCounter::default();
        counter.add(&[&field], &[whole.slice(1, 1)]);
        assert_eq!(counter.into_counts()[&2], 1);
    }
}
