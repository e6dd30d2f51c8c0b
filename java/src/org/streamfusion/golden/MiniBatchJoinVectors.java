package org.streamfusion.golden;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.join.stream.MiniBatchJoinDriver;
import org.apache.flink.table.runtime.operators.join.stream.MiniBatchStreamingJoinOperator;
import org.apache.flink.types.RowKind;

import org.streamfusion.golden.JoinVectors.EventKey;
import org.streamfusion.golden.JoinVectors.Feed;
import org.streamfusion.golden.JoinVectors.Layout;
import org.streamfusion.golden.JoinVectors.Planned;
import org.streamfusion.golden.JoinVectors.RowMaker;
import org.streamfusion.golden.JoinVectors.Scenario;
import org.streamfusion.jni.NativeOperator;

import static org.streamfusion.golden.JoinVectors.DUPS;
import static org.streamfusion.golden.JoinVectors.FEW_KEYS;
import static org.streamfusion.golden.JoinVectors.KEYS;
import static org.streamfusion.golden.JoinVectors.KEYS_NOT_NULL;
import static org.streamfusion.golden.JoinVectors.LEFT;
import static org.streamfusion.golden.JoinVectors.LONGS;
import static org.streamfusion.golden.JoinVectors.NULL_HEAVY_KEYS;
import static org.streamfusion.golden.JoinVectors.RIGHT;
import static org.streamfusion.golden.JoinVectors.SMALL_STRINGS;
import static org.streamfusion.golden.JoinVectors.SMALL_STRINGS_NULL;
import static org.streamfusion.golden.JoinVectors.kiv;
import static org.streamfusion.golden.JoinVectors.ks;
import static org.streamfusion.golden.JoinVectors.pools;
import static org.streamfusion.golden.JoinVectors.standard;

/**
 * Golden changelogs of Flink 2.3.0's mini-batch regular join ({@code StreamExecJoin} planned
 * with {@code table.exec.mini-batch.enabled}: {@code [INNER|LEFT|RIGHT|FULL] JOIN .. ON}, run
 * by the released {@code MiniBatchStreamingJoinOperator}), fed one event at a time in a fixed
 * order, each event's output recorded right after it. The native mini-batch join is tested
 * against them ({@code crates/streamfusion/tests/golden/flink-2.3.0-mini-batch-join.jsonl}).
 *
 * <p><b>What a mini-batch join does.</b> It buffers each input's rows in a {@code
 * BufferBundle} (one of three, by the side's state layout), folding a row into the bundle
 * where it cancels or replaces an earlier row of the same row, unique key or join key, and
 * only joins when the bundle is finished: by its {@code CountCoBundleTrigger} when the two
 * inputs together have sent {@code table.exec.mini-batch.size} rows since the last finish, or
 * before a watermark of either input (the planner's {@code MiniBatchAssigner} emits those every
 * {@code allow-latency}), a checkpoint barrier or the end of input. Finishing walks one side's
 * buffer, then the other's (the right first, except in a right outer join), and within a
 * buffer its Java {@code HashMap}s in their iteration order: the join keys, and under a join
 * key the rows left after folding, in arrival order on a side keyed by its join key, grouped
 * by unique key (in {@code HashMap} order) on a side with a unique key outside the join key,
 * grouped by the row's hash code (in {@code HashMap} order of those {@code Integer}s) on a
 * side without one. On the two keyed layouts a retraction followed by an accumulation of the
 * same key is joined as a pair whose steps do not flip the other side's padding ({@code
 * processElementWithSuppress}). So what an outer join emits depends on how the bundles were
 * cut and on the hash codes of the keys and rows, and that is what this file pins down.
 *
 * <p><b>How.</b> As {@link JoinVectors} (whose planning, checks, feed and recording this
 * reuses): each scenario's query over the views {@code lhs} and {@code rhs} is planned by
 * Flink, here with {@code table.exec.mini-batch.enabled} {@code true}, {@code
 * table.exec.mini-batch.allow-latency} {@code 1 h} and {@code table.exec.mini-batch.size} the
 * scenario's bundle size; the join the planner built must be a {@code
 * MiniBatchStreamingJoinOperator} (one of its four private subclasses) whose trigger is a
 * {@code CountCoBundleTrigger} of that size, and its node, layouts, keys and null filters are
 * checked as {@link JoinVectors} checks them. A {@link MiniBatchJoinDriver} built with the
 * operator's arguments runs it in a one-source job at parallelism 1: the source emits the
 * event indexes, {@code keyBy} keys a row event by the planner's key selector of its side (a
 * flush by the key of the row event before it; the operator sets the key of every buffered
 * row itself when it finishes a bundle), and the driver hands a row to the released {@code
 * processElement1}/{@code processElement2} and a flush to the released {@code
 * processWatermark1}, the collector's timestamp set to the event's index so that each output
 * is recorded under the event that caused it: the row that filled a bundle, or the flush.
 * Events are either a table row, as {@link JoinVectors} writes them, or a flush: a watermark,
 * which finishes the bundle, as the planner's mini-batch watermarks do. Every scenario ends
 * with a flush, so nothing is left for {@code finish()}.
 *
 * <p>Every scenario's row events are a changelog its side could produce, except the events a
 * scenario marks as retractions of rows never inserted and, in two scenarios, a {@code +U}
 * following a {@code +I} of the same key without a {@code -U} (as an upsert source sends);
 * a scenario's random events come in chunks with flushes between some of them, so bundles end
 * both by count and by flush, and a flush never separates a {@code -U} from its {@code +U}
 * (a count may). The scenarios of one state backend ({@code hashmap} or {@code rocksdb}) run in
 * one job; the bundles are Java {@code HashMap}s on either backend, but the state views
 * iterate in another order on RocksDB, so many scenarios have a {@code _rocksdb} twin with the
 * same events, and the program checks that every event of a twin has the same outputs as a
 * multiset on both backends.
 *
 * <p>Usage: {@code MiniBatchJoinVectors <output path> [scenario..]} (all scenarios when none
 * are named), on the planner classpath ({@code classpath-planner.txt}). Output is JSON Lines
 * (UTF-8, LF):
 *
 * <ul>
 *   <li>line 1: {@code {"flink":"2.3.0","seed":"0x..","generator":
 *       "org.streamfusion.golden.MiniBatchJoinVectors","format":1}};
 *   <li>per scenario, a header with {@link JoinVectors}' fields ({@code scenario}, {@code
 *       description}, {@code join_type} {@code "INNER"|"LEFT"|"RIGHT"|"FULL"}, {@code
 *       operator} the planner's operator's simple class name, {@code
 *       "MiniBatchInnerJoinStreamOperator"|"MiniBatchLeftOuterJoinStreamOperator"|
 *       "MiniBatchRightOuterJoinStreamOperator"|"MiniBatchFullOuterJoinStreamOperator"}, {@code
 *       backend}, {@code left_spec}, {@code right_spec}, {@code left_keys}, {@code right_keys},
 *       {@code filter_nulls}, {@code node}, {@code config}, {@code left}, {@code right}, {@code
 *       output}, {@code sql}) and {@code "mini_batch_size":n} (the trigger's row count), then
 *       {@code "events":n} (row events and flushes);
 *   <li>then the n events, each a row {@code {"in":"+I"|"-U"|"+U"|"-D","side":0|1,"row":[..]}}
 *       (as {@link JoinVectors} writes it) or a flush {@code {"flush":true}}, immediately
 *       followed by the lines {@code {"out":kind,"row":[..]}} the operator emitted for it, in
 *       emission order.
 * </ul>
 *
 * <p>Types and values as {@link JoinVectors} writes them. Every scenario's events and flushes
 * come from {@link JoinVectors#SEED} and its name (without {@code _rocksdb}), so two runs write
 * byte-identical files.
 */
