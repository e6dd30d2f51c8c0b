package org.streamfusion.golden;

import static org.streamfusion.golden.CalcVectors.*;

/**
 * Golden Calc cases for the string functions of opcodes 330–399 (edits, searches, encodings,
 * regular expressions and splitting) and the two-argument LTRIM / RTRIM; see {@link
 * CalcVectors}.
 */
final class StringCases {
    private StringCases() {}

    static void register(CalcVectors g) {
        edits(g);
        searches(g);
        characterClasses(g);
        encodings(g);
        regexps(g);
    }

    static X overlay(X s, X r, X start, X len) {
        return call("OVERLAY", "OVERLAY({0} PLACING {1} FROM {2} FOR {3})", s, r, start, len);
    }

    static X overlay(X s, X r, X start) {
        return call("OVERLAY", "OVERLAY({0} PLACING {1} FROM {2})", s, r, start);
    }

    static void edits(CalcVectors g) {
        X a = col(0), b = col(1), c = col(2), d = col(3);
        g.add("substr_left_right", t("STRING", "INT"),
                rows(r("hello", "2"), r("日本語です", "3"), r("", "1"), r("a😀b", "2"),
                        r("abc", "0"), r("abc", "-1"), r("abc", "2147483647"),
                        r("abc", "-2147483648"), r("a😀b", "-2"), r(null, "1"), r("abc", null)),
                call("SUBSTRING", "SUBSTR({0}, {1})", a, b),
                call("SUBSTRING", "SUBSTR({0}, {1}, {2})", a, b, i(2)),
                f("LEFT", a, b), f("RIGHT", a, b), f("LEFT", a, i(2)), f("RIGHT", a, i(1)));
        g.add("left_right_char_varchar", t("CHAR(5)", "VARCHAR(4)"),
                rows(r("ab", "xyz"), r("abcde", ""), r(null, "é😀")),
                f("LEFT", a, i(3)), f("RIGHT", a, i(3)), f("RIGHT", b, i(10)), f("LEFT", b, i(1)),
                call("SUBSTRING", "SUBSTR({0}, {1})", b, i(2)));
        g.add("repeat_reverse", t("STRING", "INT"),
                rows(r("ab", "3"), r("ab", "0"), r("ab", "-1"), r("", "5"), r("日😀", "2"),
                        r("x", "1"), r(null, "2"), r("x", null)),
                f("REPEAT", a, b), f("REVERSE", a), f("REPEAT", a, i(2)));
        g.add("overlay", t("STRING", "STRING", "INT", "INT"),
                rows(r("abcdef", "XY", "2", "1"), r("abcdef", "XY", "2", "0"),
                        r("abcdef", "XY", "2", "-1"), r("abcdef", "XY", "0", "2"),
                        r("abcdef", "XY", "7", "1"), r("abcdef", "XY", "6", "1"),
                        r("abcdef", "XY", "5", "5"), r("abcdef", "", "3", "2"),
                        r("a😀b", "X", "2", "1"), r("a😀b", "X", "3", "1"),
                        r("😀😀", "", "2", "2"), r("", "X", "1", "1"),
                        r(null, "X", "1", "1"), r("abc", null, "1", "1"),
                        r("abc", "X", null, "1"), r("abc", "X", "1", null)),
                overlay(a, b, c, d), overlay(a, b, c));
        g.add("overlay_types", t("VARCHAR(5)", "CHAR(3)"), rows(r("abcde", "xyz"), r(null, "x")),
                overlay(a, b, i(2)), overlay(b, b, i(2), i(1)));
        g.add("overlay_length_overflows", t("STRING", "INT"), rows(r("abc", "2147483647")),
                overlay(a, s("X"), i(2), b)).expectError = true;
        g.add("translate", t("STRING", "STRING", "STRING"),
                rows(r("hello", "el", "ip"), r("hello", "elo", "i"), r("hello", "", "x"),
                        r("", "a", "b"), r("hello", "ll", "ab"), r("a😀b", "😀", "x"),
                        r("abc", "abc", "日本語"), r(null, "a", "b"), r("abc", null, "x"),
                        r("abc", "a", null)),
                f("TRANSLATE", a, b, c), f("TRANSLATE", a, s("ab"), s("x")));
        g.add("btrim_ltrim_rtrim", t("STRING"),
                col1("  ab  ", "xxabyy", "xyx", "", "   ", "日本日", " x ab x ", null),
                f("BTRIM", a), f("BTRIM", a, s("xy")), f("LTRIM", a, s("xy")),
                f("RTRIM", a, s("xy")), f("BTRIM", a, s("日")), f("LTRIM", a, s(" x")),
                f("RTRIM", a, s(" x")), f("RTRIM", a, s("")), f("BTRIM", a, s(" ")));
        g.add("trim_column_set", t("STRING", "STRING", "VARCHAR(6)"),
                rows(r("xxabyy", "xy", "xabx"), r("  ab  ", " ", "  ab"), r("abab", "ba", "b"),
                        r(null, "x", null), r("ab", null, "ab")),
                f("BTRIM", a, b), f("LTRIM", a, b), f("RTRIM", a, b), f("LTRIM", c, s("x")),
                f("RTRIM", c, s("b")));
    }

