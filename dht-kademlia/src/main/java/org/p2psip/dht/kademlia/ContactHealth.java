package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.p2psip.core.overlay.SchedulingLag;
import org.p2psip.core.overlay.TimeoutSuspicion;

/**
 * What this node believes about its contacts' health beyond the k-buckets:
 * how many requests to each failed in a row, and which contacts it has
 * written off recently. Pure state: time (monotonic milliseconds) is an
 * argument, and the pings the rules call for are sent by the caller.
 *
 * <p>The rules. One timeout may be load rather than death — the transport
 * has already retried — so a contact leaves the routing table only after
 * {@link #STRIKES} failed requests in a row, the first and the last at least
 * a window apart ({@link TimeoutSuspicion}, the rule chord's peers follow
 * too), and any message from it clears its count (§2.2: every message is a
 * sign of life). Timeouts while this node itself lags are excused, and its
 * lag extends the window. A contact written off is <em>suspected</em> for
 * {@link #SUSPECT_MILLIS}: left out of lookups unless it speaks first, but
 * probed, so both sides of a healed partition find each other again. Suspects still count towards the nodes a read or a
 * write must reach ({@link #othersNeeded}), so a node cut off from the rest
 * does not settle for itself.
 */
final class ContactHealth {

    /** How long a contact that timed out is left out of lookups unless it speaks first. */
    static final long SUSPECT_MILLIS = 30_000;
    /** Failed requests in a row after which a contact leaves the routing table. */
    static final int STRIKES = TimeoutSuspicion.TIMEOUTS;

    /** A contact that stopped answering, since when, and when it was last probed (monotonic milliseconds). */
    record Suspect(Contact contact, long since, long probedAt) {

        Suspect {
            Objects.requireNonNull(contact, "contact");
        }
    }

    private final int replicas;
    /** Consecutive failed requests per contact, and how long they have lasted. */
    private final TimeoutSuspicion<BigInteger> strikes;
    /** Contacts that timed out recently, by id. */
    private final Map<BigInteger, Suspect> suspected = new HashMap<>();

    /**
     * @param replicas     copies of every key, this node's included
     * @param windowMillis the least time from a contact's first failed request in a row to the one that writes it
     *                     off; zero counts only
     */
    ContactHealth(int replicas, long windowMillis) {
        this(replicas, windowMillis, 0, null);
    }

    /**
     * @param replicas     copies of every key, this node's included
     * @param windowMillis the least time, this node's own lag left out, from a contact's first failed request in a
     *                     row to the one that writes it off; zero counts only
     * @param waitMillis   how long a request waits before it times out
     * @param lag          this node's own lag, which excuses the timeouts it explains; {@code null} for none
     */
    ContactHealth(int replicas, long windowMillis, long waitMillis, SchedulingLag lag) {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be positive, not " + replicas);
        }
        this.replicas = replicas;
        this.strikes = new TimeoutSuspicion<>(Duration.ofMillis(windowMillis), Duration.ofMillis(waitMillis), lag);
    }

    /** The contact spoke: it is neither struck nor suspected any more. */
    void heardFrom(BigInteger id) {
        suspected.remove(id);
        strikes.answered(id);
    }

    /**
     * A request to the contact failed at {@code nowMillis} ({@code timedOut}:
     * by a timeout, which this node's own lag may excuse); true when that
     * makes {@link #STRIKES} in a row spanning the window, when the caller
     * forgets it and {@link #suspect suspects} it (its count starts over).
     */
    boolean strike(BigInteger id, boolean timedOut, long nowMillis) {
        long now = TimeUnit.MILLISECONDS.toNanos(nowMillis);
        return timedOut ? strikes.timedOut(id, now) : strikes.failed(id, now);
    }

    /** Whether a request that timed out at {@code nowMillis} says more about this node's own lag than the contact. */
    boolean lagExcuses(long nowMillis) {
        return strikes.excuses(TimeUnit.MILLISECONDS.toNanos(nowMillis));
    }

    /** {@code c}'s port is closed: its strikes are moot, and it is suspected from {@code nowMillis}. */
    void gone(Contact c, long nowMillis) {
        strikes.forgotten(c.id());
        suspect(c, nowMillis);
    }

    void suspect(Contact c, long nowMillis) {
        suspected.put(c.id(), new Suspect(c, nowMillis, nowMillis));
    }

    /** Whether {@code id} timed out within the last {@link #SUSPECT_MILLIS} and has not been heard from since. */
    boolean isSuspected(BigInteger id, long nowMillis) {
        Suspect s = suspected.get(id);
        if (s == null) {
            return false;
        }
        if (nowMillis - s.since() > SUSPECT_MILLIS) {
            suspected.remove(id);
            return false;
        }
        return true;
    }

    /**
     * How many other nodes this node must reach for a read or a write to
     * count: {@code replicas - 1}, or every other node it knows of when it
     * knows fewer — the {@code inTable} contacts of its routing table plus
     * those it suspects but has not yet written off. A node cut off from the
     * rest (a partition, a long pause) would otherwise find only itself,
     * read every key as absent and acknowledge writes that only it holds.
     */
    int othersNeeded(int inTable, long nowMillis) {
        forgetLapsed(nowMillis);
        return Math.min(replicas - 1, inTable + suspected.size());
    }

    /** The contacts suspected now, after the lapsed ones are forgotten. */
    List<Contact> suspects(long nowMillis) {
        forgetLapsed(nowMillis);
        return suspected.values().stream().map(Suspect::contact).toList();
    }

    boolean anySuspected() {
        return !suspected.isEmpty();
    }

    /**
     * The up to {@code count} suspects probed longest ago (marked probed
     * now; still suspected since they first timed out), after the lapsed
     * ones are forgotten.
     */
    List<Contact> nextProbes(int count, long nowMillis) {
        forgetLapsed(nowMillis);
        List<Suspect> leastProbed = new ArrayList<>(suspected.values());
        leastProbed.sort(Comparator.comparingLong(Suspect::probedAt));
        List<Contact> probes = new ArrayList<>();
        for (Suspect s : leastProbed.subList(0, Math.min(count, leastProbed.size()))) {
            suspected.put(s.contact().id(), new Suspect(s.contact(), s.since(), nowMillis));
            probes.add(s.contact());
        }
        return probes;
    }

    private void forgetLapsed(long nowMillis) {
        suspected.values().removeIf(s -> nowMillis - s.since() > SUSPECT_MILLIS);
    }
}
