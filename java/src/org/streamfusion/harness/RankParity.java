package org.streamfusion.harness;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.streamfusion.flink.NativeOneInputExecNode;
import org.streamfusion.flink.NativeOneInputOperator;
import org.streamfusion.flink.StreamFusionPlanner;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * (a Top-N over a GROUP BY's output ordered against its monotony, and over a changelog
 * source), the update-fast strategy of a Top-3, and a variable rank range ({@code rn <= top},
 * a column).
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
public final class RankParity {
    private static final int BUNDLE_ROWS = 64;

    /** What the native run must plan for a query. */
    enum Expect {
        /** Its one {@code Rank} native. */
        NATIVE,
        /** Its one {@code Rank} refused, with a reason matching {@link Query#refusal}. */
        REFUSED
    }

    static final String APPEND_FAST = "strategy=[AppendFastStrategy]";
    static final String UPDATE_FAST = "Rank(strategy=[UpdateFastStrategy";
    static final String NO_UPDATE_BEFORE = "\"generateUpdateBefore\":false";
    static final String UPDATE_BEFORE = "\"generateUpdateBefore\":true";
    static final String ROW_NUMBER = "\"outputRowNumber\":true";
    static final String NO_ROW_NUMBER = "\"outputRowNumber\":false";

    /** A query; its first {@code keyColumns} output columns are the partition key. */
    static final class Query {
        final String name;
        final String sql;
        final int keyColumns;
        /** Runs at parallelism 2 too, compared in each key's order. */
        boolean parallel;
        /** Runs at parallelism 2 too, compared as a changelog or a final result there. */
        boolean parallelFinal;
        boolean upsert;
        boolean nativeCalc;
        Expect expect = Expect.NATIVE;
        /** What the refusal's reason must match (case-insensitive). */
        Pattern refusal;
        /** What {@code EXPLAIN} must show of the Rank (its strategy or range). */
        String explains = APPEND_FAST;
        /** Texts the native decision's description must contain. */
        final List<String> describes = new ArrayList<>();
        /** Texts some row of stock's output must contain (what the case is about happened). */
        final List<String> stockHas = new ArrayList<>();

        Query(String name, int keyColumns, String sql) {
            this.name = name;
            this.keyColumns = keyColumns;
            this.sql = sql;
        }

        Query parallel() {
            parallel = true;
            return this;
        }

        /** Planned with the update-fast strategy: over a GROUP BY, at parallelism 1 only. */
        Query updateFast() {
            explains = UPDATE_FAST;
            return this;
        }

        Query parallelFinal() {
            parallelFinal = true;
            return this;
        }

        /** Collected as an upsert changelog: the Top-N generates no {@code -U}. */
        Query upsert() {
            upsert = true;
            describes.remove(UPDATE_BEFORE);
            return describes(NO_UPDATE_BEFORE);
        }

        /** The Top-N's input comes from a Calc that must run natively too. */
        Query nativeCalc() {
            nativeCalc = true;
            return this;
        }

