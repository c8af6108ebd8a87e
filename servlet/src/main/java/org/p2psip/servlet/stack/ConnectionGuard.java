package org.p2psip.servlet.stack;

import java.net.InetAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.p2psip.core.guard.SourceGuard;
import org.p2psip.core.guard.SourceVerdict;

/**
 * Keeps the TCP connections peers open to a node within bounds: at most
 * {@link ConnectionLimits#max()} in all and {@link ConnectionLimits#perSource()}
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
    private final Set<GuardedTcpChannel> open = ConcurrentHashMap.newKeySet();
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
        if (total.incrementAndGet() > limits.max()) {
            total.decrementAndGet();
            refused.increment();
            return false;
        }
        AtomicInteger count = perSource.computeIfAbsent(source, s -> new AtomicInteger());
        if (count.incrementAndGet() > limits.perSource()) {
            count.decrementAndGet();
            total.decrementAndGet();
            refused.increment();
            return false;
        }
        return true;
    }

    void opened(GuardedTcpChannel channel) {
        open.add(channel);
    }

    /** Gives back what {@link #admit} claimed, once per admitted connection. */
    void release(GuardedTcpChannel channel, InetAddress source) {
        if (!open.remove(channel)) {
            return;
        }
        total.decrementAndGet();
        perSource.computeIfPresent(source, (s, n) -> n.decrementAndGet() <= 0 ? null : n);
    }

    /** Closes a refused connection as soon as the RI has finished accepting it. */
    void closeSoon(GuardedTcpChannel channel) {
        watchdog.execute(channel::close);
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
        for (GuardedTcpChannel channel : open) {
            try {
                if (channel.partialSince() != 0 && now - channel.partialSince() > deadline) {
                    overdueClosed.increment();
                    channel.close();
                } else if (now - channel.lastActivityNanos() > idle) {
                    idleClosed.increment();
                    channel.close();
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
