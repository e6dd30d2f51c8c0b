package org.streamfusion.golden;

import java.io.IOException;
import java.io.Serializable;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.checkpoint.SubTaskInitializationMetricsBuilder;
import org.apache.flink.runtime.event.WatermarkEvent;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamConfig;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.transformations.TwoInputTransformation;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.streaming.runtime.tasks.StreamTask;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.clock.Clock;

import org.streamfusion.flink.StreamFusionPlanner;
import org.streamfusion.jni.NativeOperator;
import org.apache.flink.util.OutputTag;

/**
 * What the golden generators of Flink's two-input joins share ({@link WindowJoinVectors},
 * {@link IntervalJoinVectors}, {@link TemporalJoinVectors} and {@link
 * ProcTimeTemporalJoinVectors}, whose inputs may be changelogs, and {@link
 * ProcTimeIntervalJoinVectors}): each scenario's query is planned by Flink ({@link
 * Planner}), the rows reaching its join node's two inputs are read in one MiniCluster job
 * ({@link #inputs}), and the operator Flink built is driven by {@link Driver} through one fixed
 * order of events (rows of either side, watermarks of both inputs, and, where the scenario
 * controls processing time ({@link Planned#manualProcessingTime}), the processing time), each
 * event's outputs recorded right after it ({@link #run}). {@link WindowJoinVectors} describes
 * the procedure.
 */
final class TwoInputVectors {
    static final int LEFT = 0;
    static final int RIGHT = 1;
    /** The side of a watermark event (both inputs). */
    static final int WATERMARK = -1;
    /** The side of a processing-time event ({@link ManualProcessingTime#advance}). */
    static final int PROCESSING_TIME = -2;
    static final long NO_WATERMARK = Long.MIN_VALUE;
    /** The processing time of a scenario that has set none yet. */
    static final long NO_TIME = Long.MIN_VALUE;
    /** The separator watermark after a side's j-th row is {@code SEPARATOR + j}. */
    static final long SEPARATOR = Long.MIN_VALUE / 2;
    static final long END_OF_INPUT = Long.MAX_VALUE;

    private TwoInputVectors() {}

    /**
     * A table row (side 0 or 1, its kind and the values of all its columns), a watermark (side
     * {@link #WATERMARK}, {@code watermark} its value) or a processing time (side {@link
     * #PROCESSING_TIME}, {@code watermark} the time, epoch ms).
     */
    record Event(int side, RowKind kind, Object[] values, long watermark) {
        /** An insertion (a row of an insert-only table), a watermark or a processing time. */
        Event(int side, Object[] values, long watermark) {
            this(side, RowKind.INSERT, values, watermark);
        }

        boolean isWatermark() {
            return side == WATERMARK;
        }

        boolean isProcessingTime() {
            return side == PROCESSING_TIME;
        }
    }

    /** Makes the {@code n}-th random row's values (the columns before {@code id}, {@code ts}). */
    interface RowMaker {
        Object[] row(SplittableRandom rnd, int n);
    }

    /**
     * The scenarios a generator's command line names after the output path ({@code args}; all
     * of {@code all} when it names none, a scenario's name its {@code name}); without an output
     * path, prints {@code generator}'s usage and exits. Makes the native library unloadable:
     * the planner describes the nodes, and nothing may run natively (golden vectors come from
     * stock Flink).
     */
    static <S> List<S> selected(String[] args, String generator, Supplier<List<S>> all,
            Function<S, String> name) {
        if (args.length < 1) {
            System.err.println("usage: " + generator + " <output path> [scenario..]");
            System.exit(2);
        }
        System.setProperty(NativeOperator.LIBRARY_PATH_PROPERTY,
                "/nonexistent/streamfusion-golden-vectors-run-stock/libstreamfusion_jni.so");
        return JoinVectors.select(all.get(), name, Arrays.asList(args).subList(1, args.length));
    }

    /**
     * Scenario {@code name}'s random numbers, from the project's seed and its name without
     * {@code _rocksdb}: a scenario and its RocksDB twin draw the same rows.
     */
    static SplittableRandom twinRandom(String name) {
        return new SplittableRandom(GroupAggVectors.SEED ^ name.replace("_rocksdb", "").hashCode());
    }


    /** A scenario planned: the operator Flink built and what the file says about it. */
    abstract static class Planned {
        /** The scenario's name. */
        final String name;
        final int tag;
        String sql;
        String description;
        String config;
        String plan;
        /** The released two-input operator the planner built. */
        AbstractStreamOperator<RowData> operator;
        TwoInputTransformation<RowData, RowData, RowData> transformation;
        /** The node's input and output rows, time attributes as plain types. */
        RowType[] inputs;
        RowType output;
        int[][] keys;
        boolean[] filterNulls;
        /**
         * Per side, per table row, the node's input rows it became; where {@link
         * #perWatermark}, per watermark (and the end of input), the rows emitted for it.
         */
        final List<List<List<byte[]>>> segments = new ArrayList<>();
        Feed feed;
        /** Per event, the output lines in emission order. */
        final List<List<String>> outputs = new ArrayList<>();

        Planned(String name, int tag) {
            this.name = name;
            this.tag = tag;
            segments.add(new ArrayList<>());
            segments.add(new ArrayList<>());
        }

        /** The watermarks side {@code side}'s input sees before the end of input, in order. */
        abstract long[] due(int side);

        /**
         * Whether the node's input rows are read per watermark (an upstream operator holds rows
         * until a watermark) rather than per table row (between {@link #SEPARATOR}s).
         */
        boolean perWatermark() {
            return false;
        }

