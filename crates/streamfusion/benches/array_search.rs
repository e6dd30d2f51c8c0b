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

mod array_fixtures;

use array_fixtures::{
    Elem, Fixture, List, Shape, Value, WIDTHS, case_id, compiled, opcode_or_skip, output_column,
    read_values, same_rows, shapes,
};
use bench_support::Suite;
use streamfusion::calc::Expr;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

const ELEMENTS: [Elem; 4] = [Elem::Int, Elem::BigInt, Elem::Boolean, Elem::Decimal];

fn main() {
    let mut suite = Suite::new("array_search");
    for function in [Search::Contains, Search::Position] {
        for elem in ELEMENTS {
            for shape in shapes(&WIDTHS, &[(false, false), (true, false), (true, true)]) {
                case(&mut suite, function, elem, shape);
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
    let id = case_id(function.flink_name(), elem, &shape);
    let Some(op) = opcode_or_skip(suite, &id, function.flink_name()) else {
        return;
    };
    suite.stateless(
        &id,
        || {
            let lists: Vec<List> = shape.elem_lists(elem);
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
