//! The `array_sort` suite: production ARRAY_SORT through compiled Calc.
//!
//! Measured boundary: `CompiledCalc::evaluate` of one batch, result allocation included; the
//! program (`ARRAY_SORT(array[, ascending[, nulls_first]])` with literal order flags) is
//! compiled, and the batch and expected arrays built, outside timing.
//!
//! Cases `<order>/<element>/rows=<n>/width=<w>/nulls=<b>/sliced=<b>`: 0/16/1,024 rows of arrays
//! of 0/8/31/64 TINYINT, SMALLINT, INT, BIGINT or DECIMAL(38, 9) elements, the type's extremes
//! included. Below 32 elements the values are drawn from half as many distinct values
//! (duplicates); at 64 each array's non-NULL values are distinct (see "Repeated values" below).
//! Orders: all four
//! `(ascending, nulls_first)` combinations as three arguments, plus the one-argument form
//! (ascending, NULLs first) and the two-argument descending form (NULLs last). Each shape comes
//! NULL-free and unsliced, or with one array in five and one element in seven NULL, read
//! through a slice at an unaligned offset.
//!
//! Oracle: Flink 2.3.0's `ArraySortFunction`, one row at a time over `Vec<Option<_>>`: NULL for
//! a NULL array; otherwise the non-NULL elements in ascending (descending) order with every
//! NULL element before (after) them; `nulls_first` defaults to `ascending`. The runner adds
//! allocation and Arrow-buffer probes.
//!
//! Repeated values: Flink's `ArraySortComparator` never returns 0 for two non-NULL values (it
//! answers "greater ? 1 : -1"), so `Arrays.sort`'s TimSort may reject an array of 32 or more
//! elements with repeated values ("Comparison method violates its general contract!"), failing
//! the job; shorter arrays go through its binary insertion sort, which never checks. The
//! `contract/int/...` cases hold a 64-element array that released JDK 17 rejects when sorting
//! ascending and sorts descending: production must fail the first and sort the second (the
//! timed call includes the failing evaluation).

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
const WIDTHS: [usize; 4] = [0, 8, 31, 64];
const ELEMENTS: [Elem; 5] = [
    Elem::TinyInt,
    Elem::SmallInt,
    Elem::Int,
    Elem::BigInt,
    Elem::Decimal,
];

/// The order arguments: `ascending` and `nulls_first` as written (`None`: argument omitted).
#[derive(Debug, Clone, Copy)]
struct Order {
    ascending: Option<bool>,
    nulls_first: Option<bool>,
}

const ORDERS: [Order; 6] = [
    Order::new(Some(true), Some(true)),
    Order::new(Some(true), Some(false)),
    Order::new(Some(false), Some(true)),
    Order::new(Some(false), Some(false)),
    Order::new(None, None),
    Order::new(Some(false), None),
];

impl Order {
    const fn new(ascending: Option<bool>, nulls_first: Option<bool>) -> Self {
        Order {
            ascending,
            nulls_first,
        }
    }

    fn id(self) -> String {
        let flag = |b: Option<bool>| b.map_or("default", |b| if b { "true" } else { "false" });
        format!(
            "asc={}_nulls_first={}",
            flag(self.ascending),
            flag(self.nulls_first)
        )
    }

    fn args(self) -> Vec<Expr> {
        let mut args = vec![Expr::input(0)];
        args.extend(
            [self.ascending, self.nulls_first]
                .into_iter()
                .flatten()
                .map(|b| Expr::lit(LogicalType::Boolean, b.to_string())),
        );
        args
    }

    /// Flink's result for one row.
    fn model(self, list: &List) -> List {
        let list = list.as_ref()?;
        let ascending = self.ascending.unwrap_or(true);
        let nulls_first = self.nulls_first.unwrap_or(ascending);
        let mut present: Vec<i128> = list.iter().flatten().copied().collect();
        present.sort_unstable();
        if !ascending {
            present.reverse();
        }
        let nulls = vec![None; list.len() - present.len()];
        let present = present.into_iter().map(Some);
        Some(if nulls_first {
            nulls.into_iter().chain(present).collect()
        } else {
            present.chain(nulls).collect()
        })
    }
}

fn main() {
    let mut suite = Suite::new("array_sort");
    for order in ORDERS {
        for elem in ELEMENTS {
            for rows in ROWS {
                for width in WIDTHS {
                    for (nulls, sliced) in [(false, false), (true, true)] {
                        let shape = Shape {
                            rows,
                            width,
                            nulls,
                            sliced,
                        };
                        case(&mut suite, order, elem, shape);
                    }
                }
            }
        }
    }
    contract_cases(&mut suite);
    suite.finish();
}

