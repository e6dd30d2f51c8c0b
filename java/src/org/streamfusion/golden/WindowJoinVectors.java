package org.streamfusion.golden;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.runtime.operators.join.window.WindowJoinOperator;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;

import org.streamfusion.flink.StreamFusionPlanner;
import org.streamfusion.golden.TwoInputVectors.Event;
import org.streamfusion.golden.TwoInputVectors.RowMaker;
import org.streamfusion.jni.NativeOperator;

import static org.streamfusion.golden.TwoInputVectors.END_OF_INPUT;
import static org.streamfusion.golden.TwoInputVectors.LEFT;
import static org.streamfusion.golden.TwoInputVectors.NO_WATERMARK;
import static org.streamfusion.golden.TwoInputVectors.RIGHT;
import static org.streamfusion.golden.TwoInputVectors.SEPARATOR;
import static org.streamfusion.golden.TwoInputVectors.columns;
import static org.streamfusion.golden.TwoInputVectors.longs;
import static org.streamfusion.golden.TwoInputVectors.plain;

/**
 * Golden changelogs of Flink 2.3.0's window join ({@code StreamExecWindowJoin}: {@code L
 * [INNER|LEFT|RIGHT|FULL] JOIN R ON L.window_start = R.window_start AND L.window_end =
 * R.window_end AND ..} over two window TVFs, and the semi and anti joins the planner makes of
 * {@code IN}, {@code EXISTS}, {@code NOT EXISTS} and {@code NOT IN} sub-queries in the same
 * window), produced by the released {@code WindowJoinOperator} fed one event at a time in a
 * fixed order, each event's output recorded right after it. The native window join is tested
 * against them ({@code crates/streamfusion/tests/golden/flink-2.3.0-window-join.jsonl}).
 *
 * <p><b>Why not a SQL job.</b> As for {@link JoinVectors}: the interleaving of a join's two
 * inputs in a job is up to the network stack. So each scenario's query is planned by Flink, and
 * the operator Flink built is driven in a fixed order:
 *
 * <ol>
 *   <li>Planning. Two views, {@code lhs} and {@code rhs}, each rows of its table with the
 *       rowtime attribute {@code ts} ({@code SOURCE_WATERMARK()}), are joined by the scenario's
 *       query, translated by {@code toChangelogStream} with {@code streamfusion.enabled} on,
 *       mini-batch and async state off. The program takes the one {@code TwoInputTransformation}
 *       whose description is the {@code WindowJoin}, its operator (exactly a {@code
 *       WindowJoinOperator}), its two state key selectors and its state key type, and the node
 *       as StreamFusion's planner described it (every node refused: the native library is
 *       pointed at nothing); it checks the node against the operator (join type, NULL filters,
 *       window end columns, shift time zone, input and output columns) and against what the
 *       scenario asks for.
 *   <li>The node's input rows. The window TVFs (and the Calcs around them) are run in a
 *       MiniCluster job: each side's source emits its rows in the scenario's order, a
 *       separator watermark (far below any row time) after each, and the rows reaching the join
 *       node's input transformation are read there (rows and watermarks in their order): the
 *       rows before the j-th separator are what the side's j-th table row became (none, one, or
 *       one per window of a HOP or CUMULATE). The aligned window TVF drops no row, whatever the
 *       watermark. A SESSION TVF keeps its rows until the watermark closes their session (and
 *       drops rows behind it): there each side's source emits the scenario's watermarks (after
 *       its last row before each; each side has a row before the first), and the rows before
 *       each watermark (and before the end of input) are what the TVF emitted when it arrived;
 *       they reach the operator before that watermark, the left side's first. Each row is kept
 *       as the {@code BinaryRowData} bytes the input's serializer writes (what the network
 *       would deliver).
 *   <li>Execution. {@link TwoInputVectors.Driver}, a one-input operator of event indexes,
 *       owns the planner's operator instance and sets it up as a task would (its {@code
 *       setup} with the driver's task, config and an output that stamps each record with the
 *       current event's index; its own keyed state and timers from the task's state
 *       initializer; {@code open}). Per event it sets the operator's current key with the
 *       planner's key selector of the event's side and calls the released {@code
 *       processElement1} (left) or {@code processElement2} (right), or, for a watermark, {@code
 *       processWatermark1} and {@code processWatermark2} with the same watermark: both inputs'
 *       watermarks advance together, so the operator's combined watermark is the scenario's. A
 *       process function downstream (chained) writes each output with its event. One input
 *       task, one channel, one chain: the order of the events and of each event's outputs is
 *       fixed.
 * </ol>
 *
 * <p>The scenarios of one state backend run in one job, each a pipeline of its own. On the heap
 * timers of one timestamp fire in the heap's order, on RocksDB in the order of their serialized
 * keys, so one watermark's outputs may come in another order across join keys: most scenarios
 * have a {@code _rocksdb} twin with the same events, and the program checks that every event of
 * a twin has the same outputs as a multiset on both backends. Per join key the order is fixed:
 * a key's windows fire in the order of their ends, and a window joins its rows in arrival order.
 *
 * <p>What Flink 2.3.0's released operator does (so the file shows it): a row whose window has
 * fired ({@code window_end - 1 <= watermark}, on local time for a TIMESTAMP_LTZ attribute) is
 * dropped; a window joins when the watermark reaches {@code window_end - 1}; every output is
 * {@code +I}; a NULL in a key column that filters NULLs (an {@code =} key, not {@code IS NOT
 * DISTINCT FROM}) never matches; {@code NOT IN} becomes an anti join without keys on {@code k
 * IS NULL OR k0 IS NULL OR k = k0}; a join on the window alone has no keys; windows of a
 * SESSION TVF join only a session of the same start and end on the other side.
 *
 * <p>Usage: {@code WindowJoinVectors <output path> [scenario..]} (all scenarios when none are
 * named), on the planner classpath ({@code classpath-planner.txt}). Output is JSON Lines (UTF-8,
 * LF):
 *
 * <ul>
 *   <li>line 1: {@code {"flink":"2.3.0","seed":"0x..","generator":"java/src/org/streamfusion/
 *       golden/WindowJoinVectors.java","format":..}};
 *   <li>per scenario, a header {@code {"scenario":name,"description":..,"kind":"tumble"|"hop"|
 *       "cumulate"|"session","join_type":"INNER"|"LEFT"|"RIGHT"|"FULL"|"SEMI"|"ANTI","window":..,"zone":
 *       ..,"backend":"hashmap"|"rocksdb","operator":"WindowJoinOperator","left_keys":[..],
 *       "right_keys":[..],"filter_nulls":[..],"left_window_end":i,"right_window_end":j,"node":
 *       <description text>,"config":<options text>,"left":[{"name":..,"type":..}..],"right":
 *       [..],"output":[..],"sql":..,"plan":..,"events":n,"rows_out":m}}: {@code left} and
 *       {@code right} are the node's input rows, {@code output} the operator's (the left row
 *       then the right row; the left row alone for a semi or anti join), keys and window ends
 *       column indexes into a side's row, {@code plan} the translated query's operators;
 *   <li>then n events, each {@code {"in":"+I","side":0|1,"row":[..]}} (side 0 the left input)
 *       or {@code {"watermark":ms}} (both inputs), each immediately followed by the lines {@code
 *       {"out":"+I","row":[..]}} the operator emitted for it, in emission order ({@code m} in
 *       all). The last event is the watermark {@code Long.MAX_VALUE}, the end of input.
 * </ul>
 *
 * <p>Types and values as {@link JoinVectors} writes them (types without nullability and time
 * attributes; TIMESTAMP_LTZ(3) as epoch milliseconds). Every scenario's rows come from the
 * project's seed and its name (without {@code _rocksdb}), so two runs write byte-identical files.
 */
