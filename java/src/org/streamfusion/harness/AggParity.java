package org.streamfusion.harness;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import org.streamfusion.flink.StreamFusionPlanner;
import org.streamfusion.flink.NativeOneInputOperator;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * GROUP BY parity of StreamFusion against stock Flink 2.3.0 in one MiniCluster JVM.
 *
 * <p>Every query runs over the same bounded, generated inputs (a {@code fromDataStream} table of
 * a few thousand rows with hundreds of keys, NULL-heavy columns, wrapping integer sums, special
 * doubles and Unicode strings; and a {@code fromChangelogStream} table whose consistent
 * changelog has all four row kinds), stock ({@code streamfusion.enabled = false}) and native
 * ({@code true}, small bundles so every query spans many JNI calls), under the same plan mode
 * and keyed state backend. The plan modes are immediate (mini-batch off), mini-batch ONE_PHASE
 * (a mini-batch {@code GroupAggregate}) and mini-batch TWO_PHASE ({@code LocalGroupAggregate} +
 * {@code GlobalGroupAggregate}), each a different substitution; the backends are {@code
 * hashmap} and {@code rocksdb}, from which the native operators pick their state store. Every
 * query runs immediate on hashmap; the queries marked for it also run under the other five
 * combinations (TWO_PHASE only where the result does not depend on how rows are split into
 * partials: no non-dyadic double sums, no order-sensitive LISTAGG).
 *
 * <p>Immediate outputs must be equal as changelog multisets (row kinds included). With
 * mini-batch, which updates Flink emits depends on where batches end (processing time and
 * bundle sizes), so there the exact changelog is compared first and, if it differs, the final
 * materialized result (the changelog applied to a multiset of rows); each case line says which
 * comparison decided. For each native run the planner's decisions must show every aggregate
 * node substituted (local and global ones in TWO_PHASE), except where a query expects a stock
 * aggregate: the fallback query ({@code COLLECT}, refused natively), which
 * must also fail planning when {@code streamfusion.fallback = false}, and retracting MIN/MAX
 * in TWO_PHASE, whose partial Flink lays out otherwise than the native phases.
 *
 * <p>Prints one line per case and a last line {@code summary: ...}; exits 1 on any failure.
 */
public final class AggParity {
    private static final int ROWS = 2400;
    private static final int CHANGES = 1600;
    private static final int BUNDLE_ROWS = 64;
    private static final int MINI_BATCH_ROWS = 100;

    /** How the planner lays out a GROUP BY. */
    enum Mode {
        IMMEDIATE,
        ONE_PHASE,
        TWO_PHASE;

        boolean miniBatch() {
            return this != IMMEDIATE;
        }
    }

    /** One plan mode under one keyed state backend ({@code state.backend.type}). */
    record Combo(Mode mode, String backend) {
        @Override
        public String toString() {
            return mode.name().toLowerCase(Locale.ROOT) + "/" + backend;
        }
    }

    /** Immediate on hashmap first: every query runs there. */
    static final List<Combo> COMBOS = List.of(
            new Combo(Mode.IMMEDIATE, "hashmap"),
            new Combo(Mode.IMMEDIATE, "rocksdb"),
            new Combo(Mode.ONE_PHASE, "hashmap"),
            new Combo(Mode.ONE_PHASE, "rocksdb"),
            new Combo(Mode.TWO_PHASE, "hashmap"),
            new Combo(Mode.TWO_PHASE, "rocksdb"));

    /** Which combinations a query runs under beyond immediate on hashmap. */
    enum Reach {
        FIRST_ONLY,
        NO_TWO_PHASE,
        EVERYWHERE
    }

    /**
     * One query. {@code fallback} is a text the stock aggregate's reason must contain (the
     * whole query's aggregates stay stock), or null; {@code twoPhaseStock} says its local and
     * global aggregates stay stock in TWO_PHASE.
     */
    record Query(String name, String sql, Reach reach, String fallback, boolean twoPhaseStock) {
        boolean runsIn(Combo combo) {
            if (combo.equals(COMBOS.get(0))) {
                return true;
            }
            return switch (reach) {
                case FIRST_ONLY -> false;
                case NO_TWO_PHASE -> combo.mode() != Mode.TWO_PHASE;
                case EVERYWHERE -> true;
            };
        }

