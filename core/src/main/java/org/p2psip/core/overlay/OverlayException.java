package org.p2psip.core.overlay;

/**
 * An overlay request failed: timed out, the connection could not be made or
 * closed under it, or the peer answered with an error.
 */
public class OverlayException extends RuntimeException {

    /**
     * How it failed, so callers can tell a slow peer from a refusing one.
     * {@code BACKED_OFF}: never sent, because as many requests to the peer
     * were already in flight as its window allows ({@link WindowedTransport});
     * it says nothing about the peer's health and may be retried.
     * {@code REFUSED}: the peer's host said nothing listens on its UDP port
     * (ICMP port unreachable; {@link NettyUdpOverlayTransport}): unlike a
     * timeout, proof that the peer's process is gone.
     */
    public enum Reason { TIMEOUT, UNREACHABLE, REMOTE_ERROR, CLOSED, BACKED_OFF, REFUSED }

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