public final class WindowJoinVectors {
    static final String GENERATOR = "java/src/org/streamfusion/golden/WindowJoinVectors.java";
    static final String NODE_TYPE = "stream-exec-window-join_1";
    static final String[] BACKENDS = {"hashmap", "rocksdb"};
    static final String[] JOIN_TYPES = {"INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"};
    static final long BASE_MS = NodeVectors.BASE_MS;

    private WindowJoinVectors() {}

    /** A window TVF: its function and its arguments after the time column, as SQL writes them. */
    record Window(String function, String args) {
        String sql() {
            return function + "(" + args + ")";
        }
    }

    /** How the query joins: {@code ON}, or the sub-query forms of semi and anti joins. */
    enum Form {
        ON, IN, EXISTS, NOT_EXISTS, NOT_IN;

        String joinType(String on) {
            return switch (this) {
                case ON -> on;
                case IN, EXISTS -> "SEMI";
                case NOT_EXISTS, NOT_IN -> "ANTI";
            };
        }
    }

    /** A scenario: the two tables, the window, the query, and the events. */
    static final class Scenario {
        final String name;
        final String description;
        final SplittableRandom rnd;
        final Window window;
        String backend = "hashmap";
        String zone = "UTC";
        boolean ltz;
        Form form = Form.ON;
        /** For {@link Form#ON}: INNER, LEFT, RIGHT or FULL. */
        String onType = "INNER";
        /** The condition besides the window's, over {@code L} and {@code R} (may be empty). */
        String condition = "L.k = R.k";
        /** The outer select list, or null for every column of the joined sides. */
        String select;
        /** The table columns before {@code id} and {@code ts}. */
        final List<JoinVectors.Column> left = new ArrayList<>();
        final List<JoinVectors.Column> right = new ArrayList<>();
        final List<Event> events = new ArrayList<>();
        /** The last watermark, epoch ms. */
        long lastWatermark = NO_WATERMARK;

        Scenario(String name, String description, Window window) {
            this.name = name;
            this.description = description;
            this.window = window;
            // A scenario and its RocksDB twin draw the same rows.
            this.rnd = new SplittableRandom(
                    GroupAggVectors.SEED ^ name.replace("_rocksdb", "").hashCode());
        }

        Scenario backend(String backend) {
            this.backend = backend;
            return this;
        }

        Scenario ltz(String zone) {
            this.ltz = true;
            this.zone = zone;
            return this;
        }

        Scenario join(String onType) {
            this.form = Form.ON;
            this.onType = onType;
            return this;
        }

        /** {@code SEMI} as {@code L.k IN (..)}, {@code ANTI} as {@code NOT EXISTS (..)}. */
        Scenario type(String joinType) {
            return switch (joinType) {
                case "SEMI" -> form(Form.IN);
                case "ANTI" -> form(Form.NOT_EXISTS);
                default -> join(joinType);
            };
        }

        Scenario form(Form form) {
            this.form = form;
            return this;
        }

        Scenario on(String condition) {
            this.condition = condition;
            return this;
        }

        Scenario select(String select) {
            this.select = select;
            return this;
        }

        Scenario left(String name, DataType type) {
            left.add(new JoinVectors.Column(name, type));
            return this;
        }

        Scenario right(String name, DataType type) {
            right.add(new JoinVectors.Column(name, type));
            return this;
        }

        /** Both tables: the columns (k INT, v BIGINT). */
        Scenario kv() {
            return left("k", DataTypes.INT()).left("v", DataTypes.BIGINT())
                    .right("k", DataTypes.INT()).right("v", DataTypes.BIGINT());
        }

        String joinType() {
            return form.joinType(onType);
        }

        List<JoinVectors.Column> columns(int side) {
            return side == LEFT ? left : right;
        }

        /** All columns of a side's table: its own, then {@code id} and {@code ts}. */
        List<JoinVectors.Column> table(int side) {
            List<JoinVectors.Column> all = new ArrayList<>(columns(side));
            all.add(new JoinVectors.Column("id", DataTypes.INT().notNull()));
            all.add(new JoinVectors.Column("ts", ltz ? DataTypes.TIMESTAMP_LTZ(3).notNull()
                    : DataTypes.TIMESTAMP(3).notNull()));
            return all;
        }

        /**
         * A row of {@code side} at {@code at} ms after {@link NodeVectors#BASE}: its values,
         * then its id (the event's index) and its rowtime.
         */
        Scenario at(int side, long at, Object... values) {
            return atEpoch(side, BASE_MS + at, values);
        }

        Scenario at(int side, Instant at, Object... values) {
            return atEpoch(side, at.toEpochMilli(), values);
        }

        Scenario atEpoch(int side, long ms, Object... values) {
            if (values.length != columns(side).size()) {
                throw new IllegalArgumentException(name + ": a row of " + values.length
                        + " values for " + columns(side).size() + " columns");
            }
            Object[] row = Arrays.copyOf(values, values.length + 2);
            row[values.length] = events.size();
            row[values.length + 1] = ltz ? Instant.ofEpochMilli(ms)
                    : NodeVectors.epochTimestamp(ms);
            events.add(new Event(side, row, 0));
            return this;
        }

        /** A watermark of both inputs, {@code at} ms after {@link NodeVectors#BASE}. */
        Scenario wm(long at) {
            return wmEpoch(BASE_MS + at);
        }

        Scenario wm(Instant at) {
            return wmEpoch(at.toEpochMilli());
        }

        Scenario wmEpoch(long ms) {
            if (ms <= lastWatermark) {
                throw new IllegalArgumentException(name + ": watermark " + ms
                        + " does not exceed " + lastWatermark);
            }
            events.add(new Event(-1, null, ms));
            lastWatermark = ms;
            return this;
        }

