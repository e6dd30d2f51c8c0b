package org.streamfusion.flink;

import org.apache.flink.api.common.functions.DefaultOpenContext;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.functions.util.FunctionUtils;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.codegen.CodeGeneratorContext;
import org.apache.flink.table.planner.codegen.ExprCodeGenerator;
import org.apache.flink.table.planner.codegen.FunctionCodeGenerator;
import org.apache.flink.table.planner.codegen.GeneratedExpression;
import org.apache.flink.table.planner.plan.nodes.exec.serde.CompiledPlanSerdeUtil;
import org.apache.flink.table.planner.plan.nodes.exec.serde.SerdeContext;
import org.apache.flink.table.runtime.generated.GeneratedFunction;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectReader;

import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;

import org.streamfusion.jni.Upcalls;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import scala.Option;
import scala.collection.JavaConverters;

/**
 * A native Calc's upcalls: the calls its plan hands back to the JVM (functions without a native
 * kernel, a user's {@code ScalarFunction}, casts the native side cannot print as this JDK
 * does). The native plan lists each as Flink's RexNode JSON over its arguments, which are input
 * fields {@code 0..n}. At planning, {@link #generate} reads each back with Flink's serde and
 * generates Flink's own code for it, exactly as a stock Calc would evaluate that call: a
 * {@code MapFunction} from the argument row to a one-field {@code BinaryRowData}. In the task,
 * {@link Runner} instantiates and opens them and evaluates a batch per native call.
 */
