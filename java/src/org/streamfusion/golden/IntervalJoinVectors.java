package org.streamfusion.golden;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.AbstractUdfStreamOperator;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.runtime.operators.join.KeyedCoProcessOperatorWithWatermarkDelay;
import org.apache.flink.table.runtime.operators.join.interval.RowTimeIntervalJoin;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampKind;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.Row;

import org.streamfusion.flink.StreamFusionPlanner;
import org.streamfusion.golden.TwoInputVectors.Event;
import org.streamfusion.golden.TwoInputVectors.RowMaker;

import static org.streamfusion.golden.TwoInputVectors.END_OF_INPUT;
import static org.streamfusion.golden.TwoInputVectors.LEFT;
import static org.streamfusion.golden.TwoInputVectors.NO_WATERMARK;
import static org.streamfusion.golden.TwoInputVectors.RIGHT;
import static org.streamfusion.golden.TwoInputVectors.SEPARATOR;
import static org.streamfusion.golden.TwoInputVectors.WATERMARK;
import static org.streamfusion.golden.TwoInputVectors.columns;
import static org.streamfusion.golden.TwoInputVectors.plain;

/**
 * Golden changelogs of Flink 2.3.0's event-time interval join ({@code StreamExecIntervalJoin}:
 * {@code L [INNER|LEFT|RIGHT|FULL] JOIN R ON L.k = R.k AND L.ts BETWEEN R.ts + lower AND R.ts +
 * upper}, or its {@code >}/{@code <} and comma-join forms), produced by the released {@code
 * KeyedCoProcessOperatorWithWatermarkDelay(RowTimeIntervalJoin)} fed one event at a time in a
 * fixed order, each event's output recorded right after it. The native interval join is tested
 * against them ({@code crates/streamfusion/tests/golden/flink-2.3.0-interval-join.jsonl}).
 *
 * <p>As {@link WindowJoinVectors} (whose procedure and machinery, {@link TwoInputVectors}, this
 * shares): each scenario's query is planned by Flink with {@code streamfusion.enabled} on and no
 * loadable native library, so StreamFusion's planner only describes the node (the description
 * and the options it would hand the native side are recorded); the program checks the node
 * against the operator Flink built (keys, NULL filters, time columns, bounds, minimum cleanup
 * interval, join type, output watermark delay) and against the scenario; the rows reaching the
 * node's two inputs are read in a MiniCluster job (each table row becomes one node row; a
 * separator watermark after each tells them apart); and the planner's operator, set up as a
 * task sets it up, is driven through the scenario's events: a row calls {@code
 * processElement1} (left, side 0) or {@code processElement2} (right, side 1) with the key
 * selector's key set, a watermark calls {@code processWatermark1} and {@code processWatermark2}
 * with the same value, so the operator's combined watermark is the scenario's. The scenarios of
 * one state backend run in one job. Most scenarios have a {@code _rocksdb} twin with the same
 * events; the program checks that each event's outputs are the same multiset on both backends
 * (the caches are {@code MapState<Long, List<..>>}: the heap iterates a key's times in hash
 * order, RocksDB in the order of their serialized bytes, so the order of one event's outputs
 * may differ), except where a scenario says they differ (below).
 *
 * <p>What the released operator does (so the file shows it): operator time is {@code max(0,
 * watermark)}; a row at {@code t} of the left side meets cached right rows at {@code [t -
 * upper, t - lower]} (bounds inclusive; for a right row the mirror), in the cache's iteration
 * order, a time's rows in arrival order, and while probing removes cached rows at or before the
 * expiration time ({@code operator time - relative size - 1}, outer ones padded when they never
 * matched); a row is cached only when the operator time is below the latest time it can meet
 * ({@code t - lower} for a left row, {@code t + upper} for a right one), else it is padded at
 * once when it is outer and met nothing; a side's cleanup timer ({@code
 * row time + relative size + min-cleanup-interval + 1}, one per key and side) removes its
 * expired rows and is registered again for the earliest remaining time when that is above 0,
 * while an earliest remaining time of 0 or less clears that side's whole cache (rows not yet
 * expired go without being padded); the end-of-input watermark {@code Long.MAX_VALUE} expires
 * everything. When both negative (or 0) and positive times remain, which of them the cleanup
 * takes for the earliest depends on the cache's iteration order (RocksDB meets the positive
 * ones first and always clears; the heap meets them in hash order), so there the two backends
 * differ: those scenarios ({@code full_epoch_mixed}, {@code left_epoch}) say so at the end of
 * their description ("the backends' outputs differ").
 *
 * <p>The scenarios named {@code .._on_time..} (after the others) have no late row: every row's
 * time is at least {@code max(0, last watermark) - (upper - lower)}, so its upper bound is above
 * the other side's expiration time and it probes the other side's cache whatever the
 * operator's expiration-time fields hold; Flink resets those fields on restore, so a checkpoint
 * and restore before any watermark change nothing these scenarios emit (the native tests
 * replay them so). The program fails if one of them has a late row ({@link #checkOnTime}).
 *
 * <p>Usage: {@code IntervalJoinVectors <output path> [scenario..]} (all scenarios when none
 * are named), on the planner classpath ({@code classpath-planner.txt}). Output is JSON Lines
 * (UTF-8, LF):
 *
 * <ul>
 *   <li>line 1: {@code {"flink":"2.3.0","seed":"0x..","generator":"java/src/org/streamfusion/
 *       golden/IntervalJoinVectors.java","format":..}};
 *   <li>per scenario, a header {@code {"scenario":name,"description":..,"join_type":"INNER"|
 *       "LEFT"|"RIGHT"|"FULL","zone":..,"backend":"hashmap"|"rocksdb","operator":
 *       "RowTimeIntervalJoin","left_keys":[..],"right_keys":[..],"filter_nulls":[..],
 *       "left_time":i,"right_time":j,"lower":ms,"upper":ms,"min_cleanup_ms":ms,"node":
 *       <description text>,"config":<options text>,"left":[{"name":..,"type":..}..],"right":
 *       [..],"output":[..],"sql":..,"plan":..,"events":n,"rows_out":m}}: {@code left} and
 *       {@code right} are the node's input rows, {@code output} the operator's (the left row
 *       then the right row), keys and times column indexes into a side's row, {@code lower}
 *       and {@code upper} the node's {@code leftLowerBound} and {@code leftUpperBound}, {@code
 *       plan} the translated query's operators;
 *   <li>then n events, each {@code {"in":"+I","side":0|1,"row":[..]}} (side 0 the left input)
 *       or {@code {"watermark":ms}} (both inputs), each immediately followed by the lines {@code
 *       {"out":"+I","row":[..]}} the operator emitted for it, in emission order ({@code m} in
 *       all). Some scenarios end with the watermark {@code Long.MAX_VALUE} (the end of input),
 *       others with rows still cached.
 * </ul>
 *
 * <p>Types and values as {@link JoinVectors} writes them (types without nullability and time
 * attributes; TIMESTAMP(3) and TIMESTAMP_LTZ(3) as epoch milliseconds). Every scenario's rows
 * come from the project's seed and its name (without {@code _rocksdb}), so two runs write
 * byte-identical files.
 */
public final class IntervalJoinVectors {
    static final String GENERATOR = "java/src/org/streamfusion/golden/IntervalJoinVectors.java";
    static final String NODE_TYPE = "stream-exec-interval-join_1";
    static final String CLEANUP = "table.exec.interval-join.min-cleanup-interval";
    static final String[] BACKENDS = {"hashmap", "rocksdb"};
    static final String[] JOIN_TYPES = {"INNER", "LEFT", "RIGHT", "FULL"};
    static final long BASE_MS = NodeVectors.BASE_MS;

    private IntervalJoinVectors() {}

    /**
     * The time condition, as SQL over {@code L} and {@code R}, and the bounds Flink derives
     * from it: {@code L.ts BETWEEN R.ts + lower AND R.ts + upper}, ms.
     */
    record Bounds(String sql, long lower, long upper) {
        /** The scale of a scenario's random times: the widest bound, at least a second. */
        long span() {
            return Math.max(1000, Math.max(Math.abs(lower), Math.abs(upper)));
        }
    }

