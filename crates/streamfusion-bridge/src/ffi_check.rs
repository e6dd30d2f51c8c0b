//! Structural checks of an incoming `ArrowArray` against the data type it will be imported as.
//!
//! arrow-rs's importer trusts the producer: a child count or buffer count that disagrees with
//! the data type makes it assert or read past the `buffers` array. These checks run first and
//! turn every such disagreement into [`BridgeError::Malformed`]. They read only the C structs
//! and, for offset-based types, the last offset (which the importer itself reads to size the
//! values buffer).
//!
//! What the C Data Interface cannot tell us: buffer capacities and value types. A buffer
//! shorter than the array claims, or a cached schema with a different type of the same layout
//! (Int32 versus Date32), cannot be detected here; the producer is trusted for those, as every
//! C Data consumer must.

use arrow::datatypes::{DataType, UnionMode};
use arrow::ffi::FFI_ArrowArray;

use crate::error::{BridgeError, Result};

/// Checks `array` (recursively) against `data_type`.
pub(crate) fn check_array(array: &FFI_ArrowArray, data_type: &DataType, path: &str) -> Result<()> {
    let malformed = |problem: String| BridgeError::Malformed {
        path: path.to_string(),
        problem,
    };
    if array.is_released() {
        return Err(malformed("the array was released".into()));
    }
    if array.length < 0 || array.offset < 0 || array.null_count < -1 {
        return Err(malformed(format!(
            "negative length {}, offset {} or null count {}",
            array.length, array.offset, array.null_count
        )));
    }
    if array.length.checked_add(array.offset).is_none() {
        return Err(malformed("length + offset overflows".into()));
    }

    let expected_buffers = expected_buffer_count(data_type);
    let buffers = array.n_buffers;
    let buffers_ok = match expected_buffers {
        Expected::Exactly(n) => buffers == n,
        Expected::AtLeast(n) => buffers >= n,
    };
    if !buffers_ok {
        return Err(malformed(format!(
            "{buffers} buffers, but {data_type} needs {expected_buffers}"
        )));
    }
    if buffers > 0 && array.buffers.is_null() {
        return Err(malformed(format!(
            "{buffers} buffers announced but the buffer list is null"
        )));
    }

    let children = child_types(data_type);
    if array.n_children != children.len() as i64 {
        return Err(malformed(format!(
            "{} children, but {data_type} has {}",
            array.n_children,
            children.len()
        )));
    }
    if array.n_children > 0 && array.children.is_null() {
        return Err(malformed(
            "children announced but the child list is null".into(),
        ));
    }
    let is_dictionary = matches!(data_type, DataType::Dictionary(..));
    if is_dictionary == array.dictionary.is_null() {
        return Err(malformed(if is_dictionary {
            "a dictionary type without dictionary values".into()
        } else {
            format!("dictionary values on a non-dictionary type {data_type}")
        }));
    }

    check_offsets(array, data_type, &malformed)?;

    for (index, (name, child_type)) in children.iter().enumerate() {
        // SAFETY: `children` is non-null with `n_children` entries (checked above, and the
        // producer guarantees the list's length); a null entry is rejected before use.
        let child = unsafe { *array.children.add(index) };
        if child.is_null() {
            return Err(malformed(format!("child {index} is null")));
        }
        // SAFETY: non-null and owned by `array` for as long as `array` lives.
        let child = unsafe { &*child };
        check_array(child, child_type, &format!("{path}.{name}"))?;
    }
    if let DataType::Dictionary(_, value_type) = data_type {
        // SAFETY: checked non-null above; owned by `array`.
        let dictionary = unsafe { &*array.dictionary };
        check_array(dictionary, value_type, &format!("{path}.dictionary"))?;
    }
    Ok(())
}

/// For offset-based types, the offsets buffer must exist whenever the importer reads it, and
/// the last offset (which sizes the values buffer) must be non-negative.
fn check_offsets(
    array: &FFI_ArrowArray,
    data_type: &DataType,
    malformed: &impl Fn(String) -> BridgeError,
) -> Result<()> {
    let wide = match data_type {
        DataType::Utf8 | DataType::Binary | DataType::List(_) | DataType::Map(..) => false,
        DataType::LargeUtf8 | DataType::LargeBinary | DataType::LargeList(_) => true,
        _ => return Ok(()),
    };
    if array.length == 0 {
        return Ok(());
    }
    // SAFETY: n_buffers >= 2 was checked against the layout; index 1 is the offsets buffer.
    let offsets = unsafe { *array.buffers.add(1) };
    if offsets.is_null() {
        return Err(malformed(
            "null offsets buffer for a non-empty array".into(),
        ));
    }
    let last = (array.offset + array.length) as usize;
    let (align, value) = if wide {
        // SAFETY: the producer guarantees `offset + length + 1` offsets; checked for alignment.
        (offsets.align_offset(8), unsafe {
            i128::from(*offsets.cast::<i64>().add(last))
        })
    } else {
        // SAFETY: as above, for 32-bit offsets.
        (offsets.align_offset(4), unsafe {
            i128::from(*offsets.cast::<i32>().add(last))
        })
    };
    if align != 0 {
        return Err(malformed("misaligned offsets buffer".into()));
    }
    if value < 0 {
        return Err(malformed(format!("negative last offset {value}")));
    }
    Ok(())
}

#[derive(Debug, Clone, Copy)]
enum Expected {
    Exactly(i64),
    AtLeast(i64),
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expected::Exactly(n) => write!(f, "{n}"),
            Expected::AtLeast(n) => write!(f, "at least {n}"),
        }
    }
}

/// The number of C Data buffers for `data_type` (validity included), from arrow's layout.
fn expected_buffer_count(data_type: &DataType) -> Expected {
    match data_type {
        // The C Data Interface gives unions no validity buffer; sparse has type ids only.
        DataType::Union(_, UnionMode::Sparse) => Expected::Exactly(1),
        DataType::Union(_, UnionMode::Dense) => Expected::Exactly(2),
        DataType::Dictionary(key, _) => expected_buffer_count(key),
        _ => {
            let layout = arrow::array::layout(data_type);
            let n = layout.buffers.len() as i64 + i64::from(layout.can_contain_null_mask);
            if layout.variadic {
                // Views: validity, views, then the data buffers and their lengths.
                Expected::AtLeast(n + 1)
            } else {
                Expected::Exactly(n)
            }
        }
    }
}

/// The children a C Data array of `data_type` carries, with names for error paths.
fn child_types(data_type: &DataType) -> Vec<(String, DataType)> {
    match data_type {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::Map(f, _) => vec![(f.name().clone(), f.data_type().clone())],
        DataType::Struct(fields) => fields
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect(),
        DataType::Union(fields, _) => fields
            .iter()
            .map(|(_, f)| (f.name().clone(), f.data_type().clone()))
            .collect(),
        DataType::RunEndEncoded(run_ends, values) => vec![
            (run_ends.name().clone(), run_ends.data_type().clone()),
            (values.name().clone(), values.data_type().clone()),
        ],
        _ => Vec::new(),
    }
}
