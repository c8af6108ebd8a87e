package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.DhtProvider;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.NettyUdpOverlayTransport;
import org.p2psip.core.overlay.OverlayNodeStart;
import org.p2psip.core.overlay.OverlayRuntime;
import org.p2psip.core.overlay.OverlaySecret;
import org.p2psip.core.store.WriteBehindValues;
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
        Optional<WriteBehindValues> disk;
        try {
            disk = config.keptValues(NAME);
        } catch (DhtException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Dht> started = new OverlayNodeStart("kademlia", overlay, bootstrap, options.startTimeout()).run(
                h -> NettyUdpOverlayTransport.bind(overlay, OverlaySecret.of(options.secret()), options.maxPayloadBytes(),
                        options.retryEvery(), h),
                transport -> {
                    HostPort bound = transport.localAddress();
                    BigInteger id = options.nodeId().orElseGet(() -> IdSpace.SHA1.idOf(bound.toString()));
                    KademliaDht dht = new KademliaDht(new Contact(id, bound, Optional.of(config.sip())),
                            OverlayRuntime.onLoop(transport.eventLoop(), config.clock()), config.replicas(),
                            options, disk);
                    dht.attach(transport);
                    return dht;
                },
                n -> n::handle, n -> config.holdShare() ? n.joinHoldingShare(bootstrap) : n.join(bootstrap),
                KademliaDht::startMaintenance, KademliaDht::close);
        // A start that failed before a node took the file over must not keep it open (closing twice is harmless).
        return started.whenComplete((node, failure) -> {
            if (failure != null) {
                disk.ifPresent(WriteBehindValues::close);
            }
        });
    }
}
