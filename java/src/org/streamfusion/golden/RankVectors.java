package org.streamfusion.golden;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.streamfusion.flink.StreamFusionPlanner;

/**
 * Golden changelogs of streaming Top-N ({@code StreamExecRank}: {@code ROW_NUMBER() OVER
 * ([PARTITION BY ..] ORDER BY ..)} filtered to a constant range), produced by Flink SQL on the
 * released Flink 2.3.0 jars: each scenario's rows go through {@code SELECT cols [, rn] FROM
 * (SELECT *, ROW_NUMBER() OVER (..) AS rn FROM src) WHERE rn <= N} ({@code rn < N}, {@code rn =
 * 1}, {@code rn BETWEEN a AND b}) in a MiniCluster at parallelism 1 under the scenario's keyed
 * state backend and options, and the changelog the job emits is recorded with its row kinds. The
 * native Top-N is tested against them ({@code crates/streamfusion/tests/it/rank_flink.rs}).
 *
 * <p>The kinds and their functions in 2.3.0 ({@code StreamExecRank#translateToPlanInternal}):
 * over an insert-only input the planner picks {@code AppendFastStrategy}, run by {@code
 * AppendOnlyFirstNFunction} when the only sort key is a processing-time attribute ascending
 * ("append first-n"), {@code FastTop1Function} for the range 1..1 ("append top-1") and {@code
 * AppendOnlyTopNFunction} otherwise ("append top-n"); over an updating input {@code
 * RetractStrategy} ({@code RetractableTopNFunction}, "retract": here a {@code
 * fromChangelogStream} without a primary key) or, when a unique key of the input holds the
 * partition key and the sort key is monotonic in the sort direction, {@code UpdateFastStrategy}
 * ({@code FastTop1Function} for 1..1, "update-fast top-1", else {@code UpdatableTopNFunction},
 * "update-fast top-n": here a {@code COUNT(*)} or {@code MAX} per group, ordered descending).
 * {@code rn} in the output makes {@code outputRowNumber} true, except for a one-rank range,
 * whose constant {@code rn} the planner computes after the node; a row number or an offset
 * (range start above 1) makes {@code AppendOnlyTopNFunction} emit per rank ({@code -U}/{@code
 * +U} of the ranks that moved) instead of {@code +I}/{@code -D} of the rows entering and
 * leaving. {@code -U} is generated for a {@code toChangelogStream} in retract mode; scenarios
 * marked upsert convert with {@code ChangelogMode.upsert()} and a primary key (the partition
 * keys, and {@code rn} where it is in the output), so the node has {@code generateUpdateBefore
 * = false}. The program checks the node of every scenario: its strategy, range, flags, sort
 * and partition keys and state TTL. Rank has no mini-batch in Flink 2.3.0.
 *
 * <p>Rows enter from {@code fromData} at parallelism 1 ({@code fromChangelogStream} with
 * explicit row kinds for the retract scenarios), so they reach the node in one fixed order. A
 * table with a processing-time attribute has the computed column {@code pt AS PROCTIME()},
 * which the node's input holds as NULL (as in {@link DedupVectors}: the planner's code for an
 * unread time indicator is a null literal) and the query projects away. The one rowtime
 * scenario has punctuated watermarks on {@code ts}, as {@link DedupVectors} schedules them. An
 * update-fast scenario's node reads the changelog of the GROUP BY below it, which this program
 * computes from the rows (Flink's GroupAggFunction: {@code +I} for a group's first row, then
 * {@code +U} when the value changed, {@code -U} before it only if the aggregate node generates
 * it; the aggregate node's flags are checked).
 *
 * <p>Each scenario's node description is what {@link StreamFusionPlanner} hands to {@code
 * NativeOperator.planFromFlink}, taken from its recorded decision: {@code streamfusion.enabled}
 * is on while the job is planned, and the native library is pointed at a path that does not
 * exist, so every node is refused (a LinkageError) and the job runs stock. Node ids restart for
 * every scenario. The scenarios of one backend run in one job, each a pipeline of its own
 * (source, query, conversion) planned under its own options.
 *
 * <p>Usage: {@code RankVectors <output path> [scenario..]} (all scenarios when none are named),
 * on the planner classpath ({@code classpath-planner.txt}). Output is JSON Lines (UTF-8, LF):
 *
 * <ul>
 *   <li>line 1: {@code {"flink":"2.3.0","seed":..,"generator":..,"format":..}};
 *   <li>per scenario, a header {@code {"scenario":name,"description":..,"kind":..,
 *       "function":<Flink's function class>,"strategy":"AppendFast"|"Retract"|"UpdateFast",
 *       "rank_range":[start,end],"row_number":bool,"update_before":bool,
 *       "backend":"hashmap"|"rocksdb","state_ttl_ms":ms|null,"node":<description text>,
 *       "config":<options text>,"input":[{"name":..,"type":..[,"time":"proctime"|"rowtime"]}..],
 *       "output":[{"name":..,"type":..}..],"output_columns":[..],"output_keys":[..],"sql":..,
 *       "plan":..,"events_in":n,"rows_out":m}}: {@code node} and {@code config} are the exact
 *       texts the planner made ({@code flink::plan_node}'s two arguments); {@code input} is the
 *       node's input row; {@code output_columns} says which node output column each output
 *       column is (the node's output is its input row, then the row number when {@code
 *       row_number}), {@code output_keys} which output columns are the partition keys (none for
 *       a global Top-N); {@code plan} is the job's operators in order;
 *   <li>then n events in the order the node receives them: {@code {"in":kind,"row":[..]}} and
 *       {@code {"watermark":ms}} (the source's watermarks, and {@code Long.MAX_VALUE} at the end
 *       of input);
 *   <li>then m lines {@code {"out":kind,"row":[..]}}, kind being +I/-U/+U/-D, in the order the
 *       job emitted them.
 * </ul>
 *
 * <p>Values as {@link DedupVectors} writes them. Every scenario's random rows come from {@link
 * #SEED} and its name (without {@code _rocksdb}: a scenario run on both backends has the same
 * rows on both), so two runs write byte-identical files.
 */
public final class RankVectors extends NodeVectors<RankVectors.Scenario> {
    /** Published seed (the project's). */
    public static final long SEED = GroupAggVectors.SEED;

    static final String NODE_TYPE = "stream-exec-rank_1";
    static final String AGGREGATE_NODE_TYPE = "stream-exec-group-aggregate_1";
    static final long HOUR_MS = 3_600_000L;

    RankVectors() {
        super("function, strategy, rank_range, row_number, update_before, backend", NODE_TYPE,
                "rank", "rank-vectors-");
    }

    /** Where the node's input comes from. */
    enum Source {
        /** {@code fromData}: insert-only. */
        INSERT,
        /** {@code fromChangelogStream} with the rows' kinds, no primary key. */
        CHANGELOG,
        /** A GROUP BY over the insert-only rows, one aggregate {@code c}. */
        AGGREGATE
    }

    /** The rank process strategy, as the node's JSON names it. */
    enum Strategy {
        APPEND_FAST("AppendFast"),
        RETRACT("Retract"),
        UPDATE_FAST("UpdateFast");

