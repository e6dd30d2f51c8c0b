//! Calc programs: compilation errors, evaluation against row-at-a-time models, row kinds,
//! filters, and the laziness of CASE/COALESCE.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Decimal128Array, Float64Array, Int8Array, Int32Array,
    Int64Array, RecordBatch, StringArray,
};
use arrow::datatypes::{Decimal128Type, Float64Type, Int32Type, Int64Type};
use streamfusion::calc::functions::{arithmetic as ar, comparison as cmp, string};
use streamfusion::calc::{CalcError, CalcProgram, Expr, compile};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;

fn batch(columns: Vec<ArrayRef>) -> RecordBatch {
    RecordBatch::try_from_iter(
        columns
            .into_iter()
            .enumerate()
            .map(|(i, c)| (format!("c{i}"), c)),
    )
    .unwrap()
}

fn int(v: i32) -> Expr {
    Expr::lit(LogicalType::Int, v.to_string())
}

fn run(program: &CalcProgram, input: &[LogicalType], columns: Vec<ArrayRef>) -> ChangelogBatch {
    compile(program, input)
        .unwrap()
        .evaluate(&ChangelogBatch::insert_only(batch(columns)))
        .unwrap()
}

/// SplitMix64: a published, seedable generator for inputs.
fn values(seed: u64, n: usize) -> Vec<u64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

#[test]
fn integer_arithmetic_wraps_like_java() {
    let raw = values(7, 2_000);
    let a: Vec<Option<i32>> = raw
        .iter()
        .map(|v| (v % 11 != 0).then_some(*v as i32))
        .collect();
    let b: Vec<Option<i64>> = raw
        .iter()
        .map(|v| (v % 13 != 0).then_some((v >> 7) as i64 % 1_000 + 1))
        .collect();
    let program = CalcProgram::project(vec![
        // INT + BIGINT is BIGINT; INT * INT wraps at 32 bits; INT / BIGINT truncates.
        Expr::call(ar::PLUS, vec![Expr::input(0), Expr::input(1)]),
        Expr::call(ar::TIMES, vec![Expr::input(0), Expr::input(0)]),
        Expr::call(ar::DIVIDE, vec![Expr::input(0), Expr::input(1)]),
        Expr::call(ar::MOD, vec![Expr::input(0), Expr::input(1)]),
        Expr::call(ar::UNARY_MINUS, vec![Expr::input(0)]),
    ]);
    let out = run(
        &program,
        &[LogicalType::Int, LogicalType::BigInt],
        vec![
            Arc::new(Int32Array::from(a.clone())),
            Arc::new(Int64Array::from(b.clone())),
        ],
    );
    let c = out.batch().columns();
    for i in 0..a.len() {
        let both = a[i].zip(b[i]);
        let get64 = |col: &ArrayRef| {
            let col = col.as_primitive::<Int64Type>();
            col.is_valid(i).then(|| col.value(i))
        };
        let get32 = |col: &ArrayRef| {
            let col = col.as_primitive::<Int32Type>();
            col.is_valid(i).then(|| col.value(i))
        };
        assert_eq!(
            get64(&c[0]),
            both.map(|(x, y)| i64::from(x).wrapping_add(y))
        );
        assert_eq!(get32(&c[1]), a[i].map(|x| x.wrapping_mul(x)));
        assert_eq!(get64(&c[2]), both.map(|(x, y)| i64::from(x) / y));
        // MOD takes the second operand's type: BIGINT here.
        assert_eq!(get64(&c[3]), both.map(|(x, y)| i64::from(x) % y));
        assert_eq!(get32(&c[4]), a[i].map(i32::wrapping_neg));
    }
    assert_eq!(
        compile(&program, &[LogicalType::Int, LogicalType::BigInt])
            .unwrap()
            .output_types(),
        [
            LogicalType::BigInt,
            LogicalType::Int,
            LogicalType::BigInt,
            LogicalType::BigInt,
            LogicalType::Int
        ]
    );
}

