package org.p2psip.core.overlay;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import org.p2psip.core.net.HostPort;

/**
 * For the UDP replay tests: builds the datagram a legitimate node would send
 * — the real codec, {@link DatagramAuthenticator} and fragmenter, with the
 * secret — so a test can send it from a socket of its own, once as the
 * original and again as a replay, and see what comes back.
 */
public final class SealedDatagrams {

    private SealedDatagrams() {
    }

    /** The single datagram carrying {@code frame} to {@code to}, stamped by {@code clock}. */
    public static byte[] datagram(OverlaySecret secret, HostPort to, OverlayFrame frame, Clock clock) {
        DatagramRoute route = new DatagramRoute();
        EmbeddedChannel ch = new EmbeddedChannel(
                new DatagramFraming(route, NettyUdpOverlayTransport.FRAGMENT_PAYLOAD_BYTES, 1 << 20,
                        TimeUnit.SECONDS.toNanos(10)),
                new DatagramAuthenticator(new DatagramSeal(secret, new NonceWindow(Duration.ofSeconds(30),
                        Duration.ofSeconds(1), 16)), route, clock, new OverlayRefusals(),
                        () -> new InetSocketAddress(0)),
                new OverlayFrameCodec());
        InetSocketAddress destination = new InetSocketAddress(to.host(), to.port());
        route.outboundPeer = destination;
        ch.writeOutbound(frame);
        io.netty.channel.socket.DatagramPacket packet = ch.readOutbound();
        if (packet == null || ch.readOutbound() != null) {
            throw new IllegalArgumentException("the frame does not fit one datagram");
        }
        ByteBuf content = packet.content();
        try {
            return ByteBufUtil.getBytes(content);
        } finally {
            packet.release();
            ch.finishAndReleaseAll();
        }
    }

    /** Sends {@code datagram} from {@code socket} to {@code to}. */
    public static void send(DatagramSocket socket, HostPort to, byte[] datagram) throws java.io.IOException {
        socket.send(new DatagramPacket(datagram, datagram.length, InetAddress.getByName(to.host()), to.port()));
    }

    /**
     * The answer (RESPONSE or ERROR) to request {@code requestId} that reaches
     * {@code socket} within {@code wait}, authenticated with {@code secret};
     * null if none does. Other datagrams (the node's own requests to a
     * contact it has just learnt) are skipped.
     */
    public static OverlayFrame answerTo(DatagramSocket socket, OverlaySecret secret, long requestId, Duration wait)
            throws java.io.IOException {
        DatagramSeal seal = new DatagramSeal(secret, new NonceWindow(Duration.ofSeconds(30), Duration.ofSeconds(1),
                1 << 16));
        InetSocketAddress local = (InetSocketAddress) socket.getLocalSocketAddress();
        long deadline = System.nanoTime() + wait.toNanos();
        byte[] buffer = new byte[65_536];
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return null;
            }
            socket.setSoTimeout((int) left);
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(packet);
            } catch (SocketTimeoutException e) {
                return null;
            }
            if (packet.getLength() < DatagramFraming.FRAGMENT_HEADER_BYTES) {
                // A node's check that this port is open ({@code ClosedPortCheck}); the transport ignores it too.
                continue;
            }
            // A single fragment: frameId(8) index(2) count(2), then the sealed frame.
            byte[] sealed = Arrays.copyOfRange(buffer, DatagramFraming.FRAGMENT_HEADER_BYTES, packet.getLength());
            DatagramSeal.Opened opened = seal.open(sealed, local, System.currentTimeMillis());
            if (!opened.accepted()) {
                continue;
            }
            EmbeddedChannel codec = new EmbeddedChannel(new OverlayFrameCodec());
            codec.writeInbound(io.netty.buffer.Unpooled.wrappedBuffer(opened.body()));
            OverlayFrame frame = codec.readInbound();
            codec.finishAndReleaseAll();
            if (frame != null && frame.kind() != OverlayFrame.Kind.REQUEST && frame.requestId() == requestId) {
                return frame;
            }
        }
    }

    /**
     * Sends {@code datagram} from {@code socket} to {@code to} and returns the
     * first datagram that comes back within {@code wait}, or null.
     */
    public static byte[] sendAndListen(DatagramSocket socket, HostPort to, byte[] datagram, Duration wait)
            throws java.io.IOException {
        socket.send(new DatagramPacket(datagram, datagram.length, InetAddress.getByName(to.host()), to.port()));
        byte[] buffer = new byte[65_536];
        DatagramPacket answer = new DatagramPacket(buffer, buffer.length);
        socket.setSoTimeout((int) wait.toMillis());
        try {
            socket.receive(answer);
            return Arrays.copyOf(buffer, answer.getLength());
        } catch (SocketTimeoutException e) {
            return null;
        }
    }
}
