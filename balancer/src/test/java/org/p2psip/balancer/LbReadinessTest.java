package org.p2psip.balancer;

import org.p2psip.sip.wire.MalformedSipException;
import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.SipParser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.net.HostPort;

/** Issue 33 in the selector: warming nodes get no new requests, nodes that turn ready ramp up. */
class LbReadinessTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 2_000 * SECOND;

    private final NodeSet nodes = new NodeSet(List.of(HostPort.parse("127.0.0.1:5061"),
            HostPort.parse("127.0.0.1:5062"), HostPort.parse("127.0.0.1:5063")));
    private final KeyOwners owners = new KeyOwners(3);
    private final NodeLoad load = new NodeLoad(3);
    private final BalancerCounters counters = new BalancerCounters();
    private final SlowStart slowStart = new SlowStart(3, Duration.ofSeconds(10));

    private NodeSelector selector(BalancingPolicy policy) {
        return new NodeSelector(policy, nodes, owners, load, counters, slowStart);
    }

    private NodeSet.Node node(int i) {
        return nodes.all().get(i);
    }

    private static SipMessage parse(String text) throws MalformedSipException {
        return SipParser.parse(LbText.udp(text));
    }

    /** {@code invite} as the same transaction again with {@code method}: a retransmission, or its CANCEL. */
    private static String sameTransaction(String invite, String method) {
        return invite.replace("INVITE sip:", method + " sip:").replace("1 INVITE", "1 " + method)
                .replace("Content-Length: 5\nv=0\n", "Content-Length: 0\n");
    }

    /** A BYE in the dialog {@code invite} made: a new transaction, by the same Call-ID. */
    private static String bye(String invite, String branch) {
        return sameTransaction(invite, "BYE").replaceFirst("branch=z9hG4bK[^\n]*", "branch=" + branch)
                .replace("1 BYE", "2 BYE").replace("To: <sip:bob@example.com>", "To: <sip:bob@example.com>;tag=b1");
    }

    @Test
    void notReadyNodeGetsNoNewRequestsButKeepsItsTransactions() throws Exception {
        NodeSelector callId = selector(BalancingPolicy.CALL_ID);
        List<String> itsInvites = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String invite = LbText.invite("warm-" + i, "z9hG4bKwarm-" + i);
            if (callId.choose(parse(invite), T0).orElseThrow().equals(node(0))) {
                itsInvites.add(invite);
            }
        }
        assertTrue(itsInvites.size() > 50, "node 0 took " + itsInvites.size() + " of 300 calls");

        nodes.markReady(0, false);

        assertTrue(nodes.isUp(0), "warming is not down");
        for (String invite : itsInvites) {
            assertEquals(node(0), callId.choose(parse(invite), T0 + SECOND).orElseThrow(), "a retransmission");
            assertEquals(node(0), callId.choose(parse(sameTransaction(invite, "CANCEL")), T0 + SECOND).orElseThrow(),
                    "its CANCEL (RFC 3261 §9.2)");
            assertNotEquals(node(0), callId.choose(parse(bye(invite, "z9hG4bKbye")), T0 + SECOND).orElseThrow(),
                    "a new transaction in its dialog goes to a ready node: nodes keep no dialog state");
        }
        for (int i = 0; i < 300; i++) {
            SipMessage fresh = parse(LbText.invite("fresh-" + i, "z9hG4bKfresh-" + i));
            assertNotEquals(node(0), callId.choose(fresh, T0 + SECOND).orElseThrow(), "fresh-" + i);
        }
    }

    @Test
    void whenNoNodeIsReadyNewRequestsFindNoneAsWhenAllAreDown() throws Exception {
        NodeSelector callId = selector(BalancingPolicy.CALL_ID);
        String earlier = LbText.invite("before", "z9hG4bKbefore");
        NodeSet.Node took = callId.choose(parse(earlier), T0).orElseThrow();
        nodes.all().forEach(n -> nodes.markReady(n.index(), false));

        assertEquals(Optional.empty(), callId.choose(parse(LbText.invite("after", "z9hG4bKafter")), T0 + SECOND));
        assertEquals(took, callId.choose(parse(earlier), T0 + SECOND).orElseThrow(),
                "a retransmission still reaches the transaction it belongs to");
        assertTrue(callId.allHolding(T0 + SECOND), "a node's 503 goes to the client as it is: none takes requests");
    }

    @Test
    void aNotReadyClaimantsKeysGoByCallIdAmongTheReadyNodes() throws Exception {
        NodeSelector owner = selector(BalancingPolicy.OWNER);
        owners.claim(1, Optional.of(KeyRangeSet.parse("0000000000000000-ffffffffffffffff")));
        nodes.markReady(1, false);
        List<NodeSet.Node> ready = List.of(node(0), node(2));
        for (int i = 0; i < 50; i++) {
            SipMessage m = parse(LbText.register("u" + i + "@example.com", "claim-" + i));
            assertEquals(NodeSelector.byHash(Fnv.hash(m.callId()), ready), owner.choose(m, T0).orElseThrow());
        }
    }

    @ParameterizedTest
    @EnumSource(value = BalancingPolicy.class, names = {"CALL_ID", "AOR", "ROUND_ROBIN"})
    void rampingNodeGetsItsShareOfNewRequests(BalancingPolicy policy) throws Exception {
        NodeSelector selector = selector(policy);
        slowStart.begin(0, T0);
        int requests = 6_000;

        // A third of the requests would go to node 0: a tenth of them at first, 55 % halfway, all at the end.
        assertShare(0.1 / 3, toNode0(selector, requests, "start", T0), requests);
        assertShare(0.55 / 3, toNode0(selector, requests, "half", T0 + 5 * SECOND), requests);
        assertShare(1.0 / 3, toNode0(selector, requests, "end", T0 + 10 * SECOND), requests);
        assertEquals(0, counters.diverted(), "the ramp is not load shedding");
    }

    @ParameterizedTest
    @EnumSource(value = BalancingPolicy.class, names = {"CALL_ID", "AOR"})
    void aHashedKeySkipsARampingNodeOrNotTheSameWayEachTime(BalancingPolicy policy) throws Exception {
        slowStart.begin(0, T0);
        NodeSelector first = selector(policy);
        NodeSelector second = selector(policy);
        for (int i = 0; i < 500; i++) {
            // Another transaction of the same call and AOR: the affinity table does not know it.
            String callId = "again-" + i;
            SipMessage m = parse(LbText.register("u" + i + "@example.com", callId));
            SipMessage later = parse(LbText.register("u" + i + "@example.com", callId)
                    .replace("z9hG4bK-" + callId, "z9hG4bK-other-" + callId));
            assertEquals(first.choose(m, T0 + 2 * SECOND), second.choose(later, T0 + 2 * SECOND), callId);
        }
    }

    @Test
    void aRampingClaimantGetsItsShareOfItsKeysAndTheOthersTakeTheRestByCallId() throws Exception {
        NodeSelector owner = selector(BalancingPolicy.OWNER);
        owners.claim(1, Optional.of(KeyRangeSet.parse("0000000000000000-ffffffffffffffff")));
        slowStart.begin(1, T0);
        List<NodeSet.Node> others = List.of(node(0), node(2));
        int aors = 3_000;
        List<Integer> itsAors = new ArrayList<>();
        for (int i = 0; i < aors; i++) {
            SipMessage m = parse(LbText.register("o" + i + "@example.com", "own-" + i));
            NodeSet.Node to = owner.choose(m, T0 + 5 * SECOND).orElseThrow();
            if (to.equals(node(1))) {
                itsAors.add(i);
            } else {
                assertEquals(NodeSelector.byHash(Fnv.hash(m.callId()), others), to, "o" + i);
            }
            SipMessage sameAor = parse(LbText.register("o" + i + "@example.com", "own-again-" + i));
            assertEquals(to.equals(node(1)), owner.choose(sameAor, T0 + 5 * SECOND).orElseThrow().equals(node(1)),
                    "the AOR decides, not the Call-ID");
        }
        assertShare(0.55, itsAors.size(), aors);
        for (int i : itsAors) {
            SipMessage refresh = parse(LbText.register("o" + i + "@example.com", "own-later-" + i));
            assertEquals(node(1), owner.choose(refresh, T0 + 8 * SECOND).orElseThrow(),
                    "an AOR the claimant took stays with it as its share grows");
        }
    }

    @Test
    void everyNodeRampingAtOnceStillServesEveryRequestEvenly() throws Exception {
        NodeSelector callId = selector(BalancingPolicy.CALL_ID);
        nodes.all().forEach(n -> slowStart.begin(n.index(), T0));
        int[] per = new int[3];
        for (int i = 0; i < 3_000; i++) {
            SipMessage m = parse(LbText.register("e" + i + "@example.com", "even-" + i));
            per[callId.choose(m, T0).orElseThrow().index()]++;
        }
        for (int n = 0; n < 3; n++) {
            assertTrue(per[n] > 850 && per[n] < 1_150, "node " + n + " got " + per[n] + " of 3000");
        }
    }

    @Test
    void aRampingNodeTakesWhatTheNodesHoldingOffCannot() throws Exception {
        NodeSelector callId = selector(BalancingPolicy.CALL_ID);
        slowStart.begin(0, T0);
        load.serviceUnavailable(1, 30, T0);
        load.serviceUnavailable(2, 30, T0);
        for (int i = 0; i < 200; i++) {
            SipMessage m = parse(LbText.register("s" + i + "@example.com", "shed-" + i));
            assertEquals(node(0), callId.choose(m, T0 + SECOND).orElseThrow(),
                    "the others hold off: the ramping node takes what it would have been spared");
        }
    }

    private int toNode0(NodeSelector selector, int requests, String phase, long now) throws Exception {
        int n = 0;
        for (int i = 0; i < requests; i++) {
            SipMessage m = parse(LbText.register(phase + i + "@example.com", phase + "-" + i));
            if (selector.choose(m, now).orElseThrow().equals(node(0))) {
                n++;
            }
        }
        return n;
    }

    /** {@code got} of {@code of} is {@code expected} of them, within a tenth of it or 1 % of all. */
    private static void assertShare(double expected, int got, int of) {
        double tolerance = Math.max(0.1 * expected * of, 0.01 * of);
        assertTrue(Math.abs(got - expected * of) <= tolerance,
                "expected about " + Math.round(expected * of) + " of " + of + ", got " + got);
    }
}
