package org.p2psip.core.guard;

import java.net.InetAddress;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per-source rate limiting with bans, the way Kamailio's pike module and an
 * htable of banned addresses protect a SIP server: every message from an
 * address takes a token from that address's bucket; an address that finds
 * its bucket empty is banned for {@link SourceLimits#ban()} and its messages
 * are dropped unanswered until the ban ends.
 *
 * <p>Called on the receive path of every message, from any thread; time is
 * the caller's monotonic {@code nanoTime}, so the rules are tested without
 * sleeping. Trusted addresses (the cluster's own balancer and nodes) are
 * never limited. Memory is bounded: past {@link SourceLimits#maxSources()}
 * idle entries are swept, and if the table is still full (a flood from
 * spoofed addresses) new sources are admitted untracked rather than evicting
 * a ban.
 */
public final class SourceGuard {

    /** Tokens a malformed message costs its source on top of the one it took when it arrived. */
    public static final int MALFORMED_COST = 50;

    private final SourceLimits limits;
    private final Set<InetAddress> trusted;
    private final ConcurrentHashMap<InetAddress, Bucket> buckets = new ConcurrentHashMap<>();
    private final long nanosPerToken;
    private final long banNanos;
    private final LongAdder dropped = new LongAdder();
    private final LongAdder bans = new LongAdder();

    public SourceGuard(SourceLimits limits, Set<InetAddress> trusted) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.trusted = Set.copyOf(trusted);
        this.nanosPerToken = limits.enabled() ? 1_000_000_000L / limits.ratePerSecond() : 0;
        this.banNanos = limits.ban().toNanos();
    }

    /** A guard that admits everything. */
    public static SourceGuard off() {
        return new SourceGuard(SourceLimits.OFF, Set.of());
    }

    public SourceLimits limits() {
        return limits;
    }

    /** Whether {@code source} is never limited: the cluster's balancer and nodes, and those named trusted. */
    public boolean trusted(InetAddress source) {
        return trusted.contains(source);
    }

    /** Decides about one message from {@code source} received at {@code nowNanos}. */
    public SourceVerdict admit(InetAddress source, long nowNanos) {
        if (!limits.enabled() || trusted.contains(source)) {
            return SourceVerdict.ADMIT;
        }
        Bucket bucket = buckets.get(source);
        if (bucket == null) {
            if (buckets.size() >= limits.maxSources()) {
                sweep(nowNanos);
                if (buckets.size() >= limits.maxSources()) {
                    return SourceVerdict.ADMIT;
                }
            }
            bucket = buckets.computeIfAbsent(source, s -> new Bucket(limits.burst(), nowNanos));
        }
        SourceVerdict verdict = bucket.take(nowNanos);
        if (verdict == SourceVerdict.BANNED_NOW) {
            bans.increment();
        }
        if (!verdict.admitted()) {
            dropped.increment();
        }
        return verdict;
    }

    /**
     * Charges {@code source} for a malformed message it sent: {@link #MALFORMED_COST}
     * tokens, so sending garbage exhausts a bucket fifty times faster than
     * sending requests. The ban itself falls on the source's next message.
     */
    public void penalize(InetAddress source, long nowNanos) {
        if (!limits.enabled() || trusted.contains(source)) {
            return;
        }
        Bucket bucket = buckets.get(source);
        if (bucket != null) {
            bucket.charge(MALFORMED_COST, nowNanos);
        }
    }

    /** Whether {@code source} is serving a ban at {@code nowNanos}. */
    public boolean banned(InetAddress source, long nowNanos) {
        Bucket bucket = buckets.get(source);
        return bucket != null && bucket.bannedAt(nowNanos);
    }

    /** Messages dropped because their source was over its rate or banned. */
    public long dropped() {
        return dropped.sum();
    }

    /** Bans imposed so far. */
    public long bans() {
        return bans.sum();
    }

    /** Sources currently tracked. */
    public int trackedSources() {
        return buckets.size();
    }

    /** Forgets sources whose bucket is full again and who serve no ban. */
    public void sweep(long nowNanos) {
        for (Iterator<Map.Entry<InetAddress, Bucket>> it = buckets.entrySet().iterator(); it.hasNext(); ) {
            if (it.next().getValue().idleAt(nowNanos)) {
                it.remove();
            }
        }
    }

    /** One source's tokens and ban; its own lock, so sources never contend with each other. */
    private final class Bucket {
        private double tokens;
        private long refilledAt;
        private long bannedUntil;
        private boolean banned;

        Bucket(int tokens, long now) {
            this.tokens = tokens;
            this.refilledAt = now;
        }

        synchronized SourceVerdict take(long now) {
            if (banned) {
                if (now - bannedUntil < 0) {
                    return SourceVerdict.BANNED;
                }
                banned = false;
                tokens = limits.burst();
                refilledAt = now;
            }
            refill(now);
            if (tokens >= 1) {
                tokens -= 1;
                return SourceVerdict.ADMIT;
            }
            banned = true;
            bannedUntil = now + banNanos;
            return SourceVerdict.BANNED_NOW;
        }

        synchronized void charge(int cost, long now) {
            if (!banned) {
                refill(now);
                tokens -= cost;
            }
        }

        synchronized boolean bannedAt(long now) {
            return banned && now - bannedUntil < 0;
        }

        synchronized boolean idleAt(long now) {
            if (bannedAt(now)) {
                return false;
            }
            if (banned) {
                return true;
            }
            refill(now);
            return tokens >= limits.burst();
        }

        private void refill(long now) {
            long elapsed = now - refilledAt;
            if (elapsed > 0) {
                tokens = Math.min(limits.burst(), tokens + (double) elapsed / nanosPerToken);
                refilledAt = now;
            }
        }
    }
}
