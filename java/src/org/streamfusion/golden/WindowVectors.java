package org.streamfusion.golden;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;

import org.streamfusion.flink.StreamFusionPlanner;

/**
 * Golden changelogs of Flink's event-time window operators, produced by Flink SQL on the
 * released Flink 2.3.0 jars: window aggregation over the window TVFs ({@code GROUP BY
 * window_start, window_end, ..} over {@code TUMBLE}, {@code HOP}, {@code CUMULATE} and {@code
 * SESSION}, one phase: {@code StreamExecWindowAggregate}), the legacy group windows ({@code
 * GROUP BY .., TUMBLE|HOP|SESSION(ts, ..)}: {@code StreamExecGroupWindowAggregate}), window
 * Top-N ({@code ROW_NUMBER() OVER (PARTITION BY window_start, window_end, ..) <= n}: {@code
 * StreamExecWindowRank}) and window deduplication ({@code .. ORDER BY ts [DESC]) = 1}: {@code
 * StreamExecWindowDeduplicate}). Each scenario's rows go through its query in a MiniCluster at
 * parallelism 1 under the scenario's keyed state backend and session time zone, and the rows
 * the window node emits are recorded. The native window operators are tested against them
 * ({@code crates/streamfusion/tests/it/window_flink.rs}).
 *
 * <p>What is recorded is the window node's own input and output, read at its transformation
 * (a Calc Flink plans before or after it is not recorded). A window aggregate reads the
 * source's rows (its window TVF is merged into it); a window Top-N or deduplication reads the
 * rows of the window TVF before it, with {@code window_start}, {@code window_end} and {@code
 * window_time}: those are read where they enter the node (a second consumer of its input
 * transformation) and placed before the watermarks by their {@code id}, the source row they
 * come from (the TVF and a Calc are stateless and keep the source's order). Every row a window
 * node emits is inserted ({@code +I}).
 *
 * <p>Rows enter from {@code fromData} at parallelism 1 with punctuated watermarks (emitted
 * after the rows the scenario names, none periodically), taken by the table with {@code
 * SOURCE_WATERMARK()} on the physical column {@code ts}, as {@link DedupVectors} schedules
 * them, so rows and watermarks reach the node in one fixed order; the end of input is {@code
 * Long.MAX_VALUE}. The node's description is what {@link StreamFusionPlanner} hands to {@code
 * NativeOperator.planFromFlink} (every node refused, the job stock), as {@link NodeVectors}
 * takes it; aggregation is planned {@code ONE_PHASE}.
 *
 * <p>Usage: {@code WindowVectors <output path> [scenario..]} (all scenarios when none are
 * named), on the planner classpath ({@code classpath-planner.txt}). Output is JSON Lines as
 * {@link NodeVectors#write} writes it; the header's own fields are {@code window} (the window
 * as the query writes it), {@code node_type} (the node's type in its description), {@code
 * zone} (the session time zone) and {@code backend}. {@code output} are the node's output
 * columns as it names them (so {@code output_columns} is {@code [0, 1, ..]}), {@code
 * output_keys} its grouping or partition keys. Values as {@link DedupVectors} writes them. Every
 * scenario's random rows come from the project's seed and its name (without {@code _rocksdb}),
 * so two runs write byte-identical files.
 */
public final class WindowVectors extends NodeVectors<WindowVectors.Scenario> {
    static final long HOUR_MS = 3_600_000L;

    WindowVectors() {
        super("window, node_type, zone, backend", "stream-exec-window-aggregate_1", "window",
                "window-vectors-");
    }

    /** The window nodes: their type and the name their transformation starts with. */
    enum NodeKind {
        AGGREGATE("stream-exec-window-aggregate_1", "WindowAggregate"),
        GROUP_WINDOW("stream-exec-group-window-aggregate_1", "GroupWindowAggregate"),
        RANK("stream-exec-window-rank_1", "WindowRank"),
        DEDUPLICATE("stream-exec-window-deduplicate_1", "WindowDeduplicate"),
        /** The global phase of a two-phase window aggregate: it reads the local's partials. */
        GLOBAL("stream-exec-global-window-aggregate_1", "GlobalWindowAggregate");

        final String type;
        final String operator;

        NodeKind(String type, String operator) {
            this.type = type;
            this.operator = operator;
        }

        /** Whether the node reads the window TVF's rows (its window columns attached). */
        boolean attached() {
            return this == RANK || this == DEDUPLICATE;
        }

        /** Whether the node reads the source's rows (maybe through a Calc computing more). */
        boolean readsSource() {
            return this == AGGREGATE || this == GROUP_WINDOW;
        }
    }

    /**
     * A window: its function ({@code TUMBLE}, {@code HOP}, {@code CUMULATE}, {@code SESSION})
     * and its arguments after the time column as SQL writes them.
     */
    record Window(String function, String args) {
        /** The legacy group window's spelling in the node's description. */
        String groupWindow() {
            return switch (function) {
                case "TUMBLE" -> "TumblingGroupWindow(";
                case "HOP" -> "SlidingGroupWindow(";
                case "SESSION" -> "SessionGroupWindow(";
                default -> throw new IllegalArgumentException(function + " has no group window");
            };
        }
    }

