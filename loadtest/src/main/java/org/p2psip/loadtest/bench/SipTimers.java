package org.p2psip.loadtest.bench;

import java.time.Duration;

/**
 * The transaction timer values of RFC 3261 §17.1.1.1 and Table 4, in
 * nanoseconds: T1 (round-trip estimate, 500 ms), T2 (longest interval
 * between non-INVITE retransmissions, 4 s) and T4 (how long the network
 * may hold a message, 5 s). Timers B and F, the transaction timeouts, are
 * {@code 64 * T1}.
 *
 * @param t1Nanos T1
 * @param t2Nanos T2
 * @param t4Nanos T4
 */
public record SipTimers(long t1Nanos, long t2Nanos, long t4Nanos) {

    /** The RFC's defaults: T1 500 ms, T2 4 s, T4 5 s. */
    public static final SipTimers RFC3261 = of(Duration.ofMillis(500), Duration.ofSeconds(4), Duration.ofSeconds(5));

    public SipTimers {
        if (t1Nanos <= 0 || t2Nanos < t1Nanos || t4Nanos <= 0) {
            throw new IllegalArgumentException("need 0 < T1 <= T2 and T4 > 0");
        }
    }

    public static SipTimers of(Duration t1, Duration t2, Duration t4) {
        return new SipTimers(t1.toNanos(), t2.toNanos(), t4.toNanos());
    }

    /** The same timers with another T1; T2 is raised to T1 if it was smaller. */
    public SipTimers withT1(Duration t1) {
        long n = t1.toNanos();
        return new SipTimers(n, Math.max(n, t2Nanos), t4Nanos);
    }

    /** Timer B (INVITE) and Timer F (non-INVITE): {@code 64 * T1}, after which a client transaction gives up. */
    public long timeoutNanos() {
        return 64 * t1Nanos;
    }
}
