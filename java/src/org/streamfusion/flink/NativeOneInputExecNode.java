package org.streamfusion.flink;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
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
 * A one-input stream node run by StreamFusion (Calc; GROUP BY and window aggregation, one phase
 * or either of two; deduplication; Top-N): translated to the same transformation as the stock
 * node (same input, uid, parallelism, max parallelism, key selector, chaining) with {@link
 * NativeOneInputOperator} as its operator, so operator IDs and key partitioning equal the stock
 * job's (a node without a key, such as a global Top-N, keeps Flink's empty key selector and
 * its parallelism of one). Its description starts with {@value #PREFIX}, which is how {@code
 * EXPLAIN} shows that the node runs natively.
 */
public final class NativeOneInputExecNode extends ExecNodeBase<RowData>
        implements StreamExecNode<RowData>, SingleTransformationTranslator<RowData> {

    /** What the description and the transformation's name start with. */
    public static final String PREFIX = "StreamFusion";

    private final ExecNodeBase<RowData> original;
    private final RowType inputType;
    private final String plan;
    private final boolean keyed;
    private final int bundleRows;
    private final long bundleLatencyMs;
    /** Flink's code for the plan's upcalls; null for a plan without. */
    private final FlinkUpcalls upcalls;

    /**
     * The native form of {@code original}, running {@code plan} over rows of {@code
     * inputType}; a {@code keyed} node keeps keyed state natively. {@code type} names the
     * node kind, as Flink's {@code ExecNodeMetadata} names do ({@code streamfusion-calc_1}).
     * {@code upcalls} evaluates the plan's upcalls (null for a plan without).
     */
    NativeOneInputExecNode(
            ExecNodeBase<RowData> original,
            String type,
            RowType inputType,
            String plan,
            boolean keyed,
            int bundleRows,
            long bundleLatencyMs,
            FlinkUpcalls upcalls) {
        super(
                original.getId(),
                new ExecNodeContext(type).withId(original.getId()),
                original.getPersistedConfig(),
                original.getInputProperties(),
                original.getOutputType(),
                PREFIX + original.getDescription());
        this.original = original;
        this.inputType = inputType;
        this.plan = plan;
        this.keyed = keyed;
        this.bundleRows = bundleRows;
        this.bundleLatencyMs = bundleLatencyMs;
        this.upcalls = upcalls;
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
        if (keyed && stock.getStateKeySelector() == null) {
            throw new TableException(
                    "StreamFusion expected a keyed transformation for "
                            + original.getDescription());
        }
        NativeOneInputOperator operator =
                new NativeOneInputOperator(
                        plan,
                        original.getId() + ":" + original.getDescription(),
                        keyed,
                        inputType,
                        (RowType) getOutputType(),
                        bundleRows,
                        bundleLatencyMs,
                        upcalls);
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
        copyIdentity(stock, transformation);
        if (keyed) {
            declareManagedMemory(transformation, config);
        }
        if (stock.getStateKeySelector() != null) {
            transformation.setStateKeySelector(stock.getStateKeySelector());
            transformation.setStateKeyType(stock.getStateKeyType());
        }
        return transformation;
    }

    /**
     * Declares a keyed native operator's managed memory (operator scope, weight {@link
     * StreamFusionPlanner#MANAGED_MEMORY_WEIGHT}), which caps its native state; a weight of 0
     * declares none.
     */
    static void declareManagedMemory(Transformation<?> transformation, ReadableConfig config) {
        int weight = config.get(StreamFusionPlanner.MANAGED_MEMORY_WEIGHT);
        if (weight < 0) {
            throw new TableException(
                    StreamFusionPlanner.MANAGED_MEMORY_WEIGHT.key() + " must not be negative, got "
                            + weight);
        }
        if (weight > 0) {
            transformation.declareManagedMemoryUseCaseAtOperatorScope(
                    ManagedMemoryUseCase.OPERATOR, weight);
        }
    }

    /**
     * Gives the native transformation the stock one's identity and placement: description,
     * uid (and hash), max parallelism, slot sharing group, resources and buffer timeout.
     */
    static void copyIdentity(Transformation<?> stock, Transformation<?> transformation) {
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
        stock.getSlotSharingGroup().ifPresent(transformation::setSlotSharingGroup);
        transformation.setResources(stock.getMinResources(), stock.getPreferredResources());
        transformation.setBufferTimeout(stock.getBufferTimeout());
    }
}
