package org.streamfusion.golden;

import java.io.Serializable;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.transformations.TwoInputTransformation;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.runtime.operators.join.stream.AbstractStreamingJoinOperator;
import org.apache.flink.table.runtime.operators.join.stream.StreamingJoinOperator;
import org.apache.flink.table.runtime.operators.join.stream.StreamingSemiAntiJoinOperator;
import org.apache.flink.table.runtime.operators.join.stream.utils.JoinInputSideSpec;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

import org.streamfusion.flink.StreamFusionPlanner;
import org.streamfusion.jni.NativeOperator;

/**
 * Golden changelogs of Flink 2.3.0's regular streaming joins ({@code StreamExecJoin}: {@code
 * [INNER|LEFT|RIGHT|FULL] JOIN .. ON}, and the semi and anti joins the planner makes of {@code
 * EXISTS}, {@code IN}, {@code NOT EXISTS} and {@code NOT IN}), produced by the released
 * operators {@code StreamingJoinOperator} and {@code StreamingSemiAntiJoinOperator} fed one
 * event at a time in a fixed order, each event's output recorded right after it. The native
 * join is tested against them ({@code crates/streamfusion/tests/golden/flink-2.3.0-join.jsonl}).
 *
 * <p><b>Why not a SQL job.</b> A join has two inputs, and in a job the interleaving of its two
 * inputs at the operator is up to the network stack, so a two-source job's changelog is not
 * reproducible. This program therefore plans each scenario's query with Flink, takes the
 * operator Flink built, and drives it itself:
 *
 * <ol>
 *   <li>Planning. Two views, {@code lhs} and {@code rhs}, come from {@code fromChangelogStream}
 *       with the scenario's columns, primary key (if any) and {@code ChangelogMode.all()} (an
 *       updating side: {@code +I}, {@code -U}, {@code +U}, {@code -D}) or {@code
 *       ChangelogMode.insertOnly()}; the query over them is translated by {@code
 *       toChangelogStream} (retract mode: the join must emit {@code -U}) in an environment that
 *       is never executed, with {@code streamfusion.enabled} on, mini-batch and async state off
 *       and no state TTL. From the transformations the planner made, the program takes the one
 *       {@code TwoInputTransformation} whose operator ({@code SimpleOperatorFactory#getOperator})
 *       is exactly a {@code StreamingJoinOperator} or {@code StreamingSemiAntiJoinOperator}
 *       (anything else, such as the mini-batch or async-state variants, fails the program), its
 *       two state key selectors and its state key type.
 *   <li>Execution. A subclass of the operator's class ({@link JoinDriver}, {@link
 *       SemiAntiDriver}) is constructed with the arguments the planner passed (read by
 *       reflection from the planner's instance: input types, generated join condition, the two
 *       {@code JoinInputSideSpec}s, outer flags or the anti flag, {@code filterNullKeys}, state
 *       retention times) and also implements {@code OneInputStreamOperator<Long, RowData>}: it
 *       adds nothing but a {@code processElement} for event indexes. A source emits the indexes
 *       {@code 0..n-1} at parallelism 1; {@code keyBy} maps an index to its join key with the
 *       planner's key selector of the event's side, applied to the event's row, under the
 *       planner's state key type; {@code processElement} calls the released {@code
 *       processElement1} (left) or {@code processElement2} (right) with the event's row. So
 *       the operator's own code runs unmodified: its state views, its join condition (with
 *       its null filters, read from the current key), its output rows and kinds. The event's
 *       row is the {@code BinaryRowData} Flink's network stack would deliver (the external row
 *       converted with {@code DataStructureConverters} and serialized with the input's {@code
 *       RowDataSerializer}), fresh for every call, since the operator rewrites the row kind of
 *       its input and keeps it in state; a heap state map's iteration order follows these
 *       rows' hash codes, so this matters for the emission order.
 *   <li>Recording. Before each event the driver sets the operator's {@code
 *       TimestampedCollector} (every emission of both operators goes through it; there are no
 *       timers without state TTL) to the event's index as the record timestamp, so each output
 *       record carries the index of the event that caused it (the operator's {@code RowData}
 *       output has no room for marker records); a process function downstream (chained, one
 *       path) writes it with the record. One input task, one channel, one chain: the order of
 *       the events and of each event's outputs is fixed.
 * </ol>
 *
 * <p>The scenarios of one state backend ({@code state.backend.type} {@code hashmap} or {@code
 * rocksdb}) run in one job, each a pipeline of its own. On RocksDB a state map iterates in the
 * order of its serialized keys, on the heap in hash order, so one event's outputs may come in
 * another order: most scenarios have a {@code _rocksdb} twin with the same events, and the
 * program checks that every event of a twin has the same outputs as a multiset on both
 * backends.
 *
 * <p>Each scenario's node description and options text are what {@link StreamFusionPlanner}
 * recorded for the {@code StreamExecJoin} node (it describes the node as it would for the
 * native side, which it does not ask yet). The program checks the node against the operator:
 * join type, key columns (each event's key, computed by the planner's key selector, equals the
 * event's columns at the node's keys), null filters, and each side's state layout and unique
 * key (Flink's {@code JoinUtil.analyzeJoinInput}: the first smallest upsert key contained in
 * the join key makes {@code JoinKeyContainsUniqueKey}, else the first smallest upsert key makes
 * {@code InputSideHasUniqueKey}, none {@code NoUniqueKey}; checked against the spec's unique
 * key selector on every event) and against what the scenario expects. Every scenario's events
 * are a changelog its side could produce (a side with a primary key updates a row of its key
 * in place), except the events a scenario marks as retractions of rows never inserted.
 *
 * <p>What Flink 2.3.0's planner makes of the scenarios (each checked): the key columns come
 * in the condition's order ({@code l.s = r.s AND l.k = r.k} keys by (s, k)); {@code IS NOT
 * DISTINCT FROM} stays a key with {@code filterNulls} false, so NULL keys match each other; a
 * join without equalities ({@code ON l.v > r.w}, and {@code NOT IN}, which becomes an anti join
 * on {@code k IS NULL OR k0 IS NULL OR k = k0}) has no keys: every row is under the one empty
 * key; the right input of a semi or anti join is projected to the columns its condition reads,
 * so a right primary key not among them is no unique key there; an insert-only side with a
 * primary key has a unique key like an updating one; a primary key contained in the join key
 * (equal to it, or a part of a two-column key) makes {@code JoinKeyContainsUniqueKey}. Keys are
 * compared by their binary rows: DOUBLE 0.0 and -0.0 are different keys, NaN equals NaN.
 *
 * <p>What the released operators emit (so the file shows it): a joined row takes the input
 * row's kind only where no outer side is involved (an accumulation whose other side is not
 * outer, a retraction whose own side is not outer), else {@code +I} or {@code -D}; padded
 * rows are only ever {@code +I} and {@code -D}; a semi join emits a left row with the left
 * event's kind, or with the right event's kind when the right event gives it its first match
 * or takes its last; an anti join emits {@code -D} and {@code +I} for right events. A
 * retraction of a row never inserted still retracts its joined rows, and can drive an outer
 * row's association count below zero, after which its padding is never retracted.
 *
 * <p>Usage: {@code JoinVectors <output path> [scenario..]} (all scenarios when none are
 * named), on the planner classpath ({@code classpath-planner.txt}). Output is JSON Lines
 * (UTF-8, LF):
 *
 * <ul>
 *   <li>line 1: {@code {"flink":"2.3.0","seed":"0x..","generator":
 *       "org.streamfusion.golden.JoinVectors","format":1}};
 *   <li>per scenario, a header {@code {"scenario":name,"description":..,"join_type":
 *       "INNER"|"LEFT"|"RIGHT"|"FULL"|"SEMI"|"ANTI","operator":"StreamingJoinOperator"|
 *       "StreamingSemiAntiJoinOperator","backend":"hashmap"|"rocksdb","left_spec":{"kind":
 *       "JoinKeyContainsUniqueKey"|"InputSideHasUniqueKey"|"NoUniqueKey","unique_key":[column
 *       indexes]|null},"right_spec":{..},"left_keys":[..],"right_keys":[..],"filter_nulls":
 *       [bools],"node":<description text>,"config":<options text>,"left":[{"name":..,"type":
 *       ..}..],"right":[..],"output":[..],"sql":..,"events":n}}: {@code left} and {@code right}
 *       are the node's input rows (a semi or anti join's right input is the projection of the
 *       right table the planner puts below it), {@code output} the operator's output row (the
 *       left row then the right row; the left row alone for a semi or anti join), keys and
 *       unique keys are column indexes into the side's row, {@code filter_nulls} says per key
 *       pair whether NULL keys never match ({@code =}) or match each other ({@code IS NOT
 *       DISTINCT FROM});
 *   <li>then n events, each {@code {"in":"+I"|"-U"|"+U"|"-D","side":0|1,"row":[..]}} (side 0
 *       the left input, 1 the right), immediately followed by the lines {@code {"out":kind,
 *       "row":[..]}} the operator emitted for it, in emission order.
 * </ul>
 *
 * <p>Types are Flink's names as the Rust side parses them ({@code STRING}, {@code INT}, {@code
 * BIGINT}, {@code DOUBLE}, {@code DECIMAL(p, s)}, {@code TIMESTAMP(3)}, {@code BOOLEAN}), with
 * {@code NOT NULL} where the type is. Values as {@link NodeVectors} writes them: {@code null};
 * STRING a JSON string; INT a number; BIGINT, DOUBLE ({@code Double.toString}), DECIMAL (plain,
 * with the type's scale) and TIMESTAMP(3) (epoch milliseconds) strings; BOOLEAN a JSON boolean
 * (as {@link CalcVectors} writes it). Every scenario's events come from {@link #SEED} and its
 * name (without {@code _rocksdb}), so two runs write byte-identical files.
 */
public final class JoinVectors {
    /** Published seed (the project's). */
    public static final long SEED = GroupAggVectors.SEED;

    static final String GENERATOR = "org.streamfusion.golden.JoinVectors";
    static final int FORMAT = 1;
    static final String NODE_TYPE = "stream-exec-join_1";
    static final String[] BACKENDS = {"hashmap", "rocksdb"};
    static final ObjectMapper JSON = new ObjectMapper();
    static final int LEFT = 0;
    static final int RIGHT = 1;

    /** A side's state layout, as Flink's {@code JoinInputSideSpec} and the header name it. */
    enum Layout {
        NONE("NoUniqueKey"),
        UNIQUE("InputSideHasUniqueKey"),
        JOIN_KEY("JoinKeyContainsUniqueKey");

        final String json;

        Layout(String json) {
            this.json = json;
        }
    }

    record Column(String name, DataType dataType) {}

    /** One input event: its side, its kind and its values over the side's table columns. */
    record Event(int side, RowKind kind, Object[] values) {}

    /** Makes the {@code n}-th event's row of a side's table. */
    interface RowMaker {
        Object[] row(SplittableRandom rnd, int n);
    }

    /** One side's table: columns, primary key, changelog mode, and its live rows. */
    static final class Side {
        final String what;
        final List<Column> columns = new ArrayList<>();
        final List<String> primaryKey = new ArrayList<>();
        boolean insertOnly;
        /** The rows inserted and not retracted (a multiset), for checking the changelog. */
        final List<List<Object>> live = new ArrayList<>();

        Side(String what) {
            this.what = what;
        }

        int index(String name) {
            for (int i = 0; i < columns.size(); i++) {
                if (columns.get(i).name().equals(name)) {
                    return i;
                }
            }
            return -1;
        }

        List<Object> key(List<Object> row) {
            List<Object> key = new ArrayList<>();
            for (String k : primaryKey) {
                key.add(row.get(index(k)));
            }
            return key;
        }

        /** The live row with the primary key of {@code row}, or null (always null without one). */
        List<Object> liveWithKey(List<Object> row) {
            if (primaryKey.isEmpty()) {
                return null;
            }
            for (List<Object> r : live) {
                if (key(r).equals(key(row))) {
                    return r;
                }
            }
            return null;
        }

        /** {@code row} with the primary key columns of {@code keyed}. */
        Object[] withKeyOf(Object[] row, List<Object> keyed) {
            Object[] out = row.clone();
            for (String k : primaryKey) {
                out[index(k)] = keyed.get(index(k));
            }
            return out;
        }
    }

    /** A scenario: the two tables, the query, what the planner must make, and the events. */
    static final class Scenario {
        final String name;
        final String description;
        final SplittableRandom rnd;
        String backend = "hashmap";
        final Side left = new Side("left");
        final Side right = new Side("right");
        /** The node's join type, as its JSON names it. */
        String joinType;
        String sql;
        Layout leftLayout;
        Layout rightLayout;
        final List<Event> events = new ArrayList<>();

