package org.streamfusion.golden;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.AbstractUdfStreamOperator;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;

import org.streamfusion.flink.StreamFusionPlanner;

/**
 * Golden changelogs of streaming OVER aggregation in event time ({@code
 * StreamExecOverAggregate}: {@code agg OVER ([PARTITION BY ..] ORDER BY ts ROWS|RANGE BETWEEN
 * .. PRECEDING AND CURRENT ROW)}), produced by Flink SQL on the released Flink 2.3.0 jars: each
 * scenario's rows go through {@code SELECT <every column>, agg OVER w AS o0, .. FROM src WINDOW w
 * AS (..)} in a MiniCluster at parallelism 1 under the scenario's keyed state backend and
 * options, and the changelog the OVER node emits is recorded. The native OVER operator is
 * tested against them ({@code crates/streamfusion/tests/it/over_flink.rs}).
 *
 * <p>The kinds and their functions in 2.3.0 ({@code StreamExecOverAggregate}), all on the
 * rowtime attribute {@code ts}: "rows bounded" ({@code ROWS BETWEEN n PRECEDING AND CURRENT
 * ROW}, {@code RowTimeRowsBoundedPrecedingFunction}), "range bounded" ({@code RANGE BETWEEN
 * INTERVAL .. PRECEDING AND CURRENT ROW}, {@code RowTimeRangeBoundedPrecedingFunction}), "rows
 * unbounded" and "range unbounded" ({@code .. BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW},
 * {@code RowTimeUnboundedPrecedingOverFunctionV2}, {@code table.exec.unbounded-over.version} 2
 * being the default). The program checks each scenario's node (the frame: {@code isRows}, the
 * bounds and the preceding constant; the order field, the partition keys, the aggregate calls
 * as the planner rewrote them, {@code unboundedOverVersion} 2, the state TTL in the options) and
 * the function Flink instantiated for it. The bounded functions drop a row whose rowtime is not
 * after the key's last fired timer (0 before the first, so a rowtime at or before the epoch is
 * dropped too) and process a row behind the watermark but after that at the next watermark; the
 * unbounded one drops a row at or behind the current watermark. A RANGE bounded function
 * registers a cleanup timer 1.5 times the range after a row, which clears the key's state and
 * its last fired time when it fires after no newer row moved it; a cleanup timer that fires
 * after newer rows moved it still sets the last fired time.
 *
 * <p>What is recorded is the OVER node's own output: its input row, then one column per
 * aggregate call ({@code w0$o0, ..}), as the node emits it. A {@code SUM} is planned as {@code
 * COUNT} and {@code $SUM0} with a Calc after the node ({@code CASE WHEN COUNT > 0 THEN $SUM0
 * ELSE NULL}), which the query runs but the file does not record: the output lines are read at
 * the node's transformation. Every row is inserted ({@code +I}).
 *
 * <p>Rows enter from {@code fromData} at parallelism 1 with punctuated watermarks (emitted
 * after the rows the scenario names, none periodically), taken by the table with {@code
 * SOURCE_WATERMARK()} on the physical column {@code ts}, as {@link DedupVectors} schedules them,
 * so rows and watermarks reach the node in one fixed order; the end of input is {@code
 * Long.MAX_VALUE}.
 *
 * <p>Each scenario's node description is what {@link StreamFusionPlanner} hands to {@code
 * NativeOperator.planFromFlink}, taken from its recorded decision: {@code streamfusion.enabled}
 * is on while the job is planned, and the native library is pointed at a path that does not
 * exist, so every node is refused (a LinkageError) and the job runs stock. Node ids restart for
 * every scenario. The scenarios of one backend run in one job, each a pipeline of its own
 * (source, query, conversion) planned under its own options.
 *
 * <p>Usage: {@code OverVectors <output path> [scenario..]} (all scenarios when none are named),
 * on the planner classpath ({@code classpath-planner.txt}). Output is JSON Lines (UTF-8, LF):
 *
 * <ul>
 *   <li>line 1: {@code {"flink":"2.3.0","seed":..,"generator":..,"format":..}};
 *   <li>per scenario, a header {@code {"scenario":name,"description":..,"kind":"rows bounded"|
 *       "range bounded"|"rows unbounded"|"range unbounded","frame":..,"preceding":n|null,
 *       "function":<Flink's function class>,"backend":"hashmap"|"rocksdb","state_ttl_ms":ms|null,
 *       "node":<description text>,"config":<options text>,"input":[{"name":..,"type":..
 *       [,"time":"rowtime"]}..],"output":[{"name":..,"type":..}..],"output_columns":[..],
 *       "output_keys":[..],"sql":..,"plan":..,"events_in":n,"rows_out":m}}: {@code frame} is
 *       the lower bound as SQL writes it ({@code ROWS 2 PRECEDING}, {@code RANGE INTERVAL '1'
 *       SECOND PRECEDING}, {@code ROWS UNBOUNDED PRECEDING}), {@code preceding} the bound's
 *       rows or milliseconds; {@code node} and {@code config} are the exact texts the planner
 *       made ({@code flink::plan_node}'s two arguments); {@code input} is the node's input row;
 *       {@code output} are the node's output columns (the input row, then the calls), so
 *       {@code output_columns} is {@code [0, 1, ..]}; {@code output_keys} are the partition
 *       key columns (none without PARTITION BY); {@code plan} is the job's operators in order;
 *   <li>then n events in the order the node receives them: {@code {"in":"+I","row":[..]}} and
 *       {@code {"watermark":ms}} (the source's watermarks, and {@code Long.MAX_VALUE} at the end
 *       of input);
 *   <li>then m lines {@code {"out":"+I","row":[..]}} in the order the node emitted them
 *       (across keys, timers of one time fire in the backend's order).
 * </ul>
 *
 * <p>Values as {@link DedupVectors} writes them. DOUBLE arguments are dyadic (0.5, 1.25, ..),
 * so their sums do not depend on the order of additions. Every scenario's random rows come from
 * {@link #SEED} and its name (without {@code _rocksdb}: a scenario run on both backends has the
 * same rows on both), so two runs write byte-identical files.
 */
