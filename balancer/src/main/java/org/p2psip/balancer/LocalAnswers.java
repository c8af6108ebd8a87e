package org.p2psip.balancer;

import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.StatelessResponses;

/**
 * The balancer's own stateless responses (RFC 3261 §8.2.6, §16.3): the To
 * tag is derived from the request's Call-ID and CSeq under this balancer's
 * tag prefix, so a retransmission gets the identical response and the ACK
 * for it is recognised as the balancer's and goes no further.
 */
final class LocalAnswers {

    private final BalancerIdentity self;

    LocalAnswers(BalancerIdentity self) {
        this.self = self;
    }

    BalancerIdentity self() {
        return self;
    }

    /** Whether {@code m} can be answered at all: a request other than ACK (§17.1.1.3: ACK has no response). */
    static boolean answerable(SipMessage m) {
        return m.request() && !m.isAck();
    }

    byte[] build(SipMessage request, int status, String reason, String... extraHeaders) {
        String tag = self.tagPrefix() + Long.toHexString(Fnv.hash(request.callId() + "/" + request.cseqNumber()));
        return StatelessResponses.build(request, status, reason, tag, "p2psip-lb", extraHeaders);
    }
}
