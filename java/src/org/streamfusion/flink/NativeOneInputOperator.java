package org.streamfusion.flink;

import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * A one-input Flink SQL operator run natively: Calc; GROUP BY and window aggregation, one phase
 * or either of two; deduplication; Top-N; OVER; the event-time sort. Bundling, state,
 * checkpoints and watermarks are {@link NativeStreamOperator}'s.
 */
public final class NativeOneInputOperator extends NativeStreamOperator
        implements OneInputStreamOperator<RowData, RowData>, BoundedOneInput {
    private static final long serialVersionUID = 2L;

    /**
     * An operator for the native {@code plan}; {@code keyed} operators keep state and must run
     * on a keyed stream. {@code name} names the node in errors; {@code upcalls} evaluates the
     * plan's upcalls (null for a plan without).
     */
    NativeOneInputOperator(
            String plan,
            String name,
            boolean keyed,
            RowType inputType,
            RowType outputType,
            int bundleRows,
            long bundleLatencyMs,
            FlinkUpcalls upcalls) {
        super(
                plan,
                name,
                keyed,
                new RowType[] {inputType},
                outputType,
                bundleRows,
                bundleLatencyMs,
                upcalls);
    }

    // The key is computed natively: Flink's per-row key extraction is skipped.
    @Override
    public void setKeyContextElement(StreamRecord<RowData> record) {}

    @Override
    public void processElement(StreamRecord<RowData> element) {
        add(0, element.getValue());
    }

    @Override
    public void endInput() {
        flushAll();
    }
}
