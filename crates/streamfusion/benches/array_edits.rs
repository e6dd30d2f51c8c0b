//! The `array_edits` suite: production ARRAY_APPEND, ARRAY_PREPEND, ARRAY_REMOVE, ARRAY_CONCAT,
//! ARRAY_UNION, ARRAY_EXCEPT and ARRAY_INTERSECT through compiled Calc.
//!
//! Measured boundary: `CompiledCalc::evaluate` of one batch, result allocation included; the
//! program (`f(array, element)` or `f(array, array)` over two input columns) is compiled, and
//! the batch and expected arrays built, outside timing.
//!
//! Cases `<function>/<element>/rows=<n>/width=<w>/nulls=<b>/sliced=<b>`: 0/16/1,024 rows of
//! arrays of 0/8/64 INT, BIGINT or DECIMAL(38, 9) elements drawn from half as many distinct
//! values (duplicates; the type's extremes included), so the two arrays of a row overlap. The
//! element argument is one of the row's elements, a value no array holds, or NULL. `nulls=true`
//! makes one array in five and one element in seven NULL (in both array arguments) and one
//! needle in four NULL; `sliced=true` reads the batch through a slice at an unaligned offset.
//!
//! Oracle: Flink 2.3.0's `Array{Append,Prepend,Remove,Concat,Union,Except,Intersect}Function`,
//! one row at a time over `Vec<Option<_>>`: any NULL array argument gives NULL; a NULL element
//! is appended/prepended as is; REMOVE drops every element equal to the needle (NULL removes
//! NULLs); UNION keeps the first occurrence of each value of the first then the second array;
//! EXCEPT / INTERSECT keep the first occurrence of each value of the first array that is absent
//! from / present in the second (NULL counts as a value). The runner adds allocation and
//! Arrow-buffer probes.

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

bench_support::counting_allocator!();

const ROWS: [usize; 3] = [0, 16, 1_024];
const WIDTHS: [usize; 3] = [0, 8, 64];
const ELEMENTS: [Elem; 3] = [Elem::Int, Elem::BigInt, Elem::Decimal];

