package org.streamfusion.golden;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.data.writer.BinaryWriter;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Turns a GenericRowData into the BinaryRowData a SQL key selector would produce for it.
 *
 * <p>Why not just RowDataSerializer.toBinaryRow: in the released 2.3.0 classes it writes every
 * NULL with BinaryRowWriter.setNullAt, which does NOT reserve the variable-part bytes of a
 * non-compact DECIMAL (p > 18) or TIMESTAMP (p > 3). The planner's generated "KeyProjection"
 * (CodeGenUtils.binaryWriterWriteNull, used by BinaryRowDataKeySelector) writes those NULLs with
 * writer.writeDecimal(i, null, p) / writer.writeTimestamp(i, null, p), which do reserve them, and
 * that is the row Flink hashes into key groups. So this class drives the released writer exactly
 * like the generated projection: reset, one released write per field, complete, copy.
 * Non-null fields go through the released BinaryWriter.write, the same call toBinaryRow makes.
 *
 * <p>Every row is also run through toBinaryRow and must match byte for byte unless it holds a
 * non-compact NULL; the number of rows that differ is reported.
 */
final class KeyRows {
    private final Col[] cols;
    private final LogicalType[] types;
    private final TypeSerializer<?>[] serializers;
    private final BinaryRowData reuseRow;
    private final BinaryRowWriter writer;
    private final RowDataSerializer rowSerializer;
    int serializerDiffers;

    KeyRows(Col[] cols) {
        this.cols = cols;
        this.types = new LogicalType[cols.length];
        this.serializers = new TypeSerializer<?>[cols.length];
        for (int i = 0; i < cols.length; i++) {
            types[i] = cols[i].type;
            serializers[i] = InternalSerializers.create(types[i]);
        }
        // One writer reused for all rows, as in the generated projection (reset() clears it).
        this.reuseRow = new BinaryRowData(cols.length);
        this.writer = new BinaryRowWriter(reuseRow);
        this.rowSerializer = new RowDataSerializer(types);
    }

    /**
     * The key row for `in`, copied out of the reused buffer like BinaryRowDataKeySelector does.
     * BinaryWriter.write is deprecated but is the exact call RowDataSerializer.toBinaryRow makes
     * in 2.3.0, so it is kept on purpose.
     */
    @SuppressWarnings("deprecation")
    BinaryRowData toKeyRow(GenericRowData in) {
        writer.reset();
        boolean reservedNull = false;
        for (int i = 0; i < cols.length; i++) {
            if (in.isNullAt(i)) {
                reservedNull |= writeNull(i);
            } else {
                BinaryWriter.write(writer, i, in.getField(i), types[i], serializers[i]);
            }
        }
        writer.complete();
        BinaryRowData key = reuseRow.copy();
        crossCheck(in, key, reservedNull);
        return key;
    }

    /** Mirrors CodeGenUtils.binaryWriterWriteNull; returns true if bytes were reserved. */
    private boolean writeNull(int i) {
        Col c = cols[i];
        if (!c.reservesOnNull()) {
            writer.setNullAt(i);
            return false;
        }
        if (c.kind == Col.Kind.DECIMAL) {
            writer.writeDecimal(i, null, c.p);
        } else {
            writer.writeTimestamp(i, null, c.p);
        }
        return true;
    }

    private void crossCheck(GenericRowData in, BinaryRowData key, boolean reservedNull) {
        BinaryRowData viaSerializer = rowSerializer.toBinaryRow(in).copy();
        if (viaSerializer.equals(key)) {
            return;
        }
        if (!reservedNull) {
            throw new IllegalStateException("toBinaryRow differs on a row without reserved NULLs: " + in);
        }
        serializerDiffers++;
    }
}
