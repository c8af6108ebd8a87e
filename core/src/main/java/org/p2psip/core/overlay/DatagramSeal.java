package org.p2psip.core.overlay;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Arrays;

import javax.crypto.Mac;

/**
 * Authentication with freshness for overlay frames sent as datagrams, where
 * there is no connection to hold a session: the decisions of
 * {@link DatagramAuthenticator}, with time and addresses passed in.
 *
 * <p>A sealed frame is
 * {@code timestamp(8) nonce(16) addressLength(1) address(4|16) port(2) body mac(32)},
 * the MAC being HMAC-SHA256 over everything before it with a key derived
 * from the cluster secret for datagrams only. The receiver refuses a frame
 * whose MAC fails, that was addressed to another socket (so a frame
 * recorded on its way to one node cannot be replayed to another), or that
 * its {@link NonceWindow} finds stale or already seen. Requests and answers
 * are sealed alike, so a recorded answer cannot complete a later request.
 *
 * <p>The destination is the address the sender sent to; a node behind a NAT
 * that rewrites it refuses such frames (the overlay advertises the bound
 * address, so such a node is not reachable by its peers anyway).
 *
 * <p>Not thread-safe: the UDP channel's event loop owns it.
 */
final class DatagramSeal {

    /** Why a datagram was refused. */
    enum Refusal {
        TRUNCATED, BAD_MAC, MISADDRESSED, STALE, REPLAYED, WINDOW_FULL
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

    static final int NONCE_BYTES = 16;
    /** The most a seal adds to a body (an IPv6 destination). */
    static final int MAX_OVERHEAD_BYTES = Long.BYTES + NONCE_BYTES + 1 + 16 + 2 + OverlaySecret.MAC_BYTES;

    private static final String KEY_LABEL = "p2psip overlay datagram";

    private final Mac mac;
    private final NonceWindow window;

    DatagramSeal(OverlaySecret secret, NonceWindow window) {
        this.mac = OverlaySecret.macWithKey(secret.derive(KEY_LABEL));
        this.window = window;
    }

    /** Seals {@code body} for {@code destination} at {@code nowMillis} with a {@value #NONCE_BYTES}-byte nonce. */
    byte[] seal(byte[] body, InetSocketAddress destination, long nowMillis, byte[] nonce) {
        if (nonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("a datagram nonce has " + NONCE_BYTES + " bytes");
        }
        if (destination.isUnresolved()) {
            throw new IllegalArgumentException("cannot seal a datagram for unresolved " + destination);
        }
        byte[] address = destination.getAddress().getAddress();
        ByteBuffer out = ByteBuffer.allocate(Long.BYTES + NONCE_BYTES + 1 + address.length + 2 + body.length
                + OverlaySecret.MAC_BYTES);
        out.putLong(nowMillis).put(nonce).put((byte) address.length).put(address)
                .putShort((short) destination.getPort()).put(body);
        mac.update(out.array(), 0, out.position());
        out.put(mac.doFinal());
        return out.array();
    }

    /**
     * Opens a frame received on the socket bound to {@code local} at
     * {@code nowMillis}; an accepted frame's nonce is remembered, so the same
     * frame is refused the next time.
     */
    Opened open(byte[] frame, InetSocketAddress local, long nowMillis) {
        int headerBytes = Long.BYTES + NONCE_BYTES + 1;
        if (frame.length < headerBytes + OverlaySecret.MAC_BYTES) {
            return refused(Refusal.TRUNCATED);
        }
        ByteBuffer in = ByteBuffer.wrap(frame);
        long timestamp = in.getLong();
        long nonceHigh = in.getLong();
        long nonceLow = in.getLong();
        int addressLength = in.get() & 0xFF;
        if ((addressLength != 4 && addressLength != 16)
                || frame.length < headerBytes + addressLength + 2 + OverlaySecret.MAC_BYTES) {
            return refused(Refusal.TRUNCATED);
        }
        byte[] address = new byte[addressLength];
        in.get(address);
        int port = in.getShort() & 0xFFFF;
        int bodyStart = in.position();
        int macStart = frame.length - OverlaySecret.MAC_BYTES;
        mac.update(frame, 0, macStart);
        if (!OverlaySecret.macMatches(mac.doFinal(), Arrays.copyOfRange(frame, macStart, frame.length))) {
            return refused(Refusal.BAD_MAC);
        }
        if (!addressedTo(address, port, local)) {
            return refused(Refusal.MISADDRESSED);
        }
        return switch (window.admit(timestamp, nonceHigh, nonceLow, nowMillis)) {
            case FRESH -> new Opened(Arrays.copyOfRange(frame, bodyStart, macStart), null);
            case TOO_OLD, TOO_NEW -> refused(Refusal.STALE);
            case REPLAYED -> refused(Refusal.REPLAYED);
            case FULL -> refused(Refusal.WINDOW_FULL);
        };
    }

    private static boolean addressedTo(byte[] address, int port, InetSocketAddress local) {
        if (port != local.getPort()) {
            return false;
        }
        // A socket bound to one address receives only datagrams sent to it; one bound to
        // every address cannot tell which it was sent to, so only the port is checked.
        InetAddress bound = local.getAddress();
        if (bound == null || bound.isAnyLocalAddress()) {
            return true;
        }
        try {
            return InetAddress.getByAddress(address).equals(bound);
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static Opened refused(Refusal why) {
        return new Opened(null, why);
    }
}
