package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.DhtException;

/** The backend's options, and the cluster name derived from the secret. */
class HazelcastOptionsTest {

    private static final String SECRET = "S-hazelcast-test-secret";

    @Test
    void derivedClusterNameDependsOnSecretAndNameAndNeitherIsPrinted() {
        HazelcastOptions s = HazelcastOptions.parse(Map.of("overlay-secret", SECRET));
        String name = s.hazelcastClusterName();
        assertTrue(name.startsWith("p2psip-"), name);
        assertEquals("p2psip-".length() + HazelcastOptions.DERIVED_NAME_HEX_DIGITS, name.length());
        assertTrue(!name.contains(SECRET) && !s.toString().contains(SECRET) && !s.toString().contains(name));
        assertNotEquals(name, HazelcastOptions.parse(Map.of("overlay-secret", "not-S")).hazelcastClusterName());
        assertNotEquals(name.substring(name.length() - HazelcastOptions.DERIVED_NAME_HEX_DIGITS),
                HazelcastOptions.parse(Map.of("overlay-secret", SECRET, "cluster-name", "east"))
                        .hazelcastClusterName().substring("east-".length()));
        assertEquals("p2psip", HazelcastOptions.parse(Map.of()).hazelcastClusterName(), "no secret: the plain name");
    }

    @Test
    void clientPortIsAMembersPortAndIsCheckedUpFront() {
        assertEquals(5802, HazelcastOptions.parse(Map.of("client-port", "5802")).clientPort().getAsInt());
        assertTrue(HazelcastOptions.parse(Map.of()).clientPort().isEmpty(), "closed unless asked for");
        assertTrue(assertThrows(DhtException.class, () -> HazelcastOptions.parse(Map.of("client-port", "70000")))
                .getMessage().contains("client-port"));
        assertTrue(assertThrows(DhtException.class, () -> HazelcastOptions.parse(Map.of("client-port", "x")))
                .getMessage().contains("client-port"));
        assertTrue(assertThrows(DhtException.class, () -> HazelcastOptions.parse(Map.of("client-port", "5802",
                "client", "true"))).getMessage().contains("for members"));
    }

    @Test
    void anEmptySecretIsRefused() {
        assertThrows(DhtException.class, () -> HazelcastOptions.parse(Map.of("overlay-secret", "")));
    }
}
