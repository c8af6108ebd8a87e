package org.p2psip.core.overlay.simulated;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.OverlayException;
import org.p2psip.core.overlay.OverlayException.Reason;
import org.p2psip.core.overlay.OverlayRequestHandler;
import org.p2psip.core.overlay.OverlayTransport;

/**
 * A seeded in-memory network for overlay nodes on a {@link VirtualTime}
 * loop. Each message (request or answer) takes a random delay within
 * {@link #delays}, which also reorders them, and is lost with probability
 * {@link #loss} — on a stream network, delayed by a retransmission
 * timeout instead; on a datagram network a request is sent again until
 * answered, and its receiver serves it once, as core's UDP transport does;
 * partitions cut some addresses off from the rest until
 * healed, and a paused address takes in nothing until the pause ends.
 *
 * <p>Failures look as they do on the real transports: a request that gets
 * no answer fails with {@code TIMEOUT} at its timeout; a handler's failure
 * comes back as {@code REMOTE_ERROR} with its message; a closed node is
 * silent (as a dead UDP peer) or, on a {@link Semantics#STREAM} network,
 * refuses the connection at once ({@code UNREACHABLE}), as a killed process
 * on a live host does over TCP; a datagram network may be told to refuse
 * too ({@link #closedPortsRefuse}: {@code REFUSED}, as ICMP says over UDP).
 */
public final class SimulatedOverlayNetwork {

    /** What a request to an address nobody listens on looks like. */
    public enum Semantics { DATAGRAM, STREAM }

    /** Linux's minimum TCP retransmission timeout. */
    private static final long STREAM_RETRANSMIT_NANOS = Duration.ofMillis(200).toNanos();

    private final VirtualTime time;
    private final SplittableRandom random;
    private final Semantics semantics;
    private final Map<HostPort, Endpoint> endpoints = new HashMap<>();
    private final Map<HostPort, Long> pausedUntil = new HashMap<>();
    private Set<HostPort> cutOff = Set.of();
    private long minDelayNanos = Duration.ofMillis(1).toNanos();
    private long maxDelayNanos = Duration.ofMillis(5).toNanos();
    private double loss;
    private boolean closedPortsRefuse;
    private long retransmitNanos = Duration.ofMillis(150).toNanos();
    private long nextRequestId;
    private long sent;
    private long lost;

    public SimulatedOverlayNetwork(VirtualTime time, long seed, Semantics semantics) {
        this.time = time;
        this.random = new SplittableRandom(seed);
        this.semantics = semantics;
    }

    /** One-way delay of every message, uniformly within [min, max]. */
    public void delays(Duration min, Duration max) {
        if (min.isNegative() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("need 0 <= min <= max, got " + min + " and " + max);
        }
        this.minDelayNanos = min.toNanos();
        this.maxDelayNanos = max.toNanos();
    }

    /** On a datagram network, when a request unanswered is first sent again (then at doubling intervals). */
    public void retransmitAfter(Duration first) {
        if (first.isNegative() || first.isZero()) {
            throw new IllegalArgumentException("the first retransmission must come after a positive delay");
        }
        this.retransmitNanos = first.toNanos();
    }

    /**
     * On a datagram network, whether a closed node's host refuses what is
     * sent to it ({@code REFUSED}, as ICMP port unreachable tells the real
     * UDP transport) rather than staying silent (a host that is gone).
     */
    public void closedPortsRefuse(boolean refuse) {
        this.closedPortsRefuse = refuse;
    }

    /** The probability that any one message is lost. */
    public void loss(double probability) {
        if (probability < 0 || probability >= 1) {
            throw new IllegalArgumentException("loss must be in [0, 1), got " + probability);
        }
        this.loss = probability;
    }

    /** Cuts {@code side} off from every other address (replacing any earlier partition). */
    public void partition(Set<HostPort> side) {
        this.cutOff = Set.copyOf(side);
    }

    /** Ends the partition. */
    public void heal() {
        this.cutOff = Set.of();
    }

    /** Nothing reaches {@code address} for {@code span}; what was sent meanwhile arrives when it ends. */
    public void pause(HostPort address, Duration span) {
        pausedUntil.merge(address, time.nanos() + span.toNanos(), Math::max);
    }

    /** Messages sent and lost so far. */
    public long sent() {
        return sent;
    }

    public long lost() {
        return lost;
    }

    /** Listens on {@code address}; the address must be free. */
    public OverlayTransport bind(HostPort address, OverlayRequestHandler handler) {
        Endpoint e = new Endpoint(address, handler);
        if (endpoints.putIfAbsent(address, e) != null) {
            throw new IllegalStateException("overlay address " + address + " is in use");
        }
        return e;
    }

    private boolean reachable(HostPort from, HostPort to) {
        return cutOff.contains(from) == cutOff.contains(to);
    }

    private long delay() {
        return minDelayNanos == maxDelayNanos ? minDelayNanos : random.nextLong(minDelayNanos, maxDelayNanos + 1);
    }

