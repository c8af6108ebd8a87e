package org.p2psip.core.guard;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many places each key holds, each key up to a cap of its own choosing:
 * the connections per source address and per network that the node's and
 * the balancer's connection limits count. A key that holds none takes no
 * memory.
 */
public final class PlaceCounts<K> {

    private final ConcurrentHashMap<K, AtomicInteger> counts = new ConcurrentHashMap<>();

    /** One more place for {@code key} if it holds fewer than {@code cap}; false if it does not. */
    public boolean take(K key, int cap) {
        boolean[] placed = {false};
        counts.compute(key, (k, n) -> {
            AtomicInteger count = n == null ? new AtomicInteger() : n;
            if (count.get() < cap) {
                count.incrementAndGet();
                placed[0] = true;
            }
            return count.get() == 0 ? null : count;
        });
        return placed[0];
    }

    /** One of {@code key}'s places given back. */
    public void give(K key) {
        counts.computeIfPresent(key, (k, n) -> n.decrementAndGet() <= 0 ? null : n);
    }

    /** The places {@code key} holds. */
    public int held(K key) {
        AtomicInteger n = counts.get(key);
        return n == null ? 0 : n.get();
    }
}
