package org.p2psip.loadtest.bench;

/** A load run that could not start or finish; the message is one line for the user. */
public final class BenchException extends RuntimeException {

    public BenchException(String message) {
        super(message);
    }

    public BenchException(String message, Throwable cause) {
        super(message, cause);
    }
}
