//! Native keyed state lives in Flink's managed memory (decision 0044).
//!
//! Runs `org.streamfusion.harness.ManagedMemory` (`java/src/org/streamfusion/harness/`) in one
//! MiniCluster JVM on the planner classpath: a native GROUP BY reserves its share of the
//! slot's managed memory in the task's memory manager while it runs (all of it on `hashmap`,
//! where it is the only consumer; part of it on `rocksdb`, beside Flink's backend), releases it,
//! and gives the stock changelog; with too little managed memory the job fails with the native
//! resource error; with weight 0 nothing is reserved. Without a JDK or the planner classpath
//! it reports itself skipped by name.

use bench_support::jvm::{built_library_path, report_skipped, run_flink_driver};

#[test]
fn native_keyed_state_is_reserved_in_and_capped_by_flink_managed_memory() {
    let test = "native_keyed_state_is_reserved_in_and_capped_by_flink_managed_memory";
    let library = built_library_path("streamfusion_jni");
    let run = match run_flink_driver("org.streamfusion.harness.ManagedMemory", &library, "1g") {
        Ok(run) => run,
        Err(why) => return report_skipped(test, &why),
    };
    let summary = run.summary().to_string();
    assert!(
        run.success,
        "ManagedMemory failed:\n{}\n{}",
        run.stdout, run.stderr_tail
    );
    run.assert_real_planner();
    assert_eq!(run.value("failed"), 0, "{summary}");
    assert_eq!(run.value("cases"), 8, "{summary}");
    let managed = run.value("managed");
    assert_eq!(run.value("hashmap_reserved"), managed, "{summary}");
    let rocksdb = run.value("rocksdb_reserved");
    assert!(rocksdb > 0 && rocksdb < managed, "{summary}");
}
