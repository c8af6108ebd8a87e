package org.p2psip.core.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostPortTest {

    @Test
    void parsesHostNameAndPortAndLowerCasesTheHost() {
        HostPort hp = HostPort.parse("Proxy.Example.COM:5060");
        assertEquals("proxy.example.com", hp.host());
        assertEquals(5060, hp.port());
    }

    @Test
    void parsesIpv4() {
        assertEquals(new HostPort("127.0.0.1", 5080), HostPort.parse("127.0.0.1:5080"));
    }

    @Test
    void parsesBracketedIpv6AndStoresItWithoutBrackets() {
        HostPort hp = HostPort.parse("[2001:DB8::1]:5061");
        assertEquals("2001:db8::1", hp.host());
        assertEquals(5061, hp.port());
        assertEquals("[2001:db8::1]", hp.uriHost());
        assertEquals("[2001:db8::1]:5061", hp.toString());
    }

    @Test
    void surroundingWhitespaceIsIgnored() {
        assertEquals(new HostPort("a.example", 1), HostPort.parse("  a.example:1 "));
    }

    @Test
    void constructorAcceptsBracketedIpv6AndNormalises() {
        assertEquals(new HostPort("::1", 5060), new HostPort("[::1]", 5060));
        assertEquals("example.com", new HostPort("EXAMPLE.com", 0).host());
    }

    @ParameterizedTest
    @ValueSource(strings = {"example.com:5060", "[::1]:1", "10.0.0.1:65535", "[2001:db8::5]:5070"})
    void toStringParsesBackToTheSameValue(String text) {
        HostPort hp = HostPort.parse(text);
        assertEquals(text, hp.toString());
        assertEquals(hp, HostPort.parse(hp.toString()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"example.com", "example.com:", ":5060", "example.com:abc", "example.com:0",
            "example.com:65536", "example.com:-1", "example.com:+5060", "example.com:5060x", "::1:5060",
            "[::1]", "[::1]5060", "[::1:5060", "[]:5060", "[::1]:", "a b:5060", "example.com:\u0665\u0660",
            "example.com:0005060", "", "   "})
    void malformedAddressIsRejectedWithAMessageNamingIt(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostPort.parse(text));
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
    }

    @Test
    void nullIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> HostPort.parse(null));
        assertThrows(IllegalArgumentException.class, () -> new HostPort(null, 1));
    }

    @Test
    void constructorRejectsBadHostsAndPorts() {
        assertThrows(IllegalArgumentException.class, () -> new HostPort("", 1));
        assertThrows(IllegalArgumentException.class, () -> new HostPort(" ", 1));
        assertThrows(IllegalArgumentException.class, () -> new HostPort("[]", 1));
        assertThrows(IllegalArgumentException.class, () -> new HostPort("[::1", 1));
        assertThrows(IllegalArgumentException.class, () -> new HostPort("a b", 1));
        assertThrows(IllegalArgumentException.class, () -> new HostPort("x", -1));
        assertThrows(IllegalArgumentException.class, () -> new HostPort("x", 65536));
    }

    @Test
    void parseListSplitsOnCommasAndSkipsBlanks() {
        assertEquals(List.of(new HostPort("a", 1), new HostPort("::1", 2), new HostPort("c", 3)),
                HostPort.parseList("a:1, [::1]:2,,c:3 ,"));
    }

    @Test
    void parseListOfNothingIsEmpty() {
        assertEquals(List.of(), HostPort.parseList(null));
        assertEquals(List.of(), HostPort.parseList(""));
        assertEquals(List.of(), HostPort.parseList("  "));
    }

    @Test
    void parseListRejectsAnyBadEntry() {
        assertThrows(IllegalArgumentException.class, () -> HostPort.parseList("a:1,b"));
    }

    @Test
    void parseListIsUnmodifiable() {
        assertThrows(UnsupportedOperationException.class, () -> HostPort.parseList("a:1").add(new HostPort("b", 2)));
    }
}
