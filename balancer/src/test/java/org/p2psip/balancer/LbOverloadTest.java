package org.p2psip.balancer;

import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.Transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.SipText;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;

/** 503 Retry-After and RFC 7339 loss-based overload control: the pure decision, then the router around it. */
class LbOverloadTest {

    private static final long SECOND = Duration.ofSeconds(1).toNanos();
    private static final long T0 = 1_000 * SECOND;

    private final NodeSet nodes = new NodeSet(List.of(HostPort.parse("127.0.0.1:5061"),
            HostPort.parse("127.0.0.1:5062"), HostPort.parse("127.0.0.1:5063")));
    private final NodeLoad load = new NodeLoad(3);

    private NodeSet.Node node(int i) {
        return nodes.all().get(i);
    }

    /** The nodes with {@code first} first, the others after in index order. */
    private List<NodeSet.Node> ranked(int first) {
        List<NodeSet.Node> r = new ArrayList<>(List.of(node(first)));
        nodes.all().stream().filter(n -> n.index() != first).forEach(r::add);
        return r;
    }

    private Optional<NodeSet.Node> choose(int first, long transaction, long now) {
        return load.choose(ranked(first), true, transaction, now);
    }

    @Test
    void retryAfterHoldsANodeOffForItsTimeThenItIsUsedAgain() {
        load.serviceUnavailable(0, 10, T0);

        assertEquals(node(1), choose(0, 1, T0 + SECOND).orElseThrow(), "the next in hash order takes it");
        assertEquals(node(1), choose(0, 1, T0 + 10 * SECOND - 1).orElseThrow());
        assertEquals(node(0), choose(0, 1, T0 + 10 * SECOND).orElseThrow());
    }

    @Test
    void retryAfterIsCappedAtThirtySeconds() {
        load.serviceUnavailable(0, 3600, T0);

        assertTrue(load.holding(0, T0 + 29 * SECOND));
        assertFalse(load.holding(0, T0 + 30 * SECOND));
    }

    @Test
    void a503WithoutRetryAfterHoldsNothing() {
        load.serviceUnavailable(0, -1, T0);
        load.serviceUnavailable(0, 0, T0);

        assertFalse(load.holding(0, T0));
        assertTrue(load.quiet(T0));
    }

    @Test
    void whenEveryNodeHoldsOffTheyAreUsedAsIfNoneDid() {
        for (int i = 0; i < 3; i++) {
            load.serviceUnavailable(i, 5, T0);
        }

        assertEquals(node(2), choose(2, 7, T0 + SECOND).orElseThrow());
        assertTrue(load.allHolding(nodes.all(), T0 + SECOND));
    }

    @Test
    void ocShedsThatShareOfNewRequestsToTheOtherNodes() {
        load.overloadControl(0, new OverloadControl(30, 10_000, BigDecimal.ONE), T0);

        int diverted = 0;
        int n = 10_000;
        for (long tx = 0; tx < n; tx++) {
            NodeSet.Node chosen = choose(0, Fnv.mix(tx), T0 + SECOND).orElseThrow();
            if (chosen != node(0)) {
                diverted++;
            }
        }
        assertTrue(diverted > n * 0.27 && diverted < n * 0.33, "diverted " + diverted + " of " + n);
    }

    @Test
    void aRetransmissionMeetsTheSameDecisionAsItsOriginal() {
        load.overloadControl(0, new OverloadControl(50, 10_000, BigDecimal.ONE), T0);

        for (long tx = 0; tx < 100; tx++) {
            assertEquals(choose(0, tx, T0 + 1), choose(0, tx, T0 + 2));
        }
    }

