package org.streamfusion.golden;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.TimeUtils;

import org.streamfusion.flink.StreamFusionPlanner;
import org.streamfusion.jni.NativeOperator;

/**
 * Golden changelogs of streaming Top-N ({@code StreamExecRank}: {@code ROW_NUMBER() OVER
 * ([PARTITION BY ..] ORDER BY ..)} filtered to a constant range), produced by Flink SQL on the
 * released Flink 2.3.0 jars: each scenario's rows go through {@code SELECT cols [, rn] FROM
 * (SELECT *, ROW_NUMBER() OVER (..) AS rn FROM src) WHERE rn <= N} ({@code rn < N}, {@code rn =
 * 1}, {@code rn BETWEEN a AND b}) in a MiniCluster at parallelism 1 under the scenario's keyed
 * state backend and options, and the changelog the job emits is recorded with its row kinds. The
 * native Top-N is tested against them ({@code crates/streamfusion/tests/it/rank_flink.rs}).
 *
 * <p>The kinds and their functions in 2.3.0 ({@code StreamExecRank#translateToPlanInternal}):
 * over an insert-only input the planner picks {@code AppendFastStrategy}, run by {@code
 * AppendOnlyFirstNFunction} when the only sort key is a processing-time attribute ascending
 * ("append first-n"), {@code FastTop1Function} for the range 1..1 ("append top-1") and {@code
 * AppendOnlyTopNFunction} otherwise ("append top-n"); over an updating input {@code
 * RetractStrategy} ({@code RetractableTopNFunction}, "retract": here a {@code
 * fromChangelogStream} without a primary key) or, when a unique key of the input holds the
 * partition key and the sort key is monotonic in the sort direction, {@code UpdateFastStrategy}
 * ({@code FastTop1Function} for 1..1, "update-fast top-1", else {@code UpdatableTopNFunction},
 * "update-fast top-n": here a {@code COUNT(*)} or {@code MAX} per group, ordered descending).
 * {@code rn} in the output makes {@code outputRowNumber} true, except for a one-rank range,
 * whose constant {@code rn} the planner computes after the node; a row number or an offset
 * (range start above 1) makes {@code AppendOnlyTopNFunction} emit per rank ({@code -U}/{@code
 * +U} of the ranks that moved) instead of {@code +I}/{@code -D} of the rows entering and
 * leaving. {@code -U} is generated for a {@code toChangelogStream} in retract mode; scenarios
 * marked upsert convert with {@code ChangelogMode.upsert()} and a primary key (the partition
 * keys, and {@code rn} where it is in the output), so the node has {@code generateUpdateBefore
 * = false}. The program checks the node of every scenario: its strategy, range, flags, sort
 * and partition keys and state TTL. Rank has no mini-batch in Flink 2.3.0.
 *
 * <p>Rows enter from {@code fromData} at parallelism 1 ({@code fromChangelogStream} with
 * explicit row kinds for the retract scenarios), so they reach the node in one fixed order. A
 * table with a processing-time attribute has the computed column {@code pt AS PROCTIME()},
 * which the node's input holds as NULL (as in {@link DedupVectors}: the planner's code for an
 * unread time indicator is a null literal) and the query projects away. The one rowtime
 * scenario has punctuated watermarks on {@code ts}, as {@link DedupVectors} schedules them. An
 * update-fast scenario's node reads the changelog of the GROUP BY below it, which this program
 * computes from the rows (Flink's GroupAggFunction: {@code +I} for a group's first row, then
 * {@code +U} when the value changed, {@code -U} before it only if the aggregate node generates
 * it; the aggregate node's flags are checked).
 *
 * <p>Each scenario's node description is what {@link StreamFusionPlanner} hands to {@code
 * NativeOperator.planFromFlink}, taken from its recorded decision: {@code streamfusion.enabled}
 * is on while the job is planned, and the native library is pointed at a path that does not
 * exist, so every node is refused (a LinkageError) and the job runs stock. Node ids restart for
 * every scenario. The scenarios of one backend run in one job, each a pipeline of its own
 * (source, query, conversion) planned under its own options.
 *
 * <p>Usage: {@code RankVectors <output path> [scenario..]} (all scenarios when none are named),
 * on the planner classpath ({@code classpath-planner.txt}). Output is JSON Lines (UTF-8, LF):
 *
 * <ul>
 *   <li>line 1: {@code {"flink":"2.3.0","seed":..,"generator":..,"format":..}};
 *   <li>per scenario, a header {@code {"scenario":name,"description":..,"kind":..,
 *       "function":<Flink's function class>,"strategy":"AppendFast"|"Retract"|"UpdateFast",
 *       "rank_range":[start,end],"row_number":bool,"update_before":bool,
 *       "backend":"hashmap"|"rocksdb","state_ttl_ms":ms|null,"node":<description text>,
 *       "config":<options text>,"input":[{"name":..,"type":..[,"time":"proctime"|"rowtime"]}..],
 *       "output":[{"name":..,"type":..}..],"output_columns":[..],"output_keys":[..],"sql":..,
 *       "plan":..,"events_in":n,"rows_out":m}}: {@code node} and {@code config} are the exact
 *       texts the planner made ({@code flink::plan_node}'s two arguments); {@code input} is the
 *       node's input row; {@code output_columns} says which node output column each output
 *       column is (the node's output is its input row, then the row number when {@code
 *       row_number}), {@code output_keys} which output columns are the partition keys (none for
 *       a global Top-N); {@code plan} is the job's operators in order;
 *   <li>then n events in the order the node receives them: {@code {"in":kind,"row":[..]}} and
 *       {@code {"watermark":ms}} (the source's watermarks, and {@code Long.MAX_VALUE} at the end
 *       of input);
 *   <li>then m lines {@code {"out":kind,"row":[..]}}, kind being +I/-U/+U/-D, in the order the
 *       job emitted them.
 * </ul>
 *
 * <p>Values as {@link DedupVectors} writes them. Every scenario's random rows come from {@link
 * #SEED} and its name (without {@code _rocksdb}: a scenario run on both backends has the same
 * rows on both), so two runs write byte-identical files.
 */
public final class RankVectors {
    /** Published seed (the project's). */
    public static final long SEED = GroupAggVectors.SEED;

    static final String GENERATOR = "java/src/org/streamfusion/golden/RankVectors.java";
    static final String NODE_TYPE = "stream-exec-rank_1";
    static final String AGGREGATE_NODE_TYPE = "stream-exec-group-aggregate_1";
    static final LocalDateTime BASE = DedupVectors.BASE;
    static final long BASE_MS = DedupVectors.BASE_MS;
    static final long NO_WATERMARK = DedupVectors.NO_WATERMARK;
    static final long END_OF_INPUT = DedupVectors.END_OF_INPUT;
    static final long HOUR_MS = 3_600_000L;
    static final ObjectMapper JSON = new ObjectMapper();

    /** Where the node's input comes from. */
    enum Source {
        /** {@code fromData}: insert-only. */
        INSERT,
        /** {@code fromChangelogStream} with the rows' kinds, no primary key. */
        CHANGELOG,
        /** A GROUP BY over the insert-only rows, one aggregate {@code c}. */
        AGGREGATE
    }

    /** The rank process strategy, as the node's JSON names it. */
    enum Strategy {
        APPEND_FAST("AppendFast"),
        RETRACT("Retract"),
        UPDATE_FAST("UpdateFast");

        final String json;

        Strategy(String json) {
            this.json = json;
        }
    }

    /** One physical column: its name, its Rust-parsable type name, its Flink type. */
    record Column(String name, String type, DataType dataType) {}

    /** One ORDER BY item; {@code nullsLast} null for the default (ASC first, DESC last). */
    record Order(String column, boolean ascending, Boolean nullsLast) {
        String sql() {
            return "`" + column + "`" + (ascending ? "" : " DESC")
                    + (nullsLast == null ? "" : nullsLast ? " NULLS LAST" : " NULLS FIRST");
        }

        boolean nullIsLast() {
            return nullsLast == null ? !ascending : nullsLast;
        }
    }

    static final class Scenario {
        final String name;
        final String description;
        final SplittableRandom rnd;
        String backend = "hashmap";
        Source source = Source.INSERT;
        boolean upsert;
        long ttlMs;
        /** The table has {@code pt AS PROCTIME()}. */
        boolean proctime;
        /** {@code ts} is the rowtime attribute, with the scheduled watermarks. */
        boolean rowtime;
        final List<Column> columns = new ArrayList<>();
        final List<String> partition = new ArrayList<>();
        final List<Order> order = new ArrayList<>();
        /** The columns selected besides {@code rn}; empty for every physical column. */
        final List<String> select = new ArrayList<>();
        long start = 1;
        long end;
        /** The WHERE clause on {@code rn}. */
        String filter;
        boolean rowNumber;
        final List<Row> rows = new ArrayList<>();
        final List<Long> watermarks = new ArrayList<>();
        long lastWatermark = NO_WATERMARK;
        /** AGGREGATE: the grouping columns, the function (COUNT or MAX) and its argument. */
        final List<String> groupBy = new ArrayList<>();
        String aggregate;
        String aggregateArg;

        Scenario(String name, String description) {
            this.name = name;
            this.description = description;
            // A scenario and its RocksDB twin draw the same rows.
            this.rnd = new SplittableRandom(SEED ^ name.replace("_rocksdb", "").hashCode());
        }

        Scenario column(String name, String type, DataType dataType) {
            columns.add(new Column(name, type, dataType));
            return this;
        }

        Scenario partition(String... names) {
            partition.addAll(Arrays.asList(names));
            return this;
        }

        Scenario asc(String column) {
            order.add(new Order(column, true, null));
            return this;
        }

