//! The `collection_expressions` suite: production collection functions over nested and
//! variable-width elements, through compiled Calc.
//!
//! Measured boundary: `CompiledCalc::evaluate` of one batch, result allocation included; the
//! program is compiled, and the batch and expected results built, outside timing.
//!
//! Cases (`rows` 0/16/1,024; `width` 0/8/64 elements per array; `nulls=true` makes one array
//! in five and one element in seven NULL; `sliced=true` reads the batch through a slice at an
//! unaligned offset):
//! - `array_distinct/<element>/...`: ARRAY_DISTINCT of BOOLEAN, INT, 8-byte ASCII and ~64-byte
//!   multi-byte UTF-8 STRING arrays whose values are `unique` within a row or `repeated` (three
//!   values).
//! - `cardinality/{array_int,map_int_string}/...`: CARDINALITY of arrays and of maps (distinct
//!   keys, NULL values), empty containers at width 0.
//! - `array_reverse/row/...`, `array_slice/row_start=2_end=-2/...`,
//!   `array_slice/row_start=column/...`: ARRAY_REVERSE and ARRAY_SLICE (literal bounds, or a
//!   per-row start from -width-2 to width+2, NULL in six with `nulls`) of
//!   `ARRAY<ROW<id INT, name STRING>>` with multi-byte names, in a batch carrying all four row
//!   kinds, which must come through unchanged.
//! - `array/<type>/args=<n>/...`: the ARRAY constructor over 1 or 4 columns of TINYINT,
//!   SMALLINT, INT, BIGINT, DOUBLE, BOOLEAN, DECIMAL(10, 2), DECIMAL(38, 9), DATE, TIME(3),
//!   TIMESTAMP(3) (compact) or TIMESTAMP(9) (expanded) values from bench-support's generators
//!   (extremes, NaN, signed zeros), staggered NULLs with `nulls`.
//!
//! Oracles, one row at a time over `Vec<Option<_>>`, following Flink 2.3.0's
//! `ArrayDistinctFunction` (first occurrences in order, NULL kept once), `CARDINALITY`
//! (element or entry count, NULL for NULL), `ArrayReverseFunction`, `ArraySliceFunction`
//! (1-based inclusive bounds, negative ones counting from the end, an end of 0 meaning 1, NULL
//! for a NULL array or bound, an empty array returned as is) and the ARRAY constructor (one
//! non-NULL array of the arguments, NULL elements kept; compared as DataFusion scalars read from
//! the input columns). The runner adds allocation and Arrow-buffer probes.
//!
//! UNNEST timing and the JDK offset lookups of temporal casts belong to other suites.

mod array_fixtures;

use std::fmt::Debug;
use std::sync::Arc;

use array_fixtures::{
    Fixture, ROWS, Shape, WIDTHS, compiled, opcode, output_column_with_kinds, read_lists_with,
    same_rows, shapes,
};
use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Int32Array, ListArray, StringArray, StructArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{DataType, Int32Type};
use bench_support::Suite;
use bench_support::fixtures::{self, NullPattern, mix};
use datafusion::common::ScalarValue;
use streamfusion::calc::Expr;
use streamfusion::types::{
    LogicalType, RowField, array_item_field, map_entry_fields, row_arrow_fields, timestamp_unit,
};

bench_support::counting_allocator!();

/// Flink's `STRING`.
const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);

fn main() {
    let mut suite = Suite::new("collection_expressions");
    for shape in shapes(&WIDTHS, &[(false, false), (true, true)]) {
        distinct_cases(&mut suite, shape);
        cardinality_cases(&mut suite, shape);
        reorder_cases(&mut suite, shape);
    }
    for rows in ROWS {
        for args in [1, 4] {
            for (nulls, sliced) in [(false, false), (true, true)] {
                let shape = Shape {
                    rows,
                    width: args,
                    nulls,
                    sliced,
                };
                for column in CONSTRUCTED {
                    constructor_case(&mut suite, &column, shape);
                }
            }
        }
    }
    suite.finish();
}

