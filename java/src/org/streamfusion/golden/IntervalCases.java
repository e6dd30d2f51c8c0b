package org.streamfusion.golden;

import static org.streamfusion.golden.CalcVectors.*;

/**
 * Golden Calc cases for interval arithmetic (opcodes 640–649); see {@link CalcVectors}.
 *
 * <p>The SQL is what users write ({@code ts + INTERVAL '1' DAY}, TIMESTAMPADD, TIMESTAMPDIFF);
 * the IR is what Flink's planner turns it into (Calcite's {@code DATETIME_PLUS}, interval
 * times integer, {@code REINTERPRET} of a datetime difference divided by the unit), with the
 * interval literals as their months or milliseconds, so the native kernels are checked on the
 * expressions a compiled plan carries.
 */
final class IntervalCases {
    private IntervalCases() {}

    static final String DAY_TIME = "INTERVAL DAY TO SECOND(3)";
    static final String YEAR_MONTH = "INTERVAL YEAR TO MONTH";

    static X millis(long ms, String sql) {
        return lit(DAY_TIME, Long.toString(ms), sql);
    }

    static X months(int m, String sql) {
        return lit(YEAR_MONTH, Integer.toString(m), sql);
    }

    static X shift(boolean minus, X x, X interval) {
        return call(minus ? "DATETIME_MINUS" : "DATETIME_PLUS",
                minus ? "({0} - {1})" : "({0} + {1})", x, interval);
    }

    /** TIMESTAMPADD(unit, n, x) as Calcite expands it: x + (unit interval * n). */
    static X tsAdd(String unit, X unitInterval, X n, X x) {
        X times = call("INTERVAL_TIMES", "", unitInterval, n);
        X plus = call("DATETIME_PLUS", "", x, times);
        return new X("TIMESTAMPADD(" + unit + ", " + n.sql + ", " + x.sql + ")", plus.ir);
    }

    static X intLit(long v) {
        return lit("INT", Long.toString(v), "");
    }

    static X divInt(X a, long divisor) {
        return call("/", "", a, intLit(divisor));
    }

    /**
     * TIMESTAMPDIFF(unit, a, b) as Flink's planner expands it: the difference b - a as months
     * or milliseconds, reinterpreted as BIGINT, then divided and narrowed per unit (seconds
     * first, as an INT, for WEEK and MILLISECOND; months as an INT first for QUARTER).
     */
    static X tsDiff(String unit, X a, X b) {
        X millis = call("INTERVAL_VALUE", "", call("MINUS_MILLIS", "", b, a));
        X months = call("INTERVAL_VALUE", "", call("MINUS_MONTHS", "", b, a));
        X seconds = cast(divInt(millis, 1000), "INT");
        X out;
        switch (unit) {
            case "SECOND": out = seconds; break;
            case "MINUTE": out = cast(divInt(millis, 60_000L), "INT"); break;
            case "HOUR": out = cast(divInt(millis, 3_600_000L), "INT"); break;
            case "DAY": out = cast(divInt(millis, 86_400_000L), "INT"); break;
            case "WEEK": out = divInt(seconds, 604_800L); break;
            case "MILLISECOND": out = cast(call("*", "", seconds, intLit(1000)), "INT"); break;
            case "MONTH": out = cast(months, "INT"); break;
            case "QUARTER": out = divInt(cast(months, "INT"), 3); break;
            case "YEAR": out = cast(divInt(months, 12), "INT"); break;
            default: throw new IllegalArgumentException(unit);
        }
        return new X("TIMESTAMPDIFF(" + unit + ", " + a.sql + ", " + b.sql + ")", out.ir);
    }

