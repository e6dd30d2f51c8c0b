package org.streamfusion.harness;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.streamfusion.flink.NativeOneInputExecNode;
import org.streamfusion.harness.WindowParity.Combo;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Top-N parity of StreamFusion against stock Flink 2.3.0 in one MiniCluster JVM: {@code
 * ROW_NUMBER() OVER ([PARTITION BY ...] ORDER BY ...)} filtered to a constant rank range, which
 * Flink plans as one {@code Rank} node.
 *
 * <p>Every query runs over the same input, stock ({@code streamfusion.enabled = false}) and
 * native ({@code true}, small bundles so every query spans many JNI calls), under the same
 * parallelism and keyed state backend. The input is {@link DedupParity}'s ({@link
 * DedupParity#TABLE}, view {@code t}, with a processing time {@code pt}), whose key columns are
 * functions of a key index {@code ki} and travel one channel per parity of it, so each
 * partition's rows reach the Top-N in input order at any parallelism. The append-only shapes,
 * which Flink runs with {@code AppendOnlyTopNFunction}, {@code FastTop1Function} and {@code
 * AppendOnlyFirstNFunction}: Top-1 ascending and descending; Top-3 with and without the
 * {@code rn} column; {@code rn BETWEEN 2 AND 4}; ties (runs of equal sort keys, decided by
 * arrival); NULL sort keys first and last; multi-field sorts; INT, BIGINT, DOUBLE (NaN,
 * infinities, -0.0 against 0.0; a Top-1 only), DECIMAL (compact and not), STRING (Unicode) and
 * TIMESTAMP (3 and 9, before 1970) sort keys; single, multi-column, STRING, NULL and no
 * partition keys (a global Top-N: one task, an empty key); First-N over {@code pt}; a Top-N
 * after a native Calc; upsert outputs (no {@code -U}). They must run natively, and so must a
 * Top-1 with the update-fast strategy ({@code ORDER BY COUNT(*) DESC} over a GROUP BY, which
 * Flink runs with {@code FastTop1Function} too). The shapes the native side refuses, which must
 * stay stock (and still match), and, with {@code streamfusion.fallback = false}, fail planning
 * at a node kept stock: a DOUBLE sort key beyond a Top-1 (decision 0028), the retract strategy
 * with an offset and no rank column, and a variable rank range ({@code rn <= top}, a column).
 * The update-fast strategy beyond a Top-1 (Flink's {@code UpdatableTopNFunction}: a Top-N over
 * a GROUP BY's COUNT or MAX ordered DESC or its MIN ordered ASC, with and without {@code rn},
 * an offset) runs natively. The retract strategy (Flink's {@code
 * RetractableTopNFunction}: a Top-N over a GROUP BY's output ordered against its monotony, a
 * global one, and over a changelog source; with and without {@code rn}, an offset, a Top-1)
 * runs natively.
 *
 * <p>Every query runs at parallelism 1 on {@code hashmap} and on {@code rocksdb}, the
 * append-only ones at parallelism 2 (after the source) on both too (a GROUP BY at parallelism
 * 2 feeds a partition from two channels in no fixed order). Outputs must be equal as
 * multisets of rows with their kinds and in each partition key's order (the key being the
 * leading output columns). A global Top-N at parallelism 2 runs as one task fed by two
 * channels whose interleaving is not fixed: its changelog may differ from run to run, so it is
 * compared as a changelog and, if that differs, as the final result (the changelog applied;
 * its sort keys are unique, so the result is fixed). Each case line and the summary say which
 * comparison decided. For each native run the planner's decisions must show the query's {@code
 * Rank} substituted (and {@code EXPLAIN} a {@code StreamFusionRank} with the expected
 * strategy), with the described node that the case is about, or refused naming the strategy
 * or range.
 *
 * <p>Args: optional query names to run (all when none), and {@code --stock-twice}, which runs
 * stock for both sides (the harness's own determinism; plan checks are skipped). Prints one line
 * per case and a last line {@code summary: ...}; exits 1 on any failure.
 */
public final class RankParity extends NodeParity<RankParity.Query> {
    /** What the native run must plan for a query. */
    enum Expect {
        /** Its one {@code Rank} native. */
        NATIVE,
        /** Its one {@code Rank} refused, with a reason matching {@link Query#refusal}. */
        REFUSED
    }

    static final String APPEND_FAST = "strategy=[AppendFastStrategy]";
    static final String UPDATE_FAST = "Rank(strategy=[UpdateFastStrategy";
    static final String RETRACT = "Rank(strategy=[RetractStrategy]";
    static final String ROW_NUMBER = "\"outputRowNumber\":true";
    static final String NO_ROW_NUMBER = "\"outputRowNumber\":false";

    /**
     * A query; its first {@code keyColumns} output columns are the partition key. When {@code
     * parallel} it runs at parallelism 2 too, compared in each key's order; {@code describes}
     * are texts the native decision's description must contain. Collected as an upsert
     * changelog, the Top-N generates no {@code -U}.
     */
    static final class Query extends NodeParity.Query<Query> {
        /** Runs at parallelism 2 too, compared as a changelog or a final result there. */
        boolean parallelFinal;
        boolean nativeCalc;
        Expect expect = Expect.NATIVE;
        /** What the refusal's reason must match (case-insensitive). */
        Pattern refusal;
        /** What {@code EXPLAIN} must show of the Rank (its strategy or range). */
        String explains = APPEND_FAST;
        /** Texts some row of stock's output must contain (what the case is about happened). */
        final List<String> stockHas = new ArrayList<>();

        Query(String name, int keyColumns, String sql) {
            super(name, keyColumns, sql);
        }

        /** Planned with the update-fast strategy: over a GROUP BY, at parallelism 1 only. */
        Query updateFast() {
            explains = UPDATE_FAST;
            return this;
        }

        /** Planned with the retract strategy: over an updating input, at parallelism 1 only. */
        Query retract() {
            explains = RETRACT;
            return this;
        }

        Query parallelFinal() {
            parallelFinal = true;
            return this;
        }

        /** The Top-N's input comes from a Calc that must run natively too. */
        Query nativeCalc() {
            nativeCalc = true;
            return this;
        }

        Query stockHas(String text) {
            stockHas.add(text);
            return this;
        }

        /** Refused with a reason matching {@code reason}; {@code EXPLAIN} shows {@code rank}. */
        Query refused(String reason, String rank) {
            expect = Expect.REFUSED;
            refusal = Pattern.compile(reason, Pattern.CASE_INSENSITIVE);
            explains = rank;
            describes.clear();
            return this;
        }

        @Override
        boolean refused() {
            return expect == Expect.REFUSED;
        }

        @Override
        boolean runsIn(Combo combo) {
            return combo.parallelism() == 1 || parallel || parallelFinal;
        }
    }

    static final List<Query> QUERIES = new ArrayList<>();

    static Query q(String name, int keyColumns, String sql) {
        Query query = new Query(name, keyColumns, sql);
        QUERIES.add(query);
        return query;
    }

    /**
     * The Top-N of {@code table} by {@code partition} ({@code ""}: none), filtered by {@code
     * range} on {@code rn}; described with a row number as its select list says and with
     * {@code -U}. A Top-1's row number is a constant its Calc adds, and whether it emits {@code
     * -U} the planner decides query by query.
     */
    static Query top(String name, int keyColumns, String select, String table, String partition,
            String order, String range) {
        Query query = q(name, keyColumns, "SELECT " + select + " FROM (SELECT *, ROW_NUMBER()"
                + " OVER (" + (partition.isEmpty() ? "" : "PARTITION BY " + partition + " ")
                + "ORDER BY " + order + ") AS rn FROM " + table + ") WHERE " + range);
        if (range.equals("rn = 1")) {
            return query.describes(NO_ROW_NUMBER);
        }
        boolean rn = List.of(select.split(",\\s*")).contains("rn");
        return query.describes(rn ? ROW_NUMBER : NO_ROW_NUMBER).describes(UPDATE_BEFORE);
    }

    static {
        // The strings s and g are functions of the key index: they vary within a partition of
        // k2, s or g (several key indexes), not of k (one).

        // Top-1 (FastTop1Function): descending, ascending with NULLs first and ties among them;
        // without -U here, with it in global_top1 and double_top1_desc.
        top("top1_desc", 1, "k, id, i, s", "t", "k", "i DESC, id", "rn = 1").parallel()
                .describes("\"start\":1,\"end\":1").describes(NO_UPDATE_BEFORE);
        top("top1_asc_nulls_first_rn", 1, "k2, rn, id, l", "t", "k2", "l ASC", "rn = 1")
                .parallel().stockHas("null]");
        // Top-3 (AppendOnlyTopNFunction), with and without the row number.
        top("top3_rn", 1, "k, rn, id, i, amount", "t", "k", "i DESC, id", "rn <= 3").parallel()
                .describes("\"start\":1,\"end\":3");
        top("top3_no_rn", 1, "k, id, i, s", "t", "k", "i DESC, id", "rn <= 3").parallel();
        top("top3_rn_upsert", 1, "k, rn, id, i", "t", "k", "i DESC, id", "rn <= 3").upsert()
                .parallel();
        top("top3_no_rn_upsert", 2, "k2, g, id, l", "t", "k2, g", "l DESC", "rn <= 3").upsert()
                .parallel();
        top("rows_2_to_4_rn", 1, "k2, rn, id, vt", "t", "k2", "vt DESC NULLS FIRST, id",
                "rn BETWEEN 2 AND 4").parallel().describes("\"start\":2,\"end\":4");
        top("rows_2_to_4_no_rn", 1, "g, id, amount", "t", "g", "amount, id",
                "rn BETWEEN 2 AND 4").parallel();
        // Ties: a key's sort values repeat in runs (ri, rd: two or three values per key), so
        // arrival decides which rows stay; rd has 0.0 and -0.0 in turn, which Flink's
        // comparator ties.
        top("ties_top3", 1, "rk, rn, id, ri", "t", "rk", "ri DESC", "rn <= 3").parallel();
        top("ties_top1", 1, "rk, id, rs, ri", "t", "rk", "ri", "rn = 1").parallel();
        top("ties_zero_double_top1", 1, "rk, rn, id, rd", "t", "rk", "rd", "rn = 1")
                .parallel();
        // NULL sort keys: first or last whichever the direction.
        top("nulls_first_desc", 1, "k, rn, id, i", "t", "k", "i DESC NULLS FIRST, id",
                "rn <= 2").parallel().stockHas("null]");
        top("nulls_last_asc", 1, "k2, rn, id, i", "t", "k2", "i ASC NULLS LAST, id DESC",
                "rn <= 3").parallel();
        top("nulls_first_asc_string", 1, "k2, rn, id, s", "t", "k2", "s NULLS FIRST, id",
                "rn <= 2").parallel().stockHas("null]");
        // Multi-field sorts, mixed directions and NULL orders.
        top("multi_field", 1, "g, rn, id, i, s, l", "t", "g",
                "i DESC, s ASC NULLS LAST, l DESC", "rn <= 3").parallel();
        top("multi_key_multi_field", 2, "k2, g, rn, id, amount, vt", "t", "k2, g",
                "amount DESC NULLS LAST, vt, id", "rn <= 2").parallel();
        // Sort key types.
        top("bigint", 1, "k, rn, id, l", "t", "k", "l DESC", "rn <= 3").parallel();
        // DOUBLE: Flink's comparator ties NaN with every value and -0.0 with 0.0. A Top-1
        // compares with its one winner, so it runs natively; a Top-N's order would depend on
        // the shape of Flink's tree, so it is refused (decision 0028) and must match stock.
        // (With the row number and both zeros in a partition, stock fails: its state is keyed
        // by the sort key's bytes; ties_zero_double has no row number.)
        top("double_top1_desc", 1, "k, id, d", "t", "k", "d DESC", "rn = 1").parallel()
                .stockHas("NaN]").describes(UPDATE_BEFORE);
        top("double_top1_asc_id", 1, "k2, rn, id, d", "t", "k2", "d ASC NULLS LAST, id DESC",
                "rn = 1").parallel().stockHas("-Infinity]");
        top("double", 1, "k, rn, id, d", "t", "k", "d DESC, id", "rn <= 3").parallel()
                .stockHas("NaN]").refused("double", APPEND_FAST);
        top("double_asc", 1, "k2, rn, id, d", "t", "k2", "d ASC NULLS LAST, id", "rn <= 3")
                .parallel().stockHas("-Infinity]").refused("double", APPEND_FAST);
        top("ties_zero_double", 1, "rk, id, rd", "t", "rk", "rd", "rn <= 2").parallel()
                .stockHas("-0.0]").refused("double", APPEND_FAST);
        top("decimal_compact", 1, "k2, rn, id, amount", "t", "k2", "amount DESC, id", "rn <= 3")
                .parallel();
        top("decimal_wide", 1, "g, rn, id, big", "t", "g", "big, id", "rn <= 2").parallel();
        top("string", 1, "k2, rn, id, s", "t", "k2", "s DESC, id DESC", "rn <= 3").parallel();
        top("string_partition", 1, "s, rn, id, g", "t", "s", "g, id", "rn <= 3").parallel();
        top("timestamp3", 1, "k, rn, id, vt", "t", "k", "vt DESC, id", "rn <= 3").parallel();
        top("timestamp9", 1, "k2, rn, id, nt", "t", "k2", "nt, id", "rn <= 2").parallel();
        top("rowtime", 1, "k, rn, id, ts", "t", "k", "ts DESC, id", "rn <= 3").parallel();
        // Global Top-N: no partition key, so Flink runs it as one task on an empty key.
        top("global_top5", 0, "rn, id, i, s", "t", "", "i DESC, id", "rn <= 5")
                .parallelFinal().describes("\"partition\":{\"fields\":[]}");
        top("global_top1", 0, "id, l", "t", "", "l DESC", "rn = 1").parallelFinal()
                .describes(UPDATE_BEFORE);
        top("global_rows_3_to_4", 0, "rn, id, amount", "t", "", "amount, id",
                "rn BETWEEN 3 AND 4").parallelFinal();
        // First-N (AppendOnlyFirstNFunction): ascending processing time, each key's first rows.
        top("first3_pt", 1, "k, rn, id, s", "t", "k", "pt", "rn <= 3").parallel();
        top("first2_pt_no_rn", 2, "k2, g, id, i", "t", "k2, g", "pt ASC", "rn <= 2")
                .parallel();
        // After a native Calc: the Top-N orders by a computed column of filtered rows.
        q("after_calc", 1,
                "SELECT k2, rn, x, id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k2"
                        + " ORDER BY x DESC, id) AS rn FROM (SELECT k2, id, i * 3 -"
                        + " CHAR_LENGTH(s) AS x FROM t WHERE i IS NOT NULL)) WHERE rn <= 3")
                .describes(ROW_NUMBER).nativeCalc().parallel();
        // The retract strategy (Flink's RetractableTopNFunction): an updating input the sort
        // does not follow, a GROUP BY's output ordered against its monotony or a changelog.
        q("retract_over_group_by", 1,
                "SELECT k, rn, k2, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY c, k2) AS rn FROM (SELECT k, k2, COUNT(*) AS c FROM t"
                        + " GROUP BY k, k2)) WHERE rn <= 3")
                .retract().describes(ROW_NUMBER);
        q("retract_sum_no_rn", 1,
                "SELECT k, k2, total FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY total DESC, k2) AS rn FROM (SELECT k, k2, SUM(i) AS total"
                        + " FROM t GROUP BY k, k2)) WHERE rn <= 2")
                .retract().describes(NO_ROW_NUMBER);
        q("retract_ties_top1", 1,
                "SELECT g, k2, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g"
                        + " ORDER BY c) AS rn FROM (SELECT g, k2, COUNT(*) AS c FROM t"
                        + " GROUP BY g, k2)) WHERE rn = 1")
                .retract().describes(NO_ROW_NUMBER);
        q("retract_offset_rn", 1,
                "SELECT k, rn, k2, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY c, k2 DESC) AS rn FROM (SELECT k, k2, COUNT(*) AS c FROM t"
                        + " GROUP BY k, k2)) WHERE rn BETWEEN 2 AND 4")
                .retract().describes(ROW_NUMBER);
        q("retract_global", 0,
                "SELECT rn, k, c FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY c, k)"
                        + " AS rn FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k)) WHERE rn <= 5")
                .retract().describes(ROW_NUMBER);
        q("retract_over_changelog", 1,
                "SELECT k, rn, id, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY v DESC, id) AS rn FROM c) WHERE rn <= 2")
                .retract().describes(ROW_NUMBER);
        q("retract_changelog_no_rn", 1,
                "SELECT k, id, v, name FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY v, name) AS rn FROM c) WHERE rn <= 3")
                .retract().describes(NO_ROW_NUMBER);
        // Refused: an offset without the rank column (Flink's walk rewrites the kinds of the
        // rows its state holds) and a DOUBLE sort key.
        q("retract_offset_no_rn", 1,
                "SELECT k, k2, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY c, k2) AS rn FROM (SELECT k, k2, COUNT(*) AS c FROM t"
                        + " GROUP BY k, k2)) WHERE rn BETWEEN 2 AND 3")
                .refused("offset and no rank column", RETRACT);
        q("retract_double", 1,
                "SELECT k, rn, id, d FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY d DESC, id) AS rn FROM c) WHERE rn <= 2")
                .refused("double", RETRACT);
        // The update-fast strategy (a count or MAX only grows: ordered DESC, it is monotone;
        // a MIN only falls: ordered ASC): a Top-1 is Flink's FastTop1Function over an upsert
        // input, a Top-N its UpdatableTopNFunction; both run natively. A MIN that leaves its
        // first NULL moves its row down, Flink's lenient path.
        q("update_fast_top1", 1,
                "SELECT k, k2, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY c DESC) AS rn FROM (SELECT k, k2, COUNT(*) AS c FROM t"
                        + " GROUP BY k, k2)) WHERE rn = 1")
                .updateFast().describes(NO_ROW_NUMBER);
        q("update_fast_count_desc", 1,
                "SELECT k, rn, k2, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY c DESC) AS rn FROM (SELECT k, k2, COUNT(*) AS c FROM t"
                        + " GROUP BY k, k2)) WHERE rn <= 3")
                .updateFast().describes(ROW_NUMBER);
        q("update_fast_no_rn", 1,
                "SELECT k, k2, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY c DESC) AS rn FROM (SELECT k, k2, COUNT(*) AS c FROM t"
                        + " GROUP BY k, k2)) WHERE rn <= 3")
                .updateFast().describes(NO_ROW_NUMBER);
        q("update_fast_offset", 1,
                "SELECT k, rn, k2, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY c DESC) AS rn FROM (SELECT k, k2, COUNT(*) AS c FROM t"
                        + " GROUP BY k, k2)) WHERE rn BETWEEN 2 AND 4")
                .updateFast().describes(ROW_NUMBER);
        q("update_fast_max", 1,
                "SELECT k, rn, k2, m FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY m DESC) AS rn FROM (SELECT k, k2, MAX(i) AS m FROM t"
                        + " GROUP BY k, k2)) WHERE rn <= 2")
                .updateFast().describes(ROW_NUMBER);
        q("update_fast_min_asc", 1,
                "SELECT k2, rn, k, m FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k2"
                        + " ORDER BY m) AS rn FROM (SELECT k, k2, MIN(l) AS m FROM t"
                        + " GROUP BY k, k2)) WHERE rn <= 3")
                .updateFast().describes(ROW_NUMBER);
        q("update_fast_double", 1,
                "SELECT k, rn, k2, m FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY m DESC) AS rn FROM (SELECT k, k2, MAX(d) AS m FROM t"
                        + " GROUP BY k, k2)) WHERE rn <= 3")
                .refused("double", UPDATE_FAST);
        // Refused: a variable rank range (each row's rank end is one of its columns).
        q("variable_range", 1,
                "SELECT k, id, i, top FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY i DESC, id) AS rn FROM (SELECT k, id, i, ki % 3 + 1 AS top"
                        + " FROM t)) WHERE rn <= top")
                .refused("variable", "rankRange=[rankEnd=$");
    }

    RankParity() {
        super("Rank", "rank", "rank-parity-", "native_calcs", QUERIES);
    }

    public static void main(String[] args) throws Exception {
        System.exit(new RankParity().parity(args));
    }

    /**
     * A global Top-N at parallelism 2 is compared as a changelog and, if that differs, as the
     * final result.
     */
    @Override
    boolean comparesFinal(Query query, Combo combo) {
        return query.parallelFinal && combo.parallelism() > 1;
    }

    @Override
    void checkStock(Query query, Combo combo, List<String[]> a, List<String> problems) {
        for (String text : query.stockHas) {
            if (a.stream().noneMatch(line -> line[1].contains(text))) {
                problems.add("no stock row contains " + text + ": the case did not happen");
            }
        }
    }

    /** The cases after a Calc that ran natively, counted as {@code native_calcs}. */
    @Override
    int counted(Query query, Outcome outcome) {
        return query.nativeCalc && outcome.calcNative > 0 ? 1 : 0;
    }

    @Override
    String othersNote(Outcome outcome) {
        return " (native Calc " + outcome.calcNative + ")";
    }

    /** The changelog applied: the rows left, each with its count. */
    @Override
    List<String> finalRows(List<String[]> lines) {
        List<String> changelog = new ArrayList<>();
        for (String[] line : lines) {
            changelog.add(line[1]);
        }
        return AggParity.flatten(AggParity.materialize(changelog));
    }

    /** What is wrong with the rank nodes the native run planned for a query. */
    @Override
    void checkPlan(Query query, boolean strict, Outcome outcome, List<String> problems) {
        if (!outcome.explain.contains(query.explains)) {
            problems.add("EXPLAIN shows no " + query.explains);
        }
        switch (query.expect) {
            case NATIVE -> {
                nativeProblems(query, outcome, problems);
                if (query.nativeCalc
                        && (outcome.calcNative == 0
                                || !outcome.explain.contains(
                                        NativeOneInputExecNode.PREFIX + "Calc("))) {
                    problems.add("expected a native Calc too: " + outcome.decisions);
                }
            }
            case REFUSED -> refusedProblems(query.refusal.matcher(outcome.reasons).find(),
                    query.refusal, strict, outcome, problems);
        }
    }

    /**
     * {@link DedupParity}'s input as view {@code t} ({@link DedupParity#table}: event time
     * plays no part in a Top-N, the rowtime only travels as a sort key), and {@link
     * AggParity#CHANGELOG} as view {@code c}.
     */
    @Override
    void views(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Combo combo,
            List<Query> queries) {
        DedupParity.table(env, tEnv, combo);
        // A retracting input in one channel, so each key's changes keep their order.
        tEnv.createTemporaryView("c", tEnv.fromChangelogStream(env
                .fromData(AggParity.CHANGELOG, AggParity.rowInfo(AggParity.CHANGELOG_TYPE))
                .setParallelism(1)));
    }
}
