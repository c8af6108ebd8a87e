package org.p2psip.core.overlay;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

import javax.crypto.Mac;

/**
 * The keys and counters of one authenticated overlay TCP connection — the
 * decisions of {@link OverlayHandshake} and {@link SessionFraming}, with no
 * socket in sight.
 *
 * <p>Each side picks a random {@value #NONCE_BYTES}-byte nonce and sends it
 * in its hello. Both derive the session key
 * {@code K = HMAC(secret, "p2psip overlay session" || initiatorNonce || acceptorNonce)}
 * and prove they hold it with {@code HMAC(K, "proof" || role)}. Because the
 * key depends on a nonce the verifier itself just chose, a recorded
 * handshake or frame from any earlier connection fails on a new one; because
 * the proof names the sender's role, a side cannot be fooled by its own
 * proof reflected back.
 *
 * <p>After the handshake every frame is {@code seq(8) body mac(32)} with
 * {@code mac = HMAC(K, direction || seq || body)}: each direction counts its
 * frames from zero, and a frame whose sequence is not exactly the next one
 * (a replay, a reordering, a dropped frame) is refused like a forged one, so
 * a frame is accepted at most once and in the order it was sent.
 *
 * <p>Not thread-safe: one connection's event loop owns it.
 */
final class FrameSession {

    /** Which end of the connection this side is; the initiator connected. */
    enum Role {
        INITIATOR((byte) 'I'), ACCEPTOR((byte) 'A');

        private final byte code;

        Role(byte code) {
            this.code = code;
        }

        Role peer() {
            return this == INITIATOR ? ACCEPTOR : INITIATOR;
        }
    }

    /** Why a frame was refused; every refusal ends the connection. */
    enum Refusal {
        /** Too short to carry a sequence number and a MAC. */
        TRUNCATED,
        /** The MAC does not verify: another secret, another connection's key, or tampering. */
        BAD_MAC,
        /** Authentic but not the next frame expected: a replay or a reordering. */
        OUT_OF_SEQUENCE
    }

    /** An opened frame: its body, or why it was refused. */
    record Opened(byte[] body, Refusal refusal) {
        Opened {
            if ((body == null) == (refusal == null)) {
                throw new IllegalArgumentException("exactly one of body and refusal");
            }
        }

        boolean accepted() {
            return body != null;
        }
    }

    static final int NONCE_BYTES = 32;
    static final int PROOF_BYTES = OverlaySecret.MAC_BYTES;
    static final int SEQUENCE_BYTES = Long.BYTES;
    /** What {@link #seal} adds to a frame body. */
    static final int OVERHEAD_BYTES = SEQUENCE_BYTES + OverlaySecret.MAC_BYTES;

    private static final String SESSION_LABEL = "p2psip overlay session";
    private static final byte[] PROOF_LABEL = "proof".getBytes(StandardCharsets.US_ASCII);

    private final Role role;
    private final Mac mac;
    private long sent;
    private long received;

    private FrameSession(Role role, Mac mac) {
        this.role = role;
        this.mac = mac;
    }

    /** The session both ends derive once each has the other's hello nonce. */
    static FrameSession establish(OverlaySecret secret, Role role, byte[] ownNonce, byte[] peerNonce) {
        Objects.requireNonNull(role, "role");
        checkNonce(ownNonce);
        checkNonce(peerNonce);
        byte[] initiator = role == Role.INITIATOR ? ownNonce : peerNonce;
        byte[] acceptor = role == Role.INITIATOR ? peerNonce : ownNonce;
        return new FrameSession(role, OverlaySecret.macWithKey(secret.derive(SESSION_LABEL, initiator, acceptor)));
    }

    private static void checkNonce(byte[] nonce) {
        if (nonce == null || nonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("a session nonce has " + NONCE_BYTES + " bytes");
        }
    }

    /** What this side sends to prove it holds the session key. */
    byte[] proof() {
        return proofOf(role);
    }

    /** Whether {@code proof} is the peer's proof of this session's key (constant time). */
    boolean peerProofMatches(byte[] proof) {
        return proof != null && OverlaySecret.macMatches(proofOf(role.peer()), proof);
    }

    private byte[] proofOf(Role who) {
        mac.update(PROOF_LABEL);
        mac.update(who.code);
        return mac.doFinal();
    }

    /** {@code seq(8) body mac(32)} for the next frame this side sends. */
    byte[] seal(byte[] body) {
        long seq = sent++;
        ByteBuffer out = ByteBuffer.allocate(OVERHEAD_BYTES + body.length);
        out.putLong(seq).put(body).put(tag(role, seq, body, 0, body.length));
        return out.array();
    }

    /**
     * Checks a frame the peer sent and returns its body; a refusal leaves the
     * expected sequence where it was (the connection is closed anyway).
     */
    Opened open(byte[] frame) {
        int bodyLength = frame.length - OVERHEAD_BYTES;
        if (bodyLength < 0) {
            return new Opened(null, Refusal.TRUNCATED);
        }
        long seq = ByteBuffer.wrap(frame).getLong();
        byte[] expected = tag(role.peer(), seq, frame, SEQUENCE_BYTES, bodyLength);
        byte[] actual = new byte[OverlaySecret.MAC_BYTES];
        System.arraycopy(frame, SEQUENCE_BYTES + bodyLength, actual, 0, actual.length);
        if (!OverlaySecret.macMatches(expected, actual)) {
            return new Opened(null, Refusal.BAD_MAC);
        }
        if (seq != received) {
            return new Opened(null, Refusal.OUT_OF_SEQUENCE);
        }
        received++;
        byte[] body = new byte[bodyLength];
        System.arraycopy(frame, SEQUENCE_BYTES, body, 0, bodyLength);
        return new Opened(body, null);
    }

    private byte[] tag(Role sender, long seq, byte[] bytes, int from, int length) {
        mac.update(sender.code);
        for (int shift = 56; shift >= 0; shift -= 8) {
            mac.update((byte) (seq >>> shift));
        }
        mac.update(bytes, from, length);
        return mac.doFinal();
    }
}
