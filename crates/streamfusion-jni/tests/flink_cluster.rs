//! StreamFusion in a real standalone Flink 2.3.0 cluster: the distribution `cargo xtask flink`
//! assembles (`SF_FLINK_HOME`), started with `bin/start-cluster.sh` on localhost.
//!
//! One SQL script (datagen sequence -> Calc with a filter, arithmetic and UPPER -> GROUP BY
//! with COUNT/SUM/MIN/MAX -> `print`) is submitted with `bin/flink run` three times: stock,
//! native (the plan's vertices are StreamFusion's, they processed records, the client logged
//! the activation line, and the final row per key equals stock's), and native again with the
//! TaskManager killed (`kill -9`) mid-job and a new one started: the job restores its last
//! checkpoint and still ends with stock's rows. The `print` sink's changelog (in the
//! TaskManagers' `.out` files) is applied per key to get the final rows. The wheels carry no
//! SQL gateway jar, so `bin/sql-client.sh` cannot run there; the distribution's
//! `opt/streamfusion-sql-script.jar` runs the script instead. Without `SF_FLINK_HOME` the
//! test reports itself skipped by name.

use std::collections::BTreeMap;
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use bench_support::jvm::report_skipped;
use serde_json::Value;

const TEST: &str = "a_standalone_cluster_runs_sql_natively_and_recovers_a_killed_task_manager";

/// Rows the datagen sequence produces.
const ROWS: u64 = 6000;

#[test]
fn a_standalone_cluster_runs_sql_natively_and_recovers_a_killed_task_manager() {
    let Some(home) = std::env::var_os("SF_FLINK_HOME").filter(|h| !h.is_empty()) else {
        return report_skipped(
            TEST,
            &"SF_FLINK_HOME is not set: `cargo xtask test` assembles the distribution \
              (`cargo xtask flink`) when a JDK and pip are there",
        );
    };
    let cluster = Cluster::start(Path::new(&home));

    let stock = cluster.run("stock", false, 3000);
    assert!(
        stock
            .vertices
            .iter()
            .all(|v| !v.name.contains("StreamFusion")),
        "the stock run has StreamFusion vertices: {:?}",
        stock.vertices
    );
    assert_eq!(
        stock.rows.len(),
        7,
        "one final row per key: {:?}",
        stock.rows
    );

    let native = cluster.run("native", true, 3000);
    let ours: Vec<&Vertex> = native
        .vertices
        .iter()
        .filter(|v| v.name.contains("StreamFusion"))
        .collect();
    assert!(
        ours.iter()
            .any(|v| v.name.contains("StreamFusionGroupAggregate")),
        "the native run's GROUP BY is not StreamFusion's: {:?}",
        native.vertices
    );
    assert!(
        ours.iter().any(|v| v.name.contains("StreamFusionCalc")),
        "the native run's Calc is not StreamFusion's: {:?}",
        native.vertices
    );
    for vertex in &ours {
        assert!(
            vertex.read_records + vertex.write_records > 0,
            "{vertex:?} processed no records"
        );
    }
    let client_log = cluster.logs("client");
    assert!(
        client_log.contains("StreamFusion planner extension active"),
        "the client log has no activation line"
    );
    assert_eq!(native.rows, stock.rows, "native rows differ from stock");

    let recovered = cluster.run_killing_task_manager("recovery", 300);
    assert!(
        recovered.restored >= 1,
        "the job did not restore a checkpoint ({} restored)",
        recovered.restored
    );
    assert!(
        recovered
            .vertices
            .iter()
            .any(|v| v.name.contains("StreamFusion")),
        "the recovery run is not native: {:?}",
        recovered.vertices
    );
    assert_eq!(
        recovered.rows, stock.rows,
        "rows after recovery differ from stock"
    );
}