public final class FlinkUpcalls implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Each upcall's generated code, by index. */
    private final List<GeneratedFunction<MapFunction<RowData, RowData>>> functions;
    /** Each upcall's argument row type, by index. */
    private final List<RowType> arguments;

    private FlinkUpcalls(
            List<GeneratedFunction<MapFunction<RowData, RowData>>> functions,
            List<RowType> arguments) {
        this.functions = functions;
        this.arguments = arguments;
    }

    /** How many upcalls there are. */
    public int size() {
        return functions.size();
    }

    /**
     * Flink's code for every upcall of the native {@code plan} (none for a plan without
     * upcalls), its RexNodes read with {@code serde} (which resolves a user's functions).
     */
    static FlinkUpcalls generate(
            String plan, SerdeContext serde, ReadableConfig config, ClassLoader classLoader)
            throws Exception {
        JsonNode upcalls = MAPPER.readTree(plan).path("calc").path("upcalls");
        List<GeneratedFunction<MapFunction<RowData, RowData>>> functions = new ArrayList<>();
        List<RowType> arguments = new ArrayList<>();
        ObjectReader reader = CompiledPlanSerdeUtil.createJsonObjectReader(serde);
        for (JsonNode upcall : upcalls) {
            RexNode rex = reader.forType(RexNode.class).readValue(upcall.get("call").toString());
            RowType input = argumentRow((RexCall) rex);
            RowType output = RowType.of(FlinkTypeFactory.toLogicalType(rex.getType()));
            functions.add(function(rex, input, output, functions.size(), config, classLoader));
            arguments.add(input);
        }
        return new FlinkUpcalls(functions, arguments);
    }

    /** The row of a call's arguments: its input-field operands, by index. */
    private static RowType argumentRow(RexCall call) {
        List<LogicalType> fields = new ArrayList<>();
        for (RexNode operand : call.getOperands()) {
            if (operand instanceof RexInputRef) {
                RexInputRef ref = (RexInputRef) operand;
                if (ref.getIndex() != fields.size()) {
                    throw new IllegalArgumentException(
                            "upcall argument $" + ref.getIndex() + " out of order in " + call);
                }
                fields.add(FlinkTypeFactory.toLogicalType(ref.getType()));
            }
        }
        return RowType.of(fields.toArray(new LogicalType[0]));
    }

    /**
     * A {@code MapFunction} evaluating {@code rex} over an {@code input} row into an {@code
     * output} {@code BinaryRowData}, generated as Flink generates a Calc's projection.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static GeneratedFunction<MapFunction<RowData, RowData>> function(
            RexNode rex,
            RowType input,
            RowType output,
            int index,
            ReadableConfig config,
            ClassLoader classLoader) {
        CodeGeneratorContext ctx = new CodeGeneratorContext(config, classLoader);
        ExprCodeGenerator generator = new ExprCodeGenerator(ctx, false);
        generator = generator.bindInput(
                input, generator.bindInput$default$2(), generator.bindInput$default$3());
        GeneratedExpression value = generator.generateExpression(rex);
        GeneratedExpression row = generator.generateResultExpression(
                JavaConverters.asScalaBuffer(List.of(value)).toSeq(),
                output,
                BinaryRowData.class,
                generator.generateResultExpression$default$4(),
                generator.generateResultExpression$default$5(),
                generator.generateResultExpression$default$6(),
                generator.generateResultExpression$default$7());
        String body = row.code() + "\nreturn " + row.resultTerm() + ";";
        return (GeneratedFunction) FunctionCodeGenerator.generateFunction(
                ctx,
                "StreamFusionUpcall" + index,
                MapFunction.class,
                body,
                output,
                input,
                FunctionCodeGenerator.generateFunction$default$7(),
                Option.empty(),
                FunctionCodeGenerator.generateFunction$default$9(),
                FunctionCodeGenerator.generateFunction$default$10(),
                FunctionCodeGenerator.generateFunction$default$11());
    }

    /** The upcalls instantiated and opened in a task, with {@code context} as their runtime. */
    public Runner open(RuntimeContext context, ClassLoader classLoader) throws Exception {
        List<MapFunction<RowData, RowData>> instances = new ArrayList<>();
        for (GeneratedFunction<MapFunction<RowData, RowData>> f : functions) {
            MapFunction<RowData, RowData> instance = f.newInstance(classLoader);
            FunctionUtils.setFunctionRuntimeContext(instance, context);
            FunctionUtils.openFunction(instance, DefaultOpenContext.INSTANCE);
            instances.add(instance);
        }
        return new Runner(instances, arguments);
    }

    /** The opened upcalls of one operator: what native code calls back. */
    public static final class Runner implements Upcalls, AutoCloseable {
        private final List<MapFunction<RowData, RowData>> functions;
        private final BinaryRowData[] argumentRows;
        private byte[] out = new byte[1024];

        Runner(List<MapFunction<RowData, RowData>> functions, List<RowType> arguments) {
            this.functions = functions;
            this.argumentRows = new BinaryRowData[arguments.size()];
            for (int i = 0; i < argumentRows.length; i++) {
                argumentRows[i] = new BinaryRowData(arguments.get(i).getFieldCount());
            }
        }

        @Override
        public Object[] evaluate(int index, byte[] data, int[] offsets) throws Exception {
            MapFunction<RowData, RowData> function = functions.get(index);
            BinaryRowData row = argumentRows[index];
            MemorySegment segment = MemorySegmentFactory.wrap(data);
            int rows = offsets.length - 1;
            int[] outOffsets = new int[rows + 1];
            int used = 0;
            for (int i = 0; i < rows; i++) {
                row.pointTo(segment, offsets[i], offsets[i + 1] - offsets[i]);
                BinaryRowData result = (BinaryRowData) function.map(row);
                int size = result.getSizeInBytes();
                if (used + size > out.length) {
                    out = Arrays.copyOf(out, Math.max(out.length * 2, used + size));
                }
                BinarySegmentUtils.copyToBytes(
                        result.getSegments(), result.getOffset(), out, used, size);
                used += size;
                outOffsets[i + 1] = used;
            }
            // The buffer is reused: native code reads it up to the last offset, then returns.
            return new Object[] {out, outOffsets};
        }

        @Override
        public void close() throws Exception {
            for (MapFunction<RowData, RowData> f : functions) {
                FunctionUtils.closeFunction(f);
            }
        }
    }
}
