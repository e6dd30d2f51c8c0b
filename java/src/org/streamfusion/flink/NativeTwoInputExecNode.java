package org.streamfusion.flink;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.transformations.TwoInputTransformation;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.planner.plan.nodes.exec.SingleTransformationTranslator;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.types.logical.RowType;

/**
 * A two-input stream node run by StreamFusion (the regular, window, interval and temporal joins):
 * translated to the same transformation as the stock node (same inputs, uid, parallelism, max
 * parallelism, key selectors, chaining) with {@link NativeTwoInputOperator} as its operator, so
 * operator IDs and key partitioning equal the stock job's. Its description starts with {@value
 * NativeOneInputExecNode#PREFIX}, as {@link NativeOneInputExecNode}'s does.
 */
public final class NativeTwoInputExecNode extends ExecNodeBase<RowData>
        implements StreamExecNode<RowData>, SingleTransformationTranslator<RowData> {

    private final ExecNodeBase<RowData> original;
    private final RowType leftType;
    private final RowType rightType;
    private final String plan;
    private final int bundleRows;
    private final long bundleLatencyMs;

    /**
     * The native form of {@code original}, running the keyed {@code plan} over rows of {@code
     * leftType} and {@code rightType}; {@code type} names the node kind ({@code
     * streamfusion-join_1}, {@code streamfusion-window-join_1}, {@code
     * streamfusion-interval-join_1}, {@code streamfusion-temporal-join_1}).
     */
    NativeTwoInputExecNode(
            ExecNodeBase<RowData> original,
            String type,
            RowType leftType,
            RowType rightType,
            String plan,
            int bundleRows,
            long bundleLatencyMs) {
        super(
                original.getId(),
                new ExecNodeContext(type).withId(original.getId()),
                original.getPersistedConfig(),
                original.getInputProperties(),
                original.getOutputType(),
                NativeOneInputExecNode.PREFIX + original.getDescription());
        this.original = original;
        this.leftType = leftType;
        this.rightType = rightType;
        this.plan = plan;
        this.bundleRows = bundleRows;
        this.bundleLatencyMs = bundleLatencyMs;
    }

    /** The stock node this one replaces. */
    public ExecNode<RowData> original() {
        return original;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        // The stock node translates itself (and, once, its inputs): the native transformation
        // takes its inputs and identity from it.
        Transformation<RowData> translated = original.translateToPlan(planner);
        if (!(translated instanceof TwoInputTransformation)
                || ((TwoInputTransformation<?, ?, ?>) translated).getStateKeySelector1() == null) {
            throw new TableException(
                    "StreamFusion expected a keyed two-input transformation for "
                            + original.getDescription()
                            + ", Flink made "
                            + translated);
        }
        TwoInputTransformation<RowData, RowData, RowData> stock =
                (TwoInputTransformation<RowData, RowData, RowData>) translated;
        String prefix = NativeOneInputExecNode.PREFIX;
        NativeTwoInputOperator operator =
                new NativeTwoInputOperator(
                        plan,
                        original.getId() + ":" + original.getDescription(),
                        true,
                        leftType,
                        rightType,
                        (RowType) getOutputType(),
                        bundleRows,
                        bundleLatencyMs);
        SimpleOperatorFactory<RowData> factory = SimpleOperatorFactory.of(operator);
        factory.setChainingStrategy(stock.getOperatorFactory().getChainingStrategy());
        TwoInputTransformation<RowData, RowData, RowData> transformation =
                new TwoInputTransformation<>(
                        stock.getInput1(),
                        stock.getInput2(),
                        prefix + stock.getName(),
                        factory,
                        stock.getOutputType(),
                        stock.getParallelism(),
                        stock.isParallelismConfigured());
        NativeOneInputExecNode.copyIdentity(stock, transformation);
        NativeOneInputExecNode.declareManagedMemory(transformation, config);
        transformation.setStateKeySelectors(
                stock.getStateKeySelector1(), stock.getStateKeySelector2());
        transformation.setStateKeyType(stock.getStateKeyType());
        return transformation;
    }
}
