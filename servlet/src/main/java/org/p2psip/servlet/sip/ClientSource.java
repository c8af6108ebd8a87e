package org.p2psip.servlet.sip;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import javax.sip.header.Header;
import javax.sip.header.ViaHeader;
import javax.sip.message.Message;
import javax.sip.message.Request;

import gov.nist.javax.sip.message.SIPMessage;

/**
 * Where a request came from at the cluster's edge, for the access log and
 * for what the node logs about a client. The packet's source, unless that
 * is a trusted hop (the balancer, another node: the sources the node never
 * rate-limits) relaying for a client; then the hop's record of the client
 * in the Via below its own: {@code received} (RFC 3261 §18.2.1) and the
 * filled-in {@code rport} (RFC 3581 §4), or the sent-by when the hop saw
 * no need for them. A Via below an untrusted hop is the sender's to make
 * up and is never read.
 */
public final class ClientSource {

    private static final Pattern IP_LITERAL = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}|\\[?[0-9a-fA-F]*:[0-9a-fA-F:.]*]?");

    private ClientSource() {
    }

    /**
     * The client's address; {@code 0.0.0.0:0} when the message carries none
     * at all. A response (to a request answered without a transaction) has
     * the request's Vias, the top one with the source the stack recorded.
     */
    public static InetSocketAddress of(Message message, Predicate<InetAddress> trusted) {
        List<Header> vias = HeaderLists.of(message, ViaHeader.NAME);
        InetSocketAddress from = packetSource(message, vias);
        for (int below = 1; below < vias.size() && trusted.test(from.getAddress()); below++) {
            InetSocketAddress recorded = recorded((ViaHeader) vias.get(below));
            if (recorded == null) {
                break;
            }
            from = recorded;
        }
        return from;
    }

    /** {@code 203.0.113.7:40000}, {@code [2001:db8::1]:5060}. */
    public static String text(InetSocketAddress address) {
        String ip = address.getAddress().getHostAddress();
        return (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + address.getPort();
    }

    private static InetSocketAddress packetSource(Message message, List<Header> vias) {
        if (message instanceof Request && message instanceof SIPMessage m && m.getRemoteAddress() != null && m.getRemotePort() > 0) {
            return new InetSocketAddress(m.getRemoteAddress(), m.getRemotePort());
        }
        InetSocketAddress top = vias.isEmpty() ? null : recorded((ViaHeader) vias.get(0));
        return top != null ? top : unknown();
    }

    private static InetSocketAddress unknown() {
        try {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[4]), 0);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The address a Via says its hop was seen at, or null when it names a host rather than an address. */
    private static InetSocketAddress recorded(ViaHeader via) {
        String host = via.getReceived() != null ? via.getReceived() : via.getHost();
        if (host == null || !IP_LITERAL.matcher(host).matches()) {
            return null;
        }
        int port = via.getRPort() > 0 ? via.getRPort() : via.getPort() > 0 ? via.getPort() : 5060;
        try {
            // A literal: no name service is asked.
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
