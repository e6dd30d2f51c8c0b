package org.streamfusion.golden;

import static org.streamfusion.golden.CalcVectors.*;

/** Golden Calc cases for JSON predicates and value functions (opcodes 800–899); see {@link CalcVectors}. */
final class ValueCases {
    private ValueCases() {}

    static void register(CalcVectors g) {
        json(g);
        typeOf(g);
        uuid(g);
        elt(g);
        decodeEncode(g);
    }

    static X isJson(String kind, X a) {
        return call("IS_JSON_" + kind, "({0} IS JSON " + kind + ")", a);
    }

    static X isNotJson(String kind, X a) {
        return call("IS_NOT_JSON_" + kind, "({0} IS NOT JSON " + kind + ")", a);
    }

    static void json(CalcVectors g) {
        X a = col(0);
        String[] texts = {
            null, "", " ", "1", " 1 ", "01", "-01", "0", "-0", "1.", ".5", "1.5", "1e5", "1E+5",
            "1e-5", "1e", "-", "+1", "NaN", "Infinity", "-Infinity", "true", "false", "null",
            "True", "nul", "truex", "true]", "true,", "true x", "1 2", "1x", "1,", "1]", "[1]x",
            "{}x", "{} x", "{}}", "[1,]", "[,1]", "[]", "{}", "{\"a\":1}", "{\"a\":1,\"a\":2}",
            "{a:1}", "{'a':1}", "'a'", "\"a\"", "\"a", "\"\\x\"", "\"\\u00e9\"", "\"\\ud800\"",
            "\"\\u12\"", "\"a\tb\"", "\"a\u0001b\"", "\"é😀\"", "[1,2,[3,{\"b\":null}]]",
            "{\"a\":}", "{\"a\" 1}", "{\"a\":1,}", "[1 2]", "\uFEFF1", "\t\r\n1\n", "\u00a01",
            "1\u00a0", "/*c*/1", "1//c", "#1", "1e400", "1e2147483647", "1e2147483648",
            "1e-2147483648", "1e-2147483647", "0.1e-2147483647", "1e99999999999",
            "123456789012345678901234567890", "00", "0x10", "\"\\/\"", "\"\\U0041\"", "[1]]",
            "{\"\":1}", "{\"a\":1 \"b\":2}", "  [  ]  ", "1 ]", "\"a\" \"b\"", "\"a\"x", "nullx",
            "null]", "1.e5", "-.5", "\u000b1", "\f1", "true²", "trueé", "true\uD83D\uDE00",
            "true$", "true_", "null\u00a0", "true\u0300", "true\u00b7", "[true$]",
        };
        add(g, "json_predicates", texts, a, call("IS_JSON_VALUE", "({0} IS JSON)", a),
                isJson("VALUE", a), isJson("SCALAR", a), isJson("ARRAY", a), isJson("OBJECT", a),
                call("IS_NOT_JSON_VALUE", "({0} IS NOT JSON)", a), isNotJson("VALUE", a),
                isNotJson("SCALAR", a), isNotJson("ARRAY", a), isNotJson("OBJECT", a));
        String[] deep = {
            "[".repeat(1000) + "]".repeat(1000), "[".repeat(1001) + "]".repeat(1001),
            "{\"a\":".repeat(1000) + "1" + "}".repeat(1000),
            "{\"a\":".repeat(1001) + "1" + "}".repeat(1001),
            "1".repeat(1000), "1".repeat(1001), "-" + "1".repeat(1000),
        };
        add(g, "json_limits", deep, a, isJson("VALUE", a), isJson("ARRAY", a),
                isJson("OBJECT", a), isJson("SCALAR", a));
        g.add("json_filter", t("STRING", "INT"),
                rows(r("{\"a\":1}", "1"), r("[1]", "2"), r("x", "3"), r(null, "4")),
                col(1)).filter = isJson("OBJECT", a);
    }

    /** One STRING column of {@code texts}, projected by {@code exprs}. */
    static void add(CalcVectors g, String name, String[] texts, X a, X... exprs) {
        g.add(name, t("STRING"), col1(texts), exprs);
    }

    static void typeOf(CalcVectors g) {
        X yes = lit("BOOLEAN", "true", "TRUE");
        X no = lit("BOOLEAN", "false", "FALSE");
        g.add("typeof_columns",
                t("INT", "STRING", "CHAR(3)", "DECIMAL(10, 2)", "BOOLEAN", "DOUBLE", "VARCHAR(5)",
                        "BIGINT", "TINYINT", "FLOAT", "BYTES", "BINARY(3)"),
                rows(r("1", "a", "abc", "1.50", "true", "1.0", "x", "2", "3", "1.5", "00ff",
                                "010203"),
                        r(null, null, null, null, null, null, null, null, null, null, null,
                                null)),
                f("TYPEOF", col(0)), f("TYPEOF", col(1)), f("TYPEOF", col(2)),
                f("TYPEOF", col(3)), f("TYPEOF", col(4)), f("TYPEOF", col(5)),
                f("TYPEOF", col(6)), f("TYPEOF", col(7)), f("TYPEOF", col(8)),
                f("TYPEOF", col(9)), f("TYPEOF", col(10)), f("TYPEOF", col(11)),
                f("TYPEOF", col(1), yes), f("TYPEOF", col(1), no), f("TYPEOF", col(10), yes),
                f("TYPEOF", col(3), yes));
        g.add("typeof_literals", t("INT"), col1("1", null),
                f("TYPEOF", i(7)), f("TYPEOF", s("abc")), f("TYPEOF", nul("INT")),
                f("TYPEOF", nul("STRING")), f("TYPEOF", s("abc"), yes),
                f("TYPEOF", lit("BIGINT", "5", "CAST(5 AS BIGINT)")),
                f("TYPEOF", lit("BOOLEAN", "true", "TRUE")));
    }

