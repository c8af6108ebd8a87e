package org.p2psip.servlet.stack;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

import javax.sip.address.Address;

import org.p2psip.core.guard.BadInputLog;
import org.p2psip.core.guard.SourceGuard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import gov.nist.javax.sip.address.AddressFactoryImpl;
import gov.nist.javax.sip.header.HeaderFactoryImpl;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.parser.MessageParser;
import gov.nist.javax.sip.parser.ParseExceptionListener;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.UDPMessageChannel;

/**
 * Wraps JAIN-SIP's stock parser to account for bad input (RFC 3261 §16.3
 * item 1, "reasonable syntax") that the stack would otherwise discard
 * without a trace.
 *
 * <ul>
 *   <li>A message the stock parser refuses is counted as rejected; when the
 *       stack cannot answer it either (see {@link #stackAnswers}) it is
 *       counted as dropped too.</li>
 *   <li>A request that parses but lacks From, To or Call-ID would be dropped
 *       silently by the stack's channel. When its Via and CSeq are intact the
 *       sender can still match a response (§17.1.3 matches on the branch and
 *       the CSeq method), so the missing headers are filled with
 *       placeholders and the request is marked with a {@link RequestDefect};
 *       the node answers it with 400 and nothing else. A request whose
 *       Request-Line is not SIP/2.0 is marked for 505 the same way.</li>
 *   <li>Anything else lacking its Via or CSeq cannot be answered and is
 *       counted as dropped.</li>
 * </ul>
 */
final class ScreeningParser implements MessageParser {

    private static final HeaderFactoryImpl HEADERS = new HeaderFactoryImpl();
    private static final AddressFactoryImpl ADDRESSES = new AddressFactoryImpl();

    private static final Logger LOG = LoggerFactory.getLogger(ScreeningParser.class);
    private static final Pattern IP_LITERAL = Pattern.compile("[0-9.]+|[0-9A-Fa-f:.%a-z]*:[0-9A-Fa-f:.%a-z]*");

    private final MessageParser delegate;
    private final InputCounters counters;
    private final BadInputLog badInput;
    private final SourceGuard sources;

    ScreeningParser(MessageParser delegate, EdgeGuards guards) {
        this.delegate = delegate;
        this.counters = guards.input();
        this.badInput = guards.badInput();
        this.sources = guards.sources();
    }

    @Override
    public SIPMessage parseSIPMessage(byte[] bytes, boolean readBody, boolean strict,
                                      ParseExceptionListener listener) throws ParseException {
        SIPMessage message;
        try {
            message = delegate.parseSIPMessage(bytes, readBody, strict, listener);
        } catch (ParseException e) {
            rejected(bytes, listener, e.getMessage());
            throw new ParseException(ParseErrors.describe(e.getMessage()), e.getErrorOffset());
        } catch (RuntimeException e) {
            // Attacker-chosen bytes that trip the stock parser itself: a parse
            // error like any other, not a stack trace in the log.
            rejected(bytes, listener, e.toString());
            throw new ParseException(ParseErrors.describe(e.getMessage()), 0);
        }
        if (message == null) {
            // Keep-alive CRLFs parse to nothing; they are not errors.
            return null;
        }
        if (message.getTopmostVia() == null || message.getCSeq() == null) {
            counters.countDropped();
            return message;
        }
        if (listener instanceof UDPMessageChannel) {
            answerOverDatagram(message);
        }
        if (message instanceof SIPRequest request) {
            List<String> missing = new ArrayList<>(3);
            try {
                if (request.getFrom() == null) {
                    missing.add("From");
                    request.setHeader(HEADERS.createFromHeader(placeholder(), "placeholder"));
                }
                if (request.getTo() == null) {
                    missing.add("To");
                    request.setHeader(HEADERS.createToHeader(placeholder(), null));
                }
                if (request.getCallId() == null) {
                    missing.add("Call-ID");
                    request.setHeader(HEADERS.createCallIdHeader("placeholder-" + UUID.randomUUID()));
                }
            } catch (ParseException e) {
                counters.countDropped();
                return message;
            }
            if (!missing.isEmpty()) {
                String reason = "Missing " + String.join(", ", missing) + " header" + (missing.size() == 1 ? "" : "s");
                request.setApplicationData(new RequestDefect(400, reason, missing));
            } else if (!isSip20(bytes)) {
                request.setApplicationData(new RequestDefect(505, "Version Not Supported", List.of()));
            }
        } else if (message.getFrom() == null || message.getTo() == null || message.getCallId() == null) {
            counters.countDropped();
        }
        return message;
    }

