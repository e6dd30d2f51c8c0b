package org.streamfusion.parity;

import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.DecimalDataUtils;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.binary.BinaryStringDataUtil;
import org.apache.flink.table.runtime.functions.SqlFunctionUtils;
import org.apache.flink.table.runtime.operators.window.TimeWindow;
import org.apache.flink.table.runtime.operators.window.groupwindow.assigners.CumulativeWindowAssigner;
import org.apache.flink.table.runtime.operators.window.groupwindow.assigners.SlidingWindowAssigner;
import org.apache.flink.table.runtime.operators.window.groupwindow.assigners.TumblingWindowAssigner;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.util.MathUtils;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Collection;

/**
 * Batched entry points into the released Flink 2.3.0 classes, called from Rust through the
 * embedded JVM (crates/streamfusion/tests/it/flink_parity.rs and the flink_parity suite). Each
 * method takes whole arrays so that one JNI call covers a whole input; every result comes from
 * the released class named in the method's documentation, with no logic of our own besides
 * looping and rendering field values as text.
 */
public final class Oracles {
    private Oracles() {}

    /** {@code MathUtils.murmurHash(code)} for every code. */
    public static int[] murmurHashes(int[] codes) {
        int[] out = new int[codes.length];
        for (int i = 0; i < codes.length; i++) {
            out[i] = MathUtils.murmurHash(codes[i]);
        }
        return out;
    }

    /** {@code KeyGroupRangeAssignment.computeKeyGroupForKeyHash(hash, maxParallelism)}. */
    public static int[] keyGroupsForHashes(int[] hashes, int maxParallelism) {
        int[] out = new int[hashes.length];
        for (int i = 0; i < hashes.length; i++) {
            out[i] = KeyGroupRangeAssignment.computeKeyGroupForKeyHash(hashes[i], maxParallelism);
        }
        return out;
    }

