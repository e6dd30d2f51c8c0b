//! Every scalar expression the native Calc accepts gives stock Flink 2.3.0's values, row for
//! row, over inputs full of edge values: no silent wrong values.
//!
//! Runs `org.streamfusion.harness.ExprSweep` (`java/src/org/streamfusion/harness/`) on the
//! planner classpath of `cargo xtask jvm` (the real planner instead of its loader, so the
//! shadowed `DefaultPlannerFactory` builds `StreamFusionPlanner`), with the library built next
//! to this test. Several hundred expressions by category (mixed-type arithmetic and
//! comparisons over NaN, -0.0, infinities and integer and decimal bounds; NULL handling;
//! CAST and TRY_CAST between type pairs, lenient numeric and date strings included; string,
//! LIKE and regular-expression functions over Unicode and regex-hostile strings; math;
//! temporal functions over pre-1970 and far-future values, in UTC and in America/New_York)
//! are each planned as `SELECT id, <expr> FROM t` with `streamfusion.enabled = true`: native
//! when the Calc is substituted, else refused (counted, with the reason) or invalid (stock
//! Flink cannot plan it either: the list needs fixing). The native ones run in chunks on one
//! MiniCluster, stock and native, a failing chunk split down to single expressions; the oracle
//! is stock Flink's value of every row (doubles via `Double.toString`, so -0.0 and NaN
//! count). A mismatch, or a value where Flink fails (`stock_only_error`), is a silent wrong
//! value; an error only natively (`native_only_error`) is not, but is reported. The driver
//! prints each expression that did not match, the refusals by reason and a summary; this
//! test requires no mismatch, no stock-only error and no invalid expression. Calls without a
//! native kernel run as upcalls to Flink's own code (`streamfusion.upcalls`, decision 0054), so
//! nothing is refused for want of one. The driver's `KNOWN` list names wrong values a class of
//! issue 25 still has (empty now): those are counted apart, and one that starts matching fails
//! the run until it is taken off the list.
//! Without a JDK or the planner classpath it reports itself skipped by name.
//! `SF_JVM_CHECK_JNI=1` adds `-Xcheck:jni`.

use bench_support::jvm::{built_library_path, report_skipped, run_flink_driver};

#[test]
fn native_calc_expressions_give_stock_values_on_edge_inputs() {
    let test = "native_calc_expressions_give_stock_values_on_edge_inputs";
    let library = built_library_path("streamfusion_jni");
    let run = match run_flink_driver("org.streamfusion.harness.ExprSweep", &library, "2g") {
        Ok(run) => run,
        Err(why) => return report_skipped(test, &why),
    };
    let summary = run.summary().to_string();
    run.assert_real_planner();
    let expressions = run.value("expressions");
    assert!(expressions >= 400, "{summary}");
    assert_eq!(
        run.value("invalid"),
        0,
        "expressions stock Flink cannot plan: fix the list: {summary}"
    );
    assert_eq!(run.value("mismatched"), 0, "silent wrong values: {summary}");
    assert_eq!(
        run.value("known_fixed"),
        0,
        "known wrong values that now match: take them off KNOWN: {summary}"
    );
    assert_eq!(
        run.value("known_mismatch"),
        0,
        "no known wrong values remain: {summary}"
    );
    assert_eq!(
        run.value("stock_only_error"),
        0,
        "values where Flink fails: {summary}"
    );
    let native = run.value("native");
    assert!(
        run.value("matched")
            + run.value("known_mismatch")
            + run.value("native_only_error")
            + run.value("both_error")
            >= native,
        "every native expression matched or failed: {summary}"
    );
    assert!(run.success, "ExprSweep failed:\n{}", run.stdout);
}
