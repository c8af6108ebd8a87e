package org.p2psip.core.overlay;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.net.HostPort;

/**
 * The start-up every overlay backend shares: bind the transport, build the
 * node on the address actually bound, join through the seeds, start its
 * maintenance. On any failure, and at the start timeout, whatever was
 * started is stopped and the result fails with one line saying why. Requests
 * that arrive before the node exists are refused ("starting").
 */
public final class OverlayNodeStart {

    private final String protocol;
    private final HostPort overlay;
    private final List<HostPort> bootstrap;
    private final Duration timeout;

    /**
     * @param protocol  names the backend in messages, e.g. "chord"
     * @param overlay   where the node listens
     * @param bootstrap seeds to join through; empty starts a new overlay
     * @param timeout   the whole start-up, join included
     */
    public OverlayNodeStart(String protocol, HostPort overlay, List<HostPort> bootstrap, Duration timeout) {
        this.protocol = protocol;
        this.overlay = overlay;
        this.bootstrap = List.copyOf(bootstrap);
        this.timeout = timeout;
    }

    /**
     * Runs the start-up.
     *
     * @param bind    binds the transport with the given request handler
     * @param create  builds the node on the bound transport and attaches it
     * @param handler the node's request handler
     * @param join    joins the overlay through {@link #bootstrap} (completes at once for a new overlay)
     * @param serve   starts the node's maintenance once it has joined
     * @param abandon stops a node that will not be handed out
     * @param <T>     the transport type
     * @param <N>     the node type
     */
    public <T, N extends Dht> CompletableFuture<Dht> run(Function<OverlayRequestHandler, CompletableFuture<T>> bind,
                                      Function<T, N> create, Function<N, OverlayRequestHandler> handler,
                                      Function<N, CompletableFuture<Void>> join, Consumer<N> serve,
                                      Consumer<N> abandon) {
        AtomicReference<N> node = new AtomicReference<>();
        CompletableFuture<Dht> result = new CompletableFuture<>();
        bind.apply((type, payload) -> {
            N n = node.get();
            return n == null ? CompletableFuture.failedFuture(new IllegalStateException("starting"))
                    : handler.apply(n).handle(type, payload);
        }).thenCompose(transport -> {
            N n = create.apply(transport);
            node.set(n);
            return join.apply(n).thenApply(v -> n);
        }).whenComplete((n, error) -> {
            if (error == null) {
                serve.accept(n);
                if (!result.complete(n)) {
                    abandon.accept(n);
                }
                return;
            }
            N started = node.get();
            if (started != null) {
                abandon.accept(started);
            }
            result.completeExceptionally(failure(error));
        });
        return result.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).exceptionallyCompose(e -> {
            Throwable cause = unwrap(e);
            if (!(cause instanceof TimeoutException)) {
                return CompletableFuture.failedFuture(cause);
            }
            N started = node.get();
            if (started != null) {
                abandon.accept(started);
            }
            // Silence from every seed ends the same way whether it is down, busy, another
            // protocol, or dropping our frames for their HMAC.
            return CompletableFuture.failedFuture(new DhtException(bootstrap.isEmpty()
                    ? protocol + " node " + overlay + " did not start within " + timeout.toSeconds() + " s"
                    : protocol + " node " + overlay + " could not join via " + bootstrap + " within "
                            + timeout.toSeconds() + " s: no answer " + suspects()));
        });
    }

    private DhtException failure(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof DhtException d) {
            return d;
        }
        String why = String.valueOf(cause.getMessage()).replace('\n', ' ');
        if (bootstrap.isEmpty() || why.startsWith("overlay address")) {
            return new DhtException(protocol + " node " + overlay + " cannot start: " + why, cause);
        }
        return new DhtException(protocol + " node " + overlay + " could not join via " + bootstrap + ": " + why
                + " " + suspects(), cause);
    }

    private String suspects() {
        return "(unreachable, not a " + protocol + " node, or a different overlay-secret)";
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
