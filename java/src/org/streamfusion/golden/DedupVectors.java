package org.streamfusion.golden;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.types.DataType;

import org.streamfusion.flink.StreamFusionPlanner;

/**
 * Golden changelogs of streaming deduplication ({@code StreamExecDeduplicate}: {@code
 * ROW_NUMBER() OVER (PARTITION BY k ORDER BY <time attribute> [DESC]) = 1}), produced by Flink
 * SQL on the released Flink 2.3.0 jars: each scenario's rows go through {@code SELECT cols FROM
 * (SELECT *, ROW_NUMBER() OVER (..) AS rn FROM src) WHERE rn = 1} in a MiniCluster at
 * parallelism 1 under the scenario's keyed state backend and options, and the changelog the job
 * emits is recorded with its row kinds. The native deduplication is tested against them
 * ({@code crates/streamfusion/tests/it/deduplicate_flink.rs}).
 *
 * <p>The four kinds and their functions in 2.3.0: proctime keep-first ({@code
 * ProcTimeDeduplicateKeepFirstRowFunction}), proctime keep-last ({@code
 * ProcTimeDeduplicateKeepLastRowFunction}), rowtime keep-first ({@code
 * RowTimeDeduplicateKeepFirstRowFunction}: late rows dropped, the winner emitted on its
 * event-time timer) and rowtime keep-last ({@code RowTimeDeduplicateFunction}); with
 * mini-batch ({@code table.exec.mini-batch.enabled}, {@code allow-latency} 1 h so only the
 * count trigger, a watermark that passes the mini-batch assigner and the end of input close a
 * bundle) {@code ProcTimeMiniBatchDeduplicateKeepFirstRowFunction}, {@code
 * ProcTimeMiniBatchDeduplicateKeepLastRowFunction} and {@code
 * RowTimeMiniBatchDeduplicateFunction} (both rowtime kinds). {@code -U} is generated for a
 * {@code toChangelogStream} in retract mode; scenarios marked upsert convert with {@code
 * ChangelogMode.upsert()} and a primary key on the partition keys, so the node has {@code
 * generateUpdateBefore = false}. The program checks the node of every scenario: its kind,
 * flags, mini-batch option and state TTL.
 *
 * <p>Rows enter from {@code fromData} at parallelism 1. A rowtime scenario's stream has
 * punctuated watermarks (emitted from {@code onEvent} after the rows the scenario names, none
 * periodically) and the table takes them with {@code SOURCE_WATERMARK()} on the physical
 * column {@code ts}, so rows and watermarks reach the operator in one fixed order. A proctime
 * scenario's table has the computed column {@code pt AS PROCTIME()}, which the deduplicate
 * node's input holds as NULL: the planner's code for a time indicator is a null literal
 * (PROCTIME is materialized only when something reads it; checked once by hand: keep-last on
 * RocksDB suppressed a row identical to the previous one but arriving 40 ms after it). The
 * query projects {@code pt} away after the node, so the output has no wall-clock values.
 *
 * <p>Each scenario's node description is what {@link StreamFusionPlanner} hands to {@code
 * NativeOperator.planFromFlink}, taken from its recorded decision: {@code streamfusion.enabled}
 * is on while the job is planned, and the native library is pointed at a path that does not
 * exist, so every node is refused (a LinkageError) and the job runs stock. Node ids restart
 * for every scenario. The scenarios of one backend run in one job, each a pipeline of its own
 * (source, query, conversion) planned under its own options.
 *
 * <p>Usage: {@code DedupVectors <output path> [scenario..]} (all scenarios when none are
 * named), on the planner classpath ({@code classpath-planner.txt}). Output is JSON Lines
 * (UTF-8, LF):
 *
 * <ul>
 *   <li>line 1: {@code {"flink":"2.3.0","seed":..,"generator":..,"format":..}};
 *   <li>per scenario, a header {@code {"scenario":name,"description":..,"kind":..,
 *       "backend":"hashmap"|"rocksdb","mini_batch":size|null,"state_ttl_ms":ms|null,
 *       "node":<description text>,"config":<options text>,"input":[{"name":..,"type":..
 *       [,"time":"proctime"|"rowtime"]}..],"output":[{"name":..,"type":..}..],
 *       "output_columns":[..],"output_keys":[..],"sql":..,"plan":..,"events_in":n,
 *       "rows_out":m}}: {@code node} and {@code config} are the exact texts the planner made
 *       ({@code flink::plan_node}'s two arguments); {@code input} is the node's input row (a
 *       proctime column is NULL in every row); {@code output_columns} says which node output
 *       column each output column is, {@code output_keys} which output columns are the
 *       partition keys; {@code plan} is the job's operators in order;
 *   <li>then n events in the order the node receives them: {@code {"in":"+I","row":[..]}}
 *       and {@code {"watermark":ms}} (the source's watermarks as they pass a mini-batch
 *       assigner, and {@code Long.MAX_VALUE} at the end of input);
 *   <li>then m lines {@code {"out":kind,"row":[..]}}, kind being +I/-U/+U/-D, in the order
 *       the job emitted them (across keys, timers and mini-batch bundles follow Flink's hash
 *       order).
 * </ul>
 *
 * <p>Values as {@link GroupAggVectors} writes them (NULL null, STRING a JSON string, INT a
 * number, BIGINT a decimal string, DOUBLE {@code Double.toString} as a string, DECIMAL plain
 * with the type's scale), TIMESTAMP(3) and TIMESTAMP_LTZ(3) as epoch milliseconds (UTC) in a
 * decimal string. Every scenario's random rows come from {@link #SEED} and its name (without
 * {@code _rocksdb}: a scenario run on both backends has the same rows on both), so two runs
 * write byte-identical files.
 */
