package org.p2psip.core.guard;

import java.time.Duration;

/**
 * Decides when a node is overloaded and must refuse new work with
 * {@code 503 Service Unavailable} and a Retry-After (RFC 3261 §21.5.4,
 * RFC 5390 §5) instead of queueing it.
 *
 * <p>The signal is how long the oldest waiting message has waited (the
 * queue's delay, as CoDel uses it) and, as a backstop, how many wait: a
 * queue that grows past what the node can serve within a SIP client's
 * first retransmission interval (T1 = 500 ms) only produces
 * retransmissions, which add load exactly when there is none to spare.
 * Refusing early is cheap and lets a cold node serve what it can while
 * its compiler warms up.
 *
 * <p>As in CoDel, a delay above the bound refuses only once it has lasted
 * half the bound again: a queue that a garbage collection or a moment
 * without CPU left behind drains in milliseconds, and refusing it would
 * fail requests the node is about to serve. A queue that stays behind is
 * overload.
 *
 * <p>A request inside a dialog (a BYE, a re-INVITE, an in-dialog NOTIFY)
 * is spared the delay bound and refused only by the depth bound: it
 * finishes work the node already took on, costs it no lookup, and a BYE
 * refused leaves a call up that its caller already counts as ended (RFC
 * 3261 §15.1.1), so an overloaded server refuses new work first (RFC 7339
 * §5.10.1, as the balancer steers only new requests).
 *
 * <p>The gate also tells upstream clients how much to cut before they are
 * refused (RFC 7339's loss algorithm, the {@code oc} Via parameter): the
 * share of messages it refused over the last second, plus headroom.
 */
public final class OverloadGate {

    private static final long WINDOW_NANOS = 1_000_000_000L;

    private final long maxDelayNanos;
    private final long persistNanos;
    private final int maxDepth;
    private boolean delayed;
    private long delayedSince;
    private long windowStart = Long.MIN_VALUE;
    private long admittedInWindow;
    private long shedInWindow;
    private int lastShare;

    /**
     * @param maxDelay how long the oldest queued message may have waited before new requests are refused
     * @param maxDepth how many messages may wait at most
     */
    public OverloadGate(Duration maxDelay, int maxDepth) {
        if (maxDelay.isNegative() || maxDelay.isZero()) {
            throw new IllegalArgumentException("the overload delay bound must be positive");
        }
        if (maxDepth < 1) {
            throw new IllegalArgumentException("the queue bound must be at least 1, not " + maxDepth);
        }
        this.maxDelayNanos = maxDelay.toNanos();
        this.persistNanos = maxDelayNanos / 2;
        this.maxDepth = maxDepth;
    }

    /**
     * Whether a new request that arrives at {@code nowNanos} may be queued,
     * given how long the oldest queued message has waited and how many wait:
     * not when the wait has been over the bound for half the bound, or the
     * queue is full.
     * Called by the one thread that receives; not thread-safe.
     */
    public boolean admit(long oldestWaitNanos, int depth, long nowNanos) {
        return admit(oldestWaitNanos, depth, nowNanos, false);
    }

    /**
     * As {@link #admit(long, int, long)}, for a request inside a dialog
     * when {@code inDialog}: then only a full queue refuses it.
     */
    public boolean admit(long oldestWaitNanos, int depth, long nowNanos, boolean inDialog) {
        roll(nowNanos);
        if (oldestWaitNanos <= maxDelayNanos) {
            delayed = false;
        } else if (!delayed) {
            delayed = true;
            delayedSince = nowNanos;
        }
        boolean persistentlyDelayed = delayed && nowNanos - delayedSince >= persistNanos;
        boolean admit = (inDialog || !persistentlyDelayed) && depth < maxDepth;
        if (admit) {
            admittedInWindow++;
        } else {
            shedInWindow++;
        }
        return admit;
    }

    /**
     * The percentage by which upstream clients should reduce the requests
     * they send (RFC 7339 §5.4, loss algorithm): 0 when nothing was refused
     * in the last full second, else the refused share plus 10 points of
     * headroom, at most 100.
     */
    public int reductionPercent(long nowNanos) {
        roll(nowNanos);
        return lastShare;
    }

    private void roll(long now) {
        if (windowStart == Long.MIN_VALUE) {
            windowStart = now;
            return;
        }
        long elapsed = now - windowStart;
        if (elapsed < WINDOW_NANOS) {
            return;
        }
        long total = admittedInWindow + shedInWindow;
        lastShare = elapsed >= 2 * WINDOW_NANOS || total == 0 || shedInWindow == 0
                ? 0
                : (int) Math.min(100, (shedInWindow * 100 + total - 1) / total + 10);
        admittedInWindow = 0;
        shedInWindow = 0;
        windowStart = now;
    }
}
