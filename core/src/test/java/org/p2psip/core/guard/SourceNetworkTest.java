package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.net.InetAddress;

import org.junit.jupiter.api.Test;

class SourceNetworkTest {

    private static String of(String ip) throws Exception {
        return SourceNetwork.of(InetAddress.getByName(ip));
    }

    @Test
    void ipv4AddressesShareTheirSlash24() throws Exception {
        assertEquals("192.0.2/24", of("192.0.2.7"));
        assertEquals(of("192.0.2.7"), of("192.0.2.250"));
        assertNotEquals(of("192.0.2.7"), of("192.0.3.7"));
    }

    @Test
    void ipv6AddressesShareTheirSlash64() throws Exception {
        assertEquals(of("2001:db8:0:a1::1"), of("2001:db8:0:a1:ffff::9"));
        assertNotEquals(of("2001:db8:0:a1::1"), of("2001:db8:0:a2::1"));
        assertEquals("20010db8000000a1/64", of("2001:db8:0:a1::1"));
    }
}
