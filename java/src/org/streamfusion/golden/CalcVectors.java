package org.streamfusion.golden;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Golden vectors for Calc (projections and filters): runs SQL expressions through released
 * Flink 2.3.0 and writes what it computes, or how it fails.
 *
 * <p>Every case reads its input rows from a bounded append stream with exactly the declared
 * column types ({@code f0}, {@code f1}, ...), so the expressions run in Flink's generated
 * runtime code, not in the planner's constant folding. Literals appear only as parameters
 * (lengths, scales, separators). Each expression is written once, in a small builder that
 * renders both its SQL and StreamFusion's Calc IR (with function names instead of opcodes),
 * so the two cannot drift apart.
 *
 * <p>Output: a header line, then one line per case: {@code case}, {@code input} (types),
 * {@code rows}, {@code sql}, {@code exprs} / {@code filter} (IR), {@code legacy_cast}
 * ({@code table.exec.legacy-cast-behaviour}), {@code zone} (the session time zone, when not
 * UTC) and either {@code types} (the resolved result
 * types, nullability dropped) and {@code output} rows, or {@code error} (the class and message
 * of the root cause). Values: {@code null}; BOOLEAN a JSON boolean; integers decimal text;
 * FLOAT/DOUBLE {@code {"bits": raw IEEE hex, "text": Float/Double.toString}}; DECIMAL plain
 * text with the type's scale; strings raw; DATE/TIME/TIMESTAMP ISO text.
 */
public final class CalcVectors {
    static final String GENERATOR = "java/src/org/streamfusion/golden/CalcVectors.java";

    // ------------------------------------------------------------------------------------
    // Expression builder: SQL text and IR JSON side by side.

    static final class X {
        final String sql;
        final String ir;

        X(String sql, String ir) {
            this.sql = sql;
            this.ir = ir;
        }
    }

    static String q(String s) {
        StringBuilder b = new StringBuilder();
        Json.string(b, s);
        return b.toString();
    }

    static X col(int i) {
        return new X("f" + i, "{\"input\":" + i + "}");
    }

    static X lit(String type, String value, String sql) {
        return new X(sql, "{\"literal\":{\"type\":" + q(type) + ",\"value\":"
                + (value == null ? "null" : q(value)) + "}}");
    }

    /** An INT literal. */
    static X i(int v) {
        return lit("INT", Integer.toString(v), Integer.toString(v));
    }

    /**
     * A character string literal: CHAR(n) in Flink. The empty literal is Flink's CHAR(0), which
     * only literals may have; the IR (and StreamFusion's types) spell it STRING.
     */
    static X s(String v) {
        if (v.isEmpty()) {
            return lit("STRING", "", "''");
        }
        return lit("CHAR(" + v.codePointCount(0, v.length()) + ")", v,
                "'" + v.replace("'", "''") + "'");
    }

    static X nul(String type) {
        return lit(type, null, "CAST(NULL AS " + type + ")");
    }

    static String irList(X... xs) {
        StringBuilder b = new StringBuilder("[");
        for (int k = 0; k < xs.length; k++) {
            b.append(k == 0 ? "" : ",").append(xs[k].ir);
        }
        return b.append(']').toString();
    }

    /** A registry call; {@code template} renders its SQL from {0}, {1}, ... */
    static X call(String fn, String template, X... args) {
        String sql = template;
        for (int k = args.length - 1; k >= 0; k--) {
            sql = sql.replace("{" + k + "}", args[k].sql);
        }
        return new X(sql, "{\"call\":{\"fn\":" + q(fn) + ",\"args\":" + irList(args) + "}}");
    }

    /** FN(a, b, ...). */
    static X f(String fn, X... args) {
        StringBuilder t = new StringBuilder(fn).append('(');
        for (int k = 0; k < args.length; k++) {
            t.append(k == 0 ? "" : ", ").append('{').append(k).append('}');
        }
        return call(fn, t.append(')').toString(), args);
    }

    static X bin(String fn, X a, X b) {
        return call(fn, "({0} " + fn + " {1})", a, b);
    }

    static X plus(X a, X b) { return bin("+", a, b); }
    static X minus(X a, X b) { return bin("-", a, b); }
    static X times(X a, X b) { return bin("*", a, b); }
    static X div(X a, X b) { return bin("/", a, b); }
    static X mod(X a, X b) { return call("MOD", "MOD({0}, {1})", a, b); }
    static X rem(X a, X b) { return call("MOD", "({0} % {1})", a, b); }
    static X neg(X a) { return call("NEGATE", "(- {0})", a); }
    static X eq(X a, X b) { return bin("=", a, b); }
    static X ne(X a, X b) { return bin("<>", a, b); }
    static X lt(X a, X b) { return bin("<", a, b); }
    static X le(X a, X b) { return bin("<=", a, b); }
    static X gt(X a, X b) { return bin(">", a, b); }
    static X ge(X a, X b) { return bin(">=", a, b); }

    static X post(String fn, X a) {
        return call(fn, "({0} " + fn + ")", a);
    }

    static X cast(X e, String type) {
        return new X("CAST(" + e.sql + " AS " + type + ")",
                "{\"cast\":{\"expr\":" + e.ir + ",\"type\":" + q(type) + "}}");
    }

    static X tryCast(X e, String type) {
        return new X("TRY_CAST(" + e.sql + " AS " + type + ")",
                "{\"try_cast\":{\"expr\":" + e.ir + ",\"type\":" + q(type) + "}}");
    }

    /** CASE WHEN c0 THEN v0 ... [ELSE e] END: pairs, then an optional else. */
    static X caseWhen(X[] pairs, X otherwise) {
        StringBuilder sql = new StringBuilder("CASE");
        StringBuilder ir = new StringBuilder("{\"case\":{\"when\":[");
        for (int k = 0; k < pairs.length; k += 2) {
            sql.append(" WHEN ").append(pairs[k].sql).append(" THEN ").append(pairs[k + 1].sql);
            ir.append(k == 0 ? "" : ",").append('[').append(pairs[k].ir).append(',')
                    .append(pairs[k + 1].ir).append(']');
        }
        ir.append(']');
        if (otherwise != null) {
            sql.append(" ELSE ").append(otherwise.sql);
            ir.append(",\"else\":").append(otherwise.ir);
        }
        return new X(sql.append(" END").toString(), ir.append("}}").toString());
    }

    static X iff(X c, X a, X b) {
        return new X("IF(" + c.sql + ", " + a.sql + ", " + b.sql + ")",
                "{\"if\":{\"condition\":" + c.ir + ",\"then\":" + a.ir + ",\"else\":" + b.ir
                        + "}}");
    }

