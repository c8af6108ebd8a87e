package org.p2psip.loadtest.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes the requests of the scenarios (RFC 3261 §8.1.1: Request-URI, To,
 * From with a tag, Call-ID, CSeq, Max-Forwards, Via with a branch starting
 * with the magic cookie {@code z9hG4bK}, Contact where a dialog may be
 * created).
 */
final class SipRequests {

    static final String USER_AGENT = "p2psip-bench";

    private SipRequests() {
    }

    /**
     * A REGISTER binding {@code sip:user@domain} to {@code sip:user@CONTACT} (§10.2).
     *
     * @param contact       host:port and any URI parameters of the contact
     * @param authorization the Authorization value (§22.2), or null
     */
    static byte[] register(FlowContext c, String branch, String user, String callId, long cseq, String contact,
                           String authorization) {
        StringBuilder b = new StringBuilder(420);
        b.append("REGISTER sip:").append(c.domain()).append(" SIP/2.0\r\n");
        via(b, c, branch);
        b.append("Max-Forwards: 70\r\n");
        b.append("From: <sip:").append(user).append('@').append(c.domain()).append(">;tag=").append(tag(c, callId)).append("\r\n");
        b.append("To: <sip:").append(user).append('@').append(c.domain()).append(">\r\n");
        b.append("Call-ID: ").append(callId).append("\r\n");
        b.append("CSeq: ").append(cseq).append(" REGISTER\r\n");
        b.append("Contact: <sip:").append(user).append('@').append(contact).append(">\r\n");
        b.append("Expires: ").append(c.expires()).append("\r\n");
        if (authorization != null) {
            b.append("Authorization: ").append(authorization).append("\r\n");
        }
        b.append("User-Agent: ").append(USER_AGENT).append("\r\n");
        b.append("Content-Length: 0\r\n\r\n");
        return bytes(b);
    }

    /**
     * An out-of-dialog request from {@code caller} to {@code sip:callee@domain} (INVITE, MESSAGE).
     *
     * @param proxyAuthorization the Proxy-Authorization value (§22.3), or null
     */
    static byte[] initial(FlowContext c, String method, String branch, String caller, String callee, String callId,
                          long cseq, String proxyAuthorization, String contentType, String body) {
        StringBuilder b = new StringBuilder(480);
        b.append(method).append(" sip:").append(callee).append('@').append(c.domain()).append(" SIP/2.0\r\n");
        via(b, c, branch);
        b.append("Max-Forwards: 70\r\n");
        b.append("From: <sip:").append(caller).append('@').append(c.domain()).append(">;tag=").append(tag(c, callId)).append("\r\n");
        b.append("To: <sip:").append(callee).append('@').append(c.domain()).append(">\r\n");
        b.append("Call-ID: ").append(callId).append("\r\n");
        b.append("CSeq: ").append(cseq).append(' ').append(method).append("\r\n");
        if (proxyAuthorization != null) {
            b.append("Proxy-Authorization: ").append(proxyAuthorization).append("\r\n");
        }
        if ("INVITE".equals(method)) {
            b.append("Contact: <sip:").append(caller).append('@').append(c.sentBy()).append(c.uriTransport()).append(">\r\n");
        }
        b.append("User-Agent: ").append(USER_AGENT).append("\r\n");
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (content.length > 0) {
            b.append("Content-Type: ").append(contentType).append("\r\n");
        }
        b.append("Content-Length: ").append(content.length).append("\r\n\r\n");
        if (content.length > 0) {
            b.append(body);
        }
        return bytes(b);
    }

    /**
     * A request inside the dialog an INVITE created (ACK for the 2xx, BYE):
     * Request-URI is the remote target, Route the route set (§12.2.1.1).
     *
     * @param from the From value of the INVITE (with its tag)
     * @param to   the To value of the 2xx (with the UAS's tag)
     */
    static byte[] inDialog(FlowContext c, String method, String branch, String remoteTarget, List<String> routeSet,
                           String from, String to, String callId, long cseq) {
        StringBuilder b = new StringBuilder(420);
        b.append(method).append(' ').append(remoteTarget).append(" SIP/2.0\r\n");
        via(b, c, branch);
        b.append("Max-Forwards: 70\r\n");
        for (String route : routeSet) {
            b.append("Route: ").append(route).append("\r\n");
        }
        b.append("From: ").append(from).append("\r\n");
        b.append("To: ").append(to).append("\r\n");
        b.append("Call-ID: ").append(callId).append("\r\n");
        b.append("CSeq: ").append(cseq).append(' ').append(method).append("\r\n");
        b.append("User-Agent: ").append(USER_AGENT).append("\r\n");
        b.append("Content-Length: 0\r\n\r\n");
        return bytes(b);
    }

    /**
     * The ACK a client INVITE transaction sends for a 300–699 response
     * (§17.1.1.3): the INVITE's Request-URI and top Via (same branch), its
     * From and Call-ID, the response's To, CSeq with method ACK.
     */
    static byte[] ackForFailure(FlowContext c, String branch, String requestUri, String from, SipMessage response) {
        StringBuilder b = new StringBuilder(360);
        b.append("ACK ").append(requestUri).append(" SIP/2.0\r\n");
        via(b, c, branch);
        b.append("Max-Forwards: 70\r\n");
        b.append("From: ").append(from).append("\r\n");
        b.append("To: ").append(response.to()).append("\r\n");
        b.append("Call-ID: ").append(response.callId()).append("\r\n");
        b.append("CSeq: ").append(response.cseq()).append(" ACK\r\n");
        b.append("Content-Length: 0\r\n\r\n");
        return bytes(b);
    }

    /** The From tag of a flow: fixed per Call-ID so that a refresh keeps it. */
    static String tag(FlowContext c, String callId) {
        return Integer.toHexString(callId.hashCode()) + c.lane();
    }

    private static void via(StringBuilder b, FlowContext c, String branch) {
        b.append("Via: SIP/2.0/").append(c.transport()).append(' ').append(c.sentBy())
                .append(";branch=").append(branch).append(";rport\r\n");
    }

    private static byte[] bytes(StringBuilder b) {
        // Headers are ASCII; a body given as UTF-8 text is written byte for byte.
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }
}
