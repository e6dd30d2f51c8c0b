//! Unchanged Flink SQL Top-N queries (`ROW_NUMBER() OVER ([PARTITION BY ...] ORDER BY ...)`
//! filtered to a constant rank range) run natively in a MiniCluster, with results identical to
//! stock Flink 2.3.0, under both keyed state backends.
//!
//! Runs `org.streamfusion.harness.RankParity` (`java/src/org/streamfusion/harness/`) on the
//! planner classpath of `cargo xtask jvm` (the real planner instead of its loader, so the
//! shadowed `DefaultPlannerFactory` builds `StreamFusionPlanner`), with the library built next
//! to this test. Every append-only query (Top-1 ascending and descending, Top-3 with and
//! without the row number, `rn BETWEEN 2 AND 4`, ties, NULL sort keys first and last,
//! multi-field sorts, BIGINT, DOUBLE, DECIMAL, STRING and TIMESTAMP sort keys, global Top-N,
//! First-N on processing time, a Top-N after a native Calc, upsert output; and an update-fast
//! Top-1 over a GROUP BY) runs stock and with `streamfusion.enabled = true` over the same
//! input: a parallelism-1 source, each partition's rows in one channel. Every query runs at
//! parallelism 1 on `hashmap` and on `rocksdb`, the append-only ones at parallelism 2 too;
//! the oracle is stock Flink's own output on the same backend, compared as a multiset of rows
//! with their kinds and in each partition key's order (a global Top-N at parallelism 2, one
//! task fed by two channels, as a changelog or else as its final result). The Java driver
//! checks each case (outputs equal; the `Rank` substituted with the strategy and description
//! the case says; the retract strategy, the update-fast strategy beyond a Top-1 and a variable
//! rank range refused, naming why, and failing planning with `streamfusion.fallback = false`);
//! this test requires its exit status and reads its summary. Without a JDK or the planner
//! classpath it reports itself skipped by name. `SF_JVM_CHECK_JNI=1` adds `-Xcheck:jni`.

use bench_support::jvm::{built_library_path, report_skipped, run_flink_driver};

#[test]
fn top_n_queries_run_natively_in_a_minicluster_with_stock_results() {
    let test = "top_n_queries_run_natively_in_a_minicluster_with_stock_results";
    let library = built_library_path("streamfusion_jni");
    let run = match run_flink_driver("org.streamfusion.harness.RankParity", &library, "1g") {
        Ok(run) => run,
        Err(why) => return report_skipped(test, &why),
    };
    let summary = run.summary().to_string();
    assert!(
        run.success,
        "RankParity failed:\n{}\n{}",
        run.stdout, run.stderr_tail
    );
    run.assert_real_planner();
    let queries = run.value("queries");
    assert!(queries >= 20, "{summary}");
    // Every query on both backends, the append-only ones at parallelism 2 too.
    let cases = run.value("cases");
    assert!(cases >= 3 * queries, "{summary}");
    assert_eq!(run.value("matched"), cases, "{summary}");
    assert_eq!(run.value("failed"), 0, "{summary}");
    // Each case was decided by exactly one comparison, most in each partition's order.
    let (ordered, changelog, last) = (
        run.value("compared_ordered"),
        run.value("compared_changelog"),
        run.value("compared_final"),
    );
    assert_eq!(ordered + changelog + last, cases, "{summary}");
    assert!(ordered > changelog + last, "{summary}");
    // Retract, update-fast Top-3 and variable-range Top-Ns: one stock node per case.
    let expected_stock = run.value("expected_stock");
    assert!(expected_stock >= 4, "queries must stay stock: {summary}");
    assert_eq!(
        run.value("stock_nodes"),
        expected_stock,
        "only the expected nodes stay stock: {summary}"
    );
    // Every other case has its Top-N native, and the one after a Calc that Calc too.
    assert_eq!(
        run.value("native_nodes") + expected_stock,
        cases,
        "{summary}"
    );
    assert!(run.value("native_calcs") > 0, "{summary}");
    // Rows went through native code in bundles, not one JNI call per row.
    let (rows, bundles) = (run.value("native_rows_in"), run.value("bundles"));
    assert!(bundles > 0 && bundles < rows, "{summary}");
}
