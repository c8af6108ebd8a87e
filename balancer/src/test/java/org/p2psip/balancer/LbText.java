package org.p2psip.balancer;

import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.Transport;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** SIP messages for the balancer's tests, written as text with \n for CRLF. */
final class LbText {

    static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 5070);

    private LbText() {
    }

    static final BalancerIdentity LB = BalancerIdentity.of(new org.p2psip.core.net.HostPort("127.0.0.1", 5060));

    /** A TCP framer with a 10 s message deadline answering as {@link #LB}. */
    static SipStreamFramer framer(int maxMessageBytes, BalancerCounters counters) {
        return framer(maxMessageBytes, java.time.Duration.ofSeconds(10), counters);
    }

    static SipStreamFramer framer(int maxMessageBytes, java.time.Duration deadline, BalancerCounters counters) {
        return new SipStreamFramer(maxMessageBytes, deadline.toNanos(), Transport.TCP, new LocalAnswers(LB), counters,
                BadInputReporter.standard(), channel -> { });
    }

    static SipDatagramDecoder datagrams(int maxMessageBytes, BalancerCounters counters) {
        return new SipDatagramDecoder(maxMessageBytes, new LocalAnswers(LB), counters, BadInputReporter.standard());
    }

    static byte[] crlf(String text) {
        return text.replace("\r\n", "\n").replace("\n", "\r\n").getBytes(StandardCharsets.UTF_8);
    }

    static SipFrame udp(String text) {
        return new SipFrame(crlf(text), CLIENT, Transport.UDP, 0);
    }

    static SipFrame tcp(String text, long connection) {
        return new SipFrame(crlf(text), CLIENT, Transport.TCP, connection);
    }

    static String invite(String callId, String branch) {
        return "INVITE sip:bob@example.com SIP/2.0\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=" + branch + "\n"
                + "Max-Forwards: 70\n"
                + "From: <sip:alice@example.com>;tag=a1\n"
                + "To: <sip:bob@example.com>\n"
                + "Call-ID: " + callId + "\n"
                + "CSeq: 1 INVITE\n"
                + "Contact: <sip:alice@127.0.0.1:5070>\n"
                + "Content-Length: 5\n"
                + "\n"
                + "v=0\n";
    }

    static String register(String user, String callId) {
        return "REGISTER sip:example.com SIP/2.0\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-" + callId + "\n"
                + "Max-Forwards: 70\n"
                + "From: <sip:" + user + ">;tag=r1\n"
                + "To: <sip:" + user + ">\n"
                + "Call-ID: " + callId + "\n"
                + "CSeq: 1 REGISTER\n"
                + "Contact: <sip:x@127.0.0.1:5070>\n"
                + "Content-Length: 0\n"
                + "\n";
    }

    /** An EmbeddedChannel that, like a real TCP connection, has the client's socket address as its remote address. */
    static io.netty.channel.embedded.EmbeddedChannel tcpChannel(io.netty.channel.ChannelHandler... handlers) {
        return new io.netty.channel.embedded.EmbeddedChannel(handlers) {
            @Override
            protected java.net.SocketAddress remoteAddress0() {
                return CLIENT;
            }
        };
    }

    static String text(io.netty.buffer.ByteBuf b) {
        try {
            return b.toString(StandardCharsets.UTF_8);
        } finally {
            b.release();
        }
    }
}
