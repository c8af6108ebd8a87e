package org.p2psip.servlet.lb;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the balancer did with its input, for tests and operators. Dropped
 * messages are counted rather than logged one by one, so garbage on the
 * wire cannot flood the log (RFC 3261 §18.3 lets a UDP element discard
 * what it cannot parse).
 */
public final class BalancerCounters {

    private final LongAdder malformed = new LongAdder();
    private final LongAdder foreignResponses = new LongAdder();
    private final LongAdder requestsForwarded = new LongAdder();
    private final LongAdder responsesForwarded = new LongAdder();
    private final LongAdder answeredLocally = new LongAdder();
    private final LongAdder undeliverable = new LongAdder();
    private final LongAdder streamsClosed = new LongAdder();

    /** Messages dropped because they are not valid SIP. */
    public long malformed() {
        return malformed.sum();
    }

    /** Responses dropped because their top Via is not this balancer's. */
    public long foreignResponses() {
        return foreignResponses.sum();
    }

    public long requestsForwarded() {
        return requestsForwarded.sum();
    }

    public long responsesForwarded() {
        return responsesForwarded.sum();
    }

    /** Requests the balancer answered itself: 503 (no node up), 483, 482. */
    public long answeredLocally() {
        return answeredLocally.sum();
    }

    /** Messages with nowhere to go: ACK with no node up, a TCP client gone, too big for UDP. */
    public long undeliverable() {
        return undeliverable.sum();
    }

    /** TCP connections closed because their stream could not be framed. */
    public long streamsClosed() {
        return streamsClosed.sum();
    }

    void countMalformed() {
        malformed.increment();
    }

    void countForeignResponse() {
        foreignResponses.increment();
    }

    void countRequestForwarded() {
        requestsForwarded.increment();
    }

    void countResponseForwarded() {
        responsesForwarded.increment();
    }

    void countAnsweredLocally() {
        answeredLocally.increment();
    }

    void countUndeliverable() {
        undeliverable.increment();
    }

    void countStreamClosed() {
        streamsClosed.increment();
    }

    @Override
    public String toString() {
        return "forwarded " + requestsForwarded() + " requests, " + responsesForwarded() + " responses; answered "
                + answeredLocally() + "; dropped " + malformed() + " malformed, " + foreignResponses()
                + " foreign responses, " + undeliverable() + " undeliverable; closed " + streamsClosed() + " streams";
    }
}
