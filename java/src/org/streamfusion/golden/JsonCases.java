package org.streamfusion.golden;

import static org.streamfusion.golden.CalcVectors.*;

/**
 * Golden Calc cases for {@code JSON_STRING} (opcode 808): every type it converts, at the top
 * and nested, the escapes, number spellings and key orders of Flink's serializer; see {@link
 * CalcVectors}. DOUBLE and FLOAT values print alike on every JDK (decision 0037).
 */
final class JsonCases {
    private JsonCases() {}

    static X json(X x) {
        return f("JSON_STRING", x);
    }

    /** Whether {@code x} calls JSON_OBJECT or JSON_ARRAY (its text is inserted raw). */
    static boolean constructor(X x) {
        return x.ir.startsWith("{\"call\":{\"fn\":\"JSON_OBJECT\"")
                || x.ir.startsWith("{\"call\":{\"fn\":\"JSON_ARRAY\"");
    }

    /**
     * {@code JSON_OBJECT(KEY k VALUE v, .. NULL|ABSENT ON NULL)}, or {@code JSON_ARRAY(v, ..
     * NULL|ABSENT ON NULL)}; the registry call's first argument is its layout literal (the
     * clause, then {@code r} for each raw value, {@code v} for the others), which the SQL does
     * not show.
     */
    static X constructor(String fn, boolean absent, X... operands) {
        boolean object = fn.equals("JSON_OBJECT");
        StringBuilder layout = new StringBuilder(absent ? "A" : "N");
        StringBuilder t = new StringBuilder(fn).append('(');
        X[] args = new X[operands.length + 1];
        for (int k = 0; k < operands.length; k++) {
            args[k + 1] = operands[k];
            boolean value = !object || k % 2 == 1;
            if (value) {
                layout.append(constructor(operands[k]) ? 'r' : 'v');
            }
            t.append(k == 0 ? "" : object && value ? " " : ", ")
                    .append(object ? (value ? "VALUE " : "KEY ") : "")
                    .append('{').append(k + 1).append('}');
        }
        if (operands.length > 0) {
            t.append(absent ? " ABSENT ON NULL" : " NULL ON NULL");
        }
        args[0] = lit("STRING", layout.toString(), "");
        return call(fn, t.append(')').toString(), args);
    }

    static X object(boolean absent, X... keysAndValues) {
        return constructor("JSON_OBJECT", absent, keysAndValues);
    }

    static X array(boolean absent, X... values) {
        return constructor("JSON_ARRAY", absent, values);
    }

