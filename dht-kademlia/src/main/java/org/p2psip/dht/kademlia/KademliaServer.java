package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.p2psip.core.overlay.OverlayRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the Kademlia messages peers send: decodes each request, observes
 * its sender (§2.2: every message received updates the k-buckets) and
 * answers it on the owner thread, one method per message.
 *
 * <p>A holder takes a coordinated STORE only from the closest live node it
 * knows: if it knows a closer one it does not suspect, it refuses and pings
 * that node, so a node that has merely lost sight of the real coordinator
 * cannot act as a second one, and a dead closer node is soon forgotten so
 * the writer's retry gets through. The rest of the holder's rule is
 * {@link ReplicaStore}'s.
 */
final class KademliaServer {

    private static final Logger LOG = LoggerFactory.getLogger(KademliaServer.class);

    private final IdSpace space;
    private final Contact self;
    private final int k;
    private final RoutingTable table;
    private final ContactHealth health;
    private final ReplicaStore store;
    private final KademliaClient client;
    private final WriteCoordinator coordinator;
    private final OwnerThread owner;
    private final OverlayRuntime runtime;

    KademliaServer(IdSpace space, Contact self, int k, RoutingTable table, ContactHealth health, ReplicaStore store,
                   KademliaClient client, WriteCoordinator coordinator, OwnerThread owner, OverlayRuntime runtime) {
        this.space = space;
        this.self = self;
        this.k = k;
        this.table = table;
        this.health = health;
        this.store = store;
        this.client = client;
        this.coordinator = coordinator;
        this.owner = owner;
        this.runtime = runtime;
    }

    /** Serves one authenticated request; called on a Netty thread, runs on the owner thread. */
    CompletableFuture<byte[]> handle(int type, byte[] payload) {
        return owner.call(() -> {
            KademliaWire.In in = new KademliaWire.In(payload);
            Contact sender = in.contact();
            if (in.flag()) {
                client.observe(sender);
            }
            return switch (type) {
                case KademliaWire.PING -> CompletableFuture.completedFuture(ping());
                case KademliaWire.FIND_NODE -> CompletableFuture.completedFuture(findNode(in, sender));
                case KademliaWire.FIND_VALUE -> CompletableFuture.completedFuture(findValue(in, sender));
                case KademliaWire.STORE -> CompletableFuture.completedFuture(store(in, sender));
                case KademliaWire.COMMIT -> CompletableFuture.completedFuture(commit(in));
                case KademliaWire.REPAIR -> CompletableFuture.completedFuture(repair(in));
                case KademliaWire.WRITE -> write(in);
                default -> CompletableFuture.failedFuture(new IllegalArgumentException("unknown kademlia message "
                        + type));
            };
        });
    }

    private byte[] ping() {
        return new KademliaWire.Out().contact(self).bytes();
    }

    private byte[] findNode(KademliaWire.In in, Contact sender) {
        BigInteger target = in.id();
        return new KademliaWire.Out().contacts(closestFor(target, sender)).bytes();
    }

    private byte[] findValue(KademliaWire.In in, Contact sender) {
        String key = in.text();
        return new KademliaWire.Out().contacts(closestFor(space.idOf(key), sender)).value(store.get(key)).bytes();
    }

    private byte[] store(KademliaWire.In in, Contact sender) {
        String key = in.text();
        StoredValue value = in.value().orElseThrow(() -> new IllegalArgumentException("empty STORE"));
        long prev = in.num();
        long now = runtime.nanos().getAsLong();
        StoreOutcome outcome = store.offer(key, value, prev, true, now).orElseGet(() -> {
            if (closerThan(space.idOf(key), sender)) {
                return StoreOutcome.REFUSED_NOT_COORDINATOR;
            }
            store.prepare(key, value, now);
            return StoreOutcome.TAKEN;
        });
        return outcome.answer();
    }

    /** Each key as a STORE with no previous version: taken if it moves this holder forward. */
    private byte[] repair(KademliaWire.In in) {
        List<KademliaWire.Repair> repairs = in.repairs();
        long now = runtime.nanos().getAsLong();
        List<StoreOutcome> outcomes = new ArrayList<>(repairs.size());
        for (KademliaWire.Repair r : repairs) {
            outcomes.add(store.offer(r.key(), r.value(), ReplicaStore.REPAIR, true, now).orElse(StoreOutcome.TAKEN));
        }
        return new KademliaWire.Out().outcomes(outcomes).bytes();
    }

    private byte[] commit(KademliaWire.In in) {
        String key = in.text();
        long version = in.num();
        long writeId = in.num();
        boolean drop = in.flag();
        return store.settle(key, version, writeId, drop, true, runtime.nanos().getAsLong()).answer();
    }

    private CompletableFuture<byte[]> write(KademliaWire.In in) {
        String key = in.text();
        long expected = in.num();
        boolean remove = in.flag();
        byte[] value = in.blob();
        long expiresAt = in.num();
        long writeId = in.num();
        return coordinator.coordinate(key, expected, remove, value, expiresAt, writeId)
                .thenApply(ok -> new byte[] {(byte) (ok ? 1 : 0)});
    }

    /** The k closest contacts this node knows, itself included (it may be among them), minus the asker. */
    private List<Contact> closestFor(BigInteger target, Contact asker) {
        List<Contact> known = new ArrayList<>(table.closest(target, k + 1));
        known.add(self);
        known.removeIf(c -> c.id().equals(asker.id()));
        known.sort(NodeLookup.byDistance(space, target));
        return known.size() > k ? known.subList(0, k) : known;
    }

    /**
     * Whether this node, or a contact not suspected dead, is closer to
     * {@code keyId} than {@code sender}; such a contact is pinged, and one
     * that stays silent is evicted (§2.2, by {@link ContactHealth}'s rule),
     * so the writer's retries get through.
     */
    private boolean closerThan(BigInteger keyId, Contact sender) {
        BigInteger senderDistance = space.distance(sender.id(), keyId);
        if (space.distance(self.id(), keyId).compareTo(senderDistance) < 0) {
            return true;
        }
        long now = runtime.millis();
        for (Contact c : table.closest(keyId, 3)) {
            if (space.distance(c.id(), keyId).compareTo(senderDistance) >= 0) {
                return false;
            }
            if (!health.isSuspected(c.id(), now)) {
                LOG.debug("refusing coordinator {} for {}: {} is closer", sender.overlay(), keyId.toString(16),
                        c.overlay());
                client.pingOrStrike(c);
                return true;
            }
        }
        return false;
    }
}
