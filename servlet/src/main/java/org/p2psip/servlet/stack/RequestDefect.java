package org.p2psip.servlet.stack;

import java.util.List;

/**
 * Marks a request that parsed but must be refused before any processing,
 * attached as the message's application data by {@link ScreeningParser}:
 * a missing From, To or Call-ID (RFC 3261 §8.1.1; the parser filled them
 * with placeholders only so that JAIN-SIP passes the request on instead of
 * discarding it silently), or a SIP version other than 2.0 (§8.2.4 ... 505).
 *
 * @param status        the response status, 400 or 505
 * @param reason        the reason phrase saying what is wrong
 * @param placeholders  headers that were filled in by the parser and must not go out in the answer
 */
public record RequestDefect(int status, String reason, List<String> placeholders) {

    public RequestDefect {
        placeholders = List.copyOf(placeholders);
    }
}
