//! The building blocks of the collection kernels: list offsets and values read directly, result
//! lists gathered by index (`take` / `interleave`), and element equality, hashing and ordering
//! as Flink's runtime functions see them.
//!
//! A result list is always built the same way: each row pushes the indices of its elements
//! (into the argument's values, or into several sources) and the values are gathered once per
//! batch, so no kernel touches a `ScalarValue` per element.

use std::cmp::Ordering;
use std::sync::Arc;

use arrow::array::builder::NullBufferBuilder;
use arrow::array::{Array, ArrayRef, AsArray, ListArray, UInt32Array, make_comparator};
use arrow::buffer::OffsetBuffer;
use arrow::compute::{SortOptions, concat, take};
use arrow::datatypes::{DataType, FieldRef, Float32Type, Float64Type};
use arrow::row::{RowConverter, SortField};
use datafusion::error::Result as DfResult;
use hashbrown::HashTable;

use super::util::fail;

/// `a` as a list (ARRAY or MAP) array.
pub fn as_list<'a>(a: &'a ArrayRef, what: &str) -> DfResult<&'a ListArray> {
    a.as_list_opt::<i32>()
        .ok_or_else(|| fail(format!("{what}: expected a list, found {}", a.data_type())))
}

/// The item field of a list type.
pub fn item_field(dt: &DataType) -> DfResult<FieldRef> {
    match dt {
        DataType::List(f) => Ok(Arc::clone(f)),
        other => Err(fail(format!("expected a list type, found {other}"))),
    }
}

/// The element range of row `r` of `list` (indices into `list.values()`).
#[inline]
pub fn range(list: &ListArray, r: usize) -> std::ops::Range<usize> {
    let o = list.value_offsets();
    o[r] as usize..o[r + 1] as usize
}

/// Collects a result list: element indices per row and the row validity.
pub struct ListOut {
    offsets: Vec<i32>,
    nulls: NullBufferBuilder,
    len: usize,
}

impl ListOut {
    /// An empty result for `rows` rows.
    pub fn new(rows: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Self {
            offsets,
            nulls: NullBufferBuilder::new(rows),
            len: 0,
        }
    }

    /// Ends a row that holds the elements pushed since the last row.
    pub fn row(&mut self, elements: usize) -> DfResult<()> {
        self.len += elements;
        let end = i32::try_from(self.len)
            .map_err(|_| fail("a collection result holds more than 2^31 - 1 elements"))?;
        self.offsets.push(end);
        self.nulls.append_non_null();
        Ok(())
    }

    /// A NULL row.
    pub fn null(&mut self) {
        self.offsets
            .push(i32::try_from(self.len).unwrap_or(i32::MAX));
        self.nulls.append_null();
    }

    /// The list of `values` (already gathered, `len` of them) under `field`.
    pub fn finish(mut self, field: FieldRef, values: ArrayRef) -> DfResult<ArrayRef> {
        Ok(Arc::new(ListArray::try_new(
            field,
            OffsetBuffer::new(self.offsets.into()),
            values,
            self.nulls.finish(),
        )?))
    }
}

/// `values[indices]`.
pub fn gather(values: &dyn Array, indices: Vec<u32>) -> DfResult<ArrayRef> {
    Ok(take(values, &UInt32Array::from(indices), None)?)
}

/// `u32` of an element index (list values never exceed `i32` offsets).
#[inline]
pub fn idx(i: usize) -> u32 {
    i as u32
}

/// The values of several arrays in one (their indices shifted by the lengths before them),
/// so elements of different arguments compare within one array.
pub fn concat_values(parts: &[&dyn Array]) -> DfResult<(ArrayRef, Vec<usize>)> {
    let mut bases = Vec::with_capacity(parts.len());
    let mut base = 0;
    for p in parts {
        bases.push(base);
        base += p.len();
    }
    let all = match parts {
        [] => return Err(fail("no arrays to concatenate")),
        [one] => arrow::array::make_array(one.to_data()),
        _ => concat(parts)?,
    };
    Ok((all, bases))
}