#[test]
fn integer_division_edge_cases() {
    let program = CalcProgram::project(vec![
        Expr::call(ar::DIVIDE, vec![Expr::input(0), Expr::input(1)]),
        Expr::call(ar::MOD, vec![Expr::input(0), Expr::input(1)]),
    ]);
    let out = run(
        &program,
        &[LogicalType::Int, LogicalType::Int],
        vec![
            Arc::new(Int32Array::from(vec![i32::MIN, 7, -7, 5])),
            Arc::new(Int32Array::from(vec![-1, -2, 2, 5])),
        ],
    );
    let c = out.batch().columns();
    assert_eq!(
        c[0].as_primitive::<Int32Type>().values(),
        &[i32::MIN, -3, -3, 1]
    );
    assert_eq!(c[1].as_primitive::<Int32Type>().values(), &[0, 1, -1, 0]);

    let err = compile(&program, &[LogicalType::Int, LogicalType::Int])
        .unwrap()
        .evaluate(&ChangelogBatch::insert_only(batch(vec![
            Arc::new(Int32Array::from(vec![1, 2])),
            Arc::new(Int32Array::from(vec![1, 0])),
        ])))
        .unwrap_err();
    assert!(
        matches!(&err, CalcError::Evaluation { message, .. } if message.contains("/ by zero")),
        "{err}"
    );
    // A NULL divisor is NULL, not a division by zero.
    let out = run(
        &program,
        &[LogicalType::Int, LogicalType::Int],
        vec![
            Arc::new(Int32Array::from(vec![Some(1)])),
            Arc::new(Int32Array::from(vec![None])),
        ],
    );
    assert!(out.batch().column(0).is_null(0));
}

#[test]
fn decimal_arithmetic_rounds_half_up_and_overflows_to_null() {
    let d = |p, s| LogicalType::Decimal {
        precision: p,
        scale: s,
    };
    let program = CalcProgram::project(vec![
        Expr::call(ar::PLUS, vec![Expr::input(0), Expr::input(1)]),
        Expr::call(ar::TIMES, vec![Expr::input(0), Expr::input(1)]),
        Expr::call(ar::DIVIDE, vec![Expr::input(0), Expr::input(1)]),
        Expr::call(ar::PLUS, vec![Expr::input(0), int(1)]),
    ]);
    let input = [d(5, 2), d(3, 1)];
    let compiled = compile(&program, &input).unwrap();
    // Hand-computed with LogicalTypeMerging's formulas.
    assert_eq!(
        compiled.output_types(),
        [d(6, 2), d(9, 3), d(10, 6), d(13, 2)]
    );
    let a = Decimal128Array::from(vec![Some(12_345), Some(-99_999), None])
        .with_precision_and_scale(5, 2)
        .unwrap();
    let b = Decimal128Array::from(vec![Some(7), Some(-999), Some(1)])
        .with_precision_and_scale(3, 1)
        .unwrap();
    let out = compiled
        .evaluate(&ChangelogBatch::insert_only(batch(vec![
            Arc::new(a),
            Arc::new(b),
        ])))
        .unwrap();
    let col = |i: usize| {
        let c = out.batch().column(i).as_primitive::<Decimal128Type>();
        (0..c.len())
            .map(|r| c.is_valid(r).then(|| c.value(r)))
            .collect::<Vec<_>>()
    };
    // 123.45 + 0.7 = 124.15; -999.99 + -99.9 = -1099.89.
    assert_eq!(col(0), [Some(12_415), Some(-109_989), None]);
    // 123.45 * 0.7 = 86.415; -999.99 * -99.9 = 99899.001.
    assert_eq!(col(1), [Some(86_415), Some(99_899_001), None]);
    // 123.45 / 0.7 = 176.357142857... -> 176.357143 (HALF_UP); -999.99 / -99.9 = 10.009909909.. -> 10.009910.
    assert_eq!(col(2), [Some(176_357_143), Some(10_009_910), None]);
    assert_eq!(col(3), [Some(12_445), Some(-99_899), None]);
}

