//! Unchanged Flink SQL deduplications (`ROW_NUMBER() OVER (PARTITION BY ... ORDER BY <time
//! attribute> [DESC]) = 1`) run natively in a MiniCluster, with results identical to stock
//! Flink 2.3.0, under both keyed state backends.
//!
//! Runs `org.streamfusion.harness.DedupParity` (`java/src/org/streamfusion/harness/`) on the
//! planner classpath of `cargo xtask jvm` (the real planner instead of its loader, so the
//! shadowed `DefaultPlannerFactory` builds `StreamFusionPlanner`), with the library built next
//! to this test. Every query (keep-first and keep-last on processing and event time, single,
//! multi-column and no keys, runs of equal rows, upsert output, insert-update-after-sensitive
//! off, mini-batch, state TTL with keys expiring) runs stock and with `streamfusion.enabled =
//! true` over the same input: a parallelism-1 source with punctuated watermarks, so which rows
//! are late is fixed, and each key's rows in one channel. Every query runs at parallelism 1 on
//! `hashmap` and on `rocksdb` (whose Flink states decide differently whether a repeated row
//! equals the kept one), a subset at parallelism 2 after the source on both. The oracle is
//! stock Flink's own output on the same backend, compared as a multiset of rows with their
//! kinds and, without mini-batch, in each key's order; mini-batch cases fall back to the final
//! result when the changelogs differ, and the summary counts each comparison. The Java driver
//! checks each case (outputs equal; the `Deduplicate` substituted and described as the case
//! says; a Top-N planned as a `Rank`, not a deduplication; a compacting mini-batch refused,
//! and failing planning with `streamfusion.fallback = false`); this test requires its exit
//! status and reads its summary.
//! Without a JDK or the planner classpath it reports itself skipped by name.
//! `SF_JVM_CHECK_JNI=1` adds `-Xcheck:jni`.

use bench_support::jvm::{built_library_path, report_skipped, run_flink_driver};

#[test]
fn deduplications_run_natively_in_a_minicluster_with_stock_results() {
    let test = "deduplications_run_natively_in_a_minicluster_with_stock_results";
    let library = built_library_path("streamfusion_jni");
    let run = match run_flink_driver("org.streamfusion.harness.DedupParity", &library, "1g") {
        Ok(run) => run,
        Err(why) => return report_skipped(test, &why),
    };
    let summary = run.summary().to_string();
    assert!(
        run.success,
        "DedupParity failed:\n{}\n{}",
        run.stdout, run.stderr_tail
    );
    run.assert_real_planner();
    let queries = run.value("queries");
    assert!(queries >= 16, "{summary}");
    // Every query on both backends, a subset at parallelism 2 too.
    let cases = run.value("cases");
    assert!(cases >= 2 * queries, "{summary}");
    assert_eq!(run.value("matched"), cases, "{summary}");
    assert_eq!(run.value("failed"), 0, "{summary}");
    // Each case was decided by exactly one comparison, the immediate ones in key order.
    let (ordered, changelog, last) = (
        run.value("compared_ordered"),
        run.value("compared_changelog"),
        run.value("compared_final"),
    );
    assert_eq!(ordered + changelog + last, cases, "{summary}");
    assert!(ordered > 0 && changelog + last > 0, "{summary}");
    // The compacting mini-batch: one stock node per case.
    let expected_stock = run.value("expected_stock");
    assert!(expected_stock >= 1, "queries must stay stock: {summary}");
    assert_eq!(
        run.value("stock_nodes"),
        expected_stock,
        "only the expected nodes stay stock: {summary}"
    );
    // Every other case but the Top-Ns (no deduplication at all) has its deduplication native.
    let ranks = run.value("rank_cases");
    assert!(ranks >= 2, "{summary}");
    assert_eq!(
        run.value("native_nodes") + expected_stock + ranks,
        cases,
        "{summary}"
    );
    // Rows went through native code in bundles, not one JNI call per row.
    let (rows, bundles) = (run.value("native_rows_in"), run.value("bundles"));
    assert!(bundles > 0 && bundles < rows, "{summary}");
}
