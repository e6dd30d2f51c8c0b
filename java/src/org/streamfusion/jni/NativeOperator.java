package org.streamfusion.jni;

/**
 * A StreamFusion operator running in native code ({@code libstreamfusion_jni}, the
 * {@code crates/streamfusion-jni} crate), named by an opaque handle.
 *
 * <p>The library is loaded when this class initialises: from the path in the system property
 * {@value #LIBRARY_PATH_PROPERTY} when it is set, else with
 * {@code System.loadLibrary("streamfusion_jni")} (searching {@code java.library.path}).
 *
 * <p>Rows cross the boundary as Flink {@code BinaryRowData} rows back to back in one
 * {@code byte[]} plus {@code rows + 1} {@code int} offsets: row {@code i} is
 * {@code data[offsets[i]..offsets[i + 1])} and its header byte is its row kind. {@link #push}
 * and {@link #flush} return {@code Object[] {byte[] data, int[] offsets}} in that same shape
 * ({@link Rows} wraps it).
 *
 * <p>Errors arrive as exceptions carrying the native message: {@link IllegalArgumentException}
 * for a bad plan, malformed rows, a bad snapshot or an unknown, closed or forged handle;
 * {@link IllegalStateException} for an operator left unusable by an earlier native panic;
 * {@link RuntimeException} for anything else, including a native panic (which never crashes
 * the JVM).
 *
 * <p>The plan is the input row's Flink types and a Calc program (projections and an optional
 * filter, the expression IR documented in {@code streamfusion::calc::program}), as JSON:
 * {@code {"input": ["BIGINT", "VARCHAR(2147483647)", "INT"], "calc": {"projection":
 * [{"input": 2}, {"input": 0}], "filter": {"call": {"op": 207, "args": [{"input": 1}]}}}}}
 * ({@code SELECT f2, f0 WHERE f1 IS NOT NULL}). Output rows keep their input row's kind. An
 * expression that fails on pushed rows (such as an integer division by zero) throws a
 * {@link RuntimeException} naming the expression, as the Flink job would fail.
 */
public final class NativeOperator implements AutoCloseable {
    /** System property naming the library file to {@code System.load}. */
    public static final String LIBRARY_PATH_PROPERTY = "streamfusion.jni.path";

    static {
        String path = System.getProperty(LIBRARY_PATH_PROPERTY);
        if (path != null && !path.isEmpty()) {
            System.load(path);
        } else {
            System.loadLibrary("streamfusion_jni");
        }
    }

    /** A new operator for {@code plan}; returns its handle. */
    public static native long create(String plan);

    /** Pushes rows; returns the output rows as {@code Object[] {byte[] data, int[] offsets}}. */
    public static native Object[] push(long handle, byte[] data, int[] offsets);

    /** Moves the watermark forward (a lower watermark is ignored). */
    public static native void advanceWatermark(long handle, long watermark);

    /** Emits pending rows, shaped like {@link #push}'s result (none for a stateless plan). */
    public static native Object[] flush(long handle);

    /** The operator's versioned snapshot (plan, watermark, rows processed). */
    public static native byte[] snapshot(long handle);

    /** A new operator restored from {@code snapshot}; returns its handle. */
    public static native long restore(byte[] snapshot);

    /** Releases the operator; the handle is rejected afterwards. */
    public static native void close(long handle);

    /** How many native operators are open in this process. */
    public static native int liveOperators();

    /** Panics in native code with {@code message}: proves a panic becomes an exception. */
    static native void panicForTesting(String message);

    /** Rows as {@code byte[]} plus {@code rows + 1} offsets. */
    public static final class Rows {
        /** The rows back to back. */
        public final byte[] data;
        /** Row {@code i} is {@code data[offsets[i]..offsets[i + 1])}. */
        public final int[] offsets;

        public Rows(byte[] data, int[] offsets) {
            this.data = data;
            this.offsets = offsets;
        }

        /** Wraps a native {@code Object[] {byte[], int[]}} result. */
        public static Rows of(Object[] result) {
            return new Rows((byte[]) result[0], (int[]) result[1]);
        }

        /** The number of rows. */
        public int size() {
            return offsets.length - 1;
        }
    }

    private final long handle;
    private boolean closed;

    private NativeOperator(long handle) {
        this.handle = handle;
    }

    /** Opens an operator for {@code plan}. */
    public static NativeOperator open(String plan) {
        return new NativeOperator(create(plan));
    }

    /** Opens an operator restored from {@code snapshot}. */
    public static NativeOperator restoreFrom(byte[] snapshot) {
        return new NativeOperator(restore(snapshot));
    }

    /** The native handle. */
    public long handle() {
        return handle;
    }

    /** Pushes rows and returns the output rows. */
    public Rows push(byte[] data, int[] offsets) {
        return Rows.of(push(handle, data, offsets));
    }

    /** Moves the watermark forward. */
    public void advanceWatermark(long watermark) {
        advanceWatermark(handle, watermark);
    }

    /** Emits pending rows. */
    public Rows flush() {
        return Rows.of(flush(handle));
    }

    /** The operator's snapshot. */
    public byte[] snapshot() {
        return snapshot(handle);
    }

    /** Releases the native operator (idempotent). */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            close(handle);
        }
    }
}
