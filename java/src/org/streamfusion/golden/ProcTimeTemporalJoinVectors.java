package org.streamfusion.golden;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.operators.join.temporal.TemporalProcessTimeJoinOperator;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampKind;
import org.apache.flink.types.RowKind;

import org.streamfusion.golden.TemporalJoinVectors.Versions;
import org.streamfusion.golden.TwoInputVectors.Event;
import org.streamfusion.golden.TwoInputVectors.RowMaker;

import static org.apache.flink.table.api.Expressions.$;
import static org.streamfusion.golden.TemporalJoinVectors.BACKENDS;
import static org.streamfusion.golden.TemporalJoinVectors.LEFT_KEYS;
import static org.streamfusion.golden.TemporalJoinVectors.RIGHT_KEYS;
import static org.streamfusion.golden.TemporalJoinVectors.kv;
import static org.streamfusion.golden.TwoInputVectors.LEFT;
import static org.streamfusion.golden.TwoInputVectors.RIGHT;

/**
 * Golden changelogs of Flink 2.3.0's processing-time temporal join ({@code
 * StreamExecTemporalJoin} of a temporal table function: {@code SELECT .. FROM lhs L, LATERAL
 * TABLE (Rates(L.pt)) AS R WHERE L.k = R.k [AND ..]}, {@code Rates} the function {@code
 * createTemporalTableFunction($("pt"), $("k"))} of the right table, {@code pt} both tables'
 * {@code PROCTIME()}), produced by the released {@code TemporalProcessTimeJoinOperator} fed one
 * event at a time in a fixed order, the processing time set by the scenario, each event's
 * output recorded right after it. The native processing-time temporal join is tested against
 * them ({@code crates/streamfusion/tests/golden/flink-2.3.0-proctime-temporal-join.jsonl}).
 *
 * <p>As {@link TemporalJoinVectors} (whose scenarios, {@link TemporalJoinVectors.Scenario},
 * planning, checks, kinds check and header this shares) under a clock the scenario sets, as
 * {@link ProcTimeIntervalJoinVectors} sets it (a {@link TwoInputVectors.ManualProcessingTime}:
 * every scenario starts with a processing time; a processing-time event moves the clock and
 * fires, in time order, every cleanup timer due then, each with its own time; rows read the
 * clock). The node is checked as the event-time join's, but with {@code isTemporalFunctionJoin}
 * true and its time columns the left's {@code pt} ({@code leftTimeAttributeIndex}, a proctime
 * attribute) and none on the right ({@code rightTimeAttributeIndex} -1: the right input holds
 * no {@code pt}). The tables have no watermark, so the node's rows are read one by one ({@link
 * TwoInputVectors.Planned#unseparated}) and matched to the table rows in order (none for a
 * {@code -U} the planner drops), each checked by its {@code id} and kind. The left's {@code
 * pt} is NULL in every node row (Flink's placeholder for a proctime attribute nothing before
 * the join reads; the join reads the clock), and so in every output row: read and written as
 * nullable, as {@link ProcTimeIntervalJoinVectors} does.
 *
 * <p>What Flink plans. Only INNER joins: {@code LEFT JOIN LATERAL TABLE (Rates(L.pt)) AS R ON
 * L.k = R.k} fails ("unexpected correlate variable $cor0 in the plan") and {@code .. ON TRUE}
 * fails in {@code LogicalCorrelateToJoinFromTemporalTableFunctionRule}, which always builds an
 * INNER join (its row type's nullability differs from the LEFT correlate's); so the operator's
 * {@code isLeftOuterJoin} is always false. Only one key column: the join key must be the
 * function's primary key, {@code k}, and a second equality ({@code L.s = R.s}) is refused
 * ("Only single column join key is supported"). The other conditions are the node's {@code
 * nonEquiCondition} ({@code AND(true, >($1, $5))} for {@code L.v > R.v}). A changelog right
 * table reaches the node as {@code +I}, {@code +U} and {@code -D} (the planner drops its
 * {@code -U}: {@code DropUpdateBefore}) unless an operator before the join needs them
 * ({@link Versions#RETRACT}: a view filtering on {@code id}); a changelog left's {@code -U}
 * reach it (the retract-mode consumer needs them). The right table has no primary key, so its
 * {@code k} may be NULL.
 *
 * <p>What the released operator does (so the file shows it). Its state is per key (the join
 * key: Flink keys both inputs by it and filters no NULL, so a NULL key is a key like any
 * other): one right row. A right {@code +I} or {@code +U} replaces it, a {@code -U} or {@code
 * -D} clears it (whatever its values). A left row, of any kind, is never stored: it meets the
 * key's right row at once; where there is one and the other conditions hold, the output is the
 * left row then the right row, with the left row's kind; else nothing. With {@code
 * table.exec.state.ttl} of {@code min} ms above 1 ms (maximum retention {@code max = min * 3 /
 * 2}, rounded down), a key holds one processing-time cleanup timer, its time stored in its
 * state: a right {@code +I} or {@code +U}, and a left row that finds a right row (whether the
 * conditions hold or not), register it at {@code now + max} (deleting the one before) unless
 * the stored one is at or after {@code now + min}; a left row finding none registers nothing;
 * a right {@code -U} or {@code -D} deletes it. When it fires, the key's right row is cleared,
 * and later left rows meet none.
 *
 * <p>Every scenario has a {@code _rocksdb} twin with the same events; the program checks that
 * each event's outputs are the same multiset on both backends. Scenarios end with rows still
 * stored (no end-of-input watermark, which would change nothing).
 *
 * <p>Usage: {@code ProcTimeTemporalJoinVectors <output path> [scenario..]} (all scenarios when
 * none are named), on the planner classpath ({@code classpath-planner.txt}). Output is JSON
 * Lines (UTF-8, LF), as {@link TemporalJoinVectors} writes: line 1 {@code {"flink":"2.3.0",
 * "seed":"0x..","generator":"java/src/org/streamfusion/golden/ProcTimeTemporalJoinVectors.java",
 * "format":..}}; per scenario, its header (as the event-time file's, {@code operator}
 * "TemporalProcessTimeJoinOperator", {@code join_type} "INNER", {@code left_time} the left's
 * {@code pt}, {@code right_time} -1), then its events, the first a {@code
 * {"processing_time":ms}} (epoch ms), the others too or {@code {"in":kind,"side":0|1,"row":
 * [..]}} (side 0 the left input) or {@code {"watermark":ms}} (both inputs; they change
 * nothing), each immediately followed by the lines {@code {"out":kind,"row":[..]}} the
 * operator emitted for it. Every scenario's rows come from the project's seed and its name
 * (without {@code _rocksdb}), so two runs write byte-identical files.
 */
