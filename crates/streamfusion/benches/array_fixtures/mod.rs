//! Shared by the ARRAY suites (array_search, array_extrema, array_edits, array_sort,
//! collection_expressions): element types and their fixture values, typed list columns with
//! NULL patterns read through a slice, compiling a program by Flink name, and reading the
//! output back into `Vec<Option<_>>` models for the row-by-row checks.
//!
//! Lives in a nested directory so Cargo discovers only the suites that include it.

#![allow(dead_code)]

use std::sync::Arc;

use arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, BooleanArray, Decimal128Array, Int8Array, Int16Array,
    Int32Array, Int64Array, ListArray, RecordBatch,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Decimal128Type, Field, Int8Type, Int16Type, Int32Type, Int64Type,
    Schema,
};
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::{SLICE_OFFSET, mix};
use bench_support::{Suite, Verdict};
use streamfusion::calc::registry::registry;
use streamfusion::calc::{CalcProgram, CompiledCalc, Expr, compile};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::{LogicalType, array_item_field};

/// One element: an integer, a DECIMAL's unscaled value, or a BOOLEAN as 0/1.
pub type Value = Option<i128>;
/// One ARRAY value; `None` is a NULL array.
pub type List = Option<Vec<Value>>;

/// The largest DECIMAL(38, 9) unscaled value.
pub const DECIMAL_MAX: i128 = 10i128.pow(38) - 1;
/// A value no generated fixture holds (generated values are the type's extremes or multiples of
/// a step of at least 3): a search for it misses.
pub const MISS: i128 = 1;

/// An element type of the fixtures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    Boolean,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Decimal,
}

impl Elem {
    pub fn name(self) -> &'static str {
        match self {
            Elem::Boolean => "boolean",
            Elem::TinyInt => "tinyint",
            Elem::SmallInt => "smallint",
            Elem::Int => "int",
            Elem::BigInt => "bigint",
            Elem::Decimal => "decimal38_9",
        }
    }

    pub fn logical(self) -> LogicalType {
        match self {
            Elem::Boolean => LogicalType::Boolean,
            Elem::TinyInt => LogicalType::TinyInt,
            Elem::SmallInt => LogicalType::SmallInt,
            Elem::Int => LogicalType::Int,
            Elem::BigInt => LogicalType::BigInt,
            Elem::Decimal => LogicalType::Decimal {
                precision: 38,
                scale: 9,
            },
        }
    }

    pub fn array_type(self) -> LogicalType {
        LogicalType::Array(Box::new(self.logical()))
    }

    pub fn bounds(self) -> (i128, i128) {
        match self {
            Elem::Boolean => (0, 1),
            Elem::TinyInt => (i8::MIN.into(), i8::MAX.into()),
            Elem::SmallInt => (i16::MIN.into(), i16::MAX.into()),
            Elem::Int => (i32::MIN.into(), i32::MAX.into()),
            Elem::BigInt => (i64::MIN.into(), i64::MAX.into()),
            Elem::Decimal => (-DECIMAL_MAX, DECIMAL_MAX),
        }
    }

    /// The `k`-th of `domain` values: the type's two extremes, then multiples of a step
    /// around zero (at most 32 of them for the widest fixture, within TINYINT).
    pub fn value(self, k: u64, domain: u64) -> i128 {
        if self == Elem::Boolean {
            return i128::from(k % 2 == 1);
        }
        let (lo, hi) = self.bounds();
        let step = if self == Elem::Decimal {
            3_000_000_001
        } else {
            3
        };
        match k % domain {
            0 => lo,
            1 => hi,
            k => (i128::from(k) - i128::from(domain / 2)) * step,
        }
    }

    /// An Arrow array of these elements.
    pub fn column(self, values: &[Value]) -> ArrayRef {
        let narrow = |v: &Value| v.map(|x| x as i64);
        match self {
            Elem::Boolean => Arc::new(
                values
                    .iter()
                    .map(|v| v.map(|x| x != 0))
                    .collect::<BooleanArray>(),
            ),
            Elem::TinyInt => Arc::new(
                values
                    .iter()
                    .map(|v| narrow(v).map(|x| x as i8))
                    .collect::<Int8Array>(),
            ),
            Elem::SmallInt => Arc::new(
                values
                    .iter()
                    .map(|v| narrow(v).map(|x| x as i16))
                    .collect::<Int16Array>(),
            ),
            Elem::Int => Arc::new(
                values
                    .iter()
                    .map(|v| narrow(v).map(|x| x as i32))
                    .collect::<Int32Array>(),
            ),
            Elem::BigInt => Arc::new(values.iter().map(narrow).collect::<Int64Array>()),
            Elem::Decimal => Arc::new(
                values
                    .iter()
                    .copied()
                    .collect::<Decimal128Array>()
                    .with_precision_and_scale(38, 9)
                    .expect("DECIMAL(38, 9) fixture"),
            ),
        }
    }

    /// An Arrow `ARRAY<elem>` column of `lists`.
    pub fn list_column(self, lists: &[List]) -> ArrayRef {
        let offsets =
            OffsetBuffer::from_lengths(lists.iter().map(|l| l.as_ref().map_or(0, Vec::len)));
        let flat: Vec<Value> = lists.iter().flatten().flatten().copied().collect();
        let nulls = NullBuffer::from(lists.iter().map(Option::is_some).collect::<Vec<bool>>());
        Arc::new(
            ListArray::try_new(
                array_item_field(&self.logical()),
                offsets,
                self.column(&flat),
                Some(nulls),
            )
            .expect("ARRAY fixture"),
        )
    }
}