        final String json;

        Strategy(String json) {
            this.json = json;
        }
    }

    /** One ORDER BY item; {@code nullsLast} null for the default (ASC first, DESC last). */
    record Order(String column, boolean ascending, Boolean nullsLast) {
        String sql() {
            return "`" + column + "`" + (ascending ? "" : " DESC")
                    + (nullsLast == null ? "" : nullsLast ? " NULLS LAST" : " NULLS FIRST");
        }

        boolean nullIsLast() {
            return nullsLast == null ? !ascending : nullsLast;
        }
    }

    static final class Scenario extends NodeVectors.Scenario<Scenario> {
        Source source = Source.INSERT;
        /** The table has {@code pt AS PROCTIME()}. */
        boolean proctime;
        /** {@code ts} is the rowtime attribute, with the scheduled watermarks. */
        boolean rowtime;
        final List<String> partition = new ArrayList<>();
        final List<Order> order = new ArrayList<>();
        /** The columns selected besides {@code rn}; empty for every physical column. */
        final List<String> select = new ArrayList<>();
        long start = 1;
        long end;
        /** The WHERE clause on {@code rn}. */
        String filter;
        boolean rowNumber;
        /** AGGREGATE: the grouping columns, the function (COUNT or MAX) and its argument. */
        final List<String> groupBy = new ArrayList<>();
        String aggregate;
        String aggregateArg;

        Scenario(String name, String description) {
            super(name, description);
        }

        Scenario partition(String... names) {
            partition.addAll(Arrays.asList(names));
            return this;
        }

        Scenario asc(String column) {
            order.add(new Order(column, true, null));
            return this;
        }

        Scenario desc(String column) {
            order.add(new Order(column, false, null));
            return this;
        }

        Scenario order(String column, boolean ascending, boolean nullsLast) {
            order.add(new Order(column, ascending, nullsLast));
            return this;
        }

        Scenario select(String... names) {
            select.addAll(Arrays.asList(names));
            return this;
        }

        /** {@code rn <= n}. */
        Scenario top(long n) {
            end = n;
            filter = "rn <= " + n;
            return this;
        }

        /** {@code rn < n}. */
        Scenario lessThan(long n) {
            end = n - 1;
            filter = "rn < " + n;
            return this;
        }

        /** {@code rn = 1}. */
        Scenario first() {
            end = 1;
            filter = "rn = 1";
            return this;
        }

        /** {@code rn BETWEEN a AND b}. */
        Scenario between(long a, long b) {
            start = a;
            end = b;
            filter = "rn BETWEEN " + a + " AND " + b;
            return this;
        }

        /** {@code rn = 1} for a top-1, else {@code rn <= n}. */
        Scenario rank(long n) {
            return n == 1 ? first() : top(n);
        }

        /** {@code rn} in the output. */
        Scenario rowNumber() {
            return rowNumber(true);
        }

        Scenario rowNumber(boolean rowNumber) {
            this.rowNumber = rowNumber;
            return this;
        }

        /** The table gets {@code pt AS PROCTIME()}. */
        Scenario proctimeColumn() {
            this.proctime = true;
            return this;
        }

        Scenario changelog() {
            this.source = Source.CHANGELOG;
            return this;
        }

        /** Rows of the columns but the last, which is each row's index (its id). */
        Scenario trace(Object[][] values) {
            for (Object[] v : values) {
                Object[] row = Arrays.copyOf(v, v.length + 1);
                row[v.length] = rows.size();
                row(row);
            }
            return this;
        }

        /**
         * {@code count} more rows of the columns (k, v, id): a key from {@code keys}, a value
         * from {@code values} (NULL one time in {@code nullEvery} when that is above 0) and the
         * row's index.
         */
        Scenario random(int count, Object[] keys, Object[] values, int nullEvery) {
            return random(count, (r, n) -> new Object[] {
                pick(r, keys), nullEvery > 0 ? pickOrNull(r, values, nullEvery) : pick(r, values), n
            });
        }

        /** The node reads {@code SELECT groupBy.., function(arg) AS c .. GROUP BY groupBy..}. */
        Scenario aggregate(String function, String arg, String... groupBy) {
            this.source = Source.AGGREGATE;
            this.aggregate = function;
            this.aggregateArg = arg;
            this.groupBy.addAll(Arrays.asList(groupBy));
            return this;
        }

        @Override
        boolean rowtime() {
            return rowtime;
        }

        @Override
        boolean proctime() {
            return proctime;
        }

        @Override
        boolean changelogSource() {
            return source == Source.CHANGELOG;
        }

        Strategy strategy() {
            return switch (source) {
                case INSERT -> Strategy.APPEND_FAST;
                case CHANGELOG -> Strategy.RETRACT;
                case AGGREGATE -> Strategy.UPDATE_FAST;
            };
        }

        boolean top1() {
            return start == 1 && end == 1;
        }

        /**
         * Whether the node generates {@code -U}: not for an upsert conversion, and not for a
         * top-1 over an insert-only input unless it sorts by one key descending. Flink 2.1+
         * declares such a Rank insert-only, reasoning as for a keep-first deduplication
         * ({@code FlinkChangelogModeInferenceProgram}: {@code RankUtil.isDeduplication} and
         * not {@code keepLastDeduplicateRow}), although FastTop1Function still emits {@code +U}
         * when a better row arrives.
         */
        boolean updateBefore() {
            boolean insertOnlyTop1 = source == Source.INSERT && top1() && !rowNumber
                    && !(order.size() == 1 && !order.get(0).ascending());
            return !upsert && !insertOnlyTop1;
        }

        /** Flink's function for the node, as StreamExecRank chooses it. */
        String function() {
            return switch (strategy()) {
                case APPEND_FAST -> order.size() == 1 && proctime
                                && order.get(0).column().equals("pt") && order.get(0).ascending()
                        ? "AppendOnlyFirstNFunction"
                        : top1() ? "FastTop1Function" : "AppendOnlyTopNFunction";
                case RETRACT -> "RetractableTopNFunction";
                case UPDATE_FAST -> top1() ? "FastTop1Function" : "UpdatableTopNFunction";
            };
        }

        @Override
        String kind() {
            return switch (function()) {
                case "AppendOnlyFirstNFunction" -> "append first-n";
                case "AppendOnlyTopNFunction" -> "append top-n";
                case "RetractableTopNFunction" -> "retract";
                case "UpdatableTopNFunction" -> "update-fast top-n";
                default -> strategy() == Strategy.APPEND_FAST ? "append top-1"
                        : "update-fast top-1";
            };
        }

        /** The columns the node's input row can hold, by name. */
        @Override
        List<String> inputNames() {
            if (source != Source.AGGREGATE) {
                return super.inputNames();
            }
            List<String> names = new ArrayList<>(groupBy);
            names.add("c");
            return names;
        }

        /** The query's output columns, {@code rn} last where selected. */
        @Override
        List<String> outputNames() {
            List<String> names = select.isEmpty() ? super.outputNames() : new ArrayList<>(select);
            if (rowNumber) {
                names.add("rn");
            }
            return names;
        }