public final class OverVectors extends NodeVectors<OverVectors.Scenario> {
    /** Published seed (the project's). */
    public static final long SEED = GroupAggVectors.SEED;

    static final String NODE_TYPE = "stream-exec-over-aggregate_1";
    static final long HOUR_MS = 3_600_000L;

    OverVectors() {
        super("frame, preceding, function, backend", NODE_TYPE, "over", "over-vectors-");
    }

    /** The frame kinds, as the header names them, and Flink's function for each. */
    enum Kind {
        ROWS_BOUNDED("rows bounded", "RowTimeRowsBoundedPrecedingFunction"),
        RANGE_BOUNDED("range bounded", "RowTimeRangeBoundedPrecedingFunction"),
        ROWS_UNBOUNDED("rows unbounded", "RowTimeUnboundedPrecedingOverFunctionV2"),
        RANGE_UNBOUNDED("range unbounded", "RowTimeUnboundedPrecedingOverFunctionV2");

        final String text;
        final String function;

        Kind(String text, String function) {
            this.text = text;
            this.function = function;
        }

        boolean rows() {
            return this == ROWS_BOUNDED || this == ROWS_UNBOUNDED;
        }

        boolean bounded() {
            return this == ROWS_BOUNDED || this == RANGE_BOUNDED;
        }
    }

    /**
     * A frame from its lower bound to CURRENT ROW: {@code preceding} rows (ROWS) or
     * milliseconds (RANGE, written {@code interval} in SQL), or unbounded.
     */
    record Frame(Kind kind, long preceding, String interval) {
        static Frame rows(long n) {
            return new Frame(Kind.ROWS_BOUNDED, n, null);
        }

        /** {@code RANGE BETWEEN INTERVAL '<seconds>' SECOND PRECEDING}, of {@code ms}. */
        static Frame range(String seconds, long ms) {
            return new Frame(Kind.RANGE_BOUNDED, ms, "INTERVAL '" + seconds + "' SECOND");
        }

        static Frame rowsUnbounded() {
            return new Frame(Kind.ROWS_UNBOUNDED, -1, null);
        }

        static Frame rangeUnbounded() {
            return new Frame(Kind.RANGE_UNBOUNDED, -1, null);
        }

        /** The lower bound as SQL writes it. */
        String bound() {
            return (kind.rows() ? "ROWS " : "RANGE ")
                    + (!kind.bounded() ? "UNBOUNDED" : kind.rows() ? Long.toString(preceding)
                            : interval)
                    + " PRECEDING";
        }

        String sql() {
            return bound().replaceFirst(" ", " BETWEEN ") + " AND CURRENT ROW";
        }
    }

    static final class Scenario extends NodeVectors.RowtimeScenario<Scenario> {
        final Frame frame;
        final List<String> partition = new ArrayList<>();
        /** The OVER aggregates as the query writes them. */
        final List<String> aggregates = new ArrayList<>();

        Scenario(String name, String description, Frame frame) {
            super(name, description);
            this.frame = frame;
        }

        Scenario partition(String... names) {
            partition.addAll(Arrays.asList(names));
            return this;
        }

        /** {@code sql OVER w} in the output. */
        Scenario over(String... sql) {
            aggregates.addAll(Arrays.asList(sql));
            return this;
        }

        Scenario ltz() {
            this.ltz = true;
            return this;
        }

        @Override
        String kind() {
            return frame.kind().text;
        }

        /** The query's output: every column, then {@code o0, o1, ..}. */
        @Override
        List<String> outputNames() {
            List<String> names = super.outputNames();
            for (int i = 0; i < aggregates.size(); i++) {
                names.add("o" + i);
            }
            return names;
        }

        /**
         * The type of a column; the query's aggregates have none here: the file records the
         * node's output, whose types {@link OverVectors#output} reads from Flink.
         */
        @Override
        String type(String name) {
            return name.matches("o\\d+") ? "(the node's)" : super.type(name);
        }

        @Override
        List<String> primaryKey() {
            return partition;
        }

        @Override
        String sql(String view) {
            StringBuilder s = new StringBuilder("SELECT ");
            for (int i = 0; i < columns.size(); i++) {
                s.append(i == 0 ? "" : ", ").append('`').append(columns.get(i).name()).append('`');
            }
            for (int i = 0; i < aggregates.size(); i++) {
                s.append(", ").append(aggregates.get(i)).append(" OVER w AS `o").append(i)
                        .append('`');
            }
            s.append(" FROM ").append(view).append(" WINDOW w AS (");
            if (!partition.isEmpty()) {
                s.append("PARTITION BY ");
                for (int i = 0; i < partition.size(); i++) {
                    s.append(i == 0 ? "" : ", ").append('`').append(partition.get(i)).append('`');
                }
                s.append(' ');
            }
            return s.append("ORDER BY `ts` ").append(frame.sql()).append(')').toString();
        }

        /**
         * The node's calls as its description names them: each aggregate, a {@code SUM(x)} as
         * {@code COUNT(x)} and {@code $SUM0(x)} (Calcite's rewrite of a SUM over a window that is
         * never empty) and so an {@code AVG(x)} (which Calcite expands to {@code SUM(x) /
         * COUNT(x)}), each call once, in their order.
         */
        List<String> calls() {
            List<String> calls = new ArrayList<>();
            for (String a : aggregates) {
                List<String> planned = new ArrayList<>();
                if (a.startsWith("SUM(") || a.startsWith("AVG(")) {
                    String arg = a.substring(4);
                    planned.add("COUNT(" + arg);
                    planned.add("$SUM0(" + arg);
                } else {
                    planned.add(a);
                }
                for (String c : planned) {
                    c = c.replace("`", "");
                    if (!calls.contains(c)) {
                        calls.add(c);
                    }
                }
            }
            return calls;
        }

