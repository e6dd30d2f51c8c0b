package org.streamfusion.golden;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.operators.join.interval.ProcTimeIntervalJoin;
import org.apache.flink.table.types.logical.RowType;

import org.streamfusion.golden.IntervalJoinVectors.Bounds;
import org.streamfusion.golden.IntervalJoinVectors.IntervalScenario;
import org.streamfusion.golden.IntervalJoinVectors.Joined;
import org.streamfusion.golden.TwoInputVectors.Event;
import org.streamfusion.golden.TwoInputVectors.RowMaker;

import static org.streamfusion.golden.IntervalJoinVectors.BACKENDS;
import static org.streamfusion.golden.IntervalJoinVectors.FEW_KEYS;
import static org.streamfusion.golden.IntervalJoinVectors.JOIN_TYPES;
import static org.streamfusion.golden.IntervalJoinVectors.KEYS;
import static org.streamfusion.golden.IntervalJoinVectors.NULL_HEAVY_KEYS;
import static org.streamfusion.golden.IntervalJoinVectors.TWO_KEYS;
import static org.streamfusion.golden.IntervalJoinVectors.keysText;
import static org.streamfusion.golden.IntervalJoinVectors.kv;
import static org.streamfusion.golden.TwoInputVectors.LEFT;
import static org.streamfusion.golden.TwoInputVectors.NO_TIME;
import static org.streamfusion.golden.TwoInputVectors.PROCESSING_TIME;
import static org.streamfusion.golden.TwoInputVectors.RIGHT;

