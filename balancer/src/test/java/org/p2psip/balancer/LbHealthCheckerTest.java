package org.p2psip.balancer;

import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.SipParser;
import org.p2psip.sip.wire.Transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;

class LbHealthCheckerTest {

    private final BalancerIdentity self = BalancerIdentity.of(HostPort.parse("127.0.0.1:5060"));
    private final NodeSet nodes = new NodeSet(List.of(HostPort.parse("127.0.0.1:5061"), HostPort.parse("127.0.0.1:5062")));
    private final KeyOwners owners = new KeyOwners(2);
    private final ProbeRoundTrips roundTrips = new ProbeRoundTrips(2);
    private final SlowStart slowStart = new SlowStart(2, Duration.ofSeconds(10));
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private EmbeddedChannel ch;

    @BeforeEach
    void start() {
        logged.start();
        // INFO is below the build's log level; only this appender hears it, so the build's output stays quiet.
        checkerLog().setLevel(Level.INFO);
        checkerLog().setAdditive(false);
        checkerLog().addAppender(logged);
        ch = new EmbeddedChannel();
        ch.freezeTime();
        ch.pipeline().addLast(new SipParserHandler(new BalancerCounters()),
                new HealthChecker(nodes, owners, slowStart, roundTrips, nanos::get, self, Duration.ofSeconds(1), 3));
        ch.runPendingTasks();
        ch.runScheduledPendingTasks();
    }

    @AfterEach
    void stopListening() {
        checkerLog().detachAppender(logged);
        checkerLog().setAdditive(true);
        checkerLog().setLevel(null);
    }

    private static Logger checkerLog() {
        return (Logger) LoggerFactory.getLogger(HealthChecker.class);
    }