        /**
         * Whether the query has a SUM or an AVG, which the planner computes in a Calc after the
         * node.
         */
        boolean sums() {
            return aggregates.stream().anyMatch(a -> a.startsWith("SUM(") || a.startsWith("AVG("));
        }
    }

    public static void main(String[] args) throws Exception {
        new OverVectors().generate(args);
    }

    @Override
    boolean expectedPlan(Scenario s, String plan) {
        int over = plan.indexOf("OverAggregate(");
        int calc = plan.indexOf("Calc(");
        return over >= 0 && plan.indexOf("OverAggregate(", over + 1) < 0
                && (s.sums() ? calc > over : calc < 0);
    }

    @Override
    void header(Scenario s, StringBuilder out) {
        out.append(",\"frame\":");
        Json.string(out, s.frame.bound());
        out.append(",\"preceding\":")
                .append(s.frame.kind().bounded() ? Long.toString(s.frame.preceding()) : "null")
                .append(",\"function\":");
        Json.string(out, s.frame.kind().function);
        out.append(",\"backend\":");
        Json.string(out, s.backend);
    }

    /** The OVER node has no state metadata: its TTL is the session's, in the options. */
    @Override
    void state(Scenario s, Node found, JsonNode node, List<String> problems) {
        if (node.has("state")) {
            problems.add("state " + node.get("state"));
        }
        try {
            String ttl = JSON.readTree(found.config).path("table.exec.state.ttl").asText();
            if (!ttl.equals(s.ttlMs + " ms")) {
                problems.add("table.exec.state.ttl " + ttl);
            }
        } catch (IOException e) {
            problems.add("options " + found.config + ": " + e);
        }
    }

    /**
     * The one OVER node of the scenario's decisions, checked against what the scenario asks
     * for: the frame, the order, the partition keys, the calls, the version and the input.
     */
    @Override
    Node node(Scenario s) throws IOException {
        StreamFusionPlanner.Decision d = decision(s, NODE_TYPE, what, true);
        Node found = new Node(d.description, d.config);
        List<String> problems = new ArrayList<>();
        List<String> calls = s.calls();
        JsonNode node = readNode(s, found, calls.size(), problems);
        if (!found.fields.equals(s.inputNames())) {
            problems.add("input fields " + found.fields);
        }
        JsonNode over = node.path("overSpec");
        readKeys(over.path("partition").path("fields"), found, s.partition, "partition keys",
                problems);
        expect(problems, node, "unboundedOverVersion", "2");
        JsonNode groups = over.path("groups");
        if (groups.size() != 1) {
            problems.add("groups " + groups);
        } else {
            JsonNode group = groups.get(0);
            JsonNode order = group.path("orderBy").path("fields");
            int time = order.path(0).path("index").asInt(-1);
            if (order.size() != 1 || time < 0 || time >= found.fields.size()
                    || !found.fields.get(time).equals("ts")
                    || !order.get(0).path("isAscending").asBoolean()) {
                problems.add("orderBy " + order);
            }
            expect(problems, group, "isRows", Boolean.toString(s.frame.kind().rows()));
            expect(problems, group.path("upperBound"), "kind", "CURRENT_ROW");
            JsonNode lower = group.path("lowerBound");
            if (s.frame.kind().bounded()) {
                expect(problems, lower, "kind", "BOUNDED_WINDOW");
                expect(problems, lower, "isPreceding", "true");
                int constant = lower.path("offset").path("inputIndex").asInt(-1)
                        - over.path("originalInputFields").asInt();
                JsonNode value = over.path("constants").path(constant).path("value");
                if (!value.asText().equals(Long.toString(s.frame.preceding()))) {
                    problems.add("lower bound " + lower + " of " + over.path("constants"));
                }
            } else {
                expect(problems, lower, "kind", "UNBOUNDED_PRECEDING");
            }
            if (group.path("aggCalls").size() != calls.size()) {
                problems.add("aggCalls " + group.path("aggCalls"));
            }
        }
        List<String> described = describedCalls(node.path("description").asText(),
                found.fields.size());
        if (!described.equals(calls)) {
            problems.add("calls " + described + ", not " + calls);
        }
        fits(s, found, problems);
        return found;
    }

    /**
     * The calls of an OVER node's description, {@code OverAggregate(.., select=[k, v, ts,
     * COUNT(v) AS w0$o0, ..])}: the items after the {@code fields} input fields, without their
     * names.
     */
    static List<String> describedCalls(String description, int fields) {
        int at = description.indexOf("select=[");
        List<String> items = new ArrayList<>();
        if (at < 0) {
            return items;
        }
        int depth = 0;
        StringBuilder item = new StringBuilder();
        for (int i = at + "select=[".length(); i < description.length(); i++) {
            char ch = description.charAt(i);
            if (depth == 0 && (ch == ',' || ch == ']')) {
                items.add(item.toString().trim().replaceFirst(" AS w\\d+\\$o\\d+$", ""));
                item.setLength(0);
                if (ch == ']') {
                    break;
                }
                continue;
            }
            depth += ch == '(' || ch == '[' ? 1 : ch == ')' || ch == ']' ? -1 : 0;
            item.append(ch);
        }
        return items.subList(Math.min(fields, items.size()), items.size());
    }