        Scenario(String name, String description) {
            this.name = name;
            this.description = description;
            // A scenario and its RocksDB twin draw the same events.
            this.rnd = new SplittableRandom(SEED ^ name.replace("_rocksdb", "").hashCode());
        }

        Side table(int side) {
            return side == LEFT ? left : right;
        }

        Scenario left(String name, DataType type) {
            left.columns.add(new Column(name, type));
            return this;
        }

        Scenario right(String name, DataType type) {
            right.columns.add(new Column(name, type));
            return this;
        }

        Scenario leftKey(String... names) {
            left.primaryKey.addAll(Arrays.asList(names));
            return this;
        }

        Scenario rightKey(String... names) {
            right.primaryKey.addAll(Arrays.asList(names));
            return this;
        }

        /** Which sides are insert-only ({@code ChangelogMode.insertOnly()}). */
        Scenario insertOnly(boolean left, boolean right) {
            this.left.insertOnly = left;
            this.right.insertOnly = right;
            return this;
        }

        Scenario backend(String backend) {
            this.backend = backend;
            return this;
        }

        /** The node's join type and the query over {@code lhs l} and {@code rhs r}. */
        Scenario query(String joinType, String sql) {
            this.joinType = joinType;
            this.sql = sql;
            return this;
        }

        /** {@code SELECT *} joining on {@code condition}, EXISTS for SEMI, NOT EXISTS for ANTI. */
        Scenario on(String joinType, String condition) {
            String sql = switch (joinType) {
                case "INNER", "LEFT", "RIGHT", "FULL" ->
                        "SELECT * FROM lhs l " + joinType + " JOIN rhs r ON " + condition;
                case "SEMI" -> "SELECT * FROM lhs l WHERE EXISTS (SELECT * FROM rhs r WHERE "
                        + condition + ")";
                case "ANTI" -> "SELECT * FROM lhs l WHERE NOT EXISTS (SELECT * FROM rhs r WHERE "
                        + condition + ")";
                default -> throw new IllegalArgumentException(joinType);
            };
            return query(joinType, sql);
        }

        /** The state layouts the planner must choose for the left and the right side. */
        Scenario layouts(Layout left, Layout right) {
            this.leftLayout = left;
            this.rightLayout = right;
            return this;
        }

        private void add(int side, RowKind kind, Object[] values) {
            if (values.length != table(side).columns.size()) {
                throw new IllegalArgumentException(name + ": a row of " + values.length
                        + " values for the " + table(side).columns.size() + " columns of the "
                        + table(side).what + " table");
            }
            events.add(new Event(side, kind, values.clone()));
        }

        /** {@code +I}: a new row (a side with a primary key: of a key not live). */
        Scenario ins(int side, Object... values) {
            Side t = table(side);
            List<Object> row = Arrays.asList(values);
            if (t.liveWithKey(row) != null) {
                throw new IllegalStateException(name + ": +I of a live key " + row);
            }
            add(side, RowKind.INSERT, values);
            t.live.add(row);
            return this;
        }

        /** {@code -D} of a live row. */
        Scenario del(int side, Object... values) {
            Side t = table(side);
            requireUpdating(t);
            if (!t.live.remove(Arrays.asList(values))) {
                throw new IllegalStateException(name + ": -D of " + Arrays.toString(values)
                        + ", not live (unknown(..) retracts rows never inserted)");
            }
            add(side, RowKind.DELETE, values);
            return this;
        }

        /** {@code -U} of a live row, {@code +U} of its new values (the same primary key). */
        Scenario upd(int side, Object[] before, Object[] after) {
            Side t = table(side);
            requireUpdating(t);
            List<Object> b = Arrays.asList(before);
            List<Object> a = Arrays.asList(after);
            if (!t.key(b).equals(t.key(a))) {
                throw new IllegalStateException(name + ": an update changes the primary key");
            }
            if (!t.live.remove(b)) {
                throw new IllegalStateException(name + ": -U of " + b + ", not live");
            }
            add(side, RowKind.UPDATE_BEFORE, before);
            add(side, RowKind.UPDATE_AFTER, after);
            t.live.add(a);
            return this;
        }

        /**
         * A retraction ({@code -D} or {@code -U}) of a row that is not live: one the side never
         * inserted (or already retracted), which Flink's operator still processes.
         */
        Scenario unknown(int side, RowKind kind, Object... values) {
            Side t = table(side);
            requireUpdating(t);
            if (kind != RowKind.DELETE && kind != RowKind.UPDATE_BEFORE) {
                throw new IllegalArgumentException(kind.toString());
            }
            List<Object> row = Arrays.asList(values);
            if (t.live.contains(row) || t.liveWithKey(row) != null) {
                throw new IllegalStateException(name + ": " + row + " is live");
            }
            add(side, kind, values);
            return this;
        }

        /** {@code +U} without a {@code -U} before it (after {@link #unknown} of a -U). */
        Scenario updateAfter(int side, Object... values) {
            Side t = table(side);
            requireUpdating(t);
            List<Object> row = Arrays.asList(values);
            if (t.liveWithKey(row) != null) {
                throw new IllegalStateException(name + ": +U of a live key " + row);
            }
            add(side, RowKind.UPDATE_AFTER, values);
            t.live.add(row);
            return this;
        }

        private void requireUpdating(Side t) {
            if (t.insertOnly) {
                throw new IllegalStateException(name + ": the " + t.what + " side is insert-only");
            }
        }

        /**
         * {@code count} more random events, each on a random side: on an insert-only side an
         * insert; on an updating side an insert (half the time, or when nothing is live), else
         * an update (-U/+U, never as the last event) or a delete of a live row. A new row of a
         * key that is live becomes an update of that key's row (or, insert-only, another try).
         */
        Scenario random(int count, RowMaker leftRows, RowMaker rightRows) {
            return random(count, 1, 1, leftRows, rightRows);
        }

        /** As {@link #random(int, RowMaker, RowMaker)}, the sides weighted. */
        Scenario random(int count, int leftWeight, int rightWeight, RowMaker leftRows,
                RowMaker rightRows) {
            int target = events.size() + count;
            int tries = 0;
            while (events.size() < target) {
                if (++tries > 50 * count) {
                    throw new IllegalStateException(name + ": cannot make the events");
                }
                int side = rnd.nextInt(leftWeight + rightWeight) < leftWeight ? LEFT : RIGHT;
                Side t = table(side);
                Object[] fresh = (side == LEFT ? leftRows : rightRows).row(rnd, events.size());
                int dice = rnd.nextInt(10);
                // An update is two events: not as the last one.
                boolean pair = target - events.size() >= 2;
                if (t.insertOnly || t.live.isEmpty() || dice < 5) {
                    List<Object> same = t.liveWithKey(Arrays.asList(fresh));
                    if (same == null) {
                        ins(side, fresh);
                    } else if (!t.insertOnly && pair) {
                        upd(side, same.toArray(), fresh);
                    }
                    continue;
                }
                List<Object> row = t.live.get(rnd.nextInt(t.live.size()));
                if (dice < 8 && pair) {
                    upd(side, row.toArray(), t.withKeyOf(fresh, row));
                } else if (dice >= 8) {
                    del(side, row.toArray());
                }
            }
            return this;
        }
    }

    /** A scenario planned: the operator Flink built and everything the file says about it. */
    static final class Planned {
        final Scenario scenario;
        String description;
        String config;
        AbstractStreamingJoinOperator operator;
        TwoInputTransformation<RowData, RowData, RowData> transformation;
        RowType leftType;
        RowType rightType;
        RowType outputType;
        int[] leftKeys;
        int[] rightKeys;
        KeySelector<RowData, RowData> leftSelector;
        KeySelector<RowData, RowData> rightSelector;
        boolean[] filterNulls;
        Layout leftLayout;
        Layout rightLayout;
        int[] leftUnique;
        int[] rightUnique;
        /** The events over the node's input rows, with their kinds. */
        final List<Row> rows = new ArrayList<>();
        final List<Integer> sides = new ArrayList<>();
        Feed feed;
        /** Per event, the output lines in emission order. */
        final List<List<String>> outputs = new ArrayList<>();

        Planned(Scenario scenario) {
            this.scenario = scenario;
        }

        String operatorName() {
            return operator.getClass().getSimpleName();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: JoinVectors <output path> [scenario..]");
            System.exit(2);
        }
        List<String> only = Arrays.asList(args).subList(1, args.length);
        // The planner describes the nodes; nothing may run natively (a Calc below a semi join
        // would be offered): with no loadable native library every node is refused.
        System.setProperty(NativeOperator.LIBRARY_PATH_PROPERTY,
                "/nonexistent/streamfusion-golden-vectors-run-stock/libstreamfusion_jni.so");
        List<Scenario> scenarios = select(scenarios(), s -> s.name, only);
        List<Planned> planned = new ArrayList<>();
        StreamExecutionEnvironment planEnv = StreamExecutionEnvironment.getExecutionEnvironment();
        planEnv.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(planEnv, EnvironmentSettings.inStreamingMode());
        for (Scenario s : scenarios) {
            planned.add(plan(planEnv, tEnv, s));
        }
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
        compareTwins(planned);

        StringBuilder out = new StringBuilder(1 << 20);
        out.append("{\"flink\":\"2.3.0\",\"seed\":\"0x").append(Long.toHexString(SEED))
                .append("\",\"generator\":");
        Json.string(out, GENERATOR);
        out.append(",\"format\":").append(FORMAT).append("}\n");
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
     * Plans the scenario's query in {@code tEnv} (whose environment is never executed) and
     * returns the join operator Flink built, checked against the node and the scenario.
     */
    static Planned plan(StreamExecutionEnvironment planEnv, StreamTableEnvironment tEnv,
            Scenario s) throws Exception {
        // Exactly the two released operators: not the mini-batch or async-state variants.
        return plan(planEnv, tEnv, s, Map.of(), c -> c == StreamingJoinOperator.class
                || c == StreamingSemiAntiJoinOperator.class);
    }

