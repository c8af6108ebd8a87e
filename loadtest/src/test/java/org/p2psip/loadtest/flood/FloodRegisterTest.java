package org.p2psip.loadtest.flood;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;

import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.parser.StringMsgParser;
import org.junit.jupiter.api.Test;

class FloodRegisterTest {

    @Test
    void eachFloodRegisterIsAWellFormedNewRequestWithoutCredentials() throws Exception {
        try (DatagramChannel from = DatagramChannel.open()) {
            from.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            byte[] raw = FloodCommand.register(new InetSocketAddress("127.0.0.1", 5060), from, "p2psip.test", 42);
            SIPRequest parsed = (SIPRequest) new StringMsgParser().parseSIPMessage(raw, true, false, null);
            assertEquals("REGISTER", parsed.getMethod());
            assertEquals("sip:f42@p2psip.test", parsed.getTo().getAddress().getURI().toString());
            assertNull(parsed.getHeader("Authorization"));
            byte[] next = FloodCommand.register(new InetSocketAddress("127.0.0.1", 5060), from, "p2psip.test", 43);
            SIPRequest other = (SIPRequest) new StringMsgParser().parseSIPMessage(next, true, false, null);
            assertEquals(false, parsed.getTopmostVia().getBranch().equals(other.getTopmostVia().getBranch()),
                    "each is a transaction of its own");
        }
    }
}