#[test]
fn double_comparisons_follow_java_primitives() {
    let values = [0.0, -0.0, f64::NAN, 1.0, f64::NAN];
    let others = [-0.0, 0.0, f64::NAN, f64::NAN, 1.0];
    let program = CalcProgram::project(vec![
        Expr::call(cmp::EQUALS, vec![Expr::input(0), Expr::input(1)]),
        Expr::call(cmp::NOT_EQUALS, vec![Expr::input(0), Expr::input(1)]),
        Expr::call(cmp::LESS_THAN, vec![Expr::input(0), Expr::input(1)]),
        Expr::call(
            cmp::GREATER_THAN_OR_EQUAL,
            vec![Expr::input(0), Expr::input(1)],
        ),
    ]);
    let out = run(
        &program,
        &[LogicalType::Double, LogicalType::Double],
        vec![
            Arc::new(Float64Array::from(values.to_vec())),
            Arc::new(Float64Array::from(others.to_vec())),
        ],
    );
    let col = |i: usize| -> Vec<bool> {
        out.batch()
            .column(i)
            .as_boolean()
            .iter()
            .map(Option::unwrap)
            .collect()
    };
    let model = |f: fn(f64, f64) -> bool| -> Vec<bool> {
        values.iter().zip(&others).map(|(&a, &b)| f(a, b)).collect()
    };
    #[allow(clippy::float_cmp)]
    {
        assert_eq!(col(0), model(|a, b| a == b));
        assert_eq!(col(1), model(|a, b| a != b));
        assert_eq!(col(2), model(|a, b| a < b));
        assert_eq!(col(3), model(|a, b| a >= b));
    }
    // INT compared with DOUBLE compares as DOUBLE.
    let out = run(
        &CalcProgram::project(vec![Expr::call(
            cmp::EQUALS,
            vec![Expr::input(0), Expr::lit(LogicalType::Double, "2.0")],
        )]),
        &[LogicalType::Int],
        vec![Arc::new(Int32Array::from(vec![2, 3]))],
    );
    assert_eq!(
        out.batch().column(0).as_boolean(),
        &BooleanArray::from(vec![true, false])
    );
}

#[test]
fn filter_keeps_row_kinds_and_projects_only_kept_rows() {
    // The projection divides by the input: rows with 0 are filtered out first, so the
    // division never sees them.
    let program = CalcProgram::project(vec![
        Expr::call(ar::DIVIDE, vec![int(100), Expr::input(0)]),
        Expr::input(1),
    ])
    .with_filter(Expr::call(cmp::NOT_EQUALS, vec![Expr::input(0), int(0)]));
    let input = [LogicalType::Int, LogicalType::VarChar(10)];
    let compiled = compile(&program, &input).unwrap();
    let rows = ChangelogBatch::try_new(
        batch(vec![
            Arc::new(Int32Array::from(vec![
                Some(0),
                Some(5),
                None,
                Some(-3),
                Some(0),
            ])),
            Arc::new(StringArray::from(vec!["a", "b", "c", "d", "e"])),
        ]),
        Some(Int8Array::from(vec![0, 1, 2, 3, 0])),
    )
    .unwrap();
    let out = compiled.evaluate(&rows).unwrap();
    // NULL <> 0 is NULL: dropped like FALSE.
    assert_eq!(out.kinds().unwrap().values(), &[1, 3]);
    assert_eq!(
        out.batch().column(0).as_primitive::<Int32Type>().values(),
        &[20, -33]
    );
    assert_eq!(
        out.batch().column(1).as_string::<i32>(),
        &StringArray::from(vec!["b", "d"])
    );
    // Chunked input gives the concatenation of the whole input's output.
    let mut kinds = Vec::new();
    for offset in 0..rows.num_rows() {
        let part = compiled.evaluate(&rows.slice(offset, 1)).unwrap();
        kinds.extend(
            part.kinds()
                .map(|k| k.values().to_vec())
                .unwrap_or_default(),
        );
    }
    assert_eq!(kinds, [1, 3]);
}

