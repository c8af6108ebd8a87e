package org.p2psip.balancer;

import org.p2psip.sip.wire.ClusterHeaders;
import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.SipParser;

import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * Keeps {@link NodeSet} honest: every interval it sends each node an
 * OPTIONS (RFC 3261 §11, the usual SIP liveness ping) from the balancer's
 * UDP socket. A round in which nothing was heard from a node counts as a
 * failure; after {@code failuresToDown} consecutive failures the node is
 * taken out, and the next sign of life puts it back. Signs of life are a
 * final response to any probe — the node is alive enough to speak SIP —
 * and any response the node sends through the balancer, on this socket or
 * on the node-side one ({@link NodeResponses}): a node answering a
 * thousand requests a second is alive even if its answer to one OPTIONS is
 * slower than the interval, and must not be taken out just because it is
 * busy (which would hand its load to the others, and then take them out
 * too).
 *
 * <p>Issue 33, nodes that are ready when they say so: a warming node
 * answers its probe {@code 503} with {@code P2psip-Ready: no}. That is a
 * sign of life like any other answer — the node is not counted as failing
 * nor logged as down, and what it sends keeps flowing — but it is marked
 * not ready ({@link NodeSet#ready()}), so it gets no new requests until an
 * answer other than a 503 says it is ready. A 503 without that header is a
 * node shedding load and changes nothing here, for the reason above. A
 * node that turns ready after being not ready or down gets its new
 * requests by {@link SlowStart}; one that answers ready to the balancer's
 * first probes, as a whole cluster starting together does, starts at its
 * full share.
 *
 * <p>A node's answer to its probe may say which keys it owns
 * ({@code P2psip-Owns}); that goes into {@link KeyOwners} for the
 * {@code owner} policy, and an answer without it clears what the node said
 * before. A node taken out loses its claim.
 *
 * <p>It sits in the UDP pipeline before the router and takes the answers to
 * its probes (recognised by their branch) out of the stream. All its state
 * is touched only on the channel's event loop, which also runs the timer,
 * so it needs no locks.
 */
public final class HealthChecker extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(HealthChecker.class);

    /** What one sign of life says about the node's readiness. */
    private enum Readiness { READY, NOT_READY, UNSAID }

    private final NodeSet nodes;
    private final KeyOwners owners;
    private final SlowStart slowStart;
    private final ProbeRoundTrips roundTrips;
    private final LongSupplier nanoClock;
    private final BalancerIdentity self;
    private final long intervalMillis;
    private final int failuresToDown;
    private final NodeResponses responses;
    private final Map<InetSocketAddress, Integer> byAddress = new HashMap<>();
    private final boolean[] probed;
    private final boolean[] heard;
    private final int[] failures;
    /** Per node, the sequence number of its last probe and when it went, for the round trip of its answer. */
    private final int[] sentSequence;
    private final long[] sentAtNanos;
    private int sequence;
    private ScheduledFuture<?> timer;

    /** A health checker without slow start. */
    public HealthChecker(NodeSet nodes, KeyOwners owners, ProbeRoundTrips roundTrips, LongSupplier nanoClock,
                         BalancerIdentity self, Duration interval, int failuresToDown) {
        this(nodes, owners, SlowStart.off(nodes.all().size()), roundTrips, nanoClock, self, interval,
                failuresToDown);
    }

    /**
     * @param slowStart  where the ramps of nodes that turn ready begin, and are seen to end
     * @param roundTrips where each answered probe's round trip goes
     * @param nanoClock  the time probes are sent and answered at, in nanoseconds ({@code System::nanoTime})
     */
    public HealthChecker(NodeSet nodes, KeyOwners owners, SlowStart slowStart, ProbeRoundTrips roundTrips,
                         LongSupplier nanoClock, BalancerIdentity self, Duration interval, int failuresToDown) {
        this(nodes, owners, slowStart, roundTrips, nanoClock, self, interval, failuresToDown,
                new NodeResponses(nodes));
    }

    /** @param responses the responses the nodes sent the node-side socket, each a sign of life */
    public HealthChecker(NodeSet nodes, KeyOwners owners, SlowStart slowStart, ProbeRoundTrips roundTrips,
                         LongSupplier nanoClock, BalancerIdentity self, Duration interval, int failuresToDown,
                         NodeResponses responses) {
        if (interval.toMillis() < 1 || failuresToDown < 1) {
            throw new IllegalArgumentException("probe interval and failure count must be positive");
        }
        this.nodes = nodes;
        this.owners = owners;
        this.slowStart = slowStart;
        this.roundTrips = roundTrips;
        this.nanoClock = nanoClock;
        this.self = self;
        this.intervalMillis = interval.toMillis();
        this.failuresToDown = failuresToDown;
        this.responses = responses;
        this.probed = new boolean[nodes.all().size()];
        this.heard = new boolean[nodes.all().size()];
        this.failures = new int[nodes.all().size()];
        this.sentSequence = new int[nodes.all().size()];
        this.sentAtNanos = new long[nodes.all().size()];
        for (NodeSet.Node n : nodes.all()) {
            byAddress.putIfAbsent(n.socket(), n.index());
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        start(ctx);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof SipMessage m && !m.request()) {
            String branch = m.topVia().branch();
            if (branch != null && branch.startsWith(self.probePrefix())) {
                if (m.status() >= 200) {
                    answered(branch.substring(self.probePrefix().length()), m);
                }
                return;
            }
            Integer node = byAddress.get(m.frame().sender());
            if (node != null) {
                heard(node, Readiness.UNSAID);
            }
        }
        ctx.fireChannelRead(msg);
    }

    private void start(ChannelHandlerContext ctx) {
        if (timer == null) {
            timer = ctx.executor().scheduleAtFixedRate(() -> probe(ctx), 0, intervalMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void stop() {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** One round: count last round's silence, note the ramps that ended, then ask every node again. */
    private void probe(ChannelHandlerContext ctx) {
        long now = nanoClock.getAsLong();
        for (NodeSet.Node node : nodes.all()) {
            int i = node.index();
            if (responses.takeHeard(i)) {
                heard(i, Readiness.UNSAID);
            }
            if (probed[i] && !heard[i] && ++failures[i] >= failuresToDown && nodes.markDown(i)) {
                owners.claim(i, Optional.empty());
                slowStart.cancel(i);
                LOG.warn("node {} is down: nothing heard for {} probe intervals", node.address(), failures[i]);
            }
            if (slowStart.finish(i, now)) {
                LOG.info("node {} has ended its slow start: it gets its full share of new requests", node.address());
            }
            heard[i] = false;
            probed[i] = true;
            sequence = sequence == Integer.MAX_VALUE ? 1 : sequence + 1;
            sentSequence[i] = sequence;
            sentAtNanos[i] = now;
            ctx.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(options(node, sequence)), node.socket()));
        }
    }

    private void answered(String probe, SipMessage answer) {
        int dot = probe.indexOf('.');
        if (dot <= 0) {
            return;
        }
        int index;
        int seq;
        try {
            index = Integer.parseInt(probe.substring(0, dot));
            seq = Integer.parseInt(probe.substring(dot + 1));
        } catch (NumberFormatException e) {
            return;
        }
        if (index >= 0 && index < heard.length) {
            boolean fromNode = answer.frame().sender().equals(nodes.all().get(index).socket());
            // Only the node itself speaks for its readiness, as for its keys.
            heard(index, fromNode ? readinessIn(answer) : Readiness.UNSAID);
            if (fromNode) {
                owners.claim(index, claimIn(answer));
                domainsIn(answer).ifPresent(owners::serve);
                // Only the answer to the latest probe times it: an older one's send time is gone.
                if (seq == sentSequence[index]) {
                    roundTrips.record(index, nanoClock.getAsLong() - sentAtNanos[index]);
                }
            }
        }
    }

    /**
     * What a probe's answer says of the node's readiness: a 503 with
     * {@code P2psip-Ready: no} that it is warming up, any other 503
     * nothing (it sheds load), anything else that it is ready.
     */
    private static Readiness readinessIn(SipMessage answer) {
        if (answer.status() != 503) {
            return Readiness.READY;
        }
        return SipParser.headerValue(answer, ClusterHeaders.READY).filter("no"::equalsIgnoreCase).isPresent()
                ? Readiness.NOT_READY : Readiness.UNSAID;
    }

    /** The domains and aliases an answer says the cluster serves, if it says and they can be read. */
    private static Optional<ServedDomains> domainsIn(SipMessage answer) {
        Optional<String> names = SipParser.headerValue(answer, ClusterHeaders.DOMAINS);
        if (names.isEmpty()) {
            return Optional.empty();
        }
        try {
            List<String> domains = Arrays.stream(names.get().split(",")).map(String::strip).toList();
            List<HostPort> aliases = SipParser.headerValue(answer, ClusterHeaders.ALIASES).map(HostPort::parseList)
                    .orElse(List.of());
            return Optional.of(new ServedDomains(domains, aliases));
        } catch (IllegalArgumentException e) {
            LOG.debug("node {} named unreadable domains: {}", answer.frame().sender(), e.getMessage());
            return Optional.empty();
        }
    }

    /** The ranges an answer claims; none when it names none or they cannot be read. */
    private static Optional<KeyRangeSet> claimIn(SipMessage answer) {
        Optional<String> owns = SipParser.headerValue(answer, ClusterHeaders.OWNS);
        if (owns.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(KeyRangeSet.parse(owns.get()));
        } catch (IllegalArgumentException e) {
            LOG.debug("node {} claimed unreadable key ranges: {}", answer.frame().sender(), e.getMessage());
            return Optional.empty();
        }
    }

    /** A sign of life from node {@code index}, which says {@code said} of its readiness. */
    private void heard(int index, Readiness said) {
        heard[index] = true;
        failures[index] = 0;
        HostPort address = nodes.all().get(index).address();
        boolean wasTaking = nodes.takesNewRequests(index);
        boolean willTake = said == Readiness.READY || (said == Readiness.UNSAID && nodes.isReady(index));
        if (!wasTaking && willTake) {
            // Before the node joins the ready list, so no router sees it there at its full share.
            slowStart.begin(index, nanoClock.getAsLong());
        }
        if (said != Readiness.UNSAID && nodes.markReady(index, said == Readiness.READY)
                && said == Readiness.NOT_READY) {
            LOG.info("node {} is alive but not ready (warming up): it gets no new requests", address);
        }
        if (nodes.markUp(index)) {
            LOG.info("node {} is up again", address);
        }
        if (wasTaking && !willTake) {
            slowStart.cancel(index);
        } else if (!wasTaking && willTake) {
            if (slowStart.window().isZero()) {
                LOG.info("node {} is ready", address);
            } else {
                LOG.info("node {} is ready; ramping over {}", address, seconds(slowStart.window()));
            }
        }
    }

    /** A window as an operator wrote it: "10 s", "2.5 s". */
    private static String seconds(Duration d) {
        return BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
    }

    private byte[] options(NodeSet.Node node, int seq) {
        String me = self.advertised().toString();
        String text = "OPTIONS sip:" + node.address() + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + me + ";branch=" + self.probePrefix() + node.index() + "." + seq + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:p2psip-lb@" + me + ">;tag=" + self.tagPrefix() + "hc\r\n"
                + "To: <sip:" + node.address() + ">\r\n"
                + "Call-ID: hc-" + self.instance() + "-" + node.index() + "-" + seq + "\r\n"
                + "CSeq: " + seq + " OPTIONS\r\n"
                + "Accept: application/sdp\r\n"
                + "Content-Length: 0\r\n\r\n";
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
