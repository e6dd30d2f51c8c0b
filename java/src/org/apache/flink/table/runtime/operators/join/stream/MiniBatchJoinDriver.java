package org.apache.flink.table.runtime.operators.join.stream;

import java.io.Serializable;

import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.bundle.trigger.CoBundleTrigger;
import org.apache.flink.table.runtime.operators.bundle.trigger.CountCoBundleTrigger;
import org.apache.flink.table.runtime.operators.join.stream.bundle.BufferBundle;

/**
 * Flink 2.3.0's {@code MiniBatchStreamingJoinOperator}, built with the arguments the planner
 * passed, driven by event indexes for {@code org.streamfusion.golden.MiniBatchJoinVectors}:
 * each index is a row of either side, handed to the released {@code processElement1} or
 * {@code processElement2} (which buffer it and, on the bundle's last row, finish the bundle
 * through the operator's {@code CountCoBundleTrigger}), or a flush, handed to the released
 * {@code processWatermark1} (which finishes the bundle first). Before either, the operator's
 * {@code TimestampedCollector} is set to the index, so every output carries the index of the
 * event that caused it (as {@code JoinVectors.JoinDriver} does for the non-mini-batch join).
 *
 * <p><b>Why this package.</b> The operator's constructor takes a {@code
 * MiniBatchStreamingJoinParameter}, a package-private class with a package-private
 * constructor, and the four concrete operators ({@code MiniBatchInnerJoinStreamOperator},
 * {@code MiniBatchLeftOuterJoinStreamOperator}, {@code MiniBatchRightOuterJoinStreamOperator},
 * {@code MiniBatchFullOuterJoinStreamOperator}) are private final inner classes: none can be
 * subclassed from outside. So this class extends the abstract operator here and implements
 * the only method the concrete ones have, {@link #processBundles}, as they do. Everything
 * else (buffering and folding in the {@code BufferBundle}s, the trigger, {@code
 * processSingleSideBundles}, {@code processElementWithSuppress}, the state views, the join
 * condition, the output rows) is the released code, unmodified.
 *
 * <p><b>{@code processBundles}, from the 2.3.0 bytecode.</b> {@code javap -c -p} of the four
 * inner classes in {@code flink-table-runtime-2.3.0.jar} shows each {@code
 * processBundles(leftBuffer, rightBuffer)} making exactly two calls of {@code
 * processSingleSideBundles}: the inner, left outer and full outer operators first {@code
 * (rightBuffer, rightRecordStateView, leftRecordStateView, false)} then {@code (leftBuffer,
 * leftRecordStateView, rightRecordStateView, true)}; the right outer operator the other way
 * round, the left buffer first. Which one the planner built is read from its class (and
 * checked against its outer flags), and {@link #processBundles} makes the same two calls.
 *
 * <p>The constructor's arguments are the planner's instance's fields (its types, generated
 * condition, input side specs, outer flags, {@code filterNullKeys} and retention times, the
 * private ones read by reflection) and a fresh {@code CountCoBundleTrigger} with the planner's
 * trigger's {@code maxCount} (the planner makes no other trigger; anything else fails). Every
 * scenario ends with a flush, so {@code finish()} (which finishes the bundle) must emit
 * nothing: the driver clears the collector's timestamp before it, so an output there would
 * reach the recorder without its event and fail the program.
 */