    /**
     * The OVER node's own output, read at its transformation (the query's Calc after it, if
     * any, is not recorded): its columns become the scenario's output, and the function Flink
     * instantiated must be the frame's.
     */
    @Override
    DataStream<String> output(Planned<Scenario> p, DataStream<Row> changes, int index) {
        Scenario s = p.scenario;
        OneInputTransformation<?, ?> over = overTransformation(s, changes.getTransformation());
        Object operator = ((SimpleOperatorFactory<?>) over.getOperatorFactory()).getOperator();
        String function = ((AbstractUdfStreamOperator<?, ?>) operator).getUserFunction()
                .getClass().getSimpleName();
        if (!function.equals(s.frame.kind().function)) {
            throw new IllegalStateException(s.name + ": Flink runs " + function + ", not "
                    + s.frame.kind().function);
        }
        RowType type = ((InternalTypeInfo<?>) over.getOutputType()).toRowType();
        List<String> names = type.getFieldNames();
        int fields = p.node.fields.size();
        if (!names.subList(0, Math.min(fields, names.size())).equals(p.node.fields)
                || names.size() != fields + s.calls().size()) {
            throw new IllegalStateException(s.name + ": the node's output " + names);
        }
        LogicalType[] types = type.getChildren().toArray(new LogicalType[0]);
        p.outNames = names;
        p.outTypes = new String[names.size()];
        for (int i = 0; i < names.size(); i++) {
            p.outTypes[i] = i < fields ? s.type(names.get(i))
                    : GroupAggVectors.typeName(TypeConversions.fromLogicalToDataType(types[i]));
        }
        @SuppressWarnings("unchecked")
        Transformation<RowData> rows = (Transformation<RowData>) (Transformation<?>) over;
        return new DataStream<>(changes.getExecutionEnvironment(), rows)
                .map(new NodeRows(new Encode(index, p.outTypes), types))
                .setParallelism(1);
    }

    /** The node output column that output column {@code name} is: the same. */
    @Override
    int outputColumn(Planned<Scenario> p, String name) {
        return p.outNames.indexOf(name);
    }

    /** The one OverAggregate transformation among the inputs of {@code t}. */
    static OneInputTransformation<?, ?> overTransformation(Scenario s, Transformation<?> t) {
        return (OneInputTransformation<?, ?>) nodeTransformation(s.name, t, "OverAggregate");
    }

    /** A node output row as its line ({@link Encode} over its external values). */
    static final class NodeRows implements MapFunction<RowData, String> {
        private static final long serialVersionUID = 1L;
        private final Encode encode;
        private final LogicalType[] types;
        private final RowData.FieldGetter[] getters;

        NodeRows(Encode encode, LogicalType[] types) {
            this.encode = encode;
            this.types = types;
            this.getters = new RowData.FieldGetter[types.length];
            for (int i = 0; i < types.length; i++) {
                getters[i] = RowData.createFieldGetter(types[i], i);
            }
        }

        @Override
        public String map(RowData r) {
            Object[] values = new Object[types.length];
            for (int i = 0; i < types.length; i++) {
                values[i] = external(types[i], getters[i].getFieldOrNull(r));
            }
            return encode.map(Row.ofKind(r.getRowKind(), values));
        }

        static Object external(LogicalType type, Object v) {
            if (v == null) {
                return null;
            }
            switch (type.getTypeRoot()) {
                case CHAR:
                case VARCHAR:
                    return v.toString();
                case DECIMAL:
                    return ((DecimalData) v).toBigDecimal();
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                    return ((TimestampData) v).toLocalDateTime();
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                    return ((TimestampData) v).toInstant();
                case BOOLEAN:
                case INTEGER:
                case BIGINT:
                case DOUBLE:
                    return v;
                default:
                    throw new IllegalArgumentException("no golden encoding for " + type);
            }
        }
    }

    // ---------------------------------------------------------------- values

    static final Object[] KEYS = GroupAggVectors.KEYS;
    /** Small enough that no sum overflows. */
    static final Object[] BIGINTS = {
        null, 0L, 1L, -1L, 7L, 42L, -1_000L, 123_456_789_012L, -5L
    };
    static final Object[] EXTREME_BIGINTS = DedupVectors.BIGINTS;
    static final Object[] INTS = {null, 0, 1, -1, 7, -7, 100, -33, 2, 3, 1_000};
    static final Object[] EXTREME_INTS = {
        null, 0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE + 1
    };
    /** Dyadic: every sum is exact. */
    static final Object[] DOUBLES = {null, 0.0, 0.5, 1.25, -2.75, 3.0, 1_024.5, -0.125};
    static final Object[] DECIMALS = {
        null, new BigDecimal("0.00"), new BigDecimal("-0.01"), new BigDecimal("1.10"),
        new BigDecimal("3.33"), new BigDecimal("10.00"), new BigDecimal("-2.50"),
        new BigDecimal("99999999.99"), new BigDecimal("-99999999.99")
    };
    static final Object[] STRINGS = {
        null, "", "a", "A", "ab", "b", "z", "é", "e\u0301", "größer 🦀", "🦀🦀", "x,y",
        "nul\0byte", "more than seven bytes"
    };


    // ---------------------------------------------------------------- scenarios

    /** The frames of the four kinds the traced and random scenarios run. */
    static Frame frameOf(Kind kind) {
        return switch (kind) {
            case ROWS_BOUNDED -> Frame.rows(2);
            case RANGE_BOUNDED -> Frame.range("1", 1_000);
            case ROWS_UNBOUNDED -> Frame.rowsUnbounded();
            case RANGE_UNBOUNDED -> Frame.rangeUnbounded();
        };
    }

    /** A scenario's name: the kind's words joined, then {@code rest}. */
    static String name(Kind kind, String rest) {
        return kind.text.replace(' ', '_') + "_" + rest;
    }

