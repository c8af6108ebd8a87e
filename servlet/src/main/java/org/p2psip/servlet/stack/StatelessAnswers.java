package org.p2psip.servlet.stack;

import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.StatelessResponses;

/**
 * The node's answers to requests its SIP stack never sees (503 when
 * overloaded, 513 and 400 for what cannot be framed), built from the raw
 * request (RFC 3261 §8.2.6): the To tag is derived from Call-ID and CSeq,
 * so a retransmission gets the identical answer.
 */
final class StatelessAnswers {

    private StatelessAnswers() {
    }

    /** The answer to {@code request}, or null when it has none: a response, or an ACK (§17.1.1.3). */
    static byte[] to(SipMessage request, int status, String reason, String... extraHeaders) {
        if (!request.request() || request.isAck()) {
            return null;
        }
        String tag = "p2psip-" + Integer.toHexString((request.callId() + "/" + request.cseqNumber()).hashCode());
        return StatelessResponses.build(request, status, reason, tag, "p2psip", extraHeaders);
    }
}
