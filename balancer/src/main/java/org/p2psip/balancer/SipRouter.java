package org.p2psip.balancer;

import org.p2psip.sip.wire.HeaderSpan;
import org.p2psip.sip.wire.MessageEdits;
import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.SipParser;
import org.p2psip.sip.wire.TopRoute;
import org.p2psip.sip.wire.TopVia;
import org.p2psip.sip.wire.Transport;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

import org.p2psip.core.guard.RetryAfterSpread;
import org.p2psip.core.net.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;

/**
 * The balancer's forwarding logic, stateless as RFC 3261 §16.11 allows.
 *
 * <p><b>Requests</b> (§16.6, stateless subset): a request carrying one of
 * this balancer's own Via entries has come round again and gets 482 (§16.3
 * item 4) — the balancer never sends a request back to itself; Max-Forwards
 * 0 gets 483 (§16.3 item 3), otherwise it is decremented, or set to 70 when
 * absent (§16.6 item 3); a first Route entry naming the balancer is removed
 * (§16.4), unless a node wrote it: nodes record-route dialogs in the
 * balancer's name with a token ({@code dt}) that only they check, so such
 * an entry goes on to whichever node now carries the dialog; the client's Via gets {@code received} and a filled-in
 * {@code rport} (§18.2.1, RFC 3581); then the balancer's Via goes on top.
 * Its branch is a hash of the incoming branch (or, for an RFC 2543 client
 * without one, of the top Via, Call-ID, CSeq number and Request-URI), so a
 * retransmission, and the CANCEL or non-2xx ACK of an INVITE, leave with the
 * same branch as the original (§16.11). Its {@code lb} parameter records
 * where the response goes ({@link ReturnAddress}). Requests go to the node
 * over UDP whatever transport the client used; a TCP client still gets its
 * responses on its own connection. With no node up and ready the answer is
 * 503 with Retry-After (§21.5.4); an ACK, which has no response, is dropped.
 *
 * <p><b>Flows</b> (RFC 5626 outbound, RFC 3327 Path): the balancer is the
 * edge proxy of clients on TCP and TLS. A REGISTER on a connection gets a
 * Path naming the balancer with a {@link FlowTokens flow token} as its user
 * part, so the binding remembers the connection; a node's request for that
 * binding comes back here by that Path and goes down the same connection,
 * and a dialog it creates is record-routed through the flow, as is a
 * dialog the phone starts on its connection. The phone never has to accept
 * a connection. A flow whose connection is gone gets
 * 430 (Flow Failed, §5.3).
 *
 * <p><b>Responses</b> (§16.7 item 3, §18.2.2): the top Via must be this
 * balancer's, else the response is dropped and counted; it is removed and
 * the response is sent to the address its {@code lb} parameter names.
 *
 * <p><b>Overload</b>: the balancer's Via offers RFC 7339 overload control;
 * an {@code oc} instruction a node returns in it, and a node's 503 with
 * Retry-After, go to {@link NodeLoad}, which steers new requests away from
 * that node. Removing its own Via strips the instruction before the
 * response goes on. A node's 503 to a new non-INVITE request sends the
 * request on to another node while another takes requests
 * ({@link FailoverRequests}: the node refused it before acting on it, RFC
 * 3263 §4.3); any other node's 503 is relayed as 500 then (§16.7 item 6: a
 * 503 upstream would tell the client the whole service is down, and hold it
 * off for Retry-After). When every ready node is holding off or shedding a
 * share, or none is ready, the whole cluster is overloaded and the 503 goes
 * through as it is. A 503 that carries an {@code oc} instruction does not
 * hold its node off: the share it asks for is the finer answer.
 */
@Sharable
public final class SipRouter extends SimpleChannelInboundHandler<SipMessage> {

    private static final Logger LOG = LoggerFactory.getLogger(SipRouter.class);
    /** IPv4 UDP payload limit; anything larger cannot be sent to a node as one datagram. */
    static final int MAX_DATAGRAM = 65_507;
    /** Requests that create a dialog when sent outside one (RFC 3261 §12, RFC 6665, RFC 3515). */
    private static final Set<String> DIALOG_CREATING = Set.of("INVITE", "SUBSCRIBE", "REFER", "NOTIFY");

