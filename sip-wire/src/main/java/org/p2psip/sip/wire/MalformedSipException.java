package org.p2psip.sip.wire;

/**
 * A message the balancer will not forward because it cannot be read as
 * SIP (RFC 3261 §7, §25); the message says what is wrong.
 */
public final class MalformedSipException extends Exception {

    public MalformedSipException(String message) {
        super(message, null, false, false);
    }
}