/// The batch sizes every suite sweeps.
pub const ROWS: [usize; 3] = [0, 16, 1_024];
/// The array widths every suite sweeps.
pub const WIDTHS: [usize; 3] = [0, 8, 64];

/// Every `ROWS` x `widths` shape with each `(nulls, sliced)` of `patterns`, in case order.
pub fn shapes(widths: &[usize], patterns: &[(bool, bool)]) -> Vec<Shape> {
    let mut out = Vec::new();
    for rows in ROWS {
        for &width in widths {
            for &(nulls, sliced) in patterns {
                out.push(Shape {
                    rows,
                    width,
                    nulls,
                    sliced,
                });
            }
        }
    }
    out
}

/// A fixture's batch shape: `rows` arrays of `width` elements each (NULL arrays aside).
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub rows: usize,
    pub width: usize,
    pub nulls: bool,
    pub sliced: bool,
}

impl Shape {
    pub fn id(&self) -> String {
        format!(
            "rows={}/width={}/nulls={}/sliced={}",
            self.rows, self.width, self.nulls, self.sliced
        )
    }

    pub fn offset(&self) -> usize {
        if self.sliced { SLICE_OFFSET } else { 0 }
    }

    /// Rows generated before the slice (the slice drops `offset` rows on both sides).
    pub fn generated(&self) -> usize {
        self.rows + 2 * self.offset()
    }

    /// How many distinct values the arrays draw from: half the width, so values repeat.
    pub fn domain(&self) -> u64 {
        (self.width as u64 / 2).max(2)
    }

    /// Array `lane` of generated row `r`: one in five NULL and one element in seven NULL when
    /// `nulls`.
    pub fn list(&self, elem: Elem, r: usize, lane: u64) -> List {
        let r = r as u64;
        if self.nulls && mix(r, lane) % 5 == 1 {
            return None;
        }
        Some(
            (0..self.width as u64)
                .map(|j| {
                    let m = mix(r, lane * 4_096 + j + 1);
                    (!(self.nulls && m % 7 == 3)).then(|| elem.value(m >> 8, self.domain()))
                })
                .collect(),
        )
    }

    /// Array lane 1 of every generated row.
    pub fn elem_lists(&self, elem: Elem) -> Vec<List> {
        (0..self.generated())
            .map(|r| self.list(elem, r, 1))
            .collect()
    }

    /// A needle for row `r` of `list`: one of its elements, a miss, or (with `nulls`) NULL.
    pub fn needle(&self, elem: Elem, r: usize, list: &List) -> Value {
        let m = mix(r as u64, 0xEE);
        match m % 4 {
            0 if self.nulls => None,
            1 => Some(MISS),
            _ => list
                .as_ref()
                .and_then(|l| l.get((m >> 8) as usize % l.len().max(1)).copied().flatten())
                .or(Some(elem.value(m >> 16, self.domain()))),
        }
    }

