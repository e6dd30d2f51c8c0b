package org.streamfusion.jni;

/**
 * The plan cannot run natively: it does not parse, names an unknown operator or type, holds
 * an invalid expression, or its runtime settings cannot be used. Thrown when an operator is
 * created or restored, before any row is processed, so the planner can fall back to Flink's
 * own operator.
 */
public final class NativePlanException extends NativeException {
    private static final long serialVersionUID = 1L;

    /** An exception with the native {@code message}. */
    public NativePlanException(String message) {
        super(message);
    }
}
