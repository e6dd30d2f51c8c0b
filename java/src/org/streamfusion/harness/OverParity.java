package org.streamfusion.harness;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import org.streamfusion.flink.NativeOneInputExecNode;
import org.streamfusion.harness.WindowParity.Combo;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * OVER aggregation and event-time sort parity of StreamFusion against stock Flink 2.3.0 in one
 * MiniCluster JVM: {@code agg OVER ([PARTITION BY ...] ORDER BY ts ROWS|RANGE BETWEEN ...
 * PRECEDING AND CURRENT ROW)}, which Flink plans as one {@code OverAggregate} node, and {@code
 * ORDER BY ts, ...} on a stream, one {@code TemporalSort} node ({@link Sort}).
 *
 * <p>Every query runs over {@link DedupParity}'s input (view {@code t}: a rowtime {@code ts}
 * with punctuated watermarks, late rows, ties; each key's rows in one channel at parallelism
 * 2), stock ({@code streamfusion.enabled = false}) and native ({@code true}, small bundles so
 * every query spans many JNI calls), under the same parallelism and keyed state backend. The
 * OVER shapes: each event-time frame (ROWS and RANGE, unbounded and n/interval preceding,
 * {@code ROWS 0 PRECEDING} too), COUNT, COUNT(*), SUM (planned as COUNT and $SUM0 with a Calc
 * after), AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE, COUNT/SUM DISTINCT over INT, BIGINT, DECIMAL,
 * STRING and TIMESTAMP arguments with NULLs; single, multi-column and STRING partition keys and
 * none (one task, at parallelism 1 only: two channels' ties would arrive in no fixed order);
 * an OVER after a native Calc; processing-time ROWS frames and an unbounded RANGE (each key's
 * rows arrive in one order, so their results do not depend on the clock). They must run
 * natively. The shapes the native side refuses must stay stock (and still match) and, with
 * {@code streamfusion.fallback = false}, fail planning: a DOUBLE SUM in a RANGE frame with a
 * preceding bound (decision 0029) and state TTL on a ROWS frame. Outputs must be equal as multisets of rows and in each
 * partition key's order (the key being the leading output columns; a sort's whole output is
 * one sequence).
 *
 * <p>Args: optional query names to run (all when none), and {@code --stock-twice}. Prints one
 * line per case and a last line {@code summary: ...}; exits 1 on any failure.
 */
public class OverParity extends NodeParity<OverParity.Query> {
    /** A query; its first {@code keyColumns} output columns are the partition key. */
    static final class Query extends NodeParity.Query<Query> {
        boolean nativeCalc;
        /** What the refusal's reason must match (case-insensitive); null when native. */
        Pattern refusal;
        /** {@code table.exec.state.ttl}, or {@code "0 ms"}. */
        String ttl = "0 ms";

        Query(String name, int keyColumns, String sql) {
            super(name, keyColumns, sql);
        }

        Query nativeCalc() {
            nativeCalc = true;
            return this;
        }

        Query refused(String reason) {
            refusal = Pattern.compile(reason, Pattern.CASE_INSENSITIVE);
            return this;
        }

        Query ttl(String ttl) {
            this.ttl = ttl;
            return this;
        }

        @Override
        boolean refused() {
            return refusal != null;
        }
    }

    static final List<Query> OVER = new ArrayList<>();

    /** {@code select} with {@code aggs} over window {@code w} ({@code frame}) of {@code t}. */
    static Query over(String name, int keyColumns, String select, String aggs, String partition,
            String frame) {
        Query query = new Query(name, keyColumns, "SELECT " + select + ", " + aggs + " FROM t"
                + " WINDOW w AS (" + (partition.isEmpty() ? "" : "PARTITION BY " + partition)
                + " ORDER BY ts " + frame + ")");
        OVER.add(query);
        return query;
    }

    static final String ROWS_2 = "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW";
    static final String ROWS_UNBOUNDED = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
    static final String RANGE_UNBOUNDED = "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
    static final String RANGE_1S =
            "RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW";

