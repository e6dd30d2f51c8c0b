//! The `array_extrema` suite: production ARRAY_MIN and ARRAY_MAX through compiled Calc.
//!
//! Measured boundary: `CompiledCalc::evaluate` of one batch, result allocation included; the
//! program (`f(array)` over one input column) is compiled, and the batch and expected results
//! built, outside timing.
//!
//! 360 cases `<function>/<element>/rows=<n>/width=<w>/nulls=<b>/sliced=true`: 0/16/1,024 rows
//! of arrays of 0/8/31/32/33/64 TINYINT, SMALLINT, INT, BIGINT or DECIMAL(38, 9) elements
//! (31/32/33 straddle a 32-element reduction threshold), drawn from half as many distinct
//! values with the type's extremes among them. `nulls=true` makes one array in five and one
//! element in seven NULL. Every batch is read through a slice at an unaligned offset, so the
//! list offsets do not start at zero.
//!
//! Oracle: Flink 2.3.0's `ArrayMinFunction` / `ArrayMaxFunction`, one row at a time over
//! `Vec<Option<_>>`: NULL for a NULL or empty array, else the least (greatest) non-NULL element,
//! NULL when every element is NULL. The runner adds allocation and Arrow-buffer probes.

mod array_fixtures;

use array_fixtures::{
    Elem, Fixture, List, Shape, Value, case_id, compiled, opcode_or_skip, output_column,
    read_values, same_rows, shapes,
};
use bench_support::Suite;
use streamfusion::calc::Expr;

bench_support::counting_allocator!();

const WIDTHS: [usize; 6] = [0, 8, 31, 32, 33, 64];
const ELEMENTS: [Elem; 5] = [
    Elem::TinyInt,
    Elem::SmallInt,
    Elem::Int,
    Elem::BigInt,
    Elem::Decimal,
];

fn main() {
    let mut suite = Suite::new("array_extrema");
    for function in [Extremum::Min, Extremum::Max] {
        for elem in ELEMENTS {
            for shape in shapes(&WIDTHS, &[(false, true), (true, true)]) {
                case(&mut suite, function, elem, shape);
            }
        }
    }
    suite.finish();
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Extremum {
    Min,
    Max,
}

impl Extremum {
    fn flink_name(self) -> &'static str {
        match self {
            Extremum::Min => "ARRAY_MIN",
            Extremum::Max => "ARRAY_MAX",
        }
    }

    /// Flink's result for one row.
    fn model(self, list: &List) -> Value {
        let present = list.as_ref()?.iter().flatten().copied();
        match self {
            Extremum::Min => present.min(),
            Extremum::Max => present.max(),
        }
    }
}

fn case(suite: &mut Suite, function: Extremum, elem: Elem, shape: Shape) {
    let id = case_id(function.flink_name(), elem, &shape);
    let Some(op) = opcode_or_skip(suite, &id, function.flink_name()) else {
        return;
    };
    suite.stateless(
        &id,
        || {
            let lists: Vec<List> = shape.elem_lists(elem);
            let expected: Vec<Value> = lists.iter().map(|l| function.model(l)).collect();
            let types = [elem.array_type()];
            Fixture {
                compiled: compiled(Expr::call(op, vec![Expr::input(0)]), &types),
                input: shape.batch(&types, vec![elem.list_column(&lists)]),
                expected: shape.visible(&expected),
            }
        },
        |f| f.compiled.evaluate(&f.input).expect("evaluation"),
        |f, out| {
            let column = output_column(out, f.input.num_rows(), &elem.logical())?;
            same_rows(&read_values(column.as_ref())?, &f.expected)
        },
    );
}
