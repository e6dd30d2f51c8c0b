package org.streamfusion.golden;

import static org.streamfusion.golden.CalcVectors.*;
import static org.streamfusion.golden.TemporalCases.ceilTo;
import static org.streamfusion.golden.TemporalCases.floorTo;
import static org.streamfusion.golden.TemporalCases.tsAdd;

/**
 * Golden Calc cases at the edges of the temporal ranges (decision 0023); see {@link
 * CalcVectors}.
 *
 * <p>Flink documents DATE as 0000-01-01 to 9999-12-31, TIMESTAMP as 0000-01-01 00:00:00 to
 * 9999-12-31 23:59:59.999999999 and TIME as 00:00:00 to 23:59:59.999999999, but its runtime
 * computes past them: TIMESTAMPADD wraps Java {@code int}s, CEIL reaches year 10000, a TIME
 * taken from a pre-1970 TIMESTAMP is negative. StreamFusion carries TIMESTAMP(7..9) as 64-bit
 * nanoseconds (1677-09-21 00:12:43.145224192 to 2262-04-11 23:47:16.854775807). Each class of
 * value is here: inside both ranges (StreamFusion must compute Flink's value), outside either
 * (StreamFusion must fail with a typed out-of-range error instead), and where Flink itself
 * fails (StreamFusion must fail too). Inputs stay inside Flink's documented ranges.
 *
 * <p>Cases calling a registry function and run successfully by Flink keep fewer input rows than
 * the family's main cases, so the {@code scalar_registry} suite keeps drawing its fixtures
 * (whose values StreamFusion must all compute) from those.
 */
final class RangeCases {
    private RangeCases() {}

    static final String[] UNITS = {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE",
        "SECOND"};

    static void register(CalcVectors g) {
        casts(g);
        timestampAdd(g);
        floorCeil(g);
        parsing(g);
    }

    static void casts(CalcVectors g) {
        X a = col(0), b = col(1);
        // Into nanoseconds: Flink's value wherever 64-bit nanoseconds hold it.
        g.add("range_cast_date_to_timestamp", t("DATE"),
                col1("0000-01-01", "0001-01-01", "1677-09-21", "1677-09-22", "1970-01-01",
                        "2262-04-11", "2262-04-12", "9999-12-31", null),
                cast(a, "TIMESTAMP(9)"), cast(a, "TIMESTAMP(7)"), cast(a, "TIMESTAMP(6)"),
                cast(a, "TIMESTAMP(3)"), cast(a, "TIMESTAMP(0)"));
        g.add("range_cast_string_to_timestamp", t("STRING"),
                col1("0001-01-01 00:00:00.000000001", "1677-09-21 00:12:43.145224191",
                        "1677-09-21 00:12:43.145224192", "2262-04-11 23:47:16.854775807",
                        "2262-04-11 23:47:16.854775808", "9999-12-31 23:59:59.999999999",
                        "2024-02-29 12:34:56.123456789", null),
                cast(a, "TIMESTAMP(9)"), tryCast(a, "TIMESTAMP(9)"), cast(a, "TIMESTAMP(8)"),
                cast(a, "TIMESTAMP(7)"), cast(a, "TIMESTAMP(6)"), cast(a, "TIMESTAMP(3)"))
                .legacyToo = true;
        g.add("range_cast_timestamp_to_timestamp9", t("TIMESTAMP(3)"),
                col1("0000-01-01 00:00:00", "0001-01-01 00:00:00", "1677-09-21 00:12:43.145",
                        "1677-09-21 00:12:43.146", "2262-04-11 23:47:16.854",
                        "2262-04-11 23:47:16.855", "9999-12-31 23:59:59.999", null),
                cast(a, "TIMESTAMP(9)"), cast(a, "TIMESTAMP(7)"), cast(a, "TIMESTAMP(6)"));
        g.add("range_cast_timestamp9_down", t("TIMESTAMP(9)"),
                col1("1677-09-21 00:12:43.145224192", "2262-04-11 23:47:16.854775807",
                        "1969-12-31 23:59:59.999999999", null),
                cast(a, "TIMESTAMP(8)"), cast(a, "TIMESTAMP(6)"), cast(a, "TIMESTAMP(3)"),
                cast(a, "TIMESTAMP(0)"), cast(a, "DATE"));
        // A timestamp's DATE uses Java's truncating division: a pre-1970 time of day reads as
        // the next day.
        g.add("range_date_from_timestamp", t("TIMESTAMP(3)"),
                col1("1969-12-31 12:30:45.123", "1969-12-31 23:59:59.999", "0000-01-01 06:00:00",
                        "9999-12-31 23:59:59.999", "1900-01-01 00:00:00", null),
                cast(a, "DATE"));
        // Its TIME uses Java's truncating remainder: valid at midnight (and where truncation
        // to the precision reaches zero), negative for any other pre-1970 time of day, where
        // Flink's job fails.
        g.add("range_time_from_timestamp", t("TIMESTAMP(3)", "TIMESTAMP(9)"),
                rows(r("1969-12-31 00:00:00", "1969-12-31 00:00:00"),
                        r("1900-01-01 00:00:00", "1677-09-22 00:00:00"),
                        r("2024-02-29 12:34:56.789", "2024-02-29 12:34:56.789123456"),
                        r("0000-01-01 00:00:00", "1969-12-31 23:59:59.999999999"),
                        r(null, null)),
                cast(a, "TIME(0)"), cast(a, "TIME(3)"), cast(b, "TIME(0)"));
        g.add("range_time_from_pre1970_timestamp", t("TIMESTAMP(3)"),
                col1("2024-02-29 12:34:56.789", "1969-12-31 12:30:45.123"),
                cast(a, "TIME(0)")).expectError = true;
        g.add("range_time3_from_pre1970_last_millisecond", t("TIMESTAMP(3)"),
                col1("1969-12-31 23:59:59.999"), cast(a, "TIME(3)")).expectError = true;
        g.add("range_time_from_pre1970_timestamp9", t("TIMESTAMP(9)"),
                col1("1969-12-31 12:30:45.123456789"), cast(a, "TIME(3)")).expectError = true;
        // Flink's string-to-timestamp rule rejects year 0 (CAST fails, TRY_CAST and legacy
        // casts give NULL); string-to-DATE accepts it.
        Case year0 = g.add("range_cast_string_year_zero", t("STRING"),
                col1("0000-01-01 00:00:00"), cast(a, "TIMESTAMP(3)"));
        year0.expectError = true;
        year0.legacyToo = true;
        g.add("range_try_cast_string_year_zero", t("STRING"),
                col1("0000-01-01 00:00:00", "0000-01-01", "0001-01-01 00:00:00", null),
                tryCast(a, "TIMESTAMP(3)"), tryCast(a, "TIMESTAMP(9)"), cast(a, "DATE"));
    }