    static Window tumble(String size) {
        return new Window("TUMBLE", "INTERVAL " + size);
    }

    static Window hop(String slide, String size) {
        return new Window("HOP", "INTERVAL " + slide + ", INTERVAL " + size);
    }

    static Window cumulate(String step, String size) {
        return new Window("CUMULATE", "INTERVAL " + step + ", INTERVAL " + size);
    }

    static Window session(String gap) {
        return new Window("SESSION", "INTERVAL " + gap);
    }

    static final class Scenario extends NodeVectors.RowtimeScenario<Scenario> {
        final NodeKind node;
        final Window window;
        String zone = "UTC";
        /** The grouping or partition keys (beside the window). */
        final List<String> keys = new ArrayList<>();
        /** A window aggregate's calls, as the query writes them. */
        final List<String> aggregates = new ArrayList<>();
        /** A window aggregate groups by {@code window_time} too, and outputs it. */
        boolean windowTime;
        /** A Top-N's or deduplication's ORDER BY, and a Top-N's limit. */
        String orderBy;
        int limit = 1;
        /** A Top-N outputs its row number {@code rn}. */
        boolean rankNumber;
        /**
         * The node's input columns that are not the source's (a FILTER's condition a Calc
         * computes, a window TVF's columns, a local aggregate's partials), and their types:
         * read where they enter the node.
         */
        final Map<String, String> computed = new LinkedHashMap<>();

        Scenario(String name, String description, NodeKind node, Window window) {
            super(name, description);
            this.node = node;
            this.window = window;
        }

        Scenario ltz(String zone) {
            this.ltz = true;
            this.zone = zone;
            return this;
        }

        Scenario keys(String... names) {
            keys.addAll(Arrays.asList(names));
            return this;
        }

        Scenario aggregate(String... sql) {
            aggregates.addAll(Arrays.asList(sql));
            return this;
        }

        Scenario windowTime() {
            this.windowTime = true;
            return this;
        }

        Scenario ranked(String orderBy, int limit, boolean rankNumber) {
            this.orderBy = orderBy;
            this.limit = limit;
            this.rankNumber = rankNumber;
            return this;
        }


        @Override
        String kind() {
            return switch (node) {
                case AGGREGATE -> window.function().toLowerCase();
                case GLOBAL -> "two-phase " + window.function().toLowerCase();
                case GROUP_WINDOW -> "legacy " + window.function().toLowerCase();
                case RANK -> "top-n";
                case DEDUPLICATE -> orderBy.endsWith("DESC") ? "keep last" : "keep first";
            };
        }

        @Override
        void options(TableConfig config) {
            super.options(config);
            config.set("table.local-time-zone", zone);
            config.set("table.optimizer.agg-phase-strategy",
                    node == NodeKind.GLOBAL ? "TWO_PHASE" : "ONE_PHASE");
        }

        /** The source's columns, then those read where they enter the node. */
        @Override
        List<String> inputNames() {
            List<String> names = super.inputNames();
            names.addAll(computed.keySet());
            return names;
        }

        @Override
        List<String> outputNames() {
            List<String> names = new ArrayList<>();
            switch (node) {
                case AGGREGATE, GLOBAL -> {
                    names.addAll(keys);
                    names.addAll(List.of("window_start", "window_end"));
                    if (windowTime) {
                        names.add("window_time");
                    }
                }
                case GROUP_WINDOW -> {
                    names.addAll(keys);
                    names.addAll(List.of("ws", "we", "wr"));
                }
                case RANK, DEDUPLICATE -> {
                    names.addAll(super.outputNames());
                    names.removeAll(computed.keySet());
                    names.addAll(List.of("window_start", "window_end", "window_time"));
                    if (rankNumber) {
                        names.add("rn");
                    }
                }
            }
            for (int i = 0; i < aggregates.size(); i++) {
                names.add("a" + i);
            }
            return names;
        }

        @Override
        String type(String name) {
            return switch (name) {
                case "window_start", "window_end", "ws", "we" -> "TIMESTAMP(3)";
                case "window_time", "wr" -> column("ts").type();
                case "rn" -> "BIGINT";
                default -> computed.containsKey(name) ? computed.get(name)
                        : name.matches("a\\d+") ? "(the node's)" : super.type(name);
            };
        }

        @Override
        List<String> primaryKey() {
            return keys;
        }

        /** {@code `a`, `b`}. */
        static String quoted(List<String> names) {
            StringBuilder s = new StringBuilder();
            for (String n : names) {
                s.append(s.length() == 0 ? "" : ", ").append('`').append(n).append('`');
            }
            return s.toString();
        }

