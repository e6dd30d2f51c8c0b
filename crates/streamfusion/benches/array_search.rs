//! The `array_search` suite: production ARRAY_CONTAINS and ARRAY_POSITION through compiled Calc.
//!
//! Measured boundary: `CompiledCalc::evaluate` of one batch, result allocation included; the
//! program (`f(array, needle)` over two input columns) is compiled, and the batch and expected
//! results built, outside timing.
//!
//! Cases `<function>/<element>/rows=<n>/width=<w>/nulls=<b>/sliced=<b>`: 0/16/1,024 rows of
//! arrays of 0/8/64 INTEGER, BIGINT, BOOLEAN or DECIMAL(38, 9) elements drawn from half as many
//! distinct values (duplicates; the type's extremes included), with a per-row needle that is
//! one of the row's elements, a value no array holds (a miss), or NULL. `nulls=true` makes one
//! array in five and one element in seven NULL; `sliced=true` reads the batch through a slice at
//! an unaligned offset.
//!
//! Oracle: Flink 2.3.0's `ArrayContainsFunction` / `ArrayPositionFunction`, one row at a time
//! over `Vec<Option<_>>`: a NULL array gives NULL; CONTAINS with a NULL needle is whether a NULL
//! element exists; POSITION with a NULL needle is NULL, else the 1-based position of the first
//! equal non-NULL element, 0 if none. The runner adds allocation and Arrow-buffer probes.

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
const ELEMENTS: [Elem; 4] = [Elem::Int, Elem::BigInt, Elem::Boolean, Elem::Decimal];

fn main() {
    let mut suite = Suite::new("array_search");
    for function in [Search::Contains, Search::Position] {
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
enum Search {
    Contains,
    Position,
}

impl Search {
    fn flink_name(self) -> &'static str {
        match self {
            Search::Contains => "ARRAY_CONTAINS",
            Search::Position => "ARRAY_POSITION",
        }
    }

    fn result(self) -> LogicalType {
        match self {
            Search::Contains => LogicalType::Boolean,
            Search::Position => LogicalType::Int,
        }
    }

    /// Flink's result for one row (BOOLEAN as 0/1).
    fn model(self, list: &List, needle: Value) -> Value {
        let list = list.as_ref()?;
        match self {
            Search::Contains => Some(i128::from(list.contains(&needle))),
            Search::Position => {
                let needle = needle?;
                let at = list.iter().position(|e| *e == Some(needle));
                Some(at.map_or(0, |i| i as i128 + 1))
            }
        }
    }
}

fn case(suite: &mut Suite, function: Search, elem: Elem, shape: Shape) {
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
            let needles: Vec<Value> = lists
                .iter()
                .enumerate()
                .map(|(r, l)| shape.needle(elem, r, l))
                .collect();
            let expected: Vec<Value> = lists
                .iter()
                .zip(&needles)
                .map(|(l, n)| function.model(l, *n))
                .collect();
            let types = [elem.array_type(), elem.logical()];
            Fixture {
                compiled: compiled(Expr::call(op, vec![Expr::input(0), Expr::input(1)]), &types),
                input: shape.batch(
                    &types,
                    vec![elem.list_column(&lists), elem.column(&needles)],
                ),
                expected: shape.visible(&expected),
            }
        },
        |f| f.compiled.evaluate(&f.input).expect("evaluation"),
        |f, out| {
            let column = output_column(out, f.input.num_rows(), &function.result())?;
            same_rows(&read_values(column.as_ref())?, &f.expected)
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