/**
 * Golden changelogs of Flink 2.3.0's processing-time interval join ({@code
 * StreamExecIntervalJoin} with {@code windowBounds.isEventTime = false}: {@code L
 * [INNER|LEFT|RIGHT|FULL] JOIN R ON L.k = R.k AND L.pt BETWEEN R.pt + lower AND R.pt + upper}
 * over {@code PROCTIME()} attributes), produced by the released {@code
 * KeyedCoProcessOperator(ProcTimeIntervalJoin)} fed one event at a time in a fixed order, the
 * processing time set by the scenario, each event's output recorded right after it. The native
 * processing-time interval join is tested against them ({@code
 * crates/streamfusion/tests/golden/flink-2.3.0-proctime-interval-join.jsonl}).
 *
 * <p>As {@link IntervalJoinVectors} (whose scenarios' shape, {@link
 * IntervalJoinVectors.IntervalScenario}, planning, checks and header this shares) and {@link
 * WindowJoinVectors} (whose procedure and machinery, {@link TwoInputVectors}, this shares):
 * each scenario's query is planned by Flink with {@code streamfusion.enabled} on and no
 * loadable native library, so StreamFusion's planner only describes the node (the description
 * and the options it would hand the native side are recorded); the program checks the node
 * against the operator Flink built (exactly a {@code KeyedCoProcessOperator} without output
 * adjustment, around exactly a {@code ProcTimeIntervalJoin}: keys, NULL filters, {@code pt}
 * proctime columns, bounds and relative sizes, minimum cleanup interval, join type) and
 * against the scenario; the rows reaching the node's two inputs are read in a MiniCluster job
 * (each table row becomes exactly one node row, in order, each checked by its {@code id}: a
 * table without a watermark declaration drops its stream's watermarks in its input conversion,
 * all but the end of input's, so no separator watermarks can tell rows apart, {@link
 * TwoInputVectors.Planned#unseparated}); and the planner's operator, set up as a task sets it
 * up, is driven through the scenario's events. Each side's table is {@code (.., id INT NOT
 * NULL, pt AS PROCTIME())} ({@link TwoInputVectors#procTimeView}); {@code id} is the row's
 * event index.
 *
 * <p>Processing time. The operator's processing time service is a {@link
 * TwoInputVectors.ManualProcessingTime}, handed to it before its state is initialized (its
 * timer service manager takes it there; the driver checks by reflection that the operator's
 * timer services read the time from it and register their timers with it). Every scenario
 * starts with a processing-time event; a processing-time event sets the clock to its time and
 * fires, in timestamp order, every timer due at that time or before, each with its own
 * timestamp (Flink's timer service registers one timer of the service for its earliest
 * processing-time timer and, when it fires, runs the timers up to its timestamp and registers
 * the next: the callbacks of one jump chain; what they emit are the event's outputs); rows are
 * processed at the current time; time never goes backwards. Flink's own {@code
 * SystemProcessingTimeService} fires a timer for {@code t} one millisecond after {@code t}
 * (when the clock reads {@code t + 1}); the file's timers fire when the clock reaches {@code t}
 * (as Flink's test harness fires them), which is what a clock jumping past {@code t} does. A
 * watermark event ({@code processWatermark1} and {@code processWatermark2}) changes nothing
 * the operator emits: the join reads no event time (in a job over such tables no watermark
 * but the end of input's would reach it; {@code left_watermarks} has some anyway).
 *
 * <p>What the node's input rows hold: the proctime column {@code pt} is NULL in every row
 * reaching the join (its null bit set, although its type, {@code TIMESTAMP_LTZ(3) NOT NULL
 * *PROCTIME*}, says NOT NULL: the Calc under the join writes {@code PROCTIME()} as a NULL
 * placeholder, and Flink materializes a proctime attribute only where a query reads its
 * value; the join reads the clock instead); so are {@code pt} and {@code pt0} in the
 * operator's outputs. The program fails if a node row's {@code pt} is not NULL, and reads and
 * writes the proctime columns as nullable (a converter of the NOT NULL type would read the
 * NULL as the epoch).
 *
 * <p>What the released operator does (so the file shows it; {@code now} the processing time,
 * {@code leftSize = -lower}, {@code rightSize = upper}): both sides' operator time is {@code
 * now} at every row and timer, and a row's time is {@code now}. A left row at {@code t} meets
 * the cached right rows at {@code [t - upper, t - lower]} (for a right row the mirror: cached
 * left rows at {@code [t - leftSize, t + rightSize]}), in the cache's iteration order, a time's
 * rows in arrival order; probing removes the other side's cached rows at or before {@code now
 * - its size - 1} (outer ones padded when they never matched). A left row is cached only when
 * {@code now < t + leftSize}, i.e. when {@code lower < 0}, a right one when {@code upper > 0};
 * a row not cached is padded at once when it is outer and met nothing, so with {@code lower
 * >= 0} left rows never meet right rows that come later, even at the same time (which rows of
 * one time meet depends on their order: {@code left_lower_zero}, {@code full_upper_zero}), with
 * {@code upper <= 0} right rows never meet later left rows, and with bounds {@code [0, 0]} no
 * row ever meets another, every outer row is padded at once ({@code full_zero}). A
 * side's first cached row (per key) registers a cleanup timer at {@code its time + its size +
 * min-cleanup-interval + 1} (the other side's timer state); when it fires, the side's rows at
 * or before {@code now - size - 1} are removed (outer ones padded when they never matched) and
 * the timer is registered again for the earliest remaining row, else the side's cache and
 * timer state are cleared. Left and right timers of one key at one timestamp are one timer.
 *
 * <p>Scenarios end either with rows still cached (no final jump) or with a final jump of an
 * hour, past every cleanup timer, which empties every cache (padding what never matched). Each
 * has a {@code _rocksdb} twin with the same events; the program checks that each event's
 * outputs are the same multiset on both backends (the caches are {@code MapState<Long,
 * List<..>>}: the heap iterates a key's times in hash order, RocksDB in the order of their
 * serialized bytes, and one jump's timers of different keys fire in the heap's order or in
 * that of their serialized keys).
 *
 * <p>Usage: {@code ProcTimeIntervalJoinVectors <output path> [scenario..]} (all scenarios when
 * none are named), on the planner classpath ({@code classpath-planner.txt}). Output is JSON
 * Lines (UTF-8, LF), as {@link IntervalJoinVectors} writes:
 *
 * <ul>
 *   <li>line 1: {@code {"flink":"2.3.0","seed":"0x..","generator":"java/src/org/streamfusion/
 *       golden/ProcTimeIntervalJoinVectors.java","format":..}};
 *   <li>per scenario, a header {@code {"scenario":name,"description":..,"join_type":"INNER"|
 *       "LEFT"|"RIGHT"|"FULL","zone":..,"backend":"hashmap"|"rocksdb","operator":
 *       "ProcTimeIntervalJoin","left_keys":[..],"right_keys":[..],"filter_nulls":[..],
 *       "left_time":i,"right_time":j,"lower":ms,"upper":ms,"min_cleanup_ms":ms,"node":
 *       <description text>,"config":<options text>,"left":[{"name":..,"type":..}..],"right":
 *       [..],"output":[..],"sql":..,"plan":..,"events":n,"rows_out":m}}: {@code left} and
 *       {@code right} are the node's input rows, {@code output} the operator's (the left row
 *       then the right row), keys and times column indexes into a side's row (the times those
 *       of the {@code pt} columns), {@code lower} and {@code upper} the node's {@code
 *       leftLowerBound} and {@code leftUpperBound}, {@code plan} the translated query's
 *       operators;
 *   <li>then n events, the first a processing time: {@code {"processing_time":ms}} (epoch ms),
 *       {@code {"in":"+I","side":0|1,"row":[..]}} (side 0 the left input) or {@code
 *       {"watermark":ms}} (both inputs), each immediately followed by the lines {@code
 *       {"out":"+I","row":[..]}} the operator emitted for it, in emission order ({@code m} in
 *       all; a processing time's are those of the timers it fired).
 * </ul>
 *
 * <p>Types and values as {@link JoinVectors} writes them (types without nullability and time
 * attributes). Every scenario's rows come from the project's seed and its name (without
 * {@code _rocksdb}), so two runs write byte-identical files.
 */