    private void rejected(byte[] bytes, ParseExceptionListener listener, String why) {
        counters.countRejected();
        if (!stackAnswers(bytes)) {
            counters.countDropped();
        }
        InetAddress source = sourceOf(listener);
        if (source != null) {
            sources.penalize(source, System.nanoTime());
            long suppressed = badInput.admit(source, System.nanoTime());
            if (suppressed >= 0) {
                LOG.warn("malformed message from {} ({}{}): {}", source.getHostAddress(),
                        BadInputLog.excerpt(why, 80),
                        suppressed > 0 ? "; " + suppressed + " more from it since the last line" : "",
                        BadInputLog.excerpt(bytes, bytes.length));
            }
        }
    }

    /**
     * Who sent the message being parsed. The RI sets a UDP channel's peer
     * address before parsing, but its packet source address only after a
     * message parsed, so that one would still name the previous sender and
     * charge an innocent source for an attacker's garbage.
     */
    private static InetAddress sourceOf(ParseExceptionListener listener) {
        if (!(listener instanceof MessageChannel channel)) {
            return null;
        }
        String peer = channel.getPeerAddress();
        if (peer == null || !IP_LITERAL.matcher(peer).matches()) {
            return null;
        }
        try {
            return InetAddress.getByName(peer);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /**
     * A datagram can only be answered with a datagram: a request that came
     * over UDP but names TCP or TLS in its top Via (RFC 4475 unkscm, bext01)
     * would otherwise make the stack try to open a connection back to the
     * sender's UDP port, and the answer would be lost.
     */
    private static void answerOverDatagram(SIPMessage message) {
        Via via = message.getTopmostVia();
        String transport = via.getTransport();
        if (transport != null && !"UDP".equalsIgnoreCase(transport)) {
            try {
                via.setTransport("UDP");
            } catch (ParseException e) {
                // Leave it; the stack will fail to answer and say so.
            }
        }
    }

    /**
     * Whether the Request-Line ends in SIP/2.0. JAIN-SIP's parser does not
     * keep a foreign version (RFC 4475 badvers, "SIP/7.0"), so its own 505
     * check never fires; the raw bytes still say.
     */
    static boolean isSip20(byte[] bytes) {
        int end = 0;
        while (end < bytes.length && bytes[end] != '\r' && bytes[end] != '\n') {
            end++;
        }
        String line = new String(bytes, 0, end, StandardCharsets.ISO_8859_1).trim();
        return line.toUpperCase(Locale.ROOT).endsWith(" SIP/2.0");
    }

    private static Address placeholder() throws ParseException {
        return ADDRESSES.createAddress("sip:placeholder.invalid");
    }

    /**
     * Whether JAIN-SIP answers a message its parser refused: over UDP it
     * sends "400 Bad Request (reason)" for a request other than ACK when it
     * can copy Via, CSeq, Call-ID, From and To from the raw text; otherwise
     * (responses, ACKs, requests missing one of those) it drops the message.
     */
    static boolean stackAnswers(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        if (text.startsWith("SIP/") || text.startsWith("ACK ")) {
            return false;
        }
        Set<String> names = headerNames(text);
        return names.contains("via") && names.contains("cseq") && names.contains("call-id")
                && names.contains("from") && names.contains("to");
    }

    private static Set<String> headerNames(String text) {
        Set<String> names = new HashSet<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon <= 0 || line.charAt(0) == ' ' || line.charAt(0) == '\t') {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            names.add(switch (name) {
                case "v" -> "via";
                case "i" -> "call-id";
                case "f" -> "from";
                case "t" -> "to";
                default -> name;
            });
        }
        return names;
    }
}