    private final BalancerIdentity self;
    private final NodeSelector selector;
    private final Egress egress;
    private final BalancerCounters counters;
    private final RetryAfterSpread retryAfter;
    private final Supplier<RandomGenerator> random;
    private final byte[] branchPrefix;
    private final LocalAnswers answers;
    private final NodeSet nodes;
    private final LongSupplier nanoTime;
    private final FlowTokens flows;
    /** New non-INVITE requests awaiting their node's answer, for failover after a 503; null: none kept. */
    private final FailoverRequests failovers;

    public SipRouter(BalancerIdentity self, NodeSelector selector, Egress egress, BalancerCounters counters,
                     int retryAfterSeconds) {
        this(self, selector, null, egress, counters, retryAfterSeconds, System::nanoTime, ThreadLocalRandom::current,
                new FlowTokens());
    }

    /**
     * @param nodes    the nodes, to tell which one sent a response (for its load); null: no load tracking
     * @param retryAfterSeconds the least Retry-After of the balancer's own 503s; each is drawn up to twice that
     *                 ({@link RetryAfterSpread})
     * @param nanoTime the clock load decisions are made by
     * @param random   where those Retry-After values are drawn from, for the calling thread
     * @param flows    the tokens of this balancer's client connections (RFC 5626 flows)
     */
    public SipRouter(BalancerIdentity self, NodeSelector selector, NodeSet nodes, Egress egress,
                     BalancerCounters counters, int retryAfterSeconds, LongSupplier nanoTime,
                     Supplier<RandomGenerator> random, FlowTokens flows) {
        this.self = self;
        this.selector = selector;
        this.nodes = nodes;
        this.egress = egress;
        this.counters = counters;
        this.retryAfter = new RetryAfterSpread(retryAfterSeconds);
        this.random = random;
        this.nanoTime = nanoTime;
        this.flows = flows;
        this.failovers = nodes == null ? null : new FailoverRequests();
        this.branchPrefix = self.branchPrefix().getBytes(StandardCharsets.US_ASCII);
        this.answers = new LocalAnswers(self);
    }

    /** Who this router forwards as. */
    public BalancerIdentity identity() {
        return self;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, SipMessage m) {
        if (m.request()) {
            request(m);
        } else {
            response(m);
        }
    }

    private void request(SipMessage m) {
        boolean outbound = fromNode(m);
        // A node's request out to a UA carries the balancer's Via from its way in: a spiral, not a
        // loop (§16.3 item 4); Max-Forwards and the nodes' own loop detection still bound it.
        if (!outbound && cameRoundAgain(m)) {
            answer(m, 482, "Loop Detected");
            return;
        }
        if (m.isAck() && m.toTag() != null && m.toTag().startsWith(self.tagPrefix())) {
            // Acknowledges a final response the balancer made itself: it ends here (§17.2.1).
            return;
        }
        if (m.maxForwardsValue() == 0) {
            answer(m, 483, "Too Many Hops");
            return;
        }
        List<TopRoute> ownRoutes = ownLeadingRoutes(m);
        if (outbound) {
            for (TopRoute r : ownRoutes) {
                String flowToken = routeUser(r.uri());
                if (!flowToken.isEmpty()) {
                    toFlow(m, flowToken, ownRoutes);
                    return;
                }
            }
        }
        InetSocketAddress destination;
        int nodeIndex = -1;
        if (outbound) {
            Optional<InetSocketAddress> target = outboundTarget(m, ownRoutes);
            if (target.isEmpty()) {
                answer(m, 502, "Bad Gateway");
                return;
            }
            destination = target.get();
        } else {
            Optional<NodeSet.Node> node = selector.choose(m, nanoTime.getAsLong());
            if (node.isEmpty()) {
                answer(m, 503, "Service Unavailable", "Retry-After: " + retryAfter.draw(random.get()));
                return;
            }
            destination = node.get().socket();
            nodeIndex = node.get().index();
        }
        String flowLines = outbound ? "" : flowLines(m);
        String branch = branch(m);
        MessageEdits edits = forwardEdits(m, outbound ? self.viaLine(Transport.UDP, branch, returnAddress(m).token())
                : self.nodeViaLine(branch, returnAddress(m).token()), flowLines, ownRoutes);
        ByteBuf out = edits.toBuffer();
        if (out.readableBytes() > MAX_DATAGRAM) {
            // Fine on TCP, but with the balancer's Via it no longer fits the datagram it must go to the node in.
            out.release();
            counters.countRefusedOversized();
            answer(m, 513, "Message Too Large");
            return;
        }
        if (nodeIndex >= 0) {
            if (failovers != null && FailoverRequests.eligible(m)) {
                failovers.sent(branch, m, nanoTime.getAsLong());
            }
            counters.countRequestForwardedTo(nodeIndex);
            egress.toNode(destination, out);
        } else {
            counters.countRequestForwarded();
            egress.toAgent(destination, out);
        }
    }

