package org.p2psip.loadtest.bench;

import java.util.function.Supplier;

/**
 * One MESSAGE (RFC 3428) to a registered AOR: the node looks the AOR up
 * in the location service and forwards the request to its contact, the
 * built-in UAS, which answers 200. One location lookup per request, like
 * Kamailio's user-location lookup test. Succeeds on a 2xx.
 */
final class MessageFlow implements Flow {

    private final FlowContext context;
    private final Supplier<String> branches;
    private final String caller;
    private final String callee;
    private final String callId;

    MessageFlow(FlowContext context, Supplier<String> branches, String caller, String callee, String callId) {
        this.context = context;
        this.branches = branches;
        this.caller = caller;
        this.callee = callee;
        this.callId = callId;
    }

    @Override
    public Outgoing start() {
        String branch = branches.get();
        return new Outgoing("MESSAGE", branch, SipRequests.initial(context, "MESSAGE", branch, caller, callee, callId,
                "text/plain", "p2psip bench " + callId), null);
    }

    @Override
    public Step onFinal(SipMessage response) {
        return response.status() >= 200 && response.status() < 300 ? Step.DONE
                : new Step.Failed(Integer.toString(response.status()));
    }
}