#[test]
fn case_and_coalesce_evaluate_a_branch_only_where_it_is_taken() {
    // CASE WHEN b = 0 THEN -1 ELSE a / b END never divides by zero.
    let program = CalcProgram::project(vec![
        Expr::case(
            vec![(
                Expr::call(cmp::EQUALS, vec![Expr::input(1), int(0)]),
                Expr::lit(LogicalType::BigInt, "-1"),
            )],
            Some(Expr::call(ar::DIVIDE, vec![Expr::input(0), Expr::input(1)])),
        ),
        // COALESCE(a, 10 / b): the division runs only where a is NULL.
        Expr::Coalesce(vec![
            Expr::input(0),
            Expr::call(ar::DIVIDE, vec![int(10), Expr::input(1)]),
        ]),
        Expr::if_(
            Expr::call(cmp::IS_NULL, vec![Expr::input(0)]),
            Expr::lit(LogicalType::VarChar(4), "none"),
            Expr::lit(LogicalType::Char(2), "ok"),
        ),
    ]);
    let out = run(
        &program,
        &[LogicalType::Int, LogicalType::Int],
        vec![
            Arc::new(Int32Array::from(vec![Some(9), None, Some(8)])),
            Arc::new(Int32Array::from(vec![0, 5, 2])),
        ],
    );
    let c = out.batch().columns();
    // INT and BIGINT results widen to BIGINT.
    assert_eq!(
        c[0].as_primitive::<Int64Type>().iter().collect::<Vec<_>>(),
        [Some(-1), None, Some(4)]
    );
    assert_eq!(c[1].as_primitive::<Int32Type>().values(), &[9, 2, 8]);
    assert_eq!(
        c[2].as_string::<i32>(),
        &StringArray::from(vec!["ok", "none", "ok"])
    );
}

#[test]
fn and_or_evaluate_their_right_side_only_where_needed() {
    // b <> 0 AND 10 / b > 1, and b = 0 OR 10 / b > 1: never a division by zero.
    let divides = Expr::call(
        cmp::GREATER_THAN,
        vec![
            Expr::call(ar::DIVIDE, vec![int(10), Expr::input(0)]),
            int(1),
        ],
    );
    let program = CalcProgram::project(vec![
        Expr::And(vec![
            Expr::call(cmp::NOT_EQUALS, vec![Expr::input(0), int(0)]),
            divides.clone(),
        ]),
        Expr::Or(vec![
            Expr::call(cmp::EQUALS, vec![Expr::input(0), int(0)]),
            divides,
        ]),
    ]);
    let out = run(
        &program,
        &[LogicalType::Int],
        vec![Arc::new(Int32Array::from(vec![
            Some(0),
            Some(5),
            None,
            Some(20),
            Some(0),
        ]))],
    );
    let col = |i: usize| {
        out.batch()
            .column(i)
            .as_boolean()
            .iter()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        col(0),
        [Some(false), Some(true), None, Some(false), Some(false)]
    );
    assert_eq!(
        col(1),
        [Some(true), Some(true), None, Some(false), Some(true)]
    );
}

#[test]
fn three_valued_logic() {
    let b = |v: Option<bool>| v;
    let all = [b(Some(true)), b(Some(false)), b(None)];
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for x in all {
        for y in all {
            xs.push(x);
            ys.push(y);
        }
    }
    let program = CalcProgram::project(vec![
        Expr::And(vec![Expr::input(0), Expr::input(1)]),
        Expr::Or(vec![Expr::input(0), Expr::input(1)]),
        Expr::Not(Box::new(Expr::input(0))),
        Expr::call(cmp::IS_NOT_TRUE, vec![Expr::input(0)]),
    ]);
    let out = run(
        &program,
        &[LogicalType::Boolean, LogicalType::Boolean],
        vec![
            Arc::new(BooleanArray::from(xs.clone())),
            Arc::new(BooleanArray::from(ys.clone())),
        ],
    );
    // SQL's truth tables, written out.
    let and = |x: Option<bool>, y: Option<bool>| match (x, y) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    };
    let or = |x: Option<bool>, y: Option<bool>| match (x, y) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    };
    let col = |i: usize| {
        out.batch()
            .column(i)
            .as_boolean()
            .iter()
            .collect::<Vec<_>>()
    };
    for i in 0..xs.len() {
        assert_eq!(col(0)[i], and(xs[i], ys[i]), "{:?} AND {:?}", xs[i], ys[i]);
        assert_eq!(col(1)[i], or(xs[i], ys[i]), "{:?} OR {:?}", xs[i], ys[i]);
        assert_eq!(col(2)[i], xs[i].map(|x| !x));
        assert_eq!(col(3)[i], Some(xs[i] != Some(true)));
    }
}