    static final Bounds SYMMETRIC = new Bounds("L.ts BETWEEN R.ts - INTERVAL '1' SECOND AND"
            + " R.ts + INTERVAL '1' SECOND", -1000, 1000);
    static final Bounds ASYMMETRIC = new Bounds("L.ts BETWEEN R.ts - INTERVAL '1' SECOND AND"
            + " R.ts + INTERVAL '2' SECOND", -1000, 2000);
    /** Strictly before: {@code >} and {@code <} make the bounds one millisecond narrower. */
    static final Bounds BEFORE = new Bounds("L.ts > R.ts - INTERVAL '3' SECOND AND L.ts < R.ts",
            -2999, -1);
    static final Bounds MINUTE_AFTER = new Bounds("L.ts BETWEEN R.ts AND R.ts + INTERVAL '1'"
            + " MINUTE", 0, 60_000);
    /** Both bounds above 0: the left side's relative size is negative. */
    static final Bounds SHIFTED = new Bounds("L.ts BETWEEN R.ts + INTERVAL '0.5' SECOND AND"
            + " R.ts + INTERVAL '2' SECOND", 500, 2000);
    /** Equal times only: no watermark delay. */
    static final Bounds ZERO = new Bounds("L.ts BETWEEN R.ts AND R.ts", 0, 0);
    /** Written over {@code R.ts}: the planner turns it around. */
    static final Bounds ON_RIGHT = new Bounds("R.ts BETWEEN L.ts - INTERVAL '2' SECOND AND"
            + " L.ts + INTERVAL '0.5' SECOND", -500, 2000);

    /**
     * What the scenarios of both interval joins share ({@link ProcTimeIntervalJoinVectors}'s
     * too): the two tables, the query ({@code lhs L} joined with {@code rhs R} on keys, bounds
     * and more conditions) and its options, and the events. {@code S} is the scenario's own
     * class, which the setters return.
     */
    abstract static class IntervalScenario<S extends IntervalScenario<S>> {
        final String name;
        final String description;
        final SplittableRandom rnd;
        String backend = "hashmap";
        String zone = "UTC";
        /** INNER, LEFT, RIGHT or FULL. */
        String joinType = "INNER";
        /** An INNER join as {@code FROM lhs L, rhs R WHERE ..}. */
        boolean comma;
        /** The key condition (may be empty). */
        String keys = "L.k = R.k";
        Bounds bounds;
        /** More conditions (may be empty). */
        String extra = "";
        /** The outer select list, or null for every column of the joined sides. */
        String select;
        long minCleanupMs;
        /** The table columns before those {@link #table} adds. */
        final List<JoinVectors.Column> left = new ArrayList<>();
        final List<JoinVectors.Column> right = new ArrayList<>();
        final List<Event> events = new ArrayList<>();
        /** The last watermark, epoch ms. */
        long lastWatermark = NO_WATERMARK;

        /** A scenario of the join within {@code bounds} (unless {@link #bounds(Bounds)} says). */
        IntervalScenario(String name, String description, Bounds bounds) {
            this.name = name;
            this.description = description;
            this.bounds = bounds;
            this.rnd = TwoInputVectors.twinRandom(name);
        }

        @SuppressWarnings("unchecked")
        S self() {
            return (S) this;
        }

        S backend(String backend) {
            this.backend = backend;
            return self();
        }

        S join(String joinType) {
            this.joinType = joinType;
            return self();
        }

        S comma() {
            this.comma = true;
            return self();
        }

        S keys(String keys) {
            this.keys = keys;
            return self();
        }

        S bounds(Bounds bounds) {
            this.bounds = bounds;
            return self();
        }

        S extra(String extra) {
            this.extra = extra;
            return self();
        }

        S select(String select) {
            this.select = select;
            return self();
        }

        S cleanup(long ms) {
            this.minCleanupMs = ms;
            return self();
        }

        S left(String name, DataType type) {
            left.add(new JoinVectors.Column(name, type));
            return self();
        }

        S right(String name, DataType type) {
            right.add(new JoinVectors.Column(name, type));
            return self();
        }

        /** Both tables: the columns (k INT, v BIGINT). */
        S kv() {
            return left("k", DataTypes.INT()).left("v", DataTypes.BIGINT())
                    .right("k", DataTypes.INT()).right("v", DataTypes.BIGINT());
        }

        /**
         * Both tables: the columns (k INT, s STRING, v BIGINT) on the left, (s STRING, k INT, v
         * BIGINT) on the right, joined on both keys ({@link IntervalJoinVectors#TWO_KEYS} makes
         * their rows).
         */
        S twoKeys() {
            return left("k", DataTypes.INT()).left("s", DataTypes.STRING())
                    .left("v", DataTypes.BIGINT())
                    .right("s", DataTypes.STRING()).right("k", DataTypes.INT())
                    .right("v", DataTypes.BIGINT())
                    .keys("L.k = R.k AND L.s = R.s");
        }

        List<JoinVectors.Column> columns(int side) {
            return side == LEFT ? left : right;
        }

        /**
         * All columns of a side's table: its own ({@link #columns}), then {@code id} and the
         * {@link #timeColumns}.
         */
        List<JoinVectors.Column> table(int side) {
            List<JoinVectors.Column> all = new ArrayList<>(columns(side));
            all.add(new JoinVectors.Column("id", DataTypes.INT().notNull()));
            all.addAll(timeColumns());
            return all;
        }

        /** The physical time columns of both tables, after {@code id}. */
        abstract List<JoinVectors.Column> timeColumns();

        /**
         * A row of {@code side} as the next event: its values, then its id (the event's index)
         * and {@code more} (the values of the {@link #timeColumns}).
         */
        S addRow(int side, Object[] values, Object... more) {
            if (values.length != columns(side).size()) {
                throw new IllegalArgumentException(name + ": a row of " + values.length
                        + " values for " + columns(side).size() + " columns");
            }
            Object[] row = Arrays.copyOf(values, values.length + 1 + more.length);
            row[values.length] = events.size();
            System.arraycopy(more, 0, row, values.length + 1, more.length);
            events.add(new Event(side, row, 0));
            return self();
        }

        /** A watermark of both inputs, {@code at} ms after {@link NodeVectors#BASE}. */
        S wm(long at) {
            return wmEpoch(BASE_MS + at);
        }

        S wmEpoch(long ms) {
            if (ms <= lastWatermark) {
                throw new IllegalArgumentException(name + ": watermark " + ms
                        + " does not exceed " + lastWatermark);
            }
            events.add(new Event(WATERMARK, null, ms));
            lastWatermark = ms;
            return self();
        }

        /**
         * Every column of side {@code side} for the outer select list, the right's renamed with
         * an {@code r} prefix; a rowtime {@code ts} cast to its type (a query's result may hold
         * one rowtime attribute at most).
         */
        String all(int side) {
            String alias = side == LEFT ? "L" : "R";
            String prefix = side == LEFT ? "" : "r";
            List<String> items = new ArrayList<>();
            for (JoinVectors.Column c : table(side)) {
                boolean rowtime = c.name().equals("ts");
                String item = rowtime
                        ? "CAST(" + alias + ".ts AS " + c.dataType().nullable() + ")"
                        : alias + "." + c.name();
                items.add(item + (prefix.isEmpty() && !rowtime ? "" : " AS " + prefix
                        + c.name()));
            }
            return String.join(", ", items);
        }

        /** The join condition: keys, bounds and the rest. */
        String condition() {
            List<String> parts = new ArrayList<>();
            for (String part : new String[] {keys, bounds.sql(), extra}) {
                if (!part.isEmpty()) {
                    parts.add(part);
                }
            }
            return String.join(" AND ", parts);
        }

        String sql() {
            String list = select != null ? select : all(LEFT) + ", " + all(RIGHT);
            if (comma) {
                if (!joinType.equals("INNER")) {
                    throw new IllegalStateException(name + ": a comma join is INNER");
                }
                return "SELECT " + list + " FROM lhs L, rhs R WHERE " + condition();
            }
            return "SELECT " + list + " FROM lhs L "
                    + (joinType.equals("FULL") ? "FULL OUTER" : joinType) + " JOIN rhs R ON "
                    + condition();
        }

        /** The description: the query in words, then what the scenario's rows do. */
        abstract String describe();
    }

    /** A scenario of the event-time join. */
    static final class Scenario extends IntervalScenario<Scenario> {
        boolean ltz;
        /** Whether the last event is the end-of-input watermark. */
        boolean endOfInput = true;
        /** Whether the backends may emit different multisets (rows across the epoch). */
        boolean backendsDiffer;
        /**
         * Whether no row arrives late: none more than the bounds' width ({@code upper -
         * lower}) behind the operator time ({@code max(0, last watermark)}), so that every row
         * probes the other side's cache whatever the expiration times a restore resets (checked
         * by {@link IntervalJoinVectors#checkOnTime}).
         */
        boolean onTime;
        /** Random rows' times are multiples of this (ms), so that times repeat. */
        long grid = 1;

