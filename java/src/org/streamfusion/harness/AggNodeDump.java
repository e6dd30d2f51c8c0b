package org.streamfusion.harness;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;

import org.streamfusion.flink.StreamFusionPlanner;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fixtures of Flink 2.3.0's aggregate, deduplicate and rank nodes for the native plan parser
 * ({@code crates/streamfusion/src/flink/aggregate.rs}, the window aggregate's, the
 * deduplication's and the Top-N's parsers).
 *
 * <p>Each query is compiled ({@code COMPILE PLAN} of an {@code INSERT} into a blackhole sink,
 * over a datagen source, no job runs) under its options; every {@code
 * stream-exec-*group-aggregate_1} node of the plan is written to {@code
 * DIR/agg-<query>[-<n>].json}, every {@code stream-exec-*window-aggregate_1} node of a window
 * query (window TVFs over an event-time, TIMESTAMP_LTZ or processing-time attribute) to {@code
 * DIR/window-<query>[-<n>].json}, every {@code stream-exec-deduplicate_1} node of a
 * deduplication ({@code ROW_NUMBER() ... = 1} over the window source's processing-time or
 * event-time attribute, into a sink that takes -U) to {@code DIR/dedup-<query>.json}, every
 * {@code stream-exec-rank_1} node of a Top-N (over the window source, or a GROUP BY of it for
 * the updating strategies, into a sink that takes -U) to {@code DIR/rank-<query>.json}, every
 * {@code stream-exec-temporal-join_1} node of a temporal join (the window sources against a
 * versioned table) to {@code DIR/temporal_join-<query>.json}, as {@code
 * {"node": <the node's JSON>, "inputs": [<the output type of the node feeding it>], "config":
 * {<the options the planner extension hands over>}}}. The
 * node's JSON is what {@code StreamFusionPlanner} describes (the compiled plan is written by the
 * same {@code CompiledPlanSerdeUtil} writer); {@code config} is the {@code config_json} of
 * {@code flink::plan_node}. Plans are made at {@code parallelism.default} 4 (max parallelism
 * 128 by Flink's default).
 *
 * <p>Run: {@code java -cp $(cat $CARGO_TARGET_DIR/jvm/classpath-planner.txt)
 * org.streamfusion.harness.AggNodeDump DIR}.
 */
public final class AggNodeDump {
    private static final String SOURCE =
            "CREATE TABLE src (k INT, v BIGINT, d DOUBLE, s STRING, n INT) WITH ("
                    + "'connector' = 'datagen', 'number-of-rows' = '10')";
    /** The golden GROUP BY scenarios' columns ({@code GroupAggVectors}). */
    private static final String GOLDEN_SOURCE =
            "CREATE TABLE golden (k STRING, x INT, y DOUBLE, g INT) WITH ("
                    + "'connector' = 'datagen', 'number-of-rows' = '10')";

    /**
     * The window scenarios' source: an event-time attribute {@code ts} (TIMESTAMP(3)), one on
     * TIMESTAMP_LTZ(3) ({@code lts}, its own table) and a processing-time one ({@code pt}).
     */
    private static final String[] WINDOW_SOURCES = {
        "CREATE TABLE wsrc (k INT, v BIGINT, d DOUBLE, s STRING, m DECIMAL(10, 2), ts TIMESTAMP(3),"
                + " pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ("
                + "'connector' = 'datagen', 'number-of-rows' = '10')",
        "CREATE TABLE wltz (k INT, v BIGINT, lts TIMESTAMP_LTZ(3),"
                + " WATERMARK FOR lts AS lts - INTERVAL '1' SECOND) WITH ("
                + "'connector' = 'datagen', 'number-of-rows' = '10')"
    };

    /**
     * The temporal joins' versioned tables (a primary key and an event-time attribute): {@code
     * rates} keyed by {@code k} on TIMESTAMP(3), {@code rates2} by {@code (k, s)}, {@code
     * rates_ltz} by {@code k} on TIMESTAMP_LTZ(3).
     */
    private static final String[] VERSIONED_SOURCES = {
        "CREATE TABLE rates (k INT NOT NULL, s STRING, r BIGINT, rts TIMESTAMP(3),"
                + " PRIMARY KEY (k) NOT ENFORCED,"
                + " WATERMARK FOR rts AS rts - INTERVAL '1' SECOND) WITH ("
                + "'connector' = 'datagen', 'number-of-rows' = '10')",
        "CREATE TABLE rates2 (k INT NOT NULL, s STRING NOT NULL, r BIGINT, rts TIMESTAMP(3),"
                + " PRIMARY KEY (k, s) NOT ENFORCED,"
                + " WATERMARK FOR rts AS rts - INTERVAL '1' SECOND) WITH ("
                + "'connector' = 'datagen', 'number-of-rows' = '10')",
        "CREATE TABLE rates_ltz (k INT NOT NULL, r BIGINT, rlts TIMESTAMP_LTZ(3),"
                + " PRIMARY KEY (k) NOT ENFORCED,"
                + " WATERMARK FOR rlts AS rlts - INTERVAL '1' SECOND) WITH ("
                + "'connector' = 'datagen', 'number-of-rows' = '10')"
    };

    /**
     * One query, the table options it is compiled under, and the fixture kind: {@code agg}
     * dumps {@code *group-aggregate*} nodes, {@code window} dumps {@code *window-aggregate*}
     * nodes and {@code dedup} {@code *deduplicate*} nodes (both over the window sources).
     */
    record Query(String kind, String name, String sql, Map<String, String> options) {}

    static final List<Query> QUERIES = new ArrayList<>();

    static void q(String name, String sql, String... options) {
        add("agg", name, sql, options);
    }

    static void w(String name, String sql, String... options) {
        add("window", name, sql, options);
    }

    static void d(String name, String sql, String... options) {
        add("dedup", name, sql, options);
    }

    static void r(String name, String sql, String... options) {
        add("rank", name, sql, options);
    }

    static void wr(String name, String sql, String... options) {
        add("window_rank", name, sql, options);
    }

    static void wd(String name, String sql, String... options) {
        add("window_dedup", name, sql, options);
    }

    static void wt(String name, String sql, String... options) {
        add("window_tvf", name, sql, options);
    }

    static void wj(String name, String sql, String... options) {
        add("window_join", name, sql, options);
    }

    static void ij(String name, String sql, String... options) {
        add("interval_join", name, sql, options);
    }

    static void tj(String name, String sql, String... options) {
        add("temporal_join", name, sql, options);
    }

    static void o(String name, String sql, String... options) {
        add("over", name, sql, options);
    }

    static void s(String name, String sql, String... options) {
        add("sort", name, sql, options);
    }

    /** {@code columns} and {@code aggs OVER (over)} from the window source. */
    static String over(String columns, String aggs, String over) {
        return "SELECT " + columns + ", " + aggs.replace("#", "OVER (" + over + ")") + " FROM wsrc";
    }

    /** {@code ROW_NUMBER() OVER (over) AS rn} from {@code from}, filtered by {@code where}. */
    static String rank(String columns, String over, String from, String where) {
        return "SELECT " + columns + " FROM (SELECT *, ROW_NUMBER() OVER (" + over + ") AS rn FROM "
                + from + ") WHERE " + where;
    }

    /** {@code ROW_NUMBER() OVER (PARTITION BY k ORDER BY order) = 1} over the window source. */
    static String dedup(String columns, String order) {
        return "SELECT " + columns + " FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY "
                + order + ") AS rn FROM wsrc) WHERE rn = 1";
    }

    private static void add(String kind, String name, String sql, String... options) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < options.length; i += 2) {
            map.put(options[i], options[i + 1]);
        }
        QUERIES.add(new Query(kind, name, sql, map));
    }

    static final String[] ONE_PHASE = {"table.optimizer.agg-phase-strategy", "ONE_PHASE"};

    static final String[] MINI_BATCH = {
        "table.exec.mini-batch.enabled", "true",
        "table.exec.mini-batch.allow-latency", "1 s",
        "table.exec.mini-batch.size", "500"
    };

    static String[] with(String[] base, String... more) {
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    static {
        q("count_star", "SELECT k, COUNT(*) AS cnt FROM src GROUP BY k");
        q("sum_count", "SELECT k, SUM(v) AS total, COUNT(s) AS strings FROM src GROUP BY k");
        q("avg", "SELECT k, SUM(v) AS total, AVG(v) AS mean, AVG(d) AS dmean FROM src GROUP BY k");
        q("min_max_retract",
                "SELECT cnt, MIN(total) AS lo, MAX(total) AS hi, COUNT(*) AS ngroups FROM"
                        + " (SELECT k, COUNT(*) AS cnt, SUM(v) AS total FROM src GROUP BY k)"
                        + " GROUP BY cnt");
        q("count_distinct",
                "SELECT k, COUNT(DISTINCT s) AS ds, SUM(DISTINCT v) AS dv, COUNT(*) AS cnt"
                        + " FROM src GROUP BY k");
        q("no_grouping", "SELECT COUNT(*) AS cnt, MAX(s) AS top FROM src");
        q("state_ttl", "SELECT k, MIN(d) AS lo, LAST_VALUE(s) AS last_s FROM src GROUP BY k",
                "table.exec.state.ttl", "1 h");
        q("mini_batch_one_phase", "SELECT k, COUNT(*) AS cnt, SUM(v) AS total FROM src GROUP BY k",
                with(MINI_BATCH, "table.optimizer.agg-phase-strategy", "ONE_PHASE"));
        q("two_phase",
                "SELECT k, COUNT(*) AS cnt, SUM(v) AS total, MAX(d) AS hi FROM src GROUP BY k",
                with(MINI_BATCH, "table.optimizer.agg-phase-strategy", "TWO_PHASE"));
        q("two_phase_avg", "SELECT k, AVG(v) AS mean, MIN(s) AS lo FROM src GROUP BY k",
                with(MINI_BATCH, "table.optimizer.agg-phase-strategy", "TWO_PHASE"));
        q("two_phase_retract",
                "SELECT k, MAX(v) AS hi, SUM(v) AS total, COUNT(DISTINCT v) AS dv FROM"
                        + " (SELECT LAST_VALUE(s) AS k, LAST_VALUE(v) AS v FROM src GROUP BY n)"
                        + " GROUP BY k",
                with(MINI_BATCH, "table.optimizer.agg-phase-strategy", "TWO_PHASE"));
        q("listagg_first_value",
                "SELECT k, LISTAGG(s) AS l, FIRST_VALUE(v) AS f FROM src GROUP BY k");
        q("listagg_separator", "SELECT k, LISTAGG(s, '|') AS l FROM src GROUP BY k");
        // The plans of two scenarios of tests/golden/flink-2.3.0-group-agg.jsonl, into a sink
        // that takes -U (as the scenarios' collect() does): insert-only, and retracting
        // through an inner GROUP BY (the scenario's fromChangelogStream).
        q("golden_int_insert_only",
                "SELECT k, SUM(x) AS sum_x, AVG(x) AS avg_x FROM golden GROUP BY k");
        q("golden_double_retract",
                "SELECT k, MIN(x) AS min_x, MAX(x) AS max_x, SUM(x) AS sum_x FROM"
                        + " (SELECT LAST_VALUE(k) AS k, LAST_VALUE(y) AS x FROM golden GROUP BY g)"
                        + " GROUP BY k");
        q("single_value", "SELECT k, SINGLE_VALUE(v) AS sv FROM src GROUP BY k");
        // The optimizer's SUM -> CASE(COUNT = 0, NULL, $SUM0) rewrite (the golden scenario
        // bigint_retract's plan): COUNT, SUM and AVG of one column over a retracting input.
        q("sum0_rewrite",
                "SELECT k, COUNT(v) AS cnt_v, SUM(v) AS sum_v, AVG(v) AS avg_v FROM"
                        + " (SELECT LAST_VALUE(s) AS k, LAST_VALUE(v) AS v FROM src GROUP BY n)"
                        + " GROUP BY k");
        q("filter", "SELECT k, COUNT(*) FILTER (WHERE v > 0) AS pos FROM src GROUP BY k");
        q("unsupported_function", "SELECT k, STDDEV_POP(d) AS sd, COLLECT(s) AS ss FROM src"
                + " GROUP BY k");

        // Window aggregations (window TVFs, event time): one-phase unless the query says so.
        w("tumble",
                "SELECT k, window_start, window_end, COUNT(*) AS cnt, SUM(v) AS total,"
                        + " MIN(d) AS lo, MAX(s) AS hi, AVG(v) AS mean FROM TABLE("
                        + "TUMBLE(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND))"
                        + " GROUP BY k, window_start, window_end",
                ONE_PHASE);
        w("tumble_offset",
                "SELECT k, window_start, window_end, COUNT(v) AS cnt_v, SUM(m) AS sum_m FROM TABLE("
                        + "TUMBLE(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '10' SECOND,"
                        + " INTERVAL '3' SECOND)) GROUP BY k, window_start, window_end",
                ONE_PHASE);
        w("hop",
                "SELECT k, window_start, window_end, COUNT(*) AS cnt, SUM(v) AS total FROM TABLE("
                        + "HOP(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND,"
                        + " INTERVAL '4' SECOND)) GROUP BY k, window_start, window_end",
                ONE_PHASE);
        w("cumulate_offset",
                "SELECT k, window_start, window_end, COUNT(*) AS cnt, MAX(v) AS hi FROM TABLE("
                        + "CUMULATE(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '2' SECOND,"
                        + " INTERVAL '10' SECOND, INTERVAL '1' SECOND))"
                        + " GROUP BY k, window_start, window_end",
                ONE_PHASE);
        w("window_time",
                "SELECT window_start, window_end, window_time, k, COUNT(DISTINCT s) AS ds,"
                        + " FIRST_VALUE(v) AS f, LAST_VALUE(s) AS l FROM TABLE("
                        + "TUMBLE(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND))"
                        + " GROUP BY k, window_start, window_end, window_time",
                ONE_PHASE);
        w("no_grouping",
                "SELECT window_start, window_end, COUNT(*) AS cnt, SUM(v) AS total FROM TABLE("
                        + "TUMBLE(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND))"
                        + " GROUP BY window_start, window_end",
                ONE_PHASE);
        w("ltz_rowtime",
                "SELECT k, window_start, window_end, COUNT(*) AS cnt, SUM(v) AS total FROM TABLE("
                        + "TUMBLE(TABLE wltz, DESCRIPTOR(lts), INTERVAL '1' SECOND))"
                        + " GROUP BY k, window_start, window_end",
                with(ONE_PHASE, "table.local-time-zone", "UTC"));
        w("ltz_rowtime_shanghai",
                "SELECT k, window_start, window_end, COUNT(*) AS cnt FROM TABLE("
                        + "TUMBLE(TABLE wltz, DESCRIPTOR(lts), INTERVAL '1' SECOND))"
                        + " GROUP BY k, window_start, window_end",
                with(ONE_PHASE, "table.local-time-zone", "Asia/Shanghai"));
        // The default (AUTO) strategy: a local/global window aggregate pair.
        w("two_phase",
                "SELECT k, window_start, window_end, COUNT(*) AS cnt, SUM(v) AS total FROM TABLE("
                        + "TUMBLE(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND))"
                        + " GROUP BY k, window_start, window_end");
        w("proctime",
                "SELECT k, window_start, window_end, COUNT(*) AS cnt FROM TABLE("
                        + "TUMBLE(TABLE wsrc, DESCRIPTOR(pt), INTERVAL '1' SECOND))"
                        + " GROUP BY k, window_start, window_end",
                ONE_PHASE);
        w("session",
                "SELECT k, window_start, window_end, COUNT(*) AS cnt FROM TABLE("
                        + "SESSION(TABLE wsrc PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND))"
                        + " GROUP BY k, window_start, window_end",
                ONE_PHASE);
        // Legacy group windows (StreamExecGroupWindowAggregate).
        w("group_session",
                "SELECT k, SESSION_START(ts, INTERVAL '5' SECOND) AS ws, COUNT(*) AS cnt,"
                        + " SUM(v) AS total FROM wsrc GROUP BY k, SESSION(ts, INTERVAL '5' SECOND)");
        w("group_tumble",
                "SELECT k, TUMBLE_END(ts, INTERVAL '5' SECOND) AS we, COUNT(*) AS cnt FROM wsrc"
                        + " GROUP BY k, TUMBLE(ts, INTERVAL '5' SECOND)");

        // Deduplication (StreamExecDeduplicate) over the window source's time attributes.
        d("proctime_first", dedup("k, v, s", "pt"));
        d("proctime_last", dedup("k, v, s", "pt DESC"));
        d("rowtime_first", dedup("k, v, s, ts", "ts"));
        d("rowtime_last", dedup("k, v, d, ts", "ts DESC"));
        d("mini_batch_last", dedup("k, v, s", "pt DESC"), MINI_BATCH);
        d("state_ttl", dedup("k, v, m", "pt DESC"), "table.exec.state.ttl", "1 h");

        // Top-N (StreamExecRank), one node per strategy and shape.
        String byV = "PARTITION BY k ORDER BY v DESC";
        r("append_top1", rank("k, v, s", byV, "wsrc", "rn = 1"));
        // A top-1 sorted ascending: Flink 2.3.0 declares it insert-only (as a keep-first
        // deduplication), so generateUpdateBefore is false even into a sink that takes -U.
        r("append_top1_asc", rank("k, v, s", "PARTITION BY k ORDER BY v", "wsrc", "rn = 1"));
        r("append_topn", rank("k, v, s", byV, "wsrc", "rn <= 3"));
        r("append_topn_rn", rank("k, v, s, rn", byV, "wsrc", "rn <= 3"));
        r("offset", rank("k, v, s", byV, "wsrc", "rn BETWEEN 2 AND 4"));
        r("first_n", rank("k, v, s, rn", "PARTITION BY k ORDER BY pt", "wsrc", "rn <= 3"));
        // SUM is not monotonic: the retract strategy.
        r("retract", rank("k, s, total, rn", "PARTITION BY k ORDER BY total DESC",
                "(SELECT k, s, SUM(v) AS total FROM wsrc GROUP BY k, s)", "rn <= 3"));
        // COUNT only grows and (s, k) is unique: the update-fast strategy.
        r("update_fast", rank("s, k, c, rn", "PARTITION BY s ORDER BY c DESC",
                "(SELECT s, k, COUNT(*) AS c FROM wsrc GROUP BY s, k)", "rn <= 3"));
        r("state_ttl", rank("k, v, m, rn", byV, "wsrc", "rn <= 3"), "table.exec.state.ttl", "1 h");
        r("global", rank("k, v, d", "ORDER BY v DESC, d", "wsrc", "rn <= 5"));

        // OVER aggregation (StreamExecOverAggregate), one node per frame kind.
        String byTs = "PARTITION BY k ORDER BY ts";
        o("rows_bounded", over("k, v, ts", "SUM(v) # AS s, COUNT(*) # AS c",
                byTs + " ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"));
        o("range_bounded", over("k, v, ts", "SUM(v) # AS s, MAX(d) # AS mx",
                byTs + " RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW"));
        o("rows_unbounded", over("k, v, ts", "SUM(v) # AS s, MIN(s) # AS mn",
                byTs + " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"));
        o("range_unbounded", over("k, v, ts", "AVG(v) # AS a, COUNT(DISTINCT s) # AS cd",
                byTs + " RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"));
        o("proctime_rows", over("k, v", "SUM(v) # AS s",
                "PARTITION BY k ORDER BY pt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"));
        o("no_partition", over("k, v, ts", "SUM(v) # AS s",
                "ORDER BY ts ROWS BETWEEN 5 PRECEDING AND CURRENT ROW"));
        o("state_ttl", over("k, v, ts", "SUM(v) # AS s",
                byTs + " ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"), "table.exec.state.ttl", "1 h");

        // Window Top-N (StreamExecWindowRank), window deduplication
        // (StreamExecWindowDeduplicate) and the window TVF rows (StreamExecWindowTableFunction)
        // they read.
        String tumble = "TABLE(TUMBLE(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND))";
        String byWindow = "PARTITION BY window_start, window_end, k ORDER BY ";
        wr("top3", rank("k, v, s, window_start, window_end", byWindow + "v DESC", tumble, "rn <= 3"));
        wr("top3_rn", rank("k, v, s, window_start, window_end, rn", byWindow + "v DESC, s", tumble,
                "rn <= 3"));
        wr("range", rank("k, v, window_start, window_end, rn",
                "PARTITION BY window_start, window_end ORDER BY v DESC", tumble,
                "rn BETWEEN 2 AND 4"));
        wr("after_agg", rank("window_start, window_end, k, cnt, rn",
                "PARTITION BY window_start, window_end ORDER BY cnt DESC",
                "(SELECT window_start, window_end, k, COUNT(*) AS cnt FROM " + tumble
                        + " GROUP BY window_start, window_end, k)", "rn <= 3"));
        wr("hop", rank("k, v, window_start, window_end, rn", byWindow + "v DESC",
                "TABLE(HOP(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))",
                "rn <= 2"));
        wr("ltz_shanghai", rank("k, v, window_start, window_end, rn", byWindow + "v DESC",
                "TABLE(TUMBLE(TABLE wltz, DESCRIPTOR(lts), INTERVAL '1' HOUR))", "rn <= 2"),
                "table.local-time-zone", "Asia/Shanghai");
        wr("proctime", rank("k, v, window_start, window_end, rn", byWindow + "v DESC",
                "TABLE(TUMBLE(TABLE wsrc, DESCRIPTOR(pt), INTERVAL '1' SECOND))", "rn <= 2"));
        wd("first", rank("k, v, s, ts, window_start, window_end", byWindow + "ts", tumble, "rn <= 1"));
        wd("last", rank("k, v, ts, window_start, window_end", byWindow + "ts DESC", tumble,
                "rn = 1"));
        wd("cumulate_last", rank("k, v, ts, window_start, window_end", byWindow + "ts DESC",
                "TABLE(CUMULATE(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND,"
                        + " INTERVAL '3' SECOND))", "rn = 1"));
        wt("tumble", "SELECT k, v, window_start, window_end, window_time FROM " + tumble);
        wt("hop", "SELECT * FROM TABLE(HOP(TABLE wsrc, DESCRIPTOR(ts), INTERVAL '1' SECOND,"
                + " INTERVAL '3' SECOND))");
        wt("cumulate", "SELECT * FROM TABLE(CUMULATE(TABLE wsrc, DESCRIPTOR(ts),"
                + " INTERVAL '1' SECOND, INTERVAL '3' SECOND, INTERVAL '0.5' SECOND))");
        wt("ltz_shanghai", "SELECT * FROM TABLE(TUMBLE(TABLE wltz, DESCRIPTOR(lts),"
                + " INTERVAL '1' DAY))", "table.local-time-zone", "Asia/Shanghai");
        wt("proctime", "SELECT k, window_start, window_end FROM TABLE(TUMBLE(TABLE wsrc,"
                + " DESCRIPTOR(pt), INTERVAL '1' SECOND))");

        // Window joins (StreamExecWindowJoin) of two window TVFs over the window source.
        String left = "(SELECT * FROM " + tumble + ") L";
        String right = "(SELECT * FROM " + tumble + " WHERE v > 0) R";
        String sameWindow = " AND L.window_start = R.window_start AND L.window_end = R.window_end";
        wj("inner", "SELECT L.k, L.v, R.s, L.window_start, L.window_end FROM " + left + " JOIN "
                + right + " ON L.k = R.k" + sameWindow);
        wj("left_condition", "SELECT L.k, L.v, R.v AS rv, L.window_end FROM " + left
                + " LEFT JOIN " + right + " ON L.k = R.k" + sameWindow + " AND L.v > R.v");
        wj("full", "SELECT L.k, R.k AS rk, L.window_end, R.window_end AS rend FROM " + left
                + " FULL JOIN " + right + " ON L.k = R.k" + sameWindow);
        wj("semi", "SELECT k, v, window_end FROM " + left + " WHERE L.k IN (SELECT R.k FROM "
                + right + " WHERE L.window_start = R.window_start"
                + " AND L.window_end = R.window_end)");
        wj("anti", "SELECT k, v, window_end FROM " + left + " WHERE NOT EXISTS (SELECT * FROM "
                + right + " WHERE L.k = R.k" + sameWindow + ")");

        // Interval joins (StreamExecIntervalJoin) of the window source with itself.
        String between = " AND L.ts BETWEEN R.ts - INTERVAL '1' SECOND AND R.ts + INTERVAL '2' SECOND";
        ij("inner", "SELECT L.k, L.v, R.s, L.ts, R.ts AS rts FROM wsrc L, wsrc R WHERE L.k = R.k"
                + between);
        ij("left_condition", "SELECT L.k, L.v, R.v AS rv, L.ts FROM wsrc L LEFT JOIN wsrc R"
                + " ON L.k = R.k" + between + " AND L.v > R.v");
        ij("right", "SELECT L.v, R.k, R.ts FROM wsrc L RIGHT JOIN wsrc R ON L.k = R.k"
                + " AND L.ts > R.ts - INTERVAL '3' SECOND AND L.ts < R.ts");
        ij("full_cleanup", "SELECT L.k, R.k AS rk, L.ts, R.ts AS rts FROM wsrc L FULL JOIN wsrc R"
                + " ON L.k = R.k AND L.s = R.s" + between,
                "table.exec.interval-join.min-cleanup-interval", "5 s");
        ij("ltz", "SELECT L.k, R.v FROM wltz L JOIN wltz R ON L.k = R.k"
                + " AND L.lts BETWEEN R.lts AND R.lts + INTERVAL '1' MINUTE",
                "table.local-time-zone", "Asia/Shanghai");
        ij("proctime", "SELECT L.k, R.v FROM wsrc L JOIN wsrc R ON L.k = R.k"
                + " AND L.pt BETWEEN R.pt - INTERVAL '1' SECOND AND R.pt");

        // Temporal joins (StreamExecTemporalJoin) of the window source with a versioned table.
        String asOf = " FOR SYSTEM_TIME AS OF L.ts AS R ON L.k = R.k";
        tj("inner", "SELECT L.k, L.v, R.r, L.ts FROM wsrc L JOIN rates" + asOf);
        tj("left_condition", "SELECT L.k, L.v, R.r, R.s AS rs, L.ts FROM wsrc L LEFT JOIN rates"
                + asOf + " AND L.v > R.r");
        tj("two_keys", "SELECT L.k, L.s, R.r FROM wsrc L JOIN rates2" + asOf
                + " AND L.s = R.s");
        tj("ltz", "SELECT L.k, L.v, R.r, L.lts FROM wltz L LEFT JOIN rates_ltz"
                + " FOR SYSTEM_TIME AS OF L.lts AS R ON L.k = R.k",
                "table.local-time-zone", "Asia/Shanghai");
        tj("state_ttl", "SELECT L.k, L.v, R.r FROM wsrc L JOIN rates" + asOf,
                "table.exec.state.ttl", "1 h");
        tj("proctime", "SELECT L.k, L.v, R.r FROM wsrc L JOIN rates"
                + " FOR SYSTEM_TIME AS OF L.pt AS R ON L.k = R.k");

        // Event-time sort (StreamExecTemporalSort): the rowtime first, then other fields.
        s("rowtime", "SELECT k, v, ts FROM wsrc ORDER BY ts");
        s("rowtime_secondary", "SELECT k, v, s, ts FROM wsrc ORDER BY ts, v DESC, s");
        s("proctime", "SELECT k, v FROM wsrc ORDER BY pt");
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        ObjectMapper mapper = new ObjectMapper();
        for (Query query : QUERIES) {
            Configuration conf = new Configuration();
            conf.setString("parallelism.default", "4");
            TableEnvironment tEnv =
                    TableEnvironment.create(
                            EnvironmentSettings.newInstance()
                                    .inStreamingMode()
                                    .withConfiguration(conf)
                                    .build());
            for (Map.Entry<String, String> o : query.options.entrySet()) {
                tEnv.getConfig().set(o.getKey(), o.getValue());
            }
            if (!query.kind.equals("agg")) {
                for (String source : WINDOW_SOURCES) {
                    tEnv.executeSql(source);
                }
                if (query.kind.equals("temporal_join")) {
                    for (String source : VERSIONED_SOURCES) {
                        tEnv.executeSql(source);
                    }
                }
            } else {
                tEnv.executeSql(SOURCE);
                tEnv.executeSql(GOLDEN_SOURCE);
            }
            ResolvedSchema schema = tEnv.sqlQuery(query.sql).getResolvedSchema();
            StringBuilder sink = new StringBuilder("CREATE TABLE snk (");
            for (int i = 0; i < schema.getColumns().size(); i++) {
                Column c = schema.getColumns().get(i);
                sink.append(i == 0 ? "" : ", ")
                        .append('`')
                        .append(c.getName())
                        .append("` ")
                        .append(c.getDataType().getLogicalType().asSerializableString());
            }
            // blackhole takes no -U (the aggregate then generates none); print takes them.
            String connector = query.name.startsWith("golden_") || query.kind.equals("dedup")
                            || query.kind.equals("rank") || query.kind.equals("over")
                            || query.kind.equals("sort") || query.kind.startsWith("window_")
                            || query.kind.equals("interval_join")
                            || query.kind.equals("temporal_join")
                    ? "print"
                    : "blackhole";
            tEnv.executeSql(
                    sink.append(") WITH ('connector' = '" + connector + "')").toString());
            String plan = tEnv.compilePlanSql("INSERT INTO snk " + query.sql).asJsonString();
            JsonNode root = mapper.readTree(plan);
            Map<Integer, JsonNode> byId = new HashMap<>();
            for (JsonNode node : root.get("nodes")) {
                byId.put(node.get("id").asInt(), node);
            }
            ObjectNode config = mapper.createObjectNode();
            config.put("parallelism.default", "4");
            for (Map.Entry<String, String> o : query.options.entrySet()) {
                config.put(o.getKey(), o.getValue());
            }
            List<ObjectNode> found = new ArrayList<>();
            for (JsonNode node : root.get("nodes")) {
                String nodes = switch (query.kind) {
                    case "window" -> "window-aggregate";
                    case "dedup" -> "deduplicate";
                    case "rank" -> "stream-exec-rank_1";
                    case "over" -> "over-aggregate";
                    case "sort" -> "temporal-sort";
                    case "window_rank" -> "window-rank";
                    case "window_dedup" -> "window-deduplicate";
                    case "window_tvf" -> "window-table-function";
                    case "window_join" -> "window-join";
                    case "interval_join" -> "interval-join";
                    case "temporal_join" -> "temporal-join";
                    default -> "group-aggregate";
                };
                if (!node.get("type").asText().contains(nodes)) {
                    continue;
                }
                ObjectNode description = mapper.createObjectNode();
                description.set("node", node);
                ArrayNode inputs = description.putArray("inputs");
                for (JsonNode edge : root.get("edges")) {
                    if (edge.get("target").asInt() == node.get("id").asInt()) {
                        inputs.add(byId.get(edge.get("source").asInt()).get("outputType"));
                    }
                }
                description.set("config", config);
                found.add(description);
            }
            for (int n = 0; n < found.size(); n++) {
                String file = query.kind + "-" + query.name + (found.size() == 1 ? "" : "-" + n) + ".json";
                Files.write(dir.resolve(file),
                        (mapper.writerWithDefaultPrettyPrinter().writeValueAsString(found.get(n))
                                        + "\n")
                                .getBytes(StandardCharsets.UTF_8));
                System.out.println(file + ": " + found.get(n).get("node").get("type").asText());
            }
        }
    }
}