    @Test
    void ocEndsAfterItsValidityOrWithOcZeroAndAStaleSequenceIsIgnored() {
        load.overloadControl(0, new OverloadControl(100, 2_000, new BigDecimal("5")), T0);
        assertEquals(100, load.shedding(0, T0 + SECOND));
        assertEquals(0, load.shedding(0, T0 + 2 * SECOND), "validity over");

        load.overloadControl(0, new OverloadControl(100, 60_000, new BigDecimal("6")), T0);
        assertEquals(100, load.shedding(0, T0 + 29 * SECOND));
        assertEquals(0, load.shedding(0, T0 + 30 * SECOND), "validity capped at 30 s");

        load.overloadControl(0, new OverloadControl(100, 10_000, new BigDecimal("7")), T0);
        load.overloadControl(0, new OverloadControl(0, 10_000, new BigDecimal("6.5")), T0 + 1);
        assertEquals(100, load.shedding(0, T0 + 2), "an older instruction arriving late is ignored");
        load.overloadControl(0, new OverloadControl(0, 10_000, new BigDecimal("8")), T0 + 3);
        assertEquals(0, load.shedding(0, T0 + 4), "oc=0 lifts it at once");
    }

    @Test
    void theSameInstructionAgainDoesNotExtendIt() {
        load.overloadControl(0, new OverloadControl(40, 1_000, BigDecimal.TEN), T0);
        load.overloadControl(0, new OverloadControl(40, 1_000, BigDecimal.TEN), T0 + SECOND / 2);

        assertEquals(0, load.shedding(0, T0 + SECOND));
    }

    @Test
    void aShedRequestGoesOnlyToANodeThatShedsLess() {
        load.overloadControl(0, new OverloadControl(50, 10_000, BigDecimal.ONE), T0);
        load.overloadControl(1, new OverloadControl(50, 10_000, BigDecimal.ONE), T0);

        int kept = 0;
        int toTheQuietOne = 0;
        int n = 10_000;
        for (long tx = 0; tx < n; tx++) {
            NodeSet.Node chosen = choose(0, Fnv.mix(tx), T0 + SECOND).orElseThrow();
            assertNotEquals(node(1), chosen, "node 1 sheds as much as node 0; it takes none of node 0's");
            if (chosen == node(0)) {
                kept++;
            } else {
                toTheQuietOne++;
            }
        }
        assertTrue(kept > n * 0.47 && kept < n * 0.53, "kept " + kept + " of " + n);
        assertEquals(n - kept, toTheQuietOne);
    }

    @Test
    void aNodeThatShedsLessTakesTheShareOfAnotherItsOwnDrawLetsThrough() {
        load.overloadControl(0, new OverloadControl(60, 10_000, BigDecimal.ONE), T0);
        load.overloadControl(1, new OverloadControl(20, 10_000, BigDecimal.ONE), T0);
        load.overloadControl(2, new OverloadControl(60, 10_000, BigDecimal.ONE), T0);

        int[] chosen = new int[4];
        int n = 10_000;
        for (long tx = 0; tx < n; tx++) {
            chosen[choose(0, Fnv.mix(tx), T0 + SECOND).map(NodeSet.Node::index).orElse(3)]++;
        }
        assertTrue(chosen[0] > n * 0.37 && chosen[0] < n * 0.43, "node 0 keeps 40 %: " + chosen[0]);
        assertTrue(chosen[1] > n * 0.45 && chosen[1] < n * 0.51, "node 1 takes 80 % of the 60 % shed: " + chosen[1]);
        assertEquals(0, chosen[2], "node 2 sheds as much as node 0");
        assertTrue(chosen[3] > n * 0.09 && chosen[3] < n * 0.15, "the rest is refused: " + chosen[3]);
    }

    @Test
    void whenEveryNodeShedsAShareWhatTheFirstShedsIsRefused() {
        for (int i = 0; i < 3; i++) {
            load.overloadControl(i, new OverloadControl(40, 10_000, BigDecimal.ONE), T0);
        }

        int refused = 0;
        int n = 10_000;
        for (long tx = 0; tx < n; tx++) {
            Optional<NodeSet.Node> chosen = choose(0, Fnv.mix(tx), T0 + SECOND);
            if (chosen.isEmpty()) {
                refused++;
            } else {
                assertEquals(node(0), chosen.get(), "no other node has room for node 0's excess");
            }
        }
        assertTrue(refused > n * 0.37 && refused < n * 0.43, "refused " + refused + " of " + n);
    }

    @Test
    void whenEveryNodeShedsARequestNoneTakesIt() {
        for (int i = 0; i < 3; i++) {
            load.overloadControl(i, new OverloadControl(100, 10_000, BigDecimal.ONE), T0);
        }

        assertTrue(choose(0, 3, T0 + 1).isEmpty());
    }

