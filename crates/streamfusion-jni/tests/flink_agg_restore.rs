//! Native GROUP BY, Top-N and OVER state lives in Flink's own checkpoints: recovery after an
//! injected failure and savepoint restores at another parallelism give stock Flink's results.
//!
//! Runs `org.streamfusion.harness.AggRestore` (`java/src/org/streamfusion/harness/`) in one
//! MiniCluster JVM on the planner classpath: for a one-phase and a two-phase GROUP BY, a Top-3
//! with the rank column, a Top-1 and an event-time OVER (its savepoint restored at 1 -> 2
//! only: see `AggRestore.Query#eventTime`), on the
//! hashmap and the RocksDB state backend, a job failed once after a completed checkpoint, and
//! jobs stopped with a savepoint and restored at parallelism 2 -> 1 and 1 -> 2. The oracle is
//! the stock job run without interruption (final result per key); each native case must also
//! have written and restored key-group sections. Mismatched savepoints (stock into native and
//! native into stock) must fail. Without a JDK or the planner classpath it reports itself
//! skipped by name.

use bench_support::jvm::{built_library_path, report_skipped, run_flink_driver};

#[test]
fn native_group_by_state_survives_failures_and_rescaling_through_flink_checkpoints() {
    let test = "native_group_by_state_survives_failures_and_rescaling_through_flink_checkpoints";
    let library = built_library_path("streamfusion_jni");
    let run = match run_flink_driver("org.streamfusion.harness.AggRestore", &library, "1g") {
        Ok(run) => run,
        Err(why) => return report_skipped(test, &why),
    };
    let summary = run.summary().to_string();
    assert!(
        run.success,
        "AggRestore failed:\n{}\n{}",
        run.stdout, run.stderr_tail
    );
    run.assert_real_planner();
    assert_eq!(run.value("failed"), 0, "{summary}");
    // 4 queries (GROUP BY one- and two-phase, Top-3, Top-1) x 2 backends x (oracle,
    // failure, two rescalings), OVER x 2 backends x (oracle, failure, 1 -> 2), + 2 mismatches.
    assert_eq!(run.value("cases"), 40, "{summary}");
    assert!(run.value("sections_restored") > 0, "{summary}");
}