    /**
     * {@link #plan(StreamExecutionEnvironment, StreamTableEnvironment, Scenario)} with {@code
     * options} set over this program's planning options (for {@link MiniBatchJoinVectors}: a
     * mini-batch configuration), failing unless {@code accepts} the class of the operator the
     * planner built.
     */
    static Planned plan(StreamExecutionEnvironment planEnv, StreamTableEnvironment tEnv,
            Scenario s, Map<String, String> options, Predicate<Class<?>> accepts)
            throws Exception {
        Planned p = new Planned(s);
        StreamFusionPlanner.clearDecisions();
        ExecNodeContext.resetIdCounter();
        TableConfig config = tEnv.getConfig();
        config.set(StreamFusionPlanner.ENABLED, true);
        config.set("table.local-time-zone", "UTC");
        config.set("table.exec.mini-batch.enabled", "false");
        config.set("table.exec.async-state.enabled", "false");
        config.set("table.exec.state.ttl", "0 ms");
        for (Map.Entry<String, String> option : options.entrySet()) {
            config.set(option.getKey(), option.getValue());
        }
        view(planEnv, tEnv, s, LEFT, "lhs");
        view(planEnv, tEnv, s, RIGHT, "rhs");
        Table result = tEnv.sqlQuery(s.sql);
        DataStream<Row> changes = tEnv.toChangelogStream(result);
        p.transformation = joinTransformation(s, changes.getTransformation());
        StreamOperatorFactory<RowData> factory = p.transformation.getOperatorFactory();
        if (!(factory instanceof SimpleOperatorFactory)) {
            throw new IllegalStateException(s.name + ": the join's factory is " + factory);
        }
        Object operator = ((SimpleOperatorFactory<RowData>) factory).getOperator();
        if (!accepts.test(operator.getClass())) {
            throw new IllegalStateException(s.name + ": the join operator is "
                    + operator.getClass().getName());
        }
        p.operator = (AbstractStreamingJoinOperator) operator;

        // The node as the planner described it.
        StreamFusionPlanner.Decision decision = null;
        for (StreamFusionPlanner.Decision d : StreamFusionPlanner.decisions()) {
            if (d.isNative()) {
                throw new IllegalStateException(s.name + ": " + d.node + " was planned natively;"
                        + " golden vectors must come from stock Flink");
            }
            if (d.description != null && d.description.contains("\"" + NODE_TYPE + "\"")) {
                if (decision != null) {
                    throw new IllegalStateException(s.name + ": two join nodes");
                }
                decision = d;
            }
        }
        if (decision == null) {
            throw new IllegalStateException(s.name + ": no join node among "
                    + StreamFusionPlanner.decisions());
        }
        // The native library is pointed at nothing: every node is refused and runs stock.
        if (decision.reason == null
                || !decision.reason.startsWith("the native library is unavailable")) {
            throw new IllegalStateException(s.name + ": the join node's decision " + decision);
        }
        p.description = decision.description;
        p.config = decision.config;
        JsonNode description = JSON.readTree(p.description);
        JsonNode node = description.get("node");
        JsonNode spec = node.get("joinSpec");
        List<String> problems = new ArrayList<>();

        p.leftType = JoinVectors.<InternalTypeInfo<RowData>>get(p.operator, "leftType")
                .toRowType();
        p.rightType = JoinVectors.<InternalTypeInfo<RowData>>get(p.operator, "rightType")
                .toRowType();
        p.outputType = ((InternalTypeInfo<RowData>) p.transformation.getOutputType()).toRowType();
        if (!description.get("inputs").get(0).asText().equals(p.leftType.asSerializableString())
                || !description.get("inputs").get(1).asText()
                        .equals(p.rightType.asSerializableString())) {
            problems.add("inputs " + description.get("inputs") + " are not the operator's "
                    + p.leftType + " and " + p.rightType);
        }
        if (!node.get("outputType").asText().equals(p.outputType.asSerializableString())) {
            problems.add("outputType " + node.get("outputType") + ", the operator's "
                    + p.outputType);
        }
        if (!spec.get("joinType").asText().equals(s.joinType)) {
            problems.add("joinType " + spec.get("joinType") + ", not " + s.joinType);
        }
        boolean semiAnti = s.joinType.equals("SEMI") || s.joinType.equals("ANTI");
        if (semiAnti != (p.operator instanceof StreamingSemiAntiJoinOperator)) {
            problems.add("operator " + p.operatorName() + " for " + s.joinType);
        }
        if (semiAnti) {
            if ((boolean) field(p.operator, "isAntiJoin") != s.joinType.equals("ANTI")) {
                problems.add("isAntiJoin");
            }
        } else {
            boolean leftOuter = s.joinType.equals("LEFT") || s.joinType.equals("FULL");
            boolean rightOuter = s.joinType.equals("RIGHT") || s.joinType.equals("FULL");
            if ((boolean) field(p.operator, "leftIsOuter") != leftOuter
                    || (boolean) field(p.operator, "rightIsOuter") != rightOuter) {
                problems.add("outer flags");
            }
        }
        if ((long) field(p.operator, "leftStateRetentionTime") != 0
                || (long) field(p.operator, "rightStateRetentionTime") != 0) {
            problems.add("state retention");
        }
        p.leftKeys = ints(spec.get("leftKeys"));
        p.rightKeys = ints(spec.get("rightKeys"));
        p.filterNulls = (boolean[]) field(p.operator, "filterNullKeys");
        JsonNode nulls = spec.get("filterNulls");
        boolean nullsAgree = nulls.size() == p.filterNulls.length
                && p.filterNulls.length == p.leftKeys.length
                && p.leftKeys.length == p.rightKeys.length;
        for (int i = 0; nullsAgree && i < p.filterNulls.length; i++) {
            nullsAgree = nulls.get(i).asBoolean() == p.filterNulls[i];
        }
        if (!nullsAgree) {
            problems.add("filterNulls " + nulls + ", the operator's "
                    + Arrays.toString(p.filterNulls));
        }

        // The events over the node's inputs: the planner may project a side (the right input
        // of a semi or anti join holds only the columns the condition reads).
        int[][] at = {columnsOf(s, s.left, p.leftType), columnsOf(s, s.right, p.rightType)};
        for (Event e : s.events) {
            int[] cols = at[e.side()];
            Object[] values = new Object[cols.length];
            for (int i = 0; i < cols.length; i++) {
                values[i] = e.values()[cols[i]];
            }
            p.rows.add(Row.ofKind(e.kind(), values));
            p.sides.add(e.side());
            p.outputs.add(new ArrayList<>());
        }
        p.feed = new Feed(p);

        // The keys: the planner's key selectors against the node's key columns.
        p.leftSelector = rowKeys(p.transformation.getStateKeySelector1());
        p.rightSelector = rowKeys(p.transformation.getStateKeySelector2());
        checkProjection(s, p, "join key", p.leftSelector, p.rightSelector, p.leftKeys,
                p.rightKeys, problems);

        // The state layouts.
        JoinInputSideSpec leftSpec = (JoinInputSideSpec) field(p.operator, "leftInputSideSpec");
        JoinInputSideSpec rightSpec = (JoinInputSideSpec) field(p.operator, "rightInputSideSpec");
        p.leftLayout = layout(leftSpec);
        p.rightLayout = layout(rightSpec);
        if (p.leftLayout != s.leftLayout || p.rightLayout != s.rightLayout) {
            problems.add("layouts " + p.leftLayout + "/" + p.rightLayout + ", not "
                    + s.leftLayout + "/" + s.rightLayout);
        }
        p.leftUnique = uniqueKey(node.get("leftUpsertKeys"), p.leftKeys, p.leftLayout, problems);
        p.rightUnique = uniqueKey(node.get("rightUpsertKeys"), p.rightKeys, p.rightLayout,
                problems);
        checkProjection(s, p, "unique key",
                leftSpec.hasUniqueKey() ? leftSpec.getUniqueKeySelector() : null,
                rightSpec.hasUniqueKey() ? rightSpec.getUniqueKeySelector() : null,
                p.leftUnique, p.rightUnique, problems);

        if (!problems.isEmpty()) {
            throw new IllegalStateException(s.name + ": the join is not what the scenario asks"
                    + " for: " + problems + " in " + p.description);
        }
        System.err.printf("%s: %s %s, %s/%s, keys %s/%s, filter nulls %s, %d events%n", s.name,
                s.joinType, p.operatorName(), p.leftLayout.json, p.rightLayout.json,
                Arrays.toString(p.leftKeys), Arrays.toString(p.rightKeys),
                Arrays.toString(p.filterNulls), p.rows.size());
        return p;
    }

    /** Creates (or replaces) the view of one side's table. */
    static void view(StreamExecutionEnvironment planEnv, StreamTableEnvironment tEnv, Scenario s,
            int side, String name) {
        Side t = s.table(side);
        DataTypes.Field[] fields = new DataTypes.Field[t.columns.size()];
        Schema.Builder schema = Schema.newBuilder();
        for (int i = 0; i < fields.length; i++) {
            Column c = t.columns.get(i);
            fields[i] = DataTypes.FIELD(c.name(), c.dataType());
            schema.column(c.name(), c.dataType());
        }
        if (!t.primaryKey.isEmpty()) {
            schema.primaryKey(t.primaryKey);
        }
        List<Row> rows = new ArrayList<>();
        for (Event e : s.events) {
            if (e.side() == side) {
                rows.add(Row.ofKind(e.kind(), e.values()));
            }
        }
        if (rows.isEmpty()) {
            throw new IllegalStateException(s.name + ": no events on the " + t.what + " side");
        }
        @SuppressWarnings("unchecked")
        ExternalTypeInfo<Row> typeInfo =
                (ExternalTypeInfo<Row>) (ExternalTypeInfo<?>) ExternalTypeInfo.of(
                        DataTypes.ROW(fields).bridgedTo(Row.class));
        DataStream<Row> stream = planEnv.fromData(rows, typeInfo);
        tEnv.dropTemporaryView(name);
        tEnv.createTemporaryView(name, tEnv.fromChangelogStream(stream, schema.build(),
                t.insertOnly ? ChangelogMode.insertOnly() : ChangelogMode.all()));
    }

    /** The one join transformation upstream of {@code root}. */
    @SuppressWarnings("unchecked")
    static TwoInputTransformation<RowData, RowData, RowData> joinTransformation(Scenario s,
            Transformation<?> root) {
        TwoInputTransformation<?, ?, ?> found = null;
        Deque<Transformation<?>> todo = new ArrayDeque<>();
        Set<Transformation<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        todo.add(root);
        while (!todo.isEmpty()) {
            Transformation<?> t = todo.poll();
            if (!seen.add(t)) {
                continue;
            }
            if (t instanceof TwoInputTransformation) {
                if (found != null) {
                    throw new IllegalStateException(s.name + ": two two-input transformations");
                }
                found = (TwoInputTransformation<?, ?, ?>) t;
            }
            todo.addAll(t.getInputs());
        }
        if (found == null) {
            throw new IllegalStateException(s.name + ": no two-input transformation");
        }
        return (TwoInputTransformation<RowData, RowData, RowData>) found;
    }

    /** For each node input column, its table column (by name). */
    static int[] columnsOf(Scenario s, Side t, RowType input) {
        List<String> names = input.getFieldNames();
        int[] at = new int[names.size()];
        for (int i = 0; i < at.length; i++) {
            at[i] = t.index(names.get(i));
            if (at[i] < 0) {
                throw new IllegalStateException(s.name + ": the " + t.what + " input column "
                        + names.get(i) + " is not a table column");
            }
            if (!input.getTypeAt(i).equals(t.columns.get(at[i]).dataType().getLogicalType())) {
                throw new IllegalStateException(s.name + ": the " + t.what + " input column "
                        + names.get(i) + " is " + input.getTypeAt(i));
            }
        }
        return at;
    }

    static Layout layout(JoinInputSideSpec spec) {
        return !spec.hasUniqueKey() ? Layout.NONE
                : spec.joinKeyContainsUniqueKey() ? Layout.JOIN_KEY : Layout.UNIQUE;
    }

    /**
     * The unique key {@code JoinUtil.analyzeJoinInput} picks from the node's upsert keys: the
     * first smallest of those the join key contains, else the first smallest; null for none.
     */
    static int[] uniqueKey(JsonNode upsertKeys, int[] joinKeys, Layout layout,
            List<String> problems) {
        List<int[]> keys = new ArrayList<>();
        if (upsertKeys != null) {
            for (JsonNode k : upsertKeys) {
                keys.add(ints(k));
            }
        }
        Set<Integer> join = new HashSet<>();
        for (int k : joinKeys) {
            join.add(k);
        }
        List<int[]> contained = new ArrayList<>();
        for (int[] k : keys) {
            boolean in = true;
            for (int c : k) {
                in &= join.contains(c);
            }
            if (in) {
                contained.add(k);
            }
        }
        Layout derived = keys.isEmpty() ? Layout.NONE
                : contained.isEmpty() ? Layout.UNIQUE : Layout.JOIN_KEY;
        if (derived != layout) {
            problems.add("upsert keys " + upsertKeys + " make " + derived + ", the operator has "
                    + layout);
        }
        List<int[]> from = contained.isEmpty() ? keys : contained;
        int[] smallest = null;
        for (int[] k : from) {
            if (smallest == null || k.length < smallest.length) {
                smallest = k;
            }
        }
        return smallest;
    }