        /**
         * Whether the node's input rows are read without separators: each table row becomes
         * exactly one node row, in order (the tables of a processing-time join have no
         * watermark, and their input conversion drops the stream's watermarks but the end of
         * input's); {@link #due} is then empty.
         */
        boolean unseparated() {
            return false;
        }

        /** Whether the node's inputs may carry updates and deletions (else only insertions). */
        boolean updating() {
            return false;
        }

        /**
         * Whether the scenario sets the operator's processing time ({@link
         * ManualProcessingTime}: the events of side {@link #PROCESSING_TIME}), else the task's
         * clock is the operator's.
         */
        boolean manualProcessingTime() {
            return false;
        }
    }

    /** Plans one scenario in the shared environment: its node's transformation and types. */
    interface Planner<S, P extends Planned> {
        P plan(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, S scenario, int tag)
                throws Exception;
    }

    /**
     * Plans every scenario in one environment ({@code planner}) and runs the sides of their
     * join nodes' inputs (each side's rows with a separator watermark after each, or the
     * scenario's watermarks) in one job, {@code job}, reading what reaches each join node;
     * returns the scenarios planned, with their node input rows in {@link Planned#segments}.
     */
    static <S, P extends Planned> List<P> inputs(List<S> scenarios, Planner<S, P> planner,
            String job) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        // Many pipelines share the job: enough network buffers for all their exchanges.
        conf.setString("taskmanager.memory.network.min", "256mb");
        conf.setString("taskmanager.memory.network.max", "256mb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        List<P> planned = new ArrayList<>();
        // Per scenario and side, the watermarks its input sees before the end of input.
        List<long[][]> due = new ArrayList<>();
        DataStream<String> all = null;
        for (S s : scenarios) {
            P p = planner.plan(env, tEnv, s, planned.size());
            due.add(new long[2][]);
            for (int side = 0; side < 2; side++) {
                due.get(p.tag)[side] = p.due(side);
            }
            for (int side = 0; side < 2; side++) {
                @SuppressWarnings("unchecked")
                Transformation<RowData> input =
                        (Transformation<RowData>) p.transformation.getInputs().get(side);
                DataStream<String> tap = new DataStream<>(env, input)
                        .transform("tap " + p.name + " " + side, Types.STRING,
                                new Tap(p.tag, side, p.inputs[side], p.updating()))
                        .setParallelism(1);
                all = all == null ? tap : all.union(tap);
            }
            planned.add(p);
        }
        // Per scenario and side, the rows since the last watermark.
        Map<Integer, List<List<byte[]>>> pending = new LinkedHashMap<>();
        try (CloseableIterator<String> it = all.executeAndCollect(job)) {
            while (it.hasNext()) {
                String[] line = it.next().split("\t", 4);
                P p = planned.get(Integer.parseInt(line[0]));
                int side = Integer.parseInt(line[1]);
                List<byte[]> rows = pending.computeIfAbsent(p.tag, t -> {
                    List<List<byte[]>> sides = new ArrayList<>();
                    sides.add(new ArrayList<>());
                    sides.add(new ArrayList<>());
                    return sides;
                }).get(side);
                if (line[2].equals("R")) {
                    rows.add(unhex(line[3]));
                    continue;
                }
                long w = Long.parseLong(line[3]);
                List<List<byte[]>> segments = p.segments.get(side);
                long[] expected = due.get(p.tag)[side];
                if (w == END_OF_INPUT) {
                    if (p.perWatermark()) {
                        segments.add(new ArrayList<>(rows));
                    } else if (p.unseparated()) {
                        for (byte[] row : rows) {
                            segments.add(List.of(row));
                        }
                    } else if (!rows.isEmpty()) {
                        throw new IllegalStateException(p.name + ": rows after the last"
                                + " separator on side " + side);
                    }
                    rows.clear();
                    continue;
                }
                if (segments.size() >= expected.length || w != expected[segments.size()]) {
                    throw new IllegalStateException(p.name + ": watermark " + w
                            + " where " + segments.size() + " of " + Arrays.toString(expected)
                            + " were due on side " + side);
                }
                segments.add(new ArrayList<>(rows));
                rows.clear();
            }
        }
        return planned;
    }

    /**
     * Creates (or replaces) view {@code name} of one side's table, {@code columns}: the rows of
     * {@code side} among {@code events} in their order, with the watermarks of {@code schedule}
     * after each ({@link Schedule}); its last column {@code ts} its rowtime attribute.
     */
    static void view(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, String scenario,
            List<JoinVectors.Column> columns, List<Event> events, int side, long[][] schedule,
            String name) {
        view(env, tEnv, scenario, columns, events, side, schedule, name, List.of(), false);
    }

    /**
     * {@link #view} with primary key {@code primaryKey} (none when empty), as a changelog
     * ({@code fromChangelogStream}, {@code ChangelogMode.all()}: the events' row kinds) where
     * {@code changelog}, else insert-only ({@code fromDataStream}).
     */
    static void view(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, String scenario,
            List<JoinVectors.Column> columns, List<Event> events, int side, long[][] schedule,
            String name, List<String> primaryKey, boolean changelog) {
        Schema.Builder schema = schema(columns);
        schema.watermark("ts", "SOURCE_WATERMARK()");
        if (!primaryKey.isEmpty()) {
            schema.primaryKey(primaryKey);
        }
        DataStream<Row> stream = stream(env, scenario, columns, events, side, schedule, changelog);
        tEnv.dropTemporaryView(name);
        tEnv.createTemporaryView(name, changelog
                ? tEnv.fromChangelogStream(stream, schema.build(), ChangelogMode.all())
                : tEnv.fromDataStream(stream, schema.build()));
    }