        Scenario(String name, String description) {
            super(name, description, SYMMETRIC);
        }

        Scenario ltz(String zone) {
            this.ltz = true;
            this.zone = zone;
            return this;
        }

        Scenario endOfInput(boolean end) {
            this.endOfInput = end;
            return this;
        }

        Scenario backendsDiffer() {
            this.backendsDiffer = true;
            return this;
        }

        Scenario grid(long ms) {
            this.grid = ms;
            return this;
        }

        /** The rowtime {@code ts}. */
        @Override
        List<JoinVectors.Column> timeColumns() {
            return List.of(new JoinVectors.Column("ts", ltz
                    ? DataTypes.TIMESTAMP_LTZ(3).notNull() : DataTypes.TIMESTAMP(3).notNull()));
        }

        /**
         * A row of {@code side} at {@code at} ms after {@link NodeVectors#BASE}: its values,
         * then its id (the event's index) and its rowtime.
         */
        Scenario at(int side, long at, Object... values) {
            return atEpoch(side, BASE_MS + at, values);
        }

        Scenario atEpoch(int side, long ms, Object... values) {
            return addRow(side, values, ltz ? Instant.ofEpochMilli(ms)
                    : NodeVectors.epochTimestamp(ms));
        }

        /**
         * {@code rows} more rows, each on a random side, from {@code from} (epoch ms) on, {@code
         * step} ms apart on average: one in twelve behind the last watermark by up to three
         * times {@code jitter} (within the bounds or beyond them), one in twelve exactly at it,
         * one in twelve at the previous row's time, the rest out of order by up to {@code
         * jitter} ms (all but those at the watermark rounded down to the {@link #grid}); after
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
                if (dice != 1) {
                    at = Math.floorDiv(at, grid) * grid;
                }
                atEpoch(side, at, values);
                previous = at;
                max = Math.max(max, at);
                if (rnd.nextInt(5) == 0 && max - lag > lastWatermark) {
                    wmEpoch(max - lag);
                }
            }
            return this;
        }

        /**
         * {@link #stream} on the scale of the bounds ({@link Bounds#span}): rows a tenth of it
         * apart after the last watermark, out of order by up to all of it, watermarks half of
         * it behind.
         */
        Scenario random(int rows, RowMaker lefts, RowMaker rights) {
            long span = bounds.span();
            long from = lastWatermark == NO_WATERMARK ? BASE_MS : lastWatermark + span / 2;
            return stream(rows, from, span / 10, span, span / 2, lefts, rights);
        }

        /**
         * {@code rows} more rows none of which arrives late ({@link #onTime}), each on a random
         * side, from {@code from} (epoch ms) on, {@code step} ms apart on average, out of order
         * by up to the bounds' width ({@code upper - lower}); one in twelve exactly the width
         * behind the operator time (the latest a row may come), one in twelve at the last
         * watermark, one in six behind it within the width, one in twelve at the previous row's
         * time (all but those at the limit, the watermark or the previous time rounded down to
         * the {@link #grid}, none before the limit); before one in forty rows a pause of three
         * widths (cleanup timers fire, unmatched outer rows are padded); after every 5 to 15
         * rows a watermark behind the largest row time by none, a quarter, half, all or twice
         * the width (where that does not exceed the last watermark, at the largest row time or
         * up to a step past the last watermark).
         */
        Scenario onTimeStream(int rows, long from, long step, RowMaker lefts,
                RowMaker rights) {
            onTime = true;
            long width = bounds.upper() - bounds.lower();
            long[] lags = {0, width / 4, width / 2, width, 2 * width};
            long max = lastWatermark == NO_WATERMARK ? Long.MIN_VALUE : lastWatermark;
            long previous = from;
            long pause = 0;
            int untilWatermark = 5 + rnd.nextInt(11);
            for (int n = 0; n < rows; n++) {
                int side = rnd.nextInt(2);
                Object[] values = (side == LEFT ? lefts : rights).row(rnd, n);
                if (rnd.nextInt(40) == 0) {
                    pause += 3 * width;
                }
                boolean watermarked = lastWatermark != NO_WATERMARK;
                long limit = lateLimit();
                int dice = rnd.nextInt(12);
                long at;
                boolean exact = true;
                if (dice == 0 && watermarked) {
                    at = limit;
                } else if (dice == 1 && watermarked) {
                    at = lastWatermark;
                } else if (dice <= 3 && watermarked) {
                    at = limit + rnd.nextLong(width);
                    exact = false;
                } else if (dice == 4 && n > 0) {
                    at = previous;
                } else {
                    at = from + pause + step * n - rnd.nextLong(width);
                    exact = false;
                }
                if (!exact) {
                    at = Math.floorDiv(at, grid) * grid;
                }
                at = Math.max(at, limit);
                atEpoch(side, at, values);
                previous = at;
                max = Math.max(max, at);
                if (--untilWatermark == 0) {
                    long w = max - lags[rnd.nextInt(lags.length)];
                    if (w <= lastWatermark) {
                        w = Math.max(max, lastWatermark + 1 + rnd.nextLong(step));
                    }
                    wmEpoch(w);
                    untilWatermark = 5 + rnd.nextInt(11);
                }
            }
            return this;
        }

        /**
         * {@link #onTimeStream} on the scale of the bounds: from half the width after the last
         * watermark on, rows a twentieth of the width apart.
         */
        Scenario onTime(int rows, RowMaker lefts, RowMaker rights) {
            long width = bounds.upper() - bounds.lower();
            long from = lastWatermark == NO_WATERMARK ? BASE_MS : lastWatermark + width / 2;
            return onTimeStream(rows, from, width / 20, lefts, rights);
        }

        /** The earliest time a row may have now and be on time ({@link #onTime}). */
        long lateLimit() {
            return Math.max(0, lastWatermark) - (bounds.upper() - bounds.lower());
        }