    /// The batch of `columns` (`generated()` rows each), read through the slice.
    pub fn batch(&self, types: &[LogicalType], columns: Vec<ArrayRef>) -> ChangelogBatch {
        let batch = RecordBatch::try_new(Arc::new(schema(types)), columns).expect("fixture batch");
        ChangelogBatch::insert_only(batch.slice(self.offset(), self.rows))
    }

    /// `generated()` arrays of `width` elements, element `j` of row `r` being
    /// `pick(r, j, random)`; one array in five and one element in seven NULL with `nulls`.
    pub fn lists<V>(
        &self,
        lane: u64,
        pick: impl Fn(usize, usize, u64) -> V,
    ) -> Vec<Option<Vec<Option<V>>>> {
        (0..self.generated())
            .map(|r| {
                if self.nulls && mix(r as u64, lane) % 5 == 1 {
                    return None;
                }
                Some(
                    (0..self.width)
                        .map(|j| {
                            let m = mix(r as u64, lane * 4_096 + j as u64 + 1);
                            (!(self.nulls && m % 7 == 3)).then(|| pick(r, j, m >> 8))
                        })
                        .collect(),
                )
            })
            .collect()
    }

    /// The batch of `columns` (`generated()` rows each), read through the slice; with
    /// `kinds`, its rows cycle through `+I`, `-U`, `+U`, `-D`.
    pub fn batch_with_kinds(
        &self,
        types: &[LogicalType],
        columns: Vec<ArrayRef>,
        kinds: bool,
    ) -> ChangelogBatch {
        let batch = RecordBatch::try_new(Arc::new(schema(types)), columns)
            .expect("fixture batch")
            .slice(self.offset(), self.rows);
        let kinds = kinds.then(|| {
            Int8Array::from_iter_values((0..self.generated()).map(|r| (r % 4) as i8))
                .slice(self.offset(), self.rows)
        });
        ChangelogBatch::try_new(batch, kinds).expect("fixture row kinds")
    }

    /// The expected rows: the model over the generated rows inside the slice.
    pub fn visible<T: Clone>(&self, generated: &[T]) -> Vec<T> {
        generated[self.offset()..self.offset() + self.rows].to_vec()
    }
}

/// Element values read straight from Arrow (BOOLEAN as 0/1).
pub fn read_values(array: &dyn Array) -> Result<Vec<Value>, String> {
    fn prim<T: ArrowPrimitiveType>(a: &dyn Array, f: impl Fn(T::Native) -> i128) -> Vec<Value> {
        let a = a.as_primitive::<T>();
        (0..a.len())
            .map(|i| a.is_valid(i).then(|| f(a.value(i))))
            .collect()
    }
    Ok(match array.data_type() {
        DataType::Boolean => {
            let a = array.as_boolean();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| i128::from(a.value(i))))
                .collect()
        }
        DataType::Int8 => prim::<Int8Type>(array, i128::from),
        DataType::Int16 => prim::<Int16Type>(array, i128::from),
        DataType::Int32 => prim::<Int32Type>(array, i128::from),
        DataType::Int64 => prim::<Int64Type>(array, i128::from),
        DataType::Decimal128(38, 9) => prim::<Decimal128Type>(array, |x| x),
        other => return Err(format!("unexpected value type {other}")),
    })
}

/// ARRAY values read straight from an Arrow list.
pub fn read_lists(array: &dyn Array) -> Result<Vec<List>, String> {
    read_lists_with(array, read_values)
}

/// ARRAY values read from an Arrow list, its elements by `read`.
pub fn read_lists_with<T: Clone>(
    array: &dyn Array,
    read: impl Fn(&dyn Array) -> Result<Vec<Option<T>>, String>,
) -> Result<Vec<Option<Vec<Option<T>>>>, String> {
    let list = array
        .as_list_opt::<i32>()
        .ok_or_else(|| format!("a {} column, not a list", array.data_type()))?;
    let values = read(list.values().as_ref())?;
    let offsets = list.value_offsets();
    Ok((0..list.len())
        .map(|r| {
            list.is_valid(r)
                .then(|| values[offsets[r] as usize..offsets[r + 1] as usize].to_vec())
        })
        .collect())
}

