package org.streamfusion.jni;

/**
 * Pushed rows cannot be processed: malformed {@code BinaryRowData} bytes or offsets, or a
 * value an expression or aggregate refuses (such as an integer division by zero), where the
 * Flink job would fail as well.
 */
public final class NativeDataException extends NativeException {
    private static final long serialVersionUID = 1L;

    /** An exception with the native {@code message}. */
    public NativeDataException(String message) {
        super(message);
    }
}