        /** {@code TABLE(<window>(TABLE view [PARTITION BY keys], DESCRIPTOR(ts), ..))}. */
        String tvf(String view) {
            String partition = window.function().equals("SESSION") && !keys.isEmpty()
                    ? " PARTITION BY " + quoted(keys) : "";
            return "TABLE(" + window.function() + "(TABLE " + view + partition
                    + ", DESCRIPTOR(`ts`), " + window.args() + "))";
        }

        @Override
        String sql(String view) {
            StringBuilder s = new StringBuilder("SELECT ");
            String keyList = quoted(keys);
            switch (node) {
                case AGGREGATE, GLOBAL -> {
                    s.append(keyList).append(keys.isEmpty() ? "" : ", ")
                            .append("window_start, window_end")
                            .append(windowTime ? ", window_time" : "");
                    aggregates(s);
                    s.append(" FROM ").append(tvf(view)).append(" GROUP BY window_start,"
                            + " window_end").append(windowTime ? ", window_time" : "")
                            .append(keys.isEmpty() ? "" : ", " + keyList);
                }
                case GROUP_WINDOW -> {
                    String w = "`ts`, " + window.args();
                    String f = window.function();
                    s.append(keyList).append(keys.isEmpty() ? "" : ", ")
                            .append(f).append("_START(").append(w).append(") AS ws, ")
                            .append(f).append("_END(").append(w).append(") AS we, ")
                            .append(f).append("_ROWTIME(").append(w).append(") AS wr");
                    aggregates(s);
                    s.append(" FROM ").append(view).append(" GROUP BY ").append(keyList)
                            .append(keys.isEmpty() ? "" : ", ").append(f).append('(').append(w)
                            .append(')');
                }
                case RANK, DEDUPLICATE -> {
                    // One rowtime attribute in the output: window_time's, ts cast.
                    s.append(quoted(outputNames()).replace("`ts`",
                            "CAST(`ts` AS " + column("ts").type() + ") AS `ts`"))
                            .append(" FROM (SELECT *, ROW_NUMBER() OVER"
                            + " (PARTITION BY window_start, window_end")
                            .append(keys.isEmpty() ? "" : ", " + keyList).append(" ORDER BY ")
                            .append(orderBy).append(") AS rn FROM ").append(tvf(view))
                            .append(") WHERE rn ").append(limit == 1 ? "= 1" : "<= " + limit);
                }
            }
            return s.toString();
        }

        private void aggregates(StringBuilder s) {
            for (int i = 0; i < aggregates.size(); i++) {
                s.append(", ").append(aggregates.get(i)).append(" AS `a").append(i).append('`');
            }
        }
    }

    public static void main(String[] args) throws Exception {
        new WindowVectors().generate(args);
    }

    /**
     * The plan has exactly one window node, the scenario's, and no other window operator but a
     * two-phase aggregate's local phase.
     */
    @Override
    boolean expectedPlan(Scenario s, String plan) {
        int found = 0;
        for (String op : plan.split(" \\| ")) {
            op = op.replaceFirst("^\\[\\d+\\]:", "");
            for (NodeKind k : NodeKind.values()) {
                if (op.startsWith(k.operator + "(")) {
                    found += k == s.node ? 1 : 100;
                }
            }
            if (op.startsWith("LocalWindowAggregate(")) {
                found += s.node == NodeKind.GLOBAL ? 10 : 100;
            }
        }
        return found == (s.node == NodeKind.GLOBAL ? 11 : 1);
    }

    @Override
    void header(Scenario s, StringBuilder out) {
        out.append(",\"window\":");
        Json.string(out, s.window.function() + "(" + s.window.args() + ")");
        out.append(",\"node_type\":");
        Json.string(out, s.node.type);
        out.append(",\"zone\":");
        Json.string(out, s.zone);
        out.append(",\"backend\":");
        Json.string(out, s.backend);
    }

    /** {@code ts} is a rowtime attribute, and so is the window TVF's {@code window_time}. */
    @Override
    boolean rowtimeColumn(Scenario s, String name) {
        return (name.equals("ts") && s.node != NodeKind.GLOBAL)
                || (s.node.attached() && name.equals("window_time"));
    }

    /**
     * The scenario's one window node, checked against what the scenario asks for: its type,
     * its window, its keys, and its rowtime input.
     */
    @Override
    Node node(Scenario s) throws IOException {
        StreamFusionPlanner.Decision d = decision(s, s.node.type, what, true);
        Node found = new Node(d.description, d.config);
        List<String> problems = new ArrayList<>();
        JsonNode node = readInput(s, found, s.node.type, problems);
        JsonNode keys = switch (s.node) {
            case AGGREGATE, GROUP_WINDOW, GLOBAL -> node.path("grouping");
            case RANK -> node.path("partitionSpec").path("fields");
            case DEDUPLICATE -> node.path("partitionKeys");
        };
        readKeys(keys, found, s.keys, "keys", problems);
        String text = node.path("description").asText();
        String window = s.node == NodeKind.GROUP_WINDOW ? s.window.groupWindow()
                : s.window.function() + "(";
        if (!text.contains(window)) {
            problems.add("not a " + window + " window: " + text);
        }
        fits(s, found, problems);
        return found;
    }

