package org.streamfusion.golden;

import static org.streamfusion.golden.CalcVectors.*;

/**
 * Golden Calc cases for temporal functions (opcodes 600–699); see {@link CalcVectors}.
 *
 * <p>A time unit is rendered as the SQL keyword and carried in the IR as a STRING literal
 * naming it (the symbol Calcite passes). FLOOR/CEIL to a unit are named {@code FLOOR_TO} /
 * {@code CEIL_TO} in the IR (the numeric FLOOR/CEIL are math functions). The session time
 * zone is the JVM default (UTC). Clock functions are non-deterministic, so their cases
 * assert properties (the year is at least 2024, the hour of day is in range).
 */
final class TemporalCases {
    private TemporalCases() {}

    /** A time unit symbol: SQL keyword, IR string literal. */
    static X u(String unit) {
        return lit("STRING", unit, unit);
    }

    static X extract(String unit, X x) {
        return call("EXTRACT", "EXTRACT({0} FROM {1})", u(unit), x);
    }

    static X floorTo(X x, String unit) {
        return call("FLOOR_TO", "FLOOR({0} TO {1})", x, u(unit));
    }

    static X ceilTo(X x, String unit) {
        return call("CEIL_TO", "CEIL({0} TO {1})", x, u(unit));
    }

    static X tsAdd(String unit, X n, X x) {
        return call("TIMESTAMPADD", "TIMESTAMPADD({0}, {1}, {2})", u(unit), n, x);
    }

    static X tsDiff(String unit, X a, X b) {
        return call("TIMESTAMPDIFF", "TIMESTAMPDIFF({0}, {1}, {2})", u(unit), a, b);
    }

    static X[] extracts(X x, String... units) {
        X[] out = new X[units.length];
        for (int k = 0; k < units.length; k++) {
            out[k] = extract(units[k], x);
        }
        return out;
    }

    static final String[] ALL_UNITS = {"MILLENNIUM", "CENTURY", "DECADE", "YEAR", "ISOYEAR",
        "QUARTER", "MONTH", "WEEK", "DAY", "DOY", "DOW", "ISODOW", "HOUR", "MINUTE", "SECOND",
        "MILLISECOND", "MICROSECOND", "NANOSECOND", "EPOCH"};

