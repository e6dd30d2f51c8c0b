package org.streamfusion.golden;

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
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.table.api.DataTypes;
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

import static org.streamfusion.golden.TwoInputVectors.END_OF_INPUT;
import static org.streamfusion.golden.TwoInputVectors.LEFT;
import static org.streamfusion.golden.TwoInputVectors.NO_TIME;
import static org.streamfusion.golden.TwoInputVectors.NO_WATERMARK;
import static org.streamfusion.golden.TwoInputVectors.PROCESSING_TIME;
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
 * condition's presence, state retention) and against the scenario; the rows reaching the
 * node's two inputs are read in a MiniCluster job (each table row becomes one node row, or
 * none where the planner drops {@code -U}; a separator watermark after each tells them apart);
 * and the planner's operator, set up as a task sets it up, is driven through the scenario's
 * events: a row calls {@code processElement1} (left, side 0) or {@code processElement2}
 * (right, side 1) with the key selector's key set, a watermark calls {@code
 * processWatermark1} and {@code processWatermark2} with the same value, so the operator's
 * combined watermark is the scenario's; where the scenario has a state TTL, a processing time
 * sets the operator's clock. The scenarios of one state backend run in one job.
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
 * fires every timer.
 *
 * <p>State TTL. With {@code table.exec.state.ttl} of {@code min} ms the operator's minimum
 * retention time is {@code min} and its maximum {@code max = min * 3 / 2} (rounded down: 499
 * for 333); it cleans state only where {@code min} exceeds 1 ms (a TTL of 1 ms cleans nothing).
 * The scenarios with a TTL ({@code _ttl_}) set the processing time as {@link
 * ProcTimeIntervalJoinVectors} does: the operator's processing time service is a {@link
 * TwoInputVectors.ManualProcessingTime}, the first event sets it, a processing-time event moves
 * it and fires, in time order, every processing-time timer due then, each with its own time (a
 * cleanup emits nothing); rows and event timers read it. A key holds one cleanup timer, its
 * time stored in the key's state: every row (after it is stored and the event timer moved) and
 * every event timer that leaves a left row waiting or versions stored registers it at {@code
 * now + max} (deleting the one before) unless the stored one is at or after {@code now + min};
 * an event timer that leaves neither deletes it. When it fires (the stored time its own), the
 * key's left rows, versions and stored event-timer time are cleared: waiting left rows are
 * never emitted, later left rows meet no version (a LEFT join pads them), and the key's event
 * timer stays registered, fires later and (the stored time cleared) may register its timer and
 * the cleanup timer again. Outside these scenarios the clock is the task's and unused.
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
 *       "left_time":i,"right_time":j,"state_ttl_ms":min,"max_retention_ms":max,"node":
 *       <description text>,"config":<options text>,"left":[{"name":..,"type":..}..],"right":
 *       [..],"output":[..],"sql":..,"plan":..,"events":n,"rows_out":m}}: {@code left} and
 *       {@code right} are the node's input rows, {@code output} the operator's (the left row
 *       then the right row), keys and times column indexes into a side's row ({@code
 *       left_time} and {@code right_time} the operator's {@code leftTimeAttribute} and {@code
 *       rightTimeAttribute}), {@code filter_nulls} the node's (which the operator does not
 *       apply), {@code state_ttl_ms} and {@code max_retention_ms} the operator's minimum and
 *       maximum retention times (0 without a TTL), {@code plan} the translated query's
 *       operators;
 *   <li>then n events, each {@code {"in":"+I"|"-U"|"+U"|"-D","side":0|1,"row":[..]}} (side 0
 *       the left input), {@code {"watermark":ms}} (both inputs) or, in the scenarios with a
 *       TTL (their first event), {@code {"processing_time":ms}} (epoch ms), each immediately
 *       followed by the lines {@code {"out":kind,"row":[..]}} the operator emitted for it, in
 *       emission order ({@code m} in all). Some scenarios end with the watermark {@code
 *       Long.MAX_VALUE} (the end of input), others with rows still stored.
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

    /**
     * A scenario: the two tables, the query, and the events ({@link
     * ProcTimeTemporalJoinVectors.Scenario} makes it one of the processing-time join).
     */
    static class Scenario {
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
         * {@code table.exec.state.ttl} in ms: where above 0, the scenario sets the operator's
         * processing time ({@link #time}) before its first row.
         */
        long stateTtlMs;
        /**
         * The processing time, epoch ms ({@link TwoInputVectors#NO_TIME} before the first).
         */
        long now = NO_TIME;
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

        /** Whether the scenario sets the processing time: it has a state TTL. */
        boolean clocked() {
            return stateTtlMs > 0;
        }

        /** The operator's maximum retention time: Flink's 3/2 of the TTL, rounded down. */
        long maxRetentionMs() {
            return stateTtlMs * 3 / 2;
        }

        /** The processing time {@code at} ms after {@link NodeVectors#BASE}. */
        Scenario time(long at) {
            return timeEpoch(BASE_MS + at);
        }

        /** The processing time {@code ms} (epoch), after the last. */
        Scenario timeEpoch(long ms) {
            if (!clocked() || now != NO_TIME && ms <= now) {
                throw new IllegalArgumentException(name + ": processing time " + ms
                        + (clocked() ? " does not exceed " + now : " without a state TTL"));
            }
            events.add(new Event(PROCESSING_TIME, null, ms));
            now = ms;
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
            return emit(side, kind, tableRow(values, ms));
        }

        /** The table row of {@code values} at {@code ms}: then its id and its rowtime. */
        Object[] tableRow(Object[] values, long ms) {
            Object[] row = Arrays.copyOf(values, values.length + 2);
            row[values.length] = events.size();
            row[values.length + 1] = ltz ? Instant.ofEpochMilli(ms)
                    : NodeVectors.epochTimestamp(ms);
            return row;
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
            if (clocked() && now == NO_TIME) {
                throw new IllegalArgumentException(name + ": a row before the first processing"
                        + " time");
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
            if (clocked() && now == NO_TIME) {
                throw new IllegalArgumentException(name + ": a watermark before the first"
                        + " processing time");
            }
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
         * about every fifth row a watermark {@code lag} ms behind the largest row time. Where
         * the scenario sets the processing time, it moves before each row ({@link #tick}).
         */
        Scenario stream(int rows, long from, long step, long jitter, long lag, RowMaker lefts,
                RowMaker rights) {
            long max = lastWatermark == NO_WATERMARK ? Long.MIN_VALUE : lastWatermark + lag;
            long previous = from;
            for (int n = 0; n < rows; n++) {
                if (clocked()) {
                    tick();
                }
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
         * A random step of the processing time (the first sets it), on the scale of the TTL
         * (of a second where the TTL cleans nothing): in 7 of 20 none (rows of one time), in 7
         * a step of up to a tenth of it (a key's cleanup timer mostly stays), in 5 one of up
         * to half of it (it mostly moves), in one of 40 one of one to two TTLs, in one of 40 a
         * jump past the maximum retention time (the cleanup timers of every key not touched
         * since fire): rows mostly meet their versions, but not all.
         */
        void tick() {
            long ttl = stateTtlMs > 1 ? stateTtlMs : 1_000;
            int dice = rnd.nextInt(40);
            long step;
            if (dice < 14) {
                step = 0;
            } else if (dice < 28) {
                step = 1 + rnd.nextLong(ttl / 10);
            } else if (dice < 38) {
                step = ttl / 10 + rnd.nextLong(ttl / 2 - ttl / 10 + 1);
            } else if (dice < 39) {
                step = ttl + rnd.nextLong(ttl + 1);
            } else {
                step = ttl * 3 / 2 + rnd.nextLong(ttl + 1);
            }
            if (now == NO_TIME) {
                time(0);
            } else if (step > 0) {
                timeEpoch(now + step);
            }
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
                    + describeTtl() + ": " + description
                    + (endOfInput ? "; ends with the end-of-input watermark"
                            : "; no end-of-input watermark (rows stay stored)");
        }

        /** The state TTL in words, after a comma (empty without one). */
        String describeTtl() {
            return stateTtlMs > 1 ? ", state TTL " + stateTtlMs + " ms (a key's cleanup timer "
                    + maxRetentionMs() + " ms after the processing time that sets it)"
                    : stateTtlMs == 1 ? ", state TTL 1 ms (no cleanup: the operator cleans only"
                            + " above 1 ms)"
                    : "";
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
    static class Planned extends TwoInputVectors.Planned {
        final Scenario scenario;
        /** The time columns of the two sides. */
        int[] times;
        /** The operator's minimum and maximum retention times. */
        long stateTtlMs;
        long maxRetentionMs;

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

        @Override
        boolean manualProcessingTime() {
            return scenario.clocked();
        }

        /**
         * Whether the join is the processing-time join of a temporal table function ({@link
         * ProcTimeTemporalJoinVectors}), else the event-time join of a versioned table.
         */
        boolean procTime() {
            return false;
        }

        /**
         * Checks the node's time columns ({@link #times}): the operator's, rowtime attributes
         * named {@code ts}.
         */
        void checkTimes(List<String> problems) {
            String[] timeFields = {"leftTimeAttribute", "rightTimeAttribute"};
            for (int side = 0; side < 2; side++) {
                int at = (int) JoinVectors.field(operator, timeFields[side]);
                if (at != times[side]) {
                    problems.add(timeFields[side] + " " + at + ", the node's " + times[side]);
                }
                RowType type = inputType(side);
                LogicalType time = type.getTypeAt(times[side]);
                boolean rowtime = time instanceof TimestampType ts
                        ? ts.getKind() == TimestampKind.ROWTIME && ts.getPrecision() == 3
                        : time instanceof LocalZonedTimestampType ltz
                                && ltz.getKind() == TimestampKind.ROWTIME
                                && ltz.getPrecision() == 3;
                if (!rowtime || !type.getFieldNames().get(times[side]).equals("ts")) {
                    problems.add("time column " + times[side] + " of " + type);
                }
            }
        }

        /** The node's input {@code side}'s rows, time attributes as such. */
        RowType inputType(int side) {
            return ((InternalTypeInfo<?>) transformation.getInputs().get(side).getOutputType())
                    .toRowType();
        }
    }

    /** The file's {@code format}: what its lines hold. */
    static final String FORMAT = "per scenario: a header line (scenario, description, join_type,"
            + " zone, backend, operator, left_keys, right_keys, filter_nulls (the node's, not"
            + " applied by the operator), left_time and right_time (the operator's"
            + " leftTimeAttribute and rightTimeAttribute), state_ttl_ms and max_retention_ms (the"
            + " operator's minRetentionTime and maxRetentionTime; it cleans state where the"
            + " first exceeds 1), node and config: the planner's texts for flink::plan_node,"
            + " left, right and output columns, sql, plan, events, rows_out), then events lines"
            + " {\"in\":kind,\"side\":0|1,\"row\":[..]}, {\"watermark\":ms} (both inputs) or,"
            + " in scenarios with a state TTL (the first event), {\"processing_time\":ms}"
            + " (cleanup timers due fire), each followed by the {\"out\":kind,\"row\":[..]}"
            + " lines emitted for it; BIGINT, DOUBLE (Double.toString), DECIMAL (plain) and"
            + " TIMESTAMP (epoch ms) values are strings";

    public static void main(String[] args) throws Exception {
        List<Scenario> scenarios = TwoInputVectors.selected(args, "TemporalJoinVectors",
                TemporalJoinVectors::scenarios, s -> s.name);
        List<Planned> planned = TwoInputVectors.inputs(scenarios, TemporalJoinVectors::plan,
                "temporal-join-inputs");
        for (Planned p : planned) {
            checkKinds(p);
            feed(p);
        }
        TwoInputVectors.runBackends(planned, BACKENDS, p -> p.scenario.backend,
                "temporal join");
        TwoInputVectors.compareTwins(planned);
        TwoInputVectors.writeFile(args[0], GENERATOR, FORMAT, planned,
                TemporalJoinVectors::write);
    }

    // ---------------------------------------------------------------- planning

    /**
     * Plans the scenario's query in {@code tEnv} and returns the temporal join operator Flink
     * built, checked against the node and the scenario.
     */
    static Planned plan(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Scenario s,
            int tag) throws Exception {
        configure(tEnv, s);
        TwoInputVectors.view(env, tEnv, s.name, s.table(LEFT), s.events, LEFT, s.schedule(LEFT),
                "lhs", List.of(), s.leftChangelog);
        TwoInputVectors.view(env, tEnv, s.name, s.table(RIGHT), s.events, RIGHT,
                s.schedule(RIGHT), "rhs", s.primaryKey, s.versions != Versions.APPEND);
        filteredView(tEnv, s);
        return planJoin(tEnv, new Planned(s, tag), TemporalRowTimeJoinOperator.class);
    }

    /** Prepares {@code tEnv} for planning {@code s}: the options, no decisions, node ids anew. */
    static void configure(StreamTableEnvironment tEnv, Scenario s) {
        StreamFusionPlanner.clearDecisions();
        ExecNodeContext.resetIdCounter();
        TableConfig config = tEnv.getConfig();
        config.set(StreamFusionPlanner.ENABLED, true);
        config.set("table.local-time-zone", s.zone);
        config.set("table.exec.mini-batch.enabled", "false");
        config.set("table.exec.async-state.enabled", "false");
        config.set(STATE_TTL, s.stateTtlMs + " ms");
    }

    /**
     * Where {@code s}'s versions are {@link Versions#RETRACT}, (re)creates their view {@code
     * rhs_filtered} of {@code rhs}.
     */
    static void filteredView(StreamTableEnvironment tEnv, Scenario s) {
        if (s.versions == Versions.RETRACT) {
            tEnv.dropTemporaryView("rhs_filtered");
            tEnv.createTemporaryView("rhs_filtered",
                    tEnv.sqlQuery("SELECT * FROM rhs WHERE id >= 0"));
        }
    }

    /**
     * Plans {@code p}'s query over the views (and functions) of {@code tEnv} and takes the
     * join operator Flink built, exactly of class {@code operator} (the released one), checked
     * against the node and the scenario ({@link #check}).
     */
    static <P extends Planned> P planJoin(StreamTableEnvironment tEnv, P p,
            Class<? extends AbstractStreamOperator<RowData>> operator) throws Exception {
        Scenario s = p.scenario;
        p.sql = s.sql();
        Table result = tEnv.sqlQuery(p.sql);
        DataStream<Row> changes = tEnv.toChangelogStream(result);
        Transformation<?> root = changes.getTransformation();
        p.plan = TwoInputVectors.plan(root);
        p.operator = TwoInputVectors.joinOperator(p, root, "TemporalJoin", operator);
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
        NodeVectors.expect(problems, node, "isTemporalFunctionJoin",
                String.valueOf(p.procTime()));
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

        p.times = new int[] {node.get("leftTimeAttributeIndex").asInt(),
            node.get("rightTimeAttributeIndex").asInt()};
        p.checkTimes(problems);

        // State retention: the operator's, and what the planner hands over.
        p.stateTtlMs = (long) JoinVectors.field(operator, "minRetentionTime");
        p.maxRetentionMs = (long) JoinVectors.field(operator, "maxRetentionTime");
        if (p.stateTtlMs != s.stateTtlMs || p.maxRetentionMs != s.maxRetentionMs()
                || (boolean) JoinVectors.field(operator, "stateCleaningEnabled")
                        != (s.stateTtlMs > 1)) {
            problems.add("retention times " + p.stateTtlMs + " to " + p.maxRetentionMs
                    + " ms (cleaning " + JoinVectors.field(operator, "stateCleaningEnabled")
                    + "), the scenario's TTL " + s.stateTtlMs + " ms");
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
     * Fails unless every table row of {@code p} reached its node input as one row of its kind,
     * except the {@code -U} of a side whose {@code -U} the planner drops ({@link
     * Scenario#dropsBefore}), which reach it as none.
     */
    static void checkKinds(Planned p) {
        Scenario s = p.scenario;
        int[] seen = new int[2];
        for (Event e : s.events) {
            if (e.side() < 0) {
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

    /** The scenario's node rows, watermarks and processing times, the end of input if asked. */
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
                .append(",\"max_retention_ms\":").append(p.maxRetentionMs)
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
            list.add(ttlTraced("inner_ttl_traced" + x, "INNER", backend));
            list.add(ttlTraced("left_ttl_traced" + x, "LEFT", backend).endOfInput(false));
            list.add(ttlStaleTimer("left_ttl_stale_timer" + x, backend));
            list.add(ttlLastTimer("inner_ttl_last_timer" + x, backend).endOfInput(false));
            list.add(ttlManyKeys("left_ttl_many_keys" + x, backend));
            list.add(ttlRace("left_ttl_race" + x, backend).endOfInput(false));
            list.add(ttlUpsertTraced("left_ttl_upsert_traced" + x, backend));
            list.add(ttlLeftChangelog("left_ttl_changelog" + x, backend));
            list.add(ttlRandom("left_ttl_random" + x, "LEFT", Versions.APPEND, 1_000, backend));
            list.add(ttlRandom("inner_ttl_upsert_random" + x, "INNER", Versions.UPSERT, 2_000,
                    backend).endOfInput(false));
            list.add(ttlRandom("left_ttl_retract_random" + x, "LEFT", Versions.RETRACT, 333,
                    backend));
            list.add(ttlRandom("left_ttl_one_ms" + x, "LEFT", Versions.APPEND, 1, backend));
            list.add(ttlRandom("left_ttl_nonequi" + x, "LEFT", Versions.UPSERT, 500, backend)
                    .extra("L.v > R.v"));
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

    // ---------------------------------------------------------------- state TTL scenarios

    static final String TICKS = "; the processing time moved before each row: not at all, by"
            + " steps of up to a tenth of the TTL or half of it, rarely of one to two TTLs or"
            + " past the maximum retention time";

    /** The (k, v) tables joined by {@code joinType} with a state TTL of {@code ttl} ms. */
    static Scenario ttlScenario(String name, String description, String joinType, long ttl,
            String backend) {
        return kvScenario(name, description, joinType, backend).stateTtl(ttl);
    }

    /** 120 {@link #RANDOM} (k, v) rows with a state TTL of {@code ttl} ms ({@link #TICKS}). */
    static Scenario ttlRandom(String name, String joinType, Versions versions, long ttl,
            String backend) {
        return ttlScenario(name, "120 " + RANDOM + TICKS, joinType, ttl, backend)
                .versions(versions)
                .random(120, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A state TTL of 1000 ms (cleanup timers 1500 ms after the processing time), traced: a row
     * that leaves the key's cleanup timer where it is (the processing time plus the TTL not
     * after it, at the boundary too) and one that moves it; two keys' timers firing in one
     * jump, clearing a version and a waiting left row; left rows meeting no version then; a
     * left-only key and an emptied key whose event timer deletes their cleanup timers; the
     * stale event timer of a cleared key firing with nothing to do; the event timer moving the
     * cleanup timer of a key keeping its versions. Then 60 random rows.
     */
    static Scenario ttlTraced(String name, String joinType, String backend) {
        Scenario s = ttlScenario(name, "traced: rows leaving a key's cleanup timer where it is"
                + " (at the boundary too) and moving it, two keys' timers in one jump clearing"
                + " a version and a waiting left row, left rows meeting no version then, a"
                + " left-only key and an emptied key deleting their cleanup timers when their"
                + " event timers fire, a cleared key's stale event timer firing with nothing to"
                + " do, an event timer moving a cleanup timer; then 60 " + RANDOM + TICKS,
                joinType, 1_000, backend);
        // Processing times (time) and row times both after BASE:
        s.time(0)
                .at(RIGHT, 1_000, 1, 10L)     // key 1: its cleanup timer at 1500
                .at(LEFT, 1_500, 1, 1L)       // 0 + 1000 is not after 1500: it stays
                .time(500)
                .at(LEFT, 1_600, 1, 2L)       // 1500, not after 1500: it stays
                .time(501)
                .at(RIGHT, 500, 2, 20L)       // key 2: its timer at 2001
                .at(LEFT, 2_000, 1, 3L)       // 1501: key 1's moves to 2001
                .at(LEFT, 900, 3, 30L)        // key 3, left only: its timer at 2001
                .wm(1_600)                    // joins 1 and 2 (10), 3 waits; pads 30, key 3
                                              // is empty: its cleanup timer deleted; no
                                              // cleanup timer moves (2101 is not after 2001)
                .time(2_000)                  // nothing due
                .time(2_001)                  // keys 1 and 2: cleared (3 and the versions);
                                              // key 1's event timer (2000) stays
                .at(LEFT, 2_200, 2, 4L)       // key 2: no version now; its timer at 3501
                .wm(2_500)                    // key 1's stale event timer: nothing; pads 4,
                                              // key 2 is empty: its cleanup timer deleted
                .time(3_501)                  // nothing due
                .at(RIGHT, 2_400, 1, 12L)     // key 1 again: its timer at 5001
                .at(LEFT, 2_600, 1, 6L)
                .at(LEFT, 2_800, 1, 7L)       // 4501 is not after 5001: it stays
                .time(4_100)
                .wm(2_600)                    // joins 6 (12); 7 waits: 5100 is after 5001,
                                              // the timer moves to 5600
                .time(5_001)                  // nothing due
                .wm(2_800)                    // joins 7 (12); 6001: moved to 6501
                .time(6_501)                  // key 1: 12 gone
                .at(LEFT, 2_900, 1, 8L)       // no version: padded
                .wm(2_900);
        return s.random(60, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A state TTL of 1000 ms, traced: the event timer a cleanup leaves (cleanup clears the
     * registered timer's value, not the timer) fires beside the one registered after it,
     * each time registering the waiting row's timer again and moving the cleanup timer; a
     * later cleanup of the versions; a key emptied by its event timer deleting its cleanup
     * timer. Then 60 random rows.
     */
    static Scenario ttlStaleTimer(String name, String backend) {
        Scenario s = ttlScenario(name, "traced: the event timer a cleanup leaves firing beside"
                + " the one registered after it, each moving the cleanup timer while a left row"
                + " waits, a later cleanup of the versions, a key emptied by its event timer"
                + " deleting its cleanup timer; then 60 " + RANDOM + TICKS, "LEFT", 1_000,
                backend);
        s.time(0)
                .at(LEFT, 1_000, 1, 1L)       // key 1: event timer 1000, cleanup timer 1500
                .at(RIGHT, 800, 1, 10L)       // the event timer moves to 800
                .time(1_500)                  // the cleanup: 1 and 10 gone, the event timer
                                              // (800) stays
                .at(RIGHT, 900, 1, 11L)       // a second event timer (900); cleanup at 3000
                .at(LEFT, 3_000, 1, 2L)       // 2500 is not after 3000: it stays
                .time(2_200)
                .wm(850)                      // the stale timer (800): nothing to emit, 2
                                              // waits (timer 3000): the cleanup timer moves
                                              // (3200 is after 3000) to 3700
                .time(3_000)                  // nothing due
                .wm(950)                      // the timer 900: the same, the cleanup timer
                                              // moves to 4500
                .time(3_700)                  // nothing due
                .wm(3_000)                    // joins 2 (11); 11 stays: 4700 is after 4500,
                                              // the timer moves to 5200
                .time(5_200)                  // 11 gone
                .at(LEFT, 3_100, 1, 3L)       // no version: padded; cleanup at 6700
                .wm(3_100)                    // the key is empty: its cleanup timer deleted
                .time(6_700);                 // nothing due
        return s.random(60, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A state TTL of 1000 ms, INNER, traced: keys emptied by their event timers delete their
     * cleanup timers, so their next row registers a new one where the old one would have
     * stayed (a version that outlives the old time); a key keeping its version, its cleanup
     * timer moved by a row and kept by its event timer. Then 60 random rows.
     */
    static Scenario ttlLastTimer(String name, String backend) {
        Scenario s = ttlScenario(name, "traced: keys emptied by their event timers deleting"
                + " their cleanup timers, their next row registering a new one where the old"
                + " one would have stayed, a key keeping its version, its cleanup timer moved"
                + " by a row and kept by its event timer; then 60 " + RANDOM + TICKS, "INNER",
                1_000, backend);
        s.time(0)
                .at(LEFT, 1_000, 1, 1L)       // key 1, left only: its cleanup timer at 1500
                .at(LEFT, 1_000, 2, 2L)       // key 2: 1500
                .at(RIGHT, 500, 2, 20L)
                .time(400)
                .wm(1_100)                    // 1 meets no version: key 1 is empty, its
                                              // cleanup timer deleted; joins 2 (20), 20 stays:
                                              // key 2's stays (1400)
                .at(RIGHT, 1_200, 1, 10L)     // key 1: a new timer at 1900 (the old one
                                              // would have stayed: 1400)
                .time(1_500)                  // key 2: 20 gone
                .at(LEFT, 1_300, 1, 3L)       // 2500: key 1's moves to 3000
                .at(LEFT, 1_300, 2, 4L)       // key 2: no version now; 3000
                .time(1_900)                  // nothing due
                .wm(1_400)                    // joins 3 (10), which stays: 2900 is not after
                                              // 3000; 4 meets none: key 2 is empty, its
                                              // cleanup timer deleted
                .time(3_000)                  // key 1: 10 gone
                .at(LEFT, 1_500, 1, 5L)       // meets none; 4500
                .wm(1_500)                    // key 1 is empty: its timer deleted
                .time(5_000)                  // nothing due
                .at(RIGHT, 1_600, 1, 11L)     // key 1: 6500
                .at(LEFT, 1_600, 1, 6L)
                .wm(1_600)                    // joins 6 (11); 6000 is not after 6500: stays
                .time(6_499)
                .at(LEFT, 1_700, 1, 7L)       // 7499: moved to 7999
                .time(6_500)                  // nothing due
                .wm(1_700)                    // joins 7 (11); 7500 is not after 7999: stays
                .time(7_999)                  // key 1: 11 gone
                .at(LEFT, 1_800, 1, 8L)       // meets none
                .wm(1_800);
        return s.random(60, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A state TTL of 333 ms: the maximum retention time is 499 ms (3/2 rounded down). Several
     * keys' cleanup timers fire in one jump (two of one time), a row 166 ms after the timer
     * was set leaves it (499 is not after 499), one a millisecond later moves it to 666; an
     * event timer moving none. Then 80 random rows on the scale of the TTL.
     */
    static Scenario ttlManyKeys(String name, String backend) {
        Scenario s = ttlScenario(name, "traced: a TTL of 333 ms, cleanup timers 499 ms after"
                + " the processing time (3/2 rounded down), a row 166 ms after a timer was set"
                + " leaving it and one a millisecond later moving it, four keys' timers (two of"
                + " one time, the NULL key's) in one jump; then 80 " + RANDOM + TICKS, "LEFT",
                333, backend);
        s.time(0)
                .at(RIGHT, 100, 1, 10L)       // key 1: its cleanup timer at 499
                .time(10)
                .at(RIGHT, 100, 2, 20L)       // key 2: 509
                .time(20)
                .at(LEFT, 200, 3, 1L)         // key 3, left only: 519
                .time(30)
                .at(RIGHT, 100, 4, 40L)       // key 4: 529
                .at(LEFT, 200, null, 2L)      // the NULL key: 529
                .time(166)
                .at(LEFT, 200, 1, 3L)         // 499 is not after 499: it stays
                .time(167)
                .at(LEFT, 200, 1, 4L)         // 500 is: moved to 666
                .time(498)                    // nothing due
                .time(529)                    // keys 2, 3, 4 and NULL: cleared (1 and 2 never
                                              // emitted)
                .at(LEFT, 300, 2, 5L)         // key 2: no version now; its timer at 1028
                .at(LEFT, 300, 1, 6L)         // key 1: 862 is after 666: moved to 1028
                .wm(300)                      // joins 3, 4 and 6 (10); pads 5, key 2 empty:
                                              // its cleanup timer deleted; key 1's stays
                .time(1_027)                  // nothing due
                .time(1_028)                  // key 1: 10 gone
                .at(LEFT, 400, 1, 7L)         // no version: padded
                .wm(400);
        return s.random(80, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A state TTL of 1000 ms, traced: a cleanup due before the watermark that would emit a
     * waiting left row (the row is never emitted, the event timer finds nothing), a watermark
     * a millisecond before the cleanup time emitting the row and moving the cleanup timer
     * (the jump fires nothing), a watermark emitting at a processing time that leaves the
     * timer, which then clears the next waiting row. Then 60 random rows.
     */
    static Scenario ttlRace(String name, String backend) {
        Scenario s = ttlScenario(name, "traced: a cleanup before the watermark that would emit"
                + " a waiting left row (never emitted), a watermark a millisecond before the"
                + " cleanup time emitting and moving the cleanup timer, a watermark leaving the"
                + " timer, which clears the next waiting row; then 60 " + RANDOM + TICKS,
                "LEFT", 1_000, backend);
        s.time(0)
                .at(RIGHT, 1_000, 1, 10L)     // key 1: its cleanup timer at 1500
                .at(LEFT, 1_200, 1, 1L)
                .wm(1_200)                    // joins 1 (10): 1000 is not after 1500
                .at(LEFT, 1_300, 1, 2L)       // waits for 1300
                .time(1_500)                  // the cleanup first: 2 and 10 gone
                .wm(1_300)                    // the event timer finds nothing: 2 is lost
                .at(RIGHT, 1_000, 2, 20L)     // key 2: 3000
                .at(LEFT, 1_400, 2, 3L)
                .time(2_999)
                .wm(1_400)                    // the watermark first: joins 3 (20); 3999 is
                                              // after 3000: moved to 4499
                .time(3_000)                  // nothing due
                .at(LEFT, 1_500, 2, 4L)
                .wm(1_500)                    // joins 4 (20)
                .time(3_100)
                .at(RIGHT, 1_000, 3, 30L)     // key 3: 4600
                .at(LEFT, 1_600, 3, 5L)
                .time(3_600)
                .wm(1_600)                    // joins 5 (30): 4600 is not after 4600, stays
                .at(LEFT, 1_700, 3, 6L)
                .time(4_600)                  // key 3: 6 and 30 gone (key 2's at 4499 too)
                .wm(1_700);                   // nothing
        return s.random(60, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A state TTL of 1000 ms over a changelog versioned table (its {@code -U} dropped),
     * traced: an update moving the cleanup timer, the cleanup clearing the versions, a
     * deletion then stored as the only version, left rows meeting none, a cleanup dropping
     * waiting left rows and a deletion and an insertion, an update of one time (the {@code +U}
     * replacing the version) moving another key's timer. Then 80 random rows.
     */
    static Scenario ttlUpsertTraced(String name, String backend) {
        Scenario s = ttlScenario(name, "traced: an update moving the cleanup timer, the cleanup"
                + " clearing the versions, a deletion then the only version, left rows meeting"
                + " none, a cleanup dropping a waiting left row and the versions, an update of"
                + " one time moving another key's timer; then 80 " + RANDOM + TICKS, "LEFT",
                1_000, backend)
                .versions(Versions.UPSERT);
        s.time(0)
                .at(RIGHT, 1_000, 1, 10L)     // key 1: its cleanup timer at 1500
                .at(LEFT, 1_500, 1, 1L)
                .time(600)
                .retract(RIGHT, RowKind.UPDATE_BEFORE, 1)          // dropped before the join
                .change(RIGHT, RowKind.UPDATE_AFTER, 2_000, 1, 20L) // 1600: moved to 2100
                .at(LEFT, 2_500, 1, 2L)
                .wm(2_600)                    // joins 1 (10) and 2 (20); 20 stays
                .time(2_100)                  // key 1: 20 gone
                .at(LEFT, 2_700, 1, 3L)       // no version: padded; a timer at 3600
                .change(RIGHT, RowKind.DELETE, 3_000, 1, 20L)      // stored: the only version
                .at(LEFT, 3_500, 1, 4L)       // the latest version a deletion: padded
                .at(RIGHT, 4_000, 1, 40L)
                .at(LEFT, 4_500, 1, 5L)       // would join 40
                .at(RIGHT, 5_000, 2, 50L)     // key 2: 3600
                .wm(3_600)                    // pads 3 and 4, 5 waits
                .time(3_599)
                .retract(RIGHT, RowKind.UPDATE_BEFORE, 2)
                .change(RIGHT, RowKind.UPDATE_AFTER, 5_000, 2, 51L) // the same time: replaces
                                                                    // 50; moved to 5099
                .time(3_600)                  // key 1: 5 and the versions gone
                .at(LEFT, 5_000, 2, 6L)
                .wm(5_000);                   // joins 6 (51)
        return s.random(80, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A state TTL of 1000 ms with a changelog left table, traced: left updates moving the
     * cleanup timer (and joined), an event timer moving it, later updates cleared before
     * their watermark (never emitted), a deletion of a left row meeting no version then
     * (padded, a {@code -D} row). Then 100 random rows with left updates and deletions.
     */
    static Scenario ttlLeftChangelog(String name, String backend) {
        Scenario s = ttlScenario(name, "traced: left updates moving the cleanup timer, an event"
                + " timer moving it, later updates cleared before their watermark (never"
                + " emitted), a left deletion meeting no version then (padded); then 100 "
                + RANDOM + ", left updates and deletions" + TICKS, "LEFT", 1_000, backend)
                .leftChangelog();
        s.time(0)
                .at(RIGHT, 500, 1, 10L)       // key 1: its cleanup timer at 1500
                .at(LEFT, 1_000, 1, 1L)
                .retract(LEFT, RowKind.UPDATE_BEFORE, 1)
                .change(LEFT, RowKind.UPDATE_AFTER, 1_200, 1, 2L)
                .wm(1_500)                    // +I, -U and +U joined with 10
                .time(800)
                .retract(LEFT, RowKind.UPDATE_BEFORE, 1)           // 1800: moved to 2300
                .change(LEFT, RowKind.UPDATE_AFTER, 1_600, 1, 3L)
                .time(1_500)                  // nothing due
                .wm(1_600)                    // -U and +U joined with 10; 2500: moved to 3000
                .time(1_600)
                .retract(LEFT, RowKind.UPDATE_BEFORE, 1)           // 2600: it stays
                .change(LEFT, RowKind.UPDATE_AFTER, 1_900, 1, 4L)
                .time(3_000)                  // key 1: the -U, the +U and 10 gone
                .retract(LEFT, RowKind.DELETE, 1)                  // no version: padded
                .wm(2_000);
        return s.random(100, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }
}
