package org.streamfusion.parity;

import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.util.MathUtils;

/**
 * Batched entry points into the released Flink 2.3.0 classes, called from Rust through the
 * embedded JVM (crates/streamfusion/tests/flink_parity.rs and the flink_parity suite). Each
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
     * {@code millisecond:nanoOfMillisecond}.
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
}