public final class DedupVectors extends NodeVectors<DedupVectors.Scenario> {
    /** Published seed (the project's). */
    public static final long SEED = GroupAggVectors.SEED;

    static final String NODE_TYPE = "stream-exec-deduplicate_1";
    static final long MINI_BATCH_LATENCY_MS = 3_600_000L;

    DedupVectors() {
        super("backend, mini_batch", NODE_TYPE, "deduplicate", "dedup-vectors-");
    }

    /** What orders a partition's rows. */
    enum Time {
        PROCTIME,
        /** The physical TIMESTAMP(3) column {@code ts}. */
        ROWTIME,
        /** The physical TIMESTAMP_LTZ(3) column {@code ts}. */
        ROWTIME_LTZ
    }

    static final class Scenario extends NodeVectors.Scenario<Scenario> {
        final Time time;
        final boolean keepLast;
        int miniBatch;
        boolean insertSensitive = true;
        final List<String> keys = new ArrayList<>();

        Scenario(String name, String description, Time time, boolean keepLast) {
            super(name, description);
            this.time = time;
            this.keepLast = keepLast;
        }

        /** The rowtime column {@code ts} (NOT NULL), as the next physical column. */
        Scenario rowtimeColumn() {
            return time == Time.ROWTIME_LTZ
                    ? column("ts", "TIMESTAMP_LTZ(3)", DataTypes.TIMESTAMP_LTZ(3).notNull())
                    : column("ts", "TIMESTAMP(3)", DataTypes.TIMESTAMP(3).notNull());
        }

        Scenario keys(String... names) {
            keys.addAll(Arrays.asList(names));
            return this;
        }

        Scenario miniBatch(int size) {
            this.miniBatch = size;
            return this;
        }

        /** {@code table.exec.deduplicate.insert-update-after-sensitive-enabled = false}. */
        Scenario insertInsensitive() {
            this.insertSensitive = false;
            return this;
        }

        @Override
        boolean rowtime() {
            return time != Time.PROCTIME;
        }

        @Override
        boolean proctime() {
            return !rowtime();
        }

        String timeColumn() {
            return rowtime() ? "ts" : "pt";
        }

        /** A rowtime given as a {@code long} is ms after BASE. */
        @Override
        Object[] values(Object[] values) {
            for (int i = 0; i < values.length; i++) {
                if (columns.get(i).name().equals("ts") && values[i] instanceof Long) {
                    long at = (Long) values[i];
                    values[i] = time == Time.ROWTIME_LTZ
                            ? Instant.ofEpochMilli(BASE_MS + at)
                            : BASE.plusNanos(at * 1_000_000L);
                }
            }
            return values;
        }

        @Override
        String kind() {
            return (rowtime() ? "rowtime" : "proctime") + (keepLast ? " keep-last" : " keep-first")
                    + (miniBatch > 0 ? ", mini-batch" : "") + (upsert ? ", no -U" : "")
                    + (insertSensitive ? "" : ", no +I guarantee") + (ttlMs > 0 ? ", TTL" : "");
        }

        @Override
        void options(TableConfig config) {
            config.set("table.exec.mini-batch.enabled", Boolean.toString(miniBatch > 0));
            config.set("table.exec.mini-batch.allow-latency",
                    (miniBatch > 0 ? MINI_BATCH_LATENCY_MS : 0) + " ms");
            config.set("table.exec.mini-batch.size",
                    Integer.toString(miniBatch > 0 ? miniBatch : -1));
            super.options(config);
            config.set("table.exec.deduplicate.insert-update-after-sensitive-enabled",
                    Boolean.toString(insertSensitive));
        }

        @Override
        List<String> primaryKey() {
            return keys;
        }

        @Override
        String sql(String view) {
            StringBuilder s = new StringBuilder("SELECT ");
            for (int i = 0; i < columns.size(); i++) {
                s.append(i == 0 ? "" : ", ").append('`').append(columns.get(i).name()).append('`');
            }
            s.append(" FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY ");
            for (int i = 0; i < keys.size(); i++) {
                s.append(i == 0 ? "" : ", ").append('`').append(keys.get(i)).append('`');
            }
            return s.append(" ORDER BY `").append(timeColumn()).append('`')
                    .append(keepLast ? " DESC" : "").append(") AS rn FROM ").append(view)
                    .append(") WHERE rn = 1")
                    .toString();
        }
    }

    public static void main(String[] args) throws Exception {
        new DedupVectors().generate(args);
    }

    @Override
    boolean expectedPlan(Scenario s, String plan) {
        return plan.contains("Deduplicate(")
                && (s.miniBatch > 0) == plan.contains("MiniBatchAssigner(");
    }

    @Override
    void header(Scenario s, StringBuilder out) {
        out.append(",\"backend\":");
        Json.string(out, s.backend);
        out.append(",\"mini_batch\":")
                .append(s.miniBatch > 0 ? Integer.toString(s.miniBatch) : "null");
    }

