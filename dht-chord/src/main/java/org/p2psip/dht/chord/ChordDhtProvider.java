package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.DhtProvider;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.NettyOverlayTransport;
import org.p2psip.core.overlay.OverlayNodeStart;
import org.p2psip.core.overlay.OverlayRuntime;
import org.p2psip.core.overlay.OverlaySecret;
import org.p2psip.core.overlay.OverlayTransport;
import org.p2psip.core.store.WriteBehindValues;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --dht chord}: binds the overlay transport on {@code --overlay},
 * takes its node id ({@code node-id}; else a point in the widest gap of the
 * ring a bootstrap member knows, {@link JoinPlacement}; else SHA-1 of that
 * address), and either starts a new ring (no {@code --bootstrap}) or joins
 * through the first bootstrap member that answers. Within {@code start-timeout-seconds}
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
        Optional<WriteBehindValues> disk;
        try {
            disk = config.keptValues(NAME);
        } catch (DhtException e) {
            return CompletableFuture.failedFuture(e);
        }
        boolean keepsValues = disk.isPresent();
        CompletableFuture<Dht> started = new OverlayNodeStart("chord", overlay, bootstrap, options.startTimeout()).run(
                h -> NettyOverlayTransport.bind(overlay, OverlaySecret.of(options.secret()),
                        options.maxPayloadBytes(), h).thenCompose(transport ->
                        idFor(transport, options, bootstrap, keepsValues).thenApply(id -> new Placed(transport, id))),
                placed -> {
                    HostPort bound = placed.transport().localAddress();
                    ChordDht dht = new ChordDht(new NodeRef(placed.id(), bound, Optional.of(config.sip())),
                            OverlayRuntime.threaded("chord-" + bound.port(), config.clock()),
                            config.replicas(), options, disk);
                    dht.attach(placed.transport());
                    return dht;
                },
                n -> n::handle, n -> config.holdShare() ? n.joinHoldingShare(bootstrap) : n.join(bootstrap),
                ChordDht::startMaintenance, ChordDht::crash);
        // A start that failed before a node took the file over must not keep it open (closing twice is harmless).
        return started.whenComplete((node, failure) -> {
            if (failure != null) {
                disk.ifPresent(WriteBehindValues::close);
            }
        });
    }

    /** A bound transport and the id its node takes. */
    private record Placed(OverlayTransport transport, BigInteger id) {
    }

    /**
     * The node's id: {@code node-id} when given; SHA-1 of its address when it
     * starts a ring, or keeps values on disk (a restarted node must find its
     * keys where it left them); otherwise the id its first answering seed
     * places it at, in the widest gap of the ring it knows
     * ({@link JoinPlacement}), or SHA-1 of its address when no seed says (an
     * older member, or none answers: the join then fails on its own).
     */
    private static CompletableFuture<BigInteger> idFor(OverlayTransport transport, ChordOptions options,
                                                       List<HostPort> bootstrap, boolean keepsValues) {
        BigInteger hashed = IdSpace.SHA1.idOf(transport.localAddress().toString());
        if (options.nodeId().isPresent()) {
            return CompletableFuture.completedFuture(options.nodeId().get());
        }
        if (bootstrap.isEmpty() || keepsValues) {
            return CompletableFuture.completedFuture(hashed);
        }
        ChordClient client = new ChordClient(transport, options.rpcTimeout());
        CompletableFuture<BigInteger> placed = CompletableFuture.failedFuture(new IllegalStateException("no seed"));
        for (HostPort seed : bootstrap) {
            // The seed's id is not known yet; the call only needs its address.
            placed = placed.exceptionallyCompose(e -> client.place(new NodeRef(BigInteger.ONE.negate(), seed), hashed));
        }
        return placed.thenApply(IdSpace.SHA1::normalize).thenApply(id -> {
            LOG.debug("chord node {} takes the id {} its seed placed it at", transport.localAddress(), id.toString(16));
            return id;
        }).exceptionally(e -> hashed);
    }
}
