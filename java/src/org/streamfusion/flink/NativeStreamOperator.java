package org.streamfusion.flink;

import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.flink.runtime.memory.MemoryReservationException;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupStatePartitionStreamProvider;
import org.apache.flink.runtime.state.KeyedStateCheckpointOutputStream;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import org.streamfusion.jni.NativeOperator;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * What every Flink SQL operator run natively shares ({@link NativeOneInputOperator}: Calc;
 * GROUP BY and window aggregation, one phase or either of two; deduplication; Top-N; OVER; the
 * event-time sort; {@link NativeTwoInputOperator}: the regular, window, interval and temporal
 * joins). Rows are buffered as {@code BinaryRowData} bytes (other {@code RowData} converted by
 * Flink's own {@link RowDataSerializer}) and pushed through JNI in bundles of at most {@code
 * bundleRows} rows; the output rows (row kinds in their headers) are emitted as {@code
 * BinaryRowData} over the bytes native code returned.
 *
 * <p>A bundle holds rows of one input: a row of the other input pushes it first, so the native
 * operator sees both inputs' rows in the order the task processed them (as a regular join
 * must). A window, an interval and an event-time temporal join keep one bundle per input
 * (see {@link #independentInputs}). A bundle is pushed when
 * it is full (rows, or {@value #MAX_BUNDLE_BYTES} bytes), {@code
 * bundleLatencyMs} of processing time after its first row (a timer in the task's mailbox, so a
 * slow input is not held back), before a watermark (which is then handed to the native
 * operator, where a mini-batch applies its bundle and event-time timers fire, and forwarded),
 * in {@link #prepareSnapshotPreBarrier} (so no row is buffered across a checkpoint barrier,
 * natively either), at {@link #endInput} and in {@link #finish}. Output records carry no
 * timestamp, as a stock Calc's and GROUP BY's; a rowtime column travels in the row.
 *
 * <p>An operator with processing-time timers ({@code "processing_time": true}: the
 * processing-time interval join; {@code "state_retention"}: a temporal join under a state TTL)
 * reads the time natively from the system clock, Flink's {@code System.currentTimeMillis}
 * processing time, and keeps its timers in its native state (checkpointed with it). After every
 * call that may register one (and on open and restore), the operator asks for the earliest
 * ({@link NativeOperator#nextProcessingTimer}) and schedules it in the task's processing-time
 * service; when it fires, the bundle is pushed and the native timers up to that time fire
 * ({@link NativeOperator#onProcessingTime}), as Flink's timer service fires a keyed operator's.
 *
 * <p>An event-time interval join ({@code "operator": "interval_join"}) holds its output watermark back as
 * Flink's {@code KeyedCoProcessOperatorWithWatermarkDelay} does: every watermark is forwarded as
 * {@code watermark - max(-lower_bound, upper_bound)} (its rows may be emitted that long after
 * the watermark that passed their time), while the native operator sees it undelayed.
 *
 * <p>A keyed operator keeps its state natively, in the store matching the job's keyed state
 * backend ({@code hashmap}: the native memory store; otherwise a native RocksDB store in one of
 * the task's local directories), for the key groups its subtask owns. Its checkpoints are
 * Flink's: {@link #snapshotState} writes one section per key group into raw keyed state, and
 * {@link #initializeState} restores from the sections Flink hands the subtask, so Flink's own
 * retention, restore and rescaling apply. The key is computed natively, exactly as Flink
 * assigns key groups, so no per-row key context is set on the Java side. Each subtask's last
 * watermark is kept in union list state, as Flink's {@code WindowAggOperator} keeps its own:
 * a restored window aggregation starts at the lowest of them, every other operator at none
 * (decision 0030).
 *
 * <p>A keyed operator's native state lives in Flink's managed memory (decision 0044): the
 * operator's share of the slot's managed memory (the weight {@code
 * streamfusion.memory.managed-weight} its transformation declares) is reserved in the task's
 * memory manager while it runs, and caps its state natively: a memory store fails past it, a
 * RocksDB store sizes its block cache, memtables and write-back buffer to it.
 */
public abstract class NativeStreamOperator extends AbstractStreamOperator<RowData> {
    private static final long serialVersionUID = 1L;

    /** Rows pushed into native operators in this JVM (for tests: proof that native code ran). */
    public static final AtomicLong ROWS_IN = new AtomicLong();
    /** Rows native operators emitted in this JVM. */
    public static final AtomicLong ROWS_OUT = new AtomicLong();
    /** Bundles pushed in this JVM. */
    public static final AtomicLong BUNDLES = new AtomicLong();
    /** Input rows that were not {@code BinaryRowData} and went through the serializer. */
    public static final AtomicLong CONVERTED_ROWS = new AtomicLong();
    /** Key-group sections written into checkpoints in this JVM. */
    public static final AtomicLong SECTIONS_WRITTEN = new AtomicLong();
    /** Key-group sections restored from in this JVM. */
    public static final AtomicLong SECTIONS_RESTORED = new AtomicLong();
    /** Managed memory native operators hold reserved in this JVM now. */
    public static final AtomicLong MANAGED_BYTES_HELD = new AtomicLong();
    /** The most managed memory native operators held reserved at once in this JVM. */
    public static final AtomicLong MANAGED_BYTES_PEAK = new AtomicLong();

    /** The most bytes a bundle buffers before it is pushed, whatever its row count. */
    static final int MAX_BUNDLE_BYTES = 64 << 20;

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** The union list state holding each subtask's last watermark. */
    static final String WATERMARK_STATE = "streamfusion-watermark";

    private final String plan;
    private final String name;
    private final boolean keyed;
    private final RowType[] inputTypes;
    private final int outputArity;
    private final int bundleRows;
    private final long bundleLatencyMs;
    /** Whether the plan has processing-time timers (in processing time, or under retention). */
    private final boolean processingTime;
    /** Flink's code for the plan's upcalls; null for a plan without. */
    private final FlinkUpcalls upcalls;
    /** The opened upcalls the native operator calls back, while it runs. */
    private transient FlinkUpcalls.Runner upcallRunner;

    private transient NativeOperator operator;
    /** The native timer time a callback is scheduled for, {@link NativeOperator#NO_TIMER} if none. */
    private transient long scheduledTimer;
    /**
     * The last watermark processed ({@code Long.MIN_VALUE} before the first), kept in union
     * list state as Flink's {@code WindowAggOperator} keeps its own (decision 0030).
     */
    private transient long currentWatermark;
    private transient ListState<Long> watermarkState;
    private transient Path workingDir;
    /** Managed memory reserved for the native state, released on close. */
    private transient long reservedBytes;
    private transient RowDataSerializer[] serializers;
    /**
     * The buffered rows: one bundle for every input, or (when the inputs' order matters) one
     * shared bundle holding the rows of input {@link #port}.
     */
    private transient Bundle[] bundles;
    /** The input the shared bundle's rows arrived on. */
    private transient int port;
    private transient boolean timerPending;
    private transient StreamRecord<RowData> out;

    /**
     * An operator for the native {@code plan} over inputs of {@code inputTypes}; {@code keyed}
     * operators keep state and must run on a keyed stream. {@code name} names the node in
     * errors. {@code upcalls} evaluates the plan's upcalls (null for a plan without).
     */
    NativeStreamOperator(
            String plan,
            String name,
            boolean keyed,
            RowType[] inputTypes,
            RowType outputType,
            int bundleRows,
            long bundleLatencyMs,
            FlinkUpcalls upcalls) {
        super(null, outputAdjustment(plan));
        if (bundleRows < 1) {
            throw new IllegalArgumentException("bundleRows must be at least 1, got " + bundleRows);
        }
        this.plan = plan;
        this.name = name;
        this.keyed = keyed;
        this.inputTypes = inputTypes.clone();
        this.outputArity = outputType.getFieldCount();
        this.bundleRows = bundleRows;
        this.bundleLatencyMs = bundleLatencyMs;
        this.upcalls = upcalls;
        this.processingTime = field(plan, "processing_time").asBoolean(false)
                || !field(plan, "state_retention").isMissingNode();
    }

    /** Field {@code name} of the native {@code plan}. */
    private static JsonNode field(String plan, String name) {
        try {
            return MAPPER.readTree(plan).path(name);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("StreamFusion: a native plan that is no JSON", e);
        }
    }

    /**
     * Whether the native {@code plan} applies its bundle on every watermark of either input, as
     * Flink's {@code MiniBatchStreamingJoinOperator} does in {@code processWatermark1}/{@code 2}
     * (a regular join with {@code mini_batch_rows}), and not only when the combined watermark
     * moves.
     */
    static boolean bundlesOnEveryWatermark(String plan) {
        try {
            JsonNode json = MAPPER.readTree(plan);
            return "join".equals(json.path("operator").asText())
                    && json.path("mini_batch_rows").canConvertToLong();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("StreamFusion: a native plan that is no JSON", e);
        }
    }

    /** The native plan. */
    final String plan() {
        return plan;
    }

    /**
     * How long the native {@code plan} holds back the watermarks it forwards, ms: {@code
     * max(-lower_bound, upper_bound)} for an interval join ({@code RowTimeIntervalJoin
     * .getMaxOutputDelay()}, its allowed lateness 0), else 0.
     */
    static long watermarkDelay(String plan) {
        JsonNode json;
        try {
            json = MAPPER.readTree(plan);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("StreamFusion: a native plan that is no JSON", e);
        }
        if (!"interval_join".equals(json.path("operator").asText())
                || json.path("processing_time").asBoolean(false)) {
            // A processing-time interval join runs in a KeyedCoProcessOperator: no delay.
            return 0;
        }
        JsonNode lower = json.path("lower_bound");
        JsonNode upper = json.path("upper_bound");
        if (!lower.canConvertToLong() || !upper.canConvertToLong()) {
            throw new IllegalArgumentException(
                    "StreamFusion: an interval join plan without lower_bound and upper_bound: "
                            + plan);
        }
        return Math.max(-lower.asLong(), upper.asLong());
    }

    /**
     * The output of the native {@code plan}: as is, or (an interval join) with its watermarks
     * delayed by {@link #watermarkDelay}, exactly as {@code
     * KeyedCoProcessOperatorWithWatermarkDelay} adjusts it (no adjustment for a delay of 0; a
     * plain subtraction otherwise).
     */
    private static OutputAdjustment<RowData> outputAdjustment(String plan) {
        long delay = watermarkDelay(plan);
        if (delay < 0) {
            throw new IllegalArgumentException(
                    "StreamFusion: a negative watermark delay " + delay + " for " + plan);
        }
        return delay == 0
                ? OutputAdjustment.noAdjustment()
                : OutputAdjustment.delayedWatermarkOutput(delay);
    }

    @Override
    protected boolean isUsingCustomRawKeyedState() {
        // Raw keyed state is ours: Flink must not write or read timers there.
        return keyed;
    }

    // The key is computed natively: Flink's per-row key extraction is skipped.
    @Override
    public boolean hasKeyContext() {
        return false;
    }

    @Override
    public boolean hasKeyContext1() {
        return false;
    }

    @Override
    public boolean hasKeyContext2() {
        return false;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public void setKeyContextElement1(StreamRecord record) {}

    @Override
    @SuppressWarnings("rawtypes")
    public void setKeyContextElement2(StreamRecord record) {}

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        if (!keyed) {
            operator = NativeOperator.open(plan);
            return;
        }
        currentWatermark = Long.MIN_VALUE;
        watermarkState = context.getOperatorStateStore().getUnionListState(
                new ListStateDescriptor<>(WATERMARK_STATE, LongSerializer.INSTANCE));
        TaskInfo task = getRuntimeContext().getTaskInfo();
        int maxParallelism = task.getMaxNumberOfParallelSubtasks();
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        maxParallelism,
                        task.getNumberOfParallelSubtasks(),
                        task.getIndexOfThisSubtask());
        if (!context.isRestored()) {
            operator = NativeOperator.open(plan, runtimeSettings(range, maxParallelism, null));
            return;
        }
        // Every old subtask's watermark (union list state): the lowest, if any was kept.
        Long restoredWatermark = null;
        Iterable<Long> watermarks = watermarkState.get();
        if (watermarks != null) {
            for (Long w : watermarks) {
                restoredWatermark = restoredWatermark == null ? w : Math.min(restoredWatermark, w);
            }
        }
        if (restoredWatermark != null) {
            currentWatermark = restoredWatermark;
        }
        String runtime = runtimeSettings(range, maxParallelism, restoredWatermark);
        ByteArrayOutputStream sections = new ByteArrayOutputStream();
        int[] sectionOffsets = new int[range.getNumberOfKeyGroups() + 1];
        int n = 0;
        for (KeyGroupStatePartitionStreamProvider provider : context.getRawKeyedStateInputs()) {
            if (n == range.getNumberOfKeyGroups()) {
                throw new IllegalStateException(
                        "StreamFusion " + name + ": more key-group sections than the "
                                + range.getNumberOfKeyGroups() + " key groups of " + range);
            }
            try (InputStream in = provider.getStream()) {
                // Flink's stream runs on past the section: it is length-prefixed.
                DataInputStream input = new DataInputStream(in);
                int length = input.readInt();
                byte[] section = new byte[length];
                input.readFully(section);
                sections.write(section);
            } catch (IOException e) {
                throw new IOException(
                        "StreamFusion " + name + ": cannot read the raw keyed state of key group "
                                + provider.getKeyGroupId(), e);
            }
            sectionOffsets[++n] = sections.size();
        }
        if (n == 0) {
            throw new IllegalStateException(
                    "StreamFusion " + name + " is restored from a checkpoint or savepoint that"
                            + " holds no StreamFusion state for it: a savepoint taken with"
                            + " streamfusion.enabled = false cannot be restored with it on (the"
                            + " state layouts differ); restore it with StreamFusion off, or start"
                            + " the job without it");
        }
        operator =
                NativeOperator.restoreFromKeyGroups(
                        plan,
                        runtime,
                        sections.toByteArray(),
                        Arrays.copyOf(sectionOffsets, n + 1));
        SECTIONS_RESTORED.addAndGet(n);
    }

    /**
     * The runtime settings of a keyed operator: backend, directory, key groups, the job's max
     * parallelism as the task runs it (the plan was made before Flink settled it), and on a
     * restore the lowest watermark of every old subtask, when they kept one.
     */
    private String runtimeSettings(
            KeyGroupRange range, int maxParallelism, Long restoredWatermark) throws IOException {
        String backendClass = getKeyedStateBackend().getClass().getName();
        String backend = backendClass.contains("Heap") ? "memory" : "rocksdb";
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        // The task's local directories, as Flink's RocksDB backend uses them.
        File[] dirs = getContainingTask().getEnvironment().getIOManager().getSpillingDirectories();
        File base = dirs[Math.floorMod(subtask, dirs.length)];
        workingDir =
                Files.createDirectories(
                        new File(base, "streamfusion-" + getOperatorID() + "-" + subtask + "-"
                                + UUID.randomUUID()).toPath());
        ObjectNode json = MAPPER.createObjectNode();
        json.put("backend", backend);
        json.put("working_dir", workingDir.toString());
        json.putArray("key_groups").add(range.getStartKeyGroup()).add(range.getEndKeyGroup());
        json.put("max_parallelism", maxParallelism);
        if (restoredWatermark != null) {
            json.put("restored_watermark", restoredWatermark.longValue());
        }
        long budget = reserveManagedMemory();
        if (budget > 0) {
            json.put("memory_budget_bytes", budget);
        }
        return MAPPER.writeValueAsString(json);
    }

    /**
     * Reserves the operator's share of the slot's managed memory (what its transformation
     * declared; none when it declared none) in the task's memory manager: the bytes reserved.
     */
    private long reserveManagedMemory() throws IOException {
        Environment env = getContainingTask().getEnvironment();
        double fraction =
                getOperatorConfig()
                        .getManagedMemoryFractionOperatorUseCaseOfSlot(
                                ManagedMemoryUseCase.OPERATOR,
                                env.getJobConfiguration(),
                                env.getTaskManagerInfo().getConfiguration(),
                                env.getUserCodeClassLoader().asClassLoader());
        if (fraction <= 0) {
            return 0;
        }
        MemoryManager memory = env.getMemoryManager();
        long bytes = memory.computeMemorySize(fraction);
        try {
            memory.reserveMemory(this, bytes);
        } catch (MemoryReservationException e) {
            throw new IOException(
                    "StreamFusion " + name + ": cannot reserve its " + bytes + " bytes of managed"
                            + " memory (" + memory.availableMemory() + " of "
                            + memory.getMemorySize() + " free)",
                    e);
        }
        reservedBytes = bytes;
        MANAGED_BYTES_PEAK.accumulateAndGet(MANAGED_BYTES_HELD.addAndGet(bytes), Math::max);
        return bytes;
    }

    @Override
    public void open() throws Exception {
        super.open();
        serializers = new RowDataSerializer[inputTypes.length];
        for (int i = 0; i < inputTypes.length; i++) {
            serializers[i] = new RowDataSerializer(inputTypes[i]);
        }
        bundles = new Bundle[independentInputs() ? inputTypes.length : 1];
        for (int i = 0; i < bundles.length; i++) {
            bundles[i] = new Bundle(bundleRows);
        }
        out = new StreamRecord<>(null);
        scheduledTimer = NativeOperator.NO_TIMER;
        if (upcalls != null && upcalls.size() > 0) {
            upcallRunner =
                    upcalls.open(getRuntimeContext(), getRuntimeContext().getUserCodeClassLoader());
            operator.bindUpcalls(upcallRunner);
        }
        // A restored operator's timers are in its native state.
        scheduleProcessingTimer();
    }

    /**
     * Schedules a callback at the native operator's earliest processing-time timer, unless
     * one as early is scheduled already (a later callback left scheduled fires nothing).
     */
    private void scheduleProcessingTimer() {
        if (!processingTime) {
            return;
        }
        long next = operator.nextProcessingTimer();
        if (next == NativeOperator.NO_TIMER
                || (scheduledTimer != NativeOperator.NO_TIMER && scheduledTimer <= next)) {
            return;
        }
        scheduledTimer = next;
        getProcessingTimeService().registerTimer(next, this::onProcessingTime);
    }

    /** Processing time reached {@code time}: the buffered rows first, then the native timers. */
    private void onProcessingTime(long time) {
        if (time >= scheduledTimer) {
            scheduledTimer = NativeOperator.NO_TIMER;
        }
        pushBundle();
        emit(operator.onProcessingTime(time));
        scheduleProcessingTimer();
    }

    /**
     * Whether each input's rows may be bundled apart, so that the native operator sees each
     * input's rows between two watermarks in order but all of one bundle before the other's.
     * A window join emits nothing when rows arrive, so the order between its inputs does not
     * matter; nor does a temporal join's ({@code "temporal_join"}), which only stores a row when
     * it arrives and emits only when a watermark fires its timers, so the rows of its two inputs
     * between two watermarks commute. An interval join's does (a row joins the other input's
     * rows cached before it), but only as the network's order does: Flink's task takes its two
     * inputs in whatever order their buffers arrive, and a bundle apart is one such order,
     * every row on the same side of every watermark (decision 0048). Rows of the two inputs
     * alternating one by one would otherwise make a JNI call per row. A regular join keeps the
     * task's order: its updating inputs' retractions must meet the rows they retract as they
     * did in Flink. So does a processing-time temporal join ({@code "proctime_temporal_join"}):
     * a left row meets the right row its key holds when it arrives.
     */
    private boolean independentInputs() throws IOException {
        String operator = MAPPER.readTree(plan).path("operator").asText();
        return inputTypes.length == 2
                && ("window_join".equals(operator)
                        || "interval_join".equals(operator)
                        || "temporal_join".equals(operator));
    }

    /** Rows of one input buffered as {@code BinaryRowData} bytes. */
    private static final class Bundle {
        byte[] data = new byte[64 * 1024];
        int bytes;
        final int[] offsets;
        int rows;
        long converted;

        Bundle(int bundleRows) {
            offsets = new int[bundleRows + 1];
        }
    }

    /** Buffers {@code row}, arrived on input {@code input}. */
    final void add(int input, RowData row) {
        Bundle bundle;
        if (bundles.length == 1) {
            bundle = bundles[0];
            if (bundle.rows > 0 && input != port) {
                pushBundle();
            }
            port = input;
        } else {
            bundle = bundles[input];
        }
        if (bundle.rows == 0 && bundleLatencyMs > 0 && !timerPending) {
            timerPending = true;
            long now = getProcessingTimeService().getCurrentProcessingTime();
            getProcessingTimeService().registerTimer(now + bundleLatencyMs, time -> {
                timerPending = false;
                pushBundle();
            });
        }
        BinaryRowData binary;
        if (row instanceof BinaryRowData) {
            binary = (BinaryRowData) row;
        } else {
            // Reused by the serializer: copied out below before the next row.
            binary = serializers[input].toBinaryRow(row);
            bundle.converted++;
        }
        int size = binary.getSizeInBytes();
        if (bundle.rows > 0 && size > MAX_BUNDLE_BYTES - bundle.bytes) {
            // Offsets are ints: wide rows make smaller bundles rather than overflow them.
            push(bundle, input);
        }
        if (bundle.data.length - bundle.bytes < size) {
            bundle.data = Arrays.copyOf(bundle.data, (int) Math.min(
                    Integer.MAX_VALUE - 8,
                    Math.max(2L * bundle.data.length, (long) bundle.bytes + size)));
        }
        BinarySegmentUtils.copyToBytes(
                binary.getSegments(), binary.getOffset(), bundle.data, bundle.bytes, size);
        bundle.bytes += size;
        bundle.offsets[++bundle.rows] = bundle.bytes;
        if (bundle.rows == bundleRows) {
            push(bundle, input);
        }
    }

    /** Pushes every buffered row, input by input. */
    final void pushBundle() {
        if (bundles.length == 1) {
            push(bundles[0], port);
        } else {
            for (int i = 0; i < bundles.length; i++) {
                push(bundles[i], i);
            }
        }
    }

    /** One JNI call for {@code bundle}'s rows of {@code input}; emits what native code returned. */
    private void push(Bundle bundle, int input) {
        int rows = bundle.rows;
        if (rows == 0) {
            return;
        }
        int[] bundleOffsets =
                rows == bundleRows ? bundle.offsets : Arrays.copyOf(bundle.offsets, rows + 1);
        NativeOperator.Rows result = operator.push(input, bundle.data, bundleOffsets);
        BUNDLES.incrementAndGet();
        ROWS_IN.addAndGet(rows);
        CONVERTED_ROWS.addAndGet(bundle.converted);
        bundle.converted = 0;
        bundle.rows = 0;
        bundle.bytes = 0;
        emit(result);
        scheduleProcessingTimer();
    }

    private void emit(NativeOperator.Rows result) {
        int n = result.size();
        if (n == 0) {
            return;
        }
        MemorySegment segment = MemorySegmentFactory.wrap(result.data);
        for (int i = 0; i < n; i++) {
            BinaryRowData row = new BinaryRowData(outputArity);
            row.pointTo(segment, result.offsets[i], result.offsets[i + 1] - result.offsets[i]);
            output.collect(out.replace(row));
        }
        ROWS_OUT.addAndGet(n);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        pushBundle();
        emit(operator.advanceWatermark(mark.getTimestamp()));
        currentWatermark = Math.max(currentWatermark, mark.getTimestamp());
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        pushBundle();
        emit(operator.prepareSnapshot());
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        if (!keyed) {
            return;
        }
        watermarkState.update(List.of(currentWatermark));
        NativeOperator.KeyGroupSections state = operator.snapshotKeyGroups();
        KeyedStateCheckpointOutputStream stream = context.getRawKeyedOperatorStateOutput();
        DataOutputStream output = new DataOutputStream(stream);
        int[] at = state.sections.offsets;
        for (int i = 0; i < state.keyGroups.length; i++) {
            stream.startNewKeyGroup(state.keyGroups[i]);
            output.writeInt(at[i + 1] - at[i]);
            output.write(state.sections.data, at[i], at[i + 1] - at[i]);
            output.flush();
        }
        SECTIONS_WRITTEN.addAndGet(state.keyGroups.length);
    }

    /** Pushes the bundle and emits what the native operator still buffers (end of input). */
    final void flushAll() {
        pushBundle();
        emit(operator.flush());
    }

    @Override
    public void finish() throws Exception {
        flushAll();
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (operator != null) {
                operator.close();
                operator = null;
            }
            if (upcallRunner != null) {
                upcallRunner.close();
                upcallRunner = null;
            }
            if (workingDir != null) {
                deleteRecursively(workingDir);
                workingDir = null;
            }
        } finally {
            if (reservedBytes > 0) {
                getContainingTask().getEnvironment().getMemoryManager()
                        .releaseMemory(this, reservedBytes);
                MANAGED_BYTES_HELD.addAndGet(-reservedBytes);
                reservedBytes = 0;
            }
            super.close();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