        /** The upsert conversion's primary key: the partition keys, and {@code rn}. */
        @Override
        List<String> primaryKey() {
            List<String> key = new ArrayList<>(partition);
            if (rowNumber) {
                key.add("rn");
            }
            return key;
        }

        @Override
        String sql(String view) {
            StringBuilder s = new StringBuilder("SELECT ");
            List<String> out = outputNames();
            for (int i = 0; i < out.size(); i++) {
                s.append(i == 0 ? "" : ", ").append('`').append(out.get(i)).append('`');
            }
            s.append(" FROM (SELECT *, ROW_NUMBER() OVER (");
            if (!partition.isEmpty()) {
                s.append("PARTITION BY ");
                for (int i = 0; i < partition.size(); i++) {
                    s.append(i == 0 ? "" : ", ").append('`').append(partition.get(i)).append('`');
                }
                s.append(' ');
            }
            s.append("ORDER BY ");
            for (int i = 0; i < order.size(); i++) {
                s.append(i == 0 ? "" : ", ").append(order.get(i).sql());
            }
            s.append(") AS rn FROM ");
            if (source == Source.AGGREGATE) {
                s.append('(').append(aggregateSql(view)).append(')');
            } else {
                s.append(view);
            }
            return s.append(") WHERE ").append(filter).toString();
        }

        /** {@code SELECT groupBy.., f(arg) AS c FROM view GROUP BY groupBy..}. */
        String aggregateSql(String view) {
            StringBuilder s = new StringBuilder("SELECT ");
            for (String g : groupBy) {
                s.append('`').append(g).append("`, ");
            }
            s.append(aggregate).append('(')
                    .append(aggregateArg == null ? "*" : "`" + aggregateArg + "`")
                    .append(") AS `c` FROM ").append(view).append(" GROUP BY ");
            for (int i = 0; i < groupBy.size(); i++) {
                s.append(i == 0 ? "" : ", ").append('`').append(groupBy.get(i)).append('`');
            }
            return s.toString();
        }

        /** The Rust type name of a node input or query output column. */
        @Override
        String type(String name) {
            return switch (name) {
                case "rn" -> "BIGINT";
                case "c" -> source == Source.AGGREGATE
                        ? (aggregate.equals("COUNT") ? "BIGINT" : column(aggregateArg).type())
                        : column(name).type();
                default -> super.type(name);
            };
        }

        /** The Flink type of a query output column (for the upsert conversion's schema). */
        @Override
        DataType dataType(String name) {
            if (name.equals("rn") || (name.equals("c") && source == Source.AGGREGATE
                    && aggregate.equals("COUNT"))) {
                return DataTypes.BIGINT().notNull();
            }
            if (name.equals("c") && source == Source.AGGREGATE) {
                return column(aggregateArg).dataType();
            }
            return column(name).dataType();
        }

        /** The rows the node receives: the rows, or the GROUP BY's changelog of them. */
        @Override
        List<Row> input() {
            return source == Source.AGGREGATE ? aggregated(this, false) : super.input();
        }
    }

    public static void main(String[] args) throws Exception {
        new RankVectors().generate(args);
    }

    @Override
    boolean expectedPlan(Scenario s, String plan) {
        return plan.contains("Rank(") && !plan.contains("Deduplicate(")
                && !plan.contains("Materializ")
                && plan.contains("GroupAggregate(") == (s.source == Source.AGGREGATE);
    }

    /**
     * An update-fast scenario's GROUP BY alone, converted with -U (its key may be NULL, so no
     * upsert key): {@link #verify} checks the model of the GROUP BY below the node against it.
     */
    @Override
    DataStream<String> check(StreamTableEnvironment tEnv, Scenario s, String view, int tag) {
        if (s.source != Source.AGGREGATE) {
            return null;
        }
        return tEnv.toChangelogStream(tEnv.sqlQuery(s.aggregateSql(view)))
                .map(new Encode(tag, aggregateTypes(s)))
                .setParallelism(1);
    }

    @Override
    void verify(Planned<Scenario> p) {
        if (p.scenario.source != Source.AGGREGATE) {
            return;
        }
        Encode encode = new Encode(0, aggregateTypes(p.scenario));
        List<String> model = new ArrayList<>();
        for (Row r : aggregated(p.scenario, true)) {
            model.add(encode.map(r).substring(2));
        }
        if (!model.equals(p.check)) {
            throw new IllegalStateException(p.scenario.name + ": the GROUP BY's changelog "
                    + p.check + " is not the model's " + model);
        }
    }

    @Override
    void header(Scenario s, StringBuilder out) {
        out.append(",\"function\":");
        Json.string(out, s.function());
        out.append(",\"strategy\":");
        Json.string(out, s.strategy().json);
        out.append(",\"rank_range\":[").append(s.start).append(',').append(s.end)
                .append("],\"row_number\":").append(s.rowNumber)
                .append(",\"update_before\":").append(s.updateBefore())
                .append(",\"backend\":");
        Json.string(out, s.backend);
    }

    /**
     * The one rank node of the scenario's decisions, checked against what the scenario asks
     * for: strategy, range, flags, keys, sort, TTL and input columns.
     */
    @Override
    Node node(Scenario s) throws IOException {
        StreamFusionPlanner.Decision d = decision(s, NODE_TYPE, what, true);
        StreamFusionPlanner.Decision below = decision(s, AGGREGATE_NODE_TYPE, "aggregate", false);
        JsonNode aggregate = below == null ? null : JSON.readTree(below.description).get("node");
        Node found = new Node(d.description, d.config);
        List<String> problems = new ArrayList<>();
        JsonNode node = readNode(s, found, s.rowNumber ? 1 : 0, problems);
        expect(problems, node, "rankType", "ROW_NUMBER");
        expect(problems, node.path("rankStrategy"), "type", s.strategy().json);
        expect(problems, node.path("rankRange"), "type", "Constant");
        expect(problems, node.path("rankRange"), "start", Long.toString(s.start));
        expect(problems, node.path("rankRange"), "end", Long.toString(s.end));
        expect(problems, node, "outputRowNumber", Boolean.toString(s.rowNumber));
        expect(problems, node, "generateUpdateBefore", Boolean.toString(s.updateBefore()));
        // The planner may narrow the input below the node to the columns it needs.
        if (!s.inputNames().containsAll(found.fields)) {
            problems.add("input fields " + found.fields);
        }
        readKeys(node.path("partition").path("fields"), found, s.partition, "partition keys",
                problems);
        JsonNode sort = node.path("orderBy").path("fields");
        if (sort.size() != s.order.size()) {
            problems.add("orderBy " + sort);
        } else {
            for (int i = 0; i < sort.size(); i++) {
                Order o = s.order.get(i);
                JsonNode f = sort.get(i);
                int index = f.path("index").asInt(-1);
                if (index < 0 || index >= found.fields.size()
                        || !found.fields.get(index).equals(o.column())
                        || f.path("isAscending").asBoolean() != o.ascending()
                        || f.path("nullIsLast").asBoolean() != o.nullIsLast()) {
                    problems.add("orderBy " + f + ", not " + o);
                }
            }
        }
        if (s.strategy() == Strategy.UPDATE_FAST) {
            // Flink's UpdateFastStrategy names the input's unique key: the grouping columns.
            List<String> pk = new ArrayList<>();
            for (JsonNode k : node.path("rankStrategy").path("primaryKeys")) {
                pk.add(found.fields.get(k.asInt()));
            }
            List<String> groups = new ArrayList<>(s.groupBy);
            groups.sort(Comparator.comparingInt(found.fields::indexOf));
            if (!pk.equals(groups)) {
                problems.add("update-fast primary keys " + pk);
            }
        }
        if (s.source == Source.AGGREGATE) {
            // UpdateFastStrategy asks its input for +U only.
            if (aggregate == null) {
                problems.add("no aggregate node");
            } else if (aggregate.path("generateUpdateBefore").asBoolean()
                    || aggregate.path("needRetraction").asBoolean()) {
                problems.add("aggregate " + aggregate);
            }
        } else if (aggregate != null) {
            problems.add("an aggregate node");
        }
        fits(s, found, problems);
        return found;
    }