public final class ProcTimeTemporalJoinVectors {
    static final String GENERATOR =
            "java/src/org/streamfusion/golden/ProcTimeTemporalJoinVectors.java";
    /** The temporal table function's name in the queries. */
    static final String FUNCTION = "Rates";

    private ProcTimeTemporalJoinVectors() {}

    /**
     * A scenario of the processing-time join: the tables' rows carry no time (a row's time is
     * the processing time when it comes).
     */
    static final class Scenario extends TemporalJoinVectors.Scenario {
        Scenario(String name, String description) {
            super(name, description);
            endOfInput(false);
        }

        /** Always: the join reads nothing but the processing time. */
        @Override
        boolean clocked() {
            return true;
        }

        /**
         * All columns of a side's table: its own, then {@code id} ({@link
         * TwoInputVectors#procTimeView} adds {@code pt}).
         */
        @Override
        List<JoinVectors.Column> table(int side) {
            List<JoinVectors.Column> all = new ArrayList<>(columns(side));
            all.add(new JoinVectors.Column("id", DataTypes.INT().notNull()));
            return all;
        }

        /** The table row of {@code values}: then its id (its time is the clock's). */
        @Override
        Object[] tableRow(Object[] values, long ms) {
            Object[] row = Arrays.copyOf(values, values.length + 1);
            row[values.length] = events.size();
            return row;
        }

        // The builders a traced scenario chains, returning this class.

        @Override
        Scenario time(long at) {
            super.time(at);
            return this;
        }

        @Override
        Scenario wm(long at) {
            super.wm(at);
            return this;
        }

        @Override
        Scenario retract(int side, RowKind kind, Object key) {
            super.retract(side, kind, key);
            return this;
        }