        Query describes(String text) {
            describes.add(text);
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

        boolean runsIn(DedupParity.Combo combo) {
            return combo.parallelism() == 1 || parallel || parallelFinal;
        }

        boolean comparesFinal(DedupParity.Combo combo) {
            return parallelFinal && combo.parallelism() > 1;
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
        // Refused: the retract strategy (an updating input the sort does not follow).
        q("retract_over_group_by", 1,
                "SELECT k, rn, k2, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY c, k2) AS rn FROM (SELECT k, k2, COUNT(*) AS c FROM t"
                        + " GROUP BY k, k2)) WHERE rn <= 3")
                .refused("retract", "Rank(strategy=[RetractStrategy]");
        q("retract_over_changelog", 1,
                "SELECT k, rn, id, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY v DESC, id) AS rn FROM c) WHERE rn <= 2")
                .refused("retract", "Rank(strategy=[RetractStrategy]");
        // The update-fast strategy (a count only grows: ordered DESC, it is monotone): a Top-1
        // runs natively (Flink's FastTop1Function over an upsert input), a Top-3 is refused.
        q("update_fast_top1", 1,
                "SELECT k, k2, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY c DESC) AS rn FROM (SELECT k, k2, COUNT(*) AS c FROM t"
                        + " GROUP BY k, k2)) WHERE rn = 1")
                .updateFast().describes(NO_ROW_NUMBER);
        q("update_fast_count_desc", 1,
                "SELECT k, rn, k2, c FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY c DESC) AS rn FROM (SELECT k, k2, COUNT(*) AS c FROM t"
                        + " GROUP BY k, k2)) WHERE rn <= 3")
                .refused("update.?fast", UPDATE_FAST);
        // Refused: a variable rank range (each row's rank end is one of its columns).
        q("variable_range", 1,
                "SELECT k, id, i, top FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k"
                        + " ORDER BY i DESC, id) AS rn FROM (SELECT k, id, i, ki % 3 + 1 AS top"
                        + " FROM t)) WHERE rn <= top")
                .refused("variable", "rankRange=[rankEnd=$");
    }

    /** What the native run planned for one query. */
    static final class Outcome {
        int rankNative;
        int rankStock;
        int calcNative;
        int others;
        String decisions = "";
        /** The descriptions and options of the query's {@code Rank} decisions. */
        String described = "";
        /** The reasons its {@code Rank} decisions stayed stock. */
        String reasons = "";
        String explain = "";
        String planError;
        /** Planning with {@code streamfusion.fallback = false} (refused queries). */
        String strictError;
    }

    /** One job's outputs by query name (key and row, in arrival order) and what was planned. */
    static final class Run {
        final Map<String, List<String[]>> rows = new HashMap<>();
        final Map<String, Outcome> outcomes = new HashMap<>();
        String error;
    }

    public static void main(String[] args) throws Exception {
        System.out.println(StreamFusionPlanner.activation());
        List<String> only = new ArrayList<>(List.of(args));
        boolean stockTwice = only.remove("--stock-twice");
        int selected = 0;
        int cases = 0;
        int matched = 0;
        int failures = 0;
        int nativeNodes = 0;
        int stockNodes = 0;
        int expectedStock = 0;
        int nativeCalcs = 0;
        Map<String, Integer> comparisons = new TreeMap<>(
                Map.of("ordered", 0, "changelog", 0, "final", 0));
        for (DedupParity.Combo combo : DedupParity.COMBOS) {
            List<Query> queries = new ArrayList<>();
            for (Query query : QUERIES) {
                if (query.runsIn(combo) && (only.isEmpty() || only.contains(query.name))) {
                    queries.add(query);
                }
            }
            if (queries.isEmpty()) {
                continue;
            }
            boolean first = combo.equals(DedupParity.COMBOS.get(0));
            selected += first ? queries.size() : 0;
            Run stock = run(combo, false, queries, false);
            long rowsBefore = NativeOneInputOperator.ROWS_IN.get();
            Run other = run(combo, !stockTwice, queries, first && !stockTwice);
            long rowsIn = NativeOneInputOperator.ROWS_IN.get() - rowsBefore;
            int comboNative = 0;
            for (Query query : queries) {
                cases++;
                Outcome outcome = other.outcomes.getOrDefault(query.name, new Outcome());
                List<String[]> a = stock.rows.getOrDefault(query.name, List.of());
                List<String[]> b = other.rows.getOrDefault(query.name, List.of());
                List<String> problems = new ArrayList<>();
                String comparison = compare(query, combo, a, b, problems);
                boolean same = problems.isEmpty();
                if (stock.error != null) {
                    problems.add("stock job failed: " + stock.error);
                }
                if (other.error != null) {
                    problems.add((stockTwice ? "second stock" : "native") + " job failed: "
                            + other.error);
                }
                Outcome stockOutcome = stock.outcomes.get(query.name);
                if (stockOutcome != null && stockOutcome.planError != null) {
                    problems.add("stock planning failed: " + stockOutcome.planError);
                }
                if (outcome.planError != null) {
                    problems.add("native planning failed: " + outcome.planError);
                }
                if (a.isEmpty()) {
                    problems.add("the query emitted no rows: it proves nothing");
                }
                for (String text : query.stockHas) {
                    if (a.stream().noneMatch(line -> line[1].contains(text))) {
                        problems.add("no stock row contains " + text + ": the case did not"
                                + " happen");
                    }
                }
                if (!stockTwice) {
                    problems.addAll(planProblems(query, first, outcome));
                }
                nativeNodes += outcome.rankNative;
                stockNodes += outcome.rankStock;
                expectedStock += query.expect == Expect.REFUSED ? 1 : 0;
                nativeCalcs += query.nativeCalc && outcome.calcNative > 0 ? 1 : 0;
                comboNative += outcome.rankNative;
                matched += same ? 1 : 0;
                comparisons.merge(comparison, 1, Integer::sum);
                failures += problems.isEmpty() ? 0 : 1;
                System.out.printf(
                        "case %s [%s]: %d rows, %s by %s, rank nodes native=%d stock=%d,"
                                + " other nodes=%d (native Calc %d)%s%n",
                        query.name, combo, a.size(), same ? "MATCH" : "MISMATCH", comparison,
                        outcome.rankNative, outcome.rankStock, outcome.others,
                        outcome.calcNative, problems.isEmpty() ? "" : " FAILED " + problems);
                if (query.expect == Expect.REFUSED) {
                    System.out.printf("  expected stock: %s%n", outcome.decisions);
                }
            }
            // The counters are the proof that rows went through native code in this job.
            if (comboNative > 0 && rowsIn == 0) {
                failures++;
                System.out.printf("combo %s: %d native rank nodes but no rows reached a native"
                        + " operator FAILED%n", combo, comboNative);
            }
        }
        System.out.printf("summary: queries=%d cases=%d matched=%d failed=%d native_nodes=%d"
                        + " stock_nodes=%d expected_stock=%d native_calcs=%d compared_ordered=%d"
                        + " compared_changelog=%d compared_final=%d native_rows_in=%d"
                        + " native_rows_out=%d converted_rows=%d bundles=%d%s%n",
                selected, cases, matched, failures, nativeNodes, stockNodes, expectedStock,
                nativeCalcs, comparisons.get("ordered"), comparisons.get("changelog"),
                comparisons.get("final"), NativeOneInputOperator.ROWS_IN.get(),
                NativeOneInputOperator.ROWS_OUT.get(),
                NativeOneInputOperator.CONVERTED_ROWS.get(),
                NativeOneInputOperator.BUNDLES.get(), stockTwice ? " stock_twice=true" : "");
        System.exit(failures == 0 && cases > 0 ? 0 : 1);
    }

    /**
     * Compares stock's output {@code a} with {@code b} as {@code query} requires under {@code
     * combo}, adding what differs to {@code problems}; returns the comparison that decided:
     * {@code ordered} (the changelogs as multisets, then each key's order), or for a global
     * Top-N at parallelism 2 {@code changelog}, or {@code final} when the changelogs differ.
     */
    static String compare(Query query, DedupParity.Combo combo, List<String[]> a,
            List<String[]> b, List<String> problems) {
        List<String> x = DedupParity.sortedRows(a);
        List<String> y = DedupParity.sortedRows(b);
        String changelogs = "changelogs differ: " + CalcParity.firstDifference(x, y);
        if (!query.comparesFinal(combo)) {
            String order = x.equals(y) ? DedupParity.orderDifference(a, b) : changelogs;
            if (order != null) {
                problems.add(order);
            }
            return "ordered";
        }
        if (x.equals(y)) {
            return "changelog";
        }
        List<String> p = finalRows(a);
        List<String> r = finalRows(b);
        if (p.equals(r)) {
            System.out.printf("  %s [%s] %s%n", query.name, combo, changelogs);
        } else {
            problems.add(changelogs + "; final results differ: "
                    + CalcParity.firstDifference(p, r));
        }
        return "final";
    }

    /** The changelog applied: the rows left, each with its count. */
    static List<String> finalRows(List<String[]> lines) {
        List<String> changelog = new ArrayList<>();
        for (String[] line : lines) {
            changelog.add(line[1]);
        }
        return AggParity.flatten(AggParity.materialize(changelog));
    }

    /** Sorts the decisions just made into {@code outcome}: rank nodes or others. */
    static void record(Outcome outcome) {
        List<String> decisions = new ArrayList<>();
        StringBuilder described = new StringBuilder();
        StringBuilder reasons = new StringBuilder();
        for (StreamFusionPlanner.Decision d : StreamFusionPlanner.decisions()) {
            decisions.add(d.toString());
            // Decision.node is "<id>:<Flink's description>", e.g. "7:Rank(strategy=...)".
            String description = d.node.substring(d.node.indexOf(':') + 1);
            if (!description.startsWith("Rank(")) {
                outcome.others++;
                outcome.calcNative += d.isNative() && description.startsWith("Calc(") ? 1 : 0;
                continue;
            }
            described.append(d.description).append('\n').append(d.config).append('\n');
            if (d.isNative()) {
                outcome.rankNative++;
            } else {
                outcome.rankStock++;
                reasons.append(d.reason).append('\n');
            }
        }
        outcome.decisions = String.join("; ", decisions);
        outcome.described = described.toString();
        outcome.reasons = reasons.toString();
    }

    /** What is wrong with the rank nodes the native run planned for a query. */
    static List<String> planProblems(Query query, boolean strict, Outcome outcome) {
        List<String> problems = new ArrayList<>();
        if (outcome.planError != null) {
            return problems;
        }
        String nativeNode = NativeOneInputExecNode.PREFIX + "Rank(";
        if (!outcome.explain.contains(query.explains)) {
            problems.add("EXPLAIN shows no " + query.explains);
        }
        switch (query.expect) {
            case NATIVE -> {
                if (outcome.rankNative != 1 || outcome.rankStock > 0) {
                    problems.add("expected one native Rank: " + outcome.decisions);
                }
                if (!outcome.explain.contains(nativeNode)) {
                    problems.add("EXPLAIN shows no " + nativeNode);
                }
                for (String text : query.describes) {
                    if (!outcome.described.contains(text)) {
                        problems.add("the Rank's description lacks " + text);
                    }
                }
                if (query.nativeCalc
                        && (outcome.calcNative == 0
                                || !outcome.explain.contains(
                                        NativeOneInputExecNode.PREFIX + "Calc("))) {
                    problems.add("expected a native Calc too: " + outcome.decisions);
                }
            }
            case REFUSED -> {
                if (outcome.rankNative > 0 || outcome.rankStock != 1
                        || !query.refusal.matcher(outcome.reasons).find()) {
                    problems.add("expected one refused Rank naming " + query.refusal + ": "
                            + outcome.decisions);
                }
                if (outcome.explain.contains(nativeNode)) {
                    problems.add("EXPLAIN shows a " + nativeNode);
                }
                // The walk is bottom-up: the failing node may be a refused node below it.
                if (strict && !DedupParity.refusedStock(outcome.strictError, outcome.decisions)) {
                    problems.add("with fallback off planning must fail at a node kept stock"
                            + " with it on, got " + outcome.strictError);
                }
            }
        }
        return problems;
    }

    /** Planning {@code query} with the fallback off must fail: the failure's messages. */
    static String strictError(StreamTableEnvironment tEnv, Query query) {
        tEnv.getConfig().set(StreamFusionPlanner.FALLBACK, false);
        try {
            tEnv.toChangelogStream(tEnv.sqlQuery(query.sql));
            return null;
        } catch (Exception e) {
            return AggParity.messages(e);
        } finally {
            tEnv.getConfig().set(StreamFusionPlanner.FALLBACK, true);
            StreamFusionPlanner.clearDecisions();
        }
    }

    /**
     * Runs {@code queries} in one job under {@code combo}; returns each query's rows. With
     * {@code enabled}, notes what the planner decided for each query; with {@code strict} also
     * plans the refused queries with {@code streamfusion.fallback = false}.
     */
    static Run run(DedupParity.Combo combo, boolean enabled, List<Query> queries,
            boolean strict) {
        Run run = new Run();
        StreamExecutionEnvironment env =
                WindowParity.environment(combo.parallelism(), combo.backend());
        StreamTableEnvironment tEnv = WindowParity.tableEnvironment(env, enabled, BUNDLE_ROWS);
        // One source task: rows in one fixed order; then each key's rows in one channel (by
        // the parity of their key index). Event time plays no part in a Top-N; the rowtime
        // only travels as a sort key.
        DataStream<Row> input = env
                .fromData(combo.parallelism() == 1 ? DedupParity.TABLE : DedupParity.ON_TIME,
                        AggParity.rowInfo(DedupParity.TYPE))
                .setParallelism(1)
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.forGenerator(ctx -> new WindowParity.Punctuated())
                                .withTimestampAssigner(new WindowParity.RowTime(DedupParity.TS)))
                .setParallelism(1)
                .partitionCustom(new DedupParity.Modulo(), new DedupParity.KeyIndex());
        tEnv.createTemporaryView("t", tEnv.fromDataStream(input, Schema.newBuilder()
                .fromRowDataType(DedupParity.TYPE)
                .columnByExpression("pt", "PROCTIME()")
                .watermark("ts", "SOURCE_WATERMARK()")
                .build()));
        // A retracting input in one channel, so each key's changes keep their order.
        tEnv.createTemporaryView("c", tEnv.fromChangelogStream(env
                .fromData(AggParity.CHANGELOG, AggParity.rowInfo(AggParity.CHANGELOG_TYPE))
                .setParallelism(1)));
        DataStream<String> all = null;
        for (Query query : queries) {
            run.rows.put(query.name, new ArrayList<>());
            Outcome outcome = new Outcome();
            try {
                StreamFusionPlanner.clearDecisions();
                Table table = tEnv.sqlQuery(query.sql);
                // toChangelogStream translates at once: the decisions are this query's.
                DataStream<Row> changes = query.upsert
                        ? tEnv.toChangelogStream(table,
                                Schema.newBuilder()
                                        .fromResolvedSchema(table.getResolvedSchema())
                                        .build(),
                                ChangelogMode.upsert())
                        : tEnv.toChangelogStream(table);
                if (enabled) {
                    record(outcome);
                    StreamFusionPlanner.clearDecisions();
                    outcome.explain = tEnv.explainSql(query.sql);
                    if (strict && query.expect == Expect.REFUSED) {
                        outcome.strictError = strictError(tEnv, query);
                    }
                }
                DataStream<String> tagged =
                        changes.map(new DedupParity.KeyedTag(query.name, query.keyColumns));
                all = all == null ? tagged : all.union(tagged);
            } catch (Exception e) {
                outcome.planError = AggParity.messages(e);
            } finally {
                StreamFusionPlanner.clearDecisions();
            }
            run.outcomes.put(query.name, outcome);
        }
        if (all == null) {
            run.error = "no query could be planned";
            return run;
        }
        String job = "rank-parity-" + (enabled ? "native-" : "stock-") + combo.parallelism()
                + "-" + combo.backend();
        try (CloseableIterator<String> it = all.executeAndCollect(job)) {
            while (it.hasNext()) {
                String[] line = it.next().split(DedupParity.KeyedTag.SEPARATOR, 3);
                run.rows.get(line[0]).add(new String[] {line[1], line[2]});
            }
        } catch (Exception e) {
            run.error = AggParity.messages(e);
        }
        return run;
    }
}
