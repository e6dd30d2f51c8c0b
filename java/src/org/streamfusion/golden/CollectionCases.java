package org.streamfusion.golden;

import static org.streamfusion.golden.CalcVectors.*;

/** Golden Calc cases for collection functions and constructors (opcodes 700–799); see {@link CalcVectors}. */
final class CollectionCases {
    private CollectionCases() {}

    /** {@code NAME[a, b, ...]} (the ARRAY and MAP value constructors). */
    static X brackets(String fn, X... xs) {
        StringBuilder t = new StringBuilder(fn).append('[');
        for (int k = 0; k < xs.length; k++) {
            t.append(k == 0 ? "" : ", ").append('{').append(k).append('}');
        }
        return call(fn, t.append(']').toString(), xs);
    }

    static X item(X container, X key) {
        return call("ITEM", "{0}[{1}]", container, key);
    }

    static X dbl(String v) {
        return lit("DOUBLE", v, "CAST('" + v + "' AS DOUBLE)");
    }

    static void register(CalcVectors g) {
        X a = col(0), b = col(1), c = col(2), d = col(3), e = col(4);

        // --- Constructors.
        g.add("coll_array_constructor",
                t("INT", "BIGINT", "STRING", "DECIMAL(5, 2)", "DOUBLE"),
                rows(r("1", "5000000000", "x", "1.50", "-0.0"),
                        r(null, "-1", null, null, "NaN"),
                        r("-7", null, "\u00e9\u00e9", "-999.99", null),
                        r(null, null, null, null, null)),
                brackets("ARRAY", a, b), brackets("ARRAY", a, i(7), a),
                brackets("ARRAY", c, s("yz")), brackets("ARRAY", d, a),
                brackets("ARRAY", e, a), brackets("ARRAY", c),
                f("CARDINALITY", brackets("ARRAY", a, b, a)));
        g.add("coll_map_constructor",
                t("INT", "STRING", "BIGINT"),
                rows(r("1", "x", "10"), r(null, "y", null), r("2", null, "-3"),
                        r(null, null, null)),
                brackets("MAP", a, b), brackets("MAP", b, a, s("k"), i(0)),
                brackets("MAP", a, c, i(99), a),
                f("CARDINALITY", brackets("MAP", a, b, i(5), s("five"))),
                f("MAP_KEYS", brackets("MAP", a, b, i(5), s("five"))),
                f("MAP_VALUES", brackets("MAP", a, b, i(5), s("five"))));
        // Entries with the same key expression (input field, literal) merge at code generation;
        // equal values of different expressions stay apart.
        g.add("coll_map_constructor_duplicate_keys",
                t("INT", "STRING", "INT"),
                rows(r("1", "x", "1"), r(null, "y", null), r("5", "z", "6")),
                f("CARDINALITY", brackets("MAP", a, b, a, s("z"))),
                f("MAP_KEYS", brackets("MAP", a, b, i(5), s("five"), a, s("z"))),
                f("MAP_VALUES", brackets("MAP", a, b, i(5), s("five"), a, s("z"))),
                item(brackets("MAP", a, b, a, s("z")), a),
                f("CARDINALITY", brackets("MAP", a, b, c, s("w"))),
                f("MAP_VALUES", brackets("MAP", a, b, c, s("w"))),
                item(brackets("MAP", a, b, c, s("w")), a),
                f("MAP_KEYS", brackets("MAP", i(5), b, a, s("q"), i(5), s("r"))),
                f("MAP_VALUES", brackets("MAP", i(5), b, a, s("q"), i(5), s("r"))));
        g.add("coll_row_constructor",
                t("INT", "STRING", "ARRAY<INT>"),
                rows(r("1", "x", "[1, null]"), r(null, null, null)),
                f("ROW", a, b), f("ROW", b, a, c), f("ROW", a));

        // --- CARDINALITY, ELEMENT and item access.
        g.add("coll_cardinality_item",
                t("ARRAY<INT>", "MAP<STRING, INT>", "INT", "STRING", "ARRAY<STRING>"),
                rows(r("[1, null, 3]", "[[\"a\", 1], [\"b\", null]]", "1", "a", "[\"p\", \"q\"]"),
                        r("[1, null, 3]", "[[\"a\", 1], [\"b\", null]]", "2", "b", "[]"),
                        r("[1, null, 3]", "[[null, 7], [\"a\", 1]]", "3", "c", "[null]"),
                        r("[1]", "[[null, 7], [\"a\", 1]]", "1", "", "[]"),
                        r("[1, null, 3]", "[[\"a\", 1]]", "4", null, "[\"p\"]"),
                        r("[]", "[]", "0", "a", null),
                        r("[9]", "[[\"\u00e9\", 2]]", "-1", "\u00e9", "[\"x\"]"),
                        r(null, null, null, null, null)),
                f("CARDINALITY", a), f("CARDINALITY", b), f("CARDINALITY", e),
                item(a, c), item(b, d), item(a, i(1)), item(b, s("a")), item(e, c),
                item(e, i(2)));
        g.add("coll_map_item_int_keys", t("MAP<INT, INT>", "INT"),
                rows(r("[[null, 7], [1, 10]]", "0"), r("[[null, 7], [1, 10]]", "1"),
                        r("[[null, 7], [1, 10]]", "2"), r("[[0, 3], [1, 10]]", "0"),
                        r("[[1, null]]", "1"), r("[]", "0")),
                item(a, b), item(a, i(0)));
        g.add("coll_element",
                t("ARRAY<INT>", "ARRAY<STRING>"),
                rows(r("[5]", "[\"x\"]"), r("[]", "[]"), r("[null]", "[null]"),
                        r(null, null)),
                f("ELEMENT", a), f("ELEMENT", b));
        g.add("coll_element_more_than_one",
                t("ARRAY<INT>"), col1("[1]", "[1, 2]"),
                f("ELEMENT", a)).expectError = true;

        // --- Search and edits with one element, per element type.
        String[][] search = {
            // type, array, array, array, needles
            {"INT", "[1, null, 3, 1]", "[]", "[null]", "1", "3", "2", null},
            {"BIGINT", "[9223372036854775807, -1, null]", "[0]", "[null, null]",
                "9223372036854775807", "-1", "0", null},
            {"STRING", "[\"a\", null, \"\u00e9\", \"a\"]", "[\"\"]", "[null]", "a", "\u00e9", "",
                null},
            {"DECIMAL(5, 2)", "[\"1.50\", null, \"-0.01\"]", "[\"0.00\"]", "[null]", "1.50",
                "-0.01", "0.00", null},
            {"DOUBLE", "[-0.0, \"NaN\", 2.5, null]", "[0.0]", "[\"NaN\"]", "0.0", "NaN", "2.5",
                null},
        };
        for (String[] s : search) {
            String ty = s[0];
            String name = ty.replaceAll("[^A-Za-z]", "").toLowerCase();
            String[][] rs = new String[12][];
            int k = 0;
            for (int arr = 1; arr <= 3; arr++) {
                for (int n = 4; n <= 7; n++) {
                    rs[k++] = r(s[arr], s[n]);
                }
            }
            String[][] withNull = new String[rs.length + 1][];
            System.arraycopy(rs, 0, withNull, 0, rs.length);
            withNull[rs.length] = r(null, s[4]);
            g.add("coll_search_" + name, t("ARRAY<" + ty + ">", ty), withNull,
                    f("ARRAY_CONTAINS", a, b), f("ARRAY_POSITION", a, b),
                    f("ARRAY_REMOVE", a, b), f("ARRAY_APPEND", a, b), f("ARRAY_PREPEND", a, b),
                    f("ARRAY_CONTAINS", a, nul(ty)), f("ARRAY_POSITION", a, nul(ty)),
                    f("ARRAY_REMOVE", a, nul(ty)));
        }
        g.add("coll_search_widened_needle", t("ARRAY<BIGINT>", "INT", "ARRAY<DOUBLE>"),
                rows(r("[5000000000, 7]", "7", "[1.0, 2.5]"), r("[1]", null, "[]"),
                        r(null, "1", null)),
                f("ARRAY_CONTAINS", a, b), f("ARRAY_POSITION", a, b), f("ARRAY_REMOVE", a, b),
                f("ARRAY_APPEND", a, b), f("ARRAY_CONTAINS", c, i(1)),
                f("ARRAY_POSITION", c, b));

        // --- Set functions.
        String[][] sets = {
            {"INT", "[1, 2, 2, null, 3, null, 1]", "[2, null, 4, 4]", "[]", "[5, 5]"},
            {"BIGINT", "[9223372036854775807, 1, 1]", "[1, -9223372036854775808]", "[]",
                "[0]"},
            {"STRING", "[\"a\", \"b\", \"a\", \"\u00e9\", \"\"]", "[\"b\", \"\", \"z\"]", "[]",
                "[\"a\"]"},
            {"DECIMAL(5, 2)", "[\"1.50\", \"1.50\", \"-2.00\", \"0.00\"]",
                "[\"0.00\", \"3.33\"]", "[]", "[\"-2.00\"]"},
            {"DOUBLE", "[-0.0, 0.0, 1.5, 1.5, -1.5]", "[0.0, 2.5]", "[]", "[-0.0]"},
        };
        for (String[] s : sets) {
            String ty = s[0];
            String name = ty.replaceAll("[^A-Za-z]", "").toLowerCase();
            g.add("coll_sets_" + name, t("ARRAY<" + ty + ">", "ARRAY<" + ty + ">"),
                    rows(r(s[1], s[2]), r(s[2], s[1]), r(s[1], s[3]), r(s[3], s[1]),
                            r(s[1], s[4]), r(s[4], s[4]), r(s[1], null), r(null, s[2])),
                    f("ARRAY_UNION", a, b), f("ARRAY_EXCEPT", a, b), f("ARRAY_INTERSECT", a, b),
                    f("ARRAY_DISTINCT", a), f("ARRAY_CONCAT", a, b), f("ARRAY_CONCAT", a),
                    f("ARRAY_CONCAT", a, b, a));
        }
        g.add("coll_sets_null_elements", t("ARRAY<INT>", "ARRAY<INT>"),
                rows(r("[1, null, 2, null]", "[null]"), r("[null, 3]", "[3]"),
                        r("[null]", "[]"), r("[1, null]", "[2, null, 1]")),
                f("ARRAY_EXCEPT", a, b), f("ARRAY_INTERSECT", a, b));
        g.add("coll_sets_nan", t("ARRAY<DOUBLE>", "ARRAY<DOUBLE>"),
                rows(r("[\"NaN\", 1.0, \"NaN\"]", "[\"NaN\"]"), r("[\"NaN\"]", "[]")),
                f("ARRAY_UNION", a, b), f("ARRAY_EXCEPT", a, b), f("ARRAY_INTERSECT", a, b),
                f("ARRAY_DISTINCT", a), f("ARRAY_CONTAINS", a, dbl("NaN")),
                f("ARRAY_REMOVE", a, dbl("NaN")));
        g.add("coll_sets_widened", t("ARRAY<INT>", "ARRAY<BIGINT>", "ARRAY<DECIMAL(5, 2)>"),
                rows(r("[1, 2]", "[2, 5000000000]", "[\"2.00\", \"1.50\"]"),
                        r("[]", "[]", "[]"), r(null, "[1]", "[\"1.00\"]")),
                f("ARRAY_UNION", a, b), f("ARRAY_EXCEPT", b, a), f("ARRAY_INTERSECT", a, c),
                f("ARRAY_CONCAT", a, b, a), f("ARRAY_UNION", c, a));
        g.add("coll_sets_nested", t("ARRAY<ARRAY<INT>>", "ARRAY<ARRAY<INT>>"),
                rows(r("[[1, 2], [1, 2], null, [], [null]]", "[[1, 2], [3]]"),
                        r("[]", "[[1]]")),
                f("ARRAY_DISTINCT", a), f("ARRAY_UNION", a, b), f("ARRAY_CONTAINS", a,
                        brackets("ARRAY", i(1), i(2))),
                f("ARRAY_POSITION", b, brackets("ARRAY", i(3))),
                f("ARRAY_REVERSE", a), f("CARDINALITY", a), item(a, i(1)));

        // --- Reordering, slicing, extrema.
        String[][] orders = {
            {"INT", "[3, null, -7, 9, 3, null]", "[42]", "[null, null]"},
            {"BIGINT", "[-9223372036854775808, 9223372036854775807, 0]", "[1]", "[null]"},
            {"STRING", "[\"b\", \"ab\", \"\u00e9\", null, \"\", \"B\"]", "[\"x\"]", "[null]"},
            {"DECIMAL(5, 2)", "[\"1.50\", null, \"-2.00\", \"1.05\"]", "[\"0.00\"]", "[null]"},
            {"DOUBLE", "[2.5, -1.0, null, -0.0, 0.0, 1e300]", "[0.0]", "[null]"},
        };
        for (String[] s : orders) {
            String ty = s[0];
            String name = ty.replaceAll("[^A-Za-z]", "").toLowerCase();
            g.add("coll_order_" + name, t("ARRAY<" + ty + ">", "BOOLEAN", "BOOLEAN"),
                    rows(r(s[1], "true", "true"), r(s[1], "false", "true"),
                            r(s[1], "true", "false"), r(s[1], "false", "false"),
                            r(s[2], "true", null), r(s[3], null, "true"), r("[]", "true", "true"),
                            r(null, "true", "true")),
                    f("ARRAY_MIN", a), f("ARRAY_MAX", a), f("ARRAY_REVERSE", a),
                    f("ARRAY_SORT", a), f("ARRAY_SORT", a, b), f("ARRAY_SORT", a, b, c));
        }
        // ARRAY_SORT's comparator never answers "equal" (a > b ? 1 : -1), so Java's TimSort
        // decides the order of signed zeros, NaN and duplicates, or throws on arrays long enough
        // to merge runs. Each array is a case of its own: a failure fails its whole case.
        String[] pool = {"0.0", "-0.0", "\"NaN\"", "1.5", "-1.5", "null", "0.0", "-0.0", "2.5"};
        for (int v = 0; v < 4; v++) {
            StringBuilder doubles = new StringBuilder("[");
            StringBuilder ints = new StringBuilder("[");
            int n = 33 + 20 * v;
            for (int k = 0; k < n; k++) {
                doubles.append(k == 0 ? "" : ", ")
                        .append(pool[(k * (3 + v) + k / 5) % pool.length]);
                ints.append(k == 0 ? "" : ", ").append(
                        k % 11 == 3 ? "null" : Integer.toString((k * 37 + v) % (5 + 40 * v)));
            }
            String ds = doubles.append(']').toString();
            String is = ints.append(']').toString();
            for (String flags : new String[] {"true,true", "false,false"}) {
                String[] fl = flags.split(",");
                g.add("coll_sort_java_double_" + n + "_" + fl[0],
                        t("ARRAY<DOUBLE>", "BOOLEAN", "BOOLEAN"), rows(r(ds, fl[0], fl[1])),
                        f("ARRAY_SORT", a, b, c));
                g.add("coll_sort_java_int_" + n + "_" + fl[0],
                        t("ARRAY<INT>", "BOOLEAN", "BOOLEAN"), rows(r(is, fl[0], fl[1])),
                        f("ARRAY_SORT", a, b, c));
            }
        }
        g.add("coll_sort_java_small", t("ARRAY<DOUBLE>", "BOOLEAN", "BOOLEAN"),
                rows(r("[0.0, -0.0, \"NaN\", 1.0, -0.0, \"NaN\", 0.0]", "false", "false"),
                        r("[\"NaN\", 1.0, -1.0, \"NaN\", 0.0, -0.0]", "true", "true"),
                        r("[1.0, \"NaN\", -1.0, 0.0, -0.0, \"NaN\", 2.0, 0.0]", "true", "false")),
                f("ARRAY_SORT", a, b, c), f("ARRAY_SORT", a), f("ARRAY_MIN", a),
                f("ARRAY_MAX", a), f("ARRAY_DISTINCT", a));
        g.add("coll_slice", t("ARRAY<INT>", "INT", "INT"),
                rows(r("[1, 2, 3, 4, 5]", "2", "4"), r("[1, 2, 3, 4, 5]", "-2", "-1"),
                        r("[1, 2, 3, 4, 5]", "0", "0"), r("[1, 2, 3, 4, 5]", "-9", "2"),
                        r("[1, 2, 3, 4, 5]", "4", "2"), r("[1, 2, 3, 4, 5]", "3", "99"),
                        r("[1, 2, 3, 4, 5]", "6", "9"), r("[1, 2, 3, 4, 5]", "1", "-1"),
                        r("[1, 2, 3, 4, 5]", "-1", "-3"), r("[1, 2, 3, 4, 5]", "2", "0"),
                        r("[null, 2, null]", "2", "3"), r("[]", "1", "1"),
                        r("[1, 2]", null, "1"), r("[1, 2]", "1", null), r(null, "1", "1"),
                        r("[1, 2, 3]", "-2147483648", "2147483647")),
                f("ARRAY_SLICE", a, b, c), f("ARRAY_SLICE", a, b), f("ARRAY_SLICE", a, i(2)));

        // --- ARRAY_JOIN.
        g.add("coll_join", t("ARRAY<STRING>", "STRING", "STRING"),
                rows(r("[\"a\", null, \"c\"]", ", ", "?"), r("[\"a\", null, \"c\"]", "", null),
                        r("[]", ",", "x"), r("[null]", ",", "x"), r("[null, null]", "-", null),
                        r("[\"\u00e9\", \"\u65e5\u672c\"]", "\u00b7", "?"), r(null, ",", "x"),
                        r("[\"a\"]", null, "x")),
                f("ARRAY_JOIN", a, b), f("ARRAY_JOIN", a, b, c), f("ARRAY_JOIN", a, s("+")),
                f("ARRAY_JOIN", a, s("+"), s("NULL")));

        // --- MAP functions.
        g.add("coll_map_parts", t("MAP<STRING, INT>", "MAP<INT, ARRAY<STRING>>"),
                rows(r("[[\"a\", null], [\"b\", 2]]", "[[1, [\"x\", null]], [2, null]]"),
                        r("[]", "[]"), r(null, null)),
                f("MAP_KEYS", a), f("MAP_VALUES", a), f("MAP_ENTRIES", a), f("MAP_KEYS", b),
                f("MAP_VALUES", b), f("MAP_ENTRIES", b), f("CARDINALITY", b));
        g.add("coll_map_union", t("MAP<STRING, INT>", "MAP<STRING, INT>", "MAP<STRING, BIGINT>"),
                rows(r("[[\"a\", 1], [\"b\", 2]]", "[[\"b\", 20], [\"c\", 30]]", "[[\"a\", 100]]"),
                        r("[[\"a\", 1]]", "[]", "[]"), r("[]", "[[\"z\", null]]", "[]"),
                        r(null, "[[\"a\", 1]]", "[]"), r("[[\"a\", 1]]", null, "[]")),
                f("MAP_UNION", a, b), f("MAP_UNION", b, a), f("MAP_UNION", a, b, c),
                f("MAP_UNION", a));
        g.add("coll_map_from_arrays", t("ARRAY<STRING>", "ARRAY<INT>"),
                rows(r("[\"a\", \"b\"]", "[1, null]"), r("[]", "[]"), r(null, "[1]"),
                        r("[\"a\"]", null)),
                f("MAP_FROM_ARRAYS", a, b), f("CARDINALITY", f("MAP_FROM_ARRAYS", a, b)),
                f("MAP_KEYS", f("MAP_FROM_ARRAYS", a, b)));
        g.add("coll_map_from_arrays_length_mismatch", t("ARRAY<STRING>", "ARRAY<INT>"),
                rows(r("[\"a\"]", "[1]"), r("[\"a\", \"b\"]", "[1]")),
                f("MAP_FROM_ARRAYS", a, b)).expectError = true;
    }
}
