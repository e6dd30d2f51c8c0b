package org.streamfusion.jni;

/**
 * A failure reported by the native engine behind {@link NativeOperator}, carrying the native
 * message.
 *
 * <p>Thrown as is for an internal engine failure (I/O, RocksDB, an Arrow kernel); the
 * subclasses name the kinds a caller reacts to differently: {@link NativePlanException},
 * {@link NativeDataException}, {@link NativeStateException} and
 * {@link NativeResourceException}. The native library throws these classes by name, so each
 * keeps its {@code (String)} constructor.
 */
public class NativeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** An exception with the native {@code message}. */
    public NativeException(String message) {
        super(message);
    }
}
