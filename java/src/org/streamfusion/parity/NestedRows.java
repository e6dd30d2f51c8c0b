package org.streamfusion.parity;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryArrayData;
import org.apache.flink.table.data.binary.BinaryMapData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.writer.BinaryArrayWriter;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.typeutils.ArrayDataSerializer;
import org.apache.flink.table.runtime.typeutils.MapDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Rows with nested ARRAY and MAP fields written by released Flink's own writers:
 * {@link BinaryRowWriter}, {@link BinaryArrayWriter} (with {@code createNullSetter} for NULL
 * elements), {@link BinaryArrayData#fromPrimitiveArray}, {@link BinaryMapData#valueOf}, and
 * {@code writeArray}/{@code writeMap} with Flink's serializers for generic values. The field
 * types are {@link #TYPES}; crates/streamfusion/tests/it/binary_rows.rs decodes the rows, encodes
 * them again and compares bytes, and compares its decoded values with {@code describeRows}.
 */
public final class NestedRows {
    private NestedRows() {}

    /** The field types, in Flink's SQL spelling. */
    public static final String[] TYPES = {
        "ARRAY<INT>",
        "ARRAY<VARCHAR(2147483647)>",
        "ARRAY<DECIMAL(20, 2)>",
        "ARRAY<TIMESTAMP(9)>",
        "ARRAY<ROW<a INT, b VARCHAR(2147483647)>>",
        "MAP<VARCHAR(2147483647), BIGINT>",
        "MAP<INT, ARRAY<VARCHAR(2147483647)>>",
        "ARRAY<BOOLEAN>",
        "ARRAY<BIGINT>",
    };

    /** {@link #TYPES}. */
    public static String[] types() {
        return TYPES.clone();
    }

    private static StringData str(String s) {
        return StringData.fromString(s);
    }

    private static BinaryArrayData ints(int i) {
        if (i % 6 == 1) {
            return BinaryArrayData.fromPrimitiveArray(new int[0]);
        }
        if (i % 6 == 2) {
            return BinaryArrayData.fromPrimitiveArray(new int[] {i, -i, i * 1000});
        }
        int n = i % 5 + 1;
        BinaryArrayData array = new BinaryArrayData();
        BinaryArrayWriter w = new BinaryArrayWriter(array, n, 4);
        for (int j = 0; j < n; j++) {
            if ((i + j) % 3 == 0) {
                w.setNullInt(j);
            } else {
                w.writeInt(j, i * 7 + j);
            }
        }
        w.complete();
        return array;
    }

    private static BinaryArrayData strings(int i) {
        int n = i % 4;
        BinaryArrayData array = new BinaryArrayData();
        BinaryArrayWriter w = new BinaryArrayWriter(array, n, 8);
        BinaryArrayWriter.NullSetter nulls =
                BinaryArrayWriter.createNullSetter(new VarCharType(VarCharType.MAX_LENGTH));
        for (int j = 0; j < n; j++) {
            if (j == 1) {
                nulls.setNull(w, j);
            } else if ((i + j) % 2 == 0) {
                w.writeString(j, str("s" + i + "/" + j));
            } else {
                w.writeString(j, str("a long élément #" + i + "/" + j));
            }
        }
        w.complete();
        return array;
    }

    private static BinaryArrayData decimals(int i) {
        BinaryArrayData array = new BinaryArrayData();
        BinaryArrayWriter w = new BinaryArrayWriter(array, 3, 8);
        for (int j = 0; j < 3; j++) {
            if (j == 1) {
                BinaryArrayWriter.createNullSetter(
                                new org.apache.flink.table.types.logical.DecimalType(20, 2))
                        .setNull(w, j);
                continue;
            }
            BigInteger unscaled =
                    BigInteger.valueOf(i * 123456789L + j).multiply(BigInteger.TEN.pow(9));
            if (j == 2) {
                unscaled = unscaled.negate();
            }
            w.writeDecimal(j, DecimalData.fromBigDecimal(new BigDecimal(unscaled, 2), 20, 2), 20);
        }
        w.complete();
        return array;
    }

    private static BinaryArrayData timestamps(int i) {
        BinaryArrayData array = new BinaryArrayData();
        BinaryArrayWriter w = new BinaryArrayWriter(array, 2, 8);
        w.writeTimestamp(0, TimestampData.fromEpochMillis(i * 86_400_000L - 5, (i * 1009) % 1_000_000), 9);
        if (i % 2 == 0) {
            w.setNullLong(1);
        } else {
            w.writeTimestamp(1, TimestampData.fromEpochMillis(-i, 999_999), 9);
        }
        w.complete();
        return array;
    }

    private static GenericArrayData rowElements(int i) {
        GenericRowData first = GenericRowData.of(i, str("row string long #" + i));
        GenericRowData second = i % 2 == 0 ? null : GenericRowData.of(null, str("x"));
        return new GenericArrayData(new Object[] {first, second});
    }

    private static BinaryMapData stringToLong(int i) {
        int n = i % 3 + (i % 5 == 4 ? 1 : 0);
        BinaryArrayData keys = new BinaryArrayData();
        BinaryArrayData values = new BinaryArrayData();
        BinaryArrayWriter k = new BinaryArrayWriter(keys, n, 8);
        BinaryArrayWriter v = new BinaryArrayWriter(values, n, 8);
        for (int j = 0; j < n; j++) {
            if (i % 5 == 4 && j == n - 1) {
                k.setNullAt(j); // a NULL key: Flink's MAP keys are nullable
            } else {
                k.writeString(j, str(j % 2 == 0 ? "k" + j : "a longer key " + i + "/" + j));
            }
            if (j == 1) {
                v.setNullLong(j);
            } else {
                v.writeLong(j, i * 1_000_003L - j);
            }
        }
        k.complete();
        v.complete();
        return BinaryMapData.valueOf(keys, values);
    }

    private static GenericMapData intToStrings(int i) {
        Map<Object, Object> map = new LinkedHashMap<>();
        map.put(i, new GenericArrayData(new Object[] {str("v" + i), null, str("value number " + i)}));
        map.put(i + 1, null);
        return new GenericMapData(map);
    }

    private static BinaryArrayData booleans(int i) {
        int n = (i * 7) % 41;
        BinaryArrayData array = new BinaryArrayData();
        BinaryArrayWriter w = new BinaryArrayWriter(array, n, 1);
        for (int j = 0; j < n; j++) {
            if (j % 5 == 3) {
                w.setNullBoolean(j);
            } else {
                w.writeBoolean(j, (i + j) % 2 == 0);
            }
        }
        w.complete();
        return array;
    }

    /**
     * {@code n} rows of {@link #TYPES} as {@code Object[] {byte[] data, int[] offsets}}; row
     * {@code i} has kind {@code i % 4} and a NULL in a field where its formula below says so.
     */
    public static Object[] rows(int n) {
        RowType rowType = RowType.of(new IntType(), new VarCharType(VarCharType.MAX_LENGTH));
        ArrayDataSerializer rowArrays = new ArrayDataSerializer(rowType);
        MapDataSerializer intToStrings =
                new MapDataSerializer(
                        new IntType(), new ArrayType(new VarCharType(VarCharType.MAX_LENGTH)));
        ArrayDataSerializer anyArrays = new ArrayDataSerializer(new IntType());
        MapDataSerializer anyMaps = new MapDataSerializer(new VarCharType(), new BigIntType());
        BinaryRowData row = new BinaryRowData(TYPES.length);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        byte[][] out = new byte[n][];
        int[] offsets = new int[n + 1];
        for (int i = 0; i < n; i++) {
            writer.reset();
            // Binary arrays and maps are copied as they are, whatever the serializer's type.
            if (i % 6 == 0) {
                writer.setNullAt(0);
            } else {
                writer.writeArray(0, ints(i), anyArrays);
            }
            if (i % 5 == 0) {
                writer.setNullAt(1);
            } else {
                writer.writeArray(1, strings(i), anyArrays);
            }
            if (i % 4 == 3) {
                writer.setNullAt(2);
            } else {
                writer.writeArray(2, decimals(i), anyArrays);
            }
            if (i % 7 == 4) {
                writer.setNullAt(3);
            } else {
                writer.writeArray(3, timestamps(i), anyArrays);
            }
            if (i % 3 == 2) {
                writer.setNullAt(4);
            } else {
                writer.writeArray(4, rowElements(i), rowArrays);
            }
            if (i % 5 == 1) {
                writer.setNullAt(5);
            } else {
                writer.writeMap(5, stringToLong(i), anyMaps);
            }
            if (i % 4 == 0) {
                writer.setNullAt(6);
            } else {
                writer.writeMap(6, intToStrings(i), intToStrings);
            }
            writer.writeArray(7, booleans(i), anyArrays);
            if (i % 8 == 5) {
                writer.setNullAt(8);
            } else {
                writer.writeArray(
                        8, BinaryArrayData.fromPrimitiveArray(new long[] {i, Long.MIN_VALUE + i}), anyArrays);
            }
            writer.complete();
            row.setRowKind(RowKind.fromByteValue((byte) (i % 4)));
            out[i] = BinarySegmentUtils.copyToBytes(row.getSegments(), row.getOffset(), row.getSizeInBytes());
            offsets[i + 1] = offsets[i] + out[i].length;
        }
        byte[] data = new byte[offsets[n]];
        for (int i = 0; i < n; i++) {
            System.arraycopy(out[i], 0, data, offsets[i], out[i].length);
        }
        return new Object[] {data, offsets};
    }
}
