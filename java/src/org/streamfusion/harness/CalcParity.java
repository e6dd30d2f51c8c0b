package org.streamfusion.harness;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import org.streamfusion.flink.StreamFusionPlanner;
import org.streamfusion.flink.NativeOneInputOperator;
import org.streamfusion.flink.NativeOneInputExecNode;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Calc parity of StreamFusion against stock Flink 2.3.0 in one MiniCluster JVM.
 *
 * <p>Every query runs over the same bounded, typed inputs (a {@code fromDataStream} table with
 * NULL-heavy columns and Unicode strings, and a {@code fromChangelogStream} table with all four
 * row kinds): stock ({@code streamfusion.enabled = false}), then native ({@code true}, small
 * bundles so every query spans several JNI calls) with operator chaining (Calc gets the
 * converted rows of the input) and without (Calc gets {@code BinaryRowData} from the network).
 * The outputs, row kinds included, must be equal as multisets; every query but the fallback
 * ones must have had its Calc nodes substituted (and {@code EXPLAIN} must show them), and each
 * fallback query must stay stock with a reason naming the function, and fail planning when
 * {@code streamfusion.fallback = false}. A stalled input checks the bundles' latency bound.
 *
 * <p>Prints one line per query and a last line {@code summary: ...}; exits 1 on any failure.
 * With {@code --dump DIR}, writes each planned Calc's description (what the native side
 * parses) to {@code DIR/<query>-<n>.json}, for fixtures.
 */
public final class CalcParity {
    private static final int ROWS = 300;
    private static final int BUNDLE_ROWS = 64;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /**
     * One query; {@code fallback} names why it must stay stock (planned with {@code
     * streamfusion.upcalls} off), or is null; {@code upcalls} is how many calls its native
     * Calc must hand to the JVM.
     */
    static final class Query {
        final String name;
        final String sql;
        final String fallback;
        final int upcalls;

        Query(String name, String sql, String fallback) {
            this(name, sql, fallback, 0);
        }

        Query(String name, String sql, String fallback, int upcalls) {
            this.name = name;
            this.sql = sql;
            this.fallback = fallback;
            this.upcalls = upcalls;
        }
    }

    static final List<Query> QUERIES = new ArrayList<>();

    static void q(String name, String sql) {
        QUERIES.add(new Query(name, sql, null));
    }

