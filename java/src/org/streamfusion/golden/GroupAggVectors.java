package org.streamfusion.golden;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

/**
 * Golden changelogs of streaming GROUP BY, produced by running Flink SQL on the released Flink
 * 2.3.0 jars: for each scenario, an input changelog goes through {@code SELECT keys, aggs FROM src
 * GROUP BY keys} (streaming mode, parallelism 1, the default hashmap state backend, no
 * mini-batch, no state TTL) and the collected output changelog is recorded with its row kinds.
 * Scenarios with a {@code two_phase} size run as a two-phase plan instead (mini-batch on with
 * that size, {@code table.optimizer.agg-phase-strategy} TWO_PHASE, a latency trigger that never
 * fires within the run).
 * The native GroupAggregate is tested against them (crates/streamfusion/tests/
 * group_aggregate_flink.rs).
 *
 * <p>Retracting scenarios enter through {@code StreamTableEnvironment.fromChangelogStream} with
 * explicit row kinds, so the planner picks the retracting aggregate functions (and a hidden
 * COUNT(*) record counter); insert-only scenarios enter through {@code fromDataStream}, an append
 * stream. The program checks the optimized plan for that choice. {@code TableResult.collect()}
 * makes the planner generate UPDATE_BEFORE.
 *
 * <p>Usage: {@code GroupAggVectors <output path>}. Output is JSON Lines (UTF-8, LF):
 *
 * <ul>
 *   <li>line 1: {@code {"flink":"2.3.0","seed":..,"generator":..,"format":..}};
 *   <li>per scenario, a header {@code {"scenario":name,"description":..,"retracts":bool,
 *       ["two_phase":size,]
 *       "input":[{"name":..,"type":..}..],"grouping":[column..],"calls":[{"function":..,"arg":
 *       column or null,"name":..[,"distinct":true][,"separator":..][,"value_arg":column]}..],
 *       "output":[{"name":..,
 *       "type":..}..],"sql":..,"plan":..,"rows_in":n,"rows_out":m}} ({@code function} is the
 *       Rust AggFunction's serde name, a call the Rust AggCall);
 *   <li>then n lines {@code {"in":kind,"row":[..]}} and m lines {@code {"out":kind,"row":[..]}},
 *       kind being +I/-U/+U/-D.
 * </ul>
 *
 * <p>Values: NULL is null; STRING and VARCHAR(n) a JSON string; INT a JSON number; BIGINT a
 * decimal string (i64 does not survive f64 JSON parsers); DOUBLE {@code Double.toString} as a
 * string ("NaN",
 * "Infinity", "-Infinity", "-0.0", "1.0E300"; checked to parse back to the same bits); DECIMAL
 * {@code BigDecimal.toPlainString} with the type's scale. The run is fully determined by
 * {@link #SEED}, so two runs write byte-identical files.
 */
public final class GroupAggVectors {
    /** Published seed (the project's). */
    public static final long SEED = 0x5EED_F11CL;

    static final String GENERATOR = "java/src/org/streamfusion/golden/GroupAggVectors.java";

    /** One aggregate call: function as the Rust AggFunction names it, argument column or -1. */
    static final class Call {
        final String function;
        final int arg;
        final String name;
        /** {@code f(DISTINCT x)}. */
        boolean distinct;
        /** LISTAGG's separator literal, or null for the default. */
        String separator;
        /** JSON_OBJECTAGG's value column (arg is its key), or -1. */
        int valueArg = -1;

        Call(String function, int arg, String name) {
            this.function = function;
            this.arg = arg;
            this.name = name;
        }

        String sql(String[] columns) {
            String a = arg < 0 ? "*" : "`" + columns[arg] + "`";
            String f = function.equals("COUNT_STAR") ? "COUNT" : function;
            if (function.startsWith("JSON_ARRAYAGG_")) {
                // The planner's names: JSON_ARRAYAGG_ABSENT_ON_NULL / _NULL_ON_NULL.
                String onNull = function.substring("JSON_ARRAYAGG_".length()).replace('_', ' ');
                return "JSON_ARRAYAGG(" + a + " " + onNull + ") AS `" + name + "`";
            }
            if (function.startsWith("JSON_OBJECTAGG_")) {
                String onNull = function.substring("JSON_OBJECTAGG_".length()).replace('_', ' ');
                return "JSON_OBJECTAGG(KEY " + a + " VALUE `" + columns[valueArg] + "` " + onNull
                        + ") AS `" + name + "`";
            }
            String sep = separator == null ? "" : ", '" + separator.replace("'", "''") + "'";
            return f + "(" + (distinct ? "DISTINCT " : "") + a + sep + ") AS `" + name + "`";
        }
    }

    static final class Scenario {
        final String name;
        final String description;
        final boolean retracts;
        final String[] columns;
        final String[] types;
        final DataType[] dataTypes;
        final int[] grouping = {0};
        final List<Call> calls = new ArrayList<>();
        final List<Row> input = new ArrayList<>();
        /**
         * The mini-batch size of a two-phase plan (local and global GROUP BY), or 0 for the
         * one-phase plan without mini-batch.
         */
        int twoPhase;

        Scenario(String name, String description, boolean retracts, String[] columns,
                String[] types, DataType[] dataTypes) {
            this.name = name;
            this.description = description;
            this.retracts = retracts;
            this.columns = columns;
            this.types = types;
            this.dataTypes = dataTypes;
        }

        Scenario call(String function, int arg, String name) {
            calls.add(new Call(function, arg, name));
            return this;
        }

        Scenario distinct(String function, int arg, String name) {
            Call c = new Call(function, arg, name);
            c.distinct = true;
            calls.add(c);
            return this;
        }

        /** Plans the query in two phases, with mini-batches of {@code size} rows. */
        Scenario twoPhase(int size) {
            twoPhase = size;
            return this;
        }

        Scenario listagg(int arg, String separator, String name) {
            Call c = new Call("LISTAGG", arg, name);
            c.separator = separator;
            calls.add(c);
            return this;
        }

        Scenario jsonObjectAgg(String onNull, int key, int value, String name) {
            Call c = new Call("JSON_OBJECTAGG_" + onNull, key, name);
            c.valueArg = value;
            calls.add(c);
            return this;
        }

        void row(RowKind kind, Object key, Object value) {
            input.add(Row.ofKind(kind, key, value));
        }

        void row(RowKind kind, Object group, Object key, Object value) {
            input.add(Row.ofKind(kind, group, key, value));
        }

        String sql(String view) {
            StringBuilder s = new StringBuilder("SELECT `").append(columns[0]).append('`');
            for (Call c : calls) {
                s.append(", ").append(c.sql(columns));
            }
            return s.append(" FROM ").append(view).append(" GROUP BY `").append(columns[0])
                    .append('`').toString();
        }
    }

