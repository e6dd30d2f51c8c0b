package org.streamfusion.golden;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;

import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.TimeUtils;

import org.streamfusion.flink.StreamFusionPlanner;
import org.streamfusion.jni.NativeOperator;

/**
 * What the golden generators of one planned node share ({@link DedupVectors}'s {@code
 * StreamExecDeduplicate}, {@link RankVectors}' {@code StreamExecRank}, {@link OverVectors}'
 * {@code StreamExecOverAggregate}, {@link WindowVectors}' window nodes): scenarios of rows in physical columns, each run through
 * one SQL query in a MiniCluster at parallelism 1 (the scenarios of one backend in one job,
 * each a pipeline of its own planned under its own options), the node's description taken
 * from the planner's decision (every node refused, so the jobs run stock), and a JSON Lines
 * file: a first line, then per scenario a header, the events the node receives and the
 * changelog the job (or, where the generator says so, the node) emitted. The generators' class
 * comments describe their files.
 */
abstract class NodeVectors<S extends NodeVectors.Scenario<S>> {
    /** 2026-03-01T00:00:00 UTC, on an hour boundary (the mini-batch assigner's interval). */
    static final LocalDateTime BASE = LocalDateTime.of(2026, 3, 1, 0, 0);
    static final long BASE_MS = BASE.toInstant(ZoneOffset.UTC).toEpochMilli();
    static final long NO_WATERMARK = Long.MIN_VALUE;
    static final long END_OF_INPUT = Long.MAX_VALUE;
    static final String[] BACKENDS = {"hashmap", "rocksdb"};
    static final ObjectMapper JSON = new ObjectMapper();

    /** The header's fields between {@code kind} and {@code state_ttl_ms}, as named in line 1. */
    private final String headerFields;
    /** The node's type in its description, e.g. {@code stream-exec-rank_1}. */
    final String nodeType;
    /** The node in messages: {@code rank}, {@code deduplicate}. */
    final String what;
    /** What the job names start with. */
    private final String jobPrefix;

    NodeVectors(String headerFields, String nodeType, String what, String jobPrefix) {
        this.headerFields = headerFields;
        this.nodeType = nodeType;
        this.what = what;
        this.jobPrefix = jobPrefix;
    }

    /** One physical column: its name, its Rust-parsable type name, its Flink type. */
    record Column(String name, String type, DataType dataType) {}

    /** Makes row {@code n} of a scenario from its random numbers. */
    interface RowMaker {
        Object[] row(SplittableRandom rnd, int n);
    }

    /** A scenario: its query's shape and options, and its rows. */
    abstract static class Scenario<S extends Scenario<S>> {
        final String name;
        final String description;
        final SplittableRandom rnd;
        String backend = "hashmap";
        boolean upsert;
        long ttlMs;
        final List<Column> columns = new ArrayList<>();
        final List<Row> rows = new ArrayList<>();
        /** The watermark the source emits after row i, or {@link NodeVectors#NO_WATERMARK}. */
        final List<Long> watermarks = new ArrayList<>();
        long lastWatermark = NO_WATERMARK;

        Scenario(String name, String description) {
            this.name = name;
            this.description = description;
            // A scenario and its RocksDB twin draw the same rows.
            this.rnd = new SplittableRandom(
                    GroupAggVectors.SEED ^ name.replace("_rocksdb", "").hashCode());
        }

        @SuppressWarnings("unchecked")
        S self() {
            return (S) this;
        }

        S column(String name, String type, DataType dataType) {
            columns.add(new Column(name, type, dataType));
            return self();
        }

        /** A column whose Rust type name is its Flink type's ({@link GroupAggVectors#typeName}). */
        S column(String name, DataType dataType) {
            return column(name, GroupAggVectors.typeName(dataType), dataType);
        }

        S backend(String backend) {
            this.backend = backend;
            return self();
        }

        /** Converted in upsert mode: the node generates no {@code -U}. */
        S upsert() {
            return upsert(true);
        }

        S upsert(boolean upsert) {
            this.upsert = upsert;
            return self();
        }

        S ttl(long ms) {
            this.ttlMs = ms;
            return self();
        }

        /** A row of the physical columns. */
        void row(Object... values) {
            kindRow(RowKind.INSERT, values);
        }

        /** {@code count} more rows from {@code maker}, numbered on from the rows so far. */
        S random(int count, RowMaker maker) {
            for (int i = 0; i < count; i++) {
                row(maker.row(rnd, rows.size()));
            }
            return self();
        }