    /**
     * The lines a client's request gets for the connection it came on: a
     * REGISTER its Path, a dialog-creating request its Record-Routes;
     * nothing for a datagram.
     */
    private String flowLines(SipMessage m) {
        if (!m.frame().transport().stream()) {
            return "";
        }
        if ("REGISTER".equals(m.method())) {
            return pathLine(m);
        }
        if (m.toTag() == null && DIALOG_CREATING.contains(m.method())) {
            // The phone's dialog comes back to it down this connection too (RFC 5626 §5.3): the top value
            // faces the nodes, the one below the phone (RFC 5658 §3.3).
            return flowRecordRoutes(arrivalFlowToken(m), m.frame().transport(), false);
        }
        return "";
    }

    /**
     * The edits every forwarded request gets: the balancer's Via on top (with
     * {@code extra} header lines after it), Max-Forwards decremented or set,
     * {@code removedRoutes} taken out (§16.4), the client's Via marked with
     * where it came from (§18.2.1).
     */
    private MessageEdits forwardEdits(SipMessage m, byte[] via, String extra, List<TopRoute> removedRoutes) {
        MessageEdits edits = new MessageEdits(m.bytes(), m.startLineStart(), m.end());
        StringBuilder added = new StringBuilder();
        added.append(new String(via, StandardCharsets.US_ASCII));
        added.append(extra);
        if (m.maxForwards() == null) {
            added.append("Max-Forwards: 70\r\n");
        }
        edits.insert(m.startLineEnd(), added.toString().getBytes(StandardCharsets.US_ASCII));
        if (m.maxForwards() != null) {
            HeaderSpan mf = m.maxForwards();
            edits.replace(mf.valueStart(), mf.valueEnd(),
                    Integer.toString(m.maxForwardsValue() - 1).getBytes(StandardCharsets.US_ASCII));
        }
        removeRoutes(edits, removedRoutes);
        markReceived(m, edits);
        return edits;
    }

    /**
     * RFC 3327 Path for a REGISTER that came on a client's connection: a URI
     * naming the balancer whose user part is the flow token (RFC 5626 §5.2),
     * so a request for the binding comes back here and goes down this very
     * connection; {@code ob} when the UA asked for outbound with a
     * {@code reg-id} (§5.1). Nodes reach it over UDP, so it has no transport.
     */
    private String pathLine(SipMessage m) {
        return "Path: <sip:" + arrivalFlowToken(m) + "@" + self.advertised() + ";lr" + (SipParser.contactHasRegId(m) ? ";ob" : "")
                + ">\r\n";
    }

    /**
     * A node's request whose next hop is a flow this balancer marked (RFC
     * 5626 §5.3): it goes down that client connection, or, when the
     * connection is gone or the token is not one of ours, is answered 430
     * (Flow Failed). A dialog-creating request is record-routed with the
     * flow token twice (RFC 5658 §3.3): the value on top, facing the UA,
     * keeps its transport; the one below faces the nodes, over UDP. The
     * UA's requests in that dialog come back on its connection, those
     * towards it go down the same flow.
     */
    private void toFlow(SipMessage m, String flowToken, List<TopRoute> ownRoutes) {
        Optional<FlowTokens.Flow> flow = flows.read(flowToken);
        if (flow.isEmpty()) {
            counters.countFlowFailed();
            answer(m, 430, "Flow Failed");
            return;
        }
        Transport transport = flow.get().transport();
        String recordRoute = m.toTag() == null && DIALOG_CREATING.contains(m.method())
                ? flowRecordRoutes(flowToken, transport, true) : "";
        ByteBuf out = forwardEdits(m, self.viaLine(transport, branch(m), returnAddress(m).token()), recordRoute,
                ownRoutes).toBuffer();
        if (!egress.toFlow(flow.get().connection(), out)) {
            counters.countFlowFailed();
            answer(m, 430, "Flow Failed");
            return;
        }
        counters.countRequestForwarded();
    }