#[test]
fn compile_errors_name_the_expression() {
    let input = [LogicalType::Int, LogicalType::VarChar(5)];
    let cases: Vec<(CalcProgram, &str)> = vec![
        (
            CalcProgram::project(vec![Expr::call(9_999, vec![])]),
            "projection[0]: unknown function opcode 9999",
        ),
        (
            CalcProgram::project(vec![int(1), Expr::call(ar::PLUS, vec![Expr::input(0)])]),
            "projection[1]:+: + takes 2 argument(s), not 1",
        ),
        (
            CalcProgram::project(vec![Expr::call(
                ar::PLUS,
                vec![Expr::input(0), Expr::input(1)],
            )]),
            "projection[0]:+: +(INT, VARCHAR(5)) is not supported",
        ),
        (
            CalcProgram::project(vec![Expr::lit(LogicalType::TinyInt, "300")]),
            "projection[0]: bad TINYINT literal",
        ),
        (
            CalcProgram::project(vec![Expr::input(2)]),
            "projection[0]: input field 2 does not exist (the input has 2 fields)",
        ),
        (
            CalcProgram::project(vec![int(1)]).with_filter(Expr::input(0)),
            "filter: expected BOOLEAN, found INT",
        ),
        (
            CalcProgram::project(vec![Expr::call(
                string::CHAR_LENGTH,
                vec![Expr::call(ar::PLUS, vec![Expr::input(0), Expr::input(0)])],
            )]),
            "projection[0]:CHAR_LENGTH: CHAR_LENGTH(INT)",
        ),
        (
            CalcProgram::project(vec![Expr::case(
                vec![(Expr::lit(LogicalType::Boolean, "true"), Expr::input(0))],
                Some(Expr::input(1)),
            )]),
            "projection[0]: INT and VARCHAR(5) have no common type",
        ),
    ];
    for (program, expected) in cases {
        let err = compile(&program, &input).unwrap_err();
        assert!(
            err.to_string().starts_with(expected),
            "{err}\nexpected: {expected}"
        );
    }
    let compiled = compile(&CalcProgram::project(vec![Expr::input(0)]), &input).unwrap();
    let err = compiled
        .evaluate(&ChangelogBatch::insert_only(batch(vec![Arc::new(
            Int64Array::from(vec![1]),
        )])))
        .unwrap_err();
    assert!(matches!(err, CalcError::InputSchema { .. }), "{err}");
}

#[test]
fn programs_round_trip_through_json_and_evaluate_the_same() {
    let program = CalcProgram::project(vec![
        Expr::call(
            ar::PLUS,
            vec![Expr::input(0), Expr::lit(LogicalType::Double, "0.5")],
        ),
        Expr::null(LogicalType::VarChar(3)),
    ])
    .with_filter(Expr::call(cmp::IS_NOT_NULL, vec![Expr::input(0)]));
    let decoded = CalcProgram::from_json(&program.to_json()).unwrap();
    assert_eq!(decoded, program);
    let out = run(
        &decoded,
        &[LogicalType::Int],
        vec![Arc::new(Int32Array::from(vec![Some(1), None, Some(-4)]))],
    );
    assert_eq!(
        out.batch().column(0).as_primitive::<Float64Type>().values(),
        &[1.5, -3.5]
    );
    assert_eq!(out.batch().column(1).null_count(), 2);
}