    /** {@code computeOperatorIndexForKeyGroup(maxParallelism[i], parallelism[i], keyGroup[i])}. */
    public static int[] operatorIndices(int[] maxParallelism, int[] parallelism, int[] keyGroup) {
        int[] out = new int[keyGroup.length];
        for (int i = 0; i < keyGroup.length; i++) {
            out[i] =
                    KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
                            maxParallelism[i], parallelism[i], keyGroup[i]);
        }
        return out;
    }

    /**
     * {@code computeKeyGroupRangeForOperatorIndex(maxParallelism[i], parallelism[i], index[i])}:
     * start and end key group of each, as {@code [start0, end0, start1, end1, ...]}.
     */
    public static int[] keyGroupRanges(int[] maxParallelism, int[] parallelism, int[] index) {
        int[] out = new int[2 * index.length];
        for (int i = 0; i < index.length; i++) {
            KeyGroupRange range =
                    KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                            maxParallelism[i], parallelism[i], index[i]);
            out[2 * i] = range.getStartKeyGroup();
            out[2 * i + 1] = range.getEndKeyGroup();
        }
        return out;
    }

    /** {@code computeDefaultMaxParallelism(parallelism)} for every parallelism. */
    public static int[] defaultMaxParallelisms(int[] parallelism) {
        int[] out = new int[parallelism.length];
        for (int i = 0; i < parallelism.length; i++) {
            out[i] = KeyGroupRangeAssignment.computeDefaultMaxParallelism(parallelism[i]);
        }
        return out;
    }

    private static BinaryRowData row(byte[] data, int[] offsets, int arity, int i) {
        BinaryRowData row = new BinaryRowData(arity);
        row.pointTo(MemorySegmentFactory.wrap(data), offsets[i], offsets[i + 1] - offsets[i]);
        return row;
    }

    /**
     * {@code BinaryRowData.hashCode()} of row {@code i} = {@code data[offsets[i]..offsets[i+1]]}
     * for every row ({@code offsets} has one more entry than there are rows).
     */
    public static int[] hashRows(byte[] data, int[] offsets, int arity) {
        int[] out = new int[offsets.length - 1];
        for (int i = 0; i < out.length; i++) {
            out[i] = row(data, offsets, arity, i).hashCode();
        }
        return out;
    }

    /**
     * {@code KeyGroupRangeAssignment.assignToKeyGroup(row, maxParallelism)} of every row (the key
     * group Flink routes the key row to; it hashes with {@code BinaryRowData.hashCode()}).
     */
    public static int[] keyGroupsOfRows(byte[] data, int[] offsets, int arity, int maxParallelism) {
        int[] out = new int[offsets.length - 1];
        for (int i = 0; i < out.length; i++) {
            out[i] = KeyGroupRangeAssignment.assignToKeyGroup(row(data, offsets, arity, i), maxParallelism);
        }
        return out;
    }

    /**
     * Every row's row kind and field values as read by the released {@code BinaryRowData}
     * getters: one line per row, {@code kind|field0|field1|...}. Types are given per field as
     * {@code BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, STRING, BINARY,
     * DECIMAL:p:s, TIMESTAMP:p}. Renderings: NULL as {@code null}; FLOAT/DOUBLE as the hex of
     * their raw bits; BINARY as lowercase hex; DECIMAL as the unscaled value (and, for
     * precision <= 18, also checked against {@code toUnscaledLong}); TIMESTAMP as
     * {@code millisecond:nanoOfMillisecond}. A type containing {@code <} is a Flink SQL type
     * ({@code ARRAY<INT>}, {@code MAP<STRING, BIGINT>}, {@code ROW<a INT>}), parsed with
     * {@code LogicalTypeParser} and rendered by {@link #render}.
     */
    public static String describeRows(byte[] data, int[] offsets, String[] types) {
        int arity = types.length;
        StringBuilder out = new StringBuilder();
        for (int r = 0; r + 1 < offsets.length; r++) {
            BinaryRowData row = row(data, offsets, arity, r);
            out.append(row.getRowKind().shortString());
            for (int f = 0; f < arity; f++) {
                out.append('|');
                if (row.isNullAt(f)) {
                    out.append("null");
                    continue;
                }
                if (types[f].indexOf('<') >= 0) {
                    // A nested type in Flink's SQL spelling: read with Flink's own getters.
                    LogicalType nested = LogicalTypeParser.parse(types[f], Oracles.class.getClassLoader());
                    render(out, RowData.createFieldGetter(nested, f).getFieldOrNull(row), nested);
                    continue;
                }
                String[] t = types[f].split(":");
                switch (t[0]) {
                    case "BOOLEAN":
                        out.append(row.getBoolean(f));
                        break;
                    case "TINYINT":
                        out.append(row.getByte(f));
                        break;
                    case "SMALLINT":
                        out.append(row.getShort(f));
                        break;
                    case "INT":
                        out.append(row.getInt(f));
                        break;
                    case "BIGINT":
                        out.append(row.getLong(f));
                        break;
                    case "FLOAT":
                        out.append(Integer.toHexString(Float.floatToRawIntBits(row.getFloat(f))));
                        break;
                    case "DOUBLE":
                        out.append(Long.toHexString(Double.doubleToRawLongBits(row.getDouble(f))));
                        break;
                    case "STRING":
                        out.append(row.getString(f).toString());
                        break;
                    case "BINARY":
                        for (byte b : row.getBinary(f)) {
                            out.append(Character.forDigit((b >> 4) & 0xf, 16));
                            out.append(Character.forDigit(b & 0xf, 16));
                        }
                        break;
                    case "DECIMAL": {
                        int p = Integer.parseInt(t[1]);
                        int s = Integer.parseInt(t[2]);
                        DecimalData d = row.getDecimal(f, p, s);
                        String unscaled = d.toBigDecimal().unscaledValue().toString();
                        if (d.isCompact() && !Long.toString(d.toUnscaledLong()).equals(unscaled)) {
                            throw new IllegalStateException("toUnscaledLong disagrees: " + d);
                        }
                        out.append(unscaled);
                        break;
                    }
                    case "TIMESTAMP": {
                        TimestampData ts = row.getTimestamp(f, Integer.parseInt(t[1]));
                        out.append(ts.getMillisecond()).append(':').append(ts.getNanoOfMillisecond());
                        break;
                    }
                    default:
                        throw new IllegalArgumentException("unknown type " + types[f]);
                }
            }
            out.append('\n');
        }
        return out.toString();
    }

    /**
     * Renders a value read by Flink's getters ({@code ArrayData.createElementGetter},
     * {@code RowData.createFieldGetter}): NULL as {@code null}, ARRAY as {@code [e,e]}, MAP as
     * {@code {k=v,k=v}} in key-array order, ROW as {@code (f,f)}, and scalars as
     * {@link #describeRows} does.
     */
    private static void render(StringBuilder out, Object value, LogicalType type) {
        if (value == null) {
            out.append("null");
            return;
        }
        switch (type.getTypeRoot()) {
            case ARRAY: {
                LogicalType element = ((ArrayType) type).getElementType();
                ArrayData.ElementGetter getter = ArrayData.createElementGetter(element);
                ArrayData array = (ArrayData) value;
                out.append('[');
                for (int i = 0; i < array.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    render(out, getter.getElementOrNull(array, i), element);
                }
                out.append(']');
                break;
            }
            case MAP: {
                MapType mapType = (MapType) type;
                MapData map = (MapData) value;
                ArrayData.ElementGetter keys = ArrayData.createElementGetter(mapType.getKeyType());
                ArrayData.ElementGetter values = ArrayData.createElementGetter(mapType.getValueType());
                if (map.keyArray().size() != map.valueArray().size()) {
                    throw new IllegalStateException("map key and value arrays differ in size");
                }
                out.append('{');
                for (int i = 0; i < map.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    render(out, keys.getElementOrNull(map.keyArray(), i), mapType.getKeyType());
                    out.append('=');
                    render(out, values.getElementOrNull(map.valueArray(), i), mapType.getValueType());
                }
                out.append('}');
                break;
            }
            case ROW: {
                RowType rowType = (RowType) type;
                RowData nested = (RowData) value;
                out.append('(');
                for (int i = 0; i < rowType.getFieldCount(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    LogicalType field = rowType.getTypeAt(i);
                    render(out, RowData.createFieldGetter(field, i).getFieldOrNull(nested), field);
                }
                out.append(')');
                break;
            }
            case FLOAT:
                out.append(Integer.toHexString(Float.floatToRawIntBits((Float) value)));
                break;
            case DOUBLE:
                out.append(Long.toHexString(Double.doubleToRawLongBits((Double) value)));
                break;
            case BINARY:
            case VARBINARY:
                for (byte b : (byte[]) value) {
                    out.append(Character.forDigit((b >> 4) & 0xf, 16));
                    out.append(Character.forDigit(b & 0xf, 16));
                }
                break;
            case DECIMAL:
                out.append(((DecimalData) value).toBigDecimal().unscaledValue());
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                TimestampData ts = (TimestampData) value;
                out.append(ts.getMillisecond()).append(':').append(ts.getNanoOfMillisecond());
                break;
            }
            default:
                out.append(value);
        }
    }

    /**
     * {@code DecimalDataUtils.<op>(a, b, precision, scale)} for every pair, where {@code a} is
     * {@code DECIMAL(p1, s1)} and {@code b} is {@code DECIMAL(p2, s2)} given as plain decimal
     * text, and {@code op} is {@code add}, {@code subtract}, {@code multiply}, {@code divide}
     * or {@code mod}. One line per pair: the result's plain text, {@code null} for Flink's NULL
     * (overflow), or {@code error:<exception class>} when the operation throws.
     */
    public static String decimalArithmetic(
            String op, String[] a, String[] b, int p1, int s1, int p2, int s2, int precision, int scale) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < a.length; i++) {
            DecimalData x = DecimalData.fromBigDecimal(new BigDecimal(a[i]), p1, s1);
            DecimalData y = DecimalData.fromBigDecimal(new BigDecimal(b[i]), p2, s2);
            String line;
            try {
                DecimalData r;
                switch (op) {
                    case "add":
                        r = DecimalDataUtils.add(x, y, precision, scale);
                        break;
                    case "subtract":
                        r = DecimalDataUtils.subtract(x, y, precision, scale);
                        break;
                    case "multiply":
                        r = DecimalDataUtils.multiply(x, y, precision, scale);
                        break;
                    case "divide":
                        r = DecimalDataUtils.divide(x, y, precision, scale);
                        break;
                    case "mod":
                        r = DecimalDataUtils.mod(x, y, precision, scale);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown operation " + op);
                }
                line = r == null ? "null" : r.toBigDecimal().toPlainString();
            } catch (ArithmeticException e) {
                line = "error:" + e.getClass().getName();
            }
            out.append(line).append('\n');
        }
        return out.toString();
    }

    /** {@code TimeWindow.getWindowStartWithOffset(ts[i], offset[i], size[i])} for every i. */
    public static long[] windowStarts(long[] ts, long[] offset, long[] size) {
        long[] out = new long[ts.length];
        for (int i = 0; i < ts.length; i++) {
            out[i] = TimeWindow.getWindowStartWithOffset(ts[i], offset[i], size[i]);
        }
        return out;
    }

    /**
     * The windows the released {@code TUMBLE}/{@code HOP}/{@code CUMULATE} assigner
     * ({@code TumblingWindowAssigner.of(size)}, {@code SlidingWindowAssigner.of(size, slide)},
     * {@code CumulativeWindowAssigner.of(size, slide)}, each {@code withOffset(offset)}) gives
     * every timestamp: per timestamp its window count, then each window's start and end.
     */
    public static long[] assignWindows(String kind, long size, long slide, long offset, long[] ts) {
        java.util.List<Long> out = new java.util.ArrayList<>();
        for (long t : ts) {
            Collection<TimeWindow> windows;
            switch (kind) {
                case "TUMBLE":
                    windows = TumblingWindowAssigner.of(Duration.ofMillis(size))
                            .withOffset(Duration.ofMillis(offset)).assignWindows(null, t);
                    break;
                case "HOP":
                    windows = SlidingWindowAssigner.of(Duration.ofMillis(size), Duration.ofMillis(slide))
                            .withOffset(Duration.ofMillis(offset)).assignWindows(null, t);
                    break;
                case "CUMULATE":
                    windows = CumulativeWindowAssigner.of(Duration.ofMillis(size), Duration.ofMillis(slide))
                            .withOffset(Duration.ofMillis(offset)).assignWindows(null, t);
                    break;
                default:
                    throw new IllegalArgumentException("unknown window kind " + kind);
            }
            out.add((long) windows.size());
            for (TimeWindow w : windows) {
                out.add(w.getStart());
                out.add(w.getEnd());
            }
        }
        long[] flat = new long[out.size()];
        for (int i = 0; i < flat.length; i++) {
            flat[i] = out.get(i);
        }
        return flat;
    }

    /**
     * {@code CAST(value AS target)} as Flink's cast rules compute it, for every value:
     * {@code INT} is {@code BinaryStringDataUtil.toInt(s.trim())}, {@code BIGINT}
     * {@code toLong(s.trim())}, {@code DECIMAL:p:s} {@code toDecimal(s, p, s)}. One line per
     * value: the result (a DECIMAL as plain text), or {@code error:<class>: <message>}.
     */
    public static String castStrings(String target, String[] values) {
        StringBuilder out = new StringBuilder();
        String[] t = target.split(":");
        for (String v : values) {
            BinaryStringData s = BinaryStringData.fromString(v);
            String line;
            try {
                switch (t[0]) {
                    case "INT":
                        line = Integer.toString(BinaryStringDataUtil.toInt(s.trim()));
                        break;
                    case "BIGINT":
                        line = Long.toString(BinaryStringDataUtil.toLong(s.trim()));
                        break;
                    case "DECIMAL":
                        line = BinaryStringDataUtil.toDecimal(
                                        s, Integer.parseInt(t[1]), Integer.parseInt(t[2]))
                                .toBigDecimal().toPlainString();
                        break;
                    default:
                        throw new IllegalArgumentException("unknown target " + target);
                }
            } catch (NumberFormatException e) {
                line = "error:" + e.getClass().getName() + ": " + e.getMessage();
            }
            out.append(line.replace('\n', ' ')).append('\n');
        }
        return out.toString();
    }

    /** {@code SqlFunctionUtils.struncate(x[i], n[i])} (TRUNCATE of a DOUBLE) for every i. */
    public static double[] truncateDoubles(double[] x, int[] n) {
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = SqlFunctionUtils.struncate(x[i], n[i]);
        }
        return out;
    }
}
