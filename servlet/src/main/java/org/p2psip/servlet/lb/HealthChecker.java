package org.p2psip.servlet.lb;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

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
 * UDP socket. A probe still unanswered when the next one is due counts as a
 * failure; after {@code failuresToDown} consecutive failures the node is
 * taken out, and the first answer puts it back. Any final response counts as
 * an answer — the node is alive enough to speak SIP.
 *
 * <p>It sits in the UDP pipeline before the router and takes the answers to
 * its probes (recognised by their branch) out of the stream. All its state
 * is touched only on the channel's event loop, which also runs the timer,
 * so it needs no locks.
 */
public final class HealthChecker extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(HealthChecker.class);

    private final NodeSet nodes;
    private final BalancerIdentity self;
    private final long intervalMillis;
    private final int failuresToDown;
    private final long[] outstanding;
    private final int[] failures;
    private int sequence;
    private ScheduledFuture<?> timer;

    public HealthChecker(NodeSet nodes, BalancerIdentity self, Duration interval, int failuresToDown) {
        if (interval.toMillis() < 1 || failuresToDown < 1) {
            throw new IllegalArgumentException("probe interval and failure count must be positive");
        }
        this.nodes = nodes;
        this.self = self;
        this.intervalMillis = interval.toMillis();
        this.failuresToDown = failuresToDown;
        this.outstanding = new long[nodes.all().size()];
        this.failures = new int[nodes.all().size()];
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
        if (msg instanceof SipMessage m && !m.request() && m.topVia().branch() != null
                && m.topVia().branch().startsWith(self.probePrefix())) {
            if (m.status() >= 200) {
                answered(m.topVia().branch().substring(self.probePrefix().length()));
            }
            return;
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

    /** One round: count last round's silence, then ask every node again. */
    private void probe(ChannelHandlerContext ctx) {
        for (NodeSet.Node node : nodes.all()) {
            int i = node.index();
            if (outstanding[i] != 0 && ++failures[i] >= failuresToDown && nodes.markDown(i)) {
                LOG.warn("node {} is down: {} probes unanswered", node.address(), failures[i]);
            }
            sequence = sequence == Integer.MAX_VALUE ? 1 : sequence + 1;
            outstanding[i] = sequence;
            ctx.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(options(node, sequence)), node.socket()));
        }
    }

    private void answered(String probe) {
        int dot = probe.indexOf('.');
        if (dot <= 0) {
            return;
        }
        int index;
        long seq;
        try {
            index = Integer.parseInt(probe.substring(0, dot));
            seq = Long.parseLong(probe.substring(dot + 1));
        } catch (NumberFormatException e) {
            return;
        }
        // Only the latest probe counts: an answer that arrives a round late does not hide a failure.
        if (index < 0 || index >= outstanding.length || outstanding[index] != seq) {
            return;
        }
        outstanding[index] = 0;
        failures[index] = 0;
        if (nodes.markUp(index)) {
            LOG.info("node {} is up again", nodes.all().get(index).address());
        }
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
