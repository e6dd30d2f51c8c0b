package org.streamfusion.harness;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.streamfusion.flink.NativeStreamOperator;
import org.streamfusion.flink.StreamFusionPlanner;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whole Flink SQL jobs, stock against native: the JVM side of {@code cargo xtask job}.
 *
 * <p>Each job reads Flink's {@code datagen} sequence (bounded, unthrottled, deterministic) through
 * a view that derives the catalogue's fixture columns from it: a key of {@code keys} distinct
 * values (a string with a {@code width}-byte suffix when {@code width > 0}), an integer value,
 * a double and a short string; with {@code nullable}, keys are NULL on one residue and values
 * on another, independently. The window jobs' view {@code wsrc} has the same key and value
 * and an event time {@code ts} (TIMESTAMP_LTZ(3): row {@code id} at {@code id} ms, slightly out
 * of order); the deduplication jobs' view {@code psrc} is {@code src} with a processing time
 * {@code pt} (at parallelism 1 the rows reach the deduplication in sequence order, so its
 * result does not depend on timing; so do a Top-N's, whose ties arrival decides); the join
 * jobs' view {@code dim} has one row per key value (a second sequence of {@code keys} rows, its
 * key derived as {@code src}'s: the same suffix and NULL mask) and two values. Timed runs write
 * to {@code blackhole}; verifying runs collect.
 *
 * <p>Commands (one line of {@code key=value} output each, for xtask to read):
 *
 * <ul>
 *   <li>{@code list}: {@code job name=... description=...} per job;
 *   <li>{@code verify --job J [settings]}: runs J stock and native in this JVM with a collecting
 *       sink and compares the whole outputs as changelog multisets (values, NULLs, row kinds)
 *       or, for a job whose changelog depends on how its two inputs interleave (a join), as
 *       final results ({@link Compare#FINAL}); writes both {@code EXPLAIN}s to {@code --plans
 *       DIR}; prints {@code verify ... equal= native_nodes= stock_nodes= compared=}; exits 1
 *       unless equal with every expected node native;
 *   <li>{@code time --job J --engine stock|native [settings]}: one timed run in this (fresh)
 *       JVM; prints {@code trial ... wall_ms= records_per_s= gc_ms= peak_rss_kb= native_nodes= jni_pushes= jni_rows=} (the native
 *       operators' JNI bundle pushes and the rows they carried).
 *   <li>{@code series --job J --engines stock,native,... [settings]}: one timed run per
 *       listed engine, in order, all in this JVM (the JIT and the classes stay warm from run
 *       to run); prints a {@code trial} line each, {@code peak_rss_kb} the JVM's so far.
 * </ul>
 *
 * <p>Settings: {@code --rows N --keys K --width W --nullable --state hashmap|rocksdb}.
 */
public final class JobBench {
    /** How {@code verify} compares a job's two outputs. */
    enum Compare {
        /** As changelog multisets: values, NULLs, row kinds. */
        CHANGELOG,
        /**
         * As final results: each changelog applied in arrival order ({@code +I}/{@code +U} add
         * a row, {@code -U}/{@code -D} remove one), no retraction removing a row that is not
         * there. For jobs whose changelog depends on how two inputs interleave (a join: its
         * inputs reach it in no fixed order), while the final result does not.
         */
        FINAL
    }

    /**
     * One job: its SQL over {@code src} (or {@code psrc}, {@code wsrc}, {@code dim}), the native
     * nodes its plan must have, how {@code verify} compares its outputs, and the table options
     * it is planned under ({@code key, value, ...}).
     */
    record Job(
            String name, String description, String select, String[] nativeNodes,
            Compare compare, String... options) {
        /** A job whose outputs are compared as changelogs. */
        Job(String name, String description, String select, String[] nativeNodes,
                String... options) {
            this(name, description, select, nativeNodes, Compare.CHANGELOG, options);
        }
    }

    /** A window job planned as one {@code WindowAggregate} (AUTO splits it in two phases). */
    private static final String[] ONE_PHASE = {"table.optimizer.agg-phase-strategy", "ONE_PHASE"};

    static final List<Job> JOBS = List.of(
            new Job("group_count_sum", "GROUP BY k COUNT(*), SUM(v), append-only input",
                    "SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k",
                    new String[] {"GroupAggregate"}),
            new Job("group_min_max", "GROUP BY k MIN(v), MAX(v), append-only input",
                    "SELECT k, MIN(v), MAX(v) FROM src GROUP BY k",
                    new String[] {"GroupAggregate"}),
            new Job("group_retract",
                    "GROUP BY over a retracting input: per-key counts regrouped by count",
                    "SELECT c, COUNT(*), SUM(s), MIN(s), MAX(s) FROM"
                            + " (SELECT k, COUNT(*) AS c, SUM(v) AS s FROM src GROUP BY k)"
                            + " GROUP BY c",
                    new String[] {"GroupAggregate", "GroupAggregate"}),
            new Job("calc", "Calc: arithmetic, CASE, string functions, casts and a filter",
                    "SELECT id, v * 3 + id % 7, CASE WHEN v > 500 THEN 'high' WHEN v > 100"
                            + " THEN 'mid' ELSE 'low' END, UPPER(t), LOWER(t), CHAR_LENGTH(t),"
                            + " CAST(d AS BIGINT), CAST(v AS STRING) FROM src"
                            + " WHERE v % 10 <> 3",
                    new String[] {"Calc"}),
            new Job("window_tumble",
                    "TUMBLE 1 s windows GROUP BY k COUNT(*), SUM(v), event time, append-only input",
                    "SELECT window_start, window_end, k, COUNT(*), SUM(v) FROM TABLE(TUMBLE("
                            + "TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND))"
                            + " GROUP BY window_start, window_end, k",
                    new String[] {"WindowAggregate"}, ONE_PHASE),
            new Job("window_hop",
                    "HOP 1 s slide 4 s size windows GROUP BY k COUNT(*), SUM(v), event time,"
                            + " the default two-phase plan",
                    "SELECT window_start, window_end, k, COUNT(*), SUM(v) FROM TABLE(HOP("
                            + "TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND,"
                            + " INTERVAL '4' SECOND)) GROUP BY window_start, window_end, k",
                    new String[] {"LocalWindowAggregate", "GlobalWindowAggregate"}),
            new Job("window_session",
                    "SESSION windows with a 10 s gap GROUP BY k COUNT(*), SUM(v), event time,"
                            + " append-only input",
                    "SELECT window_start, window_end, k, COUNT(*), SUM(v) FROM TABLE(SESSION("
                            + "TABLE wsrc PARTITION BY k, DESCRIPTOR(ts), INTERVAL '10' SECOND))"
                            + " GROUP BY window_start, window_end, k",
                    new String[] {"WindowAggregate"}),
            new Job("window_legacy_tumble",
                    "Legacy GROUP BY k, TUMBLE(ts, 1 s) COUNT(*), SUM(v) with TUMBLE_END, event"
                            + " time, append-only input",
                    "SELECT k, TUMBLE_END(ts, INTERVAL '1' SECOND), COUNT(*), SUM(v) FROM wsrc"
                            + " GROUP BY k, TUMBLE(ts, INTERVAL '1' SECOND)",
                    new String[] {"GroupWindowAggregate"}),
            new Job("window_topn",
                    "Window Top-3 per TUMBLE 1 s window and k by v DESC, id: ROW_NUMBER() over"
                            + " the window TVF's rows, event time",
                    "SELECT window_start, window_end, k, id, v, rn FROM (SELECT *, ROW_NUMBER()"
                            + " OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC, id)"
                            + " AS rn FROM TABLE(TUMBLE(TABLE wsrc, DESCRIPTOR(ts),"
                            + " INTERVAL '1' SECOND))) WHERE rn <= 3",
                    new String[] {"WindowRank"}),
            new Job("window_dedup",
                    "Window deduplication: each TUMBLE 1 s window's last row per k by event time",
                    "SELECT window_start, window_end, k, id, v FROM (SELECT *, ROW_NUMBER()"
                            + " OVER (PARTITION BY window_start, window_end, k ORDER BY ts DESC)"
                            + " AS rn FROM TABLE(TUMBLE(TABLE wsrc, DESCRIPTOR(ts),"
                            + " INTERVAL '1' SECOND))) WHERE rn = 1",
                    new String[] {"WindowDeduplicate"}),
            new Job("window_join",
                    "Window join: TUMBLE 1 s windows of wsrc, rows with an even id joined to rows"
                            + " with an odd id on MOD(id / 2, 500) (one match a row), event time",
                    "SELECT L.jk, L.id, R.id, L.v + R.v, L.window_start, L.window_end FROM"
                            + " (SELECT *, MOD(id / 2, 500) AS jk FROM TABLE(TUMBLE(TABLE wsrc,"
                            + " DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE MOD(id, 2) = 0) L JOIN"
                            + " (SELECT *, MOD(id / 2, 500) AS jk FROM TABLE(TUMBLE(TABLE wsrc,"
                            + " DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE MOD(id, 2) = 1) R"
                            + " ON L.jk = R.jk AND L.window_start = R.window_start"
                            + " AND L.window_end = R.window_end",
                    new String[] {"WindowJoin"}),
            new Job("join_interval",
                    "Interval join: wsrc rows with an even id joined to rows with an odd id on"
                            + " MOD(id / 2, 500) within a second either side (about two matches"
                            + " a row), event time",
                    "SELECT L.jk, L.id, R.id, L.v + R.v FROM"
                            + " (SELECT *, MOD(id / 2, 500) AS jk FROM wsrc WHERE MOD(id, 2) = 0) L"
                            + " JOIN (SELECT *, MOD(id / 2, 500) AS jk FROM wsrc"
                            + " WHERE MOD(id, 2) = 1) R ON L.jk = R.jk"
                            + " AND L.ts BETWEEN R.ts - INTERVAL '1' SECOND"
                            + " AND R.ts + INTERVAL '1' SECOND",
                    new String[] {"IntervalJoin"}),
            new Job("join_interval_proctime",
                    "Interval join in processing time: psrc rows with an even id joined to the"
                            + " row of the next odd id (id / 2) within an hour either side of"
                            + " their processing time (one match a row; every row stays cached,"
                            + " no cleanup timer fires during the job)",
                    "SELECT L.jk, L.id, R.id, L.v + R.v FROM"
                            + " (SELECT *, id / 2 AS jk FROM psrc WHERE MOD(id, 2) = 0) L"
                            + " JOIN (SELECT *, id / 2 AS jk FROM psrc WHERE MOD(id, 2) = 1) R"
                            + " ON L.jk = R.jk AND L.pt BETWEEN R.pt - INTERVAL '1' HOUR"
                            + " AND R.pt + INTERVAL '1' HOUR",
                    new String[] {"IntervalJoin"}),
            new Job("join_temporal",
                    "Temporal join: wsrc rows with an even id joined FOR SYSTEM_TIME AS OF their"
                            + " time to the versioned view of rows with an odd id on"
                            + " MOD(id / 2, 500) (a rowtime keep-last deduplication), event time",
                    "SELECT L.jk, L.id, R.rid, L.v + R.rv FROM"
                            + " (SELECT *, MOD(id / 2, 500) AS jk FROM wsrc WHERE MOD(id, 2) = 0) L"
                            + " JOIN versions FOR SYSTEM_TIME AS OF L.ts AS R ON L.jk = R.jk",
                    new String[] {"Deduplicate", "TemporalJoin"}),
            new Job("join_temporal_ttl",
                    "join_temporal under table.exec.state.ttl = 1 h: Flink's retention renews"
                            + " each key's processing-time cleanup timer as its rows arrive"
                            + " (no key idles that long in the job)",
                    "SELECT L.jk, L.id, R.rid, L.v + R.rv FROM"
                            + " (SELECT *, MOD(id / 2, 500) AS jk FROM wsrc WHERE MOD(id, 2) = 0) L"
                            + " JOIN versions FOR SYSTEM_TIME AS OF L.ts AS R ON L.jk = R.jk",
                    new String[] {"Deduplicate", "TemporalJoin"},
                    "table.exec.state.ttl", "1 h"),
            new Job("dedup_keep_first",
                    "ROW_NUMBER() OVER (PARTITION BY k ORDER BY proctime) = 1: each key's first"
                            + " row, append-only output",
                    "SELECT k, id, v, t FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                            + " ORDER BY pt) AS rn FROM psrc) WHERE rn = 1",
                    new String[] {"Deduplicate"}),
            new Job("dedup_keep_last",
                    "ROW_NUMBER() OVER (PARTITION BY k ORDER BY proctime DESC) = 1: each key's"
                            + " last row, updating output",
                    "SELECT k, v, d, t FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                            + " ORDER BY pt DESC) AS rn FROM psrc) WHERE rn = 1",
                    new String[] {"Deduplicate"}),
            new Job("rank_top1",
                    "ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) = 1: each key's largest"
                            + " value, updating output",
                    "SELECT k, id, v, t FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                            + " ORDER BY v DESC) AS rn FROM src) WHERE rn = 1",
                    new String[] {"Rank"}),
            new Job("rank_top3",
                    "ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, id) <= 3 with rn: each"
                            + " key's three largest values, updating output",
                    "SELECT k, rn, id, v, d FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                            + " ORDER BY v DESC, id) AS rn FROM src) WHERE rn <= 3",
                    new String[] {"Rank"}),
            new Job("rank_retract",
                    "ROW_NUMBER() OVER (PARTITION BY g ORDER BY c, k) <= 3 with rn over a"
                            + " GROUP BY's counts: each group's three rarest keys, the retract"
                            + " strategy over an updating input",
                    "SELECT g, rn, k, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g"
                            + " ORDER BY c, k) AS rn FROM (SELECT k % 64 AS g, k, COUNT(*) AS c"
                            + " FROM src GROUP BY k % 64, k)) WHERE rn <= 3",
                    new String[] {"GroupAggregate", "Rank"}),
            new Job("rank_update",
                    "ROW_NUMBER() OVER (PARTITION BY g ORDER BY c DESC) <= 3 with rn over a"
                            + " GROUP BY's counts: each group's three most frequent keys, the"
                            + " update-fast strategy over an upsert input",
                    "SELECT g, rn, k, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g"
                            + " ORDER BY c DESC) AS rn FROM (SELECT k % 64 AS g, k, COUNT(*) AS c"
                            + " FROM src GROUP BY k % 64, k)) WHERE rn <= 3",
                    new String[] {"GroupAggregate", "Rank"}),
            new Job("over_rows",
                    "SUM(v), MAX(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 10 PRECEDING"
                            + " AND CURRENT ROW), event time, append-only output",
                    "SELECT k, v, ts, SUM(v) OVER w, MAX(v) OVER w FROM wsrc WINDOW w AS"
                            + " (PARTITION BY k ORDER BY ts ROWS BETWEEN 10 PRECEDING AND CURRENT"
                            + " ROW)",
                    new String[] {"OverAggregate"}),
            new Job("over_range_unbounded",
                    "COUNT(*), SUM(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN UNBOUNDED"
                            + " PRECEDING AND CURRENT ROW), event time, append-only output",
                    "SELECT k, v, ts, COUNT(*) OVER w, SUM(v) OVER w FROM wsrc WINDOW w AS"
                            + " (PARTITION BY k ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND"
                            + " CURRENT ROW)",
                    new String[] {"OverAggregate"}),
            new Job("join_inner",
                    "src INNER JOIN dim ON k: each row meets its key's one dim row (two sources,"
                            + " no unique keys), append-only output",
                    "SELECT s.k, s.id, s.v, s.t, d.w, d.u FROM src s JOIN dim d ON s.k = d.k",
                    new String[] {"Join"}, Compare.FINAL),
            new Job("join_left_updating",
                    "(GROUP BY k COUNT(*), SUM(v)) LEFT JOIN dim ON k: an updating input whose"
                            + " unique key is the join key, each update retracting its joined row",
                    "SELECT g.k, g.c, g.sv, d.w, d.u FROM (SELECT k, COUNT(*) AS c, SUM(v) AS sv"
                            + " FROM src GROUP BY k) g LEFT JOIN dim d ON g.k = d.k",
                    new String[] {"GroupAggregate", "Join"}, Compare.FINAL),
            new Job("join_mini_batch",
                    "join_left_updating under mini-batch (bundles of 5,000 rows): the GROUP BY's"
                            + " and the join's changes folded a bundle at a time"
                            + " (MiniBatchStreamingJoinOperator)",
                    "SELECT g.k, g.c, g.sv, d.w, d.u FROM (SELECT k, COUNT(*) AS c, SUM(v) AS sv"
                            + " FROM src GROUP BY k) g LEFT JOIN dim d ON g.k = d.k",
                    new String[] {"GroupAggregate", "Join"}, Compare.FINAL,
                    "table.exec.mini-batch.enabled", "true",
                    "table.exec.mini-batch.allow-latency", "1 s",
                    "table.exec.mini-batch.size", "5000"));

    /** The job's data and state settings. */
    static final class Settings {
        long rows = 2_000_000;
        long keys = 16_384;
        int width = 0;
        boolean nullable;
        String state = "hashmap";
        String job;
        String engine;
        String[] engines;
        Path plans;
    }

    static Settings parse(String[] args, int from) {
        Settings s = new Settings();
        for (int i = from; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--rows" -> s.rows = Long.parseLong(args[++i]);
                case "--keys" -> s.keys = Long.parseLong(args[++i]);
                case "--width" -> s.width = Integer.parseInt(args[++i]);
                case "--nullable" -> s.nullable = true;
                case "--state" -> s.state = args[++i];
                case "--job" -> s.job = args[++i];
                case "--engine" -> s.engine = args[++i];
                case "--engines" -> s.engines = args[++i].split(",");
                case "--plans" -> s.plans = Paths.get(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + a);
            }
        }
        if (s.rows < 1 || s.keys < 1 || s.width < 0) {
            throw new IllegalArgumentException("rows and keys must be positive, width not negative");
        }
        if (!s.state.equals("hashmap") && !s.state.equals("rocksdb")) {
            throw new IllegalArgumentException("--state is hashmap or rocksdb, not " + s.state);
        }
        return s;
    }

    static Job job(String name) {
        for (Job j : JOBS) {
            if (j.name.equals(name)) {
                return j;
            }
        }
        throw new IllegalArgumentException("no job " + name + "; `list` names them");
    }

    /**
     * A table environment over the fixture views {@code src}, {@code psrc} (the same columns
     * and a processing time {@code pt}) and {@code wsrc} (the same key and value and an
     * event-time {@code ts}), StreamFusion on or off, with the options of job {@code s.job}.
     */
    static StreamTableEnvironment environment(Settings s, boolean enabled) {
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", s.state);
        conf.setString("taskmanager.memory.network.min", "128mb");
        conf.setString("taskmanager.memory.network.max", "128mb");
        // Native keyed state lives in managed memory (decision 0044): the MiniCluster's
        // default 128 MiB does not hold join_inner's buffered rows natively on hashmap.
        conf.setString("taskmanager.memory.managed.size", "1g");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(StreamFusionPlanner.ENABLED, enabled);
        tEnv.getConfig().set(StreamFusionPlanner.FALLBACK, false);
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        if (s.job != null) {
            String[] options = job(s.job).options;
            for (int i = 0; i < options.length; i += 2) {
                tEnv.getConfig().set(options[i], options[i + 1]);
            }
        }
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE seq (id BIGINT) WITH ('connector' = 'datagen',"
                        // datagen throttles to 10,000 rows/s unless told otherwise.
                        + " 'rows-per-second' = '1000000000',"
                        + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '0',"
                        + " 'fields.id.end' = '" + (s.rows - 1) + "')");
        String key = s.width == 0
                ? "id % " + s.keys
                : "CONCAT(CAST(id % " + s.keys + " AS STRING), '" + "x".repeat(s.width) + "')";
        String keyNull = s.nullable ? "CASE WHEN id % 7 = 3 THEN NULL ELSE " + key + " END" : key;
        String value = "(id * 7919) % 1000";
        String valueNull =
                s.nullable ? "CASE WHEN id % 11 = 5 THEN NULL ELSE " + value + " END" : value;
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW src AS SELECT id, " + keyNull + " AS k, " + valueNull
                        + " AS v, CAST(id % 1000 AS DOUBLE) / 8 AS d,"
                        + " CONCAT('Key-', CAST(id % 100 AS STRING), '-ß') AS t FROM seq");
        tEnv.executeSql("CREATE TEMPORARY VIEW psrc AS SELECT *, PROCTIME() AS pt FROM src");
        // The join jobs' other input: one row per key value, the key derived as src's (the
        // same suffix and NULL mask), from a second sequence.
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE dseq (id BIGINT) WITH ('connector' = 'datagen',"
                        + " 'rows-per-second' = '1000000000',"
                        + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '0',"
                        + " 'fields.id.end' = '" + (s.keys - 1) + "')");
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW dim AS SELECT " + keyNull + " AS k, (id * 31) % 1000 AS w,"
                        + " CONCAT('Dim-', CAST(id % 100 AS STRING), '-é') AS u FROM dseq");
        // Row id at id ms, up to 15 ms late (a little out of order); the watermark trails by
        // more than that, so no row is late however the periodic watermarks fall. The time
        // is TIMESTAMP_LTZ(3) (the session zone is UTC): a CAST to TIMESTAMP(3) would keep
        // the source's Calc stock.
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE wseq (id BIGINT,"
                        + " ts AS TO_TIMESTAMP_LTZ(id + MOD(id * 7919, 16), 3),"
                        + " WATERMARK FOR ts AS ts - INTERVAL '0.05' SECOND) WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '1000000000',"
                        + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '0',"
                        + " 'fields.id.end' = '" + (s.rows - 1) + "')");
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW wsrc AS SELECT id, " + keyNull + " AS k, " + valueNull
                        + " AS v, ts FROM wseq");
        // The temporal join's versioned table: each key's latest odd-id row of wsrc by event
        // time (a rowtime keep-last deduplication makes a versioned view).
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW versions AS SELECT jk, id AS rid, v AS rv, ts FROM"
                        + " (SELECT *, ROW_NUMBER() OVER (PARTITION BY jk ORDER BY ts DESC) AS rn"
                        + " FROM (SELECT *, MOD(id / 2, 500) AS jk FROM wsrc"
                        + " WHERE MOD(id, 2) = 1)) WHERE rn = 1");
        return tEnv;
    }

    static void verify(Settings s) throws Exception {
        Job job = job(s.job);
        Output stock = collect(s, job, false, null);
        StreamFusionPlanner.clearDecisions();
        List<StreamFusionPlanner.Decision> decisions = new ArrayList<>();
        Output nat = collect(s, job, true, decisions);
        boolean equal = switch (job.compare) {
            case CHANGELOG -> stock.changelog.equals(nat.changelog);
            case FINAL -> stock.result.equals(nat.result)
                    && stock.unmatched == null && nat.unmatched == null;
        };
        int[] nodes = new int[2];
        List<String> unmatched = new ArrayList<>();
        for (StreamFusionPlanner.Decision d : decisions) {
            if (d.isNative()) {
                nodes[0]++;
                unmatched.add(d.node);
            } else {
                nodes[1]++;
            }
        }
        // Every node the job names must be a distinct native node of the plan.
        boolean allNative = nodes[1] == 0;
        for (String expected : job.nativeNodes) {
            int at = -1;
            for (int i = 0; i < unmatched.size() && at < 0; i++) {
                if (unmatched.get(i).contains(expected)) {
                    at = i;
                }
            }
            allNative &= at >= 0;
            if (at >= 0) {
                unmatched.remove(at);
            }
        }
        String detail = equal ? ""
                : stock.unmatched != null ? "stock " + stock.unmatched
                : nat.unmatched != null ? "native " + nat.unmatched
                : job.compare == Compare.FINAL ? "final results: "
                        + firstDifference(stock.result, nat.result)
                : firstDifference(stock.changelog, nat.changelog);
        // A final comparison notes whether the changelogs were equal too, by fingerprint.
        String compared = job.compare == Compare.CHANGELOG ? "compared=changelog"
                : "compared=final final_rows=" + count(stock.result) + " changelog_equal="
                        + (stock.rows == nat.rows && stock.fingerprint == nat.fingerprint);
        System.out.printf(Locale.ROOT,
                "verify job=%s state=%s equal=%s all_native=%s stock_rows=%d native_rows=%d"
                        + " native_nodes=%d stock_nodes=%d %s%s%n",
                job.name, s.state, equal, allNative, stock.rows, nat.rows, nodes[0], nodes[1],
                compared, detail.isEmpty() ? "" : " detail=" + detail.replace(' ', '_'));
        System.exit(equal && allNative ? 0 : 1);
    }

    /**
     * A job's output: the number of rows emitted and, as its job compares them, the changelog
     * as a multiset of kind-prefixed rows ({@link Compare#CHANGELOG}), or the changelog applied
     * in arrival order (rows without kind, by count), the first retraction of a row that was
     * not there (or null) and a fingerprint of the changelog as a multiset (the sum of each
     * row's 64-bit hash: equal changelogs have equal fingerprints) ({@link Compare#FINAL}).
     */
    record Output(long rows, Map<String, Integer> changelog, Map<String, Integer> result,
            String unmatched, long fingerprint) {}

    /** The job's output; adds the planner's decisions. */
    static Output collect(
            Settings s, Job job, boolean enabled, List<StreamFusionPlanner.Decision> decisions)
            throws Exception {
        StreamTableEnvironment tEnv = environment(s, enabled);
        String plan = tEnv.explainSql(job.select);
        if (s.plans != null) {
            Files.createDirectories(s.plans);
            Files.writeString(
                    s.plans.resolve(job.name + "-" + (enabled ? "native" : "stock") + ".txt"),
                    plan, StandardCharsets.UTF_8);
        }
        StreamFusionPlanner.clearDecisions();
        TableResult result = tEnv.sqlQuery(job.select).execute();
        if (decisions != null) {
            decisions.addAll(StreamFusionPlanner.decisions());
        }
        boolean changelogs = job.compare == Compare.CHANGELOG;
        Map<String, Integer> changelog = new HashMap<>();
        Map<String, Integer> rows = new HashMap<>();
        String unmatched = null;
        long n = 0;
        long fingerprint = 0;
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                // Row's text starts with its kind: +I[...], -U[...].
                String line = it.next().toString();
                n++;
                if (changelogs) {
                    changelog.merge(line, 1, Integer::sum);
                    continue;
                }
                fingerprint += hash64(line);
                String row = line.substring(2);
                if (line.charAt(0) == '+') {
                    rows.merge(row, 1, Integer::sum);
                } else if (rows.containsKey(row)) {
                    rows.merge(row, -1, (x, y) -> x + y == 0 ? null : x + y);
                } else if (unmatched == null) {
                    unmatched = "output " + (n - 1) + " (" + line
                            + ") retracts a row that is not there";
                }
            }
        }
        return new Output(n, changelog, rows, unmatched, fingerprint);
    }

    /** FNV-1a over the UTF-16 units of {@code text}, finished with a 64-bit mix. */
    static long hash64(String text) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            h = (h ^ text.charAt(i)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        return h ^ (h >>> 33);
    }

    static long count(Map<String, Integer> rows) {
        return rows.values().stream().mapToLong(Integer::longValue).sum();
    }

    static String firstDifference(Map<String, Integer> stock, Map<String, Integer> nat) {
        for (Map.Entry<String, Integer> e : stock.entrySet()) {
            Integer n = nat.get(e.getKey());
            if (!e.getValue().equals(n)) {
                return "stock " + e.getValue() + "x " + e.getKey() + ", native " + n + "x";
            }
        }
        for (Map.Entry<String, Integer> e : nat.entrySet()) {
            if (!stock.containsKey(e.getKey())) {
                return "native only: " + e.getKey();
            }
        }
        return "";
    }

    /** Whether {@code engine} ({@code stock} or {@code native}) runs StreamFusion. */
    static boolean enabled(String engine) {
        return switch (engine == null ? "" : engine) {
            case "stock" -> false;
            case "native" -> true;
            default -> throw new IllegalArgumentException(
                    "an engine is stock or native, not " + engine);
        };
    }

    /**
     * One timed run per engine of {@code s.engines}, in order, in this JVM: a fresh
     * MiniCluster each, the heap collected before each so no run pays for the last one's
     * garbage.
     */
    static void series(Settings s) throws Exception {
        if (s.engines == null || s.engines.length == 0) {
            throw new IllegalArgumentException("series needs --engines stock,native,...");
        }
        for (String engine : s.engines) {
            enabled(engine);
        }
        for (String engine : s.engines) {
            System.gc();
            time(s, engine);
        }
    }

    static void time(Settings s, String engine) throws Exception {
        Job job = job(s.job);
        boolean enabled = enabled(engine);
        StreamTableEnvironment tEnv = environment(s, enabled);
        Table query = tEnv.sqlQuery(job.select);
        TableDescriptor sink = TableDescriptor.forConnector("blackhole")
                .schema(Schema.newBuilder().fromResolvedSchema(query.getResolvedSchema()).build())
                .build();
        long gcBefore = gcMillis();
        StreamFusionPlanner.clearDecisions();
        long callsBefore = NativeStreamOperator.BUNDLES.get();
        long rowsBefore = NativeStreamOperator.ROWS_IN.get();
        long start = System.nanoTime();
        query.executeInsert(sink).await();
        long wallMs = (System.nanoTime() - start) / 1_000_000;
        long nativeNodes = StreamFusionPlanner.decisions().stream()
                .filter(StreamFusionPlanner.Decision::isNative).count();
        if (enabled && nativeNodes == 0) {
            throw new IllegalStateException("no node ran natively: " + StreamFusionPlanner.decisions());
        }
        System.out.printf(Locale.ROOT,
                "trial job=%s engine=%s state=%s wall_ms=%d records=%d records_per_s=%.0f"
                        + " gc_ms=%d peak_rss_kb=%d native_nodes=%d jni_pushes=%d jni_rows=%d%n",
                job.name, engine, s.state, wallMs, s.rows, s.rows * 1000.0 / Math.max(1, wallMs),
                gcMillis() - gcBefore, peakRssKb(), nativeNodes,
                NativeStreamOperator.BUNDLES.get() - callsBefore,
                NativeStreamOperator.ROWS_IN.get() - rowsBefore);
    }

    static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    /** The process's peak resident set ({@code VmHWM}), or -1 off Linux. */
    static long peakRssKb() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (Exception e) {
            // Not Linux: no figure rather than a wrong one.
        }
        return -1;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException(
                    "usage: JobBench list | verify ... | time ... | series ...");
        }
        switch (args[0]) {
            case "list" -> {
                for (Job j : JOBS) {
                    System.out.println("job name=" + j.name + " description=" + j.description);
                }
            }
            case "verify" -> verify(parse(args, 1));
            case "time" -> {
                Settings s = parse(args, 1);
                time(s, s.engine);
            }
            case "series" -> series(parse(args, 1));
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        }
    }
}
