package org.p2psip.core.auth;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;

/**
 * Clients that were challenged (RFC 3261 §22.1: 401 or 407) and never
 * answered. A phone that can answer does so within milliseconds; one that
 * sends nothing more cannot compute any response the challenge allows —
 * typically it speaks only MD5 and reads only the first of several
 * challenges (RFC 8760 §2.4 puts the strongest first), or it has no
 * password for the realm. Such a phone gives up without a word to the
 * server, so the server is the only place an operator can learn of it.
 *
 * <p>Keyed by the client's address, at most {@code capacity} at a time: a
 * flood of unauthenticated requests from many sources fills it, and the
 * sources beyond are not watched rather than costing memory. Pure: time
 * comes in as an argument; callers serialise their calls.
 */
public final class UnansweredChallenges {

    /** A challenge to {@code source} for {@code user} at {@code challengedAt}, still unanswered. */
    public record Pending(InetSocketAddress source, String user, String userAgent, Instant challengedAt) {
        public Pending {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(userAgent, "userAgent");
            Objects.requireNonNull(challengedAt, "challengedAt");
        }
    }

    private final Duration patience;
    private final int capacity;
    /** In the order first challenged, which is the order they fall due. */
    private final LinkedHashMap<InetAddress, Pending> pending = new LinkedHashMap<>();

    /**
     * @param patience how long a client has to answer before its challenge counts as unanswered
     * @param capacity clients watched at most
     */
    public UnansweredChallenges(Duration patience, int capacity) {
        if (patience.isNegative() || patience.isZero()) {
            throw new IllegalArgumentException("patience must be positive");
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1");
        }
        this.patience = patience;
        this.capacity = capacity;
    }

    /**
     * {@code source} was just challenged. A client already waiting keeps its
     * first challenge's time: one that asks again without credentials has
     * not answered either.
     */
    public void challenged(InetSocketAddress source, String user, String userAgent, Instant now) {
        if (pending.containsKey(source.getAddress()) || pending.size() >= capacity) {
            return;
        }
        pending.put(source.getAddress(), new Pending(source, user, userAgent, now));
    }

    /** {@code source} sent credentials (right or wrong): it can answer a challenge. */
    public void answered(InetSocketAddress source) {
        pending.remove(source.getAddress());
    }

    /** The challenges unanswered for at least the patience at {@code now}, oldest first; they are forgotten. */
    public List<Pending> overdue(Instant now) {
        List<Pending> due = new ArrayList<>();
        Instant cutoff = now.minus(patience);
        for (Iterator<Pending> it = pending.values().iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.challengedAt().isAfter(cutoff)) {
                break;
            }
            due.add(p);
            it.remove();
        }
        return due;
    }

    /** Clients watched now. */
    public int watched() {
        return pending.size();
    }
}