    /**
     * The window node's own output, read at its transformation: its columns become the
     * scenario's output. A node whose input is not the source's rows has its input read too,
     * rows and watermarks where they enter it ({@link Tap}, tagged for {@link Planned#check}).
     */
    @Override
    DataStream<String> output(Planned<Scenario> p, DataStream<Row> changes, int index) {
        Scenario s = p.scenario;
        Transformation<?> window =
                nodeTransformation(s.name, changes.getTransformation(), s.node.operator);
        RowType type = ((InternalTypeInfo<?>) window.getOutputType()).toRowType();
        p.outNames = new ArrayList<>(type.getFieldNames());
        p.outTypes = typeNames(type);
        DataStream<String> out = encode(changes, window, index, p.outTypes);
        if (s.node.readsSource() && s.inputNames().containsAll(p.node.fields)) {
            return out;
        }
        Transformation<?> input = window.getInputs().get(0);
        RowType inputType = ((InternalTypeInfo<?>) input.getOutputType()).toRowType();
        if (!inputType.getFieldNames().equals(p.node.fields)) {
            throw new IllegalStateException(s.name + ": the node's input " + inputType);
        }
        String[] types = typeNames(inputType);
        List<String> names = s.inputNames();
        for (int i = 0; i < types.length; i++) {
            if (!names.contains(p.node.fields.get(i))) {
                s.computed.put(p.node.fields.get(i), types[i]);
            }
        }
        @SuppressWarnings("unchecked")
        Transformation<RowData> rows = (Transformation<RowData>) (Transformation<?>) input;
        return out.union(new DataStream<>(changes.getExecutionEnvironment(), rows)
                .transform("tap", Types.STRING, new Tap(new OverVectors.NodeRows(
                        new Encode(-1 - index, types),
                        inputType.getChildren().toArray(new LogicalType[0])), -1 - index))
                .setParallelism(1));
    }

    /** A node's input as lines: its rows, and its watermarks in their place among them. */
    static final class Tap extends AbstractStreamOperator<String>
            implements OneInputStreamOperator<RowData, String> {
        private static final long serialVersionUID = 1L;
        private final OverVectors.NodeRows rows;
        private final int tag;

        Tap(OverVectors.NodeRows rows, int tag) {
            this.rows = rows;
            this.tag = tag;
        }

        @Override
        public void processElement(StreamRecord<RowData> element) {
            output.collect(new StreamRecord<>(rows.map(element.getValue())));
        }

        @Override
        public void processWatermark(Watermark mark) throws Exception {
            output.collect(new StreamRecord<>(
                    tag + "\t{\"watermark\":" + mark.getTimestamp() + "}"));
            super.processWatermark(mark);
        }
    }

    /** The Rust-parsable type names of a row's fields (time attributes as plain types). */
    static String[] typeNames(RowType type) {
        List<LogicalType> fields = type.getChildren();
        String[] names = new String[fields.size()];
        for (int i = 0; i < names.length; i++) {
            names[i] = GroupAggVectors.typeName(TypeConversions.fromLogicalToDataType(
                    fields.get(i))).replace(" *ROWTIME*", "").replace(" *PROCTIME*", "");
        }
        return names;
    }

    /** The rows of transformation {@code t} as lines tagged {@code tag}. */
    static DataStream<String> encode(DataStream<Row> changes, Transformation<?> t, int tag,
            String[] types) {
        RowType type = ((InternalTypeInfo<?>) t.getOutputType()).toRowType();
        @SuppressWarnings("unchecked")
        Transformation<RowData> rows = (Transformation<RowData>) (Transformation<?>) t;
        return new DataStream<>(changes.getExecutionEnvironment(), rows)
                .map(new OverVectors.NodeRows(new Encode(tag, types),
                        type.getChildren().toArray(new LogicalType[0])))
                .setParallelism(1);
    }

    /** The node output column that output column {@code name} is: the same. */
    @Override
    int outputColumn(Planned<Scenario> p, String name) {
        return p.outNames.indexOf(name);
    }


    /**
     * The events the node receives: the source's rows and watermarks, or, where its input was
     * read where it enters it, those rows and watermarks in their order.
     */
    @Override
    List<long[]> events(Planned<Scenario> p) {
        Scenario s = p.scenario;
        if (s.computed.isEmpty()) {
            return super.events(p);
        }
        List<String> names = s.inputNames();
        List<Row> input = new ArrayList<>();
        List<long[]> events = new ArrayList<>();
        try {
            for (String line : p.check) {
                JsonNode event = JSON.readTree(line);
                if (event.has("watermark")) {
                    events.add(new long[] {0, event.get("watermark").asLong()});
                    continue;
                }
                JsonNode row = event.get("row");
                Object[] values = new Object[names.size()];
                for (int i = 0; i < p.node.fields.size(); i++) {
                    String name = p.node.fields.get(i);
                    values[names.indexOf(name)] = decode(s.type(name), row.get(i));
                }
                events.add(new long[] {1, input.size()});
                input.add(Row.of(values));
            }
        } catch (IOException e) {
            throw new IllegalStateException(s.name + ": " + e, e);
        }
        if (events.isEmpty() || events.get(events.size() - 1)[1] != END_OF_INPUT) {
            throw new IllegalStateException(s.name + ": the node's input did not end");
        }
        p.input = input;
        return events;
    }

