package org.p2psip.dht.kademlia;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A finished lookup: the up to k closest live nodes to its target, this
 * node included, closest first; the highest-versioned value seen (FIND_VALUE
 * only); its rounds (hops); how many other nodes answered; and the nodes it
 * knew of but did not hear from (they failed to answer it, or this node
 * suspects them and left them out).
 */
record LookupResult(List<Contact> closest, Optional<StoredValue> best, int rounds, int answered,
                    List<Contact> unheard) {

    LookupResult {
        Objects.requireNonNull(closest, "closest");
        Objects.requireNonNull(best, "best");
        unheard = List.copyOf(unheard);
        if (rounds < 0 || answered < 0) {
            throw new IllegalArgumentException("negative rounds or answers: " + rounds + ", " + answered);
        }
    }
}