public final class ProcTimeIntervalJoinVectors {
    static final String GENERATOR =
            "java/src/org/streamfusion/golden/ProcTimeIntervalJoinVectors.java";
    static final long BASE_MS = NodeVectors.BASE_MS;
    /** The final jump that empties every cache, ms. */
    static final long FINAL_JUMP = 3_600_000;

    private ProcTimeIntervalJoinVectors() {}

    static final Bounds SYMMETRIC = new Bounds("L.pt BETWEEN R.pt - INTERVAL '1' SECOND AND"
            + " R.pt + INTERVAL '1' SECOND", -1000, 1000);
    static final Bounds WIDE = new Bounds("L.pt BETWEEN R.pt - INTERVAL '5' SECOND AND"
            + " R.pt + INTERVAL '5' SECOND", -5000, 5000);
    static final Bounds ASYMMETRIC = new Bounds("L.pt BETWEEN R.pt - INTERVAL '1' SECOND AND"
            + " R.pt + INTERVAL '2' SECOND", -1000, 2000);
    /** Lower bound 0: left rows are never cached. */
    static final Bounds LOWER_ZERO = new Bounds("L.pt BETWEEN R.pt AND R.pt + INTERVAL '2'"
            + " SECOND", 0, 2000);
    /** Upper bound 0: right rows are never cached. */
    static final Bounds UPPER_ZERO = new Bounds("L.pt BETWEEN R.pt - INTERVAL '2' SECOND AND"
            + " R.pt", -2000, 0);
    /** Both bounds 0: no row is cached, none meets another. */
    static final Bounds ZERO = new Bounds("L.pt BETWEEN R.pt AND R.pt", 0, 0);
    /** Both bounds below 0: left rows meet right rows 1 to 3 s after them. */
    static final Bounds BEFORE = new Bounds("L.pt BETWEEN R.pt - INTERVAL '3' SECOND AND"
            + " R.pt - INTERVAL '1' SECOND", -3000, -1000);
    /** Strictly within, written over {@code R.pt}: the planner turns it around. */
    static final Bounds ON_RIGHT = new Bounds("R.pt > L.pt - INTERVAL '0.5' SECOND AND"
            + " R.pt < L.pt + INTERVAL '2' SECOND", -1999, 499);

    /** A scenario: the two tables, the query, and the events. */
    static final class Scenario extends IntervalScenario<Scenario> {
        /** Whether the scenario ends with a jump past every cleanup timer ({@link #end}). */
        boolean emptied;
        /**
         * The processing time, epoch ms ({@link TwoInputVectors#NO_TIME} before the first).
         */
        long now = NO_TIME;