        /**
         * {@code rows} more rows, each on a random side, from {@code from} (epoch ms) on, {@code
         * step} ms apart on average: one in twelve far behind the last watermark, one in twelve
         * exactly at it, the rest out of order by up to {@code jitter} ms; after about every
         * fifth row a watermark {@code lag} ms behind the largest row time.
         */
        Scenario stream(int rows, long from, long step, long jitter, long lag, RowMaker lefts,
                RowMaker rights) {
            long max = lastWatermark == NO_WATERMARK ? Long.MIN_VALUE : lastWatermark + lag;
            for (int n = 0; n < rows; n++) {
                int side = rnd.nextInt(2);
                Object[] values = (side == LEFT ? lefts : rights).row(rnd, n);
                int dice = rnd.nextInt(12);
                long at;
                if (dice == 0 && lastWatermark != NO_WATERMARK) {
                    at = lastWatermark - 1 - rnd.nextLong(4 * jitter);
                } else if (dice == 1 && lastWatermark != NO_WATERMARK) {
                    at = lastWatermark;
                } else {
                    at = from + step * n - rnd.nextLong(jitter);
                }
                atEpoch(side, at, values);
                max = Math.max(max, at);
                if (rnd.nextInt(5) == 0 && max - lag > lastWatermark) {
                    wmEpoch(max - lag);
                }
            }
            return this;
        }

        /** {@link #stream} of milliseconds: rows 60 ms apart after the last watermark. */
        Scenario random(int rows, RowMaker lefts, RowMaker rights) {
            long from = lastWatermark == NO_WATERMARK ? BASE_MS : lastWatermark + 300;
            return stream(rows, from, 60, 400, 300, lefts, rights);
        }

        /** The time column's type in SQL. */
        String timeType() {
            return ltz ? "TIMESTAMP_LTZ(3)" : "TIMESTAMP(3)";
        }

        /** {@code (SELECT * FROM TABLE(<window>(TABLE view, DESCRIPTOR(ts), ..))) alias}. */
        String tvf(String view, String alias) {
            String partition = session() ? " PARTITION BY k" : "";
            return "(SELECT * FROM TABLE(" + window.function() + "(TABLE " + view + partition
                    + ", DESCRIPTOR(ts), " + window.args() + "))) " + alias;
        }

        /**
         * Every column of side {@code side} for the outer select list: {@code ts} cast (a query's
         * result may hold one rowtime attribute at most), the right's renamed with an {@code r}
         * prefix.
         */
        String all(int side) {
            String alias = side == LEFT ? "L" : "R";
            String prefix = side == LEFT ? "" : "r";
            List<String> items = new ArrayList<>();
            for (JoinVectors.Column c : table(side)) {
                String item = c.name().equals("ts")
                        ? "CAST(" + alias + ".ts AS " + timeType() + ")"
                        : alias + "." + c.name();
                items.add(item + (prefix.isEmpty() && !c.name().equals("ts") ? ""
                        : " AS " + prefix + c.name()));
            }
            items.add(alias + ".window_start" + (prefix.isEmpty() ? "" : " AS rwindow_start"));
            items.add(alias + ".window_end" + (prefix.isEmpty() ? "" : " AS rwindow_end"));
            return String.join(", ", items);
        }

        String sql() {
            String l = tvf("lhs", "L");
            String r = tvf("rhs", "R");
            String sameWindow = "L.window_start = R.window_start AND L.window_end = R.window_end";
            String and = condition.isEmpty() ? "" : " AND " + condition;
            String lefts = select != null ? select : all(LEFT);
            return switch (form) {
                case ON -> "SELECT " + (select != null ? select : lefts + ", " + all(RIGHT))
                        + " FROM " + l + " " + (onType.equals("FULL") ? "FULL OUTER" : onType)
                        + " JOIN " + r + " ON " + sameWindow + and;
                case IN -> "SELECT " + lefts + " FROM " + l + " WHERE L.k IN (SELECT R.k FROM "
                        + r + " WHERE " + sameWindow + and + ")";
                case NOT_IN -> "SELECT " + lefts + " FROM " + l + " WHERE L.k NOT IN (SELECT R.k"
                        + " FROM " + r + " WHERE " + sameWindow + and + ")";
                case EXISTS -> "SELECT " + lefts + " FROM " + l + " WHERE EXISTS (SELECT * FROM "
                        + r + " WHERE " + sameWindow + and + ")";
                case NOT_EXISTS -> "SELECT " + lefts + " FROM " + l + " WHERE NOT EXISTS (SELECT"
                        + " * FROM " + r + " WHERE " + sameWindow + and + ")";
            };
        }

        String kind() {
            return window.function().toLowerCase();
        }

        /** The description: the query in words, then what the scenario's rows do. */
        String describe() {
            String join = switch (form) {
                case ON -> onType + " window join";
                case IN -> "semi window join L.k IN (SELECT R.k ..)";
                case EXISTS -> "semi window join EXISTS (..)";
                case NOT_EXISTS -> "anti window join NOT EXISTS (..)";
                case NOT_IN -> "anti window join L.k NOT IN (SELECT R.k ..)";
            };
            return join + " in the same " + window.sql() + " window"
                    + (condition.isEmpty() ? "" : " and " + condition)
                    + (ltz ? ", a TIMESTAMP_LTZ(3) rowtime in " + zone : "") + ": "
                    + description;
        }

        /**
         * A SESSION window: its TVF keeps rows until the watermark closes their session, so the
         * join node's rows are read per watermark, not per table row.
         */
        boolean session() {
            return window.function().equals("SESSION");
        }

        /** The scenario's watermarks, in order (epoch ms). */
        List<Long> watermarks() {
            List<Long> out = new ArrayList<>();
            for (Event e : events) {
                if (e.isWatermark()) {
                    out.add(e.watermark());
                }
            }
            return out;
        }

        /**
         * The watermarks side {@code side}'s source emits after each of its rows: the separator
         * after each; for a SESSION window the scenario's watermarks after the side's last row
         * before them (so each side needs a row before the first).
         */
        long[][] schedule(int side) {
            List<List<Long>> after = new ArrayList<>();
            for (Event e : events) {
                if (e.isWatermark() && session()) {
                    if (after.isEmpty()) {
                        throw new IllegalStateException(name + ": a watermark before the first"
                                + " row of side " + side);
                    }
                    after.get(after.size() - 1).add(e.watermark());
                } else if (!e.isWatermark() && e.side() == side) {
                    after.add(new ArrayList<>(session() ? List.of()
                            : List.of(SEPARATOR + after.size())));
                }
            }
            long[][] out = new long[after.size()][];
            for (int j = 0; j < out.length; j++) {
                out[j] = longs(after.get(j));
            }
            return out;
        }
    }

    /** A scenario planned: the window join operator Flink built and what the file says. */
    static final class Planned extends TwoInputVectors.Planned {
        final Scenario scenario;
        int[] windowEnds;

