package org.streamfusion.jni;

/**
 * State or checkpoints cannot be used: a checkpoint directory that is missing, truncated,
 * corrupted or already exists, one written for another operator, state version or plan (the
 * message names what differs), or a snapshot taken while input is still buffered.
 */
public final class NativeStateException extends NativeException {
    private static final long serialVersionUID = 1L;

    /** An exception with the native {@code message}. */
    public NativeStateException(String message) {
        super(message);
    }
}