    static void searches(CalcVectors g) {
        X a = col(0), b = col(1), c = col(2), d = col(3);
        g.add("locate", t("STRING", "STRING", "INT"),
                rows(r("banana", "an", "1"), r("banana", "an", "3"), r("banana", "an", "-1"),
                        r("banana", "", "5"), r("banana", "x", "1"), r("日本日本", "本", "3"),
                        r("a😀b😀", "b", "1"), r("", "", "1"), r("", "a", "1"),
                        r("banana", "an", "100"), r("banana", "an", "-2147483648"),
                        r("banana", "a", "0"), r(null, "a", "1"), r("a", null, "1"),
                        r("a", "a", null)),
                f("LOCATE", b, a), f("LOCATE", b, a, c), f("LOCATE", s("a"), a, i(2)));
        g.add("instr", t("STRING", "STRING", "INT", "INT"),
                rows(r("banana", "an", "1", "1"), r("banana", "an", "1", "2"),
                        r("banana", "an", "-1", "1"), r("banana", "an", "-1", "2"),
                        r("banana", "ana", "1", "2"), r("aaa", "aa", "1", "2"),
                        r("banana", "a", "-2", "1"), r("banana", "", "3", "1"),
                        r("banana", "", "-3", "1"), r("日本日本", "本", "-1", "1"),
                        r("a😀b😀", "😀", "-1", "2"), r("banana", "an", "0", "1"),
                        r("banana", "an", "10", "1"), r("banana", "an", "-10", "1"),
                        r(null, "a", "1", "1"), r("a", null, "1", "1"), r("a", "a", null, "1"),
                        r("a", "a", "1", null)),
                f("INSTR", a, b, c, d), f("INSTR", a, b, c), f("INSTR", a, b));
        g.add("instr_nth_zero", t("STRING", "INT"), rows(r("banana", "0")),
                f("INSTR", a, s("an"), i(1), b)).expectError = true;
        g.add("ascii_chr", t("STRING", "BIGINT", "INT", "TINYINT"),
                rows(r("abc", "65", "97", "0"), r("é", "256", "-1", "-1"),
                        r("", "321", "0", "127"), r("😀", "-5", "255", "-128"),
                        r("\u007fx", "9223372036854775807", "2147483647", "5"),
                        r(null, null, null, null)),
                f("ASCII", a), f("CHR", b), f("CHR", c), f("CHR", d));
        g.add("startswith_endswith", t("STRING", "STRING", "BYTES", "BYTES"),
                rows(r("abc", "ab", "0102", "01"), r("abc", "", "0102", ""),
                        r("", "a", "", "00"), r("日本", "本", "ff", "ff"),
                        r("abc", "bc", "0102", "02"), r(null, "a", null, "01"),
                        r("a", null, "01", null)),
                f("STARTSWITH", a, b), f("ENDSWITH", a, b), f("STARTSWITH", c, d),
                f("ENDSWITH", c, d), f("STARTSWITH", a, s("a")));
    }

    static void characterClasses(CalcVectors g) {
        X a = col(0);
        g.add("is_alpha_digit_decimal", t("STRING"),
                col1("abc", "abcÄß", "日本語", "ab1", "a b", "\uD835\uDC9C", "\u2160", "0123",
                        "\u0661\u0662", "²", "-1", "+7", "1.5", ".5", "5.", "1e5", "1.e5",
                        " 1.5 ", "NaN", "-Infinity", "1d", "0x1p3", "0x1", "1e", "9223372036854775808",
                        "99999999999999999999", "\u0661.5", "", " ", null),
                f("IS_ALPHA", a), f("IS_DIGIT", a), f("IS_DECIMAL", a));
    }