public final class MiniBatchJoinDriver extends MiniBatchStreamingJoinOperator
        implements OneInputStreamOperator<Long, RowData> {
    private static final long serialVersionUID = 1L;

    private static final String INNER =
            MiniBatchStreamingJoinOperator.class.getName() + "$MiniBatchInnerJoinStreamOperator";
    private static final String LEFT = MiniBatchStreamingJoinOperator.class.getName()
            + "$MiniBatchLeftOuterJoinStreamOperator";
    private static final String RIGHT = MiniBatchStreamingJoinOperator.class.getName()
            + "$MiniBatchRightOuterJoinStreamOperator";
    private static final String FULL = MiniBatchStreamingJoinOperator.class.getName()
            + "$MiniBatchFullOuterJoinStreamOperator";

    /** A scenario's events by index: a flush, or a row of the left or the right input. */
    public interface Events extends Serializable {
        boolean isFlush(int i);

        /** Whether row event {@code i} is of the left input. */
        boolean isLeft(int i);

        /** Row event {@code i} as the network stack would deliver it: a new object each call. */
        RowData row(int i);
    }

    private final Events events;
    /** The right outer operator's order: the left buffer first. */
    private final boolean leftFirst;

    public MiniBatchJoinDriver(MiniBatchStreamingJoinOperator planned, Events events) {
        super(parameter(planned));
        this.events = events;
        this.leftFirst = leftFirst(planned);
    }

    /** The {@code maxCount} of the planner's {@code CountCoBundleTrigger}: the bundle size. */
    public static long maxCount(MiniBatchStreamingJoinOperator planned) {
        Object trigger = field(planned, "coBundleTrigger");
        if (trigger.getClass() != CountCoBundleTrigger.class) {
            throw new IllegalStateException("the planner's bundle trigger is " + trigger);
        }
        return (long) field(trigger, "maxCount");
    }

    /**
     * Whether the planner's operator processes a bundle's left buffer first: the right outer
     * operator does, the inner, left outer and full outer ones process the right buffer first.
     */
    public static boolean leftFirst(MiniBatchStreamingJoinOperator planned) {
        String name = planned.getClass().getName();
        boolean[] outer = name.equals(INNER) ? new boolean[] {false, false}
                : name.equals(LEFT) ? new boolean[] {true, false}
                : name.equals(RIGHT) ? new boolean[] {false, true}
                : name.equals(FULL) ? new boolean[] {true, true} : null;
        if (outer == null) {
            throw new IllegalStateException("not a released mini-batch join operator: " + name);
        }
        if (planned.leftIsOuter != outer[0] || planned.rightIsOuter != outer[1]) {
            throw new IllegalStateException(name + " with outer flags " + planned.leftIsOuter
                    + "/" + planned.rightIsOuter);
        }
        return name.equals(RIGHT);
    }

    private static MiniBatchStreamingJoinParameter parameter(
            MiniBatchStreamingJoinOperator planned) {
        CoBundleTrigger<RowData, RowData> trigger = new CountCoBundleTrigger<>(maxCount(planned));
        return new MiniBatchStreamingJoinParameter(planned.leftType, planned.rightType,
                (org.apache.flink.table.runtime.generated.GeneratedJoinCondition) field(planned,
                        "generatedJoinCondition"),
                planned.leftInputSideSpec, planned.rightInputSideSpec, planned.leftIsOuter,
                planned.rightIsOuter, (boolean[]) field(planned, "filterNullKeys"),
                planned.leftStateRetentionTime, planned.rightStateRetentionTime, trigger);
    }

    private static Object field(Object o, String name) {
        return org.streamfusion.golden.JoinVectors.field(o, name);
    }

    @Override
    protected void processBundles(BufferBundle<?> leftBuffer, BufferBundle<?> rightBuffer)
            throws Exception {
        if (leftFirst) {
            // MiniBatchRightOuterJoinStreamOperator
            processSingleSideBundles(leftBuffer, leftRecordStateView, rightRecordStateView, true);
            processSingleSideBundles(rightBuffer, rightRecordStateView, leftRecordStateView,
                    false);
        } else {
            // MiniBatchInnerJoinStreamOperator, ..LeftOuter.., ..FullOuter..
            processSingleSideBundles(rightBuffer, rightRecordStateView, leftRecordStateView,
                    false);
            processSingleSideBundles(leftBuffer, leftRecordStateView, rightRecordStateView, true);
        }
    }

    @Override
    public void processElement(StreamRecord<Long> event) throws Exception {
        int i = (int) (long) event.getValue();
        collector.setAbsoluteTimestamp(i);
        if (events.isFlush(i)) {
            // Finishes the bundle, then hands the watermark to the first input: the second
            // input has none, so the combined watermark never advances and nothing else runs.
            processWatermark1(new Watermark(i));
        } else if (events.isLeft(i)) {
            processElement1(new StreamRecord<>(events.row(i)));
        } else {
            processElement2(new StreamRecord<>(events.row(i)));
        }
    }

    @Override
    public void finish() throws Exception {
        collector.eraseTimestamp();
        super.finish();
    }
}