        Scenario desc(String column) {
            order.add(new Order(column, false, null));
            return this;
        }

        Scenario order(String column, boolean ascending, boolean nullsLast) {
            order.add(new Order(column, ascending, nullsLast));
            return this;
        }

        Scenario select(String... names) {
            select.addAll(Arrays.asList(names));
            return this;
        }

        /** {@code rn <= n}. */
        Scenario top(long n) {
            end = n;
            filter = "rn <= " + n;
            return this;
        }

        /** {@code rn < n}. */
        Scenario lessThan(long n) {
            end = n - 1;
            filter = "rn < " + n;
            return this;
        }

        /** {@code rn = 1}. */
        Scenario first() {
            end = 1;
            filter = "rn = 1";
            return this;
        }

        /** {@code rn BETWEEN a AND b}. */
        Scenario between(long a, long b) {
            start = a;
            end = b;
            filter = "rn BETWEEN " + a + " AND " + b;
            return this;
        }

        /** {@code rn} in the output. */
        Scenario rowNumber() {
            rowNumber = true;
            return this;
        }

        Scenario backend(String backend) {
            this.backend = backend;
            return this;
        }

        /** Converted in upsert mode: the node generates no {@code -U}. */
        Scenario upsert() {
            this.upsert = true;
            return this;
        }

        Scenario ttl(long ms) {
            this.ttlMs = ms;
            return this;
        }

        Scenario proctime() {
            this.proctime = true;
            return this;
        }

        Scenario changelog() {
            this.source = Source.CHANGELOG;
            return this;
        }

        /** The node reads {@code SELECT groupBy.., function(arg) AS c .. GROUP BY groupBy..}. */
        Scenario aggregate(String function, String arg, String... groupBy) {
            this.source = Source.AGGREGATE;
            this.aggregate = function;
            this.aggregateArg = arg;
            this.groupBy.addAll(Arrays.asList(groupBy));
            return this;
        }

        /** A row of the physical columns. */
        void row(Object... values) {
            kindRow(RowKind.INSERT, values);
        }

        void kindRow(RowKind kind, Object... values) {
            if (values.length != columns.size()) {
                throw new IllegalArgumentException(name + ": a row of " + values.length
                        + " values for " + columns.size() + " columns");
            }
            rows.add(Row.ofKind(kind, values));
            watermarks.add(NO_WATERMARK);
        }

        /** The source emits a watermark of BASE + {@code at} ms after the last row. */
        void watermark(long at) {
            long w = BASE_MS + at;
            if (!rowtime || rows.isEmpty() || watermarks.get(rows.size() - 1) != NO_WATERMARK
                    || w <= lastWatermark) {
                throw new IllegalArgumentException(name + ": watermark " + at
                        + " must follow a row of a rowtime scenario and exceed the last one");
            }
            watermarks.set(rows.size() - 1, w);
            lastWatermark = w;
        }

        Strategy strategy() {
            return switch (source) {
                case INSERT -> Strategy.APPEND_FAST;
                case CHANGELOG -> Strategy.RETRACT;
                case AGGREGATE -> Strategy.UPDATE_FAST;
            };
        }

        boolean top1() {
            return start == 1 && end == 1;
        }

        /**
         * Whether the node generates {@code -U}: not for an upsert conversion, and not for a
         * top-1 over an insert-only input unless it sorts by one key descending. Flink 2.1+
         * declares such a Rank insert-only, reasoning as for a keep-first deduplication
         * ({@code FlinkChangelogModeInferenceProgram}: {@code RankUtil.isDeduplication} and
         * not {@code keepLastDeduplicateRow}), although FastTop1Function still emits {@code +U}
         * when a better row arrives.
         */
        boolean updateBefore() {
            boolean insertOnlyTop1 = source == Source.INSERT && top1() && !rowNumber
                    && !(order.size() == 1 && !order.get(0).ascending());
            return !upsert && !insertOnlyTop1;
        }

        /** Flink's function for the node, as StreamExecRank chooses it. */
        String function() {
            return switch (strategy()) {
                case APPEND_FAST -> order.size() == 1 && proctime
                                && order.get(0).column().equals("pt") && order.get(0).ascending()
                        ? "AppendOnlyFirstNFunction"
                        : top1() ? "FastTop1Function" : "AppendOnlyTopNFunction";
                case RETRACT -> "RetractableTopNFunction";
                case UPDATE_FAST -> top1() ? "FastTop1Function" : "UpdatableTopNFunction";
            };
        }

        String kind() {
            return switch (function()) {
                case "AppendOnlyFirstNFunction" -> "append first-n";
                case "AppendOnlyTopNFunction" -> "append top-n";
                case "RetractableTopNFunction" -> "retract";
                case "UpdatableTopNFunction" -> "update-fast top-n";
                default -> strategy() == Strategy.APPEND_FAST ? "append top-1"
                        : "update-fast top-1";
            };
        }

        /** The columns the node's input row can hold, by name. */
        List<String> inputNames() {
            List<String> names = new ArrayList<>();
            if (source == Source.AGGREGATE) {
                names.addAll(groupBy);
                names.add("c");
                return names;
            }
            for (Column c : columns) {
                names.add(c.name());
            }
            if (proctime) {
                names.add("pt");
            }
            return names;
        }

        /** The query's output columns, {@code rn} last where selected. */
        List<String> outputNames() {
            List<String> names = new ArrayList<>(select);
            if (names.isEmpty()) {
                for (String n : inputNames()) {
                    if (!n.equals("pt")) {
                        names.add(n);
                    }
                }
            }
            if (rowNumber) {
                names.add("rn");
            }
            return names;
        }

        /** The upsert conversion's primary key: the partition keys, and {@code rn}. */
        List<String> primaryKey() {
            List<String> key = new ArrayList<>(partition);
            if (rowNumber) {
                key.add("rn");
            }
            return key;
        }

        String sql(String view) {
            StringBuilder s = new StringBuilder("SELECT ");
            List<String> out = outputNames();
            for (int i = 0; i < out.size(); i++) {
                s.append(i == 0 ? "" : ", ").append('`').append(out.get(i)).append('`');
            }
            s.append(" FROM (SELECT *, ROW_NUMBER() OVER (");
            if (!partition.isEmpty()) {
                s.append("PARTITION BY ");
                for (int i = 0; i < partition.size(); i++) {
                    s.append(i == 0 ? "" : ", ").append('`').append(partition.get(i)).append('`');
                }
                s.append(' ');
            }
            s.append("ORDER BY ");
            for (int i = 0; i < order.size(); i++) {
                s.append(i == 0 ? "" : ", ").append(order.get(i).sql());
            }
            s.append(") AS rn FROM ");
            if (source == Source.AGGREGATE) {
                s.append('(').append(aggregateSql(view)).append(')');
            } else {
                s.append(view);
            }
            return s.append(") WHERE ").append(filter).toString();
        }

        /** {@code SELECT groupBy.., f(arg) AS c FROM view GROUP BY groupBy..}. */
        String aggregateSql(String view) {
            StringBuilder s = new StringBuilder("SELECT ");
            for (String g : groupBy) {
                s.append('`').append(g).append("`, ");
            }
            s.append(aggregate).append('(')
                    .append(aggregateArg == null ? "*" : "`" + aggregateArg + "`")
                    .append(") AS `c` FROM ").append(view).append(" GROUP BY ");
            for (int i = 0; i < groupBy.size(); i++) {
                s.append(i == 0 ? "" : ", ").append('`').append(groupBy.get(i)).append('`');
            }
            return s.toString();
        }

        Column column(String name) {
            for (Column c : columns) {
                if (c.name().equals(name)) {
                    return c;
                }
            }
            throw new IllegalArgumentException(this.name + ": no column " + name);
        }

        /** The Rust type name of a node input or query output column. */
        String type(String name) {
            return switch (name) {
                case "rn" -> "BIGINT";
                case "pt" -> proctime ? "TIMESTAMP_LTZ(3)" : column(name).type();
                case "c" -> source == Source.AGGREGATE
                        ? (aggregate.equals("COUNT") ? "BIGINT" : column(aggregateArg).type())
                        : column(name).type();
                default -> column(name).type();
            };
        }

