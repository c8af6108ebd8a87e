package org.p2psip.servlet.stack;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * How much malformed input one node has seen: messages the parser refused
 * and messages that could not be answered at all and were dropped.
 *
 * <p>JAIN-SIP creates parser factories by class name with no arguments, so
 * the parser finds its node's counters through this registry, keyed by the
 * stack name that is unique per node.
 */
public final class InputCounters {

    private static final Map<String, InputCounters> BY_STACK = new ConcurrentHashMap<>();
    private static final InputCounters UNREGISTERED = new InputCounters();

    private final LongAdder dropped = new LongAdder();
    private final LongAdder rejected = new LongAdder();

    /** Creates the counters of the stack named {@code stackName}. */
    public static InputCounters register(String stackName) {
        InputCounters counters = new InputCounters();
        BY_STACK.put(stackName, counters);
        return counters;
    }

    public static void unregister(String stackName) {
        BY_STACK.remove(stackName);
    }

    /** The counters of {@code stackName}; a throw-away set for stacks nobody registered. */
    static InputCounters of(String stackName) {
        return stackName == null ? UNREGISTERED : BY_STACK.getOrDefault(stackName, UNREGISTERED);
    }

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