    /**
     * Adds a problem unless the selectors of the two sides give, for every event, the event's
     * values at the columns {@code left} and {@code right} (a null selector: no such key).
     */
    static void checkProjection(Scenario s, Planned p, String what,
            KeySelector<RowData, RowData> leftSelector,
            KeySelector<RowData, RowData> rightSelector, int[] left, int[] right,
            List<String> problems) throws Exception {
        @SuppressWarnings("unchecked")
        KeySelector<RowData, RowData>[] selectors = new KeySelector[] {leftSelector,
            rightSelector};
        int[][] columns = {left, right};
        RowType[] types = {p.leftType, p.rightType};
        for (int side = 0; side < 2; side++) {
            if ((selectors[side] == null) != (columns[side] == null)) {
                problems.add(what + " of side " + side + ": selector " + selectors[side]
                        + ", columns " + Arrays.toString(columns[side]));
                continue;
            }
            if (selectors[side] == null) {
                continue;
            }
            RowType keyType = project(types[side], columns[side]);
            DataStructureConverter<Object, Object> converter = converter(keyType);
            for (int i = 0; i < p.rows.size(); i++) {
                if (p.sides.get(i) != side) {
                    continue;
                }
                RowData key = selectors[side].getKey(p.feed.row(i));
                Row external = (Row) converter.toExternal(key);
                Row row = p.rows.get(i);
                for (int k = 0; k < columns[side].length; k++) {
                    if (!Objects.equals(external.getField(k), row.getField(columns[side][k]))) {
                        problems.add(what + " of side " + side + " event " + i + ": " + external
                                + " is not columns " + Arrays.toString(columns[side]) + " of "
                                + row);
                        return;
                    }
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    static KeySelector<RowData, RowData> rowKeys(KeySelector<RowData, ?> selector) {
        return (KeySelector<RowData, RowData>) selector;
    }

    static RowType project(RowType type, int[] columns) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (int c : columns) {
            fields.add(type.getFields().get(c));
        }
        return new RowType(fields);
    }

    static DataStructureConverter<Object, Object> converter(RowType type) {
        DataStructureConverter<Object, Object> c =
                DataStructureConverters.getConverter(TypeConversions.fromLogicalToDataType(type));
        c.open(JoinVectors.class.getClassLoader());
        return c;
    }

    static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }

    /**
     * A field of {@code o} (of its class or a superclass), read by reflection (public for the
     * mini-batch driver, which lives in Flink's package).
     */
    public static Object field(Object o, String name) {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // a superclass's
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException(o.getClass().getName() + " has no field " + name);
    }

    @SuppressWarnings("unchecked")
    static <T> T get(Object o, String name) {
        return (T) field(o, name);
    }

    // ---------------------------------------------------------------- execution

    /**
     * The events of one scenario as the operator receives them: each event's side and its row
     * as Flink's {@code RowDataSerializer} writes it, handed out as a fresh {@code
     * BinaryRowData} on every call.
     */
    static final class Feed implements Serializable {
        private static final long serialVersionUID = 1L;
        private final byte[] sides;
        private final byte[][] rows;
        private final int[] arity;

        @SuppressWarnings("unchecked")
        Feed(Planned p) {
            RowType[] types = {p.leftType, p.rightType};
            DataStructureConverter<Object, Object>[] converters = new DataStructureConverter[] {
                converter(p.leftType), converter(p.rightType)
            };
            this.arity = new int[] {p.leftType.getFieldCount(), p.rightType.getFieldCount()};
            this.sides = new byte[p.rows.size()];
            this.rows = new byte[p.rows.size()][];
            for (int i = 0; i < rows.length; i++) {
                int side = p.sides.get(i);
                sides[i] = (byte) side;
                RowData internal = (RowData) converters[side].toInternal(p.rows.get(i));
                BinaryRowData binary =
                        InternalTypeInfo.of(types[side]).toRowSerializer().toBinaryRow(internal);
                rows[i] = BinarySegmentUtils.copyToBytes(binary.getSegments(), binary.getOffset(),
                        binary.getSizeInBytes());
            }
        }

        boolean left(int i) {
            return sides[i] == LEFT;
        }

        /**
         * Hands event {@code i} to {@code join}'s own {@code processElement1}/{@code 2}, with
         * {@code i} as the timestamp of everything it emits for it.
         */
        void deliver(long i, TimestampedCollector<RowData> collector,
                TwoInputStreamOperator<RowData, RowData, RowData> join) throws Exception {
            collector.setAbsoluteTimestamp(i);
            StreamRecord<RowData> record = new StreamRecord<>(row((int) i));
            if (left((int) i)) {
                join.processElement1(record);
            } else {
                join.processElement2(record);
            }
        }

        /** Event {@code i}'s row, a new object over a copy of its bytes. */
        RowData row(int i) {
            byte[] bytes = rows[i].clone();
            BinaryRowData row = new BinaryRowData(arity[sides[i]]);
            row.pointTo(MemorySegmentFactory.wrap(bytes), 0, bytes.length);
            return row;
        }

        int size() {
            return rows.length;
        }
    }

    /** Maps an event index to its join key: the planner's key selector of the event's side. */
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
            return (feed.left(i) ? left : right).getKey(feed.row(i));
        }
    }

    /**
     * Flink's {@code StreamingJoinOperator}, built with the planner's arguments, driven by event
     * indexes: each index's row goes to the released {@code processElement1} or {@code
     * processElement2}, its outputs stamped with the index.
     */
    static final class JoinDriver extends StreamingJoinOperator
            implements OneInputStreamOperator<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final Feed feed;

        JoinDriver(StreamingJoinOperator planned, Feed feed) {
            super(get(planned, "leftType"), get(planned, "rightType"),
                    get(planned, "generatedJoinCondition"), get(planned, "leftInputSideSpec"),
                    get(planned, "rightInputSideSpec"), JoinVectors.<Boolean>get(planned,
                            "leftIsOuter"),
                    JoinVectors.<Boolean>get(planned, "rightIsOuter"),
                    get(planned, "filterNullKeys"),
                    JoinVectors.<Long>get(planned, "leftStateRetentionTime"),
                    JoinVectors.<Long>get(planned, "rightStateRetentionTime"));
            this.feed = feed;
        }

        @Override
        public void processElement(StreamRecord<Long> event) throws Exception {
            feed.deliver(event.getValue(), collector, this);
        }
    }

    /** {@link JoinDriver} for Flink's {@code StreamingSemiAntiJoinOperator}. */
    static final class SemiAntiDriver extends StreamingSemiAntiJoinOperator
            implements OneInputStreamOperator<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final Feed feed;

        SemiAntiDriver(StreamingSemiAntiJoinOperator planned, Feed feed) {
            super(JoinVectors.<Boolean>get(planned, "isAntiJoin"), get(planned, "leftType"),
                    get(planned, "rightType"), get(planned, "generatedJoinCondition"),
                    get(planned, "leftInputSideSpec"), get(planned, "rightInputSideSpec"),
                    get(planned, "filterNullKeys"),
                    JoinVectors.<Long>get(planned, "leftStateRetentionTime"),
                    JoinVectors.<Long>get(planned, "rightStateRetentionTime"));
            this.feed = feed;
        }

