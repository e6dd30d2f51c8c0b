package org.streamfusion.golden;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;

/**
 * Produces Flink internal field values (the classes GenericRowData holds) for one column: a fixed
 * list of boundary values per type, plus seeded random ones. All randomness comes from the one
 * SplittableRandom passed in, so the draw order alone fixes the output.
 */
final class ValueGen {
    /** 0001-01-01 and 9999-12-31 as epoch days. */
    static final int MIN_DATE = -719_162;
    static final int MAX_DATE = 2_932_896;
    static final int MILLIS_PER_DAY = 86_400_000;
    /** 0001-01-01T00:00:00 and 9999-12-31T23:59:59.999 as epoch millis. */
    static final long MIN_TS_MILLIS = -62_135_596_800_000L;
    static final long MAX_TS_MILLIS = 253_402_300_799_999L;
    /** p >= 7 is stored as i64 nanoseconds on the Rust side: stay within +-9.2e18 ns. */
    static final long NANO_SAFE_MILLIS = 9_200_000_000_000L;
    /** Largest INTERVAL DAY(2) TO SECOND(3): 99 23:59:59.999. */
    static final long MAX_DT_PRECISE = 8_639_999_999L;
    /** Largest INTERVAL YEAR(2) TO MONTH: 99-11. */
    static final int MAX_YM_PRECISE = 1_199;

    private final SplittableRandom rnd;

    ValueGen(SplittableRandom rnd) {
        this.rnd = rnd;
    }

    // ---------------------------------------------------------------- boundary values