        Planned(Scenario scenario, int tag) {
            super(scenario.name, tag);
            this.scenario = scenario;
        }

        /** The separators after each row; a SESSION scenario's watermarks. */
        @Override
        long[] due(int side) {
            return scenario.session() ? longs(scenario.watermarks())
                    : Arrays.stream(scenario.schedule(side)).flatMapToLong(Arrays::stream)
                            .toArray();
        }

        /** A SESSION TVF emits its rows on watermarks. */
        @Override
        boolean perWatermark() {
            return scenario.session();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: WindowJoinVectors <output path> [scenario..]");
            System.exit(2);
        }
        List<String> only = Arrays.asList(args).subList(1, args.length);
        // The planner describes the nodes; nothing may run natively: with no loadable native
        // library every node is refused.
        System.setProperty(NativeOperator.LIBRARY_PATH_PROPERTY,
                "/nonexistent/streamfusion-golden-vectors-run-stock/libstreamfusion_jni.so");
        List<Scenario> scenarios = JoinVectors.select(scenarios(), s -> s.name, only);
        List<Planned> planned = inputs(scenarios);
        for (String backend : BACKENDS) {
            List<Planned> group = new ArrayList<>();
            for (Planned p : planned) {
                if (p.scenario.backend.equals(backend)) {
                    group.add(p);
                }
            }
            if (!group.isEmpty()) {
                run(backend, group);
            }
        }
        TwoInputVectors.compareTwins(planned);

        StringBuilder out = new StringBuilder(1 << 20);
        out.append("{\"flink\":\"2.3.0\",\"seed\":\"0x")
                .append(Long.toHexString(GroupAggVectors.SEED)).append("\",\"generator\":");
        Json.string(out, GENERATOR);
        out.append(",\"format\":");
        Json.string(out, "per scenario: a header line (scenario, description, kind, join_type,"
                + " window, zone, backend, operator, left_keys, right_keys, filter_nulls,"
                + " left_window_end, right_window_end, node and config: the planner's texts for"
                + " flink::plan_node, left, right and output columns, sql, plan, events,"
                + " rows_out), then events lines {\"in\":kind,\"side\":0|1,\"row\":[..]} or"
                + " {\"watermark\":ms} (both inputs), each followed by the {\"out\":kind,\"row\":"
                + "[..]} lines emitted for it; BIGINT, DOUBLE (Double.toString), DECIMAL (plain)"
                + " and TIMESTAMP (epoch ms) values are strings");
        out.append("}\n");
        int total = 0;
        for (Planned p : planned) {
            write(p, out);
            for (List<String> o : p.outputs) {
                total += o.size();
            }
        }
        Path path = Path.of(args[0]);
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        Files.write(path, out.toString().getBytes(StandardCharsets.UTF_8));
        System.err.printf("wrote %d scenarios (%d output rows) to %s%n", planned.size(), total,
                path);
    }

    // ---------------------------------------------------------------- planning

    /**
     * Plans every scenario in one environment and runs the sides of their join nodes' inputs
     * (each side's rows with a separator watermark after each, or a SESSION scenario's
     * watermarks) in one job, reading what reaches each join node; returns the scenarios
     * planned, with their events.
     */
    static List<Planned> inputs(List<Scenario> scenarios) throws Exception {
        List<Planned> planned =
                TwoInputVectors.inputs(scenarios, WindowJoinVectors::plan, "window-join-inputs");
        for (Planned p : planned) {
            feed(p);
        }
        return planned;
    }

    /**
     * Plans the scenario's query in {@code tEnv} and returns the window join operator Flink
     * built, checked against the node and the scenario.
     */
    static Planned plan(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Scenario s,
            int tag) throws Exception {
        Planned p = new Planned(s, tag);
        StreamFusionPlanner.clearDecisions();
        ExecNodeContext.resetIdCounter();
        TableConfig config = tEnv.getConfig();
        config.set(StreamFusionPlanner.ENABLED, true);
        config.set("table.local-time-zone", s.zone);
        config.set("table.exec.mini-batch.enabled", "false");
        config.set("table.exec.async-state.enabled", "false");
        view(env, tEnv, s, LEFT, "lhs");
        view(env, tEnv, s, RIGHT, "rhs");
        p.sql = s.sql();
        Table result = tEnv.sqlQuery(p.sql);
        DataStream<Row> changes = tEnv.toChangelogStream(result);
        Transformation<?> root = changes.getTransformation();
        p.plan = TwoInputVectors.plan(root);
        // Exactly the released operator: not the async-state variant.
        p.operator = TwoInputVectors.joinOperator(p, root, "WindowJoin", WindowJoinOperator.class);
        TwoInputVectors.decision(p, NODE_TYPE);
        check(p);
        System.err.printf("%s: %s over %s, keys %s/%s, filter nulls %s%n", s.name, s.joinType(),
                s.window.sql(), Arrays.toString(p.keys[LEFT]), Arrays.toString(p.keys[RIGHT]),
                Arrays.toString(p.filterNulls));
        return p;
    }

    /** Checks the node against the operator and the scenario; fills in what the file says. */
    static void check(Planned p) throws Exception {
        Scenario s = p.scenario;
        JsonNode description = JoinVectors.JSON.readTree(p.description);
        JsonNode node = description.get("node");
        JsonNode spec = node.get("joinSpec");
        List<String> problems = new ArrayList<>();
        TwoInputVectors.columns(p, description, problems);
        p.keys = new int[][] {JoinVectors.ints(spec.get("leftKeys")),
            JoinVectors.ints(spec.get("rightKeys"))};
        p.windowEnds = new int[2];
        String[] windowings = {"leftWindowing", "rightWindowing"};
        String[] endFields = {"leftWindowEndIndex", "rightWindowEndIndex"};
        for (int side = 0; side < 2; side++) {
            RowType type = p.inputs[side];
            JsonNode windowing = node.get(windowings[side]);
            NodeVectors.expect(problems, windowing, "strategy", "WindowAttached");
            p.windowEnds[side] = windowing.get("windowEnd").asInt();
            if ((int) JoinVectors.field(p.operator, endFields[side]) != p.windowEnds[side]) {
                problems.add(endFields[side] + " " + JoinVectors.field(p.operator,
                        endFields[side]) + ", the node's " + p.windowEnds[side]);
            }
            if (!type.getFieldNames().get(p.windowEnds[side]).startsWith("window_end")) {
                problems.add("window end column " + p.windowEnds[side] + " of " + type);
            }
        }
        NodeVectors.expect(problems, spec, "joinType", s.joinType());
        if (!((Enum<?>) JoinVectors.field(p.operator, "joinType")).name().equals(s.joinType())) {
            problems.add("operator join type " + JoinVectors.field(p.operator, "joinType"));
        }
        p.filterNulls = (boolean[]) JoinVectors.field(p.operator, "filterNullKeys");
        JsonNode nulls = spec.get("filterNulls");
        boolean agree = nulls.size() == p.filterNulls.length
                && p.filterNulls.length == p.keys[LEFT].length
                && p.keys[LEFT].length == p.keys[RIGHT].length;
        for (int i = 0; agree && i < p.filterNulls.length; i++) {
            agree = nulls.get(i).asBoolean() == p.filterNulls[i];
        }
        if (!agree) {
            problems.add("filterNulls " + nulls + ", the operator's "
                    + Arrays.toString(p.filterNulls));
        }
        ZoneId shift = (ZoneId) JoinVectors.field(p.operator, "shiftTimeZone");
        ZoneId expected = ZoneId.of(s.ltz ? s.zone : "UTC");
        if (!shift.equals(expected)) {
            problems.add("shift time zone " + shift + ", not " + expected);
        }
        if (!node.path("description").asText().contains("leftWindow=["
                + s.window.function() + "(")) {
            problems.add("not a " + s.window.function() + " window");
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(s.name + ": the window join is not what the scenario"
                    + " asks for: " + problems + " in " + p.description);
        }
    }


