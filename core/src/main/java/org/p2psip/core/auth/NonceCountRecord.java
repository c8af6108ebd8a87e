package org.p2psip.core.auth;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the DHT holds for one user and one nonce: the {@link NonceCountWindow}
 * of counts used, and which request used the highest of them and when. The
 * second part tells a copy of that request from a replay: a UDP
 * retransmission that a balancer sent to another node than the one holding
 * its server transaction, or a node's own write tried again after its
 * acknowledgement was lost, carries the same transaction (RFC 3261 §17.2.3:
 * branch, sent-by, method) and comes within the lifetime a server
 * transaction would have absorbed it in (Timer J, 64·T1, §17.2.2).
 *
 * @param window       the counts used so far
 * @param transaction  a fingerprint of the transaction that used {@code window.highest()}; 0 for none known
 * @param usedAtMillis when that transaction used it, in epoch milliseconds (0 with no transaction)
 */
record NonceCountRecord(NonceCountWindow window, long transaction, long usedAtMillis) {

    static final NonceCountRecord EMPTY = new NonceCountRecord(NonceCountWindow.EMPTY, 0, 0);
    /** 64·T1 with T1 = 500 ms: how long a server transaction absorbs copies of its request. */
    static final Duration COPY_WINDOW = Duration.ofMillis(64 * 500);
    private static final int BYTES = 32;
    private static final int WINDOW_ONLY_BYTES = 16;

    NonceCountRecord {
        Objects.requireNonNull(window, "window");
    }

    /** Whether a request of {@code transaction} using {@code nc} at {@code now} is the one that used it here. */
    boolean isCopy(long nc, long transaction, Instant now) {
        long since = now.toEpochMilli() - usedAtMillis;
        return this.transaction != 0 && this.transaction == transaction && nc == window.highest()
                && since >= 0 && since <= COPY_WINDOW.toMillis();
    }

    /** The record after {@code transaction} used {@code nc} at {@code now}; empty when the count was used before. */
    Optional<NonceCountRecord> use(long nc, long transaction, Instant now) {
        return window.accept(nc).map(next -> nc == next.highest()
                ? new NonceCountRecord(next, transaction, now.toEpochMilli())
                : new NonceCountRecord(next, this.transaction, usedAtMillis));
    }

    byte[] encode() {
        return ByteBuffer.allocate(BYTES).put(window.encode()).putLong(transaction).putLong(usedAtMillis).array();
    }

    /**
     * Reads {@link #encode}'s form, and the window alone that nodes before
     * this record wrote (no copy recognised); anything else counts as a
     * window that has seen everything.
     */
    static NonceCountRecord decode(byte[] bytes) {
        if (bytes == null || bytes.length != BYTES) {
            // NonceCountWindow reads its own 16 bytes, and takes anything else for every count used.
            return new NonceCountRecord(NonceCountWindow.decode(bytes), 0, 0);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        byte[] window = new byte[WINDOW_ONLY_BYTES];
        b.get(window);
        return new NonceCountRecord(NonceCountWindow.decode(window), b.getLong(), b.getLong());
    }
}
