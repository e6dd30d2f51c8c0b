//! Unchanged Flink SQL GROUP BY queries run natively in a MiniCluster, with results identical
//! to stock Flink 2.3.0, in every aggregate plan mode and under both keyed state backends.
//!
//! Runs `org.streamfusion.harness.AggParity` (`java/src/org/streamfusion/harness/`) on the
//! planner classpath of `cargo xtask jvm` (the real planner instead of its loader, so the
//! shadowed `DefaultPlannerFactory` builds `StreamFusionPlanner`), with the library built next
//! to this test. Every query runs stock and with `streamfusion.enabled = true` under the same
//! plan mode (immediate, mini-batch ONE_PHASE, mini-batch TWO_PHASE) and `state.backend.type`
//! (`hashmap`, `rocksdb`): all queries immediate on hashmap, a subset under the other five
//! combinations. The oracle is stock Flink's own output: the changelog as a multiset, row
//! kinds included (immediate), or under mini-batch, where the updates Flink emits depend on
//! batch boundaries, the final materialized result when the changelogs differ. The Java driver
//! checks each case (outputs equal; every aggregate node substituted, local and global ones in
//! TWO_PHASE; the fallback query's aggregate kept stock with a reason and refused with
//! `streamfusion.fallback = false`); this test requires its exit status and reads its summary.
//! Without a JDK or the planner classpath it reports itself skipped by name.
//! `SF_JVM_CHECK_JNI=1` adds `-Xcheck:jni`.

use bench_support::jvm::{built_library_path, report_skipped, run_flink_driver};

#[test]
fn group_by_queries_run_natively_in_a_minicluster_with_stock_results() {
    let test = "group_by_queries_run_natively_in_a_minicluster_with_stock_results";
    let library = built_library_path("streamfusion_jni");
    let run = match run_flink_driver("org.streamfusion.harness.AggParity", &library, "1g") {
        Ok(run) => run,
        Err(why) => return report_skipped(test, &why),
    };
    let summary = run.summary().to_string();
    assert!(
        run.success,
        "AggParity failed:\n{}\n{}",
        run.stdout, run.stderr_tail
    );
    run.assert_real_planner();
    let queries = run.value("queries");
    assert!(queries >= 20, "{summary}");
    // Every query once, a subset under five more mode and backend combinations.
    let cases = run.value("cases");
    assert!(cases > queries, "{summary}");
    assert_eq!(run.value("matched"), cases, "{summary}");
    assert_eq!(run.value("failed"), 0, "{summary}");
    let expected_stock = run.value("expected_stock");
    assert!(expected_stock >= 1, "a query must fall back: {summary}");
    assert_eq!(
        run.value("stock_nodes"),
        expected_stock,
        "only the expected aggregate nodes stay stock: {summary}"
    );
    // Each case that expects no stock aggregate node has at least one native one.
    assert!(
        run.value("native_nodes") >= cases - expected_stock,
        "{summary}"
    );
    // Rows went through native code in bundles, not one JNI call per row.
    let (rows, bundles) = (run.value("native_rows_in"), run.value("bundles"));
    assert!(bundles > 0 && bundles < rows, "{summary}");
}
