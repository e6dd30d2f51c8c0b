//! Unchanged Flink SQL regular joins run natively in a MiniCluster, with results identical to
//! stock Flink 2.3.0, under both keyed state backends.
//!
//! Runs `org.streamfusion.harness.JoinParity` (`java/src/org/streamfusion/harness/`) on the
//! planner classpath of `cargo xtask jvm` (the real planner instead of its loader, so the
//! shadowed `DefaultPlannerFactory` builds `StreamFusionPlanner`), with the library built next
//! to this test. Every query (INNER, LEFT, RIGHT and FULL OUTER joins, SEMI by `EXISTS` and
//! `IN`, ANTI by `NOT EXISTS`; insert-only inputs without unique keys, changelog inputs with a
//! primary key joined off it and on it and without one, GROUP BYs below the join: Flink's three
//! state layouts on either side; NULL keys, `IS NOT DISTINCT FROM`, two-column keys, INT,
//! BIGINT, STRING, DECIMAL, DOUBLE and TIMESTAMP(3) keys, non-equi conditions on INT and on
//! strings; joins feeding a GROUP BY; joins without an equality; state TTL that never expires
//! and that expires between the phases of a stalled input; mini-batch joins in each layout and
//! a mini-batch SEMI join) runs stock
//! and with `streamfusion.enabled = true` (64-row bundles) at parallelism 1 and 2 on `hashmap`
//! and `rocksdb`. A join's two inputs reach it in no fixed order, so its changelog is not
//! reproducible: outputs are compared as changelog multisets and, where those differ, as final
//! results (each changelog applied in arrival order), and no retraction may remove a row that
//! is not there. The Java driver checks each case (outputs equal; the `Join` substituted, as
//! `StreamFusionJoin(` in `EXPLAIN`, with the layouts, null filters, keys and TTL the case is
//! about; a GROUP BY above it native too) and, per combination, that a job running only `SELECT * FROM a JOIN b`
//! pushed exactly the rows of both inputs through native code and emitted exactly the rows
//! collected; this test requires its exit status and reads its summary. Without a JDK or the
//! planner classpath it reports itself skipped by name. `SF_JVM_CHECK_JNI=1` adds
//! `-Xcheck:jni`.

use bench_support::jvm::{built_library_path, report_skipped, run_flink_driver};

#[test]
fn regular_joins_run_natively_in_a_minicluster_with_stock_results() {
    let test = "regular_joins_run_natively_in_a_minicluster_with_stock_results";
    let library = built_library_path("streamfusion_jni");
    let run = match run_flink_driver("org.streamfusion.harness.JoinParity", &library, "1g") {
        Ok(run) => run,
        Err(why) => return report_skipped(test, &why),
    };
    let summary = run.summary().to_string();
    assert!(
        run.success,
        "JoinParity failed:\n{}\n{}",
        run.stdout, run.stderr_tail
    );
    run.assert_real_planner();
    let queries = run.value("queries");
    assert!(queries >= 40, "{summary}");
    // Every query at parallelism 1 and 2 on both backends.
    let cases = run.value("cases");
    assert_eq!(cases, 4 * queries, "{summary}");
    assert_eq!(run.value("matched"), cases, "{summary}");
    assert_eq!(run.value("failed"), 0, "{summary}");
    // Each case was decided as a changelog or as a final result, never in a key's order.
    let (changelog, last) = (run.value("compared_changelog"), run.value("compared_final"));
    assert_eq!(run.value("compared_ordered"), 0, "{summary}");
    assert_eq!(changelog + last, cases, "{summary}");
    assert!(changelog > 0 && last > 0, "{summary}");
    // Every join runs natively, mini-batch ones included.
    let expected_stock = run.value("expected_stock");
    assert_eq!(expected_stock, 0, "{summary}");
    assert_eq!(
        run.value("stock_nodes"),
        expected_stock,
        "only the expected joins stay stock: {summary}"
    );
    // Every other case has its join native, and the GROUP BYs above joins are native too.
    assert_eq!(
        run.value("native_nodes") + expected_stock,
        cases,
        "{summary}"
    );
    assert!(run.value("native_groups_after_join") >= 8, "{summary}");
    // Per combination, the join alone took exactly both inputs' rows.
    let flows = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("flow ") && !l.contains("FAILED"))
        .count();
    assert_eq!(flows, 4, "{}", run.stdout);
    // Rows went through native code in bundles, not one JNI call per row.
    let (rows, bundles) = (run.value("native_rows_in"), run.value("bundles"));
    assert!(bundles > 0 && bundles < rows, "{summary}");
}
