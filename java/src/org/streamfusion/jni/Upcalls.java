package org.streamfusion.jni;

/**
 * Evaluates a native operator's upcalls: the calls its plan hands back to the JVM (a native
 * Calc's functions without a native kernel, evaluated by Flink's own generated code). Native
 * code calls {@link #evaluate} on the task thread, inside the call that pushed the batch.
 */
public interface Upcalls {
    /**
     * Upcall {@code index} over a batch: argument row {@code i} is the {@code BinaryRowData}
     * {@code data[offsets[i]..offsets[i + 1])}, one field per argument. Returns one
     * single-field {@code BinaryRowData} row per argument row, shaped as {@code Object[]
     * {byte[] data, int[] offsets}} ({@code data} may run past the last offset: native code
     * reads it up to there before the call returns, so a reused buffer serves). An exception
     * fails the batch with its text.
     */
    Object[] evaluate(int index, byte[] data, int[] offsets) throws Exception;
}
