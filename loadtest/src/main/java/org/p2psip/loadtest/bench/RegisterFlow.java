package org.p2psip.loadtest.bench;

import java.util.List;
import java.util.function.Supplier;

/**
 * One REGISTER (RFC 3261 §10.2) of {@code sip:USER@DOMAIN} with a contact
 * at the lane's own address. The Call-ID depends only on the run and the
 * flow's index, so a second pass with a higher CSeq is a refresh of the
 * same binding (§10.2.4), which the registrar orders by Call-ID and CSeq
 * (§10.3 step 7). When the lane authenticates, the REGISTER carries the
 * lane's credentials if it has a nonce, and a 401 is answered once with
 * the next CSeq (§22.2), as a phone does; when the lane honours Retry-After,
 * a 503 is retried with the next CSeq too ({@link #again()}). Succeeds on a 200.
 */
final class RegisterFlow implements Flow {

    private final FlowContext context;
    private final Supplier<String> branches;
    private final String user;
    private final String callId;
    private final String contact;
    private long cseq;
    private boolean answeredChallenge;

    RegisterFlow(FlowContext context, Supplier<String> branches, String user, String callId, long cseq,
                 String contact) {
        this.context = context;
        this.branches = branches;
        this.user = user;
        this.callId = callId;
        this.cseq = cseq;
        this.contact = contact;
    }

    /** The Call-ID of registration {@code index} in run {@code runTag}: the same on every pass. */
    static String callId(String runTag, long index) {
        return runTag + "-reg-" + index;
    }

    @Override
    public Outgoing start() {
        DigestSession digest = context.digest();
        return request(digest != null && digest.ready() ? digest.authorize(user, "REGISTER", context.registrarUri()) : null);
    }

    private Outgoing request(String authorization) {
        String branch = branches.get();
        return new Outgoing("REGISTER", branch,
                SipRequests.register(context, branch, user, callId, cseq, contact, authorization), null);
    }

    @Override
    public Outgoing again() {
        cseq++;
        DigestSession digest = context.digest();
        return request(digest != null && digest.ready() ? digest.authorize(user, "REGISTER", context.registrarUri()) : null);
    }

    @Override
    public Step onFinal(SipMessage response) {
        if (response.status() == 200) {
            return Step.DONE;
        }
        DigestSession digest = context.digest();
        if (response.status() == 401 && digest != null && !answeredChallenge && digest.learn(response.challenges())) {
            answeredChallenge = true;
            cseq++;
            return new Step.Continue(List.of(), request(digest.authorize(user, "REGISTER", context.registrarUri())));
        }
        return new Step.Failed(Integer.toString(response.status()));
    }
}
