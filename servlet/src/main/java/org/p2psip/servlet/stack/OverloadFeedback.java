package org.p2psip.servlet.stack;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server side of RFC 7339 overload control: when the client that sent
 * a request (the cluster's balancer) offered it with a valueless {@code oc}
 * parameter on its Via (§4.1), the node's 503 answers with how much that
 * client should cut (§5.2: {@code oc}, {@code oc-validity},
 * {@code oc-seq}), so the balancer steers that share of new requests to
 * other nodes instead of learning the node's state one 503 at a time.
 */
final class OverloadFeedback {

    /** The valueless {@code oc} in the first Via line: followed by another parameter, a comma or the line's end. */
    private static final Pattern OFFER = Pattern.compile("(?i)^(Via|v)([ \\t]*:[^\\r\\n]*?;[ \\t]*)oc(?=[ \\t]*(;|,|\\r|\\n|$))",
            Pattern.MULTILINE);

    private OverloadFeedback() {
    }

    /**
     * {@code response} with the first Via's {@code oc} offer answered, or
     * unchanged when the first Via line makes none.
     */
    static byte[] answerOffer(byte[] response, int percent, long validityMillis, long sequence) {
        String text = new String(response, StandardCharsets.ISO_8859_1);
        Matcher m = OFFER.matcher(text);
        if (!m.find() || !firstVia(text, m.start())) {
            return response;
        }
        String answer = "oc=" + Math.max(0, Math.min(100, percent)) + ";oc-validity=" + validityMillis
                + ";oc-seq=" + sequence;
        String out = text.substring(0, m.start()) + m.group(1) + m.group(2) + answer + text.substring(m.end());
        return out.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Whether the Via line at {@code at} is the message's first Via line. */
    private static boolean firstVia(String text, int at) {
        Matcher any = Pattern.compile("(?im)^(Via|v)[ \\t]*:").matcher(text);
        return any.find() && any.start() == at;
    }
}
