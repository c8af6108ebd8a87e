package org.p2psip.core.auth;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.location.AddressOfRecord;

/**
 * Replay protection that holds across the cluster (RFC 7616 §3.4's nonce
 * count): the counts each user has used with each nonce live in the DHT,
 * one small value per user and nonce that lapses with the nonce, so a
 * response accepted by one node is refused by every other if it comes
 * again. The cost is one conditional write per authenticated request,
 * whatever the number of users; keyed by user as well as nonce, phones
 * sharing nothing never contend for one key.
 */
public final class NonceCountStore {

    private static final int MAX_ATTEMPTS = 8;

    private final Dht dht;

    public NonceCountStore(Dht dht) {
        this.dht = Objects.requireNonNull(dht, "dht");
    }

    /**
     * Records that {@code user} used {@code nc} with {@code nonce}.
     * Completes with {@code true} when this is the first use of that count,
     * {@code false} for a replay (or when the key kept changing under us,
     * which the caller answers like a stale nonce).
     *
     * @param keepUntil when the nonce stops being fresh; the record is not needed after
     */
    public CompletableFuture<Boolean> firstUse(AddressOfRecord user, String nonce, long nc, Instant keepUntil) {
        Optional<NonceCountWindow> first = NonceCountWindow.EMPTY.accept(nc);
        if (first.isEmpty()) {
            return CompletableFuture.completedFuture(false);
        }
        String key = AuthKeys.nonceCounts(user, nonce);
        // Most responses are the first with their nonce (a phone answering a challenge): write without reading.
        return dht.putIfVersion(key, Dht.ABSENT, first.get().encode(), keepUntil)
                .thenCompose(written -> written ? CompletableFuture.completedFuture(true)
                        : retry(key, nc, keepUntil, 2));
    }

    private CompletableFuture<Boolean> retry(String key, long nc, Instant keepUntil, int attempt) {
        return dht.get(key).thenCompose(stored -> {
            NonceCountWindow window = stored.map(v -> NonceCountWindow.decode(v.value())).orElse(NonceCountWindow.EMPTY);
            Optional<NonceCountWindow> next = window.accept(nc);
            if (next.isEmpty()) {
                return CompletableFuture.completedFuture(false);
            }
            long version = stored.map(VersionedValue::version).orElse(Dht.ABSENT);
            return dht.putIfVersion(key, version, next.get().encode(), keepUntil).thenCompose(written -> {
                if (written) {
                    return CompletableFuture.completedFuture(true);
                }
                return attempt >= MAX_ATTEMPTS ? CompletableFuture.completedFuture(false)
                        : retry(key, nc, keepUntil, attempt + 1);
            });
        });
    }
}
