//! Collection functions (opcodes 700–799): the ARRAY / MAP / ROW value constructors, element
//! access, and Flink's `ARRAY_*` / `MAP_*` functions, with the semantics of Flink 2.3.0's
//! generated code (`ScalarOperatorGens`) and runtime classes
//! (`org.apache.flink.table.runtime.functions.scalar.Array*Function` / `Map*Function`).
//!
//! ARRAY is an Arrow `List` and MAP a `List<Struct<key, value>>` (see [`crate::types`]), so
//! MAP_KEYS / MAP_VALUES / MAP_ENTRIES reuse the input's buffers and every other result is
//! gathered by index from the argument values (see [`super::collection_kernels`]).
//!
//! Equality inside the functions is Flink's, which is not one rule: ARRAY_CONTAINS,
//! ARRAY_POSITION, ARRAY_REMOVE, ARRAY_DISTINCT, ARRAY_UNION, MAP_UNION and `map[key]` use SQL
//! `=` with NULL equal to NULL (`-0.0 = 0.0`, `NaN <> NaN`); ARRAY_EXCEPT and ARRAY_INTERSECT
//! go through a hash set, where `-0.0` and `0.0` differ. ARRAY_SORT / ARRAY_MIN / ARRAY_MAX
//! order by Flink's generated compare.
//!
//! Arguments that are arrays or maps of different element types (ARRAY_UNION of `ARRAY<INT>`
//! and `ARRAY<BIGINT>`, ...) are bound as they are and widened inside the kernel to the common
//! type (an exact Arrow cast of the element values).

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Int32Array, ListArray, StringBuilder, StructArray,
    UInt32Array,
};
use arrow::compute::{cast, interleave};
use arrow::datatypes::{DataType, Fields};
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;

use crate::calc::cast::is_implicit;
use crate::calc::coercion::{common_type, is_binary, is_integer, is_string};
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::{LogicalType, RowField};

use super::collection_kernels::{
    ElementSet, Equality, ListOut, as_list, comparator, concat_values, elements, gather, idx,
    item_field, present, range, reads_as_null_slot,
};
use super::collection_sort::java_sort;
use super::util::{arrays, fail, result};

/// `ARRAY[a, ...]`: the arguments cast to their common type. Never NULL.
pub const ARRAY: u16 = 700;
/// `MAP[k, v, ...]`: keys and values each cast to their common type, entries in argument
/// order. Never NULL.
pub const MAP: u16 = 701;
/// `ROW(a, ...)`: fields named `EXPR$0`, `EXPR$1`, ... Never NULL.
pub const ROW: u16 = 702;
/// `CARDINALITY(array | map)`: the element (entry) count, `INT`.
pub const CARDINALITY: u16 = 703;
/// `ELEMENT(array)`: the only element; NULL for an empty array; fails with "Array has more
/// than one element." for more.
pub const ELEMENT: u16 = 704;
/// `array[i]` (1-based; out of range NULL) and `map[key]` (the first entry whose non-NULL key
/// equals `key`; NULL if none).
pub const ITEM: u16 = 705;
/// `ARRAY_CONTAINS(array, needle)`: `BOOLEAN`; a NULL needle finds a NULL element.
pub const ARRAY_CONTAINS: u16 = 710;
/// `ARRAY_POSITION(array, needle)`: 1-based position of the first equal element, 0 if none,
/// NULL for a NULL needle. `INT`.
pub const ARRAY_POSITION: u16 = 711;
/// `ARRAY_MIN(array)`: the least non-NULL element; NULL if none.
pub const ARRAY_MIN: u16 = 712;
/// `ARRAY_MAX(array)`: the greatest non-NULL element; NULL if none.
pub const ARRAY_MAX: u16 = 713;
/// `ARRAY_APPEND(array, element)`: NULL array gives NULL; a NULL element is appended.
pub const ARRAY_APPEND: u16 = 714;
/// `ARRAY_PREPEND(array, element)`: as ARRAY_APPEND, at the front.
pub const ARRAY_PREPEND: u16 = 715;
/// `ARRAY_REMOVE(array, needle)`: every element equal to `needle` removed (NULLs for NULL).
pub const ARRAY_REMOVE: u16 = 716;
/// `ARRAY_CONCAT(array, ...)`: NULL if any argument is.
pub const ARRAY_CONCAT: u16 = 717;
/// `ARRAY_UNION(a, b)`: distinct elements of `a` then `b`, in first-seen order.
pub const ARRAY_UNION: u16 = 718;
/// `ARRAY_EXCEPT(a, b)`: distinct elements of `a` not in `b`.
pub const ARRAY_EXCEPT: u16 = 719;
/// `ARRAY_INTERSECT(a, b)`: distinct elements of `a` that are in `b`.
pub const ARRAY_INTERSECT: u16 = 720;
/// `ARRAY_DISTINCT(array)`: first occurrences, in order.
pub const ARRAY_DISTINCT: u16 = 721;
/// `ARRAY_REVERSE(array)`.
pub const ARRAY_REVERSE: u16 = 722;
/// `ARRAY_SLICE(array, start[, end])`: 1-based inclusive, negative positions count from the
/// end.
pub const ARRAY_SLICE: u16 = 723;
/// `ARRAY_SORT(array[, ascending[, nulls_first]])`: stable; ascending and NULLs first by
/// default, `nulls_first` defaults to `ascending`.
pub const ARRAY_SORT: u16 = 724;
/// `ARRAY_JOIN(array, delimiter[, null_replacement])`: NULL elements skipped unless replaced.
pub const ARRAY_JOIN: u16 = 725;
/// `MAP_KEYS(map)`: the keys, in entry order.
pub const MAP_KEYS: u16 = 730;
/// `MAP_VALUES(map)`: the values, in entry order.
pub const MAP_VALUES: u16 = 731;
/// `MAP_ENTRIES(map)`: `ARRAY<ROW<key, value>>`.
pub const MAP_ENTRIES: u16 = 732;
/// `MAP_UNION(map, ...)`: later maps win on equal keys; NULL if any map is.
pub const MAP_UNION: u16 = 733;
/// `MAP_FROM_ARRAYS(keys, values)`: fails if the lengths differ.
pub const MAP_FROM_ARRAYS: u16 = 734;

