//! `stream-exec-calc_1` (Flink's `StreamExecCalc`): projections and an optional condition over
//! one input, as an [`OperatorPlan::Calc`].
//!
//! The node's fields: `projection` (RexNodes, one per output field), `condition` (a RexNode or
//! `null`), `outputType` (the output ROW type, whose field names the program keeps). Row kinds
//! pass through unchanged, as Flink's stream Calc keeps them.
//!
//! A plan is returned only when the program compiles natively against the input types, the
//! output types equal the node's `outputType`, and every call's native result type equals the
//! type Flink declared for it (nullability aside): a call typed differently could compute
//! differently (a DECIMAL scale, a string length), so it is refused rather than cast. Under
//! `streamfusion.upcalls` such a call is not refused but evaluated by the JVM (an upcall, see
//! [`RexReader::with_upcalls`]), and the rest of the program stays native.

use serde_json::Value;

use super::rex::RexReader;
use super::types::row_type;
use super::{FlinkConfig, Result, Unsupported};
use crate::calc::{CalcProgram, compile};
use crate::ops::OperatorPlan;
use crate::types::{LogicalType, RowField};

/// The native plan of the Calc `node` over `inputs` (exactly one row type).
pub fn plan(node: &Value, inputs: &[Vec<RowField>], config: &FlinkConfig) -> Result<OperatorPlan> {
    let [input] = inputs else {
        return Err(Unsupported::Malformed(format!(
            "a Calc has one input, the description has {}",
            inputs.len()
        )));
    };
    let input: Vec<LogicalType> = input.iter().map(|f| f.ty.clone()).collect();
    let output = row_type(
        node.get("outputType")
            .ok_or_else(|| Unsupported::Malformed("a Calc without \"outputType\"".into()))?,
    )?;
    let options = CalcProgram {
        legacy_cast_behaviour: config.legacy_cast_behaviour,
        time_zone: config.local_time_zone.clone(),
        float_text: config.float_text,
        ..CalcProgram::project(Vec::new())
    };
    let mut reader = RexReader::for_jvm(config.java_version);
    if config.upcalls {
        reader = reader.with_upcalls(&input, &options);
    }
    let projection = node
        .get("projection")
        .and_then(Value::as_array)
        .ok_or_else(|| Unsupported::Malformed("a Calc without \"projection\"".into()))?
        .iter()
        .map(|rex| reader.expr(rex))
        .collect::<Result<Vec<_>>>()?;
    let filter = match node.get("condition") {
        None | Some(Value::Null) => None,
        Some(rex) => Some(reader.expr(rex)?),
    };
    if projection.len() != output.len() {
        return Err(Unsupported::Malformed(format!(
            "{} projections for {} output fields",
            projection.len(),
            output.len()
        )));
    }
    let program = CalcProgram {
        projection,
        filter,
        names: output.iter().map(|f| f.name.clone()).collect(),
        upcalls: reader.upcalls().to_vec(),
        ..options
    };
    let compiled = compile(&program, &input).map_err(|e| Unsupported::Compile(e.to_string()))?;
    check_calls(&reader, &program, &input)?;
    for (native, field) in compiled.output_types().iter().zip(&output) {
        if native != &field.ty {
            return Err(Unsupported::ResultType {
                function: format!("output field {}", field.name),
                native: native.to_string(),
                flink: field.ty.to_string(),
            });
        }
    }
    Ok(OperatorPlan::Calc {
        input,
        calc: program,
    })
}