        /** An insertion of {@code side} at the current processing time. */
        Scenario row(int side, Object... values) {
            return changeNow(side, RowKind.INSERT, values);
        }

        /** A row of kind {@code kind} of {@code side} at the current processing time. */
        Scenario changeNow(int side, RowKind kind, Object... values) {
            changeEpoch(side, kind, now, values);
            return this;
        }

        /**
         * {@code rows} random rows, each on a random side, the processing time moved before
         * each ({@link #tick}); on a changelog side, updates and deletions of live rows as
         * {@link #randomRow} makes them.
         */
        @Override
        Scenario random(int rows, RowMaker lefts, RowMaker rights) {
            for (int n = 0; n < rows; n++) {
                tick();
                int side = rnd.nextInt(2);
                randomRow(side, (side == LEFT ? lefts : rights).row(rnd, n), now);
            }
            return this;
        }

        @Override
        String sql() {
            String list = select != null ? select : all(LEFT) + ", " + all(RIGHT);
            return "SELECT " + list + " FROM lhs L, LATERAL TABLE (" + FUNCTION
                    + "(L.pt)) AS R WHERE " + condition();
        }

        @Override
        String describe() {
            String right = switch (versions) {
                case APPEND -> "an insert-only table";
                case UPSERT -> "a changelog table (the planner drops its -U before the join)";
                case RETRACT -> "a changelog table through a view filtering on id >= 0 (its -U"
                        + " reach the join)";
            };
            return joinType + " processing-time temporal table function join on "
                    + condition() + " of " + FUNCTION + "(L.pt) (key " + primaryKey.get(0)
                    + ") over " + right + ", the left " + (leftChangelog ? "a changelog"
                            : "insert-only") + describeTtl() + ": " + description;
        }
    }

    /** A scenario planned: the processing-time join operator Flink built. */
    static final class Planned extends TemporalJoinVectors.Planned {
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
        boolean procTime() {
            return true;
        }

        /**
         * Checks the node's time columns: the left's {@code pt}, a proctime attribute, none on
         * the right; makes the left's {@code pt} nullable in the input and output rows.
         */
        @Override
        void checkTimes(List<String> problems) {
            RowType left = inputType(LEFT);
            LogicalType time = times[LEFT] < 0 ? null : left.getTypeAt(times[LEFT]);
            if (times[RIGHT] != -1 || !(time instanceof LocalZonedTimestampType ltz
                    && ltz.getKind() == TimestampKind.PROCTIME)
                    || !left.getFieldNames().get(times[LEFT]).equals("pt")) {
                problems.add("time columns " + Arrays.toString(times) + " of " + left
                        + " and " + inputType(RIGHT));
                return;
            }
            inputs[LEFT] = ProcTimeIntervalJoinVectors.nullable(inputs[LEFT], times[LEFT]);
            output = ProcTimeIntervalJoinVectors.nullable(output, times[LEFT]);
        }
    }

    /** The file's {@code format}: what its lines hold. */
    static final String FORMAT = "per scenario: a header line (scenario, description, join_type"
            + " (INNER), zone, backend, operator, left_keys, right_keys, filter_nulls (the"
            + " node's, not applied by the operator), left_time and right_time (the node's"
            + " leftTimeAttributeIndex, the left's proctime pt, and rightTimeAttributeIndex, -1),"
            + " state_ttl_ms and max_retention_ms (the operator's minRetentionTime and"
            + " maxRetentionTime; it cleans state where the first exceeds 1), node and config:"
            + " the planner's texts for flink::plan_node, left, right and output columns, sql,"
            + " plan, events, rows_out), then events lines {\"processing_time\":ms} (the first;"
            + " cleanup timers due fire), {\"in\":kind,\"side\":0|1,\"row\":[..]} or"
            + " {\"watermark\":ms} (both inputs), each followed by the {\"out\":kind,\"row\":"
            + "[..]} lines emitted for it; the left's pt is NULL in every row; BIGINT, DOUBLE"
            + " (Double.toString), DECIMAL (plain) and TIMESTAMP (epoch ms) values are strings";