    /**
     * Creates (or replaces) insert-only view {@code name} of one side's table, {@code
     * columns} (none of them a rowtime attribute) and then the processing-time attribute
     * {@code pt} ({@code PROCTIME()}): the rows of {@code side} among {@code events} in their
     * order, without watermarks (a table without one drops its stream's: the node's rows are
     * read {@link Planned#unseparated}).
     */
    static void procTimeView(StreamExecutionEnvironment env, StreamTableEnvironment tEnv,
            String scenario, List<JoinVectors.Column> columns, List<Event> events, int side,
            String name) {
        procTimeView(env, tEnv, scenario, columns, events, side, name, List.of(), false);
    }

    /**
     * {@link #procTimeView} with primary key {@code primaryKey} (none when empty), as a
     * changelog ({@code fromChangelogStream}, {@code ChangelogMode.all()}: the events' row
     * kinds) where {@code changelog}.
     */
    static void procTimeView(StreamExecutionEnvironment env, StreamTableEnvironment tEnv,
            String scenario, List<JoinVectors.Column> columns, List<Event> events, int side,
            String name, List<String> primaryKey, boolean changelog) {
        Schema.Builder schema = schema(columns);
        schema.columnByExpression("pt", "PROCTIME()");
        if (!primaryKey.isEmpty()) {
            schema.primaryKey(primaryKey);
        }
        DataStream<Row> stream = stream(env, scenario, columns, events, side, null, changelog);
        tEnv.dropTemporaryView(name);
        tEnv.createTemporaryView(name, changelog
                ? tEnv.fromChangelogStream(stream, schema.build(), ChangelogMode.all())
                : tEnv.fromDataStream(stream, schema.build()));
    }

    /** A schema of the physical {@code columns}. */
    private static Schema.Builder schema(List<JoinVectors.Column> columns) {
        Schema.Builder schema = Schema.newBuilder();
        for (JoinVectors.Column c : columns) {
            schema.column(c.name(), c.dataType());
        }
        return schema;
    }

    /**
     * The rows of {@code side} among {@code events} (their kinds where {@code changelog}, else
     * insertions only), with the watermarks of {@code schedule} after each and each record's
     * timestamp the last column's ({@code ts}); without a {@code schedule} (null), neither.
     */
    private static DataStream<Row> stream(StreamExecutionEnvironment env, String scenario,
            List<JoinVectors.Column> columns, List<Event> events, int side, long[][] schedule,
            boolean changelog) {
        DataTypes.Field[] fields = new DataTypes.Field[columns.size()];
        for (int i = 0; i < fields.length; i++) {
            JoinVectors.Column c = columns.get(i);
            fields[i] = DataTypes.FIELD(c.name(), c.dataType());
        }
        List<Row> rows = new ArrayList<>();
        for (Event e : events) {
            if (e.side() == side) {
                if (e.kind() != RowKind.INSERT && !changelog) {
                    throw new IllegalStateException(scenario + ": a " + e.kind()
                            + " row of insert-only side " + side);
                }
                rows.add(Row.ofKind(e.kind(), e.values()));
            }
        }
        if (rows.isEmpty()) {
            throw new IllegalStateException(scenario + ": no rows on side " + side);
        }
        @SuppressWarnings("unchecked")
        ExternalTypeInfo<Row> typeInfo =
                (ExternalTypeInfo<Row>) (ExternalTypeInfo<?>) ExternalTypeInfo.of(
                        DataTypes.ROW(fields).bridgedTo(Row.class));
        DataStream<Row> stream = env.fromData(rows, typeInfo).setParallelism(1);
        if (schedule == null) {
            return stream;
        }
        return stream.assignTimestampsAndWatermarks(
                        WatermarkStrategy.forGenerator(new Schedule(schedule))
                                .withTimestampAssigner(new NodeVectors.RowTime(fields.length - 1)))
                .setParallelism(1);
    }


    /** Emits the scheduled watermarks after each row (in order); none periodically. */
    static final class Schedule implements WatermarkGeneratorSupplier<Row> {
        private static final long serialVersionUID = 1L;
        private final long[][] after;

        Schedule(long[][] after) {
            this.after = after;
        }

        @Override
        public WatermarkGenerator<Row> createWatermarkGenerator(Context context) {
            return new WatermarkGenerator<>() {
                private int seen;

                @Override
                public void onEvent(Row row, long timestamp, WatermarkOutput output) {
                    for (long w : after[seen++]) {
                        output.emitWatermark(new org.apache.flink.api.common.eventtime.Watermark(
                                w));
                    }
                }

                @Override
                public void onPeriodicEmit(WatermarkOutput output) {}
            };
        }
    }

    /**
     * A join node's input as lines: each row's serialized bytes (its row kind in its header),
     * and the watermarks.
     */
    static final class Tap extends AbstractStreamOperator<String>
            implements OneInputStreamOperator<RowData, String> {
        private static final long serialVersionUID = 1L;
        private final int tag;
        private final int side;
        private final RowDataSerializer serializer;
        /** Whether rows other than insertions may come (else one fails the program). */
        private final boolean updating;

        Tap(int tag, int side, RowType type, boolean updating) {
            this.tag = tag;
            this.side = side;
            this.serializer = new RowDataSerializer(type);
            this.updating = updating;
        }

        @Override
        public void processElement(StreamRecord<RowData> element) {
            RowData row = element.getValue();
            if (row.getRowKind() != RowKind.INSERT && !updating) {
                throw new IllegalStateException("the node's input emitted " + row.getRowKind());
            }
            BinaryRowData binary = serializer.toBinaryRow(row);
            byte[] bytes = BinarySegmentUtils.copyToBytes(binary.getSegments(),
                    binary.getOffset(), binary.getSizeInBytes());
            output.collect(new StreamRecord<>(tag + "\t" + side + "\tR\t" + Json.hex(bytes)));
        }

        @Override
        public void processWatermark(Watermark mark) throws Exception {
            output.collect(new StreamRecord<>(tag + "\t" + side + "\tW\t"
                    + mark.getTimestamp()));
            super.processWatermark(mark);
        }
    }

