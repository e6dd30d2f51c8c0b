package org.streamfusion.jni;

import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.types.RowKind;

/**
 * Test input for the JNI library, written with released Flink's own {@link BinaryRowWriter}
 * (crates/streamfusion-jni/tests/jni_roundtrip.rs computes the expected output from the same
 * formulas, independently of native code).
 *
 * <p>Row {@code i} of {@link #rows} has fields (BIGINT, VARCHAR, INT) and:
 *
 * <ul>
 *   <li>kind {@code RowKind.fromByteValue(i % 4)};
 *   <li>f0 = NULL if {@code i % 5 == 3}, else {@code i * 1000003L - 500};
 *   <li>f1 = NULL if {@code i % 7 == 2}, else {@code "a long ünïcode value #" + i} if
 *       {@code i % 3 == 0} (variable part), else {@code "s" + i} (inline when short);
 *   <li>f2 = NULL if {@code i % 4 == 1}, else {@code i * 31 - 7}.
 * </ul>
 *
 * <p>Row {@code i} of {@link #keyValueRows} (a GROUP BY input) has fields (BIGINT k, INT v),
 * kind {@code +I}, k = {@code i % keys} and v = NULL if {@code i % 10 == 9}, else
 * {@code i * 13 % 50 - 20}.
 */
public final class RowsFixture {
    private RowsFixture() {}

    /** {@code n} rows as {@code Object[] {byte[] data, int[] offsets}}. */
    public static Object[] rows(int n) {
        BinaryRowData row = new BinaryRowData(3);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        byte[][] rows = new byte[n][];
        for (int i = 0; i < n; i++) {
            writer.reset();
            if (i % 5 == 3) {
                writer.setNullAt(0);
            } else {
                writer.writeLong(0, i * 1000003L - 500);
            }
            if (i % 7 == 2) {
                writer.setNullAt(1);
            } else {
                String s = i % 3 == 0 ? "a long ünïcode value #" + i : "s" + i;
                writer.writeString(1, StringData.fromString(s));
            }
            if (i % 4 == 1) {
                writer.setNullAt(2);
            } else {
                writer.writeInt(2, i * 31 - 7);
            }
            writer.complete();
            row.setRowKind(RowKind.fromByteValue((byte) (i % 4)));
            rows[i] = BinarySegmentUtils.copyToBytes(row.getSegments(), row.getOffset(), row.getSizeInBytes());
        }
        return pack(rows);
    }

    /** Rows {@code first} to {@code first + n - 1} as {@code Object[] {byte[] data, int[] offsets}}. */
    public static Object[] keyValueRows(int first, int n, int keys) {
        BinaryRowData row = new BinaryRowData(2);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        byte[][] rows = new byte[n][];
        for (int j = 0; j < n; j++) {
            int i = first + j;
            writer.reset();
            writer.writeLong(0, i % keys);
            if (i % 10 == 9) {
                writer.setNullAt(1);
            } else {
                writer.writeInt(1, i * 13 % 50 - 20);
            }
            writer.complete();
            row.setRowKind(RowKind.INSERT);
            rows[j] = BinarySegmentUtils.copyToBytes(row.getSegments(), row.getOffset(), row.getSizeInBytes());
        }
        return pack(rows);
    }

    /** Rows back to back, with their {@code rows + 1} offsets. */
    private static Object[] pack(byte[][] rows) {
        int[] offsets = new int[rows.length + 1];
        for (int i = 0; i < rows.length; i++) {
            offsets[i + 1] = offsets[i] + rows[i].length;
        }
        byte[] data = new byte[offsets[rows.length]];
        for (int i = 0; i < rows.length; i++) {
            System.arraycopy(rows[i], 0, data, offsets[i], rows[i].length);
        }
        return new Object[] {data, offsets};
    }

    /**
     * Upcalls for the JNI tests, written with released Flink's {@link BinaryRowWriter}: upcall 0
     * squares its INT argument into a BIGINT (NULL for NULL); upcall 1 throws {@code
     * ArithmeticException("boom at <v>")} at the first non-NULL argument {@code v}.
     */
    public static Upcalls squares() {
        return (index, data, offsets) -> {
            BinaryRowData argument = new BinaryRowData(1);
            BinaryRowData result = new BinaryRowData(1);
            BinaryRowWriter writer = new BinaryRowWriter(result);
            org.apache.flink.core.memory.MemorySegment segment =
                    org.apache.flink.core.memory.MemorySegmentFactory.wrap(data);
            byte[][] rows = new byte[offsets.length - 1][];
            for (int i = 0; i < rows.length; i++) {
                argument.pointTo(segment, offsets[i], offsets[i + 1] - offsets[i]);
                writer.reset();
                if (argument.isNullAt(0)) {
                    writer.setNullAt(0);
                } else if (index == 1) {
                    throw new ArithmeticException("boom at " + argument.getInt(0));
                } else {
                    long v = argument.getInt(0);
                    writer.writeLong(0, v * v);
                }
                writer.complete();
                rows[i] = BinarySegmentUtils.copyToBytes(
                        result.getSegments(), result.getOffset(), result.getSizeInBytes());
            }
            return pack(rows);
        };
    }

    /** Calls the test-only native panic (package-private in {@link NativeOperator}). */
    public static void nativePanic(String message) {
        NativeOperator.panicForTesting(message);
    }

    /** Loads the library from {@code path} (sets the property, then initialises the class). */
    public static int load(String path) {
        System.setProperty(NativeOperator.LIBRARY_PATH_PROPERTY, path);
        return NativeOperator.liveOperators();
    }
}
