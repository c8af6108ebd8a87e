package org.p2psip.core.overlay;

import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decides whether an authenticated datagram is fresh: its timestamp lies
 * within {@code window} of now (either way, for clock skew between nodes)
 * and its nonce has not been seen with a timestamp inside the window. Every
 * frame outside the window is refused, so only nonces inside it need to be
 * remembered: they are kept in buckets by their frame's timestamp, and a
 * bucket is dropped as a whole once all its timestamps have left the window.
 *
 * <p>Memory is bounded by {@code capacity} nonces. When it is full, new
 * frames are refused rather than old nonces forgotten, since forgetting one
 * would let its frame be replayed; only holders of the secret can fill it
 * (the MAC is checked first), and a refused request is retransmitted.
 *
 * <p>Time is passed in. The window only moves forward: were the clock to step
 * back, frames whose nonces were already dropped must still count as old.
 * Not thread-safe: the UDP channel's single event loop owns it.
 */
final class NonceWindow {

    /** The verdict on one datagram. */
    enum Verdict {
        FRESH, TOO_OLD, TOO_NEW, REPLAYED, FULL
    }

    private record Nonce(long high, long low) {
    }

    private final long windowMillis;
    private final long bucketMillis;
    private final int capacity;
    private final TreeMap<Long, Set<Nonce>> buckets = new TreeMap<>();
    private int size;
    private long now = Long.MIN_VALUE;

    NonceWindow(Duration window, Duration bucket, int capacity) {
        this.windowMillis = window.toMillis();
        this.bucketMillis = bucket.toMillis();
        this.capacity = capacity;
        if (windowMillis <= 0 || bucketMillis <= 0 || bucketMillis > windowMillis) {
            throw new IllegalArgumentException("need 0 < bucket <= window, not bucket " + bucket + " window " + window);
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive, not " + capacity);
        }
    }

    /** Admits the frame stamped {@code timestampMillis} with nonce {@code high,low} if fresh, and remembers it. */
    Verdict admit(long timestampMillis, long high, long low, long nowMillis) {
        advance(nowMillis);
        if (timestampMillis < now - windowMillis) {
            return Verdict.TOO_OLD;
        }
        if (timestampMillis > now + windowMillis) {
            return Verdict.TOO_NEW;
        }
        Nonce nonce = new Nonce(high, low);
        Set<Nonce> bucket = buckets.get(Math.floorDiv(timestampMillis, bucketMillis));
        if (bucket != null && bucket.contains(nonce)) {
            return Verdict.REPLAYED;
        }
        if (size >= capacity) {
            return Verdict.FULL;
        }
        buckets.computeIfAbsent(Math.floorDiv(timestampMillis, bucketMillis), b -> new HashSet<>()).add(nonce);
        size++;
        return Verdict.FRESH;
    }

    /** Nonces remembered now. */
    int size() {
        return size;
    }

    private void advance(long nowMillis) {
        if (nowMillis <= now) {
            return;
        }
        now = nowMillis;
        // Bucket b holds timestamps [b * width, (b + 1) * width): drop it once its last one is too old.
        Iterator<Map.Entry<Long, Set<Nonce>>> oldest = buckets.entrySet().iterator();
        while (oldest.hasNext()) {
            Map.Entry<Long, Set<Nonce>> bucket = oldest.next();
            if ((bucket.getKey() + 1) * bucketMillis - 1 >= now - windowMillis) {
                break;
            }
            size -= bucket.getValue().size();
            oldest.remove();
        }
    }
}