        Scenario(String name, String description) {
            super(name, description, SYMMETRIC);
        }

        /** None: the proctime {@code pt} is computed ({@link TwoInputVectors#procTimeView}). */
        @Override
        List<JoinVectors.Column> timeColumns() {
            return List.of();
        }

        /** The processing time {@code at} ms after {@link NodeVectors#BASE}. */
        Scenario time(long at) {
            return timeEpoch(BASE_MS + at);
        }

        /** The processing time {@code ms} (epoch), after the last. */
        Scenario timeEpoch(long ms) {
            if (now != NO_TIME && ms <= now) {
                throw new IllegalArgumentException(name + ": processing time " + ms
                        + " does not exceed " + now);
            }
            events.add(new Event(PROCESSING_TIME, null, ms));
            now = ms;
            return this;
        }

        /** The processing time {@code ms} after the current one. */
        Scenario after(long ms) {
            return timeEpoch(now + ms);
        }

        /** A row of {@code side} at the current processing time: its values, then its id. */
        Scenario row(int side, Object... values) {
            if (now == NO_TIME) {
                throw new IllegalArgumentException(name + ": a row before the first processing"
                        + " time");
            }
            return addRow(side, values);
        }

        /**
         * The final jump, {@link #FINAL_JUMP} ms: past every cleanup timer (a key's fires at
         * most its latest row's time plus the larger relative size, the minimum cleanup
         * interval and 1 ms), so every cache empties.
         */
        Scenario end() {
            long latest = Math.max(-bounds.lower(), bounds.upper()) + minCleanupMs + 1;
            if (FINAL_JUMP <= latest) {
                throw new IllegalStateException(name + ": the final jump is too short");
            }
            emptied = true;
            return after(FINAL_JUMP);
        }

        /**
         * {@code rows} more rows, each on a random side, on the scale of the bounds ({@link
         * Bounds#span}): before three in ten none, the processing time unchanged (rows of one
         * time); before four in ten a step of up to a fifth of the span; before two in ten one
         * of up to the span (rows of the other side expire when they probe); before one in
         * twenty one of one to two spans; before one in twenty a jump of two to three spans
         * past the minimum cleanup interval (cleanup timers fire, unmatched outer rows are
         * padded). With {@code watermarks}, a watermark after about every eighth row.
         */
        Scenario random(int rows, RowMaker lefts, RowMaker rights, boolean watermarks) {
            long span = bounds.span();
            for (int n = 0; n < rows; n++) {
                int dice = rnd.nextInt(20);
                long step;
                if (dice < 6) {
                    step = 0;
                } else if (dice < 14) {
                    step = 1 + rnd.nextLong(span / 5);
                } else if (dice < 18) {
                    step = span / 5 + rnd.nextLong(span - span / 5 + 1);
                } else if (dice < 19) {
                    step = span + rnd.nextLong(span + 1);
                } else {
                    step = 2 * span + minCleanupMs + rnd.nextLong(span + 1);
                }
                if (step > 0 || now == NO_TIME) {
                    if (now == NO_TIME) {
                        time(0);
                    } else {
                        after(step);
                    }
                }
                int side = rnd.nextInt(2);
                row(side, (side == LEFT ? lefts : rights).row(rnd, n));
                if (watermarks && rnd.nextInt(8) == 0) {
                    wmEpoch(Math.max(lastWatermark + 1, now - rnd.nextLong(2 * span)));
                }
            }
            return this;
        }

        /** The description: the query in words, then what the scenario's rows do. */
        @Override
        String describe() {
            return joinType + " processing-time interval join on " + condition()
                    + ", min-cleanup-interval " + minCleanupMs + " ms: " + description
                    + (emptied ? "; ends with a jump of " + FINAL_JUMP + " ms past every"
                            + " cleanup timer (every cache empties)"
                            : "; no final jump (rows stay cached)");
        }
    }

    /** A scenario planned: the interval join operator Flink built and what the file says. */
    static final class Planned extends Joined<Scenario> {
        Planned(Scenario scenario, int tag) {
            super(scenario, tag);
        }

