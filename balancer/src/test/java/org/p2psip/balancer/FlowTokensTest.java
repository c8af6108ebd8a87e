package org.p2psip.balancer;

import org.p2psip.sip.wire.Transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

class FlowTokensTest {

    private final FlowTokens tokens = new FlowTokens(new byte[32]);

    @Test
    void aTokenNamesItsConnectionAndTransport() {
        FlowTokens.Flow tls = new FlowTokens.Flow(Transport.TLS, 0xfeedL);

        assertEquals(Optional.of(tls), tokens.read(tokens.token(tls)));
        assertEquals(Optional.of(new FlowTokens.Flow(Transport.TCP, Long.MAX_VALUE)),
                tokens.read(tokens.token(new FlowTokens.Flow(Transport.TCP, Long.MAX_VALUE))));
    }

    @Test
    void anAlteredOrForeignTokenNamesNoFlow() {
        String token = tokens.token(new FlowTokens.Flow(Transport.TCP, 7));
        String otherConnection = "t8" + token.substring(2);
        char last = token.charAt(token.length() - 1);
        String otherMac = token.substring(0, token.length() - 1) + (last == '0' ? '1' : '0');

        assertTrue(tokens.read(otherConnection).isEmpty(), "the MAC covers the connection number");
        assertTrue(tokens.read(otherMac).isEmpty());
        assertTrue(new FlowTokens(new byte[] {1}).read(token).isEmpty(), "another balancer's key");
        for (String junk : new String[] {"", "t", "t-", "x7-0000000000000000", "t7-00", "tzz-0000000000000000", "alice"}) {
            assertTrue(tokens.read(junk).isEmpty(), junk);
        }
    }

    @Test
    void udpHasNoFlowToken() {
        assertThrows(IllegalArgumentException.class, () -> new FlowTokens.Flow(Transport.UDP, 1));
    }
}
