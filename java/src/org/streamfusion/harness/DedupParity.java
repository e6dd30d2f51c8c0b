package org.streamfusion.harness;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;

import org.streamfusion.flink.NativeOneInputExecNode;
import org.streamfusion.harness.WindowParity.Combo;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Deduplication parity of StreamFusion against stock Flink 2.3.0 in one MiniCluster JVM:
 * {@code ROW_NUMBER() OVER (PARTITION BY ... ORDER BY <time attribute> [DESC]) = 1}, which
 * Flink plans as one {@code Deduplicate} node.
 *
 * <p>Every query runs over the same input, stock ({@code streamfusion.enabled = false}) and
 * native ({@code true}, small bundles so every query spans many JNI calls), under the same
 * parallelism and keyed state backend: keep-first and keep-last on processing time ({@code pt})
 * and event time ({@code ts}, and {@code rt} of TIMESTAMP_LTZ(3) in view {@code tl}); single,
 * multi-column and no keys, NULL and Unicode keys; INT, BIGINT, DOUBLE (NaN, infinities, -0.0),
 * DECIMAL (compact and not), STRING and TIMESTAMP (3 and 9) values with NULLs; an upsert
 * output (no {@code -U}: {@code generateUpdateBefore} is false); {@code
 * table.exec.deduplicate.insert-update-after-sensitive-enabled = false}; mini-batch ({@code
 * allow-latency} of an hour, so bundles end after {@value #MINI_BATCH_ROWS} rows, on a watermark
 * and at the end of input); state TTL on a stalled input, so keys expire between its two phases.
 *
 * <p>Keep-last on processing time (without state TTL) emits nothing for a row equal to the
 * key's kept row, equal meaning {@code BinaryRowData.equals}, header byte (row kind) included.
 * On the {@code hashmap} backend Flink's state holds the row object itself, whose kind is set to
 * {@code +U} when it is emitted as an update, so there a kept row stops equalling its repeats
 * once the key has been updated; on {@code rocksdb} the row is serialized as it arrived. The
 * {@code rk} columns repeat rows per key for this (stock's outputs on the two backends must
 * differ), and every query runs on both backends: native on each is compared with stock on the
 * same one.
 *
 * <p>Which rows are late must not depend on timing: the input is a {@code fromData} stream at
 * parallelism 1 whose watermarks are punctuated ({@link WindowParity.Punctuated}). Every key
 * column is a function of the row's key index {@code ki}, and the stream is partitioned by its
 * parity before the table reads it, so all rows of a key travel one channel and reach the
 * deduplication in input order at any parallelism. At parallelism 2 (after the source) a
 * deduplication takes the minimum watermark of two channels, whose interleaving is not fixed,
 * so that run reads {@link #ON_TIME}, the same rows with none late; queries whose result
 * depends on the order of all rows (no key) run at parallelism 1 only.
 *
 * <p>Outputs must be equal as multisets of rows with their kinds, and without mini-batch also
 * in each key's order (the key being the leading output columns). Mini-batch outputs are
 * compared as changelogs first and, if they differ, as final results (each key's last {@code
 * +I}/{@code +U}, none after a {@code -D}): a bundle's boundaries decide which updates Flink
 * emits, and at parallelism 2 a watermark ends a bundle wherever it arrives. Each case line and
 * the summary say which comparison decided. For each native run the planner's decisions must
 * show the query's {@code Deduplicate} substituted (and {@code EXPLAIN} a {@code
 * StreamFusionDeduplicate}), with the described node or options that the case is about; a
 * Top-N must be planned as a {@code Rank}, not a deduplication (whether it runs natively is
 * {@link RankParity}'s concern), and a compacting mini-batch, which the native side refuses,
 * must stay stock naming the option, and its planning fail with {@code streamfusion.fallback =
 * false} (at the first node kept stock, maybe a Calc below it).
 *
 * <p>Args: optional query names to run (all when none), and {@code --stock-twice}, which runs
 * stock for both sides (the harness's own determinism; plan checks are skipped). Prints one line
 * per case and a last line {@code summary: ...}; exits 1 on any failure.
 */
public final class DedupParity extends NodeParity<DedupParity.Query> {
    private static final int ROWS = 3000;
    /** Flink's mini-batch bundle size: every key spans many bundles. */
    static final int MINI_BATCH_ROWS = 7;
    /** Distinct key indexes {@code ki}. */
    static final int KEY_INDEXES = 200;
    /** The state TTL of the queries over the stalled input, and its stall (every key expires). */
    static final String TTL = "3 s";

    static final long STALL_MS = 9_000;

    /** What the native run must plan for a query. */
    enum Expect {
        /** Its one {@code Deduplicate} native. */
        NATIVE,
        /** Its one {@code Deduplicate} refused, with a reason naming {@link Query#refusal}. */
        REFUSED,
        /** A Top-N: no {@code Deduplicate}, a {@code Rank} (native or stock). */
        RANK
    }

    static final String SENSITIVE = "table.exec.deduplicate.insert-update-after-sensitive-enabled";
    static final String COMPACT = "table.exec.deduplicate.mini-batch.compact-changes-enabled";
    static final String MINI_BATCH = "table.exec.mini-batch.enabled";

    /**
     * A query; its first {@code keyColumns} output columns are the deduplication key. It runs at
     * parallelism 2 too when its result depends on each key's order only; its {@code describes}
     * are texts the native decision's description or options must contain.
     */
    static final class Query extends NodeParity.Query<Query> {
        Expect expect = Expect.NATIVE;
        String refusal;
        /** Rows stock must emit (what the case is about happened), or null. */
        Integer stockRows;
        /** Whether stock on hashmap and on rocksdb must differ (at parallelism 1). */
        boolean backendsDiffer;
        final List<String> options = new ArrayList<>();

        Query(String name, int keyColumns, String sql) {
            super(name, keyColumns, sql);
        }

        Query option(String key, String value) {
            options.add(key);
            options.add(value);
            return this;
        }

        Query miniBatch() {
            return option(MINI_BATCH, "true")
                    .option("table.exec.mini-batch.allow-latency", "1 h")
                    .option("table.exec.mini-batch.size", String.valueOf(MINI_BATCH_ROWS))
                    .describes("\"" + MINI_BATCH + "\":\"true\"");
        }

        Query refused(String reason) {
            expect = Expect.REFUSED;
            refusal = reason;
            return this;
        }

        Query rank() {
            expect = Expect.RANK;
            return this;
        }

        Query stockRows(int rows) {
            stockRows = rows;
            return this;
        }

        Query backendsDiffer() {
            backendsDiffer = true;
            return this;
        }

        boolean isMiniBatch() {
            int at = options.indexOf(MINI_BATCH);
            return at >= 0 && options.get(at + 1).equals("true");
        }

        boolean stalled() {
            return sql.contains(" FROM st)");
        }

        @Override
        boolean refused() {
            return expect == Expect.REFUSED;
        }
    }

    static final List<Query> QUERIES = new ArrayList<>();

    static Query q(String name, int keyColumns, String sql) {
        Query query = new Query(name, keyColumns, sql);
        QUERIES.add(query);
        return query;
    }

    /** The deduplication of {@code table} by {@code partition} ({@code ""}: none). */
    static String dedup(String select, String table, String partition, String order) {
        return "SELECT " + select + " FROM (SELECT *, ROW_NUMBER() OVER ("
                + (partition.isEmpty() ? "" : "PARTITION BY " + partition + " ")
                + "ORDER BY " + order + ") AS rn FROM " + table + ") WHERE rn = 1";
    }

    static final String VALUES = "id, i, l, d, amount, big, s, vt, nt";
    /** The repeating columns: runs of equal rows per key {@code rk}. */
    static final String REPEATS = "rk, ri, rs, rd, ra";

    static {
        // Processing time.
        q("first_pt", 1, dedup("k, " + VALUES, "t", "k", "pt")).parallel();
        q("last_pt", 1, dedup("k, " + VALUES, "t", "k", "pt DESC")).parallel()
                .describes(UPDATE_BEFORE);
        q("first_pt_multi_key", 2, dedup("k2, g, id, i, big, nt", "t", "k2, g", "pt ASC"))
                .parallel();
        q("last_pt_multi_key", 2, dedup("g, k2, id, l, d, s, vt", "t", "g, k2", "pt DESC"))
                .parallel();
        q("first_pt_string_key", 1, dedup("s, id, i, amount, vt", "t", "s", "pt"));
        q("last_pt_string_key", 1, dedup("g, " + VALUES, "t", "g", "pt DESC"));
        q("first_pt_no_key", 0, dedup("id, k, s, d", "t", "", "pt"));
        q("last_pt_repeats", 1, dedup(REPEATS, "t", "rk", "pt DESC")).parallel()
                .backendsDiffer();
        q("calc_around_last_pt", 1,
                "SELECT k2, UPPER(s), i * 2, d FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY"
                        + " k2 ORDER BY pt DESC) AS rn FROM t WHERE i IS NOT NULL) WHERE rn = 1")
                .parallel();
        // Event time: keep-first of an insert-only input waits for the watermark (late rows
        // dropped); keep-last and mini-batch keep-first update as earlier or later rows come.
        q("first_rt", 1, dedup("k, id, i, s, ts", "t", "k", "ts")).parallel()
                .describes("\"outputInsertOnly\":true");
        q("last_rt", 1, dedup("k, id, i, l, amount, ts", "t", "k", "ts DESC")).parallel();
        q("first_rt_multi_key", 2, dedup("k2, g, id, d, nt, ts", "t", "k2, g", "ts ASC"))
                .parallel();
        q("last_rt_multi_key", 2, dedup("g, k2, id, big, vt, ts", "t", "g, k2", "ts DESC"))
                .parallel();
        q("first_rt_string_key", 1, dedup("s, id, l, ts", "t", "s", "ts"));
        q("last_rt_repeats", 1, dedup(REPEATS, "t", "rk", "ts DESC")).parallel();
        q("last_rt_no_key", 0, dedup("id, k, ts", "t", "", "ts DESC"));
        q("first_rt_ltz", 1, dedup("k2, id, s, rt", "tl", "k2", "rt")).parallel();
        q("last_rt_ltz", 1, dedup("g, id, d, rt", "tl", "g", "rt DESC")).parallel();
        // Upsert outputs: no -U.
        q("last_pt_upsert", 1, dedup("k, " + VALUES, "t", "k", "pt DESC")).upsert().parallel();
        q("last_pt_repeats_upsert", 1, dedup(REPEATS, "t", "rk", "pt DESC")).upsert()
                .parallel();
        q("last_rt_upsert", 2, dedup("g, k2, id, i, s, ts", "t", "g, k2", "ts DESC")).upsert()
                .parallel();
        // Neither -U nor +I: every row is +U, and nothing is compared with a kept row.
        q("last_pt_not_sensitive", 1, dedup(REPEATS, "t", "rk", "pt DESC")).upsert()
                .option(SENSITIVE, "false").describes("\"" + SENSITIVE + "\":\"false\"")
                .parallel();
        q("last_rt_not_sensitive", 1, dedup("k, id, l, ts", "t", "k", "ts DESC")).upsert()
                .option(SENSITIVE, "false").describes("\"" + SENSITIVE + "\":\"false\"")
                .parallel();
        // With -U the option changes nothing.
        q("last_pt_not_sensitive_retract", 1, dedup(REPEATS, "t", "rk", "pt DESC"))
                .option(SENSITIVE, "false").describes(UPDATE_BEFORE);
        // Mini-batch.
        q("first_pt_mini_batch", 1, dedup("k, " + VALUES, "t", "k", "pt")).miniBatch()
                .parallel();
        q("last_pt_mini_batch", 1, dedup("k, " + VALUES, "t", "k", "pt DESC")).miniBatch()
                .parallel();
        q("last_pt_repeats_mini_batch", 1, dedup(REPEATS, "t", "rk", "pt DESC")).miniBatch()
                .parallel();
        q("last_pt_mini_batch_upsert", 2, dedup("g, k2, id, s, vt", "t", "g, k2", "pt DESC"))
                .miniBatch().upsert().parallel();
        q("first_rt_mini_batch", 1, dedup("k, id, i, s, ts", "t", "k", "ts")).miniBatch()
                .describes("\"outputInsertOnly\":false").parallel();
        q("last_rt_mini_batch", 2, dedup("g, k2, id, d, ts", "t", "g, k2", "ts DESC"))
                .miniBatch().parallel();
        q("last_rt_mini_batch_compact", 1, dedup("k, id, ts", "t", "k", "ts DESC")).miniBatch()
                .option(COMPACT, "true").refused("compact-changes");
        // State TTL on the stalled input: every key expires between the two phases, so each
        // phase emits its keys' first rows again (keep-first: 40 + 50 rows; keep-last: a +I,
        // then -U/+U for the second row, equal or not: no rows are compared while TTL is on).
        q("first_pt_ttl", 1, dedup("k, id, v, s", "st", "k", "pt"))
                .option("table.exec.state.ttl", TTL).describes("\"ttl\":\"" + TTL + "\"")
                .stockRows(90);
        q("last_pt_ttl", 1, dedup("k, v, s", "st", "k", "pt DESC"))
                .option("table.exec.state.ttl", TTL).describes("\"ttl\":\"" + TTL + "\"")
                .stockRows(270);
        // Top-N: a Rank, not a Deduplicate.
        q("top3_not_dedup", 2,
                "SELECT k2, rn, id, i FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k2"
                        + " ORDER BY i DESC, id) AS rn FROM t) WHERE rn <= 3")
                .rank().parallel();
        q("top1_by_value_not_dedup", 1, dedup("k, id, l", "t", "k", "l DESC, id")).rank()
                .parallel();
    }

    DedupParity() {
        super("Deduplicate", "deduplicate", "dedup-parity-", "rank_cases", QUERIES);
    }

    public static void main(String[] args) throws Exception {
        System.exit(new DedupParity().parity(args));
    }

    /** Mini-batch outputs are compared as changelogs first, then as final results. */
    @Override
    boolean comparesFinal(Query query, Combo combo) {
        return query.isMiniBatch();
    }

    /** Stock's rows at parallelism 1 by backend, of the queries whose backends must differ. */
    private final Map<String, Map<String, List<String>>> stockByBackend = new HashMap<>();

    @Override
    void checkStock(Query query, Combo combo, List<String[]> a, List<String> problems) {
        if (query.stockRows != null && a.size() != query.stockRows) {
            problems.add("stock emitted " + a.size() + " rows, not the " + query.stockRows
                    + " the case is about");
        }
        if (query.backendsDiffer && combo.parallelism() == 1) {
            stockByBackend.computeIfAbsent(query.name, k -> new HashMap<>())
                    .put(combo.backend(), sortedRows(a));
        }
    }

    @Override
    int finish() {
        int failures = 0;
        for (Query query : QUERIES) {
            Map<String, List<String>> outputs = stockByBackend.get(query.name);
            if (query.backendsDiffer && outputs != null && outputs.size() == 2
                    && outputs.get("hashmap").equals(outputs.get("rocksdb"))) {
                failures++;
                System.out.printf("query %s: stock emitted the same rows on hashmap and rocksdb:"
                        + " the repeated rows no longer tell the backends apart FAILED%n",
                        query.name);
            }
        }
        return failures;
    }

    /** The Top-N cases, counted as {@code rank_cases}. */
    @Override
    int counted(Query query, Outcome outcome) {
        return query.expect == Expect.RANK ? 1 : 0;
    }

    @Override
    String nodeNote(Query query, Outcome outcome) {
        return query.expect == Expect.RANK ? rank(outcome.explain) : "";
    }

    /**
     * The final result, {@code key => row} sorted: each key's last {@code +I} or {@code +U},
     * none after a {@code -D} ({@code -U} is always followed by its {@code +U}).
     */
    @Override
    List<String> finalRows(List<String[]> lines) {
        Map<String, String> last = new TreeMap<>();
        for (String[] line : lines) {
            // Row.toString is "<kind>[fields]", the kind being +I, -U, +U or -D.
            switch (line[1].substring(0, 2)) {
                case "+I", "+U" -> last.put(line[0], line[1].substring(2));
                case "-D" -> last.remove(line[0]);
                default -> { }
            }
        }
        List<String> rows = new ArrayList<>();
        last.forEach((key, row) -> rows.add(key + " => " + row));
        return rows;
    }

    /** How {@code explain} shows the Top-N: " (native Rank)", " (stock Rank)" or "". */
    static String rank(String explain) {
        return explain.contains(NativeOneInputExecNode.PREFIX + "Rank(") ? " (native Rank)"
                : explain.contains("Rank(") ? " (stock Rank)"
                : "";
    }

    /** What is wrong with the deduplicate nodes the native run planned for a query. */
    @Override
    void checkPlan(Query query, boolean strict, Outcome outcome, List<String> problems) {
        switch (query.expect) {
            case NATIVE -> nativeProblems(query, outcome, problems);
            case REFUSED -> refusedProblems(outcome.decisions.contains(query.refusal),
                    query.refusal, strict, outcome, problems);
            case RANK -> {
                if (outcome.nodeNative > 0 || outcome.nodeStock > 0) {
                    problems.add("a Top-N is not a Deduplicate: " + outcome.decisions);
                }
                if (rank(outcome.explain).isEmpty() || outcome.explain.contains("Deduplicate(")) {
                    problems.add("EXPLAIN shows no Rank, or a Deduplicate");
                }
            }
        }
    }

    /**
     * Views {@code t} and {@code tl} on {@link #TABLE} (at parallelism 1, else {@link
     * #ON_TIME}), and {@code st} on {@link #STALLED} when a query reads it.
     */
    @Override
    void views(StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Combo combo,
            List<Query> queries) {
        DataStream<Row> input = table(env, tEnv, combo);
        tEnv.createTemporaryView("tl", tEnv.fromDataStream(input, Schema.newBuilder()
                .fromRowDataType(TYPE)
                .columnByMetadata("rt", DataTypes.TIMESTAMP_LTZ(3), "rowtime")
                .watermark("rt", "SOURCE_WATERMARK()")
                .build()));
        // Only a job that reads it waits for the stalled input.
        if (queries.stream().anyMatch(Query::stalled)) {
            DataStream<Row> stalled = env
                    .fromData(STALLED, AggParity.rowInfo(STALLED_TYPE))
                    .setParallelism(1)
                    .map(new Stall(), AggParity.rowInfo(STALLED_TYPE))
                    .setParallelism(1)
                    // The stall blocks its own task only: a native Calc downstream must keep
                    // its mailbox (its bundle latency timer) running, as a quiet source does.
                    .disableChaining();
            tEnv.createTemporaryView("st", tEnv.fromDataStream(stalled, Schema.newBuilder()
                    .fromRowDataType(STALLED_TYPE)
                    .columnByExpression("pt", "PROCTIME()")
                    .build()));
        }
    }

    /**
     * The input as view {@code t}, with a processing time {@code pt} and the watermarks on
     * {@code ts}: {@link #TABLE} when {@code combo} is at parallelism 1, else {@link
     * #ON_TIME}. Returns the stream under the view.
     */
    static DataStream<Row> table(
            StreamExecutionEnvironment env, StreamTableEnvironment tEnv, Combo combo) {
        // One source task: rows and punctuated watermarks in one fixed order; then each key's
        // rows in one channel (by the parity of their key index).
        DataStream<Row> input = env
                .fromData(combo.parallelism() == 1 ? TABLE : ON_TIME, AggParity.rowInfo(TYPE))
                .setParallelism(1)
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.forGenerator(ctx -> new WindowParity.Punctuated())
                                .withTimestampAssigner(new WindowParity.RowTime(TS)))
                .setParallelism(1)
                .partitionCustom(new Modulo(), new KeyIndex());
        tEnv.createTemporaryView("t", tEnv.fromDataStream(input, Schema.newBuilder()
                .fromRowDataType(TYPE)
                .columnByExpression("pt", "PROCTIME()")
                .watermark("ts", "SOURCE_WATERMARK()")
                .build()));
        return input;
    }

    /**
     * Flink's defaults of every option a query sets. Each query starts from them: removing an
     * option from the table config would not do, as planning copies the table config into the
     * environment's, which a removed option then falls back to.
     */
    static final Map<String, String> DEFAULTS = Map.of(
            MINI_BATCH, "false",
            "table.exec.mini-batch.allow-latency", "0 ms",
            "table.exec.mini-batch.size", "-1",
            SENSITIVE, "true",
            COMPACT, "false",
            "table.exec.state.ttl", "0 ms");

    /** Sets {@link #DEFAULTS}, then {@code query}'s options. */
    @Override
    void configure(TableConfig config, Query query) {
        DEFAULTS.forEach(config::set);
        for (int i = 0; i < query.options.size(); i += 2) {
            if (!DEFAULTS.containsKey(query.options.get(i))) {
                throw new IllegalArgumentException(query.name + " sets "
                        + query.options.get(i) + ", which has no entry in DEFAULTS");
            }
            config.set(query.options.get(i), query.options.get(i + 1));
        }
    }

    /**
     * Tags a result row with its query's name and its key (the first {@code keyColumns}
     * fields), separated by {@link #SEPARATOR}, which no value holds (strings hold tabs).
     */
    static final class KeyedTag implements MapFunction<Row, String> {
        private static final long serialVersionUID = 1L;
        static final String SEPARATOR = "\u0001";
        private final String name;
        private final int keyColumns;

        KeyedTag(String name, int keyColumns) {
            this.name = name;
            this.keyColumns = keyColumns;
        }

        @Override
        public String map(Row row) {
            StringBuilder b = new StringBuilder(name).append(SEPARATOR);
            for (int i = 0; i < keyColumns; i++) {
                b.append(i == 0 ? "" : ", ").append(row.getField(i));
            }
            return b.append(SEPARATOR).append(row).toString();
        }
    }

    /** A row's key index {@code ki}. */
    static final class KeyIndex implements KeySelector<Row, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(Row row) {
            return (Integer) row.getField(KI);
        }
    }

    /** Channel {@code ki mod n}: at parallelism 2, by the parity every key column keeps. */
    static final class Modulo implements Partitioner<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public int partition(Integer key, int channels) {
            return key % channels;
        }
    }

    /** Passes rows on, stalling {@value #STALL_MS} ms before the stalled input's second phase. */
    static final class Stall implements MapFunction<Row, Row> {
        private static final long serialVersionUID = 1L;

        @Override
        public Row map(Row row) throws Exception {
            if ((Long) row.getField(0) == STALL_BEFORE) {
                Thread.sleep(STALL_MS);
            }
            return row;
        }
    }

    /** The positions of {@code ki} and {@code ts} in {@link #TYPE}. */
    static final int KI = 1;

    static final int TS = 18;

    static final DataType TYPE = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("ki", DataTypes.INT().notNull()),
            DataTypes.FIELD("k", DataTypes.INT()),
            DataTypes.FIELD("k2", DataTypes.INT()),
            DataTypes.FIELD("g", DataTypes.STRING()),
            DataTypes.FIELD("s", DataTypes.STRING()),
            DataTypes.FIELD("i", DataTypes.INT()),
            DataTypes.FIELD("l", DataTypes.BIGINT()),
            DataTypes.FIELD("d", DataTypes.DOUBLE()),
            DataTypes.FIELD("amount", DataTypes.DECIMAL(10, 2)),
            DataTypes.FIELD("big", DataTypes.DECIMAL(30, 6)),
            DataTypes.FIELD("vt", DataTypes.TIMESTAMP(3)),
            DataTypes.FIELD("nt", DataTypes.TIMESTAMP(9)),
            DataTypes.FIELD("rk", DataTypes.INT()),
            DataTypes.FIELD("ri", DataTypes.INT()),
            DataTypes.FIELD("rs", DataTypes.STRING()),
            DataTypes.FIELD("rd", DataTypes.DOUBLE()),
            DataTypes.FIELD("ra", DataTypes.DECIMAL(10, 2)),
            DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3).notNull()));

    /**
     * The input, in arrival order. Row {@code r} has a random key index {@code ki} (of {@value
     * #KEY_INDEXES}, seeded), or every tenth row the one of the row before and its event time
     * (a tie). Keys: {@code k} ({@code ki}, NULL for ten indexes), {@code k2} and {@code g}
     * (twenty values each, together one per index), {@code s} (sixteen strings), {@code rk}
     * (fifty); NULL keys on even indexes only, so each key keeps one parity. Values with NULLs
     * on different periods. The repeating columns {@code ri, rs, rd, ra} are a function of
     * {@code rk} and a version changing every 150 rows, so a key sees runs of equal rows, then
     * another version (0 to 1 changes only the sign of a zero {@code rd} for even keys). Event
     * time: due at {@code 40 r} ms, up to 399 ms early (never late), or - on sparse periods - 700
     * ms, 2.6 s or 9 s behind, late for the watermark ({@value WindowParity#BOUND_MS} ms behind the
     * largest seen).
     */
    static final List<Row> TABLE = rows(true);

    /** {@link #TABLE} without the late rows. */
    static final List<Row> ON_TIME = rows(false);

    static List<Row> rows(boolean late) {
        Random random = new Random(20_260_301L);
        List<Row> rows = new ArrayList<>();
        int ki = 0;
        LocalDateTime ts = WindowParity.BASE;
        for (int r = 0; r < ROWS; r++) {
            boolean twin = r % 10 == 7;
            if (!twin) {
                ki = random.nextInt(KEY_INDEXES);
                long due = r * 40L;
                long behind = !late ? r * 7919L % 400
                        : r % 211 == 5 ? 9000
                        : r % 53 == 7 ? 2600
                        : r % 29 == 3 ? 700
                        : r * 7919L % 400;
                ts = WindowParity.BASE.plusNanos(Math.max(0, due - behind) * 1_000_000L);
            }
            Integer rk = ki % 50 == 10 ? null : ki % 50;
            int version = (r / 150 + ki % 50) % 3;
            int rkv = ki % 50;
            rows.add(Row.of(
                    (long) r,
                    ki,
                    ki % 20 == 0 ? null : ki,
                    ki % 40 == 2 ? null : (ki / 20) * 2 + ki % 2,
                    ki % 20 == 18 ? null : AggParity.KEYS[ki % 20],
                    ki % 16 == 6 ? null : CalcParity.STRINGS[ki % 16],
                    r % 5 == 0 ? null : (r * 37 % 41) - 20,
                    r % 7 == 0 ? null : r % 97 == 5 ? Long.MAX_VALUE - r
                            : r * 1_000_003L - 1_200_000_000L,
                    r % 6 == 0 ? null
                            : r % 37 == 1 ? Double.NaN
                            : r % 41 == 3 ? Double.NEGATIVE_INFINITY
                            : r % 23 == 4 ? -0.0
                            : ((r * 13 % 29) - 14) / 4.0,
                    r % 4 == 0 ? null
                            : BigDecimal.valueOf((r * 7919L % 2_000_001) - 1_000_000, 2),
                    r % 9 == 0 ? null
                            : new BigDecimal(BigInteger.valueOf(r * 7_919_000_003L)
                                    .multiply(BigInteger.valueOf(r % 2 == 0 ? 1_000_000_007L
                                            : -1_000_000_007L)), 6),
                    r % 8 == 0 ? null
                            : LocalDateTime.of(2024, 2, 29, 0, 0).plusSeconds(r * 3607L)
                                    .plusNanos((r % 1000) * 1_000_000L),
                    r % 10 == 3 ? null
                            : LocalDateTime.of(1969, 12, 31, 23, 59).plusNanos(r * 123_456_789L),
                    rk,
                    version == 2 && rkv % 5 == 0 ? null : rkv * 10 + (version == 2 ? 2 : 0),
                    version == 2 && rkv % 3 == 0 ? null
                            : CalcParity.STRINGS[(rkv + (version == 2 ? 5 : 0)) % 16],
                    version == 0 ? 0.0 : version == 1 ? (rkv % 2 == 0 ? -0.0 : 1.5) : rkv / 4.0,
                    version == 2 ? null : BigDecimal.valueOf(rkv * 125L, 2),
                    ts));
        }
        return rows;
    }

    static final DataType STALLED_TYPE = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("k", DataTypes.INT()),
            DataTypes.FIELD("v", DataTypes.INT()),
            DataTypes.FIELD("s", DataTypes.STRING()));

    /** The first row of the stalled input's second phase. */
    static final long STALL_BEFORE = 80;

    /**
     * The stalled input: two rows for each of forty keys (equal rows for even keys), then -
     * after a stall longer than the TTL, so every key has expired - two equal rows for each of
     * those keys and ten new ones.
     */
    static final List<Row> STALLED = new ArrayList<>();

    static {
        long id = 0;
        for (int round = 0; round < 2; round++) {
            for (int k = 0; k < 40; k++) {
                boolean same = round == 0 || k % 2 == 0;
                STALLED.add(Row.of(id++, k, same ? 1 : 2, same ? "a" : "b"));
            }
        }
        for (int round = 0; round < 2; round++) {
            for (int k = 0; k < 50; k++) {
                STALLED.add(Row.of(id++, k == 7 ? null : k, 3, CalcParity.STRINGS[k % 16]));
            }
        }
    }
}