public final class MiniBatchJoinVectors {
    static final String GENERATOR = "org.streamfusion.golden.MiniBatchJoinVectors";
    static final int FORMAT = 1;
    /** An entry of {@link Batched#order()}: a flush, not a row event. */
    static final int FLUSH = -1;

    private MiniBatchJoinVectors() {}

    /**
     * A scenario of {@link JoinVectors} (its tables, query, expected layouts and row events)
     * with a bundle size and flushes between its row events.
     */
    static final class Batched {
        final Scenario s;
        final int size;
        /** Per flush, the number of row events before it. */
        final List<Integer> flushes = new ArrayList<>();

        Batched(Scenario s, int size) {
            this.s = s;
            this.size = size;
        }

        /** A flush after the row events so far. */
        Batched flush() {
            flushes.add(s.events.size());
            return this;
        }

        Batched backend(String backend) {
            s.backend(backend);
            return this;
        }

        /**
         * {@code +I} of {@code before}, then {@code +U} of {@code after} (the same primary key)
         * without a {@code -U}, as an upsert source sends an update.
         */
        Batched upsert(int side, Object[] before, Object[] after) {
            s.ins(side, before);
            s.table(side).live.remove(Arrays.asList(before));
            s.updateAfter(side, after);
            return this;
        }

        /**
         * {@code count} more random row events ({@link Scenario#random}) in chunks of 1 to
         * {@code 1.5 size + 3} rows, a flush after about every other chunk: bundles end by
         * count (a chunk reaching past the size) and by flush, at irregular points.
         */
        Batched random(int count, RowMaker leftRows, RowMaker rightRows) {
            int target = s.events.size() + count;
            while (s.events.size() < target) {
                int chunk = Math.min(target - s.events.size(),
                        1 + s.rnd.nextInt(size + size / 2 + 3));
                s.random(chunk, leftRows, rightRows);
                if (s.rnd.nextInt(2) == 0) {
                    flush();
                }
            }
            return this;
        }

        /** The events in order: a row event's index, or {@link #FLUSH}; a flush last. */
        int[] order() {
            List<Integer> order = new ArrayList<>();
            int f = 0;
            for (int row = 0; row <= s.events.size(); row++) {
                while (f < flushes.size() && flushes.get(f) == row) {
                    order.add(FLUSH);
                    f++;
                }
                if (row < s.events.size()) {
                    order.add(row);
                }
            }
            if (order.get(order.size() - 1) != FLUSH) {
                order.add(FLUSH);
            }
            return order.stream().mapToInt(Integer::intValue).toArray();
        }
    }

    /** A batched scenario planned, its events in order and the outputs of each. */
    static final class MbPlanned {
        final Batched batched;
        final Planned p;
        final int[] order;
        /** Per event (rows and flushes), the output lines in emission order. */
        final List<List<String>> outputs = new ArrayList<>();

        MbPlanned(Batched batched, Planned p) {
            this.batched = batched;
            this.p = p;
            this.order = batched.order();
            for (int i = 0; i < order.length; i++) {
                outputs.add(new ArrayList<>());
            }
        }

        String name() {
            return batched.s.name;
        }

        /** How many bundles end by count and how many (not empty) by a flush. */
        int[] bundleEnds() {
            int[] ends = new int[2];
            int rows = 0;
            for (int e : order) {
                if (e == FLUSH) {
                    ends[1] += rows > 0 ? 1 : 0;
                    rows = 0;
                } else if (++rows == batched.size) {
                    ends[0]++;
                    rows = 0;
                }
            }
            return ends;
        }
    }

    /** The events of a scenario as the driver sees them: {@link Feed}'s rows and flushes. */
    static final class BatchEvents implements MiniBatchJoinDriver.Events {
        private static final long serialVersionUID = 1L;
        private final Feed feed;
        private final int[] order;

        BatchEvents(Feed feed, int[] order) {
            this.feed = feed;
            this.order = order;
        }

        @Override
        public boolean isFlush(int i) {
            return order[i] == FLUSH;
        }