    /** A value of a line ({@link NodeVectors#value}'s encoding) as the source held it. */
    static Object decode(String type, JsonNode v) {
        if (v.isNull()) {
            return null;
        }
        return switch (type) {
            case "STRING" -> v.asText();
            case "BOOLEAN" -> v.asBoolean();
            case "INT" -> v.asInt();
            case "BIGINT" -> Long.parseLong(v.asText());
            case "DOUBLE" -> Double.parseDouble(v.asText());
            case "TIMESTAMP(3)" -> epochTimestamp(Long.parseLong(v.asText()));
            case "TIMESTAMP_LTZ(3)" -> Instant.ofEpochMilli(Long.parseLong(v.asText()));
            default -> {
                if (type.startsWith("DECIMAL(")) {
                    yield new BigDecimal(v.asText());
                }
                throw new IllegalArgumentException("no golden decoding of " + type);
            }
        };
    }


    // ---------------------------------------------------------------- values

    static final Object[] KEYS = {null, "a", "b", "größer 🦀", ""};
    static final Object[] FEW_KEYS = {"a", "b"};
    /** Small enough that no sum overflows. */
    static final Object[] BIGINTS = {null, 0L, 1L, -1L, 7L, 42L, -1_000L, 123_456_789_012L};
    /** Dyadic: every sum is exact, whatever the order of additions. */
    static final Object[] DOUBLES = {null, 0.0, 0.5, 1.25, -2.75, 3.0, 1_024.5, -0.125};
    static final Object[] DECIMALS = {
        null, new BigDecimal("0.00"), new BigDecimal("-0.01"), new BigDecimal("1.10"),
        new BigDecimal("3.33"), new BigDecimal("-2.50"), new BigDecimal("99999999.99")
    };
    static final Object[] STRINGS = {
        null, "", "a", "A", "ab", "b", "z", "é", "e\u0301", "größer 🦀", "🦀🦀", "nul\0byte"
    };

    /** The aggregate calls most scenarios run. */
    static final String[] CALLS = {
        "COUNT(*)", "COUNT(`v`)", "SUM(`v`)", "MIN(`v`)", "MAX(`v`)"
    };

    // ---------------------------------------------------------------- scenarios