        /** No separators: the tables have no watermark ({@link #unseparated}). */
        @Override
        long[] due(int side) {
            return new long[0];
        }

        @Override
        boolean unseparated() {
            return true;
        }

        @Override
        boolean manualProcessingTime() {
            return true;
        }
    }

    public static void main(String[] args) throws Exception {
        List<Scenario> scenarios = TwoInputVectors.selected(args, "ProcTimeIntervalJoinVectors",
                ProcTimeIntervalJoinVectors::scenarios, s -> s.name);
        List<Planned> planned = TwoInputVectors.inputs(scenarios,
                ProcTimeIntervalJoinVectors::plan, "proctime-interval-join-inputs");
        for (Planned p : planned) {
            feed(p);
        }
        TwoInputVectors.runBackends(planned, BACKENDS, p -> p.scenario.backend,
                "proctime interval join");
        TwoInputVectors.compareTwins(planned);
        TwoInputVectors.writeFile(args[0], GENERATOR, IntervalJoinVectors.FORMAT_HEAD
                + ", {\"processing_time\":ms} (the first event; timers due fire) or"
                + " {\"watermark\":ms} (both inputs)" + IntervalJoinVectors.FORMAT_TAIL,
                planned, IntervalJoinVectors::write);
    }

    // ---------------------------------------------------------------- planning

    /**
     * Plans the scenario's query in {@code tEnv} and returns the interval join operator Flink
     * built, checked against the node and the scenario ({@link IntervalJoinVectors#planJoin}).
     */
    static Planned plan(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Scenario s,
            int tag) throws Exception {
        return IntervalJoinVectors.planJoin(tEnv, new Planned(s, tag),
                (side, view) -> TwoInputVectors.procTimeView(env, tEnv, s.name, s.table(side),
                        s.events, side, view),
                KeyedCoProcessOperator.class, ProcTimeIntervalJoin.class, false,
                ProcTimeIntervalJoinVectors::check);
    }

    /**
     * Checks what only the processing-time join has against the node ({@link
     * IntervalJoinVectors#planJoin}): {@code pt} output columns, no output adjustment; makes
     * the proctime columns of the node's rows nullable.
     */
    static void check(Planned p, List<String> problems) {
        // The proctime columns' types say NOT NULL, their values are NULL (checked by {@link
        // #feed}): read (and written) as nullable.
        int width = p.inputs[LEFT].getFieldCount();
        for (int side = 0; side < 2; side++) {
            p.inputs[side] = nullable(p.inputs[side], p.times[side]);
        }
        p.output = nullable(p.output, p.times[LEFT], width + p.times[RIGHT]);
        if (!p.output.getFieldNames().get(p.times[LEFT]).equals("pt")
                || !p.output.getFieldNames().get(width + p.times[RIGHT]).startsWith("pt")) {
            problems.add("output columns " + p.output + " for times " + Arrays.toString(p.times));
        }
        Object adjustment = JoinVectors.field(p.operator, "outputAdjustment");
        if (adjustment.getClass().getSimpleName().equals("DelayedOutputAdjustment")) {
            problems.add("output adjustment " + adjustment.getClass().getName());
        }
    }

    /** {@code type} with its columns {@code columns} nullable. */
    static RowType nullable(RowType type, int... columns) {
        List<RowType.RowField> fields = new ArrayList<>(type.getFields());
        for (int c : columns) {
            RowType.RowField f = fields.get(c);
            fields.set(c, new RowType.RowField(f.getName(), f.getType().copy(true)));
        }
        return new RowType(type.isNullable(), fields);
    }

    /**
     * The scenario's events (each table row its one node row, its {@code pt} NULL), starting
     * with a processing time.
     */
    static void feed(Planned p) throws Exception {
        IntervalJoinVectors.feed(p, false);
        TwoInputVectors.checkProcTimeFeed(p, p.times);
    }

    // ---------------------------------------------------------------- scenarios

    static final String RANDOM = "random rows: keys with NULL, values with NULL, rows of one"
            + " processing time, small steps, steps expiring cached rows, jumps firing cleanup"
            + " timers";