    static byte[] unhex(String hex) {
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static long[] longs(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).toArray();
    }


    /**
     * The released operator of {@code root}'s node named {@code node} (its two-input
     * transformation, kept in {@code p}, built by a simple factory), exactly of class {@code
     * type}: not an async-state or other variant.
     */
    static <T> T joinOperator(Planned p, Transformation<?> root, String node, Class<T> type) {
        Transformation<?> join = NodeVectors.nodeTransformation(p.name, root, node);
        if (!(join instanceof TwoInputTransformation)) {
            throw new IllegalStateException(p.name + ": the " + node + " is " + join);
        }
        @SuppressWarnings("unchecked")
        TwoInputTransformation<RowData, RowData, RowData> two =
                (TwoInputTransformation<RowData, RowData, RowData>) join;
        p.transformation = two;
        StreamOperatorFactory<RowData> factory = two.getOperatorFactory();
        if (!(factory instanceof SimpleOperatorFactory)) {
            throw new IllegalStateException(p.name + ": the join's factory is " + factory);
        }
        Object operator = ((SimpleOperatorFactory<RowData>) factory).getOperator();
        if (operator.getClass() != type) {
            throw new IllegalStateException(p.name + ": the join operator is "
                    + operator.getClass().getName());
        }
        return type.cast(operator);
    }

    /**
     * Takes into {@code p} the planner extension's description and options of its one node of
     * JSON type {@code nodeType}: refused, for want of a native library, as golden vectors
     * must come from stock Flink.
     */
    static void decision(Planned p, String nodeType) {
        StreamFusionPlanner.Decision decision = null;
        for (StreamFusionPlanner.Decision d : StreamFusionPlanner.decisions()) {
            if (d.isNative()) {
                throw new IllegalStateException(p.name + ": " + d.node + " was planned natively;"
                        + " golden vectors must come from stock Flink");
            }
            if (d.description != null && d.description.contains("\"" + nodeType + "\"")) {
                if (decision != null) {
                    throw new IllegalStateException(p.name + ": two " + nodeType + " nodes");
                }
                decision = d;
            }
        }
        if (decision == null || decision.reason == null
                || !decision.reason.startsWith("the native library is unavailable")) {
            throw new IllegalStateException(p.name + ": the " + nodeType + " node's decision "
                    + decision + " among " + StreamFusionPlanner.decisions());
        }
        p.description = decision.description;
        p.config = decision.config;
    }

    /**
     * Takes into {@code p} its join's input and output columns, time attributes as plain
     * types; where the node's {@code description} names other columns, says so in {@code
     * problems}.
     */
    static void columns(Planned p, JsonNode description, List<String> problems) {
        p.inputs = new RowType[2];
        for (int side = 0; side < 2; side++) {
            RowType type = ((InternalTypeInfo<?>) p.transformation.getInputs().get(side)
                    .getOutputType()).toRowType();
            p.inputs[side] = plain(type);
            if (!NodeVectors.fieldNames(description.get("inputs").get(side))
                    .equals(type.getFieldNames())) {
                problems.add("input " + side + " " + description.get("inputs").get(side)
                        + ", the transformation's " + type);
            }
        }
        JsonNode node = description.get("node");
        RowType output = ((InternalTypeInfo<?>) p.transformation.getOutputType()).toRowType();
        p.output = plain(output);
        if (!NodeVectors.fieldNames(node.get("outputType")).equals(output.getFieldNames())) {
            problems.add("outputType " + node.get("outputType") + ", the operator's " + output);
        }
    }

