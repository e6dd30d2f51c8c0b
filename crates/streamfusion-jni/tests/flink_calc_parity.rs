//! Unchanged Flink SQL with Calc runs natively in a MiniCluster, with results identical to
//! stock Flink 2.3.0.
//!
//! Spawns `org.streamfusion.flink.CalcParity` (`java/src/org/streamfusion/flink/`) on the
//! planner classpath of `cargo xtask jvm` (the real planner instead of its loader, so the
//! shadowed `DefaultPlannerFactory` builds `StreamFusionPlanner`), with the library built next
//! to this test. Every query runs stock and with `streamfusion.enabled = true` (chained and
//! unchained) in one JVM; the oracle is stock Flink's own output (row kinds included, as a
//! multiset). The Java driver
//! checks each query (outputs equal, Calc nodes substituted and shown by `EXPLAIN`, the
//! fallback query kept stock with a reason and refused with `streamfusion.fallback = false`);
//! this test requires its exit status and reads its summary. Without a JDK or the planner
//! classpath it reports itself skipped by name. `SF_JVM_CHECK_JNI=1` adds `-Xcheck:jni`.

use std::path::{Path, PathBuf};
use std::process::Command;

use bench_support::jvm::{CLASSPATH_FILE_ENV, built_library_path, java_command, report_skipped};

/// The variable `cargo xtask` sets to `classpath-planner.txt`.
const PLANNER_CLASSPATH_FILE_ENV: &str = "SF_JVM_PLANNER_CLASSPATH_FILE";

/// The planner classpath: `$SF_JVM_PLANNER_CLASSPATH_FILE`, else `classpath-planner.txt`
/// beside `$SF_JVM_CLASSPATH_FILE`, else in `<target>/jvm/` above this binary.
fn planner_classpath() -> Result<String, String> {
    let from_env = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let file = from_env(PLANNER_CLASSPATH_FILE_ENV)
        .or_else(|| {
            from_env(CLASSPATH_FILE_ENV)
                .and_then(|f| f.parent().map(|d| d.join("classpath-planner.txt")))
        })
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            // <target>/<profile>/deps/<test binary>
            let target = exe.parent()?.parent()?.parent()?;
            Some(target.join("jvm").join("classpath-planner.txt"))
        })
        .ok_or("cannot locate classpath-planner.txt; run `cargo xtask jvm`")?;
    let text = std::fs::read_to_string(&file).map_err(|e| {
        format!(
            "{}: {e}; run `cargo xtask jvm` (needs a JDK 17+ and the Flink jars)",
            file.display()
        )
    })?;
    let classpath = text.trim().to_string();
    if classpath.is_empty() {
        return Err(format!("{} is empty", file.display()));
    }
    Ok(classpath)
}

/// The value of `key=<value>` in the summary line.
fn summary_value(summary: &str, key: &str) -> u64 {
    summary
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in {summary:?}"))
}

#[test]
fn calc_queries_run_natively_in_a_minicluster_with_stock_results() {
    let test = "calc_queries_run_natively_in_a_minicluster_with_stock_results";
    let classpath = match planner_classpath() {
        Ok(cp) => cp,
        Err(why) => return report_skipped(test, &why),
    };
    if Command::new(java_command())
        .arg("-version")
        .output()
        .is_err()
    {
        return report_skipped(test, &"no `java` launcher (JAVA_HOME or PATH)");
    }
    let library = built_library_path("streamfusion_jni");
    assert!(
        library.is_file(),
        "{} is missing; build it with `cargo test --release -p streamfusion-jni`",
        library.display()
    );
    let library_dir = library.parent().unwrap_or(Path::new("."));
    let mut java = Command::new(java_command());
    java.args([
        "-Xmx1g",
        "--add-opens",
        "java.base/java.util=ALL-UNNAMED",
        "--add-opens",
        "java.base/java.lang=ALL-UNNAMED",
    ]);
    if std::env::var_os("SF_JVM_CHECK_JNI").is_some_and(|v| v == "1") {
        java.arg("-Xcheck:jni");
    }
    let output = java
        .arg(format!("-Djava.library.path={}", library_dir.display()))
        .arg(format!("-Dstreamfusion.jni.path={}", library.display()))
        .args(["-cp", &classpath, "org.streamfusion.flink.CalcParity"])
        .output()
        .expect("run java");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Past the harness's capture: the per-query lines are the evidence.
    eprintln!("{stdout}");
    let summary = stdout
        .lines()
        .find(|l| l.starts_with("summary: "))
        .unwrap_or_else(|| {
            panic!(
                "CalcParity printed no summary ({}):\n{stdout}\n{}",
                output.status,
                stderr.lines().rev().take(60).collect::<Vec<_>>().join("\n")
            )
        });
    assert!(
        output.status.success(),
        "CalcParity failed ({}):\n{stdout}",
        output.status
    );
    let activation = stdout
        .lines()
        .find(|l| l.starts_with("StreamFusion planner extension active"))
        .expect("the activation line");
    assert!(
        activation.contains("flink-table-planner_2.12") && !activation.contains("loader"),
        "the extension must run on the real planner: {activation}"
    );
    let queries = summary_value(summary, "queries");
    assert!(queries >= 20, "{summary}");
    assert_eq!(summary_value(summary, "matched"), queries, "{summary}");
    assert_eq!(summary_value(summary, "failed"), 0, "{summary}");
    let expected_stock = summary_value(summary, "expected_stock");
    assert!(expected_stock >= 1, "a query must fall back: {summary}");
    assert_eq!(
        summary_value(summary, "stock_nodes"),
        expected_stock,
        "only the fallback queries stay stock: {summary}"
    );
    assert!(
        summary_value(summary, "native_nodes") >= queries - expected_stock,
        "{summary}"
    );
    // Both ways rows reach the operator: converted by Flink's serializer (chained behind the
    // input conversion) and as BinaryRowData bytes (unchained).
    let converted = summary_value(summary, "converted_rows");
    assert!(
        converted > 0 && converted < summary_value(summary, "native_rows_in"),
        "{summary}"
    );
    // Bundles of at most 64 rows: several per query, never one per row.
    let (rows, bundles) = (
        summary_value(summary, "native_rows_in"),
        summary_value(summary, "bundles"),
    );
    assert!(bundles > queries && bundles * 8 < rows, "{summary}");
}
