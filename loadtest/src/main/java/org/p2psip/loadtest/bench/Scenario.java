package org.p2psip.loadtest.bench;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * The load scenarios. Each measured unit (a "request" in the report) is
 * one flow: a REGISTER transaction, a MESSAGE transaction, or a whole call.
 */
public enum Scenario {

    /** A new binding for a distinct AOR per request: the paper's registration test (150,000 AORs). */
    REGISTER,

    /**
     * A refresh of an existing binding (§10.2.4: same Call-ID, higher
     * CSeq): the AORs are first registered unmeasured, then every one is
     * registered again — Kamailio's "registration update" test.
     */
    REREGISTER,

    /** INVITE, 100, 180, 200, ACK, BYE, 200 through the node to the built-in UAS: the paper's call test. */
    CALL,

    /** One MESSAGE to a registered AOR, answered by the built-in UAS: one location lookup per request. */
    MESSAGE;

    /** The lower-case name used on the command line and in reports. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the scenario needs the built-in UAS with its AORs registered first. */
    public boolean needsUas() {
        return this == CALL || this == MESSAGE;
    }

    /** The measured flow number {@code index}. */
    Flow flow(long index, FlowContext c, Supplier<String> branches) {
        String user = c.user(index);
        return switch (this) {
            case REGISTER -> new RegisterFlow(c, branches, user, RegisterFlow.callId(c.runTag(), index), 1, c.sentBy() + c.uriTransport());
            // The setup pass may have used CSeq 1 and 2 (a challenge answered); the refresh goes above both.
            case REREGISTER -> new RegisterFlow(c, branches, user, RegisterFlow.callId(c.runTag(), index), 3, c.sentBy() + c.uriTransport());
            case CALL -> new CallFlow(c, branches, user, callee(index, c), c.runTag() + "-call-" + index);
            case MESSAGE -> new MessageFlow(c, branches, user, callee(index, c), c.runTag() + "-msg-" + index);
        };
    }

    /** The unmeasured flow that prepares measured flow {@code index}, or null when it needs none. */
    Flow setupFlow(long index, FlowContext c, Supplier<String> branches) {
        if (this != REREGISTER) {
            return null;
        }
        return new RegisterFlow(c, branches, c.user(index), RegisterFlow.callId(c.runTag(), index), 1,
                c.sentBy() + c.uriTransport());
    }

    /**
     * Which of the UAS's AORs request {@code index} goes to: a stride
     * through all of them rather than one after the other, so consecutive
     * lookups hit unrelated keys as in Kamailio's random-order test.
     */
    static String callee(long index, FlowContext c) {
        long k = Math.floorMod(index * 7919L, (long) c.callees());
        return c.calleePrefix() + k;
    }
}