        /** Aggregate nodes that must stay stock under {@code mode}. */
        int expectedStock(Mode mode) {
            if (fallback != null) {
                return 1;
            }
            return twoPhaseStock && mode == Mode.TWO_PHASE ? 2 : 0;
        }
    }

    static final List<Query> QUERIES = new ArrayList<>();

    /** Immediate on hashmap only. */
    static void q(String name, String sql) {
        QUERIES.add(new Query(name, sql, Reach.FIRST_ONLY, null, false));
    }

    /** Under every combination. */
    static void all(String name, String sql) {
        QUERIES.add(new Query(name, sql, Reach.EVERYWHERE, null, false));
    }

    /** Under every combination but TWO_PHASE. */
    static void noTwoPhase(String name, String sql) {
        QUERIES.add(new Query(name, sql, Reach.NO_TWO_PHASE, null, false));
    }

    static {
        all("count_star", "SELECT k, COUNT(*) FROM t GROUP BY k");
        q("count_columns",
                "SELECT k, COUNT(i), COUNT(s), COUNT(n), COUNT(amount) FROM t GROUP BY k");
        q("sum_int_bigint", "SELECT k, SUM(i), SUM(l) FROM t GROUP BY k");
        // SUM(INT) is INT in Flink and wraps, as Java's int addition does.
        q("sum_int_overflow",
                "SELECT g, SUM(big), SUM(CAST(big AS BIGINT)), MIN(big), AVG(big) FROM t"
                        + " GROUP BY g");
        q("min_max_numeric",
                "SELECT k, MIN(i), MAX(i), MIN(l), MAX(l), MIN(d), MAX(d) FROM t GROUP BY k");
        q("min_max_string", "SELECT k2, MIN(s), MAX(s), MIN(g), MAX(g) FROM t GROUP BY k2");
        q("avg_numeric", "SELECT k, AVG(i), AVG(l), AVG(d) FROM t GROUP BY k");
        all("decimal",
                "SELECT k, SUM(amount), MIN(amount), MAX(amount), AVG(amount) FROM t GROUP BY k");
        // Sums of non-dyadic doubles depend on the order of additions: never TWO_PHASE.
        q("double_non_dyadic", "SELECT k2, SUM(x), AVG(x), MIN(x), MAX(x) FROM t GROUP BY k2");
        q("double_specials",
                "SELECT g, SUM(z), MIN(z), MAX(z), AVG(z), COUNT(z) FROM t GROUP BY g");
        all("many_aggregates",
                "SELECT k, COUNT(*), COUNT(s), SUM(i), MIN(i), MAX(s), AVG(l), SUM(amount),"
                        + " MAX(d) FROM t GROUP BY k");
        all("multi_key",
                "SELECT k2, g, b, COUNT(*), SUM(l), MIN(s), MAX(i) FROM t GROUP BY k2, g, b");
        q("null_heavy",
                "SELECT i, COUNT(*), SUM(n), MAX(n), AVG(n), COUNT(n), MIN(s), SUM(d) FROM t"
                        + " GROUP BY i");
        q("all_null_key", "SELECT n, COUNT(*), SUM(i), MIN(s), MAX(amount) FROM t GROUP BY n");
        all("unicode_keys", "SELECT s, COUNT(*), SUM(i), MAX(g), MIN(d) FROM t GROUP BY s");
        // With a COUNT of the same column Flink rewrites SUM and AVG into COUNT and $SUM0 and
        // a Calc after the aggregate; without one they stay SUM and AVG.
        all("sum_avg_together",
                "SELECT k, COUNT(i), SUM(i), AVG(i), COUNT(d), SUM(d), AVG(d) FROM t GROUP BY k");
        q("sum_avg_plain",
                "SELECT k, SUM(i), AVG(i), SUM(d), AVG(d), SUM(amount), AVG(amount) FROM t"
                        + " GROUP BY k");
        all("calc_before_agg",
                "SELECT g, COUNT(*), SUM(i * 2), MAX(UPPER(s)), MIN(CHAR_LENGTH(s)) FROM t"
                        + " WHERE i > -5 AND s IS NOT NULL GROUP BY g");
        q("projected_key",
                "SELECT MOD(id, 37) AS bucket, COUNT(*), SUM(l), MIN(x) FROM t"
                        + " GROUP BY MOD(id, 37)");
        q("having",
                "SELECT k2, COUNT(*) AS c, SUM(i) FROM t GROUP BY k2 HAVING SUM(i) > 0");
        all("no_grouping", "SELECT COUNT(*), SUM(l), MAX(s), MIN(d), AVG(amount) FROM t");
        noTwoPhase("count_distinct",
                "SELECT g, COUNT(DISTINCT k2), SUM(DISTINCT i), AVG(DISTINCT i), COUNT(*)"
                        + " FROM t GROUP BY g");
        q("listagg", "SELECT k, LISTAGG(s) FROM t GROUP BY k");
        q("first_last_value",
                "SELECT k2, FIRST_VALUE(s), LAST_VALUE(i), FIRST_VALUE(amount) FROM t"
                        + " GROUP BY k2");
        // The outer GROUP BY retracts: the inner one emits -U/+U.
        noTwoPhase("nested_agg",
                "SELECT cnt, COUNT(*), SUM(total), MIN(total), MAX(total) FROM"
                        + " (SELECT k, COUNT(*) AS cnt, SUM(i) AS total FROM t GROUP BY k)"
                        + " GROUP BY cnt");
        // The same rewrite over a retracting input: COUNT_RETRACT and $SUM0_RETRACT.
        all("retract_sum0",
                "SELECT k, COUNT(*), COUNT(v), SUM(v), AVG(v) FROM c GROUP BY k");
        all("retract_sum_avg",
                "SELECT k, COUNT(v), SUM(v), AVG(v), SUM(amount), AVG(d) FROM c GROUP BY k");
        // Retracting MIN/MAX: in TWO_PHASE Flink's partial holds a STRUCTURED accumulator
        // the native phases do not lay out, so local and global stay stock there.
        QUERIES.add(new Query("retract_min_max",
                "SELECT k, MIN(v), MAX(v), MIN(name), MAX(amount), MAX(d) FROM c GROUP BY k",
                Reach.EVERYWHERE, null, true));
        q("retract_calc_multi_key",
                "SELECT name, v > 0, COUNT(*), SUM(d), MAX(id) FROM c WHERE k IS NOT NULL"
                        + " GROUP BY name, v > 0");
        // FILTER (WHERE ..): the Calc before the aggregate computes each filter column; a
        // COUNT(*) with a filter is not the record counter of a retracting input.
        all("filter",
                "SELECT k, COUNT(*) FILTER (WHERE i > 0), SUM(l) FILTER (WHERE s IS NOT NULL),"
                        + " MAX(s) FILTER (WHERE b), MIN(amount) FILTER (WHERE d > 0), COUNT(*)"
                        + " FROM t GROUP BY k");
        noTwoPhase("filter_distinct",
                "SELECT g, COUNT(DISTINCT k2) FILTER (WHERE b), COUNT(DISTINCT k2),"
                        + " SUM(DISTINCT i) FILTER (WHERE i < 5) FROM t GROUP BY g");
        // Without grouping a filter column is the node's column 0 (filterArg 0).
        all("filter_no_grouping",
                "SELECT COUNT(*) FILTER (WHERE i > 0), SUM(l) FILTER (WHERE i < 0) FROM t");
        QUERIES.add(new Query("retract_filter",
                "SELECT k, COUNT(*) FILTER (WHERE v > 0), SUM(v) FILTER (WHERE d > 0),"
                        + " MAX(name) FILTER (WHERE v < 0) FROM c GROUP BY k",
                Reach.EVERYWHERE, null, true));
        noTwoPhase("retract_filter_distinct",
                "SELECT k, COUNT(DISTINCT name) FILTER (WHERE v > 0), AVG(DISTINCT v)"
                        + " FILTER (WHERE d IS NOT NULL) FROM c GROUP BY k");
        // STDDEV and VAR are planned as $WELFORD_M2 and COUNT with a Calc after them (its
        // POWER(x, 0.5) stays stock). Never TWO_PHASE: Flink's partial of $WELFORD_M2 is a
        // STRUCTURED accumulator the native phases do not lay out, and Flink's own two-phase
        // result depends on where bundles end (merged moments round differently; over
        // retractions a partial with n <= 0 only counts in WelfordM2AggFunction.merge).
        noTwoPhase("stddev_var",
                "SELECT k2, STDDEV_POP(d), STDDEV_SAMP(i), VAR_POP(l), VAR_SAMP(amount),"
                        + " VAR_POP(z), COUNT(*) FROM t GROUP BY k2");
        noTwoPhase("retract_stddev_var",
                "SELECT k, VAR_SAMP(v), STDDEV_POP(d), VAR_POP(amount) FROM c GROUP BY k");
        // DISTINCT on the functions beyond COUNT/SUM/AVG (the planner drops it from MIN/MAX).
        q("distinct_functions",
                "SELECT g, LISTAGG(DISTINCT s), FIRST_VALUE(DISTINCT i), LAST_VALUE(DISTINCT s),"
                        + " MIN(DISTINCT i), MAX(DISTINCT s), VAR_POP(DISTINCT i) FROM t GROUP BY g");
        noTwoPhase("retract_distinct_functions",
                "SELECT k, LISTAGG(DISTINCT name), MAX(DISTINCT v), LAST_VALUE(DISTINCT d)"
                        + " FROM c GROUP BY k");
        // ARRAY_AGG: arrival order, NULLs unless IGNORE NULLS; Flink's partial is a
        // STRUCTURED accumulator of RAW lists, so TWO_PHASE is never native (and order-
        // sensitive anyway).
        noTwoPhase("array_agg",
                "SELECT k2, ARRAY_AGG(s), ARRAY_AGG(i IGNORE NULLS), ARRAY_AGG(DISTINCT g),"
                        + " ARRAY_AGG(d), ARRAY_AGG(DISTINCT n IGNORE NULLS) FROM t GROUP BY k2");
        noTwoPhase("retract_array_agg",
                "SELECT k, ARRAY_AGG(name), ARRAY_AGG(DISTINCT v IGNORE NULLS), ARRAY_AGG(amount)"
                        + " FROM c GROUP BY k");
        // LISTAGG with a separator: the Calc before the aggregate projects the literal.
        noTwoPhase("listagg_separator",
                "SELECT k2, LISTAGG(s, '|'), LISTAGG(DISTINCT g, ''), COUNT(*) FROM t GROUP BY k2");
        noTwoPhase("retract_listagg_separator",
                "SELECT k, LISTAGG(name, ' ; '), COUNT(*) FROM c GROUP BY k");
        // JSON aggregates: the Calc before the aggregate computes JSON_STRING(v) (and stays
        // stock while JSON_STRING is not native); the aggregate takes the JSON text as is.
        noTwoPhase("json_aggs",
                "SELECT k2, JSON_ARRAYAGG(s), JSON_ARRAYAGG(i NULL ON NULL), JSON_ARRAYAGG(amount),"
                        + " JSON_OBJECTAGG(KEY CAST(id AS STRING) VALUE d),"
                        + " JSON_OBJECTAGG(KEY CAST(id AS STRING) VALUE b ABSENT ON NULL)"
                        + " FROM t GROUP BY k2");
        noTwoPhase("retract_json_arrayagg",
                "SELECT k, JSON_ARRAYAGG(name NULL ON NULL), JSON_ARRAYAGG(v) FROM c GROUP BY k");
        // PERCENTILE with one percentage (the Calc before projects the literal).
        noTwoPhase("percentile",
                "SELECT k2, PERCENTILE(d, 0.5), PERCENTILE(i, 0.9), PERCENTILE(amount, 0.25),"
                        + " PERCENTILE(z, 1.0), PERCENTILE(l, 0) FROM t GROUP BY k2");
        noTwoPhase("retract_percentile",
                "SELECT k, PERCENTILE(v, 0.5), PERCENTILE(d, 0.1), PERCENTILE(amount, 0.75),"
                        + " PERCENTILE(v, ARRAY[0.9, 0.1, 0.5]) FROM c GROUP BY k");
        noTwoPhase("multi_percentile",
                "SELECT k2, PERCENTILE(d, ARRAY[0.1, 0.5, 0.9]), PERCENTILE(i, ARRAY[1, 0])"
                        + " FROM t GROUP BY k2");
        // PERCENTILE with a frequency: each row counts that many times, a NULL or
        // non-positive frequency not at all (the value column's NULLs too).
        noTwoPhase("percentile_frequency",
                "SELECT k2, PERCENTILE(d, 0.5, i), PERCENTILE(amount, ARRAY[0.1, 0.9], n),"
                        + " PERCENTILE(i, 0.75, id) FROM t GROUP BY k2");
        noTwoPhase("retract_percentile_frequency",
                "SELECT k, PERCENTILE(d, 0.5, v), PERCENTILE(amount, 0.25, id) FROM c GROUP BY k");
        // MIN/MAX of BOOLEAN.
        noTwoPhase("min_max_boolean", "SELECT k2, MIN(b), MAX(b), COUNT(b) FROM t GROUP BY k2");
        noTwoPhase("retract_min_max_boolean",
                "SELECT k, MIN(v > 0), MAX(d IS NULL) FROM c GROUP BY k");
        // COLLECT (a MULTISET) is refused natively.
        QUERIES.add(new Query("fallback_collect",
                "SELECT k2, COLLECT(g), COUNT(*) FROM t GROUP BY k2", Reach.NO_TWO_PHASE,
                "COLLECT", false));
    }

