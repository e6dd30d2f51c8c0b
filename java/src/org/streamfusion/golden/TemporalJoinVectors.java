package org.streamfusion.golden;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.runtime.operators.join.temporal.TemporalRowTimeJoinOperator;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampKind;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

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

/**
 * Golden changelogs of Flink 2.3.0's event-time temporal join ({@code StreamExecTemporalJoin}:
 * {@code L [LEFT] JOIN R FOR SYSTEM_TIME AS OF L.ts ON L.k = R.k [AND ..]} with {@code R} a
 * versioned table: a primary key and a rowtime attribute), produced by the released {@code
 * TemporalRowTimeJoinOperator} fed one event at a time in a fixed order, each event's output
 * recorded right after it. The native temporal join is tested against them ({@code
 * crates/streamfusion/tests/golden/flink-2.3.0-temporal-join.jsonl}).
 *
 * <p>As {@link IntervalJoinVectors} (whose procedure and machinery, {@link TwoInputVectors},
 * this shares): each scenario's query is planned by Flink with {@code streamfusion.enabled} on
 * and no loadable native library, so StreamFusion's planner only describes the node (the
 * description and the options it would hand the native side are recorded); the program checks
 * the node against the operator Flink built (keys, time columns, join type, the non-equi
 * condition's presence, no state retention) and against the scenario; the rows reaching the
 * node's two inputs are read in a MiniCluster job (each table row becomes one node row, or
 * none where the planner drops {@code -U}; a separator watermark after each tells them apart);
 * and the planner's operator, set up as a task sets it up, is driven through the scenario's
 * events: a row calls {@code processElement1} (left, side 0) or {@code processElement2}
 * (right, side 1) with the key selector's key set, a watermark calls {@code
 * processWatermark1} and {@code processWatermark2} with the same value, so the operator's
 * combined watermark is the scenario's. The scenarios of one state backend run in one job.
 * Every scenario has a {@code _rocksdb} twin with the same events; the program checks that
 * each event's outputs are the same multiset on both backends (at one watermark the keys'
 * timers fire in the timer service's order, which for equal times is the backend's).
 *
 * <p>What the released operator does (so the file shows it). Its state is per key (the join
 * keys: Flink keys both inputs by them; there is no NULL filter, so NULL key values are a key
 * like any other, and the planner's {@code filterNulls} is not applied): the left rows, each
 * under the next of a per-key counter (their arrival order), and the right rows under their
 * time, so a right row replaces the one stored at its time, whatever either row's kind. Every
 * row, of either input and any kind, is only stored, and the key's one event-time timer is
 * moved to the row's time when that is earlier than the timer (or the key has none); a timer
 * at or before the current watermark fires at the next watermark advance. When the key's timer
 * fires (the combined watermark {@code W} reaching it): the key's right rows are sorted by
 * time; every left row at or before {@code W} leaves the state and, in arrival order, is
 * joined with the right row of the largest time at or before the left row's time: when that
 * row is {@code +I} or {@code +U} and the join's non-equi condition holds, the output is the
 * left row then the right row, else, for a LEFT join, the left row then NULLs (an INNER join
 * emits nothing), with the left row's kind ({@code +I}, {@code -U}, {@code +U} or {@code -D});
 * so a left row before every stored right row, or whose latest version is a {@code -U} or
 * {@code -D}, gets no match, and an older version is never tried. Then the right rows before
 * the latest one at or before {@code W} are removed (that one and the later ones stay), and
 * the timer is registered again at the earliest left time still stored, if any (right rows
 * alone register none: a key's old versions are removed only when one of its timers fires). A
 * left row at or before the watermark when it arrives (late) is joined at the next watermark
 * advance, with the versions left then. The end-of-input watermark {@code Long.MAX_VALUE}
 * fires every timer. With {@code table.exec.state.ttl} above 1 ms the operator also registers
 * processing-time cleanup timers that clear a key's state; the scenarios have no state TTL
 * (the native side refuses one), but the program checks that with one StreamFusion's planner
 * hands it over ({@link #checkStateTtl}).
 *
 * <p>What the planner makes of the queries. The node's {@code joinSpec} holds the equi keys
 * ({@code leftKeys}, {@code rightKeys}; they must include the right's primary key and may
 * hold more columns, as {@code left_null_key_columns}'s do) and a {@code nonEquiCondition}
 * that is null without other conditions, else the other conditions and the literal {@code
 * TRUE} that replaced the temporal condition ({@code AND(>($1, $5), true)} for {@code L.v >
 * R.v} over two inputs (k, v, id, ts)); a condition on one side only stays in it too. The
 * right input of a changelog table reaches the node as {@code +I}, {@code +U} and {@code -D}
 * only: the join prefers no {@code -U} on the right, and the planner drops them after the
 * source ({@code DropUpdateBefore}); {@code -U} reach it only where an operator before the
 * join needs them (the scenarios' versions {@link Versions#RETRACT}: a view filtering on a
 * non-key column). The left input carries what the query's consumer needs: {@code
 * toChangelogStream} (retract mode) needs {@code -U}, so a changelog left's {@code -U} reach
 * the join. There is no {@code ChangelogNormalize}.
 *
 * <p>Usage: {@code TemporalJoinVectors <output path> [scenario..]} (all scenarios when none
 * are named), on the planner classpath ({@code classpath-planner.txt}). Output is JSON Lines
 * (UTF-8, LF):
 *
 * <ul>
 *   <li>line 1: {@code {"flink":"2.3.0","seed":"0x..","generator":"java/src/org/streamfusion/
 *       golden/TemporalJoinVectors.java","format":..}};
 *   <li>per scenario, a header {@code {"scenario":name,"description":..,"join_type":"INNER"|
 *       "LEFT","zone":..,"backend":"hashmap"|"rocksdb","operator":
 *       "TemporalRowTimeJoinOperator","left_keys":[..],"right_keys":[..],"filter_nulls":[..],
 *       "left_time":i,"right_time":j,"state_ttl_ms":0,"node":<description text>,"config":
 *       <options text>,"left":[{"name":..,"type":..}..],"right":[..],"output":[..],"sql":..,
 *       "plan":..,"events":n,"rows_out":m}}: {@code left} and {@code right} are the node's
 *       input rows, {@code output} the operator's (the left row then the right row), keys and
 *       times column indexes into a side's row ({@code left_time} and {@code right_time} the
 *       operator's {@code leftTimeAttribute} and {@code rightTimeAttribute}), {@code
 *       filter_nulls} the node's (which the operator does not apply), {@code state_ttl_ms} the
 *       operator's minimum retention time, {@code plan} the translated query's operators;
 *   <li>then n events, each {@code {"in":"+I"|"-U"|"+U"|"-D","side":0|1,"row":[..]}} (side 0
 *       the left input) or {@code {"watermark":ms}} (both inputs), each immediately followed by
 *       the lines {@code {"out":kind,"row":[..]}} the operator emitted for it, in emission
 *       order ({@code m} in all). Some scenarios end with the watermark {@code Long.MAX_VALUE}
 *       (the end of input), others with rows still stored.
 * </ul>
 *
 * <p>Types and values as {@link JoinVectors} writes them (types without nullability and time
 * attributes; TIMESTAMP(3) and TIMESTAMP_LTZ(3) as epoch milliseconds). Every scenario's rows
 * come from the project's seed and its name (without {@code _rocksdb}), so two runs write
 * byte-identical files.
 */