/// Flink's `STRING`.
const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);

macro_rules! def {
    ($op:expr, $name:literal, $arity:expr, $bind:expr) => {
        FunctionDef {
            opcode: $op,
            name: $name,
            arity: $arity,
            bind: $bind,
        }
    };
}

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    def!(ARRAY, "ARRAY", Arity::AtLeast(1), bind_array),
    def!(MAP, "MAP", Arity::AtLeast(2), bind_map),
    def!(ROW, "ROW", Arity::AtLeast(1), bind_row),
    def!(
        CARDINALITY,
        "CARDINALITY",
        Arity::Exact(1),
        bind_cardinality
    ),
    def!(ELEMENT, "ELEMENT", Arity::Exact(1), bind_element),
    def!(ITEM, "ITEM", Arity::Exact(2), bind_item),
    def!(ARRAY_CONTAINS, "ARRAY_CONTAINS", Arity::Exact(2), |a| {
        bind_needle(a, "ARRAY_CONTAINS", Needle::Contains)
    }),
    def!(ARRAY_POSITION, "ARRAY_POSITION", Arity::Exact(2), |a| {
        bind_needle(a, "ARRAY_POSITION", Needle::Position)
    }),
    def!(ARRAY_MIN, "ARRAY_MIN", Arity::Exact(1), |a| {
        bind_extremum(a, "ARRAY_MIN", std::cmp::Ordering::Less)
    }),
    def!(ARRAY_MAX, "ARRAY_MAX", Arity::Exact(1), |a| {
        bind_extremum(a, "ARRAY_MAX", std::cmp::Ordering::Greater)
    }),
    def!(ARRAY_APPEND, "ARRAY_APPEND", Arity::Exact(2), |a| {
        bind_needle(a, "ARRAY_APPEND", Needle::Append)
    }),
    def!(ARRAY_PREPEND, "ARRAY_PREPEND", Arity::Exact(2), |a| {
        bind_needle(a, "ARRAY_PREPEND", Needle::Prepend)
    }),
    def!(ARRAY_REMOVE, "ARRAY_REMOVE", Arity::Exact(2), |a| {
        bind_needle(a, "ARRAY_REMOVE", Needle::Remove)
    }),
    def!(ARRAY_CONCAT, "ARRAY_CONCAT", Arity::AtLeast(1), bind_concat),
    def!(ARRAY_UNION, "ARRAY_UNION", Arity::Exact(2), |a| {
        bind_set(a, "ARRAY_UNION", SetOp::Union)
    }),
    def!(ARRAY_EXCEPT, "ARRAY_EXCEPT", Arity::Exact(2), |a| {
        bind_set(a, "ARRAY_EXCEPT", SetOp::Except)
    }),
    def!(ARRAY_INTERSECT, "ARRAY_INTERSECT", Arity::Exact(2), |a| {
        bind_set(a, "ARRAY_INTERSECT", SetOp::Intersect)
    }),
    def!(ARRAY_DISTINCT, "ARRAY_DISTINCT", Arity::Exact(1), |a| {
        bind_set(a, "ARRAY_DISTINCT", SetOp::Distinct)
    }),
    def!(
        ARRAY_REVERSE,
        "ARRAY_REVERSE",
        Arity::Exact(1),
        bind_reverse
    ),
    def!(ARRAY_SLICE, "ARRAY_SLICE", Arity::Range(2, 3), bind_slice),
    def!(ARRAY_SORT, "ARRAY_SORT", Arity::Range(1, 3), bind_sort),
    def!(ARRAY_JOIN, "ARRAY_JOIN", Arity::Range(2, 3), bind_join),
    def!(MAP_KEYS, "MAP_KEYS", Arity::Exact(1), |a| {
        bind_map_part(a, "MAP_KEYS", MapPart::Keys)
    }),
    def!(MAP_VALUES, "MAP_VALUES", Arity::Exact(1), |a| {
        bind_map_part(a, "MAP_VALUES", MapPart::Values)
    }),
    def!(MAP_ENTRIES, "MAP_ENTRIES", Arity::Exact(1), |a| {
        bind_map_part(a, "MAP_ENTRIES", MapPart::Entries)
    }),
    def!(MAP_UNION, "MAP_UNION", Arity::AtLeast(1), bind_map_union),
    def!(
        MAP_FROM_ARRAYS,
        "MAP_FROM_ARRAYS",
        Arity::Exact(2),
        bind_map_from_arrays
    ),
];

// ---------------------------------------------------------------------------------------------
// Types.

/// Whether a value of `from` widens to `to` without loss (element-wise for ARRAY and MAP).
fn widens(from: &LogicalType, to: &LogicalType) -> bool {
    match (from, to) {
        (LogicalType::Array(f), LogicalType::Array(t)) => widens(f, t),
        (LogicalType::Map(fk, fv), LogicalType::Map(tk, tv)) => widens(fk, tk) && widens(fv, tv),
        _ => is_implicit(from, to) || (is_string(from) && is_string(to) && from == to),
    }
}

/// The common type of all `types`, or why there is none.
fn common_of(types: &[LogicalType]) -> Result<LogicalType, String> {
    let mut it = types.iter();
    let first = it.next().ok_or("no arguments")?.clone();
    it.try_fold(first, |acc, t| {
        common_type(&acc, t).ok_or_else(|| format!("{acc} and {t} have no common type"))
    })
}

fn element_type<'a>(t: &'a LogicalType, what: &str) -> Result<&'a LogicalType, String> {
    match t {
        LogicalType::Array(e) => Ok(e),
        other => Err(format!("{what} must be an ARRAY, not {other}")),
    }
}

fn map_types<'a>(
    t: &'a LogicalType,
    what: &str,
) -> Result<(&'a LogicalType, &'a LogicalType), String> {
    match t {
        LogicalType::Map(k, v) => Ok((k, v)),
        other => Err(format!("{what} must be a MAP, not {other}")),
    }
}

