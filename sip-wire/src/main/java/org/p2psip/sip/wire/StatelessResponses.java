package org.p2psip.sip.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Responses the balancer sends itself, statelessly (RFC 3261 §8.2.6,
 * §16.3): 503 when no node is up, 483 when Max-Forwards is spent, 482 for
 * a loop. Via, From, Call-ID and CSeq are copied byte for byte (§8.2.6.2);
 * To gets a tag derived from the request, so a retransmitted request gets
 * the identical response and an ACK for it can be recognised.
 */
public final class StatelessResponses {

    private StatelessResponses() {
    }

    /** The response, naming {@code server} in the Server header (the balancer and the node answer with these). */
    public static byte[] build(SipMessage request, int status, String reason, String toTag, String server,
                               String... extraHeaders) {
        byte[] b = request.bytes();
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        ascii(out, "SIP/2.0 " + status + " " + reason + "\r\n");
        for (HeaderSpan via : request.vias()) {
            header(out, "Via", b, via);
        }
        header(out, "From", b, request.from());
        ascii(out, "To: ");
        out.write(b, request.to().valueStart(), request.to().valueEnd() - request.to().valueStart());
        if (request.toTag() == null) {
            ascii(out, ";tag=" + toTag);
        }
        ascii(out, "\r\n");
        header(out, "Call-ID", b, request.callIdHeader());
        header(out, "CSeq", b, request.cseq());
        for (String h : extraHeaders) {
            ascii(out, h + "\r\n");
        }
        ascii(out, "Server: " + server + "\r\nContent-Length: 0\r\n\r\n");
        return out.toByteArray();
    }

    private static void header(ByteArrayOutputStream out, String name, byte[] b, HeaderSpan h) {
        ascii(out, name + ": ");
        out.write(b, h.valueStart(), h.valueEnd() - h.valueStart());
        ascii(out, "\r\n");
    }

    private static void ascii(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }
}
