package org.p2psip.balancer;

import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.Transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;

class LbRouterTest {

    /** What the router sent, to whom. */
    /** One datagram or write: a request to a node, a node's request on to a user agent, or a response. */
    private record Sent(String kind, InetSocketAddress to, ReturnAddress client, String text) {
        boolean toNode() {
            return kind.equals("node");
        }

        boolean toAgent() {
            return kind.equals("agent");
        }
    }

    /** What went down a client flow. */
    private record Flowed(long connection, String text) {
    }

    private static final class Capture implements Egress {
        final List<Sent> sent = new ArrayList<>();
        final List<Flowed> flowed = new ArrayList<>();
        final Set<Long> openConnections = new HashSet<>();

        @Override
        public boolean toFlow(long connection, ByteBuf message) {
            String text = LbText.text(message);
            if (!openConnections.contains(connection)) {
                return false;
            }
            flowed.add(new Flowed(connection, text));
            return true;
        }

        @Override
        public void toNode(InetSocketAddress node, ByteBuf message) {
            sent.add(new Sent("node", node, null, LbText.text(message)));
        }

        @Override
        public void toAgent(InetSocketAddress agent, ByteBuf message) {
            sent.add(new Sent("agent", agent, null, LbText.text(message)));
        }

        @Override
        public void toClient(ReturnAddress client, ByteBuf message) {
            sent.add(new Sent("client", client.address(), client, LbText.text(message)));
        }

        Sent only() {
            assertEquals(1, sent.size(), sent.toString());
            return sent.remove(0);
        }
    }

    private static final HostPort SELF = HostPort.parse("127.0.0.1:5060");
    private static final List<HostPort> NODES = List.of(HostPort.parse("127.0.0.1:5061"),
            HostPort.parse("127.0.0.1:5062"), HostPort.parse("127.0.0.1:5063"));

    private final BalancerIdentity self = BalancerIdentity.of(SELF);
    private final BalancerCounters counters = new BalancerCounters();
    private final Capture egress = new Capture();
    private final NodeSet nodes = new NodeSet(NODES);
    private final FlowTokens flows = new FlowTokens();

    /** A router that knows its nodes' addresses, so it tells their requests from clients'. */
    private EmbeddedChannel channelKnowingItsNodes() {
        return new EmbeddedChannel(new SipParserHandler(counters),
                new SipRouter(self, new NodeSelector(BalancingPolicy.CALL_ID, nodes), nodes, egress, counters, 7,
                        System::nanoTime, ThreadLocalRandom::current, flows));
    }

    /** The router was given 7 s: its 503s ask for 7 s to twice that ({@link org.p2psip.core.guard.RetryAfterSpread}). */
    private static void assertRetryAfterFrom7To14(String response) {
        Matcher m = Pattern.compile("\r\nRetry-After: (\\d+)\r\n").matcher(response);
        assertTrue(m.find(), response);
        long seconds = Long.parseLong(m.group(1));
        assertTrue(seconds >= 7 && seconds <= 14, response);
    }

    private EmbeddedChannel channel(BalancingPolicy policy) {
        return new EmbeddedChannel(new SipParserHandler(counters),
                new SipRouter(self, new NodeSelector(policy, nodes), egress, counters, 7));
    }