/// The type a needle (or map key) of type `needle` is cast to for elements of type `element`:
/// the element type when it widens to it, the needle's own type for strings (CHAR and VARCHAR
/// values compare as they are).
fn needle_type(needle: &LogicalType, element: &LogicalType) -> Result<LogicalType, String> {
    if needle == element || is_implicit(needle, element) {
        Ok(element.clone())
    } else if (is_string(needle) && is_string(element)) || (is_binary(needle) && is_binary(element))
    {
        Ok(needle.clone())
    } else {
        Err(format!(
            "{needle} is not implicitly cast to the element type {element}"
        ))
    }
}

/// A kernel over the arguments as arrays of `rows` values; a scalar result when every argument
/// was one.
fn kernel(
    name: &'static str,
    result_type: &LogicalType,
    f: impl Fn(&[ArrayRef], usize) -> DfResult<ArrayRef> + Send + Sync + 'static,
) -> Kernel {
    Kernel::function(name, result_type, move |args: &[ColumnarValue], rows| {
        let a = arrays(args, rows)?;
        let out = f(&a, rows)?;
        result(args, out)
    })
}

fn bound(
    args: Vec<LogicalType>,
    result_type: LogicalType,
    name: &'static str,
    f: impl Fn(&[ArrayRef], usize) -> DfResult<ArrayRef> + Send + Sync + 'static,
) -> Bound {
    let kernel = kernel(name, &result_type, f);
    Bound {
        args,
        result: result_type,
        kernel,
    }
}

/// `a` with the Arrow type of `to` (an exact widening of its elements), or `a` itself.
fn coerce(a: &ArrayRef, to: &DataType) -> DfResult<ArrayRef> {
    if a.data_type() == to {
        Ok(Arc::clone(a))
    } else {
        Ok(cast(a, to)?)
    }
}

// ---------------------------------------------------------------------------------------------
// Constructors and access.

fn bind_array(args: &Args<'_>) -> Result<Bound, String> {
    let element = common_of(args.types)?;
    let result_type = LogicalType::Array(Box::new(element.clone()));
    let field = item_field(&result_type.to_arrow()).map_err(|e| e.to_string())?;
    Ok(bound(
        vec![element; args.types.len()],
        result_type,
        "ARRAY",
        move |a, rows| {
            let n = a.len();
            let refs: Vec<&dyn Array> = a.iter().map(|c| c.as_ref()).collect();
            let pairs: Vec<(usize, usize)> = (0..rows)
                .flat_map(|r| (0..n).map(move |j| (j, r)))
                .collect();
            let values = interleave(&refs, &pairs)?;
            let mut out = ListOut::new(rows);
            for _ in 0..rows {
                out.row(n)?;
            }
            out.finish(Arc::clone(&field), values)
        },
    ))
}

fn bind_map(args: &Args<'_>) -> Result<Bound, String> {
    if !args.types.len().is_multiple_of(2) {
        return Err("MAP takes keys and values in pairs".into());
    }
    let keys: Vec<LogicalType> = args.types.iter().step_by(2).cloned().collect();
    let values: Vec<LogicalType> = args.types.iter().skip(1).step_by(2).cloned().collect();
    let key = common_of(&keys)?;
    let value = common_of(&values)?;
    let cast_to = args
        .types
        .iter()
        .enumerate()
        .map(|(i, _)| {
            if i % 2 == 0 {
                key.clone()
            } else {
                value.clone()
            }
        })
        .collect();
    let result_type = LogicalType::Map(Box::new(key), Box::new(value));
    let (field, fields) = map_fields(&result_type).map_err(|e| e.to_string())?;
    let kernel = Kernel::function("MAP", &result_type, move |args: &[ColumnarValue], rows| {
        let entries = map_entries_kept(args);
        let a = arrays(args, rows)?;
        let keys: Vec<&dyn Array> = a.iter().step_by(2).map(|c| c.as_ref()).collect();
        let values: Vec<&dyn Array> = a.iter().skip(1).step_by(2).map(|c| c.as_ref()).collect();
        let n = entries.len();
        let key_pairs: Vec<(usize, usize)> = (0..rows)
            .flat_map(|r| entries.iter().map(move |&(k, _)| (k, r)))
            .collect();
        let value_pairs: Vec<(usize, usize)> = (0..rows)
            .flat_map(|r| entries.iter().map(move |&(_, v)| (v, r)))
            .collect();
        let entries = StructArray::try_new(
            fields.clone(),
            vec![
                interleave(&keys, &key_pairs)?,
                interleave(&values, &value_pairs)?,
            ],
            None,
        )?;
        let mut out = ListOut::new(rows);
        for _ in 0..rows {
            out.row(n)?;
        }
        result(args, out.finish(Arc::clone(&field), Arc::new(entries))?)
    });
    Ok(Bound {
        args: cast_to,
        result: result_type,
        kernel,
    })
}

/// The entries `MAP[k0, v0, k1, v1, ...]` keeps, as (key pair, value pair) indices: Flink's
/// code generator merges entries whose key *expressions* are identical (the same input field,
/// or equal literals) in first-occurrence order with the last value
/// (`ScalarOperatorGens.generateMap`'s `groupByOrdered`); keys that are merely equal at run
/// time stay separate entries. An unchanged input column arrives as the very same array, a
/// literal as a scalar.
fn map_entries_kept(args: &[ColumnarValue]) -> Vec<(usize, usize)> {
    let keys: Vec<&ColumnarValue> = args.iter().step_by(2).collect();
    let same = |x: &ColumnarValue, y: &ColumnarValue| match (x, y) {
        (ColumnarValue::Scalar(x), ColumnarValue::Scalar(y)) => x == y,
        (ColumnarValue::Array(x), ColumnarValue::Array(y)) => Arc::ptr_eq(x, y),
        _ => false,
    };
    let mut kept: Vec<(usize, usize)> = Vec::with_capacity(keys.len());
    for (p, key) in keys.iter().enumerate() {
        match kept.iter_mut().find(|(k, _)| same(keys[*k], key)) {
            Some(entry) => entry.1 = p,
            None => kept.push((p, p)),
        }
    }
    kept
}

/// The entries field of a MAP's list and the struct fields of its entries.
fn map_fields(map: &LogicalType) -> DfResult<(arrow::datatypes::FieldRef, Fields)> {
    let field = item_field(&map.to_arrow())?;
    match field.data_type() {
        DataType::Struct(fields) => {
            let fields = fields.clone();
            Ok((field, fields))
        }
        other => Err(fail(format!("MAP entries are not a struct: {other}"))),
    }
}

