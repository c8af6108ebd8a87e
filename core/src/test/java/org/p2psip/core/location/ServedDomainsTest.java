package org.p2psip.core.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

class ServedDomainsTest {

    private final ServedDomains domains = new ServedDomains(List.of("P2PSIP.test", "example.com"),
            List.of(new HostPort("127.0.0.1", 5062), new HostPort("127.0.0.1", 5060)));

    private Optional<AddressOfRecord> canonical(String uri) {
        return domains.canonical(AddressOfRecord.parse(uri));
    }

    @Test
    void theNodesAddressWithOrWithoutItsPortIsTheDefaultDomain() {
        AddressOfRecord dave = AddressOfRecord.parse("sip:dave@p2psip.test");
        assertEquals(Optional.of(dave), canonical("sip:dave@127.0.0.1"));
        assertEquals(Optional.of(dave), canonical("sip:dave@127.0.0.1:5060"));
        assertEquals(Optional.of(dave), canonical("sips:dave@127.0.0.1:5062"));
        assertEquals(Optional.of(dave), canonical("sip:dave@p2psip.test"));
    }

    @Test
    void aServedDomainIgnoresThePortAndKeepsItsOwnName() {
        assertEquals(Optional.of(AddressOfRecord.parse("sip:carol@example.com")), canonical("sip:carol@EXAMPLE.com:5070"));
    }

    @Test
    void anotherPortOfTheSameHostOrAnotherHostIsForeign() {
        assertTrue(canonical("sip:dave@127.0.0.1:5099").isEmpty());
        assertTrue(canonical("sip:dave@127.0.0.99").isEmpty());
        assertTrue(canonical("sip:dave@sub.example.com").isEmpty());
        assertFalse(domains.serves(SipUri.parse("sip:x@evil.test")));
    }

    @Test
    void anAliasIsMatchedByHostAndPortWithAMissingPortMeaning5060() {
        assertTrue(domains.isAlias("127.0.0.1", 5062));
        assertTrue(domains.isAlias("127.0.0.1", 0));
        assertFalse(domains.isAlias("127.0.0.1", 5099));
        assertFalse(domains.isAlias("p2psip.test", 5060));
    }

    @Test
    void theFirstDomainIsTheDefault() {
        assertEquals("p2psip.test", domains.defaultDomain());
    }

    @Test
    void aDomainWithAPortOrAUserIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ServedDomains.of("example.com:5060"));
        assertThrows(IllegalArgumentException.class, () -> ServedDomains.of("alice@example.com"));
        assertThrows(IllegalArgumentException.class, () -> new ServedDomains(List.of(), List.of()));
    }

    @Test
    void ipv6AliasesMatchWithOrWithoutBrackets() {
        ServedDomains v6 = ServedDomains.of("p2psip.test", new HostPort("::1", 5060));
        assertEquals(Optional.of(AddressOfRecord.parse("sip:eve@p2psip.test")),
                v6.canonical(AddressOfRecord.parse("sip:eve@[::1]:5060")));
        assertTrue(v6.serves("[::1]", java.util.OptionalInt.empty()));
    }
}