    static String sqlList(String sep, X... xs) {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < xs.length; k++) {
            b.append(k == 0 ? "" : sep).append(xs[k].sql);
        }
        return b.toString();
    }

    static X coalesce(X... xs) {
        return new X("COALESCE(" + sqlList(", ", xs) + ")", "{\"coalesce\":" + irList(xs) + "}");
    }

    static X and(X... xs) {
        return new X("(" + sqlList(" AND ", xs) + ")", "{\"and\":" + irList(xs) + "}");
    }

    static X or(X... xs) {
        return new X("(" + sqlList(" OR ", xs) + ")", "{\"or\":" + irList(xs) + "}");
    }

    static X not(X x) {
        return new X("(NOT " + x.sql + ")", "{\"not\":" + x.ir + "}");
    }

    // ------------------------------------------------------------------------------------
    // Cases.

    static final class Case {
        final String name;
        final String[] types;
        final String[][] rows;
        final X[] exprs;
        X filter;
        /** Also run with table.exec.legacy-cast-behaviour enabled, as "<name>_legacy". */
        boolean legacyToo;
        /** Expected to fail the query: run as a job of its own. */
        boolean expectError;
        /** Its legacy variant is expected to fail too. */
        boolean legacyFails;
        /** The session time zone ({@code table.local-time-zone}); UTC when null. */
        String zone;

        Case(String name, String[] types, String[][] rows, X[] exprs) {
            this.name = name;
            this.types = types;
            this.rows = rows;
            this.exprs = exprs;
        }
    }

    final List<Case> cases = new ArrayList<>();

    Case add(String name, String[] types, String[][] rows, X... exprs) {
        Case c = new Case(name, types, rows, exprs);
        cases.add(c);
        return c;
    }

    static String[] t(String... types) {
        return types;
    }

    static String[][] rows(String[]... rows) {
        return rows;
    }

    static String[] r(String... values) {
        return values;
    }

    /** One-column rows. */
    static String[][] col1(String... values) {
        String[][] out = new String[values.length][];
        for (int k = 0; k < values.length; k++) {
            out[k] = new String[] {values[k]};
        }
        return out;
    }

    void arithmetic() {
        X a = col(0), b = col(1);
        String[][] mins = {
            {"TINYINT", "127", "-128"}, {"SMALLINT", "32767", "-32768"},
            {"INT", "2147483647", "-2147483648"},
            {"BIGINT", "9223372036854775807", "-9223372036854775808"}};
        for (String[] m : mins) {
            String ty = m[0];
            add("int_arith_" + ty.toLowerCase(), t(ty, ty),
                    rows(r("7", "2"), r("-7", "2"), r("7", "-2"), r("-7", "-2"), r(m[1], "1"),
                            r(m[2], "-1"), r(m[2], "1"), r(m[1], m[1]), r(m[2], m[2]),
                            r(m[2], "2"), r(null, "1"), r("1", null)),
                    plus(a, b), minus(a, b), times(a, b), div(a, b), rem(a, b), neg(a),
                    mod(a, b));
            add("int_div_zero_" + ty.toLowerCase(), t(ty, ty), rows(r("1", "1"), r("5", "0")),
                    div(a, b)).expectError = true;
            add("int_mod_zero_" + ty.toLowerCase(), t(ty, ty), rows(r("1", "1"), r("5", "0")),
                    rem(a, b)).expectError = true;
        }
        add("int_div_zero_filtered_out", t("INT", "INT"),
                rows(r("6", "3"), r("5", "0"), r("-9", "2")), div(a, b))
                .filter = ne(b, i(0));
        add("int_filter_null_drops", t("INT", "BOOLEAN"),
                rows(r("1", "true"), r("2", "false"), r("3", null)), a).filter = col(1);
        add("int_literal_ops", t("INT"), col1("1", "-5", "2147483647", null),
                plus(a, i(1)), times(a, i(-3)), div(a, i(2)), rem(a, i(3)),
                plus(a, cast(i(10), "BIGINT")));

        // Mixed types: the result types are the point.
        add("mixed_type_arith",
                t("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10, 2)"),
                rows(r("3", "300", "70000", "5000000000", "1.5", "2.25", "12.34"),
                        r("-128", "-32768", "-2147483648", "-9223372036854775808", "-0.1",
                                "1.0E300", "-99999999.99"),
                        r(null, null, null, null, null, null, null)),
                plus(col(0), col(2)), plus(col(2), col(3)), plus(col(2), col(4)),
                plus(col(3), col(5)), plus(col(6), col(2)), times(col(0), col(1)),
                plus(col(1), col(2)), times(col(6), col(3)),
                div(col(2), col(6)), div(col(0), col(2)), minus(col(3), col(0)),
                times(col(6), col(0)), plus(col(0), col(0)), times(col(1), col(1)));
        add("mixed_type_arith_decimal_float", t("DECIMAL(10, 2)", "FLOAT", "DOUBLE"),
                rows(r("12.34", "1.5", "2.25"), r("-99999999.99", "-0.1", "1.0E300"),
                        r(null, null, null)),
                plus(col(0), col(2)), plus(col(0), col(1)), times(col(2), col(0)));
        add("mixed_type_mod",
                t("TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL(10, 2)", "DOUBLE"),
                rows(r("100", "-300", "70000", "-5000000007", "123.45", "7.5"),
                        r("-7", "7", "-3", "9", "-0.07", "-2.0"),
                        r(null, null, null, null, null, null)),
                mod(col(0), col(2)), mod(col(2), col(0)), mod(col(3), col(1)),
                mod(col(2), col(3)), mod(col(4), col(2)), mod(col(2), col(4)),
                rem(col(1), col(0)));
        // A DECIMAL with scale 0 MOD an integer is typed as the integer and computed in a
        // long: a DECIMAL beyond a long wraps to its low 64 bits first.
        add("mod_integral_decimal",
                t("DECIMAL(5, 0)", "INT", "DECIMAL(20, 0)", "BIGINT", "TINYINT"),
                rows(r("12345", "7", "99999999999999999999", "-3", "2"),
                        r("-99999", "-7", "-18446744073709551617", "1000000007", "-5"),
                        r("0", "2147483647", "9223372036854775808", "-9223372036854775808", "127"),
                        r(null, "5", null, "5", null)),
                mod(col(0), col(1)), mod(col(0), i(-7)), mod(col(2), col(1)),
                mod(col(2), col(3)), mod(col(0), col(4)), mod(col(2), col(4)),
                rem(col(0), col(3)));
        add("mod_integral_decimal_by_zero", t("DECIMAL(5, 0)", "INT"), rows(r("5", "0")),
                mod(col(0), col(1)));
        add("float_arith", t("DOUBLE", "DOUBLE", "FLOAT", "FLOAT"),
                rows(r("1.0", "0.0", "1.0", "0.0"), r("-1.0", "0.0", "-1.0", "-0.0"),
                        r("0.0", "0.0", "0.0", "0.0"), r("0.1", "0.2", "0.1", "0.2"),
                        r("NaN", "1.0", "NaN", "1.0"), r("5.5", "-2.0", "5.5", "-2.0"),
                        r("1.0E308", "10.0", "3.4E38", "10.0"), r(null, "1.0", null, "1.0")),
                plus(col(0), col(1)), minus(col(0), col(1)), times(col(0), col(1)),
                div(col(0), col(1)), neg(col(0)), plus(col(2), col(3)), times(col(2), col(3)),
                div(col(2), col(3)), neg(col(3)), plus(col(0), col(2)));
    }

    void decimals() {
        X a = col(0), b = col(1);
        add("decimal_arith", t("DECIMAL(10, 2)", "DECIMAL(5, 3)"),
                rows(r("1.00", "3.000"), r("2.00", "3.000"), r("-2.00", "3.000"),
                        r("12345678.91", "0.007"), r("-0.05", "-0.015"), r("0.00", "1.234"),
                        r("99999999.99", "99.999"), r(null, "1.000"), r("5.00", null)),
                plus(a, b), minus(a, b), times(a, b), div(a, b), rem(a, b), neg(a), neg(b));
        add("decimal_int_ops", t("DECIMAL(10, 2)", "INT", "BIGINT"),
                rows(r("10.25", "3", "-7"), r("-10.25", "-4", "3"), r("0.01", "2147483647", "1"),
                        r(null, "1", "1")),
                plus(a, b), times(a, col(2)), div(a, b), div(b, a), rem(a, b), minus(col(2), a),
                div(col(2), a));
        add("decimal_cap_38", t("DECIMAL(38, 10)", "DECIMAL(38, 10)"),
                rows(r("1.0000000000", "3.0000000000"),
                        r("9999999999999999999999999999.9999999999",
                                "9999999999999999999999999999.9999999999"),
                        r("-1234567890123.4567890123", "0.0000000007"),
                        r("2.5000000000", "-0.0000000003")),
                plus(a, b), minus(a, b), times(a, b), div(a, b), rem(a, b));
        add("decimal_mul_overflow", t("DECIMAL(20, 0)", "DECIMAL(20, 0)"),
                rows(r("99999999999999999999", "99999999999999999999"),
                        r("12345678901234567890", "10"), r("-99999999999999999999", "2")),
                times(a, b), plus(a, b));
        add("decimal_div_scales", t("DECIMAL(38, 0)", "DECIMAL(3, 2)", "DECIMAL(20, 18)"),
                rows(r("10", "3.00", "0.333333333333333333"),
                        r("-99999999999999999999999999999999999999", "0.07",
                                "1.000000000000000001"),
                        r("1", "-9.99", "-0.000000000000000001")),
                div(col(0), col(1)), div(col(1), col(0)), div(col(2), col(1)),
                times(col(2), col(2)), div(col(1), col(2)), plus(col(0), col(2)));
        add("decimal_div_zero", t("DECIMAL(10, 2)", "DECIMAL(5, 3)"),
                rows(r("1.00", "1.000"), r("1.00", "0.000")), div(a, b)).expectError = true;
        add("decimal_mod_zero", t("DECIMAL(10, 2)", "DECIMAL(5, 3)"),
                rows(r("1.00", "1.000"), r("1.00", "0.000")), rem(a, b)).expectError = true;
        add("decimal_div_int_zero", t("DECIMAL(10, 2)", "INT"),
                rows(r("1.00", "1"), r("1.00", "0")), div(a, b)).expectError = true;
        add("decimal_double_ops", t("DECIMAL(10, 2)", "DOUBLE"),
                rows(r("0.10", "0.2"), r("-3.33", "1.0E-10"), r("1.00", "0.0"),
                        r("1.00", "NaN")),
                plus(a, b), times(a, b), div(a, b), gt(a, b), eq(a, b));
    }

    void comparisons() {
        X a = col(0), b = col(1);
        // GREATEST/LEAST: compareTo of the common type (Double.compare for DOUBLE: NaN
        // greatest, -0.0 below 0.0), NULL if any argument is NULL.
        add("greatest_least_numbers", t("INT", "DOUBLE", "BIGINT", "DECIMAL(10, 2)", "FLOAT"),
                rows(r("1", "NaN", "3", "2.50", "0.5"), r("-7", "-0.0", "-7", "-7.00", "0.0"),
                        r("2147483647", "2.5", "-9223372036854775808", "99999999.99", "NaN"),
                        r("0", "0.0", "0", "0.00", "-0.0"), r(null, "1.0", "1", "1.00", "1.0"),
                        r("5", null, "5", "5.00", "5.0")),
                f("GREATEST", a, b), f("LEAST", a, b), f("GREATEST", a, col(2)),
                f("LEAST", a, col(2), col(3)), f("GREATEST", b, col(4)), f("LEAST", b, col(4)),
                f("GREATEST", col(3), a), f("LEAST", col(4), col(4)));
        // TIMESTAMPs of different precisions compare exactly (the coarser widened).
        X epoch = lit("TIMESTAMP(0)", "1970-01-01 00:00:00", "TIMESTAMP '1970-01-01 00:00:00'");
        add("timestamp_precisions_compare", t("TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)"),
                rows(r("1970-01-01 00:00:00", "1970-01-01 00:00:00.000001",
                                "1969-12-31 23:59:59.999999999"),
                        r("1969-12-31 23:59:59.999", "1969-12-31 23:59:59.999",
                                "1970-01-01 00:00:00"),
                        r("0001-01-01 00:00:00", "9999-12-31 23:59:59.999999",
                                "2262-04-11 23:47:16.854775807"),
                        r(null, "1970-01-01 00:00:00", null)),
                ge(a, epoch), lt(col(2), epoch), eq(a, b), lt(a, b), ge(b, epoch),
                and(ge(a, epoch), le(a, lit("TIMESTAMP(0)", "2024-01-01 00:00:00",
                        "TIMESTAMP '2024-01-01 00:00:00'"))));
        // Against TIMESTAMP(9) each value compares as it is, years 0001 and 9999 included.
        add("timestamp_nanos_compare",
                t("TIMESTAMP(3)", "TIMESTAMP(9)", "TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(9)"),
                rows(r("0001-01-01 00:00:00", "1969-12-31 23:59:59.999999999",
                                "0001-01-01 00:00:00", "1969-12-31 23:59:59.999999999"),
                        r("9999-12-31 23:59:59.999", "2262-04-11 23:47:16.854775807",
                                "9999-12-31 23:59:59.999", "2262-04-11 23:47:16.854775807"),
                        r("1970-01-01 00:00:00.001", "1970-01-01 00:00:00.001",
                                "1970-01-01 00:00:00.001", "1970-01-01 00:00:00.000999999"),
                        r("1677-09-21 00:12:43.145", "1677-09-21 00:12:43.145224192",
                                "1677-09-21 00:12:43.146", "1677-09-21 00:12:43.145224192"),
                        r(null, "1970-01-01 00:00:00", "1970-01-01 00:00:00", null)),
                lt(a, b), le(b, a), gt(a, b), ge(a, b), eq(a, b), ne(b, a),
                lt(col(2), col(3)), ge(col(3), col(2)), eq(col(2), col(3)));
        // A NULL DECIMAL argument that Flink casts to the common type is dereferenced.
        add("greatest_null_decimal_cast", t("DECIMAL(10, 2)", "DOUBLE"),
                rows(r("1.50", "2.0"), r(null, "1.0")),
                f("GREATEST", a, b)).expectError = true;
        add("greatest_least_others", t("STRING", "CHAR(3)", "DATE", "DATE", "TIMESTAMP(3)",
                        "TIMESTAMP(3)", "BOOLEAN", "BOOLEAN"),
                rows(r("abc", "abd", "2024-01-01", "1969-12-31", "2024-01-01 00:00:00.001",
                                "2024-01-01 00:00:00", "true", "false"),
                        r("é", "z", "0001-01-01", "9999-12-31", "1969-12-31 23:59:59.999",
                                "1970-01-01 00:00:00", "false", "false"),
                        r("😀", "\uFFFF", "2000-02-29", "2000-02-29", "2000-02-29 12:00:00",
                                "2000-02-29 12:00:00", "true", "true"),
                        r("", "a", null, "2024-01-01", null, "2024-01-01 00:00:00", null, "true")),
                f("GREATEST", a, b), f("LEAST", a, b), f("GREATEST", col(2), col(3)),
                f("LEAST", col(2), col(3)), f("GREATEST", col(4), col(5)),
                f("LEAST", col(4), col(5)), f("GREATEST", col(6), col(7)),
                f("LEAST", col(6), col(7)), f("GREATEST", b, b, a));
        add("double_compare", t("DOUBLE", "DOUBLE"),
                rows(r("NaN", "NaN"), r("NaN", "1.0"), r("1.0", "NaN"), r("-0.0", "0.0"),
                        r("0.0", "-0.0"), r("1.0", "2.0"), r("Infinity", "Infinity"),
                        r("-Infinity", "1.0E308"), r(null, "1.0"), r("1.0", null)),
                eq(a, b), ne(a, b), lt(a, b), le(a, b), gt(a, b), ge(a, b));
        add("float_compare", t("FLOAT", "FLOAT"),
                rows(r("NaN", "NaN"), r("-0.0", "0.0"), r("1.5", "1.25"), r("NaN", "0.0")),
                eq(a, b), ne(a, b), lt(a, b), ge(a, b));
        add("mixed_compare", t("INT", "BIGINT", "DOUBLE", "DECIMAL(10, 2)", "TINYINT", "FLOAT"),
                rows(r("1", "1", "1.0", "1.00", "1", "1.0"),
                        r("2147483647", "2147483648", "2.147483647E9", "2.50", "-1", "0.1"),
                        r("-3", "-3", "-3.0000001", "-3.00", "-3", "-3.0"),
                        r(null, "1", null, "0.10", null, "0.1")),
                eq(col(0), col(1)), lt(col(0), col(1)), eq(col(0), col(2)), gt(col(0), col(2)),
                eq(col(3), col(0)), gt(col(3), col(4)), eq(col(4), col(0)), eq(col(0), i(1)),
                ge(col(3), i(1)));
        // FLOAT with DOUBLE: Flink's common type depends on the operand order.
        add("float_double_operand_order", t("FLOAT", "DOUBLE"),
                rows(r("-0.1", "1.0E300"), r("1.5", "2.25"), r("-3.0", "-3.0000001"),
                        r("0.1", "0.1"), r(null, "1.0")),
                plus(col(0), col(1)), plus(col(1), col(0)), times(col(0), col(1)),
                minus(col(1), col(0)), eq(col(0), col(1)), eq(col(1), col(0)),
                lt(col(0), col(1)), coalesce(col(0), col(1)), coalesce(col(1), col(0)));
        add("mixed_compare_decimal_float", t("DECIMAL(10, 2)", "DOUBLE", "FLOAT"),
                rows(r("1.00", "1.0", "1.0"), r("2.50", "2.147483647E9", "0.1"),
                        r("0.10", "0.1", "0.1"), r(null, "1.0", "1.0")),
                eq(col(0), col(1)), lt(col(0), col(1)), eq(col(0), col(2)));
        // `<` and friends keep their operands (Calcite's Consistency.COMPARE): FLOAT widens to
        // DOUBLE as a Java primitive; DECIMAL against DOUBLE/FLOAT is Double.compare.
        add("ordering_mixed_approximate_decimal", t("FLOAT", "DOUBLE", "DECIMAL(10, 2)"),
                rows(r("1.0E21", "1.0E21", "0.10"), r("0.0", "4.9E-324", "0.00"),
                        r("NaN", "NaN", "0.10"), r("-0.0", "-0.0", "0.00"),
                        r("0.1", "0.1", "0.10"), r("-1.5", "Infinity", "-1.50"),
                        r(null, "1.0", null)),
                gt(col(0), col(1)), lt(col(0), col(1)), ge(col(1), col(0)), le(col(1), col(0)),
                gt(col(1), col(2)), lt(col(1), col(2)), ge(col(1), col(2)), le(col(2), col(1)),
                gt(col(0), col(2)), lt(col(2), col(0)));
        // An IN list of FLOAT/DOUBLE points is a hash set test (SearchOperatorGen): bit
        // equality, so -0.0 is not 0.0 and NaN is NaN; NOT IN is its complement.
        X inSet0 = call("= (IN set)", "{0}", col(0), lit("DOUBLE", "0.0", "0.0E0"));
        X inSet1 = call("= (IN set)", "{0}", col(0), lit("DOUBLE", "2.5", "2.5E0"));
        add("double_in_list_bit_equality", t("DOUBLE"),
                rows(r("0.0"), r("-0.0"), r("2.5"), r("NaN"), r("1.0"), r((String) null)),
                new X("(" + col(0).sql + " IN (0.0E0, 2.5E0))", or(inSet0, inSet1).ir),
                new X("(" + col(0).sql + " NOT IN (0.0E0, 2.5E0))",
                        not(or(inSet0, inSet1)).ir));
        add("string_compare", t("STRING", "STRING"),
                rows(r("a", "b"), r("é", "z"), r("Z", "a"), r("ab", "a"), r("€", "😀"),
                        r("", "a"), r("abc", "abc"), r("ﬀ", "😀"), r("a", null)),
                eq(a, b), ne(a, b), lt(a, b), le(a, b), gt(a, b), ge(a, b), eq(a, s("abc")),
                lt(a, s("b")));
        add("char_varchar_compare", t("CHAR(3)", "VARCHAR(5)"),
                rows(r("ab", "ab"), r("abc", "abc"), r("ab ", "ab "), r("x", "y")),
                eq(a, b), lt(a, b), eq(a, s("ab")), eq(b, s("ab")), f("CHAR_LENGTH", a));
        add("boolean_compare", t("BOOLEAN", "BOOLEAN"),
                rows(r("true", "false"), r("false", "false"), r("true", null)),
                eq(a, b), lt(a, b), gt(a, b));
        add("predicates", t("INT", "BOOLEAN", "STRING"),
                rows(r("1", "true", "x"), r(null, "false", null), r("0", null, "")),
                post("IS NULL", a), post("IS NOT NULL", a), post("IS NULL", col(2)),
                post("IS TRUE", b), post("IS FALSE", b), post("IS NOT TRUE", b),
                post("IS NOT FALSE", b), post("IS TRUE", gt(a, i(0))),
                post("IS NOT NULL", col(2)));
        String[][] tri = new String[9][];
        String[] vs = {"true", "false", null};
        for (int x = 0; x < 3; x++) {
            for (int y = 0; y < 3; y++) {
                tri[3 * x + y] = new String[] {vs[x], vs[y]};
            }
        }
        add("three_valued_logic", t("BOOLEAN", "BOOLEAN"), tri, and(a, b), or(a, b), not(a),
                and(a, not(b), or(b, a)), or(not(a), post("IS NULL", b)));
        add("filter_three_valued", t("BOOLEAN", "BOOLEAN", "INT"),
                new String[][] {
                    {"true", "true", "1"}, {"true", "false", "2"}, {"true", null, "3"},
                    {"false", null, "4"}, {null, null, "5"}, {null, "true", "6"}},
                col(2)).filter = or(and(a, b), post("IS NULL", b));
    }

    void conditionals() {
        X a = col(0), b = col(1), c = col(2);
        add("case_when", t("INT", "BIGINT", "STRING"),
                rows(r("5", "50", "x"), r("-5", "-50", null), r("0", null, "zz"),
                        r(null, "7", "w")),
                caseWhen(new X[] {gt(a, i(0)), a}, b),
                caseWhen(new X[] {post("IS NULL", c), s("none")}, c),
                caseWhen(new X[] {eq(a, i(5)), times(a, i(2))}, null),
                caseWhen(new X[] {gt(a, i(0)), cast(a, "DECIMAL(5, 2)")},
                        cast(b, "DECIMAL(12, 1)")),
                caseWhen(new X[] {gt(a, i(0)), div(b, a)}, i(-1)),
                caseWhen(new X[] {gt(a, i(0)), s("abc"), lt(a, i(0)), s("xyz")}, null));
        add("case_decimal_double", t("INT", "BIGINT"), rows(r("5", "50"), r("-5", "-50")),
                caseWhen(new X[] {gt(a, i(0)), cast(a, "DECIMAL(5, 2)")}, cast(b, "DOUBLE")));
        add("case_char_literals", t("INT"), col1("5", "-5", "0", null),
                caseWhen(new X[] {gt(a, i(0)), s("pos"), lt(a, i(0)), s("negative")}, null),
                caseWhen(new X[] {gt(a, i(0)), s("yes"), lt(a, i(0)), s("no")}, s("zero")));
        add("case_guards_division", t("INT", "INT"),
                rows(r("10", "2"), r("10", "0"), r("-7", "0")),
                caseWhen(new X[] {eq(b, i(0)), i(0)}, div(a, b)),
                iff(ne(b, i(0)), rem(a, b), i(-1)),
                coalesce(nul("INT"), caseWhen(new X[] {ne(b, i(0)), div(a, b)}, null), i(99)));
        add("if_fn", t("INT", "BIGINT", "BOOLEAN"),
                rows(r("1", "10", "true"), r("-1", "20", "false"), r(null, "30", null)),
                iff(gt(a, i(0)), a, b), iff(c, a, nul("INT")),
                iff(post("IS NULL", a), s("null"), s("seta")));
        add("if_char_literals", t("BOOLEAN"), col1("true", "false", null),
                iff(col(0), s("x"), s("yy")));
        add("coalesce_fn", t("INT", "BIGINT", "STRING", "DECIMAL(4, 1)"),
                rows(r("1", "2", "a", "1.5"), r(null, "2", null, null), r(null, null, null,
                        "-2.5")),
                coalesce(a, b), coalesce(c, s("none")), coalesce(a, i(0)),
                coalesce(col(3), a), coalesce(a, col(3), cast(b, "DECIMAL(20, 0)")),
                coalesce(nul("INT"), a));
    }

    void functionsBasic() {
        add("abs_ints", t("TINYINT", "SMALLINT", "INT", "BIGINT"),
                rows(r("-128", "-32768", "-2147483648", "-9223372036854775808"),
                        r("-5", "7", "-9", "0"), r(null, null, null, null)),
                f("ABS", col(0)), f("ABS", col(1)), f("ABS", col(2)), f("ABS", col(3)));
        add("abs_floats", t("DOUBLE", "FLOAT", "DECIMAL(6, 3)"),
                rows(r("-0.0", "-0.0", "-1.250"), r("-Infinity", "-1.5", "0.000"),
                        r("NaN", "NaN", "999.999"), r("-1.0E-300", "3.0", null)),
                f("ABS", col(0)), f("ABS", col(1)), f("ABS", col(2)));
        add("char_length_md5_unicode", t("STRING"),
                col1("", "abc", "é", "€uro", "😀x", "ß", "日本語", null),
                f("CHAR_LENGTH", col(0)), f("MD5", col(0)));
    }

    void casts() {
        X a = col(0);
        String[] strInts = {"12", " 12 ", "+7", "-7", "1.9", "-1.9", "2147483647",
            "2147483648", "-2147483648", "abc", "", "1e3", "\t5", "0x10", " - 5", "12a", "1.",
            ".5", "+", "00012", "  -0  ", "1.2.3", "١٢", null};
        add("try_cast_string_to_numbers", t("STRING"), col1(strInts),
                tryCast(a, "INT"), tryCast(a, "TINYINT"), tryCast(a, "BIGINT"),
                tryCast(a, "DOUBLE"), tryCast(a, "FLOAT"), tryCast(a, "BOOLEAN"));
        add("try_cast_string_to_decimal", t("STRING"), col1(strInts),
                tryCast(a, "DECIMAL(5, 2)"), tryCast(a, "DECIMAL(38, 0)"));
        add("cast_string_to_int_ok", t("STRING"),
                col1("12", " 12 ", "+7", "-7", "1.9", "-1.9", "2147483647", "-2147483648",
                        "00012", null),
                cast(a, "INT"), cast(a, "BIGINT")).legacyToo = true;
        add("cast_string_to_decimal_ok", t("STRING"),
                col1("12", " 12 ", "+7", "-7", "1.96", "-1.95", "2147483647", "00012", null),
                cast(a, "DECIMAL(12, 1)")).legacyToo = true;
        for (String[] bad : new String[][] {
            {"abc", "INT"}, {"2147483648", "INT"}, {"", "INT"}, {"1e3", "INT"},
            {"\t5", "INT"}, {"12a", "BIGINT"}, {"300", "TINYINT"}, {"abc", "DECIMAL(5, 2)"},
            {"1234.5", "DECIMAL(5, 2)"}, {"abc", "DOUBLE"}, {"maybe", "BOOLEAN"},
            {" yes ", "BOOLEAN"}, {"Off", "BOOLEAN"}, {"40000", "SMALLINT"}}) {
            String name = "cast_string_error_" + bad[1].replaceAll("[^A-Za-z0-9]", "").toLowerCase()
                    + "_" + bad[0].replaceAll("[^A-Za-z0-9]", "x");
            Case c = add(name, t("STRING"), col1("1", bad[0]), cast(a, bad[1]));
            c.legacyToo = true;
            c.expectError = true;
        }
        add("cast_string_to_boolean", t("STRING"),
                col1("true", "TRUE", "false", "1", "0", "no", "n", "t", "yes", "y", "f", null),
                cast(a, "BOOLEAN")).legacyToo = true;
        add("cast_string_to_decimal_double", t("STRING"),
                col1("1.005", "-1.005", " 3.14159 ", "1e2", "-0", "123.454", "NaN",
                        "Infinity", "1.0E-5", "0x1p3"),
                tryCast(a, "DECIMAL(5, 2)"), tryCast(a, "DOUBLE"), tryCast(a, "DECIMAL(38, 18)"));
        add("cast_double_to_ints", t("DOUBLE"),
                col1("1.9", "-1.9", "0.5", "-0.5", "NaN", "1.0E20", "-1.0E20", "Infinity",
                        "2.1474836475E9", "-0.0", "127.9", "128.0", null),
                cast(a, "INT"), cast(a, "BIGINT"), cast(a, "TINYINT"), cast(a, "SMALLINT"),
                cast(a, "FLOAT")).legacyToo = true;
        add("cast_double_to_decimal", t("DOUBLE"),
                col1("1.005", "-1.005", "2.675", "123456.789", "0.1", "1.0E-7", "-0.0", null),
                cast(a, "DECIMAL(10, 2)"), cast(a, "DECIMAL(5, 1)"), cast(a, "DECIMAL(38, 18)"))
                .legacyToo = true;
        Case nan = add("cast_double_nan_to_decimal", t("DOUBLE"), col1("1.0", "NaN"),
                cast(a, "DECIMAL(10, 2)"));
        nan.legacyToo = true;
        nan.expectError = true;
        nan.legacyFails = true;
        add("cast_int_narrowing", t("INT", "BIGINT"),
                rows(r("300", "3000000000"), r("-129", "-9223372036854775808"),
                        r("127", "2147483647"), r(null, null)),
                cast(col(0), "TINYINT"), cast(col(0), "SMALLINT"), cast(col(1), "INT"),
                cast(col(1), "TINYINT"), cast(col(0), "DECIMAL(2, 0)"),
                cast(col(1), "DECIMAL(10, 0)"), cast(col(1), "FLOAT"),
                cast(col(1), "DOUBLE"), cast(col(0), "BOOLEAN")).legacyToo = true;
        add("cast_decimal_to_decimal", t("DECIMAL(10, 4)"),
                col1("1.2345", "1.2355", "-1.2345", "-1.2355", "999999.9999", "0.0050",
                        "-0.0049", null),
                cast(a, "DECIMAL(6, 2)"), cast(a, "DECIMAL(5, 1)"), cast(a, "DECIMAL(3, 0)"),
                cast(a, "DECIMAL(20, 8)"), cast(a, "INT"), cast(a, "DOUBLE"),
                cast(a, "TINYINT"), cast(a, "BIGINT")).legacyToo = true;
        add("cast_numbers_to_string",
                t("INT", "BIGINT", "DOUBLE", "FLOAT", "DECIMAL(10, 3)", "BOOLEAN", "TINYINT"),
                rows(r("1", "-9223372036854775808", "1.0E-5", "1.0E-5", "1.500", "true", "-1"),
                        r("-2147483648", "0", "100.0", "100.0", "-0.001", "false", "127"),
                        r("0", "7", "1.0E7", "1.0E7", "0.000", null, "0"),
                        r("42", "12", "0.1", "0.1", "1234567.000", "true", null),
                        r("7", "1", "NaN", "NaN", "-1.000", "false", "5"),
                        r("7", "1", "-0.0", "-0.0", "7.123", "true", "5"),
                        r("7", "1", "1234567.0", "1234567.0", "7.123", "true", "5"),
                        r("7", "1", "0.001", "0.001", "7.123", "true", "5"),
                        r("7", "1", "9999999.0", "9999999.0", "7.123", "true", "5"),
                        r("7", "1", "1.0E-300", "1.4E-45", "7.123", "true", "5"),
                        r("7", "1", "Infinity", "-Infinity", "7.123", "true", "5"),
                        r("7", "1", "123456789.123", "3.4028235E38", "7.123", "true", "5"),
                        r(null, null, null, null, null, null, null)),
                cast(col(0), "STRING"), cast(col(1), "STRING"), cast(col(2), "STRING"),
                cast(col(3), "STRING"), cast(col(4), "STRING"), cast(col(5), "STRING"),
                cast(col(6), "STRING"), cast(col(0), "VARCHAR(3)"), cast(col(2), "CHAR(4)"),
                cast(col(4), "VARCHAR(20)"));
        add("cast_string_to_string", t("STRING"), col1("abcdef", "ab", "", "日本語です", null),
                cast(a, "VARCHAR(3)"), cast(a, "CHAR(3)"), cast(a, "CHAR(8)"),
                cast(a, "VARCHAR(10)"));
        add("cast_boolean_int", t("BOOLEAN", "INT"),
                rows(r("true", "0"), r("false", "5"), r(null, "-1")),
                cast(col(0), "INT"), cast(col(1), "BOOLEAN"), cast(col(0), "DECIMAL(3, 1)"),
                cast(col(0), "DOUBLE"));
    }

    void math() {
        X a = col(0), m = col(1);
        String[][] rs = rows(r("2.5", "2.500"), r("-2.5", "-2.500"), r("1.005", "1.005"),
                r("123.456", "123.456"), r("-123.456", "-123.456"), r("0.5", "0.500"),
                r("1.0E300", "9999.999"), r("-0.0", "0.000"), r("0.015", "0.015"),
                r("2.675", "2.675"), r("1.0E-20", "-0.001"));
        add("round_double_decimal", t("DOUBLE", "DECIMAL(7, 3)"), rs,
                f("ROUND", a, i(0)), f("ROUND", a, i(2)), f("ROUND", a, i(-1)), f("ROUND", a),
                f("ROUND", m, i(1)), f("ROUND", m, i(-1)), f("ROUND", m, i(0)), f("ROUND", m),
                f("ROUND", m, i(5)), f("ROUND", m, i(-4)));
        String[][] small = Arrays.stream(rs).filter(row -> !row[0].equals("1.0E300"))
                .toArray(String[][]::new);
        add("truncate_double_huge", t("DOUBLE"), col1("1.5", "1.0E300"),
                f("TRUNCATE", a, i(1))).expectError = true;
        add("truncate_double", t("DOUBLE", "DECIMAL(7, 3)"), small,
                f("TRUNCATE", a, i(0)), f("TRUNCATE", a, i(2)), f("TRUNCATE", a, i(-1)),
                f("TRUNCATE", a));
        add("truncate_decimal", t("DOUBLE", "DECIMAL(7, 3)"), rs,
                f("TRUNCATE", m, i(1)), f("TRUNCATE", m, i(0)), f("TRUNCATE", m));
        add("truncate_decimal_negative_1", t("DECIMAL(7, 3)"), col1("123.456", "-9999.999"),
                f("TRUNCATE", a, i(-1))).expectError = true;
        add("truncate_decimal_negative_4", t("DECIMAL(7, 3)"), col1("123.456", "-9999.999"),
                f("TRUNCATE", a, i(-4))).expectError = true;
        add("round_truncate_double_null", t("DOUBLE"), col1("1.5", null),
                f("ROUND", a, i(0)), f("TRUNCATE", a, i(1)), f("ROUND", a));
        add("round_decimal_null", t("DECIMAL(7, 3)"), col1("1.500", null),
                f("ROUND", a, i(0)), f("ROUND", a));
        add("truncate_decimal_null", t("DECIMAL(7, 3)"), col1("1.500", null),
                f("TRUNCATE", a, i(1))).expectError = true;
        add("round_double_nan", t("DOUBLE"), col1("1.5", "NaN"), f("ROUND", a, i(1)))
                .expectError = true;
        add("truncate_double_nan", t("DOUBLE"), col1("1.5", "NaN"), f("TRUNCATE", a, i(1)))
                .expectError = true;
        add("round_double_infinity", t("DOUBLE"), col1("1.5", "Infinity"), f("ROUND", a))
                .expectError = true;
        add("round_ints", t("INT", "BIGINT"),
                rows(r("1234", "-9223372036854775808"), r("-1255", "1255"), r("5", "15")),
                f("ROUND", col(0), i(-1)), f("ROUND", col(0), i(-2)), f("ROUND", col(1), i(-1)),
                f("ROUND", col(0), i(1)), f("TRUNCATE", col(0), i(-2)));
        add("power_sqrt_ln_exp", t("DOUBLE", "INT"),
                rows(r("2.0", "2"), r("-4.0", "-4"), r("0.0", "0"), r("1.0E308", "10"),
                        r("NaN", "1"), r("-0.0", "-1"), r("0.5", null)),
                f("POWER", a, i(2)), f("POWER", m, cast(a, "INT")), f("POWER", m, i(-1)),
                f("POWER", a, a), f("SQRT", a), f("SQRT", m), f("LN", a), f("LN", m),
                f("LOG10", a), f("LOG10", m), f("EXP", a), f("EXP", m));
        add("hyperbolic", t("DOUBLE"), col1("0.0", "-0.0", "1.0", "-1.0", "710.0", "NaN", null),
                f("COSH", a), f("SINH", a), f("TANH", a));
        add("floor_ceil_sign", t("DOUBLE", "DECIMAL(7, 2)", "INT"),
                rows(r("1.5", "1.50", "3"), r("-1.5", "-1.50", "-3"), r("-0.0", "0.00", "0"),
                        r("2.0", "99999.99", "7"), r("-0.5", "-0.01", null),
                        r("NaN", "-99999.99", "1")),
                f("FLOOR", a), f("CEIL", a), f("FLOOR", m), f("CEIL", m), f("SIGN", a),
                f("SIGN", m), f("SIGN", col(2)), f("FLOOR", col(2)), f("CEIL", col(2)));
        X b = col(1);
        add("logs_and_trig", t("DOUBLE", "DOUBLE"),
                rows(r("2.0", "8.0"), r("0.5", "0.25"), r("-1.0", "1.0"), r("0.0", "-0.0"),
                        r("NaN", "1.0"), r("1.0E-300", "3.0"), r("3.141592653589793", "-2.5"),
                        r(null, "1.0")),
                f("LOG", a), f("LOG", a, b), f("LOG2", a), f("SIN", a), f("COS", a), f("TAN", a),
                f("ASIN", a), f("ACOS", a), f("ATAN", a), f("ATAN2", a, b), f("COT", a),
                f("DEGREES", a), f("RADIANS", a), call("PI", "PI()"), call("E", "E()"));
        add("rand_seeded", t("INT"), col1("1", "2", "3", "4", "5", "6"),
                f("RAND", i(42)), f("RAND_INTEGER", i(7), i(100)));
    }

    void strings() {
        X a = col(0), b = col(1);
        add("upper_lower", t("STRING"),
                col1("abc", "ß", "İstanbul", "ı", "ǅ", "Ärger", "straße", "ΣΑΣ", "ﬀ", null),
                f("UPPER", a), f("LOWER", a), f("INITCAP", a));
        add("initcap", t("STRING"),
                col1("hello world", "HELLO wORLD", "a-b c_d", "123abc x", "  two  spaces",
                        "élan vital", "o'neil", null),
                f("INITCAP", a));
        String[][] subs = col1("hello", "日本語です", "", "a", null);
        add("substring", t("STRING"), subs,
                call("SUBSTRING", "SUBSTRING({0} FROM {1})", a, i(2)),
                call("SUBSTRING", "SUBSTRING({0} FROM {1})", a, i(0)),
                call("SUBSTRING", "SUBSTRING({0} FROM {1})", a, i(-2)),
                call("SUBSTRING", "SUBSTRING({0} FROM {1} FOR {2})", a, i(2), i(3)),
                call("SUBSTRING", "SUBSTRING({0} FROM {1} FOR {2})", a, i(-3), i(2)),
                call("SUBSTRING", "SUBSTRING({0} FROM {1} FOR {2})", a, i(0), i(2)),
                call("SUBSTRING", "SUBSTRING({0} FROM {1})", a, i(10)),
                call("SUBSTRING", "SUBSTRING({0} FROM {1} FOR {2})", a, i(1), i(0)),
                call("SUBSTRING", "SUBSTRING({0} FROM {1} FOR {2})", a, i(-10), i(3)));
        add("substring_negative_length", t("STRING"), col1("hello"),
                call("SUBSTRING", "SUBSTRING({0} FROM {1} FOR {2})", a, i(1), i(-1)));
        add("concat", t("STRING", "STRING"),
                rows(r("ab", "cd"), r("ab", null), r(null, null), r("", "日本")),
                f("CONCAT", a, b), f("CONCAT", a, s("-"), b), f("CONCAT_WS", s("-"), a, b),
                f("CONCAT_WS", a, s("x"), s("y")), f("CONCAT_WS", s(""), a, b),
                f("CONCAT", a));
        add("trim", t("STRING"),
                col1("  ab  ", "xxabxx", "\tab\t", "ab", "   ", "", "xyx", " 日本 ", null),
                call("TRIM_BOTH", "TRIM({0})", a),
                call("TRIM_BOTH", "TRIM(BOTH {1} FROM {0})", a, s("x")),
                call("TRIM_LEADING", "TRIM(LEADING {1} FROM {0})", a, s("x")),
                call("TRIM_TRAILING", "TRIM(TRAILING {1} FROM {0})", a, s("x")),
                f("LTRIM", a), f("RTRIM", a),
                call("TRIM_BOTH", "TRIM(BOTH {1} FROM {0})", a, s("xy")),
                call("TRIM_LEADING", "TRIM(LEADING {0})", a));
        add("lpad_rpad", t("STRING", "INT"),
                rows(r("abc", "5"), r("abc", "2"), r("abc", "0"), r("abc", "-1"),
                        r("", "3"), r("日本", "4"), r(null, "3"), r("abc", null)),
                f("LPAD", a, b, s("xy")), f("RPAD", a, b, s("xy")), f("LPAD", a, b, s("")),
                f("RPAD", a, i(6), s("é")), f("LPAD", a, i(3), s("-")));
        add("replace_position", t("STRING", "STRING"),
                rows(r("banana", "an"), r("banana", ""), r("日本日本", "本"), r("aaa", "aa"),
                        r(null, "a"), r("abc", null)),
                f("REPLACE", a, b, s("X")), f("REPLACE", a, s("a"), b),
                call("POSITION", "POSITION({0} IN {1})", b, a),
                call("POSITION", "POSITION({0} IN {1})", s("n"), a));
        add("regexp", t("STRING"),
                col1("foo123bar45", "abc", "a1b22c333", "", "日本123", null),
                f("REGEXP_EXTRACT", a, s("([a-z]+)(\\d+)"), i(2)),
                f("REGEXP_EXTRACT", a, s("\\d+")),
                f("REGEXP_EXTRACT", a, s("([a-z]+)(\\d+)"), i(0)),
                f("REGEXP_REPLACE", a, s("\\d+"), s("#")),
                f("REGEXP_REPLACE", a, s("(\\d)"), s("<$1>")),
                f("REGEXP_REPLACE", a, s(""), s("-")));
        add("regexp_match", t("STRING", "STRING"),
                rows(r("ab\n", "b$"), r("abc", ""), r("abc", "("), r("ABC", "(?i)b"),
                        r("abc", null), r(null, "a"), r("xaay", "(a)\\1")),
                f("REGEXP", a, b), f("REGEXP", a, s("c$")), f("REGEXP", a, s("[")));
        add("regexp_extract_bad_group", t("STRING"), col1("foo123"),
                f("REGEXP_EXTRACT", a, s("([a-z]+)"), i(3)));
        add("split_index", t("STRING"),
                col1("a,b,,c", ",a", "abc", "", "日,本", null),
                f("SPLIT_INDEX", a, s(","), i(0)), f("SPLIT_INDEX", a, s(","), i(2)),
                f("SPLIT_INDEX", a, s(","), i(3)), f("SPLIT_INDEX", a, s(","), i(-1)),
                f("SPLIT_INDEX", a, s(",b"), i(1)));
        add("hashes", t("STRING"), col1("", "abc", "日本語", "The quick brown fox", null),
                f("MD5", a), f("SHA1", a), f("SHA256", a), f("SHA2", a, i(512)),
                f("SHA2", a, i(224)), f("SHA2", a, i(384)), f("SHA2", a, i(256)));
        add("sha_functions", t("STRING"), col1("", "abc", "日本語", null),
                f("SHA224", a), f("SHA384", a), f("SHA512", a));
        add("concat_operator_like", t("STRING", "STRING"),
                rows(r("abc", "x"), r("ab%c", "_"), r("", "é"), r(null, "y"), r("日本", null),
                        r("a\nb", "z")),
                bin("||", a, b), call("LIKE", "({0} LIKE {1})", a, s("a%")),
                call("LIKE", "({0} LIKE {1})", a, s("%b_c%")),
                call("LIKE", "({0} LIKE {1} ESCAPE {2})", a, s("ab!%%"), s("!")),
                call("LIKE", "({0} LIKE {1})", a, b));
        // SIMILAR TO: Flink's rewrite to a Java regex (`.` and `*` keep their regex meaning,
        // `$` and `\` are literal, `[:CLASS:]` inside brackets) matched against all of s.
        add("similar_to", t("STRING", "STRING"),
                rows(r("abc", "a%"), r("a", "(a|b)%"), r("ab", "[a-c]+"), r("ba", "_a"),
                        r("a\nb", "a%"), r("ab$", "%$"), r("a\\b", "a\\b"),
                        r("x%y", "x!%y"), r("日本", "__"), r("", "%"), r(null, "%"),
                        r("abc", null), r("Abc9", "[[:ALPHA:]]+[[:DIGIT:]]")),
                similar(a, s("a.*")), similar(a, s("(a|b)%")), similar(a, s("[a-c]+")),
                not(similar(a, s("%b"))), similar(a, s("a_")), similar(a, s("%(x)%")),
                similar(a, s("ab$")), similar(a, s("a\\b")), similar(a, s("[^[:lower:]]%")),
                similar(a, s("%[[:digit:]]")), similar(a, s("(ab)+|a*")),
                call("SIMILAR TO", "({0} SIMILAR TO {1} ESCAPE {2})", a, s("x!%y"), s("!")),
                similar(a, b));
        add("similar_to_unclosed_bracket", t("STRING"), col1("a"), similar(a, s("[ab")));
        add("similar_to_invalid_java_regex", t("STRING"), col1("a"), similar(a, s("(a")));
        add("similar_to_null_rows_skip_the_pattern", t("STRING"), col1((String) null),
                similar(a, s("a]")));
    }

    static X similar(X a, X pattern) {
        return call("SIMILAR TO", "({0} SIMILAR TO {1})", a, pattern);
    }

    /** Every column encoding the harness reads, passed through unchanged. */
    void passThrough() {
        add("pass_through_typed_columns",
                t("DATE", "TIME(0)", "TIMESTAMP(3)", "TIMESTAMP(9)", "TIMESTAMP_LTZ(3)",
                        "BYTES", "BINARY(3)"),
                rows(r("2024-02-29", "23:59:59", "2024-02-29 23:59:59.123",
                                "1969-12-31 23:59:59.999999999", "1970-01-01 00:00:00.001",
                                "00ff7f", "010203"),
                        r("0001-01-01", "00:00:00", "9999-12-31 00:00:00.000",
                                "2000-01-01 00:00:00.000000001", "1900-06-30 12:00:00.5",
                                "", "000000"),
                        r(null, null, null, null, null, null, null)),
                col(0), col(1), col(2), col(3), col(4), col(5), col(6));
        add("pass_through_nested_columns",
                t("ARRAY<INT>", "ARRAY<STRING>", "MAP<STRING, BIGINT>", "ROW<a INT, b STRING>",
                        "ARRAY<ARRAY<DECIMAL(5, 2)>>"),
                rows(r("[1, null, -3]", "[\"a\", null, \"\u00e9\"]", "[[\"x\", 1], [\"y\", null]]",
                                "[7, \"q\"]", "[[\"1.50\", null], [], null]"),
                        r("[]", "[]", "[]", "[null, null]", "[]"),
                        r(null, null, null, null, null)),
                col(0), col(1), col(2), col(3), col(4));
    }

    // ------------------------------------------------------------------------------------
    // Running.

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: CalcVectors <output path>");
            System.exit(2);
        }
        CalcVectors g = new CalcVectors();
        g.arithmetic();
        g.decimals();
        g.comparisons();
        g.conditionals();
        g.functionsBasic();
        g.casts();
        g.math();
        g.strings();
        g.passThrough();
        TemporalCases.register(g);
        IntervalCases.register(g);
        ZoneCases.register(g);
        CollectionCases.register(g);
        ValueCases.register(g);
        StringCases.register(g);
        RangeCases.register(g);
        JsonCases.register(g);
        Set<String> names = new LinkedHashSet<>();
        for (Case c : g.cases) {
            if (!names.add(c.name) || (c.legacyToo && !names.add(c.name + "_legacy"))) {
                throw new IllegalStateException("duplicate case " + c.name);
            }
        }

        StringBuilder out = new StringBuilder(1 << 20);
        out.append("{\"flink\":\"2.3.0\",\"generator\":").append(q(GENERATOR))
                .append(",\"format\":");
        Json.string(out, "per case one line: case, input (types), rows, sql, exprs and filter"
                + " (Calc IR with function names), legacy_cast, zone (session time zone, if not"
                + " UTC), then types and output, or error"
                + " {class, message} of the root cause; values: null, booleans, integers as"
                + " decimal text, FLOAT/DOUBLE {bits: raw IEEE hex, text: Java toString},"
                + " DECIMAL plain text with the type's scale, strings raw, binaries hex,"
                + " DATE yyyy-MM-dd, TIME HH:mm:ss.nnnnnnnnn, TIMESTAMP/TIMESTAMP_LTZ (UTC)"
                + " yyyy-MM-dd HH:mm:ss.nnnnnnnnn, ARRAY/ROW arrays, MAP [key, value] pairs"
                + " sorted by encoded text");
        out.append("}\n");

        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        // Every case is its own pipeline in one job, with chaining off: the default 64 MiB of
        // network buffers runs out (and the fallback runs each case as a job of its own).
        conf.setString("taskmanager.memory.network.min", "512mb");
        conf.setString("taskmanager.memory.network.max", "512mb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        // Rows reach Calc serialized (as in any real pipeline), so strings are binary: with
        // chaining, Flink's converted input keeps Java strings, whose comparison takes
        // String.compareTo (UTF-16 order) instead of BinaryStringData's byte order.
        env.disableOperatorChaining();
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        // Cases expected to fail run as jobs of their own (a failure fails the whole job);
        // all others run together in one job, each pipeline's rows tagged with its index.
        List<Run> runs = new ArrayList<>();
        for (Case c : g.cases) {
            runs.add(new Run(c, false));
            if (c.legacyToo) {
                runs.add(new Run(c, true));
            }
        }
        DataStream<String> together = null;
        for (int n = 0; n < runs.size(); n++) {
            Run run = runs.get(n);
            if (run.alone()) {
                run.prepare(env, tEnv);
                run.collectAlone();
            } else {
                DataStream<String> tagged = run.prepare(env, tEnv).map(new Tag(n));
                together = together == null ? tagged : together.union(tagged);
            }
        }
        boolean failed = false;
        if (together != null) {
            try (CloseableIterator<String> it = together.executeAndCollect("calc-vectors")) {
                while (it.hasNext()) {
                    String line = it.next();
                    int tab = line.indexOf('\t');
                    runs.get(Integer.parseInt(line.substring(0, tab))).output
                            .add(line.substring(tab + 1));
                }
            } catch (Exception e) {
                failed = true;
                e.printStackTrace();
                System.err.println("the combined job failed (" + e + "); running every case"
                        + " alone");
            }
        }
        int total = 0;
        for (Run run : runs) {
            if (failed && !run.alone()) {
                run.output.clear();
                run.prepare(env, tEnv);
                run.collectAlone();
            }
            run.write(out);
            total += run.error == null ? run.output.size() : 0;
        }
        Path path = Path.of(args[0]);
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        Files.write(path, out.toString().getBytes(StandardCharsets.UTF_8));
        System.err.printf("wrote %d cases (%d output rows) to %s%n", runs.size(), total, path);
    }

    /** Encodes a result row, tagged with its run's index. */
    static final class Tag implements MapFunction<Row, String> {
        private static final long serialVersionUID = 1L;
        private final int index;

        Tag(int index) {
            this.index = index;
        }

        @Override
        public String map(Row r) {
            StringBuilder b = new StringBuilder().append(index).append('\t');
            row(b, r);
            return b.toString();
        }
    }

    /** One case, with or without the legacy cast behaviour. */
    static final class Run {
        final Case c;
        final boolean legacy;
        final String name;
        LogicalType[] types;
        List<Row> input;
        String sql;
        Table result;
        List<String> output = new ArrayList<>();
        String error;

        Run(Case c, boolean legacy) {
            this.c = c;
            this.legacy = legacy;
            this.name = legacy ? c.name + "_legacy" : c.name;
        }

        boolean alone() {
            return c.expectError && (!legacy || c.legacyFails);
        }

        /**
         * Registers the input and plans the query under this run's cast behaviour; returns
         * the result as a stream (translated now, so the configuration applies).
         */
        DataStream<Row> prepare(StreamExecutionEnvironment env, StreamTableEnvironment tEnv) {
            tEnv.getConfig().set(ExecutionConfigOptions.TABLE_EXEC_LEGACY_CAST_BEHAVIOUR,
                    legacy ? ExecutionConfigOptions.LegacyCastBehaviour.ENABLED
                            : ExecutionConfigOptions.LegacyCastBehaviour.DISABLED);
            tEnv.getConfig().setLocalTimeZone(
                    java.time.ZoneId.of(c.zone == null ? "UTC" : c.zone));
            types = new LogicalType[c.types.length];
            DataTypes.Field[] fields = new DataTypes.Field[c.types.length];
            for (int k = 0; k < types.length; k++) {
                types[k] = LogicalTypeParser.parse(c.types[k],
                        CalcVectors.class.getClassLoader());
                fields[k] = DataTypes.FIELD("f" + k,
                        TypeConversions.fromLogicalToDataType(types[k]));
            }
            input = new ArrayList<>();
            for (String[] values : c.rows) {
                Object[] row = new Object[types.length];
                for (int k = 0; k < types.length; k++) {
                    row[k] = parse(types[k], values[k]);
                }
                input.add(Row.of(row));
            }
            @SuppressWarnings("unchecked")
            ExternalTypeInfo<Row> typeInfo =
                    (ExternalTypeInfo<Row>) (ExternalTypeInfo<?>) ExternalTypeInfo.of(
                            DataTypes.ROW(fields).bridgedTo(Row.class));
            DataStream<Row> stream = env.fromData(input, typeInfo);
            Table table = tEnv.fromDataStream(stream);
            String view = "src_" + name;
            tEnv.dropTemporaryView(view);
            tEnv.createTemporaryView(view, table);
            List<DataType> resolved = table.getResolvedSchema().getColumnDataTypes();
            for (int k = 0; k < types.length; k++) {
                if (!resolved.get(k).getLogicalType().copy(true).equals(types[k].copy(true))) {
                    throw new IllegalStateException(name + ": column " + k + " resolved as "
                            + resolved.get(k) + ", not " + types[k]);
                }
            }
            StringBuilder select = new StringBuilder("SELECT ");
            for (int k = 0; k < c.exprs.length; k++) {
                select.append(k == 0 ? "" : ", ").append(c.exprs[k].sql).append(" AS e")
                        .append(k);
            }
            select.append(" FROM ").append(view);
            if (c.filter != null) {
                select.append(" WHERE ").append(c.filter.sql);
            }
            sql = select.toString().replace(view, "src");
            try {
                result = tEnv.sqlQuery(select.toString());
                return alone() ? null : tEnv.toDataStream(result);
            } catch (Exception e) {
                if (!alone()) {
                    throw new IllegalStateException(name + " does not plan: " + e, e);
                }
                fail(e);
                return null;
            }
        }

        void fail(Exception e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            StringBuilder b = new StringBuilder("{\"class\":");
            Json.string(b, root.getClass().getName());
            b.append(",\"message\":");
            // A NullPointerException's "helpful" message is the JVM's and not always there
            // (omitted once the site is compiled), so it is not recorded.
            Json.string(b, root instanceof NullPointerException
                    ? "(JVM-dependent message not recorded)"
                    : String.valueOf(root.getMessage()));
            error = b.append('}').toString();
        }

        void collectAlone() {
            if (result == null) {
                return;
            }
            try (CloseableIterator<Row> it = result.execute().collect()) {
                while (it.hasNext()) {
                    StringBuilder b = new StringBuilder();
                    row(b, it.next());
                    output.add(b.toString());
                }
            } catch (Exception e) {
                fail(e);
            }
        }

        void write(StringBuilder out) {
            out.append("{\"case\":");
            Json.string(out, name);
            out.append(",\"input\":[");
            for (int k = 0; k < types.length; k++) {
                out.append(k == 0 ? "" : ",");
                Json.string(out, c.types[k]);
            }
            out.append("],\"rows\":[");
            for (int n = 0; n < input.size(); n++) {
                out.append(n == 0 ? "" : ",");
                row(out, input.get(n));
            }
            out.append("],\"sql\":");
            Json.string(out, sql);
            out.append(",\"exprs\":[");
            for (int k = 0; k < c.exprs.length; k++) {
                out.append(k == 0 ? "" : ",").append(c.exprs[k].ir);
            }
            out.append("],\"filter\":").append(c.filter == null ? "null" : c.filter.ir)
                    .append(",\"legacy_cast\":").append(legacy);
            if (c.zone != null) {
                out.append(",\"zone\":");
                Json.string(out, c.zone);
            }
            if (error != null) {
                out.append(",\"error\":").append(error);
            } else {
                out.append(",\"types\":[");
                List<DataType> outTypes = result.getResolvedSchema().getColumnDataTypes();
                for (int k = 0; k < outTypes.size(); k++) {
                    out.append(k == 0 ? "" : ",");
                    Json.string(out,
                            outTypes.get(k).getLogicalType().copy(true).asSerializableString());
                }
                out.append("],\"output\":[").append(String.join(",", output)).append(']');
            }
            out.append("}\n");
        }
    }

    static Object parse(LogicalType type, String text) {
        if (text == null) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return Boolean.parseBoolean(text);
            case TINYINT:
                return Byte.parseByte(text);
            case SMALLINT:
                return Short.parseShort(text);
            case INTEGER:
                return Integer.parseInt(text);
            case BIGINT:
                return Long.parseLong(text);
            case FLOAT:
                return Float.parseFloat(text);
            case DOUBLE:
                return Double.parseDouble(text);
            case DECIMAL:
                int scale = ((org.apache.flink.table.types.logical.DecimalType) type).getScale();
                BigDecimal d = new BigDecimal(text);
                if (d.scale() != scale) {
                    throw new IllegalArgumentException(text + " is not of scale " + scale);
                }
                return d;
            case CHAR:
            case VARCHAR:
                return text;
            case BINARY:
            case VARBINARY:
                return unhex(text);
            case DATE:
                return LocalDate.parse(text);
            case TIME_WITHOUT_TIME_ZONE:
                return LocalTime.parse(text);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return LocalDateTime.parse(text.replace(' ', 'T'));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return LocalDateTime.parse(text.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
            case ARRAY: {
                LogicalType element = ((ArrayType) type).getElementType();
                List<Object> items = MiniJson.parse(text);
                Object array = java.lang.reflect.Array.newInstance(
                        TypeConversions.fromLogicalToDataType(element).getConversionClass(),
                        items.size());
                for (int k = 0; k < items.size(); k++) {
                    java.lang.reflect.Array.set(array, k, parseNested(element, items.get(k)));
                }
                return array;
            }
            case MAP: {
                MapType map = (MapType) type;
                Map<Object, Object> entries = new LinkedHashMap<>();
                for (Object pair : MiniJson.parse(text)) {
                    List<?> kv = (List<?>) pair;
                    entries.put(parseNested(map.getKeyType(), kv.get(0)),
                            parseNested(map.getValueType(), kv.get(1)));
                }
                return entries;
            }
            case ROW: {
                List<LogicalType> fields = type.getChildren();
                List<Object> items = MiniJson.parse(text);
                Object[] values = new Object[fields.size()];
                for (int k = 0; k < values.length; k++) {
                    values[k] = parseNested(fields.get(k), items.get(k));
                }
                return Row.of(values);
            }
            default:
                throw new IllegalArgumentException("no input encoding for " + type);
        }
    }

    /**
     * A nested input value: scalars are JSON strings, numbers or booleans (parsed from their
     * text like a top-level value), containers nested JSON arrays (re-rendered for parse).
     */
    static Object parseNested(LogicalType type, Object item) {
        if (item == null) {
            return null;
        }
        return parse(type, item instanceof List ? MiniJson.render((List<?>) item) : (String) item);
    }

    static byte[] unhex(String text) {
        byte[] out = new byte[text.length() / 2];
        for (int k = 0; k < out.length; k++) {
            out[k] = (byte) Integer.parseInt(text.substring(2 * k, 2 * k + 2), 16);
        }
        return out;
    }

    /** Nanosecond ISO text: yyyy-MM-dd HH:mm:ss.nnnnnnnnn (a fixed shape for the reader). */
    static final DateTimeFormatter TIMESTAMP_TEXT =
            DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.nnnnnnnnn");
    static final DateTimeFormatter TIME_TEXT = DateTimeFormatter.ofPattern("HH:mm:ss.nnnnnnnnn");

    static void row(StringBuilder out, Row r) {
        out.append('[');
        for (int k = 0; k < r.getArity(); k++) {
            out.append(k == 0 ? "" : ",");
            value(out, r.getField(k));
        }
        out.append(']');
    }

    static void value(StringBuilder out, Object v) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof Boolean) {
            out.append(v);
        } else if (v instanceof Byte || v instanceof Short || v instanceof Integer
                || v instanceof Long) {
            Json.string(out, v.toString());
        } else if (v instanceof Float) {
            out.append("{\"bits\":");
            Json.string(out, Json.hexBits(Float.floatToRawIntBits((Float) v) & 0xffffffffL, 8));
            out.append(",\"text\":");
            Json.string(out, v.toString());
            out.append('}');
        } else if (v instanceof Double) {
            out.append("{\"bits\":");
            Json.string(out, Json.hexBits(Double.doubleToRawLongBits((Double) v), 16));
            out.append(",\"text\":");
            Json.string(out, v.toString());
            out.append('}');
        } else if (v instanceof BigDecimal) {
            Json.string(out, ((BigDecimal) v).toPlainString());
        } else if (v instanceof String) {
            Json.string(out, (String) v);
        } else if (v instanceof byte[]) {
            Json.string(out, Json.hex((byte[]) v));
        } else if (v instanceof LocalDate) {
            Json.string(out, v.toString());
        } else if (v instanceof LocalTime) {
            Json.string(out, TIME_TEXT.format((LocalTime) v));
        } else if (v instanceof LocalDateTime) {
            Json.string(out, TIMESTAMP_TEXT.format((LocalDateTime) v));
        } else if (v instanceof Instant) {
            Json.string(out, TIMESTAMP_TEXT.format(
                    LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC)));
        } else if (v instanceof Row) {
            row(out, (Row) v);
        } else if (v.getClass().isArray()) {
            out.append('[');
            for (int k = 0; k < java.lang.reflect.Array.getLength(v); k++) {
                out.append(k == 0 ? "" : ",");
                value(out, java.lang.reflect.Array.get(v, k));
            }
            out.append(']');
        } else if (v instanceof Map) {
            // Flink converts a MAP to a HashMap: entries sorted by their encoded key.
            List<String> entries = new ArrayList<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                StringBuilder b = new StringBuilder("[");
                value(b, e.getKey());
                b.append(',');
                value(b, e.getValue());
                entries.add(b.append(']').toString());
            }
            Collections.sort(entries);
            out.append('[').append(String.join(",", entries)).append(']');
        } else {
            throw new IllegalArgumentException("no golden encoding for " + v.getClass());
        }
    }
}