    /**
     * The two Record-Route lines of a dialog through the flow {@code token}
     * names: one facing the phone (its {@code transport} kept, TLS at the TLS
     * listener), one facing the nodes (UDP); the one facing where the
     * request goes comes first.
     */
    private String flowRecordRoutes(String token, Transport transport, boolean towardsPhone) {
        String phoneSide = "Record-Route: <sip:" + token + "@" + self.address(transport) + ";transport="
                + transport.name().toLowerCase(Locale.ROOT) + ";lr>\r\n";
        String nodeSide = "Record-Route: <sip:" + token + "@" + self.advertised() + ";lr>\r\n";
        return towardsPhone ? phoneSide + nodeSide : nodeSide + phoneSide;
    }

    /**
     * The Route entries at the top of {@code m} that name this balancer and
     * that it removes (§16.4): its plain entries and its flow entries, up to
     * the first that names someone else or that a node recorded ({@code
     * dt}), which goes on to a node.
     */
    private List<TopRoute> ownLeadingRoutes(SipMessage m) {
        List<TopRoute> own = List.of();
        TopRoute route = m.topRoute();
        while (route != null && namesSelfOrFlow(route.uri()) && !recordedByNode(route.uri()) && own.size() < 8) {
            if (own.isEmpty()) {
                own = new ArrayList<>(2);
            }
            own.add(route);
            route = SipParser.nextRoute(m, route).orElse(null);
        }
        return own;
    }

    /** The flow token of the client connection {@code m} arrived on. */
    private String arrivalFlowToken(SipMessage m) {
        return flows.token(new FlowTokens.Flow(m.frame().transport(), m.frame().connection()));
    }

    /**
     * Whether a node sent this request out through the balancer, towards a
     * UA (it put the balancer's address first in Route): it goes to that
     * UA, not to a node, and the UA's responses come back here and on to
     * the node by this balancer's Via, so the UA only ever talks to the
     * balancer.
     */
    private boolean fromNode(SipMessage m) {
        return nodes != null && m.frame().transport() == Transport.UDP && nodes.at(m.frame().sender()).isPresent();
    }

    /** Where a node's outbound request goes: the first Route entry not naming the balancer, else its Request-URI. */
    private Optional<InetSocketAddress> outboundTarget(SipMessage m, List<TopRoute> ownRoutes) {
        TopRoute next = ownRoutes.isEmpty() ? m.topRoute()
                : SipParser.nextRoute(m, ownRoutes.get(ownRoutes.size() - 1)).orElse(null);
        return next != null ? UdpTarget.of(next.uri()) : UdpTarget.of(m.requestUri());
    }

    private void response(SipMessage m) {
        TopVia via = m.topVia();
        String branch = via.branch();
        if (branch == null || !branch.startsWith(self.branchPrefix()) || !self.isViaOf(via.host(), via.port())) {
            counters.countForeignResponse();
            return;
        }
        Optional<ReturnAddress> back = ReturnAddress.parse(via.params().get("lb"));
        if (back.isEmpty() || (via.nextStart() < 0 && m.vias().size() == 1)) {
            // Ours but naming no client, or nothing left to route by: not a response to anything forwarded.
            counters.countForeignResponse();
            return;
        }
        MessageEdits edits = new MessageEdits(m.bytes(), m.startLineStart(), m.end());
        removeFirst(edits, via.header(), via.nextStart());
        Optional<NodeSet.Node> node = nodes == null ? Optional.empty() : nodes.at(m.frame().sender());
        Optional<FailoverRequests.Pending> pending = failovers != null && m.status() >= 200
                ? failovers.answered(branch.substring(self.branchPrefix().length())) : Optional.empty();
        if (node.isPresent()) {
            noteLoad(node.get(), m, via);
            if (m.status() == 503 && pending.isPresent()
                    && failOver(branch.substring(self.branchPrefix().length()), pending.get(), node.get())) {
                return;
            }
            if (m.status() == 503 && !selector.allRestrained(nanoTime.getAsLong())) {
                asServerError(m, edits);
            }
        }
        counters.countResponseForwarded();
        egress.toClient(back.get(), edits.toBuffer());
    }

