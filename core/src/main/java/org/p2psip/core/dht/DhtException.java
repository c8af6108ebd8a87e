package org.p2psip.core.dht;

/** A DHT operation or start-up failed; the message is meant for an operator. */
public class DhtException extends RuntimeException {

    public DhtException(String message) {
        super(message);
    }

    public DhtException(String message, Throwable cause) {
        super(message, cause);
    }
}
