package org.p2psip.core.guard;

/**
 * The share of new requests a node asks the element in front of it (the
 * cluster's balancer) to send elsewhere or refuse: RFC 7339's loss
 * algorithm (§5.2, {@code oc=N}) from the server's side. While the node
 * keeps refusing work it asks for more, {@link #FIRST} % at first and
 * {@link #STEP_UP} points more each {@link #WINDOW_NANOS} window in which it
 * refused anything, up to {@link #MAX} %; each window without a refusal it
 * asks for {@link #STEP_DOWN} points less. Refusals so move from the node,
 * where each costs a parse by its SIP stack and a response, to the
 * balancer, where it costs a few header lines.
 *
 * <p>Pure: time is passed in. Thread-safe.
 */
public final class OverloadShare {

    /** How long one window of refusals and admissions lasts. */
    public static final long WINDOW_NANOS = 250_000_000L;
    /** The first share asked for. */
    public static final int FIRST = 20;
    public static final int STEP_UP = 10;
    public static final int STEP_DOWN = 5;
    /** Never everything: a node must go on seeing requests to notice that it has recovered. */
    public static final int MAX = 95;

    private boolean started;
    private long windowStart;
    private boolean refusedInWindow;
    private int percent;

    /** One request was admitted ({@code refused} false) or refused at {@code now}. */
    public synchronized void record(boolean refused, long now) {
        roll(now);
        refusedInWindow |= refused;
    }

    /** The share to ask for at {@code now}, 0..{@link #MAX}. */
    public synchronized int percent(long now) {
        roll(now);
        return percent;
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
        if (refusedInWindow) {
            percent = percent == 0 ? FIRST : Math.min(MAX, percent + STEP_UP);
            windows--;
        }
        percent = (int) Math.max(0, percent - Math.min(windows, MAX) * STEP_DOWN);
        refusedInWindow = false;
        windowStart = now;
    }
}
