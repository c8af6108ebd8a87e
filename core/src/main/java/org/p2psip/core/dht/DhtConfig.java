package org.p2psip.core.dht;

import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.net.HostPort;
import org.p2psip.core.store.DataDir;
import org.p2psip.core.store.WriteBehindValues;

/**
 * Everything a backend needs to start one node, as assembled from the
 * command line.
 *
 * @param sip        the SIP address of the front node this DHT node serves
 * @param overlay    where the overlay listens, for backends that have one
 * @param bootstrap  existing members to join; empty starts a new overlay
 * @param replicas   copies of each value, owner included (at least 1)
 * @param clock      the time every expiry is measured against
 * @param options    backend-specific settings ({@code --dht-option k=v})
 * @param dataDir    where the values this node holds are written behind and loaded from at start; empty: memory only
 * @param holdShare  whether a joining node leaves the keys with their members until {@link Dht#claimShare}
 */
public record DhtConfig(HostPort sip, Optional<HostPort> overlay, List<HostPort> bootstrap, int replicas,
                        Clock clock, Map<String, String> options, Optional<DataDir> dataDir, boolean holdShare) {

    public DhtConfig {
        Objects.requireNonNull(sip, "sip");
        Objects.requireNonNull(overlay, "overlay");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(dataDir, "dataDir");
        bootstrap = List.copyOf(bootstrap);
        options = Map.copyOf(options);
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1, not " + replicas);
        }
    }

    /** A node that takes its share of the keys as soon as it has joined. */
    public DhtConfig(HostPort sip, Optional<HostPort> overlay, List<HostPort> bootstrap, int replicas, Clock clock,
                     Map<String, String> options, Optional<DataDir> dataDir) {
        this(sip, overlay, bootstrap, replicas, clock, options, dataDir, false);
    }

    /** A node that keeps its values in memory only. */
    public DhtConfig(HostPort sip, Optional<HostPort> overlay, List<HostPort> bootstrap, int replicas, Clock clock,
                     Map<String, String> options) {
        this(sip, overlay, bootstrap, replicas, clock, options, Optional.empty());
    }

    /** The same node, keeping its values in {@code dir} as well. */
    public DhtConfig withDataDir(DataDir dir) {
        return new DhtConfig(sip, overlay, bootstrap, replicas, clock, options, Optional.of(dir), holdShare);
    }

    /**
     * The same node, joining its overlay without taking a share of the keys
     * until {@link Dht#claimShare} is called: it reads and writes through
     * the overlay as any client does while it warms up, and the keys stay
     * with the members that serve them warm.
     */
    public DhtConfig holdingShare() {
        return new DhtConfig(sip, overlay, bootstrap, replicas, clock, options, dataDir, true);
    }

    /**
     * The values this node kept in its data directory, opened for backend
     * {@code name} ({@code NAME.mv.db} there); empty without a directory.
     *
     * @throws DhtException with a one-line reason when the file cannot be opened
     */
    public Optional<WriteBehindValues> keptValues(String name) {
        if (dataDir.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(WriteBehindValues.open(dataDir.get(), name, clock::millis));
        } catch (IOException e) {
            throw new DhtException(e.getMessage(), e);
        }
    }

    /** A single node with one copy of every value, for tests and the local backend. */
    public static DhtConfig standalone(HostPort sip, Clock clock) {
        return new DhtConfig(sip, Optional.empty(), List.of(), 1, clock, Map.of());
    }
}
