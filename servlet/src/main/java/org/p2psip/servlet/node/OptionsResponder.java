package org.p2psip.servlet.node;

import java.net.InetSocketAddress;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import javax.sip.InvalidArgumentException;
import javax.sip.ServerTransaction;
import javax.sip.address.SipURI;
import javax.sip.header.Header;
import javax.sip.header.RequireHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import gov.nist.javax.sip.message.SIPMessage;

import org.p2psip.sip.wire.ClusterHeaders;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.sip.HeaderLists;
import org.p2psip.servlet.sip.SipEndpoint;

/**
 * Answers OPTIONS sent to the node itself (RFC 3261 §11.2): 200 with
 * Allow, Accept and Supported, or 420 when the request requires an
 * extension this node lacks (§8.2.2.3).
 *
 * <p>To the balancer's health probe (an OPTIONS from the address the node
 * record-routes through) the 200 also carries {@value ClusterHeaders#OWNS}:
 * the key ranges this node's DHT owns ({@code KeyRangeSet}'s text form),
 * from which the balancer sends each AOR's requests to its owner. Only to
 * the balancer: a Hazelcast member's ranges run to a couple of kilobytes,
 * which answered to any spoofed OPTIONS would amplify it. With them go the
 * served domains and aliases ({@value ClusterHeaders#DOMAINS},
 * {@value ClusterHeaders#ALIASES}), so that the balancer canonicalises an
 * AOR to the key the registrar files it under ({@code alice@<balancer-ip>}
 * is {@code alice@example.com}).
 *
 * <p>Until the node is ready ({@link NodeReadiness}) every OPTIONS to it is
 * answered {@code 503} with Retry-After (RFC 3261 §21.5.4) and
 * {@value ClusterHeaders#READY}{@code : no}, which the balancer reads as "alive but send
 * nothing yet"; a 503 without it is a node shedding load, which stays in.
 */
final class OptionsResponder {

    static final String ALLOW = "INVITE, ACK, CANCEL, BYE, OPTIONS, REGISTER";
    /** RFC 3327 Path and, behind an edge proxy that keeps the flows, RFC 5626 outbound. */
    static final List<String> SUPPORTED = List.of("path", "outbound");
    /** Seconds a client is asked to wait before it asks a node that is warming up again. */
    static final int WARMING_RETRY_AFTER = 2;


    private final SipEndpoint sip;
    private final Supplier<Optional<KeyRangeSet>> owned;
    private final Optional<InetSocketAddress> balancer;
    private final ServedDomains domains;
    private final NodeReadiness readiness;

    /**
     * @param owned    the DHT's {@code ownedRanges}
     * @param balancer where the balancer's probes come from; empty: the ranges are told to no one
     * @param domains  what the registrar serves, told to the balancer with the ranges
     * @param readiness whether the node is ready for its share of the load
     */
    OptionsResponder(SipEndpoint sip, Supplier<Optional<KeyRangeSet>> owned, Optional<InetSocketAddress> balancer,
                     ServedDomains domains, NodeReadiness readiness) {
        this.readiness = readiness;
        this.sip = sip;
        this.owned = owned;
        this.balancer = balancer;
        this.domains = domains;
    }

    /** Whether an OPTIONS to {@code request}'s Request-URI is for this node rather than a user. */
    boolean isForNode(Request request) {
        if (!(request.getRequestURI() instanceof SipURI uri)) {
            return false;
        }
        return uri.getUser() == null || uri.getUser().isEmpty() || sip.self().isSelf(uri);
    }

    private boolean fromBalancer(Request request) {
        if (balancer.isEmpty() || !(request instanceof SIPMessage m) || m.getRemoteAddress() == null) {
            return false;
        }
        InetSocketAddress b = balancer.get();
        return m.getRemotePort() == b.getPort() && m.getRemoteAddress().equals(b.getAddress());
    }

    void answer(ServerTransaction st, Request request) {
        try {
            List<String> required = new ArrayList<>();
            for (Header h : HeaderLists.of(request, RequireHeader.NAME)) {
                String tag = ((RequireHeader) h).getOptionTag();
                if (SUPPORTED.stream().noneMatch(tag::equalsIgnoreCase)) {
                    required.add(tag);
                }
            }
            if (!required.isEmpty()) {
                Response r = sip.response(Response.BAD_EXTENSION, request, "Bad Extension");
                for (String tag : required) {
                    r.addHeader(sip.headers().createUnsupportedHeader(tag));
                }
                sip.send(st, r);
                return;
            }
            if (!readiness.isReady()) {
                Response warming = sip.response(Response.SERVICE_UNAVAILABLE, request, "Warming Up");
                warming.setHeader(sip.headers().createRetryAfterHeader(WARMING_RETRY_AFTER));
                warming.setHeader(sip.headers().createHeader(ClusterHeaders.READY, "no"));
                sip.send(st, warming);
                return;
            }
            Response ok = sip.response(Response.OK, request, null);
            ok.setHeader(sip.headers().createAllowHeader(ALLOW));
            ok.setHeader(sip.headers().createAcceptHeader("application", "sdp"));
            for (String tag : SUPPORTED) {
                ok.addHeader(sip.headers().createSupportedHeader(tag));
            }
            if (fromBalancer(request)) {
                Optional<KeyRangeSet> ranges = owned.get();
                if (ranges.isPresent()) {
                    ok.setHeader(sip.headers().createHeader(ClusterHeaders.OWNS, ranges.get().format()));
                    ok.setHeader(sip.headers().createHeader(ClusterHeaders.DOMAINS,
                            String.join(",", domains.domains())));
                    if (!domains.aliases().isEmpty()) {
                        ok.setHeader(sip.headers().createHeader(ClusterHeaders.ALIASES, domains.aliases().stream()
                                .map(HostPort::toString).collect(Collectors.joining(","))));
                    }
                }
            }
            sip.send(st, ok);
        } catch (ParseException | InvalidArgumentException e) {
            sip.reply(st, request, Response.SERVER_INTERNAL_ERROR, null);
        }
    }
}