// ---------------------------------------------------------------------------------------------
// Elements.

/// One ARRAY value; `None` is a NULL array.
type List<V> = Option<Vec<Option<V>>>;

/// An element type: how its Arrow arrays are built and read, without production code.
trait Element: Clone + PartialEq + Debug {
    fn logical() -> LogicalType;
    fn column(values: &[Option<Self>]) -> ArrayRef;
    fn read(array: &dyn Array) -> Result<Vec<Option<Self>>, String>;
}

impl Element for bool {
    fn logical() -> LogicalType {
        LogicalType::Boolean
    }

    fn column(values: &[Option<Self>]) -> ArrayRef {
        Arc::new(values.iter().copied().collect::<BooleanArray>())
    }

    fn read(array: &dyn Array) -> Result<Vec<Option<Self>>, String> {
        let a = array
            .as_boolean_opt()
            .ok_or_else(|| format!("{} values, not BOOLEAN", array.data_type()))?;
        Ok((0..a.len())
            .map(|i| a.is_valid(i).then(|| a.value(i)))
            .collect())
    }
}

impl Element for i32 {
    fn logical() -> LogicalType {
        LogicalType::Int
    }

    fn column(values: &[Option<Self>]) -> ArrayRef {
        Arc::new(values.iter().copied().collect::<Int32Array>())
    }

    fn read(array: &dyn Array) -> Result<Vec<Option<Self>>, String> {
        let a = array
            .as_primitive_opt::<Int32Type>()
            .ok_or_else(|| format!("{} values, not INT", array.data_type()))?;
        Ok((0..a.len())
            .map(|i| a.is_valid(i).then(|| a.value(i)))
            .collect())
    }
}

impl Element for String {
    fn logical() -> LogicalType {
        STRING
    }

    fn column(values: &[Option<Self>]) -> ArrayRef {
        Arc::new(values.iter().cloned().collect::<StringArray>())
    }

    fn read(array: &dyn Array) -> Result<Vec<Option<Self>>, String> {
        let a = array
            .as_string_opt::<i32>()
            .ok_or_else(|| format!("{} values, not STRING", array.data_type()))?;
        Ok((0..a.len())
            .map(|i| a.is_valid(i).then(|| a.value(i).to_string()))
            .collect())
    }
}

/// A `ROW<id INT, name STRING>` value.
#[derive(Debug, Clone, PartialEq)]
struct Person {
    id: Option<i32>,
    name: Option<String>,
}

fn person_fields() -> Vec<RowField> {
    vec![
        RowField::new("id", LogicalType::Int),
        RowField::new("name", STRING),
    ]
}

impl Element for Person {
    fn logical() -> LogicalType {
        LogicalType::Row(person_fields())
    }

    fn column(values: &[Option<Self>]) -> ArrayRef {
        let ids: Vec<Option<i32>> = values
            .iter()
            .map(|v| v.as_ref().and_then(|p| p.id))
            .collect();
        let names: Vec<Option<String>> = values
            .iter()
            .map(|v| v.as_ref().and_then(|p| p.name.clone()))
            .collect();
        let nulls = NullBuffer::from(values.iter().map(Option::is_some).collect::<Vec<bool>>());
        Arc::new(
            StructArray::try_new(
                row_arrow_fields(&person_fields()),
                vec![i32::column(&ids), String::column(&names)],
                Some(nulls),
            )
            .expect("ROW fixture"),
        )
    }

    fn read(array: &dyn Array) -> Result<Vec<Option<Self>>, String> {
        let a = array
            .as_struct_opt()
            .ok_or_else(|| format!("{} values, not a ROW", array.data_type()))?;
        if a.num_columns() != 2 {
            return Err(format!("a ROW of {} fields, expected 2", a.num_columns()));
        }
        let ids = i32::read(a.column(0).as_ref())?;
        let names = String::read(a.column(1).as_ref())?;
        Ok(ids
            .into_iter()
            .zip(names)
            .enumerate()
            .map(|(i, (id, name))| a.is_valid(i).then_some(Person { id, name }))
            .collect())
    }
}