fn bind_row(args: &Args<'_>) -> Result<Bound, String> {
    let fields: Vec<RowField> = args
        .types
        .iter()
        .enumerate()
        .map(|(i, t)| RowField::new(format!("EXPR${i}"), t.clone()))
        .collect();
    let result_type = LogicalType::Row(fields);
    let DataType::Struct(arrow_fields) = result_type.to_arrow() else {
        return Err("ROW is not a struct".into());
    };
    Ok(bound(
        args.types.to_vec(),
        result_type,
        "ROW",
        move |a, _| {
            Ok(Arc::new(StructArray::try_new(
                arrow_fields.clone(),
                a.to_vec(),
                None,
            )?))
        },
    ))
}

fn bind_cardinality(args: &Args<'_>) -> Result<Bound, String> {
    if !matches!(args.types[0], LogicalType::Array(_) | LogicalType::Map(..)) {
        return Err(format!(
            "CARDINALITY takes an ARRAY or a MAP, not {}",
            args.types[0]
        ));
    }
    Ok(bound(
        args.types.to_vec(),
        LogicalType::Int,
        "CARDINALITY",
        |a, _| {
            let list = as_list(&a[0], "CARDINALITY")?;
            let lengths: Int32Array = (0..list.len())
                .map(|r| (!list.is_null(r)).then(|| list.value_length(r)))
                .collect();
            Ok(Arc::new(lengths))
        },
    ))
}

fn bind_element(args: &Args<'_>) -> Result<Bound, String> {
    let element = element_type(&args.types[0], "the ELEMENT argument")?.clone();
    Ok(bound(args.types.to_vec(), element, "ELEMENT", |a, _| {
        let list = as_list(&a[0], "ELEMENT")?;
        let mut indices = Vec::with_capacity(list.len());
        for r in 0..list.len() {
            if list.is_null(r) {
                indices.push(None);
                continue;
            }
            let span = range(list, r);
            match span.len() {
                0 => indices.push(None),
                1 => indices.push(Some(idx(span.start))),
                _ => return Err(fail("Array has more than one element.")),
            }
        }
        Ok(arrow::compute::take(
            list.values().as_ref(),
            &UInt32Array::from(indices),
            None,
        )?)
    }))
}

fn bind_item(args: &Args<'_>) -> Result<Bound, String> {
    match &args.types[0] {
        LogicalType::Array(element) => {
            if !is_integer(&args.types[1]) {
                return Err(format!(
                    "an ARRAY index must be an integer, not {}",
                    args.types[1]
                ));
            }
            if let Some(v) = args.literal(1).filter(|v| !v.is_null())
                && let Ok(i) = v.to_string().parse::<i64>()
                && i < 1
            {
                return Err(format!(
                    "Array element access needs an index starting at 1 but was {i}."
                ));
            }
            Ok(bound(
                vec![args.types[0].clone(), LogicalType::BigInt],
                (**element).clone(),
                "ITEM",
                array_item,
            ))
        }
        LogicalType::Map(key, value) => {
            let key = needle_type(&args.types[1], key)?;
            Ok(bound(
                vec![args.types[0].clone(), key],
                (**value).clone(),
                "ITEM",
                map_item,
            ))
        }
        other => Err(format!("ITEM takes an ARRAY or a MAP, not {other}")),
    }
}

/// `array[i]`: NULL for a NULL array or index, or an index outside `1..=size`.
fn array_item(a: &[ArrayRef], _: usize) -> DfResult<ArrayRef> {
    let list = as_list(&a[0], "ITEM")?;
    let index = a[1]
        .as_primitive_opt::<arrow::datatypes::Int64Type>()
        .ok_or_else(|| fail("ITEM: the index is not a BIGINT"))?;
    let indices: UInt32Array = (0..list.len())
        .map(|r| {
            if list.is_null(r) || index.is_null(r) {
                return None;
            }
            let span = range(list, r);
            let i = index.value(r);
            (i >= 1 && (i as u64) <= span.len() as u64).then(|| idx(span.start + i as usize - 1))
        })
        .collect();
    Ok(arrow::compute::take(
        list.values().as_ref(),
        &indices,
        None,
    )?)
}

/// `map[key]`: the value of the first entry whose key equals `key` (NULL for a NULL `key`).
///
/// Flink's generated lookup reads every key slot of the `BinaryMapData` without checking it
/// for NULL, and a NULL slot reads as zero bytes: a NULL key entry is found by `0`, `0.0`,
/// `''`, `FALSE`, ... as Flink finds it.
fn map_item(a: &[ArrayRef], _: usize) -> DfResult<ArrayRef> {
    let list = as_list(&a[0], "ITEM")?;
    let entries = list.values().as_struct();
    let keys = entries.column(0);
    let (all, bases) = concat_values(&[keys.as_ref(), a[1].as_ref()])?;
    let eq = elements(&all, Equality::Sql)?;
    let indices: UInt32Array = (0..list.len())
        .map(|r| {
            if list.is_null(r) || a[1].is_null(r) {
                return None;
            }
            let zero = reads_as_null_slot(&a[1], r);
            range(list, r)
                .find(|&i| {
                    if keys.is_null(i) {
                        zero
                    } else {
                        eq.eq(i, bases[1] + r)
                    }
                })
                .map(idx)
        })
        .collect();
    Ok(arrow::compute::take(
        entries.column(1).as_ref(),
        &indices,
        None,
    )?)
}

// ---------------------------------------------------------------------------------------------
// Functions of an array and one element.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needle {
    Contains,
    Position,
    Append,
    Prepend,
    Remove,
}