    static void timestampAdd(CalcVectors g) {
        X n = col(0), d = col(1), ts = col(2), ts9 = col(3);
        String[] types = t("INT", "DATE", "TIMESTAMP(3)", "TIMESTAMP(9)");
        String date = "2024-01-31", ts3 = "2024-01-31 10:00:00",
                nanos = "2024-01-31 10:00:00.123456789";
        // Per unit, the counts where Flink computes a value for DATE and both TIMESTAMPs: in
        // range (wrapped or not) or past it.
        String[][] ok = {
            {"YEAR", "2147483647", "-2147483648", "1000000", "8000", "-3000"},
            {"QUARTER", "2147483647", "1000000", "-1000000", "8000", "-3000"},
            {"MONTH", "1000000", "8000", "-3000"},
            {"WEEK", "1000000", "8000", "-3000"},
            {"DAY", "1000000", "-1000000", "8000", "-3000"},
            {"HOUR", "2147483647", "-2147483648", "1000000", "-1000000", "8000"},
            {"MINUTE", "2147483647", "-2147483648", "1000000", "-1000000", "8000"},
            {"SECOND", "2147483647", "-2147483648", "1000000", "-1000000", "8000"},
        };
        for (String[] unit : ok) {
            String[][] rs = new String[unit.length - 1][];
            for (int k = 1; k < unit.length; k++) {
                rs[k - 1] = r(unit[k], date, ts3, nanos);
            }
            String u = unit[0];
            g.add("range_timestampadd_" + u.toLowerCase(), types, rs, tsAdd(u, n, d),
                    tsAdd(u, n, ts), tsAdd(u, n, ts9));
        }
        // Counts where Flink fails for DATE (an int overflow, or a date its converter cannot
        // hold) but computes far timestamps. The harness reads a timestamp through
        // TimestampData.toLocalDateTime, whose day count is an int: 613566757 weeks on
        // (4294967299 days) would read as 3 days on, so that count is tried on DATE only.
        String[][] dateFails = {
            {"QUARTER", "-2147483648"},
            {"MONTH", "2147483647", "-2147483648", "-1000000"},
            {"WEEK", "2147483647", "-2147483648", "-1000000", "306783379", "613566757"},
            {"DAY", "2147483647", "-2147483648"},
        };
        for (String[] unit : dateFails) {
            String u = unit[0];
            java.util.List<String[]> rs = new java.util.ArrayList<>();
            for (int k = 1; k < unit.length; k++) {
                if (!unit[k].equals("613566757")) {
                    rs.add(r(unit[k], ts3, nanos));
                }
                g.add("range_timestampadd_" + u.toLowerCase() + "_date_fails_"
                                + unit[k].replace('-', 'm'), t("INT", "DATE"),
                        rows(r(unit[k], date)), tsAdd(u, col(0), col(1))).expectError = true;
            }
            g.add("range_timestampadd_" + u.toLowerCase() + "_far_timestamps",
                    t("INT", "TIMESTAMP(3)", "TIMESTAMP(9)"), rs.toArray(new String[0][]),
                    tsAdd(u, col(0), col(1)), tsAdd(u, col(0), col(2)));
        }
        X a = col(0), b = col(1);
        X[] everyUnit = new X[UNITS.length];
        for (int k = 0; k < UNITS.length; k++) {
            everyUnit[k] = tsAdd(UNITS[k], b, a);
        }
        g.add("range_timestampadd_date_bounds", t("DATE", "INT"),
                rows(r("9999-12-31", "1"), r("9999-12-31", "-1"), r("0000-01-01", "-1"),
                        r("0000-01-01", "1")),
                everyUnit);
        g.add("range_timestampadd_timestamp9_bounds", t("TIMESTAMP(9)", "INT"),
                rows(r("2262-04-01 00:00:00", "30"), r("1677-10-01 00:00:00.000000001", "-30"),
                        r("2262-04-11 23:47:16.854775807", "1"),
                        r("1677-09-21 00:12:43.145224192", "-1")),
                everyUnit);
        g.add("range_timestampadd_ltz_bounds", t("TIMESTAMP_LTZ(3)", "INT"),
                rows(r("9999-12-31 23:59:59.999", "1"), r("0000-01-01 00:00:00", "-1"),
                        r("2024-01-31 10:00:00", "8000")),
                tsAdd("YEAR", b, a), tsAdd("MONTH", b, a), tsAdd("DAY", b, a),
                tsAdd("SECOND", b, a));
    }