        /** The description: the query in words, then what the scenario's rows do. */
        @Override
        String describe() {
            return joinType + " interval join" + (comma ? " (comma join)" : "") + " on "
                    + condition() + ", min-cleanup-interval " + minCleanupMs + " ms"
                    + (ltz ? ", a TIMESTAMP_LTZ(3) rowtime in " + zone : "") + ": "
                    + description
                    + (onTime ? "; on time: no row more than the bounds' width ("
                            + (bounds.upper() - bounds.lower()) + " ms) behind the watermark"
                            : "")
                    + (endOfInput ? "; ends with the end-of-input watermark"
                            : "; no end-of-input watermark (rows stay cached)")
                    + (backendsDiffer ? "; the backends' outputs differ (cleanup across the"
                            + " epoch depends on the cache's iteration order)" : "");
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

    /**
     * An interval join's scenario planned (event or processing time, {@link
     * ProcTimeIntervalJoinVectors}): the released function Flink built and what the file's
     * header says of the node.
     */
    abstract static class Joined<S extends IntervalScenario<S>> extends TwoInputVectors.Planned {
        final S scenario;
        /**
         * The released function inside the operator: a {@code TimeIntervalJoin}, {@code
         * RowTimeIntervalJoin} or {@code ProcTimeIntervalJoin}.
         */
        KeyedCoProcessFunction<?, ?, ?, ?> function;
        /** The time columns of the two sides. */
        int[] times;
        long lower;
        long upper;
        long minCleanupMs;

        Joined(S scenario, int tag) {
            super(scenario.name, tag);
            this.scenario = scenario;
        }
    }

    /** A scenario planned: the interval join operator Flink built and what the file says. */
    static final class Planned extends Joined<Scenario> {
        Planned(Scenario scenario, int tag) {
            super(scenario, tag);
        }

        @Override
        long[] due(int side) {
            return Arrays.stream(scenario.schedule(side)).flatMapToLong(Arrays::stream)
                    .toArray();
        }
    }

    public static void main(String[] args) throws Exception {
        List<Scenario> scenarios = TwoInputVectors.selected(args, "IntervalJoinVectors",
                IntervalJoinVectors::scenarios, s -> s.name);
        List<Planned> planned = TwoInputVectors.inputs(scenarios, IntervalJoinVectors::plan,
                "interval-join-inputs");
        for (Planned p : planned) {
            feed(p, p.scenario.endOfInput);
            if (p.scenario.onTime) {
                checkOnTime(p);
            }
        }
        TwoInputVectors.runBackends(planned, BACKENDS, p -> p.scenario.backend, "interval join");
        compareTwins(planned);
        TwoInputVectors.writeFile(args[0], GENERATOR, FORMAT_HEAD + " or {\"watermark\":ms} (both"
                + " inputs)" + FORMAT_TAIL, planned, IntervalJoinVectors::write);
    }

    /**
     * The file's format up to the events other than rows ({@link ProcTimeIntervalJoinVectors}
     * names its own), and after them.
     */
    static final String FORMAT_HEAD = "per scenario: a header line (scenario, description,"
            + " join_type, zone, backend, operator, left_keys, right_keys, filter_nulls,"
            + " left_time, right_time, lower and upper: leftLowerBound and leftUpperBound in ms,"
            + " min_cleanup_ms, node and config: the planner's texts for flink::plan_node, left,"
            + " right and output columns, sql, plan, events, rows_out), then events lines"
            + " {\"in\":kind,\"side\":0|1,\"row\":[..]}";
    static final String FORMAT_TAIL = ", each followed by the {\"out\":kind,\"row\":[..]} lines"
            + " emitted for it; BIGINT, DOUBLE (Double.toString), DECIMAL (plain) and TIMESTAMP"
            + " (epoch ms) values are strings";

    // ---------------------------------------------------------------- planning

    /**
     * Plans the scenario's query in {@code tEnv} and returns the interval join operator Flink
     * built, checked against the node and the scenario ({@link #planJoin}).
     */
    static Planned plan(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Scenario s,
            int tag) throws Exception {
        return planJoin(tEnv, new Planned(s, tag),
                (side, view) -> TwoInputVectors.view(env, tEnv, s.name, s.table(side), s.events,
                        side, s.schedule(side), view),
                KeyedCoProcessOperatorWithWatermarkDelay.class, RowTimeIntervalJoin.class, true,
                IntervalJoinVectors::check);
    }

    /** Creates view {@code view} of side {@code side}'s table. */
    interface View {
        void create(int side, String view);
    }

    /**
     * What one interval join checks of its node beyond {@link #checkJoin}: adds what differs
     * to {@code problems}, may fill in more of what the file says.
     */
    interface Check<P> {
        void check(P p, List<String> problems) throws Exception;
    }

    /**
     * Plans {@code p}'s scenario in {@code tEnv} (its tables the views {@code lhs} and {@code
     * rhs} that {@code view} creates, the session's options the scenario's) and returns {@code
     * p}, its node's interval join operator Flink built: exactly an {@code operatorClass}
     * around exactly a {@code functionClass}, over event time where {@code eventTime}, else
     * processing time; checked against the node and the scenario by {@link #checkJoin} and
     * {@code check}, which fill in what the file says.
     */
    static <P extends Joined<?>> P planJoin(StreamTableEnvironment tEnv, P p, View view,
            Class<?> operatorClass, Class<?> functionClass, boolean eventTime, Check<P> check)
            throws Exception {
        IntervalScenario<?> s = p.scenario;
        StreamFusionPlanner.clearDecisions();
        ExecNodeContext.resetIdCounter();
        TableConfig config = tEnv.getConfig();
        config.set(StreamFusionPlanner.ENABLED, true);
        config.set("table.local-time-zone", s.zone);
        config.set("table.exec.mini-batch.enabled", "false");
        config.set("table.exec.async-state.enabled", "false");
        config.set(CLEANUP, s.minCleanupMs + " ms");
        for (int side = 0; side < 2; side++) {
            view.create(side, side == LEFT ? "lhs" : "rhs");
        }
        p.sql = s.sql();
        Table result = tEnv.sqlQuery(p.sql);
        DataStream<Row> changes = tEnv.toChangelogStream(result);
        Transformation<?> root = changes.getTransformation();
        p.plan = TwoInputVectors.plan(root);
        // Exactly the released operator and function.
        @SuppressWarnings("unchecked")
        AbstractStreamOperator<RowData> operator = (AbstractStreamOperator<RowData>)
                TwoInputVectors.joinOperator(p, root, "IntervalJoin", operatorClass);
        p.operator = operator;
        Object function = ((AbstractUdfStreamOperator<?, ?>) operator).getUserFunction();
        if (function.getClass() != functionClass) {
            throw new IllegalStateException(s.name + ": the join function is "
                    + function.getClass().getName());
        }
        p.function = (KeyedCoProcessFunction<?, ?, ?, ?>) function;
        TwoInputVectors.decision(p, NODE_TYPE);

        JsonNode description = JoinVectors.JSON.readTree(p.description);
        List<String> problems = new ArrayList<>();
        checkJoin(p, description, eventTime, problems);
        check.check(p, problems);
        JsonNode summary = description.get("node").path("description");
        if (!summary.asText().startsWith("IntervalJoin(")
                || !summary.asText().contains("isRowTime=" + eventTime)) {
            problems.add("not " + (eventTime ? "an event-time" : "a processing-time")
                    + " interval join: " + summary);
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(s.name + ": the interval join is not what the"
                    + " scenario asks for: " + problems + " in " + p.description);
        }
        System.err.printf("%s: %s [%d, %d] cleanup %d ms, keys %s/%s, filter nulls %s,"
                + " times %s%n", s.name, s.joinType, p.lower, p.upper, p.minCleanupMs,
                Arrays.toString(p.keys[LEFT]), Arrays.toString(p.keys[RIGHT]),
                Arrays.toString(p.filterNulls), Arrays.toString(p.times));
        return p;
    }

    /**
     * Checks what only the event-time join has against the node ({@link #planJoin}): the time
     * columns the function reads, its output watermark delay and the operator's.
     */
    static void check(Planned p, List<String> problems) {
        RowTimeIntervalJoin function = (RowTimeIntervalJoin) p.function;

        // The time columns, as the function reads them.
        String[] timeFields = {"leftTimeIdx", "rightTimeIdx"};
        for (int side = 0; side < 2; side++) {
            int at = (int) JoinVectors.field(function, timeFields[side]);
            if (at != p.times[side]) {
                problems.add(timeFields[side] + " " + at + ", the node's " + p.times[side]);
            }
        }

        // The output watermark delay: max(-lower, upper), none for 0.
        long delay = Math.max(-p.lower, p.upper);
        if (function.getMaxOutputDelay() != delay) {
            problems.add("max output delay " + function.getMaxOutputDelay() + ", not "
                    + delay);
        }
        Object adjustment = JoinVectors.field(p.operator, "outputAdjustment");
        boolean delayed = adjustment.getClass().getSimpleName()
                .equals("DelayedOutputAdjustment");
        if (delayed != (delay != 0)
                || delayed && (long) JoinVectors.field(adjustment, "watermarkDelay") != delay) {
            problems.add("output adjustment " + adjustment.getClass().getName() + " for a delay"
                    + " of " + delay);
        }
    }

    /**
     * Checks what every interval join's node and released function ({@code TimeIntervalJoin})
     * share against each other and against {@code p}'s scenario (node type, keys, NULL
     * filters, input and output columns, join type, time columns: {@code ts} rowtime
     * attributes where {@code eventTime}, else {@code pt} proctime ones, bounds, relative
     * sizes, no allowed lateness, minimum cleanup interval as the operator and the options
     * have it, time zone); fills in what the file's header says. Adds what differs to {@code
     * problems}.
     */
    static void checkJoin(Joined<?> p, JsonNode description, boolean eventTime,
            List<String> problems) throws Exception {
        IntervalScenario<?> s = p.scenario;
        JsonNode node = description.get("node");
        NodeVectors.expect(problems, node, "type", NODE_TYPE);
        JsonNode spec = node.get("intervalJoinSpec");
        JsonNode joinSpec = spec.get("joinSpec");
        JsonNode windowBounds = spec.get("windowBounds");
        Object function = p.function;

        p.keys = new int[][] {JoinVectors.ints(joinSpec.get("leftKeys")),
            JoinVectors.ints(joinSpec.get("rightKeys"))};
        TwoInputVectors.columns(p, description, problems);

        // The join type.
        NodeVectors.expect(problems, joinSpec, "joinType", s.joinType);
        if (!((Enum<?>) JoinVectors.field(function, "joinType")).name().equals(s.joinType)) {
            problems.add("function join type " + JoinVectors.field(function, "joinType"));
        }

        // The keys' NULL filters, as the join function applies them.
        JsonNode nulls = joinSpec.get("filterNulls");
        p.filterNulls = new boolean[nulls.size()];
        for (int i = 0; i < p.filterNulls.length; i++) {
            p.filterNulls[i] = nulls.get(i).asBoolean();
        }
        Object joinFunction = JoinVectors.field(function, "joinFunction");
        int[] nullFilterKeys = (int[]) JoinVectors.field(joinFunction, "nullFilterKeys");
        List<Integer> filtered = new ArrayList<>();
        for (int i = 0; i < p.filterNulls.length; i++) {
            if (p.filterNulls[i]) {
                filtered.add(i);
            }
        }
        boolean nullSafe = (boolean) JoinVectors.field(joinFunction, "nullSafe");
        boolean filterAllNulls = (boolean) JoinVectors.field(joinFunction, "filterAllNulls");
        if (p.keys[LEFT].length != p.keys[RIGHT].length
                || p.filterNulls.length != p.keys[LEFT].length
                || !Arrays.equals(nullFilterKeys, filtered.stream().mapToInt(i -> i).toArray())
                || nullSafe != filtered.isEmpty()
                || filterAllNulls != (filtered.size() == p.filterNulls.length)) {
            problems.add("filterNulls " + nulls + ", the function's null filter keys "
                    + Arrays.toString(nullFilterKeys) + " (null safe " + nullSafe
                    + ", all " + filterAllNulls + ")");
        }

        // The time columns and the bounds.
        NodeVectors.expect(problems, windowBounds, "isEventTime", String.valueOf(eventTime));
        p.times = new int[] {windowBounds.get("leftTimeIndex").asInt(),
            windowBounds.get("rightTimeIndex").asInt()};
        TimestampKind kind = eventTime ? TimestampKind.ROWTIME : TimestampKind.PROCTIME;
        String name = eventTime ? "ts" : "pt";
        for (int side = 0; side < 2; side++) {
            RowType type = ((InternalTypeInfo<?>) p.transformation.getInputs().get(side)
                    .getOutputType()).toRowType();
            LogicalType time = type.getTypeAt(p.times[side]);
            boolean attribute = time instanceof TimestampType ts
                    ? ts.getKind() == kind
                    : time instanceof LocalZonedTimestampType ltz && ltz.getKind() == kind;
            if (!attribute || !type.getFieldNames().get(p.times[side]).equals(name)) {
                problems.add("time column " + p.times[side] + " of " + type);
            }
        }
        p.lower = windowBounds.get("leftLowerBound").asLong();
        p.upper = windowBounds.get("leftUpperBound").asLong();
        if (p.lower != s.bounds.lower() || p.upper != s.bounds.upper()) {
            problems.add("bounds [" + p.lower + ", " + p.upper + "], the scenario's "
                    + s.bounds);
        }
        if ((long) JoinVectors.field(function, "leftRelativeSize") != -p.lower
                || (long) JoinVectors.field(function, "rightRelativeSize") != p.upper
                || (long) JoinVectors.field(function, "allowedLateness") != 0) {
            problems.add("relative sizes " + JoinVectors.field(function, "leftRelativeSize")
                    + "/" + JoinVectors.field(function, "rightRelativeSize") + ", lateness "
                    + JoinVectors.field(function, "allowedLateness"));
        }

        // The minimum cleanup interval: the operator's, and what the planner hands over.
        p.minCleanupMs = (long) JoinVectors.field(function, "minCleanUpInterval");
        if (p.minCleanupMs != Math.max(0, s.minCleanupMs)) {
            problems.add("min cleanup interval " + p.minCleanupMs + ", the scenario's "
                    + s.minCleanupMs);
        }
        JsonNode options = JoinVectors.JSON.readTree(p.config);
        NodeVectors.expect(problems, options, CLEANUP, p.minCleanupMs + " ms");
        NodeVectors.expect(problems, options, "table.local-time-zone", s.zone);
    }

    /**
     * Sets {@code p}'s events: its scenario's (each table row its one node row), then the end
     * of input where {@code endOfInput}.
     */
    static void feed(Joined<?> p, boolean endOfInput) throws Exception {
        IntervalScenario<?> s = p.scenario;
        List<Integer> sides = new ArrayList<>();
        List<byte[]> rows = new ArrayList<>();
        List<Long> watermarks = new ArrayList<>();
        TwoInputVectors.rowFeed(p, s.events, s::table, sides, rows, watermarks);
        if (sides.size() != s.events.size()) {
            throw new IllegalStateException(s.name + ": " + s.events.size() + " events became "
                    + sides.size() + " (a table row is one node row)");
        }
        if (endOfInput) {
            sides.add(WATERMARK);
            rows.add(null);
            watermarks.add(END_OF_INPUT);
        }
        TwoInputVectors.feed(p, sides, rows, watermarks);
    }

    /**
     * Fails unless no row of {@code p}'s events (as the operator receives them) is late: for
     * every row, its time {@code t >= max(0, last watermark before it) - (upper - lower)}, the
     * node's bounds. Such a row's upper bound ({@code t - lower} on the left, {@code t + upper}
     * on the right) is above the other side's expiration time ({@code operator time - its
     * relative size - 1}), so it probes the other side's cache whether or not a restore reset
     * the operator's expiration-time fields: a checkpoint and restore before any watermark
     * change nothing the operator emits.
     */
    static void checkOnTime(Planned p) {
        long width = p.upper - p.lower;
        long operatorTime = 0;
        int rows = 0;
        for (int i = 0; i < p.feed.size(); i++) {
            int side = p.feed.side(i);
            if (side < 0) {
                operatorTime = Math.max(operatorTime, p.feed.watermark(i));
                continue;
            }
            rows++;
            long t = p.feed.row(i).getTimestamp(p.times[side], 3).getMillisecond();
            if (operatorTime == END_OF_INPUT || t < operatorTime - width) {
                throw new IllegalStateException(p.name + ": event " + i + ", a row of side "
                        + side + " at " + t + ", is late: more than " + width + " ms behind"
                        + " the operator time " + operatorTime);
            }
        }
        if (rows == 0) {
            throw new IllegalStateException(p.name + ": no rows");
        }
    }

    /**
     * Fails unless every scenario and its {@code _rocksdb} twin have the same events and, for
     * every event, the same outputs as multisets; where the scenario says the backends differ,
     * reports how many events' outputs do instead.
     */
    static void compareTwins(List<Planned> planned) {
        Map<String, Planned> byName = new LinkedHashMap<>();
        for (Planned p : planned) {
            byName.put(p.name, p);
        }
        for (Planned heap : planned) {
            Planned rocks = byName.get(heap.name + "_rocksdb");
            if (rocks == null) {
                continue;
            }
            if (!heap.sql.equals(rocks.sql) || heap.feed.size() != rocks.feed.size()
                    || heap.scenario.backendsDiffer != rocks.scenario.backendsDiffer) {
                throw new IllegalStateException(heap.name + ": its twin differs");
            }
            if (!heap.scenario.backendsDiffer) {
                JoinVectors.compareOutputs(heap.name, heap.outputs, rocks.outputs);
                continue;
            }
            int differ = 0;
            for (int i = 0; i < heap.outputs.size(); i++) {
                List<String> a = new ArrayList<>(heap.outputs.get(i));
                List<String> b = new ArrayList<>(rocks.outputs.get(i));
                a.sort(null);
                b.sort(null);
                differ += a.equals(b) ? 0 : 1;
            }
            System.err.printf("%s: %d events' outputs differ between the backends%n",
                    heap.name, differ);
        }
    }

    // ---------------------------------------------------------------- writing

    /** The lines of an interval join's scenario {@code p}: its header, then its events. */
    static void write(Joined<?> p, StringBuilder out) {
        header(p, out);
        TwoInputVectors.writeEvents(p, out);
    }

    /**
     * The header line of an interval join's scenario {@code p}: its name, description, join
     * type, session time zone, state backend, and what was planned.
     */
    static void header(Joined<?> p, StringBuilder out) {
        IntervalScenario<?> s = p.scenario;
        out.append("{\"scenario\":");
        Json.string(out, p.name);
        out.append(",\"description\":");
        Json.string(out, s.describe());
        out.append(",\"join_type\":");
        Json.string(out, s.joinType);
        out.append(",\"zone\":");
        Json.string(out, s.zone);
        out.append(",\"backend\":");
        Json.string(out, s.backend);
        out.append(",\"operator\":");
        Json.string(out, p.function.getClass().getSimpleName());
        out.append(",\"left_keys\":").append(NodeVectors.list(p.keys[LEFT]))
                .append(",\"right_keys\":").append(NodeVectors.list(p.keys[RIGHT]))
                .append(",\"filter_nulls\":[");
        for (int i = 0; i < p.filterNulls.length; i++) {
            out.append(i == 0 ? "" : ",").append(p.filterNulls[i]);
        }
        out.append("],\"left_time\":").append(p.times[LEFT])
                .append(",\"right_time\":").append(p.times[RIGHT])
                .append(",\"lower\":").append(p.lower)
                .append(",\"upper\":").append(p.upper)
                .append(",\"min_cleanup_ms\":").append(p.minCleanupMs)
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
    }

    // ---------------------------------------------------------------- scenarios

    static final Object[] KEYS = {1, 2, 3, null};
    static final Object[] FEW_KEYS = {1, 2};
    static final Object[] NULL_HEAVY_KEYS = {1, 2, null, null, null};
    static final Object[] LONGS = {null, 0L, 1L, 5L, -7L, 42L};
    /** On-time keys (1 and 2 more often than the rest): each side has one the other lacks. */
    static final Object[] ON_TIME_LEFT = {1, 1, 2, 2, 3, 4, null};
    static final Object[] ON_TIME_RIGHT = {1, 1, 2, 2, 3, 5, null};
    static final Object[] NULL_HEAVY_LEFT = {1, 2, 4, null, null, null};
    static final Object[] NULL_HEAVY_RIGHT = {1, 2, 5, null, null, null};
    static final String ON_TIME = "on-time random rows (none more than the bounds' width behind"
            + " the watermark, some exactly that far, some at it, some behind it within the"
            + " width): values with NULL, out of order within the width, equal times, a"
            + " watermark every 5 to 15 rows, pauses in which cleanup timers pad unmatched outer"
            + " rows";
    static final String RANDOM = "random rows: keys with NULL, values with NULL, out of order,"
            + " equal times, at and far behind the watermark";

    /** Random (k, v) rows: keys {@code keys}, values from {@link #LONGS}. */
    static RowMaker kv(Object[] keys) {
        return (r, n) -> new Object[] {NodeVectors.pick(r, keys), NodeVectors.pick(r, LONGS)};
    }

    /** The STRING keys of {@link #TWO_KEYS}' rows. */
    static final Object[] TWO_KEY_STRINGS = {"a", "b", null};
    /**
     * Random rows of the tables {@link IntervalScenario#twoKeys} makes, the left's and the
     * right's: keys from {@link #KEYS} and {@link #TWO_KEY_STRINGS}, values from {@link #LONGS}.
     */
    static final RowMaker[] TWO_KEYS = {
        (r, n) -> new Object[] {
            NodeVectors.pick(r, KEYS), NodeVectors.pick(r, TWO_KEY_STRINGS),
            NodeVectors.pick(r, LONGS)
        },
        (r, n) -> new Object[] {
            NodeVectors.pick(r, TWO_KEY_STRINGS), NodeVectors.pick(r, KEYS),
            NodeVectors.pick(r, LONGS)
        }
    };

    /** The (k, v) tables joined by {@code joinType} on {@code L.k = R.k} within {@code b}. */
    static Scenario kvScenario(String name, String description, String joinType, Bounds b,
            String backend) {
        return new Scenario(name, description).kv().join(joinType).bounds(b).backend(backend);
    }

    static List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        for (String backend : BACKENDS) {
            String x = NodeVectors.suffix(backend);
            for (String type : JOIN_TYPES) {
                String t = type.toLowerCase();
                // Every join type, four shapes of bounds, three cleanup intervals, with and
                // without the end of input.
                Scenario symmetric = traced(t + "_symmetric" + x, type, SYMMETRIC, backend);
                list.add(type.equals("INNER") ? symmetric.comma() : symmetric);
                list.add(traced(t + "_asymmetric_cleanup" + x, type, ASYMMETRIC, backend)
                        .cleanup(500).endOfInput(false));
                list.add(traced(t + "_before" + x, type, BEFORE, backend).cleanup(5_000));
                list.add(random(t + "_minute_after" + x, type, MINUTE_AFTER, backend)
                        .endOfInput(false));
            }
            list.add(random("left_shifted" + x, "LEFT", SHIFTED, backend).cleanup(500));
            list.add(random("full_on_right" + x, "FULL", ON_RIGHT, backend));
            list.add(nonEqui("left_nonequi" + x, "LEFT", backend));
            list.add(nonEqui("full_nonequi" + x, "FULL", backend).cleanup(5_000)
                    .endOfInput(false));
            list.add(random("full_null_keys" + x, "FULL", SYMMETRIC, backend, NULL_HEAVY_KEYS));
            list.add(twoKeys("right_two_keys" + x, backend));
            list.add(random("left_not_distinct" + x, "LEFT", ASYMMETRIC, backend)
                    .keys("L.k IS NOT DISTINCT FROM R.k"));
            list.add(zoned("full_ltz_shanghai" + x, "FULL", backend));
            list.add(epochTraced("full_epoch_traced" + x, backend));
            list.add(epoch("left_epoch" + x, "LEFT", backend));
            list.add(hotKey("inner_hot_key" + x, backend));
        }
        list.add(zeroWidth("inner_zero_width", "INNER", "hashmap"));
        list.add(zeroWidth("full_zero_width_rocksdb", "FULL", "rocksdb"));
        list.add(random("inner_no_keys", "INNER", SYMMETRIC, "hashmap").keys("")
                .cleanup(5_000));
        list.add(random("full_no_keys_rocksdb", "FULL", BEFORE, "rocksdb").keys(""));
        list.add(types("left_types", "hashmap"));
        list.add(types("right_types_rocksdb", "rocksdb").join("RIGHT").endOfInput(false));
        list.add(narrow("inner_narrow_rocksdb", "rocksdb"));
        list.add(epochMixed("full_epoch_mixed", "hashmap"));
        list.add(epochMixed("full_epoch_mixed_rocksdb", "rocksdb"));
        // On time (no row more than the bounds' width behind the watermark): replayed with a
        // checkpoint and restore before every watermark.
        for (String backend : BACKENDS) {
            String x = NodeVectors.suffix(backend);
            list.add(onTime("inner_on_time" + x, "INNER", SYMMETRIC, backend, 1));
            list.add(onTime("left_on_time" + x, "LEFT", SYMMETRIC, backend, 100));
            list.add(onTime("right_on_time" + x, "RIGHT", SYMMETRIC, backend, 1));
            list.add(onTime("full_on_time" + x, "FULL", SYMMETRIC, backend, 50,
                    NULL_HEAVY_LEFT, NULL_HEAVY_RIGHT));
            list.add(onTime("inner_on_time_cleanup" + x, "INNER", ASYMMETRIC, backend, 100)
                    .cleanup(500));
            list.add(onTime("left_on_time_cleanup" + x, "LEFT", ASYMMETRIC, backend, 1)
                    .cleanup(500).endOfInput(false));
            list.add(onTime("full_on_time_cleanup" + x, "FULL", ASYMMETRIC, backend, 1)
                    .cleanup(500));
            list.add(onTime("right_on_time_before" + x, "RIGHT", BEFORE, backend, 100)
                    .cleanup(5_000));
            list.add(onTime("full_on_time_before" + x, "FULL", BEFORE, backend, 1)
                    .cleanup(5_000).endOfInput(false));
            list.add(onTimeNonEqui("left_on_time_nonequi" + x, "LEFT", SYMMETRIC, backend));
            list.add(onTimeNonEqui("full_on_time_nonequi" + x, "FULL", ASYMMETRIC, backend)
                    .cleanup(500));
            list.add(onTimeTraced("full_on_time_traced" + x, backend));
        }
        return list;
    }