    /**
     * The changelog of {@code SELECT groupBy.., f(arg) AS c .. GROUP BY groupBy..} over the
     * scenario's insert-only rows, as Flink 2.3.0's GroupAggFunction emits it without state
     * TTL: {@code +I} for a group's first row; afterwards nothing when the value did not
     * change, else ({@code -U} of the previous value when {@code updateBefore}) {@code +U}.
     * COUNT(*) counts rows, MAX and MIN skip NULLs.
     */
    static List<Row> aggregated(Scenario s, boolean updateBefore) {
        if (s.ttlMs > 0) {
            throw new IllegalStateException(s.name + ": TTL changes when GROUP BY emits");
        }
        Map<List<Object>, Object> values = new HashMap<>();
        List<Row> out = new ArrayList<>();
        for (Row r : s.rows) {
            List<Object> group = new ArrayList<>();
            for (String g : s.groupBy) {
                group.add(r.getField(s.columns.indexOf(s.column(g))));
            }
            boolean first = !values.containsKey(group);
            Object previous = values.get(group);
            Object next;
            if (s.aggregate.equals("COUNT")) {
                next = first ? 1L : (Long) previous + 1;
            } else if (s.aggregate.equals("MAX") || s.aggregate.equals("MIN")) {
                @SuppressWarnings("unchecked")
                Comparable<Object> v = (Comparable<Object>)
                        r.getField(s.columns.indexOf(s.column(s.aggregateArg)));
                int better = s.aggregate.equals("MAX") ? 1 : -1;
                next = v == null ? previous
                        : previous == null || v.compareTo(previous) * better > 0 ? v : previous;
            } else {
                throw new IllegalStateException(s.name + ": no model of " + s.aggregate);
            }
            values.put(group, next);
            if (!first && Objects.equals(previous, next)) {
                continue;
            }
            if (!first && updateBefore) {
                out.add(groupRow(RowKind.UPDATE_BEFORE, group, previous));
            }
            out.add(groupRow(first ? RowKind.INSERT : RowKind.UPDATE_AFTER, group, next));
        }
        return out;
    }

    /** The types of the GROUP BY's output columns (the grouping columns, then c). */
    static String[] aggregateTypes(Scenario s) {
        String[] types = new String[s.groupBy.size() + 1];
        for (int i = 0; i < s.groupBy.size(); i++) {
            types[i] = s.type(s.groupBy.get(i));
        }
        types[s.groupBy.size()] = s.type("c");
        return types;
    }

    static Row groupRow(RowKind kind, List<Object> group, Object value) {
        Object[] values = Arrays.copyOf(group.toArray(), group.size() + 1);
        values[group.size()] = value;
        return Row.ofKind(kind, values);
    }

    // ---------------------------------------------------------------- values

