package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

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
    private static final String SECRET = "kademlia-overlay-test-" + UUID.randomUUID();

    /** One node process and its addresses; its id is SHA-1 of its overlay address, as the provider takes it. */
    private record RingNode(NodeProcess process, int sip, int overlay) {
        BigInteger id() {
            return IdSpace.SHA1.idOf("127.0.0.1:" + overlay);
        }
    }

    private final List<RingNode> nodes = new ArrayList<>();

    @AfterEach
    void stopRing() throws Exception {
        for (RingNode n : nodes) {
            n.process().close();
        }
    }

    @Test
    void aJoinAndTwoSimultaneousSigkillsOfXorNeighboursLoseNoAcknowledgedBindingWithThreeReplicas() throws Exception {
        RingNode seed = startNode(null);
        seed.process().awaitOutput("listening", Duration.ofSeconds(60));
        for (int i = 1; i < NODES; i++) {
            startNode(seed);
        }
        for (RingNode n : nodes) {
            n.process().awaitOutput("listening", Duration.ofSeconds(120));
        }

        int entry = seed.sip();
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < AORS; i++) {
            expected.put("r" + i, "sip:r" + i + "@127.0.0.1:" + (31000 + i));
        }
        try (SipUdpClient client = new SipUdpClient()) {
            Set<String> unacknowledged = client.registerUntilAcknowledged(entry, expected, Duration.ofSeconds(120));
            assertTrue(unacknowledged.isEmpty(), unacknowledged.size() + " REGISTERs never acknowledged");

            startNode(seed).process().awaitOutput("listening", Duration.ofSeconds(60));

            RingNode reader = nodes.get(1);
            List<RingNode> victims = nearestPairAvoiding(Set.of(seed, reader));
            for (RingNode victim : victims) {
                victim.process().kill();
            }
            nodes.removeAll(victims);

            Map<String, List<String>> listed = client.fetchUntilListed(entry, reader.sip(), expected.keySet(),
                    Duration.ofSeconds(120));
            listed.forEach((user, contacts) ->
                    assertEquals(List.of(expected.get(user)), contacts, "binding of " + user + " after the kills"));
            Set<String> missing = new HashSet<>(expected.keySet());
            missing.removeAll(listed.keySet());
            assertTrue(missing.isEmpty(), missing.size() + " acknowledged AORs unreadable after two simultaneous kills,"
                    + " e.g. " + missing.stream().limit(5).toList());
        }
    }

    private RingNode startNode(RingNode seed) throws Exception {
        int sip = FreePort.udpAndTcp();
        int overlay = FreePort.udpAndTcp();
        List<String> args = new ArrayList<>(List.of("node", "--dht", "kademlia",
                "--sip", "127.0.0.1:" + sip, "--overlay", "127.0.0.1:" + overlay,
                "--replicas", "3", "--overlay-secret", SECRET));
        if (seed != null) {
            args.addAll(List.of("--bootstrap", "127.0.0.1:" + seed.overlay()));
        }
        RingNode node = new RingNode(NodeProcess.start(args.toArray(String[]::new)), sip, overlay);
        nodes.add(node);
        return node;
    }

    /**
     * The two nodes closest to each other by XOR: for keys near them they
     * are the owner and the first replica, so killing both leaves only the
     * third copy.
     */
    private List<RingNode> nearestPairAvoiding(Set<RingNode> spared) {
        List<RingNode> pair = null;
        BigInteger best = null;
        for (RingNode a : nodes) {
            for (RingNode b : nodes) {
                if (a == b || spared.contains(a) || spared.contains(b)) {
                    continue;
                }
                BigInteger d = a.id().xor(b.id());
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
