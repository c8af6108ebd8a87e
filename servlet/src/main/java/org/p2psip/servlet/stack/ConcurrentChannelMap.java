package org.p2psip.servlet.stack;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link HashMap} in type only, for the RI field that must be one: its
 * entries live in a {@link ConcurrentHashMap}.
 *
 * <p>Why: JAIN-SIP RI 1.3.0-91 keeps the channel of every TCP connection in
 * {@code NIOHandler.channelMap}, a plain {@code HashMap} that the selector
 * thread reads and removes from (a peer closed its connection) while the
 * threads forwarding requests put the channels of connections they just
 * opened. An unsynchronised remove and put on one map can lose the put; the
 * selector then finds no channel for the new connection's first response,
 * cancels its key as dead, and the call never hears back. Reads are on the
 * selector's path for every TCP message, so the map is concurrent rather
 * than locked, and iteration (the RI's idle-connection audit and its stop)
 * is weakly consistent instead of failing with a
 * {@code ConcurrentModificationException}.
 *
 * <p>Only the operations the RI uses on the field are carried over (get,
 * put, remove, size, clear and the three views); the {@code HashMap} it
 * extends stays empty.
 */
final class ConcurrentChannelMap<K, V> extends HashMap<K, V> {

    private static final long serialVersionUID = 1L;

    private final transient ConcurrentHashMap<K, V> entries = new ConcurrentHashMap<>();

    @Override
    public V get(Object key) {
        return key == null ? null : entries.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return key != null && entries.containsKey(key);
    }

    @Override
    public V put(K key, V value) {
        return entries.put(key, value);
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> m) {
        entries.putAll(m);
    }

    @Override
    public V remove(Object key) {
        return key == null ? null : entries.remove(key);
    }

    @Override
    public boolean remove(Object key, Object value) {
        return key != null && value != null && entries.remove(key, value);
    }

    @Override
    public int size() {
        return entries.size();
    }

    @Override
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    @Override
    public void clear() {
        entries.clear();
    }

    @Override
    public Set<K> keySet() {
        return entries.keySet();
    }

    @Override
    public Collection<V> values() {
        return entries.values();
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return entries.entrySet();
    }

    @Override
    public String toString() {
        return entries.toString();
    }
}
