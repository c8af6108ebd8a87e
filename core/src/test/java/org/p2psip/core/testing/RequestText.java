package org.p2psip.core.testing;

import java.util.ArrayList;
import java.util.List;

/** Builds request text for tests: a Request-Line, headers in order, an empty body. */
public final class RequestText {

    private final String method;
    private final String uri;
    private final List<String> headers = new ArrayList<>();

    private RequestText(String method, String uri) {
        this.method = method;
        this.uri = uri;
    }

    public static RequestText request(String method, String uri) {
        return new RequestText(method, uri);
    }

    /**
     * A request with the mandatory headers (RFC 3261 §8.1.1): Via from
     * {@code sentBy} with a fresh branch, From with a tag, To, Call-ID,
     * CSeq, Max-Forwards 70.
     */
    public static RequestText standard(String method, String uri, String sentBy, String from, String to,
                                       String callId, long cseq) {
        return request(method, uri)
                .with("Via: SIP/2.0/UDP " + sentBy + ";branch=" + UdpPeer.branch())
                .with("From: <" + from + ">;tag=" + UdpPeer.tag())
                .with("To: <" + to + ">")
                .with("Call-ID: " + callId)
                .with("CSeq: " + cseq + " " + method)
                .with("Max-Forwards: 70");
    }

    public RequestText with(String header) {
        headers.add(header);
        return this;
    }

    /** Replaces the first header starting with {@code prefix} (e.g. "Via:"). */
    public RequestText replace(String prefix, String header) {
        for (int i = 0; i < headers.size(); i++) {
            if (headers.get(i).regionMatches(true, 0, prefix, 0, prefix.length())) {
                headers.set(i, header);
                return this;
            }
        }
        headers.add(header);
        return this;
    }

    public RequestText without(String prefix) {
        headers.removeIf(h -> h.regionMatches(true, 0, prefix, 0, prefix.length()));
        return this;
    }

    public String text() {
        StringBuilder b = new StringBuilder(method).append(' ').append(uri).append(" SIP/2.0\r\n");
        for (String h : headers) {
            b.append(h).append("\r\n");
        }
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }

    @Override
    public String toString() {
        return text();
    }
}