    static {
        // Each frame kind, partitioned by k (NULL for some keys).
        over("rows_2_sum_count", 1, "k, id, i", "SUM(i) OVER w, COUNT(*) OVER w", "k", ROWS_2)
                .parallel();
        over("rows_0_min_max", 1, "k, id, l", "MIN(l) OVER w, MAX(l) OVER w, COUNT(l) OVER w", "k",
                "ROWS BETWEEN 0 PRECEDING AND CURRENT ROW").parallel();
        over("rows_5_strings", 1, "k2, id, s", "MIN(s) OVER w, MAX(s) OVER w, COUNT(s) OVER w",
                "k2", "ROWS BETWEEN 5 PRECEDING AND CURRENT ROW").parallel();
        over("range_1s", 1, "k, id, l, ts", "SUM(l) OVER w, MAX(s) OVER w, MIN(amount) OVER w",
                "k", RANGE_1S).parallel();
        over("range_10s_avg", 1, "g, id, i", "AVG(i) OVER w, COUNT(*) OVER w", "g",
                "RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW").parallel();
        over("rows_unbounded", 1, "k, id, l", "SUM(l) OVER w, COUNT(s) OVER w, MIN(s) OVER w,"
                + " MAX(vt) OVER w", "k", ROWS_UNBOUNDED).parallel();
        over("range_unbounded", 1, "k2, id, amount", "COUNT(*) OVER w, SUM(amount) OVER w,"
                + " AVG(amount) OVER w", "k2", RANGE_UNBOUNDED).parallel();
        // DISTINCT, FIRST_VALUE and LAST_VALUE, with and without retraction.
        over("distinct_unbounded", 1, "k, id, g", "COUNT(DISTINCT g) OVER w", "k",
                ROWS_UNBOUNDED).parallel();
        over("distinct_rows_3", 1, "k2, id, i", "SUM(DISTINCT i) OVER w, COUNT(DISTINCT i) OVER w",
                "k2", "ROWS BETWEEN 3 PRECEDING AND CURRENT ROW").parallel();
        over("first_last_rows", 1, "k, id, s, i", "FIRST_VALUE(s) OVER w, LAST_VALUE(i) OVER w",
                "k", ROWS_2).parallel();
        over("first_last_unbounded", 1, "k2, id, s", "FIRST_VALUE(s) OVER w, LAST_VALUE(s)"
                + " OVER w", "k2", RANGE_UNBOUNDED).parallel();
        // Ties: the rk rows repeat their times' neighbours; ROWS and RANGE treat ties apart.
        over("ties_rows", 1, "rk, id, ri", "SUM(ri) OVER w, COUNT(*) OVER w", "rk",
                ROWS_UNBOUNDED).parallel();
        over("ties_range", 1, "rk, id, ri", "SUM(ri) OVER w, COUNT(*) OVER w", "rk",
                RANGE_UNBOUNDED).parallel();
        // Partition keys: several columns, a string, none (one task).
        over("multi_key", 2, "k2, g, id, l", "SUM(l) OVER w, MAX(nt) OVER w", "k2, g", ROWS_2)
                .parallel();
        over("string_key", 1, "s, id, big", "SUM(big) OVER w, MIN(big) OVER w", "s", RANGE_1S)
                .parallel();
        over("global_rows", 0, "id, i", "SUM(i) OVER w, COUNT(*) OVER w", "",
                "ROWS BETWEEN 4 PRECEDING AND CURRENT ROW");
        over("global_range", 0, "id, l", "MAX(l) OVER w, COUNT(*) OVER w", "", RANGE_1S);
        // After a native Calc.
        Query afterCalc = new Query("after_calc", 1, "SELECT k, id, x, SUM(x) OVER w FROM (SELECT"
                + " k, id, ts, i * 3 - CHAR_LENGTH(s) AS x FROM t WHERE i IS NOT NULL) WINDOW w AS"
                + " (PARTITION BY k ORDER BY ts " + ROWS_2 + ")").nativeCalc().parallel();
        OVER.add(afterCalc);
        // Processing time, ROWS frames and unbounded RANGE: each row as it arrives (each
        // key's rows arrive in one order whatever the clock).
        OVER.add(new Query("proctime_rows", 1, "SELECT k, id, i, SUM(i) OVER (PARTITION BY k"
                + " ORDER BY pt " + ROWS_2 + "), MAX(s) OVER (PARTITION BY k ORDER BY pt "
                + ROWS_2 + ") FROM t").parallel());
        OVER.add(new Query("proctime_unbounded", 1, "SELECT k2, id, l, COUNT(*) OVER w,"
                + " MIN(l) OVER w FROM t WINDOW w AS (PARTITION BY k2 ORDER BY pt "
                + RANGE_UNBOUNDED + ")").parallel());
        // LISTAGG, DISTINCT AVG and SUM (AVG is planned as COUNT and $SUM0 too), FIRST_VALUE
        // and LAST_VALUE in a RANGE frame, DOUBLE MIN and MAX (NaN, infinities, -0.0) in one,
        // DECIMAL(30, 6) sums and a TIMESTAMP MIN in two-row frames.
        over("listagg_rows", 1, "k, id, s", "LISTAGG(s) OVER w, COUNT(DISTINCT s) OVER w", "k",
                "ROWS BETWEEN 3 PRECEDING AND CURRENT ROW").parallel();
        over("distinct_avg_range", 1, "k2, id, i, l", "AVG(DISTINCT i) OVER w, SUM(DISTINCT l)"
                + " OVER w, COUNT(DISTINCT i) OVER w", "k2",
                "RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW").parallel();
        over("first_last_range", 1, "g, id, l, amount", "FIRST_VALUE(l) OVER w,"
                + " LAST_VALUE(amount) OVER w", "g", RANGE_1S).parallel();
        over("double_min_max_range", 1, "k, id, d", "MIN(d) OVER w, MAX(d) OVER w,"
                + " COUNT(d) OVER w", "k", RANGE_1S).parallel();
        over("rows_1_decimal", 1, "k2, id, big", "SUM(big) OVER w, AVG(big) OVER w, MIN(vt)"
                + " OVER w", "k2", "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW").parallel();
        over("global_range_unbounded", 0, "id, i", "SUM(i) OVER w, MIN(s) OVER w", "",
                RANGE_UNBOUNDED);
        // ARRAY_AGG and STDDEV/VAR (planned as $WELFORD_M2 and COUNT with a Calc after
        // them) over bounded frames.
        over("array_agg_rows", 1, "k, id, s, i", "ARRAY_AGG(s) OVER w,"
                + " ARRAY_AGG(i IGNORE NULLS) OVER w", "k", ROWS_2).parallel();
        over("stddev_rows", 1, "k2, id, i", "STDDEV_POP(i) OVER w, VAR_SAMP(i) OVER w", "k2",
                ROWS_2).parallel();
        // In an OVER node LISTAGG's separator is one of the node's constants.
        over("listagg_separator_unbounded", 1, "k2, id, s", "LISTAGG(s, '-') OVER w", "k2",
                ROWS_UNBOUNDED).parallel();
        over("listagg_separator_rows", 1, "k, id, s", "LISTAGG(s, ' | ') OVER w", "k",
                ROWS_2).parallel();
        // PERCENTILE's percentage is an OVER node constant too.
        over("percentile_rows", 1, "k, id, l", "PERCENTILE(l, 0.5) OVER w,"
                + " PERCENTILE(amount, 0.25) OVER w", "k",
                "ROWS BETWEEN 3 PRECEDING AND CURRENT ROW").parallel();
        over("percentile_unbounded", 1, "k2, id, d", "PERCENTILE(d, 0.9) OVER w", "k2",
                ROWS_UNBOUNDED).parallel();
        // A TIMESTAMP_LTZ(3) rowtime (view tl).
        OVER.add(new Query("ltz_rows", 1, "SELECT k, id, i, SUM(i) OVER w, MAX(s) OVER w FROM tl"
                + " WINDOW w AS (PARTITION BY k ORDER BY rt " + ROWS_2 + ")").parallel());
        OVER.add(new Query("ltz_range", 1, "SELECT k2, id, l, COUNT(*) OVER w, MAX(l) OVER w"
                + " FROM tl WINDOW w AS (PARTITION BY k2 ORDER BY rt " + RANGE_1S + ")")
                .parallel());
        // A native Calc after the OVER (besides SUM's): arithmetic and a filter on its results.
        OVER.add(new Query("calc_after", 1, "SELECT k, id, c * 10 + x AS y FROM (SELECT k, id,"
                + " COUNT(*) OVER w AS c, MAX(i) OVER w AS x FROM t WINDOW w AS (PARTITION BY k"
                + " ORDER BY ts " + ROWS_UNBOUNDED + ")) WHERE c > 1").nativeCalc().parallel());
        // Refused: a DOUBLE and a FLOAT sum in a bounded RANGE frame, TTL on ROWS.
        over("double_range_sum", 1, "k, id, d", "SUM(d) OVER w", "k", RANGE_1S)
                .refused("DOUBLE in a RANGE frame").parallel();
        OVER.add(new Query("float_range_sum", 1, "SELECT k, id, f, SUM(f) OVER w FROM (SELECT k,"
                + " id, ts, CAST(i AS FLOAT) AS f FROM t) WINDOW w AS (PARTITION BY k ORDER BY ts "
                + RANGE_1S + ")").refused("FLOAT in a RANGE frame").parallel());
        over("ttl_rows", 1, "k, id, i", "SUM(i) OVER w", "k", ROWS_2).ttl("1 h")
                .refused("table.exec.state.ttl").parallel();
    }

