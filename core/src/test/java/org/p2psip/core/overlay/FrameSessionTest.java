package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

/** The TCP session's decisions, without sockets. */
class FrameSessionTest {

    private static final OverlaySecret SECRET = OverlaySecret.of("cluster-secret");

    private static byte[] nonce(int fill) {
        byte[] n = new byte[FrameSession.NONCE_BYTES];
        Arrays.fill(n, (byte) fill);
        return n;
    }

    private static FrameSession initiator(OverlaySecret secret, int own, int peer) {
        return FrameSession.establish(secret, FrameSession.Role.INITIATOR, nonce(own), nonce(peer));
    }

    private static FrameSession acceptor(OverlaySecret secret, int own, int peer) {
        return FrameSession.establish(secret, FrameSession.Role.ACCEPTOR, nonce(own), nonce(peer));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void bothEndsProveTheSameSessionToEachOther() {
        FrameSession a = initiator(SECRET, 1, 2);
        FrameSession b = acceptor(SECRET, 2, 1);
        assertTrue(b.peerProofMatches(a.proof()));
        assertTrue(a.peerProofMatches(b.proof()));
    }

    @Test
    void aProofReflectedBackToItsSenderIsRefused() {
        FrameSession a = initiator(SECRET, 1, 2);
        assertFalse(a.peerProofMatches(a.proof()));
    }

    @Test
    void aPeerWithAnotherSecretCannotProveTheSession() {
        FrameSession intruder = initiator(OverlaySecret.of("guess"), 1, 2);
        assertFalse(acceptor(SECRET, 2, 1).peerProofMatches(intruder.proof()));
    }

    @Test
    void aProofRecordedInAnEarlierSessionFailsAgainstANewNonce() {
        byte[] recorded = initiator(SECRET, 1, 2).proof();
        assertFalse(acceptor(SECRET, 3, 1).peerProofMatches(recorded));
    }

    @Test
    void framesAreAcceptedOnceAndInOrder() {
        FrameSession a = initiator(SECRET, 1, 2);
        FrameSession b = acceptor(SECRET, 2, 1);
        byte[] first = a.seal(bytes("GET alice"));
        byte[] second = a.seal(bytes("PUT bob"));
        assertArrayEquals(bytes("GET alice"), b.open(first).body());
        assertEquals(FrameSession.Refusal.OUT_OF_SEQUENCE, b.open(first).refusal(), "a replay");
        assertArrayEquals(bytes("PUT bob"), b.open(second).body());
    }

    @Test
    void aFrameSkippingAheadIsRefused() {
        FrameSession a = initiator(SECRET, 1, 2);
        FrameSession b = acceptor(SECRET, 2, 1);
        a.seal(bytes("lost"));
        assertEquals(FrameSession.Refusal.OUT_OF_SEQUENCE, b.open(a.seal(bytes("next"))).refusal());
    }

    @Test
    void aFrameFromAnotherConnectionIsRefused() {
        byte[] recorded = initiator(SECRET, 1, 2).seal(bytes("GET alice"));
        FrameSession later = acceptor(SECRET, 5, 1);
        assertEquals(FrameSession.Refusal.BAD_MAC, later.open(recorded).refusal());
    }

    @Test
    void aFrameReflectedBackToItsSenderIsRefused() {
        FrameSession a = initiator(SECRET, 1, 2);
        assertEquals(FrameSession.Refusal.BAD_MAC, a.open(a.seal(bytes("PUT"))).refusal());
    }

    @Test
    void aTamperedOrTruncatedFrameIsRefused() {
        FrameSession a = initiator(SECRET, 1, 2);
        FrameSession b = acceptor(SECRET, 2, 1);
        byte[] frame = a.seal(bytes("PUT alice"));
        frame[FrameSession.SEQUENCE_BYTES] ^= 1;
        assertEquals(FrameSession.Refusal.BAD_MAC, b.open(frame).refusal());
        assertEquals(FrameSession.Refusal.TRUNCATED, b.open(new byte[FrameSession.OVERHEAD_BYTES - 1]).refusal());
    }

    @Test
    void aSequenceNumberRewrittenByAnAttackerBreaksTheMac() {
        FrameSession a = initiator(SECRET, 1, 2);
        FrameSession b = acceptor(SECRET, 2, 1);
        byte[] first = a.seal(bytes("GET"));
        assertTrue(b.open(first).accepted());
        first[FrameSession.SEQUENCE_BYTES - 1] = 1;
        assertEquals(FrameSession.Refusal.BAD_MAC, b.open(first).refusal());
    }
}
