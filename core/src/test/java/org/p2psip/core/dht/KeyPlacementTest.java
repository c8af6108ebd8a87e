package org.p2psip.core.dht;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.AuthKeys;
import org.p2psip.core.location.AddressOfRecord;

class KeyPlacementTest {

    @Test
    void aKeyIsPlacedByTheTextBeforeItsFirstHash() {
        assertEquals("alice@example.com", KeyPlacement.group("alice@example.com"));
        assertEquals("alice@example.com", KeyPlacement.group("alice@example.com#cred"));
        assertEquals("alice@example.com", KeyPlacement.group("alice@example.com#nc#abc#def"));
        assertEquals("", KeyPlacement.group("#x"));
    }

    @Test
    void anAorsTrustDataSharesTheAorsPoint() {
        AddressOfRecord aor = AddressOfRecord.parse("sip:alice@example.com");
        long point = KeyPlacement.point(aor.key());
        assertEquals(point, KeyPlacement.point(AuthKeys.credentials(aor)));
        assertEquals(point, KeyPlacement.point(AuthKeys.nonceCounts(aor, "n0nce")));
    }

    @Test
    void userIndexShardsAreSpreadOverDifferentPoints() {
        assertNotEquals(KeyPlacement.point(AuthKeys.indexShard(0)), KeyPlacement.point(AuthKeys.indexShard(1)));
    }

    @Test
    void thePointIsTheFirstEightBytesOfTheGroupsSha1() throws Exception {
        byte[] sha1 = MessageDigest.getInstance("SHA-1").digest("bob@b.org".getBytes(StandardCharsets.UTF_8));
        assertArrayEquals(sha1, KeyPlacement.digest("bob@b.org#cred"));
        long expected = new BigInteger(1, sha1).shiftRight(96).longValue();
        assertEquals(expected, KeyPlacement.point("bob@b.org#cred"));
    }

    @Test
    void aPointNeedsEightBytes() {
        assertThrows(IllegalArgumentException.class, () -> KeyPlacement.pointOf(new byte[7]));
        assertEquals(-1L, KeyPlacement.pointOf(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, 0}));
    }
}
