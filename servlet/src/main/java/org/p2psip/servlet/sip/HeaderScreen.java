package org.p2psip.servlet.sip;

import java.util.ListIterator;
import java.util.Locale;
import java.util.Set;

import javax.sip.message.Request;

import gov.nist.javax.sip.message.SIPMessage;

/**
 * Finds headers JAIN-SIP could not parse in a request this node must act
 * on. The RI keeps a header whose value fails to parse as "unrecognized"
 * text and carries on as if it were absent, so a REGISTER with a broken
 * Contact would look like a fetch and a broken Max-Forwards like none at
 * all. RFC 3261 §16.3 item 1 only asks a proxy to parse what it uses; these
 * are the headers this node uses.
 */
public final class HeaderScreen {

    private static final Set<String> USED_BY_EVERYONE =
            Set.of("max-forwards", "route", "proxy-require", "cseq", "via", "v", "call-id", "i",
                    "from", "f", "to", "t");
    private static final Set<String> USED_BY_REGISTRAR =
            Set.of("contact", "m", "expires", "path");

    private HeaderScreen() {
    }

    /** @throws BadRequestException naming the first header this node needs but could not parse */
    public static void check(Request request) throws BadRequestException {
        if (!(request instanceof SIPMessage message)) {
            return;
        }
        ListIterator<String> it = message.getUnrecognizedHeaders();
        boolean register = Request.REGISTER.equals(request.getMethod());
        while (it != null && it.hasNext()) {
            String raw = it.next();
            int colon = raw.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = raw.substring(0, colon).trim();
            String key = name.toLowerCase(Locale.ROOT);
            if (USED_BY_EVERYONE.contains(key) || (register && USED_BY_REGISTRAR.contains(key))) {
                throw new BadRequestException("Malformed " + canonical(key, name) + " header");
            }
        }
    }

    private static String canonical(String key, String asWritten) {
        return switch (key) {
            case "m" -> "Contact";
            case "v" -> "Via";
            case "i" -> "Call-ID";
            case "f" -> "From";
            case "t" -> "To";
            default -> asWritten;
        };
    }
}