    static final Object[] KEYS = GroupAggVectors.KEYS;
    static final Object[] INTS = {
        null, 0, 1, -1, 7, 42, -42, 1_000, Integer.MIN_VALUE, Integer.MAX_VALUE
    };
    static final Object[] BIGINTS = DedupVectors.BIGINTS;
    /** No NaN: Flink's sort comparator does not order it (it compares equal to everything). */
    static final Object[] DOUBLES = {
        null, 0.0, -0.0, 1.5, -2.25, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        1.0E300, -1.0E-300, Double.MIN_VALUE
    };
    static final Object[] DECIMALS = {
        null, new BigDecimal("0.00"), new BigDecimal("-0.01"), new BigDecimal("1.10"),
        new BigDecimal("1.09"), new BigDecimal("99999999.99"), new BigDecimal("-99999999.99")
    };
    static final Object[] WIDE_DECIMALS = DedupVectors.WIDE_DECIMALS;
    static final Object[] STRINGS = {
        null, "", "a", "A", "ab", "b", "z", "é", "e\u0301", "größer 🦀", "🦀🦀", "\u2028",
        "nul\0byte", "more than seven bytes"
    };
    static final Object[] TIMESTAMPS = {
        null, LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000),
        LocalDateTime.of(1970, 1, 1, 0, 0), BASE, BASE.plusNanos(1_000_000), BASE.minusDays(400),
        LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_000_000),
        LocalDateTime.of(1000, 1, 1, 0, 0, 0, 1_000_000)
    };

    // ---------------------------------------------------------------- scenarios

    @Override
    List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        for (String backend : BACKENDS) {
            String x = suffix(backend);
            // Append top-1 (FastTop1Function).
            list.add(top1Traced("top1_traced" + x, backend, false));
            list.add(top1Traced("top1_traced_upsert" + x, backend, true));
            // Append top-N (AppendOnlyTopNFunction): without and with the row number, with
            // an offset, random.
            list.add(topNTraced("topn_traced" + x, backend, false, false));
            list.add(topNTraced("topn_traced_rn" + x, backend, true, false));
            list.add(topNTraced("topn_traced_rn_upsert" + x, backend, true, true));
            list.add(offsetTraced("offset_traced" + x, backend, false));
            list.add(offsetTraced("offset_traced_rn" + x, backend, true));
            list.add(topNRandom("topn5_random" + x, backend, false));
            list.add(topNRandom("topn5_random_rn" + x, backend, true));
            // First-N (AppendOnlyFirstNFunction).
            list.add(firstN("firstn" + x, backend, false, 1, false));
            list.add(firstN("firstn_rn" + x, backend, true, 1, false));
        }
        list.add(top1NullsLast());
        list.add(top1Strings());
        list.add(top1Doubles());
        list.add(top1MultiField());
        list.add(top1Global());
        list.add(top1Timestamps());
        list.add(top1Ttl());
        list.add(offsetRandom("offset_random", "hashmap", false, false));
        list.add(offsetRandom("offset_random_rn_upsert_rocksdb", "rocksdb", true, true));
        list.add(ties("ties", "hashmap", false));
        list.add(ties("ties_rn_rocksdb", "rocksdb", true));
        list.add(nullOrder("nulls_first_desc", false, false));
        list.add(nullOrder("nulls_last_asc", true, true));
        list.add(multiField());
        list.add(bigints());
        list.add(doubles());
        list.add(doublesRowNumber());
        list.add(decimals());
        list.add(wideDecimals());
        list.add(strings());
        list.add(timestamps());
        list.add(nullPartition());
        list.add(multiPartition());
        list.add(global("global_topn", "hashmap", false, false));
        list.add(global("global_topn_rn_rocksdb", "rocksdb", true, false));
        list.add(global("global_topn_rn_upsert", "hashmap", true, true));
        list.add(lessThan());
        list.add(topNTtl("topn_ttl", "hashmap"));
        list.add(topNTtl("topn_ttl_rocksdb", "rocksdb"));
        list.add(rowtime());
        list.add(firstN("firstn_offset_rn", "hashmap", true, 2, false));
        list.add(firstN("firstn_offset_rocksdb", "rocksdb", false, 2, false));
        list.add(firstN("firstn_rn_upsert", "hashmap", true, 1, true));
        list.add(firstNGlobal());
        // Updating inputs: the native side refuses them for now.
        list.add(retract("retract_topn_rn", "hashmap", 3, true, false));
        list.add(retract("retract_topn_rocksdb", "rocksdb", 3, false, false));
        list.add(retract("retract_top1", "hashmap", 1, false, false));
        list.add(retract("retract_topn_rn_upsert", "rocksdb", 2, true, true));
        list.add(updateFast("update_fast_top1", "hashmap", "COUNT", 1, false));
        list.add(updateFast("update_fast_topn_rn", "hashmap", "COUNT", 3, true));
        list.add(updateFast("update_fast_topn_rocksdb", "rocksdb", "COUNT", 3, false));
        list.add(updateFast("update_fast_max_rn", "hashmap", "MAX", 2, true));
        list.add(updateFast("update_fast_offset_rn_rocksdb", "rocksdb", "COUNT", 2, 4, true,
                false, 200, 8));
        list.add(updateFast("update_fast_offset", "hashmap", "COUNT", 2, 3, false, false, 200,
                8));
        list.add(updateFast("update_fast_min_asc_rn", "hashmap", "MIN", 1, 3, true, false, 200,
                8));
        list.add(updateFast("update_fast_min_asc_rocksdb", "rocksdb", "MIN", 1, 3, false, false,
                200, 8));
        list.add(updateFast("update_fast_top5_ties_rn_upsert", "hashmap", "COUNT", 1, 5, true,
                true, 250, 14));
        list.add(updateFast("update_fast_max_upsert_rocksdb", "rocksdb", "MAX", 1, 3, true, true,
                200, 10));
        return list;
    }

    /** Columns (k, a sort column, id INT), partitioned by k: a key, its sort key, a row id. */
    static Scenario keyed(String name, String description, DataType key, String sort,
            DataType type) {
        return new Scenario(name, description)
                .column("k", key)
                .column(sort, type)
                .column("id", DataTypes.INT())
                .partition("k");
    }

    /** Columns (k STRING, v INT, id INT), k NOT NULL in an upsert scenario. */
    static Scenario kvi(String name, String description, String backend, boolean upsert) {
        return keyed(name, description, upsert ? DataTypes.STRING().notNull() : DataTypes.STRING(),
                "v", DataTypes.INT()).backend(backend).upsert(upsert);
    }

    /** How a description ends: with or without rn, and no -U for an upsert scenario. */
    static String variant(boolean rowNumber, boolean upsert) {
        return (rowNumber ? ", with rn" : ", without rn") + (upsert ? ", no -U" : "");
    }

    // ------------------------------------------------------------- append top-1

    Scenario top1Traced(String name, String backend, boolean upsert) {
        Object nullKey = upsert ? "n" : null;
        return kvi(name,
                "append top-1 (rn = 1) by v DESC, traced: a strictly better row replaces the"
                        + " kept one, a tie or a worse row is ignored, NULL sorts last"
                        + (upsert ? ", no -U" : ""),
                backend, upsert).desc("v").first()
                .trace(new Object[][] {
                    {"a", 10},
                    {"a", 10},    // tie: ignored
                    {"a", 5},     // worse
                    {"a", 11},    // better: replaces
                    {"b", null},  // NULL first row of its key
                    {"b", -1},    // better than NULL (NULLS LAST)
                    {"b", null},
                    {nullKey, 0}, {nullKey, 0},
                    {"a", 11},    // tie
                    {"a", 12},
                    {"", Integer.MIN_VALUE}, {"", Integer.MAX_VALUE},
                    {"größer 🦀", 3}, {"größer 🦀", 4},
                })
                .random(120, new Object[] {"a", "b", "c", nullKey}, new Object[] {0, 1, 2, 3, 20},
                        6);
    }

    Scenario top1NullsLast() {
        return kvi("top1_nulls_last",
                "append top-1 written rn <= 1, by v ASC NULLS LAST over NULL-heavy INT sort"
                        + " keys and a NULL partition key; no -U although the conversion takes"
                        + " them (Flink 2.3.0 declares an ascending top-1 insert-only)",
                "hashmap", false).order("v", true, true).top(1)
                .random(150, new Object[] {null, "a", "b", "c"}, INTS, 3);
    }

    Scenario top1Strings() {
        return keyed("top1_strings",
                "append top-1 by a STRING ASC (NULLs first, empty, Unicode compared by UTF-8"
                        + " bytes), partitioned by INT with NULL, on RocksDB; no -U (declared"
                        + " insert-only)",
                DataTypes.INT(), "s", DataTypes.STRING()).asc("s").first().backend("rocksdb")
                .random(150, new Object[] {null, 1, 2, 3}, STRINGS, 0);
    }

    Scenario top1Doubles() {
        return keyed("top1_doubles",
                "append top-1 by a DOUBLE DESC NULLS FIRST: -0.0 and 0.0 tie in Flink's"
                        + " comparator (the kept row's value stays), infinities, no NaN",
                DataTypes.STRING(), "d", DataTypes.DOUBLE()).order("d", false, false).first()
                .trace(new Object[][] {
                    {"z", -0.0},
                    {"z", 0.0},   // tie: -0.0 stays
                    {"y", 0.0},
                    {"y", -0.0},  // tie
                    {"y", Double.MIN_VALUE},
                    {"x", 1.0},
                    {"x", null},  // NULLS FIRST: better
                    {"x", Double.POSITIVE_INFINITY},
                })
                .random(122, new Object[] {"a", "b", "c", null}, DOUBLES, 0);
    }

    Scenario top1MultiField() {
        return new Scenario("top1_multi_field",
                "append top-1 by (a ASC, b DESC NULLS FIRST) partitioned by (p, q) with NULLs,"
                        + " on RocksDB; no -U (Flink 2.3.0 declares a top-1 on two sort keys"
                        + " insert-only)")
                .column("p", DataTypes.INT())
                .column("q", DataTypes.STRING())
                .column("a", DataTypes.INT())
                .column("b", DataTypes.BIGINT())
                .column("id", DataTypes.INT())
                .partition("q", "p")
                .asc("a")
                .order("b", false, false)
                .first()
                .backend("rocksdb")
                .random(160, (r, n) -> new Object[] {
                    pick(r, new Object[] {null, 1, 2}), pick(r, new Object[] {null, "", "x"}),
                    pickOrNull(r, new Object[] {5, 4, 3}, 5),
                    pickOrNull(r, new Object[] {0L, 1L, 2L}, 5), n
                });
    }

    Scenario top1Global() {
        return new Scenario("top1_global",
                "append top-1 without PARTITION BY (one key for all rows) by a BIGINT DESC")
                .column("l", DataTypes.BIGINT())
                .column("s", DataTypes.STRING())
                .desc("l")
                .first()
                .random(100, (r, n) -> new Object[] {
                    n % 7 == 6 ? (long) n * 1_000 : pickOrNull(r, BIGINTS, 4), pick(r, STRINGS)
                });
    }

    Scenario top1Timestamps() {
        return keyed("top1_timestamps",
                "append top-1 by a TIMESTAMP(3) ASC (not a time attribute): before 1970, at"
                        + " the epoch, one millisecond apart, year 1000 and 9999; no -U (declared"
                        + " insert-only)",
                DataTypes.STRING(), "t", DataTypes.TIMESTAMP(3)).asc("t").first()
                .random(100, new Object[] {"a", "b", null}, TIMESTAMPS, 0);
    }

    Scenario top1Ttl() {
        return kvi("top1_ttl",
                "append top-1 by v DESC with a state TTL of 1 h (nothing expires within the run)",
                "rocksdb", false).desc("v").first().ttl(HOUR_MS)
                .random(90, new Object[] {"a", "b", null}, INTS, 5);
    }

    // ------------------------------------------------------------- append top-N

    /** Rows of (k, v, id) exercising a top-3 by v DESC: fill, evict, ties, rejects. */
    static Scenario topNTrace(Scenario s) {
        Object nullKey = s.upsert ? "n" : null;
        return s.trace(new Object[][] {
            {"a", 10},
            {"a", 20},
            {"a", 30},    // full: 30, 20, 10
            {"a", 5},     // below the last: rejected
            {"a", 10},    // ties the last on a full buffer: rejected
            {"a", 25},    // enters at rank 2, 10 leaves
            {"a", 30},    // ties the first: ranks after it, 20 leaves
            {"a", 40},    // rank 1, everything moves, 25 leaves
            {"a", 30},    // ties ranks 2 and 3: after them, i.e. beyond rank 3
            {"b", 1},     // a partition with fewer rows than N
            {"b", 1},     // tie, not full: enters after the first
            {"b", null},  // NULL sorts last (DESC): rank 3
            {"b", null},  // ties the last on a full buffer
            {"b", 2},     // rank 1, the NULL leaves
            {nullKey, 0}, {nullKey, Integer.MAX_VALUE}, {nullKey, Integer.MIN_VALUE},
            {nullKey, Integer.MIN_VALUE}, {nullKey, 0},
        }).random(150, new Object[] {"a", "b", "c", nullKey}, new Object[] {0, 1, 2, 3, 4, 50},
                7);
    }

    Scenario topNTraced(String name, String backend, boolean rowNumber, boolean upsert) {
        return topNTrace(kvi(name,
                "append top-3 by v DESC, traced: fill, evict, a tie on a full buffer rejected,"
                        + " ties ranked in arrival order, NULL last, fewer rows than N"
                        + (rowNumber ? ", with rn (every moved rank updated)"
                                : ", without rn (+I of the entering row, -D of the leaving one)")
                        + (upsert ? ", no -U" : ""),
                backend, upsert).desc("v").top(3).rowNumber(rowNumber));
    }

    Scenario offsetTraced(String name, String backend, boolean rowNumber) {
        return topNTrace(kvi(name,
                "append top-N with an offset (rn BETWEEN 2 AND 4) by v DESC, traced: the"
                        + " with-row-number algorithm whether or not rn is in the output; rank 1"
                        + " is not emitted" + variant(rowNumber, false),
                backend, false).desc("v").between(2, 4).rowNumber(rowNumber));
    }

    Scenario topNRandom(String name, String backend, boolean rowNumber) {
        Object[] keys = keys(KEYS, 12);
        return new Scenario(name,
                "append top-5 by (v DESC) over 250 random rows, STRING partition keys (NULL,"
                        + " empty, Unicode, NUL) and NULL-heavy values of every type"
                        + variant(rowNumber, false))
                .column("k", DataTypes.STRING())
                .column("v", DataTypes.INT())
                .column("l", DataTypes.BIGINT())
                .column("d", DataTypes.DOUBLE())
                .column("m", DataTypes.DECIMAL(10, 2))
                .column("s", DataTypes.STRING())
                .partition("k")
                .desc("v")
                .top(5)
                .rowNumber(rowNumber)
                .backend(backend)
                .random(250, (r, n) -> new Object[] {
                    pick(r, keys), pickOrNull(r, INTS, 6), pickOrNull(r, BIGINTS, 3),
                    pickOrNull(r, DOUBLES, 3), pickOrNull(r, DECIMALS, 3),
                    pickOrNull(r, STRINGS, 3)
                });
    }

    Scenario offsetRandom(String name, String backend, boolean rowNumber, boolean upsert) {
        Object[] keys = upsert ? new Object[] {"a", "b", "c", "d", "e"}
                : new Object[] {"a", "b", "c", "d", null};
        return kvi(name,
                "append top-N with an offset (rn BETWEEN 3 AND 5) by v ASC over random rows"
                        + variant(rowNumber, upsert),
                backend, upsert).asc("v").between(3, 5).rowNumber(rowNumber)
                .random(200, (r, n) -> new Object[] {pick(r, keys), 100 - n + r.nextInt(60), n});
    }

    Scenario ties(String name, String backend, boolean rowNumber) {
        return kvi(name,
                "append top-3 by v DESC where most sort keys tie (v in {1, 2} and NULL): ties"
                        + " rank in arrival order, a tie with the last rank on a full buffer is"
                        + " rejected" + variant(rowNumber, false),
                backend, false).desc("v").top(3).rowNumber(rowNumber)
                .random(180, new Object[] {"a", "b", null}, new Object[] {1, 1, 1, 2}, 8);
    }

    Scenario nullOrder(String name, boolean ascending, boolean nullsLast) {
        return kvi(name,
                "append top-3 by v " + (ascending ? "ASC" : "DESC") + " NULLS "
                        + (nullsLast ? "LAST" : "FIRST") + " (against the default) over NULL-heavy"
                        + " INT sort keys, with rn",
                ascending ? "rocksdb" : "hashmap", false)
                .order("v", ascending, nullsLast).top(3).rowNumber()
                .random(150, new Object[] {"a", "b", "c", null}, INTS, 3);
    }

    Scenario multiField() {
        return new Scenario("multi_field",
                "append top-4 by (a ASC, s DESC NULLS LAST, d ASC) with many ties on a, with rn")
                .column("k", DataTypes.INT())
                .column("a", DataTypes.INT())
                .column("s", DataTypes.STRING())
                .column("d", DataTypes.DOUBLE())
                .column("id", DataTypes.INT())
                .partition("k")
                .asc("a")
                .order("s", false, true)
                .asc("d")
                .top(4)
                .rowNumber()
                .random(200, (r, n) -> new Object[] {
                    pick(r, new Object[] {1, 2, null}), pickOrNull(r, new Object[] {1, 2}, 6),
                    pick(r, new Object[] {null, "", "a", "ä", "b"}),
                    pick(r, new Object[] {null, 0.0, 1.0, -2.5}), n
                });
    }

    Scenario bigints() {
        return keyed("bigints",
                "append top-3 by a BIGINT DESC with its extremes, without rn, on RocksDB",
                DataTypes.STRING(), "l", DataTypes.BIGINT()).desc("l").top(3).backend("rocksdb")
                .random(150, (r, n) -> new Object[] {
                    pick(r, new Object[] {"a", "b", "c"}),
                    r.nextInt(3) == 0 ? (long) r.nextInt(1000) : pick(r, BIGINTS), n
                });
    }

    Scenario doubles() {
        return keyed("doubles",
                "append top-3 by a DOUBLE ASC without rn: -0.0 and 0.0 tie (rank in arrival"
                        + " order, each row keeps its own zero), infinities, the smallest"
                        + " subnormal, no NaN",
                DataTypes.STRING(), "d", DataTypes.DOUBLE()).asc("d").top(3)
                .trace(new Object[][] {
                    {"z", 0.0}, {"z", -0.0}, {"z", 0.0},
                    {"z", -0.0},  // ties the last on a full buffer
                    {"z", -1.0E-300}, {"z", -0.0},
                })
                .random(154, new Object[] {"a", "b", null}, DOUBLES, 0);
    }

    /**
     * With rn, DOUBLE sort keys without -0.0: Flink 2.3.0's with-row-number algorithm
     * ({@code AppendOnlyTopNHelper.processElementWithRowNumber}) finds the new row's entry by
     * {@code equals} on the sort key's bytes, so a -0.0 arriving at a buffered 0.0 (equal in
     * the comparator) is never found and the job fails on a NULL row.
     */
    Scenario doublesRowNumber() {
        List<Object> pool = new ArrayList<>(Arrays.asList(DOUBLES));
        pool.removeIf(d -> d != null && Double.doubleToRawLongBits((Double) d)
                == Double.doubleToRawLongBits(-0.0));
        return keyed("doubles_rn",
                "append top-3 by a DOUBLE DESC with rn: infinities, the smallest subnormal, ties"
                        + " of equal bits (no -0.0: Flink fails on it with rn, see the generator;"
                        + " no NaN), on RocksDB",
                DataTypes.STRING(), "d", DataTypes.DOUBLE()).desc("d").top(3).rowNumber()
                .backend("rocksdb")
                .random(160, new Object[] {"a", "b", null}, pool.toArray(), 0);
    }

    Scenario decimals() {
        return keyed("decimals",
                "append top-3 by a DECIMAL(10, 2) DESC (compact decimals), without rn",
                DataTypes.STRING(), "m", DataTypes.DECIMAL(10, 2)).desc("m").top(3)
                .random(150, new Object[] {"a", "b", null}, DECIMALS, 0);
    }

    Scenario wideDecimals() {
        return keyed("wide_decimals",
                "append top-2 by a DECIMAL(38, 18) ASC (non-compact decimals), with rn, on"
                        + " RocksDB",
                DataTypes.INT(), "m", DataTypes.DECIMAL(38, 18)).asc("m").top(2).rowNumber()
                .backend("rocksdb")
                .random(120, new Object[] {1, 2, null}, WIDE_DECIMALS, 0);
    }

    Scenario strings() {
        return keyed("strings",
                "append top-4 by a STRING DESC (UTF-8 byte order: a combining accent, U+2028,"
                        + " NUL, emoji, empty), with rn",
                DataTypes.STRING(), "s", DataTypes.STRING()).desc("s").top(4).rowNumber()
                .random(180, new Object[] {"a", "b", "größer 🦀"}, STRINGS, 0);
    }

    Scenario timestamps() {
        return keyed("timestamps",
                "append top-3 by a TIMESTAMP(3) DESC (not a time attribute), without rn, on"
                        + " RocksDB",
                DataTypes.INT(), "t", DataTypes.TIMESTAMP(3)).desc("t").top(3).backend("rocksdb")
                .random(150, (r, n) -> {
                    Object t = r.nextInt(3) == 0 ? BASE.plusNanos(r.nextInt(50) * 1_000_000L)
                            : pick(r, TIMESTAMPS);
                    return new Object[] {pick(r, new Object[] {1, 2, null}), t, n};
                });
    }

    Scenario nullPartition() {
        return new Scenario("null_partition",
                "append top-2 partitioned by an INT whose NULL is a key of its own, by a BIGINT"
                        + " DESC, with rn")
                .column("k", DataTypes.INT())
                .column("l", DataTypes.BIGINT())
                .partition("k")
                .desc("l")
                .top(2)
                .rowNumber()
                .random(120, (r, n) -> new Object[] {
                    pick(r, new Object[] {null, 0, Integer.MIN_VALUE}), (long) r.nextInt(40)
                });
    }

    Scenario multiPartition() {
        return new Scenario("multi_partition",
                "append top-2 PARTITION BY s, k (the node keys by (k, s), the columns' order)"
                        + " with NULLs and Unicode in either, by v DESC, without rn, on RocksDB")
                .column("k", DataTypes.INT())
                .column("v", DataTypes.INT())
                .column("s", DataTypes.STRING())
                .partition("s", "k")
                .desc("v")
                .top(2)
                .backend("rocksdb")
                .random(160, (r, n) -> new Object[] {
                    pick(r, new Object[] {null, 1, 2}), r.nextInt(30),
                    pick(r, new Object[] {null, "", "日本語", "ǅ"})
                });
    }

    Scenario global(String name, String backend, boolean rowNumber, boolean upsert) {
        return new Scenario(name,
                "append top-5 without PARTITION BY (one key for all rows) by (v DESC, id ASC)"
                        + variant(rowNumber, upsert))
                .column("v", DataTypes.INT())
                .column("id", DataTypes.INT())
                .column("s", DataTypes.STRING())
                .desc("v")
                .asc("id")
                .top(5)
                .rowNumber(rowNumber)
                .upsert(upsert)
                .backend(backend)
                .random(150, (r, n) -> new Object[] {
                    pickOrNull(r, new Object[] {n / 3, n / 2, 10, 0}, 9), r.nextInt(100),
                    pick(r, STRINGS)
                });
    }

    Scenario lessThan() {
        return kvi("less_than",
                "append top-N written rn < 4 (the range 1..3) by v ASC, with rn", "hashmap", false)
                .asc("v").lessThan(4).rowNumber()
                .random(120, new Object[] {"a", "b"}, INTS, 6);
    }

    Scenario topNTtl(String name, String backend) {
        return kvi(name,
                "append top-3 by v DESC with a state TTL of 1 h (nothing expires within the run),"
                        + " with rn",
                backend, false).desc("v").top(3).rowNumber().ttl(HOUR_MS)
                .random(120, new Object[] {"a", "b", "c", null}, INTS, 5);
    }

    Scenario rowtime() {
        Scenario s = new Scenario("rowtime_desc",
                "append top-3 by the rowtime attribute ts DESC (a Top-N, not a deduplication:"
                        + " the range is 1..3), watermarks between the rows (the node ignores"
                        + " them), with rn")
                .column("k", DataTypes.STRING())
                .column("v", DataTypes.BIGINT())
                .column("ts", DataTypes.TIMESTAMP(3).notNull())
                .partition("k")
                .desc("ts")
                .top(3)
                .rowNumber();
        s.rowtime = true;
        long max = 0;
        for (int n = 0; n < 120; n++) {
            long at = 1_000 + 10L * n - s.rnd.nextInt(80);
            s.row(pick(s.rnd, new Object[] {"a", "b", null}), pickOrNull(s.rnd, BIGINTS, 4),
                    BASE.plusNanos(at * 1_000_000L));
            max = Math.max(max, at);
            if (n % 8 == 7 && BASE_MS + max - 50 > s.lastWatermark) {
                s.watermark(max - 50);
            }
        }
        return s;
    }

    // ----------------------------------------------------------------- first-N

    Scenario firstN(String name, String backend, boolean rowNumber, long start, boolean upsert) {
        long end = start + 2;
        Scenario s = kvi(name,
                "first-N (ORDER BY pt ASC on PROCTIME(), rn "
                        + (start == 1 ? "<= 3" : "BETWEEN " + start + " AND " + end)
                        + "): each key's first rows in arrival order, nothing after"
                        + variant(rowNumber, upsert),
                backend, upsert).proctimeColumn().asc("pt").select("k", "v", "id")
                .rowNumber(rowNumber);
        Object[] keys = upsert ? new Object[] {"a", "b", "c", "größer 🦀", ""}
                : new Object[] {"a", "b", null, "größer 🦀", ""};
        return (start == 1 ? s.top(end) : s.between(start, end)).random(100, keys, INTS, 4);
    }

    Scenario firstNGlobal() {
        return new Scenario("firstn_global",
                "first-N without PARTITION BY (rn <= 4 by pt): the first four rows of the"
                        + " stream, with rn, on RocksDB")
                .column("v", DataTypes.INT())
                .column("s", DataTypes.STRING())
                .proctimeColumn()
                .asc("pt")
                .select("v", "s")
                .top(4)
                .rowNumber()
                .backend("rocksdb")
                .random(30, (r, n) -> new Object[] {n, pick(r, STRINGS)});
    }

    // ---------------------------------------------------------- updating inputs

    Scenario retract(String name, String backend, long n, boolean rowNumber, boolean upsert) {
        Scenario s = new Scenario(name,
                "retract strategy (RetractableTopNFunction): top-" + n + " by v DESC over a"
                        + " changelog without a key (+I, -U/+U pairs, -D of rows inserted"
                        + " before)" + variant(rowNumber, upsert))
                .column("k", upsert ? DataTypes.STRING().notNull() : DataTypes.STRING())
                .column("id", DataTypes.INT())
                .column("v", DataTypes.INT())
                .partition("k")
                .desc("v")
                .changelog()
                .rank(n)
                .rowNumber(rowNumber)
                .upsert(upsert)
                .backend(backend);
        Object[] keys = upsert ? new Object[] {"a", "b", "c"} : new Object[] {"a", "b", null};
        Object[] values = {0, 1, 2, 3, 4, 5, 6, 7};
        // The live rows, (k, id) -> v: only those are updated or deleted.
        Map<List<Object>, Object> live = new LinkedHashMap<>();
        int id = 0;
        for (int step = 0; step < 160; step++) {
            int dice = s.rnd.nextInt(10);
            if (live.isEmpty() || dice < 5) {
                Object k = pick(s.rnd, keys);
                Object v = pickOrNull(s.rnd, values, 8);
                s.kindRow(RowKind.INSERT, k, id, v);
                live.put(Arrays.asList(k, id), v);
                id++;
                continue;
            }
            List<List<Object>> rows = new ArrayList<>(live.keySet());
            List<Object> row = rows.get(s.rnd.nextInt(rows.size()));
            Object v = live.get(row);
            if (dice < 8) {
                Object next = pickOrNull(s.rnd, values, 8);
                s.kindRow(RowKind.UPDATE_BEFORE, row.get(0), row.get(1), v);
                s.kindRow(RowKind.UPDATE_AFTER, row.get(0), row.get(1), next);
                live.put(row, next);
            } else {
                s.kindRow(RowKind.DELETE, row.get(0), row.get(1), v);
                live.remove(row);
            }
        }
        return s;
    }

    Scenario updateFast(String name, String backend, String function, long n,
            boolean rowNumber) {
        return updateFast(name, backend, function, 1, n, rowNumber, false, 150, 8);
    }

    /**
     * An update-fast scenario: ranks {@code start..end} by c over {@code SELECT g, k,
     * function(..) AS c .. GROUP BY g, k} of {@code rows} random rows with {@code ks} values
     * of k; c is COUNT(*) or MAX(v) ordered DESC (they only grow), or MIN(v) ordered ASC (it
     * only falls). The first non-NULL MIN moves its group from the NULL it had, which sorts
     * first, to a later rank: the move Flink's lenient path takes.
     */
    Scenario updateFast(String name, String backend, String function, long start, long end,
            boolean rowNumber, boolean upsert, int rows, int ks) {
        boolean count = function.equals("COUNT");
        boolean ascending = function.equals("MIN");
        Scenario s = new Scenario(name,
                "update-fast strategy (" + (end == 1 ? "FastTop1Function" : "UpdatableTopNFunction")
                        + "): " + (start == 1 ? "top-" + end : "ranks " + start + ".." + end)
                        + " by c " + (ascending ? "ASC" : "DESC") + " over SELECT g, k, "
                        + function + (count ? "(*)" : "(v)") + " AS c ... GROUP BY g, k (unique"
                        + " key (g, k) holds the partition key g, c only "
                        + (ascending ? "falls" : "grows") + "; the aggregate emits +I/+U"
                        + " without -U)" + variant(rowNumber, upsert))
                .column("g", upsert ? DataTypes.STRING().notNull() : DataTypes.STRING())
                .column("k", DataTypes.INT())
                .column("v", DataTypes.BIGINT())
                .aggregate(function, count ? null : "v", "g", "k")
                .partition("g");
        s = ascending ? s.asc("c") : s.desc("c");
        s = start == 1 ? s.rank(end) : s.between(start, end);
        Object[] groups = upsert ? new Object[] {"a", "b", "c"} : new Object[] {"a", "b", null};
        return s.rowNumber(rowNumber)
                .upsert(upsert)
                .backend(backend)
                .random(rows, (r, i) -> new Object[] {
                    pick(r, groups), r.nextInt(ks),
                    count ? (long) i : pickOrNull(r, new Object[] {1L, 5L, 9L, 30L}, 4)
                });
    }
}
