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

mod array_fixtures;

use array_fixtures::{
    Elem, Fixture, List, Shape, compiled, opcode, opcode_or_skip, output_column, read_lists,
    same_rows, shapes,
};
use arrow::array::ArrayData;
use bench_support::Suite;
use bench_support::buffers::ArrowBuffers;
use bench_support::fixtures::mix;
use streamfusion::calc::Expr;
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

bench_support::counting_allocator!();

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
            for shape in shapes(&WIDTHS, &[(false, false), (true, true)]) {
                case(&mut suite, order, elem, shape);
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
    let Some(op) = opcode_or_skip(suite, &id, "ARRAY_SORT") else {
        return;
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
