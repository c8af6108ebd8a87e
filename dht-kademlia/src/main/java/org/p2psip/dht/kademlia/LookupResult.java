package org.p2psip.dht.kademlia;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A finished lookup: the up to k closest live nodes to its target, this
 * node included, closest first; the highest-versioned value seen (FIND_VALUE
 * only); its rounds (hops); how many other nodes answered; and the nodes
 * that failed to answer it.
 */
record LookupResult(List<Contact> closest, Optional<StoredValue> best, int rounds, int answered,
                    List<Contact> failed) {

    LookupResult {
        Objects.requireNonNull(closest, "closest");
        Objects.requireNonNull(best, "best");
        failed = List.copyOf(failed);
        if (rounds < 0 || answered < 0) {
            throw new IllegalArgumentException("negative rounds or answers: " + rounds + ", " + answered);
        }
    }
}