    /**
     * 120 on-time random (k, v) rows ({@link Scenario#onTime}) on a {@code grid} ms grid: keys
     * {@code lefts} on the left and {@code rights} on the right (each with a key the other side
     * lacks: outer rows that never match, padded when their cleanup timers fire).
     */
    static Scenario onTime(String name, String joinType, Bounds b, String backend, long grid) {
        return onTime(name, joinType, b, backend, grid, ON_TIME_LEFT, ON_TIME_RIGHT);
    }

    static Scenario onTime(String name, String joinType, Bounds b, String backend, long grid,
            Object[] lefts, Object[] rights) {
        return kvScenario(name, ON_TIME + (grid > 1 ? " on a " + grid + " ms grid" : "")
                + ", keys " + keysText(lefts) + " on the left and " + keysText(rights)
                + " on the right", joinType, b, backend)
                .grid(grid)
                .onTime(120, kv(lefts), kv(rights));
    }

    /** {@link #onTime} with the condition {@code L.v > R.v} besides the key and the bounds. */
    static Scenario onTimeNonEqui(String name, String joinType, Bounds b, String backend) {
        Object[] lefts = {1, 2, 4, null};
        Object[] rights = {1, 2, 5, null};
        return kvScenario(name, "the condition L.v > R.v decides the matches (NULL v never"
                + " matches); " + ON_TIME + ", keys " + keysText(lefts) + " on the left and "
                + keysText(rights) + " on the right", joinType, b, backend)
                .extra("L.v > R.v")
                .onTime(130, kv(lefts), kv(rights));
    }

