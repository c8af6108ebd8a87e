package org.p2psip.loadtest.bench;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

/**
 * The built-in user agent server, also usable as a trivial responder that
 * measures the generator's own ceiling. Stateless: every request gets its
 * answer at once, written from the request alone, so retransmitted
 * requests get identical answers (a stateless UAS, RFC 3261 §8.2.7).
 *
 * <ul>
 *   <li>INVITE: 180 Ringing and 200 OK with a Contact and the request's
 *       Record-Route (§12.1.1), so ACK and BYE come back through the
 *       proxies.</li>
 *   <li>ACK: nothing (§17.2.1 — no response to an ACK).</li>
 *   <li>REGISTER: 200 OK listing the request's contact with an expires
 *       parameter and carrying a Date (what §10.3 step 8 asks of a
 *       registrar, and what SIPp's register scenario checks).</li>
 *   <li>Anything else (MESSAGE, BYE, OPTIONS, CANCEL ...): 200 OK.</li>
 * </ul>
 *
 * <p>Responses go where §18.2.2 sends them: over UDP to the top Via's
 * {@code received}/{@code rport} or sent-by address; over TCP and TLS back
 * on the connection. The To tag depends only on the Call-ID, so every answer in a
 * dialog carries the same one.
 */
public final class UasResponder extends SimpleChannelInboundHandler<Inbound> {

    private static final DateTimeFormatter RFC1123 = DateTimeFormatter.RFC_1123_DATE_TIME.withLocale(Locale.ROOT);

    private final String uriTransport;
    private String self;

    /** @param tcp whether this responder serves a TCP connection (its Contact then says so) */
    public UasResponder(boolean tcp) {
        this(tcp ? BenchTransport.TCP : BenchTransport.UDP);
    }

    /** @param transport what this responder is reached over, which its Contact says (RFC 3261 §19.1.1) */
    public UasResponder(BenchTransport transport) {
        this.uriTransport = transport.uriParameter();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Inbound in) {
        SipMessage m = in.message();
        if (!m.request()) {
            return;
        }
        InetSocketAddress to = responseAddress(m.vias().get(0), in.sender());
        if (self == null) {
            // The socket's own address is known once bound, which is after the pipeline is built.
            self = ctx.channel().localAddress() instanceof InetSocketAddress local
                    ? Sockets.hostPort(local.getAddress(), local.getPort()) : "127.0.0.1";
        }
        for (byte[] response : answer(m, self)) {
            ctx.write(new Outgoing(m.method(), m.topBranch(), response, to));
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A broken stream cannot be resynchronised; a datagram channel carries on.
        if (ctx.channel() instanceof io.netty.channel.socket.SocketChannel) {
            ctx.close();
        }
    }

    /** The responses to {@code request}, in the order they are sent; {@code contactHostPort} goes in a Contact. */
    List<byte[]> answer(SipMessage request, String contactHostPort) {
        List<byte[]> out = new ArrayList<>(2);
        switch (request.method()) {
            case "ACK" -> {
            }
            case "INVITE" -> {
                out.add(response(request, 180, "Ringing", true, null));
                out.add(response(request, 200, "OK", true,
                        "Contact: <sip:uas@" + contactHostPort + uriTransport + ">\r\n"));
            }
            case "REGISTER" -> {
                String contact = request.contactUri() == null ? ""
                        : "Contact: <" + request.contactUri() + ">;expires=3600\r\n";
                out.add(response(request, 200, "OK", false,
                        contact + "Date: " + RFC1123.format(ZonedDateTime.now(ZoneOffset.UTC)) + "\r\n"));
            }
            default -> out.add(response(request, 200, "OK", false, null));
        }
        return out;
    }

    /** A response copying Via, From, To (adding a tag), Call-ID and CSeq from the request (§8.2.6.2). */
    static byte[] response(SipMessage request, int status, String reason, boolean recordRoute, String extra) {
        StringBuilder b = new StringBuilder(400);
        b.append("SIP/2.0 ").append(status).append(' ').append(reason).append("\r\n");
        for (String via : request.vias()) {
            b.append("Via: ").append(via).append("\r\n");
        }
        if (recordRoute) {
            for (String rr : request.recordRoutes()) {
                b.append("Record-Route: ").append(rr).append("\r\n");
            }
        }
        b.append("From: ").append(request.from()).append("\r\n");
        b.append("To: ").append(request.to());
        if (request.toTag() == null && !"REGISTER".equals(request.method())) {
            b.append(";tag=uas").append(Integer.toHexString(request.callId().hashCode()));
        }
        b.append("\r\n");
        b.append("Call-ID: ").append(request.callId()).append("\r\n");
        b.append("CSeq: ").append(request.cseq()).append(' ').append(request.method()).append("\r\n");
        if (extra != null) {
            b.append(extra);
        }
        b.append("Content-Length: 0\r\n\r\n");
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Where a response over UDP goes (RFC 3261 §18.2.2, RFC 3581 §4): the
     * {@code received} address if present, else the sent-by host; the
     * {@code rport} value if it has one, else the sent-by port (5060 by
     * default). When the Via cannot be read, back to the sender.
     */
    static InetSocketAddress responseAddress(String via, InetSocketAddress sender) {
        try {
            int sp = via.indexOf(' ');
            String rest = via.substring(sp + 1).trim();
            int semi = rest.indexOf(';');
            String sentBy = (semi < 0 ? rest : rest.substring(0, semi)).trim();
            String params = semi < 0 ? "" : rest.substring(semi);
            InetSocketAddress byVia = FlowContext.hop("sip:" + sentBy);
            String received = SipMessage.param("x" + params, "received");
            String rport = SipMessage.param("x" + params, "rport");
            String host = received != null && !received.isEmpty() ? received : byVia.getHostString();
            int port = rport != null && !rport.isEmpty() ? Integer.parseInt(rport) : byVia.getPort();
            return new InetSocketAddress(host, port);
        } catch (RuntimeException e) {
            return sender;
        }
    }
}
