package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.p2psip.core.location.AddressOfRecord;

class UserCredentialsTest {

    private static final AddressOfRecord ALICE = AddressOfRecord.parse("sip:alice@p2psip.test");

    @Test
    void fromPasswordKeepsHa1ForEveryAlgorithmInTheAorsRealm() {
        UserCredentials c = UserCredentials.fromPassword(ALICE, "wonderland");
        assertEquals("p2psip.test", c.realm());
        assertEquals(DigestAlgorithm.MD5.ha1("alice", "p2psip.test", "wonderland"), c.ha1For(DigestAlgorithm.MD5).orElseThrow());
        assertEquals(DigestAlgorithm.values().length, c.ha1().size());
    }

    @Test
    void encodedCredentialsReadBack() {
        UserCredentials c = UserCredentials.fromPassword(AddressOfRecord.parse("sip:b%40b@p2psip.test"), "x");
        assertEquals(c, UserCredentials.decode(c.encode()));
    }

    @Test
    void theTextFormNeverShowsHa1() {
        UserCredentials c = UserCredentials.fromPassword(ALICE, "wonderland");
        for (String ha1 : c.ha1().values()) {
            assertFalse(c.toString().contains(ha1));
        }
    }

    @Test
    void aUserOwnsOnlyItsOwnAor() {
        UserCredentials c = UserCredentials.fromPassword(ALICE, "wonderland");
        assertTrue(c.owns(AddressOfRecord.parse("sip:alice@P2PSIP.test")));
        assertFalse(c.owns(AddressOfRecord.parse("sip:bob@p2psip.test")));
    }

    @Test
    void ha1OfTheWrongLengthIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new UserCredentials(ALICE, "p2psip.test", Map.of(DigestAlgorithm.SHA_256, "abcd")));
        assertThrows(IllegalArgumentException.class,
                () -> UserCredentials.decode(new byte[] {9, 0}));
    }
}