#[test]
fn calc_runs_as_an_operator_from_its_json_plan_keeping_row_kinds() {
    use streamfusion::ops::{OperatorPlan, Output};
    use streamfusion::{ErrorKind, ops::StateConfig};

    // SELECT f1 + 1, f0 WHERE f0 IS NOT NULL (op 100 is `+`, 207 IS NOT NULL).
    let plan = OperatorPlan::from_json(
        r#"{"operator": "calc", "input": ["BIGINT", "INT"],
            "calc": {"projection": [
                {"call": {"op": 100, "args": [{"input": 1}, {"literal": {"type": "INT", "value": "1"}}]}},
                {"input": 0}],
              "filter": {"call": {"op": 207, "args": [{"input": 0}]}}}}"#,
    )
    .unwrap();
    let mut op = plan.build(&StateConfig::memory(), None).unwrap();
    assert_eq!(op.output_types(), [LogicalType::Int, LogicalType::BigInt]);
    let input = ChangelogBatch::try_new(
        batch(vec![
            Arc::new(Int64Array::from(vec![Some(1), None, Some(3)])),
            Arc::new(Int32Array::from(vec![Some(10), Some(20), None])),
        ]),
        Some(Int8Array::from(vec![0, 3, 3])),
    )
    .unwrap();
    let mut out = Output::new();
    op.process(0, &input, &mut out).unwrap();
    op.advance_watermark(77, &mut out).unwrap();
    let [got] = &out.take()[..] else {
        panic!("one batch")
    };
    let kinds: Vec<i8> = (0..got.num_rows()).map(|i| got.kind(i).to_byte()).collect();
    assert_eq!(kinds, [0, 3], "the NULL f0 row is filtered, kinds kept");
    assert_eq!(
        got.batch().column(0).as_ref(),
        &Int32Array::from(vec![Some(11), None]) as &dyn Array
    );

    // A checkpoint holds the watermark; another program cannot restore it.
    let dir = tempfile::tempdir().unwrap();
    let published = op.checkpoint(&dir.path().join("c")).unwrap();
    let restored = plan
        .restore(
            &StateConfig::memory(),
            None,
            std::slice::from_ref(&published),
        )
        .unwrap();
    assert_eq!(restored.watermark(), Some(77));
    let other = OperatorPlan::from_json(
        r#"{"operator": "calc", "input": ["BIGINT", "INT"],
            "calc": {"projection": [{"input": 0}]}}"#,
    )
    .unwrap();
    let err = other
        .restore(&StateConfig::memory(), None, &[published])
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::State);
    assert!(err.to_string().contains("calc.projection"), "{err}");
    // A program that does not compile is a plan error.
    let bad = OperatorPlan::from_json(
        r#"{"operator": "calc", "input": ["INT"], "calc": {"projection": [{"input": 3}]}}"#,
    )
    .unwrap();
    let err = bad.build(&StateConfig::memory(), None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Plan, "{err}");
}

/// A model host: upcall 0 is `x * x` as BIGINT over an INT (NULL for NULL), upcall 1 fails
/// with a message; records how many rows each call received.
#[derive(Debug, Default)]
struct SquareHost {
    rows_seen: std::sync::Mutex<Vec<usize>>,
}

impl streamfusion::calc::UpcallHost for SquareHost {
    fn evaluate(
        &self,
        index: usize,
        args: &[ArrayRef],
        arg_types: &[LogicalType],
        ty: &LogicalType,
        rows: usize,
    ) -> Result<ArrayRef, String> {
        assert_eq!(arg_types, [LogicalType::Int]);
        assert_eq!(ty, &LogicalType::BigInt);
        self.rows_seen.lock().unwrap().push(rows);
        match index {
            0 => Ok(Arc::new(
                args[0]
                    .as_primitive::<Int32Type>()
                    .iter()
                    .map(|x| x.map(|x| i64::from(x) * i64::from(x)))
                    .collect::<Int64Array>(),
            )),
            1 => Err("java.lang.ArithmeticException: boom".into()),
            _ => Ok(Arc::new(Int64Array::from(vec![0i64; rows + 1]))),
        }
    }
}

fn upcall(index: usize, arg: Expr) -> Expr {
    Expr::Upcall(streamfusion::calc::Upcall {
        index,
        args: vec![arg],
        arguments: vec![LogicalType::Int],
        ty: LogicalType::BigInt,
    })
}

fn upcall_program(projection: Vec<Expr>) -> CalcProgram {
    let mut program = CalcProgram::project(projection);
    program.upcalls = (0..3)
        .map(|i| streamfusion::calc::UpcallDef {
            function: format!("F{i}"),
            call: serde_json::json!({"kind": "CALL"}),
        })
        .collect();
    program
}