/// At this many elements Java's TimSort stops using binary insertion sort alone
/// (`TimSort.MIN_MERGE`).
const JAVA_MIN_MERGE: usize = 32;

/// Generated row `r`'s array: `shape.list`, with the non-NULL values of arrays of
/// `JAVA_MIN_MERGE` or more elements replaced by distinct ones (a shuffle of `width + 2`
/// domain values), so Flink's sort is defined for them.
fn sort_list(shape: &Shape, elem: Elem, r: usize) -> List {
    let mut list = shape.list(elem, r, 1)?;
    if shape.width >= JAVA_MIN_MERGE {
        let domain = shape.width as u64 + 2;
        let mut keys: Vec<u64> = (0..domain).collect();
        keys.sort_by_key(|&k| mix(r as u64, 0x50 + k));
        for (element, k) in list.iter_mut().zip(keys) {
            if element.is_some() {
                *element = Some(elem.value(k, domain));
            }
        }
    }
    Some(list)
}

/// An array released JDK 17's `Arrays.sort` rejects with Flink's ascending comparator (found by
/// sorting random arrays there) and sorts with the descending one.
const JDK_REJECTS_ASCENDING: [i32; 64] = [
    8, 25, 8, 7, 14, 1, 13, 21, 13, 20, 11, 31, 27, 3, 14, 27, 30, 25, 2, 22, 3, 30, 1, 29, 20, 29,
    23, 17, 16, 31, 21, 2, 17, 9, 28, 12, 25, 22, 30, 10, 24, 29, 5, 17, 15, 18, 31, 17, 8, 25, 23,
    13, 7, 30, 17, 20, 2, 6, 30, 8, 16, 31, 8, 8,
];

/// An evaluation's result or error (the error has no buffers).
struct Outcome(Result<ChangelogBatch, String>);

impl ArrowBuffers for Outcome {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        if let Ok(batch) = &self.0 {
            batch.collect_arrays(out);
        }
    }
}

/// The error Flink's sort fails with when TimSort rejects the comparator.
const CONTRACT_ERROR: &str = "Comparison method violates its general contract!";

fn contract_cases(suite: &mut Suite) {
    let op = match opcode("ARRAY_SORT") {
        Ok(op) => op,
        Err(why) => {
            for id in ["contract/int/ascending", "contract/int/descending"] {
                suite.skip(id, &why);
            }
            return;
        }
    };
    let shape = Shape {
        rows: 1,
        width: JDK_REJECTS_ASCENDING.len(),
        nulls: false,
        sliced: false,
    };
    let list: List = Some(
        JDK_REJECTS_ASCENDING
            .iter()
            .map(|&v| Some(v.into()))
            .collect(),
    );
    for ascending in [true, false] {
        let order = Order::new(Some(ascending), None);
        let list = list.clone();
        suite.stateless(
            if ascending {
                "contract/int/ascending"
            } else {
                "contract/int/descending"
            },
            || {
                let types = [Elem::Int.array_type()];
                Fixture {
                    compiled: compiled(Expr::call(op, order.args()), &types),
                    input: shape.batch(
                        &types,
                        vec![Elem::Int.list_column(std::slice::from_ref(&list))],
                    ),
                    // Ascending: the evaluation fails.
                    expected: (!ascending).then(|| vec![order.model(&list)]),
                }
            },
            |f| Outcome(f.compiled.evaluate(&f.input).map_err(|e| e.to_string())),
            |f, out| match (&f.expected, &out.0) {
                (None, Err(e)) if e.contains(CONTRACT_ERROR) => Ok(()),
                (None, Err(e)) => Err(format!("failed with {e}, expected {CONTRACT_ERROR:?}")),
                (None, Ok(_)) => Err(format!("sorted; Flink fails with {CONTRACT_ERROR:?}")),
                (Some(_), Err(e)) => Err(format!("failed: {e}")),
                (Some(expected), Ok(out)) => {
                    let column = output_column(out, 1, &Elem::Int.array_type())?;
                    same_rows(&read_lists(column.as_ref())?, expected)
                }
            },
        );
    }
}

fn case(suite: &mut Suite, order: Order, elem: Elem, shape: Shape) {
    let id = format!("{}/{}/{}", order.id(), elem.name(), shape.id());
    let op = match opcode("ARRAY_SORT") {
        Ok(op) => op,
        Err(why) => return suite.skip(&id, &why),
    };
    suite.stateless(
        &id,
        || {
            let lists: Vec<List> = (0..shape.generated())
                .map(|r| sort_list(&shape, elem, r))
                .collect();
            let expected: Vec<List> = lists.iter().map(|l| order.model(l)).collect();
            let types = [elem.array_type()];
            Fixture {
                compiled: compiled(Expr::call(op, order.args()), &types),
                input: shape.batch(&types, vec![elem.list_column(&lists)]),
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