    public static void main(String[] args) throws Exception {
        List<Scenario> scenarios = TwoInputVectors.selected(args, "ProcTimeTemporalJoinVectors",
                ProcTimeTemporalJoinVectors::scenarios, s -> s.name);
        List<Planned> planned = TwoInputVectors.inputs(scenarios,
                ProcTimeTemporalJoinVectors::plan, "proctime-temporal-join-inputs");
        for (Planned p : planned) {
            regroup(p);
            TemporalJoinVectors.checkKinds(p);
            TemporalJoinVectors.feed(p);
            TwoInputVectors.checkProcTimeFeed(p, p.times);
        }
        TwoInputVectors.runBackends(planned, BACKENDS, p -> p.scenario.backend,
                "proctime temporal join");
        TwoInputVectors.compareTwins(planned);
        TwoInputVectors.writeFile(args[0], GENERATOR, FORMAT, planned,
                TemporalJoinVectors::write);
    }

    // ---------------------------------------------------------------- planning

    /**
     * Plans the scenario's query in {@code tEnv} (its tables {@code lhs} and {@code rhs} with
     * {@code pt}, the function {@link #FUNCTION} of {@code rhs}, or of its filtered view) and
     * returns the operator Flink built, checked against the node and the scenario.
     */
    static Planned plan(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Scenario s,
            int tag) throws Exception {
        TemporalJoinVectors.configure(tEnv, s);
        TwoInputVectors.procTimeView(env, tEnv, s.name, s.table(LEFT), s.events, LEFT, "lhs",
                List.of(), s.leftChangelog);
        TwoInputVectors.procTimeView(env, tEnv, s.name, s.table(RIGHT), s.events, RIGHT, "rhs",
                List.of(), s.versions != Versions.APPEND);
        TemporalJoinVectors.filteredView(tEnv, s);
        tEnv.dropTemporarySystemFunction(FUNCTION);
        tEnv.createTemporarySystemFunction(FUNCTION, tEnv.from(s.versionedTable())
                .createTemporalTableFunction($("pt"), $(s.primaryKey.get(0))));
        return TemporalJoinVectors.planJoin(tEnv, new Planned(s, tag),
                TemporalProcessTimeJoinOperator.class);
    }

    /**
     * Regroups the node rows of {@code p}, read one by one ({@link Planned#unseparated}), per
     * table row in order: one each, none for a {@code -U} the planner drops ({@link
     * TemporalJoinVectors.Scenario#dropsBefore}); {@link TemporalJoinVectors#checkKinds} and
     * the feed then check each by its kind and id.
     */
    static void regroup(Planned p) {
        TemporalJoinVectors.Scenario s = p.scenario;
        for (int side = 0; side < 2; side++) {
            List<List<byte[]>> rows = p.segments.get(side);
            List<List<byte[]>> perRow = new ArrayList<>();
            int next = 0;
            for (Event e : s.events) {
                if (e.side() == side) {
                    boolean dropped = e.kind() == RowKind.UPDATE_BEFORE && s.dropsBefore(side);
                    perRow.add(dropped || next == rows.size() ? List.of() : rows.get(next++));
                }
            }
            if (next != rows.size()) {
                throw new IllegalStateException(p.name + ": " + rows.size() + " node rows on"
                        + " side " + side + ", only " + next + " of them for table rows");
            }
            rows.clear();
            rows.addAll(perRow);
        }
    }

    // ---------------------------------------------------------------- scenarios

    /** Right keys with NULL; left ones as {@link TemporalJoinVectors#LEFT_KEYS}. */
    static final Object[] NULL_HEAVY_KEYS = {1, 2, null, null, null};
    static final Object[] FEW_KEYS = {1, 2};
    static final String RANDOM = "random rows: left keys 1, 2, 3 and NULL, right keys 1 to 4,"
            + " values with NULL; the processing time moved before each row: not at all, by"
            + " steps of up to a tenth of the TTL (or of a second) or half of it, rarely of one"
            + " to two or past the maximum retention time";

    /**
     * The (k INT, v BIGINT) tables, both nullable, joined on {@code L.k = R.k}, the right's
     * rows as {@code versions}, with a state TTL of {@code ttl} ms (none when 0).
     */
    static Scenario scenario(String name, String description, Versions versions, long ttl,
            String backend) {
        Scenario s = new Scenario(name, description);
        s.left("k", DataTypes.INT()).left("v", DataTypes.BIGINT())
                .right("k", DataTypes.INT()).right("v", DataTypes.BIGINT())
                .versions(versions).stateTtl(ttl).backend(backend);
        return s;
    }