    /** What the native run planned for one query. */
    static final class Outcome {
        int aggNative;
        int aggStock;
        int local;
        int global;
        int onePhase;
        int others;
        String decisions = "";
        /** Why the query could not be planned, or null. */
        String planError;
        /** Planning with {@code streamfusion.fallback = false} (fallback queries only). */
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
        int cases = 0;
        int matched = 0;
        int failures = 0;
        int nativeNodes = 0;
        int stockNodes = 0;
        int expectedStock = 0;
        for (Combo combo : COMBOS) {
            List<Query> queries = new ArrayList<>();
            for (Query query : QUERIES) {
                if (query.runsIn(combo)) {
                    queries.add(query);
                }
            }
            boolean first = combo.equals(COMBOS.get(0));
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
                String comparison = "changelog";
                boolean same = a.equals(b);
                if (!same) {
                    String difference = CalcParity.firstDifference(a, b);
                    if (combo.mode().miniBatch()) {
                        // Batch boundaries may legitimately change the intermediate updates.
                        comparison = "final (changelogs differ: " + difference + ")";
                        Map<String, Integer> x = materialize(a);
                        Map<String, Integer> y = materialize(b);
                        same = x.equals(y);
                        if (!same) {
                            problems.add("final results differ: "
                                    + CalcParity.firstDifference(flatten(x), flatten(y)));
                        }
                    } else {
                        problems.add("changelogs differ: " + difference);
                    }
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
                if (a.isEmpty()) {
                    problems.add("the query emitted no rows: it proves nothing");
                }
                problems.addAll(planProblems(query, combo.mode(), first, outcome));
                nativeNodes += outcome.aggNative;
                stockNodes += outcome.aggStock;
                expectedStock += query.expectedStock(combo.mode());
                comboNative += outcome.aggNative;
                matched += same ? 1 : 0;
                failures += problems.isEmpty() ? 0 : 1;
                System.out.printf(
                        "case %s [%s]: %d rows, %s by %s, aggregate nodes native=%d stock=%d"
                                + " (one-phase=%d local=%d global=%d), other nodes=%d%s%n",
                        query.name(), combo, a.size(), same ? "MATCH" : "MISMATCH", comparison,
                        outcome.aggNative, outcome.aggStock, outcome.onePhase, outcome.local,
                        outcome.global, outcome.others,
                        problems.isEmpty() ? "" : " FAILED " + problems);
                if (query.expectedStock(combo.mode()) > 0) {
                    System.out.printf("  expected stock: %s%n", outcome.decisions);
                }
            }
            // The counters are the proof that rows went through native code in this job.
            if (comboNative > 0 && rowsIn == 0) {
                failures++;
                System.out.printf("combo %s: %d native aggregate nodes but no rows reached a"
                        + " native operator FAILED%n", combo, comboNative);
            }
        }
        System.out.printf("summary: queries=%d cases=%d matched=%d failed=%d native_nodes=%d"
                        + " stock_nodes=%d expected_stock=%d native_rows_in=%d"
                        + " native_rows_out=%d converted_rows=%d bundles=%d%n",
                QUERIES.size(), cases, matched, failures, nativeNodes, stockNodes, expectedStock,
                NativeOneInputOperator.ROWS_IN.get(), NativeOneInputOperator.ROWS_OUT.get(),
                NativeOneInputOperator.CONVERTED_ROWS.get(),
                NativeOneInputOperator.BUNDLES.get());
        System.exit(failures == 0 ? 0 : 1);
    }