    static void floorCeil(CalcVectors g) {
        X a = col(0);
        g.add("range_floor_ceil_date_bounds", t("DATE"), col1("9999-12-31", "0000-01-01", null),
                ceilTo(a, "YEAR"), ceilTo(a, "MILLENNIUM"), floorTo(a, "MILLENNIUM"),
                floorTo(a, "WEEK"), ceilTo(a, "DECADE"), floorTo(a, "DAY"), ceilTo(a, "DAY"));
        g.add("range_floor_ceil_timestamp_bounds", t("TIMESTAMP(3)"),
                col1("9999-12-31 23:59:59.999", "0000-01-01 00:00:00", null),
                ceilTo(a, "YEAR"), ceilTo(a, "DAY"), floorTo(a, "MILLENNIUM"), floorTo(a, "WEEK"),
                ceilTo(a, "SECOND"), floorTo(a, "SECOND"), ceilTo(a, "MILLISECOND"));
        g.add("range_floor_ceil_timestamp9_bounds", t("TIMESTAMP(9)"),
                col1("2262-04-11 23:47:16.854775807", "1677-09-21 00:12:43.145224192", null),
                ceilTo(a, "YEAR"), floorTo(a, "YEAR"), ceilTo(a, "MONTH"), floorTo(a, "MONTH"),
                ceilTo(a, "WEEK"), floorTo(a, "WEEK"), ceilTo(a, "DAY"), floorTo(a, "DAY"),
                ceilTo(a, "HOUR"), floorTo(a, "HOUR"), ceilTo(a, "MINUTE"), ceilTo(a, "SECOND"),
                floorTo(a, "SECOND"), ceilTo(a, "MILLISECOND"), floorTo(a, "MILLISECOND"));
        g.add("range_floor_ceil_ltz_bounds", t("TIMESTAMP_LTZ(3)"),
                col1("9999-12-31 23:59:59.999", "0000-01-01 00:00:00", null),
                ceilTo(a, "YEAR"), floorTo(a, "MILLENNIUM"), ceilTo(a, "DAY"), floorTo(a, "WEEK"),
                ceilTo(a, "HOUR"));
    }

    static void parsing(CalcVectors g) {
        X a = col(0);
        // TO_DATE with a format reads an unparsable string as Long.MIN_VALUE milliseconds,
        // whose date (through Java int arithmetic) is +1705471-09-27.
        g.add("range_to_date_unparsable", t("STRING"), col1("abc", "2024-01-01", null),
                f("TO_DATE", a, s("yyyy-MM-dd")));
        g.add("range_to_timestamp_year_zero", t("STRING"),
                col1("0000-01-01 00:00:00", "0001-01-01 00:00:00", "9999-12-31 23:59:59.999",
                        null),
                f("TO_TIMESTAMP", a), f("TO_DATE", a));
    }
}
