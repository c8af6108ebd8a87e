package org.p2psip.servlet.stack;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.p2psip.core.guard.BadInputLog;
import org.p2psip.core.guard.CredentialFreeBudget;
import org.p2psip.core.guard.OverloadGate;
import org.p2psip.core.guard.SourceGuard;
import org.p2psip.sip.wire.ConnectionLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The defences of one node's SIP transports: who is banned, when the node
 * is overloaded, how many requests without credentials it answers, how
 * large a message and how many connections may be.
 *
 * <p>JAIN-SIP builds message processors and parsers by class name, so they
 * find their node's guards, and its {@link InputCounters}, through this
 * registry keyed by the stack name, which is unique per node.
 *
 * @see GuardedUdpProcessor
 * @see ConnectionGuard
 */
public final class EdgeGuards {

    private static final Logger LOG = LoggerFactory.getLogger(EdgeGuards.class);
    private static final long BUDGET_LOG_INTERVAL_NANOS = 60_000_000_000L;
    private static final Map<String, EdgeGuards> BY_STACK = new ConcurrentHashMap<>();

    private final SourceGuard sources;
    private final BadInputLog badInput;
    private final OverloadGate overload;
    private final Duration retryAfter;
    private final int maxMessageBytes;
    private final ConnectionLimits connections;
    private final List<ConnectionGuard> streams = new CopyOnWriteArrayList<>();
    private final InputCounters input = new InputCounters();
    private final LongAdder shed = new LongAdder();
    private final LongAdder oversized = new LongAdder();
    private final Optional<CredentialFreeBudget> credentialFree;
    private final AtomicLong budgetLoggedAt = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong budgetLoggedDrops = new AtomicLong();

    public EdgeGuards(SourceGuard sources, BadInputLog badInput, OverloadGate overload, Duration retryAfter,
                      int maxMessageBytes, ConnectionLimits connections) {
        this(sources, badInput, overload, retryAfter, maxMessageBytes, connections, Optional.empty());
    }

    /** As above, with a budget for requests without credentials shared by every source. */
    public EdgeGuards(SourceGuard sources, BadInputLog badInput, OverloadGate overload, Duration retryAfter,
                      int maxMessageBytes, ConnectionLimits connections, Optional<CredentialFreeBudget> credentialFree) {
        this.credentialFree = credentialFree;
        this.sources = sources;
        this.badInput = badInput;
        this.overload = overload;
        this.retryAfter = retryAfter;
        this.maxMessageBytes = maxMessageBytes;
        this.connections = connections;
    }

    /** Guards that let everything through, for stacks nobody registered. */
    static EdgeGuards open() {
        return new EdgeGuards(SourceGuard.off(), BadInputLog.standard(),
                new OverloadGate(Duration.ofSeconds(5), Integer.MAX_VALUE), Duration.ofSeconds(1), 65_535,
                new ConnectionLimits(Duration.ofDays(1), Duration.ofDays(1), Integer.MAX_VALUE,
                        Integer.MAX_VALUE));
    }

    public static void register(String stackName, EdgeGuards guards) {
        BY_STACK.put(stackName, guards);
    }

    public static void unregister(String stackName) {
        BY_STACK.remove(stackName);
    }

    static EdgeGuards of(String stackName) {
        EdgeGuards guards = stackName == null ? null : BY_STACK.get(stackName);
        return guards == null ? open() : guards;
    }

    /** The node's malformed-input counters. */
    public InputCounters input() {
        return input;
    }

    public SourceGuard sources() {
        return sources;
    }

    BadInputLog badInput() {
        return badInput;
    }

    OverloadGate overload() {
        return overload;
    }

    Duration retryAfter() {
        return retryAfter;
    }

    int maxMessageBytes() {
        return maxMessageBytes;
    }

    ConnectionLimits connections() {
        return connections;
    }

    void attach(ConnectionGuard connections) {
        streams.add(connections);
    }

    /** TCP and TLS connections peers hold open to the node now. */
    public int openConnections() {
        return streams.stream().mapToInt(ConnectionGuard::openConnections).sum();
    }

    /** TCP and TLS connections refused: over a cap, or from a banned source. */
    public long refusedConnections() {
        return streams.stream().mapToLong(ConnectionGuard::refused).sum();
    }

    /** Connections closed for idling past the idle timeout. */
    public long idleClosed() {
        return streams.stream().mapToLong(ConnectionGuard::idleClosed).sum();
    }

    /** Connections closed because a message did not arrive whole in time. */
    public long overdueClosed() {
        return streams.stream().mapToLong(ConnectionGuard::overdueClosed).sum();
    }

    /** Requests answered 503 because the node was overloaded. */
    public long shed() {
        return shed.sum();
    }

    /** Messages refused because they were larger than the limit. */
    public long oversized() {
        return oversized.sum();
    }

    /**
     * Whether a datagram may go on past the budget for requests without
     * credentials: true unless it is such a request and the budget is spent.
     * The first drop, and then one line a minute while they go on, is logged
     * with how many there were.
     */
    boolean withinCredentialFreeBudget(byte[] data, int length, long nowNanos) {
        if (credentialFree.isEmpty() || !CredentialFreeBudget.governs(data, length)) {
            return true;
        }
        CredentialFreeBudget budget = credentialFree.get();
        if (budget.admit(nowNanos)) {
            return true;
        }
        long last = budgetLoggedAt.get();
        if ((last == Long.MIN_VALUE || nowNanos - last >= BUDGET_LOG_INTERVAL_NANOS)
                && budgetLoggedAt.compareAndSet(last, nowNanos)) {
            long total = budget.dropped();
            long since = total - budgetLoggedDrops.getAndSet(total);
            LOG.warn("dropped {} REGISTER/SUBSCRIBE/PUBLISH/MESSAGE requests without credentials{}: more arrive, "
                    + "from all sources together, than --unauthenticated-rate allows; requests with credentials, "
                    + "calls and keep-alives go on", since, last == Long.MIN_VALUE ? "" : " in the last minute");
        }
        return false;
    }

    /** Requests without credentials dropped over the budget for them. */
    public long credentialFreeDropped() {
        return credentialFree.map(CredentialFreeBudget::dropped).orElse(0L);
    }

    void countShed() {
        shed.increment();
    }

    void countOversized() {
        oversized.increment();
    }
}