    private final SplittableRandom rnd = new SplittableRandom(SEED);

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: GroupAggVectors <output path>");
            System.exit(2);
        }
        GroupAggVectors g = new GroupAggVectors();
        List<Scenario> scenarios = g.scenarios();
        StringBuilder out = new StringBuilder(1 << 20);
        out.append("{\"flink\":\"2.3.0\",\"seed\":\"0x").append(Long.toHexString(SEED))
                .append("\",\"generator\":\"").append(GENERATOR).append("\",\"format\":");
        Json.string(out, "per scenario: a header line (scenario, retracts, input/output columns,"
                + " grouping, calls, sql, plan, rows_in, rows_out), then rows_in {\"in\":kind,"
                + "\"row\":[..]} lines and rows_out {\"out\":kind,\"row\":[..]} lines; BIGINT and"
                + " DOUBLE (Double.toString) and DECIMAL (plain) values are strings");
        out.append("}\n");

        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        conf.setString("table.exec.mini-batch.enabled", "false");
        conf.setString("table.exec.state.ttl", "0 ms");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        int total = 0;
        for (Scenario s : scenarios) {
            total += run(env, tEnv, s, out);
        }
        Path path = Path.of(args[0]);
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        Files.write(path, out.toString().getBytes(StandardCharsets.UTF_8));
        System.err.printf("wrote %d scenarios (%d output rows) to %s%n", scenarios.size(), total,
                path);
    }

    /** Runs one scenario through Flink SQL and appends its header, input and output. */
    static int run(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Scenario s,
            StringBuilder out) throws Exception {
        DataTypes.Field[] fields = new DataTypes.Field[s.columns.length];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = DataTypes.FIELD(s.columns[i], s.dataTypes[i]);
        }
        @SuppressWarnings("unchecked")
        ExternalTypeInfo<Row> typeInfo =
                (ExternalTypeInfo<Row>) (ExternalTypeInfo<?>) ExternalTypeInfo.of(
                        DataTypes.ROW(fields).bridgedTo(Row.class));
        DataStream<Row> stream = env.fromData(s.input, typeInfo);
        Table table = s.retracts ? tEnv.fromChangelogStream(stream) : tEnv.fromDataStream(stream);
        String view = "src_" + s.name;
        tEnv.createTemporaryView(view, table);
        // The declared input types must reach the aggregate unchanged.
        List<DataType> resolved = table.getResolvedSchema().getColumnDataTypes();
        for (int i = 0; i < s.dataTypes.length; i++) {
            if (!resolved.get(i).getLogicalType().equals(s.dataTypes[i].getLogicalType())) {
                throw new IllegalStateException(s.name + ": column " + i + " resolved as "
                        + resolved.get(i) + ", not " + s.dataTypes[i]);
            }
        }
        String sql = s.sql(view);
        // Two phases: count-triggered bundles only (the latency trigger never fires within a
        // run), so a bundle is exactly `twoPhase` input rows, or partial rows for the global
        // phase, and the final watermark flushes what is left.
        tEnv.getConfig().set("table.exec.mini-batch.enabled", Boolean.toString(s.twoPhase > 0));
        tEnv.getConfig().set("table.exec.mini-batch.allow-latency", "1 h");
        tEnv.getConfig().set("table.exec.mini-batch.size",
                Integer.toString(Math.max(s.twoPhase, 1)));
        tEnv.getConfig().set("table.optimizer.agg-phase-strategy",
                s.twoPhase > 0 ? "TWO_PHASE" : "AUTO");
        String plan = optimizedPlan(tEnv.explainSql(sql));
        if (plan.contains("_RETRACT(") != s.retracts) {
            throw new IllegalStateException(
                    s.name + ": retracting functions " + (s.retracts ? "expected" : "unexpected")
                            + " in " + plan);
        }
        if ((s.twoPhase > 0) != (plan.contains("LocalGroupAggregate(")
                && plan.contains("GlobalGroupAggregate("))) {
            throw new IllegalStateException(s.name + ": two phases "
                    + (s.twoPhase > 0 ? "expected" : "unexpected") + " in " + plan);
        }
        Table result = tEnv.sqlQuery(sql);
        List<DataType> outTypes = result.getResolvedSchema().getColumnDataTypes();
        List<String> outNames = result.getResolvedSchema().getColumnNames();

        List<Row> output = new ArrayList<>();
        try (CloseableIterator<Row> it = result.execute().collect()) {
            while (it.hasNext()) {
                output.add(it.next());
            }
        }

        out.append("{\"scenario\":");
        Json.string(out, s.name);
        out.append(",\"description\":");
        Json.string(out, s.description);
        out.append(",\"retracts\":").append(s.retracts);
        if (s.twoPhase > 0) {
            out.append(",\"two_phase\":").append(s.twoPhase);
        }
        out.append(",\"input\":[");
        for (int i = 0; i < s.columns.length; i++) {
            column(out, i, s.columns[i], s.types[i]);
        }
        out.append("],\"grouping\":").append(Arrays.toString(s.grouping).replace(" ", ""))
                .append(",\"calls\":[");
        for (int i = 0; i < s.calls.size(); i++) {
            Call c = s.calls.get(i);
            out.append(i == 0 ? "" : ",").append("{\"function\":");
            Json.string(out, c.function);
            out.append(",\"arg\":").append(c.arg < 0 ? "null" : Integer.toString(c.arg))
                    .append(",\"name\":");
            Json.string(out, c.name);
            if (c.distinct) {
                out.append(",\"distinct\":true");
            }
            if (c.separator != null) {
                out.append(",\"separator\":");
                Json.string(out, c.separator);
            }
            if (c.valueArg >= 0) {
                out.append(",\"value_arg\":").append(c.valueArg);
            }
            out.append('}');
        }
        out.append("],\"output\":[");
        String[] outTypeNames = new String[outTypes.size()];
        for (int i = 0; i < outTypes.size(); i++) {
            outTypeNames[i] = typeName(outTypes.get(i));
            column(out, i, outNames.get(i), outTypeNames[i]);
        }
        out.append("],\"sql\":");
        Json.string(out, sql);
        out.append(",\"plan\":");
        Json.string(out, plan);
        out.append(",\"rows_in\":").append(s.input.size()).append(",\"rows_out\":")
                .append(output.size()).append("}\n");
        for (Row r : s.input) {
            row(out, "in", r, s.types);
        }
        for (Row r : output) {
            row(out, "out", r, outTypeNames);
        }
        System.err.printf("%s: %d rows in, %d rows out; %s%n", s.name, s.input.size(),
                output.size(), plan);
        return output.size();
    }

    /**
     * The optimized execution plan, its nodes separated by " | " from the sink down (the
     * GroupAggregate node names the functions the planner picked).
     */
    static String optimizedPlan(String explain) {
        int at = explain.indexOf("== Optimized Execution Plan ==");
        if (at < 0 || !explain.contains("GroupAggregate(")) {
            throw new IllegalStateException("no GroupAggregate in the plan:\n" + explain);
        }
        List<String> nodes = new ArrayList<>();
        for (String line : explain.substring(at).split("\n")) {
            String node = line.replaceFirst("^[\\s+:-]*", "").trim();
            if (node.isEmpty() || node.startsWith("==")) {
                continue;
            }
            nodes.add(node);
        }
        return String.join(" | ", nodes);
    }

    /** The Rust-parsable name of a column type (nullability dropped). */
    static String typeName(DataType t) {
        String s = t.getLogicalType().copy(true).asSummaryString();
        return s.equals("VARCHAR(2147483647)") ? "STRING" : s;
    }

    static void column(StringBuilder out, int i, String name, String type) {
        out.append(i == 0 ? "" : ",").append("{\"name\":");
        Json.string(out, name);
        out.append(",\"type\":");
        Json.string(out, type);
        out.append('}');
    }

    static void row(StringBuilder out, String tag, Row r, String[] types) {
        out.append("{\"").append(tag).append("\":\"").append(r.getKind().shortString())
                .append("\",\"row\":[");
        for (int i = 0; i < r.getArity(); i++) {
            if (i > 0) {
                out.append(',');
            }
            value(out, types[i], r.getField(i));
        }
        out.append("]}\n");
    }

    static void value(StringBuilder out, String type, Object v) {
        if (v == null) {
            out.append("null");
        } else if (type.equals("STRING") || type.startsWith("VARCHAR(")) {
            Json.string(out, (String) v);
        } else if (type.equals("INT")) {
            out.append((int) (Integer) v);
        } else if (type.equals("BOOLEAN")) {
            out.append((boolean) (Boolean) v);
        } else if (type.equals("BIGINT")) {
            Json.string(out, Long.toString((Long) v));
        } else if (type.equals("DOUBLE")) {
            double d = (Double) v;
            String s = Double.toString(d);
            double back = Double.parseDouble(s);
            if (Double.doubleToLongBits(back) != Double.doubleToLongBits(d)) {
                throw new IllegalStateException(s + " does not parse back to " + d);
            }
            Json.string(out, s);
        } else if (type.startsWith("DECIMAL(")) {
            int scale = Integer.parseInt(type.substring(type.indexOf(',') + 1,
                    type.length() - 1).trim());
            BigDecimal d = (BigDecimal) v;
            if (d.scale() != scale) {
                throw new IllegalStateException(d + " does not have the scale of " + type);
            }
            Json.string(out, d.toPlainString());
        } else {
            throw new IllegalArgumentException(type);
        }
    }

    // ---------------------------------------------------------------- scenarios

    static final String[] KV = {"k", "v"};
    static final String[] KX = {"k", "x"};

    static final String[] KEYS = {
        null, "", "a", "1234567", "12345678", "größer 🦀", "nul\0byte", "\u00e9", "\ud83e\udd80",
        "wide-" + "ü".repeat(40)
    };

    List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        list.add(bigintRetract());
        list.add(intRetract());
        list.add(intInsertOnly());
        list.add(doubleRetract());
        list.add(doubleInsertOnly());
        list.add(decimalInsertOnly());
        list.add(unchangedAndReinserted());
        list.add(firstLastInsertOnly());
        // Issue 5: more aggregate functions (appended, so the scenarios above stay identical).
        list.add(singleValueRetract());
        list.add(singleValueInsertOnly());
        list.add(listAggRetract());
        list.add(listAggInsertOnly());
        list.add(distinctBigintRetract());
        list.add(distinctDoubleRetract());
        list.add(distinctDoubleInsertOnly());
        list.add(firstLastRetract());
        list.add(distinctCountDoubleRetract());
        list.add(decimalAvgInsertOnly());
        list.add(decimalAvgRetract());
        list.add(jsonArrayAggRetract());
        list.add(jsonArrayAggInsertOnly());
        // JSON_OBJECTAGG (appended likewise).
        list.add(jsonObjectAggRetract());
        list.add(jsonObjectAggAbsentRetract());
        list.add(jsonObjectAggInsertOnly());
        // Two-phase plans (appended likewise).
        list.add(twoPhaseTraced());
        list.add(twoPhaseOneKeyRandom());
        list.add(twoPhaseRowBundles());
        return list;
    }

    /** The calls whose two-phase partials carry maps: retracting MIN/MAX and DISTINCT. */
    static Scenario mapCalls(Scenario s) {
        return s.call("MAX", 1, "max_v")
                .call("MIN", 1, "min_v")
                .distinct("COUNT", 1, "cnt_d")
                .distinct("SUM", 1, "sum_d");
    }

    /**
     * Two phases, one key, bundles of 3 rows (so a global bundle is 3 local ones): traced
     * through MaxWithRetractAggFunction.merge, the second global bundle retracts the stored
     * maximum 6 while the stored map holds 9 with count -1 (a retraction of a value never
     * accumulated), and the new maximum is 9.
     */
    Scenario twoPhaseTraced() {
        Scenario s = mapCalls(new Scenario("two_phase_traced",
                "two phases, one key, mini-batches of 3 rows: merges of value maps with"
                        + " negative counts; the maximum after a retraction may be a value with a"
                        + " negative count, as MaxWithRetractAggFunction.updateMax iterates every"
                        + " key",
                true, KV, new String[] {"STRING", "BIGINT"},
                new DataType[] {DataTypes.STRING(), DataTypes.BIGINT()}))
                .twoPhase(3);
        rows(s, new Object[][] {
            {RowKind.INSERT, "k", 5L}, {RowKind.INSERT, "k", 3L}, {RowKind.INSERT, "k", 1L},
            {RowKind.DELETE, "k", 9L}, {RowKind.INSERT, "k", 7L}, {RowKind.DELETE, "k", 7L},
            {RowKind.INSERT, "k", 2L}, {RowKind.INSERT, "k", 4L}, {RowKind.INSERT, "k", 6L},
            {RowKind.DELETE, "k", 6L}, {RowKind.DELETE, "k", 5L}, {RowKind.DELETE, "k", 4L},
            {RowKind.INSERT, "k", 8L}, {RowKind.DELETE, "k", 8L}, {RowKind.INSERT, "k", 0L},
            {RowKind.INSERT, "k", 3L}, {RowKind.DELETE, "k", 3L}, {RowKind.INSERT, "k", 3L},
            {RowKind.INSERT, "k", 9L}, {RowKind.DELETE, "k", 0L}, {RowKind.INSERT, "k", null},
        });
        return s;
    }

    /**
     * Two phases, one key, bundles of 5 rows: a random changelog whose retractions take back
     * any value, held or not, over 40 values, so the stored maps outgrow an accumulator.
     */
    Scenario twoPhaseOneKeyRandom() {
        Scenario s = mapCalls(new Scenario("two_phase_one_key_random",
                "two phases, one key, mini-batches of 5 rows: insertions and retractions of"
                        + " random values, held or not, so counts go negative and maps grow wide",
                true, KV, new String[] {"STRING", "BIGINT"},
                new DataType[] {DataTypes.STRING(), DataTypes.BIGINT()}))
                .call("COUNT_STAR", -1, "cnt")
                .twoPhase(5);
        for (int n = 0; n < 400; n++) {
            Object v = rnd.nextInt(12) == 0 ? null : (Object) (long) (rnd.nextInt(40) - 20);
            RowKind kind;
            switch (rnd.nextInt(10)) {
                case 0: case 1: case 2: case 3:
                    kind = RowKind.INSERT;
                    break;
                case 4: case 5:
                    kind = RowKind.UPDATE_AFTER;
                    break;
                case 6: case 7:
                    kind = RowKind.UPDATE_BEFORE;
                    break;
                default:
                    kind = RowKind.DELETE;
            }
            s.row(kind, "k", v);
        }
        return s;
    }

    /**
     * Two phases, bundles of one row, many keys: every partial is merged into stored state at
     * once, including ghost retractions that create a group with a negative count.
     */
    Scenario twoPhaseRowBundles() {
        Scenario s = mapCalls(new Scenario("two_phase_row_bundles",
                "two phases, mini-batches of one row: a consistent changelog over NULL, empty,"
                        + " Unicode and NUL keys with ghost retractions, merged row by row",
                true, KV, new String[] {"STRING", "BIGINT"},
                new DataType[] {DataTypes.STRING(), DataTypes.BIGINT()}))
                .twoPhase(1);
        changelog(s, 300, KEYS, () -> rnd.nextInt(7) == 0 ? null : (Object) (long) (rnd.nextInt(30) - 15),
                true);
        return s;
    }

    /**
     * A consistent changelog: insertions (+I, or +U) of random values under random keys,
     * retractions (-U or -D) of live rows only, and now and then a retraction of a key that
     * never had an insertion ("ghost"). With {@code drain}, every live row is retracted at the
     * end, so every group is deleted.
     */
    void changelog(Scenario s, int rows, Object[] keys, Supplier<Object> value, boolean drain) {
        List<Object[]> live = new ArrayList<>();
        for (int n = 0; n < rows; n++) {
            int dice = rnd.nextInt(10);
            if (dice < 5 || (dice < 9 && live.isEmpty())) {
                Object k = keys[rnd.nextInt(keys.length)];
                Object v = value.get();
                live.add(new Object[] {k, v});
                s.row(rnd.nextInt(4) == 0 ? RowKind.UPDATE_AFTER : RowKind.INSERT, k, v);
            } else if (dice < 9) {
                Object[] r = live.remove(rnd.nextInt(live.size()));
                s.row(rnd.nextBoolean() ? RowKind.UPDATE_BEFORE : RowKind.DELETE, r[0], r[1]);
            } else {
                s.row(rnd.nextBoolean() ? RowKind.UPDATE_BEFORE : RowKind.DELETE,
                        "ghost-" + rnd.nextInt(5), value.get());
            }
        }
        while (drain && !live.isEmpty()) {
            Object[] r = live.remove(rnd.nextInt(live.size()));
            s.row(rnd.nextBoolean() ? RowKind.UPDATE_BEFORE : RowKind.DELETE, r[0], r[1]);
        }
    }

    /** a. Every BIGINT call over a retracting changelog; SUM and AVG's sum wrap. */
    Scenario bigintRetract() {
        Scenario s = new Scenario("bigint_retract",
                "GROUP BY a nullable STRING over a retracting changelog of nullable BIGINT: NULL,"
                        + " empty, Unicode and NUL keys, ghost retractions, values near"
                        + " Long.MIN/MAX_VALUE so SUM wraps",
                true, KV, new String[] {"STRING", "BIGINT"},
                new DataType[] {DataTypes.STRING(), DataTypes.BIGINT()})
                .call("COUNT_STAR", -1, "cnt")
                .call("COUNT", 1, "cnt_v")
                .call("SUM", 1, "sum_v")
                .call("MIN", 1, "min_v")
                .call("MAX", 1, "max_v")
                .call("AVG", 1, "avg_v");
        changelog(s, 400, KEYS, () -> {
            switch (rnd.nextInt(8)) {
                case 0:
                    return null;
                case 1:
                    return Long.MAX_VALUE - rnd.nextInt(3);
                case 2:
                    return Long.MIN_VALUE + rnd.nextInt(3);
                default:
                    return (long) (rnd.nextInt(41) - 20);
            }
        }, true);
        return s;
    }

    Supplier<Object> ints() {
        return () -> {
            switch (rnd.nextInt(6)) {
                case 0:
                    return null;
                case 1:
                    return Integer.MAX_VALUE - rnd.nextInt(3);
                case 2:
                    return Integer.MIN_VALUE + rnd.nextInt(3);
                default:
                    return rnd.nextInt(21) - 10;
            }
        };
    }

    /** b. SUM(INT) is INT and wraps; AVG(INT) sums in BIGINT and truncates. */
    Scenario intRetract() {
        Scenario s = new Scenario("int_retract",
                "SUM and AVG of a nullable INT over a retracting changelog: SUM(INT) is INT and"
                        + " wraps, AVG sums in BIGINT and truncates toward zero",
                true, KX, new String[] {"STRING", "INT"},
                new DataType[] {DataTypes.STRING(), DataTypes.INT()})
                .call("SUM", 1, "sum_x")
                .call("AVG", 1, "avg_x");
        // Overflow first, explicitly: MAX + MAX wraps to -2, retracting gives MAX back.
        s.row(RowKind.INSERT, "big", Integer.MAX_VALUE);
        s.row(RowKind.INSERT, "big", Integer.MAX_VALUE);
        s.row(RowKind.INSERT, "big", 3);
        s.row(RowKind.DELETE, "big", Integer.MAX_VALUE);
        s.row(RowKind.INSERT, "neg", Integer.MIN_VALUE);
        s.row(RowKind.INSERT, "neg", -1);
        s.row(RowKind.INSERT, "neg", -2);
        s.row(RowKind.UPDATE_BEFORE, "neg", -1);
        changelog(s, 200, new Object[] {"x", "y", null, "big"}, ints(), false);
        return s;
    }

    /** b'. The same calls without retraction (SumAggFunction, AvgAggFunction). */
    Scenario intInsertOnly() {
        Scenario s = new Scenario("int_insert_only",
                "SUM and AVG of a nullable INT over an insert-only stream, with overflow",
                false, KX, new String[] {"STRING", "INT"},
                new DataType[] {DataTypes.STRING(), DataTypes.INT()})
                .call("SUM", 1, "sum_x")
                .call("AVG", 1, "avg_x");
        s.row(RowKind.INSERT, "big", Integer.MAX_VALUE);
        s.row(RowKind.INSERT, "big", 1);
        s.row(RowKind.INSERT, "nulls", null);
        s.row(RowKind.INSERT, "nulls", null);
        s.row(RowKind.INSERT, "nulls", 4);
        Supplier<Object> v = ints();
        Object[] keys = {"x", "y", null, "big"};
        for (int i = 0; i < 100; i++) {
            s.row(RowKind.INSERT, keys[rnd.nextInt(keys.length)], v.get());
        }
        return s;
    }

    static final Double[] DOUBLES = {
        Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.5, -2.25,
        1e300, -1e300, 0.1, 0.2, 3.0, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, null
    };

    Supplier<Object> doubles() {
        return () -> DOUBLES[rnd.nextInt(DOUBLES.length)];
    }

    /** c. Retracting MIN/MAX order boxed Doubles by compareTo; SUM follows IEEE arithmetic. */
    Scenario doubleRetract() {
        Scenario s = new Scenario("double_retract",
                "MIN, MAX and SUM of a nullable DOUBLE over a retracting changelog with NaN,"
                        + " -0.0, 0.0 and infinities (MinWithRetract/MaxWithRetract use"
                        + " Double.compareTo; results compared with primitive ==)",
                true, KX, new String[] {"STRING", "DOUBLE"},
                new DataType[] {DataTypes.STRING(), DataTypes.DOUBLE()})
                .call("MIN", 1, "min_x")
                .call("MAX", 1, "max_x")
                .call("SUM", 1, "sum_x");
        // -0.0 then 0.0: MAX becomes 0.0, SUM 0.0, but the result is == the previous one.
        s.row(RowKind.INSERT, "zeros", -0.0);
        s.row(RowKind.INSERT, "zeros", 0.0);
        s.row(RowKind.DELETE, "zeros", -0.0);
        s.row(RowKind.INSERT, "zeros", -0.0);
        s.row(RowKind.UPDATE_BEFORE, "zeros", 0.0);
        // NaN is above +Infinity under compareTo; NaN results are never equal.
        s.row(RowKind.INSERT, "nan", 1.0);
        s.row(RowKind.INSERT, "nan", Double.NaN);
        s.row(RowKind.INSERT, "nan", null);
        s.row(RowKind.INSERT, "nan", Double.POSITIVE_INFINITY);
        s.row(RowKind.DELETE, "nan", Double.NaN);
        s.row(RowKind.DELETE, "nan", null);
        s.row(RowKind.DELETE, "nan", Double.POSITIVE_INFINITY);
        // Infinity - Infinity: SUM becomes NaN and stays NaN.
        s.row(RowKind.INSERT, "inf", Double.POSITIVE_INFINITY);
        s.row(RowKind.INSERT, "inf", Double.NEGATIVE_INFINITY);
        s.row(RowKind.DELETE, "inf", Double.NEGATIVE_INFINITY);
        s.row(RowKind.INSERT, "inf", 2.0);
        s.row(RowKind.DELETE, "inf", Double.POSITIVE_INFINITY);
        s.row(RowKind.DELETE, "inf", 2.0);
        // Cancellation leaves a residue in the (sum, count) accumulator.
        s.row(RowKind.INSERT, "residue", 1e300);
        s.row(RowKind.INSERT, "residue", 1.0);
        s.row(RowKind.DELETE, "residue", 1e300);
        s.row(RowKind.INSERT, "residue", null);
        s.row(RowKind.DELETE, "residue", 1.0);
        s.row(RowKind.INSERT, "residue", 0.1);
        changelog(s, 300, new Object[] {"p", "q", null, "zeros"}, doubles(), true);
        return s;
    }

    /** d. Non-retracting MIN/MAX compare with primitive < and >: NaN never replaces. */
    Scenario doubleInsertOnly() {
        Scenario s = new Scenario("double_insert_only",
                "MIN, MAX and SUM of a nullable DOUBLE over an insert-only stream, NaN first and"
                        + " later (MinAggFunction/MaxAggFunction use primitive < and >)",
                false, KX, new String[] {"STRING", "DOUBLE"},
                new DataType[] {DataTypes.STRING(), DataTypes.DOUBLE()})
                .call("MIN", 1, "min_x")
                .call("MAX", 1, "max_x")
                .call("SUM", 1, "sum_x");
        Object[][] fixed = {
            {"nan-first", Double.NaN}, {"nan-first", 1.0}, {"nan-first", -1.0},
            {"nan-later", 1.0}, {"nan-later", Double.NaN}, {"nan-later", 3.0},
            {"nan-later", -5.0}, {"nan-later", null},
            {"zeros", 0.0}, {"zeros", -0.0}, {"zeros", 0.0}, {"zeros", null},
            {"span", -1.0}, {"span", 1.0}, {"span", 0.0}, {"span", null}, {"span", -0.0},
            {"inf", Double.POSITIVE_INFINITY}, {"inf", Double.NEGATIVE_INFINITY},
            {"inf", Double.NaN}, {"inf", 1.0},
            {"null-first", null}, {"null-first", null}, {"null-first", 2.5},
            {null, -0.0}, {null, 0.0}, {null, Double.NaN},
        };
        for (Object[] r : fixed) {
            s.row(RowKind.INSERT, r[0], r[1]);
        }
        Supplier<Object> v = doubles();
        Object[] keys = {"p", "q", null};
        for (int i = 0; i < 120; i++) {
            s.row(RowKind.INSERT, keys[rnd.nextInt(keys.length)], v.get());
        }
        return s;
    }

    /** g. FIRST_VALUE/LAST_VALUE keep the first/last non-NULL value (FirstValueAggFunction). */
    Scenario firstLastInsertOnly() {
        Scenario s = new Scenario("first_last_insert_only",
                "FIRST_VALUE and LAST_VALUE of a nullable DOUBLE over an insert-only stream:"
                        + " NULLs skipped, equal results (also -0.0 after 0.0) not re-emitted",
                false, KX, new String[] {"STRING", "DOUBLE"},
                new DataType[] {DataTypes.STRING(), DataTypes.DOUBLE()})
                .call("FIRST_VALUE", 1, "first_x")
                .call("LAST_VALUE", 1, "last_x");
        Object[][] fixed = {
            {"null-first", null}, {"null-first", null}, {"null-first", 2.5},
            {"null-first", null}, {"null-first", 3.5},
            {"zeros", 0.0}, {"zeros", -0.0}, {"zeros", 0.0},
            {"nan", Double.NaN}, {"nan", Double.NaN}, {"nan", 1.0},
            {null, 1.0}, {null, null}, {null, 2.0},
        };
        for (Object[] r : fixed) {
            s.row(RowKind.INSERT, r[0], r[1]);
        }
        Supplier<Object> v = doubles();
        Object[] keys = {"p", "q", null};
        for (int i = 0; i < 80; i++) {
            s.row(RowKind.INSERT, keys[rnd.nextInt(keys.length)], v.get());
        }
        return s;
    }

    /** e. SUM(DECIMAL(38, 2)) is DECIMAL(38, 2) and becomes NULL past 38 digits. */
    Scenario decimalInsertOnly() {
        Scenario s = new Scenario("decimal_insert_only",
                "SUM, MIN and MAX of a nullable DECIMAL(38, 2) over an insert-only stream; the"
                        + " sum overflows past 38 digits (NULL, then restarts from the next value)",
                false, KX, new String[] {"STRING", "DECIMAL(38, 2)"},
                new DataType[] {DataTypes.STRING(), DataTypes.DECIMAL(38, 2)})
                .call("SUM", 1, "sum_x")
                .call("MIN", 1, "min_x")
                .call("MAX", 1, "max_x");
        BigDecimal max = new BigDecimal("999999999999999999999999999999999999.99");
        BigDecimal half = new BigDecimal("500000000000000000000000000000000000.00");
        Object[][] fixed = {
            {"max", max}, {"max", new BigDecimal("0.01")}, {"max", new BigDecimal("5.00")},
            {"max", max.negate()},
            {"neg", max.negate()}, {"neg", new BigDecimal("-0.01")}, {"neg", null},
            {"neg", new BigDecimal("1.23")},
            {"halves", half}, {"halves", half}, {"halves", new BigDecimal("-0.01")},
            {"halves", half.negate()}, {"halves", null},
            {"small", new BigDecimal("0.00")}, {"small", new BigDecimal("-0.00")},
            {"small", new BigDecimal("12.34")}, {"small", new BigDecimal("-12.34")},
        };
        for (Object[] r : fixed) {
            s.row(RowKind.INSERT, r[0], r[1]);
        }
        Object[] keys = {"p", "q", null};
        for (int i = 0; i < 120; i++) {
            BigDecimal v;
            switch (rnd.nextInt(5)) {
                case 0:
                    v = null;
                    break;
                case 1:
                    v = half.add(BigDecimal.valueOf(rnd.nextLong(1_000_000), 2));
                    break;
                case 2:
                    v = half.negate().subtract(BigDecimal.valueOf(rnd.nextLong(1_000_000), 2));
                    break;
                default:
                    v = BigDecimal.valueOf(rnd.nextLong(2_000_001) - 1_000_000, 2);
                    break;
            }
            s.row(RowKind.INSERT, keys[rnd.nextInt(keys.length)], v);
        }
        return s;
    }

    /**
     * f. Updates that leave the visible result unchanged emit nothing (the hidden record
     * counter is not compared); a group whose count returns to zero is deleted and starts over.
     */
    Scenario unchangedAndReinserted() {
        Scenario s = new Scenario("unchanged_and_reinserted",
                "MIN, MAX and SUM of a nullable BIGINT, retracting: updates that leave the result"
                        + " unchanged emit nothing; groups deleted at count zero and inserted"
                        + " again; retractions of deleted and never-inserted keys are ignored",
                true, KV, new String[] {"STRING", "BIGINT"},
                new DataType[] {DataTypes.STRING(), DataTypes.BIGINT()})
                .call("MIN", 1, "min_v")
                .call("MAX", 1, "max_v")
                .call("SUM", 1, "sum_v");
        Object[][] fixed = {
            {RowKind.INSERT, "a", 5L},
            {RowKind.INSERT, "a", 0L}, // SUM unchanged, MIN changes
            {RowKind.INSERT, "a", 0L}, // unchanged: no output
            {RowKind.INSERT, "a", null}, // unchanged
            {RowKind.DELETE, "a", null}, // unchanged
            {RowKind.UPDATE_BEFORE, "a", 0L}, // unchanged (one 0 left)
            {RowKind.UPDATE_AFTER, "a", 3L},
            {RowKind.UPDATE_BEFORE, "a", 3L},
            {RowKind.UPDATE_AFTER, "a", 3L},
            {RowKind.DELETE, "b", 1L}, // never inserted: ignored
            {RowKind.INSERT, "b", null}, // all-NULL group
            {RowKind.INSERT, "b", null},
            {RowKind.DELETE, "b", null},
            {RowKind.DELETE, "b", null}, // count zero: -D
            {RowKind.DELETE, "b", null}, // deleted: ignored
            {RowKind.DELETE, "a", 5L},
            {RowKind.DELETE, "a", 0L},
            {RowKind.DELETE, "a", 3L}, // count zero: -D
            {RowKind.UPDATE_BEFORE, "a", 3L}, // ignored
            {RowKind.INSERT, "a", 7L}, // +I again
            {RowKind.INSERT, "a", -7L},
            {RowKind.INSERT, "a", 0L}, // unchanged
            {RowKind.UPDATE_BEFORE, "a", 7L},
            {RowKind.UPDATE_AFTER, "a", 7L}, // back to the same result
            {RowKind.DELETE, "a", -7L},
            {RowKind.DELETE, "a", 7L},
            {RowKind.DELETE, "a", 0L}, // -D
            {RowKind.INSERT, "a", 1L}, // +I again
            {RowKind.INSERT, null, null},
            {RowKind.DELETE, null, null},
            {RowKind.INSERT, null, Long.MAX_VALUE},
            {RowKind.INSERT, null, 1L}, // SUM wraps to MIN_VALUE
            {RowKind.DELETE, null, 1L},
            {RowKind.DELETE, null, Long.MAX_VALUE},
        };
        for (Object[] r : fixed) {
            s.row((RowKind) r[0], r[1], r[2]);
        }
        // Many small values on few keys: frequent unchanged results and deletions.
        changelog(s, 200, new Object[] {"a", "c", null}, () -> {
            int d = rnd.nextInt(6);
            return d == 0 ? null : (Object) (long) (d - 3);
        }, true);
        return s;
    }

    static void rows(Scenario s, Object[][] fixed) {
        for (Object[] r : fixed) {
            s.row((RowKind) r[0], r[1], r[2]);
        }
    }

    /**
     * h. SINGLE_VALUE over a retracting changelog with at most one live row per key
     * (SingleValueAggFunction: a second value throws; a retraction sets the value to NULL).
     */
    Scenario singleValueRetract() {
        Scenario s = new Scenario("single_value_retract",
                "SINGLE_VALUE of a nullable BIGINT over a retracting changelog with at most one"
                        + " live row per key: NULL values, mismatched and ghost retractions,"
                        + " groups deleted and inserted again",
                true, KV, new String[] {"STRING", "BIGINT"},
                new DataType[] {DataTypes.STRING(), DataTypes.BIGINT()})
                .call("SINGLE_VALUE", 1, "single_v");
        rows(s, new Object[][] {
            {RowKind.INSERT, "a", 1L},
            {RowKind.UPDATE_BEFORE, "a", 1L}, // count zero: -D
            {RowKind.UPDATE_AFTER, "a", 2L}, // +I again
            {RowKind.DELETE, "a", 2L},
            {RowKind.INSERT, "a", null},
            {RowKind.DELETE, "a", null},
            {RowKind.DELETE, "b", 5L}, // never inserted: ignored
            {RowKind.INSERT, "b", 5L},
            {RowKind.DELETE, "b", 7L}, // another value retracted: still -D of 5
            {RowKind.INSERT, null, Long.MAX_VALUE},
            {RowKind.UPDATE_BEFORE, null, Long.MAX_VALUE},
            {RowKind.UPDATE_AFTER, null, Long.MIN_VALUE},
        });
        Object[] keys = {"p", "q", "r", null, ""};
        List<Object> live = new ArrayList<>();
        live.add(null); // from the fixed rows above
        for (int n = 0; n < 200; n++) {
            Object k = keys[rnd.nextInt(keys.length)];
            if (live.contains(k)) {
                live.remove(k);
                s.row(rnd.nextBoolean() ? RowKind.UPDATE_BEFORE : RowKind.DELETE, k, null);
            } else if (rnd.nextInt(8) == 0) {
                s.row(RowKind.DELETE, k, (long) rnd.nextInt(3)); // ghost
            } else {
                live.add(k);
                Object v = rnd.nextInt(5) == 0 ? null : (Object) (long) (rnd.nextInt(7) - 3);
                s.row(rnd.nextInt(3) == 0 ? RowKind.UPDATE_AFTER : RowKind.INSERT, k, v);
            }
        }
        return s;
    }

    /** h'. SINGLE_VALUE over an insert-only stream with one row per key. */
    Scenario singleValueInsertOnly() {
        Scenario s = new Scenario("single_value_insert_only",
                "SINGLE_VALUE of a nullable DOUBLE over an insert-only stream, one row per key",
                false, KX, new String[] {"STRING", "DOUBLE"},
                new DataType[] {DataTypes.STRING(), DataTypes.DOUBLE()})
                .call("SINGLE_VALUE", 1, "single_x");
        for (int i = 0; i < DOUBLES.length; i++) {
            s.row(RowKind.INSERT, i == 0 ? null : "k" + i, DOUBLES[i]);
        }
        return s;
    }

    static final String[] STRINGS = {null, "", "a", "b", "a", "größer 🦀", "nul\0byte", ",", "|"};

    /**
     * i. LISTAGG with the default and a literal separator over a retracting changelog
     * (ListAggWithRetractAggFunction / ListAggWsWithRetractAggFunction): a retraction removes the
     * first equal element; one not in the list is remembered in a retract list that never
     * affects the result; an empty list is NULL.
     */
    Scenario listAggRetract() {
        Scenario s = new Scenario("listagg_retract",
                "LISTAGG(v) and LISTAGG(v, ' | ') of a nullable STRING over a retracting"
                        + " changelog: duplicates (a retraction removes the first equal element),"
                        + " empty strings, NULLs, retractions of absent values, all-NULL groups",
                true, KV, new String[] {"STRING", "STRING"},
                new DataType[] {DataTypes.STRING(), DataTypes.STRING()})
                .listagg(1, null, "list_v")
                .listagg(1, " | ", "list_pipe");
        rows(s, new Object[][] {
            {RowKind.INSERT, "a", "x"},
            {RowKind.INSERT, "a", "y"},
            {RowKind.INSERT, "a", "x"},
            {RowKind.DELETE, "a", "x"}, // y,x
            {RowKind.INSERT, "a", ""},
            {RowKind.INSERT, "a", null}, // unchanged
            {RowKind.UPDATE_BEFORE, "a", "z"}, // absent: retract list, unchanged
            {RowKind.INSERT, "a", "z"}, // appended all the same
            {RowKind.DELETE, "a", "y"},
            {RowKind.DELETE, "a", "x"},
            {RowKind.DELETE, "a", ""},
            {RowKind.DELETE, "a", "z"}, // only the NULL row left: NULL
            {RowKind.INSERT, "a", ""}, // a lone empty string
            {RowKind.DELETE, "a", null},
            {RowKind.DELETE, "a", ""}, // -D
            {RowKind.INSERT, "b", null},
            {RowKind.INSERT, "b", null},
            {RowKind.DELETE, "b", null},
            {RowKind.DELETE, "b", null},
        });
        changelog(s, 300, new Object[] {"p", "q", null, ""},
                () -> STRINGS[rnd.nextInt(STRINGS.length)], true);
        return s;
    }

    /** i'. LISTAGG without retraction (ListAggFunction). */
    Scenario listAggInsertOnly() {
        Scenario s = new Scenario("listagg_insert_only",
                "LISTAGG(v) and LISTAGG(v, '') of a nullable STRING over an insert-only stream:"
                        + " NULLs skipped, empty strings kept",
                false, KV, new String[] {"STRING", "STRING"},
                new DataType[] {DataTypes.STRING(), DataTypes.STRING()})
                .listagg(1, null, "list_v")
                .listagg(1, "", "list_empty");
        rows(s, new Object[][] {
            {RowKind.INSERT, "n", null},
            {RowKind.INSERT, "n", ""},
            {RowKind.INSERT, "n", null},
            {RowKind.INSERT, "n", ""},
            {RowKind.INSERT, "n", "a"},
        });
        Object[] keys = {"p", "q", null};
        for (int i = 0; i < 80; i++) {
            s.row(RowKind.INSERT, keys[rnd.nextInt(keys.length)],
                    STRINGS[rnd.nextInt(STRINGS.length)]);
        }
        return s;
    }

    /**
     * j. COUNT/SUM/AVG(DISTINCT) over a retracting changelog: the planner keeps a distinct map
     * of value to count and runs the inner function on a count's 0 -> 1 and 1 -> 0 changes; a
     * retraction of an absent value leaves a count of -1 that cancels the next insertion.
     */
    Scenario distinctBigintRetract() {
        Scenario s = new Scenario("distinct_bigint_retract",
                "COUNT, SUM and AVG (DISTINCT) of a nullable BIGINT over a retracting changelog"
                        + " with many duplicates and retractions of values a live group never had",
                true, KV, new String[] {"STRING", "BIGINT"},
                new DataType[] {DataTypes.STRING(), DataTypes.BIGINT()})
                .distinct("COUNT", 1, "cnt_d")
                .distinct("SUM", 1, "sum_d")
                .distinct("AVG", 1, "avg_d");
        rows(s, new Object[][] {
            {RowKind.INSERT, "a", 5L},
            {RowKind.INSERT, "a", 5L}, // unchanged
            {RowKind.INSERT, "a", 2L},
            {RowKind.DELETE, "a", 5L}, // one 5 left: unchanged
            {RowKind.DELETE, "a", 5L},
            {RowKind.DELETE, "a", 9L}, // never seen: count -1
            {RowKind.INSERT, "a", 9L}, // count 0: not added
            {RowKind.INSERT, "a", 9L}, // count 1: added
            {RowKind.INSERT, "a", null},
            {RowKind.DELETE, "a", 2L},
            {RowKind.DELETE, "a", 9L},
            {RowKind.DELETE, "a", null},
            {RowKind.INSERT, "a", Long.MAX_VALUE},
            {RowKind.INSERT, "a", Long.MAX_VALUE},
            {RowKind.INSERT, "a", 1L}, // SUM wraps
        });
        changelog(s, 300, new Object[] {"p", "q", null, "a"}, () -> {
            int d = rnd.nextInt(7);
            return d == 0 ? null : (Object) (long) (d - 3);
        }, true);
        return s;
    }

    /**
     * j'. DISTINCT DOUBLE keys follow Double.equals: -0.0 and 0.0 differ, NaNs are one. Without
     * a COUNT next to them the planner keeps SUM and AVG (with COUNT it rewrites them to
     * $SUM0 / COUNT, which differs from SUM for -0.0).
     */
    Scenario distinctDoubleRetract() {
        Scenario s = new Scenario("distinct_double_retract",
                "SUM and AVG (DISTINCT) of a nullable DOUBLE over a retracting changelog"
                        + " with -0.0, 0.0, NaN and infinities",
                true, KX, new String[] {"STRING", "DOUBLE"},
                new DataType[] {DataTypes.STRING(), DataTypes.DOUBLE()})
                .distinct("SUM", 1, "sum_d")
                .distinct("AVG", 1, "avg_d");
        rows(s, new Object[][] {
            {RowKind.INSERT, "zeros", 0.0},
            {RowKind.INSERT, "zeros", -0.0},
            {RowKind.INSERT, "zeros", 0.0},
            {RowKind.DELETE, "zeros", 0.0},
            {RowKind.DELETE, "zeros", 0.0},
            {RowKind.INSERT, "nan", Double.NaN},
            {RowKind.INSERT, "nan", -Double.NaN},
            {RowKind.INSERT, "nan", 1.0},
            {RowKind.DELETE, "nan", Double.NaN},
            {RowKind.DELETE, "nan", Double.NaN},
        });
        changelog(s, 300, new Object[] {"p", "q", null, "zeros"}, doubles(), true);
        return s;
    }

    /** j''. DISTINCT without retraction. */
    Scenario distinctDoubleInsertOnly() {
        Scenario s = new Scenario("distinct_double_insert_only",
                "SUM and AVG (DISTINCT) of a nullable DOUBLE over an insert-only stream",
                false, KX, new String[] {"STRING", "DOUBLE"},
                new DataType[] {DataTypes.STRING(), DataTypes.DOUBLE()})
                .distinct("SUM", 1, "sum_d")
                .distinct("AVG", 1, "avg_d");
        rows(s, new Object[][] {
            {RowKind.INSERT, "zeros", -0.0},
            {RowKind.INSERT, "zeros", -0.0},
            {RowKind.INSERT, "zeros", 0.0},
            {RowKind.INSERT, "nan", Double.NaN},
            {RowKind.INSERT, "nan", -Double.NaN},
        });
        Supplier<Object> v = doubles();
        Object[] keys = {"p", "q", null};
        for (int i = 0; i < 120; i++) {
            s.row(RowKind.INSERT, keys[rnd.nextInt(keys.length)], v.get());
        }
        return s;
    }

    /** j3. COUNT(DISTINCT DOUBLE) on its own, retracting. */
    Scenario distinctCountDoubleRetract() {
        Scenario s = new Scenario("distinct_count_double_retract",
                "COUNT(DISTINCT) of a nullable DOUBLE over a retracting changelog: -0.0 and 0.0"
                        + " are two values, every NaN is one",
                true, KX, new String[] {"STRING", "DOUBLE"},
                new DataType[] {DataTypes.STRING(), DataTypes.DOUBLE()})
                .distinct("COUNT", 1, "cnt_d");
        rows(s, new Object[][] {
            {RowKind.INSERT, "zeros", 0.0},
            {RowKind.INSERT, "zeros", -0.0},
            {RowKind.INSERT, "zeros", 0.0},
            {RowKind.DELETE, "zeros", 0.0},
            {RowKind.DELETE, "zeros", -0.0},
            {RowKind.INSERT, "nan", Double.NaN},
            {RowKind.INSERT, "nan", -Double.NaN},
            {RowKind.INSERT, "nan", 1.0},
            {RowKind.DELETE, "nan", Double.NaN},
            {RowKind.DELETE, "nan", Double.NaN},
        });
        changelog(s, 200, new Object[] {"p", "q", null, "zeros"}, doubles(), true);
        return s;
    }

    /**
     * k. FIRST_VALUE/LAST_VALUE with retraction (First/LastValueWithRetractAggFunction): values
     * ordered by arrival; a retraction removes the earliest equal (Object.equals) value.
     */
    Scenario firstLastRetract() {
        Scenario s = new Scenario("first_last_retract",
                "FIRST_VALUE and LAST_VALUE of a nullable DOUBLE over a retracting changelog:"
                        + " duplicates, -0.0 and 0.0, NaN, retractions of the first, last and"
                        + " absent values",
                true, KX, new String[] {"STRING", "DOUBLE"},
                new DataType[] {DataTypes.STRING(), DataTypes.DOUBLE()})
                .call("FIRST_VALUE", 1, "first_x")
                .call("LAST_VALUE", 1, "last_x");
        rows(s, new Object[][] {
            {RowKind.INSERT, "a", 1.0},
            {RowKind.INSERT, "a", 2.0},
            {RowKind.INSERT, "a", 1.0},
            {RowKind.DELETE, "a", 1.0}, // 2, 1
            {RowKind.INSERT, "a", 3.0},
            {RowKind.DELETE, "a", 3.0}, // 2, 1
            {RowKind.DELETE, "a", 7.0}, // absent: unchanged
            {RowKind.INSERT, "a", null},
            {RowKind.DELETE, "a", 2.0},
            {RowKind.DELETE, "a", 1.0}, // NULL row left: NULL, NULL
            {RowKind.INSERT, "a", 4.0},
            {RowKind.INSERT, "z", 0.0},
            {RowKind.INSERT, "z", -0.0},
            {RowKind.DELETE, "z", -0.0},
            {RowKind.INSERT, "z", Double.NaN},
            {RowKind.DELETE, "z", Double.NaN},
        });
        changelog(s, 300, new Object[] {"p", "q", null, "a"}, doubles(), true);
        return s;
    }

    /**
     * l. AVG(DECIMAL(10, 2)) is DECIMAL(38, 6) (DecimalAvgAggFunction): the quotient is rounded
     * to 38 significant digits HALF_UP (DecimalDataUtils.MC_DIVIDE), then to the scale HALF_UP.
     */
    Scenario decimalAvgInsertOnly() {
        Scenario s = new Scenario("decimal_avg_insert_only",
                "AVG of a nullable DECIMAL(10, 2) over an insert-only stream: result"
                        + " DECIMAL(38, 6), halves rounded up (away from zero)",
                false, KX, new String[] {"STRING", "DECIMAL(10, 2)"},
                new DataType[] {DataTypes.STRING(), DataTypes.DECIMAL(10, 2)});
        s.call("AVG", 1, "avg_x");
        // 0.01 / 32 = 0.0003125: HALF_UP gives 0.000313, HALF_EVEN would give 0.000312.
        s.row(RowKind.INSERT, "half", new BigDecimal("0.01"));
        s.row(RowKind.INSERT, "neg-half", new BigDecimal("-0.01"));
        for (int i = 1; i < 32; i++) {
            s.row(RowKind.INSERT, "half", new BigDecimal("0.00"));
            s.row(RowKind.INSERT, "neg-half", i % 7 == 0 ? null : new BigDecimal("0.00"));
        }
        s.row(RowKind.INSERT, "neg-half", new BigDecimal("0.00"));
        s.row(RowKind.INSERT, "neg-half", new BigDecimal("0.00"));
        s.row(RowKind.INSERT, "neg-half", new BigDecimal("0.00"));
        s.row(RowKind.INSERT, "neg-half", new BigDecimal("0.00"));
        s.row(RowKind.INSERT, "thirds", new BigDecimal("1.00"));
        s.row(RowKind.INSERT, "thirds", new BigDecimal("2.00"));
        s.row(RowKind.INSERT, "thirds", new BigDecimal("2.00"));
        s.row(RowKind.INSERT, "max", new BigDecimal("99999999.99"));
        s.row(RowKind.INSERT, "max", new BigDecimal("99999999.99"));
        s.row(RowKind.INSERT, "max", new BigDecimal("-0.01"));
        s.row(RowKind.INSERT, "nulls", null);
        Object[] keys = {"p", "q", null};
        for (int i = 0; i < 100; i++) {
            BigDecimal v = rnd.nextInt(6) == 0 ? null
                    : BigDecimal.valueOf(rnd.nextLong(2_000_001) - 1_000_000, 2);
            s.row(RowKind.INSERT, keys[rnd.nextInt(keys.length)], v);
        }
        return s;
    }

    /**
     * l'. AVG(DECIMAL(38, 0)) with retraction: quotients with more than 38 digits round twice
     * (to 38 significant digits, then to scale 6, both HALF_UP), and results past 38 digits are
     * NULL.
     */
    Scenario decimalAvgRetract() {
        Scenario s = new Scenario("decimal_avg_retract",
                "AVG of a nullable DECIMAL(38, 0) over a retracting changelog: result"
                        + " DECIMAL(38, 6); 32-digit averages fill all 38 digits; larger ones"
                        + " round to 38 digits first, and from 33 digits on they do not fit: NULL",
                true, KX, new String[] {"STRING", "DECIMAL(38, 0)"},
                new DataType[] {DataTypes.STRING(), DataTypes.DECIMAL(38, 0)});
        s.call("AVG", 1, "avg_x");
        BigDecimal e31 = new BigDecimal("10000000000000000000000000000000");
        BigDecimal e33 = e31.multiply(BigDecimal.valueOf(100));
        Object[][] fixed = {
            // (8 * 10^31 + 1) / 8 = 10^31 + 0.125, and so on down to / 11.
            {RowKind.INSERT, "even", e31.add(BigDecimal.ONE)},
            {RowKind.INSERT, "even", e31}, {RowKind.INSERT, "even", e31},
            {RowKind.INSERT, "even", e31}, {RowKind.INSERT, "even", e31},
            {RowKind.INSERT, "even", e31}, {RowKind.INSERT, "even", e31},
            {RowKind.INSERT, "even", e31},
            // Back up, then 10^31 + 3 in place of 10^31 + 1.
            {RowKind.INSERT, "even", BigDecimal.valueOf(2)},
            {RowKind.DELETE, "even", BigDecimal.valueOf(2)},
            {RowKind.DELETE, "even", e31.add(BigDecimal.ONE)},
            {RowKind.INSERT, "even", e31.add(BigDecimal.valueOf(3))},
            {RowKind.INSERT, "neg", e31.negate().subtract(BigDecimal.ONE)},
            {RowKind.INSERT, "neg", e31.negate()},
            {RowKind.INSERT, "neg", e31.negate()},
            {RowKind.INSERT, "neg", e31.negate()},
            {RowKind.INSERT, "big", e33},
            {RowKind.INSERT, "big", e33},
            {RowKind.INSERT, "big", BigDecimal.ONE},
            {RowKind.DELETE, "big", e33},
            {RowKind.DELETE, "big", e33},
            {RowKind.INSERT, "big", null},
            {RowKind.DELETE, "big", BigDecimal.ONE},
        };
        rows(s, fixed);
        BigDecimal[] pool = {
            null, BigDecimal.ONE, BigDecimal.valueOf(-7), e31, e31.negate(), e31.add(BigDecimal.ONE),
            BigDecimal.valueOf(3), BigDecimal.ZERO
        };
        changelog(s, 250, new Object[] {"p", "q", null, "even"},
                () -> pool[rnd.nextInt(pool.length)], true);
        return s;
    }

    static final String[] JSON_STRINGS = {
        null, "", "a", "a", "quote\"back\\slash", "tab\tnl\ncr\rbs\bff\f", "ctl\u0001\u001f\u007f",
        "größer 🦀", "/slash", "\u2028"
    };

    /**
     * m. JSON_ARRAYAGG with retraction (JsonArrayAggFunction over the planner's JSON_STRING of
     * the argument): a list of JSON texts, a retraction removing the first equal one; ABSENT ON
     * NULL skips NULLs, NULL ON NULL keeps them as null; an empty list is [].
     */
    Scenario jsonArrayAggRetract() {
        Scenario s = new Scenario("json_arrayagg_retract",
                "JSON_ARRAYAGG(v ABSENT ON NULL) and JSON_ARRAYAGG(v NULL ON NULL) of a nullable"
                        + " STRING over a retracting changelog: escapes, duplicates, NULLs",
                true, KV, new String[] {"STRING", "STRING"},
                new DataType[] {DataTypes.STRING(), DataTypes.STRING()})
                .call("JSON_ARRAYAGG_ABSENT_ON_NULL", 1, "arr")
                .call("JSON_ARRAYAGG_NULL_ON_NULL", 1, "arr_nulls");
        rows(s, new Object[][] {
            {RowKind.INSERT, "a", "x"},
            {RowKind.INSERT, "a", null},
            {RowKind.INSERT, "a", "y"},
            {RowKind.INSERT, "a", "x"},
            {RowKind.DELETE, "a", "x"},
            {RowKind.DELETE, "a", null},
            {RowKind.DELETE, "a", "z"},
            {RowKind.DELETE, "a", "y"},
            {RowKind.DELETE, "a", "x"},
            {RowKind.INSERT, "b", null},
            {RowKind.INSERT, "b", null},
            {RowKind.DELETE, "b", null},
            {RowKind.DELETE, "b", null},
        });
        changelog(s, 250, new Object[] {"p", "q", null},
                () -> JSON_STRINGS[rnd.nextInt(JSON_STRINGS.length)], true);
        return s;
    }

    /** m'. JSON_ARRAYAGG of a BIGINT without retraction. */
    Scenario jsonArrayAggInsertOnly() {
        Scenario s = new Scenario("json_arrayagg_insert_only",
                "JSON_ARRAYAGG(v ABSENT ON NULL) and JSON_ARRAYAGG(v NULL ON NULL) of a nullable"
                        + " BIGINT over an insert-only stream",
                false, KV, new String[] {"STRING", "BIGINT"},
                new DataType[] {DataTypes.STRING(), DataTypes.BIGINT()})
                .call("JSON_ARRAYAGG_ABSENT_ON_NULL", 1, "arr")
                .call("JSON_ARRAYAGG_NULL_ON_NULL", 1, "arr_nulls");
        s.row(RowKind.INSERT, "n", null);
        s.row(RowKind.INSERT, "n", Long.MIN_VALUE);
        s.row(RowKind.INSERT, "n", null);
        Object[] keys = {"p", "q", null};
        for (int i = 0; i < 60; i++) {
            int d = rnd.nextInt(8);
            s.row(RowKind.INSERT, keys[rnd.nextInt(keys.length)],
                    d == 0 ? null : (Object) (d == 1 ? Long.MAX_VALUE : (long) (d - 4)));
        }
        return s;
    }

    static final String[] GKV = {"g", "k", "v"};

    /** Object keys: escapes, Unicode, NUL, and enough plain ones to grow a HashMap twice. */
    static final String[] OBJECT_KEYS;

    static {
        List<String> keys = new ArrayList<>(Arrays.asList("", "a", "b", "quote\"key",
                "back\\slash", "tab\tnl\ncr\r", "ctl\u0001\u001f\u007f", "größer 🦀",
                "nul\0byte", "\u2028", "null", "1", "/slash"));
        for (int i = 0; i < 40; i++) {
            keys.add("key-" + i);
        }
        OBJECT_KEYS = keys.toArray(new String[0]);
    }

    static Scenario objectScenario(String name, String description, boolean retracts,
            String valueType, DataType valueDataType) {
        return new Scenario(name, description, retracts, GKV,
                new String[] {"STRING", "STRING", valueType},
                new DataType[] {DataTypes.STRING(), DataTypes.STRING().notNull(), valueDataType});
    }

    /**
     * A consistent changelog of (group, object key, value) rows that never inserts a key its
     * group holds (JSON_OBJECTAGG fails on a duplicate key): insertions, retractions of live
     * rows, ghost retractions of groups without state; with {@code drain}, all retracted.
     */
    void objectChangelog(Scenario s, int rows, Object[] groups, Supplier<Object> value,
            boolean drain) {
        List<Object[]> live = new ArrayList<>();
        for (int n = 0; n < rows; n++) {
            int dice = rnd.nextInt(10);
            Object g = groups[rnd.nextInt(groups.length)];
            String k = OBJECT_KEYS[rnd.nextInt(OBJECT_KEYS.length)];
            boolean taken = false;
            for (Object[] r : live) {
                taken |= java.util.Objects.equals(r[0], g) && r[1].equals(k);
            }
            if ((dice < 6 || live.isEmpty()) && !taken) {
                Object v = value.get();
                live.add(new Object[] {g, k, v});
                s.row(rnd.nextInt(4) == 0 ? RowKind.UPDATE_AFTER : RowKind.INSERT, g, k, v);
            } else if (dice < 9 && !live.isEmpty()) {
                Object[] r = live.remove(rnd.nextInt(live.size()));
                s.row(rnd.nextBoolean() ? RowKind.UPDATE_BEFORE : RowKind.DELETE, r[0], r[1], r[2]);
            } else {
                s.row(rnd.nextBoolean() ? RowKind.UPDATE_BEFORE : RowKind.DELETE,
                        "ghost-" + rnd.nextInt(5), k, value.get());
            }
        }
        while (drain && !live.isEmpty()) {
            Object[] r = live.remove(rnd.nextInt(live.size()));
            s.row(rnd.nextBoolean() ? RowKind.UPDATE_BEFORE : RowKind.DELETE, r[0], r[1], r[2]);
        }
    }

    /**
     * n. JSON_OBJECTAGG with retraction (JsonObjectAggFunction over the planner's JSON_STRING of
     * the value): a key -> JSON map in a state-backed MapView, on the hashmap backend a
     * java.util.HashMap whose iteration order is the members' order; a retraction removes the
     * key whatever its value; NULL ON NULL keeps NULL values as null, ABSENT ON NULL drops them.
     */
    Scenario jsonObjectAggRetract() {
        Scenario s = objectScenario("json_objectagg_retract",
                "JSON_OBJECTAGG(KEY k VALUE v NULL ON NULL) and (.. ABSENT ON NULL) of a nullable"
                        + " STRING over a retracting changelog: escaped and Unicode keys, NULL"
                        + " values, maps grown past 12 and 24 keys, emptied and refilled",
                true, "STRING", DataTypes.STRING())
                .jsonObjectAgg("NULL_ON_NULL", 1, 2, "obj")
                .jsonObjectAgg("ABSENT_ON_NULL", 1, 2, "obj_absent");
        // Group "big": 30 keys (the HashMap table grows 16 -> 32 -> 64), some removed and
        // re-added at the end of their bucket, then all removed: -D.
        for (int i = 0; i < 30; i++) {
            s.row(RowKind.INSERT, "big", OBJECT_KEYS[i], i % 5 == 0 ? null : "v" + i);
        }
        for (int i = 0; i < 30; i += 3) {
            s.row(RowKind.DELETE, "big", OBJECT_KEYS[i], i % 5 == 0 ? null : "v" + i);
        }
        for (int i = 0; i < 30; i += 6) {
            s.row(RowKind.INSERT, "big", OBJECT_KEYS[i], "again" + i);
        }
        for (int i = 0; i < 30; i++) {
            if (i % 3 != 0) {
                s.row(RowKind.UPDATE_BEFORE, "big", OBJECT_KEYS[i], i % 5 == 0 ? null : "v" + i);
            } else if (i % 6 == 0) {
                s.row(RowKind.DELETE, "big", OBJECT_KEYS[i], "again" + i);
            }
        }
        // Group "n": only NULL values; a retraction with another value still removes the key.
        s.row(RowKind.INSERT, "n", "x", null);
        s.row(RowKind.INSERT, "n", "y", null);
        s.row(RowKind.DELETE, "n", "x", "not the value");
        s.row(RowKind.INSERT, "n", "x", "back");
        s.row(RowKind.DELETE, "n", "absent-key", null);
        s.row(RowKind.DELETE, "n", "x", "back");
        s.row(RowKind.DELETE, "n", "y", null);
        objectChangelog(s, 300, new Object[] {"p", "q", null},
                () -> JSON_STRINGS[rnd.nextInt(JSON_STRINGS.length)], true);
        return s;
    }

    /** n'. ABSENT ON NULL alone: a NULL value leaves the result unchanged, so nothing is emitted. */
    Scenario jsonObjectAggAbsentRetract() {
        Scenario s = objectScenario("json_objectagg_absent_retract",
                "JSON_OBJECTAGG(KEY k VALUE v ABSENT ON NULL) of a nullable STRING over a"
                        + " retracting changelog: NULL values change nothing",
                true, "STRING", DataTypes.STRING())
                .jsonObjectAgg("ABSENT_ON_NULL", 1, 2, "obj");
        s.row(RowKind.INSERT, "a", "k1", "x");
        s.row(RowKind.INSERT, "a", "k2", null);
        s.row(RowKind.INSERT, "a", "k3", "y");
        s.row(RowKind.DELETE, "a", "k2", null);
        s.row(RowKind.DELETE, "a", "k1", "x");
        s.row(RowKind.INSERT, "b", "k", null);
        s.row(RowKind.DELETE, "b", "k", null);
        objectChangelog(s, 200, new Object[] {"p", "q", null},
                () -> JSON_STRINGS[rnd.nextInt(JSON_STRINGS.length)], true);
        return s;
    }

    /** n''. JSON_OBJECTAGG of a BIGINT without retraction; one group of 40 keys. */
    Scenario jsonObjectAggInsertOnly() {
        Scenario s = objectScenario("json_objectagg_insert_only",
                "JSON_OBJECTAGG(KEY k VALUE v NULL ON NULL) and (.. ABSENT ON NULL) of a nullable"
                        + " BIGINT over an insert-only stream, every key once per group",
                false, "BIGINT", DataTypes.BIGINT())
                .jsonObjectAgg("NULL_ON_NULL", 1, 2, "obj")
                .jsonObjectAgg("ABSENT_ON_NULL", 1, 2, "obj_absent");
        Object[] groups = {"p", "q", null};
        for (Object g : groups) {
            List<String> keys = new ArrayList<>(Arrays.asList(OBJECT_KEYS));
            int n = g == null ? 8 : (g.equals("p") ? OBJECT_KEYS.length : 20);
            for (int i = 0; i < n; i++) {
                String k = keys.remove(rnd.nextInt(keys.size()));
                int d = rnd.nextInt(8);
                s.row(RowKind.INSERT, g, k,
                        d == 0 ? null : (Object) (d == 1 ? Long.MIN_VALUE : (long) (d - 4)));
            }
        }
        return s;
    }
}