    static {
        q("int_arithmetic", "SELECT id, i + 1, l * 2, i - l, i * i FROM t");
        q("int_division", "SELECT id, i / 3, MOD(i, 7), -i, l / 1000 FROM t WHERE i <> 0");
        q("double_arithmetic", "SELECT id, d * 1.5, d + i, d / 4, -d FROM t");
        q("decimal_arithmetic", "SELECT id, amount + 1, amount * amount, amount - 0.25 FROM t");
        q("upper_lower_length", "SELECT id, UPPER(s), LOWER(s), CHAR_LENGTH(s) FROM t");
        q("concat_substring",
                "SELECT id, s || '-' || s2, CONCAT(s, s2), SUBSTRING(s, 2, 3) FROM t");
        q("trims", "SELECT id, TRIM(s2), LTRIM(s2), RTRIM(s2) FROM t");
        q("searched_case",
                "SELECT id, CASE WHEN i > 10 THEN 'big' WHEN i > 0 THEN 'small' ELSE 'other'"
                        + " END FROM t");
        q("case_on_null",
                "SELECT id, CASE WHEN s IS NULL THEN -1 ELSE CHAR_LENGTH(s) END,"
                        + " CASE WHEN b THEN l ELSE 0 END FROM t");
        q("coalesce", "SELECT id, COALESCE(s, s2, 'none'), COALESCE(i, 0) FROM t");
        q("casts",
                "SELECT id, CAST(i AS BIGINT), CAST(i AS STRING), CAST(l AS DOUBLE),"
                        + " CAST(amount AS STRING), TRY_CAST(s2 AS INT) FROM t");
        q("filter_and", "SELECT id, i, s FROM t WHERE i > 5 AND s IS NOT NULL");
        q("filter_like_or", "SELECT id, s FROM t WHERE s LIKE '%a%' OR i < 0");
        q("filter_between", "SELECT id, i FROM t WHERE i BETWEEN -3 AND 9");
        q("filter_in", "SELECT id, i FROM t WHERE i IN (1, 2, 3, 5, 8, 13)");
        q("booleans", "SELECT id, b, NOT b, b AND i > 0, b OR i IS NULL, b IS TRUE FROM t");
        q("math",
                "SELECT id, ABS(i), FLOOR(d), CEIL(d), ABS(d), ROUND(amount) FROM t");
        q("string_functions",
                "SELECT id, REPLACE(s, 'a', 'A'), POSITION('a' IN s), LPAD(s2, 9, '*'),"
                        + " RPAD(s, 4, '.') FROM t");
        q("unicode_filter",
                "SELECT id, s, UPPER(s), CHAR_LENGTH(s) FROM t WHERE s <> 'alpha'"
                        + " AND CHAR_LENGTH(s) > 3");
        q("string_order", "SELECT id, s FROM t WHERE s >= 'Beta' AND s < 'x'");
        q("string_in", "SELECT id, s FROM t WHERE s IN ('x', 'alpha', 'Straße', '')");
        q("sarg_null_as_true", "SELECT id, i FROM t WHERE i IN (1, 2, 3) OR i IS NULL");
        q("not_in", "SELECT id, i FROM t WHERE i NOT IN (1, 2, 3) AND l > 0");
        q("double_specials",
                "SELECT id, d / 0, -d / 0, d / 0 > 1e300 FROM t");
        q("decimal_casts",
                "SELECT id, CAST(amount AS DECIMAL(12, 1)), CAST(amount AS INT),"
                        + " ROUND(amount, 1), amount / 3 FROM t");
        q("temporal_extract",
                "SELECT id, YEAR(dt), MONTH(dt), HOUR(ts), EXTRACT(DAY FROM ts),"
                        + " DAYOFWEEK(dt) FROM t");
        q("temporal_format",
                "SELECT id, DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm'), CAST(dt AS STRING),"
                        + " CAST(ts AS DATE), FLOOR(ts TO HOUR) FROM t");
        q("null_column", "SELECT id, n + 1, COALESCE(n, -1), n IS NULL, CAST(n AS STRING) FROM t");
        q("hashes", "SELECT id, MD5(s), SHA1(s2), SHA256(s), SHA2(s, 512) FROM t");
        q("regexps",
                "SELECT id, REGEXP_EXTRACT(s, '([a-z]+)', 1), REGEXP_REPLACE(s2, '[0-9]', '#'),"
                        + " SPLIT_INDEX(s, ' ', 1), INITCAP(s), CONCAT_WS('|', s, s2) FROM t");
        q("like_escape_if",
                "SELECT id, s LIKE 'a!%%' ESCAPE '!', s NOT LIKE '_a%', IF(i > 0, s, s2),"
                        + " (i > 3) IS NOT TRUE OR b FROM t WHERE s IS NOT NULL OR b");
        q("math_more",
                "SELECT id, SIGN(i), DEGREES(d), RADIANS(d), MOD(l, 97),"
                        + " i * 1.0 / 7 FROM t");
        q("string_to_temporal",
                "SELECT id, TO_DATE('2024-03-' || CAST(MOD(id, 28) + 1 AS STRING)),"
                        + " TO_TIMESTAMP('2024-03-01 10:' || CAST(MOD(id, 60) + 10 AS STRING)"
                        + " || ':00'), FROM_UNIXTIME(id * 86400) FROM t");
        q("try_casts",
                "SELECT id, TRY_CAST(s2 AS DECIMAL(10, 2)), TRY_CAST(s2 AS DOUBLE),"
                        + " TRY_CAST(s AS BOOLEAN), CAST(b AS STRING), CAST(i AS DECIMAL(5, 1)),"
                        + " CAST(d AS BIGINT) FROM t");
        q("nested_case",
                "SELECT id, CASE WHEN i IS NULL THEN CAST(NULL AS STRING) WHEN i > 0 THEN"
                        + " (CASE WHEN b THEN UPPER(s) ELSE LOWER(s) END) ELSE s2 END FROM t");
        q("calc_over_group_by",
                "SELECT k, cnt * 2, total FROM (SELECT k, COUNT(*) AS cnt, SUM(v) AS total"
                        + " FROM c GROUP BY k) WHERE cnt > 1");
        q("projection_only", "SELECT s, id, dt, ts, amount FROM t");
        q("changelog_filter", "SELECT k, v * 10, name FROM c WHERE v > 1");
        q("changelog_project", "SELECT k, UPPER(name), v IS NULL FROM c");
        // A DOUBLE printed (CAST to STRING or DECIMAL, ROUND, TRUNCATE) follows the JVM's
        // Double.toString: native on JDK 19+, upcalls before (decision 0037).
        QUERIES.add(new Query("double_text",
                "SELECT id, ROUND(d, 1), CAST(d / 0 AS STRING), CAST(d AS STRING),"
                        + " CAST(d AS DECIMAL(10, 3)), TRUNCATE(d, 1) FROM t",
                null, Runtime.version().feature() < 19 ? 5 : 0));
        q("string_functions_more",
                "SELECT id, REPEAT(s, 2), LEFT(s, 3), RIGHT(s2, 2), LOCATE('a', s),"
                        + " TO_BASE64(s2), SPLIT(s, ' '), REGEXP_COUNT(s, '[a-z]') FROM t");
        // Without upcalls a Calc with a call the native side lacks stays stock, naming it.
        QUERIES.add(new Query("fallback_parse_url", "SELECT id, PARSE_URL(s, 'HOST') FROM t",
                "$PARSE_URL$1"));
        // Java's Math intrinsics and the native libm differ in the last bit (SIN(2.5)).
        QUERIES.add(new Query("fallback_transcendental", "SELECT id, SIN(d), POWER(d, 2) FROM t",
                "$SIN$1"));
        // With upcalls (the default) the same calls run as Flink's code inside a native Calc:
        // nested in native expressions, under a CASE (only the rows the branch takes), in the
        // condition (TAN twice: Flink's condition calls it twice), and a user's function
        // registered by name.
        QUERIES.add(new Query("upcall_transcendental",
                "SELECT id, SIN(d), POWER(d, 2) + i, EXP(d) * 2,"
                        + " CASE WHEN d > 0 THEN LN(d) ELSE -1 END, COS(d) FROM t"
                        + " WHERE TAN(d) IS NULL OR TAN(d) <> 0.5",
                null, 7));
        QUERIES.add(new Query("upcall_parse_url",
                "SELECT id, PARSE_URL(CONCAT('http://', s2, '.example/p?q=', s), 'HOST'),"
                        + " UPPER(PARSE_URL(CONCAT('http://h/p?q=', s), 'QUERY', 'q')) FROM t",
                null, 2));
        QUERIES.add(new Query("upcall_user_function",
                "SELECT id, SCRAMBLE(s, i), CHAR_LENGTH(SCRAMBLE(s2, 3)) * 2 FROM t"
                        + " WHERE SCRAMBLE(s, id) IS NOT NULL",
                null, 3));
    }