    static void encodings(CalcVectors g) {
        X a = col(0), b = col(1), c = col(2), d = col(3);
        g.add("base64_hex_strings", t("STRING", "BYTES"),
                rows(r("", ""), r("f", "66"), r("fo", "666f"), r("foo", "666f6f"),
                        r("日本😀", "00ff"), r("a\u0000b", "fffefd"), r(null, null)),
                f("TO_BASE64", a), f("TO_BASE64", b), f("FROM_BASE64", f("TO_BASE64", a)),
                f("HEX", a), f("UNHEX", f("HEX", a)));
        g.add("from_base64", t("STRING"),
                col1("Zm9v", "Zm9vYg", "Zm9vYg==", "Zm9vYmE", "Zm9vYmE=", "", "Zh", "Zm9=",
                        "5pel5pys", null),
                f("FROM_BASE64", a));
        String[] badBase64 = {"Zm9v!", "Z", "Zg=", "Zm9vY", "Zm9v\n", "Zg==Zg==", "====", "Z===",
            "Zm 9v"};
        for (int k = 0; k < badBase64.length; k++) {
            g.add("from_base64_invalid_" + k, t("STRING"), col1("Zm9v", badBase64[k]),
                    f("FROM_BASE64", a)).expectError = true;
        }
        g.add("hex_bin_integers", t("TINYINT", "SMALLINT", "INT", "BIGINT"),
                rows(r("0", "0", "0", "0"), r("-1", "-1", "-1", "-1"),
                        r("127", "32767", "2147483647", "9223372036854775807"),
                        r("-128", "-32768", "-2147483648", "-9223372036854775808"),
                        r("10", "255", "4096", "1099511627776"), r(null, null, null, null)),
                f("HEX", a), f("HEX", b), f("HEX", c), f("HEX", d), f("BIN", a), f("BIN", b),
                f("BIN", c), f("BIN", d));
        g.add("unhex", t("STRING"),
                col1("", "0", "41", "414", "4142", "ff00", "FFzz", "zz41", "é1", "g", "日本",
                        "0x41", null),
                f("UNHEX", a));
        g.add("url_encode_decode", t("STRING"),
                col1("a b+c", "héllo wörld", "100%", "%41%42", "%e6%97%a5", "%C3", "%zz", "%4",
                        "%", "a%2", "%+1", "%-0", "%-1", "~!*'()-_.", "😀/?=&", "%ED%A0%80",
                        "%F0%9F%98%80x%", "a%%41", "", "%%", "%\u0661\u0662", "%\uFF21\uFF21",
                        "%\u00e91", null),
                f("URL_ENCODE", a), f("URL_DECODE", a), f("URL_DECODE", f("URL_ENCODE", a)));
    }

    static void regexps(CalcVectors g) {
        X a = col(0), b = col(1);
        g.add("regexp_count_substr_instr", t("STRING", "STRING"),
                rows(r("foo123bar45", "\\d+"), r("abc", ""), r("abc", "("), r("a😀b", ""),
                        r("😀😀x", "x"), r("aaa", "a*"), r("日本123", "\\d"), r("abc", "x"),
                        r("", ""), r(null, "a"), r("a", null)),
                f("REGEXP_COUNT", a, b), f("REGEXP_SUBSTR", a, b), f("REGEXP_INSTR", a, b),
                f("REGEXP_COUNT", a, s("[a-z]")));
        g.add("regexp_extract_all", t("STRING"),
                col1("a1b22c333", "", "xyz", "日1本2x", "a1bc3", null),
                f("REGEXP_EXTRACT_ALL", a, s("\\d+"), i(0)),
                f("REGEXP_EXTRACT_ALL", a, s("\\d+")),
                f("REGEXP_EXTRACT_ALL", a, s("([a-z])(\\d+)")),
                f("REGEXP_EXTRACT_ALL", a, s("([a-z])(\\d)?"), i(2)),
                f("REGEXP_EXTRACT_ALL", a, s("(\\d)"), i(3)),
                f("REGEXP_EXTRACT_ALL", a, s("("), i(0)),
                f("REGEXP_EXTRACT_ALL", a, s("x*"), i(0)));
        g.add("regexp_extract_all_column_group", t("STRING", "INT"),
                rows(r("a1b2", "1"), r("a1b2", "2"), r("a1b2", "-1"), r("a1b2", null),
                        r(null, "1")),
                f("REGEXP_EXTRACT_ALL", a, s("([a-z])(\\d)"), b));
        g.add("split", t("STRING", "STRING"),
                rows(r("a,b,,c", ","), r(",a,", ","), r("abc", ""), r("a😀", ""), r("", ","),
                        r("", ""), r("a--b---c", "--"), r("abc", "abcd"), r("日本日", "本"),
                        r(null, ","), r("a", null)),
                f("SPLIT", a, b), f("SPLIT", a, s(",")));
    }
}