        void kindRow(RowKind kind, Object... values) {
            if (values.length != columns.size()) {
                throw new IllegalArgumentException(name + ": a row of " + values.length
                        + " values for " + columns.size() + " columns");
            }
            rows.add(Row.ofKind(kind, values(values)));
            watermarks.add(NO_WATERMARK);
        }

        /** The values of a row as the source holds them. */
        Object[] values(Object[] values) {
            return values;
        }

        /** The source emits a watermark of BASE + {@code at} ms after the last row. */
        void watermark(long at) {
            long w = BASE_MS + at;
            if (!rowtime() || rows.isEmpty() || watermarks.get(rows.size() - 1) != NO_WATERMARK
                    || w <= lastWatermark) {
                throw new IllegalArgumentException(name + ": watermark " + at
                        + " must follow a row of a rowtime scenario and exceed the last one");
            }
            watermarks.set(rows.size() - 1, w);
            lastWatermark = w;
        }

        Column column(String name) {
            for (Column c : columns) {
                if (c.name().equals(name)) {
                    return c;
                }
            }
            throw new IllegalArgumentException(this.name + ": no column " + name);
        }

        /** Whether {@code ts} is the rowtime attribute, with the scheduled watermarks. */
        abstract boolean rowtime();

        /** Whether the table has {@code pt AS PROCTIME()}. */
        abstract boolean proctime();

        /** Whether the table reads the rows' kinds ({@code fromChangelogStream}). */
        boolean changelogSource() {
            return false;
        }

        /** The scenario's kind, as its header says it. */
        abstract String kind();

        /** The query over {@code view}. */
        abstract String sql(String view);

        /** Sets the scenario's options (and resets those of the scenarios before it). */
        void options(TableConfig config) {
            config.set("table.exec.state.ttl", ttlMs + " ms");
        }

        /** The columns the node's input row can hold, by name. */
        List<String> inputNames() {
            List<String> names = new ArrayList<>();
            for (Column c : columns) {
                names.add(c.name());
            }
            if (proctime()) {
                names.add("pt");
            }
            return names;
        }

        /** The query's output columns. */
        List<String> outputNames() {
            List<String> names = new ArrayList<>();
            for (String n : inputNames()) {
                if (!n.equals("pt")) {
                    names.add(n);
                }
            }
            return names;
        }

        /** The upsert conversion's primary key. */
        abstract List<String> primaryKey();

        /** The Rust type name of a node input or query output column. */
        String type(String name) {
            return name.equals("pt") && proctime() ? "TIMESTAMP_LTZ(3)" : column(name).type();
        }

        /** The Flink type of a query output column (for the upsert conversion's schema). */
        DataType dataType(String name) {
            return column(name).dataType();
        }

        /** The rows the node receives, over {@link #inputNames} (a proctime column NULL). */
        List<Row> input() {
            List<Row> input = new ArrayList<>();
            for (Row r : rows) {
                Object[] values = new Object[inputNames().size()];
                for (int i = 0; i < r.getArity(); i++) {
                    values[i] = r.getField(i);
                }
                input.add(Row.ofKind(r.getKind(), values));
            }
            return input;
        }
    }

    /**
     * A scenario of an event-time node: rows whose last columns are their id {@code id} and
     * their rowtime {@code ts} (TIMESTAMP(3), or TIMESTAMP_LTZ(3) with {@link #ltz}), and the
     * watermarks the source emits after them.
     */
    abstract static class RowtimeScenario<S extends RowtimeScenario<S>> extends Scenario<S> {
        /** {@code ts} is a TIMESTAMP_LTZ(3). */
        boolean ltz;

        RowtimeScenario(String name, String description) {
            super(name, description);
        }

        /** The row id {@code id} INT NOT NULL and the rowtime {@code ts}, the last columns. */
        S idAndTime() {
            column("id", DataTypes.INT().notNull());
            return ltz ? column("ts", "TIMESTAMP_LTZ(3)", DataTypes.TIMESTAMP_LTZ(3).notNull())
                    : column("ts", "TIMESTAMP(3)", DataTypes.TIMESTAMP(3).notNull());
        }

        /**
         * A row of the columns before {@code id}, then its id (the row's index) and its rowtime
         * {@code at}: ms after BASE, or an {@link Instant} or {@link LocalDateTime} as is.
         */
        S at(Object at, Object... values) {
            Object[] row = Arrays.copyOf(values, values.length + 2);
            row[values.length] = rows.size();
            row[values.length + 1] = at;
            row(row);
            return self();
        }

        /** The source emits a watermark of BASE + {@code at} ms after the last row. */
        S wm(long at) {
            watermark(at);
            return self();
        }