/// The script: `enabled` switches StreamFusion; `rate` limits the source (rows per second).
fn script(name: &str, enabled: bool, rate: u64) -> String {
    format!(
        "SET 'streamfusion.enabled' = '{enabled}';
SET 'pipeline.name' = 'sf-{name}';
CREATE TABLE src (id BIGINT) WITH (
  'connector' = 'datagen',
  'fields.id.kind' = 'sequence',
  'fields.id.start' = '1',
  'fields.id.end' = '{ROWS}',
  'rows-per-second' = '{rate}'
);
CREATE TABLE out_{name} (k STRING, c BIGINT, s BIGINT, mn BIGINT, mx BIGINT,
  PRIMARY KEY (k) NOT ENFORCED) WITH (
  'connector' = 'print',
  'print-identifier' = 'sf-{name}'
);
INSERT INTO out_{name}
SELECT k, COUNT(*), SUM(v), MIN(v), MAX(v)
FROM (
  SELECT UPPER(CONCAT('key-', CAST(id % 7 AS STRING))) AS k, id * 3 + 1 AS v
  FROM src WHERE id % 10 <> 3
) GROUP BY k;
"
    )
}

#[derive(Debug)]
struct Vertex {
    name: String,
    read_records: u64,
    write_records: u64,
}

struct Run {
    vertices: Vec<Vertex>,
    /// The final row per key.
    rows: BTreeMap<String, String>,
    /// Checkpoints the job restored.
    restored: u64,
}

/// A running cluster in its own copy of the distribution; stopped on drop (a panic too).
struct Cluster {
    dir: Option<tempfile::TempDir>,
    flink: PathBuf,
    rest: String,
}

impl Cluster {
    /// Copies `bin/` and `conf/` (links the jars, file by file: Flink's scripts `find` them
    /// without following a linked directory), writes a localhost config and starts it.
    fn start(home: &Path) -> Cluster {
        let dir = tempfile::Builder::new()
            .prefix("sf-flink-cluster-")
            .tempdir()
            .expect("a temporary directory");
        let flink = dir.path().join("flink");
        fs::create_dir_all(flink.join("log")).unwrap();
        for copied in ["bin", "conf"] {
            copy_dir(&home.join(copied), &flink.join(copied));
        }
        for linked in ["lib", "opt", "plugins"] {
            link_dir(&home.join(linked), &flink.join(linked));
        }
        let shipped = fs::read_to_string(home.join("conf/config.yaml")).unwrap();
        let java_opts = shipped
            .lines()
            .find_map(|l| l.trim().strip_prefix("all: "))
            .expect("the shipped config.yaml has env.java.opts.all");
        let rest_port = free_port();
        let root = dir.path().display();
        fs::write(
            flink.join("conf/config.yaml"),
            format!(
                "env.java.opts.all: {java_opts}
env.pid.dir: {root}/pid
jobmanager.rpc.address: localhost
jobmanager.rpc.port: {rpc}
jobmanager.bind-host: localhost
jobmanager.memory.process.size: 1024m
taskmanager.bind-host: localhost
taskmanager.host: localhost
taskmanager.numberOfTaskSlots: 2
taskmanager.memory.process.size: 1280m
parallelism.default: 2
rest.address: localhost
rest.bind-address: localhost
rest.port: {rest_port}
execution.checkpointing.interval: 1s
execution.checkpointing.dir: file://{root}/checkpoints
restart-strategy.type: fixed-delay
restart-strategy.fixed-delay.attempts: 20
restart-strategy.fixed-delay.delay: 2s
heartbeat.interval: 1000
heartbeat.timeout: 5000
",
                rpc = free_port()
            ),
        )
        .unwrap();
        let cluster = Cluster {
            dir: Some(dir),
            flink,
            rest: format!("http://localhost:{rest_port}"),
        };
        cluster.script("start-cluster.sh", &[]);
        cluster.wait_for_task_managers(1);
        cluster
    }

    fn root(&self) -> &Path {
        self.dir.as_ref().expect("the directory is kept").path()
    }