    /**
     * The one deduplicate node of the scenario's decisions, checked against what the scenario
     * asks for: kind, flags, mini-batch, TTL, keys and input columns.
     */
    @Override
    Node node(Scenario s) throws IOException {
        StreamFusionPlanner.Decision d = decision(s, NODE_TYPE, what, true);
        Node found = new Node(d.description, d.config);
        List<String> problems = new ArrayList<>();
        JsonNode node = readNode(s, found, 0, problems);
        expect(problems, node, "isRowtime", Boolean.toString(s.rowtime()));
        expect(problems, node, "keepLastRow", Boolean.toString(s.keepLast));
        // RankUtil.outputInsertOnlyInDeduplicate: keep-first without mini-batch, whose output
        // has no updates (so none before them either).
        boolean insertOnly = !s.keepLast && s.miniBatch == 0;
        expect(problems, node, "outputInsertOnly", Boolean.toString(insertOnly));
        expect(problems, node, "generateUpdateBefore",
                Boolean.toString(!s.upsert && !insertOnly));
        JsonNode options = node.get("configuration");
        if (options == null
                || !options.path("table.exec.mini-batch.enabled").asText()
                        .equals(Boolean.toString(s.miniBatch > 0))
                || (s.miniBatch > 0 && !options.path("table.exec.mini-batch.size").asText()
                        .equals(Integer.toString(s.miniBatch)))
                || !options.path("table.exec.deduplicate.insert-update-after-sensitive-enabled")
                        .asText().equals(Boolean.toString(s.insertSensitive))) {
            problems.add("options " + options);
        }
        if (!found.fields.equals(s.inputNames())) {
            problems.add("input fields " + found.fields);
        }
        readKeys(node.get("uniqueKeys"), found, s.keys, "unique keys", problems);
        fits(s, found, problems);
        return found;
    }

    private static final Pattern ASSIGNER =
            Pattern.compile("MiniBatchAssigner\\(interval=\\[(\\d+)ms\\], mode=\\[(\\w+)\\]\\)");

    /**
     * The events the node receives, in order: {@code {1, row index}} for a row, {@code {0,
     * watermark}} for a watermark. A mini-batch plan's assigner passes watermarks as Flink
     * 2.3.0's do: {@code ProcTimeMiniBatchAssignerOperator} only the end of input, {@code
     * RowTimeMiniBatchAssginerOperator} the first watermark at or past the end of the current
     * interval (starting at 0 with the interval {@code [0, interval - 1]}) and the end of
     * input.
     */
    @Override
    List<long[]> events(Planned<Scenario> p) {
        Scenario s = p.scenario;
        Matcher assigner = ASSIGNER.matcher(p.plan);
        boolean mini = assigner.find();
        if (!mini) {
            return super.events(p);
        }
        long interval = Long.parseLong(assigner.group(1));
        boolean rowtimeAssigner = assigner.group(2).equals("RowTime");
        if (interval != MINI_BATCH_LATENCY_MS) {
            throw new IllegalStateException(s.name + ": mini-batch interval " + interval);
        }
        long current = 0;
        long next = interval - 1;
        List<long[]> events = new ArrayList<>();
        for (int i = 0; i < s.rows.size(); i++) {
            events.add(new long[] {1, i});
            long w = s.watermarks.get(i);
            if (w != NO_WATERMARK && rowtimeAssigner) {
                current = Math.max(current, w);
                if (current >= next) {
                    events.add(new long[] {0, current});
                    long start = current - Math.floorMod(current + interval, interval);
                    long end = start + interval - 1;
                    next = end > current ? end : end + interval;
                }
            }
        }
        events.add(new long[] {0, END_OF_INPUT});
        return events;
    }

    // ---------------------------------------------------------------- values

    static final Object[] KEYS = GroupAggVectors.KEYS;
    static final Object[] INTS = {null, 0, 1, -1, 7, Integer.MIN_VALUE, Integer.MAX_VALUE};
    static final Object[] BIGINTS = {
        null, 0L, 1L, -1L, 1_234_567_890_123L, Long.MIN_VALUE, Long.MAX_VALUE
    };
    static final Object[] DOUBLES = {
        null, 0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.5,
        -2.25, 1.0E300, Double.MIN_VALUE
    };
    static final Object[] DECIMALS = {
        null, new BigDecimal("0.00"), new BigDecimal("-0.01"), new BigDecimal("1.10"),
        new BigDecimal("99999999.99"), new BigDecimal("-99999999.99")
    };
    static final Object[] WIDE_DECIMALS = {
        null, new BigDecimal("0.000000000000000000"),
        new BigDecimal("12345678901234567890.123456789012345678"),
        new BigDecimal("-0.000000000000000001"),
        new BigDecimal("99999999999999999999.999999999999999999")
    };
    static final Object[] STRINGS = {
        null, "", "x", "seven b", "more than seven bytes", "größer 🦀", "🦀🦀", "\u2028",
        "nul\0byte"
    };

    // ---------------------------------------------------------------- scenarios

