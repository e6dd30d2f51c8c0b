package org.streamfusion.harness;

import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.streamfusion.flink.NativeOneInputExecNode;
import org.streamfusion.flink.NativeStreamOperator;
import org.streamfusion.harness.WindowParity.Combo;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Regular join parity of StreamFusion against stock Flink 2.3.0 in one MiniCluster JVM: {@code
 * [INNER|LEFT|RIGHT|FULL] JOIN .. ON} and the SEMI and ANTI joins Flink makes of {@code
 * EXISTS}, {@code IN} and {@code NOT EXISTS}, which it plans as one {@code Join} node ({@code
 * StreamExecJoin}).
 *
 * <p>Every query runs over the same inputs, stock ({@code streamfusion.enabled = false}) and
 * native ({@code true}, bundles of {@value NodeParity#BUNDLE_ROWS} rows, so every query spans
 * many JNI calls on each input), under the same parallelism and keyed state backend: parallelism
 * 1 and 2 (after the sources), {@code hashmap} and {@code rocksdb}. The inputs:
 *
 * <ul>
 *   <li>{@code a} and {@code b}: insert-only, no unique key ({@code NoUniqueKey}); join keys of
 *       every type - {@code k} INT (NULL for some key indexes), {@code k2} INT (a second key
 *       column), {@code lk} BIGINT, {@code sk} STRING (Unicode), {@code dk} DECIMAL(12, 3),
 *       {@code fk} DOUBLE (NaN, -0.0 and 0.0, infinities), {@code tk} TIMESTAMP(3) (before
 *       1970 too), each NULL on its own key indexes - and values {@code v} INT and {@code s}
 *       STRING with NULLs; key indexes overlap in part, so outer joins pad;
 *   <li>{@code ca} and {@code cb}: consistent changelogs ({@code +I}, {@code -U}/{@code +U},
 *       {@code -D}, re-inserts; updates that move a row to another join key) read with {@code
 *       fromChangelogStream} and primary key {@code id}: joined on {@code k} an input has a
 *       unique key the join key does not contain ({@code HasUniqueKey}), joined on {@code id}
 *       the join key contains it ({@code JoinKeyContainsUniqueKey}); {@code ra} and {@code rb}
 *       are the same changelogs without the primary key (retractions, {@code NoUniqueKey});
 *   <li>GROUP BYs below a join: on the join key ({@code JoinKeyContainsUniqueKey}, updating) and
 *       on more than it ({@code HasUniqueKey});
 *   <li>{@code sl} and {@code sr}: a stalled input for state TTL, two phases 9 s apart with a
 *       TTL of 3 s, so the first phase's rows expire before the second's arrive.
 * </ul>
 *
 * <p>The shapes: each join type; NULL keys; {@code IS NOT DISTINCT FROM} (alone and with a
 * NULL-filtering key); two-column keys; keys of each type above; non-equi conditions on INT
 * ({@code a.v > b.v}) and on strings (a comparison, a function); SEMI by {@code EXISTS} and
 * {@code IN}, ANTI by {@code NOT EXISTS}, with and without a non-equi condition; updating inputs
 * in the three state layouts on either side; joins feeding a GROUP BY (which must run natively
 * too: native after native, and a LEFT join's retractions into it); a join with no equality
 * (no keys: one task); state TTL that never expires and that expires between the stalled
 * input's phases. They must run natively ({@code EXPLAIN} shows {@code StreamFusionJoin(}, and
 * the description the case is about: layouts, null filters, keys, TTL). Mini-batch joins
 * ({@code MiniBatchStreamingJoinOperator}, bundles of 7 rows) run natively on insert-only inputs
 * and in each layout with updates; a mini-batch SEMI join (Flink has no mini-batch SEMI
 * operator) runs natively as without.
 *
 * <p><b>What is compared.</b> A join's two inputs reach it in no fixed order (at parallelism 1
 * too: two channels), so its changelog is not reproducible: the order of an outer join's
 * padding and its retraction, or of an updating input's changes against the other input's
 * rows, decides which rows are emitted. The inputs are proper changelogs and every row of one
 * changelog entity (an insert-only row, a changelog input's {@code id}) travels one channel
 * from source to join (partitioned by its key index or id ahead of a stage at the job's
 * parallelism, forward from there), so each output row's changes reach the collecting sink in
 * the order the join made them and the final result is fixed. Outputs are compared first as
 * changelog multisets (row kinds included; equal for insert-only INNER joins and SEMI joins,
 * often not otherwise), and when those differ as final results: each changelog applied in
 * arrival order ({@code +I}/{@code +U} add a row, {@code -U}/{@code -D} remove one) to a
 * multiset that must end equal. In either case no retraction of either output may remove a row
 * that is not there at that point (not checked for a join without keys at parallelism 2: Flink
 * runs it as one task and spreads its output round-robin over the next stage, so a row's
 * changes may reach the sink out of order). Each case line and the summary say which
 * comparison decided ({@code compared_changelog} or {@code compared_final}).
 *
 * <p>Native rows must flow: NodeParity's counters per job, and after the queries one more
 * native job per combination runs only {@value #FLOW} ({@code SELECT *}: the join is the plan's
 * one native node), whose native operators must then have taken exactly the rows of {@code a}
 * and {@code b} and emitted exactly the rows collected ({@link NativeStreamOperator#ROWS_IN},
 * {@link NativeStreamOperator#ROWS_OUT}), with stock's final result.
 *
 * <p>Args: optional query names to run (all when none), and {@code --stock-twice}, which runs
 * stock for both sides (the harness's own determinism; plan checks are skipped). Prints one line
 * per case, one per flow check and a last line {@code summary: ...}; exits 1 on any failure.
 */
public final class JoinParity extends NodeParity<JoinParity.Query> {
    /** Rows of {@code a} and {@code b}. */
    static final int A_ROWS = 600;

    static final int B_ROWS = 400;
    /** Changes of {@code ca} and {@code cb}. */
    static final int CA_CHANGES = 900;

    static final int CB_CHANGES = 700;
    /** The state TTL of the queries over the stalled input, and its stall. */
    static final String TTL = "3 s";

    static final long STALL_MS = 9_000;
    /** The query the flow check runs alone. */
    static final String FLOW = "inner_select_all";

    /** Flink's mini-batch switch. */
    static final String MINI_BATCH = "table.exec.mini-batch.enabled";

    /**
     * Flink's defaults of every option a query sets (each query starts from them; removing an
     * option would leave the environment's copy in place, as {@link DedupParity} explains).
     */
    static final Map<String, String> DEFAULTS = Map.of(
            MINI_BATCH, "false",
            "table.exec.mini-batch.allow-latency", "0 ms",
            "table.exec.mini-batch.size", "-1",
            "table.exec.state.ttl", "0 ms");

    /** A query; it runs at parallelism 1 and 2 on both backends. */
    static final class Query extends NodeParity.Query<Query> {
        /** What the refusal's reason must match (case-insensitive); null when native. */
        Pattern refusal;
        /** Texts {@code EXPLAIN} of the native run must contain. */
        final List<String> explains = new ArrayList<>();
        /** Texts some row of stock's output must contain (what the case is about happened). */
        final List<String> stockHas = new ArrayList<>();
        /** Rows stock's final result must have, or null. */
        Integer stockFinal;
        /** A GROUP BY above the join must run natively too. */
        boolean groupAfter;
        /** No join key: Flink runs the join as one task, whatever the job's parallelism. */
        boolean singleTask;
        final List<String> options = new ArrayList<>();

        Query(String name, String sql) {
            super(name, 0, sql);
            parallel();
        }

        Query explains(String text) {
            explains.add(text);
            return this;
        }

        Query stockHas(String text) {
            stockHas.add(text);
            return this;
        }

        Query stockFinal(int rows) {
            stockFinal = rows;
            return this;
        }

        /**
         * A join without keys: one task, whose output is spread round-robin over the next
         * stage at parallelism 2, so there the order of a row's changes is lost on the way to
         * the sink and retractions are not checked.
         */
        Query singleTask() {
            singleTask = true;
            return describes("\"leftKeys\":[]");
        }

        Query groupAfter() {
            groupAfter = true;
            return this;
        }

        Query option(String key, String value) {
            options.add(key);
            options.add(value);
            return this;
        }

        Query miniBatch() {
            return option(MINI_BATCH, "true")
                    .option("table.exec.mini-batch.allow-latency", "1 h")
                    .option("table.exec.mini-batch.size", "7");
        }

        Query refused(String reason) {
            refusal = Pattern.compile(reason, Pattern.CASE_INSENSITIVE);
            describes.clear();
            return this;
        }

        @Override
        boolean refused() {
            return refusal != null;
        }
    }

    static final List<Query> QUERIES = new ArrayList<>();

    static Query q(String name, String sql) {
        Query query = new Query(name, sql);
        QUERIES.add(query);
        return query;
    }

    // How EXPLAIN names the join types and input layouts.
    static final String INNER = "joinType=[InnerJoin]";
    static final String LEFT = "joinType=[LeftOuterJoin]";
    static final String RIGHT = "joinType=[RightOuterJoin]";
    static final String FULL = "joinType=[FullOuterJoin]";
    static final String SEMI = "joinType=[LeftSemiJoin]";
    static final String ANTI = "joinType=[LeftAntiJoin]";
    static final String NO_UNIQUE = "NoUniqueKey";
    static final String HAS_UNIQUE = "HasUniqueKey";
    static final String JOIN_KEY_UNIQUE = "JoinKeyContainsUniqueKey";
    static final String LEFT_SPEC = "leftInputSpec=[";
    static final String RIGHT_SPEC = "rightInputSpec=[";
    /** In the node of a join with a NULL-safe key. */
    static final String NULL_SAFE = "\"filterNulls\":[false";

    /** {@code a <type> JOIN b ON <on>}, selecting {@code select}. */
    static Query ab(String name, String type, String select, String on) {
        return q(name, "SELECT " + select + " FROM a " + type + " JOIN b ON " + on);
    }

    static final String AB = "a.id, a.k, a.v, a.s, b.id, b.k, b.v, b.s";
    /** A row of {@link #AB} padded on the right, on the left. */
    static final String RIGHT_NULLS = ", null, null, null, null]";

    static final String LEFT_NULLS = "[null, null, null, null,";

    static {
        // Insert-only inputs without unique keys, joined on INT k (NULL for some key indexes).
        ab(FLOW, "", "*", "a.k = b.k").explains(INNER)
                .explains(LEFT_SPEC + NO_UNIQUE).explains(RIGHT_SPEC + NO_UNIQUE);
        ab("left_int", "LEFT", AB, "a.k = b.k").explains(LEFT).stockHas(RIGHT_NULLS);
        ab("right_int", "RIGHT", AB, "a.k = b.k").explains(RIGHT).stockHas(LEFT_NULLS);
        ab("full_int", "FULL", AB, "a.k = b.k").explains(FULL)
                .stockHas(RIGHT_NULLS).stockHas(LEFT_NULLS);
        // NULL-safe keys: NULL keys match each other; alone and next to a NULL-filtering key.
        ab("null_safe_inner", "", "a.k, b.k, a.id, b.id, a.v, b.v", "a.k IS NOT DISTINCT FROM b.k")
                .describes(NULL_SAFE).stockHas("[null, null,");
        ab("null_safe_full_two_keys", "FULL", "a.k, a.k2, b.k, b.k2, a.id, b.id, b.s",
                "a.k IS NOT DISTINCT FROM b.k AND a.k2 = b.k2").describes(NULL_SAFE)
                .describes("\"filterNulls\":[false,true]").stockHas("[null, 0, null, 0,");
        // Two-column keys; every key type.
        ab("two_keys_inner", "", "a.k, a.k2, a.id, b.id, a.s, b.v", "a.k = b.k AND a.k2 = b.k2");
        ab("bigint_key_left", "LEFT", "a.lk, a.id, a.v, b.id, b.lk, b.s", "a.lk = b.lk")
                .explains(LEFT);
        ab("string_key_inner", "", "a.sk, a.id, a.v, b.id, b.s", "a.sk = b.sk");
        ab("decimal_key_full", "FULL", "a.dk, a.id, a.s, b.dk, b.id, b.v", "a.dk = b.dk")
                .explains(FULL);
        // Flink's keys are binary rows: -0.0 is not 0.0, and NaN equals NaN.
        ab("double_key_inner", "", "a.fk, a.id, b.fk, b.id, b.v", "a.fk = b.fk")
                .stockHas("[NaN, ").stockHas("[-0.0, ").stockHas("[0.0, ");
        ab("timestamp_key_right", "RIGHT", "a.tk, a.id, a.v, b.tk, b.id, b.s", "a.tk = b.tk")
                .explains(RIGHT).stockHas("[1969-");
        ab("string_timestamp_keys_left", "LEFT", "a.sk, a.tk, a.id, b.id, b.dk, b.fk",
                "a.sk = b.sk AND a.tk = b.tk");
        // Non-equi conditions on INT and on strings.
        ab("non_equi_inner", "", AB, "a.k = b.k AND a.v > b.v").describes("\"nonEquiCondition\":{");
        ab("non_equi_left", "LEFT", AB, "a.k = b.k AND a.v > b.v").explains(LEFT);
        ab("non_equi_full_string", "FULL", AB, "a.k = b.k AND a.s < b.s").explains(FULL);
        ab("non_equi_right_string_function", "RIGHT", "a.sk, a.id, a.s, b.id, b.s",
                "a.sk = b.sk AND CHAR_LENGTH(a.s) >= CHAR_LENGTH(b.s) + 2").explains(RIGHT);
        // SEMI and ANTI.
        q("semi_exists", "SELECT id, k, v, s FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)")
                .explains(SEMI);
        q("semi_in", "SELECT id, sk, v FROM a WHERE sk IN (SELECT sk FROM b WHERE v > 0)")
                .explains(SEMI);
        q("semi_two_keys", "SELECT id, k, k2, s FROM a WHERE EXISTS (SELECT 1 FROM b"
                + " WHERE b.k = a.k AND b.k2 = a.k2)").explains(SEMI);
        q("anti_not_exists", "SELECT id, k, v FROM a WHERE NOT EXISTS (SELECT 1 FROM b"
                + " WHERE b.k = a.k)").explains(ANTI);
        q("anti_non_equi", "SELECT id, k, v, s FROM a WHERE NOT EXISTS (SELECT 1 FROM b"
                + " WHERE b.k = a.k AND b.v > a.v)").explains(ANTI);
        // Updating inputs: GROUP BYs below the join, on the join key and on more.
        q("group_key_inner", "SELECT g.k, g.c, g.sv, b.id, b.v FROM (SELECT k, COUNT(*) AS c,"
                + " SUM(v) AS sv FROM a GROUP BY k) g JOIN b ON g.k = b.k")
                .explains(LEFT_SPEC + JOIN_KEY_UNIQUE).explains(RIGHT_SPEC + NO_UNIQUE)
                .stockHas("-U[");
        q("group_both_full", "SELECT x.k, x.c, y.k, y.m FROM (SELECT k, COUNT(*) AS c FROM a"
                + " GROUP BY k) x FULL JOIN (SELECT k, MAX(v) AS m FROM b GROUP BY k) y"
                + " ON x.k = y.k")
                .explains(LEFT_SPEC + JOIN_KEY_UNIQUE).explains(RIGHT_SPEC + JOIN_KEY_UNIQUE);
        q("group_unique_key_left", "SELECT g.k, g.k2, g.c, b.id, b.s FROM (SELECT k, k2,"
                + " COUNT(*) AS c FROM a GROUP BY k, k2) g LEFT JOIN b ON g.k = b.k")
                .explains(LEFT_SPEC + HAS_UNIQUE);
        q("group_right_non_equi", "SELECT b.id, b.v, g.k, g.m FROM b RIGHT JOIN (SELECT k,"
                + " MIN(v) AS m FROM a GROUP BY k) g ON b.k = g.k AND b.v > g.m")
                .explains(RIGHT_SPEC + JOIN_KEY_UNIQUE);
        // Changelog inputs with a primary key (id), joined off it and on it; without one.
        q("changelog_pk_inner", "SELECT ca.id, ca.k, ca.v, cb.id, cb.v, cb.s FROM ca JOIN cb"
                + " ON ca.k = cb.k").explains(LEFT_SPEC + HAS_UNIQUE)
                .explains(RIGHT_SPEC + HAS_UNIQUE).stockHas("-U[").stockHas("-D[");
        q("changelog_pk_left", "SELECT ca.id, ca.k, ca.s, cb.id, cb.amount FROM ca LEFT JOIN cb"
                + " ON ca.k = cb.k").explains(LEFT);
        q("changelog_pk_full_on_id", "SELECT ca.id, ca.k, ca.v, cb.id, cb.k, cb.s FROM ca FULL"
                + " JOIN cb ON ca.id = cb.id").explains(FULL)
                .explains(LEFT_SPEC + JOIN_KEY_UNIQUE).explains(RIGHT_SPEC + JOIN_KEY_UNIQUE);
        q("changelog_pk_right_non_equi", "SELECT ca.id, ca.v, cb.id, cb.k, cb.v FROM ca RIGHT"
                + " JOIN cb ON ca.k = cb.k AND ca.v < cb.v").explains(RIGHT);
        q("changelog_no_pk_inner", "SELECT ra.id, ra.k, ra.v, rb.id, rb.s FROM ra JOIN rb"
                + " ON ra.k = rb.k").explains(LEFT_SPEC + NO_UNIQUE)
                .explains(RIGHT_SPEC + NO_UNIQUE).stockHas("-D[");
        q("changelog_mixed_full", "SELECT ra.id, ra.k, ra.amount, cb.id, cb.s FROM ra FULL JOIN"
                + " cb ON ra.k = cb.k").explains(LEFT_SPEC + NO_UNIQUE)
                .explains(RIGHT_SPEC + HAS_UNIQUE);
        q("changelog_string_key_inner", "SELECT ca.s, ca.id, ca.v, cb.id, cb.amount FROM ca JOIN"
                + " cb ON ca.s = cb.s");
        q("changelog_null_safe_full", "SELECT ca.k, ca.id, cb.k, cb.id FROM ca FULL JOIN cb"
                + " ON ca.k IS NOT DISTINCT FROM cb.k").describes(NULL_SAFE);
        q("changelog_semi", "SELECT id, k, v FROM ca WHERE EXISTS (SELECT 1 FROM cb"
                + " WHERE cb.k = ca.k)").explains(SEMI);
        q("changelog_anti_non_equi", "SELECT id, k, v, s FROM ca WHERE NOT EXISTS (SELECT 1"
                + " FROM rb WHERE rb.k = ca.k AND rb.v >= ca.v)").explains(ANTI);
        // Joins feeding a GROUP BY: native after native, with the join's retractions.
        q("inner_then_group", "SELECT k, COUNT(*), SUM(w), MAX(t) FROM (SELECT a.k, b.v AS w,"
                + " b.s AS t FROM a JOIN b ON a.k = b.k AND a.k2 = b.k2) GROUP BY k")
                .groupAfter();
        q("left_then_group", "SELECT k, COUNT(*), COUNT(w), SUM(w) FROM (SELECT ca.k,"
                + " cb.v AS w FROM ca LEFT JOIN cb ON ca.k = cb.k) GROUP BY k").groupAfter();
        // No equality: no keys, one task.
        q("no_equality_inner", "SELECT x.id, x.v, y.id, y.v FROM (SELECT id, v FROM a"
                + " WHERE id < 60) x JOIN (SELECT id, v FROM b WHERE id < 50) y ON x.v > y.v")
                .singleTask();
        q("no_equality_left", "SELECT x.id, x.s, y.id, y.s FROM (SELECT id, s FROM a"
                + " WHERE id < 50) x LEFT JOIN (SELECT id, s FROM b WHERE id < 40) y"
                + " ON x.s > y.s").singleTask().explains(LEFT);
        // Mini-batch: Flink's MiniBatchStreamingJoinOperator (bundles of 7 rows, folded), on
        // insert-only inputs and in the three layouts with updates; SEMI has no mini-batch
        // operator (native as without).
        ab("mini_batch_inner", "", AB, "a.k = b.k").miniBatch()
                .describes("\"" + MINI_BATCH + "\":\"true\"");
        q("mini_batch_changelog_pk_left", "SELECT ca.id, ca.k, ca.s, cb.id, cb.amount FROM ca"
                + " LEFT JOIN cb ON ca.k = cb.k").miniBatch().explains(LEFT)
                .explains(LEFT_SPEC + HAS_UNIQUE).explains(RIGHT_SPEC + HAS_UNIQUE)
                .stockHas("-D[");
        q("mini_batch_changelog_pk_full_on_id", "SELECT ca.id, ca.k, ca.v, cb.id, cb.k, cb.s"
                + " FROM ca FULL JOIN cb ON ca.id = cb.id").miniBatch().explains(FULL)
                .explains(LEFT_SPEC + JOIN_KEY_UNIQUE).explains(RIGHT_SPEC + JOIN_KEY_UNIQUE);
        q("mini_batch_changelog_no_pk_right", "SELECT ra.id, ra.k, ra.v, rb.id, rb.s FROM ra"
                + " RIGHT JOIN rb ON ra.k = rb.k").miniBatch().explains(RIGHT)
                .explains(LEFT_SPEC + NO_UNIQUE).explains(RIGHT_SPEC + NO_UNIQUE);
        // Not with a non-equi condition: there Flink's suppressed update pairs leave padding
        // unflipped (a row that stops matching is never padded, a padding row never emitted is
        // retracted), so stock's own final result depends on where bundles end. The golden
        // vectors (MiniBatchJoinVectors) pin that behaviour bundle by bundle instead.
        q("mini_batch_changelog_mixed_full", "SELECT ra.id, ra.k, ra.v, cb.id, cb.v"
                + " FROM ra FULL JOIN cb ON ra.k = cb.k").miniBatch()
                .explains(FULL).explains(LEFT_SPEC + NO_UNIQUE)
                .explains(RIGHT_SPEC + HAS_UNIQUE);
        q("mini_batch_semi", "SELECT id, k, v FROM a WHERE EXISTS (SELECT 1 FROM b"
                + " WHERE b.k = a.k AND b.v < a.v)").miniBatch().explains(SEMI)
                .describes("\"" + MINI_BATCH + "\":\"true\"");
        // State TTL: an hour (nothing expires), and 3 s over the stalled input (the first
        // phase expires: 20 inner rows, not 40; 40 final LEFT rows, not 50).
        ab("ttl_long_inner", "", AB, "a.k = b.k").option("table.exec.state.ttl", "1 h")
                .describes("\"ttl\":\"1 h\"");
        q("ttl_expiring_inner", "SELECT sl.k, sl.id, sr.id FROM sl JOIN sr ON sl.k = sr.k")
                .option("table.exec.state.ttl", TTL).describes("\"ttl\":\"" + TTL + "\"")
                .stockFinal(20);
        q("ttl_expiring_left", "SELECT sl.k, sl.id, sr.id FROM sl LEFT JOIN sr ON sl.k = sr.k")
                .option("table.exec.state.ttl", TTL).describes("\"ttl\":\"" + TTL + "\"")
                .stockFinal(40);
    }

    JoinParity() {
        super("Join", "join", "join-parity-", "native_groups_after_join", QUERIES);
    }

    public static void main(String[] args) throws Exception {
        System.exit(new JoinParity().parity(args));
    }

    /** Every case: as changelogs, else as final results. */
    @Override
    boolean comparesFinal(Query query, Combo combo) {
        return true;
    }

    /**
     * NodeParity's comparison, then the retractions of each output (but where {@link
     * Query#singleTask} says the order is lost).
     */
    @Override
    String compare(Query query, Combo combo, List<String[]> a, List<String[]> b,
            List<String> problems) {
        String comparison = super.compare(query, combo, a, b, problems);
        if (query.name.equals(FLOW)) {
            flowStock.put(combo, finalRows(a));
        }
        if (query.singleTask && combo.parallelism() > 1) {
            return comparison;
        }
        String x = unmatchedRetraction(a);
        if (x != null) {
            problems.add("stock " + x);
        }
        String y = unmatchedRetraction(b);
        if (y != null) {
            problems.add("native " + y);
        }
        return comparison;
    }

    /** The first retraction of a row not there when it arrived, or null. */
    static String unmatchedRetraction(List<String[]> lines) {
        Map<String, Integer> rows = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            // Row.toString is "<kind>[fields]", the kind being +I, -U, +U or -D.
            String line = lines.get(i)[1];
            String row = line.substring(2);
            int count = rows.getOrDefault(row, 0);
            if (line.charAt(0) == '+') {
                rows.put(row, count + 1);
            } else if (count == 0) {
                return "output " + i + " (" + line + ") retracts a row that is not there";
            } else if (count == 1) {
                rows.remove(row);
            } else {
                rows.put(row, count - 1);
            }
        }
        return null;
    }

    /** The changelog applied in arrival order: the rows left, each with its count. */
    @Override
    List<String> finalRows(List<String[]> lines) {
        List<String> changelog = new ArrayList<>();
        for (String[] line : lines) {
            changelog.add(line[1]);
        }
        return AggParity.flatten(AggParity.materialize(changelog));
    }

    @Override
    void checkStock(Query query, Combo combo, List<String[]> a, List<String> problems) {
        for (String text : query.stockHas) {
            if (a.stream().noneMatch(line -> line[1].contains(text))) {
                problems.add("no stock row contains " + text + ": the case did not happen");
            }
        }
        if (query.stockFinal != null) {
            List<String> rows = finalRows(a);
            int total = 0;
            for (String row : rows) {
                total += Integer.parseInt(row.substring(0, row.indexOf('x')));
            }
            if (total != query.stockFinal) {
                problems.add("stock's final result has " + total + " rows (" + rows.size()
                        + " distinct), not the " + query.stockFinal + " the case is about");
            }
        }
    }

    /** The cases whose GROUP BY above the join ran natively too. */
    @Override
    int counted(Query query, Outcome outcome) {
        return query.groupAfter && nativeGroup(outcome) ? 1 : 0;
    }

    static boolean nativeGroup(Outcome outcome) {
        return Pattern.compile("native \\d+:GroupAggregate\\(").matcher(outcome.decisions).find();
    }

    @Override
    String othersNote(Outcome outcome) {
        return " (native Calc " + outcome.calcNative + ", native GroupAggregate "
                + (nativeGroup(outcome) ? "yes" : "no") + ")";
    }

    @Override
    void checkPlan(Query query, boolean strict, Outcome outcome, List<String> problems) {
        if (query.refused()) {
            refusedProblems(query.refusal.matcher(outcome.reasons).find(), query.refusal,
                    strict, outcome, problems);
            return;
        }
        nativeProblems(query, outcome, problems);
        for (String text : query.explains) {
            if (!outcome.explain.contains(text)) {
                problems.add("EXPLAIN shows no " + text);
            }
        }
        if (query.groupAfter && (!nativeGroup(outcome)
                || !outcome.explain.contains(NativeOneInputExecNode.PREFIX + "GroupAggregate("))) {
            problems.add("the GROUP BY above the join must run natively: " + outcome.decisions);
        }
    }

    @Override
    void configure(TableConfig config, Query query) {
        DEFAULTS.forEach(config::set);
        for (int i = 0; i < query.options.size(); i += 2) {
            if (!DEFAULTS.containsKey(query.options.get(i))) {
                throw new IllegalArgumentException(query.name + " sets "
                        + query.options.get(i) + ", which has no entry in DEFAULTS");
            }
            config.set(query.options.get(i), query.options.get(i + 1));
        }
    }

    /** Stock's final result of {@link #FLOW} per combination. */
    private final Map<Combo, List<String>> flowStock = new HashMap<>();

    /**
     * The flow check: {@link #FLOW} alone in one native job per combination; its native
     * operators (the join alone) must take exactly the rows of {@code a} and {@code b} and emit
     * exactly the rows collected, whose final result is stock's.
     */
    @Override
    int finish() {
        Query flow = QUERIES.stream().filter(q -> q.name.equals(FLOW)).findFirst().orElseThrow();
        int failures = 0;
        for (Combo combo : COMBOS) {
            List<String> stock = flowStock.get(combo);
            if (stock == null) {
                continue;
            }
            long in = NativeStreamOperator.ROWS_IN.get();
            long out = NativeStreamOperator.ROWS_OUT.get();
            Run run = run(combo, true, List.of(flow), false);
            long rowsIn = NativeStreamOperator.ROWS_IN.get() - in;
            long rowsOut = NativeStreamOperator.ROWS_OUT.get() - out;
            Outcome outcome = run.outcomes.get(FLOW);
            List<String[]> rows = run.rows.get(FLOW);
            List<String> problems = new ArrayList<>();
            if (run.error != null) {
                problems.add("native job failed: " + run.error);
            }
            if (outcome.nodeNative != 1 || outcome.others != 0) {
                problems.add("the join must be the one node planned: " + outcome.decisions);
            }
            if (rowsIn != A_ROWS + B_ROWS) {
                problems.add("native operators took " + rowsIn + " rows, not the "
                        + (A_ROWS + B_ROWS) + " of a and b");
            }
            if (rowsOut != rows.size()) {
                problems.add("native operators emitted " + rowsOut + " rows, " + rows.size()
                        + " were collected");
            }
            if (!finalRows(rows).equals(stock)) {
                problems.add("final results differ from stock's: "
                        + CalcParity.firstDifference(stock, finalRows(rows)));
            }
            failures += problems.isEmpty() ? 0 : 1;
            System.out.printf("flow %s [%s]: native rows in=%d out=%d, collected=%d%s%n", FLOW,
                    combo, rowsIn, rowsOut, rows.size(),
                    problems.isEmpty() ? "" : " FAILED " + problems);
        }
        return failures;
    }

    @Override
    void views(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Combo combo,
            List<Query> queries) {
        int p = combo.parallelism();
        tEnv.createTemporaryView("a", tEnv.fromDataStream(
                channelled(env, A, TYPE, 1, p), Schema.newBuilder().fromRowDataType(TYPE).build()));
        tEnv.createTemporaryView("b", tEnv.fromDataStream(
                channelled(env, B, TYPE, 1, p), Schema.newBuilder().fromRowDataType(TYPE).build()));
        DataStream<Row> ca = channelled(env, CA, CHANGELOG_TYPE, 0, p);
        DataStream<Row> cb = channelled(env, CB, CHANGELOG_TYPE, 0, p);
        Schema keyed = Schema.newBuilder().fromRowDataType(CHANGELOG_TYPE).primaryKey("id").build();
        Schema plain = Schema.newBuilder().fromRowDataType(CHANGELOG_TYPE).build();
        tEnv.createTemporaryView("ca", tEnv.fromChangelogStream(ca, keyed));
        tEnv.createTemporaryView("cb", tEnv.fromChangelogStream(cb, keyed));
        tEnv.createTemporaryView("ra", tEnv.fromChangelogStream(ca, plain));
        tEnv.createTemporaryView("rb", tEnv.fromChangelogStream(cb, plain));
        // Only a job that reads it waits for the stalled input.
        if (queries.stream().anyMatch(q -> q.sql.contains(" sl "))) {
            DataStream<Row> stalled = env
                    .fromData(STALLED, AggParity.rowInfo(STALLED_TYPE))
                    .setParallelism(1)
                    .map(new Stall(), AggParity.rowInfo(STALLED_TYPE))
                    .setParallelism(1)
                    .disableChaining();
            Schema schema = Schema.newBuilder().fromRowDataType(STALLED_TYPE).build();
            tEnv.createTemporaryView("sl", tEnv.fromDataStream(
                    stalled.filter(new Side(0)).setParallelism(1), schema));
            tEnv.createTemporaryView("sr", tEnv.fromDataStream(
                    stalled.filter(new Side(1)).setParallelism(1), schema));
        }
    }

    /**
     * {@code rows} from one source task, each channelled by its field {@code field} to one
     * subtask of a stage at {@code parallelism} (which the table's conversion follows forward):
     * the rows of one key index or id travel one channel in order all the way to the join.
     */
    static DataStream<Row> channelled(StreamExecutionEnvironment env, List<Row> rows,
            DataType type, int field, int parallelism) {
        return env.fromData(rows, AggParity.rowInfo(type))
                .setParallelism(1)
                .partitionCustom(new DedupParity.Modulo(), new IntField(field))
                .map(new Pass(), AggParity.rowInfo(type))
                .setParallelism(parallelism);
    }

    /** An INT field of a row (never NULL). */
    static final class IntField implements KeySelector<Row, Integer> {
        private static final long serialVersionUID = 1L;
        private final int field;

        IntField(int field) {
            this.field = field;
        }

        @Override
        public Integer getKey(Row row) {
            return (Integer) row.getField(field);
        }
    }

    /** Passes a row on, its kind kept. */
    static final class Pass implements MapFunction<Row, Row> {
        private static final long serialVersionUID = 1L;

        @Override
        public Row map(Row row) {
            return row;
        }
    }

    /** The stalled input's rows of one side. */
    static final class Side implements FilterFunction<Row> {
        private static final long serialVersionUID = 1L;
        private final int side;

        Side(int side) {
            this.side = side;
        }

        @Override
        public boolean filter(Row row) {
            return (Integer) row.getField(0) == side;
        }
    }

    /** Passes rows on, stalling {@value #STALL_MS} ms before the second phase's first row. */
    static final class Stall implements MapFunction<Row, Row> {
        private static final long serialVersionUID = 1L;

        @Override
        public Row map(Row row) throws Exception {
            if ((Integer) row.getField(1) == STALL_BEFORE) {
                Thread.sleep(STALL_MS);
            }
            return row;
        }
    }

    static final DataType TYPE = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.INT().notNull()),
            DataTypes.FIELD("ki", DataTypes.INT().notNull()),
            DataTypes.FIELD("k", DataTypes.INT()),
            DataTypes.FIELD("k2", DataTypes.INT()),
            DataTypes.FIELD("lk", DataTypes.BIGINT()),
            DataTypes.FIELD("sk", DataTypes.STRING()),
            DataTypes.FIELD("dk", DataTypes.DECIMAL(12, 3)),
            DataTypes.FIELD("fk", DataTypes.DOUBLE()),
            DataTypes.FIELD("tk", DataTypes.TIMESTAMP(3)),
            DataTypes.FIELD("v", DataTypes.INT()),
            DataTypes.FIELD("s", DataTypes.STRING()));

    /** {@code tk} of key index 0: key indexes up to 59 are before 1970. */
    static final LocalDateTime BASE = LocalDateTime.of(1969, 12, 31, 23, 59, 0);

    /** Key indexes 0..59 on the left, 10..74 on the right: outer joins pad on both sides. */
    static final List<Row> A = rows(20_260_701L, A_ROWS, 0, 60);

    static final List<Row> B = rows(20_260_702L, B_ROWS, 10, 65);

    /**
     * {@code n} rows with random key indexes {@code ki} in {@code [low, low + span)}; every key
     * column is a function of {@code ki}, NULL on its own indexes, except {@code k2}, which
     * varies with the row (so a two-column key matches part of a key index's rows). {@code fk}
     * is NaN, -0.0, 0.0 or infinity on four residues of ten (several indexes share each), else
     * {@code ki / 4}.
     */
    static List<Row> rows(long seed, int n, int low, int span) {
        Random random = new Random(seed);
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            int ki = low + random.nextInt(span);
            double fk = switch (ki % 10) {
                case 0 -> Double.NaN;
                case 1 -> -0.0;
                case 2 -> 0.0;
                case 3 -> Double.POSITIVE_INFINITY;
                default -> ki / 4.0;
            };
            rows.add(Row.of(
                    r,
                    ki,
                    ki % 17 == 5 ? null : ki,
                    r % 7 == 3 ? null : random.nextInt(3),
                    ki % 19 == 7 ? null : ki * 1_000_000_007L - 31_000_000_000L,
                    ki % 23 == 11 ? null : AggParity.KEYS[ki % AggParity.KEYS.length],
                    ki % 13 == 6 ? null : BigDecimal.valueOf(ki * 1_250L - 40_000, 3),
                    ki % 21 == 9 ? null : fk,
                    ki % 29 == 13 ? null : BASE.plusNanos(ki * 1_001_000_000L),
                    random.nextInt(9) == 0 ? null : random.nextInt(101) - 50,
                    random.nextInt(8) == 0 ? null
                            : CalcParity.STRINGS[random.nextInt(CalcParity.STRINGS.length)]));
        }
        return rows;
    }

    static final DataType CHANGELOG_TYPE = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.INT().notNull()),
            DataTypes.FIELD("k", DataTypes.INT()),
            DataTypes.FIELD("v", DataTypes.INT()),
            DataTypes.FIELD("s", DataTypes.STRING()),
            DataTypes.FIELD("amount", DataTypes.DECIMAL(10, 2)));

    static final List<Row> CA = changelog(20_260_703L, CA_CHANGES, 150, 0, 30);

    static final List<Row> CB = changelog(20_260_704L, CB_CHANGES, 120, 5, 30);

    /**
     * A consistent changelog of {@code changes} rows over ids {@code [0, ids)}: {@code +I} for
     * a new id, else {@code -U}/{@code +U} (half of them moving the row to another key {@code k}
     * in {@code [low, low + span)}, NULL now and then) or {@code -D} (the id may come back);
     * each {@code -U} and {@code -D} repeats the row last added for its id.
     */
    static List<Row> changelog(long seed, int changes, int ids, int low, int span) {
        Random random = new Random(seed);
        Map<Integer, Object[]> live = new LinkedHashMap<>();
        List<Row> rows = new ArrayList<>();
        while (rows.size() < changes) {
            int id = random.nextInt(ids);
            Object[] old = live.get(id);
            Integer k = random.nextInt(12) == 0 ? null : low + random.nextInt(span);
            Object[] fresh = {
                id,
                old != null && random.nextBoolean() ? old[1] : k,
                random.nextInt(8) == 0 ? null : random.nextInt(101) - 50,
                random.nextInt(6) == 0 ? null
                        : CalcParity.STRINGS[random.nextInt(CalcParity.STRINGS.length)],
                random.nextInt(5) == 0 ? null
                        : BigDecimal.valueOf(random.nextInt(2_001) - 1_000, 2)
            };
            if (old == null) {
                rows.add(Row.ofKind(RowKind.INSERT, fresh));
                live.put(id, fresh);
            } else if (random.nextInt(4) < 3) {
                rows.add(Row.ofKind(RowKind.UPDATE_BEFORE, old));
                rows.add(Row.ofKind(RowKind.UPDATE_AFTER, fresh));
                live.put(id, fresh);
            } else {
                rows.add(Row.ofKind(RowKind.DELETE, old));
                live.remove(id);
            }
        }
        return rows;
    }

    static final DataType STALLED_TYPE = DataTypes.ROW(
            DataTypes.FIELD("side", DataTypes.INT().notNull()),
            DataTypes.FIELD("id", DataTypes.INT().notNull()),
            DataTypes.FIELD("k", DataTypes.INT()));

    /** The id of the stalled input's second phase's first row. */
    static final int STALL_BEFORE = 100;

    /**
     * The stalled input: left rows for keys 0..19 and right rows for keys 0..9; then - after a
     * stall longer than the TTL - right rows for keys 0..19 and left rows for keys 10..29.
     * Inner: 10 rows in each phase (the first phase's rows have expired when the second's
     * arrive; 40 rows without expiry). LEFT, final: 10 joined and 10 padded rows of each phase
     * (50 without expiry).
     */
    static final List<Row> STALLED = new ArrayList<>();

    static {
        for (int k = 0; k < 20; k++) {
            STALLED.add(Row.of(0, k, k));
        }
        for (int k = 0; k < 10; k++) {
            STALLED.add(Row.of(1, 20 + k, k));
        }
        for (int k = 0; k < 20; k++) {
            STALLED.add(Row.of(1, STALL_BEFORE + k, k));
        }
        for (int k = 10; k < 30; k++) {
            STALLED.add(Row.of(0, STALL_BEFORE + 20 + k, k));
        }
    }
}