/// Every call's native result type must be Flink's: all calls compiled at once as the
/// projections of one program under the same options.
pub(super) fn check_calls(
    reader: &RexReader,
    program: &CalcProgram,
    input: &[LogicalType],
) -> Result<()> {
    let probes = reader.probes();
    if probes.is_empty() {
        return Ok(());
    }
    let mut check = CalcProgram::project(probes.iter().map(|p| p.expr.clone()).collect());
    check.legacy_cast_behaviour = program.legacy_cast_behaviour;
    check.time_zone = program.time_zone.clone();
    check.float_text = program.float_text;
    check.upcalls = program.upcalls.clone();
    let compiled = compile(&check, input).map_err(|e| Unsupported::Compile(e.to_string()))?;
    for (probe, native) in probes.iter().zip(compiled.output_types()) {
        if native != &probe.flink {
            return Err(Unsupported::ResultType {
                function: probe.function.clone(),
                native: native.to_string(),
                flink: probe.flink.to_string(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::plan_node;
    use super::*;
    use crate::calc::Expr;
    use crate::calc::functions::{arithmetic, comparison, temporal};

    /// Nodes released Flink 2.3.0 wrote (`CalcParity --dump`), by query name.
    fn fixture(name: &str) -> String {
        let path = format!(
            "{}/tests/flink-2.3.0-nodes/calc-{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    const SUPPORTED: &[&str] = &[
        "int_arithmetic",
        "trims",
        "filter_between",
        "filter_in",
        "casts",
        "searched_case",
        "coalesce",
        "changelog_filter",
        "decimal_arithmetic",
        "booleans",
        "unicode_filter",
        "temporal_extract",
        "temporal_format",
        "double_specials",
        "not_in",
        "sarg_null_as_true",
    ];

    fn calc(name: &str) -> (Vec<LogicalType>, CalcProgram) {
        match plan_node(&fixture(name), None) {
            Ok(OperatorPlan::Calc { input, calc }) => (input, calc),
            Ok(other) => panic!("{name}: not a Calc: {other:?}"),
            Err(e) => panic!("{name}: {e}"),
        }
    }

    #[test]
    fn every_supported_fixture_plans_and_builds_a_native_calc() {
        for name in SUPPORTED {
            let (input, program) = calc(name);
            assert!(!input.is_empty(), "{name}");
            let plan = OperatorPlan::Calc {
                input,
                calc: program,
            };
            let round_trip = OperatorPlan::from_json(&plan.to_json()).unwrap();
            assert_eq!(round_trip, plan, "{name}");
            plan.build(&crate::ops::StateConfig::memory(), None)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn projections_keep_flinks_operands_and_output_names() {
        let (_, program) = calc("int_arithmetic");
        let one = Expr::lit(LogicalType::Int, "1");
        assert_eq!(program.projection[0], Expr::input(0));
        assert_eq!(
            program.projection[1],
            Expr::call(arithmetic::PLUS, vec![Expr::input(1), one])
        );
        assert_eq!(
            program.names,
            ["id", "EXPR$1", "EXPR$2", "EXPR$3", "EXPR$4"]
        );
        assert_eq!(program.filter, None);
    }

    #[test]
    fn between_is_a_closed_range_on_the_column() {
        let (_, program) = calc("filter_between");
        let int = |v: &str| Expr::lit(LogicalType::Int, v);
        assert_eq!(
            program.filter,
            Some(Expr::And(vec![
                Expr::call(
                    comparison::GREATER_THAN_OR_EQUAL,
                    vec![Expr::input(1), int("-3")]
                ),
                Expr::call(
                    comparison::LESS_THAN_OR_EQUAL,
                    vec![Expr::input(1), int("9")]
                ),
            ]))
        );
    }

    #[test]
    fn time_unit_symbols_become_the_registrys_unit_literals() {
        let (_, program) = calc("temporal_extract");
        let unit = |u: &str| Expr::lit(LogicalType::VarChar(i32::MAX as u32), u);
        assert_eq!(
            program.projection[1],
            Expr::call(temporal::EXTRACT, vec![unit("YEAR"), Expr::input(8)])
        );
        let (_, program) = calc("temporal_format");
        assert_eq!(
            program.projection[4],
            Expr::call(temporal::FLOOR_TO, vec![Expr::input(9), unit("HOUR")])
        );
    }

    #[test]
    fn not_in_keeps_nulls_unknown_and_in_or_is_null_maps_them_to_true() {
        let (_, program) = calc("sarg_null_as_true");
        let Some(Expr::Or(parts)) = &program.filter else {
            panic!("{:?}", program.filter)
        };
        assert_eq!(
            parts[0],
            Expr::call(comparison::IS_NULL, vec![Expr::input(1)])
        );
        let (_, program) = calc("not_in");
        let Some(Expr::And(parts)) = &program.filter else {
            panic!("{:?}", program.filter)
        };
        // (-inf..1), (1..2), (2..3), (3..+inf): the complement of three points, which Flink
        // tests against a hash set (`NOT` of the members), no NULL test.
        let Expr::Not(members) = &parts[0] else {
            panic!("{:?}", parts[0])
        };
        let Expr::Or(points) = members.as_ref() else {
            panic!("{members:?}")
        };
        assert_eq!(points.len(), 3);
        assert_eq!(
            points[0],
            Expr::call(
                comparison::IN_SET_EQUALS,
                vec![Expr::input(1), Expr::lit(LogicalType::Int, "1")]
            )
        );
    }

    #[test]
    fn options_reach_the_program() {
        let plan = plan_node(
            &fixture("casts"),
            Some(
                r#"{"table.exec.legacy-cast-behaviour": "ENABLED",
                    "table.local-time-zone": "Europe/Berlin"}"#,
            ),
        )
        .unwrap();
        let OperatorPlan::Calc { calc, .. } = plan else {
            unreachable!()
        };
        assert!(calc.legacy_cast_behaviour);
        assert_eq!(calc.time_zone, "Europe/Berlin");
    }

    #[test]
    fn an_unsupported_function_is_refused_with_its_flink_name() {
        // Flink's REPEAT node (once a fallback) with its function renamed to one the
        // registry lacks.
        let json = fixture("fallback_repeat").replace("$REPEAT$1", "$PARSE_URL$1");
        let err = plan_node(&json, None).unwrap_err();
        assert_eq!(err, Unsupported::Function("$PARSE_URL$1".into()));
        assert_eq!(err.to_string(), "function $PARSE_URL$1 is not supported");
    }

    #[test]
    fn flinks_repeat_node_now_plans_natively() {
        let plan = plan_node(&fixture("fallback_repeat"), None).unwrap();
        assert!(matches!(plan, OperatorPlan::Calc { .. }));
    }

    #[test]
    fn a_call_flink_types_differently_is_refused_not_cast() {
        // Flink says `i + 1` is a BIGINT; natively INT + INT is INT: refuse.
        let json = fixture("int_arithmetic").replacen(
            r#""internalName":"$+$1","operands":[{"kind":"INPUT_REF","inputIndex":1,"type":"INT"},{"kind":"LITERAL","value":1,"type":"INT NOT NULL"}],"type":"INT""#,
            r#""internalName":"$+$1","operands":[{"kind":"INPUT_REF","inputIndex":1,"type":"INT"},{"kind":"LITERAL","value":1,"type":"INT NOT NULL"}],"type":"BIGINT""#,
            1,
        );
        assert_ne!(json, fixture("int_arithmetic"), "the fixture changed");
        let err = plan_node(&json, None).unwrap_err();
        assert_eq!(
            err,
            Unsupported::ResultType {
                function: "$+$1".into(),
                native: "INT".into(),
                flink: "BIGINT".into()
            }
        );
    }

    #[test]
    fn a_program_that_does_not_compile_is_refused_at_plan_time() {
        // UPPER of an INT column: Flink would never write it; the compiler refuses it.
        let json = fixture("unicode_filter").replace(
            r#""internalName":"$UPPER$1","operands":[{"kind":"INPUT_REF","inputIndex":5"#,
            r#""internalName":"$UPPER$1","operands":[{"kind":"INPUT_REF","inputIndex":1"#,
        );
        let err = plan_node(&json, None).unwrap_err();
        assert!(matches!(err, Unsupported::Compile(_)), "{err:?}");
        assert!(err.to_string().contains("UPPER"), "{err}");
    }

    const JDK17_UPCALLS: &str =
        r#"{"java.specification.version": "17", "streamfusion.upcalls": "true"}"#;

    #[test]
    fn under_upcalls_a_cast_the_jdk_prints_differently_is_handed_to_the_jvm() {
        let refused = plan_node(
            &fixture("double_specials"),
            Some(r#"{"java.specification.version": "17"}"#),
        )
        .unwrap_err();
        assert!(refused.to_string().contains("FloatingDecimal"), "{refused}");
        let (input, calc) = match plan_node(&fixture("double_specials"), Some(JDK17_UPCALLS)) {
            Ok(OperatorPlan::Calc { input, calc }) => (input, calc),
            other => panic!("{other:?}"),
        };
        // CAST((d / 0) AS VARCHAR): the cast is Flink's, over the native d / 0.
        assert_eq!(calc.upcalls.len(), 1);
        assert_eq!(calc.upcalls[0].function, "$CAST$1");
        assert_eq!(
            calc.upcalls[0].call["operands"],
            serde_json::json!([{"kind": "INPUT_REF", "inputIndex": 0, "type": "DOUBLE"}])
        );
        let Expr::Upcall(upcall) = &calc.projection[3] else {
            panic!("{:?}", calc.projection[3]);
        };
        assert_eq!(upcall.index, 0);
        assert_eq!(upcall.args, [calc.projection[1].clone()]);
        assert_eq!(upcall.arguments, [LogicalType::Double]);
        assert_eq!(upcall.ty, LogicalType::VarChar(i32::MAX as u32));
        // Every other projection is what the native reading gives.
        let native = match plan_node(&fixture("double_specials"), None) {
            Ok(OperatorPlan::Calc { calc, .. }) => calc,
            other => panic!("{other:?}"),
        };
        for i in [0, 1, 2, 4] {
            assert_eq!(calc.projection[i], native.projection[i], "projection {i}");
        }
        assert!(compile(&calc, &input).unwrap().has_upcalls());
    }

    /// A Calc over `(x INT, d DOUBLE)` projecting `projection` (RexNode JSON) as `output`.
    fn node(projection: serde_json::Value, output: &str) -> String {
        serde_json::json!({
            "node": {
                "id": 1,
                "type": "stream-exec-calc_1",
                "projection": projection,
                "condition": null,
                "outputType": output,
            },
            "inputs": ["ROW<`x` INT, `d` DOUBLE>"],
        })
        .to_string()
    }

    #[test]
    fn under_upcalls_literal_operands_stay_in_flinks_call_and_user_functions_are_upcalls() {
        let d = serde_json::json!({"kind": "INPUT_REF", "inputIndex": 1, "type": "DOUBLE"});
        let x = serde_json::json!({"kind": "INPUT_REF", "inputIndex": 0, "type": "INT"});
        let two = serde_json::json!({"kind": "LITERAL", "value": 2, "type": "INT NOT NULL"});
        let d_plus_two = serde_json::json!({"kind": "CALL", "syntax": "BINARY",
            "internalName": "$+$1", "operands": [d, two], "type": "DOUBLE"});
        let json = node(
            serde_json::json!([
                {"kind": "CALL", "internalName": "$SIN$1", "operands": [d_plus_two],
                 "type": "DOUBLE"},
                {"kind": "CALL", "internalName": "$POWER$1", "operands": [d, two],
                 "type": "DOUBLE"},
                {"kind": "CALL", "systemName": "SCRAMBLE", "operands": [x],
                 "type": "VARCHAR(2147483647)"},
            ]),
            "ROW<`a` DOUBLE, `b` DOUBLE, `c` VARCHAR(2147483647)>",
        );
        let refused = plan_node(&json, None).unwrap_err();
        assert!(refused.to_string().contains("$SIN$1"), "{refused}");
        let calc = match plan_node(&json, Some(JDK17_UPCALLS)) {
            Ok(OperatorPlan::Calc { calc, .. }) => calc,
            other => panic!("{other:?}"),
        };
        let functions: Vec<&str> = calc.upcalls.iter().map(|u| u.function.as_str()).collect();
        assert_eq!(functions, ["$SIN$1", "$POWER$1", "SCRAMBLE"]);
        let arg0 = serde_json::json!({"kind": "INPUT_REF", "inputIndex": 0, "type": "DOUBLE"});
        assert_eq!(
            calc.upcalls[1].call["operands"],
            serde_json::json!([arg0, two])
        );
        assert_eq!(calc.upcalls[2].call["systemName"], "SCRAMBLE");
        let args: Vec<Vec<Expr>> = calc
            .projection
            .iter()
            .map(|e| match e {
                Expr::Upcall(u) => u.args.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            args,
            [
                vec![Expr::call(
                    arithmetic::PLUS,
                    vec![Expr::input(1), Expr::lit(LogicalType::Int, "2")]
                )],
                vec![Expr::input(1)],
                vec![Expr::input(0)],
            ]
        );
    }

    #[test]
    fn under_upcalls_nondeterministic_functions_stay_refused() {
        let json = node(
            serde_json::json!([{"kind": "CALL", "internalName": "$RAND$1", "operands": [],
                "type": "DOUBLE NOT NULL"}]),
            "ROW<`r` DOUBLE NOT NULL>",
        );
        let err = plan_node(&json, Some(JDK17_UPCALLS)).unwrap_err();
        assert!(err.to_string().contains("nondeterministic"), "{err}");
    }
}
