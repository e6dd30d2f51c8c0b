package org.streamfusion.harness;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.streamfusion.flink.NativeOneInputExecNode;
import org.streamfusion.flink.NativeOneInputOperator;
import org.streamfusion.flink.StreamFusionPlanner;
import org.streamfusion.harness.WindowParity.Combo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the parity harnesses of one planned node share ({@link DedupParity}'s {@code
 * Deduplicate}, {@link RankParity}'s {@code Rank}): every selected query runs stock and native
 * in one job per {@link #COMBOS combination} of parallelism and keyed state backend; outputs are
 * compared as multisets of rows with their kinds and in each key's order (or, where the harness
 * says so, as changelogs and then as final results); the planner's decisions about the node are
 * sorted out and checked; one line per case and a summary line are printed.
 *
 * <p>A harness names its node and says what it adds: its views, each query's options, which
 * cases compare final results and how, what stock's output must show, what the plan must be.
 *
 * <p>Args: optional query names to run (all when none), and {@code --stock-twice}, which runs
 * stock for both sides (the harness's own determinism; plan checks are skipped).
 */
abstract class NodeParity<Q extends NodeParity.Query<Q>> {
    static final int BUNDLE_ROWS = 64;

    static final List<Combo> COMBOS = List.of(
            new Combo(1, "hashmap"), new Combo(1, "rocksdb"),
            new Combo(2, "hashmap"), new Combo(2, "rocksdb"));

    /** In the node of an upsert output. */
    static final String NO_UPDATE_BEFORE = "\"generateUpdateBefore\":false";

    /** In the node of a retracting one. */
    static final String UPDATE_BEFORE = "\"generateUpdateBefore\":true";

    /** A query; its first {@code keyColumns} output columns are the node's key. */
    abstract static class Query<S extends Query<S>> {
        final String name;
        final String sql;
        final int keyColumns;
        /** Runs at parallelism 2 too. */
        boolean parallel;
        boolean upsert;
        /** Texts the native decision's description (or options) must contain. */
        final List<String> describes = new ArrayList<>();

        Query(String name, int keyColumns, String sql) {
            this.name = name;
            this.keyColumns = keyColumns;
            this.sql = sql;
        }

        @SuppressWarnings("unchecked")
        private S self() {
            return (S) this;
        }

        S parallel() {
            parallel = true;
            return self();
        }

        /** Collected as an upsert changelog: the node generates no {@code -U}. */
        S upsert() {
            upsert = true;
            describes.remove(UPDATE_BEFORE);
            return describes(NO_UPDATE_BEFORE);
        }

        S describes(String text) {
            describes.add(text);
            return self();
        }

        /** Whether the native run must keep the node stock. */
        abstract boolean refused();

        boolean runsIn(Combo combo) {
            return combo.parallelism() == 1 || parallel;
        }
    }

    /** What the native run planned for one query. */
    static final class Outcome {
        int nodeNative;
        int nodeStock;
        int calcNative;
        int others;
        String decisions = "";
        /** The descriptions and options of the query's decisions about the node. */
        String described = "";
        /** The reasons those decisions kept the node stock. */
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

    /** The node as Flink's descriptions start: {@code Rank}, {@code Deduplicate}. */
    private final String node;
    /** The node in case lines: {@code rank}, {@code deduplicate}. */
    private final String label;
    /** What the job names start with. */
    private final String jobPrefix;
    /** The summary's name for {@link #counted}. */
    private final String counter;
    /** Every query, in order. */
    private final List<Q> queries;

    NodeParity(String node, String label, String jobPrefix, String counter, List<Q> queries) {
        this.node = node;
        this.label = label;
        this.jobPrefix = jobPrefix;
        this.counter = counter;
        this.queries = queries;
    }

    /** Creates the views the queries read. */
    abstract void views(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Combo combo,
            List<Q> queries);

    /** Sets {@code query}'s options before it is planned. */
    void configure(TableConfig config, Q query) {}

    /** Whether {@code query} under {@code combo} is compared as changelogs, then final results. */
    abstract boolean comparesFinal(Q query, Combo combo);

    /** The final result of a changelog, as {@link #compare} compares it. */
    abstract List<String> finalRows(List<String[]> lines);

    /** Adds to {@code problems} what stock's output {@code a} lacks of what the case is about. */
    void checkStock(Q query, Combo combo, List<String[]> a, List<String> problems) {}

    /** Adds to {@code problems} what is wrong with what the native run planned (it planned). */
    abstract void checkPlan(Q query, boolean strict, Outcome outcome, List<String> problems);

    /** How much one case adds to the summary's {@link #counter}. */
    abstract int counted(Q query, Outcome outcome);

    /** What a case line says after the node counts. */
    String nodeNote(Q query, Outcome outcome) {
        return "";
    }

    /** What a case line says after the other nodes' count. */
    String othersNote(Outcome outcome) {
        return "";
    }

    /** The checks after every combination ran: the failures. */
    int finish() {
        return 0;
    }

    /** Runs the harness; returns the exit status (1 on any failure). */
    int parity(String[] args) throws Exception {
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
        int count = 0;
        Map<String, Integer> comparisons = new TreeMap<>(
                Map.of("ordered", 0, "changelog", 0, "final", 0));
        for (Combo combo : COMBOS) {
            List<Q> queries = new ArrayList<>();
            for (Q query : this.queries) {
                if (query.runsIn(combo) && (only.isEmpty() || only.contains(query.name))) {
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
            Run other = run(combo, !stockTwice, queries, first && !stockTwice);
            long rowsIn = NativeOneInputOperator.ROWS_IN.get() - rowsBefore;
            int comboNative = 0;
            for (Q query : queries) {
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
                checkStock(query, combo, a, problems);
                if (!stockTwice && outcome.planError == null) {
                    checkPlan(query, first, outcome, problems);
                }
                nativeNodes += outcome.nodeNative;
                stockNodes += outcome.nodeStock;
                expectedStock += query.refused() ? 1 : 0;
                count += counted(query, outcome);
                comboNative += outcome.nodeNative;
                matched += same ? 1 : 0;
                comparisons.merge(comparison, 1, Integer::sum);
                failures += problems.isEmpty() ? 0 : 1;
                System.out.printf(
                        "case %s [%s]: %d rows, %s by %s, %s nodes native=%d stock=%d%s,"
                                + " other nodes=%d%s%s%n",
                        query.name, combo, a.size(), same ? "MATCH" : "MISMATCH", comparison,
                        label, outcome.nodeNative, outcome.nodeStock, nodeNote(query, outcome),
                        outcome.others, othersNote(outcome),
                        problems.isEmpty() ? "" : " FAILED " + problems);
                if (query.refused()) {
                    System.out.printf("  expected stock: %s%n", outcome.decisions);
                }
            }
            // The counters are the proof that rows went through native code in this job.
            if (comboNative > 0 && rowsIn == 0) {
                failures++;
                System.out.printf("combo %s: %d native %s nodes but no rows reached a native"
                        + " operator FAILED%n", combo, comboNative, label);
            }
        }
        failures += finish();
        System.out.printf("summary: queries=%d cases=%d matched=%d failed=%d native_nodes=%d"
                        + " stock_nodes=%d expected_stock=%d %s=%d compared_ordered=%d"
                        + " compared_changelog=%d compared_final=%d native_rows_in=%d"
                        + " native_rows_out=%d converted_rows=%d bundles=%d%s%n",
                selected, cases, matched, failures, nativeNodes, stockNodes, expectedStock,
                counter, count, comparisons.get("ordered"), comparisons.get("changelog"),
                comparisons.get("final"), NativeOneInputOperator.ROWS_IN.get(),
                NativeOneInputOperator.ROWS_OUT.get(),
                NativeOneInputOperator.CONVERTED_ROWS.get(),
                NativeOneInputOperator.BUNDLES.get(), stockTwice ? " stock_twice=true" : "");
        return failures == 0 && cases > 0 ? 0 : 1;
    }

    /**
     * Compares stock's output {@code a} with {@code b} as {@code query} requires under {@code
     * combo}, adding what differs to {@code problems}; returns the comparison that decided:
     * {@code ordered} (the changelogs as multisets, then each key's order), or where {@link
     * #comparesFinal} {@code changelog}, or {@code final} when the changelogs differ.
     */
    String compare(Q query, Combo combo, List<String[]> a, List<String[]> b,
            List<String> problems) {
        List<String> x = sortedRows(a);
        List<String> y = sortedRows(b);
        String changelogs = "changelogs differ: " + CalcParity.firstDifference(x, y);
        if (!comparesFinal(query, combo)) {
            String order = x.equals(y) ? orderDifference(a, b) : changelogs;
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

    /** The rows (kind and fields as text), sorted: the changelog as a multiset. */
    static List<String> sortedRows(List<String[]> lines) {
        List<String> rows = new ArrayList<>();
        for (String[] line : lines) {
            rows.add(line[1]);
        }
        Collections.sort(rows);
        return rows;
    }

    /** How the two outputs' per-key orders differ (their multisets being equal), or null. */
    static String orderDifference(List<String[]> a, List<String[]> b) {
        Map<String, List<String>> x = byKey(a);
        Map<String, List<String>> y = byKey(b);
        for (Map.Entry<String, List<String>> e : x.entrySet()) {
            if (!e.getValue().equals(y.get(e.getKey()))) {
                return "the order of key [" + e.getKey() + "] differs: stock " + e.getValue()
                        + ", native " + y.get(e.getKey());
            }
        }
        return null;
    }

    static Map<String, List<String>> byKey(List<String[]> lines) {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (String[] line : lines) {
            rows.computeIfAbsent(line[0], k -> new ArrayList<>()).add(line[1]);
        }
        return rows;
    }

    /** How {@code EXPLAIN} shows the node natively. */
    String nativeNode() {
        return NativeOneInputExecNode.PREFIX + node + "(";
    }

    /**
     * Adds to {@code problems} what keeps the plan from being {@code query}'s one node native,
     * shown by {@code EXPLAIN} and described with every text of {@link Query#describes}.
     */
    void nativeProblems(Q query, Outcome outcome, List<String> problems) {
        if (outcome.nodeNative != 1 || outcome.nodeStock > 0) {
            problems.add("expected one native " + node + ": " + outcome.decisions);
        }
        if (!outcome.explain.contains(nativeNode())) {
            problems.add("EXPLAIN shows no " + nativeNode());
        }
        for (String text : query.describes) {
            if (!outcome.described.contains(text)) {
                problems.add("the " + node + "'s description lacks " + text);
            }
        }
    }

    /**
     * Adds to {@code problems} what keeps the plan from being one node refused for {@code
     * refusal} ({@code named}: the decisions name it), not native in {@code EXPLAIN}, and, when
     * {@code strict}, planning with the fallback off failing at a node kept stock.
     */
    void refusedProblems(boolean named, Object refusal, boolean strict, Outcome outcome,
            List<String> problems) {
        if (outcome.nodeNative > 0 || outcome.nodeStock != 1 || !named) {
            problems.add("expected one refused " + node + " naming " + refusal + ": "
                    + outcome.decisions);
        }
        if (outcome.explain.contains(nativeNode())) {
            problems.add("EXPLAIN shows a " + nativeNode());
        }
        // The walk is bottom-up: the failing node may be a refused node (a Calc) below it.
        if (strict && !refusedStock(outcome.strictError, outcome.decisions)) {
            problems.add("with fallback off planning must fail at a node kept stock"
                    + " with it on, got " + outcome.strictError);
        }
    }

    /**
     * Whether {@code strictError} is the planner refusing a node that {@code decisions} (the
     * same query planned with the fallback on) kept stock.
     */
    static boolean refusedStock(String strictError, String decisions) {
        String marker = "StreamFusion cannot run node ";
        int at = strictError == null ? -1 : strictError.indexOf(marker);
        int end = at < 0 ? -1 : strictError.indexOf(" natively (", at);
        if (end < 0) {
            return false;
        }
        String node = strictError.substring(at + marker.length(), end);
        // Node ids differ between two plannings: the Flink description after "<id>:" is kept.
        // Decision.toString is "stock <id>:<description>: <reason>" for a stock node.
        return decisions.contains(":" + node.substring(node.indexOf(':') + 1) + ": ");
    }

    /** Sorts the decisions just made into {@code outcome}: the harness's nodes or others. */
    void record(Outcome outcome) {
        List<String> decisions = new ArrayList<>();
        StringBuilder described = new StringBuilder();
        StringBuilder reasons = new StringBuilder();
        for (StreamFusionPlanner.Decision d : StreamFusionPlanner.decisions()) {
            decisions.add(d.toString());
            // Decision.node is "<id>:<Flink's description>", e.g. "7:Rank(strategy=...)".
            String description = d.node.substring(d.node.indexOf(':') + 1);
            if (!description.startsWith(node + "(")) {
                outcome.others++;
                outcome.calcNative += d.isNative() && description.startsWith("Calc(") ? 1 : 0;
                continue;
            }
            described.append(d.description).append('\n').append(d.config).append('\n');
            if (d.isNative()) {
                outcome.nodeNative++;
            } else {
                outcome.nodeStock++;
                reasons.append(d.reason).append('\n');
            }
        }
        outcome.decisions = String.join("; ", decisions);
        outcome.described = described.toString();
        outcome.reasons = reasons.toString();
    }

    /** Planning {@code query} with the fallback off must fail: the failure's messages. */
    static String strictError(StreamTableEnvironment tEnv, Query<?> query) {
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
    Run run(Combo combo, boolean enabled, List<Q> queries, boolean strict) {
        Run run = new Run();
        StreamExecutionEnvironment env =
                WindowParity.environment(combo.parallelism(), combo.backend());
        StreamTableEnvironment tEnv = WindowParity.tableEnvironment(env, enabled, BUNDLE_ROWS);
        TableConfig config = tEnv.getConfig();
        views(env, tEnv, combo, queries);
        DataStream<String> all = null;
        for (Q query : queries) {
            run.rows.put(query.name, new ArrayList<>());
            Outcome outcome = new Outcome();
            configure(config, query);
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
                    if (strict && query.refused()) {
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
        String job = jobPrefix + (enabled ? "native-" : "stock-") + combo.parallelism() + "-"
                + combo.backend();
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