    static void register(CalcVectors g) {
        X a = col(0), b = col(1), c = col(2), d = col(3);

        // EXTRACT: every unit; pre-1970 timestamps keep Flink's truncating arithmetic.
        g.add("temporal_extract_timestamp", t("TIMESTAMP(3)"),
                col1("1969-12-31 12:30:45.123", "1970-01-01 00:00:00", "2024-02-29 23:59:59.999",
                        "0001-01-01 00:00:00", "1900-03-01 06:07:08.009", "2021-01-03 10:00:00",
                        "2020-12-31 23:59:59.500", "1582-10-04 01:02:03", "9999-12-31 23:59:59.999",
                        null),
                extracts(a, ALL_UNITS));
        g.add("temporal_extract_timestamp9", t("TIMESTAMP(9)"),
                col1("1969-12-31 23:59:59.999999999", "2000-01-01 00:00:00.000000001",
                        "2024-02-29 12:34:56.123456789", "1970-01-01 00:00:00", null),
                extracts(a, "MICROSECOND", "NANOSECOND", "MILLISECOND", "SECOND", "YEAR", "DAY",
                        "EPOCH"));
        g.add("temporal_extract_date", t("DATE"),
                col1("1969-12-31", "1970-01-01", "2024-02-29", "0001-01-01", "9999-12-31",
                        "1582-10-04", "1900-02-28", "2021-01-03", "2020-12-31", null),
                extracts(a, "MILLENNIUM", "CENTURY", "DECADE", "YEAR", "ISOYEAR", "QUARTER",
                        "MONTH", "WEEK", "DAY", "DOY", "DOW", "ISODOW", "EPOCH", "HOUR", "MINUTE",
                        "SECOND", "MILLISECOND"));
        g.add("temporal_extract_time", t("TIME(0)"),
                col1("00:00:00", "23:59:59", "12:30:45", null),
                extracts(a, "HOUR", "MINUTE", "SECOND", "MILLISECOND"));
        g.add("temporal_extract_ltz", t("TIMESTAMP_LTZ(3)"),
                col1("1969-12-31 12:30:45.123", "2024-02-29 23:59:59.999", "1970-01-01 00:00:00",
                        null),
                extracts(a, "YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "DOY", "DOW", "HOUR",
                        "MINUTE", "SECOND", "MILLISECOND", "EPOCH"));
        g.add("temporal_date_part_functions", t("TIMESTAMP(3)", "DATE"),
                rows(r("2024-02-29 23:59:59.999", "2024-02-29"),
                        r("1969-12-31 12:30:45.123", "1969-12-31"),
                        r("2021-01-03 10:00:00", "2021-01-03"),
                        r(null, null)),
                f("YEAR", a), f("QUARTER", a), f("MONTH", a), f("WEEK", a), f("DAYOFYEAR", a),
                f("DAYOFMONTH", a), f("DAYOFWEEK", a), f("HOUR", a), f("MINUTE", a),
                f("SECOND", a), f("YEAR", b), f("QUARTER", b), f("MONTH", b), f("WEEK", b),
                f("DAYOFYEAR", b), f("DAYOFMONTH", b), f("DAYOFWEEK", b));

        // FLOOR / CEIL to a unit.
        String[] tsUnits = {"MILLENNIUM", "CENTURY", "DECADE", "YEAR", "QUARTER", "MONTH",
            "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND"};
        X[] floorCeil = new X[2 * tsUnits.length];
        for (int k = 0; k < tsUnits.length; k++) {
            floorCeil[2 * k] = floorTo(a, tsUnits[k]);
            floorCeil[2 * k + 1] = ceilTo(a, tsUnits[k]);
        }
        g.add("temporal_floor_ceil_timestamp", t("TIMESTAMP(3)"),
                col1("1969-12-31 12:30:45.123", "2024-01-31 10:00:00", "2024-02-29 23:59:59.999",
                        "2000-01-01 00:00:00", "1500-06-15 12:00:00", "0001-01-01 00:00:00", null),
                floorCeil);
        g.add("temporal_floor_ceil_timestamp9", t("TIMESTAMP(9)"),
                col1("2024-02-29 23:59:59.123456789", "1969-12-31 23:59:59.999999999",
                        "2000-01-01 00:00:00", "2000-01-01 00:00:00.000000001", null),
                floorTo(a, "SECOND"), ceilTo(a, "SECOND"), floorTo(a, "MILLISECOND"),
                ceilTo(a, "MILLISECOND"), floorTo(a, "DAY"), ceilTo(a, "MONTH"));
        String[] dateUnits = {"MILLENNIUM", "CENTURY", "DECADE", "YEAR", "QUARTER", "MONTH",
            "WEEK"};
        X[] dateFloorCeil = new X[2 * dateUnits.length + 2];
        for (int k = 0; k < dateUnits.length; k++) {
            dateFloorCeil[2 * k] = floorTo(a, dateUnits[k]);
            dateFloorCeil[2 * k + 1] = ceilTo(a, dateUnits[k]);
        }
        // DAY goes through Flink's Julian-day floor too (pre-1582 dates shift).
        dateFloorCeil[2 * dateUnits.length] = floorTo(a, "DAY");
        dateFloorCeil[2 * dateUnits.length + 1] = ceilTo(a, "DAY");
        g.add("temporal_floor_ceil_date", t("DATE"),
                col1("1969-12-31", "2024-01-31", "2024-02-29", "2000-01-01", "2024-01-01",
                        "1500-06-15", null),
                dateFloorCeil);
        g.add("temporal_floor_ceil_ltz", t("TIMESTAMP_LTZ(3)"),
                col1("1969-12-31 12:30:45.123", "2024-02-29 23:59:59.999", "2024-03-01 00:00:00",
                        null),
                floorTo(a, "HOUR"), ceilTo(a, "HOUR"), floorTo(a, "DAY"), ceilTo(a, "DAY"),
                floorTo(a, "MONTH"), ceilTo(a, "YEAR"), floorTo(a, "WEEK"), floorTo(a, "MINUTE"),
                ceilTo(a, "SECOND"));
        // A TIME rounds as an int of milliseconds (SqlFunctionUtils.floor/ceil); CEIL past
        // 23:00 to HOUR would be 24:00, which no TIME holds (the case below).
        g.add("temporal_floor_ceil_time", t("TIME(0)", "TIME(3)"),
                rows(r("00:00:00", "00:00:00.001"), r("12:34:56", "12:34:56.789"),
                        r("22:59:59", "22:59:59.999"), r("22:00:00", "22:00:00.000"),
                        r(null, null)),
                floorTo(a, "HOUR"), ceilTo(a, "HOUR"), floorTo(a, "MINUTE"), ceilTo(a, "MINUTE"),
                floorTo(a, "SECOND"), ceilTo(b, "SECOND"), floorTo(b, "SECOND"),
                floorTo(b, "MILLISECOND"), ceilTo(b, "MILLISECOND"), floorTo(b, "HOUR"),
                ceilTo(b, "MINUTE"));
        g.add("temporal_ceil_time_to_midnight", t("TIME(0)"), col1("23:30:00"),
                ceilTo(a, "HOUR"));

        // TIMESTAMPADD: month arithmetic clamps to the month's end; DATE + sub-day units is a
        // TIMESTAMP.
        g.add("temporal_timestampadd", t("TIMESTAMP(3)", "INT", "DATE"),
                rows(r("2024-01-31 10:00:00", "1", "2024-01-31"),
                        r("2024-02-29 23:59:59.999", "-12", "2024-02-29"),
                        r("1969-12-31 12:30:45.123", "25", "1969-12-31"),
                        r("2000-03-31 00:00:00", "-1", "2000-03-31"),
                        r("2024-05-01 00:00:00", null, "2024-05-01"),
                        r(null, "3", null)),
                tsAdd("YEAR", b, a), tsAdd("QUARTER", b, a), tsAdd("MONTH", b, a),
                tsAdd("WEEK", b, a), tsAdd("DAY", b, a), tsAdd("HOUR", b, a),
                tsAdd("MINUTE", b, a), tsAdd("SECOND", b, a), tsAdd("YEAR", b, c),
                tsAdd("QUARTER", b, c), tsAdd("MONTH", b, c), tsAdd("WEEK", b, c),
                tsAdd("DAY", b, c), tsAdd("HOUR", b, c), tsAdd("MINUTE", b, c));
        g.add("temporal_timestampadd_ltz_ts9", t("TIMESTAMP_LTZ(3)", "TIMESTAMP(9)", "INT"),
                rows(r("2024-01-31 10:00:00", "2024-01-31 10:00:00.123456789", "1"),
                        r("1969-12-31 23:59:59.999", "1969-12-31 23:59:59.999999999", "-1"),
                        r(null, null, "1"), r("2024-02-29 00:00:00", "2024-02-29 00:00:00", null)),
                tsAdd("SECOND", c, a), tsAdd("MONTH", c, a), tsAdd("DAY", c, a),
                tsAdd("DAY", c, b), tsAdd("MONTH", c, b), tsAdd("SECOND", c, b));

        // TIMESTAMPDIFF(unit, a, b) is b - a in whole units, truncated to INT.
        String[] diffUnits = {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE",
            "SECOND", "MILLISECOND"};
        X[] diffs = new X[diffUnits.length + 6];
        for (int k = 0; k < diffUnits.length; k++) {
            diffs[k] = tsDiff(diffUnits[k], a, b);
        }
        diffs[diffUnits.length] = tsDiff("YEAR", c, d);
        diffs[diffUnits.length + 1] = tsDiff("MONTH", c, d);
        diffs[diffUnits.length + 2] = tsDiff("DAY", c, d);
        diffs[diffUnits.length + 3] = tsDiff("MONTH", a, d);
        diffs[diffUnits.length + 4] = tsDiff("HOUR", c, b);
        diffs[diffUnits.length + 5] = tsDiff("SECOND", c, a);
        g.add("temporal_timestampdiff", t("TIMESTAMP(3)", "TIMESTAMP(3)", "DATE", "DATE"),
                rows(r("2024-01-31 10:00:00", "2024-02-29 09:59:59.999", "2024-01-31",
                                "2024-02-29"),
                        r("1969-12-31 12:30:45.123", "2024-03-31 10:00:00", "1969-12-31",
                                "1900-03-01"),
                        r("2024-03-31 10:00:00", "1900-03-01 00:00:00", "2024-03-31",
                                "2024-03-31"),
                        r("2000-02-29 00:00:00", "2001-02-28 00:00:00", "2000-02-29",
                                "2001-02-28"),
                        r(null, "2024-01-01 00:00:00", null, "2024-01-01")),
                diffs);
        g.add("temporal_timestampdiff_ltz", t("TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(3)"),
                rows(r("2024-01-31 10:00:00", "2024-03-01 00:00:00"),
                        r("1969-12-31 23:59:59.999", "1970-01-01 00:00:00"), r(null, null)),
                tsDiff("MONTH", a, b), tsDiff("DAY", a, b), tsDiff("SECOND", a, b),
                tsDiff("MILLISECOND", a, b));

        // DATE_FORMAT: DateTimeFormatter for timestamps, SimpleDateFormat for strings.
        g.add("temporal_date_format_timestamp", t("TIMESTAMP(3)", "STRING"),
                rows(r("1969-12-31 12:30:45.123", "yyyy-MM-dd HH:mm:ss.SSS"),
                        r("2024-02-29 00:05:09.007", "dd/MM/yy"),
                        r("2000-01-01 23:00:00", "EEEE, d MMMM uuuu 'at' h a"),
                        r("2024-07-04 12:00:00", null),
                        r(null, "yyyy")),
                f("DATE_FORMAT", a, s("yyyy-MM-dd HH:mm:ss.SSS")),
                f("DATE_FORMAT", a, s("yy/M/d h:m:s a")),
                f("DATE_FORMAT", a, s("EEE, d MMM yyyy 'week' k K")),
                f("DATE_FORMAT", a, s("D DD DDD QQ Q '' [HH]")),
                f("DATE_FORMAT", a, s("yyyyMMddHHmmssSSS")),
                f("DATE_FORMAT", a, b));
        g.add("temporal_date_format_timestamp9", t("TIMESTAMP(9)", "TIMESTAMP_LTZ(3)"),
                rows(r("2024-02-29 12:34:56.123456789", "2024-02-29 12:34:56.123"),
                        r("1900-01-01 00:00:00.000000001", "1969-12-31 23:59:59.999"),
                        r(null, null)),
                f("DATE_FORMAT", a, s("yyyy-MM-dd HH:mm:ss.SSSSSSSSS")),
                f("DATE_FORMAT", a, s("n S SS")),
                f("DATE_FORMAT", b, s("yyyy-MM-dd HH:mm:ss.SSS EEE")));
        g.add("temporal_date_format_string", t("STRING"),
                col1("2024-02-29 23:59:59", "2024-02-30 10:00:00", "1969-12-31 00:00:01",
                        "2024-01-05", "abc", "2024-01-05 10:11:12.999 trailing", null),
                f("DATE_FORMAT", a, s("yyyy/MM/dd HH")),
                f("DATE_FORMAT", a, s("EEE MMM d yyyy, h:mm a")),
                f("DATE_FORMAT", a, s("yyyyMMdd SSS")));
        g.add("temporal_date_format_bad_pattern", t("TIMESTAMP(3)"),
                col1("2024-02-29 23:59:59"),
                f("DATE_FORMAT", a, s("yyyy-bb"))).expectError = true;

        // Unix time, in the session time zone (UTC).
        g.add("temporal_from_unixtime", t("BIGINT", "STRING"),
                rows(r("0", "yyyy/MM/dd HH:mm:ss EEE"), r("-1", "yyyyMMdd"),
                        r("1709251199", "MMMM d, yyyy h a"), r("253402300799", null),
                        r("-2208988800", "yyyy-MM-dd"), r(null, "yyyy")),
                f("FROM_UNIXTIME", a), f("FROM_UNIXTIME", a, s("yyyy/MM/dd HH:mm:ss EEE")),
                f("FROM_UNIXTIME", a, b));
        g.add("temporal_unix_timestamp", t("STRING"),
                col1("1970-01-01 00:00:00", "1969-12-31 23:59:59", "2024-02-29 12:00:00",
                        "2024-02-29 12:00:00.999", "2024-02-30 00:00:00", "1900-01-01 00:00:00",
                        null),
                f("UNIX_TIMESTAMP", a), f("UNIX_TIMESTAMP", a, s("yyyy-MM-dd")),
                f("UNIX_TIMESTAMP", a, s("yyyy-MM-dd HH")));

        // String to DATE / TIMESTAMP.
        g.add("temporal_to_timestamp", t("STRING"),
                col1("2024-02-29 23:59:59.123456", "1969-12-31 12:30:45.1", "2024-1-5 3:4:5",
                        "2024-01-05", "2024-02-30 00:00:00", "abc", "2024-01-05 10:00",
                        "0001-01-01 00:00:00", null),
                f("TO_TIMESTAMP", a));
        g.add("temporal_to_timestamp_format", t("STRING"),
                col1("2024-02-29 23:59:59", "2023-02-30 10:00:00", "2024-01-05",
                        "2024-01-05 10:00:00.5", "x", null),
                f("TO_TIMESTAMP", a, s("yyyy-MM-dd HH:mm:ss")));
        g.add("temporal_to_date", t("STRING"),
                col1("2024-02-29", "2023-02-29", "2024-1-5", "2024-01-05 10:00:00", "2024",
                        "2024-04-31", "0000-01-01", "abc", "", null),
                f("TO_DATE", a));
        g.add("temporal_to_date_format", t("STRING"),
                col1("2024-02-29", "1969-12-31", "2024-13-01", "2024-02-30 10:00:00", null),
                f("TO_DATE", a, s("yyyy-MM-dd")));
        g.add("temporal_to_timestamp_ltz", t("BIGINT", "DOUBLE", "DECIMAL(10, 3)", "STRING"),
                rows(r("0", "1500.7", "1.999", "2024-02-29 23:59:59.123"),
                        r("-1", "-1.5", "-1.500", "1969-12-31 23:59:59"),
                        r("1709251199", "1.7092511995E9", "1709251.199", "2024-01-05"),
                        r("253402300800", "2.534023008E11", "0.000", "1900-01-01 00:00:00"),
                        r(null, null, null, null)),
                f("TO_TIMESTAMP_LTZ", a), f("TO_TIMESTAMP_LTZ", a, i(0)),
                f("TO_TIMESTAMP_LTZ", a, i(3)), f("TO_TIMESTAMP_LTZ", b, i(0)),
                f("TO_TIMESTAMP_LTZ", b, i(3)), f("TO_TIMESTAMP_LTZ", c, i(0)),
                f("TO_TIMESTAMP_LTZ", c, i(3)), f("TO_TIMESTAMP_LTZ", d),
                f("TO_TIMESTAMP_LTZ", d, s("yyyy-MM-dd HH:mm:ss")));

        g.add("temporal_to_timestamp_ltz_unparsable", t("STRING"), col1("2024-01-05", "abc"),
                f("TO_TIMESTAMP_LTZ", a)).expectError = true;

        // The clock: properties only (values differ run to run).
        g.add("temporal_clock", t("INT"), col1("1", null),
                ge(f("YEAR", call("CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP")), i(2024)),
                ge(f("YEAR", call("LOCALTIMESTAMP", "LOCALTIMESTAMP")), i(2024)),
                ge(f("YEAR", call("CURRENT_DATE", "CURRENT_DATE")), i(2024)),
                ge(f("HOUR", call("CURRENT_TIME", "CURRENT_TIME")), i(0)),
                lt(f("HOUR", call("LOCALTIME", "LOCALTIME")), i(24)),
                ge(f("YEAR", f("NOW")), i(2024)),
                ge(f("YEAR", f("CURRENT_ROW_TIMESTAMP")), i(2024)),
                gt(f("UNIX_TIMESTAMP"), i(1700000000)));
    }
}
