package org.p2psip.servlet.stack;

import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.p2psip.core.guard.PlaceCounts;
import org.p2psip.core.guard.SourceGuard;
import org.p2psip.core.guard.SourceNetwork;
import org.p2psip.sip.wire.ConnectionLimits;
import org.p2psip.core.guard.SourceVerdict;

/**
 * Keeps the TCP connections peers open to a node within bounds: at most
 * {@link ConnectionLimits#maxConnections()} in all and {@link ConnectionLimits#maxConnectionsPerSource()}
 * from one address and {@link ConnectionLimits#maxConnectionsPerNetwork()}
 * from one network (an IPv4 /24, an IPv6 /64), none from a banned source,
 * none idle past {@link ConnectionLimits#idleTimeout()} (any bytes,
 * keep-alive CRLFs included, are activity: RFC 5626 §4.4.1), none sitting
 * on a part of a message past {@link ConnectionLimits#messageDeadline()}
 * (slowloris), and none without a whole message that long after it opened.
 * When the table or a network is full, the oldest connection that has not
 * sent a whole message yet is closed to make room, as the balancer does.
 *
 * <p>A refused connection is closed from the guard's own thread right after
 * the RI registered it (the RI's accept path has no way to say no), and
 * nothing it sent is read.
 */
final class ConnectionGuard implements AutoCloseable {

    private final ConnectionLimits limits;
    private final SourceGuard sources;
    private final ConcurrentHashMap<StreamGuard, StreamGuard.Connection> open = new ConcurrentHashMap<>();
    private final PlaceCounts<InetAddress> perSource = new PlaceCounts<>();
    private final PlaceCounts<String> perNetwork = new PlaceCounts<>();
    /** Admitted connections without a whole message yet, oldest first. */
    private final ConcurrentSkipListMap<Long, StreamGuard> silent = new ConcurrentSkipListMap<>();
    private final ConcurrentHashMap<StreamGuard, Long> silentSequence = new ConcurrentHashMap<>();
    private final AtomicLong sequence = new AtomicLong();
    private final LongAdder madeRoom = new LongAdder();
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
        if (!perSource.take(source, limits.maxConnectionsPerSource())) {
            refused.increment();
            return false;
        }
        String network = SourceNetwork.of(source);
        if (!perNetwork.take(network, limits.maxConnectionsPerNetwork())
                && !(makeRoom(network) && perNetwork.take(network, limits.maxConnectionsPerNetwork()))) {
            perSource.give(source);
            refused.increment();
            return false;
        }
        if (!takePlace() && !(makeRoom(null) && takePlace())) {
            perSource.give(source);
            perNetwork.give(network);
            refused.increment();
            return false;
        }
        return true;
    }

    private boolean takePlace() {
        if (total.incrementAndGet() > limits.maxConnections()) {
            total.decrementAndGet();
            return false;
        }
        return true;
    }

    /** {@code stream} delivered its first whole message: it keeps its place. */
    void spoke(StreamGuard stream) {
        Long seq = silentSequence.remove(stream);
        if (seq != null) {
            silent.remove(seq, stream);
        }
    }

    /**
     * Closes the oldest silent connection, from {@code network} when it is
     * not null, giving its places back at once; false when there is none.
     */
    private boolean makeRoom(String network) {
        for (var e : silent.entrySet()) {
            StreamGuard oldest = e.getValue();
            if (network != null && !network.equals(SourceNetwork.of(oldest.source()))) {
                continue;
            }
            StreamGuard.Connection connection = open.get(oldest);
            if (connection != null && release(oldest, oldest.source())) {
                madeRoom.increment();
                closeSoon(connection);
                return true;
            }
        }
        return false;
    }

    void opened(StreamGuard stream, StreamGuard.Connection connection) {
        open.put(stream, connection);
        if (!stream.spoke()) {
            long seq = sequence.incrementAndGet();
            silentSequence.put(stream, seq);
            silent.put(seq, stream);
        }
    }

    /** Gives back what {@link #admit} claimed, once per admitted connection; false when that was done. */
    boolean release(StreamGuard stream, InetAddress source) {
        if (open.remove(stream) == null) {
            return false;
        }
        spoke(stream);
        total.decrementAndGet();
        perSource.give(source);
        perNetwork.give(SourceNetwork.of(source));
        return true;
    }

    /** Connections that had sent no whole message, closed to make room for a new one. */
    long madeRoom() {
        return madeRoom.sum();
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
                if (stream.partialSince() != 0 && now - stream.partialSince() > deadline
                        || !stream.spoke() && now - stream.openedNanos() > deadline) {
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