    /**
     * Sends a request that {@code refused} answered 503 on to another node
     * ({@link FailoverRequests}); false when no other node takes it, and the
     * 503 goes on as it would have. A node that refused it before answers
     * again when a retransmission of the client's came back to it (the node
     * the request had moved to is gone, say): that is failed over too, so
     * the retransmission reaches a node that can still answer it.
     */
    private boolean failOver(String branch, FailoverRequests.Pending pending, NodeSet.Node refused) {
        long now = nanoTime.getAsLong();
        if (selector.allRestrained(now)) {
            // The whole cluster sheds: the client should hear it and back off, not have its request passed round.
            return false;
        }
        FailoverRequests.Pending refusedNow = pending.alsoRefusedBy(refused.index());
        Optional<NodeSet.Node> next = selector.failover(pending.request(), refusedNow.refusedBy(), now);
        if (next.isEmpty()) {
            return false;
        }
        SipMessage m = pending.request();
        ByteBuf out = forwardEdits(m, self.nodeViaLine(branch, returnAddress(m).token()), flowLines(m),
                ownLeadingRoutes(m)).toBuffer();
        failovers.resent(branch, pending, refused.index());
        counters.countFailedOver();
        counters.countRequestForwardedTo(next.get().index());
        egress.toNode(next.get().socket(), out);
        return true;
    }

    /** Hands a node's overload signals to {@link NodeLoad}: its RFC 7339 instruction, and a 503's Retry-After. */
    private void noteLoad(NodeSet.Node node, SipMessage m, TopVia via) {
        long now = nanoTime.getAsLong();
        NodeLoad load = selector.load();
        Optional<OverloadControl> oc = OverloadControl.from(via.params());
        oc.ifPresent(instruction -> load.overloadControl(node.index(), instruction, now));
        // A 503 that says how much to shed (RFC 7339) is a partial overload, which that share handles; only
        // one without holds the node off for its Retry-After.
        if (m.status() == 503 && (oc.isEmpty() || oc.get().lifts())) {
            load.serviceUnavailable(node.index(), SipParser.retryAfterSeconds(m), now);
        }
    }

    /** A node's 503 relayed while other nodes take requests: 500, as §16.7 item 6 asks. */
    private static void asServerError(SipMessage m, MessageEdits edits) {
        byte[] b = m.bytes();
        int lineEnd = m.startLineEnd();
        while (lineEnd > m.startLineStart() && (b[lineEnd - 1] == '\n' || b[lineEnd - 1] == '\r')) {
            lineEnd--;
        }
        edits.replace(m.startLineStart(), lineEnd, "SIP/2.0 500 Server Internal Error"
                .getBytes(StandardCharsets.US_ASCII));
    }

    /** Answers statelessly to where a response would go; ACK gets nothing (§17.1.1.3). */
    private void answer(SipMessage m, int status, String reason, String... extra) {
        if (m.isAck()) {
            counters.countUndeliverable();
            return;
        }
        counters.countAnsweredLocally();
        egress.toClient(returnAddress(m), Unpooled.wrappedBuffer(answers.build(m, status, reason, extra)));
    }

    /**
     * Where the response goes (§18.2.2): the TCP or TLS connection it came on;
     * for UDP the source address, at the source port when the client asked
     * for rport (RFC 3581) and else at its sent-by port.
     */
    static ReturnAddress returnAddress(SipMessage m) {
        SipFrame f = m.frame();
        if (f.transport().stream()) {
            return new ReturnAddress(f.transport(), f.sender(), f.connection());
        }
        TopVia via = m.topVia();
        int port = via.rport() ? f.sender().getPort() : via.port() > 0 ? via.port() : 5060;
        return new ReturnAddress(Transport.UDP, new InetSocketAddress(f.sender().getAddress(), port), 0);
    }

