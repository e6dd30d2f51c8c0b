//! Unchanged Flink SQL OVER aggregations and event-time sorts run natively in a MiniCluster,
//! with results identical to stock Flink 2.3.0, under both keyed state backends.
//!
//! Runs `org.streamfusion.harness.OverParity` and its `Sort` (`java/src/org/streamfusion/
//! harness/`) on the planner classpath of `cargo xtask jvm` (the real planner instead of its
//! loader, so the shadowed `DefaultPlannerFactory` builds `StreamFusionPlanner`), with the
//! library built next to this test. The OVER queries (each event-time frame kind, ROWS and
//! RANGE, unbounded and preceding; COUNT, SUM, AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE and
//! DISTINCT calls over INT, BIGINT, DECIMAL, STRING and TIMESTAMP arguments; single, multi,
//! STRING and no partition keys; ties and late rows; an OVER after a native Calc; processing-time
//! ROWS frames and an unbounded RANGE) and the sorts
//! (`ORDER BY ts [, more fields]`) run stock and with `streamfusion.enabled = true` over the
//! same input with punctuated watermarks, at parallelism 1 on `hashmap` and `rocksdb`, the
//! partitioned OVERs at parallelism 2 too. The oracle is stock Flink's own output on the same
//! backend, compared as a multiset of rows and in each partition key's order (a sort's output
//! as one sequence). Refused shapes (a DOUBLE sum in a RANGE frame with a preceding bound,
//! state TTL on a ROWS frame, a DOUBLE sort field) must stay stock naming why. Without a JDK or the planner classpath each test reports itself skipped by name.

use bench_support::jvm::{DriverRun, built_library_path, report_skipped, run_flink_driver};

/// Runs `class` and checks what every such parity run must show; `None` when skipped.
fn parity(test: &str, class: &str) -> Option<DriverRun> {
    let library = built_library_path("streamfusion_jni");
    let run = match run_flink_driver(class, &library, "1g") {
        Ok(run) => run,
        Err(why) => {
            report_skipped(test, &why);
            return None;
        }
    };
    let summary = run.summary().to_string();
    assert!(
        run.success,
        "{class} failed:\n{}\n{}",
        run.stdout, run.stderr_tail
    );
    run.assert_real_planner();
    let cases = run.value("cases");
    assert_eq!(run.value("matched"), cases, "{summary}");
    assert_eq!(run.value("failed"), 0, "{summary}");
    assert_eq!(run.value("compared_ordered"), cases, "{summary}");
    let expected_stock = run.value("expected_stock");
    assert!(expected_stock >= 1, "a query must stay stock: {summary}");
    assert_eq!(
        run.value("stock_nodes"),
        expected_stock,
        "only the expected nodes stay stock: {summary}"
    );
    assert_eq!(
        run.value("native_nodes") + expected_stock,
        cases,
        "{summary}"
    );
    // Rows went through native code in bundles, not one JNI call per row.
    let (rows, bundles) = (run.value("native_rows_in"), run.value("bundles"));
    assert!(bundles > 0 && bundles < rows, "{summary}");
    Some(run)
}

#[test]
fn over_queries_run_natively_in_a_minicluster_with_stock_results() {
    let test = "over_queries_run_natively_in_a_minicluster_with_stock_results";
    let Some(run) = parity(test, "org.streamfusion.harness.OverParity") else {
        return;
    };
    let summary = run.summary();
    assert!(run.value("queries") >= 20, "{summary}");
    // Parallelism 1 on both backends, most queries at parallelism 2 too.
    assert!(run.value("cases") >= 3 * run.value("queries"), "{summary}");
    assert!(run.value("expected_stock") >= 2 * 2, "{summary}");
    assert!(run.value("native_calcs") > 0, "{summary}");
}

#[test]
fn event_time_sorts_run_natively_in_a_minicluster_with_stock_results() {
    let test = "event_time_sorts_run_natively_in_a_minicluster_with_stock_results";
    let Some(run) = parity(test, "org.streamfusion.harness.OverParity$Sort") else {
        return;
    };
    let summary = run.summary();
    assert!(run.value("queries") >= 4, "{summary}");
    assert_eq!(run.value("cases"), 2 * run.value("queries"), "{summary}");
}