    /**
     * What is wrong with the aggregate nodes the native run planned for {@code query} (with
     * {@code strict}, also with its planning under {@code streamfusion.fallback = false}).
     */
    static List<String> planProblems(Query query, Mode mode, boolean strict, Outcome outcome) {
        List<String> problems = new ArrayList<>();
        if (outcome.planError != null) {
            return problems;
        }
        int expected = query.expectedStock(mode);
        if (query.fallback != null) {
            if (outcome.aggNative > 0 || outcome.aggStock != expected
                    || !outcome.decisions.contains(query.fallback)) {
                problems.add("expected " + expected + " stock aggregate node(s) naming "
                        + query.fallback + ": " + outcome.decisions);
            }
            if (strict && (outcome.strictError == null
                    || !outcome.strictError.contains(query.fallback))) {
                problems.add("with fallback off planning must fail naming " + query.fallback
                        + ", got " + outcome.strictError);
            }
        } else if (expected > 0) {
            if (outcome.aggNative > 0 || outcome.aggStock != expected) {
                problems.add("expected " + expected + " stock aggregate nodes: "
                        + outcome.decisions);
            }
        } else if (outcome.aggNative == 0 || outcome.aggStock > 0) {
            problems.add("expected every aggregate node native: " + outcome.decisions);
        }
        // The plan shape is Flink's; checked so that each mode exercises its own nodes.
        if (mode == Mode.TWO_PHASE) {
            if (outcome.local == 0 || outcome.global == 0) {
                problems.add("expected local and global aggregates: " + outcome.decisions);
            }
        } else if (outcome.local > 0 || outcome.global > 0 || outcome.onePhase == 0) {
            problems.add("expected one-phase aggregates only: " + outcome.decisions);
        }
        return problems;
    }

