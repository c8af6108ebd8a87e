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
import org.p2psip.core.store.WriteBehindValues;
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
        Optional<WriteBehindValues> disk;
        try {
            disk = config.keptValues(NAME);
        } catch (DhtException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Dht> started = new OverlayNodeStart("chord", overlay, bootstrap, options.startTimeout()).run(
                h -> NettyOverlayTransport.bind(overlay, OverlaySecret.of(options.secret()),
                        options.maxPayloadBytes(), h),
                transport -> {
                    HostPort bound = transport.localAddress();
                    BigInteger id = options.nodeId().orElseGet(() -> IdSpace.SHA1.idOf(bound.toString()));
                    ChordDht dht = new ChordDht(new NodeRef(id, bound, Optional.of(config.sip())),
                            OverlayRuntime.threaded("chord-" + bound.port(), config.clock()),
                            config.replicas(), options, disk);
                    dht.attach(transport);
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
}