public final class TemporalJoinVectors {
    static final String GENERATOR = "java/src/org/streamfusion/golden/TemporalJoinVectors.java";
    static final String NODE_TYPE = "stream-exec-temporal-join_1";
    static final String STATE_TTL = "table.exec.state.ttl";
    static final String[] BACKENDS = {"hashmap", "rocksdb"};
    static final long BASE_MS = NodeVectors.BASE_MS;

    private TemporalJoinVectors() {}

    /** How the versioned table {@code R} reaches the join. */
    enum Versions {
        /** An insert-only table with a primary key: every row a new version ({@code +I}). */
        APPEND,
        /**
         * A changelog ({@code +I}, {@code -U}, {@code +U}, {@code -D}) whose {@code -U} the
         * planner drops before the join ({@code DropUpdateBefore}).
         */
        UPSERT,
        /**
         * The changelog through a view that filters on a non-key column ({@code id >= 0}, true
         * of every row): the filter needs the {@code -U}, so they reach the join.
         */
        RETRACT
    }

    /** A scenario: the two tables, the query, and the events. */
    static final class Scenario {
        final String name;
        final String description;
        final SplittableRandom rnd;
        String backend = "hashmap";
        String zone = "UTC";
        boolean ltz;
        /** INNER or LEFT. */
        String joinType = "INNER";
        /** The key condition. */
        String keys = "L.k = R.k";
        /** More conditions (may be empty). */
        String extra = "";
        /** The outer select list, or null for every column of the joined sides. */
        String select;
        /** The versioned table's primary key. */
        List<String> primaryKey = List.of("k");
        Versions versions = Versions.APPEND;
        /** Whether the left table is a changelog ({@code ChangelogMode.all()}). */
        boolean leftChangelog;
        /** Whether the last event is the end-of-input watermark. */
        boolean endOfInput = true;
        /**
         * {@code table.exec.state.ttl} in ms (only for {@link
         * TemporalJoinVectors#checkStateTtl}).
         */
        long stateTtlMs;
        /** The table columns before {@code id} and {@code ts}. */
        final List<JoinVectors.Column> left = new ArrayList<>();
        final List<JoinVectors.Column> right = new ArrayList<>();
        final List<Event> events = new ArrayList<>();
        /** The last watermark, epoch ms. */
        long lastWatermark = NO_WATERMARK;
        /** The changelog tables' live rows: the left's, and the right's by primary key. */
        final List<Object[]> liveLeft = new ArrayList<>();
        final Map<List<Object>, Object[]> liveRight = new LinkedHashMap<>();

        Scenario(String name, String description) {
            this.name = name;
            this.description = description;
            // A scenario and its RocksDB twin draw the same rows.
            this.rnd = new SplittableRandom(
                    GroupAggVectors.SEED ^ name.replace("_rocksdb", "").hashCode());
        }

        Scenario backend(String backend) {
            this.backend = backend;
            return this;
        }

        Scenario zone(String zone) {
            this.zone = zone;
            return this;
        }

        Scenario ltz(String zone) {
            this.ltz = true;
            this.zone = zone;
            return this;
        }

        Scenario join(String joinType) {
            this.joinType = joinType;
            return this;
        }

        Scenario keys(String keys) {
            this.keys = keys;
            return this;
        }

        Scenario extra(String extra) {
            this.extra = extra;
            return this;
        }

        Scenario select(String select) {
            this.select = select;
            return this;
        }

        Scenario primaryKey(String... columns) {
            this.primaryKey = List.of(columns);
            return this;
        }

        Scenario versions(Versions versions) {
            this.versions = versions;
            return this;
        }

        Scenario leftChangelog() {
            this.leftChangelog = true;
            return this;
        }

        Scenario endOfInput(boolean end) {
            this.endOfInput = end;
            return this;
        }

