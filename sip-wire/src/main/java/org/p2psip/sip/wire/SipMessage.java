package org.p2psip.sip.wire;

import java.util.List;
import java.util.Objects;

/**
 * What the balancer's minimal parser read from one frame: the start line
 * and the handful of headers needed to route it, as values and as offsets
 * into {@link SipFrame#bytes()} so the router can edit the bytes in place
 * instead of re-serialising the message. Everything else is carried through
 * untouched.
 *
 * @param frame          the bytes and where they came from
 * @param request        true for a request, false for a response
 * @param method         the request method, or the CSeq method of a response
 * @param status         the response status code, or 0 for a request
 * @param requestUri     the Request-URI, or null for a response
 * @param startLineStart offset of the start line (leading CRLFs are skipped, RFC 3261 §7.5)
 * @param startLineEnd   offset just past the start line's line feed, where a new top Via goes
 * @param callId         the Call-ID
 * @param toUri          the To header's URI
 * @param toTag          the To tag, or null outside a dialog
 * @param cseqNumber     the CSeq sequence number
 * @param vias           every Via header line, top first
 * @param topVia         the first via-parm of the first Via header
 * @param from           the From header line
 * @param to             the To header line
 * @param callIdHeader   the Call-ID header line
 * @param cseq           the CSeq header line
 * @param maxForwards    the Max-Forwards header line, or null when absent
 * @param maxForwardsValue its value, or -1 when absent
 * @param topRoute       the first Route entry, or null
 * @param end            offset one past the message: header end plus Content-Length; bytes after it are ignored (§18.3)
 */
public record SipMessage(SipFrame frame, boolean request, String method, int status, String requestUri,
                         int startLineStart, int startLineEnd, String callId, String toUri, String toTag,
                         long cseqNumber, List<HeaderSpan> vias, TopVia topVia, HeaderSpan from, HeaderSpan to,
                         HeaderSpan callIdHeader, HeaderSpan cseq, HeaderSpan maxForwards, int maxForwardsValue,
                         TopRoute topRoute, int end) {

    public SipMessage {
        Objects.requireNonNull(frame, "frame");
        Objects.requireNonNull(method, "method");
        vias = List.copyOf(vias);
    }

    /** The message's bytes. */
    public byte[] bytes() {
        return frame.bytes();
    }

    public boolean isAck() {
        return request && "ACK".equals(method);
    }
}