    /**
     * Runs {@code queries} in one job under {@code combo}; returns each query's rows (kind
     * and fields as text). With {@code enabled}, notes what the planner decided for each query;
     * with {@code strict} also plans the fallback queries with {@code streamfusion.fallback =
     * false}.
     */
    static Run run(Combo combo, boolean enabled, List<Query> queries, boolean strict) {
        Run run = new Run();
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        // Many queries share one job: enough network buffers for all their exchanges.
        conf.setString("taskmanager.memory.network.min", "256mb");
        conf.setString("taskmanager.memory.network.max", "256mb");
        // The job's keyed state backend, which the native operators follow.
        conf.setString("state.backend.type", combo.backend());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        TableConfig config = tEnv.getConfig();
        config.set(StreamFusionPlanner.ENABLED, enabled);
        config.set(StreamFusionPlanner.BUNDLE_ROWS, BUNDLE_ROWS);
        config.set("table.local-time-zone", "UTC");
        if (combo.mode().miniBatch()) {
            config.set("table.exec.mini-batch.enabled", "true");
            config.set("table.exec.mini-batch.allow-latency", "1 s");
            config.set("table.exec.mini-batch.size", String.valueOf(MINI_BATCH_ROWS));
            config.set("table.optimizer.agg-phase-strategy", combo.mode().name());
        }
        tEnv.createTemporaryView("t",
                tEnv.fromDataStream(env.fromData(TABLE, rowInfo(TABLE_TYPE))));
        tEnv.createTemporaryView("c",
                tEnv.fromChangelogStream(env.fromData(CHANGELOG, rowInfo(CHANGELOG_TYPE))));
        DataStream<String> all = null;
        for (Query query : queries) {
            run.rows.put(query.name(), new ArrayList<>());
            StreamFusionPlanner.clearDecisions();
            Outcome outcome = new Outcome();
            try {
                // toChangelogStream translates at once: the decisions are this query's.
                DataStream<String> tagged = tEnv.toChangelogStream(tEnv.sqlQuery(query.sql()))
                        .map(new CalcParity.Tag(query.name()));
                all = all == null ? tagged : all.union(tagged);
            } catch (Exception e) {
                outcome.planError = messages(e);
            }
            if (enabled) {
                record(outcome);
                if (strict && query.fallback() != null && outcome.planError == null) {
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
        String job = "agg-parity-" + (enabled ? "native-" : "stock-") + combo.mode() + "-"
                + combo.backend();
        try (CloseableIterator<String> it = all.executeAndCollect(job)) {
            while (it.hasNext()) {
                String line = it.next();
                int tab = line.indexOf('\t');
                run.rows.get(line.substring(0, tab)).add(line.substring(tab + 1));
            }
        } catch (Exception e) {
            run.error = messages(e);
        }
        return run;
    }

    /** Sorts the decisions just made into {@code outcome}: aggregate nodes by phase. */
    static void record(Outcome outcome) {
        List<String> decisions = new ArrayList<>();
        for (StreamFusionPlanner.Decision d : StreamFusionPlanner.decisions()) {
            decisions.add(d.toString());
            // Decision.node is "<id>:<Flink's description>", e.g. "7:GroupAggregate(...)".
            String description = d.node.substring(d.node.indexOf(':') + 1);
            if (!description.contains("GroupAggregate(")) {
                outcome.others++;
                continue;
            }
            if (description.startsWith("LocalGroupAggregate")) {
                outcome.local++;
            } else if (description.startsWith("GlobalGroupAggregate")) {
                outcome.global++;
            } else {
                outcome.onePhase++;
            }
            if (d.isNative()) {
                outcome.aggNative++;
            } else {
                outcome.aggStock++;
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
            return messages(e);
        } finally {
            tEnv.getConfig().set(StreamFusionPlanner.FALLBACK, true);
        }
    }

    /** The messages of {@code e} and its causes (Flink wraps planner and job failures). */
    static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null && b.length() < 2000; t = t.getCause()) {
            b.append(b.length() == 0 ? "" : " <- ").append(t.getClass().getSimpleName())
                    .append(": ").append(t.getMessage());
            if (t.getCause() == t) {
                break;
            }
        }
        return b.toString();
    }

    /**
     * A changelog applied to a multiset of rows: {@code +I}/{@code +U} add the row, {@code
     * -U}/{@code -D} remove it; rows whose count ends at zero are left out.
     */
    static Map<String, Integer> materialize(List<String> changelog) {
        Map<String, Integer> rows = new TreeMap<>();
        for (String line : changelog) {
            // Row.toString is "<kind>[fields]", the kind being +I, -U, +U or -D.
            int delta = line.charAt(0) == '+' ? 1 : -1;
            rows.merge(line.substring(2), delta, (x, y) -> x + y == 0 ? null : x + y);
        }
        return rows;
    }

    static List<String> flatten(Map<String, Integer> rows) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Integer> e : rows.entrySet()) {
            out.add(e.getValue() + "x" + e.getKey());
        }
        return out;
    }