    /**
     * Creates (or replaces) the view of one side's table: its rows in the scenario's order, with
     * the separator watermark after each, {@code ts} its rowtime attribute.
     */
    static void view(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Scenario s,
            int side, String name) {
        TwoInputVectors.view(env, tEnv, s.name, s.table(side), s.events, side, s.schedule(side),
                name);
    }

    /**
     * The events the operator receives, then the end of input, with every row's key (by the
     * planner's key selector) checked against the node's key columns.
     */
    static void feed(Planned p) throws Exception {
        Scenario s = p.scenario;
        List<Integer> sides = new ArrayList<>();
        List<byte[]> rows = new ArrayList<>();
        List<Long> watermarks = new ArrayList<>();
        if (s.session()) {
            sessionFeed(p, sides, rows, watermarks);
        } else {
            TwoInputVectors.rowFeed(p, s.events, s::table, sides, rows, watermarks);
        }
        // The end of input fires every window left.
        sides.add(-1);
        rows.add(null);
        watermarks.add(END_OF_INPUT);
        TwoInputVectors.feed(p, sides, rows, watermarks);
    }

    /**
     * A SESSION scenario's events: before each watermark (and the end of input) the rows each
     * side's TVF emitted when that watermark reached it, the left side's first.
     */
    static void sessionFeed(Planned p, List<Integer> sides, List<byte[]> rows,
            List<Long> watermarks) {
        List<Long> due = p.scenario.watermarks();
        for (int side = 0; side < 2; side++) {
            if (p.segments.get(side).size() != due.size() + 1) {
                throw new IllegalStateException(p.scenario.name + ": side " + side + " saw "
                        + p.segments.get(side).size() + " of " + (due.size() + 1)
                        + " watermarks");
            }
        }
        for (int m = 0; m <= due.size(); m++) {
            for (int side = 0; side < 2; side++) {
                for (byte[] row : p.segments.get(side).get(m)) {
                    sides.add(side);
                    rows.add(row);
                    watermarks.add(0L);
                }
            }
            if (m < due.size()) {
                sides.add(-1);
                rows.add(null);
                watermarks.add(due.get(m));
            }
        }
    }


    /** Runs the scenarios of one backend in one job and fills in their outputs. */
    static void run(String backend, List<Planned> group) throws Exception {
        TwoInputVectors.run(backend, group, "window join");
        for (Planned p : group) {
            for (int i = 0; i < p.outputs.size(); i++) {
                if (p.feed.side(i) >= 0 && !p.outputs.get(i).isEmpty()) {
                    throw new IllegalStateException(p.scenario.name + ": a row event emitted");
                }
            }
        }
    }
    // ---------------------------------------------------------------- writing

    static void write(Planned p, StringBuilder out) {
        Scenario s = p.scenario;
        int rowsOut = 0;
        for (List<String> o : p.outputs) {
            rowsOut += o.size();
        }
        out.append("{\"scenario\":");
        Json.string(out, s.name);
        out.append(",\"description\":");
        Json.string(out, s.describe());
        out.append(",\"kind\":");
        Json.string(out, s.kind());
        out.append(",\"join_type\":");
        Json.string(out, s.joinType());
        out.append(",\"window\":");
        Json.string(out, s.window.sql());
        out.append(",\"zone\":");
        Json.string(out, s.zone);
        out.append(",\"backend\":");
        Json.string(out, s.backend);
        out.append(",\"operator\":");
        Json.string(out, p.operator.getClass().getSimpleName());
        out.append(",\"left_keys\":").append(NodeVectors.list(p.keys[LEFT]))
                .append(",\"right_keys\":").append(NodeVectors.list(p.keys[RIGHT]))
                .append(",\"filter_nulls\":[");
        for (int i = 0; i < p.filterNulls.length; i++) {
            out.append(i == 0 ? "" : ",").append(p.filterNulls[i]);
        }
        out.append("],\"left_window_end\":").append(p.windowEnds[LEFT])
                .append(",\"right_window_end\":").append(p.windowEnds[RIGHT])
                .append(",\"node\":");
        Json.string(out, p.description);
        out.append(",\"config\":");
        Json.string(out, p.config);
        out.append(",\"left\":");
        columns(out, p.inputs[LEFT]);
        out.append(",\"right\":");
        columns(out, p.inputs[RIGHT]);
        out.append(",\"output\":");
        columns(out, p.output);
        out.append(",\"sql\":");
        Json.string(out, p.sql);
        out.append(",\"plan\":");
        Json.string(out, p.plan);
        out.append(",\"events\":").append(p.feed.size()).append(",\"rows_out\":")
                .append(rowsOut).append("}\n");
        TwoInputVectors.writeEvents(p, out);
    }

    // ---------------------------------------------------------------- scenarios

    static final Object[] KEYS = {1, 2, 3, null};
    static final Object[] FEW_KEYS = {1, 2};
    static final Object[] LONGS = {null, 0L, 1L, 5L, -7L, 42L};
    static final Object[] STRING_KEYS = {null, "", "a", "größer 🦀", "\uff5e", "🦀", "é",
        "e\u0301"};
    static final String RANDOM = "random rows: keys with NULL, values with NULL, out of order,"
            + " at and far behind the watermark";

    static final Window TUMBLE = new Window("TUMBLE", "INTERVAL '1' SECOND");
    static final Window HOP = new Window("HOP", "INTERVAL '0.5' SECOND, INTERVAL '1.5' SECOND");
    static final Window CUMULATE =
            new Window("CUMULATE", "INTERVAL '0.5' SECOND, INTERVAL '2' SECOND");

    static String suffix(String backend) {
        return NodeVectors.suffix(backend);
    }

