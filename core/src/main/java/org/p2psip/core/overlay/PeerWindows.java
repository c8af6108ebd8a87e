package org.p2psip.core.overlay;

import java.util.HashMap;
import java.util.Map;

/**
 * How many requests this node may have in flight to each peer: a window
 * kept by additive increase, multiplicative decrease (Chiu &amp; Jain 1989;
 * TCP congestion avoidance, RFC 5681 §3.1). Each answer grows a peer's
 * window by one over its size, so a window grows by about one per window's
 * worth of answers; a timeout halves it, at most once per cut spacing (the
 * RPC timeout), since the timeouts of one congested spell land together and
 * are one signal, as TCP cuts once per window of losses. A slow peer is thus
 * asked only what it has been answering, instead of being buried under
 * requests that time out in its queue and are sent again.
 *
 * <p>Pure: time is an argument. Thread-safe, since requests start on one
 * thread and their answers arrive on another. A peer with nothing in flight
 * and a full window is forgotten.
 */
public final class PeerWindows<K> {

    private static final class Window {
        double size;
        int inFlight;
        long lastCutNanos;
        boolean cut;

        Window(double size) {
            this.size = size;
        }
    }

    /** A peer's window before anything is known of it: well above what a healthy peer has in flight. */
    public static final int INITIAL = 64;
    /** The least a spell of timeouts leaves a window: enough for a slow peer's lookups and writes to go on. */
    public static final int MIN = 4;
    /** The most answers grow a window to. */
    public static final int MAX = 512;

    private final int initial;
    private final int min;
    private final int max;
    private final long cutSpacingNanos;
    private final Map<K, Window> windows = new HashMap<>();

    /**
     * @param initial         a peer's window before anything is known of it
     * @param min             the smallest a timeout leaves it (at least one, so a peer is always asked something)
     * @param max             the largest answers grow it to
     * @param cutSpacingNanos the least time between two cuts of one peer's window
     */
    public PeerWindows(int initial, int min, int max, long cutSpacingNanos) {
        if (min < 1 || initial < min || max < initial || cutSpacingNanos < 0) {
            throw new IllegalArgumentException("windows need 1 <= min <= initial <= max and a spacing >= 0: " + min
                    + ", " + initial + ", " + max + ", " + cutSpacingNanos);
        }
        this.initial = initial;
        this.min = min;
        this.max = max;
        this.cutSpacingNanos = cutSpacingNanos;
    }

    /** Takes a place in {@code peer}'s window; false (and nothing taken) when it is full. */
    public synchronized boolean tryAcquire(K peer) {
        Window w = windows.computeIfAbsent(peer, p -> new Window(initial));
        if (w.inFlight >= (int) w.size) {
            return false;
        }
        w.inFlight++;
        return true;
    }

    /** A request to {@code peer} was answered: its place is free and its window grows. */
    public synchronized void answered(K peer) {
        Window w = windows.get(peer);
        if (w == null) {
            return;
        }
        w.size = Math.min(max, w.size + 1 / w.size);
        release(peer, w);
    }

    /** A request to {@code peer} timed out at {@code nowNanos}: its place is free and its window halves. */
    public synchronized void timedOut(K peer, long nowNanos) {
        Window w = windows.get(peer);
        if (w == null) {
            return;
        }
        if (!w.cut || nowNanos - w.lastCutNanos >= cutSpacingNanos) {
            w.size = Math.max(min, w.size / 2);
            w.lastCutNanos = nowNanos;
            w.cut = true;
        }
        release(peer, w);
    }

    /** A request to {@code peer} ended in some other way (a refusal, an error answer): its place is free. */
    public synchronized void released(K peer) {
        Window w = windows.get(peer);
        if (w != null) {
            release(peer, w);
        }
    }

    /** {@code peer}'s window now: how many requests may be in flight to it. */
    public synchronized int window(K peer) {
        Window w = windows.get(peer);
        return w == null ? initial : (int) w.size;
    }

    /** How many requests to {@code peer} are in flight now. */
    public synchronized int inFlight(K peer) {
        Window w = windows.get(peer);
        return w == null ? 0 : w.inFlight;
    }

    private void release(K peer, Window w) {
        w.inFlight = Math.max(0, w.inFlight - 1);
        if (w.inFlight == 0 && w.size >= initial) {
            windows.remove(peer);
        }
    }
}
