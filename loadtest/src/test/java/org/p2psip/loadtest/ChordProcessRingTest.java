package org.p2psip.loadtest;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.dht.chord.IdSpace;

/**
 * A 16-process Chord ring on 127.0.0.1, as an operator would run it:
 * registrations while the ring is still settling, a graceful leave, a join,
 * then two ring-adjacent nodes SIGKILLed at once. With {@code --replicas 3}
 * no acknowledged binding may be lost. (The ring's invariants are asserted
 * step by step in dht-chord's in-process ring tests, which can see every
 * node's state; here the processes are opaque and the check is what a SIP
 * client sees.)
 */
@Timeout(400)
class ChordProcessRingTest {

    private static final int NODES = 16;
    private static final int AORS = 1000;

    private final OverlayNodes ring = new OverlayNodes("chord", 3);

    @AfterEach
    void stopRing() throws Exception {
        ring.close();
    }

    @Test
    void aLeaveAJoinAndTwoAdjacentSigkillsLoseNoAcknowledgedBindingWithThreeReplicas() throws Exception {
        OverlayNodes.Member seed = ring.startAll(NODES);
        int entry = seed.sip();
        Map<String, String> expected = OverlayNodes.bindings(AORS);
        try (SipUdpClient client = new SipUdpClient()) {
            OverlayNodes.registerAll(client, entry, expected);

            ring.leave(ring.members().get(5));
            ring.start(seed).process().awaitOutput("listening", Duration.ofSeconds(60));

            OverlayNodes.Member reader = ring.members().get(1);
            List<OverlayNodes.Member> killed = adjacentPairAvoiding(Set.of(seed, reader));
            String before = ringOrder(killed);
            ring.kill(killed);

            ring.assertAllListed(client, entry, reader.sip(), expected, "after two adjacent kills (ring before: "
                    + before + ")", user -> " at " + idPrefix("sip:" + user + "@127.0.0.1:" + entry));
        }
    }

    /** The members in ring order, as id prefix and overlay port, the killed ones marked. */
    private String ringOrder(List<OverlayNodes.Member> killed) {
        return ring.members().stream().sorted(Comparator.comparing(m -> IdSpace.SHA1.idOf(m.overlayAddress())))
                .map(m -> prefix(IdSpace.SHA1.idOf(m.overlayAddress())) + "@" + m.overlay()
                        + (killed.contains(m) ? "(killed)" : ""))
                .toList().toString();
    }

    /** Where an AOR's key lies on the ring: the first hex digits of its id. */
    private static String idPrefix(String aor) {
        return prefix(IdSpace.SHA1.idOf(AddressOfRecord.parse(aor).key()));
    }

    private static String prefix(java.math.BigInteger id) {
        return String.format("%040x", id).substring(0, 6);
    }

    /** Two nodes next to each other on the ring: the owner and the first replica of the keys between them. */
    private List<OverlayNodes.Member> adjacentPairAvoiding(Set<OverlayNodes.Member> spared) {
        List<OverlayNodes.Member> byId = ring.members().stream()
                .sorted(Comparator.comparing(m -> IdSpace.SHA1.idOf(m.overlayAddress()))).toList();
        for (int i = 0; i < byId.size(); i++) {
            OverlayNodes.Member a = byId.get(i);
            OverlayNodes.Member b = byId.get((i + 1) % byId.size());
            if (!spared.contains(a) && !spared.contains(b)) {
                return List.of(a, b);
            }
        }
        throw new IllegalStateException("no adjacent pair outside " + spared);
    }
}