    @Test
    void ackCancelAndInDialogRequestsAreNeverSteered() {
        load.serviceUnavailable(0, 10, T0);
        load.overloadControl(0, new OverloadControl(100, 10_000, BigDecimal.ONE), T0);

        assertEquals(node(0), load.choose(ranked(0), false, 1, T0 + 1).orElseThrow());
    }

    @Test
    void overloadControlIsReadFromViaParametersAndMalformedOnesAreIgnored() {
        OverloadControl oc = OverloadControl.from(Map.of("oc", "20", "oc-validity", "500", "oc-seq", "1282321615.782",
                "oc-algo", "\"loss\"")).orElseThrow();
        assertEquals(new OverloadControl(20, 500, new BigDecimal("1282321615.782")), oc);
        assertEquals(OverloadControl.DEFAULT_VALIDITY_MS, OverloadControl.from(Map.of("oc", "5")).orElseThrow()
                .validityMs());
        assertTrue(OverloadControl.from(Map.of("oc", "")).isEmpty(), "the balancer's own offer");
        assertTrue(OverloadControl.from(Map.of("oc", "101")).isEmpty());
        assertTrue(OverloadControl.from(Map.of("oc", "x")).isEmpty());
        assertTrue(OverloadControl.from(Map.of("oc", "10", "oc-algo", "rate")).isEmpty(), "not the loss algorithm");
    }

    // The router around it.

    private final BalancerIdentity self = BalancerIdentity.of(HostPort.parse("127.0.0.1:5060"));
    private final BalancerCounters counters = new BalancerCounters();
    private final AtomicLong clock = new AtomicLong(T0);
    private final SplittableRandom random = new SplittableRandom(7);
    private final List<String[]> sent = new ArrayList<>();
    private final Egress egress = new Egress() {
        @Override
        public void toNode(InetSocketAddress node, ByteBuf message) {
            sent.add(new String[] {"node", node.toString(), LbText.text(message)});
        }

        @Override
        public void toAgent(InetSocketAddress agent, ByteBuf message) {
            sent.add(new String[] {"agent", agent.toString(), LbText.text(message)});
        }

        @Override
        public void toClient(ReturnAddress client, ByteBuf message) {
            sent.add(new String[] {"client", client.address().toString(), LbText.text(message)});
        }

        @Override
        public boolean toFlow(long connection, ByteBuf message) {
            sent.add(new String[] {"flow", Long.toString(connection), LbText.text(message)});
            return true;
        }
    };

    private EmbeddedChannel router() {
        return new EmbeddedChannel(new SipParserHandler(counters),
                new SipRouter(self, new NodeSelector(BalancingPolicy.CALL_ID, nodes, new KeyOwners(3), load, counters),
                        nodes, egress, counters, 7, clock::get, () -> random, new FlowTokens()));
    }

    /** Forwards a request and returns what the node got and which node it was. */
    private String[] forward(EmbeddedChannel ch, String callId) {
        return forward(ch, callId, callId);
    }

    /** A REGISTER of the Call-ID in a transaction of its own ({@code branch}), not a retransmission. */
    private String[] forward(EmbeddedChannel ch, String callId, String branch) {
        ch.writeInbound(LbText.udp(LbText.register("sip:a@b", callId)
                .replace("branch=z9hG4bK-" + callId, "branch=z9hG4bK-" + branch)));
        return sent.remove(sent.size() - 1);
    }

