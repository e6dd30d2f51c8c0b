package org.streamfusion.jni;

/**
 * A StreamFusion operator running in native code ({@code libstreamfusion_jni}, the
 * {@code crates/streamfusion-jni} crate), named by an opaque handle: any native operator
 * (Calc, GROUP BY, the local and global phases of a two-phase GROUP BY) built from its plan.
 *
 * <p>The library is loaded when this class initialises: from the path in the system property
 * {@value #LIBRARY_PATH_PROPERTY} when it is set; else from the resource
 * {@code /native/<os>-<arch>/libstreamfusion_jni.so} ({@code native/linux-x86_64/...}) of the
 * StreamFusion jar, so a Flink distribution needs no {@code LD_LIBRARY_PATH}: it is copied to
 * a temporary file of its own name, loaded, and deleted (a jar carrying libraries for other
 * platforms only is an error naming this one); else, for classes not in such a jar, with
 * {@code System.loadLibrary("streamfusion_jni")} (searching {@code java.library.path}).
 *
 * <p>The plan is JSON naming the operator in {@code "operator"}, its own fields beside it
 * ({@code streamfusion::ops::plan} documents every kind): {@code {"operator": "calc", "input":
 * ["BIGINT", "VARCHAR(2147483647)", "INT"], "calc": {"projection": [{"input": 2}, {"input":
 * 0}], "filter": {"call": {"op": 207, "args": [{"input": 1}]}}}}} ({@code SELECT f2, f0 WHERE
 * f1 IS NOT NULL}), or {@code {"operator": "group_aggregate", "input_names": ["k", "v"],
 * "input_types": ["BIGINT", "INT"], "grouping": [0], "calls": [{"function": "SUM", "arg": 1,
 * "name": "s"}], "input_retracts": false, "generate_update_before": true, "mini_batch_rows":
 * null, "state_ttl_ms": null, "max_parallelism": 128}}.
 *
 * <p>The runtime settings are a second JSON document, {@code null} for the defaults: {@code
 * {"backend": "memory" | "rocksdb", "working_dir": "/path", "key_groups": [first, last]}}.
 * {@code backend} defaults to memory; {@code working_dir} is where a RocksDB store lives (in
 * {@code <working_dir>/db}, which must not exist yet) and stays the caller's, while without
 * it the operator makes a temporary directory that it removes on {@link #close()};
 * {@code key_groups} is the subtask's key-group range, every key group by default.
 *
 * <p>Rows cross the boundary as Flink {@code BinaryRowData} rows back to back in one
 * {@code byte[]} plus {@code rows + 1} {@code int} offsets: row {@code i} is
 * {@code data[offsets[i]..offsets[i + 1])} and its header byte is its row kind; a pushed
 * {@code data} may be longer (a reused buffer), only {@code data[0..offsets[rows])} is read.
 * {@link #push}, {@link #advanceWatermark}, {@link #flush} and {@link #prepareSnapshot} return
 * what the operator emitted as {@code Object[] {byte[] data, int[] offsets}} in that same
 * shape ({@link Rows} wraps it): a mini-batch GROUP BY emits on a watermark, before a snapshot
 * and on flush, not only on push.
 *
 * <p>Checkpoints follow Flink's life cycle: {@link #prepareSnapshot} is
 * {@code prepareSnapshotPreBarrier} (the buffered bundle is applied and emitted), then
 * {@link #snapshot} publishes the checkpoint to a directory that must not exist yet.
 * {@link #restore} builds a new operator from the checkpoint directories of every old subtask
 * whose key groups overlap, and refuses a checkpoint written for another operator, state
 * version or plan with a {@link NativeStateException} naming what differs.
 *
 * <p>Errors arrive as exceptions carrying the native message, by kind: {@link
 * NativePlanException} (a plan or runtime settings that cannot run), {@link
 * NativeDataException} (malformed rows, or a value an expression refuses, as the Flink job
 * would fail), {@link NativeStateException} (checkpoints and state), {@link
 * NativeResourceException} (the memory budget), all subclasses of {@link NativeException},
 * which is thrown as is for an internal engine failure; {@link IllegalArgumentException} for
 * an unknown, closed or forged handle or a null argument; {@link IllegalStateException} for an
 * operator left unusable by an earlier native panic; {@link RuntimeException} for a native
 * panic (which never crashes the JVM) or a JNI failure.
 */
public final class NativeOperator implements AutoCloseable {
    /** What {@link #nextProcessingTimer} returns for an operator without a timer. */
    public static final long NO_TIMER = Long.MIN_VALUE;