    @Test
    void probesEveryNodeWithAnOptionsEachInterval() throws Exception {
        Map<Integer, SipMessage> probes = drainProbes();
        assertEquals(2, probes.size());
        SipMessage toFirst = probes.get(5061);
        assertEquals("OPTIONS", toFirst.method());
        assertEquals("sip:127.0.0.1:5061", toFirst.requestUri());
        assertTrue(toFirst.topVia().branch().startsWith(self.probePrefix()));

        ch.advanceTimeBy(1, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertEquals(2, drainProbes().size(), "a second round one interval later");
    }

    @Test
    void threeSilentRoundsTakeANodeOutAndOneAnswerPutsItBack() throws Exception {
        for (int round = 1; round <= 3; round++) {
            Map<Integer, SipMessage> probes = drainProbes();
            answer(probes.get(5062), 200);
            ch.advanceTimeBy(1, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            assertEquals(round < 3, nodes.isUp(0), "after " + round + " silent rounds");
        }
        assertTrue(nodes.isUp(1), "the answering node stays up");
        assertEquals(List.of(nodes.all().get(1)), nodes.live());

        answer(drainProbes().get(5061), 404);
        assertTrue(nodes.isUp(0), "any final answer means alive");
    }

    @Test
    void aBusyNodesResponsesKeepItUpThoughItsProbeAnswersAreLate() throws Exception {
        SipMessage first = drainProbes().get(5061);
        for (int round = 0; round < 5; round++) {
            // Traffic the node routes back through the balancer: proof of life without a probe answer.
            String ok = "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=" + self.branchPrefix()
                    + "x;lb=u7f000001-13ce\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKc\r\n"
                    + "From: <sip:a@b>;tag=1\r\nTo: <sip:a@b>;tag=2\r\nCall-ID: busy" + round
                    + "\r\nCSeq: 1 REGISTER\r\nContent-Length: 0\r\n\r\n";
            ch.writeInbound(new SipFrame(ok.getBytes(), nodes.all().get(0).socket(), Transport.UDP, 0));
            SipMessage passed = ch.readInbound();
            assertEquals("busy" + round, passed.callId(), "and the response still goes on to the router");
            ch.advanceTimeBy(1, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            drainProbes();
        }
        assertTrue(nodes.isUp(0));
        assertFalse(nodes.isUp(1), "the silent one is out");

        answer(first, 200);
        assertTrue(nodes.isUp(0), "a late probe answer is still a sign of life");
    }

    @Test
    void responsesOnTheNodeSideSocketKeepABusyNodeUpThoughItsProbesGoUnanswered() throws Exception {
        NodeResponses responses = new NodeResponses(nodes);
        EmbeddedChannel own = new EmbeddedChannel();
        own.freezeTime();
        own.pipeline().addLast(new SipParserHandler(new BalancerCounters()), new HealthChecker(nodes, owners,
                slowStart, roundTrips, nanos::get, self, Duration.ofSeconds(1), 3, responses));
        own.runPendingTasks();
        own.runScheduledPendingTasks();
        // The node-side pipeline's handler, as a node's answer to a forwarded REGISTER passes it.
        EmbeddedChannel nodeSide = new EmbeddedChannel(new SipParserHandler(new BalancerCounters()), responses);
        for (int round = 0; round < 5; round++) {
            String ok = "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=" + self.branchPrefix()
                    + "r" + round + "\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:a@b>;tag=2\r\nCall-ID: side" + round
                    + "\r\nCSeq: 1 REGISTER\r\nContent-Length: 0\r\n\r\n";
            nodeSide.writeInbound(new SipFrame(ok.getBytes(), nodes.all().get(0).socket(), Transport.UDP, 0));
            SipMessage passed = nodeSide.readInbound();
            assertEquals("side" + round, passed.callId(), "the response goes on to the router");
            own.advanceTimeBy(1, TimeUnit.SECONDS);
            own.runScheduledPendingTasks();
        }
        assertTrue(nodes.isUp(0), "answering requests is a sign of life");
        assertFalse(nodes.isUp(1), "the silent one is out");
        own.finishAndReleaseAll();
        nodeSide.finishAndReleaseAll();
    }

    @Test
    void anAnswerToTheLatestProbeTimesTheNodesRoundTrip() throws Exception {
        assertEquals(-1, roundTrips.lastNanos(0), "no answer yet");
        Map<Integer, SipMessage> first = drainProbes();
        nanos.addAndGet(3_000_000);
        answer(first.get(5061), 200);
        assertEquals(3_000_000, roundTrips.lastNanos(0));
        assertEquals(-1, roundTrips.lastNanos(1), "the other node has not answered");

        ch.advanceTimeBy(1, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        drainProbes();
        nanos.addAndGet(9_000_000);
        answer(first.get(5062), 200);
        assertEquals(-1, roundTrips.lastNanos(1), "an answer to an earlier probe has no send time to time it by");
        assertTrue(nodes.isUp(1), "though it is still a sign of life");
    }

    @Test
    void otherTrafficPassesThrough() {
        SipFrame register = LbText.udp(LbText.register("sip:a@b", "pass"));
        ch.writeInbound(register);
        SipMessage m = ch.readInbound();
        assertSame(register, m.frame());
        assertNull(ch.readInbound());
    }

    @Test
    void anAnswerThatNamesOwnedRangesIsTheNodesClaimUntilTheNextAnswer() throws Exception {
        Map<Integer, SipMessage> probes = drainProbes();
        answer(probes.get(5061), 200, "P2psip-Owns: 0000000000000000-7fffffffffffffff\r\n",
                nodes.all().get(0).socket());
        answer(probes.get(5062), 200, "p2psip-owns:8000000000000000-ffffffffffffffff\r\n",
                nodes.all().get(1).socket());
        assertEquals(nodes.all().get(0), owners.ownerOf(5, nodes.live()).orElseThrow());
        assertEquals(nodes.all().get(1), owners.ownerOf(-5L, nodes.live()).orElseThrow(), "names ignore case");

        ch.advanceTimeBy(1, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        answer(drainProbes().get(5061), 200, "", nodes.all().get(0).socket());
        assertTrue(owners.claimOf(0).isEmpty(), "an answer without ranges takes the claim back");
    }

    @Test
    void unreadableRangesOrAnAnswerFromElsewhereClaimNothing() throws Exception {
        Map<Integer, SipMessage> probes = drainProbes();
        answer(probes.get(5061), 200, "P2psip-Owns: 5-1\r\n", nodes.all().get(0).socket());
        answer(probes.get(5062), 200, "P2psip-Owns: 0000000000000000-ffffffffffffffff\r\n",
                new InetSocketAddress("127.0.0.1", 6666));
        assertTrue(owners.claimOf(0).isEmpty(), "a range that ends before it starts");
        assertTrue(owners.claimOf(1).isEmpty(), "only the node itself speaks for itself");
        assertTrue(nodes.isUp(0) && nodes.isUp(1), "both answers still count as signs of life");
    }

    @Test
    void aNodeTakenOutLosesItsClaim() throws Exception {
        answer(drainProbes().get(5061), 200, "P2psip-Owns: 0000000000000000-ffffffffffffffff\r\n",
                nodes.all().get(0).socket());
        assertTrue(owners.claimOf(0).isPresent());
        // The round after the answer counts it; three silent ones follow.
        for (int round = 0; round < 4; round++) {
            ch.advanceTimeBy(1, TimeUnit.SECONDS);
            ch.runScheduledPendingTasks();
            drainProbes();
        }
        assertFalse(nodes.isUp(0));
        assertTrue(owners.claimOf(0).isEmpty());
    }

    private static final String NOT_READY = "Retry-After: 5\r\nP2psip-Ready: no\r\n";

    /** One probe interval later: last round's silence counted, every node asked again. */
    private Map<Integer, SipMessage> nextRound() throws Exception {
        ch.advanceTimeBy(1, TimeUnit.SECONDS);
        nanos.addAndGet(1_000_000_000L);
        ch.runScheduledPendingTasks();
        return drainProbes();
    }

    @Test
    void aNodeSayingItIsNotReadyStaysUpButGetsNoNewRequests() throws Exception {
        Map<Integer, SipMessage> probes = drainProbes();
        for (int round = 0; round < 5; round++) {
            answer(probes.get(5061), 503, NOT_READY, nodes.all().get(0).socket());
            answer(probes.get(5062), 200);
            probes = nextRound();
        }
        assertTrue(nodes.isUp(0), "alive: it answers");
        assertEquals(nodes.all(), nodes.live());
        assertEquals(List.of(nodes.all().get(1)), nodes.ready());
        assertTrue(messages(Level.WARN).isEmpty(), "not logged as down: " + messages(Level.WARN));
        assertEquals(List.of("node 127.0.0.1:5061 is alive but not ready (warming up): it gets no new requests"),
                messages(Level.INFO), "said once");
    }

    @Test
    void shedding503DoesNotTakeANodeOut() throws Exception {
        Map<Integer, SipMessage> probes = drainProbes();
        for (int round = 0; round < 5; round++) {
            answer(probes.get(5061), 503, "Retry-After: 5\r\n", nodes.all().get(0).socket());
            answer(probes.get(5062), 503, "Retry-After: 5\r\nP2psip-Ready: yes\r\n", nodes.all().get(1).socket());
            probes = nextRound();
        }
        assertEquals(nodes.all(), nodes.ready(), "a busy node is alive and as ready as it was");
        assertEquals(1.0, slowStart.share(0, nanos.get()), "and nothing to ramp back from");
        assertTrue(logged.list.isEmpty(), logged.list.toString());
    }

    @Test
    void aSheddingAnswerFromAWarmingNodeLeavesItWarming() throws Exception {
        answer(drainProbes().get(5061), 503, NOT_READY, nodes.all().get(0).socket());
        answer(nextRound().get(5061), 503, "Retry-After: 5\r\n", nodes.all().get(0).socket());

        assertFalse(nodes.takesNewRequests(0));
    }

    @Test
    void aNodeThatTurnsReadyRampsOverTheWindowAndTheEndIsTold() throws Exception {
        answer(drainProbes().get(5061), 503, "Retry-After: 5\r\np2psip-ready: NO\r\n", nodes.all().get(0).socket());
        assertFalse(nodes.takesNewRequests(0), "names and values ignore case");
        logged.list.clear();

        answer(nextRound().get(5061), 200);
        long readyAt = nanos.get();
        assertEquals(nodes.all(), nodes.ready());
        assertEquals(0.1, slowStart.share(0, readyAt), 1e-9);
        assertEquals(0.55, slowStart.share(0, readyAt + 5_000_000_000L), 1e-9);
        assertEquals(List.of("node 127.0.0.1:5061 is ready; ramping over 10 s"), messages(Level.INFO));

        for (int round = 0; round < 10; round++) {
            answer(nextRound().get(5061), 200);
        }
        assertEquals(1.0, slowStart.share(0, nanos.get()));
        assertEquals(List.of("node 127.0.0.1:5061 is ready; ramping over 10 s",
                "node 127.0.0.1:5061 has ended its slow start: it gets its full share of new requests"),
                messages(Level.INFO), "each said once");
    }

    @Test
    void aNodeReadyAtTheBalancersFirstProbeDoesNotRamp() throws Exception {
        Map<Integer, SipMessage> probes = drainProbes();
        answer(probes.get(5061), 200);
        answer(probes.get(5062), 200);

        assertEquals(1.0, slowStart.share(0, nanos.get()));
        assertEquals(1.0, slowStart.share(1, nanos.get()));
        assertTrue(slowStart.quiet(nanos.get()), "a cluster starting together is not throttled");
    }

    @Test
    void aNodeBackFromDownRamps() throws Exception {
        for (int round = 0; round < 4; round++) {
            nextRound();
        }
        assertFalse(nodes.isUp(0));

        answer(nextRound().get(5061), 200);
        assertTrue(nodes.takesNewRequests(0));
        assertEquals(0.1, slowStart.share(0, nanos.get()), 1e-9);
    }

    @Test
    void aNodeThatWentDownWhileRampingStartsAgainWhenBack() throws Exception {
        answer(drainProbes().get(5061), 503, NOT_READY, nodes.all().get(0).socket());
        answer(nextRound().get(5061), 200);
        for (int round = 0; round < 4; round++) {
            nextRound();
        }
        assertFalse(nodes.isUp(0));
        logged.list.clear();

        for (int round = 0; round < 12; round++) {
            nextRound();
        }
        assertTrue(messages(Level.INFO).isEmpty(), "a void ramp has no end to tell: " + messages(Level.INFO));
        answer(nextRound().get(5061), 200);
        assertEquals(0.1, slowStart.share(0, nanos.get()), 1e-9, "a fresh ramp from the start");
    }

    @Test
    void aNotReadyAnswerFromAnotherAddressSaysNothingOfTheNode() throws Exception {
        answer(drainProbes().get(5061), 503, NOT_READY, new InetSocketAddress("127.0.0.1", 6666));

        assertTrue(nodes.takesNewRequests(0));
    }

    private List<String> messages(Level level) {
        return logged.list.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    private Map<Integer, SipMessage> drainProbes() throws Exception {
        Map<Integer, SipMessage> byPort = new HashMap<>();
        DatagramPacket p;
        while ((p = ch.readOutbound()) != null) {
            byte[] bytes = new byte[p.content().readableBytes()];
            p.content().readBytes(bytes);
            p.release();
            byPort.put(p.recipient().getPort(), SipParser.parse(new SipFrame(bytes, p.recipient(), Transport.UDP, 0)));
        }
        return byPort;
    }

    private void answer(SipMessage probe, int status) {
        answer(probe, status, "", probe.frame().sender());
    }

    private void answer(SipMessage probe, int status, String extraHeaders, InetSocketAddress from) {
        String via = new String(probe.bytes(), probe.vias().get(0).lineStart(),
                probe.vias().get(0).lineEnd() - probe.vias().get(0).lineStart());
        String response = "SIP/2.0 " + status + " Whatever\r\n" + via + "From: <sip:lb@x>;tag=1\r\nTo: <sip:n@y>;tag=2\r\n"
                + "Call-ID: " + probe.callId() + "\r\nCSeq: " + probe.cseqNumber() + " OPTIONS\r\n" + extraHeaders
                + "Content-Length: 0\r\n\r\n";
        ch.writeInbound(new SipFrame(response.getBytes(), from, Transport.UDP, 0));
        assertNull(ch.readInbound(), "probe answers are consumed");
    }
}