    static List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        for (String backend : BACKENDS) {
            String x = NodeVectors.suffix(backend);
            for (String type : JOIN_TYPES) {
                list.add(traced(type.toLowerCase() + "_symmetric" + x, type, backend).end());
                list.add(random(type.toLowerCase() + "_asymmetric_cleanup" + x, type, ASYMMETRIC,
                        backend).cleanup(500));
            }
            list.add(cleanupTraced("full_cleanup_traced" + x, backend).end());
            list.add(random("inner_wide_cleanup" + x, "INNER", WIDE, backend).cleanup(2_000)
                    .end());
            list.add(zeroBound("left_lower_zero" + x, "LEFT", LEFT, backend).end());
            list.add(zeroBound("full_upper_zero" + x, "FULL", RIGHT, backend).end());
            list.add(random("full_zero" + x, "FULL", ZERO, backend).end());
            list.add(before("full_before" + x, backend).end());
            list.add(random("right_on_right" + x, "RIGHT", ON_RIGHT, backend).end());
            list.add(random("full_null_keys" + x, "FULL", SYMMETRIC, backend, NULL_HEAVY_KEYS));
            list.add(random("left_not_distinct" + x, "LEFT", SYMMETRIC, backend)
                    .keys("L.k IS NOT DISTINCT FROM R.k").end());
            list.add(twoKeys("right_two_keys" + x, backend).end());
            list.add(nonEqui("full_nonequi" + x, "FULL", backend).end());
            list.add(watermarks("left_watermarks" + x, backend).end());
        }
        return list;
    }

    /** The (k, v) tables joined by {@code joinType} on {@code L.k = R.k} within {@code b}. */
    static Scenario kvScenario(String name, String description, String joinType, Bounds b,
            String backend) {
        return new Scenario(name, description).kv().join(joinType).bounds(b).backend(backend);
    }

    /** Random (k, v) rows over a few keys with NULL, duplicates likely. */
    static Scenario random(String name, String joinType, Bounds b, String backend) {
        return random(name, joinType, b, backend, KEYS);
    }

    static Scenario random(String name, String joinType, Bounds b, String backend,
            Object[] keys) {
        return kvScenario(name, "120 " + RANDOM + ", keys " + keysText(keys), joinType, b,
                backend)
                .random(120, kv(keys), kv(keys), false);
    }

    /**
     * Traced rows (bounds of a second either side, no minimum cleanup interval), then 80
     * random ones: rows of one time on both sides, a match exactly a second apart and none a
     * millisecond more, keys on one side only, NULL keys on both sides, a NULL value, several
     * keys' cleanup timers in one jump to exactly their time (padding what never matched),
     * timers registered again for the remaining rows, one of them firing in the same jump.
     */
    static Scenario traced(String name, String joinType, String backend) {
        Scenario s = kvScenario(name, "traced: rows of one time on both sides, matches exactly"
                + " a second apart and none a millisecond more, keys on one side only, NULL"
                + " keys on both, a NULL value, cleanup timers of several keys in one jump to"
                + " exactly their time, timers registered again for remaining rows (one firing"
                + " in the same jump); then 80 " + RANDOM, joinType, SYMMETRIC, backend);
        // What each row does with bounds of a second either side (a key's cleanup timer for a
        // side at its earliest row + 1001; the outer joins pad what never matched):
        s.time(0)
                .row(LEFT, 1, 10L)            // cached; key 1's timer at 1001
                .row(LEFT, 1, 11L)            // the same time: met after 10
                .row(RIGHT, 1, 20L)           // meets 10 and 11 (the same time); cached
                .time(400)
                .row(RIGHT, 1, 21L)           // meets 10 and 11
                .row(LEFT, 2, 12L)            // key 2: left only (for now); timer at 1401
                .row(RIGHT, 3, 22L)           // key 3: right only; timer at 1401
                .row(LEFT, null, 13L)         // NULL keys never match; timer at 1401
                .row(RIGHT, null, 23L)
                .row(LEFT, 1, null)           // a NULL value: meets 20 and 21
                .time(1000)
                .row(LEFT, 1, 14L)            // exactly a second after 20: meets it, and 21
                .time(1001)                   // key 1's timer (left and right at 1001): 10, 11
                                              // and 20 expire (matched); again at 1401 for
                                              // both (the NULL value's row, 21: 400)
                .row(RIGHT, 1, 24L)           // meets 14 and the NULL value's row, not 10, 11
                .time(1200)
                .row(RIGHT, 2, 25L)           // key 2: meets 12
                .time(1401)                   // exactly the timers of keys 1, 2, 3 and NULL:
                                              // 21, 12 and the NULL value's row expire
                                              // (matched), 22, 13 and 23 never matched; key
                                              // 1's again at 2001 (14) and 2002 (24)
                .row(LEFT, 3, 15L)            // key 3: 22 is gone, meets nothing; cached
                .row(RIGHT, 1, 26L)           // meets 14
                .time(2600)                   // timers of key 1 (2001, 2002, then 2402 for 26),
                                              // key 2 (2201) and key 3 (2402): 15 never
                                              // matched
                .row(RIGHT, 1, 27L)           // meets nothing: 14 is gone
                .row(LEFT, 1, 16L)            // the same time: meets 27
                .time(3601)                   // key 1's timer (3601, both sides): 27 and 16
                                              // expire
                .row(LEFT, 1, 17L)            // meets nothing
                .time(3700);
        return s.random(80, kv(KEYS), kv(KEYS), false);
    }

    /**
     * A minimum cleanup interval of 500 ms, bounds of a second either side: rows expire when
     * the other side probes before their timers fire (outer ones padded by the probing row's
     * event), kept by a probe exactly a second after them and removed by one a millisecond
     * later; timers fire later, are registered again, find caches the probes emptied; then 80
     * random rows.
     */
    static Scenario cleanupTraced(String name, String backend) {
        Scenario s = kvScenario(name, "traced: a minimum cleanup interval of 500 ms, rows"
                + " expiring when the other side probes before their timers fire (padded then),"
                + " kept by a probe exactly a second after them and removed by one a"
                + " millisecond later, timers registered again for remaining rows, timers"
                + " finding their cache emptied by probes; then 80 " + RANDOM, "FULL",
                SYMMETRIC, backend).cleanup(500);
        // A key's cleanup timer for a side at its earliest row + 1501; rows at or before now -
        // 1001 expire when the other side probes:
        s.time(0)
                .row(LEFT, 1, 10L)            // cached; key 1's timer at 1501
                .row(RIGHT, 2, 20L)           // key 2's timer at 1501
                .time(600)
                .row(LEFT, 1, 11L)
                .row(RIGHT, 2, 21L)
                .time(1100)
                .row(RIGHT, 1, 22L)           // probing removes 10 (0, at or before 99: padded
                                              // here), meets 11; cached, timer at 2601
                .row(LEFT, 2, 12L)            // the mirror: removes 20 (padded), meets 21
                .time(1200)
                .row(LEFT, 3, 13L)            // key 3: timer at 2701
                .row(LEFT, null, 14L)         // NULL key: timer at 2701
                .time(1501)                   // key 1's and key 2's timers: 11 and 21 (600)
                                              // are kept, timers again at 2101
                .time(2200)                   // the timers at 2101: 11 and 21 expire (matched)
                .row(RIGHT, 3, 25L)           // exactly a second after 13: meets it (kept:
                                              // 1200 is after 1199); cached, timer at 3701
                .row(RIGHT, null, 23L)        // a second after 14: 14 is kept, never met
                .time(2201)
                .row(RIGHT, 3, 26L)           // a millisecond more: probing removes 13
                                              // (matched), meets nothing
                .row(RIGHT, null, 24L)        // probing removes 14 (padded)
                .time(2601)                   // exactly key 1's and key 2's timers: 22 and 12
                                              // (1100) expire (matched)
                .time(2701)                   // key 3's and the NULL key's timers: their left
                                              // caches are empty (probed away): cleared
                .time(3701);                  // exactly the timers of key 3 and NULL (2200):
                                              // 25 (matched), 26, 23 and 24 (padded)
        return s.random(80, kv(KEYS), kv(KEYS), false);
    }

    /**
     * A bound of 0 that keeps side {@code uncached}'s rows out of the cache: the lower bound
     * for the left's ({@code L.pt BETWEEN R.pt AND R.pt + 2 s}), the upper for the right's
     * ({@code L.pt BETWEEN R.pt - 2 s AND R.pt}). Such a row is padded at once where it met
     * nothing; it meets the other side's rows of its time and up to two seconds before, and
     * the other side's rows meet nothing.
     */
    static Scenario zeroBound(String name, String joinType, int uncached, String backend) {
        boolean lower = uncached == LEFT;
        String[] sides = {"left", "right"};
        Scenario s = kvScenario(name, "traced: " + (lower ? "lower" : "upper") + " bound 0, "
                + sides[uncached] + " rows never cached (a " + sides[1 - uncached] + " row of"
                + " the same time after a " + sides[uncached] + " one meets nothing); then 100 "
                + RANDOM + ", keys 1, 2, NULL", joinType, lower ? LOWER_ZERO : UPPER_ZERO,
                backend);
        // The left rows' values from 10 on, the right's from 20 on:
        long first = lower ? 10 : 20;
        s.time(0)
                .row(uncached, 1, first)      // not cached: padded at once
                .row(1 - uncached, 1, 30 - first) // cached, meets nothing (the row before
                                                  // was not cached)
                .row(uncached, 1, first + 1)  // the same time: meets the cached row
                .time(2000)
                .row(uncached, 1, first + 2)  // two seconds later: meets it
                .time(2001)
                .row(uncached, 1, first + 3); // a millisecond more: it expired, meets nothing
        return s.random(100, kv(new Object[] {1, 2, null}), kv(new Object[] {1, 2, null}),
                false);
    }

    /**
     * Both bounds below 0 ({@code L.pt BETWEEN R.pt - 3 s AND R.pt - 1 s}): right rows are
     * never cached; a right row meets the left rows one to three seconds before it.
     */
    static Scenario before(String name, String backend) {
        Scenario s = kvScenario(name, "traced: bounds of -3 s and -1 s, right rows never"
                + " cached, meeting left rows one to three seconds before; then 100 " + RANDOM,
                "FULL", BEFORE, backend);
        s.time(0)
                .row(LEFT, 1, 10L)            // cached; timer at 3001
                .row(RIGHT, 1, 20L)           // the same time: meets nothing, padded at once
                .time(999)
                .row(RIGHT, 1, 21L)           // 999 ms after 10: meets nothing
                .time(1000)
                .row(RIGHT, 1, 22L)           // a second after: meets 10
                .row(LEFT, 1, 11L)            // meets no right row (none cached)
                .time(3000)
                .row(RIGHT, 1, 23L)           // meets 10 (3 s before) and 11 (2 s)
                .time(3001)                   // key 1's timer: 10 expires (matched)
                .row(RIGHT, 1, 24L);          // meets 11
        return s.random(100, kv(KEYS), kv(KEYS), false);
    }

    /** The join condition {@code L.v < R.v} besides the key and the bounds. */
    static Scenario nonEqui(String name, String joinType, String backend) {
        return kvScenario(name, "the condition L.v < R.v decides the matches (NULL v never"
                + " matches), unmatched outer rows padded; 120 " + RANDOM + ", two keys",
                joinType, SYMMETRIC, backend)
                .extra("L.v < R.v")
                .random(120, kv(FEW_KEYS), kv(FEW_KEYS), false);
    }

    /** Two key columns, an INT and a STRING, both with NULLs, in another order on the right. */
    static Scenario twoKeys(String name, String backend) {
        return new Scenario(name, "INT and STRING keys with NULLs, in another column order on"
                + " the right; 120 " + RANDOM)
                .twoKeys().join("RIGHT").bounds(ASYMMETRIC).backend(backend)
                .random(120, TWO_KEYS[LEFT], TWO_KEYS[RIGHT], false);
    }

    /** Random rows with watermarks of both inputs between them, which change nothing. */
    static Scenario watermarks(String name, String backend) {
        return kvScenario(name, "100 " + RANDOM + ", keys " + keysText(KEYS) + ", with"
                + " watermarks of both inputs (which the processing-time join ignores)", "LEFT",
                SYMMETRIC, backend)
                .random(100, kv(KEYS), kv(KEYS), true);
    }
}
