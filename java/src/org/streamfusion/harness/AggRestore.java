package org.streamfusion.harness;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.ExceptionUtils;

import org.streamfusion.flink.StreamFusionPlanner;
import org.streamfusion.flink.NativeOneInputOperator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Native GROUP BY, Top-N and OVER state through Flink's own checkpoints, in one MiniCluster JVM:
 * recovery from an injected failure, stop-with-savepoint and restore at another parallelism
 * (2 -> 1, 1 -> 2), on the hashmap and the RocksDB state backend, GROUP BY one- and two-phase.
 *
 * <p>The input is Flink's {@code datagen} sequence, rate-limited so a job is still running when
 * it fails or is stopped, and checkpointed by Flink (so a restored job continues the sequence
 * where the snapshot left it). The oracle is the stock job run without interruption: its final
 * result per key (the changelog applied as an upsert sink would) must equal the native runs',
 * which span a failure and restart or two jobs joined by a savepoint. A run only counts if its
 * native operators really restored from key-group sections.
 *
 * <p>Also checked: a stock savepoint restored with StreamFusion on fails with StreamFusion's
 * message, and a StreamFusion savepoint restored with it off fails too (Flink's stock operator
 * cannot read the sections). Prints one line per case and a last line {@code summary: ...};
 * exits 1 on any failure.
 */
public final class AggRestore {
    private static final int ROWS = 6000;
    private static final int ROWS_PER_SECOND = 4000;

    /** Every job's output, by run tag (the sink runs in this JVM's MiniCluster). */
    static final Map<String, ConcurrentLinkedQueue<Row>> OUTPUTS = new ConcurrentHashMap<>();

    /** One query: its SQL, how many leading columns are its key, and its table options. */
    static final class Query {
        final String name;
        final String sql;
        final int keyColumns;
        final boolean twoPhase;
        /**
         * Orders rows by event time: not restored from 2 subtasks into 1, where the one source
         * subtask reads the two sequence splits one after the other, so the second one's rows
         * fall behind the watermark the first one raised, and stock and native drop them
         * alike, unlike the uninterrupted oracle.
         */
        boolean eventTime;

        Query(String name, String sql, int keyColumns, boolean twoPhase) {
            this.name = name;
            this.sql = sql;
            this.keyColumns = keyColumns;
            this.twoPhase = twoPhase;
        }

        Query eventTime() {
            eventTime = true;
            return this;
        }
    }

    static final Query[] QUERIES = {
        new Query(
                "one_phase",
                "SELECT k, COUNT(*), SUM(v), MIN(v), MAX(v), AVG(v) FROM src GROUP BY k",
                1,
                false),
        new Query(
                "two_phase_string_key",
                "SELECT s, k % 5, COUNT(*), SUM(v), MAX(v) FROM src GROUP BY s, k % 5",
                2,
                true),
        // Top-N: v is unique within a partition, so the final ranks do not depend on arrival.
        new Query(
                "top3_rank",
                "SELECT k, rn, v, s FROM (SELECT k, v, s, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY v DESC) AS rn FROM src) WHERE rn <= 3",
                2,
                false),
        new Query(
                "top1",
                "SELECT k, v, s FROM (SELECT k, v, s, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY v) AS rn FROM src) WHERE rn = 1",
                1,
                false),
        // OVER in event time: each source subtask's times only grow, so no row is late and
        // every row's frame is fixed; (k, id) is unique, so each output row is its own key.
        new Query(
                "over_rows",
                "SELECT k, id, v, SUM(v) OVER w, COUNT(*) OVER w, MAX(s) OVER w FROM tsrc"
                        + " WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING"
                        + " AND CURRENT ROW)",
                2,
                false).eventTime(),
    };

    /** How one job runs. */
    static final class Job {
        Query query;
        String backend = "hashmap";
        boolean enabled = true;
        int parallelism = 1;
        String restoreFrom;
        /** Stop with a savepoint once the sink saw this many rows (0: run to the end). */
        long savepointAfter;
        /** Fail once, mid-job, after this many completed checkpoints (0: never). */
        int failAfterCheckpoints;
        Path savepointDir;
    }