    /** Sends one message: after a delay, unless lost or cut off, {@code arrive} runs at {@code to}. */
    private void deliver(HostPort from, HostPort to, Runnable arrive) {
        sent++;
        long delay = delay();
        if (loss > 0 && random.nextDouble() < loss) {
            lost++;
            if (semantics == Semantics.DATAGRAM) {
                return;
            }
            // A stream resends a lost segment itself: the message arrives, one retransmission timeout late.
            delay += STREAM_RETRANSMIT_NANOS;
        }
        time.at(delay, () -> arriveWhenAwake(from, to, arrive));
    }

    private void arriveWhenAwake(HostPort from, HostPort to, Runnable arrive) {
        Long until = pausedUntil.get(to);
        if (until != null && until > time.nanos()) {
            time.at(until - time.nanos(), () -> arriveWhenAwake(from, to, arrive));
            return;
        }
        // A partition drops what is in flight across it, as a cut link would.
        if (reachable(from, to)) {
            arrive.run();
        }
    }

    /** A request being served or answered at its receiver. */
    private static final class Served {
        boolean finished;
        byte[] body;
        Throwable error;
    }

    /** One node's transport. */
    private final class Endpoint implements OverlayTransport {
        private final HostPort address;
        private final OverlayRequestHandler handler;
        /** Requests served, by id: the datagram transport's duplicate filter and answer cache. */
        private final Map<Long, Served> served = new HashMap<>();
        private boolean closed;

        Endpoint(HostPort address, OverlayRequestHandler handler) {
            this.address = address;
            this.handler = handler;
        }

        @Override
        public HostPort localAddress() {
            return address;
        }

        @Override
        public CompletableFuture<byte[]> request(HostPort peer, int type, byte[] payload, Duration timeout) {
            if (closed) {
                return CompletableFuture.failedFuture(new OverlayException(Reason.CLOSED,
                        "overlay transport " + address + " is closed"));
            }
            CompletableFuture<byte[]> answer = new CompletableFuture<>();
            time.at(timeout.toNanos(), () -> answer.completeExceptionally(new OverlayException(Reason.TIMEOUT,
                    "request " + type + " to " + peer + " timed out after " + timeout.toMillis() + " ms")));
            long id = nextRequestId++;
            byte[] copy = payload.clone();
            send(peer, id, type, copy, answer);
            if (semantics == Semantics.DATAGRAM) {
                resend(peer, id, type, copy, answer, retransmitNanos);
            }
            return answer;
        }

        /** As the UDP transport does: the request again, at doubling intervals, until answered or timed out. */
        private void resend(HostPort peer, long id, int type, byte[] payload, CompletableFuture<byte[]> answer,
                            long after) {
            time.at(after, () -> {
                if (!answer.isDone() && !closed) {
                    send(peer, id, type, payload, answer);
                    resend(peer, id, type, payload, answer, after * 2);
                }
            });
        }

        private void send(HostPort peer, long id, int type, byte[] payload, CompletableFuture<byte[]> answer) {
            deliver(address, peer, () -> {
                Endpoint there = endpoints.get(peer);
                if (there == null || there.closed) {
                    if (semantics == Semantics.STREAM) {
                        deliver(peer, address, () -> answer.completeExceptionally(new OverlayException(
                                Reason.UNREACHABLE, "cannot connect to overlay peer " + peer + ": refused")));
                    } else if (closedPortsRefuse) {
                        // The UDP transport asks the peer's host at its first resend, and hears back a trip later.
                        time.at(retransmitNanos, () -> deliver(peer, address, () -> answer.completeExceptionally(
                                new OverlayException(Reason.REFUSED, "overlay peer " + peer
                                        + " is gone: its port is closed"))));
                    }
                    return;
                }
                there.serve(this, id, type, payload, answer);
            });
        }

        /**
         * Runs the handler once per request: a duplicate of a request still
         * being served is dropped, one already answered gets the same answer
         * again (as core's datagram transport does, so a write never runs twice).
         */
        private void serve(Endpoint from, long id, int type, byte[] payload, CompletableFuture<byte[]> answer) {
            Served done = served.get(id);
            if (done != null) {
                if (done.finished) {
                    reply(from, done, answer);
                }
                return;
            }
            Served state = new Served();
            served.put(id, state);
            CompletableFuture<byte[]> handled;
            try {
                handled = handler.handle(type, payload);
            } catch (RuntimeException e) {
                handled = CompletableFuture.failedFuture(e);
            }
            handled.whenComplete((reply, error) -> {
                if (closed) {
                    return;
                }
                state.finished = true;
                state.body = reply == null ? null : reply.clone();
                state.error = error;
                reply(from, state, answer);
            });
        }

        private void reply(Endpoint to, Served state, CompletableFuture<byte[]> answer) {
            deliver(address, to.address, () -> {
                if (to.closed) {
                    return;
                }
                if (state.error == null) {
                    answer.complete(state.body);
                } else {
                    answer.completeExceptionally(new OverlayException(Reason.REMOTE_ERROR, reason(state.error)));
                }
            });
        }

        @Override
        public void close() {
            closed = true;
            endpoints.remove(address, this);
        }
    }

    private static String reason(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        String text = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
        return new String(text.replace('\n', ' ').getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    }

    /** The addresses bound now (for schedules choosing whom to cut off). */
    public Set<HostPort> bound() {
        return new HashSet<>(endpoints.keySet());
    }
}
