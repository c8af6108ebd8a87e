package org.p2psip.core.location;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * All bindings of one address-of-record, in the order they were last
 * written (least recently added or refreshed first). Immutable; the
 * registrar rules build a new set for every update.
 */
public record BindingSet(List<Binding> bindings) {

    public static final BindingSet EMPTY = new BindingSet(List.of());

    public BindingSet {
        bindings = List.copyOf(bindings);
    }

    public boolean isEmpty() {
        return bindings.isEmpty();
    }

    public int size() {
        return bindings.size();
    }

    /** The bindings still alive at {@code now}. */
    public BindingSet activeAt(Instant now) {
        if (bindings.stream().noneMatch(b -> b.expiredAt(now))) {
            return this;
        }
        return new BindingSet(bindings.stream().filter(b -> !b.expiredAt(now)).toList());
    }

    /** When the last binding lapses: the lifetime of the stored value. */
    public Optional<Instant> latestExpiry() {
        return bindings.stream().map(Binding::expiresAt).max(Comparator.naturalOrder());
    }

    /**
     * Live bindings in forwarding order (RFC 3261 §16.6): highest q first,
     * then the most recently refreshed first within equal q.
     */
    public List<Binding> targetsAt(Instant now) {
        List<Binding> live = new ArrayList<>(bindings.stream().filter(b -> !b.expiredAt(now)).toList());
        // Newest write last in the list: reverse, then a stable sort by q keeps newest first within a q.
        Collections.reverse(live);
        live.sort(Comparator.comparingInt(Binding::effectiveQ).reversed());
        return List.copyOf(live);
    }
}