        /** The source emits a watermark of {@code at} after the last row. */
        S wm(Instant at) {
            watermark(at.toEpochMilli() - BASE_MS);
            return self();
        }

        /** A rowtime given as a {@code long} is ms after BASE; one given as a time is as is. */
        @Override
        Object[] values(Object[] values) {
            int ts = columns.size() - 1;
            Object at = values[ts];
            if (at instanceof Long) {
                long ms = BASE_MS + (Long) at;
                values[ts] = ltz ? Instant.ofEpochMilli(ms) : epochTimestamp(ms);
            } else if (ltz && at instanceof LocalDateTime) {
                values[ts] = ((LocalDateTime) at).toInstant(ZoneOffset.UTC);
            } else if (!ltz && at instanceof Instant) {
                values[ts] = epochTimestamp(((Instant) at).toEpochMilli());
            }
            return values;
        }

        @Override
        boolean rowtime() {
            return true;
        }

        @Override
        boolean proctime() {
            return false;
        }
    }

    /** The TIMESTAMP(3) of {@code ms} since the epoch. */
    static LocalDateTime epochTimestamp(long ms) {
        return LocalDateTime.ofEpochSecond(Math.floorDiv(ms, 1000), 0, ZoneOffset.UTC)
                .plusNanos(Math.floorMod(ms, 1000) * 1_000_000L);
    }

    /**
     * The one transformation of scenario {@code scenario}'s node among the inputs of {@code
     * t}: the one whose description (without the planner's {@code [id]:}) or name starts with
     * {@code operator} and a parenthesis.
     */
    static Transformation<?> nodeTransformation(String scenario, Transformation<?> t,
            String operator) {
        Transformation<?> found = null;
        Deque<Transformation<?>> todo = new ArrayDeque<>(List.of(t));
        String prefix = operator + "(";
        while (!todo.isEmpty()) {
            Transformation<?> next = todo.pop();
            String description = next.getDescription() == null ? ""
                    : next.getDescription().replaceFirst("^\\[\\d+\\]:", "");
            if (description.startsWith(prefix) || next.getName().startsWith(operator)) {
                if (found != null && found != next) {
                    throw new IllegalStateException(scenario + ": two " + operator
                            + " operators");
                }
                found = next;
            }
            todo.addAll(next.getInputs());
        }
        if (found == null) {
            throw new IllegalStateException(scenario + ": no " + operator + " operator");
        }
        return found;
    }

    /** A scenario planned into a job: its node, operators, input and output. */
    static final class Planned<S> {
        final S scenario;
        final String sql;
        Node node;
        String plan;
        List<String> outNames;
        String[] outTypes;
        /** The rows the node receives (columns {@link Scenario#inputNames}), with kinds. */
        List<Row> input;
        /** The output lines, {@code {"out":kind,"row":[..]}}, in emission order. */
        final List<String> output = new ArrayList<>();
        /** The output lines of the scenario's {@link NodeVectors#check} pipeline. */
        final List<String> check = new ArrayList<>();

        Planned(S scenario, String sql) {
            this.scenario = scenario;
            this.sql = sql;
        }
    }

    /** The node as the planner described it. */
    static final class Node {
        final String description;
        final String config;
        /** The names of the node's input fields (its output has them, and maybe more). */
        final List<String> fields = new ArrayList<>();
        /** The node's keys: positions in {@link #fields}. */
        int[] keys;

        Node(String description, String config) {
            this.description = description;
            this.config = config;
        }
    }

    /** Every scenario, in the file's order. */
    abstract List<S> scenarios();

    /**
     * The scenario's node among the planner's decisions, checked against what the scenario
     * asks for.
     */
    abstract Node node(S s) throws IOException;

    /** Whether {@code plan} (the scenario's operators) is what the scenario must plan. */
    abstract boolean expectedPlan(S s, String plan);

    /** Appends the header's fields between {@code kind} and {@code state_ttl_ms}. */
    abstract void header(S s, StringBuilder out);

    /**
     * A pipeline beside the scenario's whose output, tagged {@code tag}, {@link #verify} checks;
     * or null.
     */
    DataStream<String> check(StreamTableEnvironment tEnv, S s, String view, int tag) {
        return null;
    }

    /** Checks a scenario's {@link Planned#check} output. */
    void verify(Planned<S> p) {}

    /**
     * The scenario's output lines, each tagged with {@code index} and a tab: the query's
     * changelog {@code changes}, encoded over {@link Planned#outTypes}. A generator may record
     * another stream of the job instead, naming its columns in {@link Planned#outNames} and
     * {@link Planned#outTypes}.
     */
    DataStream<String> output(Planned<S> p, DataStream<Row> changes, int index) {
        return changes.map(new Encode(index, p.outTypes)).setParallelism(1);
    }

