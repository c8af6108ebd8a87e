package org.p2psip.balancer;

import org.p2psip.sip.wire.Transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;

class LbReturnAddressTest {

    @Test
    void tokensRoundTripForUdpTcpAndIpv6() {
        for (ReturnAddress a : new ReturnAddress[] {
            new ReturnAddress(Transport.UDP, new InetSocketAddress("127.0.0.1", 5070), 0),
            new ReturnAddress(Transport.TCP, new InetSocketAddress("10.1.2.3", 65535), 77),
            new ReturnAddress(Transport.UDP, new InetSocketAddress("::1", 5060), 0)}) {
            String token = a.token();
            assertTrue(token.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '-'), token);
            assertEquals(a, ReturnAddress.parse(token).orElseThrow(), token);
        }
    }

    @Test
    void foreignTokensAreRefused() {
        for (String t : new String[] {null, "", "x7f000001-13ce", "u7f0001-13ce", "u7f000001-0", "u7f000001",
            "t7f000001-13ce", "uzz000001-13ce", "u7f000001-13ce-5"}) {
            assertTrue(ReturnAddress.parse(t).isEmpty(), String.valueOf(t));
        }
    }
}