/// A case id `<function>/<element>/<shape>`, the function in lower case.
pub fn case_id(flink_name: &str, elem: Elem, shape: &Shape) -> String {
    format!(
        "{}/{}/{}",
        flink_name.to_ascii_lowercase(),
        elem.name(),
        shape.id()
    )
}

/// The one output column, checked to have Arrow type `ty` and the input's row count.
pub fn output_column<'a>(
    out: &'a ChangelogBatch,
    rows: usize,
    ty: &LogicalType,
) -> Result<&'a ArrayRef, String> {
    if out.num_rows() != rows || out.batch().num_columns() != 1 {
        return Err(format!(
            "{} rows x {} columns, expected {rows} x 1",
            out.num_rows(),
            out.batch().num_columns()
        ));
    }
    let column = out.batch().column(0);
    if column.data_type() != &ty.to_arrow() {
        return Err(format!(
            "a {} column, expected {}",
            column.data_type(),
            ty.to_arrow()
        ));
    }
    Ok(column)
}

/// The one output column: Arrow type `ty`, the input's rows and the input's row kinds (all
/// `+I` and none given count as the same).
pub fn output_column_with_kinds<'a>(
    out: &'a ChangelogBatch,
    input: &ChangelogBatch,
    ty: &LogicalType,
) -> Result<&'a ArrayRef, String> {
    let column = output_column(out, input.num_rows(), ty)?;
    let kinds = |b: &ChangelogBatch| b.kinds().map(|k| k.values().to_vec());
    let (got, want) = (kinds(out), kinds(input));
    let all_insert = |k: &Option<Vec<i8>>| k.as_ref().is_none_or(|k| k.iter().all(|&b| b == 0));
    if got != want && !(all_insert(&got) && all_insert(&want)) {
        return Err(format!("row kinds {got:?}, expected {want:?}"));
    }
    Ok(column)
}

/// A nullable field `f<i>` per type.
fn schema(types: &[LogicalType]) -> Schema {
    Schema::new(
        types
            .iter()
            .enumerate()
            .map(|(i, t)| Field::new(format!("f{i}"), t.to_arrow(), true))
            .collect::<Vec<_>>(),
    )
}

/// The first row where `actual` and `expected` differ, if any.
pub fn same_rows<T: PartialEq + std::fmt::Debug>(actual: &[T], expected: &[T]) -> Verdict {
    if actual.len() != expected.len() {
        return Err(format!(
            "{} rows, expected {}",
            actual.len(),
            expected.len()
        ));
    }
    match actual.iter().zip(expected).position(|(a, e)| a != e) {
        None => Ok(()),
        Some(r) => Err(format!(
            "row {r}: expected {:?}, got {:?}",
            expected[r], actual[r]
        )),
    }
}

/// The opcode of Flink's function `name`, or why there is none.
pub fn opcode(name: &str) -> Result<u16, String> {
    registry()
        .by_name(name)
        .map(|d| d.opcode)
        .ok_or_else(|| format!("{name} is not registered"))
}

/// A compiled program and its input batch.
pub struct Fixture<E> {
    pub compiled: CompiledCalc,
    pub input: ChangelogBatch,
    pub expected: E,
}

impl<E> ArrowBuffers for Fixture<E> {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

pub fn compiled(call: Expr, types: &[LogicalType]) -> CompiledCalc {
    compile(&CalcProgram::project(vec![call]), types)
        .unwrap_or_else(|e| panic!("the program compiles: {e}"))
}

/// The opcode Flink's `name` compiles to, or `None` once the case `id` is recorded as
/// skipped with the reason.
pub fn opcode_or_skip(suite: &mut Suite, id: &str, name: &str) -> Option<u16> {
    match opcode(name) {
        Ok(op) => Some(op),
        Err(why) => {
            suite.skip(id, &why);
            None
        }
    }
}
