package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.OverlayTransport;

class ChordClientTimeoutTest {

    private static final Duration RPC = Duration.ofMillis(1000);
    private static final NodeRef OWNER = new NodeRef(BigInteger.TEN, new HostPort("127.0.0.1", 4000));

    /** Answers every request with an applied write and notes the timeout each type was given. */
    private static final class RecordingTransport implements OverlayTransport {
        final Map<Integer, Duration> timeouts = new HashMap<>();

        @Override
        public HostPort localAddress() {
            return new HostPort("127.0.0.1", 4001);
        }

        @Override
        public CompletableFuture<byte[]> request(HostPort peer, int type, byte[] payload, Duration timeout) {
            timeouts.put(type, timeout);
            return CompletableFuture.completedFuture(new ChordWire.Out().code(ChordWire.APPLIED).num(1).bytes());
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aConditionalWriteWaitsOutTheOwnersOwnCallToItsFence() {
        RecordingTransport transport = new RecordingTransport();
        ChordClient client = new ChordClient(transport, RPC);

        client.putIfVersion(OWNER, "k", 0, new byte[] {1}, Instant.parse("2026-11-28T03:00:00Z")).join();
        client.removeIfVersion(OWNER, "k", 1).join();

        assertEquals(RPC.multipliedBy(2), transport.timeouts.get(ChordWire.PUT_IF));
        assertEquals(RPC.multipliedBy(2), transport.timeouts.get(ChordWire.REMOVE_IF));
    }
}
