package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

/** Datagram authentication and freshness, with time and addresses passed in. */
class DatagramSealTest {

    private static final long T = 1_700_000_000_000L;
    private static final OverlaySecret SECRET = OverlaySecret.of("cluster-secret");
    private static final InetSocketAddress NODE = new InetSocketAddress("127.0.0.1", 4000);
    private static final byte[] BODY = "GET alice".getBytes(StandardCharsets.UTF_8);

    private static DatagramSeal seal(OverlaySecret secret) {
        return new DatagramSeal(secret, new NonceWindow(Duration.ofSeconds(30), Duration.ofSeconds(1), 1000));
    }

    private static byte[] nonce(int n) {
        byte[] bytes = new byte[DatagramSeal.NONCE_BYTES];
        bytes[0] = (byte) n;
        return bytes;
    }

    @Test
    void aSealedFrameOpensOnceAtItsDestination() {
        byte[] frame = seal(SECRET).seal(BODY, NODE, T, nonce(1));
        DatagramSeal receiver = seal(SECRET);
        assertArrayEquals(BODY, receiver.open(frame, NODE, T + 50).body());
        assertEquals(DatagramSeal.Refusal.REPLAYED, receiver.open(frame, NODE, T + 5_000).refusal());
    }

    @Test
    void aFrameReplayedAfterTheWindowIsStale() {
        byte[] frame = seal(SECRET).seal(BODY, NODE, T, nonce(1));
        assertEquals(DatagramSeal.Refusal.STALE, seal(SECRET).open(frame, NODE, T + 31_000).refusal());
    }

    @Test
    void aFrameSentToOneNodeIsRefusedByAnother() {
        byte[] frame = seal(SECRET).seal(BODY, NODE, T, nonce(1));
        assertEquals(DatagramSeal.Refusal.MISADDRESSED,
                seal(SECRET).open(frame, new InetSocketAddress("127.0.0.1", 4001), T).refusal());
        assertEquals(DatagramSeal.Refusal.MISADDRESSED,
                seal(SECRET).open(frame, new InetSocketAddress("127.0.0.2", 4000), T).refusal());
    }

    @Test
    void aSocketBoundToEveryAddressChecksOnlyThePort() {
        byte[] frame = seal(SECRET).seal(BODY, NODE, T, nonce(1));
        assertArrayEquals(BODY, seal(SECRET).open(frame, new InetSocketAddress(4000), T).body());
    }

    @Test
    void anotherSecretTamperingAndTruncationAreRefused() {
        byte[] forged = seal(OverlaySecret.of("guess")).seal(BODY, NODE, T, nonce(1));
        assertEquals(DatagramSeal.Refusal.BAD_MAC, seal(SECRET).open(forged, NODE, T).refusal());
        byte[] frame = seal(SECRET).seal(BODY, NODE, T, nonce(2));
        byte[] restamped = frame.clone();
        restamped[7] ^= 1;
        assertEquals(DatagramSeal.Refusal.BAD_MAC, seal(SECRET).open(restamped, NODE, T).refusal(),
                "a refreshed timestamp breaks the MAC");
        assertEquals(DatagramSeal.Refusal.TRUNCATED,
                seal(SECRET).open(new byte[20], NODE, T).refusal());
    }
}
