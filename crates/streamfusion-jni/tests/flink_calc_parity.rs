//! Unchanged Flink SQL with Calc runs natively in a MiniCluster, with results identical to
//! stock Flink 2.3.0.
//!
//! Runs `org.streamfusion.harness.CalcParity` (`java/src/org/streamfusion/harness/`) on the
//! planner classpath of `cargo xtask jvm` (the real planner instead of its loader, so the
//! shadowed `DefaultPlannerFactory` builds `StreamFusionPlanner`), with the library built next
//! to this test. Every query runs stock and with `streamfusion.enabled = true` (chained and
//! unchained) in one JVM; the oracle is stock Flink's own output (row kinds included, as a
//! multiset). The Java driver checks each query (outputs equal, Calc nodes substituted and
//! shown by `EXPLAIN`, the fallback query kept stock with a reason and refused with
//! `streamfusion.fallback = false`); this test requires its exit status and reads its summary.
//! Without a JDK or the planner classpath it reports itself skipped by name.
//! `SF_JVM_CHECK_JNI=1` adds `-Xcheck:jni`.

use bench_support::jvm::{built_library_path, report_skipped, run_flink_driver};

#[test]
fn calc_queries_run_natively_in_a_minicluster_with_stock_results() {
    let test = "calc_queries_run_natively_in_a_minicluster_with_stock_results";
    let library = built_library_path("streamfusion_jni");
    let run = match run_flink_driver("org.streamfusion.harness.CalcParity", &library, "1g") {
        Ok(run) => run,
        Err(why) => return report_skipped(test, &why),
    };
    let summary = run.summary().to_string();
    assert!(run.success, "CalcParity failed:\n{}", run.stdout);
    run.assert_real_planner();
    let queries = run.value("queries");
    assert!(queries >= 20, "{summary}");
    assert_eq!(run.value("matched"), queries, "{summary}");
    assert_eq!(run.value("failed"), 0, "{summary}");
    let expected_stock = run.value("expected_stock");
    assert!(expected_stock >= 1, "a query must fall back: {summary}");
    assert_eq!(
        run.value("stock_nodes"),
        expected_stock,
        "only the fallback queries stay stock: {summary}"
    );
    assert!(
        run.value("native_nodes") >= queries - expected_stock,
        "{summary}"
    );
    // Both ways rows reach the operator: converted by Flink's serializer (chained behind the
    // input conversion) and as BinaryRowData bytes (unchained).
    let converted = run.value("converted_rows");
    assert!(
        converted > 0 && converted < run.value("native_rows_in"),
        "{summary}"
    );
    // Bundles of at most 64 rows: several per query, never one per row.
    let (rows, bundles) = (run.value("native_rows_in"), run.value("bundles"));
    assert!(bundles > queries && bundles * 8 < rows, "{summary}");
}