    OverParity() {
        this("OverAggregate", "over", "over-parity-", OVER);
    }

    OverParity(String node, String label, String jobPrefix, List<Query> queries) {
        super(node, label, jobPrefix, "native_calcs", queries);
    }

    public static void main(String[] args) throws Exception {
        System.exit(new OverParity().parity(args));
    }

    /** Compared in each key's order: no changelog to settle. */
    @Override
    boolean comparesFinal(Query query, Combo combo) {
        return false;
    }

    @Override
    List<String> finalRows(List<String[]> lines) {
        List<String> rows = new ArrayList<>();
        for (String[] line : lines) {
            rows.add(line[1]);
        }
        return rows;
    }

    @Override
    void configure(TableConfig config, Query query) {
        config.set("table.exec.state.ttl", query.ttl);
    }

    @Override
    int counted(Query query, Outcome outcome) {
        return query.nativeCalc && outcome.calcNative > 0 ? 1 : 0;
    }

    @Override
    String othersNote(Outcome outcome) {
        return " (native Calc " + outcome.calcNative + ")";
    }

    @Override
    void checkPlan(Query query, boolean strict, Outcome outcome, List<String> problems) {
        if (!query.refused()) {
            nativeProblems(query, outcome, problems);
            if (query.nativeCalc
                    && (outcome.calcNative == 0
                            || !outcome.explain.contains(NativeOneInputExecNode.PREFIX + "Calc("))) {
                problems.add("expected a native Calc too: " + outcome.decisions);
            }
        } else {
            refusedProblems(query.refusal.matcher(outcome.reasons).find(), query.refusal, strict,
                    outcome, problems);
        }
    }