        Scenario stateTtl(long ms) {
            this.stateTtlMs = ms;
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

        /** Both tables: the columns (k INT, v BIGINT), the right's k NOT NULL (its key). */
        Scenario kv() {
            return left("k", DataTypes.INT()).left("v", DataTypes.BIGINT())
                    .right("k", DataTypes.INT().notNull()).right("v", DataTypes.BIGINT());
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

        /** Whether the side's table is a changelog. */
        boolean changelog(int side) {
            return side == LEFT ? leftChangelog : versions != Versions.APPEND;
        }

        /**
         * Whether the planner drops the side's {@code -U} before the join: the right's where
         * nothing before the join needs them (the left's reach it: the query's retract-mode
         * consumer needs them).
         */
        boolean dropsBefore(int side) {
            return side == RIGHT && versions == Versions.UPSERT;
        }

        /** An insertion of {@code side} at {@code at} ms after {@link NodeVectors#BASE}. */
        Scenario at(int side, long at, Object... values) {
            return change(side, RowKind.INSERT, at, values);
        }

        /**
         * A row of kind {@code kind} of {@code side} at {@code at} ms after {@link
         * NodeVectors#BASE}: its values, then its id (the event's index) and its rowtime.
         */
        Scenario change(int side, RowKind kind, long at, Object... values) {
            return changeEpoch(side, kind, BASE_MS + at, values);
        }

        Scenario changeEpoch(int side, RowKind kind, long ms, Object... values) {
            if (values.length != columns(side).size()) {
                throw new IllegalArgumentException(name + ": a row of " + values.length
                        + " values for " + columns(side).size() + " columns");
            }
            Object[] row = Arrays.copyOf(values, values.length + 2);
            row[values.length] = events.size();
            row[values.length + 1] = ltz ? Instant.ofEpochMilli(ms)
                    : NodeVectors.epochTimestamp(ms);
            return emit(side, kind, row);
        }

        /**
         * The side's last row whose first column is {@code key} again, all its columns (its id
         * and time too), as a {@code kind} row: a retraction of exactly that row.
         */
        Scenario retract(int side, RowKind kind, Object key) {
            for (int i = events.size() - 1; i >= 0; i--) {
                Event e = events.get(i);
                if (e.side() == side && Objects.equals(e.values()[0], key)) {
                    return emit(side, kind, e.values().clone());
                }
            }
            throw new IllegalArgumentException(name + ": no row of key " + key);
        }

        /**
         * Adds the row; keeps the changelog tables' live rows (a side's rows inserted and not
         * retracted, the right's by primary key).
         */
        private Scenario emit(int side, RowKind kind, Object[] row) {
            if (kind != RowKind.INSERT && !changelog(side)) {
                throw new IllegalArgumentException(name + ": a " + kind + " row on insert-only"
                        + " side " + side);
            }
            events.add(new Event(side, kind, row, 0));
            boolean accumulate = kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER;
            if (side == LEFT && accumulate) {
                liveLeft.add(row);
            } else if (side == LEFT) {
                liveLeft.removeIf(live -> Arrays.equals(live, row));
            } else if (accumulate) {
                liveRight.put(key(row), row);
            } else {
                liveRight.remove(key(row));
            }
            return this;
        }

        /** A watermark of both inputs, {@code at} ms after {@link NodeVectors#BASE}. */
        Scenario wm(long at) {
            return wmEpoch(BASE_MS + at);
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

        /** The primary key of right row {@code row} (its table columns). */
        List<Object> key(Object[] row) {
            List<Object> key = new ArrayList<>();
            for (String column : primaryKey) {
                for (int i = 0; i < right.size(); i++) {
                    if (right.get(i).name().equals(column)) {
                        key.add(row[i]);
                    }
                }
            }
            return key;
        }

        /**
         * One random row of {@code side} with {@code values} at {@code ms} (epoch): on an
         * insert-only side an insertion; on the changelog left, one time in three (when rows
         * are live) a live row's update ({@code -U} of it as it was, {@code +U} of the new
         * values at {@code ms}) or deletion ({@code -D} of it as it was), else an insertion;
         * on the changelog right, an insertion where the key is not live, else one time in four
         * its deletion ({@code -D} of its values at {@code ms}), else its update ({@code -U} of
         * it as it was, {@code +U} of the new values at {@code ms}).
         */
        void randomRow(int side, Object[] values, long ms) {
            if (!changelog(side)) {
                changeEpoch(side, RowKind.INSERT, ms, values);
            } else if (side == LEFT) {
                if (!liveLeft.isEmpty() && rnd.nextInt(3) == 0) {
                    Object[] old = liveLeft.get(rnd.nextInt(liveLeft.size()));
                    if (rnd.nextBoolean()) {
                        emit(LEFT, RowKind.DELETE, old);
                    } else {
                        emit(LEFT, RowKind.UPDATE_BEFORE, old);
                        changeEpoch(LEFT, RowKind.UPDATE_AFTER, ms, values);
                    }
                } else {
                    changeEpoch(LEFT, RowKind.INSERT, ms, values);
                }
            } else {
                Object[] old = liveRight.get(key(values));
                if (old == null) {
                    changeEpoch(RIGHT, RowKind.INSERT, ms, values);
                } else if (rnd.nextInt(4) == 0) {
                    changeEpoch(RIGHT, RowKind.DELETE, ms, Arrays.copyOf(old, values.length));
                } else {
                    emit(RIGHT, RowKind.UPDATE_BEFORE, old);
                    changeEpoch(RIGHT, RowKind.UPDATE_AFTER, ms, values);
                }
            }
        }

        /**
         * {@code rows} more random rows, each on a random side, from {@code from} (epoch ms)
         * on, {@code step} ms apart on average: one in twelve behind the last watermark by up
         * to three times {@code jitter} (late), one in twelve exactly at it, one in twelve at
         * the previous row's time, the rest out of order by up to {@code jitter} ms; after
         * about every fifth row a watermark {@code lag} ms behind the largest row time.
         */
        Scenario stream(int rows, long from, long step, long jitter, long lag, RowMaker lefts,
                RowMaker rights) {
            long max = lastWatermark == NO_WATERMARK ? Long.MIN_VALUE : lastWatermark + lag;
            long previous = from;
            for (int n = 0; n < rows; n++) {
                int side = rnd.nextInt(2);
                Object[] values = (side == LEFT ? lefts : rights).row(rnd, n);
                int dice = rnd.nextInt(12);
                long at;
                if (dice == 0 && lastWatermark != NO_WATERMARK) {
                    at = lastWatermark - 1 - rnd.nextLong(3 * jitter);
                } else if (dice == 1 && lastWatermark != NO_WATERMARK) {
                    at = lastWatermark;
                } else if (dice == 2 && n > 0) {
                    at = previous;
                } else {
                    at = from + step * n - rnd.nextLong(jitter);
                }
                randomRow(side, values, at);
                previous = at;
                max = Math.max(max, at);
                if (rnd.nextInt(5) == 0 && max - lag > lastWatermark) {
                    wmEpoch(max - lag);
                }
            }
            return this;
        }

        /**
         * {@link #stream} on a scale of a second: from half a second after the last watermark
         * (or {@link NodeVectors#BASE}), rows 100 ms apart, out of order by up to a second,
         * watermarks half a second behind.
         */
        Scenario random(int rows, RowMaker lefts, RowMaker rights) {
            long from = lastWatermark == NO_WATERMARK ? BASE_MS : lastWatermark + 500;
            return stream(rows, from, 100, 1000, 500, lefts, rights);
        }

        /** The time column's type in SQL. */
        String timeType() {
            return ltz ? "TIMESTAMP_LTZ(3)" : "TIMESTAMP(3)";
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
            return String.join(", ", items);
        }

        /** The join condition: the keys and the rest. */
        String condition() {
            return extra.isEmpty() ? keys : keys + " AND " + extra;
        }

        /** The versioned table's name in the query. */
        String versionedTable() {
            return versions == Versions.RETRACT ? "rhs_filtered" : "rhs";
        }

        String sql() {
            String list = select != null ? select : all(LEFT) + ", " + all(RIGHT);
            return "SELECT " + list + " FROM lhs L " + (joinType.equals("LEFT") ? "LEFT " : "")
                    + "JOIN " + versionedTable() + " FOR SYSTEM_TIME AS OF L.ts AS R ON "
                    + condition();
        }

        /** The description: the query in words, then what the scenario's rows do. */
        String describe() {
            String versioned = switch (versions) {
                case APPEND -> "an insert-only versioned table (primary key " + primaryKey
                        + ")";
                case UPSERT -> "a changelog versioned table (primary key " + primaryKey
                        + "; the planner drops its -U before the join)";
                case RETRACT -> "a changelog versioned table (primary key " + primaryKey
                        + ") through a view filtering on id >= 0 (its -U reach the join)";
            };
            return joinType + " event-time temporal join on " + condition() + " of "
                    + versioned + ", the left " + (leftChangelog ? "a changelog" : "insert-only")
                    + (ltz ? ", a TIMESTAMP_LTZ(3) rowtime in " + zone
                            : zone.equals("UTC") ? "" : ", session time zone " + zone)
                    + ": " + description
                    + (endOfInput ? "; ends with the end-of-input watermark"
                            : "; no end-of-input watermark (rows stay stored)");
        }

        /** The separator watermark after each of side {@code side}'s rows. */
        long[][] schedule(int side) {
            List<long[]> after = new ArrayList<>();
            for (Event e : events) {
                if (!e.isWatermark() && e.side() == side) {
                    after.add(new long[] {SEPARATOR + after.size()});
                }
            }
            return after.toArray(new long[0][]);
        }
    }

    /** A scenario planned: the temporal join operator Flink built and what the file says. */
    static final class Planned extends TwoInputVectors.Planned {
        final Scenario scenario;
        /** The time columns of the two sides. */
        int[] times;
        long stateTtlMs;

        Planned(Scenario scenario, int tag) {
            super(scenario.name, tag);
            this.scenario = scenario;
        }

        @Override
        long[] due(int side) {
            return Arrays.stream(scenario.schedule(side)).flatMapToLong(Arrays::stream)
                    .toArray();
        }

        @Override
        boolean updating() {
            return scenario.leftChangelog || scenario.versions != Versions.APPEND;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: TemporalJoinVectors <output path> [scenario..]");
            System.exit(2);
        }
        List<String> only = Arrays.asList(args).subList(1, args.length);
        // The planner describes the nodes; nothing may run natively: with no loadable native
        // library every node is refused.
        System.setProperty(NativeOperator.LIBRARY_PATH_PROPERTY,
                "/nonexistent/streamfusion-golden-vectors-run-stock/libstreamfusion_jni.so");
        checkStateTtl();
        List<Scenario> scenarios = JoinVectors.select(scenarios(), s -> s.name, only);
        List<Planned> planned = TwoInputVectors.inputs(scenarios, TemporalJoinVectors::plan,
                "temporal-join-inputs");
        for (Planned p : planned) {
            checkKinds(p);
            feed(p);
        }
        for (String backend : BACKENDS) {
            List<Planned> group = new ArrayList<>();
            for (Planned p : planned) {
                if (p.scenario.backend.equals(backend)) {
                    group.add(p);
                }
            }
            if (!group.isEmpty()) {
                TwoInputVectors.run(backend, group, "temporal join");
            }
        }
        TwoInputVectors.compareTwins(planned);

        StringBuilder out = new StringBuilder(1 << 20);
        out.append("{\"flink\":\"2.3.0\",\"seed\":\"0x")
                .append(Long.toHexString(GroupAggVectors.SEED)).append("\",\"generator\":");
        Json.string(out, GENERATOR);
        out.append(",\"format\":");
        Json.string(out, "per scenario: a header line (scenario, description, join_type, zone,"
                + " backend, operator, left_keys, right_keys, filter_nulls (the node's, not"
                + " applied by the operator), left_time and right_time (the operator's"
                + " leftTimeAttribute and rightTimeAttribute), state_ttl_ms, node and config:"
                + " the planner's texts for flink::plan_node, left, right and output columns,"
                + " sql, plan, events, rows_out), then events lines {\"in\":kind,\"side\":0|1,"
                + "\"row\":[..]} or {\"watermark\":ms} (both inputs), each followed by the"
                + " {\"out\":kind,\"row\":[..]} lines emitted for it; BIGINT, DOUBLE"
                + " (Double.toString), DECIMAL (plain) and TIMESTAMP (epoch ms) values are"
                + " strings");
        out.append("}\n");
        int total = 0;
        for (Planned p : planned) {
            write(p, out);
            total += TwoInputVectors.rowsOut(p);
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
     * Plans the scenario's query in {@code tEnv} and returns the temporal join operator Flink
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
        config.set(STATE_TTL, s.stateTtlMs + " ms");
        TwoInputVectors.view(env, tEnv, s.name, s.table(LEFT), s.events, LEFT, s.schedule(LEFT),
                "lhs", List.of(), s.leftChangelog);
        TwoInputVectors.view(env, tEnv, s.name, s.table(RIGHT), s.events, RIGHT,
                s.schedule(RIGHT), "rhs", s.primaryKey, s.versions != Versions.APPEND);
        if (s.versions == Versions.RETRACT) {
            tEnv.dropTemporaryView("rhs_filtered");
            tEnv.createTemporaryView("rhs_filtered",
                    tEnv.sqlQuery("SELECT * FROM rhs WHERE id >= 0"));
        }
        p.sql = s.sql();
        Table result = tEnv.sqlQuery(p.sql);
        DataStream<Row> changes = tEnv.toChangelogStream(result);
        Transformation<?> root = changes.getTransformation();
        p.plan = TwoInputVectors.plan(root);
        // Exactly the released operator.
        TemporalRowTimeJoinOperator operator = TwoInputVectors.joinOperator(p, root,
                "TemporalJoin", TemporalRowTimeJoinOperator.class);
        p.operator = operator;

        TwoInputVectors.decision(p, NODE_TYPE);
        check(p);
        System.err.printf("%s: %s, keys %s/%s, times %s%n", s.name, s.joinType,
                Arrays.toString(p.keys[LEFT]), Arrays.toString(p.keys[RIGHT]),
                Arrays.toString(p.times));
        return p;
    }

    /**
     * Checks the node against the operator Flink built and the scenario (keys, time columns,
     * join type, the non-equi condition's presence, state retention, columns); fills in what
     * the file says.
     */
    static void check(Planned p) throws Exception {
        Scenario s = p.scenario;
        JsonNode description = JoinVectors.JSON.readTree(p.description);
        JsonNode node = description.get("node");
        List<String> problems = new ArrayList<>();
        NodeVectors.expect(problems, node, "type", NODE_TYPE);
        NodeVectors.expect(problems, node, "isTemporalFunctionJoin", "false");
        JsonNode joinSpec = node.get("joinSpec");
        Object operator = p.operator;

        p.keys = new int[][] {JoinVectors.ints(joinSpec.get("leftKeys")),
            JoinVectors.ints(joinSpec.get("rightKeys"))};
        if (p.keys[LEFT].length == 0 || p.keys[LEFT].length != p.keys[RIGHT].length) {
            problems.add("keys " + Arrays.toString(p.keys[LEFT]) + "/"
                    + Arrays.toString(p.keys[RIGHT]));
        }
        TwoInputVectors.columns(p, description, problems);
        JsonNode nulls = joinSpec.get("filterNulls");
        p.filterNulls = new boolean[nulls.size()];
        for (int i = 0; i < p.filterNulls.length; i++) {
            p.filterNulls[i] = nulls.get(i).asBoolean();
        }

        // The join type and the condition.
        NodeVectors.expect(problems, joinSpec, "joinType", s.joinType);
        if ((boolean) JoinVectors.field(operator, "isLeftOuterJoin")
                != s.joinType.equals("LEFT")) {
            problems.add("isLeftOuterJoin " + JoinVectors.field(operator, "isLeftOuterJoin"));
        }
        if (joinSpec.get("nonEquiCondition").isNull() != s.extra.isEmpty()) {
            problems.add("nonEquiCondition " + joinSpec.get("nonEquiCondition") + " for the"
                    + " conditions besides the keys: " + s.extra);
        }

        // The time columns: the operator's, the node's, rowtime attributes named ts.
        p.times = new int[] {node.get("leftTimeAttributeIndex").asInt(),
            node.get("rightTimeAttributeIndex").asInt()};
        String[] timeFields = {"leftTimeAttribute", "rightTimeAttribute"};
        for (int side = 0; side < 2; side++) {
            int at = (int) JoinVectors.field(operator, timeFields[side]);
            if (at != p.times[side]) {
                problems.add(timeFields[side] + " " + at + ", the node's " + p.times[side]);
            }
            RowType type = ((InternalTypeInfo<?>) p.transformation.getInputs().get(side)
                    .getOutputType()).toRowType();
            LogicalType time = type.getTypeAt(p.times[side]);
            boolean rowtime = time instanceof TimestampType ts
                    ? ts.getKind() == TimestampKind.ROWTIME && ts.getPrecision() == 3
                    : time instanceof LocalZonedTimestampType ltz
                            && ltz.getKind() == TimestampKind.ROWTIME
                            && ltz.getPrecision() == 3;
            if (!rowtime || !type.getFieldNames().get(p.times[side]).equals("ts")) {
                problems.add("time column " + p.times[side] + " of " + type);
            }
        }

        // State retention: the operator's, and what the planner hands over.
        p.stateTtlMs = (long) JoinVectors.field(operator, "minRetentionTime");
        if (p.stateTtlMs != s.stateTtlMs
                || (boolean) JoinVectors.field(operator, "stateCleaningEnabled")
                        != (s.stateTtlMs > 1)) {
            problems.add("min retention time " + p.stateTtlMs + " (cleaning "
                    + JoinVectors.field(operator, "stateCleaningEnabled") + "), the scenario's "
                    + s.stateTtlMs);
        }
        JsonNode options = JoinVectors.JSON.readTree(p.config);
        NodeVectors.expect(problems, options, STATE_TTL, s.stateTtlMs + " ms");
        NodeVectors.expect(problems, options, "table.local-time-zone", s.zone);

        if (!node.path("description").asText().startsWith("TemporalJoin(")) {
            problems.add("not a temporal join: " + node.path("description"));
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(s.name + ": the temporal join is not what the"
                    + " scenario asks for: " + problems + " in " + p.description);
        }
    }

    /**
     * Fails unless StreamFusion's planner hands a temporal join's state TTL to the native side
     * and Flink's operator was built with it: plans (without running) a query with {@code
     * table.exec.state.ttl} of an hour in an environment of its own.
     */
    static void checkStateTtl() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        Scenario s = kvScenario("state_ttl", "a row on each side", "LEFT", "hashmap")
                .stateTtl(3_600_000)
                .at(LEFT, 0, 1, 1L)
                .at(RIGHT, 0, 1, 2L);
        Planned p = plan(env, tEnv, s, 0);
        System.err.printf("state_ttl: the planner hands over %s%n", p.config);
    }

    /**
     * Fails unless every table row of {@code p} reached its node input as one row of its kind,
     * except the {@code -U} of a side whose {@code -U} the planner drops ({@link
     * Scenario#dropsBefore}), which reach it as none.
     */
    static void checkKinds(Planned p) {
        Scenario s = p.scenario;
        int[] seen = new int[2];
        for (Event e : s.events) {
            if (e.isWatermark()) {
                continue;
            }
            List<byte[]> rows = p.segments.get(e.side()).get(seen[e.side()]++);
            boolean dropped = e.kind() == RowKind.UPDATE_BEFORE && s.dropsBefore(e.side());
            if (rows.size() != (dropped ? 0 : 1) || !dropped
                    && TwoInputVectors.external(p, e.side(), rows.get(0)).getKind()
                            != e.kind()) {
                throw new IllegalStateException(s.name + ": table row " + e.kind() + " "
                        + Arrays.toString(e.values()) + " of side " + e.side() + " became "
                        + rows.size() + " node rows (" + (dropped ? "none" : "one of its kind")
                        + " expected) in " + p.plan);
            }
        }
    }

    /** The scenario's node rows and watermarks, the end of input if asked. */
    static void feed(Planned p) throws Exception {
        Scenario s = p.scenario;
        List<Integer> sides = new ArrayList<>();
        List<byte[]> rows = new ArrayList<>();
        List<Long> watermarks = new ArrayList<>();
        TwoInputVectors.rowFeed(p, s.events, s::table, sides, rows, watermarks);
        if (s.endOfInput) {
            sides.add(-1);
            rows.add(null);
            watermarks.add(END_OF_INPUT);
        }
        TwoInputVectors.feed(p, sides, rows, watermarks);
    }

    // ---------------------------------------------------------------- writing

    static void write(Planned p, StringBuilder out) {
        Scenario s = p.scenario;
        out.append("{\"scenario\":");
        Json.string(out, s.name);
        out.append(",\"description\":");
        Json.string(out, s.describe());
        out.append(",\"join_type\":");
        Json.string(out, s.joinType);
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
        out.append("],\"left_time\":").append(p.times[LEFT])
                .append(",\"right_time\":").append(p.times[RIGHT])
                .append(",\"state_ttl_ms\":").append(p.stateTtlMs)
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
                .append(TwoInputVectors.rowsOut(p)).append("}\n");
        TwoInputVectors.writeEvents(p, out);
    }

    // ---------------------------------------------------------------- scenarios

    /** Left keys (with NULL, which no version has) and the versioned table's (a key 4 only). */
    static final Object[] LEFT_KEYS = {1, 2, 3, null};
    static final Object[] RIGHT_KEYS = {1, 2, 3, 4};
    static final Object[] LONGS = {null, 0L, 1L, 5L, -7L, 42L};
    static final Object[] STRINGS = {"a", "b", "c", null};
    static final Object[] KEY_STRINGS = {"a", "b"};
    static final String RANDOM = "random rows: left keys 1, 2, 3 and NULL, versions of keys 1"
            + " to 4, values with NULL, out of order, equal times, late (behind the watermark)"
            + " and at the watermark";

    /** Random (k, v) rows: keys {@code keys}, values from {@link #LONGS}. */
    static RowMaker kv(Object[] keys) {
        return (r, n) -> new Object[] {NodeVectors.pick(r, keys), NodeVectors.pick(r, LONGS)};
    }

    /** The (k, v) tables joined by {@code joinType} on {@code L.k = R.k}. */
    static Scenario kvScenario(String name, String description, String joinType,
            String backend) {
        return new Scenario(name, description).kv().join(joinType).backend(backend);
    }

    static List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        for (String backend : BACKENDS) {
            String x = NodeVectors.suffix(backend);
            list.add(traced("inner_traced" + x, "INNER", backend));
            list.add(traced("left_traced" + x, "LEFT", backend).endOfInput(false));
            list.add(random("inner_random" + x, "INNER", Versions.APPEND, backend)
                    .endOfInput(false));
            list.add(random("left_random" + x, "LEFT", Versions.APPEND, backend));
            list.add(cleanup("left_cleanup" + x, backend));
            list.add(nonEqui("left_nonequi" + x, backend));
            list.add(stringCondition("left_string_condition" + x, backend).endOfInput(false));
            list.add(twoKeys("left_two_keys" + x, backend));
            list.add(nullKeyColumns("left_null_key_columns" + x, backend));
            list.add(changelogTraced("inner_upsert_traced" + x, "INNER", Versions.UPSERT,
                    backend));
            list.add(changelogTraced("left_retract_traced" + x, "LEFT", Versions.RETRACT,
                    backend).endOfInput(false));
            list.add(random("left_upsert_random" + x, "LEFT", Versions.UPSERT, backend));
            list.add(random("inner_retract_random" + x, "INNER", Versions.RETRACT, backend)
                    .endOfInput(false));
            list.add(leftChangelog("left_changelog" + x, "LEFT", Versions.APPEND, backend));
            list.add(leftChangelog("inner_changelog_upsert" + x, "INNER", Versions.UPSERT,
                    backend).endOfInput(false));
            list.add(zoned("left_ltz_shanghai" + x, backend));
            list.add(random("inner_new_york" + x, "INNER", Versions.APPEND, backend)
                    .zone("America/New_York"));
            list.add(hotKey("left_hot_key" + x, backend));
            list.add(epoch("left_epoch" + x, backend));
            list.add(types("left_types" + x, backend));
            list.add(narrow("inner_narrow" + x, backend).endOfInput(false));
        }
        return list;
    }

    /** 120 {@link #RANDOM} (k, v) rows, the versioned table's as {@code versions}. */
    static Scenario random(String name, String joinType, Versions versions, String backend) {
        return kvScenario(name, "120 " + RANDOM, joinType, backend)
                .versions(versions)
                .random(120, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * Traced (k, v) rows, then 60 random ones: versions at and around the left rows' times,
     * two versions of one time (the later replaces the earlier), a left row before every
     * version, a version arriving after a later left row (joined all the same: rows are joined
     * at the watermark), late left rows (joined at the next watermark, with the versions left
     * then, so one older than every kept version gets none), a left-only key, a NULL key, a
     * NULL value, rows waiting for a later watermark.
     */
    static Scenario traced(String name, String joinType, String backend) {
        Scenario s = kvScenario(name, "traced: versions at and around the left rows' times,"
                + " two versions of one time, a left row before every version, a version"
                + " arriving after a later left row, late left rows joined at the next"
                + " watermark (one older than every version kept then), a left-only key, a"
                + " NULL key, a NULL value, rows waiting for a later watermark; then 60 "
                + RANDOM, joinType, backend);
        // What each row does:
        s.at(RIGHT, 1_000, 1, 10L)            // key 1's first version
                .at(RIGHT, 2_000, 1, 20L)
                .at(LEFT, 500, 1, 1L)         // before every version: none (LEFT pads)
                .at(LEFT, 1_000, 1, 2L)       // at a version's time: joins 1000
                .at(LEFT, 1_999, 1, 3L)       // joins 1000
                .at(LEFT, 2_000, 1, 4L)       // joins the version of 2000 stored at the
                .at(RIGHT, 2_000, 1, 21L)     // watermark: this one (it replaced 20)
                .at(LEFT, 1_500, 2, 5L)       // key 2: no version yet, but
                .at(RIGHT, 1_200, 2, 30L)     // one before it arrives before the watermark
                .wm(1_500)                    // joins 500, 1000, 1500 (key 2); keeps key 1's
                                              // 1000 and 2000
                .at(LEFT, 1_400, 1, 6L)       // late: joined at the next watermark (1000)
                .at(LEFT, 3_000, 3, 7L)       // key 3: left only
                .at(RIGHT, 2_500, 1, 22L)
                .wm(2_600)                    // joins 1999, 2000, 1400; key 1 keeps 2500 only
                .at(LEFT, 1_000, 1, 8L)       // late, before every version kept: none
                .at(LEFT, 2_700, 1, 9L)
                .at(RIGHT, 2_700, 1, 23L)     // a version at the watermark to come
                .wm(2_700)
                .at(LEFT, 2_800, null, 10L)   // a NULL key: no version ever
                .at(RIGHT, 3_500, 2, 31L)
                .at(LEFT, 4_000, 2, 11L)      // waits for a watermark at 4000
                .wm(3_000)
                .at(LEFT, 3_200, 1, null)     // a NULL value
                .wm(3_300);
        return s.random(60, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * Version clean-up, traced: a key's versions before the latest one at or before the
     * watermark are removed when its timer fires (a timer of right rows alone, or of left
     * rows), versions after the watermark stay, a right row alone registers no timer again;
     * late left rows then meet only the versions kept. Then 60 random rows.
     */
    static Scenario cleanup(String name, String backend) {
        Scenario s = kvScenario(name, "traced version clean-up: a key's versions before the"
                + " latest one at or before the watermark removed when one of its timers fires"
                + " (of right rows alone or of left rows), later versions kept, late left rows"
                + " meeting only the versions kept; then 60 " + RANDOM, "LEFT", backend);
        s.at(RIGHT, 1_000, 1, 10L)
                .at(RIGHT, 2_000, 1, 20L)
                .at(RIGHT, 3_000, 1, 30L)
                .wm(3_500)                    // key 1's timer (1000): keeps 3000 only
                .at(LEFT, 1_500, 1, 1L)       // late: no version kept before it, padded
                .at(LEFT, 3_200, 1, 2L)       // joins 3000
                .wm(3_600)
                .at(RIGHT, 4_000, 1, 40L)     // registers a timer at 4000
                .at(RIGHT, 5_000, 1, 50L)
                .wm(4_500)                    // keeps 4000 and 5000 (after the watermark)
                .at(LEFT, 3_900, 1, 3L)       // late: 3000 is gone, padded
                .at(RIGHT, 4_200, 1, 42L)     // the key's timer stays at 3900
                .wm(6_000)                    // the timer (3900) keeps 5000 only
                .at(LEFT, 4_300, 1, 4L)       // late: padded
                .at(LEFT, 6_000, 1, 5L)       // at the watermark: joins 5000 at the next
                .at(RIGHT, 5_500, 2, 60L)     // key 2: a version, and a left row that waits
                .at(LEFT, 7_000, 2, 6L)
                .wm(6_001);
        return s.random(60, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /** The condition {@code L.v > R.v} besides the key: LEFT pads where the latest fails. */
    static Scenario nonEqui(String name, String backend) {
        return kvScenario(name, "the condition L.v > R.v tried on the latest version only"
                + " (NULL v never holds), unmatched left rows padded; 150 " + RANDOM, "LEFT",
                backend)
                .extra("L.v > R.v")
                .random(150, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /** A string condition, {@code L.s < R.s}, besides the key. */
    static Scenario stringCondition(String name, String backend) {
        RowMaker rows = (r, n) -> new Object[] {NodeVectors.pick(r, LEFT_KEYS),
            NodeVectors.pick(r, STRINGS)};
        RowMaker versions = (r, n) -> new Object[] {NodeVectors.pick(r, RIGHT_KEYS),
            NodeVectors.pick(r, STRINGS)};
        return new Scenario(name, "the condition L.s < R.s on strings a, b, c and NULL; 120 "
                + RANDOM)
                .left("k", DataTypes.INT()).left("s", DataTypes.STRING())
                .right("k", DataTypes.INT().notNull()).right("s", DataTypes.STRING())
                .join("LEFT")
                .extra("L.s < R.s")
                .backend(backend)
                .random(120, rows, versions);
    }

    /**
     * A primary key of two columns, (s, k), both the join's keys, in another column order on
     * the right; NULLs in the left's.
     */
    static Scenario twoKeys(String name, String backend) {
        return new Scenario(name, "a primary key of two columns (s, k), the join's keys, in"
                + " another column order on the right, NULL on the left; 120 " + RANDOM)
                .left("k", DataTypes.INT()).left("s", DataTypes.STRING())
                .left("v", DataTypes.BIGINT())
                .right("s", DataTypes.STRING().notNull()).right("k", DataTypes.INT().notNull())
                .right("v", DataTypes.BIGINT())
                .primaryKey("s", "k")
                .keys("L.k = R.k AND L.s = R.s")
                .join("LEFT")
                .backend(backend)
                .random(120, (r, n) -> new Object[] {
                    NodeVectors.pick(r, LEFT_KEYS), NodeVectors.pick(r, STRINGS),
                    NodeVectors.pick(r, LONGS)
                }, (r, n) -> new Object[] {
                    NodeVectors.pick(r, KEY_STRINGS), NodeVectors.pick(r, RIGHT_KEYS),
                    NodeVectors.pick(r, LONGS)
                });
    }

    /**
     * Join keys beyond the primary key: (k, s) with the right's s nullable. The operator's key
     * is (k, s) and nothing filters NULLs, so a left row with a NULL s meets the versions
     * with a NULL s of its k.
     */
    static Scenario nullKeyColumns(String name, String backend) {
        return new Scenario(name, "join keys (k, s) beyond the primary key (k), NULL s on both"
                + " sides: no NULL filter, so NULL s meets NULL s; 120 " + RANDOM)
                .left("k", DataTypes.INT()).left("s", DataTypes.STRING())
                .left("v", DataTypes.BIGINT())
                .right("k", DataTypes.INT().notNull()).right("s", DataTypes.STRING())
                .right("v", DataTypes.BIGINT())
                .keys("L.k = R.k AND L.s = R.s")
                .join("LEFT")
                .backend(backend)
                .random(120, (r, n) -> new Object[] {
                    NodeVectors.pick(r, LEFT_KEYS), NodeVectors.pick(r, STRINGS),
                    NodeVectors.pick(r, LONGS)
                }, (r, n) -> new Object[] {
                    NodeVectors.pick(r, RIGHT_KEYS), NodeVectors.pick(r, STRINGS),
                    NodeVectors.pick(r, LONGS)
                });
    }

    /**
     * A changelog versioned table, traced: an insertion, its update ({@code -U} of the row as
     * it was, at its old time, then {@code +U} at a later time; where the {@code -U} reaches
     * the join it replaces the old version, so a left row between the two times gets none), a
     * deletion at its own time (left rows after it get none), an insertion again, an update
     * at the same time ({@code +U} replacing the {@code -U}); then 80 random rows.
     */
    static Scenario changelogTraced(String name, String joinType, Versions versions,
            String backend) {
        Scenario s = kvScenario(name, "traced: an insertion, its update (-U of the row as it"
                + " was, at its old time, +U later), a deletion at its own time, an insertion"
                + " again, an update at the same time; then 80 " + RANDOM, joinType, backend)
                .versions(versions);
        s.at(RIGHT, 1_000, 1, 10L)
                .at(LEFT, 1_500, 1, 1L)       // joins 1000, unless its -U replaced it
                .retract(RIGHT, RowKind.UPDATE_BEFORE, 1)
                .change(RIGHT, RowKind.UPDATE_AFTER, 2_000, 1, 20L)
                .at(LEFT, 2_500, 1, 2L)       // joins 2000
                .wm(2_600)
                .change(RIGHT, RowKind.DELETE, 3_000, 1, 20L)
                .at(LEFT, 3_500, 1, 3L)       // the latest version is a deletion: none
                .at(RIGHT, 4_000, 1, 40L)
                .at(LEFT, 4_500, 1, 4L)       // joins 4000
                .at(RIGHT, 5_000, 2, 50L)
                .retract(RIGHT, RowKind.UPDATE_BEFORE, 2)
                .change(RIGHT, RowKind.UPDATE_AFTER, 5_000, 2, 51L)
                .at(LEFT, 5_000, 2, 5L)       // joins 51
                .wm(5_000);
        return s.random(80, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A changelog left table: traced updates and a deletion of left rows (each output row of
     * its kind), then 120 random rows with updates and deletions.
     */
    static Scenario leftChangelog(String name, String joinType, Versions versions,
            String backend) {
        Scenario s = kvScenario(name, "traced left updates (-U of the row as it was, +U later)"
                + " and a deletion, each output row of the left row's kind; then 120 " + RANDOM
                + ", left updates and deletions", joinType, backend)
                .leftChangelog()
                .versions(versions);
        s.at(RIGHT, 500, 1, 10L)
                .at(LEFT, 1_000, 1, 1L)
                .retract(LEFT, RowKind.UPDATE_BEFORE, 1)
                .change(LEFT, RowKind.UPDATE_AFTER, 1_200, 1, 2L)
                .at(LEFT, 1_100, 2, 3L)       // key 2: no version
                .wm(1_500)
                .retract(LEFT, RowKind.DELETE, 2)
                .retract(LEFT, RowKind.UPDATE_BEFORE, 1)
                .change(LEFT, RowKind.UPDATE_AFTER, 1_600, 1, 4L)
                .wm(2_000);
        return s.random(120, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A TIMESTAMP_LTZ(3) rowtime in Asia/Shanghai: the operator reads epoch milliseconds, the
     * session zone changes nothing it does; random rows around a local midnight.
     */
    static Scenario zoned(String name, String backend) {
        Scenario s = kvScenario(name, "120 " + RANDOM + ", around local midnight (16:00Z)",
                "LEFT", backend)
                .ltz("Asia/Shanghai");
        long from = Instant.parse("2026-03-01T15:59:55Z").toEpochMilli();
        return s.stream(120, from, 100, 1000, 500, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * One key, 60 rows at five times: many versions of one time (the last one stored wins)
     * and many left rows of one time (emitted in arrival order).
     */
    static Scenario hotKey(String name, String backend) {
        Scenario s = kvScenario(name, "one key, 60 random rows at five times on both sides:"
                + " versions of one time replacing each other, left rows of one time emitted in"
                + " arrival order", "LEFT", backend);
        for (int n = 0; n < 60; n++) {
            s.at(n % 2, 100L * s.rnd.nextInt(5), 1, (long) n);
            if (n % 20 == 19) {
                s.wm(100L * (n / 20));
            }
        }
        return s;
    }

    /** Random rows from 3 s before the epoch: negative times, watermarks and timers. */
    static Scenario epoch(String name, String backend) {
        return kvScenario(name, "120 " + RANDOM + ", from 3 s before the epoch to 9 s after"
                + " it: negative times, watermarks and timers", "LEFT", backend)
                .stream(120, -3_000, 100, 1000, 500, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /** STRING keys and values of several types on both sides. */
    static Scenario types(String name, String backend) {
        Object[] keys = {"", "a", "größer 🦀", "é", "e\u0301"};
        Object[] leftKeys = {"", "a", "größer 🦀", "é", "e\u0301", null};
        return new Scenario(name, "STRING keys (empty, non-ASCII, an emoji, a combining accent"
                + " against its precomposed form, NULL on the left), values of DOUBLE,"
                + " DECIMAL(10, 2), BOOLEAN and TIMESTAMP(3) on the left, DECIMAL(38, 18),"
                + " BIGINT and STRING on the right; 120 random rows")
                .left("k", DataTypes.STRING()).left("d", DataTypes.DOUBLE())
                .left("m", DataTypes.DECIMAL(10, 2)).left("b", DataTypes.BOOLEAN())
                .left("t", DataTypes.TIMESTAMP(3))
                .right("x", DataTypes.DECIMAL(38, 18)).right("k", DataTypes.STRING().notNull())
                .right("l", DataTypes.BIGINT()).right("s", DataTypes.STRING())
                .join("LEFT")
                .backend(backend)
                .random(120, (r, n) -> new Object[] {
                    NodeVectors.pick(r, leftKeys), NodeVectors.pick(r, JoinVectors.DOUBLES),
                    NodeVectors.pick(r, JoinVectors.DECIMALS),
                    NodeVectors.pick(r, JoinVectors.BOOLEANS),
                    NodeVectors.pick(r, JoinVectors.TIMESTAMPS)
                }, (r, n) -> new Object[] {
                    NodeVectors.pick(r, JoinVectors.WIDE_DECIMALS),
                    NodeVectors.pick(r, keys), NodeVectors.pick(r, JoinVectors.BIGINTS),
                    NodeVectors.pick(r, JoinVectors.STRINGS)
                });
    }

    /** Only a few columns selected: the planner projects the inputs (no id). */
    static Scenario narrow(String name, String backend) {
        return kvScenario(name, "selecting L.v and R.v only: the inputs hold (k, v, ts); 120 "
                + RANDOM, "INNER", backend)
                .select("L.v, R.v AS rv")
                .random(120, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }
}
