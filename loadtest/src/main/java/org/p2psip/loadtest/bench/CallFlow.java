package org.p2psip.loadtest.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

/**
 * One basic call through the proxy (RFC 3665 §2.1 without media, the
 * founding paper's call scenario): INVITE, then 100 and 180 (provisional,
 * handled by the transaction), 200; ACK and BYE inside the dialog; 200 to
 * the BYE ends the flow successfully.
 *
 * <p>The dialog follows RFC 3261 §12.1.2: the remote target is the 2xx's
 * Contact, the route set its Record-Route in reverse order, so ACK and BYE
 * pass every proxy that asked to stay in the path; the next hop is the
 * first route, or the remote target when there is none (§12.2.1.1 with
 * loose routing). When the lane authenticates, the INVITE carries the
 * caller's Proxy-Authorization, and a 407 (which the transaction ACKs) is
 * answered once with a new INVITE, CSeq one higher (RFC 3261 §22.3).
 */
final class CallFlow implements Flow {

    private enum Phase { INVITING, BYEING, ENDED }

    private final FlowContext context;
    private final Supplier<String> branches;
    private final String caller;
    private final String callee;
    private final String callId;
    private String inviteUri;
    private String inviteFrom;
    private Outgoing ack;
    private Phase phase = Phase.INVITING;
    private long cseq = 1;
    private boolean answeredChallenge;

    CallFlow(FlowContext context, Supplier<String> branches, String caller, String callee, String callId) {
        this.context = context;
        this.branches = branches;
        this.caller = caller;
        this.callee = callee;
        this.callId = callId;
    }

    @Override
    public Outgoing start() {
        inviteUri = "sip:" + callee + "@" + context.domain();
        inviteFrom = "<sip:" + caller + "@" + context.domain() + ">;tag=" + SipRequests.tag(context, callId);
        DigestSession digest = context.digest();
        return invite(digest != null && digest.ready() ? digest.authorize(caller, "INVITE", inviteUri) : null);
    }

    private Outgoing invite(String proxyAuthorization) {
        String branch = branches.get();
        byte[] invite = SipRequests.initial(context, "INVITE", branch, caller, callee, callId, cseq, proxyAuthorization,
                null, null);
        return new Outgoing("INVITE", branch, invite, null);
    }

    /** The ACK for a 300–699 answer to the INVITE (§17.1.1.3), sent by the transaction, not the dialog. */
    Outgoing ackForFailure(String inviteBranch, SipMessage response) {
        return new Outgoing("ACK", inviteBranch,
                SipRequests.ackForFailure(context, inviteBranch, inviteUri, inviteFrom, response), null);
    }

    @Override
    public Step onFinal(SipMessage response) {
        int status = response.status();
        if (phase == Phase.INVITING) {
            DigestSession digest = context.digest();
            if (status == 407 && digest != null && !answeredChallenge && digest.learn(response.challenges())) {
                answeredChallenge = true;
                cseq++;
                return new Step.Continue(List.of(), invite(digest.authorize(caller, "INVITE", inviteUri)));
            }
            if (status < 200 || status >= 300) {
                phase = Phase.ENDED;
                return new Step.Failed(Integer.toString(status));
            }
            if (response.contactUri() == null || response.toTag() == null) {
                phase = Phase.ENDED;
                return new Step.Failed("2xx without Contact or To tag");
            }
            List<String> routeSet = new ArrayList<>(response.recordRoutes());
            Collections.reverse(routeSet);
            String target = response.contactUri();
            java.net.InetSocketAddress hop = FlowContext.hop(routeSet.isEmpty() ? target : SipMessage.uriOf(routeSet.get(0)));
            String ackBranch = branches.get();
            ack = new Outgoing("ACK", ackBranch, SipRequests.inDialog(context, "ACK", ackBranch, target, routeSet,
                    inviteFrom, response.to(), callId, response.cseq()), hop);
            String byeBranch = branches.get();
            Outgoing bye = new Outgoing("BYE", byeBranch, SipRequests.inDialog(context, "BYE", byeBranch, target,
                    routeSet, inviteFrom, response.to(), callId, response.cseq() + 1), hop);
            phase = Phase.BYEING;
            return new Step.Continue(List.of(ack), bye);
        }
        phase = Phase.ENDED;
        return status >= 200 && status < 300 ? Step.DONE : new Step.Failed("BYE " + status);
    }

    @Override
    public Outgoing ackForRetransmittedTwoXx() {
        return ack;
    }
}