    static void register(CalcVectors g) {
        X ts = col(0), dt = col(1), tm = col(2), tl = col(3), ts9 = col(4), n = col(5);
        X day = millis(86_400_000L, "INTERVAL '1' DAY");
        X month = months(1, "INTERVAL '1' MONTH");
        String[] types = t("TIMESTAMP(3)", "DATE", "TIME(0)", "TIMESTAMP_LTZ(3)", "TIMESTAMP(9)",
                "INT");
        String[][] rows = rows(
                r("2024-01-31 10:00:00", "2024-01-31", "23:30:00", "2024-01-31 10:00:00",
                        "2024-02-29 23:59:59.999999999", "1"),
                r("1969-12-31 12:30:45.123", "1969-12-31", "00:00:00", "1969-12-31 23:59:59.999",
                        "1969-12-31 23:59:59.000000001", "-25"),
                r("2000-02-29 00:00:00", "2000-02-29", "12:00:00", "2000-02-29 00:00:00",
                        "2000-03-31 00:00:00.5", "12"),
                r("1900-03-01 06:07:08.009", "1000-03-01", "01:02:03", "1900-03-01 06:07:08.009",
                        "1900-03-01 06:07:08.009000001", "-1"),
                r(null, null, null, null, null, null),
                r("2024-05-01 00:00:00", "2024-05-01", "00:00:01", "2024-05-01 00:00:00",
                        "2024-05-01 00:00:00", null));

        // x ± INTERVAL: DAY TO SECOND moves milliseconds (a DATE by whole days, a TIME around
        // the clock), YEAR TO MONTH moves months clamping to the month's end (a TIME not at all).
        g.add("interval_datetime_shift", types, rows,
                shift(false, ts, day), shift(true, ts, month),
                shift(false, ts, months(14, "INTERVAL '1-2' YEAR TO MONTH")),
                shift(false, ts, millis(900_610_123L, "INTERVAL '10 10:10:10.123' DAY TO SECOND")),
                shift(true, ts, millis(8_639_999_999L, "INTERVAL '99 23:59:59.999' DAY TO SECOND")),
                shift(true, ts, months(1200, "INTERVAL '100' YEAR(3)")),
                shift(false, dt, day), shift(false, dt, millis(129_600_000L, "INTERVAL '36' HOUR")),
                shift(true, dt, millis(3_600_000L, "INTERVAL '1' HOUR")),
                shift(true, dt, month), shift(false, dt, months(12, "INTERVAL '1' YEAR")),
                shift(false, tm, millis(3_600_000L, "INTERVAL '1' HOUR")),
                shift(true, tm, millis(1_800_000L, "INTERVAL '30' MINUTE")),
                shift(false, tm, millis(90_061_000L, "INTERVAL '1 01:01:01' DAY TO SECOND")),
                shift(true, tm, millis(-86_400_000L * 3 - 1000, "INTERVAL '-3 00:00:01' DAY TO SECOND")),
                shift(false, tm, month),
                shift(false, tl, day), shift(true, tl, month),
                shift(false, ts9, millis(1L, "INTERVAL '0.001' SECOND")),
                shift(true, ts9, day), shift(false, ts9, month));

        // Sums of intervals (of one family) before they move a datetime.
        X hours = call("INTERVAL_TIMES", "({0} * {1})", millis(3_600_000L, "INTERVAL '1' HOUR"),
                n);
        X yearsMonths = call("INTERVAL_TIMES", "({0} * {1})", months(12, "INTERVAL '1' YEAR"),
                n);
        g.add("interval_sums", types, rows,
                shift(false, ts, call("INTERVAL_PLUS", "({0} + {1})", hours, day)),
                shift(true, dt, call("INTERVAL_PLUS", "({0} + {1})", yearsMonths, month)),
                shift(false, ts9, call("INTERVAL_PLUS", "({0} + {1})", day, hours)));

        // TIMESTAMPADD: the unit's interval times the count (Java int arithmetic for months).
        g.add("interval_timestampadd", types, rows,
                tsAdd("WEEK", millis(604_800_000L, "WEEK"), n, ts),
                tsAdd("DAY", day, n, ts), tsAdd("HOUR", millis(3_600_000L, "HOUR"), n, ts),
                tsAdd("MILLISECOND", millis(1L, "MILLISECOND"), n, ts),
                tsAdd("MONTH", month, n, ts), tsAdd("QUARTER", months(3, "QUARTER"), n, ts),
                tsAdd("YEAR", months(12, "YEAR"), n, dt), tsAdd("DAY", day, n, dt),
                tsAdd("MONTH", month, n, dt), tsAdd("DAY", day, n, tl),
                tsAdd("MONTH", month, n, tl), tsAdd("SECOND", millis(1000L, "SECOND"), n, ts9),
                tsAdd("MINUTE", millis(60_000L, "MINUTE"), n, tm));

        // Month counts wrap Java ints; a whole-day count past an int fails (Math.toIntExact).
        g.add("interval_timestampadd_wraps", t("DATE", "INT"),
                rows(r("2024-01-31", "2147483647"), r("2024-01-31", "-2147483648"),
                        r("2024-01-31", "357913942")),
                tsAdd("YEAR", months(12, "YEAR"), col(1), col(0)));
        // 178956971 years wrap to -2147483644 months: a year Flink's calendar rejects.
        g.add("interval_timestampadd_month_overflow", t("DATE", "INT"),
                rows(r("2024-01-31", "1"), r("2024-01-31", "178956971")),
                tsAdd("YEAR", months(12, "YEAR"), col(1), col(0))).expectError = true;
        g.add("interval_date_plus_week_overflow", t("DATE", "INT"),
                rows(r("2024-01-31", "1"), r("2024-01-31", "2147483647")),
                tsAdd("WEEK", millis(604_800_000L, "WEEK"), col(1), col(0))).expectError = true;

        // TIMESTAMPDIFF: b - a in the unit, truncated; a TIMESTAMP(9)'s nanoseconds are dropped.
        g.add("interval_timestampdiff", types, rows,
                tsDiff("SECOND", ts, ts9), tsDiff("MONTH", ts, ts9), tsDiff("YEAR", ts, ts9),
                tsDiff("QUARTER", dt, ts), tsDiff("DAY", dt, ts), tsDiff("HOUR", ts9, ts),
                tsDiff("MINUTE", dt, ts9), tsDiff("MONTH", dt, ts), tsDiff("WEEK", ts, ts9),
                tsDiff("MILLISECOND", ts, ts9), tsDiff("HOUR", tl, tl), tsDiff("DAY", dt, dt),
                tsDiff("YEAR", dt, dt), tsDiff("MONTH", tl, tl));
    }
}