    static final AtomicLong SEEN = new AtomicLong();
    static final AtomicBoolean FAILED = new AtomicBoolean();
    static final AtomicInteger CHECKPOINTS = new AtomicInteger();

    /**
     * Passes rows on; fails the job once when asked, on a row after enough checkpoints
     * completed (counted in checkpoints, not rows: a mini-batch job emits few rows).
     */
    static final class FailOnce extends RichMapFunction<Row, Row> implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final int failAfterCheckpoints;

        FailOnce(int failAfterCheckpoints) {
            this.failAfterCheckpoints = failAfterCheckpoints;
        }

        @Override
        public void open(OpenContext context) {}

        @Override
        public Row map(Row row) {
            long seen = SEEN.incrementAndGet();
            if (failAfterCheckpoints > 0 && CHECKPOINTS.get() >= failAfterCheckpoints
                    && FAILED.compareAndSet(false, true)) {
                throw new RuntimeException("AggRestore: injected failure after " + seen + " rows");
            }
            return row;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            CHECKPOINTS.incrementAndGet();
        }
    }

    /** Collects a job's rows into {@link #OUTPUTS} under its tag. */
    static final class Collect implements Sink<Row> {
        private static final long serialVersionUID = 1L;
        private final String tag;

        Collect(String tag) {
            this.tag = tag;
        }

        @Override
        public SinkWriter<Row> createWriter(WriterInitContext context) {
            ConcurrentLinkedQueue<Row> queue =
                    OUTPUTS.computeIfAbsent(tag, t -> new ConcurrentLinkedQueue<>());
            return new SinkWriter<Row>() {
                @Override
                public void write(Row row, Context ctx) {
                    queue.add(row);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    /** Runs {@code job} under {@code tag}; returns the savepoint path when it took one. */
    static String run(Job job, String tag) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", job.backend);
        conf.setString("execution.checkpointing.interval", "100 ms");
        conf.setString("taskmanager.memory.network.min", "128mb");
        conf.setString("taskmanager.memory.network.max", "128mb");
        if (job.failAfterCheckpoints > 0) {
            conf.setString("restart-strategy.type", "fixed-delay");
            conf.setString("restart-strategy.fixed-delay.attempts", "2");
            conf.setString("restart-strategy.fixed-delay.delay", "100 ms");
        } else {
            conf.setString("restart-strategy.type", "none");
        }
        if (job.restoreFrom != null) {
            conf.setString("execution.state-recovery.path", job.restoreFrom);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(job.parallelism);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(StreamFusionPlanner.ENABLED, job.enabled);
        tEnv.getConfig().set(StreamFusionPlanner.FALLBACK, false);
        tEnv.getConfig().set(StreamFusionPlanner.BUNDLE_ROWS, 64);
        if (job.query.twoPhase) {
            tEnv.getConfig().set("table.exec.mini-batch.enabled", "true");
            tEnv.getConfig().set("table.exec.mini-batch.allow-latency", "50 ms");
            tEnv.getConfig().set("table.exec.mini-batch.size", "100");
            tEnv.getConfig().set("table.optimizer.agg-phase-strategy", "TWO_PHASE");
        }
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE seq (id BIGINT) WITH ('connector' = 'datagen',"
                        + " 'rows-per-second' = '" + ROWS_PER_SECOND + "',"
                        + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '0',"
                        + " 'fields.id.end' = '" + (ROWS - 1) + "')");
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW src AS SELECT CAST(id % 97 AS INT) AS k,"
                        + " CONCAT('k-', CAST(id % 13 AS STRING), 'ß') AS s,"
                        + " id * 7 % 1000 - 300 AS v FROM seq");
        // The same sequence with an event time (10 ms a row) and its watermark.
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE tseq (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3),"
                        + " WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '" + ROWS_PER_SECOND
                        + "', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0',"
                        + " 'fields.id.end' = '" + (ROWS - 1) + "')");
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW tsrc AS SELECT CAST(id % 97 AS INT) AS k, id,"
                        + " CONCAT('k-', CAST(id % 13 AS STRING), 'ß') AS s,"
                        + " id * 7 % 1000 - 300 AS v, ts FROM tseq");
        tEnv.toChangelogStream(tEnv.sqlQuery(job.query.sql))
                .map(new FailOnce(job.failAfterCheckpoints))
                .sinkTo(new Collect(tag));
        SEEN.set(0);
        FAILED.set(false);
        CHECKPOINTS.set(0);
        JobClient client = env.executeAsync("agg-restore-" + tag);
        if (job.savepointAfter > 0) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (SEEN.get() < job.savepointAfter) {
                if (System.nanoTime() > deadline || client.getJobStatus().get().isTerminalState()) {
                    throw new IllegalStateException(
                            tag + ": the job ended or stalled before " + job.savepointAfter
                                    + " rows (" + SEEN.get() + ")");
                }
                Thread.sleep(5);
            }
            // A task still deploying (or one already finished) refuses the savepoint's
            // barrier; under load that happens after the sink saw rows: try again.
            for (int attempt = 0; ; attempt++) {
                try {
                    return client.stopWithSavepoint(
                                    false,
                                    job.savepointDir.toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    boolean notRunning =
                            ExceptionUtils.findThrowableWithMessage(
                                            e, "not being executed at the moment")
                                    .isPresent();
                    if (!notRunning || attempt == 50) {
                        throw e;
                    }
                    Thread.sleep(100);
                }
            }
        }
        client.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        return null;
    }

    /** The final result per key: the changelog applied as an upsert sink applies it. */
    static Map<String, String> materialize(Query query, List<String> tags) {
        Map<String, String> out = new TreeMap<>();
        for (String tag : tags) {
            for (Row row : OUTPUTS.getOrDefault(tag, new ConcurrentLinkedQueue<>())) {
                StringBuilder key = new StringBuilder();
                for (int i = 0; i < query.keyColumns; i++) {
                    key.append(row.getField(i)).append('|');
                }
                RowKind kind = row.getKind();
                if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
                    Row plain = Row.copy(row);
                    plain.setKind(RowKind.INSERT);
                    out.put(key.toString(), plain.toString());
                } else if (kind == RowKind.DELETE) {
                    out.remove(key.toString());
                }
            }
        }
        return out;
    }

    static int failures;
    static int cases;

    static void check(String name, boolean ok, String detail) {
        cases++;
        if (!ok) {
            failures++;
        }
        System.out.println((ok ? "ok   " : "FAIL ") + name + (detail.isEmpty() ? "" : ": " + detail));
    }

    static String difference(Map<String, String> want, Map<String, String> got) {
        if (want.equals(got)) {
            return want.size() + " keys equal";
        }
        for (Map.Entry<String, String> e : want.entrySet()) {
            if (!Objects.equals(e.getValue(), got.get(e.getKey()))) {
                return "key " + e.getKey() + ": stock " + e.getValue() + ", native " + got.get(e.getKey())
                        + " (" + want.size() + " vs " + got.size() + " keys)";
            }
        }
        return "native has extra keys (" + want.size() + " vs " + got.size() + ")";
    }

    public static void main(String[] args) throws Exception {
        System.out.println(StreamFusionPlanner.activation());
        Path dir = Files.createTempDirectory("agg-restore");
        int n = 0;
        for (Query query : QUERIES) {
            for (String backend : new String[] {"hashmap", "rocksdb"}) {
                String prefix = query.name + "/" + backend;
                Job stock = new Job();
                stock.query = query;
                stock.backend = backend;
                stock.enabled = false;
                String oracleTag = prefix + "/stock";
                run(stock, oracleTag);
                Map<String, String> want = materialize(query, List.of(oracleTag));
                long oracleRows = OUTPUTS.get(oracleTag).size();
                check(prefix + " stock oracle", want.size() > 10, want.size() + " keys");

                // An injected failure after a completed checkpoint: Flink restarts the job from
                // it, and the native operators restore from their key-group sections.
                Job failing = new Job();
                failing.query = query;
                failing.backend = backend;
                failing.parallelism = 2;
                // Each subtask's sink counts its own notifications: 4 is about 2 checkpoints.
                failing.failAfterCheckpoints = 4;
                long restoredBefore = NativeOneInputOperator.SECTIONS_RESTORED.get();
                String tag = prefix + "/failure";
                run(failing, tag);
                long restored = NativeOneInputOperator.SECTIONS_RESTORED.get() - restoredBefore;
                Map<String, String> got = materialize(query, List.of(tag));
                check(prefix + " failure and recovery",
                        FAILED.get() && restored > 0 && want.equals(got),
                        "failed=" + FAILED.get() + " sections_restored=" + restored + ", "
                                + difference(want, got));

                // Stop with a savepoint, restore at another parallelism.
                for (int[] scaling : new int[][] {{2, 1}, {1, 2}}) {
                    if (query.eventTime && scaling[1] < scaling[0]) {
                        continue;
                    }
                    Job first = new Job();
                    first.query = query;
                    first.backend = backend;
                    first.parallelism = scaling[0];
                    // Mid-job: a Top-1 emits far fewer rows than it reads.
                    first.savepointAfter = Math.min(ROWS / 4, oracleRows / 4);
                    first.savepointDir = dir.resolve("sp-" + n++);
                    String firstTag = prefix + "/p" + scaling[0] + "-before";
                    long written = NativeOneInputOperator.SECTIONS_WRITTEN.get();
                    String savepoint = run(first, firstTag);
                    written = NativeOneInputOperator.SECTIONS_WRITTEN.get() - written;
                    Job second = new Job();
                    second.query = query;
                    second.backend = backend;
                    second.parallelism = scaling[1];
                    second.restoreFrom = savepoint;
                    String secondTag = prefix + "/p" + scaling[1] + "-after";
                    restoredBefore = NativeOneInputOperator.SECTIONS_RESTORED.get();
                    run(second, secondTag);
                    restored = NativeOneInputOperator.SECTIONS_RESTORED.get() - restoredBefore;
                    got = materialize(query, List.of(firstTag, secondTag));
                    check(prefix + " savepoint " + scaling[0] + " -> " + scaling[1],
                            written > 0 && restored > 0 && want.equals(got),
                            "sections_written=" + written + " sections_restored=" + restored
                                    + ", " + difference(want, got));
                }
            }
        }

        // Mismatched savepoints, both ways: state layouts differ, so each must fail.
        Query query = QUERIES[0];
        for (boolean nativeFirst : new boolean[] {false, true}) {
            Job first = new Job();
            first.query = query;
            first.enabled = nativeFirst;
            first.savepointAfter = ROWS / 4;
            first.savepointDir = dir.resolve("sp-" + n++);
            String savepoint = run(first, "mismatch-" + nativeFirst + "-before");
            Job second = new Job();
            second.query = query;
            second.enabled = !nativeFirst;
            second.restoreFrom = savepoint;
            String error = null;
            try {
                run(second, "mismatch-" + nativeFirst + "-after");
            } catch (Exception e) {
                error = ExceptionUtils.stringifyException(e);
            }
            String name = nativeFirst
                    ? "a StreamFusion savepoint restored with StreamFusion off fails"
                    : "a stock savepoint restored with StreamFusion on fails";
            boolean ok = error != null
                    && (nativeFirst || error.contains("holds no StreamFusion state"));
            check(name, ok, error == null ? "it ran" : firstLine(error, nativeFirst));
        }

        System.out.println("summary: cases=" + cases + " failed=" + failures
                + " sections_written=" + NativeOneInputOperator.SECTIONS_WRITTEN.get()
                + " sections_restored=" + NativeOneInputOperator.SECTIONS_RESTORED.get());
        System.exit(failures == 0 ? 0 : 1);
    }

    /** The line of a stack trace that says why (the deepest cause's message). */
    static String firstLine(String trace, boolean nativeFirst) {
        String cause = null;
        for (String line : trace.split("\n")) {
            if (line.startsWith("Caused by: ")) {
                cause = line;
            }
        }
        if (!nativeFirst) {
            int at = trace.indexOf("holds no StreamFusion state");
            if (at >= 0) {
                int start = trace.lastIndexOf('\n', at) + 1;
                int end = trace.indexOf('\n', at);
                return trace.substring(start, end < 0 ? trace.length() : end).trim();
            }
        }
        return cause == null ? trace.split("\n")[0] : cause;
    }
}
