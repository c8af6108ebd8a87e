package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

/** The window in front of a transport whose answers the test gives by hand. */
class WindowedTransportTest {

    private static final int DATA = 7;
    private static final int PING = 1;
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final HostPort peer = new HostPort("10.0.0.1", 4000);
    private final List<CompletableFuture<byte[]>> sent = new ArrayList<>();
    private final OverlayTransport wire = new OverlayTransport() {
        @Override
        public HostPort localAddress() {
            return new HostPort("10.0.0.9", 4000);
        }

        @Override
        public CompletableFuture<byte[]> request(HostPort to, int type, byte[] payload, Duration timeout) {
            CompletableFuture<byte[]> answer = new CompletableFuture<>();
            sent.add(answer);
            return answer;
        }

        @Override
        public void close() {
        }
    };
    private final PeerWindows<HostPort> windows = new PeerWindows<>(4, 2, 8, 0);
    private final WindowedTransport transport = new WindowedTransport(wire, windows, Set.of(PING), () -> 0);

    @Test
    void requestsBeyondTheWindowFailFastAsBackedOff() {
        for (int i = 0; i < 4; i++) {
            transport.request(peer, DATA, new byte[0], TIMEOUT);
        }
        CompletableFuture<byte[]> fifth = transport.request(peer, DATA, new byte[0], TIMEOUT);
        assertEquals(4, sent.size(), "the fifth never reached the wire");
        assertTrue(fifth.isCompletedExceptionally());
        assertTrue(fifth.handle((a, e) -> WindowedTransport.backedOff(e)).join());
    }

    @Test
    void exemptTypesPassAFullWindow() {
        for (int i = 0; i < 4; i++) {
            transport.request(peer, DATA, new byte[0], TIMEOUT);
        }
        CompletableFuture<byte[]> ping = transport.request(peer, PING, new byte[0], TIMEOUT);
        assertEquals(5, sent.size());
        assertFalse(ping.isDone());
    }

    @Test
    void aTimeoutHalvesTheWindowAndAnAnswerFreesItsPlace() {
        CompletableFuture<byte[]> first = transport.request(peer, DATA, new byte[0], TIMEOUT);
        transport.request(peer, DATA, new byte[0], TIMEOUT);
        sent.get(0).completeExceptionally(new OverlayException(OverlayException.Reason.TIMEOUT, "late"));
        assertTrue(first.isCompletedExceptionally());
        assertEquals(2, windows.window(peer));
        assertEquals(1, windows.inFlight(peer));
        sent.get(1).complete(new byte[0]);
        assertEquals(0, windows.inFlight(peer));
    }

    @Test
    void aRefusalFreesItsPlaceWithoutCuttingTheWindow() {
        transport.request(peer, DATA, new byte[0], TIMEOUT);
        transport.request(peer, DATA, new byte[0], TIMEOUT);
        sent.get(0).completeExceptionally(new OverlayException(OverlayException.Reason.UNREACHABLE, "refused"));
        assertEquals(4, windows.window(peer));
        assertEquals(1, windows.inFlight(peer));
    }
}
