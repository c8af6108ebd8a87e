package org.p2psip.core.dht;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;

/**
 * A node's handle on the distributed hash table: the whole SPI a backend
 * implements (see DESIGN.md, "The DHT SPI").
 *
 * <ul>
 *   <li>Every call is asynchronous and must not block the caller's thread.</li>
 *   <li>Keys are strings and values bytes; the DHT knows nothing of SIP.</li>
 *   <li>Every value carries an absolute expiry; once it has passed, the value
 *       is never returned and its key counts as absent for
 *       {@link #putIfVersion}.</li>
 *   <li>Writes are conditional on a version, so a read-modify-write from any
 *       node either commits on top of what it read or fails and retries: two
 *       concurrent updates of one key never lose either.</li>
 *   <li>A version is positive, opaque, and changes on every write of a key.</li>
 * </ul>
 */
public interface Dht extends AutoCloseable {

    /** The expected version that means "the key must be absent (or expired)". */
    long ABSENT = 0;

    /** The backend's name as given to {@code --dht}. */
    String backendName();

    /** This node's identity in the overlay, as {@link Placement} reports it. */
    Peer self();

    /** The live value of {@code key}, if any. */
    CompletableFuture<Optional<VersionedValue>> get(String key);

    /**
     * Stores {@code value} under {@code key} until {@code expiresAt}, if and
     * only if the key's current version is {@code expectedVersion}
     * ({@link #ABSENT} for a new key). Completes with {@code true} when
     * written, {@code false} when the version did not match.
     */
    CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value, Instant expiresAt);

    /** Removes {@code key} if its current version is {@code expectedVersion}. */
    CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion);

    /** Which node owns {@code key} and which hold its replicas. */
    CompletableFuture<Placement> placement(String key);

    /**
     * The {@linkplain KeyPlacement#point points} this node owns now, as its
     * own view of the overlay has it: the keys whose operations it starts
     * without handing them to another node first. A snapshot at most a
     * maintenance round old; cheap, and never blocks. Empty when the backend
     * cannot tell; the balancer then places requests by Call-ID.
     */
    default Optional<KeyRangeSet> ownedRanges() {
        return Optional.empty();
    }

    /**
     * The share of the key space this node owns now, between 0 and 1, by the
     * same view as {@link #ownedRanges}. The ranges' share unless a backend
     * knows better: a Kademlia cell can be finer stripes than the ranges
     * list, and its exact share is still known. Empty when the backend
     * cannot tell.
     */
    default OptionalDouble ownedShare() {
        return ownedRanges().map(r -> OptionalDouble.of(r.share())).orElse(OptionalDouble.empty());
    }

    /**
     * The other overlay members this node knows of now, as its own view has
     * them: every member for a backend whose members all know each other
     * (hazelcast), the neighbours and fingers a node routes through (chord),
     * the routing table's contacts (kademlia). A snapshot at most a
     * maintenance round old, for people reading a status page; cheap, never
     * blocks, never includes {@link #self}. Empty for a backend of one node.
     */
    default List<Peer> knownPeers() {
        return List.of();
    }

    /**
     * How many values this node holds now, owned and replicated, live or not
     * yet purged; -1 if the backend cannot tell. Cheap enough to ask per
     * request: the registrar refuses new registrations past its cap by it.
     */
    default long storedEntries() {
        return -1;
    }

    /**
     * How many times this node has taken another member for dead because it
     * stopped answering (its calls timed out), since the node started: the
     * verdicts that can be wrong, as a loaded node may be slow, not gone. A
     * member that refused a connection is not counted. Zero for a backend
     * that leaves failure detection to something else. Cheap, never blocks;
     * for a node's metrics, where a live peer written off shows as a rise.
     */
    default long peersWrittenOff() {
        return 0;
    }

    /**
     * Takes on this node's share of the keys, when it joined {@linkplain
     * DhtConfig#holdingShare holding it back}; completes once it has (or at
     * once, for a node that took it when it joined or a backend whose
     * members take a share only as they join). Calling it twice is harmless.
     */
    default CompletableFuture<Void> claimShare() {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Leaves the overlay and frees its resources; idempotent. Calls made
     * after it complete exceptionally with {@link IllegalStateException}.
     */
    @Override
    void close();
}
