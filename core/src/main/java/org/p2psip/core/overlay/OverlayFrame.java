package org.p2psip.core.overlay;

import java.util.Objects;

/**
 * One overlay message after framing and authentication: whether it asks or
 * answers, the backend's message type, the request id that pairs an answer
 * with its question, and the backend's payload.
 *
 * <p>On the wire (inside the length prefix, before the MAC):
 * {@code magic(1) version(1) kind(1) type(2) requestId(8) payload(..)}.
 */
public record OverlayFrame(Kind kind, int type, long requestId, byte[] payload) {

    /** First byte of every frame; anything else is not ours. */
    public static final byte MAGIC = 0x50;
    /** The layout version; a frame of another version is dropped, not misread. */
    public static final byte VERSION = 1;
    /** Bytes before the payload. */
    public static final int HEADER_BYTES = 1 + 1 + 1 + 2 + 8;

    /** A request expects exactly one RESPONSE or ERROR with its id. */
    public enum Kind {
        REQUEST, RESPONSE, ERROR;

        static Kind ofCode(int code) {
            Kind[] all = values();
            if (code < 0 || code >= all.length) {
                throw new IllegalArgumentException("unknown frame kind " + code);
            }
            return all[code];
        }
    }

    public OverlayFrame {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(payload, "payload");
        if (type < 0 || type > 0xFFFF) {
            throw new IllegalArgumentException("message type " + type + " is outside 0..65535");
        }
    }
}