        /** The Flink type of a query output column (for the upsert conversion's schema). */
        DataType dataType(String name) {
            if (name.equals("rn") || (name.equals("c") && source == Source.AGGREGATE
                    && aggregate.equals("COUNT"))) {
                return DataTypes.BIGINT().notNull();
            }
            if (name.equals("c") && source == Source.AGGREGATE) {
                return column(aggregateArg).dataType();
            }
            return column(name).dataType();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: RankVectors <output path> [scenario..]");
            System.exit(2);
        }
        List<String> only = Arrays.asList(args).subList(1, args.length);
        // The planner describes every node, but the jobs must run stock: with no loadable
        // native library every node is refused.
        System.setProperty(NativeOperator.LIBRARY_PATH_PROPERTY,
                "/nonexistent/streamfusion-golden-vectors-run-stock/libstreamfusion_jni.so");
        List<Scenario> scenarios = new ArrayList<>();
        for (Scenario s : new RankVectors().scenarios()) {
            for (Scenario seen : scenarios) {
                if (seen.name.equals(s.name)) {
                    throw new IllegalStateException("two scenarios named " + s.name);
                }
            }
            if (only.isEmpty() || only.contains(s.name)) {
                scenarios.add(s);
            }
        }
        // One job per backend, every scenario of the backend a pipeline of its own.
        List<Planned> planned = new ArrayList<>();
        for (String backend : DedupVectors.BACKENDS) {
            List<Scenario> group = new ArrayList<>();
            for (Scenario s : scenarios) {
                if (s.backend.equals(backend)) {
                    group.add(s);
                }
            }
            if (!group.isEmpty()) {
                planned.addAll(runJob(backend, group));
            }
        }
        planned.sort(Comparator.comparingInt(p -> scenarios.indexOf(p.scenario)));
        StringBuilder out = new StringBuilder(1 << 20);
        out.append("{\"flink\":\"2.3.0\",\"seed\":\"0x").append(Long.toHexString(SEED))
                .append("\",\"generator\":\"").append(GENERATOR).append("\",\"format\":");
        Json.string(out, "per scenario: a header line (scenario, kind, function, strategy,"
                + " rank_range, row_number, update_before, backend, state_ttl_ms, node and"
                + " config: the planner's texts for flink::plan_node, input and output columns,"
                + " output_columns, output_keys, sql, plan, events_in, rows_out), then events_in"
                + " {\"in\":kind,\"row\":[..]} or {\"watermark\":ms} lines and rows_out"
                + " {\"out\":kind,\"row\":[..]} lines; BIGINT, DOUBLE (Double.toString), DECIMAL"
                + " (plain) and TIMESTAMP (epoch ms) values are strings; a proctime column is"
                + " NULL");
        out.append("}\n");
        int total = 0;
        for (Planned p : planned) {
            write(p, out);
            total += p.output.size();
        }
        Path path = Path.of(args[0]);
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        Files.write(path, out.toString().getBytes(StandardCharsets.UTF_8));
        System.err.printf("wrote %d scenarios (%d output rows) to %s%n", planned.size(), total,
                path);
    }

    /** A scenario planned into a job: its node, operators, input events and output. */
    static final class Planned {
        final Scenario scenario;
        final String sql;
        Node node;
        String plan;
        List<String> outNames;
        String[] outTypes;
        /** The rows the node receives (columns {@link Scenario#inputNames}), with kinds. */
        List<Row> input;
        /** The output lines, {@code {"out":kind,"row":[..]}}, in emission order. */
        final List<String> output = new ArrayList<>();
        /** AGGREGATE: the output lines of the GROUP BY alone (with -U). */
        final List<String> aggregateCheck = new ArrayList<>();

        Planned(Scenario scenario, String sql) {
            this.scenario = scenario;
            this.sql = sql;
        }
    }

    /**
     * Runs the scenarios of one backend in one job (each its own source, query and
     * conversion, set up under its own options: Flink reads them when a query is translated)
     * and returns them planned, with their outputs.
     */
    static List<Planned> runJob(String backend, List<Scenario> group) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        conf.setString("state.backend.type", backend);
        // Many pipelines share the job: enough network buffers for all their exchanges.
        conf.setString("taskmanager.memory.network.min", "256mb");
        conf.setString("taskmanager.memory.network.max", "256mb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        List<Planned> planned = new ArrayList<>();
        DataStream<String> all = null;
        int floor = 0;
        for (Scenario s : group) {
            String view = "src_" + s.name;
            Planned p = new Planned(s, s.sql(view));
            DataStream<Row> changes = translate(env, tEnv, s, view, p);
            // toChangelogStream translated the query: its decisions and operators are known.
            p.node = node(s);
            p.input = input(s);
            p.plan = DedupVectors.plan(env, floor);
            if (!p.plan.contains("Rank(") || p.plan.contains("Deduplicate(")
                    || p.plan.contains("Materializ")
                    || p.plan.contains("GroupAggregate(") != (s.source == Source.AGGREGATE)) {
                throw new IllegalStateException(s.name + ": unexpected plan " + p.plan);
            }
            DataStream<String> tagged =
                    changes.map(new DedupVectors.Encode(planned.size(), p.outTypes))
                            .setParallelism(1);
            floor = tagged.getId();
            all = all == null ? tagged : all.union(tagged);
            if (s.source == Source.AGGREGATE) {
                // The model of the GROUP BY below the node, checked against Flink's: the same
                // GROUP BY alone, converted with -U (its key may be NULL, so no upsert key).
                DataStream<String> check = tEnv.toChangelogStream(
                                tEnv.sqlQuery(s.aggregateSql(view)))
                        .map(new DedupVectors.Encode(-1 - planned.size(), aggregateTypes(s)))
                        .setParallelism(1);
                floor = check.getId();
                all = all.union(check);
            }
            planned.add(p);
        }
        try (CloseableIterator<String> it = all.executeAndCollect("rank-vectors-" + backend)) {
            while (it.hasNext()) {
                String line = it.next();
                int tab = line.indexOf('\t');
                int index = Integer.parseInt(line.substring(0, tab));
                Planned p = planned.get(index < 0 ? -1 - index : index);
                (index < 0 ? p.aggregateCheck : p.output).add(line.substring(tab + 1));
            }
        }
        for (Planned p : planned) {
            if (p.scenario.source != Source.AGGREGATE) {
                continue;
            }
            DedupVectors.Encode encode = new DedupVectors.Encode(0, aggregateTypes(p.scenario));
            List<String> model = new ArrayList<>();
            for (Row r : aggregated(p.scenario, true)) {
                model.add(encode.map(r).substring(2));
            }
            if (!model.equals(p.aggregateCheck)) {
                throw new IllegalStateException(p.scenario.name + ": the GROUP BY's changelog "
                        + p.aggregateCheck + " is not the model's " + model);
            }
        }
        for (Planned p : planned) {
            System.err.printf("%s (%s, %s): %d rows in, %d rows out; %s%n", p.scenario.name,
                    p.scenario.kind(), backend, p.input.size(), p.output.size(), p.plan);
        }
        return planned;
    }

    /** Puts the scenario's query into {@code env}: its changelog stream. */
    static DataStream<Row> translate(StreamExecutionEnvironment env, StreamTableEnvironment tEnv,
            Scenario s, String view, Planned p) {
        StreamFusionPlanner.clearDecisions();
        ExecNodeContext.resetIdCounter();
        TableConfig config = tEnv.getConfig();
        config.set(StreamFusionPlanner.ENABLED, true);
        config.set("table.local-time-zone", "UTC");
        config.set("table.exec.state.ttl", s.ttlMs + " ms");

        DataTypes.Field[] fields = new DataTypes.Field[s.columns.size()];
        Schema.Builder schema = Schema.newBuilder();
        for (int i = 0; i < fields.length; i++) {
            Column c = s.columns.get(i);
            fields[i] = DataTypes.FIELD(c.name(), c.dataType());
            schema.column(c.name(), c.dataType());
        }
        @SuppressWarnings("unchecked")
        ExternalTypeInfo<Row> typeInfo =
                (ExternalTypeInfo<Row>) (ExternalTypeInfo<?>) ExternalTypeInfo.of(
                        DataTypes.ROW(fields).bridgedTo(Row.class));
        DataStream<Row> stream = env.fromData(s.rows, typeInfo).setParallelism(1);
        if (s.rowtime) {
            long[] after = new long[s.watermarks.size()];
            for (int i = 0; i < after.length; i++) {
                after[i] = s.watermarks.get(i);
            }
            int ts = s.columns.indexOf(s.column("ts"));
            stream = stream
                    .assignTimestampsAndWatermarks(
                            WatermarkStrategy.forGenerator(new DedupVectors.Scheduled(after))
                                    .withTimestampAssigner(new DedupVectors.RowTime(ts)))
                    .setParallelism(1);
            schema.watermark("ts", "SOURCE_WATERMARK()");
        }
        if (s.proctime) {
            schema.columnByExpression("pt", "PROCTIME()");
        }
        Table table = s.source == Source.CHANGELOG
                ? tEnv.fromChangelogStream(stream, schema.build())
                : tEnv.fromDataStream(stream, schema.build());
        tEnv.createTemporaryView(view, table);
        Table result = tEnv.sqlQuery(p.sql);
        p.outNames = result.getResolvedSchema().getColumnNames();
        if (!p.outNames.equals(s.outputNames())) {
            throw new IllegalStateException(s.name + ": output columns " + p.outNames);
        }
        p.outTypes = new String[p.outNames.size()];
        for (int i = 0; i < p.outTypes.length; i++) {
            p.outTypes[i] = s.type(p.outNames.get(i));
        }
        if (!s.upsert) {
            return tEnv.toChangelogStream(result);
        }
        Schema.Builder keyed = Schema.newBuilder();
        for (String name : p.outNames) {
            keyed.column(name, s.dataType(name));
        }
        return tEnv.toChangelogStream(
                result, keyed.primaryKey(s.primaryKey()).build(), ChangelogMode.upsert());
    }

    /** The rank node as the planner described it. */
    static final class Node {
        String description;
        String config;
        /** The names of the node's input fields (its output has them, then the row number). */
        final List<String> fields = new ArrayList<>();
        int[] partition;
        /** Whether the GROUP BY below the node generates {@code -U} (AGGREGATE only). */
        boolean aggregateUpdateBefore;
    }

