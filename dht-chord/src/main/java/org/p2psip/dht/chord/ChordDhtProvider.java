package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.DhtProvider;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.NettyOverlayTransport;
import org.p2psip.core.overlay.OverlaySecret;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --dht chord}: binds the overlay transport on {@code --overlay},
 * takes SHA-1 of that address as the node id (or {@code node-id}), and
 * either starts a new ring (no {@code --bootstrap}) or joins through the
 * first bootstrap member that answers. Within {@code start-timeout-seconds}
 * it completes with a serving node, or fails with a one-line
 * {@link DhtException}: overlay address busy, no member reachable, or no
 * member accepting this node's {@code overlay-secret} (their frames and ours
 * fail each other's MAC check, so the join goes unanswered).
 */
public final class ChordDhtProvider implements DhtProvider {

    public static final String NAME = "chord";

    private static final Logger LOG = LoggerFactory.getLogger(ChordDhtProvider.class);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletableFuture<Dht> start(DhtConfig config) {
        ChordOptions options;
        HostPort overlay;
        try {
            options = ChordOptions.parse(config.options(), config.replicas());
            overlay = config.overlay().orElseThrow(() -> new DhtException(
                    "the chord backend needs --overlay HOST:PORT to listen on"));
        } catch (DhtException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (!options.secretGiven()) {
            LOG.warn("chord overlay {} runs with the built-in overlay secret; set overlay-secret so that only"
                    + " your nodes can join", overlay);
        }
        List<HostPort> bootstrap = config.bootstrap().stream().filter(b -> !b.equals(overlay)).toList();
        AtomicReference<ChordDht> node = new AtomicReference<>();
        CompletableFuture<Dht> result = new CompletableFuture<>();
        NettyOverlayTransport.bind(overlay, OverlaySecret.of(options.secret()), options.maxPayloadBytes(),
                (type, payload) -> {
                    ChordDht n = node.get();
                    return n == null ? CompletableFuture.failedFuture(new IllegalStateException("starting"))
                            : n.handle(type, payload);
                })
                .thenCompose(transport -> {
                    HostPort bound = transport.localAddress();
                    BigInteger id = options.nodeId().orElseGet(() -> IdSpace.SHA1.idOf(bound.toString()));
                    ChordDht dht = new ChordDht(new NodeRef(id, bound, Optional.of(config.sip())), config.clock(),
                            config.replicas(), options);
                    dht.attach(transport);
                    node.set(dht);
                    return dht.join(bootstrap).thenApply(v -> dht);
                })
                .whenComplete((dht, error) -> {
                    if (error == null) {
                        dht.startMaintenance();
                        if (!result.complete(dht)) {
                            dht.crash();
                        }
                        return;
                    }
                    ChordDht started = node.get();
                    if (started != null) {
                        started.crash();
                    }
                    result.completeExceptionally(failure(overlay, bootstrap, error));
                });
        return result.orTimeout(options.startTimeout().toMillis(), TimeUnit.MILLISECONDS).exceptionallyCompose(e -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof TimeoutException) {
                ChordDht started = node.get();
                if (started != null) {
                    started.crash();
                }
                // Timeouts are retried until here, so silence from every seed ends the same way
                // whether it is down, busy, not chord, or dropping our frames for their HMAC.
                return CompletableFuture.failedFuture(new DhtException(bootstrap.isEmpty()
                        ? "chord node " + overlay + " did not start within " + options.startTimeout().toSeconds() + " s"
                        : "chord node " + overlay + " could not join via " + bootstrap + " within "
                                + options.startTimeout().toSeconds() + " s: no answer (unreachable, not a chord node,"
                                + " or a different overlay-secret)"));
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    private static DhtException failure(HostPort overlay, List<HostPort> bootstrap, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof DhtException d) {
            return d;
        }
        String why = String.valueOf(cause.getMessage()).replace('\n', ' ');
        if (bootstrap.isEmpty() || why.startsWith("overlay address")) {
            return new DhtException("chord node " + overlay + " cannot start: " + why, cause);
        }
        return new DhtException("chord node " + overlay + " could not join via " + bootstrap + ": " + why
                + " (unreachable, not a chord node, or a different overlay-secret)", cause);
    }
}