        @Override
        public boolean isLeft(int i) {
            return feed.left(order[i]);
        }

        @Override
        public RowData row(int i) {
            return feed.row(order[i]);
        }
    }

    /**
     * Maps an event index to a key: a row event's join key ({@link EventKey}), a flush the key
     * of the row event before it (the first row's for a leading flush; a flush reads no state
     * under its own key).
     */
    static final class BatchKey implements KeySelector<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final EventKey rows;
        private final int[] keyRow;

        BatchKey(EventKey rows, int[] order) {
            this.rows = rows;
            this.keyRow = new int[order.length];
            int last = -1;
            for (int i = 0; i < order.length; i++) {
                if (order[i] != FLUSH) {
                    last = order[i];
                }
                keyRow[i] = order[i] != FLUSH ? order[i] : Math.max(last, 0);
            }
        }

        @Override
        public RowData getKey(Long event) throws Exception {
            return rows.getKey((long) keyRow[(int) (long) event]);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: MiniBatchJoinVectors <output path> [scenario..]");
            System.exit(2);
        }
        List<String> only = Arrays.asList(args).subList(1, args.length);
        // The planner describes the nodes; nothing may run natively: with no loadable native
        // library every node is refused.
        System.setProperty(NativeOperator.LIBRARY_PATH_PROPERTY,
                "/nonexistent/streamfusion-golden-vectors-run-stock/libstreamfusion_jni.so");
        List<Batched> scenarios = JoinVectors.select(scenarios(), b -> b.s.name, only);
        List<MbPlanned> planned = new ArrayList<>();
        StreamExecutionEnvironment planEnv = StreamExecutionEnvironment.getExecutionEnvironment();
        planEnv.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(planEnv, EnvironmentSettings.inStreamingMode());
        for (Batched b : scenarios) {
            planned.add(plan(planEnv, tEnv, b));
        }
        for (String backend : JoinVectors.BACKENDS) {
            List<MbPlanned> group = new ArrayList<>();
            for (MbPlanned p : planned) {
                if (p.batched.s.backend.equals(backend)) {
                    group.add(p);
                }
            }
            if (!group.isEmpty()) {
                run(backend, group);
            }
        }
        compareTwins(planned);