    private static SipFrame fromNode(String forwarded, InetSocketAddress node, int status, String reason,
                                     String viaParams, String... extra) {
        String response = SipText.parse(forwarded).response(status, reason, "n1", extra);
        String withOc = response.replaceFirst(";oc;", viaParams.isEmpty() ? ";oc;" : ";" + viaParams + ";");
        return new SipFrame(withOc.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), node, Transport.UDP, 0);
    }

    @Test
    void theForwardedViaOffersOverloadControl() {
        String[] out = forward(router(), "offer");

        String topVia = out[2].split("\r\n")[1];
        assertTrue(topVia.startsWith("Via: SIP/2.0/UDP 127.0.0.1:5060;branch=" + self.branchPrefix()), topVia);
        assertTrue(topVia.endsWith(";oc;oc-algo=\"loss\""), topVia);
    }

    @Test
    void aNodesOcInstructionIsHeededAndGoesNoFurther() {
        EmbeddedChannel ch = router();
        String[] first = forward(ch, "oc-call");
        InetSocketAddress busy = nodes.all().stream().map(NodeSet.Node::socket)
                .filter(s -> s.toString().equals(first[1])).findFirst().orElseThrow();

        ch.writeInbound(fromNode(first[2], busy, 200, "OK", "oc=100;oc-validity=10000;oc-seq=1"));
        String[] relayed = sent.remove(sent.size() - 1);
        assertEquals("client", relayed[0]);
        assertFalse(relayed[2].contains("oc="), "the balancer's Via, instruction and all, is removed: " + relayed[2]);

        String[] again = forward(ch, "oc-call", "oc-2");
        assertNotEquals(first[1], again[1], "a new request for the shedding node goes to another");
        assertEquals(1, counters.diverted());

        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        assertEquals(first[1], forward(ch, "oc-call", "oc-3")[1], "back once the instruction expired");
    }

    /** An INVITE of its own Call-ID and branch: what the node got and which node it was. */
    private String[] forwardInvite(EmbeddedChannel ch, String callId) {
        ch.writeInbound(LbText.udp(LbText.invite(callId, "z9hG4bK-" + callId)));
        return sent.remove(sent.size() - 1);
    }

    private InetSocketAddress socketOf(String[] sentTo) {
        return nodes.all().stream().map(NodeSet.Node::socket).filter(s -> s.toString().equals(sentTo[1])).findFirst()
                .orElseThrow();
    }

    @Test
    void aNodes503ToARegisterSendsItToAnotherNodeAndTheClientHearsOnlyThatNodesAnswer() {
        EmbeddedChannel ch = router();
        String[] first = forward(ch, "moved");
        ch.writeInbound(fromNode(first[2], socketOf(first), 503, "Service Unavailable", "oc=10;oc-seq=1",
                "Retry-After: 2"));

        String[] again = sent.remove(sent.size() - 1);
        assertEquals("node", again[0], "the 503 went no further");
        assertNotEquals(first[1], again[1], "another node");
        assertEquals(first[2], again[2], "the same request, the same branch");
        assertEquals(1, counters.failedOver());

        ch.writeInbound(fromNode(again[2], socketOf(again), 200, "OK", ""));
        String[] answer = sent.remove(sent.size() - 1);
        assertEquals("client", answer[0]);
        assertTrue(answer[2].startsWith("SIP/2.0 200 OK\r\n"), answer[2]);
        assertTrue(sent.isEmpty(), "nothing else was sent");
    }

    @Test
    void aRetransmissionAfterAFailoverGoesToTheNodeThatTookIt() {
        EmbeddedChannel ch = router();
        String[] first = forward(ch, "resent");
        ch.writeInbound(fromNode(first[2], socketOf(first), 503, "Service Unavailable", "", "Retry-After: 1"));
        String[] again = sent.remove(sent.size() - 1);

        String[] retransmission = forward(ch, "resent");
        assertEquals(again[1], retransmission[1], "the retransmission follows the request");
        assertEquals(again[2], retransmission[2]);
    }

    @Test
    void theRefusingNodesAnswerToALaterRetransmissionSendsItOnAgainNotToTheClient() {
        EmbeddedChannel ch = router();
        String[] first = forward(ch, "back-again");
        ch.writeInbound(fromNode(first[2], socketOf(first), 503, "Service Unavailable", "", "Retry-After: 1"));
        sent.remove(sent.size() - 1);

        // A retransmission reached the first node again (the node it had moved to went away): it repeats its 503.
        ch.writeInbound(fromNode(first[2], socketOf(first), 503, "Service Unavailable", "", "Retry-After: 1"));
        String[] onward = sent.remove(sent.size() - 1);
        assertEquals("node", onward[0], "the client would have had a 503 its request never got from the others");
        assertNotEquals(first[1], onward[1]);
        assertEquals(2, counters.failedOver());
    }

    @Test
    void aRegisterEveryNodeRefusesEndsWithTheLast503() {
        EmbeddedChannel ch = router();
        String[] out = forward(ch, "refused");
        for (int i = 0; i < nodes.all().size() - 1; i++) {
            ch.writeInbound(fromNode(out[2], socketOf(out), 503, "Service Unavailable", "", "Retry-After: 20"));
            out = sent.remove(sent.size() - 1);
            assertEquals("node", out[0]);
        }
        ch.writeInbound(fromNode(out[2], socketOf(out), 503, "Service Unavailable", "", "Retry-After: 20"));

        String[] answer = sent.remove(sent.size() - 1);
        assertEquals("client", answer[0]);
        assertTrue(answer[2].startsWith("SIP/2.0 503 Service Unavailable\r\n"), answer[2]);
        assertEquals(nodes.all().size() - 1, counters.failedOver());
    }

    @Test
    void aNodes503IsRelayedAs500WhileAnotherNodeTakesRequestsAndAs503WhenNoneDoes() {
        EmbeddedChannel ch = router();
        for (NodeSet.Node n : nodes.all()) {
            String[] out = forwardInvite(ch, "busy-" + n.index());
            ch.writeInbound(fromNode(out[2], n.socket(), 503, "Service Unavailable", "", "Retry-After: 20"));
            String relayed = sent.remove(sent.size() - 1)[2];
            boolean last = n.index() == nodes.all().size() - 1;
            assertTrue(relayed.startsWith(last ? "SIP/2.0 503 Service Unavailable\r\n" : "SIP/2.0 500 "), relayed);
            assertTrue(relayed.contains("Retry-After: 20"), relayed);
        }
        assertTrue(load.allHolding(nodes.all(), clock.get()));
    }

    @Test
    void aNodes503WithAnOcShareShedsThatShareInsteadOfHoldingTheNodeOff() {
        EmbeddedChannel ch = router();
        for (NodeSet.Node n : nodes.all()) {
            String[] out = forwardInvite(ch, "share-" + n.index());
            ch.writeInbound(fromNode(out[2], n.socket(), 503, "Service Unavailable",
                    "oc=40;oc-validity=1000;oc-seq=" + (n.index() + 1), "Retry-After: 2"));
            String relayed = sent.remove(sent.size() - 1)[2];
            boolean last = n.index() == nodes.all().size() - 1;
            assertTrue(relayed.startsWith(last ? "SIP/2.0 503 Service Unavailable\r\n" : "SIP/2.0 500 "),
                    "500 while another node takes all its requests, 503 once every node sheds: " + relayed);
            assertFalse(load.holding(n.index(), clock.get()), "a share, not a hold");
            assertEquals(40, load.shedding(n.index(), clock.get()));
        }
        assertFalse(load.allHolding(nodes.all(), clock.get()));
        assertTrue(load.allRestrained(nodes.all(), clock.get()));
    }

    @Test
    void requestsEveryNodeShedsGet503sWhoseRetryAfterIsSpreadFromTheWaitToTwiceIt() {
        EmbeddedChannel ch = router();
        for (int i = 0; i < 3; i++) {
            load.overloadControl(i, new OverloadControl(100, 10_000, BigDecimal.ONE), clock.get());
        }

        Set<Long> waits = new TreeSet<>();
        for (int i = 0; i < 200; i++) {
            ch.writeInbound(LbText.udp(LbText.register("sip:a" + i + "@b", "shed-" + i)));
            String[] out = sent.remove(0);
            assertEquals("client", out[0]);
            assertTrue(out[2].startsWith("SIP/2.0 503 "), out[2]);
            Matcher m = Pattern.compile("\r\nRetry-After: (\\d+)\r\n").matcher(out[2]);
            assertTrue(m.find(), out[2]);
            waits.add(Long.parseLong(m.group(1)));
        }
        // Clients refused together come back over a window as long as the wait, never sooner than it.
        assertEquals(new TreeSet<>(List.of(7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L)), waits);
    }
}