    /**
     * The one rank node of the scenario's decisions, checked against what the scenario asks
     * for: strategy, range, flags, keys, sort, TTL and input columns.
     */
    static Node node(Scenario s) throws IOException {
        Node found = null;
        JsonNode aggregate = null;
        for (StreamFusionPlanner.Decision d : StreamFusionPlanner.decisions()) {
            if (d.isNative()) {
                throw new IllegalStateException(s.name + ": " + d.node + " was planned natively;"
                        + " golden vectors must come from stock Flink");
            }
            if (d.description != null
                    && d.description.contains("\"" + AGGREGATE_NODE_TYPE + "\"")) {
                if (aggregate != null) {
                    throw new IllegalStateException(s.name + ": two aggregate nodes");
                }
                aggregate = JSON.readTree(d.description).get("node");
            }
            if (d.description == null || !d.description.contains("\"" + NODE_TYPE + "\"")) {
                continue;
            }
            if (found != null) {
                throw new IllegalStateException(s.name + ": two rank nodes");
            }
            found = new Node();
            found.description = d.description;
            found.config = d.config;
        }
        if (found == null) {
            throw new IllegalStateException(s.name + ": no rank node among "
                    + StreamFusionPlanner.decisions());
        }
        JsonNode description = JSON.readTree(found.description);
        JsonNode node = description.get("node");
        List<String> problems = new ArrayList<>();
        DedupVectors.expect(problems, node, "type", NODE_TYPE);
        DedupVectors.expect(problems, node, "rankType", "ROW_NUMBER");
        DedupVectors.expect(problems, node.path("rankStrategy"), "type", s.strategy().json);
        DedupVectors.expect(problems, node.path("rankRange"), "type", "Constant");
        DedupVectors.expect(problems, node.path("rankRange"), "start", Long.toString(s.start));
        DedupVectors.expect(problems, node.path("rankRange"), "end", Long.toString(s.end));
        DedupVectors.expect(problems, node, "outputRowNumber", Boolean.toString(s.rowNumber));
        DedupVectors.expect(problems, node, "generateUpdateBefore",
                Boolean.toString(s.updateBefore()));
        JsonNode state = node.path("state");
        if (state.size() != 1
                || TimeUtils.parseDuration(state.get(0).path("ttl").asText()).toMillis()
                        != s.ttlMs) {
            problems.add("state " + state);
        }
        JsonNode inputType = description.get("inputs").get(0);
        found.fields.addAll(fieldNames(inputType));
        for (int i = 0; i < found.fields.size(); i++) {
            String name = found.fields.get(i);
            // A row type with a time attribute is written as JSON, others as the type's text.
            String kind = inputType.path("fields").path(i).path("fieldType").path("kind")
                    .asText("");
            String expected = name.equals("pt") && s.proctime ? "PROCTIME"
                    : name.equals("ts") && s.rowtime ? "ROWTIME"
                    : "";
            if (!kind.equals(expected)) {
                problems.add("time attribute of " + name + ": " + inputType);
            }
        }
        // The planner may narrow the input below the node to the columns it needs.
        if (!s.inputNames().containsAll(found.fields)) {
            problems.add("input fields " + found.fields);
        }
        List<String> outputFields = fieldNames(node.get("outputType"));
        if (outputFields.size() != found.fields.size() + (s.rowNumber ? 1 : 0)
                || !outputFields.subList(0, found.fields.size()).equals(found.fields)) {
            problems.add("output fields " + outputFields);
        }
        JsonNode keys = node.path("partition").path("fields");
        found.partition = new int[keys.size()];
        List<String> keyNames = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            found.partition[i] = keys.get(i).asInt();
            keyNames.add(found.fields.get(found.partition[i]));
        }
        // The planner keys by the columns in their order, whatever PARTITION BY lists.
        List<String> asked = new ArrayList<>(s.partition);
        asked.sort(Comparator.comparingInt(found.fields::indexOf));
        if (!keyNames.equals(asked)) {
            problems.add("partition keys " + keyNames);
        }
        JsonNode sort = node.path("orderBy").path("fields");
        if (sort.size() != s.order.size()) {
            problems.add("orderBy " + sort);
        } else {
            for (int i = 0; i < sort.size(); i++) {
                Order o = s.order.get(i);
                JsonNode f = sort.get(i);
                int index = f.path("index").asInt(-1);
                if (index < 0 || index >= found.fields.size()
                        || !found.fields.get(index).equals(o.column())
                        || f.path("isAscending").asBoolean() != o.ascending()
                        || f.path("nullIsLast").asBoolean() != o.nullIsLast()) {
                    problems.add("orderBy " + f + ", not " + o);
                }
            }
        }
        if (s.strategy() == Strategy.UPDATE_FAST) {
            // Flink's UpdateFastStrategy names the input's unique key: the grouping columns.
            List<String> pk = new ArrayList<>();
            for (JsonNode k : node.path("rankStrategy").path("primaryKeys")) {
                pk.add(found.fields.get(k.asInt()));
            }
            List<String> groups = new ArrayList<>(s.groupBy);
            groups.sort(Comparator.comparingInt(found.fields::indexOf));
            if (!pk.equals(groups)) {
                problems.add("update-fast primary keys " + pk);
            }
        }
        if (s.source == Source.AGGREGATE) {
            if (aggregate == null) {
                problems.add("no aggregate node");
            } else {
                found.aggregateUpdateBefore = aggregate.path("generateUpdateBefore").asBoolean();
                // UpdateFastStrategy asks its input for +U only.
                if (found.aggregateUpdateBefore || aggregate.path("needRetraction").asBoolean()) {
                    problems.add("aggregate " + aggregate);
                }
            }
        } else if (aggregate != null) {
            problems.add("an aggregate node");
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(s.name + ": the rank node is not what the scenario"
                    + " asks for: " + problems + " in " + found.description);
        }
        return found;
    }

    /**
     * The field names of a serialized row type: Flink's JSON ({@code {"type":"ROW","fields":
     * [{"name":..}..]}}) or, for a type without time attributes, its text ({@code
     * ROW<`a` INT, `b` ROW<`c` ..>>}; a name's backquote is doubled).
     */
    static List<String> fieldNames(JsonNode rowType) {
        List<String> names = new ArrayList<>();
        if (!rowType.isTextual()) {
            for (JsonNode f : rowType.get("fields")) {
                names.add(f.get("name").asText());
            }
            return names;
        }
        String text = rowType.asText();
        if (!text.startsWith("ROW<")) {
            throw new IllegalStateException("not a row type: " + text);
        }
        int depth = 0;
        boolean expectName = true;
        for (int i = 4; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch == '`') {
                StringBuilder name = new StringBuilder();
                for (i++; ; i++) {
                    if (text.charAt(i) == '`') {
                        if (i + 1 < text.length() && text.charAt(i + 1) == '`') {
                            name.append('`');
                            i++;
                            continue;
                        }
                        break;
                    }
                    name.append(text.charAt(i));
                }
                if (depth == 0 && expectName) {
                    names.add(name.toString());
                    expectName = false;
                }
            } else if (ch == '<' || ch == '(') {
                depth++;
            } else if (ch == '>' || ch == ')') {
                depth--;
            } else if (ch == ',' && depth == 0) {
                expectName = true;
            }
        }
        return names;
    }

    /** The rows the scenario's node receives, over {@link Scenario#inputNames}. */
    static List<Row> input(Scenario s) {
        if (s.source != Source.AGGREGATE) {
            List<Row> rows = new ArrayList<>();
            for (Row r : s.rows) {
                Object[] values = new Object[s.inputNames().size()];
                for (int i = 0; i < r.getArity(); i++) {
                    values[i] = r.getField(i);
                }
                rows.add(Row.ofKind(r.getKind(), values));
            }
            return rows;
        }
        return aggregated(s, false);
    }

    /**
     * The changelog of {@code SELECT groupBy.., f(arg) AS c .. GROUP BY groupBy..} over the
     * scenario's insert-only rows, as Flink 2.3.0's GroupAggFunction emits it without state
     * TTL: {@code +I} for a group's first row; afterwards nothing when the value did not
     * change, else ({@code -U} of the previous value when {@code updateBefore}) {@code +U}.
     * COUNT(*) counts rows, MAX skips NULLs.
     */
    static List<Row> aggregated(Scenario s, boolean updateBefore) {
        if (s.ttlMs > 0) {
            throw new IllegalStateException(s.name + ": TTL changes when GROUP BY emits");
        }
        Map<List<Object>, Object> values = new HashMap<>();
        List<Row> out = new ArrayList<>();
        for (Row r : s.rows) {
            List<Object> group = new ArrayList<>();
            for (String g : s.groupBy) {
                group.add(r.getField(s.columns.indexOf(s.column(g))));
            }
            boolean first = !values.containsKey(group);
            Object previous = values.get(group);
            Object next;
            if (s.aggregate.equals("COUNT")) {
                next = first ? 1L : (Long) previous + 1;
            } else if (s.aggregate.equals("MAX")) {
                @SuppressWarnings("unchecked")
                Comparable<Object> v = (Comparable<Object>)
                        r.getField(s.columns.indexOf(s.column(s.aggregateArg)));
                next = v == null ? previous
                        : previous == null || v.compareTo(previous) > 0 ? v : previous;
            } else {
                throw new IllegalStateException(s.name + ": no model of " + s.aggregate);
            }
            values.put(group, next);
            if (!first && Objects.equals(previous, next)) {
                continue;
            }
            if (!first && updateBefore) {
                out.add(groupRow(RowKind.UPDATE_BEFORE, group, previous));
            }
            out.add(groupRow(first ? RowKind.INSERT : RowKind.UPDATE_AFTER, group, next));
        }
        return out;
    }

    /** The types of the GROUP BY's output columns (the grouping columns, then c). */
    static String[] aggregateTypes(Scenario s) {
        String[] types = new String[s.groupBy.size() + 1];
        for (int i = 0; i < s.groupBy.size(); i++) {
            types[i] = s.type(s.groupBy.get(i));
        }
        types[s.groupBy.size()] = s.type("c");
        return types;
    }

    static Row groupRow(RowKind kind, List<Object> group, Object value) {
        Object[] values = Arrays.copyOf(group.toArray(), group.size() + 1);
        values[group.size()] = value;
        return Row.ofKind(kind, values);
    }

    /** Appends a planned scenario's header, events and output. */
    static void write(Planned p, StringBuilder out) {
        Scenario s = p.scenario;
        Node node = p.node;
        List<String> names = s.inputNames();
        String[] inputTypes = new String[node.fields.size()];
        int[] at = new int[node.fields.size()];
        out.append("{\"scenario\":");
        Json.string(out, s.name);
        out.append(",\"description\":");
        Json.string(out, s.description);
        out.append(",\"kind\":");
        Json.string(out, s.kind());
        out.append(",\"function\":");
        Json.string(out, s.function());
        out.append(",\"strategy\":");
        Json.string(out, s.strategy().json);
        out.append(",\"rank_range\":[").append(s.start).append(',').append(s.end)
                .append("],\"row_number\":").append(s.rowNumber)
                .append(",\"update_before\":").append(s.updateBefore())
                .append(",\"backend\":");
        Json.string(out, s.backend);
        out.append(",\"state_ttl_ms\":").append(s.ttlMs > 0 ? Long.toString(s.ttlMs) : "null")
                .append(",\"node\":");
        Json.string(out, node.description);
        out.append(",\"config\":");
        Json.string(out, node.config);
        out.append(",\"input\":[");
        for (int i = 0; i < node.fields.size(); i++) {
            String name = node.fields.get(i);
            at[i] = names.indexOf(name);
            inputTypes[i] = s.type(name);
            out.append(i == 0 ? "" : ",").append("{\"name\":");
            Json.string(out, name);
            out.append(",\"type\":");
            Json.string(out, inputTypes[i]);
            boolean proctime = name.equals("pt") && s.proctime;
            if (proctime || (name.equals("ts") && s.rowtime)) {
                out.append(",\"time\":\"").append(proctime ? "proctime" : "rowtime").append('"');
            }
            out.append('}');
        }
        out.append("],\"output\":[");
        int[] outputColumns = new int[p.outNames.size()];
        for (int i = 0; i < p.outNames.size(); i++) {
            String name = p.outNames.get(i);
            outputColumns[i] = name.equals("rn") ? node.fields.size() : node.fields.indexOf(name);
            if (outputColumns[i] < 0) {
                throw new IllegalStateException(s.name + ": output " + name + " not in the node");
            }
            GroupAggVectors.column(out, i, name, p.outTypes[i]);
        }
        out.append("],\"output_columns\":").append(DedupVectors.list(outputColumns))
                .append(",\"output_keys\":[");
        for (int i = 0; i < node.partition.length; i++) {
            int key = p.outNames.indexOf(node.fields.get(node.partition[i]));
            if (key < 0) {
                throw new IllegalStateException(s.name + ": partition key not in the output");
            }
            out.append(i == 0 ? "" : ",").append(key);
        }
        int events = p.input.size() + 1;
        for (long w : s.watermarks) {
            events += w == NO_WATERMARK ? 0 : 1;
        }
        out.append("],\"sql\":");
        Json.string(out, p.sql);
        out.append(",\"plan\":");
        Json.string(out, p.plan);
        out.append(",\"events_in\":").append(events).append(",\"rows_out\":")
                .append(p.output.size()).append("}\n");
        for (int n = 0; n < p.input.size(); n++) {
            Row r = p.input.get(n);
            out.append("{\"in\":\"").append(r.getKind().shortString()).append("\",\"row\":[");
            for (int i = 0; i < at.length; i++) {
                out.append(i == 0 ? "" : ",");
                DedupVectors.value(out, inputTypes[i], r.getField(at[i]));
            }
            out.append("]}\n");
            // Watermarks are scheduled after source rows; only INSERT sources have them.
            if (n < s.watermarks.size() && s.watermarks.get(n) != NO_WATERMARK) {
                out.append("{\"watermark\":").append(s.watermarks.get(n)).append("}\n");
            }
        }
        out.append("{\"watermark\":").append(END_OF_INPUT).append("}\n");
        for (String line : p.output) {
            out.append(line).append('\n');
        }
    }

    // ---------------------------------------------------------------- values

    static final Object[] KEYS = GroupAggVectors.KEYS;
    static final Object[] INTS = {
        null, 0, 1, -1, 7, 42, -42, 1_000, Integer.MIN_VALUE, Integer.MAX_VALUE
    };
    static final Object[] BIGINTS = DedupVectors.BIGINTS;
    /** No NaN: Flink's sort comparator does not order it (it compares equal to everything). */
    static final Object[] DOUBLES = {
        null, 0.0, -0.0, 1.5, -2.25, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        1.0E300, -1.0E-300, Double.MIN_VALUE
    };
    static final Object[] DECIMALS = {
        null, new BigDecimal("0.00"), new BigDecimal("-0.01"), new BigDecimal("1.10"),
        new BigDecimal("1.09"), new BigDecimal("99999999.99"), new BigDecimal("-99999999.99")
    };
    static final Object[] WIDE_DECIMALS = DedupVectors.WIDE_DECIMALS;
    static final Object[] STRINGS = {
        null, "", "a", "A", "ab", "b", "z", "é", "e\u0301", "größer 🦀", "🦀🦀", "\u2028",
        "nul\0byte", "more than seven bytes"
    };
    static final Object[] TIMESTAMPS = {
        null, LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000),
        LocalDateTime.of(1970, 1, 1, 0, 0), BASE, BASE.plusNanos(1_000_000), BASE.minusDays(400),
        LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_000_000),
        LocalDateTime.of(1000, 1, 1, 0, 0, 0, 1_000_000)
    };

    static Object pick(SplittableRandom rnd, Object[] pool) {
        return DedupVectors.pick(rnd, pool);
    }

    static Object pickOrNull(SplittableRandom rnd, Object[] pool, int nullEvery) {
        return DedupVectors.pickOrNull(rnd, pool, nullEvery);
    }

    /** {@code n} keys: the pool's first, then {@code key-i}. */
    static Object[] keys(Object[] pool, int n) {
        Object[] keys = new Object[n];
        for (int i = 0; i < n; i++) {
            keys[i] = i < pool.length ? pool[i] : "key-" + i;
        }
        return keys;
    }

    // ---------------------------------------------------------------- scenarios

    static String suffix(String backend) {
        return backend.equals("hashmap") ? "" : "_rocksdb";
    }

    List<Scenario> scenarios() {
        List<Scenario> list = new ArrayList<>();
        for (String backend : DedupVectors.BACKENDS) {
            String x = suffix(backend);
            // Append top-1 (FastTop1Function).
            list.add(top1Traced("top1_traced" + x, backend, false));
            list.add(top1Traced("top1_traced_upsert" + x, backend, true));
            // Append top-N (AppendOnlyTopNFunction): without and with the row number, with
            // an offset, random.
            list.add(topNTraced("topn_traced" + x, backend, false, false));
            list.add(topNTraced("topn_traced_rn" + x, backend, true, false));
            list.add(topNTraced("topn_traced_rn_upsert" + x, backend, true, true));
            list.add(offsetTraced("offset_traced" + x, backend, false));
            list.add(offsetTraced("offset_traced_rn" + x, backend, true));
            list.add(topNRandom("topn5_random" + x, backend, false));
            list.add(topNRandom("topn5_random_rn" + x, backend, true));
            // First-N (AppendOnlyFirstNFunction).
            list.add(firstN("firstn" + x, backend, false, 1, false));
            list.add(firstN("firstn_rn" + x, backend, true, 1, false));
        }
        list.add(top1NullsLast());
        list.add(top1Strings());
        list.add(top1Doubles());
        list.add(top1MultiField());
        list.add(top1Global());
        list.add(top1Timestamps());
        list.add(top1Ttl());
        list.add(offsetRandom("offset_random", "hashmap", false, false));
        list.add(offsetRandom("offset_random_rn_upsert_rocksdb", "rocksdb", true, true));
        list.add(ties("ties", "hashmap", false));
        list.add(ties("ties_rn_rocksdb", "rocksdb", true));
        list.add(nullOrder("nulls_first_desc", false, false));
        list.add(nullOrder("nulls_last_asc", true, true));
        list.add(multiField());
        list.add(bigints());
        list.add(doubles());
        list.add(doublesRowNumber());
        list.add(decimals());
        list.add(wideDecimals());
        list.add(strings());
        list.add(timestamps());
        list.add(nullPartition());
        list.add(multiPartition());
        list.add(global("global_topn", "hashmap", false, false));
        list.add(global("global_topn_rn_rocksdb", "rocksdb", true, false));
        list.add(global("global_topn_rn_upsert", "hashmap", true, true));
        list.add(lessThan());
        list.add(topNTtl("topn_ttl", "hashmap"));
        list.add(topNTtl("topn_ttl_rocksdb", "rocksdb"));
        list.add(rowtime());
        list.add(firstN("firstn_offset_rn", "hashmap", true, 2, false));
        list.add(firstN("firstn_offset_rocksdb", "rocksdb", false, 2, false));
        list.add(firstN("firstn_rn_upsert", "hashmap", true, 1, true));
        list.add(firstNGlobal());
        // Updating inputs: the native side refuses them for now.
        list.add(retract("retract_topn_rn", "hashmap", 3, true, false));
        list.add(retract("retract_topn_rocksdb", "rocksdb", 3, false, false));
        list.add(retract("retract_top1", "hashmap", 1, false, false));
        list.add(retract("retract_topn_rn_upsert", "rocksdb", 2, true, true));
        list.add(updateFast("update_fast_top1", "hashmap", "COUNT", 1, false));
        list.add(updateFast("update_fast_topn_rn", "hashmap", "COUNT", 3, true));
        list.add(updateFast("update_fast_topn_rocksdb", "rocksdb", "COUNT", 3, false));
        list.add(updateFast("update_fast_max_rn", "hashmap", "MAX", 2, true));
        return list;
    }

    /** Columns (k STRING, v INT, id INT): a partition key, a sort key, a row id. */
    static Scenario kvi(String name, String description, String backend, boolean upsert) {
        Scenario s = new Scenario(name, description)
                .column("k", "STRING", upsert ? DataTypes.STRING().notNull() : DataTypes.STRING())
                .column("v", "INT", DataTypes.INT())
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .backend(backend);
        return upsert ? s.upsert() : s;
    }

    // ------------------------------------------------------------- append top-1

    Scenario top1Traced(String name, String backend, boolean upsert) {
        Scenario s = kvi(name,
                "append top-1 (rn = 1) by v DESC, traced: a strictly better row replaces the"
                        + " kept one, a tie or a worse row is ignored, NULL sorts last"
                        + (upsert ? ", no -U" : ""),
                backend, upsert).desc("v").first();
        Object nullKey = upsert ? "n" : null;
        int id = 0;
        s.row("a", 10, id++);
        s.row("a", 10, id++);    // tie: ignored
        s.row("a", 5, id++);     // worse
        s.row("a", 11, id++);    // better: replaces
        s.row("b", null, id++);  // NULL first row of its key
        s.row("b", -1, id++);    // better than NULL (NULLS LAST)
        s.row("b", null, id++);
        s.row(nullKey, 0, id++);
        s.row(nullKey, 0, id++);
        s.row("a", 11, id++);    // tie
        s.row("a", 12, id++);
        s.row("", Integer.MIN_VALUE, id++);
        s.row("", Integer.MAX_VALUE, id++);
        s.row("größer 🦀", 3, id++);
        s.row("größer 🦀", 4, id++);
        Object[] keys = upsert ? new Object[] {"a", "b", "c", "n"}
                : new Object[] {"a", "b", "c", null};
        for (int n = 0; n < 120; n++) {
            s.row(pick(s.rnd, keys), pickOrNull(s.rnd, new Object[] {0, 1, 2, 3, 20}, 6), id++);
        }
        return s;
    }

    Scenario top1NullsLast() {
        Scenario s = kvi("top1_nulls_last",
                "append top-1 written rn <= 1, by v ASC NULLS LAST over NULL-heavy INT sort"
                        + " keys and a NULL partition key; no -U although the conversion takes"
                        + " them (Flink 2.3.0 declares an ascending top-1 insert-only)",
                "hashmap", false).order("v", true, true).top(1);
        for (int n = 0; n < 150; n++) {
            s.row(pick(s.rnd, new Object[] {null, "a", "b", "c"}), pickOrNull(s.rnd, INTS, 3),
                    n);
        }
        return s;
    }

    Scenario top1Strings() {
        Scenario s = new Scenario("top1_strings",
                "append top-1 by a STRING ASC (NULLs first, empty, Unicode compared by UTF-8"
                        + " bytes), partitioned by INT with NULL, on RocksDB; no -U (declared"
                        + " insert-only)")
                .column("k", "INT", DataTypes.INT())
                .column("s", "STRING", DataTypes.STRING())
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .asc("s")
                .first()
                .backend("rocksdb");
        for (int n = 0; n < 150; n++) {
            s.row(pick(s.rnd, new Object[] {null, 1, 2, 3}), pick(s.rnd, STRINGS), n);
        }
        return s;
    }

    Scenario top1Doubles() {
        Scenario s = new Scenario("top1_doubles",
                "append top-1 by a DOUBLE DESC NULLS FIRST: -0.0 and 0.0 tie in Flink's"
                        + " comparator (the kept row's value stays), infinities, no NaN")
                .column("k", "STRING", DataTypes.STRING())
                .column("d", "DOUBLE", DataTypes.DOUBLE())
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .order("d", false, false)
                .first();
        s.row("z", -0.0, 0);
        s.row("z", 0.0, 1);      // tie: -0.0 stays
        s.row("y", 0.0, 2);
        s.row("y", -0.0, 3);     // tie
        s.row("y", Double.MIN_VALUE, 4);
        s.row("x", 1.0, 5);
        s.row("x", null, 6);     // NULLS FIRST: better
        s.row("x", Double.POSITIVE_INFINITY, 7);
        for (int n = 8; n < 130; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", "c", null}), pick(s.rnd, DOUBLES), n);
        }
        return s;
    }

    Scenario top1MultiField() {
        Scenario s = new Scenario("top1_multi_field",
                "append top-1 by (a ASC, b DESC NULLS FIRST) partitioned by (p, q) with NULLs,"
                        + " on RocksDB; no -U (Flink 2.3.0 declares a top-1 on two sort keys"
                        + " insert-only)")
                .column("p", "INT", DataTypes.INT())
                .column("q", "STRING", DataTypes.STRING())
                .column("a", "INT", DataTypes.INT())
                .column("b", "BIGINT", DataTypes.BIGINT())
                .column("id", "INT", DataTypes.INT())
                .partition("q", "p")
                .asc("a")
                .order("b", false, false)
                .first()
                .backend("rocksdb");
        for (int n = 0; n < 160; n++) {
            s.row(pick(s.rnd, new Object[] {null, 1, 2}), pick(s.rnd, new Object[] {null, "", "x"}),
                    pickOrNull(s.rnd, new Object[] {5, 4, 3}, 5),
                    pickOrNull(s.rnd, new Object[] {0L, 1L, 2L}, 5), n);
        }
        return s;
    }

    Scenario top1Global() {
        Scenario s = new Scenario("top1_global",
                "append top-1 without PARTITION BY (one key for all rows) by a BIGINT DESC")
                .column("l", "BIGINT", DataTypes.BIGINT())
                .column("s", "STRING", DataTypes.STRING())
                .desc("l")
                .first();
        for (int n = 0; n < 100; n++) {
            s.row(n % 7 == 6 ? (long) n * 1_000 : pickOrNull(s.rnd, BIGINTS, 4),
                    pick(s.rnd, STRINGS));
        }
        return s;
    }

    Scenario top1Timestamps() {
        Scenario s = new Scenario("top1_timestamps",
                "append top-1 by a TIMESTAMP(3) ASC (not a time attribute): before 1970, at"
                        + " the epoch, one millisecond apart, year 1000 and 9999; no -U (declared"
                        + " insert-only)")
                .column("k", "STRING", DataTypes.STRING())
                .column("t", "TIMESTAMP(3)", DataTypes.TIMESTAMP(3))
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .asc("t")
                .first();
        for (int n = 0; n < 100; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", null}), pick(s.rnd, TIMESTAMPS), n);
        }
        return s;
    }

    Scenario top1Ttl() {
        Scenario s = kvi("top1_ttl",
                "append top-1 by v DESC with a state TTL of 1 h (nothing expires within the run)",
                "rocksdb", false).desc("v").first().ttl(HOUR_MS);
        for (int n = 0; n < 90; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", null}), pickOrNull(s.rnd, INTS, 5), n);
        }
        return s;
    }

    // ------------------------------------------------------------- append top-N

    /** Rows of (k, v, id) exercising a top-3 by v DESC: fill, evict, ties, rejects. */
    static void topNTrace(Scenario s, boolean upsert) {
        Object nullKey = upsert ? "n" : null;
        int id = 0;
        s.row("a", 10, id++);
        s.row("a", 20, id++);
        s.row("a", 30, id++);    // full: 30, 20, 10
        s.row("a", 5, id++);     // below the last: rejected
        s.row("a", 10, id++);    // ties the last on a full buffer: rejected
        s.row("a", 25, id++);    // enters at rank 2, 10 leaves
        s.row("a", 30, id++);    // ties the first: ranks after it, 20 leaves
        s.row("a", 40, id++);    // rank 1, everything moves, 25 leaves
        s.row("a", 30, id++);    // ties ranks 2 and 3: after them, i.e. beyond rank 3
        s.row("b", 1, id++);     // a partition with fewer rows than N
        s.row("b", 1, id++);     // tie, not full: enters after the first
        s.row("b", null, id++);  // NULL sorts last (DESC): rank 3
        s.row("b", null, id++);  // ties the last on a full buffer
        s.row("b", 2, id++);     // rank 1, the NULL leaves
        s.row(nullKey, 0, id++);
        s.row(nullKey, Integer.MAX_VALUE, id++);
        s.row(nullKey, Integer.MIN_VALUE, id++);
        s.row(nullKey, Integer.MIN_VALUE, id++);
        s.row(nullKey, 0, id++);
        Object[] keys = upsert ? new Object[] {"a", "b", "c", "n"}
                : new Object[] {"a", "b", "c", null};
        for (int n = 0; n < 150; n++) {
            s.row(pick(s.rnd, keys), pickOrNull(s.rnd, new Object[] {0, 1, 2, 3, 4, 50}, 7), id++);
        }
    }

    Scenario topNTraced(String name, String backend, boolean rowNumber, boolean upsert) {
        Scenario s = kvi(name,
                "append top-3 by v DESC, traced: fill, evict, a tie on a full buffer rejected,"
                        + " ties ranked in arrival order, NULL last, fewer rows than N"
                        + (rowNumber ? ", with rn (every moved rank updated)"
                                : ", without rn (+I of the entering row, -D of the leaving one)")
                        + (upsert ? ", no -U" : ""),
                backend, upsert).desc("v").top(3);
        if (rowNumber) {
            s.rowNumber();
        }
        topNTrace(s, upsert);
        return s;
    }

    Scenario offsetTraced(String name, String backend, boolean rowNumber) {
        Scenario s = kvi(name,
                "append top-N with an offset (rn BETWEEN 2 AND 4) by v DESC, traced: the"
                        + " with-row-number algorithm whether or not rn is in the output; rank 1"
                        + " is not emitted" + (rowNumber ? ", with rn" : ", without rn"),
                backend, false).desc("v").between(2, 4);
        if (rowNumber) {
            s.rowNumber();
        }
        topNTrace(s, false);
        return s;
    }

    Scenario topNRandom(String name, String backend, boolean rowNumber) {
        Scenario s = new Scenario(name,
                "append top-5 by (v DESC) over 250 random rows, STRING partition keys (NULL,"
                        + " empty, Unicode, NUL) and NULL-heavy values of every type"
                        + (rowNumber ? ", with rn" : ", without rn"))
                .column("k", "STRING", DataTypes.STRING())
                .column("v", "INT", DataTypes.INT())
                .column("l", "BIGINT", DataTypes.BIGINT())
                .column("d", "DOUBLE", DataTypes.DOUBLE())
                .column("m", "DECIMAL(10, 2)", DataTypes.DECIMAL(10, 2))
                .column("s", "STRING", DataTypes.STRING())
                .partition("k")
                .desc("v")
                .top(5)
                .backend(backend);
        if (rowNumber) {
            s.rowNumber();
        }
        Object[] keys = keys(KEYS, 12);
        for (int n = 0; n < 250; n++) {
            s.row(pick(s.rnd, keys), pickOrNull(s.rnd, INTS, 6), pickOrNull(s.rnd, BIGINTS, 3),
                    pickOrNull(s.rnd, DOUBLES, 3), pickOrNull(s.rnd, DECIMALS, 3),
                    pickOrNull(s.rnd, STRINGS, 3));
        }
        return s;
    }

    Scenario offsetRandom(String name, String backend, boolean rowNumber, boolean upsert) {
        Scenario s = kvi(name,
                "append top-N with an offset (rn BETWEEN 3 AND 5) by v ASC over random rows"
                        + (rowNumber ? ", with rn" : ", without rn") + (upsert ? ", no -U" : ""),
                backend, upsert).asc("v").between(3, 5);
        if (rowNumber) {
            s.rowNumber();
        }
        Object[] keys = upsert ? new Object[] {"a", "b", "c", "d", "e"}
                : new Object[] {"a", "b", "c", "d", null};
        for (int n = 0; n < 200; n++) {
            s.row(pick(s.rnd, keys), 100 - n + s.rnd.nextInt(60), n);
        }
        return s;
    }

    Scenario ties(String name, String backend, boolean rowNumber) {
        Scenario s = kvi(name,
                "append top-3 by v DESC where most sort keys tie (v in {1, 2} and NULL): ties"
                        + " rank in arrival order, a tie with the last rank on a full buffer is"
                        + " rejected" + (rowNumber ? ", with rn" : ", without rn"),
                backend, false).desc("v").top(3);
        if (rowNumber) {
            s.rowNumber();
        }
        for (int n = 0; n < 180; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", null}),
                    pickOrNull(s.rnd, new Object[] {1, 1, 1, 2}, 8), n);
        }
        return s;
    }

    Scenario nullOrder(String name, boolean ascending, boolean nullsLast) {
        Scenario s = kvi(name,
                "append top-3 by v " + (ascending ? "ASC" : "DESC") + " NULLS "
                        + (nullsLast ? "LAST" : "FIRST") + " (against the default) over NULL-heavy"
                        + " INT sort keys, with rn",
                ascending ? "rocksdb" : "hashmap", false)
                .order("v", ascending, nullsLast).top(3).rowNumber();
        for (int n = 0; n < 150; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", "c", null}), pickOrNull(s.rnd, INTS, 3),
                    n);
        }
        return s;
    }

    Scenario multiField() {
        Scenario s = new Scenario("multi_field",
                "append top-4 by (a ASC, s DESC NULLS LAST, d ASC) with many ties on a, with rn")
                .column("k", "INT", DataTypes.INT())
                .column("a", "INT", DataTypes.INT())
                .column("s", "STRING", DataTypes.STRING())
                .column("d", "DOUBLE", DataTypes.DOUBLE())
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .asc("a")
                .order("s", false, true)
                .asc("d")
                .top(4)
                .rowNumber();
        for (int n = 0; n < 200; n++) {
            s.row(pick(s.rnd, new Object[] {1, 2, null}), pickOrNull(s.rnd, new Object[] {1, 2}, 6),
                    pick(s.rnd, new Object[] {null, "", "a", "ä", "b"}),
                    pick(s.rnd, new Object[] {null, 0.0, 1.0, -2.5}), n);
        }
        return s;
    }

    Scenario bigints() {
        Scenario s = new Scenario("bigints",
                "append top-3 by a BIGINT DESC with its extremes, without rn, on RocksDB")
                .column("k", "STRING", DataTypes.STRING())
                .column("l", "BIGINT", DataTypes.BIGINT())
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .desc("l")
                .top(3)
                .backend("rocksdb");
        for (int n = 0; n < 150; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", "c"}),
                    s.rnd.nextInt(3) == 0 ? (long) s.rnd.nextInt(1000) : pick(s.rnd, BIGINTS), n);
        }
        return s;
    }

    Scenario doubles() {
        Scenario s = new Scenario("doubles",
                "append top-3 by a DOUBLE ASC without rn: -0.0 and 0.0 tie (rank in arrival"
                        + " order, each row keeps its own zero), infinities, the smallest"
                        + " subnormal, no NaN")
                .column("k", "STRING", DataTypes.STRING())
                .column("d", "DOUBLE", DataTypes.DOUBLE())
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .asc("d")
                .top(3);
        s.row("z", 0.0, 0);
        s.row("z", -0.0, 1);
        s.row("z", 0.0, 2);
        s.row("z", -0.0, 3);     // ties the last on a full buffer
        s.row("z", -1.0E-300, 4);
        s.row("z", -0.0, 5);
        for (int n = 6; n < 160; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", null}), pick(s.rnd, DOUBLES), n);
        }
        return s;
    }

    /**
     * With rn, DOUBLE sort keys without -0.0: Flink 2.3.0's with-row-number algorithm
     * ({@code AppendOnlyTopNHelper.processElementWithRowNumber}) finds the new row's entry by
     * {@code equals} on the sort key's bytes, so a -0.0 arriving at a buffered 0.0 (equal in
     * the comparator) is never found and the job fails on a NULL row.
     */
    Scenario doublesRowNumber() {
        Scenario s = new Scenario("doubles_rn",
                "append top-3 by a DOUBLE DESC with rn: infinities, the smallest subnormal, ties"
                        + " of equal bits (no -0.0: Flink fails on it with rn, see the generator;"
                        + " no NaN), on RocksDB")
                .column("k", "STRING", DataTypes.STRING())
                .column("d", "DOUBLE", DataTypes.DOUBLE())
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .desc("d")
                .top(3)
                .rowNumber()
                .backend("rocksdb");
        List<Object> pool = new ArrayList<>(Arrays.asList(DOUBLES));
        pool.removeIf(d -> d != null && Double.doubleToRawLongBits((Double) d)
                == Double.doubleToRawLongBits(-0.0));
        Object[] doubles = pool.toArray();
        for (int n = 0; n < 160; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", null}), pick(s.rnd, doubles), n);
        }
        return s;
    }

    Scenario decimals() {
        Scenario s = new Scenario("decimals",
                "append top-3 by a DECIMAL(10, 2) DESC (compact decimals), without rn")
                .column("k", "STRING", DataTypes.STRING())
                .column("m", "DECIMAL(10, 2)", DataTypes.DECIMAL(10, 2))
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .desc("m")
                .top(3);
        for (int n = 0; n < 150; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", null}), pick(s.rnd, DECIMALS), n);
        }
        return s;
    }

    Scenario wideDecimals() {
        Scenario s = new Scenario("wide_decimals",
                "append top-2 by a DECIMAL(38, 18) ASC (non-compact decimals), with rn, on"
                        + " RocksDB")
                .column("k", "INT", DataTypes.INT())
                .column("m", "DECIMAL(38, 18)", DataTypes.DECIMAL(38, 18))
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .asc("m")
                .top(2)
                .rowNumber()
                .backend("rocksdb");
        for (int n = 0; n < 120; n++) {
            s.row(pick(s.rnd, new Object[] {1, 2, null}), pick(s.rnd, WIDE_DECIMALS), n);
        }
        return s;
    }

    Scenario strings() {
        Scenario s = new Scenario("strings",
                "append top-4 by a STRING DESC (UTF-8 byte order: a combining accent, U+2028,"
                        + " NUL, emoji, empty), with rn")
                .column("k", "STRING", DataTypes.STRING())
                .column("s", "STRING", DataTypes.STRING())
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .desc("s")
                .top(4)
                .rowNumber();
        for (int n = 0; n < 180; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", "größer 🦀"}), pick(s.rnd, STRINGS), n);
        }
        return s;
    }

    Scenario timestamps() {
        Scenario s = new Scenario("timestamps",
                "append top-3 by a TIMESTAMP(3) DESC (not a time attribute), without rn, on"
                        + " RocksDB")
                .column("k", "INT", DataTypes.INT())
                .column("t", "TIMESTAMP(3)", DataTypes.TIMESTAMP(3))
                .column("id", "INT", DataTypes.INT())
                .partition("k")
                .desc("t")
                .top(3)
                .backend("rocksdb");
        for (int n = 0; n < 150; n++) {
            Object t = s.rnd.nextInt(3) == 0 ? BASE.plusNanos(s.rnd.nextInt(50) * 1_000_000L)
                    : pick(s.rnd, TIMESTAMPS);
            s.row(pick(s.rnd, new Object[] {1, 2, null}), t, n);
        }
        return s;
    }

    Scenario nullPartition() {
        Scenario s = new Scenario("null_partition",
                "append top-2 partitioned by an INT whose NULL is a key of its own, by a BIGINT"
                        + " DESC, with rn")
                .column("k", "INT", DataTypes.INT())
                .column("l", "BIGINT", DataTypes.BIGINT())
                .partition("k")
                .desc("l")
                .top(2)
                .rowNumber();
        for (int n = 0; n < 120; n++) {
            s.row(pick(s.rnd, new Object[] {null, 0, Integer.MIN_VALUE}), (long) s.rnd.nextInt(40));
        }
        return s;
    }

    Scenario multiPartition() {
        Scenario s = new Scenario("multi_partition",
                "append top-2 PARTITION BY s, k (the node keys by (k, s), the columns' order)"
                        + " with NULLs and Unicode in either, by v DESC, without rn, on RocksDB")
                .column("k", "INT", DataTypes.INT())
                .column("v", "INT", DataTypes.INT())
                .column("s", "STRING", DataTypes.STRING())
                .partition("s", "k")
                .desc("v")
                .top(2)
                .backend("rocksdb");
        for (int n = 0; n < 160; n++) {
            s.row(pick(s.rnd, new Object[] {null, 1, 2}), s.rnd.nextInt(30),
                    pick(s.rnd, new Object[] {null, "", "日本語", "ǅ"}));
        }
        return s;
    }

    Scenario global(String name, String backend, boolean rowNumber, boolean upsert) {
        Scenario s = new Scenario(name,
                "append top-5 without PARTITION BY (one key for all rows) by (v DESC, id ASC)"
                        + (rowNumber ? ", with rn" : ", without rn") + (upsert ? ", no -U" : ""))
                .column("v", "INT", DataTypes.INT())
                .column("id", "INT", DataTypes.INT())
                .column("s", "STRING", DataTypes.STRING())
                .desc("v")
                .asc("id")
                .top(5)
                .backend(backend);
        if (rowNumber) {
            s.rowNumber();
        }
        if (upsert) {
            s.upsert();
        }
        for (int n = 0; n < 150; n++) {
            s.row(pickOrNull(s.rnd, new Object[] {n / 3, n / 2, 10, 0}, 9), s.rnd.nextInt(100),
                    pick(s.rnd, STRINGS));
        }
        return s;
    }

    Scenario lessThan() {
        Scenario s = kvi("less_than",
                "append top-N written rn < 4 (the range 1..3) by v ASC, with rn", "hashmap", false)
                .asc("v").lessThan(4).rowNumber();
        for (int n = 0; n < 120; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b"}), pickOrNull(s.rnd, INTS, 6), n);
        }
        return s;
    }

    Scenario topNTtl(String name, String backend) {
        Scenario s = kvi(name,
                "append top-3 by v DESC with a state TTL of 1 h (nothing expires within the run),"
                        + " with rn",
                backend, false).desc("v").top(3).rowNumber().ttl(HOUR_MS);
        for (int n = 0; n < 120; n++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", "c", null}), pickOrNull(s.rnd, INTS, 5),
                    n);
        }
        return s;
    }

    Scenario rowtime() {
        Scenario s = new Scenario("rowtime_desc",
                "append top-3 by the rowtime attribute ts DESC (a Top-N, not a deduplication:"
                        + " the range is 1..3), watermarks between the rows (the node ignores"
                        + " them), with rn")
                .column("k", "STRING", DataTypes.STRING())
                .column("v", "BIGINT", DataTypes.BIGINT())
                .column("ts", "TIMESTAMP(3)", DataTypes.TIMESTAMP(3).notNull())
                .partition("k")
                .desc("ts")
                .top(3)
                .rowNumber();
        s.rowtime = true;
        long max = 0;
        for (int n = 0; n < 120; n++) {
            long at = 1_000 + 10L * n - s.rnd.nextInt(80);
            s.row(pick(s.rnd, new Object[] {"a", "b", null}), pickOrNull(s.rnd, BIGINTS, 4),
                    BASE.plusNanos(at * 1_000_000L));
            max = Math.max(max, at);
            if (n % 8 == 7 && BASE_MS + max - 50 > s.lastWatermark) {
                s.watermark(max - 50);
            }
        }
        return s;
    }

    // ----------------------------------------------------------------- first-N

    Scenario firstN(String name, String backend, boolean rowNumber, long start, boolean upsert) {
        long end = start + 2;
        Scenario s = kvi(name,
                "first-N (ORDER BY pt ASC on PROCTIME(), rn "
                        + (start == 1 ? "<= 3" : "BETWEEN " + start + " AND " + end)
                        + "): each key's first rows in arrival order, nothing after"
                        + (rowNumber ? ", with rn" : ", without rn") + (upsert ? ", no -U" : ""),
                backend, upsert).proctime().asc("pt").select("k", "v", "id");
        if (start == 1) {
            s.top(end);
        } else {
            s.between(start, end);
        }
        if (rowNumber) {
            s.rowNumber();
        }
        Object[] keys = upsert ? new Object[] {"a", "b", "c", "größer 🦀", ""}
                : new Object[] {"a", "b", null, "größer 🦀", ""};
        for (int n = 0; n < 100; n++) {
            s.row(pick(s.rnd, keys), pickOrNull(s.rnd, INTS, 4), n);
        }
        return s;
    }

    Scenario firstNGlobal() {
        Scenario s = new Scenario("firstn_global",
                "first-N without PARTITION BY (rn <= 4 by pt): the first four rows of the"
                        + " stream, with rn, on RocksDB")
                .column("v", "INT", DataTypes.INT())
                .column("s", "STRING", DataTypes.STRING())
                .proctime()
                .asc("pt")
                .select("v", "s")
                .top(4)
                .rowNumber()
                .backend("rocksdb");
        for (int n = 0; n < 30; n++) {
            s.row(n, pick(s.rnd, STRINGS));
        }
        return s;
    }

    // ---------------------------------------------------------- updating inputs

    Scenario retract(String name, String backend, long n, boolean rowNumber, boolean upsert) {
        Scenario s = new Scenario(name,
                "retract strategy (RetractableTopNFunction): top-" + n + " by v DESC over a"
                        + " changelog without a key (+I, -U/+U pairs, -D of rows inserted"
                        + " before)" + (rowNumber ? ", with rn" : ", without rn")
                        + (upsert ? ", no -U" : ""))
                .column("k", "STRING", upsert ? DataTypes.STRING().notNull() : DataTypes.STRING())
                .column("id", "INT", DataTypes.INT())
                .column("v", "INT", DataTypes.INT())
                .partition("k")
                .desc("v")
                .changelog()
                .backend(backend);
        if (n == 1) {
            s.first();
        } else {
            s.top(n);
        }
        if (rowNumber) {
            s.rowNumber();
        }
        if (upsert) {
            s.upsert();
        }
        Object[] keys = upsert ? new Object[] {"a", "b", "c"} : new Object[] {"a", "b", null};
        // The live rows, (k, id) -> v: only those are updated or deleted.
        Map<List<Object>, Object> live = new LinkedHashMap<>();
        int id = 0;
        for (int step = 0; step < 160; step++) {
            int dice = s.rnd.nextInt(10);
            if (live.isEmpty() || dice < 5) {
                Object k = pick(s.rnd, keys);
                Object v = pickOrNull(s.rnd, new Object[] {0, 1, 2, 3, 4, 5, 6, 7}, 8);
                s.kindRow(RowKind.INSERT, k, id, v);
                live.put(Arrays.asList(k, id), v);
                id++;
                continue;
            }
            List<List<Object>> rows = new ArrayList<>(live.keySet());
            List<Object> row = rows.get(s.rnd.nextInt(rows.size()));
            Object v = live.get(row);
            if (dice < 8) {
                Object next = pickOrNull(s.rnd, new Object[] {0, 1, 2, 3, 4, 5, 6, 7}, 8);
                s.kindRow(RowKind.UPDATE_BEFORE, row.get(0), row.get(1), v);
                s.kindRow(RowKind.UPDATE_AFTER, row.get(0), row.get(1), next);
                live.put(row, next);
            } else {
                s.kindRow(RowKind.DELETE, row.get(0), row.get(1), v);
                live.remove(row);
            }
        }
        return s;
    }

    Scenario updateFast(String name, String backend, String function, long n,
            boolean rowNumber) {
        boolean count = function.equals("COUNT");
        Scenario s = new Scenario(name,
                "update-fast strategy (" + (n == 1 ? "FastTop1Function" : "UpdatableTopNFunction")
                        + "): top-" + n + " by c DESC over SELECT g, k, " + function
                        + (count ? "(*)" : "(v)") + " AS c ... GROUP BY g, k (unique key (g, k)"
                        + " holds the partition key g, c only grows; the aggregate emits +I/+U"
                        + " without -U)" + (rowNumber ? ", with rn" : ", without rn"))
                .column("g", "STRING", DataTypes.STRING())
                .column("k", "INT", DataTypes.INT())
                .column("v", "BIGINT", DataTypes.BIGINT())
                .aggregate(function, count ? null : "v", "g", "k")
                .partition("g")
                .desc("c")
                .backend(backend);
        if (n == 1) {
            s.first();
        } else {
            s.top(n);
        }
        if (rowNumber) {
            s.rowNumber();
        }
        for (int i = 0; i < 150; i++) {
            s.row(pick(s.rnd, new Object[] {"a", "b", null}), s.rnd.nextInt(8),
                    count ? (long) i : pickOrNull(s.rnd, new Object[] {1L, 5L, 9L, 30L}, 4));
        }
        return s;
    }
}
