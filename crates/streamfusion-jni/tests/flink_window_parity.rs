//! Unchanged Flink SQL window aggregations (window TVFs and legacy session group windows,
//! over event time), window Top-N, window deduplication, window joins (with the window
//! TVFs' rows they read), interval joins and temporal joins (against a versioned view) run
//! natively in a MiniCluster, with results identical to stock Flink 2.3.0, under both keyed
//! state backends.
//!
//! Runs `org.streamfusion.harness.WindowParity` (`java/src/org/streamfusion/harness/`) on the
//! planner classpath of `cargo xtask jvm` (the real planner instead of its loader, so the
//! shadowed `DefaultPlannerFactory` builds `StreamFusionPlanner`), with the library built next
//! to this test. Every query (TUMBLE, HOP and CUMULATE with offsets, SESSION, and legacy
//! `GROUP BY k, SESSION(ts, gap)` group windows; planned ONE_PHASE so it has one window
//! aggregate, or AUTO so it has a local and a global one; window Top-N, deduplication and
//! joins of every type over the TVFs' rows) runs stock and with
//! `streamfusion.enabled = true` over the same input: a parallelism-1 source with punctuated
//! watermarks, so which rows are late (dropped for every window, or for some HOP and
//! CUMULATE windows only) is fixed. All queries run at parallelism 1 on `hashmap`, a subset
//! on `rocksdb` and at parallelism 2 after the source. The oracle is stock Flink's own output,
//! compared as a multiset of rows with their kinds. The Java driver checks each case (outputs
//! equal; the window nodes substituted; a processing-time window and a legacy TUMBLE
//! group window kept stock, refused and failing planning with `streamfusion.fallback =
//! false`); this test requires its exit status and reads its summary. Without a JDK or the
//! planner classpath it reports itself skipped by name. `SF_JVM_CHECK_JNI=1` adds
//! `-Xcheck:jni`.

use bench_support::jvm::{built_library_path, report_skipped, run_flink_driver};

#[test]
fn window_aggregations_run_natively_in_a_minicluster_with_stock_results() {
    let test = "window_aggregations_run_natively_in_a_minicluster_with_stock_results";
    let library = built_library_path("streamfusion_jni");
    let run = match run_flink_driver("org.streamfusion.harness.WindowParity", &library, "1g") {
        Ok(run) => run,
        Err(why) => return report_skipped(test, &why),
    };
    let summary = run.summary().to_string();
    assert!(
        run.success,
        "WindowParity failed:\n{}\n{}",
        run.stdout, run.stderr_tail
    );
    run.assert_real_planner();
    let queries = run.value("queries");
    assert!(queries >= 20, "{summary}");
    // Every query once, a subset under two more parallelism and backend combinations.
    let cases = run.value("cases");
    assert!(cases > queries, "{summary}");
    assert_eq!(run.value("matched"), cases, "{summary}");
    assert_eq!(run.value("failed"), 0, "{summary}");
    // Processing time and a legacy TUMBLE group window: one refused node each.
    let expected_stock = run.value("expected_stock");
    assert!(expected_stock >= 2, "queries must stay stock: {summary}");
    assert_eq!(
        run.value("stock_nodes"),
        expected_stock,
        "only the expected window aggregate nodes stay stock: {summary}"
    );
    // Each case that expects no stock window aggregate has one native.
    let native_nodes = run.value("native_nodes");
    assert!(native_nodes > 0, "{summary}");
    assert!(native_nodes + expected_stock >= cases, "{summary}");
    // Rows went through native code in bundles, not one JNI call per row.
    let (rows, bundles) = (run.value("native_rows_in"), run.value("bundles"));
    assert!(bundles > 0 && bundles < rows, "{summary}");
}