fn main() {
    let mut suite = Suite::new("array_edits");
    for function in Edit::ALL {
        for elem in ELEMENTS {
            for rows in ROWS {
                for width in WIDTHS {
                    for (nulls, sliced) in [(false, false), (true, false), (true, true)] {
                        let shape = Shape {
                            rows,
                            width,
                            nulls,
                            sliced,
                        };
                        case(&mut suite, function, elem, shape);
                    }
                }
            }
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edit {
    Append,
    Prepend,
    Remove,
    Concat,
    Union,
    Except,
    Intersect,
}

/// A row's second argument: an element or another array.
#[derive(Debug, Clone)]
enum Second {
    Element(Value),
    Array(List),
}

impl Edit {
    const ALL: [Edit; 7] = [
        Edit::Append,
        Edit::Prepend,
        Edit::Remove,
        Edit::Concat,
        Edit::Union,
        Edit::Except,
        Edit::Intersect,
    ];

    fn flink_name(self) -> &'static str {
        match self {
            Edit::Append => "ARRAY_APPEND",
            Edit::Prepend => "ARRAY_PREPEND",
            Edit::Remove => "ARRAY_REMOVE",
            Edit::Concat => "ARRAY_CONCAT",
            Edit::Union => "ARRAY_UNION",
            Edit::Except => "ARRAY_EXCEPT",
            Edit::Intersect => "ARRAY_INTERSECT",
        }
    }

    fn takes_element(self) -> bool {
        matches!(self, Edit::Append | Edit::Prepend | Edit::Remove)
    }

    /// Flink's result for one row.
    fn model(self, list: &List, second: &Second) -> List {
        let a = list.as_ref()?;
        let distinct = |values: &mut dyn Iterator<Item = Value>| {
            let mut out: Vec<Value> = Vec::new();
            for v in values {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
            out
        };
        match (self, second) {
            (Edit::Append, Second::Element(e)) => Some(a.iter().copied().chain([*e]).collect()),
            (Edit::Prepend, Second::Element(e)) => {
                Some([*e].into_iter().chain(a.iter().copied()).collect())
            }
            (Edit::Remove, Second::Element(e)) => {
                Some(a.iter().copied().filter(|v| v != e).collect())
            }
            (_, Second::Array(b)) => {
                let b = b.as_ref()?;
                Some(match self {
                    Edit::Concat => a.iter().chain(b).copied().collect(),
                    Edit::Union => distinct(&mut a.iter().chain(b).copied()),
                    Edit::Except => distinct(&mut a.iter().copied().filter(|v| !b.contains(v))),
                    Edit::Intersect => distinct(&mut a.iter().copied().filter(|v| b.contains(v))),
                    _ => unreachable!("element functions take an element"),
                })
            }
            (_, Second::Element(_)) => unreachable!("set functions take an array"),
        }
    }
}

fn case(suite: &mut Suite, function: Edit, elem: Elem, shape: Shape) {
    let id = format!(
        "{}/{}/{}",
        function.flink_name().to_ascii_lowercase(),
        elem.name(),
        shape.id()
    );
    let op = match opcode(function.flink_name()) {
        Ok(op) => op,
        Err(why) => return suite.skip(&id, &why),
    };
    suite.stateless(
        &id,
        || {
            let lists: Vec<List> = (0..shape.generated())
                .map(|r| shape.list(elem, r, 1))
                .collect();
            let seconds: Vec<Second> = lists
                .iter()
                .enumerate()
                .map(|(r, l)| {
                    if function.takes_element() {
                        Second::Element(shape.needle(elem, r, l))
                    } else {
                        Second::Array(shape.list(elem, r, 2))
                    }
                })
                .collect();
            let expected: Vec<List> = lists
                .iter()
                .zip(&seconds)
                .map(|(l, s)| function.model(l, s))
                .collect();
            let (second_type, second_column) = if function.takes_element() {
                let values: Vec<Value> = seconds
                    .iter()
                    .map(|s| match s {
                        Second::Element(v) => *v,
                        Second::Array(_) => unreachable!("built above"),
                    })
                    .collect();
                (elem.logical(), elem.column(&values))
            } else {
                let lists: Vec<List> = seconds
                    .iter()
                    .map(|s| match s {
                        Second::Array(l) => l.clone(),
                        Second::Element(_) => unreachable!("built above"),
                    })
                    .collect();
                (elem.array_type(), elem.list_column(&lists))
            };
            let types = [elem.array_type(), second_type];
            Fixture {
                compiled: compiled(Expr::call(op, vec![Expr::input(0), Expr::input(1)]), &types),
                input: shape.batch(&types, vec![elem.list_column(&lists), second_column]),
                expected: shape.visible(&expected),
            }
        },
        |f| f.compiled.evaluate(&f.input).expect("evaluation"),
        |f, out| {
            let column = output_column(out, f.input.num_rows(), &elem.array_type())?;
            same_rows(&read_lists(column.as_ref())?, &f.expected)
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Elements, fixtures and readers (the same in every collection suite).

/// One element: an integer, a DECIMAL's unscaled value, or a BOOLEAN as 0/1.
type Value = Option<i128>;
/// One ARRAY value; `None` is a NULL array.
type List = Option<Vec<Value>>;

/// The largest DECIMAL(38, 9) unscaled value.
const DECIMAL_MAX: i128 = 10i128.pow(38) - 1;
/// A value no generated fixture holds (generated values are the type's extremes or multiples of
/// a step of at least 3): a search for it misses.
const MISS: i128 = 1;

/// An element type of the fixtures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(
    dead_code,
    reason = "the collection suites share this enum; each uses the types its catalogue row lists"
)]
enum Elem {
    Boolean,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Decimal,
}

impl Elem {
    fn name(self) -> &'static str {
        match self {
            Elem::Boolean => "boolean",
            Elem::TinyInt => "tinyint",
            Elem::SmallInt => "smallint",
            Elem::Int => "int",
            Elem::BigInt => "bigint",
            Elem::Decimal => "decimal38_9",
        }
    }

    fn logical(self) -> LogicalType {
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

    fn array_type(self) -> LogicalType {
        LogicalType::Array(Box::new(self.logical()))
    }

    fn bounds(self) -> (i128, i128) {
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
    fn value(self, k: u64, domain: u64) -> i128 {
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
    fn column(self, values: &[Value]) -> ArrayRef {
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
    fn list_column(self, lists: &[List]) -> ArrayRef {
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

/// A fixture's batch shape: `rows` arrays of `width` elements each (NULL arrays aside).
#[derive(Debug, Clone, Copy)]
struct Shape {
    rows: usize,
    width: usize,
    nulls: bool,
    sliced: bool,
}

impl Shape {
    fn id(&self) -> String {
        format!(
            "rows={}/width={}/nulls={}/sliced={}",
            self.rows, self.width, self.nulls, self.sliced
        )
    }

    fn offset(&self) -> usize {
        if self.sliced { SLICE_OFFSET } else { 0 }
    }

    /// Rows generated before the slice (the slice drops `offset` rows on both sides).
    fn generated(&self) -> usize {
        self.rows + 2 * self.offset()
    }

    /// How many distinct values the arrays draw from: half the width, so values repeat.
    fn domain(&self) -> u64 {
        (self.width as u64 / 2).max(2)
    }

    /// Array `lane` of generated row `r`: one in five NULL and one element in seven NULL when
    /// `nulls`.
    fn list(&self, elem: Elem, r: usize, lane: u64) -> List {
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

    /// A needle for row `r` of `list`: one of its elements, a miss, or (with `nulls`) NULL.
    #[allow(dead_code, reason = "only the suites with a needle argument use it")]
    fn needle(&self, elem: Elem, r: usize, list: &List) -> Value {
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
    fn batch(&self, types: &[LogicalType], columns: Vec<ArrayRef>) -> ChangelogBatch {
        let schema = Schema::new(
            types
                .iter()
                .enumerate()
                .map(|(i, t)| Field::new(format!("f{i}"), t.to_arrow(), true))
                .collect::<Vec<_>>(),
        );
        let batch = RecordBatch::try_new(Arc::new(schema), columns).expect("fixture batch");
        ChangelogBatch::insert_only(batch.slice(self.offset(), self.rows))
    }

    /// The expected rows: the model over the generated rows inside the slice.
    fn visible<T: Clone>(&self, generated: &[T]) -> Vec<T> {
        generated[self.offset()..self.offset() + self.rows].to_vec()
    }
}

/// Element values read straight from Arrow (BOOLEAN as 0/1).
fn read_values(array: &dyn Array) -> Result<Vec<Value>, String> {
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
fn read_lists(array: &dyn Array) -> Result<Vec<List>, String> {
    let list = array
        .as_list_opt::<i32>()
        .ok_or_else(|| format!("a {} column, not a list", array.data_type()))?;
    let values = read_values(list.values().as_ref())?;
    let offsets = list.value_offsets();
    Ok((0..list.len())
        .map(|r| {
            list.is_valid(r)
                .then(|| values[offsets[r] as usize..offsets[r + 1] as usize].to_vec())
        })
        .collect())
}

/// The one output column, checked to have Arrow type `ty` and the input's row count.
fn output_column<'a>(
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

/// The first row where `actual` and `expected` differ, if any.
fn same_rows<T: PartialEq + std::fmt::Debug>(actual: &[T], expected: &[T]) -> Verdict {
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
fn opcode(name: &str) -> Result<u16, String> {
    registry()
        .by_name(name)
        .map(|d| d.opcode)
        .ok_or_else(|| format!("{name} is not registered"))
}

/// A compiled program and its input batch.
struct Fixture<E> {
    compiled: CompiledCalc,
    input: ChangelogBatch,
    expected: E,
}

impl<E> ArrowBuffers for Fixture<E> {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

fn compiled(call: Expr, types: &[LogicalType]) -> CompiledCalc {
    compile(&CalcProgram::project(vec![call]), types)
        .unwrap_or_else(|e| panic!("the program compiles: {e}"))
}
