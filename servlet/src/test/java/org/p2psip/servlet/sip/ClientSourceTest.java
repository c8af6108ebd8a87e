package org.p2psip.servlet.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.function.Predicate;

import javax.sip.message.Request;

import org.junit.jupiter.api.Test;
import org.p2psip.servlet.testing.Messages;

import gov.nist.javax.sip.message.SIPMessage;

class ClientSourceTest {

    private static final String CLIENT_VIA = "Via: SIP/2.0/UDP 192.168.1.20:5062;branch=z9hG4bKphone;"
            + "received=203.0.113.7;rport=40000\r\n";
    private static final String BALANCER_VIA = "Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bKlb\r\n";

    private static Request register(String vias, String sourceIp, int sourcePort) throws Exception {
        Request r = Messages.MESSAGES.createRequest("REGISTER sip:p2psip.test SIP/2.0\r\n" + vias
                + "Max-Forwards: 70\r\nTo: <sip:alice@p2psip.test>\r\nFrom: <sip:alice@p2psip.test>;tag=1\r\n"
                + "Call-ID: c1\r\nCSeq: 1 REGISTER\r\nContent-Length: 0\r\n\r\n");
        ((SIPMessage) r).setRemoteAddress(InetAddress.getByName(sourceIp));
        ((SIPMessage) r).setRemotePort(sourcePort);
        return r;
    }

    private static Predicate<InetAddress> trusting(String... ips) throws Exception {
        Set<InetAddress> set = new java.util.HashSet<>();
        for (String ip : ips) {
            set.add(InetAddress.getByName(ip));
        }
        return set::contains;
    }

    @Test
    void aDirectClientIsThePacketsSource() throws Exception {
        Request r = register("Via: SIP/2.0/UDP 192.168.1.20:5062;branch=z9hG4bKphone\r\n", "203.0.113.7", 40000);

        assertEquals(new InetSocketAddress("203.0.113.7", 40000), ClientSource.of(r, trusting("10.0.0.1")));
    }

    @Test
    void behindTheBalancerItIsWhereTheBalancerSawTheClient() throws Exception {
        Request r = register(BALANCER_VIA + CLIENT_VIA, "10.0.0.1", 5060);

        assertEquals(new InetSocketAddress("203.0.113.7", 40000), ClientSource.of(r, trusting("10.0.0.1")));
    }

    @Test
    void anUntrustedSendersViasAreNotBelieved() throws Exception {
        Request r = register(BALANCER_VIA + CLIENT_VIA, "198.51.100.9", 5060);

        assertEquals(new InetSocketAddress("198.51.100.9", 5060), ClientSource.of(r, trusting("10.0.0.1")));
    }

    @Test
    void aViaWithoutReceivedGivesItsSentBy() throws Exception {
        Request r = register(BALANCER_VIA + "Via: SIP/2.0/UDP 192.0.2.5;branch=z9hG4bKphone\r\n", "10.0.0.1", 5060);

        assertEquals(new InetSocketAddress("192.0.2.5", 5060), ClientSource.of(r, trusting("10.0.0.1")));
    }

    @Test
    void aHostNameBelowTheBalancerStopsAtTheBalancer() throws Exception {
        Request r = register(BALANCER_VIA + "Via: SIP/2.0/UDP phone.example.com;branch=z9hG4bKphone\r\n",
                "10.0.0.1", 5060);

        assertEquals(new InetSocketAddress("10.0.0.1", 5060), ClientSource.of(r, trusting("10.0.0.1")));
    }

    @Test
    void aResponseGivesTheSourceTheStackWroteInItsTopVia() throws Exception {
        javax.sip.message.Response r = Messages.MESSAGES.createResponse("SIP/2.0 200 OK\r\n" + BALANCER_VIA
                .replace("branch=z9hG4bKlb", "branch=z9hG4bKlb;received=10.0.0.1") + CLIENT_VIA
                + "To: <sip:alice@p2psip.test>;tag=2\r\nFrom: <sip:alice@p2psip.test>;tag=1\r\nCall-ID: c1\r\n"
                + "CSeq: 1 REGISTER\r\nContent-Length: 0\r\n\r\n");

        assertEquals(new InetSocketAddress("203.0.113.7", 40000), ClientSource.of(r, trusting("10.0.0.1")));
        assertEquals("203.0.113.7:40000", ClientSource.text(ClientSource.of(r, trusting("10.0.0.1"))));
    }
}