    /**
     * Traced on-time rows (shaped for bounds of a second either side), then 100 random ones:
     * two rows of one time on one side, matches at both bounds and one millisecond past one,
     * a side's cache cleaned up by its timer,
     * keys on one side only and NULL keys (padded when their cleanup timers fire), rows
     * exactly the bounds' width behind the watermark (one meeting a cached row, one meeting
     * nothing: padded at once), behind it within the width, at it.
     */
    static Scenario onTimeTraced(String name, String backend) {
        Scenario s = kvScenario(name, "traced: equal times on one side, matches at both bounds"
                + " and one millisecond past one, keys on one side only, NULL keys, rows"
                + " exactly the bounds' width behind the watermark, behind it within the"
                + " width, at it; then 100 " + ON_TIME + ", keys " + keysText(ON_TIME_LEFT)
                + " on the left and " + keysText(ON_TIME_RIGHT) + " on the right", "FULL",
                SYMMETRIC, backend);
        // What each row does with bounds of a second either side:
        s.at(LEFT, 1_000, 1, 10L)
                .at(LEFT, 1_000, 1, 11L)      // two left rows of one time: met in this order
                .at(RIGHT, 2_000, 1, 20L)     // a second after them: meets both
                .at(RIGHT, 2_001, 1, 21L)     // a millisecond more: meets neither
                .at(RIGHT, 0, 1, 22L)         // out of order, a second before: meets both
                .at(LEFT, 1_500, 4, 12L)      // key 4: left only, never matches
                .at(RIGHT, 1_500, 5, 23L)     // key 5: right only, never matches
                .at(LEFT, 1_600, null, 13L)   // NULL keys never match
                .at(RIGHT, 1_600, null, 24L)
                .wm(1_500)                    // rows may come from -500 on
                .at(LEFT, -500, 1, 14L)       // the width behind: meets 0 (expired), not cached
                .at(RIGHT, -500, 1, 25L)      // the width behind, meets nothing: padded at once
                .at(RIGHT, 600, 1, 26L)       // behind the watermark within the width: meets
                                              // the two at 1000, cached
                .at(LEFT, 1_500, 1, 15L)      // at the watermark: meets 600, 2000 and 2001
                .at(RIGHT, 1_500, 2, 27L)
                .at(LEFT, 2_400, 2, 16L)      // meets 1500 (key 2)
                .wm(2_600)                    // key 4's and key 5's cleanup timers (2501) pad
                                              // them
                .at(LEFT, 600, 2, 17L)        // the width behind: key 2's 1500 cleaned up,
                                              // meets nothing: padded at once
                .at(RIGHT, 3_000, 1, 28L)
                .wm(3_000);                   // the NULL keys' timers (2601) pad them
        return s.onTime(100, kv(ON_TIME_LEFT), kv(ON_TIME_RIGHT));
    }

