package org.streamfusion.harness;

import org.apache.flink.api.dag.Pipeline;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.MiniClusterJobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.streamfusion.flink.StreamFusionPlanner;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A broad sweep of Flink SQL scalar expressions, each evaluated by stock Flink 2.3.0 and by
 * StreamFusion's native Calc over one typed input full of edge values (numeric extremes,
 * NaN, -0.0 and infinities, decimal bounds, lenient numeric and date strings, Unicode that
 * case-maps or measures differently, regex-hostile strings, pre-1970 and far-future
 * timestamps, NULLs in every column on its own period), to find silent wrong values.
 * TIMESTAMP(9) values beyond 64-bit nanoseconds are in a second small table {@code tx} with
 * expressions of their own (in {@code t} they would fail every native expression).
 *
 * <p>Every expression {@code e} is planned once as {@code SELECT id, e FROM t} with {@code
 * streamfusion.enabled = true}: it is <b>native</b> if its Calc was substituted (with {@code
 * streamfusion.upcalls}, the default, a call without a native kernel runs there as Flink's
 * own code, decision 0054), else <b>refused</b> (with the reason), or <b>invalid</b> when
 * stock Flink cannot plan it either.
 * The native ones then run in chunks (many expressions in one {@code SELECT}, one job per
 * chunk and side) on one shared MiniCluster, stock and native; a chunk whose job fails is
 * split down to single expressions, so each gets its own outcome: {@code matched} (every
 * row's value identical as text; doubles via {@code Double.toString}, so -0.0 and NaN count),
 * {@code mismatched} (a silent wrong value), {@code stock_only_error} (Flink fails, native
 * returns values: also a silent wrong value), {@code native_only_error} or {@code
 * both_error}. A native chunk must have had its Calc substituted (a chunk refused as a whole
 * is split too). Mismatches of expressions on the {@link #KNOWN} list (classes issue 25 still
 * lists) are {@code known_mismatch}; a listed one that matches is {@code known_fixed}.
 *
 * <p>Prints one line per expression that did not match (mismatches with up to three
 * differing rows and their full input rows, errors with the root cause of each side), the
 * refused expressions grouped by reason, the invalid ones, and a last line {@code summary:
 * ...}; exits 1 when anything mismatched off the list, failed only in stock, was invalid,
 * or matches while listed. Arguments:
 * {@code --filter SUBSTRING} keeps the expressions containing it (or of that category),
 * {@code --out FILE} also writes the report there.
 */
public final class ExprSweep {
    static final int ROWS = 120;
    static final int CHUNK = 40;
    static final int BUNDLE_ROWS = 50;
    static final int THREADS = 2;
    static final long JOB_TIMEOUT_SECONDS = 120;
    static final String UTC = "UTC";
    static final String NEW_YORK = "America/New_York";

    // ------------------------------------------------------------------------------------
    // The input table.
    // ------------------------------------------------------------------------------------

    /** One column: its values cycle ({@code div} rows per value), NULL on its own period. */
    static final class Col {
        final String name;
        final DataType type;
        final Object[] values;
        final int nullPeriod;
        final int nullPhase;
        final int div;

        Col(String name, DataType type, int nullPeriod, int nullPhase, int div, Object... values) {
            this.name = name;
            this.type = type;
            this.values = values;
            this.nullPeriod = nullPeriod;
            this.nullPhase = nullPhase;
            this.div = div;
        }

        Object value(int r) {
            return r % nullPeriod == nullPhase ? null : values[(r / div) % values.length];
        }
    }

    static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    static LocalDateTime ldt(String text) {
        return LocalDateTime.parse(text);
    }

    static final String[] STRINGS = {
        "", " ", "  ", "abc", " abc ", "abc\n", "a\r\n", "a\nb", "line\n", "ab$", "a.b", "(x)",
        "éclair", "e\u0301", "😀 emoji", "x😀y", "ΣΊΣΥΦΟΣ", "ὈΔΥΣΣΕΎΣ", "İstanbul", "ıI", "Straße",
        "ß", "MiXeD CaSe", "hello world", "aaa", "aAbB", "tab\there", "x,y,,z", "a%b_c", "日本語",
        "ǅungla", "ﬁx", "xyxhixy", " x hi x", "aab", "ab", "a[b", "The quick brown fox", "12ab34",
        "abcabc", "A"
    };

    static final String[] NUMERIC_STRINGS = {
        " 12 ", "1e3", "0x1F", "-0", "NaN", "Infinity", "-Infinity", "2147483648", "-2147483649",
        "1.5", "-1.5", "true", "TRUE", " yes", "no", "0", "1", "12", "+7", "1,000", "", "abc",
        "007", "9223372036854775808", "1.0E-7", ".5", "5.", "  -3  ", "t", "f", "y", "127",
        "99999.995", "-128", "1.23456789012345678901234567890"
    };

    static final String[] TEMPORAL_STRINGS = {
        "2024-1-5", "2024-01-05 24:00:00", "0001-01-01", "9999-12-31 23:59:59.999999999",
        "2024-02-30", "12:3:4", "2024-01-01T10:00:00", "1969-12-31 23:59:59.5", "2024-01-05",
        "2024-01-05 10:20:30", "2024-01-05 10:20:30.123", "10:20:30", "23:59:59.999",
        "2024/01/05", "20240105", " 2024-01-05 ", "2024-01-05Z", "1970-01-01 00:00:00", "",
        "not a date", "2024-02-29 12:00:00", "1582-10-10", "2024-03-10 02:30:00",
        "2024-11-03 01:30:00"
    };

    static final Col[] COLS = {
        new Col("i", DataTypes.INT(), 5, 4, 1,
                Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1, 1, 7, -7, 100, 46341, -2147483647, 2,
                -100, 3),
        new Col("l", DataTypes.BIGINT(), 7, 6, 1,
                Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 1L, 1_000_000_007L, -86_400_000L,
                4_294_967_296L, 9_007_199_254_740_993L, -9_007_199_254_740_993L,
                1_700_000_000_000L, 253_402_300_799L, 1_709_164_800L),
        new Col("si", DataTypes.SMALLINT(), 4, 3, 1,
                Short.MIN_VALUE, Short.MAX_VALUE, (short) 0, (short) -1, (short) 1, (short) 255,
                (short) -256, (short) 12, (short) 7),
        new Col("ti", DataTypes.TINYINT(), 6, 5, 1,
                Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0, (byte) -1, (byte) 1, (byte) 2,
                (byte) -2, (byte) 3, (byte) 10, (byte) -10, (byte) 64),
        new Col("d", DataTypes.DOUBLE(), 8, 7, 1,
                Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                Double.MIN_VALUE, Double.MAX_VALUE, 0.1, 1e-7, 1e21, 123456789.125, -2.5, 0.5,
                1.5, 2.5, -0.5, 1e7, 0.001, 3.0, -1.0, 100.0, 1e16, 9007199254740993.0, 4.35,
                1.005, -123.456, 2.675),
        new Col("df", DataTypes.DOUBLE(), 6, 5, 1,
                -0.0, 0.0, 0.1, 1e-7, 123456789.125, -2.5, 0.5, 1.5, 2.5, -0.5, 0.001, 3.0, -1.0,
                100.0, 4.35, 1.005, 2.675, -123.456, 0.045, 1e15 + 0.125, 99999999.995, -0.05,
                Double.MIN_VALUE, 1e21, 0.125),
        new Col("f", DataTypes.FLOAT(), 9, 8, 1,
                Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
                Float.MIN_VALUE, Float.MAX_VALUE, 0.1f, 1e-7f, 1e21f, 123456789.125f, -2.5f,
                0.5f, 1.5f, 16777217f, 1e7f, 3.14159f, -0.001f, 100f),
        new Col("dc", DataTypes.DECIMAL(10, 2), 5, 2, 1,
                new BigDecimal("99999999.99"), new BigDecimal("-99999999.99"),
                new BigDecimal("0.00"), new BigDecimal("-0.01"), new BigDecimal("0.01"),
                new BigDecimal("1.50"), new BigDecimal("-2.50"), new BigDecimal("2.55"),
                new BigDecimal("12345.67"), new BigDecimal("-0.50"), new BigDecimal("1.00"),
                new BigDecimal("100.00"), new BigDecimal("0.05"), new BigDecimal("-1.45")),
        new Col("dw", DataTypes.DECIMAL(38, 18), 7, 3, 1,
                new BigDecimal("99999999999999999999.999999999999999999"),
                new BigDecimal("-99999999999999999999.999999999999999999"),
                new BigDecimal("0E-18"), new BigDecimal("0.000000000000000001"),
                new BigDecimal("-0.000000000000000001"), new BigDecimal("0.500000000000000000"),
                new BigDecimal("-2.500000000000000000"),
                new BigDecimal("123456789.123456789012345678"),
                new BigDecimal("1.000000000000000001"), new BigDecimal("3.141592653589793238"),
                new BigDecimal("10000000000.000000000000000000"),
                new BigDecimal("-0.999999999999999999")),
        new Col("dz", DataTypes.DECIMAL(5, 0), 3, 1, 1,
                new BigDecimal("99999"), new BigDecimal("-99999"), new BigDecimal("0"),
                new BigDecimal("1"), new BigDecimal("-1"), new BigDecimal("5"),
                new BigDecimal("-5"), new BigDecimal("12345"), new BigDecimal("10"),
                new BigDecimal("2"), new BigDecimal("-12")),
        new Col("s", DataTypes.STRING(), 3, 2, 1, (Object[]) STRINGS),
        new Col("sn", DataTypes.STRING(), 4, 1, 1, (Object[]) NUMERIC_STRINGS),
        new Col("st", DataTypes.STRING(), 5, 0, 1, (Object[]) TEMPORAL_STRINGS),
        new Col("b", DataTypes.BOOLEAN(), 3, 1, 1, true, false),
        new Col("b2", DataTypes.BOOLEAN(), 4, 2, 3, true, false),
        new Col("dt", DataTypes.DATE(), 6, 2, 1,
                LocalDate.of(1, 1, 1), LocalDate.of(1582, 10, 4), LocalDate.of(1582, 10, 15),
                LocalDate.of(1969, 12, 31), LocalDate.of(1970, 1, 1), LocalDate.of(2024, 2, 29),
                LocalDate.of(9999, 12, 31), LocalDate.of(2023, 12, 31), LocalDate.of(2021, 1, 3),
                LocalDate.of(2000, 3, 1), LocalDate.of(2024, 1, 31), LocalDate.of(1900, 3, 1),
                LocalDate.of(2020, 12, 31)),
        new Col("tm", DataTypes.TIME(0), 4, 0, 1,
                LocalTime.of(0, 0), LocalTime.of(23, 59, 59), LocalTime.of(12, 30, 45),
                LocalTime.of(1, 2, 3), LocalTime.of(12, 0), LocalTime.of(0, 0, 1),
                LocalTime.of(18, 45)),
        new Col("ts", DataTypes.TIMESTAMP(3), 7, 0, 1,
                ldt("1969-12-31T23:59:59.500"), ldt("1969-12-31T23:59:59.999"),
                ldt("1900-01-01T00:00:00.001"), ldt("1677-09-21T00:12:43.145"),
                ldt("2262-04-11T23:47:16.854"), ldt("0001-01-01T00:00:00"),
                ldt("9999-12-31T23:59:59.999"), ldt("1970-01-01T00:00:00"),
                ldt("2024-02-29T12:34:56.789"), ldt("2024-03-10T02:30:00"),
                ldt("2024-11-03T01:30:00"), ldt("2023-12-31T23:59:59.999"),
                ldt("1582-10-10T12:00:00"), ldt("2024-01-31T00:00:00.001"),
                ldt("1969-07-20T20:17:40.050")),
        new Col("ts9", DataTypes.TIMESTAMP(9), 5, 3, 1,
                ldt("1969-12-31T23:59:59.123456789"), ldt("1677-09-21T00:12:43.145224192"),
                ldt("1677-09-21T00:12:43.145224193"), ldt("2262-04-11T23:47:16.854775807"),
                ldt("2262-04-11T23:47:16.854775806"), ldt("1900-01-01T00:00:00.000000001"),
                ldt("2200-12-31T23:59:59.999999999"), ldt("2024-02-29T12:34:56.123456789"),
                ldt("1970-01-01T00:00:00.000000001"), ldt("1969-12-31T23:59:59.999999999"),
                ldt("2024-01-01T00:00:00"), ldt("2000-01-01T12:00:00.500")),
        new Col("tl", DataTypes.TIMESTAMP_LTZ(3), 4, 2, 1,
                Instant.parse("1969-12-31T23:59:59.500Z"), Instant.parse("1970-01-01T00:00:00Z"),
                Instant.parse("2024-03-10T07:30:00Z"), Instant.parse("2024-11-03T05:30:00Z"),
                Instant.parse("2024-11-03T06:30:00Z"), Instant.parse("0001-01-01T00:00:00Z"),
                Instant.parse("9999-12-31T23:59:59.999Z"),
                Instant.parse("2024-02-29T12:34:56.789Z"), Instant.parse("1900-01-01T04:56:02Z")),
        new Col("bs", DataTypes.BYTES(), 5, 1, 1,
                bytes(), bytes(0), bytes(0xff), bytes(1, 2, 3), "abc".getBytes(StandardCharsets.UTF_8),
                bytes(0x80, 0, 0x7f), "é".getBytes(StandardCharsets.UTF_8), bytes(0xc3, 0x28),
                "hello world".getBytes(StandardCharsets.UTF_8)),
    };

    /**
     * TIMESTAMP(9) values outside what 64-bit nanoseconds since 1970 hold (before
     * 1677-09-21T00:12:43.145224192, after 2262-04-11T23:47:16.854775807): Flink holds them.
     * They are kept out of {@code t} (the native side rejects a whole row with one of them,
     * in any column), in the small table {@code tx} with expressions of their own.
     */
    static final Col[] XCOLS = {
        new Col("ts9", DataTypes.TIMESTAMP(9), 7, 6, 1,
                ldt("1677-09-21T00:12:43.145224191"), ldt("2262-04-11T23:47:16.854775808"),
                ldt("0001-01-01T00:00:00.000000001"), ldt("9999-12-31T23:59:59.999999999"),
                ldt("1000-06-15T12:00:00.5"), ldt("1970-01-01T00:00:00")),
        new Col("ts", DataTypes.TIMESTAMP(3), 5, 4, 1,
                ldt("0001-01-01T00:00:00"), ldt("9999-12-31T23:59:59.999"),
                ldt("1500-02-28T12:00:00.001")),
        new Col("i", DataTypes.INT(), 4, 3, 1, 0, 1, -1),
    };

    static final int XROWS = 14;

    /** One input table: its columns and rows. */
    static final class Tab {
        final String name;
        final Col[] cols;
        final List<Row> rows = new ArrayList<>();

        Tab(String name, Col[] cols, int rowCount) {
            this.name = name;
            this.cols = cols;
            for (int r = 0; r < rowCount; r++) {
                Object[] fields = new Object[cols.length + 1];
                fields[0] = (long) r;
                for (int c = 0; c < cols.length; c++) {
                    fields[c + 1] = cols[c].value(r);
                }
                rows.add(Row.of(fields));
            }
            // Every value of every column occurs at least once (not hidden by its NULLs).
            for (Col col : cols) {
                Set<Integer> seen = new HashSet<>();
                for (int r = 0; r < rowCount; r++) {
                    if (col.value(r) != null) {
                        seen.add((r / col.div) % col.values.length);
                    }
                }
                if (seen.size() != col.values.length) {
                    throw new IllegalStateException("column " + name + "." + col.name
                            + " hides values: only " + seen.size() + " of " + col.values.length
                            + " occur");
                }
            }
        }

        DataType rowType() {
            List<DataTypes.Field> fields = new ArrayList<>();
            fields.add(DataTypes.FIELD("id", DataTypes.BIGINT().notNull()));
            for (Col col : cols) {
                fields.add(DataTypes.FIELD(col.name, col.type));
            }
            return DataTypes.ROW(fields.toArray(new DataTypes.Field[0]));
        }
    }

    static final Tab T = new Tab("t", COLS, ROWS);
    static final Tab TX = new Tab("tx", XCOLS, XROWS);
    static final Map<String, Tab> TABLES = Map.of("t", T, "tx", TX);

    @SuppressWarnings("unchecked")
    static ExternalTypeInfo<Row> rowInfo(DataType type) {
        return (ExternalTypeInfo<Row>) (ExternalTypeInfo<?>) ExternalTypeInfo.of(
                type.bridgedTo(Row.class));
    }

    // ------------------------------------------------------------------------------------
    // The expressions.
    // ------------------------------------------------------------------------------------

    /** One expression and everything learned about it. */
    static final class Expr {
        final String category;
        final String sql;
        final String tz;
        final Tab table;
        /** "invalid", "refused" or "native" once planned. */
        String plan;
        /** The refusal reason, or why it is invalid. */
        String reason;
        String[] stock;
        String[] nativeValues;
        String stockError;
        String nativeError;
        String outcome;

        Expr(String category, String sql, String tz, Tab table) {
            this.category = category;
            this.sql = sql;
            this.tz = tz;
            this.table = table;
        }
    }

    static final List<Expr> EXPRS = new ArrayList<>();

    /**
     * Known wrong native values, each a class issue 25 still lists (keyed by the SQL, with
     * " @" and the time zone when it is not UTC). A listed expression that mismatches is
     * {@code known_mismatch}; one that matches is {@code known_fixed}, a failure until it is
     * taken off the list, so the list never outlives the fix.
     */
    static final Map<String, String> KNOWN = new LinkedHashMap<>();

    static void known(String reason, String... keys) {
        for (String key : keys) {
            KNOWN.put(key, reason);
        }
    }

    // Empty: on JDK 17 the FLOAT/DOUBLE text casts (FloatingDecimal) are upcalls to Flink's own
    // code (decision 0054), not native text.

    static String knownKey(Expr x) {
        return x.sql + (x.tz.equals(UTC) ? "" : " @" + x.tz);
    }

    static void e(String category, String... sqls) {
        for (String sql : sqls) {
            EXPRS.add(new Expr(category, sql, UTC, T));
        }
    }

    static void ny(String category, String... sqls) {
        for (String sql : sqls) {
            EXPRS.add(new Expr(category, sql, NEW_YORK, T));
        }
    }

    static void tx(String category, String... sqls) {
        for (String sql : sqls) {
            EXPRS.add(new Expr(category, sql, UTC, TX));
        }
    }

    static final String[] CAST_SOURCES = {
        "i", "l", "si", "ti", "d", "f", "dc", "dw", "dz", "b", "dt", "tm", "ts", "ts9", "tl",
        "bs", "s", "sn", "st"
    };

    static final String[] CAST_TARGETS = {
        "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10, 2)",
        "DECIMAL(5, 1)", "DECIMAL(38, 10)", "STRING", "VARCHAR(4)", "CHAR(4)", "BOOLEAN", "DATE",
        "TIME", "TIMESTAMP(3)", "TIMESTAMP(9)", "TIMESTAMP_LTZ(3)", "BYTES"
    };

    /** Source column -> target pairs Flink cannot cast (its own planning error). */
    static final Set<String> NO_CAST = new HashSet<>();

    static {
        // Filled in from Flink's planning errors (LogicalTypeCasts).
        for (String n : new String[] {"i", "l", "si", "ti", "d", "f", "dc", "dw", "dz"}) {
            for (String t : new String[] {"DATE", "TIME", "BYTES"}) {
                NO_CAST.add(n + "->" + t);
            }
        }
        for (String t : new String[] {"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
                "DECIMAL(10, 2)", "DECIMAL(5, 1)", "DECIMAL(38, 10)", "BOOLEAN", "TIME", "DATE",
                "TIMESTAMP(3)", "TIMESTAMP(9)", "TIMESTAMP_LTZ(3)", "BYTES"}) {
            NO_CAST.add("b->" + t);
            NO_CAST.add("dt->" + t);
            NO_CAST.add("tm->" + t);
            NO_CAST.add("ts->" + t);
            NO_CAST.add("ts9->" + t);
            NO_CAST.add("tl->" + t);
            NO_CAST.add("bs->" + t);
        }
        for (String t : new String[] {"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
                "DECIMAL(10, 2)", "DECIMAL(5, 1)", "DECIMAL(38, 10)", "BOOLEAN"}) {
            NO_CAST.remove("b->" + t);
        }
        for (String src : new String[] {"dt", "tm", "ts", "ts9", "tl"}) {
            for (String t : new String[] {"DATE", "TIME", "TIMESTAMP(3)", "TIMESTAMP(9)",
                    "TIMESTAMP_LTZ(3)"}) {
                NO_CAST.remove(src + "->" + t);
            }
        }
        NO_CAST.remove("bs->BYTES");
        for (String n : new String[] {"i", "l", "si", "ti", "d", "f", "dc", "dw", "dz"}) {
            for (String t : new String[] {"TIMESTAMP(3)", "TIMESTAMP(9)", "TIMESTAMP_LTZ(3)"}) {
                NO_CAST.add(n + "->" + t);
            }
        }
        NO_CAST.add("dt->TIME");
        NO_CAST.add("tm->DATE");
    }

    static {
        // Integer arithmetic: overflow wraps, division by zero fails.
        e("arith_int",
                "i + 1", "i - 1", "i * 2", "i * i", "i + l", "l * l", "l + 1", "l - 1", "-i",
                "-l", "-si", "-ti", "si + ti", "si * si", "ti * ti", "ti + ti", "si * 1000",
                "i * si", "i + 2147483647", "l + 9223372036854775807", "l * 2", "i / 3", "i / -3",
                "l / 7", "si / 2", "ti / 3", "i / ti", "l / i", "i / NULLIF(ti, 0)",
                "l / NULLIF(i, 0)", "si / NULLIF(ti, 0)", "ti / NULLIF(ti, 0)", "MOD(i, 7)",
                "MOD(i, -7)", "MOD(-i, 7)", "MOD(l, 97)", "MOD(si, 10)", "MOD(ti, 3)",
                "MOD(i, NULLIF(ti, 0))", "MOD(l, NULLIF(i, 0))", "MOD(i, ti)", "MOD(l, i)",
                "MOD(i, l)", "MOD(ti, si)", "i % 5", "ABS(i)", "ABS(l)", "ABS(si)", "ABS(ti)",
                "CAST(i AS BIGINT) * i", "i * 1.0", "i / 2.0", "l / 2.0", "i + 0.5", "l * 0.1",
                "(i + si) * ti", "i - l * 2", "-(-i)", "i * l", "ti * 100", "si * si * si");
        // Decimal arithmetic: precision, scale, overflow to NULL, division by zero.
        e("arith_decimal",
                "dc + 1", "dc * dc", "dc - 0.25", "dc / 3", "dc / NULLIF(dc, 0)", "dc / dz",
                "dz / dc", "dw + dw", "dw * dw", "dw * 2", "dw / 3", "dz * dz", "dz / 7",
                "dz + i", "dc + i", "dc * l", "dc + l", "dc - si", "dc * ti", "dw - dc",
                "dc * 1.5", "-dc", "-dw", "-dz", "dc + 0.001", "dz / 3.0", "dw / dw",
                "dw / NULLIF(dw, 0)", "dc / 0.3", "dc * 100000000", "dw * 1000000000000000000",
                "dz * 100000", "dc * dw", "dc / dw", "MOD(dc, 3)", "MOD(dc, 0.3)", "MOD(dz, 7)",
                "MOD(dz, -7)", "MOD(dw, 2)", "MOD(dc, dz)", "MOD(dz, NULLIF(dz, 0))",
                "MOD(i, dz)", "dc + dc + dc", "dz / 3 * 3", "i / dc", "l / dz", "dc / i",
                "dc * 0.01 * 0.01", "1 / dz", "dc + 99999999.99");
        // Floating point: NaN, -0.0, infinities, mixed with integers and decimals.
        e("arith_double",
                "d + 1", "d * 2", "d - d", "d * d", "d / 2", "d / 0", "d / 0.0", "1 / d", "-d",
                "d + i", "d * l", "d + dc", "d / dc", "dc / d", "d - dw", "f + 1", "f * f", "f + d",
                "f / 0", "f * 2.5", "d * 1e308", "d - 0.1", "d + 0.1", "f - 0.1", "i / d",
                "l / d", "l * 1.0e0", "f * i", "f / l", "d * dz", "-f", "f + f", "f - d",
                "d / f", "f / 3", "d * 0.1", "d + 1e-17", "d / 3", "d * d * d",
                "d - CAST(l AS DOUBLE)", "f * 1e30", "f / 1e-30", "d + f + dc", "(d + 1) * 3",
                "d / -0.0e0", "MOD(i, 2.5)");
        // Comparisons between mixed numeric types, NaN, -0.0 and infinities.
        String[][] pairs = {
            {"d", "dc"}, {"f", "d"}, {"i", "d"}, {"dc", "l"}, {"d", "0.0"}, {"d", "-0.0e0"},
            {"f", "0.1"}, {"d", "0.1"}, {"dw", "dc"}, {"si", "ti"}, {"dz", "i"}, {"s", "sn"},
            {"f", "i"}, {"d", "d"}, {"l", "d"}, {"dc", "dz"}, {"ts", "ts9"}, {"CAST(dt AS TIMESTAMP(3))", "ts"},
            {"b", "b2"}, {"s", "'abc'"}
        };
        for (String[] p : pairs) {
            for (String op : new String[] {"=", "<>", "<", "<=", ">", ">="}) {
                e("compare", p[0] + " " + op + " " + p[1]);
            }
        }
        e("compare",
                "d = CAST('NaN' AS DOUBLE)", "d > 1e308", "f = CAST(d AS FLOAT)",
                "CAST(f AS DOUBLE) = d", "i = l", "i < l", "tm > TIME '12:00:00'",
                "dt < DATE '1970-01-01'", "ts >= TIMESTAMP '1970-01-01 00:00:00'",
                "ts9 < TIMESTAMP '1970-01-01 00:00:00.000000001'", "tl > TO_TIMESTAMP_LTZ(0, 3)",
                "bs = X'616263'", "bs < X'80'", "s < 'b'", "s > 'Z'", "s = ''", "s = ' '",
                "CAST(s AS VARCHAR(10)) = 'abc  '", "st > '2024'");
        // Predicates and NULL handling.
        e("predicate",
                "i BETWEEN -1 AND 10", "d BETWEEN 0 AND 1", "d NOT BETWEEN -1 AND 1",
                "dc BETWEEN SYMMETRIC 10 AND -10", "s BETWEEN 'a' AND 'z'",
                "dt BETWEEN DATE '1970-01-01' AND DATE '2024-12-31'",
                "ts BETWEEN TIMESTAMP '1969-12-31 23:59:59' AND TIMESTAMP '1970-01-01 00:00:00'",
                "f BETWEEN -1 AND 1", "l NOT BETWEEN 0 AND 100", "i IN (0, -1, 2147483647)",
                "i NOT IN (0, 1)", "d IN (0.0, 0.5, -2.5)", "f IN (0.1, 0.5)",
                "dc IN (1.50, -2.50)", "dc IN (1.5, 2)", "s IN ('', 'abc', 'ß')",
                "s NOT IN ('abc', ' ')", "i IN (1, NULL)", "i NOT IN (1, NULL)",
                "sn IN ('1', 'true')", "b IN (TRUE)", "dz IN (1, 5, -5)", "l IN (i, si, ti)",
                "d IN (i, f)", "dt IN (DATE '1970-01-01', DATE '2024-02-29')",
                "i IS DISTINCT FROM l", "d IS DISTINCT FROM f", "s IS NOT DISTINCT FROM sn",
                "d IS DISTINCT FROM d", "dc IS DISTINCT FROM 0", "b IS DISTINCT FROM b2",
                "dt IS NOT DISTINCT FROM CAST(ts AS DATE)", "d IS NOT DISTINCT FROM -0.0e0",
                "i IS NULL", "s IS NOT NULL", "NULLIF(i, 0)", "NULLIF(d, 0.0)", "NULLIF(s, '')",
                "NULLIF(dc, 0)", "NULLIF(d, d)", "NULLIF(s, sn)", "COALESCE(i, l)",
                "COALESCE(d, f, 0)", "COALESCE(s, sn, st)", "COALESCE(dc, dw)",
                "COALESCE(ts, ts9)", "COALESCE(dt, DATE '2000-01-01')", "COALESCE(i, dc)",
                "COALESCE(d, dc)", "COALESCE(b, b2, FALSE)", "COALESCE(bs, X'00')",
                "IFNULL(i, -1)", "IFNULL(s, 'none')", "IFNULL(d, 0)", "IFNULL(dc, 1.5)",
                "GREATEST(i, l)", "GREATEST(d, f)", "GREATEST(d, 0.0)", "LEAST(d, 0.0)",
                "LEAST(d, dc)", "GREATEST(s, sn)", "LEAST(s, sn, st)",
                "LEAST(dt, DATE '2000-01-01')", "GREATEST(i, si, ti)", "LEAST(ts, ts9)",
                "GREATEST(dc, dz)", "LEAST(i, CAST(NULL AS INT))", "GREATEST(dc, d)",
                "GREATEST(b, b2)", "LEAST(f, 1)");
        e("case",
                "CASE WHEN d > 0 THEN 'pos' WHEN d < 0 THEN 'neg' WHEN d = 0 THEN 'zero'"
                        + " ELSE 'nan-or-null' END",
                "CASE i WHEN 0 THEN 'z' WHEN -1 THEN 'm' ELSE 'o' END",
                "CASE WHEN b THEN i ELSE l END", "CASE WHEN s = '' THEN NULL ELSE s END",
                "CASE WHEN i > 0 THEN dc ELSE d END", "CASE WHEN b THEN dt ELSE CAST(ts AS DATE) END",
                "CASE WHEN b IS NULL THEN 1 WHEN b THEN 2 END", "CASE si WHEN 1 THEN 'a' END",
                "CASE WHEN i > 0 THEN dc WHEN i < 0 THEN dz ELSE dw END",
                "CASE WHEN ti = 0 THEN 0 ELSE i / ti END", "CASE WHEN i = 0 THEN NULL ELSE 100 / i END",
                "CASE d WHEN 0.0 THEN 'zero' WHEN -2.5 THEN 'm' ELSE 'x' END",
                "CASE s WHEN 'abc' THEN 1 WHEN '' THEN 2 ELSE 3 END",
                "CASE WHEN b THEN s ELSE sn END", "CASE WHEN b2 THEN ts ELSE ts9 END",
                "CASE WHEN d <> d THEN 'nan' ELSE 'num' END",
                "CASE WHEN f > 1 THEN f WHEN f < -1 THEN -f END",
                "IF(b, i, l)", "IF(d > 0, s, sn)", "IF(i IS NULL, 0, 1)",
                "IF(ti = 0, CAST(NULL AS INT), MOD(i, ti))", "IF(b, dc, dw)",
                "IF(b, 'yes', CAST(NULL AS STRING))",
                "IF(i > 0, CAST(i AS STRING), s)", "IF(b, bs, X'00')");
        e("guard",
                "i <> 0 AND 100 / i > 1", "ti = 0 OR i / ti > 1", "COALESCE(i / NULLIF(ti, 0), -1)",
                "CASE WHEN dz <> 0 THEN dc / dz END", "CASE WHEN sn = '12' THEN CAST(sn AS INT) END",
                "CASE WHEN st = '2024-01-05' THEN CAST(st AS DATE) END",
                "IF(i > 0, MOD(l, i), 0)", "b AND i / ti > 0");
        // Boolean logic with NULLs.
        e("boolean",
                "b AND b2", "b OR b2", "NOT b", "b IS TRUE", "b IS NOT TRUE", "b IS FALSE",
                "b IS NOT FALSE", "b IS UNKNOWN", "b IS NOT UNKNOWN", "(i > 0) AND b",
                "(d > 0) OR b2", "NOT (d > 0)", "(i > 0) IS NOT FALSE", "(d > 0) IS TRUE",
                "(d < 0) IS NOT TRUE", "b = b2", "b <> b2", "(s LIKE 'a%') OR b",
                "CASE WHEN b AND b2 THEN 1 ELSE 0 END", "NOT (b OR b2) = (NOT b AND NOT b2)",
                "b AND NOT b2 OR NOT b AND b2", "(i IS NULL) OR (l IS NULL) AND b",
                "NOT (i > 0 AND d > 0)", "b IS NOT DISTINCT FROM NULL", "(b AND b2) IS NULL",
                "(d = d) IS FALSE", "b OR i > 0 AND d < 0", "NOT NOT b");
        // CAST between type pairs.
        for (String src : CAST_SOURCES) {
            for (String target : CAST_TARGETS) {
                if (NO_CAST.contains(src + "->" + target)) {
                    continue;
                }
                String category = src.startsWith("s") && !src.equals("si") ? "cast_string"
                        : "cast";
                e(category, "CAST(" + src + " AS " + target + ")");
            }
        }
        for (String src : new String[] {"s", "sn", "st"}) {
            for (String target : CAST_TARGETS) {
                e("try_cast", "TRY_CAST(" + src + " AS " + target + ")");
            }
        }
        e("try_cast",
                "TRY_CAST(d AS INT)", "TRY_CAST(dw AS DECIMAL(10, 2))", "TRY_CAST(l AS INT)",
                "TRY_CAST(TRIM(sn) AS INT)", "TRY_CAST(sn AS DECIMAL(38, 18))",
                "TRY_CAST(sn AS DECIMAL(3, 0))", "TRY_CAST(st AS TIMESTAMP_LTZ(3))");
        e("cast_more",
                "CAST(CAST(d AS DECIMAL(10, 2)) AS STRING)", "CHAR_LENGTH(CAST(d AS STRING))",
                "CAST(d AS DECIMAL(38, 18))", "CAST(f AS DECIMAL(10, 4))", "CAST(i AS DECIMAL(3, 0))",
                "CAST(l AS DECIMAL(38, 0))", "CAST(dc AS DECIMAL(4, 1))", "CAST(dc AS DECIMAL(5, 0))",
                "CAST(dw AS DECIMAL(20, 2))", "CAST(dw AS DECIMAL(38, 0))",
                "CAST(dc AS DECIMAL(38, 37))", "CAST(d * 100 AS BIGINT)",
                "CAST(CAST(f AS DOUBLE) AS STRING)", "CAST(CAST(d AS FLOAT) AS STRING)",
                "CAST(i AS STRING) || CAST(d AS STRING)", "CAST(dt AS STRING) || ' ' || CAST(tm AS STRING)",
                "CAST(CAST(ts AS DATE) AS TIMESTAMP(3))", "CAST(CAST(ts AS STRING) AS TIMESTAMP(3))",
                "CAST(CAST(dc AS STRING) AS DECIMAL(10, 2))", "CAST(CAST(d AS STRING) AS DOUBLE)",
                "CAST(CAST(f AS STRING) AS FLOAT)", "CAST(CAST(b AS STRING) AS BOOLEAN)",
                "CAST(ti AS CHAR(2))", "CAST(s AS CHAR(2))", "CAST(s AS VARCHAR(1))",
                "CAST(s AS BINARY(2))", "CAST(bs AS VARCHAR(2))", "CAST(s AS VARBINARY(3))",
                "CAST(i AS FLOAT)", "CAST(l AS FLOAT)", "CAST(l AS DOUBLE) = l");
        // String functions.
        e("string",
                "UPPER(s)", "LOWER(s)", "INITCAP(s)", "TRIM(s)", "LTRIM(s)", "RTRIM(s)",
                "TRIM(BOTH 'xy' FROM s)", "TRIM(LEADING ' x' FROM s)", "TRIM(TRAILING 'b$' FROM s)",
                "TRIM(BOTH ' ' FROM sn)", "TRIM(BOTH '' FROM s)", "TRIM(LEADING 'a' FROM s)",
                "SUBSTRING(s, 2)", "SUBSTRING(s, 2, 3)", "SUBSTRING(s, 0, 2)", "SUBSTRING(s, -2)",
                "SUBSTRING(s, -3, 2)", "SUBSTRING(s, 1, 0)", "SUBSTRING(s FROM 2 FOR 1)",
                "SUBSTR(s, 3)", "SUBSTR(s, -1, 1)", "SUBSTRING(s, i, 2)", "SUBSTRING(s, 2, ti)",
                "SUBSTRING(s, ti)", "CHAR_LENGTH(s)", "CHARACTER_LENGTH(sn)", "POSITION('b' IN s)",
                "POSITION('' IN s)", "POSITION(sn IN s)", "POSITION('😀' IN s)", "LOCATE('a', s)",
                "LOCATE('a', s, 2)", "LOCATE('a', s, ti)", "LOCATE('', s, 3)", "INSTR(s, 'b')",
                "REPLACE(s, 'a', 'XY')", "REPLACE(s, '', 'x')", "REPLACE(s, '.', '!')",
                "REPLACE(s, 's', '')", "REPLACE(s, 'aa', 'a')", "LPAD(s, 5, '*')",
                "LPAD(s, 2, 'xy')", "LPAD(s, 0, 'x')", "LPAD(s, -1, 'x')", "LPAD(s, 6, '')",
                "RPAD(s, 5, '*')", "RPAD(s, 7, 'xy')", "RPAD(s, 0, 'x')", "RPAD(s, -1, 'x')",
                "LPAD(s, ti, '-')", "RPAD(sn, 8, '😀')", "CONCAT(s, sn)", "CONCAT(s, 'x', st)",
                "s || sn", "s || '|'", "CONCAT_WS('|', s, sn, st)", "CONCAT_WS(s, 'a', 'b')",
                "CONCAT_WS('', s, sn)", "CONCAT_WS(',', s, CAST(NULL AS STRING), sn)",
                "SPLIT_INDEX(s, ' ', 0)", "SPLIT_INDEX(s, ' ', 1)", "SPLIT_INDEX(s, ',', 2)",
                "SPLIT_INDEX(s, 'ab', 0)", "SPLIT_INDEX(sn, '.', -1)", "SPLIT_INDEX(s, '', 0)",
                "SPLIT_INDEX(st, '-', 1)", "REPEAT(s, 3)", "REPEAT(s, 0)", "REPEAT(s, -1)",
                "REPEAT(sn, ti)", "REVERSE(s)", "LEFT(s, 2)", "RIGHT(s, 2)", "LEFT(s, 0)",
                "RIGHT(s, -1)", "LEFT(s, ti)", "RIGHT(sn, 3)", "ASCII(s)", "ASCII(sn)",
                "CHR(ti)", "CHR(i)", "CHR(si)", "TO_BASE64(s)", "FROM_BASE64(s)",
                "FROM_BASE64(TO_BASE64(s))", "FROM_BASE64(sn)", "HEX(s)", "HEX(i)", "HEX(l)",
                "HEX(ti)", "MD5(s)", "SHA1(s)", "SHA2(s, 256)", "SHA2(s, 224)", "SHA2(s, 384)",
                "SHA2(s, 512)", "SHA256(s)", "SHA224(sn)", "SHA512(st)", "BIN(l)", "BIN(i)",
                "OVERLAY(s PLACING 'xx' FROM 2 FOR 1)", "OVERLAY(s PLACING '' FROM 1)",
                "INITCAP(sn)", "LOWER(st)", "UPPER(sn)", "CHAR_LENGTH(s || sn)",
                "UPPER(SUBSTRING(s, 1, 3)) || CAST(i AS STRING)", "LOWER(UPPER(s))",
                "UPPER(LOWER(s))", "TRIM(UPPER(s))", "CHAR_LENGTH(TRIM(s))",
                "ENCODE(s, 'UTF-8')", "DECODE(bs, 'UTF-8')", "DECODE(ENCODE(s, 'UTF-16'), 'UTF-16')",
                "STARTSWITH(s, 'a')", "ENDSWITH(s, 'b')", "TRANSLATE(s, 'ab', 'xy')",
                "URL_ENCODE(s)", "URL_DECODE(sn)", "PRINTF('%s-%d', s, i)", "BTRIM(s)",
                "BTRIM(s, 'xy')", "ELT(2, s, sn, st)", "TO_BASE64(CAST(bs AS STRING))",
                "CHAR_LENGTH(CAST(bs AS STRING))", "MD5(CAST(bs AS STRING))", "s || CAST(b AS STRING)");
        e("string_more",
                "LTRIM(s, 'xa')", "RTRIM(s, 'b$')", "BTRIM(s, sn)", "LTRIM(s, sn)",
                "OVERLAY(s PLACING sn FROM ti FOR 2)", "OVERLAY(s PLACING '😀' FROM 2)",
                "OVERLAY(s PLACING 'x' FROM i)", "INSTR(s, 'a', -1, 2)", "INSTR(s, sn, 2)",
                "INSTR(s, 'b', ti)", "LOCATE(sn, s)", "LOCATE('😀', s, 2)", "UNHEX(s)",
                "UNHEX(HEX(s))", "UNHEX(sn)", "HEX(si)", "BIN(ti)", "BIN(si)", "CHR(l)",
                "URL_DECODE(s)", "URL_ENCODE(sn)", "URL_DECODE(URL_ENCODE(s))",
                "TRANSLATE(s, sn, 'xy')", "TRANSLATE(s, 'a😀', '')", "TRANSLATE(s, 'ab', sn)",
                "STARTSWITH(bs, X'00')", "ENDSWITH(bs, bs)", "ENDSWITH(s, sn)",
                "STARTSWITH(s, '')", "IS_ALPHA(s)", "IS_DIGIT(sn)", "IS_DECIMAL(sn)",
                "IS_DECIMAL(s)", "IS_DIGIT(s)", "REGEXP_EXTRACT_ALL(s, '(a)(b)?', 2)",
                "REGEXP_EXTRACT_ALL(s, '\\w', 0)", "REGEXP_EXTRACT_ALL(s, '(.)', ti)",
                "REGEXP_COUNT(s, '\\b')", "REGEXP_COUNT(s, sn)", "REGEXP_INSTR(s, '😀')",
                "REGEXP_INSTR(s, '$')", "REGEXP_SUBSTR(s, '\\p{L}+')", "SPLIT(s, ' ')",
                "SPLIT(s, '')", "SPLIT(sn, s)", "CARDINALITY(SPLIT(s, 'a'))",
                "LEFT(sn, i)", "RIGHT(s, ti)", "SUBSTR(s, ti, 2)", "REVERSE(sn)", "ASCII(st)");
        e("like",
                "s LIKE 'a%'", "s LIKE '%b'", "s LIKE '_'", "s LIKE '%'", "s LIKE 'a_b'",
                "s LIKE '%$'", "s LIKE 'a.b'", "s LIKE CONCAT('%', CHR(10))", "s LIKE 'ab$'",
                "s LIKE '%!%%' ESCAPE '!'", "s LIKE '%\\_%' ESCAPE '\\'", "s NOT LIKE '%a%'",
                "s LIKE sn", "s LIKE '(x)'", "s LIKE '%[b%'", "s LIKE '__'", "s LIKE '_😀_'",
                "s LIKE 'a%c'", "s LIKE '%a%a%'", "s LIKE 'A%'", "UPPER(s) LIKE 'A%'",
                "s LIKE '%' || sn || '%'", "s SIMILAR TO 'a.*'", "s SIMILAR TO '(a|b)%'",
                "s SIMILAR TO '[a-c]+'", "s NOT SIMILAR TO '%b'", "s SIMILAR TO 'a_'",
                "s SIMILAR TO '%(x)%'", "s SIMILAR TO 'ab$'");
        // Regular expressions (Java syntax; an invalid pattern gives NULL in Flink).
        e("regexp",
                "REGEXP_EXTRACT(s, 'b$', 0)", "REGEXP_EXTRACT(s, '^a', 0)",
                "REGEXP_EXTRACT(s, '\\bb', 0)", "REGEXP_EXTRACT(s, '(\\w+)', 1)",
                "REGEXP_EXTRACT(s, '(\\d+)', 1)", "REGEXP_EXTRACT(s, '(?i)(A)', 1)",
                "REGEXP_EXTRACT(s, '(a)\\1', 0)", "REGEXP_EXTRACT(s, 'a(?=b)', 0)",
                "REGEXP_EXTRACT(s, '(?<=a)b', 0)", "REGEXP_EXTRACT(s, '(?<!a)b', 0)",
                "REGEXP_EXTRACT(s, 'a*+', 0)", "REGEXP_EXTRACT(s, 'a.b', 0)",
                "REGEXP_EXTRACT(s, '(', 0)", "REGEXP_EXTRACT(s, '[a', 0)",
                "REGEXP_EXTRACT(s, '(a)(b)?', 2)", "REGEXP_EXTRACT(s, '(a)', 2)",
                "REGEXP_EXTRACT(s, '\\s+$', 0)", "REGEXP_EXTRACT(s, '\\p{L}+', 0)",
                "REGEXP_EXTRACT(s, '[[:alpha:]]+', 0)", "REGEXP_EXTRACT(s, '.$', 0)",
                "REGEXP_EXTRACT(s, '(?s).+', 0)", "REGEXP_EXTRACT(s, '(?m)^b', 0)",
                "REGEXP_EXTRACT(s, '(?i)strasse', 0)", "REGEXP_EXTRACT(s, '(?i)ς', 0)",
                "REGEXP_EXTRACT(s, 'x*', 0)", "REGEXP_EXTRACT(s, '[^a-z]', 0)",
                "REGEXP_EXTRACT(s, '(?<n>a)b', 1)", "REGEXP_EXTRACT(s, 'a{2,}', 0)",
                "REGEXP_EXTRACT(s, '\\x{1F600}', 0)", "REGEXP_EXTRACT(s, '.', 0)",
                "REGEXP_EXTRACT(s, '\\Z', 0)", "REGEXP_EXTRACT(s, '\\z', 0)",
                "REGEXP_EXTRACT(s, '(\\S+)\\s', 1)", "REGEXP_EXTRACT(s, '\\.', 0)",
                "REGEXP_EXTRACT(s, '(a|ab)(c|bcd)', 0)", "REGEXP_EXTRACT(s, '\\w', 0)",
                "REGEXP_EXTRACT(s, 'a')", "REGEXP_EXTRACT(s, '(b)')", "REGEXP_EXTRACT(sn, s, 0)",
                "REGEXP_EXTRACT(s, '[\\u00e9]', 0)", "REGEXP_EXTRACT(s, '\\R', 0)",
                "REGEXP_EXTRACT(s, 'A(?i)b', 0)", "REGEXP_EXTRACT(s, '(a)', -1)",
                "REGEXP_EXTRACT(s, '\\p{Lu}', 0)", "REGEXP_EXTRACT(s, '\\d', 0)",
                "REGEXP_REPLACE(s, 'b$', 'X')", "REGEXP_REPLACE(s, '^', '>')",
                "REGEXP_REPLACE(s, '$', '<')", "REGEXP_REPLACE(s, '', '-')",
                "REGEXP_REPLACE(s, '\\w', '*')", "REGEXP_REPLACE(s, '(a)', '$1$1')",
                "REGEXP_REPLACE(s, '(a)', '\\1')", "REGEXP_REPLACE(s, 'a', '$0$0')",
                "REGEXP_REPLACE(s, 'a', '$2')", "REGEXP_REPLACE(s, 'a', '\\')",
                "REGEXP_REPLACE(s, '\\s', '')", "REGEXP_REPLACE(s, '(?i)A', 'x')",
                "REGEXP_REPLACE(s, '.', 'x')", "REGEXP_REPLACE(s, '(', 'x')",
                "REGEXP_REPLACE(s, 'x*', '-')", "REGEXP_REPLACE(s, '[aeiou]', '')",
                "REGEXP_REPLACE(s, '\\d+', '#')", "REGEXP_REPLACE(sn, '\\D', '')",
                "REGEXP_REPLACE(s, 'a', '$')", "REGEXP_REPLACE(s, '(?<n>a)', '${n}!')",
                "REGEXP_REPLACE(s, '\\b', '|')", "REGEXP_REPLACE(s, '(?m)$', ';')",
                "REGEXP_REPLACE(s, '\\p{M}', '')", "REGEXP_REPLACE(s, '[😀]', 'E')",
                "REGEXP_REPLACE(s, s, 'S')", "REGEXP_REPLACE(s, 'a', sn)",
                "REGEXP(s, 'b$')", "REGEXP(s, '^a')", "REGEXP(s, 'a')", "REGEXP(s, '(')",
                "REGEXP(s, '\\n')", "REGEXP(s, '(?i)ABC')", "REGEXP(s, '^$')", "REGEXP(s, '\\bb')",
                "REGEXP(s, '.b$')", "REGEXP(s, '^.$')", "REGEXP(sn, '^-?\\d+$')",
                "REGEXP(s, sn)", "REGEXP(st, '^\\d{4}-\\d{2}-\\d{2}$')",
                "REGEXP_COUNT(s, 'a')", "REGEXP_INSTR(s, 'b')", "REGEXP_EXTRACT_ALL(s, 'a')",
                "REGEXP_SUBSTR(s, 'a.')", "REGEXP_COUNT(s, '')", "REGEXP_INSTR(s, '(')");
        // Math.
        e("math",
                "ABS(d)", "ABS(f)", "ABS(dc)", "ABS(dw)", "ABS(dz)", "ROUND(d)", "ROUND(d, 1)",
                "ROUND(d, 2)", "ROUND(d, -1)", "ROUND(d, -2)", "ROUND(d, 10)", "ROUND(f, 1)",
                "ROUND(f)", "ROUND(dc)", "ROUND(dc, 1)", "ROUND(dc, -1)", "ROUND(dc, 3)",
                "ROUND(dw, 5)", "ROUND(dw, -3)", "ROUND(dz, -2)", "ROUND(i, -1)", "ROUND(i, -9)",
                "ROUND(l, -3)", "ROUND(si, -1)", "ROUND(ti, -1)", "ROUND(i, 2)", "ROUND(l, -18)",
                "ROUND(dc, -8)", "ROUND(d, 300)", "ROUND(d, -300)",
                "TRUNCATE(d, 1)", "TRUNCATE(d)", "TRUNCATE(d, -1)", "TRUNCATE(dc, 1)",
                "TRUNCATE(dc, -1)", "TRUNCATE(i, -1)", "TRUNCATE(f, 2)", "TRUNCATE(dw, 3)",
                "TRUNCATE(l, -2)", "FLOOR(d)", "CEIL(d)", "FLOOR(f)", "CEIL(f)", "FLOOR(dc)",
                "CEIL(dc)", "FLOOR(dw)", "CEIL(dw)", "FLOOR(i)", "CEILING(dz)", "FLOOR(-dc)",
                "SIGN(i)", "SIGN(d)", "SIGN(dc)", "SIGN(f)", "SIGN(l)", "SIGN(dw)",
                "POWER(d, 2)", "POWER(i, 2)", "POWER(d, 0.5)", "POWER(2, ti)", "POWER(dc, 2)",
                "POWER(d, -1)", "POWER(l, 0)", "POWER(-8, d)", "SQRT(d)", "SQRT(i)", "SQRT(dc)",
                "EXP(d)", "EXP(i)", "LN(d)", "LN(i)", "LN(dc)", "LOG10(d)", "LOG10(l)",
                "LOG2(d)", "LOG2(i)", "LOG(d)", "LOG(2, d)", "LOG(d, 8)", "SIN(d)", "COS(d)",
                "TAN(d)", "ASIN(d)", "ACOS(d)", "ATAN(d)", "ATAN2(d, i)", "SINH(d)", "COSH(d)",
                "TANH(d)", "COT(d)", "DEGREES(d)", "RADIANS(d)", "PI() * d", "E() * i",
                "ABS(d) + ABS(f)", "CEIL(d * 10) / 10", "FLOOR(dc * 3)", "SQRT(ABS(d))");
        // The same over finite doubles only (NaN and infinities fail these in Flink).
        e("finite_double",
                "ROUND(df)", "ROUND(df, 1)", "ROUND(df, 2)", "ROUND(df, -1)", "ROUND(df, -2)",
                "ROUND(df, 10)", "ROUND(df, 300)", "ROUND(CAST(df AS FLOAT), 1)",
                "ROUND(CAST(df AS FLOAT))", "TRUNCATE(df, 1)", "TRUNCATE(df)", "TRUNCATE(df, -1)",
                "TRUNCATE(df, 3)", "TRUNCATE(CAST(df AS FLOAT), 2)", "CAST(df AS DECIMAL(10, 2))",
                "CAST(df AS DECIMAL(5, 1))", "CAST(df AS DECIMAL(38, 10))",
                "CAST(df AS DECIMAL(38, 18))", "CAST(CAST(df AS FLOAT) AS DECIMAL(10, 4))",
                "CAST(CAST(df AS DECIMAL(10, 2)) AS STRING)", "CAST(df AS STRING)",
                "CAST(df AS INT)", "CAST(df AS BIGINT)", "CAST(df AS FLOAT)", "df > dc", "df = dc",
                "df + dc", "df * dc", "df / 3", "FLOOR(df)", "CEIL(df)", "ABS(df)", "SIGN(df)",
                "CAST(df AS DECIMAL(10, 2)) = dc", "ROUND(df, 2) = ROUND(dc, 2)",
                "TRY_CAST(df AS DECIMAL(5, 2))", "CAST(CAST(df AS STRING) AS DOUBLE) = df");
        // Temporal.
        for (String unit : new String[] {"MILLENNIUM", "CENTURY", "DECADE", "YEAR", "QUARTER",
                "MONTH", "WEEK", "DOY", "DOW", "ISODOW", "ISOYEAR", "DAY", "HOUR", "MINUTE",
                "SECOND", "MILLISECOND", "MICROSECOND", "NANOSECOND", "EPOCH"}) {
            e("extract", "EXTRACT(" + unit + " FROM ts)");
        }
        for (String unit : new String[] {"YEAR", "QUARTER", "MONTH", "WEEK", "DOY", "DOW",
                "DAY", "DECADE", "CENTURY", "MILLENNIUM", "ISOYEAR", "ISODOW", "EPOCH"}) {
            e("extract", "EXTRACT(" + unit + " FROM dt)");
        }
        for (String unit : new String[] {"YEAR", "DAY", "HOUR", "SECOND", "MILLISECOND",
                "MICROSECOND", "NANOSECOND", "EPOCH"}) {
            e("extract", "EXTRACT(" + unit + " FROM ts9)");
        }
        e("extract", "EXTRACT(HOUR FROM tm)", "EXTRACT(MINUTE FROM tm)",
                "EXTRACT(SECOND FROM tm)", "EXTRACT(DAY FROM tl)", "EXTRACT(HOUR FROM tl)");
        e("temporal",
                "YEAR(dt)", "QUARTER(dt)", "MONTH(dt)", "WEEK(dt)", "DAYOFYEAR(dt)",
                "DAYOFMONTH(dt)", "DAYOFWEEK(dt)", "YEAR(ts)", "QUARTER(ts)", "MONTH(ts)",
                "WEEK(ts)", "DAYOFYEAR(ts)", "DAYOFMONTH(ts)", "DAYOFWEEK(ts)", "HOUR(ts)",
                "MINUTE(ts)", "SECOND(ts)", "HOUR(tm)", "MINUTE(tm)", "SECOND(tm)", "HOUR(ts9)",
                "SECOND(ts9)", "YEAR(ts9)", "WEEK(ts9)", "HOUR(tl)", "DAYOFWEEK(tl)");
        for (String format : new String[] {"yyyy-MM-dd HH:mm:ss.SSS", "yy", "MMM", "MMMM",
                "EEE", "EEEE", "D", "w", "W", "u", "a", "h", "K", "k", "z", "Z", "X", "S",
                "SSSSSS", "yyyy-MM-dd'T'HH:mm:ss", "G", "YYYY", "E", "F", "dd/MM/yyyy",
                "''yyyy''", "HH:mm:ss.SSSSSSSSS", "yyyyMMddHHmmss", "Q", "x"}) {
            e("date_format", "DATE_FORMAT(ts, '" + format.replace("'", "''") + "')");
        }
        e("date_format",
                "DATE_FORMAT(ts9, 'yyyy-MM-dd HH:mm:ss.SSSSSSSSS')", "DATE_FORMAT(ts9, 'SSS')",
                "DATE_FORMAT(st, 'yyyy')", "DATE_FORMAT(st, 'yyyy-MM-dd HH:mm:ss')",
                "DATE_FORMAT(tl, 'yyyy-MM-dd HH:mm:ss.SSS')", "DATE_FORMAT(tl, 'z Z')",
                "DATE_FORMAT(ts, s)", "DATE_FORMAT(CAST(dt AS TIMESTAMP(3)), 'yyyy-MM-dd EEE')");
        for (String unit : new String[] {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR",
                "MINUTE", "SECOND"}) {
            e("timestampadd", "TIMESTAMPADD(" + unit + ", 1, ts)", "TIMESTAMPADD(" + unit
                    + ", i, ts)");
            e("timestampdiff", "TIMESTAMPDIFF(" + unit + ", ts, ts9)");
        }
        e("timestampadd",
                "TIMESTAMPADD(DAY, -1, dt)", "TIMESTAMPADD(MONTH, 1, dt)",
                "TIMESTAMPADD(YEAR, 1, dt)", "TIMESTAMPADD(DAY, i, dt)", "TIMESTAMPADD(HOUR, 25, dt)",
                "TIMESTAMPADD(SECOND, 1, ts9)", "TIMESTAMPADD(MONTH, -1, ts9)",
                "TIMESTAMPADD(MILLISECOND, 1, ts)", "TIMESTAMPADD(DAY, 1, tl)",
                "TIMESTAMPADD(MONTH, si, dt)", "TIMESTAMPADD(MINUTE, ti, tm)");
        e("timestampdiff",
                "TIMESTAMPDIFF(DAY, dt, DATE '2024-01-01')", "TIMESTAMPDIFF(MONTH, dt, DATE '2024-02-29')",
                "TIMESTAMPDIFF(YEAR, dt, CAST(ts AS DATE))",
                "TIMESTAMPDIFF(SECOND, ts, TIMESTAMP '2024-01-01 00:00:00')",
                "TIMESTAMPDIFF(MINUTE, TIMESTAMP '1970-01-01 00:00:00', ts)",
                "TIMESTAMPDIFF(DAY, tl, TO_TIMESTAMP_LTZ(1704067200000, 3))",
                "TIMESTAMPDIFF(SECOND, ts9, ts)", "TIMESTAMPDIFF(MONTH, ts, ts9)");
        for (String unit : new String[] {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR",
                "MINUTE", "SECOND", "MILLISECOND"}) {
            e("floor_ceil", "FLOOR(ts TO " + unit + ")", "CEIL(ts TO " + unit + ")");
        }
        e("floor_ceil",
                "FLOOR(dt TO MONTH)", "CEIL(dt TO YEAR)", "FLOOR(dt TO WEEK)", "CEIL(dt TO MONTH)",
                "FLOOR(ts9 TO SECOND)", "CEIL(ts9 TO MILLISECOND)", "FLOOR(tm TO HOUR)",
                "CEIL(tm TO MINUTE)", "FLOOR(tl TO DAY)", "CEIL(tl TO HOUR)", "FLOOR(ts9 TO DAY)");
        e("to_date",
                "TO_DATE(st)", "TO_DATE(st, 'yyyy-MM-dd')", "TO_DATE(st, 'yyyy/MM/dd')",
                "TO_DATE(st, 'yyyyMMdd')", "TO_DATE(sn)", "TO_TIMESTAMP(st)",
                "TO_TIMESTAMP(st, 'yyyy-MM-dd HH:mm:ss')", "TO_TIMESTAMP(st, 'yyyy-MM-dd''T''HH:mm:ss')",
                "TO_TIMESTAMP(st, 'yyyy-MM-dd')", "TO_TIMESTAMP(st, 'HH:mm:ss')",
                "TO_TIMESTAMP(st, 'yyyy-MM-dd HH:mm:ss.SSS')", "TO_TIMESTAMP_LTZ(l, 3)",
                "TO_TIMESTAMP_LTZ(l, 0)", "TO_TIMESTAMP_LTZ(i, 0)", "TO_TIMESTAMP_LTZ(d, 3)",
                "TO_TIMESTAMP_LTZ(dc, 0)", "TO_TIMESTAMP_LTZ(st)",
                "UNIX_TIMESTAMP(st)", "UNIX_TIMESTAMP(st, 'yyyy-MM-dd')",
                "UNIX_TIMESTAMP(CAST(ts AS STRING))", "UNIX_TIMESTAMP(sn)", "FROM_UNIXTIME(l)",
                "FROM_UNIXTIME(i)", "FROM_UNIXTIME(i, 'yyyy-MM-dd')", "FROM_UNIXTIME(l, 'yyyy')",
                "FROM_UNIXTIME(si, 'HH:mm:ss')", "CONVERT_TZ(st, 'UTC', 'America/New_York')",
                "CONVERT_TZ(CAST(ts AS STRING), 'UTC', 'Asia/Kolkata')",
                "CONVERT_TZ(st, 'America/New_York', 'UTC')",
                "CONVERT_TZ(CAST(ts AS STRING), 'GMT+05:30', 'Europe/London')");
        e("interval",
                "ts + INTERVAL '1' DAY", "ts - INTERVAL '1' SECOND", "ts + INTERVAL '1' MONTH",
                "ts + INTERVAL '1-2' YEAR TO MONTH", "dt + INTERVAL '1' DAY",
                "dt - INTERVAL '1' MONTH", "dt + INTERVAL '1' YEAR", "ts9 + INTERVAL '0.001' SECOND",
                "tm + INTERVAL '1' HOUR", "tm - INTERVAL '30' MINUTE", "tl + INTERVAL '1' DAY",
                "ts + INTERVAL '10 10:10:10.123' DAY TO SECOND", "ts - INTERVAL '100' YEAR(3)",
                "dt + INTERVAL '36' HOUR", "ts9 - INTERVAL '1' DAY",
                "ts - INTERVAL '99 23:59:59.999' DAY TO SECOND", "CAST(ts + INTERVAL '1' MONTH AS DATE)");
        // Bytes.
        e("bytes",
                "bs = bs", "bs <> X''", "bs > X'00'", "bs = CAST(s AS BYTES)",
                "bs IS NULL", "COALESCE(bs, CAST(s AS BYTES))", "CAST(bs AS STRING) = s",
                "TO_BASE64(CAST(s AS BYTES))", "MD5(CAST(bs AS STRING))");
        // Collections: constructors, access and the ARRAY_*/MAP_* functions.
        e("collection",
                "ARRAY[i, si]", "ARRAY[s, sn, st]", "ARRAY[dc, dz]", "ARRAY[ts, ts]",
                "MAP[s, i]", "MAP['k', l, 'j', l]", "ROW(i, s)", "CARDINALITY(ARRAY[i, l])",
                "CARDINALITY(MAP[sn, b])", "ELEMENT(ARRAY[s])", "ARRAY[i, si][2]",
                "SPLIT(s, 'a')[1]", "MAP[s, i][s]", "MAP['x', dc]['y']",
                "ARRAY_CONTAINS(ARRAY[i, 1], i)", "ARRAY_POSITION(SPLIT(s, 'a'), '')",
                "ARRAY_MIN(ARRAY[d, df])", "ARRAY_MAX(ARRAY[s, sn])", "ARRAY_APPEND(ARRAY[i], si)",
                "ARRAY_PREPEND(SPLIT(s, 'a'), sn)", "ARRAY_REMOVE(ARRAY[i, 0, i], 0)",
                "ARRAY_CONCAT(ARRAY[i], ARRAY[si, ti])", "ARRAY_UNION(ARRAY[d], ARRAY[df, d])",
                "ARRAY_EXCEPT(SPLIT(s, 'a'), ARRAY[''])", "ARRAY_INTERSECT(ARRAY[l, 1], ARRAY[1])",
                "ARRAY_DISTINCT(ARRAY[d, df, d])", "ARRAY_REVERSE(SPLIT(st, '-'))",
                "ARRAY_SLICE(SPLIT(s, 'a'), 1, 2)", "ARRAY_SORT(ARRAY[d, df, 0.0])",
                "ARRAY_SORT(ARRAY[s, sn], FALSE)", "ARRAY_JOIN(SPLIT(s, 'a'), '|')",
                "ARRAY_JOIN(ARRAY[s, sn], ',', 'NULL')", "MAP_KEYS(MAP[s, i])",
                "MAP_VALUES(MAP[i, s])", "MAP_ENTRIES(MAP[s, dc])",
                "MAP_UNION(MAP[s, i], MAP['a', 1])", "MAP_FROM_ARRAYS(ARRAY[s], ARRAY[l])",
                "CARDINALITY(SPLIT(sn, ','))");
        // JSON text and predicates (a FLOAT/DOUBLE's text is an upcall on JDK 18 and older).
        e("json",
                "JSON_STRING(s)", "JSON_STRING(sn)", "JSON_STRING(st)", "JSON_STRING(i)",
                "JSON_STRING(l)", "JSON_STRING(si)", "JSON_STRING(ti)", "JSON_STRING(dc)",
                "JSON_STRING(dw)", "JSON_STRING(dz)", "JSON_STRING(b)", "JSON_STRING(ts)",
                "JSON_STRING(ts9)", "JSON_STRING(tl)", "JSON_STRING(bs)",
                "JSON_STRING(JSON_STRING(s))", "JSON_STRING(CONCAT(s, '\"'))",
                "s IS JSON", "sn IS JSON VALUE", "st IS JSON SCALAR", "s IS JSON ARRAY",
                "s IS JSON OBJECT", "s IS NOT JSON", "sn IS NOT JSON SCALAR",
                "JSON_STRING(s) IS JSON", "JSON_STRING(i) IS JSON SCALAR",
                "JSON_OBJECT('a' VALUE i, 'b' VALUE s)", "JSON_OBJECT(KEY 'k' VALUE l ABSENT ON NULL)",
                "JSON_OBJECT(KEY COALESCE(st, '') VALUE dc, 'x' VALUE b)", "JSON_OBJECT()",
                "JSON_ARRAY(i, s, dc, ts, bs)", "JSON_ARRAY(i, sn NULL ON NULL)", "JSON_ARRAY()",
                "JSON_OBJECT('o' VALUE JSON_OBJECT('t' VALUE tl), 'a' VALUE JSON_ARRAY(b, ti))",
                "JSON_ARRAY(JSON_STRING(s), JSON_ARRAY(si))", "JSON_STRING(JSON_OBJECT('a' VALUE s))",
                "JSON_STRING(JSON_ARRAY(l, dw NULL ON NULL))");
        // Session time zone America/New_York.
        ny("tz_new_york",
                "CAST(tl AS STRING)", "CAST(tl AS TIMESTAMP(3))", "CAST(ts AS TIMESTAMP_LTZ(3))",
                "HOUR(tl)", "DATE_FORMAT(tl, 'yyyy-MM-dd HH:mm:ss')", "EXTRACT(DAY FROM tl)",
                "CAST(tl AS DATE)", "CAST(tl AS TIME)", "FROM_UNIXTIME(i)",
                "UNIX_TIMESTAMP(st)", "UNIX_TIMESTAMP(CAST(ts AS STRING))",
                "TO_TIMESTAMP_LTZ(l, 3)", "FLOOR(tl TO DAY)", "tl + INTERVAL '1' DAY",
                "TRY_CAST(st AS TIMESTAMP_LTZ(3))", "CAST(dt AS TIMESTAMP_LTZ(3))",
                "TO_TIMESTAMP(st)", "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss z')",
                "CONVERT_TZ(st, 'UTC', 'America/New_York')", "TIMESTAMPADD(DAY, 1, tl)",
                "TIMESTAMPDIFF(HOUR, tl, TO_TIMESTAMP_LTZ(1710086400000, 3))",
                "tl > TO_TIMESTAMP_LTZ(1710054000000, 3)",
                "TO_TIMESTAMP_LTZ(st)", "CAST(ts AS TIMESTAMP_LTZ(3)) = tl");
        // TIMESTAMP(9) beyond 64-bit nanoseconds (table tx).
        tx("timestamp9_range",
                "i + 1", "ts9 IS NULL", "CAST(ts9 AS STRING)", "YEAR(ts9)", "CAST(ts9 AS DATE)",
                "CAST(ts9 AS TIMESTAMP(3))", "ts9 < TIMESTAMP '1970-01-01 00:00:00'",
                "EXTRACT(NANOSECOND FROM ts9)", "DATE_FORMAT(ts9, 'yyyy-MM-dd HH:mm:ss.SSSSSSSSS')",
                "TIMESTAMPADD(DAY, 1, ts9)", "CAST(ts AS TIMESTAMP(9))", "CAST(ts AS STRING)",
                "TIMESTAMPDIFF(DAY, ts, ts9)", "FLOOR(ts9 TO DAY)", "COALESCE(ts9, ts)");
    }

    // ------------------------------------------------------------------------------------
    // Value formatting.
    // ------------------------------------------------------------------------------------

    /** A value as comparable, printable text; SQL NULL is {@code null}. */
    static String fmt(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof byte[]) {
            return Arrays.toString((byte[]) v);
        }
        if (v instanceof Double) {
            return Double.toString((Double) v);
        }
        if (v instanceof Float) {
            return Float.toString((Float) v) + "f";
        }
        if (v instanceof String) {
            return "'" + escape((String) v) + "'";
        }
        if (v instanceof Object[]) {
            Object[] a = (Object[]) v;
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < a.length; i++) {
                b.append(i == 0 ? "" : ", ").append(a[i] == null ? "NULL" : fmt(a[i]));
            }
            return b.append("]").toString();
        }
        return Objects.toString(v);
    }

    /** Escapes what would be invisible or ambiguous when printed (injective). */
    static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            int type = Character.getType(cp);
            if (cp == '\\' || cp == '\'') {
                b.append('\\').appendCodePoint(cp);
            } else if (cp == '\n') {
                b.append("\\n");
            } else if (cp == '\r') {
                b.append("\\r");
            } else if (cp == '\t') {
                b.append("\\t");
            } else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || type == Character.NON_SPACING_MARK
                    || type == Character.ENCLOSING_MARK || type == Character.FORMAT
                    || type == Character.SURROGATE || type == Character.PRIVATE_USE
                    || type == Character.UNASSIGNED || type == Character.COMBINING_SPACING_MARK
                    || (type == Character.SPACE_SEPARATOR && cp != ' ')
                    || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR) {
                b.append(String.format("\\u{%x}", cp));
            } else {
                b.appendCodePoint(cp);
            }
        }
        return b.toString();
    }

    static String show(String v) {
        return v == null ? "NULL" : v;
    }

    static String inputRow(Tab table, int id) {
        Row row = table.rows.get(id);
        StringBuilder b = new StringBuilder(table.name + " id=" + id);
        for (int c = 0; c < table.cols.length; c++) {
            b.append(' ').append(table.cols[c].name).append('=')
                    .append(show(fmt(row.getField(c + 1))));
        }
        return b.toString();
    }

    /** One line: newlines and runs of blanks become one space. */
    static String oneLine(String s) {
        return s == null ? null : s.replaceAll("\\s+", " ").trim();
    }

    static String rootCause(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = oneLine(String.valueOf(root.getMessage()));
        if (message.length() > 400) {
            message = message.substring(0, 400) + "...";
        }
        return root.getClass().getName() + ": " + message;
    }

    // ------------------------------------------------------------------------------------
    // Jobs on one shared MiniCluster.
    // ------------------------------------------------------------------------------------

    static MiniCluster cluster;

    /** Submits every pipeline to {@link #cluster} (no MiniCluster per job). */
    static final class SharedCluster
            implements PipelineExecutorServiceLoader, PipelineExecutorFactory, PipelineExecutor {
        @Override
        public PipelineExecutorFactory getExecutorFactory(Configuration configuration) {
            return this;
        }

        @Override
        public Stream<String> getExecutorNames() {
            return Stream.of("expr-sweep");
        }

        @Override
        public String getName() {
            return "expr-sweep";
        }

        @Override
        public boolean isCompatibleWith(Configuration configuration) {
            return true;
        }

        @Override
        public PipelineExecutor getExecutor(Configuration configuration) {
            return this;
        }

        @Override
        public CompletableFuture<JobClient> execute(
                Pipeline pipeline, Configuration configuration, ClassLoader classLoader)
                throws Exception {
            StreamGraph graph = PipelineExecutorUtils.getStreamGraph(pipeline, configuration);
            return cluster.submitJob(graph).thenApply(result -> new MiniClusterJobClient(
                    result.getJobID(), cluster, classLoader,
                    MiniClusterJobClient.JobFinalizationBehavior.NOTHING));
        }
    }

    /** One table environment (and its stream environment) of one thread. */
    static final class Ctx {
        final StreamExecutionEnvironment env;
        final StreamTableEnvironment tEnv;

        Ctx(boolean enabled, String tz) {
            Configuration conf = new Configuration();
            conf.setString("execution.target", "expr-sweep");
            conf.setString("execution.attached", "true");
            conf.setString("restart-strategy.type", "none");
            conf.setString("parallelism.default", "1");
            env = new StreamExecutionEnvironment(new SharedCluster(), conf,
                    ExprSweep.class.getClassLoader());
            env.setParallelism(1);
            tEnv = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
            tEnv.getConfig().set(StreamFusionPlanner.ENABLED, enabled);
            tEnv.getConfig().set(StreamFusionPlanner.BUNDLE_ROWS, BUNDLE_ROWS);
            tEnv.getConfig().set("table.local-time-zone", tz);
            for (Tab tab : new Tab[] {T, TX}) {
                tEnv.createTemporaryView(tab.name, tEnv.fromDataStream(
                        env.fromData(tab.rows, rowInfo(tab.rowType()))));
            }
        }
    }

    /** Planning records its decisions in one JVM-wide list: one plan at a time. */
    static final Object PLAN_LOCK = new Object();

    static final ThreadLocal<Map<String, Ctx>> CTX = ThreadLocal.withInitial(HashMap::new);

    static Ctx ctx(boolean enabled, String tz) {
        synchronized (PLAN_LOCK) {
            return CTX.get().computeIfAbsent(enabled + "/" + tz, k -> new Ctx(enabled, tz));
        }
    }

    enum Kind { OK, PLAN_ERROR, REFUSED, JOB_ERROR }

    /** What one chunk's job gave: values per expression and row id, or why none. */
    static final class ChunkResult {
        Kind kind;
        String[][] values;
        String error;
    }

    static final String MISSING = "<no row>";

    static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(
            r -> {
                Thread t = new Thread(r, "expr-sweep-watchdog");
                t.setDaemon(true);
                return t;
            });

    static final java.util.concurrent.atomic.AtomicInteger JOBS =
            new java.util.concurrent.atomic.AtomicInteger();

    static String select(List<Expr> exprs) {
        StringBuilder sql = new StringBuilder("SELECT id");
        for (int j = 0; j < exprs.size(); j++) {
            sql.append(", ").append(exprs.get(j).sql).append(" AS c").append(j);
        }
        return sql.append(" FROM ").append(exprs.get(0).table.name).toString();
    }

    static ChunkResult runChunk(boolean enabled, String tz, List<Expr> exprs) {
        ChunkResult result = new ChunkResult();
        Ctx ctx = ctx(enabled, tz);
        String sql = select(exprs);
        DataStream<Row> stream;
        synchronized (PLAN_LOCK) {
            StreamFusionPlanner.clearDecisions();
            try {
                Table table = ctx.tEnv.sqlQuery(sql);
                stream = ctx.tEnv.toDataStream(table);
            } catch (Throwable t) {
                result.kind = Kind.PLAN_ERROR;
                result.error = rootCause(t);
                return result;
            }
            if (enabled) {
                List<StreamFusionPlanner.Decision> decisions = StreamFusionPlanner.decisions();
                List<String> refusals = new ArrayList<>();
                for (StreamFusionPlanner.Decision d : decisions) {
                    if (!d.isNative()) {
                        refusals.add(oneLine(d.reason));
                    }
                }
                if (decisions.isEmpty() || !refusals.isEmpty()) {
                    result.kind = Kind.REFUSED;
                    result.error = decisions.isEmpty() ? "no Calc node was planned"
                            : String.join("; ", refusals);
                    // The planned stream is dropped: clear what toDataStream added.
                    try {
                        ctx.env.getStreamGraph();
                    } catch (Throwable ignored) {
                        // nothing to clear
                    }
                    return result;
                }
            }
        }
        JOBS.incrementAndGet();
        int rowCount = exprs.get(0).table.rows.size();
        String[][] values = new String[exprs.size()][rowCount];
        for (String[] v : values) {
            Arrays.fill(v, MISSING);
        }
        JobClient client = null;
        ScheduledFuture<?> watchdog = null;
        try (CloseableIterator<Row> it = stream.collectAsync()) {
            client = ctx.env.executeAsync("expr-sweep-" + (enabled ? "native" : "stock"));
            JobClient toCancel = client;
            watchdog = WATCHDOG.schedule(() -> toCancel.cancel(), JOB_TIMEOUT_SECONDS,
                    TimeUnit.SECONDS);
            int rows = 0;
            while (it.hasNext()) {
                Row row = it.next();
                int id = (int) (long) (Long) row.getField(0);
                rows++;
                for (int j = 0; j < exprs.size(); j++) {
                    String v = fmt(row.getField(j + 1));
                    values[j][id] = values[j][id] == MISSING ? v : "<duplicate row>";
                }
            }
            if (rows != rowCount) {
                for (String[] v : values) {
                    v[0] = "<" + rows + " rows>";
                }
            }
            result.kind = Kind.OK;
            result.values = values;
        } catch (Throwable t) {
            boolean timedOut = watchdog != null && watchdog.isDone();
            result.kind = Kind.JOB_ERROR;
            result.error = timedOut ? "timeout after " + JOB_TIMEOUT_SECONDS + " s: " + rootCause(t)
                    : rootCause(t);
        } finally {
            if (watchdog != null) {
                watchdog.cancel(false);
            }
        }
        return result;
    }

    static ExecutorService pool;

    /**
     * Runs {@code exprs} on one side, splitting a failed (or, natively, refused) chunk in
     * halves down to single expressions; each expression ends with values or an error.
     */
    static CompletableFuture<Void> sweep(boolean enabled, String tz, List<Expr> exprs) {
        return CompletableFuture.supplyAsync(() -> runChunk(enabled, tz, exprs), pool)
                .thenCompose(r -> {
                    if (r.kind == Kind.OK) {
                        for (int j = 0; j < exprs.size(); j++) {
                            if (enabled) {
                                exprs.get(j).nativeValues = r.values[j];
                            } else {
                                exprs.get(j).stock = r.values[j];
                            }
                        }
                        return CompletableFuture.completedFuture(null);
                    }
                    if (exprs.size() == 1) {
                        Expr x = exprs.get(0);
                        if (r.kind == Kind.PLAN_ERROR && !enabled) {
                            x.plan = "invalid";
                            x.reason = "stock planning of the chunk failed: " + r.error;
                        } else if (r.kind == Kind.REFUSED) {
                            x.plan = "refused";
                            x.reason = r.error;
                        } else if (enabled) {
                            x.nativeError = (r.kind == Kind.PLAN_ERROR ? "planning: " : "")
                                    + r.error;
                        } else {
                            x.stockError = r.error;
                        }
                        return CompletableFuture.completedFuture(null);
                    }
                    int half = exprs.size() / 2;
                    return CompletableFuture.allOf(
                            sweep(enabled, tz, new ArrayList<>(exprs.subList(0, half))),
                            sweep(enabled, tz, new ArrayList<>(exprs.subList(half, exprs.size()))));
                });
    }

    static CompletableFuture<Void> sweepChunks(boolean enabled, List<Expr> exprs, int chunk) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int from = 0; from < exprs.size(); from += chunk) {
            all.add(sweep(enabled, exprs.get(from).tz,
                    new ArrayList<>(exprs.subList(from, Math.min(exprs.size(), from + chunk)))));
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture[0]));
    }

    // ------------------------------------------------------------------------------------
    // Planning one expression at a time.
    // ------------------------------------------------------------------------------------

    static void plan(Expr x) {
        Ctx ctx = ctx(true, x.tz);
        String sql = "SELECT id, " + x.sql + " FROM " + x.table.name;
        synchronized (PLAN_LOCK) {
            StreamFusionPlanner.clearDecisions();
            try {
                ctx.tEnv.explainSql(sql);
            } catch (Throwable t) {
                Ctx stock = ctx(false, x.tz);
                try {
                    stock.tEnv.explainSql(sql);
                    x.plan = "refused";
                    x.reason = "native planning failed: " + rootCause(t);
                } catch (Throwable s) {
                    x.plan = "invalid";
                    x.reason = rootCause(s);
                }
                return;
            }
            List<StreamFusionPlanner.Decision> decisions = StreamFusionPlanner.decisions();
            List<String> refusals = new ArrayList<>();
            for (StreamFusionPlanner.Decision d : decisions) {
                if (!d.isNative()) {
                    refusals.add(oneLine(d.reason));
                }
            }
            if (decisions.isEmpty()) {
                x.plan = "refused";
                x.reason = "no Calc node was planned";
            } else if (!refusals.isEmpty()) {
                x.plan = "refused";
                x.reason = String.join("; ", refusals);
            } else {
                x.plan = "native";
            }
        }
    }

    // ------------------------------------------------------------------------------------
    // The report.
    // ------------------------------------------------------------------------------------

    static final List<String> REPORT = new ArrayList<>();

    static void report(String line) {
        System.out.println(line);
        REPORT.add(line);
    }

    static String firstValues(String[] values) {
        StringBuilder b = new StringBuilder();
        int shown = 0;
        for (int r = 0; r < values.length && shown < 3; r++) {
            if (values[r] != null && values[r] != MISSING) {
                b.append(shown == 0 ? "" : ", ").append("id=").append(r).append(": ")
                        .append(values[r]);
                shown++;
            }
        }
        return shown == 0 ? "(all NULL)" : b.toString();
    }

    public static void main(String[] args) throws Exception {
        String filter = null;
        Path out = null;
        for (int a = 0; a < args.length; a++) {
            if (args[a].equals("--filter") && a + 1 < args.length) {
                filter = args[++a];
            } else if (args[a].equals("--out") && a + 1 < args.length) {
                out = Path.of(args[++a]);
            } else {
                System.err.println("usage: ExprSweep [--filter SUBSTRING] [--out FILE]");
                System.exit(2);
            }
        }
        long start = System.nanoTime();
        List<Expr> exprs = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Expr x : EXPRS) {
            if (!seen.add(x.tz + "|" + x.table.name + "|" + x.sql)) {
                continue; // the same expression listed under two categories runs once
            }
            if (filter == null || x.sql.contains(filter) || x.category.equals(filter)) {
                exprs.add(x);
            }
        }
        System.out.println(StreamFusionPlanner.activation());

        Configuration clusterConf = new Configuration();
        clusterConf.setString("taskmanager.memory.network.min", "64mb");
        clusterConf.setString("taskmanager.memory.network.max", "64mb");
        cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(clusterConf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(THREADS * 2)
                .build());
        cluster.start();
        pool = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "expr-sweep-job");
            t.setDaemon(true);
            return t;
        });

        for (Expr x : exprs) {
            plan(x);
        }
        long planned = System.nanoTime();
        System.err.printf("expr-sweep: planned %d expressions in %d ms%n", exprs.size(),
                (planned - start) / 1_000_000);

        // Stock first; then natively: what stock ran in chunks, what failed in stock alone.
        Map<String, List<Expr>> byTz = new LinkedHashMap<>();
        for (Expr x : exprs) {
            if ("native".equals(x.plan)) {
                byTz.computeIfAbsent(x.tz + "|" + x.table.name, k -> new ArrayList<>()).add(x);
            }
        }
        List<CompletableFuture<Void>> stockRuns = new ArrayList<>();
        for (Map.Entry<String, List<Expr>> e : byTz.entrySet()) {
            stockRuns.add(sweepChunks(false, e.getValue(), CHUNK));
        }
        CompletableFuture.allOf(stockRuns.toArray(new CompletableFuture[0])).join();
        long stocked = System.nanoTime();
        System.err.printf("expr-sweep: stock runs in %d ms (%d jobs)%n",
                (stocked - planned) / 1_000_000, JOBS.get());

        List<CompletableFuture<Void>> nativeRuns = new ArrayList<>();
        for (Map.Entry<String, List<Expr>> e : byTz.entrySet()) {
            List<Expr> ok = new ArrayList<>();
            List<Expr> failed = new ArrayList<>();
            for (Expr x : e.getValue()) {
                if (!"native".equals(x.plan)) {
                    continue;
                }
                (x.stock != null ? ok : failed).add(x);
            }
            nativeRuns.add(sweepChunks(true, ok, CHUNK));
            nativeRuns.add(sweepChunks(true, failed, 1));
        }
        CompletableFuture.allOf(nativeRuns.toArray(new CompletableFuture[0])).join();
        long natived = System.nanoTime();
        System.err.printf("expr-sweep: native runs in %d ms (%d jobs in all)%n",
                (natived - stocked) / 1_000_000, JOBS.get());

        // Outcomes.
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String k : new String[] {"invalid", "refused", "native", "matched", "mismatched",
                "stock_only_error", "native_only_error", "both_error", "known_mismatch",
                "known_fixed"}) {
            counts.put(k, 0);
        }
        for (Expr x : exprs) {
            if (!"native".equals(x.plan)) {
                counts.merge(x.plan, 1, Integer::sum);
                continue;
            }
            counts.merge("native", 1, Integer::sum);
            boolean stockOk = x.stock != null;
            boolean nativeOk = x.nativeValues != null;
            if (stockOk && nativeOk) {
                boolean same = Arrays.equals(x.stock, x.nativeValues);
                if (KNOWN.containsKey(knownKey(x))) {
                    x.outcome = same ? "known_fixed" : "known_mismatch";
                } else {
                    x.outcome = same ? "matched" : "mismatched";
                }
            } else if (!stockOk && nativeOk) {
                x.outcome = "stock_only_error";
            } else if (stockOk) {
                x.outcome = "native_only_error";
            } else {
                x.outcome = "both_error";
            }
            counts.merge(x.outcome, 1, Integer::sum);
        }
        for (String outcome : new String[] {"mismatched", "known_mismatch", "known_fixed",
                "stock_only_error", "native_only_error", "both_error"}) {
            for (Expr x : exprs) {
                if (!outcome.equals(x.outcome)) {
                    continue;
                }
                String head = String.format("[%s] %s%s%s => %s", x.category, x.sql,
                        x.table == T ? "" : " (FROM " + x.table.name + ")",
                        x.tz.equals(UTC) ? "" : " (time zone " + x.tz + ")",
                        outcome.toUpperCase());
                switch (outcome) {
                    case "known_fixed":
                        report(head + ": now matches; take it off KNOWN");
                        break;
                    case "known_mismatch":
                    case "mismatched": {
                        int differing = 0;
                        List<Integer> shown = new ArrayList<>();
                        for (int r = 0; r < x.stock.length; r++) {
                            if (!Objects.equals(x.stock[r], x.nativeValues[r])) {
                                differing++;
                                if (shown.size() < 3) {
                                    shown.add(r);
                                }
                            }
                        }
                        report(head + " (" + differing + " of " + x.stock.length
                                + " rows differ)");
                        if (outcome.equals("known_mismatch")) {
                            report("    known: " + KNOWN.get(knownKey(x)));
                        }
                        for (int r : shown) {
                            report("    stock=" + show(x.stock[r]) + " native="
                                    + show(x.nativeValues[r]) + " | input "
                                    + inputRow(x.table, r));
                        }
                        break;
                    }
                    case "stock_only_error":
                        report(head);
                        report("    stock error: " + x.stockError);
                        report("    native values: " + firstValues(x.nativeValues));
                        break;
                    case "native_only_error":
                        report(head);
                        report("    native error: " + x.nativeError);
                        report("    stock values: " + firstValues(x.stock));
                        break;
                    default:
                        report(head);
                        report("    stock error: " + x.stockError);
                        report("    native error: " + x.nativeError);
                        break;
                }
            }
        }
        for (Expr x : exprs) {
            if ("matched".equals(x.outcome) && Arrays.stream(x.stock).allMatch(Objects::isNull)) {
                report("note: NULL on every row (proves little): [" + x.category + "] " + x.sql);
            }
        }
        Map<String, List<Expr>> byReason = new TreeMap<>();
        for (Expr x : exprs) {
            if ("refused".equals(x.plan)) {
                byReason.computeIfAbsent(x.reason, k -> new ArrayList<>()).add(x);
            }
        }
        for (Map.Entry<String, List<Expr>> e : byReason.entrySet()) {
            StringBuilder b = new StringBuilder();
            for (Expr x : e.getValue()) {
                b.append(b.length() == 0 ? "" : " | ").append(x.sql);
            }
            report("refused (" + e.getValue().size() + "): " + e.getKey() + " :: " + b);
        }
        for (Expr x : exprs) {
            if ("invalid".equals(x.plan)) {
                report("invalid: [" + x.category + "] " + x.sql + " :: " + x.reason);
            }
        }
        long end = System.nanoTime();
        report(String.format("timing: planning %d ms, stock %d ms, native %d ms, total %d ms,"
                        + " jobs %d", (planned - start) / 1_000_000, (stocked - planned) / 1_000_000,
                (natived - stocked) / 1_000_000, (end - start) / 1_000_000, JOBS.get()));
        report(String.format("summary: expressions=%d invalid=%d refused=%d native=%d matched=%d"
                        + " mismatched=%d stock_only_error=%d native_only_error=%d both_error=%d"
                        + " known_mismatch=%d known_fixed=%d",
                exprs.size(), counts.get("invalid"), counts.get("refused"), counts.get("native"),
                counts.get("matched"), counts.get("mismatched"), counts.get("stock_only_error"),
                counts.get("native_only_error"), counts.get("both_error"),
                counts.get("known_mismatch"), counts.get("known_fixed")));
        if (out != null) {
            try {
                Files.write(out, (String.join("\n", REPORT) + "\n")
                        .getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                System.err.println("cannot write " + out + ": " + e);
            }
        }
        int failures = counts.get("mismatched") + counts.get("stock_only_error")
                + counts.get("invalid") + counts.get("known_fixed");
        System.out.flush();
        try {
            cluster.close();
        } catch (Throwable ignored) {
            // exiting anyway
        }
        System.exit(failures > 0 ? 1 : 0);
    }
}
