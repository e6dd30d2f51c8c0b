package org.streamfusion.harness;

import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.streamfusion.flink.NativeOneInputOperator;
import org.streamfusion.flink.StreamFusionPlanner;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Window aggregation, window Top-N and window deduplication parity of StreamFusion against
 * stock Flink 2.3.0 in one MiniCluster JVM.
 *
 * <p>Every query (window TVFs: TUMBLE, HOP, CUMULATE and SESSION, with and without offsets, planned
 * ONE_PHASE so each has one {@code WindowAggregate}, or AUTO so it has a {@code
 * LocalWindowAggregate} and a {@code GlobalWindowAggregate}) runs over the same input, stock
 * ({@code streamfusion.enabled = false}) and native ({@code true}, small bundles so every query
 * spans many JNI calls), under the same keyed state backend. Which rows are late must not
 * depend on timing: the input is a {@code fromData} stream at parallelism 1 whose watermarks
 * are punctuated (emitted from {@code onEvent} every {@value #WATERMARK_EVERY} rows, the
 * largest timestamp seen minus {@value #BOUND_MS} ms), so rows and watermarks interleave the
 * same way in every run. The table takes its rowtime from the stream ({@code SOURCE_WATERMARK()}):
 * view {@code t} on the physical TIMESTAMP(3) column {@code ts} (plus a processing-time {@code
 * pt}), view {@code tl} on the TIMESTAMP_LTZ(3) record timestamp {@code rt}; the session time
 * zone is UTC. The rows have hundreds of keys with NULLs, NULL-heavy INT, BIGINT, DOUBLE,
 * DECIMAL and Unicode STRING values, out-of-order rows, rows late enough to be dropped for
 * every window, rows late only for some HOP and CUMULATE windows, and gaps of empty windows.
 *
 * <p>The combinations: parallelism 1 on {@code hashmap} (every query) and on {@code rocksdb}
 * (the queries marked for it), and parallelism 2 after the source (source still at 1) on
 * {@code hashmap} for the order-insensitive queries. At parallelism 2 the window aggregate
 * takes the minimum watermark of two channels, whose interleaving is not fixed, so that run
 * reads a second input with the same rows but none late (out of order by less than the
 * bound), whose results do not depend on when each channel's watermark arrives.
 *
 * <p>Window Top-N ({@code ROW_NUMBER() OVER (PARTITION BY window_start, window_end, ..)}) and
 * deduplication queries read the window TVF's rows (or a window aggregate's, chained); their
 * windows' nodes count as window nodes below, and so do the window joins and the event-time
 * interval joins ({@code L JOIN R ON .. AND L.ts BETWEEN R.ts - .. AND R.ts + ..}, and in
 * processing time over {@code pt}) and temporal
 * joins ({@code L [LEFT] JOIN V FOR SYSTEM_TIME AS OF L.ts ON ..} over a versioned view).
 *
 * <p>Window outputs are insert-only: outputs must be equal as multisets of rows, row kinds
 * included. For each native run the planner's decisions must show the query's {@code
 * WindowAggregate} substituted (both phases of an AUTO plan), except for the queries that must
 * stay stock (and still match): a processing-time window, whose {@code WindowAggregate} the
 * native side must refuse (and, with {@code streamfusion.fallback = false}, planning must
 * fail). Processing-time windows of a bounded input emit nothing (their
 * timers do not fire at the end of input), so that query may match with no rows.
 *
 * <p>Args: optional query names to run (all when none). Prints one line per case and a last
 * line {@code summary: ...}; exits 1 on any failure.
 */
public final class WindowParity {
    private static final int ROWS = 3000;
    private static final int BUNDLE_ROWS = 64;
    /** The watermark trails the largest timestamp seen by this much. */
    static final long BOUND_MS = 500;
    /** Rows between two watermarks (so a native bundle spans several rows). */
    static final int WATERMARK_EVERY = 20;
    /** 2026-03-01T00:00:00, UTC. */
    static final LocalDateTime BASE = LocalDateTime.of(2026, 3, 1, 0, 0);

    /** One parallelism (after the source) under one keyed state backend. */
    record Combo(int parallelism, String backend) {
        @Override
        public String toString() {
            return "p" + parallelism + "/" + backend;
        }
    }

    static final List<Combo> COMBOS = List.of(
            new Combo(1, "hashmap"), new Combo(1, "rocksdb"), new Combo(2, "hashmap"));

    /** Where a query runs beyond parallelism 1 on hashmap. */
    enum Reach {
        FIRST_ONLY,
        BACKENDS,
        EVERYWHERE
    }

    /** What the native run must plan for a query. */
    enum Expect {
        /** Its one {@code WindowAggregate} native. */
        NATIVE,
        /** Its one {@code WindowAggregate} refused (stays stock). */
        STOCK,
        /** AUTO: a native local and a native global window aggregate. */
        TWO_PHASE,
        /** A native window aggregate feeding a native window Top-N. */
        CHAINED
    }

    /**
     * One query; {@code mayBeEmpty} for processing time (timers may not fire at the end),
     * planned in session time zone {@code zone} with state TTL {@code stateTtl}.
     */
    record Query(String name, String sql, Reach reach, Expect expect, boolean mayBeEmpty,
            String zone, String stateTtl) {
        Query(String name, String sql, Reach reach, Expect expect, boolean mayBeEmpty) {
            this(name, sql, reach, expect, mayBeEmpty, "UTC");
        }

        Query(String name, String sql, Reach reach, Expect expect, boolean mayBeEmpty,
                String zone) {
            this(name, sql, reach, expect, mayBeEmpty, zone, "0 ms");
        }

        boolean runsIn(Combo combo) {
            if (combo.equals(COMBOS.get(0))) {
                return true;
            }
            return switch (reach) {
                case FIRST_ONLY -> false;
                case BACKENDS -> combo.parallelism() == 1;
                case EVERYWHERE -> true;
            };
        }
    }

    static final List<Query> QUERIES = new ArrayList<>();

    static void q(String name, Reach reach, String sql) {
        QUERIES.add(new Query(name, sql, reach, Expect.NATIVE, false));
    }

    /** {@code ROW_NUMBER() OVER (over) AS rn} over {@code from}, filtered by {@code where}. */
    static String ranked(String columns, String over, String from, String where) {
        return "SELECT " + columns + " FROM (SELECT *, ROW_NUMBER() OVER (" + over + ") AS rn"
                + from + ") WHERE " + where;
    }

    /** A query planned with {@code table.exec.state.ttl} = {@code ttl}. */
    static void tq(String name, Reach reach, String ttl, String sql) {
        QUERIES.add(new Query(name, sql, reach, Expect.NATIVE, false, "UTC", ttl));
    }

    /** A query planned in the session time zone {@code zone}. */
    static void zq(String name, Reach reach, String zone, String sql) {
        QUERIES.add(new Query(name, sql, reach, Expect.NATIVE, false, zone));
    }

    static void two(String name, String sql) {
        QUERIES.add(new Query(name, sql, Reach.EVERYWHERE, Expect.TWO_PHASE, false));
    }

    /** A two-phase query planned in the session time zone {@code zone}. */
    static void ztwo(String name, String zone, String sql) {
        QUERIES.add(new Query(name, sql, Reach.EVERYWHERE, Expect.TWO_PHASE, false, zone));
    }

    static String tumble(String table, String time, String size) {
        return " FROM TABLE(TUMBLE(TABLE " + table + ", DESCRIPTOR(" + time + "), INTERVAL "
                + size + "))";
    }

    static String hop(String slide, String size) {
        return " FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL " + slide + ", INTERVAL " + size
                + "))";
    }

    static String cumulate(String step, String size) {
        return " FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL " + step + ", INTERVAL "
                + size + "))";
    }

    /** {@code table} is the table with its {@code PARTITION BY}, if any. */
    static String session(String table, String time, String gap) {
        return " FROM TABLE(SESSION(TABLE " + table + ", DESCRIPTOR(" + time + "), INTERVAL "
                + gap + "))";
    }

    static final String BY = " GROUP BY window_start, window_end";

    static {
        String t1 = tumble("t", "ts", "'1' SECOND");
        q("tumble", Reach.EVERYWHERE,
                "SELECT k, window_start, window_end, COUNT(*), COUNT(i), SUM(i), SUM(l), MIN(d),"
                        + " MAX(d), AVG(l)" + t1 + BY + ", k");
        q("tumble_offset", Reach.BACKENDS,
                "SELECT k2, window_start, window_end, COUNT(*), SUM(amount), MIN(amount),"
                        + " MAX(amount), AVG(amount)"
                        + " FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND,"
                        + " INTERVAL '2' SECOND))" + BY + ", k2");
        q("tumble_strings", Reach.BACKENDS,
                "SELECT k2, window_start, window_end, MIN(s), MAX(s), COUNT(s), MIN(g), MAX(g)"
                        + t1 + BY + ", k2");
        // Order-sensitive: the order rows reach the aggregate is fixed at parallelism 1 only.
        q("tumble_first_last", Reach.BACKENDS,
                "SELECT k2, window_start, window_end, FIRST_VALUE(s), LAST_VALUE(i),"
                        + " FIRST_VALUE(amount), LAST_VALUE(s)" + t1 + BY + ", k2");
        // With a COUNT of the same column Flink plans SUM and AVG as COUNT and $SUM0.
        q("tumble_sum0", Reach.BACKENDS,
                "SELECT k, window_start, window_end, COUNT(i), SUM(i), AVG(i), COUNT(d), SUM(d),"
                        + " AVG(d), COUNT(amount), SUM(amount), AVG(amount)" + t1 + BY + ", k");
        // Sums of non-dyadic doubles depend on the order of additions.
        q("tumble_non_dyadic", Reach.FIRST_ONLY,
                "SELECT k2, window_start, window_end, SUM(x), AVG(x), MIN(x), MAX(x)" + t1 + BY
                        + ", k2");
        q("tumble_null_heavy", Reach.FIRST_ONLY,
                "SELECT i, window_start, window_end, COUNT(*), SUM(n), MAX(n), AVG(n), COUNT(n),"
                        + " MIN(s)" + tumble("t", "ts", "'3' SECOND") + BY + ", i");
        q("tumble_null_key", Reach.FIRST_ONLY,
                "SELECT n, window_start, window_end, COUNT(*), SUM(i), MIN(s), MAX(amount)" + t1
                        + BY + ", n");
        q("tumble_unicode_keys", Reach.BACKENDS,
                "SELECT s, window_start, window_end, COUNT(*), SUM(i), MAX(g), MIN(d)"
                        + tumble("t", "ts", "'2' SECOND") + BY + ", s");
        q("tumble_multi_key", Reach.FIRST_ONLY,
                "SELECT window_start, k2, g, window_end, COUNT(*), SUM(l), MAX(s)" + t1 + BY
                        + ", k2, g");
        q("tumble_window_time", Reach.BACKENDS,
                "SELECT k2, window_start, window_end, window_time, COUNT(*), MAX(l)" + t1 + BY
                        + ", window_time, k2");
        q("tumble_distinct", Reach.BACKENDS,
                "SELECT g, window_start, window_end, COUNT(DISTINCT k2), COUNT(DISTINCT s),"
                        + " SUM(DISTINCT i), COUNT(*)" + tumble("t", "ts", "'2' SECOND") + BY
                        + ", g");
        // FILTER (WHERE ..) columns come from the Calc before the window aggregate.
        q("tumble_filter", Reach.EVERYWHERE,
                "SELECT k, window_start, window_end, COUNT(*) FILTER (WHERE i > 0),"
                        + " SUM(l) FILTER (WHERE s IS NOT NULL), MAX(s) FILTER (WHERE d > 0),"
                        + " COUNT(DISTINCT k2) FILTER (WHERE i < 0), COUNT(*)" + t1 + BY + ", k");
        // STDDEV/VAR: $WELFORD_M2 and COUNT, order-sensitive for non-dyadic doubles.
        q("tumble_stddev", Reach.FIRST_ONLY,
                "SELECT k2, window_start, window_end, STDDEV_POP(d), VAR_SAMP(i), VAR_POP(amount)"
                        + t1 + BY + ", k2");
        // HOP merges the slices' $WELFORD_M2 accumulators (WelfordM2AggFunction.merge).
        q("hop_stddev", Reach.FIRST_ONLY,
                "SELECT k2, window_start, window_end, STDDEV_SAMP(d), VAR_POP(i)"
                        + hop("'1' SECOND", "'3' SECOND") + BY + ", k2");
        q("tumble_array_agg", Reach.BACKENDS,
                "SELECT k2, window_start, window_end, ARRAY_AGG(s), ARRAY_AGG(DISTINCT i),"
                        + " ARRAY_AGG(amount IGNORE NULLS)" + t1 + BY + ", k2");
        q("tumble_global", Reach.EVERYWHERE,
                "SELECT window_start, window_end, COUNT(*), SUM(l), MAX(s), MIN(d), AVG(amount)"
                        + t1 + BY);
        q("tumble_calc_before_after", Reach.EVERYWHERE,
                "SELECT g, window_start, cnt * 10 AS c10, total, top FROM (SELECT g,"
                        + " window_start, window_end, COUNT(*) AS cnt, SUM(i * 2) AS total,"
                        + " MAX(UPPER(s)) AS top" + t1 + " WHERE i > -5 AND s IS NOT NULL"
                        + BY + ", g) WHERE cnt > 1");
        q("tumble_ltz", Reach.BACKENDS,
                "SELECT k2, window_start, window_end, window_time, COUNT(*), SUM(l), MIN(s)"
                        + tumble("tl", "rt", "'1' SECOND") + BY + ", window_time, k2");
        q("hop", Reach.EVERYWHERE,
                "SELECT k, window_start, window_end, COUNT(*), COUNT(i), SUM(i), MIN(s), MAX(l),"
                        + " AVG(d)" + hop("'1' SECOND", "'4' SECOND") + BY + ", k");
        q("hop_sum0", Reach.BACKENDS,
                "SELECT k2, window_start, window_end, COUNT(l), SUM(l), AVG(l), SUM(amount),"
                        + " MIN(d), MAX(s)" + hop("'1' SECOND", "'4' SECOND") + BY + ", k2");
        q("hop_offset", Reach.BACKENDS,
                "SELECT k2, window_start, window_end, window_time, COUNT(*), SUM(d), MAX(amount)"
                        + " FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND,"
                        + " INTERVAL '6' SECOND, INTERVAL '1' SECOND))" + BY
                        + ", window_time, k2");
        q("hop_distinct", Reach.FIRST_ONLY,
                "SELECT g, window_start, window_end, COUNT(DISTINCT i), COUNT(*), MIN(l)"
                        + hop("'1' SECOND", "'3' SECOND") + BY + ", g");
        q("hop_global", Reach.EVERYWHERE,
                "SELECT window_start, window_end, window_time, COUNT(*), SUM(i), MAX(s), MIN(amount)"
                        + hop("'2' SECOND", "'6' SECOND") + BY + ", window_time");
        q("cumulate", Reach.EVERYWHERE,
                "SELECT k, window_start, window_end, COUNT(*), SUM(i), MIN(amount), MAX(s), AVG(l)"
                        + cumulate("'2' SECOND", "'8' SECOND") + BY + ", k");
        q("cumulate_offset", Reach.EVERYWHERE,
                "SELECT k2, window_start, window_end, window_time, COUNT(*), COUNT(s), SUM(d),"
                        + " AVG(i), MIN(s), MAX(i)"
                        + " FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND,"
                        + " INTERVAL '5' SECOND, INTERVAL '2' SECOND))" + BY + ", window_time, k2");
        q("cumulate_sum0_global", Reach.BACKENDS,
                "SELECT window_start, window_end, COUNT(i), SUM(i), AVG(i), COUNT(DISTINCT k2)"
                        + cumulate("'1' SECOND", "'3' SECOND") + BY);
        q("cumulate_calc_before_after", Reach.FIRST_ONLY,
                "SELECT k2, window_end, hi - lo FROM (SELECT k2, window_start, window_end,"
                        + " MAX(i) AS hi, MIN(i) AS lo" + cumulate("'2' SECOND", "'6' SECOND")
                        + " WHERE s <> 'x'" + BY + ", k2) WHERE hi > lo");
        // SESSION windows (one phase: Flink does not split unsliced windows). Rows of a key
        // in k2 are ~360 ms apart, so '2' SECOND sessions end at the 5 s gaps only.
        q("session", Reach.EVERYWHERE,
                "SELECT k2, window_start, window_end, COUNT(*), SUM(i), MAX(s), MIN(d), AVG(l)"
                        + session("t PARTITION BY k2", "ts", "'2' SECOND") + BY + ", k2");
        // Rows of a key in k are ~13.2 s apart (18.2 s across a 5 s gap), give or take the
        // out-of-order and late rows: '13' SECOND sessions both break and merge, and late
        // rows bridge two sessions or extend one backwards.
        q("session_merges", Reach.BACKENDS,
                "SELECT k, window_start, window_end, window_time, COUNT(*), COUNT(i), SUM(l),"
                        + " MIN(s), MAX(i), AVG(d)"
                        + session("t PARTITION BY k", "ts", "'13' SECOND") + BY
                        + ", window_time, k");
        // Rows of a key in k2 are ~360 ms apart, out of order by up to 399 ms, some 700 ms
        // late: '0.25' SECOND sessions hold a row or a few, and out-of-order and late rows
        // land between two live sessions and bridge them.
        q("session_bridges", Reach.BACKENDS,
                "SELECT k2, window_start, window_end, COUNT(*), SUM(i), MIN(s), MAX(l), AVG(d)"
                        + session("t PARTITION BY k2", "ts", "'0.25' SECOND") + BY + ", k2");
        // $WELFORD_M2's merge is not symmetric: bridged sessions merge in Flink's order (the
        // first of a java.util.HashSet's iteration keeps its state). View sb: each key's two
        // sessions of three rows each, then the row that bridges them (BRIDGES).
        q("session_stddev", Reach.BACKENDS,
                "SELECT k2, window_start, window_end, STDDEV_POP(x), VAR_SAMP(x), VAR_POP(d),"
                        + " SUM(x), COUNT(*)" + session("sb PARTITION BY k2", "ts", "'0.2' SECOND")
                        + BY + ", k2");
        q("session_distinct_filter", Reach.BACKENDS,
                "SELECT g, window_start, window_end, COUNT(DISTINCT k2), SUM(l) FILTER (WHERE"
                        + " i > 0), COUNT(*) FILTER (WHERE s IS NULL), MAX(amount)"
                        + session("t PARTITION BY g", "ts", "'3' SECOND") + BY + ", g");
        q("session_global", Reach.EVERYWHERE,
                "SELECT window_start, window_end, COUNT(*), SUM(i), MAX(s), MIN(amount)"
                        + session("t", "ts", "'1' SECOND") + BY);
        q("session_ltz", Reach.BACKENDS,
                "SELECT k2, window_start, window_end, window_time, COUNT(*), SUM(l), MIN(s)"
                        + session("tl PARTITION BY k2", "rt", "'1' SECOND") + BY
                        + ", window_time, k2");
        // Legacy group windows: GROUP BY k, SESSION(ts, gap) (Flink's WindowOperator).
        q("legacy_session", Reach.EVERYWHERE,
                "SELECT k2, SESSION_START(ts, INTERVAL '2' SECOND), SESSION_END(ts, INTERVAL '2'"
                        + " SECOND), COUNT(*), SUM(i), MAX(s), MIN(d) FROM t GROUP BY k2,"
                        + " SESSION(ts, INTERVAL '2' SECOND)");
        q("legacy_session_bridges", Reach.BACKENDS,
                "SELECT k2, SESSION_ROWTIME(ts, INTERVAL '0.25' SECOND), COUNT(*), SUM(l),"
                        + " MIN(s), AVG(d) FROM t GROUP BY k2, SESSION(ts, INTERVAL '0.25'"
                        + " SECOND)");
        q("legacy_session_stddev", Reach.BACKENDS,
                "SELECT k2, SESSION_START(sb.ts, INTERVAL '0.2' SECOND), STDDEV_POP(x),"
                        + " VAR_SAMP(x), COUNT(*) FROM sb GROUP BY k2, SESSION(sb.ts, INTERVAL"
                        + " '0.2' SECOND)");
        q("legacy_session_global", Reach.EVERYWHERE,
                "SELECT SESSION_START(ts, INTERVAL '1' SECOND), COUNT(*), SUM(i), MAX(s)"
                        + " FROM t GROUP BY SESSION(ts, INTERVAL '1' SECOND)");
        // Legacy GROUP BY k, TUMBLE(ts, size): the sliced TUMBLE, restored without a
        // watermark as Flink's WindowOperator is; late rows dropped as it drops them.
        q("legacy_tumble", Reach.EVERYWHERE,
                "SELECT k2, TUMBLE_START(ts, INTERVAL '1' SECOND), TUMBLE_END(ts, INTERVAL '1'"
                        + " SECOND), TUMBLE_ROWTIME(ts, INTERVAL '1' SECOND), COUNT(*), SUM(i),"
                        + " MAX(s), AVG(l) FROM t GROUP BY k2, TUMBLE(ts, INTERVAL '1' SECOND)");
        q("legacy_tumble_global", Reach.BACKENDS,
                "SELECT TUMBLE_END(ts, INTERVAL '3' SECOND), COUNT(*), COUNT(DISTINCT k),"
                        + " MIN(d), SUM(amount) FROM t GROUP BY TUMBLE(ts, INTERVAL '3' SECOND)");
        q("legacy_tumble_ltz_utc", Reach.BACKENDS,
                "SELECT k, TUMBLE_START(rt, INTERVAL '2' SECOND), TUMBLE_ROWTIME(rt, INTERVAL"
                        + " '2' SECOND), COUNT(*), SUM(l) FROM tl GROUP BY k, TUMBLE(rt, INTERVAL"
                        + " '2' SECOND)");
        // Legacy GROUP BY k, HOP(ts, slide, size): Flink accumulates panes of gcd(size,
        // slide) and merges a window's panes in time order, as the sliced HOP merges slices.
        String hop13 = "ts, INTERVAL '1' SECOND, INTERVAL '3' SECOND";
        q("legacy_hop", Reach.EVERYWHERE,
                "SELECT k2, HOP_START(" + hop13 + "), HOP_END(" + hop13 + "), HOP_ROWTIME("
                        + hop13 + "), COUNT(*), SUM(i), MAX(s), AVG(l) FROM t GROUP BY k2,"
                        + " HOP(" + hop13 + ")");
        String hop26 = "ts, INTERVAL '2' SECOND, INTERVAL '6' SECOND";
        q("legacy_hop_panes", Reach.BACKENDS,
                "SELECT k, HOP_END(" + hop26 + "), COUNT(*), MIN(d), SUM(amount), COUNT(DISTINCT"
                        + " g) FROM t GROUP BY k, HOP(" + hop26 + ")");
        // A size that is no multiple of the slide (panes of 1 s) stays stock.
        String hop25 = "ts, INTERVAL '2' SECOND, INTERVAL '5' SECOND";
        QUERIES.add(new Query("legacy_hop_odd_stock",
                "SELECT k, HOP_END(" + hop25 + "), COUNT(*), SUM(i) FROM t GROUP BY k, HOP("
                        + hop25 + ")", Reach.FIRST_ONLY, Expect.STOCK, false));
        // Sums of non-dyadic doubles show the order panes merge in.
        q("legacy_hop_non_dyadic", Reach.FIRST_ONLY,
                "SELECT k2, HOP_START(" + hop13 + "), SUM(x), AVG(x), STDDEV_SAMP(d), VAR_POP(x)"
                        + " FROM t GROUP BY k2, HOP(" + hop13 + ")");
        // Stay stock and still match: a legacy TUMBLE on TIMESTAMP_LTZ outside UTC (Flink's
        // WindowOperator has no buffer; the sliced operator's triggers differ in some zones).
        QUERIES.add(new Query("legacy_tumble_zoned_stock",
                "SELECT k2, TUMBLE_START(rt, INTERVAL '1' MINUTE), COUNT(*), SUM(i) FROM tfall"
                        + " GROUP BY k2, TUMBLE(rt, INTERVAL '1' MINUTE)",
                Reach.FIRST_ONLY, Expect.STOCK, false, "America/Los_Angeles"));
        // One window of a day: the rows' windows do not depend on when they are processed
        // (unless a run spans midnight UTC), and window bounds are not selected.
        QUERIES.add(new Query("proctime_stock",
                "SELECT k2, COUNT(*), SUM(i), MAX(s)" + tumble("t", "pt", "'1' DAY") + BY
                        + ", k2",
                Reach.FIRST_ONLY, Expect.STOCK, true));
        // Window Top-N and deduplication over the window TVF's rows (WindowRank and
        // WindowDeduplicate after a stock WindowTableFunction). Ties in the ORDER BY go to the
        // first to arrive, so queries with ties run at parallelism 1 only.
        String byWindow = "PARTITION BY window_start, window_end, ";
        q("window_top3", Reach.BACKENDS,
                ranked("k2, i, s, id, window_start, window_end, rn", byWindow + "k2 ORDER BY i DESC",
                        t1, "rn <= 3"));
        q("window_top3_no_rank", Reach.EVERYWHERE,
                ranked("k, l, id, window_end", byWindow + "k ORDER BY l, id", t1, "rn <= 3"));
        q("window_rank_range_global", Reach.EVERYWHERE,
                ranked("s, amount, id, window_start, rn",
                        "PARTITION BY window_start, window_end ORDER BY s DESC NULLS FIRST, id",
                        tumble("t", "ts", "'2' SECOND"), "rn BETWEEN 2 AND 4"));
        q("window_rank_hop", Reach.EVERYWHERE,
                ranked("k2, l, id, window_start, window_end, rn", byWindow + "k2 ORDER BY l DESC, id",
                        hop("'1' SECOND", "'3' SECOND"), "rn <= 2"));
        q("window_rank_strings_ties", Reach.BACKENDS,
                ranked("g, s, id, window_end, rn", byWindow + "g ORDER BY s NULLS FIRST, amount DESC",
                        cumulate("'1' SECOND", "'3' SECOND"), "rn <= 4"));
        QUERIES.add(new Query("window_rank_after_agg",
                ranked("window_start, window_end, k2, cnt, total, rn",
                        "PARTITION BY window_start, window_end ORDER BY cnt DESC, k2",
                        " FROM (SELECT window_start, window_end, k2, COUNT(*) AS cnt, SUM(l) AS"
                                + " total" + t1 + BY + ", k2)", "rn <= 3"),
                Reach.EVERYWHERE, Expect.CHAINED, false));
        q("window_dedup_first", Reach.BACKENDS,
                ranked("k, i, s, ts, window_start, window_end", byWindow + "k ORDER BY ts", t1,
                        "rn = 1"));
        q("window_dedup_last", Reach.BACKENDS,
                ranked("k2, l, id, ts, window_end", byWindow + "k2 ORDER BY ts DESC",
                        cumulate("'1' SECOND", "'4' SECOND"), "rn <= 1"));
        q("window_dedup_ltz", Reach.BACKENDS,
                ranked("k2, s, rt, window_start", byWindow + "k2 ORDER BY rt DESC",
                        tumble("tl", "rt", "'2' SECOND"), "rn = 1"));
        // Window joins of two window TVFs (WindowJoin after WindowTableFunction and Calc
        // nodes): every join type, NULL keys, a non-equi condition over NULL-heavy values,
        // TUMBLE and HOP. Over view tj, the rows with none late: which rows a two-input
        // operator drops as late depends on how its inputs interleave, which no run fixes
        // (stock runs differ from each other); tests/it/window_join.rs covers late rows.
        String tj1 = tumble("tj", "ts", "'1' SECOND");
        String hj = " FROM TABLE(HOP(TABLE tj, DESCRIPTOR(ts), INTERVAL '1' SECOND,"
                + " INTERVAL '2' SECOND))";
        String wl = "(SELECT *" + tj1 + " WHERE i IS NULL OR MOD(i, 3) <> 0) L";
        String wr = "(SELECT *" + tj1 + " WHERE l IS NULL OR MOD(l, 2) = 0) R";
        String same = " AND L.window_start = R.window_start AND L.window_end = R.window_end";
        q("window_join_inner", Reach.EVERYWHERE,
                "SELECT L.k2, L.id, R.id, L.s, R.d, L.window_start, L.window_end FROM " + wl
                        + " JOIN " + wr + " ON L.k2 = R.k2" + same + " AND L.id < R.id");
        q("window_join_left_condition", Reach.EVERYWHERE,
                "SELECT L.k, L.id, R.id, L.i, R.i, L.window_end FROM " + wl + " LEFT JOIN " + wr
                        + " ON L.k = R.k" + same + " AND L.i > R.i");
        q("window_join_right_hop", Reach.EVERYWHERE,
                "SELECT L.id, R.k2, R.id, R.amount, R.window_start FROM (SELECT *" + hj
                        + " WHERE MOD(id, 2) = 0) L RIGHT JOIN (SELECT *" + hj
                        + " WHERE MOD(id, 3) = 0) R ON L.k2 = R.k2" + same);
        q("window_join_full", Reach.EVERYWHERE,
                "SELECT L.k2, R.k2, L.id, R.id, L.window_end, R.window_end FROM " + wl
                        + " FULL JOIN " + wr + " ON L.k2 = R.k2" + same);
        q("window_join_semi", Reach.EVERYWHERE,
                "SELECT k2, id, s, window_end FROM " + wl + " WHERE L.k2 IN (SELECT R.k2 FROM "
                        + wr + " WHERE L.window_start = R.window_start"
                        + " AND L.window_end = R.window_end)");
        q("window_join_anti", Reach.EVERYWHERE,
                "SELECT k, id, window_start FROM " + wl + " WHERE NOT EXISTS (SELECT * FROM "
                        + wr + " WHERE L.k = R.k" + same + ")");
        // Interval joins (IntervalJoin after Calc nodes) over view tj: every join type, the
        // comma form, bounds either side, strictly before and after only, NULL keys, a
        // non-equi condition. Its rows trail the watermark by less than its bound, so no row
        // reaches the join when the other side's operator time has passed its bounds, and
        // both sides' rows within the bounds of each other always meet, whatever the
        // interleaving of the two inputs: the rows joined and the outer rows padded (when
        // they expire or at the end of input) are the same in every run.
        // tests/golden/flink-2.3.0-interval-join.jsonl covers late rows.
        String il = "(SELECT * FROM tj WHERE i IS NULL OR MOD(i, 3) <> 0) L";
        String ir = "(SELECT * FROM tj WHERE l IS NULL OR MOD(l, 2) = 0) R";
        String second = " AND L.ts BETWEEN R.ts - INTERVAL '1' SECOND"
                + " AND R.ts + INTERVAL '1' SECOND";
        q("interval_join_inner", Reach.EVERYWHERE,
                "SELECT L.k2, L.id, R.id, L.s, R.d FROM " + il + ", " + ir
                        + " WHERE L.k2 = R.k2" + second);
        q("interval_join_left_condition", Reach.EVERYWHERE,
                "SELECT L.k, L.id, R.id, L.i, R.i FROM " + il + " LEFT JOIN " + ir
                        + " ON L.k = R.k" + second + " AND L.i > R.i");
        q("interval_join_right_before", Reach.EVERYWHERE,
                "SELECT L.id, R.k2, R.id, R.amount FROM " + il + " RIGHT JOIN " + ir
                        + " ON L.k2 = R.k2 AND L.ts > R.ts - INTERVAL '3' SECOND"
                        + " AND L.ts < R.ts");
        q("interval_join_full_after", Reach.EVERYWHERE,
                "SELECT L.k2, R.k2, L.id, R.id, CAST(L.ts AS TIMESTAMP(3)) FROM " + il
                        + " FULL JOIN " + ir + " ON L.k2 = R.k2"
                        + " AND L.ts BETWEEN R.ts AND R.ts + INTERVAL '2' SECOND");
        q("interval_join_full_null_keys", Reach.EVERYWHERE,
                "SELECT L.k, R.k, L.n, R.g, L.id, R.id FROM " + il + " FULL JOIN " + ir
                        + " ON L.k = R.k AND L.g = R.g" + second);
        // Processing-time interval joins over view t's pt: bounds of an hour, so every row is
        // cached and probes, and every pair of a key meets whatever the order the rows are
        // processed in; their cleanup timers (an hour on) never fire in the job and, as in
        // Flink, not at the end of input, so no outer row is padded: the same rows in every
        // run. tests/golden/flink-2.3.0-proctime-interval-join.jsonl covers expiry and timers.
        String pl = "(SELECT * FROM t WHERE i IS NULL OR MOD(i, 3) <> 0) L";
        String pr = "(SELECT * FROM t WHERE l IS NULL OR MOD(l, 2) = 0) R";
        q("interval_join_proctime_inner", Reach.EVERYWHERE,
                "SELECT L.k, L.id, R.id, L.s, R.d FROM " + pl + ", " + pr
                        + " WHERE L.k = R.k AND L.pt BETWEEN R.pt - INTERVAL '1' HOUR"
                        + " AND R.pt + INTERVAL '1' HOUR");
        q("interval_join_proctime_left_condition", Reach.EVERYWHERE,
                "SELECT L.k, L.id, R.id, L.i, R.i FROM " + pl + " LEFT JOIN " + pr
                        + " ON L.k = R.k AND L.pt BETWEEN R.pt - INTERVAL '2' HOUR"
                        + " AND R.pt + INTERVAL '1' HOUR AND L.i > R.i");
        // Temporal joins (TemporalJoin) of tj's rows against the versioned view tjv (each k2's
        // latest row with an id divisible by 3, by event time: a rowtime keep-last
        // deduplication), INNER and LEFT, with a non-equi condition and NULL keys. No row of
        // tj is late, so every version at or before a left row's time reaches the join before
        // the watermark passes that row: the rows emitted are the same in every run.
        String tl = "(SELECT * FROM tj WHERE MOD(id, 3) <> 0) L";
        q("temporal_join_inner", Reach.EVERYWHERE,
                "SELECT L.k2, L.id, R.id, L.s, R.amount FROM " + tl
                        + " JOIN tjv FOR SYSTEM_TIME AS OF L.ts AS R ON L.k2 = R.k2");
        q("temporal_join_left_condition", Reach.EVERYWHERE,
                "SELECT L.k2, L.id, R.id, R.s, L.ts FROM " + tl
                        + " LEFT JOIN tjv FOR SYSTEM_TIME AS OF L.ts AS R ON L.k2 = R.k2"
                        + " AND L.id > R.id + 10");
        // Under a state TTL of an hour (Flink's retention: processing-time cleanup timers an
        // hour to an hour and a half after a key's last row), which no key reaches in the job.
        tq("temporal_join_ttl_left", Reach.EVERYWHERE, "1 h",
                "SELECT L.k2, L.id, R.id, R.amount, L.ts FROM " + tl
                        + " LEFT JOIN tjv FOR SYSTEM_TIME AS OF L.ts AS R ON L.k2 = R.k2");
        // Windows of a TIMESTAMP_LTZ time attribute in America/Los_Angeles on its daylight
        // saving days: the TVF computes windows on local time; a window whose last local
        // millisecond occurs twice fires after its second occurrence, one past the gap as
        // if shifted.
        String la = "America/Los_Angeles";
        zq("dst_fall_rank", Reach.BACKENDS, la,
                ranked("k2, id, l, window_start, window_end, window_time, rn",
                        byWindow + "k2 ORDER BY l DESC, id",
                        tumble("tfall", "rt", "'20' SECOND"), "rn <= 2"));
        zq("dst_fall_dedup_hour", Reach.EVERYWHERE, la,
                ranked("k, id, rt, window_start, window_end", byWindow + "k ORDER BY rt DESC",
                        tumble("tfall", "rt", "'1' HOUR"), "rn = 1"));
        zq("dst_spring_dedup", Reach.BACKENDS, la,
                ranked("k2, id, window_start, window_end, window_time",
                        byWindow + "k2 ORDER BY rt",
                        " FROM TABLE(HOP(TABLE tspring, DESCRIPTOR(rt), INTERVAL '30' SECOND,"
                                + " INTERVAL '1' MINUTE))", "rn = 1"));
        zq("dst_spring_rank_hour", Reach.EVERYWHERE, la,
                ranked("k2, id, amount, window_start, window_end, rn",
                        byWindow + "k2 ORDER BY amount DESC NULLS LAST, id",
                        " FROM TABLE(CUMULATE(TABLE tspring, DESCRIPTOR(rt), INTERVAL '1' HOUR,"
                                + " INTERVAL '2' HOUR))", "rn <= 3"));
        // Window aggregates on the same days: a local hour that repeats (the rows' local
        // times step back from 01:59 PDT to 01:00 PST) keeps its windows open until its
        // second occurrence has passed; a window ending in the spring gap fires when the gap
        // ends (10:00Z), so rows behind it are late; sessions are cut on local time.
        String byZoned = " GROUP BY window_start, window_end, window_time, ";
        // Minute windows in the repeated hour: Flink's next buffer trigger is the end of the
        // hour's second occurrence, so their rows wait in the buffer and their windows, fired
        // by then, never emit; unless the buffer fills first, which depends on the managed
        // memory each operator of this many-query job gets (on RocksDB it does fill). On the
        // heap it does not, and native does what Flink does then.
        zq("dst_fall_tumble_minute", Reach.FIRST_ONLY, la,
                "SELECT k2, window_start, window_end, window_time, COUNT(*), SUM(l), MAX(s)"
                        + tumble("tfall", "rt", "'1' MINUTE") + byZoned + "k2");
        // Slices of half an hour and more: no window ends before the next trigger.
        zq("dst_fall_hop", Reach.BACKENDS, la,
                "SELECT k, window_start, window_end, COUNT(*), SUM(i), MIN(d)"
                        + " FROM TABLE(HOP(TABLE tfall, DESCRIPTOR(rt), INTERVAL '1' HOUR,"
                        + " INTERVAL '2' HOUR))" + BY + ", k");
        zq("dst_fall_cumulate", Reach.BACKENDS, la,
                "SELECT k2, window_start, window_end, window_time, COUNT(*), SUM(i), MAX(amount)"
                        + " FROM TABLE(CUMULATE(TABLE tfall, DESCRIPTOR(rt), INTERVAL '30' MINUTE,"
                        + " INTERVAL '2' HOUR))" + byZoned + "k2");
        zq("dst_spring_hop_hours", Reach.BACKENDS, la,
                "SELECT k2, window_start, window_end, window_time, COUNT(*), SUM(l), MIN(s)"
                        + " FROM TABLE(HOP(TABLE tspring, DESCRIPTOR(rt), INTERVAL '1' HOUR,"
                        + " INTERVAL '2' HOUR))" + byZoned + "k2");
        zq("dst_spring_tumble_hour", Reach.EVERYWHERE, la,
                "SELECT g, window_start, window_end, window_time, COUNT(*), AVG(l)"
                        + tumble("tspring", "rt", "'1' HOUR") + byZoned + "g");
        zq("dst_fall_session", Reach.BACKENDS, la,
                "SELECT k2, window_start, window_end, window_time, COUNT(*), SUM(l), MIN(s)"
                        + session("tfall PARTITION BY k2", "rt", "'2' SECOND") + byZoned + "k2");
        zq("dst_fall_legacy_session", Reach.BACKENDS, la,
                "SELECT k2, SESSION_START(rt, INTERVAL '2' SECOND), SESSION_END(rt, INTERVAL"
                        + " '2' SECOND), SESSION_ROWTIME(rt, INTERVAL '2' SECOND), COUNT(*),"
                        + " SUM(i) FROM tfall GROUP BY k2, SESSION(rt, INTERVAL '2' SECOND)");
        ztwo("dst_fall_two_phase", la,
                "SELECT k, window_start, window_end, window_time, COUNT(*), SUM(i), MAX(l)"
                        + tumble("tfall", "rt", "'30' MINUTE") + byZoned + "k");
        // Zones without daylight saving: Flink aligns its buffer triggers on UTC there, so
        // with Kolkata's half-hour offset 7-second windows end 4 s before each trigger.
        zq("shanghai_tumble_day", Reach.EVERYWHERE, "Asia/Shanghai",
                "SELECT k2, window_start, window_end, window_time, COUNT(*), SUM(i)"
                        + tumble("tl", "rt", "'1' DAY") + byZoned + "k2");
        zq("kolkata_tumble_odd", Reach.BACKENDS, "Asia/Kolkata",
                "SELECT k2, window_start, window_end, window_time, COUNT(*), SUM(l), MAX(s)"
                        + tumble("tl", "rt", "'7' SECOND") + byZoned + "k2");
        zq("kolkata_session", Reach.BACKENDS, "Asia/Kolkata",
                "SELECT k, window_start, window_end, window_time, COUNT(*), SUM(i)"
                        + session("tl PARTITION BY k", "rt", "'1' SECOND") + byZoned + "k");
        // The default (AUTO) plan: a local window aggregate before the exchange, a global one
        // after it, both native, exchanging Flink's partial rows.
        two("two_phase_tumble",
                "SELECT k, window_start, window_end, COUNT(*), SUM(i), MAX(l), MIN(s)" + t1 + BY
                        + ", k");
        two("two_phase_hop",
                "SELECT k2, window_start, window_end, COUNT(i), SUM(l), MIN(d), MAX(d), AVG(l)"
                        + hop("'1' SECOND", "'3' SECOND") + BY + ", k2");
        two("two_phase_cumulate_offset",
                "SELECT k2, window_start, window_end, SUM(amount), MAX(s), COUNT(*)"
                        + " FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND,"
                        + " INTERVAL '4' SECOND, INTERVAL '0.5' SECOND))" + BY + ", k2");
        two("two_phase_global",
                "SELECT window_start, window_end, COUNT(*), SUM(d), AVG(amount)"
                        + hop("'2' SECOND", "'4' SECOND") + BY);
    }

    /** What the native run planned for one query. */
    static final class Outcome {
        int windowNative;
        int windowStock;
        int others;
        int othersNative;
        boolean twoPhasePlan;
        String decisions = "";
        String planError;
        /** Planning with {@code streamfusion.fallback = false} (stock-expected queries). */
        String strictError;
    }

    /** One job's outputs by query name, and (native) what was planned for each query. */
    static final class Run {
        final Map<String, List<String>> rows = new HashMap<>();
        final Map<String, Outcome> outcomes = new HashMap<>();
        String error;
    }

    public static void main(String[] args) throws Exception {
        System.out.println(StreamFusionPlanner.activation());
        List<String> only = List.of(args);
        int selected = 0;
        int cases = 0;
        int matched = 0;
        int failures = 0;
        int nativeNodes = 0;
        int stockNodes = 0;
        int expectedStock = 0;
        for (Combo combo : COMBOS) {
            List<Query> queries = new ArrayList<>();
            for (Query query : QUERIES) {
                if (query.runsIn(combo) && (only.isEmpty() || only.contains(query.name()))) {
                    queries.add(query);
                }
            }
            if (queries.isEmpty()) {
                continue;
            }
            boolean first = combo.equals(COMBOS.get(0));
            selected += first ? queries.size() : 0;
            Run stock = run(combo, false, queries, false);
            long rowsBefore = NativeOneInputOperator.ROWS_IN.get();
            Run nativeRun = run(combo, true, queries, first);
            long rowsIn = NativeOneInputOperator.ROWS_IN.get() - rowsBefore;
            int comboNative = 0;
            for (Query query : queries) {
                cases++;
                Outcome outcome = nativeRun.outcomes.getOrDefault(query.name(), new Outcome());
                List<String> problems = new ArrayList<>();
                List<String> a = new ArrayList<>(stock.rows.getOrDefault(query.name(), List.of()));
                List<String> b =
                        new ArrayList<>(nativeRun.rows.getOrDefault(query.name(), List.of()));
                Collections.sort(a);
                Collections.sort(b);
                boolean same = a.equals(b);
                if (!same) {
                    problems.add("outputs differ: " + CalcParity.firstDifference(a, b));
                }
                if (stock.error != null) {
                    problems.add("stock job failed: " + stock.error);
                }
                if (nativeRun.error != null) {
                    problems.add("native job failed: " + nativeRun.error);
                }
                Outcome stockOutcome = stock.outcomes.get(query.name());
                if (stockOutcome != null && stockOutcome.planError != null) {
                    problems.add("stock planning failed: " + stockOutcome.planError);
                }
                if (outcome.planError != null) {
                    problems.add("native planning failed: " + outcome.planError);
                }
                if (a.isEmpty() && !query.mayBeEmpty()) {
                    problems.add("the query emitted no rows: it proves nothing");
                }
                for (String row : a) {
                    if (!row.startsWith("+I")) {
                        problems.add("a window node emitted " + row);
                        break;
                    }
                }
                problems.addAll(planProblems(query, first, outcome));
                nativeNodes += outcome.windowNative;
                stockNodes += outcome.windowStock;
                expectedStock += query.expect() == Expect.STOCK ? 1 : 0;
                comboNative += outcome.windowNative;
                matched += same ? 1 : 0;
                failures += problems.isEmpty() ? 0 : 1;
                System.out.printf(
                        "case %s [%s]: %d rows, %s, window aggregate nodes native=%d stock=%d%s,"
                                + " other nodes=%d (native %d)%s%n",
                        query.name(), combo, a.size(), same ? "MATCH" : "MISMATCH",
                        outcome.windowNative, outcome.windowStock,
                        outcome.twoPhasePlan ? " (local/global)" : "", outcome.others,
                        outcome.othersNative, problems.isEmpty() ? "" : " FAILED " + problems);
                if (query.expect() == Expect.STOCK) {
                    System.out.printf("  expected stock: %s%n", outcome.decisions);
                }
            }
            // The counters are the proof that rows went through native code in this job.
            if (comboNative > 0 && rowsIn == 0) {
                failures++;
                System.out.printf("combo %s: %d native window aggregate nodes but no rows"
                        + " reached a native operator FAILED%n", combo, comboNative);
            }
        }
        System.out.printf("summary: queries=%d cases=%d matched=%d failed=%d native_nodes=%d"
                        + " stock_nodes=%d expected_stock=%d native_rows_in=%d"
                        + " native_rows_out=%d converted_rows=%d bundles=%d%n",
                selected, cases, matched, failures, nativeNodes, stockNodes, expectedStock,
                NativeOneInputOperator.ROWS_IN.get(), NativeOneInputOperator.ROWS_OUT.get(),
                NativeOneInputOperator.CONVERTED_ROWS.get(),
                NativeOneInputOperator.BUNDLES.get());
        System.exit(failures == 0 && cases > 0 ? 0 : 1);
    }

    /** What is wrong with the window aggregate nodes the native run planned for a query. */
    static List<String> planProblems(Query query, boolean strict, Outcome outcome) {
        List<String> problems = new ArrayList<>();
        if (outcome.planError != null) {
            return problems;
        }
        switch (query.expect()) {
            case NATIVE -> {
                if (outcome.windowNative != 1 || outcome.windowStock > 0 || outcome.twoPhasePlan) {
                    problems.add("expected one native WindowAggregate: " + outcome.decisions);
                }
            }
            case STOCK -> {
                if (outcome.windowNative > 0 || outcome.windowStock != 1) {
                    problems.add("expected one refused WindowAggregate: " + outcome.decisions);
                }
                // The first refused node may be a Calc below it (the strict walk stops there).
                if (strict && (outcome.strictError == null
                        || !outcome.strictError.contains("StreamFusion cannot run node"))) {
                    problems.add("with fallback off planning must fail, got "
                            + outcome.strictError);
                }
            }
            case CHAINED -> {
                if (outcome.windowNative != 2 || outcome.windowStock > 0) {
                    problems.add("expected a native window aggregate and window Top-N: "
                            + outcome.decisions);
                }
            }
            case TWO_PHASE -> {
                if (outcome.windowNative != 2 || outcome.windowStock > 0 || !outcome.twoPhasePlan) {
                    problems.add("expected a native local and global window aggregate: "
                            + outcome.decisions);
                }
            }
        }
        return problems;
    }

    /**
     * Runs {@code queries} in one job under {@code combo}; returns each query's rows (kind and
     * fields as text). With {@code enabled}, notes what the planner decided for each query;
     * with {@code strict} also plans the stock-expected one-phase queries with {@code
     * streamfusion.fallback = false}.
     */
    static Run run(Combo combo, boolean enabled, List<Query> queries, boolean strict) {
        Run run = new Run();
        StreamExecutionEnvironment env = environment(combo.parallelism(), combo.backend());
        StreamTableEnvironment tEnv = tableEnvironment(env, enabled, BUNDLE_ROWS);
        TableConfig config = tEnv.getConfig();
        // One source task: rows and punctuated watermarks in one fixed order.
        DataStream<Row> input = env
                .fromData(combo.parallelism() == 1 ? TABLE : ON_TIME, AggParity.rowInfo(TYPE))
                .setParallelism(1)
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.forGenerator(ctx -> new Punctuated())
                                .withTimestampAssigner(new RowTime(TS)))
                .setParallelism(1);
        tEnv.createTemporaryView("t", tEnv.fromDataStream(input, Schema.newBuilder()
                .fromRowDataType(TYPE)
                .columnByExpression("pt", "PROCTIME()")
                .watermark("ts", "SOURCE_WATERMARK()")
                .build()));
        tEnv.createTemporaryView("tl", tEnv.fromDataStream(input, Schema.newBuilder()
                .fromRowDataType(TYPE)
                .columnByMetadata("rt", DataTypes.TIMESTAMP_LTZ(3), "rowtime")
                .watermark("rt", "SOURCE_WATERMARK()")
                .build()));
        DataStream<Row> bridges = env.fromData(BRIDGES, AggParity.rowInfo(TYPE))
                .setParallelism(1)
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.forGenerator(ctx -> new Punctuated())
                                .withTimestampAssigner(new RowTime(TS)))
                .setParallelism(1);
        tEnv.createTemporaryView("sb", tEnv.fromDataStream(bridges, Schema.newBuilder()
                .fromRowDataType(TYPE)
                .watermark("ts", "SOURCE_WATERMARK()")
                .build()));
        // The rows moved onto America/Los_Angeles's daylight saving days of 2026 (their LTZ
        // record timestamps cross the transition: 01:59 PDT -> 01:00 PST at 09:00Z on
        // November 1st, 01:59 PST -> 03:00 PDT at 10:00Z on March 8th).
        for (String[] dst : new String[][] {
                {"tfall", "2026-11-01T08:59:00Z"}, {"tspring", "2026-03-08T09:59:00Z"}}) {
            long shift = java.time.Instant.parse(dst[1]).toEpochMilli()
                    - BASE.toInstant(ZoneOffset.UTC).toEpochMilli();
            DataStream<Row> moved = env
                    .fromData(combo.parallelism() == 1 ? TABLE : ON_TIME,
                            AggParity.rowInfo(TYPE))
                    .setParallelism(1)
                    .assignTimestampsAndWatermarks(
                            WatermarkStrategy.forGenerator(ctx -> new Punctuated())
                                    .withTimestampAssigner(new RowTime(TS, shift)))
                    .setParallelism(1);
            tEnv.createTemporaryView(dst[0], tEnv.fromDataStream(moved, Schema.newBuilder()
                    .fromRowDataType(TYPE)
                    .columnByMetadata("rt", DataTypes.TIMESTAMP_LTZ(3), "rowtime")
                    .watermark("rt", "SOURCE_WATERMARK()")
                    .build()));
        }
        // The window joins' rows: none late, at every parallelism.
        DataStream<Row> onTime = env.fromData(ON_TIME, AggParity.rowInfo(TYPE))
                .setParallelism(1)
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.forGenerator(ctx -> new Punctuated())
                                .withTimestampAssigner(new RowTime(TS)))
                .setParallelism(1);
        tEnv.createTemporaryView("tj", tEnv.fromDataStream(onTime, Schema.newBuilder()
                .fromRowDataType(TYPE)
                .watermark("ts", "SOURCE_WATERMARK()")
                .build()));
        tEnv.executeSql("CREATE TEMPORARY VIEW tjv AS SELECT k2, id, s, amount, ts FROM"
                + " (SELECT *, ROW_NUMBER() OVER (PARTITION BY k2 ORDER BY ts DESC) AS rn"
                + " FROM tj WHERE MOD(id, 3) = 0) WHERE rn = 1");
        DataStream<String> all = null;
        for (Query query : queries) {
            run.rows.put(query.name(), new ArrayList<>());
            config.set("table.optimizer.agg-phase-strategy",
                    query.expect() == Expect.TWO_PHASE ? "AUTO" : "ONE_PHASE");
            config.set("table.local-time-zone", query.zone());
            config.set("table.exec.state.ttl", query.stateTtl());
            Outcome outcome = new Outcome();
            try {
                if (query.expect() == Expect.TWO_PHASE) {
                    String plan = tEnv.explainSql(query.sql());
                    outcome.twoPhasePlan = plan.contains("LocalWindowAggregate(")
                            && plan.contains("GlobalWindowAggregate(");
                }
                StreamFusionPlanner.clearDecisions();
                // toChangelogStream translates at once: the decisions are this query's.
                DataStream<String> tagged = tEnv.toChangelogStream(tEnv.sqlQuery(query.sql()))
                        .map(new CalcParity.Tag(query.name()));
                all = all == null ? tagged : all.union(tagged);
            } catch (Exception e) {
                outcome.planError = AggParity.messages(e);
            }
            if (enabled) {
                record(outcome);
                if (strict && query.expect() == Expect.STOCK && outcome.planError == null) {
                    outcome.strictError = strictError(tEnv, query);
                }
            }
            run.outcomes.put(query.name(), outcome);
            StreamFusionPlanner.clearDecisions();
        }
        if (all == null) {
            run.error = "no query could be planned";
            return run;
        }
        String job = "window-parity-" + (enabled ? "native-" : "stock-") + combo.parallelism()
                + "-" + combo.backend();
        try (CloseableIterator<String> it = all.executeAndCollect(job)) {
            while (it.hasNext()) {
                String line = it.next();
                int tab = line.indexOf('\t');
                run.rows.get(line.substring(0, tab)).add(line.substring(tab + 1));
            }
        } catch (Exception e) {
            run.error = AggParity.messages(e);
        }
        return run;
    }

    /** Sorts the decisions just made into {@code outcome}: window aggregate nodes or others. */
    static void record(Outcome outcome) {
        List<String> decisions = new ArrayList<>();
        for (StreamFusionPlanner.Decision d : StreamFusionPlanner.decisions()) {
            decisions.add(d.toString());
            // Decision.node is "<id>:<Flink's description>", e.g. "7:WindowAggregate(...)".
            String description = d.node.substring(d.node.indexOf(':') + 1);
            if (!description.startsWith("WindowAggregate(")
                    && !description.startsWith("GroupWindowAggregate(")
                    && !description.startsWith("WindowRank(")
                    && !description.startsWith("WindowDeduplicate(")
                    && !description.startsWith("WindowJoin(")
                    && !description.startsWith("IntervalJoin(")
                    && !description.startsWith("TemporalJoin(")
                    && !description.startsWith("LocalWindowAggregate(")
                    && !description.startsWith("GlobalWindowAggregate(")) {
                outcome.others++;
                outcome.othersNative += d.isNative() ? 1 : 0;
            } else if (d.isNative()) {
                outcome.windowNative++;
            } else {
                outcome.windowStock++;
            }
        }
        outcome.decisions = String.join("; ", decisions);
    }

    /** Planning {@code query} with the fallback off must fail: the failure's messages. */
    static String strictError(StreamTableEnvironment tEnv, Query query) {
        tEnv.getConfig().set(StreamFusionPlanner.FALLBACK, false);
        try {
            tEnv.toChangelogStream(tEnv.sqlQuery(query.sql()));
            return null;
        } catch (Exception e) {
            return AggParity.messages(e);
        } finally {
            tEnv.getConfig().set(StreamFusionPlanner.FALLBACK, true);
            StreamFusionPlanner.clearDecisions();
        }
    }

    /** The row's event time: its TIMESTAMP field {@code field} as UTC epoch milliseconds. */
    static final class RowTime implements SerializableTimestampAssigner<Row> {
        private static final long serialVersionUID = 1L;
        private final int field;
        private final long shiftMillis;

        RowTime(int field) {
            this(field, 0);
        }

        /** The time moved by {@code shiftMillis} (the rows of a daylight saving day). */
        RowTime(int field, long shiftMillis) {
            this.field = field;
            this.shiftMillis = shiftMillis;
        }

        @Override
        public long extractTimestamp(Row row, long previous) {
            return ((LocalDateTime) row.getField(field)).toInstant(ZoneOffset.UTC).toEpochMilli()
                    + shiftMillis;
        }
    }

    /**
     * Punctuated watermarks: every {@value #WATERMARK_EVERY}th row, the largest timestamp seen
     * minus {@value #BOUND_MS} ms; none periodically (the periodic ones depend on timing).
     */
    static final class Punctuated implements WatermarkGenerator<Row> {
        private long max = Long.MIN_VALUE + BOUND_MS;
        private long seen;

        @Override
        public void onEvent(Row row, long timestamp, WatermarkOutput output) {
            max = Math.max(max, timestamp);
            if (++seen % WATERMARK_EVERY == 0) {
                output.emitWatermark(new Watermark(max - BOUND_MS));
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    /** The position of {@code ts} in {@link #TYPE}. */
    static final int TS = 11;

    static final DataType TYPE = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("k", DataTypes.INT()),
            DataTypes.FIELD("k2", DataTypes.INT()),
            DataTypes.FIELD("g", DataTypes.STRING()),
            DataTypes.FIELD("i", DataTypes.INT()),
            DataTypes.FIELD("l", DataTypes.BIGINT()),
            DataTypes.FIELD("d", DataTypes.DOUBLE()),
            DataTypes.FIELD("x", DataTypes.DOUBLE()),
            DataTypes.FIELD("amount", DataTypes.DECIMAL(10, 2)),
            DataTypes.FIELD("s", DataTypes.STRING()),
            DataTypes.FIELD("n", DataTypes.INT()),
            DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3).notNull()));

    /**
     * The input, in arrival order: ~330 keys in {@code k}, nine in {@code k2}, twenty strings in
     * {@code g}; NULLs in every value column on a different period ({@code n} always NULL);
     * {@code d} is dyadic (exact sums whatever the order), {@code x} is not. Row {@code r} is
     * due at {@code 40 r} ms plus 5 s after every 500 rows (gaps: empty windows, new
     * sessions), arrives up to 399 ms early relative to that (out of order, never late), or -
     * on sparse periods - 700 ms, 1.3 s, 2.6 s or 9 s behind: late for no, some or every
     * window containing it, depending on the window.
     */
    static final List<Row> TABLE = rows(true);

    /** {@link #TABLE} without the late rows: out of order by less than the bound only. */
    static final List<Row> ON_TIME = rows(false);

    /**
     * Sessions that merge in threes (view {@code sb}, gap 200 ms): each second, each of eight
     * keys in {@code k2} gets three rows 30 ms apart, then three more 400 ms later (two
     * sessions), and then, for two keys in three, a row between them that touches both. Values
     * are not dyadic, so a merge of the two sessions' {@code $WELFORD_M2} accumulators shows
     * which one kept its state.
     */
    static final List<Row> BRIDGES = bridgeRows();

    static List<Row> bridgeRows() {
        List<Row> rows = new ArrayList<>();
        long id = 0;
        for (int second = 0; second < 40; second++) {
            for (long[] offsets : new long[][] {{0, 30, 60}, {400, 430, 460}, {230}}) {
                for (int key = 0; key < 8; key++) {
                    if (offsets.length == 1 && (second + key) % 3 == 0) {
                        continue;
                    }
                    for (long offset : offsets) {
                        long at = second * 1000L + key * 7L + offset;
                        id++;
                        rows.add(Row.of(id, (int) (id % 5), key, "b", (int) (id % 11) - 5,
                                id * 3L, ((id * 13 % 29) - 14) / 4.0, id * 0.1 - 3.7,
                                BigDecimal.valueOf(id * 7 - 300, 2), "s" + id % 4, null,
                                BASE.plusNanos(at * 1_000_000L)));
                    }
                }
            }
        }
        return rows;
    }

    static List<Row> rows(boolean late) {
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < ROWS; r++) {
            long due = r * 40L + (r / 500) * 5000L;
            long behind = !late ? r * 7919L % 400
                    : r % 211 == 5 ? 9000
                    : r % 53 == 7 ? 2600
                    : r % 47 == 11 ? 1300
                    : r % 29 == 3 ? 700
                    : r * 7919L % 400;
            rows.add(Row.of(
                    (long) r,
                    r % 13 == 0 ? null : r * 37 % 331,
                    r % 17 == 3 ? null : r % 9,
                    r % 11 == 0 ? null : AggParity.KEYS[r * 7 % AggParity.KEYS.length],
                    r % 5 == 0 ? null : (r * 37 % 41) - 20,
                    r % 7 == 0 ? null : r % 97 == 5 ? Long.MAX_VALUE / 2 - r
                            : r * 1_000_003L - 1_200_000_000L,
                    r % 6 == 0 ? null : ((r * 13 % 29) - 14) / 4.0,
                    r % 8 == 0 ? null : r * 0.1 - 37.3,
                    r % 4 == 0 ? null
                            : BigDecimal.valueOf((r * 7919L % 2_000_001) - 1_000_000, 2),
                    r % 3 == 0 ? null : CalcParity.STRINGS[r % CalcParity.STRINGS.length],
                    null,
                    BASE.plusNanos(Math.max(0, due - behind) * 1_000_000L)));
        }
        return rows;
    }

    /**
     * A MiniCluster environment at {@code parallelism} on the keyed state backend {@code
     * backend} (which the native operators follow), with network buffers for the many
     * exchanges of one job that runs many queries.
     */
    static StreamExecutionEnvironment environment(int parallelism, String backend) {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", String.valueOf(parallelism));
        conf.setString("taskmanager.memory.network.min", "256mb");
        conf.setString("taskmanager.memory.network.max", "256mb");
        conf.setString("state.backend.type", backend);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        return env;
    }

    /** The SQL environment over {@code env}: StreamFusion on or off, UTC. */
    static StreamTableEnvironment tableEnvironment(
            StreamExecutionEnvironment env, boolean enabled, int bundleRows) {
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        TableConfig config = tEnv.getConfig();
        config.set(StreamFusionPlanner.ENABLED, enabled);
        config.set(StreamFusionPlanner.BUNDLE_ROWS, bundleRows);
        config.set("table.local-time-zone", "UTC");
        return tEnv;
    }
}
