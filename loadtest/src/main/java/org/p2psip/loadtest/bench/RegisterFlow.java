package org.p2psip.loadtest.bench;

import java.util.function.Supplier;

/**
 * One REGISTER (RFC 3261 §10.2) of {@code sip:USER@DOMAIN} with a contact
 * at the lane's own address. The Call-ID depends only on the run and the
 * AOR, so a second pass with a higher CSeq is a refresh of the same binding
 * (§10.2.4), which the registrar orders by Call-ID and CSeq (§10.3 step 7).
 * Succeeds on a 200.
 */
final class RegisterFlow implements Flow {

    private final FlowContext context;
    private final Supplier<String> branches;
    private final String user;
    private final String callId;
    private final long cseq;
    private final String contact;

    RegisterFlow(FlowContext context, Supplier<String> branches, String user, String callId, long cseq,
                 String contact) {
        this.context = context;
        this.branches = branches;
        this.user = user;
        this.callId = callId;
        this.cseq = cseq;
        this.contact = contact;
    }

    /** The Call-ID of {@code user}'s registration in run {@code runTag}: the same on every pass. */
    static String callId(String runTag, String user) {
        return runTag + "-reg-" + user;
    }

    @Override
    public Outgoing start() {
        String branch = branches.get();
        return new Outgoing("REGISTER", branch,
                SipRequests.register(context, branch, user, callId, cseq, contact), null);
    }

    @Override
    public Step onFinal(SipMessage response) {
        return response.status() == 200 ? Step.DONE : new Step.Failed(Integer.toString(response.status()));
    }
}