fn bind_needle(args: &Args<'_>, name: &'static str, op: Needle) -> Result<Bound, String> {
    let element = element_type(&args.types[0], "the first argument")?;
    let needle = needle_type(&args.types[1], element)?;
    let result_type = match op {
        Needle::Contains => LogicalType::Boolean,
        Needle::Position => LogicalType::Int,
        Needle::Append | Needle::Prepend | Needle::Remove => args.types[0].clone(),
    };
    let field = match &result_type {
        LogicalType::Array(_) => {
            Some(item_field(&result_type.to_arrow()).map_err(|e| e.to_string())?)
        }
        _ => None,
    };
    Ok(bound(
        vec![args.types[0].clone(), needle],
        result_type,
        name,
        move |a, _| {
            let list = as_list(&a[0], name)?;
            match (op, &field) {
                (Needle::Contains, _) => contains(list, &a[1]),
                (Needle::Position, _) => position(list, &a[1]),
                (Needle::Remove, Some(field)) => remove(list, &a[1], field),
                (Needle::Append | Needle::Prepend, Some(field)) => {
                    append(list, &a[1], field, op == Needle::Append)
                }
                _ => Err(fail(format!("{name}: no result field"))),
            }
        },
    ))
}

/// The list's values and the needles in one array with its equality; needle `r` is at
/// `base + r`.
fn with_needles(
    list: &ListArray,
    needles: &ArrayRef,
) -> DfResult<(super::collection_kernels::Elements, usize)> {
    let values = list.values();
    let needles = coerce(needles, values.data_type())?;
    let (all, bases) = concat_values(&[values.as_ref(), needles.as_ref()])?;
    Ok((elements(&all, Equality::Sql)?, bases[1]))
}

fn contains(list: &ListArray, needles: &ArrayRef) -> DfResult<ArrayRef> {
    let (eq, base) = with_needles(list, needles)?;
    let values = list.values();
    let out: BooleanArray = (0..list.len())
        .map(|r| {
            if list.is_null(r) {
                return None;
            }
            let needle_null = needles.is_null(r);
            Some(
                range(list, r).any(|i| match (values.is_null(i), needle_null) {
                    (true, true) => true,
                    (false, false) => eq.eq(i, base + r),
                    _ => false,
                }),
            )
        })
        .collect();
    Ok(Arc::new(out))
}

fn position(list: &ListArray, needles: &ArrayRef) -> DfResult<ArrayRef> {
    let (eq, base) = with_needles(list, needles)?;
    let values = list.values();
    let out: Int32Array = (0..list.len())
        .map(|r| {
            if list.is_null(r) || needles.is_null(r) {
                return None;
            }
            let span = range(list, r);
            let start = span.start;
            Some(
                span.into_iter()
                    .find(|&i| !values.is_null(i) && eq.eq(i, base + r))
                    .map_or(0, |i| (i - start + 1) as i32),
            )
        })
        .collect();
    Ok(Arc::new(out))
}

fn remove(
    list: &ListArray,
    needles: &ArrayRef,
    field: &arrow::datatypes::FieldRef,
) -> DfResult<ArrayRef> {
    let (eq, base) = with_needles(list, needles)?;
    let values = list.values();
    let mut out = ListOut::new(list.len());
    let mut indices = Vec::with_capacity(values.len());
    for r in 0..list.len() {
        if list.is_null(r) {
            out.null();
            continue;
        }
        let needle_null = needles.is_null(r);
        let before = indices.len();
        for i in range(list, r) {
            let equal = match (values.is_null(i), needle_null) {
                (true, true) => true,
                (false, false) => eq.eq(i, base + r),
                _ => false,
            };
            if !equal {
                indices.push(idx(i));
            }
        }
        out.row(indices.len() - before)?;
    }
    out.finish(Arc::clone(field), gather(values.as_ref(), indices)?)
}

fn append(
    list: &ListArray,
    elements: &ArrayRef,
    field: &arrow::datatypes::FieldRef,
    at_end: bool,
) -> DfResult<ArrayRef> {
    let values = list.values();
    let elements = coerce(elements, values.data_type())?;
    let mut out = ListOut::new(list.len());
    let mut pairs = Vec::with_capacity(values.len() + list.len());
    for r in 0..list.len() {
        if list.is_null(r) {
            out.null();
            continue;
        }
        let span = range(list, r);
        let n = span.len() + 1;
        if !at_end {
            pairs.push((1, r));
        }
        pairs.extend(span.map(|i| (0, i)));
        if at_end {
            pairs.push((1, r));
        }
        out.row(n)?;
    }
    let gathered = interleave(&[values.as_ref(), elements.as_ref()], &pairs)?;
    out.finish(Arc::clone(field), gathered)
}

// ---------------------------------------------------------------------------------------------
// ARRAY_MIN / ARRAY_MAX.

fn bind_extremum(
    args: &Args<'_>,
    name: &'static str,
    wins: std::cmp::Ordering,
) -> Result<Bound, String> {
    let element = element_type(&args.types[0], "the argument")?;
    if matches!(element, LogicalType::Map(..) | LogicalType::Row(_)) {
        return Err(format!("{name} needs comparable elements, not {element}"));
    }
    Ok(bound(
        args.types.to_vec(),
        element.clone(),
        name,
        move |a, _| {
            let list = as_list(&a[0], name)?;
            let values = list.values();
            let cmp = comparator(values)?;
            let indices: UInt32Array = (0..list.len())
                .map(|r| {
                    if list.is_null(r) {
                        return None;
                    }
                    // Flink keeps the first of equal (or incomparable) elements.
                    let mut best: Option<usize> = None;
                    for i in range(list, r) {
                        if values.is_null(i) {
                            continue;
                        }
                        if best.is_none_or(|b| cmp(i, b) == wins) {
                            best = Some(i);
                        }
                    }
                    best.map(idx)
                })
                .collect();
            Ok(arrow::compute::take(values.as_ref(), &indices, None)?)
        },
    ))
}

// ---------------------------------------------------------------------------------------------
// ARRAY_CONCAT and the set functions.

