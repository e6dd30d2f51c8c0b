package org.streamfusion.flink;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.FunctionCatalog;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.delegation.Executor;
import org.apache.flink.table.module.ModuleManager;
import org.apache.flink.table.planner.delegation.StreamPlanner;
import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeGraph;
import org.apache.flink.table.planner.plan.nodes.exec.serde.CompiledPlanSerdeUtil;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecCalc;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecDeduplicate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGlobalGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecJoin;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecLocalGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGlobalWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecGroupWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecIntervalJoin;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecLocalWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecOverAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecRank;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecTemporalJoin;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecTemporalSort;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWindowDeduplicate;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWindowJoin;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWindowRank;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecWindowTableFunction;
import org.apache.flink.table.types.logical.RowType;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectWriter;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.streamfusion.jni.NativeOperator;
import org.streamfusion.jni.NativePlanException;

import java.security.CodeSource;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Flink's {@link StreamPlanner} with StreamFusion's substitution: when {@link #ENABLED} is set,
 * every node the native side accepts - {@link StreamExecCalc}, {@link StreamExecGroupAggregate}
 * (immediate and mini-batch one-phase), {@link StreamExecLocalGroupAggregate}, {@link
 * StreamExecGlobalGroupAggregate}, {@link StreamExecWindowAggregate}, {@link
 * StreamExecLocalWindowAggregate} and {@link StreamExecGlobalWindowAggregate} (window
 * aggregation, one- and two-phase; the native side decides which windows it runs), {@link
 * StreamExecGroupWindowAggregate} (the legacy group windows; the native side runs event-time
 * sessions), {@link
 * StreamExecDeduplicate} (keep-first and keep-last rows on processing or event time, immediate
 * and mini-batch), {@link StreamExecRank} (Top-N; the native side decides which strategies
 * and rank ranges it runs), {@link StreamExecWindowRank} and {@link
 * StreamExecWindowDeduplicate} (window Top-N and deduplication over attached windows, in
 * event time), {@link StreamExecWindowTableFunction} (the window TVFs' rows; the native side
 * runs TUMBLE, HOP and CUMULATE in event time), {@link StreamExecOverAggregate} (OVER aggregation; the native side
 * runs event-time frames) and {@link StreamExecTemporalSort} (an event-time {@code ORDER BY}) -
 * is replaced by a {@link NativeOneInputExecNode} before the graph
 * is translated to transformations. Flink's {@code SortLimit} and {@code Limit} nodes subclass
 * {@code StreamExecRank} and stay stock. A regular join ({@link StreamExecJoin}), a window join
 * ({@link StreamExecWindowJoin}), an interval join ({@link StreamExecIntervalJoin}; the native
 * side runs event- and processing-time ones, and one of a negative interval, which Flink runs as
 * filters instead of a join, stays stock) and a temporal join ({@link StreamExecTemporalJoin}; the native side
 * runs the event-time {@code FOR SYSTEM_TIME AS OF} join of a versioned table without state
 * TTL) are replaced by a {@link NativeTwoInputExecNode}.
 *
 * <p>The hook is {@link #translateToPlan(ExecNodeGraph)}: it runs for {@code executeSql},
 * {@code toDataStream}, {@code EXPLAIN} and compiled plans being executed, but not for {@code
 * compilePlan}, so a {@code COMPILE PLAN} stays stock. Each node is described to the native
 * side as Flink's own compiled-plan JSON of the node (what {@code COMPILE PLAN} writes for it)
 * plus its input row type and the effective table options it depends on; the native side
 * answers with its plan or a reason. A rejected node stays stock with one log line naming node
 * and reason, or fails planning when {@link #FALLBACK} is off.
 *
 * <p>With {@link #UPCALLS} (the default), a Calc whose calls the native side has no kernel
 * for (a user's {@code ScalarFunction}, a built-in not ported, a cast this JDK prints
 * differently) stays native: the native plan lists those calls, {@link FlinkUpcalls} generates
 * Flink's own code for each here, and the task evaluates them through JNI once per batch.
 */
public class StreamFusionPlanner extends StreamPlanner {
    /** Turns the substitution on (off by default: the planner is then stock). */
    public static final ConfigOption<Boolean> ENABLED =
            ConfigOptions.key("streamfusion.enabled")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription("Run the operators StreamFusion supports natively.");

    /** Whether a node the native side rejects stays stock (true) or fails planning (false). */
    public static final ConfigOption<Boolean> FALLBACK =
            ConfigOptions.key("streamfusion.fallback")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Keep nodes the native side rejects stock; false fails planning.");

    /** Rows a native operator buffers before one call into native code. */
    public static final ConfigOption<Integer> BUNDLE_ROWS =
            ConfigOptions.key("streamfusion.bundle.rows")
                    .intType()
                    .defaultValue(1024)
                    .withDescription("Rows per bundle pushed through JNI.");

    /** How long a row may wait in a bundle before the bundle is pushed anyway. */
    public static final ConfigOption<java.time.Duration> BUNDLE_LATENCY =
            ConfigOptions.key("streamfusion.bundle.latency")
                    .durationType()
                    .defaultValue(java.time.Duration.ofMillis(100))
                    .withDescription(
                            "Longest time a row waits in a bundle (processing time); 0 waits"
                                    + " for a full bundle, a watermark or a checkpoint.");

    /**
     * The managed-memory weight of each native keyed operator (operator scope; 1 by default,
     * what Flink's own streaming window operators declare, so a native operator shares a slot
     * with stock ones as an equal): its share of the slot's managed memory, reserved in the
     * task's memory manager, caps its native state. 0 leaves native state unaccounted.
     */
    public static final ConfigOption<Integer> MANAGED_MEMORY_WEIGHT =
            ConfigOptions.key("streamfusion.memory.managed-weight")
                    .intType()
                    .defaultValue(1)
                    .withDescription(
                            "Managed-memory weight of a native keyed operator; its share of the"
                                    + " slot's managed memory caps its native state (a memory"
                                    + " store fails past it, RocksDB sizes its caches to it)."
                                    + " 0 leaves native state outside managed memory.");

    /**
     * Whether a Calc call the native side has no kernel for is evaluated by Flink's own code in
     * the JVM, once per batch (an upcall), so the rest of the Calc stays native; false keeps
     * such a Calc stock.
     */
    public static final ConfigOption<Boolean> UPCALLS =
            ConfigOptions.key("streamfusion.upcalls")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Evaluate Calc calls without a native kernel (a user's functions"
                                    + " too) with Flink's generated code, once per batch, and"
                                    + " keep the rest of the Calc native; false keeps such a"
                                    + " Calc stock.");

    private static final Logger LOG = LoggerFactory.getLogger(StreamFusionPlanner.class);
    private static final AtomicBoolean ANNOUNCED = new AtomicBoolean();

    /** The legacy group windows' emit options (the planner's {@code WindowEmitStrategy}). */
    private static final ConfigOption<Boolean> EARLY_FIRE =
            ConfigOptions.key("table.exec.emit.early-fire.enabled")
                    .booleanType()
                    .defaultValue(false);

    private static final ConfigOption<Boolean> LATE_FIRE =
            ConfigOptions.key("table.exec.emit.late-fire.enabled")
                    .booleanType()
                    .defaultValue(false);

    private static final ConfigOption<java.time.Duration> ALLOW_LATENESS =
            ConfigOptions.key("table.exec.emit.allow-lateness")
                    .durationType()
                    .defaultValue(java.time.Duration.ZERO);

    /** The last decisions kept (a session cluster plans for as long as it runs). */
    private static final int KEPT_DECISIONS = 1000;

    private static final List<Decision> DECISIONS = new ArrayList<>();

    /** What the planner did with one node (kept for tests and tools). */
    public static final class Decision {
        /** The node's id and description, as {@code EXPLAIN} shows it. */
        public final String node;
        /** The description handed to the native side ({@code null} if it could not be made). */
        public final String description;
        /** The effective options handed to the native side. */
        public final String config;
        /** The native plan, or {@code null} when rejected. */
        public final String plan;
        /** Why the node stays stock, or {@code null} when substituted. */
        public final String reason;
        /** Flink's code for the native plan's upcalls, or {@code null} without any. */
        public final FlinkUpcalls upcalls;

        Decision(String node, String description, String config, String plan, String reason) {
            this(node, description, config, plan, reason, null);
        }

        Decision(
                String node,
                String description,
                String config,
                String plan,
                String reason,
                FlinkUpcalls upcalls) {
            this.node = node;
            this.description = description;
            this.config = config;
            this.plan = plan;
            this.reason = reason;
            this.upcalls = upcalls;
        }

        /** Whether the node runs natively. */
        public boolean isNative() {
            return plan != null;
        }

        @Override
        public String toString() {
            return isNative() ? "native " + node : "stock " + node + ": " + reason;
        }
    }

    public StreamFusionPlanner(
            Executor executor,
            TableConfig tableConfig,
            ModuleManager moduleManager,
            FunctionCatalog functionCatalog,
            CatalogManager catalogManager,
            ClassLoader classLoader) {
        super(executor, tableConfig, moduleManager, functionCatalog, catalogManager, classLoader);
        if (ANNOUNCED.compareAndSet(false, true)) {
            LOG.info(activation());
        }
    }

    /**
     * The activation line: which jar the extension and the planner were loaded from. Logged
     * once per JVM when the first planner is built.
     */
    public static String activation() {
        return "StreamFusion planner extension active: "
                + StreamFusionPlanner.class.getName()
                + " from "
                + codeSource(StreamFusionPlanner.class)
                + ", Flink planner from "
                + codeSource(StreamPlanner.class)
                + "; substitution is on where "
                + ENABLED.key()
                + " = true";
    }

    private static String codeSource(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        return source == null || source.getLocation() == null
                ? "(unknown location)"
                : source.getLocation().toString();
    }

    /** The decisions made in this JVM (the last {@value #KEPT_DECISIONS}), oldest first. */
    public static List<Decision> decisions() {
        synchronized (DECISIONS) {
            return new ArrayList<>(DECISIONS);
        }
    }

    /** Forgets the recorded decisions. */
    public static void clearDecisions() {
        synchronized (DECISIONS) {
            DECISIONS.clear();
        }
    }

    private static void record(Decision decision) {
        synchronized (DECISIONS) {
            if (DECISIONS.size() == KEPT_DECISIONS) {
                DECISIONS.remove(0);
            }
            DECISIONS.add(decision);
        }
    }

    @Override
    public List<Transformation<?>> translateToPlan(ExecNodeGraph graph) {
        if (!getTableConfig().get(ENABLED)) {
            return super.translateToPlan(graph);
        }
        return super.translateToPlan(new Substitution().rewrite(graph));
    }

    /** One bottom-up walk of a graph, replacing supported nodes (shared nodes once). */
    private final class Substitution {
        private final Map<ExecNode<?>, ExecNode<?>> done = new IdentityHashMap<>();
        private final ObjectWriter writer =
                CompiledPlanSerdeUtil.createJsonObjectWriter(createSerdeContext());
        private final boolean fallback = getTableConfig().get(FALLBACK);
        private final int bundleRows = getTableConfig().get(BUNDLE_ROWS);
        private final long bundleLatencyMs = getTableConfig().get(BUNDLE_LATENCY).toMillis();

        ExecNodeGraph rewrite(ExecNodeGraph graph) {
            List<ExecNode<?>> roots = new ArrayList<>();
            for (ExecNode<?> root : graph.getRootNodes()) {
                roots.add(visit(root));
            }
            // Edges into replaced nodes were rewired in place, so EXPLAIN (which prints the
            // graph it passed in) shows them; a replaced root (a query without a sink) is
            // put in place too where Flink's list allows it.
            try {
                for (int i = 0; i < roots.size(); i++) {
                    if (graph.getRootNodes().get(i) != roots.get(i)) {
                        graph.getRootNodes().set(i, roots.get(i));
                    }
                }
                return graph;
            } catch (UnsupportedOperationException immutable) {
                return new ExecNodeGraph(graph.getFlinkVersion(), roots);
            }
        }

        private ExecNode<?> visit(ExecNode<?> node) {
            ExecNode<?> seen = done.get(node);
            if (seen != null) {
                return seen;
            }
            List<ExecEdge> edges = new ArrayList<>(node.getInputEdges());
            for (int i = 0; i < edges.size(); i++) {
                ExecEdge edge = edges.get(i);
                ExecNode<?> source = visit(edge.getSource());
                if (source != edge.getSource()) {
                    node.replaceInputEdge(i, ExecEdge.builder().from(edge).source(source).build());
                }
            }
            ExecNode<?> result = node;
            if (node instanceof StreamExecCalc) {
                result = substitute((StreamExecCalc) node, "streamfusion-calc_1", false);
            } else if (node instanceof StreamExecGroupAggregate) {
                result =
                        substitute(
                                (StreamExecGroupAggregate) node,
                                "streamfusion-group-aggregate_1",
                                true);
            } else if (node instanceof StreamExecLocalGroupAggregate) {
                result =
                        substitute(
                                (StreamExecLocalGroupAggregate) node,
                                "streamfusion-local-group-aggregate_1",
                                false);
            } else if (node instanceof StreamExecGlobalGroupAggregate) {
                result =
                        substitute(
                                (StreamExecGlobalGroupAggregate) node,
                                "streamfusion-global-group-aggregate_1",
                                true);
            } else if (node instanceof StreamExecWindowAggregate) {
                // The stock transformation's operator-scope managed memory (the window
                // buffer's) is not carried over: the native operator keeps its rows natively.
                result =
                        substitute(
                                (StreamExecWindowAggregate) node,
                                "streamfusion-window-aggregate_1",
                                true);
            } else if (node instanceof StreamExecLocalWindowAggregate) {
                result =
                        substitute(
                                (StreamExecLocalWindowAggregate) node,
                                "streamfusion-local-window-aggregate_1",
                                false);
            } else if (node instanceof StreamExecGlobalWindowAggregate) {
                result =
                        substitute(
                                (StreamExecGlobalWindowAggregate) node,
                                "streamfusion-global-window-aggregate_1",
                                true);
            } else if (node instanceof StreamExecGroupWindowAggregate) {
                // The legacy GROUP BY TUMBLE/HOP/SESSION(...) window; the native side runs
                // event-time sessions. Keyed by the grouping, as the stock transformation.
                result =
                        substitute(
                                (StreamExecGroupWindowAggregate) node,
                                "streamfusion-group-window-aggregate_1",
                                true);
            } else if (node instanceof StreamExecDeduplicate) {
                // Keyed by its unique keys: the stock transformation's key selector is kept.
                result =
                        substitute(
                                (StreamExecDeduplicate) node,
                                "streamfusion-deduplicate_1",
                                true);
            } else if (node.getClass() == StreamExecRank.class) {
                // Exactly a Top-N: SortLimit and Limit subclass it under their own JSON types.
                // Keyed by its partition key (empty for a global Top-N, which Flink runs as one
                // task): the stock transformation's key selector is kept.
                result = substitute((StreamExecRank) node, "streamfusion-rank_1", true);
            } else if (node instanceof StreamExecWindowTableFunction) {
                // Aligned windows keep no state (SESSION rows are keyed; the native side
                // refuses them).
                result =
                        substitute(
                                (StreamExecWindowTableFunction) node,
                                "streamfusion-window-table-function_1",
                                false);
            } else if (node instanceof StreamExecWindowRank) {
                // Keyed by its partition key besides the window (empty: one task).
                result =
                        substitute(
                                (StreamExecWindowRank) node, "streamfusion-window-rank_1", true);
            } else if (node instanceof StreamExecWindowDeduplicate) {
                result =
                        substitute(
                                (StreamExecWindowDeduplicate) node,
                                "streamfusion-window-deduplicate_1",
                                true);
            } else if (node.getClass() == StreamExecOverAggregate.class) {
                // Keyed by its partition key (empty without PARTITION BY).
                result =
                        substitute(
                                (StreamExecOverAggregate) node,
                                "streamfusion-over-aggregate_1",
                                true);
            } else if (node.getClass() == StreamExecTemporalSort.class) {
                // Flink keys it by the empty key: one task holds every row.
                result =
                        substitute(
                                (StreamExecTemporalSort) node,
                                "streamfusion-temporal-sort_1",
                                true);
            } else if (node.getClass() == StreamExecJoin.class) {
                // Exactly a regular join (interval, temporal and window joins have their own
                // nodes). Keyed by the join keys: the stock key selectors are kept.
                result = substitute((StreamExecJoin) node, "streamfusion-join_1", true);
            } else if (node instanceof StreamExecWindowJoin) {
                // Keyed by the join keys on both inputs: the stock key selectors are kept.
                result =
                        substitute(
                                (StreamExecWindowJoin) node, "streamfusion-window-join_1", true);
            } else if (node instanceof StreamExecIntervalJoin) {
                // Keyed by the join keys on both inputs (empty without them: Flink runs it as
                // one task): the stock key selectors are kept.
                result =
                        substitute(
                                (StreamExecIntervalJoin) node,
                                "streamfusion-interval-join_1",
                                true);
            } else if (node instanceof StreamExecTemporalJoin) {
                // Keyed by the join keys on both inputs: the stock key selectors are kept.
                result =
                        substitute(
                                (StreamExecTemporalJoin) node,
                                "streamfusion-temporal-join_1",
                                true);
            }
            done.put(node, result);
            return result;
        }

        /**
         * The native node for a one- or two-input {@code node} the native side accepts, or {@code node}
         * itself; {@code keyed} nodes keep keyed state.
         */
        private ExecNode<?> substitute(ExecNodeBase<RowData> node, String type, boolean keyed) {
            String name = node.getId() + ":" + node.getDescription();
            // An OVER node's and a temporal join's state TTL is the session's (their JSON has
            // no state metadata; Flink's temporal join operator takes the node's state
            // retention time).
            String config =
                    config(
                            node instanceof StreamExecOverAggregate
                                    || node instanceof StreamExecTemporalJoin,
                            node instanceof StreamExecGroupWindowAggregate,
                            node instanceof StreamExecIntervalJoin,
                            node instanceof StreamExecCalc);
            String description;
            try {
                description = describe(node);
            } catch (Exception e) {
                return reject(node, name, null, config, "Flink cannot serialize the node: " + e);
            }
            String plan;
            try {
                plan = NativeOperator.planFromFlink(description, config);
            } catch (NativePlanException e) {
                return reject(node, name, description, config, e.getMessage());
            } catch (LinkageError e) {
                return reject(
                        node, name, description, config, "the native library is unavailable: " + e);
            }
            FlinkUpcalls upcalls;
            try {
                upcalls =
                        FlinkUpcalls.generate(
                                plan,
                                createSerdeContext(),
                                getTableConfig(),
                                getFlinkContext().getClassLoader());
            } catch (Exception e) {
                return reject(
                        node, name, description, config,
                        "Flink cannot generate the code of an upcall: " + e);
            }
            record(
                    new Decision(
                            name,
                            description,
                            config,
                            plan,
                            null,
                            upcalls.size() == 0 ? null : upcalls));
            LOG.info(
                    "StreamFusion: node {} runs natively{}",
                    name,
                    upcalls.size() == 0 ? "" : " with " + upcalls.size() + " upcall(s)");
            RowType input = (RowType) node.getInputEdges().get(0).getOutputType();
            ExecNodeBase<RowData> replacement =
                    node.getInputEdges().size() == 2
                            ? new NativeTwoInputExecNode(
                                    node,
                                    type,
                                    input,
                                    (RowType) node.getInputEdges().get(1).getOutputType(),
                                    plan,
                                    bundleRows,
                                    bundleLatencyMs)
                            : new NativeOneInputExecNode(
                                    node,
                                    type,
                                    input,
                                    plan,
                                    keyed,
                                    bundleRows,
                                    bundleLatencyMs,
                                    upcalls.size() == 0 ? null : upcalls);
            List<ExecEdge> edges = new ArrayList<>();
            for (ExecEdge edge : node.getInputEdges()) {
                edges.add(ExecEdge.builder().from(edge).target(replacement).build());
            }
            replacement.setInputEdges(edges);
            return replacement;
        }

        private ExecNode<?> reject(
                ExecNode<?> node, String name, String description, String config, String reason) {
            record(new Decision(name, description, config, null, reason));
            if (!fallback) {
                throw new TableException(
                        "StreamFusion cannot run node "
                                + name
                                + " natively ("
                                + FALLBACK.key()
                                + " = false): "
                                + reason);
            }
            LOG.info("StreamFusion: node {} stays stock: {}", name, reason);
            return node;
        }

        /** {@code {"node": <Flink's JSON of the node>, "inputs": [<input row types>]}}. */
        private String describe(ExecNode<?> node) throws Exception {
            StringBuilder b = new StringBuilder("{\"node\":");
            b.append(writer.writeValueAsString(node)).append(",\"inputs\":[");
            List<ExecEdge> edges = node.getInputEdges();
            for (int i = 0; i < edges.size(); i++) {
                b.append(i == 0 ? "" : ",")
                        .append(writer.writeValueAsString(edges.get(i).getOutputType()));
            }
            return b.append("]}").toString();
        }

        /**
         * The effective values of the options the native plans depend on, by Flink key; with
         * {@code stateTtl}, {@code table.exec.state.ttl} too, with {@code groupWindow} the
         * legacy group windows' emit options, and with {@code intervalJoin} the interval join's
         * {@code table.exec.interval-join.min-cleanup-interval} (which Flink's node reads from
         * the planner's configuration when it translates, not from its own), and with {@code
         * calc} whether its calls may be upcalls ({@link #UPCALLS}, which only a Calc reads).
         */
        private String config(
                boolean stateTtl, boolean groupWindow, boolean intervalJoin, boolean calc) {
            TableConfig table = getTableConfig();
            Map<String, String> options = new TreeMap<>();
            if (stateTtl) {
                options.put(
                        ExecutionConfigOptions.IDLE_STATE_RETENTION.key(),
                        table.get(ExecutionConfigOptions.IDLE_STATE_RETENTION).toMillis() + " ms");
            }
            options.put(
                    ExecutionConfigOptions.TABLE_EXEC_LEGACY_CAST_BEHAVIOUR.key(),
                    table.get(ExecutionConfigOptions.TABLE_EXEC_LEGACY_CAST_BEHAVIOUR).name());
            options.put("table.local-time-zone", table.getLocalTimeZone().getId());
            // The JVM's Float/Double.toString (FloatingDecimal before JDK 19) shapes casts.
            options.put("java.specification.version",
                    System.getProperty("java.specification.version"));
            options.put(
                    ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_ENABLED.key(),
                    String.valueOf(table.get(ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_ENABLED)));
            options.put(
                    ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_SIZE.key(),
                    String.valueOf(table.get(ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_SIZE)));
            // Deduplication: whether a keep-last row without -U is still +I when it is a key's
            // first, and whether a mini-batch keeps only each key's latest change.
            for (ConfigOption<Boolean> option :
                    List.of(
                            ExecutionConfigOptions
                                    .TABLE_EXEC_DEDUPLICATE_INSERT_UPDATE_AFTER_SENSITIVE_ENABLED,
                            ExecutionConfigOptions
                                    .TABLE_EXEC_DEDUPLICATE_MINIBATCH_COMPACT_CHANGES_ENABLED)) {
                options.put(option.key(), String.valueOf(table.get(option)));
            }
            if (groupWindow) {
                // Early/late firing and allowed lateness change what a group window emits.
                options.put(EARLY_FIRE.key(), String.valueOf(table.get(EARLY_FIRE)));
                options.put(LATE_FIRE.key(), String.valueOf(table.get(LATE_FIRE)));
                options.put(ALLOW_LATENESS.key(), table.get(ALLOW_LATENESS).toMillis() + " ms");
            }
            if (calc) {
                options.put(UPCALLS.key(), String.valueOf(table.get(UPCALLS)));
            }
            if (intervalJoin) {
                ConfigOption<java.time.Duration> cleanup =
                        ExecutionConfigOptions.TABLE_EXEC_INTERVAL_JOIN_MIN_CLEAN_UP_INTERVAL;
                options.put(cleanup.key(), table.get(cleanup).toMillis() + " ms");
            }
            options.put(
                    CoreOptions.DEFAULT_PARALLELISM.key(),
                    String.valueOf(table.get(CoreOptions.DEFAULT_PARALLELISM)));
            options.put(
                    PipelineOptions.MAX_PARALLELISM.key(),
                    String.valueOf(table.get(PipelineOptions.MAX_PARALLELISM)));
            try {
                return new ObjectMapper().writeValueAsString(options);
            } catch (JsonProcessingException e) {
                throw new TableException("StreamFusion cannot write the plan options", e);
            }
        }
    }
}
