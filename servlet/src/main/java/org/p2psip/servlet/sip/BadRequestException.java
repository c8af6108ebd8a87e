package org.p2psip.servlet.sip;

/**
 * A request that is syntactically SIP but wrong for this element: answer
 * 400 (or {@link #status()}) with {@link #getMessage()} as the reason
 * phrase, which says what is wrong (RFC 3261 §21.4.1).
 */
public final class BadRequestException extends Exception {

    private final int status;

    public BadRequestException(String reason) {
        this(400, reason);
    }

    public BadRequestException(int status, String reason) {
        super(reason, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