fn array_type<V: Element>() -> LogicalType {
    LogicalType::Array(Box::new(V::logical()))
}

fn list_column<V: Element>(lists: &[List<V>]) -> ArrayRef {
    let offsets = OffsetBuffer::from_lengths(lists.iter().map(|l| l.as_ref().map_or(0, Vec::len)));
    let flat: Vec<Option<V>> = lists.iter().flatten().flatten().cloned().collect();
    let nulls = NullBuffer::from(lists.iter().map(Option::is_some).collect::<Vec<bool>>());
    Arc::new(
        ListArray::try_new(
            array_item_field(&V::logical()),
            offsets,
            V::column(&flat),
            Some(nulls),
        )
        .expect("ARRAY fixture"),
    )
}

fn read_lists<V: Element>(array: &dyn Array) -> Result<Vec<List<V>>, String> {
    read_lists_with(array, V::read)
}

// ---------------------------------------------------------------------------------------------
// The shared case plumbing.

/// A case of `name(array, extra...)` over the lists and extra columns `build` makes, checked
/// against `model` row by row.
#[allow(clippy::too_many_arguments)]
fn list_case<V: Element, R: PartialEq + Debug + Clone>(
    suite: &mut Suite,
    id: &str,
    name: &str,
    shape: Shape,
    kinds: bool,
    build: impl FnOnce() -> (Vec<List<V>>, Vec<(LogicalType, ArrayRef)>, Vec<Expr>),
    model: impl Fn(usize, &List<V>) -> R,
    result: LogicalType,
    read: impl Fn(&dyn Array) -> Result<Vec<R>, String>,
) {
    let op = match opcode(name) {
        Ok(op) => op,
        Err(why) => return suite.skip(id, &why),
    };
    suite.stateless(
        id,
        || {
            let (lists, extra, extra_args) = build();
            let expected: Vec<R> = lists.iter().enumerate().map(|(r, l)| model(r, l)).collect();
            let mut types = vec![array_type::<V>()];
            let mut columns = vec![list_column(&lists)];
            for (t, c) in extra {
                types.push(t);
                columns.push(c);
            }
            let mut args = vec![Expr::input(0)];
            args.extend(extra_args);
            Fixture {
                compiled: compiled(Expr::call(op, args), &types),
                input: shape.batch_with_kinds(&types, columns, kinds),
                expected: shape.visible(&expected),
            }
        },
        |f| f.compiled.evaluate(&f.input).expect("evaluation"),
        |f, out| {
            let column = output_column_with_kinds(out, &f.input, &result)?;
            same_rows(&read(column.as_ref())?, &f.expected)
        },
    );
}

// ---------------------------------------------------------------------------------------------
// ARRAY_DISTINCT.

/// Flink's `ArrayDistinctFunction`: first occurrences in order (NULL once).
fn distinct<V: PartialEq + Clone>(list: &List<V>) -> List<V> {
    let mut out: Vec<Option<V>> = Vec::new();
    for v in list.as_ref()? {
        if !out.contains(v) {
            out.push(v.clone());
        }
    }
    Some(out)
}

fn distinct_case<V: Element>(
    suite: &mut Suite,
    element: &str,
    shape: Shape,
    pick: impl Fn(usize, usize, u64) -> V,
) {
    list_case::<V, List<V>>(
        suite,
        &format!("array_distinct/{element}/{}", shape.id()),
        "ARRAY_DISTINCT",
        shape,
        false,
        || (shape.lists(1, pick), vec![], vec![]),
        |_, l| distinct(l),
        array_type::<V>(),
        read_lists::<V>,
    );
}

/// A string of about `width` bytes for value `k`: ASCII, or two- to four-byte UTF-8.
fn text(k: u64, wide: bool) -> String {
    if wide {
        format!("{k:04}-Ærøskøbing-λόγος-日本語-😀-{}", "ü".repeat(12))
    } else {
        format!("v{k:07}")
    }
}