    /**
     * The node output column that the output column {@code name} is, or -1: an input field
     * of the node, or a Top-N's row number, which follows them.
     */
    int outputColumn(Planned<S> p, String name) {
        return name.equals("rn") ? p.node.fields.size() : p.node.fields.indexOf(name);
    }

    /**
     * Adds a problem unless the node's state metadata holds the scenario's TTL (one state,
     * as a deduplication and a Top-N have).
     */
    void state(S s, Node found, JsonNode node, List<String> problems) {
        JsonNode state = node.path("state");
        if (state.size() != 1
                || TimeUtils.parseDuration(state.get(0).path("ttl").asText()).toMillis()
                        != s.ttlMs) {
            problems.add("state " + state);
        }
    }

    /**
     * The events the node receives, in order: {@code {1, input index}} for a row, {@code {0,
     * watermark}} for a watermark: each row, the watermark the source emits after it, and the
     * end of input.
     */
    List<long[]> events(Planned<S> p) {
        List<Long> watermarks = p.scenario.watermarks;
        List<long[]> events = new ArrayList<>();
        for (int n = 0; n < p.input.size(); n++) {
            events.add(new long[] {1, n});
            // Watermarks are scheduled after source rows; only INSERT sources have them.
            if (n < watermarks.size() && watermarks.get(n) != NO_WATERMARK) {
                events.add(new long[] {0, watermarks.get(n)});
            }
        }
        events.add(new long[] {0, END_OF_INPUT});
        return events;
    }