    /// Runs a `bin/` script, requiring success.
    fn script(&self, name: &str, args: &[&str]) -> String {
        let output = Command::new(self.flink.join("bin").join(name))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("starting bin/{name}: {e}"));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            output.status.success(),
            "bin/{name} {args:?} failed:\n{text}"
        );
        text
    }

    fn get(&self, path: &str) -> Option<Value> {
        let output = Command::new("curl")
            .args(["-sf", "--max-time", "5", &format!("{}{path}", self.rest)])
            .stdin(Stdio::null())
            .output()
            .expect("curl runs");
        output
            .status
            .success()
            .then(|| serde_json::from_slice(&output.stdout).ok())
            .flatten()
    }

    fn wait_for_task_managers(&self, count: u64) {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let registered = self
                .get("/overview")
                .and_then(|o| o["taskmanagers"].as_u64())
                .unwrap_or(0);
            if registered >= count {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "no {count} TaskManager(s) registered within 90 s; logs:\n{}",
                self.logs("")
            );
            sleep(Duration::from_millis(500));
        }
    }

    /// Submits the script with `bin/flink run`; returns the job ID.
    fn submit(&self, name: &str, enabled: bool, rate: u64) -> String {
        let file = self.root().join(format!("{name}.sql"));
        fs::write(&file, script(name, enabled, rate)).unwrap();
        let runner = self.flink.join("opt/streamfusion-sql-script.jar");
        let output = self.script(
            "flink",
            &["run", runner.to_str().unwrap(), file.to_str().unwrap()],
        );
        output
            .lines()
            .find_map(|l| l.trim().strip_prefix("Job ID: "))
            .unwrap_or_else(|| panic!("no job ID in the output of bin/flink run:\n{output}"))
            .trim()
            .to_string()
    }

    fn state(&self, job: &str) -> String {
        self.get(&format!("/jobs/{job}"))
            .and_then(|j| j["state"].as_str().map(str::to_string))
            .unwrap_or_default()
    }

    fn wait_finished(&self, job: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            match self.state(job).as_str() {
                "FINISHED" => return,
                state @ ("FAILED" | "CANCELED") => panic!(
                    "job {job} {state}: {}",
                    self.get(&format!("/jobs/{job}/exceptions"))
                        .map(|e| e.to_string())
                        .unwrap_or_default()
                ),
                _ => {}
            }
            assert!(
                Instant::now() < deadline,
                "job {job} did not finish within {limit:?} (state {})",
                self.state(job)
            );
            sleep(Duration::from_millis(500));
        }
    }

    fn checkpoint_counts(&self, job: &str) -> (u64, u64) {
        let counts = self
            .get(&format!("/jobs/{job}/checkpoints"))
            .map(|c| c["counts"].clone())
            .unwrap_or_default();
        (
            counts["completed"].as_u64().unwrap_or(0),
            counts["restored"].as_u64().unwrap_or(0),
        )
    }

    fn run(&self, name: &str, enabled: bool, rate: u64) -> Run {
        let job = self.submit(name, enabled, rate);
        self.wait_finished(&job, Duration::from_secs(90));
        self.result(name, &job)
    }

    /// A native run whose TaskManager is killed after two completed checkpoints and replaced.
    fn run_killing_task_manager(&self, name: &str, rate: u64) -> Run {
        let job = self.submit(name, true, rate);
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.checkpoint_counts(&job).0 < 2 {
            assert!(
                Instant::now() < deadline,
                "job {job} completed no 2 checkpoints within 60 s (state {})",
                self.state(&job)
            );
            sleep(Duration::from_millis(200));
        }
        assert_eq!(self.state(&job), "RUNNING", "the job ended before the kill");
        let pid = self.task_manager_pids().pop().expect("a TaskManager pid");
        let killed = Command::new("kill").args(["-9", &pid]).status().unwrap();
        assert!(killed.success(), "kill -9 {pid}");
        self.script("taskmanager.sh", &["start"]);
        self.wait_finished(&job, Duration::from_secs(120));
        self.result(name, &job)
    }

    fn result(&self, name: &str, job: &str) -> Run {
        let details = self.get(&format!("/jobs/{job}")).expect("job details");
        let vertices = details["vertices"]
            .as_array()
            .expect("vertices")
            .iter()
            .map(|v| Vertex {
                name: v["name"].as_str().unwrap_or_default().to_string(),
                read_records: v["metrics"]["read-records"].as_u64().unwrap_or(0),
                write_records: v["metrics"]["write-records"].as_u64().unwrap_or(0),
            })
            .collect();
        Run {
            vertices,
            rows: self.final_rows(&format!("sf-{name}")),
            restored: self.checkpoint_counts(job).1,
        }
    }

    /// The `print` sink's changelog for `identifier`, from every TaskManager's `.out` file in
    /// the order they were written, applied per key (the first field).
    fn final_rows(&self, identifier: &str) -> BTreeMap<String, String> {
        let mut outs: Vec<PathBuf> = fs::read_dir(self.flink.join("log"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy();
                name.contains("taskexecutor") && name.ends_with(".out")
            })
            .collect();
        outs.sort_by_key(|p| fs::metadata(p).and_then(|m| m.modified()).ok());
        let mut rows = BTreeMap::new();
        for out in outs {
            for line in fs::read_to_string(&out).unwrap().lines() {
                let Some((prefix, change)) = line.split_once("> ") else {
                    continue;
                };
                if prefix.split(':').next() != Some(identifier) || change.len() < 4 {
                    continue;
                }
                let (kind, row) = change.split_at(2);
                let fields = row.trim_start_matches('[').trim_end_matches(']');
                let key = fields.split(", ").next().unwrap_or_default().to_string();
                match kind {
                    "+I" | "+U" => {
                        rows.insert(key, fields.to_string());
                    }
                    "-D" => {
                        rows.remove(&key);
                    }
                    _ => {}
                }
            }
        }
        rows
    }

    /// The live TaskManager pids, oldest first, from the pid file.
    fn task_manager_pids(&self) -> Vec<String> {
        self.pids("taskexecutor")
            .into_iter()
            .filter(|pid| Path::new(&format!("/proc/{pid}")).exists())
            .collect()
    }

    fn pids(&self, daemon: &str) -> Vec<String> {
        let Ok(entries) = fs::read_dir(self.root().join("pid")) else {
            return Vec::new();
        };
        entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().contains(daemon))
            .flat_map(|p| {
                fs::read_to_string(p)
                    .unwrap_or_default()
                    .lines()
                    .map(|l| l.trim().to_string())
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// The `log/*.log` files whose name contains `which`, concatenated.
    fn logs(&self, which: &str) -> String {
        let mut text = String::new();
        for entry in fs::read_dir(self.flink.join("log")).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.contains(which) && name.ends_with(".log") {
                text.push_str(&fs::read_to_string(&path).unwrap_or_default());
            }
        }
        text
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(self.flink.join("bin/stop-cluster.sh"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        // Whatever the script left (a TaskManager it no longer lists).
        for pid in self.pids("") {
            if Path::new(&format!("/proc/{pid}")).exists() {
                let _ = Command::new("kill").args(["-9", &pid]).status();
            }
        }
        if std::thread::panicking()
            && let Some(dir) = self.dir.take()
        {
            eprintln!(
                "{TEST}: the cluster's files are kept in {}",
                dir.keep().display()
            );
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            // fs::copy keeps the permission bits (the scripts stay executable).
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `to` with a symbolic link to every file under `from`.
fn link_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            link_dir(&entry.path(), &target);
        } else {
            std::os::unix::fs::symlink(entry.path(), &target).unwrap();
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}