    @Override
    List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        Window[] windows = {
            tumble("'1' SECOND"), hop("'0.5' SECOND", "'1.5' SECOND"),
            cumulate("'0.5' SECOND", "'2' SECOND"), session("'1' SECOND")
        };
        for (String backend : BACKENDS) {
            String x = suffix(backend);
            for (Window w : windows) {
                String kind = w.function().toLowerCase();
                list.add(traced(kind + "_traced" + x, NodeKind.AGGREGATE, w, backend));
                list.add(random(kind + "_random" + x, NodeKind.AGGREGATE, w, backend));
            }
            for (Window w : new Window[] {windows[0], windows[1], windows[3]}) {
                String kind = "legacy_" + w.function().toLowerCase();
                list.add(traced(kind + "_traced" + x, NodeKind.GROUP_WINDOW, w, backend));
            }
            list.add(topN("top_n_traced" + x, windows[0], backend, true));
            list.add(dedup("keep_first" + x, windows[0], backend, "`ts`"));
            list.add(dedup("keep_last" + x, windows[1], backend, "`ts` DESC"));
        }
        // Argument types, DISTINCT and FILTER on each window kind, the backends alternating;
        // rows about 70 ms apart make sessions of a 50 ms gap.
        Window shortSession = session("'0.05' SECOND");
        windows[3] = shortSession;
        for (int i = 0; i < windows.length; i++) {
            list.add(types(windows[i].function().toLowerCase() + "_types" + suffix(BACKENDS[i % 2]),
                    windows[i], BACKENDS[i % 2]));
        }
        list.add(types("legacy_tumble_types_rocksdb", NodeKind.GROUP_WINDOW, windows[0],
                "rocksdb"));
        // Offsets, no keys, two keys.
        list.add(random("tumble_offset", NodeKind.AGGREGATE,
                new Window("TUMBLE", "INTERVAL '1' SECOND, INTERVAL '0.3' SECOND"), "hashmap"));
        list.add(random("hop_offset_rocksdb", NodeKind.AGGREGATE,
                new Window("HOP", "INTERVAL '1' SECOND, INTERVAL '2' SECOND, INTERVAL '-0.25'"
                        + " SECOND"), "rocksdb"));
        list.add(global("tumble_global_rocksdb", NodeKind.AGGREGATE, windows[0], "rocksdb"));
        list.add(global("session_global", NodeKind.AGGREGATE, shortSession, "hashmap"));
        list.add(global("legacy_session_global", NodeKind.GROUP_WINDOW, shortSession,
                "hashmap"));
        list.add(twoKeys("cumulate_two_keys_rocksdb", windows[2], "rocksdb"));
        // Top-N without its row number, over HOP windows; ties.
        list.add(topN("top_n_hop_rocksdb", windows[1], "rocksdb", false));
        list.add(topN("top_n_cumulate", windows[2], "hashmap", true));
        // Two phases: the global phase over the local's partials (each aligned window kind).
        list.add(twoPhase("two_phase_tumble", windows[0], "hashmap"));
        list.add(twoPhase("two_phase_tumble_rocksdb", windows[0], "rocksdb"));
        list.add(twoPhase("two_phase_hop_rocksdb", windows[1], "rocksdb"));
        list.add(twoPhase("two_phase_cumulate", windows[2], "hashmap"));
        // TIMESTAMP_LTZ windows in America/Los_Angeles across its 2026 transitions, and in a
        // zone without daylight saving.
        list.addAll(dst());
        return list;
    }

    /** Columns (k STRING, v BIGINT, id, ts) of a window node of {@code node}. */
    static Scenario kv(String name, String description, NodeKind node, Window w,
            String backend) {
        Scenario s = new Scenario(name, description, node, w);
        return s.column("k", DataTypes.STRING())
                .column("v", DataTypes.BIGINT())
                .idAndTime()
                .keys("k")
                .backend(backend);
    }

    /** The description's first words: the node and its window. */
    static String what(NodeKind node, Window w) {
        return switch (node) {
            case AGGREGATE -> w.function() + "(" + w.args() + ") window aggregate";
            case GLOBAL -> w.function() + "(" + w.args() + ") two-phase window aggregate's global"
                    + " phase, over the local phase's partials";
            case GROUP_WINDOW -> "legacy GROUP BY k, " + w.function() + "(ts, " + w.args()
                    + ")";
            case RANK -> "window Top-N over " + w.function() + "(" + w.args() + ")";
            case DEDUPLICATE -> "window deduplication over " + w.function() + "(" + w.args()
                    + ")";
        };
    }

    /**
     * Traced rows of (k, v): out of order between watermarks, a row at the watermark and rows
     * behind it (dropped for windows that fired, kept for a later HOP or CUMULATE window or a
     * session that did not), sessions that one row bridges, NULL values and a NULL key, empty
     * windows, then a random tail.
     */
    static Scenario traced(String name, NodeKind node, Window w, String backend) {
        Scenario s = kv(name, what(node, w) + ", traced: rows out of order, at and behind the"
                        + " watermark, a row bridging two sessions, NULL values and key, empty"
                        + " windows, then random rows", node, w, backend)
                .aggregate(CALLS)
                .windowTime();
        s.at(100L, "a", 1L)
                .at(300L, "b", 2L)
                .at(900L, "a", null)
                .at(950L, null, 4L)
                .at(1_100L, "a", 5L)
                .at(2_600L, "b", 6L)
                .at(40L, "a", 7L)             // out of order, before any watermark
                .wm(999)
                .at(999L, "a", 8L)            // at the watermark: late for windows ending at 1000
                .at(500L, "b", 9L)            // behind it: late unless a window is still open
                .at(1_300L, "b", 10L)         // b's session [300, 1300) grows to 2300
                .at(1_800L, null, null)
                .wm(1_500)
                .at(2_300L, "b", 11L)         // bridges b's sessions [..2300) and [2600..)
                .at(1_450L, "a", 12L)         // behind the watermark
                .at(7_000L, "a", 13L)         // empty windows before it
                .wm(3_000)
                .at(2_999L, "b", 14L)         // late
                .at(7_200L, "b", null)
                .wm(7_500);
        return stream(s, 60, 9_000, 120, (r, n) -> new Object[] {
            pick(r, KEYS), pickOrNull(r, BIGINTS, 5)
        });
    }

    /** Random (k, v) rows. */
    static Scenario random(String name, NodeKind node, Window w, String backend) {
        Scenario s = kv(name, what(node, w) + ", random rows: keys with NULL, out of order"
                        + " within and beyond the watermark's bound", node, w, backend)
                .aggregate(CALLS);
        return stream(s, 160, 0, 60, (r, n) -> new Object[] {
            pick(r, KEYS), pickOrNull(r, BIGINTS, 6)
        });
    }

    /**
     * {@code rows} more rows from {@code from} ms on, {@code step} ms apart on average: one in
     * twelve far behind the last watermark, one in twelve exactly at it, the rest out of order
     * by up to 400 ms; a watermark of the largest rowtime seen minus 300 ms every few rows.
     */
    static Scenario stream(Scenario s, int rows, long from, long step, RowMaker maker) {
        long max = s.lastWatermark == NO_WATERMARK ? Long.MIN_VALUE : s.lastWatermark - BASE_MS;
        for (int n = 0; n < rows; n++) {
            Object[] values = maker.row(s.rnd, n);
            int dice = s.rnd.nextInt(12);
            long last = s.lastWatermark - BASE_MS;
            long at;
            if (dice == 0 && s.lastWatermark != NO_WATERMARK) {
                at = last - 1 - s.rnd.nextInt(1_500);
            } else if (dice == 1 && s.lastWatermark != NO_WATERMARK) {
                at = last;
            } else {
                at = from + step * n - s.rnd.nextInt(400);
            }
            s.at(at, values);
            max = Math.max(max, at);
            if (s.rnd.nextInt(5) == 0 && BASE_MS + max - 300 > s.lastWatermark) {
                s.wm(max - 300);
            }
        }
        return s;
    }

    /** Aggregate calls over STRING, DOUBLE and DECIMAL arguments, DISTINCT and FILTER. */
    static Scenario types(String name, Window w, String backend) {
        return types(name, NodeKind.AGGREGATE, w, backend);
    }

    static Scenario types(String name, NodeKind node, Window w, String backend) {
        Scenario s = new Scenario(name, what(node, w) + " of STRING, DOUBLE and DECIMAL"
                        + " arguments: MIN/MAX of strings, SUM and AVG of dyadic doubles and of"
                        + " decimals, COUNT DISTINCT, a FILTER, MAX of decimals", node, w)
                .column("k", DataTypes.STRING())
                .column("s", DataTypes.STRING())
                .column("d", DataTypes.DOUBLE())
                .column("m", DataTypes.DECIMAL(10, 2))
                .idAndTime()
                .keys("k")
                .backend(backend)
                .aggregate("MIN(`s`)", "MAX(`s`)", "SUM(`d`)", "AVG(`d`)", "SUM(`m`)",
                        "AVG(`m`)", "COUNT(DISTINCT `s`)", "COUNT(*) FILTER (WHERE `d` > 0)",
                        "MAX(`m`)");
        return stream(s, 140, 0, 70, (r, n) -> new Object[] {
            pick(r, FEW_KEYS), pickOrNull(r, STRINGS, 6), pickOrNull(r, DOUBLES, 6),
            pickOrNull(r, DECIMALS, 6)
        });
    }

    /** A two-phase aggregate's global phase: the calls whose partials are plain values. */
    static Scenario twoPhase(String name, Window w, String backend) {
        Scenario s = kv(name, what(NodeKind.GLOBAL, w) + ": COUNT, SUM, MIN, MAX and AVG",
                NodeKind.GLOBAL, w, backend)
                .aggregate("COUNT(*)", "SUM(`v`)", "MIN(`v`)", "MAX(`v`)", "AVG(`v`)");
        return stream(s, 160, 0, 60, (r, n) -> new Object[] {
            pick(r, KEYS), pickOrNull(r, BIGINTS, 6)
        });
    }

    /** No keys: one group for all rows. */
    static Scenario global(String name, NodeKind node, Window w, String backend) {
        Scenario s = new Scenario(name, what(node, w) + " without keys: every row in one"
                        + " group", node, w)
                .column("v", DataTypes.BIGINT())
                .idAndTime()
                .backend(backend)
                .aggregate("COUNT(*)", "SUM(`v`)", "MAX(`v`)");
        return stream(s, 100, 0, 90, (r, n) -> new Object[] {pickOrNull(r, BIGINTS, 5)});
    }

    /** Two grouping keys, an INT and a STRING, both with NULLs. */
    static Scenario twoKeys(String name, Window w, String backend) {
        Scenario s = new Scenario(name, what(NodeKind.AGGREGATE, w) + " grouped by an INT and"
                        + " a STRING key, both with NULLs", NodeKind.AGGREGATE, w)
                .column("g", DataTypes.INT())
                .column("k", DataTypes.STRING())
                .column("v", DataTypes.BIGINT())
                .idAndTime()
                .keys("g", "k")
                .backend(backend)
                .aggregate("COUNT(*)", "SUM(`v`)", "MIN(`v`)")
                .windowTime();
        return stream(s, 120, 0, 70, (r, n) -> new Object[] {
            pickOrNull(r, new Object[] {1, 2, -3}, 4), pick(r, KEYS), pickOrNull(r, BIGINTS, 5)
        });
    }

    /**
     * Top-{@code 2} per window and key by v descending, ties left to arrival order ({@code v}
     * drawn from few values).
     */
    static Scenario topN(String name, Window w, String backend, boolean rankNumber) {
        Scenario s = kv(name, what(NodeKind.RANK, w) + ": ROW_NUMBER() <= 2 by v DESC NULLS"
                        + " LAST, ties in arrival order" + (rankNumber ? "" : ", without rn"),
                NodeKind.RANK, w, backend)
                .ranked("`v` DESC NULLS LAST", 2, rankNumber);
        return stream(s, 150, 0, 60, (r, n) -> new Object[] {
            pick(r, KEYS), pickOrNull(r, new Object[] {1L, 2L, 3L}, 5)
        });
    }

    /** Deduplication: the first (ORDER BY ts) or last (ts DESC) row per window and key. */
    static Scenario dedup(String name, Window w, String backend, String orderBy) {
        Scenario s = kv(name, what(NodeKind.DEDUPLICATE, w) + ": ORDER BY " + orderBy,
                NodeKind.DEDUPLICATE, w, backend)
                .ranked(orderBy, 1, false);
        return stream(s, 150, 0, 60, (r, n) -> new Object[] {
            pick(r, KEYS), pickOrNull(r, BIGINTS, 5)
        });
    }

    /**
     * TIMESTAMP_LTZ(3) windows across America/Los_Angeles's 2026 transitions (01:59 PDT ->
     * 01:00 PST at 09:00Z on November 1st, 01:59 PST -> 03:00 PDT at 10:00Z on March 8th), and
     * in Asia/Kolkata (no daylight saving, a half-hour offset).
     */
    static List<Scenario> dst() {
        String la = "America/Los_Angeles";
        Instant fall = Instant.parse("2026-11-01T07:30:00Z");
        Instant spring = Instant.parse("2026-03-08T08:30:00Z");
        List<Scenario> list = new ArrayList<>();
        list.add(zoned("dst_fall_tumble_hour", NodeKind.AGGREGATE, tumble("'1' HOUR"), la, fall,
                "hashmap"));
        list.add(zoned("dst_fall_hop_rocksdb", NodeKind.AGGREGATE,
                hop("'1' HOUR", "'2' HOUR"), la, fall, "rocksdb"));
        list.add(zoned("dst_fall_cumulate", NodeKind.AGGREGATE,
                cumulate("'30' MINUTE", "'2' HOUR"), la, fall, "hashmap"));
        list.add(zoned("dst_fall_session_rocksdb", NodeKind.AGGREGATE, session("'20' MINUTE"),
                la, fall, "rocksdb"));
        list.add(zoned("dst_spring_tumble_hour_rocksdb", NodeKind.AGGREGATE,
                tumble("'1' HOUR"), la, spring, "rocksdb"));
        list.add(zoned("dst_spring_hop", NodeKind.AGGREGATE, hop("'1' HOUR", "'2' HOUR"), la,
                spring, "hashmap"));
        list.add(zoned("dst_spring_tumble_day", NodeKind.AGGREGATE, tumble("'1' DAY"), la,
                spring, "hashmap"));
        list.add(zoned("dst_fall_top_n", NodeKind.RANK, tumble("'1' HOUR"), la, fall,
                "hashmap"));
        list.add(zoned("dst_spring_keep_last_rocksdb", NodeKind.DEDUPLICATE,
                hop("'30' MINUTE", "'1' HOUR"), la, spring, "rocksdb"));
        list.add(zoned("dst_fall_two_phase", NodeKind.GLOBAL, tumble("'30' MINUTE"), la, fall,
                "hashmap"));
        list.add(zoned("kolkata_tumble_odd", NodeKind.AGGREGATE, tumble("'7' MINUTE"),
                "Asia/Kolkata", fall, "hashmap"));
        list.add(zoned("kolkata_session_rocksdb", NodeKind.AGGREGATE, session("'5' MINUTE"),
                "Asia/Kolkata", fall, "rocksdb"));
        return list;
    }

    /**
     * Rows of (k, v) on a TIMESTAMP_LTZ(3) rowtime from {@code from} on, about 4 minutes
     * apart for 5 hours, some out of order and some late, in session time zone {@code zone}.
     */
    static Scenario zoned(String name, NodeKind node, Window w, String zone, Instant from,
            String backend) {
        Scenario s = new Scenario(name, what(node, w) + " on a TIMESTAMP_LTZ(3) rowtime in "
                        + zone + " from " + from + ": windows on local time", node, w)
                .ltz(zone)
                .column("k", DataTypes.STRING())
                .column("v", DataTypes.BIGINT())
                .idAndTime()
                .keys("k")
                .backend(backend);
        if (node == NodeKind.AGGREGATE || node == NodeKind.GLOBAL) {
            s.aggregate("COUNT(*)", "SUM(`v`)", "MAX(`v`)").windowTime();
        } else if (node == NodeKind.RANK) {
            s.ranked("`v` DESC NULLS LAST", 2, true);
        } else {
            s.ranked("`ts` DESC", 1, false);
        }
        long start = from.toEpochMilli() - BASE_MS;
        long max = Long.MIN_VALUE;
        for (int n = 0; n < 80; n++) {
            long at = start + n * 225_000L - s.rnd.nextInt(300_000);
            if (s.rnd.nextInt(15) == 0 && s.lastWatermark != NO_WATERMARK) {
                at = s.lastWatermark - BASE_MS - 1 - s.rnd.nextInt(1_200_000);
            }
            s.at(at, pick(s.rnd, FEW_KEYS), pickOrNull(s.rnd, BIGINTS, 6));
            max = Math.max(max, at);
            if (s.rnd.nextInt(4) == 0 && BASE_MS + max - 600_000 > s.lastWatermark) {
                s.wm(max - 600_000);
            }
        }
        return s;
    }
}