#[test]
fn an_upcall_evaluates_its_native_arguments_in_the_host_for_the_rows_that_reach_it() {
    let xs: Vec<Option<i32>> = (0..200).map(|i| (i % 7 != 0).then_some(i - 100)).collect();
    // SELECT F0(x + 1), CASE WHEN x > 50 THEN F0(x) END FROM t WHERE x % 2 = 0
    let program = upcall_program(vec![
        upcall(0, Expr::call(ar::PLUS, vec![Expr::input(0), int(1)])),
        Expr::case(
            vec![(
                Expr::call(cmp::GREATER_THAN, vec![Expr::input(0), int(50)]),
                upcall(0, Expr::input(0)),
            )],
            None,
        ),
    ])
    .with_filter(Expr::call(
        cmp::EQUALS,
        vec![Expr::call(ar::MOD, vec![Expr::input(0), int(2)]), int(0)],
    ));
    let compiled = compile(&program, &[LogicalType::Int]).unwrap();
    assert!(compiled.has_upcalls());
    let host = Arc::new(SquareHost::default());
    compiled.bind_upcalls(host.clone()).unwrap();
    let out = compiled
        .evaluate(&ChangelogBatch::insert_only(batch(vec![Arc::new(
            Int32Array::from(xs.clone()),
        )])))
        .unwrap();
    // The model, row at a time: NULL x fails the filter (NULL is not TRUE).
    let kept: Vec<i32> = xs
        .iter()
        .flatten()
        .copied()
        .filter(|x| x % 2 == 0)
        .collect();
    let first: Vec<Option<i64>> = kept
        .iter()
        .map(|x| Some(i64::from(x + 1) * i64::from(x + 1)))
        .collect();
    let second: Vec<Option<i64>> = kept
        .iter()
        .map(|&x| (x > 50).then(|| i64::from(x) * i64::from(x)))
        .collect();
    let batch = out.batch();
    assert_eq!(
        batch
            .column(0)
            .as_primitive::<Int64Type>()
            .iter()
            .collect::<Vec<_>>(),
        first
    );
    assert_eq!(
        batch
            .column(1)
            .as_primitive::<Int64Type>()
            .iter()
            .collect::<Vec<_>>(),
        second
    );
    // The host saw the filtered rows once, then only the rows the CASE branch takes.
    let seen = host.rows_seen.lock().unwrap().clone();
    assert_eq!(seen, [kept.len(), kept.iter().filter(|&&x| x > 50).count()]);
}

#[test]
fn upcall_failures_name_the_function_and_the_hosts_message() {
    let input = [LogicalType::Int];
    let columns = || -> Vec<ArrayRef> { vec![Arc::new(Int32Array::from(vec![1, 2]))] };
    let evaluate = |program: &CalcProgram, host: Option<SquareHost>| {
        let compiled = compile(program, &input).unwrap();
        if let Some(host) = host {
            compiled.bind_upcalls(Arc::new(host)).unwrap();
        }
        compiled
            .evaluate(&ChangelogBatch::insert_only(batch(columns())))
            .unwrap_err()
            .to_string()
    };
    let unbound = evaluate(&upcall_program(vec![upcall(0, Expr::input(0))]), None);
    assert!(
        unbound.contains("F0") && unbound.contains("no host"),
        "{unbound}"
    );
    let thrown = evaluate(
        &upcall_program(vec![upcall(1, Expr::input(0))]),
        Some(SquareHost::default()),
    );
    assert!(
        thrown.contains("F1") && thrown.contains("java.lang.ArithmeticException: boom"),
        "{thrown}"
    );
    let short = evaluate(
        &upcall_program(vec![upcall(2, Expr::input(0))]),
        Some(SquareHost::default()),
    );
    assert!(
        short.contains("3 values") && short.contains("not 2"),
        "{short}"
    );

    // A host binds once; declared argument types must be the native ones; indices must exist.
    let compiled = compile(&upcall_program(vec![upcall(0, Expr::input(0))]), &input).unwrap();
    compiled
        .bind_upcalls(Arc::new(SquareHost::default()))
        .unwrap();
    assert!(matches!(
        compiled.bind_upcalls(Arc::new(SquareHost::default())),
        Err(CalcError::UpcallsBound)
    ));
    let bigint = upcall_program(vec![upcall(0, Expr::input(0))]);
    let err = compile(&bigint, &[LogicalType::BigInt]).unwrap_err();
    assert!(matches!(err, CalcError::ArgumentTypes { .. }), "{err:?}");
    let err = compile(&upcall_program(vec![upcall(3, Expr::input(0))]), &input).unwrap_err();
    assert!(err.to_string().contains("not among"), "{err}");
    // Without upcalls a program has nothing to bind.
    assert!(
        !compile(&CalcProgram::project(vec![Expr::input(0)]), &input)
            .unwrap()
            .has_upcalls()
    );
}