    /** Random (k, v) rows over a few keys with NULL, duplicates likely. */
    static Scenario random(String name, String joinType, Bounds b, String backend) {
        return random(name, joinType, b, backend, KEYS);
    }

    static Scenario random(String name, String joinType, Bounds b, String backend,
            Object[] keys) {
        return kvScenario(name, RANDOM + ", keys " + keysText(keys), joinType, b, backend)
                .random(100, kv(keys), kv(keys));
    }

    static String keysText(Object[] keys) {
        return Arrays.toString(keys).replace("[", "").replace("]", "");
    }

    /**
     * Traced rows (shaped for bounds of a second either side), then random ones: two rows of
     * one time on one side and their matches in list order, matches at the bounds and one
     * millisecond past them, keys on one side only, NULL keys on both sides, a NULL value,
     * rows out of order, rows behind the watermark within the bounds (cached and joined) and
     * beyond them (joined with what is cached, never cached, padded at once when outer and
     * unmatched), rows at the watermark, watermarks that fire cleanup timers.
     */
    static Scenario traced(String name, String joinType, Bounds b, String backend) {
        Scenario s = kvScenario(name, "traced: equal times on one side, matches at and one"
                + " millisecond past the bounds, keys on one side only, NULL keys on both, a"
                + " NULL value, rows out of order, behind the watermark within and beyond the"
                + " bounds, at the watermark; then 80 " + RANDOM, joinType, b, backend);
        // What each row does with bounds of a second either side:
        s.at(LEFT, 1_000, 1, 10L)
                .at(LEFT, 1_000, 1, 11L)      // two left rows of one time: met in this order
                .at(RIGHT, 1_500, 1, 20L)
                .at(RIGHT, 2_000, 1, 21L)     // at the bound: meets both
                .at(RIGHT, 2_001, 1, 22L)     // one millisecond past it: meets neither
                .at(LEFT, 3_001, 1, 12L)      // meets 2001, not 2000
                .at(LEFT, 1_200, 2, 13L)      // key 2: left only (for now)
                .at(RIGHT, 1_300, 3, 23L)     // key 3: right only (for now)
                .at(LEFT, 1_400, null, 14L)   // NULL keys never match
                .at(RIGHT, 1_400, null, 24L)
                .at(LEFT, 1_600, 1, null)     // a NULL value
                .at(RIGHT, 500, 1, 25L)       // out of order
                .wm(1_500)
                .at(LEFT, 400, 1, 15L)        // behind the watermark beyond the bounds: not
                .at(LEFT, 300, 3, 16L)        // cached, meets what is cached (500; 1300)
                .at(LEFT, 100, 2, 17L)        // meets nothing: padded at once
                .at(RIGHT, 200, 2, 26L)       // meets 1200
                .at(RIGHT, 100, 3, 27L)       // meets nothing (300 was not cached)
                .at(LEFT, 900, 3, 28L)        // behind the watermark within the bounds: cached
                .wm(2_001)
                .at(LEFT, 2_001, 1, 18L)      // at the watermark
                .at(RIGHT, 3_000, 2, 29L)
                .at(RIGHT, 2_001, 1, 30L)     // the same time again, on the right
                .wm(3_500)                    // the NULL keys' rows expire: padded
                .at(RIGHT, 3_500, 1, 31L)
                .at(LEFT, 5_000, 4, 19L)      // key 4: 1 s apart and 1001 ms apart
                .at(RIGHT, 4_000, 4, 32L)
                .at(RIGHT, 6_001, 4, 33L)
                .at(RIGHT, 2_600, 3, 34L)     // behind the watermark within the bounds
                .wm(4_999)
                .at(LEFT, 6_000, 4, 35L)
                .wm(7_100);
        return s.random(80, kv(KEYS), kv(KEYS));
    }

    /**
     * Bounds {@code [0, 0]}: only rows of equal times meet (random times on a 100 ms grid), a
     * row at or behind the watermark is never cached, and the output watermark is not delayed.
     */
    static Scenario zeroWidth(String name, String joinType, String backend) {
        Object[] keys = {1, 2, null};
        return kvScenario(name, RANDOM + " on a 100 ms grid (about ten rows a time), keys "
                + keysText(keys), joinType, ZERO, backend)
                .grid(100)
                .stream(100, BASE_MS, 10, 300, 500, kv(keys), kv(keys));
    }

    /** The join condition {@code L.v > R.v} besides the key and the bounds. */
    static Scenario nonEqui(String name, String joinType, String backend) {
        return kvScenario(name, "the condition L.v > R.v decides the matches (NULL v never"
                + " matches), unmatched outer rows padded; " + RANDOM + ", two keys", joinType,
                SYMMETRIC, backend)
                .extra("L.v > R.v")
                .random(120, kv(FEW_KEYS), kv(FEW_KEYS));
    }

