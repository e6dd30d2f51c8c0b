package org.streamfusion.flink;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.planner.plan.nodes.exec.SingleTransformationTranslator;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecCalc;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.types.logical.RowType;

/**
 * A {@link StreamExecCalc} run by StreamFusion: translated to the same transformation as the
 * stock node (same input, uid, parallelism, chaining) with {@link NativeCalcOperator} as its
 * operator, so operator IDs equal the stock job's. Its description starts with
 * {@value #PREFIX}, which is how {@code EXPLAIN} shows that the node runs natively.
 */
public final class NativeCalcExecNode extends ExecNodeBase<RowData>
        implements StreamExecNode<RowData>, SingleTransformationTranslator<RowData> {

    /** What the description and the transformation's name start with. */
    public static final String PREFIX = "StreamFusion";

    private final StreamExecCalc original;
    private final RowType inputType;
    private final String plan;
    private final int bundleRows;
    private final long bundleLatencyMs;

    NativeCalcExecNode(
            StreamExecCalc original,
            RowType inputType,
            String plan,
            int bundleRows,
            long bundleLatencyMs) {
        super(
                original.getId(),
                new ExecNodeContext("streamfusion-calc_1").withId(original.getId()),
                original.getPersistedConfig(),
                original.getInputProperties(),
                original.getOutputType(),
                PREFIX + original.getDescription());
        this.original = original;
        this.inputType = inputType;
        this.plan = plan;
        this.bundleRows = bundleRows;
        this.bundleLatencyMs = bundleLatencyMs;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Transformation<RowData> translateToPlanInternal(
            PlannerBase planner, ExecNodeConfig config) {
        // The stock node translates itself (and, once, its inputs): the native transformation
        // takes its input and identity from it.
        Transformation<RowData> translated = original.translateToPlan(planner);
        if (!(translated instanceof OneInputTransformation)) {
            throw new TableException(
                    "StreamFusion expected a one-input transformation for "
                            + original.getDescription()
                            + ", Flink made "
                            + translated);
        }
        OneInputTransformation<RowData, RowData> stock =
                (OneInputTransformation<RowData, RowData>) translated;
        NativeCalcOperator operator =
                new NativeCalcOperator(
                        plan, inputType, (RowType) getOutputType(), bundleRows, bundleLatencyMs);
        SimpleOperatorFactory<RowData> factory = SimpleOperatorFactory.of(operator);
        factory.setChainingStrategy(stock.getOperatorFactory().getChainingStrategy());
        OneInputTransformation<RowData, RowData> transformation =
                new OneInputTransformation<>(
                        (Transformation<RowData>) stock.getInputs().get(0),
                        PREFIX + stock.getName(),
                        factory,
                        stock.getOutputType(),
                        stock.getParallelism(),
                        stock.isParallelismConfigured());
        transformation.setDescription(PREFIX + " native: " + stock.getDescription());
        if (stock.getUid() != null) {
            transformation.setUid(stock.getUid());
        }
        if (stock.getUserProvidedNodeHash() != null) {
            transformation.setUidHash(stock.getUserProvidedNodeHash());
        }
        if (stock.getMaxParallelism() > 0) {
            transformation.setMaxParallelism(stock.getMaxParallelism());
        }
        if (stock.getStateKeySelector() != null) {
            transformation.setStateKeySelector(stock.getStateKeySelector());
            transformation.setStateKeyType(stock.getStateKeyType());
        }
        stock.getSlotSharingGroup().ifPresent(transformation::setSlotSharingGroup);
        transformation.setResources(stock.getMinResources(), stock.getPreferredResources());
        transformation.setBufferTimeout(stock.getBufferTimeout());
        return transformation;
    }
}
