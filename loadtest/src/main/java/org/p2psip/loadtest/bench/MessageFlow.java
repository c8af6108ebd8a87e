package org.p2psip.loadtest.bench;

import java.util.List;
import java.util.function.Supplier;

/**
 * One MESSAGE (RFC 3428) to a registered AOR: the node looks the AOR up
 * in the location service and forwards the request to its contact, the
 * built-in UAS, which answers 200. One location lookup per request, like
 * Kamailio's user-location lookup test. When the lane authenticates, the
 * sender proves itself with Proxy-Authorization, answering a 407 once with
 * the next CSeq (RFC 3261 §22.3). Succeeds on a 2xx.
 */
final class MessageFlow implements Flow {

    private final FlowContext context;
    private final Supplier<String> branches;
    private final String caller;
    private final String callee;
    private final String callId;
    private long cseq = 1;
    private boolean answeredChallenge;

    MessageFlow(FlowContext context, Supplier<String> branches, String caller, String callee, String callId) {
        this.context = context;
        this.branches = branches;
        this.caller = caller;
        this.callee = callee;
        this.callId = callId;
    }

    @Override
    public Outgoing start() {
        DigestSession digest = context.digest();
        return request(digest != null && digest.ready() ? digest.authorize(caller, "MESSAGE", uri()) : null);
    }

    private String uri() {
        return "sip:" + callee + "@" + context.domain();
    }

    private Outgoing request(String proxyAuthorization) {
        String branch = branches.get();
        return new Outgoing("MESSAGE", branch, SipRequests.initial(context, "MESSAGE", branch, caller, callee, callId,
                cseq, proxyAuthorization, "text/plain", "p2psip bench " + callId), null);
    }

    @Override
    public Step onFinal(SipMessage response) {
        if (response.status() >= 200 && response.status() < 300) {
            return Step.DONE;
        }
        DigestSession digest = context.digest();
        if (response.status() == 407 && digest != null && !answeredChallenge && digest.learn(response.challenges())) {
            answeredChallenge = true;
            cseq++;
            return new Step.Continue(List.of(), request(digest.authorize(caller, "MESSAGE", uri())));
        }
        return new Step.Failed(Integer.toString(response.status()));
    }
}