fn bind_concat(args: &Args<'_>) -> Result<Bound, String> {
    for t in args.types {
        element_type(t, "every ARRAY_CONCAT argument")?;
    }
    let common = common_of(args.types)?;
    check_widening(args.types, &common)?;
    let target = common.to_arrow();
    let field = item_field(&target).map_err(|e| e.to_string())?;
    Ok(bound(
        args.types.to_vec(),
        common,
        "ARRAY_CONCAT",
        move |a, rows| {
            let lists = a
                .iter()
                .map(|x| coerce(x, &target))
                .collect::<DfResult<Vec<_>>>()?;
            if lists.len() == 1 {
                return Ok(Arc::clone(&lists[0]));
            }
            let lists = lists
                .iter()
                .map(|l| as_list(l, "ARRAY_CONCAT"))
                .collect::<DfResult<Vec<_>>>()?;
            let values: Vec<&dyn Array> = lists.iter().map(|l| l.values().as_ref()).collect();
            let mut out = ListOut::new(rows);
            let mut pairs = Vec::new();
            for r in 0..rows {
                if lists.iter().any(|l| l.is_null(r)) {
                    out.null();
                    continue;
                }
                let before = pairs.len();
                for (j, l) in lists.iter().enumerate() {
                    pairs.extend(range(l, r).map(|i| (j, i)));
                }
                out.row(pairs.len() - before)?;
            }
            out.finish(Arc::clone(&field), interleave(&values, &pairs)?)
        },
    ))
}