        @Override
        public void processElement(StreamRecord<Long> event) throws Exception {
            feed.deliver(event.getValue(), collector, this);
        }
    }

    /** An output row as its line, tagged with the scenario, the event (its timestamp) and a tab. */
    static final class Encode extends ProcessFunction<RowData, String> {
        private static final long serialVersionUID = 1L;
        private final int tag;
        private final DataType type;
        private final String[] types;
        private transient DataStructureConverter<Object, Object> converter;

        Encode(int tag, RowType type) {
            this.tag = tag;
            this.type = TypeConversions.fromLogicalToDataType(type);
            this.types = baseTypes(type);
        }

        @Override
        public void open(OpenContext context) {
            converter = DataStructureConverters.getConverter(type);
            converter.open(getRuntimeContext().getUserCodeClassLoader());
        }

        @Override
        public void processElement(RowData row, Context ctx, Collector<String> out) {
            Long event = ctx.timestamp();
            if (event == null) {
                throw new IllegalStateException("an output without its event");
            }
            StringBuilder line = new StringBuilder().append(tag).append('\t').append(event)
                    .append('\t');
            row(line, "out", (Row) converter.toExternal(row), types);
            out.collect(line.toString());
        }
    }

    /**
     * The environment one backend's scenarios run in, as one job: parallelism 1, the backend's
     * keyed state, and enough network buffers for the exchanges of many pipelines.
     */
    static StreamExecutionEnvironment environment(String backend) {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        conf.setString("state.backend.type", backend);
        conf.setString("taskmanager.memory.network.min", "256mb");
        conf.setString("taskmanager.memory.network.max", "256mb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        return env;
    }

    /** Runs the scenarios of one backend in one job and fills in their outputs. */
    static void run(String backend, List<Planned> group) throws Exception {
        StreamExecutionEnvironment env = JoinVectors.environment(backend);
        DataStream<String> all = null;
        for (int tag = 0; tag < group.size(); tag++) {
            Planned p = group.get(tag);
            List<Long> indexes = new ArrayList<>();
            for (long i = 0; i < p.feed.size(); i++) {
                indexes.add(i);
            }
            OneInputStreamOperator<Long, RowData> driver =
                    p.operator instanceof StreamingJoinOperator
                            ? new JoinDriver((StreamingJoinOperator) p.operator, p.feed)
                            : new SemiAntiDriver((StreamingSemiAntiJoinOperator) p.operator,
                                    p.feed);
            @SuppressWarnings("unchecked")
            TypeInformation<RowData> keyType =
                    (TypeInformation<RowData>) p.transformation.getStateKeyType();
            DataStream<String> lines = env.fromData(indexes, Types.LONG)
                    .setParallelism(1)
                    .keyBy(new EventKey(p.feed, p.leftSelector, p.rightSelector), keyType)
                    .transform("join " + p.scenario.name, p.transformation.getOutputType(),
                            driver)
                    .setParallelism(1)
                    .process(new Encode(tag, p.outputType))
                    .setParallelism(1);
            all = all == null ? lines : all.union(lines);
        }
        collect(all, "join-vectors-" + backend, tag -> group.get(tag).outputs);
        for (Planned p : group) {
            int out = 0;
            for (List<String> o : p.outputs) {
                out += o.size();
            }
            System.err.printf("%s (%s): %d events, %d outputs%n", p.scenario.name, backend,
                    p.rows.size(), out);
        }
    }

    /**
     * Runs the job of {@code all}, whose lines are {@link Encode}'s ({@code tag}, event index,
     * output line), and adds each output line to {@code outputs.apply(tag).get(event)}.
     */
    static void collect(DataStream<String> all, String job,
            IntFunction<List<List<String>>> outputs) throws Exception {
        try (CloseableIterator<String> it = all.executeAndCollect(job)) {
            while (it.hasNext()) {
                String line = it.next();
                int tab = line.indexOf('\t');
                int second = line.indexOf('\t', tab + 1);
                int event = Integer.parseInt(line.substring(tab + 1, second));
                outputs.apply(Integer.parseInt(line.substring(0, tab))).get(event)
                        .add(line.substring(second + 1));
            }
        }
    }

    /**
     * Fails unless a scenario's outputs on the hashmap and RocksDB backends are the same for
     * every event as multisets (a state map iterates in another order on each backend);
     * reports how many events' outputs came in another order.
     */
    static void compareOutputs(String name, List<List<String>> heap, List<List<String>> rocks) {
        int reordered = 0;
        for (int i = 0; i < heap.size(); i++) {
            List<String> a = new ArrayList<>(heap.get(i));
            List<String> b = new ArrayList<>(rocks.get(i));
            if (!a.equals(b)) {
                reordered++;
            }
            Collections.sort(a);
            Collections.sort(b);
            if (!a.equals(b)) {
                throw new IllegalStateException(name + " event " + i + ": hashmap emitted "
                        + heap.get(i) + ", rocksdb " + rocks.get(i));
            }
        }
        System.err.printf("%s: the same outputs on both backends, %d events' in another"
                + " order%n", name, reordered);
    }

    /**
     * The scenarios named {@code only} (all when it is empty), failing on two scenarios of one
     * name or on a name that matches none.
     */
    static <S> List<S> select(List<S> all, Function<S, String> name, List<String> only) {
        List<S> selected = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (S s : all) {
            if (!names.add(name.apply(s))) {
                throw new IllegalStateException("two scenarios named " + name.apply(s));
            }
            if (only.isEmpty() || only.contains(name.apply(s))) {
                selected.add(s);
            }
        }
        if (selected.isEmpty()) {
            throw new IllegalArgumentException("no scenario named " + only);
        }
        return selected;
    }

    /**
     * Fails unless every scenario and its {@code _rocksdb} twin have the same events and the
     * same outputs for every event ({@link #compareOutputs}).
     */
    static void compareTwins(List<Planned> planned) {
        Map<String, Planned> byName = new LinkedHashMap<>();
        for (Planned p : planned) {
            byName.put(p.scenario.name, p);
        }
        for (Planned heap : planned) {
            Planned rocks = byName.get(heap.scenario.name + "_rocksdb");
            if (rocks == null) {
                continue;
            }
            if (!rocks.rows.equals(heap.rows) || !rocks.sides.equals(heap.sides)) {
                throw new IllegalStateException(heap.scenario.name + ": its twin has other events");
            }
            compareOutputs(heap.scenario.name, heap.outputs, rocks.outputs);
        }
    }

    // ---------------------------------------------------------------- writing

    static void write(Planned p, StringBuilder out) {
        header(p, out);
        out.append(",\"events\":").append(p.rows.size()).append("}\n");
        for (int i = 0; i < p.rows.size(); i++) {
            event(p, i, out);
            for (String line : p.outputs.get(i)) {
                out.append(line).append('\n');
            }
        }
    }

    /** A scenario's header line up to its {@code sql} (without the closing brace and newline). */
    static void header(Planned p, StringBuilder out) {
        Scenario s = p.scenario;
        out.append("{\"scenario\":");
        Json.string(out, s.name);
        out.append(",\"description\":");
        Json.string(out, s.description);
        out.append(",\"join_type\":");
        Json.string(out, s.joinType);
        out.append(",\"operator\":");
        Json.string(out, p.operatorName());
        out.append(",\"backend\":");
        Json.string(out, s.backend);
        out.append(",\"left_spec\":");
        spec(out, p.leftLayout, p.leftUnique);
        out.append(",\"right_spec\":");
        spec(out, p.rightLayout, p.rightUnique);
        out.append(",\"left_keys\":").append(NodeVectors.list(p.leftKeys))
                .append(",\"right_keys\":").append(NodeVectors.list(p.rightKeys))
                .append(",\"filter_nulls\":[");
        for (int i = 0; i < p.filterNulls.length; i++) {
            out.append(i == 0 ? "" : ",").append(p.filterNulls[i]);
        }
        out.append("],\"node\":");
        Json.string(out, p.description);
        out.append(",\"config\":");
        Json.string(out, p.config);
        out.append(",\"left\":");
        columns(out, p.leftType);
        out.append(",\"right\":");
        columns(out, p.rightType);
        out.append(",\"output\":");
        columns(out, p.outputType);
        out.append(",\"sql\":");
        Json.string(out, s.sql);
    }

    /** The line of the scenario's {@code i}-th event (a row of either side). */
    static void event(Planned p, int i, StringBuilder out) {
        Row r = p.rows.get(i);
        RowType type = p.sides.get(i) == LEFT ? p.leftType : p.rightType;
        out.append("{\"in\":\"").append(r.getKind().shortString()).append("\",\"side\":")
                .append(p.sides.get(i)).append(",\"row\":[");
        values(out, r, baseTypes(type));
        out.append("]}\n");
    }

    static void spec(StringBuilder out, Layout layout, int[] unique) {
        out.append("{\"kind\":");
        Json.string(out, layout.json);
        out.append(",\"unique_key\":").append(unique == null ? "null" : NodeVectors.list(unique))
                .append('}');
    }

    static void columns(StringBuilder out, RowType type) {
        out.append('[');
        for (int i = 0; i < type.getFieldCount(); i++) {
            GroupAggVectors.column(out, i, type.getFieldNames().get(i),
                    typeName(type.getTypeAt(i)));
        }
        out.append(']');
    }

    /** Flink's name of a type, as the Rust side parses it, with NOT NULL where it is. */
    static String typeName(LogicalType t) {
        String base = baseType(t);
        return t.isNullable() ? base : base + " NOT NULL";
    }

    /** Flink's name of a type without its nullability. */
    static String baseType(LogicalType t) {
        String s = t.copy(true).asSummaryString();
        return s.equals("VARCHAR(2147483647)") ? "STRING" : s;
    }

    static String[] baseTypes(RowType type) {
        String[] types = new String[type.getFieldCount()];
        for (int i = 0; i < types.length; i++) {
            types[i] = baseType(type.getTypeAt(i));
        }
        return types;
    }

    static void row(StringBuilder out, String tag, Row r, String[] types) {
        out.append("{\"").append(tag).append("\":\"").append(r.getKind().shortString())
                .append("\",\"row\":[");
        values(out, r, types);
        out.append("]}");
    }

    static void values(StringBuilder out, Row r, String[] types) {
        if (r.getArity() != types.length) {
            throw new IllegalStateException(r + " does not have " + types.length + " columns");
        }
        for (int i = 0; i < types.length; i++) {
            out.append(i == 0 ? "" : ",");
            Object v = r.getField(i);
            if (v != null && types[i].equals("BOOLEAN")) {
                out.append((boolean) (Boolean) v);
            } else {
                NodeVectors.value(out, types[i], v);
            }
        }
    }

    // ---------------------------------------------------------------- scenarios

    /** Marks a pool in {@link #pools}: the column takes the event's number (a unique id). */
    static final Object[] ID = new Object[0];
    static final Object[] KEYS = {1, 2, 3, null};
    static final Object[] KEYS_NOT_NULL = {1, 2, 3};
    static final Object[] FEW_KEYS = {1, 2};
    static final Object[] NULL_HEAVY_KEYS = {1, 2, null, null, null};
    static final Object[] DUPS = {0, 1};
    static final Object[] LONGS = {0L, 1L, 5L, -7L, null};
    static final Object[] INTS = {null, 0, 1, -1, 42, Integer.MIN_VALUE, Integer.MAX_VALUE};
    static final Object[] BIGINTS = {null, 0L, -1L, 1_234_567_890_123L, Long.MIN_VALUE,
        Long.MAX_VALUE};
    static final Object[] STRINGS = {null, "", "a", "b", "é", "e\u0301", "größer 🦀", "\uff5e",
        "🦀", "nul\0byte", "more than seven bytes"};
    /** Keys whose order in UTF-8 bytes differs from UTF-16's (U+FF5E against an emoji). */
    static final Object[] STRING_KEYS = {null, "", "a", "größer 🦀", "\uff5e", "🦀", "é",
        "e\u0301"};
    static final Object[] DOUBLES = {null, 0.0, -0.0, 1.5, -2.25, Double.NaN,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, 1.0E300};
    static final Object[] DOUBLE_KEYS = {null, 0.0, -0.0, Double.NaN, 1.5,
        Double.POSITIVE_INFINITY};
    static final Object[] DECIMALS = {null, new BigDecimal("0.00"), new BigDecimal("-0.01"),
        new BigDecimal("1.10"), new BigDecimal("99999999.99"), new BigDecimal("-99999999.99")};
    static final Object[] DECIMAL_KEYS = {null, new BigDecimal("0.00"), new BigDecimal("1.10"),
        new BigDecimal("-99999999.99")};
    static final Object[] WIDE_DECIMALS = {null, new BigDecimal("0.000000000000000000"),
        new BigDecimal("12345678901234567890.123456789012345678"),
        new BigDecimal("-0.000000000000000001"),
        new BigDecimal("99999999999999999999.999999999999999999")};
    static final LocalDateTime BASE = NodeVectors.BASE;
    static final Object[] TIMESTAMPS = {null, BASE, BASE.plusNanos(1_000_000),
        LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000), LocalDateTime.of(1970, 1, 1, 0, 0),
        LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_000_000)};
    static final Object[] TIMESTAMP_KEYS = {null, BASE, BASE.plusNanos(1_000_000),
        LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000)};
    static final Object[] BOOLEANS = {null, true, false};

    static List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        for (String backend : BACKENDS) {
            String x = backend.equals("hashmap") ? "" : "_rocksdb";
            // Every join type over two updating sides without primary keys.
            for (String type : List.of("INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI")) {
                list.add(layouts(type.toLowerCase() + "_nn" + x, type, Layout.NONE, Layout.NONE,
                        KEYS).backend(backend));
            }
            // Primary keys on both sides: not the join key, and the join key.
            list.add(layouts("inner_uu" + x, "INNER", Layout.UNIQUE, Layout.UNIQUE, KEYS)
                    .backend(backend));
            list.add(layouts("inner_jj" + x, "INNER", Layout.JOIN_KEY, Layout.JOIN_KEY,
                    KEYS_NOT_NULL).backend(backend));
            list.add(layouts("left_jj" + x, "LEFT", Layout.JOIN_KEY, Layout.JOIN_KEY,
                    KEYS_NOT_NULL).backend(backend));
            list.add(layouts("left_un" + x, "LEFT", Layout.UNIQUE, Layout.NONE, KEYS)
                    .backend(backend));
            list.add(layouts("right_ju" + x, "RIGHT", Layout.JOIN_KEY, Layout.UNIQUE, KEYS)
                    .backend(backend));
            list.add(layouts("full_uu" + x, "FULL", Layout.UNIQUE, Layout.UNIQUE, KEYS)
                    .backend(backend));
            list.add(layouts("full_jj" + x, "FULL", Layout.JOIN_KEY, Layout.JOIN_KEY,
                    KEYS_NOT_NULL).backend(backend));
            list.add(semiIn("semi_in_uj" + x).backend(backend));
            // Insert-only inputs.
            list.add(insertOnly("inner_insert_only" + x, "INNER").backend(backend));
            list.add(insertOnly("full_insert_only" + x, "FULL").backend(backend));
            list.add(insertOnly("anti_insert_only" + x, "ANTI").backend(backend));
            // Traced: padding flips, semi/anti emissions, retractions of unknown rows.
            list.add(leftPaddingTraced("left_padding_traced" + x).backend(backend));
            list.add(fullPaddingTraced("full_padding_traced" + x).backend(backend));
            list.add(semiAntiTraced("semi_traced" + x, "SEMI").backend(backend));
            list.add(semiAntiTraced("anti_traced" + x, "ANTI").backend(backend));
            list.add(retractUnknownNn("retract_unknown_nn" + x).backend(backend));
            // Null-safe keys, types, non-equi conditions.
            list.add(nullSafeLeft("null_safe_left" + x).backend(backend));
            list.add(keyString("key_string" + x).backend(backend));
            list.add(keyWideDecimal("key_wide_decimal" + x).backend(backend));
            list.add(nonEquiLeft("nonequi_left" + x).backend(backend));
            list.add(valuesAllTypes("values_all_types" + x).backend(backend));
        }
        // Mixed layouts.
        list.add(layouts("inner_nu", "INNER", Layout.NONE, Layout.UNIQUE, KEYS));
        list.add(layouts("inner_uj", "INNER", Layout.UNIQUE, Layout.JOIN_KEY, KEYS));
        list.add(layouts("inner_jn", "INNER", Layout.JOIN_KEY, Layout.NONE, KEYS));
        list.add(layouts("left_uu", "LEFT", Layout.UNIQUE, Layout.UNIQUE, FEW_KEYS));
        list.add(layouts("left_nj", "LEFT", Layout.NONE, Layout.JOIN_KEY, KEYS));
        list.add(layouts("left_uj", "LEFT", Layout.UNIQUE, Layout.JOIN_KEY, KEYS));
        list.add(layouts("right_jj", "RIGHT", Layout.JOIN_KEY, Layout.JOIN_KEY, KEYS_NOT_NULL));
        list.add(layouts("right_nu", "RIGHT", Layout.NONE, Layout.UNIQUE, FEW_KEYS));
        list.add(layouts("full_jn", "FULL", Layout.JOIN_KEY, Layout.NONE, KEYS));
        list.add(layouts("full_nu", "FULL", Layout.NONE, Layout.UNIQUE, FEW_KEYS));
        list.add(semiExistsUu());
        list.add(layouts("anti_uj", "ANTI", Layout.UNIQUE, Layout.JOIN_KEY, KEYS));
        list.add(layouts("semi_jn", "SEMI", Layout.JOIN_KEY, Layout.NONE, KEYS));
        list.add(notIn());
        list.add(semiInTwoColumns());
        // Insert-only and mixed modes.
        list.add(insertOnly("semi_insert_only", "SEMI"));
        list.add(insertOnly("left_insert_only", "LEFT"));
        list.add(insertOnlyPk());
        list.add(insertOnlyJj());
        list.add(rightMixedModes());
        // Traced.
        list.add(rightPaddingTraced());
        list.add(retractUnknownJj());
        list.add(retractUnknownUu());
        list.add(duplicates());
        list.add(updateInPlaceUu());
        list.add(updateInPlaceJj());
        // NULL keys.
        list.add(layouts("null_keys_inner", "INNER", Layout.NONE, Layout.NONE, NULL_HEAVY_KEYS));
        list.add(layouts("null_keys_full", "FULL", Layout.NONE, Layout.UNIQUE,
                NULL_HEAVY_KEYS));
        list.add(layouts("null_keys_anti", "ANTI", Layout.UNIQUE, Layout.NONE,
                NULL_HEAVY_KEYS));
        list.add(nullSafeMixed());
        // Two-column keys and primary keys of two columns.
        list.add(twoKeysInner());
        list.add(twoKeysJj());
        list.add(twoKeysPkSubset());
        list.add(pkWiderThanKey());
        // Non-equi conditions.
        list.add(nonEquiInner());
        list.add(nonEquiStrings());
        list.add(nonEquiOnly("nonequi_only_inner", "INNER"));
        list.add(nonEquiOnly("nonequi_only_left", "LEFT"));
        list.add(antiNonEqui());
        list.add(semiNonEqui());
        // Key and value types.
        list.add(keyBigint());
        list.add(keyDecimal());
        list.add(keyDouble());
        list.add(keyTimestamp());
        list.add(keyBoolean());
        return list;
    }

    /** Columns (k, id, v) on the left and (k, id, w) on the right, their primary keys by layout. */
    static Scenario standard(String name, String description, Layout left, Layout right) {
        Scenario s = new Scenario(name, description);
        s.left("k", left == Layout.JOIN_KEY ? DataTypes.INT().notNull() : DataTypes.INT())
                .left("id", left == Layout.UNIQUE ? DataTypes.INT().notNull() : DataTypes.INT())
                .left("v", DataTypes.BIGINT());
        s.right("k", right == Layout.JOIN_KEY ? DataTypes.INT().notNull() : DataTypes.INT())
                .right("id", right == Layout.UNIQUE ? DataTypes.INT().notNull() : DataTypes.INT())
                .right("w", DataTypes.BIGINT());
        if (left != Layout.NONE) {
            s.leftKey(left == Layout.JOIN_KEY ? "k" : "id");
        }
        if (right != Layout.NONE) {
            s.rightKey(right == Layout.JOIN_KEY ? "k" : "id");
        }
        return s;
    }

    /**
     * Rows (k, id, v) for a side of {@code layout}: k from {@code keys} (without NULL on a
     * side keyed by k), id the event's number on a side keyed by it (else 0 or 1, so rows
     * repeat), v a BIGINT or NULL.
     */
    static RowMaker kiv(Layout layout, Object[] keys) {
        List<Object> pool = new ArrayList<>(Arrays.asList(keys));
        if (layout == Layout.JOIN_KEY) {
            pool.removeIf(Objects::isNull);
        }
        return pools(pool.toArray(), layout == Layout.UNIQUE ? ID : DUPS, LONGS);
    }

    /** Each column from its pool ({@link #ID}: the event's number). */
    static RowMaker pools(Object[]... pools) {
        return (r, n) -> {
            Object[] row = new Object[pools.length];
            for (int i = 0; i < pools.length; i++) {
                row[i] = pools[i] == ID ? (Object) n : NodeVectors.pick(r, pools[i]);
            }
            return row;
        };
    }

    static String layoutText(Layout l) {
        return switch (l) {
            case NONE -> "no primary key";
            case UNIQUE -> "primary key id (not the join key)";
            case JOIN_KEY -> "primary key k (the join key)";
        };
    }

    static String typeText(String joinType) {
        return switch (joinType) {
            case "SEMI" -> "semi join (EXISTS)";
            case "ANTI" -> "anti join (NOT EXISTS)";
            default -> joinType + " join";
        };
    }

    /**
     * {@code joinType} on {@code l.k = r.k} over two updating sides of the given layouts, 60
     * random events with keys from {@code keys}. A semi or anti join's right input is only k,
     * so a right side keyed by id has no unique key there.
     */
    static Scenario layouts(String name, String joinType, Layout left, Layout right,
            Object[] keys) {
        boolean semiAnti = joinType.equals("SEMI") || joinType.equals("ANTI");
        boolean nulls = Arrays.asList(keys).contains(null);
        return standard(name, typeText(joinType) + " on l.k = r.k, 60 random events over two"
                        + " updating sides (+I, -U/+U, -D): left " + layoutText(left) + ", right "
                        + layoutText(right) + "; keys " + keysText(keys)
                        + (nulls ? " (NULL keys never match)" : ""), left, right)
                .on(joinType, "l.k = r.k")
                .layouts(left, semiAnti && right == Layout.UNIQUE ? Layout.NONE : right)
                .random(60, kiv(left, keys), kiv(right, keys));
    }

    static String keysText(Object[] keys) {
        Set<Object> distinct = new LinkedHashSet<>(Arrays.asList(keys));
        return distinct.toString().replace("null", "NULL");
    }

    static Scenario semiIn(String name) {
        return standard(name, "semi join written l.k IN (SELECT r.k FROM rhs r): left primary"
                        + " key id, right primary key k (its input is k alone, still keyed), 60"
                        + " random events over updating sides", Layout.UNIQUE, Layout.JOIN_KEY)
                .query("SEMI", "SELECT * FROM lhs l WHERE l.k IN (SELECT r.k FROM rhs r)")
                .layouts(Layout.UNIQUE, Layout.JOIN_KEY)
                .random(60, kiv(Layout.UNIQUE, KEYS), kiv(Layout.JOIN_KEY, KEYS));
    }

    static Scenario semiExistsUu() {
        return standard("semi_exists_uu", "semi join EXISTS (.. l.k = r.k AND l.id <> r.id):"
                        + " the condition keeps the right primary key id in its input, so both"
                        + " sides have a unique key outside the join key; 60 random events",
                Layout.UNIQUE, Layout.UNIQUE)
                .on("SEMI", "l.k = r.k AND l.id <> r.id")
                .layouts(Layout.UNIQUE, Layout.UNIQUE)
                .random(60, pools(FEW_KEYS, ID, LONGS), (r, n) -> new Object[] {
                    NodeVectors.pick(r, FEW_KEYS), r.nextInt(n + 1), NodeVectors.pick(r, LONGS)
                });
    }

    static Scenario notIn() {
        return standard("anti_not_in", "anti join written l.k NOT IN (SELECT r.k FROM rhs r):"
                        + " no equality keys (one state key for all rows) and the null-aware"
                        + " condition k IS NULL OR k0 IS NULL OR k = k0, so a NULL on either"
                        + " side matches everything; 60 random events over updating sides",
                Layout.NONE, Layout.NONE)
                .query("ANTI", "SELECT * FROM lhs l WHERE l.k NOT IN (SELECT r.k FROM rhs r)")
                .layouts(Layout.NONE, Layout.NONE)
                .random(60, 3, 2, kiv(Layout.NONE, new Object[] {1, 2, 3, 4, null}),
                        kiv(Layout.NONE, new Object[] {1, 2, 3, 4, 5, 6, null}));
    }

    /** Columns (k INT, s STRING, id INT, v BIGINT) and (k INT, s STRING, id INT, w BIGINT). */
    static Scenario ks(String name, String description, List<String> leftKey,
            List<String> rightKey) {
        Scenario s = new Scenario(name, description)
                .left("k", leftKey.contains("k") ? DataTypes.INT().notNull() : DataTypes.INT())
                .left("s", leftKey.contains("s") ? DataTypes.STRING().notNull()
                        : DataTypes.STRING())
                .left("id", leftKey.contains("id") ? DataTypes.INT().notNull() : DataTypes.INT())
                .left("v", DataTypes.BIGINT())
                .right("k", rightKey.contains("k") ? DataTypes.INT().notNull() : DataTypes.INT())
                .right("s", rightKey.contains("s") ? DataTypes.STRING().notNull()
                        : DataTypes.STRING())
                .right("id", rightKey.contains("id") ? DataTypes.INT().notNull()
                        : DataTypes.INT())
                .right("w", DataTypes.BIGINT());
        s.left.primaryKey.addAll(leftKey);
        s.right.primaryKey.addAll(rightKey);
        return s;
    }

    static final Object[] SMALL_STRINGS = {"a", "b", "größer 🦀"};
    static final Object[] SMALL_STRINGS_NULL = {"a", "b", "größer 🦀", null};

    static Scenario semiInTwoColumns() {
        return ks("semi_in_two_columns", "semi join written (l.k, l.s) IN (SELECT r.k, r.s FROM"
                        + " rhs r): two key columns, NULL in either never matches; 60 random"
                        + " events over updating sides without primary keys", List.of(),
                List.of())
                .query("SEMI",
                        "SELECT * FROM lhs l WHERE (l.k, l.s) IN (SELECT r.k, r.s FROM rhs r)")
                .layouts(Layout.NONE, Layout.NONE)
                .random(60, pools(FEW_KEYS, new Object[] {"a", "größer 🦀", null}, DUPS, LONGS),
                        pools(FEW_KEYS, new Object[] {"a", "größer 🦀", null}, DUPS, LONGS));
    }

    static Scenario twoKeysInner() {
        return ks("two_keys_inner", "INNER join on l.s = r.s AND l.k = r.k: two key columns, in"
                        + " the condition's order (keys [s, k], not the columns' order), NULL in"
                        + " either never matches; 60 random events, no primary keys", List.of(),
                List.of())
                .on("INNER", "l.s = r.s AND l.k = r.k")
                .layouts(Layout.NONE, Layout.NONE)
                .random(60, pools(FEW_KEYS, SMALL_STRINGS_NULL, DUPS, LONGS),
                        pools(FEW_KEYS, SMALL_STRINGS_NULL, DUPS, LONGS));
    }

    static Scenario twoKeysJj() {
        return ks("two_keys_jj", "FULL join on l.k = r.k AND l.s = r.s, each side's primary key"
                        + " (k, s) the join key: one row per key and side, updated in place; 60"
                        + " random events", List.of("k", "s"), List.of("k", "s"))
                .on("FULL", "l.k = r.k AND l.s = r.s")
                .layouts(Layout.JOIN_KEY, Layout.JOIN_KEY)
                .random(60, pools(FEW_KEYS, SMALL_STRINGS, DUPS, LONGS),
                        pools(FEW_KEYS, SMALL_STRINGS, DUPS, LONGS));
    }

    static Scenario twoKeysPkSubset() {
        return ks("two_keys_pk_subset", "LEFT join on l.k = r.k AND l.s = r.s, the left primary"
                        + " key k a part of the join key (JoinKeyContainsUniqueKey, unique key"
                        + " [k]), the right side without a key; 60 random events", List.of("k"),
                List.of())
                .on("LEFT", "l.k = r.k AND l.s = r.s")
                .layouts(Layout.JOIN_KEY, Layout.NONE)
                .random(60, pools(KEYS_NOT_NULL, SMALL_STRINGS_NULL, DUPS, LONGS),
                        pools(KEYS, SMALL_STRINGS_NULL, DUPS, LONGS));
    }

    static Scenario pkWiderThanKey() {
        return ks("pk_wider_than_key", "INNER join on l.k = r.k, the left primary key (k, id)"
                        + " wider than the join key (InputSideHasUniqueKey with a two-column"
                        + " unique key), the right primary key (k, s) too; 60 random events",
                List.of("k", "id"), List.of("k", "s"))
                .on("INNER", "l.k = r.k")
                .layouts(Layout.UNIQUE, Layout.UNIQUE)
                .random(60, pools(FEW_KEYS, SMALL_STRINGS_NULL, new Object[] {0, 1, 2}, LONGS),
                        pools(FEW_KEYS, SMALL_STRINGS, DUPS, LONGS));
    }

    static Scenario nullSafeLeft(String name) {
        return standard(name, "LEFT join on l.k IS NOT DISTINCT FROM r.k: a null-safe key"
                        + " (filter_nulls false), NULL keys match each other; 60 random events"
                        + " over updating sides without primary keys", Layout.NONE,
                Layout.NONE)
                .on("LEFT", "l.k IS NOT DISTINCT FROM r.k")
                .layouts(Layout.NONE, Layout.NONE)
                .random(60, kiv(Layout.NONE, NULL_HEAVY_KEYS), kiv(Layout.NONE, NULL_HEAVY_KEYS));
    }

    static Scenario nullSafeMixed() {
        return ks("null_safe_mixed", "FULL join on l.k = r.k AND l.s IS NOT DISTINCT FROM r.s:"
                        + " filter_nulls [true, false], a NULL k never matches, a NULL s matches"
                        + " a NULL s; 60 random events without primary keys", List.of(),
                List.of())
                .on("FULL", "l.k = r.k AND l.s IS NOT DISTINCT FROM r.s")
                .layouts(Layout.NONE, Layout.NONE)
                .random(60, pools(new Object[] {1, null}, new Object[] {"a", null, null}, DUPS,
                                LONGS),
                        pools(new Object[] {1, null}, new Object[] {"a", null, null}, DUPS,
                                LONGS));
    }

    // ------------------------------------------------------------ insert-only

    static Scenario insertOnly(String name, String joinType) {
        boolean semiAnti = joinType.equals("SEMI") || joinType.equals("ANTI");
        // A semi or anti join's left rows change state on a key's first right row: more keys.
        Object[] keys = semiAnti ? new Object[] {1, 2, 3, 4, 5, 6, null}
                : new Object[] {1, 2, null};
        return standard(name, typeText(joinType) + " on l.k = r.k over two insert-only sides"
                        + " without primary keys, keys " + keysText(keys)
                        + (semiAnti ? ", left rows arriving before and after their key's first"
                                + " right row" : ": many matches per key, repeated rows"),
                Layout.NONE, Layout.NONE)
                .insertOnly(true, true)
                .on(joinType, "l.k = r.k")
                .layouts(Layout.NONE, Layout.NONE)
                .random(50, 3, 2, kiv(Layout.NONE, keys), kiv(Layout.NONE, keys));
    }

    static Scenario insertOnlyPk() {
        return standard("left_insert_only_pk", "LEFT join on l.k = r.k, both sides insert-only:"
                        + " the left with primary key id (InputSideHasUniqueKey although it never"
                        + " updates), the right without one; 50 events", Layout.UNIQUE,
                Layout.NONE)
                .insertOnly(true, true)
                .on("LEFT", "l.k = r.k")
                .layouts(Layout.UNIQUE, Layout.NONE)
                .random(50, kiv(Layout.UNIQUE, KEYS), kiv(Layout.NONE, KEYS));
    }

    static Scenario insertOnlyJj() {
        return standard("inner_insert_only_jj", "INNER join on l.k = r.k, both sides"
                        + " insert-only with primary key k (one row per key and side, each"
                        + " inserted once), keys 1..12", Layout.JOIN_KEY, Layout.JOIN_KEY)
                .insertOnly(true, true)
                .on("INNER", "l.k = r.k")
                .layouts(Layout.JOIN_KEY, Layout.JOIN_KEY)
                .random(22, kiv(Layout.JOIN_KEY, range(1, 12)),
                        kiv(Layout.JOIN_KEY, range(1, 12)));
    }

    static Object[] range(int from, int to) {
        Object[] out = new Object[to - from + 1];
        for (int i = from; i <= to; i++) {
            out[i - from] = i;
        }
        return out;
    }

    static Scenario rightMixedModes() {
        return standard("right_mixed_modes", "RIGHT join on l.k = r.k: an insert-only left side"
                        + " without a key against an updating right side keyed by k; 60 random"
                        + " events", Layout.NONE, Layout.JOIN_KEY)
                .insertOnly(true, false)
                .on("RIGHT", "l.k = r.k")
                .layouts(Layout.NONE, Layout.JOIN_KEY)
                .random(60, kiv(Layout.NONE, KEYS), kiv(Layout.JOIN_KEY, KEYS));
    }

    // ------------------------------------------------------------ traced

    static Scenario leftPaddingTraced(String name) {
        Scenario s = standard(name, "LEFT join on l.k = r.k, traced: a padded row gets its first"
                        + " match, more matches (one a repeated right row), loses them one by"
                        + " one back to padding; a padded row updated; a NULL key; an inner-side"
                        + " update that moves a row between keys; the outer side's retraction"
                        + " of a row never inserted; then 40 random events over keys {1, 2}",
                Layout.NONE, Layout.NONE)
                .on("LEFT", "l.k = r.k")
                .layouts(Layout.NONE, Layout.NONE);
        s.ins(LEFT, 1, 0, 10L);
        s.ins(LEFT, 2, 0, 20L);
        s.ins(RIGHT, 1, 0, 100L);   // the first match of [1, 0, 10]
        s.ins(RIGHT, 1, 1, 101L);   // a second match
        s.ins(RIGHT, 1, 1, 101L);   // the same right row again
        s.ins(LEFT, 1, 1, 11L);     // three matches at once
        s.del(RIGHT, 1, 1, 101L);   // one of the repeated rows
        s.del(RIGHT, 1, 0, 100L);
        s.del(RIGHT, 1, 1, 101L);   // the last match: padding again
        s.upd(LEFT, new Object[] {1, 0, 10L}, new Object[] {1, 0, 12L});  // a padded row
        s.ins(LEFT, null, 0, 30L);  // a NULL key: padded, never matches
        s.ins(RIGHT, null, 0, 300L);
        s.upd(RIGHT, new Object[] {null, 0, 300L}, new Object[] {2, 0, 200L});
        s.upd(RIGHT, new Object[] {2, 0, 200L}, new Object[] {2, 0, 201L});
        s.upd(RIGHT, new Object[] {2, 0, 201L}, new Object[] {1, 0, 201L});  // moves key
        s.unknown(LEFT, RowKind.DELETE, 3, 0, 40L);   // never inserted: padded -D
        s.unknown(LEFT, RowKind.DELETE, 1, 5, 50L);   // never inserted, with a match
        s.del(LEFT, null, 0, 30L);
        s.upd(LEFT, new Object[] {2, 0, 20L}, new Object[] {1, 0, 21L});
        s.del(LEFT, 1, 1, 11L);
        return s.random(40, kiv(Layout.NONE, FEW_KEYS), kiv(Layout.NONE, FEW_KEYS));
    }

    static Scenario fullPaddingTraced(String name) {
        Scenario s = standard(name, "FULL join on l.k = r.k, traced: padding flips on both"
                        + " sides (first match, last match gone), an update moving a padded row"
                        + " onto a key with a match, a -U/+U of a row never inserted, NULL keys"
                        + " padded on both sides; then 40 random events over keys {1, 2}",
                Layout.NONE, Layout.NONE)
                .on("FULL", "l.k = r.k")
                .layouts(Layout.NONE, Layout.NONE);
        s.ins(RIGHT, 1, 0, 100L);   // padded right
        s.ins(LEFT, 1, 0, 10L);     // its first match
        s.ins(LEFT, 1, 1, 11L);
        s.del(LEFT, 1, 0, 10L);
        s.del(LEFT, 1, 1, 11L);     // the last match: the right row padded again
        s.ins(LEFT, 2, 0, 20L);     // padded left
        s.upd(RIGHT, new Object[] {1, 0, 100L}, new Object[] {2, 0, 100L});
        s.ins(RIGHT, 2, 1, 101L);
        s.upd(LEFT, new Object[] {2, 0, 20L}, new Object[] {2, 0, 21L});
        s.unknown(RIGHT, RowKind.UPDATE_BEFORE, 3, 0, 300L);
        s.updateAfter(RIGHT, 3, 0, 301L);
        s.ins(LEFT, null, 0, 1L);
        s.ins(RIGHT, null, 0, 2L);
        s.del(RIGHT, 2, 0, 100L);
        s.del(RIGHT, 2, 1, 101L);
        s.del(LEFT, null, 0, 1L);
        return s.random(40, kiv(Layout.NONE, FEW_KEYS), kiv(Layout.NONE, FEW_KEYS));
    }

    static Scenario rightPaddingTraced() {
        Scenario s = standard("right_padding_traced", "RIGHT join on l.k = r.k, left primary"
                        + " key id, right primary key k, traced: right rows padded until a left"
                        + " row arrives, left rows moving between keys (-U at one key, +U at"
                        + " another), a right row updated in place while matched and padded;"
                        + " then 40 random events", Layout.UNIQUE, Layout.JOIN_KEY)
                .on("RIGHT", "l.k = r.k")
                .layouts(Layout.UNIQUE, Layout.JOIN_KEY);
        s.ins(RIGHT, 1, 0, 100L);
        s.ins(RIGHT, 2, 0, 200L);
        s.ins(LEFT, 1, 0, 10L);
        s.ins(LEFT, 1, 1, 11L);
        s.upd(RIGHT, new Object[] {1, 0, 100L}, new Object[] {1, 7, 101L});
        s.upd(LEFT, new Object[] {1, 0, 10L}, new Object[] {2, 0, 10L});
        s.upd(LEFT, new Object[] {1, 1, 11L}, new Object[] {2, 1, 11L});
        s.upd(RIGHT, new Object[] {1, 7, 101L}, new Object[] {1, 8, 102L});
        s.del(RIGHT, 2, 0, 200L);
        s.ins(RIGHT, 2, 0, 201L);
        s.ins(LEFT, null, 2, 12L);
        s.ins(RIGHT, 3, 0, 300L);
        s.del(LEFT, 2, 0, 10L);
        return s.random(40, kiv(Layout.UNIQUE, KEYS), kiv(Layout.JOIN_KEY, KEYS));
    }

    static Scenario semiAntiTraced(String name, String joinType) {
        boolean anti = joinType.equals("ANTI");
        Scenario s = standard(name, typeText(joinType) + " on l.k = r.k, traced: a left row"
                        + " before and after its first match, more matches, the last match"
                        + " retracted by -U and by -D ("
                        + (anti ? "the left row is retracted with -D and emitted again with +I,"
                                + " whatever the right row's kind"
                                : "the left row is emitted with the right row's kind")
                        + "), left updates with and without matches, a right retraction of a"
                        + " row never inserted, NULL keys; then 40 random events over keys"
                        + " {1, 2}", Layout.NONE, Layout.NONE)
                .on(joinType, "l.k = r.k")
                .layouts(Layout.NONE, Layout.NONE);
        s.ins(LEFT, 1, 0, 10L);
        s.ins(RIGHT, 1, 0, 0L);     // the first match
        s.ins(RIGHT, 1, 1, 0L);     // another
        s.ins(LEFT, 1, 1, 11L);     // arrives matched
        s.del(RIGHT, 1, 0, 0L);
        s.upd(RIGHT, new Object[] {1, 1, 0L}, new Object[] {2, 1, 0L});  // the last: -U
        s.ins(LEFT, 2, 0, 20L);
        s.upd(LEFT, new Object[] {2, 0, 20L}, new Object[] {2, 0, 21L});
        s.upd(LEFT, new Object[] {1, 1, 11L}, new Object[] {2, 1, 11L});
        s.upd(RIGHT, new Object[] {2, 1, 0L}, new Object[] {1, 1, 0L});
        s.ins(RIGHT, 2, 0, 0L);
        s.del(RIGHT, 2, 0, 0L);     // the last match of key 2: -D
        s.unknown(RIGHT, RowKind.DELETE, 1, 9, 9L);
        s.ins(LEFT, null, 0, 1L);
        s.ins(RIGHT, null, 0, 1L);
        s.del(LEFT, null, 0, 1L);
        s.del(LEFT, 1, 0, 10L);
        return s.random(40, kiv(Layout.NONE, FEW_KEYS), kiv(Layout.NONE, FEW_KEYS));
    }

    static Scenario retractUnknownNn(String name) {
        Scenario s = standard(name, "INNER join on l.k = r.k without primary keys: retractions"
                        + " of rows never inserted (-D and -U, matched and unmatched; Flink"
                        + " still emits their joined retractions), retracting one of repeated"
                        + " rows; then 40 random events that also retract unknown rows",
                Layout.NONE, Layout.NONE)
                .on("INNER", "l.k = r.k")
                .layouts(Layout.NONE, Layout.NONE);
        s.ins(LEFT, 1, 0, 1L);
        s.ins(RIGHT, 1, 0, 2L);
        s.unknown(LEFT, RowKind.DELETE, 1, 1, 9L);
        s.unknown(RIGHT, RowKind.UPDATE_BEFORE, 1, 5, 5L);
        s.updateAfter(RIGHT, 1, 5, 6L);
        s.ins(LEFT, 1, 0, 1L);
        s.del(LEFT, 1, 0, 1L);
        s.unknown(RIGHT, RowKind.DELETE, 2, 0, 0L);
        s.ins(LEFT, 2, 1, 3L);
        s.unknown(LEFT, RowKind.DELETE, 2, 1, 4L);
        s.ins(RIGHT, 2, 1, 5L);
        s.unknown(LEFT, RowKind.UPDATE_BEFORE, 2, 0, 4L);
        s.updateAfter(LEFT, 2, 0, 7L);
        s.random(20, kiv(Layout.NONE, FEW_KEYS), kiv(Layout.NONE, FEW_KEYS));
        for (int i = 0; i < 5; i++) {
            int side = s.rnd.nextInt(2);
            s.unknown(side, RowKind.DELETE, 1 + s.rnd.nextInt(2), 7 + i, (long) i);
            s.random(3, kiv(Layout.NONE, FEW_KEYS), kiv(Layout.NONE, FEW_KEYS));
        }
        return s;
    }

    static Scenario retractUnknownJj() {
        Scenario s = standard("retract_unknown_jj", "FULL join on l.k = r.k, both sides keyed"
                        + " by k: retractions of keys never inserted (matched and unmatched on"
                        + " the other side, a padded row's association count driven below"
                        + " zero as Flink does), then inserts on those keys; then 40 random"
                        + " events", Layout.JOIN_KEY, Layout.JOIN_KEY)
                .on("FULL", "l.k = r.k")
                .layouts(Layout.JOIN_KEY, Layout.JOIN_KEY);
        s.ins(RIGHT, 1, 0, 100L);
        s.unknown(LEFT, RowKind.DELETE, 1, 0, 10L);
        s.ins(LEFT, 1, 1, 11L);
        s.unknown(LEFT, RowKind.DELETE, 2, 0, 20L);
        s.ins(LEFT, 2, 0, 20L);
        s.unknown(RIGHT, RowKind.UPDATE_BEFORE, 2, 0, 200L);
        s.updateAfter(RIGHT, 2, 0, 201L);
        s.del(RIGHT, 1, 0, 100L);
        s.del(LEFT, 1, 1, 11L);
        s.ins(RIGHT, 1, 1, 101L);
        return s.random(40, kiv(Layout.JOIN_KEY, KEYS), kiv(Layout.JOIN_KEY, KEYS));
    }

    static Scenario retractUnknownUu() {
        Scenario s = standard("retract_unknown_uu", "LEFT join on l.k = r.k, both sides keyed"
                        + " by id: retractions of ids never inserted on both sides, with and"
                        + " without matches; then 40 random events", Layout.UNIQUE,
                Layout.UNIQUE)
                .on("LEFT", "l.k = r.k")
                .layouts(Layout.UNIQUE, Layout.UNIQUE);
        s.ins(LEFT, 1, 0, 10L);
        s.ins(RIGHT, 1, 0, 100L);
        s.unknown(RIGHT, RowKind.DELETE, 1, 1, 101L);
        s.unknown(LEFT, RowKind.DELETE, 1, 1, 11L);
        s.unknown(LEFT, RowKind.UPDATE_BEFORE, 2, 2, 22L);
        s.updateAfter(LEFT, 2, 2, 23L);
        s.unknown(RIGHT, RowKind.UPDATE_BEFORE, 2, 3, 200L);
        s.updateAfter(RIGHT, 1, 3, 201L);
        s.del(RIGHT, 1, 0, 100L);
        return s.random(40, kiv(Layout.UNIQUE, FEW_KEYS), (r, n) -> new Object[] {
            NodeVectors.pick(r, FEW_KEYS), 100 + n, NodeVectors.pick(r, LONGS)
        });
    }

    static Scenario duplicates() {
        Scenario s = standard("duplicates", "LEFT join on l.k = r.k without primary keys: a left"
                        + " row inserted three times against two right matches, retracted one"
                        + " copy at a time, right rows repeated too; then 45 random events over"
                        + " one key with repeated rows", Layout.NONE, Layout.NONE)
                .on("LEFT", "l.k = r.k")
                .layouts(Layout.NONE, Layout.NONE);
        s.ins(LEFT, 1, 0, 1L);
        s.ins(LEFT, 1, 0, 1L);
        s.ins(RIGHT, 1, 0, 5L);
        s.ins(LEFT, 1, 0, 1L);
        s.ins(RIGHT, 1, 0, 5L);
        s.del(LEFT, 1, 0, 1L);
        s.del(RIGHT, 1, 0, 5L);
        s.del(RIGHT, 1, 0, 5L);
        s.del(LEFT, 1, 0, 1L);
        s.ins(RIGHT, 1, 0, 5L);
        return s.random(45, pools(new Object[] {1}, DUPS, new Object[] {1L, 2L}),
                pools(new Object[] {1}, DUPS, new Object[] {5L}));
    }

    static Scenario updateInPlaceUu() {
        Scenario s = standard("update_in_place_uu", "INNER join on l.k = r.k, both sides keyed by"
                        + " id: rows updated in place (-U/+U of one id) with a new value and"
                        + " with a new join key (the row leaves one key's state for another),"
                        + " deleted and inserted again; then 50 random events", Layout.UNIQUE,
                Layout.UNIQUE)
                .on("INNER", "l.k = r.k")
                .layouts(Layout.UNIQUE, Layout.UNIQUE);
        s.ins(LEFT, 1, 0, 10L);
        s.ins(RIGHT, 1, 0, 100L);
        s.ins(RIGHT, 1, 1, 101L);
        s.upd(LEFT, new Object[] {1, 0, 10L}, new Object[] {1, 0, 11L});
        s.upd(RIGHT, new Object[] {1, 1, 101L}, new Object[] {2, 1, 101L});
        s.upd(LEFT, new Object[] {1, 0, 11L}, new Object[] {2, 0, 11L});
        s.del(RIGHT, 2, 1, 101L);
        s.ins(RIGHT, 2, 1, 102L);
        return s.random(50, (r, n) -> new Object[] {
            NodeVectors.pick(r, KEYS), r.nextInt(4), NodeVectors.pick(r, LONGS)
        }, (r, n) -> new Object[] {
            NodeVectors.pick(r, KEYS), r.nextInt(4), NodeVectors.pick(r, LONGS)
        });
    }

    static Scenario updateInPlaceJj() {
        Scenario s = standard("update_in_place_jj", "FULL join on l.k = r.k, both sides keyed by"
                        + " k: each key's row updated in place while matched and while padded,"
                        + " deleted and inserted again; then 50 random events", Layout.JOIN_KEY,
                Layout.JOIN_KEY)
                .on("FULL", "l.k = r.k")
                .layouts(Layout.JOIN_KEY, Layout.JOIN_KEY);
        s.ins(LEFT, 1, 0, 10L);
        s.upd(LEFT, new Object[] {1, 0, 10L}, new Object[] {1, 1, 11L});
        s.ins(RIGHT, 1, 0, 100L);
        s.upd(RIGHT, new Object[] {1, 0, 100L}, new Object[] {1, 0, 101L});
        s.upd(LEFT, new Object[] {1, 1, 11L}, new Object[] {1, 1, null});
        s.del(LEFT, 1, 1, null);
        s.ins(LEFT, 1, 2, 12L);
        return s.random(50, pools(KEYS_NOT_NULL, new Object[] {0, 1, 2}, LONGS),
                pools(KEYS_NOT_NULL, new Object[] {0, 1, 2}, LONGS));
    }

    // ------------------------------------------------------------ non-equi

    static Scenario nonEquiLeft(String name) {
        return standard(name, "LEFT join on l.k = r.k AND l.v > r.w, left primary key id: the"
                        + " condition decides the matches, so updates of v or w flip padding"
                        + " without changing keys, NULL v or w never matches; 60 random events",
                Layout.UNIQUE, Layout.NONE)
                .on("LEFT", "l.k = r.k AND l.v > r.w")
                .layouts(Layout.UNIQUE, Layout.NONE)
                .random(60, kiv(Layout.UNIQUE, FEW_KEYS), kiv(Layout.NONE, FEW_KEYS));
    }

    static Scenario nonEquiInner() {
        return standard("nonequi_inner", "INNER join on l.k = r.k AND l.v > r.w without primary"
                        + " keys; 60 random events", Layout.NONE, Layout.NONE)
                .on("INNER", "l.k = r.k AND l.v > r.w")
                .layouts(Layout.NONE, Layout.NONE)
                .random(60, kiv(Layout.NONE, FEW_KEYS), kiv(Layout.NONE, FEW_KEYS));
    }

    static Scenario nonEquiStrings() {
        return new Scenario("nonequi_strings", "FULL join on l.k = r.k AND l.s < r.t over"
                        + " strings: Flink compares STRING by UTF-8 bytes (U+FF5E sorts before"
                        + " an emoji, against UTF-16 order), combining accents, NUL, NULL never"
                        + " matches; 60 random events without primary keys")
                .left("k", DataTypes.INT()).left("s", DataTypes.STRING())
                .right("k", DataTypes.INT()).right("t", DataTypes.STRING())
                .on("FULL", "l.k = r.k AND l.s < r.t")
                .layouts(Layout.NONE, Layout.NONE)
                .random(60, pools(FEW_KEYS, STRINGS), pools(FEW_KEYS, STRINGS));
    }

    static Scenario nonEquiOnly(String name, String joinType) {
        return standard(name, joinType + " join on l.v > r.w alone: no equality keys, every row"
                        + " under one (empty) state key; 50 random events without primary keys",
                Layout.NONE, Layout.NONE)
                .on(joinType, "l.v > r.w")
                .layouts(Layout.NONE, Layout.NONE)
                .random(50, kiv(Layout.NONE, KEYS), kiv(Layout.NONE, KEYS));
    }

    static Scenario antiNonEqui() {
        return standard("anti_nonequi", "anti join NOT EXISTS (.. l.k = r.k AND l.v > r.w), left"
                        + " primary key id, right input (k, w) without a key: a left row is"
                        + " emitted while no right row of its key has a smaller w; 60 random"
                        + " events", Layout.UNIQUE, Layout.NONE)
                .on("ANTI", "l.k = r.k AND l.v > r.w")
                .layouts(Layout.UNIQUE, Layout.NONE)
                .random(60, kiv(Layout.UNIQUE, FEW_KEYS), kiv(Layout.NONE, FEW_KEYS));
    }

    static Scenario semiNonEqui() {
        return standard("semi_nonequi", "semi join EXISTS (.. l.k = r.k AND l.v > r.w), left"
                        + " primary key k, right input (k, w) without a key; 60 random events",
                Layout.JOIN_KEY, Layout.NONE)
                .on("SEMI", "l.k = r.k AND l.v > r.w")
                .layouts(Layout.JOIN_KEY, Layout.NONE)
                .random(60, pools(FEW_KEYS, DUPS, new Object[] {1L, 5L, 9L, null}),
                        pools(FEW_KEYS, DUPS, new Object[] {0L, 5L, -7L, null}));
    }

    // ------------------------------------------------------------ types

    /**
     * Columns (k, id INT, a) and (k, id INT, b) without primary keys, joined on {@code l.k =
     * r.k}: k of {@code keyType} from {@code keys}, a and b values of their types.
     */
    static Scenario typed(String name, String joinType, String description, DataType keyType,
            Object[] keys, DataType leftType, Object[] leftValues, DataType rightType,
            Object[] rightValues) {
        return new Scenario(name, description)
                .left("k", keyType).left("id", DataTypes.INT()).left("a", leftType)
                .right("k", keyType).right("id", DataTypes.INT()).right("b", rightType)
                .on(joinType, "l.k = r.k")
                .layouts(Layout.NONE, Layout.NONE)
                .random(60, pools(keys, DUPS, leftValues), pools(keys, DUPS, rightValues));
    }

    static Scenario keyString(String name) {
        return typed(name, "LEFT", "LEFT join on STRING keys (empty, non-ASCII, an emoji, a"
                        + " combining accent against its precomposed form: different keys,"
                        + " NULL), TIMESTAMP(3) and DOUBLE values; 60 random events without"
                        + " primary keys", DataTypes.STRING(), STRING_KEYS, DataTypes.TIMESTAMP(3),
                TIMESTAMPS, DataTypes.DOUBLE(), DOUBLES);
    }

    static Scenario keyWideDecimal(String name) {
        return typed(name, "INNER", "INNER join on DECIMAL(38, 18) keys (non-compact), BIGINT and"
                        + " STRING values; 60 random events without primary keys",
                DataTypes.DECIMAL(38, 18), new Object[] {WIDE_DECIMALS[1], WIDE_DECIMALS[2],
                    WIDE_DECIMALS[3], null},
                DataTypes.BIGINT(), BIGINTS, DataTypes.STRING(), STRINGS);
    }

    static Scenario keyBigint() {
        return typed("key_bigint", "INNER", "INNER join on BIGINT keys (0, the extremes, NULL),"
                        + " DECIMAL(10, 2) and STRING values; 60 random events without primary"
                        + " keys", DataTypes.BIGINT(), new Object[] {0L, Long.MIN_VALUE,
                    Long.MAX_VALUE, null},
                DataTypes.DECIMAL(10, 2), DECIMALS, DataTypes.STRING(), STRINGS);
    }

    static Scenario keyDecimal() {
        return typed("key_decimal", "FULL", "FULL join on DECIMAL(10, 2) keys (compact), DOUBLE"
                        + " and BOOLEAN values; 60 random events without primary keys",
                DataTypes.DECIMAL(10, 2), DECIMAL_KEYS, DataTypes.DOUBLE(), DOUBLES,
                DataTypes.BOOLEAN(), BOOLEANS);
    }

    static Scenario keyDouble() {
        return typed("key_double", "FULL", "FULL join on DOUBLE keys: Flink keys by the value's"
                        + " bytes, so 0.0 and -0.0 are different keys and never match, and NaN"
                        + " matches NaN; INT values; 60 random events without primary keys",
                DataTypes.DOUBLE(), DOUBLE_KEYS, DataTypes.INT(), INTS, DataTypes.INT(), INTS);
    }

    static Scenario keyTimestamp() {
        return typed("key_timestamp", "RIGHT", "RIGHT join on TIMESTAMP(3) keys (before 1970, one"
                        + " millisecond apart, NULL), DECIMAL(38, 18) and BIGINT values; 60"
                        + " random events without primary keys", DataTypes.TIMESTAMP(3),
                TIMESTAMP_KEYS, DataTypes.DECIMAL(38, 18), WIDE_DECIMALS, DataTypes.BIGINT(),
                BIGINTS);
    }

    static Scenario keyBoolean() {
        return typed("key_boolean", "LEFT", "LEFT join on BOOLEAN keys (two values and NULL: many"
                        + " matches), STRING and BOOLEAN values; 60 random events without"
                        + " primary keys", DataTypes.BOOLEAN(), BOOLEANS, DataTypes.STRING(),
                STRINGS, DataTypes.BOOLEAN(), BOOLEANS);
    }

    static Scenario valuesAllTypes(String name) {
        return new Scenario(name, "LEFT join on INT keys, left primary key id, values of every"
                        + " type on both sides (INT, BIGINT, STRING, DOUBLE, DECIMAL(10, 2),"
                        + " DECIMAL(38, 18), TIMESTAMP(3), BOOLEAN; NOT NULL id); 60 random events")
                .left("k", DataTypes.INT()).left("id", DataTypes.INT().notNull())
                .left("i", DataTypes.INT()).left("l", DataTypes.BIGINT())
                .left("s", DataTypes.STRING()).left("d", DataTypes.DOUBLE())
                .left("m", DataTypes.DECIMAL(10, 2)).left("x", DataTypes.DECIMAL(38, 18))
                .left("t", DataTypes.TIMESTAMP(3)).left("b", DataTypes.BOOLEAN())
                .leftKey("id")
                .right("k", DataTypes.INT()).right("s", DataTypes.STRING())
                .right("d", DataTypes.DOUBLE()).right("m", DataTypes.DECIMAL(10, 2))
                .right("x", DataTypes.DECIMAL(38, 18)).right("t", DataTypes.TIMESTAMP(3))
                .right("b", DataTypes.BOOLEAN()).right("l", DataTypes.BIGINT())
                .on("LEFT", "l.k = r.k")
                .layouts(Layout.UNIQUE, Layout.NONE)
                .random(60, pools(KEYS, ID, INTS, BIGINTS, STRINGS, DOUBLES, DECIMALS,
                                WIDE_DECIMALS, TIMESTAMPS, BOOLEANS),
                        pools(KEYS, STRINGS, DOUBLES, DECIMALS, WIDE_DECIMALS, TIMESTAMPS,
                                BOOLEANS, BIGINTS));
    }
}
