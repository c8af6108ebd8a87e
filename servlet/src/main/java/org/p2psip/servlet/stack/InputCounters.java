package org.p2psip.servlet.stack;

import java.util.concurrent.atomic.LongAdder;

/**
 * How much malformed input one node has seen: messages the parser refused
 * and messages that could not be answered at all and were dropped. The
 * parser finds them through its node's {@link EdgeGuards}.
 */
public final class InputCounters {

    private final LongAdder dropped = new LongAdder();
    private final LongAdder rejected = new LongAdder();

    /** Messages dropped without an answer because nothing could be answered. */
    public long dropped() {
        return dropped.sum();
    }

    /** Messages the parser refused (answered with 400 by the stack, or dropped). */
    public long rejected() {
        return rejected.sum();
    }

    public void countDropped() {
        dropped.increment();
    }

    void countRejected() {
        rejected.increment();
    }
}
