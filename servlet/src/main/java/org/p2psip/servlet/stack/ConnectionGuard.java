package org.p2psip.servlet.stack;

import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.p2psip.core.guard.SourceGuard;
import org.p2psip.balancer.ConnectionLimits;
import org.p2psip.core.guard.SourceVerdict;

/**
 * Keeps the TCP connections peers open to a node within bounds: at most
 * {@link ConnectionLimits#maxConnections()} in all and {@link ConnectionLimits#maxConnectionsPerSource()}
 * from one address, none from a banned source, none idle past
 * {@link ConnectionLimits#idleTimeout()} (any bytes, keep-alive CRLFs
 * included, are activity: RFC 5626 §4.4.1), and none sitting on a part of a
 * message past {@link ConnectionLimits#messageDeadline()} (slowloris).
 *
 * <p>A refused connection is closed from the guard's own thread right after
 * the RI registered it (the RI's accept path has no way to say no), and
 * nothing it sent is read.
 */
final class ConnectionGuard implements AutoCloseable {

    private final ConnectionLimits limits;
    private final SourceGuard sources;
    private final ConcurrentHashMap<StreamGuard, StreamGuard.Connection> open = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<InetAddress, AtomicInteger> perSource = new ConcurrentHashMap<>();
    private final AtomicInteger total = new AtomicInteger();
    private final LongAdder refused = new LongAdder();
    private final LongAdder idleClosed = new LongAdder();
    private final LongAdder overdueClosed = new LongAdder();
    private final ScheduledExecutorService watchdog;

    ConnectionGuard(ConnectionLimits limits, SourceGuard sources, String name) {
        this.limits = limits;
        this.sources = sources;
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name + "-connection-guard");
            t.setDaemon(true);
            return t;
        });
        long tick = Math.max(50, Math.min(1_000,
                Math.min(limits.idleTimeout().toMillis(), limits.messageDeadline().toMillis()) / 4));
        watchdog.scheduleWithFixedDelay(this::sweep, tick, tick, TimeUnit.MILLISECONDS);
    }

    /**
     * Claims a place for a connection accepted from {@code source}; false if
     * it must be refused. A true answer must be matched by one {@link #release}.
     */
    boolean admit(InetAddress source) {
        if (sources.admit(source, System.nanoTime()) != SourceVerdict.ADMIT) {
            refused.increment();
            return false;
        }
        if (total.incrementAndGet() > limits.maxConnections()) {
            total.decrementAndGet();
            refused.increment();
            return false;
        }
        AtomicInteger count = perSource.computeIfAbsent(source, s -> new AtomicInteger());
        if (count.incrementAndGet() > limits.maxConnectionsPerSource()) {
            count.decrementAndGet();
            total.decrementAndGet();
            refused.increment();
            return false;
        }
        return true;
    }

    void opened(StreamGuard stream, StreamGuard.Connection connection) {
        open.put(stream, connection);
    }

    /** Gives back what {@link #admit} claimed, once per admitted connection. */
    void release(StreamGuard stream, InetAddress source) {
        if (open.remove(stream) == null) {
            return;
        }
        total.decrementAndGet();
        perSource.computeIfPresent(source, (s, n) -> n.decrementAndGet() <= 0 ? null : n);
    }

    /** Closes a refused connection as soon as the RI has finished accepting it. */
    void closeSoon(StreamGuard.Connection connection) {
        watchdog.execute(connection::close);
    }

    /** Closes {@code connection} after {@code delay}, for an answer that must go out first. */
    void closeLater(StreamGuard.Connection connection, Duration delay) {
        watchdog.schedule(connection::close, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    int openConnections() {
        return total.get();
    }

    long refused() {
        return refused.sum();
    }

    long idleClosed() {
        return idleClosed.sum();
    }

    long overdueClosed() {
        return overdueClosed.sum();
    }

    private void sweep() {
        long now = System.nanoTime();
        long idle = limits.idleTimeout().toNanos();
        long deadline = limits.messageDeadline().toNanos();
        for (var entry : open.entrySet()) {
            StreamGuard stream = entry.getKey();
            try {
                if (stream.partialSince() != 0 && now - stream.partialSince() > deadline) {
                    overdueClosed.increment();
                    entry.getValue().close();
                } else if (now - stream.lastActivityNanos() > idle) {
                    idleClosed.increment();
                    entry.getValue().close();
                }
            } catch (RuntimeException e) {
                // One channel that fails to close must not stop the sweep of the others.
            }
        }
    }

    @Override
    public void close() {
        watchdog.shutdownNow();
    }
}
