package org.p2psip.core.dht.local;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.store.HeldValue;
import org.p2psip.core.store.HeldValueLog;

/**
 * The reference backend: one process, a concurrent map, expiry measured on
 * an injected clock. Conditional writes are atomic per key through
 * {@link ConcurrentHashMap#compute}, which is what makes it the model the
 * distributed backends are tested against.
 *
 * <p>Several {@code LocalDht} handles may share one {@link Store} to stand
 * for several front nodes of one process.
 */
public final class LocalDht implements Dht {

    /** The shared table behind one or more handles; {@code owner} is the peer placement reports. */
    public static final class Store {
        private final Map<String, VersionedValue> entries = new ConcurrentHashMap<>();
        /** Versions come from one counter, so a key never sees a version twice. */
        private final AtomicLong versions = new AtomicLong();
        private final Clock clock;
        private final Peer owner;
        private final HeldValueLog log;

        public Store(Clock clock, Peer owner) {
            this(clock, owner, HeldValueLog.NONE, List.of());
        }

        /**
         * A table that starts with {@code restored} (values read back from
         * disk) and reports every change to {@code log}.
         */
        public Store(Clock clock, Peer owner, HeldValueLog log, List<HeldValue> restored) {
            this.clock = Objects.requireNonNull(clock, "clock");
            this.owner = Objects.requireNonNull(owner, "owner");
            this.log = Objects.requireNonNull(log, "log");
            long highest = 0;
            for (HeldValue v : restored) {
                entries.put(v.key(), new VersionedValue(v.value(), v.version(), Instant.ofEpochMilli(v.expiresAtMillis())));
                highest = Math.max(highest, v.version());
            }
            // A version is never handed out twice, not even across a restart.
            versions.set(highest);
        }

        /** Drops every expired entry; returns how many were dropped. */
        public int purgeExpired() {
            Instant now = clock.instant();
            int[] removed = {0};
            entries.keySet().forEach(k -> entries.computeIfPresent(k, (key, v) -> {
                if (!v.expiresAt().isAfter(now)) {
                    removed[0]++;
                    log.removed(key);
                    return null;
                }
                return v;
            }));
            return removed[0];
        }

        /** Number of entries held, expired or not. */
        public int size() {
            return entries.size();
        }
    }

    private final Store store;
    private final Peer self;
    private final Runnable onClose;
    private volatile boolean closed;

    /** A handle on {@code store}; {@code onClose} runs once, on the first {@link #close()}. */
    public LocalDht(Store store, Peer self, Runnable onClose) {
        this.store = Objects.requireNonNull(store, "store");
        this.self = Objects.requireNonNull(self, "self");
        this.onClose = Objects.requireNonNull(onClose, "onClose");
    }

    @Override
    public String backendName() {
        return LocalDhtProvider.NAME;
    }

    @Override
    public Peer self() {
        return self;
    }

    @Override
    public CompletableFuture<Optional<VersionedValue>> get(String key) {
        if (closed) {
            return closedFailure();
        }
        VersionedValue v = store.entries.get(key);
        if (v == null || !v.expiresAt().isAfter(store.clock.instant())) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return CompletableFuture.completedFuture(Optional.of(v));
    }

    @Override
    public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value, Instant expiresAt) {
        if (closed) {
            return closedFailure();
        }
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(expiresAt, "expiresAt");
        boolean[] written = {false};
        Instant now = store.clock.instant();
        store.entries.compute(key, (k, current) -> {
            long currentVersion = live(current, now) ? current.version() : ABSENT;
            if (currentVersion != expectedVersion) {
                return current;
            }
            written[0] = true;
            VersionedValue stored = new VersionedValue(value.clone(), store.versions.incrementAndGet(), expiresAt);
            // Inside compute: two writes of one key reach the log in the order they took effect.
            store.log.stored(new HeldValue(k, stored.value(), stored.version(), expiresAt.toEpochMilli()));
            return stored;
        });
        return CompletableFuture.completedFuture(written[0]);
    }

    @Override
    public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
        if (closed) {
            return closedFailure();
        }
        boolean[] removed = {false};
        Instant now = store.clock.instant();
        store.entries.computeIfPresent(key, (k, current) -> {
            if (live(current, now) && current.version() == expectedVersion) {
                removed[0] = true;
                store.log.removed(k);
                return null;
            }
            return current;
        });
        return CompletableFuture.completedFuture(removed[0]);
    }

    @Override
    public CompletableFuture<Placement> placement(String key) {
        if (closed) {
            return closedFailure();
        }
        return CompletableFuture.completedFuture(new Placement(store.owner, List.of()));
    }

    /** Every handle reads and writes the one table in this process: each owns every key. */
    @Override
    public Optional<KeyRangeSet> ownedRanges() {
        return Optional.of(KeyRangeSet.ALL);
    }

    @Override
    public long storedEntries() {
        return store.size();
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            onClose.run();
        }
    }

    private <T> CompletableFuture<T> closedFailure() {
        return CompletableFuture.failedFuture(new IllegalStateException("DHT node is closed"));
    }

    private static boolean live(VersionedValue v, Instant now) {
        return v != null && v.expiresAt().isAfter(now);
    }
}
