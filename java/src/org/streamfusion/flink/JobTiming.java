package org.streamfusion.flink;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Wall-clock time of whole Flink SQL jobs, stock against native, in one MiniCluster JVM at
 * parallelism 1: issue 18's performance figures. Each query reads Flink's {@code datagen}
 * sequence (unthrottled, {@code rows} rows, {@code keys} keys) and writes to {@code blackhole},
 * so the job is the source, the operators under test and the exchange between them.
 *
 * <p>Per query and state backend: {@code warmups} runs of each, then {@code runs} alternating
 * stock/native pairs; prints each run's seconds, then the medians and the speed-up. Whether the
 * native job really ran its operators natively is checked from the planner's decisions (a
 * native run without native nodes is an error, not a figure).
 *
 * <p>Usage: {@code JobTiming [rows] [keys] [warmups] [runs] [query...]}; queries are {@code
 * count_sum}, {@code min_max}, {@code calc}.
 */
public final class JobTiming {
    static final String[][] QUERIES = {
        {"count_sum", "INSERT INTO sink2 SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k"},
        {"min_max", "INSERT INTO sink2 SELECT k, MIN(v), MAX(v) FROM src GROUP BY k"},
        {
            "calc",
            "INSERT INTO sink_calc SELECT id, v * 3 + k, CASE WHEN v > 500 THEN 'high' WHEN v > 100"
                    + " THEN 'mid' ELSE 'low' END, UPPER(s), LOWER(s) FROM src WHERE v % 10 <> 3"
        },
    };

    static double run(String sql, boolean enabled, String backend, long rows, long keys)
            throws Exception {
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", backend);
        conf.setString("taskmanager.memory.network.min", "128mb");
        conf.setString("taskmanager.memory.network.max", "128mb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(StreamFusionPlanner.ENABLED, enabled);
        tEnv.getConfig().set(StreamFusionPlanner.FALLBACK, false);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE seq (id BIGINT) WITH ('connector' = 'datagen',"
                        // datagen throttles to 10,000 rows/s unless told otherwise.
                        + " 'rows-per-second' = '1000000000',"
                        + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '0',"
                        + " 'fields.id.end' = '" + (rows - 1) + "')");
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW src AS SELECT id, id % " + keys + " AS k,"
                        + " (id * 7919) % 1000 AS v, CONCAT('Key-', CAST(id % 100 AS STRING)) AS s"
                        + " FROM seq");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE sink2 (k BIGINT, a BIGINT, b BIGINT)"
                        + " WITH ('connector' = 'blackhole')");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE sink_calc (id BIGINT, x BIGINT, c STRING, u STRING,"
                        + " l STRING) WITH ('connector' = 'blackhole')");
        StreamFusionPlanner.clearDecisions();
        long start = System.nanoTime();
        tEnv.executeSql(sql).await();
        double seconds = (System.nanoTime() - start) / 1e9;
        if (enabled
                && StreamFusionPlanner.decisions().stream()
                        .noneMatch(StreamFusionPlanner.Decision::isNative)) {
            throw new IllegalStateException("no node ran natively: " + StreamFusionPlanner.decisions());
        }
        return seconds;
    }

    static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000;
        long keys = args.length > 1 ? Long.parseLong(args[1]) : 16_384;
        int warmups = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        List<String> only = args.length > 4 ? Arrays.asList(args).subList(4, args.length) : List.of();
        System.out.printf(Locale.ROOT, "rows=%d keys=%d warmups=%d runs=%d%n", rows, keys, warmups, runs);
        for (String[] query : QUERIES) {
            if (!only.isEmpty() && !only.contains(query[0])) {
                continue;
            }
            for (String backend : new String[] {"hashmap", "rocksdb"}) {
                for (int i = 0; i < warmups; i++) {
                    run(query[1], false, backend, rows, keys);
                    run(query[1], true, backend, rows, keys);
                }
                List<Double> stock = new ArrayList<>();
                List<Double> nat = new ArrayList<>();
                for (int i = 0; i < runs; i++) {
                    stock.add(run(query[1], false, backend, rows, keys));
                    nat.add(run(query[1], true, backend, rows, keys));
                }
                double s = median(stock);
                double n = median(nat);
                System.out.printf(Locale.ROOT,
                        "%s/%s stock %s native %s median stock %.2f s native %.2f s speedup %.2fx%n",
                        query[0], backend, fmt(stock), fmt(nat), s, n, s / n);
            }
        }
    }

    static String fmt(List<Double> xs) {
        StringBuilder b = new StringBuilder("[");
        for (double x : xs) {
            b.append(b.length() == 1 ? "" : " ").append(String.format(Locale.ROOT, "%.2f", x));
        }
        return b.append(']').toString();
    }
}