    /**
     * {@link DedupParity}'s input as view {@code t}, and as view {@code tl} with the rowtime
     * {@code rt} of TIMESTAMP_LTZ(3) (the records' timestamps, {@code ts}) instead. (A
     * processing-time RANGE frame with a preceding bound, which stays stock, is not compared
     * here: which rows it emits depends on timing; its refusal is a unit test of the planner.)
     */
    @Override
    void views(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Combo combo,
            List<Query> queries) {
        DataStream<Row> input = DedupParity.table(env, tEnv, combo);
        tEnv.createTemporaryView("tl", tEnv.fromDataStream(input, Schema.newBuilder()
                .fromRowDataType(DedupParity.TYPE)
                .columnByMetadata("rt", DataTypes.TIMESTAMP_LTZ(3), "rowtime")
                .watermark("rt", "SOURCE_WATERMARK()")
                .build()));
    }

    /**
     * The event-time sort ({@code TemporalSort}): {@code ORDER BY ts [, more fields]} over
     * {@code t} at parallelism 1 (Flink runs it as one task; a second channel's rows of one
     * time would arrive in no fixed order), its whole output compared as one sequence.
     */
    public static final class Sort extends OverParity {
        static final List<Query> SORTS = new ArrayList<>();

        static Query sort(String name, String select, String order) {
            Query query = new Query(name, 0, "SELECT " + select + " FROM t ORDER BY " + order);
            SORTS.add(query);
            return query;
        }

        static {
            sort("by_time", "id, k, ts", "ts");
            sort("by_time_then_fields", "id, i, s, ts", "ts, i DESC, s");
            sort("by_time_nulls", "id, l, amount, ts", "ts, l ASC NULLS LAST, amount DESC");
            sort("by_time_timestamp9", "id, nt, ts", "ts, nt DESC, id");
            sort("double_field", "id, d, ts", "ts, d").refused("DOUBLE");
        }

        Sort() {
            super("TemporalSort", "sort", "sort-parity-", SORTS);
        }

        public static void main(String[] args) throws Exception {
            System.exit(new Sort().parity(args));
        }
    }
}