    static void uuid(CalcVectors g) {
        // UUID() is random: only its length is deterministic (format, version and variant
        // bits and distinctness are property-tested in value.rs).
        g.add("uuid_length", t("INT"), col1("1", "2", null), f("CHAR_LENGTH", f("UUID")));
    }

    static void elt(CalcVectors g) {
        X idx = col(0);
        g.add("elt_strings", t("INT", "STRING", "CHAR(3)", "VARCHAR(5)"),
                rows(r("1", "a", "abc", "vwxyz"), r("2", "a", "abc", "vwxyz"),
                        r("3", "a", "abc", "vwxyz"), r("4", "a", "abc", "vwxyz"),
                        r("0", "a", "abc", "vwxyz"), r("-1", "a", "abc", "vwxyz"),
                        r(null, "a", "abc", "vwxyz"), r("1", null, "abc", null),
                        r("2147483647", "é", "ß😀x", ""), r("-2147483648", "", "", "")),
                f("ELT", idx, col(1), col(2), col(3)), f("ELT", idx, col(1)),
                f("ELT", idx, col(2), col(3)), f("ELT", idx, col(2), col(2)),
                f("ELT", idx, col(2), s("lit"), s("literal")),
                f("ELT", i(2), col(1), col(3)), f("ELT", i(0), col(1), col(3)));
        g.add("elt_small_index_types", t("TINYINT", "SMALLINT", "BIGINT", "STRING"),
                rows(r("0", "0", "0", "a"), r("5", "-3", "9", "b"), r(null, null, null, "c")),
                f("ELT", col(0), col(3), col(3)), f("ELT", col(1), col(3)),
                f("ELT", col(2), col(3), col(3), col(3)));
        g.add("elt_bigint_index_in_range", t("BIGINT", "STRING"), rows(r("1", "a")),
                f("ELT", idx, col(1))).expectError = true;
        g.add("elt_binary", t("INT", "BYTES", "BINARY(3)", "VARBINARY(2)"),
                rows(r("1", "00ff", "010203", "aa"), r("2", "00ff", "010203", "aa"),
                        r("3", "00ff", "010203", "aa"), r("4", "", "000000", ""),
                        r(null, "00", "ffffff", "bb"), r("2", null, null, null),
                        r("0", "11", "111111", "11")),
                f("ELT", idx, col(1), col(2), col(3)), f("ELT", idx, col(2)),
                f("ELT", idx, col(2), col(2)), f("ELT", idx, col(2), col(3)),
                f("ELT", idx, col(3), lit("BINARY(2)", "fe00", "X'FE00'")));
    }

    static void decodeEncode(CalcVectors g) {
        String[] charsets = {"UTF-16", "UTF-16BE", "UTF-16LE", "UTF-8", "US-ASCII",
            "ISO-8859-1", "utf-16", "utf8", "latin1", "UnicodeBigUnmarked"};
        String[] inputs = {"", "00", "0041", "feff0041", "fffe4100", "fffe", "feff", "4100",
            "004100", "d83dde00", "3dd800de", "d800", "d8000041", "dc000041", "0041d800",
            "0041d8", "d800dc", "fffe0041", "0041fffe", "e9", "c3a9", "ff", "80", "eda080",
            "f0928080", "f4908080", "c0af", "e282", "e282ac", "f09f9880", "f09f98", "41e2",
            "ed9fbf", "c2", "efbbbf41", "f09f41", "e0a080", "e08080", "f8888080", "c1bf"};
        String[][] rows = new String[charsets.length * inputs.length + 2][];
        int n = 0;
        for (String cs : charsets) {
            for (String in : inputs) {
                rows[n++] = r(in, cs);
            }
        }
        rows[n++] = r(null, "UTF-8");
        rows[n] = r("41", null);
        g.add("decode_charsets", t("BYTES", "STRING"), rows,
                f("DECODE", col(0), col(1)), f("DECODE", col(0), s("UTF-16")));
        g.add("decode_binary_n", t("BINARY(4)", "VARBINARY(3)"),
                rows(r("feff0041", "c3a9"), r("d83dde00", "e282"), r(null, null)),
                f("DECODE", col(0), s("UTF-16")), f("DECODE", col(1), s("UTF-8")),
                f("DECODE", col(0), s("UTF-16LE")));
        g.add("decode_unknown_charset", t("BYTES", "STRING"), rows(r("41", "bogus")),
                f("DECODE", col(0), col(1))).expectError = true;
        String[] texts = {"", "A", "é", "😀", "a😀é", "ÿĀ", "\uFEFF", null};
        String[][] encodeRows = new String[texts.length * 6][];
        n = 0;
        for (String cs : new String[] {"UTF-16", "UTF-16BE", "UTF-16LE", "UTF-8", "US-ASCII",
            "ISO-8859-1"}) {
            for (String text : texts) {
                encodeRows[n++] = r(text, cs);
            }
        }
        g.add("encode_charsets", t("STRING", "STRING"), encodeRows,
                f("ENCODE", col(0), col(1)), f("ENCODE", col(0), s("UTF-16LE")));
        g.add("encode_unknown_charset", t("STRING", "STRING"), rows(r("a", "no-such")),
                f("ENCODE", col(0), col(1))).expectError = true;
    }
}
