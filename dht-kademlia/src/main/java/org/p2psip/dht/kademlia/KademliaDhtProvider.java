package org.p2psip.dht.kademlia;

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
import org.p2psip.core.overlay.NettyUdpOverlayTransport;
import org.p2psip.core.overlay.OverlaySecret;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --dht kademlia}: binds core's UDP overlay transport on
 * {@code --overlay}, takes SHA-1 of that address as the 160-bit node id (or
 * {@code node-id}), and either starts a new overlay (no {@code --bootstrap})
 * or joins through the first seed that answers a PING, retrying silent seeds
 * until {@code start-timeout-seconds}. It then completes with a serving node
 * or fails with a one-line {@link DhtException}: no {@code --overlay}, the
 * UDP port busy, or no seed answering (down, not kademlia, or a different
 * {@code overlay-secret} — over UDP all three look like silence).
 */
public final class KademliaDhtProvider implements DhtProvider {

    public static final String NAME = "kademlia";

    private static final Logger LOG = LoggerFactory.getLogger(KademliaDhtProvider.class);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletableFuture<Dht> start(DhtConfig config) {
        KademliaOptions options;
        HostPort overlay;
        try {
            options = KademliaOptions.parse(config.options());
            overlay = config.overlay().orElseThrow(() -> new DhtException(
                    "the kademlia backend needs --overlay HOST:PORT (UDP) to listen on"));
        } catch (DhtException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (!options.secretGiven()) {
            LOG.warn("kademlia overlay {} runs with the built-in overlay secret; set overlay-secret so that only"
                    + " your nodes can join", overlay);
        }
        List<HostPort> bootstrap = config.bootstrap().stream().filter(b -> !b.equals(overlay)).toList();
        AtomicReference<KademliaDht> node = new AtomicReference<>();
        CompletableFuture<Dht> result = new CompletableFuture<>();
        NettyUdpOverlayTransport.bind(overlay, OverlaySecret.of(options.secret()), options.maxPayloadBytes(),
                options.retryEvery(), (type, payload) -> {
                    KademliaDht n = node.get();
                    return n == null ? CompletableFuture.failedFuture(new IllegalStateException("starting"))
                            : n.handle(type, payload);
                })
                .thenCompose(transport -> {
                    HostPort bound = transport.localAddress();
                    BigInteger id = options.nodeId().orElseGet(() -> IdSpace.SHA1.idOf(bound.toString()));
                    KademliaDht dht = new KademliaDht(new Contact(id, bound, Optional.of(config.sip())),
                            config.clock(), config.replicas(), options);
                    dht.attach(transport);
                    node.set(dht);
                    return dht.join(bootstrap).thenApply(v -> dht);
                })
                .whenComplete((dht, error) -> {
                    if (error == null) {
                        dht.startMaintenance();
                        if (!result.complete(dht)) {
                            dht.close();
                        }
                        return;
                    }
                    KademliaDht started = node.get();
                    if (started != null) {
                        started.close();
                    }
                    result.completeExceptionally(failure(overlay, bootstrap, error));
                });
        return result.orTimeout(options.startTimeout().toMillis(), TimeUnit.MILLISECONDS).exceptionallyCompose(e -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof TimeoutException) {
                KademliaDht started = node.get();
                if (started != null) {
                    started.close();
                }
                return CompletableFuture.failedFuture(new DhtException(bootstrap.isEmpty()
                        ? "kademlia node " + overlay + " did not start within " + options.startTimeout().toSeconds()
                                + " s"
                        : "kademlia node " + overlay + " could not join via " + bootstrap + " within "
                                + options.startTimeout().toSeconds() + " s: no answer (unreachable, not a kademlia"
                                + " node, or a different overlay-secret)"));
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
            return new DhtException("kademlia node " + overlay + " cannot start: " + why, cause);
        }
        return new DhtException("kademlia node " + overlay + " could not join via " + bootstrap + ": " + why,
                cause);
    }
}