    static void register(CalcVectors g) {
        X a = col(0), b = col(1), c = col(2), d = col(3), e = col(4), f = col(5), h = col(6),
                k = col(7);
        g.add("json_string_scalars",
                t("STRING", "CHAR(5)", "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT",
                        "DECIMAL(10, 2)"),
                rows(r("abc", "ab", "true", "-128", "-32768", "2147483647",
                                "-9223372036854775808", "1.50"),
                        r("quote\" back\\ slash/ tab\tend", "", "false", "127", "0",
                                "-2147483648", "9223372036854775807", "100.00"),
                        r("\u0000\u0001\u0007\b\t\n\u000b\f\r\u001b\u001f \u007f", "x y",
                                "true", "0", "1", "0", "0", "0.00"),
                        r("\u0080\u009f\u00a0\u00e9\u00ff \u00e9\u20ac\ud83d\ude00\u4e2d"
                                        + " \u2028\u2029\ufeff </script> <>&='",
                                "\u00e9", null, null, null, null, null, "-0.01"),
                        r("", null, null, null, null, null, null, null),
                        r(null, null, null, null, null, null, null, null)),
                json(a), json(b), json(c), json(d), json(e), json(f), json(h), json(k),
                json(json(a)));
        g.add("json_string_decimals",
                t("DECIMAL(20, 10)", "DECIMAL(20, 7)", "DECIMAL(10, 8)", "DECIMAL(38, 0)"),
                rows(r("0.0000001000", "0.0000001", "-0.00000001", "1"),
                        r("0.0000000000", "0.0000000", "0.00000000", "0"),
                        r("0.0000010000", "12345.6789012", "12.34567890",
                                "-99999999999999999999999999999999999999"),
                        r(null, null, null, null)),
                json(a), json(b), json(c), json(d));
        g.add("json_string_floats", t("DOUBLE", "FLOAT"),
                rows(r("1.0", "1.1"), r("100.0", "0.1"), r("0.001", "1.0"),
                        r("123.456", "100"), r("1234567.0", "0.5"), r("12345678.0", "1e-5"),
                        r("1.23456789E7", "1e7"), r("9.007199254740992E15", "1e10"),
                        r("1.0E7", "16777216"), r("1.5E10", "123456.7"),
                        r("1.7976931348623157E308", "1.4E-45"), r("1.0E-4", "-0.0"),
                        r("1.23E-6", "NaN"), r("1.0E-7", "Infinity"), r("4.9E-324", "-Infinity"),
                        r("-2.5E-8", "3.4028235E38"), r("-0.0", null), r("0.0", "-1.5"),
                        r("NaN", "0.3"), r("Infinity", "123456789"), r("-Infinity", "1e-7"),
                        r(null, null)),
                json(a), json(b));
        g.add("json_string_temporal_binary",
                t("TIMESTAMP(3)", "TIMESTAMP(9)", "TIMESTAMP_LTZ(3)", "BYTES", "BINARY(3)"),
                rows(r("2024-01-15 12:34:56.000", "2024-01-15 12:34:56.123456789",
                                "2024-01-15 12:34:56.123", "48656c6c6f", "480000"),
                        r("2024-01-15 12:34:56.100", "1969-12-31 23:59:59.999999999",
                                "1970-01-01 00:00:00.000", "", "fbff00"),
                        r("0001-01-01 00:00:00.000", "2000-01-01 00:00:00.000000001",
                                "1969-12-31 23:59:59.999", "00", "ffffff"),
                        r("9999-12-31 23:59:59.999", "2024-01-15 12:34:00.500000000",
                                "0001-01-01 00:00:00.000", "ff", "000000"),
                        r(null, null, null, null, null)),
                json(a), json(b), json(c), json(d), json(e));
        g.add("json_string_nested",
                t("ARRAY<INT>", "ARRAY<STRING>", "MAP<STRING, BIGINT>", "ROW<b INT, a STRING>",
                        "ARRAY<ARRAY<DECIMAL(5, 2)>>", "MAP<STRING, ARRAY<DOUBLE>>",
                        "ROW<zeta INT, Mid BOOLEAN, alpha ROW<y BYTES, x TIMESTAMP(3)>>",
                        "ARRAY<ROW<b STRING, a INT>>"),
                rows(r("[1, null, -3]", "[\"a\", null, \"\u00e9\\\"\"]",
                                "[[\"B\", 1], [\"a\", 2], [\"_\", 3], [\"10\", 4], [\"9\", 5],"
                                        + " [\"\u00e9\", 6], [\"\", 7]]",
                                "[7, \"q\"]", "[[\"1.50\", null], [], null]",
                                "[[\"\ud83d\ude00\", [\"1.0E10\", null]], [\"\uff01\", []],"
                                        + " [\"z\", null]]",
                                "[1, true, [\"00ff\", \"2024-01-15 12:34:56.500\"]]",
                                "[[\"x\", 1], null, [null, null]]"),
                        r("[]", "[]", "[]", "[null, null]", "[]", "[]", "[null, null, null]",
                                "[]"),
                        r(null, null, null, null, null, null, null, null)),
                json(a), json(b), json(c), json(d), json(e), json(f), json(h), json(k));
        g.add("json_object_array",
                t("STRING", "INT", "DOUBLE", "DECIMAL(10, 2)", "TIMESTAMP(3)", "BYTES",
                        "ARRAY<INT>", "BOOLEAN"),
                rows(r("x", "1", "1.0E10", "100.00", "2024-01-15 12:34:56.000", "4869",
                                "[1, null]", "true"),
                        r(null, "-7", "-0.0", "-0.01", "1969-12-31 23:59:59.999", "", "[]",
                                "false"),
                        r("q\"\\\n\u00e9", null, "NaN", null, null, null, null, null),
                        r(null, null, null, null, null, null, null, null)),
                object(false, s("b"), b, s("a"), a), object(true, s("b"), b, s("a"), a),
                object(false, s("\u00e9"), c, s("a\"b"), d, s("Z"), e, s("bin"), f,
                        s("arr"), h, s("t"), k),
                object(false, s("x"), b, s("x"), a), object(true, s("x"), b, s("x"), a),
                object(false), array(true), object(false, s("\ud83d\ude00"), b, s("\uff01"), a),
                object(false, s("k"), object(false, s("z"), b, s("y"), a)),
                object(true, s("k"), array(false, b, a), s("j"), json(a)),
                array(true, b, a, c, d), array(false, b, a, c, d),
                array(true, object(false, s("b"), b), array(true, b), s("[1]"), e, f, h),
                array(false, array(true), object(true, s("n"), a)));
        g.add("json_string_map_null_key", t("MAP<STRING, INT>"),
                rows(r("[[\"a\", 1], [null, 2]]")), json(a)).expectError = true;
    }
}
