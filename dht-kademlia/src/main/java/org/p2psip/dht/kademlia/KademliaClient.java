package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.OverlayException;
import org.p2psip.core.overlay.OverlayRuntime;
import org.p2psip.core.overlay.OverlayTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One typed method per Kademlia message, over the authenticated overlay
 * transport, each request starting with this node's contact
 * ({@link KademliaWire}). Every call fails (never hangs) after its timeout.
 *
 * <p>It also keeps the routing table honest, as §2.2 asks of every message:
 * an answer counts as having seen the peer ({@link #observe}), and silence
 * counts against it in its {@link ContactHealth} — the transport has already
 * retried, so one timeout means several lost datagrams, and
 * {@link ContactHealth#STRIKES} of them in a row remove the peer. PINGs are
 * the exception: they are themselves the check of whether a contact lives,
 * and each caller decides what an answer or silence means.
 */
final class KademliaClient {

    private static final Logger LOG = LoggerFactory.getLogger(KademliaClient.class);

    /** A FIND_NODE or FIND_VALUE answer: the peer's closest contacts to the target, and for FIND_VALUE its copy. */
    record Closer(List<Contact> contacts, Optional<StoredValue> value) {

        Closer {
            Objects.requireNonNull(contacts, "contacts");
            Objects.requireNonNull(value, "value");
        }
    }

    private final Contact self;
    private final RoutingTable table;
    private final ContactHealth health;
    private final OwnerThread owner;
    private final OverlayRuntime runtime;
    private final Duration rpcTimeout;
    private volatile OverlayTransport transport;
    /** Whether requests ask their receivers to put this node in their tables (§2.2); not while it holds its share. */
    private volatile boolean announced = true;
    private final AtomicLong writtenOff = new AtomicLong();

    KademliaClient(Contact self, RoutingTable table, ContactHealth health, OwnerThread owner, OverlayRuntime runtime,
                   Duration rpcTimeout) {
        this.self = self;
        this.table = table;
        this.health = health;
        this.owner = owner;
        this.runtime = runtime;
        this.rpcTimeout = rpcTimeout;
    }

    void attach(OverlayTransport transport) {
        this.transport = transport;
    }

    /** Closes the transport, if one was attached; pending requests fail. */
    void closeTransport() {
        OverlayTransport t = transport;
        if (t != null) {
            t.close();
        }
    }

    /**
     * From now until {@link #announce}, this node's requests ask their
     * receivers not to put it in their tables: no peer learns of it, so none
     * sends it a key, while it looks keys up as any client does.
     */
    void holdBack() {
        announced = false;
    }

    /** This node's requests from now on ask their receivers to put it in their tables. */
    void announce() {
        announced = true;
    }

    /** Whether this node is one its peers may hold in their tables and send keys to. */
    boolean announced() {
        return announced;
    }

    /** PING to an address whose node is not known yet (a seed): completes with the contact it answers with. */
    CompletableFuture<Contact> pingSeed(HostPort seed) {
        return transport.request(seed, KademliaWire.PING, pingRequest(), rpcTimeout)
                .thenApply(answer -> new KademliaWire.In(answer).contact());
    }

    /** PING, without bookkeeping: completes when {@code peer} answers. */
    CompletableFuture<Void> ping(Contact peer) {
        return transport.request(peer.overlay(), KademliaWire.PING, pingRequest(), rpcTimeout).thenApply(a -> null);
    }

    CompletableFuture<Closer> findNode(Contact peer, BigInteger target) {
        byte[] request = new KademliaWire.Out().sender(self, announced).id(target).bytes();
        return send(peer, KademliaWire.FIND_NODE, request, rpcTimeout)
                .thenApply(answer -> new Closer(new KademliaWire.In(answer).contacts(), Optional.empty()));
    }

    CompletableFuture<Closer> findValue(Contact peer, String key) {
        byte[] request = new KademliaWire.Out().sender(self, announced).text(key).bytes();
        return send(peer, KademliaWire.FIND_VALUE, request, rpcTimeout)
                .thenApply(answer -> {
                    KademliaWire.In in = new KademliaWire.In(answer);
                    return new Closer(in.contacts(), in.value());
                });
    }

    /** STORE of {@code value} over {@code prev} ({@link ReplicaStore#REPAIR} for a republish or repair). */
    CompletableFuture<StoreOutcome> store(Contact holder, String key, StoredValue value, long prev) {
        byte[] request = new KademliaWire.Out().sender(self, announced).text(key).value(Optional.of(value)).num(prev)
                .bytes();
        return send(holder, KademliaWire.STORE, request, rpcTimeout).thenApply(StoreOutcome::of);
    }

    /**
     * REPAIR of several keys at {@code holder}: one outcome per key, in
     * order; a malformed or short answer counts every key as refused.
     */
    CompletableFuture<List<StoreOutcome>> repair(Contact holder, List<KademliaWire.Repair> repairs) {
        byte[] request = new KademliaWire.Out().sender(self, announced).repairs(repairs).bytes();
        return send(holder, KademliaWire.REPAIR, request, rpcTimeout).thenApply(answer -> {
            List<StoreOutcome> outcomes = new KademliaWire.In(answer).outcomes();
            return outcomes.size() == repairs.size() ? outcomes
                    : Collections.nCopies(repairs.size(), StoreOutcome.REFUSED_NEWER);
        });
    }

    /** COMMIT of the prepared write {@code version}/{@code writeId}, or ({@code drop}) its drop. */
    CompletableFuture<StoreOutcome> commit(Contact holder, String key, long version, long writeId, boolean drop) {
        byte[] request = new KademliaWire.Out().sender(self, announced).text(key).num(version).num(writeId).flag(drop)
                .bytes();
        return send(holder, KademliaWire.COMMIT, request, rpcTimeout).thenApply(StoreOutcome::of);
    }

    /** A conditional write sent to the key's coordinator: completes with whether it was applied. */
    CompletableFuture<Boolean> write(Contact coordinator, String key, long expected, boolean remove, byte[] value,
                                     long expiresAtMillis, long writeId) {
        byte[] request = new KademliaWire.Out().sender(self, announced).text(key).num(expected).flag(remove).blob(value)
                .num(expiresAtMillis).num(writeId).bytes();
        // The coordinator runs lookups of its own before answering, so it gets longer than one RPC.
        return send(coordinator, KademliaWire.WRITE, request, rpcTimeout.multipliedBy(4))
                .thenApply(b -> b.length == 1 && b[0] == 1);
    }

    /**
     * §2.2 on every message: move {@code seen} to the tail of its bucket,
     * insert it, or ping the head of a full bucket first and keep whichever
     * of the two lives.
     */
    void observe(Contact seen) {
        if (seen.id().equals(self.id()) || owner.closed()) {
            return;
        }
        health.heardFrom(seen.id());
        if (table.observe(seen, runtime.millis()) instanceof RoutingTable.Observation.BucketFull full) {
            Contact head = full.leastRecentlySeen();
            ping(head).whenCompleteAsync((answer, error) -> {
                long now = runtime.millis();
                if (error == null || timedOut(error) && health.lagExcuses(now)) {
                    // An unanswered ping while this node itself lagged is no reason to drop an old contact.
                    table.observe(head, now);
                } else {
                    table.replace(head, full.newcomer(), now);
                    if (timedOut(error)) {
                        writtenOff(head, "it did not answer the ping that would have kept it in a full bucket");
                    }
                }
            }, owner::run);
        }
    }

    /**
     * Pings {@code c}, which is believed alive: it is observed if it answers,
     * and struck if not, so that it is forgotten once it has been silent as
     * long as {@link ContactHealth} asks (one unanswered ping on a loaded
     * node is no proof of death).
     */
    void pingOrStrike(Contact c) {
        ping(c).whenCompleteAsync((answer, error) -> {
            if (error == null) {
                observe(c);
            } else {
                strike(c, "ping", error);
            }
        }, owner::run);
    }

    /** Pings a suspected contact: one that answers is back in the table at once. */
    void probe(Contact suspect) {
        ping(suspect).whenCompleteAsync((answer, error) -> {
            if (error == null) {
                LOG.debug("{} answered a probe: back in the routing table", suspect.overlay());
                observe(suspect);
            } else {
                LOG.debug("{} did not answer a probe: {}", suspect.overlay(), OwnerThread.unwrap(error).getMessage());
            }
        }, owner::run);
    }

    private byte[] pingRequest() {
        return new KademliaWire.Out().sender(self, announced).bytes();
    }

    /**
     * Sends a request and keeps the routing table honest: an answer counts
     * as having seen the peer, silence strikes it; an error answer or a
     * request held back unsent ({@code WindowedTransport}) does neither.
     */
    private CompletableFuture<byte[]> send(Contact peer, int type, byte[] payload, Duration timeout) {
        OverlayTransport t = transport;
        return t.request(peer.overlay(), type, payload, timeout).whenCompleteAsync((answer, error) -> {
            if (error == null) {
                observe(peer);
            } else if (OwnerThread.unwrap(error) instanceof OverlayException o
                    && o.reason() == OverlayException.Reason.REFUSED) {
                gone(peer, o.getMessage());
            } else if (OwnerThread.unwrap(error) instanceof OverlayException o
                    && o.reason() != OverlayException.Reason.REMOTE_ERROR
                    && o.reason() != OverlayException.Reason.BACKED_OFF) {
                strike(peer, "type " + type, error);
            }
        }, owner::run);
    }

    /** A request to {@code peer} went unanswered: it is forgotten and suspected once its silence has lasted. */
    private void strike(Contact peer, String what, Throwable error) {
        long now = runtime.millis();
        boolean timedOut = timedOut(error);
        if (health.strike(peer.id(), timedOut, now)) {
            table.remove(peer.id());
            health.suspect(peer, now);
            String why = ContactHealth.STRIKES + " failed requests in a row (last: " + what + ", "
                    + OwnerThread.unwrap(error).getMessage() + ")";
            if (timedOut) {
                writtenOff(peer, why);
            } else {
                LOG.info("{} evicts {}: {}", self.overlay(), peer.overlay(), why);
            }
        }
    }

    /**
     * {@code peer}'s host says its port is closed: its process is gone, which
     * no lag of this node's explains, so it leaves the routing table at the
     * first refusal instead of after {@link ContactHealth#STRIKES} timeouts.
     * It is suspected like a silent one, so a restarted node is found again.
     */
    private void gone(Contact peer, String why) {
        if (table.remove(peer.id())) {
            health.gone(peer, runtime.millis());
            LOG.info("{} evicts {}: {}", self.overlay(), peer.overlay(), why);
        }
    }

    /** Counts and tells a contact evicted for silence: the verdict that may be wrong about a live node. */
    private void writtenOff(Contact peer, String why) {
        long count = writtenOff.incrementAndGet();
        LOG.info("{} writes {} off: {} ({} written off so far)", self.overlay(), peer.overlay(), why, count);
    }

    /**
     * How many contacts this node has evicted because their requests timed
     * out, while it kept up itself. Read by any thread.
     */
    long peersWrittenOff() {
        return writtenOff.get();
    }

    private static boolean timedOut(Throwable error) {
        return OwnerThread.unwrap(error) instanceof OverlayException o && o.reason() == OverlayException.Reason.TIMEOUT;
    }
}
