package org.apache.flink.table.planner.delegation;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.delegation.PlannerFactory;

import org.streamfusion.flink.StreamFusionPlanner;

import java.util.Collections;
import java.util.Set;

/**
 * StreamFusion's shadow of Flink 2.3.0's factory of the {@code "default"} planner.
 *
 * <p>{@code PlannerFactoryUtil.createPlanner} always asks for the factory named
 * {@code "default"} and {@code FactoryUtil} refuses two factories with one identifier, so the
 * only way into the planner is to replace this class: it comes before the planner jar on the
 * classpath (a jar named {@code flink-streamfusion-*} sorts before
 * {@code flink-table-planner_2.12-*} in Flink's {@code lib/}). It is the stock factory except
 * that STREAMING mode builds a {@link StreamFusionPlanner}, which stays stock unless
 * {@code streamfusion.enabled} is set. The planner jar's own service file names this class, so
 * nothing else needs registering.
 */
public final class DefaultPlannerFactory implements PlannerFactory {

    @Override
    public String factoryIdentifier() {
        return PlannerFactory.DEFAULT_IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Collections.emptySet();
    }

    @Override
    public Planner create(Context context) {
        final RuntimeExecutionMode mode =
                context.getTableConfig().get(ExecutionOptions.RUNTIME_MODE);
        switch (mode) {
            case STREAMING:
                return new StreamFusionPlanner(
                        context.getExecutor(),
                        context.getTableConfig(),
                        context.getModuleManager(),
                        context.getFunctionCatalog(),
                        context.getCatalogManager(),
                        context.getClassLoader());
            case BATCH:
                return new BatchPlanner(
                        context.getExecutor(),
                        context.getTableConfig(),
                        context.getModuleManager(),
                        context.getFunctionCatalog(),
                        context.getCatalogManager(),
                        context.getClassLoader());
            default:
                throw new TableException(
                        String.format(
                                "Unsupported mode '%s' for '%s'. Only an explicit BATCH or"
                                        + " STREAMING mode is supported in Table API.",
                                mode, ExecutionOptions.RUNTIME_MODE.key()));
        }
    }
}