/// Every argument type widens to `common`.
fn check_widening(types: &[LogicalType], common: &LogicalType) -> Result<(), String> {
    match types.iter().find(|t| !widens(t, common)) {
        Some(t) => Err(format!("{t} is not implicitly cast to {common}")),
        None => Ok(()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SetOp {
    Distinct,
    Union,
    Except,
    Intersect,
}

fn bind_set(args: &Args<'_>, name: &'static str, op: SetOp) -> Result<Bound, String> {
    for t in args.types {
        element_type(t, "every argument")?;
    }
    let common = common_of(args.types)?;
    check_widening(args.types, &common)?;
    let target = common.to_arrow();
    let field = item_field(&target).map_err(|e| e.to_string())?;
    Ok(bound(args.types.to_vec(), common, name, move |a, _| {
        let lists = a
            .iter()
            .map(|x| coerce(x, &target))
            .collect::<DfResult<Vec<_>>>()?;
        let lists = lists
            .iter()
            .map(|l| as_list(l, name))
            .collect::<DfResult<Vec<_>>>()?;
        set_op(&lists, op, &field)
    }))
}

/// DISTINCT / UNION / EXCEPT / INTERSECT of `lists` (one for DISTINCT, two otherwise), each
/// row's result in first-occurrence order.
fn set_op(
    lists: &[&ListArray],
    op: SetOp,
    field: &arrow::datatypes::FieldRef,
) -> DfResult<ArrayRef> {
    let parts: Vec<&dyn Array> = lists.iter().map(|l| l.values().as_ref()).collect();
    let (all, bases) = concat_values(&parts)?;
    let mode = match op {
        SetOp::Distinct | SetOp::Union => Equality::Sql,
        SetOp::Except | SetOp::Intersect => Equality::Hashed,
    };
    let eq = elements(&all, mode)?;
    let rows = lists[0].len();
    let mut out = ListOut::new(rows);
    let mut indices = Vec::new();
    let mut seen = ElementSet::new(&eq);
    let mut other = ElementSet::new(&eq);
    for r in 0..rows {
        if lists.iter().any(|l| l.is_null(r)) {
            out.null();
            continue;
        }
        seen.clear();
        let before = indices.len();
        let element = |j: usize, i: usize| present(all.as_ref(), bases[j] + i);
        match op {
            SetOp::Distinct | SetOp::Union => {
                for (j, l) in lists.iter().enumerate() {
                    for i in range(l, r) {
                        let e = element(j, i);
                        if seen.insert(e) {
                            indices.push(idx(bases[j] + i));
                        }
                    }
                }
            }
            SetOp::Except | SetOp::Intersect => {
                other.clear();
                for i in range(lists[1], r) {
                    other.insert(element(1, i));
                }
                for i in range(lists[0], r) {
                    let e = element(0, i);
                    let keep = other.contains(e) == (op == SetOp::Intersect);
                    if keep && seen.insert(e) {
                        indices.push(idx(bases[0] + i));
                    }
                }
            }
        }
        out.row(indices.len() - before)?;
    }
    out.finish(Arc::clone(field), gather(all.as_ref(), indices)?)
}

// ---------------------------------------------------------------------------------------------
// Reordering and slicing.

fn bind_reverse(args: &Args<'_>) -> Result<Bound, String> {
    element_type(&args.types[0], "the argument")?;
    let field = item_field(&args.types[0].to_arrow()).map_err(|e| e.to_string())?;
    Ok(bound(
        args.types.to_vec(),
        args.types[0].clone(),
        "ARRAY_REVERSE",
        move |a, _| {
            let list = as_list(&a[0], "ARRAY_REVERSE")?;
            reorder(list, &field, |span, out| out.extend(span.rev().map(idx)))
        },
    ))
}

/// A list whose row `r` holds the elements `f` picks from row `r`'s range (NULL rows stay
/// NULL).
fn reorder(
    list: &ListArray,
    field: &arrow::datatypes::FieldRef,
    mut f: impl FnMut(std::ops::Range<usize>, &mut Vec<u32>),
) -> DfResult<ArrayRef> {
    let mut out = ListOut::new(list.len());
    let mut indices = Vec::with_capacity(list.values().len());
    for r in 0..list.len() {
        if list.is_null(r) {
            out.null();
            continue;
        }
        let before = indices.len();
        f(range(list, r), &mut indices);
        out.row(indices.len() - before)?;
    }
    out.finish(Arc::clone(field), gather(list.values().as_ref(), indices)?)
}

fn bind_slice(args: &Args<'_>) -> Result<Bound, String> {
    element_type(&args.types[0], "the first argument")?;
    for t in &args.types[1..] {
        if !is_integer(t) || !is_implicit(t, &LogicalType::Int) {
            return Err(format!("ARRAY_SLICE positions must be INT, not {t}"));
        }
    }
    let mut cast_to = vec![args.types[0].clone()];
    cast_to.extend(std::iter::repeat_n(LogicalType::Int, args.types.len() - 1));
    let field = item_field(&args.types[0].to_arrow()).map_err(|e| e.to_string())?;
    Ok(bound(
        cast_to,
        args.types[0].clone(),
        "ARRAY_SLICE",
        move |a, _| {
            let list = as_list(&a[0], "ARRAY_SLICE")?;
            let start = a[1].as_primitive::<arrow::datatypes::Int32Type>();
            let end = a
                .get(2)
                .map(|e| e.as_primitive::<arrow::datatypes::Int32Type>());
            let mut out = ListOut::new(list.len());
            let mut indices = Vec::new();
            for r in 0..list.len() {
                if list.is_null(r) || start.is_null(r) || end.is_some_and(|e| e.is_null(r)) {
                    out.null();
                    continue;
                }
                let span = range(list, r);
                let size = span.len() as i64;
                let end_pos = end.map_or(size, |e| i64::from(e.value(r)));
                let (from, to) = slice_bounds(size, i64::from(start.value(r)), end_pos);
                let before = indices.len();
                indices.extend((from..to).map(|k| idx(span.start + k)));
                out.row(indices.len() - before)?;
            }
            out.finish(Arc::clone(&field), gather(list.values().as_ref(), indices)?)
        },
    ))
}

/// The 0-based half-open range `ARRAY_SLICE` keeps of an array of `size` elements
/// (`ArraySliceFunction.eval`; its `int` arithmetic done in `i64`, where it cannot overflow).
fn slice_bounds(size: i64, start: i64, end: i64) -> (usize, usize) {
    if size == 0 {
        return (0, 0);
    }
    let start = (start + if start < 0 { size + 1 } else { 0 }).max(1);
    let end = end + if end < 0 { size + 1 } else { 0 };
    let end = if end == 0 { 1 } else { end.min(size) };
    if end < start {
        return (0, 0);
    }
    ((start - 1) as usize, end as usize)
}

fn bind_sort(args: &Args<'_>) -> Result<Bound, String> {
    let element = element_type(&args.types[0], "the first argument")?;
    if matches!(element, LogicalType::Map(..) | LogicalType::Row(_)) {
        return Err(format!(
            "ARRAY_SORT needs comparable elements, not {element}"
        ));
    }
    if let Some(t) = args.types[1..].iter().find(|t| **t != LogicalType::Boolean) {
        return Err(format!(
            "ARRAY_SORT's order arguments must be BOOLEAN, not {t}"
        ));
    }
    let field = item_field(&args.types[0].to_arrow()).map_err(|e| e.to_string())?;
    Ok(bound(
        args.types.to_vec(),
        args.types[0].clone(),
        "ARRAY_SORT",
        move |a, _| {
            let list = as_list(&a[0], "ARRAY_SORT")?;
            let ascending = a.get(1).map(|x| x.as_boolean());
            let nulls_first = a.get(2).map(|x| x.as_boolean());
            let values = list.values();
            let cmp = comparator(values)?;
            let mut out = ListOut::new(list.len());
            let mut indices: Vec<u32> = Vec::with_capacity(values.len());
            let mut row: Vec<usize> = Vec::new();
            for r in 0..list.len() {
                let flag = |b: Option<&BooleanArray>| match b {
                    None => Some(true),
                    Some(b) => (!b.is_null(r)).then(|| b.value(r)),
                };
                let (Some(asc), Some(first)) = (
                    flag(ascending),
                    match nulls_first {
                        None => flag(ascending),
                        some => flag(some),
                    },
                ) else {
                    out.null();
                    continue;
                };
                if list.is_null(r) {
                    out.null();
                    continue;
                }
                row.clear();
                row.extend(range(list, r));
                // Flink's comparator (`ArraySortFunction`): never 0 for two values, NULLs
                // placed by `nulls_first` whatever the direction; Java's TimSort decides the
                // order of values it cannot tell apart.
                let mut compare = |x: usize, y: usize| -> i32 {
                    match (values.is_null(x), values.is_null(y)) {
                        (true, true) => 0,
                        (true, false) => {
                            if first {
                                -1
                            } else {
                                1
                            }
                        }
                        (false, true) => {
                            if first {
                                1
                            } else {
                                -1
                            }
                        }
                        (false, false) => {
                            let greater = cmp(x, y) == std::cmp::Ordering::Greater;
                            if greater == asc { 1 } else { -1 }
                        }
                    }
                };
                java_sort(&mut row, &mut compare)
                    .map_err(|_| fail("Comparison method violates its general contract!"))?;
                indices.extend(row.iter().map(|&i| idx(i)));
                out.row(row.len())?;
            }
            out.finish(Arc::clone(&field), gather(values.as_ref(), indices)?)
        },
    ))
}

// ---------------------------------------------------------------------------------------------
// ARRAY_JOIN.

fn bind_join(args: &Args<'_>) -> Result<Bound, String> {
    let element = element_type(&args.types[0], "the first argument")?;
    if !is_string(element) {
        return Err(format!(
            "ARRAY_JOIN needs an ARRAY of strings, not {}",
            args.types[0]
        ));
    }
    if let Some(t) = args.types[1..].iter().find(|t| !is_string(t)) {
        return Err(format!(
            "ARRAY_JOIN's delimiter and replacement must be strings, not {t}"
        ));
    }
    Ok(bound(args.types.to_vec(), STRING, "ARRAY_JOIN", |a, _| {
        let list = as_list(&a[0], "ARRAY_JOIN")?;
        let values = list.values().as_string::<i32>();
        let delimiter = a[1].as_string::<i32>();
        let replacement = a.get(2).map(|x| x.as_string::<i32>());
        let mut out = StringBuilder::with_capacity(list.len(), values.value_data().len());
        let mut text = String::new();
        for r in 0..list.len() {
            if list.is_null(r) || delimiter.is_null(r) || replacement.is_some_and(|x| x.is_null(r))
            {
                out.append_null();
                continue;
            }
            let sep = delimiter.value(r);
            let fill = replacement.map(|x| x.value(r));
            text.clear();
            let mut first = true;
            for i in range(list, r) {
                let v = if values.is_null(i) {
                    match fill {
                        Some(f) => f,
                        None => continue,
                    }
                } else {
                    values.value(i)
                };
                if !first {
                    text.push_str(sep);
                }
                first = false;
                text.push_str(v);
            }
            out.append_value(&text);
        }
        Ok(Arc::new(out.finish()))
    }))
}

// ---------------------------------------------------------------------------------------------
// MAP functions.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MapPart {
    Keys,
    Values,
    Entries,
}

fn bind_map_part(args: &Args<'_>, name: &'static str, part: MapPart) -> Result<Bound, String> {
    let (key, value) = map_types(&args.types[0], "the argument")?;
    let element = match part {
        MapPart::Keys => key.clone(),
        MapPart::Values => value.clone(),
        MapPart::Entries => LogicalType::Row(vec![
            RowField::new("key", key.clone()),
            RowField::new("value", value.clone()),
        ]),
    };
    let result_type = LogicalType::Array(Box::new(element));
    let field = item_field(&result_type.to_arrow()).map_err(|e| e.to_string())?;
    Ok(bound(
        args.types.to_vec(),
        result_type,
        name,
        move |a, _| {
            let list = as_list(&a[0], name)?;
            let entries = list.values().as_struct();
            let values = match part {
                MapPart::Keys => Arc::clone(entries.column(0)),
                MapPart::Values => Arc::clone(entries.column(1)),
                MapPart::Entries => Arc::clone(list.values()),
            };
            // The same offsets and validity: no element is copied.
            Ok(Arc::new(ListArray::try_new(
                Arc::clone(&field),
                list.offsets().clone(),
                values,
                list.nulls().cloned(),
            )?))
        },
    ))
}

fn bind_map_from_arrays(args: &Args<'_>) -> Result<Bound, String> {
    let key = element_type(&args.types[0], "the keys")?;
    let value = element_type(&args.types[1], "the values")?;
    let result_type = LogicalType::Map(Box::new(key.clone()), Box::new(value.clone()));
    let (field, fields) = map_fields(&result_type).map_err(|e| e.to_string())?;
    Ok(bound(
        args.types.to_vec(),
        result_type,
        "MAP_FROM_ARRAYS",
        move |a, _| {
            let keys = as_list(&a[0], "MAP_FROM_ARRAYS")?;
            let values = as_list(&a[1], "MAP_FROM_ARRAYS")?;
            let mut out = ListOut::new(keys.len());
            let (mut ki, mut vi) = (Vec::new(), Vec::new());
            for r in 0..keys.len() {
                if keys.is_null(r) || values.is_null(r) {
                    out.null();
                    continue;
                }
                let (k, v) = (range(keys, r), range(values, r));
                if k.len() != v.len() {
                    return Err(fail(format!(
                        "Invalid function MAP_FROM_ARRAYS call:\nThe length of the keys array {} \
                         is not equal to the length of the values array {}",
                        k.len(),
                        v.len()
                    )));
                }
                out.row(k.len())?;
                ki.extend(k.map(idx));
                vi.extend(v.map(idx));
            }
            let entries = StructArray::try_new(
                fields.clone(),
                vec![
                    gather(keys.values().as_ref(), ki)?,
                    gather(values.values().as_ref(), vi)?,
                ],
                None,
            )?;
            out.finish(Arc::clone(&field), Arc::new(entries))
        },
    ))
}

fn bind_map_union(args: &Args<'_>) -> Result<Bound, String> {
    for t in args.types {
        map_types(t, "every MAP_UNION argument")?;
    }
    let common = common_of(args.types)?;
    check_widening(args.types, &common)?;
    let target = common.to_arrow();
    let (field, fields) = map_fields(&common).map_err(|e| e.to_string())?;
    Ok(bound(
        args.types.to_vec(),
        common,
        "MAP_UNION",
        move |a, rows| {
            let maps = a
                .iter()
                .map(|x| coerce(x, &target))
                .collect::<DfResult<Vec<_>>>()?;
            if maps.len() == 1 {
                return Ok(Arc::clone(&maps[0]));
            }
            let maps = maps
                .iter()
                .map(|m| as_list(m, "MAP_UNION"))
                .collect::<DfResult<Vec<_>>>()?;
            map_union(&maps, rows, &field, &fields)
        },
    ))
}

/// `MapUnionFunction`: folding left to right, the next map's entries come first, then the
/// entries so far whose key is not among the entries already kept (a NULL key is dropped if
/// the next map has one).
fn map_union(
    maps: &[&ListArray],
    rows: usize,
    field: &arrow::datatypes::FieldRef,
    fields: &Fields,
) -> DfResult<ArrayRef> {
    let key_parts: Vec<&dyn Array> = maps
        .iter()
        .map(|m| m.values().as_struct().column(0).as_ref())
        .collect();
    let value_parts: Vec<&dyn Array> = maps
        .iter()
        .map(|m| m.values().as_struct().column(1).as_ref())
        .collect();
    let (keys, bases) = concat_values(&key_parts)?;
    let (values, _) = concat_values(&value_parts)?;
    let eq = elements(&keys, Equality::Sql)?;
    let mut out = ListOut::new(rows);
    let mut indices: Vec<u32> = Vec::new();
    let (mut current, mut next) = (Vec::<usize>::new(), Vec::<usize>::new());
    for r in 0..rows {
        if maps.iter().any(|m| m.is_null(r)) {
            out.null();
            continue;
        }
        current.clear();
        current.extend(range(maps[0], r).map(|i| bases[0] + i));
        for (j, m) in maps.iter().enumerate().skip(1) {
            if m.value_length(r) == 0 {
                continue;
            }
            next.clear();
            next.extend(range(m, r).map(|i| bases[j] + i));
            let next_has_null = next.iter().any(|&k| keys.is_null(k));
            for &e in &current {
                let key_null = keys.is_null(e);
                if key_null && next_has_null {
                    continue;
                }
                let exists = !key_null && next.iter().any(|&k| !keys.is_null(k) && eq.eq(e, k));
                if !exists {
                    next.push(e);
                }
            }
            std::mem::swap(&mut current, &mut next);
        }
        indices.extend(current.iter().map(|&i| idx(i)));
        out.row(current.len())?;
    }
    let entries = StructArray::try_new(
        fields.clone(),
        vec![
            gather(keys.as_ref(), indices.clone())?,
            gather(values.as_ref(), indices)?,
        ],
        None,
    )?;
    out.finish(Arc::clone(field), Arc::new(entries))
}

#[cfg(test)]
#[path = "collection_tests.rs"]
mod tests;