    /** 120 {@link #RANDOM} rows. */
    static Scenario random(String name, Versions versions, long ttl, String backend) {
        return scenario(name, "120 " + RANDOM, versions, ttl, backend)
                .random(120, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    static List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        for (String backend : BACKENDS) {
            String x = NodeVectors.suffix(backend);
            list.add(traced("inner_traced" + x, backend));
            list.add(ttlTraced("inner_ttl_traced" + x, backend));
            list.add(changelogTraced("inner_upsert_traced" + x, Versions.UPSERT, backend));
            list.add(changelogTraced("inner_retract_traced" + x, Versions.RETRACT, backend));
            list.add(ttlUpsertTraced("inner_ttl_upsert_traced" + x, backend));
            list.add(ttlRounding("inner_ttl_333" + x, backend));
            list.add(nullKeys("inner_null_keys" + x, backend));
            list.add(nonEqui("inner_nonequi" + x, 0, backend));
            list.add(nonEqui("inner_ttl_nonequi" + x, 1_000, backend));
            list.add(leftChangelog("inner_changelog" + x, Versions.APPEND, 0, backend));
            list.add(leftChangelog("inner_ttl_changelog_upsert" + x, Versions.UPSERT, 1_000,
                    backend));
            list.add(random("inner_random" + x, Versions.APPEND, 0, backend));
            list.add(random("inner_ttl_random" + x, Versions.APPEND, 1_000, backend));
            list.add(random("inner_ttl_retract_random" + x, Versions.RETRACT, 500, backend));
            list.add(random("inner_upsert_random" + x, Versions.UPSERT, 0, backend));
            list.add(random("inner_ttl_upsert_random" + x, Versions.UPSERT, 2_000, backend));
            list.add(random("inner_ttl_one_ms" + x, Versions.APPEND, 1, backend));
            list.add(hotKey("inner_ttl_hot_key" + x, backend));
            list.add(types("inner_types" + x, backend));
            list.add(narrow("inner_narrow" + x, backend));
        }
        return list;
    }

    /**
     * Traced rows without a TTL, then 60 random ones: a left row before any right row, right
     * rows replacing each other (a left row meets the latest), left rows meeting one right row
     * again and again (they are never stored), keys on one side only, NULL values, watermarks
     * (which change nothing), a long quiet time (nothing expires).
     */
    static Scenario traced(String name, String backend) {
        Scenario s = scenario(name, "traced: a left row before any right row, right rows"
                + " replacing each other, left rows meeting the latest again and again, keys"
                + " on one side only, NULL values, watermarks (changing nothing), a long quiet"
                + " time (nothing expires); then 60 " + RANDOM, Versions.APPEND, 0, backend);
        s.time(0)
                .row(LEFT, 1, 1L)             // no right row: nothing
                .row(RIGHT, 1, 10L)
                .row(LEFT, 1, 2L)             // joins 10
                .row(RIGHT, 1, 11L)           // replaces 10
                .row(LEFT, 1, 3L)             // joins 11
                .row(LEFT, 1, 4L)             // joins 11 again
                .wm(0)
                .time(1_000)
                .row(RIGHT, 2, 20L)
                .row(LEFT, 2, 5L)             // joins 20
                .row(LEFT, 3, 6L)             // key 3: left only
                .row(RIGHT, 4, 40L)           // key 4: right only
                .row(LEFT, 1, null)           // a NULL value: joins 11
                .row(RIGHT, 1, null)          // replaced by a NULL value
                .row(LEFT, 1, 7L)             // joins it
                .wm(5_000)
                .time(100_000)                // no TTL: nothing expires
                .row(LEFT, 2, 8L);            // joins 20
        return s.random(60, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A state TTL of 1000 ms (cleanup timers 1500 ms after the processing time), traced: a left
     * row finding no right row registers no timer; a right row registers one; a left row
     * leaves it (at the boundary too) or moves it; a right row replacing another leaves it;
     * two keys' timers in one jump; left rows meeting nothing after a cleanup. Then 80 random
     * rows.
     */
    static Scenario ttlTraced(String name, String backend) {
        Scenario s = scenario(name, "traced: a left row finding no right row registering no"
                + " cleanup timer, a right row registering one, left rows leaving it (at the"
                + " boundary too) and moving it, a right row replacing another leaving it, two"
                + " keys' timers in one jump, left rows meeting nothing after a cleanup; then"
                + " 80 " + RANDOM, Versions.APPEND, 1_000, backend);
        s.time(0)
                .row(LEFT, 1, 1L)             // no right row: nothing, no cleanup timer
                .row(RIGHT, 1, 10L)           // key 1: its cleanup timer at 1500
                .time(500)
                .row(LEFT, 1, 2L)             // joins 10; 1500 is not after 1500: it stays
                .time(501)
                .row(RIGHT, 2, 20L)           // key 2: 2001
                .row(LEFT, 1, 3L)             // joins 10; 1501: moved to 2001
                .time(2_000)
                .row(LEFT, 1, 4L)             // joins 10 (still there); 3000: moved to 3500
                .time(2_001)                  // key 2: 20 gone
                .row(LEFT, 2, 5L)             // no right row: nothing
                .row(RIGHT, 3, 30L)           // key 3: 3501
                .row(RIGHT, 4, 40L)           // key 4: 3501
                .row(RIGHT, 3, 31L)           // replaces 30; 3001 is not after 3501: stays
                .time(3_500)                  // key 1: 10 gone
                .row(LEFT, 1, 6L)             // nothing
                .time(3_501)                  // keys 3 and 4 in one jump
                .row(LEFT, 3, 7L)             // nothing
                .row(RIGHT, 1, 12L)           // key 1 again: 5001
                .time(4_000)
                .row(LEFT, 1, 8L)             // joins 12; 5000 is not after 5001: stays
                .time(5_001)                  // 12 gone
                .row(LEFT, 1, 9L);            // nothing
        return s.random(80, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A changelog right table as {@code versions}, traced: an update ({@code -U} then
     * {@code +U}; where the {@code -U} reaches the join it clears the right row, so a left row
     * between the two meets nothing), a deletion (left rows then meet nothing), an insertion
     * again. Then 100 random rows with right updates and deletions.
     */
    static Scenario changelogTraced(String name, Versions versions, String backend) {
        Scenario s = scenario(name, "traced: an update (-U, a left row, +U), a deletion, an"
                + " insertion again; then 100 " + RANDOM + ", right updates and deletions",
                versions, 0, backend);
        s.time(0)
                .row(RIGHT, 1, 10L)
                .row(LEFT, 1, 1L)             // joins 10
                .retract(RIGHT, RowKind.UPDATE_BEFORE, 1)
                .row(LEFT, 1, 2L)             // joins 10, unless the -U cleared it
                .changeNow(RIGHT, RowKind.UPDATE_AFTER, 1, 11L)
                .row(LEFT, 1, 3L)             // joins 11
                .time(100)
                .retract(RIGHT, RowKind.DELETE, 1)
                .row(LEFT, 1, 4L)             // nothing
                .row(RIGHT, 1, 12L)
                .row(LEFT, 1, 5L);            // joins 12
        return s.random(100, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A state TTL of 1000 ms over a changelog right table (its {@code -U} dropped), traced: a
     * deletion deletes the key's cleanup timer, so the next insertion registers a new one
     * where the old one would have stayed; a left row moves it; an update leaves it, and its
     * cleanup clears the updated row. Then 80 random rows.
     */
    static Scenario ttlUpsertTraced(String name, String backend) {
        Scenario s = scenario(name, "traced: a deletion deleting the cleanup timer, the next"
                + " insertion registering a new one where the old one would have stayed, a left"
                + " row moving it, an update leaving it, the cleanup clearing the updated row;"
                + " then 80 " + RANDOM + ", right updates and deletions", Versions.UPSERT,
                1_000, backend);
        s.time(0)
                .row(RIGHT, 1, 10L)           // key 1: its cleanup timer at 1500
                .time(400)
                .retract(RIGHT, RowKind.DELETE, 1)                 // cleared, timer deleted
                .row(RIGHT, 1, 11L)           // a new timer at 1900 (the old one would have
                                              // stayed: 1400 is not after 1500)
                .time(1_500)                  // nothing due
                .row(LEFT, 1, 1L)             // joins 11; 2500: moved to 3000
                .time(2_000)
                .retract(RIGHT, RowKind.UPDATE_BEFORE, 1)          // dropped before the join
                .changeNow(RIGHT, RowKind.UPDATE_AFTER, 1, 12L)   // 3000 is not after 3000
                .time(3_000)                  // 12 gone
                .row(LEFT, 1, 2L);            // nothing
        return s.random(80, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * A state TTL of 333 ms: cleanup timers 499 ms after the processing time (3/2 rounded
     * down). A left row 166 ms after the timer was set leaves it (499 is not after 499), one a
     * millisecond later moves it to 666; two keys' timers fire in one jump. Then 80 random
     * rows on the scale of the TTL.
     */
    static Scenario ttlRounding(String name, String backend) {
        Scenario s = scenario(name, "traced: a TTL of 333 ms, cleanup timers 499 ms after the"
                + " processing time (3/2 rounded down), a left row 166 ms after a timer was set"
                + " leaving it and one a millisecond later moving it, two keys' timers in one"
                + " jump; then 80 " + RANDOM, Versions.APPEND, 333, backend);
        s.time(0)
                .row(RIGHT, 1, 10L)           // key 1: its cleanup timer at 499
                .time(10)
                .row(RIGHT, 2, 20L)           // key 2: 509
                .time(20)
                .row(RIGHT, 3, 30L)           // key 3: 519
                .time(166)
                .row(LEFT, 1, 1L)             // joins 10; 499 is not after 499: it stays
                .time(167)
                .row(LEFT, 1, 2L)             // joins 10; 500 is: moved to 666
                .time(519)                    // keys 2 and 3: 20 and 30 gone
                .row(LEFT, 1, 3L)             // joins 10; 852: moved to 1018
                .row(LEFT, 2, 4L)             // nothing
                .row(LEFT, 3, 5L)             // nothing
                .time(1_018)                  // key 1: 10 gone
                .row(LEFT, 1, 6L);            // nothing
        return s.random(80, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * NULL keys on both sides: the operator's key is the join key and nothing filters NULLs,
     * so a left row with a NULL key meets the right row with a NULL key. Then 120 random rows
     * over keys 1, 2 and mostly NULL.
     */
    static Scenario nullKeys(String name, String backend) {
        Scenario s = scenario(name, "traced: NULL keys on both sides (no NULL filter: a NULL"
                + " key is a key like any other); then 120 random rows over keys 1, 2 and mostly"
                + " NULL", Versions.APPEND, 0, backend);
        s.time(0)
                .row(LEFT, null, 1L)          // no right row of the NULL key: nothing
                .row(RIGHT, null, 10L)
                .row(LEFT, null, 2L)          // meets 10
                .row(RIGHT, 1, 20L)
                .row(LEFT, null, 3L);         // meets 10, not 20
        return s.random(120, kv(NULL_HEAVY_KEYS), kv(NULL_HEAVY_KEYS));
    }

    /**
     * The condition {@code L.v > R.v} besides the key; with a TTL, traced: a left row failing
     * it moves the cleanup timer all the same. Then 120 random rows over two keys.
     */
    static Scenario nonEqui(String name, long ttl, String backend) {
        Scenario s = scenario(name, "the condition L.v > R.v decides (NULL v never holds);"
                + " traced: a left row failing it moving the cleanup timer all the same (with a"
                + " TTL); then 120 random rows over keys 1 and 2, values with NULL",
                Versions.APPEND, ttl, backend);
        s.extra("L.v > R.v");
        s.time(0)
                .row(RIGHT, 1, 10L)           // key 1: with a TTL, its cleanup timer at 1500
                .time(800)
                .row(LEFT, 1, 5L)             // 5 > 10 fails: nothing; 1800: moved to 2300
                .time(1_500)                  // nothing due
                .row(LEFT, 1, 20L)            // joins 10
                .row(LEFT, 1, null);          // NULL v: nothing
        return s.random(120, kv(FEW_KEYS), kv(FEW_KEYS));
    }

    /**
     * A changelog left table, traced: left {@code -U}, {@code +U} and {@code -D} each meet
     * the key's right row at once, each output row of the left row's kind. Then 120 random
     * rows with left updates and deletions.
     */
    static Scenario leftChangelog(String name, Versions versions, long ttl, String backend) {
        Scenario s = scenario(name, "traced: left -U, +U and -D each meeting the key's right"
                + " row at once, each output row of its kind; then 120 " + RANDOM + ", left"
                + " updates and deletions" + (versions == Versions.APPEND ? ""
                        : ", right updates and deletions"), versions, ttl, backend);
        s.leftChangelog();
        s.time(0)
                .row(RIGHT, 1, 10L)
                .row(LEFT, 1, 1L)                                  // +I joined
                .retract(LEFT, RowKind.UPDATE_BEFORE, 1)           // -U joined
                .changeNow(LEFT, RowKind.UPDATE_AFTER, 1, 2L)      // +U joined
                .row(RIGHT, 1, 11L)
                .retract(LEFT, RowKind.DELETE, 1)                  // -D of 2, joined with 11
                .row(LEFT, 2, 3L)                                  // nothing
                .retract(LEFT, RowKind.DELETE, 2);                 // nothing
        return s.random(120, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }

    /**
     * One key, a state TTL of 100 ms: 80 rows on both sides (every third a right row), steps
     * of up to 60 ms and, one in five, of 100 to 250 ms (the right row replaced often, the
     * cleanup timer moved, or firing between rows).
     */
    static Scenario hotKey(String name, String backend) {
        Scenario s = scenario(name, "one key, a TTL of 100 ms: 80 rows on both sides (every"
                + " third a right row), random steps of up to 60 ms and, one in five, of 100 to"
                + " 250 ms (the right row replaced often, the cleanup timer moved, or firing"
                + " between rows)", Versions.APPEND, 100, backend);
        s.time(0);
        for (int n = 0; n < 80; n++) {
            long step = s.rnd.nextInt(5) == 0 ? 100 + s.rnd.nextLong(151)
                    : s.rnd.nextLong(61);
            if (step > 0) {
                s.timeEpoch(s.now + step);
            }
            s.row(n % 3 == 0 ? RIGHT : LEFT, 1, (long) n);
        }
        return s;
    }

    /**
     * STRING keys (non-ASCII, an emoji, a combining accent against its precomposed form, NULL
     * on both sides) and values of several types; a TTL of 2 s. 120 random rows.
     */
    static Scenario types(String name, String backend) {
        Object[] keys = {"", "a", "größer 🦀", "é", "e\u0301", null};
        Scenario s = new Scenario(name, "STRING keys (empty, non-ASCII, an emoji, a combining"
                + " accent against its precomposed form, NULL on both sides), values of DOUBLE,"
                + " DECIMAL(10, 2), BOOLEAN and TIMESTAMP(3) on the left, DECIMAL(38, 18),"
                + " BIGINT and STRING on the right; 120 " + RANDOM);
        s.left("k", DataTypes.STRING()).left("d", DataTypes.DOUBLE())
                .left("m", DataTypes.DECIMAL(10, 2)).left("b", DataTypes.BOOLEAN())
                .left("t", DataTypes.TIMESTAMP(3))
                .right("x", DataTypes.DECIMAL(38, 18)).right("k", DataTypes.STRING())
                .right("l", DataTypes.BIGINT()).right("s", DataTypes.STRING())
                .stateTtl(2_000).backend(backend);
        return s.random(120, (r, n) -> new Object[] {
            NodeVectors.pick(r, keys), NodeVectors.pick(r, JoinVectors.DOUBLES),
            NodeVectors.pick(r, JoinVectors.DECIMALS), NodeVectors.pick(r, JoinVectors.BOOLEANS),
            NodeVectors.pick(r, JoinVectors.TIMESTAMPS)
        }, (r, n) -> new Object[] {
            NodeVectors.pick(r, JoinVectors.WIDE_DECIMALS), NodeVectors.pick(r, keys),
            NodeVectors.pick(r, JoinVectors.BIGINTS), NodeVectors.pick(r, JoinVectors.STRINGS)
        });
    }

    /** Only a few columns selected: the planner projects the inputs (no id). */
    static Scenario narrow(String name, String backend) {
        Scenario s = scenario(name, "selecting L.v and R.v only: the inputs hold no id; 120 "
                + RANDOM, Versions.APPEND, 1_000, backend);
        s.select("L.v, R.v AS rv");
        return s.random(120, kv(LEFT_KEYS), kv(RIGHT_KEYS));
    }
}
