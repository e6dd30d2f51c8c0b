package org.streamfusion.flink;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import org.streamfusion.jni.NativeOperator;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Flink's Calc run natively: rows are buffered as {@code BinaryRowData} bytes (other {@code
 * RowData} converted by Flink's own {@link RowDataSerializer}) and pushed through JNI in
 * bundles of at most {@code bundleRows} rows; the output rows (row kinds in their headers) are
 * emitted as {@code BinaryRowData} over the bytes native code returned.
 *
 * <p>A bundle is pushed when it is full (rows, or {@value #MAX_BUNDLE_BYTES} bytes), {@code
 * bundleLatencyMs} of processing time after its
 * first row (a timer in the task's mailbox, so a slow input is not held back), before a
 * watermark is forwarded, in {@link
 * #prepareSnapshotPreBarrier} (so no row is buffered across a checkpoint barrier), at {@link
 * #endInput} and in {@link #finish}. Output records carry no timestamp, as a stock Calc's
 * (its generated code collects one reused {@code new StreamRecord(null)}); a rowtime column
 * travels in the row. Calc keeps no state, so nothing is snapshotted.
 */
public final class NativeCalcOperator extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    /** Rows pushed into native Calc in this JVM (for tests: proof that native code ran). */
    public static final AtomicLong ROWS_IN = new AtomicLong();
    /** Rows native Calc emitted in this JVM. */
    public static final AtomicLong ROWS_OUT = new AtomicLong();
    /** Bundles pushed in this JVM. */
    public static final AtomicLong BUNDLES = new AtomicLong();
    /** Input rows that were not {@code BinaryRowData} and went through the serializer. */
    public static final AtomicLong CONVERTED_ROWS = new AtomicLong();

    /** The most bytes a bundle buffers before it is pushed, whatever its row count. */
    static final int MAX_BUNDLE_BYTES = 64 << 20;

    private final String plan;
    private final RowType inputType;
    private final int outputArity;
    private final int bundleRows;
    private final long bundleLatencyMs;

    private transient NativeOperator operator;
    private transient RowDataSerializer serializer;
    private transient byte[] data;
    private transient int bytes;
    private transient int[] offsets;
    private transient int rows;
    private transient long converted;
    private transient boolean timerPending;
    private transient StreamRecord<RowData> out;

    public NativeCalcOperator(
            String plan,
            RowType inputType,
            RowType outputType,
            int bundleRows,
            long bundleLatencyMs) {
        if (bundleRows < 1) {
            throw new IllegalArgumentException("bundleRows must be at least 1, got " + bundleRows);
        }
        this.plan = plan;
        this.inputType = inputType;
        this.outputArity = outputType.getFieldCount();
        this.bundleRows = bundleRows;
        this.bundleLatencyMs = bundleLatencyMs;
    }

    @Override
    public void open() throws Exception {
        super.open();
        operator = NativeOperator.open(plan);
        serializer = new RowDataSerializer(inputType);
        data = new byte[64 * 1024];
        offsets = new int[bundleRows + 1];
        out = new StreamRecord<>(null);
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        if (rows == 0 && bundleLatencyMs > 0 && !timerPending) {
            timerPending = true;
            long now = getProcessingTimeService().getCurrentProcessingTime();
            getProcessingTimeService().registerTimer(now + bundleLatencyMs, time -> {
                timerPending = false;
                pushBundle();
            });
        }
        RowData row = element.getValue();
        BinaryRowData binary;
        if (row instanceof BinaryRowData) {
            binary = (BinaryRowData) row;
        } else {
            // Reused by the serializer: copied out below before the next row.
            binary = serializer.toBinaryRow(row);
            converted++;
        }
        int size = binary.getSizeInBytes();
        if (rows > 0 && size > MAX_BUNDLE_BYTES - bytes) {
            // Offsets are ints: wide rows make smaller bundles rather than overflow them.
            pushBundle();
        }
        if (data.length - bytes < size) {
            data = Arrays.copyOf(data, (int) Math.min(
                    Integer.MAX_VALUE - 8, Math.max(2L * data.length, (long) bytes + size)));
        }
        BinarySegmentUtils.copyToBytes(binary.getSegments(), binary.getOffset(), data, bytes, size);
        bytes += size;
        offsets[++rows] = bytes;
        if (rows == bundleRows) {
            pushBundle();
        }
    }

    /** One JNI call for the buffered rows; emits what native Calc returned. */
    private void pushBundle() {
        if (rows == 0) {
            return;
        }
        int[] bundleOffsets = rows == bundleRows ? offsets : Arrays.copyOf(offsets, rows + 1);
        NativeOperator.Rows result = operator.push(data, bundleOffsets);
        BUNDLES.incrementAndGet();
        ROWS_IN.addAndGet(rows);
        CONVERTED_ROWS.addAndGet(converted);
        converted = 0;
        rows = 0;
        bytes = 0;
        emit(result);
    }

    private void emit(NativeOperator.Rows result) {
        int n = result.size();
        if (n == 0) {
            return;
        }
        MemorySegment segment = MemorySegmentFactory.wrap(result.data);
        for (int i = 0; i < n; i++) {
            BinaryRowData row = new BinaryRowData(outputArity);
            row.pointTo(segment, result.offsets[i], result.offsets[i + 1] - result.offsets[i]);
            output.collect(out.replace(row));
        }
        ROWS_OUT.addAndGet(n);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        pushBundle();
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        pushBundle();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        pushBundle();
    }

    @Override
    public void finish() throws Exception {
        pushBundle();
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (operator != null) {
                operator.close();
                operator = null;
            }
        } finally {
            super.close();
        }
    }
}
