package org.p2psip.core.guard;

import java.time.Duration;
import java.util.Objects;

/**
 * How much one source address may send before it is banned.
 *
 * <p>A token bucket per source: {@code burst} messages at once, refilled at
 * {@code ratePerSecond}. A source that finds the bucket empty is banned for
 * {@code ban} and everything it sends meanwhile is dropped without an answer
 * (answering a flood is amplification). The defaults let a large enterprise
 * NAT or a carrier trunk through (thousands of phones behind one address
 * re-registering and calling, a SIPp client at a few thousand requests per
 * second) while a host flooding at tens of thousands per second is cut off
 * within a second. Malformed input costs a source
 * {@link SourceGuard#MALFORMED_COST} tokens, so a source sending garbage is
 * banned long before its rate would be reached.
 *
 * @param ratePerSecond sustained messages per second per source; 0 turns the guard off
 * @param burst         messages a source may send at once
 * @param ban           how long a source that exceeded the rate is ignored
 * @param maxSources    how many sources are tracked at most (memory bound under spoofed floods)
 */
public record SourceLimits(int ratePerSecond, int burst, Duration ban, int maxSources) {

    /** 5,000 messages/s sustained, bursts of 10,000, a 30 s ban, 100,000 sources tracked. */
    public static final SourceLimits DEFAULT = new SourceLimits(5_000, 10_000, Duration.ofSeconds(30), 100_000);

    /** No per-source limit at all. */
    public static final SourceLimits OFF = new SourceLimits(0, 1, Duration.ZERO, 1);

    public SourceLimits {
        Objects.requireNonNull(ban, "ban");
        if (ratePerSecond < 0) {
            throw new IllegalArgumentException("the per-source rate must not be negative, not " + ratePerSecond);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("the per-source burst must be at least 1, not " + burst);
        }
        if (ban.isNegative()) {
            throw new IllegalArgumentException("the ban time must not be negative");
        }
        if (maxSources < 1) {
            throw new IllegalArgumentException("at least one source must be tracked, not " + maxSources);
        }
    }

    public boolean enabled() {
        return ratePerSecond > 0;
    }

    public SourceLimits withRate(int rate, int newBurst) {
        return new SourceLimits(rate, newBurst, ban, maxSources);
    }

    public SourceLimits withBan(Duration newBan) {
        return new SourceLimits(ratePerSecond, burst, newBan, maxSources);
    }
}
