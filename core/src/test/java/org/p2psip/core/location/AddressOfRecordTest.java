package org.p2psip.core.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

class AddressOfRecordTest {

    private static String key(String uri) {
        return AddressOfRecord.parse(uri).key();
    }

    @Test
    void uriParametersAreRemoved() {
        assertEquals("alice@atlanta.com", key("sip:alice@atlanta.com;transport=tcp;user=phone;lr"));
    }

    @Test
    void uriHeadersAreRemoved() {
        assertEquals("alice@atlanta.com", key("sip:alice@atlanta.com?subject=hi&priority=urgent"));
    }

    @Test
    void escapedCharactersAreResolved() {
        assertEquals("alice@atlanta.com", key("sip:%61%6c%69%63%65@atlanta.com"));
        assertEquals(key("sip:alice@atlanta.com"), key("sip:%61lice@atlanta.com"));
    }

    @Test
    void escapedReservedCharactersAreResolvedToo() {
        // §10.3 step 5: "any escaped characters MUST be converted to their unescaped form"
        assertEquals("a;b@atlanta.com", key("sip:a%3Bb@atlanta.com"));
        assertEquals(key("sip:a;b@atlanta.com"), key("sip:a%3bb@atlanta.com"));
        assertEquals("user;par=u@example.net@example.com", key("sip:user;par=u%40example.net@example.com"));
    }

    @Test
    void escapedUtf8IsResolvedToTheCharacter() {
        assertEquals("jos\u00e9@x.org", key("sip:jos%C3%A9@x.org"));
        assertEquals(key("sip:jos%C3%A9@x.org"), key("sip:jos\u00e9@x.org"));
    }

    @Test
    void escapedPercentAndNonUtf8OctetsStayDistinct() {
        assertEquals("100%25@x.org", key("sip:100%25@x.org"));
        assertEquals("%FF@x.org", key("sip:%FF@x.org"));
        assertNotEquals(key("sip:%FF@x.org"), key("sip:%FE@x.org"));
        assertNotEquals(key("sip:%FF@x.org"), key("sip:%25FF@x.org"));
        assertNotEquals(key("sip:%C3@x.org"), key("sip:%C3%A9@x.org"));
    }

    @Test
    void escapedNullDoesNotTruncateTheKey() {
        assertEquals("null-\u0000-null@example.com", key("sip:null-%00-null@example.com"));
        assertNotEquals(key("sip:null-@example.com"), key("sip:null-%00-null@example.com"));
    }

    @Test
    void hostIsCaseInsensitive() {
        assertEquals(key("sip:alice@atlanta.com"), key("sip:alice@AtLanTa.CoM"));
        assertEquals("atlanta.com", new AddressOfRecord("alice", "ATLANTA.com", OptionalInt.empty()).host());
    }

    @Test
    void userIsCaseSensitive() {
        assertNotEquals(key("sip:alice@atlanta.com"), key("sip:Alice@atlanta.com"));
    }

    @Test
    void sipAndSipsNameTheSameAor() {
        assertEquals(AddressOfRecord.parse("sip:alice@atlanta.com"), AddressOfRecord.parse("sips:alice@atlanta.com"));
    }

    @Test
    void portIsKept() {
        assertEquals("alice@atlanta.com:5070", key("sip:alice@atlanta.com:5070;transport=udp"));
        assertNotEquals(key("sip:alice@atlanta.com"), key("sip:alice@atlanta.com:5060"));
    }

    @Test
    void ipv6HostIsBracketedInTheKey() {
        assertEquals("alice@[2001:db8::1]:5060", key("sip:alice@[2001:DB8::1]:5060"));
    }

    @Test
    void aorWithoutUserIsJustTheHost() {
        assertEquals("example.com", key("sip:example.com;transport=tcp"));
    }

    @Test
    void passwordStaysInTheUserInfo() {
        assertEquals("alice:pw@atlanta.com", key("sip:alice:pw@atlanta.com"));
    }

    @Test
    void equalAorsAreEqualValues() {
        AddressOfRecord a = AddressOfRecord.parse("sip:%61lice@ATLANTA.com;transport=tcp?x=y");
        AddressOfRecord b = AddressOfRecord.parse("sips:alice@atlanta.com");
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals("sip:alice@atlanta.com", a.toString());
    }

    @Test
    void malformedToUriIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> AddressOfRecord.parse("tel:+15551234"));
        assertThrows(IllegalArgumentException.class, () -> AddressOfRecord.parse("sip:alice@"));
        assertThrows(IllegalArgumentException.class, () -> new AddressOfRecord("alice", "", OptionalInt.empty()));
    }
}