    /** Two key columns, an INT and a STRING, both with NULLs, in another order on the right. */
    static Scenario twoKeys(String name, String backend) {
        return new Scenario(name, "INT and STRING keys with NULLs, in another column order on"
                + " the right; " + RANDOM)
                .twoKeys().join("RIGHT").bounds(ASYMMETRIC).backend(backend)
                .random(120, TWO_KEYS[LEFT], TWO_KEYS[RIGHT]);
    }

    /**
     * A TIMESTAMP_LTZ(3) rowtime in Asia/Shanghai: the operator reads epoch milliseconds, the
     * session zone changes nothing it does; random rows around a local midnight.
     */
    static Scenario zoned(String name, String joinType, String backend) {
        Scenario s = kvScenario(name, "rows around local midnight (16:00Z); " + RANDOM,
                joinType, ASYMMETRIC, backend)
                .ltz("Asia/Shanghai");
        long from = Instant.parse("2026-03-01T15:59:55Z").toEpochMilli();
        return s.stream(100, from, 100, 1000, 500, kv(KEYS), kv(KEYS));
    }

    /**
     * Rows at and before the epoch: operator time is 0 while the watermark is not above it, so
     * a row at or before {@code -1000} (the bounds' width) is never cached; cleanup timers of
     * rows cached before the epoch fire after it; a cleanup whose earliest remaining time is 0
     * or less clears the side's cache without padding (rows that would still match are gone).
     * Each key's cache holds no time above 0 when a cleanup runs, so both backends do the same.
     */
    static Scenario epochTraced(String name, String backend) {
        Scenario s = kvScenario(name, "60 random rows at and before the epoch (negative"
                + " watermarks: operator time 0, no cleanup fires), then traced: rows before"
                + " -1000 never cached, cleanup timers registered before the epoch firing after"
                + " it, cleanups whose earliest remaining time is 0 or negative clearing the"
                + " cache without padding what was left", "FULL", SYMMETRIC, backend);
        s.stream(60, -3_000, 50, 400, 300, kv(KEYS), kv(KEYS));
        return s.atEpoch(LEFT, -2_000, 4, 1L)     // never cached: padded at once
                .atEpoch(LEFT, -900, 4, 2L)       // cached: key 4's left cleanup timer at 101
                .atEpoch(LEFT, -500, 4, 3L)
                .atEpoch(LEFT, 0, 4, 4L)
                .atEpoch(RIGHT, -950, 5, 5L)      // key 5's right cleanup timer at 51
                .atEpoch(RIGHT, -100, 5, 6L)
                .atEpoch(RIGHT, 0, 5, 7L)
                .atEpoch(LEFT, -400, 6, 8L)       // key 6: its timer at 601
                .atEpoch(RIGHT, -1_300, 6, 9L)    // not cached, meets -400
                .atEpoch(LEFT, -999, 7, 10L)      // cached (-999 + 1000 > 0)
                .atEpoch(RIGHT, -1_000, 7, 11L)   // not cached (-1000 + 1000 = 0), meets -999
                .wmEpoch(200)                     // expires -900, -950; clears -500, 0, -100, 0
                .atEpoch(RIGHT, 300, 4, 12L)      // -500 and 0 would meet it: gone
                .atEpoch(LEFT, 500, 5, 13L)       // -100 and 0 would meet it: gone
                .wmEpoch(700)                     // key 6's -400 expires (matched: no padding)
                .atEpoch(RIGHT, 700, 7, 14L)
                .wmEpoch(2_000);
    }

    /**
     * Random rows from 4 s before the epoch on: negative watermarks and cleanups on both
     * sides of the epoch (so the backends differ: see {@link #epochMixed}).
     */
    static Scenario epoch(String name, String joinType, String backend) {
        return kvScenario(name, "rows from 4 s before the epoch to 4 s after it: negative"
                + " times, watermarks and cleanup timers; " + RANDOM, joinType, SYMMETRIC,
                backend)
                .backendsDiffer()
                .stream(100, -4_000, 80, 1000, 500, kv(KEYS), kv(KEYS));
    }

    /**
     * A key's cache holding times on both sides of the epoch when its cleanup runs (-900
     * expired, -300 and 380 left): the earliest remaining time the cleanup takes is the last
     * of them its iteration assigns, -300 on RocksDB (positive times first: the cache is
     * cleared without padding), 380 on the heap (which meets -300 first: the cache is kept).
     */
    static Scenario epochMixed(String name, String backend) {
        Scenario s = kvScenario(name, "traced: a cleanup over a cache holding times on both"
                + " sides of the epoch (-900 expired, -300 and 380 left), which the heap keeps"
                + " and RocksDB clears", "FULL", SYMMETRIC, backend).backendsDiffer();
        return s.atEpoch(LEFT, -900, 1, 1L)       // key 1: its cleanup timer at 101
                .atEpoch(LEFT, -300, 1, 2L)
                .atEpoch(LEFT, 380, 1, 3L)
                .atEpoch(RIGHT, -950, 2, 4L)      // key 2: the mirror on the right, timer at 51
                .atEpoch(RIGHT, -300, 2, 5L)
                .atEpoch(RIGHT, 380, 2, 6L)
                .wmEpoch(200)
                .atEpoch(RIGHT, 500, 1, 7L)       // meets -300 and 380 where they were kept
                .atEpoch(LEFT, 600, 2, 8L)
                .wmEpoch(1_500)
                .atEpoch(RIGHT, 1_400, 1, 9L)
                .atEpoch(LEFT, 1_450, 2, 10L);
    }

    /**
     * One key, 25 random rows on each side at five times each: many rows per time, met in
     * arrival order; then, behind the watermark, a row on each side that no side caches.
     */
    static Scenario hotKey(String name, String backend) {
        Scenario s = kvScenario(name, "one key, 25 random rows on each side at five times each:"
                + " lists of rows per time met in arrival order; then a row on each side behind"
                + " the watermark", "INNER", ASYMMETRIC, backend);
        for (int n = 0; n < 50; n++) {
            s.at(n % 2, 100L * s.rnd.nextInt(5) * (n % 2 == 0 ? 7 : 5), 1, (long) n);
        }
        return s.wm(5_000).at(LEFT, 3_000, 1, 50L).at(RIGHT, 3_000, 1, 51L);
    }

    /** STRING keys and values of every type the native side reads on both sides. */
    static Scenario types(String name, String backend) {
        Object[] stringKeys = {null, "", "a", "größer 🦀", "\uff5e", "é", "e\u0301"};
        return new Scenario(name, "STRING keys (empty, non-ASCII, an emoji, a combining accent"
                + " against its precomposed form, NULL), values of DOUBLE, DECIMAL(10, 2),"
                + " BOOLEAN and TIMESTAMP(3) on the left, DECIMAL(38, 18), BIGINT and STRING on"
                + " the right; " + RANDOM)
                .left("k", DataTypes.STRING()).left("d", DataTypes.DOUBLE())
                .left("m", DataTypes.DECIMAL(10, 2)).left("b", DataTypes.BOOLEAN())
                .left("t", DataTypes.TIMESTAMP(3))
                .right("x", DataTypes.DECIMAL(38, 18)).right("k", DataTypes.STRING())
                .right("l", DataTypes.BIGINT()).right("s", DataTypes.STRING())
                .join("LEFT")
                .bounds(SYMMETRIC)
                .backend(backend)
                .random(100, (r, n) -> new Object[] {
                    NodeVectors.pick(r, stringKeys), NodeVectors.pick(r, JoinVectors.DOUBLES),
                    NodeVectors.pick(r, JoinVectors.DECIMALS),
                    NodeVectors.pick(r, JoinVectors.BOOLEANS),
                    NodeVectors.pick(r, JoinVectors.TIMESTAMPS)
                }, (r, n) -> new Object[] {
                    NodeVectors.pick(r, JoinVectors.WIDE_DECIMALS),
                    NodeVectors.pick(r, stringKeys), NodeVectors.pick(r, JoinVectors.BIGINTS),
                    NodeVectors.pick(r, JoinVectors.STRINGS)
                });
    }

    /** Only a few columns selected: the planner projects the inputs (no id). */
    static Scenario narrow(String name, String backend) {
        return kvScenario(name, "selecting L.v and R.v only: the inputs hold (k, v, ts); "
                + RANDOM, "INNER", SYMMETRIC, backend)
                .select("L.v, R.v AS rv")
                .random(100, kv(KEYS), kv(KEYS));
    }
}
