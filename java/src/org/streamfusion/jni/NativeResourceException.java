package org.streamfusion.jni;

/** A native resource ran out: the task's memory budget for operator state. */
public final class NativeResourceException extends NativeException {
    private static final long serialVersionUID = 1L;

    /** An exception with the native {@code message}. */
    public NativeResourceException(String message) {
        super(message);
    }
}
