package org.streamfusion.golden;

import static org.streamfusion.golden.CalcVectors.*;

/**
 * Golden Calc cases for casts to and from TIMESTAMP_LTZ in several session time zones; see
 * {@link CalcVectors}.
 *
 * <p>Flink converts with {@code java.time} ({@code LocalDateTime.atZone} and {@code
 * LocalDateTime.ofInstant}): a wall-clock time in a daylight-saving gap moves later by the
 * gap, one in an overlap takes the earlier offset, and before a zone's first transition its
 * local mean time applies. The rows put values in those places for each zone.
 */
final class ZoneCases {
    private ZoneCases() {}

    static void register(CalcVectors g) {
        X ts = col(0), ltz = col(1), dt = col(2), tm = col(3), s = col(4), ts9 = col(5);
        String[] types = t("TIMESTAMP(3)", "TIMESTAMP_LTZ(3)", "DATE", "TIME(0)", "STRING",
                "TIMESTAMP(9)");
        X[] exprs = {
            cast(ts, "TIMESTAMP_LTZ(3)"), cast(ltz, "TIMESTAMP(3)"), cast(ltz, "DATE"),
            cast(ltz, "TIME(0)"), cast(ltz, "STRING"), cast(dt, "TIMESTAMP_LTZ(3)"),
            cast(tm, "TIMESTAMP_LTZ(3)"), cast(s, "TIMESTAMP_LTZ(3)"),
            cast(ts9, "TIMESTAMP_LTZ(9)"), cast(ltz, "TIMESTAMP(9)"),
            cast(ltz, "TIMESTAMP_LTZ(0)"), cast(ltz, "VARCHAR(4)"), cast(tm, "TIMESTAMP(3)"),
            cast(cast(ts, "TIMESTAMP_LTZ(3)"), "TIMESTAMP(3)")
        };
        String[][] newYork = rows(
                // The spring-forward gap (02:00-03:00 local) and the fall-back overlap.
                r("2024-03-10 02:30:00", "2024-03-10 07:30:00", "2024-03-10", "02:30:00",
                        "2024-03-10 02:30:00.123", "2024-03-10 02:30:00.123456789"),
                r("2024-11-03 01:30:00", "2024-11-03 05:30:00", "2024-11-03", "01:30:00",
                        "2024-11-03 01:30:00", "2024-11-03 01:30:00.000000001"),
                r("2024-11-03 01:30:00", "2024-11-03 06:30:00", "2024-11-03", "23:59:59",
                        "2024-11-3 1:30:0", "2024-11-03 00:59:59.999999999"),
                // Local mean time (-04:56:02) before 1883's standard time.
                r("1850-06-01 12:00:00", "1850-06-01 12:00:00.5", "1850-06-01", "00:00:00",
                        "1850-06-01 12:00:00", "1850-06-01 12:00:00"),
                // Before the epoch, an instant whose local date is the previous day.
                r("1969-12-31 23:00:00", "1970-01-01 02:00:00.999", "1969-12-31", "12:00:00",
                        "1969-12-31 23:59:59.999", "1969-12-31 23:00:00.5"),
                r(null, null, null, null, null, null));
        g.add("ltz_casts_new_york", types, newYork, exprs).zone = "America/New_York";
        g.add("ltz_casts_kolkata", types, newYork, exprs).zone = "Asia/Kolkata";
        g.add("ltz_casts_fixed_offset", types, newYork, exprs).zone = "-03:30";
        g.add("ltz_casts_utc", types, newYork, exprs);
        // Sao Paulo's 2018 spring-forward was at midnight: that DATE's start is 01:00.
        g.add("ltz_casts_sao_paulo", types,
                rows(r("2018-11-04 00:30:00", "2018-11-04 03:00:00", "2018-11-04", "00:15:00",
                        "2018-11-04 00:00:00", "2018-11-04 00:00:00.000000001"),
                        r("2019-02-16 23:30:00", "2019-02-17 01:30:00", "2019-02-16", "23:30:00",
                                "2019-02-16 23:59:59", "2019-02-16 23:00:00")),
                exprs).zone = "America/Sao_Paulo";
        // UNIX_TIMESTAMP parses with SimpleDateFormat: GregorianCalendar's hybrid calendar
        // (Julian fields before 1582-10-15) and java.util.TimeZone's wall-time offsets (an
        // overlap's later offset).
        X unix = f("UNIX_TIMESTAMP", col(0));
        X unixDate = f("UNIX_TIMESTAMP", col(0), lit("CHAR(10)", "yyyy-MM-dd", "'yyyy-MM-dd'"));
        String[][] texts = col1("2024-11-03 01:30:00", "2024-03-10 02:30:00",
                "0001-01-01 00:00:00", "1582-10-10 12:00:00", "1582-10-15 00:00:00",
                "1582-10-04 23:59:59", "1850-06-01 12:00:00", "2024-02-30 00:00:00", "nonsense",
                null);
        g.add("unix_timestamp_new_york", t("STRING"), texts, unix, unixDate).zone =
                "America/New_York";
        g.add("unix_timestamp_utc", t("STRING"), texts, unix, unixDate);
        // CONVERT_TZ: SimpleDateFormat in java.util.TimeZone, both ways; NULL where the text
        // does not parse. Past 2099 the zones keep their last daylight-saving rule.
        X s0 = col(0);
        X[] converts = {
            f("CONVERT_TZ", s0, lit("CHAR(3)", "UTC", "'UTC'"),
                    lit("CHAR(16)", "America/New_York", "'America/New_York'")),
            f("CONVERT_TZ", s0, lit("CHAR(16)", "America/New_York", "'America/New_York'"),
                    lit("CHAR(12)", "Asia/Kolkata", "'Asia/Kolkata'")),
            f("CONVERT_TZ", s0, lit("CHAR(9)", "GMT+05:30", "'GMT+05:30'"),
                    lit("CHAR(19)", "America/Los_Angeles", "'America/Los_Angeles'"))
        };
        g.add("convert_tz", t("STRING"), texts, converts);
        g.add("convert_tz_far_future", t("STRING"),
                col1("2262-07-01 12:00:00", "2262-11-02 05:30:00", "3000-03-14 12:00:00"),
                converts);
        // A string that does not parse fails the cast.
        g.add("ltz_cast_bad_string", t("STRING"), col1("2024-01-01 00:00:00", "not a time"),
                cast(col(0), "TIMESTAMP_LTZ(3)")).expectError = true;
    }
}
