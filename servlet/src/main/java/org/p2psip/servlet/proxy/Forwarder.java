package org.p2psip.servlet.proxy;

import java.text.ParseException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

import javax.sip.ClientTransaction;
import javax.sip.InvalidArgumentException;
import javax.sip.SipException;
import javax.sip.address.Address;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.CallIdHeader;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.RecordRouteHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;

import org.p2psip.core.auth.DialogTokens;
import org.p2psip.servlet.sip.SelfAddress;
import org.p2psip.servlet.sip.SipEndpoint;

/**
 * Makes and sends the copy of a request for one target (RFC 3261 §16.6):
 * new Request-URI, Max-Forwards decremented, Record-Route with {@code lr}
 * so the rest of the dialog comes back through the cluster (through its
 * balancer, when it has one: {@link RecordRoutes}), Path values pushed as
 * Route, and this node's Via on top. The Record-Route carries a
 * {@link DialogTokens} token for the Call-ID, by which any node of the
 * cluster knows the dialog's later requests as ones it accepted.
 */
final class Forwarder {

    static final int DEFAULT_MAX_FORWARDS = 70;
    /** The Record-Route URI parameter holding the dialog token. */
    static final String TOKEN_PARAM = "dt";

    private final SipEndpoint sip;
    private final LoopDetection loops;
    private final DialogTokens tokens;
    private final RecordRoutes recordRoutes;
    private final LongAdder sent;

    Forwarder(SipEndpoint sip, LoopDetection loops, DialogTokens tokens, RecordRoutes recordRoutes, LongAdder sent) {
        this.sip = sip;
        this.loops = loops;
        this.tokens = tokens;
        this.recordRoutes = recordRoutes;
        this.sent = sent;
    }

    /**
     * The forwarded copy of {@code received} (whose Route set was already
     * processed, §16.4) towards {@code target}.
     *
     * @param original      the request as it arrived, which the branch hash is computed from
     * @param recordRoute   whether to insert a Record-Route (dialog-creating requests)
     * @param inboundTransport the transport the request's sender used to reach the cluster
     */
    Request copyFor(Request original, Request received, Target target, boolean recordRoute, String inboundTransport)
            throws ParseException, InvalidArgumentException, SipException {
        return copyFor(received, target, recordRoute, inboundTransport, loops.branch(original));
    }

    /**
     * The copy of {@code received} that {@link #sendStatelessly} forwards
     * towards {@code target}: its Via branch is a function of the request as
     * it arrived ({@link LoopDetection#statelessBranch}), so a retransmission
     * leaves exactly as the original did (RFC 3261 §16.11).
     */
    Request statelessCopyFor(Request original, Request received, Target target)
            throws ParseException, InvalidArgumentException, SipException {
        return copyFor(received, target, false, null, loops.statelessBranch(original));
    }

    private Request copyFor(Request received, Target target, boolean recordRoute, String inboundTransport,
                            String branch) throws ParseException, InvalidArgumentException, SipException {
        Request copy = (Request) received.clone();
        copy.setRequestURI((URI) target.uri().clone());
        MaxForwardsHeader mf = (MaxForwardsHeader) copy.getHeader(MaxForwardsHeader.NAME);
        if (mf == null) {
            copy.setHeader(sip.headers().createMaxForwardsHeader(DEFAULT_MAX_FORWARDS));
        } else {
            mf.decrementMaxForwards();
        }
        List<String> path = target.path();
        for (int i = path.size() - 1; i >= 0; i--) {
            Address a = sip.addresses().createAddress(path.get(i));
            copy.addFirst(sip.headers().createRouteHeader(a));
        }
        if (recordRoute) {
            CallIdHeader callId = (CallIdHeader) received.getHeader(CallIdHeader.NAME);
            String token = tokens.token(callId == null ? "" : callId.getCallId());
            RecordRoutes.Hop towardsSender = recordRoutes.facing(inboundTransport);
            RecordRoutes.Hop towardsTarget = recordRoutes.facing(nextHopTransport(copy));
            copy.addFirst(recordRoute(towardsSender, token));
            if (!towardsTarget.equals(towardsSender)) {
                // RFC 5658 §3.3: the top value faces the target, the one below it the sender.
                copy.addFirst(recordRoute(towardsTarget, token));
            }
        }
        if (recordRoutes.front() && path.isEmpty() && copy.getHeader(RouteHeader.NAME) == null
                && "UDP".equals(nextHopTransport(copy)) && numericHost(target.uri())) {
            copy.addFirst(sip.headers().createRouteHeader(sip.addresses().createAddress(proxyUri(recordRoutes.plain()))));
        }
        ViaHeader via = sip.headers().createViaHeader(sip.self().uriHost(), sip.self().port(),
                nextHopTransport(copy), branch);
        via.setRPort();
        copy.addFirst(via);
        return copy;
    }

    /** Sends {@code copy} in a new client transaction tied to {@code context}. */
    ClientTransaction send(Request copy, Object context) throws SipException {
        ClientTransaction ct = sip.provider().getNewClientTransaction(copy);
        ct.setApplicationData(context);
        ct.sendRequest();
        sent.increment();
        return ct;
    }

    /** Sends {@code copy} without a transaction (ACK for 2xx, §16.11 allows stateless forwarding). */
    void sendStatelessly(Request copy) throws SipException {
        sip.provider().sendRequest(copy);
        sent.increment();
    }

    private RecordRouteHeader recordRoute(RecordRoutes.Hop hop, String token) throws ParseException {
        SipURI uri = proxyUri(hop.address());
        uri.setParameter(TOKEN_PARAM, token);
        if (hop.transport() != null) {
            uri.setTransportParam(hop.transport());
        }
        return sip.headers().createRecordRouteHeader(sip.addresses().createAddress(uri));
    }

    /** {@code sip:HOST:PORT;lr}: a proxy's URI, as Route and Record-Route name one. */
    private SipURI proxyUri(SelfAddress address) throws ParseException {
        SipURI uri = sip.addresses().createSipURI(null, address.uriHost());
        uri.setPort(address.port());
        uri.setLrParam();
        return uri;
    }

    /** Whether the target names an IP address, which the balancer reaches without a DNS lookup. */
    private static boolean numericHost(URI uri) {
        if (!(uri instanceof SipURI sip) || sip.isSecure() || sip.getHost() == null) {
            return false;
        }
        String h = sip.getHost();
        return h.startsWith("[") || h.indexOf(':') >= 0 || (!h.isEmpty() && h.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.'));
    }

    /** The transport JAIN-SIP's router will pick: the top Route's, else the Request-URI's (RFC 3263 without DNS). */
    static String nextHopTransport(Request r) {
        RouteHeader route = (RouteHeader) r.getHeader(RouteHeader.NAME);
        URI hop = route != null ? route.getAddress().getURI() : r.getRequestURI();
        if (hop instanceof SipURI sip) {
            String t = sip.getTransportParam();
            if (t != null && !t.isEmpty()) {
                return t.toUpperCase(Locale.ROOT);
            }
            if (sip.isSecure()) {
                return "TCP";
            }
        }
        return "UDP";
    }
}