/// Which equality a function uses between non-NULL elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Equality {
    /// SQL `=` (Flink's generated `isEqual`): `-0.0 = 0.0`, `NaN <> NaN`. ARRAY_CONTAINS,
    /// ARRAY_POSITION, ARRAY_REMOVE, ARRAY_DISTINCT, ARRAY_UNION, MAP_UNION and map item access.
    Sql,
    /// A Java hash set of `ObjectContainer`s: equal hash codes *and* `=`. ARRAY_EXCEPT and
    /// ARRAY_INTERSECT. For FLOAT/DOUBLE the hash is that of the IEEE bits, so `-0.0` and `0.0`
    /// differ there, and `NaN` never equals itself.
    Hashed,
}

type EqFn = Box<dyn Fn(usize, usize) -> bool>;
type HashFn = Box<dyn Fn(usize) -> u64>;

/// Equality and hashes of the non-NULL values of one array, as Flink compares elements.
pub struct Elements {
    eq: EqFn,
    hash: HashFn,
}

impl Elements {
    /// Whether values `i` and `j` (both non-NULL) are equal.
    #[inline]
    pub fn eq(&self, i: usize, j: usize) -> bool {
        (self.eq)(i, j)
    }

    /// A hash consistent with [`Self::eq`].
    #[inline]
    pub fn hash(&self, i: usize) -> u64 {
        (self.hash)(i)
    }
}

/// FNV-1a, finished with a multiply-xorshift so the high bits are spread (hashbrown's tags).
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    mix(h)
}

#[inline]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}

macro_rules! float_elements {
    ($values:expr, $ty:ty, $mode:expr) => {{
        let v = $values.as_primitive::<$ty>().values().clone();
        let h = v.clone();
        match $mode {
            Equality::Sql => Elements {
                eq: Box::new(move |i, j| v[i] == v[j]),
                // -0.0 = 0.0 must hash alike; NaN equals nothing, so any hash will do.
                hash: Box::new(move |i| {
                    let x = h[i];
                    mix(if x == 0.0 { 0 } else { x.to_bits() as u64 })
                }),
            },
            Equality::Hashed => Elements {
                eq: Box::new(move |i, j| v[i] == v[j] && v[i].to_bits() == v[j].to_bits()),
                hash: Box::new(move |i| mix(h[i].to_bits() as u64)),
            },
        }
    }};
}

/// Equality of `values`' elements under `mode`.
pub fn elements(values: &ArrayRef, mode: Equality) -> DfResult<Elements> {
    let dt = values.data_type();
    Ok(match dt {
        DataType::Float32 => float_elements!(values, Float32Type, mode),
        DataType::Float64 => float_elements!(values, Float64Type, mode),
        DataType::Boolean => {
            let b = values.as_boolean().clone();
            let h = b.clone();
            Elements {
                eq: Box::new(move |i, j| b.value(i) == b.value(j)),
                hash: Box::new(move |i| mix(u64::from(h.value(i)) + 1)),
            }
        }
        DataType::Utf8 => {
            let s = values.as_string::<i32>().clone();
            let h = s.clone();
            Elements {
                eq: Box::new(move |i, j| s.value(i) == s.value(j)),
                hash: Box::new(move |i| hash_bytes(h.value(i).as_bytes())),
            }
        }
        DataType::Binary => {
            let s = values.as_binary::<i32>().clone();
            let h = s.clone();
            Elements {
                eq: Box::new(move |i, j| s.value(i) == s.value(j)),
                hash: Box::new(move |i| hash_bytes(h.value(i))),
            }
        }
        dt if dt.is_primitive() => {
            // Integers, DECIMAL, DATE, TIME, TIMESTAMP, intervals: equal exactly when their
            // bytes are.
            let w = dt
                .primitive_width()
                .ok_or_else(|| fail(format!("no width for {dt}")))?;
            let data = values.to_data();
            let buf = data.buffers()[0].clone();
            let off = data.offset();
            let h = buf.clone();
            Elements {
                eq: Box::new(move |i, j| {
                    buf[(off + i) * w..(off + i + 1) * w] == buf[(off + j) * w..(off + j + 1) * w]
                }),
                hash: Box::new(move |i| hash_bytes(&h[(off + i) * w..(off + i + 1) * w])),
            }
        }
        _ => {
            // ARRAY, MAP and ROW elements: equal when their encoded rows are.
            let converter = RowConverter::new(vec![SortField::new(dt.clone())])?;
            let rows = Arc::new(converter.convert_columns(std::slice::from_ref(values))?);
            let h = Arc::clone(&rows);
            Elements {
                eq: Box::new(move |i, j| rows.row(i) == rows.row(j)),
                hash: Box::new(move |i| hash_bytes(h.row(i).as_ref())),
            }
        }
    })
}