fn distinct_cases(suite: &mut Suite, shape: Shape) {
    let width = shape.width;
    distinct_case::<bool>(suite, "boolean_repeated", shape, |_, _, m| m % 2 == 1);
    for (values, unique) in [("unique", true), ("repeated", false)] {
        // Unique values: the element's position in the batch; repeated: one of three.
        let key = move |r: usize, j: usize, m: u64| {
            if unique {
                (r * width + j) as u64
            } else {
                m % 3
            }
        };
        distinct_case::<i32>(suite, &format!("int_{values}"), shape, move |r, j, m| {
            key(r, j, m) as i32 * 7 - 500
        });
        distinct_case::<String>(
            suite,
            &format!("string8_{values}"),
            shape,
            move |r, j, m| text(key(r, j, m), false),
        );
        distinct_case::<String>(
            suite,
            &format!("utf8_wide_{values}"),
            shape,
            move |r, j, m| text(key(r, j, m), true),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// CARDINALITY.

fn cardinality_cases(suite: &mut Suite, shape: Shape) {
    list_case::<i32, Option<i32>>(
        suite,
        &format!("cardinality/array_int/{}", shape.id()),
        "CARDINALITY",
        shape,
        false,
        || (shape.lists(1, |_, j, _| j as i32), vec![], vec![]),
        |_, l| l.as_ref().map(|l| l.len() as i32),
        LogicalType::Int,
        i32::read,
    );
    map_cardinality_case(suite, shape);
}

/// `MAP<INT, STRING>` values: keys `0..width` (distinct, never NULL), values strings with one
/// NULL in seven when `nulls`.
fn map_column(lists: &[List<String>]) -> (LogicalType, ArrayRef) {
    let ty = LogicalType::Map(Box::new(LogicalType::Int), Box::new(STRING));
    let DataType::List(entries_field) = ty.to_arrow() else {
        unreachable!("a MAP is an Arrow list")
    };
    let offsets = OffsetBuffer::from_lengths(lists.iter().map(|l| l.as_ref().map_or(0, Vec::len)));
    let keys: Vec<Option<i32>> = lists
        .iter()
        .flatten()
        .flat_map(|l| (0..l.len() as i32).map(Some))
        .collect();
    let values: Vec<Option<String>> = lists.iter().flatten().flatten().cloned().collect();
    let entries = StructArray::try_new(
        map_entry_fields(&LogicalType::Int, &STRING),
        vec![i32::column(&keys), String::column(&values)],
        None,
    )
    .expect("MAP entries fixture");
    let nulls = NullBuffer::from(lists.iter().map(Option::is_some).collect::<Vec<bool>>());
    let map = ListArray::try_new(entries_field, offsets, Arc::new(entries), Some(nulls))
        .expect("MAP fixture");
    (ty, Arc::new(map))
}

fn map_cardinality_case(suite: &mut Suite, shape: Shape) {
    let id = format!("cardinality/map_int_string/{}", shape.id());
    let op = match opcode("CARDINALITY") {
        Ok(op) => op,
        Err(why) => return suite.skip(&id, &why),
    };
    suite.stateless(
        &id,
        || {
            let maps = shape.lists(2, |_, _, m| text(m % 1_000, m.is_multiple_of(3)));
            let expected: Vec<Option<i32>> = maps
                .iter()
                .map(|l| l.as_ref().map(|l| l.len() as i32))
                .collect();
            let (ty, column) = map_column(&maps);
            let types = [ty];
            Fixture {
                compiled: compiled(Expr::call(op, vec![Expr::input(0)]), &types),
                input: shape.batch_with_kinds(&types, vec![column], false),
                expected: shape.visible(&expected),
            }
        },
        |f| f.compiled.evaluate(&f.input).expect("evaluation"),
        |f, out| {
            let column = output_column_with_kinds(out, &f.input, &LogicalType::Int)?;
            same_rows(&i32::read(column.as_ref())?, &f.expected)
        },
    );
}

// ---------------------------------------------------------------------------------------------
// ARRAY_REVERSE and ARRAY_SLICE over ROWs carrying strings.

fn people(shape: Shape) -> Vec<List<Person>> {
    shape.lists(3, |r, j, m| Person {
        id: (!m.is_multiple_of(11)).then_some((r * 100 + j) as i32),
        name: (!m.is_multiple_of(13)).then(|| text(m % 10_000, m.is_multiple_of(2))),
    })
}

/// Flink's `ArraySliceFunction.eval(array, start, end)` for a non-NULL array and bounds.
fn slice<V: Clone>(list: &[Option<V>], start: i32, end: Option<i32>) -> Vec<Option<V>> {
    let size = list.len() as i64;
    if size == 0 {
        return Vec::new();
    }
    let from_end = |p: i64| if p < 0 { p + size + 1 } else { p };
    let start = from_end(i64::from(start)).max(1);
    let end = match from_end(end.map_or(size, i64::from)) {
        0 => 1,
        e => e.min(size),
    };
    if end < start {
        return Vec::new();
    }
    list[(start - 1) as usize..end as usize].to_vec()
}

fn reorder_cases(suite: &mut Suite, shape: Shape) {
    list_case::<Person, List<Person>>(
        suite,
        &format!("array_reverse/row/{}", shape.id()),
        "ARRAY_REVERSE",
        shape,
        true,
        || (people(shape), vec![], vec![]),
        |_, l| l.as_ref().map(|l| l.iter().rev().cloned().collect()),
        array_type::<Person>(),
        read_lists::<Person>,
    );
    list_case::<Person, List<Person>>(
        suite,
        &format!("array_slice/row_start=2_end=-2/{}", shape.id()),
        "ARRAY_SLICE",
        shape,
        true,
        || {
            let int = |v: &str| Expr::lit(LogicalType::Int, v);
            (people(shape), vec![], vec![int("2"), int("-2")])
        },
        |_, l| l.as_ref().map(|l| slice(l, 2, Some(-2))),
        array_type::<Person>(),
        read_lists::<Person>,
    );
    // Per-row start positions from -width-2 to width+2; NULL in six with `nulls`.
    let span = shape.width as i64 + 2;
    let starts: Vec<Option<i32>> = (0..shape.generated())
        .map(|r| {
            let m = mix(r as u64, 0x5A);
            (!(shape.nulls && m.is_multiple_of(6)))
                .then(|| ((m >> 8) as i64 % (2 * span + 1) - span) as i32)
        })
        .collect();
    let column_starts = starts.clone();
    list_case::<Person, List<Person>>(
        suite,
        &format!("array_slice/row_start=column/{}", shape.id()),
        "ARRAY_SLICE",
        shape,
        true,
        || {
            let column = i32::column(&column_starts);
            (
                people(shape),
                vec![(LogicalType::Int, column)],
                vec![Expr::input(1)],
            )
        },
        |r, l| {
            let start = starts[r]?;
            l.as_ref().map(|l| slice(l, start, None))
        },
        array_type::<Person>(),
        read_lists::<Person>,
    );
}

// ---------------------------------------------------------------------------------------------
// The ARRAY constructor.

/// A constructor argument type and its generator (`len` values, with `nulls`).
struct Constructed {
    name: &'static str,
    ty: LogicalType,
    generate: fn(usize, NullPattern) -> ArrayRef,
}

const CONSTRUCTED: [Constructed; 12] = [
    Constructed {
        name: "tinyint",
        ty: LogicalType::TinyInt,
        generate: |n, p| Arc::new(fixtures::int8(n, p)),
    },
    Constructed {
        name: "smallint",
        ty: LogicalType::SmallInt,
        generate: |n, p| Arc::new(fixtures::int16(n, p)),
    },
    Constructed {
        name: "int",
        ty: LogicalType::Int,
        generate: |n, p| Arc::new(fixtures::int32(n, p)),
    },
    Constructed {
        name: "bigint",
        ty: LogicalType::BigInt,
        generate: |n, p| Arc::new(fixtures::int64(n, p)),
    },
    Constructed {
        name: "double",
        ty: LogicalType::Double,
        generate: |n, p| Arc::new(fixtures::float64(n, p)),
    },
    Constructed {
        name: "boolean",
        ty: LogicalType::Boolean,
        generate: |n, p| Arc::new(fixtures::booleans(n, p)),
    },
    Constructed {
        name: "decimal10_2",
        ty: LogicalType::Decimal {
            precision: 10,
            scale: 2,
        },
        generate: |n, p| Arc::new(fixtures::decimal128(n, 10, 2, p)),
    },
    Constructed {
        name: "decimal38_9",
        ty: LogicalType::Decimal {
            precision: 38,
            scale: 9,
        },
        generate: |n, p| Arc::new(fixtures::decimal128(n, 38, 9, p)),
    },
    Constructed {
        name: "date",
        ty: LogicalType::Date,
        generate: |n, p| Arc::new(fixtures::dates(n, p)),
    },
    Constructed {
        name: "time3",
        ty: LogicalType::Time(3),
        generate: |n, p| Arc::new(fixtures::times(n, p)),
    },
    Constructed {
        name: "timestamp3",
        ty: LogicalType::Timestamp(3),
        generate: |n, p| fixtures::timestamps(n, timestamp_unit(3), p),
    },
    Constructed {
        name: "timestamp9",
        ty: LogicalType::Timestamp(9),
        generate: |n, p| fixtures::timestamps(n, timestamp_unit(9), p),
    },
];

/// Every row's values as DataFusion scalars (`Debug` text, so NaN and -0.0 compare exactly).
type ScalarRows = Vec<Vec<String>>;

fn scalar_text(array: &dyn Array, i: usize) -> Result<String, String> {
    ScalarValue::try_from_array(array, i)
        .map(|v| format!("{v:?}"))
        .map_err(|e| e.to_string())
}

fn constructor_case(suite: &mut Suite, column: &Constructed, shape: Shape) {
    let args = shape.width;
    let id = format!(
        "array/{}/args={args}/rows={}/nulls={}/sliced={}",
        column.name, shape.rows, shape.nulls, shape.sliced
    );
    let op = match opcode("ARRAY") {
        Ok(op) => op,
        Err(why) => return suite.skip(&id, &why),
    };
    let element = column.ty.clone();
    let result = LogicalType::Array(Box::new(element.clone()));
    suite.stateless(
        &id,
        || {
            let len = shape.generated();
            let columns: Vec<ArrayRef> = (0..args)
                .map(|j| {
                    let nulls = if shape.nulls {
                        NullPattern::RowColumn {
                            column: j,
                            modulus: 5,
                        }
                    } else {
                        NullPattern::None
                    };
                    // Each argument starts further into the generator's sequence.
                    (column.generate)(len + 7 * j, nulls).slice(7 * j, len)
                })
                .collect();
            let types = vec![element.clone(); args];
            let input = shape.batch_with_kinds(&types, columns, false);
            let batch = input.batch();
            let expected: ScalarRows = (0..batch.num_rows())
                .map(|r| {
                    (0..args)
                        .map(|j| scalar_text(batch.column(j).as_ref(), r))
                        .collect::<Result<_, _>>()
                })
                .collect::<Result<_, _>>()
                .expect("fixture scalars");
            Fixture {
                compiled: compiled(Expr::call(op, (0..args).map(Expr::input).collect()), &types),
                input,
                expected,
            }
        },
        |f| f.compiled.evaluate(&f.input).expect("evaluation"),
        |f, out| {
            let column = output_column_with_kinds(out, &f.input, &result)?;
            let list = column
                .as_list_opt::<i32>()
                .ok_or("the ARRAY result is not a list")?;
            let offsets = list.value_offsets();
            let actual: ScalarRows = (0..list.len())
                .map(|r| {
                    if list.is_null(r) {
                        return Err(format!("row {r}: the constructed ARRAY is NULL"));
                    }
                    (offsets[r] as usize..offsets[r + 1] as usize)
                        .map(|i| scalar_text(list.values().as_ref(), i))
                        .collect()
                })
                .collect::<Result<_, _>>()?;
            same_rows(&actual, &f.expected)
        },
    );
}