    public static void main(String[] args) throws Exception {
        Path dump = args.length == 2 && args[0].equals("--dump") ? Path.of(args[1]) : null;
        System.out.println(StreamFusionPlanner.activation());
        List<List<String>> stock = run(false, true, false, null);
        List<List<String>> nativeRun = run(true, true, true, dump);
        // Unchained, Calc reads the BinaryRowData the network stack deserialized (chained,
        // the converted rows of fromDataStream): both paths into the native operator.
        List<List<String>> unchained = run(true, false, false, null);
        int failures = 0;
        int matched = 0;
        int nativeNodes = 0;
        int stockNodes = 0;
        for (int n = 0; n < QUERIES.size(); n++) {
            Query query = QUERIES.get(n);
            Outcome outcome = OUTCOMES.get(n);
            List<String> a = new ArrayList<>(stock.get(n));
            List<String> b = new ArrayList<>(nativeRun.get(n));
            List<String> c = new ArrayList<>(unchained.get(n));
            Collections.sort(a);
            Collections.sort(b);
            Collections.sort(c);
            boolean same = a.equals(b) && a.equals(c);
            nativeNodes += outcome.nativeNodes;
            stockNodes += outcome.stockNodes;
            List<String> problems = new ArrayList<>();
            if (!a.equals(b)) {
                problems.add("outputs differ: " + firstDifference(a, b));
            }
            if (!a.equals(c)) {
                problems.add("outputs differ unchained: " + firstDifference(a, c));
            }
            if (a.isEmpty()) {
                problems.add("the query emitted no rows: it proves nothing");
            }
            if (query.fallback == null) {
                if (outcome.nativeNodes == 0 || outcome.stockNodes > 0) {
                    problems.add("expected every Calc native: " + outcome.decisions);
                }
                if (outcome.upcalls != query.upcalls) {
                    problems.add("expected " + query.upcalls + " upcalls, the native plans have "
                            + outcome.upcalls);
                }
                if (!outcome.explainShowsNative) {
                    problems.add("EXPLAIN does not show a StreamFusion node");
                }
            } else {
                if (outcome.stockNodes == 0 || !outcome.decisions.contains(query.fallback)) {
                    problems.add("expected a stock Calc naming " + query.fallback + ": "
                            + outcome.decisions);
                }
                if (outcome.strictError == null || !outcome.strictError.contains(query.fallback)) {
                    problems.add("with fallback off planning must fail naming " + query.fallback
                            + ", got " + outcome.strictError);
                }
            }
            matched += same ? 1 : 0;
            failures += problems.isEmpty() ? 0 : 1;
            System.out.printf("query %s: %d rows, %s, calc nodes native=%d stock=%d%s%n",
                    query.name, a.size(), same ? "MATCH" : "MISMATCH", outcome.nativeNodes,
                    outcome.stockNodes, problems.isEmpty() ? "" : " FAILED " + problems);
            if (query.fallback != null) {
                System.out.printf("  fallback reason: %s%n", outcome.decisions);
            }
        }
        long latencyMs = latencyCheck();
        if (latencyMs < 0 || latencyMs > LATENCY_LIMIT_MS) {
            failures++;
        }
        System.out.printf("latency: %d rows of a stalled input arrived after %d ms (limit %d)%n",
                SLOW_ROWS, latencyMs, LATENCY_LIMIT_MS);
        long expectedStock = QUERIES.stream().filter(q -> q.fallback != null).count();
        System.out.printf("summary: queries=%d matched=%d failed=%d native_nodes=%d stock_nodes=%d"
                        + " expected_stock=%d"
                        + " native_rows_in=%d native_rows_out=%d converted_rows=%d bundles=%d%n",
                QUERIES.size(), matched, failures, nativeNodes, stockNodes, expectedStock,
                NativeOneInputOperator.ROWS_IN.get(), NativeOneInputOperator.ROWS_OUT.get(),
                NativeOneInputOperator.CONVERTED_ROWS.get(), NativeOneInputOperator.BUNDLES.get());
        System.exit(failures == 0 ? 0 : 1);
    }