    /** System property naming the library file to {@code System.load}. */
    public static final String LIBRARY_PATH_PROPERTY = "streamfusion.jni.path";

    static {
        String path = System.getProperty(LIBRARY_PATH_PROPERTY);
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(java.util.Locale.ROOT);
        // Named as Rust's std::env::consts name them, which is how the xtask names the resource.
        String platform =
                (os.startsWith("linux")
                                ? "linux"
                                : os.startsWith("mac") ? "macos" : os.replaceAll("\\s+", ""))
                        + "-"
                        + (arch.equals("amd64") || arch.equals("x86_64")
                                ? "x86_64"
                                : arch.equals("arm64") ? "aarch64" : arch);
        String resource = "/native/" + platform + "/" + System.mapLibraryName("streamfusion_jni");
        java.net.URL bundled = NativeOperator.class.getResource(resource);
        // The jar this class came from, when it came from one.
        String self = String.valueOf(NativeOperator.class.getResource("NativeOperator.class"));
        String jar = self.startsWith("jar:") && self.contains("!/")
                ? self.substring(0, self.indexOf("!/") + 2)
                : null;
        java.net.URL natives = NativeOperator.class.getResource("/native/");
        if (path != null && !path.isEmpty()) {
            System.load(path);
        } else if (bundled != null) {
            java.nio.file.Path file = null;
            try (java.io.InputStream in = bundled.openStream()) {
                file = java.nio.file.Files.createTempFile("libstreamfusion_jni-", ".so");
                java.nio.file.Files.copy(
                        in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                System.load(file.toString());
            } catch (java.io.IOException e) {
                throw new UnsatisfiedLinkError(
                        "StreamFusion could not extract its native library "
                                + bundled
                                + " to a temporary file: "
                                + e);
            } finally {
                // Once loaded, the library stays mapped without its file: delete it now, so
                // a killed JVM leaves nothing behind; where that fails, at exit.
                if (file != null && !file.toFile().delete()) {
                    file.toFile().deleteOnExit();
                }
            }
        } else if (jar != null && natives != null && natives.toString().startsWith(jar)) {
            throw new UnsatisfiedLinkError(
                    "StreamFusion's jar "
                            + jar
                            + " carries no native library for this platform ("
                            + platform
                            + ", expected the resource "
                            + resource
                            + "); build it on "
                            + platform
                            + " or set -D"
                            + LIBRARY_PATH_PROPERTY
                            + "=/path/to/"
                            + System.mapLibraryName("streamfusion_jni"));
        } else {
            System.loadLibrary("streamfusion_jni");
        }
    }

    /** A new operator for {@code plan} under {@code runtime} settings; returns its handle. */
    public static native long create(String plan, String runtime);

    /**
     * The native plan (JSON, for {@link #create}) of one node of a Flink plan, or a {@link
     * NativePlanException} saying why the node cannot run natively (naming the Flink function
     * or type). {@code nodeJson} is {@code {"node": <the ExecNode as Flink's compiled-plan
     * writer serializes it>, "inputs": [<each input's row type, serialized the same way>]}};
     * {@code configJson} holds the effective values of the table options the node depends on,
     * by Flink key ({@code {"table.local-time-zone": "UTC", "table.exec.legacy-cast-behaviour":
     * "DISABLED"}}), or is {@code null} for Flink's defaults. The
     * {@code streamfusion::flink} module documents what is accepted.
     */
    public static native String planFromFlink(String nodeJson, String configJson);

    /**
     * Pushes rows arriving on {@code input} (0, or 1 for a join's right side); returns the
     * output rows as {@code Object[] {byte[] data, int[] offsets}}.
     */
    public static native Object[] push(long handle, int input, byte[] data, int[] offsets);

    /** Moves the watermark forward (a lower one is ignored); returns what it emitted. */
    public static native Object[] advanceWatermark(long handle, long watermark);

    /**
     * Processing time reached {@code time}: fires the operator's processing-time timers at or
     * before it; returns what they emitted.
     */
    public static native Object[] onProcessingTime(long handle, long time);

    /**
     * When the operator's earliest processing-time timer is due, {@link #NO_TIMER} without
     * any: the time to call {@link #onProcessingTime} at.
     */
    public static native long nextProcessingTimer(long handle);

    /** Applies and emits whatever is buffered (at end of input too). */
    public static native Object[] flush(long handle);

    /** {@code prepareSnapshotPreBarrier}: applies and emits the buffered bundle. */
    public static native Object[] prepareSnapshot(long handle);

    /** Publishes the operator's checkpoint to {@code directory}, which must not exist yet. */
    public static native void snapshot(long handle, String directory);

    /**
     * A new operator for {@code plan} under {@code runtime} settings, restored from the
     * published checkpoint directories; returns its handle.
     */
    public static native long restore(String plan, String runtime, String[] checkpointDirectories);

    /**
     * The operator's state as Flink raw keyed state: {@code Object[] {byte[] data, int[]
     * offsets, int[] keyGroups}}, section {@code i} being {@code data[offsets[i]..offsets[i +
     * 1])} of key group {@code keyGroups[i]}: one per key group the operator owns, none for an
     * operator without keyed state. Call {@link #prepareSnapshot} first.
     */
    public static native Object[] snapshotKeyGroups(long handle);

    /**
     * A new operator for {@code plan} under {@code runtime} settings, restored from the
     * key-group sections a subtask received ({@code data[offsets[i]..offsets[i + 1])}); returns
     * its handle. Sections that are not StreamFusion's, were written for another plan, or do
     * not cover the runtime's key groups once each are a {@link NativeStateException}.
     */
    public static native long restoreKeyGroups(
            String plan, String runtime, byte[] data, int[] offsets);

    /**
     * Binds {@code upcalls} as the evaluator of the operator's upcalls (the calls of a native
     * Calc that Flink's own code evaluates); an operator without upcalls ignores it.
     */
    public static native void bindUpcalls(long handle, Upcalls upcalls);

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

    /** Opens an operator for {@code plan} with the default runtime settings. */
    public static NativeOperator open(String plan) {
        return open(plan, null);
    }

    /** Opens an operator for {@code plan} under {@code runtime} settings. */
    public static NativeOperator open(String plan, String runtime) {
        return new NativeOperator(create(plan, runtime));
    }

    /** Opens an operator for {@code plan} restored from published checkpoint directories. */
    public static NativeOperator restoreFrom(String plan, String runtime, String... checkpointDirectories) {
        return new NativeOperator(restore(plan, runtime, checkpointDirectories));
    }

    /** Opens an operator for {@code plan} restored from key-group sections. */
    public static NativeOperator restoreFromKeyGroups(
            String plan, String runtime, byte[] data, int[] offsets) {
        return new NativeOperator(restoreKeyGroups(plan, runtime, data, offsets));
    }

    /** Key-group sections: section {@code i} is row {@code i} of {@code sections}. */
    public static final class KeyGroupSections {
        /** The sections, as rows. */
        public final Rows sections;
        /** Each section's key group. */
        public final int[] keyGroups;

        KeyGroupSections(Object[] result) {
            this.sections = new Rows((byte[]) result[0], (int[]) result[1]);
            this.keyGroups = (int[]) result[2];
        }
    }

    /** The operator's state as one section per key group it owns. */
    public KeyGroupSections snapshotKeyGroups() {
        return new KeyGroupSections(snapshotKeyGroups(handle));
    }

    /** The native handle. */
    public long handle() {
        return handle;
    }

    /** Pushes rows on input 0 and returns the output rows. */
    public Rows push(byte[] data, int[] offsets) {
        return push(0, data, offsets);
    }

    /** Pushes rows on {@code input} and returns the output rows. */
    public Rows push(int input, byte[] data, int[] offsets) {
        return Rows.of(push(handle, input, data, offsets));
    }

    /** Moves the watermark forward and returns what it emitted. */
    public Rows advanceWatermark(long watermark) {
        return Rows.of(advanceWatermark(handle, watermark));
    }

    /** Fires the processing-time timers at or before {@code time}; returns what they emitted. */
    public Rows onProcessingTime(long time) {
        return Rows.of(onProcessingTime(handle, time));
    }

    /** When the earliest processing-time timer is due, {@link #NO_TIMER} without any. */
    public long nextProcessingTimer() {
        return nextProcessingTimer(handle);
    }

    /** Applies and emits whatever is buffered. */
    public Rows flush() {
        return Rows.of(flush(handle));
    }

    /** Applies and emits the buffered bundle before a checkpoint barrier. */
    public Rows prepareSnapshot() {
        return Rows.of(prepareSnapshot(handle));
    }

    /** Publishes the operator's checkpoint to {@code directory}. */
    public void snapshot(String directory) {
        snapshot(handle, directory);
    }

    /** Binds the evaluator of the operator's upcalls. */
    public void bindUpcalls(Upcalls upcalls) {
        bindUpcalls(handle, upcalls);
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
