package org.p2psip.core.guard;

/**
 * The share of new requests a node asks the element in front of it (the
 * cluster's balancer) to send elsewhere or refuse: RFC 7339's loss
 * algorithm (§5.2, {@code oc=N}) from the server's side.
 *
 * <p>At the end of each {@link #WINDOW_NANOS} window in which the node
 * refused anything, it asks for the share that would have brought it what
 * it admitted, and {@link #PROBE_PERCENT} % more: with share {@code s} in
 * force, a window that admitted {@code a} of {@code a + r} requests asks
 * to keep {@code (1 - s) × a / (a + r) × (1 + PROBE_PERCENT / 100)} of the
 * offered load, at most {@link #MAX} % shed. The extra keeps the node
 * refusing a little, so its answers go on renewing the instruction and
 * notice when it can take more. Each window without a refusal asks for
 * {@link #STEP_DOWN} points less. Refusals so move from the node, where
 * each costs a parse by its SIP stack and a response, to the balancer,
 * where it costs a few header lines; and the node, not being refused work
 * it cannot do, carries what it can.
 *
 * <p>Pure: time is passed in. Thread-safe.
 */
public final class OverloadShare {

    /** How long one window of refusals and admissions lasts. */
    public static final long WINDOW_NANOS = 250_000_000L;
    /** How much more than it admitted a node asks to be sent, in percent. */
    public static final int PROBE_PERCENT = 5;
    public static final int STEP_DOWN = 5;
    /** The least a refusal asks for: the node is refusing, so it sheds something, but not everything. */
    public static final int REFUSING_FLOOR = 1;
    /** Never everything: a node must go on seeing requests to notice that it has recovered. */
    public static final int MAX = 95;

    private boolean started;
    private long windowStart;
    private long admitted;
    private long refused;
    private int percent;

    /** One request was admitted ({@code refused} false) or refused at {@code now}. */
    public synchronized void record(boolean refused, long now) {
        roll(now);
        if (refused) {
            this.refused++;
        } else {
            admitted++;
        }
    }

    /** The share to ask for at {@code now}, 0..{@link #MAX}. */
    public synchronized int percent(long now) {
        roll(now);
        return percent;
    }

    /**
     * The share to ask for in a refusal at {@code now}: at least {@link
     * #REFUSING_FLOOR}, though no window has ended with refusals yet. A
     * refusal without a share is a bare 503, which an element in front
     * takes as "send me nothing until Retry-After" (RFC 3261 §21.5.4): the
     * first refusals of every spell, before its first window had ended,
     * held the node off for its whole Retry-After (2 s) and moved all its
     * load, under owner routing the dearest way, onto peers that were
     * about as busy, which then did the same.
     */
    public synchronized int percentWhileRefusing(long now) {
        roll(now);
        return Math.max(REFUSING_FLOOR, percent);
    }

    private void roll(long now) {
        if (!started) {
            started = true;
            windowStart = now;
            return;
        }
        long windows = (now - windowStart) / WINDOW_NANOS;
        if (windows < 1) {
            return;
        }
        if (refused > 0) {
            double keep = (100 - percent) / 100.0 * admitted / (admitted + refused) * (100 + PROBE_PERCENT) / 100.0;
            percent = (int) Math.min(MAX, 100 - Math.min(100, Math.round(100 * keep)));
            windows--;
        }
        percent = (int) Math.max(0, percent - Math.min(windows, MAX) * STEP_DOWN);
        admitted = 0;
        refused = 0;
        windowStart = now;
    }
}