    static final int SLOW_ROWS = 5;
    static final long STALL_MS = 30_000;
    static final long LATENCY_LIMIT_MS = 10_000;

    /** Emits its input, but stalls before the row after {@link #SLOW_ROWS}. */
    static final class Stall implements MapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map(Long v) throws Exception {
            if (v == SLOW_ROWS + 1) {
                Thread.sleep(STALL_MS);
            }
            return v;
        }
    }

    /**
     * A native Calc behind an input that stalls after a few rows must still emit them (the
     * bundle's latency bound), long before the input resumes: how long they took, or -1 if
     * the Calc did not run natively.
     */
    static long latencyCheck() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(StreamFusionPlanner.ENABLED, true);
        DataStream<Long> stalled = env.fromSequence(1, 2 * SLOW_ROWS).map(new Stall())
                .disableChaining();
        tEnv.createTemporaryView("stalled", tEnv.fromDataStream(stalled));
        StreamFusionPlanner.clearDecisions();
        DataStream<Row> out = tEnv.toDataStream(tEnv.sqlQuery("SELECT f0 * 2 FROM stalled"));
        boolean isNative = StreamFusionPlanner.decisions().stream()
                .anyMatch(StreamFusionPlanner.Decision::isNative);
        long start = System.nanoTime();
        int seen = 0;
        try (CloseableIterator<Row> it = out.executeAndCollect("calc-parity-latency")) {
            while (seen < SLOW_ROWS && it.hasNext()) {
                it.next();
                seen++;
            }
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        return isNative && seen == SLOW_ROWS ? ms : -1;
    }

    /** What the native run planned for one query. */
    static final class Outcome {
        int nativeNodes;
        int stockNodes;
        String decisions = "";
        boolean explainShowsNative;
        String strictError;
        int upcalls;
    }

    static final List<Outcome> OUTCOMES = new ArrayList<>();

    /**
     * Runs every query in one job; returns each query's rows (kind-prefixed text). With
     * {@code record}, notes what the planner decided for each query in {@link #OUTCOMES}.
     */
    static List<List<String>> run(boolean enabled, boolean chaining, boolean record, Path dump)
            throws Exception {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        conf.setString("taskmanager.memory.network.min", "256mb");
        conf.setString("taskmanager.memory.network.max", "256mb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        if (!chaining) {
            env.disableOperatorChaining();
        }
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(StreamFusionPlanner.ENABLED, enabled);
        tEnv.getConfig().set(StreamFusionPlanner.BUNDLE_ROWS, BUNDLE_ROWS);
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        tEnv.createTemporaryView("t", tEnv.fromDataStream(table(env)));
        tEnv.createTemporaryView("c", tEnv.fromChangelogStream(changelog(env)));
        tEnv.createTemporarySystemFunction("SCRAMBLE", Scramble.class);
        DataStream<String> all = null;
        for (int n = 0; n < QUERIES.size(); n++) {
            Query query = QUERIES.get(n);
            StreamFusionPlanner.clearDecisions();
            tEnv.getConfig().set(StreamFusionPlanner.UPCALLS, query.fallback == null);
            Table result = tEnv.sqlQuery(query.sql);
            DataStream<String> tagged = tEnv.toChangelogStream(result).map(new Tag(String.valueOf(n)));
            all = all == null ? tagged : all.union(tagged);
            if (record) {
                OUTCOMES.add(outcome(tEnv, query, n, dump));
            }
        }
        List<List<String>> out = new ArrayList<>();
        for (int n = 0; n < QUERIES.size(); n++) {
            out.add(new ArrayList<>());
        }
        try (CloseableIterator<String> it =
                all.executeAndCollect("calc-parity-" + (enabled ? "native" : "stock")
                        + (chaining ? "" : "-unchained"))) {
            while (it.hasNext()) {
                String line = it.next();
                int tab = line.indexOf('\t');
                out.get(Integer.parseInt(line.substring(0, tab))).add(line.substring(tab + 1));
            }
        }
        return out;
    }

    /** The decisions just made for {@code query}, then its EXPLAIN and its strict planning. */
    static Outcome outcome(StreamTableEnvironment tEnv, Query query, int n, Path dump)
            throws Exception {
        Outcome outcome = new Outcome();
        List<String> decisions = new ArrayList<>();
        int k = 0;
        for (StreamFusionPlanner.Decision d : StreamFusionPlanner.decisions()) {
            decisions.add(d.toString());
            if (d.isNative()) {
                outcome.nativeNodes++;
                outcome.upcalls +=
                        MAPPER.readTree(d.plan).path("calc").path("upcalls").size();
            } else {
                outcome.stockNodes++;
            }
            if (dump != null && d.description != null) {
                Files.createDirectories(dump);
                Files.write(dump.resolve(String.format("%s-%d.json", query.name, k++)),
                        (d.description + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        outcome.decisions = String.join("; ", decisions);
        outcome.explainShowsNative =
                tEnv.explainSql(query.sql).contains(NativeOneInputExecNode.PREFIX);
        if (query.fallback != null) {
            tEnv.getConfig().set(StreamFusionPlanner.FALLBACK, false);
            try {
                tEnv.toChangelogStream(tEnv.sqlQuery(query.sql));
            } catch (TableException e) {
                outcome.strictError = e.getMessage();
            } finally {
                tEnv.getConfig().set(StreamFusionPlanner.FALLBACK, true);
            }
        }
        StreamFusionPlanner.clearDecisions();
        return outcome;
    }

    static String firstDifference(List<String> a, List<String> b) {
        for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
            String x = i < a.size() ? a.get(i) : "(none)";
            String y = i < b.size() ? b.get(i) : "(none)";
            if (!x.equals(y)) {
                return "stock " + x + " vs native " + y + " (" + a.size() + " vs " + b.size()
                        + " rows)";
            }
        }
        return "(none)";
    }

    /**
     * A user's function: {@code s} rotated left by {@code n} code points, its case swapped;
     * NULL for a NULL string, unrotated for a NULL {@code n}.
     */
    public static final class Scramble extends ScalarFunction {
        private static final long serialVersionUID = 1L;

        public String eval(String s, Long n) {
            if (s == null) {
                return null;
            }
            int[] cps = s.codePoints().toArray();
            StringBuilder b = new StringBuilder();
            for (int k = 0; k < cps.length; k++) {
                int cp = cps[(int) ((k + (n == null ? 0 : Math.floorMod(n, Math.max(1, cps.length))))
                        % cps.length)];
                b.appendCodePoint(Character.isUpperCase(cp) ? Character.toLowerCase(cp)
                        : Character.toUpperCase(cp));
            }
            return b.toString();
        }
    }

    /** Tags a result row (its kind and fields as text) with its query's name or index. */
    static final class Tag implements MapFunction<Row, String> {
        private static final long serialVersionUID = 1L;
        private final String name;

        Tag(String name) {
            this.name = name;
        }

        @Override
        public String map(Row row) {
            return name + "\t" + row;
        }
    }

    /** Sixteen strings: a length prime to every NULL period, so each one occurs. */
    static final String[] STRINGS = {
        "alpha", "Beta", "gamma ray", "", " padded ", "ñandú", "Straße", "日本語テキスト",
        "emoji 😀 ok", "MiXeD CaSe", "a%b_c", "İstanbul", "x", "ΣΊΣΥΦΟΣ", "tab\there",
        "ǅungla"
    };

    static final String[] NUMERIC_STRINGS = {"12", " -7 ", "abc", "2147483648", "0", "  s1  "};

    /** The main input: NULLs in every column on a different period, Unicode strings. */
    static DataStream<Row> table(StreamExecutionEnvironment env) {
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < ROWS; r++) {
            rows.add(Row.of(
                    (long) r,
                    r % 5 == 0 ? null : (r * 37 % 41) - 20,
                    r % 7 == 0 ? null : r * 1_000_003L - 150_000_000L,
                    r % 6 == 0 ? null : ((r * 13 % 29) - 14) / 4.0,
                    r % 4 == 0 ? null : BigDecimal.valueOf((r * 7919L % 20001) - 10000, 2),
                    r % 3 == 0 ? null : STRINGS[r % STRINGS.length],
                    r % 4 == 1 ? null : NUMERIC_STRINGS[r % NUMERIC_STRINGS.length],
                    r % 3 == 1 ? null : r % 2 == 0,
                    r % 8 == 0 ? null : LocalDate.of(2024, 1, 1).plusDays(r * 3L - 200),
                    r % 9 == 0 ? null : LocalDateTime.of(2024, 2, 29, 0, 0).plusSeconds(r * 3607L)
                            .plusNanos(r * 1_000_000L),
                    null));
        }
        DataType type = DataTypes.ROW(
                DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                DataTypes.FIELD("i", DataTypes.INT()),
                DataTypes.FIELD("l", DataTypes.BIGINT()),
                DataTypes.FIELD("d", DataTypes.DOUBLE()),
                DataTypes.FIELD("amount", DataTypes.DECIMAL(10, 2)),
                DataTypes.FIELD("s", DataTypes.STRING()),
                DataTypes.FIELD("s2", DataTypes.VARCHAR(20)),
                DataTypes.FIELD("b", DataTypes.BOOLEAN()),
                DataTypes.FIELD("dt", DataTypes.DATE()),
                DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
                DataTypes.FIELD("n", DataTypes.INT()));
        return env.fromData(rows, rowInfo(type));
    }

    /** A retracting input: every row kind, NULLs and Unicode. */
    static DataStream<Row> changelog(StreamExecutionEnvironment env) {
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < 40; r++) {
            String k = "k" + (r % 6);
            Integer v = r % 5 == 3 ? null : r % 9;
            String name = r % 4 == 2 ? null : STRINGS[(r * 7) % STRINGS.length];
            RowKind kind = r < 6 ? RowKind.INSERT
                    : new RowKind[] {RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE,
                            RowKind.INSERT}[r % 4];
            rows.add(Row.ofKind(kind, k, v, name));
        }
        DataType type = DataTypes.ROW(
                DataTypes.FIELD("k", DataTypes.STRING()),
                DataTypes.FIELD("v", DataTypes.INT()),
                DataTypes.FIELD("name", DataTypes.STRING()));
        return env.fromData(rows, rowInfo(type));
    }

    @SuppressWarnings("unchecked")
    static ExternalTypeInfo<Row> rowInfo(DataType type) {
        return (ExternalTypeInfo<Row>) (ExternalTypeInfo<?>) ExternalTypeInfo.of(
                type.bridgedTo(Row.class));
    }
}
