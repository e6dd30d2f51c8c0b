package org.streamfusion.harness;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobInfoImpl;
import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.functions.util.RuntimeUDFContext;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.types.Row;

import org.streamfusion.flink.StreamFusionPlanner;

import java.util.HashMap;
import java.util.List;

/**
 * The {@code jvm_truncate} suite's JVM side (embedded, on the planner classpath): plans a
 * one-Calc query over {@code t(d DOUBLE)} through StreamFusion's planner, exactly as a job
 * would, and hands back what the task would run: Flink's description of the Calc node, the
 * native plan (with its upcalls) and the opened upcalls ({@code FlinkUpcalls.Runner}), whose
 * {@code evaluate} is Flink's generated code for a call, row by row.
 */
public final class UpcallFixture {
    private UpcallFixture() {}

    /**
     * {@code Object[] {description, plan, upcalls}} of the native Calc of {@code sql}; {@code
     * HALF} is a user's function there. Fails unless the Calc runs natively with upcalls.
     */
    public static Object[] plan(String sql) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set(StreamFusionPlanner.ENABLED, true);
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        tEnv.createTemporaryView(
                "t",
                tEnv.fromDataStream(
                        env.fromData(List.of(Row.of(1.0)),
                                CalcParity.rowInfo(DataTypes.ROW(
                                        DataTypes.FIELD("d", DataTypes.DOUBLE()))))));
        tEnv.createTemporarySystemFunction("HALF", Half.class);
        StreamFusionPlanner.clearDecisions();
        tEnv.toChangelogStream(tEnv.sqlQuery(sql));
        for (StreamFusionPlanner.Decision d : StreamFusionPlanner.decisions()) {
            if (d.upcalls != null) {
                return new Object[] {
                    d.description,
                    d.plan,
                    d.upcalls.open(runtimeContext(), UpcallFixture.class.getClassLoader())
                };
            }
        }
        throw new IllegalStateException(
                "no native Calc with upcalls for " + sql + ": " + StreamFusionPlanner.decisions());
    }

    /** A task's runtime context, as one subtask of one (a user's function opens with it). */
    static RuntimeContext runtimeContext() {
        return new RuntimeUDFContext(
                new JobInfoImpl(new JobID(), "jvm_truncate"),
                new TaskInfoImpl("jvm_truncate", 128, 0, 1, 0),
                UpcallFixture.class.getClassLoader(),
                new ExecutionConfig(),
                new HashMap<>(),
                new HashMap<>(),
                UnregisteredMetricsGroup.createOperatorMetricGroup());
    }

    /** A user's function: half of {@code d}, NULL for NULL. */
    public static final class Half extends ScalarFunction {
        private static final long serialVersionUID = 1L;

        public Double eval(Double d) {
            return d == null ? null : d / 2;
        }
    }
}