    /** Boundary values for the column; every one is valid for the column's type. */
    List<Object> specials(Col c) {
        switch (c.kind) {
            case BOOLEAN:
                return List.of(true, false);
            case TINYINT:
                return List.of((byte) 0, (byte) -1, (byte) 1, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case SMALLINT:
                return List.of((short) 0, (short) -1, (short) 1, Short.MIN_VALUE, Short.MAX_VALUE);
            case INT:
                return List.of(0, -1, 1, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case BIGINT:
                return List.of(0L, -1L, 1L, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 32, -(1L << 32));
            case FLOAT:
                return floatSpecials();
            case DOUBLE:
                return doubleSpecials();
            case DECIMAL:
                return decimalSpecials(c.p, c.s);
            case CHAR:
            case VARCHAR:
                return stringSpecials(c.p);
            case BINARY:
            case VARBINARY:
                return binarySpecials(c.p);
            case DATE:
                return List.of(0, -1, 1, MIN_DATE, MAX_DATE, 19_000, -25_567);
            case TIME:
                return timeSpecials(c.p);
            case TIMESTAMP:
            case TIMESTAMP_LTZ:
                return timestampSpecials(c.p);
            case INTERVAL_YM:
                return List.of(0, 1, -1, 12, MAX_YM_PRECISE, -MAX_YM_PRECISE,
                        Integer.MIN_VALUE, Integer.MAX_VALUE);
            case INTERVAL_DT:
                return List.of(0L, 1L, -1L, (long) MILLIS_PER_DAY, (long) -MILLIS_PER_DAY,
                        MAX_DT_PRECISE, -MAX_DT_PRECISE);
            case ROW:
                return rowSpecials(c);
            default:
                throw new IllegalArgumentException(c.token);
        }
    }

    /** Every field's first boundary value, every field NULL, every field's last boundary value. */
    private List<Object> rowSpecials(Col c) {
        int n = c.children.length;
        GenericRowData first = new GenericRowData(n);
        GenericRowData last = new GenericRowData(n);
        for (int i = 0; i < n; i++) {
            List<Object> sp = specials(c.children[i]);
            first.setField(i, sp.get(0));
            last.setField(i, sp.get(sp.size() - 1));
        }
        return List.of(first, new GenericRowData(n), last);
    }

    /** Fields drawn in index order: ~1 in 8 NULL, ~2 in 8 a boundary value, else random. */
    private GenericRowData randomRow(Col c) {
        GenericRowData row = new GenericRowData(c.children.length);
        for (int i = 0; i < c.children.length; i++) {
            Col f = c.children[i];
            int r = rnd.nextInt(8);
            if (r == 0) {
                continue;
            }
            if (r <= 2) {
                List<Object> sp = specials(f);
                row.setField(i, sp.get(rnd.nextInt(sp.size())));
            } else {
                row.setField(i, random(f));
            }
        }
        return row;
    }

    /** Includes NaNs with non-canonical payloads: the key row stores raw bits, never canonical. */
    private static List<Object> floatSpecials() {
        int[] bits = {
            0x7fc00000, 0x7fc00001, 0xffc00000, 0x7f800001, 0xff800001, // NaNs
            0x80000000, 0x00000000, 0x7f800000, 0xff800000, // -0, 0, +inf, -inf
            0x00000001, 0x80000001, 0x007fffff, 0x00400000, 0x00800000, // MIN_VALUE, subnormals, MIN_NORMAL
            0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000 // +-MAX_VALUE, +-1
        };
        List<Object> out = new ArrayList<>();
        for (int b : bits) {
            out.add(Float.intBitsToFloat(b));
        }
        return out;
    }

    private static List<Object> doubleSpecials() {
        long[] bits = {
            0x7ff8000000000000L, 0x7ff8000000000001L, 0xfff8000000000000L, 0x7ff0000000000001L,
            0x8000000000000000L, 0x0000000000000000L, 0x7ff0000000000000L, 0xfff0000000000000L,
            0x0000000000000001L, 0x8000000000000001L, 0x000fffffffffffffL, 0x0010000000000000L,
            0x7fefffffffffffffL, 0xffefffffffffffffL, 0x3ff0000000000000L, 0xbff0000000000000L
        };
        List<Object> out = new ArrayList<>();
        for (long b : bits) {
            out.add(Double.longBitsToDouble(b));
        }
        return out;
    }

    private static List<Object> decimalSpecials(int p, int s) {
        BigInteger max = BigInteger.TEN.pow(p).subtract(BigInteger.ONE);
        BigInteger one = BigInteger.TEN.pow(s); // the value 1.0 at this scale
        BigInteger[] unscaled = {
            BigInteger.ZERO, BigInteger.ONE, BigInteger.ONE.negate(), max, max.negate(),
            one, one.negate(), BigInteger.valueOf(Long.MAX_VALUE), BigInteger.valueOf(Long.MIN_VALUE)
        };
        List<Object> out = new ArrayList<>();
        for (BigInteger u : unscaled) {
            if (u.abs().compareTo(max) <= 0) {
                out.add(decimal(u, p, s));
            }
        }
        return out;
    }

    /** Strings chosen around the 7/8-byte inline limit, in UTF-8 bytes, plus NULs and long ones. */
    private static List<Object> stringSpecials(int n) {
        String[] all = {
            "", "a", "\u0000", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmno", "abcdefghijklmnop",
            "\u00e9\u00e9\u00e9a", "\u00e9\u00e9\u00e9\u00e9", // 7 and 8 bytes of 2-byte chars
            "\u20ac\u20aca", "\u20ac\u20ac\u00e9", // 7 and 8 bytes with 3-byte chars
            "\ud83d\ude00\u20ac", "\ud83d\ude00\ud83d\ude00", "\ud83d\ude00\ud83d\ude00a", // 7, 8, 9
            "\u00e9", "\u20ac", "\ud83d\ude00", "\udbff\udfff", "\uffff", "\u007f\u0080",
            "\u0000".repeat(7), "\u0000".repeat(8), "a\u0000b", "\u0000abcdefgh",
            "\"\\\n\t\r\u001f/", "x".repeat(100), "\u20ac".repeat(100), "y".repeat(255),
            "z".repeat(300)
        };
        List<Object> out = new ArrayList<>();
        for (String s : all) {
            if (s.codePointCount(0, s.length()) <= n) {
                out.add(BinaryStringData.fromString(s));
            }
        }
        return out;
    }

    private static List<Object> binarySpecials(int n) {
        int[] lens = {0, 1, 7, 8, 9, 15, 16, 100};
        List<Object> out = new ArrayList<>();
        for (int len : lens) {
            if (len > n) {
                continue;
            }
            out.add(filled(len, (byte) 0x00));
            out.add(filled(len, (byte) 0xff));
            out.add(counting(len));
        }
        return out;
    }

    private static byte[] filled(int len, byte b) {
        byte[] a = new byte[len];
        Arrays.fill(a, b);
        return a;
    }

    /** 0x80, 0x81, ...: high bit set in byte 0, so sign extension bugs show. */
    private static byte[] counting(int len) {
        byte[] a = new byte[len];
        for (int i = 0; i < len; i++) {
            a[i] = (byte) (0x80 + i * 37);
        }
        return a;
    }

    private static List<Object> timeSpecials(int p) {
        int step = (int) pow10(3 - p);
        int max = MILLIS_PER_DAY - step;
        return List.of(0, step, max, 43_200_000, max - step);
    }

    private static List<Object> timestampSpecials(int p) {
        long step = millisStep(p);
        int nStep = nanoStep(p);
        int maxNanos = p <= 3 ? 0 : 999_999 - 999_999 % nStep;
        long lo = minMillis(p);
        long hi = maxMillis(p);
        List<Object> out = new ArrayList<>();
        out.add(TimestampData.fromEpochMillis(0, 0));
        out.add(TimestampData.fromEpochMillis(-step, maxNanos)); // just before the epoch
        out.add(TimestampData.fromEpochMillis(-1000, 0));
        out.add(TimestampData.fromEpochMillis(step, p <= 3 ? 0 : nStep));
        out.add(TimestampData.fromEpochMillis(-MILLIS_PER_DAY, 0));
        out.add(TimestampData.fromEpochMillis(1_700_000_000_000L, maxNanos));
        out.add(TimestampData.fromEpochMillis(lo, 0));
        out.add(TimestampData.fromEpochMillis(hi, maxNanos));
        out.add(TimestampData.fromEpochMillis(lo, maxNanos));
        return out;
    }

    // ---------------------------------------------------------------- random values

    Object random(Col c) {
        switch (c.kind) {
            case BOOLEAN:
                return rnd.nextBoolean();
            case TINYINT:
                return (byte) rnd.nextInt();
            case SMALLINT:
                return (short) (rnd.nextBoolean() ? rnd.nextInt() : rnd.nextInt(-300, 300));
            case INT:
                return (int) wideLong();
            case BIGINT:
                return wideLong();
            case FLOAT:
                return rnd.nextInt(3) == 0
                        ? Float.intBitsToFloat(rnd.nextInt())
                        : (float) ((rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(-6, 10)));
            case DOUBLE:
                return rnd.nextInt(3) == 0
                        ? Double.longBitsToDouble(rnd.nextLong())
                        : (rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(-12, 20));
            case DECIMAL:
                return randomDecimal(c.p, c.s);
            case CHAR:
            case VARCHAR:
                return BinaryStringData.fromString(randomString(c.p));
            case BINARY:
            case VARBINARY:
                return randomBytes(c.p);
            case DATE:
                return rnd.nextInt(4) == 0 ? rnd.nextInt(-1000, 1000) : rnd.nextInt(MIN_DATE, MAX_DATE + 1);
            case TIME:
                return randomTime(c.p);
            case TIMESTAMP:
            case TIMESTAMP_LTZ:
                return randomTimestamp(c.p);
            case INTERVAL_YM:
                return rnd.nextInt(4) == 0 ? rnd.nextInt() : rnd.nextInt(-MAX_YM_PRECISE, MAX_YM_PRECISE + 1);
            case INTERVAL_DT:
                return randomDayTime();
            case ROW:
                return randomRow(c);
            default:
                throw new IllegalArgumentException(c.token);
        }
    }

    /** Mixes full-range, small and near-power-of-two values so every byte position varies. */
    private long wideLong() {
        switch (rnd.nextInt(3)) {
            case 0:
                return rnd.nextLong();
            case 1:
                return rnd.nextLong(-1000, 1000);
            default:
                long pow = 1L << rnd.nextInt(63);
                return (rnd.nextBoolean() ? pow : -pow) + rnd.nextInt(-2, 3);
        }
    }

    /** Random unscaled value with 1..p digits; always fits the precision, so never null. */
    private DecimalData randomDecimal(int p, int s) {
        int digits = 1 + rnd.nextInt(p);
        StringBuilder sb = new StringBuilder(digits + 1);
        if (rnd.nextBoolean()) {
            sb.append('-');
        }
        for (int i = 0; i < digits; i++) {
            sb.append((char) ('0' + rnd.nextInt(10)));
        }
        return decimal(new BigInteger(sb.toString()), p, s);
    }

    /** Builds through the released factories; fromBigDecimal returns null if it does not fit. */
    static DecimalData decimal(BigInteger unscaled, int p, int s) {
        DecimalData d = DecimalData.isCompact(p)
                ? DecimalData.fromUnscaledLong(unscaled.longValueExact(), p, s)
                : DecimalData.fromBigDecimal(new BigDecimal(unscaled, s), p, s);
        if (d == null) {
            throw new IllegalStateException("decimal does not fit (" + p + "," + s + "): " + unscaled);
        }
        return d;
    }

    /** Random UTF-8 byte length: mostly around the 7/8 inline limit, sometimes long. */
    private int randomByteLength() {
        int r = rnd.nextInt(100);
        if (r < 5) {
            return 0;
        } else if (r < 20) {
            return 7 + rnd.nextInt(2); // either side of the 7-byte inline limit
        } else if (r < 75) {
            return rnd.nextInt(1, 17);
        } else if (r < 90) {
            return rnd.nextInt(17, 65);
        }
        return rnd.nextInt(100, 301);
    }

    /** Code points by UTF-8 width; includes NUL and control chars (escaping), never surrogates. */
    private static final int[][] CODE_POINTS = {
        {'a', 'b', 'z', 'A', 'Q', '0', '9', ' ', '_', '"', '\\', 0x00, 0x09, 0x0a, 0x1f, 0x7f},
        {0xe9, 0xdf, 0x80, 0x7ff, 0x3b1},
        {0x20ac, 0x4e2d, 0x800, 0xfffd, 0xffff},
        {0x1f600, 0x10000, 0x10ffff}
    };

    /** A string of at most maxCodePoints code points, aiming at a random UTF-8 byte length. */
    String randomString(int maxCodePoints) {
        int target = randomByteLength();
        StringBuilder sb = new StringBuilder();
        int bytes = 0;
        for (int cps = 0; bytes < target && cps < maxCodePoints; cps++) {
            // ASCII most of the time; wider chars only where they still fit the target.
            int width = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(Math.min(4, target - bytes)) : 1;
            int[] pool = CODE_POINTS[width - 1];
            sb.appendCodePoint(pool[rnd.nextInt(pool.length)]);
            bytes += width;
        }
        return sb.toString();
    }

    private byte[] randomBytes(int maxLen) {
        byte[] a = new byte[Math.min(randomByteLength(), maxLen)];
        for (int i = 0; i < a.length; i++) {
            int r = rnd.nextInt(8);
            a[i] = r == 0 ? 0 : r == 1 ? (byte) 0xff : (byte) rnd.nextInt();
        }
        return a;
    }

    private int randomTime(int p) {
        int step = (int) pow10(3 - p);
        int v = rnd.nextInt(MILLIS_PER_DAY);
        return v - v % step;
    }

    /** Millis a multiple of 10^(3-p) for p <= 3; nanos a multiple of 10^(9-p) (0 for p <= 3). */
    private TimestampData randomTimestamp(int p) {
        long millis = rnd.nextInt(3) == 0
                ? rnd.nextLong(-10_000_000_000L, 10_000_000_000L) // near the epoch, both sides
                : rnd.nextLong(minMillis(p), maxMillis(p) + 1);
        millis -= Math.floorMod(millis, millisStep(p));
        int nanos = 0;
        if (p > 3) {
            int nStep = nanoStep(p);
            nanos = rnd.nextInt(1_000_000 / nStep) * nStep;
        }
        return TimestampData.fromEpochMillis(millis, nanos);
    }

    /** Mostly within DAY(2) precision; some up to 10^6 days (kept far inside i32 days). */
    private long randomDayTime() {
        return rnd.nextInt(4) == 0
                ? rnd.nextLong(-1_000_000L * MILLIS_PER_DAY, 1_000_000L * MILLIS_PER_DAY)
                : rnd.nextLong(-MAX_DT_PRECISE, MAX_DT_PRECISE + 1);
    }

    // ---------------------------------------------------------------- timestamp ranges

    static long minMillis(int p) {
        long lo = p >= 7 ? -NANO_SAFE_MILLIS : MIN_TS_MILLIS;
        return lo + Math.floorMod(-lo, millisStep(p)); // round up to the step
    }

    static long maxMillis(int p) {
        // For p >= 7, one milli less so that millis * 10^6 + nanos stays <= 9.2e18.
        long hi = p >= 7 ? NANO_SAFE_MILLIS - 1 : MAX_TS_MILLIS;
        return hi - Math.floorMod(hi, millisStep(p)); // round down to the step
    }

    static long millisStep(int p) {
        return p >= 3 ? 1 : pow10(3 - p);
    }

    static int nanoStep(int p) {
        return p <= 3 ? 1_000_000 : (int) pow10(9 - p);
    }

    static long pow10(int e) {
        long v = 1;
        for (int i = 0; i < e; i++) {
            v *= 10;
        }
        return v;
    }
}