    @Test
    void forwardsWithItsOwnViaOnTopAndMaxForwardsDecremented() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);

        ch.writeInbound(LbText.udp(LbText.invite("f1", "z9hG4bKone")));

        Sent s = egress.only();
        assertTrue(s.toNode());
        String[] lines = s.text().split("\r\n");
        assertEquals("INVITE sip:bob@example.com SIP/2.0", lines[0]);
        assertTrue(lines[1].startsWith("Via: SIP/2.0/UDP 127.0.0.1:5060;branch=" + self.branchPrefix()), lines[1]);
        assertTrue(lines[1].contains(";lb=" + new ReturnAddress(Transport.UDP, LbText.CLIENT, 0).token()), lines[1]);
        assertEquals("Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKone", lines[2], "client Via untouched: sent-by is the source");
        assertTrue(s.text().contains("\r\nMax-Forwards: 69\r\n"), s.text());
        assertTrue(s.text().endsWith("\r\n\r\nv=0\r\n"), "body carried through");
        assertEquals(1, counters.requestsForwarded());
    }

    @Test
    void retransmissionCancelAndNon2xxAckLeaveWithTheSameBranchToTheSameNode() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);
        String invite = LbText.invite("same", "z9hG4bKtx");

        ch.writeInbound(LbText.udp(invite));
        ch.writeInbound(LbText.udp(invite));
        ch.writeInbound(LbText.udp(invite.replace("INVITE sip", "CANCEL sip").replace("1 INVITE", "1 CANCEL")));
        ch.writeInbound(LbText.udp(LbText.invite("same", "z9hG4bKother")));

        assertEquals(4, egress.sent.size());
        String b0 = branchOf(egress.sent.get(0).text());
        assertEquals(b0, branchOf(egress.sent.get(1).text()));
        assertEquals(b0, branchOf(egress.sent.get(2).text()), "CANCEL matches its INVITE (§16.11)");
        assertNotEquals(b0, branchOf(egress.sent.get(3).text()), "another transaction, another branch");
        assertEquals(1, egress.sent.stream().map(Sent::to).distinct().count(), "one Call-ID, one node");
    }

    @Test
    void callIdHashingSpreadsCallsAndMovesOnlyADeadNodesShare() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);
        int calls = 600;
        List<InetSocketAddress> before = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            ch.writeInbound(LbText.udp(LbText.invite("spread-" + i, "z9hG4bK" + i)));
            before.add(egress.sent.remove(0).to());
        }
        for (NodeSet.Node n : nodes.all()) {
            long share = before.stream().filter(n.socket()::equals).count();
            assertTrue(share > calls / 6, n + " got only " + share + " of " + calls);
        }

        nodes.markDown(1);
        for (int i = 0; i < calls; i++) {
            ch.writeInbound(LbText.udp(LbText.invite("spread-" + i, "z9hG4bK" + i)));
            InetSocketAddress now = egress.sent.remove(0).to();
            assertNotEquals(nodes.all().get(1).socket(), now, "a dead node gets no new transaction");
            if (!before.get(i).equals(nodes.all().get(1).socket())) {
                assertEquals(before.get(i), now, "calls on live nodes stay put (consistent hashing)");
            }
        }
    }

    @Test
    void aorPolicyKeysRegisterByToAndOthersByRequestUriLikeTheRegistrar() {
        EmbeddedChannel ch = channel(BalancingPolicy.AOR);
        Set<InetSocketAddress> targets = new HashSet<>();
        // Same AOR after RFC 3261 §10.3 canonicalisation: case of host, URI parameters, escapes.
        for (String to : new String[] {"sip:alice@Example.COM", "sip:alice@example.com;transport=tcp", "sip:%61lice@example.com"}) {
            ch.writeInbound(LbText.udp(LbText.register(to, "reg-" + targets.size() + "-" + to.hashCode())));
            targets.add(egress.only().to());
        }
        ch.writeInbound(LbText.udp(LbText.invite("x", "z9hG4bKq").replace("sip:bob@example.com SIP", "sip:alice@example.com SIP")));
        targets.add(egress.only().to());
        assertEquals(1, targets.size(), "every request for one AOR meets one node: " + targets);

        Set<InetSocketAddress> spread = new HashSet<>();
        for (int i = 0; i < 60; i++) {
            ch.writeInbound(LbText.udp(LbText.register("sip:user" + i + "@example.com", "r" + i)));
            spread.add(egress.only().to());
        }
        assertEquals(3, spread.size(), "different AORs spread over the nodes");
    }

    @Test
    void roundRobinSpreadsTransactionsOfOneAorButKeepsRetransmissionsAckCancelAndDialogsTogether() {
        EmbeddedChannel ch = channel(BalancingPolicy.ROUND_ROBIN);
        Set<InetSocketAddress> spread = new HashSet<>();
        for (int i = 0; i < 30; i++) {
            ch.writeInbound(LbText.udp(LbText.register("sip:rr@example.com", "rr-" + i)));
            spread.add(egress.only().to());
        }
        assertEquals(3, spread.size(), "one AOR's transactions spread over every node");

        String invite = LbText.invite("rt-1", "z9hG4bKrt1");
        String cancel = invite.replace("INVITE sip", "CANCEL sip").replace("1 INVITE", "1 CANCEL");
        String ackForFailure = invite.replace("INVITE sip", "ACK sip").replace("1 INVITE", "1 ACK");
        for (String m : List.of(invite, invite, invite, cancel, ackForFailure)) {
            ch.writeInbound(LbText.udp(m));
        }
        assertEquals(1, egress.sent.stream().map(Sent::to).distinct().count(),
                "a retransmission, its CANCEL and its ACK meet the INVITE's node: " + egress.sent);
        egress.sent.clear();

        String ack = LbText.invite("dialog-1", "z9hG4bKa1").replace("INVITE sip", "ACK sip").replace("1 INVITE", "1 ACK")
                .replace("To: <sip:bob@example.com>", "To: <sip:bob@example.com>;tag=b");
        String bye = ack.replace("ACK sip", "BYE sip").replace("1 ACK", "2 BYE");
        for (int i = 0; i < 3; i++) {
            ch.writeInbound(LbText.udp(ack));
            ch.writeInbound(LbText.udp(bye));
        }
        assertEquals(1, egress.sent.stream().map(Sent::to).distinct().count(), egress.sent.toString());
    }

    @Test
    void noLiveNodeGets503WithRetryAfterAndATag() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);
        nodes.all().forEach(n -> nodes.markDown(n.index()));

        ch.writeInbound(LbText.udp(LbText.invite("down", "z9hG4bKd")));
        Sent s = egress.only();
        assertFalse(s.toNode());
        assertEquals(LbText.CLIENT, s.to());
        assertTrue(s.text().startsWith("SIP/2.0 503 Service Unavailable\r\n"), s.text());
        assertRetryAfterFrom7To14(s.text());
        assertTrue(s.text().contains("\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKd\r\n"), s.text());
        assertTrue(s.text().contains("\r\nCall-ID: down\r\nCSeq: 1 INVITE\r\n"), s.text());
        Matcher tag = Pattern.compile("\r\nTo: <sip:bob@example.com>;tag=(" + self.tagPrefix() + "\\w+)\r\n").matcher(s.text());
        assertTrue(tag.find(), s.text());

        // The ACK for that 503 ends at the balancer; any other ACK has nowhere to go and gets no answer.
        ch.writeInbound(LbText.udp(LbText.invite("down", "z9hG4bKd").replace("INVITE sip", "ACK sip")
                .replace("1 INVITE", "1 ACK").replace("To: <sip:bob@example.com>", "To: <sip:bob@example.com>;tag=" + tag.group(1))));
        ch.writeInbound(LbText.udp(LbText.invite("other", "z9hG4bKo").replace("INVITE sip", "ACK sip").replace("1 INVITE", "1 ACK")));
        assertTrue(egress.sent.isEmpty(), egress.sent.toString());
        assertEquals(1, counters.answeredLocally());
    }

    @Test
    void noReadyNodeGets503WithRetryAfterWhileAWarmingNodesResponsesStillFlow() {
        EmbeddedChannel ch = channelKnowingItsNodes();
        ch.writeInbound(LbText.udp(LbText.invite("warming", "z9hG4bKw1")));
        Sent forwarded = egress.only();
        nodes.all().forEach(n -> nodes.markReady(n.index(), false));

        ch.writeInbound(LbText.udp(LbText.invite("later", "z9hG4bKw2")));
        Sent refused = egress.only();
        assertFalse(refused.toNode());
        assertTrue(refused.text().startsWith("SIP/2.0 503 Service Unavailable\r\n"), refused.text());
        assertRetryAfterFrom7To14(refused.text());

        String ringing = "SIP/2.0 180 Ringing\n" + forwarded.text().split("\r\n")[1]
                + "\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKw1\nFrom: <sip:alice@example.com>;tag=a1\n"
                + "To: <sip:bob@example.com>;tag=b\nCall-ID: warming\nCSeq: 1 INVITE\nContent-Length: 0\n\n";
        ch.writeInbound(new SipFrame(LbText.crlf(ringing), forwarded.to(), Transport.UDP, 0));
        Sent relayed = egress.only();
        assertFalse(relayed.toNode());
        assertTrue(relayed.text().startsWith("SIP/2.0 180 Ringing\r\n"), relayed.text());
    }

    @Test
    void maxForwardsZeroGets483AndAbsentBecomes70() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);

        ch.writeInbound(LbText.udp(LbText.invite("mf0", "z9hG4bKm").replace("Max-Forwards: 70", "Max-Forwards: 0")));
        Sent hop = egress.only();
        assertFalse(hop.toNode());
        assertTrue(hop.text().startsWith("SIP/2.0 483 "), hop.text());

        ch.writeInbound(LbText.udp(LbText.invite("mf-", "z9hG4bKn").replace("Max-Forwards: 70\n", "")));
        Sent fwd = egress.only();
        assertTrue(fwd.toNode());
        assertTrue(fwd.text().contains("\r\nMax-Forwards: 70\r\n"), fwd.text());
    }

    @Test
    void aRequestCarryingItsOwnViaIsALoopNotForwarded() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);
        String looped = LbText.invite("loop", "z9hG4bKnode").replace("Max-Forwards: 70\n",
                "Max-Forwards: 68\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=" + self.branchPrefix() + "abc;lb=u7f000001-13ce\n");

        ch.writeInbound(LbText.udp(looped));

        Sent s = egress.only();
        assertFalse(s.toNode(), "never sent round again");
        assertTrue(s.text().startsWith("SIP/2.0 482 "), s.text());
    }

    @Test
    void itsOwnRouteEntryIsRemovedAndOthersKept() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);
        String routed = LbText.invite("rt", "z9hG4bKr").replace("Max-Forwards: 70\n",
                "Max-Forwards: 70\nRoute: <sip:127.0.0.1:5060;lr>, <sip:10.9.9.9;lr>\nRoute: <sip:10.8.8.8;lr>\n");

        ch.writeInbound(LbText.udp(routed));

        String out = egress.only().text();
        assertFalse(out.contains("127.0.0.1:5060;lr"), out);
        assertTrue(out.contains("\r\nRoute: <sip:10.9.9.9;lr>\r\nRoute: <sip:10.8.8.8;lr>\r\n"), out);
    }

    @Test
    void itsOwnRouteEntryWrittenByANodeGoesOnToTheNode() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);
        String routed = LbText.invite("rt", "z9hG4bKr").replace("Max-Forwards: 70\n",
                "Max-Forwards: 70\nRoute: <sip:127.0.0.1:5060;lr;dt=abc123>\n");

        ch.writeInbound(LbText.udp(routed));

        String out = egress.only().text();
        assertTrue(out.contains("\r\nRoute: <sip:127.0.0.1:5060;lr;dt=abc123>\r\n"), out);
    }

    @Test
    void aNodesRequestThroughTheBalancerGoesToItsUaWithTheBalancersViaOnTop() {
        EmbeddedChannel ch = channelKnowingItsNodes();
        String fromNode = LbText.invite("out", "z9hG4bKp2pout")
                .replace("INVITE sip:bob@example.com", "INVITE sip:bob@192.0.2.44:5088")
                .replace("Via: SIP/2.0/UDP 127.0.0.1:5070", "Via: SIP/2.0/UDP 127.0.0.1:5062")
                .replace("Max-Forwards: 70\n", "Max-Forwards: 70\nRoute: <sip:127.0.0.1:5060;lr>\n");

        ch.writeInbound(new SipFrame(LbText.crlf(fromNode), new InetSocketAddress("127.0.0.1", 5062), Transport.UDP, 0));

        Sent s = egress.only();
        assertEquals(new InetSocketAddress("192.0.2.44", 5088), s.to(), "to the UA, not to a node");
        assertFalse(s.text().contains("Route:"), s.text());
        assertTrue(s.text().split("\r\n")[1].startsWith("Via: SIP/2.0/UDP 127.0.0.1:5060;branch="), s.text());
    }

    @Test
    void aNodesRequestForAUaTheBalancerCannotReachIs502() {
        EmbeddedChannel ch = channelKnowingItsNodes();
        String fromNode = LbText.invite("out2", "z9hG4bKp2pout2")
                .replace("INVITE sip:bob@example.com", "INVITE sip:bob@phone.example.com;transport=tcp")
                .replace("Via: SIP/2.0/UDP 127.0.0.1:5070", "Via: SIP/2.0/UDP 127.0.0.1:5062");

        ch.writeInbound(new SipFrame(LbText.crlf(fromNode), new InetSocketAddress("127.0.0.1", 5062), Transport.UDP, 0));

        Sent s = egress.only();
        assertFalse(s.toNode(), "answered to the node, not sent anywhere");
        assertTrue(s.text().startsWith("SIP/2.0 502 "), s.text());
    }

    @Test
    void aRouteNamingItsTlsListenerIsRemovedToo() {
        BalancerIdentity secure = BalancerIdentity.of(SELF).withSecure(HostPort.parse("127.0.0.1:5059"));
        EmbeddedChannel ch = new EmbeddedChannel(new SipParserHandler(counters),
                new SipRouter(secure, new NodeSelector(BalancingPolicy.CALL_ID, nodes), egress, counters, 7));
        String routed = LbText.invite("rt", "z9hG4bKr").replace("Max-Forwards: 70\n",
                "Max-Forwards: 70\nRoute: <sip:127.0.0.1:5059;transport=tls;lr>\n");

        ch.writeInbound(LbText.udp(routed));

        String out = egress.only().text();
        assertFalse(out.contains("Route:"), out);
    }

    @Test
    void clientViaGetsReceivedAndRport() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);
        String natted = LbText.invite("nat", "z9hG4bKn").replace("127.0.0.1:5070;branch=z9hG4bKn",
                "192.168.1.9:5090;rport;branch=z9hG4bKn");

        ch.writeInbound(LbText.udp(natted));

        String out = egress.only().text();
        assertTrue(out.contains("\r\nVia: SIP/2.0/UDP 192.168.1.9:5090;rport=5070;branch=z9hG4bKn;received=127.0.0.1\r\n"), out);
        ReturnAddress back = ReturnAddress.parse(out.replaceAll("(?s).*;lb=([\\w-]+).*", "$1")).orElseThrow();
        assertEquals(LbText.CLIENT, back.address(), "rport: the response goes to the source port");
    }

    @Test
    void responsesPopTheBalancersViaAndGoBackToTheClient() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);
        ch.writeInbound(LbText.udp(LbText.invite("resp", "z9hG4bKr1")));
        String forwarded = egress.only().text();
        String ourVia = forwarded.split("\r\n")[1];

        String ringing = "SIP/2.0 180 Ringing\n" + ourVia + "\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKr1\n"
                + "From: <sip:alice@example.com>;tag=a1\nTo: <sip:bob@example.com>;tag=b\nCall-ID: resp\n"
                + "CSeq: 1 INVITE\nContent-Length: 0\n\n";
        ch.writeInbound(new SipFrame(LbText.crlf(ringing), nodes.all().get(0).socket(), Transport.UDP, 0));

        Sent s = egress.only();
        assertFalse(s.toNode());
        assertEquals(LbText.CLIENT, s.to());
        assertTrue(s.text().startsWith("SIP/2.0 180 Ringing\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKr1\r\nFrom:"), s.text());
        assertEquals(1, counters.responsesForwarded());
    }

    @Test
    void ourViaSharingALineWithTheClientsIsPoppedAlone() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);
        String token = new ReturnAddress(Transport.TCP, LbText.CLIENT, 42).token();
        String ok = "SIP/2.0 200 OK\nv: SIP/2.0/UDP 127.0.0.1:5060;branch=" + self.branchPrefix() + "x;lb=" + token
                + " ,  SIP/2.0/TCP 127.0.0.1:5070;branch=z9hG4bKc\nFrom: <sip:a@b>;tag=1\nTo: <sip:c@d>;tag=2\n"
                + "Call-ID: share\nCSeq: 1 REGISTER\nContent-Length: 0\n\n";

        ch.writeInbound(new SipFrame(LbText.crlf(ok), nodes.all().get(2).socket(), Transport.UDP, 0));

        Sent s = egress.only();
        assertEquals(Transport.TCP, s.client().transport());
        assertEquals(42, s.client().connection());
        assertTrue(s.text().contains("\r\nv: SIP/2.0/TCP 127.0.0.1:5070;branch=z9hG4bKc\r\n"), s.text());
    }

    @Test
    void responsesWhoseTopViaIsNotOursAreDropped() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);
        String[] foreign = {
            // someone else's Via
            "SIP/2.0 200 OK\nVia: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bKabc\n",
            // our branch prefix but another sent-by
            "SIP/2.0 200 OK\nVia: SIP/2.0/UDP 10.0.0.1:5060;branch=" + self.branchPrefix() + "1;lb=u7f000001-13ce\n",
            // ours, but no return token
            "SIP/2.0 200 OK\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=" + self.branchPrefix() + "1\nVia: SIP/2.0/UDP c;branch=z9hG4bKc\n",
            // ours, and nothing below it
            "SIP/2.0 200 OK\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=" + self.branchPrefix() + "1;lb=u7f000001-13ce\n",
        };
        for (String head : foreign) {
            ch.writeInbound(LbText.udp(head + "From: <sip:a@b>;tag=1\nTo: <sip:c@d>\nCall-ID: f\nCSeq: 1 OPTIONS\n\n"));
        }
        assertTrue(egress.sent.isEmpty(), egress.sent.toString());
        assertEquals(foreign.length, counters.foreignResponses());
    }

    @Test
    void malformedInputIsNeverForwarded() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);

        ch.writeInbound(LbText.udp(LbText.invite("bad", "z9hG4bKb").replace("CSeq: 1 INVITE", "CSeq: 1 BYE")));
        ch.writeInbound(LbText.udp("\u0016\u0003\u0001 not sip at all\n\n"));

        assertTrue(egress.sent.isEmpty());
        assertEquals(2, counters.malformed());
    }

    @Test
    void tcpClientsGetTheirConnectionInTheToken() {
        EmbeddedChannel ch = channel(BalancingPolicy.CALL_ID);

        ch.writeInbound(LbText.tcp(LbText.invite("tcp", "z9hG4bKt").replace("SIP/2.0/UDP 127.0.0.1:5070", "SIP/2.0/TCP 127.0.0.1:5070"), 9));

        String out = egress.only().text();
        String token = out.replaceAll("(?s).*;lb=([\\w-]+).*", "$1");
        ReturnAddress back = ReturnAddress.parse(token).orElseThrow();
        assertEquals(Transport.TCP, back.transport());
        assertEquals(9, back.connection());
        assertTrue(out.split("\r\n")[1].startsWith("Via: SIP/2.0/UDP "), "nodes are reached over UDP");
    }

    /** The flow URI the balancer put in Path for a REGISTER on {@code connection}. */
    private String registerOnConnection(EmbeddedChannel ch, long connection, String contactParams) {
        String register = LbText.register("carol@example.com", "reg-" + connection)
                .replace("SIP/2.0/UDP 127.0.0.1:5070", "SIP/2.0/TCP 127.0.0.1:5070")
                .replace("Contact: <sip:x@127.0.0.1:5070>", "Contact: <sip:x@127.0.0.1:5070;transport=tcp>" + contactParams);
        ch.writeInbound(LbText.tcp(register, connection));
        Sent s = egress.only();
        assertTrue(s.toNode());
        Matcher path = Pattern.compile("\r\nPath: <([^>]+)>\r\n").matcher(s.text());
        assertTrue(path.find(), s.text());
        return path.group(1);
    }

    private static String fromNode(String text) {
        return text.replace("Via: SIP/2.0/UDP 127.0.0.1:5070", "Via: SIP/2.0/UDP 127.0.0.1:5062");
    }

    private static SipFrame nodeFrame(String text) {
        return new SipFrame(LbText.crlf(text), new InetSocketAddress("127.0.0.1", 5062), Transport.UDP, 0);
    }

    @Test
    void aRegisterOnAConnectionGetsAPathNamingTheBalancerWithAFlowToken() {
        EmbeddedChannel ch = channelKnowingItsNodes();

        String path = registerOnConnection(ch, 42, "");

        assertTrue(path.matches("sip:t2a-[0-9a-f]{16}@127\\.0\\.0\\.1:5060;lr"), path);
        assertEquals(Optional.of(new FlowTokens.Flow(Transport.TCP, 42)),
                flows.read(path.substring(4, path.indexOf('@'))));
        assertTrue(registerOnConnection(ch, 43, ";reg-id=1;+sip.instance=\"<urn:uuid:1>\"").endsWith(";lr;ob"),
                "outbound asked for: the edge proxy says so (RFC 5626 §5.1)");
    }

    @Test
    void aRegisterOverUdpGetsNoPath() {
        EmbeddedChannel ch = channelKnowingItsNodes();

        ch.writeInbound(LbText.udp(LbText.register("dave@example.com", "udp-reg")));

        assertFalse(egress.only().text().contains("Path:"));
    }

    @Test
    void aNodesInviteForAFlowGoesDownItsConnectionRecordRoutedTwiceByTheFlow() {
        EmbeddedChannel ch = channelKnowingItsNodes();
        String path = registerOnConnection(ch, 42, "");
        egress.openConnections.add(42L);
        String token = path.substring(4, path.indexOf('@'));

        ch.writeInbound(nodeFrame(fromNode(LbText.invite("flow-call", "z9hG4bKn1"))
                .replace("INVITE sip:bob@example.com", "INVITE sip:x@127.0.0.1:5070;transport=tcp")
                .replace("Max-Forwards: 70\n", "Max-Forwards: 70\nRoute: <" + path + ">\n")));

        assertTrue(egress.sent.isEmpty(), egress.sent.toString());
        assertEquals(1, egress.flowed.size());
        assertEquals(42, egress.flowed.get(0).connection());
        String[] lines = egress.flowed.get(0).text().split("\r\n");
        assertTrue(lines[1].startsWith("Via: SIP/2.0/TCP 127.0.0.1:5060;branch=" + self.branchPrefix()), lines[1]);
        assertEquals("Record-Route: <sip:" + token + "@127.0.0.1:5060;transport=tcp;lr>", lines[2],
                "the top value faces the UA, with its transport");
        assertEquals("Record-Route: <sip:" + token + "@127.0.0.1:5060;lr>", lines[3], "the one below faces the nodes");
        assertFalse(egress.flowed.get(0).text().contains("\r\nRoute:"), "its own flow Route is gone");
    }

    @Test
    void aNodesRequestForAClosedFlowIsAnswered430() {
        EmbeddedChannel ch = channelKnowingItsNodes();
        String path = registerOnConnection(ch, 42, "");

        ch.writeInbound(nodeFrame(fromNode(LbText.invite("gone", "z9hG4bKn2"))
                .replace("Max-Forwards: 70\n", "Max-Forwards: 70\nRoute: <" + path + ">\n")));

        Sent s = egress.only();
        assertFalse(s.toNode());
        assertEquals(new InetSocketAddress("127.0.0.1", 5062), s.to(), "answered to the node that sent it");
        assertTrue(s.text().startsWith("SIP/2.0 430 Flow Failed\r\n"), s.text());
        assertEquals(1, counters.flowFailed());
    }

    @Test
    void aFlowTokenTheBalancerDidNotWriteIsAnswered430() {
        EmbeddedChannel ch = channelKnowingItsNodes();
        egress.openConnections.add(42L);
        String forged = new FlowTokens().token(new FlowTokens.Flow(Transport.TCP, 42));

        ch.writeInbound(nodeFrame(fromNode(LbText.invite("forged", "z9hG4bKn3"))
                .replace("Max-Forwards: 70\n", "Max-Forwards: 70\nRoute: <sip:" + forged + "@127.0.0.1:5060;lr>\n")));

        assertTrue(egress.flowed.isEmpty(), "nothing goes down connection 42");
        assertTrue(egress.only().text().startsWith("SIP/2.0 430 "));
    }

    @Test
    void aDialogAPhoneStartsOnItsConnectionIsRecordRoutedThroughItsFlow() {
        EmbeddedChannel ch = channelKnowingItsNodes();

        ch.writeInbound(LbText.tcp(LbText.invite("from-phone", "z9hG4bKc1").replace("SIP/2.0/UDP", "SIP/2.0/TCP"), 9));

        Sent s = egress.only();
        assertTrue(s.toNode());
        String[] lines = s.text().split("\r\n");
        String token = flows.token(new FlowTokens.Flow(Transport.TCP, 9));
        assertEquals("Record-Route: <sip:" + token + "@127.0.0.1:5060;lr>", lines[2], "the top value faces the nodes");
        assertEquals("Record-Route: <sip:" + token + "@127.0.0.1:5060;transport=tcp;lr>", lines[3]);

        ch.writeInbound(LbText.tcp(LbText.invite("in-dialog", "z9hG4bKc2").replace("SIP/2.0/UDP", "SIP/2.0/TCP")
                .replace("To: <sip:bob@example.com>", "To: <sip:bob@example.com>;tag=b2"), 9));
        assertFalse(egress.only().text().contains("Record-Route"), "a re-INVITE creates no dialog");
    }

    @Test
    void inDialogRequestsCrossTheFlowInBothDirections() {
        EmbeddedChannel ch = channelKnowingItsNodes();
        String path = registerOnConnection(ch, 42, "");
        egress.openConnections.add(42L);
        String token = path.substring(4, path.indexOf('@'));
        String towardsUa = "<sip:" + token + "@127.0.0.1:5060;transport=tcp;lr>";
        String towardsNodes = "<sip:" + token + "@127.0.0.1:5060;lr>";
        String nodes = "<sip:127.0.0.1:5060;lr;dt=abc>";
        String bye = LbText.invite("dlg", "z9hG4bKb1").replace("INVITE sip:bob@example.com", "BYE sip:x@127.0.0.1:5070")
                .replace("1 INVITE", "2 BYE").replace("To: <sip:bob@example.com>", "To: <sip:bob@example.com>;tag=b1");

        // The UA's BYE, on its connection, with the route set it learnt: both flow values go, the node's stays.
        ch.writeInbound(LbText.tcp(bye.replace("SIP/2.0/UDP", "SIP/2.0/TCP")
                .replace("Max-Forwards: 70\n", "Max-Forwards: 70\nRoute: " + towardsUa + "," + towardsNodes + "," + nodes + "\n"), 42));
        Sent up = egress.only();
        assertTrue(up.toNode());
        assertTrue(up.text().contains("\r\nRoute: " + nodes + "\r\n"), up.text());

        // The caller's BYE, after the node took its own value off: down the flow, both flow values gone.
        ch.writeInbound(nodeFrame(fromNode(bye).replace("Max-Forwards: 70\n",
                "Max-Forwards: 70\nRoute: " + towardsNodes + "\nRoute: " + towardsUa + "\n")));
        assertEquals(1, egress.flowed.size());
        String down = egress.flowed.get(0).text();
        assertFalse(down.contains("Route:"), down);
        assertFalse(down.contains("Record-Route"), "not dialog-creating: " + down);
    }

    private static String branchOf(String text) {
        Matcher m = Pattern.compile("branch=(z9hG4bKlb[^;\\r]+)").matcher(text);
        assertTrue(m.find(), text);
        return m.group(1);
    }
}
