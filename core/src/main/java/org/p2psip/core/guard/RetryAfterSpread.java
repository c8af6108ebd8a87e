package org.p2psip.core.guard;

import java.util.random.RandomGenerator;

/**
 * The Retry-After of a 503 that sheds load (RFC 3261 §21.5.4), drawn from
 * {@code seconds} to twice that rather than fixed. A 503 is sent in bursts
 * (a node dies, a cluster starts, a wave of phones re-registers), and
 * clients that honour one Retry-After all come back in the same second, as
 * a second burst on a server that has had exactly that long to recover:
 * the on/off pattern RFC 5390 §5 names as the bare 503's failure. Spread
 * over a window as long as the wait itself, they come back at a rate the
 * server can take, and each still waits at least what was configured.
 *
 * @param seconds the least a refused client is told to wait; 0: "now", not spread
 */
public record RetryAfterSpread(long seconds) {

    /** Retry-After is delta-seconds (RFC 3261 §20.33); a day is as long as anyone should be told to wait. */
    public static final long MAX_SECONDS = 86_400;

    public RetryAfterSpread {
        if (seconds < 0 || seconds > MAX_SECONDS) {
            throw new IllegalArgumentException("Retry-After must be 0.." + MAX_SECONDS + " seconds, not " + seconds);
        }
    }

    /** The Retry-After for one refusal, {@code seconds..2 × seconds}, uniformly, from {@code random}. */
    public long draw(RandomGenerator random) {
        return seconds == 0 ? 0 : seconds + random.nextLong(seconds + 1);
    }
}