/// Ordering of non-NULL values, as Flink's generated `compare`: numbers by `<` / `>` (so NaN
/// compares equal to everything), strings and binaries by unsigned bytes, DECIMAL by value.
pub fn comparator(values: &ArrayRef) -> DfResult<Box<dyn Fn(usize, usize) -> Ordering>> {
    Ok(match values.data_type() {
        DataType::Float32 => {
            let v = values.as_primitive::<Float32Type>().values().clone();
            Box::new(move |i, j| v[i].partial_cmp(&v[j]).unwrap_or(Ordering::Equal))
        }
        DataType::Float64 => {
            let v = values.as_primitive::<Float64Type>().values().clone();
            Box::new(move |i, j| v[i].partial_cmp(&v[j]).unwrap_or(Ordering::Equal))
        }
        _ => {
            let c = make_comparator(values.as_ref(), values.as_ref(), SortOptions::default())?;
            Box::new(c)
        }
    })
}

/// A set of element indices under an [`Elements`] equality, with NULL as one more member.
pub struct ElementSet<'a> {
    elements: &'a Elements,
    table: HashTable<u32>,
    null: bool,
}

impl<'a> ElementSet<'a> {
    /// An empty set.
    pub fn new(elements: &'a Elements) -> Self {
        Self {
            elements,
            table: HashTable::new(),
            null: false,
        }
    }

    /// Empties the set (keeping its capacity).
    pub fn clear(&mut self) {
        self.table.clear();
        self.null = false;
    }

    /// Whether an element equal to `i` (`None`: NULL) is in the set.
    pub fn contains(&self, i: Option<usize>) -> bool {
        match i {
            None => self.null,
            Some(i) => {
                let e = self.elements;
                self.table
                    .find(e.hash(i), |&k| e.eq(k as usize, i))
                    .is_some()
            }
        }
    }

    /// Adds `i` (`None`: NULL); whether it was new.
    pub fn insert(&mut self, i: Option<usize>) -> bool {
        match i {
            None => !std::mem::replace(&mut self.null, true),
            Some(i) => {
                let e = self.elements;
                let h = e.hash(i);
                if self.table.find(h, |&k| e.eq(k as usize, i)).is_some() {
                    return false;
                }
                self.table.insert_unique(h, idx(i), |&k| e.hash(k as usize));
                true
            }
        }
    }
}

/// The validity of `a` at `i` as an element index: `Some(i)` when non-NULL.
#[inline]
pub fn present(a: &dyn Array, i: usize) -> Option<usize> {
    if a.is_null(i) { None } else { Some(i) }
}

/// Whether non-NULL value `i` of `values` equals what a NULL slot of Flink's `BinaryArrayData`
/// reads as: zero bytes, i.e. `0`, `0.0` (and `-0.0`, equal to it), `FALSE`, an empty string or
/// binary, DECIMAL 0. Other types never match.
pub fn reads_as_null_slot(values: &ArrayRef, i: usize) -> bool {
    if values.is_null(i) {
        return false;
    }
    match values.data_type() {
        DataType::Float32 => values.as_primitive::<Float32Type>().value(i) == 0.0,
        DataType::Float64 => values.as_primitive::<Float64Type>().value(i) == 0.0,
        DataType::Boolean => !values.as_boolean().value(i),
        DataType::Utf8 => values.as_string::<i32>().value(i).is_empty(),
        DataType::Binary => values.as_binary::<i32>().value(i).is_empty(),
        dt if dt.is_primitive() => {
            let Some(w) = dt.primitive_width() else {
                return false;
            };
            let data = values.to_data();
            let off = data.offset() + i;
            data.buffers()[0][off * w..(off + 1) * w]
                .iter()
                .all(|&b| b == 0)
        }
        _ => false,
    }
}
