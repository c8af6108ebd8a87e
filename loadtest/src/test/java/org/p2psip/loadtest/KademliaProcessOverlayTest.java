package org.p2psip.loadtest;

import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.dht.kademlia.IdSpace;

/**
 * A 16-process Kademlia overlay on 127.0.0.1 over UDP, as an operator would
 * run it: joins (one more after the bindings are in), then the two nodes
 * nearest each other by XOR — both among the three closest nodes of every
 * key near them — SIGKILLed at once. With {@code --replicas 3} no
 * acknowledged binding may be lost. (Routing and lookups are checked step by
 * step in dht-kademlia's unit and in-process tests; here the processes are
 * opaque and the check is what a SIP client sees.)
 */
@Timeout(400)
class KademliaProcessOverlayTest {

    private static final int NODES = 16;
    private static final int AORS = 1000;

    private final OverlayNodes overlay = new OverlayNodes("kademlia", 3);

    @AfterEach
    void stopOverlay() throws Exception {
        overlay.close();
    }

    @Test
    void aJoinAndTwoSimultaneousSigkillsOfXorNeighboursLoseNoAcknowledgedBindingWithThreeReplicas() throws Exception {
        OverlayNodes.Member seed = overlay.startAll(NODES);
        int entry = seed.sip();
        Map<String, String> expected = OverlayNodes.bindings(AORS);
        try (SipUdpClient client = new SipUdpClient()) {
            OverlayNodes.registerAll(client, entry, expected);

            overlay.start(seed).process().awaitOutput("listening", Duration.ofSeconds(60));

            OverlayNodes.Member reader = overlay.members().get(1);
            overlay.kill(nearestPairAvoiding(Set.of(seed, reader)));

            overlay.assertAllListed(client, entry, reader.sip(), expected, "after two simultaneous kills");
        }
    }

    /**
     * The two nodes closest to each other by XOR: for keys near them they
     * are the owner and the first replica, so killing both leaves only the
     * third copy.
     */
    private List<OverlayNodes.Member> nearestPairAvoiding(Set<OverlayNodes.Member> spared) {
        List<OverlayNodes.Member> pair = null;
        BigInteger best = null;
        for (OverlayNodes.Member a : overlay.members()) {
            for (OverlayNodes.Member b : overlay.members()) {
                if (a == b || spared.contains(a) || spared.contains(b)) {
                    continue;
                }
                BigInteger d = IdSpace.SHA1.idOf(a.overlayAddress()).xor(IdSpace.SHA1.idOf(b.overlayAddress()));
                if (best == null || d.compareTo(best) < 0) {
                    best = d;
                    pair = List.of(a, b);
                }
            }
        }
        if (pair == null) {
            throw new IllegalStateException("no pair outside " + spared);
        }
        return pair;
    }
}