    /**
     * Group keys that differ only in ways a byte or char comparison sees: case, composed and
     * decomposed accents, a supplementary character, prefixes, blanks, the last BMP character
     * before the surrogates.
     *
     * <p>No key lies in U+E000..U+FFFF: Flink compares two strings that still hold their Java
     * {@code String} in UTF-16 order ({@code BinaryStringData.compareTo}), and a serialized one
     * in UTF-8 byte order, and the two orders differ only between those characters and
     * supplementary ones. A local MIN/MAX chained to this source would then depend on where
     * its bundles end (decision 0032).
     */
    static final String[] KEYS = {
        "alpha", "Alpha", "ALPHA", "á", "a\u0301", "日本", "日本語", "😀", "emoji 😀", "",
        " ", "ΣΊΣΥΦΟΣ", "σίσυφος", "İstanbul", "istanbul", "ǅ", "Straße", "STRASSE", "z",
        "\uD7FB"
    };

    static final DataType TABLE_TYPE = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("k", DataTypes.INT()),
            DataTypes.FIELD("k2", DataTypes.INT()),
            DataTypes.FIELD("g", DataTypes.STRING()),
            DataTypes.FIELD("i", DataTypes.INT()),
            DataTypes.FIELD("big", DataTypes.INT()),
            DataTypes.FIELD("l", DataTypes.BIGINT()),
            DataTypes.FIELD("d", DataTypes.DOUBLE()),
            DataTypes.FIELD("x", DataTypes.DOUBLE()),
            DataTypes.FIELD("z", DataTypes.DOUBLE()),
            DataTypes.FIELD("amount", DataTypes.DECIMAL(10, 2)),
            DataTypes.FIELD("s", DataTypes.STRING()),
            DataTypes.FIELD("b", DataTypes.BOOLEAN()),
            DataTypes.FIELD("n", DataTypes.INT()));

    /**
     * The insert-only input: ~330 keys in {@code k}, a few in {@code k2} and {@code g}; NULLs
     * in every column on a different period ({@code n} always NULL); {@code big} sums wrap
     * INT; {@code l} sums wrap BIGINT; {@code d} is dyadic (its sums are exact whatever the
     * order, so TWO_PHASE partials cannot change them), {@code x} is not, {@code z} has NaN,
     * infinities, -0.0 and values near the double range.
     */
    static final List<Row> TABLE = new ArrayList<>();

    static {
        for (int r = 0; r < ROWS; r++) {
            int bigValue = 1_500_000_000 + r * 7;
            double special = r % 37 == 1 ? Double.NaN
                    : r % 37 == 2 ? Double.POSITIVE_INFINITY
                    : r % 41 == 3 ? Double.NEGATIVE_INFINITY
                    : r % 23 == 4 ? -0.0
                    : r % 19 == 5 ? 1e308
                    : (r % 31) * 0.3;
            TABLE.add(Row.of(
                    (long) r,
                    r % 13 == 0 ? null : r * 37 % 331,
                    r % 17 == 3 ? null : r % 9,
                    r % 11 == 0 ? null : KEYS[r * 7 % KEYS.length],
                    r % 5 == 0 ? null : (r * 37 % 41) - 20,
                    r % 6 == 1 ? null : r % 4 == 2 ? -bigValue : bigValue,
                    r % 7 == 0 ? null : r % 97 == 5 ? Long.MAX_VALUE - r
                            : r * 1_000_003L - 1_200_000_000L,
                    r % 6 == 0 ? null : ((r * 13 % 29) - 14) / 4.0,
                    r % 8 == 0 ? null : r * 0.1 - 37.3,
                    r % 10 == 0 ? null : special,
                    r % 4 == 0 ? null
                            : BigDecimal.valueOf((r * 7919L % 2_000_001) - 1_000_000, 2),
                    r % 3 == 0 ? null : CalcParity.STRINGS[r % CalcParity.STRINGS.length],
                    r % 3 == 1 ? null : r % 2 == 0,
                    null));
        }
    }

    static final DataType CHANGELOG_TYPE = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.INT()),
            DataTypes.FIELD("k", DataTypes.STRING()),
            DataTypes.FIELD("v", DataTypes.INT()),
            DataTypes.FIELD("amount", DataTypes.DECIMAL(10, 2)),
            DataTypes.FIELD("d", DataTypes.DOUBLE()),
            DataTypes.FIELD("name", DataTypes.STRING()));

    /**
     * The retracting input: a consistent changelog of ~300 ids (each -U and -D repeats the
     * row last added for its id), with all four row kinds; an update may move a row to
     * another group. NULL keys and values; {@code d} is dyadic.
     */
    static final List<Row> CHANGELOG = new ArrayList<>();

    static {
        Random random = new Random(20_260_615L);
        Map<Integer, Object[]> live = new LinkedHashMap<>();
        while (CHANGELOG.size() < CHANGES) {
            int id = random.nextInt(300);
            Object[] old = live.get(id);
            Object[] fresh = {
                id,
                random.nextInt(10) == 0 ? null
                        : random.nextInt(4) == 0 ? KEYS[random.nextInt(KEYS.length)]
                        : "c" + random.nextInt(30),
                random.nextInt(7) == 0 ? null : random.nextInt(200) - 100,
                random.nextInt(5) == 0 ? null
                        : BigDecimal.valueOf(random.nextInt(2_000_001) - 1_000_000, 2),
                random.nextInt(6) == 0 ? null : (random.nextInt(81) - 40) / 8.0,
                random.nextInt(4) == 0
                        ? null
                        : CalcParity.STRINGS[random.nextInt(CalcParity.STRINGS.length)]
            };
            if (old == null) {
                CHANGELOG.add(Row.ofKind(RowKind.INSERT, fresh));
                live.put(id, fresh);
            } else if (random.nextInt(3) < 2) {
                CHANGELOG.add(Row.ofKind(RowKind.UPDATE_BEFORE, old));
                CHANGELOG.add(Row.ofKind(RowKind.UPDATE_AFTER, fresh));
                live.put(id, fresh);
            } else {
                CHANGELOG.add(Row.ofKind(RowKind.DELETE, old));
                live.remove(id);
            }
        }
    }

    @SuppressWarnings("unchecked")
    static ExternalTypeInfo<Row> rowInfo(DataType type) {
        return (ExternalTypeInfo<Row>) (ExternalTypeInfo<?>) ExternalTypeInfo.of(
                type.bridgedTo(Row.class));
    }
}
