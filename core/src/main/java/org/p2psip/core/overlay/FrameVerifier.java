package org.p2psip.core.overlay;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import javax.crypto.Mac;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Inbound: checks the HMAC-SHA256 trailer of every frame against the cluster
 * secret and passes on the frame without it; a frame that fails (wrong
 * secret, tampering, truncation) is dropped without an answer. The first
 * failure from each remote host is logged, later ones only counted, so a
 * misconfigured or hostile peer cannot flood the log.
 */
public final class FrameVerifier extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(FrameVerifier.class);

    private final Mac mac;
    /** Hosts already logged; shared by every channel of one transport. */
    private final Set<String> loggedHosts;
    private final AtomicLong dropped;

    public FrameVerifier(OverlaySecret secret, Set<String> loggedHosts, AtomicLong dropped) {
        this.mac = secret.newMac();
        this.loggedHosts = loggedHosts;
        this.dropped = dropped;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            int bodyLength = frame.readableBytes() - OverlaySecret.MAC_BYTES;
            if (bodyLength < 0) {
                reject(ctx, "a frame too short to carry a MAC");
                return;
            }
            byte[] body = new byte[bodyLength];
            frame.getBytes(frame.readerIndex(), body);
            byte[] tag = new byte[OverlaySecret.MAC_BYTES];
            frame.getBytes(frame.readerIndex() + bodyLength, tag);
            if (!OverlaySecret.macMatches(mac.doFinal(body), tag)) {
                reject(ctx, "a frame whose MAC does not match the overlay secret");
                return;
            }
            ctx.fireChannelRead(ctx.alloc().buffer(bodyLength).writeBytes(body));
        } finally {
            frame.release();
        }
    }

    private void reject(ChannelHandlerContext ctx, String what) {
        dropped.incrementAndGet();
        String host = hostOf(ctx.channel().remoteAddress());
        if (loggedHosts.add(host)) {
            LOG.warn("dropping {} from {} (further frames from this host are dropped silently)", what, host);
        }
    }

    private static String hostOf(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            return inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
        }
        return String.valueOf(address);
    }
}
