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

mod array_fixtures;

use array_fixtures::{
    Elem, Fixture, List, Shape, Value, WIDTHS, case_id, compiled, opcode_or_skip, output_column,
    read_lists, same_rows, shapes,
};
use bench_support::Suite;
use streamfusion::calc::Expr;

bench_support::counting_allocator!();

const ELEMENTS: [Elem; 3] = [Elem::Int, Elem::BigInt, Elem::Decimal];

fn main() {
    let mut suite = Suite::new("array_edits");
    for function in Edit::ALL {
        for elem in ELEMENTS {
            for shape in shapes(&WIDTHS, &[(false, false), (true, false), (true, true)]) {
                case(&mut suite, function, elem, shape);
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
    let id = case_id(function.flink_name(), elem, &shape);
    let Some(op) = opcode_or_skip(suite, &id, function.flink_name()) else {
        return;
    };
    suite.stateless(
        &id,
        || {
            let lists: Vec<List> = shape.elem_lists(elem);
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
