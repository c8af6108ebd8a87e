package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One iterative Kademlia lookup (Maymounkov &amp; Mazières §2.3) as a pure
 * state machine: it says which contacts to query next and when it has
 * converged; the caller sends the FIND_NODE / FIND_VALUE messages and feeds
 * back answers and failures. No sockets, no clocks.
 *
 * <p>The rule implemented: keep the candidates sorted by XOR distance to the
 * target; keep at most {@code alpha} queries in flight, always to the
 * closest candidates not yet asked; a contact that fails is dropped from the
 * shortlist; the lookup is done when the {@code k} closest candidates that
 * have not failed have all answered (which covers the paper's "a round that
 * brings nothing closer queries all k closest not yet asked").
 *
 * <p>Rounds: seeds are at depth 1 and a contact learnt from a depth-d answer
 * is at depth d+1; {@link #rounds()} is the deepest depth queried, the
 * lookup's hop count.
 *
 * <p>For FIND_VALUE the caller also passes the value each answer carried,
 * and this keeps the one with the highest version: the lookup does not stop
 * at the first copy, so a stale replica cannot hide a newer one among the k
 * closest.
 */
public final class NodeLookup {

    private enum State { WAITING, IN_FLIGHT, ANSWERED, FAILED }

    private static final class Candidate {
        final Contact contact;
        final int depth;
        State state = State.WAITING;

        Candidate(Contact contact, int depth) {
            this.contact = contact;
            this.depth = depth;
        }
    }

    private final IdSpace space;
    private final BigInteger target;
    private final BigInteger self;
    private final int k;
    private final int alpha;
    private final TreeMap<BigInteger, Candidate> byDistance = new TreeMap<>();
    private final Map<BigInteger, Candidate> byId = new HashMap<>();
    private int inFlight;
    private int rounds;
    private int queries;
    private Optional<StoredValue> best = Optional.empty();

    /**
     * @param self the node running the lookup, never queried (it has answered itself already)
     */
    public NodeLookup(IdSpace space, BigInteger self, BigInteger target, int k, int alpha, List<Contact> seeds) {
        this.space = space;
        this.self = self;
        this.target = target;
        this.k = k;
        this.alpha = alpha;
        for (Contact c : seeds) {
            add(c, 1);
        }
    }

    public BigInteger target() {
        return target;
    }

    private void add(Contact c, int depth) {
        if (c.id().equals(self) || byId.containsKey(c.id())) {
            return;
        }
        Candidate candidate = new Candidate(c, depth);
        byId.put(c.id(), candidate);
        byDistance.put(space.distance(c.id(), target), candidate);
    }

    /**
     * The contacts to query now (marked in flight): the closest waiting ones
     * among the k closest live candidates, up to {@code alpha} in flight.
     */
    public List<Contact> nextQueries() {
        List<Contact> next = new ArrayList<>();
        int live = 0;
        for (Candidate c : byDistance.values()) {
            if (c.state == State.FAILED) {
                continue;
            }
            if (live++ >= k || inFlight >= alpha) {
                break;
            }
            if (c.state == State.WAITING) {
                c.state = State.IN_FLIGHT;
                inFlight++;
                queries++;
                rounds = Math.max(rounds, c.depth);
                next.add(c.contact);
            }
        }
        return next;
    }

    /** {@code from} answered with the contacts it knows closest to the target, and maybe a stored value. */
    public void onAnswer(Contact from, List<Contact> closer, Optional<StoredValue> value) {
        Candidate c = byId.get(from.id());
        if (c == null || c.state != State.IN_FLIGHT) {
            return;
        }
        c.state = State.ANSWERED;
        inFlight--;
        for (Contact n : closer) {
            add(n, c.depth + 1);
        }
        value.ifPresent(v -> {
            if (best.isEmpty() || v.version() > best.get().version()) {
                best = Optional.of(v);
            }
        });
    }

    /** {@code from} timed out or refused: it leaves the shortlist. */
    public void onFailure(Contact from) {
        Candidate c = byId.get(from.id());
        if (c == null || c.state != State.IN_FLIGHT) {
            return;
        }
        c.state = State.FAILED;
        inFlight--;
    }

    /** Converged: nothing in flight and the k closest live candidates have all answered. */
    public boolean isDone() {
        if (inFlight > 0) {
            return false;
        }
        int live = 0;
        for (Candidate c : byDistance.values()) {
            if (c.state == State.FAILED) {
                continue;
            }
            if (live++ >= k) {
                break;
            }
            if (c.state != State.ANSWERED) {
                return false;
            }
        }
        return true;
    }

    /** The up to k closest contacts that answered, closest first: where the key's replicas live. */
    public List<Contact> closestAnswered() {
        List<Contact> out = new ArrayList<>();
        for (Candidate c : byDistance.values()) {
            if (c.state == State.ANSWERED) {
                out.add(c.contact);
                if (out.size() == k) {
                    break;
                }
            }
        }
        return out;
    }

    /** Contacts that failed during this lookup, for the routing table to forget. */
    public List<Contact> failed() {
        return byDistance.values().stream().filter(c -> c.state == State.FAILED).map(c -> c.contact).toList();
    }

    /** The highest-versioned value any answer carried. */
    public Optional<StoredValue> bestValue() {
        return best;
    }

    public int rounds() {
        return rounds;
    }

    public int queries() {
        return queries;
    }

    static Comparator<Contact> byDistance(IdSpace space, BigInteger target) {
        return Comparator.comparing(c -> space.distance(c.id(), target));
    }
}
