package org.p2psip.core.overlay;

/**
 * An overlay request failed: timed out, the connection could not be made or
 * closed under it, or the peer answered with an error.
 */
public class OverlayException extends RuntimeException {

    /** How it failed, so callers can tell a slow peer from a refusing one. */
    public enum Reason { TIMEOUT, UNREACHABLE, REMOTE_ERROR, CLOSED }

    private final Reason reason;

    public OverlayException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public OverlayException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