    /** Writes the file: {@code args} are its path and the scenarios to run (all when none). */
    void generate(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: " + getClass().getSimpleName()
                    + " <output path> [scenario..]");
            System.exit(2);
        }
        List<String> only = Arrays.asList(args).subList(1, args.length);
        // The planner describes every node, but the jobs must run stock: with no loadable
        // native library every node is refused.
        System.setProperty(NativeOperator.LIBRARY_PATH_PROPERTY,
                "/nonexistent/streamfusion-golden-vectors-run-stock/libstreamfusion_jni.so");
        List<S> scenarios = new ArrayList<>();
        for (S s : scenarios()) {
            for (S seen : scenarios) {
                if (seen.name.equals(s.name)) {
                    throw new IllegalStateException("two scenarios named " + s.name);
                }
            }
            if (only.isEmpty() || only.contains(s.name)) {
                scenarios.add(s);
            }
        }
        // One job per backend, every scenario of the backend a pipeline of its own.
        List<Planned<S>> planned = new ArrayList<>();
        for (String backend : BACKENDS) {
            List<S> group = new ArrayList<>();
            for (S s : scenarios) {
                if (s.backend.equals(backend)) {
                    group.add(s);
                }
            }
            if (!group.isEmpty()) {
                planned.addAll(runJob(backend, group));
            }
        }
        planned.sort(Comparator.comparingInt(p -> scenarios.indexOf(p.scenario)));
        StringBuilder out = new StringBuilder(1 << 20);
        out.append("{\"flink\":\"2.3.0\",\"seed\":\"0x")
                .append(Long.toHexString(GroupAggVectors.SEED))
                .append("\",\"generator\":\"java/src/org/streamfusion/golden/")
                .append(getClass().getSimpleName()).append(".java\",\"format\":");
        Json.string(out, "per scenario: a header line (scenario, kind, " + headerFields
                + ", state_ttl_ms, node and config: the planner's texts for flink::plan_node,"
                + " input and output columns, output_columns, output_keys, sql, plan, events_in,"
                + " rows_out), then events_in {\"in\":kind,\"row\":[..]} or {\"watermark\":ms}"
                + " lines and rows_out {\"out\":kind,\"row\":[..]} lines; BIGINT, DOUBLE"
                + " (Double.toString), DECIMAL (plain) and TIMESTAMP (epoch ms) values are"
                + " strings; a proctime column is NULL");
        out.append("}\n");
        int total = 0;
        for (Planned<S> p : planned) {
            write(p, out);
            total += p.output.size();
        }
        Path path = Path.of(args[0]);
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        Files.write(path, out.toString().getBytes(StandardCharsets.UTF_8));
        System.err.printf("wrote %d scenarios (%d output rows) to %s%n", planned.size(), total,
                path);
    }

    /**
     * Runs the scenarios of one backend in one job (each its own source, query and
     * conversion, set up under its own options: Flink reads them when a query is translated)
     * and returns them planned, with their outputs.
     */
    List<Planned<S>> runJob(String backend, List<S> group) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        conf.setString("state.backend.type", backend);
        // Many pipelines share the job: enough network buffers for all their exchanges.
        conf.setString("taskmanager.memory.network.min", "256mb");
        conf.setString("taskmanager.memory.network.max", "256mb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        List<Planned<S>> planned = new ArrayList<>();
        DataStream<String> all = null;
        int floor = 0;
        for (S s : group) {
            String view = "src_" + s.name;
            Planned<S> p = new Planned<>(s, s.sql(view));
            DataStream<Row> changes = translate(env, tEnv, s, view, p);
            // toChangelogStream translated the query: its decisions and operators are known.
            p.node = node(s);
            p.input = s.input();
            p.plan = plan(env, floor);
            if (!expectedPlan(s, p.plan)) {
                throw new IllegalStateException(s.name + ": unexpected plan " + p.plan);
            }
            DataStream<String> tagged = output(p, changes, planned.size());
            floor = tagged.getId();
            all = all == null ? tagged : all.union(tagged);
            DataStream<String> check = check(tEnv, s, view, -1 - planned.size());
            if (check != null) {
                floor = check.getId();
                all = all.union(check);
            }
            planned.add(p);
        }
        try (CloseableIterator<String> it = all.executeAndCollect(jobPrefix + backend)) {
            while (it.hasNext()) {
                String line = it.next();
                int tab = line.indexOf('\t');
                int index = Integer.parseInt(line.substring(0, tab));
                Planned<S> p = planned.get(index < 0 ? -1 - index : index);
                (index < 0 ? p.check : p.output).add(line.substring(tab + 1));
            }
        }
        for (Planned<S> p : planned) {
            verify(p);
        }
        for (Planned<S> p : planned) {
            System.err.printf("%s (%s, %s): %d rows in, %d rows out; %s%n", p.scenario.name,
                    p.scenario.kind(), backend, p.input.size(), p.output.size(), p.plan);
        }
        return planned;
    }

    /** Puts the scenario's query into {@code env}: its changelog stream. */
    static <S extends Scenario<S>> DataStream<Row> translate(StreamExecutionEnvironment env,
            StreamTableEnvironment tEnv, S s, String view, Planned<S> p) {
        StreamFusionPlanner.clearDecisions();
        ExecNodeContext.resetIdCounter();
        TableConfig config = tEnv.getConfig();
        config.set(StreamFusionPlanner.ENABLED, true);
        config.set("table.local-time-zone", "UTC");
        s.options(config);

        DataTypes.Field[] fields = new DataTypes.Field[s.columns.size()];
        Schema.Builder schema = Schema.newBuilder();
        for (int i = 0; i < fields.length; i++) {
            Column c = s.columns.get(i);
            fields[i] = DataTypes.FIELD(c.name(), c.dataType());
            schema.column(c.name(), c.dataType());
        }
        @SuppressWarnings("unchecked")
        ExternalTypeInfo<Row> typeInfo =
                (ExternalTypeInfo<Row>) (ExternalTypeInfo<?>) ExternalTypeInfo.of(
                        DataTypes.ROW(fields).bridgedTo(Row.class));
        DataStream<Row> stream = env.fromData(s.rows, typeInfo).setParallelism(1);
        if (s.rowtime()) {
            long[] after = new long[s.watermarks.size()];
            for (int i = 0; i < after.length; i++) {
                after[i] = s.watermarks.get(i);
            }
            int ts = s.columns.indexOf(s.column("ts"));
            stream = stream
                    .assignTimestampsAndWatermarks(
                            WatermarkStrategy.forGenerator(new Scheduled(after))
                                    .withTimestampAssigner(new RowTime(ts)))
                    .setParallelism(1);
            schema.watermark("ts", "SOURCE_WATERMARK()");
        }
        if (s.proctime()) {
            schema.columnByExpression("pt", "PROCTIME()");
        }
        Table table = s.changelogSource()
                ? tEnv.fromChangelogStream(stream, schema.build())
                : tEnv.fromDataStream(stream, schema.build());
        tEnv.createTemporaryView(view, table);
        Table result = tEnv.sqlQuery(p.sql);
        p.outNames = result.getResolvedSchema().getColumnNames();
        if (!p.outNames.equals(s.outputNames())) {
            throw new IllegalStateException(s.name + ": output columns " + p.outNames);
        }
        p.outTypes = new String[p.outNames.size()];
        for (int i = 0; i < p.outTypes.length; i++) {
            p.outTypes[i] = s.type(p.outNames.get(i));
        }
        if (!s.upsert) {
            return tEnv.toChangelogStream(result);
        }
        Schema.Builder keyed = Schema.newBuilder();
        for (String name : p.outNames) {
            keyed.column(name, s.dataType(name));
        }
        return tEnv.toChangelogStream(
                result, keyed.primaryKey(s.primaryKey()).build(), ChangelogMode.upsert());
    }

    /**
     * The one decision of the scenario's about a node of type {@code type} ({@code what} in
     * messages), or null when there is none and it is not {@code required}. No decision may be
     * native: golden vectors come from stock Flink.
     */
    static StreamFusionPlanner.Decision decision(Scenario<?> s, String type, String what,
            boolean required) {
        StreamFusionPlanner.Decision found = null;
        for (StreamFusionPlanner.Decision d : StreamFusionPlanner.decisions()) {
            if (d.isNative()) {
                throw new IllegalStateException(s.name + ": " + d.node + " was planned natively;"
                        + " golden vectors must come from stock Flink");
            }
            if (d.description == null || !d.description.contains("\"" + type + "\"")) {
                continue;
            }
            if (found != null) {
                throw new IllegalStateException(s.name + ": two " + what + " nodes");
            }
            found = d;
        }
        if (found == null && required) {
            throw new IllegalStateException(s.name + ": no " + what + " node among "
                    + StreamFusionPlanner.decisions());
        }
        return found;
    }

    /**
     * The scenario's node of {@link #nodeType}, its input fields read, with what every
     * scenario asks of it in {@code problems}: its type, its state TTL, the time attributes of
     * its input fields, and an output of its input fields and then {@code extraOutputs} more.
     * Returns the node's JSON.
     */
    JsonNode readNode(S s, Node found, int extraOutputs, List<String> problems)
            throws IOException {
        JsonNode node = readInput(s, found, nodeType, problems);
        state(s, found, node, problems);
        List<String> outputFields = fieldNames(node.get("outputType"));
        if (outputFields.size() != found.fields.size() + extraOutputs
                || !outputFields.subList(0, found.fields.size()).equals(found.fields)) {
            problems.add("output fields " + outputFields);
        }
        return node;
    }

    /**
     * The node's JSON, its input fields read into {@code found}, with the problems of its
     * type (not {@code type}) and of the time attributes of its input fields.
     */
    JsonNode readInput(S s, Node found, String type, List<String> problems)
            throws IOException {
        JsonNode description = JSON.readTree(found.description);
        JsonNode node = description.get("node");
        expect(problems, node, "type", type);
        JsonNode inputType = description.get("inputs").get(0);
        found.fields.addAll(fieldNames(inputType));
        for (int i = 0; i < found.fields.size(); i++) {
            String name = found.fields.get(i);
            // A row type with a time attribute is written as JSON, others as the type's text.
            String kind = inputType.path("fields").path(i).path("fieldType").path("kind")
                    .asText("");
            String expected = name.equals("pt") && s.proctime() ? "PROCTIME"
                    : rowtimeColumn(s, name) ? "ROWTIME"
                    : "";
            if (!kind.equals(expected)) {
                problems.add("time attribute of " + name + ": " + inputType);
            }
        }
        return node;
    }

    /**
     * Reads the node's {@code keys} into {@code found}; adds a problem ({@code what} they are)
     * unless they are the columns {@code asked}.
     */
    static void readKeys(JsonNode keys, Node found, List<String> asked, String what,
            List<String> problems) {
        found.keys = new int[keys.size()];
        List<String> keyNames = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            found.keys[i] = keys.get(i).asInt();
            keyNames.add(found.fields.get(found.keys[i]));
        }
        // The planner keys by the columns in their order, whatever PARTITION BY lists.
        List<String> sorted = new ArrayList<>(asked);
        sorted.sort(Comparator.comparingInt(found.fields::indexOf));
        if (!keyNames.equals(sorted)) {
            problems.add(what + " " + keyNames);
        }
    }

    /** Whether the node's input column {@code name} is its rowtime attribute. */
    boolean rowtimeColumn(S s, String name) {
        return name.equals("ts") && s.rowtime();
    }

    /** Fails unless the scenario's node has no {@code problems}. */
    void fits(Scenario<?> s, Node found, List<String> problems) {
        if (!problems.isEmpty()) {
            throw new IllegalStateException(s.name + ": the " + what + " node is not what the"
                    + " scenario asks for: " + problems + " in " + found.description);
        }
    }

    static void expect(List<String> problems, JsonNode node, String field, String value) {
        JsonNode v = node.get(field);
        if (v == null || !v.asText().equals(value)) {
            problems.add(field + " = " + v + ", not " + value);
        }
    }

    /**
     * The field names of a serialized row type: Flink's JSON ({@code {"type":"ROW","fields":
     * [{"name":..}..]}}) or, for a type without time attributes, its text ({@code
     * ROW<`a` INT, `b` ROW<`c` ..>>}; a name's backquote is doubled).
     */
    static List<String> fieldNames(JsonNode rowType) {
        List<String> names = new ArrayList<>();
        if (!rowType.isTextual()) {
            for (JsonNode f : rowType.get("fields")) {
                names.add(f.get("name").asText());
            }
            return names;
        }
        String text = rowType.asText();
        if (!text.startsWith("ROW<")) {
            throw new IllegalStateException("not a row type: " + text);
        }
        int depth = 0;
        boolean expectName = true;
        for (int i = 4; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch == '`') {
                StringBuilder name = new StringBuilder();
                for (i++; ; i++) {
                    if (text.charAt(i) == '`') {
                        if (i + 1 < text.length() && text.charAt(i + 1) == '`') {
                            name.append('`');
                            i++;
                            continue;
                        }
                        break;
                    }
                    name.append(text.charAt(i));
                }
                if (depth == 0 && expectName) {
                    names.add(name.toString());
                    expectName = false;
                }
            } else if (ch == '<' || ch == '(') {
                depth++;
            } else if (ch == '>' || ch == ')') {
                depth--;
            } else if (ch == ',' && depth == 0) {
                expectName = true;
            }
        }
        return names;
    }

    /**
     * The scenario's operators: the stream graph's nodes after {@code floor} (the previous
     * scenario's last) in id order, as the Flink UI describes them (the DataStream's generated
     * name without its counter), separated by " | ".
     */
    static String plan(StreamExecutionEnvironment env, int floor) {
        List<StreamNode> nodes = new ArrayList<>();
        for (StreamNode n : env.getStreamGraph(false).getStreamNodes()) {
            if (n.getId() > floor) {
                nodes.add(n);
            }
        }
        nodes.sort(Comparator.comparingInt(StreamNode::getId));
        List<String> names = new ArrayList<>();
        for (StreamNode n : nodes) {
            names.add(n.getOperatorDescription().replaceAll(
                    "anonymous_datastream_source\\$\\d+", "anonymous_datastream_source"));
        }
        return String.join(" | ", names);
    }

    /** Appends a planned scenario's header, events and output. */
    void write(Planned<S> p, StringBuilder out) {
        S s = p.scenario;
        Node node = p.node;
        List<long[]> events = events(p);
        // The columns: the node's input row, and the query's output.
        List<String> names = s.inputNames();
        String[] inputTypes = new String[node.fields.size()];
        int[] at = new int[node.fields.size()];
        out.append("{\"scenario\":");
        Json.string(out, s.name);
        out.append(",\"description\":");
        Json.string(out, s.description);
        out.append(",\"kind\":");
        Json.string(out, s.kind());
        header(s, out);
        out.append(",\"state_ttl_ms\":").append(s.ttlMs > 0 ? Long.toString(s.ttlMs) : "null")
                .append(",\"node\":");
        Json.string(out, node.description);
        out.append(",\"config\":");
        Json.string(out, node.config);
        out.append(",\"input\":[");
        for (int i = 0; i < node.fields.size(); i++) {
            String name = node.fields.get(i);
            at[i] = names.indexOf(name);
            inputTypes[i] = s.type(name);
            out.append(i == 0 ? "" : ",").append("{\"name\":");
            Json.string(out, name);
            out.append(",\"type\":");
            Json.string(out, inputTypes[i]);
            boolean proctime = name.equals("pt") && s.proctime();
            if (proctime || rowtimeColumn(s, name)) {
                out.append(",\"time\":\"").append(proctime ? "proctime" : "rowtime").append('"');
            }
            out.append('}');
        }
        out.append("],\"output\":[");
        int[] outputColumns = new int[p.outNames.size()];
        for (int i = 0; i < p.outNames.size(); i++) {
            String name = p.outNames.get(i);
            outputColumns[i] = outputColumn(p, name);
            if (outputColumns[i] < 0) {
                throw new IllegalStateException(s.name + ": output " + name + " not in the node");
            }
            GroupAggVectors.column(out, i, name, p.outTypes[i]);
        }
        out.append("],\"output_columns\":").append(list(outputColumns))
                .append(",\"output_keys\":[");
        for (int i = 0; i < node.keys.length; i++) {
            int key = p.outNames.indexOf(node.fields.get(node.keys[i]));
            if (key < 0) {
                throw new IllegalStateException(s.name + ": key column not in the output");
            }
            out.append(i == 0 ? "" : ",").append(key);
        }
        out.append("],\"sql\":");
        Json.string(out, p.sql);
        out.append(",\"plan\":");
        Json.string(out, p.plan);
        out.append(",\"events_in\":").append(events.size()).append(",\"rows_out\":")
                .append(p.output.size()).append("}\n");
        for (long[] e : events) {
            if (e[0] == 0) {
                out.append("{\"watermark\":").append(e[1]).append("}\n");
                continue;
            }
            Row r = p.input.get((int) e[1]);
            out.append("{\"in\":\"").append(r.getKind().shortString()).append("\",\"row\":[");
            for (int i = 0; i < at.length; i++) {
                out.append(i == 0 ? "" : ",");
                value(out, inputTypes[i], r.getField(at[i]));
            }
            out.append("]}\n");
        }
        for (String line : p.output) {
            out.append(line).append('\n');
        }
    }

    static String list(int[] values) {
        return Arrays.toString(values).replace(" ", "");
    }

    static void value(StringBuilder out, String type, Object v) {
        if (v == null) {
            out.append("null");
        } else if (type.equals("TIMESTAMP(3)")) {
            LocalDateTime t = (LocalDateTime) v;
            if (t.getNano() % 1_000_000 != 0) {
                throw new IllegalStateException(t + " is not whole milliseconds");
            }
            Json.string(out, Long.toString(t.toInstant(ZoneOffset.UTC).toEpochMilli()));
        } else if (type.equals("TIMESTAMP_LTZ(3)")) {
            Json.string(out, Long.toString(((Instant) v).toEpochMilli()));
        } else {
            GroupAggVectors.value(out, type, v);
        }
    }

    /** An output row as its line, tagged with the scenario's index and a tab. */
    static final class Encode implements MapFunction<Row, String> {
        private static final long serialVersionUID = 1L;
        private final int index;
        private final String[] types;

        Encode(int index, String[] types) {
            this.index = index;
            this.types = types;
        }

        @Override
        public String map(Row r) {
            StringBuilder out = new StringBuilder().append(index).append('\t');
            out.append("{\"out\":\"").append(r.getKind().shortString()).append("\",\"row\":[");
            for (int i = 0; i < r.getArity(); i++) {
                out.append(i == 0 ? "" : ",");
                value(out, types[i], r.getField(i));
            }
            return out.append("]}").toString();
        }
    }

    /** Emits the scheduled watermark after each row; none periodically. */
    static final class Scheduled implements WatermarkGeneratorSupplier<Row> {
        private static final long serialVersionUID = 1L;
        private final long[] after;

        Scheduled(long[] after) {
            this.after = after;
        }

        @Override
        public WatermarkGenerator<Row> createWatermarkGenerator(Context context) {
            return new WatermarkGenerator<>() {
                private int seen;

                @Override
                public void onEvent(Row row, long timestamp, WatermarkOutput output) {
                    long w = after[seen++];
                    if (w != NO_WATERMARK) {
                        output.emitWatermark(new Watermark(w));
                    }
                }

                @Override
                public void onPeriodicEmit(WatermarkOutput output) {}
            };
        }
    }

    /** The record timestamp: the row's {@code ts} in epoch milliseconds. */
    static final class RowTime implements SerializableTimestampAssigner<Row> {
        private static final long serialVersionUID = 1L;
        private final int ts;

        RowTime(int ts) {
            this.ts = ts;
        }

        @Override
        public long extractTimestamp(Row row, long previous) {
            Object t = row.getField(ts);
            return t instanceof Instant
                    ? ((Instant) t).toEpochMilli()
                    : ((LocalDateTime) t).toInstant(ZoneOffset.UTC).toEpochMilli();
        }
    }

    static Object pick(SplittableRandom rnd, Object[] pool) {
        return pool[rnd.nextInt(pool.length)];
    }

    /** A pool value, or NULL one time in {@code nullEvery}. */
    static Object pickOrNull(SplittableRandom rnd, Object[] pool, int nullEvery) {
        return rnd.nextInt(nullEvery) == 0 ? null : pick(rnd, pool);
    }

    /** What a scenario run on both backends adds to its name on RocksDB. */
    static String suffix(String backend) {
        return backend.equals("hashmap") ? "" : "_rocksdb";
    }

    /** {@code n} keys: the pool's first, then {@code key-i}. */
    static Object[] keys(Object[] pool, int n) {
        Object[] keys = new Object[n];
        for (int i = 0; i < n; i++) {
            keys[i] = i < pool.length ? pool[i] : "key-" + i;
        }
        return keys;
    }
}