    /**
     * The branch suffix, a pure function of what identifies the client
     * transaction (§16.11, §17.2.3), so retransmissions, CANCEL and non-2xx
     * ACK reuse it.
     */
    static String branch(SipMessage m) {
        String incoming = m.topVia().branch();
        long h;
        if (incoming != null && incoming.startsWith("z9hG4bK")) {
            // The sent-by is part of the RFC 3261 transaction key too.
            h = Fnv.hash(incoming + "|" + m.topVia().host() + ":" + m.topVia().port());
        } else {
            HeaderSpan top = m.vias().get(0);
            h = Fnv.hash(new String(m.bytes(), top.valueStart(), top.valueEnd() - top.valueStart(),
                    StandardCharsets.ISO_8859_1) + "|" + m.callId() + "|" + m.cseqNumber() + "|" + m.requestUri());
        }
        return Long.toHexString(h);
    }

    private boolean cameRoundAgain(SipMessage m) {
        byte[] b = m.bytes();
        for (HeaderSpan via : m.vias()) {
            if (contains(b, via.valueStart(), via.valueEnd(), branchPrefix)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a Route value naming the balancer carries a node's dialog token ({@code ;dt=}). */
    static boolean recordedByNode(String uri) {
        for (String param : uri.split(";")) {
            int eq = param.indexOf('=');
            if (eq > 0 && param.substring(0, eq).trim().equalsIgnoreCase("dt")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code uri} (sip:[user@]host[:port][;params]) names this
     * balancer's host and port: its own route, or, with a user part, a flow
     * it marked.
     */
    private boolean namesSelfOrFlow(String uri) {
        int colon = uri.indexOf(':');
        if (colon < 0) {
            return false;
        }
        String rest = uri.substring(colon + 1);
        int at = rest.indexOf('@');
        if (at >= 0) {
            rest = rest.substring(at + 1);
        }
        int semi = rest.indexOf(';');
        String hostPort = semi < 0 ? rest : rest.substring(0, semi);
        try {
            if (hostPort.lastIndexOf(':') > hostPort.lastIndexOf(']')) {
                HostPort hp = HostPort.parse(hostPort);
                return self.isRoute(hp.host(), hp.port());
            }
            return self.isRoute(new HostPort(hostPort, 5060).host(), -1);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The user part of a SIP URI, "" when it has none. */
    static String routeUser(String uri) {
        int colon = uri.indexOf(':');
        int at = uri.indexOf('@');
        int semi = uri.indexOf(';');
        if (colon < 0 || at < colon || (semi >= 0 && semi < at)) {
            return "";
        }
        return uri.substring(colon + 1, at);
    }

    /** §18.2.1: received when the source differs from sent-by, or rport asks for it; rport gets the source port. */
    private static void markReceived(SipMessage m, MessageEdits edits) {
        TopVia via = m.topVia();
        InetSocketAddress source = m.frame().sender();
        String ip = source.getAddress().getHostAddress();
        if (via.rportEnd() >= 0) {
            edits.insert(via.rportEnd(), ("=" + source.getPort()).getBytes(StandardCharsets.US_ASCII));
        }
        if ((via.rport() || !ip.equalsIgnoreCase(via.host())) && !via.params().containsKey("received")) {
            edits.insert(via.parmEnd(), (";received=" + ip).getBytes(StandardCharsets.US_ASCII));
        }
    }

    /**
     * Removes leading Route entries: within each header line they start at
     * its first entry, so a line goes whole when its last entry goes, else
     * up to the first entry kept.
     */
    private static void removeRoutes(MessageEdits edits, List<TopRoute> routes) {
        for (int i = 0; i < routes.size(); i++) {
            TopRoute r = routes.get(i);
            boolean lastInLine = i + 1 == routes.size() || routes.get(i + 1).header() != r.header();
            if (lastInLine) {
                removeFirst(edits, r.header(), r.nextStart());
            }
        }
    }

    /** Removes the first entries of a comma-separated header line up to {@code nextStart}, or the whole line when -1. */
    private static void removeFirst(MessageEdits edits, HeaderSpan line, int nextStart) {
        if (nextStart < 0) {
            edits.delete(line.lineStart(), line.lineEnd());
        } else {
            edits.delete(line.valueStart(), nextStart);
        }
    }

    private static boolean contains(byte[] b, int from, int to, byte[] needle) {
        outer:
        for (int i = from; i <= to - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (b[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("balancer channel {} failed: {}", ctx.channel(), cause.toString());
        if (ctx.channel() instanceof SocketChannel) {
            // A broken client connection ends; the shared UDP socket never does.
            ctx.close();
        }
    }
}