    @Override
    List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        // Proctime keep-first.
        list.add(proctimeFirstValues("proctime_first_values", "hashmap"));
        list.add(proctimeFirstValues("proctime_first_values_rocksdb", "rocksdb"));
        list.add(proctimeFirstMultiKey());
        list.add(proctimeFirstDoubleKeys());
        list.add(proctimeFirstMiniBatch("proctime_first_mini_batch", "hashmap"));
        list.add(proctimeFirstMiniBatch("proctime_first_mini_batch_rocksdb", "rocksdb"));
        list.add(proctimeFirstTtl());
        // Proctime keep-last: identical consecutive rows on both backends.
        for (String backend : BACKENDS) {
            String suffix = suffix(backend);
            list.add(proctimeLastIdentical("proctime_last_identical" + suffix, backend, false,
                    true));
            list.add(proctimeLastIdentical("proctime_last_identical_upsert" + suffix, backend,
                    true, true));
            list.add(proctimeLastIdentical("proctime_last_identical_no_insert" + suffix,
                    backend, false, false));
            list.add(proctimeLastIdentical("proctime_last_identical_upsert_no_insert" + suffix,
                    backend, true, false));
            list.add(proctimeLastMiniBatch("proctime_last_mini_batch" + suffix, backend, false));
            list.add(proctimeLastMiniBatch("proctime_last_mini_batch_upsert" + suffix, backend,
                    true));
            list.add(proctimeLastTtl("proctime_last_ttl" + suffix, backend));
            list.add(proctimeLastWide("proctime_last_wide_values" + suffix, backend));
        }
        list.add(proctimeLastValues());
        list.add(proctimeLastMultiKey());
        // Rowtime keep-first, on timers.
        list.add(rowtimeFirstTraced("rowtime_first_traced", "hashmap"));
        list.add(rowtimeFirstTraced("rowtime_first_traced_rocksdb", "rocksdb"));
        list.add(rowtimeFirstRandom("rowtime_first_random", "hashmap"));
        list.add(rowtimeFirstRandom("rowtime_first_random_rocksdb", "rocksdb"));
        list.add(rowtimeFirstLtz());
        list.add(rowtimeFirstMultiKey());
        list.add(rowtimeFirstTtl());
        // Rowtime keep-last.
        list.add(rowtimeLastTraced("rowtime_last_traced", "hashmap", false, true));
        list.add(rowtimeLastTraced("rowtime_last_traced_rocksdb", "rocksdb", false, true));
        list.add(rowtimeLastTraced("rowtime_last_traced_upsert", "hashmap", true, true));
        list.add(rowtimeLastTraced("rowtime_last_traced_no_insert", "hashmap", false, false));
        list.add(rowtimeLastTraced("rowtime_last_traced_upsert_no_insert", "rocksdb", true,
                false));
        list.add(rowtimeLastRandom("rowtime_last_random", "hashmap"));
        list.add(rowtimeLastRandom("rowtime_last_random_rocksdb", "rocksdb"));
        list.add(rowtimeLastLtz());
        list.add(rowtimeLastTtl());
        // Rowtime mini-batch (RowTimeMiniBatchDeduplicateFunction), both kinds.
        for (boolean keepLast : new boolean[] {false, true}) {
            String kind = keepLast ? "last" : "first";
            list.add(rowtimeMiniBatch("rowtime_" + kind + "_mini_batch", "hashmap", keepLast,
                    false));
            list.add(rowtimeMiniBatch("rowtime_" + kind + "_mini_batch_rocksdb", "rocksdb",
                    keepLast, false));
            list.add(rowtimeMiniBatch("rowtime_" + kind + "_mini_batch_upsert", "hashmap",
                    keepLast, true));
            list.add(rowtimeMiniBatchHours("rowtime_" + kind + "_mini_batch_hours", keepLast));
        }
        return list;
    }

    // ------------------------------------------------------ proctime keep-first

    Scenario proctimeFirstValues(String name, String backend) {
        Scenario s = new Scenario(name,
                "proctime keep-first over NULL, empty, Unicode and NUL STRING keys: each key's"
                        + " first row, NULL-heavy INT, BIGINT, DOUBLE, DECIMAL and STRING values",
                Time.PROCTIME, false)
                .column("k", "STRING", DataTypes.STRING())
                .column("i", "INT", DataTypes.INT())
                .column("l", "BIGINT", DataTypes.BIGINT())
                .column("d", "DOUBLE", DataTypes.DOUBLE())
                .column("m", "DECIMAL(10, 2)", DataTypes.DECIMAL(10, 2))
                .column("s", "STRING", DataTypes.STRING())
                .keys("k")
                .backend(backend);
        for (int n = 0; n < 150; n++) {
            s.row(pick(s.rnd, KEYS), pickOrNull(s.rnd, INTS, 3), pickOrNull(s.rnd, BIGINTS, 3),
                    pickOrNull(s.rnd, DOUBLES, 3), pickOrNull(s.rnd, DECIMALS, 3),
                    pickOrNull(s.rnd, STRINGS, 3));
        }
        return s;
    }

    Scenario proctimeFirstMultiKey() {
        Scenario s = new Scenario("proctime_first_multi_key",
                "proctime keep-first PARTITION BY s, k (the node keys by (k, s), the columns'"
                        + " order) with NULLs in either key column",
                Time.PROCTIME, false)
                .column("k", "INT", DataTypes.INT())
                .column("v", "BIGINT", DataTypes.BIGINT())
                .column("s", "STRING", DataTypes.STRING())
                .keys("s", "k")
                .backend("rocksdb");
        Object[] ks = {null, 0, 1, -1, Integer.MIN_VALUE};
        Object[] ss = {null, "", "a", "größer 🦀", "more than seven bytes"};
        for (int n = 0; n < 120; n++) {
            s.row(pick(s.rnd, ks), (long) n, pick(s.rnd, ss));
        }
        return s;
    }

    Scenario proctimeFirstDoubleKeys() {
        Scenario s = new Scenario("proctime_first_double_keys",
                "proctime keep-first partitioned by a DOUBLE: 0.0 and -0.0 are two keys (Flink"
                        + " keys by the bytes), NaN one, NULL one",
                Time.PROCTIME, false)
                .column("d", "DOUBLE", DataTypes.DOUBLE())
                .column("v", "INT", DataTypes.INT())
                .keys("d");
        for (int n = 0; n < 80; n++) {
            s.row(pick(s.rnd, DOUBLES), n);
        }
        return s;
    }

    Scenario proctimeFirstMiniBatch(String name, String backend) {
        Scenario s = new Scenario(name,
                "proctime keep-first, mini-batches of 5 rows: a bundle keeps each key's first"
                        + " row, emitted when the bundle closes unless the key was seen before",
                Time.PROCTIME, false)
                .column("k", "STRING", DataTypes.STRING())
                .column("v", "BIGINT", DataTypes.BIGINT())
                .keys("k")
                .backend(backend)
                .miniBatch(5);
        for (int n = 0; n < 130; n++) {
            s.row(n < 60 ? pick(s.rnd, KEYS) : "late-" + s.rnd.nextInt(25),
                    pickOrNull(s.rnd, BIGINTS, 4));
        }
        return s;
    }

    Scenario proctimeFirstTtl() {
        Scenario s = new Scenario("proctime_first_ttl",
                "proctime keep-first with a state TTL of 1 h (nothing expires within the run)",
                Time.PROCTIME, false)
                .column("k", "STRING", DataTypes.STRING())
                .column("v", "INT", DataTypes.INT())
                .keys("k")
                .ttl(3_600_000L);
        for (int n = 0; n < 60; n++) {
            s.row(pick(s.rnd, KEYS), n);
        }
        return s;
    }

    // ------------------------------------------------------- proctime keep-last

    /**
     * Rows equal to their key's previous one: Flink's keep-last suppresses them unless state
     * TTL is on, comparing BinaryRowData bytes with the header; on the hashmap backend the
     * kept row object is the one emitted as {@code +U}, so after an update an identical row
     * is not suppressed, while RocksDB keeps the row as it arrived ({@code +I}).
     */
    Scenario proctimeLastIdentical(String name, String backend, boolean upsert,
            boolean insertSensitive) {
        Scenario s = new Scenario(name,
                "proctime keep-last over runs of identical rows (after a first row and after an"
                        + " update, NULLs, -0.0 after 0.0, NaN after NaN, long strings) on "
                        + backend + (upsert ? ", no -U" : "")
                        + (insertSensitive ? "" : ", insert-and-update-after insensitive"),
                Time.PROCTIME, true)
                .column("k", "STRING", upsert ? DataTypes.STRING().notNull() : DataTypes.STRING())
                .column("v", "BIGINT", DataTypes.BIGINT())
                .column("d", "DOUBLE", DataTypes.DOUBLE())
                .column("s", "STRING", DataTypes.STRING())
                .keys("k")
                .backend(backend);
        if (upsert) {
            s.upsert();
        }
        if (!insertSensitive) {
            s.insertInsensitive();
        }
        Object[][] fixed = {
            {"a", 1L, 1.0, "x"}, {"a", 1L, 1.0, "x"}, {"a", 1L, 1.0, "x"},
            {"a", 2L, 1.0, "x"}, {"a", 2L, 1.0, "x"}, {"a", 2L, 1.0, "x"},
            {"b", null, null, null}, {"b", null, null, null}, {"a", 2L, 1.0, "x"},
            {"b", 5L, 0.0, "y"}, {"b", 5L, -0.0, "y"}, {"b", 5L, -0.0, "y"},
            {"c", 1L, Double.NaN, "more than seven bytes"},
            {"c", 1L, Double.NaN, "more than seven bytes"},
            {"c", 1L, Double.NaN, "more than seven bytes!"},
            {"c", 1L, Double.NaN, "more than seven bytes!"},
            {"", 0L, 0.0, ""}, {"", 0L, 0.0, ""}, {"größer 🦀", 0L, 0.0, "🦀"},
            {"größer 🦀", 0L, 0.0, "🦀"}, {"größer 🦀", 1L, 0.0, "🦀"},
            {"größer 🦀", 1L, 0.0, "🦀"},
        };
        for (Object[] r : fixed) {
            s.row(r);
        }
        // Few keys and few values: long runs of repeats, interleaved.
        Object[] keys = upsert
                ? new Object[] {"a", "b", "c", "d"}
                : new Object[] {"a", null, "c", "d"};
        Object[] small = {null, 1L, 2L};
        Object[] doubles = {0.0, -0.0, Double.NaN};
        for (int n = 0; n < 200; n++) {
            Object k = pick(s.rnd, keys);
            int repeat = 1 + s.rnd.nextInt(3);
            Object[] r = {k, pick(s.rnd, small), pick(s.rnd, doubles), pick(s.rnd, STRINGS)};
            for (int i = 0; i < repeat; i++) {
                s.row(r.clone());
            }
        }
        return s;
    }

    Scenario proctimeLastMiniBatch(String name, String backend, boolean upsert) {
        Scenario s = new Scenario(name,
                "proctime keep-last, mini-batches of 5 rows: a bundle keeps each key's last row,"
                        + " compared with the stored one when the bundle closes (identical rows"
                        + " suppressed as without mini-batch)" + (upsert ? ", no -U" : ""),
                Time.PROCTIME, true)
                .column("k", "STRING", upsert ? DataTypes.STRING().notNull() : DataTypes.STRING())
                .column("v", "INT", DataTypes.INT())
                .column("s", "STRING", DataTypes.STRING())
                .keys("k")
                .backend(backend)
                .miniBatch(5);
        if (upsert) {
            s.upsert();
        }
        Object[] keys = upsert ? new Object[] {"a", "b", "c", "größer 🦀", ""}
                : new Object[] {"a", "b", null, "größer 🦀", ""};
        Object[] ints = {null, 1, 2};
        Object[] strings = {null, "x", "more than seven bytes"};
        for (int n = 0; n < 220; n++) {
            Object[] r = {pick(s.rnd, keys), pick(s.rnd, ints), pick(s.rnd, strings)};
            int repeat = 1 + s.rnd.nextInt(2);
            for (int i = 0; i < repeat; i++) {
                s.row(r.clone());
            }
        }
        return s;
    }

    Scenario proctimeLastTtl(String name, String backend) {
        Scenario s = new Scenario(name,
                "proctime keep-last with a state TTL of 1 h: identical rows are not suppressed"
                        + " (state cleaning on), nothing expires within the run",
                Time.PROCTIME, true)
                .column("k", "STRING", DataTypes.STRING())
                .column("v", "INT", DataTypes.INT())
                .keys("k")
                .backend(backend)
                .ttl(3_600_000L);
        Object[] keys = {"a", null, "b"};
        for (int n = 0; n < 90; n++) {
            Object[] r = {pick(s.rnd, keys), s.rnd.nextInt(3) == 0 ? null : s.rnd.nextInt(2)};
            int repeat = 1 + s.rnd.nextInt(3);
            for (int i = 0; i < repeat; i++) {
                s.row(r.clone());
            }
        }
        return s;
    }

    Scenario proctimeLastWide(String name, String backend) {
        Scenario s = new Scenario(name,
                "proctime keep-last over DECIMAL(38, 18) and long STRING values (variable-length"
                        + " parts of the row compared byte for byte), repeated and changed",
                Time.PROCTIME, true)
                .column("k", "INT", DataTypes.INT())
                .column("m", "DECIMAL(38, 18)", DataTypes.DECIMAL(38, 18))
                .column("s", "STRING", DataTypes.STRING())
                .keys("k")
                .backend(backend);
        Object[] keys = {null, 1, 2, 3};
        Object[] strings = {null, "more than seven bytes", "more than seven bytes, and more",
            "größer 🦀 größer 🦀"};
        for (int n = 0; n < 160; n++) {
            Object[] r = {pick(s.rnd, keys), pick(s.rnd, WIDE_DECIMALS), pick(s.rnd, strings)};
            int repeat = 1 + s.rnd.nextInt(3);
            for (int i = 0; i < repeat; i++) {
                s.row(r.clone());
            }
        }
        return s;
    }

    Scenario proctimeLastValues() {
        Scenario s = new Scenario("proctime_last_values",
                "proctime keep-last over many STRING keys: every row replaces its key's (-U of"
                        + " the previous row, +U), NULL-heavy values of every type",
                Time.PROCTIME, true)
                .column("k", "STRING", DataTypes.STRING())
                .column("i", "INT", DataTypes.INT())
                .column("l", "BIGINT", DataTypes.BIGINT())
                .column("d", "DOUBLE", DataTypes.DOUBLE())
                .column("m", "DECIMAL(10, 2)", DataTypes.DECIMAL(10, 2))
                .column("s", "STRING", DataTypes.STRING())
                .keys("k");
        for (int n = 0; n < 200; n++) {
            s.row(pick(s.rnd, KEYS), pickOrNull(s.rnd, INTS, 3), pickOrNull(s.rnd, BIGINTS, 3),
                    pickOrNull(s.rnd, DOUBLES, 3), pickOrNull(s.rnd, DECIMALS, 3),
                    pickOrNull(s.rnd, STRINGS, 3));
        }
        return s;
    }

    Scenario proctimeLastMultiKey() {
        Scenario s = new Scenario("proctime_last_multi_key",
                "proctime keep-last partitioned by (k, s) with NULLs and Unicode, on RocksDB",
                Time.PROCTIME, true)
                .column("k", "INT", DataTypes.INT())
                .column("s", "STRING", DataTypes.STRING())
                .column("v", "BIGINT", DataTypes.BIGINT())
                .keys("k", "s")
                .backend("rocksdb");
        Object[] ks = {null, 1, 2};
        Object[] ss = {null, "", "日本語", "ǅ"};
        for (int n = 0; n < 150; n++) {
            s.row(pick(s.rnd, ks), pick(s.rnd, ss), s.rnd.nextInt(4) == 0 ? null : (long) (n % 5));
        }
        return s;
    }

    // -------------------------------------------------------- rowtime keep-first

    /** A row of (k, v, ts) with ts as ms after BASE. */
    static void kvt(Scenario s, Object k, Object v, long at) {
        s.row(k, v, at);
    }

    static Scenario kvtScenario(String name, String description, Time time, boolean keepLast,
            DataType key) {
        Scenario s = new Scenario(name, description, time, keepLast)
                .column("k", "STRING", key)
                .column("v", "BIGINT", DataTypes.BIGINT());
        return s.rowtimeColumn().keys("k");
    }

    Scenario rowtimeFirstTraced(String name, String backend) {
        Scenario s = kvtScenario(name,
                "rowtime keep-first on timers, traced: an earlier row replaces the waiting one"
                        + " (its timer deleted), ties keep the first, a row at the watermark is"
                        + " on time, rows below it are dropped, a key emitted once ignores later"
                        + " rows, watermarks with nothing due",
                Time.ROWTIME, false, DataTypes.STRING()).backend(backend);
        kvt(s, "a", 1L, 1_000);
        kvt(s, "a", 2L, 800);      // earlier: replaces
        kvt(s, "a", 3L, 800);      // tie: the first stays
        kvt(s, "b", 4L, 1_500);
        kvt(s, null, 5L, 1_200);
        s.watermark(500);          // nothing due
        kvt(s, "a", 6L, 900);
        kvt(s, "c", 7L, 500);      // at the watermark: on time
        kvt(s, "d", 8L, 499);      // late: dropped
        s.watermark(850);          // a@800 fires, c@500 fires
        kvt(s, "a", 9L, 700);      // late
        kvt(s, "a", 10L, 2_000);   // a was emitted: ignored
        kvt(s, "b", 11L, 1_400);   // replaces b@1500
        kvt(s, "c", 12L, 900);     // c was emitted
        kvt(s, null, 13L, 1_200);  // tie with NULL key's row
        kvt(s, "e", 14L, 850);     // at the watermark
        s.watermark(1_200);        // e@850 and NULL@1200 fire, b@1400 waits
        kvt(s, "b", 15L, 1_300);   // replaces b@1400
        kvt(s, "f", 16L, 5_000);
        kvt(s, "f", 17L, 4_000);
        s.watermark(1_300);        // b@1300 fires
        kvt(s, "b", 18L, 1_350);
        s.watermark(3_000);
        kvt(s, "g", 19L, 3_000);
        kvt(s, "g", 20L, 3_000);
        kvt(s, "h", 21L, 2_999);   // late
        s.watermark(3_001);        // g@3000 fires
        kvt(s, "g", 22L, 3_002);
        kvt(s, "f", 23L, 3_500);   // replaces f@4000
        // f and anything left fire at the end of input.
        return s;
    }

    /**
     * A random rowtime stream over {@code keys}: row n is due at 10 n ms (+ 10 s), arrives up
     * to 150 ms early, now and then far behind (late), at the last watermark exactly, or at
     * its key's last rowtime (a tie); a watermark of the largest rowtime seen minus 200 ms
     * every few rows.
     */
    static void rowtimeBody(Scenario s, Object[] keys, int rows) {
        long max = Long.MIN_VALUE;
        long last = NO_WATERMARK;
        java.util.Map<Object, Long> lastOfKey = new java.util.HashMap<>();
        for (int n = 0; n < rows; n++) {
            Object k = pick(s.rnd, keys);
            int dice = s.rnd.nextInt(20);
            long at;
            if (dice == 0 && last != NO_WATERMARK) {
                at = last - BASE_MS - 1 - s.rnd.nextInt(300);
            } else if (dice == 1 && last != NO_WATERMARK) {
                at = last - BASE_MS;
            } else if (dice < 4 && lastOfKey.containsKey(k)) {
                at = lastOfKey.get(k);
            } else {
                at = 10_000 + 10L * n - s.rnd.nextInt(150);
            }
            lastOfKey.put(k, at);
            s.row(k, pickOrNull(s.rnd, BIGINTS, 4), at);
            max = Math.max(max, at);
            if (s.rnd.nextInt(6) == 0 && BASE_MS + max - 200 > last) {
                last = BASE_MS + max - 200;
                s.watermark(max - 200);
            }
        }
    }

    Scenario rowtimeFirstRandom(String name, String backend) {
        Scenario s = kvtScenario(name,
                "rowtime keep-first on timers over a random stream: out-of-order rows, late rows"
                        + " dropped, ties, rows at the watermark, NULL and Unicode keys",
                Time.ROWTIME, false, DataTypes.STRING()).backend(backend);
        rowtimeBody(s, keys(KEYS, 40), 300);
        return s;
    }

    Scenario rowtimeFirstLtz() {
        Scenario s = kvtScenario("rowtime_first_ltz",
                "rowtime keep-first on a TIMESTAMP_LTZ(3) rowtime: the same rules, the time in"
                        + " epoch milliseconds",
                Time.ROWTIME_LTZ, false, DataTypes.STRING());
        rowtimeBody(s, new Object[] {null, "a", "b", "c", "größer 🦀"}, 120);
        return s;
    }

    Scenario rowtimeFirstMultiKey() {
        Scenario s = new Scenario("rowtime_first_multi_key",
                "rowtime keep-first on timers partitioned by (k, s), NULLs in both, on RocksDB",
                Time.ROWTIME, false)
                .column("k", "INT", DataTypes.INT())
                .column("s", "STRING", DataTypes.STRING())
                .column("d", "DOUBLE", DataTypes.DOUBLE())
                .rowtimeColumn()
                .keys("k", "s")
                .backend("rocksdb");
        Object[] ks = {null, 1, 2};
        Object[] ss = {null, "", "x"};
        long max = 0;
        for (int n = 0; n < 150; n++) {
            long at = 1_000 + 7L * n - s.rnd.nextInt(60);
            s.row(pick(s.rnd, ks), pick(s.rnd, ss), pickOrNull(s.rnd, DOUBLES, 3), at);
            max = Math.max(max, at);
            if (n % 9 == 8) {
                s.watermark(max - 30);
            }
        }
        return s;
    }

    Scenario rowtimeFirstTtl() {
        Scenario s = kvtScenario("rowtime_first_ttl",
                "rowtime keep-first on timers with a state TTL of 1 h on the emitted flag"
                        + " (nothing expires within the run)",
                Time.ROWTIME, false, DataTypes.STRING()).ttl(3_600_000L);
        rowtimeBody(s, new Object[] {null, "a", "b", "c", "d", "e"}, 120);
        return s;
    }

    // --------------------------------------------------------- rowtime keep-last

    Scenario rowtimeLastTraced(String name, String backend, boolean upsert,
            boolean insertSensitive) {
        Scenario s = kvtScenario(name,
                "rowtime keep-last, traced: a later or equal rowtime replaces the kept row (a"
                        + " tie goes to the later row), an earlier one is ignored, rows behind"
                        + " the watermark are not dropped" + (upsert ? ", no -U" : "")
                        + (insertSensitive ? "" : ", insert-and-update-after insensitive"),
                Time.ROWTIME, true,
                upsert ? DataTypes.STRING().notNull() : DataTypes.STRING()).backend(backend);
        if (upsert) {
            s.upsert();
        }
        if (!insertSensitive) {
            s.insertInsensitive();
        }
        Object nullKey = upsert ? "n" : null;
        kvt(s, "a", 1L, 1_000);
        kvt(s, "a", 2L, 1_000);    // tie: replaces
        kvt(s, "a", 3L, 900);      // earlier: ignored
        kvt(s, "b", 4L, 500);
        kvt(s, nullKey, 5L, 700);
        s.watermark(800);
        kvt(s, "b", 6L, 600);      // behind the watermark, later than b's: replaces
        kvt(s, "c", 7L, 100);      // behind the watermark: kept
        kvt(s, "a", 8L, 1_100);
        kvt(s, nullKey, 9L, 700);  // tie
        kvt(s, nullKey, null, 650);
        s.watermark(2_000);
        kvt(s, "c", null, 100);    // tie, NULL value
        kvt(s, "c", null, 100);    // identical row: still replaces
        kvt(s, "a", 10L, 1_099);
        kvt(s, "a", 11L, 5_000);
        for (int n = 0; n < 100; n++) {
            kvt(s, pick(s.rnd, new Object[] {"a", "b", "c", nullKey}),
                    pickOrNull(s.rnd, BIGINTS, 4), 5_000 + s.rnd.nextInt(200));
            if (n % 10 == 9) {
                s.watermark(5_000 + 20L * n);
            }
        }
        return s;
    }

    Scenario rowtimeLastRandom(String name, String backend) {
        Scenario s = kvtScenario(name,
                "rowtime keep-last over a random stream: out-of-order rows, rows behind the"
                        + " watermark, ties, NULL and Unicode keys",
                Time.ROWTIME, true, DataTypes.STRING()).backend(backend);
        rowtimeBody(s, keys(KEYS, 30), 300);
        return s;
    }

    Scenario rowtimeLastLtz() {
        Scenario s = kvtScenario("rowtime_last_ltz",
                "rowtime keep-last on a TIMESTAMP_LTZ(3) rowtime",
                Time.ROWTIME_LTZ, true, DataTypes.STRING());
        rowtimeBody(s, new Object[] {null, "a", "b", "größer 🦀"}, 120);
        return s;
    }

    Scenario rowtimeLastTtl() {
        Scenario s = new Scenario("rowtime_last_ttl",
                "rowtime keep-last with a state TTL of 1 h (nothing expires within the run),"
                        + " DOUBLE and DECIMAL values",
                Time.ROWTIME, true)
                .column("k", "STRING", DataTypes.STRING())
                .column("d", "DOUBLE", DataTypes.DOUBLE())
                .column("m", "DECIMAL(10, 2)", DataTypes.DECIMAL(10, 2))
                .rowtimeColumn()
                .keys("k")
                .ttl(3_600_000L);
        long max = 0;
        for (int n = 0; n < 120; n++) {
            long at = 2_000 + 5L * n - s.rnd.nextInt(40);
            s.row(pick(s.rnd, new Object[] {null, "a", "b"}), pickOrNull(s.rnd, DOUBLES, 3),
                    pickOrNull(s.rnd, DECIMALS, 3), at);
            max = Math.max(max, at);
            if (n % 8 == 7) {
                s.watermark(max - 25);
            }
        }
        return s;
    }

    // ------------------------------------------------------- rowtime mini-batch

    Scenario rowtimeMiniBatch(String name, String backend, boolean keepLast, boolean upsert) {
        Scenario s = kvtScenario(name,
                "rowtime keep-" + (keepLast ? "last" : "first") + ", mini-batches of 5 rows"
                        + " (RowTimeMiniBatchDeduplicateFunction: each bundle's rows applied per"
                        + " key in order, nothing dropped as late; watermarks within the first"
                        + " hour do not pass the assigner)" + (upsert ? ", no -U" : ""),
                Time.ROWTIME, keepLast,
                upsert ? DataTypes.STRING().notNull() : DataTypes.STRING())
                .backend(backend)
                .miniBatch(5);
        if (upsert) {
            s.upsert();
        }
        Object[] keys = upsert ? new Object[] {"a", "b", "c", "größer 🦀", "", "f"}
                : new Object[] {"a", "b", null, "größer 🦀", "", "f"};
        rowtimeBody(s, keys, 200);
        return s;
    }

    Scenario rowtimeMiniBatchHours(String name, boolean keepLast) {
        Scenario s = kvtScenario(name,
                "rowtime keep-" + (keepLast ? "last" : "first") + ", mini-batches of 7 rows over"
                        + " five hours: the assigner passes one watermark per hour crossed, which"
                        + " closes the bundle",
                Time.ROWTIME, keepLast, DataTypes.STRING())
                .miniBatch(7);
        Object[] keys = {null, "a", "b", "c"};
        long max = 0;
        for (int n = 0; n < 200; n++) {
            long at = 90_000L * n - s.rnd.nextInt(200_000);
            at = Math.max(at, 0);
            s.row(pick(s.rnd, keys), (long) n, at);
            max = Math.max(max, at);
            if (n % 4 == 3 && BASE_MS + max - 1 > s.lastWatermark) {
                s.watermark(max - 1);
            }
        }
        return s;
    }
}
