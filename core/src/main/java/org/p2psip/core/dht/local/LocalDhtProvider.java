package org.p2psip.core.dht.local;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.DhtProvider;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.store.WriteBehindValues;

/**
 * {@code --dht local}: an in-process table for a single node. It has no
 * overlay, so it refuses {@code --bootstrap}; expired entries are purged
 * every {@value #PURGE_SECONDS} seconds to bound memory. With a data
 * directory it starts from the live values kept there and writes its
 * changes behind to it ({@link WriteBehindValues}).
 */
public final class LocalDhtProvider implements DhtProvider {

    public static final String NAME = "local";
    static final int PURGE_SECONDS = 10;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletableFuture<Dht> start(DhtConfig config) {
        if (!config.bootstrap().isEmpty()) {
            return CompletableFuture.failedFuture(
                    new DhtException("the local backend is a single node; it cannot --bootstrap"));
        }
        Peer self = new Peer("local@" + config.sip(), Optional.of(config.sip()));
        Optional<WriteBehindValues> disk;
        try {
            disk = config.keptValues(NAME);
        } catch (DhtException e) {
            return CompletableFuture.failedFuture(e);
        }
        LocalDht.Store store = disk.map(d -> new LocalDht.Store(config.clock(), self, d, d.recovered()))
                .orElseGet(() -> new LocalDht.Store(config.clock(), self));
        ScheduledExecutorService purger = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "local-dht-purge");
            t.setDaemon(true);
            return t;
        });
        purger.scheduleWithFixedDelay(store::purgeExpired, PURGE_SECONDS, PURGE_SECONDS, TimeUnit.SECONDS);
        return CompletableFuture.completedFuture(new LocalDht(store, self, () -> {
            purger.shutdownNow();
            disk.ifPresent(WriteBehindValues::close);
        }));
    }
}