    @Override
    List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        // Each kind on both backends: traced, and over a random stream.
        for (String backend : BACKENDS) {
            String x = suffix(backend);
            for (Kind kind : Kind.values()) {
                list.add(traced(name(kind, "traced") + x, kind, backend));
            }
            for (Kind kind : Kind.values()) {
                list.add(random(name(kind, "random") + x, kind, backend));
            }
        }
        // The cleanup timers of a RANGE frame with a preceding bound.
        list.add(rangeGaps("range_bounded_gaps", "hashmap"));
        list.add(rangeGaps("range_bounded_gaps_rocksdb", "rocksdb"));
        // ROWS frames of one, two and six rows.
        list.add(rowsPreceding("rows_0_preceding", 0, "hashmap"));
        list.add(rowsPreceding("rows_1_preceding_rocksdb", 1, "rocksdb"));
        list.add(rowsPreceding("rows_5_preceding", 5, "hashmap"));
        // Argument types, DISTINCT, FIRST_VALUE and LAST_VALUE, NULLs: each kind, the
        // backends alternating.
        for (Kind kind : Kind.values()) {
            String one = kind.ordinal() % 2 == 0 ? "hashmap" : "rocksdb";
            String other = kind.ordinal() % 2 == 0 ? "rocksdb" : "hashmap";
            list.add(ints(name(kind, "ints") + suffix(one), kind, one));
            list.add(decimals(name(kind, "decimals") + suffix(other), kind, other));
            list.add(strings(name(kind, "strings") + suffix(one), kind, one));
            list.add(doubles(name(kind, "doubles") + suffix(other), kind, other));
            list.add(distinct(name(kind, "distinct") + suffix(one), kind, one));
        }
        list.add(doubleSumRange());
        list.add(firstLast("rows_bounded_first_last", Frame.rows(2), "hashmap"));
        list.add(firstLast("range_bounded_first_last_rocksdb", Frame.range("0.5", 500),
                "rocksdb"));
        list.add(firstLast("rows_unbounded_first_last", Frame.rowsUnbounded(), "hashmap"));
        list.add(nulls("rows_bounded_nulls", Frame.rows(1), "hashmap"));
        list.add(nulls("range_unbounded_nulls_rocksdb", Frame.rangeUnbounded(), "rocksdb"));
        list.add(extremes());
        // No PARTITION BY: one key for all rows.
        list.add(global("rows_bounded_global", Frame.rows(3), "hashmap"));
        list.add(global("range_bounded_global_rocksdb", Frame.range("0.1", 100), "rocksdb"));
        list.add(global("rows_unbounded_global_rocksdb", Frame.rowsUnbounded(), "rocksdb"));
        list.add(global("range_unbounded_global", Frame.rangeUnbounded(), "hashmap"));
        // Two partition columns.
        list.add(multiKey("rows_bounded_multi_key_rocksdb", Frame.rows(2), "rocksdb"));
        list.add(multiKey("range_unbounded_multi_key", Frame.rangeUnbounded(), "hashmap"));
        // A TIMESTAMP_LTZ(3) rowtime.
        list.add(ltz("rows_unbounded_ltz", Frame.rowsUnbounded(), "hashmap"));
        list.add(ltz("range_bounded_ltz_rocksdb", Frame.range("0.5", 500), "rocksdb"));
        // State TTL, which a RANGE frame with a preceding bound does not use.
        list.add(rangeTtl());
        return list;
    }

    /** Columns (k STRING, v BIGINT, id, ts), partitioned by k. */
    static Scenario kv(String name, String description, Frame frame, String backend) {
        return new Scenario(name, description, frame)
                .column("k", DataTypes.STRING())
                .column("v", DataTypes.BIGINT())
                .idAndTime()
                .partition("k")
                .backend(backend);
    }

    /**
     * Traced rows of (k, v) for every frame kind: ties, rows out of order between watermarks,
     * rows at and behind the watermark (behind it but after the key's last fired timer: kept
     * by a bounded frame, dropped by an unbounded one), rows at the epoch and before it, NULL
     * values and a NULL key, then a random tail.
     */
    Scenario traced(String name, Kind kind, String backend) {
        Scenario s = kv(name, kind.text + " (" + frameOf(kind).bound() + "), traced: ties, rows"
                        + " out of order between watermarks, rows behind the watermark (a bounded"
                        + " frame keeps those after the key's last fired timer, an unbounded one"
                        + " drops them), rowtimes at and before the epoch, NULL values and key",
                frameOf(kind), backend)
                .over("COUNT(*)", "COUNT(`v`)", "SUM(`v`)", "MIN(`v`)", "MAX(`v`)");
        s.at(1_000L, "a", 1L)
                .at(1_000L, "a", 2L)          // tie
                .at(900L, "a", null)          // earlier, before the watermark
                .at(1_500L, "b", 4L)
                .at(1_200L, null, 5L)
                .at(epochTimestamp(0), "a", 6L)        // at the epoch
                .at(epochTimestamp(-1), "b", 7L)       // before it
                .wm(1_000)
                .at(950L, "a", 8L)            // behind the watermark and a's last timer
                .at(800L, "b", 9L)            // behind the watermark, b has fired nothing
                .at(500L, "c", 10L)           // a new key behind the watermark
                .at(1_000L, "a", 11L)         // at the watermark and a's last timer
                .at(1_001L, "a", 12L)
                .at(1_100L, "a", 13L)
                .at(1_100L, "a", null)        // tie
                .wm(1_200)
                .at(1_500L, "b", 14L)         // tie with a waiting row
                .at(1_300L, "b", 15L)         // before the waiting rows
                .at(5_000L, "a", 16L)
                .at(3_000L, "a", 17L)
                .wm(2_000)
                .at(1_600L, "b", 18L)         // behind the watermark, after b's last timer
                .at(1_400L, "b", 19L)         // before b's last timer
                .at(2_000L, "c", null)        // at the watermark
                .at(2_001L, "c", -1L)
                .wm(4_000)
                .at(5_000L, "a", 20L)
                .at(5_000L, "a", 21L)
                .at(4_999L, "a", 22L)
                .at(5_000L, "a", null)
                .at(5_000L, null, null)
                .wm(5_000)
                .at(5_001L, "a", 23L)
                .at(6_000L, "b", 24L)
                .at(6_500L, "b", 25L)
                .at(7_000L, "b", 26L)
                .at(7_000L, "b", 27L)
                .wm(6_999);
        // A random tail over a few keys, watermarks every ten rows.
        for (int n = 0; n < 80; n++) {
            s.at(7_000L + 25L * n - s.rnd.nextInt(120), pick(s.rnd, new Object[] {"a", "b", "c",
                null}), pickOrNull(s.rnd, BIGINTS, 5));
            if (n % 10 == 9) {
                s.wm(7_000L + 25L * n - 60);
            }
        }
        return s;
    }

    /**
     * A random rowtime stream of rows (partition columns and values from {@code maker}, then
     * id and ts): row n due at 10 s + {@code step} n ms, arriving up to 150 ms early; now and
     * then far behind the last watermark, exactly at it, or at its key's last rowtime (a tie);
     * a watermark of the largest rowtime seen minus 200 ms every few rows.
     */
    static Scenario stream(Scenario s, int rows, long step, RowMaker maker) {
        long max = Long.MIN_VALUE;
        long last = NO_WATERMARK;
        Map<List<Object>, Object> lastOfKey = new HashMap<>();
        int keys = s.partition.size();
        for (int n = 0; n < rows; n++) {
            Object[] values = maker.row(s.rnd, n);
            List<Object> key = Arrays.asList(values).subList(0, keys);
            int dice = s.rnd.nextInt(20);
            long at;
            if (dice == 0 && last != NO_WATERMARK) {
                at = last - BASE_MS - 1 - s.rnd.nextInt(300);
            } else if (dice == 1 && last != NO_WATERMARK) {
                at = last - BASE_MS;
            } else if (dice < 5 && lastOfKey.containsKey(key)) {
                at = (Long) lastOfKey.get(key);
            } else {
                at = 10_000 + step * n - s.rnd.nextInt(150);
            }
            lastOfKey.put(key, at);
            s.at(at, values);
            max = Math.max(max, at);
            if (s.rnd.nextInt(6) == 0 && BASE_MS + max - 200 > last) {
                last = BASE_MS + max - 200;
                s.wm(max - 200);
            }
        }
        return s;
    }

    Scenario random(String name, Kind kind, String backend) {
        Frame frame = switch (kind) {
            case ROWS_BOUNDED -> Frame.rows(5);
            case RANGE_BOUNDED -> Frame.range("0.5", 500);
            default -> frameOf(kind);
        };
        Scenario s = kv(name, kind.text + " (" + frame.bound() + ") over a random stream:"
                        + " out-of-order, late and tied rows, NULL and Unicode keys, BIGINT"
                        + " values with NULLs", frame, backend)
                .over("COUNT(*)", "SUM(`v`)", "AVG(`v`)", "MIN(`v`)", "MAX(`v`)");
        Object[] keys = keys(KEYS, kind == Kind.RANGE_BOUNDED ? 8 : 20);
        return stream(s, 300, 10, (r, n) -> new Object[] {
            pick(r, keys), pickOrNull(r, BIGINTS, 5)
        });
    }

    /** The frames of the type scenarios: a few rows in each. */
    static Frame smallFrame(Kind kind) {
        return switch (kind) {
            case ROWS_BOUNDED -> Frame.rows(3);
            case RANGE_BOUNDED -> Frame.range("0.25", 250);
            case ROWS_UNBOUNDED -> Frame.rowsUnbounded();
            case RANGE_UNBOUNDED -> Frame.rangeUnbounded();
        };
    }

    /** Keys of the type scenarios: a NULL one and three others. */
    static final Object[] FEW_KEYS = {null, "a", "b", "größer 🦀"};

    /** Columns (k STRING, x of {@code type}, id, ts), partitioned by k. */
    static Scenario typed(String name, String description, Kind kind, String backend,
            DataType type) {
        Frame frame = smallFrame(kind);
        return new Scenario(name, kind.text + " (" + frame.bound() + ") " + description, frame)
                .column("k", DataTypes.STRING())
                .column("x", type)
                .idAndTime()
                .partition("k")
                .backend(backend);
    }

    /** {@code rows} rows of a key of {@link #FEW_KEYS} and a value of {@code pool}. */
    static Scenario typedRows(Scenario s, int rows, Object[] pool, int nullEvery) {
        return stream(s, rows, 10, (r, n) -> new Object[] {
            pick(r, FEW_KEYS), pickOrNull(r, pool, nullEvery)
        });
    }

    Scenario ints(String name, Kind kind, String backend) {
        Scenario s = typed(name, "over INT arguments: COUNT, SUM, AVG (truncated toward zero),"
                + " MIN, MAX, negative values and NULLs", kind, backend, DataTypes.INT())
                .over("COUNT(`x`)", "SUM(`x`)", "AVG(`x`)", "MIN(`x`)", "MAX(`x`)");
        return typedRows(s, 200, INTS, 5);
    }

    Scenario decimals(String name, Kind kind, String backend) {
        Scenario s = typed(name, "over DECIMAL(10, 2) arguments: SUM (DECIMAL(38, 2)), AVG, MIN,"
                + " MAX, the type's extremes and NULLs", kind, backend,
                DataTypes.DECIMAL(10, 2))
                .over("SUM(`x`)", "AVG(`x`)", "MIN(`x`)", "MAX(`x`)");
        return typedRows(s, 200, DECIMALS, 5);
    }

    Scenario strings(String name, Kind kind, String backend) {
        Scenario s = typed(name, "over STRING arguments: MIN and MAX (by UTF-8 bytes),"
                + " FIRST_VALUE, LAST_VALUE, COUNT(DISTINCT), LISTAGG; empty, Unicode, NUL and"
                + " comma values and NULLs", kind, backend, DataTypes.STRING())
                .over("MIN(`x`)", "MAX(`x`)", "FIRST_VALUE(`x`)", "LAST_VALUE(`x`)",
                        "COUNT(DISTINCT `x`)", "LISTAGG(`x`)");
        return typedRows(s, 200, STRINGS, 6);
    }

    Scenario doubles(String name, Kind kind, String backend) {
        boolean range = kind == Kind.RANGE_BOUNDED;
        Scenario s = typed(name, "over dyadic DOUBLE arguments: "
                + (range ? "MIN, MAX and COUNT (a SUM or AVG is range_bounded_double_sum)"
                        : "SUM, AVG, MIN, MAX")
                + " and NULLs", kind, backend, DataTypes.DOUBLE());
        if (range) {
            s.over("MIN(`x`)", "MAX(`x`)", "COUNT(`x`)");
        } else {
            s.over("SUM(`x`)", "AVG(`x`)", "MIN(`x`)", "MAX(`x`)");
        }
        return typedRows(s, 200, DOUBLES, 5);
    }

    /** A DOUBLE SUM and AVG in a RANGE frame with a preceding bound. */
    Scenario doubleSumRange() {
        Scenario s = typed("range_bounded_double_sum", "over dyadic DOUBLE arguments: SUM and"
                + " AVG (their retractions follow the order of Flink's map state; dyadic values"
                + " make every order give one result)", Kind.RANGE_BOUNDED, "hashmap",
                DataTypes.DOUBLE())
                .over("SUM(`x`)", "AVG(`x`)");
        return typedRows(s, 200, DOUBLES, 5);
    }

    Scenario distinct(String name, Kind kind, String backend) {
        Scenario s = typed(name, "COUNT, SUM and AVG DISTINCT over BIGINT arguments that"
                + " repeat (a bounded frame retracts one of several equal values), NULLs", kind,
                backend, DataTypes.BIGINT())
                .over("COUNT(DISTINCT `x`)", "SUM(DISTINCT `x`)", "AVG(DISTINCT `x`)",
                        "COUNT(`x`)");
        return typedRows(s, 200, new Object[] {null, 1L, 2L, 2L, 3L, -1L, 2L}, 6);
    }

    Scenario firstLast(String name, Frame frame, String backend) {
        Scenario s = new Scenario(name, frame.kind().text + " (" + frame.bound() + "):"
                        + " FIRST_VALUE and LAST_VALUE over BIGINT and STRING arguments with many"
                        + " NULLs, ties", frame)
                .column("k", DataTypes.STRING())
                .column("v", DataTypes.BIGINT())
                .column("s", DataTypes.STRING())
                .idAndTime()
                .partition("k")
                .backend(backend)
                .over("FIRST_VALUE(`v`)", "LAST_VALUE(`v`)", "FIRST_VALUE(`s`)",
                        "LAST_VALUE(`s`)");
        return stream(s, 200, 10, (r, n) -> new Object[] {
            pick(r, FEW_KEYS), pickOrNull(r, BIGINTS, 3), pickOrNull(r, STRINGS, 3)
        });
    }

    /** Arguments that are mostly NULL: whole frames of NULLs. */
    Scenario nulls(String name, Frame frame, String backend) {
        Scenario s = kv(name, frame.kind().text + " (" + frame.bound() + ") over BIGINT"
                        + " arguments that are mostly NULL, each key's first ones all NULL: COUNT"
                        + " 0 and $SUM0 0 with MIN, MAX and FIRST_VALUE NULL", frame, backend)
                .over("COUNT(*)", "COUNT(`v`)", "SUM(`v`)", "AVG(`v`)", "MIN(`v`)", "MAX(`v`)",
                        "FIRST_VALUE(`v`)");
        Map<Object, Integer> seen = new HashMap<>();
        return stream(s, 200, 10, (r, n) -> {
            Object k = pick(r, FEW_KEYS);
            int before = seen.merge(k, 1, Integer::sum);
            return new Object[] {k, before <= 5 || r.nextInt(4) != 0 ? null : pick(r, BIGINTS)};
        });
    }

    /** MIN and MAX (no sums) over the extremes of BIGINT and INT. */
    Scenario extremes() {
        Scenario s = new Scenario("rows_bounded_extremes_rocksdb", "rows bounded (ROWS 2"
                        + " PRECEDING): MIN, MAX and LAST_VALUE over the extremes of BIGINT and"
                        + " INT, on RocksDB", Frame.rows(2))
                .column("k", DataTypes.STRING())
                .column("l", DataTypes.BIGINT())
                .column("i", DataTypes.INT())
                .idAndTime()
                .partition("k")
                .backend("rocksdb")
                .over("MIN(`l`)", "MAX(`l`)", "MIN(`i`)", "MAX(`i`)", "LAST_VALUE(`l`)");
        return stream(s, 150, 10, (r, n) -> new Object[] {
            pick(r, FEW_KEYS), pick(r, EXTREME_BIGINTS), pick(r, EXTREME_INTS)
        });
    }

    /** Without PARTITION BY: (v BIGINT, id, ts). */
    Scenario global(String name, Frame frame, String backend) {
        Scenario s = new Scenario(name, frame.kind().text + " (" + frame.bound() + ") without"
                        + " PARTITION BY: one key for all rows, ties, late rows", frame)
                .column("v", DataTypes.BIGINT())
                .idAndTime()
                .backend(backend)
                .over("COUNT(*)", "SUM(`v`)", "MIN(`v`)", "MAX(`v`)");
        return stream(s, 200, 10, (r, n) -> new Object[] {pickOrNull(r, BIGINTS, 5)});
    }

    /** Partitioned by (k INT, g STRING), NULLs in both. */
    Scenario multiKey(String name, Frame frame, String backend) {
        Scenario s = new Scenario(name, frame.kind().text + " (" + frame.bound() + ")"
                        + " partitioned by (k INT, g STRING), NULLs in both", frame)
                .column("k", DataTypes.INT())
                .column("g", DataTypes.STRING())
                .column("v", DataTypes.BIGINT())
                .idAndTime()
                .partition("k", "g")
                .backend(backend)
                .over("COUNT(*)", "SUM(`v`)", "LAST_VALUE(`v`)");
        Object[] ks = {null, 1, 2};
        Object[] gs = {null, "", "x"};
        return stream(s, 200, 10, (r, n) -> new Object[] {
            pick(r, ks), pick(r, gs), pickOrNull(r, BIGINTS, 4)
        });
    }

    /** A TIMESTAMP_LTZ(3) rowtime. */
    Scenario ltz(String name, Frame frame, String backend) {
        Scenario s = new Scenario(name, frame.kind().text + " (" + frame.bound() + ") on a"
                        + " TIMESTAMP_LTZ(3) rowtime: the same rules, the time in epoch"
                        + " milliseconds", frame)
                .ltz()
                .column("k", DataTypes.STRING())
                .column("v", DataTypes.BIGINT())
                .idAndTime()
                .partition("k")
                .backend(backend)
                .over("COUNT(*)", "SUM(`v`)", "MAX(`v`)");
        return stream(s, 150, 10, (r, n) -> new Object[] {
            pick(r, FEW_KEYS), pickOrNull(r, BIGINTS, 4)
        });
    }

    Scenario rangeTtl() {
        Scenario s = kv("range_bounded_ttl", "range bounded (RANGE INTERVAL '1' SECOND"
                        + " PRECEDING) with a state TTL of 1 h, which Flink's function does not use",
                Frame.range("1", 1_000), "hashmap")
                .ttl(HOUR_MS)
                .over("COUNT(*)", "SUM(`v`)", "MIN(`v`)");
        return stream(s, 150, 10, (r, n) -> new Object[] {
            pick(r, FEW_KEYS), pickOrNull(r, BIGINTS, 4)
        });
    }

    /** ROWS {@code n} PRECEDING over a stream with many ties. */
    Scenario rowsPreceding(String name, long n, String backend) {
        Frame frame = Frame.rows(n);
        Scenario s = kv(name, "rows bounded (" + frame.bound() + ") over a stream where most"
                        + " rows tie with their key's previous one (a frame holds part of a"
                        + " time's rows)", frame, backend)
                .over("COUNT(*)", "SUM(`v`)", "MIN(`v`)", "MAX(`v`)", "FIRST_VALUE(`v`)",
                        "LAST_VALUE(`v`)");
        long max = 0;
        long at = 1_000;
        for (int i = 0; i < 200; i++) {
            Object k = pick(s.rnd, FEW_KEYS);
            at += s.rnd.nextInt(3) == 0 ? 1 + s.rnd.nextInt(40) : 0;
            s.at(at - s.rnd.nextInt(2) * 30, k, pickOrNull(s.rnd, BIGINTS, 5));
            max = Math.max(max, at);
            if (i % 12 == 11) {
                s.wm(max - 20);
            }
        }
        return s;
    }

    /**
     * A RANGE frame of 1 s, traced through its cleanup timers (1.5 s and 1 ms after a row,
     * moved only when a row comes more than 1 s after the last move): a timer that fires
     * unmoved clears the key (rows behind its old last fired time are then kept), a moved
     * one still counts as the key's last fired time (later rows behind it are dropped).
     */
    Scenario rangeGaps(String name, String backend) {
        Scenario s = kv(name, "range bounded (RANGE INTERVAL '1' SECOND PRECEDING), traced"
                        + " through the cleanup timers: gaps of more than 1.5 s clear a key and"
                        + " its last fired time, a moved cleanup timer still drops the rows"
                        + " before it, a row exactly 1 s before is in the frame, a row at the"
                        + " cleanup time", Frame.range("1", 1_000), backend)
                .over("COUNT(*)", "SUM(`v`)", "MIN(`v`)", "MAX(`v`)", "LAST_VALUE(`v`)");
        s.at(1_000L, "a", 0L)
                .at(1_200L, "a", 1L)
                .at(1_000L, "b", 2L)      // b's cleanup timer at 2501
                .at(2_000L, "b", 3L)      // moves it to 3501 (2501 still fires)
                .at(1_000L, "d", 4L)      // d's at 2501
                .wm(1_300)
                .at(2_001L, "b", 5L)
                .at(2_501L, "d", 6L)      // at d's cleanup timer: moves it to 4001
                .wm(2_001)                // b@2000 keeps b@1000 (exactly 1 s), b@2001 not
                .at(2_590L, "e", 24L)
                .wm(2_600)                // a is cleared; b's 2501 is b's last fired time
                .at(2_500L, "b", 7L)      // behind b's 2501: dropped
                .at(2_550L, "b", 8L)
                .at(1_100L, "a", 9L)      // a was cleared: kept
                .at(1_150L, "a", 10L)
                .wm(2_700)                // a@1100, a@1150 alone; then a cleared again
                .at(2_650L, "a", 11L)
                .wm(3_000)
                .at(3_400L, "b", 12L)     // moves b's cleanup timer from 3501 to 4901
                .wm(3_600)                // 3501 fires: b's last fired time
                .at(3_450L, "b", 13L)     // dropped
                .at(3_550L, "b", 14L)
                .at(5_000L, "c", 15L)
                .at(5_000L, "c", 16L)
                .wm(6_000)                // b and a cleared
                .at(3_000L, "b", 17L)     // kept, alone
                .at(5_500L, "c", 18L)
                .wm(6_400)
                .at(6_499L, "c", 19L)     // moves c's cleanup timer from 6501 to 7999
                .wm(6_501)
                .at(6_500L, "c", 20L)     // dropped
                .at(6_501L, "c", 21L)     // dropped
                .at(6_502L, "c", 22L)
                .at(9_000L, null, null)
                .at(9_000L, null, 23L);
        return s;
    }
}
