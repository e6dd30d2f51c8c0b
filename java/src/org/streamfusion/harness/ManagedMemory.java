package org.streamfusion.harness;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;

import org.streamfusion.flink.NativeStreamOperator;
import org.streamfusion.flink.StreamFusionPlanner;

import java.util.HashMap;
import java.util.Map;

/**
 * Native keyed state in Flink's managed memory (decision 0044), in one MiniCluster JVM.
 *
 * <p>A GROUP BY over 20,000 distinct keys runs with StreamFusion on:
 *
 * <ul>
 *   <li>on {@code hashmap} with 64 MiB of managed memory, where the native operator is the
 *       slot's only consumer: it must reserve all of it while it runs, release it at the
 *       end, and give the stock job's changelog;
 *   <li>on {@code rocksdb} with 64 MiB: Flink's RocksDB backend of the operator takes its
 *       share too, so the native operator must reserve part of it, not all, and still give
 *       the stock changelog;
 *   <li>on {@code hashmap} with 1 MiB, too little for 20,000 groups: the job must fail with
 *       the native resource error (a {@code NativeResourceException} naming the budget), not
 *       crash or give a wrong result;
 *   <li>the same with {@code streamfusion.memory.managed-weight = 0}: nothing reserved, and
 *       the job must succeed with the stock changelog.
 * </ul>
 *
 * <p>Prints one line per case and a last line {@code summary: cases= failed=
 * hashmap_reserved= rocksdb_reserved= managed=}; exits 1 on any failure.
 */
public final class ManagedMemory {
    private static final long ROWS = 60_000;
    private static final long KEYS = 20_000;
    private static final long MANAGED = 64L << 20;
    private static final String QUERY = "SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k";

    private static int cases;
    private static int failures;

    static StreamTableEnvironment environment(
            String state, long managedBytes, boolean enabled, int weight) {
        Configuration conf = new Configuration();
        conf.setString("state.backend.type", state);
        conf.setString("taskmanager.memory.managed.size", managedBytes + "b");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(StreamFusionPlanner.ENABLED, enabled);
        tEnv.getConfig().set(StreamFusionPlanner.FALLBACK, false);
        tEnv.getConfig().set(StreamFusionPlanner.MANAGED_MEMORY_WEIGHT, weight);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE seq (id BIGINT) WITH ('connector' = 'datagen',"
                        + " 'rows-per-second' = '1000000000', 'fields.id.kind' = 'sequence',"
                        + " 'fields.id.start' = '0', 'fields.id.end' = '" + (ROWS - 1) + "')");
        tEnv.executeSql(
                "CREATE TEMPORARY VIEW src AS SELECT id % " + KEYS + " AS k, (id * 7919) % 1000"
                        + " AS v FROM seq");
        return tEnv;
    }

    /** The job's changelog as a multiset of kind-prefixed rows. */
    static Map<String, Integer> run(StreamTableEnvironment tEnv) throws Exception {
        Map<String, Integer> changelog = new HashMap<>();
        TableResult result = tEnv.sqlQuery(QUERY).execute();
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                changelog.merge(it.next().toString(), 1, Integer::sum);
            }
        }
        return changelog;
    }

    static void check(String name, boolean ok, String detail) {
        cases++;
        if (!ok) {
            failures++;
        }
        System.out.println((ok ? "ok " : "FAILED ") + name + ": " + detail);
    }

    /**
     * Runs the native job and returns the most bytes its operators reserved, after checking
     * its changelog and that every reservation was released.
     */
    static long nativeCase(String name, String state, int weight, Map<String, Integer> stock)
            throws Exception {
        NativeStreamOperator.MANAGED_BYTES_PEAK.set(0);
        Map<String, Integer> nat = run(environment(state, MANAGED, true, weight));
        long peak = NativeStreamOperator.MANAGED_BYTES_PEAK.get();
        long held = NativeStreamOperator.MANAGED_BYTES_HELD.get();
        check(name, nat.equals(stock) && held == 0,
                "changelog equal=" + nat.equals(stock) + " (" + nat.size() + " distinct rows)"
                        + ", reserved " + peak + " of " + MANAGED + " bytes, " + held
                        + " still held");
        return peak;
    }

    public static void main(String[] args) throws Exception {
        System.out.println(StreamFusionPlanner.activation());
        int weight = StreamFusionPlanner.MANAGED_MEMORY_WEIGHT.defaultValue();
        Map<String, Integer> stock = run(environment("hashmap", MANAGED, false, weight));
        check("stock", stock.size() >= KEYS, stock.size() + " distinct changelog rows");

        long hashmap = nativeCase("hashmap", "hashmap", weight, stock);
        check("hashmap reserves the whole slot", hashmap == MANAGED,
                "the only consumer reserved " + hashmap + " of " + MANAGED);

        long rocksdb = nativeCase("rocksdb", "rocksdb", weight, stock);
        check("rocksdb shares the slot with Flink's backend", rocksdb > 0 && rocksdb < MANAGED,
                "reserved " + rocksdb + " of " + MANAGED);

        long unweighted = nativeCase("weight 0", "hashmap", 0, stock);
        check("weight 0 reserves nothing", unweighted == 0, "reserved " + unweighted);

        String failure;
        try {
            run(environment("hashmap", 1L << 20, true, weight));
            failure = "the job succeeded";
        } catch (Exception e) {
            failure = ExceptionUtils.stringifyException(e);
        }
        boolean refused = failure.contains("NativeResourceException")
                && failure.contains("memory budget exceeded");
        check("too little managed memory fails the job with the budget's error", refused,
                refused ? "NativeResourceException: memory budget exceeded"
                        : failure.lines().limit(3).reduce("", (a, b) -> a + " | " + b));
        System.out.println("summary: cases=" + cases + " failed=" + failures
                + " hashmap_reserved=" + hashmap + " rocksdb_reserved=" + rocksdb
                + " managed=" + MANAGED);
        System.exit(failures == 0 ? 0 : 1);
    }
}
