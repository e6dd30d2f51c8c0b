package org.streamfusion.flink;

import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * A two-input Flink SQL operator run natively: the regular, window, interval and temporal joins.
 * A regular join's rows of both inputs go to the native operator in the order the task processes
 * them (a row of one input pushes the other's buffered rows first); a window, an interval and a
 * temporal join's are bundled per input. The watermark handed to it is Flink's combined
 * watermark of the two inputs ({@code processWatermark1}/{@code 2} call {@link #processWatermark}
 * when it moves); an interval join forwards it delayed, as Flink's does. A mini-batch regular
 * join applies its bundle on every watermark of either input first, as Flink's {@code
 * MiniBatchStreamingJoinOperator} does. Bundling, state, checkpoints and the watermark delay
 * are {@link NativeStreamOperator}'s.
 */
public final class NativeTwoInputOperator extends NativeStreamOperator
        implements TwoInputStreamOperator<RowData, RowData, RowData>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;

    /**
     * An operator for the native {@code plan} over a left input of {@code leftType} and a right
     * input of {@code rightType}; {@code keyed} operators keep state and must run on keyed
     * streams. {@code name} names the node in errors.
     */
    public NativeTwoInputOperator(
            String plan,
            String name,
            boolean keyed,
            RowType leftType,
            RowType rightType,
            RowType outputType,
            int bundleRows,
            long bundleLatencyMs) {
        super(
                plan,
                name,
                keyed,
                new RowType[] {leftType, rightType},
                outputType,
                bundleRows,
                bundleLatencyMs,
                null);
    }

    /** Whether the native operator is a mini-batch regular join. */
    private transient boolean miniBatch;

    @Override
    public void open() throws Exception {
        super.open();
        miniBatch = bundlesOnEveryWatermark(plan());
    }

    @Override
    public void processWatermark1(Watermark mark) throws Exception {
        if (miniBatch) {
            flushAll();
        }
        super.processWatermark1(mark);
    }

    @Override
    public void processWatermark2(Watermark mark) throws Exception {
        if (miniBatch) {
            flushAll();
        }
        super.processWatermark2(mark);
    }

    @Override
    public void processElement1(StreamRecord<RowData> element) {
        add(0, element.getValue());
    }

    @Override
    public void processElement2(StreamRecord<RowData> element) {
        add(1, element.getValue());
    }

    /** One input ended: its rows are pushed (the other may still send rows). */
    @Override
    public void endInput(int inputId) {
        pushBundle();
    }
}
