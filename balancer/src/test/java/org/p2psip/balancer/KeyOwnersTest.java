package org.p2psip.balancer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.net.HostPort;

class KeyOwnersTest {

    private final NodeSet nodes = new NodeSet(List.of(HostPort.parse("127.0.0.1:5061"),
            HostPort.parse("127.0.0.1:5062"), HostPort.parse("127.0.0.1:5063")));
    private final KeyOwners owners = new KeyOwners(3);

    private NodeSet.Node owner(long point) {
        return owners.ownerOf(point, nodes.live()).orElseThrow();
    }

    @Test
    void ofTwoOverlappingClaimsTheOneThatChangedLastWins() {
        owners.claim(0, Optional.of(KeyRangeSet.arc(0, 1_000)));
        owners.claim(1, Optional.of(KeyRangeSet.arc(1_000, 2_000)));
        assertEquals(nodes.all().get(0), owner(500));

        owners.claim(1, Optional.of(KeyRangeSet.arc(0, 2_000)));
        assertEquals(nodes.all().get(1), owner(500), "the successor of a node that died has taken its range over");

        owners.claim(0, Optional.of(KeyRangeSet.arc(0, 1_000)));
        assertEquals(nodes.all().get(1), owner(500), "the same claim again is the old word, not a new one");

        owners.claim(0, Optional.of(KeyRangeSet.arc(0, 600)));
        assertEquals(nodes.all().get(0), owner(500), "a claim that changed since is newer");
        assertEquals(nodes.all().get(1), owner(700));
    }

    @Test
    void aClaimWithdrawnAndMadeAgainCountsAsNew() {
        owners.claim(0, Optional.of(KeyRangeSet.arc(0, 1_000)));
        owners.claim(2, Optional.of(KeyRangeSet.arc(0, 1_000)));
        assertEquals(nodes.all().get(2), owner(500));
        owners.claim(2, Optional.empty());
        assertEquals(nodes.all().get(0), owner(500));
        owners.claim(2, Optional.of(KeyRangeSet.arc(0, 1_000)));
        assertEquals(nodes.all().get(2), owner(500));
        assertTrue(owners.ownerOf(5_000, nodes.live()).isEmpty(), "a point nobody claims has no owner");
    }
}