    /** The row type with time attributes as plain timestamps (for converters and the file). */
    static RowType plain(RowType type) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (RowType.RowField f : type.getFields()) {
            LogicalType t = f.getType();
            if (t instanceof TimestampType ts) {
                t = new TimestampType(ts.isNullable(), ts.getPrecision());
            } else if (t instanceof LocalZonedTimestampType ts) {
                t = new LocalZonedTimestampType(ts.isNullable(), ts.getPrecision());
            }
            fields.add(new RowType.RowField(f.getName(), t));
        }
        return new RowType(type.isNullable(), fields);
    }

    /**
     * The translated query's operators upstream of {@code root}, in creation order, as they
     * describe themselves (a source's generated name without its counter), separated by " | ".
     */
    static String plan(Transformation<?> root) {
        List<Transformation<?>> all = new ArrayList<>();
        Set<Transformation<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Transformation<?>> todo = new ArrayDeque<>(List.of(root));
        while (!todo.isEmpty()) {
            Transformation<?> t = todo.pop();
            if (seen.add(t)) {
                all.add(t);
                todo.addAll(t.getInputs());
            }
        }
        all.sort(Comparator.comparingInt(Transformation::getId));
        List<String> names = new ArrayList<>();
        for (Transformation<?> t : all) {
            String d = t.getDescription() == null || t.getDescription().isEmpty() ? t.getName()
                    : t.getDescription();
            names.add(d.replaceAll("anonymous_datastream_source\\$\\d+",
                    "anonymous_datastream_source"));
        }
        return String.join(" | ", names);
    }

    /**
     * The events of {@code p} when its node rows are read per table row, in the scenario's
     * order ({@code events}): each table row's node rows (their {@code id} and {@code ts}, where
     * the table has them and the node reads them, checked to be the row's; a side's table
     * columns are {@code table}), the watermarks and the processing times.
     */
    static void rowFeed(Planned p, List<Event> events, IntFunction<List<JoinVectors.Column>> table,
            List<Integer> sides, List<byte[]> rows, List<Long> watermarks) {
        int[] seen = new int[2];
        for (Event e : events) {
            if (e.isWatermark() || e.isProcessingTime()) {
                sides.add(e.side());
                rows.add(null);
                watermarks.add(e.watermark());
                continue;
            }
            List<List<byte[]>> segments = p.segments.get(e.side());
            if (seen[e.side()] >= segments.size()) {
                throw new IllegalStateException(p.name + ": side " + e.side() + " has "
                        + segments.size() + " separators for more rows");
            }
            for (byte[] row : segments.get(seen[e.side()])) {
                Row external = external(p, e.side(), row);
                List<JoinVectors.Column> columns = table.apply(e.side());
                for (String column : List.of("id", "ts")) {
                    int at = p.inputs[e.side()].getFieldNames().indexOf(column);
                    int want = columns.indexOf(columns.stream()
                            .filter(c -> c.name().equals(column)).findFirst().orElse(null));
                    if (at >= 0 && want >= 0
                            && !Objects.equals(external.getField(at), e.values()[want])) {
                        throw new IllegalStateException(p.name + ": node row " + external
                                + " is not of table row " + Arrays.toString(e.values()));
                    }
                }
                sides.add(e.side());
                rows.add(row);
                watermarks.add(0L);
            }
            seen[e.side()]++;
        }
        for (int side = 0; side < 2; side++) {
            if (seen[side] != p.segments.get(side).size()) {
                throw new IllegalStateException(p.name + ": side " + side + " has "
                        + p.segments.get(side).size() + " separators for " + seen[side]
                        + " rows");
            }
        }
    }


    /**
     * Sets {@code p}'s events (sides, rows and watermarks; side {@link #WATERMARK} a watermark
     * of both inputs, {@link #PROCESSING_TIME} a processing time, its value a watermark's),
     * makes room for their outputs and checks every row's key.
     */
    static void feed(Planned p, List<Integer> sides, List<byte[]> rows, List<Long> watermarks)
            throws Exception {
        p.feed = new Feed(p, sides, rows, watermarks);
        for (int i = 0; i < sides.size(); i++) {
            p.outputs.add(new ArrayList<>());
        }
        checkKeys(p);
    }

    /**
     * Fails unless {@code p}'s first event is a processing time and every node row's proctime
     * column ({@code times[side]}, none where negative) holds NULL (the placeholder of a
     * proctime attribute no operator before the join reads).
     */
    static void checkProcTimeFeed(Planned p, int[] times) {
        if (p.feed.size() == 0 || p.feed.side(0) != PROCESSING_TIME) {
            throw new IllegalStateException(p.name + ": the first event is not a processing"
                    + " time");
        }
        for (int i = 0; i < p.feed.size(); i++) {
            int side = p.feed.side(i);
            RowData row = side < 0 || times[side] < 0 ? null : p.feed.row(i);
            if (row != null && !row.isNullAt(times[side])) {
                throw new IllegalStateException(p.name + ": node row "
                        + JoinVectors.converter(p.inputs[side]).toExternal(row) + " holds "
                        + row.getTimestamp(times[side], 3) + " in its proctime column");
            }
        }
    }

    /** Node row {@code bytes} of {@code side} as an external row. */
    static Row external(Planned p, int side, byte[] bytes) {
        BinaryRowData row = new BinaryRowData(p.inputs[side].getFieldCount());
        row.pointTo(MemorySegmentFactory.wrap(bytes), 0, bytes.length);
        return (Row) JoinVectors.converter(p.inputs[side]).toExternal(row);
    }

    /** Fails unless the planner's key selectors give each row's values at the node's keys. */
    static void checkKeys(Planned p) throws Exception {
        KeySelector<RowData, RowData>[] selectors = selectors(p);
        for (int i = 0; i < p.feed.size(); i++) {
            int side = p.feed.side(i);
            if (side < 0) {
                continue;
            }
            RowType keyType = JoinVectors.project(p.inputs[side], p.keys[side]);
            DataStructureConverter<Object, Object> converter = JoinVectors.converter(keyType);
            Row key = (Row) converter.toExternal(selectors[side].getKey(p.feed.row(i)));
            Row row = external(p, side, p.feed.rows[i]);
            for (int k = 0; k < p.keys[side].length; k++) {
                if (!Objects.equals(key.getField(k), row.getField(p.keys[side][k]))) {
                    throw new IllegalStateException(p.name + ": key " + key + " of "
                            + row + " is not its columns " + Arrays.toString(p.keys[side]));
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    static KeySelector<RowData, RowData>[] selectors(Planned p) {
        return new KeySelector[] {
            JoinVectors.rowKeys(p.transformation.getStateKeySelector1()),
            JoinVectors.rowKeys(p.transformation.getStateKeySelector2())
        };
    }


    // ---------------------------------------------------------------- execution

    /**
     * The events of one scenario as the operator receives them: each row's side and its bytes,
     * handed out as a fresh {@code BinaryRowData} on every call, a watermark or a processing
     * time.
     */
    static final class Feed implements Serializable {
        private static final long serialVersionUID = 1L;
        private final int[] sides;
        private final byte[][] rows;
        private final long[] watermarks;
        private final int[] arity;

        Feed(Planned p, List<Integer> sides, List<byte[]> rows, List<Long> watermarks) {
            this.sides = sides.stream().mapToInt(Integer::intValue).toArray();
            this.rows = rows.toArray(new byte[0][]);
            this.watermarks = watermarks.stream().mapToLong(Long::longValue).toArray();
            this.arity = new int[] {p.inputs[LEFT].getFieldCount(),
                p.inputs[RIGHT].getFieldCount()};
        }

        int size() {
            return sides.length;
        }

        /** The event's side, {@link #WATERMARK} or {@link #PROCESSING_TIME}. */
        int side(int i) {
            return sides[i];
        }

        /** A watermark's value or a processing time. */
        long watermark(int i) {
            return watermarks[i];
        }

        /** Event {@code i}'s row, a new object over a copy of its bytes. */
        RowData row(int i) {
            byte[] bytes = rows[i].clone();
            BinaryRowData row = new BinaryRowData(arity[sides[i]]);
            row.pointTo(MemorySegmentFactory.wrap(bytes), 0, bytes.length);
            return row;
        }
    }

    /**
     * Maps an event index to the planner's key of its row (a watermark or a processing time to
     * the next row's key: the driver's own key does not matter, one task holds every key).
     */
    static final class EventKey implements KeySelector<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final Feed feed;
        private final KeySelector<RowData, RowData> left;
        private final KeySelector<RowData, RowData> right;

        EventKey(Feed feed, KeySelector<RowData, RowData> left,
                KeySelector<RowData, RowData> right) {
            this.feed = feed;
            this.left = left;
            this.right = right;
        }

        @Override
        public RowData getKey(Long event) throws Exception {
            int i = (int) (long) event;
            while (feed.side(i) < 0) {
                i = (i + 1) % feed.size();
            }
            return (feed.side(i) == LEFT ? left : right).getKey(feed.row(i));
        }
    }

    /**
     * Drives the planner's two-input operator by event indexes, set up as a task sets up an
     * operator: its {@code setup} with this task's config and an output that stamps every
     * record with the current event's index, its own keyed state and timers from the task's
     * state initializer, its {@code open}, {@code finish} and {@code close}. The upstream's
     * watermarks (only the end of input's) are not the scenario's and are dropped. Where the
     * scenario sets the processing time ({@link Planned#manualProcessingTime}), the operator's
     * processing time service, which its timer service manager takes when its state is
     * initialized, is a {@link ManualProcessingTime} the processing-time events advance (the
     * driver checks that the operator's timer services use it); else it is the task's.
     */
    static final class Driver extends AbstractStreamOperator<RowData>
            implements OneInputStreamOperator<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final AbstractStreamOperator<RowData> join;
        private final TwoInputStreamOperator<RowData, RowData, RowData> two;
        private final Feed feed;
        private final KeySelector<RowData, RowData> left;
        private final KeySelector<RowData, RowData> right;
        private final boolean manual;
        private transient Stamp stamp;
        private transient ManualProcessingTime clock;

        @SuppressWarnings("unchecked")
        Driver(Planned p) {
            this.join = p.operator;
            this.two = (TwoInputStreamOperator<RowData, RowData, RowData>) p.operator;
            this.feed = p.feed;
            KeySelector<RowData, RowData>[] selectors = selectors(p);
            this.left = selectors[LEFT];
            this.right = selectors[RIGHT];
            this.manual = p.manualProcessingTime();
        }

        @Override
        protected void setup(StreamTask<?, ?> containingTask, StreamConfig config,
                Output<StreamRecord<RowData>> output) {
            super.setup(containingTask, config, output);
            stamp = new Stamp(output);
            ProcessingTimeService time = getProcessingTimeService();
            if (manual) {
                clock = new ManualProcessingTime();
                time = clock;
            }
            invoke("setProcessingTimeService", new Class<?>[] {ProcessingTimeService.class},
                    time);
            invoke("setup", new Class<?>[] {StreamTask.class, StreamConfig.class, Output.class},
                    containingTask, config, stamp);
        }

        /** Calls the operator's protected {@code AbstractStreamOperator} method. */
        private void invoke(String name, Class<?>[] types, Object... args) {
            try {
                Method m = AbstractStreamOperator.class.getDeclaredMethod(name, types);
                m.setAccessible(true);
                m.invoke(join, args);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(name + " of the join: " + e, e);
            }
        }

        @Override
        public void open() throws Exception {
            super.open();
            join.initializeState(getContainingTask().createStreamTaskStateInitializer(
                    new SubTaskInitializationMetricsBuilder(0L)));
            join.open();
            if (manual) {
                checkTimerServices();
            }
        }

        /**
         * Fails unless the operator's timer services (at least one) take their processing time
         * and register their timers with {@link #clock}.
         */
        private void checkTimerServices() {
            Object manager = JoinVectors.field(join, "timeServiceManager");
            Map<?, ?> services = (Map<?, ?>) JoinVectors.field(manager, "timerServices");
            if (JoinVectors.field(manager, "processingTimeService") != clock
                    || services.isEmpty()) {
                throw new IllegalStateException("the join's timer service manager "
                        + manager.getClass().getName() + " does not use the manual processing"
                        + " time (or has no timer service)");
            }
            for (Object service : services.values()) {
                if (JoinVectors.field(service, "processingTimeService") != clock) {
                    throw new IllegalStateException("the join's timer service " + service
                            + " does not use the manual processing time");
                }
            }
        }

        @Override
        public void processElement(StreamRecord<Long> event) throws Exception {
            int i = (int) (long) event.getValue();
            stamp.event = i;
            int side = feed.side(i);
            if (side == PROCESSING_TIME) {
                if (!manual) {
                    throw new IllegalStateException("a processing time for the task's clock");
                }
                clock.advance(feed.watermark(i));
                return;
            }
            if (side < 0) {
                Watermark w = new Watermark(feed.watermark(i));
                two.processWatermark1(w);
                two.processWatermark2(w);
                return;
            }
            RowData row = feed.row(i);
            join.setCurrentKey((side == LEFT ? left : right).getKey(row));
            if (side == LEFT) {
                two.processElement1(new StreamRecord<>(row));
            } else {
                two.processElement2(new StreamRecord<>(row));
            }
        }

        @Override
        public void processWatermark(Watermark mark) {}

        @Override
        public void finish() throws Exception {
            join.finish();
            super.finish();
        }

        @Override
        public void close() throws Exception {
            join.close();
            super.close();
        }
    }

    /**
     * A task's processing time service whose clock the scenario sets: {@link #advance} sets the
     * time and fires, in the order of their timestamps (of one timestamp, in the order they were
     * registered), the callbacks registered for that time or before, each with its own
     * timestamp, including those they register; as the task's service would when its clock
     * jumped to that time. A callback registered for the current time or before outside {@link
     * #advance} fails the program (the task would fire it after the current event); so does a
     * time going backwards, and a time read before the first is set.
     */
    static final class ManualProcessingTime implements ProcessingTimeService {
        private final PriorityQueue<Pending> pending = new PriorityQueue<>();
        private long now;
        private boolean started;
        private boolean advancing;
        private long registered;

        /** Sets the time to {@code ms} and fires the callbacks due. */
        void advance(long ms) throws Exception {
            if (started && ms < now) {
                throw new IllegalStateException("processing time " + ms + " after " + now);
            }
            now = ms;
            started = true;
            advancing = true;
            try {
                Pending next;
                while ((next = pending.peek()) != null && next.timestamp <= ms) {
                    pending.poll();
                    if (!next.cancelled) {
                        next.done = true;
                        next.callback.onProcessingTime(next.timestamp);
                    }
                }
            } finally {
                advancing = false;
            }
        }

        @Override
        public long getCurrentProcessingTime() {
            if (!started) {
                throw new IllegalStateException("the processing time is read before it is set");
            }
            return now;
        }

        @Override
        public Clock getClock() {
            return new Clock() {
                @Override
                public long absoluteTimeMillis() {
                    return getCurrentProcessingTime();
                }

                @Override
                public long relativeTimeMillis() {
                    return getCurrentProcessingTime();
                }

                @Override
                public long relativeTimeNanos() {
                    return getCurrentProcessingTime() * 1_000_000L;
                }
            };
        }

        @Override
        public ScheduledFuture<?> registerTimer(long timestamp, ProcessingTimeCallback callback) {
            if (!advancing && (!started || timestamp <= now)) {
                throw new IllegalStateException("a timer for " + timestamp
                        + " registered at processing time " + (started ? now : "unset"));
            }
            Pending p = new Pending(this, timestamp, registered++, callback);
            pending.add(p);
            return p;
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(ProcessingTimeCallback callback,
                long initialDelay, long period) {
            throw new UnsupportedOperationException("a periodic timer");
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(ProcessingTimeCallback callback,
                long initialDelay, long period) {
            throw new UnsupportedOperationException("a periodic timer");
        }

        @Override
        public CompletableFuture<Void> quiesce() {
            pending.clear();
            return CompletableFuture.completedFuture(null);
        }
    }

    /** A callback {@link ManualProcessingTime} holds, its future. */
    private static final class Pending implements ScheduledFuture<Object> {
        private final ManualProcessingTime service;
        final long timestamp;
        private final long order;
        final ProcessingTimeService.ProcessingTimeCallback callback;
        boolean cancelled;
        boolean done;

        Pending(ManualProcessingTime service, long timestamp, long order,
                ProcessingTimeService.ProcessingTimeCallback callback) {
            this.service = service;
            this.timestamp = timestamp;
            this.order = order;
            this.callback = callback;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(timestamp - service.now, TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            Pending p = (Pending) o;
            return timestamp != p.timestamp ? Long.compare(timestamp, p.timestamp)
                    : Long.compare(order, p.order);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (done || cancelled) {
                return false;
            }
            cancelled = true;
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return done || cancelled;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }
    }

    /** An output that stamps each record with the index of the event being processed. */
    static final class Stamp implements Output<StreamRecord<RowData>> {
        private final Output<StreamRecord<RowData>> out;
        long event;

        Stamp(Output<StreamRecord<RowData>> out) {
            this.out = out;
        }

        @Override
        public void collect(StreamRecord<RowData> record) {
            out.collect(new StreamRecord<>(record.getValue(), event));
        }

        @Override
        public <X> void collect(OutputTag<X> tag, StreamRecord<X> record) {
            throw new IllegalStateException("a side output of the join");
        }

        @Override
        public void emitWatermark(Watermark mark) {
            out.emitWatermark(mark);
        }

        @Override
        public void emitWatermarkStatus(WatermarkStatus status) {
            out.emitWatermarkStatus(status);
        }

        @Override
        public void emitLatencyMarker(LatencyMarker marker) {
            out.emitLatencyMarker(marker);
        }

        @Override
        public void emitRecordAttributes(RecordAttributes attributes) {
            out.emitRecordAttributes(attributes);
        }

        @Override
        public void emitWatermark(WatermarkEvent watermark) {
            out.emitWatermark(watermark);
        }

        @Override
        public void close() {
            out.close();
        }
    }


    /**
     * Runs the scenarios of one backend in one job and fills in their outputs; {@code what}
     * names the operator in the job's names.
     */
    static void run(String backend, List<? extends Planned> group, String what)
            throws Exception {
        StreamExecutionEnvironment env = JoinVectors.environment(backend);
        DataStream<String> all = null;
        Map<Integer, Planned> byTag = new LinkedHashMap<>();
        for (Planned p : group) {
            byTag.put(p.tag, p);
            List<Long> indexes = new ArrayList<>();
            for (long i = 0; i < p.feed.size(); i++) {
                indexes.add(i);
            }
            KeySelector<RowData, RowData>[] selectors = selectors(p);
            @SuppressWarnings("unchecked")
            TypeInformation<RowData> keyType =
                    (TypeInformation<RowData>) p.transformation.getStateKeyType();
            DataStream<String> lines = env.fromData(indexes, Types.LONG)
                    .setParallelism(1)
                    .keyBy(new EventKey(p.feed, selectors[LEFT], selectors[RIGHT]), keyType)
                    .transform(what + " " + p.name,
                            p.transformation.getOutputType(), new Driver(p))
                    .setParallelism(1)
                    .process(new JoinVectors.Encode(p.tag, p.output))
                    .setParallelism(1);
            all = all == null ? lines : all.union(lines);
        }
        JoinVectors.collect(all, what.replace(' ', '-') + "-vectors-" + backend,
                tag -> byTag.get(tag).outputs);
        for (Planned p : group) {
            System.err.printf("%s (%s): %d events, %d outputs%n", p.name, backend,
                    p.feed.size(), rowsOut(p));
        }
    }


    /**
     * Runs {@code planned}, each on its state backend ({@code backend}), one job per backend of
     * {@code backends} in their order ({@link #run}).
     */
    static <P extends Planned> void runBackends(List<P> planned, String[] backends,
            Function<P, String> backend, String what) throws Exception {
        for (String b : backends) {
            List<P> group = new ArrayList<>();
            for (P p : planned) {
                if (backend.apply(p).equals(b)) {
                    group.add(p);
                }
            }
            if (!group.isEmpty()) {
                run(b, group, what);
            }
        }
    }

    /**
     * Fails unless every scenario and its {@code _rocksdb} twin have the same outputs for every
     * event, as multisets; reports how many events' outputs came in another order.
     */
    static void compareTwins(List<? extends Planned> planned) {
        Map<String, Planned> byName = new LinkedHashMap<>();
        for (Planned p : planned) {
            byName.put(p.name, p);
        }
        for (Planned heap : planned) {
            Planned rocks = byName.get(heap.name + "_rocksdb");
            if (rocks == null) {
                continue;
            }
            if (!heap.sql.equals(rocks.sql) || heap.feed.size() != rocks.feed.size()) {
                throw new IllegalStateException(heap.name + ": its twin differs");
            }
            JoinVectors.compareOutputs(heap.name, heap.outputs, rocks.outputs);
        }
    }


    // ---------------------------------------------------------------- writing

    /**
     * Writes the file at {@code path} (UTF-8, LF): line 1 names Flink, the project's seed,
     * the {@code generator} and the {@code format}; then each scenario's lines ({@code
     * write}).
     */
    static <P extends Planned> void writeFile(String path, String generator, String format,
            List<P> planned, BiConsumer<P, StringBuilder> write) throws IOException {
        StringBuilder out = new StringBuilder(1 << 20);
        out.append("{\"flink\":\"2.3.0\",\"seed\":\"0x")
                .append(Long.toHexString(GroupAggVectors.SEED)).append("\",\"generator\":");
        Json.string(out, generator);
        out.append(",\"format\":");
        Json.string(out, format);
        out.append("}\n");
        int total = 0;
        for (P p : planned) {
            write.accept(p, out);
            total += rowsOut(p);
        }
        Path file = Path.of(path);
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.write(file, out.toString().getBytes(StandardCharsets.UTF_8));
        System.err.printf("wrote %d scenarios (%d output rows) to %s%n", planned.size(), total,
                file);
    }

    /** The lines of {@code p}'s events, each followed by the lines of its outputs. */
    static void writeEvents(Planned p, StringBuilder out) {
        String[][] types = {JoinVectors.baseTypes(p.inputs[LEFT]),
            JoinVectors.baseTypes(p.inputs[RIGHT])};
        for (int i = 0; i < p.feed.size(); i++) {
            int side = p.feed.side(i);
            if (side == PROCESSING_TIME) {
                out.append("{\"processing_time\":").append(p.feed.watermark(i)).append("}\n");
            } else if (side < 0) {
                out.append("{\"watermark\":").append(p.feed.watermark(i)).append("}\n");
            } else {
                Row r = external(p, side, p.feed.rows[i]);
                out.append("{\"in\":\"").append(r.getKind().shortString())
                        .append("\",\"side\":").append(side).append(",\"row\":[");
                JoinVectors.values(out, r, types[side]);
                out.append("]}\n");
            }
            for (String line : p.outputs.get(i)) {
                out.append(line).append('\n');
            }
        }
    }

    /** How many output lines {@code p} has. */
    static int rowsOut(Planned p) {
        int n = 0;
        for (List<String> o : p.outputs) {
            n += o.size();
        }
        return n;
    }


    /** Column names and types without nullability (time attributes already plain). */
    static void columns(StringBuilder out, RowType type) {
        out.append('[');
        for (int i = 0; i < type.getFieldCount(); i++) {
            GroupAggVectors.column(out, i, type.getFieldNames().get(i),
                    JoinVectors.baseType(type.getTypeAt(i)));
        }
        out.append(']');
    }

}