    /** Random (k, v) rows: keys {@code keys}, values from {@link #LONGS}. */
    static RowMaker kv(Object[] keys) {
        return (r, n) -> new Object[] {NodeVectors.pick(r, keys), NodeVectors.pick(r, LONGS)};
    }

    static List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        for (String backend : BACKENDS) {
            String x = suffix(backend);
            for (String type : JOIN_TYPES) {
                String t = type.toLowerCase();
                list.add(traced(t + "_traced" + x, type, backend));
                list.add(random(t + "_hop" + x, type, HOP, backend));
                list.add(random(t + "_cumulate" + x, type, CUMULATE, backend));
            }
            // The other sub-query forms of semi and anti joins.
            list.add(random("semi_exists" + x, "SEMI", HOP, backend).form(Form.EXISTS));
            list.add(notIn("anti_not_in" + x, backend));
            // IS NOT DISTINCT FROM: NULL keys match each other.
            list.add(random("left_not_distinct" + x, "LEFT", TUMBLE, backend)
                    .on("L.k IS NOT DISTINCT FROM R.k"));
            list.add(nonEqui("left_nonequi" + x, "LEFT", TUMBLE, backend));
            list.add(twoKeys("right_two_keys" + x, backend));
            list.add(types("types" + x, backend));
            list.add(session("inner_session" + x, "INNER", backend));
            list.add(epoch("full_epoch" + x, backend));
        }
        list.add(nonEqui("inner_nonequi_cumulate", "INNER", CUMULATE, "hashmap"));
        list.add(nonEqui("full_nonequi_hop_rocksdb", "FULL", HOP, "rocksdb"));
        list.add(nonEqui("right_nonequi", "RIGHT", TUMBLE, "hashmap"));
        list.add(nonEqui("semi_nonequi_rocksdb", "SEMI", HOP, "rocksdb").form(Form.EXISTS));
        list.add(nonEqui("anti_nonequi", "ANTI", CUMULATE, "hashmap"));
        list.add(strings("full_nonequi_strings_rocksdb", "rocksdb"));
        list.add(random("left_nonequi_rowtime", "LEFT", HOP, "hashmap")
                .on("L.k = R.k AND L.ts < R.ts"));
        list.add(hotKey("inner_hot_key_rocksdb", "rocksdb"));
        list.add(random("full_not_distinct_hop_rocksdb", "FULL", HOP, "rocksdb")
                .on("L.k IS NOT DISTINCT FROM R.k"));
        list.add(new Scenario("inner_window_only", "no keys: every pair of a window matches; "
                + RANDOM, HOP).kv().join("INNER").on("").random(50, kv(KEYS), kv(KEYS)));
        list.add(new Scenario("full_window_only_rocksdb", "no keys; " + RANDOM, TUMBLE).kv()
                .join("FULL").backend("rocksdb").on("").random(100, kv(KEYS), kv(KEYS)));
        list.add(random("left_offset", "LEFT", new Window("TUMBLE", "INTERVAL '1' SECOND,"
                + " INTERVAL '0.3' SECOND"), "hashmap"));
        list.add(random("anti_hop_offset_rocksdb", "ANTI", new Window("HOP", "INTERVAL '0.5'"
                + " SECOND, INTERVAL '1' SECOND, INTERVAL '-0.2' SECOND"), "rocksdb"));
        list.add(keyDouble("full_key_double", "hashmap"));
        list.add(narrow("inner_narrow_rocksdb", "rocksdb"));
        list.add(session("full_session", "FULL", "hashmap"));
        list.add(session("anti_session_rocksdb", "ANTI", "rocksdb"));
        list.addAll(dst());
        return list;
    }

    /** The (k, v) tables joined by {@code joinType} on {@code L.k = R.k} in window {@code w}. */
    static Scenario kvScenario(String name, String description, String joinType, Window w,
            String backend) {
        return new Scenario(name, description, w).kv().type(joinType).backend(backend);
    }

    /**
     * Traced rows over TUMBLE windows, then random ones: duplicates on both sides (3 x 3
     * matches), keys on one side only, NULL keys on both sides, a NULL value, rows out of
     * order, rows at and behind the watermark (dropped when their window fired, kept when not),
     * windows only one side has rows in.
     */
    static Scenario traced(String name, String joinType, String backend) {
        Scenario s = kvScenario(name, "traced: duplicates on both sides, a key on one side"
                + " only, NULL keys on both, a NULL value, rows out of order, at and behind the"
                + " watermark, windows only one side has rows in; then 60 " + RANDOM, joinType,
                TUMBLE, backend);
        s.at(LEFT, 100, 1, 10L)
                .at(RIGHT, 200, 1, 20L)
                .at(LEFT, 300, 1, 11L)        // key 1: three rows on each side
                .at(RIGHT, 900, 1, 21L)
                .at(LEFT, 400, 2, 12L)        // key 2: left only
                .at(RIGHT, 500, 3, 22L)       // key 3: right only
                .at(LEFT, 600, null, 13L)     // NULL keys never match
                .at(RIGHT, 700, null, 23L)
                .at(LEFT, 800, 1, null)       // a NULL value
                .at(RIGHT, 50, 1, 7L)         // out of order
                .at(LEFT, 1_100, 2, 14L)
                .at(RIGHT, 1_200, 2, 24L)
                .wm(999)                      // window [0, 1000) joins
                .at(LEFT, 999, 1, 15L)        // late: its window fired
                .at(RIGHT, 500, 2, 25L)       // late
                .at(LEFT, 1_999, 3, 16L)
                .at(RIGHT, 1_000, 3, 26L)
                .at(LEFT, 2_500, 4, 17L)      // window [2000, 3000): left rows only
                .at(LEFT, 2_600, 4, 17L)      // the same row again
                .wm(1_500)
                .at(RIGHT, 1_400, 2, 27L)     // behind the watermark, its window open
                .at(RIGHT, 3_200, 5, 28L)     // window [3000, 4000): right rows only
                .at(RIGHT, 3_300, null, null)
                .wm(1_998)
                .at(LEFT, 1_998, 3, 18L)      // at the watermark, not late: [1000, 2000)
                .at(RIGHT, 1_999, 3, 29L)     // fires at 1999
                .wm(1_999)
                .at(LEFT, 1_999, 3, 34L)      // late now
                .at(RIGHT, 2_999, 4, 30L)
                .at(LEFT, 2_999, 1, 19L)
                .at(RIGHT, 2_998, 1, 31L)
                .at(LEFT, 2_100, null, null)
                .wm(3_000)
                .at(LEFT, 6_000, 1, 32L)      // empty windows before it
                .at(RIGHT, 6_500, 1, 33L)
                .wm(5_000);
        return s.random(60, kv(KEYS), kv(KEYS));
    }

    /** Random (k, v) rows over a few keys with NULL, duplicates likely. */
    static Scenario random(String name, String joinType, Window w, String backend) {
        return kvScenario(name, RANDOM, joinType, w, backend).random(100, kv(KEYS), kv(KEYS));
    }

    /**
     * {@code L.k NOT IN (SELECT R.k ..)}: an anti join without keys on {@code k IS NULL OR k0 IS
     * NULL OR k = k0}. Traced windows: a left NULL key against right rows (never emitted) and
     * against none (emitted), a right NULL key (no left row emitted); then random rows, NULL
     * keys rare (one makes a window emit nothing).
     */
    static Scenario notIn(String name, String backend) {
        Scenario s = kvScenario(name, "no keys, the condition k IS NULL OR k0 IS NULL OR k = k0;"
                + " traced NULL keys on either side, windows without right rows; then random"
                + " rows, keys 1 to 9, NULL keys rare", "ANTI", TUMBLE, backend)
                .form(Form.NOT_IN)
                .on("");
        s.at(LEFT, 100, 1, 1L)
                .at(LEFT, 200, 2, 2L)
                .at(LEFT, 300, null, 3L)      // a NULL key against right rows: never emitted
                .at(RIGHT, 400, 1, 4L)
                .at(LEFT, 1_100, 1, 5L)       // no right rows: emitted, the NULL key too
                .at(LEFT, 1_200, null, 6L)
                .at(LEFT, 2_100, 1, 7L)       // a right NULL key: nothing emitted
                .at(RIGHT, 2_200, null, 8L)
                .at(RIGHT, 2_300, 2, 9L)
                .at(RIGHT, 3_100, 1, 10L)     // right rows only
                .wm(3_999);
        RowMaker rare = (r, n) -> new Object[] {
            r.nextInt(25) == 0 ? null : 1 + r.nextInt(9), NodeVectors.pick(r, LONGS)
        };
        return s.random(100, rare, rare);
    }

    /**
     * SESSION windows of a 200 ms gap per key on each side ({@code PARTITION BY k}): a window
     * joins only a session of equal start and end on the other side. Rows mostly come in
     * pairs, one on each side at the same time (equal sessions), else on one side only (its
     * session differs from the other's, or the other has none); some far behind the watermark
     * (dropped by the TVF, or starting a session of their own).
     */
    static Scenario session(String name, String joinType, String backend) {
        Window w = new Window("SESSION", "INTERVAL '0.2' SECOND");
        Scenario s = kvScenario(name, "sessions of a 200 ms gap per key (PARTITION BY k) on"
                + " each side: equal sessions on both sides match, a session one row longer on"
                + " one side does not; traced, then rows mostly in pairs of the same time on both"
                + " sides, some behind the watermark", joinType, w, backend);
        s.at(LEFT, 100, 1, 1L)
                .at(RIGHT, 100, 1, 2L)
                .at(LEFT, 250, 1, 3L)         // key 1: [100, 450) on both sides
                .at(RIGHT, 250, 1, 4L)
                .at(LEFT, 100, 2, 5L)         // key 2: [100, 300) against [150, 350)
                .at(RIGHT, 150, 2, 6L)
                .at(LEFT, 120, null, 7L)      // NULL keys: equal sessions, never matching
                .at(RIGHT, 120, null, 8L)
                .at(LEFT, 900, 3, 9L)         // key 3: left only
                .wm(500)
                .at(RIGHT, 400, 1, 10L)       // behind the watermark: a session of its own
                .at(LEFT, 950, 3, 11L)
                .at(RIGHT, 900, 3, 12L)       // [900, 1150) against [900, 1100)
                .wm(1_200);
        long t = 1_300;
        long max = t;
        for (int n = 0; n < 120; n++) {
            t += 30 + s.rnd.nextInt(200);
            Object k = NodeVectors.pick(s.rnd, KEYS);
            long at = s.rnd.nextInt(15) == 0 ? s.lastWatermark - BASE_MS - 1 - s.rnd.nextInt(800)
                    : t;
            int dice = s.rnd.nextInt(10);
            if (dice < 8) {
                s.at(LEFT, at, k, NodeVectors.pick(s.rnd, LONGS));
            }
            if (dice < 6 || dice >= 8) {
                s.at(RIGHT, at, k, NodeVectors.pick(s.rnd, LONGS));
            }
            max = Math.max(max, at);
            if (s.rnd.nextInt(4) == 0 && BASE_MS + max - 300 > s.lastWatermark) {
                s.wm(max - 300);
            }
        }
        return s;
    }

    /**
     * Rows from 3 s before to 3 s after 1970-01-01T00:00:00: windows and watermarks before the
     * epoch (negative milliseconds) and across it.
     */
    static Scenario epoch(String name, String backend) {
        return kvScenario(name, "rows from 3 s before the epoch to 3 s after it: negative window"
                + " ends and watermarks; " + RANDOM, "FULL", HOP, backend)
                .stream(100, -3_000, 60, 400, 300, kv(KEYS), kv(KEYS));
    }

    /** The join condition {@code L.v > R.v} besides the key. */
    static Scenario nonEqui(String name, String joinType, Window w, String backend) {
        return kvScenario(name, "the condition decides the matches, NULL v never matches; "
                + RANDOM + ", two keys", joinType, w, backend)
                .on("L.k = R.k AND L.v > R.v")
                .random(120, kv(FEW_KEYS), kv(FEW_KEYS));
    }

    /**
     * One key, 300 rows on each side in one window: 90,000 pairs for the condition {@code L.v >
     * R.v} at one watermark (right values mostly larger, few match).
     */
    static Scenario hotKey(String name, String backend) {
        Window minute = new Window("TUMBLE", "INTERVAL '1' MINUTE");
        Scenario s = kvScenario(name, "300 rows of one key on each side in one window: 90,000"
                + " pairs at one watermark, few matching", "INNER", minute, backend)
                .on("L.k = R.k AND L.v > R.v");
        for (int n = 0; n < 600; n++) {
            int side = n % 2;
            long v = side == LEFT ? s.rnd.nextInt(1_000) : 950 + s.rnd.nextInt(1_000);
            s.at(side, s.rnd.nextInt(60_000), 1, v);
        }
        return s.wm(59_999);
    }

    /** Two key columns, an INT and a STRING, both with NULLs. */
    static Scenario twoKeys(String name, String backend) {
        return new Scenario(name, "INT and STRING keys with NULLs, in another column order on"
                + " the right; " + RANDOM, TUMBLE)
                .left("k", DataTypes.INT()).left("s", DataTypes.STRING())
                .left("v", DataTypes.BIGINT())
                .right("s", DataTypes.STRING()).right("k", DataTypes.INT())
                .right("v", DataTypes.BIGINT())
                .join("RIGHT")
                .backend(backend)
                .on("L.k = R.k AND L.s = R.s")
                .random(120, (r, n) -> new Object[] {
                    NodeVectors.pick(r, KEYS), NodeVectors.pick(r, new Object[] {"a", "b", null}),
                    NodeVectors.pick(r, LONGS)
                }, (r, n) -> new Object[] {
                    NodeVectors.pick(r, new Object[] {"a", "b", null}), NodeVectors.pick(r, KEYS),
                    NodeVectors.pick(r, LONGS)
                });
    }

    /** STRING keys and values of every type the native side reads on both sides. */
    static Scenario types(String name, String backend) {
        return new Scenario(name, "STRING keys (empty, non-ASCII, an emoji, a combining accent"
                + " against its precomposed form, NULL), values of DOUBLE, DECIMAL(10, 2),"
                + " BOOLEAN and TIMESTAMP(3) on the left, DECIMAL(38, 18), BIGINT and STRING on"
                + " the right; " + RANDOM, HOP)
                .left("k", DataTypes.STRING()).left("d", DataTypes.DOUBLE())
                .left("m", DataTypes.DECIMAL(10, 2)).left("b", DataTypes.BOOLEAN())
                .left("t", DataTypes.TIMESTAMP(3))
                .right("x", DataTypes.DECIMAL(38, 18)).right("k", DataTypes.STRING())
                .right("l", DataTypes.BIGINT()).right("s", DataTypes.STRING())
                .join("LEFT")
                .backend(backend)
                .random(120, (r, n) -> new Object[] {
                    NodeVectors.pick(r, STRING_KEYS), NodeVectors.pick(r, JoinVectors.DOUBLES),
                    NodeVectors.pick(r, JoinVectors.DECIMALS),
                    NodeVectors.pick(r, JoinVectors.BOOLEANS),
                    NodeVectors.pick(r, JoinVectors.TIMESTAMPS)
                }, (r, n) -> new Object[] {
                    NodeVectors.pick(r, JoinVectors.WIDE_DECIMALS),
                    NodeVectors.pick(r, STRING_KEYS), NodeVectors.pick(r, JoinVectors.BIGINTS),
                    NodeVectors.pick(r, JoinVectors.STRINGS)
                });
    }

    /** A non-equi condition over strings (Flink compares UTF-8 bytes). */
    static Scenario strings(String name, String backend) {
        return new Scenario(name, "strings compared by their UTF-8 bytes, NULL never matches; "
                + RANDOM + ", two keys", TUMBLE)
                .left("k", DataTypes.INT()).left("s", DataTypes.STRING())
                .right("k", DataTypes.INT()).right("t", DataTypes.STRING())
                .join("FULL")
                .backend(backend)
                .on("L.k = R.k AND L.s < R.t")
                .random(120, (r, n) -> new Object[] {
                    NodeVectors.pick(r, FEW_KEYS), NodeVectors.pick(r, JoinVectors.STRINGS)
                }, (r, n) -> new Object[] {
                    NodeVectors.pick(r, FEW_KEYS), NodeVectors.pick(r, JoinVectors.STRINGS)
                });
    }

    /** DOUBLE keys: keyed by their bytes, so 0.0 and -0.0 never match and NaN matches NaN. */
    static Scenario keyDouble(String name, String backend) {
        return new Scenario(name, "DOUBLE keys: 0.0 and -0.0 are different keys, NaN matches"
                + " NaN, NULL never matches; " + RANDOM, TUMBLE)
                .left("k", DataTypes.DOUBLE()).left("v", DataTypes.BIGINT())
                .right("k", DataTypes.DOUBLE()).right("v", DataTypes.BIGINT())
                .join("FULL")
                .backend(backend)
                .random(120, (r, n) -> new Object[] {
                    NodeVectors.pick(r, JoinVectors.DOUBLE_KEYS), NodeVectors.pick(r, LONGS)
                }, (r, n) -> new Object[] {
                    NodeVectors.pick(r, JoinVectors.DOUBLE_KEYS), NodeVectors.pick(r, LONGS)
                });
    }

    /** Only a few columns selected: the planner projects the inputs (no id, no ts). */
    static Scenario narrow(String name, String backend) {
        return kvScenario(name, "selecting L.v, R.v and L.window_end only: the inputs hold"
                + " (k, v, window_start, window_end); " + RANDOM, "INNER", HOP, backend)
                .select("L.v, R.v AS rv, L.window_end")
                .random(100, kv(KEYS), kv(KEYS));
    }

    /**
     * TIMESTAMP_LTZ(3) windows across America/Los_Angeles's 2026 transitions (01:59 PDT ->
     * 01:00 PST at 09:00Z on November 1st, 01:59 PST -> 03:00 PDT at 10:00Z on March 8th), and
     * in Asia/Kolkata (a half-hour offset).
     */
    static List<Scenario> dst() {
        String la = "America/Los_Angeles";
        Instant fall = Instant.parse("2026-11-01T07:30:00Z");
        Instant spring = Instant.parse("2026-03-08T08:30:00Z");
        Window hour = new Window("TUMBLE", "INTERVAL '1' HOUR");
        List<Scenario> list = new ArrayList<>();
        list.add(zoned("dst_fall_left", "LEFT", hour, la, fall, "hashmap"));
        list.add(zoned("dst_fall_full_hop_rocksdb", "FULL", new Window("HOP",
                "INTERVAL '30' MINUTE, INTERVAL '1' HOUR"), la, fall, "rocksdb"));
        list.add(zoned("dst_spring_inner_cumulate", "INNER", new Window("CUMULATE",
                "INTERVAL '30' MINUTE, INTERVAL '2' HOUR"), la, spring, "hashmap"));
        list.add(zoned("dst_spring_anti_rocksdb", "ANTI", hour, la, spring, "rocksdb"));
        list.add(zoned("dst_fall_semi_day", "SEMI", new Window("TUMBLE", "INTERVAL '1' DAY"), la,
                fall, "hashmap"));
        list.add(zoned("kolkata_right_rocksdb", "RIGHT", new Window("TUMBLE",
                "INTERVAL '7' MINUTE"), "Asia/Kolkata", fall, "rocksdb"));
        return list;
    }

    /**
     * Rows of (k, v) on a TIMESTAMP_LTZ(3) rowtime from {@code from} on, about 2 minutes apart
     * for 5 hours, some out of order and some late, in session time zone {@code zone}.
     */
    static Scenario zoned(String name, String joinType, Window w, String zone, Instant from,
            String backend) {
        Scenario s = kvScenario(name, "windows on local time from " + from + "; random rows"
                + " about 2 minutes apart for 5 hours, keys 1 to 5 and NULL, some out of order,"
                + " some late", joinType, w, backend)
                .ltz(zone);
        Object[] keys = {1, 2, 3, 4, 5, null};
        return s.stream(150, from.toEpochMilli(), 120_000, 300_000, 600_000, kv(keys), kv(keys));
    }
}