        StringBuilder out = new StringBuilder(1 << 20);
        out.append("{\"flink\":\"2.3.0\",\"seed\":\"0x").append(Long.toHexString(JoinVectors.SEED))
                .append("\",\"generator\":");
        Json.string(out, GENERATOR);
        out.append(",\"format\":").append(FORMAT).append("}\n");
        int events = 0;
        int flushes = 0;
        int total = 0;
        for (MbPlanned p : planned) {
            write(p, out);
            events += p.order.length;
            for (int i = 0; i < p.order.length; i++) {
                flushes += p.order[i] == FLUSH ? 1 : 0;
                total += p.outputs.get(i).size();
            }
        }
        Path path = Path.of(args[0]);
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        Files.write(path, out.toString().getBytes(StandardCharsets.UTF_8));
        System.err.printf("wrote %d scenarios (%d events, %d of them flushes; %d output rows) to"
                + " %s%n", planned.size(), events, flushes, total, path);
    }

    // ---------------------------------------------------------------- planning

    /** Plans a scenario with its bundle size and checks the mini-batch operator Flink built. */
    static MbPlanned plan(StreamExecutionEnvironment planEnv, StreamTableEnvironment tEnv,
            Batched b) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("table.exec.mini-batch.enabled", "true");
        options.put("table.exec.mini-batch.allow-latency", "1 h");
        options.put("table.exec.mini-batch.size", Integer.toString(b.size));
        Planned p = JoinVectors.plan(planEnv, tEnv, b.s, options,
                MiniBatchStreamingJoinOperator.class::isAssignableFrom);
        MiniBatchStreamingJoinOperator operator = (MiniBatchStreamingJoinOperator) p.operator;
        long maxCount = MiniBatchJoinDriver.maxCount(operator);
        if (maxCount != b.size) {
            throw new IllegalStateException(b.s.name + ": the bundle trigger counts " + maxCount
                    + " rows, not " + b.size);
        }
        String expected = switch (b.s.joinType) {
            case "INNER" -> "MiniBatchInnerJoinStreamOperator";
            case "LEFT" -> "MiniBatchLeftOuterJoinStreamOperator";
            case "RIGHT" -> "MiniBatchRightOuterJoinStreamOperator";
            case "FULL" -> "MiniBatchFullOuterJoinStreamOperator";
            default -> throw new IllegalStateException(b.s.name + ": " + b.s.joinType);
        };
        if (!p.operatorName().equals(expected)
                || MiniBatchJoinDriver.leftFirst(operator) != b.s.joinType.equals("RIGHT")) {
            throw new IllegalStateException(b.s.name + ": the operator is " + p.operatorName()
                    + " for a " + b.s.joinType + " join");
        }
        MbPlanned mb = new MbPlanned(b, p);
        int[] ends = mb.bundleEnds();
        System.err.printf("%s: bundles of %d rows, %d events with %d flushes; %d bundles ended"
                        + " by count, %d by a flush%n", b.s.name, b.size, mb.order.length,
                mb.order.length - p.rows.size(), ends[0], ends[1]);
        return mb;
    }

    // ---------------------------------------------------------------- execution

    /** Runs the scenarios of one backend in one job and fills in their outputs. */
    static void run(String backend, List<MbPlanned> group) throws Exception {
        StreamExecutionEnvironment env = JoinVectors.environment(backend);
        DataStream<String> all = null;
        for (int tag = 0; tag < group.size(); tag++) {
            MbPlanned mb = group.get(tag);
            Planned p = mb.p;
            List<Long> indexes = new ArrayList<>();
            for (long i = 0; i < mb.order.length; i++) {
                indexes.add(i);
            }
            MiniBatchJoinDriver driver = new MiniBatchJoinDriver(
                    (MiniBatchStreamingJoinOperator) p.operator, new BatchEvents(p.feed, mb.order));
            @SuppressWarnings("unchecked")
            TypeInformation<RowData> keyType =
                    (TypeInformation<RowData>) p.transformation.getStateKeyType();
            DataStream<String> lines = env.fromData(indexes, Types.LONG)
                    .setParallelism(1)
                    .keyBy(new BatchKey(new EventKey(p.feed, p.leftSelector, p.rightSelector),
                            mb.order), keyType)
                    .transform("mini-batch join " + mb.name(), p.transformation.getOutputType(),
                            driver)
                    .setParallelism(1)
                    .process(new JoinVectors.Encode(tag, p.outputType))
                    .setParallelism(1);
            all = all == null ? lines : all.union(lines);
        }
        JoinVectors.collect(all, "mini-batch-join-vectors-" + backend,
                tag -> group.get(tag).outputs);
        for (MbPlanned p : group) {
            int out = 0;
            for (List<String> o : p.outputs) {
                out += o.size();
            }
            System.err.printf("%s (%s): %d events, %d outputs%n", p.name(), backend,
                    p.order.length, out);
        }
    }

    /**
     * Fails unless every scenario and its {@code _rocksdb} twin have the same events and
     * flushes and the same outputs for every event as multisets ({@link
     * JoinVectors#compareOutputs}).
     */
    static void compareTwins(List<MbPlanned> planned) {
        Map<String, MbPlanned> byName = new LinkedHashMap<>();
        for (MbPlanned p : planned) {
            byName.put(p.name(), p);
        }
        for (MbPlanned heap : planned) {
            MbPlanned rocks = byName.get(heap.name() + "_rocksdb");
            if (rocks == null) {
                continue;
            }
            if (!rocks.p.rows.equals(heap.p.rows) || !rocks.p.sides.equals(heap.p.sides)
                    || !Arrays.equals(rocks.order, heap.order)
                    || rocks.batched.size != heap.batched.size) {
                throw new IllegalStateException(heap.name() + ": its twin has other events");
            }
            JoinVectors.compareOutputs(heap.name(), heap.outputs, rocks.outputs);
        }
    }

    // ---------------------------------------------------------------- writing

    static void write(MbPlanned mb, StringBuilder out) {
        JoinVectors.header(mb.p, out);
        out.append(",\"mini_batch_size\":").append(mb.batched.size)
                .append(",\"events\":").append(mb.order.length).append("}\n");
        for (int i = 0; i < mb.order.length; i++) {
            if (mb.order[i] == FLUSH) {
                out.append("{\"flush\":true}\n");
            } else {
                JoinVectors.event(mb.p, mb.order[i], out);
            }
            for (String line : mb.outputs.get(i)) {
                out.append(line).append('\n');
            }
        }
    }

    // ---------------------------------------------------------------- scenarios

    static List<Batched> scenarios() {
        List<Batched> list = new ArrayList<>();
        for (String backend : JoinVectors.BACKENDS) {
            String x = backend.equals("hashmap") ? "" : "_rocksdb";
            // Each join type without primary keys, and with unique keys of either kind.
            list.add(layouts("inner_nn_b5" + x, "INNER", Layout.NONE, Layout.NONE, KEYS, 5)
                    .backend(backend));
            list.add(layouts("left_nn_b3" + x, "LEFT", Layout.NONE, Layout.NONE, FEW_KEYS, 3)
                    .backend(backend));
            list.add(layouts("right_nn_b7" + x, "RIGHT", Layout.NONE, Layout.NONE, FEW_KEYS, 7)
                    .backend(backend));
            list.add(layouts("full_nn_b5" + x, "FULL", Layout.NONE, Layout.NONE, KEYS, 5)
                    .backend(backend));
            list.add(layouts("inner_jj_b3" + x, "INNER", Layout.JOIN_KEY, Layout.JOIN_KEY,
                    KEYS_NOT_NULL, 3).backend(backend));
            list.add(layouts("left_uu_b7" + x, "LEFT", Layout.UNIQUE, Layout.UNIQUE, FEW_KEYS,
                    7).backend(backend));
            list.add(layouts("right_ju_b5" + x, "RIGHT", Layout.JOIN_KEY, Layout.UNIQUE, KEYS,
                    5).backend(backend));
            list.add(layouts("full_uu_b16" + x, "FULL", Layout.UNIQUE, Layout.UNIQUE, FEW_KEYS,
                    16).backend(backend));
            // Traced: folding in a bundle, processing order, the suppress path.
            list.add(foldNnInner("fold_nn_inner" + x).backend(backend));
            list.add(foldJjLeft("fold_jj_left" + x).backend(backend));
            list.add(orderUuFull("order_uu_full" + x).backend(backend));
            list.add(orderNjRight("order_nj_right" + x).backend(backend));
            list.add(suppressNonEqui("suppress_nonequi_full" + x).backend(backend));
        }
        // More layouts, mixed across the sides; bundles of one row.
        list.add(layouts("inner_uu_b7", "INNER", Layout.UNIQUE, Layout.UNIQUE, FEW_KEYS, 7));
        list.add(layouts("inner_nu_b16", "INNER", Layout.NONE, Layout.UNIQUE, KEYS, 16));
        list.add(layouts("inner_uj_b1", "INNER", Layout.UNIQUE, Layout.JOIN_KEY, KEYS, 1));
        list.add(layouts("left_jj_b5", "LEFT", Layout.JOIN_KEY, Layout.JOIN_KEY, KEYS_NOT_NULL,
                5));
        list.add(layouts("left_un_b3", "LEFT", Layout.UNIQUE, Layout.NONE, KEYS, 3));
        list.add(layouts("left_nj_b16", "LEFT", Layout.NONE, Layout.JOIN_KEY, KEYS, 16));
        list.add(layouts("right_uu_b3", "RIGHT", Layout.UNIQUE, Layout.UNIQUE, FEW_KEYS, 3));
        list.add(layouts("right_jj_b16", "RIGHT", Layout.JOIN_KEY, Layout.JOIN_KEY,
                KEYS_NOT_NULL, 16));
        list.add(layouts("right_nu_b1", "RIGHT", Layout.NONE, Layout.UNIQUE, FEW_KEYS, 1));
        list.add(layouts("full_jj_b7", "FULL", Layout.JOIN_KEY, Layout.JOIN_KEY, KEYS_NOT_NULL,
                7));
        list.add(layouts("full_jn_b1", "FULL", Layout.JOIN_KEY, Layout.NONE, KEYS, 1));
        list.add(layouts("full_un_b3", "FULL", Layout.UNIQUE, Layout.NONE, FEW_KEYS, 3));
        // Traced.
        list.add(foldUuRight());
        list.add(orderNuLeft());
        list.add(retractUnknownJj());
        // Non-equi conditions, two-column keys, NULL keys, insert-only inputs.
        list.add(nonEquiLeft());
        list.add(nonEquiInner());
        list.add(twoKeysFull());
        list.add(twoKeysJj());
        list.add(layouts("null_keys_full_b3", "FULL", Layout.NONE, Layout.UNIQUE,
                NULL_HEAVY_KEYS, 3));
        list.add(nullSafeLeft());
        list.add(insertOnlyInner());
        return list;
    }

    static String bundles(int size) {
        return size == 1 ? "bundles of one row" : "bundles of " + size + " rows";
    }

    /**
     * {@code joinType} on {@code l.k = r.k} over two updating sides of the given layouts, 70
     * random events with keys from {@code keys}, bundles of {@code size} rows and flushes.
     */
    static Batched layouts(String name, String joinType, Layout left, Layout right,
            Object[] keys, int size) {
        boolean nulls = Arrays.asList(keys).contains(null);
        Scenario s = standard(name, joinType + " join on l.k = r.k, " + bundles(size)
                        + " and flushes, 70 random events over two updating sides (+I, -U/+U,"
                        + " -D): left " + JoinVectors.layoutText(left) + ", right "
                        + JoinVectors.layoutText(right) + "; keys "
                        + JoinVectors.keysText(keys) + (nulls ? " (NULL keys never match)" : ""),
                left, right)
                .on(joinType, "l.k = r.k")
                .layouts(left, right);
        return new Batched(s, size).random(70, kiv(left, keys), kiv(right, keys));
    }

    static Batched foldNnInner(String name) {
        Batched b = new Batched(standard(name, "INNER join on l.k = r.k without primary keys,"
                        + " bundles of 16 rows ended by flushes, traced: +I then -D of one row"
                        + " in a bundle (cancelled), a row inserted twice, -D then +I of one row"
                        + " (cancelled), +I and two -D of one row (one -D left), a retraction of"
                        + " a row never inserted, a -U/+U of a row never inserted, a right row"
                        + " inserted and deleted around a left row of its key, a left row moved"
                        + " to another key next to a right -U/+U of identical values"
                        + " (cancelled); then 50 random events over few distinct rows",
                Layout.NONE, Layout.NONE)
                .on("INNER", "l.k = r.k")
                .layouts(Layout.NONE, Layout.NONE), 16);
        Scenario s = b.s;
        s.ins(LEFT, 1, 0, 10L);
        s.ins(RIGHT, 1, 0, 100L);
        s.del(LEFT, 1, 0, 10L);
        b.flush();
        s.ins(LEFT, 1, 0, 10L);
        s.ins(LEFT, 1, 0, 10L);
        s.ins(LEFT, 1, 1, 11L);
        b.flush();
        s.del(LEFT, 1, 0, 10L);
        s.ins(LEFT, 1, 0, 10L);
        b.flush();
        s.ins(LEFT, 1, 0, 10L);
        s.del(LEFT, 1, 0, 10L);
        s.del(LEFT, 1, 0, 10L);
        b.flush();
        s.unknown(LEFT, RowKind.DELETE, 1, 5, 50L);
        s.ins(RIGHT, 1, 1, 101L);
        b.flush();
        s.unknown(RIGHT, RowKind.UPDATE_BEFORE, 1, 2, 102L);
        s.updateAfter(RIGHT, 1, 2, 103L);
        b.flush();
        s.ins(RIGHT, 2, 0, 200L);
        s.ins(LEFT, 2, 0, 20L);
        s.del(RIGHT, 2, 0, 200L);
        b.flush();
        s.upd(LEFT, new Object[] {1, 1, 11L}, new Object[] {2, 1, 11L});
        s.upd(RIGHT, new Object[] {1, 1, 101L}, new Object[] {1, 1, 101L});
        b.flush();
        return b.random(50, pools(FEW_KEYS, DUPS, new Object[] {1L, 2L}),
                pools(FEW_KEYS, DUPS, new Object[] {5L}));
    }

    static Batched foldJjLeft(String name) {
        Batched b = new Batched(standard(name, "LEFT join on l.k = r.k, both sides keyed by k,"
                        + " bundles of 16 rows ended by flushes, traced: -U/+U of the outer and"
                        + " of the inner side (the suppress path: the padding does not flip),"
                        + " +I -U +U of a key (the +U alone is left), +I -D +I of a key, -D"
                        + " then +I of a key on either side (joined as a pair, like -U/+U), -U"
                        + " +U -D (the -U alone is left: the left row padded), +I then +U"
                        + " without -U (the +U replaces the +I), a retraction of a key never"
                        + " inserted; then 50 random events", Layout.JOIN_KEY, Layout.JOIN_KEY)
                .on("LEFT", "l.k = r.k")
                .layouts(Layout.JOIN_KEY, Layout.JOIN_KEY), 16);
        Scenario s = b.s;
        s.ins(LEFT, 1, 0, 10L);
        s.ins(RIGHT, 1, 0, 100L);
        b.flush();
        s.upd(LEFT, new Object[] {1, 0, 10L}, new Object[] {1, 1, 11L});
        b.flush();
        s.upd(RIGHT, new Object[] {1, 0, 100L}, new Object[] {1, 0, 101L});
        b.flush();
        s.ins(LEFT, 2, 0, 20L);
        s.upd(LEFT, new Object[] {2, 0, 20L}, new Object[] {2, 0, 21L});
        b.flush();
        s.ins(RIGHT, 2, 0, 200L);
        s.del(RIGHT, 2, 0, 200L);
        s.ins(RIGHT, 2, 1, 201L);
        b.flush();
        s.del(LEFT, 1, 1, 11L);
        s.ins(LEFT, 1, 2, 12L);
        b.flush();
        s.del(RIGHT, 1, 0, 101L);
        s.ins(RIGHT, 1, 5, 105L);
        b.flush();
        s.upd(RIGHT, new Object[] {1, 5, 105L}, new Object[] {1, 5, 106L});
        s.del(RIGHT, 1, 5, 106L);
        b.flush();
        b.upsert(LEFT, new Object[] {3, 0, 30L}, new Object[] {3, 0, 31L});
        s.unknown(RIGHT, RowKind.DELETE, 3, 0, 300L);
        b.flush();
        s.ins(RIGHT, 3, 0, 301L);
        s.upd(LEFT, new Object[] {3, 0, 31L}, new Object[] {3, 1, 32L});
        b.flush();
        return b.random(50, kiv(Layout.JOIN_KEY, KEYS_NOT_NULL),
                kiv(Layout.JOIN_KEY, KEYS_NOT_NULL));
    }

    static Batched orderUuFull(String name) {
        Batched b = new Batched(standard(name, "FULL join on l.k = r.k, both sides keyed by id,"
                        + " bundles of 16 rows ended by flushes, traced: several ids of one join"
                        + " key in one bundle, one retracted and others inserted while the other"
                        + " side has a matching row, so the order of the ids in the bundle"
                        + " decides which padding rows are emitted; rows moving between keys,"
                        + " and away and back within a bundle; then 60 random events over keys"
                        + " {1, 2}", Layout.UNIQUE, Layout.UNIQUE)
                .on("FULL", "l.k = r.k")
                .layouts(Layout.UNIQUE, Layout.UNIQUE), 16);
        Scenario s = b.s;
        s.ins(RIGHT, 1, 0, 100L);
        s.ins(LEFT, 1, 0, 10L);
        b.flush();
        s.del(LEFT, 1, 0, 10L);
        s.ins(LEFT, 1, 1, 11L);
        s.ins(LEFT, 1, 2, 12L);
        b.flush();
        s.ins(LEFT, 1, 3, 13L);
        s.del(RIGHT, 1, 0, 100L);
        s.ins(RIGHT, 1, 1, 101L);
        b.flush();
        s.upd(LEFT, new Object[] {1, 1, 11L}, new Object[] {2, 1, 11L});
        s.upd(LEFT, new Object[] {1, 2, 12L}, new Object[] {2, 2, 12L});
        s.ins(RIGHT, 2, 2, 202L);
        b.flush();
        s.del(RIGHT, 1, 1, 101L);
        s.ins(RIGHT, 1, 3, 103L);
        s.del(LEFT, 1, 3, 13L);
        s.ins(LEFT, 1, 4, 14L);
        b.flush();
        s.upd(LEFT, new Object[] {1, 4, 14L}, new Object[] {2, 4, 14L});
        s.upd(LEFT, new Object[] {2, 4, 14L}, new Object[] {1, 4, 15L});
        s.del(RIGHT, 2, 2, 202L);
        s.ins(RIGHT, 2, 5, 205L);
        s.ins(RIGHT, 2, 6, 206L);
        b.flush();
        return b.random(60, kiv(Layout.UNIQUE, FEW_KEYS), kiv(Layout.UNIQUE, FEW_KEYS));
    }

    static Batched orderNjRight(String name) {
        Batched b = new Batched(standard(name, "RIGHT join on l.k = r.k (the left buffer is"
                        + " processed first), left without a primary key, right keyed by k,"
                        + " bundles of 16 rows ended by flushes, traced: a matched left row"
                        + " retracted and other rows of its key inserted in one bundle (their"
                        + " order, by hash code, decides the right row's padding), a row"
                        + " inserted twice, a right -U/+U next to a left retraction; then 60"
                        + " random events over keys {1, 2}", Layout.NONE, Layout.JOIN_KEY)
                .on("RIGHT", "l.k = r.k")
                .layouts(Layout.NONE, Layout.JOIN_KEY), 16);
        Scenario s = b.s;
        s.ins(RIGHT, 1, 0, 100L);
        s.ins(LEFT, 1, 0, 10L);
        b.flush();
        s.del(LEFT, 1, 0, 10L);
        s.ins(LEFT, 1, 1, 11L);
        s.ins(LEFT, 1, 2, 12L);
        b.flush();
        s.ins(LEFT, 1, 0, 10L);
        s.del(LEFT, 1, 1, 11L);
        s.del(LEFT, 1, 2, 12L);
        b.flush();
        s.ins(LEFT, 2, 0, 20L);
        s.ins(LEFT, 2, 0, 20L);
        s.ins(RIGHT, 2, 0, 200L);
        b.flush();
        s.upd(RIGHT, new Object[] {2, 0, 200L}, new Object[] {2, 0, 201L});
        s.del(LEFT, 2, 0, 20L);
        b.flush();
        s.del(LEFT, 2, 0, 20L);
        s.ins(LEFT, 2, 1, 21L);
        s.del(RIGHT, 1, 0, 100L);
        s.ins(LEFT, 1, 3, 13L);
        s.ins(LEFT, 1, 4, 14L);
        b.flush();
        return b.random(60, kiv(Layout.NONE, FEW_KEYS), kiv(Layout.JOIN_KEY, FEW_KEYS));
    }

    static Batched suppressNonEqui(String name) {
        Batched b = new Batched(standard(name, "FULL join on l.k = r.k AND l.v > r.w, both sides"
                        + " keyed by k, bundles of 16 rows ended by flushes, traced: -U/+U pairs"
                        + " whose +U no longer (or newly) satisfies the condition: the suppress"
                        + " path keeps the other side's padding as it was, so a row can lose its"
                        + " last match without being padded; +I -U +U folded to the +U; NULL"
                        + " values; then 50 random events", Layout.JOIN_KEY, Layout.JOIN_KEY)
                .on("FULL", "l.k = r.k AND l.v > r.w")
                .layouts(Layout.JOIN_KEY, Layout.JOIN_KEY), 16);
        Scenario s = b.s;
        s.ins(LEFT, 1, 0, 10L);
        s.ins(RIGHT, 1, 0, 5L);
        b.flush();
        s.upd(LEFT, new Object[] {1, 0, 10L}, new Object[] {1, 0, 3L});
        b.flush();
        s.upd(LEFT, new Object[] {1, 0, 3L}, new Object[] {1, 0, 8L});
        b.flush();
        s.upd(RIGHT, new Object[] {1, 0, 5L}, new Object[] {1, 0, 9L});
        b.flush();
        s.ins(LEFT, 2, 0, 1L);
        s.ins(RIGHT, 2, 0, 0L);
        s.upd(LEFT, new Object[] {2, 0, 1L}, new Object[] {2, 0, -7L});
        b.flush();
        s.upd(RIGHT, new Object[] {2, 0, 0L}, new Object[] {2, 0, -9L});
        s.upd(LEFT, new Object[] {2, 0, -7L}, new Object[] {2, 0, null});
        b.flush();
        s.upd(LEFT, new Object[] {1, 0, 8L}, new Object[] {1, 0, 20L});
        s.upd(RIGHT, new Object[] {1, 0, 9L}, new Object[] {1, 0, 15L});
        b.flush();
        return b.random(50, pools(KEYS_NOT_NULL, DUPS, LONGS), pools(KEYS_NOT_NULL, DUPS, LONGS));
    }

    static Batched foldUuRight() {
        Batched b = new Batched(standard("fold_uu_right", "RIGHT join on l.k = r.k, both sides"
                        + " keyed by id, bundles of 7 rows (ended by count and by flushes),"
                        + " traced: a row moved to another key and back within a bundle (the"
                        + " +U and -U at the other key cancel, a -U/+U pair is left), +I then"
                        + " +U without -U of one id (the +U replaces the +I), rows moving"
                        + " between keys, retractions of ids never inserted; then 60 random"
                        + " events", Layout.UNIQUE, Layout.UNIQUE)
                .on("RIGHT", "l.k = r.k")
                .layouts(Layout.UNIQUE, Layout.UNIQUE), 7);
        Scenario s = b.s;
        s.ins(LEFT, 1, 0, 10L);
        s.ins(RIGHT, 1, 0, 100L);
        b.flush();
        s.upd(LEFT, new Object[] {1, 0, 10L}, new Object[] {2, 0, 10L});
        s.upd(LEFT, new Object[] {2, 0, 10L}, new Object[] {1, 0, 11L});
        b.flush();
        b.upsert(RIGHT, new Object[] {1, 1, 110L}, new Object[] {1, 1, 111L});
        s.ins(LEFT, 1, 2, 12L);
        b.flush();
        s.upd(RIGHT, new Object[] {1, 0, 100L}, new Object[] {2, 0, 100L});
        s.upd(LEFT, new Object[] {1, 2, 12L}, new Object[] {2, 2, 12L});
        s.ins(RIGHT, 3, 2, 300L);
        s.del(RIGHT, 1, 1, 111L);
        s.ins(RIGHT, 1, 1, 112L);
        s.unknown(LEFT, RowKind.DELETE, 1, 9, 19L);
        s.unknown(RIGHT, RowKind.UPDATE_BEFORE, 2, 9, 900L);
        s.updateAfter(RIGHT, 2, 9, 901L);
        b.flush();
        return b.random(60, kiv(Layout.UNIQUE, KEYS), kiv(Layout.UNIQUE, KEYS));
    }

    static Batched orderNuLeft() {
        Batched b = new Batched(standard("order_nu_left", "LEFT join on l.k = r.k, left without"
                        + " a primary key, right keyed by id, bundles of 16 rows ended by"
                        + " flushes, traced: the right row matching a left row retracted and"
                        + " other ids of its key inserted in one bundle (their order decides"
                        + " the left row's padding), left copies retracted next to right"
                        + " inserts; then 60 random events over keys {1, 2}", Layout.NONE,
                Layout.UNIQUE)
                .on("LEFT", "l.k = r.k")
                .layouts(Layout.NONE, Layout.UNIQUE), 16);
        Scenario s = b.s;
        s.ins(LEFT, 1, 0, 10L);
        s.ins(RIGHT, 1, 0, 100L);
        b.flush();
        s.del(RIGHT, 1, 0, 100L);
        s.ins(RIGHT, 1, 1, 101L);
        s.ins(RIGHT, 1, 2, 102L);
        b.flush();
        s.ins(LEFT, 1, 0, 10L);
        s.del(RIGHT, 1, 1, 101L);
        s.del(RIGHT, 1, 2, 102L);
        s.ins(RIGHT, 1, 3, 103L);
        b.flush();
        s.upd(RIGHT, new Object[] {1, 3, 103L}, new Object[] {2, 3, 103L});
        s.ins(LEFT, 2, 0, 20L);
        s.ins(LEFT, 2, 1, 21L);
        b.flush();
        s.del(LEFT, 1, 0, 10L);
        s.del(LEFT, 1, 0, 10L);
        s.ins(RIGHT, 1, 4, 104L);
        s.ins(LEFT, 1, 1, 11L);
        b.flush();
        return b.random(60, kiv(Layout.NONE, FEW_KEYS), kiv(Layout.UNIQUE, FEW_KEYS));
    }

    static Batched retractUnknownJj() {
        Batched b = new Batched(standard("retract_unknown_full_jj", "FULL join on l.k = r.k,"
                        + " both sides keyed by k, bundles of 5 rows: retractions of keys never"
                        + " inserted (a -D then +I of one key joined as a pair; a -U/+U;"
                        + " matched and unmatched), then inserts on those keys; then 40 random"
                        + " events", Layout.JOIN_KEY, Layout.JOIN_KEY)
                .on("FULL", "l.k = r.k")
                .layouts(Layout.JOIN_KEY, Layout.JOIN_KEY), 5);
        Scenario s = b.s;
        s.ins(RIGHT, 1, 0, 100L);
        s.unknown(LEFT, RowKind.DELETE, 1, 0, 10L);
        s.ins(LEFT, 1, 1, 11L);
        b.flush();
        s.unknown(LEFT, RowKind.DELETE, 2, 0, 20L);
        s.ins(LEFT, 2, 0, 20L);
        s.unknown(RIGHT, RowKind.UPDATE_BEFORE, 2, 0, 200L);
        s.updateAfter(RIGHT, 2, 0, 201L);
        b.flush();
        s.del(RIGHT, 1, 0, 100L);
        s.del(LEFT, 1, 1, 11L);
        s.ins(RIGHT, 1, 1, 101L);
        s.unknown(RIGHT, RowKind.DELETE, 3, 0, 300L);
        s.unknown(LEFT, RowKind.UPDATE_BEFORE, 3, 0, 30L);
        s.updateAfter(LEFT, 3, 0, 31L);
        b.flush();
        return b.random(40, kiv(Layout.JOIN_KEY, KEYS), kiv(Layout.JOIN_KEY, KEYS));
    }

    static Batched nonEquiLeft() {
        return new Batched(standard("nonequi_left_b5", "LEFT join on l.k = r.k AND l.v > r.w,"
                        + " left primary key id, bundles of 5 rows and flushes: updates of v or"
                        + " w flip padding without changing keys, NULL v or w never matches; 70"
                        + " random events", Layout.UNIQUE, Layout.NONE)
                .on("LEFT", "l.k = r.k AND l.v > r.w")
                .layouts(Layout.UNIQUE, Layout.NONE), 5)
                .random(70, kiv(Layout.UNIQUE, FEW_KEYS), kiv(Layout.NONE, FEW_KEYS));
    }

    static Batched nonEquiInner() {
        return new Batched(standard("nonequi_inner_b3", "INNER join on l.k = r.k AND l.v > r.w"
                        + " without primary keys, bundles of 3 rows and flushes; 70 random"
                        + " events", Layout.NONE, Layout.NONE)
                .on("INNER", "l.k = r.k AND l.v > r.w")
                .layouts(Layout.NONE, Layout.NONE), 3)
                .random(70, kiv(Layout.NONE, FEW_KEYS), kiv(Layout.NONE, FEW_KEYS));
    }

    static Batched twoKeysFull() {
        return new Batched(ks("two_keys_full_b5", "FULL join on l.s = r.s AND l.k = r.k: two key"
                        + " columns (keys [s, k]), NULL in either never matches, bundles of 5"
                        + " rows and flushes; 70 random events, no primary keys", List.of(),
                List.of())
                .on("FULL", "l.s = r.s AND l.k = r.k")
                .layouts(Layout.NONE, Layout.NONE), 5)
                .random(70, pools(FEW_KEYS, SMALL_STRINGS_NULL, DUPS, LONGS),
                        pools(FEW_KEYS, SMALL_STRINGS_NULL, DUPS, LONGS));
    }

    static Batched twoKeysJj() {
        return new Batched(ks("two_keys_jj_b7", "LEFT join on l.k = r.k AND l.s = r.s, each"
                        + " side's primary key (k, s) the join key: one row per key and side,"
                        + " updated in place, bundles of 7 rows and flushes; 70 random events",
                List.of("k", "s"), List.of("k", "s"))
                .on("LEFT", "l.k = r.k AND l.s = r.s")
                .layouts(Layout.JOIN_KEY, Layout.JOIN_KEY), 7)
                .random(70, pools(FEW_KEYS, SMALL_STRINGS, DUPS, LONGS),
                        pools(FEW_KEYS, SMALL_STRINGS, DUPS, LONGS));
    }

    static Batched nullSafeLeft() {
        return new Batched(standard("null_safe_left_b5", "LEFT join on l.k IS NOT DISTINCT FROM"
                        + " r.k: a null-safe key (filter_nulls false), NULL keys match each"
                        + " other, bundles of 5 rows and flushes; 70 random events over updating"
                        + " sides without primary keys", Layout.NONE, Layout.NONE)
                .on("LEFT", "l.k IS NOT DISTINCT FROM r.k")
                .layouts(Layout.NONE, Layout.NONE), 5)
                .random(70, kiv(Layout.NONE, NULL_HEAVY_KEYS), kiv(Layout.NONE, NULL_HEAVY_KEYS));
    }

    static Batched insertOnlyInner() {
        return new Batched(standard("insert_only_inner_b16", "INNER join on l.k = r.k over two"
                        + " insert-only sides without primary keys, keys [1, 2, NULL], bundles"
                        + " of 16 rows and flushes: many matches per key, repeated rows; 70"
                        + " events", Layout.NONE, Layout.NONE)
                .insertOnly(true, true)
                .on("INNER", "l.k = r.k")
                .layouts(Layout.NONE, Layout.NONE), 16)
                .random(70, kiv(Layout.NONE, new Object[] {1, 2, null}),
                        kiv(Layout.NONE, new Object[] {1, 2, null}));
    }
}
