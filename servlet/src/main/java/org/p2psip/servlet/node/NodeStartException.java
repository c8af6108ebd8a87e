package org.p2psip.servlet.node;

/** A node could not start; the message fits on one line and names the cause. */
public final class NodeStartException extends Exception {

    public NodeStartException(String message) {
        super(message);
    }

    public NodeStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
